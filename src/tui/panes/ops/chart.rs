//! The operators on the device's roofline: its roof and effective roof,
//! the effective ridge, and every operator as its own point at (its
//! FLOP/B, its FLOP/s over its own time), labelled. Operators that land on
//! the same cell share a point and a label ("QKV/out/gate+up"); the
//! selected one's point has its own glyph (not only its colour) and its
//! label is placed first.

use crate::solver::units;
use crate::tui::app::App;
use crate::tui::panes::plot::labels::{self, Spot};
use crate::tui::panes::plot::marks;
use crate::tui::panes::plot::raster::Raster;
use crate::tui::panes::plot::scale::{Mapper, Roof, bounds, roof_points};
use crate::tui::panes::plot::{draw_axes, mapper, paint, put};
use crate::tui::views::ops::OpsData;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

/// An operator's point, and the selected one's (Unicode, ASCII).
pub const POINT: (char, char) = ('●', 'o');
pub const SELECTED: (char, char) = ('◆', '@');

/// The glyph of a point.
pub fn glyph(selected: bool, ascii: bool) -> char {
    let (u, a) = if selected { SELECTED } else { POINT };
    if ascii { a } else { u }
}

/// What the chart drew: each point's cell with the operators on it, and
/// the column of the effective ridge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drawn {
    pub graph: Rect,
    pub points: Vec<((u16, u16), Vec<usize>)>,
    pub ridge_x: Option<u16>,
}

/// Draw the chart of `d` into `area`, operator `sel` selected.
pub fn draw(app: &App, d: &OpsData, sel: usize, buf: &mut Buffer, area: Rect) -> Drawn {
    let t = app.theme();
    let b = &d.breakdown;
    let lg = f64::log10;
    let roof = Roof {
        peak: b.peak_flops,
        bandwidth: b.bandwidth,
    };
    let eff = Roof {
        peak: b.peak_flops * b.compute_efficiency,
        bandwidth: b.bandwidth * b.memory_efficiency,
    };
    let shown: Vec<usize> = (0..b.ops.len())
        .filter(|&i| OpsData::plotted(&b.ops[i]))
        .collect();
    let ai = |i: usize| b.ops[i].arithmetic_intensity().unwrap_or(0.0);
    let mut xs: Vec<f64> = shown.iter().map(|&i| ai(i)).collect();
    xs.push(b.ridge_point());
    let mut ys: Vec<f64> = shown.iter().map(|&i| b.ops[i].achieved_flops()).collect();
    ys.push(eff.peak);
    let bounds = bounds(&xs, &ys, &[roof.peak]);
    let Some((map, ylabels, yw)) = mapper(app, area, bounds) else {
        return Drawn::default();
    };
    let graph = map.area;
    // The roofs: the effective one under the device's.
    let mut r = Raster::new(graph.width, graph.height, map.dpc);
    let dots = |pts: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        pts.into_iter().map(|(x, y)| map.dot(x, y)).collect()
    };
    let own = marks::device(0);
    r.polyline(&dots(roof_points(eff, bounds)), marks::EFFECTIVE.dash, 0);
    r.polyline(&dots(roof_points(roof, bounds)), &[], 1);
    let layers = [(marks::EFFECTIVE, t.effective_roof), (own, t.roof(0))];
    paint(&r, &layers, app.ascii, graph, buf);
    draw_axes(app, &map, area, yw, &ylabels, buf);
    // The effective ridge: where an operator turns from memory- to
    // compute-bound.
    let ridge = lg(eff.peak / eff.bandwidth);
    let column = if app.ascii { ":" } else { "┊" };
    let ridge_x = map.cell(ridge, bounds.y[0]).map(|(x, _)| x);
    if let (Some((cx, top)), Some((_, bottom))) =
        (map.cell(ridge, lg(eff.peak)), map.cell(ridge, bounds.y[0]))
    {
        for y in (top + 1)..=bottom {
            if buf[(cx, y)].symbol() == " " {
                put(buf, graph, cx, y, column, Style::new().fg(t.ridge));
            }
        }
    }
    // The points, grouped by cell.
    let mut points: Vec<((u16, u16), Vec<usize>)> = Vec::new();
    for &i in &shown {
        let Some(cell) = map.cell(lg(ai(i)), lg(b.ops[i].achieved_flops())) else {
            continue;
        };
        match points.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, g)) => g.push(i),
            None => points.push((cell, vec![i])),
        }
    }
    let mut s = [0u8; 4];
    for (cell, group) in &points {
        let on = group.contains(&sel);
        let style = if on {
            Style::new().fg(t.op_point).add_modifier(Modifier::BOLD)
        } else {
            Style::new().fg(t.fg)
        };
        let g = glyph(on, app.ascii).encode_utf8(&mut s);
        put(buf, graph, cell.0, cell.1, g, style);
    }
    draw_labels(app, d, sel, &map, &points, ridge, buf);
    Drawn {
        graph,
        points,
        ridge_x,
    }
}

/// Place the labels: the axis names, the selected operator's point, the
/// roof's end, the other points, the ridge; what finds no room is left out.
fn draw_labels(
    app: &App,
    d: &OpsData,
    sel: usize,
    map: &Mapper,
    points: &[((u16, u16), Vec<usize>)],
    ridge: f64,
    buf: &mut Buffer,
) {
    let t = app.theme();
    let graph = map.area;
    let bottom = graph.bottom();
    let mut reqs: Vec<(Vec<Spot>, Style)> = labels::axis_names(graph, "FLOP/s", "FLOP/byte")
        .into_iter()
        .map(|s| (s, t.dim()))
        .collect();
    // The selected operator's group first, then the others.
    let mut order: Vec<&((u16, u16), Vec<usize>)> = points.iter().collect();
    order.sort_by_key(|(_, g)| !g.contains(&sel));
    let mut groups = order.into_iter();
    let first = groups.next();
    let label = |(cell, group): &((u16, u16), Vec<usize>)| {
        let mut names: Vec<&str> = Vec::with_capacity(group.len());
        if group.contains(&sel) {
            names.push(&d.labels[sel]);
        }
        names.extend(
            group
                .iter()
                .filter(|&&i| i != sel)
                .map(|&i| d.labels[i].as_str()),
        );
        let mut texts = vec![names.join("/")];
        if names.len() > 1 {
            texts.push(format!("{} +{}", names[0], names.len() - 1));
        }
        let style = if group.contains(&sel) {
            t.accent()
        } else {
            Style::new().fg(t.fg)
        };
        (labels::beside(cell.0, cell.1, &texts), style)
    };
    if let Some(g) = first {
        reqs.push(label(g));
    }
    if let Some(&(x, y)) = roof_points(
        Roof {
            peak: d.breakdown.peak_flops,
            bandwidth: d.breakdown.bandwidth,
        },
        map.b,
    )
    .last()
        && let Some((_, cy)) = map.cell(x, y)
    {
        let style = Style::new().fg(t.roof(0)).add_modifier(Modifier::BOLD);
        reqs.push((
            labels::at_end(graph.right(), cy, std::slice::from_ref(&d.device)),
            style,
        ));
    }
    reqs.extend(groups.map(label));
    if let Some((rx, _)) = map.cell(ridge, map.b.y[0]) {
        let eff = units::format_number(d.breakdown.effective_ridge_point());
        let texts = [format!("ridge {eff}"), eff];
        reqs.push((
            labels::beside(rx, bottom.saturating_sub(3), &texts),
            Style::new().fg(t.ridge).add_modifier(Modifier::BOLD),
        ));
    }
    let keep: Vec<(u16, u16)> = points.iter().map(|(c, _)| *c).collect();
    let spots: Vec<Vec<Spot>> = reqs.iter().map(|(s, _)| s.clone()).collect();
    for (p, (_, style)) in labels::place(graph, &keep, &spots).iter().zip(&reqs) {
        if let Some(p) = p {
            put(buf, graph, p.x, p.y, &p.text, *style);
        }
    }
}
