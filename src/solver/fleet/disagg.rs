//! A disaggregated fleet option: a prefill pool and a decode pool of the
//! same device, each with its own layout, each sized on its own SLA.
//!
//! Prefill replicas run one prompt at a time (batch 1) and send its KV
//! cache over the prefill device's scale-out network: TTFT = prefill +
//! transfer. A prefill replica carries 1 / prefill requests per second.
//! Decode replicas run the largest batch B that fits at full context and
//! keeps a step within the inter-token SLA (the step grows with B, the
//! cost per token falls); one carries B / ((O - 1) ITL(B)) requests per
//! second. Each pool gets the fewest replicas that stay under the
//! utilization ceiling. Queueing beyond that headroom is not modelled, as
//! in the aggregated option.

use super::super::cost;
use super::super::economics::{self, HOURS_PER_YEAR};
use super::super::error::Result;
use super::super::fit;
use super::super::roofline::{self, Parallelism};
use super::super::types::{Arch, Assumptions, Hardware, Model, Phase, Precisions, Workload};
use super::{FleetOption, FleetSpec, MAX_REPLICAS, Mode, Pool, Pools};

/// The option of `hw` with prefill layout `prefill` and decode layout
/// `decode` (each a workload's tp, pp and precisions) at `spec.qps`; None
/// when a pool cannot meet its SLA, nothing fits, or the device has no
/// scale-out network for the transfer.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_disaggregated(
    device: usize,
    hw: &Hardware,
    model: &Model,
    prefill: &Workload,
    decode: &Workload,
    spec: &FleetSpec,
    a: &Assumptions,
    idle_share: f64,
) -> Result<Option<FleetOption>> {
    let Arch::Decoder(d) = &model.arch else {
        return Ok(None);
    };
    let Some(network) = hw.scaleout_bandwidth else {
        return Ok(None);
    };
    let req = spec.request;
    let out = req.output;
    let pw = Workload {
        phase: Phase::Prefill,
        batch: 1.0,
        context: req.prompt,
        ..*prefill
    };
    if cost::footprint(model, &pw).total() > hw.memory_bytes * a.usable_memory {
        return Ok(None);
    }
    let prefill_s = roofline::time_step(hw, model, &pw, a)?.latency_s;
    let transfer_bytes = d.kv_cache_bytes(req.prompt, prefill.kv.bytes());
    let transfer_s = super::super::batching::kv_transfer_s(transfer_bytes, network, a);
    let ttft_s = prefill_s + transfer_s;
    if ttft_s > spec.ttft_sla_s {
        return Ok(None);
    }
    // The decode pool: the largest batch within the SLA that fits.
    let full = Workload {
        phase: Phase::Decode,
        batch: 1.0,
        context: req.prompt + out,
        ..*decode
    };
    let max_batch = fit::max_batch(hw, model, &full, a);
    if max_batch == 0 {
        return Ok(None);
    }
    let step = |b: u64| -> Result<f64> {
        let w = Workload {
            batch: b as f64,
            context: req.prompt + out / 2.0,
            ..full
        };
        Ok(roofline::time_step(hw, model, &w, a)?.latency_s)
    };
    if step(1)? > spec.itl_sla_s {
        return Ok(None);
    }
    let (mut lo, mut hi) = (1u64, max_batch);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if step(mid)? <= spec.itl_sla_s {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let batch = lo;
    let itl_s = step(batch)?;
    let steps = (out - 1.0).max(1.0);
    let prefill_capacity = 1.0 / prefill_s;
    let decode_capacity = batch as f64 / (steps * itl_s);
    let replicas = |capacity: f64| -> Option<u64> {
        let n = (spec.qps / (capacity * spec.max_utilization))
            .ceil()
            .max(1.0);
        (n <= MAX_REPLICAS as f64).then_some(n as u64)
    };
    let (Some(rp), Some(rd)) = (replicas(prefill_capacity), replicas(decode_capacity)) else {
        return Ok(None);
    };
    // The pool is sized at batch B; at its share of the load a decode
    // replica holds lambda (O - 1) ITL sequences (Little's law), at most B.
    // Its step is taken at B, an upper bound: a lighter batch steps faster.
    let in_flight = spec.qps / rd as f64 * steps * itl_s;
    let decoding = in_flight.ceil().clamp(1.0, batch as f64) as u64;
    let per = |w: &Workload| (w.tp as u64).saturating_mul(w.pp as u64);
    let (dp, dd) = (rp.saturating_mul(per(&pw)), rd.saturating_mul(per(&full)));
    let devices = dp.saturating_add(dd);
    let (up, ud) = (
        spec.qps / (rp as f64 * prefill_capacity),
        spec.qps / (rd as f64 * decode_capacity),
    );
    let price = hw.price_per_hour_usd.unwrap_or(f64::INFINITY);
    let cost_per_hour_usd = price * devices as f64;
    let tokens_per_s = spec.qps * out;
    // Each pool draws power at its own load.
    let power_w = hw.tdp_w.map(|tdp| {
        economics::power(dp as f64, tdp, up, idle_share)
            + economics::power(dd as f64, tdp, ud, idle_share)
    });
    let layout = |w: &Workload| Parallelism { tp: w.tp, pp: w.pp };
    Ok(Some(FleetOption {
        device,
        hardware_id: hw.id.clone(),
        layout: layout(&full),
        batch: decoding,
        // Sequences on one decode replica (their prefill ran elsewhere).
        in_flight,
        max_batch,
        replicas: rp.saturating_add(rd),
        devices,
        ttft_s,
        step_s: itl_s,
        itl_s,
        e2e_s: ttft_s + steps * itl_s,
        replica_capacity_rps: decode_capacity,
        utilization: up.max(ud),
        cost_per_hour_usd,
        cost_per_million_tokens_usd: economics::cost_per_million_tokens(
            cost_per_hour_usd,
            tokens_per_s,
        )
        .unwrap_or(f64::INFINITY),
        power_w,
        energy_per_token_j: power_w.map(|p| p / tokens_per_s),
        within_budget: spec
            .budget_usd_per_year
            .map(|b| cost_per_hour_usd * HOURS_PER_YEAR <= b),
        precision: Precisions::of(decode),
        mode: Mode::Disaggregated,
        pools: Some(Pools {
            prefill: Pool {
                layout: layout(&pw),
                replicas: rp,
                devices: dp,
                utilization: up,
            },
            decode: Pool {
                layout: layout(&full),
                replicas: rd,
                devices: dd,
                utilization: ud,
            },
        }),
        qps: spec.qps,
    }))
}
