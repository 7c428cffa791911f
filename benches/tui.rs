//! Keystroke to frame: `update` (which recomputes every figure from the
//! solver) plus a render of the whole screen to a 160x48 TestBackend.
//! Target: median at most 1 ms; the Synthesis and Fleet keystrokes (a
//! whole ranking or fleet search each) well under 2 ms. Figures are in the
//! README.

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui_textarea::{Input, Key};
use ridgeline::catalog::Catalog;
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::update::settle;
use ridgeline::tui::{Action, App, Command, Pane, Settings, render, update};
use std::hint::black_box;
use std::time::Duration;

fn app() -> App {
    App::new(Catalog::builtin(), Settings::default())
}

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(160, 48)).unwrap()
}

/// Step the focused knob right and left in turn, each step recomputed and
/// drawn at 160x48.
fn knob_steps(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut a: App,
) {
    let mut term = terminal();
    let mut up = true;
    g.bench_function(name, |b| {
        b.iter(|| {
            let cmd = if up { Command::Right } else { Command::Left };
            up = !up;
            update(&mut a, Action::Do(cmd));
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });
}

/// The Training view with its scaling plot shown, the knobs focused on `k`.
fn plotted_on(k: Knob) -> App {
    let mut a = app();
    update(&mut a, Action::Do(Command::View7));
    update(&mut a, Action::Do(Command::ScalingPlot));
    a.focus = Pane::Knobs;
    a.knob = a.knobs().iter().position(|x| *x == k).unwrap();
    a
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("keystroke to frame (160x48)");
    g.measurement_time(Duration::from_secs(5));

    // Move through the hardware list: A100 <-> H100.
    let mut a = app();
    let mut term = terminal();
    let mut up = true;
    g.bench_function("hardware up/down", |b| {
        b.iter(|| {
            let cmd = if up { Command::Up } else { Command::Down };
            up = !up;
            update(&mut a, Action::Do(cmd));
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // Step the batch with three devices marked: three sensitivities.
    let mut a = app();
    for _ in 0..2 {
        update(&mut a, Action::Do(Command::Mark));
        update(&mut a, Action::Do(Command::Down));
    }
    update(&mut a, Action::Do(Command::Mark));
    a.focus = Pane::Knobs;
    a.knob = 1;
    knob_steps(&mut g, "batch step, 3 devices compared", a);

    // Generations: Llama 3.1 70B across the eight NVIDIA data-centre
    // devices (five do not fit: each is judged again at the count that
    // holds it), stepping the batch.
    let mut a = app();
    a.model = a
        .catalog
        .models
        .iter()
        .position(|e| e.model.id == "llama-3.1-70b")
        .unwrap();
    update(&mut a, Action::Do(Command::View5));
    a.focus = Pane::Knobs;
    a.knob = 2;
    knob_steps(
        &mut g,
        "generations batch step, 8 devices (5 do not fit)",
        a,
    );

    // Type into the model filter (one key, then take it back).
    let mut a = app();
    a.focus = Pane::Models;
    update(&mut a, Action::Do(Command::Filter));
    let mut term = terminal();
    let mut typing = true;
    g.bench_function("filter keystroke", |b| {
        b.iter(|| {
            let key = if typing {
                Key::Char('7')
            } else {
                Key::Backspace
            };
            typing = !typing;
            update(
                &mut a,
                Action::Input(Input {
                    key,
                    ..Input::default()
                }),
            );
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // Synthesis view: a keystroke in the target entry re-ranks the whole
    // catalog ("50ms itl" <-> "50ms it" is invalid, so type a digit in
    // the number instead: "50ms itl" <-> "500ms itl").
    let mut a = app();
    update(&mut a, Action::Do(Command::View3));
    update(&mut a, Action::Do(Command::Edit));
    update(
        &mut a,
        Action::Input(Input {
            key: Key::Home,
            ..Input::default()
        }),
    );
    update(
        &mut a,
        Action::Input(Input {
            key: Key::Right,
            ..Input::default()
        }),
    );
    let mut term = terminal();
    let mut typing = true;
    g.bench_function("synthesis target keystroke (rank the catalog)", |b| {
        b.iter(|| {
            let key = if typing {
                Key::Char('0')
            } else {
                Key::Backspace
            };
            typing = !typing;
            update(
                &mut a,
                Action::Input(Input {
                    key,
                    ..Input::default()
                }),
            );
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // Fleet view: step requests/s up and down, a whole fleet search each.
    let mut a = app();
    update(&mut a, Action::Do(Command::View6));
    a.focus = Pane::Knobs;
    a.knob = 0;
    knob_steps(&mut g, "fleet knob step (size the fleet)", a);

    // The capstone's Fleet view over its budget: each step of requests/s
    // also finds what would fit the budget (fleet::within_budget, tens of
    // searches).
    let mut a = app();
    a.open_scenario(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/scenarios/capstone-fleet.toml"
    )))
    .unwrap();
    a.focus = Pane::Knobs;
    a.knob = 0;
    knob_steps(
        &mut g,
        "fleet knob step over budget (capstone, what would fit)",
        a,
    );

    // Training view: step ZeRO down and up (3 -> 2 -> 3), each a training
    // step, its elasticities and the run, drawn at 160x48.
    let mut a = app();
    update(&mut a, Action::Do(Command::View7));
    a.focus = Pane::Knobs;
    a.knob = a
        .knobs()
        .iter()
        .position(|k| *k == ridgeline::tui::knobs::Knob::Zero)
        .unwrap();
    let mut term = terminal();
    let mut down = true;
    g.bench_function("training knob step (step, elasticities, run)", |b| {
        b.iter(|| {
            let cmd = if down { Command::Left } else { Command::Right };
            down = !down;
            update(&mut a, Action::Do(cmd));
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // The same with the scaling plot shown. The curve (12 device counts,
    // each with its layout search) is kept with its inputs' key, and ZeRO
    // is one of what its searches choose: no search on this keystroke.
    update(&mut a, Action::Do(Command::ScalingPlot));
    knob_steps(
        &mut g,
        "training scaling plot: ZeRO step (the curve kept)",
        a,
    );

    // The worst knob: the global batch (4M <-> 8M tokens a step) changes
    // the curve. Without a worker (as in tests) its 12 searches run on
    // the keystroke's path.
    knob_steps(
        &mut g,
        "training scaling plot: global batch step, 12 searches inline",
        plotted_on(Knob::GlobalBatch),
    );

    // With the worker the terminal's loop attaches: the keystroke draws
    // the curve before (UPDATING) while the worker runs the 12 searches
    // beside it, sharing the cores.
    let mut a = plotted_on(Knob::GlobalBatch);
    a.train_curve.attach(|| {}).unwrap();
    knob_steps(
        &mut g,
        "training scaling plot: global batch step on the worker, to frame",
        a,
    );

    // ... and from the keystroke to the frame with the new curve: the
    // step, the 12 searches on the worker, that frame.
    let mut a = plotted_on(Knob::GlobalBatch);
    a.train_curve.attach(|| {}).unwrap();
    let mut term = terminal();
    let mut up = true;
    g.bench_function(
        "training scaling plot: global batch step on the worker, to the new curve",
        |b| {
            b.iter(|| {
                let cmd = if up { Command::Right } else { Command::Left };
                up = !up;
                update(&mut a, Action::Do(cmd));
                assert!(settle(&mut a, Duration::from_secs(10)));
                term.draw(|f| render(black_box(&a), f)).unwrap();
            })
        },
    );
    drop(a);

    // The Operators view: Down and Up through its table (recompute and a
    // whole frame with the plot of every operator).
    let mut a = app();
    update(&mut a, Action::Do(Command::View8));
    let mut term = terminal();
    let mut down = true;
    g.bench_function("operators view: down/up (the selected point moves)", |b| {
        b.iter(|| {
            let cmd = if down { Command::Down } else { Command::Up };
            down = !down;
            update(&mut a, Action::Do(cmd));
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // The Explore view: Down and Up along the front (no new search; the
    // whole frame with every configuration on the scatter).
    let mut a = app();
    update(&mut a, Action::Do(Command::View9));
    let mut term = terminal();
    let mut down = true;
    g.bench_function("explore view keystroke: down/up along the front", |b| {
        b.iter(|| {
            let cmd = if down { Command::Down } else { Command::Up };
            down = !down;
            update(&mut a, Action::Do(cmd));
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // The Explore view: a knob that searches again, over every device of
    // the catalog at four precisions, TP 1..16 and batch 1..1024: stepping
    // TP up to between 8 and 16 alternates 4 and 5 degrees, so each
    // keystroke searches (devices x 4 x 4..5 x 11) configurations, 9460
    // at TP 16 with the 43 built-in devices: the 10^4 of issue 12.
    let mut a = app();
    update(&mut a, Action::Do(Command::View9));
    {
        use ridgeline::scenario::{ExploreHardware, parse_precisions};
        let e = &mut a.view_inputs.explore;
        e.hardware = ExploreHardware::All;
        e.precisions = parse_precisions("bf16,fp8,int4,fp4").unwrap();
        e.batch = 1024;
    }
    a.focus = Pane::Knobs;
    a.knob = 4;
    a.recompute();
    knob_steps(
        &mut g,
        "explore view keystroke: TP up to 8 <-> 16 (~10^4 configurations searched)",
        a,
    );

    // A device form: a keystroke in the bandwidth of a copy of the H100
    // ("3.35 TB/s" <-> "3.355 TB/s"): the field is read, the catalog is
    // put back with the draft in it, and every figure is recomputed.
    let mut a = app();
    update(&mut a, Action::Do(Command::EditCopy));
    for _ in 0..10 {
        update(&mut a, Action::Do(Command::Down));
    }
    for key in [Key::Home, Key::Right, Key::Right, Key::Right, Key::Right] {
        update(
            &mut a,
            Action::Input(Input {
                key,
                ..Input::default()
            }),
        );
    }
    let mut term = terminal();
    let mut typing = true;
    g.bench_function("device form keystroke (the draft evaluated)", |b| {
        b.iter(|| {
            let key = if typing {
                Key::Char('5')
            } else {
                Key::Backspace
            };
            typing = !typing;
            update(
                &mut a,
                Action::Input(Input {
                    key,
                    ..Input::default()
                }),
            );
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });

    // The parts: recompute alone, render alone.
    let mut a = app();
    g.bench_function("recompute only", |b| {
        b.iter(|| black_box(&mut a).recompute())
    });
    for (name, view) in [
        ("recompute only, synthesis view", Command::View3),
        ("recompute only, fleet view", Command::View6),
        ("recompute only, training view", Command::View7),
        ("recompute only, operators view", Command::View8),
        (
            "recompute only, explore view (the search reused)",
            Command::View9,
        ),
    ] {
        let mut a = app();
        update(&mut a, Action::Do(view));
        g.bench_function(name, |b| b.iter(|| black_box(&mut a).recompute()));
    }
    let a = app();
    let mut term = terminal();
    g.bench_function("render only", |b| {
        b.iter(|| {
            term.draw(|f| render(black_box(&a), f)).unwrap();
        })
    });
    g.finish();
}

criterion_group!(tui, benches);
criterion_main!(tui);
