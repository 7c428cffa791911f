//! A plain table: fixed columns and one that fills, each cell a `Line`
//! written straight into the buffer. ratatui's Table lays out and renders
//! each cell as a Text (two passes over every character); the pickers and
//! tables redraw on every keystroke, so they use this instead.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

/// A column: a width (0 = fill the rest) and its alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Col {
    pub width: u16,
    pub right: bool,
}

pub const fn fill() -> Col {
    Col {
        width: 0,
        right: false,
    }
}
pub const fn left(width: u16) -> Col {
    Col {
        width,
        right: false,
    }
}
pub const fn right(width: u16) -> Col {
    Col { width, right: true }
}

/// Column widths for `total` cells with one cell between columns; the fill
/// columns share what the fixed ones leave.
pub fn widths(cols: &[Col], total: u16) -> Vec<u16> {
    let gaps = cols.len().saturating_sub(1) as u16;
    let fixed: u16 = cols.iter().map(|c| c.width).sum();
    let fills = cols.iter().filter(|c| c.width == 0).count() as u16;
    let rest = total.saturating_sub(fixed + gaps);
    let mut left_over = rest;
    cols.iter()
        .map(|c| {
            if c.width > 0 {
                c.width
            } else {
                let w = (rest / fills.max(1)).min(left_over);
                left_over -= w;
                w
            }
        })
        .collect()
}

/// The columns that fit `total` cells while the fill column keeps at least
/// `min` (an id should show whole before a figure does): the last columns
/// give way first. `row` draws only the cells of the columns kept.
pub fn keep(cols: &[Col], total: u16, min: u16) -> &[Col] {
    let mut n = cols.len();
    while n > 1 {
        let w = widths(&cols[..n], total);
        let fill = cols[..n]
            .iter()
            .zip(&w)
            .find(|(c, _)| c.width == 0)
            .map_or(u16::MAX, |(_, w)| *w);
        if fill >= min {
            break;
        }
        n -= 1;
    }
    &cols[..n]
}

/// One row at line `y` of `area`: the row style first (so the cells' own
/// styles show through), then each cell fitted to its column
/// (`cell::fit_line`): a number told shorter, never cut.
pub fn row(
    buf: &mut Buffer,
    area: Rect,
    y: u16,
    cols: &[Col],
    widths: &[u16],
    cells: &[Line],
    style: Option<Style>,
) {
    if y >= area.bottom() {
        return;
    }
    if let Some(s) = style {
        buf.set_style(Rect::new(area.x, y, area.width, 1), s);
    }
    let mut x = area.x;
    for (i, cell) in cells.iter().enumerate() {
        let Some(&w) = widths.get(i) else { break };
        let w = w.min(area.right().saturating_sub(x));
        if w == 0 {
            break;
        }
        let right = cols.get(i).is_some_and(|c| c.right);
        let cell = &*super::cell::fit_line(cell, w as usize);
        #[cfg(test)]
        seen::record(&cells[i], cell, w);
        let off = if right {
            w.saturating_sub(cell.width() as u16)
        } else {
            0
        };
        buf.set_line(x + off, y, cell, w - off);
        x = x.saturating_add(w + 1);
    }
}

/// What the tables drew, for the tests: each cell as given and as drawn.
#[cfg(test)]
pub mod seen {
    use ratatui::text::Line;
    use std::cell::RefCell;

    thread_local! {
        static CELLS: RefCell<Option<Vec<(String, String)>>> = const { RefCell::new(None) };
    }

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// `drawn` as it lands in `w` columns (what `set_line` keeps).
    pub(in crate::tui::panes) fn record(given: &Line, drawn: &Line, w: u16) {
        CELLS.with(|c| {
            if let Some(v) = c.borrow_mut().as_mut() {
                let mut kept = String::new();
                for ch in text(drawn).chars() {
                    if super::super::text::width(&format!("{kept}{ch}")) > w as usize {
                        break;
                    }
                    kept.push(ch);
                }
                v.push((text(given), kept));
            }
        });
    }

    /// The cells drawn while `f` runs.
    pub fn cells(f: impl FnOnce()) -> Vec<(String, String)> {
        CELLS.with(|c| *c.borrow_mut() = Some(Vec::new()));
        f();
        CELLS.with(|c| c.borrow_mut().take().unwrap_or_default())
    }
}

/// A cell spanning the whole row (a group header, a message).
pub fn wide(buf: &mut Buffer, area: Rect, y: u16, line: &Line) {
    if y < area.bottom() {
        buf.set_line(area.x, y, line, area.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_give_way_before_the_id() {
        let cols = [fill(), right(6), right(3), right(7)];
        // 40 cells: 6 + 3 + 7 + 3 gaps = 19 fixed, 21 for the id.
        assert_eq!(keep(&cols, 40, 14).len(), 4);
        // 28 cells: the id would get 9; without the last column (7 + 1
        // gap) it gets 17.
        assert_eq!(keep(&cols, 28, 14).len(), 3);
        // 16 cells: only the id.
        assert_eq!(keep(&cols, 16, 14).len(), 1);
        assert_eq!(widths(keep(&cols, 28, 14), 28), vec![17, 6, 3]);
    }

    #[test]
    fn fill_takes_the_rest() {
        assert_eq!(widths(&[fill(), left(5), right(3)], 20), vec![10, 5, 3]);
        assert_eq!(widths(&[fill(), fill()], 11), vec![5, 5]);
        assert_eq!(widths(&[fill(), left(30)], 10), vec![0, 30]);
    }

    #[test]
    fn cells_align_and_clip() {
        let area = Rect::new(0, 0, 12, 1);
        let mut buf = Buffer::empty(area);
        let cols = [left(4), right(6)];
        let w = widths(&cols, 12);
        row(
            &mut buf,
            area,
            0,
            &cols,
            &w,
            &[Line::from("abcdef"), Line::from("42")],
            None,
        );
        assert_eq!(buf, Buffer::with_lines(["abcd     42 "]));
    }
}
