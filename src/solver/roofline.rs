//! The forward roofline: time a step of a workload on a device.
//!
//! T = max(t_compute, t_memory) + (1 - w) * min(t_compute, t_memory) + t_comm + tau
//! with t_compute = FLOPs / (t * F(prec) * eta_c) and
//! t_memory = bytes / (t * BW * eta_m), per tensor-parallel rank.

use super::collective;
use super::cost::{self, Footprint, StepCost};
use super::error::{Result, SolverError};
use super::fit;
use super::types::{Arch, Assumptions, Hardware, Model, Phase, Precision, Workload};
use super::units;
use std::fmt;

/// Which share of the step time is largest (see [`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bottleneck {
    /// The math: FLOPs over the effective peak.
    Compute,
    /// Bytes over the effective memory bandwidth.
    Memory,
    /// Bytes of the collectives and hand-offs over the effective link bandwidth.
    Communication,
    /// The fixed per-step terms: the overhead tau (kernel launches,
    /// framework) plus the link latencies alpha of the collectives. No
    /// hardware figure shortens them.
    Overhead,
}

impl Bottleneck {
    pub fn name(self) -> &'static str {
        match self {
            Bottleneck::Compute => "compute",
            Bottleneck::Memory => "memory",
            Bottleneck::Communication => "communication",
            Bottleneck::Overhead => "overhead",
        }
    }
}

impl fmt::Display for Bottleneck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tensor- and pipeline-parallel layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parallelism {
    pub tp: u32,
    pub pp: u32,
}

impl Parallelism {
    pub fn devices(&self) -> u32 {
        self.tp.saturating_mul(self.pp)
    }
}

/// Something the user should know about a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// The device lacks the requested math format; a wider one was used.
    PrecisionFallback {
        requested: Precision,
        used: Precision,
    },
    /// KV heads replicate because tensor parallelism exceeds them.
    KvReplicated { kv_heads: u32, tp: u32 },
    /// The context exceeds the model's maximum.
    BeyondMaxContext { context: f64, max: u32 },
    /// Tensor parallelism spans more devices than one scale-up domain.
    TpBeyondNode { tp: u32, devices_per_node: u32 },
    /// Parallel degrees are modelled for decoders only; a single-pass model
    /// is split evenly with no communication.
    SinglePassParallel,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::PrecisionFallback { requested, used } => write!(
                f,
                "the device has no native {requested} math; {used} peak used"
            ),
            Note::KvReplicated { kv_heads, tp } => write!(
                f,
                "{kv_heads} KV heads over TP {tp}: each KV head is replicated on {} ranks",
                tp / (*kv_heads).max(1)
            ),
            Note::BeyondMaxContext { context, max } => write!(
                f,
                "context {} exceeds the model's maximum of {}",
                units::format_tokens(*context),
                units::format_tokens(*max as f64)
            ),
            Note::TpBeyondNode {
                tp,
                devices_per_node,
            } => write!(
                f,
                "TP {tp} exceeds the {devices_per_node} devices of one node: all-reduces use the scale-out network"
            ),
            Note::SinglePassParallel => write!(
                f,
                "TP/PP on a single-pass model: work split evenly, communication not modelled"
            ),
        }
    }
}

/// Memory fit on one device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryFit {
    pub footprint: Footprint,
    pub capacity_bytes: f64,
    /// capacity * usable fraction.
    pub usable_bytes: f64,
    pub fits: bool,
}

impl MemoryFit {
    /// Usable capacity over footprint: above 1 fits.
    pub fn margin(&self) -> f64 {
        self.usable_bytes / self.footprint.total()
    }
}

/// Everything the solver says about one step.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub phase: Phase,
    pub batch: f64,
    pub context: f64,
    pub parallelism: Parallelism,
    pub cost: StepCost,
    pub compute_s: f64,
    pub memory_s: f64,
    pub comm_s: f64,
    /// The part of `comm_s` that is link latency (alpha per ring step and
    /// per hand-off): fixed, whatever the link bandwidth.
    pub comm_latency_s: f64,
    pub overhead_s: f64,
    /// Step time: inter-token latency (decode), time to first token
    /// (prefill), batch latency (single-pass).
    pub latency_s: f64,
    /// Natural-log half-width of the error band ([`band`]).
    pub band: f64,
    /// Tokens (or samples) per second over all sequences.
    pub tokens_per_s: f64,
    pub bottleneck: Bottleneck,
    /// FLOPs / bytes moved.
    pub arithmetic_intensity: f64,
    /// Peak / bandwidth at the precision used.
    pub ridge_point: f64,
    /// Ridge with efficiencies: peak * eta_c / (bandwidth * eta_m).
    pub effective_ridge_point: f64,
    /// Precision the math runs at (the activation precision, or its fallback).
    pub compute_precision: Precision,
    pub peak_flops: f64,
    /// Achieved FLOP/s over peak, and achieved bandwidth over peak.
    pub mfu: f64,
    pub mbu: f64,
    pub memory: MemoryFit,
    /// Fewest devices that hold this workload (None: no layout does).
    pub min_devices: Option<Parallelism>,
    /// Largest batch that fits at this context and layout.
    pub max_batch: u64,
    pub notes: Vec<Note>,
}

impl Evaluation {
    /// FLOP/s achieved per device over the whole step (= MFU * peak): the
    /// operating point's height on a roofline plot.
    pub fn achieved_flops(&self) -> f64 {
        self.cost.flops / self.latency_s
    }

    /// Devices the layout uses (tp * pp).
    pub fn devices(&self) -> u32 {
        self.parallelism.devices()
    }

    /// The step time's error band, (low, high) seconds.
    pub fn latency_range(&self) -> (f64, f64) {
        range(self.latency_s, self.band)
    }

    /// The throughput's error band, (low, high) tokens/s: a slower step
    /// is the low end.
    pub fn tokens_per_s_range(&self) -> (f64, f64) {
        range(self.tokens_per_s, self.band)
    }

    /// The fixed per-step time: overhead plus the link latencies.
    pub fn fixed_s(&self) -> f64 {
        self.overhead_s + self.comm_latency_s
    }

    /// One plain sentence: what dominates and why.
    pub fn explanation(&self) -> String {
        let bytes = units::format_bytes(self.cost.bytes());
        let flops = units::format_flop(self.cost.flops);
        let verdict = match self.bottleneck {
            Bottleneck::Memory => "memory-bound",
            Bottleneck::Compute => "compute-bound",
            Bottleneck::Communication => "communication-bound",
            Bottleneck::Overhead => "overhead-bound",
        };
        let mut s = format!(
            "each step moves {bytes} in {} and does {flops} of math in {}",
            units::format_time(self.memory_s),
            units::format_time(self.compute_s),
        );
        if self.comm_s > 0.0 {
            s.push_str(&format!(
                ", all-reduces take {}",
                units::format_time(self.comm_s)
            ));
        }
        // Fixed costs are named when they bind or take a tenth of the step
        // (kernel launches under a calibrated profile): they are why the
        // step is longer than its bytes or math.
        if self.bottleneck == Bottleneck::Overhead || self.fixed_s() >= 0.1 * self.latency_s {
            s.push_str(&format!(
                ", and fixed per-step costs take {} of {}",
                units::format_time(self.fixed_s()),
                units::format_time(self.latency_s)
            ));
        }
        s.push_str(&format!(": {verdict}"));
        if !self.memory.fits {
            s.push_str(&format!(
                "; needs {} per device but {} is usable: does not fit",
                units::format_bytes(self.memory.footprint.total()),
                units::format_bytes(self.memory.usable_bytes)
            ));
        }
        s
    }
}

/// `x e^-band` and `x e^band`.
pub fn range(x: f64, band: f64) -> (f64, f64) {
    (x * (-band).exp(), x * band.exp())
}

pub use super::validation::{
    MAX_BATCH, MAX_CONTEXT, MAX_DEGREE, validate_assumptions, validate_hardware, validate_layout,
    validate_model, validate_workload,
};

/// Check everything, then evaluate. The one entry point callers need.
pub fn evaluate(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<Evaluation> {
    validate_hardware(hw)?;
    validate_model(model)?;
    validate_workload(wl)?;
    validate_layout(model, wl)?;
    validate_assumptions(a)?;
    evaluate_unchecked(hw, model, wl, a)
}

/// The link a collective over `span` devices uses: the scale-up link inside
/// a node, the scale-out network beyond it (per direction, byte/s).
pub fn link_for(hw: &Hardware, span: u32) -> Option<f64> {
    if span <= hw.devices_per_node.max(1) {
        hw.link_bandwidth.or(hw.scaleout_bandwidth)
    } else {
        hw.scaleout_bandwidth
    }
}

/// Communication of one step: the tensor-parallel all-reduces (each over
/// the TP ranks, on the scale-up link inside a node and the scale-out
/// network beyond it) and the pipeline hand-offs. Returns (transfer, fixed)
/// seconds: the bytes over the effective link, and the launch, barrier and
/// hop latencies that no bandwidth buys down ([`collective`]).
pub fn comm_parts(
    hw: &Hardware,
    wl: &Workload,
    c: &StepCost,
    a: &Assumptions,
) -> Result<(f64, f64)> {
    let (mut transfer, mut fixed) = (0.0, 0.0);
    if wl.tp > 1 && c.allreduces > 0.0 {
        let link = link_for(hw, wl.tp).ok_or_else(|| no_link(hw, "tensor"))?;
        let ar = collective::allreduce_on(c.allreduce_bytes, wl.tp, link, a).times(c.allreduces);
        transfer += ar.transfer(link, a.link_efficiency);
        fixed += ar.fixed_s;
    }
    if c.handoffs > 0.0 {
        let link =
            link_for(hw, wl.tp.saturating_mul(wl.pp)).ok_or_else(|| no_link(hw, "pipeline"))?;
        let h = collective::handoff(c.handoff_bytes, a).times(c.handoffs);
        transfer += h.transfer(link, a.link_efficiency);
        fixed += h.fixed_s;
    }
    Ok((transfer, fixed))
}

/// The bottleneck: the largest of the four shares of a step, compute,
/// memory, communication transfer (link bytes over bandwidth, without the
/// latencies) and the fixed terms (overhead plus link latencies). A tie goes
/// to the earlier in that order. Each share is what one kind of elasticity
/// sees: with w = 1, d ln T / d ln(bandwidth) = -t_memory / T, and scaling
/// the fixed terms by k scales T by fixed / T, so the largest share is also
/// the binding constraint of the sensitivity table.
pub fn classify(compute_s: f64, memory_s: f64, transfer_s: f64, fixed_s: f64) -> Bottleneck {
    [
        (Bottleneck::Compute, compute_s),
        (Bottleneck::Memory, memory_s),
        (Bottleneck::Communication, transfer_s),
        (Bottleneck::Overhead, fixed_s),
    ]
    .into_iter()
    .fold((Bottleneck::Compute, f64::NEG_INFINITY), |best, (b, v)| {
        if v > best.1 { (b, v) } else { best }
    })
    .0
}

fn no_link(hw: &Hardware, what: &str) -> SolverError {
    SolverError::Unsupported(format!(
        "{} has no link between devices, so {what} parallelism cannot be modelled: set it to 1",
        hw.id
    ))
}

/// The time of one step and its parts: the roofline without the memory
/// fit, for loops that only need latency (sensitivity, sweeps, searches).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepTime {
    pub cost: StepCost,
    pub compute_precision: Precision,
    pub peak_flops: f64,
    pub compute_s: f64,
    pub memory_s: f64,
    /// Exposed communication: transfer not hidden behind compute, plus
    /// the fixed part.
    pub comm_s: f64,
    /// The fixed part of `comm_s`: collective launches, barriers and hops.
    pub comm_latency_s: f64,
    /// The per-step overhead plus the fixed time of every kernel.
    pub overhead_s: f64,
    pub latency_s: f64,
    /// Natural-log half-width of the error band: the time lies in
    /// [T e^-band, T e^band].
    pub band: f64,
}

/// A step's work as the hardware sees it: FLOPs each divided by the
/// efficiency its kernels reach, bytes each divided by theirs, so that
/// t_compute = flops_at_peak / peak and t_memory = bytes_at_bandwidth /
/// bandwidth; and the fixed time of its kernels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    pub flops_at_peak: f64,
    pub bytes_at_bandwidth: f64,
    /// tau + kernels * kernel time + MoE layers * MoE layer time, plus the
    /// request time in a decoder's prefill.
    pub fixed_s: f64,
}

/// The effective work of step `c` whose math runs at `math`:
/// - dense GEMMs at eta_c m/(m + m_half) for m rows, routed experts the same
///   at their own rows (a few tokens per expert at small batch), the
///   attention products at eta_c times the attention factor; each times the
///   low-precision factor when the math is 8-bit or narrower;
/// - weights at eta_m times the dequantization factor when they are stored
///   narrower than the math (weight-only quantization), KV cache and
///   activations at eta_m.
pub fn work(c: &StepCost, wl: &Workload, math: Precision, a: &Assumptions) -> Work {
    let low = if math.bytes() <= 1.0 {
        a.low_precision_efficiency
    } else {
        1.0
    };
    let dense = c.flops - c.attention_flops - c.expert_flops;
    let flops_at_peak = dense / (a.gemm_efficiency(c.gemm_rows) * low)
        + c.expert_flops / (a.gemm_efficiency(c.expert_rows) * low)
        + c.attention_flops / (a.compute_efficiency * a.attention_efficiency * low);
    let weights = c.weight_bytes / a.dequant(wl.weights, math);
    Work {
        flops_at_peak,
        bytes_at_bandwidth: (weights + c.kv_bytes + c.activation_bytes) / a.memory_efficiency,
        fixed_s: a.overhead_s
            + c.kernels * a.kernel_s
            + c.moe_layers * a.moe_layer_s
            + if wl.phase == Phase::Prefill && c.kernels > 0.0 {
                a.request_s
            } else {
                0.0
            },
    }
}

/// The error band of a step: band_base, plus band_fixed times the share of
/// fixed costs in it, plus band_devices times log2 of the devices, plus
/// band_quantized when weights or math are 8-bit or narrower. The
/// profile's band terms come from the spread of its calibration residuals
/// (docs/validation.md, "Against published measurements").
pub fn band(fixed_share: f64, devices: u32, quantized: bool, a: &Assumptions) -> f64 {
    a.band_base
        + a.band_fixed * fixed_share.clamp(0.0, 1.0)
        + a.band_devices * (devices.max(1) as f64).log2()
        + if quantized { a.band_quantized } else { 0.0 }
}

/// Time a step without validating (the caller has). Used by sensitivity,
/// which perturbs validated inputs slightly past their bounds.
pub fn time_step(hw: &Hardware, model: &Model, wl: &Workload, a: &Assumptions) -> Result<StepTime> {
    time_cost(hw, model, wl, cost::step_cost(model, wl), a)
}

/// Time a step whose cost is given (a mixed step of a continuous-batching
/// server, a speculative verification): `wl` gives the precisions, the
/// layout and the phase its fixed costs and overlap follow.
pub fn time_cost(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    c: StepCost,
    a: &Assumptions,
) -> Result<StepTime> {
    let (compute_precision, peak) = hw
        .compute_peak(wl.activations, a.accumulate)
        .ok_or_else(|| SolverError::Unsupported(format!("{} has no peak FLOP/s", hw.id)))?;
    // StepCost is per rank already.
    let w = work(&c, wl, compute_precision, a);
    let compute_s = w.flops_at_peak / peak;
    let memory_s = w.bytes_at_bandwidth / hw.memory_bandwidth;
    let (hi, lo) = if compute_s >= memory_s {
        (compute_s, memory_s)
    } else {
        (memory_s, compute_s)
    };
    let roof = hi + (1.0 - a.overlap) * lo;
    let (comm_s, comm_latency_s) = match model.arch {
        Arch::Decoder(_) => {
            let (transfer, fixed) = comm_parts(hw, wl, &c, a)?;
            // A prefill's all-reduces can run under the next layer's math.
            let hidden = match wl.phase {
                Phase::Prefill => (a.prefill_comm_overlap * transfer).min(roof),
                Phase::Decode => 0.0,
            };
            (transfer - hidden + fixed, fixed)
        }
        Arch::SinglePass(_) => (0.0, 0.0),
    };
    let overhead_s = w.fixed_s;
    let latency_s = roof + comm_s + overhead_s;
    if !latency_s.is_finite() {
        return Err(SolverError::Unsupported(format!(
            "the figures are out of range: the step time of {} on {} is not a finite number; check for absurd values",
            model.id, hw.id
        )));
    }
    let quantized = wl.weights.bytes() <= 1.0 || compute_precision.bytes() <= 1.0;
    let band = band(
        (overhead_s + comm_latency_s) / latency_s,
        wl.tp.saturating_mul(wl.pp),
        quantized,
        a,
    );
    Ok(StepTime {
        cost: c,
        compute_precision,
        peak_flops: peak,
        compute_s,
        memory_s,
        comm_s,
        comm_latency_s,
        overhead_s,
        latency_s,
        band,
    })
}

/// Evaluate without validating (the caller has): the step time plus the
/// memory fit, the fewest devices, the largest batch and the notes.
pub fn evaluate_unchecked(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<Evaluation> {
    let StepTime {
        cost: c,
        compute_precision,
        peak_flops: peak,
        compute_s,
        memory_s,
        comm_s,
        comm_latency_s,
        overhead_s,
        latency_s,
        band,
    } = time_step(hw, model, wl, a)?;
    let mut notes = Vec::new();
    if matches!(model.arch, Arch::SinglePass(_)) && (wl.tp > 1 || wl.pp > 1) {
        notes.push(Note::SinglePassParallel);
    }

    let bottleneck = classify(
        compute_s,
        memory_s,
        comm_s - comm_latency_s,
        overhead_s + comm_latency_s,
    );

    if compute_precision != wl.activations {
        notes.push(Note::PrecisionFallback {
            requested: wl.activations,
            used: compute_precision,
        });
    }
    if let Arch::Decoder(d) = &model.arch {
        if c.kv_replicated {
            notes.push(Note::KvReplicated {
                kv_heads: d.kv_heads,
                tp: wl.tp,
            });
        }
        if wl.context > d.max_context as f64 && d.max_context > 0 {
            notes.push(Note::BeyondMaxContext {
                context: wl.context,
                max: d.max_context,
            });
        }
        if wl.tp > hw.devices_per_node.max(1) {
            notes.push(Note::TpBeyondNode {
                tp: wl.tp,
                devices_per_node: hw.devices_per_node,
            });
        }
    }

    let footprint = cost::footprint(model, wl);
    let usable_bytes = hw.memory_bytes * a.usable_memory;
    let memory = MemoryFit {
        footprint,
        capacity_bytes: hw.memory_bytes,
        usable_bytes,
        fits: footprint.total() <= usable_bytes,
    };
    let bytes = c.bytes();
    Ok(Evaluation {
        phase: wl.phase,
        batch: wl.batch,
        context: wl.context,
        parallelism: Parallelism {
            tp: wl.tp,
            pp: wl.pp,
        },
        cost: c,
        compute_s,
        memory_s,
        comm_s,
        comm_latency_s,
        overhead_s,
        latency_s,
        band,
        tokens_per_s: c.tokens / latency_s,
        bottleneck,
        arithmetic_intensity: if bytes > 0.0 {
            c.flops / bytes
        } else {
            f64::INFINITY
        },
        ridge_point: peak / hw.memory_bandwidth,
        effective_ridge_point: peak * a.compute_efficiency
            / (hw.memory_bandwidth * a.memory_efficiency),
        compute_precision,
        peak_flops: peak,
        mfu: c.flops / (latency_s * peak),
        mbu: bytes / (latency_s * hw.memory_bandwidth),
        memory,
        min_devices: fit::min_devices(hw, model, wl, a),
        max_batch: fit::max_batch(hw, model, wl, a),
        notes,
    })
}
