//! `ridgeline synth`: the inverse roofline and the catalog devices that meet a target.

use super::args::{self, Format};
use super::output::{Fmt, Style, col, render_list, wrap};
use super::records::{num_or_null, workload_line};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::{self, RankBy, Workload, units};
use serde_json::{Map, Value, json};

pub(super) fn synth(
    cat: &Catalog,
    a: &args::SynthArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let asm = assumptions(cat, &a.workload)?;
    // The target's words decide the phase ("100ms ttft" is a prefill); a
    // plain time is the latency of --phase.
    let said = a.target.resolve(wl.phase);
    let (phase, mut target) = said.resolve(&wl);
    target.min_tokens_per_s = a.min_tokens_per_s;
    let wl = Workload { phase, ..wl };
    let target_text = said.to_string();
    let req = solver::synthesize(&model.model, &wl, &asm, &target, a.comm_share)?;
    let entries = devices(cat, &a.hardware)?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let by = match a.rank {
        args::RankArg::Cost => RankBy::Cost,
        args::RankArg::Latency => RankBy::Latency,
    };
    let matches = solver::rank(&hws, &model.model, &wl, &asm, &target, by)?;
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
    match a.workload.format {
        Format::Json => write(
            out,
            &(serde_json::to_string_pretty(&Value::Object(rec)).unwrap_or_default() + "\n"),
        )?,
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
    if !req.feasible {
        return Err(CliError::Verdict(format!(
            "the target of {target_text} cannot be met: {}",
            req.reason.unwrap_or_default()
        )));
    }
    if matches.is_empty() {
        let floor = a
            .min_tokens_per_s
            .map(|r| format!(" with at least {} tokens/s", units::format_number(r)))
            .unwrap_or_default();
        return Err(CliError::Verdict(format!(
            "no catalog device meets {target_text}{floor} and fits"
        )));
    }
    Ok(())
}
