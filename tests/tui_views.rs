//! The views of the workbench driven by actions: number keys and arrow keys
//! switch views, each view's figures equal the solver's for the same
//! inputs, text entries keep the last valid result, scenarios open in the
//! right view with the right selection and save atomically.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::Key;
use ridgeline::scenario::Scenario;
use ridgeline::solver::{self, Phase, fleet, serving, synthesis};
use ridgeline::tui::events::key_action as action_for;
use ridgeline::tui::knobs::{Family, Knob, SweepAxis};
use ridgeline::tui::views::{View, ViewData};
use ridgeline::tui::{Action, App, Command, Mode, Pane};
use std::path::{Path, PathBuf};

mod common;
use common::{app, go, key, select_knob, typed};

fn clear_entry(a: &mut App) {
    for _ in 0..40 {
        key(a, Key::Backspace);
    }
}

fn data(a: &App) -> &ViewData {
    a.view_data.as_ref().expect("view figures")
}

fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios")
        .join(name)
}

fn hw(a: &App, id: &str) -> usize {
    a.catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == id)
        .unwrap()
}

#[test]
fn number_keys_open_every_view_and_the_selection_is_shared() {
    let mut a = app();
    let (h, m) = (a.hw, a.model);
    let keys = [
        (Command::View2, View::Serving),
        (Command::View3, View::Synthesis),
        (Command::View4, View::Sweep),
        (Command::View5, View::Generations),
        (Command::View6, View::Fleet),
        (Command::View7, View::Training),
        (Command::View1, View::Roofline),
    ];
    for (c, v) in keys {
        go(&mut a, &[c]);
        assert_eq!(a.view, v);
        assert!(a.view_data.is_ok(), "{v:?}: {:?}", a.view_data);
        assert_eq!((a.hw, a.model), (h, m), "{v:?} keeps the selection");
        if v != View::Roofline {
            assert_eq!(a.focus, Pane::View, "{v:?} shows its own pane");
            assert_eq!(
                Pane::of(v),
                &[Pane::Hardware, Pane::Models, Pane::Knobs, Pane::View]
            );
        }
    }
    // A knob stepped in one view is the same knob in the others.
    go(&mut a, &[Command::View2]);
    select_knob(&mut a, Knob::Batch);
    go(&mut a, &[Command::Right]);
    assert_eq!(a.workload.batch, 2.0);
    let ViewData::Serving(s) = data(&a) else {
        panic!()
    };
    assert_eq!(s.serving.decode.batch, 2.0);
    go(&mut a, &[Command::View1]);
    assert_eq!(a.current.as_ref().unwrap().workload.batch, 2.0);
}

#[test]
fn the_number_keys_are_bound_and_listed_in_help() {
    let a = app();
    for (ch, cmd) in [
        ('1', Command::View1),
        ('2', Command::View2),
        ('3', Command::View3),
        ('4', Command::View4),
        ('5', Command::View5),
        ('6', Command::View6),
        ('7', Command::View7),
        ('8', Command::View8),
        ('9', Command::View9),
        ('r', Command::SearchLayouts),
        ('s', Command::Save),
        ('f', Command::NextFamily),
    ] {
        let ev = KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE);
        assert_eq!(action_for(&a, &ev), Some(Action::Do(cmd)), "{ch}");
    }
    let rows = a.keymap.help_rows();
    assert!(
        rows.iter()
            .any(|(k, d)| k == "1-9" && d.contains("8 Operators") && d.contains("9 Explore"))
    );
    assert!(rows.iter().any(|(k, d)| k == "s" && d.contains("scenario")));
}

#[test]
fn arrow_keys_alone_reach_every_view() {
    let mut a = app();
    // Up from the top of the hardware list: the pane bar; Up again: the views.
    for _ in 0..40 {
        go(&mut a, &[Command::Up]);
    }
    assert!(a.in_bar && a.bar_view);
    let mut seen = vec![a.view];
    for _ in 1..View::ALL.len() {
        go(&mut a, &[Command::Right]);
        seen.push(a.view);
        assert!(a.view_data.is_ok(), "{:?}", a.view);
    }
    assert_eq!(seen, View::ALL.to_vec());
    go(&mut a, &[Command::Right]);
    assert_eq!(a.view, View::Roofline, "wraps");
    go(&mut a, &[Command::Left]);
    assert_eq!(a.view, View::Explore);
    go(&mut a, &[Command::Left]);
    assert_eq!(a.view, View::Operators);
    go(&mut a, &[Command::Left]);
    assert_eq!(a.view, View::Training);
    go(&mut a, &[Command::Left]);
    assert_eq!(a.view, View::Fleet);
    // Down twice: back to the panes of the bar, then into the pane.
    go(&mut a, &[Command::Down]);
    assert!(a.in_bar && !a.bar_view);
    go(&mut a, &[Command::Left]);
    assert_eq!(a.focus, Pane::Knobs);
    go(&mut a, &[Command::Down]);
    assert!(!a.in_bar);
    // In the knobs, Right steps requests/s, the first Fleet knob.
    let before = a.view_inputs.qps;
    go(&mut a, &[Command::Right]);
    assert_eq!(a.view_inputs.qps, before * 2.0);
}

#[test]
fn serving_figures_are_the_solvers() {
    let mut a = app();
    go(&mut a, &[Command::View2]);
    let hw = &a.catalog.hardware[a.hw].hw;
    let model = &a.catalog.models[a.model].model;
    let want = serving::serve(
        hw,
        model,
        &a.workload,
        &a.view_inputs.request,
        &a.assumptions,
    )
    .unwrap();
    let ViewData::Serving(s) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(s.serving, want);
    assert!(s.serving.ttft_s > 0.0 && s.serving.itl_s > 0.0);
    assert!(s.economics.cost_per_million_tokens_usd.is_some());
    let co2_here = s.region.co2_per_mtok_g.unwrap();
    // Prompt doubles: TTFT grows.
    select_knob(&mut a, Knob::Prompt);
    go(&mut a, &[Command::Right]);
    assert_eq!(a.view_inputs.request.prompt, 4096.0);
    let ViewData::Serving(s2) = data(&a).clone() else {
        panic!()
    };
    assert!(s2.serving.ttft_s > s.serving.ttft_s);
    // The region knob cycles catalog regions; carbon follows the grid.
    select_knob(&mut a, Knob::Region);
    let r0 = a.view_inputs.region.clone();
    go(&mut a, &[Command::Right]);
    assert_ne!(a.view_inputs.region, r0);
    let ViewData::Serving(s3) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(s3.region.id, a.view_inputs.region);
    assert_ne!(s3.region.co2_per_mtok_g.unwrap(), co2_here);
}

#[test]
fn synthesis_target_entry_ranks_cheapest_first_and_keeps_the_last_valid() {
    let mut a = app();
    go(&mut a, &[Command::View3]);
    // Enter on the Synthesis pane types the target.
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Edit);
    assert_eq!(a.selected_knob(), Knob::Target);
    clear_entry(&mut a);
    typed(&mut a, "100ms ttft");
    let ViewData::Synthesis(d) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(d.phase, Phase::Prefill);
    let model = &a.catalog.models[a.model].model;
    let (phase, target) = d.target.resolve(&a.workload);
    let wl = solver::Workload {
        phase,
        ..a.workload
    };
    let want = synthesis::rank(
        &a.devices,
        model,
        &wl,
        &a.assumptions,
        &target,
        solver::RankBy::Cost,
    )
    .unwrap();
    assert_eq!(d.matches, want);
    let costs: Vec<f64> = d
        .matches
        .iter()
        .filter_map(|m| m.cost_per_hour_usd)
        .collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "cheapest first");
    assert!(d.requirement.feasible);
    // Invalid text: the reason in place, the last ranking kept and marked.
    typed(&mut a, "zz");
    let e = a.edit.as_ref().unwrap().error.clone().unwrap();
    assert!(e.contains("targets read like"), "{e}");
    let (shown, stale) = a.shown_view().unwrap();
    assert!(stale);
    assert!(matches!(shown, ViewData::Synthesis(x) if x.phase == Phase::Prefill));
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    // An infeasible target says why.
    go(&mut a, &[Command::Edit]);
    clear_entry(&mut a);
    typed(&mut a, "5us itl");
    go(&mut a, &[Command::Edit]);
    let ViewData::Synthesis(d) = data(&a).clone() else {
        panic!()
    };
    assert!(!d.requirement.feasible);
    assert!(d.requirement.reason.unwrap().contains("overhead"));
    assert!(d.matches.is_empty());
}

#[test]
fn sweep_marks_the_crossover_and_toggles_to_context() {
    let mut a = app();
    a.open_scenario(&scenario_path("batch-sweep-8b-h100.toml"))
        .unwrap();
    assert_eq!(a.view, View::Sweep);
    let ViewData::Sweep(d) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(d.axis, SweepAxis::Batch);
    let hw = &a.catalog.hardware[a.hw].hw;
    let model = &a.catalog.models[a.model].model;
    let want = solver::sweep::crossover_batch(hw, model, &a.workload, &a.assumptions).unwrap();
    assert_eq!(d.crossover, want);
    let xs: Vec<f64> = d.points.iter().map(|p| p.0).collect();
    assert_eq!(xs.first(), Some(&1.0));
    assert_eq!(xs.last(), Some(&(a.view_inputs.batches.1 as f64)));
    // Prefill crosses over from memory to compute at a small batch.
    select_knob(&mut a, Knob::Phase);
    go(&mut a, &[Command::Right]);
    select_knob(&mut a, Knob::SweepAxis);
    go(&mut a, &[Command::Right]);
    let ViewData::Sweep(d) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(d.axis, SweepAxis::Context);
    assert!(d.points.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn generations_cycle_families_and_the_marked_devices() {
    let mut a = app();
    go(&mut a, &[Command::View5]);
    let ViewData::Generations(g) = data(&a).clone() else {
        panic!()
    };
    // The default: the generations people ask about, oldest first.
    assert_eq!(g.label, "a100-h100-h200-b200");
    let ids: Vec<&str> = g
        .analysis
        .compare
        .iter()
        .map(|c| a.catalog.hardware[c.hw].hw.id.as_str())
        .collect();
    assert_eq!(ids, ["a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"]);
    // f: the next family, every one of them, then the marked devices.
    let mut labels = vec![g.label.clone()];
    // Every family once, the marked devices, and back to the start (the
    // default line-up is one more than the catalog's families).
    for _ in 0..a.choices.families.len() + 2 {
        go(&mut a, &[Command::NextFamily]);
        labels.push(Knob::Family.value(&a.inputs()));
    }
    assert_eq!(labels.first(), labels.last());
    assert!(labels.contains(&"marked".to_string()));
    while a.view_inputs.family != Family::Marked {
        go(&mut a, &[Command::NextFamily]);
    }
    assert!(labels.contains(&"amd-instinct".to_string()));
    assert!(labels.contains(&"nvidia-datacenter".to_string()));
    assert!(labels.contains(&"google-tpu".to_string()));
    assert_eq!(a.view_inputs.family, Family::Marked);
    // No marks yet: the view says so, nothing panics.
    assert!(a.view_data.as_ref().unwrap_err().contains("mark"));
    a.marked = vec![hw(&a, "a100-sxm-80gb"), hw(&a, "h200-sxm")];
    a.recompute();
    let ViewData::Generations(g) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(g.analysis.compare.len(), 2);
    // Decode of an 8B model: memory bandwidth binds on both.
    for c in &g.analysis.compare {
        let s = c.result.as_ref().unwrap();
        assert_eq!(s.binding, Some(solver::Param::MemoryBandwidth));
    }
}

#[test]
fn fleet_capstone_answers_device_count_cost_carbon_and_budget() {
    let mut a = app();
    a.open_scenario(&scenario_path("capstone-fleet.toml"))
        .unwrap();
    assert_eq!(a.view, View::Fleet);
    assert_eq!(a.catalog.models[a.model].model.id, "llama-3-70b");
    let ViewData::Fleet(d) = data(&a).clone() else {
        panic!()
    };
    let model = &a.catalog.models[a.model].model;
    // The view's figures are the solver's for the app's inputs: the search
    // over bf16, fp8 and int4, both modes, the load split equally.
    let search = fleet::Search {
        precisions: solver::Precisions::parse_list("bf16,fp8,int4").unwrap(),
        mode: fleet::ModeChoice::Auto,
        shares: vec![0.5, 0.5],
    };
    assert_eq!(d.search, search);
    let want = fleet::search(
        &a.devices,
        model,
        &search,
        &d.spec,
        &a.assumptions,
        solver::economics::DEFAULT_IDLE_SHARE,
    )
    .unwrap();
    assert_eq!(d.plan, want);
    assert_eq!(d.front, fleet::front(&want.per_design));
    assert_eq!(d.spec.qps, 1000.0);
    assert_eq!(d.spec.ttft_sla_s, 0.1);
    assert_eq!(d.spec.budget_usd_per_year, Some(5e6));
    let best = d.plan.best.clone().unwrap();
    assert!(best.ttft_s <= 0.1 && best.itl_s <= 0.05);
    assert_eq!(best.within_budget, Some(best.cost_per_year_usd() <= 5e6));
    assert_eq!(d.names.len(), 2);
    assert_eq!(d.names[0].0, "us-east");
    assert_eq!(d.names[1].0, "eu-west");
    // Each region is its own fleet for half the load, on its own grid; the
    // whole fleet adds them up.
    let grids = ["us-east", "eu-west"].map(|r| a.catalog.region(r).unwrap().grid());
    let sp = d.regional.clone().unwrap();
    assert_eq!(sp, fleet::regional(&want.regions, &grids));
    let (us, eu) = (&sp.regions[0], &sp.regions[1]);
    assert_eq!((us.qps, eu.qps), (500.0, 500.0));
    assert_eq!(us.replicas + eu.replicas, best.replicas);
    assert_eq!(us.devices + eu.devices, best.devices);
    let (dus, deu) = (us.daily.unwrap(), eu.daily.unwrap());
    assert_eq!(
        dus,
        solver::economics::daily(want.regions[0].power_w.unwrap(), &grids[0])
    );
    let total = sp.total.unwrap();
    assert!((total.kwh - (dus.kwh + deu.kwh)).abs() < 1e-9 * total.kwh);
    assert_ne!(dus.kg_co2, deu.kg_co2);
    // The mode knob: aggregated only never costs less than auto.
    select_knob(&mut a, Knob::FleetMode);
    go(&mut a, &[Command::Right]);
    let ViewData::Fleet(agg) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(agg.search.mode, fleet::ModeChoice::Aggregated);
    let agg_best = agg.plan.best.unwrap();
    assert_eq!(agg_best.mode, fleet::Mode::Aggregated);
    assert!(agg_best.cost_per_hour_usd >= best.cost_per_hour_usd);
    go(&mut a, &[Command::Left]);
    // Shares 0.6, 0.4: us-east carries 600 requests/s.
    select_knob(&mut a, Knob::Shares);
    go(&mut a, &[Command::Right]);
    let ViewData::Fleet(sh) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(sh.search.shares, vec![0.6, 0.4]);
    let r = sh.regional.unwrap();
    assert!((r.regions[0].qps - 600.0).abs() < 1e-9 && (r.regions[1].qps - 400.0).abs() < 1e-9);
    go(&mut a, &[Command::Left]);
    // A bigger budget: within it.
    select_knob(&mut a, Knob::Budget);
    go(&mut a, &[Command::Edit]);
    clear_entry(&mut a);
    typed(&mut a, "50M");
    go(&mut a, &[Command::Edit]);
    let ViewData::Fleet(d) = data(&a).clone() else {
        panic!()
    };
    assert_eq!(d.plan.best.unwrap().within_budget, Some(true));
    // A looser ITL never costs more.
    let cost = best.cost_per_hour_usd;
    select_knob(&mut a, Knob::ItlSla);
    go(&mut a, &[Command::Right]);
    let ViewData::Fleet(d) = data(&a).clone() else {
        panic!()
    };
    assert!(d.plan.best.unwrap().cost_per_hour_usd <= cost);
}

#[test]
fn every_shipped_scenario_opens_in_its_view_with_its_selection() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        n += 1;
        let s = Scenario::load(&p).unwrap();
        let mut a = app();
        a.open_scenario(&p).unwrap();
        let name = p.display();
        assert!(a.notices.is_empty(), "{name}: {:?}", a.notices);
        assert_eq!(
            a.view.name(),
            s.view.as_deref().unwrap_or("roofline"),
            "{name}"
        );
        if let Some(m) = &s.model {
            let e = a.catalog.model(m).unwrap();
            assert_eq!(a.catalog.models[a.model].model.id, e.model.id, "{name}");
        }
        if let Some(h) = &s.hardware {
            let e = a.catalog.hardware(h).unwrap();
            assert_eq!(a.catalog.hardware[a.hw].hw.id, e.hw.id, "{name}");
        }
        let marked: Vec<&str> = a
            .marked
            .iter()
            .map(|&i| a.catalog.hardware[i].hw.id.as_str())
            .collect();
        let want: Vec<String> = s
            .compare
            .iter()
            .map(|h| a.catalog.hardware(h).unwrap().hw.id.clone())
            .collect();
        assert_eq!(marked, want, "{name}");
        assert_eq!(
            a.workload,
            s.workload(&Default::default()).unwrap(),
            "{name}"
        );
        assert_eq!(a.view_inputs.request, s.request().unwrap(), "{name}");
        // The 70B-on-A100 scenario does not fit: the view shows it, no error.
        assert!(a.current.is_ok(), "{name}: {:?}", a.current);
    }
    assert!(n >= 6);
}

#[test]
fn a_bad_scenario_says_where_and_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("ridgeline-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.toml");
    std::fs::write(&p, "view = \"fleet\"\n[fleet]\nqps = -3\n").unwrap();
    let mut a = app();
    let e = a.open_scenario(&p).unwrap_err();
    assert!(e.contains("bad.toml:3:1"), "{e}");
    assert_eq!(a.view, View::Roofline);
    assert_eq!(a.catalog.hardware[a.hw].hw.id, "h100-sxm");
    let e = a.open_scenario(&dir.join("nope.toml")).unwrap_err();
    assert!(e.contains("cannot read"), "{e}");
    // A scenario naming a device the catalog lacks: at its key.
    std::fs::write(&p, "title = \"t\"\nhardware = \"h999\"\n").unwrap();
    let e = a.open_scenario(&p).unwrap_err();
    assert!(e.contains("bad.toml:2:1") && e.contains("h999"), "{e}");
    assert_eq!(a.catalog.hardware[a.hw].hw.id, "h100-sxm");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn s_saves_the_whole_state_and_it_opens_again() {
    let dir = std::env::temp_dir().join(format!("ridgeline-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mine.toml");
    let mut a = app();
    a.open_scenario(&scenario_path("capstone-fleet.toml"))
        .unwrap();
    a.marked = vec![hw(&a, "a100-sxm-80gb")];
    select_knob(&mut a, Knob::Qps);
    go(&mut a, &[Command::Right]);
    go(&mut a, &[Command::Save]);
    assert_eq!(a.mode, Mode::Save);
    assert_eq!(a.save_path.lines()[0], "./ridgeline-scenario.toml");
    // The default is selected: typing replaces it.
    typed(&mut a, path.to_str().unwrap());
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal);
    let msg = &a.message.as_ref().unwrap().1;
    assert!(msg.contains("saved"), "{msg}");
    let mut b = app();
    b.open_scenario(&path).unwrap();
    assert_eq!(b.view, View::Fleet);
    assert_eq!((b.hw, b.model), (a.hw, a.model));
    assert_eq!(b.marked, a.marked);
    assert_eq!(b.workload, a.workload);
    assert_eq!(b.assumptions, a.assumptions);
    assert_eq!(b.view_inputs.qps, 2000.0);
    assert_eq!(b.view_inputs.regions, a.view_inputs.regions);
    assert_eq!(b.view_inputs.budget, a.view_inputs.budget);
    assert_eq!(b.view_data, a.view_data);
    // No temporary file left beside it.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1);
    // A path that cannot be written: an error in the status line, no panic.
    go(&mut a, &[Command::Save]);
    typed(&mut a, "/proc/no/such/dir/x.toml");
    go(&mut a, &[Command::Edit]);
    assert_eq!(
        a.message.as_ref().unwrap().0,
        ridgeline::tui::app::Level::Error
    );
    // Esc cancels a save.
    go(&mut a, &[Command::Save, Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_key_panics_in_any_view() {
    let cmds = [
        Command::Up,
        Command::Down,
        Command::Left,
        Command::Right,
        Command::NextPane,
        Command::Increase,
        Command::Decrease,
        Command::Mark,
        Command::NextFamily,
        Command::PageDown,
        Command::Top,
        Command::Bottom,
        Command::SearchLayouts,
        Command::Edit,
    ];
    // Every view: its number keys, as many as View::ALL has.
    let views: Vec<Command> = Command::ALL
        .into_iter()
        .filter(|c| c.view_number().is_some())
        .collect();
    assert_eq!(views.len(), View::ALL.len());
    for v in views {
        let mut a = app();
        go(&mut a, &[v]);
        for i in 0..300 {
            go(&mut a, &[cmds[(i * 7 + i / 5) % cmds.len()]]);
        }
        // Every knob of the view, stepped to its ends and typed badly.
        for k in 0..a.knobs().len() {
            a.focus = Pane::Knobs;
            a.in_bar = false;
            a.bar_view = false;
            a.knob = k;
            for _ in 0..40 {
                go(&mut a, &[Command::Right]);
            }
            for _ in 0..80 {
                go(&mut a, &[Command::Left]);
            }
            go(&mut a, &[Command::Edit]);
            typed(&mut a, "-1e999 ,, ms");
            go(&mut a, &[Command::Cancel]);
        }
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
        t.draw(|f| ridgeline::tui::render(&a, f)).unwrap();
    }
}

#[test]
fn signals_give_the_conventional_exit_status() {
    use ridgeline::tui::Exit;
    assert_eq!(Exit::Quit.code(), 0);
    assert_eq!(Exit::Signal(15).code(), 143);
    assert_eq!(Exit::Signal(1).code(), 129);
}

#[test]
fn the_readme_key_table_is_the_keymap() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/workbench.md"))
            .unwrap();
    let (_, rest) = readme
        .split_once("<!-- keys:begin -->\n")
        .expect("docs/workbench.md has the key table");
    let (table, _) = rest.split_once("<!-- keys:end -->").unwrap();
    let want = ridgeline::tui::keymap::Keymap::default().markdown();
    assert_eq!(
        table, want,
        "regenerate docs/workbench.md's key table from Keymap::default().markdown()"
    );
}

/// `cargo test --test tui_views print_key_table -- --ignored --nocapture`
/// prints the table to paste into the README.
#[test]
#[ignore]
fn print_key_table() {
    print!("{}", ridgeline::tui::keymap::Keymap::default().markdown());
}

#[test]
fn the_synthesis_and_fleet_tables_scroll_and_up_leaves_them() {
    for v in [Command::View3, Command::View6] {
        let mut a = app();
        go(&mut a, &[v]);
        assert_eq!(a.focus, Pane::View);
        let rows = a.view_rows();
        assert!(rows > 3, "{v:?}: {rows}");
        go(&mut a, &[Command::Down, Command::Down, Command::Down]);
        assert_eq!(a.view_scroll, 3);
        go(&mut a, &[Command::Bottom]);
        assert_eq!(a.view_scroll, rows - 1);
        go(&mut a, &[Command::Top]);
        assert_eq!(a.view_scroll, 0);
        go(&mut a, &[Command::Up]);
        assert!(a.in_bar, "{v:?}: Up from the first row reaches the bar");
    }
}

#[test]
fn the_fleet_view_says_what_would_fit_the_budget_as_fleet_does() {
    // The capstone is over its $5M: the view lists the same relaxations
    // the command prints in `within_budget_if` (the same search).
    let mut a = app();
    a.open_scenario(&scenario_path("capstone-fleet.toml"))
        .unwrap();
    let relaxed = a.fleet_relaxed.clone().expect("over budget: relaxations");
    let out = common::cli::ridgeline(&common::cli::CAPSTONE);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cli = v["within_budget_if"].as_array().unwrap();
    assert_eq!(relaxed.relaxed.len(), cli.len());
    for (r, c) in relaxed.relaxed.iter().zip(cli) {
        assert_eq!(r.change.key(), c["change"]);
        assert_eq!(r.value, c["value"].as_f64().unwrap());
        assert_eq!(r.design.devices, c["devices"].as_u64().unwrap());
    }
    // And draws them at 80x24, the rate as the command gives it.
    let s = common::screen(&a, 80, 24);
    let qps = ridgeline::solver::units::format_number(relaxed.relaxed[0].value);
    assert!(s.contains(&format!("fits with {qps} req/s")), "{s}");
}
