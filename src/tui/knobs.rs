//! The knobs: how each is shown, stepped and read from text. The workload
//! knobs are shared by every view; each view adds its own (prompt and output
//! for Serving, the target for Synthesis, the SLAs for Fleet, ...).

use crate::catalog::ModelEntry;
use crate::catalog::device_class::DeviceClass;
use crate::scenario::{FLAGSHIP_FAMILY, SynthTarget};
use crate::solver::serving::Request;
use crate::solver::training::TrainingAssumptions;
use crate::solver::units::{self, Kind};
use crate::solver::{Arch, Assumptions, Model, Phase, Precision, Workload, fit};
use crate::words::Words;
pub use training::TrainInputs;

/// One knob of the workload or the assumptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knob {
    Phase,
    Batch,
    Context,
    /// Weights, activations and KV cache at once ("mixed" when they differ).
    Precision,
    Weights,
    Activations,
    Kv,
    Tp,
    Pp,
    /// The calibration profile every assumption starts from.
    Profile,
    ComputeEff,
    MemoryEff,
    Overhead,
    KernelTime,
    // Serving and Fleet.
    Prompt,
    Output,
    Region,
    // Serving's batching (knobs/serving_modes.rs).
    Batching,
    TokenBudget,
    PrefixHit,
    Draft,
    Proposed,
    Acceptance,
    // Synthesis.
    Target,
    // Sweep.
    SweepAxis,
    // Generations.
    Family,
    // Fleet.
    Qps,
    TtftSla,
    ItlSla,
    Regions,
    Budget,
    /// The precisions the fleet search ranges over.
    FleetPrecisions,
    /// Aggregated, disaggregated or both.
    FleetMode,
    /// Each region's share of the load.
    Shares,
    // Training (knobs/training.rs).
    Devices,
    Dp,
    TrainTp,
    TrainPp,
    Interleave,
    Ep,
    Cp,
    Zero,
    Recompute,
    Attention,
    Offload,
    EdgeLayers,
    Contiguous,
    GlobalBatch,
    MicroBatch,
    Seq,
    Tokens,
    // Training assumptions (knobs/train_assume.rs).
    Optimizer,
    DpOverlap,
    TpOverlap,
    EpOverlap,
    CpOverlap,
    OverlapSlowdown,
    AttentionEff,
    MatmulCeiling,
    CrossEntropy,
    Fp8Storage,
    GradPrecision,
    AllocatorOverhead,
    MoeTokenTime,
    Mtbf,
    CheckpointBw,
    Restart,
    // Explore (knobs/explore.rs).
    ExploreX,
    ExploreY,
    ExploreHardware,
    ExplorePrecisions,
    ExploreTp,
    ExplorePp,
    ExploreBatch,
    ExploreTtft,
    ExploreItl,
    ExploreInfeasible,
}

/// What a sweep runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepAxis {
    Batch,
    Context,
}

/// Which devices the Generations view lines up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Family {
    /// The generations people ask about, A100 -> H100 -> H200 -> B200
    /// (`scenario::FLAGSHIP_DEVICES`), baseline A100: the default.
    Flagship,
    /// The catalog's `family` (A100 -> H100 -> H200 -> B200, ...).
    Named(String),
    /// The devices marked in the Hardware list.
    Marked,
}

impl Family {
    /// Its name on the knob and in a scenario.
    pub fn name(&self) -> String {
        match self {
            Family::Flagship => FLAGSHIP_FAMILY.into(),
            Family::Named(f) => f.clone(),
            Family::Marked => "marked".into(),
        }
    }

    /// The family a name means (`name`'s inverse; any other name is a
    /// catalog family).
    pub fn parse(name: &str) -> Family {
        match name {
            "marked" => Family::Marked,
            FLAGSHIP_FAMILY => Family::Flagship,
            f => Family::Named(f.into()),
        }
    }
}

/// The inputs of the views beyond the workload: what the view knobs change.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewInputs {
    pub request: Request,
    /// Region id for the Serving view's carbon.
    pub region: String,
    pub target: SynthTarget,
    pub sweep: SweepAxis,
    /// Batches of the batch sweep (low, high).
    pub batches: (u64, u64),
    pub family: Family,
    pub qps: f64,
    pub ttft_s: f64,
    pub itl_s: f64,
    /// Region ids of the Fleet view.
    pub regions: Vec<String>,
    /// Each region's share of the load, in `regions` order (empty: equal).
    pub shares: Vec<f64>,
    /// The precisions the Fleet view searches.
    pub precisions: Vec<crate::solver::Precisions>,
    pub mode: crate::solver::fleet::ModeChoice,
    /// USD per year; None for no budget.
    pub budget: Option<f64>,
    pub max_utilization: f64,
    /// The Training view's run.
    pub train: TrainInputs,
    /// How the Serving view batches.
    pub serve: crate::scenario::ServeModes,
    /// The Explore view's objectives, axes and limits.
    pub explore: crate::scenario::ExploreInputs,
}

impl Default for ViewInputs {
    fn default() -> Self {
        let f = crate::scenario::FleetInputs::default();
        ViewInputs {
            request: Request::default(),
            region: f
                .regions
                .first()
                .cloned()
                .unwrap_or_else(|| "us-east".into()),
            target: crate::scenario::DEFAULT_SYNTH_TARGET,
            sweep: SweepAxis::Batch,
            batches: crate::scenario::DEFAULT_SWEEP_BATCHES,
            family: Family::Flagship,
            qps: f.qps,
            ttft_s: f.ttft_s,
            itl_s: f.itl_s,
            regions: f.regions,
            shares: f.shares,
            precisions: f.precisions,
            mode: f.mode,
            budget: f.budget_usd_per_year,
            max_utilization: f.max_utilization,
            train: TrainInputs::default(),
            serve: crate::scenario::ServeModes::default(),
            explore: Default::default(),
        }
    }
}

/// The inputs the knobs change.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub wl: Workload,
    pub a: Assumptions,
    pub v: ViewInputs,
    /// The profile `a` starts from (the other assumption knobs override
    /// one value of it).
    pub profile: Profile,
}

/// A calibration profile of the catalog: its id and its assumptions (on
/// the selected device: the values of its device class when the profile
/// names it, that class beside them).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub id: String,
    pub base: Assumptions,
    /// Its training keys (the defaults where it sets none): choosing the
    /// profile sets the Training view's overlaps, attention efficiency,
    /// MoE token time and matmul ceiling, as `train --profile` does.
    pub training: TrainingAssumptions,
    pub class: Option<DeviceClass>,
}

/// What stepping and reading some knobs needs from the catalog: the region
/// ids, the hardware families and the calibration profiles, in catalog
/// order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Choices {
    pub regions: Vec<String>,
    pub families: Vec<String>,
    pub profiles: Vec<Profile>,
    /// The catalog's decoders, for the speculative draft.
    pub drafts: Vec<serving_modes::DraftChoice>,
}

/// The next (or previous) entry of `list` after `cur`, wrapping.
fn cycle_in(list: &[String], cur: &str, up: bool) -> Option<String> {
    if list.is_empty() {
        return None;
    }
    let n = list.len();
    let i = list.iter().position(|x| x == cur);
    let j = match (i, up) {
        (None, _) => 0,
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
    };
    Some(list[j].clone())
}

/// Largest tensor- or pipeline-parallel degree a step goes to.
const MAX_DEGREE: u32 = 65536;

impl Knob {
    pub const ALL: [Knob; 14] = [
        Knob::Phase,
        Knob::Batch,
        Knob::Context,
        Knob::Precision,
        Knob::Weights,
        Knob::Activations,
        Knob::Kv,
        Knob::Tp,
        Knob::Pp,
        Knob::Profile,
        Knob::ComputeEff,
        Knob::MemoryEff,
        Knob::Overhead,
        Knob::KernelTime,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Knob::Phase => "phase",
            Knob::Batch => "batch",
            Knob::Context => "context",
            Knob::Precision => "precision",
            Knob::Weights => "weights",
            Knob::Activations => "activations",
            Knob::Kv => "KV cache",
            Knob::Tp => "TP",
            Knob::Pp => "PP",
            Knob::ComputeEff => "compute eff",
            Knob::MemoryEff => "memory eff",
            Knob::Profile => "profile",
            Knob::Overhead => "overhead",
            Knob::KernelTime => "kernel time",
            Knob::Prompt => "prompt",
            Knob::Output => "output",
            Knob::Region => "region",
            Knob::Target => "target",
            Knob::SweepAxis => "sweep over",
            Knob::Family => "family",
            Knob::Qps => "requests/s",
            Knob::TtftSla => "TTFT SLA",
            Knob::ItlSla => "ITL SLA",
            Knob::Regions => "regions",
            Knob::Budget => "budget $/yr",
            k if serving_modes::covers(k) => serving_modes::label(k),
            k if explore::covers(k) => explore::label(k),
            k if fleet::covers(k) => fleet::label(k),
            k => training::label(k),
        }
    }

    /// The knobs a view shows, its own first.
    pub fn for_view(view: usize) -> &'static [Knob] {
        use Knob::*;
        match view {
            1 => &[
                Prompt,
                Output,
                Region,
                Batching,
                TokenBudget,
                PrefixHit,
                Draft,
                Proposed,
                Acceptance,
                Batch,
                Precision,
                Weights,
                Activations,
                Kv,
                Tp,
                Pp,
                Profile,
                ComputeEff,
                MemoryEff,
                Overhead,
                KernelTime,
            ],
            2 => &[
                Target,
                Batch,
                Context,
                Precision,
                Weights,
                Activations,
                Kv,
                Tp,
                Pp,
                Profile,
                ComputeEff,
                MemoryEff,
                Overhead,
                KernelTime,
            ],
            3 => &[
                SweepAxis,
                Phase,
                Batch,
                Context,
                Precision,
                Weights,
                Activations,
                Kv,
                Tp,
                Pp,
                Profile,
                ComputeEff,
                MemoryEff,
                Overhead,
                KernelTime,
            ],
            4 => &[
                Family,
                Phase,
                Batch,
                Context,
                Precision,
                Weights,
                Activations,
                Kv,
                Tp,
                Pp,
                Profile,
                ComputeEff,
                MemoryEff,
                Overhead,
                KernelTime,
            ],
            5 => &[
                Qps,
                Prompt,
                Output,
                TtftSla,
                ItlSla,
                Regions,
                Shares,
                Budget,
                FleetPrecisions,
                FleetMode,
                Profile,
                ComputeEff,
                MemoryEff,
                Overhead,
                KernelTime,
            ],
            6 => &TRAINING_KNOBS,
            8 => &EXPLORE_KNOBS,
            _ => &Knob::ALL,
        }
    }

    /// What the entry accepts, shown beside it.
    pub fn hint(self) -> &'static str {
        match self {
            Knob::Phase => "decode or prefill",
            Knob::Batch => "e.g. 8, 64, 1k",
            Knob::Context => "tokens, e.g. 4096, 8k",
            Knob::Precision => "all three: fp32 tf32 bf16 fp16 fp8 int8 fp4 int4",
            Knob::Weights | Knob::Activations | Knob::Kv => "fp32 tf32 bf16 fp16 fp8 int8 fp4 int4",
            Knob::Tp | Knob::Pp => "devices, e.g. 2, 8",
            Knob::ComputeEff | Knob::MemoryEff => "e.g. 0.7 or 70%",
            Knob::Overhead => "e.g. 10us, 0.5ms",
            Knob::KernelTime => "per kernel, e.g. 6.5us, 0",
            Knob::Profile => "calibration profile, e.g. default, vllm; * = changed",
            Knob::Prompt | Knob::Output => "tokens, e.g. 2k, 256",
            Knob::Region | Knob::Regions => "region ids, e.g. us-east,eu-west",
            Knob::Target => "\"50ms itl\", \"100ms ttft\", \"30 tok/s per user\"",
            Knob::SweepAxis => "batch or context",
            Knob::Family => "a hardware family, or marked",
            Knob::Qps => "requests per second, e.g. 1000",
            Knob::TtftSla | Knob::ItlSla => "e.g. 100ms, 50ms",
            Knob::Budget => "USD per year, e.g. 5M; none",
            k if serving_modes::covers(k) => serving_modes::hint(k),
            k if explore::covers(k) => explore::hint(k),
            k if fleet::covers(k) => fleet::hint(k),
            k => training::hint(k),
        }
    }

    /// The knob's value as shown (and as the entry starts).
    pub fn value(self, i: &Inputs) -> String {
        let (wl, a, v) = (&i.wl, &i.a, &i.v);
        let pct = |x: f64| format!("{}%", units::format_number(x * 100.0));
        match self {
            Knob::Phase => wl.phase.name().to_string(),
            Knob::Batch => whole(wl.batch),
            Knob::Context => whole(wl.context),
            Knob::Precision => match uniform_precision(wl) {
                Some(p) => p.name().to_string(),
                None => MIXED.to_string(),
            },
            Knob::Weights => wl.weights.name().to_string(),
            Knob::Activations => wl.activations.name().to_string(),
            Knob::Kv => wl.kv.name().to_string(),
            Knob::Tp => wl.tp.to_string(),
            Knob::Pp => wl.pp.to_string(),
            Knob::ComputeEff => pct(a.compute_efficiency),
            Knob::MemoryEff => pct(a.memory_efficiency),
            Knob::Overhead => units::format_time(a.overhead_s),
            Knob::KernelTime => units::format_time(a.kernel_s),
            Knob::Profile => profile::shown(&i.profile, a),
            Knob::Prompt => whole(v.request.prompt),
            Knob::Output => whole(v.request.output),
            Knob::Region => v.region.clone(),
            Knob::Target => v.target.to_string(),
            Knob::SweepAxis => match v.sweep {
                SweepAxis::Batch => "batch".into(),
                SweepAxis::Context => "context".into(),
            },
            Knob::Family => v.family.name(),
            Knob::Qps => units::format_number(v.qps),
            Knob::TtftSla => units::format_time(v.ttft_s),
            Knob::ItlSla => units::format_time(v.itl_s),
            Knob::Regions => v.regions.join(","),
            Knob::Budget => v
                .budget
                .map_or("none".into(), |b| units::format_count(b).replace(' ', "")),
            k if serving_modes::covers(k) => serving_modes::value(k, &v.serve),
            k if explore::covers(k) => explore::value(k, &v.explore),
            k if fleet::covers(k) => fleet::value(k, v),
            k => training::value(k, &v.train),
        }
    }

    /// Step up (`up`) or down: batch, context and degrees double and halve,
    /// precisions cycle, the phase toggles, efficiencies move by 5 points.
    pub fn step(self, i: &Inputs, up: bool, c: &Choices) -> Inputs {
        let (mut wl, mut a, mut v) = (i.wl, i.a, i.v.clone());
        let mut profile = i.profile.clone();
        let double = |x: f64| {
            if up {
                (x * 2.0).min(1e9)
            } else {
                (x / 2.0).floor().max(1.0)
            }
        };
        let double_u = |x: u32| {
            if up {
                x.saturating_mul(2).min(MAX_DEGREE)
            } else {
                (x / 2).max(1)
            }
        };
        let cycle = |p: Precision| if up { p.next() } else { p.prev() };
        let eff = |x: f64| {
            let v = if up { x + 0.05 } else { x - 0.05 };
            ((v * 100.0).round() / 100.0).clamp(0.05, 1.0)
        };
        match self {
            Knob::Phase => {
                wl.phase = match wl.phase {
                    Phase::Decode => Phase::Prefill,
                    Phase::Prefill => Phase::Decode,
                }
            }
            Knob::Batch => wl.batch = double(wl.batch),
            Knob::Context => wl.context = double(wl.context),
            Knob::Precision => {
                // From mixed, the weights' format is the one stepped.
                let p = cycle(uniform_precision(&wl).unwrap_or(wl.weights));
                (wl.weights, wl.activations, wl.kv) = (p, p, p);
            }
            Knob::Weights => wl.weights = cycle(wl.weights),
            Knob::Activations => wl.activations = cycle(wl.activations),
            Knob::Kv => wl.kv = cycle(wl.kv),
            Knob::Tp => wl.tp = double_u(wl.tp),
            Knob::Pp => wl.pp = double_u(wl.pp),
            Knob::ComputeEff => a.compute_efficiency = eff(a.compute_efficiency),
            Knob::MemoryEff => a.memory_efficiency = eff(a.memory_efficiency),
            Knob::Overhead => a.overhead_s = profile::step_time(a.overhead_s, up),
            Knob::KernelTime => a.kernel_s = profile::step_time(a.kernel_s, up),
            Knob::Profile => {
                if let Some(p) = profile::step(&c.profiles, &i.profile.id, up) {
                    (profile, a) = (p.clone(), p.base);
                    v.train.assumptions =
                        crate::catalog::profile::with_stack(&v.train.assumptions, &p.training);
                }
            }
            Knob::Prompt => v.request.prompt = double(v.request.prompt),
            Knob::Output => v.request.output = double(v.request.output),
            Knob::Region => {
                if let Some(r) = cycle_in(&c.regions, &v.region, up) {
                    v.region = r;
                }
            }
            Knob::Target => {
                v.target = match v.target {
                    SynthTarget::Itl(t) => SynthTarget::Itl(if up { t * 2.0 } else { t / 2.0 }),
                    SynthTarget::Ttft(t) => SynthTarget::Ttft(if up { t * 2.0 } else { t / 2.0 }),
                    SynthTarget::PerUser(r) => {
                        SynthTarget::PerUser(if up { r * 2.0 } else { r / 2.0 })
                    }
                    SynthTarget::Aggregate(r) => {
                        SynthTarget::Aggregate(if up { r * 2.0 } else { r / 2.0 })
                    }
                }
            }
            Knob::SweepAxis => {
                v.sweep = match v.sweep {
                    SweepAxis::Batch => SweepAxis::Context,
                    SweepAxis::Context => SweepAxis::Batch,
                }
            }
            Knob::Family => {
                let mut all = vec![FLAGSHIP_FAMILY.to_string()];
                all.extend(c.families.iter().cloned());
                all.push("marked".into());
                let cur = Knob::Family.value(i);
                if let Some(f) = cycle_in(&all, &cur, up) {
                    v.family = Family::parse(&f);
                }
            }
            Knob::Qps => {
                v.qps = if up {
                    (v.qps * 2.0).min(1e9)
                } else {
                    (v.qps / 2.0).max(0.001)
                }
            }
            Knob::TtftSla => {
                v.ttft_s = if up {
                    (v.ttft_s * 2.0).min(1e4)
                } else {
                    v.ttft_s / 2.0
                }
            }
            Knob::ItlSla => {
                v.itl_s = if up {
                    (v.itl_s * 2.0).min(1e4)
                } else {
                    v.itl_s / 2.0
                }
            }
            Knob::Regions => {
                // The last region moves to the next one not in the list.
                let last = v.regions.last().cloned().unwrap_or_default();
                let mut r = last.clone();
                for _ in 0..c.regions.len() {
                    match cycle_in(&c.regions, &r, up) {
                        Some(n) => r = n,
                        None => break,
                    }
                    if !v.regions.contains(&r) {
                        break;
                    }
                }
                if !v.regions.contains(&r) {
                    match v.regions.last_mut() {
                        Some(l) => *l = r,
                        None => v.regions.push(r),
                    }
                }
            }
            Knob::Budget => {
                v.budget = match (v.budget, up) {
                    (None, true) => Some(1e6),
                    (None, false) => None,
                    (Some(b), true) => Some((b * 2.0).min(1e15)),
                    (Some(b), false) if b <= 1e5 => None,
                    (Some(b), false) => Some(b / 2.0),
                }
            }
            k if serving_modes::covers(k) => {
                v.serve = serving_modes::step(k, &v.serve, up, &c.drafts, None)
            }
            k if explore::covers(k) => v.explore = explore::step(k, &v.explore, up),
            k if fleet::covers(k) => fleet::step(k, &mut v, up),
            k => v.train = training::step(k, &v.train, up, None),
        }
        Inputs { wl, a, v, profile }
    }

    /// Step as [`Knob::step`] does, knowing the model: tensor parallelism
    /// moves to the next degree that splits its attention heads (and KV
    /// heads) evenly, pipeline stages stop at its layers.
    pub fn step_for(self, i: &Inputs, up: bool, c: &Choices, model: Option<&Model>) -> Inputs {
        if self.is_training() {
            let mut next = i.clone();
            next.v.train = training::step(self, &i.v.train, up, model);
            return next;
        }
        if serving_modes::covers(self) {
            let mut next = i.clone();
            next.v.serve = serving_modes::step(self, &i.v.serve, up, &c.drafts, model);
            return next;
        }
        let mut next = self.step(i, up, c);
        if let Some(m) = model
            && let Arch::Decoder(d) = &m.arch
        {
            match self {
                Knob::Tp => {
                    let valid = fit::valid_tp_degrees(m, d.heads);
                    let cur = i.wl.tp;
                    let pick = if up {
                        valid.iter().copied().find(|&t| t > cur)
                    } else {
                        valid.iter().rev().copied().find(|&t| t < cur)
                    };
                    next.wl.tp = pick.unwrap_or(cur);
                }
                Knob::Pp => next.wl.pp = next.wl.pp.min(d.layers.max(1)),
                _ => {}
            }
        }
        next
    }

    /// Read typed text ("8k", "50ms", "70%", "fp8") into new inputs. The
    /// solver still validates the result; this only reads the text.
    pub fn parse(self, text: &str, i: &Inputs, c: &Choices) -> Result<Inputs, String> {
        let (mut wl, mut a, mut v) = (i.wl, i.a, i.v.clone());
        let mut profile = i.profile.clone();
        let t = text.trim();
        let precision = |t: &str| {
            Precision::parse(t).ok_or_else(|| {
                format!("unknown precision {t:?}: use fp32 tf32 bf16 fp16 fp8 int8 fp4 int4")
            })
        };
        let count = |t: &str| units::parse(t, Kind::Count).map_err(|e| e.to_string());
        // Token counts read k as 1024 ("8k" = 8192), as the command line does.
        let tokens = |t: &str| units::parse(t, Kind::Tokens).map_err(|e| e.to_string());
        let degree = |t: &str| -> Result<u32, String> {
            let v = count(t)?;
            if v.fract() != 0.0 || !(1.0..=MAX_DEGREE as f64).contains(&v) {
                return Err(format!(
                    "{} must be a whole number of devices from 1 to {MAX_DEGREE}",
                    self.label()
                ));
            }
            Ok(v as u32)
        };
        let fraction = |t: &str| units::parse(t, Kind::Fraction).map_err(|e| e.to_string());
        match self {
            Knob::Phase => {
                wl.phase = Phase::parse(t)
                    .ok_or_else(|| format!("unknown phase {t:?}: use decode or prefill"))?
            }
            Knob::Batch => wl.batch = count(t)?,
            Knob::Context => wl.context = tokens(t)?,
            // "mixed" reads back as it is: the three knobs keep their formats.
            Knob::Precision
                if t.eq_ignore_ascii_case(MIXED) && uniform_precision(&wl).is_none() => {}
            Knob::Precision => {
                let p = precision(t)?;
                (wl.weights, wl.activations, wl.kv) = (p, p, p);
            }
            Knob::Weights => wl.weights = precision(t)?,
            Knob::Activations => wl.activations = precision(t)?,
            Knob::Kv => wl.kv = precision(t)?,
            Knob::Tp => wl.tp = degree(t)?,
            Knob::Pp => wl.pp = degree(t)?,
            Knob::ComputeEff => a.compute_efficiency = fraction(t)?,
            Knob::MemoryEff => a.memory_efficiency = fraction(t)?,
            Knob::Overhead => {
                a.overhead_s = units::parse(t, Kind::Time).map_err(|e| e.to_string())?
            }
            Knob::KernelTime => {
                a.kernel_s = units::parse(t, Kind::Time).map_err(|e| e.to_string())?
            }
            Knob::Profile => {
                if let Some(p) = profile::parse(t, i, &c.profiles)? {
                    (profile, a) = (p.clone(), p.base);
                    v.train.assumptions =
                        crate::catalog::profile::with_stack(&v.train.assumptions, &p.training);
                }
            }
            Knob::Prompt | Knob::Output => {
                let n = tokens(t)?;
                if !(1.0..=1e9).contains(&n) {
                    return Err(format!("{} must be from 1 to 1e9 tokens", self.label()));
                }
                if self == Knob::Prompt {
                    v.request.prompt = n.round();
                } else {
                    v.request.output = n.round();
                }
            }
            Knob::Region => v.region = region(t, c)?,
            Knob::Target => v.target = SynthTarget::parse(t)?,
            Knob::SweepAxis => {
                v.sweep = match t.to_ascii_lowercase().as_str() {
                    "batch" | "b" => SweepAxis::Batch,
                    "context" | "ctx" | "c" => SweepAxis::Context,
                    _ => return Err(format!("sweep over {t:?}? use batch or context")),
                }
            }
            Knob::Family => {
                let l = t.to_ascii_lowercase();
                v.family = if l == "marked" || l == FLAGSHIP_FAMILY {
                    Family::parse(&l)
                } else if let Some(f) = c
                    .families
                    .iter()
                    .find(|f| f.contains(l.as_str()) && !l.is_empty())
                {
                    Family::Named(f.clone())
                } else {
                    return Err(format!(
                        "no family {t:?}; use marked, {FLAGSHIP_FAMILY} or one of {}",
                        c.families.join(", ")
                    ));
                }
            }
            Knob::Qps => {
                let q = count(t)?;
                if !(q > 0.0 && q <= 1e9) {
                    return Err("requests/s must be greater than zero".into());
                }
                v.qps = q;
            }
            Knob::TtftSla | Knob::ItlSla => {
                let s = units::parse(t, Kind::Time).map_err(|e| e.to_string())?;
                if s <= 0.0 {
                    return Err(format!("{} must be greater than zero", self.label()));
                }
                if self == Knob::TtftSla {
                    v.ttft_s = s;
                } else {
                    v.itl_s = s;
                }
            }
            Knob::Regions => {
                let mut list: Vec<String> = t
                    .split(|ch: char| ch == ',' || ch.is_whitespace())
                    .filter(|s| !s.is_empty())
                    .map(|r| region(r, c))
                    .collect::<Result<Vec<_>, _>>()?;
                // A region named twice is one region (the value shown after
                // says so), as on the command line.
                let mut seen = std::collections::HashSet::new();
                list.retain(|r| seen.insert(r.clone()));
                if list.is_empty() {
                    return Err("name at least one region".into());
                }
                if v.shares.len() != list.len() {
                    v.shares.clear();
                }
                v.regions = list;
            }
            Knob::Budget => {
                v.budget = if t.eq_ignore_ascii_case("none") || t.is_empty() {
                    None
                } else {
                    let b = count(t.trim_start_matches('$'))?;
                    if b <= 0.0 {
                        return Err("a budget must be greater than zero (or none)".into());
                    }
                    Some(b)
                }
            }
            k if serving_modes::covers(k) => {
                v.serve = serving_modes::parse(k, t, &v.serve, &c.drafts)?
            }
            k if explore::covers(k) => v.explore = explore::parse(k, t, &v.explore)?,
            k if fleet::covers(k) => fleet::parse(k, t, &mut v)?,
            k => v.train = training::parse(k, t, &v.train)?,
        }
        Ok(Inputs { wl, a, v, profile })
    }
}

/// What the precision knob shows when weights, activations and KV differ.
pub const MIXED: &str = "mixed";

/// The one format of weights, activations and KV cache, if they agree.
pub fn uniform_precision(wl: &Workload) -> Option<Precision> {
    (wl.weights == wl.activations && wl.weights == wl.kv).then_some(wl.weights)
}

/// The Explore view's knobs: its own, then the request and the
/// assumptions its configurations are evaluated under.
const EXPLORE_KNOBS: [Knob; 17] = [
    Knob::ExploreX,
    Knob::ExploreY,
    Knob::ExploreHardware,
    Knob::ExplorePrecisions,
    Knob::ExploreTp,
    Knob::ExplorePp,
    Knob::ExploreBatch,
    Knob::ExploreTtft,
    Knob::ExploreItl,
    Knob::ExploreInfeasible,
    Knob::Prompt,
    Knob::Output,
    Knob::Profile,
    Knob::ComputeEff,
    Knob::MemoryEff,
    Knob::Overhead,
    Knob::KernelTime,
];

/// The Training view's knobs: its own, then the region of its carbon, the
/// number format, the assumptions it shares with the other views and its
/// own assumptions.
const TRAINING_KNOBS: [Knob; 39] = [
    Knob::Devices,
    Knob::Dp,
    Knob::TrainTp,
    Knob::TrainPp,
    Knob::Interleave,
    Knob::Ep,
    Knob::Cp,
    Knob::Zero,
    Knob::Recompute,
    Knob::Attention,
    Knob::Offload,
    Knob::EdgeLayers,
    Knob::Contiguous,
    Knob::Optimizer,
    Knob::GlobalBatch,
    Knob::MicroBatch,
    Knob::Seq,
    Knob::Tokens,
    Knob::Region,
    Knob::Precision,
    Knob::Profile,
    Knob::ComputeEff,
    Knob::MemoryEff,
    Knob::Overhead,
    Knob::DpOverlap,
    Knob::TpOverlap,
    Knob::EpOverlap,
    Knob::CpOverlap,
    Knob::OverlapSlowdown,
    Knob::AttentionEff,
    Knob::MatmulCeiling,
    Knob::CrossEntropy,
    Knob::Fp8Storage,
    Knob::GradPrecision,
    Knob::AllocatorOverhead,
    Knob::MoeTokenTime,
    Knob::Mtbf,
    Knob::CheckpointBw,
    Knob::Restart,
];

impl Knob {
    /// A knob of the training run (knobs/training.rs).
    pub fn is_training(self) -> bool {
        use Knob::*;
        matches!(
            self,
            Devices
                | Dp
                | TrainTp
                | TrainPp
                | Interleave
                | Ep
                | Cp
                | Zero
                | Recompute
                | Attention
                | Offload
                | EdgeLayers
                | Contiguous
                | GlobalBatch
                | MicroBatch
                | Seq
                | Tokens
        ) || train_assume::covers(self)
    }

    /// Whether the knob changes anything for the model. Phase, context and
    /// KV cache belong to decoders; a single-pass model (a CNN, an encoder)
    /// runs one forward pass with no cache, so they do not apply to it.
    pub fn applies(self, words: Words) -> bool {
        !(words.single_pass() && matches!(self, Knob::Phase | Knob::Context | Knob::Kv))
    }

    /// Why the knob does nothing for `model`, or None when it applies.
    pub fn not_applicable(self, model: &ModelEntry) -> Option<String> {
        (!self.applies(Words::for_model(model))).then(|| {
            format!(
                "{} does not apply to {}: one forward pass per sample, no decode, no KV cache",
                self.label(),
                model.model.name
            )
        })
    }
}

/// A catalog region id, checked.
fn region(t: &str, c: &Choices) -> Result<String, String> {
    let l = t.trim().to_ascii_lowercase();
    if c.regions.contains(&l) {
        Ok(l)
    } else {
        Err(format!(
            "no region {t:?}; use one of {}",
            c.regions.join(", ")
        ))
    }
}

/// A whole number as typed: "4096", "1"; a fractional value keeps 3 digits.
fn whole(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        units::format_number(x)
    }
}

mod explore;
mod fleet;
pub use fleet::precisions as fleet_precisions;
mod profile;
pub mod serving_modes;
#[cfg(test)]
mod tests;
mod train_assume;
pub mod training;
