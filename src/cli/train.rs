//! `ridgeline train`: one training configuration (step time and its
//! parts, memory per device, MFU and HFU, the critical batch, elasticities,
//! the run's time, cost, energy, carbon and goodput), and with `--search`
//! the layouts of the device count ranked by step time.

use super::args::{
    AttentionArg, CrossEntropyArg, Format, GradPrecisionArg, LowPrecisionStorageArg,
    MatmulCeilingArg, OptimizerArg, ProfileArgs, TokensArg, TrainArgs, TrainKnobs, TrainSetup,
};
use super::collective::link_assumptions_on;
use super::output::{Col, Fmt, Style, col, render_list, render_record, wrap};
use super::{CliError, Out, write};
use crate::catalog::Catalog;
use crate::solver::economics::DEFAULT_IDLE_SHARE;
use crate::solver::training::layout::{self, Candidate};
use crate::solver::training::run::{self, RunFigures};
use crate::solver::training::step::{self, Knob};
use crate::solver::training::{
    self, Attention, CrossEntropy, DEFAULTS, GradPrecision, Layout, LowPrecisionStorage,
    MatmulCeiling, Optimizer, Training, TrainingAssumptions, TrainingRun,
};
use crate::solver::{Assumptions, Hardware, units};
use serde_json::{Map, Value, json};

/// The layout of the flags: the degrees given, and dp from --dp or from
/// what --devices leaves; their product must be the device count.
pub(crate) fn layout_of(args: &TrainArgs) -> Result<Layout, CliError> {
    let pinned = pinned_layout(&args.setup, 1);
    let inner = pinned.devices();
    let dp = match (args.devices, args.dp) {
        (None, None) => DEFAULTS.dp_for(inner),
        (None, Some(dp)) => dp,
        (Some(n), None) => {
            if !(n as u64).is_multiple_of(inner) {
                return Err(CliError::Input(format!(
                    "--devices {n} is not a multiple of tp x pp x ep x cp = {} x {} x {} x {} = {inner}; give a device count the other degrees divide, or set --dp",
                    pinned.tp, pinned.pp, pinned.ep, pinned.cp
                )));
            }
            (n as u64 / inner) as u32
        }
        (Some(n), Some(dp)) => {
            let product = inner.saturating_mul(dp as u64);
            if product != n as u64 {
                return Err(CliError::Input(format!(
                    "the layout dp x tp x pp x ep x cp = {dp} x {} x {} x {} x {} = {product} devices is not --devices {n}; change a degree or leave out --dp",
                    pinned.tp, pinned.pp, pinned.ep, pinned.cp
                )));
            }
            dp
        }
    };
    let l = Layout { dp, ..pinned };
    if l.devices() > crate::solver::roofline::MAX_DEGREE as u64 {
        return Err(CliError::Input(format!(
            "the layout {l} uses {} devices; at most 65536 are modelled",
            l.devices()
        )));
    }
    Ok(l)
}

/// The degrees of the flags (1 for each not given) with `dp`.
pub(crate) fn pinned_layout(s: &TrainSetup, dp: u32) -> Layout {
    Layout {
        dp,
        tp: s.tp.unwrap_or(1),
        pp: s.pp.unwrap_or(1),
        ep: s.ep.unwrap_or(1),
        cp: s.cp.unwrap_or(1),
        v: s.interleave.unwrap_or(1),
    }
}

/// Whether the flags pin any part of the layout: a degree, the ZeRO
/// stage, the recomputation or the micro-batch.
pub(crate) fn pins_layout(s: &TrainSetup) -> bool {
    [s.tp, s.pp, s.ep, s.cp, s.interleave]
        .iter()
        .any(Option::is_some)
        || s.zero.is_some()
        || s.recompute.is_some()
        || s.micro_batch.is_some()
}

/// The run of the flags, each flag not given taken from the training
/// defaults the Training view opens on ([`DEFAULTS`]).
pub(crate) fn run_of(args: &TrainSetup, seq: f64, layout: Layout) -> Result<TrainingRun, CliError> {
    let micro_batch = match args.micro_batch {
        None => DEFAULTS.micro_batch,
        Some(b) => u32::try_from(b)
            .map_err(|_| CliError::Input("--micro-batch: at most 4294967295 sequences".into()))?,
    };
    Ok(TrainingRun {
        global_batch_tokens: args.global_batch.unwrap_or(DEFAULTS.global_batch_tokens),
        micro_batch,
        seq,
        layout,
        zero: args.zero.unwrap_or(DEFAULTS.zero),
        recompute: args.recompute.unwrap_or(DEFAULTS.recompute),
        precision: args.precision,
        optimizer: match args.optimizer {
            OptimizerArg::Adam => Optimizer::Adam,
            OptimizerArg::Adam8bit => Optimizer::Adam8bit,
        },
        attention: match args.attention {
            None => DEFAULTS.attention,
            Some(AttentionArg::Flash) => Attention::Flash,
            Some(AttentionArg::Eager) => Attention::Eager,
        },
        dropout: args.dropout,
        offload: args.offload,
        edge_layers: args.edge_layers.unwrap_or(0),
        contiguous: args.contiguous.unwrap_or(0),
    })
}

/// The step's assumptions on `device`: the profile's values for its class
/// (`[profile.class.NAME]`, as `eval` and the workbench take them), the
/// `--assume` changes, then the flags.
pub(crate) fn assumptions_of(
    cat: &Catalog,
    profile: &ProfileArgs,
    args: &TrainKnobs,
    device: &crate::catalog::HardwareEntry,
) -> Result<Assumptions, CliError> {
    let a = link_assumptions_on(cat, profile, &[device])?;
    Ok(Assumptions {
        compute_efficiency: args.compute_eff.unwrap_or(a.compute_efficiency),
        memory_efficiency: args.memory_eff.unwrap_or(a.memory_efficiency),
        usable_memory: args.usable_memory.unwrap_or(a.usable_memory),
        ..a
    })
}

/// The step's training assumptions: the profile's, its `--assume`
/// training keys, then the flags (the run's failures and checkpoints at
/// their defaults).
pub(crate) fn step_assumptions(
    cat: &Catalog,
    profile: &ProfileArgs,
    args: &TrainKnobs,
) -> Result<TrainingAssumptions, CliError> {
    let d = super::profile_training(
        cat,
        &profile.profile,
        &profile.assume,
        &TrainingAssumptions::default(),
    )?;
    Ok(TrainingAssumptions {
        dp_overlap: args.dp_overlap.unwrap_or(d.dp_overlap),
        tp_overlap: args.tp_overlap.unwrap_or(d.tp_overlap),
        ep_overlap: args.ep_overlap.unwrap_or(d.ep_overlap),
        cp_overlap: args.cp_overlap.unwrap_or(d.cp_overlap),
        overlap_slowdown: args.overlap_slowdown.unwrap_or(d.overlap_slowdown),
        moe_capacity: args.moe_capacity.unwrap_or(d.moe_capacity),
        attention_efficiency: args.attention_eff.unwrap_or(d.attention_efficiency),
        moe_token_time_s: args.moe_token_time.unwrap_or(d.moe_token_time_s),
        matmul_ceiling: match args.matmul_ceiling {
            None => d.matmul_ceiling,
            Some(MatmulCeilingArg::Measured) => MatmulCeiling::Measured,
            Some(MatmulCeilingArg::Flat) => MatmulCeiling::Flat,
        },
        cross_entropy: match args.cross_entropy {
            None => d.cross_entropy,
            Some(CrossEntropyArg::Fused) => CrossEntropy::Fused,
            Some(CrossEntropyArg::Eager) => CrossEntropy::Eager,
        },
        low_precision_storage: match args.low_precision_storage {
            None => d.low_precision_storage,
            Some(LowPrecisionStorageArg::Narrow) => LowPrecisionStorage::Narrow,
            Some(LowPrecisionStorageArg::Bf16) => LowPrecisionStorage::Bf16,
        },
        grad_precision: match args.grad_precision {
            None => d.grad_precision,
            Some(GradPrecisionArg::Param) => GradPrecision::Param,
            Some(GradPrecisionArg::Fp32) => GradPrecision::Fp32,
        },
        allocator_overhead: args.allocator_overhead.unwrap_or(d.allocator_overhead),
        ..d
    })
}

fn training_assumptions(cat: &Catalog, args: &TrainArgs) -> Result<TrainingAssumptions, CliError> {
    let d = step_assumptions(cat, &args.profile, &args.knobs)?;
    Ok(TrainingAssumptions {
        device_mtbf_s: args.mtbf.unwrap_or(d.device_mtbf_s),
        checkpoint_bandwidth: args.checkpoint_bandwidth.unwrap_or(d.checkpoint_bandwidth),
        restart_s: args.restart.unwrap_or(d.restart_s),
        ..d
    })
}

fn layout_record(r: &TrainingRun) -> Map<String, Value> {
    let mut m = Map::new();
    for (k, v) in r.layout.degrees() {
        m.insert(k.into(), json!(v));
    }
    m.insert("zero".into(), json!(r.zero));
    m.insert("recompute".into(), json!(r.recompute.name()));
    m.insert("micro_batch".into(), json!(r.micro_batch));
    m
}

fn candidate_record(c: &Candidate) -> Map<String, Value> {
    let mut m = layout_record(&c.run);
    m.insert("layout".into(), json!(c.run.layout.to_string()));
    m.insert("step_time_s".into(), json!(c.step_time_s));
    m.insert("tokens_per_s".into(), json!(c.tokens_per_s));
    m.insert("mfu".into(), json!(c.mfu));
    m.insert("binding".into(), json!(c.binding.name()));
    m.insert("memory_per_device_bytes".into(), json!(c.memory_bytes));
    m
}

/// The JSON contract of one training evaluation.
fn record(
    hw: &Hardware,
    model_id: &str,
    region: &str,
    tr: &Training,
    rf: &RunFigures,
    el: &[(Knob, f64)],
) -> Map<String, Value> {
    let s = &tr.step;
    let m = &tr.memory;
    let mut r = Map::new();
    let mut put = |k: &str, v: Value| {
        r.insert(k.to_string(), v);
    };
    put("model", json!(model_id));
    put("hardware", json!(hw.id));
    put("devices", json!(tr.devices()));
    put("layout", Value::Object(layout_record(&tr.run)));
    put("precision", json!(s.compute_precision.name()));
    put("optimizer", json!(tr.run.optimizer.name()));
    put("seq", json!(tr.run.seq));
    put("global_batch_tokens", json!(s.step_tokens));
    put("micro_batches", json!(s.micro_batches));
    put("step_time_s", json!(s.step_time_s));
    put("tokens_per_s", json!(s.tokens_per_s));
    put("mfu", json!(s.mfu));
    put("hfu", json!(s.hfu));
    put("products_efficiency", json!(s.products_efficiency));
    put("flops_per_token", json!(tr.flops.model_per_token));
    put(
        "hardware_flops_per_token",
        json!(tr.flops.hardware_per_token),
    );
    put("compute_s", json!(s.compute_s));
    put("recompute_s", json!(s.recompute_s));
    put("elementwise_s", json!(s.elementwise_s));
    put("moe_routing_s", json!(s.moe_routing_s));
    put("exposed_comm_s", json!(s.exposed_comm_s));
    put("slowed_comm_s", json!(s.comm.slowed()));
    let mut comm = Map::new();
    for (name, c) in s.comm.named() {
        comm.insert(
            name.into(),
            json!({
                "count": c.count,
                "bytes": c.link_bytes,
                "time_s": c.time_s,
                "exposed_s": c.exposed_s,
            }),
        );
    }
    put("comm", Value::Object(comm));
    put("bubble_s", json!(s.bubble_s));
    put("bubble_fraction", json!(s.bubble_fraction));
    put("offload_copy_s", json!(s.offload_copy_s));
    put("offload_s", json!(s.offload_s));
    put("optimizer_s", json!(s.optimizer_s));
    put("overhead_s", json!(s.overhead_s));
    put("binding", json!(s.binding.name()));
    put("fits", json!(m.fits));
    put(
        "memory_per_device_bytes",
        json!({
            "weights": m.weights,
            "gradients": m.gradients,
            "optimizer": m.optimizer,
            "activations": m.activations,
            "logits": m.logits,
            "gathered": m.gathered,
            "reused": m.reused,
            "total": m.total(),
            // The allocator's pool of a run that runs: none for one that
            // does not fit, as the workbench shows none.
            "reserved": if m.fits { json!(m.reserved) } else { Value::Null },
        }),
    );
    put("memory_host_bytes", json!(m.host));
    put("memory_stage", json!(m.stage.name()));
    put("attention", json!(tr.run.attention.name()));
    put("dropout", json!(tr.run.dropout));
    put("offload", json!(tr.run.offload));
    put("edge_layers", json!(tr.run.edge_layers));
    put("contiguous", json!(tr.run.contiguous));
    put("memory_capacity_bytes", json!(m.capacity_bytes));
    put("memory_usable_bytes", json!(m.usable_bytes));
    put(
        "critical_batch_tokens_per_device",
        json!(tr.critical_batch_tokens_per_device),
    );
    let mut e = Map::new();
    for (k, v) in el {
        e.insert(k.name().into(), json!(v));
    }
    put("elasticities", Value::Object(e));
    // A run that does not fit does not run: no run-level figures.
    let run = |v: Value| if m.fits { v } else { Value::Null };
    put("tokens_to_train", json!(rf.tokens));
    put("steps", run(json!(rf.steps)));
    put("time_to_train_s", run(json!(rf.time_to_train_s)));
    put("device_hours", run(json!(rf.device_hours)));
    put("cost_usd", run(json!(rf.cost_usd)));
    put("energy_kwh", run(json!(rf.energy_kwh)));
    put("co2_kg", run(json!(rf.co2_kg)));
    put("region", json!(region));
    put("goodput", run(json!(rf.goodput)));
    put("checkpoint_bytes", json!(rf.checkpoint_bytes));
    put("checkpoint_write_s", json!(rf.checkpoint_write_s));
    put("job_mtbf_s", json!(rf.job_mtbf_s));
    put(
        "checkpoint_interval_s",
        run(json!(rf.checkpoint_interval_s)),
    );
    put("time_lost_s", run(json!(rf.time_lost_s)));
    r
}

/// A training configuration as the flags ask for it, evaluated: the one
/// computation of `train` and `plot train`.
pub(super) struct Evaluated<'c> {
    pub hw: &'c Hardware,
    pub model: &'c crate::solver::Model,
    pub a: Assumptions,
    pub t: TrainingAssumptions,
    /// The run evaluated: as asked, or with --search the fastest layout
    /// found when the one asked for is refused (`refused` says why).
    pub run: TrainingRun,
    pub tr: Training,
    pub refused: Option<String>,
    pub search: Option<layout::Search>,
}

pub(super) fn evaluated<'c>(cat: &'c Catalog, args: &TrainArgs) -> Result<Evaluated<'c>, CliError> {
    let entry = cat.hardware(&args.hardware)?;
    let hw = &entry.hw;
    let model = &cat.model(&args.model)?.model;
    let d = training::decoder(model)?;
    let seq = args.setup.seq.map_or(DEFAULTS.seq_for(d), |s| s as f64);
    let layout = layout_of(args)?;
    let asked = run_of(&args.setup, seq, layout)?;
    let a = assumptions_of(cat, &args.profile, &args.knobs, entry)?;
    let t = training_assumptions(cat, args)?;
    let search = if args.search {
        let n = u32::try_from(layout.devices()).unwrap_or(u32::MAX);
        Some(layout::search(hw, model, &asked, n, &a, &t, args.top)?)
    } else {
        None
    };
    // With --search, a layout the model refuses gives way to the fastest
    // found, and the output says why.
    let (run, tr, refused) = match training::evaluate(hw, model, &asked, &a, &t) {
        Ok(tr) => (asked, tr, None),
        Err(e) => match search.as_ref().and_then(|s| s.ranked.first()) {
            Some(best) => (
                best.run,
                training::evaluate(hw, model, &best.run, &a, &t)?,
                Some(e.to_string()),
            ),
            None => return Err(e.into()),
        },
    };
    Ok(Evaluated {
        hw,
        model,
        a,
        t,
        run,
        tr,
        refused,
        search,
    })
}

pub fn train(cat: &Catalog, args: &TrainArgs, style: Style, out: Out) -> Result<(), CliError> {
    let region = cat.region(&args.region)?;
    let Evaluated {
        hw,
        model,
        a,
        t,
        run,
        tr,
        refused,
        search,
    } = evaluated(cat, args)?;
    let d = training::decoder(model)?;
    let el = step::elasticities(hw, d, &tr.params, &tr.flops, &run, &a, &t)?;
    let spec = run::RunSpec {
        tokens: match args.tokens {
            TokensArg::Count(n) => run::TokensToTrain::Tokens(n),
            TokensArg::Chinchilla => run::TokensToTrain::Chinchilla,
        },
        idle_share: args.idle_power.unwrap_or(DEFAULT_IDLE_SHARE),
        grid: Some(region.grid()),
    };
    let rf = run::run_figures(hw, &tr, &spec, &t);
    let mut rec = record(hw, &model.id, &region.id, &tr, &rf, &el);
    let fixes = if tr.memory.fits {
        Vec::new()
    } else {
        training::memory::fixes(hw, d, &tr.params, &run, &a, &t)
    };
    rec.insert(
        "fixes".into(),
        Value::Array(
            fixes
                .iter()
                .map(|(f, bytes, fits)| {
                    json!({"change": f.to_string(), "memory_per_device_bytes": bytes, "fits": fits})
                })
                .collect(),
        ),
    );
    rec.insert("requested_layout_refused".into(), json!(refused));
    if let Some(s) = &search {
        rec.insert(
            "layouts".into(),
            Value::Array(
                s.ranked
                    .iter()
                    .map(|c| Value::Object(candidate_record(c)))
                    .collect(),
            ),
        );
        rec.insert(
            "search".into(),
            json!({"tried": s.tried, "fitting": s.fitting, "too_big": s.too_big, "no_link": s.no_link}),
        );
    }
    if !tr.memory.fits {
        // A step that does not fit does not run: its figures move under a
        // key that says so, and the text shows the memory and the fixes.
        let mut unfit = Map::new();
        for k in STEP_KEYS {
            if let Some(v) = rec.remove(*k) {
                unfit.insert((*k).to_string(), v);
            }
        }
        rec.insert("as_asked_does_not_fit".into(), Value::Object(unfit));
    }
    let fmt = args.profile.format;
    if fmt == Format::Json {
        return write(out, &render_record(&rec, &[], fmt));
    }
    let mut text = String::new();
    if matches!(fmt, Format::Table | Format::Markdown) {
        if let Some(why) = &refused {
            text.push_str(&wrap(
                &format!(
                    "The layout asked for is refused ({why}); the fastest layout found is shown.\n"
                ),
                style.width,
            ));
        }
        text.push_str(&wrap(
            &heading(model.name.as_str(), hw, &tr, &rf, style),
            style.width,
        ));
        text.push('\n');
    }
    // A dense model routes nothing: its text has no "MoE routing" row
    // (JSON and CSV keep the key, at 0, so their columns do not depend on
    // the model).
    let dense_text = d.moe.is_none() && matches!(fmt, Format::Table | Format::Markdown);
    let summary: Vec<Col> = SUMMARY
        .iter()
        .filter(|c| tr.memory.fits || !STEP_KEYS.contains(&c.key) && !RUN_KEYS.contains(&c.key))
        .filter(|c| !(dense_text && c.key == "moe_routing_s"))
        // Without offloading the text has no host-link rows (JSON and CSV
        // keep the keys, at 0).
        .filter(|c| {
            tr.run.offload
                || !matches!(fmt, Format::Table | Format::Markdown)
                || !matches!(c.key, "offload_s" | "memory_host_bytes")
        })
        // Only full recomputation holds the logits and a rebuilt layer in
        // turn: elsewhere the text has no such row.
        .filter(|c| {
            tr.memory.reused > 0.0
                || !matches!(fmt, Format::Table | Format::Markdown)
                || c.key != "memory_reused"
        })
        .copied()
        .collect();
    text.push_str(&render_record(&flat(&rec), &summary, fmt));
    if fmt != Format::Csv {
        text.push_str(&details(&tr, &el, &fixes, search.as_ref(), fmt, style));
    }
    write(out, &text)
}

/// The tables under the summary: collectives, elasticities, the fixes of a
/// run that does not fit, and the search's ranking.
fn details(
    tr: &Training,
    el: &[(Knob, f64)],
    fixes: &[(training::Fix, f64, bool)],
    search: Option<&layout::Search>,
    fmt: Format,
    style: Style,
) -> String {
    let mut text = String::new();
    let comm = comm_rows(tr);
    // The step's collectives and elasticities are figures of a step that
    // runs: none for one that does not fit.
    if !comm.is_empty() && tr.memory.fits {
        text.push('\n');
        text.push_str(&render_list(&comm, COMM, fmt, style));
    }
    if tr.memory.fits {
        text.push('\n');
        text.push_str(&render_list(&elasticity_rows(el), ELASTICITY, fmt, style));
    }
    if !fixes.is_empty() {
        text.push_str("\nTo fit, change one of:\n");
        for (f, bytes, fits) in fixes {
            text.push_str(&format!(
                "  {f}: {} per device{}\n",
                units::format_bytes(*bytes),
                if *fits { ", fits" } else { ", still too much" }
            ));
        }
    }
    if let Some(s) = search {
        text.push('\n');
        text.push_str(&wrap(
            &format!(
                "Layouts of {} devices: {} tried, {} fit, {} too big for memory, {} need a link the device lacks; the {} fastest:\n",
                tr.devices(),
                s.tried,
                s.fitting,
                s.too_big,
                s.no_link,
                s.ranked.len()
            ),
            style.width,
        ));
        let rows: Vec<Map<String, Value>> = s.ranked.iter().map(candidate_record).collect();
        text.push_str(&render_list(&rows, LAYOUTS, fmt, style));
    }
    text
}

fn heading(name: &str, hw: &Hardware, tr: &Training, rf: &RunFigures, style: Style) -> String {
    let r = &tr.run;
    let s = &tr.step;
    let mut h = format!(
        "{name} on {} x {}: {}, ZeRO {}, recompute {}, {} with {}\n",
        tr.devices(),
        hw.name,
        r.layout,
        r.zero,
        r.recompute.name(),
        s.compute_precision,
        r.optimizer.name()
    );
    let bound = if tr.memory.fits {
        format!("; {}", s.binding.bound())
    } else {
        String::new()
    };
    h.push_str(&format!(
        "global batch {} tokens = {} of {} x {} tokens on {} data-parallel ranks{bound}\n",
        units::format_tokens(s.step_tokens),
        units::format_count_of(s.micro_batches, "micro-batch", "micro-batches"),
        r.micro_batch,
        units::format_tokens(r.seq),
        r.layout.data_ways(),
    ));
    if !tr.memory.fits {
        let x = crate::solver::compare::Verdict::cross(style.ascii);
        h.push_str(&format!(
            "{x} DOES NOT FIT: {} per device on {}, {} usable; a step that does not fit does not run, so no step or run figures\n",
            units::format_bytes(tr.memory.total()),
            tr.memory.stage.name(),
            units::format_bytes(tr.memory.usable_bytes)
        ));
    } else {
        h.push_str(&format!(
            "{} tokens to train: {} steps\n",
            units::format_count(rf.tokens),
            units::format_count(rf.steps)
        ));
    }
    h
}

/// The JSON record with its nested memory flattened, for the text table.
fn flat(rec: &Map<String, Value>) -> Map<String, Value> {
    let mut m = rec.clone();
    if let Some(Value::Object(mem)) = rec.get("memory_per_device_bytes") {
        for (k, v) in mem {
            m.insert(format!("memory_{k}"), v.clone());
        }
    }
    if let Some(days) = rec.get("time_to_train_s").and_then(Value::as_f64) {
        m.insert("days".into(), json!(days / 86400.0));
    }
    m
}

/// The figures of a step, which a step that does not fit does not have
/// (in JSON they move under `as_asked_does_not_fit`).
const STEP_KEYS: &[&str] = &[
    "step_time_s",
    "tokens_per_s",
    "mfu",
    "hfu",
    "products_efficiency",
    "compute_s",
    "recompute_s",
    "elementwise_s",
    "moe_routing_s",
    "exposed_comm_s",
    "slowed_comm_s",
    "comm",
    "bubble_s",
    "bubble_fraction",
    "offload_copy_s",
    "offload_s",
    "optimizer_s",
    "overhead_s",
    "binding",
    "elasticities",
    "critical_batch_tokens_per_device",
];

/// The run's figures (null in JSON when the step does not fit).
const RUN_KEYS: &[&str] = &[
    "days",
    "device_hours",
    "cost_usd",
    "energy_kwh",
    "co2_kg",
    "goodput",
    "checkpoint_interval_s",
];

const SUMMARY: &[Col] = &[
    col("step time", "step_time_s", Fmt::Time),
    col("  compute (with recompute)", "compute_s", Fmt::Time),
    col("  recompute share of it", "recompute_s", Fmt::Time),
    col("  element-wise kernels", "elementwise_s", Fmt::Time),
    col("  MoE routing", "moe_routing_s", Fmt::Time),
    col("  exposed communication", "exposed_comm_s", Fmt::Time),
    col(
        "    of it, compute slowed by overlap",
        "slowed_comm_s",
        Fmt::Time,
    ),
    col("  pipeline bubble", "bubble_s", Fmt::Time),
    col("  host-link copies (exposed)", "offload_s", Fmt::Time),
    col("  optimizer step", "optimizer_s", Fmt::Time),
    col("  overhead", "overhead_s", Fmt::Time),
    col("binding term", "binding", Fmt::Text),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("MFU", "mfu", Fmt::Pct),
    col("HFU", "hfu", Fmt::Pct),
    col("products at (of peak)", "products_efficiency", Fmt::Pct),
    col("model FLOPs per token", "flops_per_token", Fmt::Num),
    col("memory: weights", "memory_weights", Fmt::Bytes),
    col("memory: gradients", "memory_gradients", Fmt::Bytes),
    col("memory: optimizer state", "memory_optimizer", Fmt::Bytes),
    col("memory: activations", "memory_activations", Fmt::Bytes),
    col("memory: logits (last stage)", "memory_logits", Fmt::Bytes),
    col("memory: gathered layers", "memory_gathered", Fmt::Bytes),
    col(
        "memory: minus logits (freed first)",
        "memory_reused",
        Fmt::Bytes,
    ),
    col("memory: total per device", "memory_total", Fmt::Bytes),
    col(
        "memory: allocator's pool (reserved)",
        "memory_reserved",
        Fmt::Bytes,
    ),
    col("memory: offloaded to host", "memory_host_bytes", Fmt::Bytes),
    col(
        "memory: usable per device",
        "memory_usable_bytes",
        Fmt::Bytes,
    ),
    col(
        "critical batch, tokens/device",
        "critical_batch_tokens_per_device",
        Fmt::Num,
    ),
    col("time to train (days)", "days", Fmt::Num),
    col("device-hours", "device_hours", Fmt::Num),
    col("cost", "cost_usd", Fmt::Usd),
    col("energy (kWh)", "energy_kwh", Fmt::Num),
    col("CO2 (kg)", "co2_kg", Fmt::Num),
    col("goodput", "goodput", Fmt::Pct),
    col("checkpoint every", "checkpoint_interval_s", Fmt::Time),
];

const COMM: &[Col] = &[
    col("collectives", "kind", Fmt::Text),
    col("per step", "count", Fmt::Int),
    col("bytes/link", "bytes", Fmt::Bytes),
    col("time", "time_s", Fmt::Time),
    col("exposed", "exposed_s", Fmt::Time),
    col("of it slowed", "slowed_s", Fmt::Time),
];

fn comm_rows(tr: &Training) -> Vec<Map<String, Value>> {
    tr.step
        .comm
        .named()
        .iter()
        .filter(|(_, c)| c.count > 0.0)
        .map(|(name, c)| {
            let mut m = Map::new();
            let kind = match *name {
                "dp" => "DP gradients",
                "tp" => "TP all-reduces",
                "pp" => "PP sends",
                "ep" => "EP all-to-alls",
                _ => "CP ring",
            };
            m.insert("kind".into(), json!(kind));
            m.insert("count".into(), json!(c.count));
            m.insert("bytes".into(), json!(c.link_bytes));
            m.insert("time_s".into(), json!(c.time_s));
            m.insert("exposed_s".into(), json!(c.exposed_s));
            m.insert("slowed_s".into(), json!(c.slowed_s));
            m
        })
        .collect()
}

const ELASTICITY: &[Col] = &[
    col("step time elasticity to", "knob", Fmt::Text),
    col("d ln T / d ln x", "elasticity", Fmt::Num),
];

fn elasticity_rows(el: &[(Knob, f64)]) -> Vec<Map<String, Value>> {
    el.iter()
        .map(|(k, v)| {
            let mut m = Map::new();
            m.insert("knob".into(), json!(k.name()));
            // Round away the central differences' last digits.
            m.insert("elasticity".into(), json!((v * 1e4).round() / 1e4));
            m
        })
        .collect()
}

const LAYOUTS: &[Col] = &[
    col("dp", "dp", Fmt::Int),
    col("tp", "tp", Fmt::Int),
    col("pp", "pp", Fmt::Int),
    col("ep", "ep", Fmt::Int).opt(3),
    col("cp", "cp", Fmt::Int).opt(2),
    col("v", "v", Fmt::Int).opt(4),
    col("zero", "zero", Fmt::Int),
    col("recompute", "recompute", Fmt::Text),
    col("mb", "micro_batch", Fmt::Int),
    col("step", "step_time_s", Fmt::Time),
    col("MFU", "mfu", Fmt::Pct),
    col("binding", "binding", Fmt::Text),
    col("memory", "memory_per_device_bytes", Fmt::Bytes).opt(1),
];
