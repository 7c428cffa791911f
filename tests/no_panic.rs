//! Nothing panics on user input: random command lines through the real
//! parser and dispatcher, and every catalog model on every catalog device.

use clap::Parser;
use proptest::prelude::*;
use ridgeline::catalog::Catalog;
use ridgeline::cli::{self, args::Cli};
use ridgeline::solver::{self, Assumptions, Phase, Precision, Workload};

fn run(args: &[String]) -> Option<i32> {
    let cli =
        Cli::try_parse_from(std::iter::once("ridgeline".to_string()).chain(args.iter().cloned()))
            .ok()?;
    let command = cli.command.as_ref()?;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    Some(cli::run(&cli, command, &mut out, &mut err))
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("1e308".to_string()),
        Just("8k".to_string()),
        Just("1..512".to_string()),
        Just("50ms".to_string()),
        Just("all".to_string()),
        Just("h100".to_string()),
        Just("resnet-50".to_string()),
        Just("deepseek-v3".to_string()),
        Just("fp4".to_string()),
        "[a-z0-9.%-]{0,8}",
        (0u64..100_000).prop_map(|n| n.to_string()),
    ]
}

fn flag() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "--model",
        "--hardware",
        "--phase",
        "--batch",
        "--context",
        "--precision",
        "--weights",
        "--kv",
        "--tp",
        "--pp",
        "--compute-eff",
        "--memory-eff",
        "--overhead",
        "--overlap",
        "--usable-memory",
        "--target",
        "--qps",
        "--ttft",
        "--itl",
        "--prompt",
        "--output",
        "--budget",
        "--region",
        "--perturb",
        "--contexts",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_command_lines_never_panic(
        sub in prop::sample::select(vec!["eval", "sens", "synth", "compare", "sweep", "serve", "fleet"]),
        pairs in prop::collection::vec((flag(), value()), 0..5),
    ) {
        let mut args = vec![sub.to_string(), "-f".into(), "json".into()];
        for (f, v) in pairs {
            args.push(f.to_string());
            args.push(v);
        }
        // Keep sweeps and fleets over the whole catalog small enough to be quick.
        if let Some(code) = run(&args) {
            prop_assert!(matches!(code, 0 | 2 | 3), "{args:?} -> {code}");
        }
    }
}

#[test]
fn every_model_on_every_device_evaluates_or_says_why() {
    let cat = Catalog::builtin();
    let a = Assumptions::default();
    for m in &cat.models {
        for h in &cat.hardware {
            for phase in [Phase::Decode, Phase::Prefill] {
                for p in [Precision::Bf16, Precision::Int4] {
                    let wl = Workload {
                        phase,
                        weights: p,
                        activations: p,
                        kv: p,
                        ..Workload::default()
                    };
                    match solver::evaluate(&h.hw, &m.model, &wl, &a) {
                        Ok(e) => assert!(
                            e.latency_s.is_finite() && e.latency_s > 0.0,
                            "{} {}",
                            m.model.id,
                            h.hw.id
                        ),
                        Err(e) => assert!(!e.to_string().is_empty()),
                    }
                }
            }
        }
    }
}
