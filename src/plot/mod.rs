//! Figures to take away: what a plot shows, as plain data, and its SVG.
//! Pure (no I/O): `ridgeline plot`, the workbench's `x` export and
//! `lesson export` build a figure from the solver's results (`build`) and
//! write it with `svg`; the terminal's charts share the scales (`scale`)
//! and each device's marks (`marks`).

pub mod build;
pub mod marks;
pub mod scale;
pub mod svg;

use scale::Roof;

/// A log-log roofline: every device's roof, the selected device's
/// effective roof and ridge, the operating points.
#[derive(Debug, Clone, PartialEq)]
pub struct Roofline {
    pub title: String,
    /// What was evaluated, in words ("Llama 3.1 8B, decode, batch 1, ...").
    pub subtitle: String,
    pub devices: Vec<RoofDevice>,
    /// The selected device's roof with the efficiencies applied.
    pub effective: Option<Effective>,
    pub points: Vec<OpPoint>,
}

/// One device's roof.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofDevice {
    /// Its place on the plot: its marks (`marks::device`).
    pub place: usize,
    pub id: String,
    pub roof: Roof,
    /// Measured cache levels (level, bandwidth in byte/s), innermost
    /// first: one more bandwidth roof each under the same compute ceiling
    /// (a hierarchical roofline), the device's own roof then being "DRAM".
    /// Empty for a device without them.
    pub caches: Vec<(String, f64)>,
}

/// The effective roof of the device at `device` (an index of `devices`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effective {
    pub device: usize,
    pub compute: f64,
    pub memory: f64,
}

/// An operating point: a device's workload at its intensity and rate.
#[derive(Debug, Clone, PartialEq)]
pub struct OpPoint {
    /// The place of its device.
    pub place: usize,
    /// "decode", "prefill on 2", ...
    pub label: String,
    /// FLOP per byte.
    pub intensity: f64,
    /// FLOP/s achieved.
    pub flops: f64,
    /// The other phase's point (drawn hollow).
    pub other: bool,
}

/// Lines over log-log axes, one per device (a sweep).
#[derive(Debug, Clone, PartialEq)]
pub struct Lines {
    pub title: String,
    pub subtitle: String,
    pub x_title: String,
    pub y_title: String,
    pub series: Vec<Series>,
    /// Vertical marks: (the place of the series it belongs to, x, label).
    pub marks: Vec<(usize, f64, String)>,
    /// How the ticks of x and y read.
    pub units: [Unit; 2],
    /// Points drawn faint and unjoined under the series (the Explore
    /// plot's feasible configurations).
    pub cloud: Option<Cloud>,
}

/// Faint points under a plot's lines, and what they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Cloud {
    pub label: String,
    /// (x, y), both positive.
    pub points: Vec<(f64, f64)>,
}

/// What a log axis counts: how its decade ticks read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// 0.1, 1, 10, 1k.
    Number,
    /// Seconds: "10 ms".
    Time,
    /// US dollars: "$0.1".
    Usd,
    /// Joules: "10 J".
    Joules,
}

impl Unit {
    /// A tick's label.
    pub fn label(self, v: f64) -> String {
        match self {
            Unit::Number => crate::solver::units::format_number(v),
            Unit::Time => crate::solver::units::format_time(v),
            Unit::Usd => format!("${}", crate::solver::units::format_number(v)),
            Unit::Joules => format!("{} J", crate::solver::units::format_number(v)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub place: usize,
    pub label: String,
    /// (x, y), both positive.
    pub points: Vec<(f64, f64)>,
}

/// Horizontal stacked bars (a training step's parts), in one unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Bars {
    pub title: String,
    pub subtitle: String,
    /// The unit of the values, "ms".
    pub unit: String,
    pub bars: Vec<Bar>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    /// (part, value): parts of the same name share a fill across bars.
    pub parts: Vec<(String, f64)>,
}

/// Any figure.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    Roofline(Roofline),
    Lines(Lines),
    Bars(Bars),
}

impl Figure {
    /// The SVG document.
    pub fn svg(&self) -> String {
        match self {
            Figure::Roofline(r) => svg::roofline(r),
            Figure::Lines(l) => svg::lines(l),
            Figure::Bars(b) => svg::bars(b),
        }
    }
}

#[cfg(test)]
mod tests;
