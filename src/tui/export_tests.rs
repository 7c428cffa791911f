//! Issue 20, section 4: a view taken away. The command lines of a view,
//! run, print the figures the view shows (the round trip); `X` writes a
//! new directory each time and never overwrites; `y` queues the OSC 52 of
//! the command line it shows.

use super::action::{Action, Command};
use super::app::{App, Level, Settings};
use super::update::update;
use super::views::{View, ViewData};
use crate::catalog::Catalog;
use crate::export;
use serde_json::Value;

fn app() -> App {
    App::new(Catalog::builtin(), Settings::default())
}

fn hw(a: &App, id: &str) -> usize {
    a.catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == id)
        .unwrap()
}

fn model(a: &App, id: &str) -> usize {
    a.catalog
        .models
        .iter()
        .position(|e| e.model.id == id)
        .unwrap()
}

/// The view's table command, run with `--format json`: its rows.
fn json_rows(a: &App) -> Vec<Value> {
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let mut args = c.table.clone();
    args.extend(["--format".to_string(), "json".to_string()]);
    let out = export::run(&args).unwrap();
    match serde_json::from_str::<Value>(&out).unwrap() {
        Value::Array(v) => v,
        other => panic!("not a list: {other}"),
    }
}

fn num(r: &Value, k: &str) -> f64 {
    r[k].as_f64()
        .unwrap_or_else(|| panic!("{k} missing in {r}"))
}

/// Equal to the last bit or nearly: both faces call the same solver with
/// the same inputs, so any difference is a different input.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// A state off every default: 70B at batch 8, 8k context, fp8, TP 2, a
/// compute efficiency of 60%, three devices.
fn busy_app() -> App {
    let mut a = app();
    a.model = model(&a, "llama-3.1-70b");
    a.hw = hw(&a, "h100-sxm");
    a.marked = vec![hw(&a, "h200-sxm"), hw(&a, "b200")];
    a.workload.batch = 8.0;
    a.workload.context = 8192.0;
    a.workload.weights = crate::solver::Precision::Fp8;
    a.workload.activations = crate::solver::Precision::Fp8;
    a.workload.kv = crate::solver::Precision::Fp8;
    a.workload.tp = 2;
    a.assumptions.compute_efficiency = 0.6;
    a.recompute();
    a
}

#[test]
fn the_roofline_views_command_prints_its_figures() {
    let a = busy_app();
    let (an, _) = a.shown().unwrap();
    let rows = json_rows(&a);
    // h100 (selected), then the two marked.
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(an.compare.len(), 3);
    for (c, r) in an.compare.iter().zip(&rows) {
        let id = &a.catalog.hardware[c.hw].hw.id;
        assert_eq!(r["hardware"].as_str(), Some(id.as_str()));
        let e = &c.result.as_ref().unwrap().base;
        assert!(e.memory.fits, "{id} should fit 70B fp8 over TP 2");
        assert!(same(num(r, "latency_s"), e.latency_s), "{id}: {r}");
        assert!(same(num(r, "tokens_per_s"), e.tokens_per_s), "{id}");
        assert!(same(num(r, "arithmetic_intensity"), e.arithmetic_intensity));
        assert!(same(num(r, "peak_flops_per_s"), e.peak_flops), "{id}");
    }
}

#[test]
fn the_sweep_views_command_prints_its_points() {
    let mut a = app();
    a.hw = hw(&a, "a100-sxm-80gb");
    a.view_inputs.batches = (2, 64);
    a.set_view(View::Sweep);
    let Ok(ViewData::Sweep(d)) = &a.view_data else {
        panic!("no sweep")
    };
    let rows = json_rows(&a);
    // 2, 4, 8, 16, 32, 64: six powers of two, all fit 8B on 80 GB.
    assert_eq!(rows.len(), 6);
    assert_eq!(d.points.len(), 6);
    for ((b, e), r) in d.points.iter().zip(&rows) {
        assert_eq!(num(r, "batch"), *b);
        assert!(same(num(r, "tokens_per_s"), e.tokens_per_s), "batch {b}");
    }
}

#[test]
fn the_generations_views_command_compares_the_family() {
    let mut a = app();
    a.set_view(View::Generations);
    let Ok(ViewData::Generations(g)) = &a.view_data else {
        panic!("no generations")
    };
    let rows = json_rows(&a);
    // The flagship line-up: a100-sxm-80gb, h100-sxm, h200-sxm, b200.
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["hardware"].as_str().unwrap())
        .collect();
    assert_eq!(ids, crate::scenario::FLAGSHIP_DEVICES);
    for (c, r) in g.analysis.compare.iter().zip(&rows) {
        let e = &c.result.as_ref().unwrap().base;
        assert!(same(num(r, "latency_s"), e.latency_s));
    }
}

#[test]
fn the_plot_command_draws_the_views_devices_and_points() {
    let a = busy_app();
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let mut args = c.plot.unwrap();
    args.extend(["-o".to_string(), "-".to_string()]);
    let svg = export::run(&args).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let (an, _) = a.shown().unwrap();
    let legend: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("legend-device"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    let ids: Vec<&str> = an
        .compare
        .iter()
        .map(|c| a.catalog.hardware[c.hw].hw.id.as_str())
        .collect();
    assert_eq!(legend, ids);
    // One operating point per device (each fits), and the selected
    // device's other phase.
    let points = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("point"))
        .count();
    assert_eq!(points, 4);
}

#[test]
fn export_writes_a_new_directory_each_time_and_command_sh_reprints_the_table() {
    let a = busy_app();
    let base = std::env::temp_dir().join(format!("ridgeline-export-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let s = a.to_scenario();
    let first = export::write(&base, &a.catalog, &s, None, "Roofline").unwrap();
    let second = export::write(&base, &a.catalog, &s, None, "Roofline").unwrap();
    assert_eq!(first, base.join("ridgeline-export-roofline-1"));
    assert_eq!(second, base.join("ridgeline-export-roofline-2"));
    let mut names: Vec<String> = std::fs::read_dir(&first)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["command.sh", "plot.svg", "table.csv", "table.md"]);
    let sh = std::fs::read_to_string(first.join("command.sh")).unwrap();
    let lines: Vec<&str> = sh.lines().filter(|l| l.starts_with("ridgeline ")).collect();
    assert_eq!(lines.len(), 2, "{sh}");
    assert!(lines[1].starts_with("ridgeline plot roofline "), "{sh}");
    // The table line, as a shell splits it (no word here needs quotes),
    // prints table.md again.
    let mut args: Vec<String> = lines[0].split(' ').map(String::from).collect();
    args.extend(["--format".to_string(), "markdown".to_string()]);
    let md = std::fs::read_to_string(first.join("table.md")).unwrap();
    assert_eq!(export::run(&args).unwrap(), md);
    assert!(md.contains("| h100-sxm |"), "{md}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(first.join("command.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_ne!(mode & 0o100, 0, "command.sh is executable by its owner");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn x_exports_into_the_apps_directory_and_without_one_writes_nothing() {
    let mut a = app();
    update(&mut a, Action::Do(Command::Export));
    let Some((Level::Error, msg)) = &a.message else {
        panic!("{:?}", a.message)
    };
    assert!(msg.contains("no directory"), "{msg}");
    let base = std::env::temp_dir().join(format!("ridgeline-x-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    a.export_dir = Some(base.clone());
    a.set_view(View::Sweep);
    update(&mut a, Action::Do(Command::Export));
    assert_eq!(
        a.message,
        Some((Level::Info, "exported to ridgeline-export-sweep-1/".into()))
    );
    assert!(base.join("ridgeline-export-sweep-1/plot.svg").is_file());
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn y_queues_the_osc_52_of_the_line_it_shows() {
    let mut a = app();
    update(&mut a, Action::Do(Command::CopyCommand));
    let Some((Level::Info, msg)) = &a.message else {
        panic!("{:?}", a.message)
    };
    let line = msg.strip_prefix("copied: ").unwrap();
    // The defaults need no flag but the model and the precision.
    assert_eq!(
        line,
        "ridgeline compare --hardware h100-sxm --model llama-3.1-8b --precision bf16"
    );
    assert_eq!(a.osc, export::osc52(line));
}

#[test]
fn every_view_has_a_command_line_and_y_copies_it() {
    let mut a = app();
    for v in View::ALL {
        a.set_view(v);
        a.osc.clear();
        update(&mut a, Action::Do(Command::CopyCommand));
        let Some((Level::Info, msg)) = &a.message else {
            panic!("{}: {:?}", v.title(), a.message)
        };
        assert!(msg.starts_with("copied: ridgeline "), "{msg}");
        assert!(!a.osc.is_empty(), "{}", v.title());
    }
}

/// The view's table command, run with `--format json`: its one record.
fn json_record(a: &App) -> Value {
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let mut args = c.table.clone();
    args.extend(["--format".to_string(), "json".to_string()]);
    serde_json::from_str(&export::run(&args).unwrap()).unwrap()
}

/// A Training view off its defaults in every kind of knob: 32 devices as
/// dp 4 x tp 2 x pp 4, ZeRO 1, selective recomputation, eager attention,
/// one edge layer, 2M tokens a step in micro-batches of 2 at 4k, 1T tokens,
/// Adam 8-bit, half the DP traffic hidden, MTBF 20000h, and a compute
/// efficiency of 45% (a workbench assumption, not a training one).
fn training_app() -> App {
    use crate::solver::training::{Attention, Optimizer, Recompute, TokensToTrain};
    let mut a = app();
    a.hw = hw(&a, "h100-sxm");
    let t = &mut a.view_inputs.train;
    t.devices = 32;
    t.tp = 2;
    // Edge layers need 3 or more stages.
    t.pp = 4;
    t.zero = 1;
    t.recompute = Recompute::Selective;
    t.attention = Attention::Eager;
    t.edge_layers = 1;
    // 2M = 2 x 1024^2 = 2097152 tokens.
    t.global_batch = 2_097_152.0;
    t.micro_batch = 2;
    t.seq = Some(4096.0);
    t.tokens = TokensToTrain::Tokens(1e12);
    t.optimizer = Optimizer::Adam8bit;
    t.assumptions.dp_overlap = 0.5;
    // 20000 h = 72e6 s.
    t.assumptions.device_mtbf_s = 72e6;
    a.assumptions.compute_efficiency = 0.45;
    a.set_view(View::Training);
    a
}

#[test]
fn the_training_views_command_prints_its_step() {
    let a = training_app();
    let Ok(ViewData::Training(d)) = &a.view_data else {
        panic!("no training view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let line = export::shell_line(&c.table);
    for f in [
        "--devices 32",
        "--tp 2",
        "--pp 4",
        "--zero 1",
        "--recompute selective",
        "--attention eager",
        "--edge-layers 1",
        "--global-batch 2097152",
        "--micro-batch 2",
        "--seq 4096",
        "--optimizer adam-8bit",
        "--dp-overlap 0.5",
        "--assume compute_efficiency=0.45",
    ] {
        assert!(line.contains(f), "{f} missing: {line}");
    }
    let r = json_record(&a);
    let s = &d.training.step;
    let m = &d.training.memory;
    assert!(m.fits, "8B over dp 4 x tp 2 x pp 4 fits an 80 GB device");
    assert_eq!(num(&r, "devices"), 32.0);
    assert!(same(num(&r, "step_time_s"), s.step_time_s), "{r}");
    assert!(same(num(&r, "mfu"), s.mfu), "{r}");
    assert!(same(num(&r, "tokens_per_s"), s.tokens_per_s), "{r}");
    let mem = &r["memory_per_device_bytes"];
    assert!(same(num(mem, "total"), m.total()), "{mem}");
    assert!(same(num(mem, "activations"), m.activations), "{mem}");
    assert!(same(num(mem, "optimizer"), m.optimizer), "{mem}");
    // The run's figures: the tokens, and the MTBF behind the goodput.
    assert_eq!(num(&r, "tokens_to_train"), 1e12);
    assert!(same(num(&r, "tokens_to_train"), d.run.tokens));
    assert!(line.contains("--tokens 1T --"), "{line}");
    assert!(line.contains("--mtbf 20000h"), "{line}");
    let days = d.run.time_to_train_s / 86400.0;
    let rec_days = r["time_to_train_s"].as_f64().map(|s| s / 86400.0);
    assert!(rec_days.is_some_and(|x| same(x, days)), "{r}");
}

#[test]
fn the_training_views_export_writes_the_step_table_and_bar() {
    let a = training_app();
    let base = std::env::temp_dir().join(format!("ridgeline-train-x-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let dir = export::write(&base, &a.catalog, &a.to_scenario(), None, "Training").unwrap();
    assert_eq!(dir, base.join("ridgeline-export-training-1"));
    let sh = std::fs::read_to_string(dir.join("command.sh")).unwrap();
    assert!(
        sh.contains("\nridgeline train --model llama-3.1-8b "),
        "{sh}"
    );
    assert!(
        sh.contains("\nridgeline plot train --model llama-3.1-8b "),
        "{sh}"
    );
    let csv = std::fs::read_to_string(dir.join("table.csv")).unwrap();
    assert!(csv.starts_with("step_time_s,"), "{csv}");
    assert!(dir.join("plot.svg").is_file());
    assert!(dir.join("table.md").is_file());
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn the_training_views_defaults_need_no_training_flag() {
    let mut a = app();
    a.set_view(View::Training);
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    // The view's defaults are `train`'s (both the solver's DEFAULTS).
    assert_eq!(
        export::shell_line(&c.table),
        "ridgeline train --model llama-3.1-8b --hardware h100-sxm --precision bf16"
    );
    assert_eq!(
        export::shell_line(&c.plot.unwrap()),
        "ridgeline plot train --model llama-3.1-8b --hardware h100-sxm --precision bf16"
    );
}

#[test]
fn the_training_views_plot_is_the_step_bar() {
    let a = training_app();
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let mut args = c.plot.unwrap();
    args.extend(["-o".to_string(), "-".to_string()]);
    let svg = export::run(&args).unwrap();
    roxmltree::Document::parse(&svg).unwrap();
    assert!(svg.contains("Training step: Llama 3.1 8B"), "{svg}");
}

/// The Serving view off its defaults: 70B at fp8 over TP 2 (from
/// `busy_app`), batch 8, a 4k prompt with 512 tokens out, carbon in
/// us-west.
fn serving_app() -> App {
    let mut a = busy_app();
    a.view_inputs.request.prompt = 4096.0;
    a.view_inputs.request.output = 512.0;
    a.view_inputs.region = "us-west".into();
    a.set_view(View::Serving);
    a
}

#[test]
fn the_serving_views_command_prints_its_replica() {
    let a = serving_app();
    let Ok(ViewData::Serving(d)) = &a.view_data else {
        panic!("no serving view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    assert_eq!(c.plot, None, "the Serving view has no plot");
    let line = export::shell_line(&c.table);
    assert_eq!(
        line,
        "ridgeline serve --hardware h100-sxm --model llama-3.1-70b --batch 8 --precision fp8 --tp 2 --assume compute_efficiency=0.6 --prompt 4096 --output 512 --region us-west"
    );
    let r = json_record(&a);
    let s = &d.serving;
    assert!(s.fits, "70B fp8 over TP 2 fits two 80 GB devices");
    assert_eq!(r["batching"].as_str(), Some("static"));
    assert_eq!(num(&r, "devices"), 2.0);
    assert!(same(num(&r, "ttft_s"), s.ttft_s), "{r}");
    assert!(same(num(&r, "itl_s"), s.itl_s), "{r}");
    assert!(same(num(&r, "e2e_s"), s.e2e_s), "{r}");
    assert!(same(num(&r, "tokens_per_s"), s.tokens_per_s), "{r}");
    assert_eq!(num(&r, "max_concurrent"), s.max_concurrent as f64);
    let cost = d.economics.cost_per_million_tokens_usd.unwrap();
    assert!(same(num(&r, "cost_per_million_tokens_usd"), cost), "{r}");
    let co2 = d.region.co2_per_mtok_g.unwrap();
    assert!(same(num(&r, "co2_per_million_tokens_g"), co2), "{r}");
}

#[test]
fn the_serving_views_continuous_batching_goes_on_the_command_line() {
    let mut a = serving_app();
    let m = &mut a.view_inputs.serve;
    m.continuous = true;
    m.token_budget = 4096.0;
    m.prefix_hit = 0.5;
    m.draft = Some("llama-3.2-1b".into());
    m.acceptance = 0.8;
    a.recompute();
    let Ok(ViewData::Serving(d)) = &a.view_data else {
        panic!("no serving view: {:?}", a.view_data)
    };
    let cont = &d.continuous.as_ref().expect("continuous figures").c;
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let line = export::shell_line(&c.table);
    // The proposal count is at its default (4), so it is left out.
    assert!(
        line.ends_with(
            "--region us-west --batching continuous --token-budget 4096 --prefix-hit 0.5 --draft llama-3.2-1b --acceptance 0.8"
        ),
        "{line}"
    );
    let r = json_record(&a);
    assert_eq!(r["batching"].as_str(), Some("continuous"));
    assert!(same(num(&r, "ttft_s"), cont.ttft_s), "{r}");
    assert!(same(num(&r, "itl_s"), cont.itl_s), "{r}");
    assert!(same(num(&r, "tokens_per_s"), cont.tokens_per_s), "{r}");
    assert_eq!(r["speculative"]["draft"].as_str(), Some("llama-3.2-1b"));
}

/// The Explore view off its defaults: the selected h100-sxm and the
/// marked h200-sxm and b200 (from `busy_app`), bf16 and fp8, TP to 4,
/// batch to 64, a 4k prompt, TTFT against cost, TTFT under 500 ms.
fn explore_app() -> App {
    use crate::scenario::ExploreHardware;
    use crate::solver::explore::Objective;
    use crate::solver::{Precision, Precisions};
    let mut a = busy_app();
    a.view_inputs.request.prompt = 4096.0;
    let e = &mut a.view_inputs.explore;
    e.hardware = ExploreHardware::Marked;
    e.precisions = vec![
        Precisions::named(Precision::Bf16),
        Precisions::named(Precision::Fp8),
    ];
    e.tp = 4;
    e.batch = 64;
    e.x = Objective::Ttft;
    e.y = Objective::Cost;
    e.ttft_s = Some(0.5);
    a.set_view(View::Explore);
    a
}

#[test]
fn the_explore_views_command_prints_its_front() {
    let a = explore_app();
    let Ok(ViewData::Explore(d)) = &a.view_data else {
        panic!("no explore view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    assert_eq!(
        export::shell_line(&c.table),
        "ridgeline explore --model llama-3.1-70b --hardware h100-sxm,h200-sxm,b200 --precision bf16,fp8 --tp 1..4 --batch 1..64 --prompt 4096 --objectives ttft,cost --ttft 500ms --assume compute_efficiency=0.6"
    );
    let r = json_record(&a);
    let x = &d.exploration;
    // 3 devices x 2 formats x TP 1, 2, 4 x PP 1 x batch 1, 2, ... 64 (7)
    // = 126 configurations.
    assert_eq!(x.evaluated, 126);
    assert_eq!(num(&r, "evaluated"), 126.0);
    assert_eq!(num(&r, "feasible"), x.feasible as f64);
    let front = r["front"].as_array().unwrap();
    assert!(!front.is_empty(), "{r}");
    assert_eq!(front.len(), x.front.len());
    for (row, p) in front.iter().enumerate() {
        let pt = d.front_point(row).unwrap();
        let ch = d.choice(pt);
        let f = pt.figures.as_ref().unwrap();
        let id = &a.catalog.hardware[ch.hw].hw.id;
        assert_eq!(p["hardware"].as_str(), Some(id.as_str()), "row {row}");
        assert_eq!(
            p["precision"].as_str(),
            Some(ch.precisions.label().as_str())
        );
        assert_eq!(num(p, "tp"), ch.tp as f64);
        assert_eq!(num(p, "batch"), ch.batch);
        assert!(same(num(p, "itl_s"), f.itl_s), "row {row}");
        assert!(same(num(p, "ttft_s"), f.ttft_s), "row {row}");
        let cost = f.cost_per_million_tokens_usd.unwrap();
        assert!(same(num(p, "cost_per_million_tokens_usd"), cost));
        assert!(f.ttft_s < 0.5, "the front meets the TTFT limit");
    }
}

#[test]
fn the_explore_views_plot_draws_its_feasible_points_and_front() {
    let a = explore_app();
    let Ok(ViewData::Explore(d)) = &a.view_data else {
        panic!("no explore view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let mut args = c.plot.unwrap();
    assert_eq!(&args[..3], ["ridgeline", "plot", "explore"]);
    args.extend(["-o".to_string(), "-".to_string()]);
    let svg = export::run(&args).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let count = |c: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(c))
            .count()
    };
    let x = &d.exploration;
    // A dot for each feasible configuration, a marker for each of the
    // front's points (all inside whole-decade bounds around them) and one
    // in the legend.
    let feasible = x
        .points
        .iter()
        .filter(|p| p.verdict == crate::solver::explore::Verdict::Feasible)
        .count();
    assert_eq!(feasible, x.feasible);
    assert_eq!(count("cloud-point"), x.feasible);
    assert!(x.front.len() > 1, "a front of one point draws no line");
    assert_eq!(count("marker"), x.front.len() + 1);
    assert!(
        svg.contains(&format!("Pareto front ({})", x.front.len())),
        "{svg}"
    );
}

#[test]
fn every_training_knob_off_its_default_reads_back_on_the_command_line() {
    let mut a = app();
    a.model = model(&a, "mixtral-8x7b");
    a.hw = hw(&a, "h100-sxm");
    let t = &mut a.view_inputs.train;
    // 64 devices = dp 2 x tp 2 x pp 4 x ep 2 x cp 2; 32 layers over 4
    // stages of 2 chunks each (v 2) = 4 layers a chunk.
    t.devices = 64;
    t.tp = 2;
    t.pp = 4;
    t.v = 2;
    t.ep = 2;
    t.cp = 2;
    t.contiguous = 2;
    t.dropout = true;
    t.global_batch = 1_048_576.0;
    let ta = &mut t.assumptions;
    ta.tp_overlap = 0.25;
    ta.ep_overlap = 0.5;
    ta.cp_overlap = 0.75;
    // 0.4 us, 8 min = 480 s, 1 GB/s.
    ta.moe_token_time_s = 4e-7;
    ta.restart_s = 480.0;
    ta.checkpoint_bandwidth = 1e9;
    ta.attention_efficiency = 0.5;
    ta.moe_capacity = 1.25;
    a.set_view(View::Training);
    let Ok(ViewData::Training(d)) = &a.view_data else {
        panic!("no training view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    let line = export::shell_line(&c.table);
    for f in [
        "--interleave 2",
        "--ep 2",
        "--cp 2",
        "--contiguous 2",
        "--tp-overlap 0.25",
        "--ep-overlap 0.5",
        "--cp-overlap 0.75",
        "--moe-token-time ",
        "--restart ",
        "--checkpoint-bandwidth ",
        "--attention-eff 0.5",
        "--moe-capacity 1.25",
        "--dropout",
    ] {
        assert!(line.contains(f), "{f} missing: {line}");
    }
    let r = json_record(&a);
    let l = &r["layout"];
    for (k, x) in [
        ("dp", 2.0),
        ("tp", 2.0),
        ("pp", 4.0),
        ("ep", 2.0),
        ("cp", 2.0),
    ] {
        assert_eq!(num(l, k), x, "{k}: {r}");
    }
    assert_eq!(r["dropout"].as_bool(), Some(true));
    assert_eq!(num(&r, "contiguous"), 2.0);
    let s = &d.training.step;
    assert!(same(num(&r, "step_time_s"), s.step_time_s), "{r}");
    assert!(same(num(&r, "mfu"), s.mfu), "{r}");
    let mem = &r["memory_per_device_bytes"];
    assert!(same(num(mem, "total"), d.training.memory.total()), "{mem}");
    // The restart and checkpoint bandwidth reach the run's figures.
    let secs = r["time_to_train_s"].as_f64();
    assert!(secs.is_some_and(|x| same(x, d.run.time_to_train_s)), "{r}");
}

/// The Synthesis view off its defaults: 70B at fp8 over TP 2 at 8k (from
/// `busy_app`, the batch 8 too) asked for a first token within 500 ms,
/// which makes it a prefill.
fn synthesis_app() -> App {
    let mut a = busy_app();
    a.view_inputs.target = crate::scenario::SynthTarget::Ttft(0.5);
    a.set_view(View::Synthesis);
    a
}

#[test]
fn the_synthesis_views_command_prints_its_requirement_and_matches() {
    let a = synthesis_app();
    let Ok(ViewData::Synthesis(d)) = &a.view_data else {
        panic!("no synthesis view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    assert_eq!(c.plot, None, "the Synthesis view has no plot");
    assert_eq!(
        export::shell_line(&c.table),
        "ridgeline synth --model llama-3.1-70b --batch 8 --context 8192 --precision fp8 --tp 2 --assume compute_efficiency=0.6 --target '500ms ttft'"
    );
    let r = json_record(&a);
    assert_eq!(r["phase"].as_str(), Some("prefill"));
    assert_eq!(num(&r, "target_latency_s"), 0.5);
    let q = &d.requirement;
    assert!(same(
        num(&r, "required_flops_per_s"),
        q.required_flops_per_s
    ));
    assert!(same(
        num(&r, "required_memory_bandwidth_bytes_per_s"),
        q.required_memory_bandwidth
    ));
    assert!(same(
        num(&r, "required_memory_bytes"),
        q.required_memory_bytes
    ));
    let rows = r["matches"].as_array().unwrap();
    assert!(
        !d.matches.is_empty(),
        "some device prefills 8 x 8k of 70B in 500 ms"
    );
    assert_eq!(rows.len(), d.matches.len());
    for (m, r) in d.matches.iter().zip(rows) {
        assert_eq!(r["hardware"].as_str(), Some(m.hardware_id.as_str()));
        assert_eq!(num(r, "devices"), m.devices() as f64);
        assert!(same(num(r, "latency_s"), m.latency_s), "{r}");
        assert!(same(num(r, "tokens_per_s"), m.tokens_per_s), "{r}");
    }
}

/// The Fleet view off every default: 8B serving 500 requests/s of 4k
/// prompts within 200 ms to the first token and 40 ms between tokens,
/// disaggregated, fp8 only, at most 70% busy, 60% of the load in us-east
/// and 40% in us-west, against a budget of $5M a year.
fn fleet_app() -> App {
    use crate::solver::Precisions;
    use crate::solver::fleet::ModeChoice;
    let mut a = app();
    let v = &mut a.view_inputs;
    v.qps = 500.0;
    v.request.prompt = 4096.0;
    v.ttft_s = 0.2;
    v.itl_s = 0.04;
    v.regions = vec!["us-east".into(), "us-west".into()];
    v.shares = vec![0.6, 0.4];
    v.precisions = Precisions::parse_list("fp8").unwrap();
    v.mode = ModeChoice::Disaggregated;
    v.max_utilization = 0.7;
    v.budget = Some(5e6);
    a.set_view(View::Fleet);
    a
}

#[test]
fn the_fleet_views_command_prints_its_design() {
    let a = fleet_app();
    let Ok(ViewData::Fleet(d)) = &a.view_data else {
        panic!("no fleet view: {:?}", a.view_data)
    };
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    assert_eq!(c.plot, None, "the Fleet view has no plot");
    assert_eq!(
        export::shell_line(&c.table),
        "ridgeline fleet --model llama-3.1-8b --qps 500 --ttft 200ms --itl 40ms --prompt 4096 --region us-east,us-west --budget 5M --max-utilization 0.7 --precisions fp8 --mode disaggregated --share 0.6,0.4"
    );
    let r = json_record(&a);
    let b = d.plan.best.as_ref().expect("8B fp8 meets these SLAs");
    assert_eq!(r["hardware"].as_str(), Some(b.hardware_id.as_str()));
    assert_eq!(r["precision"].as_str(), Some("fp8"));
    assert_eq!(r["mode"].as_str(), Some("disaggregated"));
    assert_eq!(num(&r, "devices"), b.devices as f64);
    assert_eq!(num(&r, "replicas"), b.replicas as f64);
    let p = b.pools.as_ref().expect("disaggregated: two pools");
    for (k, pool) in [("prefill", &p.prefill), ("decode", &p.decode)] {
        assert_eq!(num(&r[k], "devices"), pool.devices as f64, "{k}");
        assert_eq!(num(&r[k], "replicas"), pool.replicas as f64, "{k}");
        assert_eq!(num(&r[k], "tp"), pool.layout.tp as f64, "{k}");
    }
    assert!(same(num(&r, "cost_per_year_usd"), b.cost_per_year_usd()));
    // The verdict: within the budget exactly when $5M a year covers it.
    let within = b.cost_per_year_usd() <= 5e6;
    assert_eq!(b.within_budget, Some(within));
    assert_eq!(r["within_budget"].as_bool(), Some(within));
    // Each region's own fleet, in the view's order.
    let regs = r["regions"].as_array().unwrap();
    let spread = d.regional.as_ref().unwrap();
    assert_eq!(regs.len(), 2);
    for (x, r) in spread.regions.iter().zip(regs) {
        assert_eq!(num(r, "devices"), x.devices as f64);
        assert!(same(num(r, "share"), x.share));
    }
    assert_eq!(
        r["options"].as_array().unwrap().len(),
        d.plan.per_design.len()
    );
}

#[test]
fn the_fleet_views_defaults_write_only_the_load_and_slas() {
    let mut a = app();
    a.set_view(View::Fleet);
    let c = export::commands(&a.catalog, &a.to_scenario(), None).unwrap();
    // The capstone's 1,000 requests/s, TTFT 100 ms, ITL 50 ms, which
    // `fleet` requires; the rest are its defaults.
    assert_eq!(
        export::shell_line(&c.table),
        "ridgeline fleet --model llama-3.1-8b --qps 1000 --ttft 100ms --itl 50ms"
    );
}

#[test]
fn an_over_budget_fleet_exports_its_answer() {
    let mut a = fleet_app();
    // $1 a year: no fleet is within it, so `fleet` exits 3 (a failed
    // verdict) after printing the cheapest; the export keeps that answer.
    a.view_inputs.budget = Some(1.0);
    a.recompute();
    let Ok(ViewData::Fleet(d)) = &a.view_data else {
        panic!("no fleet view: {:?}", a.view_data)
    };
    let b = d.plan.best.as_ref().unwrap();
    assert_eq!(b.within_budget, Some(false));
    let r = json_record(&a);
    assert_eq!(r["within_budget"].as_bool(), Some(false));
    assert_eq!(num(&r, "devices"), b.devices as f64);
    let base = std::env::temp_dir().join(format!("ridgeline-export-fleet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let dir = export::write(&base, &a.catalog, &a.to_scenario(), None, "Fleet").unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["command.sh", "table.csv", "table.md"]);
    let md = std::fs::read_to_string(dir.join("table.md")).unwrap();
    assert!(md.contains("OVER BUDGET"), "{md}");
    std::fs::remove_dir_all(&base).unwrap();
}
