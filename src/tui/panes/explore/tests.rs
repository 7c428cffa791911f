//! The Explore view: its table is the solver's front for the app's inputs,
//! Enter adopts the row under the cursor, a keystroke that changes no input
//! of the search does not search again, and snapshots at 80x24 and 160x48
//! and at 100x30 without colour and in ASCII.

use crate::catalog::Catalog;
use crate::scenario::{ExploreHardware, up_to};
use crate::solver::economics::DEFAULT_IDLE_SHARE;
use crate::solver::explore::{self, Axes, Limits};
use crate::tui::action::{Action, Command};
use crate::tui::app::{App, Settings};
use crate::tui::render;
use crate::tui::update::update;
use crate::tui::views::ViewData;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(app, f)).unwrap();
    t.backend().to_string()
}

/// The workbench (Llama 3.1 8B on an H100) in a look, on the Explore view.
fn explore_app(look: &str) -> App {
    let mut a = App::new(
        Catalog::builtin(),
        Settings {
            ascii: look == "ascii",
            no_color: look == "mono",
            ..Settings::default()
        },
    );
    update(&mut a, Action::Do(Command::View9));
    a
}

fn data(a: &App) -> std::sync::Arc<crate::tui::views::explore::ExploreData> {
    match &a.view_data {
        Ok(ViewData::Explore(d)) => d.clone(),
        other => panic!("not the Explore view: {other:?}"),
    }
}

#[test]
fn the_table_is_the_solvers_front_for_the_apps_inputs() {
    let a = explore_app("colour");
    let d = data(&a);
    // The same space built here from the app's inputs, by hand: the cloud
    // devices of the catalog, bf16/fp8/int4, TP 1..8, PP 1, batch 1..256,
    // the app's prompt and output, no limits, ITL against cost.
    let e = &a.view_inputs.explore;
    assert_eq!(
        e.hardware,
        ExploreHardware::Tier(crate::solver::Tier::Cloud)
    );
    let cloud: Vec<_> = a
        .catalog
        .hardware
        .iter()
        .filter(|h| h.hw.tier == crate::solver::Tier::Cloud)
        .map(|h| h.hw.clone())
        .collect();
    let axes = Axes {
        hardware: cloud.clone(),
        precisions: e.precisions.clone(),
        tp: vec![1, 2, 4, 8],
        pp: vec![1],
        batch: up_to(256).into_iter().map(|b| b as f64).collect(),
        prompt: vec![a.view_inputs.request.prompt],
        output: vec![a.view_inputs.request.output],
    };
    // 9 batches (1, 2, ..., 256) x 4 TP x 3 precisions per device.
    assert_eq!(axes.size(), cloud.len() * 9 * 4 * 3);
    let model = &a.catalog.models[a.model].model;
    let want = explore::explore(
        model,
        &axes,
        &Limits::default(),
        &[e.x, e.y],
        &a.assumptions,
        DEFAULT_IDLE_SHARE,
    )
    .unwrap();
    assert_eq!(d.exploration, want);
    assert!(!want.front.is_empty());
    // The table shows the front's rows, in its order.
    let s = screen(&a, 160, 48);
    let first = &want.points[want.front[0]];
    let id = &cloud[first.config.hardware].id;
    assert!(s.contains(id.as_str()), "{s}");
    assert!(s.contains(&format!("{} evaluated", want.evaluated)), "{s}");
}

#[test]
fn enter_adopts_the_row_under_the_cursor() {
    let mut a = explore_app("colour");
    update(&mut a, Action::Do(Command::Down));
    update(&mut a, Action::Do(Command::Down));
    let d = data(&a);
    assert_eq!(a.view_scroll, 2.min(d.exploration.front.len() - 1));
    let p = d.front_point(a.view_scroll).unwrap();
    let c = d.choice(p);
    update(&mut a, Action::Do(Command::Edit));
    assert_eq!(a.hw, c.hw);
    assert_eq!(a.workload.weights, c.precisions.weights);
    assert_eq!(a.workload.activations, c.precisions.activations);
    assert_eq!(a.workload.kv, c.precisions.kv);
    assert_eq!((a.workload.tp, a.workload.pp), (c.tp, c.pp));
    assert_eq!(a.workload.batch, c.batch);
    let msg = &a.message.as_ref().unwrap().1;
    assert!(msg.starts_with("selected "), "{msg}");
    assert!(msg.contains(&format!("TP {}", c.tp)), "{msg}");
}

#[test]
fn moving_along_the_front_does_not_search_again_and_a_knob_does() {
    let mut a = explore_app("colour");
    let n = a.explore_searches;
    assert_eq!(n, 1, "opening the view searches once");
    update(&mut a, Action::Do(Command::Down));
    update(&mut a, Action::Do(Command::Up));
    assert_eq!(a.explore_searches, n);
    // The knobs pane: the first knob is the x objective; Right steps it.
    a.focus = crate::tui::app::Pane::Knobs;
    a.knob = 0;
    update(&mut a, Action::Do(Command::Right));
    assert_eq!(a.explore_searches, n + 1);
    let d = data(&a);
    assert_eq!(d.x, a.view_inputs.explore.x);
    assert_ne!(d.x, explore::Objective::Itl);
}

#[test]
fn explore_view_snapshots() {
    let mut a = explore_app("colour");
    update(&mut a, Action::Do(Command::Down));
    for (w, h) in [(80, 24), (160, 48)] {
        insta::assert_snapshot!(format!("explore_{w}x{h}"), screen(&a, w, h));
    }
    for look in ["mono", "ascii"] {
        let mut a = explore_app(look);
        update(&mut a, Action::Do(Command::Down));
        insta::assert_snapshot!(format!("explore_{look}_100x30"), screen(&a, 100, 30));
    }
}

#[test]
fn an_empty_front_says_why() {
    // The workstation devices of the catalog have no price: on ITL against
    // cost every configuration that runs has no cost, and the pane says so
    // rather than asking to loosen a limit.
    let mut a = explore_app("colour");
    a.view_inputs.explore.hardware = ExploreHardware::Tier(crate::solver::Tier::Workstation);
    a.recompute();
    let d = data(&a);
    assert!(d.exploration.front.is_empty());
    let why = super::empty_why(&d);
    assert!(why.contains("no itl or cost"), "{why}");
    // On ITL against throughput they are on the plot.
    a.view_inputs.explore.y = explore::Objective::TokensPerDevice;
    a.recompute();
    assert!(!data(&a).exploration.front.is_empty());
}
