//! Lessons: a scripted tutorial as a TOML file, each step a state of the
//! workbench with a caption whose figures the solver fills in, and
//! expectations that `ridgeline lesson check` (and `cargo test`, for the
//! built-in lessons) holds the model to.
//!
//! ```toml
//! title = "Which knob is worth paying for"
//! reproduces = "the sensitivity tutorial"
//! description = "optional, shown under the title"
//!
//! [[step]]
//! caption = "{model} decode on the {hardware}: {latency} per token, {binding}-bound."
//! question = "optional"
//! answer = "optional; placeholders here too: {elasticity.memory_bandwidth}"
//! # The state: the keys of a scenario file (src/scenario), laid over the
//! # state of the step before (the first step's over the defaults).
//! view = "roofline"
//! hardware = "a100-sxm-80gb"
//! model = "llama-3.1-8b"
//! [step.workload]
//! batch = 1
//! [step.expect]                 # figure = value, or [low, high]
//! binding = "memory"
//! latency_ms = [10, 13]
//! fits = true
//! elasticity.memory_bandwidth = [-1.0, -0.9]
//! ```
//!
//! This module knows no terminal: parsing (every problem at its
//! file:line:column, as scenario files report them), filling captions and
//! checking expectations are plain functions, so the command line, tests
//! and a future presenter pane share them.

pub mod figures;
mod read;

use crate::catalog::Catalog;
use crate::scenario::{Scenario, ScenarioError, ScenarioErrors};
use figures::{Figures, Value};
use std::path::Path;

/// The largest lesson file read: the built-in ones are a few kB.
pub const MAX_LESSON_BYTES: u64 = 1 << 20;

/// The built-in lessons: name and text (assets/lessons/).
pub const BUILT_IN: &[(&str, &str)] = &[
    ("knobs", include_str!("../../assets/lessons/knobs.toml")),
    (
        "design-space",
        include_str!("../../assets/lessons/design-space.toml"),
    ),
    ("scaling", include_str!("../../assets/lessons/scaling.toml")),
    ("serving", include_str!("../../assets/lessons/serving.toml")),
];

/// The keys of a lesson's top level and of a step (besides the scenario's).
const LESSON_KEYS: [&str; 4] = ["title", "reproduces", "description", "step"];
const STEP_KEYS: [&str; 4] = ["caption", "question", "answer", "expect"];

/// A lesson, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    /// Where it was read from (a path, or `built-in:NAME`).
    pub file: String,
    pub title: String,
    pub reproduces: String,
    pub description: Option<String>,
    pub steps: Vec<Step>,
}

/// One step: the whole state it sets (its fragment laid over the step
/// before), its text and its expectations.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub caption: String,
    pub question: Option<String>,
    pub answer: Option<String>,
    pub state: Scenario,
    pub expect: Vec<Expect>,
    /// Where the step starts in its file.
    pub line: usize,
    pub column: usize,
}

/// One expectation: a figure and what it must be.
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    /// The expectation key as written: `latency_ms`.
    pub key: &'static str,
    /// The figure it checks: `latency`.
    pub figure: &'static str,
    pub want: Want,
    pub line: usize,
    pub column: usize,
}

/// What a figure must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Want {
    /// Within [low, high], both included.
    Range(f64, f64),
    Text(String),
    Bool(bool),
    /// The state has no such figure ("none").
    None,
}

impl Want {
    pub fn holds(&self, v: &Value) -> bool {
        match (self, v) {
            (Want::Range(lo, hi), Value::Number(x)) => lo <= x && x <= hi,
            (Want::Text(t), Value::Text(x)) => t.eq_ignore_ascii_case(x),
            (Want::Bool(b), Value::Bool(x)) => b == x,
            (Want::None, Value::None) => true,
            _ => false,
        }
    }

    /// As the file writes it.
    pub fn text(&self) -> String {
        match self {
            Want::Range(lo, hi) if lo == hi => format!("{lo}"),
            Want::Range(lo, hi) => format!("[{lo}, {hi}]"),
            Want::Text(t) => format!("{t:?}"),
            Want::Bool(b) => b.to_string(),
            Want::None => "\"none\"".into(),
        }
    }
}

/// A figure's value as an expectation reads it.
fn value_text(v: &Value) -> String {
    match v {
        Value::Number(x) => crate::solver::units::format_number(*x),
        Value::Text(t) => format!("{t:?}"),
        Value::Bool(b) => b.to_string(),
        Value::None => "none".into(),
    }
}

/// An expectation that failed, or a step whose figures could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub step: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One step as shown: its text with every figure filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub caption: String,
    pub question: Option<String>,
    pub answer: Option<String>,
    pub figures: Figures,
}

impl Lesson {
    /// Read a lesson named by the user: a file when `name` is one, else a
    /// built-in lesson by its name.
    pub fn open(name: &str, catalog: &Catalog) -> Result<Lesson, ScenarioErrors> {
        let path = Path::new(name);
        if path.exists() {
            return Lesson::load(path, catalog);
        }
        match BUILT_IN.iter().find(|(n, _)| *n == name.trim()) {
            Some((n, text)) => Lesson::parse(&format!("built-in:{n}"), text, catalog),
            None => Err(ScenarioErrors(vec![ScenarioError {
                file: name.to_string(),
                line: 1,
                column: 1,
                message: format!(
                    "no such file, and no built-in lesson of that name; the built-in lessons are: {} (`ridgeline lesson list`)",
                    names().join(", ")
                ),
            }])),
        }
    }

    /// Read a lesson file (a regular file of at most `MAX_LESSON_BYTES`).
    pub fn load(path: &Path, catalog: &Catalog) -> Result<Lesson, ScenarioErrors> {
        let file = path.display().to_string();
        match crate::fsutil::read_text(path, MAX_LESSON_BYTES) {
            Ok(text) => Lesson::parse(&file, &text, catalog),
            Err(e) => Err(ScenarioErrors(vec![ScenarioError {
                file,
                line: 1,
                column: 1,
                message: e.to_string(),
            }])),
        }
    }

    /// Parse a lesson: every problem (syntax, unknown keys and
    /// placeholders, the steps' scenario keys and values, expectations) at
    /// its file:line:column, sorted.
    pub fn parse(file: &str, text: &str, catalog: &Catalog) -> Result<Lesson, ScenarioErrors> {
        read::Reader::new(file, text).read(catalog)
    }

    /// Fill in step `i` (from 0): its caption, question and answer with the
    /// figures of its state.
    pub fn show(&self, i: usize, catalog: &Catalog) -> Result<Shown, String> {
        let step = self.steps.get(i).ok_or("no such step")?;
        let figures = figures::compute(catalog, &step.state)?;
        let fill = |t: &str| fill(t, &figures);
        Ok(Shown {
            caption: fill(&step.caption),
            question: step.question.as_deref().map(fill),
            answer: step.answer.as_deref().map(fill),
            figures,
        })
    }

    /// Run every step and check every expectation: the failures, in order
    /// (empty: the lesson holds). Also the number of expectations checked.
    pub fn check(&self, catalog: &Catalog) -> (Vec<Failure>, usize) {
        let mut failures = Vec::new();
        let mut checked = 0;
        for (i, step) in self.steps.iter().enumerate() {
            let figures = match figures::compute(catalog, &step.state) {
                Ok(f) => f,
                Err(e) => {
                    failures.push(Failure {
                        step: i + 1,
                        line: step.line,
                        column: step.column,
                        message: format!("its figures cannot be computed: {e}"),
                    });
                    continue;
                }
            };
            for x in &step.expect {
                checked += 1;
                let got = figures
                    .get(x.figure)
                    .map_or(Value::None, |f| f.value.clone());
                if !x.want.holds(&got) {
                    failures.push(Failure {
                        step: i + 1,
                        line: x.line,
                        column: x.column,
                        message: format!(
                            "{} is {}, expected {}",
                            x.key,
                            value_text(&got),
                            x.want.text()
                        ),
                    });
                }
            }
        }
        (failures, checked)
    }
}

/// The names of the built-in lessons.
pub fn names() -> Vec<&'static str> {
    BUILT_IN.iter().map(|(n, _)| *n).collect()
}

/// `text` with every `{name}` replaced by the figure's shown value; `{{`
/// and `}}` stand for a brace. A name without a figure (checked when the
/// lesson was read) is left as written.
pub fn fill(text: &str, figures: &Figures) -> String {
    fill_with(text, |name| figures.get(name).map(|f| f.shown.clone()))
}

/// `text` filled with the figures of a live state (`figures`), each one
/// that shows otherwise than in the scripted state (`script`) marked with
/// a trailing `*`; also whether any was marked. A figure the script lacks
/// counts as changed.
pub fn fill_marked(text: &str, figures: &Figures, script: &Figures) -> (String, bool) {
    let mut changed = false;
    let out = fill_with(text, |name| {
        let f = figures.get(name)?;
        if script.get(name).is_some_and(|s| s.shown == f.shown) {
            Some(f.shown.clone())
        } else {
            changed = true;
            Some(format!("{}*", f.shown))
        }
    });
    (out, changed)
}

/// `text` with every `{name}` replaced by what `value` gives for the
/// trimmed name (left as written when it gives nothing); `{{` and `}}`
/// stand for a brace.
fn fill_with(text: &str, mut value: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        match (tail.starts_with('{'), tail.find('}')) {
            (true, Some(end)) => {
                let name = &tail[1..end];
                match value(name.trim()) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&tail[..=end]),
                }
                rest = &tail[end + 1..];
            }
            _ => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
