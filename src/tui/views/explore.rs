//! The Explore view's figures: every serving configuration of the current
//! model over the view's axes (`solver::explore`), judged against its
//! limits, and the Pareto front on its two objectives. The search runs
//! only when one of its inputs changed (`refresh`): moving along the front
//! or anything the view does not read reuses the last one.

use crate::scenario::{ExploreHardware, ExploreInputs, up_to};
use crate::solver::economics::DEFAULT_IDLE_SHARE;
use crate::solver::explore::{self, Axes, Exploration, Limits, Objective, Point, Precisions};
use crate::solver::{Assumptions, Workload};
use crate::tui::app::App;
use std::sync::Arc;

/// The most configurations the view searches on a keystroke: 10^5 take
/// some tens of milliseconds; more is for `ridgeline explore`.
pub const MAX_VIEW_CONFIGS: usize = 100_000;

/// Everything the search depends on: when it is equal, the last search
/// stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub model: usize,
    /// Catalog indices of the devices searched.
    pub devices: Vec<usize>,
    pub inputs: ExploreInputs,
    pub prompt: f64,
    pub output: f64,
    pub assumptions: Assumptions,
}

/// The Explore view's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreData {
    pub key: Key,
    pub axes: Axes,
    pub x: Objective,
    pub y: Objective,
    pub exploration: Exploration,
}

/// A configuration as the workbench selects it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// Catalog index of the device.
    pub hw: usize,
    pub precisions: Precisions,
    pub tp: u32,
    pub pp: u32,
    pub batch: f64,
}

impl ExploreData {
    /// The point at row `row` of the front.
    pub fn front_point(&self, row: usize) -> Option<&Point> {
        self.exploration
            .front
            .get(row)
            .map(|&i| &self.exploration.points[i])
    }
    /// What selecting point `p` sets.
    pub fn choice(&self, p: &Point) -> Choice {
        let c = p.config;
        Choice {
            hw: self.key.devices[c.hardware],
            precisions: self.axes.precisions[c.precisions],
            tp: c.tp,
            pp: c.pp,
            batch: self.axes.batch[c.batch],
        }
    }
    /// A point's value on `o`, None when it has none.
    pub fn value(p: &Point, o: Objective) -> Option<f64> {
        p.figures.as_ref().and_then(|f| o.value(f))
    }
}

/// The catalog indices of the devices `h` names for `app`.
fn devices(app: &App, h: ExploreHardware) -> Vec<usize> {
    let all = app.catalog.hardware.iter().enumerate();
    match h {
        ExploreHardware::Marked => app.shown_devices(),
        ExploreHardware::Tier(t) => all
            .filter(|(_, e)| e.hw.tier == t)
            .map(|(i, _)| i)
            .collect(),
        ExploreHardware::All => all.map(|(i, _)| i).collect(),
    }
}

/// The key of the app's current inputs.
pub fn key(app: &App) -> Key {
    let v = &app.view_inputs;
    Key {
        model: app.model,
        devices: devices(app, v.explore.hardware),
        inputs: v.explore.clone(),
        prompt: v.request.prompt,
        output: v.request.output,
        assumptions: app.assumptions,
    }
}

/// Search the space `key` spans.
pub fn compute(app: &App, key: Key) -> Result<ExploreData, String> {
    let model = &app
        .catalog
        .models
        .get(key.model)
        .ok_or("the catalog has no models")?
        .model;
    let e = &key.inputs;
    if key.devices.is_empty() {
        return Err(format!(
            "no devices in {}: pick another with the devices knob",
            e.hardware.name()
        ));
    }
    let axes = Axes {
        hardware: key
            .devices
            .iter()
            .map(|&i| app.catalog.hardware[i].hw.clone())
            .collect(),
        precisions: e.precisions.clone(),
        tp: up_to(e.tp as u64).into_iter().map(|x| x as u32).collect(),
        pp: up_to(e.pp as u64).into_iter().map(|x| x as u32).collect(),
        batch: up_to(e.batch).into_iter().map(|x| x as f64).collect(),
        prompt: vec![key.prompt],
        output: vec![key.output],
    };
    let size = axes.size();
    if size > MAX_VIEW_CONFIGS {
        return Err(format!(
            "{size} configurations: the view searches up to {MAX_VIEW_CONFIGS} live; narrow an axis (devices, precisions, TP, PP, batch) or use ridgeline explore"
        ));
    }
    let limits = Limits {
        ttft_s: e.ttft_s,
        itl_s: e.itl_s,
        ..Limits::default()
    };
    let exploration = explore::explore(
        model,
        &axes,
        &limits,
        &[e.x, e.y],
        &key.assumptions,
        DEFAULT_IDLE_SHARE,
    )
    .map_err(|e| e.to_string())?;
    Ok(ExploreData {
        x: e.x,
        y: e.y,
        key,
        axes,
        exploration,
    })
}

/// The last search and what it was run for.
#[derive(Debug, Clone)]
pub struct ExploreCache {
    pub key: Key,
    pub result: Result<Arc<ExploreData>, String>,
}

/// Search again when an input of the search changed since the last one.
pub fn refresh(app: &mut App) {
    let k = key(app);
    if app.explore_cache.as_ref().is_some_and(|c| c.key == k) {
        return;
    }
    app.explore_searches += 1;
    let result = compute(app, k.clone()).map(Arc::new);
    app.explore_cache = Some(ExploreCache { key: k, result });
}

/// The view's figures from the last search.
pub fn shown(app: &App) -> Result<Arc<ExploreData>, String> {
    match &app.explore_cache {
        Some(c) => c.result.clone(),
        None => Err("not searched yet".into()),
    }
}

/// `wl` with a choice's precision, parallelism and batch.
pub fn adopt(wl: &Workload, c: &Choice) -> Workload {
    Workload {
        weights: c.precisions.weights,
        activations: c.precisions.activations,
        kv: c.precisions.kv,
        tp: c.tp,
        pp: c.pp,
        batch: c.batch,
        ..*wl
    }
}
