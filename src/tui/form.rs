//! Your own device or region, typed in the workbench. In the Hardware list
//! one key opens a blank device form and another a copy of the selected
//! device (the copy gets a new id, unless the device is already a user
//! entry: then the form edits it in place); on a region knob the same keys
//! do the same for regions.
//!
//! Every field is read as it is typed (fields.rs) and says what it holds or
//! what is wrong; the workbench evaluates the entry being typed, built from
//! the last valid value of each field, so the roofline and the headline
//! follow the form. Esc puts everything back and writes nothing. The save
//! key writes the entry into the user catalog (`catalog::write`: an atomic
//! write that keeps every other entry of the file), reloads the catalog
//! and selects the entry.

mod draft;
mod fields;
mod open;
mod render;
#[cfg(test)]
mod tests;

pub use fields::{DEVICE, REGION, Value, What, kebab};
pub use open::open;
pub use render::{Split, hint, render, split};

use super::app::{App, Level, Mode, Pane};
use super::knobs::{Knob, ViewInputs};
use crate::catalog::write::{self, Mode as WriteMode};
use crate::catalog::{Catalog, HardwareEntry, Region};
use crate::solver::{Hardware, Precision};
use draft::today;
use fields::Context;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::TextArea;
use std::path::{Path, PathBuf};

/// What the form does with the entry when it is saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// A new entry, from a blank form.
    New,
    /// A new entry copied from the one with this id.
    Copy(String),
    /// The user entry itself, replaced in its file.
    Replace,
}

/// The entry the form starts from: blank, or the one copied or edited.
#[derive(Debug, Clone, PartialEq)]
pub enum Base {
    Device(Box<HardwareEntry>),
    Region(Region),
}

/// One field: its text, and what the text reads as.
pub struct Field {
    pub what: What,
    pub text: TextArea<'static>,
    /// The value, or what is wrong with the text.
    pub check: Result<Value, String>,
    /// The last value the text read as (what the preview uses while the
    /// text is wrong).
    pub last: Option<Value>,
}

impl Field {
    pub fn text(&self) -> &str {
        self.text.lines().first().map_or("", |s| s.as_str())
    }
}

/// What the form changed in the app, to put back.
#[derive(Default)]
struct Before {
    catalog: Catalog,
    hw: usize,
    view_inputs: ViewInputs,
    devices: Vec<Hardware>,
}

/// An open form.
pub struct Form {
    pub base: Base,
    pub purpose: Purpose,
    pub fields: Vec<Field>,
    /// The field being typed.
    pub focus: usize,
    /// The id the entry is saved under: the edited entry's own; a copy's
    /// is fixed when the form opens; a new entry's follows its name.
    pub id: String,
    /// The file it is saved to; None when there is no user catalog
    /// directory (no config directory, no --catalog).
    pub file: Option<PathBuf>,
    /// The region knob it was opened from (regions only).
    pub knob: Option<Knob>,
    cx: Context,
    /// "2026-06": the date a changed price is "as of".
    month: String,
    before: Before,
}

/// The longest text of a field, in characters.
pub const FIELD_MAX: usize = 200;

/// True when an entry comes from the user catalog directory `dir` (a
/// built-in entry never does, whatever `dir` is: it is only copied).
pub fn is_user(origin: &str, dir: Option<&Path>) -> bool {
    !crate::catalog::is_builtin_origin(origin)
        && dir.is_some_and(|d| Path::new(origin).starts_with(d))
}

/// A one-line entry box with the theme's colours (`base`, and `selected`
/// for selected text).
fn entry_box(text: &str, (base, selected): (Style, Style)) -> TextArea<'static> {
    let mut t = TextArea::new(vec![text.to_string()]);
    t.set_style(base);
    t.set_selection_style(selected);
    t.set_cursor_line_style(Style::new());
    t.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
    t.move_cursor(ratatui_textarea::CursorMove::End);
    t
}

impl Form {
    /// A form over `base` whose fields open with `texts`.
    fn new(
        base: Base,
        purpose: Purpose,
        texts: Vec<(What, String)>,
        before: Before,
        style: (Style, Style),
    ) -> Form {
        let (year, month) = today();
        let cx = Context {
            torus: match &base {
                Base::Device(e) => e.hw.torus.map(|t| t.dims),
                Base::Region(_) => None,
            },
        };
        let fields = texts
            .into_iter()
            .map(|(what, text)| {
                let check = what.parse(&text, cx);
                Field {
                    what,
                    text: entry_box(&text, style),
                    last: check.as_ref().ok().cloned(),
                    check,
                }
            })
            .collect();
        let mut f = Form {
            base,
            purpose,
            fields,
            focus: 0,
            id: String::new(),
            file: None,
            knob: None,
            cx,
            month: format!("{year}-{month:02}"),
            before,
        };
        f.focus_on(0);
        f
    }

    /// Move to field `i`, its text selected so that typing replaces it.
    pub fn focus_on(&mut self, i: usize) {
        self.focus = i.min(self.fields.len().saturating_sub(1));
        if let Some(f) = self.fields.get_mut(self.focus) {
            f.text.select_all();
        }
    }

    /// Device or region.
    pub fn is_device(&self) -> bool {
        matches!(self.base, Base::Device(_))
    }

    /// The field's value for the preview: what it reads as, else its last
    /// valid value.
    fn value(&self, what: What) -> Option<&Value> {
        let f = self.fields.iter().find(|f| f.what == what)?;
        f.check.as_ref().ok().or(f.last.as_ref())
    }

    /// The first thing that keeps the form from being saved: a field that
    /// does not read, or a device without any peak.
    pub fn problem(&self) -> Option<(usize, String)> {
        if let Some((i, e)) = self
            .fields
            .iter()
            .enumerate()
            .find_map(|(i, f)| f.check.as_ref().err().map(|e| (i, e)))
        {
            return Some((i, format!("{}: {e}", self.fields[i].what.label())));
        }
        let no_peak = self.is_device()
            && Precision::ALL
                .iter()
                .all(|p| matches!(self.value(What::Peak(*p)), Some(Value::Blank) | None));
        no_peak.then(|| {
            let i = self
                .fields
                .iter()
                .position(|f| f.what == What::Peak(Precision::Bf16))
                .unwrap_or(0);
            (i, "give at least one peak FLOP/s".to_string())
        })
    }

    /// The id of a new entry from its name: free in the catalog.
    fn follow_name(&mut self) {
        if self.purpose != Purpose::New {
            return;
        }
        let stem = match self.value(What::Name) {
            Some(Value::Text(n)) if !kebab(n).is_empty() => kebab(n),
            _ if self.is_device() => "new-device".into(),
            _ => "new-region".into(),
        };
        self.id = self.free_id(&stem);
    }

    /// `stem`, or `stem-2`, ... : an id no entry of its kind has.
    fn free_id(&self, stem: &str) -> String {
        let c = &self.before.catalog;
        let device = self.is_device();
        write::free_id(stem, |id| {
            if device {
                c.hardware(id).is_err()
            } else {
                c.region(id).is_err()
            }
        })
    }

    /// The id the entry is saved under, once the form is made (a new
    /// entry's follows its name as it is typed).
    fn set_id(&mut self, own: &str) {
        self.id = match &self.purpose {
            Purpose::Replace => own.to_string(),
            Purpose::Copy(of) => self.free_id(&format!("{of}-custom")),
            Purpose::New => String::new(),
        };
        self.follow_name();
    }
}

/// The regions the views use while the form shows `id`.
fn with_region(v: &ViewInputs, knob: Option<Knob>, purpose: &Purpose, id: &str) -> ViewInputs {
    let mut v = v.clone();
    match knob {
        Some(Knob::Regions) => match purpose {
            Purpose::New => {
                if !v.regions.iter().any(|r| r == id) {
                    v.regions.push(id.to_string());
                }
            }
            _ => match v.regions.last_mut() {
                Some(last) => *last = id.to_string(),
                None => v.regions.push(id.to_string()),
            },
        },
        _ => v.region = id.to_string(),
    }
    v
}

/// Evaluate the entry being typed: the catalog as it was with the draft
/// put in, the draft selected.
fn preview(app: &mut App) {
    let Some(f) = app.form.as_ref() else { return };
    let mut c = f.before.catalog.clone();
    match f.draft() {
        Base::Device(e) => {
            let valid = crate::solver::validation::validate_hardware(&e.hw).is_ok();
            app.hw = c.put_hardware(*e);
            // Rankings (Synthesis, Fleet) take the draft once it is a device.
            app.devices = if valid {
                c.devices()
            } else {
                f.before.devices.clone()
            };
        }
        Base::Region(r) => {
            let id = r.id.clone();
            c.put_region(r);
            app.view_inputs = with_region(&f.before.view_inputs, f.knob, &f.purpose, &id);
        }
    }
    app.catalog = c;
    app.recompute();
}

/// After the focused field's text changed: read it again, follow the name,
/// evaluate.
pub fn edited(app: &mut App) {
    let Some(f) = app.form.as_mut() else { return };
    let cx = f.cx;
    if let Some(field) = f.fields.get_mut(f.focus) {
        field.check = field.what.parse(field.text(), cx);
        if let Ok(v) = &field.check {
            field.last = Some(v.clone());
        }
    }
    f.follow_name();
    preview(app);
}

/// The text of the field being typed.
pub fn focused_text(app: &mut App) -> Option<&mut TextArea<'static>> {
    let f = app.form.as_mut()?;
    let i = f.focus;
    f.fields.get_mut(i).map(|x| &mut x.text)
}

/// A command while a form is open: move between fields, save, cancel.
pub fn command(app: &mut App, cmd: super::action::Command) {
    use super::action::Command;
    let Some(f) = app.form.as_mut() else {
        app.mode = Mode::Normal;
        return;
    };
    let n = f.fields.len();
    match cmd {
        Command::Quit => app.quit = true,
        Command::Down | Command::NextPane => f.focus_on((f.focus + 1) % n),
        Command::Up | Command::PrevPane => f.focus_on((f.focus + n - 1) % n),
        Command::Edit if f.focus + 1 < n => f.focus_on(f.focus + 1),
        Command::Edit | Command::Save => save(app),
        Command::Cancel => {
            close(app);
            app.say(Level::Info, "form closed: nothing was written");
        }
        _ => {}
    }
}

/// Close the form and put back what it changed.
fn close(app: &mut App) -> Option<Form> {
    let mut f = app.form.take()?;
    app.mode = Mode::Normal;
    let b = std::mem::take(&mut f.before);
    app.catalog = b.catalog;
    app.hw = b.hw;
    app.view_inputs = b.view_inputs;
    app.devices = b.devices;
    app.recompute();
    Some(f)
}

/// Save the entry if every field reads; then reload the catalog and select
/// it. On any failure the form stays open and the file is untouched.
fn save(app: &mut App) {
    let Some(f) = app.form.as_mut() else { return };
    if let Some((i, why)) = f.problem() {
        f.focus_on(i);
        return app.say(
            Level::Error,
            format!("not saved: {why}; fix it, or Esc cancels"),
        );
    }
    if app.session.guest {
        return app.say(
            Level::Warn,
            "not saved: a shared session writes no files on the server (Esc closes the form)",
        );
    }
    let Some(f) = app.form.as_mut() else { return };
    let Some(file) = f.file.clone() else {
        return app.say(
            Level::Error,
            "not saved: no user catalog directory; start with RIDGELINE_CONFIG_DIR=DIR or --catalog DIR (Esc cancels)",
        );
    };
    let mode = if f.purpose == Purpose::Replace {
        WriteMode::Replace
    } else {
        WriteMode::Add
    };
    let c = &f.before.catalog;
    let saved = match f.draft() {
        Base::Device(e) => write::save_device(&file, &e, mode, &|id| c.hardware(id).is_ok()),
        Base::Region(r) => write::save_region(&file, &r, mode, &|id| c.region(id).is_ok()),
    };
    let saved = match saved {
        Ok(s) => s,
        Err(e) => return app.say(Level::Error, format!("not saved: {e}")),
    };
    let Some(f) = close(app) else { return };
    let dir = app.catalog_dir.clone();
    app.replace_catalog(Catalog::load(dir.as_deref()));
    let what = if f.is_device() { "device" } else { "region" };
    let shown = select_saved(app, &f, &saved.id);
    let via = if saved.written.via_symlink {
        format!(" (through a link to {})", saved.written.file.display())
    } else {
        String::new()
    };
    let file = crate::catalog::fields::printable(&file.display().to_string()).into_owned();
    if shown {
        let how = if f.is_device() {
            "selected, marked * as yours"
        } else {
            "the view uses it"
        };
        app.say(
            Level::Info,
            format!("saved {what} {} to {file}{via}: {how}", saved.id),
        );
    } else {
        app.say(
            Level::Warn,
            format!("saved {what} {} to {file}{via}, but the catalog did not load it: run `ridgeline catalog check`", saved.id),
        );
    }
}

/// Select the saved entry in the reloaded catalog; false if it is not there.
fn select_saved(app: &mut App, f: &Form, id: &str) -> bool {
    if f.is_device() {
        let Some(i) = app.catalog.hardware.iter().position(|e| e.hw.id == id) else {
            return false;
        };
        app.hw = i;
        app.focus = Pane::Hardware;
        if !app.hw_visible.contains(&i) {
            app.hw_filter = super::app::filter_box("");
        }
    } else {
        if app.catalog.region(id).is_err() {
            return false;
        }
        app.view_inputs = with_region(&app.view_inputs, f.knob, &f.purpose, id);
    }
    app.recompute();
    true
}
