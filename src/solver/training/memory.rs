//! Bytes per device of a training step, and what to change when they do
//! not fit.
//!
//! Weights, gradients and optimizer state: P_dev x (w, g, o) bytes, with
//! P_dev = dense / (tp pp) + experts / (tp pp ep), each sharded over its
//! data-parallel group (dp ep cp for dense parameters, dp cp for experts)
//! by the ZeRO stage: stage 1 shards the optimizer state, 2 also the
//! gradients, 3 also the weights (Rajbhandari et al. 2020, ZeRO, figure 1).
//! bf16 with Adam: w = g = 2, o = 4 (fp32 master) + 8 (moments) = 16 bytes
//! per parameter.
//!
//! Activations (Korthikanti et al. 2022, equations 2-5): per layer and
//! micro-batch s b h (34 + 5 a s / h) bytes at 16 bits without
//! recomputation; sequence parallelism with tensor parallelism divides it
//! by t; selective recomputation drops the 5 a s / h term; full
//! recomputation keeps only each layer's 2 s b h input (and rebuilds one
//! layer's full set in backward). Context parallelism gives each rank s / cp
//! of the sequence. The first pipeline stage holds min(m, p) micro-batches
//! of its L / p layers with 1F1B, p + (p - 1)/v with the interleaved
//! schedule (Korthikanti et al., section 4.2.3). Other formats scale the
//! 16-bit figure by their bytes / 2.
//!
//! Left out: the embedding and logits activations of the first and last
//! stages, ZeRO-3's gathered layer buffer, and an MoE's per-expert
//! activations (the dense figure is used).

use super::{Layout, Params, Recompute, TrainingRun, dp_groups};
use crate::solver::types::{Assumptions, Decoder, Hardware};
use std::fmt;

/// Bytes per device and the fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingMemory {
    pub weights: f64,
    pub gradients: f64,
    pub optimizer: f64,
    pub activations: f64,
    pub capacity_bytes: f64,
    /// capacity x usable fraction.
    pub usable_bytes: f64,
    pub fits: bool,
}

impl TrainingMemory {
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer + self.activations
    }
}

/// Per-device bytes of weights, gradients and optimizer state: (w, g, o).
pub fn states(p: &Params, run: &TrainingRun) -> (f64, f64, f64) {
    let (dense, experts) = p.per_device(&run.layout, p.layers);
    let (gd, ge) = dp_groups(&run.layout);
    let sharded = |stage: u8| {
        if run.zero >= stage {
            dense / gd as f64 + experts / ge as f64
        } else {
            dense + experts
        }
    };
    let e = run.element_bytes();
    (
        sharded(3) * e,
        sharded(2) * e,
        sharded(1) * run.optimizer_bytes(),
    )
}

/// Activation bytes of one layer and one micro-batch on one device.
pub fn layer_activations(d: &Decoder, run: &TrainingRun, recompute: Recompute) -> f64 {
    let l = &run.layout;
    let s = run.seq / l.cp as f64;
    let sbh = s * run.micro_batch as f64 * d.hidden as f64;
    let scale = run.element_bytes() / 2.0 / l.tp as f64;
    let per = match recompute {
        Recompute::None => 34.0 + 5.0 * d.heads as f64 * s / d.hidden as f64,
        Recompute::Selective => 34.0,
        Recompute::Full => 2.0,
    };
    sbh * per * scale
}

/// Micro-batches whose activations the first stage holds at once.
pub fn in_flight(l: &Layout, micro_batches: f64) -> f64 {
    if l.pp <= 1 {
        return 1.0;
    }
    let p = l.pp as f64;
    let held = if l.v > 1 {
        p + (p - 1.0) / l.v as f64
    } else {
        p
    };
    held.min(micro_batches.max(1.0))
}

/// Activation bytes on the busiest device.
pub fn activations(d: &Decoder, run: &TrainingRun) -> f64 {
    let layers = run.layout.stage_layers(d.layers);
    let kept = layer_activations(d, run, run.recompute)
        * layers
        * in_flight(&run.layout, run.micro_batches());
    let rebuilt = if run.recompute == Recompute::Full {
        layer_activations(d, run, Recompute::None)
    } else {
        0.0
    };
    kept + rebuilt
}

/// Memory per device of `run` on `hw`.
pub fn memory(
    hw: &Hardware,
    d: &Decoder,
    p: &Params,
    run: &TrainingRun,
    a: &Assumptions,
) -> TrainingMemory {
    let (weights, gradients, optimizer) = states(p, run);
    let activations = activations(d, run);
    let usable = hw.memory_bytes * a.usable_memory;
    let total = weights + gradients + optimizer + activations;
    TrainingMemory {
        weights,
        gradients,
        optimizer,
        activations,
        capacity_bytes: hw.memory_bytes,
        usable_bytes: usable,
        fits: total <= usable,
    }
}

/// One change that lowers the memory per device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fix {
    /// A higher ZeRO stage.
    Zero(u8),
    Recompute(Recompute),
    /// A smaller micro-batch (sequences).
    MicroBatch(u32),
    /// More tensor parallelism, taken from data parallelism.
    Tp(u32),
    /// More pipeline stages, taken from data parallelism.
    Pp(u32),
}

impl fmt::Display for Fix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fix::Zero(z) => write!(f, "--zero {z}"),
            Fix::Recompute(r) => write!(f, "--recompute {}", r.name()),
            Fix::MicroBatch(b) => write!(f, "--micro-batch {b}"),
            Fix::Tp(t) => write!(f, "--tp {t} (fewer data-parallel ranks)"),
            Fix::Pp(p) => write!(f, "--pp {p} (fewer data-parallel ranks)"),
        }
    }
}

/// The single changes that lower the memory per device, each with the
/// memory it gives (bytes) and whether that fits, those that fit first:
/// the next ZeRO stage, more recomputation, half the micro-batch, twice the
/// TP or PP taken from DP (when the model allows it).
pub fn fixes(
    hw: &Hardware,
    d: &Decoder,
    p: &Params,
    run: &TrainingRun,
    a: &Assumptions,
) -> Vec<(Fix, f64, bool)> {
    let mut out = Vec::new();
    let mut try_run = |fix: Fix, r: TrainingRun| {
        let m = memory(hw, d, p, &r, a);
        out.push((fix, m.total(), m.fits));
    };
    let (gd, _) = dp_groups(&run.layout);
    if run.zero < 3 && gd > 1 {
        try_run(
            Fix::Zero(run.zero + 1),
            TrainingRun {
                zero: run.zero + 1,
                ..*run
            },
        );
    }
    let next = match run.recompute {
        Recompute::None => Some(Recompute::Selective),
        Recompute::Selective => Some(Recompute::Full),
        Recompute::Full => None,
    };
    if let Some(r) = next {
        try_run(
            Fix::Recompute(r),
            TrainingRun {
                recompute: r,
                ..*run
            },
        );
    }
    if run.micro_batch > 1 {
        let b = run.micro_batch / 2;
        try_run(
            Fix::MicroBatch(b),
            TrainingRun {
                micro_batch: b,
                ..*run
            },
        );
    }
    let l = run.layout;
    if l.dp.is_multiple_of(2) {
        let tp = l.tp * 2;
        if d.heads.is_multiple_of(tp) {
            let layout = Layout {
                tp,
                dp: l.dp / 2,
                ..l
            };
            try_run(Fix::Tp(tp), TrainingRun { layout, ..*run });
        }
        let pp = l.pp * 2;
        if pp * l.v <= d.layers && d.layers.is_multiple_of(pp * l.v) {
            let layout = Layout {
                pp,
                dp: l.dp / 2,
                ..l
            };
            try_run(Fix::Pp(pp), TrainingRun { layout, ..*run });
        }
    }
    out.sort_by(|x, y| y.2.cmp(&x.2).then(x.1.total_cmp(&y.1)));
    out
}
