//! Fleet sizing: for a request rate, prompt and output lengths and the TTFT
//! and inter-token SLAs, the cheapest per-replica configuration (device,
//! tensor and pipeline degrees, batch) and how many replicas it takes.
//!
//! Per replica: TTFT = prefill of one prompt; ITL = a decode step of B
//! sequences at the mean context P + O/2; capacity = 1 / (TTFT + (O - 1) ITL / B)
//! requests/s (serving::replica_capacity). Replicas = ceil(qps / (capacity *
//! max utilization)). Queueing delay is not modelled beyond that headroom:
//! TTFT is the service time of a prompt.

use super::economics::{self, HOURS_PER_YEAR};
use super::error::{self, Result};
use super::fit;
use super::roofline::{self, Parallelism};
use super::serving::{self, Request};
use super::types::{Assumptions, Hardware, Model, Phase, Workload};

/// What the fleet must do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetSpec {
    /// Requests per second.
    pub qps: f64,
    pub request: Request,
    /// Time-to-first-token SLA, seconds.
    pub ttft_sla_s: f64,
    /// Inter-token latency SLA, seconds.
    pub itl_sla_s: f64,
    /// Optional budget, USD per year.
    pub budget_usd_per_year: Option<f64>,
    /// Highest utilization a replica is planned at: headroom for bursts and
    /// queueing, which the model does not otherwise include.
    pub max_utilization: f64,
}

/// Plan replicas at no more than 80 % utilization: an M/M/1 queue at 0.8
/// waits 4x the service time on average, at 0.95 it waits 19x.
pub const DEFAULT_MAX_UTILIZATION: f64 = 0.8;

/// The lowest planned utilization accepted: below 1 % a fleet is sized for
/// a load it will not see (and the replica count runs to absurd sizes).
pub const MIN_UTILIZATION: f64 = 0.01;

/// The most devices a fleet option may take (2^30, about a billion): a
/// configuration that needs more is not an answer, and counts beyond it
/// would overflow the device arithmetic.
pub const MAX_FLEET_DEVICES: u64 = 1 << 30;

/// One way to serve the load.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetOption {
    /// Index into the device slice given to `size_fleet`.
    pub device: usize,
    pub hardware_id: String,
    pub layout: Parallelism,
    /// Concurrent sequences per replica.
    pub batch: u64,
    pub replicas: u64,
    /// replicas * tp * pp.
    pub devices: u64,
    pub ttft_s: f64,
    pub itl_s: f64,
    pub e2e_s: f64,
    /// Requests per second one replica completes.
    pub replica_capacity_rps: f64,
    /// qps / (replicas * capacity).
    pub utilization: f64,
    pub cost_per_hour_usd: f64,
    pub cost_per_million_tokens_usd: f64,
    /// Device power at this utilization, watts (None without a TDP).
    pub power_w: Option<f64>,
    pub energy_per_token_j: Option<f64>,
    pub within_budget: Option<bool>,
}

impl FleetOption {
    pub fn cost_per_year_usd(&self) -> f64 {
        self.cost_per_hour_usd * HOURS_PER_YEAR
    }
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetPlan {
    /// The cheapest option that meets both SLAs (None: nothing does).
    pub best: Option<FleetOption>,
    /// The cheapest option per device, cheapest first (for a ranked table).
    pub per_device: Vec<FleetOption>,
    /// Devices skipped for having no price.
    pub unpriced: Vec<String>,
    /// Why nothing met the SLAs, when nothing did.
    pub reason: Option<String>,
}

/// Check the fleet inputs.
pub fn validate_spec(s: &FleetSpec) -> Result<()> {
    error::bounded(
        "request rate",
        s.qps,
        1e9,
        "between 0 and 1e9 requests per second",
    )?;
    serving::validate_request(&s.request)?;
    error::positive("TTFT SLA", s.ttft_sla_s)?;
    error::positive("inter-token SLA", s.itl_sla_s)?;
    if let Some(b) = s.budget_usd_per_year {
        error::positive("budget", b)?;
    }
    error::fraction("maximum utilization", s.max_utilization)?;
    if s.max_utilization < MIN_UTILIZATION {
        return Err(error::SolverError::Invalid {
            field: "maximum utilization",
            value: s.max_utilization,
            expected: "at least 0.01 (1%): a fleet planned below 1% utilization is sized for a load it will not see",
        });
    }
    Ok(())
}

/// Evaluate one configuration (device, layout, batch) at `replicas`
/// replicas: its SLAs, capacity, cost and power. None if it does not fit,
/// or if it would take more than [`MAX_FLEET_DEVICES`] devices.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_option(
    device: usize,
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    spec: &FleetSpec,
    a: &Assumptions,
    idle_share: f64,
    replicas: Option<u64>,
) -> Result<Option<FleetOption>> {
    let req = spec.request;
    let full = Workload {
        phase: Phase::Decode,
        context: req.prompt + req.output,
        ..*wl
    };
    if fit::max_batch(hw, model, &full, a) < wl.batch as u64 {
        return Ok(None);
    }
    let ttft_s = roofline::time_step(
        hw,
        model,
        &Workload {
            phase: Phase::Prefill,
            batch: 1.0,
            context: req.prompt,
            ..*wl
        },
        a,
    )?
    .latency_s;
    let itl_s = roofline::time_step(
        hw,
        model,
        &Workload {
            phase: Phase::Decode,
            context: req.prompt + req.output / 2.0,
            ..*wl
        },
        a,
    )?
    .latency_s;
    Ok(option(
        device, hw, wl, spec, idle_share, ttft_s, itl_s, replicas,
    ))
}

#[allow(clippy::too_many_arguments)]
fn option(
    device: usize,
    hw: &Hardware,
    wl: &Workload,
    spec: &FleetSpec,
    idle_share: f64,
    ttft_s: f64,
    itl_s: f64,
    replicas: Option<u64>,
) -> Option<FleetOption> {
    let out = spec.request.output;
    let capacity = serving::replica_capacity(ttft_s, itl_s, wl.batch, out);
    let planned = capacity * spec.max_utilization;
    let per_replica = wl.tp as u64 * wl.pp as u64;
    // Counts in f64 first: a replica count past the limit is rejected, not wrapped.
    let needed = match replicas {
        Some(r) => r as f64,
        None => (spec.qps / planned).ceil().max(1.0),
    };
    let total = needed * per_replica as f64;
    if total.is_nan() || total > MAX_FLEET_DEVICES as f64 {
        return None;
    }
    let replicas = needed as u64;
    let devices = replicas * per_replica;
    let utilization = (spec.qps / (replicas as f64 * capacity)).min(1.0);
    let price = hw.price_per_hour_usd.unwrap_or(f64::INFINITY);
    let cost_per_hour_usd = price * devices as f64;
    let tokens_per_s = spec.qps * out;
    let e = economics::economics(hw, devices as u32, tokens_per_s, utilization, idle_share);
    Some(FleetOption {
        device,
        hardware_id: hw.id.clone(),
        layout: Parallelism {
            tp: wl.tp,
            pp: wl.pp,
        },
        batch: wl.batch as u64,
        replicas,
        devices,
        ttft_s,
        itl_s,
        e2e_s: ttft_s + (out - 1.0).max(0.0) * itl_s,
        replica_capacity_rps: capacity,
        utilization,
        cost_per_hour_usd,
        cost_per_million_tokens_usd: economics::cost_per_million_tokens(
            cost_per_hour_usd,
            tokens_per_s,
        )
        .unwrap_or(f64::INFINITY),
        power_w: e.power_w,
        energy_per_token_j: e.energy_per_token_j,
        within_budget: spec
            .budget_usd_per_year
            .map(|b| cost_per_hour_usd * HOURS_PER_YEAR <= b),
    })
}

/// Whether an option meets both SLAs and the load.
pub fn meets(o: &FleetOption, spec: &FleetSpec) -> bool {
    o.ttft_s <= spec.ttft_sla_s
        && o.itl_s <= spec.itl_sla_s
        && o.replicas as f64 * o.replica_capacity_rps * spec.max_utilization
            >= spec.qps * (1.0 - 1e-12)
}

/// Search every priced device, tensor degree (powers of two inside a node),
/// the fewest pipeline stages that hold one full sequence, and batches in
/// powers of two up to the most that fit, for the cheapest fleet that meets
/// both SLAs. `wl` gives the precisions; its batch, phase, context and
/// layout are searched over.
pub fn size_fleet(
    devices: &[Hardware],
    model: &Model,
    wl: &Workload,
    spec: &FleetSpec,
    a: &Assumptions,
    idle_share: f64,
) -> Result<FleetPlan> {
    roofline::validate_model(model)?;
    roofline::validate_assumptions(a)?;
    validate_spec(spec)?;
    error::unit_interval("idle share", idle_share)?;
    if !model.kind.is_decoder() {
        return Err(error::SolverError::Unsupported(format!(
            "{} is a single-pass model: fleet sizing is for decoders",
            model.id
        )));
    }
    let req = spec.request;
    let mut per_device: Vec<FleetOption> = Vec::new();
    let mut unpriced = Vec::new();
    let mut best_ttft = f64::INFINITY;
    let mut best_itl = f64::INFINITY;
    let mut too_large = false;
    for (i, hw) in devices.iter().enumerate() {
        if roofline::validate_hardware(hw).is_err() {
            continue;
        }
        if hw.price_per_hour_usd.is_none() {
            unpriced.push(hw.id.clone());
            continue;
        }
        let mut best_here: Option<FleetOption> = None;
        let mut tp = 1;
        while tp <= fit::max_tp(hw, model) {
            if !fit::tp_splits(model, tp) {
                tp *= 2;
                continue;
            }
            let full1 = Workload {
                phase: Phase::Decode,
                batch: 1.0,
                context: req.prompt + req.output,
                tp,
                pp: 1,
                ..*wl
            };
            if let Some(pp) = fit::fewest_stages(hw, model, &full1, a, tp) {
                let layout = Workload { pp, ..full1 };
                let max_b = fit::max_batch(hw, model, &layout, a).min(1 << 20);
                let prefill = Workload {
                    phase: Phase::Prefill,
                    context: req.prompt,
                    ..layout
                };
                // A layout the device cannot run (no link for its stages) is skipped.
                let ttft_s = roofline::time_step(hw, model, &prefill, a)
                    .map_or(f64::INFINITY, |t| t.latency_s);
                best_ttft = best_ttft.min(ttft_s);
                if ttft_s <= spec.ttft_sla_s {
                    let mut b = 1u64;
                    while b <= max_b {
                        let step = Workload {
                            batch: b as f64,
                            context: req.prompt + req.output / 2.0,
                            ..layout
                        };
                        let Ok(t) = roofline::time_step(hw, model, &step, a) else {
                            break;
                        };
                        let itl_s = t.latency_s;
                        best_itl = best_itl.min(itl_s);
                        // ITL only grows with batch: stop at the first miss.
                        if itl_s > spec.itl_sla_s {
                            break;
                        }
                        let Some(o) = option(i, hw, &step, spec, idle_share, ttft_s, itl_s, None)
                        else {
                            too_large = true;
                            b *= 2;
                            continue;
                        };
                        if best_here.as_ref().is_none_or(|x| cheaper(&o, x)) {
                            best_here = Some(o);
                        }
                        b *= 2;
                    }
                }
            }
            tp *= 2;
        }
        if let Some(o) = best_here {
            per_device.push(o);
        }
    }
    per_device.sort_by(|x, y| {
        x.cost_per_hour_usd
            .total_cmp(&y.cost_per_hour_usd)
            .then(x.itl_s.total_cmp(&y.itl_s))
    });
    let best = per_device.first().cloned();
    let reason = best.is_none().then(|| {
        if too_large && best_ttft <= spec.ttft_sla_s && best_itl <= spec.itl_sla_s {
            format!(
                "every configuration that meets the SLAs needs more than {MAX_FLEET_DEVICES} devices for {} requests/s at {:.0}% utilization",
                super::units::format_number(spec.qps),
                spec.max_utilization * 100.0
            )
        } else if best_ttft > spec.ttft_sla_s {
            format!(
                "no priced device prefills a {}-token prompt within the TTFT SLA (best {:.3} s)",
                req.prompt, best_ttft
            )
        } else {
            format!(
                "no priced device meets the inter-token SLA where its TTFT is met (best {:.4} s)",
                best_itl
            )
        }
    });
    Ok(FleetPlan {
        best,
        per_device,
        unpriced,
        reason,
    })
}

fn cheaper(a: &FleetOption, b: &FleetOption) -> bool {
    a.cost_per_hour_usd < b.cost_per_hour_usd
        || (a.cost_per_hour_usd == b.cost_per_hour_usd && a.itl_s < b.itl_s)
}
