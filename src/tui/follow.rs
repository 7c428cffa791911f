//! Presenter and followers (`ridgeline share --present-key`): the state a
//! presenter shows, as a value ([`Stage`]) taken of one workbench and laid
//! on another, and where a session of a shared room stands ([`Room`]).
//!
//! State, not pixels: a stage is the scenario `s` saves (selection, marks,
//! knobs, view), the focused pane and the lesson with its step and whether
//! its answer is shown. Each follower lays it on its own `App` and draws it
//! at its own size, colours and charset. Nothing here does I/O; the server
//! (`share`) carries stages from one session to the others.

use super::app::{App, Pane};
use crate::lesson::Lesson;
use crate::scenario::Scenario;

/// Where a session of a shared room stands; drawn as a tag on the status
/// line (`panes::room`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Room {
    /// Showing the presenter's state (named) as it changes.
    Following(String),
    /// Branched off the presenter (named) into its own copy: a key did it.
    OnOwn(String),
    /// The presenter: how many sessions follow, how many went their own way.
    Presenting { following: usize, branched: usize },
}

/// What a presenter shows: everything a follower needs to show the same.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub scenario: Scenario,
    pub focus: Pane,
    pub lesson: Option<LessonAt>,
}

/// A lesson being given, where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonAt {
    pub lesson: Lesson,
    /// The step on screen, from 0.
    pub step: usize,
    /// On its script (the caption strip is up).
    pub on: bool,
    /// The step's answer is shown.
    pub revealed: bool,
}

impl Stage {
    /// The stage of a workbench.
    pub fn of(app: &App) -> Stage {
        Stage {
            scenario: app.to_scenario(),
            focus: app.focus,
            lesson: app.presenter.running.as_ref().map(|r| LessonAt {
                lesson: r.lesson.clone(),
                step: r.step,
                on: r.on,
                revealed: r.revealed,
            }),
        }
    }

    /// Lay the stage on a workbench: the lesson and its step first (a
    /// step sets a state), then the presenter's state over it, then the
    /// focus. On a state this workbench refuses (a device of the
    /// presenter's own catalog, say) it says why and keeps its own.
    pub fn apply(&self, app: &mut App) -> Result<(), String> {
        match &self.lesson {
            Some(at) => {
                // What a started lesson says (its keys) is the presenter's
                // to use, not the follower's.
                let said = app.message.clone();
                super::lesson::follow(app, &at.lesson, at.step);
                app.message = said;
            }
            None => app.presenter.running = None,
        }
        app.presenter.picker = None;
        app.apply_scenario(&self.scenario)?;
        if let (Some(at), Some(r)) = (&self.lesson, &mut app.presenter.running) {
            r.on = at.on;
            r.revealed = at.revealed;
        }
        super::lesson::refresh(app);
        if Pane::of(app.view).contains(&self.focus) {
            app.focus = self.focus;
        }
        app.in_bar = false;
        app.bar_view = false;
        app.dirty = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Command;
    use crate::tui::app::Settings;
    use crate::tui::views::View;

    fn app() -> App {
        App::new(crate::catalog::Catalog::load(None), Settings::default())
    }

    fn cmd(app: &mut App, c: Command) {
        crate::tui::update::update(app, crate::tui::action::Action::Do(c));
    }

    #[test]
    fn a_followers_workbench_shows_the_presenters_state() {
        let mut presenter = app();
        // Down in the hardware list (focused at start), a knob up, the
        // Serving view (2): three changes a follower must show.
        cmd(&mut presenter, Command::Down);
        cmd(&mut presenter, Command::Increase);
        cmd(&mut presenter, Command::View2);
        let stage = Stage::of(&presenter);
        let mut follower = app();
        assert_ne!(follower.to_scenario(), presenter.to_scenario());
        stage.apply(&mut follower).unwrap();
        assert_eq!(follower.to_scenario(), presenter.to_scenario());
        assert_eq!(follower.view, View::Serving);
        assert_eq!(follower.hw, presenter.hw);
        assert_eq!(follower.focus, presenter.focus);
        // Laid again: nothing changes (a follower may be given a stage twice).
        stage.apply(&mut follower).unwrap();
        assert_eq!(Stage::of(&follower), stage);
    }

    #[test]
    fn the_lesson_step_and_the_answer_are_the_presenters() {
        let mut presenter = app();
        let l = Lesson::open("knobs", &presenter.catalog).unwrap();
        crate::tui::lesson::start(&mut presenter, l);
        cmd(&mut presenter, Command::NextStep);
        cmd(&mut presenter, Command::Reveal);
        let stage = Stage::of(&presenter);
        let at = stage.lesson.as_ref().unwrap();
        assert_eq!((at.step, at.on), (1, true));
        let mut follower = app();
        stage.apply(&mut follower).unwrap();
        let r = follower.presenter.on().expect("the lesson is on");
        assert_eq!(r.step, 1);
        assert_eq!(r.revealed, at.revealed);
        // The caption is filled for the follower as for the presenter.
        let caption = |a: &App| a.presenter.on().unwrap().text.clone();
        assert_eq!(caption(&follower), caption(&presenter));
        assert_eq!(follower.to_scenario(), presenter.to_scenario());
        // The presenter steps back and leaves the script: so does the follower.
        cmd(&mut presenter, Command::PrevStep);
        cmd(&mut presenter, Command::Cancel);
        Stage::of(&presenter).apply(&mut follower).unwrap();
        let r = follower.presenter.running.as_ref().unwrap();
        assert_eq!((r.step, r.on), (0, false));
        // No lesson at the presenter's: none at the follower's.
        presenter.presenter.running = None;
        Stage::of(&presenter).apply(&mut follower).unwrap();
        assert!(follower.presenter.running.is_none());
    }

    #[test]
    fn a_stage_this_workbench_refuses_changes_nothing() {
        let presenter = app();
        let mut stage = Stage::of(&presenter);
        stage.scenario.hardware = Some("no-such-device".into());
        let mut follower = app();
        let before = follower.to_scenario();
        let e = stage.apply(&mut follower).unwrap_err();
        assert!(e.contains("no-such-device"), "{e}");
        assert_eq!(follower.to_scenario(), before);
    }
}
