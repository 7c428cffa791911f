//! The Training view's assumption knobs: the optimizer, the share of each
//! communication hidden behind compute (DP, TP, EP, CP overlap), the device
//! MTBF, the checkpoint write bandwidth and the restart time, as
//! `ridgeline train --optimizer --dp-overlap ... --mtbf
//! --checkpoint-bandwidth --restart` set them. Each is shown, stepped and
//! read from text here; knobs/training.rs hands these knobs on.

use super::Knob;
use super::training::TrainInputs;
use crate::solver::training::{
    CrossEntropy, GradPrecision, LowPrecisionStorage, MatmulCeiling, Optimizer, TrainingAssumptions,
};
use crate::solver::units::{self, Kind};

/// Seconds in an hour: the MTBF is shown in hours, as it is written.
const HOUR: f64 = 3600.0;
/// The MTBF steps between one hour and a billion hours.
const MTBF_S: (f64, f64) = (HOUR, 1e9 * HOUR);
/// The checkpoint bandwidth steps between 1 MB/s and 1 PB/s.
const CHECKPOINT_BW: (f64, f64) = (1e6, 1e15);
/// The restart time steps from 0 (up to one minute first) to 1000 hours.
const RESTART_S: (f64, f64) = (60.0, 1000.0 * HOUR);
/// The MoE token time steps from 0 (up to 10 ns first) to 1 ms.
const MOE_TOKEN_S: (f64, f64) = (1e-8, 1e-3);
/// An overlap steps by ten points.
const OVERLAP_STEP: f64 = 0.1;

/// These knobs.
pub const KNOBS: [Knob; 16] = [
    Knob::Optimizer,
    Knob::DpOverlap,
    Knob::TpOverlap,
    Knob::EpOverlap,
    Knob::CpOverlap,
    Knob::OverlapSlowdown,
    Knob::AttentionEff,
    Knob::MatmulCeiling,
    Knob::CrossEntropy,
    Knob::Fp8Storage,
    Knob::GradPrecision,
    Knob::AllocatorOverhead,
    Knob::MoeTokenTime,
    Knob::Mtbf,
    Knob::CheckpointBw,
    Knob::Restart,
];

/// Whether `k` is one of these knobs.
pub fn covers(k: Knob) -> bool {
    KNOBS.contains(&k)
}

pub fn label(k: Knob) -> &'static str {
    match k {
        Knob::Optimizer => "optimizer",
        Knob::DpOverlap => "DP overlap",
        Knob::TpOverlap => "TP overlap",
        Knob::EpOverlap => "EP overlap",
        Knob::CpOverlap => "CP overlap",
        Knob::OverlapSlowdown => "overlap slowdown",
        Knob::AttentionEff => "attention eff",
        Knob::MatmulCeiling => "matmul ceiling",
        Knob::CrossEntropy => "loss",
        Knob::Fp8Storage => "fp8 held at",
        Knob::GradPrecision => "grad width",
        Knob::AllocatorOverhead => "alloc pool",
        Knob::MoeTokenTime => "MoE token time",
        Knob::Mtbf => "device MTBF",
        Knob::CheckpointBw => "ckpt write",
        _ => "restart",
    }
}

pub fn hint(k: Knob) -> &'static str {
    match k {
        Knob::Optimizer => "adam (8 bytes of moments) or adam-8bit (2 bytes)",
        Knob::DpOverlap => "share of DP/FSDP comm hidden behind backward, e.g. 1, 50%",
        Knob::TpOverlap | Knob::EpOverlap => "share hidden behind compute, e.g. 0, 0.5",
        Knob::CpOverlap => "share of the ring hidden behind attention, e.g. 1, 50%",
        Knob::OverlapSlowdown => "compute slower beside a hidden collective, e.g. 18.9%, 0",
        Knob::AttentionEff => "fraction of peak the attention kernels reach, e.g. 0.6",
        Knob::MatmulCeiling => "measured (the device's matmul ceiling scales eta_c) or flat",
        Knob::CrossEntropy => {
            "fused (one fp32 copy of the logits) or eager (PyTorch: 12 B, 16 B with TP)"
        }
        Knob::Fp8Storage => "narrow (8-bit weights, grads, activations) or bf16 (torchao)",
        Knob::GradPrecision => "param (the weights' width) or fp32 (Megatron-LM's main grads)",
        Knob::AllocatorOverhead => {
            "allocator's pool beyond the tensors alive (reserved), e.g. 15%, 0"
        }
        Knob::MoeTokenTime => "an MoE layer's time per routed token copy, e.g. 0.2us, 0",
        Knob::Mtbf => "mean time between failures of one device, e.g. 50000h",
        Knob::CheckpointBw => "checkpoint write per device, e.g. 400MB/s, 2GB/s",
        _ => "time lost to restart after a failure, e.g. 10min, 0",
    }
}

/// The overlap a knob sets.
fn overlap(k: Knob, a: &mut TrainingAssumptions) -> Option<&mut f64> {
    match k {
        Knob::DpOverlap => Some(&mut a.dp_overlap),
        Knob::TpOverlap => Some(&mut a.tp_overlap),
        Knob::EpOverlap => Some(&mut a.ep_overlap),
        Knob::CpOverlap => Some(&mut a.cp_overlap),
        Knob::OverlapSlowdown => Some(&mut a.overlap_slowdown),
        Knob::AttentionEff => Some(&mut a.attention_efficiency),
        Knob::AllocatorOverhead => Some(&mut a.allocator_overhead),
        _ => None,
    }
}

pub fn value(k: Knob, t: &TrainInputs) -> String {
    let a = t.assumptions;
    match k {
        Knob::Optimizer => t.optimizer.name().into(),
        Knob::DpOverlap => units::format_percent(a.dp_overlap),
        Knob::TpOverlap => units::format_percent(a.tp_overlap),
        Knob::EpOverlap => units::format_percent(a.ep_overlap),
        Knob::CpOverlap => units::format_percent(a.cp_overlap),
        Knob::OverlapSlowdown => units::format_percent(a.overlap_slowdown),
        Knob::AttentionEff => units::format_percent(a.attention_efficiency),
        Knob::MatmulCeiling => a.matmul_ceiling.name().into(),
        Knob::CrossEntropy => a.cross_entropy.name().into(),
        Knob::Fp8Storage => a.low_precision_storage.name().into(),
        Knob::GradPrecision => a.grad_precision.name().into(),
        Knob::AllocatorOverhead => units::format_percent(a.allocator_overhead),
        Knob::MoeTokenTime => units::format_time(a.moe_token_time_s),
        Knob::Mtbf => format!("{} h", units::format_number(a.device_mtbf_s / HOUR)),
        Knob::CheckpointBw => units::format_bandwidth(a.checkpoint_bandwidth),
        _ => units::format_time(a.restart_s),
    }
}

/// Doubled or halved within `(lo, hi)`; `zero_below` takes a value under
/// `lo` down to 0 (and 0 up to `lo`).
fn double(x: f64, up: bool, (lo, hi): (f64, f64), zero_below: bool) -> f64 {
    match (up, zero_below) {
        (true, true) if x < lo => lo,
        (true, _) => (x * 2.0).clamp(lo, hi),
        (false, true) if x / 2.0 < lo => 0.0,
        (false, _) => (x / 2.0).clamp(lo, hi),
    }
}

/// Step: the optimizer moves between adam and adam-8bit, an overlap by ten
/// points within 0 to 100%, the MTBF, the checkpoint bandwidth and the
/// restart time double and halve.
pub fn step(k: Knob, t: &TrainInputs, up: bool) -> TrainInputs {
    let mut n = *t;
    let a = &mut n.assumptions;
    if let Some(o) = overlap(k, a) {
        let v = if up {
            *o + OVERLAP_STEP
        } else {
            *o - OVERLAP_STEP
        };
        // Hundredths: ten steps from 0 land on 100% exactly. An
        // efficiency stays above zero.
        let lo = if k == Knob::AttentionEff {
            OVERLAP_STEP
        } else {
            0.0
        };
        *o = ((v * 100.0).round() / 100.0).clamp(lo, 1.0);
        return n;
    }
    match k {
        Knob::Optimizer => n.optimizer = Optimizer::ALL[usize::from(up)],
        Knob::MatmulCeiling => a.matmul_ceiling = MatmulCeiling::ALL[usize::from(up)],
        Knob::CrossEntropy => a.cross_entropy = CrossEntropy::ALL[usize::from(up)],
        Knob::Fp8Storage => a.low_precision_storage = LowPrecisionStorage::ALL[usize::from(up)],
        Knob::GradPrecision => a.grad_precision = GradPrecision::ALL[usize::from(up)],
        Knob::Mtbf => a.device_mtbf_s = double(a.device_mtbf_s, up, MTBF_S, false),
        Knob::MoeTokenTime => {
            a.moe_token_time_s = double(a.moe_token_time_s, up, MOE_TOKEN_S, true)
        }
        Knob::CheckpointBw => {
            a.checkpoint_bandwidth = double(a.checkpoint_bandwidth, up, CHECKPOINT_BW, false)
        }
        _ => a.restart_s = double(a.restart_s, up, RESTART_S, true),
    }
    n
}

/// Read typed text: an optimizer name, an overlap as a share or a
/// percentage, a time or a bandwidth with its unit, each in the range the
/// solver takes.
pub fn parse(k: Knob, text: &str, t: &TrainInputs) -> Result<TrainInputs, String> {
    let mut n = *t;
    let s = text.trim();
    let a = &mut n.assumptions;
    let what = label(k);
    if let Some(o) = overlap(k, a) {
        let v = units::parse(s, Kind::Fraction).map_err(|e| e.to_string())?;
        if k == Knob::AttentionEff && !(v > 0.0 && v <= 1.0) {
            return Err(format!(
                "{what} is a fraction of peak above 0 and at most 1 (60%), got {s:?}"
            ));
        }
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "{what} is a share from 0 to 1 (0% to 100%), got {s:?}"
            ));
        }
        *o = v;
        return Ok(n);
    }
    let positive = |kind: Kind, eg: &str| -> Result<f64, String> {
        let v = units::parse(s, kind).map_err(|e| e.to_string())?;
        if v > 0.0 {
            Ok(v)
        } else {
            Err(format!("{what} must be greater than zero, e.g. {eg}"))
        }
    };
    match k {
        Knob::Optimizer => {
            n.optimizer = Optimizer::parse(s)
                .ok_or_else(|| format!("optimizer {s:?}? use adam or adam-8bit"))?
        }
        Knob::MatmulCeiling => {
            a.matmul_ceiling = MatmulCeiling::parse(s)
                .ok_or_else(|| format!("matmul ceiling {s:?}? use measured or flat"))?
        }
        Knob::CrossEntropy => {
            a.cross_entropy =
                CrossEntropy::parse(s).ok_or_else(|| format!("loss {s:?}? use fused or eager"))?
        }
        Knob::Fp8Storage => {
            a.low_precision_storage = LowPrecisionStorage::parse(s)
                .ok_or_else(|| format!("fp8 storage {s:?}? use narrow or bf16"))?
        }
        Knob::GradPrecision => {
            a.grad_precision = GradPrecision::parse(s)
                .ok_or_else(|| format!("gradient width {s:?}? use param or fp32"))?
        }
        Knob::Mtbf => a.device_mtbf_s = positive(Kind::Time, "50000h")?,
        Knob::CheckpointBw => a.checkpoint_bandwidth = positive(Kind::Bandwidth, "400MB/s")?,
        _ => {
            let v = units::parse(s, Kind::Time).map_err(|e| e.to_string())?;
            let (slot, eg) = if k == Knob::MoeTokenTime {
                (&mut a.moe_token_time_s, "0.2us")
            } else {
                (&mut a.restart_s, "10min")
            };
            if v < 0.0 {
                return Err(format!("{what} must be zero or more, e.g. {eg}"));
            }
            *slot = v;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::training::{DEFAULT_CHECKPOINT_BANDWIDTH, DEFAULT_DEVICE_MTBF_S};

    fn stepped(k: Knob, up: bool, times: usize) -> TrainInputs {
        (0..times).fold(TrainInputs::default(), |t, _| step(k, &t, up))
    }

    #[test]
    fn the_defaults_show_as_the_solver_names_them() {
        let t = TrainInputs::default();
        // DP and CP overlap 1, TP and EP 0 (solver::training's defaults);
        // compute 18.9% slower beside a hidden collective; attention at 0.6
        // of peak; the measured matmul ceiling; an allocator's pool 15%
        // over the tensors alive; the MoE token time 0.22 us = 220 ns.
        let shown: Vec<String> = KNOBS.iter().map(|&k| value(k, &t)).collect();
        // 50,000 device-hours; 0.4 GB/s = 400 MB/s; 600 s = 10 min.
        assert_eq!(
            shown,
            [
                "adam", "100%", "0%", "0%", "100%", "18.9%", "60%", "measured", "fused", "narrow",
                "param", "15%", "220 ns", "50000 h", "400 MB/s", "10 min"
            ]
        );
        assert_eq!(t.assumptions.device_mtbf_s, DEFAULT_DEVICE_MTBF_S);
    }

    #[test]
    fn overlaps_step_by_ten_points_and_stop_at_0_and_100_percent() {
        let dp = |t: TrainInputs| t.assumptions.dp_overlap;
        let tp = |t: TrainInputs| t.assumptions.tp_overlap;
        let ep = |t: TrainInputs| t.assumptions.ep_overlap;
        let cp = |t: TrainInputs| t.assumptions.cp_overlap;
        for (k, up, times, get, want) in [
            // DP overlap 1 - 3 x 0.1 = 0.7.
            (Knob::DpOverlap, false, 3, dp as fn(TrainInputs) -> f64, 0.7),
            // Eleven steps down from 1 stop at 0; one up from the top stays 1.
            (Knob::DpOverlap, false, 11, dp, 0.0),
            (Knob::CpOverlap, true, 1, cp, 1.0),
            // TP overlap 0 + 10 x 0.1 = 1 exactly (rounded to hundredths).
            (Knob::TpOverlap, true, 10, tp, 1.0),
            (Knob::EpOverlap, false, 1, ep, 0.0),
        ] {
            assert_eq!(get(stepped(k, up, times)), want, "{k:?} {up} x{times}");
        }
    }

    #[test]
    fn times_and_bandwidths_double_and_halve_within_their_bounds() {
        // 50,000 h x 2 = 100,000 h; / 2 = 25,000 h.
        let up = stepped(Knob::Mtbf, true, 1);
        assert_eq!(up.assumptions.device_mtbf_s, 100_000.0 * HOUR);
        assert_eq!(value(Knob::Mtbf, &up), "100k h");
        let down = stepped(Knob::Mtbf, false, 1);
        assert_eq!(down.assumptions.device_mtbf_s, 25_000.0 * HOUR);
        // Halving never goes under an hour.
        assert_eq!(
            stepped(Knob::Mtbf, false, 40).assumptions.device_mtbf_s,
            HOUR
        );
        // 0.4 GB/s x 2 = 0.8 GB/s.
        let bw = stepped(Knob::CheckpointBw, true, 1)
            .assumptions
            .checkpoint_bandwidth;
        assert_eq!(bw, 2.0 * DEFAULT_CHECKPOINT_BANDWIDTH);
        // Restart 600 s halves to 300 s ... 75 s, then under a minute to 0;
        // up from 0 it starts at a minute.
        let r: Vec<f64> = (1..=4)
            .map(|i| stepped(Knob::Restart, false, i).assumptions.restart_s)
            .collect();
        assert_eq!(r, [300.0, 150.0, 75.0, 0.0]);
        let zero = stepped(Knob::Restart, false, 4);
        assert_eq!(step(Knob::Restart, &zero, true).assumptions.restart_s, 60.0);
    }

    #[test]
    fn the_optimizer_steps_between_adam_and_8_bit_adam() {
        // The matmul ceiling moves between measured and flat, and reads
        // either name back.
        let c = stepped(Knob::MatmulCeiling, true, 1);
        assert_eq!(c.assumptions.matmul_ceiling, MatmulCeiling::Flat);
        assert_eq!(
            step(Knob::MatmulCeiling, &c, false)
                .assumptions
                .matmul_ceiling,
            MatmulCeiling::Measured
        );
        assert_eq!(
            parse(Knob::MatmulCeiling, "flat", &TrainInputs::default())
                .unwrap()
                .assumptions
                .matmul_ceiling,
            MatmulCeiling::Flat
        );
        assert!(parse(Knob::MatmulCeiling, "sometimes", &TrainInputs::default()).is_err());
        // The loss and what fp8 is held at move between their two names
        // the same way.
        let e = stepped(Knob::CrossEntropy, true, 1);
        assert_eq!(e.assumptions.cross_entropy, CrossEntropy::Eager);
        assert_eq!(
            step(Knob::CrossEntropy, &e, false)
                .assumptions
                .cross_entropy,
            CrossEntropy::Fused
        );
        let b = parse(Knob::Fp8Storage, "bf16", &TrainInputs::default()).unwrap();
        assert_eq!(
            b.assumptions.low_precision_storage,
            LowPrecisionStorage::Bf16
        );
        assert!(parse(Knob::Fp8Storage, "fp16", &TrainInputs::default()).is_err());
        let g = stepped(Knob::GradPrecision, true, 1);
        assert_eq!(g.assumptions.grad_precision, GradPrecision::Fp32);
        assert_eq!(
            step(Knob::GradPrecision, &g, false)
                .assumptions
                .grad_precision,
            GradPrecision::Param
        );
        assert_eq!(
            parse(Knob::GradPrecision, "fp32", &TrainInputs::default())
                .unwrap()
                .assumptions
                .grad_precision,
            GradPrecision::Fp32
        );
        assert!(parse(Knob::GradPrecision, "bf16", &TrainInputs::default()).is_err());
        assert!(parse(Knob::CrossEntropy, "lazy", &TrainInputs::default()).is_err());
        let t = stepped(Knob::Optimizer, true, 1);
        assert_eq!(t.optimizer, Optimizer::Adam8bit);
        assert_eq!(
            step(Knob::Optimizer, &t, true).optimizer,
            Optimizer::Adam8bit
        );
        assert_eq!(step(Knob::Optimizer, &t, false).optimizer, Optimizer::Adam);
    }

    #[test]
    fn typed_values_read_with_their_units() {
        let t = TrainInputs::default();
        let a = |k, s| parse(k, s, &t).unwrap().assumptions;
        assert_eq!(a(Knob::DpOverlap, "50%").dp_overlap, 0.5);
        assert_eq!(a(Knob::TpOverlap, "0.25").tp_overlap, 0.25);
        // 2000 h = 7,200,000 s.
        assert_eq!(a(Knob::Mtbf, "2000h").device_mtbf_s, 7.2e6);
        assert_eq!(a(Knob::CheckpointBw, "2GB/s").checkpoint_bandwidth, 2e9);
        assert_eq!(a(Knob::Restart, "0").restart_s, 0.0);
        assert_eq!(a(Knob::Restart, "30min").restart_s, 1800.0);
        assert_eq!(
            parse(Knob::Optimizer, "adam-8bit", &t).unwrap().optimizer,
            Optimizer::Adam8bit
        );
        for (k, bad, says) in [
            (Knob::DpOverlap, "120%", "from 0 to 1"),
            (Knob::CpOverlap, "-0.1", "from 0 to 1"),
            (Knob::EpOverlap, "nan", ""),
            (Knob::Mtbf, "0h", "greater than zero"),
            (Knob::Mtbf, "50000", "unit"),
            (Knob::CheckpointBw, "-1GB/s", "greater than zero"),
            (Knob::CheckpointBw, "1GB", "unit"),
            (Knob::Restart, "-1s", "zero or more"),
            (Knob::Optimizer, "sgd", "adam or adam-8bit"),
        ] {
            let e = parse(k, bad, &t).unwrap_err();
            assert!(e.contains(says), "{k:?} {bad}: {e}");
        }
    }
}
