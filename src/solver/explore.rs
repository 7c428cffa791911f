//! The design space of serving a decoder: every combination of device,
//! precision, tensor and pipeline degree, batch, prompt and output length,
//! each evaluated as [`super::serving`] does (TTFT from a batch-1 prefill,
//! ITL from a decode step of the batch at the mean context), checked
//! against the constraints, and the Pareto front of the feasible ones on
//! two or three objectives.
//!
//! Throughput counts the prefill its prompts need, as a fleet is sized
//! ([`super::serving::replica_capacity`]): a replica of B sequences
//! completes 1 / (TTFT + (O - 1) ITL / B) requests a second, each of O
//! output tokens, so B O output tokens take B TTFT + (O - 1) ITL. Its cost
//! and energy per token are over that rate too.
//!
//! A configuration is feasible when its layout is valid (TP splits the
//! heads, the links exist), its batch holds at full context (prompt +
//! output) in usable memory, and it meets every constraint given. The
//! front holds every feasible configuration no other feasible one
//! dominates (at least as good on every objective and better on one);
//! of configurations equal on every objective, the first stays.

use super::cost;
use super::economics;
use super::error::{Result, SolverError};
use super::fit;
use super::roofline::time_step;
use super::serving::replica_capacity;
pub use super::types::Precisions;
use super::types::{Arch, Assumptions, Hardware, Model, Phase, Workload};
use super::validation::{validate_assumptions, validate_hardware, validate_model};
use std::ops::ControlFlow;

/// What to compare configurations on. Each is minimised, but throughput,
/// which is maximised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Objective {
    Itl,
    Ttft,
    TokensPerDevice,
    Cost,
    Energy,
    Devices,
}

impl Objective {
    pub const ALL: [Objective; 6] = [
        Objective::Itl,
        Objective::Ttft,
        Objective::TokensPerDevice,
        Objective::Cost,
        Objective::Energy,
        Objective::Devices,
    ];
    /// The name on the command line and in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Itl => "itl",
            Objective::Ttft => "ttft",
            Objective::TokensPerDevice => "throughput",
            Objective::Cost => "cost",
            Objective::Energy => "energy",
            Objective::Devices => "devices",
        }
    }
    /// The JSON key of its value.
    pub fn key(self) -> &'static str {
        match self {
            Objective::Itl => "itl_s",
            Objective::Ttft => "ttft_s",
            Objective::TokensPerDevice => "output_tokens_per_s_per_device_with_prefill",
            Objective::Cost => "cost_per_million_tokens_usd",
            Objective::Energy => "energy_per_token_j",
            Objective::Devices => "devices",
        }
    }
    pub fn parse(s: &str) -> Option<Objective> {
        let s = s.trim().to_ascii_lowercase();
        Objective::ALL.into_iter().find(|o| o.name() == s)
    }
    /// The name of its axis on a plot, and which way is better.
    pub fn axis_title(self) -> &'static str {
        match self {
            Objective::Itl => "ITL (time per token, lower is better)",
            Objective::Ttft => "TTFT (time to first token, lower is better)",
            Objective::TokensPerDevice => {
                "output tok/s per device, prefill counted (higher is better)"
            }
            Objective::Cost => "$ per million tokens (lower is better)",
            Objective::Energy => "J per token (lower is better)",
            Objective::Devices => "devices (fewer is better)",
        }
    }
    pub fn maximise(self) -> bool {
        self == Objective::TokensPerDevice
    }
    /// The objective's value of `f`, None when unknown (no price, no TDP).
    pub fn value(self, f: &Figures) -> Option<f64> {
        match self {
            Objective::Itl => Some(f.itl_s),
            Objective::Ttft => Some(f.ttft_s),
            Objective::TokensPerDevice => Some(f.output_tokens_per_s_per_device),
            Objective::Cost => f.cost_per_million_tokens_usd,
            Objective::Energy => f.energy_per_token_j,
            Objective::Devices => Some(f.devices as f64),
        }
    }
    /// The value as minimised: throughput negated.
    fn minimised(self, f: &Figures) -> Option<f64> {
        self.value(f).map(|v| if self.maximise() { -v } else { v })
    }
}

/// The axes of the space: every combination is one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Axes {
    pub hardware: Vec<Hardware>,
    pub precisions: Vec<Precisions>,
    pub tp: Vec<u32>,
    pub pp: Vec<u32>,
    pub batch: Vec<f64>,
    pub prompt: Vec<f64>,
    pub output: Vec<f64>,
}

impl Axes {
    /// How many configurations the axes span (saturating: a product past
    /// `usize::MAX` is over any cap all the same).
    pub fn size(&self) -> usize {
        [
            self.hardware.len(),
            self.precisions.len(),
            self.tp.len(),
            self.pp.len(),
            self.batch.len(),
            self.prompt.len(),
            self.output.len(),
        ]
        .iter()
        .fold(1usize, |n, &l| n.saturating_mul(l))
    }
}

/// Constraints a feasible configuration meets (None = no limit).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Limits {
    pub ttft_s: Option<f64>,
    pub itl_s: Option<f64>,
    pub tokens_per_s_per_user: Option<f64>,
    /// Cost per hour of the configuration's devices, USD.
    pub budget_per_hour_usd: Option<f64>,
}

/// One configuration: indices into the axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub hardware: usize,
    pub precisions: usize,
    pub tp: u32,
    pub pp: u32,
    pub batch: usize,
    pub prompt: usize,
    pub output: usize,
}

/// A configuration's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    pub ttft_s: f64,
    pub itl_s: f64,
    /// Output tokens per second of the replica with the prefill of every
    /// prompt counted, per device: O x `serving::replica_capacity`, that
    /// is B O / (B TTFT + (O - 1) ITL), over TP x PP devices.
    pub output_tokens_per_s_per_device: f64,
    pub tokens_per_s_per_user: f64,
    pub cost_per_hour_usd: Option<f64>,
    pub cost_per_million_tokens_usd: Option<f64>,
    /// Power at full load over the output tokens per second above.
    pub energy_per_token_j: Option<f64>,
    pub devices: u32,
}

/// Why a configuration is out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Feasible,
    /// The layout cannot run: TP does not split the heads, a link is
    /// missing, more stages than layers, or no peak for the math.
    Invalid,
    /// The batch does not hold at full context.
    DoesNotFit,
    /// Over the TTFT, ITL, per-user rate or budget limit.
    MissesLimit,
    /// Feasible, but a chosen objective has no value (a device without a
    /// price on a cost objective, without a TDP on energy).
    Unknown,
}

/// One evaluated configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub config: Config,
    pub figures: Option<Figures>,
    pub verdict: Verdict,
}

/// What [`explore`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Exploration {
    pub objectives: Vec<Objective>,
    /// Every configuration evaluated, in axis order.
    pub points: Vec<Point>,
    pub evaluated: usize,
    /// Feasible with a value on every objective.
    pub feasible: usize,
    /// Indices into `points` of the front, ordered by the first objective.
    pub front: Vec<usize>,
}

/// The most configurations one exploration evaluates. At about 1.3
/// million configurations a second on one core (release build, 2-core
/// machine; docs/commands/explore.md has the measurement) a full space
/// takes seconds, and streamed (`explore --all`) it holds only the front
/// in memory; more is a typo in a range.
pub const MAX_CONFIGS: usize = 10_000_000;

/// What a streamed exploration ([`explore_each`]) keeps: the counts and
/// the front, never every point.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub objectives: Vec<Objective>,
    /// Configurations evaluated (every one, unless the caller stopped).
    pub evaluated: usize,
    /// Feasible with a value on every objective.
    pub feasible: usize,
    /// The front: each point with its index in axis order, ordered by the
    /// first objective.
    pub front: Vec<(usize, Point)>,
}

/// The front of the points seen so far, kept as they come: a point no kept
/// one dominates or equals joins, and drops those it dominates. Over the
/// same points it is the set [`pareto_front`] finds (dominance is
/// transitive, and of equal points the first seen stays).
struct RunningFront {
    k: usize,
    kept: Vec<(usize, Point, [f64; 3])>,
}

impl RunningFront {
    fn offer(&mut self, i: usize, p: Point, v: [f64; 3]) {
        let k = self.k;
        if self
            .kept
            .iter()
            .any(|(_, _, f)| dominates(f, &v, k) || f[..k] == v[..k])
        {
            return;
        }
        self.kept.retain(|(_, _, f)| !dominates(&v, f, k));
        self.kept.push((i, p, v));
    }

    /// The front ordered by the first value, then the next, then index.
    fn finish(mut self) -> Vec<(usize, Point)> {
        let k = self.k;
        self.kept.sort_by(|(i, _, x), (j, _, y)| {
            x[..k]
                .iter()
                .zip(&y[..k])
                .map(|(a, b)| a.total_cmp(b))
                .find(|o| o.is_ne())
                .unwrap_or(i.cmp(j))
        });
        self.kept.into_iter().map(|(i, p, _)| (i, p)).collect()
    }
}

/// Evaluate every configuration of `axes` for `model` and find the front
/// on `objectives` (one to three, no repeats), keeping every point in
/// memory: for a space the caller keeps small (the workbench's view takes
/// at most 100,000); [`explore_each`] keeps none.
pub fn explore(
    model: &Model,
    axes: &Axes,
    limits: &Limits,
    objectives: &[Objective],
    a: &Assumptions,
    idle_share: f64,
) -> Result<Exploration> {
    // Grown as points come: never sized by the axes before they are checked.
    let mut points = Vec::new();
    let s = explore_each(model, axes, limits, objectives, a, idle_share, |_, p| {
        points.push(*p);
        ControlFlow::Continue(())
    })?;
    Ok(Exploration {
        objectives: s.objectives,
        evaluated: s.evaluated,
        feasible: s.feasible,
        points,
        front: s.front.into_iter().map(|(i, _)| i).collect(),
    })
}

/// Check the inputs of an exploration: the model a decoder, one to three
/// objectives without repeats, every axis with a value and at most
/// [`MAX_CONFIGS`] configurations in all, each value in range.
pub fn check(model: &Model, axes: &Axes, objectives: &[Objective], a: &Assumptions) -> Result<()> {
    validate_model(model)?;
    validate_assumptions(a)?;
    if !matches!(model.arch, Arch::Decoder(_)) {
        return Err(SolverError::Unsupported(format!(
            "{} is a single-pass model: exploring serving configurations needs a decoder",
            model.id
        )));
    }
    if objectives.is_empty() || objectives.len() > 3 {
        return Err(SolverError::Unsupported(format!(
            "explore compares on one to three objectives, not {}",
            objectives.len()
        )));
    }
    for (i, o) in objectives.iter().enumerate() {
        if objectives[..i].contains(o) {
            return Err(SolverError::Unsupported(format!(
                "objective {} is named twice",
                o.name()
            )));
        }
    }
    let size = axes.size();
    if size == 0 {
        return Err(SolverError::Unsupported(
            "an axis is empty: each needs at least one value".into(),
        ));
    }
    if size > MAX_CONFIGS {
        return Err(SolverError::Unsupported(format!(
            "{size} configurations: more than {MAX_CONFIGS}, the most one exploration evaluates; narrow an axis"
        )));
    }
    for hw in &axes.hardware {
        validate_hardware(hw)?;
    }
    for (what, values) in [
        ("batch", &axes.batch),
        ("prompt", &axes.prompt),
        ("output", &axes.output),
    ] {
        if let Some(v) = values
            .iter()
            .find(|v| !(v.is_finite() && **v >= 1.0 && **v <= 1e9))
        {
            return Err(SolverError::Unsupported(format!(
                "a {what} of {v}: each must be a number from 1 to 1e9"
            )));
        }
    }
    if axes.tp.iter().chain(&axes.pp).any(|&d| d == 0) {
        return Err(SolverError::Unsupported(
            "a TP or PP degree of 0: each must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Evaluate every configuration of `axes` in axis order, handing each to
/// `each` with its index as it is judged, and keep only the counts and
/// the front. `each` may stop the run early (`ControlFlow::Break`); the
/// summary then covers the points handed over.
pub fn explore_each(
    model: &Model,
    axes: &Axes,
    limits: &Limits,
    objectives: &[Objective],
    a: &Assumptions,
    idle_share: f64,
    mut each: impl FnMut(usize, &Point) -> ControlFlow<()>,
) -> Result<Summary> {
    check(model, axes, objectives, a)?;
    let mut front = RunningFront {
        k: objectives.len(),
        kept: Vec::new(),
    };
    let (mut evaluated, mut feasible) = (0usize, 0usize);
    'all: for (h, hw) in axes.hardware.iter().enumerate() {
        for (p, prec) in axes.precisions.iter().enumerate() {
            for &tp in &axes.tp {
                for &pp in &axes.pp {
                    let layout_ok = layout_runs(hw, model, tp, pp);
                    for (b, &batch) in axes.batch.iter().enumerate() {
                        for (i, &prompt) in axes.prompt.iter().enumerate() {
                            for (o, &output) in axes.output.iter().enumerate() {
                                let config = Config {
                                    hardware: h,
                                    precisions: p,
                                    tp,
                                    pp,
                                    batch: b,
                                    prompt: i,
                                    output: o,
                                };
                                let (verdict, figures) = if layout_ok {
                                    judge(
                                        hw, model, prec, tp, pp, batch, prompt, output, limits,
                                        objectives, a, idle_share,
                                    )
                                } else {
                                    (Verdict::Invalid, None)
                                };
                                let point = Point {
                                    config,
                                    figures,
                                    verdict,
                                };
                                let index = evaluated;
                                evaluated += 1;
                                if verdict == Verdict::Feasible {
                                    feasible += 1;
                                    let v = minimised(objectives, figures.as_ref());
                                    front.offer(index, point, v);
                                }
                                if each(index, &point).is_break() {
                                    break 'all;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(Summary {
        objectives: objectives.to_vec(),
        evaluated,
        feasible,
        front: front.finish(),
    })
}

/// The objectives of a feasible point as minimised values (unused slots 0).
fn minimised(objectives: &[Objective], f: Option<&Figures>) -> [f64; 3] {
    let mut v = [0.0; 3];
    if let Some(f) = f {
        for (slot, o) in v.iter_mut().zip(objectives) {
            *slot = o.minimised(f).unwrap_or(f64::INFINITY);
        }
    }
    v
}

/// Whether a layout can run at all on this device for this model.
fn layout_runs(hw: &Hardware, model: &Model, tp: u32, pp: u32) -> bool {
    let Arch::Decoder(d) = &model.arch else {
        return false;
    };
    tp >= 1
        && pp >= 1
        && pp <= d.layers
        && tp <= hw.devices_per_node.max(1)
        && fit::tp_splits(model, tp)
        && fit::linked(hw, model, tp, pp)
}

/// Figures and verdict of one configuration whose layout runs.
#[allow(clippy::too_many_arguments)]
fn judge(
    hw: &Hardware,
    model: &Model,
    prec: &Precisions,
    tp: u32,
    pp: u32,
    batch: f64,
    prompt: f64,
    output: f64,
    limits: &Limits,
    objectives: &[Objective],
    a: &Assumptions,
    idle_share: f64,
) -> (Verdict, Option<Figures>) {
    let base = Workload {
        phase: Phase::Decode,
        batch,
        context: prompt + output,
        weights: prec.weights,
        activations: prec.activations,
        kv: prec.kv,
        tp,
        pp,
    };
    // What a replica holds: the batch at full context.
    if cost::footprint(model, &base).total() > hw.memory_bytes * a.usable_memory {
        return (Verdict::DoesNotFit, None);
    }
    let prefill = Workload {
        phase: Phase::Prefill,
        batch: 1.0,
        context: prompt,
        ..base
    };
    let decode = Workload {
        context: prompt + output / 2.0,
        ..base
    };
    let (Ok(p), Ok(d)) = (
        time_step(hw, model, &prefill, a),
        time_step(hw, model, &decode, a),
    ) else {
        return (Verdict::Invalid, None);
    };
    let devices = tp * pp;
    // Output tokens/s of the replica, its prompts' prefill counted: the
    // requests/s a fleet sizes replicas by, O tokens each.
    let tokens_per_s = output * replica_capacity(p.latency_s, d.latency_s, batch, output);
    let e = economics::economics(hw, devices, tokens_per_s, 1.0, idle_share);
    let f = Figures {
        ttft_s: p.latency_s,
        itl_s: d.latency_s,
        output_tokens_per_s_per_device: tokens_per_s / devices as f64,
        tokens_per_s_per_user: 1.0 / d.latency_s,
        cost_per_hour_usd: e.cost_per_hour_usd,
        cost_per_million_tokens_usd: e.cost_per_million_tokens_usd,
        energy_per_token_j: e.energy_per_token_j,
        devices,
    };
    let over = |limit: Option<f64>, v: f64| limit.is_some_and(|l| v > l);
    let misses = over(limits.ttft_s, f.ttft_s)
        || over(limits.itl_s, f.itl_s)
        || limits
            .tokens_per_s_per_user
            .is_some_and(|l| f.tokens_per_s_per_user < l)
        || limits
            .budget_per_hour_usd
            .is_some_and(|l| f.cost_per_hour_usd.is_none_or(|c| c > l));
    let verdict = if misses {
        Verdict::MissesLimit
    } else if objectives.iter().any(|o| o.value(&f).is_none()) {
        Verdict::Unknown
    } else {
        Verdict::Feasible
    };
    (verdict, Some(f))
}

/// Whether `a` dominates `b` on the first `k` (minimised) values: no worse
/// on any, better on one.
pub fn dominates(a: &[f64; 3], b: &[f64; 3], k: usize) -> bool {
    let mut better = false;
    for i in 0..k {
        if a[i] > b[i] {
            return false;
        }
        if a[i] < b[i] {
            better = true;
        }
    }
    better
}

/// Indices of the non-dominated values (the first `k` of each minimised),
/// ordered by the first value; of equal values the first stays. Sorted
/// lexicographically, no later value can dominate an earlier one, so each
/// is checked once against the front so far: O(n log n + n * front).
pub fn pareto_front(values: &[[f64; 3]], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&x, &y| {
        values[x][..k]
            .iter()
            .zip(&values[y][..k])
            .map(|(a, b)| a.total_cmp(b))
            .find(|o| o.is_ne())
            .unwrap_or(x.cmp(&y))
    });
    let mut front: Vec<usize> = Vec::new();
    for i in order {
        let v = &values[i];
        let kept = front
            .iter()
            .any(|&f| dominates(&values[f], v, k) || values[f][..k] == v[..k]);
        if !kept {
            front.push(i);
        }
    }
    front
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Precision;
    use crate::solver::tests::{a100, llama8, llama70};
    use proptest::prelude::*;

    fn axes(hw: Vec<Hardware>) -> Axes {
        Axes {
            hardware: hw,
            precisions: vec![
                Precisions::named(Precision::Bf16),
                Precisions::named(Precision::Int4),
            ],
            tp: vec![1, 2, 4, 8],
            pp: vec![1, 2],
            batch: vec![1.0, 4.0, 16.0, 64.0, 256.0],
            prompt: vec![2048.0],
            output: vec![256.0],
        }
    }

    #[test]
    fn throughput_counts_the_prefill_of_every_prompt_by_hand() {
        // Llama-3.1-8B in bf16 on one ideal A100 (312 TFLOP/s, 2.039 TB/s,
        // no overheads), B = 4 sequences, P = 2048 prompt tokens, O = 256
        // output tokens.
        //
        // Prefill of one prompt (batch 1, S = 2048): params without the
        // input embedding 8.03e9 - 128,256 * 4,096 = 7,504,663,424;
        // FLOPs 2 * 7,504,663,424 * 2048 + causal attention
        // 2 * 32 layers * 32 heads * 128 * 2048^2 = 30,739,101,384,704 +
        // 1,099,511,627,776 = 31,838,613,012,480, at 312e12 = 102.047 ms;
        // its bytes (15.0 GB of weights, 0.27 GB of KV written) take
        // about 7.5 ms: compute-bound, TTFT = 102.047 ms.
        //
        // A decode step of 4 at the mean context 2048 + 128 = 2176:
        // weights 7,504,663,424 * 2 B = 15,009,326,848 B; KV read
        // 4 * 2176 * 131,072 B = 1,140,850,688 B; activations
        // 32 * 4 * (8 * 4096 + 2 * 14,336) * 2 B = 15,728,640 B; in all
        // 16,165,906,176 B at 2.039e12 B/s = 7.9284 ms. Its FLOPs, about
        // 65 GFLOP, take 0.2 ms: memory-bound, ITL = 7.9284 ms.
        //
        // Four requests take 4 prefills and the 255 decode steps after
        // their first tokens: 4 * 102.047 + 255 * 7.9284 = 408.19 + 2021.73
        // = 2429.92 ms for 4 * 256 = 1024 output tokens: 421.4 tok/s on one
        // device. Decode alone would claim 4 / 7.9284 ms = 504.5 tok/s.
        let ttft = 31_838_613_012_480.0 / 312e12;
        let itl = 16_165_906_176.0 / 2.039e12;
        let axes = Axes {
            hardware: vec![a100()],
            precisions: vec![Precisions::named(Precision::Bf16)],
            tp: vec![1],
            pp: vec![1],
            batch: vec![4.0],
            prompt: vec![2048.0],
            output: vec![256.0],
        };
        let x = explore(
            &llama8(),
            &axes,
            &Limits::default(),
            &[Objective::Itl, Objective::TokensPerDevice],
            &Assumptions::ideal(),
            0.3,
        )
        .unwrap();
        let f = x.points[0].figures.unwrap();
        assert!((f.ttft_s / ttft - 1.0).abs() < 1e-9, "{}", f.ttft_s);
        assert!((f.itl_s / itl - 1.0).abs() < 1e-9, "{}", f.itl_s);
        let by_hand = 1024.0 / (4.0 * ttft + 255.0 * itl);
        assert!((f.output_tokens_per_s_per_device / by_hand - 1.0).abs() < 1e-9);
        assert!((f.output_tokens_per_s_per_device - 421.4).abs() < 0.05);
        // The A100's $2/hour over that rate: 2 / (421.4 * 3600) * 1e6.
        let cost = 2.0 / (by_hand * 3600.0) * 1e6;
        assert!((f.cost_per_million_tokens_usd.unwrap() / cost - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_small_front_by_hand() {
        // Minimise both: (1, 5) (2, 2) (3, 1) are the front; (2, 3) is
        // dominated by (2, 2), (4, 4) by all, and the second (2, 2) is equal
        // to the first, which stays.
        let v = [
            [2.0, 3.0, 0.0],
            [1.0, 5.0, 0.0],
            [4.0, 4.0, 0.0],
            [2.0, 2.0, 0.0],
            [3.0, 1.0, 0.0],
            [2.0, 2.0, 0.0],
        ];
        assert_eq!(pareto_front(&v, 2), vec![1, 3, 4]);
        // On the first value alone, the one minimum.
        assert_eq!(pareto_front(&v, 1), vec![1]);
    }

    proptest! {
        #[test]
        fn the_front_is_exactly_the_non_dominated_points(
            raw in prop::collection::vec((0u8..8, 0u8..8, 0u8..8), 1..60),
            k in 1usize..=3,
        ) {
            let v: Vec<[f64; 3]> =
                raw.iter().map(|&(a, b, c)| [a as f64, b as f64, c as f64]).collect();
            let front = pareto_front(&v, k);
            // No front point is dominated by any point.
            for &f in &front {
                prop_assert!(!v.iter().any(|x| dominates(x, &v[f], k)));
            }
            // Every point is dominated by or equal to a front point.
            for x in &v {
                prop_assert!(front
                    .iter()
                    .any(|&f| dominates(&v[f], x, k) || v[f][..k] == x[..k]));
            }
            // No two front points are equal.
            for (i, &f) in front.iter().enumerate() {
                for &g in &front[i + 1..] {
                    prop_assert!(v[f][..k] != v[g][..k]);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn the_running_front_is_the_front_of_every_point(
            raw in prop::collection::vec((0u8..8, 0u8..8, 0u8..8), 1..60),
            k in 1usize..=3,
        ) {
            // Streamed in index order, the front kept as points come is the
            // one pareto_front finds over them all, in the same order.
            let v: Vec<[f64; 3]> =
                raw.iter().map(|&(a, b, c)| [a as f64, b as f64, c as f64]).collect();
            let point = Point {
                config: Config {
                    hardware: 0,
                    precisions: 0,
                    tp: 1,
                    pp: 1,
                    batch: 0,
                    prompt: 0,
                    output: 0,
                },
                figures: None,
                verdict: Verdict::Feasible,
            };
            let mut running = RunningFront { k, kept: Vec::new() };
            for (i, x) in v.iter().enumerate() {
                running.offer(i, point, *x);
            }
            let got: Vec<usize> = running.finish().into_iter().map(|(i, _)| i).collect();
            prop_assert_eq!(got, pareto_front(&v, k));
        }
    }

    #[test]
    fn a_streamed_run_hands_over_every_point_and_keeps_the_same_front() {
        let ax = axes(vec![a100()]);
        let objectives = [Objective::Itl, Objective::Cost];
        let a = Assumptions::default();
        let whole = explore(&llama8(), &ax, &Limits::default(), &objectives, &a, 0.3).unwrap();
        let mut seen = Vec::new();
        let s = explore_each(
            &llama8(),
            &ax,
            &Limits::default(),
            &objectives,
            &a,
            0.3,
            |i, p| {
                seen.push((i, *p));
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        // 1 device x 2 precisions x 4 TP x 2 PP x 5 batches = 80, in order.
        assert_eq!(seen.len(), 80);
        assert!(seen.iter().enumerate().all(|(n, (i, _))| n == *i));
        assert_eq!(
            seen.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
            whole.points
        );
        assert_eq!((s.evaluated, s.feasible), (whole.evaluated, whole.feasible));
        let front: Vec<usize> = s.front.iter().map(|(i, _)| *i).collect();
        assert_eq!(front, whole.front);
        assert!(s.front.iter().all(|(i, p)| whole.points[*i] == *p));
        // A caller that stops after three points stops the run there.
        let mut n = 0;
        let s = explore_each(
            &llama8(),
            &ax,
            &Limits::default(),
            &objectives,
            &a,
            0.3,
            |_, _| {
                n += 1;
                if n == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )
        .unwrap();
        assert_eq!((n, s.evaluated), (3, 3));
    }

    #[test]
    fn a_space_over_the_cap_is_refused_before_anything_is_evaluated() {
        // 2 precisions x 4 TP x 2 PP x 5 batches = 80 per device; 125,000
        // copies of the device make 10,000,000 (the cap, accepted), 125,001
        // make 80 more.
        let at_cap = axes(vec![a100(); 125_000]);
        assert_eq!(at_cap.size(), MAX_CONFIGS);
        let objectives = [Objective::Itl];
        let a = Assumptions::default();
        assert!(check(&llama8(), &at_cap, &objectives, &a).is_ok());
        let over = axes(vec![a100(); 125_001]);
        let e = check(&llama8(), &over, &objectives, &a).unwrap_err();
        assert!(
            e.to_string()
                .contains("10000080 configurations: more than 10000000"),
            "{e}"
        );
        // Axes whose product overflows usize saturate, and are refused.
        let mut huge = axes(vec![a100()]);
        huge.batch = vec![1.0; 1 << 20];
        huge.prompt = vec![1.0; 1 << 20];
        huge.output = vec![1.0; 1 << 20];
        huge.tp = vec![1; 1 << 20];
        assert_eq!(huge.size(), usize::MAX);
        assert!(check(&llama8(), &huge, &objectives, &a).is_err());
    }

    #[test]
    fn the_front_of_a_real_space_is_not_dominated_by_any_feasible_point() {
        let mut h100 = a100();
        h100.id = "faster".into();
        h100.memory_bandwidth *= 1.6;
        h100.price_per_hour_usd = Some(4.0);
        let mut cheap = a100();
        cheap.price_per_hour_usd = Some(2.0);
        let ax = axes(vec![cheap, h100]);
        let objs = [Objective::Itl, Objective::Cost];
        let x = explore(
            &llama70(),
            &ax,
            &Limits::default(),
            &objs,
            &Assumptions::default(),
            0.3,
        )
        .unwrap();
        // 2 devices x 2 precisions x 4 TP x 2 PP x 5 batches.
        assert_eq!(x.evaluated, 160);
        assert!(x.feasible > 0 && x.feasible < x.evaluated);
        let value = |i: usize| minimised(&objs, x.points[i].figures.as_ref());
        let feasible: Vec<usize> = (0..x.points.len())
            .filter(|&i| x.points[i].verdict == Verdict::Feasible)
            .collect();
        for &f in &x.front {
            assert_eq!(x.points[f].verdict, Verdict::Feasible);
            assert!(!feasible.iter().any(|&i| dominates(&value(i), &value(f), 2)));
        }
        for &i in &feasible {
            assert!(
                x.front
                    .iter()
                    .any(|&f| dominates(&value(f), &value(i), 2) || value(f)[..2] == value(i)[..2])
            );
        }
        // bf16 70B (141 GB) does not fit on one 80 GB A100.
        let one = x
            .points
            .iter()
            .find(|p| p.config.tp == 1 && p.config.pp == 1 && p.config.precisions == 0)
            .unwrap();
        assert_eq!(one.verdict, Verdict::DoesNotFit);
    }

    #[test]
    fn limits_and_missing_prices_take_points_out() {
        let mut priced = a100();
        priced.price_per_hour_usd = Some(2.0);
        let ax = Axes {
            hardware: vec![priced.clone()],
            precisions: vec![Precisions::named(Precision::Bf16)],
            tp: vec![1],
            pp: vec![1],
            batch: vec![1.0],
            prompt: vec![512.0],
            output: vec![128.0],
        };
        let m = llama8();
        let a = Assumptions::default();
        let run = |ax: &Axes, l: Limits, o: &[Objective]| {
            explore(&m, ax, &l, o, &a, 0.3).unwrap().points[0].verdict
        };
        let objs = [Objective::Itl, Objective::Cost];
        assert_eq!(run(&ax, Limits::default(), &objs), Verdict::Feasible);
        // Llama-3.1-8B bf16 decode on an A100 streams ~16 GB at 0.7 x 2.04
        // TB/s: over 10 ms a token, so a 5 ms ITL limit excludes it.
        let tight = Limits {
            itl_s: Some(5e-3),
            ..Limits::default()
        };
        assert_eq!(run(&ax, tight, &objs), Verdict::MissesLimit);
        // One device at $2/h is over a $1/h budget.
        let poor = Limits {
            budget_per_hour_usd: Some(1.0),
            ..Limits::default()
        };
        assert_eq!(run(&ax, poor, &objs), Verdict::MissesLimit);
        // Without a price, cost is unknown: not on a cost front, fine on ITL.
        let mut unpriced = ax.clone();
        unpriced.hardware[0].price_per_hour_usd = None;
        assert_eq!(run(&unpriced, Limits::default(), &objs), Verdict::Unknown);
        assert_eq!(
            run(&unpriced, Limits::default(), &[Objective::Itl]),
            Verdict::Feasible
        );
    }

    #[test]
    fn bad_requests_are_refused_with_the_reason() {
        let ax = axes(vec![a100()]);
        let a = Assumptions::default();
        let m = llama8();
        let e = explore(&m, &ax, &Limits::default(), &[], &a, 0.3).unwrap_err();
        assert!(e.to_string().contains("one to three"), "{e}");
        let two = [Objective::Itl, Objective::Itl];
        let e = explore(&m, &ax, &Limits::default(), &two, &a, 0.3).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
        let mut zero = ax.clone();
        zero.batch = vec![0.0];
        let e = explore(&m, &zero, &Limits::default(), &[Objective::Itl], &a, 0.3).unwrap_err();
        assert!(e.to_string().contains("batch of 0"), "{e}");
        let mut nan = ax.clone();
        nan.prompt = vec![f64::NAN];
        assert!(explore(&m, &nan, &Limits::default(), &[Objective::Itl], &a, 0.3).is_err());
        let mut empty = ax.clone();
        empty.batch.clear();
        let e = explore(&m, &empty, &Limits::default(), &[Objective::Itl], &a, 0.3).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }
}
