//! The calibrated refinements of the step model, each checked by hand on
//! the fixtures of `tests.rs`: kernel, MoE-layer and request fixed costs,
//! dequantization, low-precision and attention efficiencies, small-GEMM
//! efficiency, prefill overlap, and the error band.

use super::cost::{self, STEP_KERNELS};
use super::roofline::{Bottleneck, band, evaluate, time_step};
use super::tests::{a100, decoder, llama8, llama70, mixtral, rel};
use super::types::{
    Arch, Assumptions, Collective, Mla, Model, ModelKind, Moe, Phase, Precision, Workload,
};

fn plain() -> Assumptions {
    Assumptions::default()
}

#[test]
fn every_kernel_of_every_layer_pays_the_kernel_time() {
    // Llama-3.1-8B: 32 dense layers of 10 kernels, plus 4 per step = 324;
    // Mixtral: 32 MoE layers of 10 + 4 = 14, plus 4 = 452.
    let wl = Workload::default();
    assert_eq!(cost::step_cost(&llama8(), &wl).kernels, 324.0);
    assert_eq!(cost::step_cost(&mixtral(), &wl).kernels, 452.0);
    let a = Assumptions {
        kernel_s: 5e-6,
        ..plain()
    };
    let t = time_step(&a100(), &llama8(), &wl, &a).unwrap();
    // tau 10 us + 324 x 5 us = 1.63 ms.
    assert!(rel(t.overhead_s, 10e-6 + 324.0 * 5e-6) < 1e-12);
    let t0 = time_step(&a100(), &llama8(), &wl, &plain()).unwrap();
    assert!(rel(t.latency_s - t0.latency_s, 324.0 * 5e-6) < 1e-9);
}

#[test]
fn moe_layers_and_requests_add_their_fixed_times_where_they_apply() {
    let a = Assumptions {
        moe_layer_s: 100e-6,
        request_s: 2e-3,
        ..plain()
    };
    let decode = Workload::default();
    let prefill = Workload {
        phase: Phase::Prefill,
        context: 128.0,
        ..decode
    };
    // Mixtral decode: tau + 32 MoE layers x 100 us; a dense model pays none.
    let t = time_step(&a100(), &mixtral(), &decode, &a).unwrap();
    assert!(rel(t.overhead_s, 10e-6 + 32.0 * 100e-6) < 1e-12);
    let t = time_step(&a100(), &llama8(), &decode, &a).unwrap();
    assert!(rel(t.overhead_s, 10e-6) < 1e-12);
    // The request time is part of a prefill (the time to first token) only.
    let t = time_step(&a100(), &llama8(), &prefill, &a).unwrap();
    assert!(rel(t.overhead_s, 10e-6 + 2e-3) < 1e-12);
}

#[test]
fn weight_only_quantization_streams_its_weights_at_the_dequantized_bandwidth() {
    let hw = a100();
    let int4 = Workload {
        weights: Precision::Int4,
        ..Workload::default()
    };
    let half = Assumptions {
        dequant_4bit: 0.5,
        ..plain()
    };
    let t1 = time_step(&hw, &llama8(), &int4, &plain()).unwrap();
    let t2 = time_step(&hw, &llama8(), &int4, &half).unwrap();
    // At half the bandwidth the weights take twice as long; KV and
    // activations do not change: the difference is one more weight pass.
    let weights = t1.cost.weight_bytes / (hw.memory_bandwidth * 0.7);
    assert!(rel(t2.memory_s - t1.memory_s, weights) < 1e-9);
    // fp8 weights with fp8 math are not weight-only: no dequantization
    // (on a device with fp8 math; the A100 has none, so there they are).
    let mut hw = hw;
    hw.peaks.set(Precision::Fp8, Some(624e12));
    let fp8 = Workload {
        weights: Precision::Fp8,
        activations: Precision::Fp8,
        kv: Precision::Fp8,
        ..Workload::default()
    };
    let eighth = Assumptions {
        dequant_8bit: 0.125,
        ..plain()
    };
    let a = time_step(&hw, &llama8(), &fp8, &plain()).unwrap();
    let b = time_step(&hw, &llama8(), &fp8, &eighth).unwrap();
    assert_eq!(a.memory_s, b.memory_s);
}

#[test]
fn low_precision_and_attention_kernels_reach_their_own_fraction_of_peak() {
    // A 32k-token prefill: attention is a large share of the FLOPs.
    let mut hw = a100();
    hw.peaks.set(Precision::Fp8, Some(624e12));
    let wl = Workload {
        phase: Phase::Prefill,
        context: 32768.0,
        ..Workload::default()
    };
    let c = cost::step_cost(&llama8(), &wl);
    assert!(c.attention_flops > 0.2 * c.flops);
    let a = Assumptions {
        attention_efficiency: 0.5,
        ..plain()
    };
    let t = time_step(&hw, &llama8(), &wl, &a).unwrap();
    // dense / (312e12 x 0.7) + attention / (312e12 x 0.7 x 0.5).
    let want = (c.flops - c.attention_flops) / (312e12 * 0.7) + c.attention_flops / (312e12 * 0.35);
    assert!(rel(t.compute_s, want) < 1e-12);
    // fp8 math at half the bf16 fraction: every FLOP at 624e12 x 0.35.
    let fp8 = Workload {
        activations: Precision::Fp8,
        ..wl
    };
    let low = Assumptions {
        low_precision_efficiency: 0.5,
        ..plain()
    };
    let c8 = cost::step_cost(&llama8(), &fp8);
    let t = time_step(&hw, &llama8(), &fp8, &low).unwrap();
    assert!(rel(t.compute_s, c8.flops / (624e12 * 0.35)) < 1e-12);
}

#[test]
fn a_gemm_of_few_rows_reaches_a_smaller_fraction_of_peak() {
    // m_half = 32: at batch 32 the dense GEMMs run at half of eta_c.
    let a = Assumptions {
        gemm_half_rows: 32.0,
        ..plain()
    };
    let wl = Workload {
        batch: 32.0,
        context: 0.0,
        ..Workload::default()
    };
    let t = time_step(&a100(), &llama8(), &wl, &a).unwrap();
    let c = t.cost;
    assert_eq!(c.attention_flops, 0.0);
    assert!(rel(t.compute_s, c.flops / (312e12 * 0.35)) < 1e-12);
    // Mixtral's experts see 32 x 2 routed tokens over the experts touched,
    // 8 (1 - (6/8)^32) = 7.992: 8.008 rows each.
    let c = cost::step_cost(&mixtral(), &wl);
    assert!(rel(c.expert_rows, 64.0 / (8.0 * (1.0 - 0.75f64.powi(32)))) < 1e-12);
}

#[test]
fn a_prefill_hides_its_share_of_the_all_reduces_behind_its_math() {
    let wl = Workload {
        phase: Phase::Prefill,
        context: 2048.0,
        tp: 4,
        ..Workload::default()
    };
    let a = Assumptions {
        prefill_comm_overlap: 0.5,
        ..plain()
    };
    let open = time_step(&a100(), &llama70(), &wl, &plain()).unwrap();
    let hidden = time_step(&a100(), &llama70(), &wl, &a).unwrap();
    let transfer = open.comm_s - open.comm_latency_s;
    assert!(rel(open.comm_s - hidden.comm_s, 0.5 * transfer) < 1e-9);
    // A decode step hides nothing.
    let d = Workload {
        phase: Phase::Decode,
        ..wl
    };
    let x = time_step(&a100(), &llama70(), &d, &plain()).unwrap();
    let y = time_step(&a100(), &llama70(), &d, &a).unwrap();
    assert_eq!(x.comm_s, y.comm_s);
}

#[test]
fn tensor_parallel_collectives_pay_a_launch_each_and_auto_takes_the_faster() {
    // Llama-70B decode at TP 8: 160 all-reduces of 8192 x 2 B = 16 KiB.
    let wl = Workload {
        tp: 8,
        ..Workload::default()
    };
    let ring = Assumptions {
        collective_s: 5e-6,
        ..plain()
    };
    let t = time_step(&a100(), &llama70(), &wl, &ring).unwrap();
    // Ring: 160 x (5 us + 14 x 1 us) = 3.04 ms of fixed time.
    assert!(rel(t.comm_latency_s, 160.0 * 19e-6) < 1e-12);
    let auto = Assumptions {
        collective: Collective::Auto,
        ..ring
    };
    let t = time_step(&a100(), &llama70(), &wl, &auto).unwrap();
    // Tree: 160 x (5 us + 6 x 1 us) = 1.76 ms: 16 KiB is a small message.
    assert!(rel(t.comm_latency_s, 160.0 * 11e-6) < 1e-12);
}

#[test]
fn the_band_grows_with_the_fixed_share_the_devices_and_quantization() {
    let a = Assumptions {
        band_base: 0.05,
        band_fixed: 0.2,
        band_devices: 0.02,
        band_quantized: 0.1,
        ..plain()
    };
    // 0.05 + 0.2 x 0.5 + 0.02 x log2 8 + 0.1 = 0.31.
    assert!(rel(band(0.5, 8, true, &a), 0.31) < 1e-12);
    assert!(rel(band(0.0, 1, false, &a), 0.05) < 1e-12);
    let e = evaluate(&a100(), &llama8(), &Workload::default(), &a).unwrap();
    let (lo, hi) = e.latency_range();
    assert!(rel(lo, e.latency_s * (-e.band).exp()) < 1e-12);
    assert!(rel(hi * lo, e.latency_s * e.latency_s) < 1e-12);
    let (rlo, rhi) = e.tokens_per_s_range();
    assert!(rel(rlo * hi, e.tokens_per_s * e.latency_s) < 1e-12);
    assert!(rhi > e.tokens_per_s && rlo < e.tokens_per_s);
}

/// DeepSeek-V3 (config.json): 61 layers, d 7168, 128 heads of 128 (MLA,
/// latent 512, RoPE 64, query latent 1536), 256 routed experts of 2048 and
/// one shared, top 8, the first 3 layers dense (18432), 671B total, 37B
/// active, vocabulary 129,280.
pub(super) fn deepseek_v3() -> Model {
    let mut d = decoder(61, 7168, 128, 128, 2048, 129280);
    d.head_dim = 128;
    d.mla = Some(Mla {
        kv_latent: 512,
        rope_dim: 64,
        q_latent: 1536,
    });
    d.moe = Some(Moe {
        shared_ffn: 2048,
        dense_layers: 3,
        dense_ffn: 18432,
        ..Moe::routed(256, 8, 37e9)
    });
    Model {
        id: "deepseek-v3".into(),
        name: "DeepSeek-V3".into(),
        kind: ModelKind::MoeDecoder,
        params: 671e9,
        arch: Arch::Decoder(d),
        layers: Vec::new(),
    }
}

#[test]
fn a_large_moe_at_batch_one_is_dominated_by_its_fixed_costs() {
    // 8 x H200-like devices (4.8 TB/s, 1979 TFLOPS fp8, 141 GB, 450 GB/s
    // links) with the default profile's fixed terms: 6.5 us per kernel,
    // 1 us per collective and per hop, the faster of ring and tree.
    let mut hw = a100();
    hw.memory_bandwidth = 4.8e12;
    hw.memory_bytes = 141e9;
    hw.link_bandwidth = Some(450e9);
    hw.peaks.set(Precision::Fp8, Some(1979e12));
    let a = Assumptions {
        memory_efficiency: 0.82,
        kernel_s: 6.5e-6,
        collective_s: 1e-6,
        collective: Collective::Auto,
        ..plain()
    };
    let wl = Workload {
        weights: Precision::Fp8,
        activations: Precision::Fp8,
        kv: Precision::Fp8,
        tp: 8,
        context: 1024.0,
        ..Workload::default()
    };
    let e = evaluate(&hw, &deepseek_v3(), &wl, &a).unwrap();
    // 3 dense layers x (10 + 6 MLA) + 58 MoE layers x (10 + 6 MLA + 4 MoE)
    // + 4 = 48 + 1160 + 4 = 1212 kernels x 6.5 us = 7.88 ms, against about
    // 1.3 ms of weights: the fixed terms are most of the step, and no
    // bandwidth or FLOP/s buys them down.
    assert_eq!(e.cost.kernels, 3.0 * 16.0 + 58.0 * 20.0 + STEP_KERNELS);
    assert_eq!(e.cost.moe_layers, 58.0);
    assert_eq!(e.bottleneck, Bottleneck::Overhead);
    assert!(
        e.fixed_s() / e.latency_s > 0.7,
        "{}",
        e.fixed_s() / e.latency_s
    );
    assert!(e.memory_s < 2e-3, "{}", e.memory_s);
    // A dense 70B on the same eight is still bound by its weights.
    let dense = evaluate(
        &hw,
        &llama70(),
        &Workload {
            tp: 8,
            ..Workload::default()
        },
        &a,
    )
    .unwrap();
    assert!(dense.fixed_s() / dense.latency_s < 0.7);
}
