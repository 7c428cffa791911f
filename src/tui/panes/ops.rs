//! The Operators view: where the time of a step goes. The operators on the
//! device's roofline (chart.rs), each its own labelled point, and the
//! table beside it (under it on a narrow screen): each operator's layers,
//! FLOP/B, time, bound and share of the step. Up and Down move through the
//! table; the selected operator's point has its own glyph.

pub mod chart;

use super::grid::{self, fill, left, right};
use super::text::Part;
use super::{plot, scroll_offset, view_frame};
use crate::solver::compare::Verdict;
use crate::solver::ops::{Bound, Op};
use crate::solver::units;
use crate::tui::app::{App, Pane};
use crate::tui::views::ViewData;
use crate::tui::views::ops::OpsData;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Side by side from this inner width; the table under the plot below it.
pub const SIDE_WIDTH: u16 = 130;
/// The table's width beside the plot.
const TABLE_WIDTH: u16 = 78;

/// Where the plot and the table go inside the pane for `n` operators:
/// side by side from 130 columns; else the table (a header, a row each and
/// the totals) under the plot, never taking the plot's minimum rows (a
/// longer table scrolls).
pub fn split(inner: Rect, n: usize) -> (Rect, Rect) {
    if inner.width >= SIDE_WIDTH {
        return super::side_by_side(inner, TABLE_WIDTH.min(inner.width / 2));
    }
    let wanted = n as u16 + 2;
    let th = wanted
        .min(inner.height.saturating_sub(plot::MIN_CHART_ROWS))
        .max(3.min(inner.height));
    super::stacked(inner, th)
}

/// The view's figures and where its plot and table go in the pane drawn
/// at `pane`.
pub fn areas(app: &App, pane: Rect) -> Option<(&OpsData, Rect, Rect)> {
    let (ViewData::Operators(d), _) = app.shown_view()? else {
        return None;
    };
    let inner = super::block(app, Pane::View, vec![]).inner(pane);
    let (plot, table) = split(inner, d.breakdown.ops.len());
    Some((d, plot, table))
}

/// The operator under the cursor.
pub fn selected(app: &App, d: &OpsData) -> usize {
    app.view_scroll.min(d.breakdown.ops.len().saturating_sub(1))
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some((ViewData::Operators(d), inner)) = view_frame(app, frame, area, |v| match v {
        ViewData::Operators(d) => title(app, d),
        _ => Vec::new(),
    }) else {
        return;
    };
    let sel = selected(app, d);
    let (plot_area, table_area) = split(inner, d.breakdown.ops.len());
    let buf = frame.buffer_mut();
    if plot_area.height >= plot::MIN_CHART_ROWS && plot_area.width >= 20 {
        chart::draw(app, d, sel, buf, plot_area);
    }
    table(app, d, sel, buf, table_area);
}

/// The title: the device and step, and the fit verdict when the breakdown
/// is of the fewest devices that hold the workload.
fn title(app: &App, d: &OpsData) -> Vec<Span<'static>> {
    let t = app.theme();
    let mut v = vec![Span::styled(format!("{} · {} ", d.device, d.step), t.dim())];
    if let Verdict::Needs(p) = d.verdict {
        v.push(Span::styled(
            format!(
                "{} does not fit as asked: on TP {} x PP {} ",
                Verdict::cross(app.ascii),
                p.tp,
                p.pp
            ),
            t.error(),
        ));
    }
    v
}

/// The table's columns: the mark and name, layers, FLOP/B, time, bound,
/// share; FLOPs and bytes while they fit.
const COLS: [grid::Col; 8] = [
    fill(),
    left(9),
    right(6),
    right(8),
    left(7),
    right(6),
    right(6),
    right(8),
];

fn table(app: &App, d: &OpsData, sel: usize, buf: &mut Buffer, area: Rect) {
    if area.height == 0 {
        return;
    }
    let t = app.theme();
    let cols = grid::keep(&COLS, area.width, 18);
    let w = grid::widths(cols, area.width);
    let heads = [
        "  operator",
        "layers",
        "FLOP/B",
        "time",
        "bound",
        "share",
        "FLOPs",
        "bytes",
    ];
    let head: Vec<Line> = heads[..cols.len()].iter().map(|h| Line::from(*h)).collect();
    grid::row(buf, area, area.y, cols, &w, &head, Some(t.dim()));
    let ops = &d.breakdown.ops;
    // Rows under the header, less the totals line.
    let room = area.height.saturating_sub(2) as usize;
    let skip = scroll_offset(sel, ops.len(), room);
    let focused = app.focus == Pane::View && !app.in_bar;
    let mut y = area.y + 1;
    for (i, op) in ops.iter().enumerate().skip(skip).take(room.max(1)) {
        if y >= area.bottom() {
            break;
        }
        let on = i == sel;
        let cells = row(app, d, i, op, on, w[0] as usize);
        let style = match (on, focused) {
            (true, true) => Some(t.selected()),
            (true, false) => Some(t.accent()),
            _ => None,
        };
        grid::row(buf, area, y, cols, &w, &cells[..cols.len()], style);
        y += 1;
    }
    if y < area.bottom() {
        let line = totals(app, d, sel);
        super::text::draw_line(buf, area, area.bottom() - 1, &line, app.ascii);
    }
}

/// One operator's cells: its mark (the plot's glyph for the selected one,
/// or a note that it is not on the plot), name, layers and figures.
fn row(app: &App, d: &OpsData, i: usize, op: &Op, on: bool, name_w: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let mark = if !OpsData::plotted(op) {
        ' '
    } else {
        chart::glyph(on, app.ascii)
    };
    let cursor = if on {
        if app.ascii { '>' } else { '▶' }
    } else {
        ' '
    };
    let name = super::text::clip(&d.names[i], name_w.saturating_sub(2), app.ascii);
    let bound = match op.bound {
        Bound::Compute => Span::styled("compute", t.accent()),
        Bound::Memory => Span::raw("memory"),
        Bound::Link => Span::styled("link", t.warn()),
    };
    vec![
        Line::from(vec![Span::raw(format!("{cursor}{mark}")), Span::raw(name)]),
        Line::from(op.layers.to_string()),
        Line::from(
            op.arithmetic_intensity()
                .map_or("-".into(), units::format_number),
        ),
        Line::from(units::format_time(op.time_s)),
        Line::from(bound),
        Line::from(share(op.share)),
        Line::from(units::format_count(op.flops)),
        Line::from(if op.bound == Bound::Link {
            units::format_bytes(op.comm_bytes)
        } else {
            units::format_bytes(op.bytes())
        }),
    ]
}

/// A share of the step: "35.2%", "0.0%", "-0.0%".
fn share(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The totals under the table: both step times and which the rest of
/// ridgeline reports; the fixed time; why the selected row has no point.
fn totals(app: &App, d: &OpsData, sel: usize) -> Line<'static> {
    let t = app.theme();
    let tt = &d.breakdown.totals;
    let f = units::format_time;
    let op = &d.breakdown.ops[sel];
    let why = if OpsData::plotted(op) {
        String::new()
    } else if op.bound == Bound::Link {
        " · a collective: not on the plot".into()
    } else if op.flops < 0.0 || op.bytes() < 0.0 {
        " · negative (the shape counts more than the published figure): not on the plot".into()
    } else {
        " · no FLOPs or bytes: not on the plot".into()
    };
    Line::from(vec![
        Span::styled(format!(" step {} ", f(tt.aggregate_s)), t.accent()),
        Span::styled(
            format!(
                "aggregate · {} per-op · fixed {}{why}",
                f(tt.per_operator_s),
                f(tt.fixed_s)
            ),
            Style::new().fg(t.fg),
        ),
    ])
}

/// The headline: the step both ways, and where most of its time goes; when
/// the workload does not fit as asked, the verdict first (the figures are
/// of the fewest devices that hold it).
pub fn headline<'a>(app: &App, d: &OpsData) -> Vec<Part<'a>> {
    let t = app.theme();
    let tt = &d.breakdown.totals;
    let part =
        |text: String, style: Style, rank: u8| Part::new(vec![Span::styled(text, style)], rank);
    let mut v = vec![part(" operators".into(), Style::new().fg(t.title), 3)];
    if let Verdict::Needs(p) = d.verdict {
        let n = p.tp.saturating_mul(p.pp);
        let x = Verdict::cross(app.ascii);
        v.push(part(format!("{x} needs {n}: shown on {n}"), t.error(), 9).keep());
    }
    v.push(part(
        format!("step {}", units::format_time(tt.aggregate_s)),
        t.accent(),
        8,
    ));
    v.push(part(
        format!("per-op {}", units::format_time(tt.per_operator_s)),
        Style::new().fg(t.fg),
        4,
    ));
    let top = d
        .breakdown
        .ops
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.time_s.total_cmp(&b.1.time_s));
    if let Some((i, op)) = top {
        v.push(part(
            format!(
                "most: {} {} ({})",
                d.names[i],
                units::format_percent(op.share),
                op.bound
            ),
            t.accent(),
            6,
        ));
    }
    v
}

#[cfg(test)]
mod tests;
