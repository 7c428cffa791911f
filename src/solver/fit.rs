//! Memory fit: the largest batch that fits, and the fewest devices that hold
//! a workload. Never silent: callers report these beside every latency.

use super::cost;
use super::roofline::{self, Parallelism};
use super::types::{Arch, Assumptions, Hardware, Model, Workload};

/// Largest pipeline degree searched before giving up.
const MAX_PP: u32 = 4096;

/// Largest whole batch whose footprint fits one device at this context and
/// layout: footprint(B) = weights + B * (KV + workspace per sequence).
pub fn max_batch(hw: &Hardware, model: &Model, wl: &Workload, a: &Assumptions) -> u64 {
    let usable = hw.memory_bytes * a.usable_memory;
    let free = usable - cost::weights_per_device(model, wl);
    let per_seq = cost::per_sequence_footprint(model, wl).total();
    if free <= 0.0 {
        return 0;
    }
    if per_seq <= 0.0 {
        return u64::MAX;
    }
    let b = (free / per_seq).floor();
    if b >= u64::MAX as f64 {
        u64::MAX
    } else {
        b as u64
    }
}

/// The usable capacity needed to hold `wl` with batch scaled by `factor`,
/// divided by the usable fraction: the capacity a device would need.
pub fn capacity_for_batch(model: &Model, wl: &Workload, a: &Assumptions, factor: f64) -> f64 {
    let scaled = Workload {
        batch: wl.batch * factor,
        ..*wl
    };
    cost::footprint(model, &scaled).total() / a.usable_memory
}

/// The fewest pipeline stages that let the workload fit with tensor
/// parallelism `tp`, if any up to [`max_pp`] (one per layer) do. Per device, footprint(tp, pp) =
/// (weights + KV)(tp) / pp + workspace(tp), so pp = ceil(A / (usable - ws)).
pub fn fewest_stages(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    tp: u32,
) -> Option<u32> {
    let usable = hw.memory_bytes * a.usable_memory;
    let f = cost::footprint(model, &Workload { tp, pp: 1, ..*wl });
    let room = usable - f.workspace;
    if room <= 0.0 {
        return None;
    }
    let pp = ((f.weights + f.kv) / room).ceil().max(1.0);
    if pp > max_pp(model) as f64 {
        return None;
    }
    let pp = pp as u32;
    // The workspace of a single-pass model shrinks with pp too; check exactly.
    let exact = cost::footprint(model, &Workload { tp, pp, ..*wl });
    (exact.total() <= usable).then_some(pp)
}

/// The most pipeline stages a model splits into: one per layer for a
/// decoder, else the search limit.
pub fn max_pp(model: &Model) -> u32 {
    match &model.arch {
        Arch::Decoder(d) => d.layers.clamp(1, MAX_PP),
        Arch::SinglePass(_) => MAX_PP,
    }
}

/// Whether tensor parallelism `tp` splits the model evenly: it divides the
/// attention heads, and (without MLA) the KV heads divide it or it divides
/// them, so each KV head lives on a whole number of ranks. A single-pass
/// model is not split by tensor parallelism in searches.
pub fn tp_splits(model: &Model, tp: u32) -> bool {
    match &model.arch {
        Arch::Decoder(d) => {
            tp >= 1
                && d.heads.is_multiple_of(tp)
                && (d.mla.is_some()
                    || d.kv_heads.is_multiple_of(tp)
                    || tp.is_multiple_of(d.kv_heads.max(1)))
        }
        Arch::SinglePass(_) => tp == 1,
    }
}

/// The tensor-parallel degrees that split the model, up to `up_to`.
pub fn valid_tp_degrees(model: &Model, up_to: u32) -> Vec<u32> {
    (1..=up_to.min(65536))
        .filter(|&t| match &model.arch {
            Arch::SinglePass(_) => true,
            Arch::Decoder(_) => tp_splits(model, t),
        })
        .collect()
}

/// Whether the device has the links a layout needs: a decoder split over
/// more than one device communicates (all-reduces over `tp`, hand-offs over
/// `tp * pp`); a single-pass model's split is not modelled as communication.
pub fn linked(hw: &Hardware, model: &Model, tp: u32, pp: u32) -> bool {
    match &model.arch {
        Arch::Decoder(_) => {
            (tp == 1 || roofline::link_for(hw, tp).is_some())
                && (pp == 1 || roofline::link_for(hw, tp.saturating_mul(pp)).is_some())
        }
        Arch::SinglePass(_) => true,
    }
}

/// The largest tensor-parallel degree worth trying: the scale-up domain,
/// and for a decoder at most its head count. A single-pass model is not
/// split by tensor parallelism here (its communication is not modelled).
pub fn max_tp(hw: &Hardware, model: &Model) -> u32 {
    let node = hw.devices_per_node.max(1);
    match &model.arch {
        Arch::Decoder(d) => node.min(d.heads.max(1)),
        Arch::SinglePass(_) => 1,
    }
}

/// Fewest devices (tp * pp) whose per-device footprint fits, for the
/// workload's batch and context. Tensor parallelism stays inside one
/// scale-up domain (powers of two up to [`max_tp`]); pipeline stages extend
/// beyond it, at most one per layer. Degrees that do not split the heads
/// evenly, and layouts over links the device does not have, are skipped. Ties go to the larger tp, which shortens a step.
/// None if nothing fits.
pub fn min_devices(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Option<Parallelism> {
    let mut best: Option<Parallelism> = None;
    let mut tp = 1u32;
    while tp <= max_tp(hw, model) {
        if !tp_splits(model, tp) {
            tp *= 2;
            continue;
        }
        if let Some(pp) =
            fewest_stages(hw, model, wl, a, tp).filter(|&pp| linked(hw, model, tp, pp))
        {
            let cand = Parallelism { tp, pp };
            if best.is_none_or(|b| cand.devices() <= b.devices()) {
                best = Some(cand);
            }
        }
        tp *= 2;
    }
    best
}
