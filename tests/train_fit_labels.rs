//! `ridgeline train` shows no step or run figure for a run that does not
//! fit (issue 18, 1), in every format: over random layouts of the catalog's
//! decoders, whenever `fits` is false the JSON carries the step's figures
//! only under `as_asked_does_not_fit` and its run figures as null, and the
//! text, Markdown and CSV name no step time, throughput, MFU or binding
//! term. The command line runs in-process (`cli::run`).

mod common;

use common::cli::in_process as run;
use proptest::prelude::*;
use serde_json::Value;

/// The step's and the run's figures: none of them may show for a run that
/// does not fit.
const STEP_KEYS: &[&str] = &[
    "step_time_s",
    "tokens_per_s",
    "mfu",
    "hfu",
    "binding",
    "elasticities",
];
const RUN_KEYS: &[&str] = &[
    "time_to_train_s",
    "cost_usd",
    "energy_kwh",
    "co2_kg",
    "goodput",
];
const TEXT_FIGURES: &[&str] = &[
    "step time",
    "tokens/s",
    "MFU",
    "HFU",
    "-bound",
    "cost",
    "days",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_run_that_does_not_fit_shows_no_figures(
        model in prop::sample::select(vec!["llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "gpt-3", "qwen2.5-7b"]),
        hw in prop::sample::select(vec!["h100-sxm", "a100-sxm-40gb", "rtx-4090", "b200"]),
        devices in prop::sample::select(vec![1u32, 2, 8, 64]),
        tp in prop::sample::select(vec![1u32, 2, 8]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec!["none", "selective", "dots", "full"]),
        micro in prop::sample::select(vec![1u32, 4]),
    ) {
        let base: Vec<String> = [
            "train", "-m", model, "-H", hw, "--devices", &devices.to_string(), "--tp",
            &tp.to_string(), "--zero", &zero.to_string(), "--recompute", recompute,
            "--micro-batch", &micro.to_string(), "--seq", "4k",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let with = |f: &str| {
            let mut v = base.clone();
            v.extend(["-f".to_string(), f.to_string()]);
            run(&v)
        };
        let (code, json) = with("json");
        // A layout the model refuses (TP over the heads, more devices than
        // a layout takes) is an exit 2 with the reason: nothing to check.
        prop_assume!(code == 0);
        let v: Value = serde_json::from_str(&json).unwrap();
        if v["fits"] == Value::Bool(false) {
            for k in STEP_KEYS {
                prop_assert!(v.get(*k).is_none(), "{k} at the top: {base:?}");
                prop_assert!(v["as_asked_does_not_fit"].get(*k).is_some(), "{k}: {base:?}");
            }
            for k in RUN_KEYS {
                prop_assert!(v[*k].is_null(), "{k}: {base:?}");
            }
            for f in ["table", "markdown"] {
                let (_, text) = with(f);
                prop_assert!(text.contains("DOES NOT FIT"), "{f}: {text}");
                for w in TEXT_FIGURES {
                    prop_assert!(!text.contains(w), "{f} shows {w:?}: {text}");
                }
            }
            let (_, csv) = with("csv");
            for k in STEP_KEYS.iter().chain(RUN_KEYS) {
                prop_assert!(!csv.contains(k), "csv has {k}: {csv}");
            }
        } else {
            prop_assert!(v["step_time_s"].as_f64().is_some_and(|t| t > 0.0));
        }
    }
}
