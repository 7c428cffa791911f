//! The start-up problems panel: what went wrong loading the catalog, the
//! themes, the key bindings or a scenario, one problem per line (wrapped,
//! never cut at the screen's edge), over the lower part of the screen until
//! Esc dismisses it. Text from files is shown with control characters
//! escaped, so a file cannot drive the terminal through it.

use crate::catalog::fields::printable;
use crate::tui::action::Command;
use crate::tui::app::App;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// Rows the status line takes at the bottom (the panel stays above it).
const STATUS_ROWS: u16 = 3;

/// The panel's area: the full width, above the status line, as tall as
/// the problems need but at most three fifths of the body (at 80x24: 12
/// rows of 20), so the screen it covers stays in view above it.
pub fn area(screen: Rect, lines: usize) -> Rect {
    let body = screen.height.saturating_sub(1 + STATUS_ROWS);
    let most = (body * 3 / 5).max(4).min(body);
    let height = (lines as u16).saturating_add(2).min(most);
    let bottom = screen.y + 1 + body;
    Rect::new(screen.x, bottom - height, screen.width, height)
}

/// Split `text` into lines of at most `width` characters: at spaces where
/// it can, inside a word (a long path) where it must. The first line
/// starts with `first`, the rest with as many spaces.
pub fn wrap(text: &str, width: usize, first: &str) -> Vec<String> {
    let indent = " ".repeat(first.chars().count());
    let room = width.saturating_sub(indent.len()).max(1);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let gap = usize::from(cur_len > 0);
        if cur_len + gap + word.len() > room && cur_len > 0 {
            out.push(std::mem::take(&mut cur));
            cur_len = 0;
        } else if gap == 1 {
            cur.push(' ');
            cur_len += 1;
        }
        while cur_len + word.len() > room {
            let take = room - cur_len;
            cur.extend(word.drain(..take));
            out.push(std::mem::take(&mut cur));
            cur_len = 0;
        }
        cur_len += word.len();
        cur.extend(word);
    }
    if cur_len > 0 || out.is_empty() {
        out.push(cur);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, l)| format!("{}{l}", if i == 0 { first } else { &indent }))
        .collect()
}

/// Draw the panel when there are start-up problems.
pub fn render(app: &App, frame: &mut Frame, screen: Rect) {
    if app.notices.is_empty() || screen.height < 1 + STATUS_ROWS + 4 {
        return;
    }
    let t = app.theme();
    // Room for the text, and for "..." after a cut line.
    let width = screen.width.saturating_sub(5) as usize;
    let mut wrapped: Vec<Vec<String>> = app
        .notices
        .iter()
        .map(|n| wrap(&printable(n), width, "* "))
        .collect();
    let mut total: usize = wrapped.iter().map(Vec::len).sum();
    let r = area(screen, total);
    let room = r.height.saturating_sub(2) as usize;
    if total > room {
        // Too many to show in full: the most lines of each that lets every
        // problem in (at least two: where, and what).
        let longest = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        let fits = |k: usize| wrapped.iter().map(|w| w.len().min(k)).sum::<usize>() <= room;
        let k = (3..longest).rev().find(|&k| fits(k)).unwrap_or(2);
        for w in &mut wrapped {
            if w.len() > k {
                w.truncate(k);
                w[k - 1].push_str("...");
            }
        }
        total = wrapped.iter().map(Vec::len).sum();
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut shown = 0;
    if total > room {
        // Keep whole problems, and a last line that counts the rest.
        let mut used = 0;
        for w in &wrapped {
            if used + w.len() + 1 > room {
                break;
            }
            used += w.len();
            shown += 1;
        }
        wrapped.truncate(shown);
    } else {
        shown = wrapped.len();
    }
    for w in wrapped {
        lines.extend(
            w.into_iter()
                .map(|l| Line::from(Span::styled(l, Style::new().fg(t.fg)))),
        );
    }
    let hidden = app.notices.len() - shown;
    if hidden > 0 {
        lines.push(Line::from(Span::styled(
            format!("  ... and {hidden} more (`ridgeline catalog check` lists catalog problems)"),
            t.dim(),
        )));
    }
    let n = app.notices.len();
    let esc = app.keymap.first_key(Command::Cancel);
    frame.render_widget(Clear, r);
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.warn())
        .style(t.base())
        .title(Line::from(Span::styled(
            format!(" {n} start-up problem{} ", if n == 1 { "" } else { "s" }),
            t.warn(),
        )))
        .title_bottom(Line::from(Span::styled(
            format!(" {esc} dismisses "),
            t.dim(),
        )));
    frame.render_widget(Paragraph::new(lines).block(b), r);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_inside_long_words() {
        assert_eq!(wrap("a bb ccc", 6, "* "), vec!["* a bb", "  ccc"]);
        // A 10-character path in 4 columns of room (6 less the indent of 2).
        assert_eq!(
            wrap("/abcdefghi x", 6, "* "),
            vec!["* /abc", "  defg", "  hi x"]
        );
        assert_eq!(wrap("", 6, "* "), vec!["* "]);
    }

    #[test]
    fn the_panel_fits_above_the_status_line() {
        // 80x24: a bar row, 20 body rows, 3 status rows; at most 12 rows.
        let r = area(Rect::new(0, 0, 80, 24), 100);
        assert_eq!(r, Rect::new(0, 9, 80, 12));
        assert_eq!(r.bottom(), 21, "the status line starts at row 21");
        // Two problems: two rows and the border.
        assert_eq!(area(Rect::new(0, 0, 80, 24), 2), Rect::new(0, 17, 80, 4));
    }
}
