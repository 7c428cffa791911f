//! Running a statement: its arguments read, its layers added to the
//! builder, as many times as it repeats.

use super::args::{Args, Bad, Opts, bad};
use super::blocks;
use super::ops::{Builder, Conv, Norms, Shape, Window};

/// What went wrong: a word that does not read, or a layer that does not
/// fit the shape flowing in (reported at the statement's op).
pub(super) enum Failure {
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

/// Run a statement `repeat` times; a stride applies to the first time only
/// (as a ResNet stage downsamples in its first block).
pub(super) fn run(b: &mut Builder, a: &mut Args, label: &str, repeat: u64) -> Result<(), Failure> {
    let name = |i: u64| {
        if repeat > 1 {
            format!("{label}.{i}")
        } else {
            label.to_string()
        }
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
                let prefix = n.clone();
                b.add(n, &prefix, proj)?;
            }
        }
        _ => return layer(b, a, repeat, &name),
    }
    Ok(())
}

/// Convolutions, fully connected layers and pools; the rest go on.
fn layer(
    b: &mut Builder,
    a: &mut Args,
    repeat: u64,
    name: &dyn Fn(u64) -> String,
) -> Result<(), Failure> {
    match a.op {
        "conv" | "dwconv" => {
            let out = if a.op == "conv" {
                Some(a.whole("the output channels")?)
            } else {
                None
            };
            let (k, slash) = a.dims("a kernel KxK", 2)?;
            // Groups for a convolution, a depth multiplier for a depthwise one.
            let per = if out.is_some() { "g" } else { "m" };
            let o = a.opts(&["s", per, "valid", "same", "bias", "nobias", "bn", "nobn"])?;
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
                b.conv(name(i), a.op, &conv)?;
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
                b.fc(name(i), out, n)?;
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
                b.pool(name(i), win)?;
            }
        }
        _ => return transformer_or_block(b, a, repeat, name),
    }
    Ok(())
}

/// Bias and BatchNorm of a convolution: its own words, else the defaults.
fn norms(b: &Builder, o: &Opts) -> Norms {
    Norms {
        bias: o.bias.unwrap_or(b.defaults.bias),
        bn: o.bn.unwrap_or(b.defaults.bn),
    }
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
                b.embed(name(i), d[0], d[1], o.add)?;
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
                b.cls(name(i), k)?;
            }
        }
        "patchify" => {
            let p = a.whole("a patch size")?;
            let d = a.whole("a width")?;
            a.opts(&[])?;
            for i in 0..repeat {
                b.patchify(name(i), p, d)?;
            }
        }
        "layernorm" | "softmax" => {
            a.opts(&[])?;
            for i in 0..repeat {
                match a.op {
                    "layernorm" => b.layernorm(name(i))?,
                    _ => b.softmax(name(i))?,
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
