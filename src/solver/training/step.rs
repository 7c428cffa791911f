//! The time of one optimizer step on one device:
//!
//! T = compute (with recomputation) + exposed communication + pipeline
//! bubble + optimizer step + overhead.
//!
//! - compute = hardware FLOPs per token x tokens per step / devices /
//!   (peak x eta_c).
//! - communication, per step and device ([`comms`]): tensor-parallel
//!   all-reduces (4 per layer and micro-batch, 6 with full recomputation,
//!   5 on the layers whose MLP block a module set rebuilds;
//!   with sequence parallelism each is a reduce-scatter and an all-gather,
//!   the same bytes; Korthikanti et al. 2022, section 4.2.2), the
//!   pipeline's point-to-point sends (activations forward and gradients
//!   back, 2 v per micro-batch), the expert-parallel all-to-alls (dispatch
//!   and combine, forward and backward: 4 per MoE layer and micro-batch,
//!   6 when full recomputation or the moe module rebuilds the layer),
//!   the context-parallel ring (cp - 1 KV blocks forward, twice that
//!   backward, and the forward's again when the attention core is
//!   recomputed) and the data-parallel gradient reduction (ZeRO 0: one
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
//! - exposed = comm - H + H s / (1 + s), with H = min(w x comm, window)
//!   hidden: a share w of a collective can hide, but never more than the
//!   compute it overlaps (backward for DP, all compute for TP and EP,
//!   attention for CP), and the kernels it hides behind run 1 + s times
//!   slower beside it (s: [`TrainingAssumptions::overlap_slowdown`]; 0 on
//!   a torus, whose DMA engines move the collectives beside the cores),
//!   so H / (1 + s) of their work gets done in the H seconds and the
//!   rest, H s / (1 + s), is counted as the collective's. PP sends are
//!   exposed.
//! - bubble = (p - 1) / (v m) x the per-micro-batch pipeline work (compute
//!   and exposed TP, CP, EP and PP communication): (p - 1)/(v m + p - 1) of
//!   the pipeline's time (Narayanan et al. 2021, section 2.2).
//! - offload: with activations offloaded, every layer's kept bytes of
//!   every micro-batch cross the host link out in forward and back in
//!   backward, X = bytes / (host link x eta_link) each way; the copies out
//!   hide behind the forward pass and the copies back behind backward, so
//!   max(0, X - forward) + max(0, X - backward) shows, and stretches the
//!   pipeline's work.
//! - optimizer = bytes of optimizer state read and written, plus the
//!   gradients read and the weights written, over HBM: P_opt (2 o + e + g) /
//!   (BW x eta_m), e and g the widths the weights and gradients are held at.

use super::flops::Flops;
use super::{
    Modules, Params, REFERENCE_MATMUL_SHARE_8, REFERENCE_MATMUL_SHARE_16, Recompute,
    TrainingAssumptions, TrainingRun, dp_groups,
};
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
    /// The device's measured matmul ceiling over the reference device's, as
    /// shares of their peaks at the run's format ([`matmul_ratio`]); 1 when
    /// the device has no measured ceiling.
    pub matmul_ratio: f64,
    /// The link to the host's memory per direction, for offloaded
    /// activations.
    pub host: Option<f64>,
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
            matmul_ratio: matmul_ratio(hw, used),
            host: hw.host_bandwidth,
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
    /// The part of `exposed_s` that is the slowdown of the compute the
    /// hidden part runs beside ([`TrainingAssumptions::overlap_slowdown`]).
    pub slowed_s: f64,
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

    /// Seconds of [`Comms::exposed`] that are compute slowed beside the
    /// hidden collectives.
    pub fn slowed(&self) -> f64 {
        self.named().iter().map(|(_, c)| c.slowed_s).sum()
    }
}

/// A term of the step time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    Compute,
    Elementwise,
    MoeRouting,
    DpComm,
    TpComm,
    PpComm,
    EpComm,
    CpComm,
    Bubble,
    /// Copying offloaded activations over the host link beyond what hides
    /// behind the passes.
    Offload,
    Optimizer,
    Overhead,
}

impl Term {
    pub fn name(self) -> &'static str {
        match self {
            Term::Compute => "compute",
            Term::Elementwise => "elementwise",
            Term::MoeRouting => "moe-routing",
            Term::DpComm => "dp-comm",
            Term::TpComm => "tp-comm",
            Term::PpComm => "pp-comm",
            Term::EpComm => "ep-comm",
            Term::CpComm => "cp-comm",
            Term::Bubble => "bubble",
            Term::Offload => "offload",
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
            Term::MoeRouting => "routing-bound (MoE dispatch and combine)".into(),
            Term::DpComm => comm("DP gradients"),
            Term::TpComm => comm("TP all-reduces"),
            Term::PpComm => comm("PP sends"),
            Term::EpComm => comm("EP all-to-alls"),
            Term::CpComm => comm("CP ring"),
            Term::Bubble => "bubble-bound".into(),
            Term::Offload => "host-link-bound (activation offload)".into(),
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
    /// An MoE's fixed time per routed token copy (router, permutation,
    /// dispatch and combine), serial with the products.
    pub moe_routing_s: f64,
    pub comm: Comms,
    pub exposed_comm_s: f64,
    pub bubble_s: f64,
    /// bubble / (pipeline work + bubble) = (p - 1)/(v m + p - 1).
    pub bubble_fraction: f64,
    /// Offloaded activations copied over the host link per step, each way
    /// (out in forward, back in backward), seconds; 0 without offloading.
    pub offload_copy_s: f64,
    /// The part of those copies that does not hide behind the passes.
    pub offload_s: f64,
    pub optimizer_s: f64,
    pub overhead_s: f64,
    pub step_time_s: f64,
    pub tokens_per_s: f64,
    pub mfu: f64,
    pub hfu: f64,
    /// The fraction of peak the step's products (GEMMs) run at: eta_c,
    /// times the low-precision factor for 8-bit math and the device's
    /// measured matmul ceiling over the reference's
    /// ([`TrainingAssumptions::matmul_ceiling`]).
    pub products_efficiency: f64,
    pub binding: Term,
    /// Compute the data-parallel communication can hide behind, seconds.
    pub dp_window_s: f64,
}

impl TrainingStep {
    /// Each term with its seconds, in the order of the step.
    pub fn terms(&self) -> [(Term, f64); 12] {
        [
            (Term::Compute, self.compute_s),
            (Term::Elementwise, self.elementwise_s),
            (Term::MoeRouting, self.moe_routing_s),
            (Term::DpComm, self.comm.dp.exposed_s),
            (Term::TpComm, self.comm.tp.exposed_s),
            (Term::PpComm, self.comm.pp.exposed_s),
            (Term::EpComm, self.comm.ep.exposed_s),
            (Term::CpComm, self.comm.cp.exposed_s),
            (Term::Bubble, self.bubble_s),
            (Term::Offload, self.offload_s),
            (Term::Optimizer, self.optimizer_s),
            (Term::Overhead, self.overhead_s),
        ]
    }
}

/// The seconds `comm` seconds of a collective add to the step: comm - H +
/// H s / (1 + s), where H = min(w comm, window) is the part hidden behind
/// compute and s the slowdown of the compute beside it.
pub fn exposed(comm: f64, overlap: f64, window: f64, slowdown: f64) -> f64 {
    let hidden = hidden(comm, overlap, window);
    comm - hidden + slowed(hidden, slowdown)
}

/// The seconds of `comm` that hide: min(w comm, window).
fn hidden(comm: f64, overlap: f64, window: f64) -> f64 {
    (overlap * comm).min(window.max(0.0))
}

/// What `hidden` seconds of a collective cost the compute beside them:
/// hidden s / (1 + s).
fn slowed(hidden: f64, slowdown: f64) -> f64 {
    hidden * slowdown / (1.0 + slowdown)
}

/// The share of its peak a device's large matmuls reach at `p` (measured,
/// [`Hardware::matmul_share`]) over the reference device's at that width
/// ([`REFERENCE_MATMUL_SHARE_16`], [`REFERENCE_MATMUL_SHARE_8`]): what the
/// compute efficiency, set where the reference devices ran, becomes on
/// this one. 1 without a measurement, or for a format neither reference
/// covers.
pub fn matmul_ratio(hw: &Hardware, p: Precision) -> f64 {
    let reference = match p {
        Precision::Bf16 | Precision::Fp16 => REFERENCE_MATMUL_SHARE_16,
        Precision::Fp8 => REFERENCE_MATMUL_SHARE_8,
        _ => return 1.0,
    };
    hw.matmul_share(p).map_or(1.0, |s| s / reference)
}

/// The compute efficiency of the run's math: eta_c, times the profile's
/// low-precision factor for 8-bit and narrower formats, times the
/// device's measured matmul ceiling relative to the reference device's
/// ([`Machine::matmul_ratio`]) unless
/// [`TrainingAssumptions::matmul_ceiling`] is off.
fn compute_efficiency(a: &Assumptions, mc: &Machine, t: &TrainingAssumptions) -> f64 {
    let eta = if mc.precision.bytes() <= 1.0 {
        a.compute_efficiency * a.low_precision_efficiency
    } else {
        a.compute_efficiency
    };
    match t.matmul_ceiling {
        super::MatmulCeiling::Measured => eta * mc.matmul_ratio,
        super::MatmulCeiling::Flat => eta,
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

/// A floor under [`step_on`]'s step time: the step with no collectives
/// (they only add to the step and to the bubble). The layout search
/// ([`super::layout::fastest`]) skips a layout whose floor is above the
/// fastest found; a test keeps it under the step.
pub fn step_floor(
    mc: &Machine,
    d: &Decoder,
    p: &Params,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> f64 {
    parts(mc, d, p, f, run, a, t)
        .assemble(&[1.0; TERMS])
        .step_time_s
}

/// The step's parts on a machine, with no collectives yet (their times
/// are [`comms`]'): the products and the attention at their rates on the
/// busiest stage, the element-wise traffic, an MoE's routing, the bubble's
/// factor, the optimizer step and the overhead.
fn parts(
    mc: &Machine,
    d: &Decoder,
    p: &Params,
    f: &Flops,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Parts {
    let l = &run.layout;
    let m = run.micro_batches();
    let tokens_per_device = run.step_tokens() / l.devices() as f64;
    let eff = compute_efficiency(a, mc, t);
    let rate = mc.peak * eff;
    // The attention core runs at its own efficiency (the low-precision
    // factor and the device's matmul ceiling apply to it as to the
    // products).
    let attention_rate = mc.peak * t.attention_efficiency * eff / a.compute_efficiency;
    // The busiest pipeline stage sets the pace: its tokens' share of the
    // model's work.
    let tokens = tokens_per_device * l.imbalance_trimmed(d.layers, run.edge_layers);
    let gemm = f.hardware_per_token - f.attention_per_token;
    let gemm_recompute = f.hardware_per_token - f.model_per_token - f.attention_recompute_per_token;
    let attention_s = f.attention_per_token * tokens / attention_rate;
    let elementwise_s = super::flops::elementwise_bytes_per_token(d, run, t) * tokens
        / (mc.memory_bandwidth * a.memory_efficiency);
    // Each routed copy of a token costs an MoE layer a fixed time beyond
    // its products and bytes (see TrainingAssumptions::moe_token_time_s).
    let routed = d
        .moe
        .map_or(0.0, |m| m.top_k as f64 * d.moe_layers() as f64);
    // Offloaded activations: every layer of every micro-batch on the
    // busiest stage goes out in forward and comes back in backward.
    let offload_copy_s = match (run.offload, mc.host) {
        (true, Some(bw)) => {
            let layer = super::memory::layer_activations(d, run, t, run.recompute);
            layer * l.stage_layers_trimmed(d.layers, run.edge_layers) * m / (bw * a.link_efficiency)
        }
        _ => 0.0,
    };
    let (_, _, opt_bytes) = super::memory::states(p, run, t);
    let opt_params = opt_bytes / run.optimizer_bytes();
    let moved =
        opt_params * (2.0 * run.optimizer_bytes() + run.stored_bytes(t) + run.grad_bytes(t));
    Parts {
        compute_s: gemm * tokens / rate + attention_s,
        recompute_s: gemm_recompute * tokens / rate
            + f.attention_recompute_per_token * tokens / attention_rate,
        attention_s,
        elementwise_s,
        moe_routing_s: t.moe_token_time_s * routed * tokens,
        comm_s: [0.0; 5],
        bubble_factor: if l.pp > 1 {
            (l.pp as f64 - 1.0) / (l.v as f64 * m)
        } else {
            0.0
        },
        offload_copy_s,
        forward_share: 1.0 - f.backward_share(),
        optimizer_s: moved / (mc.memory_bandwidth * a.memory_efficiency),
        overhead_s: a.overhead_s,
        dp_window_share: match run.zero {
            0 | 1 => f.backward_share() / m,
            2 => f.backward_share(),
            _ => 1.0,
        },
        overlap: [t.dp_overlap, t.tp_overlap, t.ep_overlap, t.cp_overlap],
        // The slowdown was measured on GPUs, whose collectives run as
        // kernels on the streaming multiprocessors the products use; a
        // TPU's ICI moves its collectives with DMA engines beside the
        // cores, so none is charged on a torus.
        slowdown: if mc.torus.is_some() {
            0.0
        } else {
            t.overlap_slowdown
        },
    }
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
    if run.offload && mc.host.is_none() {
        return Err(SolverError::Unsupported(format!(
            "the catalog gives {} no host link, so offloaded activations cannot be timed: add `host = \"64 GB/s\"` (per direction) under [device.interconnect] in a user catalog entry, or turn offloading off (drop --offload, or the Training view's offload knob to off)",
            mc.id
        )));
    }
    let m = run.micro_batches();
    let step_tokens = run.step_tokens();
    let tokens_per_device = step_tokens / run.layout.devices() as f64;
    let mut c = comms(mc, d, p, run, a, t)?;
    let mut parts = parts(mc, d, p, f, run, a, t);
    parts.comm_s = [
        c.dp.time_s,
        c.tp.time_s,
        c.pp.time_s,
        c.ep.time_s,
        c.cp.time_s,
    ];
    let at = parts.assemble(&[1.0; TERMS]);
    let [dp, tp, pp, ep, cp] = at.exposed;
    c.dp.exposed_s = dp;
    c.tp.exposed_s = tp;
    c.pp.exposed_s = pp;
    c.ep.exposed_s = ep;
    c.cp.exposed_s = cp;
    let [dp, tp, ep, cp] = at.slowed;
    c.dp.slowed_s = dp;
    c.tp.slowed_s = tp;
    c.ep.slowed_s = ep;
    c.cp.slowed_s = cp;
    let (dp_window_s, bubble_s, pipeline) = (at.dp_window_s, at.bubble_s, at.pipeline_s);
    let exposed_comm_s = c.exposed();
    let step_time_s = at.step_time_s;
    let per_peak = tokens_per_device / (step_time_s * mc.peak);
    let s = TrainingStep {
        micro_batches: m,
        step_tokens,
        tokens_per_device,
        peak_flops: mc.peak,
        compute_precision: mc.precision,
        compute_s: parts.compute_s,
        recompute_s: parts.recompute_s,
        elementwise_s: parts.elementwise_s,
        moe_routing_s: parts.moe_routing_s,
        comm: c,
        exposed_comm_s,
        bubble_s,
        bubble_fraction: bubble_s / (pipeline + bubble_s),
        offload_copy_s: parts.offload_copy_s,
        offload_s: at.offload_s,
        optimizer_s: parts.optimizer_s,
        overhead_s: a.overhead_s,
        step_time_s,
        tokens_per_s: step_tokens / step_time_s,
        mfu: f.model_per_token * per_peak,
        hfu: f.hardware_per_token * per_peak,
        products_efficiency: compute_efficiency(a, mc, t),
        binding: parts.binding(),
        dp_window_s,
    };
    Ok(s)
}

/// The terms a step is assembled from, in [`Term`]'s order: compute,
/// element-wise, MoE routing, the DP, TP, PP, EP and CP collectives, the
/// bubble, the optimizer and the overhead.
const TERMS: usize = 12;
const ORDER: [Term; TERMS] = Term::ALL;

impl Term {
    /// Every term, in the order of the step.
    pub const ALL: [Term; TERMS] = [
        Term::Compute,
        Term::Elementwise,
        Term::MoeRouting,
        Term::DpComm,
        Term::TpComm,
        Term::PpComm,
        Term::EpComm,
        Term::CpComm,
        Term::Bubble,
        Term::Offload,
        Term::Optimizer,
        Term::Overhead,
    ];
}

/// What a step's time is made of before overlap: the parts the binding
/// term is judged on.
struct Parts {
    compute_s: f64,
    /// The recomputation's part of `compute_s` (reported, not assembled).
    recompute_s: f64,
    attention_s: f64,
    elementwise_s: f64,
    moe_routing_s: f64,
    /// Each collective's whole time: DP, TP, PP, EP, CP.
    comm_s: [f64; 5],
    /// The bubble over the pipeline's work: (p - 1)/(v m).
    bubble_factor: f64,
    /// Offloaded activations' copy time each way over the host link.
    offload_copy_s: f64,
    /// The forward pass's share of the passes' kernels (the rest is
    /// backward with its recomputation).
    forward_share: f64,
    optimizer_s: f64,
    overhead_s: f64,
    /// The share of the passes' kernels the DP collective can hide behind:
    /// the last micro-batch's backward (ZeRO 0-1), every backward (ZeRO 2),
    /// every pass (ZeRO 3).
    dp_window_share: f64,
    /// The DP, TP, EP and CP overlaps.
    overlap: [f64; 4],
    /// How much slower the kernels a collective hides behind run.
    slowdown: f64,
}

/// A step assembled from [`Parts`].
struct Assembled {
    dp_window_s: f64,
    /// Each collective's exposed time: DP, TP, PP, EP, CP.
    exposed: [f64; 5],
    /// The part of it that is compute slowed beside the hidden part: DP,
    /// TP, EP, CP (PP sends never hide).
    slowed: [f64; 4],
    pipeline_s: f64,
    bubble_s: f64,
    offload_s: f64,
    step_time_s: f64,
}

impl Parts {
    /// The step with each part scaled by `k` (in [`ORDER`]): collectives
    /// hide behind the kernels of the passes (the CP ring behind the
    /// attention it feeds), the bubble is a share of the pipeline's work,
    /// and the rest adds up.
    fn assemble(&self, k: &[f64; TERMS]) -> Assembled {
        let compute_s = self.compute_s * k[0];
        let attention_s = self.attention_s * k[0];
        let work_s = compute_s + self.elementwise_s * k[1] + self.moe_routing_s * k[2];
        let dp_window_s = self.dp_window_share * work_s;
        let [dp, tp, pp, ep, cp] = self.comm_s;
        let comm = [dp * k[3], tp * k[4], ep * k[6], cp * k[7]];
        let window = [dp_window_s, work_s, work_s, attention_s];
        let hid: [f64; 4] = std::array::from_fn(|i| hidden(comm[i], self.overlap[i], window[i]));
        let slowed = hid.map(|h| slowed(h, self.slowdown));
        let shown: [f64; 4] = std::array::from_fn(|i| comm[i] - hid[i] + slowed[i]);
        let exposed = [shown[0], shown[1], pp * k[5], shown[2], shown[3]];
        let [_, tp_x, pp_x, ep_x, cp_x] = exposed;
        // The copies out run beside the forward pass and the copies back
        // beside backward (the host link carries both directions at
        // once); what each pass cannot cover shows, stretching the
        // pipeline's work.
        let copy = self.offload_copy_s * k[9];
        let forward = self.forward_share * work_s;
        let offload_s = (copy - forward).max(0.0) + (copy - (work_s - forward)).max(0.0);
        let pipeline_s = work_s + tp_x + ep_x + cp_x + pp_x + offload_s;
        let bubble_s = self.bubble_factor * k[8] * pipeline_s;
        let step_time_s = work_s
            + exposed.iter().sum::<f64>()
            + offload_s
            + bubble_s
            + self.optimizer_s * k[10]
            + self.overhead_s * k[11];
        Assembled {
            dp_window_s,
            exposed,
            slowed,
            pipeline_s,
            bubble_s,
            offload_s,
            step_time_s,
        }
    }

    /// The term whose shortening would shorten the step the most: each
    /// part's share of the step at the margin, d T / d ln x, with T's
    /// overlaps and bubble followed through (a compute hidden under a
    /// longer collective gains nothing: the collective binds). This is the
    /// step-time elasticity of each term, so the binding term agrees with
    /// the hardware elasticities ([`elasticities`]).
    fn binding(&self) -> Term {
        const EPS: f64 = 1e-6;
        let base = self.assemble(&[1.0; TERMS]).step_time_s;
        let mut best = (Term::Compute, f64::NEG_INFINITY);
        for (i, &term) in ORDER.iter().enumerate() {
            let mut k = [1.0; TERMS];
            k[i] = 1.0 - EPS;
            let gain = (base - self.assemble(&k).step_time_s) / EPS;
            if gain > best.1 * (1.0 + 1e-9) {
                best = (term, gain);
            }
        }
        best.0
    }
}

/// The communication of one step on one device, before overlap.
pub fn comms(
    mc: &Machine,
    d: &Decoder,
    p: &Params,
    run: &TrainingRun,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<Comms> {
    let l = &run.layout;
    let m = run.micro_batches();
    let e = run.element_bytes();
    let s_local = run.seq / l.cp as f64;
    let b = run.micro_batch as f64;
    let h = d.hidden as f64;
    let layers = l.stage_layers_trimmed(d.layers, run.edge_layers);
    let full = run.recompute == Recompute::Full;
    // A module set that rebuilds an MLP block runs its forward collectives
    // again on those layers: one more TP collective per such block (full
    // recomputation's 6 = 4 + one per block), and for moe the dispatch and
    // combine again (6 all-to-alls, as full).
    let mods = run.recompute.modules();
    let (moe_share, dense_share) = match d.moe {
        Some(_) => {
            let share = d.moe_layers() as f64 / d.layers.max(1) as f64;
            (share, 1.0 - share)
        }
        None => (0.0, 1.0),
    };
    let mlp_again = if mods.contains(Modules::MLP) {
        dense_share
    } else {
        0.0
    } + if mods.contains(Modules::MOE) {
        moe_share
    } else {
        0.0
    };
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
            slowed_s: 0.0,
        })
    };
    let act = b * s_local * h * e;
    if l.tp > 1 {
        let n = m * layers * if full { 6.0 } else { 4.0 + mlp_again };
        out.tp = term(l.tp, 1, &[(Op::AllReduce, act, n)], "tensor")?;
    }
    if l.cp > 1 {
        let kv = b * s_local * 2.0 * d.kv_heads as f64 * d.head_dim as f64 * e;
        // A recomputed attention core (selective, the dots levels, full or
        // the core_attn module) runs its forward ring again in backward.
        let core_again = !matches!(run.recompute, Recompute::None)
            && (!matches!(run.recompute, Recompute::Modules(_))
                || mods.contains(super::Modules::CORE_ATTN));
        let n = m * layers * (l.cp as f64 - 1.0) * if core_again { 4.0 } else { 3.0 };
        out.cp = term(l.cp, l.tp, &[(Op::PointToPoint, kv, n)], "context")?;
    }
    if let (true, Some(moe)) = (l.ep > 1, d.moe) {
        let tokens = b * s_local / l.tp as f64;
        let buffer = tokens * moe.top_k as f64 * h * e;
        let again = full || mods.contains(Modules::MOE);
        let n = m * layers * if again { 6.0 } else { 4.0 };
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
    // (op, bytes, how many per step); a count of 0 costs nothing. The
    // weights are gathered in the run's format (fp8 all-gathers included);
    // the gradients are reduced in it too, or in fp32 (Megatron-Core's
    // main gradients, [`super::GradPrecision::Fp32`]).
    let we_bytes = e;
    let ge_bytes = match t.grad_precision {
        super::GradPrecision::Param => e,
        super::GradPrecision::Fp32 => e.max(4.0),
    };
    let ops = |params: f64| -> [(Op, f64, f64); 2] {
        let (g, w) = (params * ge_bytes, params * we_bytes);
        match run.zero {
            0 => [(Op::AllReduce, g, 1.0), (Op::AllGather, w, 0.0)],
            1 => [(Op::ReduceScatter, g, 1.0), (Op::AllGather, w, 1.0)],
            2 => [(Op::ReduceScatter, g, m), (Op::AllGather, w, 1.0)],
            _ => [(Op::ReduceScatter, g, m), (Op::AllGather, w, 2.0 * m)],
        }
    };
    if gd > 1 {
        out.dp = term(gd, l.tp, &ops(dense), "data")?;
    }
    if ge > 1 && experts > 0.0 {
        let x = term(ge, l.tp.saturating_mul(l.ep), &ops(experts), "data")?;
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
