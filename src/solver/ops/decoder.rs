//! A decoder step's operators. The matrices come from the shape (2 FLOPs
//! per parameter per token, each parameter's bytes once per step, divided
//! among the tensor-parallel ranks as cost.rs divides them); the routed
//! experts from cost.rs's own figures (`expert_params`, `touched_experts`,
//! the step's `expert_flops`); what the published parameter count holds
//! beyond the matrices is "other weights". Each attention kind's KV bytes
//! and each operator's activation bytes are counted as cost.rs counts them
//! (`cached_positions`, `kv_bytes_per_token_layer`, `mlp_intermediates`;
//! its 8 d a layer of attention-side activations split evenly among the
//! norms, the input projections, attention and the output projection), and
//! each attention kind's FLOPs by its query-key pairs (`prompt_pairs`).
//! [`apportion`] then scales them to the step's figures, so that they add
//! up exactly whatever the rounding (a test checks the scales are 1).

use super::{Layers, Op, OpKind};
use crate::solver::cost::StepCost;
use crate::solver::types::{Decoder, Phase, Workload};

/// The operators of one step of `wl` on decoder `d` with `params`
/// parameters, whose aggregate cost is `c`.
pub(super) fn operators(d: &Decoder, params: f64, wl: &Workload, c: &StepCost) -> Vec<Op> {
    let mut ops = shaped(d, params, wl, c);
    apportion(&mut ops, c);
    // The published count beyond the shape: what the aggregate streams and
    // multiplies that no matrix above accounts for.
    let dense_flops = c.flops - c.attention_flops - c.expert_flops;
    let counted = |f: fn(&Op) -> f64, skip: &[OpKind]| -> f64 {
        ops.iter().filter(|o| !skip.contains(&o.kind)).map(f).sum()
    };
    let other = Op {
        flops: dense_flops - counted(|o| o.flops, &[OpKind::Attention, OpKind::RoutedExperts]),
        weight_bytes: c.weight_bytes - counted(|o| o.weight_bytes, &[]),
        ..Op::new(OpKind::OtherWeights, Layers::Model)
    };
    ops.push(other);
    let all = Layers::Range(0, d.layers.saturating_sub(1));
    if c.allreduces > 0.0 {
        ops.push(Op::new(OpKind::AllReduceAttention, all));
        ops.push(Op::new(OpKind::AllReduceMlp, all));
    }
    if c.handoffs > 0.0 {
        let n = c.handoffs.round() as u32;
        ops.push(Op::new(OpKind::Handoff, Layers::Boundaries(n)));
    }
    ops
}

/// The operators the shape gives, before they are reconciled with the
/// step: the matrices and norms, the routed experts, each operator's
/// activation bytes and each attention kind's KV bytes as cost.rs counts
/// them, and each attention kind's FLOPs in query-key pairs (their share,
/// scaled to the step's attention FLOPs by [`apportion`]).
pub(super) fn shaped(d: &Decoder, params: f64, wl: &Workload, c: &StepCost) -> Vec<Op> {
    let s = Shape::of(d, wl, c.tokens);
    let mut ops = Vec::with_capacity(20);
    // Activation bytes per token per layer (cost.rs: the attention side's
    // 8 d, split evenly among its four parts), before apportioning.
    let side = 2.0 * s.hd * s.b_a;
    let mut norms = s.gemm(OpKind::Norms, s.all, s.lf * s.norm_params() + s.hd);
    norms.activation_bytes = s.per_token(s.lf, side);
    ops.push(norms);
    let inputs = attention_inputs(d, &s);
    let n_in = inputs.len() as f64;
    for (kind, p) in inputs {
        let mut op = s.gemm(kind, s.all, s.lf * p);
        op.activation_bytes = s.per_token(s.lf, side / n_in);
        ops.push(op);
    }
    // Each sequence's cache, over the ranks holding distinct shards.
    let kv_per_position =
        wl.batch * d.kv_bytes_per_token_layer(wl.kv.bytes()) / d.kv_shards(wl.tp) as f64;
    for (layers, n, attended, cached) in attention_groups(d, wl) {
        ops.push(Op {
            flops: attended,
            kv_bytes: cached * kv_per_position,
            activation_bytes: s.per_token(n, side),
            ..Op::new(OpKind::Attention, layers)
        });
    }
    let mut out = s.gemm(OpKind::OutProj, s.all, s.lf * s.h * s.dh * s.hd);
    out.activation_bytes = s.per_token(s.lf, side);
    ops.push(out);
    mlp(d, params, &s, c, &mut ops);
    ops.push(s.gemm(OpKind::LmHead, Layers::Step, d.vocab as f64 * s.hd));
    ops
}

/// The figures every operator of a step needs.
struct Shape {
    /// FLOPs per parameter (2 per token, over the ranks) and bytes per
    /// parameter (over the ranks).
    flops_per_param: f64,
    bytes_per_param: f64,
    tokens: f64,
    tp: f64,
    b_a: f64,
    lf: f64,
    hd: f64,
    h: f64,
    dh: f64,
    all: Layers,
    /// MLA's latent norms: the query's (when compressed) and the KV's.
    latent_norms: f64,
    gated: bool,
    /// MLP intermediates written and read back (cost.rs's count).
    intermediates: f64,
}

impl Shape {
    fn of(d: &Decoder, wl: &Workload, tokens: f64) -> Shape {
        let tp = wl.tp.max(1) as f64;
        Shape {
            flops_per_param: 2.0 * tokens / tp,
            bytes_per_param: wl.weights.bytes() / tp,
            tokens,
            tp,
            b_a: wl.activations.bytes(),
            lf: d.layers as f64,
            hd: d.hidden as f64,
            h: d.heads as f64,
            dh: d.head_dim as f64,
            all: Layers::Range(0, d.layers.saturating_sub(1)),
            latent_norms: d.mla.map_or(0.0, |m| (m.q_latent + m.kv_latent) as f64),
            gated: d.gated_mlp,
            intermediates: d.mlp_intermediates(),
        }
    }

    /// A matrix (or norm) of `p` parameters over its layers.
    fn gemm(&self, kind: OpKind, layers: Layers, p: f64) -> Op {
        Op {
            flops: self.flops_per_param * p,
            weight_bytes: self.bytes_per_param * p,
            ..Op::new(kind, layers)
        }
    }

    /// Norm weights of one layer: two norms of d, and MLA's latent norms.
    fn norm_params(&self) -> f64 {
        2.0 * self.hd + self.latent_norms
    }

    /// Activation bytes of `n` layers at `per_layer` bytes per token.
    fn per_token(&self, n: f64, per_layer: f64) -> f64 {
        self.tokens * n * per_layer
    }

    /// An MLP's activations per token per layer through `width` (per
    /// rank): gate and up written and read back (2 width), or up alone.
    fn mlp_traffic(&self, width: f64) -> f64 {
        self.intermediates * width / self.tp * self.b_a
    }

    /// Parameters of one MLP of `width`: gate, up and down, or up and down.
    fn mlp_params(&self, width: f64) -> f64 {
        (if self.gated { 3.0 } else { 2.0 }) * self.hd * width
    }

    /// A dense MLP of `width` over `n` layers: gate+up (or up) and down,
    /// the activations half to each.
    fn dense_mlp(&self, layers: Layers, n: f64, width: f64, ops: &mut Vec<Op>) {
        let up = if self.gated {
            OpKind::GateUp
        } else {
            OpKind::Up
        };
        let half = self.per_token(n, self.mlp_traffic(width) / 2.0);
        let mut a = self.gemm(up, layers, n * (self.mlp_params(width) - self.hd * width));
        a.activation_bytes = half;
        let mut b = self.gemm(OpKind::Down, layers, n * self.hd * width);
        b.activation_bytes = half;
        ops.push(a);
        ops.push(b);
    }
}

/// The attention input projections and the parameters of each in one
/// layer: the fused QKV, or MLA's query (direct, or down to its latent and
/// up to the heads' q of head_dim + rope) and its key-value down-projection
/// (latent and RoPE key) and up-projection (the heads' k and v).
fn attention_inputs(d: &Decoder, s: &Shape) -> Vec<(OpKind, f64)> {
    let (h, dh, hd) = (s.h, s.dh, s.hd);
    match d.mla {
        None => vec![(OpKind::Qkv, hd * (h + 2.0 * d.kv_heads as f64) * dh)],
        Some(m) => {
            let (ql, kvl, rope) = (m.q_latent as f64, m.kv_latent as f64, m.rope_dim as f64);
            let mut v = Vec::with_capacity(4);
            if m.q_latent > 0 {
                v.push((OpKind::QDown, hd * ql));
                v.push((OpKind::QUp, ql * h * (dh + rope)));
            } else {
                v.push((OpKind::QProj, hd * h * (dh + rope)));
            }
            v.push((OpKind::KvDown, hd * (kvl + rope)));
            v.push((OpKind::KvUp, kvl * h * 2.0 * dh));
            v
        }
    }
}

/// The attention layer kinds: (layers, how many, query-key pairs a
/// sequence's queries attend over, positions it caches), summed over the
/// kind's layers, from cost.rs's own counts (`cached_positions`,
/// `prompt_pairs`): the global layers' at the whole context (S positions
/// in decode, S^2/2 causal pairs in prefill), the local layers' the rest.
fn attention_groups(d: &Decoder, wl: &Workload) -> Vec<(Layers, f64, f64, f64)> {
    let l = d.layers;
    let s = wl.context;
    let cached = d.cached_positions(s);
    let (attended, per_global) = match wl.phase {
        Phase::Decode => (cached, s),
        Phase::Prefill => (d.prompt_pairs(s), s * s / 2.0),
    };
    let (global, local, _) = d.attention_layers();
    if local == 0.0 {
        return vec![(
            Layers::Range(0, l.saturating_sub(1)),
            global,
            attended,
            cached,
        )];
    }
    let (ga, gc) = (global * per_global, global * s);
    let mut v = vec![(
        Layers::Local(local as u32),
        local,
        attended - ga,
        cached - gc,
    )];
    if global > 0.0 {
        v.push((Layers::Global(global as u32), global, ga, gc));
    }
    v
}

/// The MLP of every layer kind: a dense model's MLP; an MoE's leading
/// dense layers, then its router, shared experts and the routed experts
/// the step touches (cost.rs's `touched_experts` of its `expert_params`).
fn mlp(d: &Decoder, params: f64, s: &Shape, c: &StepCost, ops: &mut Vec<Op>) {
    let l = d.layers;
    let Some(moe) = d.moe else {
        return s.dense_mlp(s.all, s.lf, d.ffn as f64, ops);
    };
    let dense = moe.dense_layers.min(l);
    if dense > 0 {
        s.dense_mlp(
            Layers::Range(0, dense - 1),
            dense as f64,
            moe.dense_ffn as f64,
            ops,
        );
    }
    if dense == l {
        return;
    }
    let layers = Layers::Range(dense, l - 1);
    let n = (l - dense) as f64;
    ops.push(s.gemm(OpKind::Router, layers, n * s.hd * moe.experts as f64));
    if moe.shared_ffn > 0 {
        let width = moe.shared_ffn as f64;
        let mut op = s.gemm(OpKind::SharedExperts, layers, n * s.mlp_params(width));
        op.activation_bytes = s.per_token(n, s.mlp_traffic(width));
        ops.push(op);
    }
    let routed_width = d.ffn as f64 * moe.top_k as f64;
    ops.push(Op {
        flops: c.expert_flops,
        weight_bytes: d.touched_experts(c.tokens) * d.expert_params(params) * s.bytes_per_param,
        activation_bytes: s.per_token(n, s.mlp_traffic(routed_width)),
        ..Op::new(OpKind::RoutedExperts, layers)
    });
}

/// Scale the attention operators' raw FLOPs and KV bytes, and every
/// operator's raw activation bytes, so that each adds up to the step's.
fn apportion(ops: &mut [Op], c: &StepCost) {
    let attention = |o: &&Op| o.kind == OpKind::Attention;
    let raw_flops: f64 = ops.iter().filter(attention).map(|o| o.flops).sum();
    let raw_kv: f64 = ops.iter().filter(attention).map(|o| o.kv_bytes).sum();
    let raw_act: f64 = ops.iter().map(|o| o.activation_bytes).sum();
    let groups = ops.iter().filter(attention).count() as f64;
    let scale = |total: f64, raw: f64| if raw > 0.0 { total / raw } else { 0.0 };
    let (fs, ks, as_) = (
        scale(c.attention_flops, raw_flops),
        scale(c.kv_bytes, raw_kv),
        scale(c.activation_bytes, raw_act),
    );
    for o in ops.iter_mut() {
        if o.kind == OpKind::Attention {
            // With nothing attended (context 0) the step's figures (0)
            // are split evenly.
            o.flops = if raw_flops > 0.0 {
                o.flops * fs
            } else {
                c.attention_flops / groups
            };
            o.kv_bytes = if raw_kv > 0.0 {
                o.kv_bytes * ks
            } else {
                c.kv_bytes / groups
            };
        }
        o.activation_bytes *= as_;
    }
}
