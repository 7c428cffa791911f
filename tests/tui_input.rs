//! Terminal input without a terminal: pastes, entry limits, and batches of
//! events applied the way the event loop applies them (everything that is
//! ready, runs of typed characters folded into one edit).

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{Input, Key};
use ridgeline::tui::app::Level;
use ridgeline::tui::events::{self, Requests};
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::update::{FILTER_MAX, KNOB_MAX, PATH_MAX};
use ridgeline::tui::{Action, App, Command, Mode, Pane, update};
use std::collections::VecDeque;

mod common;
use common::{app, go, key};

fn hw_id(a: &App) -> &str {
    &a.catalog.hardware[a.hw].hw.id
}

fn paste(a: &mut App, text: &str) {
    update(a, Action::Paste(text.to_string()));
}

fn ctrl(a: &mut App, c: char) {
    update(
        a,
        Action::Input(Input {
            key: Key::Char(c),
            ctrl: true,
            ..Input::default()
        }),
    );
}

fn message(a: &App) -> String {
    a.message.as_ref().map(|m| m.1.clone()).unwrap_or_default()
}

fn edit_text(a: &App) -> String {
    a.edit.as_ref().expect("an open knob entry").text.lines()[0].clone()
}

fn open_knob(a: &mut App, knob: Knob) {
    a.focus = Pane::Knobs;
    a.knob = a.knobs().iter().position(|k| *k == knob).unwrap();
    go(a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Edit);
}

fn k(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Event {
    Event::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

fn ctrl_key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

fn apply(a: &mut App, evs: impl IntoIterator<Item = Event>) -> (Requests, VecDeque<Event>) {
    let mut q: VecDeque<Event> = evs.into_iter().collect();
    let r = events::apply(a, &mut q);
    (r, q)
}

#[test]
fn a_paste_into_the_filter_is_one_edit_and_one_recompute() {
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    let before = a.recomputes;
    // "h100" keeps the selected h100-sxm visible: no second recompute to
    // move the selection, so exactly one (typing it would take four).
    paste(&mut a, "h100");
    assert_eq!(a.filter_text(Pane::Hardware), "h100");
    assert_eq!(a.recomputes - before, 1);
    assert_eq!(a.mode, Mode::Filter(Pane::Hardware), "still typing");
    // One edit: one undo (ctrl-u in the entry) takes all of it back.
    ctrl(&mut a, 'u');
    assert_eq!(a.filter_text(Pane::Hardware), "");
}

#[test]
fn a_pasted_line_keeps_the_entry_open_and_loses_its_control_characters() {
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    // The final line break is dropped (it is not Enter); a tab or an inner
    // line break is a space; an escape sequence loses its ESC.
    paste(&mut a, "h1\t00\x1b[31m\r\n");
    assert_eq!(a.filter_text(Pane::Hardware), "h1 00[31m");
    assert_eq!(a.mode, Mode::Filter(Pane::Hardware));
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    paste(&mut a, "nvidia\nh200\n");
    assert_eq!(a.filter_text(Pane::Hardware), "nvidia h200");
    assert_eq!(hw_id(&a), "h200-sxm");
}

#[test]
fn a_paste_into_a_knob_replaces_its_value_and_applies_once() {
    let mut a = app();
    open_knob(&mut a, Knob::Batch);
    let before = a.recomputes;
    paste(&mut a, "64\n");
    assert_eq!(edit_text(&a), "64", "the selected old value is replaced");
    assert_eq!(a.workload.batch, 64.0);
    assert_eq!(a.recomputes - before, 1);
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.workload.batch, 64.0);
}

#[test]
fn a_paste_into_the_save_path_replaces_the_default_and_saves_nothing() {
    let mut a = app();
    go(&mut a, &[Command::Save]);
    let before = a.recomputes;
    paste(&mut a, "/tmp/mine.toml\n");
    assert_eq!(a.save_path.lines()[0], "/tmp/mine.toml");
    assert_eq!(a.mode, Mode::Save, "the newline did not confirm the save");
    assert_eq!(a.recomputes, before, "a path changes no figure");
    go(&mut a, &[Command::Cancel]);
}

#[test]
fn a_paste_with_no_entry_open_is_ignored_and_said() {
    let mut a = app();
    let hw = a.hw;
    paste(&mut a, "jjjjq");
    assert!(!a.quit, "pasted text is never taken as keys");
    assert_eq!(a.hw, hw);
    assert_eq!(a.mode, Mode::Normal);
    assert!(message(&a).contains("paste ignored"), "{}", message(&a));
}

#[test]
fn entries_are_capped_and_say_so() {
    // 100 KB into the filter: FILTER_MAX kept, the rest (100000 - 256 =
    // 99744 characters) left out, in one recompute plus one to move the
    // selection off h100-sxm (no device matches "xxx...").
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    let before = a.recomputes;
    paste(&mut a, &"x".repeat(100_000));
    assert_eq!(a.filter_text(Pane::Hardware).chars().count(), FILTER_MAX);
    assert!(a.recomputes - before <= 2);
    assert_eq!(
        message(&a),
        "the filter takes at most 256 characters; 99744 left out"
    );
    assert_eq!(a.message.as_ref().unwrap().0, Level::Warn);
    // A key at the limit is refused; Backspace still works.
    key(&mut a, Key::Char('y'));
    assert_eq!(a.filter_text(Pane::Hardware).chars().count(), FILTER_MAX);
    assert!(message(&a).contains("1 left out"), "{}", message(&a));
    key(&mut a, Key::Backspace);
    assert_eq!(
        a.filter_text(Pane::Hardware).chars().count(),
        FILTER_MAX - 1
    );
    // Characters, not bytes: 300 three-byte characters keep 256 of them.
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    paste(&mut a, &"€".repeat(300));
    assert_eq!(a.filter_text(Pane::Hardware), "€".repeat(FILTER_MAX));
    // The knob and path entries have their own limits.
    let mut a = app();
    open_knob(&mut a, Knob::Batch);
    paste(&mut a, &"9".repeat(KNOB_MAX + 10));
    assert_eq!(edit_text(&a).len(), KNOB_MAX);
    assert!(message(&a).contains("a knob value takes at most 1024 characters; 10 left out"));
    let mut a = app();
    go(&mut a, &[Command::Save]);
    paste(&mut a, &"p".repeat(PATH_MAX + 1));
    assert_eq!(a.save_path.lines()[0].len(), PATH_MAX);
    assert!(message(&a).contains("the path takes at most 4096 characters; 1 left out"));
}

#[test]
fn the_yank_buffer_cannot_grow_an_entry_past_its_limit() {
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    paste(&mut a, &"ab ".repeat(60)); // 180 characters
    ctrl(&mut a, 'w'); // kill the last word with its space: 177 left, "ab " yanked
    assert_eq!(a.filter_text(Pane::Hardware).chars().count(), 177);
    // Each ctrl-y puts 3 back: 177 + 3 * 26 = 255 fits, a 27th would make
    // 258 > 256 and is undone.
    for _ in 0..40 {
        ctrl(&mut a, 'y');
        assert!(a.filter_text(Pane::Hardware).chars().count() <= FILTER_MAX);
    }
    assert_eq!(a.filter_text(Pane::Hardware).chars().count(), 255);
    assert!(message(&a).contains("at most 256 characters"));
}

#[test]
fn a_burst_is_applied_to_the_end_and_stops_at_quit() {
    let mut a = app();
    let bottom = *a.hw_visible.last().unwrap();
    // 2000 `j` (down), `q`, then keys that must not be applied.
    let mut evs: Vec<Event> = std::iter::repeat_n(k('j'), 2000).collect();
    evs.push(k('q'));
    evs.extend([k('k'), k('k')]);
    let (r, rest) = apply(&mut a, evs);
    assert!(a.quit);
    assert_eq!(a.hw, bottom, "every j was applied");
    assert!(rest.is_empty());
    assert_eq!(r, Requests::default());
}

#[test]
fn typed_characters_in_a_batch_are_one_edit() {
    let mut a = app();
    let before = a.recomputes;
    // `/` opens the filter, "h100" is typed (one edit: h100-sxm stays
    // visible, one recompute), Enter keeps it (one recompute), `j` moves
    // down (one recompute): 1 + 1 + 1 + 1 = 4; one at a time it is 7.
    let (r, _) = apply(
        &mut a,
        [
            k('/'),
            k('h'),
            k('1'),
            k('0'),
            k('0'),
            code(KeyCode::Enter),
            k('j'),
        ],
    );
    assert_eq!(r, Requests::default());
    assert_eq!(a.filter_text(Pane::Hardware), "h100");
    assert_eq!(a.mode, Mode::Normal);
    // The filtered list in catalog order: h100-sxm, h100-sxm-96gb, ...
    assert_eq!(
        hw_id(&a),
        "h100-sxm-96gb",
        "the j after Enter moved in the list"
    );
    assert_eq!(a.recomputes - before, 4);
}

#[test]
fn ctrl_l_asks_for_a_full_redraw_and_changes_nothing() {
    let mut a = app();
    let hw = a.hw;
    let (r, _) = apply(&mut a, [ctrl_key('l')]);
    assert!(r.redraw_all && !r.suspend);
    assert_eq!(a.hw, hw);
    assert!(a.dirty);
    // While typing too: not a character of the filter.
    go(&mut a, &[Command::Filter]);
    let (r, _) = apply(&mut a, [k('a'), ctrl_key('l'), k('b')]);
    assert!(r.redraw_all);
    assert_eq!(a.filter_text(Pane::Hardware), "ab");
}

#[test]
fn ctrl_z_suspends_and_keeps_the_rest_queued() {
    let mut a = app();
    go(&mut a, &[Command::Filter]);
    let (r, rest) = apply(&mut a, [k('h'), ctrl_key('z'), k('1')]);
    assert!(r.suspend);
    assert_eq!(a.filter_text(Pane::Hardware), "h", "typed before Ctrl-Z");
    assert_eq!(rest.len(), 1, "the 1 waits for the resume");
    let (r, rest) = apply(&mut a, rest);
    assert!(!r.suspend && rest.is_empty());
    assert_eq!(a.filter_text(Pane::Hardware), "h1");
    // In the normal mode and the help screen alike.
    let mut a = app();
    go(&mut a, &[Command::Help]);
    let (r, _) = apply(&mut a, [ctrl_key('z')]);
    assert!(r.suspend);
}

#[test]
fn bracketed_paste_events_become_one_edit() {
    let mut a = app();
    let (_, _) = apply(&mut a, [k('/')]);
    let before = a.recomputes;
    let (_, _) = apply(&mut a, [Event::Paste("h100".into())]);
    assert_eq!(a.filter_text(Pane::Hardware), "h100");
    assert_eq!(a.recomputes - before, 1);
}

#[test]
fn help_and_readme_list_the_new_keys() {
    let a = app();
    let rows = a.keymap.help_rows();
    let find = |what: &str| rows.iter().find(|(_, d)| d.contains(what)).cloned();
    assert_eq!(
        find("redraw the whole screen").map(|r| r.0),
        Some("ctrl-l".to_string())
    );
    assert_eq!(
        find("suspend to the shell").map(|r| r.0),
        Some("ctrl-z".to_string())
    );
}
