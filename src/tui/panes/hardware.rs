//! The hardware picker: devices grouped by tier, with peak FLOP/s at the
//! chosen precision, bandwidth, memory and ridge point.

use super::{block, filter_spans, row_style, scroll_offset};
use crate::solver::units;
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table};

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
    let b = block(app, Pane::Hardware, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);

    // Rows: a header per tier, then its devices. Only the rows on screen
    // are formatted.
    enum R {
        Tier(crate::solver::Tier, usize),
        Device(usize),
    }
    let mut layout: Vec<R> = Vec::with_capacity(app.hw_visible.len() + 5);
    let mut selected_row = 0;
    for &i in &app.hw_visible {
        let tier = app.catalog.hardware[i].hw.tier;
        match layout.iter().rev().find_map(|r| match r {
            R::Tier(t, _) => Some(*t),
            _ => None,
        }) {
            Some(t) if t == tier => {}
            _ => layout.push(R::Tier(tier, 0)),
        }
        if let Some(R::Tier(_, n)) = layout.iter_mut().rev().find(|r| matches!(r, R::Tier(..))) {
            *n += 1;
        }
        if i == app.hw {
            selected_row = layout.len();
        }
        layout.push(R::Device(i));
    }
    if layout.is_empty() {
        let msg = Line::from(Span::styled(
            "no device matches the filter (Esc clears it)",
            t.warn(),
        ));
        frame.render_widget(msg, Rect { height: 1, ..inner });
        return;
    }
    // Narrow panes show prefixed counts under unit headers ("989T" under "FLOP/s").
    let narrow = inner.width < 60;
    let height = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(selected_row, layout.len(), height);
    let rows: Vec<Row> = layout[off..(off + height).min(layout.len())]
        .iter()
        .map(|r| match *r {
            R::Tier(tier, n) => Row::new(vec![Cell::from(Line::from(vec![
                Span::styled(format!("{} ", tier.name()), t.header()),
                Span::styled(format!("({n})"), t.dim()),
            ]))]),
            R::Device(i) => device_row(app, i, prec, narrow),
        })
        .collect();
    let right = |s: String| Cell::from(Line::from(s).right_aligned());
    let header = if narrow {
        Row::new(vec![
            Cell::from("  device"),
            right(format!("{} FLOP/s", prec.name())),
            right("B/s".into()),
            right("mem B".into()),
            right("ridge".into()),
        ])
    } else {
        Row::new(vec![
            Cell::from("  device"),
            Cell::from(format!("peak {}", prec.name())),
            Cell::from("bandwidth"),
            Cell::from("memory"),
            right("ridge".into()),
        ])
    }
    .style(t.dim());
    let widths = if narrow {
        [
            Constraint::Fill(1),
            Constraint::Length(11),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(5),
        ]
    } else {
        [
            Constraint::Fill(1),
            Constraint::Length(17),
            Constraint::Length(10),
            Constraint::Length(8),
            Constraint::Length(5),
        ]
    };
    let table = Table::new(rows, widths).header(header).column_spacing(1);
    frame.render_widget(table, inner);
}

fn device_row(app: &App, i: usize, prec: crate::solver::Precision, narrow: bool) -> Row<'static> {
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
    let right = |s: String| Cell::from(Line::from(s).right_aligned());
    let ridge = f.ridge.map_or("-".to_string(), units::format_number);
    let mark = match (sel, marked) {
        (true, true) => "▶●",
        (true, false) => "▶ ",
        (false, true) => " ●",
        (false, false) => "  ",
    };
    Row::new(vec![
        Cell::from(Line::from(vec![
            Span::styled(mark, t.marked()),
            Span::raw(e.hw.id.clone()),
        ])),
        if narrow {
            right(peak)
        } else {
            Cell::from(peak)
        },
        if narrow { right(bw) } else { Cell::from(bw) },
        if narrow { right(mem) } else { Cell::from(mem) },
        right(ridge),
    ])
    .style(row_style(app, Pane::Hardware, sel))
}
