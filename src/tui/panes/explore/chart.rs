//! The Explore view's scatter: every feasible configuration at (its x
//! objective, its y objective) on log-log axes, the Pareto front drawn as
//! a line through its points, the configurations that are out (do not fit,
//! miss a limit) faint when the knob shows them. The front's points, the
//! selected one, the other feasible ones and the ones that are out each
//! have their own glyph, so the plot reads without colour.

use crate::solver::explore::{Objective, Point, Verdict};
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::panes::plot::labels::{self, Spot};
use crate::tui::panes::plot::marks::Marks;
use crate::tui::panes::plot::raster::Raster;
use crate::tui::panes::plot::scale::Mapper;
use crate::tui::panes::plot::scale::{Bounds, decades};
use crate::tui::panes::plot::{draw_axes, paint, put};
use crate::tui::views::explore::ExploreData;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

/// The glyphs (Unicode, ASCII) of a point by what it is.
pub const OUT: (char, char) = ('·', '.');
pub const FEASIBLE: (char, char) = ('○', 'o');
pub const FRONT: (char, char) = ('●', 'O');
pub const SELECTED: (char, char) = ('◆', '@');
/// The front's line: solid Braille, '*' in ASCII.
const LINE: Marks = Marks {
    dash: &[],
    glyph: '●',
    ascii: '*',
    point: '@',
};

pub fn glyph(g: (char, char), ascii: bool) -> char {
    if ascii { g.1 } else { g.0 }
}

/// The axis's name, its unit and which way is better.
pub fn axis_name(o: Objective) -> &'static str {
    o.axis_title()
}

/// A decade's tick label in the objective's unit: "10ms", "$0.1", "1k".
pub fn tick(o: Objective, d: i32) -> String {
    let v = 10f64.powi(d);
    match o {
        Objective::Itl | Objective::Ttft => units::format_time(v).replace(' ', ""),
        Objective::Cost => format!("${}", units::format_number(v)),
        Objective::Energy => format!("{}J", units::format_number(v)),
        Objective::TokensPerDevice | Objective::Devices => units::format_count(v),
    }
}

/// Whole-decade bounds around the logs of `xs` and `ys` (positive values
/// only), at least one decade each way.
pub fn bounds(xs: &[f64], ys: &[f64]) -> Bounds {
    let range = |v: &[f64]| {
        let logs = v
            .iter()
            .filter(|x| x.is_finite() && **x > 0.0)
            .map(|x| x.log10());
        let (lo, hi) = logs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), l| {
            (a.min(l), b.max(l))
        });
        if !lo.is_finite() {
            return [0.0, 1.0];
        }
        let (a, mut b) = ((lo - 0.05).floor(), (hi + 0.05).ceil());
        if b - a < 1.0 {
            b = a + 1.0;
        }
        [a, b]
    };
    Bounds {
        x: range(xs),
        y: range(ys),
    }
}

/// The point's place (x, y values) when it has both.
fn at(d: &ExploreData, p: &Point) -> Option<(f64, f64)> {
    let x = ExploreData::value(p, d.x)?;
    let y = ExploreData::value(p, d.y)?;
    (x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite()).then_some((x, y))
}

/// Whether a point is plotted as out (shown only when the knob says).
fn is_out(p: &Point) -> bool {
    matches!(p.verdict, Verdict::DoesNotFit | Verdict::MissesLimit)
}

/// What the chart drew: the graph and the cell of each front point.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drawn {
    pub graph: Rect,
    pub front: Vec<Option<(u16, u16)>>,
}

/// Draw the scatter of `d` into `area`, front row `sel` selected.
pub fn draw(app: &App, d: &ExploreData, sel: usize, buf: &mut Buffer, area: Rect) -> Drawn {
    let t = app.theme();
    let x = &d.exploration;
    let show_out = d.key.inputs.infeasible;
    let plotted: Vec<(usize, (f64, f64))> = x
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.verdict == Verdict::Feasible || (show_out && is_out(p)))
        .filter_map(|(i, p)| at(d, p).map(|v| (i, v)))
        .collect();
    let xs: Vec<f64> = plotted.iter().map(|(_, v)| v.0).collect();
    let ys: Vec<f64> = plotted.iter().map(|(_, v)| v.1).collect();
    let b = bounds(&xs, &ys);
    let ylabels: Vec<String> = decades(b.y).map(|e| tick(d.y, e)).collect();
    let yw = ylabels.iter().map(|s| s.chars().count()).max().unwrap_or(1) as u16;
    // The graph right of the y labels and their axis, above the x axis
    // and its labels.
    let graph = Rect::new(
        area.x + yw + 1,
        area.y,
        area.width.saturating_sub(yw + 1),
        area.height.saturating_sub(2),
    );
    if graph.width < 8 || graph.height < 3 {
        return Drawn::default();
    }
    let map = Mapper {
        area: graph,
        b,
        dpc: if app.ascii { (1, 1) } else { (2, 4) },
    };
    let lg = f64::log10;
    // The front's line under the points.
    let mut r = Raster::new(graph.width, graph.height, map.dpc);
    let line: Vec<(f64, f64)> = x
        .front
        .iter()
        .filter_map(|&i| at(d, &x.points[i]))
        .map(|(a, c)| map.dot(lg(a), lg(c)))
        .collect();
    r.polyline(&line, &[], 0);
    paint(&r, &[(LINE, t.roof(0))], app.ascii, graph, buf);
    draw_axes(app, &map, area, yw, &ylabels, buf);
    x_ticks(app, d.x, &map, area, buf);
    let mut s = [0u8; 4];
    let mut dot = |cell: (u16, u16), g: (char, char), style: Style, buf: &mut Buffer| {
        put(
            buf,
            graph,
            cell.0,
            cell.1,
            glyph(g, app.ascii).encode_utf8(&mut s),
            style,
        );
    };
    // Out first (faint), then the feasible ones, then the front on top.
    for &(i, (a, c)) in &plotted {
        if let Some(cell) = map.cell(lg(a), lg(c))
            && is_out(&x.points[i])
        {
            dot(cell, OUT, t.dim(), buf);
        }
    }
    for &(i, (a, c)) in &plotted {
        if let Some(cell) = map.cell(lg(a), lg(c))
            && !is_out(&x.points[i])
        {
            dot(cell, FEASIBLE, Style::new().fg(t.fg), buf);
        }
    }
    let front: Vec<Option<(u16, u16)>> = x
        .front
        .iter()
        .map(|&i| at(d, &x.points[i]).and_then(|(a, c)| map.cell(lg(a), lg(c))))
        .collect();
    let front_style = Style::new().fg(t.roof(0)).add_modifier(Modifier::BOLD);
    for cell in front.iter().flatten() {
        dot(*cell, FRONT, front_style, buf);
    }
    if let Some(Some(cell)) = front.get(sel) {
        let style = Style::new().fg(t.op_point).add_modifier(Modifier::BOLD);
        dot(*cell, SELECTED, style, buf);
    }
    draw_labels(app, d, sel, &map, &front, buf);
    Drawn { graph, front }
}

/// The x axis's decade labels in the objective's unit, over the ones
/// `draw_axes` wrote.
fn x_ticks(app: &App, o: Objective, map: &Mapper, area: Rect, buf: &mut Buffer) {
    let dim = app.theme().dim();
    let y = map.area.bottom() + 1;
    if y >= area.bottom() {
        return;
    }
    for x in area.x..area.right() {
        buf[(x, y)].set_symbol(" ");
    }
    let mut next_free = area.x;
    for e in decades(map.b.x) {
        if let Some((cx, _)) = map.cell(e as f64, map.b.y[0]) {
            let label = tick(o, e);
            let w = label.chars().count() as u16;
            let x = cx
                .saturating_sub(w / 2)
                .min(area.right().saturating_sub(w))
                .max(area.x);
            if x >= next_free {
                put(buf, area, x, y, &label, dim);
                next_free = x + w + 1;
            }
        }
    }
}

/// The axis names and the selected point's configuration, where they find
/// room.
fn draw_labels(
    app: &App,
    d: &ExploreData,
    sel: usize,
    map: &Mapper,
    front: &[Option<(u16, u16)>],
    buf: &mut Buffer,
) {
    let t = app.theme();
    let graph = map.area;
    let mut reqs: Vec<(Vec<Spot>, Style)> =
        labels::axis_names(graph, axis_name(d.y), axis_name(d.x))
            .into_iter()
            .map(|s| (s, t.dim()))
            .collect();
    if let (Some(Some(cell)), Some(p)) = (front.get(sel), d.front_point(sel)) {
        let c = d.choice(p);
        let id = &app.catalog.hardware[c.hw].hw.id;
        let texts = [
            format!("{id} {} TP{} b{}", c.precisions.label(), c.tp, c.batch),
            id.clone(),
        ];
        reqs.push((labels::beside(cell.0, cell.1, &texts), t.accent()));
    }
    let keep: Vec<(u16, u16)> = front.iter().flatten().copied().collect();
    let spots: Vec<Vec<Spot>> = reqs.iter().map(|(s, _)| s.clone()).collect();
    for (p, (_, style)) in labels::place(graph, &keep, &spots).iter().zip(&reqs) {
        if let Some(p) = p {
            put(buf, graph, p.x, p.y, &p.text, *style);
        }
    }
}
