//! A single-pass model's layer list, read from its catalog entry's `graph`:
//! one statement per string (`"layer2: bottleneck 128 512 s2 x4"`), each a
//! layer or a block of layers, with the shape tracked from the input so
//! that each layer's FLOPs, parameters and activation reads and writes
//! follow from the statement (catalog/SCHEMA.md, "Layer lists"). A bad
//! statement is a problem at its file:line:column and the entry is skipped.

#[path = "graph_blocks.rs"]
mod blocks;
#[path = "graph_ops.rs"]
mod ops;
#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;

use super::fields::Fields;
use super::limits;
use crate::solver::{Layer, ModelKind};
use ops::{Builder, Conv, MAX_DIM, Norms, Shape, Window};

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

/// Most repetitions of one statement.
const MAX_REPEAT: u64 = 100_000;

/// A problem at a byte offset of the file.
#[derive(Debug)]
struct Bad {
    at: usize,
    msg: String,
}

/// One word of a statement and where it is written.
#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    at: usize,
}

/// Every statement with how it is written; the messages show it.
const USAGE: &[(&str, &str)] = &[
    ("input", "input CxHxW"),
    ("tokens", "tokens N"),
    ("defaults", "defaults [bias|nobias] [bn|nobn]"),
    (
        "conv",
        "conv C KxK[/S] [sS] [gG] [valid] [bias|nobias] [bn|nobn]",
    ),
    (
        "dwconv",
        "dwconv KxK[/S] [sS] [mM] [valid] [bias|nobias] [bn|nobn]",
    ),
    ("fc", "fc C [nobias] [bn]"),
    ("linear", "linear C [nobias] [bn]"),
    ("maxpool", "maxpool KxK[/S] [sS] [valid] | maxpool global"),
    ("avgpool", "avgpool KxK[/S] [sS] [valid] | avgpool global"),
    ("flatten", "flatten"),
    ("first", "first"),
    ("branch", "branch"),
    ("add", "add [proj|proj-nobn]"),
    ("embed", "embed VxD [add]"),
    ("cls", "cls [K]"),
    ("patchify", "patchify P D"),
    ("layernorm", "layernorm"),
    ("softmax", "softmax"),
    ("attention", "attention H"),
    ("basic", "basic C [sS] [proj-nobn]"),
    ("bottleneck", "bottleneck W C [sS] [proj-nobn]"),
    ("mbconv", "mbconv C tT [kK] [sS] [se]"),
    ("dwsep", "dwsep C [kK] [sS]"),
    ("encoder", "encoder H F [pre|post]"),
];

/// Statements that shape the graph rather than add layers: they take no
/// label and no repeat count.
const STRUCTURAL: &[&str] = &["input", "tokens", "defaults", "flatten", "first", "branch"];

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

/// Split a statement into words with their offsets.
fn words(s: &str, base: Option<usize>, start: usize) -> Vec<Tok<'_>> {
    let at = |i: usize| base.map_or(start, |b| b + i);
    let mut out = Vec::new();
    let mut from = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), from) {
            (true, Some(j)) => {
                out.push(Tok {
                    text: &s[j..i],
                    at: at(j),
                });
                from = None;
            }
            (false, None) => from = Some(i),
            _ => {}
        }
    }
    if let Some(j) = from {
        out.push(Tok {
            text: &s[j..],
            at: at(j),
        });
    }
    out
}

fn bad(at: usize, msg: impl Into<String>) -> Bad {
    Bad {
        at,
        msg: msg.into(),
    }
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
    let label = match toks.first() {
        Some(t) if t.text.ends_with(':') => {
            let l = &t.text[..t.text.len() - 1];
            if l.is_empty()
                || !l
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            {
                return Err(bad(
                    t.at,
                    format!(
                        "the label `{l}` must be letters, digits, `.`, `_` or `-`, like \"layer1:\""
                    ),
                ));
            }
            let t = toks.remove(0);
            Some((l, t.at))
        }
        _ => None,
    };
    let Some(op_tok) = toks.first().copied() else {
        let at = label.map_or(start, |l| l.1);
        return Err(bad(
            at,
            "an empty statement; write a layer like \"conv 64 3x3\"",
        ));
    };
    let Some(&(op, usage)) = USAGE.iter().find(|(name, _)| *name == op_tok.text) else {
        let near = USAGE
            .iter()
            .map(|(n, _)| (super::distance(op_tok.text, n), *n))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map_or(String::new(), |(_, n)| format!("did you mean `{n}`? "));
        let all: Vec<&str> = USAGE.iter().map(|(n, _)| *n).collect();
        return Err(bad(
            op_tok.at,
            format!(
                "unknown layer `{}`; {near}known: {}",
                op_tok.text,
                all.join(", ")
            ),
        ));
    };
    let mut repeat = 1;
    if let Some(last) = toks.last().copied()
        && toks.len() > 1
        && let Some(n) = last.text.strip_prefix('x')
        && !n.is_empty()
        && n.bytes().all(|c| c.is_ascii_digit())
    {
        repeat = n.parse::<u64>().unwrap_or(u64::MAX);
        if !(1..=MAX_REPEAT).contains(&repeat) {
            return Err(bad(
                last.at,
                format!("repeat {} times? use x1 to x{MAX_REPEAT}", n),
            ));
        }
        if STRUCTURAL.contains(&op) {
            return Err(bad(
                last.at,
                format!("`{op}` cannot repeat; a repeat count goes on a layer or a block"),
            ));
        }
        toks.pop();
    }
    if let (Some((_, at)), true) = (label, STRUCTURAL.contains(&op)) {
        return Err(bad(
            at,
            format!("`{op}` adds no layer to name; drop the label"),
        ));
    }
    let label = match label {
        Some((l, _)) => l.to_string(),
        None => default_label(op, counts),
    };
    let end = toks.last().map_or(start, |t| t.at + t.text.len());
    let mut args = Args {
        op,
        usage,
        toks: &toks[1..],
        next: 0,
        end,
    };
    let shape_at = op_tok.at;
    run(b, &mut args, &label, repeat).map_err(|e| match e {
        Failure::Syntax(bad) => bad,
        Failure::Shape(msg) => bad(shape_at, msg),
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

/// What went wrong: a word that does not read, or a layer that does not
/// fit the shape flowing in (reported at the statement's op).
enum Failure {
    Syntax(Bad),
    Shape(String),
}

impl From<Bad> for Failure {
    fn from(b: Bad) -> Self {
        Failure::Syntax(b)
    }
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure::Shape(s)
    }
}

/// The arguments of one statement, read in order.
struct Args<'a, 'b> {
    op: &'static str,
    usage: &'static str,
    toks: &'b [Tok<'a>],
    next: usize,
    /// Where the statement's words end, for "missing" messages.
    end: usize,
}

/// The options a statement may carry after its positional arguments.
#[derive(Debug, Default)]
struct Opts {
    stride: Option<u64>,
    groups: Option<u64>,
    mult: Option<u64>,
    expand: Option<u64>,
    kernel: Option<u64>,
    bias: Option<bool>,
    bn: Option<bool>,
    valid: bool,
    se: bool,
    pre: bool,
    proj: Option<bool>,
    add: bool,
}

impl<'a> Args<'a, '_> {
    fn take(&mut self, what: &str) -> Result<Tok<'a>, Bad> {
        let t = self.toks.get(self.next).copied().ok_or_else(|| {
            bad(
                self.end,
                format!("`{}` needs {what}; write {}", self.op, self.usage),
            )
        })?;
        self.next += 1;
        Ok(t)
    }

    /// A whole number from 1 to [`MAX_DIM`].
    fn whole(&mut self, what: &str) -> Result<u64, Bad> {
        let t = self.take(what)?;
        number(t, what)
    }

    /// `AxB...` with `n` parts, and an optional `/S` stride.
    fn dims(&mut self, what: &str, n: usize) -> Result<(Vec<u64>, Option<u64>), Bad> {
        let t = self.take(what)?;
        let (d, stride) = match t.text.split_once('/') {
            Some((d, s)) => (d, Some(s)),
            None => (t.text, None),
        };
        let parts: Vec<&str> = d.split('x').collect();
        let example = if n == 3 { "3x224x224" } else { "3x3 or 7x7/2" };
        if parts.len() != n {
            return Err(bad(
                t.at,
                format!("`{}` is not {what}; write it like {example}", t.text),
            ));
        }
        let mut out = Vec::new();
        for p in parts {
            out.push(number(Tok { text: p, at: t.at }, what)?);
        }
        let stride = match stride {
            Some(s) => Some(number(Tok { text: s, at: t.at }, "a stride")?),
            None => None,
        };
        Ok((out, stride))
    }

    /// The options left, each one of `allowed` (`"s"` for sN, `"bias"`, ...).
    fn opts(&mut self, allowed: &[&str]) -> Result<Opts, Bad> {
        let mut o = Opts::default();
        for t in &self.toks[self.next..] {
            if allowed.contains(&t.text) && word(&mut o, t.text) {
                continue;
            }
            // A keyed number: s2, g32, m1, t6, k5.
            let split = t
                .text
                .char_indices()
                .nth(1)
                .map_or(t.text.len(), |(i, _)| i);
            let (key, rest) = t.text.split_at(split);
            let numeric = !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit());
            if !allowed.contains(&key) || !numeric {
                return Err(self.unknown(*t));
            }
            let (slot, what) = match key {
                "s" => (&mut o.stride, "a stride"),
                "g" => (&mut o.groups, "a group count"),
                "m" => (&mut o.mult, "a depth multiplier"),
                "t" => (&mut o.expand, "an expansion ratio"),
                _ => (&mut o.kernel, "a kernel size"),
            };
            match rest.parse::<u64>() {
                Ok(n) if (1..=MAX_DIM).contains(&n) => *slot = Some(n),
                _ => {
                    let msg = format!("`{}` asks for {what} of {rest}; use 1 to {MAX_DIM}", t.text);
                    return Err(bad(t.at, msg));
                }
            }
        }
        self.next = self.toks.len();
        Ok(o)
    }

    fn unknown(&self, t: Tok) -> Bad {
        bad(
            t.at,
            format!(
                "`{}` is not an argument of `{}`; write {}",
                t.text, self.op, self.usage
            ),
        )
    }
}

/// Set the flag a word names; false if it names none.
fn word(o: &mut Opts, w: &str) -> bool {
    match w {
        "bias" => o.bias = Some(true),
        "nobias" => o.bias = Some(false),
        "bn" => o.bn = Some(true),
        "nobn" => o.bn = Some(false),
        "valid" => o.valid = true,
        "same" => o.valid = false,
        "se" => o.se = true,
        "pre" => o.pre = true,
        "post" => o.pre = false,
        "proj" => o.proj = Some(true),
        "proj-nobn" => o.proj = Some(false),
        "add" => o.add = true,
        _ => return false,
    }
    true
}

/// A whole number from 1 to [`MAX_DIM`].
fn number(t: Tok, what: &str) -> Result<u64, Bad> {
    match t.text.parse::<u64>() {
        Ok(n) if (1..=MAX_DIM).contains(&n) => Ok(n),
        _ => Err(bad(
            t.at,
            format!("`{}` is not {what} from 1 to {MAX_DIM}", t.text),
        )),
    }
}

/// Run a statement `repeat` times; a stride applies to the first time only
/// (as a ResNet stage downsamples in its first block).
fn run(b: &mut Builder, a: &mut Args, label: &str, repeat: u64) -> Result<(), Failure> {
    let name = |i: u64| {
        if repeat > 1 {
            format!("{label}.{i}")
        } else {
            label.to_string()
        }
    };
    let norms = |b: &Builder, o: &Opts| Norms {
        bias: o.bias.unwrap_or(b.defaults.bias),
        bn: o.bn.unwrap_or(b.defaults.bn),
    };
    match a.op {
        "input" => {
            let (d, s) = a.dims("a shape CxHxW", 3)?;
            if s.is_some() {
                return Err(Failure::Shape("an input has no stride".into()));
            }
            a.opts(&[])?;
            b.input(Shape {
                c: d[0],
                h: d[1],
                w: d[2],
            })?;
        }
        "tokens" => {
            let n = a.whole("a token count")?;
            a.opts(&[])?;
            b.input(Shape { c: 1, h: n, w: 1 })?;
        }
        "defaults" => {
            let o = a.opts(&["bias", "nobias", "bn", "nobn"])?;
            b.defaults = norms(b, &o);
        }
        "conv" | "dwconv" => {
            let out = if a.op == "conv" {
                Some(a.whole("the output channels")?)
            } else {
                None
            };
            let (k, slash) = a.dims("a kernel KxK", 2)?;
            let o = a.opts(&[
                "s", "g", "m", "valid", "same", "bias", "nobias", "bn", "nobn",
            ])?;
            let stride = o.stride.or(slash).unwrap_or(1);
            for i in 0..repeat {
                let c = b.shape()?.c;
                let (out, groups) = match out {
                    Some(out) => (out, o.groups.unwrap_or(1)),
                    None => (c.saturating_mul(o.mult.unwrap_or(1)), c),
                };
                let conv = Conv {
                    out,
                    kh: k[0],
                    kw: k[1],
                    stride: if i == 0 { stride } else { 1 },
                    groups,
                    valid: o.valid,
                    norms: norms(b, &o),
                };
                b.conv(&name(i), a.op, &conv)?;
            }
        }
        "fc" | "linear" => {
            let out = a.whole("the output width")?;
            let o = a.opts(&["bias", "nobias", "bn", "nobn"])?;
            let n = Norms {
                bias: o.bias.unwrap_or(true),
                bn: o.bn.unwrap_or(false),
            };
            for i in 0..repeat {
                b.fc(&name(i), out, n)?;
            }
        }
        "maxpool" | "avgpool" => {
            let win = if a.toks.get(a.next).is_some_and(|t| t.text == "global") {
                a.next += 1;
                a.opts(&[])?;
                Window::Global
            } else {
                let (k, slash) = a.dims("a window KxK (or `global`)", 2)?;
                let o = a.opts(&["s", "valid", "same"])?;
                Window::Sized {
                    kh: k[0],
                    kw: k[1],
                    stride: o.stride.or(slash).unwrap_or(k[0]),
                    valid: o.valid,
                }
            };
            for i in 0..repeat {
                b.pool(&name(i), win)?;
            }
        }
        "flatten" | "first" | "branch" => {
            a.opts(&[])?;
            match a.op {
                "flatten" => b.flatten()?,
                "first" => b.first()?,
                _ => b.branch()?,
            }
        }
        "add" => {
            let o = a.opts(&["proj", "proj-nobn"])?;
            let proj = o.proj.map(|bn| Norms {
                bn: bn && b.defaults.bn,
                ..b.defaults
            });
            for i in 0..repeat {
                let n = name(i);
                b.add(&n, &format!("{n}.downsample"), proj)?;
            }
        }
        _ => return transformer_or_block(b, a, repeat, &name),
    }
    Ok(())
}

/// The transformer pieces and the blocks.
fn transformer_or_block(
    b: &mut Builder,
    a: &mut Args,
    repeat: u64,
    name: &dyn Fn(u64) -> String,
) -> Result<(), Failure> {
    match a.op {
        "embed" => {
            let (d, _) = a.dims("a table VxD (rows x width)", 2)?;
            let o = a.opts(&["add"])?;
            for i in 0..repeat {
                b.embed(&name(i), d[0], d[1], o.add)?;
            }
        }
        "cls" => {
            let k = if a.toks.len() > a.next {
                a.whole("a token count")?
            } else {
                1
            };
            a.opts(&[])?;
            for i in 0..repeat {
                b.cls(&name(i), k)?;
            }
        }
        "patchify" => {
            let p = a.whole("a patch size")?;
            let d = a.whole("a width")?;
            a.opts(&[])?;
            for i in 0..repeat {
                b.patchify(&name(i), p, d)?;
            }
        }
        "layernorm" | "softmax" => {
            a.opts(&[])?;
            for i in 0..repeat {
                match a.op {
                    "layernorm" => b.layernorm(&name(i))?,
                    _ => b.softmax(&name(i))?,
                }
            }
        }
        "attention" => {
            let h = a.whole("a head count")?;
            a.opts(&[])?;
            for i in 0..repeat {
                b.attention(&name(i), h)?;
            }
        }
        _ => return block(b, a, repeat, name),
    }
    Ok(())
}

/// The blocks of [`blocks`]; a stride applies to the first repetition, the
/// rest keep the shape.
fn block(
    b: &mut Builder,
    a: &mut Args,
    repeat: u64,
    name: &dyn Fn(u64) -> String,
) -> Result<(), Failure> {
    let first = |i: u64, s: u64| if i == 0 { s } else { 1 };
    let proj = |b: &Builder, o: &Opts| Norms {
        bn: o.proj.unwrap_or(true) && b.defaults.bn,
        ..b.defaults
    };
    match a.op {
        "basic" => {
            let out = a.whole("the output channels")?;
            let o = a.opts(&["s", "proj-nobn"])?;
            for i in 0..repeat {
                let s = first(i, o.stride.unwrap_or(1));
                blocks::basic(b, &name(i), out, s, proj(b, &o))?;
            }
        }
        "bottleneck" => {
            let width = a.whole("the inner width")?;
            let out = a.whole("the output channels")?;
            let o = a.opts(&["s", "proj-nobn"])?;
            for i in 0..repeat {
                let s = first(i, o.stride.unwrap_or(1));
                blocks::bottleneck(b, &name(i), width, out, s, proj(b, &o))?;
            }
        }
        "mbconv" => {
            let out = a.whole("the output channels")?;
            let o = a.opts(&["t", "k", "s", "se"])?;
            let Some(expand) = o.expand else {
                return Err(Failure::Syntax(bad(
                    a.end,
                    format!(
                        "`mbconv` needs its expansion ratio, like t6; write {}",
                        a.usage
                    ),
                )));
            };
            for i in 0..repeat {
                let m = blocks::MbConv {
                    out,
                    expand,
                    kernel: o.kernel.unwrap_or(3),
                    stride: first(i, o.stride.unwrap_or(1)),
                    se: o.se,
                };
                blocks::mbconv(b, &name(i), &m)?;
            }
        }
        "dwsep" => {
            let out = a.whole("the output channels")?;
            let o = a.opts(&["k", "s"])?;
            for i in 0..repeat {
                let s = first(i, o.stride.unwrap_or(1));
                blocks::dwsep(b, &name(i), out, o.kernel.unwrap_or(3), s)?;
            }
        }
        _ => {
            // "encoder": the last entry of USAGE.
            let heads = a.whole("a head count")?;
            let ffn = a.whole("the MLP width")?;
            let o = a.opts(&["pre", "post"])?;
            for i in 0..repeat {
                blocks::encoder(b, &name(i), heads, ffn, o.pre)?;
            }
        }
    }
    Ok(())
}
