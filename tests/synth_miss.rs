//! `ridgeline synth` when no catalog device meets the target: it names the
//! layout that comes closest and how far each requirement is missed, in
//! the text, the JSON and the verdict.

mod common;

use common::cli::{json, ridgeline};
use serde_json::Value;

const MISS: [&str; 7] = [
    "synth",
    "-m",
    "llama-3.1-70b",
    "--target",
    "8ms",
    "-H",
    "a100,h100,h200",
];

fn run(extra: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<&str> = MISS.iter().chain(extra).copied().collect();
    let o = ridgeline(&args);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"))
}

#[test]
fn nothing_meets_8ms_and_the_nearest_is_named_with_its_shortfalls() {
    let (code, out, _) = run(&["-f", "json"]);
    assert_eq!(code, Some(3));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["matches"].as_array().unwrap().len(), 0);
    let n = &v["nearest_miss"];
    // The most bandwidth of the three, on the most devices a node holds.
    assert_eq!(n["hardware"], "h200-sxm", "{n}");
    assert_eq!((n["tp"].as_u64(), n["pp"].as_u64()), (Some(8), Some(1)));
    assert_eq!(num(n, "limit_s"), 0.008);
    assert!((num(n, "over") - (num(n, "latency_s") / 0.008 - 1.0)).abs() < 1e-12);
    assert!(num(n, "over") > 0.0);
    let shortfalls = n["shortfalls"].as_array().unwrap();
    let keys: Vec<&str> = shortfalls
        .iter()
        .map(|s| s["resource"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "peak_flops",
            "memory_bandwidth",
            "memory_capacity",
            "link_bandwidth"
        ]
    );
    for s in shortfalls {
        let (need, has) = (num(s, "required"), num(s, "has"));
        let short = if has >= need { 0.0 } else { 1.0 - has / need };
        assert!((num(s, "short") - short).abs() < 1e-12, "{s}");
    }
    // A decode step at batch 1 binds on memory bandwidth: that is what
    // falls short, and the H200's 4.8 TB/s is what it has.
    let bw = &shortfalls[1];
    assert!(num(bw, "short") > 0.0);
    assert_eq!(num(bw, "has"), 4.8e12);
    // It fits: memory is not what it lacks.
    assert_eq!(num(&shortfalls[2], "short"), 0.0);
}

#[test]
fn the_text_and_the_verdict_say_it_in_words() {
    let (code, out, err) = run(&[]);
    assert_eq!(code, Some(3));
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("nothing meets 8ms itl; nearest: 8 x h200-sxm (TP 8) at "),
        "{out}"
    );
    assert!(flat.contains("memory bandwidth "), "{out}");
    assert!(flat.contains("% short (needs "), "{out}");
    assert!(flat.contains("has 4.8 TB/s"), "{out}");
    assert!(flat.contains("enough"), "{out}");
    // No empty table of matches under it.
    assert!(!out.contains("hardware  devices"), "{out}");
    assert!(
        err.contains("no catalog device meets 8ms itl and fits; nearest: 8 x h200-sxm (TP 8)"),
        "{err}"
    );
}

#[test]
fn a_target_that_is_met_has_no_nearest_miss() {
    let v = json(&[
        "synth",
        "-m",
        "llama-3.1-70b",
        "--target",
        "50ms",
        "-H",
        "h200",
        "-f",
        "json",
    ]);
    assert!(!v["matches"].as_array().unwrap().is_empty());
    assert!(v["nearest_miss"].is_null());
}

#[test]
fn fixed_costs_over_the_target_are_said_at_the_nearest_layout() {
    // 1 ms is less than the fixed per-step costs of Llama-3.1-8B (kernels
    // and overhead alone take about 2 ms): no bandwidth can meet it.
    let o = ridgeline(&["synth", "--target", "1ms", "-H", "h100", "-f", "json"]);
    assert_eq!(o.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = &v["nearest_miss"];
    assert_eq!(n["feasible_at_layout"], false, "{n}");
    assert!(
        n["reason"]
            .as_str()
            .unwrap()
            .contains("fixed per-step costs"),
        "{n}"
    );
}

#[test]
fn the_readme_quotes_the_nearest_miss_as_the_program_prints_it() {
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let readme = flat(include_str!("../docs/commands/synth.md"));
    let (_, out, _) = run(&[]);
    let out = flat(&out);
    let start = out.find("nothing meets 8ms itl").expect("the miss line");
    let line = &out[start..];
    let quoted = format!("(\"{line}\")");
    assert!(
        readme.contains(&quoted),
        "docs/commands/synth.md should quote {quoted}"
    );
}
