//! Strong and weak scaling: one training configuration over a list of
//! device counts, against the ideal line from the first point that runs.
//!
//! - Strong scaling keeps the global batch: each device's share of it
//!   shrinks as devices are added, while the gradient traffic per device
//!   does not, so communication (and, with a pipeline, the bubble) takes a
//!   growing share of the step.
//! - Weak scaling keeps the tokens per device: the compute per device
//!   stays, and only the collectives' growth with the group size (a ring
//!   all-reduce moves 2 (n - 1)/n of the buffer) and their move from the
//!   scale-up link to the scale-out network cost anything.
//!
//! At each count the layout is either the one pinned (its degrees, with dp
//! what the device count leaves) or the fastest that fits from the layout
//! search ([`super::layout::search`]). The efficiency of a point is its
//! tokens/s over the ideal line, tokens/s of the first point that runs x
//! devices / its devices. The knee is the first count whose efficiency
//! falls below a threshold, with the term whose share of the step grew the
//! most since the first point named as the reason.

use super::step::{Term, TrainingStep};
use super::{Layout, Training, TrainingAssumptions, TrainingRun, dp_groups, layout};
use crate::solver::collective::Span;
use crate::solver::error::{Result, SolverError};
use crate::solver::types::{Assumptions, Hardware, Model};
use crate::solver::units;

/// The knee threshold when none is given: 80% of the ideal line.
pub const DEFAULT_KNEE: f64 = 0.8;

/// Most device counts in one curve.
pub const MAX_POINTS: usize = 64;

/// What stays fixed as devices are added.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Batch {
    /// Strong scaling: the global batch, tokens per step.
    Strong(f64),
    /// Weak scaling: tokens per device per step (the global batch is this
    /// times the devices).
    Weak(f64),
}

impl Batch {
    /// The global batch at `devices` devices.
    pub fn global_tokens(self, devices: u32) -> f64 {
        match self {
            Batch::Strong(g) => g,
            Batch::Weak(t) => t * devices as f64,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Batch::Strong(_) => "strong",
            Batch::Weak(_) => "weak",
        }
    }
}

/// How each point gets its layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice {
    /// The base run's degrees, ZeRO stage, recomputation and micro-batch;
    /// dp is what each device count leaves.
    Pinned,
    /// The fastest layout that fits at each count.
    Search,
}

/// One scaling question.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// Device counts, in the order to plot them (ascending).
    pub devices: Vec<u32>,
    pub batch: Batch,
    /// Sequence, precision, optimizer, attention and (pinned) layout.
    pub base: TrainingRun,
    pub choice: Choice,
    /// Efficiency below which the curve has bent.
    pub knee: f64,
}

/// Each exposed collective's and the bubble's share of the step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Exposed {
    pub dp: f64,
    pub tp: f64,
    pub pp: f64,
    pub ep: f64,
    pub cp: f64,
    pub bubble: f64,
}

impl Exposed {
    fn of(s: &TrainingStep) -> Exposed {
        let share = |x: f64| x / s.step_time_s;
        Exposed {
            dp: share(s.comm.dp.exposed_s),
            tp: share(s.comm.tp.exposed_s),
            pp: share(s.comm.pp.exposed_s),
            ep: share(s.comm.ep.exposed_s),
            cp: share(s.comm.cp.exposed_s),
            bubble: share(s.bubble_s),
        }
    }

    /// Each share with its key: dp, tp, pp, ep, cp, bubble.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("dp", self.dp),
            ("tp", self.tp),
            ("pp", self.pp),
            ("ep", self.ep),
            ("cp", self.cp),
            ("bubble", self.bubble),
        ]
    }
}

/// The figures of a point that runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub run: TrainingRun,
    pub step: TrainingStep,
    pub tokens_per_s_per_device: f64,
    /// Tokens/s over the ideal line from the first point that runs.
    pub efficiency: f64,
    pub exposed: Exposed,
}

/// One device count: its figures, or why no layout runs there.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub devices: u32,
    pub outcome: std::result::Result<Figures, String>,
}

impl Point {
    pub fn figures(&self) -> Option<&Figures> {
        self.outcome.as_ref().ok()
    }
}

/// Where the curve bends, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Knee {
    pub devices: u32,
    pub reason: String,
}

/// The curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaling {
    pub points: Vec<Point>,
    pub knee: Option<Knee>,
}

impl Scaling {
    /// The point the ideal line starts from: the first that runs.
    pub fn reference(&self) -> Option<(u32, &Figures)> {
        self.points
            .iter()
            .find_map(|p| p.figures().map(|f| (p.devices, f)))
    }
}

/// Check a spec: one to [`MAX_POINTS`] ascending counts from 1 to the
/// modelled maximum, a positive batch, a knee threshold in (0, 1].
pub fn validate(spec: &Spec) -> Result<()> {
    if spec.devices.is_empty() || spec.devices.len() > MAX_POINTS {
        return Err(SolverError::Unsupported(format!(
            "a scaling curve takes 1 to {MAX_POINTS} device counts, got {}",
            spec.devices.len()
        )));
    }
    let max = crate::solver::roofline::MAX_DEGREE;
    if let Some(&n) = spec.devices.iter().find(|&&n| n == 0 || n > max) {
        return Err(SolverError::Unsupported(format!(
            "{n} devices: a count is from 1 to {max}"
        )));
    }
    if spec.devices.windows(2).any(|w| w[0] >= w[1]) {
        return Err(SolverError::Unsupported(
            "the device counts must rise from one to the next".into(),
        ));
    }
    match spec.batch {
        Batch::Strong(g) => crate::solver::error::positive("global batch", g)?,
        Batch::Weak(t) => crate::solver::error::positive("tokens per device", t)?,
    };
    if !(spec.knee > 0.0 && spec.knee <= 1.0) {
        return Err(SolverError::Invalid {
            field: "knee threshold",
            value: spec.knee,
            expected: "a fraction above 0 and at most 1",
        });
    }
    Ok(())
}

/// The scaling curve of `spec` for `model` on `hw`.
pub fn scale(
    hw: &Hardware,
    model: &Model,
    spec: &Spec,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<Scaling> {
    validate(spec)?;
    crate::solver::roofline::validate_hardware(hw)?;
    crate::solver::roofline::validate_assumptions(a)?;
    super::validate_training_assumptions(t)?;
    super::decoder(model)?;
    // Each count is its own search: they run side by side on the cores
    // there are (the answer is the same in any order).
    let one = |n: u32| -> Result<Point> {
        let base = TrainingRun {
            global_batch_tokens: spec.batch.global_tokens(n),
            ..spec.base
        };
        let outcome = match spec.choice {
            Choice::Pinned => pinned(hw, model, &base, n, a, t),
            Choice::Search => searched(hw, model, &base, n, a, t)?,
        };
        Ok(Point {
            devices: n,
            outcome: outcome.map(|tr| Figures {
                run: tr.run,
                tokens_per_s_per_device: tr.step.tokens_per_s / n as f64,
                efficiency: 1.0,
                exposed: Exposed::of(&tr.step),
                step: tr.step,
            }),
        })
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, |w| w.get())
        .min(spec.devices.len());
    let points: Vec<Point> = if workers <= 1 || spec.choice == Choice::Pinned {
        spec.devices
            .iter()
            .map(|&n| one(n))
            .collect::<Result<_>>()?
    } else {
        let mut slots: Vec<Option<Result<Point>>> = (0..spec.devices.len()).map(|_| None).collect();
        std::thread::scope(|sc| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let one = &one;
                    let devices = &spec.devices;
                    sc.spawn(move || {
                        (w..devices.len())
                            .step_by(workers)
                            .map(|i| (i, one(devices[i])))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for h in handles {
                for (i, r) in h.join().unwrap_or_default() {
                    slots[i] = Some(r);
                }
            }
        });
        slots
            .into_iter()
            .map(|r| {
                r.unwrap_or_else(|| {
                    Err(SolverError::Unsupported("a scaling point was lost".into()))
                })
            })
            .collect::<Result<_>>()?
    };
    let mut out = Scaling { points, knee: None };
    if let Some((n0, f0)) = out.reference() {
        let per_device = f0.step.tokens_per_s / n0 as f64;
        for p in &mut out.points {
            let n = p.devices as f64;
            if let Ok(f) = &mut p.outcome {
                f.efficiency = f.step.tokens_per_s / (per_device * n);
            }
        }
    }
    out.knee = knee(hw, &out, spec.knee);
    Ok(out)
}

/// The pinned layout at `n` devices, or why it does not run.
fn pinned(
    hw: &Hardware,
    model: &Model,
    base: &TrainingRun,
    n: u32,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> std::result::Result<Training, String> {
    let l = base.layout;
    let inner = Layout { dp: 1, ..l }.devices();
    if !(n as u64).is_multiple_of(inner) {
        return Err(format!(
            "{n} is not a multiple of tp x pp x ep x cp = {inner}"
        ));
    }
    let run = TrainingRun {
        layout: Layout {
            dp: (n as u64 / inner) as u32,
            ..l
        },
        ..*base
    };
    let tr = super::evaluate(hw, model, &run, a, t).map_err(|e| e.to_string())?;
    if !tr.memory.fits {
        return Err(format!(
            "does not fit: {} per device, {} usable",
            units::format_bytes(tr.memory.total()),
            units::format_bytes(tr.memory.usable_bytes)
        ));
    }
    Ok(tr)
}

/// The fastest layout of `n` devices that fits, or why there is none.
fn searched(
    hw: &Hardware,
    model: &Model,
    base: &TrainingRun,
    n: u32,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<std::result::Result<Training, String>> {
    let s = layout::fastest(hw, model, base, n, a, t)?;
    let Some(best) = s.ranked.first() else {
        let why = if s.tried == 0 {
            format!(
                "no layout gives each of the data-parallel ranks a sequence of the {} tokens per step",
                units::format_count(base.global_batch_tokens)
            )
        } else {
            format!(
                "no layout fits: {} tried, {} too big for memory, {} need a link the device lacks",
                s.tried, s.too_big, s.no_link
            )
        };
        return Ok(Err(why));
    };
    Ok(super::evaluate(hw, model, &best.run, a, t).map_err(|e| e.to_string()))
}

/// The first point after the reference whose efficiency is below
/// `threshold`, with its reason.
fn knee(hw: &Hardware, s: &Scaling, threshold: f64) -> Option<Knee> {
    let (n0, f0) = s.reference()?;
    s.points.iter().filter(|p| p.devices > n0).find_map(|p| {
        let f = p.figures()?;
        (f.efficiency < threshold).then(|| Knee {
            devices: p.devices,
            reason: reason(hw, f0, f),
        })
    })
}

/// The losses a step can have beside its useful compute, each with its
/// seconds.
fn losses(s: &TrainingStep) -> [(Term, f64); 11] {
    [
        (Term::MoeRouting, s.moe_routing_s),
        (Term::DpComm, s.comm.dp.exposed_s),
        (Term::TpComm, s.comm.tp.exposed_s),
        (Term::PpComm, s.comm.pp.exposed_s),
        (Term::EpComm, s.comm.ep.exposed_s),
        (Term::CpComm, s.comm.cp.exposed_s),
        (Term::Bubble, s.bubble_s),
        (Term::Offload, s.offload_s),
        (Term::Optimizer, s.optimizer_s),
        (Term::Overhead, s.overhead_s),
        (Term::Compute, s.recompute_s),
    ]
}

/// Why the knee bends: the loss whose share of the step grew the most
/// since the reference point, in words.
pub fn reason(hw: &Hardware, reference: &Figures, f: &Figures) -> String {
    let before = losses(&reference.step);
    let after = losses(&f.step);
    let t0 = reference.step.step_time_s;
    let t = f.step.step_time_s;
    let (i, grew) = (0..after.len())
        .map(|i| (i, after[i].1 / t - before[i].1 / t0))
        .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
    if grew <= 0.0 {
        return format!(
            "no term grows its share of the step; efficiency {}",
            units::format_percent(f.efficiency)
        );
    }
    let (term, secs) = after[i];
    let s = &f.step;
    let share = units::format_percent(secs / t);
    let per_device = format!(
        "{} tokens per device",
        units::format_count(s.tokens_per_device.round())
    );
    match term {
        Term::Bubble => format!(
            "pipeline bubble {share} ({} stages, {} micro-batch{})",
            f.run.layout.pp,
            units::format_count(s.micro_batches),
            if s.micro_batches == 1.0 { "" } else { "es" }
        ),
        Term::Optimizer => format!("optimizer step {share} of the step"),
        Term::Offload => format!("activation copies over the host link {share} of the step"),
        Term::Overhead => format!("fixed overhead {share} of the step: {per_device}"),
        Term::Compute => format!("recomputation {share} of the step"),
        Term::MoeRouting => format!("MoE routing {share} of the step: {per_device}"),
        comm => {
            let what = collective(comm, &f.run, hw);
            if secs > s.compute_s {
                format!("{what} exceeds compute: {per_device}")
            } else {
                format!("{what} is {share} of the step: {per_device}")
            }
        }
    }
}

/// "DP gradient all-reduce over the scale-out network": the collective of
/// a communication term and the level it crosses.
pub fn collective(term: Term, run: &TrainingRun, hw: &Hardware) -> String {
    let l = &run.layout;
    let (gd, _) = dp_groups(l);
    let (what, ranks, stride) = match term {
        Term::DpComm => (
            match run.zero {
                0 => "DP gradient all-reduce",
                1 | 2 => "DP gradient reduce-scatter and weight all-gather",
                _ => "FSDP all-gathers and reduce-scatters",
            },
            gd,
            l.tp,
        ),
        Term::TpComm => ("TP all-reduces", l.tp, 1),
        Term::PpComm => (
            "pipeline sends",
            2,
            l.tp.saturating_mul(l.cp)
                .saturating_mul(l.ep)
                .saturating_mul(l.dp),
        ),
        Term::EpComm => ("EP all-to-alls", l.ep, l.tp.saturating_mul(l.cp)),
        _ => ("CP ring", l.cp, l.tp),
    };
    let span = Span::of(ranks, stride, hw.devices_per_node);
    let level = match (span.nodes > 1, hw.torus.is_some()) {
        (true, true) => "beyond one pod's ICI, over the data-centre network",
        (true, false) => "over the scale-out network",
        (false, true) => "over the ICI torus",
        (false, false) => "over the scale-up link",
    };
    format!("{what} {level}")
}

/// Device counts from `first` doubling up to `last` (both included when
/// `last` is `first` times a power of two).
pub fn doublings(first: u32, last: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut n = first.max(1) as u64;
    while n <= last as u64 {
        out.push(n as u32);
        n *= 2;
    }
    out
}
