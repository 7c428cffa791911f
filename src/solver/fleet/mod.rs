//! Fleet sizing: for a request rate, prompt and output lengths and the TTFT
//! and inter-token SLAs, the cheapest per-replica configuration (device,
//! tensor and pipeline degrees, batch) and how many replicas it takes.
//!
//! Per replica: TTFT = prefill of one prompt, run alone; decode steps of the
//! sequences in generation at the mean context P + O/2 run between prefills.
//! Its capacity is the request rate its full batch B carries, 1 / (TTFT +
//! (O - 1) ITL(B) / B) requests/s (serving::replica_capacity). Replicas are
//! the fewest that keep each under the utilization ceiling and meet the
//! SLAs, and each replica runs at the batch its share of the load produces
//! (Little's law, [`steady_state`]), not at the most that fit. Queueing
//! delay is not modelled beyond the utilization headroom: TTFT is the
//! service time of a prompt.

use super::economics::{self, Daily, Grid, HOURS_PER_YEAR};
use super::error::{self, Result};
use super::fit;
use super::roofline::{self, Parallelism};
use super::serving::{self, Request};
use super::types::{Assumptions, Hardware, Model, Phase, Precisions, Workload};

mod budget;
mod disagg;
mod search;
pub use budget::{Relax, Relaxation, within_budget};
pub use disagg::evaluate_disaggregated;
pub use search::{ModeChoice, RegionalPlan, Search, front, search};

/// How a fleet serves: every replica prefills and decodes (aggregated), or
/// prompts go to a prefill pool and their caches to a decode pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Aggregated,
    Disaggregated,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Aggregated => "aggregated",
            Mode::Disaggregated => "disaggregated",
        }
    }
}

/// One pool of a disaggregated fleet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pool {
    pub layout: Parallelism,
    pub replicas: u64,
    pub devices: u64,
    /// Its replicas' load over their capacity.
    pub utilization: f64,
}

/// The prefill and decode pools of a disaggregated option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pools {
    pub prefill: Pool,
    pub decode: Pool,
}

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

/// One way to serve the load.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetOption {
    /// Index into the device slice given to `size_fleet`.
    pub device: usize,
    pub hardware_id: String,
    pub layout: Parallelism,
    /// Sequences decoding together on one replica at this load, rounded up:
    /// the batch the load produces (Little's law), not the most that fit.
    pub batch: u64,
    /// Sequences in flight on one replica (prefilling or decoding): its
    /// arrival rate times the time a request spends in the system.
    pub in_flight: f64,
    /// Most sequences one replica holds at full context (prompt + output).
    pub max_batch: u64,
    pub replicas: u64,
    /// replicas * tp * pp.
    pub devices: u64,
    pub ttft_s: f64,
    /// One decode step at `batch` sequences.
    pub step_s: f64,
    /// Mean gap between a user's tokens: the decode step stretched by the
    /// prefills that run between steps (step / (1 - arrival rate x TTFT)).
    pub itl_s: f64,
    pub e2e_s: f64,
    /// Requests per second one replica completes at its full batch.
    pub replica_capacity_rps: f64,
    /// Per-replica arrival rate / capacity.
    pub utilization: f64,
    pub cost_per_hour_usd: f64,
    pub cost_per_million_tokens_usd: f64,
    /// Device power at this utilization, watts (None without a TDP).
    pub power_w: Option<f64>,
    pub energy_per_token_j: Option<f64>,
    pub within_budget: Option<bool>,
    pub precision: Precisions,
    pub mode: Mode,
    /// The pools of a disaggregated option (None when aggregated).
    pub pools: Option<Pools>,
    /// Requests per second this option carries.
    pub qps: f64,
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

/// The lowest planned utilization accepted: below 1 % a fleet is sized for
/// a load it will not see (and the replica count runs to absurd sizes).
pub const MIN_UTILIZATION: f64 = 0.01;

/// How one replica of a layout runs at a per-replica arrival rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steady {
    /// Sequences decoding together (may be below 1 at a light load).
    pub decoding: f64,
    /// One decode step at that batch (at least one sequence).
    pub step_s: f64,
    /// Mean gap between a user's tokens.
    pub itl_s: f64,
    pub e2e_s: f64,
    /// Arrival rate x time in system.
    pub in_flight: f64,
}

/// Sequences one replica is sized for at most.
const MAX_REPLICA_BATCH: u64 = 1 << 20;

/// One replica's layout and request: device, model, layout and precisions
/// (`wl`), the request shape and the assumptions.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    pub hw: &'a Hardware,
    pub model: &'a Model,
    pub wl: &'a Workload,
    pub req: &'a Request,
    pub a: &'a Assumptions,
}

/// A replica of one layout: what does not depend on the load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replica {
    pub ttft_s: f64,
    /// Most sequences that fit at full context.
    pub max_batch: u64,
    /// Requests/s at the full batch: 1 / (TTFT + (O - 1) ITL(B) / B).
    pub capacity_rps: f64,
}

impl Layout<'_> {
    /// The decode step of `batch` sequences at the generation's mean context.
    pub fn step(&self, batch: f64) -> Result<f64> {
        let Layout {
            hw,
            model,
            wl,
            req,
            a,
        } = *self;
        let w = Workload {
            phase: Phase::Decode,
            batch,
            context: req.prompt + req.output / 2.0,
            ..*wl
        };
        Ok(roofline::time_step(hw, model, &w, a)?.latency_s)
    }

    /// The load-independent figures of a layout; None if not one full sequence fits.
    pub fn replica(&self) -> Result<Option<Replica>> {
        let Layout {
            hw,
            model,
            wl,
            req,
            a,
        } = *self;
        let full = Workload {
            phase: Phase::Decode,
            batch: 1.0,
            context: req.prompt + req.output,
            ..*wl
        };
        let max_batch = fit::max_batch(hw, model, &full, a).min(MAX_REPLICA_BATCH);
        if max_batch == 0 {
            return Ok(None);
        }
        let prefill = Workload {
            phase: Phase::Prefill,
            batch: 1.0,
            context: req.prompt,
            ..*wl
        };
        let ttft_s = roofline::time_step(hw, model, &prefill, a)?.latency_s;
        let b = max_batch as f64;
        let capacity_rps = serving::replica_capacity(ttft_s, self.step(b)?, b, req.output);
        Ok(Some(Replica {
            ttft_s,
            max_batch,
            capacity_rps,
        }))
    }

    /// The steady state of one replica at arrival rate `lambda` (requests/s).
    ///
    /// The replica runs each prompt's prefill alone, and between prefills one
    /// decode step for every sequence in generation. Prefills take a share
    /// p = lambda x TTFT of its time, so a sequence's O - 1 decode steps take
    /// (O - 1) ITL(n) / (1 - p), and by Little's law the n sequences decoding
    /// together satisfy n = lambda (O - 1) ITL(n) / (1 - p), that is
    /// lambda (TTFT + (O - 1) ITL(n) / n) = 1: the replica's capacity at batch n
    /// equals the load. ITL(n) / n falls as n grows, so there is one n, found
    /// here between 1 and the most that fit; below one sequence the replica
    /// idles between requests. None when the load exceeds what the full batch
    /// carries.
    pub fn steady_state(&self, r: &Replica, lambda: f64) -> Result<Option<Steady>> {
        let (ttft_s, max_batch) = (r.ttft_s, r.max_batch);
        let p = lambda * ttft_s;
        if p.is_nan() || p >= 1.0 || max_batch == 0 {
            return Ok(None);
        }
        let steps = (self.req.output - 1.0).max(0.0);
        // h(n) = lambda (TTFT + steps ITL(n) / n) - 1, falling in n.
        let h = |n: f64| -> Result<(f64, f64)> {
            let t = self.step(n)?;
            Ok((lambda * (ttft_s + steps * t / n) - 1.0, t))
        };
        let (h1, t1) = h(1.0)?;
        let (decoding, step_s) = if steps == 0.0 || h1 <= 0.0 {
            // One sequence at a time keeps up: it decodes alone.
            (lambda * steps * t1 / (1.0 - p), t1)
        } else {
            let hi = max_batch as f64;
            let (h_hi, t_hi) = h(hi)?;
            if h_hi > 0.0 {
                return Ok(None);
            }
            if h_hi == 0.0 {
                (hi, t_hi)
            } else {
                // Illinois false position in u = 1/n, where h is piecewise
                // linear (ITL is affine in n on each side of the roofline's kink).
                let (mut u0, mut f0, mut u1, mut f1) = (1.0, h1, 1.0 / hi, h_hi);
                let mut side = 0i8;
                let mut best = (hi, t_hi);
                for _ in 0..60 {
                    let u = (u0 * f1 - u1 * f0) / (f1 - f0);
                    let (f, t) = h(1.0 / u)?;
                    best = (1.0 / u, t);
                    if f.abs() < 1e-12 || (u0 - u1).abs() < 1e-12 * u {
                        break;
                    }
                    if (f > 0.0) == (f0 > 0.0) {
                        (u0, f0) = (u, f);
                        if side == 1 {
                            f1 /= 2.0;
                        }
                        side = 1;
                    } else {
                        (u1, f1) = (u, f);
                        if side == -1 {
                            f0 /= 2.0;
                        }
                        side = -1;
                    }
                }
                best
            }
        };
        let itl_s = step_s / (1.0 - p);
        let e2e_s = ttft_s + steps * itl_s;
        Ok(Some(Steady {
            decoding,
            step_s,
            itl_s,
            e2e_s,
            in_flight: lambda * e2e_s,
        }))
    }
}

/// Evaluate one layout (`wl`'s tensor and pipeline degrees and precisions)
/// at `replicas` replicas, or at the fewest that meet the SLAs and the
/// utilization ceiling when None. None if not one full sequence fits, the
/// replicas given cannot carry the load, or (when searching) no count
/// meets the inter-token SLA.
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
    let layout = Layout {
        hw,
        model,
        wl,
        req: &req,
        a,
    };
    let Some(r) = layout.replica()? else {
        return Ok(None);
    };
    let at = |n: u64| -> Result<Option<FleetOption>> {
        let lambda = spec.qps / n as f64;
        Ok(layout
            .steady_state(&r, lambda)?
            .map(|st| option(device, hw, wl, spec, idle_share, &r, &st, n)))
    };
    if let Some(n) = replicas {
        return at(n.max(1));
    }
    // The fewest replicas that keep each under the utilization ceiling...
    let planned = r.capacity_rps * spec.max_utilization;
    let first = (spec.qps / planned).ceil();
    if first.is_nan() || first > MAX_REPLICAS as f64 {
        return Ok(None);
    }
    let first = (first as u64).max(1);
    let ok = |o: &Option<FleetOption>| o.as_ref().is_some_and(|o| meets(o, spec));
    let o = at(first)?;
    if ok(&o) {
        return Ok(o);
    }
    // ...then more, while the inter-token latency misses: it falls as the
    // load per replica falls, down to one sequence decoding alone.
    if layout.step(1.0)? > spec.itl_sla_s {
        return Ok(None);
    }
    let (mut lo, mut hi) = (first, first.saturating_mul(2));
    loop {
        if ok(&at(hi)?) {
            break;
        }
        if hi >= MAX_REPLICAS {
            return Ok(None);
        }
        lo = hi;
        hi = hi.saturating_mul(2).min(MAX_REPLICAS);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(&at(mid)?) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    at(hi)
}

/// Most replicas a plan may have: beyond this, a load is not a fleet.
pub const MAX_REPLICAS: u64 = 1 << 32;

#[allow(clippy::too_many_arguments)]
fn option(
    device: usize,
    hw: &Hardware,
    wl: &Workload,
    spec: &FleetSpec,
    idle_share: f64,
    r: &Replica,
    st: &Steady,
    replicas: u64,
) -> FleetOption {
    let out = spec.request.output;
    let per_replica = (wl.tp as u64).saturating_mul(wl.pp as u64);
    let devices = replicas.saturating_mul(per_replica);
    let utilization = spec.qps / (replicas as f64 * r.capacity_rps);
    let price = hw.price_per_hour_usd.unwrap_or(f64::INFINITY);
    let cost_per_hour_usd = price * devices as f64;
    let tokens_per_s = spec.qps * out;
    let e = economics::economics(
        hw,
        devices.min(u32::MAX as u64) as u32,
        tokens_per_s,
        utilization.min(1.0),
        idle_share,
    );
    FleetOption {
        device,
        hardware_id: hw.id.clone(),
        layout: Parallelism {
            tp: wl.tp,
            pp: wl.pp,
        },
        batch: st.decoding.ceil().max(1.0) as u64,
        in_flight: st.in_flight,
        max_batch: r.max_batch,
        replicas,
        devices,
        ttft_s: r.ttft_s,
        step_s: st.step_s,
        itl_s: st.itl_s,
        e2e_s: st.e2e_s,
        replica_capacity_rps: r.capacity_rps,
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
        precision: Precisions::of(wl),
        mode: Mode::Aggregated,
        pools: None,
        qps: spec.qps,
    }
}

/// Whether an option meets both SLAs under the utilization ceiling.
pub fn meets(o: &FleetOption, spec: &FleetSpec) -> bool {
    o.ttft_s <= spec.ttft_sla_s
        && o.itl_s <= spec.itl_sla_s
        && o.utilization <= spec.max_utilization * (1.0 + 1e-12)
}

/// Search every priced device and tensor degree (powers of two inside a
/// node, with the fewest pipeline stages that hold one full sequence) for
/// the cheapest fleet that meets both SLAs. Each replica runs at the batch
/// its share of the load produces (see [`Layout::steady_state`]). `wl` gives the
/// precisions; its batch, phase, context and layout are searched over.
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
                let wl = Workload { pp, ..full1 };
                let layout = Layout {
                    hw,
                    model,
                    wl: &wl,
                    req: &req,
                    a,
                };
                // A layout the device cannot run (no link for its stages) is skipped.
                if let Ok(Some(r)) = layout.replica() {
                    best_ttft = best_ttft.min(r.ttft_s);
                    if let Ok(t) = layout.step(1.0) {
                        best_itl = best_itl.min(t);
                    }
                    if r.ttft_s <= spec.ttft_sla_s
                        && let Ok(Some(o)) =
                            evaluate_option(i, hw, model, &wl, spec, a, idle_share, None)
                        && meets(&o, spec)
                        && best_here.as_ref().is_none_or(|x| cheaper(&o, x))
                    {
                        best_here = Some(o);
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
        if best_ttft > spec.ttft_sla_s {
            format!(
                "no priced device prefills a {}-token prompt within the TTFT SLA (best {:.3} s)",
                req.prompt, best_ttft
            )
        } else {
            format!(
                "no priced device meets the inter-token SLA where its TTFT is met (best {:.4} s, one sequence decoding alone)",
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

/// One region's part of a fleet over several.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegionShare {
    /// Requests per second this region carries.
    pub qps: f64,
    /// Replicas in this region.
    pub replicas: u64,
    /// Its share of the load.
    pub share: f64,
    pub devices: u64,
    pub cost_per_hour_usd: f64,
    /// A day of this region's replicas at this load (None without a TDP).
    pub daily: Option<Daily>,
    /// g CO2e per million tokens made here (None without a TDP).
    pub co2_per_mtok_g: Option<f64>,
}

/// A fleet over regions, each region's part and the totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    pub regions: Vec<RegionShare>,
    /// The whole fleet's day: the regions' days added up.
    pub total: Option<Daily>,
    /// g CO2e per million tokens over the whole fleet: the regions' figures
    /// weighted by their share of the tokens.
    pub co2_per_mtok_g: Option<f64>,
}

/// The regions of a [`search`] answer: each region sized for its own
/// share of the load (`parts`, in the order of `grids`), its day and CO2
/// on its own grid.
pub fn regional(parts: &[FleetOption], grids: &[Grid]) -> Spread {
    let qps: f64 = parts.iter().map(|p| p.qps).sum();
    let regions = parts
        .iter()
        .zip(grids)
        .map(|(o, g)| RegionShare {
            qps: o.qps,
            replicas: o.replicas,
            share: if qps > 0.0 { o.qps / qps } else { 0.0 },
            devices: o.devices,
            cost_per_hour_usd: o.cost_per_hour_usd,
            daily: o.power_w.map(|p| economics::daily(p, g)),
            co2_per_mtok_g: o.energy_per_token_j.map(|j| economics::co2_g(j * 1e6, g)),
        })
        .collect();
    totals(regions)
}

/// The fleet's day and CO2 per million tokens from its regions'.
fn totals(regions: Vec<RegionShare>) -> Spread {
    let total = regions
        .iter()
        .map(|r| r.daily)
        .try_fold(Daily::default(), |t, d| {
            d.map(|d| Daily {
                kwh: t.kwh + d.kwh,
                kg_co2: t.kg_co2 + d.kg_co2,
                electricity_usd: t.electricity_usd + d.electricity_usd,
            })
        });
    let co2_per_mtok_g = regions
        .iter()
        .map(|r| r.co2_per_mtok_g.map(|c| c * r.share))
        .sum::<Option<f64>>();
    Spread {
        regions,
        total,
        co2_per_mtok_g,
    }
}
