//! `ridgeline compare`: one workload on several devices.

use super::args::{Format, WorkloadArgs};
use super::output::render_list;
use super::records::{LIST_COLS, eval_record};
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::solver::{self, sweep, units};

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
    let mut s = String::new();
    if matches!(w.format, Format::Table | Format::Markdown) {
        s.push_str(&format!(
            "{}: {}, batch {}, context {}, {}\n\n",
            model.model.name,
            wl.phase.name(),
            units::format_count(wl.batch),
            units::format_count(wl.context),
            wl.weights
        ));
    }
    s.push_str(&render_list(&recs, LIST_COLS, w.format));
    write(out, &s)
}
