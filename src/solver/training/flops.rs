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
        }
    }

    /// The share of the hardware FLOPs in the backward pass (and the
    /// recomputed forward it triggers): what data-parallel communication
    /// can hide behind.
    pub fn backward_share(&self) -> f64 {
        1.0 - self.forward_per_token / self.hardware_per_token
    }
}
