//! `ridgeline compare`: one workload on several devices.

use super::args::{Format, WorkloadArgs};
use super::output::render_list;
use super::records::{LIST_COLS, eval_record, in_words};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::{self, sweep, units};
use crate::words::Words;

pub(super) fn compare(
    cat: &Catalog,
    w: &WorkloadArgs,
    list: &str,
    out: Out,
) -> Result<(), CliError> {
    let model = cat.model(&w.model)?;
    let wl = workload(w, single_batch(w)?);
    let asm = assumptions(w);
    let entries = devices(cat, list)?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let mut recs = Vec::new();
    for (hw, result) in entries
        .iter()
        .zip(sweep::compare(&hws, &model.model, &wl, &asm))
    {
        match result {
            Ok(e) => recs.push(eval_record(&e, hw, model, &wl)),
            Err(e) => return Err(CliError::Input(format!("{}: {e}", hw.hw.id))),
        }
    }
    let words = Words::for_model(model);
    let mut s = String::new();
    if matches!(w.format, Format::Table | Format::Markdown) {
        let context = if words.single_pass() {
            String::new()
        } else {
            format!(", context {}", units::format_count(wl.context))
        };
        s.push_str(&format!(
            "{}: {}, batch {}{context}, {}\n\n",
            model.model.name,
            words.step(wl.phase),
            units::format_count(wl.batch),
            wl.weights
        ));
    }
    s.push_str(&render_list(&recs, &in_words(LIST_COLS, words), w.format));
    write(out, &s)
}
