//! What the shape fields a config.json carries do to a step, each derived
//! by hand: sliding-window layers (KV cache, attention FLOPs), an MoE's
//! leading dense layers and shared experts, and plain (ungated) MLPs.

use super::cost::{self, footprint, step_cost};
use super::serving::{Request, serve};
use super::tests::{a100, decoder, llama8, rel};
use super::types::{Arch, Assumptions, Model, ModelKind, Moe, Phase, Window, Workload};

/// A 4-layer toy with Llama-3-8B's attention (32 heads, 8 KV heads of 128),
/// two of its layers local with a window of 1024 tokens.
fn windowed() -> Model {
    let mut d = decoder(4, 4096, 32, 8, 14336, 32000);
    d.window = Some(Window {
        tokens: 1024,
        layers: 2,
    });
    Model {
        id: "toy".into(),
        name: "toy".into(),
        kind: ModelKind::DenseDecoder,
        params: 1e9,
        arch: Arch::Decoder(d),
        layers: Vec::new(),
    }
}

fn unwindowed() -> Model {
    let mut m = windowed();
    if let Arch::Decoder(d) = &mut m.arch {
        d.window = None;
    }
    m
}

#[test]
fn a_local_layer_caches_and_reads_at_most_its_window() {
    // bf16 KV: 2 (K and V) x 8 heads x 128 x 2 B = 4096 B per token and
    // layer. At S = 4096: 2 global layers x 4096 + 2 local x 1024 = 10240
    // positions = 41,943,040 B read by one decode step (B = 1).
    let wl = Workload::default();
    let c = step_cost(&windowed(), &wl);
    assert_eq!(c.kv_bytes, 41_943_040.0);
    // Attention: 2 FLOPs x 32 heads x (128 + 128) x 10240 positions =
    // 167,772,160 FLOPs; without the window 4 x 4096 = 16384 positions.
    assert_eq!(c.attention_flops, 167_772_160.0);
    let full = step_cost(&unwindowed(), &wl);
    assert_eq!(full.attention_flops, 2.0 * 32.0 * 256.0 * 16384.0);
    // Within the window nothing changes: S = 1000 < 1024.
    let short = Workload {
        context: 1000.0,
        ..wl
    };
    assert_eq!(
        step_cost(&windowed(), &short),
        step_cost(&unwindowed(), &short)
    );
    // The footprint holds the same 10240 positions plus the new token's
    // (4097 global, 1024 local: min(4097, 1024)) = 2 x 4097 + 2 x 1024.
    let f = footprint(&windowed(), &wl);
    assert_eq!(f.kv, (2.0 * 4097.0 + 2.0 * 1024.0) * 4096.0);
}

#[test]
fn a_long_prompt_attends_over_a_band_in_a_local_layer() {
    // S = 4096, w = 1024. A global layer: S^2/2 = 8,388,608 pairs; a local
    // one: w S - w^2/2 = 4,194,304 - 524,288 = 3,670,016. Two of each:
    // 24,117,248 pairs x 2 FLOPs x 32 heads x 256 = 395,136,991,232 FLOPs.
    let wl = Workload {
        phase: Phase::Prefill,
        ..Workload::default()
    };
    let Arch::Decoder(d) = windowed().arch else {
        unreachable!()
    };
    assert_eq!(d.prompt_pairs(4096.0), 24_117_248.0);
    assert_eq!(
        step_cost(&windowed(), &wl).attention_flops,
        395_136_991_232.0
    );
    // At S = w both forms meet: w^2/2 pairs in every layer.
    assert_eq!(d.prompt_pairs(1024.0), 4.0 * 1024.0 * 1024.0 / 2.0);
    // The prompt writes the cache it keeps: 10240 positions x 4096 B.
    assert_eq!(step_cost(&windowed(), &wl).kv_bytes, 41_943_040.0);
}

#[test]
fn serving_sizes_a_sequence_by_the_cache_it_keeps() {
    // 3000 prompt + 2000 output = 5000 tokens: 2 x 5000 + 2 x 1024 = 12048
    // positions x 4096 B = 49,348,608 B per sequence (not 4 x 5000).
    let req = Request {
        prompt: 3000.0,
        output: 2000.0,
    };
    let s = serve(
        &a100(),
        &windowed(),
        &Workload::default(),
        &req,
        &Assumptions::default(),
    )
    .unwrap();
    assert_eq!(s.kv_bytes_per_sequence, 12048.0 * 4096.0);
    assert_eq!(s.kv_bytes_per_token, 4.0 * 4096.0);
}

#[test]
fn leading_dense_layers_and_shared_experts_change_kernels_and_activations() {
    // 10 layers, the first 2 dense (ffn 8192), 8 MoE of 64 experts of 512,
    // top 4, one shared expert of 1024.
    let mut d = decoder(10, 2048, 16, 16, 512, 32000);
    d.moe = Some(Moe {
        shared_ffn: 1024,
        dense_layers: 2,
        dense_ffn: 8192,
        ..Moe::routed(64, 4, 1e9)
    });
    assert_eq!(d.moe_layers(), 8);
    // MLP width summed over layers: 8 x (4 x 512 + 1024) + 2 x 8192 = 40960.
    assert_eq!(d.mlp_width_sum(), 40960.0);
    // Kernels: 2 dense x 10 + 8 MoE x 14 = 132, plus 4 a step.
    assert_eq!(cost::decoder_kernels(&d), 132.0);
    let m = Model {
        id: "moe".into(),
        name: "moe".into(),
        kind: ModelKind::MoeDecoder,
        params: 5e9,
        arch: Arch::Decoder(d),
        layers: Vec::new(),
    };
    let c = step_cost(&m, &Workload::default());
    assert_eq!(c.kernels, 136.0);
    assert_eq!(c.moe_layers, 8.0);
    // Activations of one token at bf16, TP 1: (8 x 10 layers x 2048 + 2
    // (gate, up) x 40960) x 2 B = (163,840 + 81,920) x 2 = 491,520 B.
    assert_eq!(c.activation_bytes, 491_520.0);
}

#[test]
fn a_plain_mlp_writes_one_intermediate_not_two() {
    // Llama-3.1-8B's shape, one token, bf16: per layer 8 x 4096 plus the
    // MLP's intermediates (2 x 14336 gated, 1 x 14336 plain), x 32 x 2 B.
    let wl = Workload::default();
    let gated = step_cost(&llama8(), &wl).activation_bytes;
    assert_eq!(gated, 32.0 * (8.0 * 4096.0 + 2.0 * 14336.0) * 2.0);
    let mut plain = llama8();
    if let Arch::Decoder(d) = &mut plain.arch {
        d.gated_mlp = false;
    }
    let p = step_cost(&plain, &wl).activation_bytes;
    assert!(rel(gated - p, 32.0 * 14336.0 * 2.0) < 1e-12);
}

#[test]
fn a_mixed_step_adds_its_groups_and_streams_the_weights_once() {
    use super::cost::{Group, mixed_step};
    let Arch::Decoder(d) = windowed().arch else {
        unreachable!()
    };
    // 3 new tokens after 100 cached: 100 + 101 + 102 = 303 positions a
    // global layer; with a window of 101, 100 then 101 and 101 = 302.
    let mut w = d;
    w.window = Some(Window {
        tokens: 101,
        layers: 2,
    });
    assert_eq!(w.extend_positions(100.0, 3.0), 2.0 * 303.0 + 2.0 * 302.0);
    // One decode group is the decode step, plus writing its new token.
    let wl = Workload {
        batch: 8.0,
        ..Workload::default()
    };
    let m = llama8();
    let decode = step_cost(&m, &wl);
    let one = mixed_step(
        &m,
        &wl,
        &[Group {
            sequences: 8.0,
            new: 1.0,
            cached: 4096.0,
        }],
    );
    assert_eq!(one.attention_flops, decode.attention_flops);
    assert_eq!(one.weight_bytes, decode.weight_bytes);
    // 8 tokens x 131,072 B written.
    assert_eq!(one.kv_bytes - decode.kv_bytes, 8.0 * 131_072.0);
    // A 512-token chunk riding along: 520 tokens, the weights once.
    let both = mixed_step(
        &m,
        &wl,
        &[
            Group {
                sequences: 8.0,
                new: 1.0,
                cached: 4096.0,
            },
            Group {
                sequences: 1.0,
                new: 512.0,
                cached: 0.0,
            },
        ],
    );
    assert_eq!(both.tokens, 520.0);
    assert_eq!(both.weight_bytes, decode.weight_bytes);
    assert!(
        rel(both.flops - one.flops, {
            // 2 x 8.03e9 less the gathered embedding (128256 x 4096) x 512,
            // plus the chunk's attention: 32 layers x 2 x 32 heads x 256 x
            // (512 x 511 / 2) pairs.
            let active = 8.03e9 - 128256.0 * 4096.0;
            2.0 * active * 512.0 + 32.0 * 2.0 * 32.0 * 256.0 * (512.0 * 511.0 / 2.0)
        }) < 1e-12
    );
}
