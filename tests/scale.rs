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

/// Pairs of published training runs of one model, device, stack and layout
/// at two device counts, the tokens per device kept (weak scaling;
/// catalog/training, each with its source and quote). Left out: Llama 3
/// 405B at 8192 and 16384 GPUs (the paper's strong-scaling pair, 43% and
/// 41% MFU), whose 16384-GPU layout the memory model puts at 81 GB per
/// device, over an H100's 80 GB, so `scale` gives it no figures; and the
/// TPU v6e recipes at 8 and 256 chips, whose batches per chip differ.
const PUBLISHED: [(&str, &str); 4] = [
    (
        "dgxc-nemo-llama3.1-8b-h100-bf16-cp2-8gpu",
        "dgxc-nemo-llama3.1-8b-h100-bf16-cp2-128gpu",
    ),
    (
        "dgxc-nemo-llama3.1-70b-h100-bf16-tp4-pp4-cp2-vp5-64gpu",
        "dgxc-nemo-llama3.1-70b-h100-bf16-tp4-pp4-cp2-vp5-2048gpu",
    ),
    (
        "dgxc-maxtext-llama2-70b-h100-bf16-fsdp64",
        "dgxc-maxtext-llama2-70b-h100-bf16-fsdp128-dp16",
    ),
    (
        "torchtitan-trainy-llama3.1-8b-h200-fsdp32-fp8-tps",
        "torchtitan-trainy-llama3.1-8b-h200-fsdp64-fp8-tps",
    ),
];

/// The published run with this id.
fn published(id: &str) -> toml::Table {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/training");
    for f in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        let t: toml::Table = toml::from_str(&text).unwrap();
        let runs = t
            .get("run")
            .and_then(|r| r.as_array())
            .cloned()
            .unwrap_or_default();
        for r in runs {
            if r.get("id").and_then(|v| v.as_str()) == Some(id) {
                return r.as_table().unwrap().clone();
            }
        }
    }
    panic!("no published run {id}");
}

fn num(r: &toml::Table, k: &str) -> f64 {
    match &r[k] {
        toml::Value::Integer(i) => *i as f64,
        toml::Value::Float(x) => *x,
        v => panic!("{k}: {v}"),
    }
}

/// Tokens/s per device as the run reports it, up to a factor common to
/// both runs of a pair: step time over the global batch per device, or
/// tokens/s per device, or MFU (the same model and sequence).
fn measured_rate(r: &toml::Table) -> f64 {
    let v = num(r, "value");
    match r["metric"].as_str().unwrap() {
        "step_time_s" => num(r, "global_batch") / num(r, "devices") / v,
        "tokens_per_s_per_device" | "mfu" => v,
        m => panic!("metric {m}"),
    }
}

#[test]
fn published_scaling_pairs_match_the_predicted_efficiency() {
    // The ratio of a pair's tokens/s per device is its weak-scaling
    // efficiency; the stack's own efficiency, common to both runs, cancels.
    // Measured, 98.3% to 99.1%; predicted within 3 points of each (the
    // model predicts 99.3% to 100.1%: a point or two optimistic).
    for (a, b) in PUBLISHED {
        let (ra, rb) = (published(a), published(b));
        let (na, nb) = (num(&ra, "devices"), num(&rb, "devices"));
        let measured = measured_rate(&rb) / measured_rate(&ra);
        let devices = format!("{na},{nb}");
        let gb = num(&ra, "global_batch");
        let per_device = gb / na;
        let batch = if num(&rb, "global_batch") == gb {
            vec!["--global-batch".to_string(), gb.to_string()]
        } else {
            assert_eq!(num(&rb, "global_batch") / nb, per_device, "{a} / {b}");
            vec!["--per-device-batch".to_string(), per_device.to_string()]
        };
        let mut args: Vec<String> = [
            "scale",
            "-m",
            ra["model"].as_str().unwrap(),
            "-H",
            ra["hardware"].as_str().unwrap(),
            "--devices",
            &devices,
            "-p",
            ra["precision"].as_str().unwrap(),
            "--recompute",
            ra["recompute"].as_str().unwrap(),
            "--attention",
            ra["attention"].as_str().unwrap(),
            "-f",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(batch);
        for (flag, key) in [
            ("--tp", "tp"),
            ("--pp", "pp"),
            ("--cp", "cp"),
            ("--ep", "ep"),
            ("--interleave", "v"),
            ("--zero", "zero"),
            ("--micro-batch", "micro_batch"),
            ("--seq", "seq"),
        ] {
            args.push(flag.into());
            args.push(num(&ra, key).to_string());
        }
        if ra.contains_key("edge_layers") {
            args.push("--edge-layers".into());
            args.push(num(&ra, "edge_layers").to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let v = json(&args);
        let p = &v["points"][1];
        assert_eq!(p["fits"], true, "{a} / {b}: {p}");
        let predicted = f(p, "efficiency");
        eprintln!("{a} -> {b}: measured {measured:.4}, predicted {predicted:.4}");
        assert!(
            (predicted - measured).abs() < 0.03,
            "{a} -> {b}: measured {measured}, predicted {predicted}"
        );
    }
}
