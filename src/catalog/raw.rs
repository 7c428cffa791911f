//! The TOML form of catalog entries (see catalog/SCHEMA.md). Unknown fields
//! are errors, so a typo is reported instead of silently ignored.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDevice {
    pub id: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub name: String,
    pub vendor: String,
    #[serde(default)]
    pub family: Option<String>,
    pub tier: String,
    pub year: u16,
    pub source: String,
    #[serde(default)]
    pub notes: Option<String>,
    pub memory: String,
    pub memory_bandwidth: String,
    #[serde(default)]
    pub tdp: Option<String>,
    pub peak: BTreeMap<String, String>,
    #[serde(default)]
    pub interconnect: Option<RawInterconnect>,
    #[serde(default)]
    pub price: Option<RawPrice>,
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInterconnect {
    #[serde(default)]
    pub scale_up: Option<String>,
    #[serde(default)]
    pub devices_per_node: Option<u32>,
    #[serde(default)]
    pub scale_out: Option<String>,
    /// For readers of the file; the entry's `notes` is what is shown.
    #[serde(default)]
    #[allow(dead_code)]
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPrice {
    #[serde(default)]
    pub per_hour_usd: Option<f64>,
    #[serde(default)]
    pub purchase_usd: Option<f64>,
    pub as_of: String,
    pub source: String,
    /// For readers of the file; the entry's `notes` is what is shown.
    #[serde(default)]
    #[allow(dead_code)]
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModel {
    pub id: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub name: String,
    pub family: String,
    pub kind: String,
    pub year: u16,
    pub source: String,
    #[serde(default)]
    pub notes: Option<String>,
    pub params: f64,
    pub layers: Option<u32>,
    pub hidden: Option<u32>,
    pub heads: Option<u32>,
    pub kv_heads: Option<u32>,
    pub head_dim: Option<u32>,
    pub ffn: Option<u32>,
    pub vocab: Option<u32>,
    pub tied_embeddings: Option<bool>,
    pub max_context: Option<u32>,
    pub experts: Option<u32>,
    pub top_k: Option<u32>,
    pub active_params: Option<f64>,
    pub kv_latent: Option<u32>,
    pub rope_dim: Option<u32>,
    pub flops_per_sample: Option<f64>,
    pub activation_elements_per_sample: Option<f64>,
    pub input: Option<String>,
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRegion {
    pub id: String,
    pub name: String,
    pub grid_gco2_per_kwh: f64,
    pub pue: f64,
    pub electricity_usd_per_kwh: f64,
    pub year: u16,
    pub source: String,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
}
