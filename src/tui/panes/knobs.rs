//! The workload knobs, and the entry that opens over a knob to type its value.

use super::{block, clamp_rect, scroll_offset};
use crate::tui::action::Command;
use crate::tui::app::{App, Mode, Pane};
use crate::words::Words;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// What a knob that does not apply to the model shows.
const NOT_APPLICABLE: &str = "n/a";

/// The first knob shown: the list scrolls when the pane is shorter than it.
fn first_shown(app: &App, area: Rect) -> usize {
    let h = area.height.saturating_sub(2) as usize;
    scroll_offset(app.knob, app.knobs().len(), h)
}

/// The row of knob `i` inside the pane (after the border).
fn knob_row(app: &App, area: Rect, i: usize) -> u16 {
    area.y + 1 + i.saturating_sub(first_shown(app, area)) as u16
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let mut b = block(app, Pane::Knobs, vec![]);
    if let Some(hint) = crate::tui::form::hint(app, Pane::Knobs, area.width) {
        b = b.title_bottom(hint);
    }
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let focused = app.focus == Pane::Knobs && !app.in_bar;
    let inputs = app.inputs();
    let mut lines = Vec::new();
    let knobs = app.knobs();
    let skip = first_shown(app, area);
    let words = Words::for_model(&app.catalog.models[app.model]);
    for (i, k) in knobs.iter().enumerate().skip(skip) {
        let sel = i == app.knob;
        let editing = sel && app.mode == Mode::Edit;
        let applies = k.applies(words);
        let value = if !applies {
            NOT_APPLICABLE.to_string()
        } else if editing {
            app.edit
                .as_ref()
                .and_then(|e| e.text.lines().first().cloned())
                .unwrap_or_default()
        } else {
            k.value(&inputs)
        };
        let mut label = format!(" {:<12}", k.label());
        let value = if sel && focused {
            value
        } else {
            // Long values (regions) keep to the pane.
            let room = (inner.width as usize).saturating_sub(17).max(4);
            if value.chars().count() > room {
                let cut: String = value.chars().take(room - 1).collect();
                format!("{cut}…")
            } else {
                value
            }
        };
        let (l, r) = if sel && focused {
            // A long value ("tensorrt-llm") in a narrow pane: the label
            // and the arrows close up around it.
            if 13 + 4 + value.chars().count() > inner.width as usize {
                label = format!(" {} ", k.label());
                ("◀", "▶")
            } else {
                ("◀ ", " ▶")
            }
        } else {
            ("  ", "  ")
        };
        let style = if sel && focused {
            t.selected()
        } else if sel {
            t.accent()
        } else if !applies {
            t.dim()
        } else {
            Style::new().fg(t.fg)
        };
        let value_style = if editing && app.edit.as_ref().is_some_and(|e| e.error.is_some()) {
            t.error()
        } else {
            style
        };
        lines.push(Line::from(vec![
            Span::styled(label, style),
            Span::styled(l, style),
            Span::styled(value, value_style),
            Span::styled(r, style),
        ]));
    }
    let free = inner.height as usize > knobs.len();
    if free {
        let step = format!(
            "{}/{} step",
            app.keymap.first_key(Command::Left),
            app.keymap.first_key(Command::Right)
        );
        let edit = format!("{} type", app.keymap.first_key(Command::Edit));
        let one = format!(" {step}, {edit}");
        if one.chars().count() <= inner.width as usize {
            lines.push(Line::from(Span::styled(one, t.dim())));
        } else {
            lines.push(Line::from(Span::styled(format!(" {step}"), t.dim())));
            lines.push(Line::from(Span::styled(format!(" {edit}"), t.dim())));
        }
    }
    if inner.height as usize > knobs.len() + 1 && inner.width >= 40 {
        let hint = format!(
            " other panes: {} (or {} from the top row, then {}/{})",
            app.keymap.first_key(Command::NextPane),
            app.keymap.first_key(Command::Up),
            app.keymap.first_key(Command::Left),
            app.keymap.first_key(Command::Right)
        );
        lines.push(Line::from(Span::styled(hint, t.dim())));
    }
    let knob = app.selected_knob();
    if inner.height as usize > knobs.len() + 3 && inner.width >= 40 {
        // Compact screens have room for what the selected knob accepts.
        lines.push(Line::from(""));
        let hint = if knob.applies(words) {
            knob.hint()
        } else {
            "n/a: one forward pass, no decode, no KV cache"
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {}: ", knob.label()), t.dim()),
            Span::styled(hint, t.dim()),
        ]));
    }
    // Say once why some knobs read n/a, where there is room for all of it.
    let na: Vec<&str> = knobs
        .iter()
        .filter(|k| !k.applies(words))
        .map(|k| k.label())
        .collect();
    if !na.is_empty() {
        let text = format!(
            "{NOT_APPLICABLE}: {} do not apply to a single forward pass (no decode, no KV cache)",
            na.join(", ")
        );
        let wrapped = super::text::wrap(&text, (inner.width as usize).saturating_sub(2), app.ascii);
        if lines.len() + 1 + wrapped.len() <= inner.height as usize {
            lines.push(Line::from(""));
            for l in wrapped {
                lines.push(Line::from(Span::styled(format!(" {l}"), t.dim())));
            }
        }
    }
    super::lines(frame.buffer_mut(), inner, &lines);
}

/// The entry, opened in place over the knob being typed: the text, what it
/// accepts, and, in the error colour, why the text is not valid.
pub fn render_entry(app: &App, frame: &mut Frame, pane: Rect, screen: Rect) {
    let Some(edit) = &app.edit else { return };
    let t = app.theme();
    let width = 58u16.min(screen.width);
    let reason_lines = edit.error.as_ref().map_or(0, |e| {
        (e.len() as u16).div_ceil(width.saturating_sub(4)).max(1)
    });
    let height = 4 + reason_lines;
    let row = knob_row(app, pane, app.knob);
    let mut y = row + 1;
    if y + height > screen.y + screen.height {
        y = row.saturating_sub(height);
    }
    let r = clamp_rect(Rect::new(pane.x, y, width, height), screen);
    frame.render_widget(Clear, r);
    let border = if edit.error.is_some() {
        t.error()
    } else {
        t.border(true)
    };
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(border)
        .style(t.base())
        .title(Line::from(vec![Span::styled(
            format!(" {} ", edit.knob.label()),
            t.title(true),
        )]))
        .title_bottom(Line::from(Span::styled(
            " Enter apply · Esc cancel ",
            t.dim(),
        )));
    let inner = b.inner(r);
    frame.render_widget(b, r);
    let [text, hint, reason] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(inner);
    frame.render_widget(&edit.text, text);
    frame.render_widget(
        Paragraph::new(Span::styled(edit.knob.hint(), t.dim())),
        hint,
    );
    if let Some(e) = &edit.error {
        frame.render_widget(
            Paragraph::new(Span::styled(e.clone(), t.error())).wrap(Wrap { trim: true }),
            reason,
        );
    }
}
