//! The Explore view's knobs: the objectives of the plot's two axes, the
//! axes of the space (devices, precisions, TP, PP and batch up to) and the
//! TTFT and ITL limits. `Knob` (knobs.rs) hands them to these.

use super::Knob;
use crate::scenario::{
    ExploreHardware, ExploreInputs, MAX_EXPLORE_BATCH, MAX_EXPLORE_DEGREE, parse_precisions,
    precisions_text,
};
use crate::solver::explore::Objective;
use crate::solver::units::{self, Kind};
use crate::solver::{Precision, Precisions};

pub fn covers(k: Knob) -> bool {
    use Knob::*;
    matches!(
        k,
        ExploreX
            | ExploreY
            | ExploreHardware
            | ExplorePrecisions
            | ExploreTp
            | ExplorePp
            | ExploreBatch
            | ExploreTtft
            | ExploreItl
            | ExploreInfeasible
    )
}

pub fn label(k: Knob) -> &'static str {
    match k {
        Knob::ExploreX => "x axis",
        Knob::ExploreY => "y axis",
        Knob::ExploreHardware => "devices",
        Knob::ExplorePrecisions => "precisions",
        Knob::ExploreTp => "TP up to",
        Knob::ExplorePp => "PP up to",
        Knob::ExploreBatch => "batch up to",
        Knob::ExploreTtft => "TTFT limit",
        Knob::ExploreItl => "ITL limit",
        _ => "infeasible",
    }
}

pub fn hint(k: Knob) -> &'static str {
    match k {
        Knob::ExploreX | Knob::ExploreY => "itl, ttft, throughput, cost, energy or devices",
        Knob::ExploreHardware => "marked, all, or a tier: cloud workstation edge mobile tiny",
        Knob::ExplorePrecisions => "comma-separated: bf16,fp8,int4 or int4/fp8/fp8",
        Knob::ExploreTp | Knob::ExplorePp => "devices; the powers of two up to it, e.g. 8",
        Knob::ExploreBatch => "the powers of two up to it, e.g. 256",
        Knob::ExploreTtft | Knob::ExploreItl => "e.g. 200ms, 50ms; none",
        _ => "show the configurations that are out: shown or hidden",
    }
}

pub fn value(k: Knob, e: &ExploreInputs) -> String {
    let limit = |x: Option<f64>| x.map_or("none".into(), units::format_time);
    match k {
        Knob::ExploreX => e.x.name().into(),
        Knob::ExploreY => e.y.name().into(),
        Knob::ExploreHardware => e.hardware.name().into(),
        Knob::ExplorePrecisions => precisions_text(&e.precisions),
        Knob::ExploreTp => e.tp.to_string(),
        Knob::ExplorePp => e.pp.to_string(),
        Knob::ExploreBatch => e.batch.to_string(),
        Knob::ExploreTtft => limit(e.ttft_s),
        Knob::ExploreItl => limit(e.itl_s),
        _ => if e.infeasible { "shown" } else { "hidden" }.into(),
    }
}

/// The next objective up or down from `cur`, skipping `other` (the two
/// axes never show the same one).
fn next_objective(cur: Objective, other: Objective, up: bool) -> Objective {
    let all = Objective::ALL;
    let n = all.len();
    let mut i = all.iter().position(|o| *o == cur).unwrap_or(0);
    loop {
        i = if up { (i + 1) % n } else { (i + n - 1) % n };
        if all[i] != other {
            return all[i];
        }
    }
}

/// The next list of precisions: one more precision (the next named one
/// not in the list) up, one fewer down (never none).
fn step_precisions(v: &[Precisions], up: bool) -> Vec<Precisions> {
    let mut v = v.to_vec();
    if up {
        if let Some(p) = Precision::ALL
            .into_iter()
            .map(Precisions::named)
            .find(|p| !v.contains(p))
        {
            v.push(p);
        }
    } else if v.len() > 1 {
        v.pop();
    }
    v
}

/// A limit stepped: doubled and halved; from none, up starts at 1 ms;
/// halving 1 ms or less leaves no limit.
fn step_limit(x: Option<f64>, up: bool) -> Option<f64> {
    match (x, up) {
        (None, true) => Some(1e-3),
        (None, false) => None,
        (Some(t), true) => Some((t * 2.0).min(1e4)),
        (Some(t), false) if t <= 1e-3 => None,
        (Some(t), false) => Some(t / 2.0),
    }
}

pub fn step(k: Knob, e: &ExploreInputs, up: bool) -> ExploreInputs {
    let mut n = e.clone();
    let degree = |x: u32| {
        if up {
            x.saturating_mul(2).min(MAX_EXPLORE_DEGREE)
        } else {
            (x / 2).max(1)
        }
    };
    match k {
        Knob::ExploreX => n.x = next_objective(e.x, e.y, up),
        Knob::ExploreY => n.y = next_objective(e.y, e.x, up),
        Knob::ExploreHardware => {
            let all = ExploreHardware::ALL;
            let m = all.len();
            let i = all.iter().position(|h| *h == e.hardware).unwrap_or(0);
            n.hardware = all[if up { (i + 1) % m } else { (i + m - 1) % m }];
        }
        Knob::ExplorePrecisions => n.precisions = step_precisions(&e.precisions, up),
        Knob::ExploreTp => n.tp = degree(e.tp),
        Knob::ExplorePp => n.pp = degree(e.pp),
        Knob::ExploreBatch => {
            n.batch = if up {
                (e.batch * 2).min(MAX_EXPLORE_BATCH)
            } else {
                (e.batch / 2).max(1)
            }
        }
        Knob::ExploreTtft => n.ttft_s = step_limit(e.ttft_s, up),
        Knob::ExploreItl => n.itl_s = step_limit(e.itl_s, up),
        _ => n.infeasible = !e.infeasible,
    }
    n
}

pub fn parse(k: Knob, text: &str, e: &ExploreInputs) -> Result<ExploreInputs, String> {
    let mut n = e.clone();
    let t = text.trim();
    let objective = |t: &str, other: Objective| {
        let o = Objective::parse(t).ok_or_else(|| {
            format!("unknown objective {t:?}; use itl, ttft, throughput, cost, energy or devices")
        })?;
        if o == other {
            return Err(format!(
                "the other axis is {}: pick another objective",
                o.name()
            ));
        }
        Ok(o)
    };
    let whole = |t: &str, max: u64| -> Result<u64, String> {
        let v = units::parse(t, Kind::Count).map_err(|e| e.to_string())?;
        if v.fract() != 0.0 || !(1.0..=max as f64).contains(&v) {
            return Err(format!(
                "{} must be a whole number from 1 to {max}",
                label(k)
            ));
        }
        Ok(v as u64)
    };
    let limit = |t: &str| -> Result<Option<f64>, String> {
        if t.is_empty() || t.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        let v = units::parse(t, Kind::Time).map_err(|e| e.to_string())?;
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("{} must be greater than zero (or none)", label(k)));
        }
        Ok(Some(v))
    };
    match k {
        Knob::ExploreX => n.x = objective(t, e.y)?,
        Knob::ExploreY => n.y = objective(t, e.x)?,
        Knob::ExploreHardware => {
            n.hardware = ExploreHardware::parse(t).ok_or_else(|| {
                format!(
                    "devices {t:?}? use marked, all or a tier: cloud workstation edge mobile tiny"
                )
            })?
        }
        Knob::ExplorePrecisions => n.precisions = parse_precisions(t)?,
        Knob::ExploreTp => n.tp = whole(t, MAX_EXPLORE_DEGREE as u64)? as u32,
        Knob::ExplorePp => n.pp = whole(t, MAX_EXPLORE_DEGREE as u64)? as u32,
        Knob::ExploreBatch => n.batch = whole(t, MAX_EXPLORE_BATCH)?,
        Knob::ExploreTtft => n.ttft_s = limit(t)?,
        Knob::ExploreItl => n.itl_s = limit(t)?,
        _ => {
            n.infeasible = match t.to_ascii_lowercase().as_str() {
                "shown" | "show" | "on" | "yes" | "true" => true,
                "hidden" | "hide" | "off" | "no" | "false" => false,
                _ => return Err(format!("infeasible {t:?}? use shown or hidden")),
            }
        }
    }
    Ok(n)
}
