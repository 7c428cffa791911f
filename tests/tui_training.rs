//! The Training view driven by actions: its knobs step live, the layout
//! search runs on its key and Enter adopts a row, a search is dropped when
//! what it was run for changes, and no step time or run figure is shown
//! for a run that does not fit.

use ridgeline::solver::units;
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::views::training::SECTIONS;
use ridgeline::tui::views::{View, ViewData};
use ridgeline::tui::{App, Command, Mode, Pane};

mod common;
use common::{app, go, hw, model, screen, typed};

fn training(a: &App) -> &ridgeline::tui::views::training::TrainingData {
    match a.view_data.as_ref().expect("training figures") {
        ViewData::Training(d) => d,
        other => panic!("not the training view: {other:?}"),
    }
}

fn select_knob(a: &mut App, k: Knob) {
    a.focus = Pane::Knobs;
    a.in_bar = false;
    a.knob = a.knobs().iter().position(|x| *x == k).expect("knob");
}

#[test]
fn seven_opens_training_and_its_knobs_step_live() {
    let mut a = app();
    go(&mut a, &[Command::View7]);
    assert_eq!(a.view, View::Training);
    assert_eq!(a.focus, Pane::View);
    assert_eq!(a.knobs()[0], Knob::Devices);
    let before = training(&a).training.step.step_time_s;
    // Doubling the devices (dp 8 -> 16) halves the tokens per device: the
    // step, bound by compute, gets faster.
    select_knob(&mut a, Knob::Devices);
    go(&mut a, &[Command::Right]);
    let d = training(&a);
    assert_eq!(d.training.run.layout.dp, 16);
    assert!(d.training.step.step_time_s < before);
    // ZeRO 3 -> 2 -> 1: at 1 it no longer fits on 16 x 80 GB either.
    select_knob(&mut a, Knob::Zero);
    go(&mut a, &[Command::Left, Command::Left]);
    assert_eq!(training(&a).training.run.zero, 1);
    assert!(!training(&a).fits());
}

#[test]
fn typed_layouts_that_do_not_divide_the_devices_keep_the_last_valid_figures() {
    let mut a = app();
    go(&mut a, &[Command::View7]);
    select_knob(&mut a, Knob::TrainTp);
    go(&mut a, &[Command::Edit]);
    for _ in 0..5 {
        common::key(&mut a, ratatui_textarea::Key::Backspace);
    }
    typed(&mut a, "3");
    // 8 devices / tp 3 is no layout: the view says why and shows the last
    // figures that computed, marked.
    let e = a.view_data.as_ref().unwrap_err();
    assert!(e.contains("not a multiple"), "{e}");
    let s = screen(&a, 100, 30);
    assert!(s.contains("LAST VALID"), "{s}");
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    assert!(a.view_data.is_ok());
}

#[test]
fn r_ranks_the_layouts_and_enter_adopts_the_row_under_the_cursor() {
    let mut a = app();
    // Outside the Training view, r only says where the search is.
    go(&mut a, &[Command::SearchLayouts]);
    assert!(a.train_search.is_none());
    go(&mut a, &[Command::View7, Command::SearchLayouts]);
    let s = training(&a).search.clone().expect("a ranking");
    assert_eq!(a.view_scroll, SECTIONS, "the cursor on the fastest");
    assert_eq!(a.view_rows(), SECTIONS + s.ranked.len());
    // Down to the third row and adopt it.
    go(&mut a, &[Command::Down, Command::Down, Command::Edit]);
    let pick = s.ranked[2];
    let d = training(&a);
    assert_eq!(d.training.run.layout, pick.run.layout);
    assert_eq!(d.training.run.zero, pick.run.zero);
    assert_eq!(d.training.step.step_time_s, pick.step_time_s);
    assert_eq!(a.mode, Mode::Normal, "Enter adopted; no entry opened");
    // The ranking stays (the devices, batch and model are the same) and
    // marks the layout in use.
    assert!(training(&a).search.is_some());
    let screen = screen(&a, 160, 48);
    assert!(
        screen.contains("* dp") || screen.contains("> dp"),
        "{screen}"
    );
    // A new global batch is a new question: the old ranking goes.
    select_knob(&mut a, Knob::GlobalBatch);
    go(&mut a, &[Command::Right]);
    assert!(training(&a).search.is_none());
}

#[test]
fn up_and_down_walk_the_sections_then_the_rows_and_up_leaves_at_the_top() {
    let mut a = app();
    go(&mut a, &[Command::View7]);
    assert_eq!(a.view_rows(), SECTIONS + 1);
    go(&mut a, &[Command::Down, Command::Down]);
    assert_eq!(a.view_scroll, 2);
    // At 80x24 the pane scrolls to the run figures: its first line is in
    // sight, the run's configuration at the top of the pane is not.
    let s = screen(&a, 80, 24);
    assert!(s.contains("Run "), "{s}");
    assert!(!s.contains("Llama 3.1 8B on 8 x"), "{s}");
    assert!(screen(&a, 160, 48).contains("Llama 3.1 8B on 8 x"));
    go(&mut a, &[Command::Up, Command::Up, Command::Up]);
    assert!(a.in_bar);
}

/// Times on a line: a number followed by a time unit ("47.1 s").
fn has_time(line: &str) -> bool {
    let w: Vec<&str> = line.split_whitespace().collect();
    w.windows(2).any(|p| {
        ["ns", "us", "ms", "s", "min", "h", "days"].contains(&p[1]) && p[0].parse::<f64>().is_ok()
    })
}

#[test]
fn no_step_time_or_run_figure_is_shown_for_a_run_that_does_not_fit() {
    // The default (fits), ZeRO 1 (does not), and Llama 3.1 70B on eight
    // A100s (16 x 70.6B / 8 = 141 GB a device: does not).
    let mut states = Vec::new();
    let mut a = app();
    go(&mut a, &[Command::View7]);
    states.push(a);
    let mut a = app();
    go(&mut a, &[Command::View7]);
    a.view_inputs.train.zero = 1;
    a.recompute();
    states.push(a);
    let mut a = app();
    a.hw = hw(&a, "a100-sxm-80gb");
    a.model = model(&a, "llama-3.1-70b");
    go(&mut a, &[Command::View7]);
    states.push(a);
    let mut fitted = 0;
    for a in &states {
        let d = training(a);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let s = screen(a, w, h);
            let lines: Vec<&str> = s.lines().collect();
            // The headline (first status line) and the pane.
            let head = lines[h as usize - 3];
            let step = units::format_time(d.training.step.step_time_s);
            if d.fits() {
                assert!(has_time(head), "{head}");
                assert!(head.contains(&step), "{head}");
            } else {
                assert!(head.contains("DOES NOT FIT"), "{head}");
                assert!(!has_time(head), "{head}");
                assert!(!s.contains(&format!("Step {step}")), "{s}");
                assert!(!s.contains("device-hours"), "{s}");
                assert!(s.contains("to fit, change one of") || h < 30, "{s}");
            }
        }
        fitted += d.fits() as usize;
    }
    assert_eq!(fitted, 1);
}

#[test]
fn the_bars_tell_segments_apart_without_colour() {
    let mut a = App::new(
        ridgeline::catalog::Catalog::builtin(),
        ridgeline::tui::Settings {
            ascii: true,
            ..Default::default()
        },
    );
    go(&mut a, &[Command::View7]);
    let s = screen(&a, 160, 48);
    assert!(s.is_ascii());
    // Each legend entry is its own character in ASCII: compute #,
    // optimizer o, overhead + (no recompute at the default, none); weights
    // #, gradients %, optimizer state :, activations =, logits ~, ZeRO 3's
    // gathered layers @, free space .
    for needle in [
        "# compute",
        "o optimizer",
        "+ overhead",
        "# weights",
        "% gradients",
        ": optimizer",
        "= activations",
        "~ logits",
        "@ gathered layers",
        ". free",
    ] {
        assert!(s.contains(needle), "{needle}: {s}");
    }
}

/// Type `text` into knob `k` and take it with Enter.
fn set_knob(a: &mut App, k: Knob, text: &str) {
    select_knob(a, k);
    go(a, &[Command::Edit]);
    for _ in 0..20 {
        common::key(a, ratatui_textarea::Key::Backspace);
    }
    typed(a, text);
    go(a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal, "{k:?} {text} taken");
}

#[test]
fn a_shorter_mtbf_lowers_the_goodput_on_screen() {
    let mut a = app();
    go(&mut a, &[Command::View7]);
    let before = training(&a).run.goodput;
    // 500 h per device over the 8 devices of the run: the job fails every
    // 500 x 3600 / 8 = 225,000 s.
    set_knob(&mut a, Knob::Mtbf, "500h");
    let r = training(&a).run;
    assert_eq!(r.job_mtbf_s, 225_000.0);
    // Young-Daly: tau = sqrt(2 C M); waste = C / tau + (tau / 2 + R) / M
    // with the restart R = 10 min; goodput = 1 / (1 + waste).
    let (c, m) = (r.checkpoint_write_s, r.job_mtbf_s);
    let tau = (2.0 * c * m).sqrt();
    let goodput = 1.0 / (1.0 + c / tau + (tau / 2.0 + 600.0) / m);
    assert!(
        (r.goodput - goodput).abs() < 1e-12,
        "{} {goodput}",
        r.goodput
    );
    assert!(r.goodput < before, "{} !< {before}", r.goodput);
    let shown = |g: f64| format!("goodput {}", units::format_percent(g));
    let s = screen(&a, 160, 48);
    assert!(s.contains(&shown(r.goodput)), "{s}");
    assert!(!s.contains(&shown(before)), "{s}");
    assert!(s.contains("device MTBF") && s.contains("500 h"), "{s}");
}

#[test]
fn less_dp_overlap_exposes_the_dp_communication_on_screen() {
    let mut a = app();
    go(&mut a, &[Command::View7]);
    let dp = training(&a).training.step.comm.dp;
    // ZeRO 3 over dp 8 in one node, fully overlapped by default: the
    // collectives all hide, and what adds to the step is only the
    // slowdown of the compute beside them, time x 0.189 / 1.189.
    let sd = ridgeline::solver::training::TrainingAssumptions::default().overlap_slowdown;
    assert!(dp.time_s > 0.0, "{dp:?}");
    assert!((dp.exposed_s - dp.time_s * sd / (1.0 + sd)).abs() < 1e-9 * dp.time_s);
    assert_eq!(dp.exposed_s, dp.slowed_s);
    let step = training(&a).training.step.step_time_s;
    // Ten steps of ten points down: DP overlap 0 hides nothing, so all of
    // the DP time is exposed and adds to the step.
    select_knob(&mut a, Knob::DpOverlap);
    go(&mut a, &[Command::Left; 10]);
    let s = &training(&a).training.step;
    assert_eq!(s.comm.dp.exposed_s, s.comm.dp.time_s);
    assert_eq!(s.comm.dp.slowed_s, 0.0);
    assert!(s.step_time_s > step);
    let shown = format!("DP comm {}", units::format_time(s.comm.dp.exposed_s));
    for (w, h) in [(100, 30), (160, 48)] {
        assert!(screen(&a, w, h).contains(&shown), "{shown}");
    }
    // The knob row shows the new share (the cursor's arrows around it).
    let s = screen(&a, 160, 48);
    assert!(s.lines().any(|l| l.contains("DP overlap  ◀ 0% ▶")), "{s}");
}

#[test]
fn a_ranking_goes_when_an_overlap_or_the_optimizer_changes() {
    // The search ranks by step time and fit: the overlaps change the
    // step, the optimizer the memory, so a ranking made before is stale.
    for (k, cmd) in [
        (Knob::DpOverlap, Command::Left),
        (Knob::Optimizer, Command::Right),
    ] {
        let mut a = app();
        go(&mut a, &[Command::View7, Command::SearchLayouts]);
        assert!(training(&a).search.is_some());
        select_knob(&mut a, k);
        go(&mut a, &[cmd]);
        assert!(training(&a).search.is_none(), "{k:?}");
    }
}

#[test]
fn c_toggles_the_scaling_plot_in_the_training_view_only() {
    let mut a = app();
    go(&mut a, &[Command::ScalingPlot]);
    assert!(!a.train_scaling, "the Roofline view has no scaling plot");
    go(&mut a, &[Command::View7, Command::ScalingPlot]);
    assert!(a.train_scaling);
    let c = training(&a).scaling.clone().expect("the curve");
    assert!(!c.updating, "computed inline: no worker in tests");
    let s = c
        .result
        .expect("computed inline")
        .as_ref()
        .clone()
        .expect("a curve for Llama 3.1 8B on H100s");
    // 8 to 16384, doubling.
    assert_eq!(s.points.len(), 12);
    let text = screen(&a, 80, 24);
    assert!(text.contains("knee at"), "{text}");
    // The workbench's curve is the command line's: `ridgeline scale` with
    // the same model, device and batch gives each point's tokens/s.
    common::assert_curve_is_the_clis(&s, None);
    go(&mut a, &[Command::ScalingPlot]);
    assert!(!a.train_scaling && training(&a).scaling.is_none());
}
