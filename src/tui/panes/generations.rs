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
use ratatui::style::Style;
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
    let table_h = rows + 2;
    let side = inner.width >= 130;
    let (plot_area, table_area) = if side {
        let tw = 84.min(inner.width / 2 + 10);
        (
            Rect {
                width: inner.width - tw - 1,
                ..inner
            },
            Rect {
                x: inner.right() - tw,
                width: tw,
                ..inner
            },
        )
    } else {
        let th = table_h.min(inner.height / 2 + 1);
        (
            Rect {
                height: inner.height.saturating_sub(th),
                ..inner
            },
            Rect {
                y: inner.bottom().saturating_sub(th),
                height: th,
                ..inner
            },
        )
    };
    if plot_area.height >= 6 && plot_area.width >= 20 {
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
        "  device", "latency", rate, "binding", "e peak", "e BW", "$/M tok",
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
    for (i, c) in an.compare.iter().enumerate() {
        let hw = &app.catalog.hardware[c.hw].hw;
        let name = Line::from(vec![
            Span::styled("━ ", Style::new().fg(t.roof(i))),
            Span::raw(hw.id.clone()),
        ]);
        let y = table_area.y + 1 + i as u16;
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
