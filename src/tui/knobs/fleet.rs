//! The Fleet view's search knobs: the precisions searched, the serving
//! mode and each region's share of the load. `Knob` (knobs.rs) hands these
//! three to here.

use super::{Knob, ViewInputs};
use crate::solver::Precisions;
use crate::solver::fleet::ModeChoice;
use crate::solver::units::{self, Kind};

/// The precision lists the knob steps through, narrowest search first.
const STEPS: [&str; 4] = ["bf16", "fp8", "int4", "bf16,fp8,int4"];

pub fn covers(k: Knob) -> bool {
    matches!(k, Knob::FleetPrecisions | Knob::FleetMode | Knob::Shares)
}

pub fn label(k: Knob) -> &'static str {
    match k {
        Knob::FleetPrecisions => "precisions",
        Knob::FleetMode => "mode",
        _ => "shares",
    }
}

pub fn hint(k: Knob) -> &'static str {
    match k {
        Knob::FleetPrecisions => "searched, e.g. bf16,fp8,int4 or int4/bf16/fp8",
        Knob::FleetMode => "auto, aggregated or disaggregated",
        _ => "each region's load, in region order, e.g. 0.6,0.4; equal",
    }
}

/// "bf16,fp8,int4".
pub fn precisions(p: &[Precisions]) -> String {
    p.iter()
        .map(Precisions::label)
        .collect::<Vec<_>>()
        .join(",")
}

pub fn value(k: Knob, v: &ViewInputs) -> String {
    match k {
        Knob::FleetPrecisions => precisions(&v.precisions),
        Knob::FleetMode => v.mode.name().to_string(),
        _ if v.shares.is_empty() => "equal".into(),
        _ => v
            .shares
            .iter()
            .map(|s| units::format_number(*s))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// Precisions step through one at a time and all three; the mode cycles;
/// shares move a tenth of the load from the last region to the first (or
/// back), each keeping at least a tenth.
pub fn step(k: Knob, v: &mut ViewInputs, up: bool) {
    match k {
        Knob::FleetPrecisions => {
            let cur = precisions(&v.precisions);
            let n = STEPS.len();
            let i = STEPS.iter().position(|s| *s == cur);
            let j = match (i, up) {
                (None, _) => n - 1,
                (Some(i), true) => (i + 1) % n,
                (Some(i), false) => (i + n - 1) % n,
            };
            v.precisions = Precisions::parse_list(STEPS[j]).unwrap_or_default();
        }
        Knob::FleetMode => {
            let all = ModeChoice::ALL;
            let i = all.iter().position(|m| *m == v.mode).unwrap_or(0);
            let n = all.len();
            v.mode = all[if up { (i + 1) % n } else { (i + n - 1) % n }];
        }
        _ => {
            let n = v.regions.len();
            if n < 2 {
                return;
            }
            let mut s = if v.shares.len() == n {
                v.shares.clone()
            } else {
                vec![1.0 / n as f64; n]
            };
            let d = if up { 0.1 } else { -0.1 };
            // Tenths, rounded so that steps land on 0.6, 0.4 exactly.
            let first = ((s[0] + d) * 10.0).round() / 10.0;
            let last = ((s[n - 1] - d) * 10.0).round() / 10.0;
            if first >= 0.1 - 1e-9 && last >= 0.1 - 1e-9 {
                s[0] = first;
                s[n - 1] = last;
                let rest: f64 = s.iter().sum();
                if (rest - 1.0).abs() < 1e-9 {
                    v.shares = s;
                }
            }
        }
    }
}

pub fn parse(k: Knob, t: &str, v: &mut ViewInputs) -> Result<(), String> {
    match k {
        Knob::FleetPrecisions => v.precisions = Precisions::parse_list(t)?,
        Knob::FleetMode => {
            v.mode = ModeChoice::parse(t).ok_or_else(|| {
                format!(
                    "no mode {:?}; use auto, aggregated or disaggregated",
                    t.trim()
                )
            })?
        }
        _ => v.shares = shares(t, v.regions.len())?,
    }
    Ok(())
}

/// Shares of `n` regions from text: "equal" (or nothing) for equal shares,
/// else one fraction per region adding up to 1.
pub fn shares(t: &str, n: usize) -> Result<Vec<f64>, String> {
    let t = t.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("equal") {
        return Ok(Vec::new());
    }
    let s = t
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|x| !x.is_empty())
        .map(|x| units::parse(x, Kind::Fraction).map_err(|e| e.to_string()))
        .collect::<Result<Vec<f64>, String>>()?;
    crate::scenario::check_shares(&s, n)?;
    Ok(s)
}
