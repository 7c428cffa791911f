//! The `[training]` section of a scenario: the Training view's run (the
//! device count, the layout, ZeRO, recomputation, the optimizer, the batch,
//! the sequence, the tokens to train and the training assumptions: the
//! overlaps, the device MTBF, the checkpoint bandwidth and the restart
//! time), read key by key with each problem at its key, and written so that
//! it reads back equal.

use super::Scenario;
use super::exact;
use super::values::Problems;
use crate::solver::training::{
    Attention, CrossEntropy, DEFAULTS, GradPrecision, Layout, LowPrecisionStorage, MatmulCeiling,
    Optimizer, Recompute, TokensToTrain, TrainingAssumptions, TrainingRun,
};
use crate::solver::units::{self, Kind};
use crate::solver::{Arch, Model, Precision};
use serde::{Deserialize, Serialize};

/// The sequence a run uses when none is set: the model's context, at most
/// this (as `ridgeline train` does).
pub const AUTO_SEQ_MAX: f64 = DEFAULTS.seq_max;
/// Largest global batch, tokens (the command line's bound).
pub const MAX_GLOBAL_BATCH: f64 = 1e12;
/// Largest number of tokens to train on (the command line's bound).
pub const MAX_TOKENS: f64 = 1e16;
/// Largest micro-batch, sequences.
pub const MAX_MICRO_BATCH: u32 = 1 << 16;
/// Largest device count or degree (the solver's).
pub const MAX_DEVICES: u32 = 65536;

/// What the training knobs set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainInputs {
    /// All devices of the run: dp x tp x pp x ep x cp.
    pub devices: u32,
    pub tp: u32,
    pub pp: u32,
    /// Interleaved model chunks per pipeline stage (1: plain 1F1B).
    pub v: u32,
    pub ep: u32,
    pub cp: u32,
    pub zero: u8,
    pub recompute: Recompute,
    pub attention: Attention,
    /// Dropout kept (a mask byte per element).
    pub dropout: bool,
    /// Layers fewer on the first and last pipeline stages.
    pub edge_layers: u32,
    /// Micro-batches run back to back on one interleaved chunk (0: pp).
    pub contiguous: u32,
    /// Activations kept for backward offloaded to host memory.
    pub offload: bool,
    /// Tokens per optimizer step over all replicas.
    pub global_batch: f64,
    /// Sequences per micro-batch.
    pub micro_batch: u32,
    /// Tokens per sequence; None: the model's context, at most 8k.
    pub seq: Option<f64>,
    pub tokens: TokensToTrain,
    pub optimizer: Optimizer,
    /// The overlaps, the device MTBF, the checkpoint bandwidth and the
    /// restart time (the solver's named defaults until set).
    pub assumptions: TrainingAssumptions,
}

impl Default for TrainInputs {
    /// The solver's training defaults ([`DEFAULTS`], which `ridgeline
    /// train` takes too): eight devices of data parallelism with ZeRO 3,
    /// FlashAttention and no recomputation, 4M tokens per step of the
    /// model's context up to 8k, to Chinchilla's 20 tokens per parameter
    /// with Adam and the solver's training assumptions.
    fn default() -> Self {
        TrainInputs {
            devices: DEFAULTS.devices,
            tp: 1,
            pp: 1,
            v: 1,
            ep: 1,
            cp: 1,
            zero: DEFAULTS.zero,
            recompute: DEFAULTS.recompute,
            attention: DEFAULTS.attention,
            dropout: false,
            edge_layers: 0,
            contiguous: 0,
            offload: false,
            global_batch: DEFAULTS.global_batch_tokens,
            micro_batch: DEFAULTS.micro_batch,
            seq: None,
            tokens: TokensToTrain::Chinchilla,
            optimizer: Optimizer::Adam,
            assumptions: TrainingAssumptions::default(),
        }
    }
}

impl TrainInputs {
    /// tp x pp x ep x cp: the devices of one data-parallel replica.
    pub fn inner(&self) -> u64 {
        [self.tp, self.pp, self.ep, self.cp]
            .iter()
            .fold(1u64, |n, &d| n.saturating_mul(d as u64))
    }

    /// The data-parallel degree the devices leave, if they divide evenly.
    pub fn dp(&self) -> Option<u32> {
        let inner = self.inner();
        (inner > 0 && (self.devices as u64).is_multiple_of(inner))
            .then(|| (self.devices as u64 / inner) as u32)
    }

    /// The layout, or why the devices do not split into it.
    pub fn layout(&self) -> Result<Layout, String> {
        let dp = self.dp().ok_or_else(|| {
            format!(
                "{} devices are not a multiple of tp x pp x ep x cp = {} x {} x {} x {} = {}: change the devices or a degree",
                self.devices,
                self.tp,
                self.pp,
                self.ep,
                self.cp,
                self.inner()
            )
        })?;
        Ok(Layout {
            dp,
            tp: self.tp,
            pp: self.pp,
            ep: self.ep,
            cp: self.cp,
            v: self.v,
        })
    }

    /// The sequence length for `model`: as set, or its context up to 8k.
    /// The run the knobs describe for `model` at `precision` (the Training
    /// view's step, and a lesson's training figures).
    pub fn run(&self, model: &Model, precision: Precision) -> Result<TrainingRun, String> {
        Ok(TrainingRun {
            global_batch_tokens: self.global_batch,
            micro_batch: self.micro_batch,
            seq: self.seq_for(model),
            layout: self.layout()?,
            zero: self.zero,
            recompute: self.recompute,
            precision,
            optimizer: self.optimizer,
            attention: self.attention,
            dropout: self.dropout,
            edge_layers: self.edge_layers,
            contiguous: self.contiguous,
            offload: self.offload,
        })
    }

    pub fn seq_for(&self, model: &Model) -> f64 {
        self.seq.unwrap_or(match &model.arch {
            Arch::Decoder(d) => DEFAULTS.seq_for(d),
            Arch::SinglePass(_) => AUTO_SEQ_MAX,
        })
    }
}

/// `[training]` as written. Every key is optional; what is absent keeps the
/// Training view's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pp: Option<u32>,
    /// Interleaved model chunks per pipeline stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ep: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero: Option<u8>,
    /// none | selective | dots | dots-except-mlpwi | dots-except-mlp |
    /// full, or Megatron-Core modules, comma-separated ("mla_up_proj,moe_act")
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recompute: Option<String>,
    /// flash | eager
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropout: Option<bool>,
    /// Activations offloaded to host memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offload: Option<bool>,
    /// Layers fewer on the first and last pipeline stages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_layers: Option<u32>,
    /// Micro-batches run back to back on one interleaved chunk (0: pp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contiguous: Option<u32>,
    /// Tokens per step: a number, or a string with M = 1024^2 ("4M").
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::tokens"
    )]
    pub global_batch: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub micro_batch: Option<u32>,
    /// Tokens per sequence; absent: the model's context up to 8k.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::tokens"
    )]
    pub seq: Option<f64>,
    /// "chinchilla" (20 per parameter) or a count, "15T".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<String>,
    /// "adam" or "adam-8bit".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimizer: Option<String>,
    /// Shares of each communication that may hide behind compute, 0 to 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub dp_overlap: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub tp_overlap: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub ep_overlap: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub cp_overlap: Option<f64>,
    /// How much slower compute runs beside a hidden collective, 0 to 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub overlap_slowdown: Option<f64>,
    /// Mean time between failures of one device, "50000h".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtbf: Option<String>,
    /// Checkpoint write bandwidth per device, "400MB/s".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_bandwidth: Option<String>,
    /// Time to restart after a failure, "10min".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<String>,
    /// An MoE layer's time per routed token copy, "0.2us".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe_token_time: Option<String>,
    /// Fraction of peak the attention kernels reach, above 0 and at most 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub attention_efficiency: Option<f64>,
    /// Room per MoE expert over top-k copies of each token, 1 to 16.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub moe_capacity: Option<f64>,
    /// "measured" (a device's measured matmul ceiling scales the compute
    /// efficiency) or "flat".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matmul_ceiling: Option<String>,
    /// "fused" (the loss holds one fp32 copy of the logits) or "eager"
    /// (eager PyTorch's three at its peak).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_entropy: Option<String>,
    /// "narrow" (an fp8 run holds its tensors at 8 bits) or "bf16" (at 16
    /// bits, torchao).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_precision_storage: Option<String>,
    /// "param" (gradients at the weights' width) or "fp32" (Megatron-Core's
    /// main gradients).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad_precision: Option<String>,
    /// What the allocator reserves beyond the tensors alive, as a share of
    /// them, 0 to 1 (0.15: 15% more).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::number"
    )]
    pub allocator_overhead: Option<f64>,
}

impl TrainingSection {
    /// The section that reads back as `t`.
    pub fn of(t: &TrainInputs) -> TrainingSection {
        TrainingSection {
            devices: Some(t.devices),
            tp: Some(t.tp),
            pp: Some(t.pp),
            v: Some(t.v),
            ep: Some(t.ep),
            cp: Some(t.cp),
            zero: Some(t.zero),
            recompute: Some(t.recompute.name()),
            attention: Some(t.attention.name().into()),
            dropout: Some(t.dropout),
            offload: Some(t.offload),
            edge_layers: Some(t.edge_layers),
            contiguous: Some(t.contiguous),
            global_batch: Some(t.global_batch),
            micro_batch: Some(t.micro_batch),
            seq: t.seq,
            tokens: Some(match t.tokens {
                TokensToTrain::Chinchilla => "chinchilla".into(),
                TokensToTrain::Tokens(n) => exact::count(n),
            }),
            optimizer: Some(t.optimizer.name().into()),
            dp_overlap: Some(t.assumptions.dp_overlap),
            tp_overlap: Some(t.assumptions.tp_overlap),
            ep_overlap: Some(t.assumptions.ep_overlap),
            cp_overlap: Some(t.assumptions.cp_overlap),
            overlap_slowdown: Some(t.assumptions.overlap_slowdown),
            mtbf: Some(exact::long_time(t.assumptions.device_mtbf_s)),
            checkpoint_bandwidth: Some(exact::bandwidth(t.assumptions.checkpoint_bandwidth)),
            restart: Some(exact::long_time(t.assumptions.restart_s)),
            moe_token_time: Some(exact::long_time(t.assumptions.moe_token_time_s)),
            moe_capacity: Some(t.assumptions.moe_capacity),
            attention_efficiency: Some(t.assumptions.attention_efficiency),
            matmul_ceiling: Some(t.assumptions.matmul_ceiling.name().into()),
            cross_entropy: Some(t.assumptions.cross_entropy.name().into()),
            low_precision_storage: Some(t.assumptions.low_precision_storage.name().into()),
            grad_precision: Some(t.assumptions.grad_precision.name().into()),
            allocator_overhead: Some(t.assumptions.allocator_overhead),
        }
    }
}

impl Scenario {
    /// The training inputs: the section's values over the defaults, each
    /// checked (degrees 1 to 65536, ZeRO 0 to 3, a known recomputation,
    /// whole positive batches and sequence, tokens from 1 to 1e16, a known
    /// optimizer and the training assumptions as the solver takes them).
    pub fn training_inputs(&self) -> Result<TrainInputs, Vec<super::Problem>> {
        self.training_inputs_over(&TrainingAssumptions::default())
    }

    /// [`Scenario::training_inputs`] with the training assumptions the
    /// section leaves out taken from `base` (its profile's, as `ridgeline
    /// train --profile` takes them).
    pub fn training_inputs_over(
        &self,
        base: &TrainingAssumptions,
    ) -> Result<TrainInputs, Vec<super::Problem>> {
        let s = &self.training;
        let d = TrainInputs::default();
        let mut p = Problems::default();
        let mut degree = |key: &str, v: Option<u32>, dv: u32| match v {
            None => dv,
            Some(x) if (1..=MAX_DEVICES).contains(&x) => x,
            Some(x) => {
                p.push(
                    &format!("training.{key}"),
                    format!("{key} must be from 1 to {MAX_DEVICES}, got {x}"),
                );
                dv
            }
        };
        let devices = degree("devices", s.devices, d.devices);
        let tp = degree("tp", s.tp, d.tp);
        let pp = degree("pp", s.pp, d.pp);
        let v = degree("v", s.v, d.v);
        let ep = degree("ep", s.ep, d.ep);
        let cp = degree("cp", s.cp, d.cp);
        let micro_batch = match s.micro_batch {
            None => d.micro_batch,
            Some(x) if (1..=MAX_MICRO_BATCH).contains(&x) => x,
            Some(x) => {
                p.push(
                    "training.micro_batch",
                    format!("micro_batch must be from 1 to {MAX_MICRO_BATCH}, got {x}"),
                );
                d.micro_batch
            }
        };
        let zero = match s.zero {
            None => d.zero,
            Some(z) if z <= 3 => z,
            Some(z) => {
                p.push("training.zero", format!("ZeRO stage {z}? use 0, 1, 2 or 3"));
                d.zero
            }
        };
        let recompute = match s.recompute.as_deref() {
            None => d.recompute,
            Some(r) => Recompute::parse(r).unwrap_or_else(|| {
                p.push(
                    "training.recompute",
                    format!("recompute {r:?}? use {}", Recompute::EXPECTED),
                );
                d.recompute
            }),
        };
        let attention = match s.attention.as_deref() {
            None => d.attention,
            Some(a) => Attention::parse(a).unwrap_or_else(|| {
                p.push(
                    "training.attention",
                    format!("attention {a:?}? use flash or eager"),
                );
                d.attention
            }),
        };
        let dropout = s.dropout.unwrap_or(d.dropout);
        let offload = s.offload.unwrap_or(d.offload);
        // A count from 0 to MAX_DEVICES, or the default with a problem.
        let mut up_to_devices = |key: &str, v: Option<u32>, default: u32| match v {
            None => default,
            Some(x) if x <= MAX_DEVICES => x,
            Some(x) => {
                p.push(
                    &format!("training.{key}"),
                    format!("{key} must be from 0 to {MAX_DEVICES}, got {x}"),
                );
                default
            }
        };
        let edge_layers = up_to_devices("edge_layers", s.edge_layers, d.edge_layers);
        let contiguous = up_to_devices("contiguous", s.contiguous, d.contiguous);
        let mut whole = |key: &str, v: Option<f64>, max: f64| -> Option<f64> {
            let x = v?;
            if x.fract() == 0.0 && (1.0..=max).contains(&x) {
                Some(x)
            } else {
                p.push(
                    &format!("training.{key}"),
                    format!("{key} must be a whole number of tokens from 1 to {max:e}, got {x}"),
                );
                None
            }
        };
        let global_batch =
            whole("global_batch", s.global_batch, MAX_GLOBAL_BATCH).unwrap_or(d.global_batch);
        let seq = whole("seq", s.seq, crate::solver::roofline::MAX_CONTEXT).or(d.seq);
        let tokens = match s.tokens.as_deref() {
            None => d.tokens,
            Some(t) if t.trim().eq_ignore_ascii_case("chinchilla") => TokensToTrain::Chinchilla,
            Some(t) => match units::parse(t, Kind::Count) {
                Ok(n) if (1.0..=MAX_TOKENS).contains(&n) => TokensToTrain::Tokens(n),
                Ok(_) => {
                    p.push(
                        "training.tokens",
                        "tokens must be from 1 to 1e16, or chinchilla",
                    );
                    d.tokens
                }
                Err(e) => {
                    p.push("training.tokens", format!("{e}; or chinchilla"));
                    d.tokens
                }
            },
        };
        let optimizer = match s.optimizer.as_deref() {
            None => d.optimizer,
            Some(o) => Optimizer::parse(o).unwrap_or_else(|| {
                p.push(
                    "training.optimizer",
                    format!("optimizer {o:?}? use adam or adam-8bit"),
                );
                d.optimizer
            }),
        };
        let assumptions = assumptions(s, base, &mut p);
        p.or(TrainInputs {
            devices,
            tp,
            pp,
            v,
            ep,
            cp,
            zero,
            recompute,
            attention,
            dropout,
            offload,
            edge_layers,
            contiguous,
            global_batch,
            micro_batch,
            seq,
            tokens,
            optimizer,
            assumptions,
        })
    }
}

/// The section's value of `key` (`given`), when `ok` takes it; else the
/// problem "`key` must be `what`" and `base`.
fn within(
    p: &mut Problems,
    (key, given, base): (&str, Option<f64>, f64),
    ok: impl Fn(f64) -> bool,
    what: &str,
) -> f64 {
    match given {
        None => base,
        Some(x) if ok(x) => x,
        Some(x) => {
            p.push(
                &format!("training.{key}"),
                format!("{key} must be {what}, got {x}"),
            );
            base
        }
    }
}

/// The section's name for `key` (`given`), read by `parse`; else the
/// problem "`key` \"x\"? use `names`" and `base`.
fn named<T>(
    p: &mut Problems,
    (key, given, base): (&str, Option<&str>, T),
    parse: impl Fn(&str) -> Option<T>,
    names: &str,
) -> T {
    match given {
        None => base,
        Some(c) => parse(c).unwrap_or_else(|| {
            p.push(
                &format!("training.{key}"),
                format!("{key} {c:?}? use {names}"),
            );
            base
        }),
    }
}

/// The training assumptions of the section over `base` (the solver's defaults or a profile's):
/// overlaps from 0 to 1, a positive MTBF and checkpoint bandwidth, a
/// restart time of zero or more (as `ridgeline train` takes them).
fn assumptions(
    s: &TrainingSection,
    base: &TrainingAssumptions,
    p: &mut Problems,
) -> TrainingAssumptions {
    let d = *base;
    let mut share = |key: &str, v: Option<f64>, dv: f64| {
        within(
            p,
            (key, v, dv),
            |x| (0.0..=1.0).contains(&x),
            "a share from 0 to 1 (0.5 hides half)",
        )
    };
    let dp_overlap = share("dp_overlap", s.dp_overlap, d.dp_overlap);
    let tp_overlap = share("tp_overlap", s.tp_overlap, d.tp_overlap);
    let ep_overlap = share("ep_overlap", s.ep_overlap, d.ep_overlap);
    let cp_overlap = share("cp_overlap", s.cp_overlap, d.cp_overlap);
    let overlap_slowdown = within(
        p,
        ("overlap_slowdown", s.overlap_slowdown, d.overlap_slowdown),
        |x| (0.0..=1.0).contains(&x),
        "from 0 to 1 (0.189: compute 18.9% slower beside a hidden collective)",
    );
    let mut quantity =
        |key: &str, v: Option<&str>, dv: f64, kind: Kind, zero_ok: bool, eg: &str| {
            let Some(t) = v else { return dv };
            match units::parse(t, kind) {
                Ok(x) if x > 0.0 || (zero_ok && x == 0.0) => x,
                Ok(_) => {
                    let least = if zero_ok {
                        "zero or more"
                    } else {
                        "greater than zero"
                    };
                    p.push(
                        &format!("training.{key}"),
                        format!("{key} must be {least}, like {eg:?}"),
                    );
                    dv
                }
                Err(e) => {
                    p.push(&format!("training.{key}"), format!("{e}; like {eg:?}"));
                    dv
                }
            }
        };
    let device_mtbf_s = quantity(
        "mtbf",
        s.mtbf.as_deref(),
        d.device_mtbf_s,
        Kind::Time,
        false,
        "50000h",
    );
    let checkpoint_bandwidth = quantity(
        "checkpoint_bandwidth",
        s.checkpoint_bandwidth.as_deref(),
        d.checkpoint_bandwidth,
        Kind::Bandwidth,
        false,
        "400MB/s",
    );
    let restart_s = quantity(
        "restart",
        s.restart.as_deref(),
        d.restart_s,
        Kind::Time,
        true,
        "10min",
    );
    let moe_token_time_s = quantity(
        "moe_token_time",
        s.moe_token_time.as_deref(),
        d.moe_token_time_s,
        Kind::Time,
        true,
        "0.2us",
    );
    let moe_capacity = within(
        p,
        ("moe_capacity", s.moe_capacity, d.moe_capacity),
        |x| (1.0..=16.0).contains(&x),
        "from 1 (dropless) to 16",
    );
    let attention_efficiency = within(
        p,
        (
            "attention_efficiency",
            s.attention_efficiency,
            d.attention_efficiency,
        ),
        |x| x > 0.0 && x <= 1.0,
        "above 0 and at most 1 (0.6 is 60% of peak)",
    );
    let matmul_ceiling = named(
        p,
        (
            "matmul_ceiling",
            s.matmul_ceiling.as_deref(),
            d.matmul_ceiling,
        ),
        MatmulCeiling::parse,
        "measured or flat",
    );
    let cross_entropy = named(
        p,
        ("cross_entropy", s.cross_entropy.as_deref(), d.cross_entropy),
        CrossEntropy::parse,
        "fused or eager",
    );
    let low_precision_storage = named(
        p,
        (
            "low_precision_storage",
            s.low_precision_storage.as_deref(),
            d.low_precision_storage,
        ),
        LowPrecisionStorage::parse,
        "narrow or bf16",
    );
    let grad_precision = named(
        p,
        (
            "grad_precision",
            s.grad_precision.as_deref(),
            d.grad_precision,
        ),
        GradPrecision::parse,
        "param or fp32",
    );
    let allocator_overhead = within(
        p,
        (
            "allocator_overhead",
            s.allocator_overhead,
            d.allocator_overhead,
        ),
        |x| (0.0..=1.0).contains(&x),
        "from 0 to 1 (0.15: the allocator holds 15% more than the tensors alive)",
    );
    TrainingAssumptions {
        dp_overlap,
        tp_overlap,
        ep_overlap,
        cp_overlap,
        overlap_slowdown,
        device_mtbf_s,
        checkpoint_bandwidth,
        restart_s,
        moe_capacity,
        attention_efficiency,
        moe_token_time_s,
        matmul_ceiling,
        cross_entropy,
        low_precision_storage,
        grad_precision,
        allocator_overhead,
    }
}
