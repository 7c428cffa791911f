//! A decoder step's operators. The matrices come from the shape (2 FLOPs
//! per parameter per token, each parameter's bytes once per step, divided
//! among the tensor-parallel ranks as cost.rs divides them); the routed
//! experts from cost.rs's own figures (`expert_params`, `touched_experts`,
//! the step's `expert_flops`); what the published parameter count holds
//! beyond the matrices is "other weights". The attention FLOPs, the KV
//! cache bytes and the activation bytes of the step are apportioned among
//! the operators and layer kinds by the shape (positions each layer kind
//! attends to and caches; each operator's activations per token), so that
//! they add up to the step's exactly.

use super::{Layers, Op, OpKind};
use crate::solver::cost::StepCost;
use crate::solver::types::{Decoder, Phase, Workload};

/// The operators of one step of `wl` on decoder `d` with `params`
/// parameters, whose aggregate cost is `c`.
pub(super) fn operators(d: &Decoder, params: f64, wl: &Workload, c: &StepCost) -> Vec<Op> {
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
    for (layers, n, attended, cached) in attention_groups(d, wl) {
        ops.push(Op {
            // Raw weights, apportioned below.
            flops: n * attended,
            kv_bytes: n * cached,
            activation_bytes: s.per_token(n, side),
            ..Op::new(OpKind::Attention, layers)
        });
    }
    let mut out = s.gemm(OpKind::OutProj, s.all, s.lf * s.h * s.dh * s.hd);
    out.activation_bytes = s.per_token(s.lf, side);
    ops.push(out);
    mlp(d, params, &s, c, &mut ops);
    ops.push(s.gemm(OpKind::LmHead, Layers::Step, d.vocab as f64 * s.hd));
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
    if c.allreduces > 0.0 {
        ops.push(Op::new(OpKind::AllReduceAttention, s.all));
        ops.push(Op::new(OpKind::AllReduceMlp, s.all));
    }
    if c.handoffs > 0.0 {
        let n = c.handoffs.round() as u32;
        ops.push(Op::new(OpKind::Handoff, Layers::Boundaries(n)));
    }
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
        let f = if self.gated { 2.0 } else { 1.0 };
        f * width / self.tp * self.b_a
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

/// The attention layer kinds: (layers, how many, positions each query
/// attends to summed over a sequence's queries, positions each caches).
/// A sliding-window layer attends to and caches at most its window; the
/// others the whole context. Decode: one query per sequence over S cached
/// positions. Prefill: S queries, causal, S^2/2 pairs (S W - W^2/2 under a
/// window W < S); the step writes what the cache keeps.
fn attention_groups(d: &Decoder, wl: &Workload) -> Vec<(Layers, f64, f64, f64)> {
    let l = d.layers;
    let s = wl.context;
    let span = |w: f64| match wl.phase {
        Phase::Decode => (s.min(w), s.min(w)),
        Phase::Prefill if s <= w => (s * s / 2.0, s),
        Phase::Prefill => (s * w - w * w / 2.0, w),
    };
    match d.window {
        Some(win) if win.layers > 0 => {
            let local = win.layers.min(l);
            let (a, c) = span(win.tokens as f64);
            let mut v = vec![(Layers::Local(local), local as f64, a, c)];
            if local < l {
                let (a, c) = span(f64::INFINITY);
                v.push((Layers::Global(l - local), (l - local) as f64, a, c));
            }
            v
        }
        _ => {
            let (a, c) = span(f64::INFINITY);
            vec![(Layers::Range(0, l.saturating_sub(1)), l as f64, a, c)]
        }
    }
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
