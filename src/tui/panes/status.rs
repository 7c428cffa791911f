//! The status line: the headline result (latency, tokens/s, bottleneck, fit;
//! built in `headline`), the solver's explanation, and messages (errors
//! first). Everything is fitted to the width at word boundaries (`words`):
//! the fit verdict is kept whole, other parts give way first.

use super::headline;
use super::words::{self, fit_parts};
use crate::tui::action::Command;
use crate::tui::app::{App, Level, Mode};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let width = area.width as usize;
    let ascii = app.ascii;
    let sep = || Span::styled(" │ ", t.dim());
    let mut lines = Vec::new();
    let message = message_line(app);
    match app.shown() {
        Some((an, stale)) => {
            let head = fit_parts(
                headline::selection(app, an, stale, width >= 120),
                sep(),
                width,
                ascii,
            );
            if let Some(view) = headline::view(app) {
                // The view's answer first, the shared selection's below it.
                lines.push(fit_parts(view, sep(), width, ascii));
                lines.push(head);
            } else {
                lines.push(head);
                let why = explain(an);
                // Two lines for the explanation when there is no message.
                let rows = if message.is_none() { 2 } else { 1 };
                for l in words::fit(&why, width.saturating_sub(1), rows, ascii) {
                    lines.push(Line::from(Span::styled(
                        format!(" {l}"),
                        Style::new().fg(t.fg),
                    )));
                }
                if message.is_none() && lines.len() == 3 {
                    words::draw_lines(frame.buffer_mut(), area, &lines, ascii);
                    return;
                }
            }
        }
        None => {
            lines.push(Line::from(Span::styled(" no result", t.error())));
            lines.push(Line::from(""));
        }
    }
    let last = message.unwrap_or_else(|| hint_line(app));
    lines.push(words::clip_line(last, width, ascii));
    words::draw_lines(frame.buffer_mut(), area, &lines, ascii);
}

/// The explanation of the configuration that runs, with its notes: as
/// asked when it fits; else at the fewest devices that hold it, labelled,
/// then why the asked one does not fit (no step time of a configuration
/// that cannot run).
fn explain(an: &crate::tui::app::Analysis) -> String {
    let e = an.eval();
    let with_notes = |e: &crate::solver::Evaluation| {
        let mut s = e.explanation();
        for n in &e.notes {
            s.push_str(&format!("; {n}"));
        }
        s
    };
    if e.memory.fits {
        return with_notes(e);
    }
    let over = format!(
        "as asked it needs {} per device but {} is usable",
        crate::solver::units::format_bytes(e.memory.footprint.total()),
        crate::solver::units::format_bytes(e.memory.usable_bytes)
    );
    match an.selected().and_then(|c| c.running()) {
        Some(run) => format!("on {} devices: {}; {over}", run.devices(), with_notes(run)),
        None => format!("{over}, and no layout up to 4096 devices holds it"),
    }
}

/// The third line: why there is no result, else the last message, else
/// problems found at start, else a hint.
fn message_line<'a>(app: &App) -> Option<Line<'a>> {
    let t = app.theme();
    if let Err(e) = &app.current {
        return Some(Line::from(Span::styled(format!(" error: {e}"), t.error())));
    }
    if app.mode == Mode::Save {
        return Some(hint_line(app));
    }
    if let Err(e) = &app.view_data {
        return Some(Line::from(Span::styled(
            format!(" {}: {e}", app.view.title()),
            t.error(),
        )));
    }
    if let Some(edit) = &app.edit
        && let Some(e) = &edit.error
    {
        return Some(Line::from(Span::styled(
            format!(" {}: {e}", edit.knob.label()),
            t.error(),
        )));
    }
    if let Some((level, text)) = &app.message {
        let style = match level {
            Level::Info => Style::new().fg(t.fg),
            Level::Warn => t.warn(),
            Level::Error => t.error(),
        };
        return Some(Line::from(Span::styled(format!(" {text}"), style)));
    }
    if !app.notices.is_empty() {
        return Some(Line::from(Span::styled(
            format!(" {}", app.notices.join(" · ")),
            t.warn(),
        )));
    }
    if app.mode != Mode::Normal {
        return Some(hint_line(app));
    }
    None
}

/// Keys worth knowing in the current mode.
fn hint_line<'a>(app: &App) -> Line<'a> {
    let t = app.theme();
    let k = |c| app.keymap.first_key(c);
    let hint = match app.mode {
        Mode::Filter(_) => " type to filter · up/down move · Enter keep · Esc clear".to_string(),
        Mode::Edit => " Enter apply · Esc cancel".to_string(),
        Mode::Save => " type a path · Enter save · Esc cancel".to_string(),
        _ => format!(
            " {} help · 1-6 views · {} filter · {} mark · {} edit · {} save · {} quit",
            k(Command::Help),
            k(Command::Filter),
            k(Command::Mark),
            k(Command::Edit),
            k(Command::Save),
            k(Command::Quit)
        ),
    };
    Line::from(Span::styled(hint, t.dim()))
}

/// The save entry: a path for the scenario file, over the status line.
pub fn render_save(app: &App, frame: &mut Frame, screen: Rect) {
    use ratatui::widgets::{Block, Borders, Clear};
    let t = app.theme();
    let width = 64u16.min(screen.width);
    let r = Rect::new(
        screen.x,
        screen.bottom().saturating_sub(6),
        width,
        3.min(screen.height),
    );
    frame.render_widget(Clear, r);
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .style(t.base())
        .title(Line::from(Span::styled(
            " save scenario to ",
            t.title(true),
        )))
        .title_bottom(Line::from(Span::styled(
            " Enter save · Esc cancel ",
            t.dim(),
        )));
    let inner = b.inner(r);
    frame.render_widget(b, r);
    frame.render_widget(&app.save_path, inner);
}
