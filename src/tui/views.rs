//! The views beyond the roofline: what each one computes from the pure
//! solver for the current selection and knobs. `App::recompute` calls
//! [`compute`] for the view on screen; the panes only read the result.

use super::app::{Analysis, App, Compared, PERTURB};
use super::knobs::{Family, SweepAxis};
use crate::scenario::SynthTarget;
use crate::solver::Sensitivity;
use crate::solver::compare;
use crate::solver::economics::{self, DEFAULT_IDLE_SHARE, Daily, Economics};
use crate::solver::fleet::{self, FleetSpec};
use crate::solver::serving::{self, Serving};
use crate::solver::synthesis::{self, DEFAULT_COMM_SHARE, Match, RankBy, Requirement};
use crate::solver::{self, Evaluation, Phase, Workload};

pub mod explore;
pub mod ops;
pub mod training;
use ops::OpsData;
use training::TrainingData;

/// The workbench's views, in number-key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    Roofline,
    Serving,
    Synthesis,
    Sweep,
    Generations,
    Fleet,
    Training,
    Operators,
    Explore,
}

impl View {
    pub const ALL: [View; 9] = [
        View::Roofline,
        View::Serving,
        View::Synthesis,
        View::Sweep,
        View::Generations,
        View::Fleet,
        View::Training,
        View::Operators,
        View::Explore,
    ];
    pub fn title(self) -> &'static str {
        match self {
            View::Roofline => "Roofline",
            View::Serving => "Serving",
            View::Synthesis => "Synthesis",
            View::Sweep => "Sweep",
            View::Generations => "Generations",
            View::Fleet => "Fleet",
            View::Training => "Training",
            View::Operators => "Operators",
            View::Explore => "Explore",
        }
    }
    /// The name in scenario files (scenario::VIEWS).
    pub fn name(self) -> &'static str {
        crate::scenario::VIEWS[self.index()]
    }
    pub fn parse(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.name() == name.trim())
    }
    pub fn index(self) -> usize {
        View::ALL.iter().position(|v| *v == self).unwrap_or(0)
    }
    /// The number key that opens it.
    pub fn number(self) -> usize {
        self.index() + 1
    }
    pub fn next(self) -> View {
        let n = View::ALL.len();
        View::ALL[(self.index() + 1) % n]
    }
    pub fn prev(self) -> View {
        let n = View::ALL.len();
        View::ALL[(self.index() + n - 1) % n]
    }
}

/// Region figures: carbon per million tokens, and a day of running.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionFigures {
    pub id: String,
    pub name: String,
    /// g CO2e per million tokens.
    pub co2_per_mtok_g: Option<f64>,
    pub daily: Option<Daily>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServingData {
    /// As asked (the memory bar shows why it does or does not fit).
    pub serving: Serving,
    pub devices: u32,
    pub economics: Economics,
    pub region: RegionFigures,
    /// When it does not fit at full context: the fewest devices that hold
    /// it and the figures there (None when it fits, or nothing holds it).
    pub at_fit: Option<Box<ServingAt>>,
    /// Under continuous batching: its steady state as asked.
    pub continuous: Option<Box<ContinuousAt>>,
}

/// The steady state of a continuous-batching replica and its money.
#[derive(Debug, Clone, PartialEq)]
pub struct ContinuousAt {
    pub c: crate::solver::batching::Continuous,
    pub economics: Economics,
    pub region: RegionFigures,
}

/// A replica on another layout than asked: its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ServingAt {
    pub layout: solver::Parallelism,
    pub serving: Serving,
    pub economics: Economics,
    pub region: RegionFigures,
}

impl ServingData {
    /// The figures of the replica that runs: as asked when it fits, else on
    /// the fewest devices that hold it; None when nothing does.
    pub fn running(&self) -> Option<(&Serving, u32, &Economics, &RegionFigures)> {
        if self.serving.fits {
            Some((&self.serving, self.devices, &self.economics, &self.region))
        } else {
            self.at_fit
                .as_ref()
                .map(|x| (&x.serving, x.layout.devices(), &x.economics, &x.region))
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SynthData {
    pub target: SynthTarget,
    pub phase: Phase,
    pub workload: Workload,
    pub requirement: Requirement,
    /// Devices and counts that meet it, cheapest first.
    pub matches: Vec<Match>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SweepData {
    pub axis: SweepAxis,
    /// (batch or context, evaluation).
    pub points: Vec<(f64, Evaluation)>,
    /// Batch where compute time overtakes memory time (batch sweeps).
    pub crossover: Option<f64>,
    /// The largest batch that fits (batch sweeps; a point of the sweep when
    /// it falls inside the range), or the largest swept context that fits
    /// (context sweeps). None: nothing fits.
    pub max_fit: Option<f64>,
    /// The point with the most tokens/s among those that fit: the answer
    /// the headline gives (None: no point fits).
    pub best: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GenData {
    /// "nvidia-datacenter", or "marked".
    pub label: String,
    /// The family's devices as a comparison (the plot overlays their roofs).
    pub analysis: Analysis,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FleetData {
    pub spec: FleetSpec,
    /// What was searched: precisions, mode and each region's share.
    pub search: fleet::Search,
    /// `best` and `per_design` are whole fleets (every region added up);
    /// `regions` each region's own.
    pub plan: fleet::RegionalPlan,
    /// The regions' ids and names, in the order of the shares.
    pub names: Vec<(String, String)>,
    /// Each region's qps, replicas, devices, cost, day and CO2, and the
    /// whole fleet's day (None when nothing meets the SLAs).
    pub regional: Option<fleet::Spread>,
    /// The Pareto front of cost against TTFT over `plan.per_design`.
    pub front: Vec<fleet::FleetOption>,
}

/// What the cheapest fleet would need to fit the budget, one requirement
/// at a time ([`fleet::within_budget`]), and what it was found for.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRelaxed {
    pub model: usize,
    pub spec: FleetSpec,
    pub search: fleet::Search,
    pub assumptions: solver::Assumptions,
    pub relaxed: Vec<fleet::Relaxation>,
}

/// Find again what would fit the budget when the Fleet view's answer is
/// over it and its inputs changed since the last time (the bisections run
/// tens of searches: not on every keystroke).
pub fn refresh_fleet_relaxed(app: &mut App) {
    let Ok(ViewData::Fleet(d)) = &app.view_data else {
        return;
    };
    let Some(budget) = d.spec.budget_usd_per_year else {
        app.fleet_relaxed = None;
        return;
    };
    if d.plan
        .best
        .as_ref()
        .is_some_and(|b| b.cost_per_year_usd() <= budget)
    {
        app.fleet_relaxed = None;
        return;
    }
    let same = app.fleet_relaxed.as_ref().is_some_and(|r| {
        r.model == app.model
            && r.spec == d.spec
            && r.search == d.search
            && r.assumptions == app.assumptions
    });
    if same {
        return;
    }
    let Some(model) = app.catalog.models.get(app.model) else {
        return;
    };
    let relaxed = fleet::within_budget(
        &app.devices,
        &model.model,
        &d.search,
        &d.spec,
        budget,
        &app.assumptions,
        DEFAULT_IDLE_SHARE,
    )
    .unwrap_or_default();
    app.fleet_relaxed = Some(FleetRelaxed {
        model: app.model,
        spec: d.spec,
        search: d.search.clone(),
        assumptions: app.assumptions,
        relaxed,
    });
}

/// What a view shows beside the shared analysis.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewData {
    Roofline,
    Serving(ServingData),
    Synthesis(SynthData),
    Sweep(SweepData),
    Generations(GenData),
    Fleet(FleetData),
    Training(Box<TrainingData>),
    Operators(Box<OpsData>),
    /// Shared with the app's cache of the last search (`explore::refresh`).
    Explore(std::sync::Arc<explore::ExploreData>),
}

/// Region figures for a power draw and energy per token.
fn region_figures(
    app: &App,
    id: &str,
    power_w: Option<f64>,
    energy_per_token_j: Option<f64>,
) -> Result<RegionFigures, String> {
    let r = app.catalog.region(id).map_err(|e| e.to_string())?;
    let grid = r.grid();
    Ok(RegionFigures {
        id: r.id.clone(),
        name: r.name.clone(),
        co2_per_mtok_g: energy_per_token_j.map(|j| economics::co2_g(j * 1e6, &grid)),
        daily: power_w.map(|p| economics::daily(p, &grid)),
    })
}

/// The Serving view's replica under continuous batching, as asked.
fn continuous_at(
    app: &App,
    hw: &solver::Hardware,
    model: &solver::Model,
    devices: u32,
) -> Result<ContinuousAt, String> {
    let v = &app.view_inputs;
    let draft = match &v.serve.draft {
        Some(id) => Some(
            &app.catalog
                .model(id)
                .map_err(|e| format!("draft model: {e}"))?
                .model,
        ),
        None => None,
    };
    let b = v.serve.batching(draft);
    let c = crate::solver::batching::continuous(
        hw,
        model,
        &app.workload,
        &v.request,
        &b,
        &app.assumptions,
    )
    .map_err(|e| e.to_string())?;
    let e = economics::economics(hw, devices, c.tokens_per_s, 1.0, DEFAULT_IDLE_SHARE);
    let region = region_figures(app, &v.region, e.power_w, e.energy_per_token_j)?;
    Ok(ContinuousAt {
        c,
        economics: e,
        region,
    })
}

/// Compute the figures of `view` for the app's current inputs.
pub fn compute(app: &App, view: View) -> Result<ViewData, String> {
    let hw_entry = app
        .catalog
        .hardware
        .get(app.hw)
        .ok_or("the catalog has no hardware")?;
    let hw = &hw_entry.hw;
    let model = &app
        .catalog
        .models
        .get(app.model)
        .ok_or("the catalog has no models")?
        .model;
    let wl = app.workload;
    let a = app.assumptions;
    let v = &app.view_inputs;
    let err = |e: solver::SolverError| e.to_string();
    match view {
        View::Roofline => Ok(ViewData::Roofline),
        View::Serving => {
            let s = serving::serve(hw, model, &wl, &v.request, &a).map_err(err)?;
            let devices = wl.tp * wl.pp;
            let e = economics::economics(hw, devices, s.tokens_per_s, 1.0, DEFAULT_IDLE_SHARE);
            let region = region_figures(app, &v.region, e.power_w, e.energy_per_token_j)?;
            let at_fit = if s.fits {
                None
            } else {
                match serving::at_fewest_devices(hw, model, &wl, &v.request, &a).map_err(err)? {
                    Some((layout, s)) => {
                        let e = economics::economics(
                            hw,
                            layout.devices(),
                            s.tokens_per_s,
                            1.0,
                            DEFAULT_IDLE_SHARE,
                        );
                        let region =
                            region_figures(app, &v.region, e.power_w, e.energy_per_token_j)?;
                        Some(Box::new(ServingAt {
                            layout,
                            serving: s,
                            economics: e,
                            region,
                        }))
                    }
                    None => None,
                }
            };
            let continuous = match v.serve.continuous {
                true => Some(Box::new(continuous_at(app, hw, model, devices)?)),
                false => None,
            };
            Ok(ViewData::Serving(ServingData {
                serving: s,
                devices,
                economics: e,
                region,
                at_fit,
                continuous,
            }))
        }
        View::Synthesis => {
            let (phase, target) = v.target.resolve(&wl);
            let w = Workload { phase, ..wl };
            let requirement =
                synthesis::synthesize(model, &w, &a, &target, DEFAULT_COMM_SHARE).map_err(err)?;
            let matches =
                synthesis::rank(&app.devices, model, &w, &a, &target, RankBy::Cost).map_err(err)?;
            Ok(ViewData::Synthesis(SynthData {
                target: v.target,
                phase,
                workload: w,
                requirement,
                matches,
            }))
        }
        View::Sweep => sweep(hw, model, &wl, &a, v.sweep, v.batches)
            .map(ViewData::Sweep)
            .map_err(err),
        View::Generations => {
            let (label, devices) = generation_devices(app);
            if devices.is_empty() {
                return Err(match v.family {
                    Family::Marked => {
                        "no devices marked: mark some in the Hardware list (space)".to_string()
                    }
                    Family::Named(ref f) => format!("no devices in the family {f}"),
                    Family::Flagship => format!(
                        "the catalog holds none of {}: press f for another family",
                        crate::scenario::FLAGSHIP_DEVICES.join(", ")
                    ),
                });
            }
            let cmp = compare_devices(app, &devices, None);
            let compare = cmp.rows;
            // The first device that evaluates anchors the plot.
            let first = compare
                .iter()
                .find_map(|c| c.result.as_ref().ok().map(|s| (c.hw, s.clone())));
            let Some((anchor, sens)) = first else {
                // Not one device of the family runs it: say so, with the
                // first device's reason (the others' are alike, as a rule).
                let why = compare
                    .iter()
                    .find_map(|c| c.result.as_ref().err().cloned())
                    .unwrap_or_default();
                return Err(format!(
                    "no device of {label} can run this ({} devices): {why}; press {} for another family",
                    compare.len(),
                    app.keymap.first_key(super::action::Command::NextFamily)
                ));
            };
            Ok(ViewData::Generations(GenData {
                label,
                analysis: Analysis {
                    hw: anchor,
                    model: app.model,
                    workload: wl,
                    assumptions: a,
                    sens,
                    // The Sensitivity pane reads the selection's analysis.
                    at_fit_sens: None,
                    other_phase: None,
                    compare,
                    baseline: cmp.baseline,
                    order: cmp.order,
                    sort: app.compare_sort,
                },
            }))
        }
        View::Training => training_view(app, hw, model).map(|d| ViewData::Training(Box::new(d))),
        View::Operators => {
            ops::compute(hw, model, &wl, &a).map(|d| ViewData::Operators(Box::new(d)))
        }
        View::Explore => explore::shown(app).map(ViewData::Explore),
        View::Fleet => {
            let spec = FleetSpec {
                qps: v.qps,
                request: v.request,
                ttft_sla_s: v.ttft_s,
                itl_sla_s: v.itl_s,
                budget_usd_per_year: v.budget,
                max_utilization: v.max_utilization,
            };
            let search = fleet::Search {
                precisions: v.precisions.clone(),
                mode: v.mode,
                shares: if v.shares.is_empty() {
                    vec![1.0 / v.regions.len().max(1) as f64; v.regions.len().max(1)]
                } else {
                    v.shares.clone()
                },
            };
            let mut names = Vec::new();
            let mut grids = Vec::new();
            for id in &v.regions {
                let r = app.catalog.region(id).map_err(|e| e.to_string())?;
                grids.push(r.grid());
                names.push((r.id.clone(), r.name.clone()));
            }
            if search.shares.len() != names.len() {
                return Err(format!(
                    "{} shares for {} regions: set the shares knob to one per region, or equal",
                    search.shares.len(),
                    names.len()
                ));
            }
            let plan = fleet::search(&app.devices, model, &search, &spec, &a, DEFAULT_IDLE_SHARE)
                .map_err(err)?;
            let regional = plan
                .best
                .as_ref()
                .map(|_| fleet::regional(&plan.regions, &grids));
            let front = fleet::front(&plan.per_design);
            Ok(ViewData::Fleet(FleetData {
                spec,
                search,
                plan,
                names,
                regional,
                front,
            }))
        }
    }
}

/// The Training view's figures for the app's inputs, with the layout
/// search when it was run for them.
fn training_view(
    app: &App,
    hw: &solver::Hardware,
    model: &solver::Model,
) -> Result<TrainingData, String> {
    let t = &app.view_inputs.train;
    let precision = app.workload.weights;
    let region = app.catalog.region(&app.view_inputs.region).ok();
    let key = training::search_key(app.hw, app.model, model, t, precision, &app.assumptions);
    let search = app
        .train_search
        .as_ref()
        .filter(|s| s.key == key)
        .map(|s| s.search.clone());
    training::compute(
        hw,
        model,
        t,
        precision,
        &app.assumptions,
        &app.view_inputs.region,
        region.map(|r| r.grid()),
        search,
        app.train_scaling.then(|| app.train_curve.shown()).flatten(),
    )
}

/// The sweep of the Sweep view: over batch (the powers of two in `batches`
/// and the largest batch that fits, so the table and plot show where
/// fitting stops) or over context, with the best point that fits.
fn sweep(
    hw: &solver::Hardware,
    model: &solver::Model,
    wl: &Workload,
    a: &solver::Assumptions,
    axis: SweepAxis,
    batches: (u64, u64),
) -> Result<SweepData, solver::SolverError> {
    Ok(match axis {
        SweepAxis::Batch => {
            let max_fit = solver::evaluate(hw, model, wl, a)?.max_batch;
            let xs = solver::sweep::batches_with_limit(batches.0, batches.1, max_fit);
            let s = solver::sweep::batch_sweep(hw, model, wl, a, &xs)?;
            SweepData {
                axis,
                best: s.best_fitting(),
                max_fit: (s.max_fitting_batch > 0).then_some(s.max_fitting_batch as f64),
                points: xs.iter().map(|&b| b as f64).zip(s.points).collect(),
                crossover: s.crossover_batch,
            }
        }
        SweepAxis::Context => {
            let (lo, hi) = crate::scenario::SWEEP_CONTEXTS;
            let contexts = solver::sweep::powers_of_two(lo, hi);
            let pts = solver::sweep::context_sweep(hw, model, wl, a, &contexts)?;
            let max_fit = contexts
                .iter()
                .zip(&pts)
                .rfind(|(_, e)| e.memory.fits)
                .map(|(&c, _)| c as f64);
            SweepData {
                axis,
                best: solver::sweep::best_fitting(&pts),
                max_fit,
                points: contexts.iter().map(|&c| c as f64).zip(pts).collect(),
                crossover: None,
            }
        }
    })
}

/// The devices of the Generations view: the chosen family in catalog order,
/// or the marked devices.
pub fn generation_devices(app: &App) -> (String, Vec<usize>) {
    let name = app.view_inputs.family.name();
    let devices = crate::scenario::family_devices(&app.catalog, &name, &app.shown_devices_marked());
    (name, devices)
}

/// Devices judged side by side, for the Compare pane and Generations.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceComparison {
    pub rows: Vec<Compared>,
    /// The row the speedups are over.
    pub baseline: Option<usize>,
    /// Display order: fitting rows first, by the app's sort key.
    pub order: Vec<usize>,
}

/// The current workload on each of `devices` (catalog indices): its
/// sensitivity, the solver's fit verdict and the cost of what runs
/// (`compare::assess`), the speedup over the baseline (the one picked with
/// `b` when it is in the list and fits, else the first that fits) and the
/// display order. `known` is a device whose sensitivity is already computed.
pub fn compare_devices(
    app: &App,
    devices: &[usize],
    known: Option<(usize, &Sensitivity)>,
) -> DeviceComparison {
    let Some(entry) = app.catalog.models.get(app.model) else {
        return DeviceComparison {
            rows: Vec::new(),
            baseline: None,
            order: Vec::new(),
        };
    };
    let model = &entry.model;
    let wl = app.workload;
    let mut rows: Vec<Compared> = devices
        .iter()
        .map(|&i| {
            let dev = &app.catalog.hardware[i].hw;
            let a = app.assumptions_on(i);
            let result = match known {
                Some((k, s)) if k == i => Ok(s.clone()),
                _ => solver::sensitivity(dev, model, &wl, &a, PERTURB).map_err(|e| e.to_string()),
            };
            let judged = result
                .as_ref()
                .ok()
                .map(|s| compare::assess(dev, model, &wl, &a, s.base.clone()));
            Compared {
                hw: i,
                result,
                judged,
                speedup: None,
            }
        })
        .collect();
    let fits: Vec<bool> = rows.iter().map(Compared::fits).collect();
    let chosen = app
        .baseline
        .and_then(|b| rows.iter().position(|c| c.hw == b));
    let baseline = compare::pick_baseline(&fits, chosen);
    if let Some(b) = baseline
        && let Some(base) = rows[b].judged.clone()
    {
        let base_hw = &app.catalog.hardware[rows[b].hw].hw;
        for c in rows.iter_mut() {
            if let Some(j) = &c.judged {
                let hw = &app.catalog.hardware[c.hw].hw;
                c.speedup = compare::speedup(base_hw, &base.eval, hw, &j.eval);
            }
        }
    }
    let judged: Vec<Option<&compare::Compared>> = rows.iter().map(|c| c.judged.as_ref()).collect();
    let order = compare::order(&judged, app.compare_sort);
    DeviceComparison {
        rows,
        baseline,
        order,
    }
}
