//! `ridgeline serve`: serving figures of one replica, money and carbon.

use super::args::{Format, RequestArgs, ServeArgs};
use super::output::{Fmt, Style, col, render_list, render_record, wrap};
use super::records::{
    SERVE_RUN_KEYS as RUN_KEYS, layout_flags, on_fewest_line, set_aside, verdict_key,
};
use super::serve_modes;
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::{Catalog, Region};
use crate::solver::batching;
use crate::solver::compare::{Verdict, no_layout_reason};
use crate::solver::economics::{self, DEFAULT_IDLE_SHARE};
use crate::solver::serving::{self, Request, Serving};
use crate::solver::units;
use serde_json::{Map, Value, json};

pub(crate) fn request(r: &RequestArgs) -> Request {
    Request {
        prompt: r.prompt as f64,
        output: r.output as f64,
    }
}

/// Comma-separated regions, each looked up.
pub(crate) fn regions<'c>(cat: &'c Catalog, list: &str) -> Result<Vec<&'c Region>, CliError> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|r| Ok(cat.region(r)?))
        .collect()
}

pub fn serve(cat: &Catalog, a: &ServeArgs, style: Style, out: Out) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let w = a.workload_args();
    let model = cat.model(&w.model)?;
    let region = cat.region(&a.region)?;
    let wl = workload(&w, single_batch(&w)?);
    let asm = assumptions(cat, &w, &[hw])?;
    let req = request(&a.request);
    let s = serving::serve(&hw.hw, &model.model, &wl, &req, &asm)?;
    // Continuous batching when asked: its figures replace the static ones.
    let modes = serve_modes::batching(cat, &a.batching)?;
    let cont = match &modes {
        Some(b) => Some(batching::continuous(
            &hw.hw,
            &model.model,
            &wl,
            &req,
            b,
            &asm,
        )?),
        None => None,
    };
    let fits = cont.as_ref().map_or(s.fits, |c| c.fits);
    let idle = a.request.idle_power.unwrap_or(DEFAULT_IDLE_SHARE);
    let grid = region.grid();
    let devices = wl.tp.saturating_mul(wl.pp);
    // The figures of one replica on `devices` devices, as a record.
    let record = |s: &Serving, tokens_per_s: f64, devices: u32, fits: bool| -> Map<String, Value> {
        let e = economics::economics(&hw.hw, devices, tokens_per_s, 1.0, idle);
        let mut r = Map::new();
        let mut put = |k: &str, v: Value| {
            r.insert(k.to_string(), v);
        };
        put("hardware", json!(hw.hw.id));
        put("model", json!(model.model.id));
        put("batch", json!(s.decode.batch));
        put("prompt_tokens", json!(req.prompt));
        put("output_tokens", json!(req.output));
        put("ttft_s", json!(s.ttft_s));
        put("ttft_batch_s", json!(s.ttft_batch_s));
        put("itl_s", json!(s.itl_s));
        put("e2e_s", json!(s.e2e_s));
        put("e2e_batch_s", json!(s.e2e_batch_s));
        for (key, (lo, hi)) in [
            ("ttft_s", s.ttft_range()),
            ("itl_s", s.itl_range()),
            ("e2e_s", s.e2e_range()),
            ("tokens_per_s", s.tokens_per_s_range()),
        ] {
            put(&format!("{key}_low"), json!(lo));
            put(&format!("{key}_high"), json!(hi));
        }
        put("kv_bytes_per_token", json!(s.kv_bytes_per_token));
        put("kv_bytes_per_sequence", json!(s.kv_bytes_per_sequence));
        put("max_concurrent", json!(s.max_concurrent));
        put("tokens_per_s_per_user", json!(s.tokens_per_s_per_user));
        put("tokens_per_s", json!(s.tokens_per_s));
        put("fits", json!(s.fits));
        put("weights_bytes", json!(s.footprint.weights));
        put("kv_bytes", json!(s.footprint.kv));
        put("workspace_bytes", json!(s.footprint.workspace));
        put("free_bytes", json!(s.free_bytes()));
        put("memory_usable_bytes", json!(s.usable_bytes));
        put("devices", json!(devices));
        // A replica that does not fit has no cost: it does not run.
        let run = |x: Option<f64>| json!(x.filter(|_| fits));
        put("cost_per_hour_usd", run(e.cost_per_hour_usd));
        put(
            "cost_per_million_tokens_usd",
            run(e.cost_per_million_tokens_usd),
        );
        put("power_w", json!(e.power_w));
        put("energy_per_token_j", json!(e.energy_per_token_j));
        put("region", json!(region.id));
        put(
            "co2_per_million_tokens_g",
            run(e
                .energy_per_token_j
                .map(|j| economics::co2_g(j * 1e6, &grid))),
        );
        put("prefill_bottleneck", json!(s.prefill.bottleneck.name()));
        put("decode_bottleneck", json!(s.decode.bottleneck.name()));
        r
    };
    let mut r = match (&modes, &cont) {
        (Some(b), Some(c)) => {
            let mut r = record(&s, c.tokens_per_s, devices, c.fits);
            serve_modes::put_continuous(&mut r, &s, c, b);
            r
        }
        _ => {
            let mut r = record(&s, s.tokens_per_s, devices, s.fits);
            r.insert("batching".into(), json!("static"));
            r
        }
    };
    let at_fit = if fits {
        None
    } else {
        serving::at_fewest_devices(&hw.hw, &model.model, &wl, &req, &asm)?
    };
    let verdict = match (&at_fit, fits) {
        (_, true) => Verdict::Fits,
        (Some((p, _)), false) => Verdict::Needs(*p),
        (None, false) => Verdict::Never,
    };
    r.insert("verdict".into(), json!(verdict_key(verdict)));
    // The fewest devices are searched with static batching: under
    // continuous batching none is shown as if it ran.
    let running = at_fit.as_ref().filter(|_| cont.is_none()).map(|(p, x)| {
        let mut m = record(x, x.tokens_per_s, p.devices(), true);
        m.insert("tp".into(), json!(p.tp));
        m.insert("pp".into(), json!(p.pp));
        m
    });
    r.insert("at_min_devices_to_fit".into(), json!(running));
    if !fits {
        set_aside(&mut r, RUN_KEYS);
    }
    const COLS: &[super::output::Col] = &[
        col("time to first token", "ttft_s", Fmt::Time),
        col("  error band", "ttft_s", Fmt::TimeBand),
        col("  whole static batch", "ttft_batch_s", Fmt::Time),
        col("inter-token latency", "itl_s", Fmt::Time),
        col("  error band", "itl_s", Fmt::TimeBand),
        col("end-to-end request", "e2e_s", Fmt::Time),
        col("  error band", "e2e_s", Fmt::TimeBand),
        col("  whole static batch", "e2e_batch_s", Fmt::Time),
        col("tokens/s per user", "tokens_per_s_per_user", Fmt::Num),
        col("tokens/s, all sequences", "tokens_per_s", Fmt::Num),
        col("KV cache per token", "kv_bytes_per_token", Fmt::Bytes),
        col("KV cache per sequence", "kv_bytes_per_sequence", Fmt::Bytes),
        col("max concurrent sequences", "max_concurrent", Fmt::Int),
        col("memory: weights", "weights_bytes", Fmt::Bytes),
        col("memory: KV cache", "kv_bytes", Fmt::Bytes),
        col("memory: workspace", "workspace_bytes", Fmt::Bytes),
        col("memory: free", "free_bytes", Fmt::Bytes),
        col("$/hour", "cost_per_hour_usd", Fmt::Usd),
        col(
            "$ per million tokens",
            "cost_per_million_tokens_usd",
            Fmt::Usd,
        ),
        col("energy per token (J)", "energy_per_token_j", Fmt::Num),
        col(
            "g CO2 per million tokens",
            "co2_per_million_tokens_g",
            Fmt::Num,
        ),
    ];
    let fmt = w.format;
    let mut text = String::new();
    if matches!(fmt, Format::Table | Format::Markdown) {
        let mut head = String::new();
        head.push_str(&format!(
            "{} on {}: weights {} / activations {} / KV {}, TP {} x PP {}\n",
            model.model.name, hw.hw.name, wl.weights, wl.activations, wl.kv, wl.tp, wl.pp
        ));
        // The bounds are of the replica whose figures are shown.
        let bounds = match (fits, &running) {
            (true, _) => format!(
                "; prefill is {}-bound, decode {}-bound",
                s.prefill.bottleneck, s.decode.bottleneck
            ),
            (false, Some(_)) => at_fit
                .as_ref()
                .map(|(_, x)| {
                    format!(
                        "; on the fewest devices prefill is {}-bound, decode {}-bound",
                        x.prefill.bottleneck, x.decode.bottleneck
                    )
                })
                .unwrap_or_default(),
            (false, None) => String::new(),
        };
        head.push_str(&format!(
            "prompt {} tokens, output {} tokens, {} concurrent sequences{bounds}; carbon for {}\n",
            units::format_tokens(req.prompt),
            units::format_tokens(req.output),
            units::format_count(wl.batch),
            region.name
        ));
        head.push_str(&super::records::profile_line(cat, &w.profile, hw));
        if let (Some(b), Some(c)) = (&modes, &cont) {
            head.push_str(&serve_modes::text_head(c, b));
        }
        if let Some(c) = cont.as_ref().filter(|c| !c.fits) {
            let x = Verdict::cross(style.ascii);
            head.push_str(&format!(
                "{x} DOES NOT FIT at full context: {} per device{}, {} usable; no figures are shown: add devices (--tp, --pp) or lower --batch{}\n",
                units::format_bytes(c.footprint_bytes),
                if a.batching.draft.is_some() { " (the draft's weights and cache included)" } else { "" },
                units::format_bytes(s.usable_bytes),
                if a.batching.draft.is_some() { ", or take a smaller draft" } else { "" },
            ));
        } else if !s.fits && cont.is_none() {
            let x = Verdict::cross(style.ascii);
            head.push_str(&format!(
                "{x} DOES NOT FIT at full context: {} per device, {} usable; {}\n",
                units::format_bytes(s.footprint.total()),
                units::format_bytes(s.usable_bytes),
                match &at_fit {
                    Some((p, _)) => format!(
                        "needs {} devices ({}): the figures below are there",
                        p.devices(),
                        layout_flags(*p)
                    ),
                    None => no_layout_reason(&hw.hw).to_string(),
                }
            ));
        }
        text.push_str(&wrap(&head, style.width));
        text.push('\n');
    }
    // Figures only of a replica that runs: as asked, else on the fewest
    // devices that hold it; none when nothing does.
    // Under continuous batching: its rows in place of the KV and memory
    // ones, the four of money and carbon kept.
    let cols = match cont {
        Some(_) => serve_modes::continuous_cols(COLS, 4),
        None => COLS.to_vec(),
    };
    if fmt == Format::Csv {
        // One row, saying which configuration it is of; none when nothing runs.
        let mut cols = cols;
        cols.extend([
            col("configuration", "configuration", Fmt::Text),
            col("tp", "tp", Fmt::Int),
            col("pp", "pp", Fmt::Int),
        ]);
        let row = match (fits, &running) {
            (true, _) => {
                let mut m = r.clone();
                m.insert("configuration".into(), json!("as asked"));
                m.insert("tp".into(), json!(wl.tp));
                m.insert("pp".into(), json!(wl.pp));
                Some(m)
            }
            (false, Some(m)) => {
                let mut m = m.clone();
                m.insert("configuration".into(), json!("fewest devices that hold it"));
                Some(m)
            }
            (false, None) => None,
        };
        let rows: Vec<Map<String, Value>> = row.into_iter().collect();
        return write(out, &render_list(&rows, &cols, fmt, style));
    }
    match (fmt, fits, &running) {
        (Format::Json, ..) | (_, true, _) => text.push_str(&render_record(&r, &cols, fmt)),
        (_, false, Some(m)) => {
            if let Some((p, _)) = &at_fit {
                text.push_str(&wrap(&on_fewest_line(*p, hw), style.width));
            }
            text.push_str(&render_record(m, &cols, fmt))
        }
        (_, false, None) => {}
    }
    write(out, &text)
}
