//! SVG documents of the figures (`super::Figure`), written with the `svg`
//! crate. Made to be read printed in grayscale: every device's roof or
//! line has its own dash pattern (the terminal's, `marks::device`) and its
//! points their own marker shape; colour only helps on screen. Log axes
//! run over whole decades with a labelled tick at each.
//!
//! Text from the catalog goes into element text only (escaped by the
//! crate), with control characters shown as `\u{..}`; attributes hold
//! numbers and fixed words.

use super::marks::{self, EFFECTIVE};
use super::scale::{Bounds, Roof, bounds, decades, roof_points};
use super::{Bars, Lines, Roofline};
use crate::solver::units;
use svg::Document;
use svg::node::element::{
    Circle, Definitions, Group, Line, Path, Pattern, Polyline, Rectangle, Text, Title,
};

/// The page, in CSS pixels.
const W: f64 = 980.0;
const H: f64 = 540.0;
/// The graph area's edges: room for the titles above, the y labels to
/// the left, the legend to the right and the x labels below.
const LEFT: f64 = 112.0;
const TOP: f64 = 70.0;
const RIGHT: f64 = 640.0;
const BOTTOM: f64 = 470.0;
/// Where the legend starts.
const LEGEND_X: f64 = 664.0;
/// A dot of a terminal dash pattern, in pixels of a stroke.
const DOT: f64 = 3.0;

/// Stroke colours by place (Okabe-Ito and darker companions): they tell
/// devices apart on screen; the dashes and markers do it in print.
const COLOURS: [&str; 12] = [
    "#000000", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8B6C00", "#56B4E9", "#6A3D9A",
    "#B15928", "#1F78B4", "#33A02C", "#E31A1C",
];

fn colour(place: usize) -> &'static str {
    COLOURS[place % COLOURS.len()]
}

/// A coordinate, rounded to a tenth of a pixel (stable text for tests).
fn n(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == 0.0 { "0".into() } else { format!("{r}") }
}

/// Text as the page shows it: control and invisible format characters
/// escaped, as the command line's tables do.
fn clean(s: &str) -> String {
    crate::catalog::fields::printable(s).into_owned()
}

/// The stroke dash array of a terminal dash pattern (None: solid).
pub fn dash_array(dash: &[u8]) -> Option<String> {
    if dash.is_empty() {
        return None;
    }
    Some(
        dash.iter()
            .map(|d| n(*d as f64 * DOT))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

fn text(x: f64, y: f64, s: &str, size: f64, anchor: &str) -> Text {
    Text::new(clean(s))
        .set("x", n(x))
        .set("y", n(y))
        .set("font-size", n(size))
        .set("text-anchor", anchor)
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) -> Line {
    Line::new()
        .set("x1", n(x1))
        .set("y1", n(y1))
        .set("x2", n(x2))
        .set("y2", n(y2))
        .set("stroke", stroke)
        .set("stroke-width", n(width))
}

fn polyline(pts: &[(f64, f64)], stroke: &str, width: f64, dash: Option<String>) -> Polyline {
    let p: Vec<String> = pts
        .iter()
        .map(|(x, y)| format!("{},{}", n(*x), n(*y)))
        .collect();
    let mut l = Polyline::new()
        .set("points", p.join(" "))
        .set("fill", "none")
        .set("stroke", stroke)
        .set("stroke-width", n(width));
    if let Some(d) = dash {
        l = l.set("stroke-dasharray", d);
    }
    l
}

/// The marker of the device at `place`: the shape of its terminal glyph
/// (● ■ ▲ ◆ ▼ filled, ◈ ▣ ◐ with a centre dot, ◇ □ △ ▽ hollow).
pub fn marker(place: usize, x: f64, y: f64, r: f64) -> Group {
    let i = place % marks::DEVICE.len();
    let shape = [0, 1, 2, 3, 4, 3, 1, 0, 3, 1, 2, 4][i];
    let filled = i < 5;
    let dot = (5..8).contains(&i);
    let c = colour(place);
    let d = match shape {
        1 => format!(
            "M{} {}h{}v{}h{}Z",
            n(x - r),
            n(y - r),
            n(2.0 * r),
            n(2.0 * r),
            n(-2.0 * r)
        ),
        2 => format!(
            "M{} {}L{} {}L{} {}Z",
            n(x),
            n(y - 1.2 * r),
            n(x + 1.1 * r),
            n(y + 0.8 * r),
            n(x - 1.1 * r),
            n(y + 0.8 * r)
        ),
        3 => format!(
            "M{} {}L{} {}L{} {}L{} {}Z",
            n(x),
            n(y - 1.3 * r),
            n(x + 1.3 * r),
            n(y),
            n(x),
            n(y + 1.3 * r),
            n(x - 1.3 * r),
            n(y)
        ),
        4 => format!(
            "M{} {}L{} {}L{} {}Z",
            n(x),
            n(y + 1.2 * r),
            n(x + 1.1 * r),
            n(y - 0.8 * r),
            n(x - 1.1 * r),
            n(y - 0.8 * r)
        ),
        _ => format!(
            "M{} {}a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0 {} 0Z",
            n(x - r),
            n(y),
            n(2.0 * r),
            n(-2.0 * r),
            r = n(r)
        ),
    };
    let mut g = Group::new().set("class", "marker").add(
        Path::new()
            .set("d", d)
            .set("fill", if filled { c } else { "#ffffff" })
            .set("stroke", c)
            .set("stroke-width", "1.5"),
    );
    if dot {
        g = g.add(
            Circle::new()
                .set("cx", n(x))
                .set("cy", n(y))
                .set("r", n(r * 0.35))
                .set("fill", c),
        );
    }
    g
}

/// A point of a cloud: a small light-grey dot, under the lines.
fn cloud_dot(x: f64, y: f64) -> Circle {
    Circle::new()
        .set("cx", n(x))
        .set("cy", n(y))
        .set("r", "2.2")
        .set("fill", "#b8b8b8")
}

/// The other phase's point: a hollow grey ring.
fn ring(x: f64, y: f64, r: f64) -> Circle {
    Circle::new()
        .set("cx", n(x))
        .set("cy", n(y))
        .set("r", n(r))
        .set("fill", "#ffffff")
        .set("stroke", "#555555")
        .set("stroke-width", "1.5")
}

/// The page: white ground, title and subtitle, the SVG's own title.
fn page(title: &str, subtitle: &str, height: f64) -> Document {
    Document::new()
        .set("xmlns", "http://www.w3.org/2000/svg")
        .set("width", n(W))
        .set("height", n(height))
        .set("viewBox", format!("0 0 {} {}", n(W), n(height)))
        .set("font-family", "Helvetica, Arial, sans-serif")
        .add(Title::new(clean(title)))
        .add(
            Rectangle::new()
                .set("width", n(W))
                .set("height", n(height))
                .set("fill", "#ffffff"),
        )
        .add(
            text(LEFT, 28.0, title, 18.0, "start")
                .set("font-weight", "bold")
                .set("class", "title"),
        )
        .add(text(LEFT, 48.0, subtitle, 12.0, "start").set("class", "subtitle"))
}

/// Log10 values to page coordinates inside the graph area.
#[derive(Debug, Clone, Copy)]
struct Map {
    b: Bounds,
}

impl Map {
    fn x(&self, lx: f64) -> f64 {
        LEFT + (lx - self.b.x[0]) / (self.b.x[1] - self.b.x[0]) * (RIGHT - LEFT)
    }
    fn y(&self, ly: f64) -> f64 {
        BOTTOM - (ly - self.b.y[0]) / (self.b.y[1] - self.b.y[0]) * (BOTTOM - TOP)
    }
    fn at(&self, x: f64, y: f64) -> (f64, f64) {
        (self.x(x.log10()), self.y(y.log10()))
    }
    fn inside(&self, x: f64, y: f64) -> bool {
        let (lx, ly) = (x.log10(), y.log10());
        let e = 1e-9;
        lx.is_finite()
            && ly.is_finite()
            && (self.b.x[0] - e..=self.b.x[1] + e).contains(&lx)
            && (self.b.y[0] - e..=self.b.y[1] + e).contains(&ly)
    }
}

/// The frame, a grid line and a labelled tick at every decade, and the
/// axis titles.
fn axes(
    m: Map,
    x_title: &str,
    y_title: &str,
    xl: impl Fn(f64) -> String,
    yl: impl Fn(f64) -> String,
) -> Group {
    let mut g = Group::new().set("class", "axes");
    for k in decades(m.b.x) {
        let x = m.x(k as f64);
        g = g
            .add(line(x, TOP, x, BOTTOM, "#dddddd", 1.0))
            .add(line(x, BOTTOM, x, BOTTOM + 5.0, "#000000", 1.0))
            .add(text(x, BOTTOM + 19.0, &xl(10f64.powi(k)), 12.0, "middle").set("class", "tick"));
    }
    for k in decades(m.b.y) {
        let y = m.y(k as f64);
        g = g
            .add(line(LEFT, y, RIGHT, y, "#dddddd", 1.0))
            .add(line(LEFT - 5.0, y, LEFT, y, "#000000", 1.0))
            .add(text(LEFT - 8.0, y + 4.0, &yl(10f64.powi(k)), 12.0, "end").set("class", "tick"));
    }
    g.add(
        Rectangle::new()
            .set("x", n(LEFT))
            .set("y", n(TOP))
            .set("width", n(RIGHT - LEFT))
            .set("height", n(BOTTOM - TOP))
            .set("fill", "none")
            .set("stroke", "#000000"),
    )
    .add(
        text((LEFT + RIGHT) / 2.0, BOTTOM + 42.0, x_title, 13.0, "middle")
            .set("class", "axis-title"),
    )
    .add(
        text(0.0, 0.0, y_title, 13.0, "middle")
            .set("class", "axis-title")
            .set(
                "transform",
                format!(
                    "translate({} {}) rotate(-90)",
                    n(22.0),
                    n((TOP + BOTTOM) / 2.0)
                ),
            ),
    )
}

/// A legend entry's line sample: 36 px of a dash pattern.
fn sample(x: f64, y: f64, stroke: &str, width: f64, dash: Option<String>) -> Polyline {
    polyline(&[(x, y), (x + 36.0, y)], stroke, width, dash)
}

/// Label positions that keep `gap` apart vertically: each new one moves
/// up past those it would touch.
#[derive(Default)]
struct Dodge(Vec<(f64, f64)>);

impl Dodge {
    /// `step` < 0 moves down instead.
    fn place(&mut self, x: f64, mut y: f64, width: f64, step: f64) -> f64 {
        let gap = step.abs();
        while self
            .0
            .iter()
            .any(|(ox, oy)| (oy - y).abs() < gap && (ox - x).abs() < width)
        {
            y -= step;
        }
        self.0.push((x, y));
        y
    }
}

/// FLOP/byte at a decade: 0.1, 1, 10, 100, 1k.
fn intensity_label(x: f64) -> String {
    units::format_number(x)
}

/// FLOP/s at a decade: "100 TFLOP/s".
fn flops_label(x: f64) -> String {
    units::format_flops(x)
}

/// The roofline: every roof, the selected device's effective roof and
/// ridge, the operating points with their labels, and the legend.
pub fn roofline(r: &Roofline) -> String {
    let ce = r.effective.map_or(1.0, |e| e.compute);
    let mut xs: Vec<f64> = r.points.iter().map(|p| p.intensity).collect();
    let mut ys: Vec<f64> = r.points.iter().map(|p| p.flops).collect();
    let mut peaks = Vec::new();
    for d in &r.devices {
        xs.push(d.roof.peak / d.roof.bandwidth);
        ys.push(d.roof.peak * ce);
        peaks.push(d.roof.peak);
        // Each cache roof's ridge, so that its slope shows.
        xs.extend(d.caches.iter().map(|(_, bw)| d.roof.peak / bw));
    }
    let m = Map {
        b: bounds(&xs, &ys, &peaks),
    };
    let mut doc = page(&r.title, &r.subtitle, H).add(axes(
        m,
        "Arithmetic intensity (FLOP/byte)",
        "Performance (FLOP/s)",
        intensity_label,
        flops_label,
    ));
    let short = marks::short_ids(&r.devices.iter().map(|d| d.id.as_str()).collect::<Vec<_>>());
    let mut labels = Dodge::default();
    for (i, d) in r.devices.iter().enumerate() {
        let pts: Vec<(f64, f64)> = roof_points(d.roof, m.b)
            .into_iter()
            .map(|(x, y)| (m.x(x), m.y(y)))
            .collect();
        let dash = dash_array(marks::device(d.place).dash);
        let mut g = Group::new().set("class", "roof");
        g = g.add(Title::new(clean(&d.id)));
        g = g.add(polyline(&pts, colour(d.place), 2.0, dash));
        if !d.caches.is_empty() {
            g = g.add(cache_roofs(d, m));
        }
        if let Some(&(x, y)) = pts.last() {
            let y = labels.place(x, y - 5.0, 200.0, 14.0);
            g = g.add(text(x - 4.0, y, &short[i], 12.0, "end").set("fill", colour(d.place)));
        }
        doc = doc.add(g);
    }
    if let Some(e) = r.effective
        && let Some(d) = r.devices.get(e.device)
    {
        let eff = Roof {
            peak: d.roof.peak * e.compute,
            bandwidth: d.roof.bandwidth * e.memory,
        };
        let pts: Vec<(f64, f64)> = roof_points(eff, m.b)
            .into_iter()
            .map(|(x, y)| (m.x(x), m.y(y)))
            .collect();
        let ridge = d.roof.peak / d.roof.bandwidth;
        let mut g = Group::new().set("class", "effective").add(polyline(
            &pts,
            "#777777",
            1.5,
            dash_array(EFFECTIVE.dash),
        ));
        if m.inside(ridge, d.roof.peak) {
            let (x, y) = m.at(ridge, d.roof.peak);
            g = g
                .add(line(x, y, x, BOTTOM, "#777777", 1.0).set("stroke-dasharray", "2 4"))
                .add(
                    text(
                        x + 4.0,
                        BOTTOM - 6.0,
                        &format!("ridge {}", units::format_number(ridge)),
                        11.0,
                        "start",
                    )
                    .set("fill", "#444444")
                    .set("class", "ridge"),
                );
        }
        doc = doc.add(g);
    }
    for p in &r.points {
        if !m.inside(p.intensity, p.flops) {
            continue;
        }
        let (x, y) = m.at(p.intensity, p.flops);
        let mut g = Group::new().set("class", "point");
        g = if p.other {
            g.add(ring(x, y, 5.0))
        } else {
            g.add(marker(p.place, x, y, 5.0))
        };
        let ly = labels.place(x, y + 4.0, 160.0, 14.0);
        let anchor = if x > RIGHT - 150.0 { "end" } else { "start" };
        let lx = if anchor == "end" { x - 9.0 } else { x + 9.0 };
        g = g.add(text(lx, ly, &p.label, 11.0, anchor));
        doc = doc.add(g);
    }
    doc.add(roofline_legend(r)).to_string()
}

/// Each device with its line, marker and figures; the effective roof;
/// each point.
/// A hierarchical roofline's extra roofs: each cache level's bandwidth
/// slope up to the device's compute ceiling, thin and in the device's
/// colour, its level written where it enters the plot; the device's own
/// roof is then labelled "DRAM" there too.
fn cache_roofs(d: &super::RoofDevice, m: Map) -> Group {
    let mut g = Group::new().set("class", "cache-roofs");
    let mut roofs: Vec<(&str, f64, f64)> = d
        .caches
        .iter()
        .map(|(level, bw)| (level.as_str(), *bw, 1.0))
        .collect();
    roofs.push(("DRAM", d.roof.bandwidth, 0.0));
    for (level, bw, width) in roofs {
        let pts: Vec<(f64, f64)> = roof_points(
            Roof {
                peak: d.roof.peak,
                bandwidth: bw,
            },
            m.b,
        )
        .into_iter()
        .map(|(x, y)| (m.x(x), m.y(y)))
        .collect();
        if width > 0.0 {
            g = g.add(polyline(&pts, colour(d.place), width, Some("6 3".into())));
        }
        if let Some(&(x, y)) = pts.first() {
            g = g.add(
                text(x + 8.0, y - 6.0, level, 11.0, "start")
                    .set("fill", colour(d.place))
                    .set("class", "cache-level"),
            );
        }
    }
    g
}

fn roofline_legend(r: &Roofline) -> Group {
    let mut g = Group::new().set("class", "legend");
    let mut y = TOP + 6.0;
    let x = LEGEND_X;
    let rows_left = |y: f64| y < H - 20.0;
    for d in &r.devices {
        if !rows_left(y) {
            break;
        }
        let dash = dash_array(marks::device(d.place).dash);
        g = g
            .add(sample(x, y, colour(d.place), 2.0, dash))
            .add(marker(d.place, x + 18.0, y, 4.0))
            .add(text(x + 44.0, y + 4.0, &d.id, 12.0, "start").set("class", "legend-device"))
            .add(
                text(
                    x + 44.0,
                    y + 18.0,
                    &format!(
                        "{} · {} · ridge {}",
                        units::format_flops(d.roof.peak),
                        units::format_bandwidth(d.roof.bandwidth),
                        units::format_number(d.roof.peak / d.roof.bandwidth)
                    ),
                    10.0,
                    "start",
                )
                .set("fill", "#444444"),
            );
        y += 34.0;
    }
    if let Some(e) = r.effective {
        let pct = |v: f64| units::format_number(v * 100.0);
        g = g
            .add(sample(x, y, "#777777", 1.5, dash_array(EFFECTIVE.dash)))
            .add(text(
                x + 44.0,
                y + 4.0,
                &format!("effective {}% / {}%", pct(e.compute), pct(e.memory)),
                12.0,
                "start",
            ));
        y += 24.0;
    }
    for p in &r.points {
        if !rows_left(y) {
            break;
        }
        g = g.add(if p.other {
            Group::new().add(ring(x + 18.0, y, 4.0))
        } else {
            marker(p.place, x + 18.0, y, 4.0)
        });
        g = g.add(
            text(
                x + 44.0,
                y + 4.0,
                &format!(
                    "{}: {} FLOP/B, {}",
                    p.label,
                    units::format_number(p.intensity),
                    units::format_flops(p.flops)
                ),
                11.0,
                "start",
            )
            .set("class", "legend-point"),
        );
        y += 20.0;
    }
    g
}

/// Whole-decade bounds around positive values, at least one decade wide.
fn decade_bounds(v: impl Iterator<Item = f64>) -> [f64; 2] {
    let logs: Vec<f64> = v
        .filter(|x| x.is_finite() && *x > 0.0)
        .map(f64::log10)
        .collect();
    if logs.is_empty() {
        return [0.0, 1.0];
    }
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min).floor();
    let hi = logs
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil();
    if hi > lo { [lo, hi] } else { [lo, lo + 1.0] }
}

/// Lines over log-log axes: each series in its device's dash and marker,
/// the vertical marks, the legend.
pub fn lines(l: &Lines) -> String {
    let cloud = l.cloud.iter().flat_map(|c| c.points.iter());
    let all = || {
        l.series
            .iter()
            .flat_map(|s| s.points.iter())
            .chain(cloud.clone())
    };
    let m = Map {
        b: Bounds {
            x: decade_bounds(all().map(|p| p.0).chain(l.marks.iter().map(|k| k.1))),
            y: decade_bounds(all().map(|p| p.1)),
        },
    };
    let [xu, yu] = l.units;
    let mut doc = page(&l.title, &l.subtitle, H).add(axes(
        m,
        &l.x_title,
        &l.y_title,
        |v| xu.label(v),
        |v| yu.label(v),
    ));
    if let Some(c) = &l.cloud {
        let mut g = Group::new()
            .set("class", "cloud")
            .add(Title::new(clean(&c.label)));
        for &(x, y) in c.points.iter().filter(|(x, y)| m.inside(*x, *y)) {
            let (px, py) = m.at(x, y);
            g = g.add(cloud_dot(px, py).set("class", "cloud-point"));
        }
        doc = doc.add(g);
    }
    for s in &l.series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| m.inside(*x, *y))
            .map(|(x, y)| m.at(*x, *y))
            .collect();
        let dash = dash_array(marks::device(s.place).dash);
        let mut g = Group::new()
            .set("class", "series")
            .add(Title::new(clean(&s.label)))
            .add(polyline(&pts, colour(s.place), 2.0, dash));
        for &(x, y) in &pts {
            g = g.add(marker(s.place, x, y, 3.5));
        }
        doc = doc.add(g);
    }
    let mut labels = Dodge::default();
    for (place, x, label) in &l.marks {
        let lx = x.log10();
        if !(m.b.x[0]..=m.b.x[1]).contains(&lx) {
            continue;
        }
        let px = m.x(lx);
        let y = labels.place(px, TOP + 14.0, 120.0, -14.0);
        doc = doc.add(
            Group::new()
                .set("class", "mark")
                .add(line(px, TOP, px, BOTTOM, colour(*place), 1.0).set("stroke-dasharray", "2 4"))
                .add(text(px + 4.0, y, label, 11.0, "start").set("fill", colour(*place))),
        );
    }
    let mut g = Group::new().set("class", "legend");
    let mut y = TOP + 6.0;
    if let Some(c) = &l.cloud {
        g = g.add(cloud_dot(LEGEND_X + 18.0, y)).add(
            text(LEGEND_X + 44.0, y + 4.0, &c.label, 12.0, "start").set("class", "legend-cloud"),
        );
        y += 22.0;
    }
    for s in l.series.iter().take(12) {
        let dash = dash_array(marks::device(s.place).dash);
        g = g
            .add(sample(LEGEND_X, y, colour(s.place), 2.0, dash))
            .add(marker(s.place, LEGEND_X + 18.0, y, 3.5))
            .add(
                text(LEGEND_X + 44.0, y + 4.0, &s.label, 12.0, "start")
                    .set("class", "legend-series"),
            );
        y += 22.0;
    }
    doc.add(g).to_string()
}

/// Fills for the parts of a bar, told apart in print by lightness or
/// texture: four greys, four hatches (`hatches`), four colours.
const FILLS: [&str; 12] = [
    "#1b1b1b",
    "#5e5e5e",
    "#9a9a9a",
    "#d6d6d6",
    "url(#hatch-diagonal)",
    "url(#hatch-cross)",
    "url(#hatch-dots)",
    "url(#hatch-vertical)",
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
];

/// The hatch patterns of `FILLS`: black on white, 8 px tiles.
fn hatches() -> Definitions {
    let tile = |id: &str| {
        Pattern::new()
            .set("id", id)
            .set("width", "8")
            .set("height", "8")
            .set("patternUnits", "userSpaceOnUse")
            .add(
                Rectangle::new()
                    .set("width", "8")
                    .set("height", "8")
                    .set("fill", "#ffffff"),
            )
    };
    let stroke = |d: &str| {
        Path::new()
            .set("d", d)
            .set("stroke", "#000000")
            .set("stroke-width", "1.2")
    };
    Definitions::new()
        .add(tile("hatch-diagonal").add(stroke("M0 8L8 0M-2 2L2 -2M6 10L10 6")))
        .add(tile("hatch-cross").add(stroke("M0 4H8M4 0V8")))
        .add(
            tile("hatch-dots").add(
                Circle::new()
                    .set("cx", "4")
                    .set("cy", "4")
                    .set("r", "1.6")
                    .set("fill", "#000000"),
            ),
        )
        .add(tile("hatch-vertical").add(stroke("M2 0V8M6 0V8")))
}

/// A round step for a linear axis up to `max`: 1, 2 or 5 times a power of
/// ten, about five steps in all.
pub fn nice_step(max: f64) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let raw = max / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    let k = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    k * p
}

/// Horizontal stacked bars over a linear axis, each part's value written
/// in it when it has room, the total at the end, and the legend.
pub fn bars(b: &Bars) -> String {
    let mut names: Vec<&str> = Vec::new();
    for bar in &b.bars {
        for (p, _) in &bar.parts {
            if !names.contains(&p.as_str()) {
                names.push(p);
            }
        }
    }
    let fill = |p: &str| FILLS[names.iter().position(|x| *x == p).unwrap_or(0) % FILLS.len()];
    let total = |bar: &super::Bar| bar.parts.iter().map(|p| p.1.max(0.0)).sum::<f64>();
    let max = b.bars.iter().map(total).fold(0.0, f64::max);
    let step = nice_step(max);
    let top = if max > 0.0 {
        (max / step).ceil() * step
    } else {
        1.0
    };
    let left = 200.0;
    let sx = |v: f64| left + v / top * (RIGHT - left);
    // 48 px a bar; room for the legend beside them.
    let row = 48.0;
    let bottom = TOP + (b.bars.len().max(1) as f64 * row).max(names.len() as f64 * 22.0);
    let mut doc = page(&b.title, &b.subtitle, bottom + 60.0).add(hatches());
    let mut axis = Group::new().set("class", "axes");
    let mut v = 0.0;
    while v <= top + step * 1e-9 {
        let x = sx(v);
        axis = axis.add(line(x, TOP, x, bottom, "#dddddd", 1.0)).add(
            text(x, bottom + 19.0, &units::format_number(v), 12.0, "middle").set("class", "tick"),
        );
        v += step;
    }
    axis = axis
        .add(line(left, bottom, RIGHT, bottom, "#000000", 1.0))
        .add(
            text(
                (left + RIGHT) / 2.0,
                bottom + 42.0,
                &format!("time ({})", b.unit),
                13.0,
                "middle",
            )
            .set("class", "axis-title"),
        );
    doc = doc.add(axis);
    for (i, bar) in b.bars.iter().enumerate() {
        let y = TOP + i as f64 * row + row * 0.15;
        let h = row * 0.7;
        let mut g = Group::new().set("class", "bar").add(text(
            left - 8.0,
            y + h / 2.0 + 4.0,
            &bar.label,
            12.0,
            "end",
        ));
        let mut at = 0.0;
        for (p, val) in &bar.parts {
            let val = val.max(0.0);
            let (x0, x1) = (sx(at), sx(at + val));
            g = g.add(
                Rectangle::new()
                    .set("x", n(x0))
                    .set("y", n(y))
                    .set("width", n(x1 - x0))
                    .set("height", n(h))
                    .set("fill", fill(p))
                    .set("stroke", "#000000")
                    .set("stroke-width", "0.5")
                    .add(Title::new(clean(&format!(
                        "{p}: {} {}",
                        units::format_number(val),
                        b.unit
                    )))),
            );
            at += val;
        }
        g = g.add(text(
            sx(at) + 6.0,
            y + h / 2.0 + 4.0,
            &format!("{} {}", units::format_number(at), b.unit),
            11.0,
            "start",
        ));
        doc = doc.add(g);
    }
    let mut g = Group::new().set("class", "legend");
    for (i, p) in names.iter().enumerate() {
        let y = TOP + 6.0 + i as f64 * 22.0;
        g = g
            .add(
                Rectangle::new()
                    .set("x", n(LEGEND_X))
                    .set("y", n(y - 7.0))
                    .set("width", "24")
                    .set("height", "14")
                    .set("fill", fill(p))
                    .set("stroke", "#000000")
                    .set("stroke-width", "0.5"),
            )
            .add(text(LEGEND_X + 32.0, y + 4.0, p, 12.0, "start"));
    }
    doc.add(g).to_string()
}
