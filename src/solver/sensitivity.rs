//! Sensitivity: how the step time answers each knob.
//!
//! Elasticity e_x = d ln T / d ln x by a central difference in log space,
//! (ln T(x e^h) - ln T(x e^-h)) / 2h: at a kink of max() it returns the mean
//! of the two one-sided slopes, so it stays bounded and stable. The finite
//! change is (T(x (1 + p)) - T(x)) / T(x) for a +p step: what some tools call
//! "sensitivity". Both are reported, labelled.

use super::error::{self, Result};
use super::fit;
use super::roofline::{self, Bottleneck, Evaluation};
use super::types::{Assumptions, Hardware, Model, Precision, Workload};

/// Half-width of the log-space central difference.
const LOG_STEP: f64 = 1e-4;

/// The knobs whose effect on latency is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Param {
    PeakFlops,
    MemoryBandwidth,
    LinkBandwidth,
    ComputeEfficiency,
    MemoryEfficiency,
    /// The fixed per-step terms together: the overhead tau, the kernel
    /// and collective fixed times and the link latency alpha, scaled by the
    /// same factor.
    Overhead,
    Batch,
    Context,
}

impl Param {
    pub const ALL: [Param; 8] = [
        Param::PeakFlops,
        Param::MemoryBandwidth,
        Param::LinkBandwidth,
        Param::ComputeEfficiency,
        Param::MemoryEfficiency,
        Param::Overhead,
        Param::Batch,
        Param::Context,
    ];

    /// The key used in JSON output.
    pub fn key(self) -> &'static str {
        match self {
            Param::PeakFlops => "peak_flops",
            Param::MemoryBandwidth => "memory_bandwidth",
            Param::LinkBandwidth => "link_bandwidth",
            Param::ComputeEfficiency => "compute_efficiency",
            Param::MemoryEfficiency => "memory_efficiency",
            Param::Overhead => "overhead",
            Param::Batch => "batch",
            Param::Context => "context",
        }
    }

    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            Param::PeakFlops => "peak FLOP/s",
            Param::MemoryBandwidth => "memory bandwidth",
            Param::LinkBandwidth => "link bandwidth",
            Param::ComputeEfficiency => "compute efficiency",
            Param::MemoryEfficiency => "memory efficiency",
            Param::Overhead => "overhead",
            Param::Batch => "batch",
            Param::Context => "context",
        }
    }

    /// The candidates for "binding constraint": the hardware figures and
    /// the fixed per-step overhead, one for each share of the step that
    /// [`roofline::classify`] names.
    pub fn can_bind(self) -> bool {
        matches!(
            self,
            Param::PeakFlops | Param::MemoryBandwidth | Param::LinkBandwidth | Param::Overhead
        )
    }

    /// The parameter that binds a step with this bottleneck.
    pub fn binding_for(b: Bottleneck) -> Param {
        match b {
            Bottleneck::Compute => Param::PeakFlops,
            Bottleneck::Memory => Param::MemoryBandwidth,
            Bottleneck::Communication => Param::LinkBandwidth,
            Bottleneck::Overhead => Param::Overhead,
        }
    }
}

/// One row of the sensitivity table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub param: Param,
    /// d ln T / d ln x.
    pub elasticity: f64,
    /// Relative change of T for x * (1 + perturb).
    pub finite_change: f64,
}

/// How far the non-binding one of compute and memory (the larger of the two
/// when neither binds) could fall before it binds: the largest share of the
/// step over its own time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headroom {
    /// The resource with room to spare.
    pub param: Param,
    /// It could shrink by this factor before it binds (>= 1).
    pub factor: f64,
}

/// The effect of storing weights and KV cache one format narrower (the
/// math precision stays): precision is a discrete knob, so it gets a finite
/// change, not an elasticity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrecisionStep {
    pub weights: Precision,
    pub kv: Precision,
    /// Relative change of T.
    pub latency_change: f64,
}

/// The full sensitivity report.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensitivity {
    pub base: Evaluation,
    pub perturb: f64,
    pub rows: Vec<Row>,
    /// The parameter with the largest |elasticity| among those that
    /// [`Param::can_bind`] (None if all are 0): a hardware figure, or the
    /// fixed overhead when the fixed per-step terms dominate.
    pub binding: Option<Param>,
    pub headroom: Headroom,
    /// Usable capacity / footprint (above 1 fits).
    pub fit_margin: f64,
    /// Capacity a device needs for twice the batch at this context.
    pub capacity_for_double_batch: f64,
    /// Weights and KV one format narrower (None when both are narrowest).
    pub precision_step: Option<PrecisionStep>,
}

impl Sensitivity {
    pub fn row(&self, p: Param) -> Option<&Row> {
        self.rows.iter().find(|r| r.param == p)
    }
}

/// Apply a multiplicative change `k` to one knob.
fn scaled(
    hw: &Hardware,
    wl: &Workload,
    a: &Assumptions,
    p: Param,
    k: f64,
) -> (Hardware, Workload, Assumptions) {
    let mut hw = hw.clone();
    let mut wl = *wl;
    let mut a = *a;
    match p {
        Param::PeakFlops => {
            // A measured matmul ceiling moves with the peak (its share stays).
            hw.peaks = hw.peaks.scaled(k);
            hw.matmul = hw.matmul.scaled(k);
        }
        Param::MemoryBandwidth => hw.memory_bandwidth *= k,
        Param::LinkBandwidth => {
            hw.link_bandwidth = hw.link_bandwidth.map(|v| v * k);
            hw.scaleout_bandwidth = hw.scaleout_bandwidth.map(|v| v * k);
        }
        Param::ComputeEfficiency => a.compute_efficiency *= k,
        Param::MemoryEfficiency => a.memory_efficiency *= k,
        Param::Overhead => {
            a.overhead_s *= k;
            a.link_latency_s *= k;
            a.kernel_s *= k;
            a.moe_layer_s *= k;
            a.request_s *= k;
            a.collective_s *= k;
        }
        Param::Batch => wl.batch *= k,
        Param::Context => wl.context *= k,
    }
    (hw, wl, a)
}

fn latency(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    p: Param,
    k: f64,
) -> Result<f64> {
    let (hw, wl, a) = scaled(hw, wl, a, p, k);
    Ok(roofline::time_step(&hw, model, &wl, &a)?.latency_s)
}

/// Elasticities, finite changes for +`perturb` (0.1 = +10 %), binding
/// constraint, headroom and fit margin.
pub fn sensitivity(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
    perturb: f64,
) -> Result<Sensitivity> {
    error::positive("perturbation", perturb)?;
    let base = roofline::evaluate(hw, model, wl, a)?;
    let t0 = base.latency_s;
    let mut rows = Vec::with_capacity(Param::ALL.len());
    for p in Param::ALL {
        let up = latency(hw, model, wl, a, p, LOG_STEP.exp())?;
        let down = latency(hw, model, wl, a, p, (-LOG_STEP).exp())?;
        let elasticity = (up.ln() - down.ln()) / (2.0 * LOG_STEP);
        let stepped = latency(hw, model, wl, a, p, 1.0 + perturb)?;
        rows.push(Row {
            param: p,
            elasticity: clean(elasticity),
            finite_change: clean((stepped - t0) / t0),
        });
    }
    let binding = rows
        .iter()
        .filter(|r| r.param.can_bind() && r.elasticity.abs() > 1e-9)
        .max_by(|a, b| a.elasticity.abs().total_cmp(&b.elasticity.abs()))
        .map(|r| r.param);
    let headroom = headroom(&base);
    let weights = wl.weights.narrower().unwrap_or(wl.weights);
    let kv = wl.kv.narrower().unwrap_or(wl.kv);
    let precision_step = if (weights, kv) == (wl.weights, wl.kv) {
        None
    } else {
        let narrow = Workload { weights, kv, ..*wl };
        let t = roofline::time_step(hw, model, &narrow, a)?.latency_s;
        Some(PrecisionStep {
            weights,
            kv,
            latency_change: clean((t - t0) / t0),
        })
    };
    Ok(Sensitivity {
        precision_step,
        fit_margin: base.memory.margin(),
        capacity_for_double_batch: fit::capacity_for_batch(model, wl, a, 2.0),
        base,
        perturb,
        rows,
        binding,
        headroom,
    })
}

/// The next of compute and memory to bind, and by what factor it could
/// shrink first: the largest share of the step over its time. Memory-bound:
/// peak FLOP/s, t_memory / t_compute; compute-bound: memory bandwidth,
/// t_compute / t_memory; bound by communication or the fixed terms: the
/// larger of compute and memory, that share over it.
fn headroom(e: &Evaluation) -> Headroom {
    let top = match e.bottleneck {
        Bottleneck::Compute => e.compute_s,
        Bottleneck::Memory => e.memory_s,
        Bottleneck::Communication => e.comm_s - e.comm_latency_s,
        Bottleneck::Overhead => e.fixed_s(),
    };
    let memory_next = match e.bottleneck {
        Bottleneck::Compute => true,
        Bottleneck::Memory => false,
        _ => e.memory_s >= e.compute_s,
    };
    if memory_next {
        Headroom {
            param: Param::MemoryBandwidth,
            factor: top / e.memory_s,
        }
    } else {
        Headroom {
            param: Param::PeakFlops,
            factor: top / e.compute_s,
        }
    }
}

/// Round away the noise of floating-point differences (|e| < 1e-12 -> 0).
fn clean(x: f64) -> f64 {
    if x.abs() < 1e-12 { 0.0 } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::roofline::{Bottleneck, evaluate};
    use crate::solver::tests::{a100, llama8};
    use crate::solver::types::{Arch, Collective, ModelKind, Peaks, SinglePass, Tier};
    use proptest::prelude::*;

    /// A round-figure device: 1 TFLOP/s bf16, 100 GB/s, 1 GB, no link.
    fn round_device() -> Hardware {
        let mut peaks = Peaks::default();
        peaks.set(Precision::Bf16, Some(1e12));
        Hardware {
            id: "round".into(),
            name: "round".into(),
            tier: Tier::Edge,
            year: 2024,
            peaks,
            memory_bytes: 1e9,
            memory_bandwidth: 1e11,
            link_bandwidth: None,
            devices_per_node: 1,
            scaleout_bandwidth: None,
            host_bandwidth: None,
            torus: None,
            tdp_w: None,
            price_per_hour_usd: None,
            matmul: Peaks::default(),
        }
    }

    /// A tiny single-pass model: 100k parameters, 1 MFLOP per sample, no
    /// feature maps (only the weights move).
    fn tiny() -> Model {
        Model {
            id: "tiny".into(),
            name: "tiny".into(),
            kind: ModelKind::Cnn,
            params: 1e5,
            arch: Arch::SinglePass(SinglePass {
                flops_per_sample: 1e6,
                activation_elements_per_sample: 0.0,
            }),
            layers: Vec::new(),
        }
    }

    #[test]
    fn a_tiny_model_on_a_big_device_is_bound_by_its_overhead() {
        // Batch 1, bf16, efficiencies 1, overhead 10 us:
        //   compute = 1e6 FLOP / 1e12 FLOP/s            = 1 us
        //   memory  = 1e5 params * 2 B / 1e11 B/s       = 2 us
        //   fixed   = tau                               = 10 us
        //   T = max(1, 2) + 10                          = 12 us
        // Elasticities: overhead (tau and alpha scaled together) = 10/12,
        // memory bandwidth = -2/12, peak FLOP/s = 0 (off the max).
        let a = Assumptions {
            overhead_s: 10e-6,
            ..Assumptions::ideal()
        };
        let wl = Workload::default();
        let s = sensitivity(&round_device(), &tiny(), &wl, &a, 0.1).unwrap();
        assert!((s.base.latency_s - 12e-6).abs() < 1e-18);
        assert_eq!(s.base.bottleneck, Bottleneck::Overhead);
        assert_eq!(s.binding, Some(Param::Overhead));
        let e = |p| s.row(p).unwrap().elasticity;
        assert!((e(Param::Overhead) - 10.0 / 12.0).abs() < 1e-9);
        assert!((e(Param::MemoryBandwidth) + 2.0 / 12.0).abs() < 1e-9);
        assert_eq!(e(Param::PeakFlops), 0.0);
        // +10 % overhead: T = 2 + 11 = 13 us, +1/12.
        let f = s.row(Param::Overhead).unwrap().finite_change;
        assert!((f - 1.0 / 12.0).abs() < 1e-12, "{f}");
        // Memory, the larger of compute and memory, binds when 2 us grows
        // past 10 us: bandwidth could fall 5x.
        assert_eq!(s.headroom.param, Param::MemoryBandwidth);
        assert!((s.headroom.factor - 5.0).abs() < 1e-12);
    }

    #[test]
    fn link_latency_counts_as_fixed_overhead() {
        // Llama-3.1-8B decode on two A100s, alpha = 1 ms, tau = 0, ideal
        // efficiencies. Fixed: 2 all-reduces a layer x 32 layers, each
        // 2 (t - 1) alpha = 2 ms: 64 x 2 ms = 128 ms. Transfer: each moves
        // 2 (t-1)/t x 4096 x 2 B = 8192 B over 300 GB/s = 27.3 ns, 64 of
        // them 1.75 us. Memory: about 8 GB / 2 / 2.039 TB/s = 2 ms. The
        // fixed terms are the largest share, not the link's bandwidth.
        let a = Assumptions {
            link_latency_s: 1e-3,
            overhead_s: 0.0,
            ..Assumptions::ideal()
        };
        let wl = Workload {
            tp: 2,
            ..Workload::default()
        };
        let s = sensitivity(&a100(), &llama8(), &wl, &a, 0.1).unwrap();
        let e = &s.base;
        assert!(
            (e.comm_latency_s - 0.128).abs() < 1e-12,
            "{}",
            e.comm_latency_s
        );
        let transfer = 64.0 * 8192.0 / 300e9;
        assert!(((e.comm_s - e.comm_latency_s) - transfer).abs() < 1e-15);
        assert_eq!(e.bottleneck, Bottleneck::Overhead);
        assert_eq!(s.binding, Some(Param::Overhead));
        let el = s.row(Param::Overhead).unwrap().elasticity;
        assert!((el - e.fixed_s() / e.latency_s).abs() < 1e-9, "{el}");
        assert!(
            s.row(Param::LinkBandwidth).unwrap().elasticity.abs() < 1e-4,
            "a faster link does not shorten a latency"
        );
    }

    proptest! {
        /// With the pure roofline (w = 1), the binding constraint of the
        /// sensitivity table is the parameter of the solver's bottleneck,
        /// whenever the largest share leads the next by 1 %.
        #[test]
        fn binding_agrees_with_the_bottleneck(
            peak in 1e9f64..1e16,
            bw in 1e8f64..1e13,
            overhead in 0.0f64..1e-3,
            latency in 0.0f64..1e-4,
            tp in prop::sample::select(vec![1u32, 2, 8]),
            batch in 1.0f64..256.0,
            kernel in 0.0f64..2e-5,
            collective in 0.0f64..2e-5,
            algorithm in prop::sample::select(Collective::ALL.to_vec()),
        ) {
            let mut hw = a100();
            hw.peaks = Peaks::default();
            hw.peaks.set(Precision::Bf16, Some(peak));
            hw.memory_bandwidth = bw;
            // The calibrated model's fixed terms too: per kernel, per
            // collective, with ring, tree or the faster of the two.
            let a = Assumptions {
                overhead_s: overhead,
                link_latency_s: latency,
                kernel_s: kernel,
                collective_s: collective,
                collective: algorithm,
                ..Assumptions::default()
            };
            let wl = Workload { tp, batch: batch.round(), ..Workload::default() };
            let e = evaluate(&hw, &llama8(), &wl, &a).unwrap();
            let mut shares = [
                e.compute_s,
                e.memory_s,
                e.comm_s - e.comm_latency_s,
                e.fixed_s(),
            ];
            shares.sort_by(|x, y| y.total_cmp(x));
            prop_assume!(shares[0] > 1.01 * shares[1]);
            let s = sensitivity(&hw, &llama8(), &wl, &a, 0.1).unwrap();
            prop_assert_eq!(s.binding, Some(Param::binding_for(e.bottleneck)));
        }
    }
}
