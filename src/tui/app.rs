//! App state. `update` (update.rs) is the only place it changes; after every change
//! everything on screen is recomputed from the pure solver, synchronously,
//! and stored here; `render` only reads it. One exception: the Training
//! view's scaling curve, too slow for a keystroke, is kept with the key of
//! its inputs and, in the terminal, computed on a worker
//! (`views::training::Curves`); the loop takes it when it lands
//! (`update::land`).

use super::keymap::{Keymap, Keys};
use super::knobs::{Choices, Family, Inputs, Knob, Profile, ViewInputs};
use super::scenario_io::Session;
use super::theme::{Theme, ThemeSet};
use super::views::{self, View, ViewData};
use crate::catalog::{Catalog, device_class};
use crate::solver::compare::{self, SortBy, Speedup, Verdict};
use crate::solver::{
    self, Arch, Assumptions, Evaluation, Hardware, Phase, Precision, Sensitivity, Tier, Workload,
};
use ratatui::style::Style;
use ratatui_textarea::TextArea;

/// Device and model the workbench opens on (the command line's defaults too).
pub use crate::catalog::{DEFAULT_HARDWARE, DEFAULT_MODEL};
/// The +10% step of the sensitivity table.
pub const PERTURB: f64 = 0.1;

/// Where a scenario is saved unless the user types another path.
pub const DEFAULT_SCENARIO_PATH: &str = "./ridgeline-scenario.toml";

/// The panes, in focus order. The roofline view has the first six; the
/// other views have the pickers, the knobs and their own pane (`View`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Hardware,
    Models,
    Knobs,
    Plot,
    Sensitivity,
    Compare,
    /// The view's own pane (Serving, Synthesis, ...).
    View,
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
            Pane::View => "View",
        }
    }
    /// The panes of a view, in focus order.
    pub fn of(view: View) -> &'static [Pane] {
        const OTHER: [Pane; 4] = [Pane::Hardware, Pane::Models, Pane::Knobs, Pane::View];
        if view == View::Roofline {
            &Pane::ALL
        } else {
            &OTHER
        }
    }
    fn index_in(self, view: View) -> usize {
        Pane::of(view).iter().position(|p| *p == self).unwrap_or(0)
    }
    /// The next pane of `view`, wrapping.
    pub fn next_in(self, view: View) -> Pane {
        let all = Pane::of(view);
        all[(self.index_in(view) + 1) % all.len()]
    }
    pub fn prev_in(self, view: View) -> Pane {
        let all = Pane::of(view);
        all[(self.index_in(view) + all.len() - 1) % all.len()]
    }
    pub fn next(self) -> Pane {
        self.next_in(View::Roofline)
    }
    pub fn prev(self) -> Pane {
        self.prev_in(View::Roofline)
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
    /// Typing the path to save a scenario to.
    Save,
    /// Typing the path of a config.json to import a model from.
    Import,
    /// Typing into the fields of a device or region form (`form`).
    Form,
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
    /// The solver's judgement (`solver::compare::assess`): the fit verdict,
    /// the evaluation at the fewest devices that hold it when it does not
    /// fit, and the cost of whichever configuration runs. None on an error.
    pub judged: Option<compare::Compared>,
    /// The speedup over the baseline and why; only when both fit.
    pub speedup: Option<Speedup>,
}

impl Compared {
    /// The fit verdict (None on an error).
    pub fn verdict(&self) -> Option<Verdict> {
        self.judged.as_ref().map(|j| j.verdict)
    }
    /// True when the workload fits as asked.
    pub fn fits(&self) -> bool {
        self.verdict().is_some_and(Verdict::fits)
    }
    /// USD per million tokens of the configuration that runs: as asked when
    /// it fits, else at the fewest devices that hold it (see `running`).
    pub fn cost_per_mtok(&self) -> Option<f64> {
        self.judged.as_ref()?.cost_per_mtok
    }
    /// The evaluation of the configuration that runs (None: nothing does).
    pub fn running(&self) -> Option<&Evaluation> {
        self.judged.as_ref()?.running()
    }
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
    /// When the workload does not fit as asked: the sensitivity on the
    /// fewest devices that hold it (the configuration the plot and status
    /// show), else None.
    pub at_fit_sens: Option<Box<Sensitivity>>,
    /// The other phase (prefill beside decode), for decoders.
    pub other_phase: Option<Evaluation>,
    /// The selected device first, then the marked ones.
    pub compare: Vec<Compared>,
    /// The row of `compare` the speedups are over (None: no device fits).
    pub baseline: Option<usize>,
    /// The rows of `compare` in display order: those that fit first, by
    /// `sort` (solver::compare::order).
    pub order: Vec<usize>,
    pub sort: SortBy,
}

impl Analysis {
    pub fn eval(&self) -> &Evaluation {
        &self.sens.base
    }
    /// The sensitivity of the configuration that runs: as asked when it
    /// fits, else on the fewest devices that hold it; None when nothing does.
    pub fn running_sens(&self) -> Option<&Sensitivity> {
        if self.sens.base.memory.fits {
            Some(&self.sens)
        } else {
            self.at_fit_sens.as_deref()
        }
    }
    /// The comparison row of the device the analysis is about.
    pub fn selected(&self) -> Option<&Compared> {
        self.compare.iter().find(|c| c.hw == self.hw)
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
    /// The selection a filter falls back to: the row selected when the
    /// filter opened or last moved to. While filtering, the selection is
    /// the anchor when it passes, else the first row that does, so it
    /// depends on the filter's text alone, not on how it was typed.
    pub filter_anchor: usize,
    /// Selected device and model (catalog indices).
    pub hw: usize,
    pub model: usize,
    /// Devices marked for comparison (catalog indices, in marking order).
    pub marked: Vec<usize>,
    pub workload: Workload,
    pub assumptions: Assumptions,
    /// The calibration profile the assumptions start from.
    pub profile: Profile,
    /// The inputs of the views (prompt, output, target, SLAs, regions, ...).
    pub view_inputs: ViewInputs,
    /// The view on screen.
    pub view: View,
    /// Selected knob (index into the view's knobs, Knob::for_view).
    pub knob: usize,
    pub focus: Pane,
    /// The pane bar at the top has the focus (arrow keys pick a pane).
    pub in_bar: bool,
    /// In the bar, the view switcher has the focus (Left/Right pick a view).
    pub bar_view: bool,
    /// The focused pane fills the screen, over the headline (`z`, for demos).
    pub zoom: bool,
    /// The path entry of a scenario save.
    pub save_path: TextArea<'static>,
    /// The path entry of a model import (`i`).
    pub import_path: TextArea<'static>,
    /// The scenario files of this session: title kept, files owned, a save
    /// waiting for its y/n.
    pub session: Session,
    /// The hardware of the catalog as solver types (for ranking and fleets).
    pub devices: Vec<Hardware>,
    /// Region ids and hardware families, for the view knobs.
    pub choices: Choices,
    /// The figures of the view on screen, or why there are none.
    pub view_data: Result<ViewData, String>,
    /// The last figures of that view that computed.
    pub last_view_data: Option<ViewData>,
    pub mode: Mode,
    pub edit: Option<KnobEdit>,
    /// The device or region form, while it is open.
    pub form: Option<super::form::Form>,
    /// The user catalog directory (`--catalog`, else the config dir's
    /// `catalog`): where the forms save. None: none could be found.
    pub catalog_dir: Option<std::path::PathBuf>,
    pub themes: ThemeSet,
    pub theme: usize,
    pub keymap: Keymap,
    /// Pure-ASCII drawing.
    pub ascii: bool,
    /// Problems found at start (catalog, themes, keys), shown until replaced.
    pub notices: Vec<String>,
    /// Feedback on the last action.
    pub message: Option<(Level, String)>,
    /// Where `X` writes its exports: the current directory when the
    /// workbench runs in a terminal (`tui::run` sets it); None, as in tests
    /// and benches, exports nothing.
    pub export_dir: Option<std::path::PathBuf>,
    /// Bytes for the terminal itself (the OSC 52 of `y`), written by the
    /// event loop after the next draw.
    pub osc: Vec<u8>,
    /// Picker figures per catalog index.
    pub hw_figures: Vec<DeviceFigures>,
    pub model_kv: Vec<Option<f64>>,
    /// The result for the current inputs, or why there is none.
    pub current: Result<Analysis, String>,
    /// The last inputs that gave a result.
    pub last_valid: Option<Analysis>,
    /// First row shown of the view's table (Synthesis matches, Fleet
    /// devices), or the selected row of a comparison (Generations, Compare),
    /// in display order.
    pub view_scroll: usize,
    /// The order of the comparisons (Compare, Generations); `o` cycles it.
    pub compare_sort: SortBy,
    /// The device the speedups are over (catalog index), picked with `b`;
    /// None: the first that fits.
    pub baseline: Option<usize>,
    /// First row of the help screen (it scrolls on short screens).
    pub help_scroll: usize,
    /// The Training view's last layout search and what it was run for.
    pub train_search: Option<views::training::SearchRun>,
    /// The Training view shows its scaling plot in place of its sections.
    pub train_scaling: bool,
    /// The scaling plot's last curve and the one wanted (computed on a
    /// worker when one is attached: `tui::run` attaches one).
    pub train_curve: views::training::Curves,
    /// The Explore view's last search and what it was run for.
    pub explore_cache: Option<views::explore::ExploreCache>,
    /// The Fleet view's "within the budget, one change at a time", with
    /// what it was found for (searched again only when that changes).
    pub fleet_relaxed: Option<views::FleetRelaxed>,
    /// How many times the Explore view searched (tests count them).
    pub explore_searches: u64,
    /// Presenter mode: the lesson being given, the lesson picker.
    pub presenter: super::lesson::Presenter,
    /// In a shared room (`ridgeline share --present-key`): following the
    /// presenter, on one's own, or presenting. None elsewhere.
    pub room: Option<super::follow::Room>,
    pub quit: bool,
    /// Something changed since the last draw.
    pub dirty: bool,
    /// How many times every figure was recomputed (the work an action
    /// costs; tests bound it).
    pub recomputes: u64,
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

pub(crate) fn filter_box(text: &str) -> TextArea<'static> {
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
            // Each one on its own line of the problems panel (the first
            // hundred; `catalog check` lists them all).
            notices.extend(catalog.diagnostics.iter().take(100).map(|d| d.to_string()));
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
        let (hw_order, model_order) = orders(&catalog);
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
        let devices: Vec<Hardware> = catalog.hardware.iter().map(|e| e.hw.clone()).collect();
        let choices = choices(&catalog);
        // The profile the command line starts on; the plain roofline if a
        // catalog has none by that name.
        let profile = catalog
            .profile(crate::scenario::DEFAULT_PROFILE)
            .map_or_else(
                |_| Profile {
                    id: "roofline".into(),
                    base: Assumptions::default(),
                    training: Default::default(),
                    class: None,
                },
                |p| Profile {
                    id: p.id.clone(),
                    base: p.assumptions,
                    training: p.training,
                    class: None,
                },
            );
        let mut view_inputs = ViewInputs::default();
        if !choices.regions.contains(&view_inputs.region)
            && let Some(r) = choices.regions.first()
        {
            view_inputs.region = r.clone();
            view_inputs.regions = vec![r.clone()];
        }
        // Generations opens on A100 -> H100 -> H200 -> B200 (or the family
        // of the device the workbench opens on when that device is not one
        // of them, or the catalog lacks one).
        view_inputs.family = default_family(&catalog, hw, &choices.families);
        let mut app = App {
            hw_visible: hw_order.clone(),
            model_visible: model_order.clone(),
            filter_anchor: 0,
            catalog,
            hw_order,
            model_order,
            hw_filter: filter_box(""),
            model_filter: filter_box(""),
            hw,
            model,
            marked: Vec::new(),
            workload: Workload::default(),
            assumptions: profile.base,
            profile,
            view_inputs,
            view: View::Roofline,
            knob: 0,
            focus: Pane::Hardware,
            in_bar: false,
            bar_view: false,
            zoom: false,
            save_path: filter_box(DEFAULT_SCENARIO_PATH),
            import_path: filter_box(""),
            session: Session::new(),
            devices,
            choices,
            view_data: Ok(ViewData::Roofline),
            last_view_data: None,
            mode: Mode::Normal,
            edit: None,
            form: None,
            catalog_dir: None,
            themes,
            theme,
            keymap: settings.keymap,
            ascii: settings.ascii,
            notices,
            message: None,
            osc: Vec::new(),
            export_dir: None,
            hw_figures: Vec::new(),
            model_kv: Vec::new(),
            current: Err("not computed yet".to_string()),
            last_valid: None,
            help_scroll: 0,
            train_search: None,
            train_scaling: false,
            train_curve: Default::default(),
            view_scroll: 0,
            compare_sort: SortBy::Listed,
            baseline: None,
            quit: false,
            dirty: true,
            recomputes: 0,
            explore_cache: None,
            fleet_relaxed: None,
            explore_searches: 0,
            presenter: Default::default(),
            room: None,
        };
        app.recompute();
        app
    }

    /// Switch to a view: its panes, its knobs, its figures.
    pub fn set_view(&mut self, view: View) {
        if self.view != view {
            self.view = view;
            self.knob = 0;
            self.view_scroll = 0;
            self.last_view_data = None;
            // The view's own figures take the screen.
            self.focus = if view == View::Roofline {
                Pane::Plot
            } else {
                Pane::View
            };
        }
        if !Pane::of(view).contains(&self.focus) {
            self.focus = Pane::View;
        }
        self.recompute();
    }

    /// Rows of the view's scrolling table (or of the comparison in the
    /// Compare pane).
    pub fn view_rows(&self) -> usize {
        match self.shown_view() {
            Some((ViewData::Synthesis(s), _)) => s.matches.len(),
            Some((ViewData::Fleet(f), _)) => f.plan.per_design.len(),
            Some((ViewData::Training(t), _)) => views::training::rows(t),
            Some((ViewData::Operators(o), _)) => o.breakdown.ops.len(),
            Some((ViewData::Explore(x), _)) => x.exploration.front.len(),
            Some((ViewData::Generations(g), _)) => g.analysis.compare.len(),
            Some((ViewData::Roofline, _)) => self.shown().map_or(0, |(a, _)| a.compare.len()),
            _ => 0,
        }
    }

    /// The comparison on screen (Generations, or the Compare pane) and the
    /// device at its selected row.
    pub fn selected_compared(&self) -> Option<(&Analysis, &Compared)> {
        let an = match self.shown_view() {
            Some((ViewData::Generations(g), _)) => &g.analysis,
            Some((ViewData::Roofline, _)) => self.shown()?.0,
            _ => return None,
        };
        let row = *an
            .order
            .get(self.view_scroll.min(an.order.len().checked_sub(1)?))?;
        Some((an, an.compare.get(row)?))
    }

    /// A pane's title: the view's name for the view's own pane.
    pub fn pane_title(&self, p: Pane) -> &'static str {
        if p == Pane::View {
            self.view.title()
        } else {
            p.title()
        }
    }

    /// The knobs of the view on screen.
    pub fn knobs(&self) -> &'static [Knob] {
        Knob::for_view(self.view.index())
    }

    /// The marked devices, selected first if marked (the Generations view's
    /// "marked" family).
    pub fn shown_devices_marked(&self) -> Vec<usize> {
        self.marked.clone()
    }

    /// The view's figures to show, and whether they are the last valid ones.
    pub fn shown_view(&self) -> Option<(&ViewData, bool)> {
        let entry_invalid = self.entry_invalid();
        match &self.view_data {
            Ok(d) => Some((d, entry_invalid)),
            Err(_) => self.last_view_data.as_ref().map(|d| (d, true)),
        }
    }

    /// What the keys drive: text in an open entry, else commands.
    pub fn keys(&self) -> Keys {
        match self.mode {
            Mode::Filter(_) => Keys::Text { list: true },
            Mode::Edit | Mode::Save | Mode::Import => Keys::Text { list: false },
            Mode::Form => Keys::Form,
            Mode::Normal | Mode::Help => Keys::Commands,
        }
    }

    pub fn theme(&self) -> &Theme {
        &self.themes.themes[self.theme]
    }

    pub fn inputs(&self) -> Inputs {
        Inputs {
            wl: self.workload,
            a: self.assumptions,
            v: self.view_inputs.clone(),
            profile: self.profile.clone(),
        }
    }

    pub(crate) fn set_inputs(&mut self, i: Inputs) {
        self.workload = i.wl;
        self.assumptions = i.a;
        self.view_inputs = i.v;
        self.profile = i.profile;
    }

    /// The profile's values for the selected device: when the device's
    /// class (or the profile) changed, the profile's values move to the
    /// class's and each value a knob changed stays as it was set.
    pub(crate) fn follow_device_class(&mut self) {
        let (Some(e), Ok(p)) = (
            self.catalog.hardware.get(self.hw),
            self.catalog.profile(&self.profile.id),
        ) else {
            return;
        };
        let r = p.on(e);
        if r.assumptions != self.profile.base || r.class != self.profile.class {
            self.assumptions =
                device_class::rebase(&self.assumptions, &self.profile.base, &r.assumptions);
            self.profile.base = r.assumptions;
            self.profile.class = r.class;
        }
    }

    /// The assumptions on device `i` (a catalog index): the profile's
    /// values for its class, with each value a knob changed as it was set;
    /// the selected device's are [`App::assumptions`].
    pub fn assumptions_on(&self, i: usize) -> Assumptions {
        match (
            self.catalog.hardware.get(i),
            self.catalog.profile(&self.profile.id),
        ) {
            (Some(e), Ok(p)) => {
                device_class::rebase(&self.assumptions, &self.profile.base, &p.on(e).assumptions)
            }
            _ => self.assumptions,
        }
    }

    pub fn selected_knob(&self) -> Knob {
        let k = self.knobs();
        k[self.knob.min(k.len() - 1)]
    }

    /// An open entry holds text that does not read (a knob's value, or a
    /// field of a form): what is shown comes from the last valid text.
    fn entry_invalid(&self) -> bool {
        self.edit.as_ref().is_some_and(|e| e.error.is_some())
            || self
                .form
                .as_ref()
                .is_some_and(|f| f.fields.iter().any(|x| x.check.is_err()))
    }

    /// The analysis to show, and whether it is the last valid one rather
    /// than the result of what is on screen (a solver error, or an entry
    /// holding invalid text).
    pub fn shown(&self) -> Option<(&Analysis, bool)> {
        let entry_invalid = self.entry_invalid();
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
        self.recomputes += 1;
        self.follow_device_class();
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
        if self.view == View::Explore {
            views::explore::refresh(self);
        }
        if self.view == View::Training && self.train_scaling {
            views::training::refresh_curve(self);
        }
        self.view_data = views::compute(self, self.view);
        if self.view == View::Fleet {
            views::refresh_fleet_relaxed(self);
        }
        if let Ok(d) = &self.view_data {
            self.last_view_data = Some(d.clone());
        }
        super::lesson::refresh(self);
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
        let (wl, a) = (self.workload, self.assumptions);
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
        let devices = self.shown_devices();
        let cmp = views::compare_devices(self, &devices, Some((self.hw, &sens)));
        // Where it does not fit, the elasticities of the configuration that
        // runs (the one the plot and status show).
        let at_fit_sens = cmp
            .rows
            .iter()
            .find(|c| c.hw == self.hw && !c.fits())
            .and_then(|c| c.running())
            .and_then(|run| {
                let w = Workload {
                    tp: run.parallelism.tp,
                    pp: run.parallelism.pp,
                    ..wl
                };
                solver::sensitivity(hw, model, &w, &a, PERTURB)
                    .ok()
                    .map(Box::new)
            });
        Ok(Analysis {
            hw: self.hw,
            model: self.model,
            workload: wl,
            assumptions: a,
            sens,
            at_fit_sens,
            other_phase,
            compare: cmp.rows,
            baseline: cmp.baseline,
            order: cmp.order,
            sort: self.compare_sort,
        })
    }

    /// After models were added to the catalog (an import): the picker's
    /// order, then every figure.
    pub(crate) fn refresh_models(&mut self) {
        self.model_order = model_order(&self.catalog);
        self.recompute();
    }

    pub(crate) fn say(&mut self, level: Level, text: impl Into<String>) {
        self.message = Some((level, text.into()));
    }

    /// Take a reloaded catalog (after an entry was saved from the
    /// workbench): the lists, the ranked devices and the knobs' choices
    /// follow it; the selection, the marks and the baseline keep their ids
    /// where they still exist.
    pub fn replace_catalog(&mut self, catalog: Catalog) {
        let id = |c: &Catalog, i: usize| c.hardware.get(i).map(|e| e.hw.id.clone());
        let hw = id(&self.catalog, self.hw);
        let marked: Vec<_> = self
            .marked
            .iter()
            .filter_map(|&i| id(&self.catalog, i))
            .collect();
        let baseline = self.baseline.and_then(|i| id(&self.catalog, i));
        let model = self
            .catalog
            .models
            .get(self.model)
            .map(|m| m.model.id.clone());
        // Models imported in this session live only in memory: they stay.
        let mut catalog = catalog;
        for e in &self.catalog.models {
            if crate::catalog::hf::load::is_imported(e) && catalog.model(&e.model.id).is_err() {
                catalog.models.push(e.clone());
            }
        }
        catalog.keep_local_from(&self.catalog);
        self.catalog = catalog;
        (self.hw_order, self.model_order) = orders(&self.catalog);
        self.devices = self.catalog.devices();
        self.choices = choices(&self.catalog);
        let find = |c: &Catalog, id: &str| c.hardware.iter().position(|e| e.hw.id == id);
        self.hw = hw
            .and_then(|h| find(&self.catalog, &h))
            .or_else(|| self.hw_order.first().copied())
            .unwrap_or(0);
        self.marked = marked
            .iter()
            .filter_map(|h| find(&self.catalog, h))
            .collect();
        self.baseline = baseline.and_then(|h| find(&self.catalog, &h));
        self.model = model
            .and_then(|m| self.catalog.models.iter().position(|e| e.model.id == m))
            .or_else(|| self.model_order.first().copied())
            .unwrap_or(0);
        self.recompute();
    }
}

/// The Generations view's family for a workbench (or a scenario) on
/// device `hw` that names none: the flagship line-up when the catalog holds
/// all of it and `hw` is one of it or has no family; else `hw`'s family;
/// else the first family there is.
pub fn default_family(catalog: &Catalog, hw: usize, families: &[String]) -> Family {
    let id_of = |id: &str| catalog.hardware.iter().position(|e| e.hw.id == id);
    let flagship: Vec<Option<usize>> = crate::scenario::FLAGSHIP_DEVICES
        .iter()
        .map(|d| id_of(d))
        .collect();
    let own = catalog.hardware.get(hw).and_then(|e| e.family.clone());
    if flagship.iter().all(Option::is_some) && (flagship.contains(&Some(hw)) || own.is_none()) {
        return Family::Flagship;
    }
    match own {
        Some(f) if families.contains(&f) => Family::Named(f),
        _ => match families.first() {
            Some(f) => Family::Named(f.clone()),
            None => Family::Marked,
        },
    }
}

/// The pickers' orders: devices grouped by tier (the detected `local`
/// first), models by family (in catalog order within each).
fn orders(catalog: &Catalog) -> (Vec<usize>, Vec<usize>) {
    let mut hw_order: Vec<usize> = (0..catalog.hardware.len()).collect();
    hw_order.sort_by_key(|&i| {
        let e = &catalog.hardware[i];
        if e.origin == crate::catalog::LOCAL_ORIGIN {
            return 0;
        }
        let t = e.hw.tier;
        1 + Tier::ALL
            .iter()
            .position(|x| *x == t)
            .unwrap_or(usize::MAX - 1)
    });
    (hw_order, model_order(catalog))
}

/// Region ids, hardware families and profiles, for the view knobs.
fn choices(catalog: &Catalog) -> Choices {
    Choices {
        regions: catalog.regions.iter().map(|r| r.id.clone()).collect(),
        families: crate::scenario::generation_families(catalog),
        profiles: catalog
            .profiles
            .iter()
            .map(|p| Profile {
                id: p.id.clone(),
                base: p.assumptions,
                training: p.training,
                class: None,
            })
            .collect(),
        drafts: super::knobs::serving_modes::draft_choices(&catalog.models),
    }
}

/// USD per million tokens of the layout (devices * price/hour), from the
/// solver's economics. None without a price.
pub fn cost_per_million_tokens(price_per_hour_usd: Option<f64>, ev: &Evaluation) -> Option<f64> {
    let per_hour = price_per_hour_usd? * ev.devices() as f64;
    solver::economics::cost_per_million_tokens(per_hour, ev.tokens_per_s)
}

/// Model indices grouped by family, families in catalog order (imported
/// models come last, under `imported`).
fn model_order(catalog: &Catalog) -> Vec<usize> {
    let mut families: Vec<&str> = Vec::new();
    for m in &catalog.models {
        if !families.contains(&m.family.as_str()) {
            families.push(&m.family);
        }
    }
    let mut order: Vec<usize> = (0..catalog.models.len()).collect();
    order.sort_by_key(|&i| {
        families
            .iter()
            .position(|f| *f == catalog.models[i].family)
            .unwrap_or(usize::MAX)
    });
    order
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
