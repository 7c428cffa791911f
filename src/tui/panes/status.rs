//! The status line: the headline result (latency, tokens/s, bottleneck, fit;
//! built in `headline`), the solver's explanation, and messages (errors
//! first). Everything is fitted to the width at word boundaries (`text`):
//! the fit verdict is kept whole, other parts give way first.

use super::headline;
use super::text::{self, fit_parts};
use crate::tui::action::Command;
use crate::tui::app::{App, Level, Mode};
use crate::tui::views::View;
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
                // The view's answer first, the shared selection's below it,
                // unless the view answers another question than the
                // selection's step (a fleet, a training run): then a
                // verdict of a configuration the view does not show would
                // read as the view's.
                lines.push(fit_parts(view, sep(), width, ascii));
                if !matches!(app.view, View::Fleet | View::Training) {
                    lines.push(head);
                }
            } else {
                lines.push(head);
                let why = explain(app, an);
                // Two lines for the explanation when there is no message.
                let rows = if message.is_none() { 2 } else { 1 };
                for l in text::fit(&why, width.saturating_sub(1), rows, ascii) {
                    lines.push(Line::from(Span::styled(
                        format!(" {l}"),
                        Style::new().fg(t.fg),
                    )));
                }
                if message.is_none() && lines.len() == 3 {
                    text::draw_lines(frame.buffer_mut(), area, &lines, ascii);
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
    lines.push(text::clip_line(last, width, ascii));
    text::draw_lines(frame.buffer_mut(), area, &lines, ascii);
}

/// The explanation of the configuration that runs, with its notes: as
/// asked when it fits; else at the fewest devices that hold it, labelled,
/// then why the asked one does not fit (no step time of a configuration
/// that cannot run).
fn explain(app: &App, an: &crate::tui::app::Analysis) -> String {
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
        None => format!(
            "{over}: {}",
            crate::solver::compare::no_layout_reason(&app.catalog.hardware[an.hw].hw)
        ),
    }
}

/// The third line: why there is no result, else the last message, else a
/// hint (start-up problems have their own panel, panes/problems.rs).
fn message_line<'a>(app: &App) -> Option<Line<'a>> {
    let t = app.theme();
    // In a form, what the last key did (a save refused, say) comes first.
    let form_said = app.mode == Mode::Form && app.message.is_some();
    if !form_said && let Err(e) = &app.current {
        return Some(Line::from(Span::styled(format!(" error: {e}"), t.error())));
    }
    if matches!(app.mode, Mode::Save | Mode::Import) && app.message.is_none() {
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
        Mode::Save if app.session.confirm.is_some() => {
            " y overwrite · n change the path · Esc cancel".to_string()
        }
        Mode::Save => " type a path · Enter save · Esc cancel".to_string(),
        Mode::Import => {
            " type a config.json or a model folder · Enter import · Esc cancel".to_string()
        }
        Mode::Form => " Tab/Up/Down field · Enter next · Ctrl-S save · Esc cancel".to_string(),
        _ if app.view == crate::tui::views::View::Training => format!(
            " {} help · 1-{} views · {} rank layouts · {} edit or adopt · {} save · {} quit",
            k(Command::Help),
            crate::tui::views::View::ALL.len(),
            k(Command::SearchLayouts),
            k(Command::Edit),
            k(Command::Save),
            k(Command::Quit)
        ),
        _ => format!(
            " {} help · 1-{} views · {} filter · {} mark · {} edit · {} save · {} quit",
            k(Command::Help),
            crate::tui::views::View::ALL.len(),
            k(Command::Filter),
            k(Command::Mark),
            k(Command::Edit),
            k(Command::Save),
            k(Command::Quit)
        ),
    };
    Line::from(Span::styled(hint, t.dim()))
}

/// A one-line entry box over the status line, titled, with its keys on the
/// bottom border: the area inside it.
pub fn entry_box(app: &App, frame: &mut Frame, screen: Rect, title: &str, keys: &str) -> Rect {
    use ratatui::widgets::{Block, Borders, Clear};
    let t = app.theme();
    let r = Rect::new(
        screen.x,
        screen.bottom().saturating_sub(6),
        64u16.min(screen.width),
        3.min(screen.height),
    );
    frame.render_widget(Clear, r);
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .style(t.base())
        .title(Line::from(Span::styled(title.to_string(), t.title(true))))
        .title_bottom(Line::from(Span::styled(keys.to_string(), t.dim())));
    let inner = b.inner(r);
    frame.render_widget(b, r);
    inner
}

/// The save entry: a path for the scenario file, over the status line.
pub fn render_save(app: &App, frame: &mut Frame, screen: Rect) {
    let t = app.theme();
    let confirm = app.session.confirm.as_ref();
    let inner = match confirm {
        Some(_) => entry_box(
            app,
            frame,
            screen,
            " overwrite? ",
            " y overwrite · n change the path · Esc cancel ",
        ),
        None => entry_box(
            app,
            frame,
            screen,
            " save scenario to ",
            " Enter save · Esc cancel ",
        ),
    };
    match confirm {
        Some(path) => {
            // The end of the path is the part that tells files apart.
            let tail = ": it exists; overwrite it? y/n";
            let room = (inner.width as usize).saturating_sub(tail.chars().count());
            let p = path.display().to_string();
            let n = p.chars().count();
            let shown = if n <= room {
                p
            } else {
                let keep: String = p.chars().skip(n + 3 - room.max(3)).collect();
                format!("...{keep}")
            };
            frame.render_widget(
                Line::from(Span::styled(format!("{shown}{tail}"), t.warn())),
                inner,
            );
        }
        None => frame.render_widget(&app.save_path, inner),
    }
}
