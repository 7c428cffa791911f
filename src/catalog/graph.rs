//! A single-pass model's layer list, read from its catalog entry's `graph`:
//! one statement per string (`"layer2: bottleneck 128 512 s2 x4"`), each a
//! layer or a block of layers, with the shape tracked from the input so
//! that each layer's FLOPs, parameters and activation reads and writes
//! follow from the statement (catalog/SCHEMA.md, "Layer lists"). A bad
//! statement is a problem at its file:line:column and the entry is skipped.

#[path = "graph_args.rs"]
mod args;
#[path = "graph_blocks.rs"]
mod blocks;
#[path = "graph_ops.rs"]
mod ops;
#[path = "graph_run.rs"]
mod run;
#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;

use super::fields::Fields;
use super::limits;
use crate::solver::{Layer, ModelKind};
use args::{Args, Bad, STRUCTURAL, bad, words};
use ops::Builder;
use run::Failure;

/// The layers of a graph, and the parameters held but not read by a pass
/// (embedding rows no token looks up), which count in the model's size.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub layers: Vec<Layer>,
    pub held_params: f64,
}

impl Graph {
    /// Every parameter: those the layers read and those held.
    pub fn params(&self) -> f64 {
        self.layers.iter().map(|l| l.params).sum::<f64>() + self.held_params
    }

    pub fn flops(&self) -> f64 {
        self.layers.iter().map(|l| l.flops).sum()
    }
}

/// How far a graph's parameters and FLOPs may stray from the entry's
/// `params` and `flops_per_sample` before they are taken to describe
/// different models (a graph at another input size, MACs for FLOPs). The
/// built-in entries agree within 2% (tests/model_graphs.rs).
pub const AGREEMENT: f64 = 0.10;

/// The `graph` of a model table, or None when there is none or it is bad
/// (then a problem is recorded and the entry is skipped). `params` and
/// `flops` are the entry's own figures, which the graph must agree with.
pub fn read(
    f: &mut Fields,
    kind: Option<ModelKind>,
    params: Option<f64>,
    flops: Option<f64>,
) -> Option<Graph> {
    let v = f.value("graph")?;
    let at = v.span().start;
    if kind.is_some_and(ModelKind::is_decoder) {
        f.problem(at, "`graph` lists the layers of a single-pass model (encoder, cnn, other); a decoder's operators follow from its shape");
        return None;
    }
    let Some(items) = v.get_ref().as_array() else {
        f.problem(at, "`graph` must be a list of strings, one layer or block each: graph = [\"input 3x224x224\", \"conv 64 7x7/2\", ...]");
        return None;
    };
    let mut b = Builder::default();
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for item in items.iter() {
        let span = item.span();
        let Some(s) = item.get_ref().as_str() else {
            let got = item.get_ref().type_str();
            f.problem(
                span.start,
                format!("`graph` must be a list of strings, not of {got}"),
            );
            return None;
        };
        if !f.check_text("`graph`", s, span.start) {
            return None;
        }
        // Offsets inside the string are exact when the file holds it as
        // written (no escapes, one line); else point at its start.
        let base = (span.end - span.start == s.len() + 2).then_some(span.start + 1);
        if let Err(bad) = statement(&mut b, s, base, span.start, &mut counts) {
            f.problem(bad.at, format!("graph {:?}: {}", clip(s), bad.msg));
            return None;
        }
    }
    match finish(b, params, flops) {
        Ok(g) => Some(g),
        Err(msg) => {
            f.problem(at, format!("graph: {msg}"));
            None
        }
    }
}

/// At most 60 characters of a statement, for messages.
fn clip(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// The whole graph's checks: something flows through, every branch is
/// closed, the totals are within the catalog's ranges and agree with the
/// entry's figures.
fn finish(b: Builder, params: Option<f64>, flops: Option<f64>) -> Result<Graph, String> {
    if b.layers.is_empty() {
        return Err(
            "no layers; list them from `input CxHxW` or `tokens N` on, or leave `graph` out".into(),
        );
    }
    if b.open_branches() > 0 {
        return Err(format!(
            "{} `branch` never closed by an `add`",
            b.open_branches()
        ));
    }
    let g = Graph {
        layers: b.layers,
        held_params: b.held,
    };
    let sum = |f: fn(&Layer) -> f64| g.layers.iter().map(f).sum::<f64>();
    let totals = [
        ("parameters", g.params(), &limits::PARAMS),
        ("FLOPs", g.flops(), &limits::FLOPS_PER_SAMPLE),
        (
            "activation elements read",
            sum(|l| l.inputs),
            &limits::ACTIVATIONS,
        ),
        (
            "activation elements written",
            sum(|l| l.outputs),
            &limits::ACTIVATIONS,
        ),
    ];
    for (what, x, limit) in totals {
        if x > *limit.range.end() {
            return Err(format!(
                "the layers sum to {x:.3e} {what} per sample; the most is {}",
                limit.text
            ));
        }
    }
    for (what, key, ours, theirs) in [
        ("parameters", "params", g.params(), params),
        ("FLOPs", "flops_per_sample", g.flops(), flops),
    ] {
        if let Some(t) = theirs
            && (ours - t).abs() > AGREEMENT * t
        {
            return Err(format!(
                "the layers sum to {ours:.4e} {what} but {key} = {t:.4e}: more than {:.0}% apart, so one of them describes another model (a multiply-add is 2 FLOPs; the graph and the figures are at the same input)",
                AGREEMENT * 100.0
            ));
        }
    }
    Ok(g)
}

/// Run one statement: `[LABEL:] OP ARGS... [xN]`.
fn statement(
    b: &mut Builder,
    s: &str,
    base: Option<usize>,
    start: usize,
    counts: &mut Vec<(&'static str, usize)>,
) -> Result<(), Bad> {
    let mut toks = words(s, base, start);
    let label = args::label(&mut toks)?;
    let Some(op_tok) = toks.first().copied() else {
        let at = label.map_or(start, |l| l.at);
        return Err(bad(
            at,
            "an empty statement; write a layer like \"conv 64 3x3\"",
        ));
    };
    let (op, usage) = args::statement_of(op_tok)?;
    let repeat = args::repeat(&mut toks, op)?;
    if let (Some(l), true) = (label, STRUCTURAL.contains(&op)) {
        return Err(bad(
            l.at,
            format!("`{op}` adds no layer to name; drop the label"),
        ));
    }
    let label = match label {
        Some(l) => l.text.to_string(),
        None => default_label(op, counts),
    };
    let end = toks.last().map_or(start, |t| t.at + t.text.len());
    let mut a = Args {
        op,
        usage,
        toks: &toks[1..],
        next: 0,
        end,
    };
    run::run(b, &mut a, &label, repeat).map_err(|e| match e {
        Failure::Syntax(bad) => bad,
        Failure::Shape(msg) => bad(op_tok.at, msg),
    })
}

/// "conv3" for the third unlabelled conv statement.
fn default_label(op: &'static str, counts: &mut Vec<(&'static str, usize)>) -> String {
    let n = match counts.iter_mut().find(|(o, _)| *o == op) {
        Some((_, n)) => {
            *n += 1;
            *n
        }
        None => {
            counts.push((op, 1));
            1
        }
    };
    format!("{op}{n}")
}
