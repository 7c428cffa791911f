//! The time of one optimizer step on one device:
//!
//! T = compute (with recomputation) + exposed communication + pipeline
//! bubble + optimizer step + overhead.
//!
//! - compute = hardware FLOPs per token x tokens per step / devices /
//!   (peak x eta_c).
//! - communication, per step and device ([`comms`]): tensor-parallel
//!   all-reduces (4 per layer and micro-batch, 6 with full recomputation;
//!   with sequence parallelism each is a reduce-scatter and an all-gather,
//!   the same bytes; Korthikanti et al. 2022, section 4.2.2), the
//!   pipeline's point-to-point sends (activations forward and gradients
//!   back, 2 v per micro-batch), the expert-parallel all-to-alls (dispatch
//!   and combine, forward and backward: 4 per MoE layer and micro-batch),
//!   the context-parallel ring (cp - 1 KV blocks forward, twice that
//!   backward) and the data-parallel gradient reduction (ZeRO 0: one
//!   all-reduce per step; 1: reduce-scatter and an all-gather of the
//!   updated weights; 2: a reduce-scatter per micro-batch; 3: two weight
//!   all-gathers and a reduce-scatter per micro-batch; Rajbhandari et al.
//!   2020, section 7). Each runs hierarchically over the machine
//!   ([`crate::solver::collective::hierarchical`]). On a torus (TPU ICI)
//!   the job gets the smallest slice that holds it
//!   ([`crate::solver::types::Torus::slice`]), device d at x = d mod X,
//!   y = d / X mod Y, z = d / XY, so a group's stride in the layout order
//!   (tp fastest, then cp, ep, dp, pp) decides the axes it runs on
//!   ([`crate::solver::collective::torus`]).
//! - exposed = comm - min(w x comm, window): a share w of a collective can
//!   hide, but never more than the compute it overlaps (backward for DP,
//!   all compute for TP and EP, attention for CP). PP sends are exposed.
//! - bubble = (p - 1) / (v m) x the per-micro-batch pipeline work (compute
//!   and exposed TP, CP, EP and PP communication): (p - 1)/(v m + p - 1) of
//!   the pipeline's time (Narayanan et al. 2021, section 2.2).
//! - optimizer = bytes of optimizer state read and written, plus the
//!   gradients read and the weights written, over HBM: P_opt (2 o + 2 e) /
//!   (BW x eta_m).

use super::flops::Flops;
use super::{Params, Recompute, TrainingAssumptions, TrainingRun, dp_groups};
use crate::solver::collective::{Inside, Levels, Op, Span, hierarchical, torus};
use crate::solver::error::{Result, SolverError};
use crate::solver::types::{Assumptions, Decoder, Hardware, Precision, Torus};
use std::fmt;

/// The figures of a device the step uses, at the run's precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine<'a> {
    pub id: &'a str,
    /// Peak FLOP/s at the math precision used.
    pub peak: f64,
    pub precision: Precision,
    pub memory_bandwidth: f64,
    /// Scale-up link per device per direction (the scale-out network when
    /// there is none); on a torus, one link's.
    pub up: Option<f64>,
    /// Scale-out network per device.
    pub out: Option<f64>,
    pub per_node: u32,
    /// The scale-up link is this torus (TPU ICI): a group inside a slice
    /// runs on its axes' links.
    pub torus: Option<Torus>,
}

impl<'a> Machine<'a> {
    pub fn of(hw: &'a Hardware, precision: Precision) -> Result<Machine<'a>> {
        let (used, peak) = hw.peaks.resolve(precision).ok_or_else(|| {
            SolverError::Unsupported(format!("{} has no peak FLOP/s at any precision", hw.id))
        })?;
        Ok(Machine {
            id: &hw.id,
            peak,
            precision: used,
            memory_bandwidth: hw.memory_bandwidth,
            up: hw
                .torus
                .map(|t| t.link_bandwidth)
                .or(hw.link_bandwidth)
                .or(hw.scaleout_bandwidth),
            out: hw.scaleout_bandwidth,
            per_node: hw.devices_per_node.max(1),
            torus: hw.torus,
        })
    }

    /// Seconds of `levels`; an error when a level it uses has no link.
    fn time(&self, levels: &Levels, what: &str, a: &Assumptions) -> Result<f64> {
        let used = |c: &crate::solver::collective::CommCost| c.fixed_s > 0.0 || c.link_bytes > 0.0;
        let up = match (used(&levels.up), self.up) {
            (false, _) => 0.0,
            (true, Some(bw)) => levels.up.time(bw, a.link_efficiency),
            (true, None) => return Err(no_link(self.id, what, "no link between devices")),
        };
        let out = match (used(&levels.out), self.out) {
            (false, _) => 0.0,
            (true, Some(bw)) => levels.out.time(bw, a.link_efficiency),
            (true, None) => {
                return Err(no_link(
                    self.id,
                    what,
                    &format!(
                        "no scale-out network (a node holds {} of its devices)",
                        self.per_node
                    ),
                ));
            }
        };
        Ok(up + out)
    }
}

fn no_link(id: &str, what: &str, link: &str) -> SolverError {
    SolverError::Unsupported(format!(
        "the catalog gives {id} {link}, so its {what} parallelism cannot be modelled there: keep that group inside one node or set its degree to 1"
    ))
}

/// One kind of communication of a step on one device.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CommTerm {
    /// Collectives per step.
    pub count: f64,
    /// Bytes the device's links carry per step (both levels).
    pub link_bytes: f64,
    /// Seconds the collectives take.
    pub time_s: f64,
    /// Seconds of it that add to the step.
    pub exposed_s: f64,
}

/// The communication of a step, by parallelism.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Comms {
    pub dp: CommTerm,
    pub tp: CommTerm,
    pub pp: CommTerm,
    pub ep: CommTerm,
    pub cp: CommTerm,
}

impl Comms {
    /// Each kind with its name: dp, tp, pp, ep, cp.
    pub fn named(&self) -> [(&'static str, CommTerm); 5] {
        [
            ("dp", self.dp),
            ("tp", self.tp),
            ("pp", self.pp),
            ("ep", self.ep),
            ("cp", self.cp),
        ]
    }

    pub fn exposed(&self) -> f64 {
        self.named().iter().map(|(_, c)| c.exposed_s).sum()
    }
}

/// A term of the step time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    Compute,
    Elementwise,
    DpComm,
    TpComm,
    PpComm,
    EpComm,
    CpComm,
    Bubble,
    Optimizer,
    Overhead,
}

impl Term {
    pub fn name(self) -> &'static str {
        match self {
            Term::Compute => "compute",
            Term::Elementwise => "elementwise",
            Term::DpComm => "dp-comm",
            Term::TpComm => "tp-comm",
            Term::PpComm => "pp-comm",
            Term::EpComm => "ep-comm",
            Term::CpComm => "cp-comm",
            Term::Bubble => "bubble",
            Term::Optimizer => "optimizer",
            Term::Overhead => "overhead",
        }
    }
}

impl Term {
    /// "compute-bound", "communication-bound (TP all-reduces)", "bubble-bound".
    pub fn bound(self) -> String {
        let comm = |what: &str| format!("communication-bound ({what})");
        match self {
            Term::Compute => "compute-bound".into(),
            Term::Elementwise => "memory-bound (element-wise kernels)".into(),
            Term::DpComm => comm("DP gradients"),
            Term::TpComm => comm("TP all-reduces"),
            Term::PpComm => comm("PP sends"),
            Term::EpComm => comm("EP all-to-alls"),
            Term::CpComm => comm("CP ring"),
            Term::Bubble => "bubble-bound".into(),
            Term::Optimizer => "optimizer-bound".into(),
            Term::Overhead => "overhead-bound".into(),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The time of one step and its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingStep {
    pub micro_batches: f64,
    /// Tokens the step trains on over all devices.
    pub step_tokens: f64,
    pub tokens_per_device: f64,
    pub peak_flops: f64,
    /// The precision the math runs at (the run's, or its fallback).
    pub compute_precision: Precision,
    /// Compute, recomputation included.
    pub compute_s: f64,
    /// The recomputation's part of `compute_s`.
    pub recompute_s: f64,
    /// The element-wise kernels' memory traffic (norms, residual adds,
    /// activation functions, the loss), serial with the products.
    pub elementwise_s: f64,
    pub comm: Comms,
    pub exposed_comm_s: f64,
    pub bubble_s: f64,
    /// bubble / (pipeline work + bubble) = (p - 1)/(v m + p - 1).
    pub bubble_fraction: f64,
    pub optimizer_s: f64,
    pub overhead_s: f64,
    pub step_time_s: f64,
    pub tokens_per_s: f64,
    pub mfu: f64,
    pub hfu: f64,
    pub binding: Term,
    /// Compute the data-parallel communication can hide behind, seconds.
    pub dp_window_s: f64,
}

impl TrainingStep {
    /// Each term with its seconds, in the order of the step.
    pub fn terms(&self) -> [(Term, f64); 10] {
        [
            (Term::Compute, self.compute_s),
            (Term::Elementwise, self.elementwise_s),
            (Term::DpComm, self.comm.dp.exposed_s),
            (Term::TpComm, self.comm.tp.exposed_s),
            (Term::PpComm, self.comm.pp.exposed_s),
            (Term::EpComm, self.comm.ep.exposed_s),
            (Term::CpComm, self.comm.cp.exposed_s),
            (Term::Bubble, self.bubble_s),
            (Term::Optimizer, self.optimizer_s),
            (Term::Overhead, self.overhead_s),
        ]
    }
}

/// The share of `comm` seconds that shows: comm - min(w comm, window).
pub fn exposed(comm: f64, overlap: f64, window: f64) -> f64 {
    comm - (overlap * comm).min(window.max(0.0))
}

/// The compute efficiency of the run's math: eta_c, times the profile's
/// low-precision factor for 8-bit and narrower formats.
fn compute_efficiency(a: &Assumptions, p: Precision) -> f64 {
    if p.bytes() <= 1.0 {
        a.compute_efficiency * a.low_precision_efficiency
    } else {
        a.compute_efficiency
    }
}

/// One step of `run` on `hw`.
pub fn step(
    hw: &Hardware,
    d: &Decoder,
    p: &Params,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<TrainingStep> {
    step_on(&Machine::of(hw, run.precision)?, d, p, f, run, a, t)
}

/// The kernels of one step on the busiest device, before communication.
struct Kernels {
    step_tokens: f64,
    tokens_per_device: f64,
    compute_s: f64,
    recompute_s: f64,
    elementwise_s: f64,
    attention_s: f64,
}

fn kernels(
    mc: &Machine,
    d: &Decoder,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Kernels {
    let l = &run.layout;
    let devices = l.devices() as f64;
    let step_tokens = run.step_tokens();
    let tokens_per_device = step_tokens / devices;
    let eff = compute_efficiency(a, mc.precision);
    let rate = mc.peak * eff;
    // The attention core runs at its own efficiency (the low-precision
    // factor applies to it as to the products).
    let attention_rate = mc.peak * t.attention_efficiency * eff / a.compute_efficiency;
    // The busiest pipeline stage sets the pace: its tokens' share of the
    // model's work.
    let tokens = tokens_per_device * l.imbalance_trimmed(d.layers, run.edge_layers);
    let gemm = f.hardware_per_token - f.attention_per_token;
    let gemm_recompute = f.hardware_per_token - f.model_per_token - f.attention_recompute_per_token;
    let attention_s = f.attention_per_token * tokens / attention_rate;
    Kernels {
        step_tokens,
        tokens_per_device,
        compute_s: gemm * tokens / rate + attention_s,
        recompute_s: gemm_recompute * tokens / rate
            + f.attention_recompute_per_token * tokens / attention_rate,
        elementwise_s: super::flops::elementwise_bytes_per_token(d, run) * tokens
            / (mc.memory_bandwidth * a.memory_efficiency),
        attention_s,
    }
}

/// The optimizer step: its state read and written, the gradients read and
/// the weights written, over HBM.
fn optimizer_time(mc: &Machine, p: &Params, run: &TrainingRun, a: &Assumptions) -> f64 {
    let (_, _, opt_bytes) = super::memory::states(p, run);
    let opt_params = opt_bytes / run.optimizer_bytes();
    let moved = opt_params * (2.0 * run.optimizer_bytes() + 2.0 * run.element_bytes());
    moved / (mc.memory_bandwidth * a.memory_efficiency)
}

/// A floor under [`step_on`]'s step time: its kernels, the bubble they
/// alone leave, the optimizer step and the overhead, without the
/// collectives (which only add to the step and to the bubble). The layout
/// search skips a layout whose floor is above the fastest found.
pub fn step_floor(
    mc: &Machine,
    d: &Decoder,
    p: &Params,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> f64 {
    let l = &run.layout;
    let k = kernels(mc, d, f, run, a, t);
    let work_s = k.compute_s + k.elementwise_s;
    let bubble_s = if l.pp > 1 {
        (l.pp as f64 - 1.0) / (l.v as f64 * run.micro_batches()) * work_s
    } else {
        0.0
    };
    work_s + bubble_s + optimizer_time(mc, p, run, a) + a.overhead_s
}

/// One step on a machine's figures (what the elasticities perturb).
pub fn step_on(
    mc: &Machine,
    d: &Decoder,
    p: &Params,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<TrainingStep> {
    let l = &run.layout;
    let m = run.micro_batches();
    let k = kernels(mc, d, f, run, a, t);
    let (step_tokens, tokens_per_device) = (k.step_tokens, k.tokens_per_device);
    let (compute_s, recompute_s, elementwise_s, attention_s) =
        (k.compute_s, k.recompute_s, k.elementwise_s, k.attention_s);
    // The kernels of the passes: what collectives can hide behind.
    let work_s = compute_s + elementwise_s;
    let dp_window_s = match run.zero {
        0 | 1 => f.backward_share() * work_s / m,
        2 => f.backward_share() * work_s,
        _ => work_s,
    };
    let mut c = comms(mc, d, p, run, a)?;
    c.dp.exposed_s = exposed(c.dp.time_s, t.dp_overlap, dp_window_s);
    c.tp.exposed_s = exposed(c.tp.time_s, t.tp_overlap, work_s);
    c.ep.exposed_s = exposed(c.ep.time_s, t.ep_overlap, work_s);
    c.cp.exposed_s = exposed(c.cp.time_s, t.cp_overlap, attention_s);
    c.pp.exposed_s = c.pp.time_s;
    let pipeline = work_s + c.tp.exposed_s + c.ep.exposed_s + c.cp.exposed_s + c.pp.exposed_s;
    let bubble_s = if l.pp > 1 {
        (l.pp as f64 - 1.0) / (l.v as f64 * m) * pipeline
    } else {
        0.0
    };
    let optimizer_s = optimizer_time(mc, p, run, a);
    let exposed_comm_s = c.exposed();
    let step_time_s = work_s + exposed_comm_s + bubble_s + optimizer_s + a.overhead_s;
    let per_peak = tokens_per_device / (step_time_s * mc.peak);
    let mut s = TrainingStep {
        micro_batches: m,
        step_tokens,
        tokens_per_device,
        peak_flops: mc.peak,
        compute_precision: mc.precision,
        compute_s,
        recompute_s,
        elementwise_s,
        comm: c,
        exposed_comm_s,
        bubble_s,
        bubble_fraction: bubble_s / (pipeline + bubble_s),
        optimizer_s,
        overhead_s: a.overhead_s,
        step_time_s,
        tokens_per_s: step_tokens / step_time_s,
        mfu: f.model_per_token * per_peak,
        hfu: f.hardware_per_token * per_peak,
        binding: Term::Compute,
        dp_window_s,
    };
    s.binding = binding(&s);
    Ok(s)
}

/// The term that binds: of compute, exposed communication (all collectives
/// together: they share the step's critical path one after another), the
/// bubble, the optimizer step and the overhead, the largest; when it is the
/// communication, the collective with the most exposed time names it.
/// Taking each collective alone would call a step compute-bound whose
/// exposed collectives together outlast its compute.
pub fn binding(s: &TrainingStep) -> Term {
    let largest = |terms: &[(Term, f64)]| {
        terms
            .iter()
            .fold((terms[0].0, f64::NEG_INFINITY), |best, &(term, v)| {
                if v > best.1 { (term, v) } else { best }
            })
    };
    let c = &s.comm;
    let (comm, _) = largest(&[
        (Term::DpComm, c.dp.exposed_s),
        (Term::TpComm, c.tp.exposed_s),
        (Term::PpComm, c.pp.exposed_s),
        (Term::EpComm, c.ep.exposed_s),
        (Term::CpComm, c.cp.exposed_s),
    ]);
    largest(&[
        (Term::Compute, s.compute_s),
        (Term::Elementwise, s.elementwise_s),
        (comm, s.exposed_comm_s),
        (Term::Bubble, s.bubble_s),
        (Term::Optimizer, s.optimizer_s),
        (Term::Overhead, s.overhead_s),
    ])
    .0
}

/// The communication of one step on one device, before overlap.
pub fn comms(
    mc: &Machine,
    d: &Decoder,
    p: &Params,
    run: &TrainingRun,
    a: &Assumptions,
) -> Result<Comms> {
    let l = &run.layout;
    let m = run.micro_batches();
    let e = run.element_bytes();
    let s_local = run.seq / l.cp as f64;
    let b = run.micro_batch as f64;
    let h = d.hidden as f64;
    let layers = l.stage_layers_trimmed(d.layers, run.edge_layers);
    let full = run.recompute == Recompute::Full;
    let node = mc.per_node;
    // The job's slice: the devices it uses, up to one whole slice; groups
    // are laid on it in the layout's order (tp fastest, then cp, ep, dp, pp).
    let slice = mc
        .torus
        .map(|t| t.slice(l.devices().min(node as u64) as u32));
    let mut out = Comms::default();
    let term = |ranks: u32, stride: u32, ops: &[(Op, f64, f64)], what: &str| -> Result<CommTerm> {
        let span = Span::of(ranks, stride, node);
        let inside = match &slice {
            Some(s) => Inside::Torus(torus::place(s, span.inside, stride)),
            None => Inside::Switch,
        };
        let mut levels = Levels::default();
        let mut count = 0.0;
        for &(op, bytes, n) in ops {
            let one = hierarchical(
                op,
                bytes,
                span,
                inside,
                mc.up.unwrap_or(1.0),
                mc.out.unwrap_or(1.0),
                a,
            );
            levels = levels.plus(one.times(n));
            count += n;
        }
        Ok(CommTerm {
            count,
            link_bytes: levels.up.link_bytes + levels.out.link_bytes,
            time_s: mc.time(&levels, what, a)?,
            exposed_s: 0.0,
        })
    };
    let act = b * s_local * h * e;
    if l.tp > 1 {
        let n = m * layers * if full { 6.0 } else { 4.0 };
        out.tp = term(l.tp, 1, &[(Op::AllReduce, act, n)], "tensor")?;
    }
    if l.cp > 1 {
        let kv = b * s_local * 2.0 * d.kv_heads as f64 * d.head_dim as f64 * e;
        let n = m * layers * (l.cp as f64 - 1.0) * if full { 4.0 } else { 3.0 };
        out.cp = term(l.cp, l.tp, &[(Op::PointToPoint, kv, n)], "context")?;
    }
    if let (true, Some(moe)) = (l.ep > 1, d.moe) {
        let tokens = b * s_local / l.tp as f64;
        let buffer = tokens * moe.top_k as f64 * h * e;
        let n = m * layers * if full { 6.0 } else { 4.0 };
        out.ep = term(l.ep, l.tp * l.cp, &[(Op::AllToAll, buffer, n)], "expert")?;
    }
    if l.pp > 1 {
        let stride =
            l.tp.saturating_mul(l.cp)
                .saturating_mul(l.ep)
                .saturating_mul(l.dp);
        let n = 2.0 * l.v as f64 * m;
        out.pp = term(
            2,
            stride,
            &[(Op::PointToPoint, act / l.tp as f64, n)],
            "pipeline",
        )?;
    }
    let (gd, ge) = dp_groups(l);
    let (dense, experts) = p.per_device(l, run.edge_layers);
    // (op, bytes, how many per step); a count of 0 costs nothing.
    let ops = |bytes: f64| -> [(Op, f64, f64); 2] {
        match run.zero {
            0 => [(Op::AllReduce, bytes, 1.0), (Op::AllGather, bytes, 0.0)],
            1 => [(Op::ReduceScatter, bytes, 1.0), (Op::AllGather, bytes, 1.0)],
            2 => [(Op::ReduceScatter, bytes, m), (Op::AllGather, bytes, 1.0)],
            _ => [
                (Op::ReduceScatter, bytes, m),
                (Op::AllGather, bytes, 2.0 * m),
            ],
        }
    };
    if gd > 1 {
        out.dp = term(gd, l.tp, &ops(dense * e), "data")?;
    }
    if ge > 1 && experts > 0.0 {
        let x = term(ge, l.tp.saturating_mul(l.ep), &ops(experts * e), "data")?;
        out.dp.count += x.count;
        out.dp.link_bytes += x.link_bytes;
        out.dp.time_s += x.time_s;
    }
    Ok(out)
}

/// The critical batch: the tokens per device per step at which the
/// data-parallel communication just hides behind the compute it overlaps.
/// Compute grows with the tokens while the gradient traffic does not, so
/// it is tokens_per_device x dp_comm / window (the scaling book's
/// B / X > C / W condition, "How to Scale Your Model", section on data
/// parallelism, with this machine's window and collectives). None without
/// data-parallel communication.
pub fn critical_batch(s: &TrainingStep) -> Option<f64> {
    (s.comm.dp.time_s > 0.0 && s.dp_window_s > 0.0)
        .then(|| s.tokens_per_device * s.comm.dp.time_s / s.dp_window_s)
}

/// A hardware figure or efficiency whose elasticity is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knob {
    PeakFlops,
    MemoryBandwidth,
    ScaleUp,
    ScaleOut,
    ComputeEfficiency,
    MemoryEfficiency,
    LinkEfficiency,
}

impl Knob {
    pub const ALL: [Knob; 7] = [
        Knob::PeakFlops,
        Knob::MemoryBandwidth,
        Knob::ScaleUp,
        Knob::ScaleOut,
        Knob::ComputeEfficiency,
        Knob::MemoryEfficiency,
        Knob::LinkEfficiency,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Knob::PeakFlops => "peak_flops",
            Knob::MemoryBandwidth => "memory_bandwidth",
            Knob::ScaleUp => "scale_up_bandwidth",
            Knob::ScaleOut => "scale_out_bandwidth",
            Knob::ComputeEfficiency => "compute_efficiency",
            Knob::MemoryEfficiency => "memory_efficiency",
            Knob::LinkEfficiency => "link_efficiency",
        }
    }
}

/// Relative step of the central differences.
const H: f64 = 0.01;

/// Elasticity of the step time with respect to each knob, d ln T / d ln x,
/// by central differences of +-1% (stable at the kinks of min()). A link
/// the machine does not have gets 0.
pub fn elasticities(
    hw: &Hardware,
    d: &Decoder,
    p: &Params,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<[(Knob, f64); 7]> {
    let base = Machine::of(hw, run.precision)?;
    let time = |k: Knob, x: f64| -> Result<f64> {
        let mut mc = base;
        let mut asm = *a;
        match k {
            Knob::PeakFlops => mc.peak *= x,
            Knob::MemoryBandwidth => mc.memory_bandwidth *= x,
            Knob::ScaleUp => {
                if hw.link_bandwidth.is_some() || hw.torus.is_some() {
                    mc.up = mc.up.map(|b| b * x);
                }
            }
            Knob::ScaleOut => {
                mc.out = mc.out.map(|b| b * x);
                if hw.link_bandwidth.is_none() && hw.torus.is_none() {
                    mc.up = mc.out;
                }
            }
            Knob::ComputeEfficiency => asm.compute_efficiency *= x,
            Knob::MemoryEfficiency => asm.memory_efficiency *= x,
            Knob::LinkEfficiency => asm.link_efficiency *= x,
        }
        Ok(step_on(&mc, d, p, f, run, &asm, t)?.step_time_s)
    };
    let mut out = [(Knob::PeakFlops, 0.0); 7];
    for (i, k) in Knob::ALL.into_iter().enumerate() {
        let hi = time(k, 1.0 + H)?;
        let lo = time(k, 1.0 - H)?;
        out[i] = (k, (hi.ln() - lo.ln()) / ((1.0 + H).ln() - (1.0 - H).ln()));
    }
    Ok(out)
}
