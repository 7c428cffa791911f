//! Reading a scenario file and reporting every problem it has, each at the
//! `file:line:column` of its key, sorted by line: syntax errors (all of them,
//! from toml's recovering parser), unknown keys, values of the wrong type,
//! bad values and names the catalog does not know.
//!
//! Types are checked by serde, which stops at the first problem: after each
//! one the offending key is taken out of the document and the rest is read
//! again, so the loop runs at most once per known key (unknown keys, which
//! could be many, are all found in one pass before).

use super::{Scenario, ScenarioError, ScenarioErrors};
use crate::catalog::Catalog;
use serde::Deserialize;
use std::sync::LazyLock;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The keys of each table of the format (a test keeps them equal to the
/// fields of `Scenario`).
pub(super) const SCHEMA: [(&str, &[&str]); 10] = [
    (
        "",
        &[
            "title",
            "description",
            "view",
            "hardware",
            "compare",
            "model",
            "workload",
            "assumptions",
            "serving",
            "synthesis",
            "sweep",
            "generations",
            "fleet",
            "training",
            "explore",
        ],
    ),
    (
        "workload",
        &[
            "phase",
            "batch",
            "context",
            "precision",
            "weights",
            "activations",
            "kv",
            "tp",
            "pp",
        ],
    ),
    // "assumptions": `profile` and every key of catalog::profile::KEYS.
    ("assumptions", &[]),
    (
        "serving",
        &[
            "prompt",
            "output",
            "region",
            "batching",
            "token_budget",
            "prefix_hit",
            "draft",
            "proposed",
            "acceptance",
        ],
    ),
    ("synthesis", &["target"]),
    ("sweep", &["batches", "over"]),
    ("generations", &["family"]),
    (
        "fleet",
        &[
            "qps",
            "ttft",
            "itl",
            "regions",
            "budget",
            "max_utilization",
            "shares",
            "precisions",
            "mode",
        ],
    ),
    (
        "training",
        &[
            "devices",
            "tp",
            "pp",
            "v",
            "ep",
            "cp",
            "zero",
            "recompute",
            "attention",
            "dropout",
            "offload",
            "edge_layers",
            "contiguous",
            "global_batch",
            "micro_batch",
            "seq",
            "tokens",
            "optimizer",
            "dp_overlap",
            "tp_overlap",
            "ep_overlap",
            "cp_overlap",
            "overlap_slowdown",
            "mtbf",
            "checkpoint_bandwidth",
            "restart",
            "moe_capacity",
            "attention_efficiency",
            "moe_token_time",
            "matmul_ceiling",
            "cross_entropy",
            "low_precision_storage",
            "grad_precision",
            "allocator_overhead",
        ],
    ),
    (
        "explore",
        &[
            "x",
            "y",
            "hardware",
            "precisions",
            "tp",
            "pp",
            "batch",
            "ttft",
            "itl",
            "infeasible",
        ],
    ),
];

/// The keys of `[assumptions]`: the profile, then every assumption key.
fn assumption_keys() -> &'static [&'static str] {
    static ALL: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        std::iter::once("profile")
            .chain(crate::catalog::profile::KEYS.iter().map(|k| k.key))
            .collect()
    });
    &ALL
}

fn keys_of(table: &str) -> Option<&'static [&'static str]> {
    if table == "assumptions" {
        return Some(assumption_keys());
    }
    SCHEMA.iter().find(|(t, _)| *t == table).map(|(_, k)| *k)
}

/// Read `text` as a scenario; with a catalog, check its names too.
pub(super) fn read(
    file: &str,
    text: &str,
    catalog: Option<&Catalog>,
) -> Result<Scenario, ScenarioErrors> {
    // Line starts, found once: many problems must not rescan the text.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let at = |pos: usize, message: String| {
        let pos = pos.min(text.len());
        let line = starts.partition_point(|&s| s <= pos);
        let (line, column) = (line, pos - starts[line - 1] + 1);
        ScenarioError {
            file: file.to_string(),
            line,
            column,
            message,
        }
    };
    let (doc, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        let errors = syntax
            .iter()
            .map(|e| {
                at(
                    e.span().map_or(0, |s| s.start),
                    e.message().trim().to_string(),
                )
            })
            .collect();
        return Err(sorted(errors));
    }
    let (scenario, errors) = read_doc(doc, &at, catalog);
    match scenario {
        Some(s) if errors.is_empty() => Ok(s),
        _ => Err(sorted(errors)),
    }
}

/// Check a parsed scenario table (the whole file, or a lesson step's
/// fragment): every problem, placed by `at` from the byte position of its
/// key in the text the table was parsed from. The scenario is Some when
/// every key could be read (its values may still have problems).
pub(crate) fn read_doc(
    mut doc: Spanned<DeTable<'_>>,
    at: &dyn Fn(usize, String) -> ScenarioError,
    catalog: Option<&Catalog>,
) -> (Option<Scenario>, Vec<ScenarioError>) {
    let mut errors: Vec<ScenarioError> = unknown_keys(doc.get_mut())
        .into_iter()
        .map(|(pos, m)| at(pos, m))
        .collect();
    let scenario = loop {
        match Scenario::deserialize(toml::de::Deserializer::from(doc.clone())) {
            Ok(s) => break Some(s),
            Err(e) => {
                let pos = e.span().map_or(0, |s| s.start);
                let message = e.message().trim().to_string();
                match remove_at(doc.get_mut(), pos) {
                    Some((key, key_pos)) => errors.push(at(key_pos, keyed(&key, &message))),
                    None => {
                        errors.push(at(pos, message));
                        break None;
                    }
                }
            }
        }
    };
    if let Some(s) = &scenario {
        let mut problems = s.value_problems();
        if let Some(c) = catalog {
            problems.extend(s.catalog_problems(c));
        }
        for (key, message) in problems {
            let pos = locate(doc.get_ref(), &key).unwrap_or(0);
            errors.push(at(pos, keyed(&key, &message)));
        }
    }
    (scenario, errors)
}

/// A problem of `key` found after the file was read (the model path it
/// names cannot be imported): at the key's line and column, as every
/// other problem; at 1:1 when the text no longer parses or lacks the key.
pub(super) fn at_key(file: &str, text: &str, key: &str, message: &str) -> ScenarioError {
    let pos = DeTable::parse(text)
        .ok()
        .and_then(|doc| locate(doc.get_ref(), key))
        .unwrap_or(0)
        .min(text.len());
    let before = &text[..pos];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    ScenarioError {
        file: file.to_string(),
        line,
        column: pos - start + 1,
        message: keyed(key, message),
    }
}

fn sorted(mut errors: Vec<ScenarioError>) -> ScenarioErrors {
    errors.sort_by_key(|e| (e.line, e.column));
    errors.dedup();
    ScenarioErrors(errors)
}

/// The message of a key's problem, starting with the key unless it does.
fn keyed(key: &str, message: &str) -> String {
    let k = shown_key(key);
    if message.starts_with(&format!("{k} ")) || message.starts_with(&format!("{k}: ")) {
        message.to_string()
    } else {
        format!("{k}: {message}")
    }
}

/// "compare.1" -> "compare[1]"; "workload.batch" -> "batch" (the section
/// is on the line above in the file).
fn shown_key(key: &str) -> String {
    let mut parts = key.split('.');
    let first = parts.next().unwrap_or(key);
    let rest: Vec<&str> = parts.collect();
    match rest.as_slice() {
        [] => first.to_string(),
        [i] if i.parse::<usize>().is_ok() => format!("{first}[{i}]"),
        [k] => k.to_string(),
        [k, i] => format!("{k}[{i}]"),
        _ => key.to_string(),
    }
}

/// Take out every key the format does not have; each one is a problem at
/// its position.
fn unknown_keys(doc: &mut DeTable<'_>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut check = |table: &mut DeTable<'_>, name: &str, known: &[&str]| {
        let unknown: Vec<(String, usize)> = table
            .keys()
            .filter(|k| !known.contains(&k.get_ref().as_ref()))
            .map(|k| (k.get_ref().to_string(), k.span().start))
            .collect();
        for (key, pos) in unknown {
            table.remove(key.as_str());
            let place = if name.is_empty() {
                String::new()
            } else {
                format!(" in [{name}]")
            };
            found.push((
                pos,
                format!(
                    "unknown key `{}`{place}; the keys here are: {}",
                    key.escape_debug(),
                    known.join(", ")
                ),
            ));
        }
    };
    check(doc, "", keys_of("").unwrap_or_default());
    for (section, _) in SCHEMA.iter().skip(1) {
        if let Some(v) = doc.get_mut(*section)
            && let DeValue::Table(t) = v.get_mut()
        {
            check(t, section, keys_of(section).unwrap_or_default());
        }
    }
    found
}

/// Remove the innermost entry whose key or value holds byte `pos`: its
/// dotted path and the position of its key. (A table's own span may not
/// cover its body, `[section]` headers: its entries are searched first.)
fn remove_at(table: &mut DeTable<'_>, pos: usize) -> Option<(String, usize)> {
    let names: Vec<(String, usize, bool)> = table
        .iter()
        .map(|(k, v)| {
            let (ks, vs) = (k.span(), v.span());
            let holds = ks.start <= pos && pos < vs.end.max(ks.end);
            (k.get_ref().to_string(), ks.start, holds)
        })
        .collect();
    for (name, _, _) in &names {
        if let Some(v) = table.get_mut(name.as_str())
            && let DeValue::Table(inner) = v.get_mut()
            && let Some((k, p)) = remove_at(inner, pos)
        {
            return Some((format!("{name}.{k}"), p));
        }
    }
    let (name, start, _) = names.into_iter().find(|(_, _, holds)| *holds)?;
    table.remove(name.as_str());
    Some((name, start))
}

/// The byte position of a dotted key ("workload.batch", "compare.1") in
/// the document: its key, or its element in an array.
fn locate(doc: &DeTable<'_>, path: &str) -> Option<usize> {
    let mut segs = path.split('.');
    let (k, mut cur) = doc.get_key_value(segs.next()?)?;
    let mut pos = k.span().start;
    for seg in segs {
        let next: &Spanned<DeValue<'_>> = match (cur.get_ref(), seg.parse::<usize>()) {
            (DeValue::Array(a), Ok(i)) => {
                let e = a.get(i)?;
                pos = e.span().start;
                e
            }
            (DeValue::Table(t), _) => {
                let (k, v) = t.get_key_value(seg)?;
                pos = k.span().start;
                v
            }
            _ => break,
        };
        cur = next;
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::profile::Value;

    #[test]
    fn the_schema_lists_every_field_of_the_format() {
        // A scenario with every field set, serialized: its keys are the schema.
        let mut s = Scenario {
            title: Some("t".into()),
            description: Some("d".into()),
            view: Some("fleet".into()),
            hardware: Some("h100".into()),
            compare: vec!["h100".into()],
            model: Some("llama-3.1-8b".into()),
            ..Scenario::default()
        };
        let w = &mut s.workload;
        (w.phase, w.batch, w.context, w.precision) = (
            Some("decode".into()),
            Some(1.0),
            Some(8.0),
            Some("bf16".into()),
        );
        (w.weights, w.activations, w.kv, w.tp, w.pp) = (
            Some("bf16".into()),
            Some("bf16".into()),
            Some("bf16".into()),
            Some(1),
            Some(1),
        );
        let mut odd = crate::solver::Assumptions::default();
        for k in crate::catalog::profile::KEYS {
            let v = match k.takes {
                crate::catalog::profile::Takes::Time => Value::Text("3 us"),
                crate::catalog::profile::Takes::Algorithm => Value::Text("tree"),
                crate::catalog::profile::Takes::Accumulate => Value::Text("fp16"),
                _ => Value::Number(0.5),
            };
            crate::catalog::profile::set(&mut odd, k.key, v).unwrap();
        }
        s.assumptions = super::super::AssumptionsSection::of(
            "ideal",
            &crate::solver::Assumptions::default(),
            &odd,
        );
        (s.serving.prompt, s.serving.output, s.serving.region) =
            (Some(1.0), Some(1.0), Some("us-east".into()));
        s.serving.set_modes(&super::super::ServeModes {
            draft: Some("llama-3.2-1b".into()),
            ..Default::default()
        });
        s.synthesis.target = Some("50ms".into());
        (s.sweep.batches, s.sweep.over) = (Some("1..2".into()), Some("batch".into()));
        s.generations.family = Some("marked".into());
        let f = &mut s.fleet;
        (f.qps, f.ttft, f.itl, f.regions) = (
            Some(1.0),
            Some("1s".into()),
            Some("1s".into()),
            vec!["us-east".into()],
        );
        (f.budget, f.max_utilization) = (Some("1M".into()), Some(0.8));
        (f.shares, f.precisions, f.mode) = (vec![1.0], Some("bf16".into()), Some("auto".into()));
        s.training = super::super::TrainingSection::of(&super::super::TrainInputs {
            seq: Some(4096.0),
            ..Default::default()
        });
        s.explore = super::super::ExploreSection::of(&super::super::ExploreInputs {
            ttft_s: Some(0.2),
            itl_s: Some(0.05),
            ..Default::default()
        });
        let text = s.to_toml();
        let doc = DeTable::parse(&text).unwrap();
        let names = |t: &DeTable<'_>| {
            let mut v: Vec<String> = t.keys().map(|k| k.get_ref().to_string()).collect();
            v.sort();
            v
        };
        let sorted = |k: &[&str]| {
            let mut v: Vec<String> = k.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(names(doc.get_ref()), sorted(keys_of("").unwrap()));
        for (section, _) in SCHEMA.iter().skip(1) {
            let DeValue::Table(t) = doc.get_ref().get(*section).unwrap().get_ref() else {
                panic!("{section}")
            };
            assert_eq!(names(t), sorted(keys_of(section).unwrap()), "[{section}]");
        }
    }

    #[test]
    fn keys_are_shown_as_written() {
        assert_eq!(shown_key("compare.1"), "compare[1]");
        assert_eq!(shown_key("workload.batch"), "batch");
        assert_eq!(shown_key("fleet.regions.0"), "regions[0]");
        assert_eq!(shown_key("view"), "view");
    }
}
