//! Records and sentences the subcommands share: an evaluation as a JSON
//! record, the headline and the fit verdict, catalog entries.

use super::output::{Col, Fmt, Style};
use crate::catalog::{Catalog, HardwareEntry, ModelEntry};
use crate::solver::compare::{Compared, Verdict, no_layout_reason};
use crate::solver::{self, Arch, Evaluation, Workload, units};
use crate::words::Words;
use serde_json::{Map, Value, json};

/// An evaluation as a JSON record: the contract keys first (docs/command-line.md), then more.
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
    let (lo, hi) = e.latency_range();
    put("latency_s_low", json!(lo));
    put("latency_s_high", json!(hi));
    let (lo, hi) = e.tokens_per_s_range();
    put("tokens_per_s_low", json!(lo));
    put("tokens_per_s_high", json!(hi));
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
    // Where the profile's fp16 GEMMs accumulate in fp16 on a device that
    // runs that faster (a GeForce card under llama.cpp), say so: the peak
    // behind the ridge point and MFU is not the datasheet's fp16 figure.
    let fast_fp16 = e.compute_precision == solver::Precision::Fp16
        && hw.hw.peaks.fp16_acc16 == Some(e.peak_flops)
        && hw.hw.peaks.fp16 != Some(e.peak_flops);
    put(
        "compute_precision_text",
        json!(if fast_fp16 {
            format!(
                "fp16, accumulated in fp16 ({})",
                units::format_flops(e.peak_flops)
            )
        } else {
            e.compute_precision.name().to_string()
        }),
    );
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
    // A configuration that does not fit does not run: no cost as if it did.
    put(
        "cost_per_hour_usd",
        json!(
            hw.hw
                .price_per_hour_usd
                .filter(|_| e.memory.fits)
                .map(|p| p * e.devices() as f64)
        ),
    );
    put(
        "notes",
        json!(e.notes.iter().map(|n| n.to_string()).collect::<Vec<_>>()),
    );
    put("explanation", json!(e.explanation()));
    m
}

/// "Llama 3.1 8B: decode, batch 1, context 4096, " and then `rest`.
pub(crate) fn workload_line(model: &ModelEntry, wl: &Workload, rest: &str) -> String {
    let words = Words::for_model(model);
    // A single-pass model has no context: a forward pass of the batch.
    let context = if words.single_pass() {
        String::new()
    } else {
        format!(", context {}", units::format_tokens(wl.context))
    };
    format!(
        "{}: {}, batch {}{context}, {rest}\n\n",
        model.model.name,
        words.step(wl.phase),
        units::format_count(wl.batch),
    )
}

/// Headline of a human-readable result.
/// "profile `default` (`ridgeline zoo profiles`); error bands from its
/// calibration", under a table of figures.
/// The profile line of a run on `hw`, naming the device class whose
/// values of the profile were used, if any.
pub(crate) fn profile_line(cat: &Catalog, profile: &str, hw: &HardwareEntry) -> String {
    let class = match cat.profile(profile) {
        Ok(p) => p.on(hw).class,
        Err(_) => None,
    };
    let values = match class {
        Some(k) => format!(" (its values for {} devices)", k.name()),
        None => String::new(),
    };
    format!(
        "profile `{}`{values}: error bands from its calibration against published measurements\n",
        super::output::escape(profile)
    )
}

pub(crate) fn headline(hw: &HardwareEntry, model: &ModelEntry, wl: &Workload) -> String {
    let shape = match model.model.arch {
        Arch::Decoder(_) => format!(
            "{}, batch {}, context {}",
            wl.phase.name(),
            units::format_count(wl.batch),
            units::format_tokens(wl.context)
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
pub(crate) fn fit_sentence(e: &Evaluation, hw: &HardwareEntry, wl: &Workload) -> String {
    let f = e.memory.footprint.total();
    if e.memory.fits {
        // A model with nothing per sequence (no cache, no activations
        // counted) fits any batch: say so, not 2^64 - 1.
        let most = match e.max_batch {
            u64::MAX => "any batch (nothing in memory grows with it)".to_string(),
            n if n >= 100_000 => format!("up to batch {}", units::format_count(n as f64)),
            n => format!("up to batch {n}"),
        };
        return format!(
            "fits: {} per device of {} usable ({} x {:.0}%); {most} at this context\n",
            units::format_bytes(f),
            units::format_bytes(e.memory.usable_bytes),
            units::format_bytes(e.memory.capacity_bytes),
            e.memory.usable_bytes / e.memory.capacity_bytes * 100.0,
        );
    }
    let fix = match e.min_devices {
        Some(p) => format!("needs {} devices: try {}", p.devices(), layout_flags(p)),
        None => no_layout_reason(&hw.hw).to_string(),
    };
    let n = wl.tp.saturating_mul(wl.pp);
    format!(
        "DOES NOT FIT on {n} device{}: needs {} per device but {} is usable ({} x {:.0}%); {fix}\n",
        if n == 1 { "" } else { "s" },
        units::format_bytes(f),
        units::format_bytes(e.memory.usable_bytes),
        units::format_bytes(e.memory.capacity_bytes),
        e.memory.usable_bytes / e.memory.capacity_bytes * 100.0,
    )
}

/// The keys of an evaluation record that are figures of a step as if it
/// ran: a configuration that does not fit keeps them only under
/// [`NOT_FIT_KEY`], never at the top level.
pub(crate) const RUN_KEYS: &[&str] = &[
    "latency_s",
    "latency_s_low",
    "latency_s_high",
    "compute_s",
    "memory_s",
    "comm_s",
    "overhead_s",
    "tokens_per_s",
    "tokens_per_s_low",
    "tokens_per_s_high",
    "bottleneck",
    "mfu",
    "mbu",
    "explanation",
];

/// The keys of a serving record that are figures of a replica as if it
/// ran (static and continuous batching).
pub(crate) const SERVE_RUN_KEYS: &[&str] = &[
    "ttft_s",
    "ttft_batch_s",
    "e2e_batch_s",
    "ttft_s_low",
    "ttft_s_high",
    "itl_s",
    "itl_s_low",
    "itl_s_high",
    "e2e_s",
    "e2e_s_low",
    "e2e_s_high",
    "tokens_per_s",
    "tokens_per_s_low",
    "tokens_per_s_high",
    "tokens_per_s_per_user",
    "power_w",
    "energy_per_token_j",
    "prefill_bottleneck",
    "decode_bottleneck",
    "wait_s",
    "prefill_s",
    "requests_per_s",
    "prefill_tokens_per_step",
    "prefill_room_tokens",
    "prefill_room_utilization",
    "prefill_steps",
    "tokens_per_target_step",
];

/// Where the JSON of a configuration that does not fit keeps the figures
/// it would have if it ran: its name says they are not an answer.
pub(crate) const NOT_FIT_KEY: &str = "as_asked_does_not_fit";

/// Move `keys` of a record that does not fit from the top level to
/// [`NOT_FIT_KEY`] (absent keys are skipped).
pub(crate) fn set_aside(r: &mut Map<String, Value>, keys: &[&str]) {
    let mut aside = Map::new();
    for k in keys {
        if let Some(v) = r.shift_remove(*k) {
            aside.insert((*k).to_string(), v);
        }
    }
    r.insert(NOT_FIT_KEY.into(), Value::Object(aside));
}

/// "2 x a100-sxm-80gb (TP 2)", "8 x h100-sxm (TP 4 x PP 2)": a layout on
/// a device, as the labels of figures at the fewest devices read.
pub(crate) fn layout_label(p: solver::Parallelism, hw: &HardwareEntry) -> String {
    let layout = if p.pp == 1 {
        format!("TP {}", p.tp)
    } else {
        format!("TP {} x PP {}", p.tp, p.pp)
    };
    format!("{} x {} ({layout})", p.devices(), hw.hw.id)
}

/// The line above figures at the fewest devices that hold a configuration
/// that does not fit: "on 2 x a100-sxm-80gb (TP 2), the fewest devices
/// that hold it:".
pub(crate) fn on_fewest_line(p: solver::Parallelism, hw: &HardwareEntry) -> String {
    format!(
        "on {}, the fewest devices that hold it:\n",
        layout_label(p, hw)
    )
}

/// The line that stands for figures when no layout holds a configuration
/// (the verdict above it says why).
pub(crate) const NO_FIGURES: &str = "no figures: no layout holds it, so nothing runs\n";

/// "--tp 2" or "--tp 4 --pp 2".
pub(crate) fn layout_flags(p: solver::Parallelism) -> String {
    if p.pp == 1 {
        format!("--tp {}", p.tp)
    } else {
        format!("--tp {} --pp {}", p.tp, p.pp)
    }
}

/// The verdict as a JSON value: "fits", "needs_more_devices", "never_fits".
pub(crate) fn verdict_key(v: Verdict) -> &'static str {
    match v {
        Verdict::Fits => "fits",
        Verdict::Needs(_) => "needs_more_devices",
        Verdict::Never => "never_fits",
    }
}

/// The figures of a configuration that does not fit, at the fewest devices
/// that hold it (`at_min_devices_to_fit` in JSON); null when it fits or
/// when nothing holds it.
pub(crate) fn at_fit_record(c: &Compared, hw: &HardwareEntry) -> Value {
    match (&c.at_fit, c.verdict.fits()) {
        (Some(e), false) => json!({
            "tp": e.parallelism.tp,
            "pp": e.parallelism.pp,
            "devices": e.devices(),
            "latency_s": e.latency_s,
            "tokens_per_s": e.tokens_per_s,
            "bottleneck": e.bottleneck.name(),
            "memory_required_bytes": e.memory.footprint.total(),
            "cost_per_hour_usd": hw.hw.price_per_hour_usd.map(|p| p * e.devices() as f64),
            "cost_per_million_tokens_usd": c.cost_per_mtok,
        }),
        _ => Value::Null,
    }
}

/// Add the verdict keys to an evaluation record: `verdict`,
/// `cost_per_million_tokens_usd` (only when it fits) and
/// `at_min_devices_to_fit`; a record that does not fit has its figures
/// set aside under [`NOT_FIT_KEY`].
pub(crate) fn add_verdict(r: &mut Map<String, Value>, c: &Compared, hw: &HardwareEntry) {
    if !c.verdict.fits() {
        set_aside(r, RUN_KEYS);
    }
    r.insert("verdict".into(), json!(verdict_key(c.verdict)));
    r.insert(
        "cost_per_million_tokens_usd".into(),
        json!(c.cost_per_mtok.filter(|_| c.verdict.fits())),
    );
    r.insert("at_min_devices_to_fit".into(), at_fit_record(c, hw));
}

/// The row a table shows for a record: a configuration that does not fit
/// gets its verdict ("✗ needs 2") in the `fit` cell and no latency,
/// tokens/s, speedup or cost as if it ran; the cost at the fewest devices
/// that hold it is shown, labelled ("$1.23 on 2").
pub(crate) fn table_row(r: &Map<String, Value>, c: &Compared, style: Style) -> Map<String, Value> {
    let mut t = r.clone();
    t.insert("fit".into(), json!(c.verdict.cell(style.ascii)));
    if !c.verdict.fits() {
        for k in [
            "latency_s",
            "latency_s_low",
            "latency_s_high",
            "tokens_per_s",
            "tokens_per_s_low",
            "tokens_per_s_high",
            "bottleneck",
            "mfu",
            "mbu",
            "speedup",
        ] {
            t.insert(k.into(), Value::Null);
        }
        let at = c
            .at_fit
            .as_ref()
            .zip(c.cost_per_mtok)
            .map(|(e, cost)| format!("{} on {}", units::format_usd(cost), e.devices()));
        t.insert("cost_per_million_tokens_usd".into(), json!(at));
    }
    t
}

/// A one-line account of a configuration that does not fit: the fix and
/// its figures at that count.
pub(crate) fn not_fit_line(c: &Compared, hw: &HardwareEntry, style: Style) -> String {
    let x = Verdict::cross(style.ascii);
    match (c.verdict, &c.at_fit) {
        (Verdict::Needs(p), Some(e)) => format!(
            "{x} needs {} devices ({}): there {}, {} tok/s{}",
            p.devices(),
            layout_flags(p),
            units::format_time(e.latency_s),
            units::format_number(e.tokens_per_s),
            c.cost_per_mtok
                .map(|m| format!(", {} per million tokens", units::format_usd(m)))
                .unwrap_or_default()
        ),
        (Verdict::Needs(p), None) => {
            format!("{x} needs {} devices ({})", p.devices(), layout_flags(p))
        }
        _ => format!("{x} never fits: {}", no_layout_reason(&hw.hw)),
    }
}

pub(crate) fn num_or_null(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// `cols` with the rate column (key `tokens_per_s`, which stays: it is the
/// JSON contract) headed in the model's words: "tokens/s", "samples/s" or
/// "images/s".
pub(crate) fn in_words(cols: &[Col], words: Words) -> Vec<Col> {
    cols.iter()
        .map(|c| {
            if c.key == "tokens_per_s" && c.fmt != Fmt::NumBand {
                Col {
                    header: words.rate(),
                    ..*c
                }
            } else {
                *c
            }
        })
        .collect()
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
    m.insert(
        "peak_fp16_with_fp16_accumulate_flops_per_s".into(),
        json!(hw.peaks.fp16_acc16),
    );
    m.insert("memory_bytes".into(), json!(hw.memory_bytes));
    m.insert("memory_type".into(), json!(e.memory_type));
    m.insert(
        "device_class".into(),
        json!(crate::catalog::device_class::DeviceClass::of(e).map(|c| c.name())),
    );
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
    m.insert(
        "host_bandwidth_bytes_per_s".into(),
        json!(hw.host_bandwidth),
    );
    m.insert("torus".into(), json!(hw.torus.map(|t| t.shape())));
    m.insert(
        "torus_link_bandwidth_bytes_per_s".into(),
        json!(hw.torus.map(|t| t.link_bandwidth)),
    );
    m.insert("torus_wrap".into(), json!(hw.torus.map(|t| t.wrap.name())));
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
