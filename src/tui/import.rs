//! A model from a config.json in the workbench: `i` opens a path entry (a
//! config.json or a downloaded model's folder, `~` the home directory);
//! Enter derives the model through the same resolver as `--model PATH`,
//! adds it to the catalog for this session, lists it under the `imported`
//! family of the model picker and selects it, its checkpoint's weight
//! precision on the weights knob. A path that cannot be read keeps the
//! entry open with the reason.

use super::app::{App, Level, Mode, Pane, filter_box};
use crate::catalog::hf::load;
use crate::fsutil;
use crate::solver::units;
use ratatui::Frame;
use ratatui::layout::Rect;

/// Open the path entry.
pub(crate) fn open(app: &mut App) {
    app.mode = Mode::Import;
    app.in_bar = false;
    app.bar_view = false;
    let mut t = filter_box("");
    super::update::style_entry(&mut t, app.theme());
    app.import_path = t;
}

/// Esc in the entry.
pub(crate) fn cancel(app: &mut App) {
    app.mode = Mode::Normal;
    app.say(Level::Info, "import cancelled");
}

/// Enter in the entry: import the path and select the model.
pub(crate) fn submit(app: &mut App) {
    let text = app.import_path.lines().first().cloned().unwrap_or_default();
    let text = text.trim();
    if text.is_empty() {
        app.say(
            Level::Warn,
            "type the path of a config.json or of a downloaded model's folder",
        );
        return;
    }
    let path = fsutil::expand_tilde(text, app.session.home.as_deref());
    let name = path.display().to_string();
    let r = match load::resolve(&mut app.catalog, &name, None) {
        Ok(r) if r.imported.is_some() => r,
        Ok(_) => {
            let msg = format!("not imported: {name}: no such file or folder");
            return app.say(Level::Error, msg);
        }
        Err(e) => return app.say(Level::Error, format!("not imported: {e}")),
    };
    app.refresh_models();
    let Some(i) = app.catalog.models.iter().position(|e| e.model.id == r.id) else {
        return app.say(
            Level::Error,
            format!("not imported: `{}` is not in the catalog", r.id),
        );
    };
    app.model = i;
    app.model_filter = filter_box("");
    app.mode = Mode::Normal;
    app.focus = Pane::Models;
    let e = &app.catalog.models[i];
    let mut msg = format!(
        "imported `{}`: {} params",
        r.id,
        units::format_params(e.model.params)
    );
    if let Some(w) = e.weights {
        app.workload.weights = w;
        msg.push_str(&format!(", {w} weights (the checkpoint's)"));
    }
    if let Some(n) = r.imported.as_ref().and_then(|m| m.derivation.notes.first()) {
        msg.push_str(&format!("; {n}"));
    }
    app.say(Level::Info, msg);
}

/// The path entry, over the status line.
pub fn render(app: &App, frame: &mut Frame, screen: Rect) {
    let inner = super::panes::status::entry_box(
        app,
        frame,
        screen,
        " import a model: config.json or model folder ",
        " Enter import · Esc cancel ",
    );
    frame.render_widget(&app.import_path, inner);
}
