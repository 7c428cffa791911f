//! The command line as a user runs it: the binary, its exit codes, its JSON.

mod common;

use common::cli::{json, ridgeline};
use serde_json::{Value, json};
use std::process::{Command, Output};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn eval_70b_on_one_a100_says_it_needs_two_then_tp2_gives_a_latency() {
    let out = ridgeline(&[
        "eval",
        "--model",
        "llama-3.1-70b",
        "--hardware",
        "a100",
        "--precision",
        "bf16",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DOES NOT FIT"), "{text}");
    assert!(text.contains("needs 2 devices: try --tp 2"), "{text}");

    let v = json(&[
        "eval",
        "--model",
        "llama-3.1-70b",
        "--hardware",
        "a100",
        "--precision",
        "bf16",
        "--format",
        "json",
    ]);
    assert_eq!(v["fits"], false);
    assert_eq!(v["min_devices_to_fit"], 2);
    assert_eq!(v["max_batch"], 0);
    // 70.55e9 params * 2 bytes on one device.
    assert_eq!(v["weights_bytes"], 141.1e9);

    let v = json(&[
        "eval",
        "--model",
        "llama-3.1-70b",
        "--hardware",
        "a100",
        "--precision",
        "bf16",
        "--tp",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(v["fits"], true);
    let l = v["latency_s"].as_f64().unwrap();
    // Per rank ~70.2 GB at 2.039 TB/s * 0.7 = 49.2 ms, plus all-reduces and overhead.
    assert!((0.045..0.055).contains(&l), "{l}");
}

#[test]
fn eval_sens_and_ops_give_the_verdict_then_the_figures_on_two_which_are_tp2s() {
    // Llama 3.1 70B bf16 on one A100 80GB: 141.1 GB of weights > 72 GB
    // usable, so it needs 2 (TP 2). The figures each command shows are
    // those of asking for TP 2 outright.
    let asked = ["-m", "llama-3.1-70b", "-H", "a100", "-f", "json"];
    let tp2 = [&asked[..], &["--tp", "2"]].concat();
    let e = json(&[&["eval"], &asked[..]].concat());
    let e2 = json(&[&["eval"], &tp2[..]].concat());
    assert_eq!(e["fits"], false);
    assert_eq!(e["verdict"], "needs_more_devices");
    assert!(
        e.get("latency_s").is_none() && e.get("mfu").is_none(),
        "{e}"
    );
    let at = &e["at_min_devices_to_fit"];
    assert_eq!(
        (at["tp"].as_u64(), at["devices"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(at["latency_s"], e2["latency_s"]);
    assert_eq!(at["tokens_per_s"], e2["tokens_per_s"]);
    // The figures as asked are kept, under a key that says they do not fit.
    let aside = e["as_asked_does_not_fit"]["latency_s"].as_f64().unwrap();
    assert!(aside > e2["latency_s"].as_f64().unwrap());

    let s = json(&[&["sens"], &asked[..]].concat());
    let s2 = json(&[&["sens"], &tp2[..]].concat());
    assert!(s.get("elasticities").is_none(), "{s}");
    assert_eq!(
        s["at_min_devices_to_fit"]["elasticities"],
        s2["elasticities"]
    );
    let o = json(&[&["ops"], &asked[..]].concat());
    let o2 = json(&[&["ops"], &tp2[..]].concat());
    assert!(o.get("ops").is_none(), "{o}");
    assert_eq!(o["at_min_devices_to_fit"]["totals"], o2["totals"]);

    // In text, the verdict comes first and the step time only after the
    // line that says where it runs.
    for cmd in ["eval", "sens", "ops"] {
        let out = ridgeline(&[cmd, "-m", "llama-3.1-70b", "-H", "a100"]);
        let t = String::from_utf8_lossy(&out.stdout);
        let verdict = t.find("DOES NOT FIT").unwrap();
        let label = t
            .find("on 2 x a100-sxm-80gb (TP 2), the fewest devices that hold it:")
            .unwrap_or_else(|| panic!("{cmd}: {t}"));
        let step = ridgeline::solver::units::format_time(e2["latency_s"].as_f64().unwrap());
        let first = t
            .find(&step)
            .unwrap_or_else(|| panic!("{cmd}: {step} in {t}"));
        assert!(verdict < label && label < first, "{cmd}: {t}");
        let as_asked = ridgeline::solver::units::format_time(aside);
        assert!(!t.contains(&as_asked), "{cmd}: {as_asked} in {t}");
    }
    // --require-fit still refuses it (exit 3), after the same output.
    let out = ridgeline(&["eval", "-m", "llama-3.1-70b", "-H", "a100", "--require-fit"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("on 2 x a100-sxm-80gb"));
}

#[test]
fn eval_json_has_every_contract_key() {
    let v = json(&["eval", "-m", "llama-3.1-8b", "-H", "h100", "-f", "json"]);
    for k in [
        "latency_s",
        "compute_s",
        "memory_s",
        "comm_s",
        "overhead_s",
        "tokens_per_s",
        "bottleneck",
        "arithmetic_intensity",
        "ridge_point",
        "fits",
        "memory_required_bytes",
        "memory_capacity_bytes",
        "min_devices_to_fit",
        "max_batch",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    // T = max(compute, memory) + comm + overhead with overlap 1.
    let t = v["compute_s"]
        .as_f64()
        .unwrap()
        .max(v["memory_s"].as_f64().unwrap())
        + v["comm_s"].as_f64().unwrap()
        + v["overhead_s"].as_f64().unwrap();
    assert!((t - v["latency_s"].as_f64().unwrap()).abs() < 1e-15);
    assert_eq!(v["bottleneck"], "memory");
}

#[test]
fn sens_names_bandwidth_binding_for_8b_on_a100() {
    // The plain roofline: memory is the whole step but the 10 us overhead.
    let v = json(&[
        "sens",
        "--model",
        "llama-3.1-8b",
        "--hardware",
        "a100",
        "--profile",
        "roofline",
        "--format",
        "json",
    ]);
    assert_eq!(v["binding"], "memory_bandwidth");
    let e = &v["elasticities"];
    assert!(
        (e["memory_bandwidth"].as_f64().unwrap() + 1.0).abs() < 0.01,
        "{e}"
    );
    assert!(e["peak_flops"].as_f64().unwrap().abs() < 0.01, "{e}");
    for k in [
        "peak_flops",
        "memory_bandwidth",
        "link_bandwidth",
        "compute_efficiency",
        "memory_efficiency",
        "batch",
        "context",
    ] {
        assert!(
            e.get(k).is_some() && v["finite_change"].get(k).is_some(),
            "{k}"
        );
    }
    assert_eq!(v["headroom"]["resource"], "peak_flops");
    assert!(v["latency_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn synth_asks_for_about_2_8_tb_s() {
    let v = json(&[
        "synth",
        "--model",
        "llama-3.1-70b",
        "--precision",
        "bf16",
        "--target",
        "50ms",
        "--profile",
        "roofline",
        "--compute-eff",
        "1",
        "--memory-eff",
        "1",
        "--overhead",
        "0",
        "--format",
        "json",
    ]);
    // 140.36 GB per step / 50 ms = 2.807 TB/s (see the solver's by-hand test).
    let bw = v["required_memory_bandwidth_bytes_per_s"].as_f64().unwrap();
    assert!((bw / 2.807e12 - 1.0).abs() < 0.001, "{bw}");
    assert_eq!(v["feasible"], true);
    let m = v["matches"].as_array().unwrap();
    assert!(!m.is_empty());
    for x in m {
        assert!(x["latency_s"].as_f64().unwrap() <= 0.05);
        for k in ["hardware", "devices", "latency_s", "cost_per_hour_usd"] {
            assert!(x.get(k).is_some(), "{k}");
        }
    }
    // Cheapest first: priced matches are in non-decreasing cost order.
    let costs: Vec<f64> = m
        .iter()
        .filter_map(|x| x["cost_per_hour_usd"].as_f64())
        .collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn synth_infeasible_exits_3_with_the_reason() {
    let out = ridgeline(&["synth", "--model", "llama-3.1-8b", "--target", "5us"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("overhead"), "{}", stderr(&out));
}

#[test]
fn require_fit_exits_3_when_it_does_not_fit() {
    let out = ridgeline(&[
        "eval",
        "-m",
        "llama-3.1-405b",
        "-H",
        "h100",
        "--require-fit",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let out = ridgeline(&["eval", "-m", "llama-3.1-8b", "-H", "h100", "--require-fit"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn compare_and_sweep_list_eval_objects() {
    let v = json(&["compare", "--hardware", "a100,h100,h200", "-f", "json"]);
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 3);
    let ids: Vec<&str> = a.iter().map(|x| x["hardware"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a100-sxm-80gb", "h100-sxm", "h200-sxm"]);
    // Memory-bound decode: more bandwidth, lower latency (2.04 -> 3.35 -> 4.8 TB/s).
    let l: Vec<f64> = a.iter().map(|x| x["latency_s"].as_f64().unwrap()).collect();
    assert!(l[0] > l[1] && l[1] > l[2], "{l:?}");

    // Powers of two from 1 to 512 (10 batches) and the largest batch that
    // fits (104 for Llama-3.1-8B on an H100 at context 4096), marked.
    let v = json(&["sweep", "--batch", "1..512", "-H", "h100", "-f", "json"]);
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 11);
    assert_eq!(a[10]["batch"], 512.0);
    // A batch that fits has its latency at the top level; one that does not
    // keeps it only under `as_asked_does_not_fit` (104 fits, 128 does not).
    assert!(a.iter().all(|x| {
        let fits = x["fits"].as_bool().unwrap();
        x.get("hardware").is_some()
            && x.get("latency_s").is_some() == fits
            && x["as_asked_does_not_fit"].get("latency_s").is_some() != fits
    }));
    assert_eq!(a.iter().filter(|x| x["fits"] == false).count(), 3);

    let v = json(&[
        "sweep",
        "--batch",
        "1..4",
        "--hardware",
        "all",
        "-m",
        "resnet-50",
        "-f",
        "json",
    ]);
    assert!(v.as_array().unwrap().len() >= 30 * 3);
}

#[test]
fn csv_and_markdown_render() {
    let out = ridgeline(&["compare", "-H", "a100,h100", "-f", "csv"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("hardware,batch,latency_s")
    );
    assert_eq!(lines.count(), 2);
    let out = ridgeline(&["eval", "-f", "markdown"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("| latency |"));
}

#[test]
fn zoo_lists_the_catalog() {
    let v = json(&["zoo", "hardware", "-f", "json"]);
    assert!(v.as_array().unwrap().len() >= 30);
    // Each device says its memory and the class it falls in; only a
    // GeForce card has an FP16-accumulate rate of its own.
    let dev = |id: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == id)
            .unwrap()
            .clone()
    };
    let rtx = dev("rtx-4090");
    assert_eq!(
        (&rtx["memory_type"], &rtx["device_class"]),
        (&json!("GDDR6X"), &json!("gddr"))
    );
    assert_eq!(rtx["peak_fp16_with_fp16_accumulate_flops_per_s"], 330.3e12);
    let a100 = dev("a100-sxm-80gb");
    assert_eq!(a100["device_class"], "hbm");
    assert!(a100["peak_fp16_with_fp16_accumulate_flops_per_s"].is_null());
    assert!(dev("tpu-v5e")["device_class"].is_null());
    let v = json(&["zoo", "models", "-f", "json"]);
    assert!(v.as_array().unwrap().len() >= 25);
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|m| m["source"].as_str().is_some_and(|s| !s.is_empty()))
    );
    let v = json(&["zoo", "regions", "-f", "json"]);
    assert!(v.as_array().unwrap().len() >= 8);
}

#[test]
fn bad_flags_exit_2_with_a_message_naming_the_flag() {
    for (args, needle) in [
        (vec!["eval", "--batch", "0"], "--batch"),
        (vec!["eval", "--batch", "-4"], "--batch"),
        (vec!["eval", "--batch", "NaN"], "--batch"),
        (vec!["eval", "--batch", "1e30"], "--batch"),
        (vec!["eval", "--context", "lots"], "--context"),
        (vec!["eval", "--compute-eff", "1.5"], "--compute-eff"),
        (vec!["eval", "--memory-eff", "0"], "--memory-eff"),
        (vec!["eval", "--overhead", "-1ms"], "--overhead"),
        (vec!["eval", "--precision", "fp12"], "--precision"),
        (vec!["eval", "--tp", "0"], "--tp"),
        (vec!["eval", "--hardware", "h10"], "--hardware"),
        (vec!["eval", "--model", "lama-3.1-70b"], "--model"),
        (vec!["synth", "--target", "0ms"], "--target"),
        (vec!["eval", "--batch", "1..8"], "--batch"),
        (vec!["sens", "--perturb", "-10%"], "--perturb"),
    ] {
        let out = ridgeline(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains(needle), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{args:?}: {e}");
    }
    // An unknown id names the closest ones.
    let e = stderr(&ridgeline(&["eval", "--model", "lama-3.1-70b"]));
    assert!(e.contains("llama-3.1-70b"), "{e}");
}

#[test]
fn a_broken_user_catalog_warns_with_position_and_the_rest_works() {
    let dir = std::env::temp_dir().join(format!("ridgeline-cli-cat-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("catalog/hardware")).unwrap();
    std::fs::write(
        dir.join("catalog/hardware/bad.toml"),
        "[[device]]\nid = \"x\"\nname = \n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(["eval", "-H", "h100", "-f", "json"])
        .env("RIDGELINE_CONFIG_DIR", &dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let e = stderr(&out);
    assert!(e.contains("bad.toml:3:8"), "{e}");
    let check = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(["catalog", "check", dir.join("catalog").to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(check.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&check.stdout).contains("bad.toml:3:8"));
    let ok = ridgeline(&["catalog", "check"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
}

#[test]
fn serve_reports_serving_figures() {
    let v = json(&[
        "serve",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "--batch",
        "16",
        "--prompt",
        "2k",
        "--output",
        "256",
        "-f",
        "json",
    ]);
    for k in [
        "ttft_s",
        "itl_s",
        "e2e_s",
        "kv_bytes_per_token",
        "max_concurrent",
        "cost_per_hour_usd",
        "cost_per_million_tokens_usd",
        "energy_per_token_j",
        "co2_per_million_tokens_g",
    ] {
        assert!(v.get(k).is_some_and(|x| !x.is_null()), "{k}: {v}");
    }
    // e2e = TTFT + (256 - 1) * ITL.
    let e2e = v["ttft_s"].as_f64().unwrap() + 255.0 * v["itl_s"].as_f64().unwrap();
    assert!((v["e2e_s"].as_f64().unwrap() / e2e - 1.0).abs() < 1e-12);
    // Llama-3.1-8B bf16 KV: 131,072 B per token (shared/reference/models.md).
    assert_eq!(v["kv_bytes_per_token"], 131072.0);
    // $ per million tokens = $/hour / (tokens/s * 3600) * 1e6.
    let c = v["cost_per_hour_usd"].as_f64().unwrap()
        / (v["tokens_per_s"].as_f64().unwrap() * 3600.0)
        * 1e6;
    assert!((v["cost_per_million_tokens_usd"].as_f64().unwrap() / c - 1.0).abs() < 1e-12);
}

use common::cli::CAPSTONE;

#[test]
fn fleet_front_is_the_pareto_front_of_cost_and_ttft_over_the_options() {
    let out = ridgeline(&CAPSTONE);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let front = v["front"].as_array().unwrap();
    let options = v["options"].as_array().unwrap();
    assert!(!front.is_empty());
    let f = |x: &Value, k: &str| x[k].as_f64().unwrap();
    for p in front {
        for k in [
            "hardware",
            "precision",
            "mode",
            "tp",
            "cost_per_hour_usd",
            "ttft_s",
        ] {
            assert!(!p[k].is_null(), "{k}");
        }
        // Each point is one of the options, and no option is both cheaper
        // (or as cheap) and faster (or as fast), one strictly.
        assert!(options.iter().any(|o| o["hardware"] == p["hardware"]
            && o["precision"] == p["precision"]
            && o["mode"] == p["mode"]
            && o["cost_per_hour_usd"] == p["cost_per_hour_usd"]));
        assert!(!options.iter().any(|o| {
            let (c, t) = (f(o, "cost_per_hour_usd"), f(o, "ttft_s"));
            let (pc, pt) = (f(p, "cost_per_hour_usd"), f(p, "ttft_s"));
            c <= pc && t <= pt && (c < pc || t < pt)
        }));
    }
    // Every option is on the front or beaten by a point of it.
    for o in options {
        let (c, t) = (f(o, "cost_per_hour_usd"), f(o, "ttft_s"));
        assert!(
            front
                .iter()
                .any(|p| f(p, "cost_per_hour_usd") <= c && f(p, "ttft_s") <= t)
        );
    }
    // The cheapest design heads the front; down it TTFT falls.
    assert_eq!(front[0]["cost_per_hour_usd"], v["cost_per_hour_usd"]);
    assert_eq!(front[0]["precision"], v["precision"]);
    assert_eq!(front[0]["mode"], v["mode"]);
    assert!(
        front
            .windows(2)
            .all(|w| f(&w[1], "ttft_s") < f(&w[0], "ttft_s"))
    );
    // Over budget: the verdict names the cheapest and how far over it is.
    if v["within_budget"] == false {
        let verdict = v["budget_verdict"].as_str().unwrap();
        assert!(
            verdict.starts_with("nothing is within the $5M/year budget"),
            "{verdict}"
        );
    }
    // The text output lists the same front.
    let mut args = CAPSTONE.to_vec();
    args.pop();
    let text = String::from_utf8(ridgeline(&args).stdout).unwrap();
    assert!(text.contains("the front of cost against TTFT"), "{text}");
    for p in front {
        assert!(
            text.lines()
                .any(|l| l.contains(p["hardware"].as_str().unwrap())
                    && l.contains(p["mode"].as_str().unwrap())
                    && l.contains(p["precision"].as_str().unwrap()))
        );
    }
}

#[test]
fn fleet_answers_the_capstone_question() {
    let out = ridgeline(&CAPSTONE);
    // Exit 0 within budget, 3 over it: either way the JSON answers.
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{}",
        stderr(&out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in [
        "ttft_s",
        "itl_s",
        "e2e_s",
        "kv_bytes_per_token",
        "max_concurrent",
        "cost_per_hour_usd",
        "cost_per_million_tokens_usd",
        "energy_per_token_j",
        "co2_per_million_tokens_g",
        "replicas",
        "devices",
        "within_budget",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert!(v["ttft_s"].as_f64().unwrap() <= 0.1 && v["itl_s"].as_f64().unwrap() <= 0.05);
    // A replica decodes a batch of about what it holds (never more than
    // the load fills, nor than fits).
    let f = |k: &str| v[k].as_f64().unwrap();
    // The search covers precision and mode: a disaggregated answer has its
    // two pools, whose replicas and devices make up the fleet's, and its
    // sequences are in flight on the decode replicas.
    assert!(["bf16", "fp8", "int4"].contains(&v["precision"].as_str().unwrap()));
    let decoding = match v["mode"].as_str().unwrap() {
        "aggregated" => {
            assert!(v["prefill"].is_null() && v["decode"].is_null());
            f("replicas")
        }
        "disaggregated" => {
            let (p, d) = (&v["prefill"], &v["decode"]);
            for k in ["hardware", "tp", "replicas", "devices"] {
                assert!(!p[k].is_null() && !d[k].is_null(), "{k}");
            }
            let n = |x: &Value, k: &str| x[k].as_f64().unwrap();
            assert_eq!(n(p, "replicas") + n(d, "replicas"), f("replicas"));
            assert_eq!(n(p, "devices") + n(d, "devices"), f("devices"));
            n(d, "replicas")
        }
        m => panic!("mode {m}"),
    };
    // Little's law: a replica holds its rate x its time; a decode replica
    // of a disaggregated fleet holds the sequences past their prefill.
    let lambda = 1000.0 / decoding;
    let held = if v["mode"] == "aggregated" {
        f("e2e_s")
    } else {
        f("e2e_s") - f("ttft_s")
    };
    assert!((f("in_flight_per_replica") - lambda * held).abs() < 1e-9 * held);
    assert!(f("batch") <= f("in_flight_per_replica") + 1.0);
    assert!(f("batch") <= f("max_batch_per_replica"));
    // Two regions: each its part of the fleet, the total their sum.
    let regions = v["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 2);
    let sum = |k: &str| regions.iter().map(|r| r[k].as_f64().unwrap()).sum::<f64>();
    assert_eq!(sum("replicas"), f("replicas"));
    assert_eq!(sum("devices"), f("devices"));
    // Equal shares by default: 500 requests/s each.
    assert_eq!(sum("qps"), 1000.0);
    assert!(regions.iter().all(|r| r["qps"] == 500.0));
    assert!(
        (sum("cost_per_hour_usd") - f("cost_per_hour_usd")).abs() < 1e-9 * f("cost_per_hour_usd")
    );
    let total = v["total"]["kwh_per_day"].as_f64().unwrap();
    assert!((sum("kwh_per_day") - total).abs() < 1e-9 * total);
    let within = v["within_budget"].as_bool().unwrap();
    assert_eq!(out.status.code(), Some(if within { 0 } else { 3 }));
    // $5M a year buys $570.78 an hour (5e6 / 8760).
    assert_eq!(
        within,
        v["cost_per_hour_usd"].as_f64().unwrap() * 8760.0 <= 5e6
    );
    let e = ridgeline(&["fleet", "--qps", "10", "--ttft", "1us", "--itl", "50ms"]);
    assert_eq!(e.status.code(), Some(3));
    assert!(stderr(&e).contains("TTFT"));
}

#[test]
fn context_sweep_grows_the_kv_cache() {
    let v = json(&["sweep", "--contexts", "1k..16k", "-H", "h100", "-f", "json"]);
    let a = v.as_array().unwrap();
    // Token counts read k as 1024: 1k..16k is 1024, 2048, 4096, 8192, 16384.
    let ctx: Vec<f64> = a.iter().map(|x| x["context"].as_f64().unwrap()).collect();
    assert_eq!(ctx, [1024.0, 2048.0, 4096.0, 8192.0, 16384.0]);
    // Llama-3.1-8B KV at 131,072 B per token: the cache at 4096 tokens (+1 new) is 537,001,984 B.
    assert_eq!(a[2]["kv_bytes"], 4097.0 * 131072.0);
    let l: Vec<f64> = a.iter().map(|x| x["latency_s"].as_f64().unwrap()).collect();
    assert!(l.windows(2).all(|w| w[1] > w[0]));
}

#[test]
fn a_tiny_model_on_an_h100_is_overhead_bound_in_eval_and_sens_alike() {
    // DS-CNN on an H100 in int8, from its layer list: 5,321,536 FLOPs;
    // 23,756 weight bytes + 72,554 activation elements read + 72,076
    // written = 168,386 B moved. Compute 5.32e6 / (1978.9e12 x 0.7) =
    // 3.8 ns, memory 168.4e3 / (3.35e12 x 0.7)
    // = 72 ns, the fixed overhead 10 us: the fixed term is 99.3 % of the
    // step, so the step is overhead-bound and its elasticity to the fixed
    // terms is their share, 10 us / T.
    let args = [
        "--model",
        "ds-cnn-kws",
        "--hardware",
        "h100",
        "--precision",
        "int8",
    ];
    let with = |cmd: &str| {
        let mut v = vec![cmd];
        v.extend(args);
        v.extend(["--format", "json"]);
        json(&v)
    };
    let e = with("eval");
    let s = with("sens");
    assert_eq!(e["bottleneck"], "overhead");
    assert_eq!(s["bottleneck"], "overhead");
    assert_eq!(s["binding"], "overhead");
    let share = e["overhead_s"].as_f64().unwrap() / e["latency_s"].as_f64().unwrap();
    let el = s["elasticities"]["overhead"].as_f64().unwrap();
    assert!((el - share).abs() < 1e-6 && el > 0.99, "{el} vs {share}");
    let mut v = vec!["sens"];
    v.extend(args);
    let text = String::from_utf8_lossy(&ridgeline(&v).stdout).into_owned();
    assert!(text.contains("binding constraint: overhead"), "{text}");
    assert!(!text.contains("binding constraint: memory"), "{text}");
}

#[test]
fn single_pass_models_report_samples_or_images_per_second() {
    let text = |args: &[&str]| {
        let out = ridgeline(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // A CNN on images: images/s, and the JSON key stays tokens_per_s.
    let eval = text(&["eval", "--model", "resnet-50"]);
    assert!(
        eval.contains("images/s") && !eval.contains("tokens/s"),
        "{eval}"
    );
    let v = json(&["eval", "--model", "resnet-50", "--format", "json"]);
    assert!(v["tokens_per_s"].as_f64().unwrap() > 0.0);
    // A text encoder: samples/s, a forward pass with no context.
    let cmp = text(&["compare", "--model", "bert-base", "--hardware", "a100,h100"]);
    assert!(
        cmp.contains("samples/s") && !cmp.contains("tokens/s"),
        "{cmp}"
    );
    assert!(
        cmp.contains("forward, batch 1") && !cmp.contains("decode"),
        "{cmp}"
    );
    // An audio CNN: samples/s, not images/s.
    let sw = text(&["sweep", "--model", "ds-cnn-kws", "--batch", "1..4"]);
    assert!(sw.contains("samples/s") && !sw.contains("images/s"), "{sw}");
    // A decoder keeps tokens/s.
    let llm = text(&["sweep", "--model", "llama-3.1-8b", "--batch", "1..4"]);
    assert!(llm.contains("tokens/s"), "{llm}");
}

#[test]
fn serve_shows_only_a_replica_that_runs() {
    // Llama-3.1-70B bf16 on one A100 80GB does not fit at 2048 + 256 tokens:
    // the text shows the verdict and the figures on the two A100s that hold
    // it, never the figures as asked; JSON keeps them only under
    // `as_asked_does_not_fit` beside `verdict`, with no cost for what does
    // not run.
    let v = json(&["serve", "-m", "llama-3.1-70b", "-H", "a100", "-f", "json"]);
    assert_eq!(v["fits"], false);
    assert_eq!(v["verdict"], "needs_more_devices");
    assert!(v["cost_per_hour_usd"].is_null());
    let at = &v["at_min_devices_to_fit"];
    assert_eq!(
        (at["tp"].as_u64(), at["fits"].as_bool()),
        (Some(2), Some(true))
    );
    let out = ridgeline(&["serve", "-m", "llama-3.1-70b", "-H", "a100"]);
    let text = String::from_utf8_lossy(&out.stdout).replace("\n  ", " ");
    assert!(
        text.contains("needs 2 devices") && text.contains("(--tp 2)"),
        "{text}"
    );
    assert!(v.get("ttft_s").is_none() && v.get("tokens_per_s").is_none());
    let aside = &v["as_asked_does_not_fit"];
    let asked = ridgeline::solver::units::format_time(aside["ttft_s"].as_f64().unwrap());
    let there = ridgeline::solver::units::format_time(at["ttft_s"].as_f64().unwrap());
    assert!(!text.contains(&asked) && text.contains(&there), "{text}");
}

#[test]
fn with_the_default_profile_the_bandwidth_elasticity_is_the_memory_share() {
    // The calibrated profile adds a fixed time per kernel, so a batch-1
    // decode is no longer all memory: with w = 1, d ln T / d ln BW =
    // -t_memory / T, and the fixed share is what the `overhead` row sees.
    let args = [
        "--model",
        "llama-3.1-8b",
        "--hardware",
        "a100",
        "--format",
        "json",
    ];
    let with = |cmd: &str| {
        let mut v = vec![cmd];
        v.extend(args);
        json(&v)
    };
    let (e, s) = (with("eval"), with("sens"));
    let t = e["latency_s"].as_f64().unwrap();
    let mem = e["memory_s"].as_f64().unwrap();
    let fixed = e["overhead_s"].as_f64().unwrap();
    assert!(
        fixed / t > 0.1,
        "kernels are a visible share: {fixed} of {t}"
    );
    let el = &s["elasticities"];
    assert!(
        (el["memory_bandwidth"].as_f64().unwrap() + mem / t).abs() < 1e-3,
        "{el}"
    );
    assert!(
        (el["overhead"].as_f64().unwrap() - fixed / t).abs() < 1e-3,
        "{el}"
    );
    // The band brackets the step.
    let (lo, hi) = (
        e["latency_s_low"].as_f64().unwrap(),
        e["latency_s_high"].as_f64().unwrap(),
    );
    assert!(lo < t && t < hi, "{lo} {t} {hi}");
}

#[test]
fn an_unknown_profile_names_the_profile_flag_on_every_command() {
    let collective = [
        "collective",
        "--op",
        "all-reduce",
        "--bytes",
        "1GB",
        "--devices",
        "8",
    ];
    for args in [
        &["eval"][..],
        &["train"],
        &collective,
        &["explore"],
        &["validate"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--profile", "nope"]);
        let out = ridgeline(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--profile: unknown profile \"nope\"") && !err.contains("--region"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn an_unknown_profile_or_assumption_is_a_clear_input_error() {
    let out = ridgeline(&["eval", "-m", "llama-3.1-8b", "--profile", "vllmm"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown profile") && err.contains("vllm"),
        "{err}"
    );
    let out = ridgeline(&["eval", "-m", "llama-3.1-8b", "--assume", "kernel_time=-3us"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kernel_time"), "{err}");
}

#[test]
fn a_model_with_nothing_per_sample_fits_any_batch_in_words() {
    // A user CNN with no activations given: nothing in memory grows with
    // the batch, so the most that fits is unbounded (u64::MAX inside).
    let dir = std::env::temp_dir().join(format!("ridgeline-anybatch-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(
        dir.join("models/tiny.toml"),
        r#"[[model]]
id = "tiny-net"
name = "Tiny net"
family = "test"
kind = "cnn"
year = 2026
source = "a test"
params = 1e5
flops_per_sample = 1e6
"#,
    )
    .unwrap();
    let out = ridgeline(&[
        "--catalog",
        dir.to_str().unwrap(),
        "eval",
        "-m",
        "tiny-net",
        "-H",
        "h100",
    ]);
    std::fs::remove_dir_all(&dir).ok();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("any batch"), "{text}");
    assert!(!text.contains("18446744073709551615"), "{text}");
}

/// The capstone's output as text, up to (not including) the line starting
/// with `stop`.
fn capstone_text(extra: &[&str], stop: &str) -> String {
    let mut args = CAPSTONE[..CAPSTONE.len() - 1].to_vec();
    args.extend_from_slice(extra);
    let out = String::from_utf8(ridgeline(&args).stdout).unwrap();
    let end = out
        .find(stop)
        .unwrap_or_else(|| panic!("{stop:?} in {out}"));
    out[..end].trim_end().to_string() + "\n"
}

#[test]
fn the_readme_works_the_capstone_through_as_fleet_prints_it() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenarios.md")).unwrap();
    let section = &readme[readme.find("### The capstone worked through").unwrap()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    // The quoted outputs are the command's, as it prints them at 80
    // columns (regenerate with the command of the section).
    let from = |t: String| t[t.find("cheapest:").unwrap()..].to_string();
    for (extra, stop, whole) in [
        (&[][..], "the cheapest option of each", true),
        (&["--mode", "aggregated"][..], "each region sized", false),
        (&["--precisions", "bf16"][..], "each region sized", false),
    ] {
        let t = capstone_text(extra, stop);
        let t = if whole { t } else { from(t) };
        assert!(
            section.contains(&format!("```\n{t}```")),
            "docs/scenarios.md differs from:\n{t}"
        );
    }
    // Each figure of the prose, from the JSON (the exit status is 3: over
    // budget).
    let json = |args: &[&str]| -> Value {
        let out = ridgeline(args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = json(&CAPSTONE);
    let f = |x: &Value, k: &str| x[k].as_f64().unwrap();
    let front = v["front"].as_array().unwrap();
    let (year, over) = (f(&v, "cost_per_year_usd"), f(&v, "cost_per_year_usd") - 5e6);
    let regions = v["regions"].as_array().unwrap();
    let agg = json(&[&CAPSTONE[..], &["--mode", "aggregated"]].concat());
    let bf16 = json(&[&CAPSTONE[..], &["--precisions", "bf16"]].concat());
    assert_eq!(v["within_budget"], false);
    assert_eq!(
        (v["precision"].as_str(), v["mode"].as_str()),
        (Some("fp8"), Some("disaggregated"))
    );
    assert_eq!(
        f(&agg, "cost_per_hour_usd"),
        f(&front[1], "cost_per_hour_usd")
    );
    assert_eq!(bf16["mode"], "disaggregated");
    let ms = |x: &Value| format!("{:.1}", f(x, "ttft_s") * 1e3);
    for phrase in [
        format!(
            "{} devices, ${:.1}M a year,\n${:.1}M over",
            v["devices"],
            year / 1e6,
            over / 1e6
        ),
        format!(
            "({} + {} = {})",
            regions[0]["replicas"], regions[1]["replicas"], v["replicas"]
        ),
        format!(
            "emit {:.0} kg of CO2 a day\nagainst us-east's {:.0}",
            f(&regions[1], "kg_co2_per_day"),
            f(&regions[0], "kg_co2_per_day")
        ),
        format!(
            "paying ${:.2} an hour more",
            f(&front[1], "cost_per_hour_usd") - f(&front[0], "cost_per_hour_usd")
        ),
        format!("cuts TTFT from {} to {} ms", ms(&front[0]), ms(&front[1])),
        format!(
            "{} ms for ${:.0} an hour",
            ms(&front[2]),
            f(&front[2], "cost_per_hour_usd")
        ),
        format!(
            "{} ms for ${:.0} an hour.",
            ms(&front[3]),
            f(&front[3], "cost_per_hour_usd")
        ),
        format!(
            "costs\n{:.0}% more",
            (f(&bf16, "cost_per_hour_usd") / f(&v, "cost_per_hour_usd") - 1.0) * 100.0
        ),
    ] {
        assert!(
            section.contains(&phrase),
            "docs/scenarios.md lacks {phrase:?}"
        );
    }
}

#[test]
fn serve_gives_ttft_of_one_prompt_and_of_the_whole_static_batch() {
    // Static batching prefills the batch's 8 prompts in one step, and each
    // request waits for all of them: at least one prompt's time, at most
    // eight (the fixed costs are paid once), and with one sequence the two
    // are the same. End to end adds (O - 1) inter-token steps to each.
    let v = json(&["serve", "-b", "8", "-f", "json"]);
    let f = |k: &str| v[k].as_f64().unwrap();
    assert!(f("ttft_batch_s") > f("ttft_s") && f("ttft_batch_s") <= 8.0 * f("ttft_s"));
    let o = f("output_tokens");
    assert!((f("e2e_batch_s") - (f("ttft_batch_s") + (o - 1.0) * f("itl_s"))).abs() < 1e-12);
    let one = json(&["serve", "-b", "1", "-f", "json"]);
    assert_eq!(one["ttft_batch_s"], one["ttft_s"]);
    let out = ridgeline(&["serve", "-b", "8"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("time to first token") && text.contains("  whole static batch"),
        "{text}"
    );
}

#[test]
fn a_fleet_with_next_to_no_traffic_says_n_a_per_million_tokens_as_json_says_null() {
    // 1e-308 requests/s x 256 output tokens = 2.56e-306 tokens/s, 9.2e-303
    // an hour; the cheapest replica's $1.85/hour over that, per million
    // tokens, is about 2e308, past f64's largest (1.8e308): infinite, which
    // JSON writes as null.
    let args = [
        "fleet", "--qps", "1e-308", "--ttft", "100ms", "--itl", "50ms",
    ];
    let out = ridgeline(&args);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("n/a per million output tokens"), "{text}");
    assert!(!text.contains("inf"), "{text}");
    let mut j = args.to_vec();
    j.extend(["-f", "json"]);
    let v = json(&j);
    assert!(v["cost_per_million_tokens_usd"].is_null(), "{v}");
}
