//! `ridgeline explore`: the JSON contract, the front's defining property
//! checked against every configuration (`--all`), the limits, CSV, and
//! bad input refused with the reason.

mod common;
use common::cli::{json, ridgeline};
use serde_json::Value;

const BASE: &[&str] = &[
    "explore",
    "-m",
    "llama-3.1-70b",
    "-H",
    "h100,h200,a100,mi300x",
    "--tp",
    "1..8",
    "--pp",
    "1,2",
    "--batch",
    "1..64",
    "-f",
    "json",
];

fn run(extra: &[&str]) -> Value {
    let mut args = BASE.to_vec();
    args.extend_from_slice(extra);
    json(&args)
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"))
}

#[test]
fn the_contract_holds_and_counts_add_up() {
    let x = run(&[]);
    // 4 devices x 3 precisions x TP 1, 2, 4, 8 x PP 1, 2 x batch 1..64
    // (1, 2, 4, 8, 16, 32, 64: 7) = 672.
    assert_eq!(x["evaluated"], 672);
    assert_eq!(x["objectives"], serde_json::json!(["itl", "cost"]));
    let feasible = x["feasible"].as_u64().unwrap();
    let front = x["front"].as_array().unwrap();
    assert!(!front.is_empty() && front.len() as u64 <= feasible && feasible < 672);
    for p in front {
        for k in [
            "hardware",
            "weights",
            "activations",
            "kv",
            "tp",
            "pp",
            "batch",
            "itl_s",
            "ttft_s",
            "output_tokens_per_s_per_device_with_prefill",
            "cost_per_million_tokens_usd",
            "energy_per_token_j",
            "devices",
        ] {
            assert!(!p[k].is_null(), "{k} missing in {p}");
        }
        assert_eq!(p["status"], "feasible");
        assert_eq!(num(p, "devices"), num(p, "tp") * num(p, "pp"));
    }
    // On two minimised objectives the front, ordered by ITL, gets cheaper
    // at every step (otherwise a point would dominate the next).
    for w in front.windows(2) {
        assert!(num(&w[0], "itl_s") <= num(&w[1], "itl_s"));
        assert!(
            num(&w[0], "cost_per_million_tokens_usd") > num(&w[1], "cost_per_million_tokens_usd")
        );
    }
}

#[test]
fn no_feasible_configuration_beats_a_front_point() {
    let x = run(&["--all", "--objectives", "ttft,throughput,energy"]);
    let all = x["all"].as_array().unwrap();
    assert_eq!(all.len(), 672);
    let feasible: Vec<&Value> = all.iter().filter(|p| p["status"] == "feasible").collect();
    assert_eq!(feasible.len() as u64, x["feasible"].as_u64().unwrap());
    // Minimised values: TTFT, -throughput, energy.
    let v = |p: &Value| {
        [
            num(p, "ttft_s"),
            -num(p, "output_tokens_per_s_per_device_with_prefill"),
            num(p, "energy_per_token_j"),
        ]
    };
    let dominates = |a: [f64; 3], b: [f64; 3]| {
        a.iter().zip(&b).all(|(x, y)| x <= y) && a.iter().zip(&b).any(|(x, y)| x < y)
    };
    let front: Vec<[f64; 3]> = x["front"].as_array().unwrap().iter().map(v).collect();
    for f in &front {
        assert!(!feasible.iter().any(|p| dominates(v(p), *f)));
    }
    for p in &feasible {
        assert!(front.iter().any(|f| dominates(*f, v(p)) || *f == v(p)));
    }
    // What does not fit carries no figures.
    for p in all.iter().filter(|p| p["status"] == "does not fit") {
        assert!(p["itl_s"].is_null() && p["cost_per_million_tokens_usd"].is_null());
    }
}

#[test]
fn limits_narrow_the_space() {
    let free = run(&[]);
    let tight = run(&["--ttft", "200ms", "--itl", "20ms", "--budget", "30"]);
    assert_eq!(tight["evaluated"], free["evaluated"]);
    assert!(tight["feasible"].as_u64() < free["feasible"].as_u64());
    for p in tight["front"].as_array().unwrap() {
        assert!(num(p, "ttft_s") <= 0.2 && num(p, "itl_s") <= 0.02);
        assert!(num(p, "cost_per_hour_usd") <= 30.0);
    }
}

#[test]
fn csv_has_a_row_per_front_point_and_the_table_says_what_was_evaluated() {
    let mut args = BASE.to_vec();
    args.pop();
    args.push("csv");
    let csv = String::from_utf8(ridgeline(&args).stdout).unwrap();
    let n = run(&[])["front"].as_array().unwrap().len();
    assert_eq!(csv.lines().count(), n + 1, "{csv}");
    assert!(csv.lines().next().unwrap().contains("itl_s"));
    let mut args = BASE.to_vec();
    args.pop();
    args.push("table");
    let text = String::from_utf8(ridgeline(&args).stdout).unwrap();
    assert!(text.contains("672 configurations evaluated"), "{text}");
}

#[test]
fn bad_input_exits_2_naming_the_flag() {
    for (extra, says) in [
        (&["--objectives", "speed"][..], "--objectives"),
        (&["--precision", "bf17"][..], "--precision"),
        (&["--batch", "64..1"][..], "--batch"),
        (&["--ttft", "-5ms"][..], "--ttft"),
        (&["--objectives", "itl,itl"][..], "twice"),
        (&["-m", "resnet-50"][..], "decoder"),
    ] {
        let mut args = BASE.to_vec();
        if extra[0] == "-m" {
            args.drain(1..3);
        }
        args.extend_from_slice(extra);
        let out = ridgeline(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{extra:?}: {err}");
    }
}

#[test]
fn explore_defaults_to_the_model_every_other_command_does() {
    let small = [
        "explore", "-H", "h100", "--tp", "1", "-b", "1", "-f", "json",
    ];
    let eval = json(&["eval", "-f", "json"]);
    assert_eq!(json(&small)["model"], eval["model"]);
}

#[test]
fn throughput_per_device_counts_the_prompts_prefill_as_serve_times_it() {
    // TP 8, batch 512 on H100s, 2k prompts and 256 output tokens (the
    // defaults of both commands): the 1,644 tok/s per device was
    // 512 / ITL / 8, decode alone.
    let x = json(&[
        "explore",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "-p",
        "bf16",
        "--tp",
        "8",
        "-b",
        "512",
        "--objectives",
        "throughput",
        "-f",
        "json",
    ]);
    let p = &x["front"][0];
    let s = json(&[
        "serve",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "-p",
        "bf16",
        "--tp",
        "8",
        "--batch",
        "512",
        "-f",
        "json",
    ]);
    let (ttft, itl) = (num(&s, "ttft_s"), num(&s, "itl_s"));
    assert!((num(p, "ttft_s") / ttft - 1.0).abs() < 1e-12);
    assert!((num(p, "itl_s") / itl - 1.0).abs() < 1e-12);
    // 512 requests: 512 prefills alone, then the 255 decode steps after
    // their first tokens, for 512 * 256 output tokens, over 8 devices.
    let with_prefill = 512.0 * 256.0 / (512.0 * ttft + 255.0 * itl) / 8.0;
    let got = num(p, "output_tokens_per_s_per_device_with_prefill");
    assert!(
        (got / with_prefill - 1.0).abs() < 1e-12,
        "{got} vs {with_prefill}"
    );
    // Decode alone claims more than five times as much here.
    assert!(512.0 / itl / 8.0 > 5.0 * got, "{got}");
    // The table and the CSV name what the figure counts.
    let table = String::from_utf8(
        ridgeline(&[
            "explore",
            "-m",
            "llama-3.1-70b",
            "-H",
            "h100",
            "--tp",
            "8",
            "-b",
            "512",
            "--objectives",
            "throughput",
            "--wide",
        ])
        .stdout,
    )
    .unwrap();
    assert!(table.contains("out tok/s/dev w/ prefill"), "{table}");
    let csv = String::from_utf8(
        ridgeline(&["explore", "-H", "h100", "--tp", "1", "-b", "1", "-f", "csv"]).stdout,
    )
    .unwrap();
    let head = csv.lines().next().unwrap();
    assert!(
        head.contains("output_tokens_per_s_per_device_with_prefill"),
        "{head}"
    );
}
