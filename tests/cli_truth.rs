//! The command line tells the truth at a glance (issue 7 sections 1, 2, 6
//! and 7) and stands up to nonsense (issue 8 section 5): the binary as a
//! user runs it, at 80 columns, in a UTF-8 and a C locale, into a pipe.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn empty_dir() -> PathBuf {
    let d = std::env::temp_dir().join("ridgeline-test-empty-config");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The binary with no user catalog, a locale and a width.
fn cmd(args: &[&str], lang: &str, columns: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ridgeline"));
    c.args(args)
        .env("RIDGELINE_CONFIG_DIR", empty_dir())
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env("LANG", lang)
        .env("COLUMNS", columns);
    c
}

fn run(args: &[&str]) -> Output {
    cmd(args, "C.UTF-8", "80").output().expect("run ridgeline")
}

fn text(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-f", "json"]);
    serde_json::from_str(&text(&a)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn row<'a>(v: &'a Value, id: &str) -> &'a Value {
    v.as_array()
        .unwrap()
        .iter()
        .find(|r| r["hardware"] == id)
        .unwrap_or_else(|| panic!("no row {id} in {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Llama 3.1 70B in fp8 is 70.55 GB of weights: more than the 36 GB usable
/// on an A100 40GB (40 GB x 0.9), so it needs 2; an H100 (72 GB usable)
/// and a B200 hold it.
const SEVENTY_FP8: [&str; 6] = [
    "-m",
    "llama-3.1-70b",
    "-p",
    "fp8",
    "-H",
    "a100-sxm-40gb,h100,b200",
];

fn compare(extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec!["compare"];
    a.extend(SEVENTY_FP8);
    a.extend(extra);
    a
}

#[test]
fn compare_marks_a_device_that_does_not_fit_and_shows_no_latency_or_cost_as_if_it_ran() {
    let t = text(&compare(&[]));
    let line = t
        .lines()
        .find(|l| l.starts_with("a100-sxm-40gb "))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(line.contains("✗ needs 2"), "{line}");
    assert!(!line.contains(" ms") && !line.contains(" us"), "{line}");
    // The cost shown is the cost at two devices, and says so.
    assert!(line.contains(" on 2"), "{line}");
    // Rows that fit come first, so the device that does not is last.
    let rows: Vec<&str> = t
        .lines()
        .filter(|l| ["a100", "h100", "b200"].iter().any(|d| l.starts_with(d)))
        .collect();
    assert!(rows[2].starts_with("a100-sxm-40gb"), "{t}");
    // Its line below the table gives its figures at the count that fits.
    assert!(t.contains("needs 2 devices (--tp 2): there"), "{t}");

    // In the C locale the same words in ASCII, and nothing else but ASCII.
    let o = cmd(&compare(&[]), "C", "80").output().unwrap();
    let t = String::from_utf8(o.stdout).unwrap();
    assert!(t.is_ascii(), "{t}");
    assert!(t.contains("x needs 2"), "{t}");

    // JSON keeps the verdict's keys, adds the verdict and the figures at
    // the fewest devices that fit, and keeps the figures as asked only
    // under a key that says they do not fit.
    let v = json(&compare(&[]));
    let a = row(&v, "a100-sxm-40gb");
    for k in [
        "fits",
        "min_devices_to_fit",
        "max_batch",
        "memory_required_bytes",
    ] {
        assert!(a.get(k).is_some(), "{k}");
    }
    for k in ["latency_s", "tokens_per_s", "mfu"] {
        assert!(a.get(k).is_none(), "{k}: {a}");
        assert!(a["as_asked_does_not_fit"].get(k).is_some(), "{k}: {a}");
    }
    assert_eq!(a["fits"], false);
    assert_eq!(a["verdict"], "needs_more_devices");
    assert!(a["cost_per_million_tokens_usd"].is_null(), "{a}");
    assert!(a["cost_per_hour_usd"].is_null(), "{a}");
    assert!(a["speedup"].is_null(), "{a}");
    let at = &a["at_min_devices_to_fit"];
    assert_eq!(at["devices"], 2);
    assert_eq!(at["tp"], 2);
    // $/M tok = $/hour / (tokens/s * 3600) * 1e6, at two devices.
    let m = f(&at["cost_per_hour_usd"]) / (f(&at["tokens_per_s"]) * 3600.0) * 1e6;
    assert!((f(&at["cost_per_million_tokens_usd"]) / m - 1.0).abs() < 1e-12);
    let h = row(&v, "h100-sxm");
    assert_eq!(h["verdict"], "fits");
    assert!(h["at_min_devices_to_fit"].is_null());
    assert!(f(&h["cost_per_million_tokens_usd"]) > 0.0);
}

#[test]
fn compare_has_a_baseline_a_speedup_the_ratio_behind_it_and_sorts() {
    // Derived with the plain roofline (profile `roofline`).
    let v = json(&["compare", "--profile", "roofline", "-H", "a100,h100,h200"]);
    // The first device that fits is the baseline.
    for r in v.as_array().unwrap() {
        assert_eq!(r["baseline"], "a100-sxm-80gb");
    }
    let a = row(&v, "a100-sxm-80gb");
    let h = row(&v, "h100-sxm");
    assert_eq!(a["speedup"], 1.0);
    // Speedup = T_baseline / T.
    let s = f(&a["latency_s"]) / f(&h["latency_s"]);
    assert!((f(&h["speedup"]) / s - 1.0).abs() < 1e-12);
    // Memory-bound on both: the ratio is the bandwidth, 3.35 / 2.039 = 1.64.
    assert_eq!(h["because"], "1.64x memory bandwidth, memory-bound both");
    let t = text(&["compare", "--profile", "roofline", "-H", "a100,h100,h200"]);
    let l = t.lines().find(|l| l.starts_with("h100-sxm ")).unwrap();
    assert!(l.contains("1.64x"), "{l}");
    assert!(t.contains("speedups over a100-sxm-80gb"), "{t}");

    // --baseline picks another; the speedups turn around.
    let v = json(&[
        "compare",
        "--profile",
        "roofline",
        "-H",
        "a100,h100,h200",
        "--baseline",
        "h100",
    ]);
    assert_eq!(row(&v, "h100-sxm")["speedup"], 1.0);
    assert!(f(&row(&v, "a100-sxm-80gb")["speedup"]) < 1.0);

    // A baseline that does not fit gives way to the first that does, and says so.
    let t = text(&compare(&["--baseline", "a100-sxm-40gb"]));
    assert!(
        t.contains("the baseline a100-sxm-40gb does not fit, so speedups are over h100-sxm"),
        "{t}"
    );
    // A baseline that is not compared is an error naming the flag.
    let o = run(&[
        "compare",
        "--profile",
        "roofline",
        "-H",
        "a100,h100",
        "--baseline",
        "b200",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--baseline"), "{}", stderr(&o));

    // --sort latency: fastest first; --sort cost: cheapest first; fitting rows always first.
    let v = json(&[
        "compare",
        "--profile",
        "roofline",
        "-H",
        "a100,h100,h200",
        "--sort",
        "latency",
    ]);
    let l: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| f(&r["latency_s"]))
        .collect();
    assert!(l.windows(2).all(|w| w[0] <= w[1]), "{l:?}");
    let v = json(&compare(&["--sort", "tokens"]));
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["hardware"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["b200", "h100-sxm", "a100-sxm-40gb"]);
    let v = json(&[
        "compare",
        "--profile",
        "roofline",
        "-H",
        "a100,h100,h200",
        "--sort",
        "cost",
    ]);
    let c: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| f(&r["cost_per_million_tokens_usd"]))
        .collect();
    assert!(c.windows(2).all(|w| w[0] <= w[1]), "{c:?}");
}

#[test]
fn sweep_adds_the_largest_batch_that_fits_and_answers_among_fitting_batches_only() {
    // Derived with the plain roofline (profile `roofline`).
    // Llama-3.1-8B bf16 on an H100 at context 4096: 76.54 GB usable (0.9 x
    // the 85,045,477,376 bytes CUDA reports) less 16.06 GB of weights
    // leaves 60.48 GB; a sequence holds 4097 x 131,072 B = 537 MB of KV plus
    // about 0.6 MB of workspace, so floor(60.48e9 / 537.6e6) = 112
    // sequences fit. The batch at 1 reports it.
    let e = json(&["eval", "--profile", "roofline", "-H", "h100"]);
    assert_eq!(e["max_batch"], 112);
    let v = json(&[
        "sweep",
        "--profile",
        "roofline",
        "-H",
        "h100",
        "--batch",
        "1..1024",
    ]);
    let a = v.as_array().unwrap();
    let batches: Vec<f64> = a.iter().map(|r| f(&r["batch"])).collect();
    assert!(batches.contains(&112.0), "{batches:?}");
    for r in a {
        assert_eq!(r["largest_fitting_batch"], 112);
        assert_eq!(r["best_fitting_batch"], 112.0);
        assert_eq!(r["fits"], f(&r["batch"]) <= 112.0);
    }
    // The most tokens/s of all is at 1024, which does not fit: the summary
    // and the headline stop at 112.
    let t = text(&[
        "sweep",
        "--profile",
        "roofline",
        "-H",
        "h100",
        "--batch",
        "1..1024",
    ]);
    assert!(
        t.contains("the largest batch that fits at context 4096 is 112"),
        "{t}"
    );
    assert!(t.contains("the most tokens/s is 3474 at batch 112"), "{t}");
    let l112 = t.lines().find(|l| l.contains(" 112 ")).unwrap();
    assert!(l112.contains("fits (max)"), "{l112}");
    for l in t.lines().filter(|l| l.starts_with("h100-sxm ")) {
        let b: u64 = l.split_whitespace().nth(1).unwrap().parse().unwrap();
        if b > 112 {
            assert!(l.contains("✗ needs") && !l.contains(" ms"), "{l}");
        }
    }
}

#[test]
fn token_counts_read_k_as_1024() {
    // 8k = 8 x 1024 = 8192 tokens, 128k = 131,072.
    assert_eq!(json(&["eval", "--context", "8k"])["context"], 8192.0);
    assert_eq!(json(&["eval", "--context", "128k"])["context"], 131072.0);
    // --prompt 2k = 2048 tokens; --output 1k = 1024.
    let v = json(&["serve", "--prompt", "2k", "--output", "1k"]);
    assert_eq!(v["prompt_tokens"], 2048.0);
    assert_eq!(v["output_tokens"], 1024.0);
    // Batches are sequences, not tokens: 1k batch is 1000.
    assert_eq!(
        json(&["eval", "--batch", "1k", "-H", "b200"])["batch"],
        1000.0
    );
}

#[test]
fn synth_target_takes_the_workbench_forms() {
    let base = ["synth", "-m", "llama-3.1-8b"];
    let with = |t: &str| {
        let mut a = base.to_vec();
        a.extend(["--target", t]);
        let o = run(&[&a[..], &["-f", "json"]].concat());
        assert!(
            matches!(o.status.code(), Some(0) | Some(3)),
            "{t}: {}",
            stderr(&o)
        );
        serde_json::from_slice::<Value>(&o.stdout).unwrap()
    };
    let v = with("100ms ttft");
    assert_eq!(v["phase"], "prefill");
    assert_eq!(v["target_latency_s"], 0.1);
    let v = with("50ms itl");
    assert_eq!(v["phase"], "decode");
    assert_eq!(v["target_latency_s"], 0.05);
    // 30 tok/s per user is an inter-token target of 1/30 s.
    let v = with("30 tok/s per user");
    assert_eq!(v["target_latency_s"], 1.0 / 30.0);
    // A plain time is the latency of --phase.
    let mut a = base.to_vec();
    a.extend(["--target", "100ms", "--phase", "prefill", "-f", "json"]);
    let v: Value = serde_json::from_str(&text(&a)).unwrap();
    assert_eq!(v["phase"], "prefill");
    let o = run(&["synth", "--target", "soon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("30 tok/s per user"), "{}", stderr(&o));
}

/// Every line of stdout at most `w` characters.
fn fits_width(args: &[&str], w: usize) {
    let o = cmd(args, "C.UTF-8", &w.to_string()).output().unwrap();
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{args:?}: {}",
        stderr(&o)
    );
    let t = String::from_utf8(o.stdout).unwrap();
    for l in t.lines() {
        assert!(l.chars().count() <= w, "{args:?} at {w}: {l:?}");
    }
}

#[test]
fn tables_fit_80_columns_and_wide_shows_every_column() {
    for args in [
        &["compare", "-H", "all", "-m", "llama-3.1-70b"][..],
        &["compare", "-H", "a100,h100,h200,b200"],
        &["sweep", "-H", "all", "-b", "1..64"],
        &["sweep", "-H", "h100,a100-sxm-40gb", "--contexts", "1k..1M"],
        &["serve", "-m", "llama-3.1-70b", "-H", "a100-sxm-40gb"],
        &[
            "fleet",
            "-m",
            "llama-3-70b",
            "--qps",
            "1000",
            "--ttft",
            "100ms",
            "--itl",
            "50ms",
            "--region",
            "us-east,eu-west",
            "--budget",
            "5M",
        ],
        &["sens", "-m", "llama-3.1-70b", "-H", "a100"],
        &["zoo", "hardware"],
        &["zoo", "models"],
        &["zoo", "regions"],
        &["synth", "-m", "llama-3.1-70b", "--target", "50ms"],
    ] {
        fits_width(args, 80);
    }
    let narrow = text(&["zoo", "hardware"]);
    assert!(narrow.contains("--wide"), "{narrow}");
    let wide = text(&["zoo", "hardware", "--wide"]);
    assert!(wide.lines().next().unwrap().contains("aliases"), "{wide}");
    assert!(wide.lines().any(|l| l.chars().count() > 80));
}

#[test]
fn help_wraps_at_the_terminal_width() {
    for args in [
        &["--help"][..],
        &["compare", "--help"],
        &["fleet", "--help"],
    ] {
        let o = cmd(args, "C.UTF-8", "60").output().unwrap();
        assert!(o.status.success());
        let t = String::from_utf8(o.stdout).unwrap();
        // clap does not wrap the usage line; every description is wrapped.
        for l in t.lines().filter(|l| !l.starts_with("Usage:")) {
            assert!(l.chars().count() <= 60, "{args:?}: {l:?}");
        }
    }
}

#[test]
fn large_counts_print_with_units() {
    let t = text(&["zoo", "models"]);
    let l = t.lines().find(|l| l.starts_with("deepseek-v3 ")).unwrap();
    assert!(l.contains("671B"), "{l}");
    assert!(!t.contains("671000000000"), "{t}");
    // Its 128k context (131,072 tokens) reads back as 128k.
    assert!(l.contains("128k"), "{l}");
}

#[test]
fn markdown_and_csv_name_every_column_and_have_no_decoration() {
    for args in [
        &["sens"][..],
        &["compare", "-H", "a100,h100"],
        &["sweep", "-H", "h100", "-b", "1..8"],
        &["zoo", "models"],
        &["fleet", "--qps", "10", "--ttft", "1s", "--itl", "50ms"],
    ] {
        let csv = text(&[args, &["-f", "csv"]].concat());
        let head = csv.lines().next().unwrap();
        assert!(
            head.split(',').all(|h| !h.trim().is_empty()),
            "{args:?}: {head}"
        );
        let md = text(&[args, &["-f", "markdown"]].concat());
        let head = md.lines().find(|l| l.starts_with('|')).unwrap();
        assert!(
            head.trim_matches('|')
                .split('|')
                .all(|h| !h.trim().is_empty()),
            "{args:?}: {head}"
        );
        // No bars of dashes or arrows in cells.
        assert!(
            !md.contains("<-") && !md.contains("-----|"),
            "{args:?}: {md}"
        );
    }
}

#[test]
fn layouts_that_cannot_split_the_model_are_errors_and_the_hint_stays_valid() {
    // Llama-3.1-8B: 32 attention heads, 8 KV heads, 32 layers.
    let o = run(&["eval", "--tp", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("does not divide the 32 attention heads"),
        "{}",
        stderr(&o)
    );
    let o = run(&["eval", "--pp", "65536"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("32 layers"), "{}", stderr(&o));
    // TP 16 over 8 KV heads: each is held by 16 / 8 = 2 ranks, and it says so.
    let t = text(&["eval", "-m", "llama-3.1-70b", "--tp", "16", "-H", "h100"]);
    assert!(t.contains("each KV head is replicated on 2 ranks"), "{t}");
    // A 100M-token context needs 13.1 TB: at most 32 stages (one per layer)
    // of TP 8, 13.1e12 / (8 x 76.5e9) = 21.4 -> 22 stages, 176 devices
    // (76.5 GB = 0.9 x the H100's 85.05 GB).
    let t = text(&["eval", "-H", "h100", "-s", "100000000"]);
    assert!(t.contains("needs 176 devices: try --tp 8 --pp 22"), "{t}");
    // Batch 4 at 1e9 tokens (524 TB) does not fit any layout: no --pp 1821.
    let t = text(&["eval", "-H", "h100", "-s", "1000000000", "-b", "4"]);
    assert!(t.contains("no layout holds it"), "{t}");
    assert!(!t.contains("--pp"), "{t}");
}

#[test]
fn perturb_top_comm_share_utilization_and_floors_say_what_is_wrong() {
    let o = run(&["sens", "--perturb", "10"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("--perturb") && e.contains("\"10%\"") && e.contains("\"0.1\""),
        "{e}"
    );
    for p in ["10%", "0.1"] {
        assert_eq!(json(&["sens", "--perturb", p])["perturb"], 0.1);
    }
    let o = run(&["synth", "--target", "50ms", "--top", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--top"), "{}", stderr(&o));
    for share in ["0", "1"] {
        let o = run(&[
            "synth",
            "-m",
            "llama-3.1-70b",
            "--tp",
            "2",
            "--target",
            "50ms",
            "--comm-share",
            share,
        ]);
        assert_eq!(o.status.code(), Some(3), "{share}");
        let e = stderr(&o);
        assert!(
            e.contains(&format!("communication share of {share}")),
            "{e}"
        );
    }
    // Batch 1 at 200k tokens/s must step in 1 / 200000 s = 5 us, below the
    // 10 us overhead: the floor, not the 50 ms, makes it infeasible.
    let o = run(&["synth", "--target", "50ms", "--min-tokens-per-s", "200k"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("throughput floor of 200k tokens/s"),
        "{}",
        stderr(&o)
    );
    // 1e-308 used to plan 18446744073709551615 replicas.
    let o = run(&[
        "fleet",
        "--qps",
        "10",
        "--ttft",
        "1s",
        "--itl",
        "50ms",
        "--max-utilization",
        "1e-308",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("--max-utilization") && e.contains("1%"), "{e}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("18446744073709551615"));
}

#[test]
fn echoed_values_are_short_and_escaped() {
    let long = "x".repeat(300);
    let o = run(&["eval", "--batch", &long]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(!e.contains(&"x".repeat(81)), "{e}");
    assert!(e.contains("220 more characters"), "{e}");
    let o = run(&["eval", "--model", "\u{1b}[31mred"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!o.stderr.contains(&0x1b), "{:?}", stderr(&o));
    let o = run(&["eval", "--model", &"m".repeat(5000)]);
    assert!(
        !stderr(&o).contains(&"m".repeat(81)),
        "{}",
        stderr(&o).len()
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // Every device, batches up to a million: far more than a pipe buffer.
    let mut child = cmd(&["sweep", "-H", "all", "-b", "1..1M"], "C", "80")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("batch sweep"), "{first}");
    let o = child.wait_with_output().unwrap();
    // 0, or 141 when a shell reports death by SIGPIPE: never 2, and no message.
    use std::os::unix::process::ExitStatusExt;
    assert!(
        o.status.code() == Some(0) || o.status.signal() == Some(13),
        "{:?}: {}",
        o.status,
        stderr(&o)
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn a_profile_with_device_classes_gives_each_device_its_class_values() {
    // llama.cpp has values for datacenter GPUs and Apple silicon: compared
    // side by side, each device's figures are those `eval` gives it alone
    // (its own class's values), and a device in neither class (a TPU) gets
    // the base values.
    let w = [
        "-m",
        "llama-3-8b",
        "--profile",
        "llama.cpp",
        "--phase",
        "prefill",
        "--context",
        "512",
    ];
    let mut args = vec!["compare", "-H", "a100,m2-ultra,tpu-v5p"];
    args.extend(w);
    let cmp = json(&args);
    for id in ["a100", "m2-ultra"] {
        let mut one = vec!["eval", "-H", id];
        one.extend(w);
        let alone = json(&one);
        let hw = alone["hardware"].as_str().unwrap();
        assert_eq!(
            f(&row(&cmp, hw)["latency_s"]),
            f(&alone["latency_s"]),
            "{id}"
        );
    }
    // The base values of catalog/profiles/llama-cpp.toml for the keys its
    // classes set, laid over by name.
    let t: toml::Table = include_str!("../catalog/profiles/llama-cpp.toml")
        .parse()
        .unwrap();
    let value = |k: &str| format!("{k}={}", t["profile"][0][k].as_float().unwrap());
    let (ce, me) = (value("compute_efficiency"), value("memory_efficiency"));
    let mut base = vec!["eval", "-H", "tpu-v5p", "--assume", &ce, "--assume", &me];
    base.extend(w);
    assert_eq!(
        f(&row(&cmp, "tpu-v5p")["latency_s"]),
        f(&json(&base)["latency_s"])
    );
    // The A100's and the M2 Ultra's differ from what the base values give.
    let mut a100_base = base.clone();
    a100_base[2] = "a100";
    assert_ne!(
        f(&row(&cmp, "a100-sxm-80gb")["latency_s"]),
        f(&json(&a100_base)["latency_s"])
    );
    // The profile line names the class.
    let mut text_args = vec!["eval", "-H", "m2-ultra"];
    text_args.extend(w);
    assert!(
        text(&text_args).contains("profile `llama.cpp` (its values for apple devices)"),
        "{}",
        text(&text_args)
    );
}
