//! The catalog: built-in TOML files embedded in the binary, with the user's
//! files laid over them. Converts the TOML form into plain solver types and
//! keeps each entry's sources beside it. Bad entries are reported with
//! file:line:column and skipped; the rest still loads. Ids and aliases
//! live in hash maps, so loading and lookups stay linear in the number of
//! entries; user files are read only when they are regular files of at
//! most [`files::MAX_FILE_BYTES`].

mod convert;
pub mod device_class;
pub mod fields;
pub mod files;
mod graph;
pub mod hf;
pub mod limits;
mod names;
pub mod profile;
pub mod training_runs;
pub mod write;

use crate::solver::{Hardware, Model, Precision};
use fields::{Fields, Source};
use names::{Incoming, Named, Names, Place};
pub use profile::{Measurement, ProfileEntry};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The built-in theme files (name, text), for the TUI.
/// The device and model every face opens on when none is named: the
/// workbench's selection and each command's `-H` and `-m` default.
pub const DEFAULT_HARDWARE: &str = "h100-sxm";
pub const DEFAULT_MODEL: &str = "llama-3.1-8b";

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
    /// `file:line:column: message`, with any control character of the file
    /// name or the message escaped: neither may drive the terminal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            fields::printable(&self.file),
            self.line,
            self.column,
            fields::printable(&self.message)
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
    /// The DRAM technology ("HBM3", "GDDR6X", "LPDDR5"), where the source
    /// says it: what a device's memory reaches at a given share of its
    /// peak depends on it, so device classes follow it
    /// ([`device_class::DeviceClass::of`]).
    pub memory_type: Option<String>,
    pub source: String,
    /// Per-figure sources that override `source`.
    pub sources: BTreeMap<String, String>,
    pub notes: Option<String>,
    pub price: Option<Price>,
    /// Measured bandwidth of each cache level (`[[device.cache]]`),
    /// innermost first: the extra roofs of a hierarchical roofline.
    pub caches: Vec<CacheCeiling>,
    /// The file the entry came from.
    pub origin: String,
}

/// The bandwidth ceiling of one cache level ("L1" to "L4").
#[derive(Debug, Clone, PartialEq)]
pub struct CacheCeiling {
    pub level: String,
    /// byte/s
    pub bandwidth: f64,
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
    /// The checkpoint's weight precision (`weights`): the default of a
    /// workload that names none (an imported AWQ model: int4).
    pub weights: Option<Precision>,
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

impl Named for HardwareEntry {
    const WHAT: &'static str = "device";
    fn id(&self) -> &str {
        &self.hw.id
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    fn set_aliases(&mut self, aliases: Vec<String>) {
        self.aliases = aliases;
    }
}

impl Named for ModelEntry {
    const WHAT: &'static str = "model";
    fn id(&self) -> &str {
        &self.model.id
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    fn set_aliases(&mut self, aliases: Vec<String>) {
        self.aliases = aliases;
    }
}

impl Named for ProfileEntry {
    const WHAT: &'static str = "profile";
    fn id(&self) -> &str {
        &self.id
    }
    fn aliases(&self) -> &[String] {
        &[]
    }
    fn set_aliases(&mut self, _: Vec<String>) {}
}

impl Named for Measurement {
    const WHAT: &'static str = "measurement";
    fn id(&self) -> &str {
        &self.id
    }
    fn aliases(&self) -> &[String] {
        &[]
    }
    fn set_aliases(&mut self, _: Vec<String>) {}
}

impl Named for training_runs::TrainingMeasurement {
    const WHAT: &'static str = "training run";
    fn id(&self) -> &str {
        &self.id
    }
    fn aliases(&self) -> &[String] {
        &[]
    }
    fn set_aliases(&mut self, _: Vec<String>) {}
}

impl Named for Region {
    const WHAT: &'static str = "region";
    fn id(&self) -> &str {
        &self.id
    }
    fn aliases(&self) -> &[String] {
        &[]
    }
    fn set_aliases(&mut self, _: Vec<String>) {}
}

/// Everything loaded, plus what went wrong on the way. Add entries through
/// the `add_*_file` functions (they keep the id index); the lists are
/// public for reading.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub hardware: Vec<HardwareEntry>,
    pub models: Vec<ModelEntry>,
    pub regions: Vec<Region>,
    /// Calibration profiles: named sets of assumptions.
    pub profiles: Vec<ProfileEntry>,
    /// Published measurements the model is checked against.
    pub measurements: Vec<Measurement>,
    /// Published training runs the training model is checked against.
    pub training_runs: Vec<training_runs::TrainingMeasurement>,
    /// Problems: each one skipped an entry, a name or a file.
    pub diagnostics: Vec<Diagnostic>,
    /// Not problems: user entries that replace built-in ones.
    pub notes: Vec<Diagnostic>,
    hw_names: Names,
    model_names: Names,
    region_names: Names,
    profile_names: Names,
    measurement_names: Names,
    training_run_names: Names,
    /// True while the built-in files are added.
    adding_builtin: bool,
    /// How the device id `local` resolves (see [`Catalog::set_local_resolver`]).
    local: LocalSlot,
}

/// The device id that names the machine in hand (`-H local`).
pub const LOCAL_HARDWARE: &str = "local";

/// The `origin` of the `local` entry [`Catalog::add_local_entry`] adds
/// (it comes from no file).
pub const LOCAL_ORIGIN: &str = "(detected on this machine)";

/// Resolves `local` to an entry (the detected GPU or CPU), or says why it
/// cannot. The probe installs it; the catalog itself does no detection.
pub type LocalResolver = fn(&Catalog) -> Result<HardwareEntry, String>;

/// The resolver and, once asked, its answer (detection runs once, and
/// only when `local` is named).
#[derive(Debug, Clone, Default)]
struct LocalSlot {
    resolver: Option<LocalResolver>,
    resolved: std::sync::OnceLock<Result<HardwareEntry, String>>,
}

/// Which list of the catalog a file adds to.
#[derive(Clone, Copy)]
enum List {
    Hardware,
    Models,
    Regions,
    Profiles,
    Measurements,
    TrainingRuns,
}

impl List {
    fn key(self) -> &'static str {
        match self {
            List::Hardware => "device",
            List::Models => "model",
            List::Regions => "region",
            List::Profiles => "profile",
            List::Measurements => "measurement",
            List::TrainingRuns => "run",
        }
    }
}

/// Where user files live: `--catalog DIR` (a catalog directory), else
/// `$RIDGELINE_CONFIG_DIR/catalog`, else the platform config dir's `catalog`.
/// A `RIDGELINE_CONFIG_DIR` that is set but empty counts as unset, and a
/// relative one is taken from the current directory: the directory is
/// always absolute.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(std::env::var_os("RIDGELINE_CONFIG_DIR"))
}

fn config_dir_from(var: Option<std::ffi::OsString>) -> Option<PathBuf> {
    match var {
        Some(d) if !d.is_empty() => std::path::absolute(PathBuf::from(d)).ok(),
        _ => directories::ProjectDirs::from("", "", "ridgeline")
            .map(|p| p.config_dir().to_path_buf())
            .and_then(|d| std::path::absolute(d).ok()),
    }
}

/// The user catalog directory to overlay, if any: always an absolute path
/// (a relative `--catalog DIR` is taken from the current directory), so
/// that no built-in file name (`catalog/hardware/...`) is ever inside it.
pub fn user_catalog_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    match explicit {
        Some(p) => std::path::absolute(p).ok(),
        None => config_dir().map(|d| d.join("catalog")),
    }
}

/// Every built-in catalog file: its name (the `origin` of its entries) and
/// its text.
fn builtin_files() -> impl Iterator<Item = (&'static str, &'static str)> {
    [
        embedded::HARDWARE,
        embedded::MODELS,
        embedded::PROFILES,
        embedded::MEASUREMENTS,
        embedded::TRAINING,
    ]
    .into_iter()
    .flatten()
    .copied()
    .chain(std::iter::once(("catalog/regions.toml", REGIONS)))
}

/// True when `origin` names a built-in file: its entries are never the
/// user's own, and never written (only copied into the user's files).
pub fn is_builtin_origin(origin: &str) -> bool {
    builtin_files().any(|(name, _)| name == origin)
}

/// True when `text` is byte for byte one of the built-in files: a user
/// directory that is (or holds a copy of) the shipped catalog, as a
/// checkout's `catalog/` is. Such a file is not laid over the built-in
/// catalog (it adds nothing, and would make built-in entries look like the
/// user's) and is never written.
pub fn is_builtin_text(text: &str) -> bool {
    builtin_files().any(|(_, t)| t.len() == text.len() && t == text)
}

impl Catalog {
    /// The built-in catalog only.
    pub fn builtin() -> Catalog {
        let mut c = Catalog {
            adding_builtin: true,
            ..Catalog::default()
        };
        for (name, text) in embedded::HARDWARE {
            c.add_hardware_file(name, text);
        }
        for (name, text) in embedded::MODELS {
            c.add_model_file(name, text);
        }
        c.add_region_file("catalog/regions.toml", REGIONS);
        for (name, text) in embedded::PROFILES {
            c.add_file(name, text, List::Profiles);
        }
        c.adding_builtin = false;
        c
    }

    /// Add the published measurements: the built-in files, then
    /// `<dir>/measurements/*.toml`. Only `validate` and `catalog check` read
    /// them, so no other command or the workbench pays for parsing them at
    /// start-up.
    pub fn add_measurements(&mut self, dir: Option<&Path>) {
        self.adding_builtin = true;
        for (name, text) in embedded::MEASUREMENTS {
            self.add_file(name, text, List::Measurements);
        }
        for (name, text) in embedded::TRAINING {
            self.add_file(name, text, List::TrainingRuns);
        }
        self.adding_builtin = false;
        let Some(dir) = dir else {
            return;
        };
        self.add_dir(&dir.join("measurements"), List::Measurements);
        self.add_dir(&dir.join("training"), List::TrainingRuns);
    }

    /// The built-in catalog with the files of `dir` (hardware/*.toml,
    /// models/*.toml, profiles/*.toml, regions.toml) laid over it; the
    /// measurements come with [`Catalog::add_measurements`]. A missing directory is
    /// not an error (the default one need not exist); one that cannot be
    /// read, and every file that cannot be read, is reported. Callers that
    /// were given `dir` by the user check it first with [`check_user_dir`].
    pub fn load(dir: Option<&Path>) -> Catalog {
        let mut c = Catalog::builtin();
        if let Some(dir) = dir {
            c.overlay_dir(dir);
        }
        c
    }

    /// Lay the files of a catalog directory over this catalog.
    pub fn overlay_dir(&mut self, dir: &Path) {
        match std::fs::metadata(dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Ok(m) if m.is_dir() => {}
            Ok(_) | Err(_) => {
                let why = files::check_dir(dir).err().unwrap_or_default();
                let d = dir.display().to_string();
                self.diag(
                    &d,
                    1,
                    1,
                    format!("the catalog directory {why}; no user entries are loaded"),
                );
                return;
            }
        }
        for (sub, list) in [
            ("hardware", List::Hardware),
            ("models", List::Models),
            ("profiles", List::Profiles),
        ] {
            self.add_dir(&dir.join(sub), list);
        }
        self.add_path(&dir.join("regions.toml"), List::Regions);
    }

    /// Add every `*.toml` file of `sub` to `list`; a directory that is not
    /// there is no problem, one that cannot be listed is reported.
    fn add_dir(&mut self, sub: &Path, list: List) {
        match files::toml_files_checked(sub) {
            Ok(paths) => {
                for path in paths {
                    self.add_path(&path, list);
                }
            }
            Err(e) => {
                let d = sub.display().to_string();
                self.diag(&d, 1, 1, format!("cannot list the directory: {e}"));
            }
        }
    }

    /// Read one user file (a regular file within the size limit) and add
    /// it; a file that is not there is no problem.
    fn add_path(&mut self, path: &Path, list: List) {
        let name = path.display().to_string();
        match files::read_text(path) {
            Ok(text) if is_builtin_text(&text) => {}
            Ok(text) => self.add_file(&name, &text, list),
            Err(files::ReadError::Missing) => {}
            Err(e) => self.diag(&name, 1, 1, e.to_string()),
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

    /// Parse one file, convert each `[[key]]` entry, add the good ones,
    /// and report every problem of the file sorted by position.
    fn add_file(&mut self, file: &str, text: &str, list: List) {
        let src = Source::new(file, text);
        let mut problems = fields::Problems::default();
        let mut notes = fields::Problems::default();
        match src.parse() {
            Ok(doc) => self.add_entries(&src, doc.get_ref(), list, &mut problems, &mut notes),
            Err(p) => problems.push(p),
        }
        self.diagnostics.extend(src.diagnostics(problems));
        self.notes.extend(src.diagnostics(notes));
    }

    fn add_entries(
        &mut self,
        src: &Source,
        doc: &toml::de::DeTable,
        list: List,
        problems: &mut fields::Problems,
        notes: &mut fields::Problems,
    ) {
        let key = list.key();
        for (k, _) in doc.iter() {
            if k.get_ref() != key {
                problems.push(fields::Problem {
                    at: k.span().start,
                    message: format!(
                        "unknown table `{}`: this file holds [[{key}]] entries",
                        fields::printable(k.get_ref())
                    ),
                });
            }
        }
        let Some(items) = doc.get(key) else {
            return;
        };
        let Some(items) = items.get_ref().as_array() else {
            problems.push(fields::Problem {
                at: items.span().start,
                message: format!("`{key}` must be written as [[{key}]] tables"),
            });
            return;
        };
        for item in items.iter() {
            let at = item.span().start;
            let Some(table) = item.get_ref().as_table() else {
                problems.push(fields::Problem {
                    at,
                    message: format!("`{key}` must be written as [[{key}]] tables"),
                });
                continue;
            };
            let added = match list {
                List::Hardware => {
                    let mut f = Fields::new(table, at, key, convert::DEVICE_KEYS);
                    let c = convert::device(&mut f, src.file);
                    self.take(c, f, src, |c| (&mut c.hardware, &mut c.hw_names), problems)
                }
                List::Models => {
                    let mut f = Fields::new(table, at, key, convert::MODEL_KEYS);
                    let c = convert::model(&mut f, src.file);
                    self.take(c, f, src, |c| (&mut c.models, &mut c.model_names), problems)
                }
                List::Profiles => {
                    let mut f = Fields::new(table, at, key, profile::profile_keys());
                    let loaded = |id: &str| self.profile(id).ok().cloned();
                    let c = profile::profile(&mut f, src.file, &loaded);
                    self.take(
                        c,
                        f,
                        src,
                        |c| (&mut c.profiles, &mut c.profile_names),
                        problems,
                    )
                }
                List::Measurements => {
                    let mut f = Fields::new(table, at, key, profile::MEASUREMENT_KEYS);
                    let c = profile::measurement(&mut f, src.file);
                    self.take(
                        c,
                        f,
                        src,
                        |c| (&mut c.measurements, &mut c.measurement_names),
                        problems,
                    )
                }
                List::TrainingRuns => {
                    let mut f = Fields::new(table, at, key, training_runs::RUN_KEYS);
                    let c = training_runs::run(&mut f, src.file);
                    self.take(
                        c,
                        f,
                        src,
                        |c| (&mut c.training_runs, &mut c.training_run_names),
                        problems,
                    )
                }
                List::Regions => {
                    let mut f = Fields::new(table, at, key, convert::REGION_KEYS);
                    let c = convert::region(&mut f, src.file);
                    self.take(
                        c,
                        f,
                        src,
                        |c| (&mut c.regions, &mut c.region_names),
                        problems,
                    )
                }
            };
            if let Some(note) = added {
                notes.push(note);
            }
        }
    }

    /// Add a converted entry when its table had no problem at all.
    fn take<E: Named>(
        &mut self,
        converted: Option<convert::Converted<E>>,
        fields: Fields,
        src: &Source,
        pick: fn(&mut Catalog) -> (&mut Vec<E>, &mut Names),
        problems: &mut fields::Problems,
    ) -> Option<fields::Problem> {
        let found = fields.finish();
        let clean = found.is_empty();
        problems.append(found);
        let c = converted.filter(|_| clean)?;
        let (line, column) = src.position(c.id_at);
        let incoming = Incoming {
            entry: c.entry,
            place: Place {
                builtin: self.adding_builtin,
                file: src.file.to_string(),
                line,
                column,
            },
            id_at: c.id_at,
            alias_at: c.alias_at,
        };
        let (list, names) = pick(self);
        names
            .add(list, incoming, problems)
            .map(|message| fields::Problem {
                at: c.id_at,
                message,
            })
    }

    /// Add (or replace by id) the devices of one hardware file.
    pub fn add_hardware_file(&mut self, file: &str, text: &str) {
        self.add_file(file, text, List::Hardware);
    }

    /// Add (or replace by id) the models of one model file.
    pub fn add_model_file(&mut self, file: &str, text: &str) {
        self.add_file(file, text, List::Models);
    }

    /// Add (or replace by id) the regions of one regions file.
    pub fn add_region_file(&mut self, file: &str, text: &str) {
        self.add_file(file, text, List::Regions);
    }

    /// Let the device id `local` resolve through `resolver` (an entry of
    /// the catalog named `local` still wins).
    pub fn set_local_resolver(&mut self, resolver: LocalResolver) {
        self.local = LocalSlot {
            resolver: Some(resolver),
            resolved: std::sync::OnceLock::new(),
        };
    }

    /// What `local` resolves to (detection runs now if it has not run
    /// yet); None when no resolver is installed.
    pub fn local(&self) -> Option<&Result<HardwareEntry, String>> {
        let resolve = self.local.resolver?;
        Some(self.local.resolved.get_or_init(|| resolve(self)))
    }

    /// Add `local` as an entry of the list (for the workbench's Hardware
    /// picker, which lists entries): a copy of what it resolves to, with id
    /// `local`, the resolved id as its one alias and origin
    /// [`LOCAL_ORIGIN`]. Lookups by name still go through the resolver.
    /// Returns why there is none when `local` does not resolve.
    pub fn add_local_entry(&mut self) -> Result<(), String> {
        let entry = match self.local() {
            None => return Err("no detection for this catalog".into()),
            Some(Err(why)) => return Err(why.clone()),
            Some(Ok(e)) => e.clone(),
        };
        let mut e = entry;
        e.aliases = vec![e.hw.id.clone()];
        e.hw.id = LOCAL_HARDWARE.to_string();
        e.origin = LOCAL_ORIGIN.to_string();
        self.hardware.retain(|x| x.origin != LOCAL_ORIGIN);
        self.hardware.push(e);
        Ok(())
    }

    /// Keep the `local` resolution and entry of `old` in this (reloaded)
    /// catalog, so detection does not run again.
    pub fn keep_local_from(&mut self, old: &Catalog) {
        self.local = old.local.clone();
        if let Some(e) = old.hardware.iter().find(|e| e.origin == LOCAL_ORIGIN) {
            self.hardware.retain(|x| x.origin != LOCAL_ORIGIN);
            self.hardware.push(e.clone());
        }
    }

    /// Find a device by id or alias (case-insensitive); `local` is the
    /// machine in hand when a resolver is installed.
    pub fn hardware(&self, name: &str) -> Result<&HardwareEntry, LookupError> {
        let key = name.trim().to_lowercase();
        if key == LOCAL_HARDWARE
            && self.hw_names.get(&key).is_none()
            && let Some(resolve) = self.local.resolver
        {
            return self
                .local
                .resolved
                .get_or_init(|| resolve(self))
                .as_ref()
                .map_err(|why| LookupError {
                    what: "hardware",
                    name: name.to_string(),
                    suggestions: Vec::new(),
                    detail: Some(why.clone()),
                });
        }
        self.hw_names
            .get(&key)
            .and_then(|i| self.hardware.get(i))
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
        let key = name.trim().to_lowercase();
        self.model_names
            .get(&key)
            .and_then(|i| self.models.get(i))
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
        let key = name.trim().to_lowercase();
        let found = self
            .region_names
            .get(&key)
            .and_then(|i| self.regions.get(i));
        found.ok_or_else(|| {
            LookupError::new(
                "region",
                name,
                self.regions.iter().map(|r| (r.id.as_str(), &[][..])),
            )
        })
    }

    /// Find a calibration profile by id (case-insensitive).
    pub fn profile(&self, name: &str) -> Result<&ProfileEntry, LookupError> {
        let key = name.trim().to_lowercase();
        let found = self
            .profile_names
            .get(&key)
            .and_then(|i| self.profiles.get(i));
        found.ok_or_else(|| {
            LookupError::new(
                "profile",
                name,
                self.profiles.iter().map(|p| (p.id.as_str(), &[][..])),
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
    /// Why the name could not be resolved, when it is not merely unknown
    /// (`local` on a machine whose devices have no figures).
    pub detail: Option<String>,
}

/// The longest name an unknown-name error looks for close ids to.
const MAX_SUGGESTED_LEN: usize = 128;

impl LookupError {
    fn new<'a>(
        what: &'static str,
        name: &str,
        known: impl Iterator<Item = (&'a str, &'a [String])>,
    ) -> Self {
        let key = name.trim().to_ascii_lowercase();
        let mut scored: Vec<(usize, &str)> = Vec::new();
        // Edit distances cost the product of the lengths: a name longer
        // than any id is no typo of one, and gets no suggestion.
        let known = known.filter(|_| key.len() <= MAX_SUGGESTED_LEN);
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
            detail: None,
        }
    }
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(detail) = &self.detail {
            return write!(f, "{} {:?}: {detail}", self.what, self.name);
        }
        write!(f, "unknown {} {:?}", self.what, self.name)?;
        if !self.suggestions.is_empty() {
            write!(f, "; closest: {}", self.suggestions.join(", "))?;
        }
        let cmd = match self.what {
            "hardware" => "ridgeline zoo hardware",
            "model" => "ridgeline zoo models",
            "profile" => "ridgeline zoo profiles",
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

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |i| offset - i - 1) + 1;
    (line, col)
}

/// Check a catalog directory the user named (`--catalog DIR`): it must
/// exist, be a directory and be readable. The message says what is wrong
/// with it, to follow the path.
pub fn check_user_dir(dir: &Path) -> Result<(), String> {
    files::check_dir(dir)
}

#[cfg(test)]
mod tests;
