//! A whole training run: tokens, time, device-hours, money, energy and
//! carbon, and the goodput left by failures and checkpoints.
//!
//! - tokens to train: a number, or `chinchilla` = 20 tokens per parameter
//!   (Hoffmann et al. 2022, "Training Compute-Optimal Large Language
//!   Models", table 3); steps = tokens / tokens per step.
//! - failures: a job of n devices fails every M = MTBF_device / n. A
//!   checkpoint of the weights and optimizer state, P (e + o) bytes (e the
//!   width the weights are held at, 2 for fp8 a stack holds at 16 bits), takes
//!   C = bytes / (n x write bandwidth per device). The Young-Daly interval
//!   tau = sqrt(2 C M) (Young 1974; Daly 2006) and the first-order waste
//!   C / tau + (tau / 2 + R) / M (checkpoints written, work redone since
//!   the last one, restart R) give the wall time = ideal x (1 + waste) and
//!   goodput = 1 / (1 + waste).
//! - money and energy over the wall time: device-hours x price; power =
//!   n x TDP x (idle + (1 - idle) x load) at full load; CO2 = energy x PUE
//!   x grid intensity ([`crate::solver::economics`]).

use super::{Training, TrainingAssumptions};
use crate::solver::economics::{self, Grid, J_PER_KWH};
use crate::solver::types::Hardware;

/// Hoffmann et al. 2022: about 20 training tokens per parameter.
pub const CHINCHILLA_TOKENS_PER_PARAM: f64 = 20.0;

/// How many tokens to train on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TokensToTrain {
    Tokens(f64),
    /// 20 x the model's (total) parameters.
    Chinchilla,
}

impl TokensToTrain {
    pub fn tokens(self, params: f64) -> f64 {
        match self {
            TokensToTrain::Tokens(n) => n,
            TokensToTrain::Chinchilla => CHINCHILLA_TOKENS_PER_PARAM * params,
        }
    }
}

/// What a run-level figure needs beyond the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSpec {
    pub tokens: TokensToTrain,
    /// Share of TDP a device draws idle ([`economics::DEFAULT_IDLE_SHARE`]).
    pub idle_share: f64,
    /// The grid for carbon; None leaves CO2 out.
    pub grid: Option<Grid>,
}

/// The figures of a whole run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunFigures {
    pub tokens: f64,
    pub steps: f64,
    /// Steps x step time, without failures.
    pub ideal_time_s: f64,
    /// With checkpoints, lost work and restarts.
    pub time_to_train_s: f64,
    pub device_hours: f64,
    pub cost_usd: Option<f64>,
    /// Energy the devices draw (before the facility's PUE), kWh.
    pub energy_kwh: Option<f64>,
    /// CO2e with the facility's PUE on the grid, kg.
    pub co2_kg: Option<f64>,
    pub checkpoint_bytes: f64,
    pub checkpoint_write_s: f64,
    /// MTBF of the whole job.
    pub job_mtbf_s: f64,
    /// Young-Daly interval.
    pub checkpoint_interval_s: f64,
    /// Useful time over wall time.
    pub goodput: f64,
    /// Wall time less ideal time.
    pub time_lost_s: f64,
}

/// The run-level figures of training `tr` for `spec`.
pub fn run_figures(
    hw: &Hardware,
    tr: &Training,
    spec: &RunSpec,
    t: &TrainingAssumptions,
) -> RunFigures {
    let n = tr.devices() as f64;
    let tokens = spec.tokens.tokens(tr.params.total);
    let steps = tokens / tr.step.step_tokens;
    let ideal = steps * tr.step.step_time_s;
    let checkpoint_bytes = tr.params.total * (tr.run.stored_bytes(t) + tr.run.optimizer_bytes());
    let c = checkpoint_bytes / (n * t.checkpoint_bandwidth);
    let mtbf = t.device_mtbf_s / n;
    let (interval, waste) = young_daly(c, mtbf, t.restart_s);
    let wall = ideal * (1.0 + waste);
    let device_hours = n * wall / 3600.0;
    let energy_j = hw
        .tdp_w
        .map(|tdp| economics::power(n, tdp, 1.0, spec.idle_share) * wall);
    RunFigures {
        tokens,
        steps,
        ideal_time_s: ideal,
        time_to_train_s: wall,
        device_hours,
        cost_usd: hw.price_per_hour_usd.map(|p| p * device_hours),
        energy_kwh: energy_j.map(|j| j / J_PER_KWH),
        co2_kg: energy_j
            .zip(spec.grid)
            .map(|(j, g)| economics::co2_g(j, &g) / 1000.0),
        checkpoint_bytes,
        checkpoint_write_s: c,
        job_mtbf_s: mtbf,
        checkpoint_interval_s: interval,
        goodput: 1.0 / (1.0 + waste),
        time_lost_s: wall - ideal,
    }
}

/// The Young-Daly checkpoint interval sqrt(2 C M) for a checkpoint of `c`
/// seconds and a job MTBF of `m`, and the first-order share of time wasted
/// C / tau + (tau / 2 + R) / M with a restart of `r`.
pub fn young_daly(c: f64, m: f64, r: f64) -> (f64, f64) {
    let interval = (2.0 * c * m).sqrt();
    (interval, c / interval + (interval / 2.0 + r) / m)
}
