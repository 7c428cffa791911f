//! What one step of a workload costs, before any hardware is involved:
//! FLOPs, bytes moved, bytes held, and bytes communicated, per tensor-parallel
//! rank. The formulas follow solver.md; docs/model.md cites their sources.

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

/// Kernels of one layer of `d` whose MLP is an MoE (`moe`) or dense. A
/// shared expert is taken as fused into the MoE's kernels, as SGLang and
/// vLLM run DeepSeek's.
pub fn layer_kernels(d: &Decoder, moe: bool) -> f64 {
    DENSE_LAYER_KERNELS
        + if d.mla.is_some() {
            MLA_EXTRA_KERNELS
        } else {
            0.0
        }
        + if moe { MOE_EXTRA_KERNELS } else { 0.0 }
}

/// Kernels of all the layers of `d`.
pub fn decoder_kernels(d: &Decoder) -> f64 {
    let moe = d.moe_layers() as f64;
    moe * layer_kernels(d, true) + (d.layers as f64 - moe) * layer_kernels(d, false)
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

    /// KV cache bytes per token and layer: 2 * h_kv * d_h * b_kv, or for
    /// MLA the latent plus the RoPE key, (latent + rope) * b_kv.
    pub fn kv_bytes_per_token_layer(&self, kv_bytes_per_element: f64) -> f64 {
        match self.mla {
            Some(m) => (m.kv_latent as f64 + m.rope_dim as f64) * kv_bytes_per_element,
            None => 2.0 * self.kv_heads as f64 * self.head_dim as f64 * kv_bytes_per_element,
        }
    }

    /// KV cache bytes per token of all layers, L * the above: what each
    /// token costs while the context is within every layer's window.
    pub fn kv_bytes_per_token(&self, kv_bytes_per_element: f64) -> f64 {
        self.layers as f64 * self.kv_bytes_per_token_layer(kv_bytes_per_element)
    }

    /// Layers attending to the whole context and layers with a sliding
    /// window, and the window (0 when there is none).
    pub fn attention_layers(&self) -> (f64, f64, f64) {
        match self.window {
            Some(w) => (
                (self.layers - w.layers.min(self.layers)) as f64,
                w.layers.min(self.layers) as f64,
                w.tokens as f64,
            ),
            None => (self.layers as f64, 0.0, 0.0),
        }
    }

    /// Positions cached, summed over the layers, for one sequence of
    /// `tokens` tokens: every token in a global layer, at most the window
    /// in a local one.
    pub fn cached_positions(&self, tokens: f64) -> f64 {
        let (global, local, w) = self.attention_layers();
        global * tokens + local * tokens.min(w)
    }

    /// KV cache bytes one sequence of `tokens` tokens holds.
    pub fn kv_cache_bytes(&self, tokens: f64, kv_bytes_per_element: f64) -> f64 {
        self.cached_positions(tokens) * self.kv_bytes_per_token_layer(kv_bytes_per_element)
    }

    /// Query-key pairs a causal prompt of `s` tokens attends over, summed
    /// over the layers: s^2 / 2 in a global layer; in a local one with
    /// window w < s, the first w queries see s^2/2-like triangles and the
    /// rest w each: w s - w^2 / 2 (the integral of min(x, w) over 0..s).
    pub fn prompt_pairs(&self, s: f64) -> f64 {
        let (global, local, w) = self.attention_layers();
        let local_pairs = if s <= w {
            s * s / 2.0
        } else {
            w * s - w * w / 2.0
        };
        global * s * s / 2.0 + local * local_pairs
    }

    /// Layers whose MLP is a mixture of experts (0 for a dense model).
    pub fn moe_layers(&self) -> u32 {
        self.moe
            .map_or(0, |m| self.layers - m.dense_layers.min(self.layers))
    }

    /// The MLP's intermediate width a token passes through, summed over the
    /// layers: top-k routed experts plus the shared ones in an MoE layer,
    /// the dense width in a dense one.
    pub fn mlp_width_sum(&self) -> f64 {
        let l = self.layers as f64;
        match self.moe {
            None => l * self.ffn as f64,
            Some(m) => {
                let moe = self.moe_layers() as f64;
                moe * (self.ffn as f64 * m.top_k as f64 + m.shared_ffn as f64)
                    + (l - moe) * m.dense_ffn as f64
            }
        }
    }

    /// The widest MLP intermediate of one layer, per token.
    fn mlp_width_max(&self) -> f64 {
        match self.moe {
            None => self.ffn as f64,
            Some(m) => {
                let routed = self.ffn as f64 * m.top_k as f64 + m.shared_ffn as f64;
                if m.dense_layers > 0 {
                    routed.max(m.dense_ffn as f64)
                } else {
                    routed
                }
            }
        }
    }

    /// Intermediate tensors of the MLP written and read back: gate and up
    /// for a gated MLP, up alone for a plain one.
    pub fn mlp_intermediates(&self) -> f64 {
        if self.gated_mlp { 2.0 } else { 1.0 }
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

    /// Live activation bytes per token in the widest layer, per rank:
    /// residual, normed input, attention output and query (4 d), and the
    /// MLP intermediates (gate and up, or up; split across ranks).
    fn live_activation_bytes_per_token(&self, tp: f64, b_a: f64) -> f64 {
        (4.0 * self.hidden as f64 + self.mlp_intermediates() * self.mlp_width_max() / tp) * b_a
    }

    /// Activation bytes all layers write and read back per token, per
    /// rank: attention in/out, q, k, v, o and the residual (8 d a layer),
    /// and the MLP intermediates written and read (split across ranks).
    pub fn activation_traffic_per_token(&self, tp: f64, b_a: f64) -> f64 {
        (8.0 * self.layers as f64 * self.hidden as f64
            + self.mlp_intermediates() * self.mlp_width_sum() / tp)
            * b_a
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
    let b = wl.batch;
    let s = wl.context;
    let (d_qk, d_v) = d.attention_dims(wl.phase);
    let per_pair = 2.0 * d.heads as f64 * (d_qk + d_v);
    // The cache of one sequence at S tokens (a local layer holds at most
    // its window): the step reads it (decode) or writes it (prefill).
    let kv_bytes = b * d.kv_cache_bytes(s, wl.kv.bytes());
    let (tokens, attention_flops) = match wl.phase {
        // Each of B new tokens attends to the S cached positions of each
        // layer (at most the window in a local one), q.k and p.v at 2 FLOPs
        // per multiply-add: 2 h (d_qk + d_v) B * positions (= 4 L h d_h S B
        // for standard attention without windows).
        Phase::Decode => (b, per_pair * b * d.cached_positions(s)),
        // Causal attention over S prompt tokens touches S^2 / 2 pairs a
        // global layer: 2 h (d_qk + d_v) B * pairs (= 2 L h d_h S^2 B).
        Phase::Prefill => (b * s, per_pair * b * d.prompt_pairs(s)),
    };
    assemble(d, params, wl, tokens, attention_flops, kv_bytes)
}

/// Sequences of a step that each add `new` tokens after `cached` ones:
/// a decode (new 1), a prompt or a chunk of one (cached: the part before
/// it, or a prefix served from the cache), a speculative verification
/// (new: the proposed tokens plus one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Group {
    pub sequences: f64,
    pub new: f64,
    pub cached: f64,
}

/// One step that runs several groups together, as a continuous-batching
/// server does (decodes with prefill chunks riding along): the weights
/// streamed once for all their tokens, each group's attention and KV
/// traffic added. A single-pass model has no groups: its plain step.
pub fn mixed_step(model: &Model, wl: &Workload, groups: &[Group]) -> StepCost {
    let Arch::Decoder(d) = &model.arch else {
        return step_cost(model, wl);
    };
    let b_kv = wl.kv.bytes();
    let (mut tokens, mut attention, mut kv) = (0.0, 0.0, 0.0);
    for g in groups {
        let phase = if g.new > 1.0 {
            Phase::Prefill
        } else {
            Phase::Decode
        };
        let (d_qk, d_v) = d.attention_dims(phase);
        tokens += g.sequences * g.new;
        attention +=
            2.0 * d.heads as f64 * (d_qk + d_v) * g.sequences * d.extend_positions(g.cached, g.new);
        // Reads the cache so far, writes the new tokens in every layer.
        kv += g.sequences * (d.kv_cache_bytes(g.cached, b_kv) + g.new * d.kv_bytes_per_token(b_kv));
    }
    assemble(d, model.params, wl, tokens, attention, kv)
}

impl Decoder {
    /// Positions the `new` tokens after `cached` ones attend to, summed
    /// over the layers: token i (0-based) sees cached + i positions in a
    /// global layer, at most the window in a local one. For one new token
    /// that is the decode's `cached_positions(cached)`.
    pub fn extend_positions(&self, cached: f64, new: f64) -> f64 {
        let (global, local, w) = self.attention_layers();
        let triangle = |m: f64| m * cached + m * (m - 1.0) / 2.0;
        // Tokens still inside the window in a local layer, then W each.
        let inside = (w - cached).clamp(0.0, new);
        global * triangle(new) + local * (triangle(inside) + (new - inside) * w)
    }
}

/// The cost of a decoder step of `tokens` tokens with its attention FLOPs
/// and KV traffic known, per rank.
fn assemble(
    d: &Decoder,
    params: f64,
    wl: &Workload,
    tokens: f64,
    attention_flops: f64,
    kv_bytes: f64,
) -> StepCost {
    let t = wl.tp as f64;
    let l = d.layers as f64;
    let b_a = wl.activations.bytes();
    let kv_shards = d.kv_shards(wl.tp) as f64;
    let flops = 2.0 * d.active_params(params) * tokens + attention_flops;
    let weight_bytes = d.streamed_params(params, tokens) * wl.weights.bytes();
    let routed = d.moe.map_or(0.0, |m| m.top_k as f64) * tokens;
    let expert_flops = 2.0 * d.expert_params(params) * routed;
    let touched = d.touched_experts(tokens);
    // Attention heads split across ranks.
    StepCost {
        tokens,
        flops: flops / t,
        weight_bytes: weight_bytes / t,
        kv_bytes: kv_bytes / kv_shards,
        activation_bytes: tokens * d.activation_traffic_per_token(t, b_a),
        allreduces: if wl.tp > 1 { 2.0 * l } else { 0.0 },
        allreduce_bytes: tokens * d.hidden as f64 * b_a,
        handoffs: (wl.pp.max(1) - 1) as f64,
        handoff_bytes: tokens * d.hidden as f64 * b_a,
        kv_replicated: d.mla.is_none() && wl.tp > d.kv_heads,
        attention_flops: attention_flops / t,
        expert_flops: expert_flops / t,
        gemm_rows: tokens,
        expert_rows: if touched > 0.0 { routed / touched } else { 0.0 },
        kernels: decoder_kernels(d) + STEP_KERNELS,
        moe_layers: d.moe_layers() as f64,
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
            let kv = d.kv_cache_bytes(cached, wl.kv.bytes()) / (d.kv_shards(wl.tp) as f64 * p);
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
