//! The checkpoint's weight precision: `quantization_config` (fp8, AWQ and
//! GPTQ integers, bitsandbytes, MXFP4, compressed-tensors) when the
//! weights are quantized, else `torch_dtype` (`dtype` in newer configs).

use super::config::Config;
use crate::solver::Precision;
use serde_json::{Map, Value};

/// The weight precision and the keys it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    pub precision: Precision,
    /// "quantization_config: awq, 4 bits", "torch_dtype bfloat16".
    pub from: String,
}

/// The weights' precision, if the config says; a note when it names a
/// quantization this reader does not know.
pub fn read(cfg: &mut Config, notes: &mut Vec<String>) -> Option<Weights> {
    if let Some((q, path)) = cfg.object("quantization_config") {
        let method = q
            .get("quant_method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        match quantized(&method, q) {
            Some((p, what)) => {
                cfg.note_used(format!("{path}.quant_method"), format!("{method:?}"));
                return Some(Weights {
                    precision: p,
                    from: format!("quantization_config: {what}"),
                });
            }
            None => notes.push(format!(
                "quantization_config names quant_method {method:?}, which ridgeline does not read; the weight precision comes from torch_dtype (set it with --weights)"
            )),
        }
    }
    let dtype = cfg.text(&["torch_dtype", "dtype"])?;
    let p = match dtype.as_str() {
        "bfloat16" => Precision::Bf16,
        "float16" | "half" => Precision::Fp16,
        "float32" | "float" => Precision::Fp32,
        "float8_e4m3fn" | "float8_e5m2" => Precision::Fp8,
        _ => {
            notes.push(format!(
                "torch_dtype {dtype:?} is not a weight format ridgeline knows; set it with --weights"
            ));
            return None;
        }
    };
    Some(Weights {
        precision: p,
        from: format!("torch_dtype {dtype}"),
    })
}

/// A quantization method and its settings to a precision.
fn quantized(method: &str, q: &Map<String, Value>) -> Option<(Precision, String)> {
    let bits = q.get("bits").and_then(Value::as_u64);
    let by_bits = |bits: Option<u64>| match bits.unwrap_or(4) {
        b if b <= 4 => Precision::Int4,
        _ => Precision::Int8,
    };
    Some(match method {
        "fp8" | "fbgemm_fp8" => {
            let fmt = q.get("fmt").and_then(Value::as_str).unwrap_or("e4m3");
            (Precision::Fp8, format!("{method} ({fmt})"))
        }
        "mxfp4" => (Precision::Fp4, "mxfp4".into()),
        "awq" | "gptq" | "aqlm" | "exl2" | "hqq" => {
            let p = by_bits(bits);
            (p, format!("{method}, {} bits", bits.unwrap_or(4)))
        }
        "eetq" => (Precision::Int8, "eetq, 8 bits".into()),
        "bitsandbytes" => {
            let four = q.get("load_in_4bit").and_then(Value::as_bool) == Some(true);
            if four {
                let t = q
                    .get("bnb_4bit_quant_type")
                    .and_then(Value::as_str)
                    .unwrap_or("nf4");
                let p = if t == "fp4" {
                    Precision::Fp4
                } else {
                    Precision::Int4
                };
                (p, format!("bitsandbytes 4-bit ({t})"))
            } else {
                (Precision::Int8, "bitsandbytes 8-bit".into())
            }
        }
        "compressed-tensors" => compressed_tensors(q)?,
        _ => return None,
    })
}

/// compressed-tensors: the weights of its first config group (bits and
/// float or int).
fn compressed_tensors(q: &Map<String, Value>) -> Option<(Precision, String)> {
    let groups = q.get("config_groups")?.as_object()?;
    let weights = groups.values().find_map(|g| g.get("weights"))?;
    let bits = weights.get("num_bits").and_then(Value::as_u64)?;
    let float = weights.get("type").and_then(Value::as_str) == Some("float");
    let p = match (bits, float) {
        (b, true) if b <= 4 => Precision::Fp4,
        (_, true) => Precision::Fp8,
        (b, false) if b <= 4 => Precision::Int4,
        _ => Precision::Int8,
    };
    let kind = if float { "float" } else { "int" };
    Some((p, format!("compressed-tensors, {bits}-bit {kind}")))
}
