//! The comparison table: the selected device and the marked ones, side by
//! side: latency, tokens/s, binding constraint, elasticities, fit and cost.

use super::grid::{self, fill, left, right};
use super::{block, plot, stale_marker};
use crate::solver::{Param, units};
use crate::tui::action::Command;
use crate::tui::app::{App, Pane};
use crate::words::Words;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

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
    let cols = [
        fill(),
        right(8),
        right(9),
        left(8),
        right(6),
        right(6),
        left(8),
        right(7),
    ];
    let widths = grid::widths(&cols, inner.width);
    let buf = frame.buffer_mut();
    let rate = Words::for_model(&app.catalog.models[an.model]).rate();
    let head: Vec<Line> = [
        "     device",
        "latency",
        rate,
        "binding",
        "e peak",
        "e BW",
        "fit",
        "$/M tok",
    ]
    .into_iter()
    .map(Line::from)
    .collect();
    grid::row(buf, inner, inner.y, &cols, &widths, &head, Some(t.dim()));
    for (i, c) in an.compare.iter().enumerate() {
        let hw = &app.catalog.hardware[c.hw].hw;
        let name = plot::device_cell(app, i, &hw.id);
        let style = (i == 0).then(|| t.accent());
        let y = inner.y + 1 + i as u16;
        let cells: Vec<Line> = match &c.result {
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
                vec![
                    name,
                    units::format_time(e.latency_s).into(),
                    units::format_count(e.tokens_per_s).into(),
                    s.binding.map_or("-", short).into(),
                    el(Param::PeakFlops).into(),
                    el(Param::MemoryBandwidth).into(),
                    Line::from(fit),
                    cost.into(),
                ]
            }
            Err(err) => vec![
                name,
                "-".into(),
                "-".into(),
                Line::from(Span::styled(err.clone(), t.error())),
            ],
        };
        grid::row(buf, inner, y, &cols, &widths, &cells, style);
    }
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
