//! Inverse roofline: the least hardware that meets a latency target, and the
//! catalog devices (with counts) that do.
//!
//! With a budget R = T* - tau - (fixed link latencies), a share of R goes to
//! communication when there is any (default 10 %), and the rest to the
//! roofline term. With overlap w, T = max + (1 - w) min, the cheapest balanced
//! device has t_compute = t_memory = x = R' / (2 - w), so
//! required FLOP/s = FLOPs / (eta_c x) and required bandwidth = bytes / (eta_m x),
//! per tensor-parallel rank. A device with exactly these figures meets the
//! target exactly (the round trip the tests check).

use super::collective::{self, CommCost};
use super::cost;
use super::error::{self, Result};
use super::fit;
use super::roofline::{self, Parallelism};
use super::types::{
    Arch, Assumptions, Collective, Hardware, Model, Peaks, Precision, Tier, Workload,
};
use super::units;

/// Share of the time budget given to communication when a layout has any.
pub const DEFAULT_COMM_SHARE: f64 = 0.1;

/// What the target must meet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// Inter-token latency (decode), time to first token (prefill) or batch
    /// latency (single-pass), seconds.
    pub latency_s: f64,
    /// Optional minimum throughput, tokens (or samples) per second.
    pub min_tokens_per_s: Option<f64>,
}

/// The least hardware, per device of the workload's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    pub feasible: bool,
    /// Why not, when infeasible.
    pub reason: Option<String>,
    pub compute_precision: Precision,
    pub required_flops_per_s: f64,
    pub required_memory_bandwidth: f64,
    pub required_memory_bytes: f64,
    /// None when the layout needs no communication.
    pub required_link_bandwidth: Option<f64>,
}

impl Requirement {
    /// A device with exactly the required figures, for round trips and
    /// for drawing the "needed" roof.
    pub fn as_hardware(&self, wl: &Workload) -> Hardware {
        let mut peaks = Peaks::default();
        peaks.set(self.compute_precision, Some(self.required_flops_per_s));
        Hardware {
            id: "required".into(),
            name: "required hardware".into(),
            tier: Tier::Cloud,
            year: 0,
            peaks,
            memory_bytes: self.required_memory_bytes,
            memory_bandwidth: self.required_memory_bandwidth,
            link_bandwidth: self.required_link_bandwidth,
            devices_per_node: wl.tp.saturating_mul(wl.pp),
            scaleout_bandwidth: None,
            host_bandwidth: None,
            torus: None,
            tdp_w: None,
            price_per_hour_usd: None,
            matmul: Peaks::default(),
        }
    }
}

/// The target's effective latency: a throughput floor tightens it, since a
/// step of `tokens` must finish in tokens / min_rate.
fn effective_target(target: &Target, tokens: f64) -> f64 {
    match target.min_tokens_per_s {
        Some(r) if r > 0.0 => target.latency_s.min(tokens / r),
        _ => target.latency_s,
    }
}

/// The least peak FLOP/s, bandwidth, capacity and link bandwidth that meet `target`.
pub fn synthesize(
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    target: &Target,
    comm_share: f64,
) -> Result<Requirement> {
    roofline::validate_model(model)?;
    roofline::validate_workload(wl)?;
    roofline::validate_layout(model, wl)?;
    roofline::validate_assumptions(a)?;
    error::positive("target latency", target.latency_s)?;
    if let Some(r) = target.min_tokens_per_s {
        error::positive("target throughput", r)?;
    }
    error::unit_interval("communication share", comm_share)?;
    let c = cost::step_cost(model, wl);
    let t_target = effective_target(target, c.tokens);
    // When a throughput floor is tighter than the latency, it sets the step.
    let floor = target
        .min_tokens_per_s
        .filter(|_| t_target < target.latency_s)
        .map(|r| {
            format!(
                "the throughput floor of {} tokens/s over {} tokens a step allows a step of only {} (tighter than the {} target)",
                units::format_number(r),
                units::format_number(c.tokens),
                units::format_time(t_target),
                units::format_time(target.latency_s)
            )
        });
    let is_decoder = matches!(model.arch, Arch::Decoder(_));
    // The collectives of the layout: under Auto, the algorithm with the
    // smaller fixed part (the tree beyond 2 ranks), as a latency-bound step
    // needs; the device then runs whichever is faster, never slower.
    let comm = if is_decoder {
        let algorithm = match a.collective {
            Collective::Auto if wl.tp > 2 => Collective::Tree,
            Collective::Auto => Collective::Ring,
            fixed => fixed,
        };
        let ar = if wl.tp > 1 {
            collective::allreduce(c.allreduce_bytes, wl.tp, algorithm, a).times(c.allreduces)
        } else {
            CommCost::default()
        };
        ar.plus(collective::handoff(c.handoff_bytes, a).times(c.handoffs))
    } else {
        CommCost::default()
    };
    // Fixed costs that no bandwidth can buy down.
    let fixed_link = comm.fixed_s;
    let comm_bytes = comm.link_bytes;
    let work = roofline::work(&c, wl, wl.activations, a);
    let budget = t_target - work.fixed_s - fixed_link;
    let footprint = cost::footprint(model, wl).total();
    let required_memory_bytes = footprint / a.usable_memory;
    let compute_precision = wl.activations;
    let infeasible = |why: String| Requirement {
        feasible: false,
        reason: Some(match &floor {
            Some(f) => format!("{f}; {why}"),
            None => why,
        }),
        compute_precision,
        required_flops_per_s: f64::INFINITY,
        required_memory_bandwidth: f64::INFINITY,
        required_memory_bytes,
        required_link_bandwidth: None,
    };
    if budget <= 0.0 {
        return Ok(infeasible(format!(
            "the fixed per-step costs (overhead and kernels, {}) and link latencies ({}) alone use the whole target of {}",
            units::format_time(work.fixed_s),
            units::format_time(fixed_link),
            units::format_time(t_target)
        )));
    }
    if comm_bytes > 0.0 && comm_share <= 0.0 {
        return Ok(infeasible(format!(
            "TP {} x PP {} communicates every step, and a communication share of 0 leaves it no time: give it a share between 0 and 1 (default {DEFAULT_COMM_SHARE})",
            wl.tp, wl.pp
        )));
    }
    if comm_bytes > 0.0 && comm_share >= 1.0 {
        return Ok(infeasible(format!(
            "a communication share of 1 leaves no time for the math and the memory traffic: give communication a share between 0 and 1 (default {DEFAULT_COMM_SHARE})"
        )));
    }
    let (roof_budget, required_link_bandwidth) = if comm_bytes > 0.0 {
        let share = comm_share;
        let link = comm_bytes / (a.link_efficiency * share * budget);
        (budget * (1.0 - share), Some(link))
    } else {
        (budget, None)
    };
    let x = roof_budget / (2.0 - a.overlap);
    Ok(Requirement {
        feasible: true,
        reason: None,
        compute_precision,
        required_flops_per_s: work.flops_at_peak / x,
        required_memory_bandwidth: work.bytes_at_bandwidth / x,
        required_memory_bytes,
        required_link_bandwidth,
    })
}

/// A catalog device and layout that meets the target and fits.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Index into the device slice given to `rank`.
    pub device: usize,
    pub hardware_id: String,
    pub layout: Parallelism,
    pub latency_s: f64,
    pub tokens_per_s: f64,
    /// devices * price per hour, when the device has a price.
    pub cost_per_hour_usd: Option<f64>,
}

impl Match {
    pub fn devices(&self) -> u32 {
        self.layout.devices()
    }
}

/// How to order matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankBy {
    /// Cheapest first (devices without a price last), then fastest.
    Cost,
    /// Fastest first, then cheapest.
    Latency,
}

/// Every device and layout in `devices` that fits and meets `target`: for
/// each device, tensor parallelism in powers of two up to its scale-up
/// domain, each with the fewest pipeline stages that fit; of the layouts
/// with the same device count, the fastest.
pub fn rank(
    devices: &[Hardware],
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    target: &Target,
    by: RankBy,
) -> Result<Vec<Match>> {
    roofline::validate_model(model)?;
    roofline::validate_workload(wl)?;
    roofline::validate_layout(model, wl)?;
    roofline::validate_assumptions(a)?;
    error::positive("target latency", target.latency_s)?;
    let mut out = Vec::new();
    for (i, hw) in devices.iter().enumerate() {
        if roofline::validate_hardware(hw).is_err() {
            continue;
        }
        let mut tp = 1;
        let first = out.len();
        while tp <= fit::max_tp(hw, model) {
            if !fit::tp_splits(model, tp) {
                tp *= 2;
                continue;
            }
            if let Some(m) = layout_match(i, hw, model, wl, a, target, tp) {
                // One layout per device count: the fastest.
                match out[first..]
                    .iter_mut()
                    .find(|x: &&mut Match| x.devices() == m.devices())
                {
                    Some(x) if x.latency_s > m.latency_s => *x = m,
                    Some(_) => {}
                    None => out.push(m),
                }
            }
            tp *= 2;
        }
    }
    sort_matches(&mut out, by);
    Ok(out)
}

fn layout_match(
    i: usize,
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    target: &Target,
    tp: u32,
) -> Option<Match> {
    let (m, limit) = layout_run(i, hw, model, wl, a, target, tp)?;
    (m.latency_s <= limit).then_some(m)
}

/// The layout of `tp` with the fewest stages that fit, evaluated, with the
/// latency it must meet (the target, tightened by a throughput floor);
/// None when no stage count holds it.
fn layout_run(
    i: usize,
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    target: &Target,
    tp: u32,
) -> Option<(Match, f64)> {
    let pp = fit::fewest_stages(hw, model, wl, a, tp)?;
    let layout = Workload { tp, pp, ..*wl };
    let e = roofline::evaluate_unchecked(hw, model, &layout, a).ok()?;
    if !e.memory.fits {
        return None;
    }
    let limit = effective_target(target, e.cost.tokens);
    let devices = layout.tp.saturating_mul(layout.pp);
    let m = Match {
        device: i,
        hardware_id: hw.id.clone(),
        layout: Parallelism {
            tp: layout.tp,
            pp: layout.pp,
        },
        latency_s: e.latency_s,
        tokens_per_s: e.tokens_per_s,
        cost_per_hour_usd: hw.price_per_hour_usd.map(|p| p * devices as f64),
    };
    Some((m, limit))
}

/// A requirement of the target at one layout, and what a device has of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    PeakFlops,
    MemoryBandwidth,
    MemoryCapacity,
    LinkBandwidth,
}

impl Resource {
    pub fn name(self) -> &'static str {
        match self {
            Resource::PeakFlops => "peak FLOP/s",
            Resource::MemoryBandwidth => "memory bandwidth",
            Resource::MemoryCapacity => "memory",
            Resource::LinkBandwidth => "link bandwidth",
        }
    }
    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            Resource::PeakFlops => "peak_flops",
            Resource::MemoryBandwidth => "memory_bandwidth",
            Resource::MemoryCapacity => "memory_capacity",
            Resource::LinkBandwidth => "link_bandwidth",
        }
    }
}

/// One requirement against a device's figure (per device, SI units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shortfall {
    pub resource: Resource,
    pub required: f64,
    pub has: f64,
}

impl Shortfall {
    /// The share of the requirement missing: 1 - has / required, 0 when met.
    pub fn short(&self) -> f64 {
        if self.has >= self.required {
            0.0
        } else {
            1.0 - self.has / self.required
        }
    }
}

/// The layout that comes closest to a target nothing meets.
#[derive(Debug, Clone, PartialEq)]
pub struct NearestMiss {
    pub layout: Match,
    /// The latency it had to meet (the target, or tighter under a
    /// throughput floor).
    pub limit_s: f64,
    /// The least hardware per device at its layout ([`synthesize`]); when
    /// infeasible, its reason says why no device of that layout can.
    pub requirement: Requirement,
    /// Each requirement against the device, in [`Resource`] order (link
    /// bandwidth only when the layout communicates).
    pub shortfalls: Vec<Shortfall>,
}

impl NearestMiss {
    /// How far over its limit the latency is, as a share (0.22 = 22% over).
    pub fn over(&self) -> f64 {
        self.layout.latency_s / self.limit_s - 1.0
    }
}

/// When no layout in `devices` meets `target` (see [`rank`]), the one that
/// fits and comes closest (least latency over its limit; then the
/// cheaper), with the requirement at its layout and how far the device
/// falls short of each part. None when some layout meets the target, or
/// no layout of any device holds the workload.
pub fn nearest_miss(
    devices: &[Hardware],
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    target: &Target,
    comm_share: f64,
) -> Result<Option<NearestMiss>> {
    roofline::validate_model(model)?;
    roofline::validate_workload(wl)?;
    roofline::validate_assumptions(a)?;
    error::positive("target latency", target.latency_s)?;
    let mut best: Option<(Match, f64)> = None;
    for (i, hw) in devices.iter().enumerate() {
        if roofline::validate_hardware(hw).is_err() {
            continue;
        }
        let mut tp = 1;
        while tp <= fit::max_tp(hw, model) {
            if fit::tp_splits(model, tp)
                && let Some((m, limit)) = layout_run(i, hw, model, wl, a, target, tp)
            {
                if m.latency_s <= limit {
                    return Ok(None);
                }
                let ratio = m.latency_s / limit;
                let closer = best.as_ref().is_none_or(|(b, bl)| {
                    let r = b.latency_s / bl;
                    let cost = |x: &Match| x.cost_per_hour_usd.unwrap_or(f64::INFINITY);
                    ratio < r || (ratio == r && cost(&m) < cost(b))
                });
                if closer {
                    best = Some((m, limit));
                }
            }
            tp *= 2;
        }
    }
    let Some((m, limit_s)) = best else {
        return Ok(None);
    };
    let hw = &devices[m.device];
    let at = Workload {
        tp: m.layout.tp,
        pp: m.layout.pp,
        ..*wl
    };
    let requirement = synthesize(model, &at, a, target, comm_share)?;
    let mut shortfalls = Vec::new();
    if requirement.feasible {
        let peak = hw
            .compute_peak(requirement.compute_precision, a.accumulate)
            .map_or(0.0, |(_, p)| p);
        shortfalls.push(Shortfall {
            resource: Resource::PeakFlops,
            required: requirement.required_flops_per_s,
            has: peak,
        });
        shortfalls.push(Shortfall {
            resource: Resource::MemoryBandwidth,
            required: requirement.required_memory_bandwidth,
            has: hw.memory_bandwidth,
        });
    }
    shortfalls.push(Shortfall {
        resource: Resource::MemoryCapacity,
        required: requirement.required_memory_bytes,
        has: hw.memory_bytes,
    });
    if let Some(l) = requirement.required_link_bandwidth {
        shortfalls.push(Shortfall {
            resource: Resource::LinkBandwidth,
            required: l,
            // The slower link the layout uses: beyond a node, the network.
            has: roofline::link_for(hw, at.tp.saturating_mul(at.pp)).unwrap_or(0.0),
        });
    }
    Ok(Some(NearestMiss {
        layout: m,
        limit_s,
        requirement,
        shortfalls,
    }))
}

fn sort_matches(v: &mut [Match], by: RankBy) {
    let cost = |m: &Match| m.cost_per_hour_usd.unwrap_or(f64::INFINITY);
    match by {
        RankBy::Cost => v.sort_by(|a, b| {
            cost(a)
                .total_cmp(&cost(b))
                .then(a.latency_s.total_cmp(&b.latency_s))
        }),
        RankBy::Latency => v.sort_by(|a, b| {
            a.latency_s
                .total_cmp(&b.latency_s)
                .then(cost(a).total_cmp(&cost(b)))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::tests::{a100, llama70};

    fn decode_70b() -> Workload {
        Workload::default() // decode, B = 1, S = 4096, bf16
    }

    #[test]
    fn the_nearest_miss_by_hand() {
        // Llama-3.1-70B decode (B 1, S 4096, bf16) on ideal A100s (no fixed
        // costs, overlap 1, every efficiency 1), target 6 ms.
        //
        // The fastest layout is TP 8. Per rank it streams weights
        // 138,998,653,696 / 8 = 17,374,831,712 B, KV 1,342,177,280 / 8 =
        // 167,772,160 B and activations 80 * (8 * 8192 (not split) + 2 *
        // 28,672 / 8) * 2 B = 11,632,640 B: 17,554,236,512 B at 2.039e12 B/s
        // = 8.6093 ms (its 18.7 GFLOP take 0.06 ms). Its 160 ring
        // all-reduces of 16,384 B over 8 ranks send 2 * 7/8 * 16,384 =
        // 28,672 B each at 300e9 B/s: 15.29 us. T = 8.6246 ms, 43.7% over.
        let bytes = 17_554_236_512.0;
        let link_bytes = 160.0 * 28_672.0;
        let t = bytes / 2.039e12 + link_bytes / 300e9;
        let a = Assumptions::ideal();
        let target = Target {
            latency_s: 0.006,
            min_tokens_per_s: None,
        };
        let n = nearest_miss(&[a100()], &llama70(), &decode_70b(), &a, &target, 0.1)
            .unwrap()
            .expect("nothing meets 6 ms");
        assert_eq!((n.layout.layout.tp, n.layout.layout.pp), (8, 1));
        assert!(
            (n.layout.latency_s / t - 1.0).abs() < 1e-9,
            "{}",
            n.layout.latency_s
        );
        assert!((n.over() - (t / 0.006 - 1.0)).abs() < 1e-9);
        assert!((n.over() - 0.4374).abs() < 1e-3);
        // The requirement at TP 8 with 10% of the 6 ms for communication:
        // 5.4 ms for the roofline term (overlap 1: T = max), so bandwidth
        // 17,554,236,512 B / 5.4 ms = 3.251 TB/s against the A100's 2.039:
        // 37.3% short. FLOP/s 18.7e9 / 5.4 ms = 3.5 TFLOP/s of 312: met.
        // Link 4,587,520 B / 0.6 ms = 7.6 GB/s of 300: met. Memory
        // 17.6 GB of 80 GB: met.
        let by = |r: Resource| *n.shortfalls.iter().find(|s| s.resource == r).unwrap();
        let bw = by(Resource::MemoryBandwidth);
        assert!((bw.required / (bytes / 5.4e-3) - 1.0).abs() < 1e-9);
        assert!((bw.short() - (1.0 - 2.039e12 * 5.4e-3 / bytes)).abs() < 1e-9);
        assert!((bw.short() - 0.373).abs() < 1e-3);
        assert!((by(Resource::LinkBandwidth).required / (link_bytes / 0.6e-3) - 1.0).abs() < 1e-9);
        for r in [
            Resource::PeakFlops,
            Resource::MemoryCapacity,
            Resource::LinkBandwidth,
        ] {
            assert_eq!(by(r).short(), 0.0, "{r:?}");
        }
    }

    #[test]
    fn no_nearest_miss_when_a_layout_meets_the_target() {
        // TP 8 takes 8.62 ms (above): a 10 ms target is met.
        let target = Target {
            latency_s: 0.010,
            min_tokens_per_s: None,
        };
        let a = Assumptions::ideal();
        let n = nearest_miss(&[a100()], &llama70(), &decode_70b(), &a, &target, 0.1).unwrap();
        assert!(n.is_none());
        assert!(
            !rank(
                &[a100()],
                &llama70(),
                &decode_70b(),
                &a,
                &target,
                RankBy::Cost
            )
            .unwrap()
            .is_empty()
        );
    }
}
