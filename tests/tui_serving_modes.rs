//! The Serving view under continuous batching (issue 12, section 3): the
//! knobs, the figures (the solver's), the label that says which model is
//! in use, no figures for a replica that does not fit, the scenario keys
//! and snapshots at 80x24 and 160x48 in mono and ASCII.

use ridgeline::scenario::{Scenario, ServeModes};
use ridgeline::solver::batching;
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::views::ViewData;
use ridgeline::tui::{App, Command};
use std::path::Path;

mod common;
use common::{app, go, looking, screen, select_knob, typed};

fn opened(look: &str) -> App {
    let mut a = looking(look);
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios/continuous-batching-70b.toml");
    a.open_scenario(&path).unwrap();
    a
}

fn continuous(a: &App) -> Option<batching::Continuous> {
    match a.view_data.as_ref() {
        Ok(ViewData::Serving(s)) => s.continuous.as_ref().map(|k| k.c.clone()),
        _ => panic!("not the Serving view"),
    }
}

#[test]
fn the_knobs_switch_to_continuous_batching_and_the_figures_are_the_solvers() {
    let mut a = app();
    go(&mut a, &[Command::View2]);
    assert_eq!(continuous(&a), None);
    let static_screen = screen(&a, 100, 30);
    assert!(!static_screen.contains("CONTINUOUS"));
    select_knob(&mut a, Knob::Batching);
    go(&mut a, &[Command::Right]);
    assert!(a.view_inputs.serve.continuous);
    // Prefix hit typed as a percentage.
    select_knob(&mut a, Knob::PrefixHit);
    go(&mut a, &[Command::Edit]);
    typed(&mut a, "50%");
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.view_inputs.serve.prefix_hit, 0.5);
    // The draft steps to a smaller decoder of the model's family.
    select_knob(&mut a, Knob::Draft);
    go(&mut a, &[Command::Right]);
    let draft = a.view_inputs.serve.draft.clone().expect("a draft");
    let target = &a.catalog.models[a.model];
    let d = a.catalog.model(&draft).unwrap();
    assert!(d.model.params < target.model.params);
    assert_eq!(d.family, target.family);
    // The figures are the solver's for the same inputs.
    let b = a.view_inputs.serve.batching(Some(&d.model));
    let want = batching::continuous(
        &a.catalog.hardware[a.hw].hw,
        &target.model,
        &a.workload,
        &a.view_inputs.request,
        &b,
        &a.assumptions,
    )
    .unwrap();
    assert_eq!(continuous(&a), Some(want));
    let s = screen(&a, 100, 30);
    for label in ["CONTINUOUS batching", "waiting for room", "room in use"] {
        assert!(s.contains(label), "{label}:\n{s}");
    }
}

#[test]
fn a_replica_that_does_not_fit_shows_no_figures() {
    let mut a = opened("colour");
    // One device for 70B in bf16 (141 GB of weights on an 80 GB H100).
    a.workload.tp = 1;
    a.recompute();
    let c = continuous(&a).expect("continuous figures");
    assert!(!c.fits);
    let s = screen(&a, 100, 30);
    assert!(s.contains("DOES NOT FIT"), "{s}");
    assert!(!s.contains("time to first token"), "{s}");
    assert!(!s.contains("TTFT"), "{s}");
}

#[test]
fn a_budget_without_room_says_how_to_fix_it() {
    let mut a = opened("colour");
    select_knob(&mut a, Knob::TokenBudget);
    go(&mut a, &[Command::Edit]);
    typed(&mut a, "256");
    go(&mut a, &[Command::Edit]);
    // 64 sequences x 5 tokens (4 proposed + 1) = 320 > 256: no room. The
    // view keeps its last valid figures, marked so, and says why.
    let e = a.view_data.as_ref().unwrap_err();
    assert!(e.contains("raise the budget"), "{e}");
    let s = screen(&a, 100, 30);
    assert!(
        s.contains("LAST VALID") && s.contains("leaves no room"),
        "{s}"
    );
}

#[test]
fn the_scenario_keys_round_trip_exactly() {
    let a = opened("colour");
    let m = a.view_inputs.serve.clone();
    assert_eq!(
        m,
        ServeModes {
            continuous: true,
            token_budget: 2048.0,
            prefix_hit: 0.5,
            draft: Some("llama-3.2-1b".into()),
            proposed: 4,
            acceptance: 0.7,
        }
    );
    let text = a.to_scenario().to_toml();
    let back = Scenario::parse("saved.toml", &text).unwrap();
    assert_eq!(back.serve_modes().unwrap(), m);
    // Odd values too: a third, a budget that is not a power of two.
    let odd = ServeModes {
        continuous: false,
        token_budget: 3000.0,
        prefix_hit: 1.0 / 3.0,
        draft: None,
        proposed: 7,
        acceptance: 0.123456789,
    };
    let mut s = a.to_scenario();
    s.serving.set_modes(&odd);
    let back = Scenario::parse("saved.toml", &s.to_toml()).unwrap();
    assert_eq!(back.serve_modes().unwrap(), odd);
    // A bad value names its key.
    let bad = text.replace("prefix_hit = 0.5", "prefix_hit = 1.5");
    let e = Scenario::parse("bad.toml", &bad).unwrap_err().to_string();
    assert!(e.contains("prefix_hit"), "{e}");
}

#[test]
fn snapshots_of_continuous_batching_in_mono_and_ascii() {
    for look in ["mono", "ascii"] {
        let a = opened(look);
        for (w, h) in [(80, 24), (160, 48)] {
            let s = screen(&a, w, h);
            assert!(s.contains("CONTINUOUS batching"), "{look} {w}x{h}:\n{s}");
            if look == "ascii" {
                assert!(s.is_ascii(), "{w}x{h}:\n{s}");
            }
            insta::assert_snapshot!(format!("serving_continuous_{look}_{w}x{h}"), s);
        }
    }
}
