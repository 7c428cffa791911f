//! Training as a workload: one optimizer step of a decoder trained on many
//! devices, and a whole run.
//!
//! Read in this order: this file (the run, its layout and the named
//! assumptions, checks), [`flops`] (FLOPs per token, MFU and HFU),
//! [`memory`] (bytes per device and the fit), [`step`] (step time: compute,
//! exposed communication, pipeline bubble, optimizer, overhead; the critical
//! batch; elasticities), [`run`] (tokens to train, cost, energy, goodput
//! with failures), [`layout`] (the search over layouts) and [`scale`]
//! (strong and weak scaling over device counts). docs/training.md
//! "Training" section gives every formula with its source.

pub mod flops;
pub mod layout;
pub mod memory;
pub mod predict;
pub mod run;
pub mod scale;
pub mod step;

#[cfg(test)]
mod recompute_tests;
#[cfg(test)]
mod scale_tests;
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
        self.stage_layers_trimmed(layers, 0)
    }

    /// Layers on a middle stage when the first and last stages take `trim`
    /// fewer: v chunks of ceil((L + 2 trim) / (p v)) (all L without a
    /// pipeline).
    pub fn stage_layers_trimmed(&self, layers: u32, trim: u32) -> f64 {
        if self.pp <= 1 {
            return layers as f64;
        }
        let chunks = self.pp.saturating_mul(self.v).max(1);
        let spread = layers.saturating_add(trim.saturating_mul(2));
        spread.div_ceil(chunks) as f64 * self.v as f64
    }

    /// Layers on the first and on the last stage: a middle stage's less
    /// `trim` (all L without a pipeline).
    pub fn edge_layers(&self, layers: u32, trim: u32) -> f64 {
        if self.pp <= 1 {
            return layers as f64;
        }
        (self.stage_layers_trimmed(layers, trim) - trim as f64).max(0.0)
    }

    /// The busiest stage's layers over the average, L / p: 1 when the
    /// stages divide the layers.
    pub fn imbalance(&self, layers: u32) -> f64 {
        self.imbalance_trimmed(layers, 0)
    }

    /// The same with `trim` fewer layers on the first and last stages.
    pub fn imbalance_trimmed(&self, layers: u32, trim: u32) -> f64 {
        self.stage_layers_trimmed(layers, trim) * self.pp as f64 / layers.max(1) as f64
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

/// Activation recomputation: what each layer keeps for its backward pass
/// and what it computes again ([`memory`] derives the bytes of each, and
/// [`flops`] what each recomputes). The order is roughly from keeping the
/// most to keeping the least (the fixes of a run that does not fit try the
/// levels after the run's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Recompute {
    /// Keep every activation.
    None,
    /// Recompute only the attention core (Korthikanti et al. 2022,
    /// "Reducing Activation Recomputation in Large Transformer Models",
    /// section 5): its score matrix under eager attention; under
    /// FlashAttention, which keeps no scores, it saves almost nothing.
    Selective,
    /// Recompute the named parts of each layer, as Megatron-Core's
    /// `recompute_modules` does under `recompute_granularity = selective`
    /// (its list replaces the default `["core_attn"]`).
    Modules(Modules),
    /// Keep only the outputs of the matrix products and recompute norms,
    /// activation functions and the attention core (JAX's `dots_saveable`
    /// checkpoint policy).
    Dots,
    /// torchtitan's per-operator selective checkpointing
    /// (`selective_ac_option = "op"`, the default of its Llama configs):
    /// keep the block's input, the attention core's output and statistics
    /// (its kernel is in the save list) and the output of every second
    /// matrix product in the block's order (the first, third, ...), and
    /// replay the rest in backward: the products in between, norms,
    /// activation functions. See [`memory`] and [`flops`].
    SelectiveOp,
    /// Keep the matrix products' outputs except the MLP's input
    /// projections (gate and up), which are recomputed with the rest of
    /// what `dots` recomputes: MaxText's `save_dot_except_mlpwi` remat
    /// policy, which saves only the tensors named "query_proj",
    /// "key_proj", "value_proj", "qkv_proj", "out_proj" and "mlpwo".
    DotsExceptMlpwi,
    /// Keep the attention's products' outputs only (Q, K, V and the out
    /// projection's) and recompute the whole MLP with the rest: MaxText's
    /// `save_dot_except_mlp`, which saves "query_proj", "key_proj",
    /// "value_proj", "qkv_proj" and "out_proj". With the layer input
    /// offloaded too it is what MaxText's `custom` policy with
    /// `decoder_layer_input`, `query_proj`, `key_proj`, `value_proj` and
    /// `out_proj` set to `offload` keeps ([`TrainingRun::offload`]).
    DotsExceptMlp,
    /// Keep each layer's input and redo the whole forward pass in backward.
    Full,
}

/// A set of the parts of a layer Megatron-Core can recompute
/// (`recompute_modules`; its TransformerConfig documents each): the three
/// "output-discarding" ones (the output is freed after the forward and
/// rebuilt from the input kept anyway) and the four checkpointed ones (only
/// the input is kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Modules(u8);

impl Modules {
    /// "core_attn": the attention core (as [`Recompute::Selective`]).
    pub const CORE_ATTN: Modules = Modules(1);
    /// "mla_up_proj": MLA's up projections and rotary embedding, whose
    /// outputs (the per-head Q, K and V) are rebuilt from the latents.
    pub const MLA_UP_PROJ: Modules = Modules(2);
    /// "moe_act": the routed experts' activation function, whose output is
    /// rebuilt from the gate and up outputs.
    pub const MOE_ACT: Modules = Modules(4);
    /// "layernorm": the two norms before attention and MLP, whose outputs
    /// are rebuilt from their inputs.
    pub const LAYERNORM: Modules = Modules(8);
    /// "mlp": a dense layer's whole MLP, from its input.
    pub const MLP: Modules = Modules(16);
    /// "moe": an MoE layer's whole MLP (router, dispatch, experts,
    /// combine), from its input.
    pub const MOE: Modules = Modules(32);
    /// "shared_experts": an MoE layer's shared experts, from their input.
    pub const SHARED_EXPERTS: Modules = Modules(64);

    /// Each module with its Megatron-Core name, in its documented order.
    pub const NAMED: [(Modules, &'static str); 7] = [
        (Modules::CORE_ATTN, "core_attn"),
        (Modules::MOE_ACT, "moe_act"),
        (Modules::LAYERNORM, "layernorm"),
        (Modules::MLA_UP_PROJ, "mla_up_proj"),
        (Modules::MLP, "mlp"),
        (Modules::MOE, "moe"),
        (Modules::SHARED_EXPERTS, "shared_experts"),
    ];

    pub fn contains(self, m: Modules) -> bool {
        self.0 & m.0 == m.0 && m.0 != 0
    }

    pub fn with(self, m: Modules) -> Modules {
        Modules(self.0 | m.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The names, comma-separated, in [`Modules::NAMED`]'s order.
    pub fn name(self) -> String {
        Modules::NAMED
            .iter()
            .filter(|(m, _)| self.contains(*m))
            .map(|(_, n)| *n)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A comma-separated list of module names (underscores or hyphens),
    /// or the name that is not a module.
    pub fn parse(s: &str) -> std::result::Result<Modules, String> {
        let mut out = Modules::default();
        for part in s.split(',') {
            let p = part.trim().to_ascii_lowercase().replace('-', "_");
            match Modules::NAMED.iter().find(|(_, n)| *n == p) {
                Some((m, _)) => out = out.with(*m),
                None => return Err(part.trim().to_string()),
            }
        }
        Ok(out)
    }
}

impl Recompute {
    /// The named levels (a module set is any combination of
    /// [`Modules::NAMED`]), from keeping the most to keeping the least.
    pub const ALL: [Recompute; 7] = [
        Recompute::None,
        Recompute::Selective,
        Recompute::Dots,
        Recompute::SelectiveOp,
        Recompute::DotsExceptMlpwi,
        Recompute::DotsExceptMlp,
        Recompute::Full,
    ];
    /// What the levels and modules are, for messages.
    pub const EXPECTED: &'static str = "none, selective, dots, selective-op, dots-except-mlpwi, dots-except-mlp, full, or a comma-separated list of Megatron-Core modules (core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts)";
    pub fn name(self) -> String {
        match self {
            Recompute::None => "none".into(),
            Recompute::Selective => "selective".into(),
            Recompute::Modules(m) => m.name(),
            Recompute::Dots => "dots".into(),
            Recompute::SelectiveOp => "selective-op".into(),
            Recompute::DotsExceptMlpwi => "dots-except-mlpwi".into(),
            Recompute::DotsExceptMlp => "dots-except-mlp".into(),
            Recompute::Full => "full".into(),
        }
    }
    pub fn parse(s: &str) -> Option<Recompute> {
        let n = s.trim().to_ascii_lowercase().replace('_', "-");
        match n.as_str() {
            "matmul" | "matmuls" | "dots-saveable" => return Some(Recompute::Dots),
            "op" | "op-sac" | "per-op" => return Some(Recompute::SelectiveOp),
            "save-dot-except-mlpwi" => return Some(Recompute::DotsExceptMlpwi),
            "save-dot-except-mlp" => return Some(Recompute::DotsExceptMlp),
            _ => {}
        }
        if let Some(r) = Recompute::ALL.into_iter().find(|r| r.name() == n) {
            return Some(r);
        }
        match Modules::parse(s) {
            Ok(m) if !m.is_empty() => Some(Recompute::Modules(m)),
            _ => None,
        }
    }
    /// The modules a level recomputes, where a module set says it
    /// (selective is core_attn).
    pub fn modules(self) -> Modules {
        match self {
            Recompute::Selective => Modules::CORE_ATTN,
            Recompute::Modules(m) => m,
            _ => Modules::default(),
        }
    }
}

/// How the attention core keeps what its backward pass needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Attention {
    /// FlashAttention (Dao et al. 2022): the output and one log-sum-exp per
    /// head and token; the score matrix is recomputed tile by tile in
    /// backward. What modern stacks run.
    Flash,
    /// The score matrix materialised and kept (Megatron-LM before flash
    /// attention; Korthikanti et al.'s 5 a s^2 b with dropout).
    Eager,
}

impl Attention {
    pub const ALL: [Attention; 2] = [Attention::Flash, Attention::Eager];
    pub fn name(self) -> &'static str {
        match self {
            Attention::Flash => "flash",
            Attention::Eager => "eager",
        }
    }
    pub fn parse(s: &str) -> Option<Attention> {
        let s = s.trim().to_ascii_lowercase();
        Attention::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// How the loss holds the logits at its peak, the start of backward
/// ([`TrainingAssumptions::cross_entropy`]), in bytes per logit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrossEntropy {
    /// One fp32 copy, 4 bytes: a fused or vocabulary-parallel loss that
    /// computes the softmax in place (Megatron-Core's
    /// `fused_vocab_parallel_cross_entropy`, XLA's fusion); a compiled
    /// PyTorch loss holds about as much (the 16-bit logits it saves and
    /// their 16-bit gradient).
    Fused,
    /// Eager PyTorch's `cross_entropy(logits.float(), labels)`, as
    /// torchtitan's train.py calls it. On one device the forward holds the
    /// 16-bit logits (2), their fp32 copy (4) and the log-softmax output
    /// (4), which it saves; backward then holds that output, the loss's
    /// dense gradient of it (4) and the gradient of the log-softmax's input
    /// (4): 12 bytes per logit at the peak (the 16-bit logits are freed
    /// first: torchtitan's `del pred`). With the vocabulary split over tp
    /// ranks, PyTorch's loss parallel (torch/distributed/tensor/parallel/
    /// loss.py) computes the backward as `(grad_input + torch.exp(x)) *
    /// grad_output` beside the saved output x and a zeroed `grad_input`:
    /// x, `grad_input`, the exponential and the sum, 16 bytes per logit.
    Eager,
}

impl CrossEntropy {
    pub const ALL: [CrossEntropy; 2] = [CrossEntropy::Fused, CrossEntropy::Eager];
    pub fn name(self) -> &'static str {
        match self {
            CrossEntropy::Fused => "fused",
            CrossEntropy::Eager => "eager",
        }
    }
    pub fn parse(s: &str) -> Option<CrossEntropy> {
        let s = s.trim().to_ascii_lowercase();
        CrossEntropy::ALL.into_iter().find(|c| c.name() == s)
    }
    /// Bytes per logit the loss holds at its peak, the vocabulary split
    /// over `tp` ranks.
    pub fn bytes_per_logit(self, tp: u32) -> f64 {
        match self {
            CrossEntropy::Fused => 4.0,
            CrossEntropy::Eager if tp > 1 => 16.0,
            CrossEntropy::Eager => 12.0,
        }
    }
}

/// What a run in a format narrower than 16 bits (fp8, fp4) holds in
/// memory ([`TrainingAssumptions::low_precision_storage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LowPrecisionStorage {
    /// Weights, gradients and saved activations at the format's width,
    /// roughly as Megatron-Core with Transformer Engine holds them (fp8
    /// weights with `fp8_param`, fp8 copies of the linear layers' inputs
    /// saved for backward).
    Narrow,
    /// All three at 16 bits, the narrow format only inside the products:
    /// torchao's float8 training, which casts at each product (torchtitan's
    /// Table 1 reads 82.7 GiB in bf16 and 82.5 GiB in Float8 for the same
    /// layout, both compiled).
    Bf16,
}

impl LowPrecisionStorage {
    pub const ALL: [LowPrecisionStorage; 2] =
        [LowPrecisionStorage::Narrow, LowPrecisionStorage::Bf16];
    pub fn name(self) -> &'static str {
        match self {
            LowPrecisionStorage::Narrow => "narrow",
            LowPrecisionStorage::Bf16 => "bf16",
        }
    }
    pub fn parse(s: &str) -> Option<LowPrecisionStorage> {
        let s = s.trim().to_ascii_lowercase();
        LowPrecisionStorage::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// The width gradients are held and reduced at
/// ([`TrainingAssumptions::grad_precision`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GradPrecision {
    /// At the width the weights are held at (2 bytes in a bf16 run). With
    /// ZeRO 3 this also counts PyTorch FSDP2's sharded fp32 gradients: its
    /// fp32 sharded weights double as the master copy, so 4 + 4 + 8 bytes
    /// a parameter come to the model's 2 + 2 + 12.
    Param,
    /// fp32 whatever the weights: Megatron-Core's `main_grad` buffer, its
    /// default for bf16 (megatron/training/arguments.py: "bfloat16
    /// requires gradient accumulation and all-reduce to be done in fp32",
    /// `accumulate_allreduce_grads_in_fp32`, passed on as
    /// `grad_reduce_in_fp32`): 4 bytes a parameter held, whole under its
    /// distributed optimizer (ZeRO 1), and reduced in fp32.
    Fp32,
}

impl GradPrecision {
    pub const ALL: [GradPrecision; 2] = [GradPrecision::Param, GradPrecision::Fp32];
    pub fn name(self) -> &'static str {
        match self {
            GradPrecision::Param => "param",
            GradPrecision::Fp32 => "fp32",
        }
    }
    pub fn parse(s: &str) -> Option<GradPrecision> {
        let s = s.trim().to_ascii_lowercase();
        GradPrecision::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// Whether a device's measured matmul ceiling (`[device.matmul]`) scales
/// the compute efficiency of training ([`TrainingAssumptions::matmul_ceiling`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatmulCeiling {
    /// A device with a measured ceiling reaches eta_c x its share of peak /
    /// the reference device's ([`step::matmul_ratio`]).
    Measured,
    /// Every device reaches eta_c of its peak.
    Flat,
}

impl MatmulCeiling {
    pub const ALL: [MatmulCeiling; 2] = [MatmulCeiling::Measured, MatmulCeiling::Flat];
    pub fn name(self) -> &'static str {
        match self {
            MatmulCeiling::Measured => "measured",
            MatmulCeiling::Flat => "flat",
        }
    }
    pub fn parse(s: &str) -> Option<MatmulCeiling> {
        let s = s.trim().to_ascii_lowercase();
        MatmulCeiling::ALL.into_iter().find(|c| c.name() == s)
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
    pub attention: Attention,
    /// Dropout after the attention and the MLP (and on the scores under
    /// eager attention): one mask byte per element kept. Off for modern
    /// pre-training (Llama, Mistral, Qwen configs set it to 0).
    pub dropout: bool,
    /// Layers fewer on the first and last pipeline stages, which also hold
    /// the embedding and the output head (Llama 3: one each).
    pub edge_layers: u32,
    /// Micro-batches an interleaved schedule runs back to back on one
    /// model chunk before the next (Llama 3's N, Dubey et al. 2024 section
    /// 3.3.2); 0 = the pipeline depth p, Megatron-LM's depth-first
    /// schedule. Fewer hold fewer micro-batches in flight.
    pub contiguous: u32,
    /// Offload what each layer keeps for backward to host memory (MaxText's
    /// `offload` remat settings, Megatron-Core's activation offloading):
    /// the device holds only [`OFFLOAD_LAYERS_ON_DEVICE`] layers' worth and
    /// the copies cross the device's host link
    /// ([`crate::solver::types::Hardware::host_bandwidth`]).
    pub offload: bool,
}

/// Layers of one micro-batch whose kept activations a device holds under
/// offloading, an assumption: the layer computing, the one whose copy to
/// (or from) the host is under way, and the next one prefetched (forward:
/// written out while the next computes; backward: the next needed fetched
/// while the current one's gradients run).
pub const OFFLOAD_LAYERS_ON_DEVICE: f64 = 3.0;

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
            attention: Attention::Flash,
            dropout: false,
            edge_layers: 0,
            contiguous: 0,
            offload: false,
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

    /// Bytes per element of weights, gradients and activations as held in
    /// memory: the format's, or 16 bits for a narrower format a stack
    /// holds at 16 bits ([`LowPrecisionStorage::Bf16`]).
    pub fn stored_bytes(&self, t: &TrainingAssumptions) -> f64 {
        let e = self.element_bytes();
        if e < 2.0 && t.low_precision_storage == LowPrecisionStorage::Bf16 {
            2.0
        } else {
            e
        }
    }

    /// Bytes per element of the gradients as held and reduced: the weights'
    /// ([`TrainingRun::stored_bytes`]), or 4 with
    /// [`GradPrecision::Fp32`].
    pub fn grad_bytes(&self, t: &TrainingAssumptions) -> f64 {
        match t.grad_precision {
            GradPrecision::Param => self.stored_bytes(t),
            GradPrecision::Fp32 => self.stored_bytes(t).max(4.0),
        }
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

/// Where a practitioner starts, the one set of training defaults: what the
/// Training view opens on and what `ridgeline train` takes for each flag
/// not given. Eight devices of FSDP (ZeRO 3, PyTorch's and torchtitan's
/// way to data-parallel training) with FlashAttention and no
/// recomputation (Megatron-LM's default; the fixes of a run that does not
/// fit name the recomputation that would), micro-batches of one sequence,
/// 4M tokens per step (Llama 3's 405B ran 4M tokens per step at first,
/// Dubey et al. 2024, section 3.4.1) of the model's context up to 8k.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    pub devices: u32,
    pub zero: u8,
    pub recompute: Recompute,
    pub micro_batch: u32,
    pub global_batch_tokens: f64,
    /// The sequence is the model's context, at most this.
    pub seq_max: f64,
    pub attention: Attention,
}

pub const DEFAULTS: Defaults = Defaults {
    devices: 8,
    zero: 3,
    recompute: Recompute::None,
    micro_batch: 1,
    global_batch_tokens: 4.0 * 1024.0 * 1024.0,
    seq_max: 8192.0,
    attention: Attention::Flash,
};

impl Defaults {
    /// The sequence a run of `d` uses when none is set.
    pub fn seq_for(&self, d: &Decoder) -> f64 {
        (d.max_context as f64).clamp(1.0, self.seq_max)
    }

    /// The data-parallel degree when neither devices nor dp is given:
    /// what `devices` leaves after a replica of `inner` devices, or one
    /// replica when a replica needs more (or does not divide them).
    pub fn dp_for(&self, inner: u64) -> u32 {
        if inner > 0 && inner <= self.devices as u64 && (self.devices as u64).is_multiple_of(inner)
        {
            (self.devices as u64 / inner) as u32
        } else {
            1
        }
    }
}

/// Named training assumptions, each overridable (`ridgeline train
/// --dp-overlap ...`). docs/training.md gives the figure each
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
    /// How much longer the kernels a collective overlaps take while it
    /// runs beside them: the collective's kernels hold streaming
    /// multiprocessors and memory bandwidth the products would use, so a
    /// hidden collective is not free. A collective hidden for H seconds
    /// costs the step H x s / (1 + s): in those H seconds the kernels
    /// beside it do H / (1 + s) seconds of their work. Charged on GPUs,
    /// whose collectives run as kernels on the cores the products use; not
    /// on a torus (TPU ICI), whose DMA engines move them beside the cores.
    /// See [`DEFAULT_OVERLAP_SLOWDOWN`].
    pub overlap_slowdown: f64,
    /// Mean time between failures of one device (with its share of host,
    /// network and software), seconds.
    pub device_mtbf_s: f64,
    /// Checkpoint write bandwidth per device, byte/s.
    pub checkpoint_bandwidth: f64,
    /// Time to restart after a failure (reschedule, reload the
    /// checkpoint), seconds.
    pub restart_s: f64,
    /// Copies of each token an MoE layer's experts hold room for, over
    /// top-k: 1 is dropless routing with balanced experts (Megatron-Core's
    /// default, no capacity limit); a capacity factor of 1.25 pads each
    /// expert's buffer by a quarter (Fedus et al. 2022, Switch Transformer,
    /// section 2.2).
    pub moe_capacity: f64,
    /// Fraction of peak FLOP/s the attention core (FlashAttention's forward
    /// and backward kernels) reaches, for the bf16 math the profile's
    /// compute efficiency is of. 0.6: FlashAttention-2 reaches "50-73% of
    /// the theoretical maximum FLOPs/s on A100" (Dao 2023, abstract) and
    /// FlashAttention-3 75% in the forward pass on H100 (Shah et al. 2024,
    /// abstract), its backward less.
    pub attention_efficiency: f64,
    /// Seconds an MoE layer spends per routed copy of a token (top-k
    /// copies per token), forward and backward together, beyond its
    /// products and bytes: the router's top-k, the permutation into expert
    /// order and back, the dispatch and combine bookkeeping and the grouped
    /// GEMMs' losses on small per-expert shapes, which the FLOPs and bytes
    /// do not show. Fitted on published MoE training runs (see
    /// [`DEFAULT_MOE_TOKEN_TIME_S`]); 0 for a dense model.
    pub moe_token_time_s: f64,
    /// Whether a device's measured matmul ceiling (`[device.matmul]`)
    /// scales the compute efficiency. Measured by default: the share of
    /// peak large matmuls reach differs by generation and vendor (A100
    /// 87%, H100 80%, B200 78%, MI300X 51% in Bekman's MAMF table), which
    /// a flat eta_c hides. docs/training.md gives what it does to the
    /// published runs.
    pub matmul_ceiling: MatmulCeiling,
    /// How the loss holds the logits: fused (one fp32 copy, Megatron-Core,
    /// XLA) by default; eager PyTorch (torchtitan) holds three at its peak.
    pub cross_entropy: CrossEntropy,
    /// Whether an fp8 (or narrower) run holds its tensors at the format's
    /// width (by default) or at 16 bits (torchao).
    pub low_precision_storage: LowPrecisionStorage,
    /// Whether gradients are held and reduced at the weights' width (by
    /// default) or in fp32 (Megatron-Core's main gradients).
    pub grad_precision: GradPrecision,
    /// What a caching allocator reserves beyond the tensors alive at its
    /// peak, as a share of them: freed blocks it keeps for reuse, the
    /// rounding of block sizes, blocks held per stream. What the model
    /// counts is the tensors alive (PyTorch's peak allocated); loggers that
    /// print the allocator's pool (torchtitan's "memory: ... GiB", which is
    /// `max_reserved`; nvidia-smi) read this much more. It does not enter
    /// the fit verdict, whose usable share of the capacity
    /// (`usable_memory`) leaves the room. See
    /// [`DEFAULT_ALLOCATOR_OVERHEAD`].
    pub allocator_overhead: f64,
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
/// The share of its bf16 peak the reference device's large matmuls reach,
/// which the compute efficiency of 16-bit training is relative to: the
/// A100 SXM's, 271.2 of 312 TFLOP/s (Bekman, "Machine Learning
/// Engineering", Maximum Achievable Matmul FLOPS table, torch 2.6 with
/// CUDA 12.6), the device the efficiencies of the 16-bit era were
/// measured on. A device with a measured ceiling (`[device.matmul]`)
/// runs its products at eta_c x its share / this one
/// ([`step::matmul_ratio`]).
pub const REFERENCE_MATMUL_SHARE_16: f64 = 271.2 / 312.0;
/// The same for 8-bit training, relative to the H100 SXM's fp8 ceiling,
/// 1402.6 of 1978.9 TFLOP/s (same table, torch 2.7 with CUDA 12.6), the
/// first device fp8 training ran on.
pub const REFERENCE_MATMUL_SHARE_8: f64 = 1402.6 / 1978.9;
/// See [`TrainingAssumptions::attention_efficiency`].
pub const DEFAULT_ATTENTION_EFFICIENCY: f64 = 0.6;
/// See [`TrainingAssumptions::moe_token_time_s`]: fitted by
/// [`predict::fit_moe_token_time`] on the MoE runs of
/// catalog/training (Megatron-Bridge's Qwen3-30B-A3B and DeepSeek-V3,
/// NeMo's Mixtral 8x7B, MaxText's Mixtral on TPU v5p), rounded; a test
/// keeps it equal to the fit. `validate --kind train` refits it without
/// each source for that source's held-out figures.
pub const DEFAULT_MOE_TOKEN_TIME_S: f64 = 0.22e-6;
/// Lee et al. 2025, "Characterizing Compute-Communication Overlap in
/// GPU-Accelerated Distributed Deep Learning: Performance and Power
/// Implications" (arXiv:2507.03114), abstract: overlapping computation and
/// communication "can result in an average computational slowdown of
/// 18.9%, with a maximum of 40.0% slowdown", against the same compute with
/// no communication beside it, measured on 4 A100s, H100s, MI250s and
/// MI210s training GPT and LLaMA models. Not fitted on any run this
/// project ships; measured on GPUs only (a TPU moves its collectives with
/// DMA engines, so it may lose less).
pub const DEFAULT_OVERLAP_SLOWDOWN: f64 = 0.189;
/// PyTorch's caching allocator as torchtitan runs it, whose launcher sets
/// expandable segments since October 2024
/// (`PYTORCH_ALLOC_CONF="expandable_segments:True"`, pytorch/torchtitan PR
/// #643): the ratios of peak reserved to peak active memory torchtitan's
/// own memory monitor logged in its pull requests after that. Llama 3 8B
/// on 8 GPUs through that launcher, 41.17 and 49.59 GiB (PR #699, 1.204);
/// the two below do not say how they were launched:
/// a DeepSeek-V3 16B MoE layer forward and backward, 5.926 and 7.225 GiB,
/// then 5.051 and 5.910 (PR #1974, 1.219 and 1.170); DeepSeek-V3 671B on
/// FSDP 256 with three save selectors, 96.596 and 107.971, 126.115 and
/// 141.529, 128.189 and 143.717 GiB (PR #4153, 1.118, 1.122, 1.121). The
/// median of the six ratios is (1.122 + 1.170) / 2 = 1.146: 0.15. None is
/// a run `ridgeline validate --kind train` scores. Without expandable
/// segments the same monitor read more (PR #165, FSDP2 on Llama at 2k
/// tokens: 1.20 to 1.37).
pub const DEFAULT_ALLOCATOR_OVERHEAD: f64 = 0.15;
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
            overlap_slowdown: DEFAULT_OVERLAP_SLOWDOWN,
            device_mtbf_s: DEFAULT_DEVICE_MTBF_S,
            checkpoint_bandwidth: DEFAULT_CHECKPOINT_BANDWIDTH,
            restart_s: DEFAULT_RESTART_S,
            moe_capacity: 1.0,
            attention_efficiency: DEFAULT_ATTENTION_EFFICIENCY,
            moe_token_time_s: DEFAULT_MOE_TOKEN_TIME_S,
            matmul_ceiling: MatmulCeiling::Measured,
            cross_entropy: CrossEntropy::Fused,
            low_precision_storage: LowPrecisionStorage::Narrow,
            grad_precision: GradPrecision::Param,
            allocator_overhead: DEFAULT_ALLOCATOR_OVERHEAD,
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
    // With edge layers, the first chunk of the first stage may hold only
    // the embedding and the last chunk of the last only the head (Llama 3's
    // schedule, Dubey et al. 2024 section 3.3.2: 126 layers + 2 in 16 x 8
    // chunks), so those two count as chunks.
    let stages = l.pp.saturating_mul(l.v);
    let chunks = d
        .layers
        .saturating_add(run.edge_layers.min(1).saturating_mul(2));
    if stages > chunks {
        return Err(unsupported(format!(
            "PP {} x v {} puts more stages than the {} layers of {}",
            l.pp, l.v, d.layers, model.id
        )));
    }
    if run.edge_layers > 0 {
        if l.pp < 3 {
            return Err(unsupported(
                "fewer layers on the first and last stages (edge layers) need 3 or more pipeline stages",
            ));
        }
        if l.edge_layers(d.layers, run.edge_layers) < 1.0 {
            return Err(unsupported(format!(
                "{} edge layers fewer leave the first and last of {} stages without a layer of the {} of {}",
                run.edge_layers, l.pp, d.layers, model.id
            )));
        }
    }
    if run.contiguous > 0 && l.v <= 1 {
        return Err(unsupported(
            "contiguous micro-batches (N) apply to an interleaved schedule: set v > 1 or leave N at the pipeline depth",
        ));
    }
    if l.v > 1 && l.pp == 1 {
        return Err(unsupported(
            "interleaved stages (v > 1) need pipeline parallelism (pp > 1)",
        ));
    }
    if let Recompute::Modules(m) = run.recompute {
        let named = |what: Modules| {
            Modules::NAMED
                .iter()
                .find(|(n, _)| *n == what)
                .map_or("", |(_, name)| *name)
        };
        let lacking = [
            (
                Modules::MLA_UP_PROJ,
                d.mla.is_none(),
                "has no multi-head latent attention",
            ),
            (Modules::MOE_ACT, d.moe.is_none(), "is dense"),
            (Modules::MOE, d.moe.is_none(), "is dense"),
            (
                Modules::SHARED_EXPERTS,
                d.moe.is_none_or(|e| e.shared_ffn == 0),
                "has no shared experts",
            ),
        ];
        if let Some((what, _, why)) = lacking
            .iter()
            .find(|(what, no, _)| *no && m.contains(*what))
        {
            return Err(unsupported(format!(
                "recompute module {} would recompute nothing: {} {why}; drop it from the modules",
                named(*what),
                model.id
            )));
        }
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
    /// One embedding table, V h.
    pub embedding: f64,
    /// Tables the model has: 1 when the head is tied to the input
    /// embedding, 2 otherwise.
    pub tables: f64,
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
            embedding: d.embedding_params(),
            tables: if d.tied_embeddings { 1.0 } else { 2.0 },
        }
    }

    /// Dense and expert parameters of one layer (the embeddings apart;
    /// experts spread evenly over the layers).
    pub fn per_layer(&self) -> (f64, f64) {
        let l = self.layers.max(1) as f64;
        (
            ((self.dense - self.tables * self.embedding) / l).max(0.0),
            self.experts / l,
        )
    }

    /// One layer's (dense, experts) on one device: over tp, experts over
    /// tp x ep.
    pub fn layer_per_device(&self, l: &Layout) -> (f64, f64) {
        let (dense, experts) = self.per_layer();
        let tp = l.tp as f64;
        (dense / tp, experts / (tp * l.ep as f64))
    }

    /// (dense, experts) on one device of `stage` holding `layers` layers,
    /// before ZeRO: its layers, plus the input embedding on the first
    /// stage and the output head (or a copy of the tied table) on the last;
    /// everything over tp (vocabulary-parallel embeddings), experts over
    /// tp x ep.
    pub fn on_stage(&self, l: &Layout, layers: f64, stage: memory::Stage) -> (f64, f64) {
        let (dense, experts) = self.layer_per_device(l);
        let tables = match stage {
            memory::Stage::Only => self.tables,
            memory::Stage::First | memory::Stage::Last => 1.0,
            memory::Stage::Second => 0.0,
        };
        (
            layers * dense + tables * self.embedding / l.tp as f64,
            layers * experts,
        )
    }

    /// Parameters on the device with the most, before ZeRO, with `trim`
    /// fewer layers on the first and last stages. Returns (dense, experts).
    pub fn per_device(&self, l: &Layout, trim: u32) -> (f64, f64) {
        if l.pp <= 1 {
            return self.on_stage(l, self.layers as f64, memory::Stage::Only);
        }
        let edge = self.on_stage(l, l.edge_layers(self.layers, trim), memory::Stage::First);
        let middle = self.on_stage(
            l,
            l.stage_layers_trimmed(self.layers, trim),
            memory::Stage::Second,
        );
        if l.pp > 2 && middle.0 + middle.1 > edge.0 + edge.1 {
            middle
        } else {
            edge
        }
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
    let memory = memory::memory(hw, d, &params, run, a, t);
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

/// Check the training assumptions: overlaps and the overlap slowdown
/// from 0 to 1, positive MTBF and
/// bandwidth, a restart time of zero or more.
pub fn validate_training_assumptions(t: &TrainingAssumptions) -> Result<()> {
    for (field, v) in [
        ("DP overlap", t.dp_overlap),
        ("TP overlap", t.tp_overlap),
        ("EP overlap", t.ep_overlap),
        ("CP overlap", t.cp_overlap),
        ("overlap slowdown", t.overlap_slowdown),
        ("allocator overhead", t.allocator_overhead),
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
    super::error::fraction("attention efficiency", t.attention_efficiency)?;
    super::error::non_negative("MoE token time", t.moe_token_time_s)?;
    if !(1.0..=16.0).contains(&t.moe_capacity) {
        return Err(SolverError::Invalid {
            field: "MoE capacity factor",
            value: t.moe_capacity,
            expected: "a number from 1 to 16",
        });
    }
    Ok(())
}
