//! The model picker: models grouped by family, with parameters, layers and
//! KV cache bytes per token at the chosen KV precision.

use super::{block, filter_spans, params, row_style, scroll_offset};
use crate::solver::{Arch, units};
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let total = app.catalog.models.len();
    let extra = filter_spans(app, Pane::Models, app.model_visible.len(), total);
    let b = block(app, Pane::Models, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);

    // Rows: a header per family, then its models; only those on screen
    // are formatted.
    let mut layout: Vec<(bool, usize)> = Vec::with_capacity(app.model_visible.len() + 12);
    let mut selected_row = 0;
    let mut last_family: Option<&str> = None;
    for &i in &app.model_visible {
        let e = &app.catalog.models[i];
        if last_family != Some(e.family.as_str()) {
            last_family = Some(&e.family);
            layout.push((true, i));
        }
        if i == app.model {
            selected_row = layout.len();
        }
        layout.push((false, i));
    }
    if layout.is_empty() {
        let msg = Line::from(Span::styled(
            "no model matches the filter (Esc clears it)",
            t.warn(),
        ));
        frame.render_widget(msg, Rect { height: 1, ..inner });
        return;
    }
    let height = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(selected_row, layout.len(), height);
    let rows: Vec<Row> = layout[off..(off + height).min(layout.len())]
        .iter()
        .map(|&(is_header, i)| {
            let e = &app.catalog.models[i];
            if is_header {
                return Row::new(vec![Cell::from(Span::styled(e.family.clone(), t.header()))]);
            }
            let sel = i == app.model;
            let layers = match &e.model.arch {
                Arch::Decoder(d) => d.layers.to_string(),
                Arch::SinglePass(_) => "-".to_string(),
            };
            let kv = app.model_kv[i].map_or("-".to_string(), units::format_bytes);
            Row::new(vec![
                Cell::from(format!("{} {}", if sel { "▶" } else { " " }, e.model.id)),
                Cell::from(Line::from(params(e.model.params)).right_aligned()),
                Cell::from(Line::from(layers).right_aligned()),
                Cell::from(Line::from(kv).right_aligned()),
            ])
            .style(row_style(app, Pane::Models, sel))
        })
        .collect();
    let narrow = inner.width < 50;
    let right = |s: String| Cell::from(Line::from(s).right_aligned());
    let kv = if narrow {
        "KV/tok".to_string()
    } else {
        format!("KV/tok {}", app.workload.kv.name())
    };
    let header = Row::new(vec![
        Cell::from("  model"),
        right("params".into()),
        right(if narrow { "lyr" } else { "layers" }.into()),
        right(kv),
    ])
    .style(t.dim());
    let (lw, kw) = if narrow { (3, 7) } else { (6, 11) };
    let table = Table::new(
        rows,
        [
            Constraint::Fill(1),
            Constraint::Length(6),
            Constraint::Length(lw),
            Constraint::Length(kw),
        ],
    )
    .header(header)
    .column_spacing(1);
    frame.render_widget(table, inner);
}
