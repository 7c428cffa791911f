//! The layout search: every dp x tp x pp x ep x cp layout of a device
//! count, with each ZeRO stage, recomputation and micro-batch, that fits,
//! ranked by step time.
//!
//! Degrees are divisors of the device count that the model allows: TP
//! dividing the heads (at most [`MAX_TP`]), PP x v dividing the layers (v
//! of 1, or 2 with PP), EP dividing the experts of an MoE, CP dividing the
//! sequence (at most [`MAX_CP`]); ZeRO 1-3 only with a data-parallel group
//! to shard over; micro-batches of [`MICRO_BATCHES`] sequences.

use super::flops::Flops;
use super::step::{Machine, Term, step_floor, step_on};
use super::{
    Layout, Params, Recompute, TrainingAssumptions, TrainingRun, decoder, dp_groups, memory,
};
use crate::solver::error::Result;
use crate::solver::types::{Assumptions, Hardware, Model};

/// Largest tensor-parallel degree tried.
pub const MAX_TP: u32 = 64;
/// Largest context-parallel degree tried.
pub const MAX_CP: u32 = 32;
/// Micro-batch sizes tried, sequences.
pub const MICRO_BATCHES: [u32; 4] = [1, 2, 4, 8];

/// One layout that fits, with its step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub run: TrainingRun,
    pub step_time_s: f64,
    pub tokens_per_s: f64,
    pub mfu: f64,
    pub binding: Term,
    pub memory_bytes: f64,
}

/// The best layouts and what happened to the others.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The fastest that fit, fastest first.
    pub ranked: Vec<Candidate>,
    /// Configurations tried (valid for the model).
    pub tried: usize,
    /// Of those, how many fit.
    pub fitting: usize,
    /// How many did not fit in memory.
    pub too_big: usize,
    /// How many need a link the device does not have.
    pub no_link: usize,
    /// How many [`fastest`] skipped, its floor above the fastest found
    /// (then `fitting`, `too_big` and `no_link` count only the others).
    pub skipped: usize,
}

fn divisors(n: u32) -> impl Iterator<Item = u32> {
    (1..=n).filter(move |d| n.is_multiple_of(*d))
}

/// Search the layouts of `devices` devices of `hw` for `model`, keeping the
/// batch, sequence, precision and optimizer of `base`; the `top` fastest
/// that fit are returned.
pub fn search(
    hw: &Hardware,
    model: &Model,
    base: &TrainingRun,
    devices: u32,
    a: &Assumptions,
    t: &TrainingAssumptions,
    top: usize,
) -> Result<Search> {
    search_in(hw, model, base, devices, a, t, top, false)
}

/// The fastest layout of `devices` that fits, as [`search`] finds it, and
/// sooner: a layout whose step, before its communication, is already
/// slower than the fastest found is skipped without its memory or
/// collectives (`skipped`). The same first layout as `search(.., 1)`.
pub fn fastest(
    hw: &Hardware,
    model: &Model,
    base: &TrainingRun,
    devices: u32,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<Search> {
    search_in(hw, model, base, devices, a, t, 1, true)
}

#[allow(clippy::too_many_arguments)]
fn search_in(
    hw: &Hardware,
    model: &Model,
    base: &TrainingRun,
    devices: u32,
    a: &Assumptions,
    t: &TrainingAssumptions,
    top: usize,
    prune: bool,
) -> Result<Search> {
    crate::solver::roofline::validate_hardware(hw)?;
    crate::solver::roofline::validate_assumptions(a)?;
    super::validate_training_assumptions(t)?;
    let d = decoder(model)?;
    crate::solver::error::positive("devices", devices as f64)?;
    let params = Params::of(model, d);
    let mc = Machine::of(hw, base.precision)?;
    let mut out = Search {
        // Grown as layouts rank, never sized by the caller's `top`.
        ranked: Vec::new(),
        tried: 0,
        fitting: 0,
        too_big: 0,
        no_link: 0,
        skipped: 0,
    };
    let divs: Vec<u32> = divisors(devices).collect();
    let experts = d.moe.map(|m| m.experts);
    for &tp in divs.iter().filter(|&&x| x <= MAX_TP && d.heads % x == 0) {
        for &pp in divs.iter().filter(|&&x| x <= d.layers) {
            for &cp in divs
                .iter()
                .filter(|&&x| x <= MAX_CP && base.seq % x as f64 == 0.0)
            {
                for &ep in divs
                    .iter()
                    .filter(|&&x| x == 1 || experts.is_some_and(|e| e % x == 0))
                {
                    let inner = tp as u64 * pp as u64 * cp as u64 * ep as u64;
                    if !(devices as u64).is_multiple_of(inner) {
                        continue;
                    }
                    let dp = (devices as u64 / inner) as u32;
                    for v in [1u32, 2] {
                        if v > 1 && (pp == 1 || pp * v > d.layers) {
                            continue;
                        }
                        let layout = Layout {
                            dp,
                            tp,
                            pp,
                            ep,
                            cp,
                            v,
                        };
                        try_layout(
                            &mut out, &mc, d, &params, base, layout, a, t, hw, top, prune,
                        );
                    }
                }
            }
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn try_layout(
    out: &mut Search,
    mc: &Machine,
    d: &crate::solver::types::Decoder,
    params: &Params,
    base: &TrainingRun,
    layout: Layout,
    a: &Assumptions,
    t: &TrainingAssumptions,
    hw: &Hardware,
    top: usize,
    prune: bool,
) {
    let (gd, _) = dp_groups(&layout);
    let zeros: &[u8] = if gd > 1 { &[0, 1, 2, 3] } else { &[0] };
    for &micro_batch in &MICRO_BATCHES {
        let one = base.seq * micro_batch as f64 * layout.data_ways() as f64;
        if base.global_batch_tokens < one {
            continue;
        }
        for &zero in zeros {
            // The levels go from the least recomputation to the most, and
            // the floor (the step before its collectives) only grows with
            // it: once one level's floor is above the slowest kept, every
            // later level's is too. (The step itself is not monotonic: a
            // recomputed attention core hides more of a CP ring.)
            for recompute in Recompute::ALL {
                let run = TrainingRun {
                    layout,
                    micro_batch,
                    zero,
                    recompute,
                    ..*base
                };
                out.tried += 1;
                let flops = Flops::of(d, params, &run);
                // A floor a hair above the slowest kept cannot be kept (the
                // hair keeps a rounding apart from dropping a tie).
                if prune
                    && ranked_full(&out.ranked, top).is_some_and(|worst| {
                        step_floor(mc, d, params, &flops, &run, a, t) > worst * (1.0 + 1e-9)
                    })
                {
                    out.skipped += 1;
                    break;
                }
                let mem = memory::memory(hw, d, params, &run, a, t);
                if !mem.fits {
                    out.too_big += 1;
                    continue;
                }
                let Ok(s) = step_on(mc, d, params, &flops, &run, a, t) else {
                    out.no_link += 1;
                    continue;
                };
                out.fitting += 1;
                let c = Candidate {
                    run,
                    step_time_s: s.step_time_s,
                    tokens_per_s: s.tokens_per_s,
                    mfu: s.mfu,
                    binding: s.binding,
                    memory_bytes: mem.total(),
                };
                keep(&mut out.ranked, c, top);
            }
        }
    }
}

/// The slowest step kept, once `top` are kept.
fn ranked_full(ranked: &[Candidate], top: usize) -> Option<f64> {
    (top > 0 && ranked.len() >= top)
        .then(|| ranked.last().map(|c| c.step_time_s))
        .flatten()
}

/// Insert `c` into the sorted `ranked`, keeping the `top` fastest.
fn keep(ranked: &mut Vec<Candidate>, c: Candidate, top: usize) {
    if top == 0 {
        return;
    }
    if ranked.len() == top
        && ranked
            .last()
            .is_some_and(|w| w.step_time_s <= c.step_time_s)
    {
        return;
    }
    let at = ranked.partition_point(|x| x.step_time_s <= c.step_time_s);
    ranked.insert(at, c);
    ranked.truncate(top);
}
