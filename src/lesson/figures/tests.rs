//! The figures of a state, computed against the built-in catalog.

use super::runs::{SERVING, TRAINING};
use super::*;

#[test]
fn every_figure_is_computed_and_every_name_is_defined() {
    let cat = Catalog::builtin();
    let s = Scenario {
        hardware: Some("a100-sxm-80gb".into()),
        model: Some("llama-3.1-8b".into()),
        compare: vec!["a100-sxm-80gb".into(), "h100-sxm".into()],
        ..Scenario::default()
    };
    let f = compute(&cat, &s).unwrap();
    let names: Vec<&str> = f.0.iter().map(|x| x.name).collect();
    let defs: Vec<&str> = DEFS.iter().map(|d| d.name).collect();
    assert_eq!(names, defs);
    // Each value has its definition's kind.
    for (x, d) in f.0.iter().zip(DEFS) {
        let kind = match x.value {
            Value::Number(_) => Some(Number),
            Value::Text(_) => Some(Text),
            Value::Bool(_) => Some(Bool),
            Value::None => None,
        };
        assert!(kind.is_none_or(|k| k == d.kind), "{}", d.name);
    }
}

fn with_training(model: &str, t: crate::scenario::TrainingSection) -> Scenario {
    Scenario {
        hardware: Some("h100-sxm".into()),
        model: Some(model.into()),
        training: t,
        ..Scenario::default()
    }
}

#[test]
fn the_training_figures_are_a_step_of_the_training_layout() {
    let cat = Catalog::builtin();
    // 64 devices as tp 8 x pp 4 x dp 2, 256k tokens of 8k sequences:
    // 262144 / (2 x 8192) = 16 micro-batches per pipeline, a bubble of
    // (p - 1)/(m + p - 1) = 3/19 = 15.789%.
    let t = crate::scenario::TrainingSection {
        devices: Some(64),
        tp: Some(8),
        pp: Some(4),
        seq: Some(8192.0),
        global_batch: Some(262144.0),
        ..Default::default()
    };
    let f = compute(&cat, &with_training("llama-3.1-70b", t)).unwrap();
    let Value::Number(b) = f.get("train.bubble").unwrap().value else {
        panic!("no bubble")
    };
    assert!((b - 300.0 / 19.0).abs() < 1e-9, "{b}");
    assert_eq!(f.get("train.fits").unwrap().value, Value::Bool(true));
}

#[test]
fn speculative_decoding_yields_the_geometric_series_of_tokens() {
    let cat = Catalog::builtin();
    let mut s = with_training("llama-3.1-8b", Default::default());
    s.serving.batching = Some("continuous".into());
    s.serving.draft = Some("llama-3.2-1b".into());
    s.serving.proposed = Some(4);
    s.serving.acceptance = Some(0.7);
    let f = compute(&cat, &s).unwrap();
    let Value::Number(t) = f.get("serve.tokens_per_step").unwrap().value else {
        panic!("no tokens per step")
    };
    // (1 - 0.7^5) / (1 - 0.7) = (1 - 0.16807) / 0.3 = 2.7731.
    assert!((t - 0.83193 / 0.3).abs() < 1e-9, "{t}");
    // Static batching yields one token a step.
    s.serving.batching = Some("static".into());
    let f = compute(&cat, &s).unwrap();
    assert_eq!(
        f.get("serve.tokens_per_step").unwrap().value,
        Value::Number(1.0)
    );
}

#[test]
fn a_training_step_that_does_not_fit_has_only_its_memory_and_verdict() {
    let cat = Catalog::builtin();
    // Llama 3.1 70B on 8 devices of plain data parallelism without ZeRO:
    // every device holds all 70.6B parameters at 16 bytes each (weights,
    // gradients, Adam state), 1.1 TB against 76.5 GB usable.
    let t = crate::scenario::TrainingSection {
        devices: Some(8),
        zero: Some(0),
        ..Default::default()
    };
    let f = compute(&cat, &with_training("llama-3.1-70b", t)).unwrap();
    assert_eq!(f.get("train.fits").unwrap().value, Value::Bool(false));
    let Value::Number(gb) = f.get("train.memory").unwrap().value else {
        panic!("no memory")
    };
    assert!(gb > 1000.0, "{gb}");
    for name in TRAINING
        .iter()
        .filter(|n| !["train.memory", "train.fits"].contains(n))
    {
        assert_eq!(f.get(name).unwrap().value, Value::None, "{name}");
    }
}

#[test]
fn a_model_that_is_not_a_decoder_has_no_serving_or_training_figures() {
    let cat = Catalog::builtin();
    let f = compute(&cat, &with_training("resnet-50", Default::default())).unwrap();
    for name in SERVING.iter().chain(&TRAINING) {
        assert_eq!(f.get(name).unwrap().value, Value::None, "{name}");
    }
}

#[test]
fn a_training_layout_the_devices_do_not_split_into_says_so() {
    let cat = Catalog::builtin();
    // 12 devices are not a multiple of tp 8.
    let t = crate::scenario::TrainingSection {
        devices: Some(12),
        tp: Some(8),
        ..Default::default()
    };
    let e = compute(&cat, &with_training("llama-3.1-8b", t)).unwrap_err();
    assert!(e.contains("training: 12 devices are not a multiple"), "{e}");
}

#[test]
fn a_device_is_named_without_its_parenthesis() {
    assert_eq!(short_name("NVIDIA B200 (HGX B200, 1000 W)"), "NVIDIA B200");
    assert_eq!(short_name("NVIDIA H100 SXM5 80GB"), "NVIDIA H100 SXM5 80GB");
    assert_eq!(short_name(" (odd)"), " (odd)");
}

#[test]
fn a_state_without_a_model_says_what_to_set() {
    let cat = Catalog::builtin();
    let s = Scenario {
        hardware: Some("a100-sxm-80gb".into()),
        ..Scenario::default()
    };
    let e = compute(&cat, &s).unwrap_err();
    assert!(e.contains("set `model`"), "{e}");
}
