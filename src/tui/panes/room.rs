//! The tag of a shared room (`ridgeline share --present-key`): at the right
//! of the status line's last row, "[following alice]", "[on your own · F
//! follows alice]" or "[presenting: 3 follow, 1 on their own]". Brackets
//! and words, so that it reads without colour. It is drawn over the end
//! of that row; a word it would cut is blanked whole.

use super::text;
use crate::tui::action::Command;
use crate::tui::app::App;
use crate::tui::follow::Room;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// A presenter's name is cut to this many characters in the tag.
const NAME: usize = 16;

/// The tag's words, or None outside a shared room.
pub fn tag(app: &App) -> Option<String> {
    let name = |p: &str| -> String {
        let mut s: String = p.chars().take(NAME).collect();
        if p.chars().count() > NAME {
            s.push_str(if app.ascii { "..." } else { "…" });
        }
        s
    };
    let dot = if app.ascii { "-" } else { "·" };
    Some(match app.room.as_ref()? {
        Room::Following(p) => format!("[following {}]", name(p)),
        Room::OnOwn(p) => format!(
            "[on your own {dot} {} follows {}]",
            app.keymap.first_key(Command::Follow),
            name(p)
        ),
        Room::Presenting {
            following,
            branched,
        } => format!("[presenting: {following} follow, {branched} on their own]"),
    })
}

/// Draw the tag at the right end of `area`'s last row (the status line).
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some(tag) = tag(app) else { return };
    if area.height == 0 {
        return;
    }
    let t = app.theme();
    let w = (text::width(&tag) as u16 + 1).min(area.width);
    let at = Rect::new(area.x + area.width - w, area.y + area.height - 1, w, 1);
    // A word the tag would cut (a figure: "13.7 ms" cut to "13") is
    // blanked whole.
    let buf = frame.buffer_mut();
    let mut x = at.x;
    while x > area.x {
        let cell = &mut buf[(x - 1, at.y)];
        if cell.symbol() == " " {
            break;
        }
        cell.set_symbol(" ");
        x -= 1;
    }
    let line = text::clip_line(
        Line::from(vec![Span::raw(" "), Span::styled(tag, t.selected())]),
        w as usize,
        app.ascii,
    );
    frame.buffer_mut().set_line(at.x, at.y, &line, at.width);
}
