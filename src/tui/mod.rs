//! The interactive workbench. Elm-style: keys become [`Action`]s,
//! [`update`] changes the [`App`] and recomputes every figure from the pure
//! solver, [`render`] draws the whole screen from the app alone. The loop
//! draws only when something changed.

pub mod action;
pub mod app;
pub mod byte_input;
pub mod events;
mod export;
pub mod follow;
pub mod form;
pub mod hosted;
mod import;
pub mod keymap;
pub mod knobs;
pub mod lesson;
pub mod panes;
pub mod scenario_io;
pub mod term;
pub mod theme;
pub mod ui;
pub mod update;
pub mod views;
pub mod worker;

#[cfg(test)]
mod cells_tests;
#[cfg(test)]
mod export_tests;
#[cfg(test)]
mod generations_tests;
#[cfg(test)]
mod snapshot_tests;

pub use action::{Action, Command};
pub use app::{App, Mode, Pane, Settings};
pub use ui::render;
pub use update::update;
pub use views::View;

use crate::catalog::{self, Catalog};
use ratatui::DefaultTerminal;
use std::collections::VecDeque;
use std::io::{self, IsTerminal};
use std::path::PathBuf;
use term::{Inbox, Next};

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
    /// A scenario file to open (`--scenario FILE`); one that cannot be
    /// opened ends the program with status 2 before the terminal is touched.
    pub scenario: Option<PathBuf>,
    /// A lesson to give (`ridgeline lesson NAME|FILE`): a file, or a
    /// built-in lesson's name; one that cannot be read ends the program
    /// with status 2 before the terminal is touched.
    pub lesson: Option<String>,
}

/// How the workbench ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit.
    Quit,
    /// A signal ended it (`term::TERMINATING`; a closed terminal is SIGHUP).
    Signal(i32),
    /// It did not start: bad input (a `--scenario` file that cannot be
    /// opened), said on stderr before the terminal was touched.
    BadInput,
}

impl Exit {
    /// The conventional exit status: 0, or 128 + the signal number
    /// (129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 143 SIGTERM).
    pub fn code(self) -> u8 {
        match self {
            Exit::Quit => 0,
            Exit::BadInput => 2,
            Exit::Signal(n) => (128 + n).clamp(0, 255) as u8,
        }
    }
}

/// The most events applied before the screen is drawn: under a flood of
/// input the screen still follows, a batch at a time.
const BATCH: usize = 1024;

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

/// Build the app from the options and the environment: catalog, themes,
/// keymap, NO_COLOR and the locale; then open `--scenario`, whose every
/// problem is the error, and start the lesson, if one is asked for.
pub fn app_from_env(opts: &TuiOptions) -> Result<App, String> {
    app_with(opts, env, true)
}

/// [`app_from_env`] with the variables NO_COLOR and the locale are read
/// from given by `env` (a shared session's are its client's).
pub fn app_from(opts: &TuiOptions, env: impl Fn(&str) -> Option<String>) -> Result<App, String> {
    app_with(opts, env, false)
}

/// The workbench; with `local`, the machine it runs on is detected and
/// `local` heads the Hardware picker (a shared session's machine is not
/// its user's, so it gets none).
fn app_with(
    opts: &TuiOptions,
    env: impl Fn(&str) -> Option<String>,
    local: bool,
) -> Result<App, String> {
    let catalog_dir = catalog::user_catalog_dir(opts.catalog_dir.as_deref());
    let mut catalog = Catalog::load(catalog_dir.as_deref());
    if local {
        catalog.set_local_resolver(crate::probe::resolve_local);
        // A machine without figures has no `local` row; `ridgeline probe`
        // says why.
        let _ = catalog.add_local_entry();
    }
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
        ascii: opts.ascii || !ui::locale_is_utf8(&env),
        theme: opts.theme.clone(),
        no_color: theme::no_color(&env),
        themes,
        keymap,
        notices,
    };
    let mut app = App::new(catalog, settings);
    app.catalog_dir = catalog_dir;
    // `X` exports into the directory the workbench was started in.
    app.export_dir = std::env::current_dir().ok();
    if let Some(path) = &opts.scenario {
        app.open_scenario(path).map_err(|e| {
            format!("--scenario: the file cannot be opened; nothing was started:\n{e}")
        })?;
    }
    if let Some(name) = &opts.lesson {
        let l = crate::lesson::Lesson::open(name, &app.catalog)
            .map_err(|e| format!("lesson: it cannot be read; nothing was started:\n{e}"))?;
        lesson::start(&mut app, l);
        if app.presenter.on().is_none() {
            let why = app.message.take().map(|(_, m)| m).unwrap_or_default();
            return Err(format!("lesson {name}: {why}"));
        }
    }
    Ok(app)
}

/// Put the terminal back: bracketed paste off, main screen, cursor shown,
/// raw mode off. Safe to call more than once and on a terminal that is gone.
pub fn restore_terminal() {
    term::restore();
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

/// Run the workbench until the user quits or a terminating signal arrives.
/// The terminal is restored on every way out.
pub fn run(opts: TuiOptions) -> io::Result<Exit> {
    run_with(opts, &mut |_| None)
}

/// [`run`] with `tick` called before each frame: it may change the app
/// (say so with `app.dirty`), and returns how long the loop may wait for
/// a key before it must call again (None: as long as it likes). The
/// presenter of `ridgeline share --present` publishes its state here.
pub fn run_with(
    opts: TuiOptions,
    tick: &mut dyn FnMut(&mut App) -> Option<std::time::Duration>,
) -> io::Result<Exit> {
    let mut app = match app_from_env(&opts) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Exit::BadInput);
        }
    };
    // The workbench draws on a terminal and reads keys from it: without one
    // (input or output redirected) say so, and write nothing else.
    if !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        eprintln!(
            "error: the workbench needs a terminal; use a subcommand for scripts (ridgeline --help lists them)"
        );
        return Ok(Exit::BadInput);
    }
    let inbox = Inbox::start()?;
    // The scaling curve is computed off the keystroke's path; the loop
    // wakes when it lands. (A worker that cannot start leaves it inline.)
    let _ = app.train_curve.attach(inbox.waker());
    install_panic_hook();
    if let Err(e) = term::enter() {
        restore_terminal();
        return Err(e);
    }
    inbox.read_input();
    let result = ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(io::stdout()))
        .and_then(|mut t| event_loop(&mut t, &mut app, &inbox, tick));
    restore_terminal();
    inbox.done();
    match (result, inbox.fatal()) {
        // A terminal that went away fails to draw: the signal says why.
        (Err(_), Some(sig)) => Ok(Exit::Signal(sig)),
        (result, _) => result,
    }
}

/// Wait for input or a signal, take every event that is ready, apply them
/// all, draw once.
fn event_loop(
    term: &mut DefaultTerminal,
    app: &mut App,
    inbox: &Inbox,
    tick: &mut dyn FnMut(&mut App) -> Option<std::time::Duration>,
) -> io::Result<Exit> {
    let mut queue = VecDeque::new();
    let (mut redraw_all, mut suspend) = (false, false);
    loop {
        if let Some(sig) = inbox.fatal() {
            return Ok(Exit::Signal(sig));
        }
        if app.quit {
            return Ok(Exit::Quit);
        }
        if suspend || inbox.take_suspend() {
            term::suspend();
            // Continued (`fg`): the SIGCONT needs no second resume.
            inbox.take_resumed();
            term::resume()?;
            redraw_all = true;
        } else if inbox.take_resumed() {
            // Continued after a stop from outside (SIGSTOP): the shell may
            // have reset the terminal meanwhile.
            term::resume()?;
            redraw_all = true;
        }
        if redraw_all {
            // Clear the screen and forget what was drawn. (`clear` would
            // first ask the terminal where its cursor is: a round trip that
            // the input thread stands in the way of.)
            let size = term.size()?;
            term.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))?;
            app.dirty = true;
            redraw_all = false;
        }
        update::land(app);
        let wait = tick(app);
        if app.dirty {
            term.draw(|f| render(app, f))?;
            app.dirty = false;
        }
        if !app.osc.is_empty() {
            // The clipboard's OSC 52 (`y`): through the terminal's own
            // writer, between frames.
            use std::io::Write;
            let bytes = std::mem::take(&mut app.osc);
            let w = term.backend_mut();
            w.write_all(&bytes)?;
            w.flush()?;
        }
        if queue.is_empty() {
            let next = match wait {
                Some(d) => inbox.next_timeout(d)?,
                None => inbox.next()?,
            };
            if let Next::Input(ev) = next {
                queue.push_back(ev);
            }
            while queue.len() < BATCH {
                match inbox.try_next()? {
                    Next::Input(ev) => queue.push_back(ev),
                    // A signal is seen to before more input.
                    Next::Signal | Next::Empty => break,
                    // Figures landed: taken before the next frame.
                    Next::Woken => {}
                }
            }
        }
        let req = events::apply(app, &mut queue);
        redraw_all |= req.redraw_all;
        suspend = req.suspend;
    }
}
