//! The accepted range of every catalog figure (catalog/SCHEMA.md,
//! "Accepted ranges"). Physically generous: every built-in figure sits well
//! inside, and any figure inside keeps every derived quantity finite, so no
//! entry can make later commands fail with an overflow or a zero (a
//! `params = 1e308` overflows the bytes of the weights; `1e-300 TB/s` makes
//! every step take forever).

use std::ops::RangeInclusive;

/// An accepted range and how the schema writes it.
pub struct Limit {
    pub range: RangeInclusive<f64>,
    pub text: &'static str,
}

/// From a software float on a microcontroller (4 MFLOPS) to beyond any
/// accelerator (a B200 is 9e15 at fp4).
pub const FLOP_RATE: Limit = Limit {
    range: 1e3..=1e21,
    text: "\"1 kFLOPS\" to \"1000 EFLOPS\"",
};
/// From a slow serial link to beyond wafer-scale SRAM (21 PB/s).
pub const BANDWIDTH: Limit = Limit {
    range: 1e3..=1e18,
    text: "\"1 kB/s\" to \"1 EB/s\"",
};
/// From a microcontroller's SRAM (256 KiB) to far beyond any device.
pub const MEMORY: Limit = Limit {
    range: 1e3..=1e18,
    text: "\"1 kB\" to \"1 EB\"",
};
/// From an always-on sensor chip to a whole rack.
pub const POWER: Limit = Limit {
    range: 1e-6..=1e7,
    text: "\"0.001 mW\" to \"10 MW\"",
};
pub const PER_HOUR_USD: Limit = Limit {
    range: 1e-6..=1e6,
    text: "0.000001 to 1e6 (USD per hour)",
};
pub const PURCHASE_USD: Limit = Limit {
    range: 1e-2..=1e10,
    text: "0.01 to 1e10 (USD)",
};
/// From a keyword-spotting model (tens of thousands) to 1000 times the
/// largest published model.
pub const PARAMS: Limit = Limit {
    range: 1.0..=1e15,
    text: "1 to 1e15",
};
pub const FLOPS_PER_SAMPLE: Limit = Limit {
    range: 1.0..=1e18,
    text: "1 to 1e18",
};
pub const ACTIVATIONS: Limit = Limit {
    range: 0.0..=1e15,
    text: "0 to 1e15",
};
pub const GRID: Limit = Limit {
    range: 0.0..=5000.0,
    text: "0 to 5000 (gCO2/kWh)",
};
pub const PUE: Limit = Limit {
    range: 1.0..=10.0,
    text: "1 to 10",
};
pub const ELECTRICITY: Limit = Limit {
    range: 0.0..=100.0,
    text: "0 to 100 (USD/kWh)",
};
/// Whole-number fields.
pub const YEAR: RangeInclusive<u32> = 1940..=2100;
pub const DEVICES_PER_NODE: RangeInclusive<u32> = 1..=65_536;
/// One axis of a torus (a v5p pod is 16x20x28).
pub const TORUS_AXIS: RangeInclusive<u32> = 1..=4096;
pub const LAYERS: RangeInclusive<u32> = 1..=100_000;
pub const HIDDEN: RangeInclusive<u32> = 1..=1_048_576;
pub const HEADS: RangeInclusive<u32> = 1..=65_536;
pub const HEAD_DIM: RangeInclusive<u32> = 1..=65_536;
pub const FFN: RangeInclusive<u32> = 1..=16_777_216;
pub const VOCAB: RangeInclusive<u32> = 1..=100_000_000;
pub const MAX_CONTEXT: RangeInclusive<u32> = 1..=1_000_000_000;
pub const EXPERTS: RangeInclusive<u32> = 2..=1_000_000;
pub const TOP_K: RangeInclusive<u32> = 1..=1_000_000;
pub const LATENT: RangeInclusive<u32> = 1..=65_536;
pub const ROPE_DIM: RangeInclusive<u32> = 0..=65_536;

/// The rows of catalog/SCHEMA.md's "Accepted ranges" table: (fields, range).
/// A test keeps the schema equal to these.
pub fn schema_rows() -> Vec<(&'static str, String)> {
    let whole = |r: RangeInclusive<u32>| format!("{} to {}", r.start(), r.end());
    vec![
        ("`peak.*`", FLOP_RATE.text.to_string()),
        (
            "`memory_bandwidth`, `scale_up`, `scale_out`, `host`, `torus_link`",
            BANDWIDTH.text.to_string(),
        ),
        ("`memory`", MEMORY.text.to_string()),
        ("`tdp`", POWER.text.to_string()),
        ("`price.per_hour_usd`", PER_HOUR_USD.text.to_string()),
        ("`price.purchase_usd`", PURCHASE_USD.text.to_string()),
        ("`year`", whole(YEAR)),
        ("`devices_per_node`", whole(DEVICES_PER_NODE)),
        ("`torus` (each axis)", whole(TORUS_AXIS)),
        ("`params`, `active_params`", PARAMS.text.to_string()),
        ("`layers`", whole(LAYERS)),
        ("`hidden`", whole(HIDDEN)),
        ("`heads`, `kv_heads`", whole(HEADS)),
        ("`head_dim`", whole(HEAD_DIM)),
        ("`ffn`", whole(FFN)),
        ("`vocab`", whole(VOCAB)),
        ("`max_context`", whole(MAX_CONTEXT)),
        ("`experts`", whole(EXPERTS)),
        ("`top_k`", whole(TOP_K)),
        ("`kv_latent`", whole(LATENT)),
        ("`rope_dim`", whole(ROPE_DIM)),
        ("`flops_per_sample`", FLOPS_PER_SAMPLE.text.to_string()),
        (
            "`activation_elements_per_sample`",
            ACTIVATIONS.text.to_string(),
        ),
        ("`grid_gco2_per_kwh`", GRID.text.to_string()),
        ("`pue`", PUE.text.to_string()),
        ("`electricity_usd_per_kwh`", ELECTRICITY.text.to_string()),
    ]
}
