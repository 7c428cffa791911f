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

mod fields;
mod render;
#[cfg(test)]
mod tests;

pub use fields::{DEVICE, REGION, Value, What, kebab};
pub use render::{Split, hint, render, split};

use super::app::{App, Level, Mode, Pane};
use super::knobs::{Knob, ViewInputs};
use crate::catalog::write::{self, Mode as WriteMode};
use crate::catalog::{Catalog, HardwareEntry, Price, Region};
use crate::solver::{Hardware, Peaks, Precision, Tier};
use fields::Context;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::TextArea;
use std::collections::BTreeMap;
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
    Device(HardwareEntry),
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

/// True when an entry comes from the user catalog directory `dir`.
pub fn is_user(origin: &str, dir: Option<&Path>) -> bool {
    dir.is_some_and(|d| Path::new(origin).starts_with(d))
}

/// The year and month now, from the system clock (UTC).
fn today() -> (u16, u8) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil((secs / 86_400) as i64)
}

/// The (year, month) of a day counted from 1970-01-01, by the proleptic
/// Gregorian calendar (H. Hinnant, "chrono-Compatible Low-Level Date
/// Algorithms", civil_from_days).
fn civil(days: i64) -> (u16, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y.clamp(1940, 2100) as u16, m as u8)
}

/// The source of an entry typed in the workbench.
pub const USER_SOURCE: &str = "user entry (typed in the ridgeline workbench)";

fn blank_device(year: u16) -> HardwareEntry {
    HardwareEntry {
        hw: Hardware {
            id: String::new(),
            name: String::new(),
            tier: Tier::Cloud,
            year,
            peaks: Peaks::default(),
            memory_bytes: 0.0,
            memory_bandwidth: 0.0,
            link_bandwidth: None,
            devices_per_node: 1,
            scaleout_bandwidth: None,
            torus: None,
            tdp_w: None,
            price_per_hour_usd: None,
        },
        aliases: Vec::new(),
        vendor: "user".into(),
        family: None,
        source: USER_SOURCE.into(),
        sources: BTreeMap::new(),
        notes: None,
        price: None,
        origin: String::new(),
    }
}

fn blank_region(year: u16) -> Region {
    Region {
        id: String::new(),
        name: String::new(),
        grid_gco2_per_kwh: 0.0,
        pue: 0.0,
        electricity_usd_per_kwh: 0.0,
        year,
        source: USER_SOURCE.into(),
        notes: None,
        sources: BTreeMap::new(),
        origin: String::new(),
    }
}

/// The value a field has in an entry.
fn value_of(base: &Base, what: What) -> Value {
    let num = |x: Option<f64>| x.filter(|v| *v > 0.0).map_or(Value::Blank, Value::Number);
    match (base, what) {
        (Base::Device(e), What::Name) => Value::Text(e.hw.name.clone()),
        (Base::Region(r), What::Name) => Value::Text(r.name.clone()),
        (Base::Device(e), What::Tier) => Value::Tier(e.hw.tier),
        (Base::Device(e), What::Peak(p)) => num(e.hw.peaks.get(p)),
        (Base::Device(e), What::Bandwidth) => num(Some(e.hw.memory_bandwidth)),
        (Base::Device(e), What::Memory) => num(Some(e.hw.memory_bytes)),
        (Base::Device(e), What::ScaleUp) => num(e.hw.link_bandwidth),
        (Base::Device(e), What::PerNode) => Value::Whole(e.hw.devices_per_node),
        (Base::Device(e), What::Tdp) => num(e.hw.tdp_w),
        (Base::Device(e), What::Price) => num(e.hw.price_per_hour_usd),
        (Base::Region(r), What::Grid) => Value::Number(r.grid_gco2_per_kwh),
        (Base::Region(r), What::Pue) => Value::Number(r.pue),
        (Base::Region(r), What::Electricity) => Value::Number(r.electricity_usd_per_kwh),
        _ => Value::Blank,
    }
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
        let c = &self.before.catalog;
        let device = self.is_device();
        self.id = write::free_id(&stem, |id| {
            if device {
                c.hardware(id).is_err()
            } else {
                c.region(id).is_err()
            }
        });
    }

    /// The entry as the fields have it (the last valid value of each).
    pub fn draft(&self) -> Base {
        match &self.base {
            Base::Device(b) => Base::Device(self.device(b)),
            Base::Region(b) => Base::Region(self.region(b)),
        }
    }

    fn number(&self, what: What) -> Option<f64> {
        self.value(what).and_then(Value::number)
    }

    fn device(&self, b: &HardwareEntry) -> HardwareEntry {
        let mut e = b.clone();
        let hw = &mut e.hw;
        hw.id = self.id.clone();
        if let Some(Value::Text(n)) = self.value(What::Name) {
            hw.name = n.clone();
        }
        if let Some(Value::Tier(t)) = self.value(What::Tier) {
            hw.tier = *t;
        }
        for p in Precision::ALL {
            hw.peaks.set(p, self.number(What::Peak(p)));
        }
        hw.memory_bandwidth = self.number(What::Bandwidth).unwrap_or(0.0);
        hw.memory_bytes = self.number(What::Memory).unwrap_or(0.0);
        hw.link_bandwidth = self.number(What::ScaleUp);
        hw.devices_per_node = match self.value(What::PerNode) {
            Some(Value::Whole(n)) => *n,
            _ => 1,
        };
        hw.tdp_w = self.number(What::Tdp);
        hw.price_per_hour_usd = self.number(What::Price);
        e.price = self.price(b);
        if let Purpose::Copy(of) = &self.purpose {
            e.aliases.clear();
            e.notes = None;
            e.origin = String::new();
            e.sources = kept_sources(b, &e);
            e.source = format!("user entry (typed in the ridgeline workbench), edited from {of}");
        }
        e
    }

    /// The price table: the base's while the price per hour is unchanged,
    /// else the new figure "as of" this month (a purchase price stays, with
    /// its source named).
    fn price(&self, b: &HardwareEntry) -> Option<Price> {
        let hour = self.number(What::Price);
        if hour == b.hw.price_per_hour_usd {
            return b.price.clone();
        }
        let purchase = b
            .price
            .as_ref()
            .and_then(|p| p.purchase_usd.map(|x| (x, &p.source)));
        if hour.is_none() && purchase.is_none() {
            return None;
        }
        Some(Price {
            per_hour_usd: hour,
            purchase_usd: purchase.map(|(x, _)| x),
            as_of: self.month.clone(),
            source: match purchase {
                Some((_, s)) => format!("{USER_SOURCE}; purchase price: {s}"),
                None => USER_SOURCE.into(),
            },
        })
    }

    fn region(&self, b: &Region) -> Region {
        let mut r = b.clone();
        r.id = self.id.clone();
        if let Some(Value::Text(n)) = self.value(What::Name) {
            r.name = n.clone();
        }
        r.grid_gco2_per_kwh = self.number(What::Grid).unwrap_or(b.grid_gco2_per_kwh);
        r.pue = self.number(What::Pue).unwrap_or(b.pue);
        r.electricity_usd_per_kwh = self
            .number(What::Electricity)
            .unwrap_or(b.electricity_usd_per_kwh);
        if let Purpose::Copy(of) = &self.purpose {
            r.notes = None;
            r.origin = String::new();
            let mut s = BTreeMap::new();
            for (k, old, new) in [
                (
                    "grid_gco2_per_kwh",
                    b.grid_gco2_per_kwh,
                    r.grid_gco2_per_kwh,
                ),
                ("pue", b.pue, r.pue),
                (
                    "electricity_usd_per_kwh",
                    b.electricity_usd_per_kwh,
                    r.electricity_usd_per_kwh,
                ),
            ] {
                if old == new {
                    s.insert(k.to_string(), b.sources.get(k).unwrap_or(&b.source).clone());
                }
            }
            r.sources = s;
            r.source = format!("user entry (typed in the ridgeline workbench), edited from {of}");
        }
        r
    }
}

/// The sources of a copy: each figure left as it was keeps the source it
/// had; a changed one has none but the entry's (the user's).
fn kept_sources(b: &HardwareEntry, e: &HardwareEntry) -> BTreeMap<String, String> {
    let (o, n) = (&b.hw, &e.hw);
    let same = [
        ("peak", o.peaks == n.peaks),
        ("memory_bandwidth", o.memory_bandwidth == n.memory_bandwidth),
        ("memory", o.memory_bytes == n.memory_bytes),
        (
            "interconnect",
            o.link_bandwidth == n.link_bandwidth && o.devices_per_node == n.devices_per_node,
        ),
        ("tdp", o.tdp_w == n.tdp_w),
    ];
    same.iter()
        .filter(|(_, s)| *s)
        .map(|(k, _)| (k.to_string(), b.source_of(k).to_string()))
        .collect()
}

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
    use super::action::Command;
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
    let base = Base::Device(base);
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
            app.hw = c.put_hardware(e);
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
        app.say(
            Level::Info,
            format!(
                "saved {what} {} to {file}{via}: selected, marked as a user entry",
                saved.id
            ),
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
