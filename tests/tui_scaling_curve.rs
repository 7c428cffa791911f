//! The Training view's scaling curve off the keystroke's path: kept while
//! only what its searches choose changes (the same curve as one computed
//! afresh), computed again when its inputs change, and with a worker
//! attached, the curve before drawn as UPDATING until the new one lands.

use ridgeline::solver::training::scale::Scaling;
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::update::settle;
use ridgeline::tui::views::ViewData;
use ridgeline::tui::views::training::{self, Curve};
use ridgeline::tui::{App, Command};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod common;
use common::{app, go, screen, select_knob};

/// Long enough for twelve layout searches in a debug build.
const LANDS: Duration = Duration::from_secs(120);

fn curve(a: &App) -> Curve {
    match a.view_data.as_ref().expect("training figures") {
        ViewData::Training(d) => d.scaling.clone().expect("the plot is shown"),
        other => panic!("not the training view: {other:?}"),
    }
}

fn drawn(c: &Curve) -> Scaling {
    c.result
        .as_deref()
        .expect("a curve drawn")
        .clone()
        .expect("a curve for these inputs")
}

/// The curve of the app's inputs, computed here and now.
fn afresh(a: &App) -> Scaling {
    training::scaling(
        &a.catalog.hardware[a.hw].hw,
        &a.catalog.models[a.model].model,
        &a.view_inputs.train,
        a.workload.weights,
        &a.assumptions,
    )
    .expect("a curve")
}

/// The Training view with its scaling plot (Llama 3.1 8B on H100s).
fn plotted() -> App {
    let mut a = app();
    go(&mut a, &[Command::View7, Command::ScalingPlot]);
    a
}

#[test]
fn the_curve_is_kept_while_only_what_its_searches_choose_changes() {
    let mut a = plotted();
    assert_eq!(a.train_curve.computed, 1);
    // Each of these changes the step the view shows, not the curve: the
    // searches choose the layout, ZeRO, recomputation and micro-batch at
    // each count themselves, the counts are the plot's own (8 to 16384),
    // and the tokens and region only change the run's length and carbon.
    for (k, step) in [
        (Knob::Devices, Command::Right),
        (Knob::Dp, Command::Right),
        (Knob::TrainTp, Command::Right),
        (Knob::TrainPp, Command::Right),
        (Knob::Zero, Command::Left),
        (Knob::Recompute, Command::Right),
        (Knob::MicroBatch, Command::Right),
        (Knob::Tokens, Command::Right),
        (Knob::Region, Command::Right),
    ] {
        let before = a.view_inputs.train;
        let region = a.view_inputs.region.clone();
        select_knob(&mut a, k);
        go(&mut a, &[step]);
        assert!(
            a.view_inputs.train != before || a.view_inputs.region != region,
            "{k:?} stepped"
        );
        assert_eq!(a.train_curve.computed, 1, "{k:?} kept the curve");
        assert!(!curve(&a).updating);
    }
    // The curve kept is exactly the one these inputs give afresh.
    assert_eq!(drawn(&curve(&a)), afresh(&a));
}

#[test]
fn a_change_of_the_global_batch_computes_the_curve_again() {
    let mut a = plotted();
    let before = drawn(&curve(&a));
    select_knob(&mut a, Knob::GlobalBatch);
    go(&mut a, &[Command::Right]);
    // 4M -> 8M tokens a step: a new curve, the one of the new inputs.
    assert_eq!(a.view_inputs.train.global_batch, 8.0 * 1024.0 * 1024.0);
    assert_eq!(a.train_curve.computed, 2);
    let now = drawn(&curve(&a));
    assert_ne!(now, before);
    assert_eq!(now, afresh(&a));
    let s = screen(&a, 160, 48);
    assert!(s.contains("8M tokens a step"), "{s}");
    assert!(!s.contains("UPDATING"), "{s}");
    // The command line gives the same curve at that batch.
    common::assert_curve_is_the_clis(&now, Some("8M"));
}

#[test]
fn with_a_worker_the_curve_before_is_drawn_as_updating_until_the_new_one_lands() {
    let mut a = app();
    let wakes = Arc::new(AtomicUsize::new(0));
    let w = Arc::clone(&wakes);
    a.train_curve
        .attach(move || {
            w.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    go(&mut a, &[Command::View7, Command::ScalingPlot]);
    // The first curve: asked for, none to draw yet (nothing computed on
    // the keystroke's path).
    assert_eq!(a.train_curve.computed, 0);
    let c = curve(&a);
    assert!(c.updating && c.result.is_none());
    for look in [(80, 24), (100, 30), (160, 48)] {
        let s = screen(&a, look.0, look.1);
        assert!(s.contains("UPDATING: computing"), "{s}");
    }
    assert!(settle(&mut a, LANDS), "the first curve landed");
    let first = drawn(&curve(&a));
    assert!(!curve(&a).updating);
    assert_eq!(first, afresh(&a));
    // The loop is woken just after the curve is handed over.
    let start = std::time::Instant::now();
    while wakes.load(Ordering::SeqCst) == 0 && start.elapsed() < LANDS {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(wakes.load(Ordering::SeqCst), 1, "the loop was woken");

    // Two steps of the global batch in a burst (4M -> 8M -> 16M): the
    // keystrokes do not wait; the curve drawn meanwhile is the 4M one,
    // marked, with its own batch in the head.
    select_knob(&mut a, Knob::GlobalBatch);
    go(&mut a, &[Command::Right, Command::Right]);
    assert_eq!(a.view_inputs.train.global_batch, 16.0 * 1024.0 * 1024.0);
    let c = curve(&a);
    assert!(c.updating);
    assert_eq!(drawn(&c), first);
    let s = screen(&a, 160, 48);
    assert!(
        s.contains(
            "UPDATING (the curve of the inputs before): tokens/s against devices, 4M tokens a step"
        ),
        "{s}"
    );
    // Only the 16M curve is adopted (an 8M one that lands first is
    // dropped), and it is the one computed inline.
    assert!(settle(&mut a, LANDS), "the newest curve landed");
    let c = curve(&a);
    assert!(!c.updating);
    assert_eq!(drawn(&c), afresh(&a));
    let s = screen(&a, 160, 48);
    assert!(
        s.contains("16M tokens a step") && !s.contains("UPDATING"),
        "{s}"
    );
    assert_eq!(a.train_curve.computed, 0, "nothing computed inline");
}

#[test]
fn the_loops_land_takes_a_curve_and_marks_the_frame_to_draw() {
    let mut a = app();
    a.train_curve.attach(|| {}).unwrap();
    go(&mut a, &[Command::View7, Command::ScalingPlot]);
    a.dirty = false;
    // Poll as the event loop does when woken, until the curve lands.
    let start = std::time::Instant::now();
    while curve(&a).updating {
        assert!(start.elapsed() < LANDS, "the curve landed");
        std::thread::sleep(Duration::from_millis(5));
        ridgeline::tui::update::land(&mut a);
    }
    assert!(a.dirty, "the frame is drawn again");
    assert_eq!(drawn(&curve(&a)), afresh(&a));
    // Nothing more to take: nothing to draw.
    a.dirty = false;
    ridgeline::tui::update::land(&mut a);
    assert!(!a.dirty);
}

#[test]
fn a_key_asked_again_before_its_curve_lands_gets_that_curve() {
    let mut a = plotted();
    let four = drawn(&curve(&a));
    a.train_curve.attach(|| {}).unwrap();
    select_knob(&mut a, Knob::GlobalBatch);
    // 4M -> 8M -> 4M: back on the curve kept, nothing to wait for.
    go(&mut a, &[Command::Right, Command::Left]);
    let c = curve(&a);
    assert!(!c.updating);
    assert_eq!(drawn(&c), four);
    // -> 8M again: its curve lands (whether the first request's result
    // or a second one's), the same as computed afresh.
    go(&mut a, &[Command::Right]);
    assert!(settle(&mut a, LANDS));
    let eight = drawn(&curve(&a));
    assert_eq!(eight, afresh(&a));
    assert_ne!(eight, four);
    // -> 4M: no longer the curve kept, so asked for and landed again.
    go(&mut a, &[Command::Left]);
    assert!(curve(&a).updating);
    assert!(settle(&mut a, LANDS));
    assert_eq!(drawn(&curve(&a)), four);
    assert_eq!(
        a.train_curve.computed, 1,
        "only the first, before the worker"
    );
}
