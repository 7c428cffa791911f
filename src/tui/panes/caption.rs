//! The caption strip of presenter mode (`tui::lesson`) under the
//! workbench, and the lesson picker over it.
//!
//! The strip: "step 3/9 · title" on its top rule, the caption wrapped at
//! word boundaries, the question, the answer once revealed, and a hint
//! line with the keys (and the legend of the `*` when a figure differs
//! from the script). It takes at most a third of the screen; when the text
//! is longer, the revealed answer keeps its lines first, then the caption,
//! then the question, each cut after a whole word with an ellipsis.

use super::clamp_rect;
use super::text;
use crate::tui::action::Command;
use crate::tui::app::App;
use crate::tui::lesson::{self, Running};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear};

/// The screen split for the strip: the workbench's area and the strip's
/// (None when no lesson is on its script).
pub fn split(app: &App, area: Rect) -> (Rect, Option<Rect>) {
    let Some(r) = app.presenter.on() else {
        return (area, None);
    };
    let max = area.height / 3;
    let wanted = 2 + parts(app, r, area.width)
        .iter()
        .map(Vec::len)
        .sum::<usize>();
    let h = (wanted as u16).min(max);
    let body = Rect {
        height: area.height - h,
        ..area
    };
    let strip = Rect {
        y: area.bottom() - h,
        height: h,
        ..area
    };
    (body, Some(strip))
}

/// The text's width inside the strip (a column of margin each side).
fn inner_width(width: u16) -> usize {
    width.saturating_sub(2) as usize
}

/// The caption, the question and the answer (when revealed), each wrapped
/// to the strip's width: [caption, question, answer].
fn parts(app: &App, r: &Running, width: u16) -> [Vec<String>; 3] {
    let w = inner_width(width);
    let wrap = |s: &str| text::wrap(s, w, app.ascii);
    match &r.text {
        Ok(f) => [
            wrap(&f.caption),
            f.question
                .as_deref()
                .map(|q| wrap(&format!("Q: {q}")))
                .unwrap_or_default(),
            f.answer
                .as_deref()
                .filter(|_| r.revealed)
                .map(|a| wrap(&format!("A: {a}")))
                .unwrap_or_default(),
        ],
        Err(e) => [
            wrap(&format!(
                "the figures cannot be computed for this state: {e}"
            )),
            Vec::new(),
            Vec::new(),
        ],
    }
}

/// How many lines each part gets out of `room`: all of them when they fit;
/// else the answer first (up to half), then the caption, then the question.
fn shares(wanted: [usize; 3], room: usize) -> [usize; 3] {
    let [c, q, a] = wanted;
    if c + q + a <= room {
        return wanted;
    }
    let a = a.min(room.div_ceil(2));
    let c = c.min(room - a);
    let q = q.min(room - a - c);
    [c, q, a]
}

/// Draw the strip into `area` (from `split`).
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some(r) = app.presenter.on() else {
        return;
    };
    let t = app.theme();
    // "─ step 3/9 · title ──": the rule starts before the title.
    let title = format!("{} · {}", r.position(), r.lesson.title);
    let title = text::clip(&title, area.width.saturating_sub(4) as usize, app.ascii);
    let title = format!(" {title} ");
    let block = Block::new()
        .style(t.base())
        .borders(Borders::TOP)
        .border_style(t.border(true))
        .title(Line::from(vec![
            Span::styled("─", t.border(true)),
            Span::styled(title, t.title(true)),
        ]));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let w = inner_width(area.width);
    let texts = parts(app, r, area.width);
    let room = inner.height.saturating_sub(1) as usize;
    let share = shares(texts.clone().map(|v| v.len()), room);
    let styles = match &r.text {
        Ok(_) => [t.base(), t.accent(), t.ok()],
        Err(_) => [t.error(), t.base(), t.base()],
    };
    let mut lines: Vec<Line> = Vec::new();
    for ((part, n), style) in texts.iter().zip(share).zip(styles) {
        if n == 0 {
            continue;
        }
        let fitted = if part.len() > n {
            text::fit(&part.join(" "), w, n, app.ascii)
        } else {
            part.clone()
        };
        lines.extend(
            fitted
                .into_iter()
                .map(|l| Line::from(Span::styled(format!(" {l}"), style))),
        );
    }
    let body = Rect {
        height: inner.height - 1,
        ..inner
    };
    text::draw_lines(frame.buffer_mut(), body, &lines, app.ascii);
    let hint = Rect {
        y: inner.bottom() - 1,
        height: 1,
        ..inner
    };
    let line = text::clip_line(hint_line(app, r), hint.width as usize, app.ascii);
    text::draw_lines(frame.buffer_mut(), hint, &[line], app.ascii);
}

/// The keys, and the legend of the `*` when a figure is marked.
fn hint_line<'a>(app: &App, r: &Running) -> Line<'a> {
    let t = app.theme();
    let k = |c: Command| app.keymap.first_key(c);
    let has_answer = r.lesson.steps[r.step].answer.is_some();
    // A follower's keys would take it its own way: say so instead.
    if let Some(crate::tui::follow::Room::Following(p)) = &app.room {
        let parts = [
            format!("{p} steps the lesson"),
            "a key of yours: your own way".to_string(),
            format!("{} follows again", k(Command::Follow)),
        ];
        return Line::from(Span::styled(format!(" {}", parts.join(" · ")), t.dim()));
    }
    let mut parts = vec![
        format!("{} next", lesson::next_keys(app)),
        format!("{} back", lesson::prev_keys(app)),
    ];
    if has_answer {
        let what = if r.revealed { "hide" } else { "answer" };
        parts.push(format!("{} {what}", k(Command::Reveal)));
    }
    parts.push(format!("{} leave", k(Command::Cancel)));
    let mut spans = vec![Span::styled(format!(" {}", parts.join(" · ")), t.dim())];
    if matches!(&r.text, Ok(f) if f.changed) {
        spans.push(Span::styled("  * changed from the script", t.warn()));
    }
    Line::from(spans)
}

/// The lesson picker, centred over the screen.
pub fn render_picker(app: &App, frame: &mut Frame, area: Rect) {
    let Some(p) = &app.presenter.picker else {
        return;
    };
    let t = app.theme();
    let w = area.width.saturating_sub(4).min(76);
    let h = (p.rows.len() as u16 + 4).min(area.height);
    let r = clamp_rect(
        Rect::new(
            area.x + (area.width.saturating_sub(w)) / 2,
            area.y + (area.height.saturating_sub(h)) / 2,
            w,
            h,
        ),
        area,
    );
    frame.render_widget(Clear, r);
    let block = Block::new()
        .style(t.base())
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .title(Line::from(Span::styled(" Lessons ", t.title(true))));
    let inner = block.inner(r);
    frame.render_widget(block, r);
    let cols = inner.width as usize;
    let mut lines: Vec<Line> = p
        .rows
        .iter()
        .enumerate()
        .map(|(i, (name, title, steps))| {
            let selected = i == p.row;
            let mark = if selected { ">" } else { " " };
            let row = format!("{mark} {name}: {title} ({steps} steps)");
            let style: Style = if selected { t.selected() } else { t.base() };
            Line::from(Span::styled(text::clip(&row, cols, app.ascii), style))
        })
        .collect();
    lines.push(Line::from(""));
    let hint = format!(
        " up/down choose · {} start · {} close",
        app.keymap.first_key(Command::Edit),
        app.keymap.first_key(Command::Cancel)
    );
    lines.push(Line::from(Span::styled(
        text::clip(&hint, cols, app.ascii),
        t.dim(),
    )));
    text::draw_lines(frame.buffer_mut(), inner, &lines, app.ascii);
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn a_revealed_answer_keeps_its_lines_first_then_the_caption() {
        // All fit: each part gets what it wants.
        assert_eq!(shares([3, 1, 2], 6), [3, 1, 2]);
        // 4 + 1 + 3 = 8 lines in 6: the answer up to half (3), the caption
        // the rest (3), nothing left for the question.
        assert_eq!(shares([4, 1, 3], 6), [3, 0, 3]);
        // A short answer leaves the caption more: the answer its 1 line,
        // the caption its 5, none for the question.
        assert_eq!(shares([5, 2, 1], 6), [5, 0, 1]);
        // No answer shown: the caption first, then the question.
        assert_eq!(shares([4, 3, 0], 6), [4, 2, 0]);
    }
}
