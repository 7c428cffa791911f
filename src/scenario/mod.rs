//! Scenario files: the whole workbench state in TOML, to save a session and
//! to open the classic tutorial questions (assets/scenarios/).
//!
//! ```toml
//! title = "Llama 3.1 70B on an A100"
//! description = "why it does not fit"
//! view = "roofline"            # roofline | serving | synthesis | sweep | generations | fleet | training | operators | explore
//! hardware = "a100"
//! compare = ["a100", "h100", "h200"]
//! model = "llama-3.1-70b"      # or a config.json / model folder, relative
//!                              # to the scenario file: "models/qwen3-8b"
//! [workload]                   # every field optional; defaults as the CLI's
//! phase = "decode"
//! batch = 1                    # a number (whole numbers are written whole)
//! context = 4096
//! precision = "bf16"           # or weights / activations / kv
//! tp = 1
//! pp = 1
//! [assumptions]                # a calibration profile and any of its keys
//! profile = "default"          # catalog/profiles; "default" when absent
//! compute_efficiency = 0.7     # every key of `ridgeline --assume`
//! kernel_time = "6.5us"
//! [serving]
//! prompt = 2048
//! output = 256
//! region = "us-east"           # the Serving view's carbon region
//! batching = "continuous"      # static | continuous, and its settings:
//! token_budget = 2048          # token_budget, prefix_hit, draft, proposed,
//! prefix_hit = 0.5             # acceptance (serve_modes.rs)
//! [synthesis]
//! target = "50ms"
//! [sweep]
//! batches = "1..512"
//! over = "batch"               # batch | context
//! [generations]
//! family = "nvidia-datacenter" # a hardware family, or "marked"
//! [fleet]
//! qps = 1000
//! ttft = "100ms"
//! itl = "50ms"
//! regions = ["us-east", "eu-west"]
//! budget = "5M"
//! shares = [0.5, 0.5]          # each region's load, in regions order; absent: equal
//! precisions = "bf16,fp8,int4" # searched; a name or weights/activations/kv each
//! mode = "auto"                # auto | aggregated | disaggregated
//! [training]                   # the Training view's run
//! devices = 8                  # dp is what tp x pp x ep x cp leave
//! tp = 1
//! pp = 1
//! v = 1                        # interleaved chunks per pipeline stage
//! ep = 1
//! cp = 1
//! zero = 3                     # 0 | 1 | 2 | 3
//! recompute = "selective"      # none | selective | full
//! global_batch = "4M"          # tokens, M = 1024^2
//! micro_batch = 1
//! seq = 8192                   # absent: the model's context up to 8k
//! tokens = "chinchilla"        # or "15T"
//! [explore]                    # the Explore view (scenario/explore.rs)
//! x = "itl"
//! y = "cost"
//! ```
//!
//! Reading reports every problem of a file, each at the `file:line:column`
//! of its key, sorted by line (`check`). Saving writes every value so that
//! it reads back equal (`exact`), through `fsutil::write_atomic`; of the
//! assumptions, the profile and the keys that differ from it (`assume`).

mod assume;
mod check;
pub mod exact;
mod explore;
mod serve_modes;
mod target;
mod training;
mod values;

pub use assume::{AssumptionsSection, DEFAULT_PROFILE, Setting, written};
pub use explore::{
    ExploreHardware, ExploreInputs, ExploreSection, MAX_EXPLORE_BATCH, MAX_EXPLORE_DEGREE,
    parse_precisions, precisions_text, up_to,
};
pub use serve_modes::ServeModes;
pub use target::{DEFAULT_SYNTH_TARGET, SynthTarget, parse_batches};
pub use training::{
    AUTO_SEQ_MAX, MAX_DEVICES, MAX_GLOBAL_BATCH, MAX_MICRO_BATCH, MAX_TOKENS, TrainInputs,
    TrainingSection,
};
pub use values::{Problem, check_shares};

/// Check a scenario table parsed from a larger file (a lesson step), every
/// problem placed in that file (`check::read_doc`).
pub(crate) use check::read_doc as read_fragment;

/// The keys of a scenario's top level.
pub fn top_keys() -> &'static [&'static str] {
    check::SCHEMA[0].1
}

use crate::catalog::Catalog;
use crate::fsutil;
use crate::solver::Precisions;
use crate::solver::fleet::{DEFAULT_MAX_UTILIZATION, ModeChoice};

/// The precisions a fleet searches unless told (as `ridgeline fleet`).
pub const DEFAULT_FLEET_PRECISIONS: &str = "bf16,fp8,int4";
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The largest scenario file read: the shipped ones are under 1 kB.
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// The views of the workbench a scenario can open on.
pub const VIEWS: [&str; 9] = [
    "roofline",
    "serving",
    "synthesis",
    "sweep",
    "generations",
    "fleet",
    "training",
    "operators",
    "explore",
];

/// A scenario as written in TOML. Every field is optional: what is absent
/// keeps the workbench default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub workload: WorkloadSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub assumptions: AssumptionsSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub serving: ServingSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub synthesis: SynthesisSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub sweep: SweepSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub generations: GenerationsSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub fleet: FleetSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub training: TrainingSection,
    #[serde(default, skip_serializing_if = "is_default")]
    pub explore: ExploreSection,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Sequences per step: a number, whole or not.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "number")]
    pub batch: Option<f64>,
    /// Tokens in the cache (decode) or the prompt (prefill); a number, or
    /// a string with k = 1024 ("8k" = 8192).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "tokens")]
    pub context: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activations: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pp: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServingSection {
    /// Tokens: a number, or a string with k = 1024 ("2k" = 2048).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "tokens")]
    pub prompt: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "tokens")]
    pub output: Option<f64>,
    /// The region whose grid the Serving view's carbon figures use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// "static" or "continuous" (serve_modes.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batching: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "number")]
    pub token_budget: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_hit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SynthesisSection {
    /// "50ms itl", "100ms ttft", "30 tok/s per user", or a plain time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSection {
    /// "1..512".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batches: Option<String>,
    /// What the Sweep view runs over: "batch" or "context".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationsSection {
    /// A hardware family of the catalog (two devices or more), or "marked".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itl: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<String>,
    /// USD per year, "5M".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_utilization: Option<f64>,
    /// The precisions searched, "bf16,fp8,int4" (each a name or
    /// weights/activations/kv).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precisions: Option<String>,
    /// "auto", "aggregated" or "disaggregated".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Each region's share of the load, in `regions` order (absent: equal).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<f64>,
}

/// A section with nothing set is left out of the file.
fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// A number that is written as a TOML integer when it is whole (`batch =
/// 8`), as a float otherwise (`batch = 1.5`), and read from either.
mod number {
    use serde::{Deserializer, Serializer};

    /// Whole numbers up to 2^53 are exact as integers.
    const EXACT: f64 = 9_007_199_254_740_992.0;

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match *v {
            Some(x) if x.fract() == 0.0 && x.abs() <= EXACT => s.serialize_i64(x as i64),
            Some(x) => s.serialize_f64(x),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        d.deserialize_any(Number).map(Some)
    }

    struct Number;

    impl serde::de::Visitor<'_> for Number {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number, like 8 or 1.5")
        }
        fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
    }
}

/// A token count: written as `number` writes it, read from a number or
/// from a string with k = 1024 ("8k" = 8192), as the command line and the
/// knobs read token counts.
mod tokens {
    use crate::solver::units::{self, Kind};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        super::number::serialize(v, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        d.deserialize_any(Tokens).map(Some)
    }

    struct Tokens;

    impl serde::de::Visitor<'_> for Tokens {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number of tokens, like 8192 or \"8k\"")
        }
        fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<f64, E> {
            units::parse(v, Kind::Tokens).map_err(E::custom)
        }
    }
}

/// One problem of a scenario file, with where and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            crate::catalog::fields::printable(&self.file),
            self.line,
            self.column,
            crate::catalog::fields::printable(&self.message)
        )
    }
}

impl std::error::Error for ScenarioError {}

/// Every problem of a scenario file, sorted by line and column; never empty.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl ScenarioErrors {
    /// One problem of the whole file (it cannot be read at all).
    fn file(file: &str, message: String) -> ScenarioErrors {
        ScenarioErrors(vec![ScenarioError {
            file: file.to_string(),
            line: 1,
            column: 1,
            message,
        }])
    }
}

impl fmt::Display for ScenarioErrors {
    /// One problem per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

/// The fleet inputs of a scenario, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetInputs {
    pub qps: f64,
    pub ttft_s: f64,
    pub itl_s: f64,
    pub regions: Vec<String>,
    pub budget_usd_per_year: Option<f64>,
    pub max_utilization: f64,
    /// Each region's share (empty: equal).
    pub shares: Vec<f64>,
    pub precisions: Vec<Precisions>,
    pub mode: ModeChoice,
}

impl Default for FleetInputs {
    /// The capstone's figures: 1,000 requests/s, TTFT 100 ms, ITL 50 ms.
    fn default() -> Self {
        FleetInputs {
            qps: 1000.0,
            ttft_s: 0.1,
            itl_s: 0.05,
            regions: vec!["us-east".into()],
            budget_usd_per_year: None,
            max_utilization: DEFAULT_MAX_UTILIZATION,
            shares: Vec::new(),
            precisions: Precisions::parse_list(DEFAULT_FLEET_PRECISIONS).unwrap_or_default(),
            mode: ModeChoice::Auto,
        }
    }
}

/// The hardware families with two devices or more (a generation needs a
/// successor), in catalog order.
/// The Generations view's default line-up, the generations people ask
/// about, oldest (the baseline) first: A100 -> H100 -> H200 -> B200. A
/// scenario names it by `FLAGSHIP_FAMILY`.
pub const FLAGSHIP_DEVICES: [&str; 4] = ["a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"];

/// The Sweep view's batches when a scenario names none.
pub const DEFAULT_SWEEP_BATCHES: (u64, u64) = (1, 512);
/// The contexts of the Sweep view's context sweep, tokens (256 to 128k).
pub const SWEEP_CONTEXTS: (u64, u64) = (256, 131_072);

/// The name of `FLAGSHIP_DEVICES` as a family (the `family` knob and a
/// scenario's `generations.family`).
pub const FLAGSHIP_FAMILY: &str = "a100-h100-h200-b200";

/// The devices of a Generations family (catalog indices, in catalog
/// order; `FLAGSHIP_FAMILY` in its own order): `marked` for "marked".
pub fn family_devices(catalog: &Catalog, family: &str, marked: &[usize]) -> Vec<usize> {
    match family {
        "marked" => marked.to_vec(),
        FLAGSHIP_FAMILY => FLAGSHIP_DEVICES
            .iter()
            .filter_map(|d| catalog.hardware.iter().position(|e| e.hw.id == *d))
            .collect(),
        f => catalog
            .hardware
            .iter()
            .enumerate()
            .filter(|(_, e)| e.family.as_deref() == Some(f))
            .map(|(i, _)| i)
            .collect(),
    }
}

pub fn generation_families(catalog: &Catalog) -> Vec<String> {
    let mut fams: Vec<String> = Vec::new();
    for e in &catalog.hardware {
        if let Some(f) = &e.family
            && !fams.contains(f)
            && catalog
                .hardware
                .iter()
                .filter(|x| x.family.as_ref() == Some(f))
                .count()
                > 1
        {
            fams.push(f.clone());
        }
    }
    fams
}

impl Scenario {
    /// Parse a scenario and check its values: every problem (syntax,
    /// unknown keys, types, values) at its file:line:column, sorted.
    pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioErrors> {
        check::read(file, text, None)
    }

    /// As `parse`, and every name (devices, model, regions, family) is
    /// checked against `catalog` too.
    pub fn parse_with(
        file: &str,
        text: &str,
        catalog: &Catalog,
    ) -> Result<Scenario, ScenarioErrors> {
        check::read(file, text, Some(catalog))
    }

    /// Read and parse a scenario file (a regular file of at most
    /// `MAX_SCENARIO_BYTES`).
    pub fn load(path: &Path) -> Result<Scenario, ScenarioErrors> {
        let (file, text) = read_file(path)?;
        Scenario::parse(&file, &text)
    }

    /// Read a scenario file and check it against `catalog`.
    pub fn load_with(path: &Path, catalog: &Catalog) -> Result<Scenario, ScenarioErrors> {
        let (file, text) = read_file(path)?;
        Scenario::parse_with(&file, &text, catalog)
    }

    /// A problem of `key` in the scenario file at `path`, found after it
    /// was read (its model path cannot be imported): at the key's
    /// file:line:column like every other problem.
    pub fn key_problem(path: &Path, key: &str, message: &str) -> ScenarioError {
        match read_file(path) {
            Ok((file, text)) => check::at_key(&file, &text, key, message),
            Err(_) => check::at_key(&path.display().to_string(), "", key, message),
        }
    }

    /// The model as a path to import (a config.json or a model folder),
    /// relative paths taken from the scenario file's folder; None when the
    /// model is a catalog id (or absent).
    pub fn model_path(&self, scenario_file: &Path) -> Option<std::path::PathBuf> {
        let m = self.model.as_deref()?;
        if !crate::catalog::hf::load::looks_like_path(m) {
            return None;
        }
        let p = crate::fsutil::expand_tilde(m.trim(), crate::fsutil::home_dir().as_deref());
        Some(match scenario_file.parent() {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p,
        })
    }

    /// The TOML text of this scenario (empty sections left out).
    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).unwrap_or_default();
        format!("# ridgeline scenario: open with `ridgeline --scenario FILE`\n{body}")
    }

    /// Write the scenario with `fsutil::write_atomic`: all or nothing,
    /// permissions kept, a symbolic link written through (and said so in
    /// the result).
    pub fn save(&self, path: &Path) -> std::io::Result<fsutil::Written> {
        fsutil::write_atomic(path, self.to_toml().as_bytes())
    }
}

fn read_file(path: &Path) -> Result<(String, String), ScenarioErrors> {
    let file = path.display().to_string();
    match fsutil::read_text(path, MAX_SCENARIO_BYTES) {
        Ok(text) => Ok((file, text)),
        Err(e) => Err(ScenarioErrors::file(&file, e.to_string())),
    }
}

#[cfg(test)]
mod tests;
