//! Figures from the solver's results: the same roofs, points and sweeps
//! the workbench's panes draw (`tui::panes::plot::chart::devices` reads
//! the roof of a device as its evaluated peak and its memory bandwidth,
//! and its point as the configuration that runs; so does this).

use super::scale::Roof;
use super::{Bar, Bars, Effective, Lines, OpPoint, RoofDevice, Roofline, Series};
use crate::catalog::CacheCeiling;
use crate::solver::compare::Compared;
use crate::solver::{Assumptions, Evaluation, units};
use crate::words::Words;

/// A device of a comparison: its place (its marks), id, memory bandwidth,
/// and the solver's judgement of the workload on it (None: it could not be
/// evaluated, and is left off the plot).
pub struct Judged<'a> {
    pub place: usize,
    pub id: &'a str,
    pub bandwidth: f64,
    /// The device's cache ceilings (drawn as extra roofs).
    pub caches: &'a [CacheCeiling],
    pub judged: Option<&'a Compared>,
}

/// The roofline of a comparison: each device's roof; its point where a
/// configuration runs (as asked, else on the fewest devices that hold it,
/// labelled "on N"; none when nothing does); the effective roof and ridge
/// of `selected` (an index of `devs`) and its other phase's point.
pub fn roofline(
    title: String,
    subtitle: String,
    devs: &[Judged],
    selected: Option<usize>,
    a: &Assumptions,
    other: Option<&Evaluation>,
    words: Words,
) -> Roofline {
    let shown: Vec<&Judged> = devs.iter().filter(|d| d.judged.is_some()).collect();
    let short = super::marks::short_ids(&shown.iter().map(|d| d.id).collect::<Vec<_>>());
    let many = shown.len() > 1;
    let mut devices = Vec::new();
    let mut points = Vec::new();
    let mut effective = None;
    for (k, d) in shown.iter().enumerate() {
        let Some(c) = d.judged else { continue };
        if selected.and_then(|s| devs.get(s)).map(|s| s.place) == Some(d.place) {
            effective = Some(Effective {
                device: devices.len(),
                compute: a.compute_efficiency,
                memory: a.memory_efficiency,
            });
        }
        devices.push(RoofDevice {
            place: d.place,
            id: d.id.to_string(),
            roof: Roof {
                peak: c.eval.peak_flops,
                bandwidth: d.bandwidth,
            },
            caches: d
                .caches
                .iter()
                .map(|c| (c.level.clone(), c.bandwidth))
                .collect(),
        });
        if let Some(p) = c.running() {
            let mut label = words.step(p.phase).to_string();
            if !c.verdict.fits() {
                label = format!("{label} on {}", p.devices());
            }
            if many {
                label = format!("{} {label}", short[k]);
            }
            points.push(OpPoint {
                place: d.place,
                label,
                intensity: p.arithmetic_intensity,
                flops: p.achieved_flops(),
                other: false,
            });
        }
    }
    if let (Some(o), Some(e)) = (other.filter(|o| o.memory.fits), effective) {
        let mut label = words.step(o.phase).to_string();
        if many {
            label = format!("{} {label}", short[e.device]);
        }
        points.push(OpPoint {
            place: devices[e.device].place,
            label,
            intensity: o.arithmetic_intensity,
            flops: o.achieved_flops(),
            other: true,
        });
    }
    Roofline {
        title,
        subtitle,
        devices,
        effective,
        points,
    }
}

/// One device's sweep: its place, id, the swept values with their
/// evaluations, and its crossover (batch sweeps).
pub struct Swept<'a> {
    pub place: usize,
    pub id: &'a str,
    pub points: Vec<(f64, &'a Evaluation)>,
    pub crossover: Option<f64>,
}

/// The rate (tokens/s, samples/s) against the swept batch or context, of
/// the points that fit (one that does not fit never ran), with each
/// device's crossover marked.
pub fn sweep(
    title: String,
    subtitle: String,
    x_title: &str,
    swept: &[Swept],
    words: Words,
) -> Lines {
    let many = swept.len() > 1;
    let mut marks = Vec::new();
    let series = swept
        .iter()
        .map(|s| {
            if let Some(x) = s.crossover {
                let who = if many {
                    format!("{} ", s.id)
                } else {
                    String::new()
                };
                marks.push((
                    s.place,
                    x,
                    format!("{who}crossover {}", units::format_number(x)),
                ));
            }
            Series {
                place: s.place,
                label: s.id.to_string(),
                points: s
                    .points
                    .iter()
                    .filter(|(_, e)| e.memory.fits)
                    .map(|(x, e)| (*x, e.tokens_per_s))
                    .collect(),
            }
        })
        .collect();
    Lines {
        title,
        subtitle,
        x_title: x_title.to_string(),
        y_title: words.rate().to_string(),
        series,
        marks,
        units: [super::Unit::Number; 2],
        cloud: None,
    }
}

/// Stacked bars of named parts in milliseconds (from seconds).
pub fn step_bars(title: String, subtitle: String, bars: Vec<(String, Vec<(String, f64)>)>) -> Bars {
    Bars {
        title,
        subtitle,
        unit: "ms".into(),
        bars: bars
            .into_iter()
            .map(|(label, parts)| Bar {
                label,
                parts: parts.into_iter().map(|(p, s)| (p, s * 1e3)).collect(),
            })
            .collect(),
    }
}
