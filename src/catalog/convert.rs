//! One TOML entry to one catalog entry. Every field is read, so every
//! problem of an entry is reported at once; a figure outside its accepted
//! range (catalog/SCHEMA.md, "Accepted ranges") is a problem, so that no
//! entry can make later commands fail with an overflow or a zero.

use super::fields::{At, Fields};
use super::limits::{self, Limit};
use super::{CacheCeiling, HardwareEntry, ModelEntry, Price, Region};
use crate::solver::units::{self, Kind};
use crate::solver::{
    Arch, Decoder, Hardware, Mla, Model, ModelKind, Moe, Peaks, Precision, SinglePass, Tier, Torus,
    Window, Wrap,
};
use std::collections::{BTreeMap, HashSet};
use toml::Spanned;
use toml::de::DeValue;

/// A converted entry with where its names are written, for the duplicate
/// checks.
pub struct Converted<E> {
    pub entry: E,
    pub id_at: usize,
    pub alias_at: Vec<usize>,
}

pub const DEVICE_KEYS: &[&str] = &[
    "id",
    "aliases",
    "name",
    "vendor",
    "family",
    "tier",
    "year",
    "source",
    "notes",
    "memory",
    "memory_bandwidth",
    "memory_type",
    "tdp",
    "peak",
    "matmul",
    "interconnect",
    "price",
    "sources",
    "cache",
];
const CACHE_KEYS: &[&str] = &["level", "bandwidth"];
const INTERCONNECT_KEYS: &[&str] = &[
    "scale_up",
    "devices_per_node",
    "scale_out",
    "host",
    "torus",
    "torus_link",
    "torus_wrap",
    "notes",
];
const PRICE_KEYS: &[&str] = &["per_hour_usd", "purchase_usd", "as_of", "source", "notes"];
pub const MODEL_KEYS: &[&str] = &[
    "id",
    "aliases",
    "name",
    "family",
    "kind",
    "year",
    "source",
    "notes",
    "params",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "ffn",
    "vocab",
    "tied_embeddings",
    "max_context",
    "experts",
    "top_k",
    "active_params",
    "kv_latent",
    "rope_dim",
    "q_latent",
    "shared_ffn",
    "dense_layers",
    "dense_ffn",
    "gated_mlp",
    "sliding_window",
    "window_layers",
    "flops_per_sample",
    "activation_elements_per_sample",
    "input",
    "weights",
    "graph",
    "sources",
];
pub const REGION_KEYS: &[&str] = &[
    "id",
    "name",
    "grid_gco2_per_kwh",
    "pue",
    "electricity_usd_per_kwh",
    "year",
    "source",
    "notes",
    "sources",
];

fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

/// The most aliases an entry keeps: every name is held in the lookup map,
/// and a name no one types is no help.
pub const MAX_ALIASES: usize = 64;

/// The id (lower-case kebab case) and aliases (any printable text, matched
/// case-insensitively); names the entry in later messages.
pub(super) fn names(
    f: &mut Fields,
    what: &str,
    with_aliases: bool,
) -> (Option<At<String>>, Vec<At<String>>) {
    let id = f.string("id");
    let id = match id {
        Some((id, at)) if is_kebab(&id) => {
            f.rename(format!("{what} `{id}`"));
            Some((id, at))
        }
        Some((id, at)) => {
            f.rename(format!("{what} {id:?}"));
            f.problem(
                at,
                "the id must be lower-case kebab case, like \"h100-sxm\"",
            );
            None
        }
        None => None,
    };
    let mut aliases = Vec::new();
    if with_aliases {
        // A repeat is the same name: merged, and not counted twice.
        let mut seen: HashSet<String> = HashSet::new();
        let mut over = None;
        for (a, at) in f.strings("aliases") {
            let a = a.trim().to_lowercase();
            if a.is_empty() {
                f.problem(at, "an alias is empty");
            } else if seen.insert(a.clone()) {
                if seen.len() > MAX_ALIASES {
                    over.get_or_insert(at);
                } else {
                    aliases.push((a, at));
                }
            }
        }
        if let Some(at) = over {
            f.problem(
                at,
                format!(
                    "{} different aliases, more than the {MAX_ALIASES} accepted; keep the names people type",
                    seen.len()
                ),
            );
        }
    }
    (id, aliases)
}

/// A string that must name one of a set (`tier`, `kind`).
fn one_of<T>(
    f: &mut Fields,
    key: &'static str,
    parse: fn(&str) -> Option<T>,
    choices: &str,
) -> Option<T> {
    let (s, at) = f.string(key)?;
    let v = parse(&s);
    if v.is_none() {
        f.problem(at, format!("unknown {key} {s:?}; use {choices}"));
    }
    v
}

/// A source that must say something.
pub(super) fn source(f: &mut Fields, key: &'static str) -> Option<String> {
    let (s, at) = f.string(key)?;
    if s.trim().is_empty() {
        f.problem(at, format!("`{key}` is empty; every figure needs a source"));
        return None;
    }
    Some(s)
}

pub(super) fn sources(f: &mut Fields) -> BTreeMap<String, String> {
    f.string_map("sources")
        .into_iter()
        .map(|((k, _), (v, _))| (k, v))
        .collect()
}

/// A quantity with a unit, within its limit.
fn quantity(
    f: &mut Fields,
    key: &'static str,
    at_key: Option<At<String>>,
    kind: Kind,
    limit: &Limit,
) -> Option<f64> {
    let (s, at) = at_key?;
    match units::parse(&s, kind) {
        Err(e) => {
            f.problem(at, format!("{key}: {e}"));
            None
        }
        Ok(v) if v <= 0.0 => {
            f.problem(at, format!("{key} must be greater than zero, got {s:?}"));
            None
        }
        Ok(v) if !limit.range.contains(&v) => {
            f.problem(
                at,
                format!("{key} = {s:?} is out of range; use {}", limit.text),
            );
            None
        }
        Ok(v) => Some(v),
    }
}

fn number(f: &mut Fields, key: &'static str, limit: &Limit) -> Option<f64> {
    f.number(key, limit.range.clone(), limit.text)
        .map(|(v, _)| v)
}

fn opt_number(f: &mut Fields, key: &'static str, limit: &Limit) -> Option<At<f64>> {
    f.opt_number(key, limit.range.clone(), limit.text)
}

pub(super) fn year(f: &mut Fields) -> Option<u16> {
    f.whole("year", limits::YEAR).map(|(y, _)| y as u16)
}

/// A `[[device]]` table to a hardware entry, or every problem it has.
pub fn device(f: &mut Fields, origin: &str) -> Option<Converted<HardwareEntry>> {
    let (id, aliases) = names(f, "device", true);
    let name = f.string("name");
    let vendor = f.string("vendor");
    let family = f.opt_string("family");
    let tier = one_of(
        f,
        "tier",
        Tier::parse,
        "cloud, workstation, edge, mobile or tiny",
    );
    let year = year(f);
    let source = source(f, "source");
    let notes = f.opt_string("notes");
    let memory = f.string("memory");
    let memory = quantity(f, "memory", memory, Kind::Bytes, &limits::MEMORY);
    let bw = f.string("memory_bandwidth");
    let bw = quantity(
        f,
        "memory_bandwidth",
        bw,
        Kind::Bandwidth,
        &limits::BANDWIDTH,
    );
    let memory_type = memory_type(f);
    let tdp = f.opt_string("tdp");
    let tdp = quantity(f, "tdp", tdp, Kind::Power, &limits::POWER);
    let peaks = peaks(f);
    let matmul = matmul(f, peaks.as_ref());
    let (link, per_node, scaleout, torus, host) = interconnect(f);
    let price = price(f);
    let sources = sources(f);
    let caches = caches(f);
    if f.has_problems() {
        return None;
    }
    let ((id, id_at), name, vendor, tier, year, source, memory, bw, peaks) =
        match (id, name, vendor, tier, year, source, memory, bw, peaks) {
            (Some(a), Some(b), Some(c), Some(d), Some(e), Some(g), Some(h), Some(i), Some(j)) => {
                (a, b, c, d, e, g, h, i, j)
            }
            _ => return None,
        };
    Some(Converted {
        entry: HardwareEntry {
            hw: Hardware {
                id: id.clone(),
                name: name.0,
                tier,
                year,
                peaks,
                matmul: matmul.unwrap_or_default(),
                memory_bytes: memory,
                memory_bandwidth: bw,
                link_bandwidth: link,
                devices_per_node: per_node,
                scaleout_bandwidth: scaleout,
                host_bandwidth: host,
                torus,
                tdp_w: tdp,
                price_per_hour_usd: price.as_ref().and_then(|p| p.per_hour_usd),
            },
            aliases: aliases.iter().map(|(a, _)| a.clone()).collect(),
            vendor: vendor.0,
            family: family.map(|f| f.0),
            memory_type,
            source,
            sources,
            notes: notes.map(|n| n.0),
            price,
            caches,
            origin: origin.to_string(),
        },
        id_at,
        alias_at: aliases.iter().map(|(_, at)| *at).collect(),
    })
}

/// `[[device.cache]]`: each cache level's bandwidth, "L1" to "L4", each
/// level once, innermost first.
fn caches(f: &mut Fields) -> Vec<CacheCeiling> {
    let Some(v) = f.value("cache") else {
        return Vec::new();
    };
    let wrong = "`cache` must be a list of tables: [[device.cache]] with level = \"L1\" and bandwidth = \"...\"";
    let Some(items) = v.get_ref().as_array() else {
        f.problem(v.span().start, wrong);
        return Vec::new();
    };
    let mut out: Vec<CacheCeiling> = Vec::new();
    for item in items.iter() {
        let Some(t) = item.get_ref().as_table() else {
            f.problem(item.span().start, wrong);
            continue;
        };
        let mut c = f.nested(t, item.span().start, CACHE_KEYS);
        let level = c.string("level");
        let bw = c.string("bandwidth");
        let bw = quantity(
            &mut c,
            "cache bandwidth",
            bw,
            Kind::Bandwidth,
            &limits::BANDWIDTH,
        );
        let level = level.and_then(|(name, at)| {
            let n = name.strip_prefix('L').and_then(|d| d.parse::<u8>().ok());
            match n {
                Some(n @ 1..=4) if name.len() == 2 => Some((name, n, at)),
                _ => {
                    c.problem(
                        at,
                        format!(
                            "cache level {:?} is not a level; use \"L1\", \"L2\", \"L3\" or \"L4\"",
                            super::fields::printable(&name)
                        ),
                    );
                    None
                }
            }
        });
        if let (Some((name, n, at)), Some(bw)) = (level, bw) {
            let last = out.last().and_then(|l| l.level[1..].parse::<u8>().ok());
            if last.is_some_and(|l| l >= n) {
                c.problem(
                    at,
                    format!(
                        "cache level {name} comes after {}; list each level once, innermost first (L1, L2, L3)",
                        out.last().map_or("", |l| l.level.as_str())
                    ),
                );
            } else {
                out.push(CacheCeiling {
                    level: name,
                    bandwidth: bw,
                });
            }
        }
        f.absorb(c);
    }
    out
}

/// The DRAM technologies `memory_type` may name, by prefix.
pub const MEMORY_TYPES: &[&str] = &["HBM", "GDDR", "LPDDR", "DDR"];

/// `memory_type` (optional): a DRAM technology, "HBM3" or "GDDR6X", upper
/// case as datasheets write it.
fn memory_type(f: &mut Fields) -> Option<String> {
    let (s, at) = f.opt_string("memory_type")?;
    let t = s.trim().to_ascii_uppercase();
    let known = MEMORY_TYPES.iter().any(|p| {
        t.strip_prefix(p)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_alphanumeric()))
    });
    if !known || t.len() > 16 {
        f.problem(
            at,
            format!(
                "memory_type {:?} is not a DRAM technology; write one like \"HBM3\", \"HBM2e\", \"GDDR6X\" or \"LPDDR5\" (a name starting {})",
                super::fields::printable(&s),
                MEMORY_TYPES.join(", ")
            ),
        );
        return None;
    }
    Some(s.trim().to_string())
}

/// The key in `[device.peak]` of the rate of FP16 math accumulated in
/// FP16, where a device runs it faster than FP32 accumulate (GeForce).
pub const FP16_ACC16_KEY: &str = "fp16_with_fp16_accumulate";

/// `[device.peak]`: at least one precision, each a FLOP rate.
fn peaks(f: &mut Fields) -> Option<Peaks> {
    let Some(v) = f.value("peak") else {
        f.missing("peak");
        return None;
    };
    rates(f, "peak", v)
}

/// `[device.matmul]` (optional): the measured maximum achievable matmul
/// FLOP/s per format, each at most the peak of its format.
fn matmul(f: &mut Fields, peaks: Option<&Peaks>) -> Option<Peaks> {
    let v = f.value("matmul")?;
    let at = v.span().start;
    let m = rates(f, "matmul", v)?;
    let mut ok = true;
    for p in Precision::ALL {
        let (Some(x), Some(peak)) = (m.get(p), peaks.map(|k| k.get(p))) else {
            continue;
        };
        match peak {
            None => {
                f.problem(
                    at,
                    format!(
                        "matmul {0} has no [device.peak] {0} to be a share of; add that peak or remove the measurement",
                        p.name()
                    ),
                );
                ok = false;
            }
            Some(peak) if x > peak => {
                f.problem(
                    at,
                    format!(
                        "matmul {} ({}) is above the peak ({}): a measurement cannot beat the datasheet; check both figures",
                        p.name(),
                        units::format_flops(x),
                        units::format_flops(peak)
                    ),
                );
                ok = false;
            }
            Some(_) => {}
        }
    }
    ok.then_some(m)
}

/// A table of FLOP rates keyed by precision: at least one.
fn rates(f: &mut Fields, key: &str, v: &Spanned<DeValue>) -> Option<Peaks> {
    let Some(t) = v.get_ref().as_table() else {
        f.problem(
            v.span().start,
            format!("`{key}` must be a table: [device.{key}]"),
        );
        return None;
    };
    let mut peaks = Peaks::default();
    let mut ok = true;
    for (k, val) in t.iter() {
        let at = k.span().start;
        // None: the FP16-accumulate rate, which only [device.peak] takes.
        let slot = match Precision::parse(k.get_ref()) {
            Some(p) => Some(p),
            None if key == "peak" && k.get_ref() == FP16_ACC16_KEY => None,
            None => {
                let extra = if key == "peak" {
                    format!(" (or {FP16_ACC16_KEY})")
                } else {
                    String::new()
                };
                f.problem(
                    at,
                    format!(
                        "unknown precision `{}` in [device.{key}]; use fp32 tf32 bf16 fp16 fp8 int8 fp4 int4{extra}",
                        super::fields::printable(k.get_ref())
                    ),
                );
                ok = false;
                continue;
            }
        };
        let label = slot.map_or(FP16_ACC16_KEY, |p| p.name());
        let text = match val.get_ref().as_str() {
            Some(s) => (s.to_string(), val.span().start),
            None => {
                f.problem(
                    val.span().start,
                    format!("{key} {label} must be a string like \"989 TFLOPS\""),
                );
                ok = false;
                continue;
            }
        };
        if !f.check_text(&format!("{key} {label}"), &text.0, text.1) {
            ok = false;
            continue;
        }
        match quantity(f, label, Some(text), Kind::FlopRate, &limits::FLOP_RATE) {
            Some(x) => match slot {
                Some(p) => peaks.set(p, Some(x)),
                None => peaks.fp16_acc16 = Some(x),
            },
            None => ok = false,
        }
    }
    if let Some(fast) = peaks.fp16_acc16 {
        match peaks.fp16 {
            None => {
                f.problem(
                    v.span().start,
                    format!("[device.peak] {FP16_ACC16_KEY} needs the fp16 peak (FP32 accumulate) beside it; add fp16"),
                );
                ok = false;
            }
            Some(fp16) if fast < fp16 => {
                f.problem(
                    v.span().start,
                    format!(
                        "[device.peak] {FP16_ACC16_KEY} ({}) is below fp16 ({}): give it only where FP16 accumulate runs faster than FP32 accumulate",
                        units::format_flops(fast),
                        units::format_flops(fp16)
                    ),
                );
                ok = false;
            }
            Some(_) => {}
        }
    }
    if t.is_empty() {
        f.problem(
            v.span().start,
            format!("[device.{key}] needs at least one precision"),
        );
        return None;
    }
    ok.then_some(peaks)
}

/// Scale-up, devices per node, scale-out, torus, host link.
type Interconnect = (Option<f64>, u32, Option<f64>, Option<Torus>, Option<f64>);

/// `[device.interconnect]`: scale-up, devices per node, scale-out, torus,
/// host link.
fn interconnect(f: &mut Fields) -> Interconnect {
    let Some(mut ic) = f.table("interconnect", INTERCONNECT_KEYS) else {
        return (None, 1, None, None, None);
    };
    let up = ic.opt_string("scale_up");
    let up = quantity(&mut ic, "scale_up", up, Kind::Bandwidth, &limits::BANDWIDTH);
    let out = ic.opt_string("scale_out");
    let out = quantity(
        &mut ic,
        "scale_out",
        out,
        Kind::Bandwidth,
        &limits::BANDWIDTH,
    );
    let host = ic.opt_string("host");
    let host = quantity(&mut ic, "host", host, Kind::Bandwidth, &limits::BANDWIDTH);
    let per_node = ic.opt_whole("devices_per_node", limits::DEVICES_PER_NODE);
    let torus = torus(&mut ic, per_node);
    ic.opt_string("notes");
    f.absorb(ic);
    (up, per_node.map_or(1, |(n, _)| n), out, torus, host)
}

/// `torus`, `torus_link` and `torus_wrap`: all three or none; the shape's
/// devices are `devices_per_node`.
fn torus(ic: &mut Fields, per_node: Option<At<u32>>) -> Option<Torus> {
    let shape = ic.opt_string("torus");
    let link = ic.opt_string("torus_link");
    let link = quantity(ic, "torus_link", link, Kind::Bandwidth, &limits::BANDWIDTH);
    let wrap = ic.opt_string("torus_wrap");
    let (lo, hi) = (limits::TORUS_AXIS.start(), limits::TORUS_AXIS.end());
    let dims = shape.as_ref().and_then(|(s, at)| {
        let dims = Torus::parse_dims(s, *hi);
        if dims.is_none() {
            ic.problem(
                *at,
                format!("torus = {s:?} is not a shape; write \"16x16x24\" or \"16x16\", each axis {lo} to {hi}"),
            );
        }
        dims
    });
    let wrap = wrap.and_then(|(s, at)| {
        let w = Wrap::parse(&s);
        if w.is_none() {
            ic.problem(
                at,
                format!("torus_wrap = {s:?}; use \"full axis\" (an axis wraps when it spans the torus) or \"cubes of 4\" (wraparound on slices of whole 4x4x4 cubes)"),
            );
        }
        w
    });
    let given = [shape.is_some(), link.is_some(), wrap.is_some()];
    if given.contains(&true) && given.contains(&false) {
        ic.problem(
            ic.at(),
            "a torus needs all of torus, torus_link and torus_wrap (or none of them)",
        );
        return None;
    }
    let torus = Torus {
        dims: dims?,
        link_bandwidth: link?,
        wrap: wrap?,
    };
    let chips: u64 = torus.dims.iter().map(|&d| d as u64).product();
    if per_node.map(|(n, _)| n as u64) != Some(chips) {
        ic.problem(
            shape.map_or(ic.at(), |(_, at)| at),
            format!(
                "torus {} holds {chips} devices; set devices_per_node = {chips} (the largest slice the torus joins)",
                torus.shape()
            ),
        );
        return None;
    }
    Some(torus)
}

/// `[device.price]`, if any.
fn price(f: &mut Fields) -> Option<Price> {
    let mut p = f.table("price", PRICE_KEYS)?;
    let hour = opt_number(&mut p, "per_hour_usd", &limits::PER_HOUR_USD);
    let buy = opt_number(&mut p, "purchase_usd", &limits::PURCHASE_USD);
    let as_of = p.string("as_of");
    let source = source(&mut p, "source");
    p.opt_string("notes");
    f.absorb(p);
    Some(Price {
        per_hour_usd: hour.map(|h| h.0),
        purchase_usd: buy.map(|b| b.0),
        as_of: as_of?.0,
        source: source?,
    })
}

/// The shape fields of a model, read whatever its kind.
struct Shape {
    layers: Option<At<u32>>,
    hidden: Option<At<u32>>,
    heads: Option<At<u32>>,
    kv_heads: Option<At<u32>>,
    head_dim: Option<At<u32>>,
    ffn: Option<At<u32>>,
    vocab: Option<At<u32>>,
    max_context: Option<At<u32>>,
    tied: Option<bool>,
    experts: Option<At<u32>>,
    top_k: Option<At<u32>>,
    active: Option<At<f64>>,
    kv_latent: Option<At<u32>>,
    rope_dim: Option<At<u32>>,
    q_latent: Option<At<u32>>,
    shared_ffn: Option<At<u32>>,
    dense_layers: Option<At<u32>>,
    dense_ffn: Option<At<u32>>,
    gated: Option<bool>,
    window: Option<At<u32>>,
    window_layers: Option<At<u32>>,
    flops: Option<At<f64>>,
    activations: Option<At<f64>>,
}

fn shape(f: &mut Fields) -> Shape {
    Shape {
        layers: f.opt_whole("layers", limits::LAYERS),
        hidden: f.opt_whole("hidden", limits::HIDDEN),
        heads: f.opt_whole("heads", limits::HEADS),
        kv_heads: f.opt_whole("kv_heads", limits::HEADS),
        head_dim: f.opt_whole("head_dim", limits::HEAD_DIM),
        ffn: f.opt_whole("ffn", limits::FFN),
        vocab: f.opt_whole("vocab", limits::VOCAB),
        max_context: f.opt_whole("max_context", limits::MAX_CONTEXT),
        tied: f.opt_bool("tied_embeddings"),
        experts: f.opt_whole("experts", limits::EXPERTS),
        top_k: f.opt_whole("top_k", limits::TOP_K),
        active: opt_number(f, "active_params", &limits::PARAMS),
        kv_latent: f.opt_whole("kv_latent", limits::LATENT),
        rope_dim: f.opt_whole("rope_dim", limits::ROPE_DIM),
        q_latent: f.opt_whole("q_latent", limits::LATENT),
        shared_ffn: f.opt_whole("shared_ffn", limits::FFN),
        dense_layers: f.opt_whole("dense_layers", limits::LAYERS),
        dense_ffn: f.opt_whole("dense_ffn", limits::FFN),
        gated: f.opt_bool("gated_mlp"),
        window: f.opt_whole("sliding_window", limits::MAX_CONTEXT),
        window_layers: f.opt_whole("window_layers", limits::LAYERS),
        flops: opt_number(f, "flops_per_sample", &limits::FLOPS_PER_SAMPLE),
        activations: opt_number(f, "activation_elements_per_sample", &limits::ACTIVATIONS),
    }
}

/// The rules between fields: KV heads divide the heads, the active
/// parameters are at most the total, experts only on MoE entries.
fn consistency(f: &mut Fields, kind: Option<ModelKind>, params: Option<f64>, s: &Shape) {
    if let (Some((h, _)), Some((kv, at))) = (s.heads, s.kv_heads)
        && (kv > h || h % kv != 0)
    {
        f.problem(
            at,
            format!("kv_heads = {kv} must divide heads = {h} (each KV head serves heads/kv_heads query heads)"),
        );
    }
    if let (Some(p), Some((a, at))) = (params, s.active)
        && a > p
    {
        f.problem(
            at,
            format!("active_params = {a} is more than params = {p}; the active parameters are part of the total"),
        );
    }
    if let (Some((e, _)), Some((k, at))) = (s.experts, s.top_k)
        && k >= e
    {
        f.problem(at, format!("top_k = {k} must be fewer than experts = {e}"));
    }
    if kind.is_some_and(|k| k != ModelKind::MoeDecoder) {
        for (key, at) in [
            ("experts", s.experts.map(|x| x.1)),
            ("top_k", s.top_k.map(|x| x.1)),
            ("active_params", s.active.map(|x| x.1)),
            ("shared_ffn", s.shared_ffn.map(|x| x.1)),
            ("dense_layers", s.dense_layers.map(|x| x.1)),
            ("dense_ffn", s.dense_ffn.map(|x| x.1)),
        ] {
            if let Some(at) = at {
                f.problem(at, format!("`{key}` is only for kind = \"moe-decoder\""));
            }
        }
    }
    for (key, v) in [("rope_dim", s.rope_dim), ("q_latent", s.q_latent)] {
        if let (Some((_, at)), None) = (v, s.kv_latent) {
            f.problem(at, format!("{key} goes with kv_latent (MLA)"));
        }
    }
    if let (Some((n, at)), Some((l, _))) = (s.dense_layers, s.layers)
        && n >= l
    {
        f.problem(
            at,
            format!("dense_layers = {n} must be fewer than layers = {l}; the rest are MoE layers"),
        );
    }
    if let (Some((n, at)), None) = (s.dense_layers, s.dense_ffn)
        && n > 0
    {
        f.problem(
            at,
            "dense_layers needs `dense_ffn`, the intermediate size of the dense layers",
        );
    }
    if let (Some((_, at)), None) = (s.window_layers, s.window) {
        f.problem(at, "window_layers goes with sliding_window");
    }
    if let (Some((n, at)), Some((l, _))) = (s.window_layers, s.layers)
        && n > l
    {
        f.problem(at, format!("window_layers = {n} is more than layers = {l}"));
    }
}

/// A required shape field of a decoder.
fn need(f: &mut Fields, kind: ModelKind, key: &str, v: Option<At<u32>>) -> Option<u32> {
    if v.is_none() && f.value_missing(key) {
        f.problem(f.at(), format!("a {} needs `{key}`", kind.name()));
    }
    v.map(|x| x.0)
}

/// A `[[model]]` table to a model entry, or every problem it has.
pub fn model(f: &mut Fields, origin: &str) -> Option<Converted<ModelEntry>> {
    let (id, aliases) = names(f, "model", true);
    let name = f.string("name");
    let family = f.string("family");
    let kind = one_of(
        f,
        "kind",
        ModelKind::parse,
        "dense-decoder, moe-decoder, encoder, cnn or other",
    );
    let year = year(f);
    let source = source(f, "source");
    let notes = f.opt_string("notes");
    let input = f.opt_string("input");
    let weights = weights(f);
    let sources = sources(f);
    let params = number(f, "params", &limits::PARAMS);
    let s = shape(f);
    consistency(f, kind, params, &s);
    let graph = super::graph::read(f, kind, params, s.flops.map(|x| x.0));
    let arch = kind.and_then(|k| arch(f, k, &s));
    if f.has_problems() {
        return None;
    }
    let ((id, id_at), name, family, kind, year, source, params, arch) =
        match (id, name, family, kind, year, source, params, arch) {
            (Some(a), Some(b), Some(c), Some(d), Some(e), Some(g), Some(h), Some(i)) => {
                (a, b, c, d, e, g, h, i)
            }
            _ => return None,
        };
    let model = Model {
        id: id.clone(),
        name: name.0,
        kind,
        params,
        arch,
        layers: graph.map_or_else(Vec::new, |g| g.layers),
    };
    if let Err(e) = crate::solver::roofline::validate_model(&model) {
        let at = s.active.map_or(f.at(), |a| a.1);
        let e = e.to_string();
        let e = e.strip_prefix(&format!("{}: ", model.id)).unwrap_or(&e);
        f.problem(at, e);
        return None;
    }
    Some(Converted {
        entry: ModelEntry {
            model,
            aliases: aliases.iter().map(|(a, _)| a.clone()).collect(),
            family: family.0,
            year,
            source,
            notes: notes.map(|n| n.0),
            input: input.map(|i| i.0),
            weights,
            sources,
            origin: origin.to_string(),
        },
        id_at,
        alias_at: aliases.iter().map(|(_, at)| *at).collect(),
    })
}

/// `weights`: the checkpoint's weight precision, the default of a workload
/// that names none.
fn weights(f: &mut Fields) -> Option<Precision> {
    let (s, at) = f.opt_string("weights")?;
    let p = Precision::parse(&s);
    if p.is_none() {
        f.problem(
            at,
            format!("unknown weights precision {s:?}; use fp32 tf32 bf16 fp16 fp8 int8 fp4 int4"),
        );
    }
    p
}

/// The architecture a kind needs, from the shape fields.
fn arch(f: &mut Fields, kind: ModelKind, s: &Shape) -> Option<Arch> {
    if !kind.is_decoder() {
        if s.flops.is_none() && f.value_missing("flops_per_sample") {
            f.problem(
                f.at(),
                format!("a {} needs `flops_per_sample`", kind.name()),
            );
        }
        return Some(Arch::SinglePass(SinglePass {
            flops_per_sample: s.flops?.0,
            activation_elements_per_sample: s.activations.map_or(0.0, |a| a.0),
        }));
    }
    let moe = if kind == ModelKind::MoeDecoder {
        let experts = need(f, kind, "experts", s.experts);
        let top_k = need(f, kind, "top_k", s.top_k);
        if s.active.is_none() && f.value_missing("active_params") {
            f.problem(f.at(), "an moe-decoder needs `active_params`");
        }
        Some(Moe {
            experts: experts?,
            top_k: top_k?,
            active_params: s.active?.0,
            shared_ffn: s.shared_ffn.map_or(0, |x| x.0),
            dense_layers: s.dense_layers.map_or(0, |x| x.0),
            dense_ffn: s.dense_ffn.map_or(0, |x| x.0),
        })
    } else {
        None
    };
    let mla = s.kv_latent.map(|(l, _)| Mla {
        kv_latent: l,
        rope_dim: s.rope_dim.map_or(0, |r| r.0),
        q_latent: s.q_latent.map_or(0, |r| r.0),
    });
    let layers = need(f, kind, "layers", s.layers);
    let hidden = need(f, kind, "hidden", s.hidden);
    let heads = need(f, kind, "heads", s.heads);
    let head_dim = need(f, kind, "head_dim", s.head_dim);
    let ffn = need(f, kind, "ffn", s.ffn);
    let vocab = need(f, kind, "vocab", s.vocab);
    let max_context = need(f, kind, "max_context", s.max_context);
    let kv_heads = match s.kv_heads {
        Some((kv, _)) => Some(kv),
        None if f.value_missing("kv_heads") => heads,
        None => None,
    };
    Some(Arch::Decoder(Decoder {
        layers: layers?,
        hidden: hidden?,
        heads: heads?,
        kv_heads: kv_heads?,
        head_dim: head_dim?,
        ffn: ffn?,
        vocab: vocab?,
        tied_embeddings: s.tied.unwrap_or(false),
        max_context: max_context?,
        moe,
        mla,
        gated_mlp: s.gated.unwrap_or(true),
        window: match (s.window, layers) {
            (Some((tokens, _)), Some(l)) => Some(Window {
                tokens,
                layers: s.window_layers.map_or(l, |x| x.0),
            }),
            _ => None,
        },
    }))
}

/// A `[[region]]` table to a region, or every problem it has.
pub fn region(f: &mut Fields, origin: &str) -> Option<Converted<Region>> {
    let (id, _) = names(f, "region", false);
    let name = f.string("name");
    let grid = number(f, "grid_gco2_per_kwh", &limits::GRID);
    let pue = number(f, "pue", &limits::PUE);
    let price = number(f, "electricity_usd_per_kwh", &limits::ELECTRICITY);
    let year = year(f);
    let source = source(f, "source");
    let notes = f.opt_string("notes");
    let sources = sources(f);
    if f.has_problems() {
        return None;
    }
    let ((id, id_at), name, grid, pue, price, year, source) =
        match (id, name, grid, pue, price, year, source) {
            (Some(a), Some(b), Some(c), Some(d), Some(e), Some(g), Some(h)) => {
                (a, b, c, d, e, g, h)
            }
            _ => return None,
        };
    Some(Converted {
        entry: Region {
            id,
            name: name.0,
            grid_gco2_per_kwh: grid,
            pue,
            electricity_usd_per_kwh: price,
            year,
            source,
            notes: notes.map(|n| n.0),
            sources,
            origin: origin.to_string(),
        },
        id_at,
        alias_at: Vec::new(),
    })
}
