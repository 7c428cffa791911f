//! The Explore view's settings: the two objectives of its plot, the axes
//! of the design space (which devices, which precisions, TP, PP and batch
//! up to) and the limits a feasible configuration meets. The prompt and
//! output come from `[serving]`, the model and assumptions from the rest.
//!
//! ```toml
//! [explore]
//! x = "itl"                    # itl | ttft | throughput | cost | energy | devices
//! y = "cost"
//! hardware = "cloud"           # a tier, "all" or "marked"
//! precisions = "bf16,fp8,int4" # names, or weights/activations/kv
//! tp = 8                       # powers of two up to
//! pp = 1
//! batch = 256
//! ttft = "200ms"               # absent: no limit
//! itl = "50ms"
//! infeasible = true            # show the configurations that are out, faint
//! ```

use super::exact;
use super::values::{Problem, Problems};
use super::{Scenario, number};
use crate::solver::explore::Objective;
use crate::solver::units::{self, Kind};
use crate::solver::{Precision, Precisions, Tier};
use serde::{Deserialize, Serialize};

/// The most TP, PP or batch an axis goes up to.
pub const MAX_EXPLORE_DEGREE: u32 = 65536;
pub const MAX_EXPLORE_BATCH: u64 = 1 << 20;

/// Which devices the space spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExploreHardware {
    /// The devices marked in the Hardware list (the selected one when none).
    Marked,
    Tier(Tier),
    All,
}

impl ExploreHardware {
    /// In stepping order.
    pub const ALL: [ExploreHardware; 7] = [
        ExploreHardware::Marked,
        ExploreHardware::Tier(Tier::Cloud),
        ExploreHardware::Tier(Tier::Workstation),
        ExploreHardware::Tier(Tier::Edge),
        ExploreHardware::Tier(Tier::Mobile),
        ExploreHardware::Tier(Tier::Tiny),
        ExploreHardware::All,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ExploreHardware::Marked => "marked",
            ExploreHardware::Tier(t) => t.name(),
            ExploreHardware::All => "all",
        }
    }
    pub fn parse(s: &str) -> Option<ExploreHardware> {
        let s = s.trim().to_ascii_lowercase();
        ExploreHardware::ALL.into_iter().find(|h| h.name() == s)
    }
}

/// The Explore view's inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreInputs {
    pub x: Objective,
    pub y: Objective,
    pub hardware: ExploreHardware,
    pub precisions: Vec<Precisions>,
    /// TP, PP and batch: the powers of two from 1 up to these (and these).
    pub tp: u32,
    pub pp: u32,
    pub batch: u64,
    pub ttft_s: Option<f64>,
    pub itl_s: Option<f64>,
    /// Show the configurations that do not fit or miss a limit, faint.
    pub infeasible: bool,
}

impl Default for ExploreInputs {
    /// ITL against cost over the cloud devices at bf16, fp8 and int4
    /// weights, TP to 8, batch to 256, no limits: as `ridgeline explore`.
    fn default() -> Self {
        ExploreInputs {
            x: Objective::Itl,
            y: Objective::Cost,
            hardware: ExploreHardware::Tier(Tier::Cloud),
            precisions: [Precision::Bf16, Precision::Fp8, Precision::Int4]
                .map(Precisions::named)
                .to_vec(),
            tp: 8,
            pp: 1,
            batch: 256,
            ttft_s: None,
            itl_s: None,
            infeasible: true,
        }
    }
}

/// The powers of two from 1 up to `max`, and `max` itself.
pub fn up_to(max: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut p = 1u64;
    while p < max {
        v.push(p);
        p *= 2;
    }
    v.push(max.max(1));
    v
}

/// "bf16,fp8,int4/fp8/fp8" read, or why not ([`Precisions::parse_list`]).
pub fn parse_precisions(s: &str) -> Result<Vec<Precisions>, String> {
    Precisions::parse_list(s)
}

/// The precisions as written: "bf16,fp8,int4".
pub fn precisions_text(v: &[Precisions]) -> String {
    v.iter()
        .map(Precisions::label)
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExploreSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precisions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "number")]
    pub batch: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itl: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infeasible: Option<bool>,
}

impl ExploreSection {
    /// The section that reads back as `e`.
    pub fn of(e: &ExploreInputs) -> ExploreSection {
        ExploreSection {
            x: Some(e.x.name().into()),
            y: Some(e.y.name().into()),
            hardware: Some(e.hardware.name().into()),
            precisions: Some(precisions_text(&e.precisions)),
            tp: Some(e.tp),
            pp: Some(e.pp),
            batch: Some(e.batch as f64),
            ttft: e.ttft_s.map(exact::time),
            itl: e.itl_s.map(exact::time),
            infeasible: Some(e.infeasible),
        }
    }
}

impl Scenario {
    /// The Explore view's inputs: the section's values over the defaults,
    /// each checked (known objectives, two different ones; a tier, all or
    /// marked; known precisions; degrees 1 to 65536; a whole batch from 1
    /// to 2^20; limits greater than zero).
    pub fn explore_inputs(&self) -> Result<ExploreInputs, Vec<Problem>> {
        let s = &self.explore;
        let d = ExploreInputs::default();
        let mut p = Problems::default();
        let mut objective = |key: &str, v: &Option<String>, dv: Objective| {
            match v.as_deref() {
            None => dv,
            Some(t) => Objective::parse(t).unwrap_or_else(|| {
                p.push(
                    &format!("explore.{key}"),
                    format!(
                        "unknown objective {t:?}; use itl, ttft, throughput, cost, energy or devices"
                    ),
                );
                dv
            }),
        }
        };
        let x = objective("x", &s.x, d.x);
        let mut y = objective("y", &s.y, d.y);
        if x == y {
            if s.y.is_some() {
                p.push(
                    "explore.y",
                    format!("x and y are both {}: pick two", x.name()),
                );
            }
            y = if x == d.y { d.x } else { d.y };
        }
        let hardware = match s.hardware.as_deref() {
            None => d.hardware,
            Some(h) => ExploreHardware::parse(h).unwrap_or_else(|| {
                p.push(
                    "explore.hardware",
                    format!(
                        "hardware {h:?}? use marked, all or a tier: cloud, workstation, edge, mobile, tiny"
                    ),
                );
                d.hardware
            }),
        };
        let precisions = match s.precisions.as_deref().map(parse_precisions) {
            None => d.precisions.clone(),
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                p.push("explore.precisions", e);
                d.precisions.clone()
            }
        };
        let mut degree = |key: &str, v: Option<u32>, dv: u32| match v {
            None => dv,
            Some(x) if (1..=MAX_EXPLORE_DEGREE).contains(&x) => x,
            Some(x) => {
                p.push(
                    &format!("explore.{key}"),
                    format!("{key} must be from 1 to {MAX_EXPLORE_DEGREE}, got {x}"),
                );
                dv
            }
        };
        let tp = degree("tp", s.tp, d.tp);
        let pp = degree("pp", s.pp, d.pp);
        let batch = match s.batch {
            None => d.batch,
            Some(b) if b.fract() == 0.0 && (1.0..=MAX_EXPLORE_BATCH as f64).contains(&b) => {
                b as u64
            }
            Some(b) => {
                p.push(
                    "explore.batch",
                    format!("batch must be a whole number from 1 to {MAX_EXPLORE_BATCH}, got {b}"),
                );
                d.batch
            }
        };
        let mut limit = |key: &str, v: &Option<String>| {
            let t = v.as_deref()?;
            match units::parse(t, Kind::Time) {
                Ok(x) if x.is_finite() && x > 0.0 => Some(x),
                Ok(_) => {
                    p.push(
                        &format!("explore.{key}"),
                        format!("{key} {t:?} must be greater than zero"),
                    );
                    None
                }
                Err(e) => {
                    p.push(&format!("explore.{key}"), e.to_string());
                    None
                }
            }
        };
        let ttft_s = limit("ttft", &s.ttft);
        let itl_s = limit("itl", &s.itl);
        p.or(ExploreInputs {
            x,
            y,
            hardware,
            precisions,
            tp,
            pp,
            batch,
            ttft_s,
            itl_s,
            infeasible: s.infeasible.unwrap_or(d.infeasible),
        })
    }
}
