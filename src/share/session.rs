//! One shared session's workbench, on a thread of its own: the
//! connection hands it input bytes and window sizes ([`In`]), it hands
//! back frames ([`Out`]). Output is paced: a frame is drawn only when the
//! last one has gone out to the connection, so a slow or stalled client
//! gets fewer frames (always the latest state), never a growing queue.
//! A panic in the workbench ends this session only: it is caught, logged
//! and the client told.

use super::room::Role;
use crate::tui::hosted::{Hosted, LEAVE};
use crate::tui::{TuiOptions, app_from};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::Sender;

/// Input messages taken at most before a frame is drawn: under a flood
/// the screen still follows, a batch at a time (as the local loop does).
const BATCH: usize = 64;

/// What the connection hands the workbench.
#[derive(Debug)]
pub enum In {
    /// Bytes the client typed (one read).
    Bytes(Vec<u8>),
    /// The client's window is now this many columns and rows.
    Resize(u16, u16),
    /// Panic in the workbench (tests: a panic ends this session only).
    #[cfg(test)]
    Panic,
}

/// How often the workbench looks whether the frame in flight went out.
const SENT_POLL: Duration = Duration::from_millis(2);

/// How often the workbench looks whether the scaling curve its worker is
/// computing has landed.
const CURVE_POLL: Duration = Duration::from_millis(5);

/// What the workbench hands the connection.
#[derive(Debug)]
pub enum Out {
    /// Terminal output: a frame (and a scenario for the clipboard).
    Frame(Vec<u8>),
    /// The last bytes, then the exit status; the channel closes after.
    End(Vec<u8>, u32),
}

/// How a session starts.
pub struct Spec {
    pub tui: TuiOptions,
    /// The client's environment (env requests and the pty's TERM).
    pub env: Vec<(String, String)>,
    pub width: u16,
    pub height: u16,
    /// Close after this long without a key (None: never).
    pub idle: Option<Duration>,
    /// Who this is, for the server's log: "session 3 (127.0.0.1:51234)".
    pub label: String,
    /// Its part in a presented room (presenter, follower), if any.
    pub role: Role,
}

/// The client's variables as the workbench reads them: NO_COLOR and the
/// locale. A client that sends no locale (its ssh sends none unless told
/// to, `SendEnv LANG LC_*`) is taken to be UTF-8, as every terminal of
/// today is; one that sends a non-UTF-8 locale gets ASCII.
pub fn client_env(env: &[(String, String)], k: &str) -> Option<String> {
    let sent = |k: &str| {
        env.iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    };
    let no_locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .all(|v| sent(v).is_none_or(|s| s.is_empty()));
    match k {
        "LANG" if no_locale => Some("C.UTF-8".into()),
        _ => sent(k),
    }
}

/// Start the session's thread. `in_flight` is set by the thread when it
/// hands over a frame and cleared by the connection when the frame has
/// gone out; the thread draws again only then. The thread ends when the
/// user quits, on the idle timeout, or when `In`'s sender is dropped (the
/// connection closed).
pub fn spawn(
    mut spec: Spec,
    rx: Receiver<In>,
    out: Sender<Out>,
    in_flight: Arc<AtomicBool>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("ridgeline-share-session".into())
        .spawn(move || {
            let mut role = std::mem::replace(&mut spec.role, Role::Alone);
            let result = catch_unwind(AssertUnwindSafe(|| {
                run(&spec, &mut role, &rx, &out, &in_flight)
            }));
            let end = result.unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                super::log(&format!(
                    "{}: the workbench panicked ({what}); this session is closed, the others go on",
                    spec.label
                ));
                let mut bytes = LEAVE.to_vec();
                bytes.extend_from_slice(
                    b"ridgeline share: an internal error ended this session (the server logged it)\r\n",
                );
                Out::End(bytes, 1)
            });
            let _ = out.try_send(end);
        })?;
    Ok(())
}

/// The session until it ends: what to send last.
fn run(
    spec: &Spec,
    role: &mut Role,
    rx: &Receiver<In>,
    out: &Sender<Out>,
    in_flight: &AtomicBool,
) -> Out {
    let mut app = match app_from(&spec.tui, |k| client_env(&spec.env, k)) {
        Ok(app) => app,
        Err(e) => {
            let text = format!("ridgeline share: the workbench cannot start: {e}\r\n");
            return Out::End(text.replace('\n', "\r\n").into_bytes(), 1);
        }
    };
    // Nothing of a guest's session touches the server's files.
    app.session.guest = true;
    app.session.home = None;
    app.export_dir = None;
    let mut h = Hosted::new(app, spec.width, spec.height);
    // The scaling curve is computed on a worker, off the keys' path; the
    // loop looks for it while one is being computed. Without a worker (it
    // could not start) it is computed inline.
    let _ = h.app.train_curve.attach(|| {});
    role.start(&mut h.app);
    let mut last_key = Instant::now();
    loop {
        if h.app.quit {
            return Out::End(LEAVE.to_vec(), 0);
        }
        // A session watching the presenter is not idle.
        if role.tick(&mut h.app) {
            last_key = Instant::now();
        }
        crate::tui::update::land(&mut h.app);
        if !in_flight.load(Ordering::SeqCst) {
            let mut bytes = Vec::new();
            if h.wants_draw() {
                // Drawing into a buffer cannot fail; an error would be a
                // bug, and ends this session.
                if let Err(e) = h.draw() {
                    return ended(&format!("the screen could not be drawn: {e}"));
                }
                bytes = h.take_output();
            }
            bytes.extend(h.take_osc());
            if !bytes.is_empty() {
                in_flight.store(true, Ordering::SeqCst);
                if out.try_send(Out::Frame(bytes)).is_err() {
                    // The connection is gone.
                    return Out::End(Vec::new(), 0);
                }
            }
        }
        let idle_left = spec
            .idle
            .map(|idle| idle.saturating_sub(last_key.elapsed()));
        // While a frame is in flight, wake soon to see it go out.
        let wait = match (
            idle_left,
            in_flight.load(Ordering::SeqCst) && h.wants_draw(),
        ) {
            (Some(left), true) => Some(left.min(SENT_POLL)),
            (left, false) => left,
            (None, true) => Some(SENT_POLL),
        };
        // A presenter looks at the counts, a follower for a new stage; a
        // curve being computed is looked for.
        let curve = h.app.train_curve.pending().then_some(CURVE_POLL);
        let wait = [wait, role.poll(&h.app), curve].into_iter().flatten().min();
        let first = match wait {
            Some(wait) => match rx.recv_timeout(wait) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) if idle_left.is_none_or(|l| l > wait) => continue,
                Err(RecvTimeoutError::Timeout) => {
                    let idle = spec.idle.unwrap_or_default();
                    let mins = idle.as_secs_f64() / 60.0;
                    return ended(&format!(
                        "closed after {} without a key",
                        if mins >= 1.0 {
                            format!("{mins:.0} min")
                        } else {
                            format!("{:.0} s", idle.as_secs_f64())
                        }
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => return Out::End(Vec::new(), 0),
            },
            None => match rx.recv() {
                Ok(m) => m,
                Err(_) => return Out::End(Vec::new(), 0),
            },
        };
        let mut next = Some(first);
        let mut taken = 0;
        while let Some(m) = next.take() {
            match m {
                In::Bytes(b) => {
                    last_key = Instant::now();
                    role.before_key(&mut h.app);
                    h.feed(&b);
                }
                In::Resize(w, hh) => h.resize(w, hh),
                #[cfg(test)]
                In::Panic => panic!("a test panic"),
            }
            taken += 1;
            if taken >= BATCH || h.app.quit {
                break;
            }
            next = match rx.try_recv() {
                Ok(m) => Some(m),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => return Out::End(Vec::new(), 0),
            };
        }
    }
}

/// The screen given back with a line saying why the session ended.
fn ended(why: &str) -> Out {
    let mut bytes = LEAVE.to_vec();
    bytes.extend_from_slice(format!("ridgeline share: {why}\r\n").as_bytes());
    Out::End(bytes, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::sync_channel;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_clients_locale_and_no_color_are_its_own() {
        // No locale sent: UTF-8.
        assert_eq!(client_env(&[], "LANG").as_deref(), Some("C.UTF-8"));
        // A non-UTF-8 locale sent: kept (the workbench draws ASCII).
        let latin = env(&[("LANG", "en_US.ISO-8859-1")]);
        assert_eq!(
            client_env(&latin, "LANG").as_deref(),
            Some("en_US.ISO-8859-1")
        );
        assert!(!crate::tui::ui::locale_is_utf8(|k| client_env(&latin, k)));
        let nc = env(&[("NO_COLOR", "1")]);
        assert!(crate::tui::theme::no_color(|k| client_env(&nc, k)));
        assert!(!crate::tui::theme::no_color(|k| client_env(&[], k)));
    }

    fn spec(idle: Option<Duration>) -> Spec {
        Spec {
            tui: TuiOptions::default(),
            env: Vec::new(),
            width: 80,
            height: 24,
            idle,
            label: "test session".into(),
            role: Role::Alone,
        }
    }

    /// Run a session; return the handles to drive it.
    fn start(
        idle: Option<Duration>,
    ) -> (
        std::sync::mpsc::SyncSender<In>,
        tokio::sync::mpsc::Receiver<Out>,
        Arc<AtomicBool>,
    ) {
        let (tx, rx) = sync_channel(16);
        let (otx, orx) = tokio::sync::mpsc::channel(4);
        let flag = Arc::new(AtomicBool::new(false));
        spawn(spec(idle), rx, otx, Arc::clone(&flag)).unwrap();
        (tx, orx, flag)
    }

    fn recv(rx: &mut tokio::sync::mpsc::Receiver<Out>) -> Out {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match rx.try_recv() {
                Ok(o) => return o,
                Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => panic!("no output: {e:?}"),
            }
        }
    }

    #[test]
    fn a_stalled_client_gets_no_second_frame_until_the_first_is_sent() {
        let (tx, mut rx, flag) = start(None);
        assert!(matches!(recv(&mut rx), Out::Frame(_)));
        // The client does not take the frame (the flag stays set); keys
        // keep coming: no frame is drawn meanwhile.
        for _ in 0..50 {
            tx.send(In::Bytes(b"\x1b[B".to_vec())).unwrap();
        }
        std::thread::sleep(Duration::from_millis(300));
        assert!(rx.try_recv().is_err(), "no frame while one is in flight");
        // Sent: exactly one frame, of the latest state.
        flag.store(false, Ordering::SeqCst);
        assert!(matches!(recv(&mut rx), Out::Frame(_)));
        std::thread::sleep(Duration::from_millis(100));
        assert!(rx.try_recv().is_err(), "one frame, not one per key");
        // q ends it with the screen given back, status 0.
        flag.store(false, Ordering::SeqCst);
        tx.send(In::Bytes(b"q".to_vec())).unwrap();
        match recv(&mut rx) {
            Out::End(bytes, 0) => assert!(bytes.starts_with(LEAVE)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_panic_ends_its_session_only_with_a_line_and_status_1() {
        let (tx, mut rx, _flag) = start(None);
        let (tx2, mut rx2, flag2) = start(None);
        assert!(matches!(recv(&mut rx), Out::Frame(_)));
        assert!(matches!(recv(&mut rx2), Out::Frame(_)));
        tx.send(In::Panic).unwrap();
        match recv(&mut rx) {
            Out::End(bytes, 1) => {
                assert!(bytes.starts_with(LEAVE), "the screen is given back");
                let text = String::from_utf8_lossy(&bytes);
                assert!(
                    text.contains("an internal error ended this session"),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
        // The other session still answers a key.
        flag2.store(false, Ordering::SeqCst);
        tx2.send(In::Bytes(b"\x1b[B".to_vec())).unwrap();
        assert!(matches!(recv(&mut rx2), Out::Frame(_)));
    }

    #[test]
    fn a_scaling_curve_computed_on_the_sessions_worker_is_drawn_without_a_key() {
        let (tx, mut rx, flag) = start(None);
        assert!(matches!(recv(&mut rx), Out::Frame(_)));
        flag.store(false, Ordering::SeqCst);
        // The Training view with its scaling plot: the keys do not wait
        // for the twelve searches; the plot says it is computing them.
        tx.send(In::Bytes(b"7c".to_vec())).unwrap();
        let text = |o: Out| match o {
            Out::Frame(b) => String::from_utf8_lossy(&b).into_owned(),
            other => panic!("{other:?}"),
        };
        let first = text(recv(&mut rx));
        assert!(first.contains("UPDATING"), "{first}");
        // With no other key, the curve lands and is drawn: the knee's
        // line under it.
        let mut frames = String::new();
        while !frames.contains("knee at") {
            flag.store(false, Ordering::SeqCst);
            frames.push_str(&text(recv(&mut rx)));
        }
    }

    #[test]
    fn an_idle_session_closes_with_a_line_saying_so() {
        let (_tx, mut rx, flag) = start(Some(Duration::from_millis(200)));
        assert!(matches!(recv(&mut rx), Out::Frame(_)));
        flag.store(false, Ordering::SeqCst);
        match recv(&mut rx) {
            Out::End(bytes, _) => {
                let text = String::from_utf8_lossy(&bytes);
                assert!(text.contains("without a key"), "{text}");
            }
            other => panic!("{other:?}"),
        }
    }
}
