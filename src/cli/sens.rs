//! `ridgeline sens`: elasticities, finite changes, binding constraint.

use super::args::{self, Format};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::records::{NO_FIGURES, fit_sentence, headline, on_fewest_line, set_aside, verdict_key};
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::{Catalog, HardwareEntry, ModelEntry};
use crate::solver::compare::{self, Verdict};
use crate::solver::{self, Param, Workload, units};
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
    let asm = assumptions(cat, &a.workload, &[hw])?;
    let s = solver::sensitivity(&hw.hw, &model.model, &wl, &asm, a.perturb)?;
    let c = compare::assess(&hw.hw, &model.model, &wl, &asm, s.base.clone());
    let fits = c.verdict.fits();
    // When the configuration asked does not fit, the elasticities are those
    // of the one that runs: the fewest devices that hold it.
    let run = match (c.verdict, &c.at_fit) {
        (Verdict::Needs(p), Some(_)) => {
            let w = Workload {
                tp: p.tp,
                pp: p.pp,
                ..wl
            };
            Some((
                p,
                w,
                solver::sensitivity(&hw.hw, &model.model, &w, &asm, a.perturb)?,
            ))
        }
        _ => None,
    };
    let fmt = a.workload.format;
    if fmt == Format::Json {
        let mut rec = Map::new();
        rec.insert("hardware".into(), json!(hw.hw.id));
        rec.insert("model".into(), json!(model.model.id));
        rec.extend(record(&s));
        rec.insert("fits".into(), json!(s.base.memory.fits));
        rec.insert("verdict".into(), json!(verdict_key(c.verdict)));
        rec.insert(
            "min_devices_to_fit".into(),
            json!(s.base.min_devices.map(|p| p.devices())),
        );
        let at = run.as_ref().map(|(p, _, r)| {
            let mut m = Map::new();
            m.insert("tp".into(), json!(p.tp));
            m.insert("pp".into(), json!(p.pp));
            m.insert("devices".into(), json!(p.devices()));
            m.extend(record(r));
            m.insert("fits".into(), json!(r.base.memory.fits));
            Value::Object(m)
        });
        rec.insert("at_min_devices_to_fit".into(), json!(at));
        if !fits {
            set_aside(&mut rec, FIGURE_KEYS);
        }
        return write(out, &(super::output::json_text(&Value::Object(rec)) + "\n"));
    }
    // The configuration the table is of: as asked when it fits, else the
    // one that runs; none when nothing holds it.
    let shown = if fits {
        Some((&s, &wl, "as asked"))
    } else {
        run.as_ref()
            .map(|(_, w, r)| (r, w, "fewest devices that hold it"))
    };
    let mut txt = String::new();
    if fmt != Format::Csv {
        txt.push_str(&wrap(&headline(hw, model, &wl), style.width));
        if !fits {
            // The verdict first, then the figures of what runs, labelled.
            txt.push_str(&wrap(&fit_sentence(&s.base, hw, &wl), style.width));
            txt.push('\n');
            txt.push_str(&wrap(
                &match &run {
                    Some((p, ..)) => on_fewest_line(*p, hw),
                    None => NO_FIGURES.to_string(),
                },
                style.width,
            ));
        }
    }
    if let Some((s, w, which)) = shown {
        txt.push_str(&table(s, w, hw, model, which, fmt, style));
    } else if fmt == Format::Csv {
        txt.push_str(&render_list(&[], &csv_cols(), fmt, style));
    }
    write(out, &txt)
}

/// The keys of a sensitivity record that are figures of a step as if it
/// ran (kept aside when it does not fit).
const FIGURE_KEYS: &[&str] = &[
    "latency_s",
    "bottleneck",
    "elasticities",
    "finite_change",
    "binding",
    "headroom",
    "precision_step",
];

/// A sensitivity as JSON: its figures, the step and the fit margins.
fn record(s: &solver::Sensitivity) -> Map<String, Value> {
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
    rec
}

/// CSV's columns: the table's, then which configuration each row is of.
fn csv_cols() -> Vec<Col> {
    vec![
        col("parameter", "parameter", Fmt::Text),
        col("elasticity", "elasticity", Fmt::Num),
        col("change at +step", "finite_change", Fmt::Pct),
        col("binding", "binding", Fmt::Text),
        col("configuration", "configuration", Fmt::Text),
        col("tp", "tp", Fmt::Int),
        col("pp", "pp", Fmt::Int),
    ]
}

/// The sensitivity table of a configuration that runs, with its latency
/// line above and its binding, headroom and margins below (text and
/// Markdown); CSV rows say which configuration they are of.
fn table(
    s: &solver::Sensitivity,
    wl: &Workload,
    hw: &HardwareEntry,
    model: &ModelEntry,
    which: &str,
    fmt: Format,
    style: Style,
) -> String {
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
            m.insert("configuration".into(), json!(which));
            m.insert("tp".into(), json!(wl.tp));
            m.insert("pp".into(), json!(wl.pp));
            m
        })
        .collect();
    if fmt == Format::Csv {
        return render_list(&rows, &csv_cols(), fmt, style);
    }
    let pct = format!("{:.0}", s.perturb * 100.0);
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
    let mut txt = wrap(
        &format!(
            "latency {} ({}-bound); elasticity = d ln T / d ln x; step = +{pct}%\n\n",
            units::format_time(s.base.latency_s),
            s.base.bottleneck
        ),
        style.width,
    );
    txt.push_str(&render_list(&rows, &cols, fmt, style));
    let mut tail = String::new();
    tail.push_str(&format!(
        "\nbinding constraint: {}\nheadroom: {} could fall {}x before it binds\nmemory capacity: fit margin {} (usable / needed); {} would hold twice the batch\n",
        binding_words(s),
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
        tail.push_str(&fit_sentence(&s.base, hw, wl));
    }
    txt.push_str(&wrap(&tail, style.width));
    txt
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
