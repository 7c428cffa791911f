//! `ridgeline scale` as a user runs it: the JSON contract of issue 23,
//! each point the same figures `train` gives for its layout, a point that
//! does not run with no figures, weak scaling's growing batch, and the
//! refusals (exit 2 with the reason).

mod common;

use common::cli::{json, ridgeline};
use serde_json::Value;

/// Llama 3.1 70B, TP 8 pinned, ZeRO 1, no DP overlap, 16M tokens a step.
const PINNED: &[&str] = &[
    "scale",
    "-m",
    "llama-3.1-70b",
    "-H",
    "h100",
    "--devices",
    "64..8192",
    "--tp",
    "8",
    "--zero",
    "1",
    "--dp-overlap",
    "0",
    "--global-batch",
    "16M",
    "-f",
    "json",
];

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("{k} missing or not a number in {v}"))
}

#[test]
fn the_json_contract_has_every_point_and_the_knee() {
    let v = json(PINNED);
    assert_eq!(v["scaling"], "strong");
    let points = v["points"].as_array().unwrap();
    // 64 and its doublings up to 8192: 64, 128, ..., 8192.
    let counts: Vec<u64> = points
        .iter()
        .map(|p| p["devices"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [64, 128, 256, 512, 1024, 2048, 4096, 8192]);
    for p in points {
        for k in [
            "devices",
            "layout",
            "step_time_s",
            "tokens_per_s",
            "tokens_per_s_per_device",
            "mfu",
            "efficiency",
            "binding",
            "exposed",
            "fits",
        ] {
            assert!(p.get(k).is_some(), "{k} missing from {p}");
        }
        // dp is what the count leaves over TP 8.
        let n = f(p, "devices");
        assert_eq!(p["layout"]["dp"].as_f64().unwrap() * 8.0, n);
        assert_eq!(p["layout"]["tp"], 8);
        // Per device is the whole over the devices.
        let per = f(p, "tokens_per_s") / n;
        assert!((f(p, "tokens_per_s_per_device") / per - 1.0).abs() < 1e-12);
        for k in ["dp", "tp", "pp", "ep", "cp", "bubble"] {
            let share = p["exposed"][k].as_f64().unwrap();
            assert!((0.0..1.0).contains(&share), "{k}: {share}");
        }
    }
    // The ideal line starts at the first point; efficiency is tokens/s over
    // it, and with the gradients exposed it only falls.
    assert_eq!(f(&points[0], "efficiency"), 1.0);
    let base = f(&points[0], "tokens_per_s_per_device");
    for w in points.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let ideal = base * f(b, "devices");
        assert!((f(b, "efficiency") - f(b, "tokens_per_s") / ideal).abs() < 1e-12);
        assert!(f(b, "efficiency") < f(a, "efficiency"));
    }
    // The knee is the first point below 80%, named with its reason.
    let knee = v["knee"]["devices"].as_u64().unwrap();
    let first_below = points
        .iter()
        .find(|p| f(p, "efficiency") < 0.8)
        .map(|p| p["devices"].as_u64().unwrap());
    assert_eq!(Some(knee), first_below);
    let reason = v["knee"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("DP gradient"), "{reason}");
}

#[test]
fn each_point_is_what_train_says_of_its_layout() {
    // The command line's two faces of one answer: `train --devices 1024`
    // with the same flags gives the 1024 point's step and MFU.
    let v = json(PINNED);
    let p = v["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["devices"] == 1024)
        .unwrap()
        .clone();
    let t = json(&[
        "train",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "--devices",
        "1024",
        "--tp",
        "8",
        "--zero",
        "1",
        "--dp-overlap",
        "0",
        "--global-batch",
        "16M",
        "-f",
        "json",
    ]);
    for k in ["step_time_s", "tokens_per_s", "mfu", "binding"] {
        assert_eq!(p[k], t[k], "{k}");
    }
    assert_eq!(p["layout"], t["layout"]);
}

#[test]
fn a_point_that_does_not_fit_says_so_and_has_no_figures() {
    // Llama 3.1 8B with ZeRO 0 keeps 16 bytes per parameter, 128 GB, on
    // every device: more than an H100 holds at any count.
    let v = json(&[
        "scale",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "--devices",
        "8,16",
        "--zero",
        "0",
        "-f",
        "json",
    ]);
    for p in v["points"].as_array().unwrap() {
        assert_eq!(p["fits"], false);
        assert!(p["reason"].as_str().unwrap().starts_with("does not fit"));
        assert!(p["step_time_s"].is_null() && p["efficiency"].is_null());
    }
    assert!(v["knee"].is_null());
    let out = ridgeline(&[
        "scale",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "--devices",
        "8,16",
        "--zero",
        "0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("none fits"), "{text}");
    assert!(text.contains("8 devices: does not fit"), "{text}");
}

#[test]
fn weak_scaling_grows_the_batch_with_the_devices() {
    // 64k tokens per device: 8 devices run 512k tokens a step, 64 run 4M;
    // tokens per device stay at 65536 wherever the layout rounds nothing.
    let v = json(&[
        "scale",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "--devices",
        "8..64",
        "--per-device-batch",
        "64k",
        "--zero",
        "3",
        "-f",
        "json",
    ]);
    assert_eq!(v["scaling"], "weak");
    assert_eq!(f(&v, "tokens_per_device"), 65536.0);
    for p in v["points"].as_array().unwrap() {
        assert_eq!(f(p, "tokens_per_device"), 65536.0);
    }
}

#[test]
fn csv_has_a_row_per_count_and_marks_the_knee() {
    let knee = json(PINNED)["knee"]["devices"]
        .as_u64()
        .unwrap()
        .to_string();
    let mut args: Vec<&str> = PINNED.to_vec();
    let n = args.len();
    args[n - 1] = "csv";
    let out = ridgeline(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let at = |name: &str| lines[0].iter().position(|h| *h == name).unwrap();
    let (devices, fits, marked) = (at("devices"), at("fits"), at("knee"));
    assert_eq!(lines.len(), 1 + 8);
    assert!(lines[1..].iter().all(|r| r[fits] == "true"));
    let marks: Vec<&str> = lines[1..]
        .iter()
        .filter(|r| r[marked] == "true")
        .map(|r| r[devices])
        .collect();
    assert_eq!(marks, [knee.as_str()]);
}

#[test]
fn bad_counts_and_conflicting_batches_exit_2_with_the_fix() {
    for (args, says) in [
        (vec!["--devices", "64..8"], "smaller first"),
        (vec!["--devices", "8,8"], "rising"),
        (vec!["--devices", "0..8"], "device count from 1"),
        (vec!["--devices", "8..x"], "8..16384"),
        (vec!["--devices", "1..1000000"], "device count from 1"),
        (
            vec!["--global-batch", "4M", "--per-device-batch", "8k"],
            "cannot be used with",
        ),
        (vec!["--knee", "1.5"], "at most 1"),
        (vec!["--dp", "8"], "dp is what each device count leaves"),
    ] {
        let mut all = vec!["scale"];
        all.extend(args.iter());
        let out = ridgeline(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(says), "{all:?}: {err}");
    }
}

#[test]
fn a_decode_replica_point_is_what_eval_says_of_its_split() {
    // --phase decode splits one replica over TP x PP: each point's
    // latency and tokens/s are `eval`'s at that split, batch and context.
    let v = json(&[
        "scale",
        "--phase",
        "decode",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "--devices",
        "1..16",
        "--batch",
        "64",
        "-f",
        "json",
    ]);
    assert_eq!(v["scaling"], "decode");
    let points = v["points"].as_array().unwrap();
    // 70B in bf16 is 141 GB of weights: one H100 cannot hold it.
    assert_eq!(points[0]["fits"], false);
    assert!(points[0]["step_time_s"].is_null());
    let mut ran = 0;
    for p in points.iter().filter(|p| p["fits"] == true) {
        let (tp, pp) = (
            p["layout"]["tp"].as_u64().unwrap(),
            p["layout"]["pp"].as_u64().unwrap(),
        );
        assert_eq!(tp * pp, p["devices"].as_u64().unwrap());
        let (tp, pp) = (tp.to_string(), pp.to_string());
        let e = json(&[
            "eval",
            "-m",
            "llama-3.1-70b",
            "-H",
            "h100",
            "--batch",
            "64",
            "--tp",
            &tp,
            "--pp",
            &pp,
            "-f",
            "json",
        ]);
        assert_eq!(p["step_time_s"], e["latency_s"]);
        assert_eq!(p["tokens_per_s"], e["tokens_per_s"]);
        ran += 1;
    }
    assert!(ran >= 2);
}

#[test]
fn a_replica_refuses_training_flags_and_batch_needs_a_phase() {
    for (args, says) in [
        (
            vec!["--phase", "decode", "--zero", "1"],
            "--zero is a training flag",
        ),
        (
            vec!["--phase", "prefill", "--tp", "8"],
            "--tp is a training flag",
        ),
        (vec!["--batch", "8"], "--phase"),
    ] {
        let mut all = vec!["scale"];
        all.extend(args.iter());
        let out = ridgeline(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(says), "{all:?}: {err}");
    }
}
