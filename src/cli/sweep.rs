//! `ridgeline sweep`: a batch or context sweep on one or more devices. Every
//! point carries the fit verdict; the largest batch that fits is one of the
//! points, marked; the summary answers among fitting points only.

use super::args::{BatchSpec, Format, WorkloadArgs};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::records::{add_verdict, eval_record, in_words, table_row};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::{Catalog, HardwareEntry, ModelEntry};
use crate::solver::compare::{self, Compared, Verdict};
use crate::solver::{self, Assumptions, Evaluation, Workload, sweep, units};
use crate::words::Words;
use serde_json::{Map, Value, json};

const BATCH_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("batch", "batch", Fmt::Int),
    col("fit", "fit", Fmt::Text),
    col("latency", "latency_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("bound", "bottleneck", Fmt::Text).opt(1),
    col("$/M tok", "cost_per_million_tokens_usd", Fmt::Usd).opt(2),
    col("AI", "arithmetic_intensity", Fmt::Num).opt(3),
    col("latency band", "latency_s", Fmt::TimeBand).opt(4),
    col("ridge", "ridge_point", Fmt::Num).opt(4),
];

const CONTEXT_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("context", "context", Fmt::Tokens),
    col("fit", "fit", Fmt::Text),
    col("latency", "latency_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("bound", "bottleneck", Fmt::Text).opt(1),
    col("KV cache", "kv_bytes", Fmt::Bytes).opt(2),
    col("max batch", "max_batch", Fmt::Int).opt(3),
    col("AI", "arithmetic_intensity", Fmt::Num).opt(4),
    col("latency band", "latency_s", Fmt::TimeBand).opt(5),
];

/// CSV: raw values; latency and tokens/s blank where the point does not fit.
const CSV_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("batch", "batch", Fmt::Int),
    col("context", "context", Fmt::Int),
    col("verdict", "verdict", Fmt::Text),
    col("min_devices_to_fit", "min_devices_to_fit", Fmt::Int),
    col("latency_s", "latency_s", Fmt::Time),
    col("latency_s", "latency_s", Fmt::TimeBand),
    col("tokens_per_s", "tokens_per_s", Fmt::Num),
    col("bottleneck", "bottleneck", Fmt::Text),
    col("arithmetic_intensity", "arithmetic_intensity", Fmt::Num),
    col("ridge_point", "ridge_point", Fmt::Num),
    col("kv_bytes", "kv_bytes", Fmt::Bytes),
    col("max_batch", "max_batch", Fmt::Int),
];

/// The records of one sweep: JSON (every key), a table row and a CSV row.
#[derive(Default)]
struct Rows {
    json: Vec<Map<String, Value>>,
    table: Vec<Map<String, Value>>,
    csv: Vec<Map<String, Value>>,
}

impl Rows {
    /// Add a point: judged, recorded, its table row marked. `extra` keys go
    /// into the JSON record.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        hw: &HardwareEntry,
        model: &ModelEntry,
        wl: &Workload,
        asm: &Assumptions,
        e: &Evaluation,
        extra: &[(&str, Value)],
        mark: Option<&str>,
        style: Style,
    ) -> Compared {
        let c = compare::assess(&hw.hw, &model.model, wl, asm, e.clone());
        let mut r = eval_record(e, hw, model, wl);
        add_verdict(&mut r, &c, hw);
        for (k, v) in extra {
            r.insert((*k).into(), v.clone());
        }
        let mut t = table_row(&r, &c, style);
        if let Some(m) = mark {
            t.insert("fit".into(), json!(m));
        }
        let mut v = t.clone();
        for k in ["verdict", "cost_per_million_tokens_usd"] {
            v.insert(k.into(), r[k].clone());
        }
        self.json.push(r);
        self.table.push(t);
        self.csv.push(v);
        c
    }

    fn render(&self, cols: &[Col], format: Format, style: Style) -> String {
        match format {
            Format::Json => render_list(&self.json, cols, format, style),
            Format::Csv => render_list(&self.csv, CSV_COLS, format, style),
            _ => render_list(&self.table, cols, format, style),
        }
    }

    /// The table with the rate in the model's words; for people (text,
    /// Markdown), under `head` and above `summary`, wrapped to the width.
    fn page(
        &self,
        model: &ModelEntry,
        cols: &[Col],
        head: &str,
        summary: &str,
        format: Format,
        style: Style,
    ) -> String {
        let table = self.render(&in_words(cols, Words::for_model(model)), format, style);
        if matches!(format, Format::Table | Format::Markdown) {
            format!(
                "{}{table}\n{}",
                wrap(head, style.width),
                wrap(summary, style.width)
            )
        } else {
            table
        }
    }
}

/// `sweep --contexts LO..HI`: the workload at contexts in powers of two.
pub(super) fn context_sweep_cmd(
    cat: &Catalog,
    w: &WorkloadArgs,
    list: &str,
    contexts: BatchSpec,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let wl = workload(w, single_batch(w)?);
    let (lo, hi) = match contexts {
        BatchSpec::One(c) => (c, c),
        BatchSpec::Range(lo, hi) => (lo, hi),
    };
    let points = sweep::powers_of_two(lo, hi);
    let mut rows = Rows::default();
    let mut summary = String::new();
    for hw in devices(cat, list)? {
        let asm = assumptions(cat, w, &[hw])?;
        let evals = sweep::context_sweep(&hw.hw, &model.model, &wl, &asm, &points)?;
        let mut longest = None;
        for (e, s) in evals.iter().zip(&points) {
            let at = Workload {
                context: *s as f64,
                ..wl
            };
            let c = rows.push(hw, model, &at, &asm, e, &[], None, style);
            if c.verdict.fits() {
                longest = Some(*s);
            }
        }
        summary.push_str(&match longest {
            Some(s) => format!(
                "{}: the longest context shown that fits is {} tokens\n",
                hw.hw.id,
                units::format_tokens(s as f64)
            ),
            None => format!("{}: no context shown fits\n", hw.hw.id),
        });
    }
    let head = format!(
        "{}: context sweep, batch {} (contexts in tokens, k = 1024)\n\n",
        model.model.name,
        units::format_count(wl.batch)
    );
    write(
        out,
        &rows.page(model, CONTEXT_COLS, &head, &summary, w.format, style),
    )
}

pub(super) fn sweep_cmd(
    cat: &Catalog,
    w: &WorkloadArgs,
    list: &str,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let base = workload(w, 1);
    let mut rows = Rows::default();
    let mut summary = String::new();
    for hw in devices(cat, list)? {
        let asm = assumptions(cat, w, &[hw])?;
        let (batches, s) = batch_sweep(hw, model, &base, &asm, w.batch)?;
        let best = s.best_fitting();
        let largest = s.max_fitting_batch;
        let extra = [
            ("crossover_batch", json!(s.crossover_batch)),
            ("largest_fitting_batch", json!(largest)),
            ("best_fitting_batch", json!(best.map(|i| s.points[i].batch))),
        ];
        for (e, b) in s.points.iter().zip(&batches) {
            let wl = Workload {
                batch: *b as f64,
                ..base
            };
            let mark = (*b == largest && e.memory.fits).then_some("fits (max)");
            rows.push(hw, model, &wl, &asm, e, &extra, mark, style);
        }
        summary.push_str(&sweep_summary(hw, &s, best, base.context, style));
    }
    let head = format!(
        "{}: batch sweep, context {}\n\n",
        model.model.name,
        units::format_tokens(base.context)
    );
    write(
        out,
        &rows.page(model, BATCH_COLS, &head, &summary, w.format, style),
    )
}

/// The batches a sweep on `hw` runs (`--batch`, else 1 up to the largest
/// that fits) and its points: the one computation of `sweep` and `plot
/// sweep`.
pub(super) fn batch_sweep(
    hw: &HardwareEntry,
    model: &ModelEntry,
    base: &Workload,
    asm: &Assumptions,
    batch: Option<BatchSpec>,
) -> Result<(Vec<u64>, sweep::BatchSweep), CliError> {
    let first = solver::evaluate(&hw.hw, &model.model, base, asm)?;
    let (lo, hi) = match batch {
        Some(BatchSpec::Range(lo, hi)) => (lo, hi),
        Some(BatchSpec::One(b)) => (b, b),
        None => (1, first.max_batch.clamp(1, 1 << 20)),
    };
    let batches = sweep::batches_with_limit(lo, hi, first.max_batch);
    let s = sweep::batch_sweep(&hw.hw, &model.model, base, asm, &batches)?;
    Ok((batches, s))
}

/// What one device's sweep answers, among the batches that fit only.
fn sweep_summary(
    hw: &HardwareEntry,
    s: &sweep::BatchSweep,
    best: Option<usize>,
    context: f64,
    style: Style,
) -> String {
    let id = &hw.hw.id;
    let ctx = units::format_tokens(context);
    let mut out = match best {
        Some(i) => {
            let p = &s.points[i];
            format!(
                "{id}: the largest batch that fits at context {ctx} is {} (marked); among the batches that fit, the most tokens/s is {} at batch {}",
                s.max_fitting_batch,
                units::format_number(p.tokens_per_s),
                units::format_count(p.batch)
            )
        }
        None => {
            let why = s
                .points
                .first()
                .map(|e| Verdict::of(e).cell(style.ascii))
                .unwrap_or_default();
            format!("{id}: no batch shown fits at context {ctx} ({why} at the smallest)")
        }
    };
    let limit = s.max_fitting_batch as f64;
    out.push_str(&match s.crossover_batch {
        Some(x) if x > limit => format!(
            "; compute time would overtake memory time at batch {}, beyond the largest that fits\n",
            units::format_number(x)
        ),
        Some(x) => format!(
            "; compute time overtakes memory time at batch {}\n",
            units::format_number(x)
        ),
        None => {
            "; no crossover: memory-bound at every batch (or compute-bound from batch 1)\n".into()
        }
    });
    out
}
