//! `ridgeline sweep`: a batch or context sweep on one or more devices.

use super::args::{BatchSpec, Format, WorkloadArgs};
use super::output::{Col, Fmt, col, render_list};
use super::records::{LIST_COLS, eval_record, in_words};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::{self, Workload, sweep, units};
use crate::words::Words;
use serde_json::json;

const CONTEXT_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("context", "context", Fmt::Int),
    col("latency", "latency_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("bottleneck", "bottleneck", Fmt::Text),
    col("AI", "arithmetic_intensity", Fmt::Num),
    col("KV cache", "kv_bytes", Fmt::Bytes),
    col("fits", "fits", Fmt::Text),
    col("max batch", "max_batch", Fmt::Int),
];

/// `sweep --contexts LO..HI`: the workload at contexts in powers of two.
pub(super) fn context_sweep_cmd(
    cat: &Catalog,
    w: &WorkloadArgs,
    list: &str,
    contexts: BatchSpec,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let asm = assumptions(w);
    let wl = workload(w, single_batch(w)?);
    let (lo, hi) = match contexts {
        BatchSpec::One(c) => (c, c),
        BatchSpec::Range(lo, hi) => (lo, hi),
    };
    let points = sweep::powers_of_two(lo, hi);
    let mut recs = Vec::new();
    for hw in devices(cat, list)? {
        let evals = sweep::context_sweep(&hw.hw, &model.model, &wl, &asm, &points)?;
        for (e, s) in evals.iter().zip(&points) {
            recs.push(eval_record(
                e,
                hw,
                model,
                &Workload {
                    context: *s as f64,
                    ..wl
                },
            ));
        }
    }
    let cols = in_words(CONTEXT_COLS, Words::for_model(model));
    let mut s = render_list(&recs, &cols, w.format);
    if matches!(w.format, Format::Table | Format::Markdown) {
        s = format!(
            "{}: context sweep, batch {}\n\n{s}",
            model.model.name,
            units::format_count(wl.batch)
        );
    }
    write(out, &s)
}

pub(super) fn sweep_cmd(
    cat: &Catalog,
    w: &WorkloadArgs,
    list: &str,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let asm = assumptions(w);
    let mut recs = Vec::new();
    let mut summary = String::new();
    for hw in devices(cat, list)? {
        let base = workload(w, 1);
        let (lo, hi) = match w.batch {
            Some(BatchSpec::Range(lo, hi)) => (lo, hi),
            Some(BatchSpec::One(b)) => (b, b),
            None => {
                let e = solver::evaluate(&hw.hw, &model.model, &base, &asm)?;
                (1, e.max_batch.clamp(1, 1 << 20))
            }
        };
        let batches = sweep::powers_of_two(lo, hi);
        let s = sweep::batch_sweep(&hw.hw, &model.model, &base, &asm, &batches)?;
        for (e, b) in s.points.iter().zip(&batches) {
            let wl = Workload {
                batch: *b as f64,
                ..base
            };
            let mut r = eval_record(e, hw, model, &wl);
            r.insert("crossover_batch".into(), json!(s.crossover_batch));
            recs.push(r);
        }
        summary.push_str(&format!(
            "{}: {}\n",
            hw.hw.id,
            match s.crossover_batch {
                Some(x) => format!(
                    "compute time overtakes memory time at batch {}",
                    units::format_number(x)
                ),
                None => "no crossover: memory-bound at every batch (or compute-bound from batch 1)"
                    .into(),
            }
        ));
    }
    let cols = in_words(LIST_COLS, Words::for_model(model));
    let mut s = render_list(&recs, &cols, w.format);
    if matches!(w.format, Format::Table | Format::Markdown) {
        s = format!("{}: batch sweep\n\n{s}\n{summary}", model.model.name);
    }
    write(out, &s)
}
