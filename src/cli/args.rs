//! Command-line flags. Every quantity flag takes units ("8k", "50ms", "70%")
//! and is checked when parsed, so a bad value exits with code 2 and a
//! message that names the flag and shows a valid form.

use super::output::echo;
use crate::solver::target::SynthTarget;
use crate::solver::units::{self, Kind};
use crate::solver::{Phase, Precision};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Where the global flags (--catalog, --ascii, --wide) come in a help
/// page: after a subcommand's own options (numbered from 0 as declared)
/// and before -h and -V (which clap puts at 999).
const GLOBAL_ORDER: usize = 900;

/// The width `--help` wraps at when standard output is not a terminal (on
/// one, the terminal's width up to `max_term_width`).
pub const HELP_WIDTH: usize = 80;

#[derive(Debug, Parser)]
#[command(
    name = "ridgeline",
    version,
    max_term_width = 100,
    about = "A terminal workbench for roofline analysis of machine-learning workloads",
    long_about = "A terminal workbench for roofline analysis of machine-learning workloads.\n\nWith no subcommand it opens the interactive workbench. The subcommands answer the same questions from the same solver, for scripts: eval, ops, sens, synth, compare, sweep, serve, fleet, train, scale, collective, explore, zoo, validate, catalog, import, lesson, plot, share. A --model takes a catalog id or the path of a Hugging Face config.json. Every figure comes from a calibration profile (--profile, default `default`) with an error band."
)]
pub struct Cli {
    /// A catalog directory (hardware/*.toml, models/*.toml, regions.toml) to lay over the built-in one.
    #[arg(long, global = true, value_name = "DIR", display_order = GLOBAL_ORDER)]
    pub catalog: Option<PathBuf>,
    /// Draw with plain ASCII (no Braille or box drawing); tables mark what
    /// does not fit with "x" rather than "✗".
    #[arg(long, global = true, display_order = GLOBAL_ORDER + 1)]
    pub ascii: bool,
    /// Tables show every column. Without it a table fits the terminal
    /// ($COLUMNS, else 80 columns) by leaving out its optional columns.
    #[arg(long, global = true, display_order = GLOBAL_ORDER + 2)]
    pub wide: bool,
    /// Theme name for the workbench (dark, light, high-contrast, mono, or a user theme).
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Open the workbench on a scenario file (see assets/scenarios/).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Evaluate one workload on one device: latency, bottleneck, memory fit.
    Eval(EvalArgs),
    /// Sensitivity: elasticity of latency to each parameter, the binding constraint, headroom.
    Sens(SensArgs),
    /// Inverse roofline: the least hardware that meets a latency target, and the catalog devices that do.
    Synth(SynthArgs),
    /// One workload on several devices side by side.
    Compare(CompareArgs),
    /// Sweep the batch size: throughput, latency, bottleneck and the crossover batch.
    Sweep(SweepArgs),
    /// List the catalog with its figures.
    Zoo(ZooArgs),
    /// Serving figures for one replica: TTFT, inter-token and end-to-end latency, KV cache, cost, energy.
    Serve(ServeArgs),
    /// Size a fleet: the cheapest per-replica configuration that meets TTFT and inter-token SLAs at a request rate.
    Fleet(FleetArgs),
    /// Check catalog files.
    Catalog(CatalogArgs),
    /// The model against published measurements: each one, its prediction and error band, and the median and worst error.
    Validate(ValidateArgs),
    /// Training: step time and its parts, memory per device, MFU, the critical batch, the run's time, cost, energy and goodput; `--search` ranks layouts.
    Train(TrainArgs),
    /// Strong and weak scaling: tokens/s, MFU and efficiency against the ideal line over device counts, and the knee where adding devices stops paying.
    ///
    /// Without layout flags each count takes its fastest layout that fits (the layout search of `train --search`); any of --tp, --pp, --ep, --cp, --interleave, --zero, --recompute or --micro-batch pins the layout (a degree not given is 1), and dp is what each count leaves.
    Scale(ScaleArgs),
    /// One collective (all-reduce, all-gather, ...) over a device's links: time, bus bandwidth, each level.
    Collective(CollectiveArgs),
    /// Where the time of a step goes: each operator (QKV, attention, MLP, ..., collectives) on its own roofline.
    Ops(OpsArgs),
    /// The design space: every device x precision x TP x PP x batch, the feasible ones, and the Pareto front on two or three objectives (ITL, TTFT, throughput, cost, energy, devices).
    Explore(super::explore::ExploreArgs),
    /// Derive a model from a Hugging Face config.json (or a downloaded model's folder) and add it to the user catalog.
    Import(ImportArgs),
    /// Lessons: scripted tutorials whose captions the solver fills in; list, show, check.
    Lesson(super::lesson::LessonArgs),
    /// Plots as SVG figures for papers and slides: roofline, generations, sweep, train, operators.
    Plot(super::plot::PlotArgs),
    /// Host the workbench over SSH: each connection gets its own workbench; nobody gets a shell or a file.
    Share(super::share::ShareArgs),
    /// This machine: CPU, caches, memory and GPUs, each matched to the catalog; what `-H local` resolves to.
    Probe(ProbeArgs),
}

/// The model argument of a command: with the workload flags around it
/// (whose weight precision defaults to the model's checkpoint), or alone.
pub enum ModelArg<'a> {
    Workload {
        model: &'a mut String,
        prec: &'a mut PrecisionArgs,
    },
    Alone(&'a mut String),
}

impl<'a> ModelArg<'a> {
    fn workload(w: &'a mut WorkloadArgs) -> Self {
        ModelArg::Workload {
            model: &mut w.model,
            prec: &mut w.prec,
        }
    }
}

impl Command {
    /// The model argument, for the one resolver (`cli::resolve_model`); None
    /// for commands without one. Every command is listed: a new one must
    /// say whether it takes a model.
    pub fn model_arg(&mut self) -> Option<ModelArg<'_>> {
        match self {
            Command::Eval(a) => Some(ModelArg::workload(&mut a.workload)),
            Command::Sens(a) => Some(ModelArg::workload(&mut a.workload)),
            Command::Synth(a) => Some(ModelArg::workload(&mut a.workload)),
            Command::Compare(a) => Some(ModelArg::workload(&mut a.workload)),
            Command::Sweep(a) => Some(ModelArg::workload(&mut a.workload)),
            Command::Serve(a) => Some(ModelArg::Workload {
                model: &mut a.model,
                prec: &mut a.prec,
            }),
            Command::Fleet(a) => Some(ModelArg::Workload {
                model: &mut a.model,
                prec: &mut a.prec,
            }),
            Command::Train(a) => Some(ModelArg::Alone(&mut a.model)),
            Command::Scale(a) => Some(ModelArg::Alone(&mut a.model)),
            Command::Explore(a) => Some(ModelArg::Alone(&mut a.model)),
            Command::Ops(a) => Some(ModelArg::workload(&mut a.workload)),
            Command::Plot(a) => Some(match &mut a.kind {
                super::plot::PlotKind::Roofline(p) | super::plot::PlotKind::Generations(p) => {
                    ModelArg::workload(&mut p.compare.workload)
                }
                super::plot::PlotKind::Sweep(p) => ModelArg::workload(&mut p.sweep.workload),
                super::plot::PlotKind::Train(p) => ModelArg::Alone(&mut p.train.model),
                super::plot::PlotKind::Operators(p) => ModelArg::workload(&mut p.ops.workload),
                super::plot::PlotKind::Explore(p) => ModelArg::Alone(&mut p.explore.model),
            }),
            Command::Zoo(_)
            | Command::Catalog(_)
            | Command::Validate(_)
            | Command::Collective(_)
            | Command::Import(_)
            | Command::Lesson(_)
            | Command::Share(_)
            | Command::Probe(_) => None,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// A config.json, or the folder of a downloaded model holding one.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// The catalog id to write it under (lower-case kebab case) [default:
    /// from the config's name or its folder; `-imported` added when a
    /// built-in model has that id]. Without it, a config imported before
    /// (the same config.json, same parameters and shape) is replaced under
    /// its id and name.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// The display name [default: read off --id when given: hyphens become
    /// spaces, words start with a capital, sizes end in a capital
    /// (qwen2.5-14b -> "Qwen2.5 14B"); else the config's name or folder].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Output format: table (text) or json (one record: no CSV or Markdown
    /// table of rows).
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: RecordFormat,
}

/// The formats of a command that prints one record, not rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecordFormat {
    Table,
    Json,
}

impl From<RecordFormat> for Format {
    fn from(f: RecordFormat) -> Format {
        match f {
            RecordFormat::Table => Format::Table,
            RecordFormat::Json => Format::Json,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// Calibration profile to check every measurement with (`ridgeline zoo
    /// profiles`). Without it, each measurement is predicted with the
    /// profile of its stack (gpt-fast, llama.cpp, vllm, ...), or `default`
    /// when its stack has none.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Set one assumption of the profile, e.g. "kernel_time=3us" (repeatable).
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_assume, allow_hyphen_values = true)]
    pub assume: Vec<(String, String)>,
    /// Which measurements: those the profile was fitted on, the others
    /// (held out), or all.
    #[arg(long, value_enum, default_value = "all")]
    pub split: SplitArg,
    /// Only the summary, per profile and stack, as a Markdown table (what
    /// docs/validation.md quotes).
    #[arg(long)]
    pub summary: bool,
    /// Serving measurements (catalog/measurements) or published training
    /// runs (catalog/training), each predicted with its source left out.
    #[arg(long, value_enum, default_value = "serve")]
    pub kind: ValidateKind,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateKind {
    Serve,
    Train,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    Fit,
    Check,
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PhaseArg {
    Decode,
    Prefill,
}

impl From<PhaseArg> for Phase {
    fn from(p: PhaseArg) -> Phase {
        match p {
            PhaseArg::Decode => Phase::Decode,
            PhaseArg::Prefill => Phase::Prefill,
        }
    }
}

/// "KEY=VALUE", checked against the assumption keys when parsed.
fn parse_assume(s: &str) -> Result<(String, String), String> {
    let Some((k, v)) = s.split_once('=') else {
        return Err(format!(
            "{} must be KEY=VALUE, like kernel_time=3us",
            echo(s)
        ));
    };
    let (k, v) = (k.trim(), v.trim());
    let value = crate::catalog::profile::Value::Text(v);
    if crate::catalog::profile::is_training_key(k) {
        let mut probe = crate::solver::training::TrainingAssumptions::default();
        crate::catalog::profile::set_training(&mut probe, k, value)?;
    } else {
        let mut probe = crate::solver::Assumptions::default();
        crate::catalog::profile::set(&mut probe, k, value)?;
    }
    Ok((k.to_string(), v.to_string()))
}

fn quantity(s: &str, kind: Kind) -> Result<f64, String> {
    units::parse(s, kind).map_err(|e| e.to_string())
}

fn positive(s: &str, kind: Kind) -> Result<f64, String> {
    let v = quantity(s, kind)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{} must be greater than zero", echo(s)))
    }
}

pub(super) fn non_negative_time(s: &str) -> Result<f64, String> {
    let v = quantity(s, Kind::Time)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{} must be zero or more", echo(s)))
    }
}

fn positive_time(s: &str) -> Result<f64, String> {
    positive(s, Kind::Time)
}

/// A whole count >= 1 of `kind` ("8", "8k"), at most 1e9.
fn whole(s: &str, kind: Kind) -> Result<u64, String> {
    let v = quantity(s, kind)?;
    if v < 1.0 || v.fract() != 0.0 {
        return Err(format!("{} must be a whole number, 1 or more", echo(s)));
    }
    if v > 1e9 {
        return Err(format!("{} is larger than 1e9; is it a typo?", echo(s)));
    }
    Ok(v as u64)
}

/// A whole count >= 1 ("8", "8k" = 8000), at most 1e9.
pub fn parse_count(s: &str) -> Result<u64, String> {
    whole(s, Kind::Count)
}

/// A number of tokens >= 1, `k` = 1024 ("2k" = 2048), at most 1e9.
pub fn parse_tokens(s: &str) -> Result<u64, String> {
    whole(s, Kind::Tokens)
}

/// A context length: a whole number of tokens >= 0, `k` = 1024 ("8k" =
/// 8192, "0").
fn parse_context(s: &str) -> Result<u64, String> {
    let v = quantity(s, Kind::Tokens)?;
    if v < 0.0 || v.fract() != 0.0 {
        return Err(format!(
            "{} must be a whole number of tokens, 0 or more",
            echo(s)
        ));
    }
    if v > 1e9 {
        return Err(format!(
            "{} is larger than 1e9 tokens; is it a typo?",
            echo(s)
        ));
    }
    Ok(v as u64)
}

fn parse_degree(s: &str) -> Result<u32, String> {
    let v = parse_count(s)?;
    if v > 65536 {
        return Err(format!("{}: at most 65536 devices", echo(s)));
    }
    Ok(v as u32)
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    let v = quantity(s, Kind::Fraction)?;
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err(format!(
            "{} must be greater than 0 and at most 1 (or 100%)",
            echo(s)
        ))
    }
}

pub(crate) fn parse_unit_interval(s: &str) -> Result<f64, String> {
    let v = quantity(s, Kind::Fraction)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{} must be from 0 to 1", echo(s)))
    }
}

fn parse_precision(s: &str) -> Result<Precision, String> {
    Precision::parse(s).ok_or_else(|| {
        format!(
            "unknown precision {}; use one of fp32, tf32, bf16, fp16, fp8, int8, fp4, int4",
            echo(s)
        )
    })
}

/// A batch, or for `sweep` a range of batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSpec {
    One(u64),
    /// LO..HI: powers of two between, both ends included.
    Range(u64, u64),
}

/// One count, or a range "LO..HI" (also "LO..=HI"), each read by `one`.
fn parse_range(s: &str, one: fn(&str) -> Result<u64, String>) -> Result<BatchSpec, String> {
    match s.split_once("..") {
        None => one(s.trim()).map(BatchSpec::One),
        Some((a, b)) => {
            let lo = one(a.trim())?;
            let hi = one(b.trim_start_matches('=').trim())?;
            if hi < lo {
                return Err(format!(
                    "{}: a range goes from low to high, like 1..512",
                    echo(s)
                ));
            }
            Ok(BatchSpec::Range(lo, hi))
        }
    }
}

/// "64", "1k" (1000 sequences), or a range "1..512" (also "1..=512").
pub fn parse_batch(s: &str) -> Result<BatchSpec, String> {
    parse_range(s, parse_count)
}

/// Contexts in tokens, `k` = 1024: "8k", or a range "1k..128k".
pub fn parse_contexts(s: &str) -> Result<BatchSpec, String> {
    parse_range(s, parse_tokens)
}

/// A finite step, written explicitly as a percentage ("10%") or a fraction
/// ("0.1"). A bare number above 1 is refused: "10" could mean 10% or
/// +1000%.
fn parse_percent(s: &str) -> Result<f64, String> {
    let v = quantity(s, Kind::Fraction)?;
    if !s.trim().ends_with('%') && v > 1.0 {
        return Err(format!(
            "{} is ambiguous: write a percentage (\"{}%\") or a fraction (\"{}\")",
            echo(s),
            units::format_number(v),
            units::format_number(v / 100.0)
        ));
    }
    if v > 0.0 && v <= 10.0 {
        Ok(v)
    } else {
        Err(format!(
            "{} must be a positive step such as 10% or 0.1, at most 1000%",
            echo(s)
        ))
    }
}

/// A planned utilization: from 1% to 100%.
fn parse_utilization(s: &str) -> Result<f64, String> {
    let v = parse_fraction(s)?;
    if v < crate::solver::fleet::MIN_UTILIZATION {
        return Err(format!(
            "{} is below 1%: a fleet planned that idle is sized for a load it will not see; use 0.01 to 1 (1% to 100%)",
            echo(s)
        ));
    }
    Ok(v)
}

/// The most rows `--top` lists: more is a screenful nobody reads, and each
/// row is held until the ranking ends.
pub const MAX_TOP: u64 = 1000;

/// How many rows to show: 1 to [`MAX_TOP`].
fn parse_top(s: &str) -> Result<usize, String> {
    let v = parse_count(s)?;
    if v > MAX_TOP {
        return Err(format!(
            "{} is more than {MAX_TOP}, the most rows --top lists; give 1 to {MAX_TOP}",
            echo(s)
        ));
    }
    Ok(v as usize)
}

/// A synthesis target: "50ms", "50ms itl", "100ms ttft", "30 tok/s per
/// user", "5000 tok/s" (the workbench's parser).
fn parse_target(s: &str) -> Result<TargetArg, String> {
    SynthTarget::parse(s)?;
    Ok(TargetArg(s.to_string()))
}

/// The target text, read against the phase once the workload is known (a
/// plain time is the latency of `--phase`).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetArg(pub String);

impl TargetArg {
    pub fn resolve(&self, phase: Phase) -> SynthTarget {
        // Checked when parsed; the fallback is never reached.
        SynthTarget::parse_for(&self.0, phase).unwrap_or(SynthTarget::Itl(0.05))
    }
}

/// The precision flags: every command that evaluates a workload reads them.
#[derive(Debug, Clone, Args)]
pub struct PrecisionArgs {
    /// Precision of weights, activations and KV cache at once.
    #[arg(long, short = 'p', value_parser = parse_precision)]
    pub precision: Option<Precision>,
    /// Precision of the weights (overrides --precision).
    #[arg(long, value_parser = parse_precision)]
    pub weights: Option<Precision>,
    /// Precision of the activations, which the math runs at (overrides --precision).
    #[arg(long, value_parser = parse_precision)]
    pub activations: Option<Precision>,
    /// Precision of the KV cache (overrides --precision).
    #[arg(long, value_parser = parse_precision)]
    pub kv: Option<Precision>,
}

impl PrecisionArgs {
    /// True when any precision flag was given.
    pub fn any(&self) -> bool {
        self.precision.is_some()
            || self.weights.is_some()
            || self.activations.is_some()
            || self.kv.is_some()
    }
}

/// The assumptions laid over `--profile`: every evaluating command reads them.
#[derive(Debug, Clone, Args)]
pub struct AssumeArgs {
    /// Set one assumption of the profile, e.g. "kernel_time=3us" or
    /// "collective=ring" (repeatable; `ridgeline zoo profiles` lists the keys).
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_assume, allow_hyphen_values = true)]
    pub assume: Vec<(String, String)>,
    /// Fraction of peak FLOP/s reached [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub compute_eff: Option<f64>,
    /// Fraction of peak memory bandwidth reached [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub memory_eff: Option<f64>,
    /// Fraction of link bandwidth a collective reaches [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub link_eff: Option<f64>,
    /// Fixed per-step overhead, e.g. "10us" [default: the profile's].
    #[arg(long, value_parser = non_negative_time, allow_hyphen_values = true)]
    pub overhead: Option<f64>,
    /// Latency of one hop of a collective [default: the profile's].
    #[arg(long, value_parser = non_negative_time, allow_hyphen_values = true)]
    pub link_latency: Option<f64>,
    /// Fraction of memory a run may use [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub usable_memory: Option<f64>,
    /// Overlap of compute and memory: T = max + (1 - w) min [default: the profile's].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub overlap: Option<f64>,
}

/// The default model of every command that takes one.
pub use crate::catalog::{DEFAULT_HARDWARE, DEFAULT_MODEL};
/// The default calibration profile.
pub const DEFAULT_PROFILE: &str = "default";
/// The default context of `--context`, tokens.
pub(crate) const DEFAULT_CONTEXT: u64 = 4096;

/// The workload and the assumptions, shared by every evaluating subcommand
/// that takes a phase and a context (`serve` and `fleet` take a request
/// instead: `ServeArgs`, `FleetArgs`).
#[derive(Debug, Clone, Args)]
pub struct WorkloadArgs {
    /// Model id or alias (see `ridgeline zoo models`), or a Hugging Face
    /// config.json or a downloaded model's folder (imported for this run).
    #[arg(long, short = 'm', default_value = DEFAULT_MODEL)]
    pub model: String,
    /// decode (one token per sequence) or prefill (the prompt).
    #[arg(long, value_enum, default_value = "decode")]
    pub phase: PhaseArg,
    /// Sequences (decode), prompts (prefill) or samples; "8", "1k" [default 1].
    /// `sweep` takes a range "1..512" (powers of two between).
    #[arg(long, short = 'b', value_parser = parse_batch, allow_hyphen_values = true)]
    pub batch: Option<BatchSpec>,
    /// Tokens in the KV cache (decode) or prompt length (prefill); "4096",
    /// "8k" (k = 1024: 8192 tokens).
    #[arg(long, short = 's', value_parser = parse_context, default_value_t = DEFAULT_CONTEXT, allow_hyphen_values = true)]
    pub context: u64,
    #[command(flatten)]
    pub prec: PrecisionArgs,
    /// Tensor-parallel degree.
    #[arg(long, value_parser = parse_degree, default_value = "1", allow_hyphen_values = true)]
    pub tp: u32,
    /// Pipeline-parallel degree.
    #[arg(long, value_parser = parse_degree, default_value = "1", allow_hyphen_values = true)]
    pub pp: u32,
    /// Calibration profile: a named set of efficiencies and fixed costs
    /// (`ridgeline zoo profiles`: default, roofline, ideal, ...).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_PROFILE)]
    pub profile: String,
    #[command(flatten)]
    pub knobs: AssumeArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Device id or alias (see `ridgeline zoo hardware`), or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// Exit with code 3 when the workload does not fit in memory.
    #[arg(long)]
    pub require_fit: bool,
}

#[derive(Debug, Clone, Args)]
pub struct OpsArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Device id or alias (see `ridgeline zoo hardware`), or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
}

#[derive(Debug, Clone, Args)]
pub struct SensArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Device id or alias, or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// The finite step for the "change for +p%" column: "10%" or "0.1" (a
    /// bare "10" is refused as ambiguous).
    #[arg(long, value_parser = parse_percent, default_value = "10%", allow_hyphen_values = true)]
    pub perturb: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RankArg {
    Cost,
    Latency,
}

#[derive(Debug, Clone, Args)]
pub struct SynthArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// The target: "50ms itl", "100ms ttft", "30 tok/s per user", "5000
    /// tok/s" (over the batch), or a plain "50ms" (inter-token for decode,
    /// time to first token for prefill).
    #[arg(long, value_parser = parse_target, allow_hyphen_values = true)]
    pub target: TargetArg,
    /// Optional throughput floor, tokens (or samples) per second over the batch.
    #[arg(long, value_parser = |s: &str| positive(s, Kind::Count), allow_hyphen_values = true)]
    pub min_tokens_per_s: Option<f64>,
    /// Devices to rank (comma-separated ids, or "all") [default all].
    #[arg(long = "hardware", short = 'H', default_value = "all")]
    pub hardware: String,
    /// Order of the matches.
    #[arg(long, value_enum, default_value = "cost")]
    pub rank: RankArg,
    /// Share of the time budget given to communication when TP/PP > 1.
    #[arg(long, value_parser = parse_unit_interval, default_value = "0.1", allow_hyphen_values = true)]
    pub comm_share: f64,
    /// How many matches to show in a table, 1 to 1000 (JSON lists all).
    #[arg(long, value_parser = parse_top, default_value = "15", allow_hyphen_values = true)]
    pub top: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// As listed.
    Listed,
    /// Fastest step first.
    Latency,
    /// Most tokens (or samples) per second first.
    Tokens,
    /// Cheapest per million tokens first.
    Cost,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Comma-separated device ids, or "all".
    #[arg(long = "hardware", short = 'H', default_value = "a100,h100,h200")]
    pub hardware: String,
    /// The device speedups are measured against [default: the first that fits].
    #[arg(long, value_name = "ID")]
    pub baseline: Option<String>,
    /// Order of the rows; devices that do not fit always come after those that do.
    #[arg(long, value_enum, default_value = "listed")]
    pub sort: SortArg,
}

#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Comma-separated device ids, or "all".
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// Sweep the context instead of the batch: "1k..128k" (k = 1024;
    /// powers of two between).
    #[arg(long, value_parser = parse_contexts, allow_hyphen_values = true)]
    pub contexts: Option<BatchSpec>,
}

/// Prompt and output lengths and the idle power share, shared by serve and fleet.
#[derive(Debug, Clone, Args)]
pub struct RequestArgs {
    /// Prompt length, tokens ("2k" = 2048: k = 1024).
    #[arg(long, value_parser = parse_tokens, default_value = "2048", allow_hyphen_values = true)]
    pub prompt: u64,
    /// Output length, tokens (k = 1024).
    #[arg(long, value_parser = parse_tokens, default_value = "256", allow_hyphen_values = true)]
    pub output: u64,
    /// Share of TDP a device draws when idle [default 0.3].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub idle_power: Option<f64>,
}

/// The flags `serve` reads: no phase and no context, since a request is
/// prefilled (its `--prompt`) and then decoded (its `--output`) at the
/// context those make.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Model id or alias (see `ridgeline zoo models`), or a Hugging Face
    /// config.json or a downloaded model's folder (imported for this run).
    #[arg(long, short = 'm', default_value = DEFAULT_MODEL)]
    pub model: String,
    /// Concurrent sequences of the replica; "8", "1k" [default 1].
    #[arg(long, short = 'b', value_parser = parse_batch, allow_hyphen_values = true)]
    pub batch: Option<BatchSpec>,
    #[command(flatten)]
    pub prec: PrecisionArgs,
    /// Tensor-parallel degree.
    #[arg(long, value_parser = parse_degree, default_value = "1", allow_hyphen_values = true)]
    pub tp: u32,
    /// Pipeline-parallel degree.
    #[arg(long, value_parser = parse_degree, default_value = "1", allow_hyphen_values = true)]
    pub pp: u32,
    /// Calibration profile: a named set of efficiencies and fixed costs
    /// (`ridgeline zoo profiles`: default, roofline, ideal, ...).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_PROFILE)]
    pub profile: String,
    #[command(flatten)]
    pub knobs: AssumeArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub request: RequestArgs,
    /// Device id or alias, or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// Grid region for carbon (`ridgeline zoo regions`).
    #[arg(long, default_value = "us-east")]
    pub region: String,
    #[command(flatten)]
    pub batching: super::serve_modes::BatchingArgs,
}

impl ServeArgs {
    /// The workload flags of the replica, as the shared solver inputs read
    /// them: decode at the request's full context (the serving model
    /// replaces phase and context by the request's own).
    pub fn workload_args(&self) -> WorkloadArgs {
        WorkloadArgs {
            model: self.model.clone(),
            phase: PhaseArg::Decode,
            batch: self.batch,
            context: self.request.prompt.saturating_add(self.request.output),
            prec: self.prec.clone(),
            tp: self.tp,
            pp: self.pp,
            profile: self.profile.clone(),
            knobs: self.knobs.clone(),
            format: self.format,
        }
    }
}

/// The flags `fleet` reads: no layout, batch, phase or context, since the
/// search picks the layout and batch of each replica and a request's
/// `--prompt` and `--output` set both phases.
#[derive(Debug, Clone, Args)]
pub struct FleetArgs {
    /// Model id or alias (see `ridgeline zoo models`), or a Hugging Face
    /// config.json or a downloaded model's folder (imported for this run).
    #[arg(long, short = 'm', default_value = DEFAULT_MODEL)]
    pub model: String,
    #[command(flatten)]
    pub prec: PrecisionArgs,
    /// Calibration profile: a named set of efficiencies and fixed costs
    /// (`ridgeline zoo profiles`: default, roofline, ideal, ...).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_PROFILE)]
    pub profile: String,
    #[command(flatten)]
    pub knobs: AssumeArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub request: RequestArgs,
    /// Requests per second ("1000", "1k").
    #[arg(long, value_parser = |s: &str| positive(s, Kind::Count), allow_hyphen_values = true)]
    pub qps: f64,
    /// Time-to-first-token SLA ("100ms").
    #[arg(long, value_parser = positive_time, allow_hyphen_values = true)]
    pub ttft: f64,
    /// Inter-token latency SLA ("50ms").
    #[arg(long, value_parser = positive_time, allow_hyphen_values = true)]
    pub itl: f64,
    /// Grid regions, comma-separated (`ridgeline zoo regions`).
    #[arg(long, default_value = "us-east")]
    pub region: String,
    /// Highest planned utilization of a replica, 1% to 100% [default 0.8].
    #[arg(long, value_parser = parse_utilization, allow_hyphen_values = true)]
    pub max_utilization: Option<f64>,
    /// Budget in USD per year ("5M").
    #[arg(long, value_parser = |s: &str| positive(s, Kind::Count), allow_hyphen_values = true)]
    pub budget: Option<f64>,
    /// Devices to consider (comma-separated ids, or "all").
    #[arg(long = "hardware", short = 'H', default_value = "all")]
    pub hardware: String,
    /// Serving modes to search: auto (both, the cheaper wins), aggregated
    /// (every replica prefills and decodes) or disaggregated (prefill and
    /// decode pools, the KV cache sent between them).
    #[arg(long, default_value = "auto")]
    pub mode: String,
    /// Precisions to search, comma-separated (a name, or
    /// weights/activations/kv); -p, --weights, --activations or --kv fix one
    /// instead.
    #[arg(long, default_value = "bf16,fp8,int4")]
    pub precisions: String,
    /// Each region's share of the load, in --region order ("0.6,0.4")
    /// [default: equal shares].
    #[arg(long)]
    pub share: Option<String>,
}

impl FleetArgs {
    /// The workload flags as the shared solver inputs read them: one
    /// sequence on one device, decode at the request's full context (the
    /// search sets the layout and batch of each replica itself).
    pub fn workload_args(&self) -> WorkloadArgs {
        WorkloadArgs {
            model: self.model.clone(),
            phase: PhaseArg::Decode,
            batch: None,
            context: self.request.prompt.saturating_add(self.request.output),
            prec: self.prec.clone(),
            tp: 1,
            pp: 1,
            profile: self.profile.clone(),
            knobs: self.knobs.clone(),
            format: self.format,
        }
    }
}

/// Why `serve` or `fleet` does not take a workload flag another command
/// takes, and what it reads instead: said under clap's "unexpected
/// argument" so the user learns the way to ask, not only the refusal.
pub fn flag_not_read(command: &str, flag: &str) -> Option<&'static str> {
    const REQUEST: &str = "each request is prefilled (its --prompt tokens) and then decoded (its --output tokens), so both phases and their context come from --prompt and --output";
    match (command, flag) {
        ("serve" | "fleet", "--phase") => Some(REQUEST),
        ("serve" | "fleet", "--context" | "-s") => Some(REQUEST),
        ("fleet", "--tp" | "--pp") => Some(
            "it searches the tensor- and pipeline-parallel degrees of each replica itself; to evaluate one layout, use `ridgeline serve --tp N --pp N`",
        ),
        ("scale", "--dp") => Some(
            "dp is what each device count leaves over the other degrees; pin --tp, --pp, --ep or --cp, or leave them all out to search each count's fastest layout",
        ),
        ("scale", "--search" | "--top") => Some(
            "without layout flags every count already takes its fastest layout that fits; `ridgeline train --search` ranks the layouts of one count",
        ),
        ("fleet", "--batch" | "-b") => Some(
            "it sizes each replica's batch itself from --qps and the SLAs; to evaluate one batch, use `ridgeline serve --batch N`",
        ),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ZooKind {
    Hardware,
    Models,
    Regions,
    /// Calibration profiles and their assumptions (the keys of `--assume`).
    Profiles,
}

#[derive(Debug, Clone, Args)]
pub struct ProbeArgs {
    /// Output format: table (text) or json (one record).
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: RecordFormat,
    /// Measure this CPU's ceilings (peak f32/f64 FLOP/s, each cache
    /// level's bandwidth, main memory's) in at most about 10 s, and write
    /// them to your catalog as device `local-cpu` (docs/probe.md).
    #[arg(long, conflicts_with = "kernel")]
    pub measure: bool,
    /// With --measure: about 3 s, fewer and shorter runs.
    #[arg(long, requires = "measure", conflicts_with = "thorough")]
    pub quick: bool,
    /// With --measure: about 30 s, more and longer runs.
    #[arg(long, requires = "measure")]
    pub thorough: bool,
    /// Time a real f32 matrix kernel on this CPU and place it on the
    /// roofline beside the prediction for the same operation.
    #[arg(long, value_enum, value_name = "OP")]
    pub kernel: Option<KernelOp>,
    /// With --kernel: the matrices' size N (N x N) [default: 4096 for
    /// gemv, 1024 for gemm].
    #[arg(long, value_name = "N", requires = "kernel")]
    pub size: Option<usize>,
    /// With --kernel: also plot the measured point on the roofline, as
    /// SVG, to FILE.svg.
    #[arg(long, short = 'o', value_name = "FILE.svg", requires = "kernel")]
    pub output: Option<PathBuf>,
}

/// A matrix kernel of `probe --kernel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KernelOp {
    /// y = A x, A N x N (decode's matrix-vector product).
    Gemv,
    /// C = A B, all N x N.
    Gemm,
}

#[derive(Debug, Clone, Args)]
pub struct ZooArgs {
    /// What to list.
    #[arg(value_enum)]
    pub kind: ZooKind,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Debug, Clone, Args)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub action: CatalogAction,
}

#[derive(Debug, Clone, Subcommand)]
pub enum CatalogAction {
    /// Load the built-in catalog and DIR (default: the user catalog) and report every problem.
    Check {
        /// A catalog directory (hardware/*.toml, models/*.toml, regions.toml).
        dir: Option<PathBuf>,
    },
}

fn parse_moe_capacity(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (1.0..=16.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "{} is not a capacity factor from 1 (dropless) to 16, like 1.25",
            echo(s)
        )),
    }
}

fn parse_zero(s: &str) -> Result<u8, String> {
    match s.trim() {
        "0" => Ok(0),
        "1" => Ok(1),
        "2" => Ok(2),
        "3" => Ok(3),
        _ => Err(format!(
            "{} is not a ZeRO stage: use 0 (none), 1 (optimizer state), 2 (and gradients) or 3 (and weights, FSDP)",
            echo(s)
        )),
    }
}

/// Tokens to train: a count ("15T", "300B") or "chinchilla" (20 per parameter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TokensArg {
    Count(f64),
    Chinchilla,
}

fn parse_tokens_to_train(s: &str) -> Result<TokensArg, String> {
    if s.trim().eq_ignore_ascii_case("chinchilla") {
        return Ok(TokensArg::Chinchilla);
    }
    let v = quantity(s, Kind::Count)
        .map_err(|e| format!("{e}; or \"chinchilla\" for 20 tokens per parameter"))?;
    if (1.0..=1e16).contains(&v) {
        Ok(TokensArg::Count(v))
    } else {
        Err(format!(
            "{} must be from 1 to 1e16 tokens, like \"15T\", or \"chinchilla\"",
            echo(s)
        ))
    }
}

/// A global batch in tokens, `k` = 1024 and `M` = 1024^2 ("4M" = 4,194,304).
fn parse_global_batch(s: &str) -> Result<f64, String> {
    let v = quantity(s, Kind::Tokens)?;
    if v >= 1.0 && v.fract() == 0.0 && v <= 1e12 {
        Ok(v)
    } else {
        Err(format!(
            "{} must be a whole number of tokens from 1 to 1e12, like \"4M\"",
            echo(s)
        ))
    }
}

fn parse_op(s: &str) -> Result<crate::solver::collective::Op, String> {
    crate::solver::collective::Op::parse(s).ok_or_else(|| {
        format!(
            "unknown collective {}; use all-reduce, all-gather, reduce-scatter, all-to-all or point-to-point",
            echo(s)
        )
    })
}

/// A recomputation level or a set of Megatron-Core modules.
fn parse_recompute(s: &str) -> Result<crate::solver::training::Recompute, String> {
    use crate::solver::training::Recompute;
    Recompute::parse(s).ok_or_else(|| {
        format!(
            "{} is not a recomputation: use {}",
            echo(s),
            Recompute::EXPECTED
        )
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AttentionArg {
    /// FlashAttention: no score matrix kept.
    Flash,
    /// The score matrix kept (Megatron-LM before flash attention).
    Eager,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatmulCeilingArg {
    /// A device's measured matmul ceiling scales the compute efficiency
    Measured,
    /// Every device reaches the compute efficiency of its peak
    Flat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CrossEntropyArg {
    /// One fp32 copy of the logits (Megatron-Core, XLA, a compiled loss)
    Fused,
    /// Eager PyTorch: 12 bytes a logit at the peak, 16 with tensor parallelism
    Eager,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LowPrecisionStorageArg {
    /// Weights, gradients and saved activations at the format's width
    Narrow,
    /// All three at 16 bits, fp8 only in the products (torchao)
    Bf16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GradPrecisionArg {
    /// At the weights' width (2 bytes a parameter in bf16)
    Param,
    /// fp32: Megatron-Core's main gradients, held and reduced at 4 bytes
    Fp32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OptimizerArg {
    Adam,
    #[value(name = "adam-8bit")]
    Adam8bit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlgorithmArg {
    Ring,
    Tree,
    Auto,
}

/// The calibration profile and the link efficiency, shared by train and collective.
#[derive(Debug, Clone, Args)]
pub struct ProfileArgs {
    /// Calibration profile (`ridgeline zoo profiles`).
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub profile: String,
    /// Set one assumption of the profile, e.g. "collective_time=5us" (repeatable).
    #[arg(long, value_name = "KEY=VALUE", value_parser = parse_assume, allow_hyphen_values = true)]
    pub assume: Vec<(String, String)>,
    /// Fraction of link bandwidth a collective reaches [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub link_eff: Option<f64>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Debug, Clone, Args)]
pub struct TrainArgs {
    /// Model id or alias (a decoder; `ridgeline zoo models`), or a Hugging
    /// Face config.json or a downloaded model's folder.
    #[arg(long, short = 'm', default_value = DEFAULT_MODEL)]
    pub model: String,
    /// Device id or alias, or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// Devices [default: 8, as the Training view; a replica's tp x pp x ep x cp when it needs more or does not divide 8]. With it and no --dp, dp is
    /// what the other degrees leave.
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub devices: Option<u32>,
    /// Data-parallel degree [default: what the devices leave].
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub dp: Option<u32>,
    #[command(flatten)]
    pub setup: TrainSetup,
    /// Tokens to train on: "15T", "300B", or "chinchilla" (20 per parameter).
    #[arg(long, value_parser = parse_tokens_to_train, default_value = "chinchilla", allow_hyphen_values = true)]
    pub tokens: TokensArg,
    /// Grid region for carbon (`ridgeline zoo regions`).
    #[arg(long, default_value = "us-east")]
    pub region: String,
    /// Rank every layout of the device count that fits (dp x tp x pp x ep x cp, ZeRO, recomputation, micro-batch).
    #[arg(long)]
    pub search: bool,
    /// Layouts to list with --search, 1 to 1000 (tables; JSON lists as many).
    #[arg(long, value_parser = parse_top, default_value = "10", allow_hyphen_values = true)]
    pub top: usize,
    /// Mean time between failures of one device, "50000h" [default 50000h, from Llama 3].
    #[arg(long, value_parser = positive_time, allow_hyphen_values = true)]
    pub mtbf: Option<f64>,
    /// Checkpoint write bandwidth per device, "0.4 GB/s" [default, from Llama 3].
    #[arg(long, value_parser = |s: &str| positive(s, Kind::Bandwidth), allow_hyphen_values = true)]
    pub checkpoint_bandwidth: Option<f64>,
    /// Time to restart after a failure, "10min" [default].
    #[arg(long, value_parser = non_negative_time, allow_hyphen_values = true)]
    pub restart: Option<f64>,
    /// Share of TDP a device draws when idle [default 0.3].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub idle_power: Option<f64>,
    #[command(flatten)]
    pub knobs: TrainKnobs,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ScaleArgs {
    /// Model id or alias (a decoder; `ridgeline zoo models`), or a Hugging
    /// Face config.json or a downloaded model's folder.
    #[arg(long, short = 'm', default_value = DEFAULT_MODEL)]
    pub model: String,
    /// Device id or alias, or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// Device counts: "8..16384" (the first and its doublings up to the
    /// last) or a list "8,64,512", rising, at most 64.
    #[arg(long, value_parser = parse_device_counts, default_value = "8..1024", allow_hyphen_values = true)]
    pub devices: DeviceCounts,
    /// Weak scaling: tokens per device per step, "32k" (the global batch
    /// grows with the devices). Without it, strong scaling at
    /// --global-batch.
    #[arg(long, value_parser = parse_global_batch, conflicts_with = "global_batch", allow_hyphen_values = true)]
    pub per_device_batch: Option<f64>,
    /// Efficiency against the ideal line below which the curve has bent,
    /// "80%" [default: 80%].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub knee: Option<f64>,
    /// Scale one inference replica instead of training: decode (inter-token
    /// latency) or prefill (time to first token), over TP x PP.
    #[arg(long, value_enum)]
    pub phase: Option<PhaseArg>,
    /// With --phase: sequences (decode) or prompts (prefill); "8", "1k"
    /// [default 1].
    #[arg(long, short = 'b', value_parser = parse_count, requires = "phase", allow_hyphen_values = true)]
    pub batch: Option<u64>,
    /// With --phase: tokens in the KV cache (decode) or the prompt length
    /// (prefill); "8k" (k = 1024) [default 4096].
    #[arg(long, short = 's', value_parser = parse_context, requires = "phase", allow_hyphen_values = true)]
    pub context: Option<u64>,
    #[command(flatten)]
    pub setup: TrainSetup,
    #[command(flatten)]
    pub knobs: TrainKnobs,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// Rising device counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceCounts(pub Vec<u32>);

/// "8..16384" (8 and its doublings up to 16384) or "8,64,512".
fn parse_device_counts(s: &str) -> Result<DeviceCounts, String> {
    let max = crate::solver::roofline::MAX_DEGREE;
    let most = crate::solver::training::scale::MAX_POINTS;
    let count = |t: &str| -> Result<u32, String> {
        match t.trim().parse::<u32>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(format!(
                "{} is not a device count from 1 to {max}: give a range like 8..16384 or a list like 8,64,512",
                echo(t.trim())
            )),
        }
    };
    let counts = match s.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (count(a)?, count(b)?);
            if a > b {
                return Err(format!(
                    "{}: the first count is above the last; write the smaller first, like 8..16384",
                    echo(s)
                ));
            }
            crate::solver::training::scale::doublings(a, b)
        }
        None => s.split(',').map(count).collect::<Result<Vec<_>, _>>()?,
    };
    if counts.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{}: list the device counts rising, each once, like 8,64,512",
            echo(s)
        ));
    }
    if counts.len() > most {
        return Err(format!(
            "{}: {} counts; at most {most} are plotted",
            echo(s),
            counts.len()
        ));
    }
    Ok(DeviceCounts(counts))
}

/// The flags of one training configuration that `train` and `scale`
/// share: the layout's degrees, the memory savers, the batch and the
/// number formats.
#[derive(Debug, Clone, Args)]
pub struct TrainSetup {
    /// Tensor-parallel degree (with sequence parallelism) [default: 1].
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub tp: Option<u32>,
    /// Pipeline-parallel degree (1F1B) [default: 1].
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub pp: Option<u32>,
    /// Interleaved model chunks per pipeline stage (v); 1 = plain 1F1B [default: 1].
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub interleave: Option<u32>,
    /// Expert-parallel degree (MoE models) [default: 1].
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub ep: Option<u32>,
    /// Context-parallel degree (ring attention) [default: 1].
    #[arg(long, value_parser = parse_degree, allow_hyphen_values = true)]
    pub cp: Option<u32>,
    /// ZeRO stage: 0, 1 (optimizer state), 2 (and gradients), 3 (and weights: FSDP) [default: 3, as the Training view].
    #[arg(long, value_parser = parse_zero, allow_hyphen_values = true)]
    pub zero: Option<u8>,
    /// Activation recomputation: none, selective (attention core), dots (keep matmul outputs: JAX's dots_saveable), selective-op (torchtitan's per-operator checkpointing: every second matmul output kept), dots-except-mlpwi (also recompute the MLP's gate and up: MaxText's save_dot_except_mlpwi), full (keep layer inputs), or Megatron-Core modules, comma-separated: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts [default: none, as the Training view].
    #[arg(long, value_parser = parse_recompute, allow_hyphen_values = true)]
    pub recompute: Option<crate::solver::training::Recompute>,
    /// Attention kernel: flash keeps no score matrix [default: flash].
    #[arg(long, value_enum)]
    pub attention: Option<AttentionArg>,
    /// Keep dropout masks (after attention and MLP; on the scores with eager attention).
    #[arg(long)]
    pub dropout: bool,
    /// Offload the activations each layer keeps (what --recompute leaves) to host memory: the device holds 3 layers of one micro-batch, and the copies cross the device's host link (the catalog's `host` under [device.interconnect]), hidden behind the passes where they can be.
    #[arg(long)]
    pub offload: bool,
    /// Layers fewer on the first and last pipeline stages (Llama 3: 1) [default: 0].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=65536))]
    pub edge_layers: Option<u32>,
    /// Micro-batches an interleaved schedule runs back to back on one chunk
    /// (Llama 3's N; fewer hold less) [default: 0 = pp, Megatron's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=65536))]
    pub contiguous: Option<u32>,
    /// Tokens per optimizer step over all replicas; "4M" (M = 1024^2 tokens) [default: 4M, as the Training view].
    #[arg(long, value_parser = parse_global_batch, allow_hyphen_values = true)]
    pub global_batch: Option<f64>,
    /// Sequences per micro-batch [default: 1, as the Training view].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub micro_batch: Option<u64>,
    /// Tokens per sequence, "8k" (k = 1024) [default: the model's maximum context, at most 8k].
    #[arg(long, value_parser = parse_tokens, allow_hyphen_values = true)]
    pub seq: Option<u64>,
    /// Format of weights, gradients and activations.
    #[arg(long, short = 'p', value_parser = parse_precision, default_value = "bf16")]
    pub precision: Precision,
    /// Optimizer.
    #[arg(long, value_enum, default_value = "adam")]
    pub optimizer: OptimizerArg,
}

/// The training assumptions and efficiencies `train` and `scale` share.
#[derive(Debug, Clone, Args)]
pub struct TrainKnobs {
    /// Share of DP/FSDP communication that may hide behind backward compute [default 1].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub dp_overlap: Option<f64>,
    /// Share of TP communication that may hide behind compute [default 0].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub tp_overlap: Option<f64>,
    /// Share of EP all-to-alls that may hide behind compute [default 0].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub ep_overlap: Option<f64>,
    /// Share of the CP ring that may hide behind attention [default 1].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub cp_overlap: Option<f64>,
    /// How much slower compute runs beside a hidden collective, 0 to 1; a hidden collective of H seconds costs H x s / (1 + s) [default 0.189, the average Lee et al. 2025 measured on A100, H100, MI250, MI210; not charged on a TPU torus, whose DMA engines move collectives beside the cores].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub overlap_slowdown: Option<f64>,
    /// An MoE layer's time per routed token copy beyond its math, "0.2us" [default: fitted on published MoE runs].
    #[arg(long, value_parser = non_negative_time, allow_hyphen_values = true)]
    pub moe_token_time: Option<f64>,
    /// Fraction of peak FLOP/s the attention kernels reach in training [default 0.6, FlashAttention-2's 50-73% on A100].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub attention_eff: Option<f64>,
    /// Room per MoE expert over top-k copies of each token, 1 (dropless) to 16 [default 1].
    #[arg(long, value_parser = parse_moe_capacity, allow_hyphen_values = true)]
    pub moe_capacity: Option<f64>,
    /// Whether a device's measured matmul ceiling (Bekman's MAMF table: A100 87% of peak, H100 80%, MI300X 51%) scales the compute efficiency, relative to the A100's (bf16) or the H100's (fp8) [default: measured].
    #[arg(long, value_enum)]
    pub matmul_ceiling: Option<MatmulCeilingArg>,
    /// How the loss holds the logits at its peak: fused (one fp32 copy, 4 bytes a logit: Megatron-Core, XLA, a compiled loss) or eager (PyTorch's cross_entropy on an fp32 copy: 12 bytes, 16 with the vocabulary split over TP) [default: fused; the torchtitan profile's is eager].
    #[arg(long, value_enum)]
    pub cross_entropy: Option<CrossEntropyArg>,
    /// What an fp8 run holds in memory: narrow (weights, gradients and saved activations at 8 bits) or bf16 (all at 16 bits, fp8 only inside the products, as torchao does) [default: narrow; the torchtitan profile's is bf16].
    #[arg(long, value_enum)]
    pub low_precision_storage: Option<LowPrecisionStorageArg>,
    /// The width gradients are held and reduced at: param (the weights', 2 bytes a parameter in bf16) or fp32 (Megatron-LM's main gradients, its default for bf16: 4 bytes, reduced in fp32) [default: param, as NVIDIA's Megatron performance recipes run].
    #[arg(long, value_enum)]
    pub grad_precision: Option<GradPrecisionArg>,
    /// What the caching allocator reserves beyond the tensors alive at the peak, as a share of them, 0 to 1: the "reserved" figure torchtitan's log and nvidia-smi read; not part of the fit verdict [default 0.15, the ratio torchtitan's own memory monitor logged in its pull requests since its launcher set expandable segments; megatron-core 0.02; jax-xla 0].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub allocator_overhead: Option<f64>,
    /// Fraction of peak FLOP/s reached [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub compute_eff: Option<f64>,
    /// Fraction of memory bandwidth reached [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub memory_eff: Option<f64>,
    /// Fraction of memory a run may use [default: the profile's].
    #[arg(long, value_parser = parse_fraction, allow_hyphen_values = true)]
    pub usable_memory: Option<f64>,
}

#[derive(Debug, Clone, Args)]
pub struct CollectiveArgs {
    /// all-reduce, all-gather, reduce-scatter, all-to-all or point-to-point.
    #[arg(long, value_parser = parse_op)]
    pub op: crate::solver::collective::Op,
    /// The buffer: "1GB" (the reduced vector, the gathered output, each rank's send buffer).
    #[arg(long, value_parser = |s: &str| positive(s, Kind::Bytes), allow_hyphen_values = true)]
    pub bytes: f64,
    /// Ranks taking part, placed one after another from the first node.
    #[arg(long, value_name = "N", value_parser = parse_degree, allow_hyphen_values = true)]
    pub devices: u32,
    /// Device id or alias, or `local`: this machine (`ridgeline probe`).
    #[arg(long = "hardware", short = 'H', default_value = DEFAULT_HARDWARE)]
    pub hardware: String,
    /// Algorithm [default: the profile's]; auto takes the faster of ring and tree on each level.
    #[arg(long, value_enum)]
    pub algorithm: Option<AlgorithmArg>,
    #[command(flatten)]
    pub profile: ProfileArgs,
}
