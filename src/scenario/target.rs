//! Synthesis targets and batch ranges as users type them, in scenario
//! files and in the workbench's entries.

use crate::solver::units::{self, Kind};

/// Synthesis targets are read by the solver's one parser, shared with the
/// command line (`ridgeline synth --target`).
pub use crate::solver::target::SynthTarget;

/// The Synthesis view's target when a scenario sets none: 50 ms between
/// tokens.
pub const DEFAULT_SYNTH_TARGET: SynthTarget = SynthTarget::Itl(0.05);

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
