//! What the training model says of a published run, and the check of the
//! model on sources it was not fitted to.
//!
//! [`predict`] gives a run's figure in the unit a source reports it.
//! [`leave_one_source_out`] judges the one value fitted on training runs,
//! the compute efficiency eta_c of the products, per device: for each
//! source, eta_c is fitted (per device when the other sources have runs on
//! it, else over all of them) on every other source's throughput figures,
//! and this source's runs are predicted with it. A figure that agrees only
//! with its own fitting data is no prediction; this one is scored only on
//! data it did not see.

use super::{TrainingAssumptions, TrainingRun, evaluate};
use crate::solver::error::Result;
use crate::solver::types::{Assumptions, Hardware, Model};

/// What a source reports of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantity {
    TokensPerSecondPerDevice,
    /// Model FLOPs utilisation under the source's count of FLOPs.
    Mfu(MfuFlops),
    StepTime,
    /// Memory per device, bytes: the tensors alive at the peak (PyTorch's
    /// peak allocated).
    PeakMemory,
    /// The allocator's pool at the peak, bytes (PyTorch's peak reserved,
    /// what torchtitan's logger prints): the tensors alive with the
    /// allocator's overhead ([`TrainingAssumptions::allocator_overhead`]).
    ReservedMemory,
}

impl Quantity {
    /// A figure of the step's speed (what eta_c is fitted on).
    pub fn is_throughput(self) -> bool {
        !matches!(self, Quantity::PeakMemory | Quantity::ReservedMemory)
    }
}

/// The FLOPs per token a source's MFU counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MfuFlops {
    /// 6 N: the parameters alone.
    SixN,
    /// 6 N + 12 L H Q T: PaLM's count, the whole score matrix.
    Palm,
    /// 6 N + 6 L H Q T: the causal half.
    Causal,
}

impl MfuFlops {
    pub fn parse(s: &str) -> Option<MfuFlops> {
        match s.trim() {
            "6n" => Some(MfuFlops::SixN),
            "6n+12lhqt" => Some(MfuFlops::Palm),
            "6n+6lhqt" => Some(MfuFlops::Causal),
            _ => None,
        }
    }
}

/// A prediction of one figure, and whether the run fits in memory (every
/// published run ran, so `false` is a wrong verdict).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Predicted {
    pub value: f64,
    pub fits: bool,
}

/// `run` on `hw` in the unit of `q`. A run the model judges not to fit is
/// still predicted (it ran), and says so in `fits`.
pub fn predict(
    hw: &Hardware,
    model: &Model,
    run: &TrainingRun,
    q: Quantity,
    a: &Assumptions,
    t: &TrainingAssumptions,
) -> Result<Predicted> {
    let tr = evaluate(hw, model, run, a, t)?;
    let s = &tr.step;
    let per_device = s.tokens_per_s / tr.devices() as f64;
    // FLOPs per token of the attention at PaLM's count (12 L H Q T).
    let attention = tr.flops.model_per_token - 6.0 * tr.params.matmul_active;
    let mfu = |flops: f64| flops * per_device / s.peak_flops;
    let value = match q {
        Quantity::TokensPerSecondPerDevice => per_device,
        Quantity::StepTime => s.step_time_s,
        Quantity::PeakMemory => tr.memory.total(),
        Quantity::ReservedMemory => tr.memory.reserved,
        Quantity::Mfu(MfuFlops::Palm) => s.mfu,
        Quantity::Mfu(MfuFlops::SixN) => mfu(6.0 * tr.params.matmul_active),
        Quantity::Mfu(MfuFlops::Causal) => mfu(6.0 * tr.params.matmul_active + attention / 2.0),
    };
    Ok(Predicted {
        value,
        fits: tr.memory.fits,
    })
}

/// One published run as the check sees it.
#[derive(Debug, Clone, Copy)]
pub struct Case<'a> {
    pub hw: &'a Hardware,
    pub model: &'a Model,
    pub run: &'a TrainingRun,
    pub quantity: Quantity,
    pub measured: f64,
    /// Which source: runs of one source are held out together.
    pub source: usize,
    /// Which device (eta_c is fitted per device when no run of the same
    /// stack family was measured on it).
    pub device: usize,
    /// Which stack family on which device: eta_c is fitted on the other
    /// sources' runs of the same group first.
    pub stack: usize,
    /// Which stack family (on any device, in the same number format): the
    /// group eta_c is fitted on next.
    pub family: usize,
    /// The assumptions the run is predicted with (its stack's profile):
    /// a fit changes only their compute efficiency and MoE token time.
    pub a: Assumptions,
    pub t: TrainingAssumptions,
}

/// A case's assumptions with a fitted compute efficiency and MoE token
/// time, where given.
pub fn with_fit(
    c: &Case,
    eta: Option<f64>,
    moe_s: Option<f64>,
) -> (Assumptions, TrainingAssumptions) {
    (
        Assumptions {
            compute_efficiency: eta.unwrap_or(c.a.compute_efficiency),
            ..c.a
        },
        TrainingAssumptions {
            moe_token_time_s: moe_s.unwrap_or(c.t.moe_token_time_s),
            ..c.t
        },
    )
}

/// |ln(predicted / measured)| of a case at compute efficiency `eta` and
/// MoE token time `moe_s` (the case's own where None).
fn log_error(c: &Case, eta: Option<f64>, moe_s: Option<f64>) -> Option<f64> {
    let (a, t) = with_fit(c, eta, moe_s);
    let p = predict(c.hw, c.model, c.run, c.quantity, &a, &t).ok()?;
    let r = p.value / c.measured;
    // A step time is the inverse of a rate: the same error either way.
    (r.is_finite() && r > 0.0).then(|| r.ln().abs())
}

/// Lower and upper bounds of a fitted compute efficiency.
pub const FIT_RANGE: (f64, f64) = (0.2, 1.0);

/// Golden-section search of 40 steps (see [`crate::solver::calibration::golden`]).
fn golden(lo: f64, hi: f64, cost: impl Fn(f64) -> f64) -> f64 {
    crate::solver::calibration::golden(lo, hi, 40, cost)
}

/// The mean |ln error| of `cases` at `eta` and `moe_s`.
fn mean_log_error(cases: &[&&Case], eta: Option<f64>, moe_s: Option<f64>) -> f64 {
    let errs: Vec<f64> = cases
        .iter()
        .filter_map(|c| log_error(c, eta, moe_s))
        .collect();
    if errs.is_empty() {
        f64::INFINITY
    } else {
        errs.iter().sum::<f64>() / errs.len() as f64
    }
}

/// The eta_c in [`FIT_RANGE`] that minimises the mean |ln error| over
/// `cases`' throughput figures (golden-section search; the error is
/// unimodal in eta_c as every throughput grows with it), each case at MoE
/// token time `moe_s` (its own where None); None without any.
pub fn fit_efficiency(cases: &[&Case], moe_s: Option<f64>) -> Option<f64> {
    let used: Vec<&&Case> = cases
        .iter()
        .filter(|c| c.quantity.is_throughput())
        .collect();
    if used.is_empty() {
        return None;
    }
    let (lo, hi) = FIT_RANGE;
    Some(golden(lo, hi, |eta| {
        mean_log_error(&used, Some(eta), moe_s)
    }))
}

/// Bounds of a fitted MoE token time, seconds.
pub const MOE_FIT_RANGE: (f64, f64) = (0.0, 2e-6);

/// The MoE token time in [`MOE_FIT_RANGE`] that minimises the mean |ln
/// error| over `cases`' throughput figures of MoE models, each at its
/// profile's compute efficiency; None without any.
pub fn fit_moe_token_time(cases: &[&Case]) -> Option<f64> {
    let used: Vec<&&Case> = cases
        .iter()
        .filter(|c| c.quantity.is_throughput() && is_moe(c.model))
        .collect();
    if used.is_empty() {
        return None;
    }
    let (lo, hi) = MOE_FIT_RANGE;
    Some(golden(lo, hi, |x| mean_log_error(&used, None, Some(x))))
}

/// Whether a model routes its tokens to experts.
fn is_moe(model: &Model) -> bool {
    matches!(&model.arch, crate::solver::types::Arch::Decoder(d) if d.moe.is_some())
}

/// What [`leave_one_source_out`] fits without a case's source (the MoE
/// token time None when no other source has an MoE run: the case's own).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldOut {
    pub compute_efficiency: f64,
    pub moe_token_time_s: Option<f64>,
}

/// For each case, the values fitted without its source: the MoE token
/// time on the other sources' MoE runs (the default's when they have
/// none), then with it the compute efficiency on the other sources' runs
/// on the same device when there are any, else on all the other sources'
/// runs; None when no other source has a throughput figure.
pub fn leave_one_source_out(cases: &[Case]) -> Vec<Option<HeldOut>> {
    let mut by_source: Vec<usize> = cases.iter().map(|c| c.source).collect();
    by_source.sort_unstable();
    by_source.dedup();
    let mut out = vec![None; cases.len()];
    for &src in &by_source {
        let others: Vec<&Case> = cases.iter().filter(|c| c.source != src).collect();
        let moe = fit_moe_token_time(&others);
        let global = fit_efficiency(&others, moe);
        // eta_c fitted on the other sources' speed figures of a group.
        let fit_on = |same: &dyn Fn(&Case) -> bool| {
            let same: Vec<&Case> = others
                .iter()
                .copied()
                .filter(|o| same(o) && o.quantity.is_throughput())
                .collect();
            fit_efficiency(&same, moe)
        };
        let mut fitted: Vec<((usize, usize), Option<f64>)> = Vec::new();
        for (i, c) in cases.iter().enumerate().filter(|(_, c)| c.source == src) {
            let key = (c.stack, c.device);
            let eta = match fitted.iter().find(|(k, _)| *k == key) {
                Some((_, e)) => *e,
                None => {
                    // The same stack family on the same device, else the
                    // same family on any device, else the same device,
                    // else every other source.
                    let e = fit_on(&|o| o.stack == c.stack)
                        .or_else(|| fit_on(&|o| o.family == c.family))
                        .or_else(|| fit_on(&|o| o.device == c.device))
                        .or(global);
                    fitted.push((key, e));
                    e
                }
            };
            out[i] = eta.map(|eta| HeldOut {
                compute_efficiency: eta,
                moe_token_time_s: moe,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::tests::{a100, llama8};
    use crate::solver::training::Layout;

    fn run(dp: u32) -> TrainingRun {
        TrainingRun {
            layout: Layout {
                dp,
                ..Layout::default()
            },
            global_batch_tokens: dp as f64 * 4.0 * 4096.0,
            seq: 4096.0,
            zero: 3,
            ..TrainingRun::default()
        }
    }

    #[test]
    fn the_fit_finds_the_efficiency_that_made_the_figures() {
        // Figures made at eta_c = 0.55 by the model itself: the fit finds
        // 0.55 again (to the golden-section's tolerance), and leaving either
        // source out finds it from the other.
        let hw = a100();
        let model = llama8();
        let t = TrainingAssumptions::default();
        let a = Assumptions::default();
        let made = Assumptions {
            compute_efficiency: 0.55,
            ..a
        };
        let runs = [run(8), run(16), run(64)];
        let q = Quantity::TokensPerSecondPerDevice;
        let cases: Vec<Case> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| Case {
                hw: &hw,
                model: &model,
                run: r,
                quantity: q,
                measured: predict(&hw, &model, r, q, &made, &t).unwrap().value,
                source: i.min(1),
                device: 0,
                stack: 0,
                family: 0,
                a,
                t,
            })
            .collect();
        let all: Vec<&Case> = cases.iter().collect();
        let eta = fit_efficiency(&all, None).unwrap();
        assert!((eta - 0.55).abs() < 1e-4, "{eta}");
        for h in leave_one_source_out(&cases) {
            assert!((h.unwrap().compute_efficiency - 0.55).abs() < 1e-4);
        }
        // Memory figures are not fitted on.
        let mem = Case {
            quantity: Quantity::PeakMemory,
            ..cases[0]
        };
        assert_eq!(fit_efficiency(&[&mem], None), None);
    }

    #[test]
    fn a_source_is_predicted_with_its_stack_familys_efficiency_first() {
        // Two stack families on one device, their figures made at eta_c
        // 0.5 (sources 0 and 1) and 0.8 (sources 2 and 3). Held out, each
        // source gets its own family's 0.5 or 0.8 from the family's other
        // source, not a blend over the device; a source whose family has no
        // other source (4, a third family at 0.6) falls back to the
        // device's fit over every other source: with three of the five at
        // 0.5 (source 5 joins the first family), the fit of the least mean
        // |ln error| is theirs, 0.5.
        let hw = a100();
        let model = llama8();
        let t = TrainingAssumptions::default();
        let a = Assumptions::default();
        let runs = [run(8), run(16), run(32), run(64), run(8), run(32)];
        let made = [0.5, 0.5, 0.8, 0.8, 0.6, 0.5];
        let fam = [0, 0, 1, 1, 2, 0];
        let q = Quantity::TokensPerSecondPerDevice;
        let cases: Vec<Case> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let at = Assumptions {
                    compute_efficiency: made[i],
                    ..a
                };
                Case {
                    hw: &hw,
                    model: &model,
                    run: r,
                    quantity: q,
                    measured: predict(&hw, &model, r, q, &at, &t).unwrap().value,
                    source: i,
                    device: 0,
                    stack: fam[i],
                    family: fam[i],
                    a,
                    t,
                }
            })
            .collect();
        let held = leave_one_source_out(&cases);
        let eta = |i: usize| held[i].unwrap().compute_efficiency;
        for (i, want) in [(0, 0.5), (1, 0.5), (2, 0.8), (3, 0.8)] {
            assert!((eta(i) - want).abs() < 1e-3, "{i}: {}", eta(i));
        }
        assert!((eta(4) - 0.5).abs() < 1e-3, "{}", eta(4));
    }

    #[test]
    fn mfu_under_each_count_of_flops() {
        // The same step: MFU at PaLM's count is the step's own; 6N alone is
        // smaller by the attention's 12 L H Q T; the causal count keeps half
        // of it.
        let hw = a100();
        let model = llama8();
        let t = TrainingAssumptions::default();
        let a = Assumptions::default();
        let r = run(8);
        let at = |m| {
            predict(&hw, &model, &r, Quantity::Mfu(m), &a, &t)
                .unwrap()
                .value
        };
        let (palm, six, causal) = (at(MfuFlops::Palm), at(MfuFlops::SixN), at(MfuFlops::Causal));
        assert!(six < causal && causal < palm);
        assert!(((palm + six) / 2.0 / causal - 1.0).abs() < 1e-12);
    }
}
