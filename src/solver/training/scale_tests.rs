//! Strong and weak scaling: the knee and the efficiencies derived by hand
//! for pure data parallelism without overlap, and the search's points.

use super::scale::{Batch, Choice, Spec, doublings, scale};
use super::step::Term;
use super::*;
use crate::solver::tests::a100;
use crate::solver::types::{Assumptions, Decoder, Hardware, Model, ModelKind};

/// The 1.2B GPT of the training tests: 24 layers, h 2048, 16 heads of 128,
/// a SwiGLU MLP of 8192, V 50000 tied. N = 12 x 24 x 2048^2 + 50000 x
/// 2048 = 1,310,359,552 parameters.
fn gpt() -> Model {
    let (l, h, v) = (24.0, 2048.0, 50_000.0);
    Model {
        id: "gpt".into(),
        name: "GPT".into(),
        kind: ModelKind::DenseDecoder,
        params: 12.0 * l * h * h + v * h,
        arch: Arch::Decoder(Decoder {
            layers: 24,
            hidden: 2048,
            heads: 16,
            kv_heads: 16,
            head_dim: 128,
            ffn: 8192,
            vocab: 50_000,
            tied_embeddings: true,
            max_context: 8192,
            moe: None,
            mla: None,
            gated_mlp: true,
            window: None,
        }),
        layers: Vec::new(),
    }
}

const N: f64 = 1_310_359_552.0;
/// Model FLOPs per token at 1024 tokens of context: 6 N + 12 L H Q T =
/// 7,862,157,312 + 12 x 24 x 16 x 128 x 1024 (603,979,776).
const F: f64 = 6.0 * N + 603_979_776.0;
/// The A100's bf16 peak.
const PEAK: f64 = 312e12;
/// One device per node on a 25 GB/s network.
const B: f64 = 25e9;

/// An A100 alone in its node (every collective on the 25 GB/s network, a
/// flat ring) with memory so fast that the element-wise kernels and the
/// optimizer step take under 1e-15 s.
fn flat() -> Hardware {
    Hardware {
        devices_per_node: 1,
        link_bandwidth: None,
        memory_bandwidth: 1e30,
        ..a100()
    }
}

/// No overlap of the gradient all-reduce, attention at the peak.
fn no_overlap() -> TrainingAssumptions {
    TrainingAssumptions {
        dp_overlap: 0.0,
        attention_efficiency: 1.0,
        ..TrainingAssumptions::default()
    }
}

/// Pure data parallelism with ZeRO 0 (one all-reduce per step), sequences
/// of 1024, micro-batches of one.
fn pure_dp(devices: Vec<u32>, batch: Batch, knee: f64) -> Spec {
    Spec {
        devices,
        batch,
        base: TrainingRun {
            seq: 1024.0,
            micro_batch: 1,
            zero: 0,
            ..TrainingRun::default()
        },
        choice: Choice::Pinned,
        knee,
    }
}

/// The ring all-reduce of the bf16 gradients over n devices: 2 (n - 1)/n
/// x 2 N bytes over B.
fn all_reduce(n: f64) -> f64 {
    2.0 * (n - 1.0) / n * 2.0 * N / B
}

#[test]
fn strong_scaling_bends_where_the_all_reduce_meets_the_compute() {
    // A global batch of 2^20 tokens on n devices: compute C / n with
    // C = F x 2^20 / peak = 28.45 s, plus the exposed all-reduce R(n).
    // The ideal line from one device (no all-reduce) is n G / C tokens/s,
    // so eff(n) = (G / (C / n + R(n))) / (n G / C) = (C / n) / (C / n +
    // R(n)), the compute's share of the step.
    // It falls below 1/2 exactly when the all-reduce outlasts the compute,
    // per-device tokens x F / peak < R(n): C / n = R(n) at n - 1 =
    // C / (4 N / B) = 28.45 / 0.2097 = 135.7, so of the doublings
    // 128 still computes longer (0.2223 s against 0.2080 s) and 256
    // does not (0.1112 s against 0.2088 s): the knee at 50% is 256.
    let g = 1_048_576.0;
    let c = F * g / PEAK;
    let hw = flat();
    let m = gpt();
    let run = |knee| {
        let spec = pure_dp(doublings(1, 1024), Batch::Strong(g), knee);
        scale(&hw, &m, &spec, &Assumptions::ideal(), &no_overlap()).unwrap()
    };
    let s = run(0.5);
    assert_eq!(s.points.len(), 11);
    for p in &s.points {
        let n = p.devices as f64;
        let f = p.figures().expect("pure DP fits on 80 GB");
        let eff = (c / n) / (c / n + all_reduce(n));
        assert!((f.efficiency / eff - 1.0).abs() < 1e-9, "{n}: {f:?}");
        // The step's only loss is the all-reduce: its share is 1 - eff.
        assert!((f.exposed.dp - (1.0 - eff)).abs() < 1e-9);
        assert_eq!(f.exposed.bubble, 0.0);
    }
    let knee = s.knee.as_ref().expect("a knee");
    assert_eq!(knee.devices, 256);
    let at = |n: u32| s.points.iter().find(|p| p.devices == n).unwrap();
    let f128 = at(128).figures().unwrap();
    let f256 = at(256).figures().unwrap();
    assert!(f128.step.compute_s > f128.step.comm.dp.exposed_s);
    assert!(f256.step.compute_s < f256.step.comm.dp.exposed_s);
    assert_eq!(f256.step.binding, Term::DpComm);
    // 2^20 / 256 = 4096 tokens per device.
    assert_eq!(
        knee.reason,
        "DP gradient all-reduce over the scale-out network exceeds compute: 4096 tokens per device"
    );
    // At the default 80%: eff < 0.8 when (n - 1) x 4N/B > C / 4, n > 34.9,
    // so 32 keeps 81.4% and 64 falls to 68.3%, the all-reduce then
    // R(64) / (C/64 + R(64)) = 0.2064 / (0.4446 + 0.2064) = 31.7% of the step.
    let s = run(super::scale::DEFAULT_KNEE);
    let knee = s.knee.unwrap();
    assert_eq!(knee.devices, 64);
    assert_eq!(
        knee.reason,
        "DP gradient all-reduce over the scale-out network is 31.7% of the step: 16384 tokens per device"
    );
}

#[test]
fn weak_scaling_stays_near_ideal_until_the_all_reduce_binds() {
    // 512 sequences of 1024 tokens per device: compute c = F x 2^19 /
    // peak = 14.23 s a step whatever the device count; the all-reduce is
    // at most 4 N / B = 0.2097 s, so eff(n) = c / (c + R(n)) stays above
    // 14.23 / 14.44 = 98.5%, and no knee.
    let hw = flat();
    let m = gpt();
    let a = Assumptions::ideal();
    let tokens = 512.0 * 1024.0;
    let c = F * tokens / PEAK;
    let spec = pure_dp(doublings(1, 1024), Batch::Weak(tokens), 0.8);
    let s = scale(&hw, &m, &spec, &a, &no_overlap()).unwrap();
    for p in &s.points {
        let n = p.devices as f64;
        let f = p.figures().unwrap();
        let eff = c / (c + all_reduce(n));
        assert!((f.efficiency / eff - 1.0).abs() < 1e-9, "{n}");
        assert!(f.efficiency > 0.985, "{n}: {}", f.efficiency);
        // The global batch grows with the devices.
        assert!((f.step.step_tokens - tokens * n).abs() < 1e-6);
    }
    assert!(s.knee.is_none());
    // One sequence per device: c = F x 1024 / peak = 27.8 ms, and the
    // all-reduce of two devices alone, 2 N / B = 104.8 ms, outlasts it:
    // efficiency c / (c + R(2)) = 21% at the first doubling.
    let spec = pure_dp(doublings(1, 64), Batch::Weak(1024.0), 0.8);
    let s = scale(&hw, &m, &spec, &a, &no_overlap()).unwrap();
    let knee = s.knee.unwrap();
    assert_eq!(knee.devices, 2);
    let f = s.points[1].figures().unwrap();
    let c = F * 1024.0 / PEAK;
    assert!((f.efficiency / (c / (c + all_reduce(2.0))) - 1.0).abs() < 1e-9);
    assert_eq!(f.step.binding, Term::DpComm);
}

#[test]
fn a_point_that_does_not_fit_has_no_figures_and_the_line_starts_after_it() {
    // ZeRO 3 over n devices on 8 GB: 16 N bytes = 21 GB do not fit on one
    // device, and 16 N / 8 = 2.6 GB (with the activations and two
    // gathered layers) do on eight.
    let hw = Hardware {
        memory_bytes: 8e9,
        ..flat()
    };
    let mut spec = pure_dp(vec![1, 8, 16], Batch::Strong(65_536.0), 0.8);
    spec.base.zero = 3;
    let s = scale(
        &hw,
        &gpt(),
        &spec,
        &Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap();
    let why = s.points[0].outcome.as_ref().unwrap_err();
    assert!(why.starts_with("does not fit"), "{why}");
    let (n0, f0) = s.reference().unwrap();
    assert_eq!(n0, 8);
    assert_eq!(f0.efficiency, 1.0);
    assert_eq!(f0.run.layout.dp, 8);
}

#[test]
fn a_pinned_layout_takes_what_the_devices_leave_or_says_why_not() {
    // TP 4 pinned: 4 devices give dp 1, 8 give dp 2, 6 is not a multiple.
    let mut spec = pure_dp(vec![4, 6, 8], Batch::Strong(65_536.0), 0.8);
    spec.base.layout.tp = 4;
    let s = scale(
        &a100(),
        &gpt(),
        &spec,
        &Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap();
    assert_eq!(s.points[0].figures().unwrap().run.layout.dp, 1);
    let why = s.points[1].outcome.as_ref().unwrap_err();
    assert!(
        why.contains("not a multiple of tp x pp x ep x cp = 4"),
        "{why}"
    );
    assert_eq!(s.points[2].figures().unwrap().run.layout.dp, 2);
}

#[test]
fn each_searched_point_is_the_fastest_layout_that_fits() {
    let hw = a100();
    let m = gpt();
    let a = Assumptions::ideal();
    let t = TrainingAssumptions::default();
    let spec = Spec {
        devices: vec![8, 64],
        batch: Batch::Strong(65_536.0),
        base: TrainingRun {
            seq: 1024.0,
            ..TrainingRun::default()
        },
        choice: Choice::Search,
        knee: 0.8,
    };
    let s = scale(&hw, &m, &spec, &a, &t).unwrap();
    for p in &s.points {
        let base = TrainingRun {
            global_batch_tokens: 65_536.0,
            ..spec.base
        };
        let best = layout::search(&hw, &m, &base, p.devices, &a, &t, 1).unwrap();
        let f = p.figures().unwrap();
        assert_eq!(f.run, best.ranked[0].run);
        assert_eq!(f.step.step_time_s, best.ranked[0].step_time_s);
    }
}

#[test]
fn bad_specs_are_refused() {
    let hw = a100();
    let m = gpt();
    let a = Assumptions::ideal();
    let t = TrainingAssumptions::default();
    let bad = [
        pure_dp(vec![], Batch::Strong(1e6), 0.8),
        pure_dp(vec![8, 4], Batch::Strong(1e6), 0.8),
        pure_dp(vec![0, 4], Batch::Strong(1e6), 0.8),
        pure_dp(vec![4], Batch::Strong(-1.0), 0.8),
        pure_dp(vec![4], Batch::Weak(1e4), 0.0),
        pure_dp(vec![4], Batch::Weak(1e4), 1.5),
    ];
    for spec in bad {
        assert!(scale(&hw, &m, &spec, &a, &t).is_err(), "{spec:?}");
    }
}

#[test]
fn doublings_run_from_the_first_count_to_the_last() {
    assert_eq!(doublings(8, 64), vec![8, 16, 32, 64]);
    assert_eq!(doublings(6, 50), vec![6, 12, 24, 48]);
    assert_eq!(doublings(5, 5), vec![5]);
}

#[test]
fn weak_scaling_can_beat_the_ideal_line_as_zero_shards_the_optimizer_step() {
    // ZeRO 1 inside one A100 node, 64 sequences of 1024 tokens per device,
    // the gradients hidden behind backward (DP overlap 1): the step is
    // compute, element-wise kernels, the optimizer and nothing else. The
    // optimizer step reads and writes its state for the P / n parameters a
    // device holds (P (2 x 12 + 2 x 2) bytes over n), so 8 devices take an
    // eighth of one device's, and each device's rate rises above the
    // ideal line drawn from one. No slowdown beside the hidden collective
    // (overlap slowdown 0), so nothing of it shows.
    let m = gpt();
    let spec = Spec {
        devices: vec![1, 8],
        batch: Batch::Weak(64.0 * 1024.0),
        base: TrainingRun {
            seq: 1024.0,
            zero: 1,
            ..TrainingRun::default()
        },
        choice: Choice::Pinned,
        knee: 0.8,
    };
    let s = scale(
        &a100(),
        &m,
        &spec,
        &Assumptions::ideal(),
        &TrainingAssumptions {
            overlap_slowdown: 0.0,
            ..TrainingAssumptions::default()
        },
    )
    .unwrap();
    let (one, eight) = (
        s.points[0].figures().unwrap(),
        s.points[1].figures().unwrap(),
    );
    assert_eq!(eight.step.exposed_comm_s, 0.0);
    assert!((eight.step.optimizer_s * 8.0 / one.step.optimizer_s - 1.0).abs() < 1e-9);
    assert!(eight.efficiency > 1.0, "{}", eight.efficiency);
}

#[test]
fn a_group_beyond_one_pod_leaves_the_ici_for_the_data_centre_network() {
    use crate::solver::types::{Torus, Wrap};
    // Pods of 64 chips on a 4x4x4 torus: a DP group of 64 stays on the
    // ICI; one of 128 spans two pods and so the data-centre network.
    let mut hw = a100();
    hw.devices_per_node = 64;
    hw.torus = Some(Torus {
        dims: [4, 4, 4],
        link_bandwidth: 100e9,
        wrap: Wrap::Cubes(4),
    });
    let run = |dp| TrainingRun {
        layout: Layout {
            dp,
            ..Layout::default()
        },
        zero: 0,
        ..TrainingRun::default()
    };
    let inside = super::scale::collective(Term::DpComm, &run(64), &hw);
    assert_eq!(inside, "DP gradient all-reduce over the ICI torus");
    let beyond = super::scale::collective(Term::DpComm, &run(128), &hw);
    assert_eq!(
        beyond,
        "DP gradient all-reduce beyond one pod's ICI, over the data-centre network"
    );
}

#[test]
fn the_pruned_search_finds_the_full_searchs_fastest() {
    // `fastest` skips layouts whose step before communication (kernels,
    // their bubble, optimizer, overhead) is already slower than the best
    // found: a floor, since collectives only add, and with it the
    // recomputation levels after it (whose floors are higher). It must
    // pick what the full ranking puts first, and skip some on the way.
    let hw = a100();
    let m = gpt();
    let a = Assumptions::default();
    let t = TrainingAssumptions::default();
    let base = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 1024.0 * 1024.0,
        ..TrainingRun::default()
    };
    let mut skipped = 0;
    for n in [8, 64, 512, 4096] {
        let full = layout::search(&hw, &m, &base, n, &a, &t, 1).unwrap();
        let fast = layout::fastest(&hw, &m, &base, n, &a, &t).unwrap();
        assert_eq!(fast.ranked[0].run, full.ranked[0].run, "{n}");
        assert_eq!(fast.ranked[0].step_time_s, full.ranked[0].step_time_s);
        assert!(fast.tried <= full.tried, "{n}");
        assert_eq!(full.skipped, 0);
        skipped += fast.skipped;
    }
    assert!(skipped > 0);
}

#[test]
fn the_floor_is_never_above_the_step() {
    // Every layout of 64 A100s that fits, with and without a pipeline,
    // overlap or not: the floor the pruned search skips by stays under
    // the step time.
    let hw = a100();
    let m = gpt();
    let d = decoder(&m).unwrap();
    let p = Params::of(&m, d);
    let a = Assumptions::default();
    let mc = super::step::Machine::of(&hw, crate::solver::Precision::Bf16).unwrap();
    for t in [TrainingAssumptions::default(), no_overlap()] {
        let base = TrainingRun {
            seq: 1024.0,
            global_batch_tokens: 256.0 * 1024.0,
            ..TrainingRun::default()
        };
        let s = layout::search(&hw, &m, &base, 64, &a, &t, 1000).unwrap();
        assert!(s.ranked.len() > 100);
        for c in &s.ranked {
            let f = super::flops::Flops::of(d, &p, &c.run);
            let floor = super::step::step_floor(&mc, d, &p, &f, &c.run, &a, &t);
            assert!(floor <= c.step_time_s * (1.0 + 1e-12), "{:?}", c.run.layout);
        }
    }
}
