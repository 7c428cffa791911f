//! Solver tests: hand-derived figures (derivation beside each) and property
//! tests of the invariants in solver.md. Shapes come from the models'
//! config.json files; device figures from NVIDIA's A100 datasheet.

use super::cost::{self, step_cost};
use super::roofline::{Bottleneck, Note, Parallelism, evaluate};
use super::sensitivity::{Param, sensitivity};
use super::sweep::{self, batch_sweep, powers_of_two};
use super::synthesis::{RankBy, Target, rank, synthesize};
use super::types::*;
use proptest::prelude::*;

/// NVIDIA A100 SXM 80GB datasheet: 312 TFLOPS bf16 dense, 19.5 fp32,
/// 2,039 GB/s, 80 GB, NVLink 600 GB/s total = 300 GB/s per direction, 8 per HGX node.
pub(super) fn a100() -> Hardware {
    let mut peaks = Peaks::default();
    peaks.set(Precision::Bf16, Some(312e12));
    peaks.set(Precision::Fp16, Some(312e12));
    peaks.set(Precision::Int8, Some(624e12));
    peaks.set(Precision::Tf32, Some(156e12));
    peaks.set(Precision::Fp32, Some(19.5e12));
    Hardware {
        id: "a100-sxm-80gb".into(),
        name: "A100".into(),
        tier: Tier::Cloud,
        year: 2020,
        peaks,
        memory_bytes: 80e9,
        memory_bandwidth: 2.039e12,
        link_bandwidth: Some(300e9),
        devices_per_node: 8,
        scaleout_bandwidth: Some(25e9),
        host_bandwidth: None,
        torus: None,
        tdp_w: Some(400.0),
        price_per_hour_usd: Some(2.0),
        matmul: Peaks::default(),
    }
}

pub(super) fn decoder(
    layers: u32,
    hidden: u32,
    heads: u32,
    kv_heads: u32,
    ffn: u32,
    vocab: u32,
) -> Decoder {
    Decoder {
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim: 128,
        ffn,
        vocab,
        tied_embeddings: false,
        max_context: 131072,
        moe: None,
        mla: None,
        gated_mlp: true,
        window: None,
    }
}

/// Llama-3.1-70B config.json: 80 layers, d 8192, 64 heads, 8 KV heads, ffn 28672, V 128256.
pub(super) fn llama70() -> Model {
    Model {
        id: "llama-3.1-70b".into(),
        name: "Llama 3.1 70B".into(),
        kind: ModelKind::DenseDecoder,
        params: 70.55e9,
        arch: Arch::Decoder(decoder(80, 8192, 64, 8, 28672, 128256)),
        layers: Vec::new(),
    }
}

/// Llama-3.1-8B config.json: 32 layers, d 4096, 32 heads, 8 KV heads, ffn 14336, V 128256.
pub(super) fn llama8() -> Model {
    Model {
        id: "llama-3.1-8b".into(),
        name: "Llama 3.1 8B".into(),
        kind: ModelKind::DenseDecoder,
        params: 8.03e9,
        arch: Arch::Decoder(decoder(32, 4096, 32, 8, 14336, 128256)),
        layers: Vec::new(),
    }
}

/// Mixtral-8x7B: 46.7B total, 12.9B active, 8 experts, top-2, V 32000, d 4096.
pub(super) fn mixtral() -> Model {
    let mut d = decoder(32, 4096, 32, 8, 14336, 32000);
    d.moe = Some(Moe::routed(8, 2, 12.9e9));
    Model {
        id: "mixtral-8x7b".into(),
        name: "Mixtral".into(),
        kind: ModelKind::MoeDecoder,
        params: 46.7e9,
        arch: Arch::Decoder(d),
        layers: Vec::new(),
    }
}

/// ResNet-50 at 224x224: 25.6M parameters, 8.2 GFLOP per image.
pub(super) fn resnet() -> Model {
    Model {
        id: "resnet-50".into(),
        name: "ResNet-50".into(),
        kind: ModelKind::Cnn,
        params: 25.6e6,
        arch: Arch::SinglePass(SinglePass {
            flops_per_sample: 8.2e9,
            activation_elements_per_sample: 10e6,
        }),
        layers: Vec::new(),
    }
}

pub(super) fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn llama70_decode_bytes_and_flops_by_hand() {
    let wl = Workload::default(); // decode, B = 1, S = 4096, bf16
    let c = step_cost(&llama70(), &wl);
    // Streamed: 70.55e9 - V d (128256 * 8192 = 1,050,673,152 gathered, not
    // streamed) = 69,499,326,848 params * 2 bytes = 138,998,653,696 B.
    assert_eq!(c.weight_bytes, 138_998_653_696.0);
    // KV per token 2 * 80 * 8 * 128 * 2 = 327,680 B; * 4096 = 1,342,177,280 B.
    assert_eq!(c.kv_bytes, 1_342_177_280.0);
    // Activations: 80 layers * 1 token * (8 * 8192 + 2 * 28672) * 2 B = 19,660,800 B.
    assert_eq!(c.activation_bytes, 19_660_800.0);
    // FLOPs: 2 * 69,499,326,848 + 4 * 80 * 64 * 128 * 4096 = 149,736,071,936.
    assert_eq!(c.flops, 149_736_071_936.0);
}

#[test]
fn llama70_decode_on_ideal_a100_takes_69_ms_memory_bound() {
    let wl = Workload {
        tp: 2,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &llama70(), &wl, &Assumptions::ideal()).unwrap();
    // Per rank: (138,998,653,696 + 1,342,177,280) / 2 + 19,660,800 (8d is not
    // split; with t = 2: 80 * (65,536 + 28,672) * 2 = 15,073,280) ...
    // weight 69,499,326,848 + KV 671,088,640 + act 15,073,280 = 70,185,488,768 B
    // at 2.039e12 B/s = 34.421 ms.
    assert!(rel(e.memory_s, 70_185_488_768.0 / 2.039e12) < 1e-12);
    // All-reduce: 2 per layer * 80 = 160 of M = 8192 * 2 = 16,384 B;
    // ring with t = 2: 2 * 1/2 * 16,384 / 300e9 = 54.61 ns each: 8.738 us.
    assert!(rel(e.comm_s, 160.0 * 16_384.0 / 300e9) < 1e-12);
    assert_eq!(e.bottleneck, Bottleneck::Memory);
    assert!(rel(e.latency_s, e.memory_s + e.comm_s) < 1e-12);
    // Ridge point of the A100 in bf16: 312e12 / 2.039e12 = 153.0 FLOP/B.
    assert!(rel(e.ridge_point, 153.016) < 1e-4);
    assert!(e.memory.fits);
}

#[test]
fn llama70_in_bf16_does_not_fit_one_a100_and_needs_two() {
    let e = evaluate(
        &a100(),
        &llama70(),
        &Workload::default(),
        &Assumptions::default(),
    )
    .unwrap();
    // 70.55e9 * 2 = 141.1 GB of weights > 80 GB * 0.9 = 72 GB usable.
    assert!(!e.memory.fits);
    assert_eq!(e.memory.footprint.weights, 141.1e9);
    assert_eq!(e.memory.usable_bytes, 72e9);
    assert_eq!(e.max_batch, 0);
    // Two devices: 70.55 GB weights + (4097 * 327,680) / 2 = 671,252,480 B KV
    // + workspace (4 * 8192 + 2 * 28672 / 2) * 2 + 128,256 * 4 / 2 = 379,392 B
    // = 71,221,631,872 B <= 72e9.
    assert_eq!(e.min_devices, Some(Parallelism { tp: 2, pp: 1 }));
    let two = evaluate(
        &a100(),
        &llama70(),
        &Workload {
            tp: 2,
            ..Workload::default()
        },
        &Assumptions::default(),
    )
    .unwrap();
    assert_eq!(two.memory.footprint.total(), 71_221_631_872.0);
    assert!(two.memory.fits);
    // Free 72e9 - 70.55e9 = 1.45e9 B over 671,631,872 B per sequence: 2 sequences.
    assert_eq!(two.max_batch, 2);
}

#[test]
fn llama2_7b_batch1_decode_matches_a_published_a100_measurement() {
    // gpt-fast (pytorch-labs/gpt-fast README, "Benchmarks") measured
    // Llama-2-7B bf16 at 104.9 tok/s on an A100-80GB (batch 1, 5-token
    // prompt, ~200 generated). Llama-2-7B config.json: 32 layers, d 4096,
    // 32 heads (MHA), ffn 11008, V 32000, 6.74e9 params. At S = 128:
    // weights (6.74e9 - 131,072,000) * 2 = 13,217,856,000 B; KV 128 * 524,288
    // = 67,108,864 B; activations 32 * (8 * 4096 + 2 * 11008) * 2 = 3,506,176 B;
    // 13,288,471,040 B / (2.039e12 * 0.7) = 9.310 ms + 10 us -> 107.3 tok/s,
    // 2.3 % above the measurement (their GPU was power-capped at 330 W).
    let model = Model {
        id: "llama-2-7b".into(),
        name: "Llama 2 7B".into(),
        kind: ModelKind::DenseDecoder,
        params: 6.74e9,
        arch: Arch::Decoder(decoder(32, 4096, 32, 32, 11008, 32000)),
        layers: Vec::new(),
    };
    let wl = Workload {
        context: 128.0,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &model, &wl, &Assumptions::default()).unwrap();
    assert_eq!(e.cost.bytes(), 13_288_471_040.0);
    assert!(rel(e.tokens_per_s, 104.9) < 0.03, "{}", e.tokens_per_s);
}

#[test]
fn moe_at_batch_one_streams_only_the_active_experts() {
    // With B = 1 and top-2 of 8, 8 * (1 - (6/8)^1) = 2 experts per layer:
    // exactly the active parameters, less the gathered embedding
    // (12.9e9 - 32000 * 4096 = 12,768,928,000 params).
    let Arch::Decoder(d) = mixtral().arch else {
        unreachable!()
    };
    assert!(rel(d.streamed_params(46.7e9, 1.0), 12_768_928_000.0) < 1e-12);
    // A huge batch touches all 8: the total less the embedding.
    assert!(rel(d.streamed_params(46.7e9, 1e6), 46.7e9 - 131_072_000.0) < 1e-12);
    // FLOPs follow the active parameters: 2 * 12,768,928,000 + attention.
    let c = step_cost(
        &mixtral(),
        &Workload {
            context: 0.0,
            ..Workload::default()
        },
    );
    assert_eq!(c.flops, 2.0 * 12_768_928_000.0);
}

#[test]
fn kv_cache_uses_kv_heads_and_mla_latents() {
    // Llama-3.1-8B: 2 * 32 * 8 * 128 * 2 = 131,072 B per token (GQA, not 32 heads).
    let Arch::Decoder(d) = llama8().arch else {
        unreachable!()
    };
    assert_eq!(d.kv_bytes_per_token(2.0), 131_072.0);
    // DeepSeek-V3 MLA: 61 layers * (512 + 64) * 2 B = 70,272 B per token.
    let mut ds = decoder(61, 7168, 128, 128, 2048, 129280);
    ds.mla = Some(Mla {
        kv_latent: 512,
        rope_dim: 64,
        q_latent: 0,
    });
    assert_eq!(ds.kv_bytes_per_token(2.0), 70_272.0);
    assert_eq!(
        ds.kv_shards(8),
        1,
        "an MLA latent is replicated across TP ranks"
    );
}

#[test]
fn kv_heads_replicate_beyond_tp() {
    // 8 KV heads over TP 16: each rank keeps one head, so KV per rank is KV / 8.
    let wl = Workload {
        tp: 16,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &llama70(), &wl, &Assumptions::default()).unwrap();
    assert_eq!(e.cost.kv_bytes, 1_342_177_280.0 / 8.0);
    assert!(e.notes.contains(&Note::KvReplicated {
        kv_heads: 8,
        tp: 16
    }));
    assert!(
        e.notes
            .iter()
            .any(|n| matches!(n, Note::TpBeyondNode { .. }))
    );
}

#[test]
fn prefill_is_compute_bound_with_causal_attention() {
    let wl = Workload {
        phase: Phase::Prefill,
        context: 2048.0,
        ..Workload::default()
    };
    let c = step_cost(&llama8(), &wl);
    // 2 * (8.03e9 - 525,336,576) * 2048 + 2 * 32 * 32 * 128 * 2048^2 * 1
    // = 30,739,101,384,704 + 1,099,511,627,776 = 31,838,613,012,480 FLOPs.
    assert!(rel(c.flops, 31_838_613_012_480.0) < 1e-12);
    let e = evaluate(&a100(), &llama8(), &wl, &Assumptions::default()).unwrap();
    assert_eq!(e.bottleneck, Bottleneck::Compute);
    // Tokens per second count the prompt tokens.
    assert!(rel(e.tokens_per_s, 2048.0 / e.latency_s) < 1e-12);
}

#[test]
fn single_pass_cnn() {
    // ResNet-50, batch 32: 32 * 8.2e9 = 262.4 GFLOP; bytes 25.6e6 * 2
    // + 2 * 32 * 10e6 * 2 = 51.2 MB + 1.28 GB = 1,331,200,000 B.
    let wl = Workload {
        batch: 32.0,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &resnet(), &wl, &Assumptions::ideal()).unwrap();
    assert_eq!(e.cost.flops, 262.4e9);
    assert_eq!(e.cost.bytes(), 1_331_200_000.0);
    // 262.4e9 / 312e12 = 0.841 ms > 1.3312e9 / 2.039e12 = 0.653 ms.
    assert_eq!(e.bottleneck, Bottleneck::Compute);
    assert!(rel(e.latency_s, 262.4e9 / 312e12) < 1e-12);
}

#[test]
fn precision_falls_back_and_says_so() {
    // The test A100 has no fp8: fp8 math falls back to fp16 (312 TFLOPS).
    let wl = Workload {
        weights: Precision::Fp8,
        activations: Precision::Fp8,
        kv: Precision::Fp8,
        ..Workload::default()
    };
    let e = evaluate(&a100(), &llama8(), &wl, &Assumptions::default()).unwrap();
    assert_eq!(e.compute_precision, Precision::Fp16);
    assert_eq!(e.peak_flops, 312e12);
    assert!(e.notes.contains(&Note::PrecisionFallback {
        requested: Precision::Fp8,
        used: Precision::Fp16
    }));
}

#[test]
fn sensitivity_of_memory_bound_decode() {
    let s = sensitivity(
        &a100(),
        &llama8(),
        &Workload::default(),
        &Assumptions::default(),
        0.1,
    )
    .unwrap();
    let bw = s.row(Param::MemoryBandwidth).unwrap();
    let fl = s.row(Param::PeakFlops).unwrap();
    // e_bw = -t_memory / T = -(T - tau) / T (tau = 10 us on ~11 ms): about -0.999.
    let expect = -s.base.memory_s / s.base.latency_s;
    assert!((bw.elasticity - expect).abs() < 1e-6, "{}", bw.elasticity);
    assert!(fl.elasticity.abs() < 1e-9);
    assert_eq!(s.binding, Some(Param::MemoryBandwidth));
    // +10 % bandwidth: memory time / 1.1, so T falls by t_m (1 - 1/1.1) / T.
    let finite = -s.base.memory_s * (1.0 - 1.0 / 1.1) / s.base.latency_s;
    assert!((bw.finite_change - finite).abs() < 1e-12);
    // Headroom: FLOPs could fall by t_memory / t_compute before binding.
    assert_eq!(s.headroom.param, Param::PeakFlops);
    assert!(rel(s.headroom.factor, s.base.memory_s / s.base.compute_s) < 1e-12);
    assert!(s.fit_margin > 1.0);
    // fp8 weights and KV halve the bytes a memory-bound step moves (the
    // fallback to fp16 math changes nothing here): T falls by about half.
    let p = s.precision_step.unwrap();
    assert_eq!((p.weights, p.kv), (Precision::Fp8, Precision::Fp8));
    let narrow = evaluate(
        &a100(),
        &llama8(),
        &Workload {
            weights: Precision::Fp8,
            kv: Precision::Fp8,
            ..Workload::default()
        },
        &Assumptions::default(),
    )
    .unwrap();
    assert!((p.latency_change - (narrow.latency_s / s.base.latency_s - 1.0)).abs() < 1e-12);
    assert!(
        (-0.5..-0.45).contains(&p.latency_change),
        "{}",
        p.latency_change
    );
}

#[test]
fn elasticity_is_stable_at_the_kink() {
    // Make compute time equal memory time exactly: scale the peak so that
    // FLOPs / peak = bytes / bandwidth. Each side then takes half.
    let model = llama8();
    let wl = Workload::default();
    let c = step_cost(&model, &wl);
    let mut hw = a100();
    hw.peaks = Peaks::default();
    hw.peaks.set(
        Precision::Bf16,
        Some(c.flops * hw.memory_bandwidth / c.bytes()),
    );
    let s = sensitivity(&hw, &model, &wl, &Assumptions::ideal(), 0.1).unwrap();
    let bw = s.row(Param::MemoryBandwidth).unwrap().elasticity;
    let fl = s.row(Param::PeakFlops).unwrap().elasticity;
    assert!(
        (bw + 0.5).abs() < 1e-3 && (fl + 0.5).abs() < 1e-3,
        "{bw} {fl}"
    );
}

#[test]
fn synthesis_asks_for_about_2_8_tb_s_for_llama70_at_50ms() {
    // bytes per step 140,360,491,776 (see the by-hand test above) / 50 ms =
    // 2.8072e12 B/s, with all efficiencies 1 and no overhead.
    let r = synthesize(
        &llama70(),
        &Workload::default(),
        &Assumptions::ideal(),
        &Target {
            latency_s: 0.05,
            min_tokens_per_s: None,
        },
        0.1,
    )
    .unwrap();
    assert!(r.feasible);
    assert!(rel(r.required_memory_bandwidth, 140_360_491_776.0 / 0.05) < 1e-12);
    assert!(rel(r.required_flops_per_s, 149_736_071_936.0 / 0.05) < 1e-12);
    assert!(r.required_link_bandwidth.is_none());
}

#[test]
fn synthesis_infeasible_when_overhead_exceeds_target() {
    let a = Assumptions {
        overhead_s: 0.1,
        ..Assumptions::default()
    };
    let r = synthesize(
        &llama8(),
        &Workload::default(),
        &a,
        &Target {
            latency_s: 0.05,
            min_tokens_per_s: None,
        },
        0.1,
    )
    .unwrap();
    assert!(!r.feasible);
    assert!(r.reason.unwrap().contains("overhead"));
}

#[test]
fn ranking_finds_two_a100s_for_llama70_at_50ms() {
    // One A100 cannot hold 141 GB; two at 34 ms per token meet 50 ms.
    let devices = vec![a100()];
    let m = rank(
        &devices,
        &llama70(),
        &Workload::default(),
        &Assumptions::default(),
        &Target {
            latency_s: 0.05,
            min_tokens_per_s: None,
        },
        RankBy::Cost,
    )
    .unwrap();
    assert!(!m.is_empty());
    assert_eq!(m[0].layout, Parallelism { tp: 2, pp: 1 });
    assert_eq!(m[0].cost_per_hour_usd, Some(4.0));
    assert!(m.iter().all(|x| x.latency_s <= 0.05));
}

#[test]
fn batch_sweep_and_crossover() {
    assert_eq!(
        powers_of_two(1, 512),
        vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    );
    assert_eq!(powers_of_two(3, 20), vec![3, 4, 8, 16, 20]);
    // At S = 4096 each sequence's KV read (537 MB) costs more memory time
    // than its math (17 GFLOP) costs compute time: decode never turns
    // compute-bound, so there is no crossover.
    let long = Workload::default();
    assert_eq!(
        sweep::crossover_batch(&a100(), &llama8(), &long, &Assumptions::ideal()).unwrap(),
        None
    );
    // At S = 256: t_c = B * 15.1e9 / 312e12, t_m = (15.0e9 + B * 34.6e6) / 2.039e12,
    // equal near B = 7.36e-3 / (4.84e-5 - 1.70e-5) ~ 234.
    let wl = Workload {
        context: 256.0,
        ..Workload::default()
    };
    let s = batch_sweep(
        &a100(),
        &llama8(),
        &wl,
        &Assumptions::ideal(),
        &powers_of_two(1, 1024),
    )
    .unwrap();
    assert_eq!(s.points.len(), 11);
    let x = s.crossover_batch.unwrap();
    assert!((200.0..270.0).contains(&x), "{x}");
    // At the crossover, compute time equals memory time.
    let e = evaluate(
        &a100(),
        &llama8(),
        &Workload { batch: x, ..wl },
        &Assumptions::ideal(),
    )
    .unwrap();
    assert!(rel(e.compute_s, e.memory_s) < 1e-6);
    // Throughput only grows with batch here.
    assert!(
        s.points
            .windows(2)
            .all(|w| w[1].tokens_per_s >= w[0].tokens_per_s)
    );
}

/// An H100 SXM as in the catalog (NVIDIA datasheet: 989 TFLOPS bf16
/// dense, 3.35 TB/s, 80 GB).
pub(super) fn h100_80() -> Hardware {
    let mut hw = a100();
    hw.id = "h100-sxm".into();
    hw.peaks = Peaks::default();
    hw.peaks.set(Precision::Bf16, Some(989e12));
    hw.memory_bandwidth = 3.35e12;
    hw
}

#[test]
fn a_batch_sweep_knows_the_largest_batch_that_fits_and_answers_only_among_those() {
    // assets/scenarios/batch-sweep-8b-h100.toml: Llama-3.1-8B on an H100,
    // decode at context 1024, batches 1..1024. Usable 80 GB x 0.9 = 72e9 B;
    // weights 8.03e9 x 2 = 16.06e9 B leave 55.94e9 B. Each sequence holds
    // 1025 x 131,072 = 134,348,800 B of KV and (4 x 4096 + 2 x 14,336) x 2
    // + 128,256 x 4 = 603,136 B of workspace: 134,951,936 B, so
    // floor(55.94e9 / 134,951,936) = floor(414.5) = 414 sequences fit.
    let wl = Workload {
        context: 1024.0,
        ..Workload::default()
    };
    let batches = sweep::batches_with_limit(1, 1024, 414);
    assert_eq!(
        batches,
        vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 414, 512, 1024]
    );
    assert_eq!(
        sweep::batches_with_limit(1, 256, 414),
        powers_of_two(1, 256)
    );
    assert_eq!(
        sweep::batches_with_limit(1, 1024, 512),
        powers_of_two(1, 1024)
    );
    let s = batch_sweep(
        &h100_80(),
        &llama8(),
        &wl,
        &Assumptions::default(),
        &batches,
    )
    .unwrap();
    assert_eq!(s.max_fitting_batch, 414);
    // 512 and 1024 give more tokens/s but do not fit: the answer is 414.
    let last = s.points.len() - 1;
    assert!(s.points[last].tokens_per_s > s.points[9].tokens_per_s);
    assert!(!s.points[10].memory.fits && !s.points[last].memory.fits);
    assert_eq!(s.best_fitting(), Some(9));
    assert_eq!(s.points[9].batch, 414.0);
}

#[test]
fn invalid_inputs_are_typed_errors() {
    let bad = [
        Workload {
            batch: 0.0,
            ..Workload::default()
        },
        Workload {
            batch: -1.0,
            ..Workload::default()
        },
        Workload {
            batch: f64::NAN,
            ..Workload::default()
        },
        Workload {
            context: f64::INFINITY,
            ..Workload::default()
        },
        Workload {
            tp: 0,
            ..Workload::default()
        },
    ];
    for wl in bad {
        assert!(evaluate(&a100(), &llama8(), &wl, &Assumptions::default()).is_err());
    }
    let mut hw = a100();
    hw.memory_bandwidth = 0.0;
    let e = evaluate(
        &hw,
        &llama8(),
        &Workload::default(),
        &Assumptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("memory bandwidth"));
    let a = Assumptions {
        compute_efficiency: 1.5,
        ..Assumptions::default()
    };
    assert!(evaluate(&a100(), &llama8(), &Workload::default(), &a).is_err());
}

#[test]
fn explanation_names_the_bottleneck() {
    let e = evaluate(
        &a100(),
        &llama8(),
        &Workload::default(),
        &Assumptions::default(),
    )
    .unwrap();
    let s = e.explanation();
    assert!(s.contains("memory-bound"), "{s}");
    assert!(s.contains("GB"), "{s}");
}

#[test]
fn footprint_splits_over_pipeline_stages() {
    let wl = Workload {
        pp: 4,
        ..Workload::default()
    };
    let f = cost::footprint(&llama70(), &wl);
    assert_eq!(f.weights, 141.1e9 / 4.0);
}

pub(super) fn arb_hw() -> impl Strategy<Value = Hardware> {
    (1e9f64..1e16, 1e6f64..1e13, 1e6f64..1e12, 1e9f64..1e12).prop_map(|(f, bw, mem, link)| {
        let mut hw = a100();
        hw.peaks = Peaks::default();
        hw.peaks.set(Precision::Bf16, Some(f));
        hw.memory_bandwidth = bw;
        hw.memory_bytes = mem;
        hw.link_bandwidth = Some(link);
        hw
    })
}

pub(super) fn arb_wl() -> impl Strategy<Value = Workload> {
    (1u32..512, 0u32..65536, 0u32..4, 1u32..4, any::<bool>()).prop_map(|(b, s, tp, pp, pre)| {
        Workload {
            phase: if pre { Phase::Prefill } else { Phase::Decode },
            batch: b as f64,
            context: if pre { (s + 1) as f64 } else { s as f64 },
            tp: 1 << tp,
            pp,
            ..Workload::default()
        }
    })
}

pub(super) fn arb_model() -> impl Strategy<Value = Model> {
    prop_oneof![
        Just(llama8()),
        Just(llama70()),
        Just(mixtral()),
        Just(resnet())
    ]
}

proptest! {
    #[test]
    fn more_bandwidth_never_slows_a_step(hw in arb_hw(), m in arb_model(), wl in arb_wl(), k in 1.0f64..10.0) {
        let a = Assumptions::default();
        let base = evaluate(&hw, &m, &wl, &a).unwrap();
        let mut faster = hw.clone();
        faster.memory_bandwidth *= k;
        let e = evaluate(&faster, &m, &wl, &a).unwrap();
        prop_assert!(e.latency_s <= base.latency_s * (1.0 + 1e-12));
    }

    #[test]
    fn bigger_batch_never_lowers_throughput_while_memory_bound(hw in arb_hw(), m in arb_model(), wl in arb_wl()) {
        let a = Assumptions::default();
        let wl = Workload { phase: Phase::Decode, ..wl };
        let e1 = evaluate(&hw, &m, &wl, &a).unwrap();
        let e2 = evaluate(&hw, &m, &Workload { batch: wl.batch * 2.0, ..wl }, &a).unwrap();
        if e1.bottleneck == Bottleneck::Memory && e2.bottleneck == Bottleneck::Memory {
            prop_assert!(e2.tokens_per_s >= e1.tokens_per_s * (1.0 - 1e-12));
        }
    }

    #[test]
    fn synthesis_round_trips(
        m in arb_model(),
        wl in arb_wl(),
        target in 1e-3f64..10.0,
        overlap in 0.0f64..1.0,
        kernel in 0.0f64..1e-5,
        gemm_half_rows in 0.0f64..64.0,
        refined in any::<bool>(),
    ) {
        // The plain roofline, or the calibrated refinements with a fixed
        // algorithm (ring or tree: synthesis costs the one it assumes).
        let a = if refined {
            Assumptions {
                overlap,
                kernel_s: kernel,
                collective_s: 3e-6,
                collective: crate::solver::types::Collective::Tree,
                gemm_half_rows,
                low_precision_efficiency: 0.6,
                attention_efficiency: 0.8,
                dequant_4bit: 0.5,
                request_s: 1e-3,
                ..Assumptions::default()
            }
        } else {
            Assumptions { overlap, ..Assumptions::default() }
        };
        let t = Target { latency_s: target, min_tokens_per_s: None };
        let r = synthesize(&m, &wl, &a, &t, 0.1).unwrap();
        if r.feasible {
            let hw = r.as_hardware(&wl);
            let e = evaluate(&hw, &m, &wl, &a).unwrap();
            prop_assert!(rel(e.latency_s, target) < 1e-9, "{} vs {}", e.latency_s, target);
            prop_assert!(e.memory.fits || rel(e.memory.footprint.total(), e.memory.usable_bytes) < 1e-12);
        }
    }

    #[test]
    fn pure_roofline_elasticities_sum_to_minus_one(hw in arb_hw(), m in arb_model(), wl in arb_wl()) {
        let a = Assumptions::ideal();
        let wl = Workload { tp: 1, pp: 1, ..wl };
        let s = sensitivity(&hw, &m, &wl, &a, 0.1).unwrap();
        let sum = s.row(Param::PeakFlops).unwrap().elasticity + s.row(Param::MemoryBandwidth).unwrap().elasticity;
        prop_assert!((sum + 1.0).abs() < 1e-6, "{sum}");
    }

    #[test]
    fn odd_inputs_never_panic(
        f in prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1.0), Just(0.0), Just(1e300), 1e-300f64..1e300],
        bw in prop_oneof![Just(f64::NAN), Just(0.0), Just(-5.0), Just(1e308), 1e-300f64..1e300],
        b in prop_oneof![Just(f64::NAN), Just(0.0), Just(-3.0), Just(f64::INFINITY), Just(1e300), 1e-3f64..1e12],
        s in prop_oneof![Just(f64::NAN), Just(-1.0), Just(1e300), 0.0f64..1e9],
        eff in prop_oneof![Just(f64::NAN), Just(0.0), Just(2.0), 0.01f64..1.0],
        tp in 0u32..100_000, pp in 0u32..100_000,
        m in arb_model(),
    ) {
        let mut hw = a100();
        hw.peaks.set(Precision::Bf16, Some(f));
        hw.memory_bandwidth = bw;
        let wl = Workload { batch: b, context: s, tp, pp, ..Workload::default() };
        let a = Assumptions { compute_efficiency: eff, ..Assumptions::default() };
        if let Ok(e) = evaluate(&hw, &m, &wl, &a) {
            prop_assert!(!e.latency_s.is_nan());
        }
        let _ = sensitivity(&hw, &m, &wl, &a, 0.1);
        let _ = synthesize(&m, &wl, &a, &Target { latency_s: 0.05, min_tokens_per_s: None }, 0.1);
        let _ = sweep::crossover_batch(&hw, &m, &wl, &a);
    }
}

mod serving_and_fleet {
    use super::*;
    use crate::solver::economics::{self, DEFAULT_IDLE_SHARE};
    use crate::solver::fleet::{self, FleetSpec};
    use crate::solver::serving::{self, Request};

    fn h100() -> Hardware {
        // NVIDIA H100 SXM datasheet: 989 TFLOPS bf16 dense, 3.35 TB/s, 80 GB,
        // NVLink 900 GB/s total = 450 GB/s per direction, 700 W.
        let mut hw = a100();
        hw.id = "h100-sxm".into();
        hw.peaks = Peaks::default();
        hw.peaks.set(Precision::Bf16, Some(989e12));
        hw.memory_bandwidth = 3.35e12;
        hw.link_bandwidth = Some(450e9);
        hw.tdp_w = Some(700.0);
        hw.price_per_hour_usd = Some(3.0);
        hw
    }

    #[test]
    fn serving_figures_by_hand() {
        let req = Request {
            prompt: 2048.0,
            output: 256.0,
        };
        let s = serving::serve(
            &a100(),
            &llama8(),
            &Workload::default(),
            &req,
            &Assumptions::default(),
        )
        .unwrap();
        // TTFT: the 2048-token prefill is compute-bound: 31,838,613,012,480 FLOPs
        // (see prefill_is_compute_bound_with_causal_attention) / (312e12 * 0.7) + 10 us.
        assert!(rel(s.ttft_s, 31_838_613_012_480.0 / (312e12 * 0.7) + 10e-6) < 1e-12);
        // ITL: a decode step at the mean context 2048 + 256 / 2 = 2176.
        let d = evaluate(
            &a100(),
            &llama8(),
            &Workload {
                context: 2176.0,
                ..Workload::default()
            },
            &Assumptions::default(),
        )
        .unwrap();
        assert_eq!(s.itl_s, d.latency_s);
        assert!(rel(s.e2e_s, s.ttft_s + 255.0 * s.itl_s) < 1e-12);
        // KV: 131,072 B per token; 2304 tokens per sequence = 301,989,888 B.
        assert_eq!(s.kv_bytes_per_token, 131_072.0);
        assert_eq!(s.kv_bytes_per_sequence, 301_989_888.0);
        assert!(s.fits && s.free_bytes() > 0.0);
        // Max concurrent at 2305 cached tokens: (72e9 - 16.06e9) / per-sequence footprint.
        let per_seq = crate::solver::cost::per_sequence_footprint(
            &llama8(),
            &Workload {
                context: 2304.0,
                ..Workload::default()
            },
        )
        .total();
        assert_eq!(
            s.max_concurrent,
            ((72e9 - 16.06e9) / per_seq).floor() as u64
        );
        assert!(
            serving::serve(
                &a100(),
                &resnet(),
                &Workload::default(),
                &req,
                &Assumptions::default()
            )
            .is_err()
        );
    }

    #[test]
    fn a_replica_that_does_not_fit_is_shown_on_the_fewest_devices_that_hold_it() {
        // Llama-3.1-70B bf16 on one A100 80GB: 141.1 GB of weights over 72 GB
        // usable. Two hold it: 70.55 GB of weights each plus a 2048 + 256
        // token sequence's KV, 2305 x 327,680 / 2 = 377.7 MB, and a layer's
        // workspace: 70.93 GB <= 72 GB.
        let req = Request {
            prompt: 2048.0,
            output: 256.0,
        };
        let (a, wl) = (Assumptions::default(), Workload::default());
        let asked = serving::serve(&a100(), &llama70(), &wl, &req, &a).unwrap();
        assert!(!asked.fits);
        let (p, s) = serving::at_fewest_devices(&a100(), &llama70(), &wl, &req, &a)
            .unwrap()
            .expect("two A100s hold it");
        assert_eq!(p, Parallelism { tp: 2, pp: 1 });
        assert!(s.fits && s.max_concurrent >= 1);
        assert!(rel(s.footprint.weights, 70.55e9) < 1e-12);
        // A 1 MB device holds nothing on any layout.
        let mut tiny = a100();
        tiny.memory_bytes = 1e6;
        assert_eq!(
            serving::at_fewest_devices(&tiny, &llama70(), &wl, &req, &a).unwrap(),
            None
        );
    }

    #[test]
    fn replica_capacity_by_hand() {
        // TTFT 0.1 s, ITL 0.02 s, B 8, O 101: 1 / (0.1 + 100 * 0.02 / 8) = 1 / 0.35 = 2.857 req/s.
        assert!(rel(serving::replica_capacity(0.1, 0.02, 8.0, 101.0), 1.0 / 0.35) < 1e-12);
    }

    fn spec(ttft: f64, itl: f64) -> FleetSpec {
        FleetSpec {
            qps: 50.0,
            request: Request {
                prompt: 1024.0,
                output: 128.0,
            },
            ttft_sla_s: ttft,
            itl_sla_s: itl,
            budget_usd_per_year: Some(1e6),
            max_utilization: 0.8,
        }
    }

    #[test]
    fn a_replica_runs_at_the_batch_its_share_of_the_load_produces() {
        // Llama-3.1-8B bf16 on an ideal H100 (no overheads), 1024-token
        // prompts, 128-token answers, 20 requests/s on this replica.
        // TTFT: a compute-bound prefill of 2 x 7,504,663,424 x 1024 +
        // 32 x 32 x 256 x 1024^2 = 15,644,428,599,296 FLOP / 989e12 =
        // 15.818 ms. A decode step of n sequences at context 1024 + 64 is
        // memory-bound: (W + n K) / 3.35e12 with W = 15,009,326,848 B of
        // weights and K = 1088 x 131,072 + 3,932,160 = 146,538,496 B a
        // sequence. Steady state: 20 (TTFT + 127 (W / n + K) / 3.35e12) = 1,
        // so n = W / (3.35e12 (1/20 - TTFT) / 127 - K) = 19.877 sequences
        // decoding, each step 5.350 ms; prefills take p = 20 x TTFT = 31.6%
        // of the time, so a user sees 5.350 / (1 - p) = 7.826 ms between
        // tokens, e2e = TTFT + 127 x 7.826 ms = 1.0097 s, and 20 x 1.0097 =
        // 20.19 sequences are in flight (19.88 decoding + 0.32 prefilling).
        let (hw, m, a) = (h100(), llama8(), Assumptions::ideal());
        let wl = Workload::default();
        let req = Request {
            prompt: 1024.0,
            output: 128.0,
        };
        let layout = fleet::Layout {
            hw: &hw,
            model: &m,
            wl: &wl,
            req: &req,
            a: &a,
        };
        let r = layout.replica().unwrap().unwrap();
        assert!(rel(r.ttft_s, 15_644_428_599_296.0 / 989e12) < 1e-12);
        let st = layout.steady_state(&r, 20.0).unwrap().unwrap();
        let ttft = r.ttft_s;
        let n = 15_009_326_848.0 / (3.35e12 * (1.0 / 20.0 - ttft) / 127.0 - 146_538_496.0);
        assert!(rel(st.decoding, n) < 1e-9, "{} vs {n}", st.decoding);
        assert!(rel(st.decoding, 19.877) < 1e-4);
        assert!(rel(st.step_s, (15_009_326_848.0 + n * 146_538_496.0) / 3.35e12) < 1e-9);
        assert!(rel(st.itl_s, st.step_s / (1.0 - 20.0 * ttft)) < 1e-12);
        assert!(rel(st.e2e_s, 1.009_680_2) < 1e-6);
        // Little's law: in flight = arrival rate x time in system.
        assert!(rel(st.in_flight, 20.0 * st.e2e_s) < 1e-12);
        assert!(rel(st.in_flight, 20.193_6) < 1e-5);
        // More load than the full batch carries has no steady state.
        assert_eq!(
            layout.steady_state(&r, r.capacity_rps * 1.01).unwrap(),
            None
        );
        // A light load decodes one sequence at a time, less than one on average.
        let light = layout.steady_state(&r, 0.5).unwrap().unwrap();
        assert!(light.decoding < 1.0);
        assert!(rel(light.step_s, layout.step(1.0).unwrap()) < 1e-12);
    }

    #[test]
    fn fleet_picks_the_cheapest_that_meets_both_slas() {
        let devices = vec![a100(), h100()];
        let s = spec(0.5, 0.05);
        let plan = fleet::size_fleet(
            &devices,
            &llama8(),
            &Workload::default(),
            &s,
            &Assumptions::default(),
            DEFAULT_IDLE_SHARE,
        )
        .unwrap();
        let best = plan.best.expect("an 8B model at 50 qps is servable");
        assert!(fleet::meets(&best, &s));
        assert!(best.ttft_s <= 0.5 && best.itl_s <= 0.05);
        // Replicas: the fewest that carry 50 qps at no more than 80 % of
        // what each replica's full batch carries.
        assert!(best.utilization <= 0.8 + 1e-12);
        let fewer = fleet::evaluate_option(
            best.device,
            &devices[best.device],
            &llama8(),
            &Workload {
                tp: best.layout.tp,
                pp: best.layout.pp,
                ..Workload::default()
            },
            &s,
            &Assumptions::default(),
            DEFAULT_IDLE_SHARE,
            Some(best.replicas - 1),
        )
        .unwrap();
        assert!(best.replicas == 1 || fewer.is_none_or(|o| !fleet::meets(&o, &s)));
        // Each replica runs at the batch its load produces, and holds it.
        let lambda = 50.0 / best.replicas as f64;
        assert!(rel(best.in_flight, lambda * best.e2e_s) < 1e-12);
        assert!(best.batch <= best.max_batch);
        assert!((best.batch as f64) < best.in_flight + 1.0);
        assert_eq!(best.devices, best.replicas * best.layout.devices() as u64);
        // Cost: devices * price; cheapest of every device's best.
        let price = devices[best.device].price_per_hour_usd.unwrap();
        assert!(rel(best.cost_per_hour_usd, best.devices as f64 * price) < 1e-12);
        assert!(
            plan.per_device
                .iter()
                .all(|o| o.cost_per_hour_usd >= best.cost_per_hour_usd)
        );
        assert_eq!(
            best.within_budget,
            Some(best.cost_per_hour_usd * 8760.0 <= 1e6)
        );
    }

    #[test]
    fn a_fleet_over_two_regions_counts_each_figure_once() {
        // Each region's own fleet: 51 and 50 replicas of 8 devices at 1 kW
        // and $10/hour each, 2 J a token, carrying 51 and 50 requests/s.
        let o = fleet::FleetOption {
            device: 0,
            hardware_id: "x".into(),
            layout: Parallelism { tp: 8, pp: 1 },
            batch: 80,
            in_flight: 81.0,
            max_batch: 1024,
            replicas: 101,
            devices: 808,
            ttft_s: 0.07,
            step_s: 0.01,
            itl_s: 0.03,
            e2e_s: 8.0,
            replica_capacity_rps: 12.0,
            utilization: 0.8,
            cost_per_hour_usd: 1010.0,
            cost_per_million_tokens_usd: 1.0,
            power_w: Some(101_000.0),
            energy_per_token_j: Some(2.0),
            within_budget: None,
            precision: crate::solver::Precisions::named(Precision::Bf16),
            mode: fleet::Mode::Aggregated,
            pools: None,
            qps: 960.0,
        };
        let a = economics::Grid {
            gco2_per_kwh: 400.0,
            pue: 1.2,
            usd_per_kwh: 0.1,
        };
        let b = economics::Grid {
            gco2_per_kwh: 300.0,
            pue: 1.1,
            usd_per_kwh: 0.2,
        };
        let part = |n: u64| fleet::FleetOption {
            replicas: n,
            devices: 8 * n,
            cost_per_hour_usd: 10.0 * n as f64,
            power_w: Some(1000.0 * n as f64),
            qps: n as f64,
            ..o.clone()
        };
        let s = fleet::regional(&[part(51), part(50)], &[a, b]);
        let (ra, rb) = (s.regions[0], s.regions[1]);
        assert!(rel(ra.share, 51.0 / 101.0) < 1e-12 && ra.qps == 51.0);
        assert_eq!((ra.replicas, rb.replicas), (51, 50));
        assert_eq!((ra.devices, rb.devices), (408, 400));
        // 51 x $10 = $510 and 50 x $10 = $500 an hour.
        assert!(rel(ra.cost_per_hour_usd, 510.0) < 1e-12);
        assert!(rel(rb.cost_per_hour_usd, 500.0) < 1e-12);
        // 51 kW x 24 h x 1.2 = 1468.8 kWh, x 0.4 kg = 587.52 kg, x $0.1 =
        // $146.88; 50 kW x 24 x 1.1 = 1320 kWh, 396 kg, $264.
        let (da, db) = (ra.daily.unwrap(), rb.daily.unwrap());
        assert!(rel(da.kwh, 1468.8) < 1e-12 && rel(da.kg_co2, 587.52) < 1e-12);
        assert!(rel(db.kwh, 1320.0) < 1e-12 && rel(db.electricity_usd, 264.0) < 1e-12);
        let t = s.total.unwrap();
        assert!(rel(t.kwh, 2788.8) < 1e-12 && rel(t.kg_co2, 983.52) < 1e-12);
        assert!(rel(t.electricity_usd, 410.88) < 1e-12);
        // A million tokens: 2e6 J = 0.5556 kWh; x 1.2 x 400 g = 266.7 g here,
        // x 1.1 x 300 g = 183.3 g there; the fleet's is weighted by the
        // tokens each makes: (51 x 266.7 + 50 x 183.3) / 101 = 225.4 g.
        assert!(rel(ra.co2_per_mtok_g.unwrap(), 2e6 / 3.6e6 * 1.2 * 400.0) < 1e-12);
        assert!(
            rel(
                s.co2_per_mtok_g.unwrap(),
                (51.0 * 266.666_666_666_666_7 + 50.0 * 183.333_333_333_333_3) / 101.0
            ) < 1e-12
        );
    }

    #[test]
    fn an_impossible_ttft_says_why() {
        let plan = fleet::size_fleet(
            &[a100()],
            &llama70(),
            &Workload::default(),
            &spec(1e-4, 0.05),
            &Assumptions::default(),
            0.3,
        )
        .unwrap();
        assert!(plan.best.is_none());
        assert!(plan.reason.unwrap().contains("TTFT"));
    }

    proptest! {
        #[test]
        fn a_looser_sla_never_costs_more(ttft in 0.05f64..2.0, itl in 0.005f64..0.2, k in 1.0f64..4.0, qps in 1.0f64..500.0) {
            let devices = vec![a100(), h100()];
            let a = Assumptions::default();
            let tight = FleetSpec { qps, ..spec(ttft, itl) };
            let loose = FleetSpec { ttft_sla_s: ttft * k, itl_sla_s: itl * k, ..tight };
            let p1 = fleet::size_fleet(&devices, &llama8(), &Workload::default(), &tight, &a, 0.3).unwrap();
            let p2 = fleet::size_fleet(&devices, &llama8(), &Workload::default(), &loose, &a, 0.3).unwrap();
            if let Some(b1) = p1.best {
                let b2 = p2.best.expect("what a tight SLA admits, a loose one does");
                prop_assert!(b2.cost_per_hour_usd <= b1.cost_per_hour_usd);
            }
        }

        #[test]
        fn more_replicas_never_violate_an_sla_fewer_met(tp in 0u32..3, replicas in 1u64..64, qps in 1.0f64..200.0) {
            let s = FleetSpec { qps, ..spec(1.0, 0.1) };
            let wl = Workload { tp: 1 << tp, ..Workload::default() };
            let a = Assumptions::default();
            let n = fleet::evaluate_option(0, &h100(), &llama8(), &wl, &s, &a, 0.3, Some(replicas)).unwrap();
            let n1 = fleet::evaluate_option(0, &h100(), &llama8(), &wl, &s, &a, 0.3, Some(replicas + 1)).unwrap();
            if let (Some(n), Some(n1)) = (&n, &n1) && fleet::meets(n, &s) {
                prop_assert!(fleet::meets(n1, &s));
                prop_assert!(n1.utilization <= n.utilization);
                prop_assert!(n1.batch <= n.batch && n1.itl_s <= n.itl_s);
            }
            // A replica count that carries the load also carries it with one more.
            prop_assert!(n.is_none() || n1.is_some());
        }

        #[test]
        fn energy_per_token_falls_as_batch_rises_while_memory_bound(b in 1u32..256, s in 0u32..16384) {
            let a = Assumptions::default();
            let hw = h100();
            let w1 = Workload { batch: b as f64, context: s as f64, ..Workload::default() };
            let w2 = Workload { batch: (b * 2) as f64, ..w1 };
            let e1 = evaluate(&hw, &llama8(), &w1, &a).unwrap();
            let e2 = evaluate(&hw, &llama8(), &w2, &a).unwrap();
            if e1.bottleneck == Bottleneck::Memory && e2.bottleneck == Bottleneck::Memory {
                let j1 = economics::economics(&hw, 1, e1.tokens_per_s, 1.0, 0.3).energy_per_token_j.unwrap();
                let j2 = economics::economics(&hw, 1, e2.tokens_per_s, 1.0, 0.3).energy_per_token_j.unwrap();
                prop_assert!(j2 <= j1 * (1.0 + 1e-12));
            }
        }
    }
}

#[test]
fn fp16_math_accumulated_in_fp16_runs_at_the_faster_rate_only_where_a_device_has_one() {
    // An RTX 4090 as in the catalog (NVIDIA Ada whitepaper): fp16 165.2
    // TFLOPS with FP32 accumulate, 330.3 with FP16 accumulate; bf16 has no
    // FP16-accumulate path.
    let mut hw = a100();
    hw.peaks = Peaks::default();
    hw.peaks.set(Precision::Bf16, Some(165.2e12));
    hw.peaks.set(Precision::Fp16, Some(165.2e12));
    hw.peaks.fp16_acc16 = Some(330.3e12);
    let p = |prec, acc| hw.compute_peak(prec, acc).unwrap();
    assert_eq!(
        p(Precision::Fp16, Accumulate::Fp32),
        (Precision::Fp16, 165.2e12)
    );
    assert_eq!(
        p(Precision::Fp16, Accumulate::Fp16),
        (Precision::Fp16, 330.3e12)
    );
    assert_eq!(
        p(Precision::Bf16, Accumulate::Fp16),
        (Precision::Bf16, 165.2e12)
    );
    // A device without the figure (an A100: one rate for both) is unmoved.
    let plain = a100();
    assert_eq!(
        plain.compute_peak(Precision::Fp16, Accumulate::Fp16),
        plain.peaks.resolve(Precision::Fp16)
    );
    // A prefill of 2048 tokens of Llama 3 8B in fp16 is compute-bound;
    // accumulated in fp16 its math takes 165.2 / 330.3 = 0.5002 of the
    // time, and the step says which peak it ran at.
    let wl = Workload {
        phase: Phase::Prefill,
        batch: 1.0,
        context: 2048.0,
        weights: Precision::Fp16,
        activations: Precision::Fp16,
        kv: Precision::Fp16,
        ..Workload::default()
    };
    let time = |acc| {
        let a = Assumptions {
            accumulate: acc,
            ..Assumptions::default()
        };
        super::roofline::time_step(&hw, &llama8(), &wl, &a).unwrap()
    };
    let (slow, fast) = (time(Accumulate::Fp32), time(Accumulate::Fp16));
    assert_eq!((slow.peak_flops, fast.peak_flops), (165.2e12, 330.3e12));
    assert!((fast.compute_s / slow.compute_s - 165.2 / 330.3).abs() < 1e-12);
    // Scaling the device's peaks for an elasticity scales this rate too.
    assert_eq!(hw.peaks.scaled(2.0).fp16_acc16, Some(660.6e12));
}
