//! The comparison pane: the selected device and the marked ones, side by
//! side (the table is `comparison`): latency, tokens/s, the speedup over the
//! baseline and why, binding constraint, elasticities and cost, with the
//! same fit verdict as everywhere for a device that does not fit.

use super::{block, comparison, stale_marker};
use crate::tui::action::Command;
use crate::tui::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let shown = app.shown();
    let mut extra = stale_marker(app);
    if let Some((an, _)) = shown
        && an.compare.len() > 1
    {
        extra.push(Span::styled(
            format!("{} devices ", an.compare.len()),
            t.dim(),
        ));
        extra.extend(comparison::title_spans(app, an));
    }
    let b = block(app, Pane::Compare, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let Some((an, _)) = shown else { return };
    if app.marked.is_empty() {
        let k = app.keymap.first_key(Command::Mark);
        let hint = format!(
            "{k} marks devices in the Hardware list: their roofs overlay the plot and they line up here"
        );
        // Wrapped whole, a line at a time (the pane may be one line high:
        // then the first line, ending after a whole word).
        let lines: Vec<Line> = super::text::fit(
            &hint,
            inner.width.saturating_sub(1) as usize,
            inner.height as usize,
            app.ascii,
        )
        .into_iter()
        .map(|l| Line::from(Span::styled(format!(" {l}"), t.dim())))
        .collect();
        super::text::draw_lines(frame.buffer_mut(), inner, &lines, app.ascii);
        return;
    }
    let selected = (app.focus == Pane::Compare && !app.in_bar).then_some(app.view_scroll);
    comparison::draw(app, an, frame.buffer_mut(), inner, selected);
}
