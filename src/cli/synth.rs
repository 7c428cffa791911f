//! `ridgeline synth`: the inverse roofline and the catalog devices that meet a target.

use super::args::{self, Format};
use super::output::{Fmt, Style, col, render_list, wrap};
use super::records::{num_or_null, workload_line};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::{self, NearestMiss, RankBy, Requirement, Resource, Shortfall, Workload, units};
use serde_json::{Map, Value, json};

pub(super) fn synth(
    cat: &Catalog,
    a: &args::SynthArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let entries = devices(cat, &a.hardware)?;
    let asm = assumptions(cat, &a.workload, &entries)?;
    // The target's words decide the phase ("100ms ttft" is a prefill); a
    // plain time is the latency of --phase.
    let said = a.target.resolve(wl.phase);
    let (phase, mut target) = said.resolve(&wl);
    target.min_tokens_per_s = a.min_tokens_per_s;
    let wl = Workload { phase, ..wl };
    let target_text = said.to_string();
    let req = solver::synthesize(&model.model, &wl, &asm, &target, a.comm_share)?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let by = match a.rank {
        args::RankArg::Cost => RankBy::Cost,
        args::RankArg::Latency => RankBy::Latency,
    };
    let matches = solver::rank(&hws, &model.model, &wl, &asm, &target, by)?;
    // When nothing meets it, the layout that comes closest and what it lacks.
    let nearest = if matches.is_empty() {
        solver::nearest_miss(&hws, &model.model, &wl, &asm, &target, a.comm_share)?
    } else {
        None
    };
    let floor = a
        .min_tokens_per_s
        .map(|r| format!(" with at least {} tokens/s", units::format_number(r)))
        .unwrap_or_default();
    let miss_line = nearest
        .as_ref()
        .map(|n| format!("nothing meets {target_text}{floor}; {}", miss_sentence(n)));
    // The verdict on stderr names the nearest layout only; the text says the rest.
    let miss_short = nearest.as_ref().map(|n| {
        format!(
            "nearest: {} at {}, {} over",
            layout_label(&n.layout),
            units::format_time(n.layout.latency_s),
            percent(n.over())
        )
    });
    let match_recs: Vec<Map<String, Value>> = matches
        .iter()
        .map(|m| {
            let mut r = Map::new();
            r.insert("hardware".into(), json!(m.hardware_id));
            r.insert("devices".into(), json!(m.devices()));
            r.insert("tp".into(), json!(m.layout.tp));
            r.insert("pp".into(), json!(m.layout.pp));
            r.insert("latency_s".into(), json!(m.latency_s));
            r.insert("tokens_per_s".into(), json!(m.tokens_per_s));
            r.insert("cost_per_hour_usd".into(), json!(m.cost_per_hour_usd));
            r
        })
        .collect();
    let mut rec = Map::new();
    rec.insert("model".into(), json!(model.model.id));
    rec.insert("target_latency_s".into(), json!(target.latency_s));
    rec.insert("target".into(), json!(target_text));
    rec.insert("phase".into(), json!(wl.phase.name()));
    rec.insert(
        "required_flops_per_s".into(),
        num_or_null(req.required_flops_per_s),
    );
    rec.insert(
        "required_memory_bandwidth_bytes_per_s".into(),
        num_or_null(req.required_memory_bandwidth),
    );
    rec.insert(
        "required_memory_bytes".into(),
        json!(req.required_memory_bytes),
    );
    rec.insert(
        "required_link_bandwidth_bytes_per_s".into(),
        json!(req.required_link_bandwidth),
    );
    rec.insert(
        "compute_precision".into(),
        json!(req.compute_precision.name()),
    );
    rec.insert("feasible".into(), json!(req.feasible));
    rec.insert("reason".into(), json!(req.reason));
    rec.insert(
        "matches".into(),
        Value::Array(match_recs.iter().cloned().map(Value::Object).collect()),
    );
    rec.insert(
        "nearest_miss".into(),
        json!(nearest.as_ref().map(miss_record)),
    );
    match a.workload.format {
        Format::Json => write(out, &(super::output::json_text(&Value::Object(rec)) + "\n"))?,
        fmt => {
            let mut s = String::new();
            if fmt != Format::Csv {
                s.push_str(&workload_line(
                    model,
                    &wl,
                    &format!(
                        "{} math, TP {} x PP {}; target {target_text}{}",
                        req.compute_precision,
                        wl.tp,
                        wl.pp,
                        a.min_tokens_per_s
                            .map(|r| format!(" and at least {} tokens/s", units::format_number(r)))
                            .unwrap_or_default()
                    ),
                ));
                if req.feasible {
                    s.push_str(&format!(
                        "required per device: {} peak, {} memory bandwidth, {} memory{}\n\n",
                        units::format_flops(req.required_flops_per_s),
                        units::format_bandwidth(req.required_memory_bandwidth),
                        units::format_bytes(req.required_memory_bytes),
                        req.required_link_bandwidth
                            .map(|l| format!(", {} link per direction", units::format_bandwidth(l)))
                            .unwrap_or_default()
                    ));
                } else {
                    s.push_str(&format!(
                        "infeasible: {}\n\n",
                        req.reason.clone().unwrap_or_default()
                    ));
                }
                if let Some(line) = &miss_line {
                    s.push_str(line);
                    s.push('\n');
                    s = wrap(&s, style.width);
                    return finish(out, s, &req, &target_text, &floor, miss_short.as_deref());
                }
                s.push_str(&format!(
                    "{} catalog layouts meet the target and fit",
                    matches.len()
                ));
                if matches.len() > a.top {
                    s.push_str(&format!(" (first {} shown; --top N for more)", a.top));
                }
                s.push_str(":\n");
                s = wrap(&s, style.width);
            }
            let cols = [
                col("hardware", "hardware", Fmt::Text),
                col("devices", "devices", Fmt::Int),
                col("TP", "tp", Fmt::Int),
                col("PP", "pp", Fmt::Int),
                col("latency", "latency_s", Fmt::Time),
                col("tokens/s", "tokens_per_s", Fmt::Num),
                col("$/hour", "cost_per_hour_usd", Fmt::Usd),
            ];
            let shown = if fmt == Format::Csv {
                &match_recs[..]
            } else {
                &match_recs[..match_recs.len().min(a.top)]
            };
            s.push_str(&render_list(shown, &cols, fmt, style));
            write(out, &s)?;
        }
    }
    if matches.is_empty() || !req.feasible {
        return verdict(&req, &target_text, &floor, miss_short.as_deref());
    }
    Ok(())
}

/// Write the text, then the verdict that nothing meets the target.
fn finish(
    out: Out,
    s: String,
    req: &Requirement,
    target_text: &str,
    floor: &str,
    miss: Option<&str>,
) -> Result<(), CliError> {
    write(out, &s)?;
    verdict(req, target_text, floor, miss)
}

/// Exit 3 with what was missed: the requirement's reason at the asked
/// layout, and the nearest layout of the catalog when there is one.
fn verdict(
    req: &Requirement,
    target_text: &str,
    floor: &str,
    miss: Option<&str>,
) -> Result<(), CliError> {
    let mut m = if req.feasible {
        format!("no catalog device meets {target_text}{floor} and fits")
    } else {
        format!(
            "the target of {target_text} cannot be met: {}",
            req.reason.clone().unwrap_or_default()
        )
    };
    if let Some(line) = miss {
        m.push_str(&format!("; {line}"));
    }
    Err(CliError::Verdict(m))
}

/// "2 x h200-sxm (TP 2)", "1 x a100-sxm-80gb", "16 x b200 (TP 8 x PP 2)".
fn layout_label(m: &solver::Match) -> String {
    let (tp, pp) = (m.layout.tp, m.layout.pp);
    let how = match (tp, pp) {
        (1, 1) => String::new(),
        (t, 1) => format!(" (TP {t})"),
        (1, p) => format!(" (PP {p})"),
        (t, p) => format!(" (TP {t} x PP {p})"),
    };
    format!("{} x {}{how}", m.devices(), m.hardware_id)
}

/// A requirement's figure in its unit.
fn figure(r: Resource, v: f64) -> String {
    match r {
        Resource::PeakFlops => units::format_flops(v),
        Resource::MemoryBandwidth | Resource::LinkBandwidth => units::format_bandwidth(v),
        Resource::MemoryCapacity => units::format_bytes(v),
    }
}

/// "nearest: 8 x h200-sxm (TP 8) at 6.1 ms, 22% over: memory bandwidth
/// 22% short (needs 6.2 TB/s per device, has 4.8 TB/s); peak FLOP/s and
/// memory enough".
fn miss_sentence(n: &NearestMiss) -> String {
    let mut s = format!(
        "nearest: {} at {}, {} over",
        layout_label(&n.layout),
        units::format_time(n.layout.latency_s),
        percent(n.over())
    );
    if !n.requirement.feasible {
        s.push_str(&format!(
            "; no hardware meets it at that layout: {}",
            n.requirement.reason.clone().unwrap_or_default()
        ));
        return s;
    }
    let (short, met): (Vec<&Shortfall>, Vec<&Shortfall>) =
        n.shortfalls.iter().partition(|x| x.short() > 0.0);
    let short: Vec<String> = short
        .iter()
        .map(|x| {
            format!(
                "{} {} short (needs {} per device, has {})",
                x.resource.name(),
                percent(x.short()),
                figure(x.resource, x.required),
                figure(x.resource, x.has)
            )
        })
        .collect();
    let met: Vec<&str> = met.iter().map(|x| x.resource.name()).collect();
    s.push_str(": ");
    s.push_str(&short.join("; "));
    if !met.is_empty() {
        s.push_str(&format!("; {} enough", and_list(&met)));
    }
    s
}

/// "a", "a and b", "a, b and c".
fn and_list(v: &[&str]) -> String {
    match v {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A share as a whole percent, never "0%" for a real miss.
fn percent(x: f64) -> String {
    let p = x * 100.0;
    if p > 0.0 && p < 1.0 {
        "<1%".into()
    } else {
        format!("{p:.0}%")
    }
}

/// The nearest miss as the JSON contract has it.
fn miss_record(n: &NearestMiss) -> Value {
    let m = &n.layout;
    json!({
        "hardware": m.hardware_id,
        "devices": m.devices(),
        "tp": m.layout.tp,
        "pp": m.layout.pp,
        "latency_s": m.latency_s,
        "limit_s": n.limit_s,
        "over": n.over(),
        "cost_per_hour_usd": m.cost_per_hour_usd,
        "feasible_at_layout": n.requirement.feasible,
        "reason": n.requirement.reason,
        "shortfalls": n.shortfalls.iter().map(|x| json!({
            "resource": x.resource.key(),
            "required": x.required,
            "has": x.has,
            "short": x.short(),
        })).collect::<Vec<_>>(),
    })
}
