//! Reading a lesson file: every problem at its file:line:column, sorted,
//! as scenario files report them. A step's scenario keys go through the
//! scenario checker itself (`scenario::read_fragment`), placed in the
//! lesson's text; the step is then laid over the state before it.

use super::figures::{self, Kind};
use super::{Expect, LESSON_KEYS, Lesson, STEP_KEYS, Step, Want};
use crate::catalog::Catalog;
use crate::scenario::{Scenario, ScenarioError, ScenarioErrors};
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

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
pub(super) struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    starts: Vec<usize>,
    errors: Vec<ScenarioError>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(file: &'a str, text: &'a str) -> Reader<'a> {
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

    pub(super) fn read(mut self, catalog: &Catalog) -> Result<Lesson, ScenarioErrors> {
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
