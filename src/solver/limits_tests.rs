//! Limits and nonsense (issue 8 section 5): layouts that cannot split a
//! model are errors, the fit hint never suggests one, counts never wrap,
//! and a synthesis says which input made it infeasible.

use super::fit;
use super::fleet::{self, FleetSpec};
use super::roofline::{Note, evaluate};
use super::serving::Request;
use super::synthesis::{Target, synthesize};
use super::tests::{a100, llama8, llama70};
use super::types::*;
use proptest::prelude::*;

fn wl(tp: u32, pp: u32) -> Workload {
    Workload {
        tp,
        pp,
        ..Workload::default()
    }
}

#[test]
fn tensor_parallelism_must_divide_the_heads_and_stages_the_layers() {
    let a = Assumptions::default();
    // Llama-3.1-8B has 32 attention heads, 8 KV heads and 32 layers.
    let e = evaluate(&a100(), &llama8(), &wl(3, 1), &a).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("does not divide the 32 attention heads"), "{m}");
    assert!(m.contains("1, 2, 4, 8, 16 or 32"), "{m}");
    let m = evaluate(&a100(), &llama8(), &wl(1, 33), &a)
        .unwrap_err()
        .to_string();
    assert!(m.contains("33 pipeline stages for the 32 layers"), "{m}");
    assert!(evaluate(&a100(), &llama8(), &wl(1, 65536), &a).is_err());
    // 256 x 256 = 65536 devices is the most; 512 x 256 is past it (and would
    // be 131072, which a u32 product holds, but 65536 x 65536 would wrap).
    assert!(
        super::roofline::validate_workload(&wl(65536, 65536))
            .unwrap_err()
            .to_string()
            .contains("4294967296 devices")
    );
    // 32 heads and 32 layers: TP 32 and PP 32 are fine.
    assert!(evaluate(&a100(), &llama8(), &wl(32, 1), &a).is_ok());
    assert!(evaluate(&a100(), &llama8(), &wl(1, 32), &a).is_ok());
}

#[test]
fn the_result_says_how_kv_heads_are_replicated() {
    // 8 KV heads over TP 16: 16 / 8 = 2 ranks hold each KV head.
    let e = evaluate(&a100(), &llama70(), &wl(16, 1), &Assumptions::default()).unwrap();
    let n = e
        .notes
        .iter()
        .find(|n| matches!(n, Note::KvReplicated { .. }))
        .expect("a replication note");
    assert_eq!(
        n.to_string(),
        "8 KV heads over TP 16: each KV head is replicated on 2 ranks"
    );
}

#[test]
fn kv_heads_that_split_unevenly_are_an_error() {
    // 48 heads and 8 KV heads: TP 12 divides the heads, but 12 ranks cannot
    // share 8 KV heads evenly (neither 8 nor 12 divides the other).
    let mut m = llama8();
    if let Arch::Decoder(d) = &mut m.arch {
        d.heads = 48;
    }
    let e = evaluate(&a100(), &m, &wl(12, 1), &Assumptions::default()).unwrap_err();
    assert!(e.to_string().contains("unevenly"), "{e}");
    assert!(!fit::tp_splits(&m, 12));
    assert!(fit::tp_splits(&m, 16) && fit::tp_splits(&m, 4));
}

#[test]
fn the_fit_hint_stays_within_the_layers_and_the_heads() {
    // Llama-3.1-8B at a 1e9-token context and batch 4 needs about 524 TB per
    // device: 131,072 B/token * 1e9 * 4. The old search offered TP 4 x PP
    // 1821, more stages than the 32 layers. Now every stage count is at most
    // 32, and with at most 8 x 32 = 256 devices, 524 TB / 8 KV shards / 32
    // stages is still 2 TB per device: nothing holds it.
    let big = Workload {
        batch: 4.0,
        context: 1e9,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &llama8(), &big, &Assumptions::default()).unwrap();
    assert!(!e.memory.fits);
    assert_eq!(e.min_devices, None);
    // At a 100M context (13.1 TB at batch 1): 13.1e12 / (8 shards * 72e9
    // usable) = 22.8, so 23 stages of TP 8, 184 devices.
    let long = Workload {
        context: 1e8,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &llama8(), &long, &Assumptions::default()).unwrap();
    let p = e.min_devices.expect("TP 8 x PP 23 holds it");
    assert!(p.pp <= 32 && p.tp <= 8, "{p:?}");
    assert_eq!(p.devices(), 184, "{p:?}");
}

proptest! {
    #[test]
    fn the_fewest_devices_are_always_a_valid_layout(
        batch in 1u32..4096,
        ctx_log in 0f64..9.0,
        heads_pick in 0usize..4,
    ) {
        // Heads of 32, 40, 48 and 64 with 8 KV heads (40 heads: Llama-2-13B).
        let heads = [32u32, 40, 48, 64][heads_pick];
        let mut m = llama8();
        if let Arch::Decoder(d) = &mut m.arch {
            d.heads = heads;
        }
        let w = Workload {
            batch: batch as f64,
            context: 10f64.powf(ctx_log).round(),
            ..Workload::default()
        };
        let a = Assumptions::default();
        if let Some(p) = fit::min_devices(&a100(), &m, &w, &a) {
            prop_assert!(p.pp <= 32, "{p:?}");
            prop_assert!(heads.is_multiple_of(p.tp), "{p:?} on {heads} heads");
            let at = Workload { tp: p.tp, pp: p.pp, ..w };
            let e = evaluate(&a100(), &m, &at, &a);
            prop_assert!(e.is_ok_and(|e| e.memory.fits), "{p:?}");
        }
    }
}

fn target(latency_s: f64, floor: Option<f64>) -> Target {
    Target {
        latency_s,
        min_tokens_per_s: floor,
    }
}

#[test]
fn a_communication_share_of_0_or_1_is_infeasible_with_the_reason() {
    let a = Assumptions::default();
    // TP 2 communicates every step.
    for share in [0.0, 1.0] {
        let r = synthesize(&llama70(), &wl(2, 1), &a, &target(0.05, None), share).unwrap();
        assert!(!r.feasible, "share {share}");
        let why = r.reason.unwrap();
        assert!(
            why.contains(&format!("communication share of {share}")),
            "{why}"
        );
    }
    // Without communication the share is not used: 0 is fine.
    let r = synthesize(&llama8(), &wl(1, 1), &a, &target(0.05, None), 0.0).unwrap();
    assert!(r.feasible);
}

#[test]
fn a_throughput_floor_that_makes_a_target_infeasible_is_named() {
    // Batch 1 decode at 10k tokens/s must finish a step in 1/10000 s =
    // 100 us; the default 10 us overhead leaves 90 us, so a 1 GHz-class
    // device could do it; at 200k tokens/s the step is 5 us, less than the
    // overhead: infeasible, because of the floor, not the 50 ms target.
    let a = Assumptions::default();
    let r = synthesize(&llama8(), &wl(1, 1), &a, &target(0.05, Some(2e5)), 0.1).unwrap();
    assert!(!r.feasible);
    let why = r.reason.unwrap();
    assert!(why.contains("throughput floor of 200k tokens/s"), "{why}");
    assert!(why.contains("5 us"), "{why}");
    let r = synthesize(&llama8(), &wl(1, 1), &a, &target(0.05, Some(1e4)), 0.1).unwrap();
    assert!(r.feasible);
}

fn spec(max_utilization: f64, qps: f64) -> FleetSpec {
    FleetSpec {
        qps,
        request: Request {
            prompt: 1024.0,
            output: 128.0,
        },
        ttft_sla_s: 1.0,
        itl_sla_s: 0.1,
        budget_usd_per_year: None,
        max_utilization,
    }
}

#[test]
fn fleet_counts_never_wrap() {
    let a = Assumptions::default();
    let m = llama8();
    // A utilization of 1e-308 used to plan 18446744073709551615 replicas.
    let e = fleet::size_fleet(
        &[a100()],
        &m,
        &Workload::default(),
        &spec(1e-308, 10.0),
        &a,
        0.3,
    );
    assert!(e.unwrap_err().to_string().contains("at least 0.01"));
    // An explicit replica count at the top of the range saturates the
    // device count rather than wrapping it.
    if let Some(o) = fleet::evaluate_option(
        0,
        &a100(),
        &m,
        &Workload::default(),
        &spec(0.8, 10.0),
        &a,
        0.3,
        Some(u64::MAX),
    )
    .unwrap()
    {
        assert!(o.devices >= o.replicas, "{o:?}");
    }
}
