//! The comparison table: the selected device and the marked ones, side by
//! side: latency, tokens/s, binding constraint, elasticities, fit and cost.

use super::{block, stale_marker};
use crate::solver::{Param, units};
use crate::tui::action::Command;
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let shown = app.shown();
    let mut extra = stale_marker(app);
    if let Some((an, _)) = shown
        && an.compare.len() > 1
    {
        extra.push(Span::styled(
            format!("{} devices ", an.compare.len()),
            t.dim(),
        ));
    }
    let b = block(app, Pane::Compare, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let Some((an, _)) = shown else { return };
    if app.marked.is_empty() {
        let k = app.keymap.first_key(Command::Mark);
        let hint = format!(
            " {k} marks devices in the Hardware list: their roofs overlay the plot and they line up here"
        );
        frame.render_widget(Paragraph::new(Span::styled(hint, t.dim())), inner);
        return;
    }
    let right = |s: String| Cell::from(Line::from(s).right_aligned());
    let mut rows = Vec::new();
    for (i, c) in an.compare.iter().enumerate() {
        let hw = &app.catalog.hardware[c.hw].hw;
        let name = Cell::from(Line::from(vec![
            Span::styled("━ ", Style::new().fg(t.roof(i))),
            Span::raw(hw.id.clone()),
        ]));
        let style = if i == 0 {
            t.accent()
        } else {
            Style::new().fg(t.fg)
        };
        match &c.result {
            Ok(s) => {
                let e = &s.base;
                let el = |p: Param| {
                    s.row(p)
                        .map_or("-".to_string(), |r| units::format_number(r.elasticity))
                };
                let fit = if e.memory.fits {
                    Span::styled("fits", t.ok())
                } else {
                    match e.min_devices {
                        Some(p) => Span::styled(format!("needs {}", p.devices()), t.error()),
                        None => Span::styled("never", t.error()),
                    }
                };
                let cost = c
                    .cost_per_mtok
                    .map_or("-".to_string(), |v| format!("${}", units::format_number(v)));
                rows.push(
                    Row::new(vec![
                        name,
                        right(units::format_time(e.latency_s)),
                        right(units::format_count(e.tokens_per_s)),
                        Cell::from(s.binding.map_or("-", short)),
                        right(el(Param::PeakFlops)),
                        right(el(Param::MemoryBandwidth)),
                        Cell::from(fit),
                        right(cost),
                    ])
                    .style(style),
                );
            }
            Err(err) => rows.push(
                Row::new(vec![
                    name,
                    right("-".into()),
                    right("-".into()),
                    Cell::from(Span::styled(err.clone(), t.error())),
                ])
                .style(style),
            ),
        }
    }
    let header = Row::new(vec![
        Cell::from("  device"),
        right("latency".into()),
        right("tokens/s".into()),
        Cell::from("binding"),
        right("e peak".into()),
        right("e BW".into()),
        Cell::from("fit"),
        right("$/M tok".into()),
    ])
    .style(t.dim());
    let table = Table::new(
        rows,
        [
            Constraint::Fill(1),
            Constraint::Length(8),
            Constraint::Length(8),
            Constraint::Length(7),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(8),
            Constraint::Length(7),
        ],
    )
    .header(header)
    .column_spacing(1);
    frame.render_widget(table, inner);
}

/// A short name for a binding constraint, for narrow columns.
fn short(p: Param) -> &'static str {
    match p {
        Param::PeakFlops => "FLOP/s",
        Param::MemoryBandwidth => "mem BW",
        Param::LinkBandwidth => "link BW",
        _ => p.label(),
    }
}
