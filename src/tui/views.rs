//! The views beyond the roofline: what each one computes from the pure
//! solver for the current selection and knobs. `App::recompute` calls
//! [`compute`] for the view on screen; the panes only read the result.

use super::app::{Analysis, App, Compared, PERTURB};
use super::knobs::{Family, SweepAxis};
use crate::scenario::SynthTarget;
use crate::solver::economics::{self, DEFAULT_IDLE_SHARE, Daily, Economics};
use crate::solver::fleet::{self, FleetPlan, FleetSpec};
use crate::solver::serving::{self, Serving};
use crate::solver::synthesis::{self, DEFAULT_COMM_SHARE, Match, RankBy, Requirement};
use crate::solver::{self, Evaluation, Phase, Workload};

/// The workbench's views, in number-key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    Roofline,
    Serving,
    Synthesis,
    Sweep,
    Generations,
    Fleet,
}

impl View {
    pub const ALL: [View; 6] = [
        View::Roofline,
        View::Serving,
        View::Synthesis,
        View::Sweep,
        View::Generations,
        View::Fleet,
    ];
    pub fn title(self) -> &'static str {
        match self {
            View::Roofline => "Roofline",
            View::Serving => "Serving",
            View::Synthesis => "Synthesis",
            View::Sweep => "Sweep",
            View::Generations => "Generations",
            View::Fleet => "Fleet",
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
        View::ALL[(self.index() + 1) % 6]
    }
    pub fn prev(self) -> View {
        View::ALL[(self.index() + 5) % 6]
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
    pub serving: Serving,
    pub devices: u32,
    pub economics: Economics,
    pub region: RegionFigures,
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
    pub plan: FleetPlan,
    /// The best option's figures per region.
    pub regions: Vec<RegionFigures>,
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
            Ok(ViewData::Serving(ServingData {
                serving: s,
                devices,
                economics: e,
                region,
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
        View::Sweep => {
            let data = match v.sweep {
                SweepAxis::Batch => {
                    let batches = solver::sweep::powers_of_two(v.batches.0, v.batches.1);
                    let s =
                        solver::sweep::batch_sweep(hw, model, &wl, &a, &batches).map_err(err)?;
                    SweepData {
                        axis: SweepAxis::Batch,
                        points: batches.iter().map(|&b| b as f64).zip(s.points).collect(),
                        crossover: s.crossover_batch,
                    }
                }
                SweepAxis::Context => {
                    let contexts = solver::sweep::powers_of_two(256, 131_072);
                    let pts =
                        solver::sweep::context_sweep(hw, model, &wl, &a, &contexts).map_err(err)?;
                    SweepData {
                        axis: SweepAxis::Context,
                        points: contexts.iter().map(|&c| c as f64).zip(pts).collect(),
                        crossover: None,
                    }
                }
            };
            Ok(ViewData::Sweep(data))
        }
        View::Generations => {
            let (label, devices) = generation_devices(app);
            if devices.is_empty() {
                return Err(match v.family {
                    Family::Marked => {
                        "no devices marked: mark some in the Hardware list (space)".to_string()
                    }
                    Family::Named(ref f) => format!("no devices in the family {f}"),
                });
            }
            let compare: Vec<Compared> = devices
                .iter()
                .map(|&i| {
                    let dev = &app.catalog.hardware[i].hw;
                    let result = solver::sensitivity(dev, model, &wl, &a, PERTURB)
                        .map_err(|e| e.to_string());
                    let cost_per_mtok = result.as_ref().ok().and_then(|s| {
                        super::app::cost_per_million_tokens(dev.price_per_hour_usd, &s.base)
                    });
                    Compared {
                        hw: i,
                        result,
                        cost_per_mtok,
                    }
                })
                .collect();
            // The first device that evaluates anchors the plot.
            let first = compare
                .iter()
                .find_map(|c| c.result.as_ref().ok().map(|s| (c.hw, s.clone())));
            let Some((anchor, sens)) = first else {
                return Err(compare
                    .iter()
                    .find_map(|c| c.result.as_ref().err().cloned())
                    .unwrap_or_default());
            };
            Ok(ViewData::Generations(GenData {
                label,
                analysis: Analysis {
                    hw: anchor,
                    model: app.model,
                    workload: wl,
                    assumptions: a,
                    sens,
                    other_phase: None,
                    compare,
                },
            }))
        }
        View::Fleet => {
            let spec = FleetSpec {
                qps: v.qps,
                request: v.request,
                ttft_sla_s: v.ttft_s,
                itl_sla_s: v.itl_s,
                budget_usd_per_year: v.budget,
                max_utilization: v.max_utilization,
            };
            let plan = fleet::size_fleet(&app.devices, model, &wl, &spec, &a, DEFAULT_IDLE_SHARE)
                .map_err(err)?;
            let mut regions = Vec::new();
            for id in &v.regions {
                let (p, e) = plan
                    .best
                    .as_ref()
                    .map_or((None, None), |b| (b.power_w, b.energy_per_token_j));
                regions.push(region_figures(app, id, p, e)?);
            }
            Ok(ViewData::Fleet(FleetData {
                spec,
                plan,
                regions,
            }))
        }
    }
}

/// The devices of the Generations view: the chosen family in catalog order,
/// or the marked devices.
pub fn generation_devices(app: &App) -> (String, Vec<usize>) {
    match &app.view_inputs.family {
        Family::Marked => ("marked".into(), app.shown_devices_marked()),
        Family::Named(f) => (
            f.clone(),
            app.catalog
                .hardware
                .iter()
                .enumerate()
                .filter(|(_, e)| e.family.as_deref() == Some(f.as_str()))
                .map(|(i, _)| i)
                .collect(),
        ),
    }
}
