//! `ridgeline validate`: every published measurement of the catalog, the
//! model's prediction of it with its error band, the error, and the median
//! and worst error over the measurements the profile was fitted on, the
//! ones held out, and all.

use super::args::{Format, SplitArg, ValidateArgs};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::{CliError, Out, profile_assumptions, write};
use crate::catalog::profile::{self as prof, FitSpec, Takes};
use crate::catalog::{Catalog, Measurement, ProfileEntry};
use crate::solver::calibration::{self, Case, Param, Prediction, Summary};
use crate::solver::{Assumptions, units};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The profile that predicts a measurement when none is named: the one
/// whose id is the measurement's stack, else `default`.
pub use crate::catalog::profile::DEFAULT_PROFILE;

/// One measurement and what the model makes of it.
#[derive(Debug, Clone)]
pub struct Checked<'c> {
    pub measurement: &'c Measurement,
    /// The profile that predicted it.
    pub profile: String,
    /// In the half the profiles were fitted on (else held out).
    pub fit: bool,
    /// The assumptions it was predicted with.
    pub assumptions: Assumptions,
    /// The prediction, or why there is none (an unknown id, a layout the
    /// model cannot split).
    pub prediction: Result<Prediction, String>,
}

/// Which half each measurement belongs to: within each stack, sorted by
/// id, every other one is fitted on (the first, third, ...) and the rest
/// held out, so both halves hold every stack and no one chose which.
pub fn fit_split(ms: &[Measurement]) -> Vec<bool> {
    let mut by_stack: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, m) in ms.iter().enumerate() {
        by_stack.entry(m.stack.as_str()).or_default().push(i);
    }
    let mut fit = vec![false; ms.len()];
    for (_, mut idx) in by_stack {
        idx.sort_by(|&a, &b| ms[a].id.cmp(&ms[b].id));
        for (k, i) in idx.into_iter().enumerate() {
            fit[i] = k % 2 == 0;
        }
    }
    fit
}

/// The profile of a measurement's stack, or the default one.
pub fn stack_profile<'c>(cat: &'c Catalog, m: &Measurement) -> Option<&'c ProfileEntry> {
    cat.profile(&m.stack)
        .or_else(|_| cat.profile(DEFAULT_PROFILE))
        .ok()
}

/// Predict every measurement of the catalog: with the assumptions `pick`
/// gives it, named by the profile id it also gives.
pub fn check<'c>(
    cat: &'c Catalog,
    mut pick: impl FnMut(&Measurement) -> (String, Assumptions),
) -> Vec<Checked<'c>> {
    let split = fit_split(&cat.measurements);
    cat.measurements
        .iter()
        .zip(split)
        .map(|(m, fit)| {
            let (profile, a) = pick(m);
            let a = &a;
            let prediction = (|| -> Result<Prediction, String> {
                let hw = cat.hardware(&m.hardware).map_err(|e| e.to_string())?;
                let model = cat.model(&m.model).map_err(|e| e.to_string())?;
                calibration::predict(&hw.hw, &model.model, &m.run, m.metric, a)
                    .map_err(|e| e.to_string())
            })();
            Checked {
                measurement: m,
                profile,
                fit,
                assumptions: *a,
                prediction,
            }
        })
        .collect()
}

/// The summary of the checked measurements that `keep` selects.
pub fn summary(checked: &[Checked], keep: impl Fn(&Checked) -> bool) -> Summary {
    let pairs: Vec<(Prediction, f64)> = checked
        .iter()
        .filter(|c| keep(c))
        .filter_map(|c| {
            c.prediction
                .as_ref()
                .ok()
                .map(|p| (*p, c.measurement.value))
        })
        .collect();
    calibration::summarize(&pairs)
}

/// Sets one assumption to a number.
type Setter = dyn Fn(&mut Assumptions, f64);

/// The interval a refit searches for a key that takes `takes`; None for
/// the collective algorithm and the matmul ceiling (not numbers).
fn refit_range(takes: Takes) -> Option<(f64, f64)> {
    match takes {
        Takes::Fraction => Some((0.05, 1.0)),
        Takes::UnitInterval => Some((0.0, 1.0)),
        Takes::Time => Some((0.0, 10e-3)),
        Takes::Rows => Some((0.0, 256.0)),
        Takes::Algorithm | Takes::Ceiling => None,
    }
}

/// Leave one source out: each measurement predicted with its profile's
/// fitted values refitted without the measurement's source (the file it
/// comes from: one publication or benchmark table per file, so a stack's
/// fit never sees the figures it is scored on). The refit starts from the
/// profile's values with its fitted keys put back to those of the profile
/// it was fitted from (`fitted_from`), and fits them on the other sources'
/// measurements of its stacks (`fitted_on`), or, when the held-out source
/// is all of them, on those of the `default` profile's stacks: a stack
/// predicted as a stack nobody fitted. Keys in `fixed` (set by `--assume`)
/// are not refitted. A profile set by hand (`roofline`, `ideal`) fits
/// nothing, so its prediction stands. The refit is
/// [`calibration::refit`], bounded; examples/calibrate.rs, which made the
/// profiles, searches whole grids from several starts.
pub fn leave_one_source_out(
    cat: &Catalog,
    checked: &[Checked],
    fixed: &[&str],
) -> Vec<Option<Prediction>> {
    let resolve = |m: &Measurement| {
        let hw = &cat.hardware(&m.hardware).ok()?.hw;
        let model = &cat.model(&m.model).ok()?.model;
        Some((hw, model))
    };
    let resolved: Vec<_> = checked.iter().map(|c| resolve(c.measurement)).collect();
    let mut groups: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (i, c) in checked.iter().enumerate() {
        groups
            .entry((c.profile.as_str(), c.measurement.origin.as_str()))
            .or_default()
            .push(i);
    }
    let default_spec = cat
        .profile(DEFAULT_PROFILE)
        .ok()
        .and_then(|p| p.fit.clone());
    let mut out: Vec<Option<Prediction>> = vec![None; checked.len()];
    for ((pid, origin), idx) in groups {
        let spec: Option<FitSpec> = cat.profile(pid).ok().and_then(|p| p.fit.clone());
        let Some(spec) = spec else {
            for i in idx {
                out[i] = checked[i].prediction.as_ref().ok().copied();
            }
            continue;
        };
        let cases_on = |stacks: &[String]| -> Vec<Case> {
            checked
                .iter()
                .zip(&resolved)
                .filter(|(c, _)| {
                    c.measurement.origin != origin && stacks.contains(&c.measurement.stack)
                })
                .filter_map(|(c, r)| {
                    let (hw, model) = (*r)?;
                    let m = c.measurement;
                    Some(Case {
                        hw,
                        model,
                        run: &m.run,
                        metric: m.metric,
                        measured: m.value,
                    })
                })
                .collect()
        };
        let mut cases = cases_on(&spec.stacks);
        if let (true, Some(d)) = (cases.is_empty(), &default_spec) {
            cases = cases_on(&d.stacks);
        }
        if cases.is_empty() {
            continue;
        }
        let from = cat.profile(&spec.from).ok().map(|p| p.assumptions);
        let keys: Vec<(&str, (f64, f64))> = spec
            .keys
            .iter()
            .filter(|k| !fixed.contains(&k.as_str()))
            .filter_map(|k| {
                let key = prof::KEYS.iter().find(|x| x.key == k)?;
                Some((key.key, refit_range(key.takes)?))
            })
            .collect();
        let mut start = checked[idx[0]].assumptions;
        if let Some(mut from) = from {
            for (k, _) in &keys {
                if let (Some(x), Some(slot)) = (
                    prof::number_mut(&mut from, k).map(|x| *x),
                    prof::number_mut(&mut start, k),
                ) {
                    *slot = x;
                }
            }
        }
        let setters: Vec<Box<Setter>> = keys
            .iter()
            .map(|(k, _)| {
                let k = *k;
                Box::new(move |a: &mut Assumptions, x: f64| {
                    if let Some(slot) = prof::number_mut(a, k) {
                        *slot = x;
                    }
                }) as Box<Setter>
            })
            .collect();
        let params: Vec<Param> = keys
            .iter()
            .zip(&setters)
            .map(|((_, (lo, hi)), set)| Param {
                set: set.as_ref(),
                lo: *lo,
                hi: *hi,
            })
            .collect();
        let a = calibration::refit(&cases, &start, &params);
        for i in idx {
            let m = checked[i].measurement;
            out[i] = resolved[i]
                .and_then(|(hw, model)| calibration::predict(hw, model, &m.run, m.metric, &a).ok());
        }
    }
    out
}

/// The summary of the leave-one-source-out predictions `keep` selects.
pub fn loso_summary(
    checked: &[Checked],
    loso: &[Option<Prediction>],
    keep: impl Fn(&Checked) -> bool,
) -> Summary {
    let pairs: Vec<(Prediction, f64)> = checked
        .iter()
        .zip(loso)
        .filter(|(c, _)| keep(c))
        .filter_map(|(c, p)| p.map(|p| (p, c.measurement.value)))
        .collect();
    calibration::summarize(&pairs)
}

fn value_text(m: &Measurement, v: f64) -> String {
    if m.metric.is_time() {
        units::format_time(v)
    } else {
        format!("{} tok/s", units::format_number(v))
    }
}

fn record(c: &Checked, loso: Option<&Prediction>) -> Map<String, Value> {
    let m = c.measurement;
    let mut r = Map::new();
    r.insert("id".into(), json!(m.id));
    r.insert("stack".into(), json!(m.stack));
    r.insert("stack_version".into(), json!(m.stack_version));
    r.insert("model".into(), json!(m.model));
    r.insert("hardware".into(), json!(m.hardware));
    r.insert("metric".into(), json!(m.metric.key()));
    r.insert("batch".into(), json!(m.run.batch));
    r.insert("prompt".into(), json!(m.run.prompt));
    r.insert("output".into(), json!(m.run.output));
    r.insert("weights".into(), json!(m.run.weights.name()));
    r.insert("activations".into(), json!(m.run.activations.name()));
    r.insert("kv".into(), json!(m.run.kv.name()));
    r.insert("tp".into(), json!(m.run.tp));
    r.insert("pp".into(), json!(m.run.pp));
    r.insert("measured".into(), json!(m.value));
    r.insert("measured_text".into(), json!(value_text(m, m.value)));
    r.insert("split".into(), json!(if c.fit { "fit" } else { "check" }));
    r.insert("profile".into(), json!(c.profile));
    r.insert("source".into(), json!(m.source));
    match &c.prediction {
        Ok(p) => {
            let err = calibration::error(p.value, m.value);
            r.insert("predicted".into(), json!(p.value));
            r.insert("predicted_low".into(), json!(p.low));
            r.insert("predicted_high".into(), json!(p.high));
            r.insert("predicted_text".into(), json!(value_text(m, p.value)));
            r.insert(
                "band_text".into(),
                json!(format!(
                    "{}-{}",
                    units::format_number(p.low),
                    units::format_number(p.high)
                )),
            );
            r.insert("error".into(), json!(err));
            r.insert("error_text".into(), json!(format!("{:+.0}%", err * 100.0)));
            r.insert(
                "inside_band".into(),
                json!(p.low <= m.value && m.value <= p.high),
            );
            r.insert("fits".into(), json!(p.fits));
            r.insert("fixed_share".into(), json!(p.fixed_share));
        }
        Err(e) => {
            r.insert("predicted".into(), Value::Null);
            r.insert("predicted_text".into(), json!("-"));
            r.insert("error_text".into(), json!("-"));
            r.insert("problem".into(), json!(e));
        }
    }
    match loso {
        Some(p) => {
            let err = calibration::error(p.value, m.value);
            r.insert("predicted_loso".into(), json!(p.value));
            r.insert("error_loso".into(), json!(err));
            r.insert(
                "error_loso_text".into(),
                json!(format!("{:+.0}%", err * 100.0)),
            );
        }
        None => {
            r.insert("predicted_loso".into(), Value::Null);
            r.insert("error_loso_text".into(), json!("-"));
        }
    }
    r
}

const COLS: &[Col] = &[
    col("measurement", "id", Fmt::Text).breaks(),
    col("measured", "measured_text", Fmt::Text),
    col("predicted", "predicted_text", Fmt::Text),
    col("error", "error_text", Fmt::Text),
    col("by source", "error_loso_text", Fmt::Text).opt(1),
    col("band", "band_text", Fmt::Text).opt(2),
    col("half", "split", Fmt::Text).opt(1),
];

fn summary_json(s: &Summary) -> Value {
    json!({
        "count": s.count,
        "median_abs_error": s.median_abs_error,
        "worst_abs_error": s.worst_abs_error,
        "inside_band": s.inside_band,
    })
}

fn by_stack(checked: &[Checked]) -> Value {
    let mut m = Map::new();
    for c in checked {
        let st = c.measurement.stack.as_str();
        if !m.contains_key(st) {
            let s = summary(checked, |x| x.measurement.stack == st);
            m.insert(st.to_string(), summary_json(&s));
        }
    }
    Value::Object(m)
}

fn summary_line(name: &str, s: &Summary) -> String {
    format!(
        "{name} ({}): median |error| {:.1}%, worst {:.1}%, inside the band {}/{}\n",
        s.count,
        s.median_abs_error * 100.0,
        s.worst_abs_error * 100.0,
        s.inside_band,
        s.count
    )
}

/// Each measurement with its stack's profile (`default` when the stack
/// has none).
pub fn per_stack(cat: &Catalog) -> Vec<Checked<'_>> {
    check(cat, |m| match stack_profile(cat, m) {
        Some(p) => (p.id.clone(), p.assumptions),
        None => ("roofline".to_string(), Assumptions::default()),
    })
}

fn pct(x: f64) -> String {
    if x < 0.995 {
        format!("{:.1}%", x * 100.0)
    } else {
        format!("{:.0}%", x * 100.0)
    }
}

/// The Markdown table docs/validation.md quotes: for
/// each stack's own profile (and per stack), then every measurement with
/// `default`, `roofline` and `ideal`, the median and worst |error| on the
/// fitted and held-out halves and how many held-out measurements fall
/// inside their band. `ridgeline validate --summary` prints it; a test
/// keeps the page equal to it.
pub fn summary_table(cat: &Catalog) -> String {
    let mut s = String::from(
        "| profile | predicted | fitted half: median / worst | held out: median / worst | held out inside the band | each source left out: median / worst |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let mut row = |name: &str,
                   checked: &[Checked],
                   loso: &[Option<Prediction>],
                   keep: &dyn Fn(&Checked) -> bool| {
        let f = summary(checked, |c| keep(c) && c.fit);
        let h = summary(checked, |c| keep(c) && !c.fit);
        let l = loso_summary(checked, loso, keep);
        let cell = |x: &Summary| {
            if x.count == 0 {
                "-".to_string()
            } else {
                format!("{} / {}", pct(x.median_abs_error), pct(x.worst_abs_error))
            }
        };
        s.push_str(&format!(
            "| {name} | {} | {} | {} | {}/{} | {} |\n",
            f.count + h.count,
            cell(&f),
            cell(&h),
            h.inside_band,
            h.count,
            cell(&l)
        ));
    };
    let own = per_stack(cat);
    let own_loso = leave_one_source_out(cat, &own, &[]);
    row("each stack's own", &own, &own_loso, &|_| true);
    row(
        "each stack's own, serving stacks (all but llama.cpp)",
        &own,
        &own_loso,
        &|c| c.measurement.stack != "llama.cpp",
    );
    let mut stacks: Vec<&str> = own.iter().map(|c| c.measurement.stack.as_str()).collect();
    stacks.sort();
    stacks.dedup();
    for st in stacks {
        let name = match cat.profile(st) {
            Ok(p) => format!("  `{}` on {st}", p.id),
            Err(_) => format!("  `{DEFAULT_PROFILE}` on {st}"),
        };
        row(&name, &own, &own_loso, &|c| c.measurement.stack == st);
    }
    for id in [DEFAULT_PROFILE, "roofline", "ideal"] {
        if let Ok(p) = cat.profile(id) {
            let checked = check(cat, |_| (p.id.clone(), p.assumptions));
            let loso = leave_one_source_out(cat, &checked, &[]);
            row(&format!("`{id}` on all"), &checked, &loso, &|_| true);
        }
    }
    s
}

pub(super) fn validate(
    cat: &Catalog,
    a: &ValidateArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    if a.kind == super::args::ValidateKind::Train {
        return super::validate_train::validate_train(cat, a, style, out);
    }
    super::no_training_keys(&a.assume)?;
    if a.summary {
        return write(out, &summary_table(cat));
    }
    let named = match &a.profile {
        Some(p) => Some(profile_assumptions(cat, p, &a.assume)?),
        None => None,
    };
    let mut problems = Vec::new();
    let checked = check(cat, |m| match &named {
        Some(asm) => (a.profile.clone().unwrap_or_default(), *asm),
        None => match stack_profile(cat, m) {
            Some(p) => {
                let mut asm = p.assumptions;
                for (k, v) in &a.assume {
                    // Checked when the flag was parsed.
                    let _ = crate::catalog::profile::set(
                        &mut asm,
                        k,
                        crate::catalog::profile::Value::Text(v),
                    );
                }
                (p.id.clone(), asm)
            }
            None => {
                problems.push(m.id.clone());
                ("roofline".to_string(), Assumptions::default())
            }
        },
    });
    let shown: Vec<&Checked> = checked
        .iter()
        .filter(|c| match a.split {
            SplitArg::Fit => c.fit,
            SplitArg::Check => !c.fit,
            SplitArg::All => true,
        })
        .collect();
    let fit = summary(&checked, |c| c.fit);
    let held = summary(&checked, |c| !c.fit);
    let all = summary(&checked, |_| true);
    let fixed: Vec<&str> = a.assume.iter().map(|(k, _)| k.as_str()).collect();
    let loso = leave_one_source_out(cat, &checked, &fixed);
    let by_source = loso_summary(&checked, &loso, |_| true);
    let records: Vec<Map<String, Value>> = checked
        .iter()
        .zip(&loso)
        .filter(|(c, _)| match a.split {
            SplitArg::Fit => c.fit,
            SplitArg::Check => !c.fit,
            SplitArg::All => true,
        })
        .map(|(c, l)| record(c, l.as_ref()))
        .collect();
    let profile_name = a
        .profile
        .clone()
        .unwrap_or_else(|| "each stack's own".to_string());
    let text = match a.format {
        Format::Json => {
            let v = json!({
                "profile": a.profile.as_deref().unwrap_or("stack"),
                "measurements": records,
                "summary": {
                    "fit": summary_json(&fit),
                    "check": summary_json(&held),
                    "all": summary_json(&all),
                    "leave_one_source_out": summary_json(&by_source),
                },
                "by_stack": by_stack(&checked),
            });
            super::output::json_text(&v) + "\n"
        }
        Format::Csv => {
            let cols: Vec<Col> = [
                "id",
                "stack",
                "model",
                "hardware",
                "metric",
                "batch",
                "prompt",
                "output",
                "weights",
                "tp",
                "measured",
                "predicted",
                "predicted_low",
                "predicted_high",
                "error",
                "predicted_loso",
                "error_loso",
                "split",
            ]
            .into_iter()
            .map(|k| col(k, k, Fmt::Num))
            .collect();
            render_list(&records, &cols, Format::Csv, style)
        }
        Format::Table | Format::Markdown => {
            let mut s = wrap(
                &format!(
                    "{} published measurements, predicted with {} profile (error = predicted / measured - 1; by source = the error with the profile's fitted values refitted without the measurement's source file; band = the prediction's low-high)\n",
                    checked.len(),
                    match &a.profile {
                        Some(p) => format!("the `{p}`"),
                        None => profile_name.clone(),
                    }
                ),
                style.width,
            );
            s.push_str(&render_list(&records, COLS, a.format, style));
            s.push('\n');
            s.push_str(&summary_line("fitted on", &fit));
            s.push_str(&summary_line("held out", &held));
            s.push_str(&summary_line("all", &all));
            s.push_str(&summary_line("by source", &by_source));
            let mut stacks: Vec<&str> = checked
                .iter()
                .map(|c| c.measurement.stack.as_str())
                .collect();
            stacks.sort();
            stacks.dedup();
            for st in stacks {
                let by = summary(&checked, |c| c.measurement.stack == st);
                s.push_str(&summary_line(&format!("  {st}"), &by));
            }
            if !problems.is_empty() {
                s.push_str("no `default` profile in the catalog: the plain roofline was used\n");
            }
            for c in &shown {
                if let Err(e) = &c.prediction {
                    s.push_str(&wrap(
                        &format!("no prediction for {}: {e}\n", c.measurement.id),
                        style.width,
                    ));
                }
            }
            s
        }
    };
    write(out, &text)
}
