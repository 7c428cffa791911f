//! One file per pane. Each `render` reads the app and draws into its area.

pub mod band;
pub mod caption;
pub mod cell;
pub mod compare;
pub mod comparison;
pub mod explore;
pub mod fleet;
pub mod generations;
pub mod grid;
pub mod hardware;
pub mod headline;
pub mod help;
pub mod knobs;
pub mod models;
pub mod ops;
pub mod plot;
pub mod problems;
pub mod room;
pub mod sensitivity;
pub mod serving;
pub mod serving_continuous;
pub mod status;
pub mod sweep;
pub mod synthesis;
pub mod text;
pub mod training;

use super::app::{App, Mode, Pane};
use super::views::ViewData;
use crate::solver::units;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

/// A pane's frame: border lit when focused, the title, and extra spans
/// (filter, "last valid" marker) after it.
pub fn block<'a>(app: &App, pane: Pane, extra: Vec<Span<'a>>) -> Block<'a> {
    let t = app.theme();
    let focused = app.focus == pane && !app.in_bar;
    let mut title = vec![Span::styled(
        format!(" {} ", app.pane_title(pane)),
        t.title(focused),
    )];
    title.extend(extra);
    if app.zoom && focused {
        let k = app.keymap.first_key(super::action::Command::Zoom);
        title.push(Span::styled(format!("· {k} unzoom "), t.dim()));
    }
    Block::new()
        .style(t.base())
        .borders(Borders::ALL)
        .border_style(t.border(focused))
        .title(Line::from(title))
}

/// The "last valid" marker for panes that show results.
pub fn stale_marker<'a>(app: &App) -> Vec<Span<'a>> {
    match app.shown() {
        Some((_, true)) => vec![
            Span::styled(" LAST VALID ", app.theme().stale()),
            Span::raw(" "),
        ],
        _ => vec![],
    }
}

/// First row to show so that `selected` stays visible, centred when it can be.
pub fn scroll_offset(selected: usize, len: usize, height: usize) -> usize {
    if len <= height || height == 0 {
        return 0;
    }
    selected.saturating_sub(height / 2).min(len - height)
}

/// The title spans of a picker's filter: the entry while typing, the kept
/// filter otherwise.
pub fn filter_spans<'a>(app: &App, pane: Pane, shown: usize, total: usize) -> Vec<Span<'a>> {
    let t = app.theme();
    let text = app.filter_text(pane);
    if app.mode == Mode::Filter(pane) {
        vec![
            Span::styled(format!(" / {text}_ "), t.accent()),
            Span::styled(format!("{shown} of {total} "), t.dim()),
        ]
    } else if !text.is_empty() {
        vec![
            Span::styled(format!(" /{text} "), t.accent()),
            Span::styled(format!("{shown} of {total} "), t.dim()),
        ]
    } else {
        vec![Span::styled(format!("{total} "), t.dim())]
    }
}

/// Row style for a list entry.
pub fn row_style(app: &App, pane: Pane, selected: bool) -> Style {
    let t = app.theme();
    if selected {
        if app.focus == pane && !app.in_bar {
            t.selected()
        } else {
            t.accent()
        }
    } else {
        Style::new().fg(t.fg)
    }
}

/// Parameters: "8.03B", "405B", "1.1M" (a count with B for billions).
pub fn params(x: f64) -> String {
    units::format_params(x)
}

/// A percentage with three significant digits: "-9.09%".
pub fn percent(x: f64) -> String {
    let s = units::format_number(x * 100.0);
    if x > 0.0 {
        format!("+{s}%")
    } else {
        format!("{s}%")
    }
}

/// Lines written top-down into `area`, each clipped to its width: what a
/// Paragraph without wrapping draws, in one pass.
/// The frame of a view pane: its block, titled with a LAST VALID badge when
/// the figures shown are the last valid ones and then with `title(data)`,
/// and the error in place when there are no figures yet. Returns the figures
/// and the inner area, if there are figures.
pub fn view_frame<'a>(
    app: &'a App,
    frame: &mut ratatui::Frame,
    area: Rect,
    title: impl FnOnce(&ViewData) -> Vec<Span<'static>>,
) -> Option<(&'a ViewData, Rect)> {
    let t = app.theme();
    let shown = app.shown_view();
    let mut extra = Vec::new();
    if let Some((_, true)) = shown {
        extra.push(Span::styled(" LAST VALID ", t.stale()));
        extra.push(Span::raw(" "));
    }
    if let Some((d, _)) = shown {
        extra.extend(title(d));
    }
    let b = block(app, Pane::View, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if shown.is_none()
        && let Err(e) = &app.view_data
    {
        // The whole message, wrapped at words.
        let wrapped: Vec<Line> = text::fit(
            e,
            inner.width.saturating_sub(1) as usize,
            inner.height as usize,
            app.ascii,
        )
        .into_iter()
        .map(|l| Line::from(Span::styled(format!(" {l}"), t.error())))
        .collect();
        text::draw_lines(frame.buffer_mut(), inner, &wrapped, app.ascii);
    }
    shown.map(|(d, _)| (d, inner))
}

pub fn lines(buf: &mut ratatui::buffer::Buffer, area: Rect, lines: &[Line]) {
    for (i, l) in lines.iter().enumerate().take(area.height as usize) {
        buf.set_line(area.x, area.y + i as u16, l, area.width);
    }
}

/// `inner` as a left part and a right part `right_w` wide, a column
/// apart (a plot beside its table).
pub fn side_by_side(inner: Rect, right_w: u16) -> (Rect, Rect) {
    (
        Rect {
            width: inner.width.saturating_sub(right_w + 1),
            ..inner
        },
        Rect {
            x: inner.right() - right_w.min(inner.width),
            width: right_w.min(inner.width),
            ..inner
        },
    )
}

/// `inner` as a top part and a bottom part `bottom_h` high (a plot over
/// its table).
pub fn stacked(inner: Rect, bottom_h: u16) -> (Rect, Rect) {
    let h = bottom_h.min(inner.height);
    (
        Rect {
            height: inner.height - h,
            ..inner
        },
        Rect {
            y: inner.bottom() - h,
            height: h,
            ..inner
        },
    )
}

/// Place `rect` inside `bounds`.
pub fn clamp_rect(r: Rect, bounds: Rect) -> Rect {
    let w = r.width.min(bounds.width);
    let h = r.height.min(bounds.height);
    let x = r.x.max(bounds.x).min(bounds.x + bounds.width - w);
    let y = r.y.max(bounds.y).min(bounds.y + bounds.height - h);
    Rect::new(x, y, w, h)
}
