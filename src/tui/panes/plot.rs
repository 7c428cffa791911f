//! The log-log roofline. ratatui's Chart has linear axes, so the datasets
//! are log10 values; the Chart draws the curves into the graph area, and this
//! pane draws the axes, decade labels and point labels itself, at the same
//! positions the Chart's canvas maps values to.

use super::{block, stale_marker};
use crate::solver::units;
use crate::tui::app::{Analysis, App, Pane};
use crate::words::Words;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Chart, Dataset, GraphType, Paragraph};

/// A roof: peak FLOP/s and memory bandwidth (byte/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roof {
    pub peak: f64,
    pub bandwidth: f64,
}

/// Log10 bounds of the plot: whole decades.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub x: [f64; 2],
    pub y: [f64; 2],
}

/// Whole-decade bounds around the given intensities (x, FLOP/byte) and
/// rates (y, FLOP/s), with some room on each side.
pub fn bounds(xs: &[f64], ys: &[f64], peaks: &[f64]) -> Bounds {
    let logs = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .map(f64::log10)
            .collect()
    };
    let lx = logs(xs);
    let ly = logs(ys);
    let lp = logs(peaks);
    let min = |v: &[f64], d: f64| v.iter().copied().fold(f64::INFINITY, f64::min).min(d);
    let max = |v: &[f64], d: f64| v.iter().copied().fold(f64::NEG_INFINITY, f64::max).max(d);
    let (xmin, xmax) = if lx.is_empty() {
        (0.0, 2.0)
    } else {
        (min(&lx, f64::INFINITY), max(&lx, f64::NEG_INFINITY))
    };
    let mut x0 = (xmin - 0.3).floor();
    let mut x1 = (xmax + 0.3).ceil();
    while x1 - x0 < 3.0 {
        x0 -= 1.0;
        if x1 - x0 < 3.0 {
            x1 += 1.0;
        }
    }
    let ptop = if lp.is_empty() {
        max(&ly, 12.0)
    } else {
        max(&lp, f64::NEG_INFINITY)
    };
    let y1 = (ptop + 1e-3).ceil();
    let ylow = min(&ly, ptop - 2.0).min(min(&lp, f64::INFINITY) - 2.0);
    let mut y0 = (ylow - 0.3).floor().max(y1 - 9.0);
    if y1 - y0 < 3.0 {
        y0 = y1 - 3.0;
    }
    Bounds {
        x: [x0.max(-6.0), x1.min(9.0)],
        y: [y0, y1],
    }
}

/// The roof as log10 points clipped to the bounds: the memory slope up to
/// the ridge, then the compute ceiling.
pub fn roof_points(r: Roof, b: Bounds) -> Vec<(f64, f64)> {
    let (lp, lb) = (r.peak.log10(), r.bandwidth.log10());
    let ridge = lp - lb;
    let mut pts = Vec::new();
    // Slope: y = lb + x, from where it enters the box.
    let x_start = b.x[0].max(b.y[0] - lb);
    if x_start < ridge.min(b.x[1]) {
        pts.push((x_start, lb + x_start));
    }
    if ridge <= b.x[1] {
        pts.push((ridge.max(b.x[0]), lp.min(lb + ridge.max(b.x[0]))));
        pts.push((b.x[1], lp));
    } else {
        pts.push((b.x[1], lb + b.x[1]));
    }
    pts.retain(|(_, y)| *y >= b.y[0] - 1e-9 && *y <= b.y[1] + 1e-9);
    pts
}

/// Points every `step` along a roof, for a dotted line.
fn dotted(points: &[(f64, f64)], step: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let n = (len / step).ceil().max(1.0) as usize;
        for i in 0..n {
            let t = i as f64 / n as f64;
            out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
        }
    }
    out.extend(points.last());
    out
}

/// The screen cell a value lands in, as the Chart's canvas maps it.
struct Mapper {
    area: Rect,
    b: Bounds,
    /// Dots per cell (Braille 2x4, Dot 1x1).
    dpc: (f64, f64),
}

impl Mapper {
    fn cell(&self, x: f64, y: f64) -> Option<(u16, u16)> {
        let [x0, x1] = self.b.x;
        let [y0, y1] = self.b.y;
        if !(x0..=x1).contains(&x) || !(y0..=y1).contains(&y) {
            return None;
        }
        let rx = self.area.width as f64 * self.dpc.0;
        let ry = self.area.height as f64 * self.dpc.1;
        let dx = ((x - x0) * (rx - 1.0) / (x1 - x0)).round();
        let dy = ((y1 - y) * (ry - 1.0) / (y1 - y0)).round();
        Some((
            self.area.x + (dx / self.dpc.0) as u16,
            self.area.y + (dy / self.dpc.1) as u16,
        ))
    }
}

pub fn put(buf: &mut Buffer, area: Rect, x: u16, y: u16, text: &str, style: Style) {
    if y < area.y || y >= area.bottom() || x >= area.right() {
        return;
    }
    let room = (area.right() - x) as usize;
    buf.set_stringn(x, y, text, room, style);
}

/// A label beside a point: to the right if it fits, else to the left.
fn label_at(buf: &mut Buffer, graph: Rect, (cx, cy): (u16, u16), text: &str, style: Style) {
    let w = text.chars().count() as u16;
    let x = if cx + 2 + w <= graph.right() {
        cx + 2
    } else {
        cx.saturating_sub(w + 1).max(graph.x)
    };
    put(buf, graph, x, cy, text, style);
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((an, stale)) = app.shown() else {
        let b = block(app, Pane::Plot, vec![]);
        let inner = b.inner(area);
        frame.render_widget(b, area);
        frame.render_widget(
            Paragraph::new(Span::styled("nothing to plot", t.warn())),
            inner,
        );
        return;
    };
    let mut extra = stale_marker(app);
    extra.push(Span::styled(
        format!("{} · log-log ", an.eval().compute_precision.name()),
        t.dim(),
    ));
    let b = block(app, Pane::Plot, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let _ = stale;
    if inner.height < 6 || inner.width < 20 {
        return;
    }
    let legend = pack(legend(app, an), inner.width as usize);
    let legend_h = (legend.len() as u16).min(4);
    let [chart_area, legend_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(legend_h)]).areas(inner);
    super::lines(frame.buffer_mut(), legend_area, &legend);
    draw_chart(app, an, frame, chart_area);
}

/// Roof of every device on the plot: (catalog index, roof), selected first.
fn roofs(app: &App, an: &Analysis) -> Vec<(usize, Roof)> {
    an.compare
        .iter()
        .filter_map(|c| {
            let s = c.result.as_ref().ok()?;
            Some((
                c.hw,
                Roof {
                    peak: s.base.peak_flops,
                    bandwidth: app.catalog.hardware[c.hw].hw.memory_bandwidth,
                },
            ))
        })
        .collect()
}

/// Points, style, marker and line-or-scatter of one dataset.
type Series = (Vec<(f64, f64)>, Style, Marker, GraphType);

fn achieved(e: &crate::solver::Evaluation) -> f64 {
    e.achieved_flops()
}

pub fn draw_chart(app: &App, an: &Analysis, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let ev = an.eval();
    let a = &an.assumptions;
    let roofs = roofs(app, an);
    let mut xs = vec![ev.arithmetic_intensity];
    let mut ys = vec![achieved(ev)];
    if let Some(o) = &an.other_phase {
        xs.push(o.arithmetic_intensity);
        ys.push(achieved(o));
    }
    let mut peaks = Vec::new();
    for (_, r) in &roofs {
        xs.push(r.peak / r.bandwidth);
        peaks.push(r.peak);
        ys.push(r.peak * a.compute_efficiency);
    }
    let b = bounds(&xs, &ys, &peaks);
    let ylabels: Vec<String> = decades(b.y)
        .map(|d| units::format_count(10f64.powi(d)))
        .collect();
    let yw = ylabels.iter().map(|s| s.len()).max().unwrap_or(1) as u16;
    // [y labels][axis][graph] over [graph][axis][x labels]
    let graph = Rect::new(
        area.x + yw + 1,
        area.y,
        area.width.saturating_sub(yw + 1),
        area.height.saturating_sub(2),
    );
    if graph.width < 8 || graph.height < 3 {
        return;
    }
    let braille = !app.ascii;
    let line_marker = if braille {
        Marker::Braille
    } else {
        Marker::Dot
    };
    let map = Mapper {
        area: graph,
        b,
        dpc: if braille { (2.0, 4.0) } else { (1.0, 1.0) },
    };

    // Data, in log10.
    let lg = |x: f64| x.log10();
    let mut owned: Vec<Series> = Vec::new();
    let step = (b.x[1] - b.x[0]) / graph.width as f64 * 2.0;
    for (i, (_, r)) in roofs.iter().enumerate().skip(1).rev() {
        owned.push((
            roof_points(*r, b),
            Style::new().fg(t.roof(i)),
            line_marker,
            GraphType::Line,
        ));
    }
    if let Some((_, r)) = roofs.first() {
        let eff = Roof {
            peak: r.peak * a.compute_efficiency,
            bandwidth: r.bandwidth * a.memory_efficiency,
        };
        owned.push((
            dotted(&roof_points(eff, b), step),
            Style::new().fg(t.effective_roof),
            line_marker,
            GraphType::Scatter,
        ));
        owned.push((
            roof_points(*r, b),
            Style::new().fg(t.roof(0)),
            line_marker,
            GraphType::Line,
        ));
    }
    let datasets: Vec<Dataset> = owned
        .iter()
        .map(|(pts, style, marker, gt)| {
            Dataset::default()
                .data(pts)
                .style(*style)
                .marker(*marker)
                .graph_type(*gt)
        })
        .collect();
    let chart = Chart::new(datasets)
        .x_axis(ratatui::widgets::Axis::default().bounds(b.x))
        .y_axis(ratatui::widgets::Axis::default().bounds(b.y))
        .hidden_legend_constraints((Constraint::Length(0), Constraint::Length(0)))
        .legend_position(None);
    frame.render_widget(chart, graph);

    // Axes, ticks and decade labels.
    let buf = frame.buffer_mut();
    let dim = t.dim();
    let axis_x = graph.x - 1;
    let axis_y = graph.bottom();
    for y in graph.y..graph.bottom() {
        put(buf, area, axis_x, y, "│", dim);
    }
    for x in graph.x..graph.right() {
        put(buf, area, x, axis_y, "─", dim);
    }
    put(buf, area, axis_x, axis_y, "└", dim);
    for (d, label) in decades(b.y).zip(&ylabels) {
        if let Some((_, cy)) = map.cell(b.x[0], d as f64) {
            put(buf, area, axis_x, cy, "┤", dim);
            let x = area.x + yw - label.len() as u16;
            put(buf, area, x, cy, label, dim);
        }
    }
    let mut next_free = area.x;
    for d in decades(b.x) {
        if let Some((cx, _)) = map.cell(d as f64, b.y[0]) {
            put(buf, area, cx, axis_y, "┴", dim);
            let label = units::format_count(10f64.powi(d));
            let w = label.len() as u16;
            let x = cx
                .saturating_sub(w / 2)
                .min(area.right().saturating_sub(w))
                .max(area.x);
            if x >= next_free {
                put(buf, area, x, axis_y + 1, &label, dim);
                next_free = x + w + 1;
            }
        }
    }
    put(buf, graph, graph.x + 1, graph.y, "FLOP/s", dim);
    let xt = "FLOP/byte";
    put(
        buf,
        graph,
        graph.right().saturating_sub(xt.len() as u16 + 1),
        graph.bottom() - 1,
        xt,
        dim,
    );

    // The ridge (a dotted column) and the operating points are drawn here,
    // not as Chart datasets: each dataset is a full canvas layer, and these
    // need one cell each.
    let blank = |buf: &Buffer, x: u16, y: u16| buf[(x, y)].symbol() == " ";
    if let Some((_, r)) = roofs.first() {
        let ridge = lg(r.peak / r.bandwidth);
        if let (Some((cx, top)), Some((_, bottom))) =
            (map.cell(ridge, lg(r.peak)), map.cell(ridge, b.y[0]))
        {
            for y in (top + 1)..=bottom {
                if blank(buf, cx, y) {
                    put(buf, graph, cx, y, "┊", Style::new().fg(t.ridge));
                }
            }
        }
    }
    for c in an.compare.iter().skip(1) {
        if let Ok(s) = &c.result
            && let Some((x, y)) = map.cell(lg(s.base.arithmetic_intensity), lg(achieved(&s.base)))
        {
            let i = roofs.iter().position(|(h, _)| *h == c.hw).unwrap_or(0);
            put(buf, graph, x, y, "●", Style::new().fg(t.roof(i)));
        }
    }
    if let Some(o) = &an.other_phase
        && let Some((x, y)) = map.cell(lg(o.arithmetic_intensity), lg(achieved(o)))
    {
        put(
            buf,
            graph,
            x,
            y,
            "○",
            Style::new().fg(t.alt_point).add_modifier(Modifier::BOLD),
        );
    }
    if let Some((x, y)) = map.cell(lg(ev.arithmetic_intensity), lg(achieved(ev))) {
        put(
            buf,
            graph,
            x,
            y,
            "●",
            Style::new().fg(t.op_point).add_modifier(Modifier::BOLD),
        );
    }

    // Labels: the ridge and the operating points.
    if let Some((_, r)) = roofs.first() {
        let ridge = r.peak / r.bandwidth;
        if let Some(c) = map.cell(lg(ridge), b.y[0]) {
            let text = format!("ridge {}", units::format_number(ev.ridge_point));
            label_at(
                buf,
                graph,
                (c.0, c.1.saturating_sub(2)),
                &text,
                Style::new().fg(t.ridge).add_modifier(Modifier::BOLD),
            );
        }
    }
    if let Some(o) = &an.other_phase
        && let Some(c) = map.cell(lg(o.arithmetic_intensity), lg(achieved(o)))
    {
        label_at(buf, graph, c, o.phase.name(), Style::new().fg(t.alt_point));
    }
    if let Some(c) = map.cell(lg(ev.arithmetic_intensity), lg(achieved(ev))) {
        let name = Words::for_model(&app.catalog.models[an.model]).step(ev.phase);
        label_at(buf, graph, c, name, t.accent());
    }
}

pub fn decades(r: [f64; 2]) -> impl Iterator<Item = i32> {
    (r[0].round() as i32)..=(r[1].round() as i32)
}

/// Wrap legend lines at item boundaries: a short symbol span ("━ ") stays
/// with the text after it.
fn pack(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for line in lines {
        let mut items: Vec<Vec<Span>> = Vec::new();
        let mut pending: Vec<Span> = Vec::new();
        for span in line.spans {
            let symbol = span.width() <= 2;
            pending.push(span);
            if !symbol {
                items.push(std::mem::take(&mut pending));
            }
        }
        if !pending.is_empty() {
            items.push(pending);
        }
        let mut cur: Vec<Span> = Vec::new();
        let mut used = 0;
        for item in items {
            let w: usize = item.iter().map(|s| s.width()).sum();
            if used > 0 && used + w > width {
                out.push(Line::from(std::mem::take(&mut cur)));
                used = 0;
            }
            used += w;
            cur.extend(item);
        }
        if !cur.is_empty() {
            out.push(Line::from(cur));
        }
    }
    out
}

/// What each line and point is, with its figures.
fn legend(app: &App, an: &Analysis) -> Vec<Line<'static>> {
    let t = app.theme();
    let ev = an.eval();
    let a = &an.assumptions;
    let mut roof_line = Vec::new();
    for (i, c) in an.compare.iter().enumerate() {
        let hw = &app.catalog.hardware[c.hw].hw;
        let style = Style::new().fg(t.roof(i)).add_modifier(Modifier::BOLD);
        match &c.result {
            Ok(s) if i == 0 => {
                roof_line.push(Span::styled("━ ", style));
                roof_line.push(Span::styled(
                    format!(
                        "{} {} · {}  ",
                        hw.id,
                        units::format_flops(s.base.peak_flops),
                        units::format_bandwidth(hw.memory_bandwidth)
                    ),
                    Style::new().fg(t.fg),
                ));
                roof_line.push(Span::styled("┄ ", Style::new().fg(t.effective_roof)));
                roof_line.push(Span::styled(
                    format!(
                        "effective {}%/{}%  ",
                        units::format_number(a.compute_efficiency * 100.0),
                        units::format_number(a.memory_efficiency * 100.0)
                    ),
                    Style::new().fg(t.fg),
                ));
            }
            Ok(_) => {
                roof_line.push(Span::styled("━ ", style));
                roof_line.push(Span::styled(format!("{}  ", hw.id), Style::new().fg(t.fg)));
            }
            Err(_) => roof_line.push(Span::styled(format!("{} (no result)  ", hw.id), t.warn())),
        }
    }
    let mut points = vec![
        Span::styled("● ", Style::new().fg(t.op_point)),
        Span::styled(
            format!(
                "{} {} FLOP/B, {}  ",
                Words::for_model(&app.catalog.models[an.model]).step(ev.phase),
                units::format_number(ev.arithmetic_intensity),
                units::format_flops(achieved(ev))
            ),
            Style::new().fg(t.fg),
        ),
    ];
    if let Some(o) = &an.other_phase {
        points.push(Span::styled("○ ", Style::new().fg(t.alt_point)));
        points.push(Span::styled(
            format!(
                "{} {} FLOP/B, {}  ",
                o.phase.name(),
                units::format_number(o.arithmetic_intensity),
                units::format_flops(achieved(o))
            ),
            Style::new().fg(t.fg),
        ));
    }
    let ridge = units::format_number(ev.ridge_point);
    let eff = units::format_number(ev.effective_ridge_point);
    let ridge = if eff == ridge {
        format!("ridge {ridge} FLOP/B")
    } else {
        format!("ridge {ridge} (effective {eff}) FLOP/B")
    };
    points.push(Span::styled(ridge, Style::new().fg(t.fg)));
    vec![Line::from(roof_line), Line::from(points)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_hold_points_and_ridge_in_whole_decades() {
        // H100-like: 989 TFLOP/s, 3.35 TB/s, ridge 295; decode at 1 FLOP/B.
        let b = bounds(&[1.0, 295.0], &[2e12], &[989e12]);
        assert_eq!(b.x, [-1.0, 3.0]);
        assert_eq!(b.y[1], 15.0);
        assert!(b.y[0] <= 12.0_f64.floor());
        assert!(b.y[1] - b.y[0] <= 9.0);
    }

    #[test]
    fn roof_has_slope_ridge_and_ceiling() {
        let b = Bounds {
            x: [-1.0, 3.0],
            y: [10.0, 15.0],
        };
        let r = Roof {
            peak: 1e15,
            bandwidth: 1e13,
        };
        let p = roof_points(r, b);
        assert_eq!(p.len(), 3);
        assert!((p[0].0 - (-1.0)).abs() < 1e-12 && (p[0].1 - 12.0).abs() < 1e-12);
        assert!((p[1].0 - 2.0).abs() < 1e-12 && (p[1].1 - 15.0).abs() < 1e-12);
        assert_eq!(p[2], (3.0, 15.0));
    }

    #[test]
    fn roof_is_clipped_at_the_floor() {
        let b = Bounds {
            x: [-1.0, 3.0],
            y: [13.0, 15.0],
        };
        let r = Roof {
            peak: 1e15,
            bandwidth: 1e13,
        };
        let p = roof_points(r, b);
        assert!(
            (p[0].0 - 0.0).abs() < 1e-12 && (p[0].1 - 13.0).abs() < 1e-12,
            "{p:?}"
        );
    }
}
