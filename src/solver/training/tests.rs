//! Training: hand-derived figures (the derivation beside each), published
//! figures with their source, and invariants.

use super::flops::Flops;
use super::memory::{layer_activations, states};
use super::run::{RunSpec, TokensToTrain, run_figures, young_daly};
use super::step::{Knob, elasticities, exposed};
use super::*;
use crate::solver::types::{Assumptions, Decoder, Model, ModelKind, Moe};
use proptest::prelude::*;

/// A GPT-style dense decoder: 12 L h^2 + V h parameters (tied embeddings).
fn gpt(layers: u32, hidden: u32, heads: u32, vocab: u32) -> Model {
    let (l, h, v) = (layers as f64, hidden as f64, vocab as f64);
    Model {
        id: "gpt".into(),
        name: "GPT".into(),
        kind: ModelKind::DenseDecoder,
        params: 12.0 * l * h * h + v * h,
        arch: Arch::Decoder(Decoder {
            layers,
            hidden,
            heads,
            kv_heads: heads,
            head_dim: hidden / heads,
            ffn: 4 * hidden,
            vocab,
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

// An A100 80GB as the catalog has it: 312 TFLOPS bf16, 2039 GB/s, NVLink
// 300 GB/s per direction in nodes of 8, a 200 Gb/s NIC (25 GB/s), 400 W,
// $2 per hour.
use crate::solver::tests::a100;

fn eval(model: &Model, run: &TrainingRun) -> Training {
    eval_on(&a100(), model, run)
}

/// One step on `hw` with ideal efficiencies and the default training
/// assumptions.
fn eval_on(hw: &crate::solver::types::Hardware, model: &Model, run: &TrainingRun) -> Training {
    evaluate(
        hw,
        model,
        run,
        &Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap()
}

fn layout(dp: u32, tp: u32, pp: u32) -> Layout {
    Layout {
        dp,
        tp,
        pp,
        ..Layout::default()
    }
}

#[test]
fn bf16_with_adam_keeps_sixteen_bytes_per_parameter() {
    // 2 (bf16 weights) + 2 (bf16 gradients) + 4 (fp32 master) + 8 (two
    // fp32 moments) = 16 bytes per parameter on one device.
    let m = gpt(24, 2048, 16, 50_000);
    let p = Params::of(&m, decoder(&m).unwrap());
    let run = TrainingRun::default();
    let (w, g, o) = states(&p, &run, &TrainingAssumptions::default());
    assert!((w + g + o - 16.0 * m.params).abs() < 1.0);
    assert_eq!(run.optimizer_bytes(), 12.0);
    // 8-bit Adam: moments of 1 byte each, 2 + 2 + 4 + 2 = 10.
    let small = TrainingRun {
        optimizer: Optimizer::Adam8bit,
        ..run
    };
    let (w, g, o) = states(&p, &small, &TrainingAssumptions::default());
    assert!((w + g + o - 10.0 * m.params).abs() < 1.0);
}

#[test]
fn zero_stages_shard_optimizer_then_gradients_then_weights() {
    // Over 8 data-parallel ranks: ZeRO 1 = 2 + 2 + 12/8 = 5.5 bytes per
    // parameter; ZeRO 2 = 2 + 14/8 = 3.75; ZeRO 3 = 16/8 = 2.
    let m = gpt(24, 2048, 16, 50_000);
    let p = Params::of(&m, decoder(&m).unwrap());
    for (zero, per) in [(0, 16.0), (1, 5.5), (2, 3.75), (3, 2.0)] {
        let run = TrainingRun {
            layout: layout(8, 1, 1),
            zero,
            ..TrainingRun::default()
        };
        let (w, g, o) = states(&p, &run, &TrainingAssumptions::default());
        assert!((w + g + o - per * m.params).abs() < 1.0, "ZeRO {zero}");
    }
}

#[test]
fn eager_attention_with_dropout_follows_korthikanti() {
    // GPT-3 175B, s = 2048, b = 1, h = 12288, a = 96, a plain 4h MLP,
    // eager attention with dropout (as Megatron-LM ran it), no
    // recomputation: s b h (34 + 5 a s / h) (Korthikanti et al. 2022,
    // equation 1) = 2048 * 12288 * (34 + 5 * 96 * 2048 / 12288)
    // = 2048 * 12288 * 114 = 2.869e9 bytes per layer; TP 8 with sequence
    // parallelism divides it by 8; selective keeps the 34; full keeps the
    // 2 s b h input.
    let mut m = gpt(96, 12288, 96, 50_257);
    if let Arch::Decoder(d) = &mut m.arch {
        d.gated_mlp = false;
    }
    let d = decoder(&m).unwrap();
    let run = TrainingRun {
        seq: 2048.0,
        global_batch_tokens: 2048.0 * 8.0,
        layout: layout(1, 8, 1),
        attention: Attention::Eager,
        dropout: true,
        ..TrainingRun::default()
    };
    let t = TrainingAssumptions::default();
    let sbh = 2048.0 * 12288.0;
    let at = |r| layer_activations(d, &run, &t, r);
    assert!((at(Recompute::None) - sbh * 114.0 / 8.0).abs() < 1.0);
    assert!((at(Recompute::Selective) - sbh * 34.0 / 8.0).abs() < 1.0);
    assert!((at(Recompute::Full) - sbh * 2.0 / 8.0).abs() < 1.0);
}

/// Llama 3 8B's shape: h 4096, 32 heads of 128, 8 KV heads, a SwiGLU MLP
/// of 14336, 32 layers, a vocabulary of 128256, untied.
fn llama_8b() -> Model {
    let mut m = gpt(32, 4096, 32, 128_256);
    m.params = 8.03e9;
    if let Arch::Decoder(d) = &mut m.arch {
        d.kv_heads = 8;
        d.ffn = 14336;
        d.tied_embeddings = false;
    }
    m
}

#[test]
fn flash_attention_activations_follow_the_models_shape() {
    // Per token and layer at 16 bits, FlashAttention, no dropout: norms'
    // inputs 2 x 2h, QKV input 2h, Q 2 a d_h = 2h, K and V 2 x 2 h_kv d_h,
    // output 2h, MLP input 2h, SwiGLU's gate, up and product 3 x 2f, the
    // fp32 log-sum-exp 4a: 12 x 4096 + 4 x 1024 + 6 x 14336 + 4 x 32
    // = 49152 + 4096 + 86016 + 128 = 139392 bytes; x 8192 tokens.
    let m = llama_8b();
    let d = decoder(&m).unwrap();
    let t = TrainingAssumptions::default();
    let run = TrainingRun {
        layout: layout(8, 1, 1),
        ..TrainingRun::default()
    };
    let at = |run: &TrainingRun, r| layer_activations(d, run, &t, r);
    assert_eq!(at(&run, Recompute::None), 139_392.0 * 8192.0);
    // Selective recomputes flash's statistics alone: 139392 - 128.
    assert_eq!(at(&run, Recompute::Selective), 139_264.0 * 8192.0);
    // Dots: layer input 2h, Q K V (2h + 4 x 1024), the out projection's
    // output 2h, gate and up 2 x 2f (the down projection's output feeds
    // only the residual sum, which backward does not read):
    // 4 x 4096 + 8192 + 4096 + 4 x 14336 = 86016.
    assert_eq!(at(&run, Recompute::Dots), 86_016.0 * 8192.0);
    // Full: the layer's input, 2h = 8192.
    assert_eq!(at(&run, Recompute::Full), 8192.0 * 8192.0);
    // TP 8 splits every term: 8 KV heads leave one per rank.
    let tp8 = TrainingRun {
        layout: layout(1, 8, 1),
        ..run
    };
    assert_eq!(at(&tp8, Recompute::None), 139_392.0 / 8.0 * 8192.0);
    // TP 16: the 8 KV heads replicate, one per rank (not half of one):
    // 12 x 256 + 4 x 128 + 6 x 896 + 4 x 2 = 3072 + 512 + 5376 + 8 = 8968.
    let tp16 = TrainingRun {
        layout: layout(1, 16, 1),
        ..run
    };
    assert_eq!(at(&tp16, Recompute::None), 8968.0 * 8192.0);
    // Eager attention adds the softmax output, 2 a s = 2 x 32 x 8192 per
    // token, and drops the log-sum-exp.
    let eager = TrainingRun {
        attention: Attention::Eager,
        ..run
    };
    assert_eq!(
        at(&eager, Recompute::None),
        (139_264.0 + 2.0 * 32.0 * 8192.0) * 8192.0
    );
}

#[test]
fn the_last_stage_keeps_the_losss_fp32_logits() {
    // Final norm and head inputs 2 x 2h at 16 bits and fp32 logits 4 V per
    // token: 8192 x (4 x 4096 + 4 x 128256) = 8192 x 529408 bytes.
    let m = llama_8b();
    let d = decoder(&m).unwrap();
    let run = TrainingRun::default();
    let t = TrainingAssumptions::default();
    assert_eq!(memory::logits_bytes(d, &run, &t), 8192.0 * 529_408.0);
    // One device holds everything: 32 layers of activations, the logits,
    // and 16 bytes per parameter.
    let tr = eval_on(&crate::solver::tests::a100(), &m, &run);
    let mem = &tr.memory;
    assert_eq!(mem.stage, memory::Stage::Only);
    assert!((mem.activations - 32.0 * 139_392.0 * 8192.0).abs() < 1.0);
    assert!((mem.weights + mem.gradients + mem.optimizer - 16.0 * 8.03e9).abs() < 1e3);
    assert_eq!(mem.gathered, 0.0);
}

#[test]
fn full_recomputation_rebuilds_a_layer_where_the_logits_were() {
    // Llama 8B on one device, one sequence of 8192, recompute full: the
    // layers keep their inputs, 32 x 2h x 8192 = 32 x 8192 x 8192; backward
    // rebuilds one layer's whole set, 139392 x 8192 (see the test above);
    // the loss's logits, 529408 x 8192, are freed before that rebuild, so
    // the peak holds the larger, the logits, and the rebuilt layer is
    // counted in the activations and taken back as `reused`.
    let m = llama_8b();
    let run = TrainingRun {
        recompute: Recompute::Full,
        ..TrainingRun::default()
    };
    let mem = eval_on(&crate::solver::tests::a100(), &m, &run).memory;
    let (kept, rebuilt, logits) = (
        32.0 * 8192.0 * 8192.0,
        139_392.0 * 8192.0,
        529_408.0 * 8192.0,
    );
    assert_eq!(mem.activations, kept + rebuilt);
    assert_eq!(mem.logits, logits);
    assert_eq!(mem.reused, rebuilt);
    let states = mem.weights + mem.gradients + mem.optimizer;
    assert_eq!(mem.total(), states + kept + logits);
    // Without recomputation nothing is rebuilt: the logits come on top of
    // every layer's set at the end of the forward pass.
    let none = eval_on(&crate::solver::tests::a100(), &m, &TrainingRun::default()).memory;
    assert_eq!(none.reused, 0.0);
    assert_eq!(none.total(), states + none.activations + logits);
}

/// ZeRO 3 over 8 data-parallel ranks, one 8192-token sequence each.
fn zero_3_on_8() -> TrainingRun {
    TrainingRun {
        layout: layout(8, 1, 1),
        zero: 3,
        global_batch_tokens: 8.0 * 8192.0,
        ..TrainingRun::default()
    }
}

#[test]
fn zero_3_holds_two_gathered_layers() {
    // Per layer: (8.03e9 - 2 x 128256 x 4096) / 32 = 218.1M parameters;
    // two of them whole at 2 bytes under ZeRO 3 over 8 ranks.
    let m = llama_8b();
    let run = zero_3_on_8();
    let per_layer = (8.03e9 - 2.0 * 128_256.0 * 4096.0) / 32.0;
    let mem = eval(&m, &run).memory;
    assert!((mem.gathered - 2.0 * 2.0 * per_layer).abs() < 1.0);
    let zero1 = eval(&m, &TrainingRun { zero: 1, ..run }).memory;
    assert_eq!(zero1.gathered, 0.0);
}

#[test]
fn the_allocators_pool_is_the_tensors_alive_with_its_overhead_up_to_the_capacity() {
    // Llama 3 8B under ZeRO 3 over 8 A100s (80 GB): the pool is the total
    // x (1 + 0.15) by default, x 1 with no overhead, and never more than
    // the device holds; the verdict stays on the total.
    let m = llama_8b();
    let run = zero_3_on_8();
    let mem = eval(&m, &run).memory;
    assert_eq!(TrainingAssumptions::default().allocator_overhead, 0.15);
    assert!((mem.reserved - 1.15 * mem.total()).abs() < 1.0);
    let with = |overhead: f64| {
        let t = TrainingAssumptions {
            allocator_overhead: overhead,
            ..TrainingAssumptions::default()
        };
        evaluate(&a100(), &m, &run, &Assumptions::ideal(), &t)
            .unwrap()
            .memory
    };
    assert_eq!(with(0.0).reserved, mem.total());
    assert_eq!(with(0.0).fits, mem.fits);
    // A pool that would pass the capacity stops at it: the tensors alive
    // (8192 tokens a rank, nothing recomputed) pass 80 GB / 2, so x 2
    // would pass 80 GB.
    let b = with(1.0);
    assert!(2.0 * b.total() > 80e9, "{}", b.total());
    assert_eq!(b.reserved, 80e9);
    // Out of its range, the assumption is refused.
    let bad = TrainingAssumptions {
        allocator_overhead: 1.5,
        ..TrainingAssumptions::default()
    };
    assert!(validate_training_assumptions(&bad).is_err());
}

#[test]
fn pipeline_devices_hold_megatrons_warm_up_count() {
    // Device i of p holds min(m, p - i) micro-batches with 1F1B; with v
    // chunks, 2 (p - i - 1) + (v - 1) p + 1 chunks of 1/v of the stage:
    // p 16, v 2: the first 47/2 = 23.5 (= p + (p - 1)/v), the second
    // 45/2 = 22.5, the last 17/2 = 8.5.
    let l = layout(1, 1, 16);
    let v2 = Layout { v: 2, ..l };
    assert_eq!(memory::in_flight_at(&v2, 32.0, 0, 0), 23.5);
    assert_eq!(memory::in_flight_at(&v2, 32.0, 0, 1), 22.5);
    assert_eq!(memory::in_flight_at(&v2, 32.0, 0, 15), 8.5);
    assert_eq!(memory::in_flight_at(&l, 32.0, 0, 0), 16.0);
    assert_eq!(memory::in_flight_at(&l, 32.0, 0, 15), 1.0);
    // Fewer micro-batches than the warm-up: all of them (m v chunks).
    assert_eq!(memory::in_flight_at(&v2, 4.0, 0, 0), 4.0);
}

#[test]
fn llama_3s_contiguous_micro_batches_hold_fewer_in_flight() {
    // Llama 3's schedule runs N micro-batches back to back on a chunk
    // (Dubey et al. 2024, section 3.3.2): (v - 1) N + 2 (p - i - 1) + 1
    // chunks of 1/v of the stage. p 16, v 8, N 8, the second device:
    // 7 x 8 + 2 x 14 + 1 = 85 chunks = 85/8 = 10.625 stages' worth, where
    // Megatron's N = p holds 7 x 16 + 28 + 1 = 141, 141/8 = 17.625.
    let v8 = Layout {
        v: 8,
        ..layout(1, 1, 16)
    };
    assert_eq!(memory::in_flight_at(&v8, 32.0, 8, 1), 10.625);
    assert_eq!(memory::in_flight_at(&v8, 32.0, 0, 1), 17.625);
    assert_eq!(memory::in_flight_at(&v8, 32.0, 16, 1), 17.625);
    // 1F1B has no chunks to group: N changes nothing there, and the
    // check refuses it rather than ignore it.
    let m = llama_8b();
    let run = TrainingRun {
        layout: layout(1, 1, 4),
        global_batch_tokens: 16.0 * 8192.0,
        contiguous: 2,
        ..TrainingRun::default()
    };
    let t = TrainingAssumptions::default();
    let e = evaluate(&a100(), &m, &run, &Assumptions::ideal(), &t).err();
    assert!(e.is_some_and(|e| e.to_string().contains("interleaved schedule")));
}

#[test]
fn the_embedding_and_the_head_may_be_chunks_of_their_own() {
    // Llama 3 405B: 126 layers + the embedding chunk + the head chunk =
    // 128 = 16 stages x 8 chunks of one layer, with one layer fewer on the
    // first and last stages; without edge layers, 16 x 8 > 126 is refused.
    let mut m = gpt(126, 16384, 128, 128_256);
    if let Arch::Decoder(d) = &mut m.arch {
        d.kv_heads = 8;
        d.ffn = 53248;
    }
    let base = TrainingRun {
        layout: Layout {
            v: 8,
            ..layout(1, 8, 16)
        },
        global_batch_tokens: 32.0 * 8192.0,
        ..TrainingRun::default()
    };
    let (a, t) = (Assumptions::ideal(), TrainingAssumptions::default());
    let with = TrainingRun {
        edge_layers: 1,
        ..base
    };
    assert!(evaluate(&a100(), &m, &with, &a, &t).is_ok());
    let e = evaluate(&a100(), &m, &base, &a, &t).err();
    assert!(e.is_some_and(|e| e.to_string().contains("more stages than the 126 layers")));
}

#[test]
fn edge_layers_come_off_the_first_and_last_stages() {
    // Llama 3 405B: 126 layers, 16 stages, one layer fewer on each edge:
    // middle stages hold ceil(128/16) = 8, the first and last 7, and
    // 2 x 7 + 14 x 8 = 126.
    let l = layout(1, 1, 16);
    assert_eq!(l.stage_layers_trimmed(126, 1), 8.0);
    assert_eq!(l.edge_layers(126, 1), 7.0);
    assert_eq!(l.edge_layers(126, 0), 8.0);
    // The pace is the busiest stage's, 8 x 16 / 126 of the average.
    assert!((l.imbalance_trimmed(126, 1) - 128.0 / 126.0).abs() < 1e-15);
}

#[test]
fn the_binding_term_is_the_one_whose_shortening_shortens_the_step() {
    // Compute hidden under a longer collective gains nothing: the
    // collective binds. One device's ZeRO-3 DP collective of D seconds
    // hides behind all of the passes' W seconds (overlap 1): the step is
    // max(W, D) + the rest, so the larger of the two binds, as the step
    // time's elasticities say.
    let m = llama_8b();
    let run = zero_3_on_8();
    let fast_net = eval(&m, &run);
    assert_eq!(fast_net.step.binding, Term::Compute);
    // The same on a device whose network is 1000 times slower: the DP
    // gradients now take longer than the passes they hide behind.
    let mut slow = a100();
    slow.link_bandwidth = slow.link_bandwidth.map(|b| b / 1000.0);
    slow.scaleout_bandwidth = slow.scaleout_bandwidth.map(|b| b / 1000.0);
    let t = eval_on(&slow, &m, &run);
    let s = &t.step;
    assert!(s.comm.dp.time_s > s.compute_s + s.elementwise_s);
    assert_eq!(s.binding, Term::DpComm);
    assert_eq!(Term::DpComm.bound(), "communication-bound (DP gradients)");
    // The elasticities agree: the step follows the network, not the FLOP/s.
    let d = decoder(&m).unwrap();
    let e = elasticities(
        &slow,
        d,
        &t.params,
        &t.flops,
        &run,
        &Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap();
    let of = |k: Knob| {
        e.iter()
            .find(|(x, _)| *x == k)
            .map(|(_, v)| v.abs())
            .unwrap()
    };
    assert!(of(Knob::PeakFlops) < 0.05, "{e:?}");
}

#[test]
fn the_pipeline_holds_p_micro_batches_with_1f1b_and_more_interleaved() {
    // 1F1B: min(m, p); interleaved: p + (p - 1)/v = 8 + 7/2 = 11.5.
    let l = Layout {
        pp: 8,
        ..Layout::default()
    };
    assert_eq!(memory::in_flight(&l, 64.0), 8.0);
    assert_eq!(memory::in_flight(&l, 3.0), 3.0);
    assert_eq!(memory::in_flight(&Layout { v: 2, ..l }, 64.0), 11.5);
    assert_eq!(memory::in_flight(&Layout::default(), 64.0), 1.0);
}

#[test]
fn uneven_stages_pace_the_pipeline_by_the_busiest() {
    // Llama 3 405B's 126 layers on 16 stages: the busiest holds
    // ceil(126/16) = 8 layers, 8 * 16 / 126 = 1.0159 times the average;
    // interleaved with v = 2: 2 chunks of ceil(126/32) = 4 layers, the same.
    let l = layout(1, 1, 16);
    assert_eq!(l.stage_layers(126), 8.0);
    assert!((l.imbalance(126) - 128.0 / 126.0).abs() < 1e-15);
    assert_eq!(Layout { v: 2, ..l }.stage_layers(126), 8.0);
    assert_eq!(layout(1, 1, 4).imbalance(24), 1.0);
}

#[test]
fn the_bubble_is_p_minus_one_over_m_plus_p_minus_one() {
    // PP 4, 12 micro-batches: (4 - 1)/(12 + 4 - 1) = 0.2 of the pipeline's
    // time; interleaved with v = 2: 3/(24 + 3) = 1/9.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 2048.0,
        global_batch_tokens: 12.0 * 2048.0,
        layout: layout(1, 1, 4),
        ..TrainingRun::default()
    };
    let t = eval(&m, &run);
    assert_eq!(t.step.micro_batches, 12.0);
    assert!((t.step.bubble_fraction - 0.2).abs() < 1e-12);
    let v2 = TrainingRun {
        layout: Layout { v: 2, ..run.layout },
        ..run
    };
    assert!((eval(&m, &v2).step.bubble_fraction - 1.0 / 9.0).abs() < 1e-12);
}

#[test]
fn palm_540b_reaches_its_published_mfu_at_its_published_throughput() {
    // PaLM (Chowdhery et al. 2022), appendix B: 540.35B parameters, L = 118,
    // H = 48 heads of Q = 256, T = 2048, shared input-output embeddings;
    // 238.3K tokens/s on 6144 TPU v4 chips of 275 TFLOPS is 46.2% MFU.
    // 6N + 12 L H Q T = 3.2421e12 + 3.5635e10 = 3.2777e12 FLOPs per token;
    // 238.3e3 * 3.2777e12 / (6144 * 275e12) = 0.4623.
    let mut m = gpt(118, 18432, 48, 256_000);
    m.params = 540.35e9;
    if let Arch::Decoder(d) = &mut m.arch {
        d.head_dim = 256;
    }
    let d = decoder(&m).unwrap();
    let run = TrainingRun {
        seq: 2048.0,
        ..TrainingRun::default()
    };
    let f = Flops::of(d, &Params::of(&m, d), &run);
    let mfu = 238.3e3 * f.model_per_token / (6144.0 * 275e12);
    assert!((mfu - 0.462).abs() < 0.001, "{mfu}");
    // Section 4.1: "45.7% without self-attention": 6N alone,
    // 238.3e3 * 6 * 540.35e9 / (6144 * 275e12) = 0.4573.
    let no_attention = 238.3e3 * 6.0 * m.params / (6144.0 * 275e12);
    assert!((no_attention - 0.457).abs() < 0.001, "{no_attention}");
}

#[test]
fn the_default_device_mtbf_is_llama_3s_interruption_rate() {
    // Llama 3, section 3.3.4: 466 interruptions in a 54-day snapshot, 47
    // planned, so 419 unexpected; on 16,384 GPUs (the section's "16K GPU
    // training") one device fails every 54 * 24 / 419 * 16,384 = 50,677 h.
    // The default rounds it down to 50,000 h (1.3% lower).
    let per_device_h: f64 = 54.0 * 24.0 / (466.0 - 47.0) * 16_384.0;
    assert!((per_device_h - 50_677.0).abs() < 1.0, "{per_device_h}");
    let default_h = DEFAULT_DEVICE_MTBF_S / 3600.0;
    assert!((default_h / per_device_h - 1.0).abs() < 0.02);
    // Section 3.3.1: 7 TB/s peak over 16,384 GPUs = 0.427 GB/s each.
    assert!((DEFAULT_CHECKPOINT_BANDWIDTH / (7e12 / 16_384.0) - 1.0).abs() < 0.07);
}

#[test]
fn full_recomputation_matches_megatrons_flop_count() {
    // Narayanan et al. 2021, section 5.1: 96 B s l h^2 (1 + s/(6h) +
    // V/(16 l h)) FLOPs per step with full recomputation. Per token, for
    // their 1T model (l = 128, h = 25600, s = 2048, V = 51200): ours is 8N +
    // 16 L H Q T with N = 12 l h^2 + V h, which differs only in the
    // logits' share (8 V h against their 6 V h): 0.03% here.
    let (l, h, s, v) = (128.0, 25600.0, 2048.0, 51200.0);
    let m = gpt(128, 25600, 160, 51200);
    let d = decoder(&m).unwrap();
    let run = TrainingRun {
        seq: s,
        recompute: Recompute::Full,
        ..TrainingRun::default()
    };
    let f = Flops::of(d, &Params::of(&m, d), &run);
    let theirs = 96.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
    assert!((f.hardware_per_token / theirs - 1.0).abs() < 5e-4);
    // MFU counts 6N + 12 L H Q T: 3/4 of the full-recompute count, less
    // the attention's extra.
    assert!(f.model_per_token < f.hardware_per_token);
}

#[test]
fn one_device_step_by_hand() {
    // A 1.2B GPT (24 layers, h 2048, 16 heads of 128, a SwiGLU MLP of
    // 8192, V 50000) on one ideal A100, 8 sequences of 1024 tokens: N = 12
    // * 24 * 2048^2 + 50000 * 2048 = 1.31e9; 6N FLOPs per token at the
    // peak, 312e12, and the attention's 12 * 24 * 2048 * 1024 at 0.6 of it
    // (the default attention efficiency), x 8192 tokens. Element-wise
    // traffic per token and layer, forward: 10h + 2 (2048 + 2048) + 3 x
    // 8192 = 53248 elements; x 3 passes x 2 bytes x 24 layers, plus the
    // loss's 12 V: 7,667,712 + 600,000 bytes over 2039 GB/s. Optimizer: P
    // (2 o + 2 e) = P * 28 bytes over 2039 GB/s. No communication, no
    // bubble.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8192.0,
        micro_batch: 8,
        ..TrainingRun::default()
    };
    let t = eval(&m, &run);
    let n = 12.0 * 24.0 * 2048.0 * 2048.0 + 50_000.0 * 2048.0;
    let attention = 12.0 * 24.0 * 2048.0 * 1024.0;
    let compute = 6.0 * n * 8192.0 / 312e12 + attention * 8192.0 / (0.6 * 312e12);
    assert!((t.step.compute_s / compute - 1.0).abs() < 1e-12);
    let elementwise = (7_667_712.0 + 600_000.0) * 8192.0 / 2.039e12;
    assert!((t.step.elementwise_s / elementwise - 1.0).abs() < 1e-12);
    assert!((t.step.optimizer_s - n * 28.0 / 2.039e12).abs() < 1e-12);
    assert_eq!(t.step.exposed_comm_s, 0.0);
    assert_eq!(t.step.bubble_s, 0.0);
    let total = t.step.compute_s + t.step.elementwise_s + t.step.optimizer_s;
    assert!((t.step.step_time_s - total).abs() < 1e-15);
    // MFU counts the model's FLOPs at the peak: 6N + 12 L H Q T.
    let mfu = (6.0 * n + attention) * 8192.0 / (total * 312e12);
    assert!((t.step.mfu / mfu - 1.0).abs() < 1e-12);
    assert_eq!(t.step.binding, Term::Compute);
}

#[test]
fn data_parallel_gradients_take_one_ring_all_reduce() {
    // Pure DP over the 8 GPUs of one node, ZeRO 0: one all-reduce of the
    // bf16 gradients, 2 * 7/8 * 2P bytes at 300 GB/s.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8.0 * 1024.0,
        layout: layout(8, 1, 1),
        ..TrainingRun::default()
    };
    let t = eval(&m, &run);
    let bytes = 2.0 * 7.0 / 8.0 * 2.0 * m.params;
    assert!((t.step.comm.dp.link_bytes - bytes).abs() < 1.0);
    assert!((t.step.comm.dp.time_s - bytes / 300e9).abs() < 1e-12);
}

/// One 4x4x4 cube of a torus: 100 GB/s per link one way, 6 ports = the
/// 600 GB/s all-ports figure, wraparound on whole cubes (a TPU v5p cube).
fn cube() -> crate::solver::types::Hardware {
    use crate::solver::types::{Torus, Wrap};
    let mut hw = a100();
    hw.link_bandwidth = Some(600e9);
    hw.devices_per_node = 64;
    hw.torus = Some(Torus {
        dims: [4, 4, 4],
        link_bandwidth: 100e9,
        wrap: Wrap::Cubes(4),
    });
    hw
}

#[test]
fn on_a_torus_each_group_uses_its_own_axes_links() {
    // TP 4 x DP 16 on a 4x4x4 cube. TP (4 in a row) is the x ring; DP (16
    // members 4 apart) the y and z rings. ZeRO 0, one all-reduce of the
    // bf16 gradients of the P/4 on each device (M = 2 P/4): over 2 wrapped
    // axes of 4 it carries (n - 1)/n x 2 M / (2 axes x 2 links) =
    // 15/16 x 2M / 4 = 15/32 M on a link at 100 GB/s. On the 600 GB/s of
    // every port it would be 2 x 15/16 M / 600 GB/s, a third less.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 16.0 * 1024.0,
        layout: layout(16, 4, 1),
        ..TrainingRun::default()
    };
    let t = eval_on(&cube(), &m, &run);
    let (dense, _) = t.params.per_device(&run.layout, 24);
    let grad = 2.0 * dense;
    assert!((t.step.comm.dp.link_bytes - 15.0 / 32.0 * grad).abs() < 1.0);
    assert!((t.step.comm.dp.time_s - 15.0 / 32.0 * grad / 100e9).abs() < 1e-12);
    // TP: 4 all-reduces per layer of b s h e = 1 x 1024 x 2048 x 2 bytes,
    // over the x ring of 4: (3/4 x 2 / 2 links) = 3/4 of it on a link.
    let act = 1024.0 * 2048.0 * 2.0;
    let n = 24.0 * 4.0;
    assert!((t.step.comm.tp.link_bytes - n * 0.75 * act).abs() < 1.0);
    // The same device without the torus: every port for every group.
    let mut switch = cube();
    switch.torus = None;
    let s = eval_on(&switch, &m, &run);
    assert!((s.step.comm.dp.time_s - 2.0 * 15.0 / 16.0 * grad / 600e9).abs() < 1e-12);
}

#[test]
fn a_torus_alone_is_the_scale_up_link_the_elasticities_perturb() {
    // A torus without an all-ports scale_up figure: the TP all-reduces
    // (exposed, no overlap) run on its links, so a faster link shortens
    // the step: the scale-up elasticity is negative, not 0.
    let mut hw = cube();
    hw.link_bandwidth = None;
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 16.0 * 1024.0,
        layout: layout(16, 4, 1),
        ..TrainingRun::default()
    };
    let d = decoder(&m).unwrap();
    let p = Params::of(&m, d);
    let f = Flops::of(d, &p, &run);
    let e = elasticities(
        &hw,
        d,
        &p,
        &f,
        &run,
        &Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap();
    let up = e.iter().find(|(k, _)| *k == Knob::ScaleUp).unwrap().1;
    assert!(up < -0.01, "{up}");
}

#[test]
fn at_the_critical_batch_data_parallel_communication_just_hides() {
    // Pure DP across 64 nodes' NICs: a bigger batch hides the gradient
    // all-reduce, a smaller one shows it.
    let m = gpt(24, 2048, 16, 50_000);
    let base = TrainingRun {
        seq: 1024.0,
        micro_batch: 1,
        layout: layout(512, 1, 1),
        global_batch_tokens: 512.0 * 1024.0,
        ..TrainingRun::default()
    };
    let t = eval(&m, &base);
    let critical = t.critical_batch_tokens_per_device.unwrap();
    let seqs = |tokens: f64| (tokens / 1024.0).round() as u32;
    // Micro-batch sizes around it (tokens per device = micro-batch x 1024).
    let above = seqs(critical * 1.3).max(1) + 1;
    let below = seqs(critical * 0.7).max(1);
    let at = |b: u32| {
        eval(
            &m,
            &TrainingRun {
                micro_batch: b,
                global_batch_tokens: 512.0 * 1024.0 * b as f64,
                ..base
            },
        )
    };
    // Above it all of the collective hides: what shows is only the
    // slowdown of the compute beside it, time x s / (1 + s).
    let dp = at(above).step.comm.dp;
    let s = TrainingAssumptions::default().overlap_slowdown;
    assert!(
        (dp.exposed_s - dp.time_s * s / (1.0 + s)).abs() < 1e-12 * dp.time_s,
        "critical {critical}"
    );
    assert_eq!(dp.exposed_s, dp.slowed_s);
    if (below as f64 * 1024.0) < critical {
        // Below it some of it cannot hide at all.
        let dp = at(below).step.comm.dp;
        assert!(dp.exposed_s > dp.slowed_s);
    }
    // The critical batch does not depend on the batch it was computed at.
    let again = at(above).critical_batch_tokens_per_device.unwrap();
    assert!((again / critical - 1.0).abs() < 1e-9);
}

#[test]
fn exposed_communication_is_what_the_overlap_cannot_hide() {
    // 10 ms of communication, half may hide, 3 ms of compute to hide
    // behind: 10 - min(5, 3) = 7 ms.
    assert!((exposed(10e-3, 0.5, 3e-3, 0.0) - 7e-3).abs() < 1e-15);
    assert!((exposed(10e-3, 0.5, 30e-3, 0.0) - 5e-3).abs() < 1e-15);
    assert_eq!(exposed(10e-3, 1.0, 30e-3, 0.0), 0.0);
}

#[test]
fn a_hidden_collective_slows_the_compute_beside_it() {
    // 10 ms of communication, all of it may hide, 30 ms of compute: 10 ms
    // hidden. Beside it the compute runs 1.25 times slower, so in those
    // 10 ms it does 8 ms of its work: the other 2 ms (10 x 0.25 / 1.25)
    // show.
    assert!((exposed(10e-3, 1.0, 30e-3, 0.25) - 2e-3).abs() < 1e-15);
    // Half may hide behind 3 ms: 7 ms show, and 3 x 0.25 / 1.25 = 0.6 ms
    // of the hidden 3 ms.
    assert!((exposed(10e-3, 0.5, 3e-3, 0.25) - 7.6e-3).abs() < 1e-15);
    // At the default, 18.9% slower (Lee et al. 2025): a fully hidden
    // collective costs 0.189 / 1.189 = 15.9% of its time.
    let d = TrainingAssumptions::default().overlap_slowdown;
    assert!((exposed(1.0, 1.0, 2.0, d) - 0.189 / 1.189).abs() < 1e-12);
}

#[test]
fn young_daly_by_hand() {
    // A 50 s checkpoint and a 10,000 s job MTBF: tau = sqrt(2 * 50 * 1e4)
    // = 1000 s; waste = 50/1000 + 500/1e4 = 0.1, goodput 1/1.1.
    let (tau, waste) = young_daly(50.0, 1e4, 0.0);
    assert!((tau - 1000.0).abs() < 1e-9);
    assert!((waste - 0.1).abs() < 1e-12);
}

#[test]
fn a_chinchilla_run_by_hand() {
    // 20 tokens per parameter; steps = tokens / tokens per step; the
    // device-hours at $2/h give the cost; 1 kW-ish power over the wall time.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8.0 * 1024.0,
        layout: layout(8, 1, 1),
        ..TrainingRun::default()
    };
    let t = eval(&m, &run);
    let spec = RunSpec {
        tokens: TokensToTrain::Chinchilla,
        idle_share: 0.3,
        grid: None,
    };
    let r = run_figures(&a100(), &t, &spec, &TrainingAssumptions::default());
    assert!((r.tokens - 20.0 * m.params).abs() < 1.0);
    assert!((r.steps - r.tokens / 8192.0).abs() < 1e-6);
    assert!((r.ideal_time_s - r.steps * t.step.step_time_s).abs() < 1e-6);
    assert!((r.device_hours - 8.0 * r.time_to_train_s / 3600.0).abs() < 1e-9);
    assert!((r.cost_usd.unwrap() - 2.0 * r.device_hours).abs() < 1e-6);
    // 8 devices at 400 W fully loaded.
    assert!((r.energy_kwh.unwrap() - 3200.0 * r.time_to_train_s / 3.6e6).abs() < 1e-6);
    // Checkpoint: P (2 + 12) bytes written by 8 devices at 0.4 GB/s each.
    assert!((r.checkpoint_write_s - 14.0 * m.params / (8.0 * 0.4e9)).abs() < 1e-9);
    assert!(r.goodput > 0.0 && r.goodput < 1.0);
    assert!(r.co2_kg.is_none());
}

#[test]
fn bad_layouts_are_refused_with_the_reason() {
    let m = gpt(24, 2048, 16, 50_000);
    let bad = |l: Layout, zero: u8| {
        let run = TrainingRun {
            layout: l,
            zero,
            seq: 1024.0,
            global_batch_tokens: 1e6,
            ..TrainingRun::default()
        };
        validate(&m, &run).unwrap_err().to_string()
    };
    assert!(bad(layout(1, 3, 1), 0).contains("does not divide the 16 attention heads"));
    assert!(bad(layout(1, 1, 48), 0).contains("more stages than the 24 layers"));
    assert!(
        bad(
            Layout {
                ep: 2,
                ..Layout::default()
            },
            0
        )
        .contains("is dense")
    );
    assert!(bad(Layout::default(), 4).contains("ZeRO stage 4"));
    assert!(
        bad(
            Layout {
                cp: 3,
                ..Layout::default()
            },
            0
        )
        .contains("CP 3")
    );
    let tiny = TrainingRun {
        global_batch_tokens: 100.0,
        ..TrainingRun::default()
    };
    assert!(
        validate(&m, &tiny)
            .unwrap_err()
            .to_string()
            .contains("less than one micro-batch")
    );
}

#[test]
fn each_routed_token_copy_costs_an_moe_layer_its_token_time() {
    // 8 layers, all MoE, top-2: each token makes 2 x 8 = 16 routed copies.
    // 8 devices of DP, 8 x 1024 tokens: 1024 tokens per device, so at
    // 0.25 us a copy the routing takes 1024 x 16 x 0.25 us = 4.096 ms of
    // each step, serial with the products; a dense model pays nothing.
    let mut m = gpt(8, 1024, 8, 32_000);
    m.kind = ModelKind::MoeDecoder;
    let dense = gpt(8, 1024, 8, 32_000);
    if let Arch::Decoder(d) = &mut m.arch {
        d.moe = Some(Moe::routed(8, 2, m.params));
    }
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8.0 * 1024.0,
        layout: layout(8, 1, 1),
        ..TrainingRun::default()
    };
    let t = TrainingAssumptions {
        moe_token_time_s: 0.25e-6,
        ..TrainingAssumptions::default()
    };
    let a = Assumptions::ideal();
    let moe = evaluate(&a100(), &m, &run, &a, &t).unwrap().step;
    assert!(
        (moe.moe_routing_s - 4.096e-3).abs() < 1e-12,
        "{}",
        moe.moe_routing_s
    );
    let none = TrainingAssumptions {
        moe_token_time_s: 0.0,
        ..t
    };
    let free = evaluate(&a100(), &m, &run, &a, &none).unwrap().step;
    assert!((moe.step_time_s - free.step_time_s - 4.096e-3).abs() < 1e-9);
    let d = evaluate(&a100(), &dense, &run, &a, &t).unwrap().step;
    assert_eq!(d.moe_routing_s, 0.0);
}

#[test]
fn an_moe_counts_active_parameters_and_shards_experts_over_ep() {
    // 8 experts, top-2: total = dense + 8x, active = dense + 2x.
    let mut m = gpt(8, 1024, 8, 32_000);
    let dense = m.params;
    let x = 1e8;
    m.kind = ModelKind::MoeDecoder;
    m.params = dense + 8.0 * x;
    if let Arch::Decoder(d) = &mut m.arch {
        d.moe = Some(Moe::routed(8, 2, dense + 2.0 * x));
    }
    let d = decoder(&m).unwrap();
    let p = Params::of(&m, d);
    assert!((p.experts - 8.0 * x).abs() < 1.0);
    assert!((p.matmul_active - (dense + 2.0 * x)).abs() < 1.0);
    let l = Layout {
        ep: 4,
        dp: 2,
        ..Layout::default()
    };
    let (dd, de) = p.per_device(&l, 8);
    assert!((dd - dense).abs() < 1.0);
    assert!((de - 2.0 * x).abs() < 1.0);
    // EP 4 over one node: the all-to-alls cost something.
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8.0 * 1024.0,
        layout: l,
        ..TrainingRun::default()
    };
    let t = eval(&m, &run);
    assert!(t.step.comm.ep.time_s > 0.0);
    assert_eq!(t.step.comm.ep.count, 4.0 * 8.0);
}

#[test]
fn elasticities_of_a_compute_bound_step() {
    // One device: T = compute + element-wise + optimizer; d ln T / d ln
    // peak = -compute/T, d ln T / d ln BW = -(element-wise + optimizer)/T;
    // no link: 0.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8192.0,
        micro_batch: 8,
        ..TrainingRun::default()
    };
    let t = eval(&m, &run);
    let d = decoder(&m).unwrap();
    let e = elasticities(
        &a100(),
        d,
        &t.params,
        &t.flops,
        &run,
        &Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap();
    let get = |k: Knob| e.iter().find(|x| x.0 == k).unwrap().1;
    let share = t.step.compute_s / t.step.step_time_s;
    assert!((get(Knob::PeakFlops) + share).abs() < 1e-3);
    let memory = t.step.elementwise_s + t.step.optimizer_s;
    assert!((get(Knob::MemoryBandwidth) + memory / t.step.step_time_s).abs() < 1e-3);
    assert_eq!(get(Knob::ScaleOut), 0.0);
}

#[test]
fn the_search_ranks_fitting_layouts_fastest_first() {
    // GPT-3 175B on 1024 A100s: nothing fits on one device, the search
    // finds layouts that do, sorted, each no slower than Megatron's own
    // (TP 8, PP 8 in Narayanan et al. 2021's table 1 row of 1024 GPUs).
    let m = gpt(96, 12288, 96, 51_200);
    let base = TrainingRun {
        seq: 2048.0,
        global_batch_tokens: 1536.0 * 2048.0,
        ..TrainingRun::default()
    };
    let a = Assumptions::default();
    let t = TrainingAssumptions::default();
    let s = search(&a100(), &m, &base, 1024, &a, &t, 10).unwrap();
    assert!(!s.ranked.is_empty());
    assert!(
        s.ranked
            .windows(2)
            .all(|w| w[0].step_time_s <= w[1].step_time_s)
    );
    assert_eq!(s.tried, s.fitting + s.too_big + s.no_link);
    let megatron = TrainingRun {
        layout: layout(16, 8, 8),
        recompute: Recompute::Full,
        ..base
    };
    let mine = evaluate(&a100(), &m, &megatron, &a, &t).unwrap();
    assert!(mine.memory.fits);
    assert!(s.ranked[0].step_time_s <= mine.step.step_time_s * (1.0 + 1e-12));
    for c in &s.ranked {
        assert_eq!(c.run.layout.devices(), 1024);
    }
}

proptest! {
    #[test]
    fn step_time_never_falls_when_a_bandwidth_falls(
        k in 0.05f64..1.0,
        which in 0usize..3,
        dp in prop::sample::select(vec![1u32, 2, 8, 32]),
        tp in prop::sample::select(vec![1u32, 2, 8, 16]),
        pp in prop::sample::select(vec![1u32, 2, 4]),
        zero in 0u8..4,
    ) {
        let m = gpt(24, 2048, 16, 50_000);
        let run = TrainingRun {
            seq: 1024.0,
            global_batch_tokens: (dp as f64) * 1024.0 * 16.0,
            layout: layout(dp, tp, pp),
            zero,
            ..TrainingRun::default()
        };
        let a = Assumptions::default();
        let t = TrainingAssumptions { dp_overlap: 0.7, tp_overlap: 0.3, ..TrainingAssumptions::default() };
        let hw = a100();
        let mut slow = hw.clone();
        match which {
            0 => slow.memory_bandwidth *= k,
            1 => slow.link_bandwidth = slow.link_bandwidth.map(|b| b * k),
            _ => slow.scaleout_bandwidth = slow.scaleout_bandwidth.map(|b| b * k),
        }
        let fast = evaluate(&hw, &m, &run, &a, &t).unwrap().step.step_time_s;
        let slower = evaluate(&slow, &m, &run, &a, &t).unwrap().step.step_time_s;
        prop_assert!(slower >= fast * (1.0 - 1e-12), "{slower} < {fast}");
    }

    #[test]
    fn memory_per_device_never_rises_with_more_zero_sharding(
        dp in prop::sample::select(vec![1u32, 2, 4, 64]),
        tp in prop::sample::select(vec![1u32, 2, 4]),
        zero in 0u8..3,
        adam8 in any::<bool>(),
    ) {
        let m = gpt(24, 2048, 16, 50_000);
        let run = TrainingRun {
            seq: 1024.0,
            global_batch_tokens: (dp as f64) * 1024.0 * 4.0,
            layout: layout(dp, tp, 1),
            zero,
            optimizer: if adam8 { Optimizer::Adam8bit } else { Optimizer::Adam },
            ..TrainingRun::default()
        };
        let more = TrainingRun { zero: zero + 1, ..run };
        let a = eval(&m, &run).memory.total();
        let b = eval(&m, &more).memory.total();
        prop_assert!(b <= a * (1.0 + 1e-12));
    }
}

#[test]
fn an_eager_loss_holds_three_copies_of_the_logits_four_under_tp() {
    // Eager PyTorch's cross_entropy(logits.float()) holds at the start of
    // backward the saved log-softmax output, the loss's dense gradient of
    // it and the gradient of its input, 4 bytes each: 12 V per token;
    // PyTorch's loss parallel (vocabulary over tp) holds the saved output,
    // a zeroed gradient, the exponential and their sum: 16 V / tp. With
    // the final norm's and head's inputs 2 x 2h at 16 bits, Llama 3.1 8B
    // at seq 8192: 8192 x (4 x 4096 + 12 x 128256) bytes on one device;
    // at tp 8, 8192 x (4 x 4096 + 16 x 128256) / 8.
    let m = llama_8b();
    let d = decoder(&m).unwrap();
    let eager = TrainingAssumptions {
        cross_entropy: CrossEntropy::Eager,
        ..TrainingAssumptions::default()
    };
    let run = TrainingRun::default();
    assert_eq!(
        memory::logits_bytes(d, &run, &eager),
        8192.0 * (4.0 * 4096.0 + 12.0 * 128_256.0)
    );
    let tp8 = TrainingRun {
        layout: layout(1, 8, 1),
        ..run
    };
    assert_eq!(
        memory::logits_bytes(d, &tp8, &eager),
        8192.0 * (4.0 * 4096.0 + 16.0 * 128_256.0) / 8.0
    );
    // A fused loss keeps its one fp32 copy at any tp.
    let fused = TrainingAssumptions::default();
    assert_eq!(
        memory::logits_bytes(d, &tp8, &fused),
        8192.0 * (4.0 * 4096.0 + 4.0 * 128_256.0) / 8.0
    );
}

#[test]
fn fp8_held_at_sixteen_bits_needs_what_bf16_needs() {
    // By default an fp8 run holds 1-byte weights and gradients, a 12-byte
    // optimizer state (fp32 master and moments) and its activations at
    // half the 16-bit bytes: 1 + 1 + 12 = 14 bytes per parameter.
    // torchao's float8 (bf16 storage) holds 2 + 2 + 12 = 16 and the
    // activations of a bf16 run; only the products run in fp8.
    let m = llama_8b();
    let d = decoder(&m).unwrap();
    let p = Params::of(&m, d);
    let bf16 = TrainingRun::default();
    let fp8 = TrainingRun {
        precision: Precision::Fp8,
        ..bf16
    };
    let narrow = TrainingAssumptions::default();
    let wide = TrainingAssumptions {
        low_precision_storage: LowPrecisionStorage::Bf16,
        ..narrow
    };
    let per_param = |run: &TrainingRun, t: &TrainingAssumptions| {
        let (w, g, o) = states(&p, run, t);
        (w + g + o) / p.total
    };
    assert!((per_param(&fp8, &narrow) - 14.0).abs() < 1e-9);
    assert!((per_param(&fp8, &wide) - 16.0).abs() < 1e-9);
    let acts = |run: &TrainingRun, t: &TrainingAssumptions| {
        memory::layer_activations(d, run, t, Recompute::None)
    };
    assert_eq!(acts(&fp8, &wide), acts(&bf16, &narrow));
    // At 8 bits every 16-bit term halves; the fp32 log-sum-exp, 4 a = 128
    // bytes a token, does not: (139392 - 128) / 2 + 128 = 69760.
    assert_eq!(acts(&fp8, &narrow), 69_760.0 * 8192.0);
    // The setting means nothing to a 16-bit run.
    assert_eq!(acts(&bf16, &wide), acts(&bf16, &narrow));
}

#[test]
fn fp8_held_at_sixteen_bits_writes_and_moves_sixteen_bit_weights() {
    // The checkpoint holds the weights at the width memory holds them and
    // the 12-byte optimizer state: fp8 narrow 1 + 12 = 13 bytes per
    // parameter, fp8 held at 16 bits (torchao) 2 + 12 = 14, as bf16.
    // The optimizer step reads and writes the state and reads the
    // gradients and writes the weights: 2 x 12 + 2 e = 26 bytes narrow,
    // 28 at 16 bits. The element-wise kernels run on activations of the
    // width they are held at: the 16-bit run's bytes.
    let m = llama_8b();
    let d = decoder(&m).unwrap();
    let bf16 = TrainingRun {
        layout: layout(8, 1, 1),
        ..TrainingRun::default()
    };
    let fp8 = TrainingRun {
        precision: Precision::Fp8,
        ..bf16
    };
    let narrow = TrainingAssumptions::default();
    let wide = TrainingAssumptions {
        low_precision_storage: LowPrecisionStorage::Bf16,
        ..narrow
    };
    let at = |run: &TrainingRun, t: &TrainingAssumptions| {
        evaluate(&a100(), &m, run, &Assumptions::ideal(), t).unwrap()
    };
    let spec = RunSpec {
        tokens: TokensToTrain::Chinchilla,
        idle_share: 0.3,
        grid: None,
    };
    let per_param = |run: &TrainingRun, t: &TrainingAssumptions| {
        let tr = at(run, t);
        run_figures(&a100(), &tr, &spec, t).checkpoint_bytes / tr.params.total
    };
    assert!((per_param(&fp8, &narrow) - 13.0).abs() < 1e-9);
    assert!((per_param(&fp8, &wide) - 14.0).abs() < 1e-9);
    assert!((per_param(&bf16, &narrow) - 14.0).abs() < 1e-9);
    let opt = |t: &TrainingAssumptions| at(&fp8, t).step.optimizer_s;
    assert!((opt(&wide) / opt(&narrow) - 28.0 / 26.0).abs() < 1e-12);
    assert_eq!(
        flops::elementwise_bytes_per_token(d, &fp8, &wide),
        flops::elementwise_bytes_per_token(d, &bf16, &narrow)
    );
    assert!(
        flops::elementwise_bytes_per_token(d, &fp8, &narrow)
            < flops::elementwise_bytes_per_token(d, &fp8, &wide)
    );
}

#[test]
fn fp32_main_gradients_are_held_and_reduced_at_four_bytes() {
    // Megatron-LM's default for bf16: a 4-byte main gradient a parameter,
    // whole under its distributed optimizer (ZeRO 1). Pure DP over the 8
    // GPUs of one node: 2 (bf16 weights) + 4 (fp32 gradients) + 12 / 8
    // (fp32 master and moments, sharded) = 7.5 bytes a parameter, where
    // bf16 gradients make it 2 + 2 + 1.5 = 5.5. The gradients'
    // reduce-scatter carries 7/8 x 4P bytes a link, twice the bf16 7/8 x
    // 2P, and the weights' all-gather stays 7/8 x 2P: 7/8 x 6P against
    // 7/8 x 4P. The optimizer step reads and writes the 12-byte state,
    // reads the gradients and writes the weights: 2 x 12 + 4 + 2 = 30
    // bytes a parameter it owns, 28 with bf16 gradients.
    let m = gpt(24, 2048, 16, 50_000);
    let run = TrainingRun {
        seq: 1024.0,
        global_batch_tokens: 8.0 * 1024.0,
        layout: layout(8, 1, 1),
        zero: 1,
        ..TrainingRun::default()
    };
    let bf16 = TrainingAssumptions::default();
    let fp32 = TrainingAssumptions {
        grad_precision: GradPrecision::Fp32,
        ..bf16
    };
    let at =
        |t: &TrainingAssumptions| evaluate(&a100(), &m, &run, &Assumptions::ideal(), t).unwrap();
    let (a, b) = (at(&bf16), at(&fp32));
    let p = a.params.total;
    let per_param = |t: &Training| (t.memory.weights + t.memory.gradients + t.memory.optimizer) / p;
    assert!((per_param(&a) - 5.5).abs() < 1e-9);
    assert!((per_param(&b) - 7.5).abs() < 1e-9);
    assert!((a.step.comm.dp.link_bytes - 7.0 / 8.0 * 4.0 * p).abs() < 1.0);
    assert!((b.step.comm.dp.link_bytes - 7.0 / 8.0 * 6.0 * p).abs() < 1.0);
    assert!((b.step.optimizer_s / a.step.optimizer_s - 30.0 / 28.0).abs() < 1e-12);
    // fp32 weights keep 4-byte gradients either way.
    let full = TrainingRun {
        precision: Precision::Fp32,
        ..run
    };
    let g = |t: &TrainingAssumptions| full.grad_bytes(t);
    assert_eq!((g(&bf16), g(&fp32)), (4.0, 4.0));
}
