//! `ridgeline explore`: every serving configuration of a model over the
//! axes given (devices, precisions, TP, PP, batch, prompt and output
//! lengths), the constraints, and the Pareto front on two or three
//! objectives.

use super::args::Format;
use super::output::{Fmt, Style, col, render_list, wrap};
use super::{CliError, Out, devices, profile_on, write};
use crate::catalog::{Catalog, HardwareEntry};
use crate::solver::Tier;
use crate::solver::economics::DEFAULT_IDLE_SHARE;
use crate::solver::explore::{self, Axes, Limits, Objective, Point, Precisions, Summary, Verdict};
use crate::solver::units::{self, Kind};
use clap::Args;
use serde_json::{Map, Value, json};
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;

#[derive(Debug, Clone, Args)]
pub struct ExploreArgs {
    /// Model id or alias (a decoder; `ridgeline zoo models`).
    #[arg(long, short = 'm', default_value = super::args::DEFAULT_MODEL)]
    pub model: String,
    /// Devices: comma-separated ids, a tier (cloud, workstation, edge,
    /// mobile, tiny), or "all".
    #[arg(long = "hardware", short = 'H', default_value = "cloud")]
    pub hardware: String,
    /// Precisions, comma-separated: a name (bf16, fp8; int4, int8 and fp4
    /// store weights only, the math and cache stay bf16) or
    /// weights/activations/kv ("int4/fp8/fp8").
    #[arg(long, short = 'p', default_value = "bf16,fp8,int4")]
    pub precision: String,
    /// Tensor-parallel degrees, comma-separated or a range of powers of two ("1..8").
    #[arg(long, default_value = "1,2,4,8")]
    pub tp: String,
    /// Pipeline-parallel degrees, as --tp.
    #[arg(long, default_value = "1")]
    pub pp: String,
    /// Batches (concurrent sequences), as --tp: "1..256" is 1, 2, 4, ... 256.
    #[arg(long, short = 'b', default_value = "1..256")]
    pub batch: String,
    /// Prompt lengths in tokens ("2048", "512,2k,8k").
    #[arg(long, default_value = "2048")]
    pub prompt: String,
    /// Output lengths in tokens.
    #[arg(long, default_value = "256")]
    pub output: String,
    /// Objectives, two or three (one is allowed): itl, ttft, throughput
    /// (output tokens/s per device, the prompts' prefill counted), cost ($
    /// per million output tokens), energy (J per output token), devices.
    #[arg(long, default_value = "itl,cost")]
    pub objectives: String,
    /// Time-to-first-token limit ("200ms").
    #[arg(long, allow_hyphen_values = true)]
    pub ttft: Option<String>,
    /// Inter-token latency limit ("50ms").
    #[arg(long, allow_hyphen_values = true)]
    pub itl: Option<String>,
    /// Least output tokens per second each user sees ("20").
    #[arg(long, allow_hyphen_values = true)]
    pub min_rate: Option<String>,
    /// Most a configuration's devices may cost, USD per hour ("40").
    #[arg(long, allow_hyphen_values = true)]
    pub budget: Option<String>,
    /// Share of TDP a device draws idle, for energy [default 0.3].
    #[arg(long)]
    pub idle_power: Option<f64>,
    /// Every configuration evaluated, not only the front (JSON `all`, CSV
    /// rows), written as each is evaluated. A space holds at most 10
    /// million configurations; at the cap `--all` takes about 30 s of CPU
    /// and under 16 MB of memory (docs/commands/explore.md).
    #[arg(long)]
    pub all: bool,
    /// Calibration profile (`ridgeline zoo profiles`).
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub profile: String,
    /// Set one assumption of the profile, e.g. "kernel_time=3us" (repeatable).
    #[arg(long, value_name = "KEY=VALUE", allow_hyphen_values = true)]
    pub assume: Vec<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: Format,
}

fn input(flag: &str, msg: impl std::fmt::Display) -> CliError {
    CliError::Input(format!("--{flag}: {msg}"))
}

/// A comma-separated list, each item read by `one`.
pub(super) fn list<T>(
    flag: &str,
    s: &str,
    one: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, CliError> {
    let items: Vec<&str> = s
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .collect();
    if items.is_empty() {
        return Err(input(flag, "give at least one value"));
    }
    items
        .into_iter()
        .map(|x| one(x).map_err(|e| input(flag, e)))
        .collect()
}

/// Whole numbers: a list, and ranges "LO..HI" of the powers of two between
/// (both ends included).
fn counts(flag: &str, s: &str, kind: Kind) -> Result<Vec<f64>, CliError> {
    let whole = |x: &str| -> Result<f64, String> {
        let v = units::parse(x, kind).map_err(|e| e.to_string())?;
        if !(v.is_finite() && v >= 1.0 && v.fract() == 0.0 && v <= 1e9) {
            return Err(format!("{x:?} must be a whole number from 1 to 1e9"));
        }
        Ok(v)
    };
    let parts = list(flag, s, |x| match x.split_once("..") {
        None => whole(x).map(|v| vec![v]),
        Some((a, b)) => {
            let (lo, hi) = (whole(a.trim())?, whole(b.trim_start_matches('=').trim())?);
            if hi < lo {
                return Err(format!("{x}: a range goes from low to high, like 1..256"));
            }
            let mut v = Vec::new();
            let mut p = lo;
            while p < hi {
                v.push(p);
                p *= 2.0;
            }
            v.push(hi);
            Ok(v)
        }
    })?;
    let mut v: Vec<f64> = parts.into_iter().flatten().collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    Ok(v)
}

fn degrees(flag: &str, s: &str) -> Result<Vec<u32>, CliError> {
    let v = counts(flag, s, Kind::Count)?;
    if let Some(x) = v.iter().find(|&&x| x > 65536.0) {
        return Err(input(flag, format!("{x} is more than 65536 devices")));
    }
    Ok(v.into_iter().map(|x| x as u32).collect())
}

pub(super) fn precision(s: &str) -> Result<Precisions, String> {
    Precisions::parse(s)
}

fn limit(flag: &str, s: &Option<String>, kind: Kind) -> Result<Option<f64>, CliError> {
    s.as_deref()
        .map(|x| {
            let v = units::parse(x, kind).map_err(|e| input(flag, e))?;
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(input(flag, format!("{x:?} must be greater than zero")))
            }
        })
        .transpose()
}

/// The devices named: ids, a tier, or all.
fn hardware<'c>(cat: &'c Catalog, s: &str) -> Result<Vec<&'c HardwareEntry>, CliError> {
    if let Some(t) = Tier::parse(s.trim()) {
        return Ok(cat.hardware.iter().filter(|e| e.hw.tier == t).collect());
    }
    devices(cat, s)
}

/// The space of the flags: the model, the axes, the objectives, the
/// limits, the assumptions and the idle share (shared with `plot explore`).
pub(super) struct Space<'c> {
    pub model: &'c crate::solver::Model,
    pub axes: Axes,
    pub objectives: Vec<Objective>,
    pub limits: Limits,
    pub asm: crate::solver::Assumptions,
    pub idle: f64,
}

/// Read the flags into the space they span, or the first problem.
pub(super) fn space<'c>(cat: &'c Catalog, a: &ExploreArgs) -> Result<Space<'c>, CliError> {
    let model = &cat.model(&a.model)?.model;
    let entries = hardware(cat, &a.hardware)?;
    let axes = Axes {
        hardware: entries.iter().map(|e| e.hw.clone()).collect(),
        precisions: list("precision", &a.precision, precision)?,
        tp: degrees("tp", &a.tp)?,
        pp: degrees("pp", &a.pp)?,
        batch: counts("batch", &a.batch, Kind::Count)?,
        prompt: counts("prompt", &a.prompt, Kind::Tokens)?,
        output: counts("output", &a.output, Kind::Tokens)?,
    };
    let objectives = list("objectives", &a.objectives, |x| {
        Objective::parse(x).ok_or_else(|| {
            format!("unknown objective {x:?}; use itl, ttft, throughput, cost, energy or devices")
        })
    })?;
    let limits = Limits {
        ttft_s: limit("ttft", &a.ttft, Kind::Time)?,
        itl_s: limit("itl", &a.itl, Kind::Time)?,
        tokens_per_s_per_user: limit("min-rate", &a.min_rate, Kind::Count)?,
        budget_per_hour_usd: limit("budget", &a.budget, Kind::Count)?,
    };
    let assume: Vec<(String, String)> = a
        .assume
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| input("assume", format!("{kv:?} is not KEY=VALUE")))
        })
        .collect::<Result<_, _>>()?;
    let asm = profile_on(cat, &a.profile, &assume, &entries)?.assumptions;
    let idle = match a.idle_power {
        Some(v) if (0.0..=1.0).contains(&v) => v,
        Some(v) => return Err(input("idle-power", format!("{v} is not between 0 and 1"))),
        None => DEFAULT_IDLE_SHARE,
    };
    Ok(Space {
        model,
        axes,
        objectives,
        limits,
        asm,
        idle,
    })
}

pub fn explore(cat: &Catalog, a: &ExploreArgs, style: Style, out: Out) -> Result<(), CliError> {
    let Space {
        model,
        axes,
        objectives,
        limits,
        asm,
        idle,
    } = space(cat, a)?;
    let names: Vec<&str> = objectives.iter().map(|o| o.name()).collect();
    let run =
        |each: &mut dyn FnMut(&Point) -> Result<(), CliError>| -> Result<Summary, CliError> {
            let mut failed = None;
            let x =
                explore::explore_each(model, &axes, &limits, &objectives, &asm, idle, |_, p| {
                    match each(p) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(e) => {
                            failed = Some(e);
                            ControlFlow::Break(())
                        }
                    }
                })?;
            match failed {
                Some(e) => Err(e),
                None => Ok(x),
            }
        };
    let front = |x: &Summary| -> Vec<Map<String, Value>> {
        x.front.iter().map(|(_, p)| record(&axes, p)).collect()
    };
    // Refused before a byte is written: a streamed document is never cut.
    explore::check(model, &axes, &objectives, &asm)?;
    // `--all` rows are written as they are evaluated; only the front is
    // kept, so memory does not grow with the space.
    let mut out = BufWriter::new(out);
    match a.format {
        Format::Json if a.all => {
            let head = json!({ "model": model.id, "objectives": names });
            let head = super::output::json_text(&head);
            // The object without its closing brace, then "all" row by row.
            let head = head.trim_end().trim_end_matches('}').trim_end();
            put(&mut out, &format!("{head},\n  \"all\": ["))?;
            let mut first = true;
            let x = run(&mut |p| {
                let row = pretty(&Value::Object(record(&axes, p)), "    ");
                let sep = if first { "\n    " } else { ",\n    " };
                first = false;
                put(&mut out, &format!("{sep}{row}"))
            })?;
            let tail = json!({
                "evaluated": x.evaluated,
                "feasible": x.feasible,
                "front": front(&x),
            });
            // The tail's keys, after "all", in the same object (its lines
            // are at the object's depth already).
            let tail = super::output::json_text(&tail);
            let tail = tail.trim_start_matches('{').trim_start();
            put(&mut out, &format!("\n  ],\n  {tail}\n"))?;
        }
        Format::Json => {
            let x = run(&mut |_| Ok(()))?;
            let doc = json!({
                "model": model.id,
                "evaluated": x.evaluated,
                "feasible": x.feasible,
                "objectives": names,
                "front": front(&x),
            });
            put(&mut out, &(super::output::json_text(&doc) + "\n"))?;
        }
        Format::Csv if a.all => {
            put(&mut out, &render_list(&[], &COLS, a.format, style))?;
            run(&mut |p| {
                let one = render_list(&[record(&axes, p)], &COLS, a.format, style);
                // The row without the header line each rendering starts with.
                put(&mut out, one.split_once('\n').map_or("", |(_, row)| row))
            })?;
        }
        Format::Csv => {
            let x = run(&mut |_| Ok(()))?;
            put(&mut out, &render_list(&front(&x), &COLS, a.format, style))?;
        }
        Format::Table | Format::Markdown => {
            let x = run(&mut |_| Ok(()))?;
            let mut s = wrap(
                &format!(
                    "{}: {} configurations evaluated, {} feasible, {} on the front ({})\n",
                    model.name,
                    x.evaluated,
                    x.feasible,
                    x.front.len(),
                    names.join(" vs ")
                ),
                style.width,
            );
            if x.front.is_empty() {
                s += &wrap(
                    "Nothing feasible: no configuration holds its batch and meets every limit. Loosen a limit (--ttft, --itl, --min-rate, --budget) or widen an axis (--hardware all, more --tp, int4 in --precision).",
                    style.width,
                );
                s.push('\n');
            } else {
                s.push('\n');
                s += &render_list(&front(&x), &COLS, a.format, style);
            }
            put(&mut out, &s)?;
        }
    }
    out.flush().map_err(super::write_error)
}

/// Write `s` to the buffered output.
fn put(out: &mut BufWriter<Out>, s: &str) -> Result<(), CliError> {
    write(out, s)
}

/// `v` as pretty JSON with every line after the first indented by
/// `indent`, to sit inside an enclosing object.
fn pretty(v: &Value, indent: &str) -> String {
    let s = super::output::json_text(v);
    s.replace('\n', &format!("\n{indent}"))
}

/// The columns of a configuration: what it is, then every objective.
const COLS: [super::output::Col; 13] = [
    col("device", "hardware", Fmt::Text),
    col("precision", "precision", Fmt::Text),
    col("TP", "tp", Fmt::Int),
    col("PP", "pp", Fmt::Int).opt(4),
    col("batch", "batch", Fmt::Int),
    col("prompt", "prompt", Fmt::Tokens).opt(5),
    col("output", "output", Fmt::Tokens).opt(6),
    col("TTFT", "ttft_s", Fmt::Time),
    col("ITL", "itl_s", Fmt::Time),
    col(
        "out tok/s/dev w/ prefill",
        "output_tokens_per_s_per_device_with_prefill",
        Fmt::Num,
    )
    .opt(1),
    col("$/Mtok", "cost_per_million_tokens_usd", Fmt::Usd),
    col("J/token", "energy_per_token_j", Fmt::Num).opt(2),
    col("devices", "devices", Fmt::Int).opt(3),
];

/// One configuration as the JSON contract has it.
fn record(axes: &Axes, p: &Point) -> Map<String, Value> {
    let c = p.config;
    let prec = axes.precisions[c.precisions];
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    put("hardware", json!(axes.hardware[c.hardware].id));
    put("precision", json!(prec.label()));
    put("weights", json!(prec.weights.name()));
    put("activations", json!(prec.activations.name()));
    put("kv", json!(prec.kv.name()));
    put("tp", json!(c.tp));
    put("pp", json!(c.pp));
    put("batch", json!(axes.batch[c.batch]));
    put("prompt", json!(axes.prompt[c.prompt]));
    put("output", json!(axes.output[c.output]));
    let f = p.figures.as_ref();
    for o in Objective::ALL {
        put(o.key(), json!(f.and_then(|f| o.value(f))));
    }
    put(
        "tokens_per_s_per_user",
        json!(f.map(|f| f.tokens_per_s_per_user)),
    );
    put(
        "cost_per_hour_usd",
        json!(f.and_then(|f| f.cost_per_hour_usd)),
    );
    put(
        "status",
        json!(match p.verdict {
            Verdict::Feasible => "feasible",
            Verdict::Invalid => "invalid layout",
            Verdict::DoesNotFit => "does not fit",
            Verdict::MissesLimit => "misses a limit",
            Verdict::Unknown => "objective unknown",
        }),
    );
    m
}
