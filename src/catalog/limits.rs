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
pub const MEMORY: Limit = Limit {
    range: 1e3..=1e18,
    text: "\"1 kB\" to \"1 EB\"",
};
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
pub const YEAR: RangeInclusive<u32> = 1940..=2100;
pub const DEVICES_PER_NODE: RangeInclusive<u32> = 1..=65_536;
pub const LAYERS: RangeInclusive<u32> = 1..=100_000;
pub const HIDDEN: RangeInclusive<u32> = 1..=1_048_576;
pub const HEADS: RangeInclusive<u32> = 1..=65_536;
pub const HEAD_DIM: RangeInclusive<u32> = 1..=65_536;
pub const FFN: RangeInclusive<u32> = 1..=16_777_216;
pub const VOCAB: RangeInclusive<u32> = 1..=100_000_000;
pub const MAX_CONTEXT: RangeInclusive<u32> = 1..=1_000_000_000;
pub const EXPERTS: RangeInclusive<u32> = 2..=1_000_000;
pub const LATENT: RangeInclusive<u32> = 1..=65_536;
pub const ROPE_DIM: RangeInclusive<u32> = 0..=65_536;

