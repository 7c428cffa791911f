//! The help screen, generated from the keymap so it cannot drift from it.

use super::clamp_rect;
use crate::tui::app::App;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

pub fn render(app: &App, frame: &mut Frame, screen: Rect) {
    let t = app.theme();
    let mut rows = app.keymap.help_rows();
    // A short screen scrolls the list (Up/Down while help is open).
    let room = screen.height.saturating_sub(3) as usize;
    let first = app.help_scroll.min(rows.len().saturating_sub(room.max(1)));
    let scrolled = rows.len() + 1 > room;
    rows.drain(..first);
    let kw = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(4).min(22);
    let mut lines: Vec<Line> = rows
        .iter()
        .map(|(k, d)| {
            Line::from(vec![
                Span::styled(format!(" {k:>kw$}  "), t.accent()),
                Span::styled(d.to_string(), Style::new().fg(t.fg)),
            ])
        })
        .collect();
    lines.push(Line::from(Span::styled(
        " keys: [keys] in config.toml, e.g. mark = \"m\"",
        t.dim(),
    )));
    let width = (lines.iter().map(|l| l.width()).max().unwrap_or(40) as u16 + 3).min(screen.width);
    let height = (lines.len() as u16 + 2).min(screen.height);
    let r = clamp_rect(
        Rect::new(
            screen.x + (screen.width.saturating_sub(width)) / 2,
            screen.y + (screen.height.saturating_sub(height)) / 2,
            width,
            height,
        ),
        screen,
    );
    frame.render_widget(Clear, r);
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .style(t.base())
        .title(Line::from(Span::styled(" Keys ", t.title(true))))
        .title_bottom(Line::from(Span::styled(
            if scrolled {
                " up/down scroll · ? or Esc closes "
            } else {
                " ? or Esc closes "
            },
            t.dim(),
        )));
    frame.render_widget(Paragraph::new(lines).block(b), r);
}
