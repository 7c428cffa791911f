//! Training as a workload: one optimizer step of a decoder trained on many
//! devices, and a whole run.
//!
//! Read in this order: this file (the run, its layout and the named
//! assumptions, checks), [`flops`] (FLOPs per token, MFU and HFU),
//! [`memory`] (bytes per device and the fit), [`step`] (step time: compute,
//! exposed communication, pipeline bubble, optimizer, overhead; the critical
//! batch; elasticities), [`run`] (tokens to train, cost, energy, goodput
//! with failures) and [`layout`] (the search over layouts). The README's
//! "Training" section gives every formula with its source.

pub mod flops;
pub mod layout;
pub mod memory;
pub mod run;
pub mod step;

#[cfg(test)]
mod tests;

use super::error::{Result, SolverError};
use super::types::{Arch, Decoder, Model, Precision};
use std::fmt;

pub use layout::{Candidate, Search, search};
pub use memory::{Fix, TrainingMemory};
pub use run::{RunFigures, RunSpec, TokensToTrain};
pub use step::{CommTerm, Comms, Term, TrainingStep};

/// How the devices are split: data (dp), tensor (tp, with sequence
/// parallelism), pipeline (pp, with `v` interleaved stages per device),
/// expert (ep) and context (cp) parallelism. The devices are
/// dp x tp x pp x ep x cp, placed innermost first as tp, cp, ep, dp, pp
/// (Megatron-LM's order): tensor-parallel ranks are neighbours in a node,
/// pipeline stages the farthest apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    pub dp: u32,
    pub tp: u32,
    pub pp: u32,
    pub ep: u32,
    pub cp: u32,
    /// Model chunks per pipeline stage (interleaved 1F1B); 1 = plain 1F1B.
    pub v: u32,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            dp: 1,
            tp: 1,
            pp: 1,
            ep: 1,
            cp: 1,
            v: 1,
        }
    }
}

impl Layout {
    /// dp x tp x pp x ep x cp (saturating).
    pub fn devices(&self) -> u64 {
        [self.tp, self.pp, self.ep, self.cp]
            .iter()
            .fold(self.dp as u64, |n, &d| n.saturating_mul(d as u64))
    }

    /// Each degree with its flag name: dp, tp, pp, ep, cp, v.
    pub fn degrees(&self) -> [(&'static str, u32); 6] {
        [
            ("dp", self.dp),
            ("tp", self.tp),
            ("pp", self.pp),
            ("ep", self.ep),
            ("cp", self.cp),
            ("v", self.v),
        ]
    }

    /// The ways the batch is split: dp x ep (an expert-parallel group holds
    /// different sequences, as data parallelism does, for the dense layers).
    pub fn data_ways(&self) -> u32 {
        self.dp.saturating_mul(self.ep)
    }

    /// Layers on the busiest pipeline stage: v chunks of ceil(L / (p v))
    /// layers (a stage count that does not divide the layers leaves some
    /// stages one layer short, as Llama 3's 126 layers on 16 stages do).
    pub fn stage_layers(&self, layers: u32) -> f64 {
        let chunks = self.pp.saturating_mul(self.v).max(1);
        layers.div_ceil(chunks) as f64 * self.v as f64
    }

    /// The busiest stage's layers over the average, L / p: 1 when the
    /// stages divide the layers.
    pub fn imbalance(&self, layers: u32) -> f64 {
        self.stage_layers(layers) * self.pp as f64 / layers.max(1) as f64
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dp {} x tp {} x pp {} x ep {} x cp {}",
            self.dp, self.tp, self.pp, self.ep, self.cp
        )?;
        if self.v > 1 {
            write!(f, " (v {})", self.v)?;
        }
        Ok(())
    }
}

/// Activation recomputation (Korthikanti et al. 2022, "Reducing Activation
/// Recomputation in Large Transformer Models").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Recompute {
    /// Keep every activation.
    None,
    /// Recompute only the attention core (softmax, dropout, the two
    /// attention products): drops the 5 a s / h term.
    Selective,
    /// Keep each layer's input and redo the whole forward pass in backward.
    Full,
}

impl Recompute {
    pub const ALL: [Recompute; 3] = [Recompute::None, Recompute::Selective, Recompute::Full];
    pub fn name(self) -> &'static str {
        match self {
            Recompute::None => "none",
            Recompute::Selective => "selective",
            Recompute::Full => "full",
        }
    }
    pub fn parse(s: &str) -> Option<Recompute> {
        let s = s.trim().to_ascii_lowercase();
        Recompute::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// The optimizer, for the bytes of state per parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Optimizer {
    /// Adam: two fp32 moments, 8 bytes per parameter.
    Adam,
    /// 8-bit Adam (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
    /// Quantization"): two 1-byte moments, 2 bytes per parameter.
    Adam8bit,
}

impl Optimizer {
    pub const ALL: [Optimizer; 2] = [Optimizer::Adam, Optimizer::Adam8bit];
    pub fn name(self) -> &'static str {
        match self {
            Optimizer::Adam => "adam",
            Optimizer::Adam8bit => "adam-8bit",
        }
    }
    pub fn parse(s: &str) -> Option<Optimizer> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        match s.as_str() {
            "adam" | "adamw" => Some(Optimizer::Adam),
            "adam-8bit" | "adam8bit" | "8bit-adam" | "adamw-8bit" => Some(Optimizer::Adam8bit),
            _ => None,
        }
    }
    /// Bytes of the two moments per parameter.
    pub fn moment_bytes(self) -> f64 {
        match self {
            Optimizer::Adam => 8.0,
            Optimizer::Adam8bit => 2.0,
        }
    }
}

/// One training configuration: the batch, the layout, the memory savers
/// and the number formats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingRun {
    /// Tokens per optimizer step over all replicas.
    pub global_batch_tokens: f64,
    /// Sequences per micro-batch.
    pub micro_batch: u32,
    /// Tokens per sequence.
    pub seq: f64,
    pub layout: Layout,
    /// ZeRO stage: 0 none, 1 optimizer state, 2 and gradients, 3 and
    /// weights (FSDP), sharded over the data-parallel ranks.
    pub zero: u8,
    pub recompute: Recompute,
    /// Format of the weights, gradients and activations, and of the math.
    pub precision: Precision,
    pub optimizer: Optimizer,
}

impl Default for TrainingRun {
    /// 4M tokens of 8k sequences, micro-batch 1, one device, bf16 with Adam.
    fn default() -> Self {
        TrainingRun {
            global_batch_tokens: 4.0 * 1024.0 * 1024.0,
            micro_batch: 1,
            seq: 8192.0,
            layout: Layout::default(),
            zero: 0,
            recompute: Recompute::None,
            precision: Precision::Bf16,
            optimizer: Optimizer::Adam,
        }
    }
}

impl TrainingRun {
    /// Micro-batches each pipeline runs per step: global sequences over
    /// (micro-batch x data ways), rounded up (the step then holds a little
    /// more than asked: [`TrainingRun::step_tokens`]).
    pub fn micro_batches(&self) -> f64 {
        let per = self.micro_batch as f64 * self.layout.data_ways() as f64 * self.seq;
        (self.global_batch_tokens / per).ceil().max(1.0)
    }

    /// Tokens one step actually trains on.
    pub fn step_tokens(&self) -> f64 {
        self.micro_batches() * self.micro_batch as f64 * self.layout.data_ways() as f64 * self.seq
    }

    /// Bytes per element of weights, gradients and activations.
    pub fn element_bytes(&self) -> f64 {
        self.precision.bytes()
    }

    /// Optimizer state per parameter: an fp32 master copy when the weights
    /// are narrower than fp32 (mixed precision), plus the moments. Adam in
    /// bf16: 4 + 8 = 12 bytes; with the weights and gradients, 16
    /// (Rajbhandari et al. 2020, ZeRO, section 3.1).
    pub fn optimizer_bytes(&self) -> f64 {
        let master = if self.precision.bytes() < 4.0 {
            4.0
        } else {
            0.0
        };
        master + self.optimizer.moment_bytes()
    }
}

/// Named training assumptions, each overridable (`ridgeline train
/// --dp-overlap ...`). The README's "Training" section gives the figure each
/// default was checked against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingAssumptions {
    /// Share of the data-parallel (and ZeRO/FSDP) communication that can
    /// hide behind backward compute, at most the compute there is to hide
    /// behind. 1: bucketed gradient reduction overlapping backward, as
    /// PyTorch DDP does (Li et al. 2020, VLDB, "PyTorch Distributed").
    pub dp_overlap: f64,
    /// Share of the tensor-parallel collectives hidden behind compute. 0:
    /// Megatron-LM's TP all-reduces sit on the critical path (Narayanan et
    /// al. 2021, section 3.2).
    pub tp_overlap: f64,
    /// Share of the expert-parallel all-to-alls hidden. 0: dispatch and
    /// combine wait for each other (DeepSpeed-MoE, Megatron-Core MoE
    /// without overlap).
    pub ep_overlap: f64,
    /// Share of the context-parallel ring hidden behind the attention
    /// compute. 1: ring attention sends the next KV block while computing
    /// on this one (Liu et al. 2023, "Ring Attention with Blockwise
    /// Transformers").
    pub cp_overlap: f64,
    /// Mean time between failures of one device (with its share of host,
    /// network and software), seconds.
    pub device_mtbf_s: f64,
    /// Checkpoint write bandwidth per device, byte/s.
    pub checkpoint_bandwidth: f64,
    /// Time to restart after a failure (reschedule, reload the
    /// checkpoint), seconds.
    pub restart_s: f64,
}

/// Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", section
/// 3.3.4 and table 5): "During a 54-day snapshot period of pre-training,
/// we experienced a total of 466 job interruptions. Of these, 47 were
/// planned ... The remaining 419 were unexpected" (software bugs and
/// network included; 78% hardware). The section does not give the GPU
/// count of the snapshot; it opens on "16K GPU training", so 16,384 is
/// assumed: a job MTBF of 54 x 24 / 419 = 3.09 h, 3.09 h x 16,384 =
/// 50,700 device-hours, rounded down to 50,000.
pub const DEFAULT_DEVICE_MTBF_S: f64 = 50_000.0 * 3600.0;
/// Llama 3 (section 3.3.1, "Storage"): Tectonic "supports a sustainable
/// throughput of 2 TB/s and a peak throughput of 7 TB/s"; the peak over
/// 16,384 GPUs is 0.43 GB/s per device (the sustained rate would be
/// 0.12 GB/s).
pub const DEFAULT_CHECKPOINT_BANDWIDTH: f64 = 0.4e9;
/// A round ten minutes to notice a failure, reschedule and reload: an
/// assumption, not a measurement.
pub const DEFAULT_RESTART_S: f64 = 600.0;

impl Default for TrainingAssumptions {
    fn default() -> Self {
        TrainingAssumptions {
            dp_overlap: 1.0,
            tp_overlap: 0.0,
            ep_overlap: 0.0,
            cp_overlap: 1.0,
            device_mtbf_s: DEFAULT_DEVICE_MTBF_S,
            checkpoint_bandwidth: DEFAULT_CHECKPOINT_BANDWIDTH,
            restart_s: DEFAULT_RESTART_S,
        }
    }
}

/// Largest number of micro-batches accepted per step (beyond it a batch
/// figure is a typo).
pub const MAX_MICRO_BATCHES: f64 = 1e7;

/// The decoder of a model, or why it cannot be trained here.
pub fn decoder(model: &Model) -> Result<&Decoder> {
    match &model.arch {
        Arch::Decoder(d) => Ok(d),
        Arch::SinglePass(_) => Err(SolverError::Unsupported(format!(
            "{}: training is modelled for decoder language models only",
            model.id
        ))),
    }
}

/// Check a run against its model: every degree at least 1, TP dividing the
/// heads, PP x v dividing the layers, EP only for an MoE and dividing its
/// experts, CP dividing the sequence, ZeRO 0 to 3, and at least one
/// micro-batch per data-parallel rank.
pub fn validate(model: &Model, run: &TrainingRun) -> Result<()> {
    let d = decoder(model)?;
    let l = run.layout;
    for (what, v) in l.degrees() {
        if v == 0 {
            return Err(unsupported(format!("{what} must be 1 or more")));
        }
    }
    if l.devices() > super::roofline::MAX_DEGREE as u64 {
        return Err(unsupported(format!(
            "the layout {l} uses {} devices; at most {} are modelled",
            l.devices(),
            super::roofline::MAX_DEGREE
        )));
    }
    super::error::positive("sequence length", run.seq)?;
    super::error::positive("global batch", run.global_batch_tokens)?;
    if run.seq.fract() != 0.0 || run.seq > super::roofline::MAX_CONTEXT {
        return Err(unsupported(format!(
            "the sequence length must be a whole number of tokens up to 1e9, got {}",
            run.seq
        )));
    }
    if run.micro_batch == 0 {
        return Err(unsupported("the micro-batch must be 1 or more sequences"));
    }
    if run.zero > 3 {
        return Err(unsupported(format!(
            "ZeRO stage {} does not exist: use 0, 1, 2 or 3",
            run.zero
        )));
    }
    if d.heads % l.tp != 0 {
        return Err(unsupported(format!(
            "TP {} does not divide the {} attention heads of {}",
            l.tp, d.heads, model.id
        )));
    }
    let stages = l.pp.saturating_mul(l.v);
    if stages > d.layers {
        return Err(unsupported(format!(
            "PP {} x v {} puts more stages than the {} layers of {}",
            l.pp, l.v, d.layers, model.id
        )));
    }
    if l.v > 1 && l.pp == 1 {
        return Err(unsupported(
            "interleaved stages (v > 1) need pipeline parallelism (pp > 1)",
        ));
    }
    match d.moe {
        None if l.ep > 1 => {
            return Err(unsupported(format!(
                "EP {} needs a mixture-of-experts model; {} is dense",
                l.ep, model.id
            )));
        }
        Some(m) if m.experts % l.ep != 0 => {
            return Err(unsupported(format!(
                "EP {} does not divide the {} experts of {}",
                l.ep, m.experts, model.id
            )));
        }
        _ => {}
    }
    if run.seq % l.cp as f64 != 0.0 {
        return Err(unsupported(format!(
            "CP {} does not divide the sequence of {} tokens",
            l.cp, run.seq
        )));
    }
    let one = run.seq * run.micro_batch as f64 * l.data_ways() as f64;
    if run.global_batch_tokens < one {
        return Err(unsupported(format!(
            "the global batch of {} tokens is less than one micro-batch of {} sequences of {} tokens on each of the {} data-parallel ranks ({} tokens)",
            run.global_batch_tokens,
            run.micro_batch,
            run.seq,
            l.data_ways(),
            one
        )));
    }
    if run.micro_batches() > MAX_MICRO_BATCHES {
        return Err(unsupported(format!(
            "{} micro-batches per step: more than 1e7; is the global batch a typo?",
            run.micro_batches()
        )));
    }
    Ok(())
}

fn unsupported(msg: impl Into<String>) -> SolverError {
    SolverError::Unsupported(msg.into())
}

/// The model's parameters split as the layouts shard them: the dense part
/// (embeddings, attention, dense FFNs, norms) and the routed experts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub total: f64,
    /// Dense parameters (all of a dense model).
    pub dense: f64,
    /// Routed experts' parameters, E x (one expert over all layers).
    pub experts: f64,
    /// Parameters each token multiplies through: active parameters less
    /// the gathered input embedding (N of 6N).
    pub matmul_active: f64,
    /// Layers, for the pipeline's busiest stage.
    pub layers: u32,
}

impl Params {
    pub fn of(model: &Model, d: &Decoder) -> Params {
        let experts = d
            .moe
            .map_or(0.0, |m| m.experts as f64 * d.expert_params(model.params));
        Params {
            total: model.params,
            dense: model.params - experts,
            experts,
            matmul_active: d.active_params(model.params),
            layers: d.layers,
        }
    }

    /// Parameters on the busiest device before ZeRO: dense over tp x pp,
    /// experts over tp x pp x ep, times the pipeline's imbalance for a
    /// model of `layers` layers. Returns (dense, experts).
    pub fn per_device(&self, l: &Layout, layers: u32) -> (f64, f64) {
        let mp = l.tp as f64 * l.pp as f64 / l.imbalance(layers);
        (self.dense / mp, self.experts / (mp * l.ep as f64))
    }
}

/// Ranks that hold the same shard of a dense parameter (its ZeRO and
/// gradient group): dp x ep x cp. For an expert parameter: dp x cp.
pub fn dp_groups(l: &Layout) -> (u32, u32) {
    (
        l.dp.saturating_mul(l.ep).saturating_mul(l.cp),
        l.dp.saturating_mul(l.cp),
    )
}

/// Everything the solver says about one training step.
#[derive(Debug, Clone, PartialEq)]
pub struct Training {
    pub run: TrainingRun,
    pub params: Params,
    pub flops: flops::Flops,
    pub step: TrainingStep,
    pub memory: TrainingMemory,
    /// Tokens per device per step at which the data-parallel communication
    /// just hides behind backward compute (None without data parallelism).
    pub critical_batch_tokens_per_device: Option<f64>,
}

impl Training {
    pub fn devices(&self) -> u64 {
        self.run.layout.devices()
    }
}

/// Evaluate one training step of `run` on `model` and `hw`.
pub fn evaluate(
    hw: &super::types::Hardware,
    model: &Model,
    run: &TrainingRun,
    a: &super::types::Assumptions,
    t: &TrainingAssumptions,
) -> Result<Training> {
    super::roofline::validate_hardware(hw)?;
    super::roofline::validate_assumptions(a)?;
    validate_training_assumptions(t)?;
    validate(model, run)?;
    let d = decoder(model)?;
    let params = Params::of(model, d);
    let flops = flops::Flops::of(d, &params, run);
    let step = step::step(hw, d, &params, &flops, run, a, t)?;
    let memory = memory::memory(hw, d, &params, run, a);
    let critical = step::critical_batch(&step);
    Ok(Training {
        run: *run,
        params,
        flops,
        step,
        memory,
        critical_batch_tokens_per_device: critical,
    })
}

/// Check the training assumptions: overlaps from 0 to 1, positive MTBF and
/// bandwidth, a restart time of zero or more.
pub fn validate_training_assumptions(t: &TrainingAssumptions) -> Result<()> {
    for (field, v) in [
        ("DP overlap", t.dp_overlap),
        ("TP overlap", t.tp_overlap),
        ("EP overlap", t.ep_overlap),
        ("CP overlap", t.cp_overlap),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(SolverError::Invalid {
                field,
                value: v,
                expected: "a number from 0 to 1",
            });
        }
    }
    super::error::positive("device MTBF", t.device_mtbf_s)?;
    super::error::positive("checkpoint bandwidth", t.checkpoint_bandwidth)?;
    super::error::non_negative("restart time", t.restart_s)?;
    Ok(())
}
