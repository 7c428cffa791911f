//! One inference replica over device counts: at each count the fastest
//! tensor- x pipeline-parallel layout that fits (or the pipeline depth
//! pinned, TP what the count leaves), its step time (inter-token latency
//! for decode, time to first token for prefill), tokens/s, MFU and the
//! efficiency against the ideal line from the first count that runs.
//!
//! Splitting a replica over more devices divides each device's bytes and
//! FLOPs, but the all-reduces per token do not shrink (and leave the node
//! past its devices) and the fixed per-step costs stay: the curve bends
//! where the communication meets the memory (decode) or compute (prefill)
//! time it was meant to shorten.

use super::error::{Result, SolverError};
use super::roofline::{self, Evaluation};
use super::training::scale::{Knee, MAX_POINTS};
use super::types::{Assumptions, Hardware, Model, Workload};
use super::units;

/// One device count: the fastest layout's evaluation, or why none runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaPoint {
    pub devices: u32,
    pub outcome: std::result::Result<ReplicaFigures, String>,
}

impl ReplicaPoint {
    pub fn figures(&self) -> Option<&ReplicaFigures> {
        self.outcome.as_ref().ok()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaFigures {
    pub eval: Evaluation,
    pub tokens_per_s_per_device: f64,
    /// Tokens/s over the ideal line from the first count that runs.
    pub efficiency: f64,
    /// Communication's share of the step.
    pub comm_share: f64,
    /// The fixed per-step costs' share (overhead and link latencies).
    pub fixed_share: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaScaling {
    pub points: Vec<ReplicaPoint>,
    pub knee: Option<Knee>,
}

impl ReplicaScaling {
    pub fn reference(&self) -> Option<(u32, &ReplicaFigures)> {
        self.points
            .iter()
            .find_map(|p| p.figures().map(|f| (p.devices, f)))
    }
}

/// The replica of `wl` (its phase, batch, context and precisions; its TP
/// and PP are chosen here) over `devices`, with `pp` pinned when given.
pub fn scale_replica(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    devices: &[u32],
    pp: Option<u32>,
    knee: f64,
    a: &Assumptions,
) -> Result<ReplicaScaling> {
    if devices.is_empty() || devices.len() > MAX_POINTS {
        return Err(SolverError::Unsupported(format!(
            "a scaling curve takes 1 to {MAX_POINTS} device counts, got {}",
            devices.len()
        )));
    }
    if devices.windows(2).any(|w| w[0] >= w[1]) || devices[0] == 0 {
        return Err(SolverError::Unsupported(
            "the device counts must rise from one to the next, from 1".into(),
        ));
    }
    if !(knee > 0.0 && knee <= 1.0) {
        return Err(SolverError::Invalid {
            field: "knee threshold",
            value: knee,
            expected: "a fraction above 0 and at most 1",
        });
    }
    roofline::validate_hardware(hw)?;
    roofline::validate_model(model)?;
    roofline::validate_assumptions(a)?;
    roofline::validate_workload(&Workload {
        tp: 1,
        pp: 1,
        ..*wl
    })?;
    let mut points: Vec<ReplicaPoint> = devices
        .iter()
        .map(|&n| ReplicaPoint {
            devices: n,
            outcome: fastest(hw, model, wl, n, pp, a).map(|e| ReplicaFigures {
                tokens_per_s_per_device: e.tokens_per_s / n as f64,
                efficiency: 1.0,
                comm_share: (e.comm_s - e.comm_latency_s) / e.latency_s,
                fixed_share: e.fixed_s() / e.latency_s,
                eval: e,
            }),
        })
        .collect();
    let reference = points
        .iter()
        .find_map(|p| p.figures().map(|f| (p.devices, f.tokens_per_s_per_device)));
    let mut knee_at = None;
    if let Some((n0, per_device)) = reference {
        let mut first: Option<ReplicaFigures> = None;
        for p in &mut points {
            if let Ok(f) = &mut p.outcome {
                f.efficiency = f.tokens_per_s_per_device / per_device;
                match &first {
                    None => first = Some(f.clone()),
                    Some(f0) if p.devices > n0 && f.efficiency < knee && knee_at.is_none() => {
                        knee_at = Some(Knee {
                            devices: p.devices,
                            reason: reason(hw, f0, f),
                        });
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(ReplicaScaling {
        points,
        knee: knee_at,
    })
}

/// The fastest TP x PP of `n` devices that fits, or why there is none.
fn fastest(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    n: u32,
    pp: Option<u32>,
    a: &Assumptions,
) -> std::result::Result<Evaluation, String> {
    let pps: Vec<u32> = match pp {
        Some(p) if !n.is_multiple_of(p) => {
            return Err(format!("{n} is not a multiple of pp {p}"));
        }
        Some(p) => vec![p],
        None => (1..=n).filter(|p| n.is_multiple_of(*p)).collect(),
    };
    let mut best: Option<Evaluation> = None;
    let mut last_err = None;
    let mut too_big = None;
    for p in pps {
        let w = Workload {
            tp: n / p,
            pp: p,
            ..*wl
        };
        match roofline::evaluate(hw, model, &w, a) {
            Err(e) => last_err = Some(e.to_string()),
            Ok(e) if !e.memory.fits => {
                too_big = Some(e.memory.footprint.total());
            }
            Ok(e) => {
                if best.as_ref().is_none_or(|b| e.latency_s < b.latency_s) {
                    best = Some(e);
                }
            }
        }
    }
    best.ok_or_else(|| match (too_big, last_err) {
        (Some(bytes), _) => format!(
            "no TP x PP of {} fits: {} per device at the best split",
            devices_word(n),
            units::format_bytes(bytes)
        ),
        (None, Some(e)) => e,
        (None, None) => format!("no TP x PP layout of {}", devices_word(n)),
    })
}

/// "1 device", "8 devices".
pub fn devices_word(n: u32) -> String {
    if n == 1 {
        "1 device".into()
    } else {
        format!("{n} devices")
    }
}

/// The knee's reason: communication or the fixed costs, whichever share
/// grew the more since the first count, against the time it eats into.
fn reason(hw: &Hardware, f0: &ReplicaFigures, f: &ReplicaFigures) -> String {
    let e = &f.eval;
    let comm = f.comm_share - f0.comm_share;
    let fixed = f.fixed_share - f0.fixed_share;
    let p = e.parallelism;
    if p.pp > f0.eval.parallelism.pp {
        // Stages of one replica run one after another on its tokens.
        return format!(
            "TP stops at {} (the fastest split) and PP {} adds stages that run one after another, so a replica's step is no shorter",
            p.tp, p.pp
        );
    }
    if comm >= fixed && comm > 0.0 {
        let level = if p.tp > hw.devices_per_node {
            "over the scale-out network"
        } else {
            "over the scale-up link"
        };
        let work = e.memory_s.max(e.compute_s);
        let what = if e.memory_s >= e.compute_s {
            "memory"
        } else {
            "compute"
        };
        let comm_s = e.comm_s - e.comm_latency_s;
        let verb = if comm_s > work { "exceed" } else { "approach" };
        format!(
            "TP all-reduces {level} ({}) {verb} the {what} time ({}) at TP {} x PP {}",
            units::format_time(comm_s),
            units::format_time(work),
            p.tp,
            p.pp
        )
    } else if fixed > 0.0 {
        format!(
            "fixed per-step costs (overhead and link latencies) are {} of the step at TP {} x PP {}",
            units::format_percent(f.fixed_share),
            p.tp,
            p.pp
        )
    } else {
        format!(
            "no term grows its share of the step; efficiency {}",
            units::format_percent(f.efficiency)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::types::Phase;

    /// Llama 3.1 8B on an ideal A100.
    fn setup() -> (Hardware, Model, Assumptions) {
        (
            crate::solver::tests::a100(),
            crate::solver::tests::llama8(),
            Assumptions::ideal(),
        )
    }

    #[test]
    fn each_point_is_the_fastest_split_that_fits() {
        let (hw, m, a) = setup();
        let wl = Workload {
            phase: Phase::Decode,
            batch: 8.0,
            ..Workload::default()
        };
        let s = scale_replica(&hw, &m, &wl, &[1, 2, 4, 8], None, 0.8, &a).unwrap();
        for p in &s.points {
            let f = p.figures().unwrap();
            assert_eq!(f.eval.devices(), p.devices);
            for pp in (1..=p.devices).filter(|x| p.devices.is_multiple_of(*x)) {
                let w = Workload {
                    tp: p.devices / pp,
                    pp,
                    ..wl
                };
                if let Ok(e) = roofline::evaluate(&hw, &m, &w, &a)
                    && e.memory.fits
                {
                    assert!(f.eval.latency_s <= e.latency_s);
                }
            }
        }
        assert_eq!(s.reference().unwrap().1.efficiency, 1.0);
    }

    #[test]
    fn decode_bends_where_the_all_reduces_meet_the_memory_time() {
        // Decode at batch 256 and 1k context on A100s one per node (every
        // all-reduce on the 25 GB/s network), TP only. Each device's bytes
        // (16 GB of weights, 34 GB of KV cache) split n ways, while the two
        // all-reduces per layer of 256 x 4096 x 2 bytes do not shrink:
        // 64 x 2 (n - 1)/n x 2 MB / 25 GB/s = 9.4 ms at TP 8, above its
        // 50 GB / 8 / 2.04 TB/s = 3.1 ms of memory time. From one device
        // (no all-reduce, step = memory time W), once the all-reduces
        // outlast the memory time the step is over 2 W / n, so the
        // efficiency W / (n T) is below a half; the knee names them.
        let (mut hw, m, a) = setup();
        hw.devices_per_node = 1;
        hw.link_bandwidth = None;
        let wl = Workload {
            batch: 256.0,
            context: 1024.0,
            ..Workload::default()
        };
        let s = scale_replica(&hw, &m, &wl, &[1, 2, 4, 8], Some(1), 0.5, &a).unwrap();
        let mut past = 0;
        for p in &s.points {
            let f = p.figures().unwrap();
            let e = &f.eval;
            if e.comm_s > e.memory_s.max(e.compute_s) {
                assert!(f.efficiency < 0.5, "{}: {}", p.devices, f.efficiency);
                past += 1;
            }
        }
        assert!(past > 0, "the all-reduces never outlast the memory time");
        let k = s.knee.expect("a knee");
        assert!(
            k.reason
                .starts_with("TP all-reduces over the scale-out network"),
            "{}",
            k.reason
        );
    }

    #[test]
    fn a_pinned_pipeline_that_does_not_divide_the_count_says_so() {
        let (hw, m, a) = setup();
        let s = scale_replica(&hw, &m, &Workload::default(), &[2, 3], Some(2), 0.8, &a).unwrap();
        assert!(s.points[0].figures().is_some());
        let why = s.points[1].outcome.as_ref().unwrap_err();
        assert_eq!(why, "3 is not a multiple of pp 2");
    }

    #[test]
    fn pipeline_stages_do_not_shorten_one_replicas_step() {
        // Llama 3.1 70B prefill on A100s in nodes of 8: TP 16 would put
        // its all-reduces on the 25 GB/s network, so 16 devices take TP 8
        // x PP 2, whose two stages run one after another on the prompts:
        // no faster than TP 8 alone, so half the ideal line's rate, and the
        // knee says why.
        let (hw, _, a) = setup();
        let m = crate::solver::tests::llama70();
        let wl = Workload {
            phase: Phase::Prefill,
            batch: 8.0,
            context: 8192.0,
            ..Workload::default()
        };
        let s = scale_replica(&hw, &m, &wl, &[8, 16], None, 0.8, &a).unwrap();
        let f = s.points[1].figures().unwrap();
        assert_eq!((f.eval.parallelism.tp, f.eval.parallelism.pp), (8, 2));
        assert!(f.efficiency <= 0.5 + 1e-9, "{}", f.efficiency);
        let k = s.knee.unwrap();
        assert_eq!(k.devices, 16);
        assert!(k.reason.contains("PP 2 adds stages"), "{}", k.reason);
    }
}
