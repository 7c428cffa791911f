//! Parameters from a decoder's shape, part by part, as the modelling code
//! of each architecture allocates them: embeddings (and the output head
//! unless tied), learned positions, the attention projections (or latent
//! attention) with their biases and head norms, dense MLPs, routed and
//! shared experts with their routers, and the norms. The active count is
//! the total less the routed experts a token does not visit.

use super::shape::{MlaShape, MoeShape, Shape};

/// Parameters by part, summed over the layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count {
    /// Input embedding (V x d).
    pub embedding: u128,
    /// Output head (V x d), 0 when tied to the embedding.
    pub head: u128,
    /// Learned position embeddings (GPT-2).
    pub positions: u128,
    pub attention: u128,
    /// Dense MLPs (every layer of a dense model; an MoE's dense layers).
    pub mlp: u128,
    /// Routed experts of every MoE layer.
    pub experts: u128,
    /// Shared experts and their gates.
    pub shared: u128,
    pub routers: u128,
    pub norms: u128,
    /// One routed expert of one layer.
    pub expert: u128,
}

impl Count {
    pub fn total(&self) -> u128 {
        self.embedding
            + self.head
            + self.positions
            + self.attention
            + self.mlp
            + self.experts
            + self.shared
            + self.routers
            + self.norms
    }

    /// Parameters a token passes through: every one but the routed experts
    /// it is not sent to (the input embedding included, as the catalog's
    /// `active_params`).
    pub fn active(&self, s: &Shape) -> u128 {
        match s.moe {
            Some(m) => {
                let idle = (m.experts - m.top_k) as u128 * self.expert * m.moe_layers as u128;
                self.total() - idle
            }
            None => self.total(),
        }
    }
}

/// Count the parameters of `s`.
pub fn count(s: &Shape) -> Count {
    let w = |x: u32| x as u128;
    let (d, l) = (w(s.hidden), w(s.layers));
    let embedding = w(s.vocab) * d;
    let moe_layers = s.moe.map_or(0, |m| w(m.moe_layers));
    let dense_layers = l - moe_layers;
    let norm = if s.norm_bias { 2 * d } else { d };
    let mut c = Count {
        embedding,
        head: if s.tied { 0 } else { embedding },
        positions: w(s.positions) * d,
        attention: l * attention(s),
        mlp: dense_layers * mlp(s.hidden, s.ffn, s.gated, s.mlp_bias),
        norms: l * w(s.norms) * norm + norm,
        ..Count::default()
    };
    if let Some(m) = s.moe {
        let expert = mlp(s.hidden, m.expert_ffn, true, m.expert_bias);
        c.expert = expert;
        c.experts = moe_layers * w(m.experts) * expert;
        c.routers = moe_layers * router(s.hidden, &m);
        c.shared = moe_layers * shared(s.hidden, &m);
    }
    c
}

/// One layer's attention: q, k, v and output projections with their biases,
/// per-head query and key norms, attention sinks; or latent attention.
fn attention(s: &Shape) -> u128 {
    let w = |x: u32| x as u128;
    let d = w(s.hidden);
    if let Some(m) = s.mla {
        return latent_attention(d, w(s.heads), &m);
    }
    let q = w(s.heads) * w(s.head_dim);
    let kv = w(s.kv_heads) * w(s.head_dim);
    let mut n = d * (q + 2 * kv) + q * d;
    if s.biases.qkv {
        n += q + 2 * kv;
    }
    if s.biases.out {
        n += d;
    }
    if s.qk_norm {
        n += 2 * w(s.head_dim);
    }
    if s.sinks {
        n += w(s.heads);
    }
    n
}

/// DeepSeek's latent attention: the query through its own low-rank
/// projection (with a norm) or directly; keys and values compressed to
/// the latent plus a shared RoPE key, normed, expanded per head; the
/// output projection from the value heads.
fn latent_attention(d: u128, heads: u128, m: &MlaShape) -> u128 {
    let w = |x: u32| x as u128;
    let qk_head = w(m.nope) + w(m.rope);
    let q = match m.q_lora {
        Some(r) => d * w(r) + w(r) + w(r) * heads * qk_head,
        None => d * heads * qk_head,
    };
    let kv_a = d * (w(m.kv_lora) + w(m.rope)) + w(m.kv_lora);
    let kv_b = w(m.kv_lora) * heads * (w(m.nope) + w(m.v_head));
    let out = heads * w(m.v_head) * d;
    q + kv_a + kv_b + out
}

/// An MLP of width `f`: gate, up and down, or up and down; biases on each.
fn mlp(hidden: u32, f: u32, gated: bool, bias: bool) -> u128 {
    let (d, f) = (hidden as u128, f as u128);
    let (mats, bias_n) = if gated {
        (3 * d * f, 2 * f + d)
    } else {
        (2 * d * f, f + d)
    };
    mats + if bias { bias_n } else { 0 }
}

/// The router of one MoE layer: a score per expert, with a bias (gpt-oss)
/// or a score correction (DeepSeek-V3).
fn router(hidden: u32, m: &MoeShape) -> u128 {
    let e = m.experts as u128;
    e * hidden as u128 + if m.router_bias { e } else { 0 } + if m.score_bias { e } else { 0 }
}

/// The shared experts of one MoE layer and their gate.
fn shared(hidden: u32, m: &MoeShape) -> u128 {
    if m.shared_ffn == 0 {
        return 0;
    }
    mlp(hidden, m.shared_ffn, true, false) + if m.shared_gate { hidden as u128 } else { 0 }
}
