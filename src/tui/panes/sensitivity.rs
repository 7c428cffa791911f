//! The sensitivity table: elasticity and the change for +10% per parameter,
//! a bar, the binding constraint lit; then headroom and fit margin.

use super::grid::{self, left, right};
use super::{block, percent, stale_marker};
use crate::solver::{Param, units};
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// A centred bar for an elasticity in [-1, 1] (clamped): left of the centre
/// when a larger value speeds the step up, right when it slows it down.
pub fn bar(e: f64, half: usize) -> (String, String, String) {
    let n = ((e.abs().min(1.0)) * half as f64).round() as usize;
    let fill = "█".repeat(n);
    let pad = " ".repeat(half - n);
    if e < 0.0 {
        (format!("{pad}{fill}"), "│".to_string(), " ".repeat(half))
    } else {
        (" ".repeat(half), "│".to_string(), format!("{fill}{pad}"))
    }
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((an, _)) = app.shown() else {
        let b = block(app, Pane::Sensitivity, vec![]);
        frame.render_widget(b, area);
        return;
    };
    let s = &an.sens;
    let mut extra = stale_marker(app);
    extra.push(Span::styled(
        format!("+{}% step ", units::format_number(s.perturb * 100.0)),
        t.dim(),
    ));
    let b = block(app, Pane::Sensitivity, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);

    let half = ((inner.width as usize).saturating_sub(19 + 7 + 8 + 3) / 2).clamp(2, 12);
    let cols = [left(19), right(7), right(8), left(half as u16 * 2 + 1)];
    let widths = grid::widths(&cols, inner.width);
    let buf = frame.buffer_mut();
    let head: Vec<Line> = vec![
        " parameter".into(),
        "elast.".into(),
        "+10%".into(),
        Line::from(format!("{:^w$}", "faster │ slower", w = half * 2 + 1)),
    ];
    grid::row(buf, inner, inner.y, &cols, &widths, &head, Some(t.dim()));
    for (k, r) in s.rows.iter().enumerate() {
        let binding = s.binding == Some(r.param);
        let (neg, mid, pos) = bar(r.elasticity, half);
        let label = if binding {
            format!("▶{}", r.param.label())
        } else {
            format!(" {}", r.param.label())
        };
        let cells: Vec<Line> = vec![
            label.into(),
            units::format_number(r.elasticity).into(),
            percent(r.finite_change).into(),
            Line::from(vec![
                Span::styled(neg, Style::new().fg(t.speeds)),
                Span::styled(mid, t.dim()),
                Span::styled(pos, Style::new().fg(t.slows)),
            ]),
        ];
        let y = inner.y + 1 + k as u16;
        grid::row(
            buf,
            inner,
            y,
            &cols,
            &widths,
            &cells,
            binding.then(|| t.binding()),
        );
    }
    let n = s.rows.len() as u16 + 1;

    if inner.height > n {
        let e = &s.base;
        let binding = s.binding.map_or("none", Param::label);
        let other = s.headroom.param.label();
        let mut lines = vec![
            Line::from(vec![
                Span::styled(" binding: ", t.dim()),
                Span::styled(binding, t.binding()),
            ]),
            Line::from(vec![
                Span::styled(format!(" headroom: {other} can fall "), t.dim()),
                Span::styled(
                    format!("{}x", units::format_number(s.headroom.factor)),
                    Style::new().fg(t.fg),
                ),
                Span::styled(" before it binds", t.dim()),
            ]),
        ];
        let fit_style = if e.memory.fits { t.ok() } else { t.error() };
        lines.push(Line::from(vec![
            Span::styled(" fit margin: ", t.dim()),
            Span::styled(
                format!("{}x", units::format_number(s.fit_margin)),
                fit_style,
            ),
            Span::styled(
                format!(
                    " ({} of {} usable)",
                    units::format_bytes(e.memory.footprint.total()),
                    units::format_bytes(e.memory.usable_bytes),
                ),
                t.dim(),
            ),
        ]));
        lines.push(Line::from(Span::styled(
            format!(
                " twice the batch needs {} of memory",
                units::format_bytes(s.capacity_for_double_batch)
            ),
            t.dim(),
        )));
        let rest = Rect {
            y: inner.y + n,
            height: inner.height - n,
            ..inner
        };
        super::lines(frame.buffer_mut(), rest, &lines);
    }
}

#[cfg(test)]
mod tests {
    use super::bar;

    #[test]
    fn bars_point_the_right_way() {
        assert_eq!(bar(-1.0, 3), ("███".into(), "│".into(), "   ".into()));
        assert_eq!(bar(0.5, 4), ("    ".into(), "│".into(), "██  ".into()));
        assert_eq!(bar(0.0, 2), ("  ".into(), "│".into(), "  ".into()));
        assert_eq!(bar(-7.0, 2).0, "██", "clamped");
    }
}
