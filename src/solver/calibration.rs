//! Predicting a published measurement, and how far the predictions are
//! from the measurements: the calibration check behind `ridgeline
//! validate`. Pure: the measurements themselves are catalog data.
//!
//! A measured run is `batch` requests of `prompt` tokens each generating
//! `output` tokens, together. Its prefill is one step of `batch` prompts
//! at context `prompt`; each decode step serves `batch` sequences at the
//! mean context of the generation, prompt + output / 2 (as
//! [`super::serving`] does). The end-to-end time of the run is the prefill
//! plus (output - 1) decode steps, or `output` decode steps when there is no
//! prompt (llama.cpp's `tg` runs).

use super::error::{self, Result, SolverError};
use super::roofline::{self, Evaluation};
use super::types::{Assumptions, Hardware, Model, Phase, Precision, Workload};

/// What a measurement reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// batch x output over the whole run, prefill included.
    OutputTokensPerS,
    /// 1 / inter-token latency.
    TokensPerSPerUser,
    /// Inter-token latency (time per output token), seconds.
    ItlS,
    /// batch / inter-token latency.
    DecodeTokensPerS,
    /// Time to first token, seconds.
    TtftS,
    /// batch x prompt / prefill time.
    PrefillTokensPerS,
    /// End-to-end time of the run, seconds.
    E2eS,
}

impl Metric {
    pub const ALL: [Metric; 7] = [
        Metric::OutputTokensPerS,
        Metric::TokensPerSPerUser,
        Metric::ItlS,
        Metric::DecodeTokensPerS,
        Metric::TtftS,
        Metric::PrefillTokensPerS,
        Metric::E2eS,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Metric::OutputTokensPerS => "output_tokens_per_s",
            Metric::TokensPerSPerUser => "tokens_per_s_per_user",
            Metric::ItlS => "itl_s",
            Metric::DecodeTokensPerS => "decode_tokens_per_s",
            Metric::TtftS => "ttft_s",
            Metric::PrefillTokensPerS => "prefill_tokens_per_s",
            Metric::E2eS => "e2e_s",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.key() == s.trim())
    }

    /// True for times (lower is faster), false for rates.
    pub fn is_time(self) -> bool {
        matches!(self, Metric::ItlS | Metric::TtftS | Metric::E2eS)
    }

    /// Whether the metric needs a prefill, a decode step, or both.
    fn needs(self, run: &Run) -> (bool, bool) {
        match self {
            Metric::TtftS | Metric::PrefillTokensPerS => (true, false),
            Metric::OutputTokensPerS | Metric::E2eS => (run.prompt > 0.0, run.output > 0.0),
            _ => (false, true),
        }
    }
}

/// The workload of a measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    pub batch: f64,
    pub prompt: f64,
    pub output: f64,
    pub weights: Precision,
    pub activations: Precision,
    pub kv: Precision,
    pub tp: u32,
    pub pp: u32,
}

impl Run {
    fn workload(&self, phase: Phase, context: f64) -> Workload {
        Workload {
            phase,
            batch: self.batch,
            context,
            weights: self.weights,
            activations: self.activations,
            kv: self.kv,
            tp: self.tp,
            pp: self.pp,
        }
    }
}

/// A predicted figure in the metric's units, with its error band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    /// Whether the model says the run fits in memory.
    pub fits: bool,
    /// The share of fixed costs (overheads, kernels, collective
    /// latencies) in the run's time.
    pub fixed_share: f64,
}

/// Predict `metric` for `run` on `hw` with assumptions `a`.
pub fn predict(
    hw: &Hardware,
    model: &Model,
    run: &Run,
    metric: Metric,
    a: &Assumptions,
) -> Result<Prediction> {
    error::positive("batch", run.batch)?;
    error::non_negative("prompt", run.prompt)?;
    error::non_negative("output", run.output)?;
    let (want_prefill, want_decode) = metric.needs(run);
    if want_prefill && run.prompt <= 0.0 {
        return Err(SolverError::Unsupported(format!(
            "{} needs a prompt of at least one token",
            metric.key()
        )));
    }
    if want_decode && run.output <= 0.0 {
        return Err(SolverError::Unsupported(format!(
            "{} needs at least one output token",
            metric.key()
        )));
    }
    let eval = |phase, context| roofline::evaluate(hw, model, &run.workload(phase, context), a);
    let prefill: Option<Evaluation> = if want_prefill {
        Some(eval(Phase::Prefill, run.prompt)?)
    } else {
        None
    };
    let decode: Option<Evaluation> = if want_decode {
        Some(eval(Phase::Decode, run.prompt + run.output / 2.0)?)
    } else {
        None
    };
    let ttft = prefill.as_ref().map_or(0.0, |e| e.latency_s);
    let itl = decode.as_ref().map_or(0.0, |e| e.latency_s);
    // Decode steps after the first token (the prefill makes it), or all of
    // them when there is no prompt.
    let steps = if run.prompt > 0.0 {
        (run.output - 1.0).max(0.0)
    } else {
        run.output
    };
    let time = |ttft: f64, itl: f64| -> f64 {
        match metric {
            Metric::OutputTokensPerS => run.batch * run.output / (ttft + steps * itl),
            Metric::TokensPerSPerUser => 1.0 / itl,
            Metric::ItlS => itl,
            Metric::DecodeTokensPerS => run.batch / itl,
            Metric::TtftS => ttft,
            Metric::PrefillTokensPerS => run.batch * run.prompt / ttft,
            Metric::E2eS => ttft + steps * itl,
        }
    };
    let value = time(ttft, itl);
    // Each part's band applied to it: the slow ends together, the fast
    // ends together.
    let (t_lo, t_hi) = prefill
        .as_ref()
        .map_or((0.0, 0.0), Evaluation::latency_range);
    let (i_lo, i_hi) = decode
        .as_ref()
        .map_or((0.0, 0.0), Evaluation::latency_range);
    let (fast, slow) = (time(t_lo, i_lo), time(t_hi, i_hi));
    let (low, high) = if metric.is_time() {
        (fast, slow)
    } else {
        (slow, fast)
    };
    let fixed = prefill.as_ref().map_or(0.0, Evaluation::fixed_s)
        + steps * decode.as_ref().map_or(0.0, Evaluation::fixed_s);
    let total = ttft + steps * itl;
    let fits = prefill.iter().chain(decode.iter()).all(|e| e.memory.fits);
    if !value.is_finite() {
        return Err(SolverError::Unsupported(format!(
            "{} is not a finite number for this run",
            metric.key()
        )));
    }
    Ok(Prediction {
        value,
        low,
        high,
        fits,
        fixed_share: if total > 0.0 { fixed / total } else { 0.0 },
    })
}

/// Relative error of a prediction: predicted / measured - 1, on the
/// metric's own scale (+10% on a rate is 10% optimistic; on a time, 10%
/// pessimistic).
pub fn error(predicted: f64, measured: f64) -> f64 {
    predicted / measured - 1.0
}

/// How a set of predictions compares with its measurements.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    pub count: usize,
    /// Median and largest |predicted / measured - 1|.
    pub median_abs_error: f64,
    pub worst_abs_error: f64,
    /// Measurements inside their prediction's band.
    pub inside_band: usize,
}

/// Summarise (prediction, measured value) pairs.
pub fn summarize(pairs: &[(Prediction, f64)]) -> Summary {
    let mut errs: Vec<f64> = pairs
        .iter()
        .map(|(p, m)| error(p.value, *m).abs())
        .collect();
    errs.sort_by(f64::total_cmp);
    let n = errs.len();
    let median = match n {
        0 => 0.0,
        _ if n % 2 == 1 => errs[n / 2],
        _ => (errs[n / 2 - 1] + errs[n / 2]) / 2.0,
    };
    Summary {
        count: n,
        median_abs_error: median,
        worst_abs_error: errs.last().copied().unwrap_or(0.0),
        inside_band: pairs
            .iter()
            .filter(|(p, m)| p.low <= *m && *m <= p.high)
            .count(),
    }
}

/// One published figure to fit on: the run, on what, and its value.
#[derive(Debug, Clone, Copy)]
pub struct Case<'a> {
    pub hw: &'a Hardware,
    pub model: &'a Model,
    pub run: &'a Run,
    pub metric: Metric,
    pub measured: f64,
}

/// The mean |ln(predicted / measured)| of `cases` under `a` (what
/// examples/calibrate.rs minimises); infinite when none is predicted.
pub fn mean_log_error(cases: &[Case], a: &Assumptions) -> f64 {
    let errs: Vec<f64> = cases
        .iter()
        .filter_map(|c| {
            predict(c.hw, c.model, c.run, c.metric, a)
                .ok()
                .map(|p| (p.value / c.measured).ln().abs())
        })
        .filter(|e| e.is_finite())
        .collect();
    if errs.is_empty() {
        return f64::INFINITY;
    }
    errs.iter().sum::<f64>() / errs.len() as f64
}

/// An assumption a refit may move: how to set it, and the interval it is
/// searched in.
pub struct Param<'a> {
    pub set: &'a dyn Fn(&mut Assumptions, f64),
    pub lo: f64,
    pub hi: f64,
}

/// Sweeps of coordinate descent and golden-section steps per value in
/// [`refit`]: 0.618^30 narrows a 10 ms interval to 5 ns.
pub const REFIT_SWEEPS: usize = 12;
pub const REFIT_STEPS: usize = 30;

/// Refit `params` of `start` on `cases`: coordinate descent, each value
/// by a golden-section search of its interval, kept only when it lowers
/// [`mean_log_error`]. Bounded ([`REFIT_SWEEPS`] x [`REFIT_STEPS`]
/// predictions of the cases per value) where examples/calibrate.rs
/// searches whole grids from several starts: fast enough to refit once
/// per held-out source.
pub fn refit(cases: &[Case], start: &Assumptions, params: &[Param]) -> Assumptions {
    let mut a = *start;
    let mut best = mean_log_error(cases, &a);
    if !best.is_finite() {
        return a;
    }
    for _ in 0..REFIT_SWEEPS {
        let before = best;
        for p in params {
            let cost = |x: f64| {
                let mut t = a;
                (p.set)(&mut t, x);
                mean_log_error(cases, &t)
            };
            let x = golden(p.lo, p.hi, REFIT_STEPS, cost);
            let f = cost(x);
            if f < best - 1e-12 {
                best = f;
                (p.set)(&mut a, x);
            }
        }
        if best >= before - 1e-9 {
            break;
        }
    }
    a
}

/// The x in `(lo, hi)` that minimises a unimodal `cost`: golden-section
/// search of `steps` steps (a width of (hi - lo) x 0.618^steps).
pub fn golden(mut lo: f64, mut hi: f64, steps: usize, cost: impl Fn(f64) -> f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut x1 = hi - g * (hi - lo);
    let mut x2 = lo + g * (hi - lo);
    let (mut f1, mut f2) = (cost(x1), cost(x2));
    for _ in 0..steps {
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = cost(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = cost(x2);
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::tests::{a100, llama8};

    fn run(batch: f64, prompt: f64, output: f64) -> Run {
        Run {
            batch,
            prompt,
            output,
            weights: Precision::Bf16,
            activations: Precision::Bf16,
            kv: Precision::Bf16,
            tp: 1,
            pp: 1,
        }
    }

    #[test]
    fn output_throughput_is_the_batch_over_the_prefill_and_the_decode_steps() {
        let (hw, m, a) = (a100(), llama8(), Assumptions::default());
        let r = run(4.0, 100.0, 51.0);
        let p = predict(&hw, &m, &r, Metric::OutputTokensPerS, &a).unwrap();
        // 4 x 51 tokens over one prefill of 4 x 100 tokens and 50 decode
        // steps at context 100 + 51/2 = 125.5.
        let ttft = predict(&hw, &m, &r, Metric::TtftS, &a).unwrap().value;
        let itl = predict(&hw, &m, &r, Metric::ItlS, &a).unwrap().value;
        let wl = run(4.0, 0.0, 0.0).workload(Phase::Decode, 125.5);
        assert_eq!(itl, roofline::evaluate(&hw, &m, &wl, &a).unwrap().latency_s);
        assert!((p.value - 204.0 / (ttft + 50.0 * itl)).abs() < 1e-9 * p.value);
    }

    #[test]
    fn a_run_without_a_prompt_is_all_decode_steps() {
        let (hw, m, a) = (a100(), llama8(), Assumptions::default());
        // llama.cpp tg128: 128 steps, tokens/s = 1 / ITL.
        let r = run(1.0, 0.0, 128.0);
        let tg = predict(&hw, &m, &r, Metric::OutputTokensPerS, &a).unwrap();
        let itl = predict(&hw, &m, &r, Metric::ItlS, &a).unwrap();
        assert!((tg.value * itl.value - 1.0).abs() < 1e-12);
        assert!(predict(&hw, &m, &r, Metric::TtftS, &a).is_err());
    }

    #[test]
    fn the_band_brackets_the_value_and_flips_for_rates() {
        let (hw, m) = (a100(), llama8());
        let a = Assumptions {
            band_base: 0.1,
            ..Assumptions::default()
        };
        let r = run(1.0, 128.0, 128.0);
        let t = predict(&hw, &m, &r, Metric::ItlS, &a).unwrap();
        // e^-0.1 and e^0.1 around the time; the inverse for the rate.
        assert!((t.low / t.value - (-0.1f64).exp()).abs() < 1e-12);
        assert!((t.high / t.value - 0.1f64.exp()).abs() < 1e-12);
        let rate = predict(&hw, &m, &r, Metric::TokensPerSPerUser, &a).unwrap();
        assert!((rate.low * t.high - 1.0).abs() < 1e-12);
    }

    #[test]
    fn summary_takes_the_median_and_the_worst_and_counts_the_band() {
        let p = |v: f64| Prediction {
            value: v,
            low: v * 0.9,
            high: v * 1.1,
            fits: true,
            fixed_share: 0.0,
        };
        // Errors +10%, -20%, +5%: median 10%, worst 20%; 100 is inside
        // [99, 121] for 110 and inside [94.5, 115.5] for 105, 100 is not
        // inside [72, 88] for 80.
        let s = summarize(&[(p(110.0), 100.0), (p(80.0), 100.0), (p(105.0), 100.0)]);
        assert_eq!(s.count, 3);
        assert!((s.median_abs_error - 0.10).abs() < 1e-12);
        assert!((s.worst_abs_error - 0.20).abs() < 1e-12);
        assert_eq!(s.inside_band, 2);
    }

    #[test]
    fn a_refit_finds_the_value_that_made_the_figures() {
        // Figures made by the model itself at memory efficiency 0.6 and
        // 20 us per kernel; a refit from 0.82 and 6.5 us finds both again
        // (the error is 0 there, so anything else scores worse). The runs
        // stream very different bytes (batch 1 at a short context, batch
        // 64 at 8k tokens of KV each) for the same kernels, so the two
        // values are told apart.
        let (hw, m) = (a100(), llama8());
        let made = Assumptions {
            memory_efficiency: 0.6,
            kernel_s: 20e-6,
            ..Assumptions::default()
        };
        let runs = [
            run(1.0, 128.0, 2.0),
            run(16.0, 4096.0, 2.0),
            run(64.0, 8192.0, 2.0),
        ];
        let cases: Vec<Case> = runs
            .iter()
            .map(|r| Case {
                hw: &hw,
                model: &m,
                run: r,
                metric: Metric::ItlS,
                measured: predict(&hw, &m, r, Metric::ItlS, &made).unwrap().value,
            })
            .collect();
        let start = Assumptions {
            memory_efficiency: 0.82,
            kernel_s: 6.5e-6,
            ..Assumptions::default()
        };
        assert!(mean_log_error(&cases, &start) > 0.05);
        let params = [
            Param {
                set: &|a: &mut Assumptions, x| a.memory_efficiency = x,
                lo: 0.1,
                hi: 1.0,
            },
            Param {
                set: &|a: &mut Assumptions, x| a.kernel_s = x,
                lo: 0.0,
                hi: 1e-3,
            },
        ];
        let fitted = refit(&cases, &start, &params);
        assert!((fitted.memory_efficiency - 0.6).abs() < 0.01, "{fitted:?}");
        assert!((fitted.kernel_s - 20e-6).abs() < 1e-6, "{fitted:?}");
        assert!(mean_log_error(&cases, &fitted) < 0.005);
        // Nothing to fit on: the start comes back.
        assert_eq!(refit(&[], &start, &params), start);
    }
}
