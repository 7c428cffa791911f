//! Words a tutorial audience understands, on the screen: a CNN or an encoder
//! reads samples/s (images/s for vision) and "forward", its decode-only knobs
//! read n/a; the overhead binds tiny models on big devices; the precision
//! step is a row of the sensitivity table; one precision knob sets all three;
//! the glossary behind `?` scrolls at 80x24.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ridgeline::solver::{Phase, Precision};
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::panes::help::{GLOSSARY, READING_SENSITIVITY};
use ridgeline::tui::{App, Command, Mode, Pane};
use std::path::Path;

mod common;
use common::{app, go, typed};

fn screen(a: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ridgeline::tui::render(a, f)).unwrap();
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..h {
        for x in 0..w {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// The app with `model` picked through the model filter, as a user would.
fn with_model(model: &str) -> App {
    let mut a = app();
    go(&mut a, &[Command::NextPane, Command::Filter]);
    typed(&mut a, model);
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.catalog.models[a.model].model.id, model);
    a
}

fn hw(a: &mut App, id: &str) {
    a.hw = a
        .catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == id)
        .unwrap();
    a.recompute();
}

fn select_knob(a: &mut App, k: Knob) {
    a.focus = Pane::Knobs;
    a.knob = a.knobs().iter().position(|x| *x == k).unwrap();
}

#[test]
fn single_pass_models_read_their_own_rate_and_forward_on_every_view() {
    for (model, rate) in [
        ("resnet-50", "images/s"),
        ("vit-b-16", "images/s"),
        ("bert-base", "samples/s"),
        ("ds-cnn-kws", "samples/s"),
    ] {
        let mut a = with_model(model);
        // Two devices marked, so the Compare table shows its header too.
        for id in ["a100-sxm-80gb", "h200-sxm"] {
            hw(&mut a, id);
            go(&mut a, &[Command::Mark]);
        }
        hw(&mut a, "h100-sxm");
        for view in [Command::View1, Command::View4, Command::View5] {
            go(&mut a, &[view]);
            for (w, h) in [(80, 24), (100, 30), (160, 48)] {
                let s = screen(&a, w, h);
                assert!(s.contains(rate), "{model} {view:?} {w}x{h}: no {rate}\n{s}");
                for wrong in ["tok/s", "tokens/s", "decode", "prefill"] {
                    assert!(!s.contains(wrong), "{model} {view:?} {w}x{h}: {wrong}\n{s}");
                }
            }
        }
        go(&mut a, &[Command::View1]);
        let s = screen(&a, 160, 48);
        assert!(s.contains("● forward"), "the legend names the pass: {s}");
    }
    // A decoder keeps its tokens and its phases.
    let a = app();
    let s = screen(&a, 160, 48);
    assert!(s.contains("tok/s") && s.contains("● decode"), "{s}");
}

#[test]
fn decode_only_knobs_read_not_applicable_and_do_not_move_for_a_cnn() {
    let mut a = with_model("resnet-50");
    let s = screen(&a, 160, 48);
    for k in [Knob::Phase, Knob::Context, Knob::Kv] {
        let row = s
            .lines()
            .find(|l| l.contains(&format!("│ {:<12}", k.label())))
            .unwrap_or_else(|| panic!("{k:?} row\n{s}"));
        assert!(row.contains("n/a"), "{row}");
    }
    let before = a.workload;
    for k in [Knob::Phase, Knob::Context, Knob::Kv] {
        select_knob(&mut a, k);
        go(&mut a, &[Command::Right, Command::Left, Command::Right]);
        assert_eq!(a.workload, before, "{k:?} stepped");
        let msg = a.message.as_ref().map(|m| m.1.clone()).unwrap_or_default();
        assert!(msg.contains("does not apply"), "{msg}");
        go(&mut a, &[Command::Edit]);
        assert_eq!(a.mode, Mode::Normal, "{k:?}: no entry opens");
    }
    // The batch still applies; and a decoder's phase steps.
    select_knob(&mut a, Knob::Batch);
    go(&mut a, &[Command::Right]);
    assert_eq!(a.workload.batch, 2.0);
    let mut llm = app();
    select_knob(&mut llm, Knob::Phase);
    go(&mut llm, &[Command::Right]);
    assert_eq!(llm.workload.phase, Phase::Prefill);
}

#[test]
fn a_keyword_spotter_on_an_h100_is_overhead_bound_on_screen() {
    // DS-CNN in int8 on an H100: 10 us of fixed overhead in a 10.1 us step
    // (compute 3.8 ns, memory 72 ns).
    let mut a = app();
    a.open_scenario(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios/tiny-to-h100.toml"),
    )
    .unwrap();
    hw(&mut a, "h100-sxm");
    go(&mut a, &[Command::View1]);
    let s = screen(&a, 160, 48);
    assert!(s.contains("overhead-bound"), "{s}");
    assert!(s.contains("binding: overhead"), "{s}");
    assert!(s.contains("▶overhead"), "the overhead row is lit: {s}");
    assert!(!s.contains("binding: memory"), "{s}");
    // The Generations table says it too, not "mem BW".
    go(&mut a, &[Command::View5]);
    let s = screen(&a, 160, 48);
    let row = s
        .lines()
        .find(|l| l.contains("h100-sxm") && l.contains("us"))
        .unwrap();
    assert!(row.contains("overhead") && !row.contains("mem BW"), "{row}");
}

#[test]
fn the_precision_step_is_a_row_of_the_sensitivity_table() {
    // Llama 3.1 8B bf16 decode: weights and KV one format narrower, fp8.
    let mut a = app();
    let p = result_step(&a);
    let s = screen(&a, 160, 48);
    let row = s
        .lines()
        .find(|l| l.contains("weights+KV → fp8"))
        .unwrap_or_else(|| panic!("no precision row\n{s}"));
    assert!(row.contains("step"), "labelled a discrete step: {row}");
    let pct = format!("{}%", ridgeline::solver::units::format_number(p * 100.0));
    assert!(row.contains(&pct), "{row} has {pct}");
    // A CNN stores no KV cache: the row names the weights alone.
    a = with_model("resnet-50");
    let s = screen(&a, 160, 48);
    assert!(s.contains("weights → fp8"), "{s}");
    // In ASCII at 80x24, on the Sensitivity pane.
    let mut a = app();
    a.ascii = true;
    a.focus = Pane::Sensitivity;
    let s = screen(&a, 80, 24);
    assert!(s.contains("weights+KV > fp8") && s.contains("step"), "{s}");
}

fn result_step(a: &App) -> f64 {
    let an = a.current.as_ref().unwrap();
    an.sens.precision_step.unwrap().latency_change
}

#[test]
fn one_precision_knob_sets_all_three_and_scenarios_set_it() {
    let mut a = app();
    select_knob(&mut a, Knob::Precision);
    go(&mut a, &[Command::Edit]);
    for _ in 0..8 {
        common::key(&mut a, ratatui_textarea::Key::Backspace);
    }
    typed(&mut a, "fp8");
    go(&mut a, &[Command::Edit]);
    let w = a.workload;
    assert_eq!(
        (w.weights, w.activations, w.kv),
        (Precision::Fp8, Precision::Fp8, Precision::Fp8)
    );
    select_knob(&mut a, Knob::Kv);
    go(&mut a, &[Command::Right]);
    assert_eq!(Knob::Precision.value(&a.inputs()), "mixed");
    let s = screen(&a, 160, 48);
    let row = s.lines().find(|l| l.contains("│ precision")).unwrap();
    assert!(row.contains("mixed"), "{row}");
    // A scenario's `precision` key sets all three.
    let mut b = app();
    b.open_scenario(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios/tiny-to-h100.toml"),
    )
    .unwrap();
    assert_eq!(Knob::Precision.value(&b.inputs()), "int8");
}

#[test]
fn the_glossary_behind_help_scrolls_to_its_end_at_80x24() {
    let mut a = app();
    go(&mut a, &[Command::Help]);
    let mut seen = String::new();
    let mut last = String::new();
    for _ in 0..200 {
        let s = screen(&a, 80, 24);
        seen.push_str(&s);
        if s == last {
            break;
        }
        last = s;
        go(&mut a, &[Command::Down]);
    }
    let flat: String = seen.split_whitespace().collect::<Vec<_>>().join(" ");
    for (term, _) in GLOSSARY {
        assert!(flat.contains(&format!("{term}:")), "{term}");
    }
    let end: Vec<&str> = READING_SENSITIVITY
        .last()
        .unwrap()
        .split_whitespace()
        .collect();
    let tail = end[end.len() - 2..].join(" ");
    assert!(
        last.contains(&tail),
        "scrolled to the last line ({tail}):\n{last}"
    );
    // Back to the top in one key.
    go(&mut a, &[Command::Top]);
    assert_eq!(a.help_scroll, 0);
    assert!(screen(&a, 80, 24).contains("1 Roofline 2 Serving"));
}
