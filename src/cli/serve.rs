//! `ridgeline serve`: serving figures of one replica, money and carbon.

use super::args::{Format, RequestArgs, ServeArgs};
use super::output::{Fmt, Style, col, render_record, wrap};
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::{Catalog, Region};
use crate::solver::economics::{self, DEFAULT_IDLE_SHARE};
use crate::solver::serving::{self, Request};
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
    let model = cat.model(&a.workload.model)?;
    let region = cat.region(&a.region)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let asm = assumptions(&a.workload);
    let req = request(&a.request);
    let s = serving::serve(&hw.hw, &model.model, &wl, &req, &asm)?;
    let idle = a.request.idle_power.unwrap_or(DEFAULT_IDLE_SHARE);
    let devices = wl.tp.saturating_mul(wl.pp);
    let e = economics::economics(&hw.hw, devices, s.tokens_per_s, 1.0, idle);
    let grid = region.grid();
    let mut r = Map::new();
    let mut put = |k: &str, v: Value| {
        r.insert(k.to_string(), v);
    };
    put("hardware", json!(hw.hw.id));
    put("model", json!(model.model.id));
    put("batch", json!(wl.batch));
    put("prompt_tokens", json!(req.prompt));
    put("output_tokens", json!(req.output));
    put("ttft_s", json!(s.ttft_s));
    put("itl_s", json!(s.itl_s));
    put("e2e_s", json!(s.e2e_s));
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
    put("cost_per_hour_usd", json!(e.cost_per_hour_usd));
    put(
        "cost_per_million_tokens_usd",
        json!(e.cost_per_million_tokens_usd),
    );
    put("power_w", json!(e.power_w));
    put("energy_per_token_j", json!(e.energy_per_token_j));
    put("region", json!(region.id));
    put(
        "co2_per_million_tokens_g",
        json!(
            e.energy_per_token_j
                .map(|j| economics::co2_g(j * 1e6, &grid))
        ),
    );
    put("prefill_bottleneck", json!(s.prefill.bottleneck.name()));
    put("decode_bottleneck", json!(s.decode.bottleneck.name()));
    const COLS: &[super::output::Col] = &[
        col("time to first token", "ttft_s", Fmt::Time),
        col("inter-token latency", "itl_s", Fmt::Time),
        col("end-to-end request", "e2e_s", Fmt::Time),
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
    let fmt = a.workload.format;
    let mut text = String::new();
    if matches!(fmt, Format::Table | Format::Markdown) {
        let mut head = String::new();
        head.push_str(&format!(
            "{} on {}: weights {} / activations {} / KV {}, TP {} x PP {}\n",
            model.model.name, hw.hw.name, wl.weights, wl.activations, wl.kv, wl.tp, wl.pp
        ));
        head.push_str(&format!(
            "prompt {} tokens, output {} tokens, {} concurrent sequences; prefill is {}-bound, decode {}-bound; carbon for {}\n",
            units::format_tokens(req.prompt),
            units::format_tokens(req.output),
            units::format_count(wl.batch),
            s.prefill.bottleneck,
            s.decode.bottleneck,
            region.name
        ));
        if !s.fits {
            head.push_str(&format!(
                "DOES NOT FIT at full context: {} per device, {} usable; at most {} sequences\n",
                units::format_bytes(s.footprint.total()),
                units::format_bytes(s.usable_bytes),
                s.max_concurrent
            ));
        }
        text.push_str(&wrap(&head, style.width));
        text.push('\n');
    }
    text.push_str(&render_record(&r, COLS, fmt));
    write(out, &text)
}
