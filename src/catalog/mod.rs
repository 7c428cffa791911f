//! The catalog: built-in TOML files embedded in the binary, with the user's
//! files laid over them. Converts the TOML form into plain solver types and
//! keeps each entry's sources beside it. Bad entries are reported with
//! file:line:column and skipped; the rest still loads.

mod raw;

use crate::solver::units::{self, Kind};
use crate::solver::{
    Arch, Decoder, Hardware, Mla, Model, ModelKind, Moe, Peaks, Precision, SinglePass, Tier,
};
use raw::{RawDevice, RawModel, RawRegion};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The built-in theme files (name, text), for the TUI.
pub fn builtin_themes() -> &'static [(&'static str, &'static str)] {
    embedded::THEMES
}

const REGIONS: &str = include_str!("../../catalog/regions.toml");

/// A problem found while loading: where, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// A device price with its date and source.
#[derive(Debug, Clone, PartialEq)]
pub struct Price {
    pub per_hour_usd: Option<f64>,
    pub purchase_usd: Option<f64>,
    pub as_of: String,
    pub source: String,
}

/// A device and where its figures come from.
#[derive(Debug, Clone, PartialEq)]
pub struct HardwareEntry {
    pub hw: Hardware,
    pub aliases: Vec<String>,
    pub vendor: String,
    pub family: Option<String>,
    pub source: String,
    /// Per-figure sources that override `source`.
    pub sources: BTreeMap<String, String>,
    pub notes: Option<String>,
    pub price: Option<Price>,
    /// The file the entry came from.
    pub origin: String,
}

impl HardwareEntry {
    /// The source of one figure (`peak`, `memory_bandwidth`, ...).
    pub fn source_of(&self, field: &str) -> &str {
        self.sources.get(field).map_or(&self.source, |s| s.as_str())
    }
}

/// A model and where its figures come from.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEntry {
    pub model: Model,
    pub aliases: Vec<String>,
    pub family: String,
    pub year: u16,
    pub source: String,
    pub notes: Option<String>,
    pub input: Option<String>,
    /// Per-figure sources that override `source`.
    pub sources: BTreeMap<String, String>,
    pub origin: String,
}

/// A grid region for energy, carbon and price.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub id: String,
    pub name: String,
    pub grid_gco2_per_kwh: f64,
    pub pue: f64,
    pub electricity_usd_per_kwh: f64,
    pub year: u16,
    pub source: String,
    pub notes: Option<String>,
    /// Per-figure sources that override `source`.
    pub sources: BTreeMap<String, String>,
    pub origin: String,
}

impl Region {
    /// The figures the solver's economics use.
    pub fn grid(&self) -> crate::solver::economics::Grid {
        crate::solver::economics::Grid {
            gco2_per_kwh: self.grid_gco2_per_kwh,
            pue: self.pue,
            usd_per_kwh: self.electricity_usd_per_kwh,
        }
    }
}

/// Everything loaded, plus what went wrong on the way.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub hardware: Vec<HardwareEntry>,
    pub models: Vec<ModelEntry>,
    pub regions: Vec<Region>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Where user files live: `--catalog DIR` (a catalog directory), else
/// `$RIDGELINE_CONFIG_DIR/catalog`, else the platform config dir's `catalog`.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("RIDGELINE_CONFIG_DIR") {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "ridgeline").map(|p| p.config_dir().to_path_buf())
}

/// The user catalog directory to overlay, if any.
pub fn user_catalog_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => config_dir().map(|d| d.join("catalog")),
    }
}

impl Catalog {
    /// The built-in catalog only.
    pub fn builtin() -> Catalog {
        let mut c = Catalog::default();
        for (name, text) in embedded::HARDWARE {
            c.add_hardware_file(name, text);
        }
        for (name, text) in embedded::MODELS {
            c.add_model_file(name, text);
        }
        c.add_region_file("catalog/regions.toml", REGIONS);
        c
    }

    /// The built-in catalog with the files of `dir` (hardware/*.toml,
    /// models/*.toml, regions.toml) laid over it. A missing directory is
    /// not an error; an unreadable file is reported.
    pub fn load(dir: Option<&Path>) -> Catalog {
        let mut c = Catalog::builtin();
        if let Some(dir) = dir {
            c.overlay_dir(dir);
        }
        c
    }

    /// Lay the files of a catalog directory over this catalog.
    pub fn overlay_dir(&mut self, dir: &Path) {
        for (sub, is_hw) in [("hardware", true), ("models", false)] {
            for path in toml_files(&dir.join(sub)) {
                match std::fs::read_to_string(&path) {
                    Ok(text) => {
                        let name = path.display().to_string();
                        if is_hw {
                            self.add_hardware_file(&name, &text)
                        } else {
                            self.add_model_file(&name, &text)
                        }
                    }
                    Err(e) => self.diag(
                        &path.display().to_string(),
                        1,
                        1,
                        format!("cannot read: {e}"),
                    ),
                }
            }
        }
        let regions = dir.join("regions.toml");
        if regions.exists() {
            match std::fs::read_to_string(&regions) {
                Ok(text) => self.add_region_file(&regions.display().to_string(), &text),
                Err(e) => self.diag(
                    &regions.display().to_string(),
                    1,
                    1,
                    format!("cannot read: {e}"),
                ),
            }
        }
    }

    fn diag(&mut self, file: &str, line: usize, column: usize, message: String) {
        self.diagnostics.push(Diagnostic {
            file: file.to_string(),
            line,
            column,
            message,
        });
    }

    /// Parse one file's `[[key]]` entries; report a syntax error or a
    /// malformed entry and keep the rest.
    fn entries<T: for<'de> Deserialize<'de>>(
        &mut self,
        file: &str,
        text: &str,
        key: &str,
    ) -> Vec<(usize, T)> {
        let table: toml::Table = match toml::from_str(text) {
            Ok(t) => t,
            Err(e) => {
                let (line, col) = e.span().map_or((1, 1), |s| line_col(text, s.start));
                self.diag(
                    file,
                    line,
                    col,
                    format!("not valid TOML: {}", e.message().trim()),
                );
                return Vec::new();
            }
        };
        for k in table.keys() {
            if k != key {
                let (line, col) = find_key(text, 0..text.len(), k);
                self.diag(
                    file,
                    line,
                    col,
                    format!("unknown table `{k}`: this file holds [[{key}]] entries"),
                );
            }
        }
        let Some(items) = table.get(key) else {
            return Vec::new();
        };
        let Some(items) = items.as_array() else {
            let (line, col) = find_key(text, 0..text.len(), key);
            self.diag(
                file,
                line,
                col,
                format!("`{key}` must be written as [[{key}]] tables"),
            );
            return Vec::new();
        };
        let starts = entry_starts(text, key);
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match T::deserialize(item.clone()) {
                Ok(v) => out.push((i, v)),
                Err(e) => {
                    let start = starts.get(i).copied().unwrap_or(0);
                    let (line, col) = line_col(text, start);
                    let id = item.get("id").and_then(|v| v.as_str()).unwrap_or("?");
                    self.diag(
                        file,
                        line,
                        col,
                        format!("{key} `{id}`: {}", e.message().trim()),
                    );
                }
            }
        }
        out
    }

    /// Parse the `[[key]]` entries of one file, convert each, and add it to
    /// (or replace by id in) the list `pick` selects; report what fails.
    fn add_file<R, E>(
        &mut self,
        file: &str,
        text: &str,
        key: &str,
        convert: fn(R, &str) -> Result<E, ConvertError>,
        pick: fn(&mut Catalog) -> Slot<'_, E>,
    ) where
        R: for<'de> Deserialize<'de>,
    {
        let starts = entry_starts(text, key);
        for (i, raw) in self.entries::<R>(file, text, key) {
            match convert(raw, file) {
                Ok(entry) => {
                    let (list, id) = pick(self);
                    upsert(list, entry, id);
                }
                Err((field, msg)) => {
                    let (line, col) = find_key(text, entry_range(&starts, i, text.len()), &field);
                    self.diag(file, line, col, msg);
                }
            }
        }
    }

    /// Add (or replace by id) the devices of one hardware file.
    pub fn add_hardware_file(&mut self, file: &str, text: &str) {
        self.add_file(file, text, "device", convert_device, |c| {
            (&mut c.hardware, |e| &e.hw.id)
        });
    }

    /// Add (or replace by id) the models of one model file.
    pub fn add_model_file(&mut self, file: &str, text: &str) {
        self.add_file(file, text, "model", convert_model, |c| {
            (&mut c.models, |e| &e.model.id)
        });
    }

    /// Add (or replace by id) the regions of one regions file.
    pub fn add_region_file(&mut self, file: &str, text: &str) {
        self.add_file(file, text, "region", convert_region, |c| {
            (&mut c.regions, |e| &e.id)
        });
    }

    /// Find a device by id or alias (case-insensitive).
    pub fn hardware(&self, name: &str) -> Result<&HardwareEntry, LookupError> {
        let key = name.trim().to_ascii_lowercase();
        self.hardware
            .iter()
            .find(|e| e.hw.id == key || e.aliases.iter().any(|a| a.eq_ignore_ascii_case(&key)))
            .ok_or_else(|| {
                LookupError::new(
                    "hardware",
                    name,
                    self.hardware
                        .iter()
                        .map(|e| (e.hw.id.as_str(), e.aliases.as_slice())),
                )
            })
    }

    /// Find a model by id or alias (case-insensitive).
    pub fn model(&self, name: &str) -> Result<&ModelEntry, LookupError> {
        let key = name.trim().to_ascii_lowercase();
        self.models
            .iter()
            .find(|e| e.model.id == key || e.aliases.iter().any(|a| a.eq_ignore_ascii_case(&key)))
            .ok_or_else(|| {
                LookupError::new(
                    "model",
                    name,
                    self.models
                        .iter()
                        .map(|e| (e.model.id.as_str(), e.aliases.as_slice())),
                )
            })
    }

    /// Find a region by id (case-insensitive).
    pub fn region(&self, name: &str) -> Result<&Region, LookupError> {
        let key = name.trim().to_ascii_lowercase();
        self.regions.iter().find(|r| r.id == key).ok_or_else(|| {
            LookupError::new(
                "region",
                name,
                self.regions.iter().map(|r| (r.id.as_str(), &[][..])),
            )
        })
    }

    /// Plain solver devices, in catalog order.
    pub fn devices(&self) -> Vec<Hardware> {
        self.hardware.iter().map(|e| e.hw.clone()).collect()
    }
}

/// An unknown id, with the closest known ids.
#[derive(Debug, Clone, PartialEq)]
pub struct LookupError {
    pub what: &'static str,
    pub name: String,
    pub suggestions: Vec<String>,
}

impl LookupError {
    fn new<'a>(
        what: &'static str,
        name: &str,
        known: impl Iterator<Item = (&'a str, &'a [String])>,
    ) -> Self {
        let key = name.trim().to_ascii_lowercase();
        let mut scored: Vec<(usize, &str)> = Vec::new();
        for (id, aliases) in known {
            let d = std::iter::once(id)
                .chain(aliases.iter().map(|a| a.as_str()))
                .map(|n| distance(&key, &n.to_ascii_lowercase()))
                .min()
                .unwrap_or(usize::MAX);
            let d = if id.contains(key.as_str()) && !key.is_empty() {
                0
            } else {
                d
            };
            scored.push((d, id));
        }
        scored.sort();
        LookupError {
            what,
            name: name.to_string(),
            suggestions: scored
                .into_iter()
                .take(3)
                .map(|(_, id)| id.to_string())
                .collect(),
        }
    }
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {:?}", self.what, self.name)?;
        if !self.suggestions.is_empty() {
            write!(f, "; closest: {}", self.suggestions.join(", "))?;
        }
        let cmd = match self.what {
            "hardware" => "ridgeline zoo hardware",
            "model" => "ridgeline zoo models",
            _ => "ridgeline zoo regions",
        };
        write!(f, " (`{cmd}` lists them all)")
    }
}

impl std::error::Error for LookupError {}

/// Levenshtein edit distance.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn upsert<T>(list: &mut Vec<T>, item: T, id: fn(&T) -> &String) {
    match list.iter().position(|e| id(e) == id(&item)) {
        Some(i) => list[i] = item,
        None => list.push(item),
    }
}

/// The `*.toml` files of a directory, sorted (none if it cannot be read).
pub fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |i| offset - i - 1) + 1;
    (line, col)
}

/// Byte offsets of each `[[key]]` header.
fn entry_starts(text: &str, key: &str) -> Vec<usize> {
    let header = format!("[[{key}]]");
    let mut out = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with(&header) {
            out.push(pos + (line.len() - t.len()));
        }
        pos += line.len();
    }
    out
}

fn entry_range(starts: &[usize], i: usize, len: usize) -> std::ops::Range<usize> {
    let s = starts.get(i).copied().unwrap_or(0);
    let e = starts.get(i + 1).copied().unwrap_or(len);
    s..e
}

/// Line and column of `key = ...` (or of `[... .key]`) within a byte range;
/// the start of the range when it is not found.
fn find_key(text: &str, range: std::ops::Range<usize>, key: &str) -> (usize, usize) {
    let leaf = key.rsplit('.').next().unwrap_or(key);
    let mut pos = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let is_assign = t
            .strip_prefix(leaf)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        let is_table = t.starts_with('[') && t.contains(&format!(".{leaf}]"));
        if is_assign || is_table {
            return line_col(text, pos + indent);
        }
        pos += line.len();
    }
    line_col(text, range.start)
}

type ConvertError = (String, String);

/// A list of the catalog and how to read an entry's id.
type Slot<'a, E> = (&'a mut Vec<E>, fn(&E) -> &String);

fn quantity(field: &str, id: &str, s: &str, kind: Kind) -> Result<f64, ConvertError> {
    let v = units::parse(s, kind)
        .map_err(|e| (field.to_string(), format!("device `{id}`: {field}: {e}")))?;
    if v <= 0.0 {
        return Err((
            field.to_string(),
            format!("device `{id}`: {field} must be greater than zero, got {s:?}"),
        ));
    }
    Ok(v)
}

fn check_id(what: &str, id: &str, aliases: &[String]) -> Result<(), ConvertError> {
    let kebab = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
            && !s.starts_with('-')
    };
    if !kebab(id) {
        return Err((
            "id".into(),
            format!("{what} id {id:?} must be lower-case kebab case, like \"h100-sxm\""),
        ));
    }
    for a in aliases {
        if a.trim().is_empty() {
            return Err((
                "aliases".into(),
                format!("{what} `{id}`: an alias is empty"),
            ));
        }
    }
    Ok(())
}

fn non_empty(field: &str, what: &str, id: &str, s: &str) -> Result<(), ConvertError> {
    if s.trim().is_empty() {
        Err((
            field.into(),
            format!("{what} `{id}`: `{field}` is empty; every figure needs a source"),
        ))
    } else {
        Ok(())
    }
}

fn convert_device(r: RawDevice, origin: &str) -> Result<HardwareEntry, ConvertError> {
    let id = r.id.clone();
    check_id("device", &id, &r.aliases)?;
    non_empty("source", "device", &id, &r.source)?;
    let tier = Tier::parse(&r.tier).ok_or_else(|| {
        (
            "tier".to_string(),
            format!(
                "device `{id}`: unknown tier {:?}; use cloud, workstation, edge, mobile or tiny",
                r.tier
            ),
        )
    })?;
    let mut peaks = Peaks::default();
    for (k, v) in &r.peak {
        let p = Precision::parse(k).ok_or_else(|| {
            (k.clone(), format!("device `{id}`: unknown precision `{k}` in [device.peak]; use fp32 tf32 bf16 fp16 fp8 int8 fp4 int4"))
        })?;
        peaks.set(p, Some(quantity(k, &id, v, Kind::FlopRate)?));
    }
    if r.peak.is_empty() {
        return Err((
            "peak".into(),
            format!("device `{id}`: [device.peak] needs at least one precision"),
        ));
    }
    let memory_bytes = quantity("memory", &id, &r.memory, Kind::Bytes)?;
    let memory_bandwidth = quantity(
        "memory_bandwidth",
        &id,
        &r.memory_bandwidth,
        Kind::Bandwidth,
    )?;
    let tdp_w = r
        .tdp
        .as_deref()
        .map(|s| quantity("tdp", &id, s, Kind::Power))
        .transpose()?;
    let (link, per_node, scaleout) = match &r.interconnect {
        Some(ic) => (
            ic.scale_up
                .as_deref()
                .map(|s| quantity("scale_up", &id, s, Kind::Bandwidth))
                .transpose()?,
            ic.devices_per_node.unwrap_or(1),
            ic.scale_out
                .as_deref()
                .map(|s| quantity("scale_out", &id, s, Kind::Bandwidth))
                .transpose()?,
        ),
        None => (None, 1, None),
    };
    if per_node == 0 {
        return Err((
            "devices_per_node".into(),
            format!("device `{id}`: devices_per_node must be 1 or more"),
        ));
    }
    let price = match r.price {
        Some(p) => {
            non_empty("source", "device", &id, &p.source)?;
            for (f, v) in [
                ("per_hour_usd", p.per_hour_usd),
                ("purchase_usd", p.purchase_usd),
            ] {
                if let Some(v) = v
                    && !(v.is_finite() && v > 0.0)
                {
                    return Err((
                        f.into(),
                        format!("device `{id}`: price {f} must be greater than zero, got {v}"),
                    ));
                }
            }
            Some(Price {
                per_hour_usd: p.per_hour_usd,
                purchase_usd: p.purchase_usd,
                as_of: p.as_of,
                source: p.source,
            })
        }
        None => None,
    };
    Ok(HardwareEntry {
        hw: Hardware {
            id: id.clone(),
            name: r.name,
            tier,
            year: r.year,
            peaks,
            memory_bytes,
            memory_bandwidth,
            link_bandwidth: link,
            devices_per_node: per_node,
            scaleout_bandwidth: scaleout,
            tdp_w,
            price_per_hour_usd: price.as_ref().and_then(|p| p.per_hour_usd),
        },
        aliases: r.aliases.iter().map(|a| a.to_ascii_lowercase()).collect(),
        vendor: r.vendor,
        family: r.family,
        source: r.source,
        sources: r.sources,
        notes: r.notes,
        price,
        origin: origin.to_string(),
    })
}

fn convert_model(r: RawModel, origin: &str) -> Result<ModelEntry, ConvertError> {
    let id = r.id.clone();
    check_id("model", &id, &r.aliases)?;
    non_empty("source", "model", &id, &r.source)?;
    let kind = ModelKind::parse(&r.kind).ok_or_else(|| {
        ("kind".to_string(), format!("model `{id}`: unknown kind {:?}; use dense-decoder, moe-decoder, encoder, cnn or other", r.kind))
    })?;
    let pos = |field: &str, v: f64| -> Result<f64, ConvertError> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err((
                field.to_string(),
                format!("model `{id}`: {field} must be greater than zero, got {v}"),
            ))
        }
    };
    let need = |field: &str, v: Option<u32>| -> Result<u32, ConvertError> {
        match v {
            Some(x) if x > 0 => Ok(x),
            Some(_) => Err((
                field.to_string(),
                format!("model `{id}`: {field} must be greater than zero"),
            )),
            None => Err((
                "kind".to_string(),
                format!("model `{id}`: a {} needs `{field}`", kind.name()),
            )),
        }
    };
    let params = pos("params", r.params)?;
    let arch = if kind.is_decoder() {
        let moe = if kind == ModelKind::MoeDecoder {
            let experts = need("experts", r.experts)?;
            let top_k = need("top_k", r.top_k)?;
            let active = r.active_params.ok_or_else(|| {
                (
                    "kind".to_string(),
                    format!("model `{id}`: an moe-decoder needs `active_params`"),
                )
            })?;
            let active = pos("active_params", active)?;
            if top_k >= experts || active >= params {
                return Err((
                    "top_k".into(),
                    format!("model `{id}`: need top_k < experts and active_params < params"),
                ));
            }
            Some(Moe {
                experts,
                top_k,
                active_params: active,
            })
        } else {
            None
        };
        let mla = match (r.kv_latent, r.rope_dim) {
            (Some(l), rope) => Some(Mla {
                kv_latent: need("kv_latent", Some(l))?,
                rope_dim: rope.unwrap_or(0),
            }),
            (None, Some(_)) => {
                return Err((
                    "rope_dim".into(),
                    format!("model `{id}`: rope_dim goes with kv_latent (MLA)"),
                ));
            }
            (None, None) => None,
        };
        let heads = need("heads", r.heads)?;
        Arch::Decoder(Decoder {
            layers: need("layers", r.layers)?,
            hidden: need("hidden", r.hidden)?,
            heads,
            kv_heads: need("kv_heads", r.kv_heads.or(Some(heads)))?,
            head_dim: need("head_dim", r.head_dim)?,
            ffn: need("ffn", r.ffn)?,
            vocab: need("vocab", r.vocab)?,
            tied_embeddings: r.tied_embeddings.unwrap_or(false),
            max_context: need("max_context", r.max_context)?,
            moe,
            mla,
        })
    } else {
        let f = r.flops_per_sample.ok_or_else(|| {
            (
                "kind".to_string(),
                format!("model `{id}`: a {} needs `flops_per_sample`", kind.name()),
            )
        })?;
        let act = r.activation_elements_per_sample.unwrap_or(0.0);
        if !(act.is_finite() && act >= 0.0) {
            return Err((
                "activation_elements_per_sample".into(),
                format!("model `{id}`: activation_elements_per_sample must be zero or more"),
            ));
        }
        Arch::SinglePass(SinglePass {
            flops_per_sample: pos("flops_per_sample", f)?,
            activation_elements_per_sample: act,
        })
    };
    let model = Model {
        id: id.clone(),
        name: r.name,
        kind,
        params,
        arch,
    };
    crate::solver::roofline::validate_model(&model)
        .map_err(|e| ("params".to_string(), format!("model `{id}`: {e}")))?;
    Ok(ModelEntry {
        model,
        aliases: r.aliases.iter().map(|a| a.to_ascii_lowercase()).collect(),
        family: r.family,
        year: r.year,
        source: r.source,
        notes: r.notes,
        input: r.input,
        sources: r.sources,
        origin: origin.to_string(),
    })
}

fn convert_region(r: RawRegion, origin: &str) -> Result<Region, ConvertError> {
    check_id("region", &r.id, &[])?;
    non_empty("source", "region", &r.id, &r.source)?;
    for (f, v) in [
        ("grid_gco2_per_kwh", r.grid_gco2_per_kwh),
        ("electricity_usd_per_kwh", r.electricity_usd_per_kwh),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err((
                f.into(),
                format!("region `{}`: {f} must be zero or more, got {v}", r.id),
            ));
        }
    }
    if !(r.pue.is_finite() && r.pue >= 1.0) {
        return Err((
            "pue".into(),
            format!("region `{}`: pue must be 1 or more, got {}", r.id, r.pue),
        ));
    }
    Ok(Region {
        id: r.id,
        name: r.name,
        grid_gco2_per_kwh: r.grid_gco2_per_kwh,
        pue: r.pue,
        electricity_usd_per_kwh: r.electricity_usd_per_kwh,
        year: r.year,
        source: r.source,
        notes: r.notes,
        sources: r.sources,
        origin: origin.to_string(),
    })
}

#[cfg(test)]
mod tests;
