//! `ridgeline train` and `ridgeline collective` as a user runs them: the
//! JSON contracts of issue 9, figures derived by hand, the 80-column
//! tables and the refusals (exit 2 with the reason).

mod common;

use common::cli::{json, ridgeline};
use serde_json::Value;
use std::path::PathBuf;

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("{k} missing or not a number in {v}"))
}

/// GPT-3 175B on 1024 A100s as Megatron-LM ran it (TP 8, PP 8, full
/// recomputation, 2048-token sequences).
const MEGATRON: &[&str] = &[
    "train",
    "-m",
    "gpt-3",
    "-H",
    "a100",
    "--devices",
    "1024",
    "--tp",
    "8",
    "--pp",
    "8",
    "--recompute",
    "full",
    "--zero",
    "0",
    "--global-batch",
    "3M",
    "--seq",
    "2048",
    "-f",
    "json",
];

#[test]
fn train_json_holds_the_contract() {
    let v = json(MEGATRON);
    for k in [
        "step_time_s",
        "tokens_per_s",
        "mfu",
        "hfu",
        "flops_per_token",
        "compute_s",
        "exposed_comm_s",
        "bubble_s",
        "optimizer_s",
        "overhead_s",
        "memory_capacity_bytes",
        "critical_batch_tokens_per_device",
        "time_to_train_s",
        "device_hours",
        "cost_usd",
        "energy_kwh",
        "co2_kg",
        "goodput",
        "checkpoint_interval_s",
    ] {
        f(&v, k);
    }
    assert!(v["binding"].is_string());
    assert_eq!(v["fits"], Value::Bool(true));
    for k in ["weights", "gradients", "optimizer", "activations"] {
        f(&v["memory_per_device_bytes"], k);
    }
    for k in ["dp", "tp", "pp", "ep", "cp"] {
        for field in ["time_s", "bytes", "exposed_s", "count"] {
            f(&v["comm"][k], field);
        }
    }
    assert_eq!(v["layout"]["dp"], 16);
    assert!(v.get("layouts").is_none(), "layouts only with --search");
}

#[test]
fn the_step_is_the_sum_of_its_terms() {
    // T = compute + element-wise + exposed communication + bubble +
    // optimizer + overhead; tokens/s = tokens per step / T; the exposed
    // total is the kinds' sum.
    let v = json(MEGATRON);
    let sum = f(&v, "compute_s")
        + f(&v, "elementwise_s")
        + f(&v, "exposed_comm_s")
        + f(&v, "bubble_s")
        + f(&v, "optimizer_s")
        + f(&v, "overhead_s");
    assert!((f(&v, "step_time_s") / sum - 1.0).abs() < 1e-12);
    let tps = f(&v, "global_batch_tokens") / f(&v, "step_time_s");
    assert!((f(&v, "tokens_per_s") / tps - 1.0).abs() < 1e-12);
    let exposed: f64 = ["dp", "tp", "pp", "ep", "cp"]
        .iter()
        .map(|k| f(&v["comm"][*k], "exposed_s"))
        .sum();
    assert!((f(&v, "exposed_comm_s") - exposed).abs() < 1e-12);
    // Global batch "3M" = 3 x 1024^2 tokens = 1536 sequences of 2048: 96
    // micro-batches of 1 on each of the 16 data-parallel ranks; bubble share
    // (8 - 1)/(96 + 8 - 1) = 7/103.
    assert_eq!(f(&v, "micro_batches"), 96.0);
    assert!((f(&v, "bubble_fraction") - 7.0 / 103.0).abs() < 1e-12);
}

#[test]
fn gpt3_flops_per_token_and_chinchilla_tokens_by_hand() {
    // GPT-3 (tied embeddings, so N = all 175e9 parameters), L = 96, H = 96
    // heads of Q = 128, T = 2048: 6N + 12 L H Q T = 1.05e12 + 12 * 96 * 96
    // * 128 * 2048 = 1.05e12 + 2.899e10 = 1.07899e12. Full recomputation
    // adds 2N + 4 L H Q T. Chinchilla: 20 x 175e9 = 3.5e12 tokens.
    let v = json(MEGATRON);
    let lhqt = 96.0 * 96.0 * 128.0 * 2048.0;
    assert!((f(&v, "flops_per_token") - (6.0 * 175e9 + 12.0 * lhqt)).abs() < 1.0);
    assert!((f(&v, "hardware_flops_per_token") - (8.0 * 175e9 + 16.0 * lhqt)).abs() < 1.0);
    assert!((f(&v, "tokens_to_train") - 3.5e12).abs() < 1.0);
    // 16 bytes per parameter without ZeRO on the first stage of PP 8, over
    // TP 8: 96 / 8 = 12 layers of (175e9 - V h) / 96 parameters each, plus
    // the input embedding V h = 50257 x 12288 (the last stage holds the
    // tied table's copy: the same count), times (2, 2, 12) bytes.
    let vh = 50257.0 * 12288.0;
    let stage = (12.0 * (175e9 - vh) / 96.0 + vh) / 8.0;
    let mem = &v["memory_per_device_bytes"];
    assert!((f(mem, "weights") - stage * 2.0).abs() < 1.0);
    assert!((f(mem, "optimizer") - stage * 12.0).abs() < 1.0);
}

#[test]
fn one_device_on_the_ideal_profile_by_hand() {
    // Llama 3.2 1B on one H100 with the ideal profile and the flat matmul
    // ceiling (the peak itself, not the H100's measured share of it): no
    // communication, no bubble; compute = hardware FLOPs per token x
    // tokens / 989.4e12.
    let v = json(&[
        "train",
        "-m",
        "llama-3.2-1b",
        "-H",
        "h100",
        "--devices",
        "1",
        "--global-batch",
        "8k",
        "--seq",
        "2k",
        "--micro-batch",
        "4",
        "--profile",
        "ideal",
        "--attention-eff",
        "1",
        "--matmul-ceiling",
        "flat",
        "-f",
        "json",
    ]);
    assert_eq!(f(&v, "exposed_comm_s"), 0.0);
    assert_eq!(f(&v, "bubble_s"), 0.0);
    let compute = f(&v, "flops_per_token") * 8192.0 / 989.4e12;
    assert!((f(&v, "compute_s") / compute - 1.0).abs() < 1e-12);
    // MFU = compute / step when nothing is recomputed.
    assert!((f(&v, "mfu") - f(&v, "compute_s") / f(&v, "step_time_s")).abs() < 1e-12);
    assert!(v["critical_batch_tokens_per_device"].is_null());
}

#[test]
fn search_lists_layouts_each_with_its_layout_and_step_time() {
    let mut args: Vec<&str> = MEGATRON.to_vec();
    args.extend(["--search", "--top", "5"]);
    let v = json(&args);
    let layouts = v["layouts"].as_array().unwrap();
    assert_eq!(layouts.len(), 5);
    let times: Vec<f64> = layouts.iter().map(|l| f(l, "step_time_s")).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    for l in layouts {
        let product: u64 = ["dp", "tp", "pp", "ep", "cp"]
            .iter()
            .map(|k| l[*k].as_u64().unwrap())
            .product();
        assert_eq!(product, 1024);
        assert!(l["binding"].is_string() && l["recompute"].is_string());
    }
    // The best is at least as fast as the layout asked for.
    assert!(times[0] <= f(&v, "step_time_s") * (1.0 + 1e-12));
}

#[test]
fn a_run_that_does_not_fit_says_so_with_fixes_and_no_cost() {
    let v = json(&[
        "train",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "--devices",
        "8",
        "--zero",
        "0",
        "-f",
        "json",
    ]);
    assert_eq!(v["fits"], Value::Bool(false));
    assert!(v["cost_usd"].is_null() && v["time_to_train_s"].is_null());
    // Nor has it an allocator's pool: the tensors it would need are given,
    // no pool that would hold them.
    assert!(v["memory_per_device_bytes"]["total"].as_f64().unwrap() > 80e9);
    assert!(v["memory_per_device_bytes"]["reserved"].is_null());
    // A step that does not fit does not run: its figures are only under
    // the key that says so.
    for k in [
        "step_time_s",
        "tokens_per_s",
        "mfu",
        "binding",
        "elasticities",
    ] {
        assert!(v.get(k).is_none(), "{k} at the top of {v}");
        assert!(v["as_asked_does_not_fit"].get(k).is_some(), "{k}");
    }
    let fixes = v["fixes"].as_array().unwrap();
    assert!(fixes.iter().any(|x| x["change"] == "--zero 1"), "{fixes:?}");
    let out = ridgeline(&[
        "train",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "--devices",
        "8",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DOES NOT FIT"), "{text}");
    assert!(text.contains("To fit, change one of"), "{text}");
    for figure in ["step time", "tokens/s", "MFU", "-bound", "elasticity"] {
        assert!(
            !text.contains(figure),
            "{figure} shown for a run that does not fit: {text}"
        );
    }
}

#[test]
fn the_command_and_the_training_view_share_their_defaults() {
    // One question, both faces: `ridgeline train` with no layout flags and
    // the Training view's opening inputs give the same run and figures.
    use ridgeline::catalog::Catalog;
    use ridgeline::scenario::TrainInputs;
    let v = json(&["train", "-m", "llama-3.1-8b", "-H", "h100", "-f", "json"]);
    let t = TrainInputs::default();
    let layout = &v["layout"];
    assert_eq!(layout["dp"].as_u64(), Some(t.devices as u64));
    assert_eq!(layout["zero"].as_u64(), Some(t.zero as u64));
    assert_eq!(layout["recompute"], t.recompute.name());
    assert_eq!(layout["micro_batch"].as_u64(), Some(t.micro_batch as u64));
    assert_eq!(f(&v, "global_batch_tokens"), t.global_batch);
    assert_eq!(v["attention"], t.attention.name());
    let cat = Catalog::builtin();
    let hw = &cat.hardware("h100").unwrap().hw;
    let model = &cat.model("llama-3.1-8b").unwrap().model;
    assert_eq!(f(&v, "seq"), t.seq_for(model));
    let a = cat.profile("default").unwrap().assumptions;
    let run = t.run(model, ridgeline::solver::Precision::Bf16).unwrap();
    let tr = ridgeline::solver::training::evaluate(hw, model, &run, &a, &t.assumptions).unwrap();
    assert_eq!(v["fits"], Value::Bool(tr.memory.fits));
    assert!((f(&v["memory_per_device_bytes"], "total") / tr.memory.total() - 1.0).abs() < 1e-12);
    assert!((f(&v, "step_time_s") / tr.step.step_time_s - 1.0).abs() < 1e-12);
    // --help states the same defaults (its text is written by hand).
    use ridgeline::solver::training::DEFAULTS;
    let help = String::from_utf8_lossy(&ridgeline(&["train", "--help"]).stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        format!("[default: {}, as the Training view;", DEFAULTS.devices),
        format!("[default: {}, as the Training view]", DEFAULTS.zero),
        format!(
            "[default: {}, as the Training view]",
            DEFAULTS.recompute.name()
        ),
        format!("[default: {}, as the Training view]", DEFAULTS.micro_batch),
        format!("[default: {}]", DEFAULTS.attention.name()),
    ] {
        assert!(help.contains(&said), "train --help lacks {said:?}");
    }
    assert_eq!(DEFAULTS.global_batch_tokens, 4.0 * 1024.0 * 1024.0);
    assert!(help.contains("[default: 4M, as the Training view]"));
    // And both print them: the command's heading names the layout, ZeRO
    // and recomputation it used.
    let out = ridgeline(&["train", "-m", "llama-3.1-8b", "-H", "h100"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("dp 8 x tp 1") && text.contains("ZeRO 3, recompute none"),
        "{text}"
    );
}

#[test]
fn tables_fit_eighty_columns() {
    for args in [
        &[
            "train",
            "-m",
            "gpt-3",
            "-H",
            "a100",
            "--devices",
            "1024",
            "--tp",
            "8",
            "--pp",
            "8",
            "--seq",
            "2048",
            "--global-batch",
            "3M",
            "--search",
        ][..],
        &["train", "-m", "llama-3.1-70b", "--devices", "8"][..],
        &[
            "collective",
            "--op",
            "all-reduce",
            "--bytes",
            "1GB",
            "--devices",
            "64",
            "-H",
            "h100",
        ][..],
    ] {
        let out = ridgeline(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{args:?}: {line:?}");
        }
    }
}

#[test]
fn bad_layouts_exit_2_with_the_reason() {
    for (args, why) in [
        (
            &[
                "train",
                "-m",
                "gpt-3",
                "--devices",
                "64",
                "--dp",
                "2",
                "--tp",
                "8",
            ][..],
            "is not --devices 64",
        ),
        (
            &["train", "-m", "gpt-3", "--devices", "12", "--tp", "8"][..],
            "not a multiple",
        ),
        (
            &["train", "-m", "gpt-3", "--tp", "5"][..],
            "does not divide the 96 attention heads",
        ),
        (
            &["train", "-m", "gpt-3", "--pp", "128"][..],
            "more stages than the 96 layers",
        ),
        (&["train", "-m", "gpt-3", "--ep", "2"][..], "is dense"),
        (
            &["train", "-m", "gpt-3", "--zero", "4"][..],
            "is not a ZeRO stage",
        ),
        (
            &["train", "-m", "resnet-50"][..],
            "decoder language models only",
        ),
        (
            &["train", "-m", "gpt-3", "--tokens", "lots"][..],
            "chinchilla",
        ),
        (
            &[
                "collective",
                "--op",
                "broadcast",
                "--bytes",
                "1GB",
                "--devices",
                "8",
            ][..],
            "unknown collective",
        ),
        (
            &[
                "collective",
                "--op",
                "all-reduce",
                "--bytes",
                "0",
                "--devices",
                "8",
            ][..],
            "greater than zero",
        ),
        (
            &[
                "collective",
                "--op",
                "all-reduce",
                "--bytes",
                "1GB",
                "--devices",
                "1",
            ][..],
            "2 or more devices",
        ),
    ] {
        let out = ridgeline(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{args:?}: {err}");
    }
}

#[test]
fn a_ring_all_reduce_of_one_gigabyte_over_eight_h100s_by_hand() {
    // Ideal profile (link efficiency 1, no latencies): each NVLink carries
    // 2 * 7/8 * 1 GB = 1.75 GB at 450 GB/s = 3.889 ms; bus bandwidth =
    // 1 GB / 3.889 ms * 2 * 7/8 = 450 GB/s, the link itself.
    let v = json(&[
        "collective",
        "--op",
        "all-reduce",
        "--bytes",
        "1GB",
        "--devices",
        "8",
        "-H",
        "h100",
        "--algorithm",
        "ring",
        "--profile",
        "ideal",
        "-f",
        "json",
    ]);
    assert!((f(&v, "time_s") - 1.75e9 / 450e9).abs() < 1e-12);
    assert!((f(&v, "bus_bandwidth_bytes_per_s") - 450e9).abs() < 1.0);
    assert_eq!(v["algorithm"], "ring");
    assert_eq!(v["levels"].as_array().unwrap().len(), 1);
}

#[test]
fn a_collective_over_nodes_breaks_down_by_level() {
    // 64 H100s = 8 nodes of 8, ideal, ring: inside, a reduce-scatter and an
    // all-gather of 7/8 GB each (1.75 GB at 450 GB/s = 3.889 ms); across,
    // an all-reduce of 1/8 GB over 8 nodes, 2 * 7/8 * 125 MB = 218.75 MB
    // at 50 GB/s = 4.375 ms.
    let v = json(&[
        "collective",
        "--op",
        "all-reduce",
        "--bytes",
        "1GB",
        "--devices",
        "64",
        "-H",
        "h100",
        "--algorithm",
        "ring",
        "--profile",
        "ideal",
        "-f",
        "json",
    ]);
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    assert_eq!(levels[0]["level"], "scale-up");
    assert_eq!(levels[1]["level"], "scale-out");
    assert!((f(&levels[0], "bytes_per_link") - 1.75e9).abs() < 1.0);
    assert!((f(&levels[1], "bytes_per_link") - 218.75e6).abs() < 1.0);
    assert!((f(&v, "time_s") - (1.75e9 / 450e9 + 218.75e6 / 50e9)).abs() < 1e-12);
}

/// Megatron-LM's 1T model on 3072 A100s as table 1 of Narayanan et al.
/// 2021 lays it out (TP 8, PP 64, 6M tokens of 2048, full recomputation,
/// no ZeRO), with `v` interleaved chunks.
fn megatron_1t(v: &str) -> Value {
    let dir = megatron_catalog();
    json(&[
        "--catalog",
        dir.to_str().unwrap(),
        "train",
        "-m",
        "megatron-1t",
        "-H",
        "a100",
        "--devices",
        "3072",
        "--tp",
        "8",
        "--pp",
        "64",
        "--interleave",
        v,
        "--global-batch",
        "6M",
        "--seq",
        "2048",
        "--recompute",
        "full",
        "--zero",
        "0",
        "-f",
        "json",
    ])
}

/// A user catalog holding Megatron-LM's 1T model of Narayanan et al. 2021,
/// table 1: 128 layers, hidden 25600, 160 heads, vocabulary 51200,
/// sequence 2048; 12 L h^2 + V h = 1.0079e12 parameters.
fn megatron_catalog() -> PathBuf {
    model_catalog(
        "megatron",
        r#"[[model]]
id = "megatron-1t"
name = "Megatron-LM 1T"
family = "gpt"
kind = "dense-decoder"
year = 2021
source = "Narayanan et al. 2021, table 1"
params = 1.0079e12
layers = 128
hidden = 25600
heads = 160
kv_heads = 160
head_dim = 160
ffn = 102400
vocab = 51200
tied_embeddings = true
max_context = 2048
"#,
    )
}

/// A user catalog directory holding one models file.
fn model_catalog(name: &str, toml: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-test-train-{name}"));
    std::fs::create_dir_all(d.join("models")).unwrap();
    std::fs::write(d.join(format!("models/{name}.toml")), toml).unwrap();
    d
}

/// Within `band` (relative) of a published figure.
fn near(predicted: f64, published: f64, band: f64) -> bool {
    (predicted / published - 1.0).abs() <= band
}

#[test]
fn megatron_lm_1t_on_3072_a100s_against_its_published_throughput() {
    // Narayanan et al. 2021 (SC21), table 1, last row: 1008B parameters,
    // 160 heads, hidden 25600, 128 layers, TP 8, PP 64, 3072 GPUs, batch
    // 3072, 163 TFLOP/s per GPU, 52% of peak, 502.0 PFLOP/s aggregate.
    // Section 5.1: sequence 2048, vocabulary 51,200, the interleaved
    // schedule; equation 3 counts the FLOPs "assum[ing] activation
    // recomputation", so the 52% is our HFU. DP = 3072 / (8 x 64) = 6;
    // 3072 x 2048 tokens = 6M. Micro-batch 1 and v = 2 (the chunks per
    // stage are not given) are our reading. The default profile predicts 60.9%:
    // within 20% of the published 52% (docs/training.md has the table).
    let v = megatron_1t("2");
    assert_eq!(v["fits"], Value::Bool(true));
    assert!(near(f(&v, "hfu"), 0.52, 0.20), "HFU {}", f(&v, "hfu"));
}

/// Llama 3 405B on `devices` H100s as table 4 of the Llama 3 paper lays it
/// out (our readings of what the paper does not print: see
/// catalog/training/llama3-paper.toml).
fn llama_405b(devices: &str) -> Value {
    llama_405b_n(devices, "8")
}

/// The same with `n` micro-batches back to back per chunk (0: pp).
fn llama_405b_n(devices: &str, n: &str) -> Value {
    json(&[
        "train",
        "-m",
        "llama-3.1-405b",
        "-H",
        "h100",
        "--devices",
        devices,
        "--tp",
        "8",
        "--pp",
        "16",
        "--interleave",
        "8",
        "--contiguous",
        n,
        "--edge-layers",
        "1",
        "--global-batch",
        "16M",
        "--seq",
        "8k",
        "--zero",
        "2",
        "--recompute",
        "none",
        "-f",
        "json",
    ])
}

#[test]
fn llama_3_405b_on_h100s_fits_and_lands_near_its_published_mfu() {
    // Dubey et al. 2024, "The Llama 3 Herd of Models", table 4: TP 8, CP 1,
    // PP 16, 8192 GPUs (DP 64, 32 sequences per DP group) at 43% BF16 MFU
    // and 16,384 GPUs (DP 128, 16 per group) at 41%, 8192-token sequences,
    // 16M tokens per batch. Section 3.3.2: FSDP shards optimizer states
    // and gradients (ZeRO 2); "we could pre-train Llama 3 on sequences of
    // 8K tokens without activation checkpointing" (`none`, with flash
    // attention); one layer fewer on the first and last stages, so the
    // first chunk holds only the embedding: chunks of one layer, v =
    // (126 + 2) / 16 = 8; N micro-batches back to back per chunk, N not
    // printed (8 is our reading).
    //
    // Memory: the second stage holds 8 layers x (7 x 8 + 2 x 14 + 1)/8 =
    // 85 layer-micro-batches of 8192 tokens at 15.875 h x 2 / 8 bytes a
    // token (h = 16384: 65 kB), 45.3 GB, plus 6.4 GB of bf16 weights and
    // 0.7 GB of sharded gradients and optimizer state: 52.4 GB, inside the
    // 0.9 x 85.0 GB usable of an H100 (CUDA's 85,045,477,376 bytes). It
    // read 774 GB before flash attention and the model's own shape.
    //
    // MFU: the default profile (one compute efficiency, 0.7, for every
    // generation, at the H100's measured matmul ceiling) predicts 45.0%
    // and 42.7%, 5% and 4% above what Meta measured. Of that, the step's
    // hidden FSDP collectives (5.2 s of reduce-scatters at 8,192 GPUs,
    // behind 8.7 s of compute) slow the compute beside them by 18.9% (Lee
    // et al. 2025): 5.2 x 0.189 / 1.189 = 0.82 s of a 12.1 s step; without
    // that slowdown the model said 48.3%, 12% high. Bound: issue 17's 10%.
    for (devices, published) in [("8192", 0.43), ("16384", 0.41)] {
        let v = llama_405b(devices);
        assert_eq!(v["fits"], Value::Bool(true), "{devices}: {v}");
        let mfu = f(&v, "mfu");
        assert!(near(mfu, published, 0.10), "{devices}: MFU {mfu}");
        let total = f(&v["memory_per_device_bytes"], "total");
        // 16,384 GPUs shard the optimizer state over twice the ranks.
        assert!((total - 52.2e9).abs() < 0.3e9, "{devices}: {total}");
    }
}

/// Issue 17's layout: Llama 3 70B at TP 8 x PP 4 on 1,024 H100s, ZeRO 3,
/// with `extra` flags, as JSON.
fn llama_70b_on_1024_h100s(extra: &[&str]) -> Value {
    let mut args = vec![
        "train",
        "-m",
        "llama-3.1-70b",
        "-H",
        "h100",
        "--devices",
        "1024",
        "--tp",
        "8",
        "--pp",
        "4",
        "--zero",
        "3",
        "-f",
        "json",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn llama_3_70b_on_1024_h100s_fits_with_the_default_recomputation() {
    // The layout of issue 17: TP 8 x PP 4 on 1,024 H100s with ZeRO 3, at
    // the default recomputation (none) and 8k sequences. Each device's
    // shard is about 70.6e9 / (8 x 4) parameters, its 16 bytes each sharded
    // over DP 32 by ZeRO 3, and the first stage holds 4 micro-batches of
    // its 20 layers (the issue read 247 GB before flash attention).
    let v = llama_70b_on_1024_h100s(&[]);
    assert_eq!(
        v["fits"],
        Value::Bool(true),
        "{}",
        v["memory_per_device_bytes"]
    );
    assert_eq!(v["layout"]["recompute"], "none");
}

/// PaLM 540B on one pod of 3072 TPU v4 chips as we read section 4 of the
/// paper: TP 12, FSDP (ZeRO 3), full recomputation, half the batch.
fn palm_pod() -> Value {
    let dir = palm_catalog();
    json(&[
        "--catalog",
        dir.to_str().unwrap(),
        "train",
        "-m",
        "palm-540b",
        "-H",
        "tpu-v4",
        "--devices",
        "3072",
        "--tp",
        "12",
        "--zero",
        "3",
        "--recompute",
        "full",
        "--global-batch",
        "2M",
        "--seq",
        "2048",
        "-f",
        "json",
    ])
}

/// PaLM 540B (Chowdhery et al. 2022, table 1 and section 2): 118 layers,
/// model dimension 18432, 48 heads of 256, multi-query attention (one KV
/// head), a 4 x 18432 SwiGLU FFN, a 256k shared input-output vocabulary,
/// 540.35B parameters.
fn palm_catalog() -> PathBuf {
    model_catalog(
        "palm",
        r#"[[model]]
id = "palm-540b"
name = "PaLM 540B"
family = "palm"
kind = "dense-decoder"
year = 2022
source = "Chowdhery et al. 2022, table 1"
params = 540.35e9
layers = 118
hidden = 18432
heads = 48
kv_heads = 1
head_dim = 256
ffn = 73728
vocab = 256000
tied_embeddings = true
max_context = 2048
"#,
    )
}

#[test]
fn palm_540b_on_one_tpu_v4_pod_against_its_published_mfu() {
    // Chowdhery et al. 2022, section 4: two pods of 3072 TPU v4 chips, in
    // each "12-way model parallelism and 256-way fully sharded data
    // parallelism", no pipeline, activations rematerialized in backward
    // but one per layer; two-way data parallelism across the pods over
    // the data-centre network at 97% of perfect weak scaling. Section 4.1
    // and table 3: 238.3K tokens/s at batch 2048 x 2048 tokens, 46.2% MFU.
    // The catalog gives no TPU v4 data-centre bandwidth, so one pod runs
    // half the batch (the same work per chip): TP 12, FSDP (ZeRO 3) 256,
    // full recomputation, on the 12x16x16 slice of the v4 torus (TP the
    // 12 ring, FSDP the two 16 rings). The default profile predicts
    // 38.8%: within 20% of 46.2% (docs/training.md has the table).
    let v = palm_pod();
    assert_eq!(v["fits"], Value::Bool(true));
    assert!(near(f(&v, "mfu"), 0.462, 0.20), "MFU {}", f(&v, "mfu"));
}

#[test]
fn with_search_a_refused_layout_gives_way_to_the_fastest_found() {
    // 4M tokens of 8k sequences are 512 sequences: 4096 data-parallel
    // ranks cannot each get one, so the layout asked for (dp = all) is
    // refused, and --search shows the fastest layout that fits instead.
    let args = [
        "train",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "--devices",
        "4096",
        "--search",
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["-f", "json"]);
    let v = json(&json_args);
    let why = v["requested_layout_refused"].as_str().unwrap();
    assert!(why.contains("less than one micro-batch"), "{why}");
    let best = &v["layouts"][0];
    assert_eq!(v["layout"]["dp"], best["dp"]);
    assert_eq!(v["step_time_s"], best["step_time_s"]);
    // Without --search it is bad input.
    let out = ridgeline(&args[..args.len() - 1]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_readme_table_of_published_runs_quotes_what_train_prints() {
    // docs/training.md: each predicted figure as
    // `train` prints it (regenerate the table after a change to the model).
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md")).unwrap();
    let row = |start: &str| -> String {
        let i = readme.find(start).unwrap_or_else(|| panic!("{start}"));
        readme[i..].lines().next().unwrap().to_string()
    };
    let pct = |v: &Value, k: &str| format!("{:.1}%", f(v, k) * 100.0);
    let step = |v: &Value| -> Value {
        if v["fits"] == Value::Bool(true) {
            v.clone()
        } else {
            v["as_asked_does_not_fit"].clone()
        }
    };
    let llama = |devices: &str| step(&llama_405b(devices));
    let r = row("| Llama 3 405B, 8192 H100");
    assert!(r.contains(&pct(&llama("8192"), "mfu")), "{r}");
    let r = row("| Llama 3 405B, 16,384 H100");
    assert!(r.contains(&pct(&llama("16384"), "mfu")), "{r}");
    let megatron = megatron_1t;
    let r = row("| Megatron-LM 1T, 3072 A100");
    assert!(
        r.contains(&format!(
            "{} HFU ({} with v 1)",
            pct(&megatron("2"), "hfu"),
            pct(&megatron("1"), "hfu")
        )),
        "{r}"
    );
    let palm = palm_pod();
    let r = row("| PaLM 540B, one pod of 3072 TPU v4");
    assert!(
        r.contains(&format!(
            "{} MFU, {} HFU",
            pct(&palm, "mfu"),
            pct(&palm, "hfu")
        )),
        "{r}"
    );
    let megascale = |rc: &str| {
        json(&[
            "train",
            "-m",
            "gpt-3",
            "-H",
            "a100",
            "--devices",
            "12288",
            "--tp",
            "8",
            "--pp",
            "8",
            "--interleave",
            "6",
            "--global-batch",
            "12M",
            "--seq",
            "2048",
            "--zero",
            "0",
            "--recompute",
            rc,
            "-f",
            "json",
        ])
    };
    let r = row("| Megatron-LM baseline of MegaScale");
    assert!(
        r.contains(&format!(
            "{} with `selective`, {} with `full`",
            pct(&megascale("selective"), "mfu"),
            pct(&megascale("full"), "mfu")
        )),
        "{r}"
    );
}

#[test]
fn the_docs_figures_of_the_llama_3_405b_memory_are_trains() {
    // docs/training.md: "8 layers of 533 MB per micro-batch ... : 52 GB at
    // 8,192 GPUs and 52 GB at 16,384, with 7 GB of states ... With
    // Megatron's depth-first order (N = 16) the 8,192-GPU row needs 82 GB".
    // 533 MB: 8192 tokens x 520192 bytes / 8 (see the solver's
    // flash-attention test for the per-token derivation) = 532.7 MB.
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md")).unwrap();
    let prose = docs.replace('\n', " ");
    let gb = |v: &Value| format!("{:.0} GB", f(&v["memory_per_device_bytes"], "total") / 1e9);
    let n8_8k = llama_405b("8192");
    let n8_16k = llama_405b("16384");
    assert!(
        prose.contains(&format!("{} at 8,192 GPUs", gb(&n8_8k))),
        "{}",
        gb(&n8_8k)
    );
    assert!(
        prose.contains(&format!("{} at 16,384", gb(&n8_16k))),
        "{}",
        gb(&n8_16k)
    );
    let m = &n8_8k["memory_per_device_bytes"];
    let states = f(m, "weights") + f(m, "gradients") + f(m, "optimizer");
    assert!(
        prose.contains(&format!("with {:.0} GB of states", states / 1e9)),
        "{states}"
    );
    assert!(prose.contains(&format!(
        "{:.0} MB per micro-batch",
        8192.0 * 520_192.0 / 8.0 / 1e6
    )));
    let megatron = llama_405b_n("8192", "0");
    assert!(
        prose.contains(&format!("row needs {}", gb(&megatron))),
        "{}",
        gb(&megatron)
    );
    assert_eq!(megatron["fits"], Value::Bool(false));
    assert_eq!(n8_8k["fits"], Value::Bool(true));
    assert_eq!(n8_16k["fits"], Value::Bool(true));
}

#[test]
fn the_binding_term_agrees_with_the_elasticities() {
    // Issue 17's case: Llama 3 70B at TP 8 x PP 4 on 1,024 H100s, ZeRO 3,
    // selective. ZeRO 3's DP collectives (5.3 s) hide behind the passes
    // (3.2 s) and outlast them: a faster compute would leave more of them
    // exposed, so the DP gradients bind, and the step time follows the
    // scale-out network (elasticity near -0.7) far more than the FLOP/s
    // (near -0.15: the compute slowed beside the hidden part shortens
    // with it). docs/training.md quotes both.
    let v = llama_70b_on_1024_h100s(&["--recompute", "selective"]);
    assert_eq!(v["binding"], "dp-comm");
    let e = &v["elasticities"];
    let (out, peak) = (f(e, "scale_out_bandwidth"), f(e, "peak_flops"));
    assert!(out < 4.0 * peak, "{e}");
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md")).unwrap();
    let prose = docs.replace('\n', " ");
    let quoted = format!(
        "(−{:.2} to scale-out bandwidth, −{:.2} to peak FLOP/s",
        -out, -peak
    );
    assert!(prose.contains(&quoted), "{quoted}");
}

#[test]
fn a_dense_models_text_has_no_moe_routing_row_and_its_json_keeps_the_key() {
    // The default run (Llama 3.1 8B, dense): no "MoE routing" line in the
    // text, `moe_routing_s` 0 in JSON; Mixtral 8x7B (top-2 of 8 experts)
    // on 64 devices with full recomputation (so that it fits) has the line
    // and a positive time.
    let moe_run = ["--devices", "64", "--recompute", "full"];
    let text = |m: &str| {
        let out = ridgeline(&[&["train", "-m", m][..], &moe_run[..]].concat());
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(!text("llama-3.1-8b").contains("MoE routing"));
    assert!(text("mixtral-8x7b").contains("MoE routing"));
    let dense = json(&["train", "-m", "llama-3.1-8b", "-f", "json"]);
    assert_eq!(f(&dense, "moe_routing_s"), 0.0);
    let moe = json(
        &[
            &["train", "-m", "mixtral-8x7b", "-f", "json"][..],
            &moe_run[..],
        ]
        .concat(),
    );
    assert!(f(&moe, "moe_routing_s") > 0.0);
}

#[test]
fn the_measured_matmul_ceiling_scales_the_products_rate() {
    // docs/training.md, "The matmul ceiling": the default profile's
    // eta_c 0.7 times the device's MAMF share over the A100's (271.2 of
    // 312 TFLOP/s = 0.869231): the H100 SXM's 794.5 of 989.4 = 0.803012
    // gives 0.7 x 0.803012 / 0.869231 = 0.64667 ("64.7%"); the MI300X's
    // 668.4 of 1307.4 = 0.511244 gives 0.7 x 0.511244 / 0.869231 =
    // 0.41171 ("41.2%"); flat, both run at 0.7. Their products' rates,
    // 0.41171 x 1307.4 = 538.3 against 0.64667 x 989.4 = 639.8 TFLOP/s,
    // no longer put the MI300X 32% ahead (0.7 x 1307.4 / (0.7 x 989.4)
    // = 1.321).
    let eff = |hw: &str, ceiling: &str| {
        f(
            &json(&["train", "-H", hw, "--matmul-ceiling", ceiling, "-f", "json"]),
            "products_efficiency",
        )
    };
    let (h100, mi300x) = (eff("h100-sxm", "measured"), eff("mi300x", "measured"));
    assert!(
        (h100 - 0.7 * (794.5 / 989.4) / (271.2 / 312.0)).abs() < 1e-9,
        "{h100}"
    );
    assert!(
        (mi300x - 0.7 * (668.4 / 1307.4) / (271.2 / 312.0)).abs() < 1e-9,
        "{mi300x}"
    );
    assert_eq!(eff("h100-sxm", "flat"), 0.7);
    assert_eq!(eff("mi300x", "flat"), 0.7);
    assert!(mi300x * 1307.4 < h100 * 989.4);
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md")).unwrap();
    let prose = docs.replace('\n', " ");
    for quoted in [
        format!("{:.1}% of peak on an H100", h100 * 100.0),
        format!("{:.1}% on an MI300X", mi300x * 100.0),
    ] {
        assert!(prose.contains(&quoted), "{quoted}");
    }
}

/// Llama 3.2 1B on one `hw`, one step of 8192 tokens in sequences of 2048.
fn one_device_1b(hw: &str) -> Vec<&str> {
    vec![
        "train",
        "-m",
        "llama-3.2-1b",
        "-H",
        hw,
        "--devices",
        "1",
        "--global-batch",
        "8192",
        "--seq",
        "2048",
    ]
}

#[test]
fn train_takes_a_profiles_values_for_the_devices_class_as_eval_does() {
    // llama.cpp's profile has values for Apple devices (compute 0.61,
    // memory 0.83 in catalog/profiles/llama-cpp.toml) over its base ones.
    // `train --profile llama.cpp` on an M2 Ultra steps as the same run
    // with those two set by flag; on an H100 with the HBM class's
    // (0.32, 0.67). Before, train took the base values on every device.
    let run = |hw: &str, extra: &[&str]| -> Value {
        let mut a = one_device_1b(hw);
        a.extend_from_slice(&["-f", "json"]);
        a.extend_from_slice(extra);
        json(&a)
    };
    let step = |v: &Value| f(v, "step_time_s");
    for (hw, ce, me) in [("m2-ultra", "0.61", "0.83"), ("h100", "0.32", "0.67")] {
        let by_class = step(&run(hw, &["--profile", "llama.cpp"]));
        let by_flags = step(&run(
            hw,
            &[
                "--profile",
                "llama.cpp",
                "--compute-eff",
                ce,
                "--memory-eff",
                me,
            ],
        ));
        assert_eq!(by_class, by_flags, "{hw}");
        // The class values matter: the base values give another step.
        let base = step(&run(
            hw,
            &[
                "--profile",
                "llama.cpp",
                "--assume",
                "compute_efficiency=0.5",
            ],
        ));
        assert_ne!(by_class, base, "{hw}");
    }
}

#[test]
fn full_recomputation_counts_the_logits_and_the_rebuilt_layer_in_turn() {
    // Mixtral 8x7B on 256 TPU v5p as MaxText ran it (FSDP over all chips,
    // 36 sequences of 4096 a chip, remat full): the loss's fp32 logits,
    // 147456 tokens x 4 x 32000 = 18.9 GB with the head's inputs, are
    // freed before backward rebuilds a layer, which takes more; the text
    // says so on its own row and the total is the sum less them.
    let args = [
        "train",
        "-m",
        "mixtral-8x7b",
        "-H",
        "tpu-v5p",
        "--devices",
        "256",
        "--zero",
        "3",
        "--recompute",
        "full",
        "--micro-batch",
        "36",
        "--seq",
        "4096",
        "--global-batch",
        "37748736",
        "--profile",
        "jax-xla",
    ];
    let mut with_json = args.to_vec();
    with_json.extend_from_slice(&["-f", "json"]);
    let v = json(&with_json);
    let m = &v["memory_per_device_bytes"];
    let part = |k: &str| m[k].as_f64().unwrap();
    assert!(part("logits") > 147_456.0 * 4.0 * 32_000.0);
    assert_eq!(part("reused"), part("logits"));
    let sum: f64 = [
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "logits",
        "gathered",
    ]
    .iter()
    .map(|k| part(k))
    .sum();
    assert!((part("total") - (sum - part("reused"))).abs() < 1.0);
    assert_eq!(v["fits"], true);
    let out = ridgeline(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("memory: minus logits (freed first)"),
        "{text}"
    );
    // Without recomputation nothing is rebuilt: no such row, reused 0.
    let none = ridgeline(&one_device_1b("h100"));
    assert!(!String::from_utf8_lossy(&none.stdout).contains("minus logits"));
}

#[test]
fn the_torchtitan_profile_is_its_loss_and_fp8_storage_given_by_flag() {
    // Llama 3.1 8B on 8 x H100 96GB as torchtitan's Table 1 ran it (FSDP,
    // 2 sequences of 8192, per-operator checkpointing). The torchtitan
    // profile is pytorch-fsdp with an eager loss and fp8 held at 16 bits:
    // the same answer as pytorch-fsdp with those two set by flag.
    let run = |extra: &[&str]| -> Value {
        let mut a = vec![
            "train",
            "-m",
            "llama-3.1-8b",
            "-H",
            "h100-sxm-96gb",
            "--devices",
            "8",
            "--zero",
            "3",
            "--recompute",
            "selective-op",
            "--micro-batch",
            "2",
            "--seq",
            "8192",
            "--global-batch",
            "131072",
            "-f",
            "json",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let mem = |v: &Value, k: &str| f(&v["memory_per_device_bytes"], k);
    for precision in ["bf16", "fp8"] {
        let profile = run(&["--profile", "torchtitan", "--precision", precision]);
        let flags = run(&[
            "--profile",
            "pytorch-fsdp",
            "--precision",
            precision,
            "--cross-entropy",
            "eager",
            "--low-precision-storage",
            "bf16",
        ]);
        assert_eq!(profile, flags, "{precision}");
    }
    let bf16 = run(&["--profile", "torchtitan", "--precision", "bf16"]);
    let fp8 = run(&["--profile", "torchtitan", "--precision", "fp8"]);
    // Eager loss on one device: 16384 tokens x (4 x 4096 + 12 x 128256)
    // bytes = 25,484,591,104 (the final norm's and head's inputs at 16
    // bits, 12 bytes a logit).
    assert_eq!(
        mem(&bf16, "logits"),
        16_384.0 * (4.0 * 4096.0 + 12.0 * 128_256.0)
    );
    // torchao's fp8 holds what bf16 holds.
    assert_eq!(mem(&fp8, "total"), mem(&bf16, "total"));
    // Held narrow (the default's reading), fp8 needs less: 1-byte weights
    // and gradients, activations at half.
    let narrow = run(&[
        "--profile",
        "torchtitan",
        "--precision",
        "fp8",
        "--low-precision-storage",
        "narrow",
    ]);
    assert!(mem(&narrow, "total") < mem(&bf16, "total") * 0.75);
    // A fused loss holds one fp32 copy: 16384 x (4 x 4096 + 4 x 128256).
    let fused = run(&["--profile", "torchtitan", "--cross-entropy", "fused"]);
    assert_eq!(
        mem(&fused, "logits"),
        16_384.0 * (4.0 * 4096.0 + 4.0 * 128_256.0)
    );
}

#[test]
fn megatrons_fp32_main_gradients_by_flag_by_assume_and_what_they_hold() {
    // Megatron-LM CI's memory test (catalog/training/megatron-lm-ci.toml):
    // its 7B GPT on 8 H100, pp 4 with 8 virtual stages, the distributed
    // optimizer over dp 2, Megatron's default dropout and fp32 main
    // gradients. The flag and `--assume` give one answer; the gradients
    // row doubles the bf16 weights' (4 bytes against 2 a parameter), and
    // the total is docs/training.md's: 58.1 GB against the reading's 60.7
    // (54.2 GB with bf16 gradients).
    let run = |extra: &[&str]| -> Value {
        let mut a = vec![
            "train",
            "-m",
            "megatron-ci-gpt-7b",
            "-H",
            "h100-sxm",
            "--devices",
            "8",
            "--pp",
            "4",
            "--interleave",
            "8",
            "--zero",
            "1",
            "--recompute",
            "none",
            "--micro-batch",
            "1",
            "--global-batch",
            "65536",
            "--seq",
            "8192",
            "--dropout",
            "--profile",
            "megatron-core",
            "-f",
            "json",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let mem = |v: &Value, k: &str| f(&v["memory_per_device_bytes"], k);
    let flag = run(&["--grad-precision", "fp32"]);
    assert_eq!(flag, run(&["--assume", "grad_precision=fp32"]));
    assert_eq!(mem(&flag, "gradients"), 2.0 * mem(&flag, "weights"));
    let bf16 = run(&[]);
    assert_eq!(mem(&bf16, "gradients"), mem(&bf16, "weights"));
    let gb = |x: f64| (x / 1e8).round() / 10.0;
    assert_eq!(
        (gb(mem(&flag, "total")), gb(mem(&bf16, "total"))),
        (58.1, 54.2)
    );
    // What is held between steps, against the 24.8 GB the test logs.
    let states = |v: &Value| mem(v, "weights") + mem(v, "gradients") + mem(v, "optimizer");
    assert_eq!(gb(states(&flag)), 23.5);
    // The Megatron-Bridge log's Llama 3.2 1B on 8 H100 (dp 8, seq 1024,
    // 64 micro-batches): 11.1 GB against 12.6 (8.6 with bf16 gradients),
    // 9.3 GB held between steps against the log's 10.0.
    let one_b = |extra: &[&str]| -> Value {
        let mut a = vec![
            "train",
            "-m",
            "llama-3.2-1b",
            "-H",
            "h100-sxm",
            "--devices",
            "8",
            "--zero",
            "1",
            "--recompute",
            "none",
            "--micro-batch",
            "1",
            "--global-batch",
            "524288",
            "--seq",
            "1024",
            "--profile",
            "megatron-core",
            "-f",
            "json",
        ];
        a.extend_from_slice(extra);
        json(&a)
    };
    let wide = one_b(&["--grad-precision", "fp32"]);
    assert_eq!(
        (gb(mem(&wide, "total")), gb(mem(&one_b(&[]), "total"))),
        (11.1, 8.6)
    );
    assert_eq!(gb(states(&wide)), 9.3);
    // A width it does not take is refused with what it takes.
    let out = ridgeline(&["train", "--assume", "grad_precision=bf16"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"param\" or \"fp32\""));
}
