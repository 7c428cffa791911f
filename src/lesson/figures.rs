//! The live figures of a lesson step: what a caption's placeholders show
//! and what an expectation checks, computed for the step's state by the
//! solver calls the command line and the workbench make (`sensitivity`,
//! `compare::assess`, `compare::speedup`, `sweep::crossover_batch`), never
//! by a formula of its own.

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
    def("latency", "latency_ms", Number, "the step's latency (ms)"),
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
    let (_, base) = s.profile(catalog).map_err(|p| joined(vec![p]))?;
    let a = s.assumptions(&base).map_err(joined)?;
    let sens =
        solver::sensitivity(&hw.hw, &model.model, &wl, &a, PERTURB).map_err(|e| e.to_string())?;
    let c = compare::assess(&hw.hw, &model.model, &wl, &a, sens.base.clone());
    let e = &sens.base;
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
            e.memory.footprint.total() / 1e9,
            units::format_bytes(e.memory.footprint.total()),
        ),
        num(
            "usable",
            e.memory.usable_bytes / 1e9,
            units::format_bytes(e.memory.usable_bytes),
        ),
        Figure {
            name: "fits",
            value: Value::Bool(c.verdict.fits()),
            shown: if c.verdict.fits() { "yes" } else { "no" }.into(),
        },
        match c.verdict {
            Verdict::Never => none("devices_to_fit"),
            Verdict::Fits => {
                let d = e.devices() as f64;
                num("devices_to_fit", d, units::format_count(d))
            }
            Verdict::Needs(p) => {
                let d = p.devices() as f64;
                num("devices_to_fit", d, units::format_count(d))
            }
        },
        num(
            "max_batch",
            e.max_batch as f64,
            units::format_count(e.max_batch as f64),
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
    f.extend(training(s, &hw.hw, &model.model, wl.weights, &a)?);
    Ok(Figures(f))
}

/// The names of the serving figures, in `DEFS` order.
const SERVING: [&str; 10] = [
    "serve.ttft",
    "serve.itl",
    "serve.e2e",
    "serve.tokens_per_s",
    "serve.cost_per_mtok",
    "serve.tokens_per_step",
    "disagg.ttft",
    "disagg.itl",
    "disagg.transfer",
    "disagg.ratio",
];

/// One replica serving the state's `[serving]` request with its batching
/// mode (`solver::serving::serve`, or `solver::batching::continuous` under
/// continuous batching, as `ridgeline serve` and the Serving view), and
/// the same request on disaggregated prefill and decode pools of the same
/// device at the fleet's QPS (`solver::batching::disaggregated`). All
/// "none" for a model that is not a decoder; the pools "none" for a device
/// without a scale-out network.
fn serving(
    catalog: &Catalog,
    s: &Scenario,
    hw: &solver::Hardware,
    model: &solver::Model,
    wl: &Workload,
    a: &solver::Assumptions,
) -> Result<Vec<Figure>, String> {
    use crate::solver::{batching, economics, serving};
    if !model.kind.is_decoder() {
        return Ok(SERVING.iter().map(|n| none(n)).collect());
    }
    let req = s.request().map_err(joined)?;
    let modes = s.serve_modes().map_err(joined)?;
    let err = |e: solver::SolverError| e.to_string();
    let (ttft, itl, e2e, rate, per_step) = if modes.continuous {
        let draft = match &modes.draft {
            Some(d) => Some(
                &catalog
                    .model(d)
                    .map_err(|e| format!("serving.draft: {e}"))?
                    .model,
            ),
            None => None,
        };
        let c =
            batching::continuous(hw, model, wl, &req, &modes.batching(draft), a).map_err(err)?;
        (
            c.ttft_s,
            c.itl_s,
            c.e2e_s,
            c.tokens_per_s,
            c.tokens_per_step,
        )
    } else {
        let r = serving::serve(hw, model, wl, &req, a).map_err(err)?;
        (r.ttft_batch_s, r.itl_s, r.e2e_batch_s, r.tokens_per_s, 1.0)
    };
    let e = economics::economics(hw, wl.tp * wl.pp, rate, 1.0, economics::DEFAULT_IDLE_SHARE);
    let ms = |name: &'static str, x: f64| num(name, x * 1e3, units::format_time(x));
    let mut f = vec![
        ms("serve.ttft", ttft),
        ms("serve.itl", itl),
        num("serve.e2e", e2e, units::format_time(e2e)),
        num("serve.tokens_per_s", rate, units::format_number(rate)),
        match e.cost_per_million_tokens_usd {
            Some(x) => num("serve.cost_per_mtok", x, units::format_usd(x)),
            None => none("serve.cost_per_mtok"),
        },
        num(
            "serve.tokens_per_step",
            per_step,
            units::format_number(per_step),
        ),
    ];
    let qps = s.fleet_inputs().map_err(joined)?.qps;
    match batching::disaggregated(hw, wl, hw, wl, model, &req, qps, true, a) {
        Ok(d) => f.extend([
            ms("disagg.ttft", d.ttft_s),
            ms("disagg.itl", d.itl_s),
            ms("disagg.transfer", d.transfer_s),
            num("disagg.ratio", d.ratio(), units::format_number(d.ratio())),
        ]),
        // A device without a scale-out network has no pools to send
        // between.
        Err(_) if hw.scaleout_bandwidth.is_none() => f.extend(SERVING[6..].iter().map(|n| none(n))),
        Err(e) => return Err(e.to_string()),
    }
    Ok(f)
}

/// The names of the training figures, in `DEFS` order.
const TRAINING: [&str; 13] = [
    "train.step",
    "train.tokens_per_s",
    "train.binding",
    "train.mfu",
    "train.memory",
    "train.fits",
    "train.dp_comm",
    "train.tp_comm",
    "train.tp_comm_time",
    "train.bubble",
    "train.critical_tokens",
    "train.days",
    "train.goodput",
];

/// One training step of the state's `[training]` run at the weights'
/// precision (the Training view's step and run, `solver::training`); all
/// "none" for a model that is not a decoder. A layout the devices do not
/// split into is an error that says so.
fn training(
    s: &Scenario,
    hw: &solver::Hardware,
    model: &solver::Model,
    precision: solver::Precision,
    a: &solver::Assumptions,
) -> Result<Vec<Figure>, String> {
    use solver::training::{self as tr, run};
    if tr::decoder(model).is_err() {
        return Ok(TRAINING.iter().map(|n| none(n)).collect());
    }
    let t = s.training_inputs().map_err(joined)?;
    let r = t
        .run(model, precision)
        .map_err(|e| format!("training: {e}"))?;
    let e = tr::evaluate(hw, model, &r, a, &t.assumptions).map_err(|e| e.to_string())?;
    let spec = run::RunSpec {
        tokens: t.tokens,
        idle_share: crate::solver::economics::DEFAULT_IDLE_SHARE,
        grid: None,
    };
    let rf = run::run_figures(hw, &e, &spec, &t.assumptions);
    let st = &e.step;
    let share = |x: f64| x / st.step_time_s;
    let pct = |name: &'static str, x: f64| num(name, x * 100.0, units::format_percent(x));
    let days = rf.time_to_train_s / 86_400.0;
    Ok(vec![
        num(
            "train.step",
            st.step_time_s,
            units::format_time(st.step_time_s),
        ),
        num(
            "train.tokens_per_s",
            st.tokens_per_s,
            units::format_number(st.tokens_per_s),
        ),
        text("train.binding", st.binding.name()),
        pct("train.mfu", st.mfu),
        num(
            "train.memory",
            e.memory.total() / 1e9,
            units::format_bytes(e.memory.total()),
        ),
        Figure {
            name: "train.fits",
            value: Value::Bool(e.memory.fits),
            shown: if e.memory.fits { "yes" } else { "no" }.into(),
        },
        pct("train.dp_comm", share(st.comm.dp.exposed_s)),
        pct("train.tp_comm", share(st.comm.tp.exposed_s)),
        num(
            "train.tp_comm_time",
            st.comm.tp.time_s * 1e3,
            units::format_time(st.comm.tp.time_s),
        ),
        pct("train.bubble", st.bubble_fraction),
        match e.critical_batch_tokens_per_device {
            Some(x) => num("train.critical_tokens", x, units::format_number(x)),
            None => none("train.critical_tokens"),
        },
        num("train.days", days, units::format_number(days)),
        pct("train.goodput", rf.goodput),
    ])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_is_computed_and_every_name_is_defined() {
        let cat = Catalog::builtin();
        let s = Scenario {
            hardware: Some("a100-sxm-80gb".into()),
            model: Some("llama-3.1-8b".into()),
            compare: vec!["a100-sxm-80gb".into(), "h100-sxm".into()],
            ..Scenario::default()
        };
        let f = compute(&cat, &s).unwrap();
        let names: Vec<&str> = f.0.iter().map(|x| x.name).collect();
        let defs: Vec<&str> = DEFS.iter().map(|d| d.name).collect();
        assert_eq!(names, defs);
        // Each value has its definition's kind.
        for (x, d) in f.0.iter().zip(DEFS) {
            let kind = match x.value {
                Value::Number(_) => Some(Number),
                Value::Text(_) => Some(Text),
                Value::Bool(_) => Some(Bool),
                Value::None => None,
            };
            assert!(kind.is_none_or(|k| k == d.kind), "{}", d.name);
        }
    }

    fn with_training(model: &str, t: crate::scenario::TrainingSection) -> Scenario {
        Scenario {
            hardware: Some("h100-sxm".into()),
            model: Some(model.into()),
            training: t,
            ..Scenario::default()
        }
    }

    #[test]
    fn the_training_figures_are_a_step_of_the_training_layout() {
        let cat = Catalog::builtin();
        // 64 devices as tp 8 x pp 4 x dp 2, 256k tokens of 8k sequences:
        // 262144 / (2 x 8192) = 16 micro-batches per pipeline, a bubble of
        // (p - 1)/(m + p - 1) = 3/19 = 15.789%.
        let t = crate::scenario::TrainingSection {
            devices: Some(64),
            tp: Some(8),
            pp: Some(4),
            seq: Some(8192.0),
            global_batch: Some(262144.0),
            ..Default::default()
        };
        let f = compute(&cat, &with_training("llama-3.1-70b", t)).unwrap();
        let Value::Number(b) = f.get("train.bubble").unwrap().value else {
            panic!("no bubble")
        };
        assert!((b - 300.0 / 19.0).abs() < 1e-9, "{b}");
        assert_eq!(f.get("train.fits").unwrap().value, Value::Bool(true));
    }

    #[test]
    fn speculative_decoding_yields_the_geometric_series_of_tokens() {
        let cat = Catalog::builtin();
        let mut s = with_training("llama-3.1-8b", Default::default());
        s.serving.batching = Some("continuous".into());
        s.serving.draft = Some("llama-3.2-1b".into());
        s.serving.proposed = Some(4);
        s.serving.acceptance = Some(0.7);
        let f = compute(&cat, &s).unwrap();
        let Value::Number(t) = f.get("serve.tokens_per_step").unwrap().value else {
            panic!("no tokens per step")
        };
        // (1 - 0.7^5) / (1 - 0.7) = (1 - 0.16807) / 0.3 = 2.7731.
        assert!((t - 0.83193 / 0.3).abs() < 1e-9, "{t}");
        // Static batching yields one token a step.
        s.serving.batching = Some("static".into());
        let f = compute(&cat, &s).unwrap();
        assert_eq!(
            f.get("serve.tokens_per_step").unwrap().value,
            Value::Number(1.0)
        );
    }

    #[test]
    fn a_model_that_is_not_a_decoder_has_no_serving_or_training_figures() {
        let cat = Catalog::builtin();
        let f = compute(&cat, &with_training("resnet-50", Default::default())).unwrap();
        for name in SERVING.iter().chain(&TRAINING) {
            assert_eq!(f.get(name).unwrap().value, Value::None, "{name}");
        }
    }

    #[test]
    fn a_training_layout_the_devices_do_not_split_into_says_so() {
        let cat = Catalog::builtin();
        // 12 devices are not a multiple of tp 8.
        let t = crate::scenario::TrainingSection {
            devices: Some(12),
            tp: Some(8),
            ..Default::default()
        };
        let e = compute(&cat, &with_training("llama-3.1-8b", t)).unwrap_err();
        assert!(e.contains("training: 12 devices are not a multiple"), "{e}");
    }

    #[test]
    fn a_device_is_named_without_its_parenthesis() {
        assert_eq!(short_name("NVIDIA B200 (HGX B200, 1000 W)"), "NVIDIA B200");
        assert_eq!(short_name("NVIDIA H100 SXM5 80GB"), "NVIDIA H100 SXM5 80GB");
        assert_eq!(short_name(" (odd)"), " (odd)");
    }

    #[test]
    fn a_state_without_a_model_says_what_to_set() {
        let cat = Catalog::builtin();
        let s = Scenario {
            hardware: Some("a100-sxm-80gb".into()),
            ..Scenario::default()
        };
        let e = compute(&cat, &s).unwrap_err();
        assert!(e.contains("set `model`"), "{e}");
    }
}
