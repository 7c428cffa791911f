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
    let style = (app.theme().base(), app.theme().selected());
    let (year, _) = today();
    let form = if region_knob {
        region_form(app, copy, before, dir.as_deref(), style, year)
    } else {
        device_form(app, copy, before, dir.as_deref(), style, year)
    };
    let mut form = match form {
        Ok(f) => f,
        Err(why) => return app.say(Level::Info, why),
    };
    form.follow_name();
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

fn device_form(
    app: &App,
    copy: bool,
    before: Before,
    dir: Option<&Path>,
    style: (Style, Style),
    year: u16,
) -> Result<Form, String> {
    let sel = app
        .catalog
        .hardware
        .get(app.hw)
        .ok_or("the catalog has no hardware")?
        .clone();
    let user = copy && is_user(&sel.origin, dir);
    let (base, purpose) = match (copy, user) {
        (false, _) => (blank_device(year), Purpose::New),
        (true, true) => (sel.clone(), Purpose::Replace),
        (true, false) => (sel.clone(), Purpose::Copy(sel.hw.id.clone())),
    };
    let base = Base::Device(Box::new(base));
    let texts = DEVICE
        .iter()
        .map(|&w| {
            let v = match (w, &purpose) {
                (What::Name, Purpose::Copy(_)) => Value::Text(format!("{} (custom)", sel.hw.name)),
                (What::Tier, Purpose::New) => Value::Tier(Tier::Cloud),
                (What::PerNode, _) if !copy => Value::Blank,
                _ => value_of(&base, w),
            };
            (w, w.text_of(&v))
        })
        .collect();
    let mut f = Form::new(base, purpose.clone(), texts, before, style);
    f.id = match &purpose {
        Purpose::Replace => sel.hw.id.clone(),
        Purpose::Copy(of) => {
            let c = &f.before.catalog;
            write::free_id(&format!("{of}-custom"), |id| c.hardware(id).is_err())
        }
        Purpose::New => String::new(),
    };
    f.file = match (&purpose, dir) {
        (Purpose::Replace, _) => Some(PathBuf::from(&sel.origin)),
        (_, Some(d)) => Some(write::hardware_file(d)),
        (_, None) => None,
    };
    Ok(f)
}

fn region_form(
    app: &App,
    copy: bool,
    before: Before,
    dir: Option<&Path>,
    style: (Style, Style),
    year: u16,
) -> Result<Form, String> {
    let knob = app.selected_knob();
    let v = &app.view_inputs;
    let id = match knob {
        Knob::Regions => v.regions.last().cloned().unwrap_or_default(),
        _ => v.region.clone(),
    };
    let sel = if copy {
        let r = app.catalog.region(&id);
        Some(r.map_err(|e| format!("no region to copy: {e}"))?.clone())
    } else {
        None
    };
    let user = sel.as_ref().is_some_and(|r| is_user(&r.origin, dir));
    let (base, purpose) = match (&sel, user) {
        (None, _) => (blank_region(year), Purpose::New),
        (Some(r), true) => (r.clone(), Purpose::Replace),
        (Some(r), false) => (r.clone(), Purpose::Copy(r.id.clone())),
    };
    let base = Base::Region(base);
    let texts = REGION
        .iter()
        .map(|&w| {
            let v = match (w, &sel, &purpose) {
                (_, None, _) => Value::Blank,
                (What::Name, Some(r), Purpose::Copy(_)) => {
                    Value::Text(format!("{} (custom)", r.name))
                }
                _ => value_of(&base, w),
            };
            (w, w.text_of(&v))
        })
        .collect();
    let mut f = Form::new(base, purpose.clone(), texts, before, style);
    f.knob = Some(knob);
    f.id = match (&purpose, &sel) {
        (Purpose::Replace, Some(r)) => r.id.clone(),
        (Purpose::Copy(of), _) => {
            let c = &f.before.catalog;
            write::free_id(&format!("{of}-custom"), |id| c.region(id).is_err())
        }
        _ => String::new(),
    };
    f.file = dir.map(write::regions_file);
    Ok(f)
}
