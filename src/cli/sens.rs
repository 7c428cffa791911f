//! `ridgeline sens`: elasticities, finite changes, binding constraint.

use super::args::{self, Format};
use super::output::{Fmt, Style, col, render_list, wrap};
use super::records::{fit_sentence, headline};
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::{self, Param, units};
use crate::words::Words;
use serde_json::{Map, Value, json};

pub(super) fn sens(
    cat: &Catalog,
    a: &args::SensArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let s = solver::sensitivity(
        &hw.hw,
        &model.model,
        &wl,
        &assumptions(cat, &a.workload)?,
        a.perturb,
    )?;
    let el: Map<String, Value> = s
        .rows
        .iter()
        .map(|r| (r.param.key().to_string(), json!(r.elasticity)))
        .collect();
    let fc: Map<String, Value> = s
        .rows
        .iter()
        .map(|r| (r.param.key().to_string(), json!(r.finite_change)))
        .collect();
    let mut rec = Map::new();
    rec.insert("hardware".into(), json!(hw.hw.id));
    rec.insert("model".into(), json!(model.model.id));
    rec.insert("latency_s".into(), json!(s.base.latency_s));
    rec.insert("elasticities".into(), Value::Object(el));
    rec.insert("finite_change".into(), Value::Object(fc));
    rec.insert("perturb".into(), json!(s.perturb));
    rec.insert("binding".into(), json!(s.binding.map(|p| p.key())));
    rec.insert(
        "headroom".into(),
        json!({"resource": s.headroom.param.key(), "factor": s.headroom.factor}),
    );
    rec.insert("bottleneck".into(), json!(s.base.bottleneck.name()));
    rec.insert("fit_margin".into(), json!(s.fit_margin));
    rec.insert("fits".into(), json!(s.base.memory.fits));
    rec.insert(
        "capacity_for_double_batch_bytes".into(),
        json!(s.capacity_for_double_batch),
    );
    rec.insert(
        "precision_step".into(),
        json!(s.precision_step.map(|p| json!({
            "weights": p.weights.name(),
            "kv": p.kv.name(),
            "latency_change": p.latency_change,
        }))),
    );
    match a.workload.format {
        Format::Json => write(
            out,
            &(serde_json::to_string_pretty(&Value::Object(rec)).unwrap_or_default() + "\n"),
        ),
        fmt => {
            let rows: Vec<Map<String, Value>> = s
                .rows
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    let binding = Some(r.param) == s.binding;
                    m.insert("parameter".into(), json!(r.param.key()));
                    m.insert("elasticity".into(), json!(r.elasticity));
                    m.insert("finite_change".into(), json!(r.finite_change));
                    m.insert("bar".into(), json!(bar(r.elasticity)));
                    // CSV and Markdown: a plain yes/no; the text table an arrow.
                    m.insert(
                        "binding".into(),
                        match fmt {
                            Format::Table => json!(if binding { "<- binding" } else { "" }),
                            _ => json!(binding),
                        },
                    );
                    m
                })
                .collect();
            let pct = format!("{:.0}", a.perturb * 100.0);
            // Every column has a header; the bar is drawn in the text table only.
            let mut cols = vec![
                col("parameter", "parameter", Fmt::Text),
                col("elasticity", "elasticity", Fmt::Num),
                col("change at +step", "finite_change", Fmt::Pct),
                col("binding", "binding", Fmt::Text),
            ];
            if fmt == Format::Table {
                cols.insert(3, col("|elasticity|", "bar", Fmt::Text).opt(1));
            }
            let mut txt = String::new();
            if fmt != Format::Csv {
                txt.push_str(&wrap(&headline(hw, model, &wl), style.width));
                txt.push_str(&wrap(
                    &format!(
                        "latency {} ({}-bound); elasticity = d ln T / d ln x; step = +{pct}%\n\n",
                        units::format_time(s.base.latency_s),
                        s.base.bottleneck
                    ),
                    style.width,
                ));
            }
            txt.push_str(&render_list(&rows, &cols, fmt, style));
            if fmt != Format::Csv {
                let mut tail = String::new();
                tail.push_str(&format!(
                    "\nbinding constraint: {}\nheadroom: {} could fall {}x before it binds\nmemory capacity: fit margin {} (usable / needed); {} would hold twice the batch\n",
                    binding_words(&s),
                    s.headroom.param.label(),
                    units::format_number(s.headroom.factor),
                    units::format_number(s.fit_margin),
                    units::format_bytes(s.capacity_for_double_batch),
                ));
                if let Some(p) = s.precision_step {
                    let stored = if Words::for_model(model).single_pass() {
                        format!("weights {}", p.weights)
                    } else {
                        format!("weights {} and KV {}", p.weights, p.kv)
                    };
                    tail.push_str(&format!(
                        "precision: {stored} (math stays {}) change latency by {}\n",
                        s.base.compute_precision,
                        units::format_percent(p.latency_change)
                    ));
                }
                if !s.base.memory.fits {
                    tail.push_str(&fit_sentence(&s.base, hw, &wl));
                }
                txt.push_str(&wrap(&tail, style.width));
            }
            write(out, &txt)
        }
    }
}

/// The binding constraint in words; the fixed overhead says what it is.
fn binding_words(s: &solver::Sensitivity) -> String {
    match s.binding {
        Some(Param::Overhead) => format!(
            "overhead (the fixed per-step costs, {} of the step: launches and link latency, which no faster hardware shortens)",
            units::format_percent(s.base.fixed_s() / s.base.latency_s)
        ),
        Some(p) => p.label().to_string(),
        None => "none".to_string(),
    }
}

/// A text bar for an elasticity in [-1, 1]: ten cells per unit.
fn bar(e: f64) -> String {
    let n = (e.abs().min(1.0) * 10.0).round() as usize;
    let c = if e < 0.0 { '-' } else { '+' };
    std::iter::repeat_n(c, n).collect()
}
