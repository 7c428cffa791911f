//! The interactive workbench. Elm-style: keys become [`Action`]s,
//! [`update`] changes the [`App`] and recomputes every figure from the pure
//! solver, [`render`] draws the whole screen from the app alone. The loop
//! draws only when something changed.

pub mod action;
pub mod app;
pub mod keymap;
pub mod knobs;
pub mod panes;
pub mod theme;
pub mod ui;
pub mod update;
pub mod views;

#[cfg(test)]
mod snapshot_tests;

pub use action::{Action, Command};
pub use app::{App, Mode, Pane, Settings};
pub use ui::render;
pub use update::update;
pub use views::View;

use crate::catalog::{self, Catalog};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::{cursor, execute, terminal};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How the workbench starts.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// A user catalog directory to lay over the built-in one (`--catalog`).
    pub catalog_dir: Option<PathBuf>,
    /// Draw with ASCII only (`--ascii`); also chosen when the locale is not UTF-8.
    pub ascii: bool,
    /// A theme by name (`--theme`).
    pub theme: Option<String>,
    /// The config directory (themes/, config.toml); default: catalog::config_dir().
    pub config_dir: Option<PathBuf>,
    /// A scenario file to open (`--scenario FILE`); a bad one is reported
    /// in the status line and the workbench opens with defaults.
    pub scenario: Option<PathBuf>,
}

/// How the workbench ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit.
    Quit,
    /// A signal ended it (SIGTERM 15, SIGHUP 1).
    Signal(i32),
}

impl Exit {
    /// The conventional exit status: 0, or 128 + the signal number
    /// (143 for SIGTERM, 129 for SIGHUP).
    pub fn code(self) -> u8 {
        match self {
            Exit::Quit => 0,
            Exit::Signal(n) => (128 + n).clamp(0, 255) as u8,
        }
    }
}

/// How often the loop wakes to check for SIGTERM/SIGHUP. Not a redraw
/// timer: nothing is drawn unless something changed.
const SIGNAL_POLL: Duration = Duration::from_millis(250);

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

/// Build the app from the options and the environment: catalog, themes,
/// keymap, NO_COLOR and the locale.
pub fn app_from_env(opts: &TuiOptions) -> App {
    let catalog = Catalog::load(catalog::user_catalog_dir(opts.catalog_dir.as_deref()).as_deref());
    let config = opts.config_dir.clone().or_else(catalog::config_dir);
    let mut notices = Vec::new();
    let user_themes = match &config {
        Some(dir) => theme::read_user_themes(&dir.join("themes"), &mut notices),
        None => Vec::new(),
    };
    let themes = theme::ThemeSet::load(catalog::builtin_themes(), &user_themes);
    let mut keymap = keymap::Keymap::default();
    if let Some(dir) = &config {
        let (km, problems) = keymap::Keymap::from_file(&dir.join("config.toml"));
        keymap = km;
        notices.extend(problems);
    }
    let settings = Settings {
        ascii: opts.ascii || !ui::locale_is_utf8(env),
        theme: opts.theme.clone(),
        no_color: theme::no_color(env),
        themes,
        keymap,
        notices,
        scenario: opts.scenario.clone(),
    };
    App::new(catalog, settings)
}

/// Put the terminal back: raw mode off, main screen, cursor shown. Safe to
/// call more than once and on a terminal that is gone.
pub fn restore_terminal() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
}

/// Restore the terminal before the previous panic hook prints, so the
/// message lands on a sane screen.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
    }));
}

/// Run the workbench until the user quits or a SIGTERM/SIGHUP arrives.
/// The terminal is restored on every way out.
pub fn run(opts: TuiOptions) -> io::Result<Exit> {
    let mut app = app_from_env(&opts);
    let stop = Arc::new(AtomicBool::new(false));
    let term_flag = Arc::new(AtomicBool::new(false));
    let hup_flag = Arc::new(AtomicBool::new(false));
    for (sig, flag) in [
        (signal_hook::consts::SIGTERM, &term_flag),
        (signal_hook::consts::SIGHUP, &hup_flag),
    ] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
        signal_hook::flag::register(sig, Arc::clone(flag))?;
    }
    install_panic_hook();
    let done = Arc::new(AtomicBool::new(false));
    watchdog(
        Arc::clone(&term_flag),
        Arc::clone(&hup_flag),
        Arc::clone(&done),
    );
    terminal::enable_raw_mode()?;
    if let Err(e) = execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide) {
        restore_terminal();
        return Err(e);
    }
    let result = ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(io::stdout()))
        .and_then(|mut term| event_loop(&mut term, &mut app, &stop));
    restore_terminal();
    done.store(true, Ordering::SeqCst);
    result?;
    Ok(if term_flag.load(Ordering::Relaxed) {
        Exit::Signal(signal_hook::consts::SIGTERM)
    } else if hup_flag.load(Ordering::Relaxed) {
        Exit::Signal(signal_hook::consts::SIGHUP)
    } else {
        Exit::Quit
    })
}

/// True when the process has no controlling terminal any more (the terminal
/// was closed: a dropped SSH session, a killed tmux).
fn terminal_gone() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_err()
}

/// Make sure a SIGTERM, a SIGHUP or a closed terminal ends the program even
/// when the main thread cannot see it: crossterm's reader loops forever on a
/// terminal that has hung up (read returns 0), so the event loop never gets
/// back to its flags. The watchdog gives the loop a moment to end on its
/// own, then restores the terminal and exits with 128 + the signal number.
fn watchdog(term: Arc<AtomicBool>, hup: Arc<AtomicBool>, done: Arc<AtomicBool>) {
    // Only watch the terminal if there was one to begin with.
    let had_tty = !terminal_gone();
    let _ = std::thread::Builder::new()
        .name("ridgeline-watchdog".into())
        .spawn(move || {
            loop {
                std::thread::sleep(SIGNAL_POLL);
                if done.load(Ordering::SeqCst) {
                    return;
                }
                let signal = if term.load(Ordering::SeqCst) {
                    Some(signal_hook::consts::SIGTERM)
                } else if hup.load(Ordering::SeqCst) || (had_tty && terminal_gone()) {
                    Some(signal_hook::consts::SIGHUP)
                } else {
                    None
                };
                if let Some(sig) = signal {
                    // The event loop checks its flags every SIGNAL_POLL.
                    std::thread::sleep(SIGNAL_POLL * 3);
                    if done.load(Ordering::SeqCst) {
                        return;
                    }
                    restore_terminal();
                    std::process::exit(Exit::Signal(sig).code() as i32);
                }
            }
        });
}

fn event_loop(term: &mut DefaultTerminal, app: &mut App, stop: &AtomicBool) -> io::Result<()> {
    loop {
        if app.dirty {
            term.draw(|f| render(app, f))?;
            app.dirty = false;
        }
        if app.quit || stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if !event::poll(SIGNAL_POLL)? {
            continue;
        }
        match event::read()? {
            Event::Key(k) => {
                if let Some(a) = keymap::action_for(app, &k) {
                    update(app, a);
                }
            }
            Event::Resize(_, _) => update(app, Action::Resize),
            _ => {}
        }
    }
}
