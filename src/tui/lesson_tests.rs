//! Presenter mode, driven as the keys drive it (`update` with commands).

use super::*;
use crate::catalog::Catalog;
use crate::tui::action::Action;
use crate::tui::app::{App, Settings};
use crate::tui::update::update;

fn app() -> App {
    App::new(Catalog::builtin(), Settings::default())
}

fn cmd(a: &mut App, c: Command) {
    update(a, Action::Do(c));
}

/// The workbench giving the built-in lesson `name`.
fn giving(name: &str) -> App {
    let mut a = app();
    let l = Lesson::open(name, &a.catalog).unwrap();
    start(&mut a, l);
    a
}

fn running(a: &App) -> &Running {
    a.presenter.running.as_ref().unwrap()
}

fn filled(a: &App) -> &Filled {
    running(a).text.as_ref().unwrap()
}

#[test]
fn every_step_of_every_built_in_lesson_shows_its_script_unmarked() {
    // Applied to the workbench and read back, each step's state gives the
    // figures the script gives: no `*`, and the caption `lesson show` prints.
    for (name, _) in lesson::BUILT_IN {
        let mut a = giving(name);
        let l = running(&a).lesson.clone();
        for i in 0..l.steps.len() {
            assert_eq!(running(&a).step, i, "{name}");
            let f = filled(&a);
            assert!(!f.changed, "{name} step {}: {}", i + 1, f.caption);
            let shown = l.show(i, &a.catalog).unwrap();
            assert_eq!(f.caption, shown.caption, "{name} step {}", i + 1);
            assert_eq!(f.answer, shown.answer, "{name} step {}", i + 1);
            cmd(&mut a, Command::NextStep);
        }
    }
}

#[test]
fn steps_stop_at_the_first_and_the_last() {
    let mut a = giving("knobs");
    let n = running(&a).lesson.steps.len();
    cmd(&mut a, Command::PrevStep);
    assert_eq!(running(&a).step, 0);
    assert!(a.message.as_ref().unwrap().1.contains("the first step"));
    for _ in 0..n + 2 {
        cmd(&mut a, Command::PageDown);
    }
    assert_eq!(
        running(&a).step,
        n - 1,
        "PageDown steps while the strip is up"
    );
    let msg = &a.message.as_ref().unwrap().1;
    assert!(msg.contains(&format!("the last step ({n}/{n})")), "{msg}");
    cmd(&mut a, Command::PageUp);
    assert_eq!(running(&a).step, n - 2);
    assert_eq!(running(&a).position(), format!("step {}/{n}", n - 1));
}

#[test]
fn the_answer_is_revealed_and_hidden_again_on_the_next_step() {
    let mut a = giving("knobs");
    // Step 1 has an answer.
    assert!(running(&a).lesson.steps[0].answer.is_some());
    cmd(&mut a, Command::Reveal);
    assert!(running(&a).revealed);
    cmd(&mut a, Command::Reveal);
    assert!(!running(&a).revealed, "a again hides it");
    cmd(&mut a, Command::Reveal);
    cmd(&mut a, Command::NextStep);
    assert!(
        !running(&a).revealed,
        "a new step starts with its answer hidden"
    );
    // Step 3 of knobs has no answer: said so, nothing revealed.
    cmd(&mut a, Command::NextStep);
    assert!(running(&a).lesson.steps[2].answer.is_none());
    cmd(&mut a, Command::Reveal);
    assert!(!running(&a).revealed);
    assert!(a.message.as_ref().unwrap().1.contains("no answer"));
}

#[test]
fn a_what_if_marks_the_figures_that_moved() {
    let mut a = giving("knobs");
    assert_eq!(a.workload.batch, 1.0, "step 1 decodes one sequence");
    // The audience asks for 64 sequences: the latency moves, the model
    // and device do not.
    a.workload.batch = 64.0;
    a.recompute();
    let f = filled(&a);
    assert!(f.changed);
    assert!(
        f.caption.starts_with("Llama 3.1 8B decoding"),
        "{}",
        f.caption
    );
    assert!(!f.caption.contains("8B*"), "the model is unchanged");
    let live = crate::lesson::figures::compute(&a.catalog, &a.to_scenario()).unwrap();
    let latency = &live.get("latency").unwrap().shown;
    assert!(
        f.caption.contains(&format!("{latency}* per token")),
        "{}",
        f.caption
    );
}

#[test]
fn esc_leaves_the_script_and_keeps_the_state_the_next_step_key_returns() {
    let mut a = giving("knobs");
    cmd(&mut a, Command::NextStep);
    a.workload.batch = 32.0;
    a.recompute();
    cmd(&mut a, Command::Cancel);
    assert!(a.presenter.on().is_none(), "left the script");
    assert_eq!(a.workload.batch, 32.0, "the state stays");
    let area = ratatui::layout::Rect::new(0, 0, 80, 24);
    assert_eq!(
        crate::tui::panes::caption::split(&a, area),
        (area, None),
        "no strip"
    );
    // Off the script, PageDown is the workbench's again: no step moves.
    cmd(&mut a, Command::PageDown);
    assert_eq!(running(&a).step, 1);
    assert!(a.presenter.on().is_none());
    // The next-step key returns to the same step, its state applied again.
    cmd(&mut a, Command::NextStep);
    assert!(a.presenter.on().is_some());
    assert_eq!(running(&a).step, 1);
    assert_eq!(a.workload.batch, 1.0, "the script's batch again");
    assert!(!filled(&a).changed);
}

#[test]
fn esc_clears_a_filter_before_it_leaves_the_lesson() {
    let mut a = giving("knobs");
    a.focus = Pane::Hardware;
    a.hw_filter = crate::tui::app::filter_box("h100");
    cmd(&mut a, Command::Cancel);
    assert!(
        a.presenter.on().is_some(),
        "the first Esc clears the filter"
    );
    assert_eq!(a.filter_text(Pane::Hardware), "");
    cmd(&mut a, Command::Cancel);
    assert!(a.presenter.on().is_none());
}

#[test]
fn the_strip_takes_at_most_a_third_of_the_screen() {
    let mut a = giving("knobs");
    cmd(&mut a, Command::Reveal);
    for (w, h) in [(80, 24), (100, 30), (160, 48)] {
        let area = ratatui::layout::Rect::new(0, 0, w, h);
        let (body, strip) = crate::tui::panes::caption::split(&a, area);
        let strip = strip.unwrap();
        assert!(strip.height <= h / 3, "{w}x{h}: {strip:?}");
        assert_eq!(body.height + strip.height, h);
        assert_eq!(strip.bottom(), h);
    }
}

#[test]
fn the_picker_lists_the_built_in_lessons_and_enter_starts_one() {
    let mut a = app();
    cmd(&mut a, Command::NextStep);
    assert!(a.message.as_ref().unwrap().1.contains("no lesson is on"));
    cmd(&mut a, Command::Lessons);
    let p = a.presenter.picker.as_ref().unwrap();
    assert_eq!(p.rows.len(), lesson::BUILT_IN.len());
    assert_eq!(p.rows[0].0, "knobs");
    // Keys go to the picker while it is open: Down moves its row, not the
    // hardware list.
    let hw = a.hw;
    cmd(&mut a, Command::Down);
    assert_eq!(a.presenter.picker.as_ref().unwrap().row, 1);
    assert_eq!(a.hw, hw);
    cmd(&mut a, Command::Cancel);
    assert!(a.presenter.picker.is_none());
    assert!(a.presenter.running.is_none(), "Esc starts nothing");
    cmd(&mut a, Command::Lessons);
    cmd(&mut a, Command::Down);
    cmd(&mut a, Command::Edit);
    assert!(a.presenter.picker.is_none());
    let r = running(&a);
    assert_eq!(r.lesson.file, format!("built-in:{}", lesson::BUILT_IN[1].0));
    assert_eq!(r.step, 0);
    // Opened again during that lesson, the picker is on its row.
    cmd(&mut a, Command::Lessons);
    assert_eq!(a.presenter.picker.as_ref().unwrap().row, 1);
    cmd(&mut a, Command::Quit);
    assert!(a.quit, "q still quits over the picker");
}

#[test]
fn the_help_lists_the_lesson_keys() {
    let a = app();
    let rows = a.keymap.help_rows();
    for (c, key) in [
        (Command::Lessons, "L"),
        (Command::NextStep, "]"),
        (Command::PrevStep, "["),
        (Command::Reveal, "a"),
    ] {
        assert!(
            rows.iter().any(|(k, d)| k == key && d == c.describe()),
            "{key}"
        );
    }
}
