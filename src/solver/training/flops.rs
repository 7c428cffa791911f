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
//! al. 2022, section 5).

use super::{Params, Recompute, TrainingRun};
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
/// These kernels are memory-bound: at an H100's 295 FLOP/B ridge a norm's
/// one read and one write per element is far below it, so their time is
/// bytes over bandwidth, serial with the products (they sit between them).
pub fn elementwise_bytes_per_token(d: &Decoder, run: &TrainingRun) -> f64 {
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
    let passes = match run.recompute {
        Recompute::Dots | Recompute::Full => 4.0,
        Recompute::None | Recompute::Selective => 3.0,
    };
    l * per_layer * passes * run.element_bytes() + 12.0 * d.vocab as f64
}
