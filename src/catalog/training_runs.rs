//! Published training runs (`catalog/training/*.toml`, `[[run]]`): what a
//! source measured of one training configuration, with the exact layout,
//! so that `ridgeline validate --kind train` can predict it. Every row is a
//! run that happened, so the fit verdict must agree that it fits.

use super::convert::{Converted, names, source, year};
use super::fields::Fields;
use crate::solver::Precision;
use crate::solver::training::{
    Attention, CrossEntropy, GradPrecision, Layout, Optimizer, Recompute, TrainingRun,
};

pub use crate::solver::training::predict::{MfuFlops, Quantity as TrainMetric};

/// The key a metric is written with.
pub fn metric_key(m: TrainMetric) -> &'static str {
    match m {
        TrainMetric::TokensPerSecondPerDevice => "tokens_per_s_per_device",
        TrainMetric::Mfu(_) => "mfu",
        TrainMetric::StepTime => "step_time_s",
        TrainMetric::PeakMemory | TrainMetric::ReservedMemory => "peak_memory_bytes",
    }
}

/// The family of a training stack: the framework its parallelism and
/// kernels come from, which sets how close to the roofline its runs get.
/// Megatron-Bridge and NeMo build on Megatron-Core (with Transformer
/// Engine); llm-foundry (Composer) and torchtitan on PyTorch FSDP; MaxText
/// and Pathways on JAX/XLA. Any other stack is its own family.
pub fn stack_family(stack: &str) -> &str {
    match stack {
        "megatron-bridge" | "nemo" | "megatron-lm" => "megatron-core",
        "llm-foundry" | "torchtitan" => "pytorch-fsdp",
        "maxtext" | "pathways-jax" => "jax-xla",
        other => other,
    }
}

/// One published training run.
#[derive(Debug, Clone)]
pub struct TrainingMeasurement {
    pub id: String,
    pub model: String,
    pub hardware: String,
    pub stack: String,
    pub stack_version: String,
    pub year: u16,
    pub source: String,
    pub quote: String,
    pub metric: TrainMetric,
    pub value: f64,
    pub run: TrainingRun,
    pub notes: Option<String>,
    pub origin: String,
    /// How this run's loss held the logits, where it differs from its
    /// stack profile's (`cross_entropy`; e.g. a compiled loss in a stack
    /// whose loss is eager by default).
    pub cross_entropy: Option<CrossEntropy>,
    /// The width this run held and reduced its gradients at, where it
    /// differs from its stack profile's (`grad_precision`; e.g. Megatron-LM
    /// run with its fp32 default where the stack's published performance
    /// recipes reduce in bf16).
    pub grad_precision: Option<GradPrecision>,
    /// What a peak-memory reading counts, where the source says.
    pub memory_kind: Option<MemoryKind>,
}

/// What a peak-memory reading counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// The tensors alive at once (PyTorch's peak allocated bytes): what
    /// the model counts.
    Allocated,
    /// The caching allocator's pool at its largest (peak reserved bytes),
    /// which also keeps blocks freed and not returned.
    Reserved,
}

impl MemoryKind {
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Allocated => "allocated",
            MemoryKind::Reserved => "reserved",
        }
    }
    pub fn parse(s: &str) -> Option<MemoryKind> {
        match s.trim() {
            "allocated" => Some(MemoryKind::Allocated),
            "reserved" => Some(MemoryKind::Reserved),
            _ => None,
        }
    }
}

impl TrainingMeasurement {
    /// The source a leave-one-source-out check holds out together: the
    /// file it comes from (one file a publication, whose several pages or
    /// tables are one source).
    pub fn source_key(&self) -> &str {
        &self.origin
    }
}

pub const RUN_KEYS: &[&str] = &[
    "id",
    "model",
    "hardware",
    "stack",
    "stack_version",
    "year",
    "source",
    "quote",
    "metric",
    "value",
    "mfu_flops",
    "memory_kind",
    "devices",
    "dp",
    "tp",
    "pp",
    "v",
    "cp",
    "ep",
    "zero",
    "recompute",
    "attention",
    "micro_batch",
    "global_batch",
    "seq",
    "precision",
    "edge_layers",
    "contiguous",
    "offload",
    "dropout",
    "optimizer",
    "cross_entropy",
    "grad_precision",
    "notes",
];

/// An optional key naming one of a few values: Some(None) when absent,
/// Some(Some(v)) when it names one, None (a problem at the key, saying
/// what it takes) when it names none.
fn opt_named<T>(
    f: &mut Fields,
    key: &'static str,
    parse: impl Fn(&str) -> Option<T>,
    takes: &str,
) -> Option<Option<T>> {
    match f.opt_string(key) {
        None => Some(None),
        Some((s, at)) => {
            let v = parse(&s);
            if v.is_none() {
                f.problem(at, format!("{key} must be {takes}"));
            }
            v.map(Some)
        }
    }
}

/// Read one `[[run]]`.
pub fn run(f: &mut Fields, origin: &str) -> Option<Converted<TrainingMeasurement>> {
    let (id, _) = names(f, "run", false);
    let text = |f: &mut Fields, key| f.string(key).map(|(s, _)| s);
    let model = text(f, "model");
    let hardware = text(f, "hardware");
    let stack = text(f, "stack");
    let stack_version = text(f, "stack_version");
    let year = year(f);
    let source = source(f, "source");
    let quote = text(f, "quote");
    let metric_name = f.string("metric");
    let value = f.number(
        "value",
        1e-9..=1e16,
        "a positive number in the metric's unit",
    );
    let mfu_flops = f.opt_string("mfu_flops");
    let memory_kind = opt_named(f, "memory_kind", MemoryKind::parse, "allocated or reserved");
    let metric = metric_name.and_then(|(s, at)| match s.as_str() {
        "tokens_per_s_per_device" => Some(TrainMetric::TokensPerSecondPerDevice),
        "step_time_s" => Some(TrainMetric::StepTime),
        "peak_memory_bytes" => {
            if memory_kind == Some(None) {
                f.problem(
                    at,
                    "a peak_memory_bytes reading needs memory_kind = \"allocated\" or \"reserved\": what the source's figure counts",
                );
                None
            } else if memory_kind == Some(Some(MemoryKind::Reserved)) {
                Some(TrainMetric::ReservedMemory)
            } else {
                Some(TrainMetric::PeakMemory)
            }
        }
        "mfu" => match mfu_flops.as_ref().map(|(m, at)| (MfuFlops::parse(m), *at)) {
            Some((Some(m), _)) => Some(TrainMetric::Mfu(m)),
            Some((None, at)) => {
                f.problem(at, "mfu_flops must be 6n, 6n+12lhqt or 6n+6lhqt");
                None
            }
            None => {
                f.problem(at, "an mfu needs mfu_flops: 6n, 6n+12lhqt or 6n+6lhqt");
                None
            }
        },
        _ => {
            f.problem(
                at,
                format!(
                    "unknown metric {s:?}; use tokens_per_s_per_device, mfu, step_time_s or peak_memory_bytes"
                ),
            );
            None
        }
    });
    let degree = |f: &mut Fields, key| f.opt_whole(key, 1..=65_536).map_or(1, |(v, _)| v);
    let devices = f.whole("devices", 1..=65_536);
    let dp = degree(f, "dp");
    let tp = degree(f, "tp");
    let pp = degree(f, "pp");
    let v = degree(f, "v");
    let cp = degree(f, "cp");
    let ep = degree(f, "ep");
    let zero = f.whole("zero", 0..=3);
    let recompute = f.string("recompute").and_then(|(s, at)| {
        let r = Recompute::parse(&s);
        if r.is_none() {
            f.problem(at, format!("recompute must be {}", Recompute::EXPECTED));
        }
        r
    });
    let attention = opt_named(f, "attention", Attention::parse, "flash or eager")
        .map(|a| a.unwrap_or(Attention::Flash));
    let optimizer = opt_named(f, "optimizer", Optimizer::parse, "adam or adam-8bit")
        .map(|o| o.unwrap_or(Optimizer::Adam));
    let cross_entropy = opt_named(f, "cross_entropy", CrossEntropy::parse, "fused or eager");
    let grad_precision = opt_named(f, "grad_precision", GradPrecision::parse, "param or fp32");
    let micro_batch = f.whole("micro_batch", 1..=65_536);
    let global_batch = f.number("global_batch", 1.0..=1e12, "tokens per optimizer step");
    let seq = f.number("seq", 1.0..=1e9, "tokens per sequence");
    let precision = f.string("precision").and_then(|(s, at)| {
        let p = Precision::parse(&s);
        if p.is_none() {
            f.problem(at, format!("unknown precision {s:?}"));
        }
        p
    });
    let edge_layers = f.opt_whole("edge_layers", 0..=65_536).map_or(0, |(v, _)| v);
    let contiguous = f.opt_whole("contiguous", 0..=65_536).map_or(0, |(v, _)| v);
    let offload = f.opt_bool("offload").unwrap_or(false);
    let dropout = f.opt_bool("dropout").unwrap_or(false);
    let notes = f.opt_string("notes");
    let layout = Layout {
        dp,
        tp,
        pp,
        ep,
        cp,
        v,
    };
    if let Some((n, at)) = devices
        && layout.devices() != n as u64
    {
        f.problem(
            at,
            format!(
                "devices {n} is not dp x tp x pp x cp x ep = {}",
                layout.devices()
            ),
        );
    }
    if f.has_problems() {
        return None;
    }
    let (id, id_at) = id?;
    Some(Converted {
        entry: TrainingMeasurement {
            id,
            model: model?,
            hardware: hardware?,
            stack: stack?,
            stack_version: stack_version?,
            year: year?,
            source: source?,
            quote: quote?,
            metric: metric?,
            value: value?.0,
            run: TrainingRun {
                global_batch_tokens: global_batch?.0,
                micro_batch: micro_batch?.0,
                seq: seq?.0,
                layout,
                zero: zero?.0 as u8,
                recompute: recompute?,
                precision: precision?,
                optimizer: optimizer?,
                attention: attention?,
                dropout,
                edge_layers,
                contiguous,
                offload,
            },
            notes: notes.map(|n| n.0),
            origin: origin.to_string(),
            cross_entropy: cross_entropy?,
            grad_precision: grad_precision?,
            memory_kind: memory_kind?,
        },
        id_at,
        alias_at: Vec::new(),
    })
}
