//! Drawing a form: a row per field (label, the text being typed, what it
//! reads as or what is wrong), then a line about the focused field. Errors
//! carry a mark and words, not only a colour, so they read under NO_COLOR
//! and in ASCII.

use super::{Form, Purpose, What};
use crate::tui::action::Command;
use crate::tui::app::{App, Pane};
use crate::tui::knobs::Knob;
use crate::tui::panes::text;
use crate::tui::ui;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear};

/// Where a form goes, and the figures it changes.
pub struct Split {
    pub form: Rect,
    /// The plot, or the view's own pane (None: the form fills the body and
    /// the headline below follows it).
    pub main: Option<Rect>,
    /// Room under the form for the sensitivity table, when there is some.
    pub below: Option<Rect>,
}

/// Rows under the form worth giving to another pane.
const BELOW_MIN: u16 = 12;

/// From 100x28 the form sits beside the plot (or the view's pane), with the
/// sensitivity table under it when the screen is tall enough; a short form
/// (a region's four fields) goes above the pane instead, which keeps its
/// whole width, at 80x24 too. Otherwise smaller screens give the form the
/// body.
pub fn split(app: &App, area: Rect, body: Rect) -> Split {
    let whole = Split {
        form: body,
        main: None,
        below: None,
    };
    let Some(f) = &app.form else { return whole };
    // The fields, two lines about the focused one, the borders.
    let need = f.fields.len() as u16 + 4;
    if app.zoom || (!ui::is_shared(area) && !short(f, need, body)) {
        return whole;
    }
    if short(f, need, body) {
        let [form, main] =
            Layout::vertical([Constraint::Length(need), Constraint::Fill(1)]).areas(body);
        return Split {
            form,
            main: Some(main),
            below: None,
        };
    }
    let w = (area.width / 2).clamp(60, 84);
    let [left, main] = Layout::horizontal([Constraint::Length(w), Constraint::Fill(1)]).areas(body);
    let (form, below) = if left.height >= need + BELOW_MIN {
        let [form, below] =
            Layout::vertical([Constraint::Length(need), Constraint::Fill(1)]).areas(left);
        (form, Some(below))
    } else {
        (left, None)
    };
    Split {
        form,
        main: Some(main),
        below,
    }
}

/// A form short enough to go above the pane it changes (a region's).
fn short(f: &Form, need: u16, body: Rect) -> bool {
    f.fields.len() <= 6 && need * 2 <= body.height
}

/// The hint at the foot of the Hardware list, or of the knobs on a region
/// knob: the keys that open the forms.
pub fn hint(app: &App, pane: Pane, width: u16) -> Option<Line<'static>> {
    let focused = app.focus == pane && !app.in_bar;
    let region = pane == Pane::Knobs && matches!(app.selected_knob(), Knob::Region | Knob::Regions);
    if !focused || !(pane == Pane::Hardware || region) {
        return None;
    }
    let what = if region { "region" } else { "device" };
    let (n, e) = (
        app.keymap.first_key(Command::NewEntry),
        app.keymap.first_key(Command::EditCopy),
    );
    let long = format!(" {n} new {what} · {e} edit a copy ");
    let text = if text::width(&long) + 4 <= width as usize {
        long
    } else {
        format!(" {n} new · {e} copy ")
    };
    Some(Line::from(Span::styled(text, app.theme().dim())))
}

/// The mark before an error.
fn cross(ascii: bool) -> &'static str {
    if ascii { "x " } else { "✗ " }
}

/// The form's title: what it makes and under which id.
fn title(f: &Form, app: &App) -> String {
    let what = if f.is_device() { "device" } else { "region" };
    let file = f
        .file
        .as_ref()
        .and_then(|p| p.file_name())
        .map_or("(no config dir)".to_string(), |n| {
            n.to_string_lossy().into_owned()
        });
    let arrow = if app.ascii { "->" } else { "→" };
    match &f.purpose {
        Purpose::New => format!(" New {what} {arrow} {} in {file} ", f.id),
        Purpose::Copy(of) => format!(" Copy of {of} {arrow} {} in {file} ", f.id),
        Purpose::Replace => format!(" Your {what} {} (replaced in {file}) ", f.id),
    }
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some(f) = &app.form else { return };
    let t = app.theme();
    let ascii = app.ascii;
    let arrows = if ascii { "up/down" } else { "↑↓" };
    let keys = format!(" tab/{arrows} field · enter next · ctrl-s save · esc cancel ");
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .style(t.base())
        .title(Line::from(Span::styled(title(f, app), t.title(true))))
        .title_bottom(Line::from(Span::styled(keys, t.dim())));
    let inner = b.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(b, area);
    let label_w = 13u16;
    let entry_w: u16 = if inner.width >= 70 { 20 } else { 16 };
    let status_x = inner.x + 2 + label_w + entry_w + 1;
    let status_w = inner.right().saturating_sub(status_x) as usize;
    // Rows for the fields; the rest for the line about the focused one.
    let rows = (inner.height as usize).min(f.fields.len());
    let first = f.focus.saturating_sub(rows.saturating_sub(1));
    for (k, (i, field)) in f
        .fields
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .enumerate()
    {
        let y = inner.y + k as u16;
        let focused = i == f.focus;
        let style = if focused {
            t.selected()
        } else {
            Style::new().fg(t.fg)
        };
        let mark = if focused {
            if ascii { ">" } else { "▶" }
        } else {
            " "
        };
        let label = format!("{mark} {:<w$}", field.what.label(), w = label_w as usize);
        let row = Line::from(Span::styled(label, style));
        frame.buffer_mut().set_line(inner.x, y, &row, 2 + label_w);
        let entry = Rect::new(inner.x + 2 + label_w, y, entry_w, 1).intersection(inner);
        if focused {
            frame.render_widget(&field.text, entry);
        } else {
            let shown = text::clip(field.text(), entry_w as usize, ascii);
            frame
                .buffer_mut()
                .set_line(entry.x, y, &Line::from(shown), entry.width);
        }
        let status = match &field.check {
            Err(e) => Span::styled(format!("{}{e}", cross(ascii)), t.error()),
            Ok(super::Value::Blank) => Span::styled(field.what.show(&super::Value::Blank), t.dim()),
            Ok(_) if field.what == What::Name => Span::styled(format!("id {}", f.id), t.dim()),
            Ok(v) => Span::styled(field.what.show(v), Style::new().fg(t.fg)),
        };
        let line = text::clip_line(Line::from(status), status_w, ascii);
        frame
            .buffer_mut()
            .set_line(status_x, y, &line, status_w as u16);
    }
    // Under the fields: the focused field's error in full, or what it takes.
    let below = Rect::new(
        inner.x,
        inner.y + rows as u16,
        inner.width,
        inner.height.saturating_sub(rows as u16),
    );
    let mut lines = Vec::new();
    if let Some(field) = f.fields.get(f.focus) {
        let (text, style) = match &field.check {
            Err(e) => (
                format!("{}{}: {e}", cross(ascii), field.what.label()),
                t.error(),
            ),
            Ok(_) => (field.what.about(), t.dim()),
        };
        lines.push((text, style));
    }
    match f.problem() {
        Some((i, why)) if i != f.focus => lines.push((format!("{}{why}", cross(ascii)), t.error())),
        Some(_) => {}
        None => lines.push((
            format!(
                "every field reads: ctrl-s saves{}",
                if f.file.is_none() {
                    " (needs a config directory)"
                } else {
                    ""
                }
            ),
            t.ok(),
        )),
    }
    let mut out = Vec::new();
    for (text, style) in lines {
        for l in text::wrap(&text, below.width.saturating_sub(1) as usize, ascii) {
            out.push(Line::from(Span::styled(format!(" {l}"), style)));
        }
    }
    text::draw_lines(frame.buffer_mut(), below, &out, ascii);
}
