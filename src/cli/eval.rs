//! `ridgeline eval`: one workload on one device.

use super::args::{self, Format};
use super::output::{Col, Fmt, Style, col, render_list, render_record, wrap};
use super::records::{
    NO_FIGURES, RUN_KEYS, eval_record, fit_sentence, headline, in_words, on_fewest_line,
    profile_line, set_aside, verdict_key,
};
use super::{CliError, Out, assumptions, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::compare::{self, Verdict};
use crate::solver::{self, Workload};
use crate::words::Words;
use serde_json::{Value, json};

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
    col("math precision", "compute_precision_text", Fmt::Text),
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

pub(super) fn eval(
    cat: &Catalog,
    a: &args::EvalArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&a.workload.model)?;
    let wl = workload(&a.workload, single_batch(&a.workload)?);
    let asm = assumptions(cat, &a.workload, &[hw])?;
    let e = solver::evaluate(&hw.hw, &model.model, &wl, &asm)?;
    let c = compare::assess(&hw.hw, &model.model, &wl, &asm, e.clone());
    let fits = c.verdict.fits();
    // The configuration that runs when the one asked does not: the fewest
    // devices that hold it, as the workbench shows.
    let run = c.at_fit.as_ref().filter(|_| !fits);
    let run_wl = run.map(|r| Workload {
        tp: r.parallelism.tp,
        pp: r.parallelism.pp,
        ..wl
    });
    let run_rec = run.zip(run_wl.as_ref()).map(|(r, w)| {
        let mut m = eval_record(r, hw, model, w);
        m.insert("devices".into(), json!(r.devices()));
        m.insert("cost_per_million_tokens_usd".into(), json!(c.cost_per_mtok));
        m
    });
    let mut rec = eval_record(&e, hw, model, &wl);
    rec.insert("verdict".into(), json!(verdict_key(c.verdict)));
    rec.insert(
        "cost_per_million_tokens_usd".into(),
        json!(c.cost_per_mtok.filter(|_| fits)),
    );
    rec.insert(
        "at_min_devices_to_fit".into(),
        json!(run_rec.clone().map(Value::Object)),
    );
    if !fits {
        set_aside(&mut rec, RUN_KEYS);
    }
    let fmt = a.workload.format;
    let cols = in_words(EVAL_COLS, Words::for_model(model));
    let s = match fmt {
        Format::Table | Format::Markdown => {
            // The prose wraps at the width (the key/value rows fit it).
            let w = style.width;
            let mut s = wrap(&headline(hw, model, &wl), w);
            s.push_str(&wrap(&fit_sentence(&e, hw, &wl), w));
            s.push_str(&wrap(&profile_line(cat, &a.workload.profile, hw), w));
            s.push('\n');
            let with_notes = |s: &mut String, e: &solver::Evaluation| {
                s.push_str(&wrap(&format!("\n{}\n", e.explanation()), w));
                for n in &e.notes {
                    s.push_str(&wrap(&format!("note: {n}\n"), w));
                }
            };
            if fits {
                s.push_str(&render_record(&rec, &cols, fmt));
                with_notes(&mut s, &e);
            } else {
                // As asked: only what says why it does not fit.
                let mem: Vec<Col> = cols
                    .iter()
                    .filter(|c| !RUN_KEYS.contains(&c.key))
                    .copied()
                    .collect();
                s.push_str("as asked (does not fit):\n");
                s.push_str(&render_record(&rec, &mem, fmt));
                s.push('\n');
                match (c.verdict, run, &run_rec) {
                    (Verdict::Needs(p), Some(r), Some(m)) => {
                        s.push_str(&wrap(&on_fewest_line(p, hw), w));
                        s.push_str(&render_record(m, &cols, fmt));
                        with_notes(&mut s, r);
                    }
                    _ => s.push_str(NO_FIGURES),
                }
            }
            s
        }
        Format::Csv => {
            // One row per configuration, each saying which it is.
            let mut rows = vec![rec.clone()];
            rows[0].insert(
                "configuration".into(),
                json!(if fits {
                    "as asked"
                } else {
                    "as asked: does not fit"
                }),
            );
            if let Some(m) = &run_rec {
                let mut m = m.clone();
                m.insert("configuration".into(), json!("fewest devices that hold it"));
                rows.push(m);
            }
            let mut cols = cols.clone();
            cols.extend([
                col("configuration", "configuration", Fmt::Text),
                col("tp", "tp", Fmt::Int),
                col("pp", "pp", Fmt::Int),
            ]);
            render_list(&rows, &cols, fmt, Style::plain())
        }
        Format::Json => render_record(&rec, &cols, fmt),
    };
    write(out, &s)?;
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
