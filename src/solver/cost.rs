//! What one step of a workload costs, before any hardware is involved:
//! FLOPs, bytes moved, bytes held, and bytes communicated, per tensor-parallel
//! rank. The formulas follow solver.md; README "Model" cites their sources.

use super::types::{Arch, Decoder, Layer, Model, Phase, SinglePass, Workload};

/// Bytes of fp32 logits kept per sequence per vocabulary entry (sampling
/// reads them in fp32 whatever the activation precision).
const LOGIT_BYTES: f64 = 4.0;

/// The cost of one step (decode: one token for each of B sequences; prefill:
/// B prompts of S tokens; single-pass: B samples), for one tensor-parallel
/// rank, summed over pipeline stages (stages run one after another).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepCost {
    /// Tokens (or samples) processed by the step.
    pub tokens: f64,
    /// FLOPs, per rank.
    pub flops: f64,
    /// Weight bytes streamed from memory, per rank.
    pub weight_bytes: f64,
    /// KV cache bytes read (decode) or written (prefill), per rank.
    pub kv_bytes: f64,
    /// Activation bytes written and read back, per rank.
    pub activation_bytes: f64,
    /// All-reduces per step (tensor parallelism) and the size of each, bytes.
    pub allreduces: f64,
    pub allreduce_bytes: f64,
    /// Pipeline hand-offs per step and the size of each, bytes.
    pub handoffs: f64,
    pub handoff_bytes: f64,
    /// True when KV heads are replicated because the TP degree exceeds them.
    pub kv_replicated: bool,
    /// The part of `flops` in the attention products (q.k and p.v).
    pub attention_flops: f64,
    /// The part of `flops` in routed-expert GEMMs (MoE).
    pub expert_flops: f64,
    /// Rows (tokens) of the step's dense GEMMs, and of each touched
    /// expert's GEMM (routed tokens over the experts they touch); 0 = not
    /// known (single-pass models), no size effect.
    pub gemm_rows: f64,
    pub expert_rows: f64,
    /// Kernels a step launches ([`layer_kernels`] per layer plus
    /// [`STEP_KERNELS`]); 0 for single-pass models, whose launches the
    /// per-step overhead covers.
    pub kernels: f64,
    /// Mixture-of-experts layers the step runs (0 for a dense model).
    pub moe_layers: f64,
}

/// Kernels one decoder layer launches, as a vLLM-style runtime runs it:
/// attention (fused residual add and norm, QKV GEMM, RoPE, KV-cache write,
/// attention, output GEMM: 6) and MLP (add and norm, gate-up GEMM,
/// activation, down GEMM: 4). MLA's absorbed attention adds 6 (q and kv
/// down-projections and their norms, the q up-projection, and the two
/// absorbed batched GEMMs in place of one QKV GEMM); an MoE MLP adds 4
/// (router GEMM, top-k, token sort, weighted combine). The all-reduces of
/// tensor parallelism are collectives, counted apart.
pub const DENSE_LAYER_KERNELS: f64 = 10.0;
pub const MLA_EXTRA_KERNELS: f64 = 6.0;
pub const MOE_EXTRA_KERNELS: f64 = 4.0;
/// Kernels a decoder step launches outside its layers: the embedding
/// gather, the final norm, the LM head and sampling.
pub const STEP_KERNELS: f64 = 4.0;

/// Kernels of one layer of `d`.
pub fn layer_kernels(d: &Decoder) -> f64 {
    DENSE_LAYER_KERNELS
        + if d.mla.is_some() {
            MLA_EXTRA_KERNELS
        } else {
            0.0
        }
        + if d.moe.is_some() {
            MOE_EXTRA_KERNELS
        } else {
            0.0
        }
}

impl StepCost {
    /// All bytes moved through memory, per rank.
    pub fn bytes(&self) -> f64 {
        self.weight_bytes + self.kv_bytes + self.activation_bytes
    }
}

/// What one device holds, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Footprint {
    pub weights: f64,
    pub kv: f64,
    pub workspace: f64,
}

impl Footprint {
    pub fn total(&self) -> f64 {
        self.weights + self.kv + self.workspace
    }
}

impl Decoder {
    /// Parameters of the input embedding table (V * d).
    pub fn embedding_params(&self) -> f64 {
        self.vocab as f64 * self.hidden as f64
    }

    /// Parameters a step does not stream: the input embedding is gathered
    /// (B rows), unless it is tied to the output head, which streams it.
    pub fn gathered_params(&self) -> f64 {
        if self.tied_embeddings {
            0.0
        } else {
            self.embedding_params()
        }
    }

    /// KV cache bytes per token: 2 * L * h_kv * d_h * b_kv, or for MLA the
    /// latent plus the RoPE key, L * (latent + rope) * b_kv.
    pub fn kv_bytes_per_token(&self, kv_bytes_per_element: f64) -> f64 {
        let l = self.layers as f64;
        match self.mla {
            Some(m) => l * (m.kv_latent as f64 + m.rope_dim as f64) * kv_bytes_per_element,
            None => 2.0 * l * self.kv_heads as f64 * self.head_dim as f64 * kv_bytes_per_element,
        }
    }

    /// Ranks that hold distinct KV shards under tensor parallelism `tp`: KV
    /// heads split across ranks, and replicate when `tp` exceeds them. An MLA
    /// latent is shared by all heads, so every rank holds all of it.
    pub fn kv_shards(&self, tp: u32) -> u32 {
        match self.mla {
            Some(_) => 1,
            None => tp.min(self.kv_heads).max(1),
        }
    }

    /// Per-head dimensions of the attention products for one query token and
    /// one cached position: (query-key, value). MLA decode runs in the
    /// absorbed latent form (q.k over latent + rope, values in the latent);
    /// prefill decompresses (head_dim + rope for q.k, head_dim for values).
    fn attention_dims(&self, phase: Phase) -> (f64, f64) {
        let dh = self.head_dim as f64;
        match (self.mla, phase) {
            (Some(m), Phase::Decode) => {
                (m.kv_latent as f64 + m.rope_dim as f64, m.kv_latent as f64)
            }
            (Some(m), Phase::Prefill) => (dh + m.rope_dim as f64, dh),
            (None, _) => (dh, dh),
        }
    }

    /// FFN width a token passes through: top-k experts for MoE.
    fn ffn_per_token(&self) -> f64 {
        self.ffn as f64 * self.moe.map_or(1.0, |m| m.top_k as f64)
    }

    /// Live activation bytes per token in one layer, per rank: residual,
    /// normed input, attention output and query (4 d), and the FFN
    /// intermediate gate and up (2 ffn, split across ranks).
    fn live_activation_bytes_per_token(&self, tp: f64, b_a: f64) -> f64 {
        (4.0 * self.hidden as f64 + 2.0 * self.ffn_per_token() / tp) * b_a
    }

    /// Activation bytes a layer writes and reads back per token, per rank:
    /// attention in/out, q, k, v, o and the residual (8 d), and the FFN
    /// intermediate written and read (2 ffn, split across ranks).
    fn activation_traffic_per_token(&self, tp: f64, b_a: f64) -> f64 {
        (8.0 * self.hidden as f64 + 2.0 * self.ffn_per_token() / tp) * b_a
    }

    /// Parameters streamed for a step of `tokens` routed tokens: every weight
    /// but the gathered input embedding; for MoE the dense part plus the
    /// experts expected to be touched, E * (1 - (1 - k/E)^tokens) per layer.
    pub fn streamed_params(&self, total_params: f64, tokens: f64) -> f64 {
        match self.moe {
            None => total_params - self.gathered_params(),
            Some(moe) => {
                let expert = self.expert_params(total_params);
                let dense = total_params - moe.experts as f64 * expert;
                dense - self.gathered_params() + self.touched_experts(tokens) * expert
            }
        }
    }

    /// One routed expert's parameters summed over all MoE layers, x in
    /// total = dense + E x, active = dense + k x (0 for a dense model).
    pub fn expert_params(&self, total_params: f64) -> f64 {
        self.moe.map_or(0.0, |m| {
            (total_params - m.active_params) / (m.experts as f64 - m.top_k as f64)
        })
    }

    /// Distinct experts per MoE layer that `tokens` routed tokens touch,
    /// E (1 - (1 - k/E)^tokens) (0 for a dense model).
    pub fn touched_experts(&self, tokens: f64) -> f64 {
        self.moe.map_or(0.0, |m| {
            let e = m.experts as f64;
            e * (1.0 - (1.0 - m.top_k as f64 / e).powf(tokens))
        })
    }

    /// Parameters each token multiplies through (excluding the gathered input embedding).
    pub fn active_params(&self, total_params: f64) -> f64 {
        self.moe.map_or(total_params, |m| m.active_params) - self.gathered_params()
    }
}

/// The cost of one step of `wl` on `model`, per tensor-parallel rank.
pub fn step_cost(model: &Model, wl: &Workload) -> StepCost {
    match &model.arch {
        Arch::Decoder(d) => decoder_step(d, model.params, wl),
        Arch::SinglePass(s) => single_pass_step(s, model.params, &model.layers, wl),
    }
}

fn decoder_step(d: &Decoder, params: f64, wl: &Workload) -> StepCost {
    let t = wl.tp as f64;
    let b = wl.batch;
    let s = wl.context;
    let l = d.layers as f64;
    let b_w = wl.weights.bytes();
    let b_a = wl.activations.bytes();
    let b_kv = wl.kv.bytes();
    let kv_shards = d.kv_shards(wl.tp) as f64;
    let kv_tok = d.kv_bytes_per_token(b_kv);
    let (d_qk, d_v) = d.attention_dims(wl.phase);
    let heads = d.heads as f64;

    let (tokens, attention_flops, kv_bytes) = match wl.phase {
        // Each of B new tokens attends to S cached positions: q.k and p.v,
        // 2 FLOPs per multiply-add: 2 * L * h * (d_qk + d_v) * S * B
        // (= 4 L h d_h S B for standard attention). The step reads the cache.
        Phase::Decode => (b, 2.0 * l * heads * (d_qk + d_v) * s * b, b * s * kv_tok),
        // Causal attention over S prompt tokens touches S^2 / 2 pairs:
        // L * h * (d_qk + d_v) * S^2 * B (= 2 L h d_h S^2 B). The step writes the cache.
        Phase::Prefill => (b * s, l * heads * (d_qk + d_v) * s * s * b, b * s * kv_tok),
    };
    let flops = 2.0 * d.active_params(params) * tokens + attention_flops;
    let weight_bytes = d.streamed_params(params, tokens) * b_w;
    let routed = d.moe.map_or(0.0, |m| m.top_k as f64) * tokens;
    let expert_flops = 2.0 * d.expert_params(params) * routed;
    let touched = d.touched_experts(tokens);
    // Attention heads split across ranks.
    StepCost {
        tokens,
        flops: flops / t,
        weight_bytes: weight_bytes / t,
        kv_bytes: kv_bytes / kv_shards,
        activation_bytes: l * tokens * d.activation_traffic_per_token(t, b_a),
        allreduces: if wl.tp > 1 { 2.0 * l } else { 0.0 },
        allreduce_bytes: tokens * d.hidden as f64 * b_a,
        handoffs: (wl.pp.max(1) - 1) as f64,
        handoff_bytes: tokens * d.hidden as f64 * b_a,
        kv_replicated: d.mla.is_none() && wl.tp > d.kv_heads,
        attention_flops: attention_flops / t,
        expert_flops: expert_flops / t,
        gemm_rows: tokens,
        expert_rows: if touched > 0.0 { routed / touched } else { 0.0 },
        kernels: l * layer_kernels(d) + STEP_KERNELS,
        moe_layers: if d.moe.is_some() { l } else { 0.0 },
    }
}

/// A single-pass step of B samples. With the model's layer list, the sum
/// of its layers: each layer's FLOPs, its weights read once per step, and
/// the activation elements it reads and writes (a residual add reads both
/// its inputs, a shortcut projection reads the block's input again).
/// Without one, the entry's published figures, with every feature map
/// written once and read back once.
fn single_pass_step(sp: &SinglePass, params: f64, layers: &[Layer], wl: &Workload) -> StepCost {
    let b = wl.batch;
    let b_a = wl.activations.bytes();
    let (flops, weights, moved) = if layers.is_empty() {
        (
            sp.flops_per_sample,
            params,
            2.0 * sp.activation_elements_per_sample,
        )
    } else {
        layers.iter().fold((0.0, 0.0, 0.0), |(f, p, a), l| {
            (f + l.flops, p + l.params, a + l.inputs + l.outputs)
        })
    };
    StepCost {
        tokens: b,
        flops: b * flops,
        weight_bytes: weights * wl.weights.bytes(),
        kv_bytes: 0.0,
        activation_bytes: b * moved * b_a,
        // A convolution's GEMM has a row per output position, not per
        // sample: rows 0 leaves the size effect out.
        ..StepCost::default()
    }
}

/// What each device holds for `wl` with its tensor and pipeline degrees.
pub fn footprint(model: &Model, wl: &Workload) -> Footprint {
    let per_seq = per_sequence_footprint(model, wl);
    let fixed = weights_per_device(model, wl);
    Footprint {
        weights: fixed,
        kv: wl.batch * per_seq.kv,
        workspace: wl.batch * per_seq.workspace,
    }
}

/// Weight bytes one device holds: all weights / (tp * pp).
pub fn weights_per_device(model: &Model, wl: &Workload) -> f64 {
    model.params * wl.weights.bytes() / (wl.tp.max(1) as f64 * wl.pp.max(1) as f64)
}

/// KV cache and workspace one sequence (or sample) adds to a device.
pub fn per_sequence_footprint(model: &Model, wl: &Workload) -> Footprint {
    let t = wl.tp.max(1) as f64;
    let p = wl.pp.max(1) as f64;
    let b_a = wl.activations.bytes();
    match &model.arch {
        Arch::Decoder(d) => {
            let tokens_in_flight = match wl.phase {
                Phase::Decode => 1.0,
                Phase::Prefill => wl.context,
            };
            // Decode holds S cached tokens plus the new one; prefill writes S.
            let cached = match wl.phase {
                Phase::Decode => wl.context + 1.0,
                Phase::Prefill => wl.context,
            };
            let kv = cached * d.kv_bytes_per_token(wl.kv.bytes()) / (d.kv_shards(wl.tp) as f64 * p);
            // One layer's live activations at a time, plus fp32 logits of the
            // last position (split across ranks).
            let workspace = tokens_in_flight * d.live_activation_bytes_per_token(t, b_a)
                + d.vocab as f64 * LOGIT_BYTES / t;
            Footprint {
                weights: 0.0,
                kv,
                workspace,
            }
        }
        // All feature maps of a sample may be live at once (an upper bound).
        Arch::SinglePass(sp) => Footprint {
            weights: 0.0,
            kv: 0.0,
            workspace: sp.activation_elements_per_sample * b_a / (t * p),
        },
    }
}
