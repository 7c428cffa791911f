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

use crate::catalog::Catalog;
use crate::scenario::{Scenario, ScenarioError, ScenarioErrors};
use figures::{Figures, Kind, Value};
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The largest lesson file read: the built-in ones are a few kB.
pub const MAX_LESSON_BYTES: u64 = 1 << 20;

/// The built-in lessons: name and text (assets/lessons/).
pub const BUILT_IN: &[(&str, &str)] = &[
    ("knobs", include_str!("../../assets/lessons/knobs.toml")),
    (
        "design-space",
        include_str!("../../assets/lessons/design-space.toml"),
    ),
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
        Reader::new(file, text).read(catalog)
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
                match figures.get(name.trim()) {
                    Some(f) => out.push_str(&f.shown),
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

/// The placeholders of `text` that name no figure, or a brace left open:
/// each with its byte offset in `text` and what is wrong.
fn placeholder_problems(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut i = 0;
    let b = text.as_bytes();
    while i < b.len() {
        match b[i] {
            b'{' | b'}' if b.get(i + 1) == Some(&b[i]) => i += 2,
            b'{' => match text[i..].find('}') {
                Some(end) => {
                    let name = text[i + 1..i + end].trim();
                    if figures::by_name(name).is_none() {
                        found.push((
                            i,
                            format!(
                                "unknown placeholder {{{}}}; the figures are: {} (write {{{{ for a brace)",
                                name.escape_debug(),
                                figure_names()
                            ),
                        ));
                    }
                    i += end + 1;
                }
                None => {
                    found.push((i, "a `{` with no `}`: write {{ for a brace".into()));
                    i += 1;
                }
            },
            b'}' => {
                found.push((i, "a `}` with no `{`: write }} for a brace".into()));
                i += 1;
            }
            _ => i += 1,
        }
    }
    found
}

fn figure_names() -> String {
    figures::DEFS
        .iter()
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn expect_keys() -> String {
    figures::DEFS
        .iter()
        .map(|d| d.expect)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reading one lesson text: positions to file:line:column.
struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    starts: Vec<usize>,
    errors: Vec<ScenarioError>,
}

impl<'a> Reader<'a> {
    fn new(file: &'a str, text: &'a str) -> Reader<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Reader {
            file,
            text,
            starts,
            errors: Vec::new(),
        }
    }

    fn at(&self, pos: usize, message: String) -> ScenarioError {
        let pos = pos.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= pos);
        ScenarioError {
            file: self.file.to_string(),
            line,
            column: pos - self.starts[line - 1] + 1,
            message,
        }
    }

    fn error(&mut self, pos: usize, message: String) {
        let e = self.at(pos, message);
        self.errors.push(e);
    }

    fn read(mut self, catalog: &Catalog) -> Result<Lesson, ScenarioErrors> {
        let (doc, syntax) = DeTable::parse_recoverable(self.text);
        if !syntax.is_empty() {
            for e in &syntax {
                let pos = e.span().map_or(0, |s| s.start);
                self.error(pos, e.message().trim().to_string());
            }
            return Err(self.finish());
        }
        let top = doc.get_ref();
        for (k, _) in top.iter() {
            if !LESSON_KEYS.contains(&k.get_ref().as_ref()) {
                self.error(
                    k.span().start,
                    format!(
                        "unknown key `{}`; the keys of a lesson are: {}",
                        k.get_ref().escape_debug(),
                        LESSON_KEYS.join(", ")
                    ),
                );
            }
        }
        let title = self.string(top, "title", true).unwrap_or_default();
        let reproduces = self.string(top, "reproduces", true).unwrap_or_default();
        let description = self.string(top, "description", false);
        let mut steps = Vec::new();
        match top.get_key_value("step").map(|(k, v)| (k.span().start, v)) {
            None => self.error(
                0,
                "no steps: add one or more [[step]] tables, each with a caption".into(),
            ),
            Some((pos, v)) => match v.get_ref() {
                DeValue::Array(a) if !a.is_empty() => {
                    let mut state = Scenario::default();
                    for (i, s) in a.iter().enumerate() {
                        match s.get_ref() {
                            DeValue::Table(t) => {
                                let span = s.span();
                                if let Some(step) = self.step(i + 1, span, t, &mut state, catalog) {
                                    steps.push(step);
                                }
                            }
                            _ => self.error(
                                s.span().start,
                                "step: each step is a table: write [[step]] and its keys".into(),
                            ),
                        }
                    }
                }
                _ => self.error(
                    pos,
                    "step: write the steps as [[step]] tables, one or more".into(),
                ),
            },
        }
        if self.errors.is_empty() {
            Ok(Lesson {
                file: self.file.to_string(),
                title,
                reproduces,
                description,
                steps,
            })
        } else {
            Err(self.finish())
        }
    }

    fn finish(mut self) -> ScenarioErrors {
        self.errors.sort_by_key(|e| (e.line, e.column));
        self.errors.dedup();
        ScenarioErrors(self.errors)
    }

    /// The string at `key` of `table`, with a problem when it is not one
    /// (or is absent and `required`).
    fn string(&mut self, table: &DeTable<'_>, key: &str, required: bool) -> Option<String> {
        match table.get_key_value(key) {
            Some((k, v)) => match v.get_ref().as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    self.error(
                        k.span().start,
                        format!("{key}: a string, like {key} = \"...\""),
                    );
                    None
                }
            },
            None if required => {
                self.error(0, format!("{key}: missing; add {key} = \"...\""));
                None
            }
            None => None,
        }
    }

    /// A text of a step with placeholders: checked, each problem at its
    /// place in the file.
    fn text_of(&mut self, table: &DeTable<'_>, key: &str, required: bool) -> Option<String> {
        let s = self.string(table, key, required)?;
        let (_, v) = table.get_key_value(key)?;
        let span = v.span();
        let raw = self.text.get(span.start..span.end).unwrap_or("");
        for (off, message) in placeholder_problems(&s) {
            // The place in the file: the same placeholder in the raw text
            // (escapes may shift it), else the value's start.
            let piece: String = s[off..].chars().take_while(|&c| c != '}').collect();
            let pos = raw.find(&piece).map_or(span.start, |p| span.start + p);
            self.error(pos, format!("{key}: {message}"));
        }
        Some(s)
    }

    fn step(
        &mut self,
        n: usize,
        span: std::ops::Range<usize>,
        table: &DeTable<'a>,
        state: &mut Scenario,
        catalog: &Catalog,
    ) -> Option<Step> {
        let pos = span.start;
        let scenario_keys = crate::scenario::top_keys();
        let mut fragment = table.clone();
        for (k, _) in table.iter() {
            let key = k.get_ref().as_ref();
            if STEP_KEYS.contains(&key) {
                fragment.remove(key);
            } else if !scenario_keys.contains(&key) {
                fragment.remove(key);
                self.error(
                    k.span().start,
                    format!(
                        "unknown key `{}` in step {n}; a step takes {} and the keys of a scenario file: {}",
                        key.escape_debug(),
                        STEP_KEYS.join(", "),
                        scenario_keys.join(", ")
                    ),
                );
            }
        }
        let caption = self.text_of(table, "caption", false);
        if caption.is_none() && table.get("caption").is_none() {
            self.error(pos, format!("step {n}: no caption; add caption = \"...\""));
        }
        let question = self.text_of(table, "question", false);
        let answer = self.text_of(table, "answer", false);
        let expect = match table.get_key_value("expect") {
            None => Vec::new(),
            Some((k, v)) => match v.get_ref() {
                DeValue::Table(t) => self.expectations(t, ""),
                _ => {
                    self.error(
                        k.span().start,
                        "expect: a table, [step.expect], of figure = value".into(),
                    );
                    Vec::new()
                }
            },
        };
        let at = |p: usize, m: String| self.at(p, m);
        let (fragment, problems) = crate::scenario::read_fragment(
            Spanned::new(span.clone(), fragment),
            &at,
            Some(catalog),
        );
        // A fragment with problems of its own is not laid over the state:
        // the state's problems would repeat them.
        let clean = problems.is_empty();
        self.errors.extend(problems);
        let fragment = fragment.filter(|_| clean)?;
        let merged = match merge(state, &fragment) {
            // `compare = []` unmarks every device (an empty list is not
            // written, so the merge alone would keep the marks before).
            Ok(mut s) if table.get("compare").is_some() => {
                s.compare = fragment.compare.clone();
                s
            }
            Ok(s) => s,
            Err(e) => {
                self.error(pos, format!("step {n}: {e}"));
                return None;
            }
        };
        let mut problems = merged.value_problems();
        problems.extend(merged.catalog_problems(catalog));
        if let Some(m) = &fragment.model
            && crate::catalog::hf::load::looks_like_path(m)
        {
            problems.push((
                "model".into(),
                format!("{m:?} is a path: a lesson names a model by its catalog id (`ridgeline import` adds one)"),
            ));
        }
        if merged.hardware.is_none() && merged.compare.is_empty() {
            problems.push((
                "hardware".into(),
                "no device yet: set `hardware` in this step or an earlier one".into(),
            ));
        }
        if merged.model.is_none() {
            problems.push((
                "model".into(),
                "no model yet: set `model` in this step or an earlier one".into(),
            ));
        }
        for (key, message) in problems {
            self.error(
                pos,
                format!("step {n}: with the steps before it, {key}: {message}"),
            );
        }
        *state = merged.clone();
        let (line, column) = {
            let e = self.at(pos, String::new());
            (e.line, e.column)
        };
        Some(Step {
            caption: caption.unwrap_or_default(),
            question,
            answer,
            state: merged,
            expect,
            line,
            column,
        })
    }

    /// The expectations of a `[step.expect]` table (`prefix` for a dotted
    /// key's inner table: `elasticity.`).
    fn expectations(&mut self, table: &DeTable<'_>, prefix: &str) -> Vec<Expect> {
        let mut out = Vec::new();
        for (k, v) in table.iter() {
            let key = format!("{prefix}{}", k.get_ref());
            let pos = k.span().start;
            let def = figures::by_expect(&key);
            let inner = figures::DEFS
                .iter()
                .any(|d| d.expect.starts_with(&format!("{key}.")));
            match (def, v.get_ref()) {
                (None, DeValue::Table(t)) if inner => {
                    out.extend(self.expectations(t, &format!("{key}.")));
                }
                (None, _) => self.error(
                    pos,
                    format!(
                        "unknown expectation `{}`; the figures to expect are: {}",
                        key.escape_debug(),
                        expect_keys()
                    ),
                ),
                (Some(d), value) => match want(d.kind, value) {
                    Ok(want) => {
                        let e = self.at(pos, String::new());
                        out.push(Expect {
                            key: d.expect,
                            figure: d.name,
                            want,
                            line: e.line,
                            column: e.column,
                        });
                    }
                    Err(m) => self.error(pos, format!("{key}: {m}")),
                },
            }
        }
        out
    }
}

/// A number of a TOML value (integer or float).
fn number(v: &DeValue<'_>) -> Option<f64> {
    match v {
        DeValue::Integer(i) => i64::from_str_radix(&i.as_str().replace('_', ""), i.radix())
            .ok()
            .map(|x| x as f64),
        DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok(),
        _ => None,
    }
}

/// What an expectation of a figure of `kind` wants.
fn want(kind: Kind, v: &DeValue<'_>) -> Result<Want, String> {
    if v.as_str().is_some_and(|s| s.trim() == "none") {
        return Ok(Want::None);
    }
    match kind {
        Kind::Number => {
            if let Some(x) = number(v).filter(|x| x.is_finite()) {
                return Ok(Want::Range(x, x));
            }
            let bounds: Option<Vec<f64>> = v
                .as_array()
                .map(|a| a.iter().map(|x| number(x.get_ref())).collect())
                .and_then(|x: Option<Vec<f64>>| x);
            match bounds.as_deref() {
                Some([lo, hi]) if lo.is_finite() && hi.is_finite() && lo <= hi => {
                    Ok(Want::Range(*lo, *hi))
                }
                Some([_, _]) => Err("[low, high] needs low <= high, both finite".into()),
                _ => Err("a number, or [low, high], or \"none\"".into()),
            }
        }
        Kind::Text => v
            .as_str()
            .map(|s| Want::Text(s.trim().to_string()))
            .ok_or_else(|| "a string, like \"memory\"".into()),
        Kind::Bool => v
            .as_bool()
            .map(Want::Bool)
            .ok_or_else(|| "true or false".into()),
    }
}

/// `over` laid over `base`: each key `over` sets replaces `base`'s (tables
/// merged key by key, arrays replaced whole).
fn merge(base: &Scenario, over: &Scenario) -> Result<Scenario, String> {
    fn deep(into: &mut toml::Table, from: toml::Table) {
        for (k, v) in from {
            match (into.get_mut(&k), v) {
                (Some(toml::Value::Table(a)), toml::Value::Table(b)) => deep(a, b),
                (_, v) => {
                    into.insert(k, v);
                }
            }
        }
    }
    let table = |s: &Scenario| toml::Table::try_from(s).map_err(|e| e.to_string());
    let mut t = table(base)?;
    // `precision` sets all three formats: those the steps before set apart
    // give way to it.
    if over.workload.precision.is_some()
        && let Some(toml::Value::Table(w)) = t.get_mut("workload")
    {
        for k in ["weights", "activations", "kv"] {
            w.remove(k);
        }
    }
    deep(&mut t, table(over)?);
    Scenario::deserialize(toml::Value::Table(t)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
