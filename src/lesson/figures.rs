//! The live figures of a lesson step: what a caption's placeholders show
//! and what an expectation checks, computed for the step's state by the
//! solver calls the command line and the workbench make (`sensitivity`,
//! `compare::assess`, `compare::speedup`, `sweep::crossover_batch`), never
//! by a formula of its own. The serving replica and the training run are
//! in `runs`.

use crate::catalog::Catalog;
use crate::scenario::Scenario;
use crate::solver::compare::{self, Verdict};
use crate::solver::{self, Param, Workload, units};

/// The step of the elasticities, as the workbench takes it (`tui::app`).
pub const PERTURB: f64 = 0.1;

/// What kind of value a figure holds, for its expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Number,
    Text,
    Bool,
}

/// One figure a lesson can name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Def {
    /// The placeholder: `{latency}`.
    pub name: &'static str,
    /// The expectation key, with its unit: `latency_ms`.
    pub expect: &'static str,
    pub kind: Kind,
    /// What it is (for the reference and the error that lists them).
    pub what: &'static str,
}

const fn def(name: &'static str, expect: &'static str, kind: Kind, what: &'static str) -> Def {
    Def {
        name,
        expect,
        kind,
        what,
    }
}

use Kind::{Bool, Number, Text};

/// Every figure, in the order `ridgeline lesson --help` and the docs list them.
pub const DEFS: &[Def] = &[
    def(
        "hardware",
        "hardware",
        Text,
        "the device (its id in expectations)",
    ),
    def("model", "model", Text, "the model (its id in expectations)"),
    def(
        "latency",
        "latency_ms",
        Number,
        "the step's latency (ms), on the fewest devices that hold it when it does not fit",
    ),
    def("tokens_per_s", "tokens_per_s", Number, "tokens per second"),
    def(
        "binding",
        "binding",
        Text,
        "the bottleneck: compute, memory, communication or overhead",
    ),
    def(
        "intensity",
        "intensity",
        Number,
        "arithmetic intensity (FLOP/B)",
    ),
    def(
        "ridge",
        "ridge",
        Number,
        "the device's ridge point (FLOP/B)",
    ),
    def("mfu", "mfu_pct", Number, "model FLOP/s utilization (%)"),
    def("mbu", "mbu_pct", Number, "memory bandwidth utilization (%)"),
    def(
        "memory",
        "memory_gb",
        Number,
        "memory needed per device (GB)",
    ),
    def(
        "usable",
        "usable_gb",
        Number,
        "usable memory per device (GB)",
    ),
    def("fits", "fits", Bool, "whether it fits as laid out"),
    def(
        "devices_to_fit",
        "devices_to_fit",
        Number,
        "the fewest devices that hold it",
    ),
    def(
        "max_batch",
        "max_batch",
        Number,
        "the largest batch that fits",
    ),
    def(
        "elasticity.peak_flops",
        "elasticity.peak_flops",
        Number,
        "d ln T / d ln peak FLOP/s",
    ),
    def(
        "elasticity.memory_bandwidth",
        "elasticity.memory_bandwidth",
        Number,
        "d ln T / d ln memory bandwidth",
    ),
    def(
        "elasticity.link_bandwidth",
        "elasticity.link_bandwidth",
        Number,
        "d ln T / d ln link bandwidth",
    ),
    def(
        "elasticity.compute_efficiency",
        "elasticity.compute_efficiency",
        Number,
        "d ln T / d ln compute efficiency",
    ),
    def(
        "elasticity.memory_efficiency",
        "elasticity.memory_efficiency",
        Number,
        "d ln T / d ln memory efficiency",
    ),
    def(
        "elasticity.overhead",
        "elasticity.overhead",
        Number,
        "d ln T / d ln overhead",
    ),
    def(
        "elasticity.batch",
        "elasticity.batch",
        Number,
        "d ln T / d ln batch",
    ),
    def(
        "elasticity.context",
        "elasticity.context",
        Number,
        "d ln T / d ln context",
    ),
    def(
        "precision_step",
        "precision_step_pct",
        Number,
        "latency change, weights and KV one format narrower (%)",
    ),
    def(
        "crossover_batch",
        "crossover_batch",
        Number,
        "the batch where compute time reaches memory time, or none",
    ),
    def(
        "cost_per_mtok",
        "cost_per_mtok_usd",
        Number,
        "USD per million tokens of the configuration that runs",
    ),
    def(
        "speedup",
        "speedup",
        Number,
        "latency on the first marked device over the last's",
    ),
    def(
        "bandwidth_ratio",
        "bandwidth_ratio",
        Number,
        "memory bandwidth, last marked device over the first",
    ),
    def(
        "flops_ratio",
        "flops_ratio",
        Number,
        "peak FLOP/s at the math precision, last marked over first",
    ),
    def(
        "serve.ttft",
        "serve.ttft_ms",
        Number,
        "serving: time to first token (ms): a static batch's, all its prompts prefilled together, or continuous batching's",
    ),
    def(
        "serve.itl",
        "serve.itl_ms",
        Number,
        "serving: inter-token latency (ms), speculative decoding's tokens per step counted",
    ),
    def(
        "serve.e2e",
        "serve.e2e_s",
        Number,
        "serving: one request end to end (s)",
    ),
    def(
        "serve.tokens_per_s",
        "serve.tokens_per_s",
        Number,
        "serving: output tokens per second of the replica",
    ),
    def(
        "serve.cost_per_mtok",
        "serve.cost_per_mtok_usd",
        Number,
        "serving: USD per million output tokens of the replica, or none",
    ),
    def(
        "serve.tokens_per_step",
        "serve.tokens_per_step",
        Number,
        "serving: tokens a target step yields (1 without speculative decoding)",
    ),
    def(
        "disagg.ttft",
        "disagg.ttft_ms",
        Number,
        "disaggregated pools: time to first token, prefill alone and the KV cache sent (ms)",
    ),
    def(
        "disagg.itl",
        "disagg.itl_ms",
        Number,
        "disaggregated pools: inter-token latency, decode steps alone (ms)",
    ),
    def(
        "disagg.transfer",
        "disagg.transfer_ms",
        Number,
        "disaggregated pools: sending one prompt's KV cache to the decode pool (ms)",
    ),
    def(
        "disagg.ratio",
        "disagg.ratio",
        Number,
        "disaggregated pools: prefill devices per decode device at the fleet's QPS",
    ),
    def(
        "train.step",
        "train.step_s",
        Number,
        "training: one optimizer step's time (s), [training] layout",
    ),
    def(
        "train.tokens_per_s",
        "train.tokens_per_s",
        Number,
        "training: tokens per second over all devices",
    ),
    def(
        "train.binding",
        "train.binding",
        Text,
        "training: the step's largest term (compute, dp-comm, tp-comm, bubble, ...)",
    ),
    def("train.mfu", "train.mfu_pct", Number, "training: MFU (%)"),
    def(
        "train.memory",
        "train.memory_gb",
        Number,
        "training: memory per device (GB)",
    ),
    def(
        "train.fits",
        "train.fits",
        Bool,
        "training: whether the step fits in each device's memory",
    ),
    def(
        "train.dp_comm",
        "train.dp_comm_pct",
        Number,
        "training: data-parallel communication left exposed, share of the step (%)",
    ),
    def(
        "train.tp_comm",
        "train.tp_comm_pct",
        Number,
        "training: tensor-parallel communication left exposed, share of the step (%)",
    ),
    def(
        "train.tp_comm_time",
        "train.tp_comm_ms",
        Number,
        "training: tensor-parallel collectives per step, all of their time (ms)",
    ),
    def(
        "train.bubble",
        "train.bubble_pct",
        Number,
        "training: the pipeline bubble, (p - 1)/(v m + p - 1) (%)",
    ),
    def(
        "train.critical_tokens",
        "train.critical_tokens",
        Number,
        "training: tokens per device per step at which data-parallel communication just hides, or none",
    ),
    def(
        "train.days",
        "train.days",
        Number,
        "training: days to train the run's tokens, failures and checkpoints included",
    ),
    def(
        "train.goodput",
        "train.goodput_pct",
        Number,
        "training: useful time over wall time (%)",
    ),
];

/// The figure named `name` (a placeholder).
pub fn by_name(name: &str) -> Option<&'static Def> {
    DEFS.iter().find(|d| d.name == name)
}

/// The figure whose expectation key is `key`.
pub fn by_expect(key: &str) -> Option<&'static Def> {
    DEFS.iter().find(|d| d.expect == key)
}

/// A figure's value, in its expectation's unit.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Number(f64),
    Text(String),
    Bool(bool),
    /// The state has no such figure (no crossover, one device marked, no
    /// price): shown and expected as "none".
    None,
}

/// One computed figure: its value and how a caption shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub name: &'static str,
    pub value: Value,
    pub shown: String,
}

/// Every figure of one state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figures(pub Vec<Figure>);

impl Figures {
    pub fn get(&self, name: &str) -> Option<&Figure> {
        self.0.iter().find(|f| f.name == name)
    }
}

/// The device and model a state runs, by catalog name (the device: the
/// selected one, else the first marked).
fn device_and_model(s: &Scenario) -> Result<(&str, &str), String> {
    let hw = s
        .hardware
        .as_deref()
        .or(s.compare.first().map(String::as_str))
        .ok_or("no hardware yet: set `hardware` in this step or an earlier one")?;
    let model = s
        .model
        .as_deref()
        .ok_or("no model yet: set `model` in this step or an earlier one")?;
    Ok((hw, model))
}

/// A device's name without what it adds in parentheses ("NVIDIA B200
/// (HGX B200, 1000 W)" is "NVIDIA B200"), for a sentence.
fn short_name(name: &str) -> String {
    match name.split_once(" (") {
        Some((short, _)) if !short.trim().is_empty() => short.trim().to_string(),
        _ => name.to_string(),
    }
}

fn joined(problems: Vec<crate::scenario::Problem>) -> String {
    problems
        .iter()
        .map(|(k, m)| format!("{k}: {m}"))
        .collect::<Vec<_>>()
        .join("; ")
}

fn num(name: &'static str, value: f64, shown: String) -> Figure {
    Figure {
        name,
        value: Value::Number(value),
        shown,
    }
}

/// A text figure shown as it is.
fn text(name: &'static str, t: &str) -> Figure {
    Figure {
        name,
        value: Value::Text(t.into()),
        shown: t.into(),
    }
}

fn none(name: &'static str) -> Figure {
    Figure {
        name,
        value: Value::None,
        shown: "none".into(),
    }
}

/// Compute every figure of the state `s` (a checked scenario) against
/// `catalog`. An error says what is missing or what the solver refused.
pub fn compute(catalog: &Catalog, s: &Scenario) -> Result<Figures, String> {
    let (hw_name, model_name) = device_and_model(s)?;
    let hw = catalog.hardware(hw_name).map_err(|e| e.to_string())?;
    let model = catalog.model(model_name).map_err(|e| e.to_string())?;
    let wl = s.workload(&Workload::default()).map_err(joined)?;
    let (_, base) = s.profile_on(catalog, hw).map_err(|p| joined(vec![p]))?;
    let a = s.assumptions(&base.assumptions).map_err(joined)?;
    let asked =
        solver::sensitivity(&hw.hw, &model.model, &wl, &a, PERTURB).map_err(|e| e.to_string())?;
    let c = compare::assess(&hw.hw, &model.model, &wl, &a, asked.base.clone());
    // The step's figures are those the workbench shows: as asked when it
    // fits, else on the fewest devices that hold it (its Sensitivity pane
    // and status line say "on 11"), as `ridgeline eval` prints them; the
    // memory, the verdict and the largest batch are as asked.
    let sens = match c.verdict {
        Verdict::Needs(p) => {
            let at = Workload {
                tp: p.tp,
                pp: p.pp,
                ..wl
            };
            solver::sensitivity(&hw.hw, &model.model, &at, &a, PERTURB)
                .map_err(|e| e.to_string())?
        }
        _ => asked,
    };
    let e = &sens.base;
    let m = &c.eval;
    let mut f = vec![
        Figure {
            name: "hardware",
            value: Value::Text(hw.hw.id.clone()),
            // The name without its parenthesis: "NVIDIA B200".
            shown: short_name(&hw.hw.name),
        },
        Figure {
            name: "model",
            value: Value::Text(model.model.id.clone()),
            shown: model.model.name.clone(),
        },
        num(
            "latency",
            e.latency_s * 1e3,
            units::format_time(e.latency_s),
        ),
        num(
            "tokens_per_s",
            e.tokens_per_s,
            units::format_number(e.tokens_per_s),
        ),
        text("binding", e.bottleneck.name()),
        num(
            "intensity",
            e.arithmetic_intensity,
            units::format_number(e.arithmetic_intensity),
        ),
        num("ridge", e.ridge_point, units::format_number(e.ridge_point)),
        num("mfu", e.mfu * 100.0, units::format_percent(e.mfu)),
        num("mbu", e.mbu * 100.0, units::format_percent(e.mbu)),
        num(
            "memory",
            m.memory.footprint.total() / 1e9,
            units::format_bytes(m.memory.footprint.total()),
        ),
        num(
            "usable",
            m.memory.usable_bytes / 1e9,
            units::format_bytes(m.memory.usable_bytes),
        ),
        Figure {
            name: "fits",
            value: Value::Bool(c.verdict.fits()),
            shown: if c.verdict.fits() { "yes" } else { "no" }.into(),
        },
        match c.verdict {
            Verdict::Never => none("devices_to_fit"),
            Verdict::Fits => {
                let d = m.devices() as f64;
                num("devices_to_fit", d, units::format_count(d))
            }
            Verdict::Needs(p) => {
                let d = p.devices() as f64;
                num("devices_to_fit", d, units::format_count(d))
            }
        },
        num(
            "max_batch",
            m.max_batch as f64,
            units::format_count(m.max_batch as f64),
        ),
    ];
    for p in Param::ALL {
        let name = by_name(&format!("elasticity.{}", p.key()))
            .map(|d| d.name)
            .ok_or_else(|| format!("no figure for the elasticity of {}", p.key()))?;
        f.push(match sens.row(p) {
            Some(r) => num(name, r.elasticity, units::format_number(r.elasticity)),
            None => none(name),
        });
    }
    f.push(match sens.precision_step {
        Some(p) => num(
            "precision_step",
            p.latency_change * 100.0,
            units::format_percent(p.latency_change),
        ),
        None => none("precision_step"),
    });
    let crossover =
        solver::sweep::crossover_batch(&hw.hw, &model.model, &wl, &a).map_err(|e| e.to_string())?;
    f.push(match crossover {
        Some(b) => num("crossover_batch", b, units::format_number(b)),
        None => none("crossover_batch"),
    });
    f.push(match c.cost_per_mtok {
        Some(x) => num("cost_per_mtok", x, units::format_usd(x)),
        None => none("cost_per_mtok"),
    });
    f.extend(speedups(catalog, s, &wl, &a, &model.model)?);
    f.extend(serving(catalog, s, &hw.hw, &model.model, &wl, &a)?);
    f.extend(training(catalog, s, &hw.hw, &model.model, wl.weights, &a)?);
    Ok(Figures(f))
}

/// The speedup from the first marked device to the last, and the ratios
/// behind it (`compare::speedup`, as the Generations view computes them).
fn speedups(
    catalog: &Catalog,
    s: &Scenario,
    wl: &Workload,
    a: &solver::Assumptions,
    model: &solver::Model,
) -> Result<Vec<Figure>, String> {
    let names = ["speedup", "bandwidth_ratio", "flops_ratio"];
    let (Some(first), Some(last)) = (s.compare.first(), s.compare.last()) else {
        return Ok(names.iter().map(|n| none(n)).collect());
    };
    if s.compare.len() < 2 {
        return Ok(names.iter().map(|n| none(n)).collect());
    }
    let base_hw = &catalog.hardware(first).map_err(|e| e.to_string())?.hw;
    let hw = &catalog.hardware(last).map_err(|e| e.to_string())?.hw;
    let base = solver::evaluate(base_hw, model, wl, a).map_err(|e| e.to_string())?;
    let eval = solver::evaluate(hw, model, wl, a).map_err(|e| e.to_string())?;
    Ok(match compare::speedup(base_hw, &base, hw, &eval) {
        Some(sp) => {
            let ratio = |x: f64| format!("{}x", units::format_number(x));
            vec![
                num("speedup", sp.factor, ratio(sp.factor)),
                num(
                    "bandwidth_ratio",
                    sp.because.bandwidth,
                    ratio(sp.because.bandwidth),
                ),
                num("flops_ratio", sp.because.flops, ratio(sp.because.flops)),
            ]
        }
        None => names.iter().map(|n| none(n)).collect(),
    })
}

mod runs;
use runs::{serving, training};

#[cfg(test)]
mod tests;
