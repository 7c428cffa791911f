//! The layers a graph statement adds: the shape flowing through the network
//! and, for each layer, its FLOPs, parameters and activation elements read
//! and written per sample (catalog/SCHEMA.md, "Layer lists").
//!
//! Conventions: a multiply-add counts 2 FLOPs. BatchNorm is folded into
//! the convolution before it and activation functions run in its epilogue
//! (inference), so they are no layers and no FLOPs, as in the published
//! counts (torchvision's `_ops`, the papers' tables). Elementwise layers
//! count as DeepSpeed's flops profiler does
//! (deepspeed/profiling/flops_profiler/profiler.py): an add, a scale or a
//! softmax one FLOP per element, a pooling one per element read, a
//! LayerNorm 5 per element (fvcore's `norm_flop_counter` with an affine).

use crate::solver::Layer;

/// Largest dimension of a map or sequence (channels, height, width,
/// tokens, vocabulary rows): every product of a few of them stays finite.
pub const MAX_DIM: u64 = 1 << 24;
/// Most layers one graph may expand to.
pub const MAX_LAYERS: usize = 100_000;
/// Most residual branches open at once.
const MAX_OPEN: usize = 64;

/// A feature map, channels x height x width. A token sequence is
/// width x tokens x 1: each token a position, so a fully connected layer
/// over tokens is a 1x1 convolution over positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub c: u64,
    pub h: u64,
    pub w: u64,
}

impl Shape {
    pub fn elements(self) -> f64 {
        self.c as f64 * self.h as f64 * self.w as f64
    }

    pub fn positions(self) -> f64 {
        self.h as f64 * self.w as f64
    }

    pub fn text(self) -> String {
        format!("{}x{}x{}", self.c, self.h, self.w)
    }

    fn check(self) -> Result<Shape, String> {
        if self.c.max(self.h).max(self.w) > MAX_DIM {
            return Err(format!(
                "the output {} has a dimension over {MAX_DIM}",
                self.text()
            ));
        }
        Ok(self)
    }
}

/// `prefix.part`, the name of a layer inside a block (sized once: a
/// catalog load names about a thousand layers).
pub fn join(prefix: &str, part: &str) -> String {
    let mut s = String::with_capacity(prefix.len() + 1 + part.len());
    s.push_str(prefix);
    s.push('.');
    s.push_str(part);
    s
}

/// Whether convolutions carry a bias and a (folded) BatchNorm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Norms {
    pub bias: bool,
    pub bn: bool,
}

/// A convolution's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv {
    pub out: u64,
    pub kh: u64,
    pub kw: u64,
    pub stride: u64,
    pub groups: u64,
    /// No padding (out = (in - k) / s + 1); otherwise "same" (out = ceil(in / s)).
    pub valid: bool,
    pub norms: Norms,
}

impl Conv {
    /// A 1x1 convolution to `out` channels.
    pub fn pointwise(out: u64, stride: u64, norms: Norms) -> Conv {
        Conv {
            out,
            kh: 1,
            kw: 1,
            stride,
            groups: 1,
            valid: false,
            norms,
        }
    }

    /// A k x k convolution to `out` channels with "same" padding.
    pub fn square(out: u64, k: u64, stride: u64, norms: Norms) -> Conv {
        Conv {
            kh: k,
            kw: k,
            ..Conv::pointwise(out, stride, norms)
        }
    }
}

/// The output length of a window over `input`.
fn window(input: u64, k: u64, s: u64, valid: bool) -> Result<u64, String> {
    if !valid {
        return Ok(input.div_ceil(s));
    }
    if k > input {
        return Err(format!(
            "a {k}-wide window does not fit in {input} without padding"
        ));
    }
    Ok((input - k) / s + 1)
}

/// A pooling layer's window, or the whole map (`global`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Global,
    Sized {
        kh: u64,
        kw: u64,
        stride: u64,
        valid: bool,
    },
}

/// Builds a layer list statement by statement, keeping the current shape.
#[derive(Debug)]
pub struct Builder {
    shape: Option<Shape>,
    saved: Vec<Shape>,
    pub layers: Vec<Layer>,
    /// Parameters held but not read by a pass (embedding rows no token
    /// looks up).
    pub held: f64,
    pub defaults: Norms,
}

type R<T = ()> = Result<T, String>;

impl Default for Builder {
    fn default() -> Self {
        Builder {
            shape: None,
            saved: Vec::new(),
            layers: Vec::new(),
            held: 0.0,
            defaults: Norms {
                bias: false,
                bn: true,
            },
        }
    }
}

impl Builder {
    /// The shape flowing out of the last statement.
    pub fn shape(&self) -> R<Shape> {
        self.shape.ok_or_else(|| {
            "nothing flows in yet: start the graph with `input CxHxW` or `tokens N`".to_string()
        })
    }

    /// Residual branches opened and not yet added back.
    pub fn open_branches(&self) -> usize {
        self.saved.len()
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        name: String,
        op: &str,
        flops: f64,
        params: f64,
        inputs: f64,
        outputs: f64,
        out: Shape,
    ) -> R {
        if self.layers.len() >= MAX_LAYERS {
            return Err(format!(
                "the graph expands to more than {MAX_LAYERS} layers"
            ));
        }
        self.shape = Some(out.check()?);
        self.layers.push(Layer {
            name,
            op: op.to_string(),
            flops,
            params,
            inputs,
            outputs,
        });
        Ok(())
    }

    /// The input: an image (channels x height x width) or N token ids.
    pub fn input(&mut self, s: Shape) -> R {
        if self.shape.is_some() {
            return Err(
                "the graph already has its input; `input` and `tokens` come once, first".into(),
            );
        }
        self.shape = Some(s.check()?);
        Ok(())
    }

    /// A convolution (`op` "conv" or "dwconv") of the current map.
    pub fn conv(&mut self, name: String, op: &str, c: &Conv) -> R {
        let from = self.shape()?;
        self.conv_of(name, op, from, c)
    }

    /// A convolution of `from` (the current map, or a saved one for a
    /// shortcut projection).
    fn conv_of(&mut self, name: String, op: &str, from: Shape, c: &Conv) -> R {
        let g = c.groups;
        if !from.c.is_multiple_of(g) || !c.out.is_multiple_of(g) {
            return Err(format!(
                "{g} groups must divide the {} input and {} output channels",
                from.c, c.out
            ));
        }
        let out = Shape {
            c: c.out,
            h: window(from.h, c.kh, c.stride, c.valid)?,
            w: window(from.w, c.kw, c.stride, c.valid)?,
        };
        let per_output = (from.c / g) as f64 * (c.kh * c.kw) as f64;
        let weights = c.out as f64 * per_output;
        let extra = c.out as f64 * (u8::from(c.norms.bias) + 2 * u8::from(c.norms.bn)) as f64;
        self.push(
            name,
            op,
            2.0 * out.elements() * per_output,
            weights + extra,
            from.elements(),
            out.elements(),
            out,
        )
    }

    /// A fully connected layer applied at every position (token).
    pub fn fc(&mut self, name: String, out: u64, norms: Norms) -> R {
        let from = self.shape()?;
        let to = Shape { c: out, ..from };
        let extra = out as f64 * (u8::from(norms.bias) + 2 * u8::from(norms.bn)) as f64;
        self.push(
            name,
            "fc",
            2.0 * from.elements() * out as f64,
            from.c as f64 * out as f64 + extra,
            from.elements(),
            to.elements(),
            to,
        )
    }

    /// Max or average pooling: one FLOP per element read.
    pub fn pool(&mut self, name: String, win: Window) -> R {
        let from = self.shape()?;
        let to = match win {
            Window::Global => Shape {
                c: from.c,
                h: 1,
                w: 1,
            },
            Window::Sized {
                kh,
                kw,
                stride,
                valid,
            } => Shape {
                c: from.c,
                h: window(from.h, kh, stride, valid)?,
                w: window(from.w, kw, stride, valid)?,
            },
        };
        let n = from.elements();
        self.push(name, "pool", n, 0.0, n, to.elements(), to)
    }

    /// Fold a map into one vector (a view: no layer).
    pub fn flatten(&mut self) -> R {
        let s = self.shape()?;
        let c = s.c.saturating_mul(s.h).saturating_mul(s.w);
        self.shape = Some(Shape { c, h: 1, w: 1 }.check()?);
        Ok(())
    }

    /// Keep the first position (BERT's and ViT's [CLS] token; a view).
    pub fn first(&mut self) -> R {
        let s = self.shape()?;
        self.shape = Some(Shape { c: s.c, h: 1, w: 1 });
        Ok(())
    }

    /// Open a residual branch: the current map is added back by [`Builder::add`].
    pub fn branch(&mut self) -> R {
        let s = self.shape()?;
        if self.saved.len() >= MAX_OPEN {
            return Err(format!("more than {MAX_OPEN} branches open at once"));
        }
        self.saved.push(s);
        Ok(())
    }

    /// Close the last branch: add its saved map to the current one (reads
    /// both, writes one). When the shapes differ, `proj` projects the saved
    /// map with a 1x1 convolution named `prefix.downsample` (the stride
    /// follows from the sizes).
    pub fn add(&mut self, name: String, prefix: &str, proj: Option<Norms>) -> R {
        let cur = self.shape()?;
        let Some(saved) = self.saved.pop() else {
            return Err("`add` closes a residual branch, but none is open; write `branch` where the shortcut starts".into());
        };
        if saved != cur {
            let Some(norms) = proj else {
                return Err(format!(
                    "the shortcut carries {} and the branch {}; write `add proj` to project it with a 1x1 convolution",
                    saved.text(),
                    cur.text()
                ));
            };
            let stride = saved.h.div_ceil(cur.h).max(1);
            let conv = Conv::pointwise(cur.c, stride, norms);
            let projected = Shape {
                c: cur.c,
                h: saved.h.div_ceil(stride),
                w: saved.w.div_ceil(stride),
            };
            if projected != cur {
                return Err(format!(
                    "a 1x1 projection cannot turn the shortcut's {} into {}",
                    saved.text(),
                    cur.text()
                ));
            }
            self.conv_of(join(prefix, "downsample"), "conv", saved, &conv)?;
        }
        let n = cur.elements();
        self.push(name, "add", n, 0.0, 2.0 * n, n, cur)
    }

    /// Scale `map` channel by channel by the current C x 1 x 1 vector
    /// (squeeze-excitation): reads both, writes the map.
    pub fn scale(&mut self, name: String, map: Shape) -> R {
        let v = self.shape()?;
        if v.c != map.c {
            return Err(format!(
                "{} channel weights cannot scale {}",
                v.c,
                map.text()
            ));
        }
        let n = map.elements();
        self.push(name, "mul", n, 0.0, n + v.elements(), n, map)
    }

    /// Look up the rows of a `vocab` x `dim` table for each token; with
    /// `add`, add them to the current vectors (positions, segments). A
    /// pass reads at most min(tokens, vocab) rows: those are the layer's
    /// parameters, the rest are held.
    pub fn embed(&mut self, name: String, vocab: u64, dim: u64, add: bool) -> R {
        let cur = self.shape()?;
        let tokens = cur.positions();
        let rows = tokens.min(vocab as f64);
        let to = Shape { c: dim, ..cur };
        self.held += (vocab as f64 - rows) * dim as f64;
        let params = rows * dim as f64;
        if add {
            if cur.c != dim {
                return Err(format!(
                    "rows of width {dim} cannot be added to vectors of width {}",
                    cur.c
                ));
            }
            let n = to.elements();
            return self.push(name, "add", n, params, n, n, to);
        }
        if cur.c != 1 {
            return Err(format!(
                "a lookup reads token ids; the input here is {} (start with `tokens N`)",
                cur.text()
            ));
        }
        self.push(name, "embed", 0.0, params, tokens, to.elements(), to)
    }

    /// Prepend `k` learned tokens (ViT's [CLS]).
    pub fn cls(&mut self, name: String, k: u64) -> R {
        let cur = self.shape()?;
        if cur.w != 1 {
            return Err(format!(
                "tokens are prepended to a sequence, not to the map {}",
                cur.text()
            ));
        }
        let to = Shape {
            h: cur.h + k,
            ..cur
        };
        let params = (k * cur.c) as f64;
        self.push(
            name,
            "concat",
            0.0,
            params,
            cur.elements(),
            to.elements(),
            to,
        )
    }

    /// A LayerNorm over each token's vector: 5 FLOPs per element, a scale
    /// and a shift per channel.
    pub fn layernorm(&mut self, name: String) -> R {
        let s = self.shape()?;
        let n = s.elements();
        self.push(name, "layernorm", 5.0 * n, 2.0 * s.c as f64, n, n, s)
    }

    /// A softmax over the current tensor: one FLOP per element.
    pub fn softmax(&mut self, name: String) -> R {
        let s = self.shape()?;
        let n = s.elements();
        self.push(name, "softmax", n, 0.0, n, n, s)
    }

    /// Multi-head attention over N tokens whose vectors hold q, k and v
    /// (3 D wide): scores q.k^T (H x N x N), their softmax, and the values
    /// p.v back to N x D. 2 N^2 D FLOPs for each product.
    pub fn attention(&mut self, prefix: &str, heads: u64) -> R {
        let s = self.shape()?;
        if !s.c.is_multiple_of(3) || !(s.c / 3).is_multiple_of(heads) {
            return Err(format!(
                "attention reads q, k and v of equal width from each token; {} channels are not 3 x a multiple of {heads} heads (put `fc 3D` before it)",
                s.c
            ));
        }
        let d = s.c / 3;
        let n = s.positions();
        let dd = d as f64;
        let scores = Shape {
            c: heads,
            h: s.h * s.w,
            w: s.h * s.w,
        };
        let out = Shape { c: d, ..s };
        self.push(
            join(prefix, "scores"),
            "attention",
            2.0 * n * n * dd,
            0.0,
            2.0 * n * dd,
            scores.elements(),
            scores.check()?,
        )?;
        self.softmax(join(prefix, "softmax"))?;
        self.push(
            join(prefix, "values"),
            "attention",
            2.0 * n * n * dd,
            0.0,
            scores.elements() + n * dd,
            out.elements(),
            out,
        )
    }

    /// Cut the image into p x p patches and project each to `dim` (a
    /// p x p convolution of stride p with a bias); the patches become
    /// tokens.
    pub fn patchify(&mut self, name: String, p: u64, dim: u64) -> R {
        let conv = Conv {
            out: dim,
            kh: p,
            kw: p,
            stride: p,
            groups: 1,
            valid: true,
            norms: Norms {
                bias: true,
                bn: false,
            },
        };
        self.conv(name, "conv", &conv)?;
        let s = self.shape()?;
        self.shape = Some(
            Shape {
                c: s.c,
                h: s.h * s.w,
                w: 1,
            }
            .check()?,
        );
        Ok(())
    }
}
