//! The Training view's figures: one training step of the selected model on
//! the selected device (its terms, memory per device and fit, MFU and HFU,
//! the elasticities of the step time), the whole run (days, device-hours,
//! cost, energy, CO2, goodput), and the layout search's ranking when the
//! user ran it for these inputs, and the scaling curve when its plot is
//! shown. All from `solver::training`.

use crate::solver::economics::DEFAULT_IDLE_SHARE;
use crate::solver::training::memory::Fix;
use crate::solver::training::run::{self, RunFigures, RunSpec};
use crate::solver::training::scale::{self, Batch, Choice, Scaling, Spec};
use crate::solver::training::step::{self, Knob as Elastic};
use crate::solver::training::{
    self, Layout, Optimizer, Search, Training, TrainingAssumptions, TrainingRun,
};
use crate::solver::{Assumptions, Hardware, Model, Precision};
use crate::tui::knobs::TrainInputs;

mod curve;
pub use curve::{Curve, Curves, refresh_curve};

/// Layouts the search keeps, fastest first.
pub const SEARCH_TOP: usize = 10;

/// The figures of the Training view.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingData {
    pub training: Training,
    /// d ln T / d ln x for each hardware figure and efficiency.
    pub elasticities: [(Elastic, f64); 7],
    /// The whole run. Shown only when the step fits (a run that does not
    /// fit does not run).
    pub run: RunFigures,
    /// When it does not fit: the single changes that lower the memory,
    /// each with the bytes per device it gives and whether that fits.
    pub fixes: Vec<(Fix, f64, bool)>,
    /// Region id of the carbon figures.
    pub region: String,
    /// The layout search, when it was run for these inputs.
    pub search: Option<Search>,
    /// The scaling curve at the step's global batch, when its plot is
    /// shown (or why there is none, or the curve of the inputs before
    /// while this one is computed).
    pub scaling: Option<Curve>,
}

impl TrainingData {
    pub fn fits(&self) -> bool {
        self.training.memory.fits
    }
}

/// What a layout search depends on: it stays on screen while these stay.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchKey {
    pub hw: usize,
    pub model: usize,
    pub devices: u32,
    pub global_batch: f64,
    pub seq: f64,
    pub precision: Precision,
    pub optimizer: Optimizer,
    pub assumptions: Assumptions,
    pub training: TrainingAssumptions,
}

/// A search run from the view, with what it was run for.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRun {
    pub key: SearchKey,
    pub search: Search,
}

/// The key a search of these inputs is filed under.
pub fn search_key(
    hw: usize,
    model_ix: usize,
    model: &Model,
    t: &TrainInputs,
    precision: Precision,
    a: &Assumptions,
) -> SearchKey {
    SearchKey {
        hw,
        model: model_ix,
        devices: t.devices,
        global_batch: t.global_batch,
        seq: t.seq_for(model),
        precision,
        optimizer: t.optimizer,
        assumptions: *a,
        training: t.assumptions,
    }
}

/// Everything the view shows for one set of inputs. `grid` is the region's
/// (None leaves CO2 out).
#[allow(clippy::too_many_arguments)]
pub fn compute(
    hw: &Hardware,
    model: &Model,
    t: &TrainInputs,
    precision: Precision,
    a: &Assumptions,
    region: &str,
    grid: Option<crate::solver::economics::Grid>,
    search: Option<Search>,
    scaling: Option<Curve>,
) -> Result<TrainingData, String> {
    let err = |e: crate::solver::SolverError| e.to_string();
    let run = t.run(model, precision)?;
    let ta = t.assumptions;
    let tr = training::evaluate(hw, model, &run, a, &ta).map_err(err)?;
    let d = training::decoder(model).map_err(err)?;
    let elasticities =
        step::elasticities(hw, d, &tr.params, &tr.flops, &run, a, &ta).map_err(err)?;
    let spec = RunSpec {
        tokens: t.tokens,
        idle_share: DEFAULT_IDLE_SHARE,
        grid,
    };
    let rf = run::run_figures(hw, &tr, &spec, &ta);
    let fixes = if tr.memory.fits {
        Vec::new()
    } else {
        training::memory::fixes(hw, d, &tr.params, &run, a, &ta)
    };
    Ok(TrainingData {
        training: tr,
        elasticities,
        run: rf,
        fixes,
        region: region.to_string(),
        search,
        scaling,
    })
}

/// The device counts of the scaling plot: 8 to 16384, doubling (12).
pub fn scaling_devices() -> Vec<u32> {
    scale::doublings(8, 16384)
}

/// Everything a scaling curve depends on: the device, the model, the
/// assumptions and the run with what the curve's searches choose at each
/// count (the layout, ZeRO stage, recomputation and micro-batch) set to
/// their defaults. Two inputs with the same key have the same curve, so a
/// change of those knobs (or of the devices, tokens or region) keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleKey {
    pub hw: Hardware,
    pub model: Model,
    pub base: TrainingRun,
    pub assumptions: Assumptions,
    pub training: TrainingAssumptions,
}

/// The key of the scaling curve of these inputs.
pub fn scale_key(
    hw: &Hardware,
    model: &Model,
    t: &TrainInputs,
    precision: Precision,
    a: &Assumptions,
) -> Result<ScaleKey, String> {
    let base = unlaid_run(t, model, precision)?;
    let chosen = TrainingRun::default();
    Ok(ScaleKey {
        hw: hw.clone(),
        model: model.clone(),
        base: TrainingRun {
            micro_batch: chosen.micro_batch,
            zero: chosen.zero,
            recompute: chosen.recompute,
            ..base
        },
        assumptions: *a,
        training: t.assumptions,
    })
}

/// Strong scaling of the key's run (its global batch, sequence and
/// formats) over [`scaling_devices`], each count's fastest layout that
/// fits: what `ridgeline scale` gives with the same model and batch.
pub fn scaling_of(k: &ScaleKey) -> Result<Scaling, String> {
    let spec = Spec {
        devices: scaling_devices(),
        batch: Batch::Strong(k.base.global_batch_tokens),
        base: k.base,
        choice: Choice::Search,
        knee: scale::DEFAULT_KNEE,
    };
    scale::scale(&k.hw, &k.model, &spec, &k.assumptions, &k.training).map_err(|e| e.to_string())
}

/// The scaling curve of the inputs, computed here and now (the plot takes
/// it through [`Curves`]).
pub fn scaling(
    hw: &Hardware,
    model: &Model,
    t: &TrainInputs,
    precision: Precision,
    a: &Assumptions,
) -> Result<Scaling, String> {
    scaling_of(&scale_key(hw, model, t, precision, a)?)
}

/// The run of the inputs with the default layout, for a caller that lays
/// it out itself (the scaling curve, the layout search): only the batch,
/// sequence and formats of the run matter there.
fn unlaid_run(t: &TrainInputs, model: &Model, precision: Precision) -> Result<TrainingRun, String> {
    let one = TrainInputs {
        tp: 1,
        pp: 1,
        v: 1,
        ep: 1,
        cp: 1,
        ..*t
    };
    Ok(TrainingRun {
        layout: Layout::default(),
        ..one.run(model, precision)?
    })
}

/// Run the layout search for the inputs: every layout of the device count
/// that fits, the fastest first.
pub fn search(
    hw: &Hardware,
    model: &Model,
    t: &TrainInputs,
    precision: Precision,
    a: &Assumptions,
) -> Result<Search, String> {
    // The search sets the layout itself; only the batch, sequence and
    // formats of the run matter.
    let base = unlaid_run(t, model, precision)?;
    training::search(hw, model, &base, t.devices, a, &t.assumptions, SEARCH_TOP)
        .map_err(|e| e.to_string())
}

/// The inputs with a layout of the search adopted: its degrees, ZeRO
/// stage, recomputation and micro-batch; the rest stays.
pub fn adopt(t: &TrainInputs, r: &TrainingRun) -> TrainInputs {
    let l = r.layout;
    TrainInputs {
        devices: u32::try_from(l.devices()).unwrap_or(t.devices),
        tp: l.tp,
        pp: l.pp,
        v: l.v,
        ep: l.ep,
        cp: l.cp,
        zero: r.zero,
        recompute: r.recompute,
        micro_batch: r.micro_batch,
        ..*t
    }
}

/// The change a fix makes, in the knobs' words.
pub fn fix_text(f: &Fix) -> String {
    match f {
        Fix::Zero(z) => format!("ZeRO {z}"),
        Fix::Recompute(r) => format!("recompute {}", r.name()),
        Fix::MicroBatch(b) => format!("micro-batch {b}"),
        Fix::Tp(t) => format!("TP {t} (fewer DP)"),
        Fix::Pp(p) => format!("PP {p} (fewer DP)"),
    }
}

/// Why a ranked layout loses to the fastest: how much slower and the term
/// that binds it. None for the fastest.
pub fn loses_by(best: f64, step_s: f64) -> Option<f64> {
    (step_s > best && best > 0.0).then(|| step_s / best - 1.0)
}

/// The elasticity's name as the table shows it.
pub fn elastic_label(k: Elastic) -> &'static str {
    match k {
        Elastic::PeakFlops => "peak FLOP/s",
        Elastic::MemoryBandwidth => "memory bandwidth",
        Elastic::ScaleUp => "scale-up link",
        Elastic::ScaleOut => "scale-out network",
        Elastic::ComputeEfficiency => "compute efficiency",
        Elastic::MemoryEfficiency => "memory efficiency",
        Elastic::LinkEfficiency => "link efficiency",
    }
}

/// Stops of the pane's cursor before the ranking: the step, the memory,
/// the run and the sensitivity (on a short screen, Down scrolls to each).
pub const SECTIONS: usize = 4;

/// Rows the cursor walks: the sections, then the ranking's rows (one stop
/// for the ranking before a search).
pub fn rows(d: &TrainingData) -> usize {
    SECTIONS + d.search.as_ref().map_or(1, |s| s.ranked.len().max(1))
}

/// The ranked layout under the cursor, if it is on one.
pub fn picked(d: &TrainingData, cursor: usize) -> Option<usize> {
    let i = cursor.checked_sub(SECTIONS)?;
    d.search.as_ref().filter(|s| i < s.ranked.len()).map(|_| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    fn figures(t: &TrainInputs) -> (Model, TrainingData) {
        let cat = Catalog::builtin();
        let hw = cat.hardware("h100-sxm").unwrap().hw.clone();
        let m = cat.model("llama-3.1-8b").unwrap().model.clone();
        let a = Assumptions::default();
        let d = compute(&hw, &m, t, Precision::Bf16, &a, "us-east", None, None, None).unwrap();
        (m, d)
    }

    #[test]
    fn zero_3_shards_the_16_bytes_per_parameter_over_the_8_ranks() {
        let (m, d) = figures(&TrainInputs::default());
        let mem = &d.training.memory;
        // bf16 weights and gradients (2 + 2 bytes), fp32 master and two
        // Adam moments (4 + 8): 16 bytes per parameter, all sharded by
        // ZeRO 3 over dp 8.
        let p = m.params;
        assert!((mem.weights - 2.0 * p / 8.0).abs() < 1e-6 * p);
        assert!((mem.gradients - 2.0 * p / 8.0).abs() < 1e-6 * p);
        assert!((mem.optimizer - 12.0 * p / 8.0).abs() < 1e-6 * p);
        assert!(d.fits() && d.fixes.is_empty());
    }

    #[test]
    fn the_step_bar_adds_up_to_the_step_time() {
        for t in [
            TrainInputs::default(),
            TrainInputs {
                devices: 64,
                tp: 4,
                pp: 2,
                ..TrainInputs::default()
            },
        ] {
            let (_, d) = figures(&t);
            let s = &d.training.step;
            // compute less recompute, recompute, element-wise, the exposed collectives,
            // bubble, optimizer and overhead: the step's own sum.
            let parts = (s.compute_s - s.recompute_s)
                + s.recompute_s
                + s.elementwise_s
                + s.moe_routing_s
                + s.comm.exposed()
                + s.bubble_s
                + s.optimizer_s
                + s.overhead_s;
            assert!((parts - s.step_time_s).abs() < 1e-12 * s.step_time_s);
        }
    }

    #[test]
    fn a_run_that_does_not_fit_comes_with_fixes_that_fit() {
        // ZeRO 1 on Llama 3.1 8B over 8 x 80 GB: 2 + 2 bytes per parameter
        // unsharded (32 GB) plus the activations exceed 72 GB usable.
        let (_, d) = figures(&TrainInputs {
            zero: 1,
            ..TrainInputs::default()
        });
        assert!(!d.fits());
        assert!(d.fixes.iter().any(|(_, _, fits)| *fits));
        let texts: Vec<String> = d.fixes.iter().map(|(f, _, _)| fix_text(f)).collect();
        assert!(texts.contains(&"ZeRO 2".to_string()), "{texts:?}");
        assert!(texts.contains(&"recompute full".to_string()), "{texts:?}");
    }

    #[test]
    fn the_search_ranks_fastest_first_and_adopting_keeps_the_rest() {
        let cat = Catalog::builtin();
        let hw = cat.hardware("h100-sxm").unwrap().hw.clone();
        let m = cat.model("llama-3.1-8b").unwrap().model.clone();
        let t = TrainInputs::default();
        let s = search(&hw, &m, &t, Precision::Bf16, &Assumptions::default()).unwrap();
        assert!(!s.ranked.is_empty() && s.ranked.len() <= SEARCH_TOP);
        assert!(
            s.ranked
                .windows(2)
                .all(|w| w[0].step_time_s <= w[1].step_time_s)
        );
        assert_eq!(s.tried, s.fitting + s.too_big + s.no_link);
        let best = s.ranked[0].run;
        let adopted = adopt(&t, &best);
        assert_eq!(adopted.layout().unwrap(), best.layout);
        assert_eq!(
            (adopted.zero, adopted.recompute, adopted.micro_batch),
            (best.zero, best.recompute, best.micro_batch)
        );
        assert_eq!(
            (adopted.global_batch, adopted.seq, adopted.tokens),
            (t.global_batch, t.seq, t.tokens)
        );
        // The adopted inputs evaluate to the step the search ranked.
        let (_, d) = figures(&adopted);
        assert_eq!(d.training.step.step_time_s, s.ranked[0].step_time_s);
        assert_eq!(d.training.run.recompute, best.recompute);
    }

    #[test]
    fn loses_by_is_the_share_slower_than_the_fastest() {
        // 1.1 s against 1.0 s: 10% slower.
        assert!((loses_by(1.0, 1.1).unwrap() - 0.1).abs() < 1e-12);
        assert_eq!(loses_by(1.0, 1.0), None);
    }
}
