//! Checks of every input the solver reads: hardware figures, a model's
//! shape, the workload knobs, the layout against the model, and the
//! assumptions. Each failure names the field, the value and what is
//! expected, so no later formula meets a zero, a NaN or an absurd figure.

use super::error::{self, Result, SolverError};
use super::fit;
use super::types::{Arch, Assumptions, Hardware, Model, Phase, Precision, Workload};

/// Largest batch, context and parallel degree accepted: beyond these a
/// figure is a typo, not a workload.
pub const MAX_BATCH: f64 = 1e9;
pub const MAX_CONTEXT: f64 = 1e9;
pub const MAX_DEGREE: u32 = 65536;

/// Check the hardware figures the solver uses.
pub fn validate_hardware(hw: &Hardware) -> Result<()> {
    error::positive("memory capacity", hw.memory_bytes)?;
    error::positive("memory bandwidth", hw.memory_bandwidth)?;
    if let Some(l) = hw.link_bandwidth {
        error::positive("link bandwidth", l)?;
    }
    if let Some(l) = hw.scaleout_bandwidth {
        error::positive("scale-out bandwidth", l)?;
    }
    let mut any = false;
    for p in Precision::ALL {
        if let Some(v) = hw.peaks.get(p) {
            error::positive("peak FLOP/s", v)?;
            any = true;
        }
    }
    if !any {
        return Err(SolverError::Unsupported(format!(
            "{} has no peak FLOP/s at any precision",
            hw.id
        )));
    }
    Ok(())
}

/// Check the model's shape.
pub fn validate_model(model: &Model) -> Result<()> {
    error::positive("parameters", model.params)?;
    match &model.arch {
        Arch::Decoder(d) => {
            for (field, v) in [
                ("layers", d.layers),
                ("hidden size", d.hidden),
                ("heads", d.heads),
                ("KV heads", d.kv_heads),
                ("head dim", d.head_dim),
                ("vocabulary", d.vocab),
            ] {
                error::positive(field, v as f64)?;
            }
            if let Some(m) = d.moe {
                if m.experts < 2 || m.top_k == 0 || m.top_k >= m.experts {
                    return Err(SolverError::Unsupported(format!(
                        "{}: an MoE needs 0 < top-k < experts, got top-k {} of {}",
                        model.id, m.top_k, m.experts
                    )));
                }
                error::positive("active parameters", m.active_params)?;
                if m.active_params >= model.params {
                    return Err(SolverError::Unsupported(format!(
                        "{}: active parameters must be fewer than total parameters",
                        model.id
                    )));
                }
                // total = dense + E x and active = dense + k x must leave a
                // dense part at least as large as the embedding table.
                let (e, k) = (m.experts as f64, m.top_k as f64);
                let dense = model.params - e * (model.params - m.active_params) / (e - k);
                if dense < d.gathered_params() {
                    return Err(SolverError::Unsupported(format!(
                        "{}: total {} and active {} parameters with top-{} of {} experts leave no room for the embedding table; check the figures",
                        model.id, model.params, m.active_params, m.top_k, m.experts
                    )));
                }
            }
            if d.gathered_params() >= model.params {
                return Err(SolverError::Unsupported(format!(
                    "{}: the embedding table is larger than the whole model",
                    model.id
                )));
            }
        }
        Arch::SinglePass(s) => {
            error::positive("FLOPs per sample", s.flops_per_sample)?;
            error::non_negative(
                "activation elements per sample",
                s.activation_elements_per_sample,
            )?;
        }
    }
    Ok(())
}

/// Check the workload knobs.
pub fn validate_workload(wl: &Workload) -> Result<()> {
    error::bounded("batch", wl.batch, MAX_BATCH, "between 1 and 1e9")?;
    error::non_negative("context", wl.context)?;
    if wl.context > MAX_CONTEXT {
        return Err(SolverError::Invalid {
            field: "context",
            value: wl.context,
            expected: "at most 1e9 tokens",
        });
    }
    if wl.phase == Phase::Prefill {
        error::positive("prompt length (context)", wl.context)?;
    }
    if wl.tp > MAX_DEGREE || wl.pp > MAX_DEGREE {
        return Err(SolverError::Invalid {
            field: "parallel degree",
            value: wl.tp.max(wl.pp) as f64,
            expected: "at most 65536 devices",
        });
    }
    let devices = wl.tp as u64 * wl.pp as u64;
    if devices > MAX_DEGREE as u64 {
        return Err(SolverError::Unsupported(format!(
            "TP {} x PP {} is {devices} devices; at most {MAX_DEGREE}",
            wl.tp, wl.pp
        )));
    }
    if wl.tp == 0 {
        return Err(SolverError::Invalid {
            field: "tensor parallelism",
            value: 0.0,
            expected: "a whole number of devices, 1 or more",
        });
    }
    if wl.pp == 0 {
        return Err(SolverError::Invalid {
            field: "pipeline parallelism",
            value: 0.0,
            expected: "a whole number of devices, 1 or more",
        });
    }
    Ok(())
}

/// Check that the layout can split this model: tensor parallelism divides
/// the attention heads (and the KV heads divide it, or it divides them, so
/// each KV head lives on a whole number of ranks); pipeline stages are at
/// most the layers. (tp x pp is at most 65536: [`validate_workload`].)
pub fn validate_layout(model: &Model, wl: &Workload) -> Result<()> {
    let Arch::Decoder(d) = &model.arch else {
        return Ok(());
    };
    if !d.heads.is_multiple_of(wl.tp) {
        return Err(SolverError::Unsupported(format!(
            "tensor parallelism {} does not divide the {} attention heads of {}: use one of {}",
            wl.tp,
            d.heads,
            model.id,
            list(&fit::valid_tp_degrees(model, d.heads))
        )));
    }
    if !fit::tp_splits(model, wl.tp) {
        return Err(SolverError::Unsupported(format!(
            "tensor parallelism {} splits the {} KV heads of {} unevenly (neither divides the other): use one of {}",
            wl.tp,
            d.kv_heads,
            model.id,
            list(&fit::valid_tp_degrees(model, d.heads))
        )));
    }
    if wl.pp > d.layers {
        return Err(SolverError::Unsupported(format!(
            "{} pipeline stages for the {} layers of {}: at most one stage per layer",
            wl.pp, d.layers, model.id
        )));
    }
    Ok(())
}

/// "1, 2, 4 or 8".
fn list(v: &[u32]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    match s.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => s.join(""),
    }
}

/// Check the assumptions.
pub fn validate_assumptions(a: &Assumptions) -> Result<()> {
    error::fraction("compute efficiency", a.compute_efficiency)?;
    error::fraction("memory efficiency", a.memory_efficiency)?;
    error::fraction("link efficiency", a.link_efficiency)?;
    error::non_negative("overhead", a.overhead_s)?;
    error::non_negative("link latency", a.link_latency_s)?;
    error::fraction("usable memory fraction", a.usable_memory)?;
    error::unit_interval("overlap", a.overlap)?;
    error::non_negative("kernel time", a.kernel_s)?;
    error::non_negative("collective time", a.collective_s)?;
    error::non_negative("MoE layer time", a.moe_layer_s)?;
    error::non_negative("request time", a.request_s)?;
    error::non_negative("GEMM half-efficiency rows", a.gemm_half_rows)?;
    error::fraction("low-precision efficiency", a.low_precision_efficiency)?;
    error::fraction("attention efficiency", a.attention_efficiency)?;
    error::fraction("8-bit dequantization efficiency", a.dequant_8bit)?;
    error::fraction("4-bit dequantization efficiency", a.dequant_4bit)?;
    error::unit_interval("prefill communication overlap", a.prefill_comm_overlap)?;
    for (name, v) in [
        ("band", a.band_base),
        ("band per fixed share", a.band_fixed),
        ("band per doubling of devices", a.band_devices),
        ("band when quantized", a.band_quantized),
    ] {
        error::unit_interval(name, v)?;
    }
    Ok(())
}
