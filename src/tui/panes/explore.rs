//! The Explore view: the design space of serving the current model. The
//! scatter of its configurations on two objectives (chart.rs) and the
//! table of the Pareto front beside it (under it on a narrow screen): each
//! point's device, precision, TP, PP, batch and objective values. Up and
//! Down move along the front; Enter makes the point the workbench's
//! selection.

pub mod chart;

use super::grid::{self, fill, left, right};
use super::text::Part;
use super::{plot, scroll_offset, view_frame};
use crate::solver::explore::{Objective, Point, Verdict};
use crate::solver::units;
use crate::tui::app::{App, Pane};
use crate::tui::views::ViewData;
use crate::tui::views::explore::ExploreData;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Where the plot and the table go inside the pane for a front of `n`
/// points: as the Operators view splits (beside from 130 columns, else
/// under the plot, which keeps its rows).
pub fn split(inner: Rect, n: usize) -> (Rect, Rect) {
    super::ops::split(inner, n)
}

/// The front row under the cursor.
pub fn selected(app: &App, d: &ExploreData) -> usize {
    app.view_scroll
        .min(d.exploration.front.len().saturating_sub(1))
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some((ViewData::Explore(d), inner)) = view_frame(app, frame, area, |v| match v {
        ViewData::Explore(d) => title(app, d),
        _ => Vec::new(),
    }) else {
        return;
    };
    let sel = selected(app, d);
    let (plot_area, table_area) = split(inner, d.exploration.front.len());
    let buf = frame.buffer_mut();
    if plot_area.height >= plot::MIN_CHART_ROWS && plot_area.width >= 20 {
        chart::draw(app, d, sel, buf, plot_area);
    }
    table(app, d, sel, buf, table_area);
}

/// The counts: evaluated, feasible, on the front.
pub fn counts(d: &ExploreData) -> String {
    let x = &d.exploration;
    format!(
        "{} evaluated · {} feasible · {} on the front",
        x.evaluated,
        x.feasible,
        x.front.len()
    )
}

fn title(app: &App, d: &ExploreData) -> Vec<Span<'static>> {
    let t = app.theme();
    vec![Span::styled(
        format!("{} · {} vs {} ", counts(d), d.y.name(), d.x.name()),
        t.dim(),
    )]
}

/// An objective's column head.
pub fn head(o: Objective) -> &'static str {
    match o {
        Objective::Itl => "ITL",
        Objective::Ttft => "TTFT",
        Objective::TokensPerDevice => "tok/s/dev",
        Objective::Cost => "$/Mtok",
        Objective::Energy => "J/token",
        Objective::Devices => "devices",
    }
}

/// An objective's value as the table shows it.
pub fn shown(o: Objective, p: &Point) -> String {
    let Some(v) = ExploreData::value(p, o) else {
        return "-".into();
    };
    match o {
        Objective::Itl | Objective::Ttft => units::format_time(v),
        Objective::Cost => units::format_usd(v),
        Objective::TokensPerDevice | Objective::Energy => units::format_number(v),
        Objective::Devices => format!("{v:.0}"),
    }
}

/// Columns: mark and device, precision, TP, PP, batch, x, y.
const COLS: [grid::Col; 7] = [
    fill(),
    left(9),
    right(3),
    right(3),
    right(5),
    right(9),
    right(9),
];

fn table(app: &App, d: &ExploreData, sel: usize, buf: &mut Buffer, area: Rect) {
    if area.height == 0 {
        return;
    }
    let t = app.theme();
    let w = grid::widths(&COLS, area.width);
    let heads = [
        "  device",
        "precision",
        "TP",
        "PP",
        "batch",
        head(d.x),
        head(d.y),
    ];
    let head: Vec<Line> = heads.iter().map(|h| Line::from(*h)).collect();
    grid::row(buf, area, area.y, &COLS, &w, &head, Some(t.dim()));
    let x = &d.exploration;
    if x.front.is_empty() {
        let line = Line::from(Span::styled(empty_why(d), t.warn()));
        super::text::draw_line(buf, area, area.y + 1, &line, app.ascii);
        return;
    }
    let room = area.height.saturating_sub(1) as usize;
    let skip = scroll_offset(sel, x.front.len(), room);
    let focused = app.focus == Pane::View && !app.in_bar;
    let rows = (0..x.front.len()).skip(skip).take(room.max(1));
    for (y, row) in (area.y + 1..).zip(rows) {
        if y >= area.bottom() {
            break;
        }
        let Some(p) = d.front_point(row) else { break };
        let on = row == sel;
        let c = d.choice(p);
        let cursor = match (on, app.ascii) {
            (true, true) => '>',
            (true, false) => '▶',
            _ => ' ',
        };
        let mark = chart::glyph(if on { chart::SELECTED } else { chart::FRONT }, app.ascii);
        let id = &app.catalog.hardware[c.hw].hw.id;
        let name = super::text::clip(id, (w[0] as usize).saturating_sub(2), app.ascii);
        let cells = [
            Line::from(format!("{cursor}{mark}{name}")),
            Line::from(c.precisions.label()),
            Line::from(c.tp.to_string()),
            Line::from(c.pp.to_string()),
            Line::from(format!("{:.0}", c.batch)),
            Line::from(shown(d.x, p)),
            Line::from(shown(d.y, p)),
        ];
        let style = match (on, focused) {
            (true, true) => Some(t.selected()),
            (true, false) => Some(t.accent()),
            _ => None,
        };
        grid::row(buf, area, y, &COLS, &w, &cells, style);
    }
}

/// Why the front is empty: configurations that run but have no value
/// on an objective (a device without a price or a TDP), or none that runs.
pub fn empty_why(d: &ExploreData) -> String {
    let unknown = d
        .exploration
        .points
        .iter()
        .filter(|p| p.verdict == Verdict::Unknown)
        .count();
    if unknown > 0 {
        format!(
            " {unknown} configurations run but have no {} or {} (a device without a price or a TDP): pick other objectives",
            d.x.name(),
            d.y.name()
        )
    } else {
        " nothing feasible: loosen a limit (TTFT, ITL) or widen an axis (devices, precisions, TP, batch)".into()
    }
}

/// The headline: the counts, then the selected point.
pub fn headline<'a>(app: &App, d: &ExploreData) -> Vec<Part<'a>> {
    let t = app.theme();
    let part =
        |text: String, style: Style, rank: u8| Part::new(vec![Span::styled(text, style)], rank);
    let x = &d.exploration;
    let mut v = vec![
        part(" explore".into(), Style::new().fg(t.title), 3),
        part(
            format!("{} evaluated", x.evaluated),
            Style::new().fg(t.fg),
            7,
        ),
        part(format!("{} feasible", x.feasible), t.accent(), 8),
        part(format!("front {}", x.front.len()), Style::new().fg(t.fg), 6),
    ];
    if let Some(p) = d.front_point(selected(app, d)) {
        let c = d.choice(p);
        v.push(part(
            format!(
                "{} {} TP {} PP {} batch {:.0}: {} {}, {} {}",
                app.catalog.hardware[c.hw].hw.id,
                c.precisions.label(),
                c.tp,
                c.pp,
                c.batch,
                head(d.x),
                shown(d.x, p),
                head(d.y),
                shown(d.y, p)
            ),
            t.accent(),
            5,
        ));
    }
    v
}

#[cfg(test)]
mod tests;
