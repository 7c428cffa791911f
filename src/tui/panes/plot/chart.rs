//! The log-log roofline chart: every device's roof in its own dash pattern
//! (or ASCII character), the selected device's effective roof and ridge,
//! a ridge tick for each other device, the operating points with their
//! glyphs, and labels placed so that none covers another.

use super::labels::{self, Placed, Spot};
use super::marks::{self, Marks};
use super::put;
use super::raster::{self, Raster};
use super::scale::{Bounds, Mapper, Roof, bounds, decades, roof_points};
use crate::solver::{Evaluation, units};
use crate::tui::app::{Analysis, App};
use crate::words::Words;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

/// Rows of data the chart keeps whatever the screen (the axis and its
/// labels take two more).
pub const MIN_GRAPH_ROWS: u16 = 7;
/// Rows a chart needs: the data, the axis line and the decade labels.
pub const MIN_CHART_ROWS: u16 = MIN_GRAPH_ROWS + 2;

/// A device on the chart.
pub struct Device<'a> {
    /// Its place in the comparison: its marks and colour.
    pub place: usize,
    pub hw: usize,
    pub id: &'a str,
    pub roof: Roof,
    /// Measured cache ceilings (a hierarchical roofline), innermost first.
    pub caches: &'a [crate::catalog::CacheCeiling],
    /// The workload as asked on this device (its ridge, its figures).
    pub eval: &'a Evaluation,
    /// The operating point drawn: the configuration that runs, as asked
    /// when it fits, else on the fewest devices that hold it; none when
    /// nothing does (a configuration that does not fit is never drawn as if
    /// it ran).
    pub point: Option<&'a Evaluation>,
}

impl Device<'_> {
    /// The devices of the point when it is not the layout asked for: the
    /// "on 2" of its label.
    pub fn on(&self) -> Option<u32> {
        let p = self.point?;
        (!self.eval.memory.fits).then(|| p.devices())
    }
}

/// The devices that evaluated, in the comparison's order.
pub fn devices<'a>(app: &'a App, an: &'a Analysis) -> Vec<Device<'a>> {
    an.compare
        .iter()
        .enumerate()
        .filter_map(|(place, c)| {
            let s = c.result.as_ref().ok()?;
            let entry = &app.catalog.hardware[c.hw];
            let hw = &entry.hw;
            Some(Device {
                place,
                hw: c.hw,
                id: hw.id.as_str(),
                caches: &entry.caches,
                roof: Roof {
                    peak: s.base.peak_flops,
                    bandwidth: hw.memory_bandwidth,
                },
                eval: &s.base,
                point: c.running(),
            })
        })
        .collect()
}

/// The device whose ridge and effective roof are drawn: the one selected
/// in the Hardware list when it is on the chart, else the analysis' own,
/// else the first.
pub fn selected(app: &App, an: &Analysis, devs: &[Device]) -> Option<usize> {
    devs.iter()
        .position(|d| d.hw == app.hw)
        .or_else(|| devs.iter().position(|d| d.hw == an.hw))
        .or(if devs.is_empty() { None } else { Some(0) })
}

/// "decode", "prefill", or "forward" for a single-pass model.
pub fn phase_name(app: &App, an: &Analysis, e: &Evaluation) -> &'static str {
    Words::for_model(&app.catalog.models[an.model]).step(e.phase)
}

/// The graph area of a chart drawn in `area`, for a y-label width.
fn graph_rect(area: Rect, yw: u16) -> Rect {
    Rect::new(
        area.x + yw + 1,
        area.y,
        area.width.saturating_sub(yw + 1),
        area.height.saturating_sub(2),
    )
}

fn chart_bounds(devs: &[Device], an: &Analysis) -> Bounds {
    let a = &an.assumptions;
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let mut peaks = Vec::new();
    for d in devs {
        if let Some(p) = d.point {
            xs.push(p.arithmetic_intensity);
            ys.push(p.achieved_flops());
        }
        xs.push(d.roof.peak / d.roof.bandwidth);
        peaks.push(d.roof.peak);
        ys.push(d.roof.peak * a.compute_efficiency);
        xs.extend(d.caches.iter().map(|c| d.roof.peak / c.bandwidth));
    }
    if let Some(o) = an.other_phase.as_ref().filter(|o| o.memory.fits) {
        xs.push(o.arithmetic_intensity);
        ys.push(o.achieved_flops());
    }
    bounds(&xs, &ys, &peaks)
}

/// The roofs of a hierarchical roofline, labelled: each cache level's
/// bandwidth under the device's compute ceiling, then its own roof as
/// "DRAM". Empty for a device without cache ceilings.
pub fn level_roofs<'a>(d: &Device<'a>) -> Vec<(&'a str, Roof)> {
    if d.caches.is_empty() {
        return Vec::new();
    }
    let mut v: Vec<(&str, Roof)> = d
        .caches
        .iter()
        .map(|c| {
            (
                c.level.as_str(),
                Roof {
                    peak: d.roof.peak,
                    bandwidth: c.bandwidth,
                },
            )
        })
        .collect();
    v.push(("DRAM", d.roof));
    v
}

/// A point to draw: its cell, glyph, style, and the label it asks for.
struct Point {
    /// The device's index in the chart's devices.
    device: usize,
    cell: (u16, u16),
    glyph: char,
    style: Style,
    label: String,
    label_style: Style,
}

/// What a chart drew where: its graph area, the cells of its points and
/// the labels it placed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drawn {
    pub graph: Rect,
    pub points: Vec<(u16, u16)>,
    pub labels: Vec<Placed>,
    /// The column of each other device's ridge tick, with its place.
    pub ticks: Vec<(usize, u16)>,
}

/// Draw the chart into `area`.
pub fn draw_chart(app: &App, an: &Analysis, frame: &mut Frame, area: Rect) -> Drawn {
    let devs = devices(app, an);
    let Some(sel) = selected(app, an, &devs) else {
        return Drawn::default();
    };
    let Some((map, ylabels, yw)) = mapper(app, area, chart_bounds(&devs, an)) else {
        return Drawn::default();
    };
    let graph = map.area;
    let buf = frame.buffer_mut();
    draw_roofs(app, an, &devs, sel, &map, buf);
    draw_axes(app, &map, area, yw, &ylabels, buf);
    let ticks = draw_ridges(app, &devs, sel, &map, buf);
    let short = marks::short_ids(&devs.iter().map(|d| d.id).collect::<Vec<_>>());
    let points = operating_points(app, an, &devs, sel, &map, &short);
    for p in &points {
        let mut s = [0u8; 4];
        let glyph = p.glyph.encode_utf8(&mut s);
        put(buf, graph, p.cell.0, p.cell.1, glyph, p.style);
    }
    let keep: Vec<(u16, u16)> = points.iter().map(|p| p.cell).collect();
    let labels = draw_labels(app, &devs, sel, &map, &points, &short, buf);
    Drawn {
        graph,
        points: keep,
        labels,
        ticks,
    }
}

/// The graph of a chart of bounds `b` drawn in `area`: the map from log10
/// values to its cells (Braille dots, or one per cell in ASCII), the
/// y-axis labels (a decade each) and their width. None when the graph
/// would be too small to read.
pub fn mapper(app: &App, area: Rect, b: Bounds) -> Option<(Mapper, Vec<String>, u16)> {
    let ylabels: Vec<String> = decades(b.y)
        .map(|d| units::format_count(10f64.powi(d)))
        .collect();
    let yw = ylabels.iter().map(|s| s.len()).max().unwrap_or(1) as u16;
    let graph = graph_rect(area, yw);
    if graph.width < 8 || graph.height < 3 {
        return None;
    }
    let map = Mapper {
        area: graph,
        b,
        dpc: if app.ascii { (1, 1) } else { (2, 4) },
    };
    Some((map, ylabels, yw))
}

/// The operating points, in drawing order: the other devices first, then
/// the selected device's other phase, its own point on top.
fn operating_points(
    app: &App,
    an: &Analysis,
    devs: &[Device],
    sel: usize,
    map: &Mapper,
    short: &[String],
) -> Vec<Point> {
    let t = app.theme();
    let lg = f64::log10;
    let mut points: Vec<Point> = Vec::new();
    let mut order: Vec<usize> = (0..devs.len()).filter(|&i| i != sel).collect();
    order.push(sel);
    for &i in &order {
        let d = &devs[i];
        let Some(p) = d.point else { continue };
        let Some(cell) = map.cell(lg(p.arithmetic_intensity), lg(p.achieved_flops())) else {
            continue;
        };
        let (style, label_style) = if i == sel {
            let s = Style::new().fg(t.op_point).add_modifier(Modifier::BOLD);
            (s, t.accent())
        } else {
            let s = Style::new().fg(t.roof(d.place));
            (s, s)
        };
        points.push(Point {
            device: i,
            cell,
            glyph: if app.ascii {
                marks::device(d.place).point
            } else {
                marks::device(d.place).glyph
            },
            style,
            label: match d.on() {
                Some(n) => format!("{} on {n} {}", short[i], phase_name(app, an, p)),
                None => format!("{} {}", short[i], phase_name(app, an, p)),
            },
            label_style,
        });
    }
    // The other phase as asked, only when it fits.
    if let Some(o) = an.other_phase.as_ref().filter(|o| o.memory.fits)
        && let Some(i) = devs.iter().position(|d| d.hw == an.hw)
        && let Some(cell) = map.cell(lg(o.arithmetic_intensity), lg(o.achieved_flops()))
    {
        let at = points.len().saturating_sub(1);
        points.insert(
            at,
            Point {
                device: i,
                cell,
                glyph: if app.ascii {
                    marks::ASCII_OTHER_POINT
                } else {
                    marks::OTHER_POINT
                },
                style: Style::new().fg(t.alt_point).add_modifier(Modifier::BOLD),
                label: format!("{} {}", short[i], phase_name(app, an, o)),
                label_style: Style::new().fg(t.alt_point),
            },
        );
    }
    points
}

/// Place and draw the labels, most important first: the axis names (fixed
/// corners), the roof ends (they have nowhere else to go), the points (the
/// selected device's first), the ridge.
fn draw_labels(
    app: &App,
    devs: &[Device],
    sel: usize,
    map: &Mapper,
    points: &[Point],
    short: &[String],
    buf: &mut Buffer,
) -> Vec<Placed> {
    let t = app.theme();
    let graph = map.area;
    let mut reqs: Vec<(Vec<Spot>, Style)> = Vec::new();
    let spot = |x: u16, y: u16, text: &str| Spot {
        x: x as i32,
        y: y as i32,
        text: text.to_string(),
    };
    let (top, bottom) = (graph.y, graph.bottom());
    let y_name = [0, 1].map(|dy| spot(graph.x + 1, top + dy, "FLOP/s"));
    reqs.push((y_name.to_vec(), t.dim()));
    let xt = "FLOP/byte";
    let xx = graph.right().saturating_sub(xt.len() as u16 + 1);
    let x_name = [1, 2].map(|dy| spot(xx, bottom.saturating_sub(dy), xt));
    reqs.push((x_name.to_vec(), t.dim()));
    // A small graph with several devices: only the selected device's roof
    // and point are labelled (the others pile up otherwise); the legend or
    // the table beside each device's marks says which is which.
    let few = crowded(graph, devs.len());
    for (end, group) in roof_ends(devs, sel, map) {
        if few && !group.contains(&sel) {
            continue;
        }
        let group = if few { vec![sel] } else { group };
        let full: Vec<&str> = group.iter().map(|&i| devs[i].id).collect();
        let brief: Vec<&str> = group.iter().map(|&i| short[i].as_str()).collect();
        let texts = [full.join("/"), brief.join("/")];
        let style = Style::new()
            .fg(t.roof(devs[group[0]].place))
            .add_modifier(Modifier::BOLD);
        reqs.push((labels::at_end(graph.right(), end.1, &texts), style));
    }
    for (k, p) in points.iter().enumerate().rev() {
        // A point drawn over by a later one (the same cell) is not on
        // screen: its label would name another device's point.
        let hidden = points[k + 1..].iter().any(|q| q.cell == p.cell);
        if hidden || (few && p.device != sel) {
            continue;
        }
        let texts = std::slice::from_ref(&p.label);
        reqs.push((labels::beside(p.cell.0, p.cell.1, texts), p.label_style));
    }
    let s = &devs[sel];
    // The selected device's level names where each slope enters the plot.
    for (level, roof) in level_roofs(s) {
        let Some(&(x, y)) = roof_points(roof, map.b).first() else {
            continue;
        };
        if let Some((cx, cy)) = map.cell(x, y) {
            let style = Style::new()
                .fg(t.roof(s.place))
                .add_modifier(Modifier::BOLD);
            reqs.push((labels::beside(cx, cy, &[level.to_string()]), style));
        }
    }
    let ridge = (s.roof.peak / s.roof.bandwidth).log10();
    if let Some((rx, _)) = map.cell(ridge, map.b.y[0]) {
        let text = format!("ridge {}", units::format_number(s.eval.ridge_point));
        reqs.push((
            labels::beside(rx, bottom.saturating_sub(3), &[text]),
            Style::new().fg(t.ridge).add_modifier(Modifier::BOLD),
        ));
    }
    let keep: Vec<(u16, u16)> = points.iter().map(|p| p.cell).collect();
    let spots: Vec<Vec<Spot>> = reqs.iter().map(|(s, _)| s.clone()).collect();
    let placed = labels::place(graph, &keep, &spots);
    for (p, (_, style)) in placed.iter().zip(&reqs) {
        if let Some(p) = p {
            put(buf, graph, p.x, p.y, &p.text, *style);
        }
    }
    placed.into_iter().flatten().collect()
}

/// Whether a graph this size is too small to label every one of `n`
/// devices: under 16 rows (80x24 and 100x30 plots) with more than two.
pub fn crowded(graph: Rect, n: usize) -> bool {
    n > 2 && graph.height < 16
}

/// The cell where each roof ends (at the right edge), with the devices
/// ending there: the selected first, then in place order.
fn roof_ends(devs: &[Device], sel: usize, map: &Mapper) -> Vec<((u16, u16), Vec<usize>)> {
    let mut ends: Vec<((u16, u16), Vec<usize>)> = Vec::new();
    let mut order = vec![sel];
    order.extend((0..devs.len()).filter(|&i| i != sel));
    for i in order {
        let pts = roof_points(devs[i].roof, map.b);
        let Some(&(x, y)) = pts.last() else { continue };
        let Some(cell) = map.cell(x, y) else { continue };
        match ends.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, g)) => g.push(i),
            None => ends.push((cell, vec![i])),
        }
    }
    ends
}

/// The roofs: the selected device's effective roof lowest, the other
/// devices over it, the selected device's roof on top.
fn draw_roofs(
    app: &App,
    an: &Analysis,
    devs: &[Device],
    sel: usize,
    map: &Mapper,
    buf: &mut Buffer,
) {
    let t = app.theme();
    let a = &an.assumptions;
    let ascii = app.ascii;
    let (w, h) = (map.area.width, map.area.height);
    let mut r = Raster::new(w, h, map.dpc);
    let dots = |pts: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        pts.into_iter().map(|(x, y)| map.dot(x, y)).collect()
    };
    // Layer 0: the effective roof; layer 1 + i: device i.
    let mut layers: Vec<(Marks, Color)> = vec![(marks::EFFECTIVE, t.effective_roof)];
    let s = &devs[sel];
    let eff = Roof {
        peak: s.roof.peak * a.compute_efficiency,
        bandwidth: s.roof.bandwidth * a.memory_efficiency,
    };
    r.polyline(&dots(roof_points(eff, map.b)), marks::EFFECTIVE.dash, 0);
    for d in devs {
        layers.push((marks::device(d.place), t.roof(d.place)));
    }
    // The selected device's cache roofs (all but the last, its own roof),
    // under every device's roof.
    let caches = level_roofs(s);
    if caches.len() > 1 {
        layers.push((marks::CACHE, t.roof(s.place)));
        let dash = if ascii { &[][..] } else { marks::CACHE.dash };
        for (_, roof) in &caches[..caches.len() - 1] {
            r.polyline(&dots(roof_points(*roof, map.b)), dash, layers.len() - 1);
        }
    }
    let mut order: Vec<usize> = (0..devs.len()).rev().filter(|&i| i != sel).collect();
    order.push(sel);
    for i in order {
        let m = marks::device(devs[i].place);
        let dash = if ascii { &[][..] } else { m.dash };
        r.polyline(&dots(roof_points(devs[i].roof, map.b)), dash, 1 + i);
    }
    paint(&r, &layers, ascii, map.area, buf);
}

/// Draw a raster's lines into `area`: each cell's Braille dots (or, in
/// ASCII, the character of its layer's marks) in its layer's colour.
pub fn paint(r: &Raster, layers: &[(Marks, Color)], ascii: bool, area: Rect, buf: &mut Buffer) {
    for (cx, cy, bits, layer) in r.cells() {
        let (m, colour) = layers[layer];
        let c = if ascii {
            m.ascii
        } else {
            raster::braille(bits)
        };
        let cell = &mut buf[(area.x + cx, area.y + cy)];
        cell.set_char(c);
        cell.set_fg(colour);
    }
}

/// Axis lines, decade ticks and labels, left of and under the graph.
pub fn draw_axes(
    app: &App,
    map: &Mapper,
    area: Rect,
    yw: u16,
    ylabels: &[String],
    buf: &mut Buffer,
) {
    let dim = app.theme().dim();
    let (graph, b) = (map.area, map.b);
    let axis_x = graph.x - 1;
    let axis_y = graph.bottom();
    for y in graph.y..graph.bottom() {
        put(buf, area, axis_x, y, "│", dim);
    }
    for x in graph.x..graph.right() {
        put(buf, area, x, axis_y, "─", dim);
    }
    put(buf, area, axis_x, axis_y, "└", dim);
    for (d, label) in decades(b.y).zip(ylabels) {
        if let Some((_, cy)) = map.cell(b.x[0], d as f64) {
            put(buf, area, axis_x, cy, "┤", dim);
            let x = area.x + yw - label.len() as u16;
            put(buf, area, x, cy, label, dim);
        }
    }
    let mut next_free = area.x;
    for d in decades(b.x) {
        if let Some((cx, _)) = map.cell(d as f64, b.y[0]) {
            put(buf, area, cx, axis_y, "┴", dim);
            let label = units::format_count(10f64.powi(d));
            let w = label.len() as u16;
            let x = cx
                .saturating_sub(w / 2)
                .min(area.right().saturating_sub(w))
                .max(area.x);
            if x >= next_free {
                put(buf, area, x, axis_y + 1, &label, dim);
                next_free = x + w + 1;
            }
        }
    }
}

/// The selected device's ridge, a dotted column under its roof's knee, and
/// a short tick at the foot of every other device's ridge. Both go only
/// where nothing is drawn yet. Returns the ticks' columns.
fn draw_ridges(
    app: &App,
    devs: &[Device],
    sel: usize,
    map: &Mapper,
    buf: &mut Buffer,
) -> Vec<(usize, u16)> {
    let t = app.theme();
    let graph = map.area;
    let lg = f64::log10;
    let blank = |buf: &Buffer, x: u16, y: u16| buf[(x, y)].symbol() == " ";
    let s = &devs[sel];
    let ridge = lg(s.roof.peak / s.roof.bandwidth);
    let column = if app.ascii { ":" } else { "┊" };
    if let (Some((cx, top)), Some((_, bottom))) = (
        map.cell(ridge, lg(s.roof.peak)),
        map.cell(ridge, map.b.y[0]),
    ) {
        for y in (top + 1)..=bottom {
            if blank(buf, cx, y) {
                put(buf, graph, cx, y, column, Style::new().fg(t.ridge));
            }
        }
    }
    let mut ticks = Vec::new();
    for (i, d) in devs.iter().enumerate() {
        if i == sel {
            continue;
        }
        let Some((cx, bottom)) = map.cell(lg(d.roof.peak / d.roof.bandwidth), map.b.y[0]) else {
            continue;
        };
        let mut s = [0u8; 4];
        let tick = if app.ascii {
            marks::device(d.place).ascii.encode_utf8(&mut s)
        } else {
            "╎"
        };
        for y in [bottom.saturating_sub(1), bottom] {
            if y >= graph.y && blank(buf, cx, y) {
                put(buf, graph, cx, y, tick, Style::new().fg(t.roof(d.place)));
            }
        }
        ticks.push((d.place, cx));
    }
    ticks
}
