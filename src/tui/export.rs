//! Taking a view away: `X` writes it into a new directory in the current
//! one (its plot as SVG, its table as CSV and Markdown, and `command.sh`),
//! `y` copies its command line to the clipboard with OSC 52. Both come
//! from the view's command lines (`crate::export`), built from the state
//! as a scenario, so what is copied or written is what the command line
//! prints for the same state.

use super::app::{App, Level};
use crate::catalog::fields::printable;
use crate::export;
use std::path::PathBuf;

/// The `--catalog` the workbench was opened with (None: the config
/// directory's, which the command line reads by itself).
fn catalog_flag(app: &App) -> Option<PathBuf> {
    let dir = app.catalog_dir.clone()?;
    (Some(&dir) != crate::catalog::user_catalog_dir(None).as_ref()).then_some(dir)
}

/// Export the view on screen into `ridgeline-export-<view>-<n>` in the
/// directory the workbench was started in (`App::export_dir`); the status
/// line names it, or says why not.
pub(crate) fn export_view(app: &mut App) {
    let s = app.to_scenario();
    let Some(base) = app.export_dir.clone() else {
        app.message = Some((
            Level::Error,
            "export: no directory to write into (the current directory could not be read)".into(),
        ));
        return;
    };
    let flag = catalog_flag(app);
    app.message = Some(
        match export::write(&base, &app.catalog, &s, flag.as_deref(), app.view.title()) {
            Ok(dir) => {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                let name = name.unwrap_or_else(|| dir.display().to_string());
                (Level::Info, format!("exported to {}/", printable(&name)))
            }
            Err(e) => (Level::Error, format!("export: {}", printable(&e))),
        },
    );
}

/// Copy the view's command line to the clipboard (OSC 52, written to the
/// terminal after the next draw) and show it in the status line.
pub(crate) fn copy_command(app: &mut App) {
    let s = app.to_scenario();
    let flag = catalog_flag(app);
    app.message = Some(match export::commands(&app.catalog, &s, flag.as_deref()) {
        Ok(c) => {
            let line = export::shell_line(&c.table);
            app.osc.extend(export::osc52(&line));
            (Level::Info, format!("copied: {}", printable(&line)))
        }
        Err(e) => (Level::Warn, format!("copy: {}", printable(&e))),
    });
}
