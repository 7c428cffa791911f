//! App state and `update`: the only place state changes. After every change
//! everything on screen is recomputed from the pure solver, synchronously,
//! and stored here; `render` only reads it.

use super::action::{Action, Command};
use super::keymap::Keymap;
use super::knobs::{Inputs, Knob};
use super::theme::{Theme, ThemeSet};
use crate::catalog::Catalog;
use crate::solver::{
    self, Arch, Assumptions, Evaluation, Phase, Precision, Sensitivity, Tier, Workload,
};
use ratatui::style::{Modifier, Style};
use ratatui_textarea::TextArea;

/// Device and model the workbench opens on.
pub const DEFAULT_HARDWARE: &str = "h100-sxm";
pub const DEFAULT_MODEL: &str = "llama-3.1-8b";
/// The +10% step of the sensitivity table.
pub const PERTURB: f64 = 0.1;

/// The panes of the roofline view, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Hardware,
    Models,
    Knobs,
    Plot,
    Sensitivity,
    Compare,
}

impl Pane {
    pub const ALL: [Pane; 6] = [
        Pane::Hardware,
        Pane::Models,
        Pane::Knobs,
        Pane::Plot,
        Pane::Sensitivity,
        Pane::Compare,
    ];
    pub fn title(self) -> &'static str {
        match self {
            Pane::Hardware => "Hardware",
            Pane::Models => "Model",
            Pane::Knobs => "Knobs",
            Pane::Plot => "Plot",
            Pane::Sensitivity => "Sensitivity",
            Pane::Compare => "Compare",
        }
    }
    fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
    pub fn next(self) -> Pane {
        Pane::ALL[(self.index() + 1) % Pane::ALL.len()]
    }
    pub fn prev(self) -> Pane {
        Pane::ALL[(self.index() + Pane::ALL.len() - 1) % Pane::ALL.len()]
    }
    pub fn is_picker(self) -> bool {
        matches!(self, Pane::Hardware | Pane::Models)
    }
}

/// What the keys currently drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing into a picker's filter.
    Filter(Pane),
    /// Typing a knob's value.
    Edit,
    /// The help screen is open.
    Help,
}

/// A knob being typed: the entry, why its text is invalid (if it is), and
/// the inputs to restore on Esc.
pub struct KnobEdit {
    pub knob: Knob,
    pub text: TextArea<'static>,
    pub error: Option<String>,
    pub before: Inputs,
}

/// How serious a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// Key figures of a picker row, recomputed with the precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceFigures {
    /// Peak at the activation precision (or the fallback format used).
    pub peak: Option<(Precision, f64)>,
    pub ridge: Option<f64>,
}

/// One device of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    pub hw: usize,
    pub result: Result<Sensitivity, String>,
    /// USD per million tokens, when the device has a price.
    pub cost_per_mtok: Option<f64>,
}

/// Everything computed for one set of inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub hw: usize,
    pub model: usize,
    pub workload: Workload,
    pub assumptions: Assumptions,
    /// Sensitivity, with the base evaluation inside.
    pub sens: Sensitivity,
    /// The other phase (prefill beside decode), for decoders.
    pub other_phase: Option<Evaluation>,
    /// The selected device first, then the marked ones.
    pub compare: Vec<Compared>,
}

impl Analysis {
    pub fn eval(&self) -> &Evaluation {
        &self.sens.base
    }
}

/// The app.
pub struct App {
    pub catalog: Catalog,
    /// Hardware indices grouped by tier; model indices grouped by family.
    pub hw_order: Vec<usize>,
    pub model_order: Vec<usize>,
    pub hw_filter: TextArea<'static>,
    pub model_filter: TextArea<'static>,
    /// The rows that pass the filters, in display order.
    pub hw_visible: Vec<usize>,
    pub model_visible: Vec<usize>,
    /// Selected device and model (catalog indices).
    pub hw: usize,
    pub model: usize,
    /// Devices marked for comparison (catalog indices, in marking order).
    pub marked: Vec<usize>,
    pub workload: Workload,
    pub assumptions: Assumptions,
    /// Selected knob (index into Knob::ALL).
    pub knob: usize,
    pub focus: Pane,
    /// The pane bar at the top has the focus (arrow keys pick a pane).
    pub in_bar: bool,
    pub mode: Mode,
    pub edit: Option<KnobEdit>,
    pub themes: ThemeSet,
    pub theme: usize,
    pub keymap: Keymap,
    /// Pure-ASCII drawing.
    pub ascii: bool,
    /// Problems found at start (catalog, themes, keys), shown until replaced.
    pub notices: Vec<String>,
    /// Feedback on the last action.
    pub message: Option<(Level, String)>,
    /// Picker figures per catalog index.
    pub hw_figures: Vec<DeviceFigures>,
    pub model_kv: Vec<Option<f64>>,
    /// The result for the current inputs, or why there is none.
    pub current: Result<Analysis, String>,
    /// The last inputs that gave a result.
    pub last_valid: Option<Analysis>,
    pub quit: bool,
    /// Something changed since the last draw.
    pub dirty: bool,
}

/// What the app starts from; `run` fills it from the environment, tests
/// fill it by hand.
pub struct Settings {
    pub ascii: bool,
    /// A theme asked for by name (`--theme`).
    pub theme: Option<String>,
    /// NO_COLOR is set.
    pub no_color: bool,
    pub themes: ThemeSet,
    pub keymap: Keymap,
    /// Problems to show in the status line at start.
    pub notices: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            ascii: false,
            theme: None,
            no_color: false,
            themes: ThemeSet::load(crate::catalog::builtin_themes(), &[]),
            keymap: Keymap::default(),
            notices: Vec::new(),
        }
    }
}

fn filter_box(text: &str) -> TextArea<'static> {
    let mut t = TextArea::new(vec![text.to_string()]);
    t.set_cursor_line_style(Style::new());
    t.move_cursor(ratatui_textarea::CursorMove::End);
    t
}

impl App {
    pub fn new(catalog: Catalog, settings: Settings) -> App {
        let mut notices = Vec::new();
        let n = catalog.diagnostics.len();
        if n > 0 {
            notices.push(format!(
                "{n} catalog problem{}: run `ridgeline catalog check`",
                if n == 1 { "" } else { "s" }
            ));
        }
        notices.extend(settings.themes.problems.iter().cloned());
        notices.extend(settings.notices);
        let themes = settings.themes;
        let mut theme = 0;
        if settings.no_color
            && let Some(i) = themes.index_of(super::theme::MONO_THEME)
        {
            theme = i;
        }
        if let Some(name) = &settings.theme {
            match themes.index_of(name) {
                Some(i) => theme = i,
                None => notices.push(format!(
                    "no theme {name:?}; using {} (themes: {})",
                    themes.themes[theme].name,
                    themes
                        .themes
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
        let mut hw_order: Vec<usize> = (0..catalog.hardware.len()).collect();
        hw_order.sort_by_key(|&i| {
            let t = catalog.hardware[i].hw.tier;
            Tier::ALL.iter().position(|x| *x == t).unwrap_or(usize::MAX)
        });
        let mut families: Vec<&str> = Vec::new();
        for m in &catalog.models {
            if !families.contains(&m.family.as_str()) {
                families.push(&m.family);
            }
        }
        let mut model_order: Vec<usize> = (0..catalog.models.len()).collect();
        model_order.sort_by_key(|&i| {
            families
                .iter()
                .position(|f| *f == catalog.models[i].family)
                .unwrap_or(usize::MAX)
        });
        let hw = catalog
            .hardware(DEFAULT_HARDWARE)
            .ok()
            .and_then(|e| catalog.hardware.iter().position(|x| x.hw.id == e.hw.id))
            .or_else(|| hw_order.first().copied())
            .unwrap_or(0);
        let model = catalog
            .model(DEFAULT_MODEL)
            .ok()
            .and_then(|e| catalog.models.iter().position(|x| x.model.id == e.model.id))
            .or_else(|| model_order.first().copied())
            .unwrap_or(0);
        let mut app = App {
            hw_visible: hw_order.clone(),
            model_visible: model_order.clone(),
            catalog,
            hw_order,
            model_order,
            hw_filter: filter_box(""),
            model_filter: filter_box(""),
            hw,
            model,
            marked: Vec::new(),
            workload: Workload::default(),
            assumptions: Assumptions::default(),
            knob: 0,
            focus: Pane::Hardware,
            in_bar: false,
            mode: Mode::Normal,
            edit: None,
            themes,
            theme,
            keymap: settings.keymap,
            ascii: settings.ascii,
            notices,
            message: None,
            hw_figures: Vec::new(),
            model_kv: Vec::new(),
            current: Err("not computed yet".to_string()),
            last_valid: None,
            quit: false,
            dirty: true,
        };
        app.recompute();
        app
    }

    pub fn theme(&self) -> &Theme {
        &self.themes.themes[self.theme]
    }

    pub fn inputs(&self) -> Inputs {
        (self.workload, self.assumptions)
    }

    pub fn selected_knob(&self) -> Knob {
        Knob::ALL[self.knob.min(Knob::ALL.len() - 1)]
    }

    /// The analysis to show, and whether it is the last valid one rather
    /// than the result of what is on screen (a solver error, or an entry
    /// holding invalid text).
    pub fn shown(&self) -> Option<(&Analysis, bool)> {
        let entry_invalid = self.edit.as_ref().is_some_and(|e| e.error.is_some());
        match &self.current {
            Ok(a) => Some((a, entry_invalid)),
            Err(_) => self.last_valid.as_ref().map(|a| (a, true)),
        }
    }

    /// The filter text of a picker.
    pub fn filter_text(&self, pane: Pane) -> &str {
        let t = if pane == Pane::Models {
            &self.model_filter
        } else {
            &self.hw_filter
        };
        t.lines().first().map_or("", |s| s.as_str())
    }

    /// Devices on the plot and in the comparison: the selected one, then the marked ones.
    pub fn shown_devices(&self) -> Vec<usize> {
        let mut v = vec![self.hw];
        v.extend(self.marked.iter().copied().filter(|&i| i != self.hw));
        v
    }

    /// Recompute every figure from the solver for the current state.
    pub fn recompute(&mut self) {
        self.hw_visible = visible(&self.hw_order, self.filter_text(Pane::Hardware), |i| {
            let e = &self.catalog.hardware[i];
            let mut s = vec![e.hw.id.as_str(), e.hw.name.as_str(), e.vendor.as_str()];
            s.extend(e.family.as_deref());
            s.extend(e.aliases.iter().map(|a| a.as_str()));
            s.push(e.hw.tier.name());
            s.join(" ")
        });
        self.model_visible = visible(&self.model_order, self.filter_text(Pane::Models), |i| {
            let e = &self.catalog.models[i];
            let mut s = vec![
                e.model.id.as_str(),
                e.model.name.as_str(),
                e.family.as_str(),
            ];
            s.extend(e.aliases.iter().map(|a| a.as_str()));
            s.join(" ")
        });
        let prec = self.workload.activations;
        self.hw_figures = self
            .catalog
            .hardware
            .iter()
            .map(|e| DeviceFigures {
                peak: e.hw.peaks.resolve(prec),
                ridge: e.hw.ridge_point(prec),
            })
            .collect();
        let kv = self.workload.kv.bytes();
        self.model_kv = self
            .catalog
            .models
            .iter()
            .map(|e| match &e.model.arch {
                Arch::Decoder(d) => Some(d.kv_bytes_per_token(kv)),
                Arch::SinglePass(_) => None,
            })
            .collect();
        self.current = self.analyse();
        if let Ok(a) = &self.current {
            self.last_valid = Some(a.clone());
        }
    }

    fn analyse(&self) -> Result<Analysis, String> {
        let hw = &self
            .catalog
            .hardware
            .get(self.hw)
            .ok_or("the catalog has no hardware")?
            .hw;
        let model = &self
            .catalog
            .models
            .get(self.model)
            .ok_or("the catalog has no models")?
            .model;
        let (wl, a) = self.inputs();
        let sens = solver::sensitivity(hw, model, &wl, &a, PERTURB).map_err(|e| e.to_string())?;
        let other_phase = if model.kind.is_decoder() {
            let other = Workload {
                phase: match wl.phase {
                    Phase::Decode => Phase::Prefill,
                    Phase::Prefill => Phase::Decode,
                },
                ..wl
            };
            solver::evaluate(hw, model, &other, &a).ok()
        } else {
            None
        };
        let compare = self
            .shown_devices()
            .into_iter()
            .map(|i| {
                let dev = &self.catalog.hardware[i].hw;
                let result = if i == self.hw {
                    Ok(sens.clone())
                } else {
                    solver::sensitivity(dev, model, &wl, &a, PERTURB).map_err(|e| e.to_string())
                };
                let cost_per_mtok = result
                    .as_ref()
                    .ok()
                    .and_then(|s| cost_per_million_tokens(dev.price_per_hour_usd, &s.base));
                Compared {
                    hw: i,
                    result,
                    cost_per_mtok,
                }
            })
            .collect();
        Ok(Analysis {
            hw: self.hw,
            model: self.model,
            workload: wl,
            assumptions: a,
            sens,
            other_phase,
            compare,
        })
    }

    fn say(&mut self, level: Level, text: impl Into<String>) {
        self.message = Some((level, text.into()));
    }
}

/// USD per million tokens of the layout (devices * price/hour), from the
/// solver's economics. None without a price.
pub fn cost_per_million_tokens(price_per_hour_usd: Option<f64>, ev: &Evaluation) -> Option<f64> {
    let per_hour = price_per_hour_usd? * ev.devices() as f64;
    solver::economics::cost_per_million_tokens(per_hour, ev.tokens_per_s)
}

/// The entries of `order` whose text contains every word of `filter`
/// (case-insensitive).
fn visible(order: &[usize], filter: &str, text: impl Fn(usize) -> String) -> Vec<usize> {
    let words: Vec<String> = filter
        .split_whitespace()
        .map(|w| w.to_lowercase())
        .collect();
    if words.is_empty() {
        return order.to_vec();
    }
    order
        .iter()
        .copied()
        .filter(|&i| {
            let t = text(i).to_lowercase();
            words.iter().all(|w| t.contains(w.as_str()))
        })
        .collect()
}

/// Move within a list of visible entries: the new selection.
fn moved(visible: &[usize], current: usize, delta: isize) -> Option<usize> {
    if visible.is_empty() {
        return None;
    }
    let pos = visible.iter().position(|&i| i == current);
    let next = match pos {
        None => 0,
        Some(p) => (p as isize + delta).clamp(0, visible.len() as isize - 1) as usize,
    };
    Some(visible[next])
}

/// Change state for one action, then recompute. The only mutator.
pub fn update(app: &mut App, action: Action) {
    app.dirty = true;
    if action != Action::Resize {
        app.message = None;
    }
    match action {
        Action::Resize => return,
        Action::Input(input) => {
            match app.mode {
                Mode::Filter(pane) => {
                    let t = if pane == Pane::Models {
                        &mut app.model_filter
                    } else {
                        &mut app.hw_filter
                    };
                    t.input(input);
                    app.recompute();
                    follow_filter(app, pane);
                }
                Mode::Edit => {
                    if let Some(e) = app.edit.as_mut() {
                        e.text.input(input);
                    }
                    apply_entry(app);
                }
                _ => {}
            }
            return;
        }
        Action::Do(cmd) => command(app, cmd),
    }
    app.recompute();
}

/// After the filter changed: keep the selection on a visible row.
fn follow_filter(app: &mut App, pane: Pane) {
    let (visible, sel) = if pane == Pane::Models {
        (&app.model_visible, app.model)
    } else {
        (&app.hw_visible, app.hw)
    };
    if !visible.contains(&sel)
        && let Some(&first) = visible.first()
    {
        if pane == Pane::Models {
            app.model = first;
        } else {
            app.hw = first;
        }
        app.recompute();
    }
}

/// Read the entry's text; apply it when the solver accepts it.
fn apply_entry(app: &mut App) {
    let Some(edit) = app.edit.as_mut() else {
        return;
    };
    let text = edit.text.lines().first().cloned().unwrap_or_default();
    let parsed = edit.knob.parse(&text, &edit.before);
    match parsed {
        Err(e) => edit.error = Some(e),
        Ok((wl, a)) => {
            let checked = solver::roofline::validate_workload(&wl)
                .and_then(|_| solver::roofline::validate_assumptions(&a));
            match checked {
                Err(e) => edit.error = Some(e.to_string()),
                Ok(()) => {
                    edit.error = None;
                    app.workload = wl;
                    app.assumptions = a;
                    app.recompute();
                }
            }
        }
    }
}

fn move_selection(app: &mut App, delta: isize, to_bar_at_top: bool) {
    match app.focus {
        Pane::Hardware | Pane::Models => {
            let models = app.focus == Pane::Models;
            let (visible, cur) = if models {
                (&app.model_visible, app.model)
            } else {
                (&app.hw_visible, app.hw)
            };
            let at_top = visible.first().is_none_or(|&f| f == cur);
            if delta < 0 && at_top && to_bar_at_top {
                app.in_bar = true;
                return;
            }
            if let Some(n) = moved(visible, cur, delta) {
                if models {
                    app.model = n;
                } else {
                    app.hw = n;
                }
            }
        }
        Pane::Knobs => {
            if delta < 0 && app.knob == 0 && to_bar_at_top {
                app.in_bar = true;
                return;
            }
            app.knob = (app.knob as isize + delta).clamp(0, Knob::ALL.len() as isize - 1) as usize;
        }
        _ => {
            if delta < 0 && to_bar_at_top {
                app.in_bar = true;
            }
        }
    }
}

fn step_knob(app: &mut App, up: bool) {
    let k = app.selected_knob();
    let (wl, a) = k.step(&app.inputs(), up);
    app.workload = wl;
    app.assumptions = a;
    app.say(Level::Info, format!("{} {}", k.label(), k.value(&(wl, a))));
}

fn command(app: &mut App, cmd: Command) {
    // Text entries take only confirm, cancel, quit and list moves.
    match app.mode {
        Mode::Filter(pane) => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit => {
                    app.mode = Mode::Normal;
                    let n = if pane == Pane::Models {
                        app.model_visible.len()
                    } else {
                        app.hw_visible.len()
                    };
                    app.say(
                        Level::Info,
                        format!("filter kept: {n} shown; Esc clears it"),
                    );
                }
                Command::Cancel => {
                    if pane == Pane::Models {
                        app.model_filter = filter_box("");
                    } else {
                        app.hw_filter = filter_box("");
                    }
                    app.mode = Mode::Normal;
                }
                Command::Up => move_selection(app, -1, false),
                Command::Down => move_selection(app, 1, false),
                _ => {}
            }
            return;
        }
        Mode::Edit => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit => {
                    let Some(e) = &app.edit else { return };
                    if let Some(err) = &e.error {
                        let msg = format!("not applied: {err}; fix it or press Esc");
                        app.say(Level::Error, msg);
                    } else {
                        let k = e.knob;
                        app.edit = None;
                        app.mode = Mode::Normal;
                        let v = k.value(&app.inputs());
                        app.say(Level::Info, format!("{} set to {v}", k.label()));
                    }
                }
                Command::Cancel => {
                    if let Some(e) = app.edit.take() {
                        (app.workload, app.assumptions) = e.before;
                    }
                    app.mode = Mode::Normal;
                    app.say(Level::Info, "entry cancelled");
                }
                _ => {}
            }
            return;
        }
        Mode::Help => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Help | Command::Cancel | Command::Edit => app.mode = Mode::Normal,
                _ => {}
            }
            return;
        }
        Mode::Normal => {}
    }
    match cmd {
        Command::Quit => app.quit = true,
        Command::Help => app.mode = Mode::Help,
        Command::NextPane => {
            app.focus = app.focus.next();
            app.in_bar = false;
        }
        Command::PrevPane => {
            app.focus = app.focus.prev();
            app.in_bar = false;
        }
        Command::Up => {
            if !app.in_bar {
                move_selection(app, -1, true)
            }
        }
        Command::Down => {
            if app.in_bar {
                app.in_bar = false;
            } else {
                move_selection(app, 1, false)
            }
        }
        Command::PageUp => move_selection(app, -10, false),
        Command::PageDown => move_selection(app, 10, false),
        Command::Top => move_selection(app, -100_000, false),
        Command::Bottom => move_selection(app, 100_000, false),
        Command::Left | Command::Right => {
            let up = cmd == Command::Right;
            if app.focus == Pane::Knobs && !app.in_bar {
                step_knob(app, up);
            } else {
                app.focus = if up {
                    app.focus.next()
                } else {
                    app.focus.prev()
                };
            }
        }
        Command::Increase => step_knob(app, true),
        Command::Decrease => step_knob(app, false),
        Command::Filter => {
            if !app.focus.is_picker() {
                app.focus = Pane::Hardware;
            }
            app.in_bar = false;
            app.mode = Mode::Filter(app.focus);
            let theme = app.theme().clone();
            if app.focus == Pane::Models {
                style_entry(&mut app.model_filter, &theme);
            } else {
                style_entry(&mut app.hw_filter, &theme);
            }
        }
        Command::Edit => {
            if app.in_bar {
                app.in_bar = false;
            } else if app.focus == Pane::Knobs {
                let knob = app.selected_knob();
                let before = app.inputs();
                let mut text = filter_box(&knob.value(&before));
                text.select_all();
                style_entry(&mut text, app.theme());
                app.edit = Some(KnobEdit {
                    knob,
                    text,
                    error: None,
                    before,
                });
                app.mode = Mode::Edit;
            } else if app.focus.is_picker() {
                app.focus = app.focus.next();
            }
        }
        Command::Cancel => {
            if app.in_bar {
                app.in_bar = false;
            } else if app.focus.is_picker() && !app.filter_text(app.focus).is_empty() {
                if app.focus == Pane::Models {
                    app.model_filter = filter_box("");
                } else {
                    app.hw_filter = filter_box("");
                }
                app.say(Level::Info, "filter cleared");
            } else {
                // Nothing to cancel: dismiss the start-up notices.
                app.notices.clear();
            }
        }
        Command::Mark => {
            if app.focus == Pane::Hardware && !app.in_bar {
                let i = app.hw;
                let id = app.catalog.hardware[i].hw.id.clone();
                if let Some(p) = app.marked.iter().position(|&m| m == i) {
                    app.marked.remove(p);
                    app.say(Level::Info, format!("unmarked {id}"));
                } else {
                    app.marked.push(i);
                    app.say(Level::Info, format!("marked {id} for comparison"));
                }
            } else {
                let k = app.keymap.first_key(Command::Mark);
                app.say(
                    Level::Info,
                    format!("{k} marks devices in the Hardware list"),
                );
            }
        }
        Command::ClearMarks => {
            app.marked.clear();
            app.say(Level::Info, "marks cleared");
        }
        Command::NextTheme => {
            app.theme = (app.theme + 1) % app.themes.themes.len();
            let name = app.theme().name.clone();
            app.say(Level::Info, format!("theme {name}"));
        }
    }
}

/// Give an entry box the theme's colours (when it opens).
fn style_entry(t: &mut TextArea<'static>, theme: &Theme) {
    t.set_style(theme.base());
    t.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
    t.set_selection_style(theme.selected());
    t.set_cursor_line_style(Style::new());
}
