//! `ridgeline validate --kind train`: every published training run of the
//! catalog (`catalog/training/*.toml`), predicted twice: with the
//! profile's compute efficiency, and leaving its source out (eta_c fitted
//! on the other sources' runs of the same stack family, device and number
//! format first, [`predict::leave_one_source_out`]).
//! The second is the figure that measures prediction; every run ran, so a
//! run judged not to fit is a wrong verdict and is counted.

use super::args::{Format, ValidateArgs};
use super::output::{Col, Fmt, Style, col, render_list};
use super::{CliError, Out, profile_training, write};
use crate::catalog::Catalog;
use crate::catalog::profile::DEFAULT_PROFILE;
use crate::catalog::training_runs::{
    MemoryKind, TrainMetric, TrainingMeasurement, metric_key, stack_family,
};
use crate::solver::calibration::error;
use crate::solver::training::TrainingAssumptions;
use crate::solver::training::predict::{self, Case, Predicted};
use crate::solver::{Assumptions, units};
use serde_json::{Map, Value, json};

/// One run and what the model makes of it.
#[derive(Debug, Clone)]
pub struct CheckedRun<'c> {
    pub run: &'c TrainingMeasurement,
    /// The profile it is predicted with.
    pub profile_id: String,
    /// With the profile's compute efficiency.
    pub profile: Result<Predicted, String>,
    /// With eta_c fitted without this run's source (None: no other source
    /// to fit on, or no prediction).
    pub held_out: Option<(predict::HeldOut, Predicted)>,
}

/// Median and worst |error| of `errs`.
pub fn median_worst(errs: &[f64]) -> (f64, f64) {
    let mut e: Vec<f64> = errs.iter().map(|x| x.abs()).collect();
    e.sort_by(f64::total_cmp);
    let n = e.len();
    let median = match n {
        0 => 0.0,
        _ if n % 2 == 1 => e[n / 2],
        _ => (e[n / 2 - 1] + e[n / 2]) / 2.0,
    };
    (median, e.last().copied().unwrap_or(0.0))
}

/// The profile a published run is predicted with when none is named: its
/// stack family's (`megatron-core`, `pytorch-fsdp`, `jax-xla`; what the
/// family's stacks do, [`stack_family`]) when the catalog has one, else
/// `default`.
pub fn run_profile_id(cat: &Catalog, r: &TrainingMeasurement) -> String {
    let family = stack_family(&r.stack);
    [r.stack.as_str(), family]
        .into_iter()
        .find(|id| cat.profile(id).is_ok())
        .unwrap_or(DEFAULT_PROFILE)
        .to_string()
}

/// A run's assumptions: its profile's (`profile`, else [`run_profile_id`]),
/// with `--assume` laid over, serving and training keys alike.
fn run_assumptions(
    cat: &Catalog,
    r: &TrainingMeasurement,
    profile: Option<&str>,
    assume: &[(String, String)],
) -> Result<(String, Assumptions, TrainingAssumptions), CliError> {
    let id = profile.map_or_else(|| run_profile_id(cat, r), str::to_string);
    // On the run's device: its class's values where the profile names it.
    let devices: Vec<_> = cat.hardware(&r.hardware).ok().into_iter().collect();
    let a = super::profile_on(cat, &id, assume, &devices)?.assumptions;
    let mut t = profile_training(cat, &id, assume, &TrainingAssumptions::default())?;
    // The run's own loss, where it says how it differed from its stack's,
    // unless --assume names one for every run.
    if let Some(c) = r.cross_entropy
        && !assume.iter().any(|(k, _)| k == "cross_entropy")
    {
        t.cross_entropy = c;
    }
    // Its gradients' width the same way.
    if let Some(g) = r.grad_precision
        && !assume.iter().any(|(k, _)| k == "grad_precision")
    {
        t.grad_precision = g;
    }
    Ok((id, a, t))
}

/// A run's profile id, and the run as the check sees it or why it cannot
/// be predicted.
type ProfiledCase<'c> = (String, Result<Case<'c>, String>);

/// Each training run of `cat` as the check sees it (with the profile it
/// is predicted with), or why it cannot be predicted (an unknown device or
/// model).
fn cases<'c>(
    cat: &'c Catalog,
    profile: Option<&str>,
    assume: &[(String, String)],
) -> Result<Vec<ProfiledCase<'c>>, CliError> {
    let runs = &cat.training_runs;
    let mut sources: Vec<&str> = runs.iter().map(|r| r.source_key()).collect();
    sources.sort_unstable();
    sources.dedup();
    // eta_c is fitted per device and number format: an fp8 run's products
    // reach another share of another peak than a bf16 run's.
    let group = |r: &TrainingMeasurement| format!("{} {}", r.hardware, r.run.precision.name());
    let mut devices: Vec<String> = runs.iter().map(group).collect();
    devices.sort_unstable();
    devices.dedup();
    // ... and per stack family on each device and format first: the spread
    // of the shipped runs is between stacks more than between devices.
    let stack = |r: &TrainingMeasurement| format!("{} {}", stack_family(&r.stack), group(r));
    let mut stacks: Vec<String> = runs.iter().map(stack).collect();
    stacks.sort_unstable();
    stacks.dedup();
    let family =
        |r: &TrainingMeasurement| format!("{} {}", stack_family(&r.stack), r.run.precision.name());
    let mut families: Vec<String> = runs.iter().map(family).collect();
    families.sort_unstable();
    families.dedup();
    runs.iter()
        .map(|r| {
            let (id, a, t) = run_assumptions(cat, r, profile, assume)?;
            let case = (|| {
                let hw = &cat.hardware(&r.hardware).map_err(|e| e.to_string())?.hw;
                let model = &cat.model(&r.model).map_err(|e| e.to_string())?.model;
                Ok(Case {
                    hw,
                    model,
                    run: &r.run,
                    quantity: r.metric,
                    measured: r.value,
                    source: sources.binary_search(&r.source_key()).unwrap_or(0),
                    device: devices.binary_search(&group(r)).unwrap_or(0),
                    stack: stacks.binary_search(&stack(r)).unwrap_or(0),
                    family: families.binary_search(&family(r)).unwrap_or(0),
                    a,
                    t,
                })
            })();
            Ok((id, case))
        })
        .collect()
}

/// The MoE token time fitted on every shipped MoE run, each at profile
/// `profile` (what [`crate::solver::training::DEFAULT_MOE_TOKEN_TIME_S`]
/// rounds at `default`).
pub fn moe_token_time_fit(cat: &Catalog, profile: &str) -> Result<Option<f64>, CliError> {
    let resolved = cases(cat, Some(profile), &[])?;
    let all: Vec<&Case> = resolved
        .iter()
        .filter_map(|(_, c)| c.as_ref().ok())
        .collect();
    Ok(predict::fit_moe_token_time(&all))
}

/// The compute efficiency that best predicts the shipped runs of stack
/// family `family` (mean |ln error| over their speed figures, each run at
/// that family's profile otherwise): what a stack profile's
/// `compute_efficiency` is, to two digits (a test keeps them equal).
/// None when the family has no speed figure.
pub fn family_efficiency_fit(cat: &Catalog, family: &str) -> Result<Option<f64>, CliError> {
    let resolved = cases(cat, None, &[])?;
    let same: Vec<&Case> = cat
        .training_runs
        .iter()
        .zip(&resolved)
        .filter(|(r, _)| stack_family(&r.stack) == family)
        .filter_map(|(_, (_, c))| c.as_ref().ok())
        .collect();
    Ok(predict::fit_efficiency(&same, None))
}

/// Predict every training run of `cat`: with `profile` (else each run's
/// stack's, [`run_profile_id`]) and `assume` laid over it.
pub fn check_runs<'c>(
    cat: &'c Catalog,
    profile: Option<&str>,
    assume: &[(String, String)],
) -> Result<Vec<CheckedRun<'c>>, CliError> {
    let runs = &cat.training_runs;
    let resolved = cases(cat, profile, assume)?;
    let cases: Vec<Case> = resolved
        .iter()
        .filter_map(|(_, c)| c.as_ref().ok().copied())
        .collect();
    // Held out, the compute efficiency starts from the default profile's,
    // which no training run was fitted on (a stack profile's is fitted on
    // every run of its family, the held-out source's too), before the MoE
    // time and then eta_c are fitted on the other sources: nothing the
    // held-out source taught reaches its prediction.
    let start = cat.profile(DEFAULT_PROFILE)?.assumptions.compute_efficiency;
    let unfitted: Vec<Case> = cases
        .iter()
        .map(|c| Case {
            a: Assumptions {
                compute_efficiency: start,
                ..c.a
            },
            ..*c
        })
        .collect();
    let etas = predict::leave_one_source_out(&unfitted);
    let mut fitted = cases.iter().zip(etas);
    Ok(runs
        .iter()
        .zip(resolved)
        .map(|(r, (id, c))| match c {
            Err(e) => CheckedRun {
                run: r,
                profile_id: id,
                profile: Err(e),
                held_out: None,
            },
            Ok(c) => {
                let (_, eta) = fitted.next().expect("one fit per resolved case");
                let profile = predict::predict(c.hw, c.model, c.run, c.quantity, &c.a, &c.t)
                    .map_err(|e| e.to_string());
                let held_out = eta.and_then(|eta| {
                    let (a, t) =
                        predict::with_fit(&c, Some(eta.compute_efficiency), eta.moe_token_time_s);
                    predict::predict(c.hw, c.model, c.run, c.quantity, &a, &t)
                        .ok()
                        .map(|p| (eta, p))
                });
                CheckedRun {
                    run: r,
                    profile_id: id,
                    profile,
                    held_out,
                }
            }
        })
        .collect())
}

fn value_text(m: TrainMetric, v: f64) -> String {
    match m {
        TrainMetric::TokensPerSecondPerDevice => format!("{} tok/s", units::format_number(v)),
        TrainMetric::Mfu(_) => units::format_percent(v),
        TrainMetric::StepTime => units::format_time(v),
        TrainMetric::PeakMemory | TrainMetric::ReservedMemory => units::format_bytes(v),
    }
}

fn record(c: &CheckedRun) -> Map<String, Value> {
    let r = c.run;
    let mut m = Map::new();
    m.insert("id".into(), json!(r.id));
    m.insert("stack".into(), json!(r.stack));
    m.insert("model".into(), json!(r.model));
    m.insert("hardware".into(), json!(r.hardware));
    m.insert("devices".into(), json!(r.run.layout.devices()));
    m.insert("layout".into(), json!(r.run.layout.to_string()));
    m.insert("metric".into(), json!(metric_key(r.metric)));
    if let Some(k) = r.memory_kind {
        m.insert("memory_kind".into(), json!(k.name()));
    }
    m.insert("measured".into(), json!(r.value));
    m.insert("measured_text".into(), json!(value_text(r.metric, r.value)));
    m.insert("source".into(), json!(r.source));
    m.insert("profile".into(), json!(c.profile_id));
    match &c.profile {
        Ok(p) => {
            let e = error(p.value, r.value);
            m.insert("predicted_profile".into(), json!(p.value));
            m.insert("error_profile".into(), json!(e));
            m.insert(
                "error_profile_text".into(),
                json!(format!("{:+.0}%", e * 100.0)),
            );
            m.insert("fits".into(), json!(p.fits));
            m.insert("fits_text".into(), json!(if p.fits { "yes" } else { "NO" }));
        }
        Err(e) => {
            m.insert("problem".into(), json!(e));
            m.insert("error_profile_text".into(), json!("-"));
            m.insert("fits_text".into(), json!("-"));
        }
    }
    match &c.held_out {
        Some((h, p)) => {
            let e = error(p.value, r.value);
            m.insert(
                "held_out_compute_efficiency".into(),
                json!(h.compute_efficiency),
            );
            m.insert(
                "held_out_moe_token_time_s".into(),
                json!(h.moe_token_time_s),
            );
            m.insert("predicted_held_out".into(), json!(p.value));
            m.insert(
                "predicted_text".into(),
                json!(value_text(r.metric, p.value)),
            );
            m.insert("error_held_out".into(), json!(e));
            m.insert(
                "error_held_out_text".into(),
                json!(format!("{:+.0}%", e * 100.0)),
            );
        }
        None => {
            m.insert("predicted_text".into(), json!("-"));
            m.insert("error_held_out_text".into(), json!("-"));
        }
    }
    m
}

const COLS: &[Col] = &[
    col("training run", "id", Fmt::Text).breaks(),
    col("measured", "measured_text", Fmt::Text),
    col("held out", "predicted_text", Fmt::Text),
    col("error", "error_held_out_text", Fmt::Text),
    col("profile", "error_profile_text", Fmt::Text).opt(1),
    col("its profile", "profile", Fmt::Text).opt(2),
    col("fits", "fits_text", Fmt::Text),
];

/// The summary of a set of checked runs: (count, median, worst) of the
/// held-out and the profile's errors over the speed figures, and the runs
/// judged not to fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainSummary {
    pub held_out: (usize, f64, f64),
    pub profile: (usize, f64, f64),
    pub memory: (usize, f64, f64),
    /// The memory readings of peak allocated bytes (what the model counts).
    pub memory_allocated: (usize, f64, f64),
    /// The memory readings of peak reserved bytes (the allocator's pool).
    pub memory_reserved: (usize, f64, f64),
    pub not_fitting: usize,
    pub runs: usize,
}

pub fn summarize(checked: &[CheckedRun]) -> TrainSummary {
    let speed = |c: &&CheckedRun| c.run.metric.is_throughput();
    let held: Vec<f64> = checked
        .iter()
        .filter(speed)
        .filter_map(|c| c.held_out.map(|(_, p)| error(p.value, c.run.value)))
        .collect();
    let prof: Vec<f64> = checked
        .iter()
        .filter(speed)
        .filter_map(|c| c.profile.as_ref().ok().map(|p| error(p.value, c.run.value)))
        .collect();
    let mem_of = |kind: Option<MemoryKind>| -> Vec<f64> {
        checked
            .iter()
            .filter(|c| !c.run.metric.is_throughput())
            .filter(|c| kind.is_none() || c.run.memory_kind == kind)
            .filter_map(|c| c.profile.as_ref().ok().map(|p| error(p.value, c.run.value)))
            .collect()
    };
    let mem = mem_of(None);
    let tri = |v: &[f64]| {
        let (m, w) = median_worst(v);
        (v.len(), m, w)
    };
    TrainSummary {
        held_out: tri(&held),
        profile: tri(&prof),
        memory: tri(&mem),
        memory_allocated: tri(&mem_of(Some(MemoryKind::Allocated))),
        memory_reserved: tri(&mem_of(Some(MemoryKind::Reserved))),
        not_fitting: checked
            .iter()
            .filter(|c| c.profile.as_ref().is_ok_and(|p| !p.fits))
            .count(),
        runs: checked.len(),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The Markdown table docs/training.md quotes
/// (`ridgeline validate --kind train --summary`; a test keeps them equal):
/// with `profile`, else each run's stack's profile.
pub fn summary_table(
    cat: &Catalog,
    profile: Option<&str>,
    assume: &[(String, String)],
) -> Result<String, CliError> {
    let s = summarize(&check_runs(cat, profile, assume)?);
    let cell = |(n, m, w): (usize, f64, f64)| {
        if n == 0 {
            "-".to_string()
        } else {
            format!("{n} | {} / {}", pct(m), pct(w))
        }
    };
    let which = match profile {
        Some(p) => format!("the `{p}` profile"),
        None => "each run's stack profile".to_string(),
    };
    Ok(format!(
        "| training runs ({} from {} sources) | figures | median / worst error |\n|---|---:|---:|\n\
         | speed, each source predicted with eta_c and the MoE time fitted on the others | {} |\n\
         | speed, {which}'s eta_c | {} |\n\
         | memory per device, {which} | {} |\n\
         | of them peak allocated (the tensors alive at once) | {} |\n\
         | of them peak reserved (the allocator's pool) | {} |\n\
         | published runs judged not to fit | {} | |\n",
        s.runs,
        source_count(cat),
        cell(s.held_out),
        cell(s.profile),
        cell(s.memory),
        cell(s.memory_allocated),
        cell(s.memory_reserved),
        s.not_fitting,
    ))
}

fn source_count(cat: &Catalog) -> usize {
    let mut v: Vec<&str> = cat.training_runs.iter().map(|r| r.source_key()).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

pub(super) fn validate_train(
    cat: &Catalog,
    a: &ValidateArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let named = a.profile.as_deref();
    let name = named.map_or_else(
        || "each run's stack profile".to_string(),
        |p| format!("the `{p}` profile"),
    );
    if a.summary {
        return write(out, &summary_table(cat, named, &a.assume)?);
    }
    let checked = check_runs(cat, named, &a.assume)?;
    let s = summarize(&checked);
    let records: Vec<Map<String, Value>> = checked.iter().map(record).collect();
    let tri = |(n, m, w): (usize, f64, f64)| json!({"count": n, "median_abs_error": m, "worst_abs_error": w});
    let text = match a.format {
        Format::Json => {
            let v = json!({
                "kind": "train",
                "profile": named,
                "runs": records,
                "summary": {
                    "held_out": tri(s.held_out),
                    "profile": tri(s.profile),
                    "memory": tri(s.memory),
                    "memory_allocated": tri(s.memory_allocated),
                    "memory_reserved": tri(s.memory_reserved),
                    "not_fitting": s.not_fitting,
                },
            });
            super::output::json_text(&v) + "\n"
        }
        Format::Csv => {
            let cols: Vec<Col> = [
                "id",
                "stack",
                "model",
                "hardware",
                "devices",
                "metric",
                "measured",
                "predicted_held_out",
                "error_held_out",
                "predicted_profile",
                "error_profile",
                "fits",
            ]
            .into_iter()
            .map(|k| col(k, k, Fmt::Num))
            .collect();
            render_list(&records, &cols, Format::Csv, style)
        }
        Format::Table | Format::Markdown => {
            let mut t = format!(
                "{} published training runs; held out = predicted with the compute efficiency fitted on the other sources' runs (of the same stack family and device where they have some); profile = {name}'s\n",
                checked.len()
            );
            t = super::output::wrap(&t, style.width);
            t.push_str(&render_list(&records, COLS, a.format, style));
            t.push('\n');
            let line = |what: &str, (n, m, w): (usize, f64, f64)| {
                format!(
                    "{what} ({n}): median |error| {}, worst {}\n",
                    pct(m),
                    pct(w)
                )
            };
            t.push_str(&line("speed, held out", s.held_out));
            t.push_str(&line("speed, profile", s.profile));
            t.push_str(&line("memory per device, profile", s.memory));
            t.push_str(&line("  of them peak allocated", s.memory_allocated));
            t.push_str(&line("  of them peak reserved", s.memory_reserved));
            t.push_str(&format!(
                "published runs judged not to fit: {} of {}\n",
                s.not_fitting, s.runs
            ));
            for c in &checked {
                if let Err(e) = &c.profile {
                    t.push_str(&super::output::wrap(
                        &format!("no prediction for {}: {e}\n", c.run.id),
                        style.width,
                    ));
                }
            }
            t
        }
    };
    write(out, &text)
}
