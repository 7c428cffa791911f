//! A presented room (`ridgeline share --present-key FILE`): the first
//! session logged in with a presenter's key presents, every other one
//! follows. The presenter's session publishes its stage
//! ([`Stage`](crate::tui::follow::Stage)) after each batch of keys through
//! a `tokio::sync::watch` channel, which holds the latest value only: a
//! follower that is slow to look skips the stages in between, nothing
//! queues. A following session lays the latest stage on its own workbench
//! and draws it at its own size; a key sends it its own way (the key takes
//! effect on its copy), `F` follows again.
//!
//! Each session's side is a [`Role`] its thread drives (`session::run`):
//! [`Role::start`] once, [`Role::before_key`] before a read of input is
//! fed, [`Role::tick`] before each frame.

use crate::tui::app::{App, Level};
use crate::tui::follow::{Room, Stage};
use russh::keys::PublicKey;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::watch;

/// How often a following session looks for a new stage.
const FOLLOW_POLL: Duration = Duration::from_millis(20);

/// How often the presenter's session looks at the counts.
const COUNT_POLL: Duration = Duration::from_millis(250);

/// A stage as published: who shows it.
#[derive(Debug)]
pub struct Shown {
    pub by: String,
    pub stage: Stage,
}

/// What the sessions of a presented room share.
pub struct Hall {
    /// The presenters' keys (`--present-key FILE`).
    keys: Vec<PublicKey>,
    tx: watch::Sender<Option<Arc<Shown>>>,
    /// A presenter's session is running.
    seat: AtomicBool,
    following: AtomicUsize,
    branched: AtomicUsize,
}

impl Hall {
    pub fn new(keys: Vec<PublicKey>) -> Hall {
        Hall {
            keys,
            tx: watch::Sender::new(None),
            seat: AtomicBool::new(false),
            following: AtomicUsize::new(0),
            branched: AtomicUsize::new(0),
        }
    }

    /// The presenter key `key` is, if it is one: its comment (or "the
    /// presenter" when it has none) names the presenter to the room.
    pub fn presenter_name(&self, key: &PublicKey) -> Option<String> {
        let k = self.keys.iter().find(|k| k.key_data() == key.key_data())?;
        let c = crate::catalog::fields::printable(k.comment().as_str_lossy().trim()).into_owned();
        Some(if c.is_empty() {
            "the presenter".into()
        } else {
            c
        })
    }

    /// The role of a new session: the presenter if it logged in with a
    /// presenter's key (`name`) and nobody presents now; else a follower.
    pub fn role(self: &Arc<Self>, name: Option<String>) -> Role {
        if let Some(name) = name
            && self
                .seat
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        {
            return Role::Presenter(Presenter {
                hall: Arc::clone(self),
                name,
                last: None,
                counts: None,
            });
        }
        Role::Follower(Follower {
            hall: Arc::clone(self),
            rx: self.tx.subscribe(),
            counted: None,
        })
    }

    /// (following, branched) now.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.following.load(Ordering::SeqCst),
            self.branched.load(Ordering::SeqCst),
        )
    }
}

/// A session's part in the room.
pub enum Role {
    /// No room (no `--present-key`).
    Alone,
    Presenter(Presenter),
    Follower(Follower),
}

/// The presenting session's side.
pub struct Presenter {
    hall: Arc<Hall>,
    name: String,
    /// The stage last published (boxed: a stage is large beside the
    /// other roles).
    last: Option<Box<Stage>>,
    counts: Option<(usize, usize)>,
}

/// A following (or branched) session's side.
pub struct Follower {
    hall: Arc<Hall>,
    rx: watch::Receiver<Option<Arc<Shown>>>,
    /// The counter this session adds one to (following or branched).
    counted: Option<bool>,
}

impl Role {
    /// The session starts: its tag, and the presenter's stage laid on it
    /// (a follower) or published (the presenter).
    pub fn start(&mut self, app: &mut App) {
        match self {
            Role::Alone => {}
            Role::Presenter(p) => {
                app.room = Some(Room::Presenting {
                    following: 0,
                    branched: 0,
                });
                p.tick(app);
            }
            Role::Follower(f) => {
                app.room = Some(Room::Following("the presenter".into()));
                f.tick(app, true);
            }
        }
    }

    /// Input is about to be fed: a following session goes its own way
    /// (the input then takes effect on its own copy; `F` comes back).
    pub fn before_key(&mut self, app: &mut App) {
        if let (Role::Follower(_), Some(Room::Following(p))) = (&*self, &app.room) {
            app.room = Some(Room::OnOwn(p.clone()));
        }
    }

    /// Before a frame: the presenter publishes a changed stage and shows
    /// the counts; a follower takes a new stage. True when a stage was
    /// laid on this workbench (the session is watching, not idle).
    pub fn tick(&mut self, app: &mut App) -> bool {
        match self {
            Role::Alone => false,
            Role::Presenter(p) => {
                p.tick(app);
                false
            }
            Role::Follower(f) => f.tick(app, false),
        }
    }

    /// How long the session may wait for input before it must look again.
    pub fn poll(&self, app: &App) -> Option<Duration> {
        match (self, &app.room) {
            (Role::Presenter(_), _) => Some(COUNT_POLL),
            (Role::Follower(_), Some(Room::Following(_))) => Some(FOLLOW_POLL),
            _ => None,
        }
    }
}

impl Presenter {
    fn tick(&mut self, app: &mut App) {
        let stage = Stage::of(app);
        if self.last.as_deref() != Some(&stage) {
            self.hall.tx.send_replace(Some(Arc::new(Shown {
                by: self.name.clone(),
                stage: stage.clone(),
            })));
            self.last = Some(Box::new(stage));
        }
        let counts = self.hall.counts();
        if self.counts != Some(counts) {
            self.counts = Some(counts);
            app.room = Some(Room::Presenting {
                following: counts.0,
                branched: counts.1,
            });
            app.dirty = true;
        }
    }
}

impl Drop for Presenter {
    fn drop(&mut self) {
        // The seat is free for the next presenter's login; followers keep
        // the last stage.
        self.hall.seat.store(false, Ordering::SeqCst);
    }
}

impl Follower {
    /// Count this session as following or branched, as its tag says.
    fn count(&mut self, app: &App) {
        let following = matches!(app.room, Some(Room::Following(_)));
        if self.counted == Some(following) {
            return;
        }
        self.uncount();
        let c = if following {
            &self.hall.following
        } else {
            &self.hall.branched
        };
        c.fetch_add(1, Ordering::SeqCst);
        self.counted = Some(following);
    }

    fn uncount(&mut self) {
        match self.counted.take() {
            Some(true) => self.hall.following.fetch_sub(1, Ordering::SeqCst),
            Some(false) => self.hall.branched.fetch_sub(1, Ordering::SeqCst),
            None => 0,
        };
    }

    /// Lay the latest stage on the workbench if it is new, or if the
    /// session has just come back to following (`F`) or just started.
    fn tick(&mut self, app: &mut App, force: bool) -> bool {
        let back = self.counted == Some(false);
        self.count(app);
        let Some(Room::Following(_)) = &app.room else {
            return false;
        };
        let new = matches!(self.rx.has_changed(), Ok(true));
        if !(force || back || new) {
            return false;
        }
        let shown = self.rx.borrow_and_update().clone();
        let Some(shown) = shown else {
            return false;
        };
        app.room = Some(Room::Following(shown.by.clone()));
        if let Err(e) = shown.stage.apply(app) {
            app.say(
                Level::Warn,
                format!("cannot show {}'s state here: {e}", shown.by),
            );
        }
        true
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.uncount();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::{Action, Command};
    use crate::tui::app::Settings;

    fn app() -> App {
        App::new(crate::catalog::Catalog::load(None), Settings::default())
    }

    fn key(app: &mut App, role: &mut Role, c: Command) {
        role.before_key(app);
        crate::tui::update::update(app, Action::Do(c));
        role.tick(app);
    }

    fn bob() -> PublicKey {
        // Made with `ssh-keygen -t ed25519` for the tests of keys.rs.
        PublicKey::from_openssh("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC6ZLeuIf8JbwSdFIdWFcgozPHkRrjEZ4r/TuPRcOoBC bob@example").unwrap()
    }

    #[test]
    fn one_presenter_at_a_time_named_by_its_keys_comment() {
        let hall = Arc::new(Hall::new(vec![bob()]));
        assert_eq!(hall.presenter_name(&bob()).as_deref(), Some("bob@example"));
        let first = hall.role(Some("bob@example".into()));
        assert!(matches!(first, Role::Presenter(_)));
        // A second login with the key follows while the first presents.
        assert!(matches!(
            hall.role(Some("bob@example".into())),
            Role::Follower(_)
        ));
        drop(first);
        assert!(matches!(
            hall.role(Some("bob@example".into())),
            Role::Presenter(_)
        ));
    }

    #[test]
    fn followers_follow_branch_on_a_key_and_come_back_with_f() {
        let hall = Arc::new(Hall::new(vec![bob()]));
        let (mut pa, mut p) = (app(), hall.role(Some("bob".into())));
        p.start(&mut pa);
        let (mut fa, mut f) = (app(), hall.role(None));
        f.start(&mut fa);
        assert_eq!(fa.room, Some(Room::Following("bob".into())));
        assert_eq!(hall.counts(), (1, 0));
        // The presenter moves: the follower shows it at its next tick.
        key(&mut pa, &mut p, Command::Down);
        key(&mut pa, &mut p, Command::View2);
        assert!(f.tick(&mut fa));
        assert_eq!(fa.to_scenario(), pa.to_scenario());
        // The presenter's tag counts 1 following, 0 branched.
        p.tick(&mut pa);
        assert_eq!(
            pa.room,
            Some(Room::Presenting {
                following: 1,
                branched: 0
            })
        );
        // A key of the follower's: its own way, and the key took effect.
        let before = fa.to_scenario();
        key(&mut fa, &mut f, Command::Increase);
        assert_eq!(fa.room, Some(Room::OnOwn("bob".into())));
        assert_ne!(
            fa.to_scenario(),
            before,
            "the key stepped the follower's knob"
        );
        assert_eq!(hall.counts(), (0, 1));
        // The presenter moves on: the branched follower stays put.
        key(&mut pa, &mut p, Command::Up);
        assert!(!f.tick(&mut fa));
        assert_ne!(fa.to_scenario(), pa.to_scenario());
        // F: following again, on the presenter's latest state.
        key(&mut fa, &mut f, Command::Follow);
        assert_eq!(fa.room, Some(Room::Following("bob".into())));
        assert_eq!(fa.to_scenario(), pa.to_scenario());
        assert_eq!(hall.counts(), (1, 0));
        // A follower that ends is counted no more.
        drop(f);
        assert_eq!(hall.counts(), (0, 0));
    }

    #[test]
    fn a_slow_follower_gets_the_latest_stage_not_each_one() {
        let hall = Arc::new(Hall::new(vec![bob()]));
        let (mut pa, mut p) = (app(), hall.role(Some("bob".into())));
        p.start(&mut pa);
        let mut rx = hall.tx.subscribe();
        rx.mark_unchanged();
        // Ten changes without the follower looking: one value waits, the
        // last (the channel holds one).
        for _ in 0..10 {
            key(&mut pa, &mut p, Command::Down);
        }
        assert!(rx.has_changed().unwrap());
        let shown = rx.borrow_and_update().clone().unwrap();
        assert_eq!(shown.stage, Stage::of(&pa));
        assert!(!rx.has_changed().unwrap(), "nothing else queued");
    }
}
