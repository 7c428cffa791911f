//! Comparisons told truthfully: one workload on several devices (GPU
//! generations, marked devices, `ridgeline compare`).
//!
//! Every device gets the same fit [`Verdict`]. A configuration that does not
//! fit is not an answer: it gets no speedup and no cost as if it ran, only
//! the fewest devices that would hold it and the cost at that count. Devices
//! that fit get a speedup over a baseline (T_baseline / T), and a
//! [`Because`] naming the ratio of hardware figures that produced it.

use super::economics;
use super::error::Result;
use super::roofline::{self, Bottleneck, Evaluation, Parallelism};
use super::types::{Assumptions, Hardware, Model, Precision, Workload};
use super::units;

/// Whether a configuration runs: the one verdict every screen and table
/// shows, in the same words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Fits,
    /// Does not fit as laid out; this layout is the fewest devices that
    /// hold it.
    Needs(Parallelism),
    /// No layout of up to 4096 pipeline stages holds it.
    Never,
}

impl Verdict {
    pub fn of(e: &Evaluation) -> Verdict {
        if e.memory.fits {
            Verdict::Fits
        } else {
            match e.min_devices {
                Some(p) => Verdict::Needs(p),
                None => Verdict::Never,
            }
        }
    }

    pub fn fits(self) -> bool {
        self == Verdict::Fits
    }

    /// The mark of a configuration that does not fit: `✗`, or `x` in ASCII.
    pub fn cross(ascii: bool) -> &'static str {
        if ascii { "x" } else { "✗" }
    }

    /// A table cell: "fits", "✗ needs 2", "✗ never fits" ("x ..." in ASCII).
    pub fn cell(self, ascii: bool) -> String {
        let x = Verdict::cross(ascii);
        match self {
            Verdict::Fits => "fits".to_string(),
            Verdict::Needs(p) => format!("{x} needs {}", p.devices()),
            Verdict::Never => format!("{x} never fits"),
        }
    }

    /// A headline naming the device: "fits", "NO FIT: needs 2 x a100",
    /// "NO FIT on any layout".
    pub fn headline(self, device: &str) -> String {
        match self {
            Verdict::Fits => "fits".to_string(),
            Verdict::Needs(p) => format!("NO FIT: needs {} x {device}", p.devices()),
            Verdict::Never => "NO FIT on any layout".to_string(),
        }
    }
}

/// Why no layout holds a workload ([`Verdict::Never`]), in words: a device
/// with no link between devices in its figures is modelled alone; else the
/// fit search found nothing (tensor parallelism within a node, at most one
/// pipeline stage per layer, up to 4096 stages).
pub fn no_layout_reason(hw: &Hardware) -> &'static str {
    if hw.link_bandwidth.is_none() && hw.scaleout_bandwidth.is_none() {
        "one device cannot hold it, and its figures give no link between devices, so no multi-device layout is modelled"
    } else {
        "no layout holds it (TP within one node, at most one pipeline stage per layer, over the links the device has)"
    }
}

/// One device of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// The workload as asked, on this device.
    pub eval: Evaluation,
    pub verdict: Verdict,
    /// When it does not fit as asked: the same workload on the fewest
    /// devices that hold it (tensor parallelism inside a node, then
    /// pipeline stages), so its figures can be shown at that count, labelled.
    pub at_fit: Option<Evaluation>,
    /// USD per million tokens of a configuration that runs: as asked when
    /// it fits, else at the fewest devices that hold it (`at_fit`). None
    /// without a price, or when nothing holds it.
    pub cost_per_mtok: Option<f64>,
}

impl Compared {
    /// The evaluation of the configuration that runs: as asked when it
    /// fits, else at the fewest devices that hold it; None when nothing does.
    pub fn running(&self) -> Option<&Evaluation> {
        if self.verdict.fits() {
            Some(&self.eval)
        } else {
            self.at_fit.as_ref()
        }
    }
}

/// Judge one evaluation: its verdict, the evaluation at the fewest devices
/// that fit when it does not, and the cost of whichever runs.
pub fn assess(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    eval: Evaluation,
) -> Compared {
    let verdict = Verdict::of(&eval);
    let at_fit = match verdict {
        Verdict::Needs(p) => {
            let w = Workload {
                tp: p.tp,
                pp: p.pp,
                ..*wl
            };
            roofline::evaluate(hw, model, &w, a)
                .ok()
                .filter(|e| e.memory.fits)
        }
        _ => None,
    };
    let running = if verdict.fits() {
        Some(&eval)
    } else {
        at_fit.as_ref()
    };
    let cost_per_mtok = running.and_then(|e| {
        let per_hour = hw.price_per_hour_usd? * e.devices() as f64;
        economics::cost_per_million_tokens(per_hour, e.tokens_per_s)
    });
    Compared {
        eval,
        verdict,
        at_fit,
        cost_per_mtok,
    }
}

/// Which hardware ratio produced a speedup, and whether the binding term
/// shifted between the two devices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Because {
    /// The largest term of the step on the baseline, and on this device.
    pub base_bound: Bottleneck,
    pub bound: Bottleneck,
    /// This device's peak memory bandwidth over the baseline's.
    pub bandwidth: f64,
    /// This device's peak FLOP/s over the baseline's, each at the math
    /// precision it runs (a device without the format falls back).
    pub flops: f64,
    pub base_precision: Precision,
    pub precision: Precision,
    /// This device's link bandwidth over the baseline's, when both have
    /// communication in the step.
    pub link: Option<f64>,
    /// The share of this device's step in fixed costs (overheads, kernels,
    /// collective latencies), which no faster hardware figure shrinks.
    pub fixed_share: f64,
}

/// "3.9x", or "same" when the ratio rounds to 1.
fn ratio(x: f64, what: &str) -> String {
    if (x - 1.0).abs() < 0.005 {
        format!("same {what}")
    } else {
        format!("{}x {what}", units::format_number(x))
    }
}

impl Because {
    /// The ratio that decides under a bound.
    fn term(&self, b: Bottleneck) -> String {
        match b {
            Bottleneck::Memory => ratio(self.bandwidth, "memory bandwidth"),
            Bottleneck::Compute => {
                if self.precision == self.base_precision {
                    ratio(self.flops, &format!("peak {} FLOP/s", self.precision))
                } else {
                    ratio(
                        self.flops,
                        &format!(
                            "peak FLOP/s ({} math vs {})",
                            self.precision, self.base_precision
                        ),
                    )
                }
            }
            Bottleneck::Communication => match self.link {
                Some(l) => ratio(l, "link bandwidth"),
                None => "communication".to_string(),
            },
            Bottleneck::Overhead => "the fixed per-step overhead".to_string(),
        }
    }

    /// One line: "3.9x memory bandwidth, memory-bound both", or where the
    /// binding term shifts, "memory-bound -> compute-bound: 3.9x memory
    /// bandwidth, 2.3x peak bf16 FLOP/s".
    /// A fixed share of 10% or more is named: it is why a speedup falls
    /// short of the hardware ratio.
    pub fn text(&self) -> String {
        let mut s = if self.base_bound == self.bound {
            if self.bound == Bottleneck::Overhead {
                return "overhead-bound both: the fixed per-step cost is the same on each device"
                    .to_string();
            }
            format!("{}, {}-bound both", self.term(self.bound), self.bound)
        } else {
            format!(
                "{}-bound -> {}-bound: {}, {}",
                self.base_bound,
                self.bound,
                self.term(self.base_bound),
                self.term(self.bound)
            )
        };
        if self.fixed_share >= 0.1 && self.bound != Bottleneck::Overhead {
            s.push_str(&format!(
                "; fixed costs, {:.0}% of the step, do not shrink",
                self.fixed_share * 100.0
            ));
        }
        s
    }
}

/// A speedup over the baseline, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speedup {
    /// T_baseline / T: above 1 is faster than the baseline.
    pub factor: f64,
    pub because: Because,
}

/// Why `eval` on `hw` differs from `base` on `base_hw`.
pub fn because(base_hw: &Hardware, base: &Evaluation, hw: &Hardware, eval: &Evaluation) -> Because {
    let link = |h: &Hardware, e: &Evaluation| {
        (e.comm_s > 0.0)
            .then(|| roofline::link_for(h, e.devices()))
            .flatten()
    };
    Because {
        base_bound: base.bottleneck,
        bound: eval.bottleneck,
        bandwidth: hw.memory_bandwidth / base_hw.memory_bandwidth,
        flops: eval.peak_flops / base.peak_flops,
        base_precision: base.compute_precision,
        precision: eval.compute_precision,
        link: match (link(base_hw, base), link(hw, eval)) {
            (Some(b), Some(l)) => Some(l / b),
            _ => None,
        },
        fixed_share: eval.fixed_s() / eval.latency_s,
    }
}

/// The speedup of `eval` over `base`; None unless both fit as asked (a
/// configuration that does not run has no speed to compare).
pub fn speedup(
    base_hw: &Hardware,
    base: &Evaluation,
    hw: &Hardware,
    eval: &Evaluation,
) -> Option<Speedup> {
    (base.memory.fits && eval.memory.fits).then(|| Speedup {
        factor: base.latency_s / eval.latency_s,
        because: because(base_hw, base, hw, eval),
    })
}

/// The default baseline: the first device that fits.
pub fn default_baseline<'a>(
    evals: impl IntoIterator<Item = Option<&'a Evaluation>>,
) -> Option<usize> {
    evals
        .into_iter()
        .position(|e| e.is_some_and(|e| e.memory.fits))
}

/// The baseline of a comparison, given which devices fit: `chosen` when it
/// fits, else the first device that fits (a speedup over a configuration
/// that cannot run means nothing); None when none fits.
pub fn pick_baseline(fits: &[bool], chosen: Option<usize>) -> Option<usize> {
    chosen
        .filter(|&i| fits.get(i) == Some(&true))
        .or_else(|| fits.iter().position(|&f| f))
}

/// How a comparison is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// As listed (family order, or marking order).
    #[default]
    Listed,
    /// Fastest step first.
    Latency,
    /// Most tokens (or samples) per second first.
    TokensPerS,
    /// Cheapest per million tokens first (devices without a price last).
    Cost,
}

impl SortBy {
    pub const ALL: [SortBy; 4] = [
        SortBy::Listed,
        SortBy::Latency,
        SortBy::TokensPerS,
        SortBy::Cost,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortBy::Listed => "listed",
            SortBy::Latency => "latency",
            SortBy::TokensPerS => "tokens/s",
            SortBy::Cost => "$/M tok",
        }
    }

    pub fn next(self) -> SortBy {
        let i = SortBy::ALL.iter().position(|s| *s == self).unwrap_or(0);
        SortBy::ALL[(i + 1) % SortBy::ALL.len()]
    }
}

/// The display order of a comparison: configurations that fit first, sorted
/// by `by`; then those that do not fit (a configuration that does not run
/// never ranks above one that does), then errors; ties keep the listed order.
pub fn order(rows: &[Option<&Compared>], by: SortBy) -> Vec<usize> {
    let key = |c: &Compared| -> f64 {
        match by {
            SortBy::Listed => 0.0,
            SortBy::Latency => c.eval.latency_s,
            SortBy::TokensPerS => -c.eval.tokens_per_s,
            SortBy::Cost => c.cost_per_mtok.unwrap_or(f64::INFINITY),
        }
    };
    let class = |r: Option<&Compared>| match r {
        Some(c) if c.verdict.fits() => 0,
        Some(_) => 1,
        None => 2,
    };
    let mut idx: Vec<usize> = (0..rows.len()).collect();
    idx.sort_by(|&i, &j| {
        let (a, b) = (rows[i], rows[j]);
        class(a).cmp(&class(b)).then_with(|| match (a, b) {
            (Some(a), Some(b)) if a.verdict.fits() && b.verdict.fits() => key(a).total_cmp(&key(b)),
            _ => std::cmp::Ordering::Equal,
        })
    });
    idx
}

/// One workload on several devices: each device judged, with the speedup
/// of every fitting device over the baseline (`baseline`, or the first
/// device that fits when None or when the chosen one does not fit).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub rows: Vec<Result<Compared>>,
    /// The device the speedups are relative to (None: no device fits).
    pub baseline: Option<usize>,
    /// Per row: the speedup over the baseline, when both fit.
    pub speedups: Vec<Option<Speedup>>,
}

/// Compare `wl` on each of `devices`. A chosen baseline that does not fit
/// gives way to the first device that does (a speedup over a configuration
/// that cannot run means nothing).
pub fn compare(
    devices: &[Hardware],
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    baseline: Option<usize>,
) -> Comparison {
    compare_each(devices, model, wl, &vec![*a; devices.len()], baseline)
}

/// [`compare`] with each device's own assumptions (`a[i]` for
/// `devices[i]`: a profile's values for each device's class).
pub fn compare_each(
    devices: &[Hardware],
    model: &Model,
    wl: &Workload,
    a: &[Assumptions],
    baseline: Option<usize>,
) -> Comparison {
    let rows: Vec<Result<Compared>> = devices
        .iter()
        .zip(a)
        .map(|(hw, a)| roofline::evaluate(hw, model, wl, a).map(|e| assess(hw, model, wl, a, e)))
        .collect();
    let fits: Vec<bool> = rows
        .iter()
        .map(|r| r.as_ref().is_ok_and(|c| c.verdict.fits()))
        .collect();
    let baseline = pick_baseline(&fits, baseline);
    let speedups = rows
        .iter()
        .zip(devices)
        .map(|(r, hw)| {
            let b = baseline?;
            let base = rows[b].as_ref().ok()?;
            let c = r.as_ref().ok()?;
            speedup(&devices[b], &base.eval, hw, &c.eval)
        })
        .collect();
    Comparison {
        rows,
        baseline,
        speedups,
    }
}
