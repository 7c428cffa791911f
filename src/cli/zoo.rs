//! `ridgeline zoo`: the catalog's devices, models and regions.

use super::args::{Format, ZooKind};
use super::output::{Col, Fmt, Style, col, render_list};
use super::records::{hardware_record, model_record};
use super::{CliError, Out, write};
use crate::catalog::device_class::DeviceClass;
use crate::catalog::{Catalog, ProfileEntry, profile};
use crate::solver::Assumptions;
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
    col("torus", "torus", Fmt::Text).opt(8),
    col("aliases", "aliases_text", Fmt::Text).opt(9),
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
        ZooKind::Profiles => {
            recs = cat.profiles.iter().flat_map(profile_records).collect();
            cols = PROFILE_COLS;
            if matches!(format, Format::Table | Format::Markdown) {
                let mut s = render_list(&recs, cols, format, style);
                s.push_str(
                    "\ndevice classes ([profile.class.NAME]; a profile's base values elsewhere):\n",
                );
                for k in DeviceClass::ALL {
                    s.push_str(&format!("  {:<12} {}\n", k.name(), k.help()));
                }
                s.push_str("\nassumption keys (profile files and --assume KEY=VALUE):\n");
                for k in profile::KEYS {
                    s.push_str(&format!("  {:<26} {}\n", k.key, k.help));
                }
                s.push_str("\ntraining keys (profile files and `train --assume KEY=VALUE`):\n");
                for k in profile::TRAINING_KEYS {
                    s.push_str(&format!("  {:<30} {}\n", k.key, k.help));
                }
                return write(out, &s);
            }
        }
    }
    write(out, &render_list(&recs, cols, format, style))
}

const PROFILE_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("class", "class_text", Fmt::Text),
    col("eta_c", "compute_efficiency", Fmt::Num),
    col("eta_m", "memory_efficiency", Fmt::Num),
    col("kernel", "kernel_time_s", Fmt::Time),
    col("collective", "collective_time_s", Fmt::Time),
    col("overhead", "overhead_s", Fmt::Time).opt(1),
    col("request", "request_time_s", Fmt::Time).opt(2),
    col("band", "band_base", Fmt::Num).opt(3),
    col("name", "name", Fmt::Text).opt(4),
];

/// A profile's rows for `zoo profiles`: its base values, then its values
/// for each device class it names.
fn profile_records(p: &ProfileEntry) -> Vec<Map<String, Value>> {
    let mut out = vec![profile_record(p, &p.assumptions, None)];
    for c in &p.classes {
        let mut m = profile_record(p, &c.assumptions, Some(c.class));
        m.insert("class_keys".into(), json!(c.keys));
        m.insert("fitted_keys".into(), json!(c.fitted_keys));
        out.push(m);
    }
    out
}

/// A profile with every assumption (its base values, or a class's), for
/// `zoo profiles`.
fn profile_record(
    p: &ProfileEntry,
    a: &Assumptions,
    class: Option<DeviceClass>,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("id".into(), json!(p.id));
    m.insert("class".into(), json!(class.map(DeviceClass::name)));
    m.insert(
        "class_text".into(),
        json!(class.map_or("-", DeviceClass::name)),
    );
    m.insert("name".into(), json!(p.name));
    m.insert("compute_efficiency".into(), json!(a.compute_efficiency));
    m.insert("memory_efficiency".into(), json!(a.memory_efficiency));
    m.insert("link_efficiency".into(), json!(a.link_efficiency));
    m.insert("overhead_s".into(), json!(a.overhead_s));
    m.insert("kernel_time_s".into(), json!(a.kernel_s));
    m.insert("request_time_s".into(), json!(a.request_s));
    m.insert("moe_layer_time_s".into(), json!(a.moe_layer_s));
    m.insert("collective_time_s".into(), json!(a.collective_s));
    m.insert("link_latency_s".into(), json!(a.link_latency_s));
    m.insert("collective".into(), json!(a.collective.name()));
    m.insert("fp16_accumulate".into(), json!(a.accumulate.name()));
    m.insert("gemm_half_rows".into(), json!(a.gemm_half_rows));
    m.insert(
        "low_precision_efficiency".into(),
        json!(a.low_precision_efficiency),
    );
    m.insert("attention_efficiency".into(), json!(a.attention_efficiency));
    m.insert("dequant_8bit".into(), json!(a.dequant_8bit));
    m.insert("dequant_4bit".into(), json!(a.dequant_4bit));
    m.insert("prefill_comm_overlap".into(), json!(a.prefill_comm_overlap));
    m.insert("usable_memory".into(), json!(a.usable_memory));
    m.insert("overlap".into(), json!(a.overlap));
    m.insert("band_base".into(), json!(a.band_base));
    m.insert("band_fixed".into(), json!(a.band_fixed));
    m.insert("band_devices".into(), json!(a.band_devices));
    m.insert("band_quantized".into(), json!(a.band_quantized));
    let mut training = Map::new();
    for k in profile::TRAINING_KEYS {
        let v = match profile::get_training(&p.training, k.key) {
            Some(profile::Got::Number(x) | profile::Got::Seconds(x)) => json!(x),
            Some(profile::Got::Name(n)) => json!(n),
            None => Value::Null,
        };
        training.insert(k.key.into(), v);
    }
    m.insert("training".into(), Value::Object(training));
    m.insert("year".into(), json!(p.year));
    m.insert("source".into(), json!(p.source));
    m.insert("extends".into(), json!(p.extends));
    m.insert("origin".into(), json!(p.origin));
    m
}
