//! Synthesis targets and batch ranges as users type them, in scenario
//! files and in the workbench's entries.

use crate::solver::units::{self, Kind};
use crate::solver::{Phase, Workload};
use std::fmt;

/// A synthesis target as a user types it: "50ms itl" (or a plain "50ms"),
/// "100ms ttft", "30 tok/s per user", "5000 tok/s" (over the batch).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SynthTarget {
    /// Inter-token latency of a decode step, seconds.
    Itl(f64),
    /// Time to first token (the prefill), seconds.
    Ttft(f64),
    /// Tokens per second each user sees: ITL = 1 / rate.
    PerUser(f64),
    /// Tokens per second over the whole batch: a decode step of B sequences
    /// must finish in B / rate.
    Aggregate(f64),
}

impl SynthTarget {
    pub fn parse(s: &str) -> Result<SynthTarget, String> {
        let t = s.trim().to_ascii_lowercase();
        let positive = |v: f64, what: &str| {
            if v > 0.0 {
                Ok(v)
            } else {
                Err(format!("{what} must be greater than zero"))
            }
        };
        if let Some(rate) = t.strip_suffix("per user").map(str::trim) {
            let n = rate
                .trim_end_matches("tok/s")
                .trim_end_matches("tokens/s")
                .trim();
            let v = units::parse(n, Kind::Count).map_err(|e| e.to_string())?;
            return positive(v, "a per-user rate").map(SynthTarget::PerUser);
        }
        if let Some(n) = t
            .strip_suffix("tok/s")
            .or_else(|| t.strip_suffix("tokens/s"))
        {
            let v = units::parse(n.trim(), Kind::Count).map_err(|e| e.to_string())?;
            return positive(v, "a throughput").map(SynthTarget::Aggregate);
        }
        let (time, kind) = match t.rsplit_once(' ') {
            Some((a, "itl")) => (a, "itl"),
            Some((a, "ttft")) => (a, "ttft"),
            _ => (t.as_str(), "itl"),
        };
        let v = units::parse(time.trim(), Kind::Time).map_err(|e| {
            format!("{e}; targets read like \"50ms itl\", \"100ms ttft\", \"30 tok/s per user\"")
        })?;
        let v = positive(v, "a latency target")?;
        Ok(if kind == "ttft" {
            SynthTarget::Ttft(v)
        } else {
            SynthTarget::Itl(v)
        })
    }

    /// The phase to synthesize for and the solver's target, for `wl`'s batch.
    pub fn resolve(&self, wl: &Workload) -> (Phase, crate::solver::Target) {
        use crate::solver::Target;
        let latency = |l: f64| Target {
            latency_s: l,
            min_tokens_per_s: None,
        };
        match *self {
            SynthTarget::Itl(t) => (Phase::Decode, latency(t)),
            SynthTarget::Ttft(t) => (Phase::Prefill, latency(t)),
            SynthTarget::PerUser(r) => (Phase::Decode, latency(1.0 / r)),
            SynthTarget::Aggregate(r) => (Phase::Decode, latency(wl.batch / r)),
        }
    }
}

impl fmt::Display for SynthTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SynthTarget::Itl(t) => write!(f, "{} itl", units::format_time(t).replace(' ', "")),
            SynthTarget::Ttft(t) => write!(f, "{} ttft", units::format_time(t).replace(' ', "")),
            SynthTarget::PerUser(r) => write!(f, "{} tok/s per user", units::format_number(r)),
            SynthTarget::Aggregate(r) => write!(f, "{} tok/s", units::format_number(r)),
        }
    }
}

/// "1..512" -> (1, 512); a single "64" -> (64, 64).
pub fn parse_batches(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let num = |x: &str| -> Result<u64, String> {
        let v = units::parse(x.trim().trim_start_matches('='), Kind::Count)
            .map_err(|e| e.to_string())?;
        if (1.0..=1e9).contains(&v) && v.fract() == 0.0 {
            Ok(v as u64)
        } else {
            Err(format!("{x:?} must be a whole number from 1 to 1e9"))
        }
    };
    let (lo, hi) = (num(a)?, num(b)?);
    if hi < lo {
        return Err(format!("{s:?}: a range goes from low to high, like 1..512"));
    }
    Ok((lo, hi))
}
