//! Presenter mode: a lesson (src/lesson) stepping the live workbench.
//!
//! A step's state is applied as a scenario (`App::apply_scenario`); its
//! caption, question and answer are filled by the same code `ridgeline
//! lesson show` uses, from the figures of the workbench's CURRENT state, so
//! an audience's what-if moves the numbers; a figure that shows otherwise
//! than in the step's scripted state carries a `*`. `Esc` leaves the
//! script and keeps the state; the next-step key then returns to it (the
//! step is applied again). The caption strip and the picker are drawn by
//! `panes::caption`; here is the state and what the keys do to it.

use super::action::Command;
use super::app::{App, Level, Pane};
use super::views::View;
use crate::lesson::figures::{self, Figures};
use crate::lesson::{self, Lesson};
use crate::scenario::Scenario;

/// The presenter's state, in the app.
#[derive(Debug, Clone, Default)]
pub struct Presenter {
    /// The lesson being given (or left with Esc), if any.
    pub running: Option<Running>,
    /// The lesson picker (`L`), while open.
    pub picker: Option<Picker>,
}

/// The lesson picker: the built-in lessons and the selected row.
#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub row: usize,
    /// Name, title and number of steps of each built-in lesson (one that
    /// does not read shows its problem as its title).
    pub rows: Vec<(&'static str, String, usize)>,
}

/// A lesson being given.
#[derive(Debug, Clone)]
pub struct Running {
    pub lesson: Lesson,
    /// The step on screen, from 0.
    pub step: usize,
    /// On the script: the strip is up and the paging keys step. False
    /// after Esc (free exploration; the next-step key comes back).
    pub on: bool,
    /// The answer is shown.
    pub revealed: bool,
    /// The figures of the step's scripted state, or why there are none.
    script: Result<Figures, String>,
    /// The state the text was last filled for.
    seen: Option<Scenario>,
    /// The step's text filled from the current state, or why it cannot be.
    pub text: Result<Filled, String>,
}

/// A step's text filled from the workbench's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Filled {
    pub caption: String,
    pub question: Option<String>,
    pub answer: Option<String>,
    /// Some figure differs from the script's (and carries a `*`).
    pub changed: bool,
}

impl Running {
    /// "step 3/9".
    pub fn position(&self) -> String {
        format!("step {}/{}", self.step + 1, self.lesson.steps.len())
    }
}

impl Presenter {
    /// The lesson on its script (the strip is up).
    pub fn on(&self) -> Option<&Running> {
        self.running.as_ref().filter(|r| r.on)
    }
}

/// Start giving `lesson` on its first step.
pub fn start(app: &mut App, lesson: Lesson) {
    if lesson.steps.is_empty() {
        return app.say(Level::Error, format!("{}: no steps", lesson.title));
    }
    let title = lesson.title.clone();
    // Off the script until its first step is applied.
    app.presenter.running = Some(Running {
        lesson,
        step: 0,
        on: false,
        revealed: false,
        script: Err("not computed yet".into()),
        seen: None,
        text: Err("not computed yet".into()),
    });
    go(app, 0);
    if app.presenter.on().is_some() {
        let k = next_keys(app);
        app.say(Level::Info, format!("lesson: {title}; {k} steps"));
    } else {
        // Its first step was refused (the status line says why): no lesson.
        app.presenter.running = None;
    }
}

/// A follower's lesson: `lesson` on step `step` (started if another
/// lesson, or none, is running; the step applied if it is not the one on
/// screen). The presenter's state is laid over it after (`follow::Stage`).
pub fn follow(app: &mut App, lesson: &Lesson, step: usize) {
    let same = app
        .presenter
        .running
        .as_ref()
        .is_some_and(|r| r.lesson == *lesson);
    if !same {
        start(app, lesson.clone());
    }
    if app
        .presenter
        .running
        .as_ref()
        .is_some_and(|r| r.step != step || !r.on)
    {
        go(app, step);
    }
}

/// Apply step `i` of the running lesson: its state, its scripted figures;
/// the answer hidden again. On a state the workbench refuses, the lesson
/// stays where it was and the status line says why.
fn go(app: &mut App, i: usize) {
    let Some(r) = &mut app.presenter.running else {
        return;
    };
    let Some(step) = r.lesson.steps.get(i) else {
        return;
    };
    let state = step.state.clone();
    // The step is set before its state is applied, so that the recompute
    // the state causes fills this step's text; put back on a refusal.
    let script = figures::compute(&app.catalog, &state);
    let before = (r.step, r.on, r.revealed, r.script.clone());
    (r.step, r.on, r.revealed, r.script, r.seen) = (i, true, false, script, None);
    if let Err(e) = app.apply_scenario(&state) {
        if let Some(r) = &mut app.presenter.running {
            (r.step, r.on, r.revealed, r.script) = before;
            r.seen = None;
        }
        let msg = format!("step {} of the lesson cannot be applied: {e}", i + 1);
        return app.say(Level::Error, msg);
    }
    // The view's figures take the screen (below the strip the body is
    // small, and shows the focused pane alone).
    app.focus = if app.view == View::Roofline {
        Pane::Plot
    } else {
        Pane::View
    };
    app.in_bar = false;
    app.bar_view = false;
    refresh(app);
}

/// Fill the step's text from the current state (after every recompute;
/// the solver runs again only when the state changed).
pub fn refresh(app: &mut App) {
    let Some(r) = &app.presenter.running else {
        return;
    };
    if !r.on {
        return;
    }
    let now = app.to_scenario();
    if r.seen.as_ref() == Some(&now) {
        return;
    }
    let text = filled(&app.catalog, r, &now);
    if let Some(r) = &mut app.presenter.running {
        r.text = text;
        r.seen = Some(now);
    }
}

/// The step's caption, question and answer with the figures of `state`,
/// marked where they differ from the script's.
fn filled(cat: &crate::catalog::Catalog, r: &Running, state: &Scenario) -> Result<Filled, String> {
    let step = &r.lesson.steps[r.step];
    let live = figures::compute(cat, state)?;
    let empty = Figures::default();
    let script = r.script.as_ref().unwrap_or(&empty);
    let mut changed = false;
    let mut fill = |t: &str| {
        let (s, c) = lesson::fill_marked(t, &live, script);
        changed |= c;
        s
    };
    let caption = fill(&step.caption);
    let question = step.question.as_deref().map(&mut fill);
    let answer = step.answer.as_deref().map(&mut fill);
    Ok(Filled {
        caption,
        question,
        answer,
        changed,
    })
}

/// The next-step keys, for hints: "pagedown/]".
pub fn next_keys(app: &App) -> String {
    keys(app, Command::PageDown, Command::NextStep)
}

/// The previous-step keys: "pageup/[".
pub fn prev_keys(app: &App) -> String {
    keys(app, Command::PageUp, Command::PrevStep)
}

fn keys(app: &App, paging: Command, own: Command) -> String {
    let mut k: Vec<String> = app
        .keymap
        .keys(paging)
        .iter()
        .map(|k| k.to_string())
        .collect();
    k.extend(app.keymap.keys(own).iter().map(|k| k.to_string()));
    if k.is_empty() {
        "(unbound)".into()
    } else {
        k.join("/")
    }
}

/// The keys of the presenter and the picker, in the Normal mode. True when
/// the presenter took the command (the workbench does nothing more).
pub fn command(app: &mut App, cmd: Command) -> bool {
    if let Some(p) = &app.presenter.picker {
        picker_command(app, p.row, cmd);
        return cmd != Command::Quit;
    }
    let paused = app.presenter.running.as_ref().is_some_and(|r| !r.on);
    match cmd {
        Command::Lessons => {
            let at = app
                .presenter
                .running
                .as_ref()
                .and_then(|r| lesson::BUILT_IN.iter().position(|(n, _)| is(r, n)))
                .unwrap_or(0);
            let rows = lesson::BUILT_IN
                .iter()
                .map(|(name, _)| match Lesson::open(name, &app.catalog) {
                    Ok(l) => (*name, l.title, l.steps.len()),
                    Err(e) => (*name, e.to_string(), 0),
                })
                .collect();
            app.presenter.picker = Some(Picker { row: at, rows });
            true
        }
        Command::NextStep | Command::PrevStep if paused => {
            let i = app.presenter.running.as_ref().map_or(0, |r| r.step);
            go(app, i);
            if let Some(r) = app.presenter.on() {
                let msg = format!("back to the script: {}", r.position());
                app.say(Level::Info, msg);
            }
            true
        }
        Command::NextStep | Command::PageDown if app.presenter.on().is_some() => {
            step_by(app, 1);
            true
        }
        Command::PrevStep | Command::PageUp if app.presenter.on().is_some() => {
            step_by(app, -1);
            true
        }
        Command::Reveal if app.presenter.on().is_some() => {
            reveal(app);
            true
        }
        Command::NextStep | Command::PrevStep | Command::Reveal => {
            let k = app.keymap.first_key(Command::Lessons);
            app.say(Level::Info, format!("no lesson is on: {k} picks one"));
            true
        }
        _ => false,
    }
}

/// Whether the running lesson is the built-in one named `name`.
fn is(r: &Running, name: &str) -> bool {
    r.lesson.file == format!("built-in:{name}")
}

fn step_by(app: &mut App, delta: isize) {
    let Some(r) = app.presenter.on() else {
        return;
    };
    let n = r.lesson.steps.len();
    let to = r.step as isize + delta;
    if to < 0 {
        let k = next_keys(app);
        return app.say(Level::Info, format!("the first step; {k} goes on"));
    }
    if to as usize >= n {
        let esc = app.keymap.first_key(Command::Cancel);
        let msg = format!("the last step ({n}/{n}); {esc} leaves the lesson");
        return app.say(Level::Info, msg);
    }
    go(app, to as usize);
}

fn reveal(app: &mut App) {
    let Some(r) = &mut app.presenter.running else {
        return;
    };
    let has = r.lesson.steps[r.step].answer.is_some();
    if !has {
        return app.say(Level::Info, "this step has no answer to reveal");
    }
    r.revealed = !r.revealed;
}

/// Esc with nothing else to cancel: leave the script, keep the state.
/// False when no lesson is on.
pub fn leave(app: &mut App) -> bool {
    let Some(r) = &mut app.presenter.running else {
        return false;
    };
    if !r.on {
        return false;
    }
    r.on = false;
    let at = r.position();
    let k = app.keymap.first_key(Command::NextStep);
    app.say(
        Level::Info,
        format!("left the lesson at {at}; the state stays; {k} returns to the script"),
    );
    true
}

/// A key while the picker is open: Up/Down choose, Enter starts, Esc (or
/// the picker's own key) closes; the others wait.
fn picker_command(app: &mut App, row: usize, cmd: Command) {
    let Some(p) = &mut app.presenter.picker else {
        return;
    };
    let last = p.rows.len().saturating_sub(1);
    match cmd {
        Command::Up => p.row = row.saturating_sub(1),
        Command::Down => p.row = (row + 1).min(last),
        Command::Top | Command::PageUp => p.row = 0,
        Command::Bottom | Command::PageDown => p.row = last,
        Command::Cancel | Command::Lessons => app.presenter.picker = None,
        Command::Edit => {
            app.presenter.picker = None;
            let Some((name, _)) = lesson::BUILT_IN.get(row) else {
                return;
            };
            match Lesson::open(name, &app.catalog) {
                Ok(l) => start(app, l),
                Err(e) => app.say(Level::Error, format!("lesson {name}: {e}")),
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "lesson_tests.rs"]
mod tests;
