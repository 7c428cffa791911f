//! `ridgeline serve --batching continuous`: continuous batching with
//! chunked prefill, prefix caching and speculative decoding from the
//! command line (issue 12, section 3).

mod common;

use common::cli::{json, ridgeline};
use serde_json::Value;

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("{k} missing in {v}"))
}

const BASE: &[&str] = &[
    "serve",
    "-H",
    "a100-sxm-80gb",
    "--prompt",
    "2048",
    "--output",
    "256",
    "-f",
    "json",
];

/// Llama 3.1 8B at batch 32 unless `extra` names another model or batch.
fn serve(extra: &[&str]) -> Value {
    let mut args = BASE.to_vec();
    if !extra.contains(&"-m") {
        args.extend_from_slice(&["-m", "llama-3.1-8b"]);
    }
    if !extra.contains(&"--batch") {
        args.extend_from_slice(&["--batch", "32"]);
    }
    args.extend_from_slice(extra);
    json(&args)
}

/// The exit code and standard error of a run expected to fail.
fn refused(extra: &[&str]) -> (i32, String) {
    let mut args = BASE.to_vec();
    args.extend_from_slice(&["-m", "llama-3.1-8b", "--batch", "32"]);
    args.extend_from_slice(extra);
    let out = ridgeline(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn static_batching_stays_the_default_and_keeps_its_figures() {
    let plain = serve(&[]);
    let named = serve(&["--batching", "static"]);
    assert_eq!(plain["batching"], "static");
    assert_eq!(plain, named);
    // No continuous key leaks into the static answer.
    assert!(plain.get("wait_s").is_none() && plain.get("requests_per_s").is_none());
    assert!(plain.get("ttft_s_low").is_some() && plain.get("max_concurrent").is_some());
}

#[test]
fn prefill_tokens_per_step_are_derived_by_hand() {
    let c = serve(&["--batching", "continuous", "--prefix-hit", "50%"]);
    assert_eq!(c["batching"], "continuous");
    // B P (1 - hit) / O = 32 x 2048 x 0.5 / 256 = 128 prompt tokens a step;
    // room = budget - B = 2048 - 32 = 2016; 128 / 2016 of it in use.
    assert_eq!(f(&c, "prefill_tokens_per_step"), 128.0);
    assert_eq!(f(&c, "prefill_room_tokens"), 2016.0);
    assert!((f(&c, "prefill_room_utilization") - 128.0 / 2016.0).abs() < 1e-12);
    // The 1024 fresh tokens of a prompt fit in one step's room.
    assert_eq!(f(&c, "prefill_steps"), 1.0);
    assert_eq!(f(&c, "token_budget"), 2048.0);
    assert_eq!(f(&c, "prefix_hit"), 0.5);
    // TTFT = wait + prefill; the e2e adds O - 1 = 255 ITLs.
    let (ttft, itl) = (f(&c, "ttft_s"), f(&c, "itl_s"));
    assert!((ttft - f(&c, "wait_s") - f(&c, "prefill_s")).abs() < 1e-12 * ttft);
    assert!((f(&c, "e2e_s") - ttft - 255.0 * itl).abs() < 1e-9 * f(&c, "e2e_s"));
    // B / ITL tokens a second, a request each 256 of them.
    assert!((f(&c, "tokens_per_s") - 32.0 / itl).abs() < 1e-9 * f(&c, "tokens_per_s"));
    assert!((f(&c, "requests_per_s") - 32.0 / itl / 256.0).abs() < 1e-9);
    // The bands hold their figure.
    for k in ["ttft_s", "itl_s", "e2e_s", "tokens_per_s"] {
        let (lo, x, hi) = (
            f(&c, &format!("{k}_low")),
            f(&c, k),
            f(&c, &format!("{k}_high")),
        );
        assert!(lo <= x && x <= hi, "{k}: {lo} {x} {hi}");
    }
    // A budget of 4096 leaves 4096 - 32 = 4064 of room.
    let wide = serve(&["--batching", "continuous", "--token-budget", "4096"]);
    assert_eq!(f(&wide, "prefill_room_tokens"), 4064.0);
}

#[test]
fn a_prefix_cache_hit_lowers_the_time_to_first_token() {
    let cold = serve(&["--batching", "continuous"]);
    let warm = serve(&["--batching", "continuous", "--prefix-hit", "0.75"]);
    assert!(f(&warm, "ttft_s") < f(&cold, "ttft_s"));
    assert!(f(&warm, "prefill_s") < f(&cold, "prefill_s"));
    assert!(f(&warm, "itl_s") < f(&cold, "itl_s"));
}

#[test]
fn speculation_with_nothing_accepted_is_never_faster() {
    let big = [
        "-m",
        "llama-3.1-70b",
        "--tp",
        "4",
        "--batching",
        "continuous",
    ];
    let plain = serve(&big);
    for k in ["1", "4", "8"] {
        let mut args = big.to_vec();
        args.extend_from_slice(&[
            "--draft",
            "llama-3.2-1b",
            "--proposed",
            k,
            "--acceptance",
            "0",
        ]);
        let s = serve(&args);
        // a = 0: (1 - 0^(k+1)) / (1 - 0) = 1 token a target step.
        assert_eq!(f(&s, "tokens_per_target_step"), 1.0);
        assert!(f(&s, "itl_s") >= f(&plain, "itl_s"), "k = {k}");
        assert_eq!(s["speculative"]["draft"], "llama-3.2-1b");
    }
    // k = 4, a = 0.8: (1 - 0.8^5) / 0.2 = 3.3616 tokens a target step.
    // At batch 1 the 70B step is memory-bound: verifying five tokens costs
    // about what one does, so the ITL falls.
    let mut one = big.to_vec();
    one.extend_from_slice(&["--batch", "1"]);
    let alone = serve(&one);
    one.extend_from_slice(&["--draft", "llama-3.2-1b", "--acceptance", "80%"]);
    let s = serve(&one);
    assert!((f(&s, "tokens_per_target_step") - 3.3616).abs() < 1e-12);
    assert_eq!(s["speculative"]["proposed"], 4);
    assert!(f(&s, "itl_s") < f(&alone, "itl_s"));
}

#[test]
fn the_text_names_the_model_in_use_and_splits_the_ttft() {
    let out = ridgeline(&[
        "serve",
        "-m",
        "llama-3.1-8b",
        "--batching",
        "continuous",
        "--batch",
        "32",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "continuous batching",
        "waiting for room",
        "prefill (chunked)",
        "prefill room in use",
        "tokens per target step",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }
}

#[test]
fn a_replica_that_does_not_fit_shows_no_figures() {
    // 70B in bf16 is 141 GB of weights: past one A100's 72 GB usable.
    let out = ridgeline(&[
        "serve",
        "-m",
        "llama-3.1-70b",
        "-H",
        "a100-sxm-80gb",
        "--batching",
        "continuous",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DOES NOT FIT"), "{text}");
    assert!(!text.contains("time to first token"), "{text}");
    let j = json(&[
        "serve",
        "-m",
        "llama-3.1-70b",
        "-H",
        "a100-sxm-80gb",
        "--batching",
        "continuous",
        "-f",
        "json",
    ]);
    assert_eq!(j["fits"], false);
    assert!(j["cost_per_hour_usd"].is_null());
}

#[test]
fn bad_settings_are_refused_with_the_fix() {
    for (args, want) in [
        (&["--token-budget", "4096"][..], "add --batching continuous"),
        (&["--prefix-hit", "0.5"][..], "add --batching continuous"),
        (
            &["--draft", "llama-3.2-1b"][..],
            "add --batching continuous",
        ),
        (
            &["--batching", "continuous", "--prefix-hit", "1"][..],
            "below 1",
        ),
        (
            &["--batching", "continuous", "--prefix-hit", "-0.1"][..],
            "0 to 1",
        ),
        (
            &["--batching", "continuous", "--token-budget", "0"][..],
            "1 or more",
        ),
        (
            &["--batching", "continuous", "--acceptance", "0.5"][..],
            "add --draft",
        ),
        (
            &[
                "--batching",
                "continuous",
                "--draft",
                "llama-3.2-1b",
                "--acceptance",
                "1.5",
            ][..],
            "0 to 1",
        ),
        (
            &[
                "--batching",
                "continuous",
                "--draft",
                "llama-3.2-1b",
                "--proposed",
                "65",
            ][..],
            "1 to 64",
        ),
        (
            &["--batching", "continuous", "--draft", "no-such-model"][..],
            "--draft",
        ),
        (
            &["--batching", "continuous", "--draft", "bert-base"][..],
            "not a decoder",
        ),
        // 32 decode tokens fill a budget of 32: no room for prefill.
        (
            &["--batching", "continuous", "--token-budget", "32"][..],
            "raise the budget",
        ),
        (&["--batching", "sometimes"][..], "continuous"),
    ] {
        let (code, err) = refused(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn a_draft_resolves_from_a_config_json_like_any_model() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hf/llama-3.2-1b"
    );
    let out = ridgeline(&[
        "serve",
        "-m",
        "llama-3.1-70b",
        "--tp",
        "4",
        "--batching",
        "continuous",
        "--draft",
        dir,
        "-f",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let draft = j["speculative"]["draft"].as_str().unwrap();
    assert!(draft.starts_with("llama-3.2-1b"), "{draft}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--draft"));
}
