//! Nothing that does not fit is shown as if it ran (issue 18, 1): over
//! random configurations from the catalog (device, model, batch, context,
//! TP, PP), every subcommand that prints figures of a configuration (eval,
//! sens, ops, serve, compare, sweep) in every format (table, Markdown, CSV,
//! JSON). Whenever a configuration's `fits` is false:
//! - JSON has no `latency_s`, `tokens_per_s`, `mfu` (or a serving or
//!   sensitivity figure) at its top level, only under `as_asked_does_not_fit`;
//! - text and Markdown say DOES NOT FIT first, and every figure line comes
//!   after the "on N x DEVICE" line that labels the fewest devices that
//!   hold it (none at all without that line); a comparison or sweep row
//!   that does not fit shows no time;
//! - CSV rows that carry figures are labelled as the fewest devices' rows.
//!
//! The command line runs in-process (`cli::run`), as tests/no_panic.rs does.

mod common;

use proptest::prelude::*;
use ridgeline::catalog::Catalog;
use serde_json::Value;

/// A catalog directory with nothing in it, so only the built-in catalog is read.
fn empty_catalog() -> String {
    let d = std::env::temp_dir().join("ridgeline-fit-labels-empty-catalog");
    std::fs::create_dir_all(&d).unwrap();
    d.display().to_string()
}

/// Run a command line in-process over the built-in catalog alone.
fn run(args: &[String]) -> (i32, String) {
    let mut full = vec!["--catalog".to_string(), empty_catalog()];
    full.extend(args.iter().cloned());
    common::cli::in_process(&full)
}

/// The keys of a figure of a configuration as if it ran.
const FIGURE_KEYS: &[&str] = &[
    "latency_s",
    "tokens_per_s",
    "mfu",
    "mbu",
    "ttft_s",
    "itl_s",
    "e2e_s",
    "elasticities",
    "ops",
    "totals",
];

/// A line of text or Markdown (its leading `|` and spaces removed) that
/// carries a figure of a run, for `cmd`.
fn is_figure_line(cmd: &str, line: &str) -> bool {
    let l = line.trim_start_matches(['|', ' ']);
    let starts = |words: &[&str]| words.iter().any(|w| l.starts_with(w));
    match cmd {
        "eval" => starts(&[
            "latency",
            "tokens/s",
            "samples/s",
            "images/s",
            "MFU",
            "MBU",
            "bottleneck",
            "each step",
        ]),
        "sens" => starts(&["latency ", "parameter", "binding constraint", "headroom"]),
        "ops" => starts(&["op ", "step:"]),
        "serve" => starts(&[
            "time to first token",
            "inter-token latency",
            "end-to-end request",
            "tokens/s",
        ]),
        _ => false,
    }
}

/// The line labelling the figures at the fewest devices: "on 2 x ...".
fn is_label(line: &str) -> bool {
    let w: Vec<&str> = line.split_whitespace().collect();
    w.len() > 3 && w[0] == "on" && w[1].parse::<u32>().is_ok() && w[2] == "x"
}

/// A time as `format_time` writes it ("47.7 ms", "1.2 s") in a line.
fn has_time(line: &str) -> bool {
    let w: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|s| !s.is_empty())
        .collect();
    w.windows(2)
        .any(|p| p[0].parse::<f64>().is_ok() && ["ns", "us", "ms", "s", "min"].contains(&p[1]))
}

/// Text or Markdown of a single configuration that does (`fits`) or does
/// not fit.
fn check_text(cmd: &str, text: &str, fits: bool) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.lines().collect();
    let figures: Vec<usize> = (0..lines.len())
        .filter(|&i| is_figure_line(cmd, lines[i]))
        .collect();
    if fits {
        prop_assert!(
            !figures.is_empty(),
            "{cmd}: no figures although it fits:\n{text}"
        );
        prop_assert!(!text.contains("DOES NOT FIT"), "{cmd}:\n{text}");
        return Ok(());
    }
    let verdict = lines.iter().position(|l| l.contains("DOES NOT FIT"));
    prop_assert!(verdict.is_some(), "{cmd}: no verdict:\n{text}");
    let verdict = verdict.unwrap();
    match lines.iter().position(|l| is_label(l)) {
        Some(label) => {
            prop_assert!(verdict < label, "{cmd}: label before the verdict:\n{text}");
            prop_assert!(
                figures.iter().all(|&i| i > label),
                "{cmd}: a figure before the label:\n{text}"
            );
        }
        None => prop_assert!(figures.is_empty(), "{cmd}: figures with no label:\n{text}"),
    }
    Ok(())
}

/// The cells of a CSV line; a quoted cell may hold commas.
fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// CSV of a single configuration: figures only in rows of the fewest
/// devices when it does not fit, every row "as asked" when it does.
fn check_csv(cmd: &str, csv: &str, fits: bool) -> Result<(), TestCaseError> {
    let mut lines = csv.lines();
    let head = cells(lines.next().unwrap_or_default());
    let at = |k: &str| head.iter().position(|h| h == k);
    let conf = at("configuration");
    prop_assert!(conf.is_some(), "{cmd}: no configuration column:\n{csv}");
    let conf = conf.unwrap();
    let figs: Vec<usize> = [
        "latency_s",
        "tokens_per_s",
        "mfu",
        "elasticity",
        "time_s",
        "ttft_s",
        "itl_s",
    ]
    .iter()
    .filter_map(|k| at(k))
    .collect();
    prop_assert!(!figs.is_empty(), "{cmd}: {head:?}");
    for l in lines {
        let c = cells(l);
        let which = c[conf.min(c.len() - 1)].as_str();
        if fits {
            prop_assert_eq!(which, "as asked", "{}:\n{}", cmd, csv);
        } else if which != "fewest devices that hold it" {
            prop_assert!(
                figs.iter().all(|&i| c.get(i).is_none_or(|v| v.is_empty())),
                "{cmd}: an unlabelled figure:\n{csv}"
            );
        }
    }
    Ok(())
}

/// A JSON record of one configuration.
fn check_record(what: &str, v: &Value) -> Result<(), TestCaseError> {
    if v["fits"] == Value::Bool(false) {
        for k in FIGURE_KEYS {
            prop_assert!(v.get(*k).is_none(), "{what}: top-level {k}: {v}");
        }
    }
    Ok(())
}

/// The rows of a comparison or sweep in text, Markdown and CSV: a row
/// that does not fit shows no time and no tokens/s.
fn check_rows(cmd: &str, out: &str, fmt: &str, devices: &[&str]) -> Result<(), TestCaseError> {
    if fmt == "csv" {
        let mut lines = out.lines();
        let head = cells(lines.next().unwrap_or_default());
        let at = |k: &str| head.iter().position(|h| h == k).unwrap();
        let (v, l, t) = (at("verdict"), at("latency_s"), at("tokens_per_s"));
        for line in lines {
            let c = cells(line);
            if c[v] != "fits" {
                prop_assert!(c[l].is_empty() && c[t].is_empty(), "{cmd}:\n{out}");
            }
        }
        return Ok(());
    }
    for line in out.lines() {
        // A table row starts at the margin (the lines under a comparison
        // that give the figures at the fewest devices are indented and
        // say "there").
        let row = line.trim_start_matches(['|', ' ']);
        let is_row =
            !line.starts_with(' ') && devices.iter().any(|d| row.starts_with(&format!("{d} ")));
        if is_row && (row.contains("needs") || row.contains("never fits")) {
            prop_assert!(
                !has_time(line),
                "{cmd}: a time in a row that does not fit: {line}"
            );
        }
    }
    Ok(())
}

const FORMATS: [&str; 4] = ["table", "markdown", "csv", "json"];

fn config() -> impl Strategy<Value = (usize, usize, usize, u64, u64, u32, u32)> {
    let cat = Catalog::builtin();
    let (nh, nm) = (cat.hardware.len(), cat.models.len());
    (
        0..nh,
        0..nh,
        0..nm,
        prop::sample::select(vec![1u64, 2, 8, 32, 128]),
        prop::sample::select(vec![512u64, 4096, 32768]),
        prop::sample::select(vec![1u32, 2, 4, 8]),
        prop::sample::select(vec![1u32, 2, 4]),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn nothing_that_does_not_fit_is_shown_as_if_it_ran(
        (h, h2, m, batch, context, tp, pp) in config()
    ) {
        let cat = Catalog::builtin();
        let (dev, other) = (&cat.hardware[h].hw.id, &cat.hardware[h2].hw.id);
        let model = &cat.models[m].model.id;
        let (b, c, t, p) = (batch.to_string(), context.to_string(), tp.to_string(), pp.to_string());
        // `serve` takes a request (prompt and output), not a context.
        let workload = |cmd: &str, hw: &str| -> Vec<String> {
            let context: &[&str] = if cmd == "serve" { &["--prompt", &c] } else { &["--context", &c] };
            [cmd, "-m", model, "-H", hw, "-b", &b]
                .iter()
                .chain(context)
                .chain(&["--tp", &t, "--pp", &p])
                .map(|s| s.to_string())
                .collect()
        };
        let with_format = |mut a: Vec<String>, f: &str| {
            a.extend(["-f".to_string(), f.to_string()]);
            a
        };
        // One configuration at a time: its own JSON says whether it fits.
        for cmd in ["eval", "sens", "ops", "serve"] {
            let (code, json) = run(&with_format(workload(cmd, dev), "json"));
            if code == 2 {
                // A layout the model or device cannot take: refused, no figures.
                prop_assert!(json.is_empty(), "{cmd}: {json}");
                continue;
            }
            let v: Value = serde_json::from_str(&json).unwrap();
            let fits = v["fits"].as_bool().unwrap();
            check_record(cmd, &v)?;
            if !fits {
                prop_assert!(v.get("as_asked_does_not_fit").is_some(), "{cmd}: {v}");
            }
            for f in FORMATS {
                let (code2, out) = run(&with_format(workload(cmd, dev), f));
                prop_assert_eq!(code, code2, "{} {}", cmd, f);
                match f {
                    "csv" => check_csv(cmd, &out, fits)?,
                    "json" => {}
                    _ => check_text(cmd, &out, fits)?,
                }
            }
        }
        // Rows of several configurations.
        let pair = format!("{dev},{other}");
        for (cmd, hw) in [("compare", pair.as_str()), ("sweep", dev.as_str())] {
            for f in FORMATS {
                let (code, out) = run(&with_format(workload(cmd, hw), f));
                if code == 2 {
                    continue;
                }
                if f == "json" {
                    let v: Value = serde_json::from_str(&out).unwrap();
                    for r in v.as_array().unwrap() {
                        check_record(cmd, r)?;
                    }
                } else {
                    check_rows(cmd, &out, f, &[dev.as_str(), other.as_str()])?;
                }
            }
        }
    }
}

#[test]
fn the_checks_see_figures_where_they_are() {
    // The detectors themselves: a time in a row, a label, a figure line.
    assert!(has_time("a100-sxm-80gb  fits  47.7 ms  21"));
    assert!(!has_time("a100-sxm-40gb  x needs 4  -  -  $55.2 on 4"));
    assert!(is_label(
        "on 2 x a100-sxm-80gb (TP 2), the fewest devices that hold it:"
    ));
    assert!(!is_label("on 2 devices: each step"));
    assert!(is_figure_line("eval", "| latency | 47.7 ms |"));
    assert!(!is_figure_line("eval", "memory per device  142 GB"));
    // Llama 3.1 70B on one A100 80GB (142 GB > 72 GB usable) in text: the
    // verdict, then the figures on two, labelled.
    let args: Vec<String> = ["eval", "-m", "llama-3.1-70b", "-H", "a100"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (code, text) = run(&args);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    let label = lines.iter().position(|l| is_label(l)).unwrap();
    assert!(
        lines[label].starts_with("on 2 x a100-sxm-80gb (TP 2)"),
        "{text}"
    );
    let first = lines
        .iter()
        .position(|l| is_figure_line("eval", l))
        .unwrap();
    assert_eq!(first, label + 1, "{text}");
}
