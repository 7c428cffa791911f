//! The scriptable command line over the same solver the workbench uses.
//! Exit codes: 0 ok; 2 bad input (the message names the flag or file and the
//! fix); 3 a verdict the user asked for failed (--require-fit, an SLA).

pub mod args;
pub mod output;
mod serving;

use crate::catalog::{self, Catalog, HardwareEntry, ModelEntry};
use crate::solver::{
    self, Arch, Assumptions, Evaluation, Param, RankBy, Target, Workload, sweep, units,
};
use args::{BatchSpec, Cli, Command, Format, WorkloadArgs, ZooKind};
use output::{Col, Fmt, col, render_list, render_record};
use serde_json::{Map, Value, json};
use std::io::Write;

/// What went wrong, and the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit 2.
    Input(String),
    /// A requested verdict failed: exit 3 (the output was printed).
    Verdict(String),
}

impl CliError {
    pub fn code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Verdict(_) => 3,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(m) | CliError::Verdict(m) => f.write_str(m),
        }
    }
}

impl From<solver::SolverError> for CliError {
    fn from(e: solver::SolverError) -> Self {
        CliError::Input(e.to_string())
    }
}

impl From<catalog::LookupError> for CliError {
    fn from(e: catalog::LookupError) -> Self {
        let flag = match e.what {
            "hardware" => "--hardware",
            "model" => "--model",
            _ => "--region",
        };
        CliError::Input(format!("{flag}: {e}"))
    }
}

pub(crate) type Out<'a> = &'a mut dyn Write;

/// Load the catalog for a command: built-in, then the user's files; report
/// problems on stderr and keep going with what is valid.
pub fn load_catalog(cli: &Cli, err: Out) -> Catalog {
    let dir = catalog::user_catalog_dir(cli.catalog.as_deref());
    let c = Catalog::load(dir.as_deref());
    for d in &c.diagnostics {
        let _ = writeln!(
            err,
            "warning: {d} (entry skipped; the rest of the catalog is loaded)"
        );
    }
    c
}

/// Run a subcommand; returns the process exit code.
pub fn run(cli: &Cli, command: &Command, out: Out, err: Out) -> i32 {
    let result = match command {
        Command::Catalog(args::CatalogArgs {
            action: args::CatalogAction::Check { dir },
        }) => catalog_check(cli, dir.as_deref(), out),
        other => {
            let cat = load_catalog(cli, err);
            dispatch(&cat, other, out)
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            let prefix = match e {
                CliError::Input(_) => "error",
                CliError::Verdict(_) => "verdict",
            };
            let _ = writeln!(err, "{prefix}: {e}");
            e.code()
        }
    }
}

fn dispatch(cat: &Catalog, command: &Command, out: Out) -> Result<(), CliError> {
    match command {
        Command::Eval(a) => eval(cat, a, out),
        Command::Sens(a) => sens(cat, a, out),
        Command::Synth(a) => synth(cat, a, out),
        Command::Compare(a) => compare(cat, &a.workload, &a.hardware, out),
        Command::Sweep(a) => match a.contexts {
            Some(c) => context_sweep_cmd(cat, &a.workload, &a.hardware, c, out),
            None => sweep_cmd(cat, &a.workload, &a.hardware, out),
        },
        Command::Zoo(a) => zoo(cat, a.kind, a.format, out),
        Command::Serve(a) => serving::serve(cat, a, out),
        Command::Fleet(a) => serving::fleet(cat, a, out),
        Command::Catalog(_) => unreachable_catalog(),
    }
}

fn unreachable_catalog() -> Result<(), CliError> {
    Err(CliError::Input("catalog is handled before dispatch".into()))
}

pub(crate) fn write(out: Out, s: &str) -> Result<(), CliError> {
    out.write_all(s.as_bytes())
        .map_err(|e| CliError::Input(format!("cannot write output: {e}")))
}

/// The assumptions from the flags, defaults where a flag is absent.
pub fn assumptions(w: &WorkloadArgs) -> Assumptions {
    let d = Assumptions::default();
    Assumptions {
        compute_efficiency: w.compute_eff.unwrap_or(d.compute_efficiency),
        memory_efficiency: w.memory_eff.unwrap_or(d.memory_efficiency),
        link_efficiency: w.link_eff.unwrap_or(d.link_efficiency),
        overhead_s: w.overhead.unwrap_or(d.overhead_s),
        link_latency_s: w.link_latency.unwrap_or(d.link_latency_s),
        usable_memory: w.usable_memory.unwrap_or(d.usable_memory),
        overlap: w.overlap.unwrap_or(d.overlap),
    }
}

/// The workload from the flags at batch `batch`.
pub fn workload(w: &WorkloadArgs, batch: u64) -> Workload {
    let base = w.precision.unwrap_or(Workload::default().weights);
    Workload {
        phase: w.phase.into(),
        batch: batch as f64,
        context: w.context as f64,
        weights: w.weights.unwrap_or(base),
        activations: w.activations.unwrap_or(base),
        kv: w.kv.unwrap_or(base),
        tp: w.tp,
        pp: w.pp,
    }
}

/// The single batch of a non-sweep command.
pub(crate) fn single_batch(w: &WorkloadArgs) -> Result<u64, CliError> {
    match w.batch {
        None => Ok(1),
        Some(BatchSpec::One(b)) => Ok(b),
        Some(BatchSpec::Range(..)) => Err(CliError::Input(
            "--batch takes one number here; a range like 1..512 is for `ridgeline sweep`".into(),
        )),
    }
}

/// Devices named by a comma-separated list, or every device for "all".
pub(crate) fn devices<'c>(
    cat: &'c Catalog,
    list: &str,
) -> Result<Vec<&'c HardwareEntry>, CliError> {
    if list.trim().eq_ignore_ascii_case("all") {
        return Ok(cat.hardware.iter().collect());
    }
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        return Err(CliError::Input(
            "--hardware: name at least one device, or \"all\"".into(),
        ));
    }
    names.into_iter().map(|n| Ok(cat.hardware(n)?)).collect()
}

/// An evaluation as a JSON record: the contract keys first (README), then more.
pub fn eval_record(
    e: &Evaluation,
    hw: &HardwareEntry,
    model: &ModelEntry,
    wl: &Workload,
) -> Map<String, Value> {
    let f = &e.memory.footprint;
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    put("hardware", json!(hw.hw.id));
    put("model", json!(model.model.id));
    put("phase", json!(wl.phase.name()));
    put("batch", json!(e.batch));
    put("context", json!(e.context));
    put("latency_s", json!(e.latency_s));
    put("compute_s", json!(e.compute_s));
    put("memory_s", json!(e.memory_s));
    put("comm_s", json!(e.comm_s));
    put("overhead_s", json!(e.overhead_s));
    put("tokens_per_s", json!(e.tokens_per_s));
    put("bottleneck", json!(e.bottleneck.name()));
    put("arithmetic_intensity", json!(e.arithmetic_intensity));
    put("ridge_point", json!(e.ridge_point));
    put("fits", json!(e.memory.fits));
    put("memory_required_bytes", json!(f.total()));
    put("memory_capacity_bytes", json!(e.memory.capacity_bytes));
    put(
        "min_devices_to_fit",
        json!(e.min_devices.map(|p| p.devices())),
    );
    put("max_batch", json!(e.max_batch));
    put("effective_ridge_point", json!(e.effective_ridge_point));
    put("tp", json!(wl.tp));
    put("pp", json!(wl.pp));
    put("weights_precision", json!(wl.weights.name()));
    put("activations_precision", json!(wl.activations.name()));
    put("kv_precision", json!(wl.kv.name()));
    put("compute_precision", json!(e.compute_precision.name()));
    put("peak_flops_per_s", json!(e.peak_flops));
    put(
        "memory_bandwidth_bytes_per_s",
        json!(hw.hw.memory_bandwidth),
    );
    put("flops", json!(e.cost.flops));
    put("bytes", json!(e.cost.bytes()));
    put("mfu", json!(e.mfu));
    put("mbu", json!(e.mbu));
    put("weights_bytes", json!(f.weights));
    put("kv_bytes", json!(f.kv));
    put("workspace_bytes", json!(f.workspace));
    put("memory_usable_bytes", json!(e.memory.usable_bytes));
    put("min_tp_to_fit", json!(e.min_devices.map(|p| p.tp)));
    put("min_pp_to_fit", json!(e.min_devices.map(|p| p.pp)));
    put(
        "cost_per_hour_usd",
        json!(hw.hw.price_per_hour_usd.map(|p| p * (wl.tp * wl.pp) as f64)),
    );
    put(
        "notes",
        json!(e.notes.iter().map(|n| n.to_string()).collect::<Vec<_>>()),
    );
    put("explanation", json!(e.explanation()));
    m
}

const EVAL_COLS: &[Col] = &[
    col("latency", "latency_s", Fmt::Time),
    col("  compute", "compute_s", Fmt::Time),
    col("  memory", "memory_s", Fmt::Time),
    col("  communication", "comm_s", Fmt::Time),
    col("  overhead", "overhead_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("bottleneck", "bottleneck", Fmt::Text),
    col(
        "arithmetic intensity (FLOP/B)",
        "arithmetic_intensity",
        Fmt::Num,
    ),
    col("ridge point (FLOP/B)", "ridge_point", Fmt::Num),
    col(
        "effective ridge (FLOP/B)",
        "effective_ridge_point",
        Fmt::Num,
    ),
    col("math precision", "compute_precision", Fmt::Text),
    col("MFU", "mfu", Fmt::Pct),
    col("MBU", "mbu", Fmt::Pct),
    col("memory per device", "memory_required_bytes", Fmt::Bytes),
    col("  weights", "weights_bytes", Fmt::Bytes),
    col("  KV cache", "kv_bytes", Fmt::Bytes),
    col("  workspace", "workspace_bytes", Fmt::Bytes),
    col("usable memory", "memory_usable_bytes", Fmt::Bytes),
    col("capacity", "memory_capacity_bytes", Fmt::Bytes),
    col("fits", "fits", Fmt::Text),
    col("fewest devices to fit", "min_devices_to_fit", Fmt::Int),
    col("max batch at this context", "max_batch", Fmt::Int),
];

/// Headline of a human-readable result.
pub(crate) fn headline(hw: &HardwareEntry, model: &ModelEntry, wl: &Workload) -> String {
    let shape = match model.model.arch {
        Arch::Decoder(_) => format!(
            "{}, batch {}, context {}",
            wl.phase.name(),
            units::format_count(wl.batch),
            units::format_count(wl.context)
        ),
        Arch::SinglePass(_) => format!(
            "forward pass, batch {}{}",
            units::format_count(wl.batch),
            model
                .input
                .as_deref()
                .map(|i| format!(" ({i})"))
                .unwrap_or_default()
        ),
    };
    format!(
        "{} on {}: {shape}, weights {} / activations {} / KV {}, TP {} x PP {}\n",
        model.model.name, hw.hw.name, wl.weights, wl.activations, wl.kv, wl.tp, wl.pp
    )
}

/// The fit verdict in words, with the fix.
fn fit_sentence(e: &Evaluation, wl: &Workload) -> String {
    let f = e.memory.footprint.total();
    if e.memory.fits {
        return format!(
            "fits: {} per device of {} usable ({} x {:.0}%); up to batch {} at this context\n",
            units::format_bytes(f),
            units::format_bytes(e.memory.usable_bytes),
            units::format_bytes(e.memory.capacity_bytes),
            e.memory.usable_bytes / e.memory.capacity_bytes * 100.0,
            e.max_batch
        );
    }
    let fix = match e.min_devices {
        Some(p) if p.pp == 1 => format!("needs {} devices: try --tp {}", p.devices(), p.tp),
        Some(p) => format!(
            "needs {} devices: try --tp {} --pp {}",
            p.devices(),
            p.tp,
            p.pp
        ),
        None => "no layout of up to 4096 pipeline stages holds it".to_string(),
    };
    format!(
        "DOES NOT FIT on {} device{}: needs {} per device but {} is usable ({} x {:.0}%); {fix}\n",
        wl.tp * wl.pp,
        if wl.tp * wl.pp == 1 { "" } else { "s" },
        units::format_bytes(f),
        units::format_bytes(e.memory.usable_bytes),
        units::format_bytes(e.memory.capacity_bytes),
        e.memory.usable_bytes / e.memory.capacity_bytes * 100.0,
    )
}

fn eval(cat: &Catalog, a: &args::EvalArgs, out: Out) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let e = solver::evaluate(&hw.hw, &model.model, &wl, &assumptions(&a.workload))?;
    let rec = eval_record(&e, hw, model, &wl);
    let fmt = a.workload.format;
    if matches!(fmt, Format::Table | Format::Markdown) {
        let mut s = headline(hw, model, &wl);
        s.push_str(&fit_sentence(&e, &wl));
        s.push('\n');
        s.push_str(&render_record(&rec, EVAL_COLS, fmt));
        s.push_str(&format!("\n{}\n", e.explanation()));
        for n in &e.notes {
            s.push_str(&format!("note: {n}\n"));
        }
        write(out, &s)?;
    } else {
        write(out, &render_record(&rec, EVAL_COLS, fmt))?;
    }
    if a.require_fit && !e.memory.fits {
        return Err(CliError::Verdict(format!(
            "--require-fit: {} does not fit on {} x {}",
            model.model.id,
            wl.tp * wl.pp,
            hw.hw.id
        )));
    }
    Ok(())
}

fn sens(cat: &Catalog, a: &args::SensArgs, out: Out) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let s = solver::sensitivity(
        &hw.hw,
        &model.model,
        &wl,
        &assumptions(&a.workload),
        a.perturb,
    )?;
    let el: Map<String, Value> = s
        .rows
        .iter()
        .map(|r| (r.param.key().to_string(), json!(r.elasticity)))
        .collect();
    let fc: Map<String, Value> = s
        .rows
        .iter()
        .map(|r| (r.param.key().to_string(), json!(r.finite_change)))
        .collect();
    let mut rec = Map::new();
    rec.insert("hardware".into(), json!(hw.hw.id));
    rec.insert("model".into(), json!(model.model.id));
    rec.insert("latency_s".into(), json!(s.base.latency_s));
    rec.insert("elasticities".into(), Value::Object(el));
    rec.insert("finite_change".into(), Value::Object(fc));
    rec.insert("perturb".into(), json!(s.perturb));
    rec.insert("binding".into(), json!(s.binding.map(|p| p.key())));
    rec.insert(
        "headroom".into(),
        json!({"resource": s.headroom.param.key(), "factor": s.headroom.factor}),
    );
    rec.insert("bottleneck".into(), json!(s.base.bottleneck.name()));
    rec.insert("fit_margin".into(), json!(s.fit_margin));
    rec.insert("fits".into(), json!(s.base.memory.fits));
    rec.insert(
        "capacity_for_double_batch_bytes".into(),
        json!(s.capacity_for_double_batch),
    );
    match a.workload.format {
        Format::Json => write(
            out,
            &(serde_json::to_string_pretty(&Value::Object(rec)).unwrap_or_default() + "\n"),
        ),
        fmt => {
            let rows: Vec<Map<String, Value>> = s
                .rows
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    let bind = if Some(r.param) == s.binding {
                        "<- binding"
                    } else {
                        ""
                    };
                    m.insert("parameter".into(), json!(r.param.key()));
                    m.insert("elasticity".into(), json!(r.elasticity));
                    m.insert("finite_change".into(), json!(r.finite_change));
                    m.insert("bar".into(), json!(bar(r.elasticity)));
                    m.insert("binding".into(), json!(bind));
                    m
                })
                .collect();
            let pct = format!("{:.0}", a.perturb * 100.0);
            let cols = [
                col("parameter", "parameter", Fmt::Text),
                col("elasticity d lnT/d lnx", "elasticity", Fmt::Num),
                col("latency change for +step", "finite_change", Fmt::Pct),
                col("", "bar", Fmt::Text),
                col("", "binding", Fmt::Text),
            ];
            let mut txt = String::new();
            if fmt != Format::Csv {
                txt.push_str(&headline(hw, model, &wl));
                txt.push_str(&format!(
                    "latency {} ({}-bound); step = +{pct}%\n\n",
                    units::format_time(s.base.latency_s),
                    s.base.bottleneck
                ));
            }
            txt.push_str(&render_list(&rows, &cols, fmt));
            if fmt != Format::Csv {
                txt.push_str(&format!(
                    "\nbinding constraint: {}\nheadroom: {} could fall {}x before it binds\nmemory capacity: fit margin {} (usable / needed); {} would hold twice the batch\n",
                    s.binding.map_or("none (fixed costs dominate)", Param::label),
                    s.headroom.param.label(),
                    units::format_number(s.headroom.factor),
                    units::format_number(s.fit_margin),
                    units::format_bytes(s.capacity_for_double_batch),
                ));
                if let Some(p) = s.precision_step {
                    txt.push_str(&format!(
                        "precision: weights {} and KV {} (math stays {}) change latency by {}\n",
                        p.weights,
                        p.kv,
                        s.base.compute_precision,
                        units::format_percent(p.latency_change)
                    ));
                }
                if !s.base.memory.fits {
                    txt.push_str(&fit_sentence(&s.base, &wl));
                }
            }
            write(out, &txt)
        }
    }
}

/// A text bar for an elasticity in [-1, 1]: ten cells per unit.
fn bar(e: f64) -> String {
    let n = (e.abs().min(1.0) * 10.0).round() as usize;
    let c = if e < 0.0 { '-' } else { '+' };
    std::iter::repeat_n(c, n).collect()
}

fn synth(cat: &Catalog, a: &args::SynthArgs, out: Out) -> Result<(), CliError> {
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let asm = assumptions(&a.workload);
    let target = Target {
        latency_s: a.target,
        min_tokens_per_s: a.min_tokens_per_s,
    };
    let req = solver::synthesize(&model.model, &wl, &asm, &target, a.comm_share)?;
    let entries = devices(cat, &a.hardware)?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let by = match a.rank {
        args::RankArg::Cost => RankBy::Cost,
        args::RankArg::Latency => RankBy::Latency,
    };
    let matches = solver::rank(&hws, &model.model, &wl, &asm, &target, by)?;
    let match_recs: Vec<Map<String, Value>> = matches
        .iter()
        .map(|m| {
            let mut r = Map::new();
            r.insert("hardware".into(), json!(m.hardware_id));
            r.insert("devices".into(), json!(m.devices()));
            r.insert("tp".into(), json!(m.layout.tp));
            r.insert("pp".into(), json!(m.layout.pp));
            r.insert("latency_s".into(), json!(m.latency_s));
            r.insert("tokens_per_s".into(), json!(m.tokens_per_s));
            r.insert("cost_per_hour_usd".into(), json!(m.cost_per_hour_usd));
            r
        })
        .collect();
    let mut rec = Map::new();
    rec.insert("model".into(), json!(model.model.id));
    rec.insert("target_latency_s".into(), json!(a.target));
    rec.insert(
        "required_flops_per_s".into(),
        num_or_null(req.required_flops_per_s),
    );
    rec.insert(
        "required_memory_bandwidth_bytes_per_s".into(),
        num_or_null(req.required_memory_bandwidth),
    );
    rec.insert(
        "required_memory_bytes".into(),
        json!(req.required_memory_bytes),
    );
    rec.insert(
        "required_link_bandwidth_bytes_per_s".into(),
        json!(req.required_link_bandwidth),
    );
    rec.insert(
        "compute_precision".into(),
        json!(req.compute_precision.name()),
    );
    rec.insert("feasible".into(), json!(req.feasible));
    rec.insert("reason".into(), json!(req.reason));
    rec.insert(
        "matches".into(),
        Value::Array(match_recs.iter().cloned().map(Value::Object).collect()),
    );
    match a.workload.format {
        Format::Json => write(
            out,
            &(serde_json::to_string_pretty(&Value::Object(rec)).unwrap_or_default() + "\n"),
        )?,
        fmt => {
            let mut s = String::new();
            if fmt != Format::Csv {
                s.push_str(&format!(
                    "{}: {}, batch {}, context {}, {} math, TP {} x PP {}; target {}\n\n",
                    model.model.name,
                    wl.phase.name(),
                    units::format_count(wl.batch),
                    units::format_count(wl.context),
                    req.compute_precision,
                    wl.tp,
                    wl.pp,
                    units::format_time(a.target)
                ));
                if req.feasible {
                    s.push_str(&format!(
                        "required per device: {} peak, {} memory bandwidth, {} memory{}\n\n",
                        units::format_flops(req.required_flops_per_s),
                        units::format_bandwidth(req.required_memory_bandwidth),
                        units::format_bytes(req.required_memory_bytes),
                        req.required_link_bandwidth
                            .map(|l| format!(", {} link per direction", units::format_bandwidth(l)))
                            .unwrap_or_default()
                    ));
                } else {
                    s.push_str(&format!(
                        "infeasible: {}\n\n",
                        req.reason.clone().unwrap_or_default()
                    ));
                }
                s.push_str(&format!(
                    "{} catalog layouts meet the target and fit",
                    matches.len()
                ));
                if matches.len() > a.top {
                    s.push_str(&format!(" (first {} shown; --top N for more)", a.top));
                }
                s.push_str(":\n");
            }
            let cols = [
                col("hardware", "hardware", Fmt::Text),
                col("devices", "devices", Fmt::Int),
                col("TP", "tp", Fmt::Int),
                col("PP", "pp", Fmt::Int),
                col("latency", "latency_s", Fmt::Time),
                col("tokens/s", "tokens_per_s", Fmt::Num),
                col("$/hour", "cost_per_hour_usd", Fmt::Usd),
            ];
            let shown = if fmt == Format::Csv {
                &match_recs[..]
            } else {
                &match_recs[..match_recs.len().min(a.top)]
            };
            s.push_str(&render_list(shown, &cols, fmt));
            write(out, &s)?;
        }
    }
    if !req.feasible {
        return Err(CliError::Verdict(format!(
            "the target of {} cannot be met: {}",
            units::format_time(a.target),
            req.reason.unwrap_or_default()
        )));
    }
    if matches.is_empty() {
        return Err(CliError::Verdict(format!(
            "no catalog device meets {} and fits",
            units::format_time(a.target)
        )));
    }
    Ok(())
}

fn num_or_null(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

const LIST_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("batch", "batch", Fmt::Int),
    col("latency", "latency_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("bottleneck", "bottleneck", Fmt::Text),
    col("AI", "arithmetic_intensity", Fmt::Num),
    col("ridge", "ridge_point", Fmt::Num),
    col("fits", "fits", Fmt::Text),
    col("min dev", "min_devices_to_fit", Fmt::Int),
    col("max batch", "max_batch", Fmt::Int),
];

fn compare(cat: &Catalog, w: &WorkloadArgs, list: &str, out: Out) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let wl = workload(w, single_batch(w)?);
    let asm = assumptions(w);
    let entries = devices(cat, list)?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let mut recs = Vec::new();
    for (hw, result) in entries
        .iter()
        .zip(sweep::compare(&hws, &model.model, &wl, &asm))
    {
        match result {
            Ok(e) => recs.push(eval_record(&e, hw, model, &wl)),
            Err(e) => return Err(CliError::Input(format!("{}: {e}", hw.hw.id))),
        }
    }
    let mut s = String::new();
    if matches!(w.format, Format::Table | Format::Markdown) {
        s.push_str(&format!(
            "{}: {}, batch {}, context {}, {}\n\n",
            model.model.name,
            wl.phase.name(),
            units::format_count(wl.batch),
            units::format_count(wl.context),
            wl.weights
        ));
    }
    s.push_str(&render_list(&recs, LIST_COLS, w.format));
    write(out, &s)
}

const CONTEXT_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("context", "context", Fmt::Int),
    col("latency", "latency_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("bottleneck", "bottleneck", Fmt::Text),
    col("AI", "arithmetic_intensity", Fmt::Num),
    col("KV cache", "kv_bytes", Fmt::Bytes),
    col("fits", "fits", Fmt::Text),
    col("max batch", "max_batch", Fmt::Int),
];

/// `sweep --contexts LO..HI`: the workload at contexts in powers of two.
fn context_sweep_cmd(
    cat: &Catalog,
    w: &WorkloadArgs,
    list: &str,
    contexts: BatchSpec,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let asm = assumptions(w);
    let wl = workload(w, single_batch(w)?);
    let (lo, hi) = match contexts {
        BatchSpec::One(c) => (c, c),
        BatchSpec::Range(lo, hi) => (lo, hi),
    };
    let points = sweep::powers_of_two(lo, hi);
    let mut recs = Vec::new();
    for hw in devices(cat, list)? {
        let evals = sweep::context_sweep(&hw.hw, &model.model, &wl, &asm, &points)?;
        for (e, s) in evals.iter().zip(&points) {
            recs.push(eval_record(
                e,
                hw,
                model,
                &Workload {
                    context: *s as f64,
                    ..wl
                },
            ));
        }
    }
    let mut s = render_list(&recs, CONTEXT_COLS, w.format);
    if matches!(w.format, Format::Table | Format::Markdown) {
        s = format!(
            "{}: context sweep, batch {}\n\n{s}",
            model.model.name,
            units::format_count(wl.batch)
        );
    }
    write(out, &s)
}

fn sweep_cmd(cat: &Catalog, w: &WorkloadArgs, list: &str, out: Out) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let asm = assumptions(w);
    let mut recs = Vec::new();
    let mut summary = String::new();
    for hw in devices(cat, list)? {
        let base = workload(w, 1);
        let (lo, hi) = match w.batch {
            Some(BatchSpec::Range(lo, hi)) => (lo, hi),
            Some(BatchSpec::One(b)) => (b, b),
            None => {
                let e = solver::evaluate(&hw.hw, &model.model, &base, &asm)?;
                (1, e.max_batch.clamp(1, 1 << 20))
            }
        };
        let batches = sweep::powers_of_two(lo, hi);
        let s = sweep::batch_sweep(&hw.hw, &model.model, &base, &asm, &batches)?;
        for (e, b) in s.points.iter().zip(&batches) {
            let wl = Workload {
                batch: *b as f64,
                ..base
            };
            let mut r = eval_record(e, hw, model, &wl);
            r.insert("crossover_batch".into(), json!(s.crossover_batch));
            recs.push(r);
        }
        summary.push_str(&format!(
            "{}: {}\n",
            hw.hw.id,
            match s.crossover_batch {
                Some(x) => format!(
                    "compute time overtakes memory time at batch {}",
                    units::format_number(x)
                ),
                None => "no crossover: memory-bound at every batch (or compute-bound from batch 1)"
                    .into(),
            }
        ));
    }
    let mut s = render_list(&recs, LIST_COLS, w.format);
    if matches!(w.format, Format::Table | Format::Markdown) {
        s = format!("{}: batch sweep\n\n{s}\n{summary}", model.model.name);
    }
    write(out, &s)
}

const HW_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("tier", "tier", Fmt::Text),
    col("year", "year", Fmt::Int),
    col("bf16 (or fallback)", "peak_bf16_flops_per_s", Fmt::Flops),
    col("bandwidth", "memory_bandwidth_bytes_per_s", Fmt::Bandwidth),
    col("memory", "memory_bytes", Fmt::Bytes),
    col("ridge", "ridge_point_bf16", Fmt::Num),
    col("link/dir", "link_bandwidth_bytes_per_s", Fmt::Bandwidth),
    col("TDP W", "tdp_w", Fmt::Int),
    col("$/hour", "price_per_hour_usd", Fmt::Usd),
    col("aliases", "aliases_text", Fmt::Text),
];

const MODEL_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("family", "family", Fmt::Text),
    col("kind", "kind", Fmt::Text),
    col("params", "params", Fmt::Num),
    col("layers", "layers", Fmt::Int),
    col("hidden", "hidden", Fmt::Int),
    col("KV heads", "kv_heads", Fmt::Int),
    col("KV/token bf16", "kv_bytes_per_token_bf16", Fmt::Bytes),
    col("max context", "max_context", Fmt::Int),
    col("aliases", "aliases_text", Fmt::Text),
];

const REGION_COLS: &[Col] = &[
    col("id", "id", Fmt::Text),
    col("name", "name", Fmt::Text),
    col("gCO2/kWh", "grid_gco2_per_kwh", Fmt::Num),
    col("PUE", "pue", Fmt::Num),
    col("$/kWh", "electricity_usd_per_kwh", Fmt::Num),
    col("year", "year", Fmt::Int),
];

fn zoo(cat: &Catalog, kind: ZooKind, format: Format, out: Out) -> Result<(), CliError> {
    let recs: Vec<Map<String, Value>>;
    let cols: &[Col];
    match kind {
        ZooKind::Hardware => {
            recs = cat.hardware.iter().map(hardware_record).collect();
            cols = HW_COLS;
        }
        ZooKind::Models => {
            recs = cat.models.iter().map(model_record).collect();
            cols = MODEL_COLS;
        }
        ZooKind::Regions => {
            recs = cat
                .regions
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    m.insert("id".into(), json!(r.id));
                    m.insert("name".into(), json!(r.name));
                    m.insert("grid_gco2_per_kwh".into(), json!(r.grid_gco2_per_kwh));
                    m.insert("pue".into(), json!(r.pue));
                    m.insert(
                        "electricity_usd_per_kwh".into(),
                        json!(r.electricity_usd_per_kwh),
                    );
                    m.insert("year".into(), json!(r.year));
                    m.insert("source".into(), json!(r.source));
                    m
                })
                .collect();
            cols = REGION_COLS;
        }
    }
    write(out, &render_list(&recs, cols, format))
}

/// A device with its figures, for `zoo hardware`.
pub fn hardware_record(e: &HardwareEntry) -> Map<String, Value> {
    let hw = &e.hw;
    let mut m = Map::new();
    m.insert("id".into(), json!(hw.id));
    m.insert("name".into(), json!(hw.name));
    m.insert("vendor".into(), json!(e.vendor));
    m.insert("family".into(), json!(e.family));
    m.insert("tier".into(), json!(hw.tier.name()));
    m.insert("year".into(), json!(hw.year));
    let bf16 = hw.peaks.resolve(solver::Precision::Bf16);
    m.insert("peak_bf16_flops_per_s".into(), json!(bf16.map(|x| x.1)));
    let peaks: Map<String, Value> = solver::Precision::ALL
        .iter()
        .filter_map(|p| hw.peaks.get(*p).map(|v| (p.name().to_string(), json!(v))))
        .collect();
    m.insert("peak_flops_per_s".into(), Value::Object(peaks));
    m.insert("memory_bytes".into(), json!(hw.memory_bytes));
    m.insert(
        "memory_bandwidth_bytes_per_s".into(),
        json!(hw.memory_bandwidth),
    );
    m.insert(
        "ridge_point_bf16".into(),
        json!(bf16.map(|x| x.1 / hw.memory_bandwidth)),
    );
    m.insert(
        "link_bandwidth_bytes_per_s".into(),
        json!(hw.link_bandwidth),
    );
    m.insert("devices_per_node".into(), json!(hw.devices_per_node));
    m.insert(
        "scaleout_bandwidth_bytes_per_s".into(),
        json!(hw.scaleout_bandwidth),
    );
    m.insert("tdp_w".into(), json!(hw.tdp_w));
    m.insert("price_per_hour_usd".into(), json!(hw.price_per_hour_usd));
    m.insert(
        "price_as_of".into(),
        json!(e.price.as_ref().map(|p| p.as_of.clone())),
    );
    m.insert("aliases".into(), json!(e.aliases));
    m.insert("aliases_text".into(), json!(e.aliases.join(" ")));
    m.insert("source".into(), json!(e.source));
    m
}

/// A model with its figures, for `zoo models`.
pub fn model_record(e: &ModelEntry) -> Map<String, Value> {
    let md = &e.model;
    let mut m = Map::new();
    m.insert("id".into(), json!(md.id));
    m.insert("name".into(), json!(md.name));
    m.insert("family".into(), json!(e.family));
    m.insert("kind".into(), json!(md.kind.name()));
    m.insert("year".into(), json!(e.year));
    m.insert("params".into(), json!(md.params));
    match &md.arch {
        Arch::Decoder(d) => {
            m.insert("layers".into(), json!(d.layers));
            m.insert("hidden".into(), json!(d.hidden));
            m.insert("heads".into(), json!(d.heads));
            m.insert("kv_heads".into(), json!(d.kv_heads));
            m.insert("head_dim".into(), json!(d.head_dim));
            m.insert("vocab".into(), json!(d.vocab));
            m.insert("max_context".into(), json!(d.max_context));
            m.insert(
                "kv_bytes_per_token_bf16".into(),
                json!(d.kv_bytes_per_token(2.0)),
            );
            m.insert("experts".into(), json!(d.moe.map(|x| x.experts)));
            m.insert(
                "active_params".into(),
                json!(d.moe.map(|x| x.active_params)),
            );
        }
        Arch::SinglePass(s) => {
            m.insert("flops_per_sample".into(), json!(s.flops_per_sample));
            m.insert("input".into(), json!(e.input));
        }
    }
    m.insert("aliases".into(), json!(e.aliases));
    m.insert("aliases_text".into(), json!(e.aliases.join(" ")));
    m.insert("source".into(), json!(e.source));
    m
}

fn catalog_check(cli: &Cli, dir: Option<&std::path::Path>, out: Out) -> Result<(), CliError> {
    let dir = match dir {
        Some(d) => {
            if !d.is_dir() {
                return Err(CliError::Input(format!(
                    "catalog check: {} is not a directory; give a folder holding hardware/*.toml, models/*.toml or regions.toml",
                    d.display()
                )));
            }
            Some(d.to_path_buf())
        }
        None => catalog::user_catalog_dir(cli.catalog.as_deref()),
    };
    let c = Catalog::load(dir.as_deref());
    let mut s = String::new();
    for d in &c.diagnostics {
        s.push_str(&format!("{d}\n"));
    }
    s.push_str(&format!(
        "{} devices, {} models, {} regions loaded (built-in{})\n",
        c.hardware.len(),
        c.models.len(),
        c.regions.len(),
        dir.as_ref()
            .filter(|d| d.exists())
            .map(|d| format!(" + {}", d.display()))
            .unwrap_or_default()
    ));
    write(out, &s)?;
    if c.diagnostics.is_empty() {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "{} problem{} in the catalog files above: fix them, or remove the files",
            c.diagnostics.len(),
            if c.diagnostics.len() == 1 { "" } else { "s" }
        )))
    }
}
