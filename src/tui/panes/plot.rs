//! The roofline pane: the log-log chart (plot/chart.rs) over a legend that
//! shows each device's marks, figures and the operating points.
//!
//! The chart is drawn cell by cell, not with ratatui's Chart: each device
//! needs its own dash pattern or ASCII character, and the labels need to
//! know where everything else is.

mod chart;
pub mod labels;
pub use crate::plot::marks;
pub mod raster;
pub mod scale;

pub use chart::{
    Drawn, MIN_CHART_ROWS, MIN_GRAPH_ROWS, crowded, devices, draw_axes, draw_chart, mapper, paint,
    phase_name, selected,
};
pub use labels::Placed;
pub use scale::{Bounds, Roof, bounds, decades, roof_points};

use super::{block, stale_marker};
use crate::solver::units;
use crate::tui::app::{Analysis, App, Pane};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Most legend rows drawn under the chart.
pub const MAX_LEGEND_ROWS: u16 = 4;
/// Rows of a plot pane that keeps its minimum chart and a two-row legend.
pub const MIN_PANE_ROWS: u16 = MIN_CHART_ROWS + 2 + 2;

pub fn put(buf: &mut Buffer, area: Rect, x: u16, y: u16, text: &str, style: Style) {
    if y < area.y || y >= area.bottom() || x < area.x || x >= area.right() {
        return;
    }
    let room = (area.right() - x) as usize;
    buf.set_stringn(x, y, text, room, style);
}

/// Where the chart and the legend go inside the pane: the chart keeps
/// `MIN_CHART_ROWS`; the legend takes what it needs up to
/// `MAX_LEGEND_ROWS` of the rest.
pub fn split(inner: Rect, legend_rows: usize) -> (Rect, Rect) {
    let room = inner.height.saturating_sub(MIN_CHART_ROWS);
    let lh = (legend_rows as u16).min(MAX_LEGEND_ROWS).min(room);
    let chart = Rect {
        height: inner.height - lh,
        ..inner
    };
    let legend = Rect {
        y: chart.bottom(),
        height: lh,
        ..inner
    };
    (chart, legend)
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((an, _)) = app.shown() else {
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
    if inner.height < 6 || inner.width < 20 {
        return;
    }
    let legend = legend_lines(app, an, inner);
    let (chart_area, legend_area) = split(inner, legend.len());
    super::lines(frame.buffer_mut(), legend_area, &legend);
    draw_chart(app, an, frame, chart_area);
}

/// The chart's area in a plot pane drawn at `pane`.
pub fn chart_area(app: &App, an: &Analysis, pane: Rect) -> Rect {
    let inner = block(app, Pane::Plot, vec![]).inner(pane);
    split(inner, legend_lines(app, an, inner).len()).0
}

/// The legend packed into the pane's width: the full one if it fits in
/// the rows the chart leaves, else the brief one.
pub fn legend_lines(app: &App, an: &Analysis, inner: Rect) -> Vec<Line<'static>> {
    let room = inner
        .height
        .saturating_sub(MIN_CHART_ROWS)
        .min(MAX_LEGEND_ROWS) as usize;
    let w = inner.width as usize;
    let full = pack(legend(app, an, false), w);
    if full.len() <= room {
        return full;
    }
    pack(legend(app, an, true), w)
}

/// A device's cell in a table beside a plot: its marks, then its id, so
/// the row reads as the plot's legend.
pub fn device_cell(app: &App, place: usize, id: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(
            format!("{} ", marks::legend_symbol(place, app.ascii)),
            Style::new().fg(app.theme().roof(place)),
        ),
        Span::raw(id.to_string()),
    ])
}

/// A legend item: a symbol and its text, kept on one line.
type Item = Vec<Span<'static>>;

/// Lay items out in lines of at most `width`, each group on new lines.
fn pack(groups: Vec<Vec<Item>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for items in groups {
        let mut cur: Vec<Span> = Vec::new();
        let mut used = 0;
        for item in items {
            let w: usize = item.iter().map(|s| s.width()).sum();
            if used > 0 && used + 2 + w > width {
                out.push(Line::from(std::mem::take(&mut cur)));
                used = 0;
            }
            if used > 0 {
                cur.push(Span::raw("  "));
                used += 2;
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

/// What each roof and point is: the devices with their marks (the
/// selected one with its figures), the effective roof, the points and the
/// ridge. `brief` keeps only names and the key figures.
fn legend(app: &App, an: &Analysis, brief: bool) -> Vec<Vec<Item>> {
    let devs = devices(app, an);
    let sel = selected(app, an, &devs);
    let roofs = roof_items(app, an, &devs, sel, brief);
    match sel {
        Some(s) => vec![roofs, point_items(app, an, &devs[s], brief)],
        None => vec![roofs],
    }
}

/// Each device's marks and name (figures when not brief), then the
/// effective roof's.
fn roof_items(
    app: &App,
    an: &Analysis,
    devs: &[chart::Device],
    sel: Option<usize>,
    brief: bool,
) -> Vec<Item> {
    let t = app.theme();
    let a = &an.assumptions;
    let fg = Style::new().fg(t.fg);
    let short = marks::short_ids(&devs.iter().map(|d| d.id).collect::<Vec<_>>());
    let mut roofs: Vec<Item> = Vec::new();
    for (i, d) in devs.iter().enumerate() {
        let sym = Span::styled(
            format!("{} ", marks::legend_symbol(d.place, app.ascii)),
            Style::new()
                .fg(t.roof(d.place))
                .add_modifier(Modifier::BOLD),
        );
        let text = match (Some(i) == sel, brief) {
            (true, false) => format!(
                "{} {} · {}",
                d.id,
                units::format_flops(d.roof.peak),
                units::format_bandwidth(d.roof.bandwidth)
            ),
            (false, false) => format!(
                "{} ridge {}",
                d.id,
                units::format_number(d.eval.ridge_point)
            ),
            (_, true) if devs.len() > 1 => short[i].clone(),
            (_, true) => d.id.to_string(),
        };
        roofs.push(vec![sym, Span::styled(text, fg)]);
    }
    for c in an.compare.iter().filter(|c| c.result.is_err()) {
        let id = &app.catalog.hardware[c.hw].hw.id;
        roofs.push(vec![Span::styled(format!("{id} (no result)"), t.warn())]);
    }
    let sym = if app.ascii {
        format!("{0}{0}{0} ", marks::EFFECTIVE.ascii)
    } else {
        format!("{} ", marks::sample(marks::EFFECTIVE.dash, 3))
    };
    let pct = |x: f64| units::format_number(x * 100.0);
    let (c, m) = (pct(a.compute_efficiency), pct(a.memory_efficiency));
    let text = match (brief, c == m) {
        (true, true) => format!("{c}%"),
        (true, false) => format!("{c}%/{m}%"),
        (false, _) => format!("effective {c}%/{m}%"),
    };
    roofs.push(vec![
        Span::styled(sym, Style::new().fg(t.effective_roof)),
        Span::styled(text, fg),
    ]);
    roofs
}

/// The selected device's operating points (and the other phase's) with
/// their figures, and its ridge.
fn point_items(app: &App, an: &Analysis, s: &chart::Device, brief: bool) -> Vec<Item> {
    let t = app.theme();
    let fg = Style::new().fg(t.fg);
    let (main, other) = if app.ascii {
        (marks::device(s.place).point, marks::ASCII_OTHER_POINT)
    } else {
        (marks::device(s.place).glyph, marks::OTHER_POINT)
    };
    let point = |e: &crate::solver::Evaluation| {
        let name = phase_name(app, an, e);
        if brief {
            format!("{name} {}", units::format_count(e.achieved_flops()))
        } else {
            format!(
                "{name} {} FLOP/B, {}",
                units::format_number(e.arithmetic_intensity),
                units::format_flops(e.achieved_flops())
            )
        }
    };
    let mut points: Vec<Item> = vec![match (s.point, s.on()) {
        (Some(p), None) => vec![
            Span::styled(format!("{main} "), Style::new().fg(t.op_point)),
            Span::styled(point(p), fg),
        ],
        (Some(p), Some(n)) => vec![
            Span::styled(format!("{main} "), Style::new().fg(t.op_point)),
            Span::styled(format!("on {n}: {}", point(p)), fg),
        ],
        (None, _) => vec![Span::styled(
            format!(
                "{} {}: no layout holds it",
                crate::solver::compare::Verdict::cross(app.ascii),
                phase_name(app, an, s.eval)
            ),
            t.error(),
        )],
    }];
    if let Some(o) = an.other_phase.as_ref().filter(|o| o.memory.fits)
        && s.hw == an.hw
    {
        points.push(vec![
            Span::styled(format!("{other} "), Style::new().fg(t.alt_point)),
            Span::styled(point(o), fg),
        ]);
    }
    let ridge = units::format_number(s.eval.ridge_point);
    let eff = units::format_number(s.eval.effective_ridge_point);
    let ridge = if brief {
        format!("ridge {ridge}")
    } else if eff == ridge {
        format!("ridge {ridge} FLOP/B")
    } else {
        format!("ridge {ridge} (effective {eff}) FLOP/B")
    };
    points.push(vec![Span::styled(ridge, fg)]);
    points
}
