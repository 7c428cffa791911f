//! Writing entries back in the catalog's own TOML form (catalog/SCHEMA.md),
//! and saving one into a user catalog file without losing anything else the
//! file holds.
//!
//! - [`quantity`] writes a figure with a unit so that the catalog reads back
//!   exactly the same `f64` ("989.4 TFLOPS", "80 GB", "17179869184 B" when
//!   no prefix is exact).
//! - [`device_toml`] and [`region_toml`] write one `[[device]]` or
//!   `[[region]]` table.
//! - [`upsert`] splices such a table into a file's text: the entry with the
//!   same id is replaced from its header to its last value, every other byte
//!   (other entries, comments, blank lines) stays as it was; a new id is
//!   appended. A file that is not TOML is refused, never rewritten.
//! - [`save_device`] and [`save_region`] read the file, splice, check that
//!   the result loads back to the same entry, and write it with
//!   [`crate::fsutil::write_atomic`].
//! - [`Catalog::put_hardware`] and [`Catalog::put_region`] place an entry
//!   in a loaded catalog without any file (the workbench's live preview of
//!   an entry being typed).

use super::fields::{Source, printable};
use super::names::{Incoming, Place};
use super::{Catalog, HardwareEntry, Region, files};
use crate::fsutil::{self, Written};
use crate::solver::units::{self, Kind};
use crate::solver::{Hardware, Precision};
use std::path::{Path, PathBuf};

/// The units a figure of `kind` may be written in, largest first.
fn units_of(kind: Kind) -> &'static [(&'static str, f64)] {
    const GI: f64 = 1_073_741_824.0;
    match kind {
        Kind::FlopRate => &[
            ("EFLOPS", 1e18),
            ("PFLOPS", 1e15),
            ("TFLOPS", 1e12),
            ("GFLOPS", 1e9),
            ("MFLOPS", 1e6),
            ("kFLOPS", 1e3),
            ("FLOPS", 1.0),
        ],
        Kind::Bandwidth => &[
            ("EB/s", 1e18),
            ("PB/s", 1e15),
            ("TB/s", 1e12),
            ("GB/s", 1e9),
            ("MB/s", 1e6),
            ("kB/s", 1e3),
            ("B/s", 1.0),
        ],
        Kind::Bytes => &[
            ("EB", 1e18),
            ("PB", 1e15),
            ("TB", 1e12),
            ("TiB", GI * 1024.0),
            ("GB", 1e9),
            ("GiB", GI),
            ("MB", 1e6),
            ("MiB", 1_048_576.0),
            ("kB", 1e3),
            ("KiB", 1024.0),
            ("B", 1.0),
        ],
        Kind::Power => &[("MW", 1e6), ("kW", 1e3), ("W", 1.0), ("mW", 1e-3)],
        _ => &[],
    }
}

/// A figure with a unit that reads back as exactly `value`: of the
/// prefixed forms that do, the shortest with a number of at least 1
/// ("600 GB/s", not "0.6 TB/s"); else the plain unit with every digit
/// (which always does: Rust prints the shortest decimal that parses back).
pub fn quantity(value: f64, kind: Kind) -> String {
    let all = units_of(kind);
    let plain = all.iter().find(|(_, m)| *m == 1.0).map_or("", |(u, _)| *u);
    let mut best = (true, format!("{value} {plain}"));
    for (unit, m) in all {
        let n = value / m;
        let text = format!("{n} {unit}");
        let key = (n < 1.0, text);
        if (key.0, key.1.len()) < (best.0, best.1.len()) && units::parse(&key.1, kind) == Ok(value)
        {
            best = key;
        }
    }
    best.1
}

/// A TOML string (quoted and escaped).
fn s(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// A TOML float that reads back as exactly `x` (Rust's `{:?}` prints the
/// shortest form that does, with a `.0` or an exponent, both valid TOML).
fn float(x: f64) -> String {
    format!("{x:?}")
}

/// One `[[device]]` table in the catalog's form, with a blank line after.
pub fn device_toml(e: &HardwareEntry) -> String {
    let hw: &Hardware = &e.hw;
    let mut out = String::from("[[device]]\n");
    let mut line = |k: &str, v: String| out.push_str(&format!("{k} = {v}\n"));
    line("id", s(&hw.id));
    if !e.aliases.is_empty() {
        let a: Vec<String> = e.aliases.iter().map(|a| s(a)).collect();
        line("aliases", format!("[{}]", a.join(", ")));
    }
    line("name", s(&hw.name));
    line("vendor", s(&e.vendor));
    if let Some(f) = &e.family {
        line("family", s(f));
    }
    line("tier", s(hw.tier.name()));
    line("year", hw.year.to_string());
    line("source", s(&e.source));
    if let Some(n) = &e.notes {
        line("notes", s(n));
    }
    line("memory", s(&quantity(hw.memory_bytes, Kind::Bytes)));
    line(
        "memory_bandwidth",
        s(&quantity(hw.memory_bandwidth, Kind::Bandwidth)),
    );
    if let Some(m) = &e.memory_type {
        line("memory_type", s(m));
    }
    if let Some(w) = hw.tdp_w {
        line("tdp", s(&quantity(w, Kind::Power)));
    }
    for (table, rates) in [("peak", &hw.peaks), ("matmul", &hw.matmul)] {
        if Precision::ALL.iter().all(|&p| rates.get(p).is_none()) {
            continue;
        }
        out.push_str(&format!("\n[device.{table}]\n"));
        for p in Precision::ALL {
            if let Some(v) = rates.get(p) {
                out.push_str(&format!(
                    "{} = {}\n",
                    p.name(),
                    s(&quantity(v, Kind::FlopRate))
                ));
            }
        }
        if let Some(v) = rates.fp16_acc16 {
            out.push_str(&format!(
                "{} = {}\n",
                super::convert::FP16_ACC16_KEY,
                s(&quantity(v, Kind::FlopRate))
            ));
        }
    }
    let linked = hw.link_bandwidth.is_some()
        || hw.devices_per_node != 1
        || hw.scaleout_bandwidth.is_some()
        || hw.host_bandwidth.is_some()
        || hw.torus.is_some();
    if linked {
        out.push_str("\n[device.interconnect]\n");
        let bw = |v: f64| s(&quantity(v, Kind::Bandwidth));
        if let Some(v) = hw.link_bandwidth {
            out.push_str(&format!("scale_up = {}\n", bw(v)));
        }
        out.push_str(&format!("devices_per_node = {}\n", hw.devices_per_node));
        if let Some(v) = hw.scaleout_bandwidth {
            out.push_str(&format!("scale_out = {}\n", bw(v)));
        }
        if let Some(v) = hw.host_bandwidth {
            out.push_str(&format!("host = {}\n", bw(v)));
        }
        if let Some(t) = &hw.torus {
            out.push_str(&format!("torus = {}\n", s(&t.shape())));
            out.push_str(&format!("torus_link = {}\n", bw(t.link_bandwidth)));
            out.push_str(&format!("torus_wrap = {}\n", s(&t.wrap.name())));
        }
    }
    if let Some(p) = &e.price {
        out.push_str("\n[device.price]\n");
        if let Some(h) = p.per_hour_usd {
            out.push_str(&format!("per_hour_usd = {}\n", float(h)));
        }
        if let Some(b) = p.purchase_usd {
            out.push_str(&format!("purchase_usd = {}\n", float(b)));
        }
        out.push_str(&format!("as_of = {}\n", s(&p.as_of)));
        out.push_str(&format!("source = {}\n", s(&p.source)));
    }
    sources_toml(&mut out, "device", &e.sources);
    for c in &e.caches {
        out.push_str("\n[[device.cache]]\n");
        out.push_str(&format!("level = {}\n", s(&c.level)));
        out.push_str(&format!(
            "bandwidth = {}\n",
            s(&quantity(c.bandwidth, Kind::Bandwidth))
        ));
    }
    out
}

/// `[KEY.sources]`, if there are any.
fn sources_toml(out: &mut String, key: &str, sources: &std::collections::BTreeMap<String, String>) {
    if sources.is_empty() {
        return;
    }
    out.push_str(&format!("\n[{key}.sources]\n"));
    for (k, v) in sources {
        let k = if k
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            k.clone()
        } else {
            s(k)
        };
        out.push_str(&format!("{k} = {}\n", s(v)));
    }
}

/// One `[[region]]` table in the catalog's form.
pub fn region_toml(r: &Region) -> String {
    let mut out = String::from("[[region]]\n");
    let mut line = |k: &str, v: String| out.push_str(&format!("{k} = {v}\n"));
    line("id", s(&r.id));
    line("name", s(&r.name));
    line("grid_gco2_per_kwh", float(r.grid_gco2_per_kwh));
    line("pue", float(r.pue));
    line("electricity_usd_per_kwh", float(r.electricity_usd_per_kwh));
    line("year", r.year.to_string());
    line("source", s(&r.source));
    if let Some(n) = &r.notes {
        line("notes", s(n));
    }
    sources_toml(&mut out, "region", &r.sources);
    out
}

/// What a save does with the entry's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A new entry: its id must not be in the file already (a skipped,
    /// broken entry of the file keeps its bytes; pick another id).
    Add,
    /// Replace the entry with this id (append it if the file has none).
    Replace,
}

/// Why a file's text was not changed.
#[derive(Debug, Clone, PartialEq)]
pub enum UpsertError {
    /// The file is not TOML: `line:column: what`.
    NotToml(String),
    /// The file holds the key in a form that cannot take a `[[key]]` table.
    Shape(String),
    /// [`Mode::Add`] and the id is in the file.
    Taken(String),
}

impl std::fmt::Display for UpsertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UpsertError::NotToml(m) | UpsertError::Shape(m) => f.write_str(m),
            UpsertError::Taken(id) => write!(f, "the file already has an entry `{id}`"),
        }
    }
}

/// Each `[[key]]` entry of a file: its id, and the bytes from its header to
/// the end of the line of its last value.
type Spans = Vec<(Option<String>, std::ops::Range<usize>)>;

/// The `[[key]]` entries of a file, in file order.
fn entries(text: &str, key: &str) -> Result<Spans, UpsertError> {
    let src = Source::new("", text);
    let doc = src.parse().map_err(|p| {
        let (line, col) = src.position(p.at);
        UpsertError::NotToml(format!("line {line}, column {col}: {}", p.message))
    })?;
    let Some(items) = doc.get_ref().get(key) else {
        return Ok(Vec::new());
    };
    let shape = || {
        UpsertError::Shape(format!(
            "`{key}` is not written as [[{key}]] tables; write it that way (catalog/SCHEMA.md) and save again"
        ))
    };
    let list = items.get_ref().as_array().ok_or_else(shape)?;
    let mut out = Vec::new();
    for item in list.iter() {
        let start = item.span().start;
        let table = item.get_ref().as_table().ok_or_else(shape)?;
        if !text[start..].starts_with("[[") {
            return Err(shape());
        }
        let id = table
            .get("id")
            .and_then(|v| v.get_ref().as_str())
            .map(|s| s.trim().to_lowercase());
        let end = last_byte(table).max(start);
        let end = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
        out.push((id, start..end));
    }
    Ok(out)
}

/// The end of the last key or value written inside a table (its nested
/// tables and arrays included).
fn last_byte(t: &toml::de::DeTable) -> usize {
    let mut end = 0;
    for (k, v) in t.iter() {
        end = end.max(k.span().end).max(v.span().end);
        match v.get_ref() {
            toml::de::DeValue::Table(inner) => end = end.max(last_byte(inner)),
            toml::de::DeValue::Array(a) => {
                for x in a.iter() {
                    end = end.max(x.span().end);
                    if let toml::de::DeValue::Table(inner) = x.get_ref() {
                        end = end.max(last_byte(inner));
                    }
                }
            }
            _ => {}
        }
    }
    end
}

/// The ids of the `[[key]]` entries of a file's text (lower-case).
pub fn ids_in(text: &str, key: &str) -> Result<Vec<String>, UpsertError> {
    Ok(entries(text, key)?
        .into_iter()
        .filter_map(|(id, _)| id)
        .collect())
}

/// `text` with `entry` (one `[[key]]` table) in place of the entry of the
/// same id, or appended after a blank line. Every other byte is kept.
pub fn upsert(
    text: &str,
    key: &str,
    id: &str,
    entry: &str,
    mode: Mode,
) -> Result<String, UpsertError> {
    let all = entries(text, key)?;
    let id = id.to_lowercase();
    let found = all.iter().find(|(i, _)| i.as_deref() == Some(id.as_str()));
    match (found, mode) {
        (Some(_), Mode::Add) => Err(UpsertError::Taken(id)),
        (Some((_, range)), Mode::Replace) => {
            let mut out = String::with_capacity(text.len() + entry.len());
            out.push_str(&text[..range.start]);
            out.push_str(entry);
            out.push_str(&text[range.end..]);
            Ok(out)
        }
        (None, _) => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(entry);
            Ok(out)
        }
    }
}

/// How a save went: the id written (a new entry may get a suffix when the
/// file already holds its id) and the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub id: String,
    pub written: Written,
}

/// The user catalog files the workbench writes.
pub fn hardware_file(dir: &Path) -> PathBuf {
    dir.join("hardware").join("user.toml")
}

pub fn regions_file(dir: &Path) -> PathBuf {
    dir.join("regions.toml")
}

/// Read a user catalog file for a save: its text, or "" when there is
/// none; any other failure is the reason not to write.
fn read_for_save(path: &Path) -> Result<String, String> {
    match files::read_text(path) {
        Ok(t) => Ok(t),
        Err(files::ReadError::Missing) => Ok(String::new()),
        Err(e) => Err(format!(
            "{} cannot be read ({e}); nothing was written",
            printable(&path.display().to_string())
        )),
    }
}

/// `base-2`, `base-3`, ... until `free` accepts one.
pub fn free_id(base: &str, free: impl Fn(&str) -> bool) -> String {
    if free(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| free(c))
        .unwrap_or_else(|| base.to_string())
}

/// What one kind of entry needs for a save.
struct Kindred<E> {
    key: &'static str,
    id: fn(&E) -> &str,
    set_id: fn(&mut E, String),
    toml: fn(&E) -> String,
    /// Load a file's text into a catalog of its own.
    load: fn(&mut Catalog, &str, &str),
    /// The loaded entry of an id, its origin cleared, for the comparison.
    find: fn(&Catalog, &str) -> Option<E>,
}

fn save<E: PartialEq + Clone>(
    path: &Path,
    entry: &E,
    mode: Mode,
    taken: &dyn Fn(&str) -> bool,
    k: Kindred<E>,
) -> Result<Saved, String> {
    let name = printable(&path.display().to_string()).into_owned();
    let text = read_for_save(path)?;
    let refuse = |why: String| format!("{name} {why}; it was left as it was");
    if crate::catalog::is_builtin_text(&text) {
        return Err(refuse(
            "is one of ridgeline's built-in catalog files, which are never written; set RIDGELINE_CONFIG_DIR or --catalog DIR to a folder of your own and save there".into(),
        ));
    }
    let in_file = ids_in(&text, k.key).map_err(|e| refuse(format!("cannot be updated: {e}")))?;
    let mut entry = entry.clone();
    if mode == Mode::Add {
        let id = free_id((k.id)(&entry), |c| {
            !taken(c) && !in_file.iter().any(|i| i == c)
        });
        (k.set_id)(&mut entry, id);
    }
    let id = (k.id)(&entry).to_string();
    let new = upsert(&text, k.key, &id, &(k.toml)(&entry), mode)
        .map_err(|e| refuse(format!("cannot be updated: {e}")))?;
    // What is written must load back to the entry: check before writing.
    let mut check = Catalog::default();
    (k.load)(&mut check, &name, &new);
    if (k.find)(&check, &id).as_ref() != Some(&entry) {
        let why: Vec<String> = check
            .diagnostics
            .iter()
            .filter(|d| d.message.contains(&format!("`{id}`")))
            .map(|d| d.message.clone())
            .collect();
        return Err(refuse(format!(
            "would not load the entry `{id}` back{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(": {}", why.join("; "))
            }
        )));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create {}: {e}",
                printable(&dir.display().to_string())
            )
        })?;
    }
    let written = fsutil::write_atomic(path, new.as_bytes())
        .map_err(|e| format!("cannot write {name}: {e}; it was left as it was"))?;
    Ok(Saved { id, written })
}

/// Save a device into the user hardware file `path` (see [`Mode`]);
/// `taken` says which ids the catalog already uses (a new entry avoids
/// them). The entry's `origin` is ignored.
pub fn save_device(
    path: &Path,
    entry: &HardwareEntry,
    mode: Mode,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Saved, String> {
    let mut entry = entry.clone();
    entry.origin = String::new();
    save(
        path,
        &entry,
        mode,
        taken,
        Kindred {
            key: "device",
            id: |e: &HardwareEntry| &e.hw.id,
            set_id: |e, id| e.hw.id = id,
            toml: device_toml,
            load: |c, f, t| c.add_hardware_file(f, t),
            find: |c, id| {
                let mut e = c.hardware(id).ok()?.clone();
                e.origin = String::new();
                Some(e)
            },
        },
    )
}

/// Save a region into the user regions file `path`, as [`save_device`].
pub fn save_region(
    path: &Path,
    region: &Region,
    mode: Mode,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Saved, String> {
    let mut region = region.clone();
    region.origin = String::new();
    save(
        path,
        &region,
        mode,
        taken,
        Kindred {
            key: "region",
            id: |r: &Region| &r.id,
            set_id: |r, id| r.id = id,
            toml: region_toml,
            load: |c, f, t| c.add_region_file(f, t),
            find: |c, id| {
                let mut r = c.region(id).ok()?.clone();
                r.origin = String::new();
                Some(r)
            },
        },
    )
}

impl Catalog {
    /// Put a device in place of the one with its id, or add it: for a
    /// preview, no file is involved. Returns its index.
    pub fn put_hardware(&mut self, e: HardwareEntry) -> usize {
        let key = e.hw.id.to_lowercase();
        match self.hw_names.get(&key) {
            Some(i) if self.hardware[i].hw.id == key => {
                self.hardware[i] = e;
                i
            }
            // The id is another device's alias: reachable by index only.
            Some(_) => {
                self.hardware.push(e);
                self.hardware.len() - 1
            }
            None => {
                let mut problems = super::fields::Problems::default();
                self.hw_names
                    .add(&mut self.hardware, preview(e), &mut problems);
                self.hw_names.get(&key).unwrap_or(self.hardware.len() - 1)
            }
        }
    }

    /// Put a region in place of the one with its id, or add it (a preview).
    pub fn put_region(&mut self, r: Region) -> usize {
        let key = r.id.to_lowercase();
        if let Some(i) = self.region_names.get(&key) {
            self.regions[i] = r;
            return i;
        }
        let mut problems = super::fields::Problems::default();
        self.region_names
            .add(&mut self.regions, preview(r), &mut problems);
        self.region_names
            .get(&key)
            .unwrap_or(self.regions.len() - 1)
    }
}

fn preview<E>(entry: E) -> Incoming<E> {
    Incoming {
        entry,
        place: Place {
            builtin: false,
            file: "(the entry being typed)".into(),
            line: 1,
            column: 1,
        },
        id_at: 0,
        alias_at: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
