//! The Sweep view: tokens/s and latency against batch (or context length)
//! on log axes, each point marked with its bottleneck, the crossover batch
//! where compute time overtakes memory time drawn as a vertical line, and
//! the points in a table.

use super::grid::{self, right};
use super::plot::{decades, put};
use super::view_frame;
use crate::solver::{self, Bottleneck, units};
use crate::tui::app::App;
use crate::tui::knobs::SweepAxis;
use crate::tui::views::{SweepData, ViewData};
use crate::words::Words;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The letter that marks a point's bottleneck.
pub fn mark(b: Bottleneck) -> char {
    match b {
        Bottleneck::Compute => 'C',
        Bottleneck::Memory => 'M',
        Bottleneck::Communication => 'L',
        Bottleneck::Overhead => 'O',
    }
}

/// Whole-decade log10 bounds around positive values.
fn log_bounds(v: &[f64]) -> [f64; 2] {
    let l: Vec<f64> = v
        .iter()
        .filter(|x| x.is_finite() && **x > 0.0)
        .map(|x| x.log10())
        .collect();
    let lo = l.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return [0.0, 1.0];
    }
    let (a, mut b) = (lo.floor(), hi.ceil());
    if b <= a {
        b = a + 1.0;
    }
    [a, b]
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((ViewData::Sweep(d), inner)) = view_frame(app, frame, area, |d| match d {
        ViewData::Sweep(d) => {
            let what = match d.axis {
                SweepAxis::Batch => "against batch",
                SweepAxis::Context => "against context",
            };
            vec![Span::styled(format!("{what} · log x "), app.theme().dim())]
        }
        _ => Vec::new(),
    }) else {
        return;
    };
    let buf = frame.buffer_mut();
    // Summary: the crossover and the toggle.
    let x_name = match d.axis {
        SweepAxis::Batch => "batch",
        SweepAxis::Context => "context",
    };
    let wide = inner.width >= 100;
    let rate = Words::for_model(&app.catalog.models[app.model]).rate();
    let head = vec![
        Span::styled(
            if wide {
                format!(" M/C/L/O {rate}, left axis (bound: memory, compute, link, overhead)")
            } else {
                format!(" M/C/L/O {rate}, left (memory/compute/link/overhead)")
            },
            Style::new().fg(t.roof(0)),
        ),
        Span::styled(
            if wide {
                "   × latency, right axis"
            } else {
                " × latency"
            },
            Style::new().fg(t.roof(1)),
        ),
    ];
    let cross = match (d.axis, d.crossover) {
        (SweepAxis::Batch, Some(c)) => format!(
            " crossover: compute time overtakes memory time at batch {} (┊ on the plot)",
            units::format_number(c)
        ),
        (SweepAxis::Batch, None) => match d.points.first() {
            Some((_, e)) if e.compute_s >= e.memory_s => {
                " no crossover: compute time exceeds memory time from batch 1".to_string()
            }
            _ => " no crossover: memory time exceeds compute time up to batch 2^30".to_string(),
        },
        (SweepAxis::Context, _) => {
            " against context length (sweep over knob: batch or context)".to_string()
        }
    };
    let mut summary = vec![
        Line::from(head),
        Line::from(Span::styled(cross, t.accent())),
    ];
    if let Some(l) = fit_line(app, d, x_name, inner.width) {
        summary.push(l);
    }
    let summary_h = summary.len() as u16;
    let side = inner.width >= 110;
    let table_w = 50u16;
    let (chart_area, table_area) = if side {
        (
            Rect {
                width: inner.width - table_w - 1,
                ..inner
            },
            Rect {
                x: inner.right() - table_w,
                width: table_w,
                ..inner
            },
        )
    } else {
        let ch = (inner.height * 3 / 5).max(8).min(inner.height);
        (
            Rect {
                height: ch,
                ..inner
            },
            Rect {
                y: inner.y + ch,
                height: inner.height.saturating_sub(ch),
                ..inner
            },
        )
    };
    super::text::draw_lines(buf, chart_area, &summary, app.ascii);
    let chart = Rect {
        y: chart_area.y + summary_h,
        height: chart_area.height.saturating_sub(summary_h),
        ..chart_area
    };
    draw(app, d, buf, chart, x_name);
    table(app, d, buf, table_area, x_name);
}

/// The column that marks the largest batch (or context) that fits.
fn limit_glyph(ascii: bool) -> &'static str {
    if ascii { ":" } else { "┃" }
}

/// Where fitting stops, when some point of the sweep does not fit: the
/// largest batch that fits, marked on the plot and in the table, and the
/// verdict for the points beyond it.
fn fit_line<'a>(app: &App, d: &SweepData, x_name: &str, width: u16) -> Option<Line<'a>> {
    let t = app.theme();
    let first_out = d.points.iter().find(|(_, e)| !e.memory.fits)?;
    let verdict = solver::compare::Verdict::of(&first_out.1).cell(app.ascii);
    let text = match d.max_fit {
        Some(m) => format!(
            "fits up to {x_name} {} ({} on the plot); above it: {verdict} or more",
            units::format_count(m),
            if app.ascii {
                "the : line"
            } else {
                limit_glyph(false)
            }
        ),
        None => format!(
            "no {x_name} of the sweep fits: {verdict} at {x_name} {}",
            units::format_count(first_out.0)
        ),
    };
    let text = super::text::clip(&text, width.saturating_sub(1) as usize, app.ascii);
    Some(Line::from(Span::styled(format!(" {text}"), t.warn())))
}

/// Where fitting stops on the plot: a column at `x`, the largest batch that
/// fits (when some point does not), with NO FIT over the region beyond it;
/// or NO FIT across the plot when no point fits.
fn fit_limit(
    app: &App,
    d: &SweepData,
    buf: &mut Buffer,
    area: Rect,
    g: Rect,
    x: Option<u16>,
    x_name: &str,
) {
    let t = app.theme();
    if d.max_fit.is_none() {
        let label = format!("NO FIT at any {x_name} of the sweep");
        put(buf, area, g.x + 1, g.y, &label, t.error());
        return;
    }
    let Some(x) = x.filter(|_| d.points.iter().any(|(_, e)| !e.memory.fits)) else {
        return;
    };
    for y in g.y..g.bottom() {
        put(buf, area, x, y, limit_glyph(app.ascii), t.error());
    }
    let label = "NO FIT";
    if x + 2 + label.len() as u16 <= g.right() {
        put(buf, area, x + 2, g.y, label, t.error());
    }
}

fn draw(app: &App, d: &SweepData, buf: &mut Buffer, area: Rect, x_name: &str) {
    let t = app.theme();
    let dim = t.dim();
    let xs: Vec<f64> = d.points.iter().map(|(x, _)| *x).collect();
    // Only points that fit are drawn: one that does not is not an answer.
    let fitting: Vec<&(f64, crate::solver::Evaluation)> =
        d.points.iter().filter(|(_, e)| e.memory.fits).collect();
    let tps: Vec<f64> = fitting.iter().map(|(_, e)| e.tokens_per_s).collect();
    let lat: Vec<f64> = fitting.iter().map(|(_, e)| e.latency_s).collect();
    let bx = log_bounds(&xs);
    let bt = log_bounds(&tps);
    let bl = log_bounds(&lat);
    let lab_t: Vec<String> = decades(bt)
        .map(|e| units::format_count(10f64.powi(e)))
        .collect();
    let lab_l: Vec<String> = decades(bl)
        .map(|e| units::format_time(10f64.powi(e)))
        .collect();
    let lw = lab_t.iter().map(|s| s.len()).max().unwrap_or(1) as u16;
    let rw = lab_l.iter().map(|s| s.len()).max().unwrap_or(1) as u16;
    if area.width < lw + rw + 12 || area.height < 5 {
        return;
    }
    let g = Rect::new(
        area.x + lw + 1,
        area.y,
        area.width - lw - rw - 2,
        area.height - 2,
    );
    let cx = |x: f64| -> u16 {
        let f = (x.log10() - bx[0]) / (bx[1] - bx[0]);
        g.x + (f * (g.width - 1) as f64)
            .round()
            .clamp(0.0, (g.width - 1) as f64) as u16
    };
    let cy = |y: f64, b: [f64; 2]| -> u16 {
        let f = (y.log10() - b[0]) / (b[1] - b[0]);
        g.y + ((1.0 - f) * (g.height - 1) as f64)
            .round()
            .clamp(0.0, (g.height - 1) as f64) as u16
    };
    // Axes.
    for y in g.y..g.bottom() {
        put(buf, area, g.x - 1, y, "│", dim);
        put(buf, area, g.right(), y, "│", dim);
    }
    for x in g.x..g.right() {
        put(buf, area, x, g.bottom(), "─", dim);
    }
    put(buf, area, g.x - 1, g.bottom(), "└", dim);
    put(buf, area, g.right(), g.bottom(), "┘", dim);
    // Value axes only when some point is drawn on them.
    let (lab_t, lab_l) = if fitting.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (lab_t, lab_l)
    };
    for (e, l) in decades(bt).zip(&lab_t) {
        let y = cy(10f64.powi(e), bt);
        put(buf, area, area.x + lw - l.len() as u16, y, l, dim);
    }
    for (e, l) in decades(bl).zip(&lab_l) {
        let y = cy(10f64.powi(e), bl);
        put(buf, area, g.right() + 1, y, l, dim);
    }
    let mut next_free = area.x;
    for (x, _) in &d.points {
        let c = cx(*x);
        put(buf, area, c, g.bottom(), "┴", dim);
        let l = units::format_count(*x);
        let lx = c.saturating_sub(l.len() as u16 / 2).max(area.x);
        if lx >= next_free {
            put(buf, area, lx, g.bottom() + 1, &l, dim);
            next_free = lx + l.len() as u16 + 1;
        }
    }
    let name = format!("{x_name} →");
    let nx = g.right() + 1;
    if nx + name.chars().count() as u16 <= area.right() {
        put(buf, area, nx, g.bottom() + 1, &name, dim);
    }
    // The crossover line.
    if let Some(c) = d.crossover
        && c >= 10f64.powf(bx[0])
        && c <= 10f64.powf(bx[1])
    {
        let x = cx(c);
        for y in g.y..g.bottom() {
            put(buf, area, x, y, "┊", t.warn());
        }
    }
    // Where fitting stops.
    let limit = d
        .max_fit
        .filter(|&m| m >= 10f64.powf(bx[0]) && m <= 10f64.powf(bx[1]))
        .map(&cx);
    fit_limit(app, d, buf, area, g, limit, x_name);
    // Points: latency first, tokens/s on top.
    for (x, e) in &fitting {
        put(
            buf,
            area,
            cx(*x),
            cy(e.latency_s, bl),
            "×",
            Style::new().fg(t.roof(1)),
        );
    }
    for (x, e) in &fitting {
        put(
            buf,
            area,
            cx(*x),
            cy(e.tokens_per_s, bt),
            &mark(e.bottleneck).to_string(),
            Style::new().fg(t.roof(0)),
        );
    }
}

fn table(app: &App, d: &SweepData, buf: &mut Buffer, area: Rect, x_name: &str) {
    let t = app.theme();
    let cols = [right(8), right(9), right(9), right(10), right(9)];
    let widths = grid::widths(&cols, area.width);
    let rate = Words::for_model(&app.catalog.models[app.model]).rate();
    let head: Vec<Line> = [x_name, "latency", rate, "bound", "intensity"]
        .into_iter()
        .map(Line::from)
        .collect();
    grid::row(buf, area, area.y, &cols, &widths, &head, Some(t.dim()));
    let room = area.height.saturating_sub(1) as usize;
    let max_row = d
        .max_fit
        .and_then(|m| d.points.iter().position(|(x, _)| *x == m));
    let first_out = d.points.iter().position(|(_, e)| !e.memory.fits);
    let must: Vec<usize> = [
        Some(0),
        max_row,
        first_out,
        d.best,
        d.points.len().checked_sub(1),
    ]
    .into_iter()
    .flatten()
    .collect();
    let shown = pick_rows(d.points.len(), room, &must);
    for (y, &i) in (area.y + 1..area.bottom()).zip(&shown) {
        let (x, e) = &d.points[i];
        let limit = Some(i) == max_row && d.points.iter().any(|(_, e)| !e.memory.fits);
        let xs = if limit {
            Line::from(Span::styled(
                format!("max {}", units::format_count(*x)),
                t.warn(),
            ))
        } else {
            Line::from(units::format_count(*x))
        };
        if e.memory.fits {
            let after = d.crossover.is_some_and(|c| *x >= c);
            let bound = Span::styled(
                e.bottleneck.name().to_string(),
                if after {
                    t.warn()
                } else {
                    Style::new().fg(t.fg)
                },
            );
            let cells = vec![
                xs,
                Line::from(units::format_time(e.latency_s)),
                Line::from(units::format_count(e.tokens_per_s)),
                Line::from(bound),
                Line::from(units::format_number(e.arithmetic_intensity)),
            ];
            grid::row(buf, area, y, &cols, &widths, &cells, None);
        } else {
            // The verdict where latency and tokens/s would be.
            let cells = vec![
                xs,
                Line::default(),
                Line::default(),
                Line::from("-"),
                Line::from(units::format_number(e.arithmetic_intensity)),
            ];
            grid::row(buf, area, y, &cols, &widths, &cells, None);
            let x0 = area.x + widths[0] + 1;
            let w = (widths[1] + 1 + widths[2]).min(area.right().saturating_sub(x0));
            let v = solver::compare::Verdict::of(e).cell(app.ascii);
            buf.set_line(
                x0 + 1,
                y,
                &Line::from(Span::styled(v, t.error())),
                w.saturating_sub(1),
            );
        }
    }
}

/// Which of `n` rows to show in `room` lines: all when they fit, else the
/// rows in `must` and others spread evenly between them, in order.
pub fn pick_rows(n: usize, room: usize, must: &[usize]) -> Vec<usize> {
    if n <= room {
        return (0..n).collect();
    }
    let mut keep: Vec<usize> = must.iter().copied().filter(|&i| i < n).collect();
    keep.sort_unstable();
    keep.dedup();
    keep.truncate(room);
    let others: Vec<usize> = (0..n).filter(|i| !keep.contains(i)).collect();
    let free = room - keep.len();
    if free > 0 && !others.is_empty() {
        let step = others.len() as f64 / free as f64;
        for k in 0..free.min(others.len()) {
            keep.push(others[(k as f64 * step) as usize]);
        }
    }
    keep.sort_unstable();
    keep.dedup();
    keep
}

#[cfg(test)]
mod tests {
    use super::pick_rows;

    #[test]
    fn the_rows_that_must_show_always_do() {
        assert_eq!(pick_rows(3, 5, &[0, 2]), vec![0, 1, 2]);
        // 12 rows in 7 lines: 0, 9 and 11 kept; 4 others out of the 9 left
        // (1..8, 10), one every 9 / 4 = 2.25: 1, 3, 5, 7.
        assert_eq!(pick_rows(12, 7, &[0, 9, 9, 11]), vec![0, 1, 3, 5, 7, 9, 11]);
        assert_eq!(pick_rows(12, 2, &[0, 9, 11]), vec![0, 9]);
        assert_eq!(pick_rows(5, 0, &[0]), Vec::<usize>::new());
    }
}
