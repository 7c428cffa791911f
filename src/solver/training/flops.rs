//! FLOPs per trained token.
//!
//! Model FLOPs (what MFU counts), from the PaLM paper's appendix B
//! (Chowdhery et al. 2022): 6 N + 12 L H Q T per token, with N the
//! parameters each token multiplies through (active parameters of an MoE;
//! the input embedding gather excluded, the output head included), L
//! layers, H heads of Q dimensions and T tokens of context. The attention
//! term counts the whole T x T score matrix, as PaLM does (a causal mask
//! would halve it; PaLM's 46.2% MFU is quoted with this count).
//!
//! Hardware FLOPs (what HFU counts) add what recomputation redoes: full
//! recomputation a second forward pass, 2 N + 4 L H Q T (so 8 N + 16 L H Q
//! T, Narayanan et al. 2021's 96 B s l h^2 (1 + s/6h + ...) per step);
//! selective recomputation (and `dots`, which keeps only the products'
//! outputs) only the attention core's forward, 4 L H Q T (Korthikanti et
//! al. 2022, section 5); `dots-except-mlpwi` that and the MLP's input
//! projections ([`mlp_input_products`]); `dots-except-mlp` that and the
//! MLP products whose outputs backward reads ([`mlp_products`]);
//! `selective-op` the second, fourth, ... product of each block and not
//! the attention core ([`op_sac_products`]); a set of Megatron-Core
//! modules the attention core when it holds core_attn, and the products of
//! the parts it rebuilds ([`module_products`]).

use super::{Modules, Params, Recompute, TrainingAssumptions, TrainingRun};
use crate::solver::types::Decoder;

/// FLOPs per token of one training step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flops {
    /// Model FLOPs: 6 N + 12 L H Q T.
    pub model_per_token: f64,
    /// Model FLOPs plus recomputation.
    pub hardware_per_token: f64,
    /// The forward pass alone, 2 N + 4 L H Q T.
    pub forward_per_token: f64,
    /// The attention core's share of the hardware FLOPs (score and value
    /// products, forward and backward, with their recomputation).
    pub attention_per_token: f64,
    /// The part of `attention_per_token` that recomputation redoes.
    pub attention_recompute_per_token: f64,
}

impl Flops {
    pub fn of(d: &Decoder, p: &Params, run: &TrainingRun) -> Flops {
        let lhqt = d.layers as f64 * d.heads as f64 * d.head_dim as f64 * run.seq;
        let n = p.matmul_active;
        let model = 6.0 * n + 12.0 * lhqt;
        let (extra, extra_attention) = match run.recompute {
            Recompute::None => (0.0, 0.0),
            // Dots also recomputes norms and activation functions: their
            // FLOPs are element-wise, a rounding error beside the products.
            Recompute::Selective | Recompute::Dots => (4.0 * lhqt, 4.0 * lhqt),
            // The attention core is kept (its kernel is in torchtitan's
            // save list): only the products in between are replayed.
            Recompute::SelectiveOp => (op_sac_products(d), 0.0),
            Recompute::DotsExceptMlpwi => (4.0 * lhqt + mlp_input_products(d), 4.0 * lhqt),
            Recompute::DotsExceptMlp => (4.0 * lhqt + mlp_products(d), 4.0 * lhqt),
            Recompute::Modules(m) => {
                let core = if m.contains(Modules::CORE_ATTN) {
                    4.0 * lhqt
                } else {
                    0.0
                };
                (core + module_products(d, m), core)
            }
            Recompute::Full => (2.0 * n + 4.0 * lhqt, 4.0 * lhqt),
        };
        Flops {
            model_per_token: model,
            hardware_per_token: model + extra,
            forward_per_token: 2.0 * n + 4.0 * lhqt,
            attention_per_token: 12.0 * lhqt + extra_attention,
            attention_recompute_per_token: extra_attention,
        }
    }

    /// The share of the hardware FLOPs in the backward pass (and the
    /// recomputed forward it triggers): what data-parallel communication
    /// can hide behind.
    pub fn backward_share(&self) -> f64 {
        1.0 - self.forward_per_token / self.hardware_per_token
    }
}

/// Parameters of one MLP of width `f` on a model of hidden size h: a gated
/// MLP's gate, up and down matrices, 3 h f; a plain one's two, 2 h f.
fn mlp_params(d: &Decoder, f: f64) -> f64 {
    let h = d.hidden as f64;
    if d.gated_mlp {
        3.0 * h * f
    } else {
        2.0 * h * f
    }
}

/// Dense layers and MoE layers of the model, and a dense layer's MLP width.
fn layer_kinds(d: &Decoder) -> (f64, f64, f64) {
    let moe = d.moe_layers() as f64;
    let dense_ffn = match d.moe {
        Some(m) if m.dense_ffn > 0 => m.dense_ffn,
        _ => d.ffn,
    } as f64;
    (d.layers as f64 - moe, moe, dense_ffn)
}

/// FLOPs per token, over the layers, of the MLP's input projections (gate
/// and up; a plain MLP's one) run again by `dots-except-mlpwi`: 2 FLOPs per
/// parameter, 2 x 2 h f for a gated MLP of width f, 2 h f for a plain one,
/// on each dense layer, and on each MoE layer for each of the top-k
/// experts (f_e) and the shared experts (f_s).
pub fn mlp_input_products(d: &Decoder) -> f64 {
    let h = d.hidden as f64;
    let wi = |f: f64| {
        if d.gated_mlp {
            2.0 * 2.0 * h * f
        } else {
            2.0 * h * f
        }
    };
    let (dense, moe, dense_ffn) = layer_kinds(d);
    let routed = d.moe.map_or(0.0, |m| {
        m.top_k as f64 * wi(d.ffn as f64) + wi(m.shared_ffn as f64)
    });
    dense * wi(dense_ffn) + moe * routed
}

/// FLOPs per token, over the layers, of the MLP products `dots-except-mlp`
/// runs again: those whose outputs backward reads. A product not saved is
/// recomputed only if the backward pass needs its output (JAX keeps as
/// residuals only the values the linearized step reads, and drops the
/// rest of the rebuilt forward as dead code). The gate and up outputs
/// feed the activation function, whose backward reads them
/// ([`mlp_input_products`]). A dense layer's down projection, and a
/// shared expert's, feeds only the residual sum, whose backward reads
/// nothing: not run again. A routed expert's down projection is read by
/// the gradient of its routing weight (the combine weights each copy's
/// output: MaxText's `unpermute`), and the router's logits by the
/// softmax: run again, 2 (k h f_e + h E) on each MoE layer.
pub fn mlp_products(d: &Decoder) -> f64 {
    let h = d.hidden as f64;
    let (_, moe, _) = layer_kinds(d);
    let routed = d.moe.map_or(0.0, |m| {
        m.top_k as f64 * h * d.ffn as f64 + h * m.experts as f64
    });
    mlp_input_products(d) + 2.0 * moe * routed
}

/// FLOPs per token, over the layers, of the products Megatron-Core's
/// recompute `modules` run again (2 FLOPs per parameter a token passes
/// through; the attention core's are counted apart):
///
/// - mla_up_proj: the query's up projection, q_latent x a (d_h + rope)
///   (from h when the query has no latent), and the keys' and values'
///   from the KV latent, kv_latent x a x 2 d_h, on every layer;
/// - mlp: a dense layer's MLP ([`mlp_params`]) on each dense layer;
/// - moe: the router, h E, the top-k experts and the shared experts on
///   each MoE layer;
/// - shared_experts: the shared experts alone (within moe when both);
/// - core_attn, layernorm and moe_act rebuild nothing a product makes.
pub fn module_products(d: &Decoder, m: Modules) -> f64 {
    let h = d.hidden as f64;
    let l = d.layers as f64;
    let (dense, moe, dense_ffn) = layer_kinds(d);
    let mut per_token = 0.0;
    if let (true, Some(mla)) = (m.contains(Modules::MLA_UP_PROJ), d.mla) {
        let a = d.heads as f64;
        let dh = d.head_dim as f64;
        let q_in = if mla.q_latent > 0 {
            mla.q_latent as f64
        } else {
            h
        };
        let up = q_in * a * (dh + mla.rope_dim as f64) + mla.kv_latent as f64 * a * 2.0 * dh;
        per_token += 2.0 * l * up;
    }
    if m.contains(Modules::MLP) {
        per_token += 2.0 * dense * mlp_params(d, dense_ffn);
    }
    if let Some(e) = d.moe {
        let shared = mlp_params(d, e.shared_ffn as f64);
        if m.contains(Modules::MOE) {
            let routed = e.top_k as f64 * mlp_params(d, d.ffn as f64);
            per_token += 2.0 * moe * (h * e.experts as f64 + routed + shared);
        } else if m.contains(Modules::SHARED_EXPERTS) {
            per_token += 2.0 * moe * shared;
        }
    }
    per_token
}

/// Element-wise bytes' elements per token and layer (the mean over the
/// layers) that a module set's recomputed forward moves again: the two
/// norms (4 h) for layernorm, the rotary embedding read and written on
/// the query's rope part and the shared rope key (2 (a rope + rope)) for
/// mla_up_proj, the routed experts'
/// activation function for moe_act, a dense MLP's for mlp, and an MoE
/// layer's experts, dispatch and combine for moe.
fn module_elementwise(d: &Decoder, m: Modules, mlp: impl Fn(f64) -> f64) -> f64 {
    let h = d.hidden as f64;
    let l = d.layers.max(1) as f64;
    let (dense, moe, dense_ffn) = layer_kinds(d);
    let mut per_layer = 0.0;
    if m.contains(Modules::LAYERNORM) {
        per_layer += 4.0 * h;
    }
    if let (true, Some(mla)) = (m.contains(Modules::MLA_UP_PROJ), d.mla) {
        let r = mla.rope_dim as f64;
        per_layer += 2.0 * (d.heads as f64 * r + r);
    }
    if m.contains(Modules::MLP) {
        per_layer += dense / l * mlp(dense_ffn);
    }
    if let Some(e) = d.moe {
        let k = e.top_k as f64;
        let shared = mlp(e.shared_ffn as f64);
        let expert = k * mlp(d.ffn as f64);
        per_layer += moe / l
            * if m.contains(Modules::MOE) {
                expert + shared + 4.0 * k * h
            } else {
                let act = if m.contains(Modules::MOE_ACT) {
                    expert
                } else {
                    0.0
                };
                let sh = if m.contains(Modules::SHARED_EXPERTS) {
                    shared
                } else {
                    0.0
                };
                act + sh
            };
    }
    per_layer
}

/// Bytes the element-wise kernels move per trained token over the whole
/// model (norms, residual adds, rotary embeddings, the MLP's activation
/// function, an MoE's token permutation, and the loss over the vocabulary),
/// forward, backward and recomputed.
///
/// Forward, per token and layer, in elements: two norms read and write h
/// each (4 h), two residual adds read 2 h and write h (6 h), rotary
/// embeddings read and write Q and K (2 (a d_h + h_kv d_h)), the
/// activation function reads the gate and up outputs and writes their
/// product (3 f; a plain MLP reads and writes f, 2 f); an MoE layer's
/// experts do that for each of the top-k copies (3 k f_e, and its shared
/// experts 3 f_s) and its dispatch and combine read and write each copy
/// (4 k h). Backward reads the saved inputs and the incoming gradients
/// and writes the outgoing ones: twice the forward traffic. Recomputing
/// the layer (`dots`, `full`) runs the forward again. The loss reads the
/// 16-bit logits and writes fp32 probabilities, and backward reads those
/// and writes 16-bit gradients: 12 V bytes per token.
///
/// Elements are of the width activations are held at
/// ([`TrainingRun::stored_bytes`]): a stack that holds fp8 activations at
/// 16 bits runs its norms and adds on 16-bit tensors.
///
/// These kernels are memory-bound: at an H100's 295 FLOP/B ridge a norm's
/// one read and one write per element is far below it, so their time is
/// bytes over bandwidth, serial with the products (they sit between them).
pub fn elementwise_bytes_per_token(d: &Decoder, run: &TrainingRun, t: &TrainingAssumptions) -> f64 {
    let h = d.hidden as f64;
    let dh = d.head_dim as f64;
    let qk = d.heads as f64 * dh + d.kv_heads as f64 * dh;
    let mlp = |f: f64| if d.gated_mlp { 3.0 * f } else { 2.0 * f };
    let common = 4.0 * h + 6.0 * h + 2.0 * qk;
    let l = d.layers.max(1) as f64;
    let per_layer = match d.moe {
        None => common + mlp(d.ffn as f64),
        Some(m) => {
            let k = m.top_k as f64;
            let dense = (m.dense_layers as f64).min(l);
            let dense_ffn = if m.dense_ffn > 0 { m.dense_ffn } else { d.ffn } as f64;
            let routed = k * mlp(d.ffn as f64) + mlp(m.shared_ffn as f64) + 4.0 * k * h;
            common + (dense * mlp(dense_ffn) + (l - dense) * routed) / l
        }
    };
    let (passes, again) = match run.recompute {
        Recompute::Dots
        | Recompute::SelectiveOp
        | Recompute::DotsExceptMlpwi
        | Recompute::DotsExceptMlp
        | Recompute::Full => (4.0, 0.0),
        Recompute::None | Recompute::Selective => (3.0, 0.0),
        Recompute::Modules(m) => (3.0, module_elementwise(d, m, mlp)),
    };
    l * (per_layer * passes + again) * run.stored_bytes(t) + 12.0 * d.vocab as f64
}

/// One matrix product of a transformer block, in the order the block runs
/// them: its output's elements per token on one device and its parameters
/// (2 FLOPs each per token, for every routed copy of an MoE expert's).
/// Under tensor parallelism a column-parallel product's output is split
/// over `tp`; a row-parallel one (the out projection, a dense or shared
/// MLP's down projection) outputs the whole width as partial sums, which
/// a reduce-scatter then splits over the sequence (`row`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Product {
    pub out: f64,
    pub params: f64,
    pub row: bool,
}

/// The matrix products of one block in torchtitan's order (attention: Q, K,
/// V, or MLA's q_a, q_b, kv_a, kv_b; then the out projection; the MLP:
/// gate (w1), up (w3), down (w2), or a plain MLP's two; an MoE layer's
/// router, each routed expert's grouped gate, up and down, counted once
/// each for all copies, then the shared experts'). `moe` picks the routed
/// MLP; `ffn` is the dense MLP's width.
pub fn block_products(d: &Decoder, moe: bool, ffn: f64, tp: f64, copies: f64) -> Vec<Product> {
    let h = d.hidden as f64;
    let dh = d.head_dim as f64;
    let a = d.heads as f64;
    let p = |out: f64, params: f64| Product {
        out,
        params,
        row: false,
    };
    let row = |params: f64| Product {
        out: h,
        params,
        row: true,
    };
    let mut v = match d.mla {
        Some(m) => {
            let r = m.rope_dim as f64;
            let (ql, kl) = (m.q_latent as f64, m.kv_latent as f64);
            let mut q = if ql > 0.0 {
                vec![p(ql / tp, h * ql), p(a * (dh + r) / tp, ql * a * (dh + r))]
            } else {
                vec![p(a * (dh + r) / tp, h * a * (dh + r))]
            };
            q.push(p((kl + r) / tp, h * (kl + r)));
            q.push(p(a * 2.0 * dh / tp, kl * a * 2.0 * dh));
            q
        }
        None => {
            let kv = (d.kv_heads as f64 / tp).max(1.0) * dh;
            let kv_params = h * d.kv_heads as f64 * dh;
            vec![
                p(a * dh / tp, h * a * dh),
                p(kv, kv_params),
                p(kv, kv_params),
            ]
        }
    };
    v.push(row(a * dh * h));
    // A routed expert's down projection is not split over tp here (its
    // copies are grouped products, counted per copy); a dense or shared
    // MLP's is row-parallel.
    let mlp = |f: f64, copies: f64, routed: bool| -> Vec<Product> {
        let f_dev = f / tp * copies;
        let down = if routed {
            p(h / tp * copies, f * h * copies)
        } else {
            row(f * h)
        };
        if d.gated_mlp {
            vec![p(f_dev, h * f * copies), p(f_dev, h * f * copies), down]
        } else {
            vec![p(f_dev, h * f * copies), down]
        }
    };
    match (moe, d.moe) {
        (true, Some(m)) => {
            v.push(p(m.experts as f64, h * m.experts as f64));
            v.extend(mlp(d.ffn as f64, copies, true));
            if m.shared_ffn > 0 {
                v.extend(mlp(m.shared_ffn as f64, 1.0, false));
            }
        }
        _ => v.extend(mlp(ffn, 1.0, false)),
    }
    v
}

/// FLOPs per token, over the layers, of the products `selective-op` runs
/// again: the second, fourth, ... of each block ([`block_products`]),
/// whose outputs it does not keep. torchtitan's policy counts the block's
/// products and saves every odd one; the even ones are replayed in
/// backward. An MoE layer's routed products count their top-k copies.
pub fn op_sac_products(d: &Decoder) -> f64 {
    let (dense, moe, dense_ffn) = layer_kinds(d);
    let k = d.moe.map_or(1.0, |m| m.top_k as f64);
    let replayed = |moe: bool, ffn: f64| -> f64 {
        block_products(d, moe, ffn, 1.0, k)
            .iter()
            .skip(1)
            .step_by(2)
            .map(|x| 2.0 * x.params)
            .sum()
    };
    dense * replayed(false, dense_ffn) + moe * replayed(true, d.ffn as f64)
}
