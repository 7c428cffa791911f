//! The workbench and its scenario files: opening one (all or nothing, every
//! problem at its file:line:column), the whole state as a scenario (every
//! value exact, the opened title and description kept), and the save flow
//! of `s`: a typed path (`~` is the home directory), a y/n before
//! overwriting a file this session did not open or save, a symbolic link
//! written through and said so.

use super::app::{App, Level, Mode};
use super::knobs::{Family, Profile, SweepAxis, ViewInputs};
use super::views::View;
use crate::fsutil;
use crate::scenario::{AssumptionsSection, Problem, Scenario, exact};
use crate::solver::Workload;
use std::path::{Path, PathBuf};

/// What the workbench keeps of the scenario files of a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    /// The title and description of the scenario opened, written back on save.
    pub title: Option<String>,
    pub description: Option<String>,
    /// Files opened or saved this session (their real paths): a save over
    /// one of them does not ask.
    pub owned: Vec<PathBuf>,
    /// A save waiting for y/n: the path typed, a file that exists and was
    /// neither opened nor saved this session.
    pub confirm: Option<PathBuf>,
    /// The home directory `~` stands for (None: `~` is taken literally).
    pub home: Option<PathBuf>,
    /// A guest of `ridgeline share`: nothing of this session reads or
    /// writes the server's files. A save (`s`) sends the scenario to the
    /// guest's clipboard (OSC 52, through `App::osc`); importing a model,
    /// exporting a view (`X`) and saving a catalog entry are refused.
    pub guest: bool,
}

impl Session {
    /// A new session, `~` being the user's home directory.
    pub fn new() -> Session {
        Session {
            home: fsutil::home_dir(),
            ..Session::default()
        }
    }

    fn own(&mut self, path: &Path) {
        if let Some(p) = real_path(path)
            && !self.owned.contains(&p)
        {
            self.owned.push(p);
        }
    }

    fn owns(&self, path: &Path) -> bool {
        real_path(path).is_some_and(|p| self.owned.contains(&p))
    }
}

/// The file a path stands for, links followed, when it exists.
fn real_path(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

fn joined(problems: Vec<Problem>) -> String {
    problems
        .iter()
        .map(|(k, m)| format!("{k}: {m}"))
        .collect::<Vec<_>>()
        .join("; ")
}

impl App {
    /// Open a scenario file: selection, knobs, view, title. On error nothing
    /// changes and the message lists every problem, one per line, each at
    /// its file:line:column.
    pub fn open_scenario(&mut self, path: &Path) -> Result<(), String> {
        let mut s = Scenario::load_with(path, &self.catalog).map_err(|e| e.to_string())?;
        // A model given as a path: imported (every other value is checked
        // by now), then the scenario names it by its id.
        if let Some(p) = s.model_path(path) {
            let name = p.display().to_string();
            let r = crate::catalog::hf::load::resolve(&mut self.catalog, &name, None)
                .map_err(|e| Scenario::key_problem(path, "model", &e.to_string()).to_string())?;
            self.refresh_models();
            s.model = Some(r.id);
        }
        let notes = self.apply_scenario(&s).map_err(|e| {
            format!(
                "{}: {}",
                crate::catalog::fields::printable(&path.display().to_string()),
                crate::catalog::fields::printable(&e)
            )
        })?;
        self.session.own(path);
        let name = s.title.unwrap_or_else(|| path.display().to_string());
        let notes: String = notes.iter().map(|n| format!("; {n}")).collect();
        self.say(Level::Info, format!("scenario: {name}{notes}"));
        Ok(())
    }

    /// Take a parsed scenario's state. All or nothing: a value or name the
    /// catalog does not know changes nothing and is named in the error.
    /// Returns what it merged (a device or region named twice), to say.
    pub fn apply_scenario(&mut self, s: &Scenario) -> Result<Vec<String>, String> {
        let mut problems = s.value_problems();
        problems.extend(s.catalog_problems(&self.catalog));
        if let Some(m) = &s.model
            && crate::catalog::hf::load::looks_like_path(m)
            && self.catalog.model(m).is_err()
        {
            problems.push((
                "model".into(),
                format!("{m:?} is a path: open the scenario file, which imports it"),
            ));
        }
        if !problems.is_empty() {
            return Err(joined(problems));
        }
        let cat = &self.catalog;
        let hw_index = |name: &str| {
            let id = cat.hardware(name).map(|e| e.hw.id.as_str()).unwrap_or("");
            cat.hardware.iter().position(|x| x.hw.id == id).unwrap_or(0)
        };
        let hw = s
            .hardware
            .as_deref()
            .or(s.compare.first().map(String::as_str))
            .map_or(self.hw, hw_index);
        // A device named twice is marked once.
        let mut notes = Vec::new();
        let mut marked: Vec<usize> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for h in &s.compare {
            let i = hw_index(h);
            if seen.insert(i) {
                marked.push(i);
            }
        }
        if marked.len() < s.compare.len() {
            notes.push(format!(
                "compare: {} names, {} different devices (repeats merged)",
                s.compare.len(),
                marked.len()
            ));
        }
        let model = match &s.model {
            Some(m) => {
                let id = cat.model(m).map(|e| e.model.id.as_str()).unwrap_or("");
                cat.models
                    .iter()
                    .position(|x| x.model.id == id)
                    .unwrap_or(0)
            }
            None => self.model,
        };
        let wl = s.workload(&Workload::default()).map_err(joined)?;
        let (id, base) = s.profile(cat).map_err(|p| joined(vec![p]))?;
        let a = s.assumptions(&base).map_err(joined)?;
        let view = s
            .view
            .as_deref()
            .and_then(View::parse)
            .unwrap_or(View::Roofline);
        let v = self.view_inputs_of(s, hw, !marked.is_empty() && view == View::Generations)?;
        if v.regions.len() < s.fleet.regions.len() {
            notes.push(format!(
                "fleet.regions: {} names, {} different regions (repeats merged, their shares added)",
                s.fleet.regions.len(),
                v.regions.len()
            ));
        }
        self.hw = hw;
        self.marked = marked;
        self.model = model;
        self.workload = wl;
        self.assumptions = a;
        let training = cat
            .profile(&id)
            .map_or_else(|_| Default::default(), |p| p.training);
        self.profile = Profile { id, base, training };
        self.view_inputs = v;
        self.session.title = s.title.clone();
        self.session.description = s.description.clone();
        self.set_view(view);
        Ok(notes)
    }

    /// The view inputs of a checked scenario: what it sets over the
    /// defaults; the Generations family from the device unless it says.
    fn view_inputs_of(
        &self,
        s: &Scenario,
        hw: usize,
        generations_of_marked: bool,
    ) -> Result<ViewInputs, String> {
        let cat = &self.catalog;
        let region_id = |name: &str| {
            cat.region(name)
                .map_or_else(|_| name.to_string(), |r| r.id.clone())
        };
        let f = s.fleet_inputs().map_err(joined)?;
        let mut v = ViewInputs::default();
        if !self.choices.regions.contains(&v.region)
            && let Some(r) = self.choices.regions.first()
        {
            v.region = r.clone();
        }
        v.request = s.request().map_err(joined)?;
        v.serve = s.serve_modes().map_err(joined)?;
        if let Some(d) = &v.serve.draft {
            v.serve.draft = Some(
                cat.model(d)
                    .map_err(|e| format!("serving.draft: {e}"))?
                    .model
                    .id
                    .clone(),
            );
        }
        // Training keys the section leaves out are its profile's.
        let stack = s
            .profile(cat)
            .ok()
            .and_then(|(id, _)| cat.profile(&id).ok())
            .map_or_else(Default::default, |p| p.training);
        v.train = s.training_inputs_over(&stack).map_err(joined)?;
        v.explore = s.explore_inputs().map_err(joined)?;
        v.qps = f.qps;
        v.ttft_s = f.ttft_s;
        v.itl_s = f.itl_s;
        v.budget = f.budget_usd_per_year;
        v.precisions = f.precisions;
        v.mode = f.mode;
        v.max_utilization = f.max_utilization;
        // A region named twice is one region; its shares add up.
        v.regions = Vec::new();
        v.shares = Vec::new();
        let mut place = std::collections::HashMap::new();
        for (k, r) in f.regions.iter().enumerate() {
            let id = region_id(r);
            let share = f.shares.get(k).copied();
            match place.get(&id) {
                Some(&at) => {
                    if let (Some(x), Some(sum)) = (share, v.shares.get_mut(at)) {
                        *sum += x;
                    }
                }
                None => {
                    place.insert(id.clone(), v.regions.len());
                    v.regions.push(id);
                    v.shares.extend(share);
                }
            }
        }
        if let Some(r) = s
            .serving
            .region
            .as_deref()
            .or(v.regions.first().map(String::as_str))
        {
            v.region = region_id(r);
        }
        if let Some(t) = s.target().map_err(joined)? {
            v.target = t;
        }
        if let Some(b) = s.batches().map_err(joined)? {
            v.batches = b;
        }
        if let Some(context) = s.sweep_over_context().map_err(joined)? {
            v.sweep = if context {
                SweepAxis::Context
            } else {
                SweepAxis::Batch
            };
        }
        v.family = match s.generations.family.as_deref().map(str::to_ascii_lowercase) {
            Some(f) => Family::parse(f.trim()),
            None if generations_of_marked => Family::Marked,
            None => super::app::default_family(cat, hw, &self.choices.families),
        };
        Ok(v)
    }

    /// The whole workbench state as a scenario, every value written so that
    /// it reads back equal.
    pub fn to_scenario(&self) -> Scenario {
        let mut s = Scenario {
            title: self.session.title.clone(),
            description: self.session.description.clone(),
            view: Some(self.view.name().into()),
            hardware: Some(self.catalog.hardware[self.hw].hw.id.clone()),
            compare: self
                .marked
                .iter()
                .map(|&i| self.catalog.hardware[i].hw.id.clone())
                .collect(),
            model: Some(model_name(&self.catalog.models[self.model])),
            ..Scenario::default()
        };
        let (wl, a, v) = (&self.workload, &self.assumptions, &self.view_inputs);
        let w = &mut s.workload;
        w.phase = Some(wl.phase.name().into());
        w.batch = Some(wl.batch);
        w.context = Some(wl.context);
        w.weights = Some(wl.weights.name().into());
        w.activations = Some(wl.activations.name().into());
        w.kv = Some(wl.kv.name().into());
        w.tp = Some(wl.tp);
        w.pp = Some(wl.pp);
        s.assumptions = AssumptionsSection::of(&self.profile.id, &self.profile.base, a);
        s.serving.prompt = Some(v.request.prompt);
        s.serving.output = Some(v.request.output);
        s.serving.region = Some(v.region.clone());
        s.serving.set_modes(&v.serve);
        s.synthesis.target = Some(exact::target(&v.target));
        s.sweep.batches = Some(format!("{}..{}", v.batches.0, v.batches.1));
        s.sweep.over = Some(match v.sweep {
            SweepAxis::Batch => "batch".into(),
            SweepAxis::Context => "context".into(),
        });
        s.generations.family = Some(v.family.name());
        s.fleet.qps = Some(v.qps);
        s.fleet.ttft = Some(exact::time(v.ttft_s));
        s.fleet.itl = Some(exact::time(v.itl_s));
        s.fleet.regions = v.regions.clone();
        s.fleet.budget = v.budget.map(exact::count);
        s.fleet.max_utilization = Some(v.max_utilization);
        s.fleet.shares = v.shares.clone();
        s.fleet.precisions = Some(crate::tui::knobs::fleet_precisions(&v.precisions));
        s.fleet.mode = Some(v.mode.name().to_string());
        s.training = crate::scenario::TrainingSection::of(&v.train);
        s.explore = crate::scenario::ExploreSection::of(&v.explore);
        s
    }
}

/// How a scenario names a model: its id, or for a model imported from a
/// config.json this session (not in the user catalog), the config's path,
/// so that the scenario opens anywhere the file is.
fn model_name(e: &crate::catalog::ModelEntry) -> String {
    if crate::catalog::hf::load::is_imported(e) && e.origin.ends_with(".json") {
        e.origin.clone()
    } else {
        e.model.id.clone()
    }
}

/// What a guest's save says: the scenario went to the clipboard.
pub const GUEST_SAVE: &str = "scenario copied to your clipboard (OSC 52; if your terminal blocks it, nothing arrives): nothing is written on the server";

/// What a guest is told when a key would read or write the server's files.
pub const GUEST_NO_FILES: &str = "a shared session reads and writes no files on the server; s copies the scenario, y the command line, to your clipboard";

/// `s` for a guest: the scenario to the clipboard, no path asked.
pub(crate) fn export(app: &mut App) {
    let toml = app.to_scenario().to_toml();
    app.osc.extend(crate::export::osc52(&toml));
    app.say(Level::Info, GUEST_SAVE);
}

/// Enter in the save entry: save, or ask first when the path is a file
/// this session neither opened nor saved.
pub(crate) fn submit(app: &mut App) {
    let text = app.save_path.lines().first().cloned().unwrap_or_default();
    let text = text.trim();
    let text = if text.is_empty() {
        super::app::DEFAULT_SCENARIO_PATH
    } else {
        text
    };
    let path = fsutil::expand_tilde(text, app.session.home.as_deref());
    if path.is_dir() {
        let msg = format!(
            "not saved: {} is a directory; add a file name",
            path.display()
        );
        app.say(Level::Error, msg);
        return;
    }
    if path.exists() && !app.session.owns(&path) {
        app.say(
            Level::Warn,
            format!(
                "{} exists: y overwrites it, n changes the path",
                path.display()
            ),
        );
        app.session.confirm = Some(path);
        return;
    }
    write(app, &path);
}

/// y or n while a save waits for its confirmation.
pub(crate) fn answer(app: &mut App, yes: bool) {
    let Some(path) = app.session.confirm.take() else {
        return;
    };
    if yes {
        write(app, &path);
    } else {
        app.say(Level::Info, "not overwritten: type another path");
    }
}

/// Esc in the save entry (or its confirmation).
pub(crate) fn cancel(app: &mut App) {
    app.session.confirm = None;
    app.mode = Mode::Normal;
    app.say(Level::Info, "save cancelled: nothing written");
}

fn write(app: &mut App, path: &Path) {
    match app.to_scenario().save(path) {
        Ok(w) => {
            app.mode = Mode::Normal;
            app.session.own(&w.file);
            let msg = if w.via_symlink {
                format!(
                    "saved through the link {} -> {}",
                    path.display(),
                    w.file.display()
                )
            } else {
                format!("scenario saved to {}", path.display())
            };
            app.say(Level::Info, msg);
        }
        Err(e) => {
            // The entry stays open with the path, to fix it or press Esc.
            app.say(Level::Error, format!("not saved: {}: {e}", path.display()));
        }
    }
}
