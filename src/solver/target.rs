//! Synthesis targets as users type them, read by one parser for the command
//! line (`ridgeline synth --target`), the workbench's target knob and
//! scenario files: "50ms itl" (or a plain "50ms"), "100ms ttft",
//! "30 tok/s per user", "5000 tok/s" (over the batch).
//!
//! Pure: text in, a target out; the solver's [`Target`] follows from it
//! and a workload.

use super::synthesis::Target;
use super::types::{Phase, Workload};
use super::units::{self, Kind};
use std::fmt;

/// What a synthesis must meet, as the user said it.
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

/// The forms a target takes, for messages.
pub const FORMS: &str = "\"50ms itl\", \"100ms ttft\", \"30 tok/s per user\"";

fn positive(v: f64, what: &str) -> Result<f64, String> {
    if v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{what} must be greater than zero"))
    }
}

/// A rate "30", "30 tok/s", "30 tokens/s" (the unit optional).
fn rate(n: &str, what: &str) -> Result<f64, String> {
    let n = ["tokens/s", "token/s", "tok/s"]
        .iter()
        .find_map(|u| n.trim().strip_suffix(u))
        .unwrap_or(n)
        .trim();
    let v = units::parse(n, Kind::Count).map_err(|e| e.to_string())?;
    positive(v, what)
}

impl SynthTarget {
    /// Read a target; a plain time is an inter-token target.
    pub fn parse(s: &str) -> Result<SynthTarget, String> {
        SynthTarget::parse_for(s, Phase::Decode)
    }

    /// Read a target; a plain time ("50ms") is the latency of `phase`:
    /// inter-token for decode, time to first token for prefill.
    pub fn parse_for(s: &str, phase: Phase) -> Result<SynthTarget, String> {
        let t = s.trim().to_ascii_lowercase();
        for suffix in ["per user", "/user", "/ user"] {
            if let Some(r) = t.strip_suffix(suffix) {
                return rate(r, "a per-user rate").map(SynthTarget::PerUser);
            }
        }
        if ["tok/s", "tokens/s", "token/s"]
            .iter()
            .any(|u| t.ends_with(u))
        {
            return rate(&t, "a throughput").map(SynthTarget::Aggregate);
        }
        const ITL: [&str; 3] = ["itl", "inter-token", "tpot"];
        const TTFT: [&str; 2] = ["ttft", "first-token"];
        // "50ms itl" or "itl 50ms" (also "itl=50ms", "itl: 50ms").
        let words: Vec<&str> = t
            .split(|c: char| c.is_whitespace() || c == '=' || c == ':')
            .filter(|w| !w.is_empty())
            .collect();
        let mut kind = None;
        let mut rest = Vec::new();
        for w in words {
            if ITL.contains(&w) && kind.is_none() {
                kind = Some(Phase::Decode);
            } else if TTFT.contains(&w) && kind.is_none() {
                kind = Some(Phase::Prefill);
            } else {
                rest.push(w);
            }
        }
        let time = rest.join(" ");
        let v = units::parse(&time, Kind::Time)
            .map_err(|e| format!("{e}; targets read like {FORMS}"))?;
        let v = positive(v, "a latency target")?;
        Ok(match kind.unwrap_or(phase) {
            Phase::Prefill => SynthTarget::Ttft(v),
            Phase::Decode => SynthTarget::Itl(v),
        })
    }

    /// The phase to synthesize for and the solver's target, for `wl`'s batch.
    pub fn resolve(&self, wl: &Workload) -> (Phase, Target) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_parser_reads_the_forms_of_both_faces() {
        // The workbench's forms.
        assert_eq!(SynthTarget::parse("50ms itl"), Ok(SynthTarget::Itl(0.05)));
        assert_eq!(SynthTarget::parse("100ms TTFT"), Ok(SynthTarget::Ttft(0.1)));
        assert_eq!(
            SynthTarget::parse("30 tok/s per user"),
            Ok(SynthTarget::PerUser(30.0))
        );
        assert_eq!(
            SynthTarget::parse("5k tok/s"),
            Ok(SynthTarget::Aggregate(5000.0))
        );
        // The command line's: a plain time, with or without a space, is the
        // latency of the phase asked for.
        assert_eq!(SynthTarget::parse("50ms"), Ok(SynthTarget::Itl(0.05)));
        assert_eq!(SynthTarget::parse("50 ms"), Ok(SynthTarget::Itl(0.05)));
        assert_eq!(
            SynthTarget::parse_for("100ms", Phase::Prefill),
            Ok(SynthTarget::Ttft(0.1))
        );
        // A named kind wins over the phase.
        assert_eq!(
            SynthTarget::parse_for("50 ms itl", Phase::Prefill),
            Ok(SynthTarget::Itl(0.05))
        );
        // Either order, and the long names.
        assert_eq!(SynthTarget::parse("ttft 100ms"), Ok(SynthTarget::Ttft(0.1)));
        assert_eq!(SynthTarget::parse("itl=50ms"), Ok(SynthTarget::Itl(0.05)));
        assert_eq!(
            SynthTarget::parse("30 tokens/s/user"),
            Ok(SynthTarget::PerUser(30.0))
        );
        for bad in [
            "fast",
            "0ms",
            "-3 tok/s per user",
            "itl",
            "50",
            "50ms itl ttft",
        ] {
            assert!(SynthTarget::parse(bad).is_err(), "{bad}");
        }
        let e = SynthTarget::parse("soon").unwrap_err();
        assert!(e.contains("30 tok/s per user"), "{e}");
    }

    #[test]
    fn resolves_and_round_trips() {
        // 30 tok/s per user is a 1/30 s = 33.3 ms inter-token target; 5000
        // tok/s over a batch of 50 is a 50/5000 = 10 ms step.
        let wl = Workload {
            batch: 50.0,
            ..Workload::default()
        };
        assert_eq!(
            SynthTarget::PerUser(30.0).resolve(&wl).1.latency_s,
            1.0 / 30.0
        );
        assert_eq!(
            SynthTarget::Aggregate(5000.0).resolve(&wl).1.latency_s,
            0.01
        );
        assert_eq!(SynthTarget::Ttft(0.1).resolve(&wl).0, Phase::Prefill);
        for t in ["50ms itl", "100ms ttft", "30 tok/s per user", "5k tok/s"] {
            let p = SynthTarget::parse(t).unwrap();
            assert_eq!(SynthTarget::parse(&p.to_string()), Ok(p), "{t}");
        }
    }
}
