//! `ridgeline ops`: where the time of a step goes, operator by operator,
//! each on its own roofline (`solver::ops`), with both step totals.

use super::args::{Format, OpsArgs};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::records::{
    NO_FIGURES, fit_sentence, headline, num_or_null, on_fewest_line, profile_line, set_aside,
    verdict_key,
};
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::compare::{self, Verdict};
use crate::solver::ops::{Breakdown, Op, StepModel, breakdown};
use crate::solver::{self, Model, Parallelism, Workload, units};
use serde_json::{Map, Value, json};

/// The table's columns; a narrow terminal drops the compute and memory
/// times first.
const COLS: &[Col] = &[
    col("op", "op", Fmt::Text),
    col("layers", "layer", Fmt::Text),
    col("FLOPs", "flops", Fmt::Int),
    col("bytes", "bytes", Fmt::Bytes),
    col("FLOP/B", "arithmetic_intensity", Fmt::Num),
    col("compute", "compute_s", Fmt::Time).opt(2),
    col("memory", "memory_s", Fmt::Time).opt(1),
    col("time", "time_s", Fmt::Time),
    col("bound", "bound", Fmt::Text),
    col("share", "share", Fmt::Pct),
];

pub(super) fn ops(cat: &Catalog, a: &OpsArgs, style: Style, out: Out) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let asm = assumptions(cat, &a.workload, &[hw])?;
    let b = breakdown(&hw.hw, &model.model, &wl, &asm)?;
    let e = solver::evaluate(&hw.hw, &model.model, &wl, &asm)?;
    let c = compare::assess(&hw.hw, &model.model, &wl, &asm, e.clone());
    let fits = c.verdict.fits();
    // When it does not fit, the breakdown shown is of the fewest devices
    // that hold it (as the workbench's Operators view), labelled.
    let run = match (c.verdict, &c.at_fit) {
        (Verdict::Needs(p), Some(_)) => {
            let w = Workload {
                tp: p.tp,
                pp: p.pp,
                ..wl
            };
            breakdown(&hw.hw, &model.model, &w, &asm)
                .ok()
                .map(|b| (p, b))
        }
        _ => None,
    };
    let rows_of = |b: &Breakdown| -> Vec<Map<String, Value>> {
        b.ops.iter().map(|o| op_record(o, &model.model)).collect()
    };
    let fmt = a.workload.format;
    match fmt {
        Format::Json => {
            let whole = |b: &Breakdown| -> Map<String, Value> {
                let mut m = Map::new();
                m.insert(
                    "ops".into(),
                    Value::Array(rows_of(b).into_iter().map(Value::Object).collect()),
                );
                m.insert("totals".into(), Value::Object(totals_record(b)));
                m.insert("roof".into(), roof_record(b));
                m
            };
            let mut rec = Map::new();
            rec.insert("hardware".into(), json!(hw.hw.id));
            rec.insert("model".into(), json!(model.model.id));
            rec.extend(whole(&b));
            rec.insert("fits".into(), json!(e.memory.fits));
            rec.insert("verdict".into(), json!(verdict_key(c.verdict)));
            let at = run.as_ref().map(|(p, b)| {
                let mut m = Map::new();
                m.insert("tp".into(), json!(p.tp));
                m.insert("pp".into(), json!(p.pp));
                m.insert("devices".into(), json!(p.devices()));
                m.extend(whole(b));
                Value::Object(m)
            });
            rec.insert("at_min_devices_to_fit".into(), json!(at));
            if !fits {
                set_aside(&mut rec, &["ops", "totals", "roof"]);
            }
            write(out, &(super::output::json_text(&Value::Object(rec)) + "\n"))
        }
        Format::Csv => {
            // Each row says which configuration it is of.
            let (shown, which, p) = match (&run, fits) {
                (_, true) => (
                    Some(&b),
                    "as asked",
                    Parallelism {
                        tp: wl.tp,
                        pp: wl.pp,
                    },
                ),
                (Some((p, b)), false) => (Some(b), "fewest devices that hold it", *p),
                (None, false) => (
                    None,
                    "",
                    Parallelism {
                        tp: wl.tp,
                        pp: wl.pp,
                    },
                ),
            };
            let rows: Vec<Map<String, Value>> = shown
                .map(&rows_of)
                .unwrap_or_default()
                .into_iter()
                .map(|mut r| {
                    r.insert("configuration".into(), json!(which));
                    r.insert("tp".into(), json!(p.tp));
                    r.insert("pp".into(), json!(p.pp));
                    r
                })
                .collect();
            let mut cols = COLS.to_vec();
            cols.extend([
                col("configuration", "configuration", Fmt::Text),
                col("tp", "tp", Fmt::Int),
                col("pp", "pp", Fmt::Int),
            ]);
            write(out, &render_list(&rows, &cols, fmt, style))
        }
        Format::Table | Format::Markdown => {
            let mut head = headline(hw, model, &wl);
            head.push_str(&fit_sentence(&e, hw, &wl));
            head.push_str(&profile_line(cat, &a.workload.profile, hw));
            let mut s = wrap(&head, style.width);
            s.push('\n');
            let shown = if fits {
                Some(&b)
            } else {
                match &run {
                    Some((p, b)) => {
                        s.push_str(&wrap(&on_fewest_line(*p, hw), style.width));
                        Some(b)
                    }
                    None => {
                        s.push_str(NO_FIGURES);
                        None
                    }
                }
            };
            if let Some(b) = shown {
                let mut rows: Vec<Map<String, Value>> = rows_of(b).iter().map(shown_row).collect();
                rows.push(fixed_row(b));
                s.push_str(&render_list(&rows, COLS, fmt, style));
                s.push('\n');
                s.push_str(&wrap(&summary(b), style.width));
            }
            write(out, &s)
        }
    }
}

/// One operator as the JSON contract has it.
fn op_record(o: &Op, model: &Model) -> Map<String, Value> {
    let mut r = Map::new();
    r.insert("op".into(), json!(o.name(model)));
    r.insert("layer".into(), json!(o.layers.to_string()));
    r.insert("flops".into(), json!(o.flops));
    r.insert("bytes".into(), json!(o.bytes()));
    r.insert("weight_bytes".into(), json!(o.weight_bytes));
    r.insert("kv_bytes".into(), json!(o.kv_bytes));
    r.insert("activation_bytes".into(), json!(o.activation_bytes));
    r.insert("comm_bytes".into(), json!(o.comm_bytes));
    r.insert(
        "arithmetic_intensity".into(),
        o.arithmetic_intensity().map_or(Value::Null, num_or_null),
    );
    r.insert("compute_s".into(), json!(o.compute_s));
    r.insert("memory_s".into(), json!(o.memory_s));
    r.insert("link_s".into(), json!(o.link_s));
    r.insert("time_s".into(), json!(o.time_s));
    r.insert("bound".into(), json!(o.bound.name()));
    r.insert("share".into(), json!(o.share));
    r
}

/// A row of the text table: a collective shows the bytes it moves over
/// the link, and no compute or memory time.
fn shown_row(r: &Map<String, Value>) -> Map<String, Value> {
    let mut r = r.clone();
    if r.get("bound") == Some(&json!("link")) {
        let comm = r.get("comm_bytes").cloned().unwrap_or(Value::Null);
        r.insert("bytes".into(), comm);
        r.insert("compute_s".into(), Value::Null);
        r.insert("memory_s".into(), Value::Null);
    }
    r
}

/// The fixed time both step totals add, as a last row.
fn fixed_row(b: &Breakdown) -> Map<String, Value> {
    let t = &b.totals;
    let mut r = Map::new();
    r.insert("op".into(), json!("fixed time"));
    r.insert("layer".into(), json!("step"));
    r.insert("time_s".into(), json!(t.fixed_s));
    r.insert("share".into(), json!(t.fixed_s / t.per_operator_s));
    r
}

fn totals_record(b: &Breakdown) -> Map<String, Value> {
    let t = &b.totals;
    let mut r = Map::new();
    r.insert("flops".into(), json!(t.flops));
    r.insert("bytes".into(), json!(t.bytes()));
    r.insert("weight_bytes".into(), json!(t.weight_bytes));
    r.insert("kv_bytes".into(), json!(t.kv_bytes));
    r.insert("activation_bytes".into(), json!(t.activation_bytes));
    r.insert("comm_bytes".into(), json!(t.comm_bytes));
    r.insert("aggregate_s".into(), json!(t.aggregate_s));
    r.insert("per_operator_s".into(), json!(t.per_operator_s));
    r.insert("fixed_s".into(), json!(t.fixed_s));
    r.insert("fixed_share".into(), json!(t.fixed_s / t.per_operator_s));
    r.insert("step_s".into(), json!(step_s(b)));
    r.insert("uses".into(), json!(t.uses.name()));
    r.insert("shares_of".into(), json!(StepModel::PerOperator.name()));
    r
}

/// The step time the result reports.
fn step_s(b: &Breakdown) -> f64 {
    match b.totals.uses {
        StepModel::Aggregate => b.totals.aggregate_s,
        StepModel::PerOperator => b.totals.per_operator_s,
    }
}

fn roof_record(b: &Breakdown) -> Value {
    json!({
        "compute_precision": b.compute_precision.name(),
        "peak_flops": b.peak_flops,
        "bandwidth_bytes_per_s": b.bandwidth,
        "ridge_point": b.ridge_point(),
        "effective_ridge_point": b.effective_ridge_point(),
    })
}

/// Both step totals, which one ridgeline reports, and the ridge.
fn summary(b: &Breakdown) -> String {
    let t = &b.totals;
    let f = units::format_time;
    format!(
        "step: {} aggregate (reported by eval and the workbench: the step's FLOPs and bytes on one roofline); \
         {} per-operator (the sum of each operator's own time: no operator overlaps another), \
         which the shares are of. FLOPs {}, bytes {}; collectives show the bytes they move over the link.\n\
         ridge {} FLOP/B, effective {} FLOP/B at {}\n",
        f(t.aggregate_s),
        f(t.per_operator_s),
        units::format_flop(t.flops),
        units::format_bytes(t.bytes()),
        units::format_number(b.ridge_point()),
        units::format_number(b.effective_ridge_point()),
        b.compute_precision.name()
    )
}
