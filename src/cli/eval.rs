//! `ridgeline eval`: one workload on one device.

use super::args::{self, Format};
use super::output::{Col, Fmt, col, render_record};
use super::records::{eval_record, fit_sentence, headline, in_words, profile_line};
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver;
use crate::words::Words;

const EVAL_COLS: &[Col] = &[
    col("latency", "latency_s", Fmt::Time),
    col("  error band", "latency_s", Fmt::TimeBand),
    col("  compute", "compute_s", Fmt::Time),
    col("  memory", "memory_s", Fmt::Time),
    col("  communication", "comm_s", Fmt::Time),
    col("  fixed: overhead, kernels", "overhead_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("  error band", "tokens_per_s", Fmt::NumBand),
    col("bottleneck", "bottleneck", Fmt::Text),
    col(
        "arithmetic intensity (FLOP/B)",
        "arithmetic_intensity",
        Fmt::Num,
    ),
    col("ridge point (FLOP/B)", "ridge_point", Fmt::Num),
    col(
        "effective ridge (FLOP/B)",
        "effective_ridge_point",
        Fmt::Num,
    ),
    col("math precision", "compute_precision", Fmt::Text),
    col("MFU", "mfu", Fmt::Pct),
    col("MBU", "mbu", Fmt::Pct),
    col("memory per device", "memory_required_bytes", Fmt::Bytes),
    col("  weights", "weights_bytes", Fmt::Bytes),
    col("  KV cache", "kv_bytes", Fmt::Bytes),
    col("  workspace", "workspace_bytes", Fmt::Bytes),
    col("usable memory", "memory_usable_bytes", Fmt::Bytes),
    col("capacity", "memory_capacity_bytes", Fmt::Bytes),
    col("fits", "fits", Fmt::Text),
    col("fewest devices to fit", "min_devices_to_fit", Fmt::Int),
    col("max batch at this context", "max_batch", Fmt::Int),
];

pub(super) fn eval(cat: &Catalog, a: &args::EvalArgs, out: Out) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let e = solver::evaluate(&hw.hw, &model.model, &wl, &assumptions(cat, &a.workload)?)?;
    let rec = eval_record(&e, hw, model, &wl);
    let fmt = a.workload.format;
    let cols = in_words(EVAL_COLS, Words::for_model(model));
    if matches!(fmt, Format::Table | Format::Markdown) {
        let mut s = headline(hw, model, &wl);
        s.push_str(&fit_sentence(&e, hw, &wl));
        s.push_str(&profile_line(&a.workload.profile));
        s.push('\n');
        s.push_str(&render_record(&rec, &cols, fmt));
        s.push_str(&format!("\n{}\n", e.explanation()));
        for n in &e.notes {
            s.push_str(&format!("note: {n}\n"));
        }
        write(out, &s)?;
    } else {
        write(out, &render_record(&rec, &cols, fmt))?;
    }
    if a.require_fit && !e.memory.fits {
        return Err(CliError::Verdict(format!(
            "--require-fit: {} does not fit on {} x {}",
            model.model.id,
            wl.tp.saturating_mul(wl.pp),
            hw.hw.id
        )));
    }
    Ok(())
}
