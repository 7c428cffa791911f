//! Random key sequences, pastes included, into the workbench's `update`
//! and through the event batching: nothing panics, and the work stays
//! bounded, measured in the recomputes an action costs and the length of
//! the entries (what a recompute and a keystroke cost grows with), never
//! in time.

use proptest::prelude::*;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{Input, Key};
use ridgeline::tui::events;
use ridgeline::tui::update::{FILTER_MAX, KNOB_MAX, PATH_MAX};
use ridgeline::tui::{Action, App, Command, Mode, Pane, update};
use std::collections::VecDeque;

mod common;
use common::app;

/// Every command but Save's confirmation, which writes a file: Save opens
/// the path entry, but Enter there is replaced by Esc below.
fn command() -> impl Strategy<Value = Command> {
    prop::sample::select(Command::ALL.to_vec())
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        4 => any::<char>().prop_map(Key::Char),
        4 => prop::sample::select("abhjklmnquwy0189 /%.-".chars().collect::<Vec<_>>())
            .prop_map(Key::Char),
        3 => prop::sample::select(vec![
            Key::Backspace,
            Key::Delete,
            Key::Enter,
            Key::Left,
            Key::Right,
            Key::Up,
            Key::Down,
            Key::Home,
            Key::End,
            Key::Tab,
            Key::Esc,
            Key::PageUp,
            Key::PageDown,
            Key::F(1),
            Key::Null,
        ]),
    ]
}

fn input() -> impl Strategy<Value = Input> {
    (key(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(key, ctrl, alt, shift)| Input {
        key,
        ctrl,
        alt,
        shift,
    })
}

/// Pasted text: short and anything (control characters, escape
/// sequences, line breaks, any Unicode), or long (up to 100 KB).
fn pasted() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => ".{0,40}",
        1 => (any::<char>(), 0usize..100_000).prop_map(|(c, n)| c.to_string().repeat(n)),
        1 => Just("h100\n".to_string()),
        1 => Just("\x1b[201~\x1b[200~\r\n\t".to_string()),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => command().prop_map(Action::Do),
        5 => input().prop_map(Action::Input),
        2 => pasted().prop_map(Action::Paste),
        1 => Just(Action::Resize),
    ]
}

/// Enter in the save-path entry would write a file: cancel instead.
fn harmless(a: &App, action: Action) -> Action {
    match action {
        Action::Do(Command::Edit) if a.mode == Mode::Save => Action::Do(Command::Cancel),
        other => other,
    }
}

fn chars(lines: &[String]) -> usize {
    lines.iter().map(|l| l.chars().count()).sum()
}

/// The entries: one line each, within their limits.
fn check_entries(a: &App) -> Result<(), TestCaseError> {
    for pane in [Pane::Hardware, Pane::Models] {
        let t = if pane == Pane::Models {
            &a.model_filter
        } else {
            &a.hw_filter
        };
        prop_assert_eq!(t.lines().len(), 1);
        prop_assert!(chars(t.lines()) <= FILTER_MAX);
    }
    if let Some(e) = &a.edit {
        prop_assert_eq!(e.text.lines().len(), 1);
        prop_assert!(chars(e.text.lines()) <= KNOB_MAX);
    }
    prop_assert_eq!(a.save_path.lines().len(), 1);
    prop_assert!(chars(a.save_path.lines()) <= PATH_MAX);
    Ok(())
}

/// 48 cases by default (a few seconds in a debug build); PROPTEST_CASES
/// asks for more.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_actions_never_panic_and_cost_at_most_two_recomputes(
        actions in prop::collection::vec(action(), 1..40)
    ) {
        let mut a = app();
        for act in actions {
            let act = harmless(&a, act);
            let before = a.recomputes;
            update(&mut a, act);
            // An action recomputes once, plus once more when it moves the
            // selection to follow a filter or switches the view (which
            // recomputes for the new view's figures): at most two,
            // whatever it carries (a 100 KB paste included).
            prop_assert!(a.recomputes - before <= 2, "{} recomputes", a.recomputes - before);
            check_entries(&a)?;
        }
    }

    /// Folding typed characters into one edit changes nothing the user
    /// typed: the entries and the mode come out as one key at a time.
    #[test]
    fn a_batch_types_the_same_text_as_one_key_at_a_time(
        keys in prop::collection::vec(
            prop_oneof![
                6 => prop::sample::select("abh1 /-".chars().collect::<Vec<_>>())
                    .prop_map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
                1 => prop::sample::select(vec![KeyCode::Backspace, KeyCode::Esc, KeyCode::Enter,
                    KeyCode::Left, KeyCode::Tab, KeyCode::Up])
                    .prop_map(|c| KeyEvent::new(c, KeyModifiers::NONE)),
            ],
            1..60,
        )
    ) {
        let mut one = app();
        let mut batch = app();
        for k in &keys {
            if let Some(act) = events::action_for(&one, Event::Key(*k)) {
                update(&mut one, act);
            }
        }
        let mut q: VecDeque<Event> = keys.iter().map(|k| Event::Key(*k)).collect();
        events::apply(&mut batch, &mut q);
        prop_assert_eq!(one.mode, batch.mode);
        prop_assert_eq!(one.hw_filter.lines(), batch.hw_filter.lines());
        prop_assert_eq!(one.model_filter.lines(), batch.model_filter.lines());
        prop_assert_eq!(
            one.edit.as_ref().map(|e| e.text.lines().to_vec()),
            batch.edit.as_ref().map(|e| e.text.lines().to_vec())
        );
        prop_assert!(batch.recomputes <= one.recomputes);
        check_entries(&batch)?;
    }
}
