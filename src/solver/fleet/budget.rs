//! When nothing meets the budget, what would: for each requirement alone,
//! the nearest value at which the cheapest design fits the budget, all the
//! others kept: the largest request rate, the longest prompt, the loosest
//! time to first token, the loosest inter-token latency, and one region
//! carrying the whole load. Each is found by the same search as the answer
//! ([`super::search`]), bisecting the one requirement: a fleet's cheapest
//! cost never falls as the rate or the prompt grows, nor rises as an SLA
//! loosens.

use super::search::{Search, search};
use super::{FleetOption, FleetSpec};
use crate::solver::error::Result;
use crate::solver::types::{Assumptions, Hardware, Model};

/// The one requirement a relaxation changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relax {
    /// Requests per second.
    Qps,
    /// Prompt tokens.
    Prompt,
    /// Time-to-first-token SLA, seconds.
    Ttft,
    /// Inter-token SLA, seconds.
    Itl,
    /// One region carries the whole load (the value is 1).
    OneRegion,
}

impl Relax {
    pub fn key(self) -> &'static str {
        match self {
            Relax::Qps => "qps",
            Relax::Prompt => "prompt",
            Relax::Ttft => "ttft_s",
            Relax::Itl => "itl_s",
            Relax::OneRegion => "regions",
        }
    }
}

/// A design within the budget and the one change that gets it there.
#[derive(Debug, Clone, PartialEq)]
pub struct Relaxation {
    pub change: Relax,
    /// The requirement's value at which the cheapest design fits the
    /// budget (the largest rate or prompt, the tightest SLA).
    pub value: f64,
    /// That design (the whole fleet).
    pub design: FleetOption,
}

/// Steps of each bisection: 2^-10 of the range (0.1% of the rate asked; a
/// 100-fold SLA range to 0.45%), about the three figures shown.
const STEPS: usize = 10;
/// An SLA is loosened at most this many times.
const MAX_LOOSER: f64 = 100.0;

/// The cheapest design of `spec` (None: nothing meets the SLAs).
fn cheapest(
    devices: &[Hardware],
    model: &Model,
    s: &Search,
    spec: &FleetSpec,
    a: &Assumptions,
    idle: f64,
) -> Option<FleetOption> {
    search(devices, model, s, spec, a, idle).ok()?.best
}

/// The relaxations that bring the cheapest design within `budget` USD a
/// year, one requirement at a time; empty when the answer is already
/// within it. Errors as [`search`] does.
pub fn within_budget(
    devices: &[Hardware],
    model: &Model,
    s: &Search,
    spec: &FleetSpec,
    budget: f64,
    a: &Assumptions,
    idle: f64,
) -> Result<Vec<Relaxation>> {
    let plan = search(devices, model, s, spec, a, idle)?;
    if plan
        .best
        .as_ref()
        .is_some_and(|b| b.cost_per_year_usd() <= budget)
    {
        return Ok(Vec::new());
    }
    let fits = |spec: &FleetSpec, s: &Search| {
        cheapest(devices, model, s, spec, a, idle).filter(|b| b.cost_per_year_usd() <= budget)
    };
    let mut out = Vec::new();
    // The largest value in (0, hi] of a requirement that grows the cost.
    let mut largest = |change: Relax, hi: f64, set: &dyn Fn(f64) -> FleetSpec, whole: bool| {
        let (mut lo, mut hi) = (0.0, hi);
        let mut best: Option<(f64, FleetOption)> = None;
        // A whole number is bisected down to one (2^16 tokens at most).
        let steps = if whole { 16 } else { STEPS };
        for _ in 0..steps {
            let mid = if whole {
                ((lo + hi) / 2.0).floor().max(1.0)
            } else {
                (lo + hi) / 2.0
            };
            match fits(&set(mid), s) {
                Some(d) => {
                    best = Some((mid, d));
                    lo = mid;
                }
                None => hi = mid,
            }
            if whole && hi - lo <= 1.0 {
                break;
            }
        }
        if let Some((value, design)) = best {
            out.push(Relaxation {
                change,
                value,
                design,
            });
        }
    };
    largest(
        Relax::Qps,
        spec.qps,
        &|q| FleetSpec { qps: q, ..*spec },
        false,
    );
    largest(
        Relax::Prompt,
        spec.request.prompt,
        &|p| {
            let mut n = *spec;
            n.request.prompt = p;
            n
        },
        true,
    );
    // The tightest SLA, from the one asked up to 100 times looser, that
    // fits: bisected on its logarithm.
    let mut loosest = |change: Relax, at: f64, set: &dyn Fn(f64) -> FleetSpec| {
        let top = at * MAX_LOOSER;
        let Some(mut best) = fits(&set(top), s) else {
            return;
        };
        let (mut lo, mut hi) = (at.ln(), top.ln());
        let mut value = top;
        for _ in 0..STEPS {
            let mid = (lo + hi) / 2.0;
            match fits(&set(mid.exp()), s) {
                Some(d) => {
                    best = d;
                    value = mid.exp();
                    hi = mid;
                }
                None => lo = mid,
            }
        }
        out.push(Relaxation {
            change,
            value,
            design: best,
        });
    };
    loosest(Relax::Ttft, spec.ttft_sla_s, &|t| FleetSpec {
        ttft_sla_s: t,
        ..*spec
    });
    loosest(Relax::Itl, spec.itl_sla_s, &|t| FleetSpec {
        itl_sla_s: t,
        ..*spec
    });
    if s.shares.len() > 1 {
        let one = Search {
            shares: Vec::new(),
            ..s.clone()
        };
        if let Some(design) = fits(spec, &one) {
            out.push(Relaxation {
                change: Relax::OneRegion,
                value: 1.0,
                design,
            });
        }
    }
    Ok(out)
}
