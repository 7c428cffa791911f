//! Calibration profiles (`catalog/profiles/*.toml`, `[[profile]]`) and
//! published measurements (`catalog/measurements/*.toml`,
//! `[[measurement]]`): one TOML entry to one catalog entry. The assumption
//! keys of a profile are the same as `--assume KEY=VALUE` on the command
//! line; [`set`] reads both.

use super::convert::{Converted, names, source, sources, year};
use super::fields::Fields;
use crate::solver::calibration::{Metric, Run};
use crate::solver::training::{
    CrossEntropy, GradPrecision, LowPrecisionStorage, MatmulCeiling, TrainingAssumptions,
};
use crate::solver::units::{self, Kind};
use crate::solver::{Accumulate, Assumptions, Collective, Precision};
use std::collections::BTreeMap;
use std::sync::LazyLock;
use toml::de::DeValue;

/// One assumption a profile (or `--assume`) sets: its key, what it takes,
/// and what it means.
pub struct Key {
    pub key: &'static str,
    pub takes: Takes,
    pub help: &'static str,
}

/// The kind of value an assumption takes.
#[derive(Clone, Copy, PartialEq)]
pub enum Takes {
    /// A fraction in (0, 1].
    Fraction,
    /// A number from 0 to 1.
    UnitInterval,
    /// A time with its unit ("2 us").
    Time,
    /// A number of rows, 0 or more.
    Rows,
    /// ring, tree or auto.
    Algorithm,
    /// fp32 or fp16.
    Accumulate,
    /// measured or flat.
    Ceiling,
    /// fused or eager.
    CrossEntropy,
    /// narrow or bf16.
    Storage,
    /// param or fp32.
    Grads,
}

impl Takes {
    fn text(self) -> &'static str {
        match self {
            Takes::Fraction => "a fraction greater than 0 and at most 1",
            Takes::UnitInterval => "a number from 0 to 1",
            Takes::Time => "a time with its unit, like \"2 us\"",
            Takes::Rows => "a number of rows from 0 to 1e6",
            Takes::Algorithm => "\"ring\", \"tree\" or \"auto\"",
            Takes::Accumulate => "\"fp32\" or \"fp16\"",
            Takes::Ceiling => "\"measured\" or \"flat\"",
            Takes::CrossEntropy => "\"fused\" or \"eager\"",
            Takes::Storage => "\"narrow\" or \"bf16\"",
            Takes::Grads => "\"param\" or \"fp32\"",
        }
    }
}

/// Every assumption key, in the order profiles list them.
pub const KEYS: &[Key] = &[
    Key {
        key: "compute_efficiency",
        takes: Takes::Fraction,
        help: "fraction of peak FLOP/s large GEMMs reach",
    },
    Key {
        key: "memory_efficiency",
        takes: Takes::Fraction,
        help: "fraction of peak memory bandwidth reached",
    },
    Key {
        key: "link_efficiency",
        takes: Takes::Fraction,
        help: "fraction of link bandwidth a collective reaches",
    },
    Key {
        key: "overhead",
        takes: Takes::Time,
        help: "fixed time per step (scheduling, sampling)",
    },
    Key {
        key: "kernel_time",
        takes: Takes::Time,
        help: "fixed time per kernel of a decoder layer",
    },
    Key {
        key: "request_time",
        takes: Takes::Time,
        help: "fixed time a prefill adds per request batch",
    },
    Key {
        key: "moe_layer_time",
        takes: Takes::Time,
        help: "fixed time per MoE layer beyond its kernels",
    },
    Key {
        key: "collective_time",
        takes: Takes::Time,
        help: "fixed time per collective or hand-off",
    },
    Key {
        key: "link_latency",
        takes: Takes::Time,
        help: "latency of one hop of a collective",
    },
    Key {
        key: "collective",
        takes: Takes::Algorithm,
        help: "all-reduce algorithm: ring, tree or auto",
    },
    Key {
        key: "fp16_accumulate",
        takes: Takes::Accumulate,
        help: "what fp16 GEMMs accumulate in: fp32 or fp16",
    },
    Key {
        key: "gemm_half_rows",
        takes: Takes::Rows,
        help: "GEMM rows at half the compute efficiency",
    },
    Key {
        key: "low_precision_efficiency",
        takes: Takes::Fraction,
        help: "efficiency factor of 8-bit and narrower math",
    },
    Key {
        key: "attention_efficiency",
        takes: Takes::Fraction,
        help: "efficiency factor of the attention kernels",
    },
    Key {
        key: "dequant_8bit",
        takes: Takes::Fraction,
        help: "bandwidth factor of weight-only 8-bit weights",
    },
    Key {
        key: "dequant_4bit",
        takes: Takes::Fraction,
        help: "bandwidth factor of weight-only 4-bit weights",
    },
    Key {
        key: "prefill_comm_overlap",
        takes: Takes::UnitInterval,
        help: "share of prefill communication hidden",
    },
    Key {
        key: "usable_memory",
        takes: Takes::Fraction,
        help: "fraction of memory a run may use",
    },
    Key {
        key: "overlap",
        takes: Takes::UnitInterval,
        help: "compute/memory overlap w in max + (1 - w) min",
    },
    Key {
        key: "band_base",
        takes: Takes::UnitInterval,
        help: "error band, log half-width",
    },
    Key {
        key: "band_fixed",
        takes: Takes::UnitInterval,
        help: "band added per share of fixed costs",
    },
    Key {
        key: "band_devices",
        takes: Takes::UnitInterval,
        help: "band added per doubling of devices",
    },
    Key {
        key: "band_quantized",
        takes: Takes::UnitInterval,
        help: "band added for 8-bit or narrower formats",
    },
];

/// Every training assumption key a profile (or `--assume` on `ridgeline
/// train`) may set: what a training stack does (how much of each
/// collective it hides, how fast its attention and MoE kernels run),
/// beside the serving keys of [`KEYS`]. A profile that leaves one out
/// keeps [`TrainingAssumptions::default`]'s value.
pub const TRAINING_KEYS: &[Key] = &[
    Key {
        key: "dp_overlap",
        takes: Takes::UnitInterval,
        help: "share of DP/FSDP traffic hidden by backward",
    },
    Key {
        key: "tp_overlap",
        takes: Takes::UnitInterval,
        help: "share of TP traffic hidden by compute",
    },
    Key {
        key: "ep_overlap",
        takes: Takes::UnitInterval,
        help: "share of EP all-to-alls hidden",
    },
    Key {
        key: "cp_overlap",
        takes: Takes::UnitInterval,
        help: "share of the CP ring hidden by attention",
    },
    Key {
        key: "overlap_slowdown",
        takes: Takes::UnitInterval,
        help: "compute slowdown beside a hidden collective",
    },
    Key {
        key: "training_attention_efficiency",
        takes: Takes::Fraction,
        help: "fraction of peak attention kernels reach",
    },
    Key {
        key: "moe_token_time",
        takes: Takes::Time,
        help: "MoE time per routed token copy",
    },
    Key {
        key: "matmul_ceiling",
        takes: Takes::Ceiling,
        help: "measured (device matmul ceiling) or flat",
    },
    Key {
        key: "cross_entropy",
        takes: Takes::CrossEntropy,
        help: "fused (one fp32 copy of the logits) or eager",
    },
    Key {
        key: "low_precision_storage",
        takes: Takes::Storage,
        help: "fp8 tensors held narrow or at bf16",
    },
    Key {
        key: "grad_precision",
        takes: Takes::Grads,
        help: "gradients at the weights' width (param) or fp32",
    },
    Key {
        key: "allocator_overhead",
        takes: Takes::UnitInterval,
        help: "allocator pool beyond the tensors alive",
    },
];

fn training_slot<'a>(t: &'a mut TrainingAssumptions, key: &str) -> Option<&'a mut f64> {
    Some(match key {
        "dp_overlap" => &mut t.dp_overlap,
        "tp_overlap" => &mut t.tp_overlap,
        "ep_overlap" => &mut t.ep_overlap,
        "cp_overlap" => &mut t.cp_overlap,
        "overlap_slowdown" => &mut t.overlap_slowdown,
        "training_attention_efficiency" => &mut t.attention_efficiency,
        "moe_token_time" => &mut t.moe_token_time_s,
        "allocator_overhead" => &mut t.allocator_overhead,
        _ => return None,
    })
}

/// Whether `key` is a training assumption key.
pub fn is_training_key(key: &str) -> bool {
    TRAINING_KEYS.iter().any(|k| k.key == key)
}

/// Set training assumption `key` of `t` from `value`; the message says
/// what is wrong and what the key takes.
pub fn set_training(t: &mut TrainingAssumptions, key: &str, value: Value) -> Result<(), String> {
    let Some(k) = TRAINING_KEYS.iter().find(|k| k.key == key) else {
        return Err(format!(
            "unknown training assumption `{key}`; use one of {}",
            key_names(TRAINING_KEYS)
        ));
    };
    match k.takes {
        Takes::Ceiling => t.matmul_ceiling = named(k, value, MatmulCeiling::parse)?,
        Takes::CrossEntropy => t.cross_entropy = named(k, value, CrossEntropy::parse)?,
        Takes::Storage => t.low_precision_storage = named(k, value, LowPrecisionStorage::parse)?,
        Takes::Grads => t.grad_precision = named(k, value, GradPrecision::parse)?,
        _ => {
            let x = checked(k, value)?;
            *training_slot(t, key).ok_or_else(|| format!("{key} takes {}", k.takes.text()))? = x;
        }
    }
    Ok(())
}

/// The value of training assumption `key` of `t`, as [`set_training`]
/// reads it back exactly.
pub fn get_training(t: &TrainingAssumptions, key: &str) -> Option<Got> {
    let k = TRAINING_KEYS.iter().find(|k| k.key == key)?;
    match k.takes {
        Takes::Ceiling => return Some(Got::Name(t.matmul_ceiling.name())),
        Takes::CrossEntropy => return Some(Got::Name(t.cross_entropy.name())),
        Takes::Storage => return Some(Got::Name(t.low_precision_storage.name())),
        Takes::Grads => return Some(Got::Name(t.grad_precision.name())),
        _ => {}
    }
    let mut copy = *t;
    let x = *training_slot(&mut copy, key)?;
    Some(if k.takes == Takes::Time {
        Got::Seconds(x)
    } else {
        Got::Number(x)
    })
}

/// `t` with the values a profile's training keys give (`stack`), the
/// others (failures, checkpoints, MoE capacity) kept: what choosing a
/// profile does to the training assumptions, in every face.
pub fn with_stack(t: &TrainingAssumptions, stack: &TrainingAssumptions) -> TrainingAssumptions {
    TrainingAssumptions {
        dp_overlap: stack.dp_overlap,
        tp_overlap: stack.tp_overlap,
        ep_overlap: stack.ep_overlap,
        cp_overlap: stack.cp_overlap,
        overlap_slowdown: stack.overlap_slowdown,
        attention_efficiency: stack.attention_efficiency,
        moe_token_time_s: stack.moe_token_time_s,
        matmul_ceiling: stack.matmul_ceiling,
        cross_entropy: stack.cross_entropy,
        low_precision_storage: stack.low_precision_storage,
        grad_precision: stack.grad_precision,
        allocator_overhead: stack.allocator_overhead,
        ..*t
    }
}

/// A value as written: a TOML number, or text (a TOML string, or anything
/// on the command line).
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Number(f64),
    Text(&'a str),
}

/// The profile a command, the workbench and a scenario use unless told.
pub const DEFAULT_PROFILE: &str = "default";

/// The number behind key `key` of `a` (seconds for times); None for
/// `collective`, which is a name, and for an unknown key.
/// The number behind a numeric assumption key (times in seconds), to
/// read or change; None for `collective` and unknown keys.
pub fn number_mut<'a>(a: &'a mut Assumptions, key: &str) -> Option<&'a mut f64> {
    slot(a, key)
}

fn slot<'a>(a: &'a mut Assumptions, key: &str) -> Option<&'a mut f64> {
    Some(match key {
        "compute_efficiency" => &mut a.compute_efficiency,
        "memory_efficiency" => &mut a.memory_efficiency,
        "link_efficiency" => &mut a.link_efficiency,
        "overhead" => &mut a.overhead_s,
        "kernel_time" => &mut a.kernel_s,
        "request_time" => &mut a.request_s,
        "moe_layer_time" => &mut a.moe_layer_s,
        "collective_time" => &mut a.collective_s,
        "link_latency" => &mut a.link_latency_s,
        "gemm_half_rows" => &mut a.gemm_half_rows,
        "low_precision_efficiency" => &mut a.low_precision_efficiency,
        "attention_efficiency" => &mut a.attention_efficiency,
        "dequant_8bit" => &mut a.dequant_8bit,
        "dequant_4bit" => &mut a.dequant_4bit,
        "prefill_comm_overlap" => &mut a.prefill_comm_overlap,
        "usable_memory" => &mut a.usable_memory,
        "overlap" => &mut a.overlap,
        "band_base" => &mut a.band_base,
        "band_fixed" => &mut a.band_fixed,
        "band_devices" => &mut a.band_devices,
        "band_quantized" => &mut a.band_quantized,
        _ => return None,
    })
}

/// The value of assumption `key` of `a`, as [`set`] reads it back exactly:
/// a time with its unit, the algorithm by name, a number plain.
pub fn get(a: &Assumptions, key: &str) -> Option<Got> {
    let k = KEYS.iter().find(|k| k.key == key)?;
    match k.takes {
        Takes::Algorithm => return Some(Got::Name(a.collective.name())),
        Takes::Accumulate => return Some(Got::Name(a.accumulate.name())),
        _ => {}
    }
    let mut copy = *a;
    let x = *slot(&mut copy, key)?;
    Some(if k.takes == Takes::Time {
        Got::Seconds(x)
    } else {
        Got::Number(x)
    })
}

/// What [`get`] returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Got {
    Number(f64),
    Seconds(f64),
    Name(&'static str),
}

/// Set assumption `key` of `a` from `value`; the message says what is
/// wrong and what the key takes.
pub fn set(a: &mut Assumptions, key: &str, value: Value) -> Result<(), String> {
    let Some(k) = KEYS.iter().find(|k| k.key == key) else {
        if is_training_key(key) {
            return Err(format!(
                "`{key}` is a training assumption: `ridgeline train` and the Training view take it"
            ));
        }
        return Err(format!(
            "unknown assumption `{key}`; use one of {}, or for training one of {}",
            key_names(KEYS),
            key_names(TRAINING_KEYS)
        ));
    };
    match k.takes {
        Takes::Algorithm => {
            a.collective = named(k, value, Collective::parse)?;
            return Ok(());
        }
        Takes::Accumulate => {
            a.accumulate = named(k, value, Accumulate::parse)?;
            return Ok(());
        }
        _ => {}
    }
    let x = checked(k, value)?;
    *slot(a, key).ok_or_else(|| format!("{key} takes {}", k.takes.text()))? = x;
    Ok(())
}

/// The keys of `keys`, comma-separated, for a message.
fn key_names(keys: &[Key]) -> String {
    keys.iter().map(|k| k.key).collect::<Vec<_>>().join(", ")
}

/// A key that takes a name: `value` read by `parse`; the message says what
/// the key takes.
fn named<T>(k: &Key, value: Value, parse: impl Fn(&str) -> Option<T>) -> Result<T, String> {
    let bad = || format!("{} takes {}", k.key, k.takes.text());
    match value {
        Value::Text(s) => parse(s).ok_or_else(bad),
        Value::Number(_) => Err(bad()),
    }
}

/// A number key's value read and range-checked; the message says what is
/// wrong and what the key takes.
fn checked(k: &Key, value: Value) -> Result<f64, String> {
    let key = k.key;
    let bad = || format!("{key} takes {}", k.takes.text());
    let x = match (k.takes, value) {
        (
            Takes::Algorithm
            | Takes::Accumulate
            | Takes::Ceiling
            | Takes::CrossEntropy
            | Takes::Storage
            | Takes::Grads,
            _,
        ) => {
            return Err(bad());
        }
        (Takes::Time, Value::Number(_)) => return Err(bad()),
        (Takes::Time, Value::Text(t)) => {
            let s = units::parse(t, Kind::Time).map_err(|e| format!("{key}: {e}"))?;
            if !(0.0..=1.0).contains(&s) {
                return Err(format!("{key} = {t:?} is out of range; use 0 to 1 s"));
            }
            s
        }
        (_, Value::Number(x)) => x,
        (_, Value::Text(t)) => t.trim().parse::<f64>().map_err(|_| bad())?,
    };
    let ok = match k.takes {
        Takes::Fraction => x > 0.0 && x <= 1.0,
        Takes::UnitInterval => (0.0..=1.0).contains(&x),
        Takes::Rows => (0.0..=1e6).contains(&x),
        Takes::Time
        | Takes::Algorithm
        | Takes::Accumulate
        | Takes::Ceiling
        | Takes::CrossEntropy
        | Takes::Storage
        | Takes::Grads => true,
    };
    if !ok || !x.is_finite() {
        return Err(format!(
            "{key} = {} is out of range; use {}",
            shown(x),
            k.takes.text()
        ));
    }
    Ok(x)
}

/// A value echoed in a message: as written when it is short, in
/// engineering notation when it is huge or tiny ("100e306", not 309
/// digits).
fn shown(x: f64) -> String {
    if x.is_finite() && x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        units::format_number(x)
    } else {
        format!("{x}")
    }
}

/// A named set of assumptions and where its values come from.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileEntry {
    pub id: String,
    pub name: String,
    pub year: u16,
    pub source: String,
    pub notes: Option<String>,
    /// Per-assumption sources that override `source`.
    pub sources: BTreeMap<String, String>,
    /// The base values: every device outside the classes below.
    pub assumptions: Assumptions,
    /// What the profile says of training ([`TRAINING_KEYS`]; the defaults
    /// where it says nothing).
    pub training: TrainingAssumptions,
    /// Values per device class (`[profile.class.NAME]`), in class order;
    /// see [`super::device_class`].
    pub classes: Vec<super::device_class::ClassValues>,
    /// How examples/calibrate.rs fitted it; None for a profile set by hand.
    pub fit: Option<FitSpec>,
    /// The profile whose values this one starts from (`extends`): every
    /// assumption and training key it does not set is that profile's, as
    /// loaded when this one was read.
    pub extends: Option<String>,
    pub origin: String,
}

/// What a profile was fitted to: the keys fitted, starting from which
/// profile's values, on which stacks' measurements. `ridgeline validate`
/// refits the same keys without each source to score it on data it did
/// not see.
#[derive(Debug, Clone, PartialEq)]
pub struct FitSpec {
    pub from: String,
    pub stacks: Vec<String>,
    pub keys: Vec<String>,
}

const PROFILE_INFO: &[&str] = &[
    "id",
    "name",
    "year",
    "source",
    "notes",
    "sources",
    "fitted_from",
    "fitted_on",
    "fitted_keys",
    "class",
    "extends",
];

/// `fitted_from`, `fitted_on` and `fitted_keys`: all three or none; the
/// keys are assumption keys.
fn fit_spec(f: &mut Fields) -> Option<FitSpec> {
    let from = f.opt_string("fitted_from");
    let on = f.opt_string("fitted_on");
    let keys = f.opt_string("fitted_keys");
    let list = |s: &str| -> Vec<String> {
        s.split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    };
    match (from, on, keys) {
        (None, None, None) => None,
        (Some(from), Some(on), Some(keys)) => {
            let spec = FitSpec {
                from: from.0,
                stacks: list(&on.0),
                keys: key_list(f, &keys.0, keys.1),
            };
            if spec.stacks.is_empty() || spec.keys.is_empty() {
                f.problem(
                    on.1,
                    "fitted_on and fitted_keys each name at least one, comma-separated",
                );
            }
            Some(spec)
        }
        (a, b, c) => {
            let at = a.map(|x| x.1).or(b.map(|x| x.1)).or(c.map(|x| x.1));
            f.problem(
                at.unwrap_or(0),
                "fitted_from, fitted_on and fitted_keys go together: give all three or none",
            );
            None
        }
    }
}

/// A comma-separated list of assumption keys (`fitted_keys`), each
/// checked: one that is not a key is a problem at `at`.
pub(super) fn key_list(f: &mut Fields, s: &str, at: usize) -> Vec<String> {
    let keys: Vec<String> = s
        .split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect();
    for k in &keys {
        if !KEYS.iter().any(|x| x.key == k) {
            f.problem(
                at,
                format!("fitted_keys: {k} is not an assumption key (see `ridgeline zoo profiles`)"),
            );
        }
    }
    keys
}

/// Keys a `[[profile]]` may hold.
pub fn profile_keys() -> &'static [&'static str] {
    static ALL: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        PROFILE_INFO
            .iter()
            .copied()
            .chain(KEYS.iter().chain(TRAINING_KEYS).map(|k| k.key))
            .collect()
    });
    &ALL
}

/// A `[[profile]]` table to a profile; keys it leaves out keep the values
/// of the profile it `extends` (found by `loaded`, among the profiles read
/// before it), else the plain roofline's ([`Assumptions::default`]) and
/// the training defaults. Class tables and the fit are not inherited.
pub fn profile(
    f: &mut Fields,
    origin: &str,
    loaded: &dyn Fn(&str) -> Option<ProfileEntry>,
) -> Option<Converted<ProfileEntry>> {
    let (id, _) = names(f, "profile", false);
    let name = f.string("name");
    let year = year(f);
    let source = source(f, "source");
    let notes = f.opt_string("notes");
    let sources = sources(f);
    let fit = fit_spec(f);
    let extends = f.opt_string("extends");
    let parent = match &extends {
        Some((p, at)) => {
            let found = loaded(p);
            if found.is_none() {
                f.problem(
                    *at,
                    format!(
                        "extends `{p}`: no profile of that id is loaded before this one; a profile extends a built-in one (`ridgeline zoo profiles`) or one from a file read earlier (files are read in name order)"
                    ),
                );
            }
            found
        }
        None => None,
    };
    let mut a = parent
        .as_ref()
        .map_or_else(Assumptions::default, |p| p.assumptions);
    read_keys(f, &mut a);
    let mut training = parent
        .as_ref()
        .map_or_else(TrainingAssumptions::default, |p| p.training);
    read_training_keys(f, &mut training);
    let classes = super::device_class::classes(f, &a);
    if f.has_problems() {
        return None;
    }
    let ((id, id_at), (name, _), year, source) = (id?, name?, year?, source?);
    Some(Converted {
        entry: ProfileEntry {
            id,
            name,
            year,
            source,
            notes: notes.map(|n| n.0),
            sources,
            assumptions: a,
            training,
            classes,
            fit,
            extends: extends.map(|e| e.0),
            origin: origin.to_string(),
        },
        id_at,
        alias_at: Vec::new(),
    })
}

/// Read the assumption keys of a table into `a`; the keys it sets, in
/// [`KEYS`] order. A bad value is a problem at its place.
pub(super) fn read_keys(f: &mut Fields, a: &mut Assumptions) -> Vec<&'static str> {
    let mut read = Vec::new();
    for k in KEYS {
        let Some(v) = f.value(k.key) else {
            continue;
        };
        read.push(k.key);
        let at = v.span().start;
        let result = match toml_value(v) {
            Some(value) => set(a, k.key, value),
            None => Err(format!("{} takes {}", k.key, k.takes.text())),
        };
        if let Err(e) = result {
            f.problem(at, e);
        }
    }
    read
}

/// Read the training keys of a profile table into `t`; a bad value is a
/// problem at its place.
fn read_training_keys(f: &mut Fields, t: &mut TrainingAssumptions) {
    for k in TRAINING_KEYS {
        let Some(v) = f.value(k.key) else {
            continue;
        };
        let at = v.span().start;
        let result = match toml_value(v) {
            Some(value) => set_training(t, k.key, value),
            None => Err(format!("{} takes {}", k.key, k.takes.text())),
        };
        if let Err(e) = result {
            f.problem(at, e);
        }
    }
}

/// A TOML value as a key reads it: a number or text; None for anything
/// else (a table, an array, a date).
fn toml_value<'v>(v: &'v toml::Spanned<DeValue<'_>>) -> Option<Value<'v>> {
    match v.get_ref() {
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .ok()
            .map(|n| Value::Number(n as f64)),
        DeValue::Float(x) => x.as_str().parse::<f64>().ok().map(Value::Number),
        DeValue::String(s) => Some(Value::Text(s.as_ref())),
        _ => None,
    }
}

/// A published measurement: the run, what was measured, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub id: String,
    pub model: String,
    pub hardware: String,
    pub stack: String,
    pub stack_version: String,
    pub year: u16,
    pub source: String,
    pub quote: String,
    pub metric: Metric,
    pub value: f64,
    pub run: Run,
    pub notes: Option<String>,
    pub origin: String,
}

pub const MEASUREMENT_KEYS: &[&str] = &[
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
    "batch",
    "prompt",
    "output",
    "weights",
    "activations",
    "kv",
    "tp",
    "pp",
    "notes",
];

fn precision(f: &mut Fields, key: &'static str) -> Option<Precision> {
    let (s, at) = f.string(key)?;
    let p = Precision::parse(&s);
    if p.is_none() {
        f.problem(
            at,
            format!(
                "unknown {key} precision {s:?}; use fp32, tf32, bf16, fp16, fp8, int8, fp4 or int4"
            ),
        );
    }
    p
}

/// A `[[measurement]]` table to a measurement. The model and device ids
/// are checked when the measurement is used (`ridgeline validate`).
pub fn measurement(f: &mut Fields, origin: &str) -> Option<Converted<Measurement>> {
    let (id, _) = names(f, "measurement", false);
    let text = |f: &mut Fields, key| f.string(key).map(|(s, _)| s);
    let model = text(f, "model");
    let hardware = text(f, "hardware");
    let stack = text(f, "stack");
    let stack_version = text(f, "stack_version");
    let year = year(f);
    let source = source(f, "source");
    let quote = text(f, "quote");
    let metric = f.string("metric").and_then(|(s, at)| {
        let m = Metric::parse(&s);
        if m.is_none() {
            let all: Vec<&str> = Metric::ALL.iter().map(|m| m.key()).collect();
            f.problem(at, format!("unknown metric {s:?}; use {}", all.join(", ")));
        }
        m
    });
    let value = f.number(
        "value",
        1e-9..=1e12,
        "a positive number in the metric's SI unit",
    );
    let batch = f.whole("batch", 1..=1_000_000);
    let prompt = f.whole("prompt", 0..=10_000_000);
    let output = f.whole("output", 0..=10_000_000);
    let weights = precision(f, "weights");
    let activations = precision(f, "activations");
    let kv = precision(f, "kv");
    let tp = f.whole("tp", 1..=65_536);
    let pp = f.whole("pp", 1..=65_536);
    let notes = f.opt_string("notes");
    if let Some((v, at)) = value
        && v <= 0.0
    {
        f.problem(at, "value must be greater than zero");
    }
    if f.has_problems() {
        return None;
    }
    let (id, id_at) = id?;
    Some(Converted {
        entry: Measurement {
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
            run: Run {
                batch: batch?.0 as f64,
                prompt: prompt?.0 as f64,
                output: output?.0 as f64,
                weights: weights?,
                activations: activations?,
                kv: kv?,
                tp: tp?.0,
                pp: pp?.0,
            },
            notes: notes.map(|n| n.0),
            origin: origin.to_string(),
        },
        id_at,
        alias_at: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_out_of_range_value_is_echoed_short() {
        let mut a = Assumptions::default();
        // 1e308 = 100 x 10^306: engineering notation, the exponent a
        // multiple of three.
        let e = set(&mut a, "band_base", Value::Text("1e308")).unwrap_err();
        assert_eq!(
            e,
            "band_base = 100e306 is out of range; use a number from 0 to 1"
        );
        let e = set(&mut a, "band_base", Value::Text("1.5")).unwrap_err();
        assert!(e.starts_with("band_base = 1.5 is out"), "{e}");
    }

    #[test]
    fn get_reads_back_what_set_wrote_for_every_key() {
        for k in KEYS {
            let mut a = Assumptions::default();
            let v = match k.takes {
                Takes::Time => Value::Text("3 us"),
                Takes::Algorithm => Value::Text("tree"),
                Takes::Accumulate => Value::Text("fp16"),
                _ => Value::Number(0.5),
            };
            set(&mut a, k.key, v).unwrap();
            let want = match k.takes {
                Takes::Time => Got::Seconds(3e-6),
                Takes::Algorithm => Got::Name("tree"),
                Takes::Accumulate => Got::Name("fp16"),
                _ => Got::Number(0.5),
            };
            assert_eq!(get(&a, k.key), Some(want), "{}", k.key);
        }
        assert_eq!(get(&Assumptions::default(), "nope"), None);
    }

    #[test]
    fn every_key_sets_its_assumption_and_rejects_what_it_does_not_take() {
        for k in KEYS {
            let mut a = Assumptions::default();
            let good = match k.takes {
                Takes::Time => Value::Text("3 us"),
                Takes::Algorithm => Value::Text("tree"),
                Takes::Accumulate => Value::Text("fp16"),
                _ => Value::Number(0.5),
            };
            set(&mut a, k.key, good).unwrap();
            assert_ne!(a, Assumptions::default(), "{} changed nothing", k.key);
            let bad = match k.takes {
                Takes::Time | Takes::Algorithm | Takes::Accumulate => Value::Number(1.0),
                _ => Value::Number(-1.0),
            };
            let e = set(&mut a, k.key, bad).unwrap_err();
            assert!(e.contains(k.key), "{e}");
        }
        assert!(
            set(
                &mut Assumptions::default(),
                "kernel_tme",
                Value::Number(1.0)
            )
            .unwrap_err()
            .contains("unknown assumption")
        );
    }
}
