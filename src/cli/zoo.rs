//! `ridgeline zoo`: the catalog's devices, models and regions.

use super::args::{Format, ZooKind};
use super::output::{Col, Fmt, Style, col, render_list};
use super::records::{hardware_record, model_record};
use super::{CliError, Out, write};
use crate::catalog::Catalog;
use serde_json::{Map, Value, json};

const HW_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("bf16 (or fallback)", "peak_bf16_flops_per_s", Fmt::Flops),
    col("bandwidth", "memory_bandwidth_bytes_per_s", Fmt::Bandwidth),
    col("memory", "memory_bytes", Fmt::Bytes),
    col("ridge", "ridge_point_bf16", Fmt::Num).opt(2),
    col("$/hour", "price_per_hour_usd", Fmt::Usd).opt(3),
    col("year", "year", Fmt::Int).opt(4),
    col("tier", "tier", Fmt::Text).opt(5),
    col("link/dir", "link_bandwidth_bytes_per_s", Fmt::Bandwidth).opt(6),
    col("TDP W", "tdp_w", Fmt::Int).opt(7),
    col("aliases", "aliases_text", Fmt::Text).opt(8),
];

const MODEL_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("kind", "kind", Fmt::Text).opt(3),
    col("params", "params", Fmt::Params),
    col("layers", "layers", Fmt::Int).opt(2),
    col("heads", "heads", Fmt::Int).opt(4),
    col("KV heads", "kv_heads", Fmt::Int).opt(5),
    col("KV/token bf16", "kv_bytes_per_token_bf16", Fmt::Bytes),
    col("max context", "max_context", Fmt::Tokens).opt(1),
    col("hidden", "hidden", Fmt::Int).opt(6),
    col("family", "family", Fmt::Text).opt(7),
    col("aliases", "aliases_text", Fmt::Text).opt(8),
];

const REGION_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("name", "name", Fmt::Text).opt(1),
    col("gCO2/kWh", "grid_gco2_per_kwh", Fmt::Num),
    col("PUE", "pue", Fmt::Num),
    col("$/kWh", "electricity_usd_per_kwh", Fmt::Num),
    col("year", "year", Fmt::Int),
];

pub(super) fn zoo(
    cat: &Catalog,
    kind: ZooKind,
    format: Format,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let recs: Vec<Map<String, Value>>;
    let cols: &[Col];
    match kind {
        ZooKind::Hardware => {
            recs = cat.hardware.iter().map(hardware_record).collect();
            cols = HW_COLS;
        }
        ZooKind::Models => {
            recs = cat.models.iter().map(model_record).collect();
            cols = MODEL_COLS;
        }
        ZooKind::Regions => {
            recs = cat
                .regions
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    m.insert("id".into(), json!(r.id));
                    m.insert("name".into(), json!(r.name));
                    m.insert("grid_gco2_per_kwh".into(), json!(r.grid_gco2_per_kwh));
                    m.insert("pue".into(), json!(r.pue));
                    m.insert(
                        "electricity_usd_per_kwh".into(),
                        json!(r.electricity_usd_per_kwh),
                    );
                    m.insert("year".into(), json!(r.year));
                    m.insert("source".into(), json!(r.source));
                    m
                })
                .collect();
            cols = REGION_COLS;
        }
    }
    write(out, &render_list(&recs, cols, format, style))
}
