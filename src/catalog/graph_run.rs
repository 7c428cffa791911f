//! Running a statement: its arguments read once into a step, and the step
//! run as many times as the statement repeats.

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

/// What a statement adds each time it runs, given the repetition (0 for
/// the first, which alone takes a stride, as a ResNet stage downsamples in
/// its first block) and the name of its layer or block.
type Step = Box<dyn Fn(&mut Builder, u64, String) -> Result<(), String>>;

/// Run a statement `repeat` times, naming its layers `label` (once) or
/// `label.i` (repeated).
pub(super) fn run(b: &mut Builder, a: &mut Args, label: &str, repeat: u64) -> Result<(), Failure> {
    let step = match a.op {
        "input" | "tokens" | "defaults" | "flatten" | "first" | "branch" => return shaping(b, a),
        "conv" | "dwconv" | "fc" | "linear" | "maxpool" | "avgpool" | "add" => layer(b, a)?,
        "embed" | "cls" | "patchify" | "layernorm" | "softmax" | "attention" => transformer(a)?,
        _ => block(b, a)?,
    };
    for i in 0..repeat {
        let name = if repeat > 1 {
            format!("{label}.{i}")
        } else {
            label.to_string()
        };
        step(b, i, name)?;
    }
    Ok(())
}

/// `s` the first time, 1 after.
fn first(i: u64, s: u64) -> u64 {
    if i == 0 { s } else { 1 }
}

/// The statements that shape the graph and add no layer.
fn shaping(b: &mut Builder, a: &mut Args) -> Result<(), Failure> {
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
        op => {
            a.opts(&[])?;
            match op {
                "flatten" => b.flatten()?,
                "first" => b.first()?,
                _ => b.branch()?,
            }
        }
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

/// Convolutions, fully connected layers, pools and residual adds.
fn layer(b: &Builder, a: &mut Args) -> Result<Step, Failure> {
    Ok(match a.op {
        "conv" | "dwconv" => {
            let depthwise = a.op == "dwconv";
            let out = if depthwise {
                0
            } else {
                a.whole("the output channels")?
            };
            let (k, slash) = a.dims("a kernel KxK", 2)?;
            // Groups for a convolution, a depth multiplier for a depthwise one.
            let per = if depthwise { "m" } else { "g" };
            let o = a.opts(&["s", per, "valid", "same", "bias", "nobias", "bn", "nobn"])?;
            let stride = o.stride.or(slash).unwrap_or(1);
            let norms = norms(b, &o);
            Box::new(move |b, i, name| {
                let c = b.shape()?.c;
                let (out, groups) = if depthwise {
                    (c.saturating_mul(o.mult.unwrap_or(1)), c)
                } else {
                    (out, o.groups.unwrap_or(1))
                };
                let conv = Conv {
                    out,
                    kh: k[0],
                    kw: k[1],
                    stride: first(i, stride),
                    groups,
                    valid: o.valid,
                    norms,
                };
                b.conv(name, if depthwise { "dwconv" } else { "conv" }, &conv)
            })
        }
        "fc" | "linear" => {
            let out = a.whole("the output width")?;
            let o = a.opts(&["bias", "nobias", "bn", "nobn"])?;
            let n = Norms {
                bias: o.bias.unwrap_or(true),
                bn: o.bn.unwrap_or(false),
            };
            Box::new(move |b, _, name| b.fc(name, out, n))
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
            Box::new(move |b, _, name| b.pool(name, win))
        }
        _ => {
            // "add"
            let o = a.opts(&["proj", "proj-nobn"])?;
            let proj = o.proj.map(|bn| Norms {
                bn: bn && b.defaults.bn,
                ..b.defaults
            });
            Box::new(move |b, _, name| {
                let prefix = name.clone();
                b.add(name, &prefix, proj)
            })
        }
    })
}

/// The transformer pieces.
fn transformer(a: &mut Args) -> Result<Step, Failure> {
    Ok(match a.op {
        "embed" => {
            let (d, _) = a.dims("a table VxD (rows x width)", 2)?;
            let add = a.opts(&["add"])?.add;
            Box::new(move |b, _, name| b.embed(name, d[0], d[1], add))
        }
        "cls" => {
            let k = if a.toks.len() > a.next {
                a.whole("a token count")?
            } else {
                1
            };
            a.opts(&[])?;
            Box::new(move |b, _, name| b.cls(name, k))
        }
        "patchify" => {
            let p = a.whole("a patch size")?;
            let d = a.whole("a width")?;
            a.opts(&[])?;
            Box::new(move |b, _, name| b.patchify(name, p, d))
        }
        "attention" => {
            let h = a.whole("a head count")?;
            a.opts(&[])?;
            Box::new(move |b, _, name| b.attention(&name, h))
        }
        op => {
            a.opts(&[])?;
            if op == "layernorm" {
                Box::new(|b, _, name| b.layernorm(name))
            } else {
                Box::new(|b, _, name| b.softmax(name))
            }
        }
    })
}

/// The blocks of [`blocks`].
fn block(b: &Builder, a: &mut Args) -> Result<Step, Failure> {
    let proj = |o: &Opts| Norms {
        bn: o.proj.unwrap_or(true) && b.defaults.bn,
        ..b.defaults
    };
    Ok(match a.op {
        "basic" | "bottleneck" => {
            let width = if a.op == "bottleneck" {
                Some(a.whole("the inner width")?)
            } else {
                None
            };
            let out = a.whole("the output channels")?;
            let o = a.opts(&["s", "proj-nobn"])?;
            let (s, proj) = (o.stride.unwrap_or(1), proj(&o));
            Box::new(move |b, i, name| match width {
                Some(w) => blocks::bottleneck(b, &name, w, out, first(i, s), proj),
                None => blocks::basic(b, &name, out, first(i, s), proj),
            })
        }
        "mbconv" => {
            let out = a.whole("the output channels")?;
            let o = a.opts(&["t", "k", "s", "se"])?;
            let Some(expand) = o.expand else {
                let msg = format!(
                    "`mbconv` needs its expansion ratio, like t6; write {}",
                    a.usage
                );
                return Err(Failure::Syntax(bad(a.end, msg)));
            };
            Box::new(move |b, i, name| {
                let m = blocks::MbConv {
                    out,
                    expand,
                    kernel: o.kernel.unwrap_or(3),
                    stride: first(i, o.stride.unwrap_or(1)),
                    se: o.se,
                };
                blocks::mbconv(b, &name, &m)
            })
        }
        "dwsep" => {
            let out = a.whole("the output channels")?;
            let o = a.opts(&["k", "s"])?;
            let (k, s) = (o.kernel.unwrap_or(3), o.stride.unwrap_or(1));
            Box::new(move |b, i, name| blocks::dwsep(b, &name, out, k, first(i, s)))
        }
        _ => {
            // "encoder": the last entry of USAGE.
            let heads = a.whole("a head count")?;
            let ffn = a.whole("the MLP width")?;
            let pre = a.opts(&["pre", "post"])?.pre;
            Box::new(move |b, _, name| blocks::encoder(b, &name, heads, ffn, pre))
        }
    })
}
