//! The hardware picker: devices grouped by tier, with peak FLOP/s at the
//! chosen precision, bandwidth, memory and ridge point.

use super::grid::{self, Col, fill, left, right};
use super::{block, filter_spans, row_style, scroll_offset};
use crate::catalog::LOCAL_ORIGIN;
use crate::solver::{Precision, Tier, units};
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// A row of the list: a header with its count (a tier, or None for the
/// machine the workbench runs on), or a device.
enum Row {
    Tier(Option<Tier>, usize),
    Device(usize),
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let total = app.catalog.hardware.len();
    let prec = app.workload.activations;
    let mut extra = filter_spans(app, Pane::Hardware, app.hw_visible.len(), total);
    if !app.marked.is_empty() {
        extra.push(Span::styled(
            format!("{} marked ", app.marked.len()),
            t.marked(),
        ));
    }
    let user = app
        .catalog
        .hardware
        .iter()
        .any(|e| user_entry(app, &e.origin));
    if user {
        extra.push(Span::styled("· * your own ", t.dim()));
    }
    let mut b = block(app, Pane::Hardware, extra);
    if let Some(hint) = crate::tui::form::hint(app, Pane::Hardware, area.width) {
        b = b.title_bottom(hint);
    }
    let inner = b.inner(area);
    frame.render_widget(b, area);

    let mut rows: Vec<Row> = Vec::with_capacity(app.hw_visible.len() + 5);
    let mut selected_row = 0;
    let mut header = 0;
    for &i in &app.hw_visible {
        let e = &app.catalog.hardware[i];
        let tier = (e.origin != LOCAL_ORIGIN).then_some(e.hw.tier);
        if !matches!(rows.get(header), Some(Row::Tier(t, _)) if *t == tier) {
            header = rows.len();
            rows.push(Row::Tier(tier, 0));
        }
        if let Some(Row::Tier(_, n)) = rows.get_mut(header) {
            *n += 1;
        }
        if i == app.hw {
            selected_row = rows.len();
        }
        rows.push(Row::Device(i));
    }
    let buf = frame.buffer_mut();
    if rows.is_empty() {
        let msg = Line::from(Span::styled(
            "no device matches the filter (Esc clears it)",
            t.warn(),
        ));
        grid::wide(buf, inner, inner.y, &msg);
        return;
    }
    // Narrow panes show prefixed counts under unit headers ("989T" under "FLOP/s").
    let narrow = inner.width < 60;
    let cols: [Col; 5] = if narrow {
        [fill(), right(11), right(5), right(5), right(5)]
    } else {
        [fill(), left(17), left(10), left(8), right(5)]
    };
    // A device id shows whole before its figures do (the longest are ~16).
    let cols = grid::keep(&cols, inner.width, 18);
    let widths = grid::widths(cols, inner.width);
    let head: Vec<Line> = if narrow {
        vec![
            "  device".into(),
            format!("{} FLOP/s", prec.name()).into(),
            "B/s".into(),
            "mem B".into(),
            "ridge".into(),
        ]
    } else {
        vec![
            "  device".into(),
            format!("peak {}", prec.name()).into(),
            "bandwidth".into(),
            "memory".into(),
            "ridge".into(),
        ]
    };
    grid::row(buf, inner, inner.y, cols, &widths, &head, Some(t.dim()));
    let height = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(selected_row, rows.len(), height);
    for (k, r) in rows.iter().skip(off).take(height).enumerate() {
        let y = inner.y + 1 + k as u16;
        match *r {
            Row::Tier(tier, n) => {
                let name = tier.map_or("this machine", |t| t.name());
                let line = Line::from(vec![
                    Span::styled(format!("{name} "), t.header()),
                    Span::styled(format!("({n})"), t.dim()),
                ]);
                grid::wide(buf, inner, y, &line);
            }
            Row::Device(i) => {
                let cells = device_cells(app, i, prec, narrow);
                let style = (i == app.hw).then(|| row_style(app, Pane::Hardware, true));
                grid::row(buf, inner, y, cols, &widths, &cells, style);
            }
        }
    }
}

/// True for an entry of the user's own catalog (marked `*`).
fn user_entry(app: &App, origin: &str) -> bool {
    crate::tui::form::is_user(origin, app.catalog_dir.as_deref())
}

fn device_cells(app: &App, i: usize, prec: Precision, narrow: bool) -> Vec<Line<'static>> {
    let t = app.theme();
    let e = &app.catalog.hardware[i];
    let sel = i == app.hw;
    let marked = app.marked.contains(&i);
    let f = &app.hw_figures[i];
    let peak = match (f.peak, narrow) {
        (Some((p, v)), false) if p != prec => format!("{} {}", units::format_flops(v), p.name()),
        (Some((_, v)), false) => units::format_flops(v),
        (Some((p, v)), true) if p != prec => format!("{} {}", p.name(), units::format_count(v)),
        (Some((_, v)), true) => units::format_count(v),
        (None, _) => "-".to_string(),
    };
    let (bw, mem) = if narrow {
        (
            units::format_count(e.hw.memory_bandwidth),
            units::format_count(e.hw.memory_bytes),
        )
    } else {
        (
            units::format_bandwidth(e.hw.memory_bandwidth),
            units::format_bytes(e.hw.memory_bytes),
        )
    };
    let ridge = f.ridge.map_or("-".to_string(), units::format_number);
    let mark = match (sel, marked) {
        (true, true) => "▶●",
        (true, false) => "▶ ",
        (false, true) => " ●",
        (false, false) => "  ",
    };
    let mut id = vec![Span::styled(mark, t.marked()), Span::raw(e.hw.id.clone())];
    // The detected machine shows what `local` resolved to.
    if e.origin == LOCAL_ORIGIN
        && let Some(target) = e.aliases.first()
    {
        let arrow = if app.ascii { " -> " } else { " → " };
        id.push(Span::styled(format!("{arrow}{target}"), t.dim()));
    }
    if user_entry(app, &e.origin) {
        id.push(Span::styled(" *", t.accent()));
    }
    vec![
        Line::from(id),
        peak.into(),
        bw.into(),
        mem.into(),
        ridge.into(),
    ]
}
