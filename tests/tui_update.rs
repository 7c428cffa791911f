//! The workbench driven by actions, as a user would drive it with keys:
//! update() then a look at the state and the recomputed results.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{Input, Key};
use ridgeline::catalog::Catalog;
use ridgeline::solver::{Param, Phase};
use ridgeline::tui::app::{self, Level};
use ridgeline::tui::events::key_action as action_for;
use ridgeline::tui::keymap::Keymap;
use ridgeline::tui::theme::ThemeSet;
use ridgeline::tui::{Action, App, Command, Mode, Pane, Settings, update};

mod common;
use common::{app, go, typed};

fn hw_id(a: &App) -> &str {
    &a.catalog.hardware[a.hw].hw.id
}

fn result(a: &App) -> &app::Analysis {
    a.current.as_ref().expect("a result")
}

fn focus_knob(a: &mut App, knob: ridgeline::tui::knobs::Knob) {
    a.focus = Pane::Knobs;
    a.knob = ridgeline::tui::knobs::Knob::ALL
        .iter()
        .position(|k| *k == knob)
        .unwrap();
}

#[test]
fn opens_on_h100_and_llama_3_1_8b_with_default_workload() {
    let a = app();
    assert_eq!(hw_id(&a), "h100-sxm");
    assert_eq!(a.catalog.models[a.model].model.id, "llama-3.1-8b");
    let r = result(&a);
    assert_eq!(r.workload, ridgeline::solver::Workload::default());
    // The command line's profile, `default`.
    assert_eq!(
        r.assumptions,
        a.catalog.profile("default").unwrap().assumptions
    );
    assert!(r.eval().latency_s > 0.0);
    assert!(a.notices.is_empty(), "{:?}", a.notices);
}

#[test]
fn moving_a100_h100_h200_shifts_the_ridge_and_the_sensitivity() {
    let mut a = app();
    go(&mut a, &[Command::Up]);
    assert_eq!(hw_id(&a), "a100-sxm-80gb");
    let a100 = result(&a).clone();
    go(&mut a, &[Command::Down]);
    assert_eq!(hw_id(&a), "h100-sxm");
    let h100 = result(&a).clone();
    go(&mut a, &[Command::Down]);
    assert_eq!(hw_id(&a), "h200-sxm");
    let h200 = result(&a).clone();
    // 312/2.04 = 153, 989/3.35 = 295, 989/4.8 = 206 FLOP/byte.
    assert!((a100.eval().ridge_point - 312e12 / 2.039e12).abs() < 2.0);
    assert!((h100.eval().ridge_point - 295.2).abs() < 1.0);
    assert!((h200.eval().ridge_point - 206.0).abs() < 1.0);
    // Faster memory, shorter step; the sensitivity table follows.
    assert!(h200.eval().latency_s < h100.eval().latency_s);
    assert!(h100.eval().latency_s < a100.eval().latency_s);
    assert_ne!(a100.sens.rows, h100.sens.rows);
    assert_ne!(h100.sens.rows, h200.sens.rows);
    assert_eq!(h200.sens.binding, Some(Param::MemoryBandwidth));
}

#[test]
fn typing_70b_in_the_model_filter_finds_the_70b_models() {
    let mut a = app();
    go(&mut a, &[Command::NextPane, Command::Filter]);
    assert_eq!(a.mode, Mode::Filter(Pane::Models));
    typed(&mut a, "7");
    let after_one = a.model_visible.len();
    typed(&mut a, "0b");
    let ids: Vec<&str> = a
        .model_visible
        .iter()
        .map(|&i| a.catalog.models[i].model.id.as_str())
        .collect();
    assert!(after_one > ids.len(), "each keystroke refilters");
    assert!(!ids.is_empty());
    for id in &ids {
        assert!(id.contains("70b"), "{id}");
    }
    assert!(ids.contains(&"llama-3.1-70b"));
    // The selection follows the filter and everything is recomputed.
    let sel = &a.catalog.models[a.model].model.id;
    assert!(sel.contains("70b"), "{sel}");
    assert_eq!(result(&a).model, a.model);
    // q is text here, not quit.
    typed(&mut a, "q");
    assert!(!a.quit);
    assert!(a.model_visible.is_empty());
    // Enter keeps the filter; Esc clears it.
    update(
        &mut a,
        Action::Input(Input {
            key: Key::Backspace,
            ..Input::default()
        }),
    );
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.filter_text(Pane::Models), "70b");
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.filter_text(Pane::Models), "");
    assert_eq!(a.model_visible.len(), a.catalog.models.len());
}

#[test]
fn invalid_knob_text_keeps_the_last_valid_result_and_marks_it() {
    let mut a = app();
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Context);
    let before = result(&a).clone();
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Edit);
    typed(&mut a, "lots");
    let edit = a.edit.as_ref().unwrap();
    assert!(edit.error.as_deref().unwrap().contains("no number found"));
    let (shown, stale) = a.shown().unwrap();
    assert!(stale, "marked as last valid");
    assert_eq!(shown.workload.context, before.workload.context);
    // Enter does not apply it; the entry stays open with the reason.
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Edit);
    assert_eq!(a.message.as_ref().unwrap().0, Level::Error);
    // Esc restores.
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(result(&a), &before);
    assert!(!a.shown().unwrap().1);
}

#[test]
fn typed_units_apply_as_you_type() {
    let mut a = app();
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Context);
    go(&mut a, &[Command::Edit]);
    typed(&mut a, "8k");
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal);
    // Token counts read k as 1024: 8k = 8192.
    assert_eq!(result(&a).workload.context, 8192.0);
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Overhead);
    go(&mut a, &[Command::Edit]);
    typed(&mut a, "50ms");
    go(&mut a, &[Command::Edit]);
    assert_eq!(result(&a).assumptions.overhead_s, 0.05);
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::ComputeEff);
    go(&mut a, &[Command::Edit]);
    typed(&mut a, "150%");
    assert!(
        a.edit.as_ref().unwrap().error.is_some(),
        "the solver rejects 1.5"
    );
    go(&mut a, &[Command::Cancel]);
    assert_eq!(result(&a).assumptions.compute_efficiency, 0.7);
}

#[test]
fn a_solver_error_keeps_the_last_valid_result() {
    let mut a = app();
    a.hw = a
        .catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == "rtx-4090")
        .unwrap();
    a.recompute();
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Tp);
    go(&mut a, &[Command::Right]);
    assert_eq!(a.workload.tp, 2);
    let err = a.current.as_ref().unwrap_err();
    assert!(err.contains("no link"), "{err}");
    let (shown, stale) = a.shown().unwrap();
    assert!(stale);
    assert_eq!(shown.workload.tp, 1);
    go(&mut a, &[Command::Left]);
    assert!(a.current.is_ok());
}

#[test]
fn steps_double_cycle_and_toggle_and_recompute() {
    let mut a = app();
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Batch);
    let t1 = result(&a).eval().tokens_per_s;
    go(&mut a, &[Command::Right, Command::Right]);
    assert_eq!(result(&a).workload.batch, 4.0);
    assert!(result(&a).eval().tokens_per_s > t1);
    go(&mut a, &[Command::Decrease]);
    assert_eq!(result(&a).workload.batch, 2.0);
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Phase);
    go(&mut a, &[Command::Right]);
    assert_eq!(result(&a).eval().phase, Phase::Prefill);
    assert_eq!(
        result(&a).other_phase.as_ref().unwrap().phase,
        Phase::Decode
    );
    focus_knob(&mut a, ridgeline::tui::knobs::Knob::Weights);
    go(&mut a, &[Command::Right]);
    assert_eq!(
        result(&a).workload.weights,
        ridgeline::solver::Precision::Bf16.next()
    );
    // -/+ step the selected knob from any pane.
    a.focus = Pane::Hardware;
    go(&mut a, &[Command::Increase]);
    assert_eq!(
        result(&a).workload.weights,
        ridgeline::solver::Precision::Bf16.next().next()
    );
}

#[test]
fn marking_devices_builds_the_comparison() {
    let mut a = app();
    go(
        &mut a,
        &[
            Command::Mark,
            Command::Up,
            Command::Mark,
            Command::Down,
            Command::Down,
            Command::Mark,
        ],
    );
    assert_eq!(a.marked.len(), 3);
    let r = result(&a);
    let ids: Vec<&str> = r
        .compare
        .iter()
        .map(|c| a.catalog.hardware[c.hw].hw.id.as_str())
        .collect();
    assert_eq!(ids, ["h200-sxm", "h100-sxm", "a100-sxm-80gb"]);
    let h100 = &r.compare[1];
    let s = h100.result.as_ref().unwrap();
    let price = a.catalog.hardware[h100.hw].hw.price_per_hour_usd;
    match price {
        Some(p) => {
            let want = p / (s.base.tokens_per_s * 3600.0) * 1e6;
            assert!((h100.cost_per_mtok().unwrap() - want).abs() < 1e-9 * want);
        }
        None => assert!(h100.cost_per_mtok().is_none()),
    }
    // Space again unmarks; x clears.
    go(&mut a, &[Command::Mark]);
    assert_eq!(a.marked.len(), 2);
    go(&mut a, &[Command::ClearMarks]);
    assert!(a.marked.is_empty());
    assert_eq!(result(&a).compare.len(), 1);
}

#[test]
fn arrow_keys_alone_reach_every_pane_and_the_bar() {
    let mut a = app();
    let mut seen = vec![a.focus];
    for _ in 0..5 {
        // Right moves to the next pane except in the knobs, where it steps:
        // there, Up to the bar, then Right.
        if a.focus == Pane::Knobs {
            // Up until the bar (one more Up would reach the views).
            for _ in 0..20 {
                if a.in_bar {
                    break;
                }
                go(&mut a, &[Command::Up]);
            }
            assert!(a.in_bar && !a.bar_view);
        }
        go(&mut a, &[Command::Right]);
        go(&mut a, &[Command::Down]);
        assert!(!a.in_bar);
        seen.push(a.focus);
    }
    assert_eq!(seen, Pane::ALL.to_vec());
    // Left from the first pane wraps to the last.
    a.focus = Pane::Hardware;
    go(&mut a, &[Command::Left]);
    assert_eq!(a.focus, Pane::Compare);
}

#[test]
fn quit_help_and_theme() {
    let mut a = app();
    go(&mut a, &[Command::Help]);
    assert_eq!(a.mode, Mode::Help);
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    let first = a.theme().name.clone();
    go(&mut a, &[Command::NextTheme]);
    assert_ne!(a.theme().name, first);
    go(&mut a, &[Command::Quit]);
    assert!(a.quit);
}

#[test]
fn keys_become_actions_by_mode() {
    let mut a = app();
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(action_for(&a, &key('q')), Some(Action::Do(Command::Quit)));
    assert_eq!(action_for(&a, &ctrl_c), Some(Action::Do(Command::Quit)));
    assert_eq!(action_for(&a, &key('/')), Some(Action::Do(Command::Filter)));
    update(&mut a, Action::Do(Command::Filter));
    assert!(matches!(action_for(&a, &key('q')), Some(Action::Input(_))));
    assert_eq!(action_for(&a, &ctrl_c), Some(Action::Do(Command::Quit)));
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(action_for(&a, &esc), Some(Action::Do(Command::Cancel)));
}

#[test]
fn start_up_problems_reach_the_status_line() {
    let mut catalog = Catalog::builtin();
    catalog.add_hardware_file("mine/bad.toml", "[[device]]\nid = 3\n");
    catalog.add_hardware_file("mine/worse.toml", "this is not toml");
    let (keymap, problems) = Keymap::from_config("config.toml", "[keys]\nmark = \"t\"\n");
    let themes = ThemeSet::load(
        ridgeline::catalog::builtin_themes(),
        &[("mine/themes/x.toml".to_string(), "name = 1".to_string())],
    );
    let a = App::new(
        catalog,
        Settings {
            theme: Some("nope".into()),
            themes,
            keymap,
            notices: problems,
            ..Settings::default()
        },
    );
    let all = a.notices.join("\n");
    // bad.toml: the id is not a string, and the other fields are missing
    // (one problem each); worse.toml is not TOML.
    assert!(
        all.contains("3 catalog problems: run `ridgeline catalog check`"),
        "{all}"
    );
    assert!(all.contains("theme mine/themes/x.toml"), "{all}");
    assert!(all.contains("key conflict: t"), "{all}");
    assert!(all.contains("no theme \"nope\""), "{all}");
    assert_eq!(a.theme().name, "dark", "fallback");
}

#[test]
fn no_color_selects_mono_and_a_named_theme_wins() {
    let a = App::new(
        Catalog::builtin(),
        Settings {
            no_color: true,
            ..Settings::default()
        },
    );
    assert_eq!(a.theme().name, "mono");
    let b = App::new(
        Catalog::builtin(),
        Settings {
            no_color: true,
            theme: Some("high-contrast".into()),
            ..Settings::default()
        },
    );
    assert_eq!(b.theme().name, "high-contrast");
}

#[test]
fn cost_per_million_tokens_is_price_over_tokens_per_hour() {
    let a = app();
    let ev = result(&a).eval().clone();
    // 2 $/h at 1000 tokens/s: 2 / 3.6e6 * 1e6 = 0.556 $/M tokens.
    let ev = ridgeline::solver::Evaluation {
        tokens_per_s: 1000.0,
        ..ev
    };
    let c = app::cost_per_million_tokens(Some(2.0), &ev).unwrap();
    assert!((c - 2.0 / 3.6).abs() < 1e-12);
    assert_eq!(app::cost_per_million_tokens(None, &ev), None);
}

#[test]
fn only_changes_ask_for_a_redraw() {
    let mut a = app();
    a.dirty = false;
    update(&mut a, Action::Resize);
    assert!(a.dirty, "a resize redraws");
    let before = result(&a).clone();
    assert_eq!(result(&a), &before, "a resize recomputes nothing new");
    a.dirty = false;
    // An unbound key makes no action, so the loop neither updates nor draws.
    let f12 = KeyEvent::new(KeyCode::F(12), KeyModifiers::NONE);
    assert_eq!(action_for(&a, &f12), None);
    assert!(!a.dirty);
}
