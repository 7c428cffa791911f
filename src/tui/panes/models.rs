//! The model picker: models grouped by family, with parameters, layers and
//! KV cache bytes per token at the chosen KV precision.

use super::grid::{self, Col, fill, right};
use super::{block, filter_spans, params, row_style, scroll_offset};
use crate::solver::{Arch, units};
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let total = app.catalog.models.len();
    let extra = filter_spans(app, Pane::Models, app.model_visible.len(), total);
    let b = block(app, Pane::Models, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);

    // (is a family header, model index)
    let mut rows: Vec<(bool, usize)> = Vec::with_capacity(app.model_visible.len() + 12);
    let mut selected_row = 0;
    let mut last_family: Option<&str> = None;
    for &i in &app.model_visible {
        let e = &app.catalog.models[i];
        if last_family != Some(e.family.as_str()) {
            last_family = Some(&e.family);
            rows.push((true, i));
        }
        if i == app.model {
            selected_row = rows.len();
        }
        rows.push((false, i));
    }
    let buf = frame.buffer_mut();
    if rows.is_empty() {
        let msg = Line::from(Span::styled(
            "no model matches the filter (Esc clears it)",
            t.warn(),
        ));
        grid::wide(buf, inner, inner.y, &msg);
        return;
    }
    let narrow = inner.width < 50;
    let cols: [Col; 4] = if narrow {
        [fill(), right(6), right(3), right(7)]
    } else {
        [fill(), right(6), right(6), right(11)]
    };
    // A model id shows whole before its figures do (the longest are ~15).
    let cols = grid::keep(&cols, inner.width, 16);
    let widths = grid::widths(cols, inner.width);
    let kv = if narrow {
        "KV/tok".to_string()
    } else {
        format!("KV/tok {}", app.workload.kv.name())
    };
    let head: Vec<Line> = vec![
        "  model".into(),
        "params".into(),
        if narrow { "lyr" } else { "layers" }.into(),
        kv.into(),
    ];
    grid::row(buf, inner, inner.y, cols, &widths, &head, Some(t.dim()));
    let height = inner.height.saturating_sub(1) as usize;
    let off = scroll_offset(selected_row, rows.len(), height);
    for (k, &(is_header, i)) in rows.iter().skip(off).take(height).enumerate() {
        let y = inner.y + 1 + k as u16;
        let e = &app.catalog.models[i];
        if is_header {
            grid::wide(
                buf,
                inner,
                y,
                &Line::from(Span::styled(e.family.clone(), t.header())),
            );
            continue;
        }
        let sel = i == app.model;
        let layers = match &e.model.arch {
            Arch::Decoder(d) => d.layers.to_string(),
            Arch::SinglePass(_) => "-".to_string(),
        };
        let kv = app.model_kv[i].map_or("-".to_string(), units::format_bytes);
        let cells: Vec<Line> = vec![
            format!("{} {}", if sel { "▶" } else { " " }, e.model.id).into(),
            params(e.model.params).into(),
            layers.into(),
            kv.into(),
        ];
        let style = sel.then(|| row_style(app, Pane::Models, true));
        grid::row(buf, inner, y, cols, &widths, &cells, style);
    }
}
