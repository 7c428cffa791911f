//! Money, energy and carbon.
//!
//! cost/hour = devices * price/hour; $ per million tokens = cost/hour /
//! (tokens/s * 3600) * 1e6; power = devices * TDP * (idle + (1 - idle) *
//! load); energy per token = power / tokens/s (= power * T / B for decode);
//! CO2 = energy * PUE * grid intensity.

use super::types::Hardware;

/// Share of TDP a device draws while idle. NVIDIA's H100 SXM idles near
/// 70-100 W of its 700 W TDP in nvidia-smi readings, and a serving node adds
/// host CPUs, memory and fans that do not idle down: 0.3 of TDP per device is
/// the named assumption, overridable.
pub const DEFAULT_IDLE_SHARE: f64 = 0.3;

/// Joules in a kilowatt-hour.
pub const J_PER_KWH: f64 = 3.6e6;

/// Hours in a (non-leap) year, for annual budgets.
pub const HOURS_PER_YEAR: f64 = 8760.0;

/// A grid region's figures (from the catalog's regions.toml).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Grid carbon intensity, grams CO2e per kWh.
    pub gco2_per_kwh: f64,
    /// Data-centre power usage effectiveness (>= 1).
    pub pue: f64,
    /// Electricity price, USD per kWh.
    pub usd_per_kwh: f64,
}

/// Money and energy of running `devices` devices at `tokens_per_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Economics {
    pub cost_per_hour_usd: Option<f64>,
    pub cost_per_million_tokens_usd: Option<f64>,
    /// Device power at this load, watts (before PUE).
    pub power_w: Option<f64>,
    pub energy_per_token_j: Option<f64>,
}

/// USD per million tokens: cost per hour / (tokens/s * 3600) * 1e6; None
/// when nothing is produced.
pub fn cost_per_million_tokens(cost_per_hour_usd: f64, tokens_per_s: f64) -> Option<f64> {
    (tokens_per_s > 0.0).then(|| cost_per_hour_usd / (tokens_per_s * 3600.0) * 1e6)
}

/// Cost and energy of `devices` devices of `hw` producing `tokens_per_s`,
/// busy a fraction `load` of the time.
pub fn economics(
    hw: &Hardware,
    devices: u32,
    tokens_per_s: f64,
    load: f64,
    idle_share: f64,
) -> Economics {
    let n = devices as f64;
    let cost_per_hour_usd = hw.price_per_hour_usd.map(|p| p * n);
    let per_token = |x: f64| (tokens_per_s > 0.0).then(|| x / tokens_per_s);
    let power_w = hw.tdp_w.map(|tdp| power(n, tdp, load, idle_share));
    Economics {
        cost_per_hour_usd,
        cost_per_million_tokens_usd: cost_per_hour_usd
            .and_then(|c| cost_per_million_tokens(c, tokens_per_s)),
        power_w,
        energy_per_token_j: power_w.and_then(per_token),
    }
}

/// Power of `n` devices: n * TDP * (idle + (1 - idle) * load), load clamped to [0, 1].
pub fn power(n: f64, tdp_w: f64, load: f64, idle_share: f64) -> f64 {
    let load = load.clamp(0.0, 1.0);
    n * tdp_w * (idle_share + (1.0 - idle_share) * load)
}

/// Grams of CO2e for `energy_j` joules at the facility (PUE) on `grid`.
pub fn co2_g(energy_j: f64, grid: &Grid) -> f64 {
    energy_j * grid.pue * grid.gco2_per_kwh / J_PER_KWH
}

/// A day of running at `power_w` on `grid`: facility kWh, kg CO2e, electricity USD.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Daily {
    pub kwh: f64,
    pub kg_co2: f64,
    pub electricity_usd: f64,
}

pub fn daily(power_w: f64, grid: &Grid) -> Daily {
    let kwh = power_w * 24.0 / 1000.0 * grid.pue;
    Daily {
        kwh,
        kg_co2: kwh * grid.gco2_per_kwh / 1000.0,
        electricity_usd: kwh * grid.usd_per_kwh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Peaks, Tier};

    fn h100() -> Hardware {
        Hardware {
            id: "h100".into(),
            name: "H100".into(),
            tier: Tier::Cloud,
            year: 2022,
            peaks: Peaks::default(),
            memory_bytes: 80e9,
            memory_bandwidth: 3.35e12,
            link_bandwidth: None,
            devices_per_node: 8,
            scaleout_bandwidth: None,
            host_bandwidth: None,
            torus: None,
            tdp_w: Some(700.0),
            price_per_hour_usd: Some(3.0),
            matmul: Peaks::default(),
        }
    }

    #[test]
    fn cost_and_energy_by_hand() {
        // 2 devices at $3/h = $6/h; 1000 tok/s = 3.6e6 tok/h: $6 / 3.6 = $1.667 per million.
        let e = economics(&h100(), 2, 1000.0, 1.0, 0.3);
        assert_eq!(e.cost_per_hour_usd, Some(6.0));
        assert!((e.cost_per_million_tokens_usd.unwrap() - 6.0 / 3.6).abs() < 1e-12);
        // Fully loaded: 2 * 700 W = 1400 W; per token 1.4 J.
        assert_eq!(e.power_w, Some(1400.0));
        assert!((e.energy_per_token_j.unwrap() - 1.4).abs() < 1e-12);
        // Idle: 2 * 700 * 0.3 = 420 W.
        assert!((power(2.0, 700.0, 0.0, 0.3) - 420.0).abs() < 1e-12);
    }

    #[test]
    fn carbon_by_hand() {
        // 3.6e6 J = 1 kWh; PUE 1.1 and 400 g/kWh: 440 g.
        let g = Grid {
            gco2_per_kwh: 400.0,
            pue: 1.1,
            usd_per_kwh: 0.1,
        };
        assert!((co2_g(3.6e6, &g) - 440.0).abs() < 1e-9);
        // 1 kW for a day: 24 kWh * 1.1 = 26.4 kWh, 10.56 kg, $2.64.
        let d = daily(1000.0, &g);
        assert!((d.kwh - 26.4).abs() < 1e-9);
        assert!((d.kg_co2 - 10.56).abs() < 1e-9);
        assert!((d.electricity_usd - 2.64).abs() < 1e-9);
    }
}
