//! `ridgeline catalog check`: every problem of the catalog files, and which
//! user entries replace built-in ones.

use super::args::Cli;
use super::{CliError, Out, write};
use crate::catalog::{self, Catalog};

pub(super) fn catalog_check(
    cli: &Cli,
    dir: Option<&std::path::Path>,
    out: Out,
) -> Result<(), CliError> {
    let dir = match dir {
        Some(d) => {
            catalog::check_user_dir(d).map_err(|why| {
                CliError::Input(format!(
                    "catalog check {}: the directory {why}; give a folder holding hardware/*.toml, models/*.toml or regions.toml",
                    catalog::fields::printable(&d.display().to_string())
                ))
            })?;
            Some(d.to_path_buf())
        }
        None => super::catalog_dir(cli)?,
    };
    let mut c = Catalog::load(dir.as_deref());
    c.add_measurements(dir.as_deref());
    let mut s = String::new();
    for d in &c.diagnostics {
        s.push_str(&format!("{d}\n"));
    }
    for n in &c.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s.push_str(&format!(
        "{} devices, {} models, {} regions loaded (built-in{})\n",
        c.hardware.len(),
        c.models.len(),
        c.regions.len(),
        dir.as_ref()
            .filter(|d| d.exists())
            .map(|d| format!(
                " + {}",
                catalog::fields::printable(&d.display().to_string())
            ))
            .unwrap_or_default()
    ));
    write(out, &s)?;
    if c.diagnostics.is_empty() {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "{} problem{} in the catalog files above: fix them, or remove the files",
            c.diagnostics.len(),
            if c.diagnostics.len() == 1 { "" } else { "s" }
        )))
    }
}
