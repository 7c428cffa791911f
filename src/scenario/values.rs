//! A scenario's values, resolved and checked key by key: each problem names
//! the dotted key it belongs to ("workload.batch", "compare.1"), so that
//! `check` can say where it is in the file.

use super::{
    FleetInputs, Scenario, SynthTarget, VIEWS, WorkloadSection, generation_families, parse_batches,
};
use crate::catalog::device_class::Resolved;
use crate::catalog::{Catalog, HardwareEntry};
use crate::solver::fleet::ModeChoice;
use crate::solver::roofline::{validate_assumptions, validate_workload};
use crate::solver::serving::{Request, validate_request};
use crate::solver::units::{self, Kind};
use crate::solver::{Assumptions, Phase, Precision, Precisions, Workload};
use std::collections::HashSet;

/// A problem with one key: its dotted path and what is wrong.
pub type Problem = (String, String);

/// Problems gathered while resolving.
#[derive(Default)]
pub(super) struct Problems(Vec<Problem>);

impl Problems {
    pub(super) fn push(&mut self, key: &str, message: impl Into<String>) {
        self.0.push((key.to_string(), message.into()));
    }
    pub(super) fn or<T>(self, value: T) -> Result<T, Vec<Problem>> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(self.0)
        }
    }
}

/// A time as written ("50ms"), or the problem with it.
fn time(p: &mut Problems, key: &str, v: &Option<String>, default: f64) -> f64 {
    match v.as_deref().map(|t| units::parse(t, Kind::Time)) {
        None => default,
        Some(Ok(x)) => x,
        Some(Err(e)) => {
            p.push(key, e.to_string());
            default
        }
    }
}

/// Each workload value the file gives, checked alone over `base`, so that
/// a problem names its own key.
fn check_alone(w: &WorkloadSection, wl: &Workload, base: &Workload, p: &mut Problems) {
    let mut alone = |key: &str, changed: Workload| {
        if let Err(e) = validate_workload(&changed) {
            p.push(key, e.to_string());
        }
    };
    if w.batch.is_some() {
        let batch = wl.batch;
        alone("workload.batch", Workload { batch, ..*base });
    }
    if w.context.is_some() || w.phase.is_some() {
        // A prompt of zero tokens is a problem of a prefill only.
        let key = if w.context.is_some() {
            "workload.context"
        } else {
            "workload.phase"
        };
        let (context, phase) = (wl.context, wl.phase);
        alone(
            key,
            Workload {
                context,
                phase,
                ..*base
            },
        );
    }
    if w.tp.is_some() {
        alone("workload.tp", Workload { tp: wl.tp, ..*base });
    }
    if w.pp.is_some() {
        alone("workload.pp", Workload { pp: wl.pp, ..*base });
    }
}

impl Scenario {
    /// The workload, over `base` (a valid workload) for what the scenario
    /// leaves out.
    pub fn workload(&self, base: &Workload) -> Result<Workload, Vec<Problem>> {
        let w = &self.workload;
        let mut p = Problems::default();
        let mut prec = |key: &str, v: &Option<String>, d: Precision| {
            match v {
            None => d,
            Some(s) => Precision::parse(s).unwrap_or_else(|| {
                p.push(
                    key,
                    format!("unknown precision {s:?}; use fp32, tf32, bf16, fp16, fp8, int8, fp4 or int4"),
                );
                d
            }),
        }
        };
        let all = prec("workload.precision", &w.precision, base.weights);
        let given = |d: Precision| if w.precision.is_some() { all } else { d };
        let weights = prec("workload.weights", &w.weights, given(base.weights));
        let activations = prec(
            "workload.activations",
            &w.activations,
            given(base.activations),
        );
        let kv = prec("workload.kv", &w.kv, given(base.kv));
        let phase = match &w.phase {
            None => base.phase,
            Some(s) => Phase::parse(s).unwrap_or_else(|| {
                p.push(
                    "workload.phase",
                    format!("unknown phase {s:?}; use decode or prefill"),
                );
                base.phase
            }),
        };
        let wl = Workload {
            phase,
            batch: w.batch.unwrap_or(base.batch),
            context: w.context.unwrap_or(base.context),
            weights,
            activations,
            kv,
            tp: w.tp.unwrap_or(base.tp),
            pp: w.pp.unwrap_or(base.pp),
        };
        check_alone(w, &wl, base, &mut p);
        if p.0.is_empty()
            && let Err(e) = validate_workload(&wl)
        {
            p.push("workload", e.to_string());
        }
        p.or(wl)
    }

    /// The assumptions: `base` (the profile's, see [`Scenario::profile`])
    /// with every key the file sets over it.
    pub fn assumptions(&self, base: &Assumptions) -> Result<Assumptions, Vec<Problem>> {
        let (a, mut problems) = self.assumptions.apply(base);
        if problems.is_empty()
            && let Err(e) = validate_assumptions(&a)
        {
            problems.push(("assumptions".into(), e.to_string()));
        }
        if problems.is_empty() {
            Ok(a)
        } else {
            Err(problems)
        }
    }

    /// The profile the assumptions start from, from the catalog: its id as
    /// the catalog spells it and its assumptions.
    pub fn profile(&self, catalog: &Catalog) -> Result<(String, Assumptions), Problem> {
        catalog
            .profile(self.assumptions.profile_id())
            .map(|p| (p.id.clone(), p.assumptions))
            .map_err(|e| ("assumptions.profile".to_string(), e.to_string()))
    }

    /// The profile the assumptions start from on device `hw`: its id, its
    /// values for the device's class (its base values when it names none)
    /// and that class.
    pub fn profile_on(
        &self,
        catalog: &Catalog,
        hw: &HardwareEntry,
    ) -> Result<(String, Resolved), Problem> {
        catalog
            .profile(self.assumptions.profile_id())
            .map(|p| (p.id.clone(), p.on(hw)))
            .map_err(|e| ("assumptions.profile".to_string(), e.to_string()))
    }

    /// Prompt and output lengths (default 2048 and 256).
    pub fn request(&self) -> Result<Request, Vec<Problem>> {
        let d = Request::default();
        let mut p = Problems::default();
        let r = Request {
            prompt: self.serving.prompt.unwrap_or(d.prompt),
            output: self.serving.output.unwrap_or(d.output),
        };
        if self.serving.prompt.is_some()
            && let Err(e) = validate_request(&Request {
                prompt: r.prompt,
                ..d
            })
        {
            p.push("serving.prompt", e.to_string());
        }
        if self.serving.output.is_some()
            && let Err(e) = validate_request(&Request {
                output: r.output,
                ..d
            })
        {
            p.push("serving.output", e.to_string());
        }
        p.or(r)
    }

    /// The fleet inputs (defaults: the capstone's figures).
    pub fn fleet_inputs(&self) -> Result<FleetInputs, Vec<Problem>> {
        let f = &self.fleet;
        let d = FleetInputs::default();
        let mut p = Problems::default();
        let positive_time = |p: &mut Problems, key: &str, v: &Option<String>, dv: f64| {
            let x = time(p, key, v, dv);
            if x > 0.0 {
                x
            } else {
                p.push(key, format!("{} must be greater than zero", &key[6..]));
                dv
            }
        };
        let ttft_s = positive_time(&mut p, "fleet.ttft", &f.ttft, d.ttft_s);
        let itl_s = positive_time(&mut p, "fleet.itl", &f.itl, d.itl_s);
        let qps = f.qps.unwrap_or(d.qps);
        if !(qps.is_finite() && qps > 0.0) {
            p.push(
                "fleet.qps",
                format!("qps must be greater than zero, got {qps}"),
            );
        }
        let budget = match f.budget.as_deref() {
            None => None,
            Some(b) => match units::parse(b, Kind::Count) {
                Ok(x) if x > 0.0 => Some(x),
                Ok(_) => {
                    p.push("fleet.budget", "budget must be greater than zero");
                    None
                }
                Err(e) => {
                    p.push("fleet.budget", e.to_string());
                    None
                }
            },
        };
        let max_utilization = f.max_utilization.unwrap_or(d.max_utilization);
        if !(max_utilization > 0.0 && max_utilization <= 1.0) {
            p.push(
                "fleet.max_utilization",
                "max_utilization must be greater than 0 and at most 1",
            );
        }
        let regions: Vec<String> = if f.regions.is_empty() {
            d.regions
        } else {
            f.regions
                .iter()
                .map(|r| r.trim().to_ascii_lowercase())
                .collect()
        };
        let precisions = match f.precisions.as_deref() {
            None => d.precisions,
            Some(t) => Precisions::parse_list(t).unwrap_or_else(|e| {
                p.push("fleet.precisions", e);
                d.precisions
            }),
        };
        let mode = match f.mode.as_deref() {
            None => d.mode,
            Some(t) => ModeChoice::parse(t).unwrap_or_else(|| {
                p.push(
                    "fleet.mode",
                    format!("no mode {t:?}; use auto, aggregated or disaggregated"),
                );
                d.mode
            }),
        };
        if !f.shares.is_empty()
            && let Err(e) = check_shares(&f.shares, regions.len())
        {
            p.push("fleet.shares", e);
        }
        p.or(FleetInputs {
            qps,
            ttft_s,
            itl_s,
            regions,
            budget_usd_per_year: budget,
            max_utilization,
            shares: f.shares.clone(),
            precisions,
            mode,
        })
    }

    /// The synthesis target, if the scenario sets one.
    pub fn target(&self) -> Result<Option<SynthTarget>, Vec<Problem>> {
        match &self.synthesis.target {
            None => Ok(None),
            Some(t) => SynthTarget::parse(t)
                .map(Some)
                .map_err(|m| vec![("synthesis.target".into(), m)]),
        }
    }

    /// The batch range of the sweep, if the scenario sets one.
    pub fn batches(&self) -> Result<Option<(u64, u64)>, Vec<Problem>> {
        match &self.sweep.batches {
            None => Ok(None),
            Some(b) => parse_batches(b)
                .map(Some)
                .map_err(|m| vec![("sweep.batches".into(), m)]),
        }
    }

    /// What the sweep runs over: Some(true) for context, Some(false) for batch.
    pub fn sweep_over_context(&self) -> Result<Option<bool>, Vec<Problem>> {
        match self
            .sweep
            .over
            .as_deref()
            .map(|s| s.trim().to_ascii_lowercase())
        {
            None => Ok(None),
            Some(s) if s == "batch" => Ok(Some(false)),
            Some(s) if s == "context" => Ok(Some(true)),
            Some(s) => Err(vec![(
                "sweep.over".into(),
                format!("sweep over {s:?}? use batch or context"),
            )]),
        }
    }

    /// Every problem of the values, without a catalog.
    pub fn value_problems(&self) -> Vec<Problem> {
        let mut all = Vec::new();
        if let Some(v) = &self.view
            && !VIEWS.contains(&v.as_str())
        {
            all.push((
                "view".to_string(),
                format!("unknown view {v:?}; use one of {}", VIEWS.join(", ")),
            ));
        }
        let wl = Workload::default();
        all.extend(self.workload(&wl).err().unwrap_or_default());
        all.extend(
            self.assumptions(&Assumptions::default())
                .err()
                .unwrap_or_default(),
        );
        all.extend(self.request().err().unwrap_or_default());
        all.extend(self.serve_modes().err().unwrap_or_default());
        all.extend(self.fleet_inputs().err().unwrap_or_default());
        all.extend(self.training_inputs().err().unwrap_or_default());
        all.extend(self.explore_inputs().err().unwrap_or_default());
        all.extend(self.target().err().unwrap_or_default());
        all.extend(self.batches().err().unwrap_or_default());
        all.extend(self.sweep_over_context().err().unwrap_or_default());
        for (key, items) in [
            ("compare", &self.compare),
            ("fleet.regions", &self.fleet.regions),
        ] {
            let n = distinct(items).len();
            if n > MAX_LIST_ITEMS {
                all.push((
                    key.to_string(),
                    format!(
                        "{n} different names; a list holds at most {MAX_LIST_ITEMS} (a repeat counts once)"
                    ),
                ));
            }
        }
        all
    }

    /// Every name the catalog does not know: devices, model, regions, family.
    pub fn catalog_problems(&self, catalog: &Catalog) -> Vec<Problem> {
        let mut p = Problems::default();
        if let Some(h) = &self.hardware
            && let Err(e) = catalog.hardware(h)
        {
            p.push("hardware", e.to_string());
        }
        for i in first_of_each(&self.compare) {
            if let Err(e) = catalog.hardware(&self.compare[i]) {
                p.push(&format!("compare.{i}"), e.to_string());
            }
        }
        // A path (a config.json or a model folder) is imported by whoever
        // opens the scenario (`Scenario::model_path`), not looked up.
        if let Some(m) = &self.model
            && !crate::catalog::hf::load::looks_like_path(m)
            && let Err(e) = catalog.model(m)
        {
            p.push("model", e.to_string());
        }
        if let Err((key, e)) = self.profile(catalog) {
            p.push(&key, e);
        }
        if let Some(r) = &self.serving.region
            && let Err(e) = catalog.region(r)
        {
            p.push("serving.region", e.to_string());
        }
        if let Some(d) = &self.serving.draft {
            match catalog.model(d) {
                Err(e) => p.push("serving.draft", e.to_string()),
                Ok(m) if !matches!(m.model.arch, crate::solver::Arch::Decoder(_)) => p.push(
                    "serving.draft",
                    format!("{d} is not a decoder: a draft proposes tokens"),
                ),
                Ok(_) => {}
            }
        }
        for i in first_of_each(&self.fleet.regions) {
            if let Err(e) = catalog.region(&self.fleet.regions[i]) {
                p.push(&format!("fleet.regions.{i}"), e.to_string());
            }
        }
        if let Some(f) = &self.generations.family {
            let fams = generation_families(catalog);
            let f = f.trim().to_ascii_lowercase();
            if f != "marked" && f != super::FLAGSHIP_FAMILY && !fams.contains(&f) {
                p.push(
                    "generations.family",
                    format!(
                        "no family {f:?} of two devices or more; use marked, {} or one of {}",
                        super::FLAGSHIP_FAMILY,
                        fams.join(", ")
                    ),
                );
            }
        }
        p.0
    }
}

/// The most different names a scenario list (`compare`, `fleet.regions`)
/// holds, as a list flag of the command line; a repeat is merged.
pub const MAX_LIST_ITEMS: usize = 256;

/// The names of a list as they are matched (trimmed, lower case), each once.
fn distinct(items: &[String]) -> HashSet<String> {
    items.iter().map(|s| s.trim().to_lowercase()).collect()
}

/// The index of the first item of each different name, in order; none when
/// the list is over [`MAX_LIST_ITEMS`] (that is its problem), so that a
/// long list is never looked up item by item.
fn first_of_each(items: &[String]) -> Vec<usize> {
    let mut seen = HashSet::new();
    let firsts: Vec<usize> = (0..items.len())
        .filter(|&i| seen.insert(items[i].trim().to_lowercase()))
        .collect();
    if firsts.len() > MAX_LIST_ITEMS {
        return Vec::new();
    }
    firsts
}

/// Shares of the load over `n` regions: one per region, each above 0,
/// adding up to 1.
pub fn check_shares(s: &[f64], n: usize) -> Result<(), String> {
    if s.len() != n {
        return Err(format!(
            "{} shares for {n} regions; give one per region, in region order",
            s.len()
        ));
    }
    let total: f64 = s.iter().sum();
    if s.iter().any(|x| !(x.is_finite() && *x > 0.0)) || (total - 1.0).abs() > 1e-6 {
        return Err(format!("shares {s:?} must each be above 0 and add up to 1"));
    }
    Ok(())
}
