//! `ridgeline scale`: one training configuration over a list of device
//! counts (strong scaling at a fixed global batch, weak at a fixed batch
//! per device), against the ideal line, with the knee where it bends.

use super::args::{Format, ScaleArgs};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::train::{assumptions_of, pinned_layout, pins_layout, run_of, step_assumptions};
use super::{CliError, Out, write};
use crate::catalog::Catalog;
use crate::solver::training::scale::{self, Batch, Choice, Point, Scaling, Spec};
use crate::solver::training::{self, DEFAULTS, TrainingRun};
use crate::solver::{Hardware, units};
use serde_json::{Map, Value, json};

pub fn scale(cat: &Catalog, args: &ScaleArgs, style: Style, out: Out) -> Result<(), CliError> {
    if let Some(phase) = args.phase {
        return super::scale_replica::scale_replica(cat, args, phase, style, out);
    }
    let entry = cat.hardware(&args.hardware)?;
    let hw = &entry.hw;
    let model = &cat.model(&args.model)?.model;
    let d = training::decoder(model)?;
    let s = &args.setup;
    let seq = s.seq.map_or(DEFAULTS.seq_for(d), |x| x as f64);
    let base = run_of(s, seq, pinned_layout(s, 1))?;
    let batch = match args.per_device_batch {
        Some(t) => Batch::Weak(t),
        None => Batch::Strong(base.global_batch_tokens),
    };
    let spec = Spec {
        devices: args.devices.0.clone(),
        batch,
        base,
        choice: if pins_layout(s) {
            Choice::Pinned
        } else {
            Choice::Search
        },
        knee: args.knee.unwrap_or(scale::DEFAULT_KNEE),
    };
    let a = assumptions_of(cat, &args.profile, &args.knobs, entry)?;
    let t = step_assumptions(cat, &args.profile, &args.knobs)?;
    let curve = scale::scale(hw, model, &spec, &a, &t)?;
    let rec = record(hw, &model.id, &spec, &curve);
    let fmt = args.profile.format;
    if fmt == Format::Json {
        let text = serde_json::to_string_pretty(&Value::Object(rec)).unwrap_or_default();
        return write(out, &(text + "\n"));
    }
    let rows: Vec<Map<String, Value>> = curve
        .points
        .iter()
        .map(|p| flat(&point_record(p, &curve)))
        .collect();
    if fmt == Format::Csv {
        return write(out, &render_list(&rows, CSV, fmt, style));
    }
    let mut text = wrap(&heading(&model.name, hw, &spec, &curve), style.width);
    text.push('\n');
    let cols = table_cols(&curve);
    text.push_str(&render_list(&rows, &cols, fmt, style));
    text.push_str(&wrap(&footer(&curve, &spec, style), style.width));
    write(out, &text)
}

/// The JSON contract: the question, each point and the knee.
fn record(hw: &Hardware, model: &str, spec: &Spec, c: &Scaling) -> Map<String, Value> {
    let mut r = Map::new();
    r.insert("model".into(), json!(model));
    r.insert("hardware".into(), json!(hw.id));
    r.insert("scaling".into(), json!(spec.batch.name()));
    match spec.batch {
        Batch::Strong(g) => r.insert("global_batch_tokens".into(), json!(g)),
        Batch::Weak(t) => r.insert("tokens_per_device".into(), json!(t)),
    };
    r.insert("seq".into(), json!(spec.base.seq));
    r.insert(
        "layout_choice".into(),
        json!(match spec.choice {
            Choice::Pinned => "pinned",
            Choice::Search => "fastest",
        }),
    );
    r.insert("knee_threshold".into(), json!(spec.knee));
    r.insert(
        "points".into(),
        Value::Array(
            c.points
                .iter()
                .map(|p| Value::Object(point_record(p, c)))
                .collect(),
        ),
    );
    r.insert(
        "knee".into(),
        c.knee.as_ref().map_or(
            Value::Null,
            |k| json!({"devices": k.devices, "reason": k.reason}),
        ),
    );
    r
}

pub(super) fn layout_record(run: &TrainingRun) -> Map<String, Value> {
    let mut m = Map::new();
    for (k, v) in run.layout.degrees() {
        m.insert(k.into(), json!(v));
    }
    m.insert("zero".into(), json!(run.zero));
    m.insert("recompute".into(), json!(run.recompute.name()));
    m.insert("micro_batch".into(), json!(run.micro_batch));
    m
}

/// One point: its figures, or null figures and the reason it does not run.
fn point_record(p: &Point, c: &Scaling) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("devices".into(), json!(p.devices));
    let f = match &p.outcome {
        Ok(f) => f,
        Err(why) => {
            m.insert("fits".into(), json!(false));
            m.insert("reason".into(), json!(why));
            for k in FIGURES {
                m.insert((*k).into(), Value::Null);
            }
            return m;
        }
    };
    let s = &f.step;
    m.insert("fits".into(), json!(true));
    m.insert("layout".into(), Value::Object(layout_record(&f.run)));
    m.insert("step_time_s".into(), json!(s.step_time_s));
    m.insert("tokens_per_s".into(), json!(s.tokens_per_s));
    m.insert(
        "tokens_per_s_per_device".into(),
        json!(f.tokens_per_s_per_device),
    );
    m.insert("tokens_per_device".into(), json!(s.tokens_per_device));
    m.insert("mfu".into(), json!(s.mfu));
    m.insert("efficiency".into(), json!(f.efficiency));
    m.insert("binding".into(), json!(s.binding.name()));
    let mut e = Map::new();
    for (k, v) in f.exposed.named() {
        e.insert(k.into(), json!(v));
    }
    m.insert("exposed".into(), Value::Object(e));
    m.insert(
        "knee".into(),
        json!(c.knee.as_ref().is_some_and(|k| k.devices == p.devices)),
    );
    m
}

/// The figures a point that does not run has none of.
const FIGURES: &[&str] = &[
    "layout",
    "step_time_s",
    "tokens_per_s",
    "tokens_per_s_per_device",
    "tokens_per_device",
    "mfu",
    "efficiency",
    "binding",
    "exposed",
];

/// The record with its layout and shares flattened for CSV and tables.
fn flat(rec: &Map<String, Value>) -> Map<String, Value> {
    let mut m = rec.clone();
    if let Some(Value::Object(l)) = rec.get("layout") {
        for (k, v) in l {
            m.insert(k.clone(), v.clone());
        }
        m.insert("layout_text".into(), json!(compact(l)));
    } else {
        m.insert("layout_text".into(), json!("none fits"));
    }
    if let Some(Value::Object(e)) = rec.get("exposed") {
        for (k, v) in e {
            m.insert(format!("exposed_{k}"), v.clone());
        }
    }
    m
}

/// "dp64 tp8 pp2 v2 z3 full mb2": dp, the other degrees above 1, the ZeRO
/// stage, a recomputation other than none, a micro-batch above 1.
fn compact(l: &Map<String, Value>) -> String {
    let n = |k: &str| l.get(k).and_then(Value::as_u64).unwrap_or(1);
    let mut parts = vec![format!("dp{}", n("dp"))];
    for k in ["tp", "pp", "ep", "cp", "v"] {
        if n(k) > 1 {
            parts.push(format!("{k}{}", n(k)));
        }
    }
    parts.push(format!("z{}", n("zero")));
    match l.get("recompute").and_then(Value::as_str) {
        Some("none") | None => {}
        Some(r) => parts.push(r.into()),
    }
    if n("micro_batch") > 1 {
        parts.push(format!("mb{}", n("micro_batch")));
    }
    parts.join(" ")
}

fn heading(name: &str, hw: &Hardware, spec: &Spec, c: &Scaling) -> String {
    let batch = match spec.batch {
        Batch::Strong(g) => format!(
            "strong scaling, a global batch of {} tokens",
            units::format_tokens(g)
        ),
        Batch::Weak(t) => format!(
            "weak scaling, {} tokens per device",
            units::format_tokens(t)
        ),
    };
    let r = &spec.base;
    let layout = match spec.choice {
        Choice::Search => "each count's fastest layout that fits".to_string(),
        Choice::Pinned => {
            let l = r.layout;
            format!(
                "tp {} x pp {} x ep {} x cp {}{}, ZeRO {}, recompute {}, micro-batch {} (dp what each count leaves)",
                l.tp,
                l.pp,
                l.ep,
                l.cp,
                if l.v > 1 {
                    format!(" (v {})", l.v)
                } else {
                    String::new()
                },
                r.zero,
                r.recompute.name(),
                r.micro_batch
            )
        }
    };
    let mut h = format!(
        "{name} on {}: {batch} in {}-token sequences; {layout}\n",
        hw.name,
        units::format_tokens(r.seq)
    );
    if let Some((n0, f0)) = c.reference() {
        h.push_str(&format!(
            "The ideal line: {} tokens/s per device, the rate at {n0} devices.\n",
            units::format_number(f0.tokens_per_s_per_device)
        ));
    }
    h
}

/// The knee, and why each point that does not run does not.
fn footer(c: &Scaling, spec: &Spec, style: Style) -> String {
    let mut f = String::new();
    let threshold = units::format_percent(spec.knee);
    match (&c.knee, c.reference()) {
        (Some(k), _) => {
            let eff = c
                .points
                .iter()
                .find(|p| p.devices == k.devices)
                .and_then(Point::figures)
                .map_or(0.0, |f| f.efficiency);
            f.push_str(&format!(
                "Knee at {} devices ({} of ideal, below {threshold}): {}.\n",
                k.devices,
                units::format_percent(eff),
                k.reason
            ));
        }
        (None, Some(_)) => f.push_str(&format!(
            "No knee: every count that runs keeps {threshold} of the ideal line or more.\n"
        )),
        (None, None) => f.push_str("No count runs, so there is no line to scale along.\n"),
    }
    let x = crate::solver::compare::Verdict::cross(style.ascii);
    for p in &c.points {
        if let Err(why) = &p.outcome {
            f.push_str(&format!(
                "{x} {}: {why}\n",
                crate::solver::replica_scale::devices_word(p.devices)
            ));
        }
    }
    f
}

/// The table: the exposed shares only of the terms some point has.
fn table_cols(c: &Scaling) -> Vec<Col> {
    let mut cols = vec![
        col("devices", "devices", Fmt::Int),
        col("layout", "layout_text", Fmt::Text),
        col("step", "step_time_s", Fmt::Time),
        col("tokens/s", "tokens_per_s", Fmt::Num),
        col("/device", "tokens_per_s_per_device", Fmt::Num).opt(2),
        col("MFU", "mfu", Fmt::Pct),
        col("eff", "efficiency", Fmt::Pct),
        col("binding", "binding", Fmt::Text),
    ];
    const SHARES: [Col; 6] = [
        col("dp", "exposed_dp", Fmt::Pct),
        col("tp", "exposed_tp", Fmt::Pct),
        col("pp", "exposed_pp", Fmt::Pct),
        col("ep", "exposed_ep", Fmt::Pct),
        col("cp", "exposed_cp", Fmt::Pct),
        col("bubble", "exposed_bubble", Fmt::Pct),
    ];
    for (i, share) in SHARES.into_iter().enumerate() {
        let any = c
            .points
            .iter()
            .filter_map(Point::figures)
            .any(|f| f.exposed.named()[i].1 > 0.0);
        if any {
            cols.push(share.opt(1));
        }
    }
    cols
}

const CSV: &[Col] = &[
    col("devices", "devices", Fmt::Int),
    col("fits", "fits", Fmt::Text),
    col("dp", "dp", Fmt::Int),
    col("tp", "tp", Fmt::Int),
    col("pp", "pp", Fmt::Int),
    col("ep", "ep", Fmt::Int),
    col("cp", "cp", Fmt::Int),
    col("v", "v", Fmt::Int),
    col("zero", "zero", Fmt::Int),
    col("recompute", "recompute", Fmt::Text),
    col("micro_batch", "micro_batch", Fmt::Int),
    col("step_time_s", "step_time_s", Fmt::Num),
    col("tokens_per_s", "tokens_per_s", Fmt::Num),
    col(
        "tokens_per_s_per_device",
        "tokens_per_s_per_device",
        Fmt::Num,
    ),
    col("tokens_per_device", "tokens_per_device", Fmt::Num),
    col("mfu", "mfu", Fmt::Num),
    col("efficiency", "efficiency", Fmt::Num),
    col("binding", "binding", Fmt::Text),
    col("exposed_dp", "exposed_dp", Fmt::Num),
    col("exposed_tp", "exposed_tp", Fmt::Num),
    col("exposed_pp", "exposed_pp", Fmt::Num),
    col("exposed_ep", "exposed_ep", Fmt::Num),
    col("exposed_cp", "exposed_cp", Fmt::Num),
    col("exposed_bubble", "exposed_bubble", Fmt::Num),
    col("knee", "knee", Fmt::Text),
    col("reason", "reason", Fmt::Text),
];
