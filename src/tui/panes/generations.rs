//! The Generations view: one workload across a hardware family (A100 ->
//! H100 -> H200 -> B200, MI250X -> MI300X -> MI325X, TPU v4 -> v5p -> v6e)
//! or the marked devices: their roofs overlaid, and the comparison table
//! (`comparison`): latency, tokens/s, the speedup over the baseline and the
//! ratio behind it, binding constraint, elasticities and cost, with the fit
//! verdict for every device that does not fit, so a shift of the binding
//! constraint shows.

use super::comparison::{self, short};
use super::words;
use super::{plot, view_frame};
use crate::tui::action::Command;
use crate::tui::app::{App, Pane};
use crate::tui::views::ViewData;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The binding constraint along the devices that fit: one for all, or
/// where it shifts (a device that does not fit binds nothing: it does not
/// run).
pub fn verdict(app: &App, an: &crate::tui::app::Analysis) -> String {
    let mut shift: Vec<(String, &'static str)> = Vec::new();
    for c in an.compare.iter().filter(|c| c.fits()) {
        if let Ok(s) = &c.result {
            let b = s.binding.map_or("-", short);
            if shift.last().is_none_or(|(_, x)| *x != b) {
                shift.push((app.catalog.hardware[c.hw].hw.id.clone(), b));
            }
        }
    }
    let every = if an.compare.iter().all(|c| c.fits()) {
        "on every device"
    } else {
        "on every device that fits"
    };
    if shift.is_empty() {
        " no device fits: nothing runs to bind".to_string()
    } else if shift.len() == 1 {
        format!(" binding constraint: {} {every}", shift[0].1)
    } else {
        let path: Vec<String> = shift.iter().map(|(d, b)| format!("{b} ({d})")).collect();
        format!(" binding constraint shifts: {}", path.join(" → "))
    }
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((ViewData::Generations(g), inner)) = view_frame(app, frame, area, |d| match d {
        ViewData::Generations(g) => {
            let mut v = vec![Span::styled(
                format!(
                    "{} · {} family ",
                    g.label,
                    app.keymap.first_key(Command::NextFamily)
                ),
                app.theme().dim(),
            )];
            v.extend(comparison::title_spans(app, &g.analysis));
            v
        }
        _ => Vec::new(),
    }) else {
        return;
    };
    let an = &g.analysis;
    let verdict = verdict(app, an);
    let side = inner.width >= 130;
    let tw = if side {
        84.min(inner.width / 2 + 10)
    } else {
        inner.width
    };
    // The table and the binding line below it; at most half the pane when
    // the plot sits above.
    let most = if side {
        inner.height
    } else {
        inner.height / 2 + 1
    };
    let table_h = comparison::wanted_height(an.compare.len(), tw, most.saturating_sub(1)) + 1;
    let (plot_area, table_area) = if side {
        (
            Rect {
                width: inner.width - tw - 1,
                ..inner
            },
            Rect {
                x: inner.right() - tw,
                width: tw,
                ..inner
            },
        )
    } else {
        let th = table_h.min(inner.height / 2 + 1);
        (
            Rect {
                height: inner.height.saturating_sub(th),
                ..inner
            },
            Rect {
                y: inner.bottom().saturating_sub(th),
                height: th,
                ..inner
            },
        )
    };
    if plot_area.height >= 6 && plot_area.width >= 20 {
        plot::draw_chart(app, an, frame, plot_area);
    }
    let selected = (app.focus == Pane::View && !app.in_bar).then_some(app.view_scroll);
    let buf = frame.buffer_mut();
    let used = comparison::draw(app, an, buf, table_area, selected);
    let vy = table_area.y + used;
    if vy < table_area.bottom() {
        words::draw_line(
            buf,
            table_area,
            vy,
            &Line::from(Span::styled(verdict, t.accent())),
            app.ascii,
        );
    }
}
