//! `ridgeline compare`: one workload on several devices, each with the one
//! fit verdict; speedups over a baseline that fits, with the ratio behind
//! each; rows that fit first.

use super::args::{CompareArgs, Format, SortArg};
use super::output::{Col, Fmt, Style, col, render_list, wrap};
use super::records::{add_verdict, eval_record, in_words, not_fit_line, table_row, workload_line};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::{Catalog, HardwareEntry};
use crate::solver::compare::{self, Compared, Comparison, SortBy, Speedup};
use crate::solver::{self, units};
use crate::words::Words;
use serde_json::json;

/// Text and Markdown: the verdict in place of figures that do not exist.
const COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("fit", "fit", Fmt::Text),
    col("latency", "latency_s", Fmt::Time),
    col("tokens/s", "tokens_per_s", Fmt::Num),
    col("speedup", "speedup_text", Fmt::Text),
    col("$/M tok", "cost_per_million_tokens_usd", Fmt::Usd).opt(1),
    col("bound", "bottleneck", Fmt::Text).opt(2),
    col("max batch", "max_batch", Fmt::Int).opt(3),
    col("ridge", "ridge_point", Fmt::Num).opt(4),
    col("AI", "arithmetic_intensity", Fmt::Num).opt(5),
    col("latency band", "latency_s", Fmt::TimeBand).opt(6),
];

/// CSV: raw values, the same blanks for what does not run.
const CSV_COLS: &[Col] = &[
    col("hardware", "hardware", Fmt::Text),
    col("batch", "batch", Fmt::Int),
    col("latency_s", "latency_s", Fmt::Time),
    col("latency_s", "latency_s", Fmt::TimeBand),
    col("tokens_per_s", "tokens_per_s", Fmt::Num),
    col("verdict", "verdict", Fmt::Text),
    col("min_devices_to_fit", "min_devices_to_fit", Fmt::Int),
    col("speedup", "speedup", Fmt::Num),
    col(
        "cost_per_million_tokens_usd",
        "cost_per_million_tokens_usd",
        Fmt::Usd,
    ),
    col("bottleneck", "bottleneck", Fmt::Text),
    col("arithmetic_intensity", "arithmetic_intensity", Fmt::Num),
    col("ridge_point", "ridge_point", Fmt::Num),
    col("max_batch", "max_batch", Fmt::Int),
];

fn sort_by(s: SortArg) -> SortBy {
    match s {
        SortArg::Listed => SortBy::Listed,
        SortArg::Latency => SortBy::Latency,
        SortArg::Tokens => SortBy::TokensPerS,
        SortArg::Cost => SortBy::Cost,
    }
}

/// The index of `--baseline` among the compared devices.
fn baseline_index(
    cat: &Catalog,
    entries: &[&HardwareEntry],
    id: Option<&str>,
) -> Result<Option<usize>, CliError> {
    let Some(id) = id else { return Ok(None) };
    let want = cat.hardware(id).map_err(|e| {
        CliError::Input(format!(
            "--baseline: {}",
            e.to_string().trim_start_matches("--hardware: ")
        ))
    })?;
    entries
        .iter()
        .position(|e| e.hw.id == want.hw.id)
        .map(Some)
        .ok_or_else(|| {
            CliError::Input(format!(
                "--baseline: {} is not among the compared devices ({}); add it to --hardware",
                want.hw.id,
                entries
                    .iter()
                    .map(|e| e.hw.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

pub(super) fn compare(
    cat: &Catalog,
    a: &CompareArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let w = &a.workload;
    let model = cat.model(&w.model)?;
    let wl = workload(w, single_batch(w)?);
    let entries = devices(cat, &a.hardware)?;
    // Each device with its own values of the profile (its class's).
    let asms = entries
        .iter()
        .map(|e| assumptions(cat, w, &[*e]))
        .collect::<Result<Vec<_>, _>>()?;
    let asked = baseline_index(cat, &entries, a.baseline.as_deref())?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let cmp = compare::compare_each(&hws, &model.model, &wl, &asms, asked);
    // A device the workload cannot be evaluated on (no link for its TP, say)
    // is left out and said so; when none can, that is the error.
    let mut skipped = Vec::new();
    for (r, e) in cmp.rows.iter().zip(&entries) {
        if let Err(err) = r {
            skipped.push(format!("{}: {err}", e.hw.id));
        }
    }
    if skipped.len() == entries.len() {
        return Err(CliError::Input(skipped.join("; ")));
    }
    let rows: Vec<Option<&Compared>> = cmp.rows.iter().map(|r| r.as_ref().ok()).collect();
    let order = compare::order(&rows, sort_by(a.sort));
    let base_id = cmp.baseline.map(|b| entries[b].hw.id.clone());
    let mut recs = Vec::new();
    let mut table = Vec::new();
    let mut csv = Vec::new();
    for &i in &order {
        let Some(c) = rows[i] else { continue };
        let mut r = eval_record(&c.eval, entries[i], model, &wl);
        add_verdict(&mut r, c, entries[i]);
        let sp = cmp.speedups[i];
        r.insert("speedup".into(), json!(sp.map(|s| s.factor)));
        r.insert("because".into(), json!(because_text(&cmp, i, sp)));
        r.insert("baseline".into(), json!(base_id));
        let mut t = table_row(&r, c, style);
        t.insert("speedup_text".into(), json!(speedup_cell(&cmp, i, sp)));
        // CSV: raw values, blank where the row does not run.
        let mut v = t.clone();
        for k in ["verdict", "speedup", "cost_per_million_tokens_usd"] {
            v.insert(k.into(), r[k].clone());
        }
        recs.push(r);
        table.push(t);
        csv.push(v);
    }
    let s = match w.format {
        Format::Json => render_list(&recs, COLS, Format::Json, style),
        Format::Csv => render_list(&csv, CSV_COLS, Format::Csv, style),
        fmt => {
            let mut s = wrap(
                &workload_line(
                    model,
                    &wl,
                    &format!("{}, TP {} x PP {}", wl.weights, wl.tp, wl.pp),
                ),
                style.width,
            );
            let cols = in_words(COLS, Words::for_model(model));
            s.push_str(&render_list(&table, &cols, fmt, style));
            s.push('\n');
            s.push_str(&wrap(
                &because_lines(&cmp, &entries, &order, asked, style),
                style.width,
            ));
            for k in &skipped {
                s.push_str(&wrap(&format!("skipped {k}\n"), style.width));
            }
            s
        }
    };
    write(out, &s)
}

/// "2.3x", "base" for the baseline, "-" without a speedup.
fn speedup_cell(cmp: &Comparison, i: usize, sp: Option<Speedup>) -> String {
    if cmp.baseline == Some(i) {
        return "base".into();
    }
    sp.map_or("-".into(), |s| {
        format!("{}x", units::format_number(s.factor))
    })
}

/// The ratio behind a speedup; None for the baseline and rows without one.
fn because_text(cmp: &Comparison, i: usize, sp: Option<Speedup>) -> Option<String> {
    (cmp.baseline != Some(i))
        .then_some(sp)
        .flatten()
        .map(|s| s.because.text())
}

/// The baseline, then one line per row: why it is faster or slower, or
/// what it would take to run.
fn because_lines(
    cmp: &Comparison,
    entries: &[&HardwareEntry],
    order: &[usize],
    asked: Option<usize>,
    style: Style,
) -> String {
    let mut s = String::new();
    match cmp.baseline {
        Some(b) => {
            let id = &entries[b].hw.id;
            match asked {
                Some(a) if a != b => s.push_str(&format!(
                    "the baseline {} does not fit, so speedups are over {id}, the first device that fits:\n",
                    entries[a].hw.id
                )),
                Some(_) => s.push_str(&format!("speedups over {id} (--baseline):\n")),
                None => s.push_str(&format!(
                    "speedups over {id}, the first device that fits (--baseline ID picks another):\n"
                )),
            }
        }
        None => s.push_str("no device fits: no speedups to compare\n"),
    }
    let pad = order
        .iter()
        .map(|&i| entries[i].hw.id.chars().count())
        .max()
        .unwrap_or(0);
    for &i in order {
        let Ok(c) = &cmp.rows[i] else { continue };
        let what = if cmp.baseline == Some(i) {
            "the baseline".to_string()
        } else if let Some(sp) = cmp.speedups[i] {
            format!(
                "{}x: {}",
                units::format_number(sp.factor),
                sp.because.text()
            )
        } else {
            not_fit_line(c, entries[i], style)
        };
        s.push_str(&format!("  {:pad$}  {what}\n", entries[i].hw.id));
    }
    s
}
