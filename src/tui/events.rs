//! Terminal events to actions, a batch at a time. The event loop takes
//! every event that is ready, applies them all in order, then draws once;
//! here is the applying, free of any terminal so tests can drive it.
//!
//! A run of characters typed into an open entry (a terminal without
//! bracketed paste types a paste this way; so does key repeat over a slow
//! link) is folded into one [`Action::Paste`]: one edit and one recompute
//! instead of one per character.

use super::action::{Action, Command};
use super::app::App;
use super::keymap;
use super::update::{entry_limit, update};
use ratatui::crossterm::event::Event;
use ratatui_textarea::{Input, Key};
use std::collections::VecDeque;

/// What the event loop must do to the terminal after a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Requests {
    /// Clear the screen and draw all of it (Ctrl-L).
    pub redraw_all: bool,
    /// Suspend to the shell (Ctrl-Z). The events after it stay queued.
    pub suspend: bool,
}

/// The action a key means in the app's current mode.
pub fn key_action(app: &App, ev: &ratatui::crossterm::event::KeyEvent) -> Option<Action> {
    keymap::action_for(&app.keymap, app.keys(), ev)
}

/// The action a terminal event means in the app's current mode.
pub fn action_for(app: &App, ev: Event) -> Option<Action> {
    match ev {
        Event::Key(k) => key_action(app, &k),
        Event::Paste(text) => Some(Action::Paste(text)),
        Event::Resize(_, _) => Some(Action::Resize),
        _ => None,
    }
}

/// Apply the queued events in order. Stops early when the app quits (the
/// rest is dropped) or on a suspend (the rest stays queued).
pub fn apply(app: &mut App, queue: &mut VecDeque<Event>) -> Requests {
    let mut req = Requests::default();
    let mut typed = String::new();
    while let Some(ev) = queue.pop_front() {
        let Some(action) = action_for(app, ev) else {
            continue;
        };
        if let Some(c) = typed_char(app, &action) {
            typed.push(c);
            continue;
        }
        flush(app, &mut typed);
        match action {
            Action::Do(Command::Redraw) => req.redraw_all = true,
            Action::Do(Command::Suspend) => req.suspend = true,
            _ => {}
        }
        update(app, action);
        if app.quit {
            queue.clear();
            return req;
        }
        if req.suspend {
            return req;
        }
    }
    flush(app, &mut typed);
    req
}

/// A plain character for an open entry (what typing there inserts).
fn typed_char(app: &App, action: &Action) -> Option<char> {
    let entry = entry_limit(app).is_some();
    match action {
        Action::Input(Input {
            key: Key::Char(c),
            ctrl: false,
            alt: false,
            ..
        }) if entry && !c.is_control() => Some(*c),
        _ => None,
    }
}

/// Insert the characters typed so far as one edit.
fn flush(app: &mut App, typed: &mut String) {
    if !typed.is_empty() {
        update(app, Action::Paste(std::mem::take(typed)));
    }
}
