//! `ridgeline catalog check`: every problem of the catalog files.

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
            if !d.is_dir() {
                return Err(CliError::Input(format!(
                    "catalog check: {} is not a directory; give a folder holding hardware/*.toml, models/*.toml or regions.toml",
                    d.display()
                )));
            }
            Some(d.to_path_buf())
        }
        None => catalog::user_catalog_dir(cli.catalog.as_deref()),
    };
    let c = Catalog::load(dir.as_deref());
    let mut s = String::new();
    for d in &c.diagnostics {
        s.push_str(&format!("{d}\n"));
    }
    s.push_str(&format!(
        "{} devices, {} models, {} regions loaded (built-in{})\n",
        c.hardware.len(),
        c.models.len(),
        c.regions.len(),
        dir.as_ref()
            .filter(|d| d.exists())
            .map(|d| format!(" + {}", d.display()))
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
