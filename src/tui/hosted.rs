//! The workbench as a value: an [`App`] driven by raw input bytes and drawn
//! as terminal output bytes at a size it is told, with no terminal, signal
//! or thread of its own. `ridgeline share` hosts one per SSH connection;
//! the local workbench (`run`) keeps its own loop over the real terminal.
//!
//! The screen is drawn by the same [`render`](super::render) through a
//! ratatui `Terminal` over crossterm's backend writing into a buffer, whose
//! size is the one given (never asked of a terminal).

use super::app::App;
use super::byte_input::ByteInput;
use super::events;
use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Rect, Size};
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// The smallest screen drawn (a pty may report 0x0 before it knows).
const MIN: (u16, u16) = (10, 3);

/// The largest screen drawn: bounds the work and the memory of a frame
/// whatever size a client claims.
const MAX: (u16, u16) = (1000, 500);

/// Take the screen: the alternate screen, bracketed paste, no cursor, a
/// clear screen (what `term::enter` writes locally, as bytes).
pub const ENTER: &[u8] = b"\x1b[?1049h\x1b[?2004h\x1b[?25l\x1b[2J";

/// Give the screen back: bracketed paste off, the main screen, the cursor.
pub const LEAVE: &[u8] = b"\x1b[?2004l\x1b[?1049l\x1b[?25h";

/// The buffer the backend writes into, shared with the [`Hosted`] that
/// takes the bytes out (crossterm's backend keeps its writer to itself).
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Sink {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A crossterm backend into a buffer, with a size it is told.
pub struct BufferBackend {
    inner: CrosstermBackend<Sink>,
    size: Size,
}

impl Backend for BufferBackend {
    type Error = io::Error;
    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> io::Result<()> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> io::Result<()> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> io::Result<Position> {
        // Never asked of the far terminal (that would be a round trip).
        Ok(Position::ORIGIN)
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> io::Result<()> {
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> io::Result<Size> {
        Ok(self.size)
    }
    fn window_size(&mut self) -> io::Result<WindowSize> {
        Ok(WindowSize {
            columns_rows: self.size,
            pixels: Size::default(),
        })
    }
    fn flush(&mut self) -> io::Result<()> {
        // The bytes stay in the buffer until `Hosted::take_output`.
        Ok(())
    }
}

/// One workbench hosted over a byte stream.
pub struct Hosted {
    pub app: App,
    term: Terminal<BufferBackend>,
    out: Sink,
    input: ByteInput,
    queue: VecDeque<ratatui::crossterm::event::Event>,
    /// Clear the screen and draw all of it at the next draw.
    redraw_all: bool,
}

fn clamp(w: u16, h: u16) -> Size {
    Size::new(w.clamp(MIN.0, MAX.0), h.clamp(MIN.1, MAX.1))
}

impl Hosted {
    /// A workbench of `width` x `height` cells; its first output takes the
    /// screen ([`ENTER`]) and draws all of it.
    pub fn new(app: App, width: u16, height: u16) -> Hosted {
        let size = clamp(width, height);
        let mut out = Sink::default();
        let _ = out.write_all(ENTER);
        let backend = BufferBackend {
            inner: CrosstermBackend::new(out.clone()),
            size,
        };
        let viewport = Viewport::Fixed(Rect::new(0, 0, size.width, size.height));
        // A fixed viewport asks the backend for nothing: this cannot fail.
        let term = match Terminal::with_options(backend, TerminalOptions { viewport }) {
            Ok(t) => t,
            Err(_) => unreachable!("a fixed viewport over a buffer"),
        };
        let mut app = app;
        app.dirty = true;
        Hosted {
            app,
            term,
            out,
            input: ByteInput::new(),
            queue: VecDeque::new(),
            redraw_all: false,
        }
    }

    /// The size drawn at.
    pub fn size(&self) -> Size {
        self.term.backend().size
    }

    /// Apply input bytes (one read). Ctrl-Z does nothing here (there is no
    /// shell to go back to); Ctrl-L draws the whole screen again.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.input.feed(bytes, &mut self.queue);
        while !self.queue.is_empty() && !self.app.quit {
            let req = events::apply(&mut self.app, &mut self.queue);
            self.redraw_all |= req.redraw_all;
        }
    }

    /// The client's window changed size.
    pub fn resize(&mut self, width: u16, height: u16) {
        let size = clamp(width, height);
        if size != self.size() {
            self.term.backend_mut().size = size;
            self.redraw_all = true;
            self.app.dirty = true;
        }
    }

    /// True when the next [`draw`](Self::draw) has something to draw.
    pub fn wants_draw(&self) -> bool {
        self.app.dirty || self.redraw_all
    }

    /// Draw what changed into the output (the whole screen after a
    /// resize or Ctrl-L). Returns true if anything was drawn.
    pub fn draw(&mut self) -> io::Result<bool> {
        if !self.wants_draw() {
            return Ok(false);
        }
        if self.redraw_all {
            let size = self.size();
            self.term.resize(Rect::new(0, 0, size.width, size.height))?;
            self.term.backend_mut().clear_region(ClearType::All)?;
            self.redraw_all = false;
        }
        let app = &mut self.app;
        self.term.draw(|f| super::render(app, f))?;
        self.app.dirty = false;
        Ok(true)
    }

    /// The bytes written since the last call (taking the screen, frames).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.out.take()
    }

    /// Bytes for the far terminal itself, written after a frame: the OSC
    /// 52 of `y` (the command line) and of a guest's `s` (the scenario).
    pub fn take_osc(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.app.osc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::Settings;

    fn app() -> App {
        App::new(crate::catalog::Catalog::load(None), Settings::default())
    }

    /// The output as text (escape sequences left in).
    fn text(out: &[u8]) -> String {
        String::from_utf8_lossy(out).into_owned()
    }

    #[test]
    fn the_first_frame_takes_the_screen_and_draws_the_workbench() {
        let mut h = Hosted::new(app(), 80, 24);
        assert!(h.draw().unwrap());
        let out = h.take_output();
        assert!(out.starts_with(ENTER));
        // The status line names the default device somewhere on screen.
        assert!(text(&out).contains("Hardware"), "{}", text(&out));
        // Nothing changed: nothing more to draw.
        assert!(!h.draw().unwrap());
        assert!(h.take_output().is_empty());
    }

    #[test]
    fn keys_as_bytes_drive_the_app_as_local_keys_do() {
        let mut h = Hosted::new(app(), 80, 24);
        h.draw().unwrap();
        let hw = h.app.hw;
        // Down in the hardware picker (focused at start) moves the selection.
        h.feed(b"\x1b[B");
        assert_ne!(h.app.hw, hw, "Down moved the selection");
        assert!(h.wants_draw());
        // q quits.
        h.feed(b"q");
        assert!(h.app.quit);
    }

    #[test]
    fn a_resize_redraws_everything_at_the_new_size_within_bounds() {
        let mut h = Hosted::new(app(), 80, 24);
        h.draw().unwrap();
        h.take_output();
        h.resize(100, 30);
        assert_eq!(h.size(), Size::new(100, 30));
        assert!(h.draw().unwrap());
        // Clear(All) is Esc [ 2 J.
        assert!(text(&h.take_output()).contains("\x1b[2J"));
        h.resize(0, 0);
        assert_eq!(h.size(), Size::new(MIN.0, MIN.1));
        h.resize(u16::MAX, u16::MAX);
        assert_eq!(h.size(), Size::new(MAX.0, MAX.1));
        assert!(h.draw().unwrap());
    }

    #[test]
    fn a_guests_save_goes_to_the_export_not_the_disk() {
        let mut a = app();
        a.session.guest = true;
        let mut h = Hosted::new(a, 80, 24);
        let cwd_file = std::path::Path::new(crate::tui::app::DEFAULT_SCENARIO_PATH);
        let existed = cwd_file.exists();
        h.feed(b"s");
        assert_eq!(
            h.take_osc(),
            crate::export::osc52(&h.app.to_scenario().to_toml()),
            "the scenario goes to the clipboard"
        );
        assert_eq!(h.app.mode, crate::tui::Mode::Normal, "no path entry opened");
        assert_eq!(cwd_file.exists(), existed, "nothing written");
        // Import is refused without opening its path entry; X exports
        // nothing, even with a directory to write into.
        h.feed(b"i");
        assert_eq!(h.app.mode, crate::tui::Mode::Normal);
        let dir = std::env::temp_dir().join(format!("ridgeline-guest-x-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        h.app.export_dir = Some(dir.clone());
        h.feed(b"X");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "X wrote nothing"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
