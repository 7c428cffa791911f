//! The words of a graph statement: each with its offset in the file, the
//! statements and how they are written, the label, the repeat count, and
//! the arguments read in order (positional numbers and shapes, then
//! options), every problem at the word that is wrong.

use super::ops::MAX_DIM;

/// A problem at a byte offset of the file.
#[derive(Debug)]
pub(super) struct Bad {
    pub at: usize,
    pub msg: String,
}

/// One word of a statement and where it is written.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tok<'a> {
    pub text: &'a str,
    pub at: usize,
}

/// Most repetitions of one statement.
const MAX_REPEAT: u64 = 100_000;

/// Every statement with how it is written; the messages show it.
pub(super) const USAGE: &[(&str, &str)] = &[
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
pub(super) const STRUCTURAL: &[&str] =
    &["input", "tokens", "defaults", "flatten", "first", "branch"];

/// Split a statement into words with their offsets.
pub(super) fn words(s: &str, base: Option<usize>, start: usize) -> Vec<Tok<'_>> {
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

/// A problem at `at`.
pub(super) fn bad(at: usize, msg: impl Into<String>) -> Bad {
    Bad {
        at,
        msg: msg.into(),
    }
}

/// The label of a statement (`layer1:`), taken off its words.
pub(super) fn label<'a>(toks: &mut Vec<Tok<'a>>) -> Result<Option<Tok<'a>>, Bad> {
    let Some(t) = toks.first().copied() else {
        return Ok(None);
    };
    let Some(l) = t.text.strip_suffix(':') else {
        return Ok(None);
    };
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if l.is_empty() || !l.chars().all(ok) {
        return Err(bad(
            t.at,
            format!("the label `{l}` must be letters, digits, `.`, `_` or `-`, like \"layer1:\""),
        ));
    }
    toks.remove(0);
    Ok(Some(Tok { text: l, at: t.at }))
}

/// The statement a word names, and how it is written.
pub(super) fn statement_of(t: Tok) -> Result<(&'static str, &'static str), Bad> {
    if let Some(&(op, usage)) = USAGE.iter().find(|(name, _)| *name == t.text) {
        return Ok((op, usage));
    }
    // A suggestion only for a word short enough to be a typo.
    let near = USAGE
        .iter()
        .filter(|_| t.text.len() <= 64)
        .map(|(n, _)| (super::super::distance(t.text, n), *n))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map_or(String::new(), |(_, n)| format!("did you mean `{n}`? "));
    let all: Vec<&str> = USAGE.iter().map(|(n, _)| *n).collect();
    Err(bad(
        t.at,
        format!(
            "unknown layer `{}`; {near}known: {}",
            t.text,
            all.join(", ")
        ),
    ))
}

/// The repeat count (`x4`, the last word), taken off the words; 1 if none.
pub(super) fn repeat(toks: &mut Vec<Tok>, op: &str) -> Result<u64, Bad> {
    let Some(last) = toks.last().copied() else {
        return Ok(1);
    };
    let Some(n) = last.text.strip_prefix('x') else {
        return Ok(1);
    };
    if toks.len() < 2 || n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
        return Ok(1);
    }
    let count = n.parse::<u64>().unwrap_or(u64::MAX);
    if !(1..=MAX_REPEAT).contains(&count) {
        return Err(bad(
            last.at,
            format!("repeat {n} times? use x1 to x{MAX_REPEAT}"),
        ));
    }
    if STRUCTURAL.contains(&op) {
        return Err(bad(
            last.at,
            format!("`{op}` cannot repeat; a repeat count goes on a layer or a block"),
        ));
    }
    toks.pop();
    Ok(count)
}

/// The arguments of one statement, read in order.
pub(super) struct Args<'a, 'b> {
    pub op: &'static str,
    pub usage: &'static str,
    pub toks: &'b [Tok<'a>],
    pub next: usize,
    /// Where the statement's words end, for "missing" messages.
    pub end: usize,
}

/// The options a statement may carry after its positional arguments.
#[derive(Debug, Default)]
pub(super) struct Opts {
    pub stride: Option<u64>,
    pub groups: Option<u64>,
    pub mult: Option<u64>,
    pub expand: Option<u64>,
    pub kernel: Option<u64>,
    pub bias: Option<bool>,
    pub bn: Option<bool>,
    pub valid: bool,
    pub se: bool,
    pub pre: bool,
    pub proj: Option<bool>,
    pub add: bool,
}

impl<'a> Args<'a, '_> {
    pub fn take(&mut self, what: &str) -> Result<Tok<'a>, Bad> {
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
    pub fn whole(&mut self, what: &str) -> Result<u64, Bad> {
        let t = self.take(what)?;
        number(t, what)
    }

    /// `AxB...` with `n` parts, and an optional `/S` stride.
    pub fn dims(&mut self, what: &str, n: usize) -> Result<(Vec<u64>, Option<u64>), Bad> {
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
    pub fn opts(&mut self, allowed: &[&str]) -> Result<Opts, Bad> {
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
pub(super) fn number(t: Tok, what: &str) -> Result<u64, Bad> {
    match t.text.parse::<u64>() {
        Ok(n) if (1..=MAX_DIM).contains(&n) => Ok(n),
        _ => Err(bad(
            t.at,
            format!("`{}` is not {what} from 1 to {MAX_DIM}", t.text),
        )),
    }
}
