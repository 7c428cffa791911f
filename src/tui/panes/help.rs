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
    let rows = app.keymap.help_rows();
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
        .title_bottom(Line::from(Span::styled(" ? or Esc closes ", t.dim())));
    frame.render_widget(Paragraph::new(lines).block(b), r);
}
