//! The Operators view's figures: the selected workload's step broken into
//! its operators (`solver::ops`), each with its name and the short label
//! the plot gives its point.

use crate::solver::compare::Verdict;
use crate::solver::ops::{self, Breakdown, Op, OpKind};
use crate::solver::{Assumptions, Hardware, Model, Parallelism, Workload};

/// The figures of the Operators view.
#[derive(Debug, Clone, PartialEq)]
pub struct OpsData {
    pub breakdown: Breakdown,
    /// Each operator's name ("QKV proj", a listed layer's own), in order.
    pub names: Vec<String>,
    /// Each operator's label on the plot: its short name, with its layers
    /// when another operator of its kind is on the plot too ("attn 21
    /// local", "gate+up 0-2").
    pub labels: Vec<String>,
    /// The device the roof is, and the step's name ("decode", "forward").
    pub device: String,
    pub step: &'static str,
    /// The fit of the workload as asked; when it does not fit, the
    /// breakdown is of the fewest devices that hold it (`layout`), as the
    /// Roofline view plots that point: a configuration that does not fit
    /// is never shown as if it ran.
    pub verdict: Verdict,
    pub layout: Parallelism,
}

impl OpsData {
    /// True when the operator sits on the plot: it does math and moves
    /// memory (a collective does not; neither does a negative "other
    /// weights", where the shape counts more than the published figure).
    pub fn plotted(op: &Op) -> bool {
        ops::plotted(op)
    }
}

/// The breakdown of `wl` on `hw` for `model` (at the fewest devices that
/// hold it when it does not fit as asked), or why there is none.
pub fn compute(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    a: &Assumptions,
) -> Result<OpsData, String> {
    let Some((verdict, layout, b)) = ops::running(hw, model, wl, a).map_err(|e| e.to_string())?
    else {
        return Err(format!(
            "{} does not fit on any layout of {}: nothing runs to break down",
            model.id, hw.id
        ));
    };
    let names = b.ops.iter().map(|o| o.name(model).to_string()).collect();
    let labels = b
        .ops
        .iter()
        .map(|o| {
            let twins = b
                .ops
                .iter()
                .filter(|p| p.kind == o.kind && OpsData::plotted(p))
                .count();
            match o.kind {
                OpKind::Layer(_) => o.name(model).to_string(),
                k if twins > 1 => format!("{} {}", short(k), o.layers),
                k => short(k).to_string(),
            }
        })
        .collect();
    Ok(OpsData {
        breakdown: b,
        names,
        labels,
        device: hw.id.clone(),
        step: if model.kind.is_decoder() {
            wl.phase.name()
        } else {
            "forward"
        },
        verdict,
        layout,
    })
}

/// The short name of an operator on the plot.
pub fn short(k: OpKind) -> &'static str {
    match k {
        OpKind::Norms => "norms",
        OpKind::Qkv => "QKV",
        OpKind::QProj => "q",
        OpKind::QDown => "q down",
        OpKind::QUp => "q up",
        OpKind::KvDown => "kv down",
        OpKind::KvUp => "kv up",
        OpKind::Attention => "attn",
        OpKind::OutProj => "out",
        OpKind::GateUp => "gate+up",
        OpKind::Up => "up",
        OpKind::Down => "down",
        OpKind::Router => "router",
        OpKind::SharedExperts => "shared",
        OpKind::RoutedExperts => "experts",
        OpKind::LmHead => "LM head",
        OpKind::OtherWeights => "other",
        OpKind::AllReduceAttention => "AR attn",
        OpKind::AllReduceMlp => "AR MLP",
        OpKind::Handoff => "hand-off",
        OpKind::Layer(_) => "layer",
        OpKind::Forward => "forward",
    }
}
