//! Batch and context sweeps: plain loops over the forward solver.
//! (Comparisons of devices are in [`super::compare`].)

use super::error::Result;
use super::roofline::{self, Evaluation};
use super::types::{Assumptions, Hardware, Model, Workload};

/// A batch sweep and where compute time overtakes memory time.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSweep {
    pub points: Vec<Evaluation>,
    /// Batch at which t_compute = t_memory (None: compute-bound already at
    /// batch 1, or still memory-bound at 2^30).
    pub crossover_batch: Option<f64>,
    /// The largest batch that fits at this context and layout (0: none).
    pub max_fitting_batch: u64,
}

impl BatchSweep {
    /// The point with the most tokens/s among those that fit: the answer a
    /// headline may give (a batch that does not fit is not an answer).
    pub fn best_fitting(&self) -> Option<usize> {
        best_fitting(&self.points)
    }
}

/// The index of the evaluation with the most tokens/s among those that fit.
pub fn best_fitting(points: &[Evaluation]) -> Option<usize> {
    points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.memory.fits)
        .max_by(|a, b| a.1.tokens_per_s.total_cmp(&b.1.tokens_per_s))
        .map(|(i, _)| i)
}

/// The batches of a sweep from `lo` to `hi`: powers of two, with the
/// largest batch that fits (`max_fit`) added when it falls inside the range,
/// so a table or plot can show where fitting stops.
pub fn batches_with_limit(lo: u64, hi: u64, max_fit: u64) -> Vec<u64> {
    let mut v = powers_of_two(lo, hi);
    if max_fit > lo && max_fit < hi && !v.contains(&max_fit) {
        let at = v.partition_point(|&b| b < max_fit);
        v.insert(at, max_fit);
    }
    v
}

/// Powers of two from `lo` to `hi` (both included, `hi` even when it is not
/// a power of two).
pub fn powers_of_two(lo: u64, hi: u64) -> Vec<u64> {
    let mut out = Vec::new();
    if lo == 0 || hi < lo {
        return out;
    }
    let mut b = lo.next_power_of_two();
    if b != lo {
        out.push(lo);
    }
    while b <= hi {
        out.push(b);
        match b.checked_mul(2) {
            Some(n) => b = n,
            None => break,
        }
    }
    if out.last() != Some(&hi) {
        out.push(hi);
    }
    out
}

/// Evaluate the workload at each batch in `batches`.
pub fn batch_sweep(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    batches: &[u64],
) -> Result<BatchSweep> {
    let max_fitting_batch = roofline::evaluate(hw, model, wl, a)?.max_batch;
    let mut points = Vec::with_capacity(batches.len());
    for &b in batches {
        let w = Workload {
            batch: b as f64,
            ..*wl
        };
        points.push(roofline::evaluate(hw, model, &w, a)?);
    }
    Ok(BatchSweep {
        points,
        crossover_batch: crossover_batch(hw, model, wl, a)?,
        max_fitting_batch,
    })
}

/// Evaluate the workload at each context length in `contexts` (tokens).
pub fn context_sweep(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    contexts: &[u64],
) -> Result<Vec<Evaluation>> {
    contexts
        .iter()
        .map(|&s| {
            let w = Workload {
                context: s as f64,
                ..*wl
            };
            roofline::evaluate(hw, model, &w, a)
        })
        .collect()
}

/// The batch where compute time equals memory time, by bisection on a
/// continuous batch (compute grows faster with batch than memory does, so
/// the difference changes sign at most once for the models here).
pub fn crossover_batch(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<Option<f64>> {
    let gap = |b: f64| -> Result<f64> {
        let w = Workload { batch: b, ..*wl };
        let e = roofline::time_step(hw, model, &w, a)?;
        Ok(e.compute_s - e.memory_s)
    };
    roofline::evaluate(hw, model, wl, a)?;
    let (mut lo, mut hi) = (1.0f64, (1u64 << 30) as f64);
    let (g_lo, g_hi) = (gap(lo)?, gap(hi)?);
    if g_lo >= 0.0 {
        // Compute-bound from the first sequence: no crossover to find.
        return Ok(None);
    }
    if g_hi < 0.0 {
        return Ok(None);
    }
    // Bisect in log space: 60 halvings pin the batch to 1e-9 relative.
    for _ in 0..60 {
        let mid = (lo * hi).sqrt();
        if gap(mid)? < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(hi))
}
