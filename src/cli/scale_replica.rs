//! `ridgeline scale --phase decode|prefill`: one inference replica split
//! over more devices (TP x PP), its latency and throughput against the
//! ideal line, and the knee where communication meets the work it splits.

use super::args::{DEFAULT_CONTEXT, Format, PhaseArg, ScaleArgs};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::train::assumptions_of;
use super::{CliError, Out, write};
use crate::catalog::Catalog;
use crate::solver::replica_scale::{ReplicaPoint, ReplicaScaling, scale_replica as solve};
use crate::solver::training::scale::DEFAULT_KNEE;
use crate::solver::{Phase, Workload, units};
use serde_json::{Map, Value, json};

/// The training flags a replica's scaling does not read, if one is given.
fn training_flag(args: &ScaleArgs) -> Option<&'static str> {
    let s = &args.setup;
    let k = &args.knobs;
    [
        ("--per-device-batch", args.per_device_batch.is_some()),
        ("--global-batch", s.global_batch.is_some()),
        ("--tp", s.tp.is_some()),
        ("--ep", s.ep.is_some()),
        ("--cp", s.cp.is_some()),
        ("--interleave", s.interleave.is_some()),
        ("--zero", s.zero.is_some()),
        ("--recompute", s.recompute.is_some()),
        ("--micro-batch", s.micro_batch.is_some()),
        ("--seq", s.seq.is_some()),
        ("--edge-layers", s.edge_layers.is_some()),
        ("--attention", s.attention.is_some()),
        ("--dropout", s.dropout),
        ("--dp-overlap", k.dp_overlap.is_some()),
        ("--tp-overlap", k.tp_overlap.is_some()),
        ("--ep-overlap", k.ep_overlap.is_some()),
        ("--cp-overlap", k.cp_overlap.is_some()),
        ("--overlap-slowdown", k.overlap_slowdown.is_some()),
        ("--attention-eff", k.attention_eff.is_some()),
        ("--moe-capacity", k.moe_capacity.is_some()),
        ("--matmul-ceiling", k.matmul_ceiling.is_some()),
        ("--cross-entropy", k.cross_entropy.is_some()),
        ("--low-precision-storage", k.low_precision_storage.is_some()),
        ("--grad-precision", k.grad_precision.is_some()),
        ("--allocator-overhead", k.allocator_overhead.is_some()),
    ]
    .into_iter()
    .find_map(|(flag, given)| given.then_some(flag))
}

pub fn scale_replica(
    cat: &Catalog,
    args: &ScaleArgs,
    phase: PhaseArg,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    if let Some(flag) = training_flag(args) {
        return Err(CliError::Input(format!(
            "{flag} is a training flag; with --phase, scale splits one replica over TP x PP (--pp pins the pipeline) at --batch and --context: leave out {flag}, or --phase to scale training"
        )));
    }
    let entry = cat.hardware(&args.hardware)?;
    let hw = &entry.hw;
    let model = &cat.model(&args.model)?.model;
    let p = args.setup.precision;
    let wl = Workload {
        phase: phase.into(),
        batch: args.batch.unwrap_or(1) as f64,
        context: args.context.unwrap_or(DEFAULT_CONTEXT) as f64,
        weights: p,
        activations: p,
        kv: p,
        tp: 1,
        pp: 1,
    };
    let a = assumptions_of(cat, &args.profile, &args.knobs, entry)?;
    let knee = args.knee.unwrap_or(DEFAULT_KNEE);
    let c = solve(hw, model, &wl, &args.devices.0, args.setup.pp, knee, &a)?;
    let rows: Vec<Map<String, Value>> = c.points.iter().map(|pt| point(pt, &c)).collect();
    let fmt = args.profile.format;
    if fmt == Format::Json {
        let mut r = Map::new();
        r.insert("model".into(), json!(model.id));
        r.insert("hardware".into(), json!(hw.id));
        r.insert("scaling".into(), json!(phase_name(wl.phase)));
        r.insert("batch".into(), json!(wl.batch));
        r.insert("context".into(), json!(wl.context));
        r.insert("knee_threshold".into(), json!(knee));
        r.insert(
            "points".into(),
            Value::Array(rows.into_iter().map(Value::Object).collect()),
        );
        r.insert(
            "knee".into(),
            c.knee.as_ref().map_or(
                Value::Null,
                |k| json!({"devices": k.devices, "reason": k.reason}),
            ),
        );
        let text = serde_json::to_string_pretty(&Value::Object(r)).unwrap_or_default();
        return write(out, &(text + "\n"));
    }
    let flat: Vec<Map<String, Value>> = rows.iter().map(flat).collect();
    if fmt == Format::Csv {
        return write(out, &render_list(&flat, CSV, fmt, style));
    }
    let step = match wl.phase {
        Phase::Prefill => "time to first token",
        _ => "inter-token latency",
    };
    let mut text = format!(
        "{} on {}: one {} replica, batch {}, context {}, {p}; each count's fastest TP x PP that fits; step = {step}\n",
        model.name,
        hw.name,
        phase_name(wl.phase),
        units::format_count(wl.batch),
        units::format_tokens(wl.context),
    );
    if let Some((n0, f0)) = c.reference() {
        text.push_str(&format!(
            "The ideal line: {} tokens/s per device, the rate at {n0} devices.\n",
            units::format_number(f0.tokens_per_s_per_device)
        ));
    }
    let mut text = wrap(&text, style.width);
    text.push('\n');
    text.push_str(&render_list(&flat, TABLE, fmt, style));
    text.push_str(&wrap(&footer(&c, knee, style), style.width));
    write(out, &text)
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Prefill => "prefill",
        _ => "decode",
    }
}

/// One point in the JSON contract's keys: `exposed` holds the shares of
/// the communication and of the fixed per-step costs.
fn point(p: &ReplicaPoint, c: &ReplicaScaling) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("devices".into(), json!(p.devices));
    let f = match &p.outcome {
        Ok(f) => f,
        Err(why) => {
            m.insert("fits".into(), json!(false));
            m.insert("reason".into(), json!(why));
            for k in [
                "layout",
                "step_time_s",
                "tokens_per_s",
                "tokens_per_s_per_device",
                "mfu",
                "efficiency",
                "binding",
                "exposed",
            ] {
                m.insert(k.into(), Value::Null);
            }
            return m;
        }
    };
    let e = &f.eval;
    m.insert("fits".into(), json!(true));
    m.insert(
        "layout".into(),
        json!({"tp": e.parallelism.tp, "pp": e.parallelism.pp}),
    );
    m.insert("step_time_s".into(), json!(e.latency_s));
    m.insert("tokens_per_s".into(), json!(e.tokens_per_s));
    m.insert(
        "tokens_per_s_per_device".into(),
        json!(f.tokens_per_s_per_device),
    );
    m.insert("mfu".into(), json!(e.mfu));
    m.insert("efficiency".into(), json!(f.efficiency));
    m.insert("binding".into(), json!(e.bottleneck.name()));
    m.insert(
        "exposed".into(),
        json!({"comm": f.comm_share, "fixed": f.fixed_share}),
    );
    m.insert(
        "knee".into(),
        json!(c.knee.as_ref().is_some_and(|k| k.devices == p.devices)),
    );
    m
}

fn flat(rec: &Map<String, Value>) -> Map<String, Value> {
    let mut m = rec.clone();
    match rec.get("layout") {
        Some(Value::Object(l)) => {
            let n = |k: &str| l.get(k).and_then(Value::as_u64).unwrap_or(1);
            m.insert("tp".into(), json!(n("tp")));
            m.insert("pp".into(), json!(n("pp")));
            m.insert(
                "layout_text".into(),
                json!(format!("tp{} pp{}", n("tp"), n("pp"))),
            );
        }
        _ => {
            m.insert("layout_text".into(), json!("none fits"));
        }
    }
    if let Some(Value::Object(e)) = rec.get("exposed") {
        for (k, v) in e {
            m.insert(format!("exposed_{k}"), v.clone());
        }
    }
    m
}

fn footer(c: &ReplicaScaling, knee: f64, style: Style) -> String {
    let threshold = units::format_percent(knee);
    let mut f = match (&c.knee, c.reference()) {
        (Some(k), _) => {
            let eff = c
                .points
                .iter()
                .find(|p| p.devices == k.devices)
                .and_then(ReplicaPoint::figures)
                .map_or(0.0, |f| f.efficiency);
            format!(
                "Knee at {} devices ({} of ideal, below {threshold}): {}.\n",
                k.devices,
                units::format_percent(eff),
                k.reason
            )
        }
        (None, Some(_)) => {
            format!("No knee: every count that runs keeps {threshold} of the ideal line or more.\n")
        }
        (None, None) => "No count runs, so there is no line to scale along.\n".to_string(),
    };
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

const TABLE: &[Col] = &[
    col("devices", "devices", Fmt::Int),
    col("layout", "layout_text", Fmt::Text),
    col("step", "step_time_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("/device", "tokens_per_s_per_device", Fmt::Num).opt(2),
    col("MFU", "mfu", Fmt::Pct),
    col("eff", "efficiency", Fmt::Pct),
    col("binding", "binding", Fmt::Text),
    col("comm", "exposed_comm", Fmt::Pct).opt(1),
    col("fixed", "exposed_fixed", Fmt::Pct).opt(1),
];

const CSV: &[Col] = &[
    col("devices", "devices", Fmt::Int),
    col("fits", "fits", Fmt::Text),
    col("tp", "tp", Fmt::Int),
    col("pp", "pp", Fmt::Int),
    col("step_time_s", "step_time_s", Fmt::Num),
    col("tokens_per_s", "tokens_per_s", Fmt::Num),
    col(
        "tokens_per_s_per_device",
        "tokens_per_s_per_device",
        Fmt::Num,
    ),
    col("mfu", "mfu", Fmt::Num),
    col("efficiency", "efficiency", Fmt::Num),
    col("binding", "binding", Fmt::Text),
    col("exposed_comm", "exposed_comm", Fmt::Num),
    col("exposed_fixed", "exposed_fixed", Fmt::Num),
    col("knee", "knee", Fmt::Text),
    col("reason", "reason", Fmt::Text),
];
