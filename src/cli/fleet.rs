//! `ridgeline fleet`: the cheapest fleet that meets serving SLAs.

use super::args::{FleetArgs, Format};
use super::output::{Fmt, Style, col, render_list, wrap};
use super::serve::{regions, request};
use super::{CliError, Out, assumptions, devices, workload, write};
use crate::catalog::Catalog;
use crate::solver::Precisions;
use crate::solver::economics::{self, DEFAULT_IDLE_SHARE, HOURS_PER_YEAR};
use crate::solver::fleet::{self, FleetSpec, ModeChoice, Search};
use crate::solver::units;
use serde_json::{Map, Value, json};

/// A count in full below 100k, with a prefix beyond ("1.07G").
/// "1 replica", "82 replicas".
fn replicas(n: u64) -> String {
    if n == 1 {
        "1 replica".to_string()
    } else {
        format!("{} replicas", count(n))
    }
}

fn count(n: u64) -> String {
    if n < 100_000 {
        n.to_string()
    } else {
        units::format_count(n as f64)
    }
}

pub fn fleet(cat: &Catalog, a: &FleetArgs, style: Style, out: Out) -> Result<(), CliError> {
    let w = a.workload_args();
    let model = cat.model(&w.model)?;
    let regions = regions(cat, &a.region)?;
    if regions.is_empty() {
        return Err(CliError::Input("--region: name at least one region".into()));
    }
    let entries = devices(cat, &a.hardware)?;
    let hws: Vec<_> = entries.iter().map(|e| e.hw.clone()).collect();
    let wl = workload(&w, 1);
    let asm = assumptions(cat, &w, &entries)?;
    let idle = a.request.idle_power.unwrap_or(DEFAULT_IDLE_SHARE);
    let spec = FleetSpec {
        qps: a.qps,
        request: request(&a.request),
        ttft_sla_s: a.ttft,
        itl_sla_s: a.itl,
        budget_usd_per_year: a.budget,
        max_utilization: a.max_utilization.unwrap_or(fleet::DEFAULT_MAX_UTILIZATION),
    };
    let precisions = if a.prec.any() {
        vec![Precisions::of(&wl)]
    } else {
        super::explore::list("precisions", &a.precisions, super::explore::precision)?
    };
    let mode = ModeChoice::parse(&a.mode).ok_or_else(|| {
        CliError::Input(format!(
            "--mode: {:?} is not a mode; use auto, aggregated or disaggregated",
            a.mode
        ))
    })?;
    let shares = match &a.share {
        None => vec![1.0 / regions.len() as f64; regions.len()],
        Some(s) => {
            let v = super::explore::list("share", s, |x| {
                units::parse(x, units::Kind::Fraction).map_err(|e| e.to_string())
            })?;
            if v.len() != regions.len() {
                return Err(CliError::Input(format!(
                    "--share: {} shares for {} regions; give one per region, in --region order",
                    v.len(),
                    regions.len()
                )));
            }
            v
        }
    };
    let search = Search {
        precisions,
        mode,
        shares,
    };
    let plan = fleet::search(&hws, &model.model, &search, &spec, &asm, idle)?;
    let tokens_per_s = spec.qps * spec.request.output;
    // Each region sized for its share of the load: each record is that
    // region's own fleet; `total` adds them up.
    let grids: Vec<economics::Grid> = regions.iter().map(|r| r.grid()).collect();
    let region_recs = || -> (Vec<Value>, Value, Option<f64>) {
        let sp = fleet::regional(&plan.regions, &grids);
        let recs = regions
            .iter()
            .zip(&sp.regions)
            .map(|(r, x)| {
                json!({
                    "region": r.id,
                    "qps": x.qps,
                    "share": x.share,
                    "replicas": x.replicas,
                    "devices": x.devices,
                    "cost_per_hour_usd": x.cost_per_hour_usd,
                    "kwh_per_day": x.daily.map(|d| d.kwh),
                    "kg_co2_per_day": x.daily.map(|d| d.kg_co2),
                    "electricity_usd_per_day": x.daily.map(|d| d.electricity_usd),
                    "co2_per_million_tokens_g": x.co2_per_mtok_g,
                })
            })
            .collect();
        let total = json!({
            "kwh_per_day": sp.total.map(|d| d.kwh),
            "kg_co2_per_day": sp.total.map(|d| d.kg_co2),
            "electricity_usd_per_day": sp.total.map(|d| d.electricity_usd),
            "co2_per_million_tokens_g": sp.co2_per_mtok_g,
        });
        (recs, total, sp.co2_per_mtok_g)
    };
    let option_rec = |o: &fleet::FleetOption| -> Map<String, Value> {
        let mut m = Map::new();
        let mut put = |k: &str, v: Value| {
            m.insert(k.to_string(), v);
        };
        put("hardware", json!(o.hardware_id));
        put("precision", json!(o.precision.label()));
        put("weights", json!(o.precision.weights.name()));
        put("activations", json!(o.precision.activations.name()));
        put("kv", json!(o.precision.kv.name()));
        put("mode", json!(o.mode.name()));
        let pool = |p: &fleet::Pool| {
            json!({
                "hardware": o.hardware_id,
                "tp": p.layout.tp,
                "pp": p.layout.pp,
                "replicas": p.replicas,
                "devices": p.devices,
                "utilization": p.utilization,
            })
        };
        put(
            "prefill",
            o.pools.as_ref().map_or(Value::Null, |p| pool(&p.prefill)),
        );
        put(
            "decode",
            o.pools.as_ref().map_or(Value::Null, |p| pool(&p.decode)),
        );
        put("tp", json!(o.layout.tp));
        put("pp", json!(o.layout.pp));
        put("batch", json!(o.batch));
        put("in_flight_per_replica", json!(o.in_flight));
        put("max_batch_per_replica", json!(o.max_batch));
        put("replicas", json!(o.replicas));
        put("devices", json!(o.devices));
        put("ttft_s", json!(o.ttft_s));
        put("itl_s", json!(o.itl_s));
        put("e2e_s", json!(o.e2e_s));
        put("utilization", json!(o.utilization));
        put("cost_per_hour_usd", json!(o.cost_per_hour_usd));
        put("cost_per_year_usd", json!(o.cost_per_year_usd()));
        put(
            "cost_per_million_tokens_usd",
            json!(o.cost_per_million_tokens_usd),
        );
        put("power_w", json!(o.power_w));
        put("energy_per_token_j", json!(o.energy_per_token_j));
        put("within_budget", json!(o.within_budget));
        m
    };
    let mut rec = Map::new();
    rec.insert("model".into(), json!(model.model.id));
    rec.insert("qps".into(), json!(spec.qps));
    rec.insert("output_tokens_per_s".into(), json!(tokens_per_s));
    rec.insert(
        "budget_usd_per_year".into(),
        json!(spec.budget_usd_per_year),
    );
    if let crate::solver::Arch::Decoder(d) = &model.model.arch {
        rec.insert(
            "kv_bytes_per_token".into(),
            json!(d.kv_bytes_per_token(wl.kv.bytes())),
        );
    }
    rec.insert("feasible".into(), json!(plan.best.is_some()));
    rec.insert("reason".into(), json!(plan.reason));
    if let Some(b) = &plan.best {
        rec.insert(
            "max_concurrent".into(),
            json!(crate::solver::fit::max_batch(
                &hws[b.device],
                &model.model,
                &crate::solver::Workload {
                    tp: b.layout.tp,
                    pp: b.layout.pp,
                    context: spec.request.prompt + spec.request.output,
                    ..wl
                },
                &asm
            )),
        );
        for (k, v) in option_rec(b) {
            rec.insert(k, v);
        }
        let (regs, total, co2) = region_recs();
        rec.insert("co2_per_million_tokens_g".into(), json!(co2));
        rec.insert("regions".into(), Value::Array(regs));
        rec.insert("total".into(), total);
        rec.insert(
            "figures".into(),
            json!("replicas, devices, cost, power and energy are the whole fleet's, every region added up; TTFT, ITL and utilization are the worst region's; each regions entry is that region's own fleet, sized for its share of the load"),
        );
    }
    rec.insert(
        "options".into(),
        Value::Array(
            plan.per_design
                .iter()
                .map(|o| Value::Object(option_rec(o)))
                .collect(),
        ),
    );
    // The Pareto front of cost against TTFT over every design's cheapest
    // fleet: cheapest first, each faster to a first token than the last.
    let front = fleet::front(&plan.per_design);
    rec.insert(
        "front".into(),
        Value::Array(
            front
                .iter()
                .map(|o| {
                    json!({
                        "hardware": o.hardware_id,
                        "precision": o.precision.label(),
                        "mode": o.mode.name(),
                        "tp": o.layout.tp,
                        "cost_per_hour_usd": o.cost_per_hour_usd,
                        "ttft_s": o.ttft_s,
                    })
                })
                .collect(),
        ),
    );
    if let (Some(b), Some(budget)) = (&plan.best, spec.budget_usd_per_year) {
        rec.insert("budget_verdict".into(), json!(budget_verdict(b, budget)));
    }
    // Over budget (or nothing meets the SLAs within it): what would fit,
    // one requirement at a time, found by the same search.
    let relaxed = match spec.budget_usd_per_year {
        Some(budget)
            if plan
                .best
                .as_ref()
                .is_none_or(|b| b.cost_per_year_usd() > budget) =>
        {
            fleet::within_budget(&hws, &model.model, &search, &spec, budget, &asm, idle)?
        }
        _ => Vec::new(),
    };
    if spec.budget_usd_per_year.is_some() {
        rec.insert(
            "within_budget_if".into(),
            Value::Array(
                relaxed
                    .iter()
                    .map(|r| {
                        json!({
                            "change": r.change.key(),
                            "value": r.value,
                            "design": design_words(&r.design),
                            "hardware": r.design.hardware_id,
                            "precision": r.design.precision.label(),
                            "mode": r.design.mode.name(),
                            "devices": r.design.devices,
                            "cost_per_year_usd": r.design.cost_per_year_usd(),
                        })
                    })
                    .collect(),
            ),
        );
    }
    rec.insert("unpriced_hardware".into(), json!(plan.unpriced));
    let fmt = w.format;
    if fmt == Format::Json {
        write(out, &(super::output::json_text(&Value::Object(rec)) + "\n"))?;
    } else {
        let mut s = String::new();
        if fmt != Format::Csv {
            s.push_str(&format!(
                "{}: {} requests/s, prompt {} tokens, output {} tokens; SLAs: TTFT {}, inter-token {}{}\n\n",
                model.model.name,
                units::format_number(spec.qps),
                units::format_tokens(spec.request.prompt),
                units::format_tokens(spec.request.output),
                units::format_time(spec.ttft_sla_s),
                units::format_time(spec.itl_sla_s),
                spec.budget_usd_per_year
                    .map(|b| format!("; budget {}/year", units::format_usd(b)))
                    .unwrap_or_default()
            ));
            match &plan.best {
                Some(b) => {
                    let layout = match &b.pools {
                        None => format!(
                            "{} of {} x {} (TP {} x PP {}) = {} devices; each replica has {} sequences in flight (its {} req/s x end-to-end), batch {} (room for {})",
                            replicas(b.replicas),
                            b.layout.devices(),
                            b.hardware_id,
                            b.layout.tp,
                            b.layout.pp,
                            count(b.devices),
                            units::format_number(b.in_flight),
                            units::format_number(spec.qps / b.replicas as f64),
                            b.batch,
                            count(b.max_batch),
                        ),
                        Some(p) => format!(
                            "prefill pool {} of {} x {} (TP {} x PP {}), decode pool {} of {} x {} (TP {} x PP {}, batch {}) = {} devices, {:.2} prefill devices per decode device",
                            replicas(p.prefill.replicas),
                            p.prefill.layout.devices(),
                            b.hardware_id,
                            p.prefill.layout.tp,
                            p.prefill.layout.pp,
                            replicas(p.decode.replicas),
                            p.decode.layout.devices(),
                            b.hardware_id,
                            p.decode.layout.tp,
                            p.decode.layout.pp,
                            b.batch,
                            count(b.devices),
                            p.prefill.devices as f64 / p.decode.devices.max(1) as f64,
                        ),
                    };
                    s.push_str(&format!(
                        "cheapest: {} {}, {}\n\
                         TTFT {}, inter-token {}, end-to-end {}; utilization {:.0}%\n\
                         {}/hour, {}/year, {} per million output tokens{}\n",
                        b.precision.label(),
                        b.mode.name(),
                        layout,
                        units::format_time(b.ttft_s),
                        units::format_time(b.itl_s),
                        units::format_time(b.e2e_s),
                        b.utilization * 100.0,
                        units::format_usd(b.cost_per_hour_usd),
                        units::format_usd(b.cost_per_hour_usd * HOURS_PER_YEAR),
                        // JSON's null (no output tokens to spread the
                        // cost over) reads "n/a", never "$inf".
                        if b.cost_per_million_tokens_usd.is_finite() {
                            units::format_usd(b.cost_per_million_tokens_usd)
                        } else {
                            "n/a".into()
                        },
                        match (b.within_budget, spec.budget_usd_per_year) {
                            (Some(true), Some(_)) => "; within budget".to_string(),
                            (Some(false), Some(x)) =>
                                format!("\nOVER BUDGET: {}", budget_verdict(b, x)),
                            _ => String::new(),
                        }
                    ));
                    if !relaxed.is_empty() {
                        s.push_str("within the budget, one change at a time:\n");
                        for r in &relaxed {
                            s.push_str(&format!("  {}\n", relaxation_words(r, &spec)));
                        }
                    }
                    let (regs, total, _) = region_recs();
                    let figs = |r: &Value| {
                        let f = |k: &str| r[k].as_f64().map_or("-".into(), units::format_number);
                        format!(
                            "{} kWh/day, {} kg CO2/day, {} g CO2 per million tokens",
                            f("kwh_per_day"),
                            f("kg_co2_per_day"),
                            f("co2_per_million_tokens_g")
                        )
                    };
                    if regs.len() > 1 {
                        s.push_str(
                            "each region sized for its share of the load (the figures above are the whole fleet's):\n",
                        );
                    }
                    for r in &regs {
                        s.push_str(&format!(
                            "  {}: {} req/s, {}, {} devices, {}/hour, {}\n",
                            r["region"].as_str().unwrap_or("?"),
                            units::format_number(r["qps"].as_f64().unwrap_or(0.0)),
                            replicas(r["replicas"].as_u64().unwrap_or(0)),
                            r["devices"].as_u64().unwrap_or(0),
                            units::format_usd(r["cost_per_hour_usd"].as_f64().unwrap_or(0.0)),
                            figs(r)
                        ));
                    }
                    if regs.len() > 1 {
                        s.push_str(&format!("  total: {}\n", figs(&total)));
                    }
                    s.push_str(&format!(
                        "\nthe front of cost against TTFT (no design both cheaper and faster):\n{}",
                        front_table(&front)
                    ));
                    s.push_str("\nthe cheapest option of each device, precision and mode:\n");
                }
                None => s.push_str(&format!(
                    "no configuration meets the SLAs: {}\n",
                    plan.reason.clone().unwrap_or_default()
                )),
            }
        }
        let cols = [
            col("hardware", "hardware", Fmt::Text),
            col("precision", "precision", Fmt::Text),
            col("mode", "mode", Fmt::Text),
            col("TP", "tp", Fmt::Int),
            col("PP", "pp", Fmt::Int).opt(3),
            col("batch", "batch", Fmt::Int).opt(5),
            col("replicas", "replicas", Fmt::Int),
            col("devices", "devices", Fmt::Int),
            col("TTFT", "ttft_s", Fmt::Time).opt(2),
            col("ITL", "itl_s", Fmt::Time).opt(1),
            col("$/hour", "cost_per_hour_usd", Fmt::Usd),
            col("$/M tok", "cost_per_million_tokens_usd", Fmt::Usd),
            col("in budget", "within_budget", Fmt::Text).opt(4),
        ];
        let opts: Vec<Map<String, Value>> = plan.per_design.iter().map(option_rec).collect();
        s = wrap(&s, style.width);
        s.push_str(&render_list(&opts, &cols, fmt, style));
        write(out, &s)?;
    }
    match &plan.best {
        None => Err(CliError::Verdict(format!(
            "no configuration meets the SLAs: {}",
            plan.reason.unwrap_or_default()
        ))),
        Some(b) if b.within_budget == Some(false) => Err(CliError::Verdict(format!(
            "the cheapest fleet costs {}/year, over the budget of {}/year",
            units::format_usd(b.cost_per_year_usd()),
            units::format_usd(spec.budget_usd_per_year.unwrap_or(0.0))
        ))),
        Some(_) => Ok(()),
    }
}

pub use crate::words::fleet_design as design_words;

/// "at most 612 requests/s: fp8 disaggregated on mi300x, prefill ... =
/// 306 devices, $4.98M/year".
pub fn relaxation_words(r: &fleet::Relaxation, spec: &FleetSpec) -> String {
    let what = match r.change {
        fleet::Relax::Qps => format!(
            "at most {} requests/s (not {})",
            units::format_number(r.value),
            units::format_number(spec.qps)
        ),
        fleet::Relax::Prompt => format!(
            "prompts of at most {} tokens (not {})",
            units::format_tokens(r.value),
            units::format_tokens(spec.request.prompt)
        ),
        fleet::Relax::Ttft => format!(
            "TTFT up to {} (not {})",
            units::format_time(r.value),
            units::format_time(spec.ttft_sla_s)
        ),
        fleet::Relax::Itl => format!(
            "inter-token up to {} (not {})",
            units::format_time(r.value),
            units::format_time(spec.itl_sla_s)
        ),
        fleet::Relax::OneRegion => "one region carrying the whole load".to_string(),
    };
    format!(
        "{what}: {} {} on {}, {}, {}/year",
        r.design.precision.label(),
        r.design.mode.name(),
        r.design.hardware_id,
        design_words(&r.design),
        units::format_usd(r.design.cost_per_year_usd())
    )
}

/// "nothing is within the $5M/year budget: the cheapest is $8.1M/year,
/// $3.1M over", or that it is within.
pub fn budget_verdict(b: &fleet::FleetOption, budget: f64) -> String {
    let year = b.cost_per_year_usd();
    if year <= budget {
        format!(
            "the cheapest, {}/year, is within the {}/year budget",
            units::format_usd(year),
            units::format_usd(budget)
        )
    } else {
        format!(
            "nothing is within the {}/year budget: the cheapest is {}/year, {} over",
            units::format_usd(budget),
            units::format_usd(year),
            units::format_usd(year - budget)
        )
    }
}

/// The front as a short text table, one design a line.
fn front_table(front: &[fleet::FleetOption]) -> String {
    let mut s = format!(
        "  {:<10} {:<9} {:<13} {:>3} {:>10} {:>9}\n",
        "hardware", "precision", "mode", "TP", "$/hour", "TTFT"
    );
    for o in front {
        s.push_str(&format!(
            "  {:<10} {:<9} {:<13} {:>3} {:>10} {:>9}\n",
            o.hardware_id,
            o.precision.label(),
            o.mode.name(),
            o.layout.tp,
            units::format_usd(o.cost_per_hour_usd),
            units::format_time(o.ttft_s)
        ));
    }
    s
}
