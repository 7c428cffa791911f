//! Bytes per device of a training step, and what to change when they do
//! not fit.
//!
//! **States.** Weights, gradients and optimizer state: P_dev x (w, g, o)
//! bytes, with P_dev the parameters of the device's pipeline stage (its
//! layers, plus the input embedding on the first stage and the output head
//! on the last) over tp (and ep for routed experts), each sharded over its
//! data-parallel group (dp ep cp for dense parameters, dp cp for experts)
//! by the ZeRO stage: stage 1 shards the optimizer state, 2 also the
//! gradients, 3 also the weights (Rajbhandari et al. 2020, ZeRO, figure 1).
//! bf16 with Adam: w = g = 2, o = 4 (fp32 master) + 8 (moments) = 16 bytes
//! per parameter; g = 4 where a stack keeps fp32 main gradients
//! ([`super::GradPrecision::Fp32`], Megatron-LM's default). ZeRO 3 gathers each layer's weights before using it and
//! prefetches the next, so two layers are whole at once (Zhao et al. 2023,
//! "PyTorch FSDP", section 3.3.1: backward prefetching keeps the current
//! and the next unit).
//!
//! **Activations** ([`layer_bytes`]): what one layer keeps for its
//! backward pass, derived from the model's own shape in the manner of
//! Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
//! Transformer Models", section 4.1), term by term, per token of one
//! micro-batch at 16 bits:
//!
//! - the two norms' inputs, 2 h each (RMSNorm and LayerNorm keep their
//!   input; the statistics are negligible);
//! - the QKV projection's input, 2 h; the query, 2 a d_h; the keys and
//!   values, 2 x 2 h_kv d_h (GQA keeps h_kv heads; MLA its latents as well,
//!   2 (q_latent + kv_latent + rope), and heads of d_h + rope for Q and K);
//! - the attention core: FlashAttention (Dao et al. 2022, section 3.1)
//!   keeps only its output, 2 a d_h, and one fp32 log-sum-exp per head, 4 a;
//!   eager attention also keeps the softmax output, 2 a s, and with dropout
//!   its mask and output, 3 a s more (Korthikanti's 5 a s^2 b);
//! - the MLP's input, 2 h, and its intermediates: a gated MLP (SwiGLU) keeps
//!   the gate and up outputs and their product, 3 x 2 f; a plain one the
//!   activation's input and output, 2 x 2 f;
//! - an MoE layer instead keeps its router's fp32 logits, 4 E, and for each
//!   of the c k copies a token is routed to (top-k, capacity factor c),
//!   its dispatched input and the expert's intermediates (2 h + 6 f_e),
//!   plus the shared experts' 6 f_s. Not the expert's output: the routing
//!   weight multiplies the activation inside the expert (Megatron-Core's
//!   grouped experts, `activation_func_with_probs` and
//!   `weighted_bias_swiglu_impl` in megatron/core/transformer/moe/
//!   experts.py), so combining the copies is an unweighted sum, whose
//!   backward needs no activation;
//! - with dropout, one mask byte per element after the attention and the
//!   MLP, 2 h.
//!
//! GPT-3's shape (plain MLP with f = 4h, a d_h = h, h_kv = a) with eager
//! attention and dropout gives 34 h + 5 a s, Korthikanti's equation 1. With
//! tensor and sequence parallelism every term divides by t (heads, FFN
//! columns and sequence are split), but the keys and values of h_kv < t
//! heads replicate. Context parallelism gives each rank s / cp of the
//! sequence. Other formats scale the 16-bit terms by their bytes / 2.
//!
//! **Recomputation** ([`Recompute`]): `selective` recomputes the attention
//! core (its scores, or flash's statistics); `dots` keeps only the outputs
//! of the matrix products that backward reads (layer input, Q, K, V, the
//! out projection's output, the gate and up outputs) and recomputes norms,
//! activation functions and the attention core, as JAX's `dots_saveable`
//! policy does; `dots-except-mlpwi` keeps the same less the gate and up
//! outputs (MaxText's `save_dot_except_mlpwi`: only "query_proj",
//! "key_proj", "value_proj", "qkv_proj", "out_proj" and "mlpwo" may be
//! saved); `dots-except-mlp` keeps the layer input, Q, K, V and the out
//! projection's output, 2 h + Q K V + 2 h (MaxText's
//! `save_dot_except_mlp`); `full` keeps each layer's input, 2 h, and rebuilds one
//! layer's whole set in backward (never a score matrix under flash);
//! `selective-op` keeps what torchtitan's per-operator policy saves: the
//! block's input (the checkpoint's), the attention kernel's output and
//! statistics, and the output of every second matrix product in the
//! block's order, the first, third, ... (its policy counts `mm` calls and
//! saves the odd ones): for a Llama block, Q, V, the gate and the down
//! projection, 2 h + 2 a d_h + 4 a + 2 a d_h + 2 h_kv d_h + 2 f + 2 h. An
//! MoE layer's grouped products count once each, their outputs for every
//! routed copy. Under tp a row-parallel product (the out projection, a
//! dense MLP's down projection) outputs partial sums of the whole width,
//! and the reduce-scatter after it (also in the save list) keeps h / tp.
//!
//! A policy says what *may* be saved; JAX saves only the residuals the
//! linearized backward reads (partial evaluation, then dead-code
//! elimination). A dense layer's down projection output (and a shared
//! expert's) feeds only the residual sum, whose backward reads nothing,
//! so no level keeps it, and `dots-except-mlpwi` holds what
//! `dots-except-mlp` does on a dense model. A routed copy's down output
//! is read by its routing weight's gradient (JAX stacks weight the
//! copies in the combine), so `dots` and `dots-except-mlpwi` keep it,
//! 2 h per copy. The out projection's output is read: the MLP norm's
//! input is rebuilt from it and the layer input.
//!
//! A set of Megatron-Core's `recompute_modules` (TransformerConfig: the
//! list replaces the default `["core_attn"]`) takes its parts out of the
//! `none` set: core_attn the attention core (as `selective`); mla_up_proj
//! the per-head Q, K and V of MLA's up projections, 2 a (d_h + rope) +
//! 2 x 2 a (d_h + rope / 2), rebuilt from the latents kept (a model
//! without MLA has no up projection: nothing); layernorm the two norms'
//! outputs, the QKV and MLP inputs, 2 h + 2 h (their inputs stay);
//! moe_act each routed copy's activation output, 2 f_e; mlp a dense
//! layer's intermediates (its input stays); moe an MoE layer's router
//! logits, routed copies and shared experts (its input stays);
//! shared_experts the shared experts' 6 f_s. The part rebuilt in backward
//! is at most one module of one layer at a time, which is not counted.
//!
//! **Offloading** ([`super::TrainingRun::offload`]): what the layers keep
//! goes to host memory as the forward pass produces it and comes back as
//! backward needs it; the device holds [`OFFLOAD_LAYERS_ON_DEVICE`]
//! layers of one micro-batch (the current, the one in transfer, the one
//! prefetched), the host the rest ([`TrainingMemory::host`]).
//!
//! **Pipeline stages.** Device i of p holds, with 1F1B, min(m, p - i)
//! micro-batches of its layers; with v interleaved chunks, 2 (p - i - 1) +
//! (v - 1) p + 1 chunks of L / (p v) layers (Megatron-LM's warm-up count;
//! for the first stage this is Korthikanti's p + (p - 1) / v micro-batches,
//! section 4.2.3). Llama 3's schedule runs N micro-batches back to back on
//! a chunk, N free where Megatron's is p (Dubey et al. 2024, section
//! 3.3.2, "allows setting N flexibly"): (v - 1) N + 2 (p - i - 1) + 1
//! chunks, fewer in flight when N < p. The first stage holds the input embedding; the last
//! holds the output head (a copy of a tied table too) and, for the
//! micro-batch in flight, the final norm's and head's inputs, 4 h, and the
//! fp32 logits of the loss, 4 V (Korthikanti section 4.3). Stages may take
//! `edge_layers` fewer layers on the first and last stage (Llama 3 took one
//! off each, Dubey et al. 2024 section 3.3.2). The busiest of the first,
//! second and last stages is the one that must fit.
//!
//! **What is held at once.** The peak is one moment. Under `full`
//! recomputation the logits and the layer rebuilt in backward are never
//! held together: the loss's logits live from the head's forward to its
//! backward, and are freed (only the head input's gradient, 2 h, goes on)
//! before backward rebuilds the last layer. The last stage's peak counts
//! the larger of the two ([`TrainingMemory::reused`]). Under the other
//! levels the layers' kept activations and the logits are held together
//! at the end of the forward pass, and both count.

use super::{
    Attention, Layout, Modules, OFFLOAD_LAYERS_ON_DEVICE, Params, Recompute, TrainingAssumptions,
    TrainingRun, dp_groups,
};
use crate::solver::types::{Assumptions, Decoder, Hardware};
use std::fmt;

/// Which pipeline stage sets the memory per device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// No pipeline: one stage holds everything.
    Only,
    First,
    /// The second stage: the most layers with the most micro-batches in
    /// flight when the first and last take fewer layers.
    Second,
    Last,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Only => "the only stage",
            Stage::First => "the first stage",
            Stage::Second => "the second stage",
            Stage::Last => "the last stage",
        }
    }
}

/// Bytes per device and the fit, on the stage that needs the most.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingMemory {
    pub weights: f64,
    pub gradients: f64,
    pub optimizer: f64,
    /// What the layers keep for backward (and one layer rebuilt under full
    /// recomputation).
    pub activations: f64,
    /// The last stage's final norm and head inputs and fp32 logits.
    pub logits: f64,
    /// ZeRO 3's gathered layers (the current and the prefetched one).
    pub gathered: f64,
    /// Bytes counted twice above and held only in turn: under full
    /// recomputation, the smaller of the logits and the layer rebuilt in
    /// backward, which reuses the logits' memory once the loss's backward
    /// frees them (see the module's "What is held at once"). 0 elsewhere.
    pub reused: f64,
    /// Activations offloaded to host memory (not in the device's total).
    pub host: f64,
    /// The stage these bytes are of.
    pub stage: Stage,
    pub capacity_bytes: f64,
    /// capacity x usable fraction.
    pub usable_bytes: f64,
    pub fits: bool,
    /// What the allocator's pool holds at the peak: the total with the
    /// allocator's overhead
    /// ([`super::TrainingAssumptions::allocator_overhead`]), at most the
    /// capacity. What a logger of reserved memory reads; not the verdict.
    pub reserved: f64,
}

impl TrainingMemory {
    pub fn total(&self) -> f64 {
        self.weights
            + self.gradients
            + self.optimizer
            + self.activations
            + self.logits
            + self.gathered
            - self.reused
    }
}

/// Per-device bytes of weights, gradients and optimizer state of the
/// busiest stage by parameters: (w, g, o).
pub fn states(p: &Params, run: &TrainingRun, t: &TrainingAssumptions) -> (f64, f64, f64) {
    let (dense, experts) = p.per_device(&run.layout, run.edge_layers);
    states_of(dense, experts, run, t)
}

/// (w, g, o) of `dense` and `experts` parameters on one device before ZeRO.
fn states_of(
    dense: f64,
    experts: f64,
    run: &TrainingRun,
    t: &TrainingAssumptions,
) -> (f64, f64, f64) {
    let (gd, ge) = dp_groups(&run.layout);
    let sharded = |stage: u8| {
        if run.zero >= stage {
            dense / gd as f64 + experts / ge as f64
        } else {
            dense + experts
        }
    };
    (
        sharded(3) * run.stored_bytes(t),
        sharded(2) * run.grad_bytes(t),
        sharded(1) * run.optimizer_bytes(),
    )
}

/// The widths of one layer that its activations follow, per token and
/// device (elements).
struct Widths {
    hidden: f64,
    query: f64,
    /// One of K or V.
    kv: f64,
    /// The attention core's output (a d_h; MLA: a v_head).
    out: f64,
    /// MLA's latents kept (q_latent + kv_latent + rope), 0 otherwise.
    latents: f64,
    heads: f64,
}

fn widths(d: &Decoder, tp: f64) -> Widths {
    let dh = d.head_dim as f64;
    let heads = d.heads as f64 / tp;
    match d.mla {
        Some(m) => {
            let r = m.rope_dim as f64;
            Widths {
                hidden: d.hidden as f64 / tp,
                query: heads * (dh + r),
                // K of d_h + rope and V of d_h per head: their mean width.
                kv: heads * (dh + r / 2.0),
                out: heads * dh,
                latents: (m.q_latent as f64 + m.kv_latent as f64 + r) / tp,
                heads,
            }
        }
        None => Widths {
            hidden: d.hidden as f64 / tp,
            query: heads * dh,
            // h_kv < t heads replicate: each rank keeps at least one.
            kv: (d.kv_heads as f64 / tp).max(1.0) * dh,
            out: heads * dh,
            latents: 0.0,
            heads,
        },
    }
}

/// Activation bytes one layer keeps per token of a micro-batch on one
/// device at 16 bits (see the module's derivation), for a layer whose MLP
/// is dense of width `ffn` (`moe` false) or routed.
fn layer_bytes_per_token(
    d: &Decoder,
    run: &TrainingRun,
    t: &TrainingAssumptions,
    recompute: Recompute,
    moe: bool,
    ffn: f64,
) -> f64 {
    let tp = run.layout.tp as f64;
    let s = run.seq / run.layout.cp as f64;
    let w = widths(d, tp);
    let h = w.hidden;
    let f = ffn / tp;
    let eager = run.attention == Attention::Eager;
    let dropout = if run.dropout { 1.0 } else { 0.0 };
    // Scores kept by eager attention: the softmax output, and with dropout
    // its mask (1 byte) and output (2 bytes), per key.
    let scores = if eager {
        (2.0 + 3.0 * dropout) * w.heads * s
    } else {
        0.0
    };
    // FlashAttention's fp32 log-sum-exp, one per head; at 16 bits' scale
    // it is 4 bytes whatever the format, so it is converted below.
    let lse = if eager { 0.0 } else { 4.0 * w.heads };
    let (router, routed, shared) = match (moe, d.moe) {
        (true, Some(m)) => (
            4.0 * m.experts as f64,
            t.moe_capacity * m.top_k as f64,
            m.shared_ffn as f64 / tp,
        ),
        _ => (0.0, 0.0, 0.0),
    };
    let gated = d.gated_mlp;
    // The MLP's intermediates of a width-x MLP, kept whole (none,
    // selective) or as matmul outputs (dots): a gated MLP's gate and up
    // outputs (4 x) and their product (2 x), a plain one's activation
    // input (2 x) and output (2 x). The activation's output is what
    // moe_act rebuilds.
    let mlp_all = |x: f64| if gated { 6.0 * x } else { 4.0 * x };
    let mlp_dots = |x: f64| if gated { 4.0 * x } else { 2.0 * x };
    let act_out = |x: f64| 2.0 * x;
    // Q, K and V (MLA: the per-head outputs of the up projections, which
    // mla_up_proj rebuilds from the latents kept) and MLA's latents.
    let heads_qkv = 2.0 * w.query + 4.0 * w.kv;
    let latents = 2.0 * w.latents;
    let scale = run.stored_bytes(t) / 2.0;
    let sixteen = |x: f64| x * scale;
    match recompute {
        Recompute::None | Recompute::Selective | Recompute::Modules(_) => {
            let mods = recompute.modules();
            let has = |m| mods.contains(m);
            let core = if !has(Modules::CORE_ATTN) {
                sixteen(scores) + lse
            } else {
                0.0
            };
            // mla_up_proj frees the up projections' outputs (a model
            // without MLA has none: its Q, K and V come from the QKV
            // projection).
            let qkv = if has(Modules::MLA_UP_PROJ) && d.mla.is_some() {
                latents
            } else {
                heads_qkv + latents
            };
            // layernorm frees the two norms' outputs, which are the QKV
            // projection's and the MLP's inputs (2h each); their inputs
            // stay (the residual stream).
            let norm_outputs = if has(Modules::LAYERNORM) {
                0.0
            } else {
                4.0 * h
            };
            let mlp = if moe {
                // moe keeps only the layer's MLP input (counted above);
                // moe_act frees each copy's activation output;
                // shared_experts the shared experts' intermediates.
                let expert = if has(Modules::MOE_ACT) {
                    mlp_all(f) - act_out(f)
                } else {
                    mlp_all(f)
                };
                let shared_kept = if has(Modules::SHARED_EXPERTS) {
                    0.0
                } else {
                    mlp_all(shared)
                };
                if has(Modules::MOE) {
                    0.0
                } else {
                    router + routed * sixteen(2.0 * h + expert) + sixteen(shared_kept)
                }
            } else if has(Modules::MLP) {
                // mlp keeps only its input (counted above).
                0.0
            } else {
                sixteen(mlp_all(f))
            };
            // Norm inputs (2 x 2h), their outputs (the QKV and MLP inputs,
            // 2h each), Q K V (and latents), the attention output
            // (2 a d_h), dropout masks (2h), the core and the MLP.
            sixteen(4.0 * h + norm_outputs + qkv + 2.0 * w.out + dropout * 2.0 * h) + core + mlp
        }
        Recompute::Dots | Recompute::DotsExceptMlpwi => {
            // dots-except-mlpwi keeps neither the gate nor the up outputs.
            let keep_wi = if recompute == Recompute::Dots {
                1.0
            } else {
                0.0
            };
            let wi = |x: f64| keep_wi * mlp_dots(x);
            let mlp = if moe {
                router + routed * sixteen(2.0 * h + wi(f)) + sixteen(wi(shared))
            } else {
                sixteen(wi(f))
            };
            // Layer input (2h), Q K V, the out projection's output (2h),
            // the gate and up outputs; a routed copy's down output (2h
            // each, above). The layer's down output feeds only the
            // residual sum: not a residual (see the module's note).
            sixteen(2.0 * h + heads_qkv + latents + 2.0 * h) + mlp
        }
        // Layer input (2h), Q K V (and MLA's latents), the out
        // projection's output (2h); the MLP keeps nothing.
        Recompute::DotsExceptMlp => sixteen(2.0 * h + heads_qkv + latents + 2.0 * h),
        // The block's input (2h), the attention core's output (2 a d_h) and
        // log-sum-exp, and the odd products' outputs (2 each). Under tp
        // (with sequence parallelism) a row-parallel product's output is
        // the whole width, and the reduce-scatter after it, in the
        // policy's save list too, keeps its h / tp share.
        Recompute::SelectiveOp => {
            let copies = if moe { routed } else { 1.0 };
            let products = super::flops::block_products(d, moe, ffn, tp, copies);
            let kept: f64 = products.iter().step_by(2).map(|x| 2.0 * x.out).sum();
            let scattered = if tp > 1.0 {
                products.iter().filter(|x| x.row).count() as f64 * 2.0 * h
            } else {
                0.0
            };
            sixteen(2.0 * h + 2.0 * w.out + kept + scattered)
                + if eager { sixteen(scores) } else { lse }
        }
        Recompute::Full => sixteen(2.0 * h),
    }
}

/// Activation bytes of one layer and one micro-batch on one device, the
/// mean over the model's layers (an MoE's dense leading layers and its
/// routed ones).
pub fn layer_activations(
    d: &Decoder,
    run: &TrainingRun,
    t: &TrainingAssumptions,
    recompute: Recompute,
) -> f64 {
    let tokens = run.seq / run.layout.cp as f64 * run.micro_batch as f64;
    let per_token = match d.moe {
        None => layer_bytes_per_token(d, run, t, recompute, false, d.ffn as f64),
        Some(m) => {
            let l = d.layers.max(1) as f64;
            let dense = (m.dense_layers as f64).min(l);
            let dense_ffn = if m.dense_ffn > 0 { m.dense_ffn } else { d.ffn };
            (dense * layer_bytes_per_token(d, run, t, recompute, false, dense_ffn as f64)
                + (l - dense) * layer_bytes_per_token(d, run, t, recompute, true, d.ffn as f64))
                / l
        }
    };
    tokens * per_token
}

/// The last stage's extra activations for one micro-batch: the final norm's
/// and the head's inputs (2 h each at 16 bits) and what the loss holds of
/// the logits at its peak ([`CrossEntropy::bytes_per_logit`]: 4 V for one
/// fp32 copy), over t.
pub fn logits_bytes(d: &Decoder, run: &TrainingRun, t: &TrainingAssumptions) -> f64 {
    let l = &run.layout;
    let tokens = run.seq / l.cp as f64 * run.micro_batch as f64;
    let tp = l.tp as f64;
    let ce = t.cross_entropy.bytes_per_logit(l.tp);
    tokens * (4.0 * d.hidden as f64 / tp * run.stored_bytes(t) / 2.0 + ce * d.vocab as f64 / tp)
}

/// Micro-batches whose activations device `i` of the pipeline holds at
/// once (in units of its whole stage): min(m, p - i) with 1F1B; with v
/// interleaved chunks run n micro-batches at a time (`contiguous`, p when
/// 0), (v - 1) n + 2 (p - i - 1) + 1 chunks, each 1/v of the stage, and at
/// most the m v chunks of the step.
pub fn in_flight_at(l: &Layout, micro_batches: f64, contiguous: u32, i: u32) -> f64 {
    if l.pp <= 1 {
        return 1.0;
    }
    let p = l.pp as f64;
    let i = i.min(l.pp - 1) as f64;
    let m = micro_batches.max(1.0);
    if l.v > 1 {
        let v = l.v as f64;
        let n = if contiguous == 0 {
            p
        } else {
            contiguous as f64
        };
        ((v - 1.0) * n + 2.0 * (p - i - 1.0) + 1.0).min(m * v) / v
    } else {
        (p - i).min(m)
    }
}

/// Micro-batches the first stage holds at once: min(m, p) with 1F1B,
/// p + (p - 1)/v interleaved (Megatron-LM's depth-first order).
pub fn in_flight(l: &Layout, micro_batches: f64) -> f64 {
    in_flight_at(l, micro_batches, 0, 0)
}

/// Memory per device of `run` on `hw`: the stage that needs the most of
/// the first, the second and the last.
pub fn memory(
    hw: &Hardware,
    d: &Decoder,
    p: &Params,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> TrainingMemory {
    let l = &run.layout;
    let layer = layer_activations(d, run, t, run.recompute);
    let rebuilt = if run.recompute == Recompute::Full {
        layer_activations(d, run, t, Recompute::None)
    } else {
        0.0
    };
    let (gd, _) = dp_groups(l);
    let gathered = if run.zero >= 3 && gd > 1 {
        let (dense, experts) = p.layer_per_device(l);
        2.0 * (dense + experts) * run.stored_bytes(t)
    } else {
        0.0
    };
    let m = run.micro_batches();
    let usable = hw.memory_bytes * a.usable_memory;
    let stages: &[Stage] = match l.pp {
        0 | 1 => &[Stage::Only],
        2 => &[Stage::First, Stage::Last],
        _ => &[Stage::First, Stage::Second, Stage::Last],
    };
    let mut best: Option<TrainingMemory> = None;
    for &stage in stages {
        let (layers, index) = match stage {
            Stage::Only => (d.layers as f64, 0),
            Stage::First => (l.edge_layers(d.layers, run.edge_layers), 0),
            Stage::Second => (l.stage_layers_trimmed(d.layers, run.edge_layers), 1),
            Stage::Last => (l.edge_layers(d.layers, run.edge_layers), l.pp - 1),
        };
        let (dense, experts) = p.on_stage(l, layers, stage);
        let (weights, gradients, optimizer) = states_of(dense, experts, run, t);
        let kept = layer * layers * in_flight_at(l, m, run.contiguous, index);
        // Offloaded: the device holds the layers in flight of one
        // micro-batch, the host the rest.
        let on_device = if run.offload {
            kept.min(OFFLOAD_LAYERS_ON_DEVICE * layer)
        } else {
            kept
        };
        let activations = on_device + rebuilt;
        let logits = match stage {
            Stage::Only | Stage::Last => logits_bytes(d, run, t),
            _ => 0.0,
        };
        let mem = TrainingMemory {
            weights,
            gradients,
            optimizer,
            activations,
            logits,
            gathered,
            reused: logits.min(rebuilt),
            host: kept - on_device,
            stage,
            capacity_bytes: hw.memory_bytes,
            usable_bytes: usable,
            fits: false,
            reserved: 0.0,
        };
        if best.is_none_or(|b| mem.total() > b.total()) {
            best = Some(mem);
        }
    }
    let mut mem = best.expect("at least one stage");
    mem.fits = mem.total() <= usable;
    mem.reserved = (mem.total() * (1.0 + t.allocator_overhead)).min(hw.memory_bytes);
    mem
}

/// One change that lowers the memory per device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fix {
    /// A higher ZeRO stage.
    Zero(u8),
    Recompute(Recompute),
    /// A smaller micro-batch (sequences).
    MicroBatch(u32),
    /// More tensor parallelism, taken from data parallelism.
    Tp(u32),
    /// More pipeline stages, taken from data parallelism.
    Pp(u32),
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fix::Zero(z) => write!(f, "--zero {z}"),
            Fix::Recompute(r) => write!(f, "--recompute {}", r.name()),
            Fix::MicroBatch(b) => write!(f, "--micro-batch {b}"),
            Fix::Tp(t) => write!(f, "--tp {t} (fewer data-parallel ranks)"),
            Fix::Pp(p) => write!(f, "--pp {p} (fewer data-parallel ranks)"),
        }
    }
}

/// The single changes that lower the memory per device, each with the
/// memory it gives (bytes) and whether that fits, those that fit first:
/// the next ZeRO stage, more recomputation, half the micro-batch, twice the
/// TP or PP taken from DP (when the model allows it).
pub fn fixes(
    hw: &Hardware,
    d: &Decoder,
    p: &Params,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Vec<(Fix, f64, bool)> {
    let mut out = Vec::new();
    let base = memory(hw, d, p, run, a, t).total();
    let mut try_run = |fix: Fix, r: TrainingRun| {
        let m = memory(hw, d, p, &r, a, t);
        // A change that saves nothing is no fix.
        if m.total() < base {
            out.push((fix, m.total(), m.fits));
        }
    };
    let (gd, _) = dp_groups(&run.layout);
    if run.zero < 3 && gd > 1 {
        try_run(
            Fix::Zero(run.zero + 1),
            TrainingRun {
                zero: run.zero + 1,
                ..*run
            },
        );
    }
    for r in Recompute::ALL.into_iter().filter(|&r| r > run.recompute) {
        try_run(
            Fix::Recompute(r),
            TrainingRun {
                recompute: r,
                ..*run
            },
        );
    }
    if run.micro_batch > 1 {
        let b = run.micro_batch / 2;
        try_run(
            Fix::MicroBatch(b),
            TrainingRun {
                micro_batch: b,
                ..*run
            },
        );
    }
    let l = run.layout;
    if l.dp.is_multiple_of(2) {
        let tp = l.tp * 2;
        if d.heads.is_multiple_of(tp) {
            let layout = Layout {
                tp,
                dp: l.dp / 2,
                ..l
            };
            try_run(Fix::Tp(tp), TrainingRun { layout, ..*run });
        }
        let pp = l.pp * 2;
        if pp * l.v <= d.layers {
            let layout = Layout {
                pp,
                dp: l.dp / 2,
                ..l
            };
            try_run(Fix::Pp(pp), TrainingRun { layout, ..*run });
        }
    }
    out.sort_by(|x, y| y.2.cmp(&x.2).then(x.1.total_cmp(&y.1)));
    out
}
