//! The Generations view: one workload across a hardware family (A100 ->
//! H100 -> H200 -> B200, MI250X -> MI300X -> MI325X, TPU v4 -> v5p -> v6e)
//! or the marked devices: their roofs overlaid, and a table of latency,
//! tokens/s, binding constraint and elasticities, so a shift of the binding
//! constraint shows.

use super::grid::{self, fill, left, right};
use super::serving::usd;
use super::{plot, view_frame};
use crate::solver::{Param, units};
use crate::tui::action::Command;
use crate::tui::app::App;
use crate::tui::views::ViewData;
use crate::words::Words;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

fn short(p: Param) -> &'static str {
    match p {
        Param::PeakFlops => "FLOP/s",
        Param::MemoryBandwidth => "mem BW",
        Param::LinkBandwidth => "link BW",
        _ => p.label(),
    }
}

/// The binding constraint along the devices: one for all, or where it shifts.
pub fn verdict(app: &App, an: &crate::tui::app::Analysis) -> String {
    let mut shift: Vec<(String, &'static str)> = Vec::new();
    for c in &an.compare {
        if let Ok(s) = &c.result {
            let b = s.binding.map_or("-", short);
            if shift.last().is_none_or(|(_, x)| *x != b) {
                shift.push((app.catalog.hardware[c.hw].hw.id.clone(), b));
            }
        }
    }
    if shift.len() <= 1 {
        format!(
            " binding constraint: {} on every device",
            shift.first().map_or("-", |x| x.1)
        )
    } else {
        let path: Vec<String> = shift.iter().map(|(d, b)| format!("{b} ({d})")).collect();
        format!(" binding constraint shifts: {}", path.join(" → "))
    }
}

/// The device rows shown of `rows` under a table's header with `room`
/// rows: all of them, or a page (the last row then says which) starting
/// at `offset`, clamped so that the last page stays full.
pub fn page(offset: usize, rows: u16, room: u16) -> std::ops::Range<u16> {
    if rows <= room {
        return 0..rows;
    }
    let visible = room.saturating_sub(1);
    let first = (offset.min(u16::MAX as usize) as u16).min(rows - visible);
    first..first + visible
}

/// Where the plot and the table go inside the pane: side by side from 130
/// columns; else the table under the plot, taking at most half the rows
/// and never the plot's minimum (a longer table scrolls).
pub fn split(inner: Rect, rows: u16) -> (Rect, Rect) {
    if inner.width >= 130 {
        let tw = 84.min(inner.width / 2 + 10);
        return (
            Rect {
                width: inner.width - tw - 1,
                ..inner
            },
            Rect {
                x: inner.right() - tw,
                width: tw,
                ..inner
            },
        );
    }
    let th = (rows + 2)
        .min(inner.height / 2 + 1)
        .min(inner.height.saturating_sub(plot::MIN_CHART_ROWS));
    (
        Rect {
            height: inner.height - th,
            ..inner
        },
        Rect {
            y: inner.bottom() - th,
            height: th,
            ..inner
        },
    )
}

/// The chart's area in the view's pane drawn at `pane`, with the
/// analysis it plots.
pub fn chart_area(app: &App, pane: Rect) -> Option<(&crate::tui::app::Analysis, Rect)> {
    let (ViewData::Generations(g), _) = app.shown_view()? else {
        return None;
    };
    let inner = super::block(app, crate::tui::app::Pane::View, vec![]).inner(pane);
    let rows = g.analysis.compare.len() as u16;
    Some((&g.analysis, split(inner, rows).0))
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((ViewData::Generations(g), inner)) = view_frame(app, frame, area, |d| match d {
        ViewData::Generations(g) => vec![Span::styled(
            format!(
                "{} · {} next family ",
                g.label,
                app.keymap.first_key(Command::NextFamily)
            ),
            app.theme().dim(),
        )],
        _ => Vec::new(),
    }) else {
        return;
    };
    let an = &g.analysis;
    let rows = an.compare.len() as u16;
    let verdict = verdict(app, an);
    let (plot_area, table_area) = split(inner, rows);
    if plot_area.height >= plot::MIN_CHART_ROWS && plot_area.width >= 20 {
        plot::draw_chart(app, an, frame, plot_area);
    }
    let buf = frame.buffer_mut();
    let cols = [
        fill(),
        right(8),
        right(9),
        left(8),
        right(6),
        right(6),
        right(7),
    ];
    let widths = grid::widths(&cols, table_area.width);
    let rate = Words::for_model(&app.catalog.models[an.model]).rate();
    let head: Vec<Line> = [
        "     device",
        "latency",
        rate,
        "binding",
        "e peak",
        "e BW",
        "$/M tok",
    ]
    .into_iter()
    .map(Line::from)
    .collect();
    grid::row(
        buf,
        table_area,
        table_area.y,
        &cols,
        &widths,
        &head,
        Some(t.dim()),
    );
    // A table taller than its area scrolls (Up/Down in the pane); the
    // verdict is also in the status line.
    let room = table_area.height.saturating_sub(1);
    let shown = page(app.view_scroll, rows, room);
    let first = shown.start;
    for (i, c) in an
        .compare
        .iter()
        .enumerate()
        .skip(first as usize)
        .take(shown.len())
    {
        let hw = &app.catalog.hardware[c.hw].hw;
        let name = plot::device_cell(app, i, &hw.id);
        let y = table_area.y + 1 + i as u16 - first;
        let cells: Vec<Line> = match &c.result {
            Ok(s) => {
                let e = &s.base;
                let el = |p: Param| {
                    s.row(p)
                        .map_or("-".to_string(), |r| units::format_number(r.elasticity))
                };
                vec![
                    name,
                    units::format_time(e.latency_s).into(),
                    units::format_count(e.tokens_per_s).into(),
                    Line::from(Span::styled(s.binding.map_or("-", short), t.binding())),
                    el(Param::PeakFlops).into(),
                    el(Param::MemoryBandwidth).into(),
                    usd(c.cost_per_mtok).into(),
                ]
            }
            Err(err) => vec![
                name,
                "-".into(),
                "-".into(),
                Line::from(Span::styled(err.clone(), t.error())),
            ],
        };
        grid::row(buf, table_area, y, &cols, &widths, &cells, None);
    }
    if shown.len() < rows as usize && room > 1 {
        let more = format!(
            " {}-{} of {rows} devices: {}/{} scroll, {} zooms",
            shown.start + 1,
            shown.end,
            app.keymap.first_key(Command::Up),
            app.keymap.first_key(Command::Down),
            app.keymap.first_key(Command::Zoom)
        );
        let y = table_area.bottom() - 1;
        grid::wide(buf, table_area, y, &Line::from(Span::styled(more, t.dim())));
        return;
    }
    let vy = table_area.y + 1 + rows;
    if vy < table_area.bottom() {
        grid::wide(
            buf,
            table_area,
            vy,
            &Line::from(Span::styled(verdict, t.accent())),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_table_pages_and_the_plot_keeps_its_rows() {
        // 5 devices under 8 rows: all shown. 12 devices: 7 rows and a line
        // saying which; the last page starts at 12 - 7 = 5.
        assert_eq!(page(0, 5, 8), 0..5);
        assert_eq!(page(0, 12, 8), 0..7);
        assert_eq!(page(3, 12, 8), 3..10);
        assert_eq!(page(99, 12, 8), 5..12);
        // 80x24: the view's inner area is 78x18; 8 devices want 10 rows,
        // half the pane is 10, the plot keeps 9: the table gets 9.
        let (chart, table) = split(Rect::new(1, 2, 78, 18), 8);
        assert_eq!(chart, Rect::new(1, 2, 78, 9));
        assert_eq!(table, Rect::new(1, 11, 78, 9));
    }
}
