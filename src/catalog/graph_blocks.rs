//! Blocks a graph names in one statement, each expanded into the layers of
//! its reference implementation: ResNet's basic and bottleneck blocks
//! (torchvision `resnet.py`), the inverted residual of MobileNetV2 and
//! EfficientNet (torchvision `mobilenetv2.py`, `efficientnet.py`), the
//! depthwise-separable pair of MobileNetV1 and DS-CNN (the MLPerf Tiny
//! Keras models), and a transformer encoder layer (BERT, ViT).

use super::ops::{Builder, Conv, Norms, Window, join};

type R = Result<(), String>;

/// Bias and BatchNorm of the small fully connected layers inside a block
/// (squeeze-excitation, attention and MLP projections): a bias, no norm.
const BIASED: Norms = Norms {
    bias: true,
    bn: false,
};

/// ResNet's basic block: two 3x3 convolutions (the first strided), the
/// shortcut (a 1x1 projection with `proj` norms when the shape changes)
/// and the residual add.
pub fn basic(b: &mut Builder, p: &str, out: u64, stride: u64, proj: Norms) -> R {
    let d = b.defaults;
    b.branch()?;
    b.conv(join(p, "conv1"), "conv", &Conv::square(out, 3, stride, d))?;
    b.conv(join(p, "conv2"), "conv", &Conv::square(out, 3, 1, d))?;
    b.add(join(p, "add"), p, Some(proj))
}

/// ResNet's bottleneck block (v1.5: the stride on the 3x3): 1x1 to
/// `width`, 3x3, 1x1 to `out`, the shortcut and the residual add.
pub fn bottleneck(b: &mut Builder, p: &str, width: u64, out: u64, stride: u64, proj: Norms) -> R {
    let d = b.defaults;
    b.branch()?;
    b.conv(join(p, "conv1"), "conv", &Conv::pointwise(width, 1, d))?;
    b.conv(join(p, "conv2"), "conv", &Conv::square(width, 3, stride, d))?;
    b.conv(join(p, "conv3"), "conv", &Conv::pointwise(out, 1, d))?;
    b.add(join(p, "add"), p, Some(proj))
}

/// The inverted residual (MBConv) block's settings.
pub struct MbConv {
    pub out: u64,
    pub expand: u64,
    pub kernel: u64,
    pub stride: u64,
    /// Squeeze-excitation to a quarter of the block's input channels
    /// (EfficientNet: `max(1, input_channels // 4)`).
    pub se: bool,
}

/// The inverted residual: a 1x1 expansion (when the ratio is not 1), a
/// k x k depthwise convolution (strided), squeeze-excitation if asked, a
/// linear 1x1 projection, and the residual add when the stride is 1 and
/// the channels stay.
pub fn mbconv(b: &mut Builder, p: &str, m: &MbConv) -> R {
    let d = b.defaults;
    let cin = b.shape()?.c;
    let hidden = cin
        .checked_mul(m.expand)
        .ok_or("the expanded width overflows")?;
    let residual = m.stride == 1 && cin == m.out;
    if residual {
        b.branch()?;
    }
    if m.expand != 1 {
        b.conv(join(p, "expand"), "conv", &Conv::pointwise(hidden, 1, d))?;
    }
    let dw = Conv {
        groups: hidden,
        ..Conv::square(hidden, m.kernel, m.stride, d)
    };
    b.conv(join(p, "dw"), "dwconv", &dw)?;
    if m.se {
        let map = b.shape()?;
        b.pool(join(p, "se.pool"), Window::Global)?;
        b.fc(join(p, "se.reduce"), (cin / 4).max(1), BIASED)?;
        b.fc(join(p, "se.expand"), hidden, BIASED)?;
        b.scale(join(p, "se.scale"), map)?;
    }
    b.conv(join(p, "project"), "conv", &Conv::pointwise(m.out, 1, d))?;
    if residual {
        b.add(join(p, "add"), p, None)?;
    }
    Ok(())
}

/// A depthwise-separable pair: a k x k depthwise convolution (strided) and
/// a 1x1 pointwise convolution to `out` (MobileNetV1, DS-CNN).
pub fn dwsep(b: &mut Builder, p: &str, out: u64, kernel: u64, stride: u64) -> R {
    let d = b.defaults;
    let c = b.shape()?.c;
    let dw = Conv {
        groups: c,
        ..Conv::square(c, kernel, stride, d)
    };
    b.conv(join(p, "dw"), "dwconv", &dw)?;
    b.conv(join(p, "pw"), "conv", &Conv::pointwise(out, 1, d))
}

/// A transformer encoder layer over the current tokens (width D): the
/// q, k, v projection (D to 3D), attention over `heads` heads, the output
/// projection, the residual add, then the MLP (D to `ffn` and back, GELU
/// fused) and its add, each with a LayerNorm: after the add (`pre` false:
/// BERT, the original Transformer) or before the branch (`pre` true: ViT).
pub fn encoder(b: &mut Builder, p: &str, heads: u64, ffn: u64, pre: bool) -> R {
    let d = b.shape()?.c;
    for (half, norm, add) in [("attn", "norm1", "attn.add"), ("mlp", "norm2", "mlp.add")] {
        b.branch()?;
        if pre {
            b.layernorm(join(p, norm))?;
        }
        if half == "attn" {
            b.fc(join(p, "qkv"), 3 * d, BIASED)?;
            b.attention(&join(p, "attn"), heads)?;
            b.fc(join(p, "out"), d, BIASED)?;
        } else {
            b.fc(join(p, "fc1"), ffn, BIASED)?;
            b.fc(join(p, "fc2"), d, BIASED)?;
        }
        b.add(join(p, add), p, None)?;
        if !pre {
            b.layernorm(join(p, norm))?;
        }
    }
    Ok(())
}
