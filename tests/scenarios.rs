//! The shipped scenarios open, name only catalog entries, and answer their questions.

use ridgeline::catalog::Catalog;
use ridgeline::scenario::{Scenario, SynthTarget};
use ridgeline::solver::{self, Assumptions, Workload, fleet};
use std::path::Path;

fn all() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                Scenario::load_with(&p, &Catalog::builtin()).unwrap(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[test]
fn every_scenario_loads_and_names_catalog_entries() {
    let cat = Catalog::builtin();
    let list = all();
    assert!(list.len() >= 6);
    for (name, s) in &list {
        assert!(s.title.is_some(), "{name}");
        if let Some(m) = &s.model {
            assert!(cat.model(m).is_ok(), "{name}: model {m}");
        }
        for h in s.hardware.iter().chain(&s.compare) {
            assert!(cat.hardware(h).is_ok(), "{name}: hardware {h}");
        }
        for r in &s.fleet.regions {
            assert!(cat.region(r).is_ok(), "{name}: region {r}");
        }
        let wl = s.workload(&Workload::default()).unwrap();
        let (_, base) = s.profile(&cat).unwrap();
        let a = s.assumptions(&base).unwrap();
        // Every device named evaluates the scenario's model without an error.
        if let Some(m) = &s.model {
            for h in s.hardware.iter().chain(&s.compare) {
                let e = solver::evaluate(
                    &cat.hardware(h).unwrap().hw,
                    &cat.model(m).unwrap().model,
                    &wl,
                    &a,
                );
                assert!(e.is_ok(), "{name}: {h}: {e:?}");
            }
        }
    }
}

#[test]
fn the_70b_scenario_does_not_fit_one_a100() {
    let (_, s) = all()
        .into_iter()
        .find(|(n, _)| n.starts_with("70b-on-a100"))
        .unwrap();
    let cat = Catalog::builtin();
    let e = solver::evaluate(
        &cat.hardware(s.hardware.as_deref().unwrap()).unwrap().hw,
        &cat.model(s.model.as_deref().unwrap()).unwrap().model,
        &s.workload(&Workload::default()).unwrap(),
        &Assumptions::default(),
    )
    .unwrap();
    assert!(!e.memory.fits);
    assert_eq!(e.min_devices.unwrap().devices(), 2);
}

#[test]
fn the_synthesis_scenario_targets_50ms() {
    let (_, s) = all()
        .into_iter()
        .find(|(n, _)| n.starts_with("inverse-roofline"))
        .unwrap();
    let t = SynthTarget::parse(s.synthesis.target.as_deref().unwrap()).unwrap();
    assert_eq!(t, SynthTarget::Itl(0.05));
}

#[test]
fn the_capstone_answers_device_count_parallelism_cost_carbon_and_budget() {
    let (_, s) = all()
        .into_iter()
        .find(|(n, _)| n.starts_with("capstone"))
        .unwrap();
    let cat = Catalog::builtin();
    let f = s.fleet_inputs().unwrap();
    assert_eq!(f.regions.len(), 2);
    let spec = fleet::FleetSpec {
        qps: f.qps,
        request: s.request().unwrap(),
        ttft_sla_s: f.ttft_s,
        itl_sla_s: f.itl_s,
        budget_usd_per_year: f.budget_usd_per_year,
        max_utilization: f.max_utilization,
    };
    let model = &cat.model(s.model.as_deref().unwrap()).unwrap().model;
    let plan = fleet::size_fleet(
        &cat.devices(),
        model,
        &s.workload(&Workload::default()).unwrap(),
        &spec,
        &Assumptions::default(),
        0.3,
    )
    .unwrap();
    let best = plan.best.expect("some catalog device serves the capstone");
    assert!(best.ttft_s <= 0.1 && best.itl_s <= 0.05);
    assert!(best.replicas >= 1 && best.devices >= best.replicas);
    assert!(best.within_budget.is_some());
}

#[test]
fn scenario_token_counts_read_k_as_1024() {
    // As on the command line and in the knobs: "8k" = 8 x 1024 = 8192
    // tokens, "2k" = 2048; a plain number is still a number.
    let s = Scenario::parse(
        "t.toml",
        "[workload]\ncontext = \"8k\"\n[serving]\nprompt = \"2k\"\noutput = 256\n",
    )
    .unwrap();
    let wl = s.workload(&ridgeline::solver::Workload::default()).unwrap();
    assert_eq!(wl.context, 8192.0);
    let r = s.request().unwrap();
    assert_eq!((r.prompt, r.output), (2048.0, 256.0));
    let e = Scenario::parse("t.toml", "[workload]\ncontext = \"lots\"\n").unwrap_err();
    assert!(e.to_string().contains("t.toml:2:"), "{e}");
}

/// `ridgeline --scenario FILE` with stdin and stdout not a terminal: the
/// status, stderr and stdout.
fn open_bin(file: &Path) -> (Option<i32>, String, Vec<u8>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .arg("--scenario")
        .arg(file)
        .env(
            "RIDGELINE_CONFIG_DIR",
            std::env::temp_dir().join("ridgeline-no-config"),
        )
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.stdout,
    )
}

#[test]
fn a_scenario_that_cannot_be_opened_exits_2_before_the_terminal_is_touched() {
    // The first version opened the workbench on defaults with a note in the
    // status line (and, without a terminal, failed with status 1).
    let dir = std::env::temp_dir().join(format!("ridgeline-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "view = \"fleet\"\nhardware = \"h999\"\n[fleet]\nqps = -3\n",
    )
    .unwrap();
    let missing = dir.join("missing.toml");
    for (file, want) in [
        (&bad, vec!["bad.toml:2:1", "h999", "bad.toml:4:1", "qps"]),
        (&missing, vec!["missing.toml", "cannot read"]),
        (&dir, vec!["not a regular file"]),
    ] {
        let (code, err, out) = open_bin(file);
        assert_eq!(code, Some(2), "{}: {err}", file.display());
        for w in want {
            assert!(err.contains(w), "{w}: {err}");
        }
        assert!(
            out.is_empty(),
            "nothing on stdout: {:?}",
            String::from_utf8_lossy(&out)
        );
        assert!(!err.contains('\x1b'), "no escape codes: {err:?}");
    }
    // Every problem on its own line, in file order.
    let (_, err, _) = open_bin(&bad);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("bad.toml:")).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].contains(":2:1") && lines[1].contains(":4:1"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_model_path_that_cannot_be_imported_is_a_problem_at_its_line_and_column() {
    let dir = std::env::temp_dir().join(format!("ridgeline-model-at-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("empty-model")).unwrap();
    // `model` on line 3, after two spaces: column 3.
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        "view = \"roofline\"\n\n  model = \"./empty-model\"\n",
    )
    .unwrap();
    let (code, err, _) = open_bin(&file);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.toml:3:3: model: ") && err.contains("has no config.json"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_scenario_path_with_escapes_and_bidi_controls_is_shown_escaped() {
    let dir = std::env::temp_dir().join(format!("ridgeline-esc-name-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // An OSC title, a clear-screen and a right-to-left override in the name.
    let file = dir.join("a\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}b.toml");
    std::fs::write(&file, "[fleet]\nqps = -3\n").unwrap();
    let (code, err, _) = open_bin(&file);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("a\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{202e}b.toml:2:1"),
        "{err}"
    );
    assert!(!err.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{err:?}");
    std::fs::remove_dir_all(&dir).ok();
}
