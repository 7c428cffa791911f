//! The sensitivity table: elasticity and the change for +10% per parameter,
//! a bar, the binding constraint lit; then headroom and fit margin.

use super::grid::{self, left, right};
use super::{block, cell, percent, stale_marker};
use crate::solver::sensitivity::PrecisionStep;
use crate::solver::{Param, units};
use crate::tui::app::{App, Pane};
use crate::words::Words;
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

/// Rows the pane needs to show all of itself: its border, the header, a
/// row per parameter shown, the precision step, and the binding, headroom,
/// fit and twice-the-batch lines.
pub fn rows_needed(app: &App) -> u16 {
    let Some((an, _)) = app.shown() else {
        return 2;
    };
    let Some(sens) = an.running_sens() else {
        return 3;
    };
    let words = Words::for_model(&app.catalog.models[an.model]);
    let params = sens.rows.iter().filter(|r| shown(r.param, words)).count() as u16;
    let step = sens.precision_step.is_some() as u16;
    2 + 1 + params + step + 4
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((an, _)) = app.shown() else {
        let b = block(app, Pane::Sensitivity, vec![]);
        frame.render_widget(b, area);
        return;
    };
    let mut extra = stale_marker(app);
    // The configuration the elasticities are of: as asked when it fits,
    // else the fewest devices that hold it (as the plot and status line).
    let Some(s) = an.running_sens() else {
        let b = block(app, Pane::Sensitivity, extra);
        let inner = b.inner(area);
        frame.render_widget(b, area);
        let lines = wrap_spans(
            Line::from(Span::styled(
                " no layout holds it: nothing runs, so no elasticities",
                t.error(),
            )),
            inner.width as usize,
        );
        super::lines(frame.buffer_mut(), inner, &lines);
        return;
    };
    let used: usize = 4
        + app.pane_title(Pane::Sensitivity).chars().count()
        + extra.iter().map(|x| x.width()).sum::<usize>()
        + if app.zoom && app.focus == Pane::Sensitivity {
            12
        } else {
            0
        };
    let mut room = (area.width as usize).saturating_sub(used);
    if !an.sens.base.memory.fits {
        let hw = &app.catalog.hardware[an.hw].hw.id;
        let on = on_label(s.base.parallelism, hw, room);
        room = room.saturating_sub(on.chars().count());
        extra.push(Span::styled(on, t.title(false)));
    }
    let step = format!("+{}% step ", units::format_number(s.perturb * 100.0));
    if step.chars().count() <= room {
        extra.push(Span::styled(step, t.dim()));
    }
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
        format!("+{}%", units::format_number(s.perturb * 100.0)).into(),
        Line::from(format!("{:^w$}", "faster │ slower", w = half * 2 + 1)),
    ];
    grid::row(buf, inner, inner.y, &cols, &widths, &head, Some(t.dim()));
    let words = Words::for_model(&app.catalog.models[an.model]);
    let rows: Vec<_> = s.rows.iter().filter(|r| shown(r.param, words)).collect();
    for (k, r) in rows.iter().enumerate() {
        let binding = s.binding == Some(r.param);
        let (neg, mid, pos) = bar(r.elasticity, half);
        let label = if binding {
            format!("▶{}", r.param.label())
        } else {
            format!(" {}", r.param.label())
        };
        let cells: Vec<Line> = vec![
            label.into(),
            cell::number(r.elasticity, widths[1] as usize).into(),
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
    let mut n = rows.len() as u16 + 1;
    if let Some(p) = &s.precision_step {
        // Precision is discrete: one format narrower, a finite change only.
        let cells: Vec<Line> = vec![
            step_label(p, words).into(),
            Line::from(Span::styled("step", t.dim())),
            percent(p.latency_change).into(),
            Line::from(Span::styled(
                if half * 2 + 1 >= 20 {
                    " one format narrower"
                } else {
                    " discrete"
                },
                t.dim(),
            )),
        ];
        grid::row(buf, inner, inner.y + n, &cols, &widths, &cells, None);
        n += 1;
    }
    let n = n.min(inner.height);

    if inner.height > n {
        let e = &s.base;
        let binding = match s.binding {
            Some(Param::Overhead) => "overhead (fixed per-step costs)",
            Some(p) => p.label(),
            None => "none",
        };
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
                Span::styled(" before binding", t.dim()),
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
        let lines: Vec<Line> = lines
            .into_iter()
            .flat_map(|l| wrap_spans(l, inner.width as usize))
            .collect();
        super::lines(frame.buffer_mut(), rest, &lines);
    }
}

/// The title's label of the configuration that runs, the longest that
/// fits `room` cells: "on 2 x a100-sxm-80gb (TP 2) ", "on 2 (TP 2) ",
/// "on 2 ".
pub fn on_label(p: crate::solver::Parallelism, hw: &str, room: usize) -> String {
    let layout = if p.pp == 1 {
        format!("TP {}", p.tp)
    } else {
        format!("TP {} x PP {}", p.tp, p.pp)
    };
    let n = p.devices();
    [
        format!("on {n} x {hw} ({layout}) "),
        format!("on {n} ({layout}) "),
        format!("on {n} "),
    ]
    .into_iter()
    .find(|l| l.chars().count() <= room)
    .unwrap_or_else(|| format!("on {n} "))
}

/// A line broken at spaces into lines of at most `width` cells, each word
/// keeping its style; continuation lines are indented by two.
fn wrap_spans(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let mut cur: Vec<Span> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let style = span.style;
        for (i, word) in span.content.split(' ').enumerate() {
            // A space that began this piece belongs before the word.
            let piece = if i == 0 {
                word.to_string()
            } else {
                format!(" {word}")
            };
            let w = piece.chars().count();
            if used > 0 && used + w > width {
                out.push(Line::from(std::mem::take(&mut cur)));
                cur.push(Span::styled(format!("  {}", piece.trim_start()), style));
                used = cur[0].width();
            } else {
                used += w;
                cur.push(Span::styled(piece, style));
            }
        }
    }
    if !cur.is_empty() {
        out.push(Line::from(cur));
    }
    out
}

/// The rows a model's table shows: context changes nothing in one forward pass.
fn shown(p: Param, words: Words) -> bool {
    !(words.single_pass() && p == Param::Context)
}

/// The precision step's label: what is stored one format narrower.
pub fn step_label(p: &PrecisionStep, words: Words) -> String {
    if words.single_pass() {
        format!(" weights → {}", p.weights)
    } else if p.weights == p.kv {
        format!(" weights+KV → {}", p.weights)
    } else {
        format!(" w {} KV {}", p.weights, p.kv)
    }
}

#[cfg(test)]
mod tests {
    use super::{bar, on_label};
    use crate::solver::Parallelism;

    #[test]
    fn the_label_of_what_runs_shortens_to_its_room() {
        let p = Parallelism { tp: 2, pp: 1 };
        // "on 2 x a100-sxm-80gb (TP 2) " is 28 cells, "on 2 (TP 2) " 12.
        assert_eq!(
            on_label(p, "a100-sxm-80gb", 28),
            "on 2 x a100-sxm-80gb (TP 2) "
        );
        assert_eq!(on_label(p, "a100-sxm-80gb", 27), "on 2 (TP 2) ");
        assert_eq!(on_label(p, "a100-sxm-80gb", 5), "on 2 ");
        let q = Parallelism { tp: 4, pp: 2 };
        assert_eq!(
            on_label(q, "h100-sxm", 99),
            "on 8 x h100-sxm (TP 4 x PP 2) "
        );
    }

    #[test]
    fn bars_point_the_right_way() {
        assert_eq!(bar(-1.0, 3), ("███".into(), "│".into(), "   ".into()));
        assert_eq!(bar(0.5, 4), ("    ".into(), "│".into(), "██  ".into()));
        assert_eq!(bar(0.0, 2), ("  ".into(), "│".into(), "  ".into()));
        assert_eq!(bar(-7.0, 2).0, "██", "clamped");
    }
}
