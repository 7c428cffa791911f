//! Opening a form: a device in the Hardware list (blank, a copy, or the
//! user's own entry to edit), a region on a region knob.

use super::draft::{blank_device, blank_region, today, value_of};
use super::{Base, Before, DEVICE, Form, Purpose, REGION, Value, What, is_user, preview};
use crate::catalog::write;
use crate::solver::Tier;
use crate::tui::app::{App, Level, Mode, Pane};
use crate::tui::knobs::Knob;
use ratatui::style::Style;
use std::path::{Path, PathBuf};

/// Open a form: a device in the Hardware list, a region on a region knob.
/// `copy`: prefilled from the selected one.
pub fn open(app: &mut App, copy: bool) {
    let region_knob =
        app.focus == Pane::Knobs && matches!(app.selected_knob(), Knob::Region | Knob::Regions);
    if app.in_bar || !(app.focus == Pane::Hardware || region_knob) {
        let (n, e) = keys(app);
        return app.say(
            Level::Info,
            format!("in the Hardware list (or on a region knob) {n} adds a device (a region), {e} edits a copy of the selected one"),
        );
    }
    let before = Before {
        catalog: app.catalog.clone(),
        hw: app.hw,
        view_inputs: app.view_inputs.clone(),
        devices: app.devices.clone(),
    };
    let dir = app.catalog_dir.clone();
    let o = Opening {
        copy,
        before,
        dir: dir.as_deref(),
        style: (app.theme().base(), app.theme().selected()),
        year: today().0,
    };
    let form = if region_knob {
        region_form(app, o)
    } else {
        device_form(app, o)
    };
    let form = match form {
        Ok(f) => f,
        Err(why) => return app.say(Level::Info, why),
    };
    let what = if form.is_device() { "device" } else { "region" };
    let msg = match (&form.purpose, &form.file) {
        (_, None) => format!(
            "no user catalog directory: this {what} can be tried but not saved (set RIDGELINE_CONFIG_DIR or --catalog DIR)"
        ),
        (Purpose::Replace, _) => format!("editing your {what} {}: saving replaces it", form.id),
        (Purpose::Copy(of), _) => {
            format!("a copy of {of}; it is saved as a new {what}, {}", form.id)
        }
        (Purpose::New, _) => format!("a new {what}: fill in the fields"),
    };
    app.form = Some(form);
    app.mode = Mode::Form;
    app.in_bar = false;
    app.bar_view = false;
    preview(app);
    app.say(Level::Info, msg);
}

/// The keys that open forms, for messages.
fn keys(app: &App) -> (String, String) {
    use crate::tui::action::Command;
    (
        app.keymap.first_key(Command::NewEntry),
        app.keymap.first_key(Command::EditCopy),
    )
}

/// What every form opens with.
struct Opening<'a> {
    copy: bool,
    before: Before,
    dir: Option<&'a Path>,
    style: (Style, Style),
    year: u16,
}

/// Blank, a copy, or the user's own entry (edited in place): the entry the
/// form starts from and what saving it does.
fn purpose_of<E: Clone>(sel: Option<&E>, id: &str, user: bool, blank: E) -> (E, Purpose) {
    match (sel, user) {
        (None, _) => (blank, Purpose::New),
        (Some(e), true) => (e.clone(), Purpose::Replace),
        (Some(e), false) => (e.clone(), Purpose::Copy(id.to_string())),
    }
}

/// The text each field opens with: the entry's value, a copy's name marked
/// "(custom)", a blank entry's defaults.
fn texts(fields: &[What], base: &Base, purpose: &Purpose, name: &str) -> Vec<(What, String)> {
    fields
        .iter()
        .map(|&w| {
            let v = match (w, purpose) {
                (What::Name, Purpose::Copy(_)) => Value::Text(format!("{name} (custom)")),
                (What::Tier, Purpose::New) => Value::Tier(Tier::Cloud),
                (_, Purpose::New) => Value::Blank,
                _ => value_of(base, w),
            };
            (w, w.text_of(&v))
        })
        .collect()
}

fn device_form(app: &App, o: Opening) -> Result<Form, String> {
    let sel = app
        .catalog
        .hardware
        .get(app.hw)
        .ok_or("the catalog has no hardware")?;
    let user = is_user(&sel.origin, o.dir);
    let picked = o.copy.then_some(sel);
    let (base, purpose) = purpose_of(picked, &sel.hw.id, user, blank_device(o.year));
    let base = Base::Device(Box::new(base));
    let texts = texts(&DEVICE, &base, &purpose, &sel.hw.name);
    let mut f = Form::new(base, purpose.clone(), texts, o.before, o.style);
    f.set_id(&sel.hw.id);
    f.file = match (&purpose, o.dir) {
        (Purpose::Replace, _) => Some(PathBuf::from(&sel.origin)),
        (_, Some(d)) => Some(write::hardware_file(d)),
        (_, None) => None,
    };
    Ok(f)
}

fn region_form(app: &App, o: Opening) -> Result<Form, String> {
    let knob = app.selected_knob();
    let v = &app.view_inputs;
    let id = match knob {
        Knob::Regions => v.regions.last().cloned().unwrap_or_default(),
        _ => v.region.clone(),
    };
    let sel = if o.copy {
        let r = app.catalog.region(&id);
        Some(r.map_err(|e| format!("no region to copy: {e}"))?)
    } else {
        None
    };
    let user = sel.is_some_and(|r| is_user(&r.origin, o.dir));
    let (base, purpose) = purpose_of(sel, &id, user, blank_region(o.year));
    let name = sel.map_or("", |r| r.name.as_str());
    let base = Base::Region(base);
    let texts = texts(&REGION, &base, &purpose, name);
    let mut f = Form::new(base, purpose, texts, o.before, o.style);
    f.knob = Some(knob);
    f.set_id(&id);
    f.file = o.dir.map(write::regions_file);
    Ok(f)
}
