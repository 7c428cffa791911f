//! Scenario files: the whole workbench state in TOML, to save a session and
//! to open the classic tutorial questions (assets/scenarios/). Saves are
//! atomic: written to a temporary file beside the target, then renamed.
//!
//! ```toml
//! title = "Llama 3.1 70B on an A100"
//! view = "roofline"            # roofline | serving | synthesis | sweep | generations | fleet
//! hardware = "a100"
//! compare = ["a100", "h100", "h200"]
//! model = "llama-3.1-70b"
//! [workload]                   # every field optional; defaults as the CLI's
//! phase = "decode"
//! batch = 1
//! context = 4096
//! precision = "bf16"           # or weights / activations / kv
//! tp = 1
//! pp = 1
//! [assumptions]
//! compute_efficiency = 0.7
//! overhead = "10us"
//! [serving]
//! prompt = 2048
//! output = 256
//! [synthesis]
//! target = "50ms"
//! [sweep]
//! batches = "1..512"
//! [fleet]
//! qps = 1000
//! ttft = "100ms"
//! itl = "50ms"
//! regions = ["us-east", "eu-west"]
//! budget = "5M"
//! ```

use crate::catalog::line_col;
use crate::solver::fleet::DEFAULT_MAX_UTILIZATION;
use crate::solver::serving::Request;
/// Synthesis targets are read by the solver's one parser (CLI and workbench).
pub use crate::solver::target::SynthTarget;
use crate::solver::units::{self, Kind};
use crate::solver::{Assumptions, Phase, Precision, Workload};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The views of the workbench a scenario can open on.
pub const VIEWS: [&str; 6] = [
    "roofline",
    "serving",
    "synthesis",
    "sweep",
    "generations",
    "fleet",
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
    #[serde(default)]
    pub workload: WorkloadSection,
    #[serde(default)]
    pub assumptions: AssumptionsSection,
    #[serde(default)]
    pub serving: ServingSection,
    #[serde(default)]
    pub synthesis: SynthesisSection,
    #[serde(default)]
    pub sweep: SweepSection,
    #[serde(default)]
    pub fleet: FleetSection,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// Tokens: a number, or a string with k = 1024 ("8k" = 8192).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "tokens"
    )]
    pub context: Option<u64>,
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
pub struct AssumptionsSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_efficiency: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_efficiency: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_efficiency: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_latency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usable_memory: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServingSection {
    /// Tokens: a number, or a string with k = 1024 ("2k" = 2048).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "tokens"
    )]
    pub prompt: Option<u64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "tokens"
    )]
    pub output: Option<u64>,
}

/// A token count in a scenario: 8192, or "8k" (k = 1024, as the command
/// line and the knobs read it).
fn tokens<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Tokens {
        Whole(u64),
        Text(String),
    }
    let n = match Tokens::deserialize(d)? {
        Tokens::Whole(n) => n,
        Tokens::Text(t) => {
            let v = units::parse(&t, Kind::Tokens).map_err(serde::de::Error::custom)?;
            if !(0.0..=1e9).contains(&v) || v.fract() != 0.0 {
                return Err(serde::de::Error::custom(format!(
                    "{t:?} must be a whole number of tokens up to 1e9"
                )));
            }
            v as u64
        }
    };
    Ok(Some(n))
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
}

/// A scenario that could not be read, with where and why.
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
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ScenarioError {}

/// The fleet inputs of a scenario, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetInputs {
    pub qps: f64,
    pub ttft_s: f64,
    pub itl_s: f64,
    pub regions: Vec<String>,
    pub budget_usd_per_year: Option<f64>,
    pub max_utilization: f64,
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
        }
    }
}

impl Scenario {
    /// Parse a scenario; errors carry file:line:column.
    pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let s: Scenario = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |sp| line_col(text, sp.start));
            ScenarioError {
                file: file.to_string(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        // Check every value now, so a bad one is reported at open time.
        let fail = |key: &str, message: String| {
            let (line, column) = find_line(text, key);
            ScenarioError {
                file: file.to_string(),
                line,
                column,
                message: format!("{key}: {message}"),
            }
        };
        if let Some(v) = &s.view
            && !VIEWS.contains(&v.as_str())
        {
            return Err(fail(
                "view",
                format!("unknown view {v:?}; use one of {}", VIEWS.join(", ")),
            ));
        }
        s.workload(&Workload::default())
            .map_err(|(k, m)| fail(k, m))?;
        s.assumptions(&Assumptions::default())
            .map_err(|(k, m)| fail(k, m))?;
        s.fleet_inputs().map_err(|(k, m)| fail(k, m))?;
        s.request().map_err(|(k, m)| fail(k, m))?;
        if let Some(t) = &s.synthesis.target {
            SynthTarget::parse(t).map_err(|m| fail("target", m))?;
        }
        if let Some(b) = &s.sweep.batches {
            parse_batches(b).map_err(|m| fail("batches", m))?;
        }
        Ok(s)
    }

    /// Read a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            file: file.clone(),
            line: 1,
            column: 1,
            message: format!("cannot read: {e}"),
        })?;
        Scenario::parse(&file, &text)
    }

    /// The TOML text of this scenario.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).unwrap_or_default();
        // Empty sections say nothing: leave them out.
        let mut out = String::from("# ridgeline scenario: open with `ridgeline --scenario FILE`\n");
        for chunk in body.split("\n\n") {
            let t = chunk.trim();
            if t.is_empty() || (t.starts_with('[') && !t.contains('\n')) {
                continue;
            }
            out.push_str(t);
            out.push_str("\n\n");
        }
        out.trim_end().to_string() + "\n"
    }

    /// Write atomically: a temporary file beside `path`, then a rename, so a
    /// crash never leaves a half-written scenario.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_atomic(path, self.to_toml().as_bytes())
    }

    /// The workload, over `base` for what the scenario leaves out.
    pub fn workload(&self, base: &Workload) -> Result<Workload, (&'static str, String)> {
        let w = &self.workload;
        let prec = |key: &'static str,
                    v: &Option<String>,
                    d: Precision|
         -> Result<Precision, (&'static str, String)> {
            match v {
                None => Ok(d),
                Some(s) => Precision::parse(s).ok_or((
                    key,
                    format!("unknown precision {s:?}; use fp32, tf32, bf16, fp16, fp8, int8, fp4 or int4"),
                )),
            }
        };
        let all = prec("precision", &w.precision, base.weights)?;
        let phase = match &w.phase {
            None => base.phase,
            Some(p) => Phase::parse(p).ok_or((
                "phase",
                format!("unknown phase {p:?}; use decode or prefill"),
            ))?,
        };
        let wl = Workload {
            phase,
            batch: w.batch.map_or(base.batch, |b| b as f64),
            context: w.context.map_or(base.context, |c| c as f64),
            weights: prec(
                "weights",
                &w.weights,
                if w.precision.is_some() {
                    all
                } else {
                    base.weights
                },
            )?,
            activations: prec(
                "activations",
                &w.activations,
                if w.precision.is_some() {
                    all
                } else {
                    base.activations
                },
            )?,
            kv: prec(
                "kv",
                &w.kv,
                if w.precision.is_some() { all } else { base.kv },
            )?,
            tp: w.tp.unwrap_or(base.tp),
            pp: w.pp.unwrap_or(base.pp),
        };
        crate::solver::roofline::validate_workload(&wl).map_err(|e| ("workload", e.to_string()))?;
        Ok(wl)
    }

    /// The assumptions, over `base`.
    pub fn assumptions(&self, base: &Assumptions) -> Result<Assumptions, (&'static str, String)> {
        let s = &self.assumptions;
        let time = |key: &'static str,
                    v: &Option<String>,
                    d: f64|
         -> Result<f64, (&'static str, String)> {
            v.as_deref().map_or(Ok(d), |t| {
                units::parse(t, Kind::Time).map_err(|e| (key, e.to_string()))
            })
        };
        let a = Assumptions {
            compute_efficiency: s.compute_efficiency.unwrap_or(base.compute_efficiency),
            memory_efficiency: s.memory_efficiency.unwrap_or(base.memory_efficiency),
            link_efficiency: s.link_efficiency.unwrap_or(base.link_efficiency),
            overhead_s: time("overhead", &s.overhead, base.overhead_s)?,
            link_latency_s: time("link_latency", &s.link_latency, base.link_latency_s)?,
            usable_memory: s.usable_memory.unwrap_or(base.usable_memory),
            overlap: s.overlap.unwrap_or(base.overlap),
        };
        crate::solver::roofline::validate_assumptions(&a)
            .map_err(|e| ("assumptions", e.to_string()))?;
        Ok(a)
    }

    /// Prompt and output lengths (default 2048 and 256).
    pub fn request(&self) -> Result<Request, (&'static str, String)> {
        let d = Request::default();
        let r = Request {
            prompt: self.serving.prompt.map_or(d.prompt, |p| p as f64),
            output: self.serving.output.map_or(d.output, |o| o as f64),
        };
        crate::solver::serving::validate_request(&r).map_err(|e| ("serving", e.to_string()))?;
        Ok(r)
    }

    /// The fleet inputs (defaults: the capstone's figures).
    pub fn fleet_inputs(&self) -> Result<FleetInputs, (&'static str, String)> {
        let f = &self.fleet;
        let d = FleetInputs::default();
        let time = |key: &'static str,
                    v: &Option<String>,
                    d: f64|
         -> Result<f64, (&'static str, String)> {
            match v.as_deref() {
                None => Ok(d),
                Some(t) => match units::parse(t, Kind::Time) {
                    Ok(x) if x > 0.0 => Ok(x),
                    Ok(_) => Err((key, format!("{key} must be greater than zero"))),
                    Err(e) => Err((key, e.to_string())),
                },
            }
        };
        let qps = f.qps.unwrap_or(d.qps);
        if !(qps.is_finite() && qps > 0.0) {
            return Err(("qps", format!("qps must be greater than zero, got {qps}")));
        }
        let budget = match f.budget.as_deref() {
            None => None,
            Some(b) => match units::parse(b, Kind::Count) {
                Ok(x) if x > 0.0 => Some(x),
                Ok(_) => return Err(("budget", "budget must be greater than zero".into())),
                Err(e) => return Err(("budget", e.to_string())),
            },
        };
        let max_utilization = f.max_utilization.unwrap_or(d.max_utilization);
        if !(max_utilization > 0.0 && max_utilization <= 1.0) {
            return Err((
                "max_utilization",
                "max_utilization must be greater than 0 and at most 1".into(),
            ));
        }
        Ok(FleetInputs {
            qps,
            ttft_s: time("ttft", &f.ttft, d.ttft_s)?,
            itl_s: time("itl", &f.itl, d.itl_s)?,
            regions: if f.regions.is_empty() {
                d.regions
            } else {
                f.regions.clone()
            },
            budget_usd_per_year: budget,
            max_utilization,
        })
    }
}

/// Line and column of the first `key =` in the text.
fn find_line(text: &str, key: &str) -> (usize, usize) {
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.strip_prefix(key)
            .is_some_and(|r| r.trim_start().starts_with('='))
        {
            return line_col(text, pos + line.len() - t.len());
        }
        pos += line.len();
    }
    (1, 1)
}

/// "1..512" -> (1, 512); a single "64" -> (64, 64).
pub fn parse_batches(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once("..").unwrap_or((s, s));
    let num = |x: &str| -> Result<u64, String> {
        let v = units::parse(x.trim().trim_start_matches('='), Kind::Count)
            .map_err(|e| e.to_string())?;
        if (1.0..=1e9).contains(&v) && v.fract() == 0.0 {
            Ok(v as u64)
        } else {
            Err(format!("{x:?} must be a whole number from 1 to 1e9"))
        }
    };
    let (lo, hi) = (num(a)?, num(b)?);
    if hi < lo {
        return Err(format!("{s:?}: a range goes from low to high, like 1..512"));
    }
    Ok((lo, hi))
}

/// Write `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed to disk, then renamed over the target.
pub fn save_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scenario".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPSTONE: &str = r#"
title = "capstone"
view = "fleet"
model = "llama-3-70b"
[workload]
precision = "bf16"
[serving]
prompt = 2048
output = 256
[fleet]
qps = 1000
ttft = "100ms"
itl = "50ms"
regions = ["us-east", "eu-west"]
budget = "5M"
"#;

    #[test]
    fn parses_and_resolves() {
        let s = Scenario::parse("c.toml", CAPSTONE).unwrap();
        let f = s.fleet_inputs().unwrap();
        assert_eq!(f.qps, 1000.0);
        assert_eq!(f.ttft_s, 0.1);
        assert_eq!(f.itl_s, 0.05);
        assert_eq!(f.budget_usd_per_year, Some(5e6));
        assert_eq!(f.regions, ["us-east", "eu-west"]);
        let r = s.request().unwrap();
        assert_eq!((r.prompt, r.output), (2048.0, 256.0));
        assert_eq!(s.view.as_deref(), Some("fleet"));
    }

    #[test]
    fn batch_ranges() {
        // Synthesis targets are tested with their parser, in solver/target.rs.
        assert_eq!(parse_batches("1..512"), Ok((1, 512)));
        assert!(parse_batches("8..2").is_err());
    }

    #[test]
    fn round_trips_through_toml() {
        let s = Scenario::parse("c.toml", CAPSTONE).unwrap();
        let again = Scenario::parse("again.toml", &s.to_toml()).unwrap();
        assert_eq!(s, again);
    }

    #[test]
    fn bad_values_are_reported_with_their_line() {
        let bad = CAPSTONE.replace("\"100ms\"", "\"soon\"");
        let e = Scenario::parse("c.toml", &bad).unwrap_err();
        let line = bad.lines().position(|l| l.contains("soon")).unwrap() + 1;
        assert_eq!(e.line, line, "{e}");
        assert!(e.to_string().contains("ttft"), "{e}");
        let e = Scenario::parse("c.toml", "model = \n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9), "{e}");
        let e = Scenario::parse("c.toml", "colour = \"red\"\n").unwrap_err();
        assert!(e.message.contains("unknown field"), "{e}");
        let e = Scenario::parse("c.toml", "view = \"lobby\"\n").unwrap_err();
        assert!(e.message.contains("roofline"), "{e}");
        let e = Scenario::parse("c.toml", "[workload]\nbatch = 0\n").unwrap_err();
        assert!(e.message.contains("batch"), "{e}");
    }

    #[test]
    fn saves_atomically_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("ridgeline-scn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.toml");
        std::fs::write(&path, "old").unwrap();
        let s = Scenario::parse("c.toml", CAPSTONE).unwrap();
        s.save(&path).unwrap();
        assert_eq!(Scenario::load(&path).unwrap(), s);
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A save into a directory that does not exist fails and leaves the old file alone.
        assert!(s.save(&dir.join("missing/s.toml")).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
