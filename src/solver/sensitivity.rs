//! Sensitivity: how the step time answers each knob.
//!
//! Elasticity e_x = d ln T / d ln x by a central difference in log space,
//! (ln T(x e^h) - ln T(x e^-h)) / 2h: at a kink of max() it returns the mean
//! of the two one-sided slopes, so it stays bounded and stable. The finite
//! change is (T(x (1 + p)) - T(x)) / T(x) for a +p step: what some tools call
//! "sensitivity". Both are reported, labelled.

use super::error::{self, Result};
use super::fit;
use super::roofline::{self, Bottleneck, Evaluation};
use super::types::{Assumptions, Hardware, Model, Precision, Workload};

/// Half-width of the log-space central difference.
const LOG_STEP: f64 = 1e-4;

/// The knobs whose effect on latency is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Param {
    PeakFlops,
    MemoryBandwidth,
    LinkBandwidth,
    ComputeEfficiency,
    MemoryEfficiency,
    Batch,
    Context,
}

impl Param {
    pub const ALL: [Param; 7] = [
        Param::PeakFlops,
        Param::MemoryBandwidth,
        Param::LinkBandwidth,
        Param::ComputeEfficiency,
        Param::MemoryEfficiency,
        Param::Batch,
        Param::Context,
    ];

    /// The key used in JSON output.
    pub fn key(self) -> &'static str {
        match self {
            Param::PeakFlops => "peak_flops",
            Param::MemoryBandwidth => "memory_bandwidth",
            Param::LinkBandwidth => "link_bandwidth",
            Param::ComputeEfficiency => "compute_efficiency",
            Param::MemoryEfficiency => "memory_efficiency",
            Param::Batch => "batch",
            Param::Context => "context",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            Param::PeakFlops => "peak FLOP/s",
            Param::MemoryBandwidth => "memory bandwidth",
            Param::LinkBandwidth => "link bandwidth",
            Param::ComputeEfficiency => "compute efficiency",
            Param::MemoryEfficiency => "memory efficiency",
            Param::Batch => "batch",
            Param::Context => "context",
        }
    }

    /// Hardware parameters compete for "binding constraint".
    pub fn is_hardware(self) -> bool {
        matches!(
            self,
            Param::PeakFlops | Param::MemoryBandwidth | Param::LinkBandwidth
        )
    }
}

/// One row of the sensitivity table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub param: Param,
    /// d ln T / d ln x.
    pub elasticity: f64,
    /// Relative change of T for x * (1 + perturb).
    pub finite_change: f64,
}

/// How far the non-binding resource of compute and memory could fall before it binds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headroom {
    /// The resource with room to spare.
    pub param: Param,
    /// It could shrink by this factor before it binds (>= 1).
    pub factor: f64,
}

/// The effect of storing weights and KV cache one format narrower (the
/// math precision stays): precision is a discrete knob, so it gets a finite
/// change, not an elasticity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrecisionStep {
    pub weights: Precision,
    pub kv: Precision,
    /// Relative change of T.
    pub latency_change: f64,
}

/// The full sensitivity report.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensitivity {
    pub base: Evaluation,
    pub perturb: f64,
    pub rows: Vec<Row>,
    /// The hardware parameter with the largest |elasticity| (None if all are 0).
    pub binding: Option<Param>,
    pub headroom: Headroom,
    /// Usable capacity / footprint (above 1 fits).
    pub fit_margin: f64,
    /// Capacity a device needs for twice the batch at this context.
    pub capacity_for_double_batch: f64,
    /// Weights and KV one format narrower (None when both are narrowest).
    pub precision_step: Option<PrecisionStep>,
}

impl Sensitivity {
    pub fn row(&self, p: Param) -> Option<&Row> {
        self.rows.iter().find(|r| r.param == p)
    }
}

/// Apply a multiplicative change `k` to one knob.
fn scaled(
    hw: &Hardware,
    wl: &Workload,
    a: &Assumptions,
    p: Param,
    k: f64,
) -> (Hardware, Workload, Assumptions) {
    let mut hw = hw.clone();
    let mut wl = *wl;
    let mut a = *a;
    match p {
        Param::PeakFlops => hw.peaks = hw.peaks.scaled(k),
        Param::MemoryBandwidth => hw.memory_bandwidth *= k,
        Param::LinkBandwidth => {
            hw.link_bandwidth = hw.link_bandwidth.map(|v| v * k);
            hw.scaleout_bandwidth = hw.scaleout_bandwidth.map(|v| v * k);
        }
        Param::ComputeEfficiency => a.compute_efficiency *= k,
        Param::MemoryEfficiency => a.memory_efficiency *= k,
        Param::Batch => wl.batch *= k,
        Param::Context => wl.context *= k,
    }
    (hw, wl, a)
}

fn latency(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    p: Param,
    k: f64,
) -> Result<f64> {
    let (hw, wl, a) = scaled(hw, wl, a, p, k);
    Ok(roofline::time_step(&hw, model, &wl, &a)?.latency_s)
}

/// Elasticities, finite changes for +`perturb` (0.1 = +10 %), binding
/// constraint, headroom and fit margin.
pub fn sensitivity(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    perturb: f64,
) -> Result<Sensitivity> {
    error::positive("perturbation", perturb)?;
    let base = roofline::evaluate(hw, model, wl, a)?;
    let t0 = base.latency_s;
    let mut rows = Vec::with_capacity(Param::ALL.len());
    for p in Param::ALL {
        let up = latency(hw, model, wl, a, p, LOG_STEP.exp())?;
        let down = latency(hw, model, wl, a, p, (-LOG_STEP).exp())?;
        let elasticity = (up.ln() - down.ln()) / (2.0 * LOG_STEP);
        let stepped = latency(hw, model, wl, a, p, 1.0 + perturb)?;
        rows.push(Row {
            param: p,
            elasticity: clean(elasticity),
            finite_change: clean((stepped - t0) / t0),
        });
    }
    let binding = rows
        .iter()
        .filter(|r| r.param.is_hardware() && r.elasticity.abs() > 1e-9)
        .max_by(|a, b| a.elasticity.abs().total_cmp(&b.elasticity.abs()))
        .map(|r| r.param);
    let headroom = if base.bottleneck == Bottleneck::Compute || base.compute_s > base.memory_s {
        Headroom {
            param: Param::MemoryBandwidth,
            factor: base.compute_s / base.memory_s,
        }
    } else {
        Headroom {
            param: Param::PeakFlops,
            factor: base.memory_s / base.compute_s,
        }
    };
    let weights = wl.weights.narrower().unwrap_or(wl.weights);
    let kv = wl.kv.narrower().unwrap_or(wl.kv);
    let precision_step = if (weights, kv) == (wl.weights, wl.kv) {
        None
    } else {
        let narrow = Workload { weights, kv, ..*wl };
        let t = roofline::time_step(hw, model, &narrow, a)?.latency_s;
        Some(PrecisionStep {
            weights,
            kv,
            latency_change: clean((t - t0) / t0),
        })
    };
    Ok(Sensitivity {
        precision_step,
        fit_margin: base.memory.margin(),
        capacity_for_double_batch: fit::capacity_for_batch(model, wl, a, 2.0),
        base,
        perturb,
        rows,
        binding,
        headroom,
    })
}

/// Round away the noise of floating-point differences (|e| < 1e-12 -> 0).
fn clean(x: f64) -> f64 {
    if x.abs() < 1e-12 { 0.0 } else { x }
}
