//! Where the time of a step goes: the step broken into its operators, each
//! on its own roofline.
//!
//! A decoder step is, per layer kind (identical layers grouped: the dense
//! and the MoE layers of DeepSeek, the local and the global attention
//! layers of Gemma), its norms and residual adds, the attention input
//! projections (QKV, or MLA's down and up projections), the attention
//! products over the KV cache, the output projection, the MLP (gate and
//! up, down; or the router, the shared experts and the routed experts
//! touched), then the LM head, the weights the published parameter count
//! holds beyond the shape's matrices ("other weights": biases, position
//! tables, rounding in the published figure; negative when the shape
//! counts more than the card), and the tensor-parallel all-reduces and
//! pipeline hand-offs as collectives. A single-pass network is one
//! operator per layer of its list (one "forward" operator without one).
//!
//! The operators reconcile with the aggregate step of [`cost::step_cost`]:
//! their FLOPs, weight, KV-cache and activation bytes add up to its
//! figures (relative 1e-9), because each is built from the quantities
//! cost.rs uses (its `Decoder` methods and its `StepCost` totals), with
//! the matrices counted from the shape and the rest apportioned by it.
//!
//! Each operator's time is its own roofline under the same assumptions as
//! the aggregate ([`roofline::work`]: GEMM efficiency by rows, attention
//! efficiency, low-precision and dequantization factors): max(compute,
//! memory) + (1 - overlap) min. Two step totals follow: the aggregate
//! (what `evaluate` reports, and what every other figure of ridgeline
//! uses), whose compute and memory overlap across the whole step, and the
//! per-operator step, the sum of the operators' own times, which assumes
//! no operator overlaps another. Both add the same fixed time (per-step
//! overhead, kernels, MoE layers, requests).

mod decoder;

use super::cost::StepCost;
use super::error::Result;
use super::roofline;
use super::types::{Arch, Assumptions, Hardware, Model, Precision, Workload};
use std::fmt;

/// What an operator computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// RMS/layer norms (two per layer, the final one) and residual adds.
    Norms,
    /// The fused query, key and value projection.
    Qkv,
    /// MLA: the query projection when it is not compressed.
    QProj,
    /// MLA: the query's down-projection to its latent, and back up to the heads.
    QDown,
    QUp,
    /// MLA: the key-value down-projection (latent and RoPE key), and its up-projection.
    KvDown,
    KvUp,
    /// The attention products q.k and p.v (flash-attention style: the KV
    /// cache read in decode, written in prefill).
    Attention,
    /// The attention output projection.
    OutProj,
    /// A gated MLP's fused gate and up projections.
    GateUp,
    /// A plain MLP's up projection.
    Up,
    /// The MLP's down projection.
    Down,
    /// MoE: the router's logits.
    Router,
    /// MoE: the shared experts every token passes through.
    SharedExperts,
    /// MoE: the routed experts the step's tokens touch.
    RoutedExperts,
    /// The output head (the tied embedding table when tied).
    LmHead,
    /// What the published parameter count holds beyond the shape's matrices.
    OtherWeights,
    /// Tensor-parallel all-reduce after each layer's attention, and after its MLP.
    AllReduceAttention,
    AllReduceMlp,
    /// Pipeline hand-offs between stages.
    Handoff,
    /// One layer of a single-pass network's list (index into `Model::layers`).
    Layer(usize),
    /// A single-pass network without a layer list: the whole forward pass.
    Forward,
}

impl OpKind {
    /// Its name in tables ("QKV proj", "attention"); a listed layer's is
    /// the model's ([`Op::name`]).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Norms => "norms + residual",
            OpKind::Qkv => "QKV proj",
            OpKind::QProj => "q proj",
            OpKind::QDown => "q down",
            OpKind::QUp => "q up",
            OpKind::KvDown => "kv down",
            OpKind::KvUp => "kv up",
            OpKind::Attention => "attention",
            OpKind::OutProj => "out proj",
            OpKind::GateUp => "MLP gate+up",
            OpKind::Up => "MLP up",
            OpKind::Down => "MLP down",
            OpKind::Router => "router",
            OpKind::SharedExperts => "shared experts",
            OpKind::RoutedExperts => "routed experts",
            OpKind::LmHead => "LM head",
            OpKind::OtherWeights => "other weights",
            OpKind::AllReduceAttention => "all-reduce attn",
            OpKind::AllReduceMlp => "all-reduce MLP",
            OpKind::Handoff => "PP hand-off",
            OpKind::Layer(_) => "layer",
            OpKind::Forward => "forward",
        }
    }

    /// True for the MLP's operators (dense MLP, router and experts).
    pub fn is_mlp(self) -> bool {
        matches!(
            self,
            OpKind::GateUp
                | OpKind::Up
                | OpKind::Down
                | OpKind::Router
                | OpKind::SharedExperts
                | OpKind::RoutedExperts
        )
    }

    /// True for the collectives (their time is on the link).
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            OpKind::AllReduceAttention | OpKind::AllReduceMlp | OpKind::Handoff
        )
    }
}

/// Which layers an operator stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layers {
    /// Layers `first` to `last` (0-based, inclusive).
    Range(u32, u32),
    /// The sliding-window (local) attention layers, and the others
    /// (global), by count: the shape says how many, not which.
    Local(u32),
    Global(u32),
    /// Once per step (the LM head).
    Step,
    /// Spread over the whole model (other weights).
    Model,
    /// The hand-offs between pipeline stages: `n` boundaries between
    /// `n + 1` stages (written as the stages).
    Boundaries(u32),
    /// One listed layer of a single-pass network (its index).
    Index(usize),
}

impl fmt::Display for Layers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Layers::Range(a, b) if a == b => write!(f, "{a}"),
            Layers::Range(a, b) => write!(f, "{a}-{b}"),
            Layers::Local(n) => write!(f, "{n} local"),
            Layers::Global(n) => write!(f, "{n} global"),
            Layers::Step => f.write_str("step"),
            Layers::Model => f.write_str("all"),
            Layers::Boundaries(n) => write!(f, "{} stages", n + 1),
            Layers::Index(i) => write!(f, "{i}"),
        }
    }
}

/// What bounds an operator on its own roofline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bound {
    Compute,
    Memory,
    /// A collective: its bytes over the link, and its hops.
    Link,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
            Bound::Link => "link",
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One operator of a step, summed over the layers it stands for, per
/// tensor-parallel rank (as [`StepCost`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Op {
    pub kind: OpKind,
    pub layers: Layers,
    pub flops: f64,
    pub weight_bytes: f64,
    pub kv_bytes: f64,
    pub activation_bytes: f64,
    /// Bytes a collective reduces or hands off: the message times the
    /// count (0 for the other operators).
    pub comm_bytes: f64,
    /// Its math at the efficiency its kernels reach, its bytes at theirs,
    /// and (collectives) its link time with hops.
    pub compute_s: f64,
    pub memory_s: f64,
    pub link_s: f64,
    /// Its own roofline time: max(compute, memory) + (1 - overlap) min, or
    /// the link time of a collective.
    pub time_s: f64,
    pub bound: Bound,
    /// Its time over the per-operator step.
    pub share: f64,
}

impl Op {
    fn new(kind: OpKind, layers: Layers) -> Op {
        Op {
            kind,
            layers,
            flops: 0.0,
            weight_bytes: 0.0,
            kv_bytes: 0.0,
            activation_bytes: 0.0,
            comm_bytes: 0.0,
            compute_s: 0.0,
            memory_s: 0.0,
            link_s: 0.0,
            time_s: 0.0,
            bound: Bound::Memory,
            share: 0.0,
        }
    }

    /// Bytes moved through memory.
    pub fn bytes(&self) -> f64 {
        self.weight_bytes + self.kv_bytes + self.activation_bytes
    }

    /// FLOPs per byte of memory; None for an operator that moves no memory
    /// (a collective).
    pub fn arithmetic_intensity(&self) -> Option<f64> {
        let b = self.bytes();
        (b != 0.0).then(|| self.flops / b)
    }

    /// FLOP/s it reaches over its own time: its height on a roofline plot.
    pub fn achieved_flops(&self) -> f64 {
        if self.time_s > 0.0 {
            self.flops / self.time_s
        } else {
            0.0
        }
    }

    /// Its name: the kind's, or a listed layer's own.
    pub fn name<'m>(&self, model: &'m Model) -> &'m str {
        match self.kind {
            OpKind::Layer(i) => model.layers.get(i).map_or("layer", |l| l.name.as_str()),
            // The published count rounds below the shape's matrices: the
            // row takes back the difference, and says so.
            OpKind::OtherWeights if self.weight_bytes < 0.0 => "count below shape",
            k => k.name(),
        }
    }
}

/// Which step total a result reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepModel {
    /// The aggregate step of `evaluate`: the step's FLOPs and bytes on one
    /// roofline, so one operator's memory time overlaps another's math.
    Aggregate,
    /// The sum of each operator's own roofline time: no overlap between
    /// operators.
    PerOperator,
}

impl StepModel {
    pub fn name(self) -> &'static str {
        match self {
            StepModel::Aggregate => "aggregate",
            StepModel::PerOperator => "per-operator",
        }
    }
}

/// The step's totals over its operators, and both step times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Totals {
    pub flops: f64,
    pub weight_bytes: f64,
    pub kv_bytes: f64,
    pub activation_bytes: f64,
    pub comm_bytes: f64,
    /// The aggregate step time (= `evaluate`'s latency).
    pub aggregate_s: f64,
    /// The sum of the operators' times plus `fixed_s`.
    pub per_operator_s: f64,
    /// Fixed time both steps add: the per-step overhead, every kernel's
    /// fixed time, MoE layers' and a prefill's request time.
    pub fixed_s: f64,
    /// The step total the rest of ridgeline reports.
    pub uses: StepModel,
}

impl Totals {
    pub fn bytes(&self) -> f64 {
        self.weight_bytes + self.kv_bytes + self.activation_bytes
    }
}

/// A step broken into its operators.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakdown {
    pub ops: Vec<Op>,
    pub totals: Totals,
    /// The roof the operators sit under: the peak at the precision the
    /// math runs at, the memory bandwidth, and the efficiencies.
    pub compute_precision: Precision,
    pub peak_flops: f64,
    pub bandwidth: f64,
    pub compute_efficiency: f64,
    pub memory_efficiency: f64,
}

impl Breakdown {
    /// Peak / bandwidth, FLOP per byte.
    pub fn ridge_point(&self) -> f64 {
        self.peak_flops / self.bandwidth
    }
    /// The ridge with the efficiencies.
    pub fn effective_ridge_point(&self) -> f64 {
        self.ridge_point() * self.compute_efficiency / self.memory_efficiency
    }
}

/// Check everything, then break the step into its operators.
pub fn breakdown(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<Breakdown> {
    roofline::validate_hardware(hw)?;
    roofline::validate_model(model)?;
    roofline::validate_workload(wl)?;
    roofline::validate_layout(model, wl)?;
    roofline::validate_assumptions(a)?;
    breakdown_unchecked(hw, model, wl, a)
}

/// The breakdown of the configuration that runs: as asked when it fits,
/// else on the fewest devices that hold it (the verdict and the layout say
/// which); None when no layout holds it (nothing runs to break down).
pub fn running(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<Option<(super::compare::Verdict, super::Parallelism, Breakdown)>> {
    use super::compare::Verdict;
    let verdict = Verdict::of(&roofline::evaluate(hw, model, wl, a)?);
    let layout = match verdict {
        Verdict::Fits => super::Parallelism {
            tp: wl.tp,
            pp: wl.pp,
        },
        Verdict::Needs(p) => p,
        Verdict::Never => return Ok(None),
    };
    let w = Workload {
        tp: layout.tp,
        pp: layout.pp,
        ..*wl
    };
    Ok(Some((verdict, layout, breakdown(hw, model, &w, a)?)))
}

/// Whether an operator sits on a roofline plot: it does math and moves
/// memory (a collective does not; neither does a negative "other
/// weights", where the shape counts more than the published figure).
pub fn plotted(op: &Op) -> bool {
    op.flops > 0.0 && op.bytes() > 0.0 && op.time_s > 0.0
}

/// Break the step into its operators without validating (the caller has).
pub fn breakdown_unchecked(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<Breakdown> {
    let step = roofline::time_step(hw, model, wl, a)?;
    let c = step.cost;
    let mut ops = operators(model, wl, &c);
    let math = step.compute_precision;
    // Each operator on its own: no per-step overhead or kernel time (the
    // fixed time is the step's, added once to both totals).
    let own = Assumptions {
        overhead_s: 0.0,
        ..*a
    };
    for op in ops.iter_mut() {
        if op.kind.is_collective() {
            time_collective(op, hw, wl, &c, a)?;
        } else {
            time_op(op, &c, wl, math, &own, step.peak_flops, hw.memory_bandwidth);
        }
    }
    let fixed_s = roofline::work(&c, wl, math, a).fixed_s;
    let per_operator_s = ops.iter().map(|o| o.time_s).sum::<f64>() + fixed_s;
    for op in ops.iter_mut() {
        op.share = op.time_s / per_operator_s;
    }
    let sum = |f: fn(&Op) -> f64| ops.iter().map(f).sum::<f64>();
    let totals = Totals {
        flops: sum(|o| o.flops),
        weight_bytes: sum(|o| o.weight_bytes),
        kv_bytes: sum(|o| o.kv_bytes),
        activation_bytes: sum(|o| o.activation_bytes),
        comm_bytes: sum(|o| o.comm_bytes),
        aggregate_s: step.latency_s,
        per_operator_s,
        fixed_s,
        uses: StepModel::Aggregate,
    };
    Ok(Breakdown {
        ops,
        totals,
        compute_precision: math,
        peak_flops: step.peak_flops,
        bandwidth: hw.memory_bandwidth,
        compute_efficiency: a.compute_efficiency,
        memory_efficiency: a.memory_efficiency,
    })
}

/// The operators of step `c` of `wl` on `model`, untimed.
pub fn operators(model: &Model, wl: &Workload, c: &StepCost) -> Vec<Op> {
    match &model.arch {
        Arch::Decoder(d) => decoder::operators(d, model.params, wl, c),
        Arch::SinglePass(_) if model.layers.is_empty() => vec![Op {
            flops: c.flops,
            weight_bytes: c.weight_bytes,
            kv_bytes: c.kv_bytes,
            activation_bytes: c.activation_bytes,
            ..Op::new(OpKind::Forward, Layers::Step)
        }],
        // As step_cost sums them: B x the layer's FLOPs, its weights, and B x
        // its inputs and outputs at the activation precision.
        Arch::SinglePass(_) => {
            let (b, b_w, b_a) = (wl.batch, wl.weights.bytes(), wl.activations.bytes());
            model
                .layers
                .iter()
                .enumerate()
                .map(|(i, l)| Op {
                    flops: b * l.flops,
                    weight_bytes: l.params * b_w,
                    activation_bytes: b * (l.inputs + l.outputs) * b_a,
                    ..Op::new(OpKind::Layer(i), Layers::Index(i))
                })
                .collect()
        }
    }
}

/// An operator's own roofline: its work as `roofline::work` sees a step of
/// only that operator (attention FLOPs at the attention efficiency, routed
/// experts at their rows, everything else at the step's GEMM rows), so
/// that the operators' compute and memory times add up to the aggregate's.
fn time_op(
    op: &mut Op,
    c: &StepCost,
    wl: &Workload,
    math: Precision,
    a: &Assumptions,
    peak: f64,
    bandwidth: f64,
) {
    let alone = StepCost {
        flops: op.flops,
        attention_flops: if op.kind == OpKind::Attention {
            op.flops
        } else {
            0.0
        },
        expert_flops: if op.kind == OpKind::RoutedExperts {
            op.flops
        } else {
            0.0
        },
        weight_bytes: op.weight_bytes,
        kv_bytes: op.kv_bytes,
        activation_bytes: op.activation_bytes,
        gemm_rows: c.gemm_rows,
        expert_rows: c.expert_rows,
        ..StepCost::default()
    };
    let w = roofline::work(&alone, wl, math, a);
    op.compute_s = w.flops_at_peak / peak;
    op.memory_s = w.bytes_at_bandwidth / bandwidth;
    // "Other weights" is negative when the shape counts more than the
    // published figure: its time is then subtracted.
    let sign = if op.flops < 0.0 || op.bytes() < 0.0 {
        -1.0
    } else {
        1.0
    };
    let (cs, ms) = (op.compute_s.abs(), op.memory_s.abs());
    let (hi, lo) = if cs >= ms { (cs, ms) } else { (ms, cs) };
    op.time_s = sign * (hi + (1.0 - a.overlap) * lo);
    op.bound = if cs >= ms && cs > 0.0 {
        Bound::Compute
    } else {
        Bound::Memory
    };
}

/// A collective's time, as `roofline::comm_parts` times the step's: its
/// share of the all-reduces (half after attention, half after the MLP) or
/// the hand-offs, on the link the step uses, with its hops and launches.
fn time_collective(
    op: &mut Op,
    hw: &Hardware,
    wl: &Workload,
    c: &StepCost,
    a: &Assumptions,
) -> Result<()> {
    let alone = match op.kind {
        OpKind::Handoff => StepCost {
            handoffs: c.handoffs,
            handoff_bytes: c.handoff_bytes,
            ..StepCost::default()
        },
        _ => StepCost {
            allreduces: c.allreduces / 2.0,
            allreduce_bytes: c.allreduce_bytes,
            ..StepCost::default()
        },
    };
    let (transfer, fixed) = roofline::comm_parts(hw, wl, &alone, a)?;
    op.comm_bytes = alone.allreduces * alone.allreduce_bytes + alone.handoffs * alone.handoff_bytes;
    op.link_s = transfer + fixed;
    op.time_s = op.link_s;
    op.bound = Bound::Link;
    Ok(())
}

#[cfg(test)]
mod tests;
