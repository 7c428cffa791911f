//! The workload knobs: how each is shown, stepped and read from text.

use crate::solver::units::{self, Kind};
use crate::solver::{Assumptions, Phase, Precision, Workload};

/// One knob of the workload or the assumptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Knob {
    Phase,
    Batch,
    Context,
    Weights,
    Activations,
    Kv,
    Tp,
    Pp,
    ComputeEff,
    MemoryEff,
    Overhead,
}

/// The inputs the knobs change.
pub type Inputs = (Workload, Assumptions);

/// Largest tensor- or pipeline-parallel degree a step goes to.
const MAX_DEGREE: u32 = 65536;

impl Knob {
    pub const ALL: [Knob; 11] = [
        Knob::Phase,
        Knob::Batch,
        Knob::Context,
        Knob::Weights,
        Knob::Activations,
        Knob::Kv,
        Knob::Tp,
        Knob::Pp,
        Knob::ComputeEff,
        Knob::MemoryEff,
        Knob::Overhead,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Knob::Phase => "phase",
            Knob::Batch => "batch",
            Knob::Context => "context",
            Knob::Weights => "weights",
            Knob::Activations => "activations",
            Knob::Kv => "KV cache",
            Knob::Tp => "TP",
            Knob::Pp => "PP",
            Knob::ComputeEff => "compute eff",
            Knob::MemoryEff => "memory eff",
            Knob::Overhead => "overhead",
        }
    }

    /// What the entry accepts, shown beside it.
    pub fn hint(self) -> &'static str {
        match self {
            Knob::Phase => "decode or prefill",
            Knob::Batch => "e.g. 8, 64, 1k",
            Knob::Context => "tokens, e.g. 4096, 8k",
            Knob::Weights | Knob::Activations | Knob::Kv => "fp32 tf32 bf16 fp16 fp8 int8 fp4 int4",
            Knob::Tp | Knob::Pp => "devices, e.g. 2, 8",
            Knob::ComputeEff | Knob::MemoryEff => "e.g. 0.7 or 70%",
            Knob::Overhead => "e.g. 10us, 0.5ms",
        }
    }

    /// The knob's value as shown (and as the entry starts).
    pub fn value(self, (wl, a): &Inputs) -> String {
        let pct = |x: f64| format!("{}%", units::format_number(x * 100.0));
        match self {
            Knob::Phase => wl.phase.name().to_string(),
            Knob::Batch => whole(wl.batch),
            Knob::Context => whole(wl.context),
            Knob::Weights => wl.weights.name().to_string(),
            Knob::Activations => wl.activations.name().to_string(),
            Knob::Kv => wl.kv.name().to_string(),
            Knob::Tp => wl.tp.to_string(),
            Knob::Pp => wl.pp.to_string(),
            Knob::ComputeEff => pct(a.compute_efficiency),
            Knob::MemoryEff => pct(a.memory_efficiency),
            Knob::Overhead => units::format_time(a.overhead_s),
        }
    }

    /// Step up (`up`) or down: batch, context and degrees double and halve,
    /// precisions cycle, the phase toggles, efficiencies move by 5 points.
    pub fn step(self, (wl, a): &Inputs, up: bool) -> Inputs {
        let (mut wl, mut a) = (*wl, *a);
        let double = |x: f64| {
            if up {
                (x * 2.0).min(1e9)
            } else {
                (x / 2.0).floor().max(1.0)
            }
        };
        let double_u = |x: u32| {
            if up {
                x.saturating_mul(2).min(MAX_DEGREE)
            } else {
                (x / 2).max(1)
            }
        };
        let cycle = |p: Precision| if up { p.next() } else { p.prev() };
        let eff = |x: f64| {
            let v = if up { x + 0.05 } else { x - 0.05 };
            ((v * 100.0).round() / 100.0).clamp(0.05, 1.0)
        };
        match self {
            Knob::Phase => {
                wl.phase = match wl.phase {
                    Phase::Decode => Phase::Prefill,
                    Phase::Prefill => Phase::Decode,
                }
            }
            Knob::Batch => wl.batch = double(wl.batch),
            Knob::Context => wl.context = double(wl.context),
            Knob::Weights => wl.weights = cycle(wl.weights),
            Knob::Activations => wl.activations = cycle(wl.activations),
            Knob::Kv => wl.kv = cycle(wl.kv),
            Knob::Tp => wl.tp = double_u(wl.tp),
            Knob::Pp => wl.pp = double_u(wl.pp),
            Knob::ComputeEff => a.compute_efficiency = eff(a.compute_efficiency),
            Knob::MemoryEff => a.memory_efficiency = eff(a.memory_efficiency),
            Knob::Overhead => {
                a.overhead_s = match (up, a.overhead_s) {
                    (true, x) if x <= 0.0 => 1e-6,
                    (true, x) => (x * 2.0).min(1.0),
                    (false, x) if x <= 1e-6 => 0.0,
                    (false, x) => x / 2.0,
                }
            }
        }
        (wl, a)
    }

    /// Read typed text ("8k", "50ms", "70%", "fp8") into new inputs. The
    /// solver still validates the result; this only reads the text.
    pub fn parse(self, text: &str, (wl, a): &Inputs) -> Result<Inputs, String> {
        let (mut wl, mut a) = (*wl, *a);
        let t = text.trim();
        let precision = |t: &str| {
            Precision::parse(t).ok_or_else(|| {
                format!("unknown precision {t:?}: use fp32 tf32 bf16 fp16 fp8 int8 fp4 int4")
            })
        };
        let count = |t: &str| units::parse(t, Kind::Count).map_err(|e| e.to_string());
        let degree = |t: &str| -> Result<u32, String> {
            let v = count(t)?;
            if v.fract() != 0.0 || !(1.0..=MAX_DEGREE as f64).contains(&v) {
                return Err(format!(
                    "{} must be a whole number of devices from 1 to {MAX_DEGREE}",
                    self.label()
                ));
            }
            Ok(v as u32)
        };
        let fraction = |t: &str| units::parse(t, Kind::Fraction).map_err(|e| e.to_string());
        match self {
            Knob::Phase => {
                wl.phase = Phase::parse(t)
                    .ok_or_else(|| format!("unknown phase {t:?}: use decode or prefill"))?
            }
            Knob::Batch => wl.batch = count(t)?,
            Knob::Context => wl.context = count(t)?,
            Knob::Weights => wl.weights = precision(t)?,
            Knob::Activations => wl.activations = precision(t)?,
            Knob::Kv => wl.kv = precision(t)?,
            Knob::Tp => wl.tp = degree(t)?,
            Knob::Pp => wl.pp = degree(t)?,
            Knob::ComputeEff => a.compute_efficiency = fraction(t)?,
            Knob::MemoryEff => a.memory_efficiency = fraction(t)?,
            Knob::Overhead => {
                a.overhead_s = units::parse(t, Kind::Time).map_err(|e| e.to_string())?
            }
        }
        Ok((wl, a))
    }
}

/// A whole number as typed: "4096", "1"; a fractional value keeps 3 digits.
fn whole(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        units::format_number(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Inputs {
        (Workload::default(), Assumptions::default())
    }

    #[test]
    fn steps_double_halve_cycle_and_toggle() {
        let i = base();
        assert_eq!(Knob::Batch.step(&i, true).0.batch, 2.0);
        assert_eq!(
            Knob::Batch.step(&i, false).0.batch,
            1.0,
            "batch never below 1"
        );
        assert_eq!(Knob::Context.step(&i, true).0.context, 8192.0);
        assert_eq!(
            Knob::Weights.step(&i, true).0.weights,
            Precision::Bf16.next()
        );
        assert_eq!(Knob::Kv.step(&i, false).0.kv, Precision::Bf16.prev());
        assert_eq!(Knob::Phase.step(&i, true).0.phase, Phase::Prefill);
        assert_eq!(Knob::Tp.step(&i, true).0.tp, 2);
        assert_eq!(Knob::Tp.step(&i, false).0.tp, 1);
        assert_eq!(Knob::ComputeEff.step(&i, true).1.compute_efficiency, 0.75);
        assert_eq!(Knob::Overhead.step(&i, true).1.overhead_s, 20e-6);
    }

    #[test]
    fn reads_units() {
        let i = base();
        assert_eq!(Knob::Context.parse("8k", &i).unwrap().0.context, 8000.0);
        assert_eq!(Knob::Overhead.parse("50ms", &i).unwrap().1.overhead_s, 0.05);
        assert_eq!(
            Knob::MemoryEff
                .parse("70%", &i)
                .unwrap()
                .1
                .memory_efficiency,
            0.7
        );
        assert_eq!(
            Knob::ComputeEff
                .parse("0.6", &i)
                .unwrap()
                .1
                .compute_efficiency,
            0.6
        );
        assert_eq!(Knob::Kv.parse("FP8", &i).unwrap().0.kv, Precision::Fp8);
        assert_eq!(Knob::Tp.parse("8", &i).unwrap().0.tp, 8);
    }

    #[test]
    fn bad_text_says_why() {
        let i = base();
        let e = Knob::Context.parse("lots", &i).unwrap_err();
        assert!(e.contains("no number found"), "{e}");
        assert!(
            Knob::Tp
                .parse("2.5", &i)
                .unwrap_err()
                .contains("whole number")
        );
        assert!(
            Knob::Weights
                .parse("fp7", &i)
                .unwrap_err()
                .contains("unknown precision")
        );
        assert!(Knob::Overhead.parse("5", &i).unwrap_err().contains("unit"));
    }

    #[test]
    fn values_read_back() {
        let i = base();
        for k in Knob::ALL {
            let v = k.value(&i);
            let back = k.parse(&v, &i).unwrap_or_else(|e| panic!("{k:?} {v}: {e}"));
            assert_eq!(k.value(&back), v);
        }
    }
}
