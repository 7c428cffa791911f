//! The terminal around the workbench. While it runs: raw mode, the
//! alternate screen, bracketed paste, the cursor hidden. Every way out puts
//! them back: quit, a terminating signal, a closed terminal, a panic, and a
//! suspend (Ctrl-Z or SIGTSTP), after which SIGCONT takes them again and
//! the whole screen is drawn anew.
//!
//! Input is read on a thread of its own and signals are caught on another;
//! both hand over through one channel, so the loop wakes for either at once
//! and takes everything that is ready before it draws.

use ratatui::crossterm::event::{self, DisableBracketedPaste, EnableBracketedPaste, Event};
use ratatui::crossterm::{cursor, execute, terminal};
use signal_hook::consts::signal::*;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc::{Receiver, RecvError, SyncSender, TryRecvError, sync_channel};
use std::time::{Duration, Instant};

/// Signals that end the program, as 128 + the number (restoring the
/// terminal first): those whose default action is to terminate and that a
/// user or a script sends (kill, timeout, a closed SSH session). SIGPIPE is
/// ignored by the Rust runtime; SIGTSTP and SIGCONT suspend and resume.
pub const TERMINATING: [i32; 9] = [
    SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGVTALRM, SIGPROF,
];

/// Signals whose default action ends the program at once, most with a
/// core dump: a fault of the program itself (an abort, which an
/// allocation failure or a panic under `panic = "abort"` also is; an
/// arithmetic or illegal-instruction trap; a bad system call), a resource
/// limit (CPU time, file size) or one sent by hand. The loop cannot be
/// asked to end for these: a handler writes the restore sequence and puts
/// the line discipline back, then the signal takes its default action.
/// (SIGSEGV and SIGBUS stay with the Rust runtime, which reports a stack
/// overflow through them.)
#[cfg(unix)]
pub const FAULTS: &[i32] = &[
    SIGABRT,
    SIGFPE,
    SIGILL,
    SIGXCPU,
    SIGXFSZ,
    SIGSYS,
    SIGTRAP,
    #[cfg(any(target_os = "linux", target_os = "android"))]
    libc::SIGSTKFLT,
];

/// How many events the channel holds before the reader waits (the rest
/// stays in the terminal): memory stays bounded under any flood.
const CHANNEL: usize = 4096;

/// How often the watchdog looks at the terminal and the signals.
const WATCH: Duration = Duration::from_millis(250);

/// How long the loop has to end by itself after a terminating signal or a
/// closed terminal before the watchdog restores the terminal and exits.
const GRACE: Duration = Duration::from_millis(750);

/// Take the terminal: raw mode, alternate screen, bracketed paste, no
/// cursor. Raw mode is set afresh (crossterm skips it when it believes it is
/// on, which is wrong after a stop: the shell may have reset the terminal).
pub fn enter() -> io::Result<()> {
    let _ = terminal::disable_raw_mode();
    #[cfg(unix)]
    fault::save_modes();
    terminal::enable_raw_mode()?;
    execute!(
        io::stdout(),
        terminal::EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    )
}

/// Put the terminal back: bracketed paste off, main screen, cursor shown,
/// raw mode off. Safe to call more than once and on a terminal that is gone.
pub fn restore() {
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
    let _ = terminal::disable_raw_mode();
}

/// Give the terminal back and stop, as the terminal's own Ctrl-Z would:
/// the whole process group, so a parent waiting on the workbench (a script,
/// `git commit`) stops too and the shell gets the terminal. SIGSTOP rather
/// than SIGTSTP, which would only come back to this program's handler.
/// Returns once continued; the caller takes the terminal again.
pub fn suspend() {
    restore();
    #[cfg(unix)]
    let _ = rustix::process::kill_current_process_group(rustix::process::Signal::STOP);
}

/// Take the terminal again after a stop. Right after SIGCONT the terminal
/// can refuse for a moment (an interrupted call): try a few times.
pub fn resume() -> io::Result<()> {
    let mut tries = 0;
    loop {
        match enter() {
            Ok(()) => return Ok(()),
            Err(e) if tries >= 10 => return Err(e),
            Err(_) => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// True when the process has no controlling terminal any more (the
/// terminal was closed: a dropped SSH session, a killed tmux).
fn terminal_gone() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_err()
}

/// What the input and signal threads hand to the loop.
enum Msg {
    Input(Event),
    /// The terminal could not be read.
    Failed(io::Error),
    /// A signal arrived (its flag is set in `Flags`).
    Signal,
    /// A worker has figures for the app (`Inbox::waker`).
    Woken,
}

/// What signals asked for, set by the threads, taken by the loop.
#[derive(Default)]
struct Flags {
    /// The first terminating signal (0: none).
    fatal: AtomicI32,
    suspend: AtomicBool,
    resumed: AtomicBool,
    /// The loop has ended and restored the terminal.
    done: AtomicBool,
}

impl Flags {
    /// Keep the first terminating signal.
    fn set_fatal(&self, sig: i32) {
        let _ = self
            .fatal
            .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    }
}

/// One item for the loop.
pub enum Next {
    Input(Event),
    /// Nothing more is ready (only from `try_next`).
    Empty,
    /// A signal flag changed: look at `fatal`, `take_suspend`, `take_resumed`.
    Signal,
    /// A worker of the app has figures to hand over (the scaling curve).
    Woken,
}

/// The loop's side of the channel, with the signal flags.
pub struct Inbox {
    rx: Receiver<Msg>,
    tx: SyncSender<Msg>,
    flags: Arc<Flags>,
}

impl Inbox {
    /// Catch the signals and start the watchdog: before the terminal is
    /// taken, so that no signal finds it taken and unguarded.
    pub fn start() -> io::Result<Inbox> {
        #[cfg(unix)]
        fault::install();
        let (tx, rx) = sync_channel(CHANNEL);
        let flags = Arc::new(Flags::default());
        watch_signals(tx.clone(), Arc::clone(&flags))?;
        watchdog(tx.clone(), Arc::clone(&flags));
        Ok(Inbox { rx, tx, flags })
    }

    /// Start reading the terminal: after it is in raw mode.
    pub fn read_input(&self) {
        read_input(self.tx.clone());
    }

    /// What a worker calls when it has figures for the app: the loop
    /// wakes. Dropped when the channel is full (the loop is busy and takes
    /// the figures before its next frame anyway).
    pub fn waker(&self) -> impl Fn() + Send + 'static {
        let tx = self.tx.clone();
        move || {
            let _ = tx.try_send(Msg::Woken);
        }
    }

    /// Wait for the next item.
    pub fn next(&self) -> io::Result<Next> {
        match self.rx.recv() {
            Ok(m) => self.item(m),
            Err(RecvError) => Err(io::Error::other("the terminal reader stopped")),
        }
    }

    /// Wait for the next item at most `d` (then [`Next::Empty`]).
    pub fn next_timeout(&self, d: std::time::Duration) -> io::Result<Next> {
        match self.rx.recv_timeout(d) {
            Ok(m) => self.item(m),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(Next::Empty),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                Err(io::Error::other("the terminal reader stopped"))
            }
        }
    }

    /// The next item if one is ready.
    pub fn try_next(&self) -> io::Result<Next> {
        match self.rx.try_recv() {
            Ok(m) => self.item(m),
            Err(TryRecvError::Empty) => Ok(Next::Empty),
            Err(TryRecvError::Disconnected) => Err(io::Error::other("the terminal reader stopped")),
        }
    }

    fn item(&self, m: Msg) -> io::Result<Next> {
        match m {
            Msg::Input(e) => Ok(Next::Input(e)),
            // A terminal that is gone reads as a hang-up.
            Msg::Failed(_) if terminal_gone() => {
                self.flags.set_fatal(SIGHUP);
                Ok(Next::Signal)
            }
            Msg::Failed(e) => Err(e),
            Msg::Signal => Ok(Next::Signal),
            Msg::Woken => Ok(Next::Woken),
        }
    }

    /// The terminating signal that arrived, if one did.
    pub fn fatal(&self) -> Option<i32> {
        match self.flags.fatal.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }

    /// A SIGTSTP arrived since the last call.
    pub fn take_suspend(&self) -> bool {
        self.flags.suspend.swap(false, Ordering::SeqCst)
    }

    /// A SIGCONT arrived since the last call.
    pub fn take_resumed(&self) -> bool {
        self.flags.resumed.swap(false, Ordering::SeqCst)
    }

    /// The loop has restored the terminal: the watchdog stands down.
    pub fn done(&self) {
        self.flags.done.store(true, Ordering::SeqCst);
    }
}

/// Catch the terminating signals, SIGTSTP and SIGCONT on a thread: set the
/// flag and wake the loop. The wake-up is dropped if the channel is full:
/// the loop is busy and looks at the flags after every batch.
fn watch_signals(tx: SyncSender<Msg>, flags: Arc<Flags>) -> io::Result<()> {
    let mut wanted = TERMINATING.to_vec();
    wanted.extend([SIGTSTP, SIGCONT]);
    let mut signals = signal_hook::iterator::Signals::new(&wanted)?;
    std::thread::Builder::new()
        .name("ridgeline-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                match sig {
                    SIGTSTP => flags.suspend.store(true, Ordering::SeqCst),
                    SIGCONT => flags.resumed.store(true, Ordering::SeqCst),
                    n => flags.set_fatal(n),
                }
                let _ = tx.try_send(Msg::Signal);
            }
        })?;
    Ok(())
}

/// Make sure a terminating signal or a closed terminal ends the program
/// even when the loop cannot: crossterm's reader spins on a terminal that
/// has hung up, and a loop can be busy. After `GRACE` the watchdog
/// restores the terminal and exits with 128 + the signal number (a closed
/// terminal counts as SIGHUP).
fn watchdog(tx: SyncSender<Msg>, flags: Arc<Flags>) {
    // Only watch the terminal if there was one to begin with.
    let had_tty = !terminal_gone();
    let _ = std::thread::Builder::new()
        .name("ridgeline-watchdog".into())
        .spawn(move || {
            let mut since: Option<Instant> = None;
            loop {
                std::thread::sleep(WATCH);
                if flags.done.load(Ordering::SeqCst) {
                    return;
                }
                if had_tty && terminal_gone() {
                    flags.set_fatal(SIGHUP);
                    let _ = tx.try_send(Msg::Signal);
                }
                let sig = flags.fatal.load(Ordering::SeqCst);
                if sig == 0 {
                    continue;
                }
                let first = *since.get_or_insert_with(Instant::now);
                if first.elapsed() >= GRACE {
                    restore();
                    std::process::exit(128 + sig);
                }
            }
        });
}

/// Read the terminal on a thread of its own. crossterm's reader (with
/// `use-dev-tty`) waits with poll(2), so input left after one read is seen.
/// When the channel is full the reader waits, and the rest of the input
/// stays in the terminal. Nothing calls crossterm's `poll` to drain: with
/// `use-dev-tty` a zero timeout misses events it has already read
/// (crossterm#839); the channel says exactly what is ready.
fn read_input(tx: SyncSender<Msg>) {
    /// Tells the loop when the reader ends, even by a panic, so that it
    /// does not wait for input that will never come.
    struct Ended(SyncSender<Msg>);
    impl Drop for Ended {
        fn drop(&mut self) {
            let e = io::Error::other("the terminal reader stopped");
            let _ = self.0.try_send(Msg::Failed(e));
        }
    }
    let _ = std::thread::Builder::new()
        .name("ridgeline-input".into())
        .spawn(move || {
            let ended = Ended(tx.clone());
            loop {
                let msg = match event::read() {
                    Ok(ev) => Msg::Input(ev),
                    Err(e) => Msg::Failed(e),
                };
                let failed = matches!(msg, Msg::Failed(_));
                if tx.send(msg).is_err() || failed {
                    break;
                }
            }
            drop(ended);
        });
}

/// The terminal put back from a signal handler, for the [`FAULTS`]: only
/// async-signal-safe calls (write(2), tcsetattr(3), signal(2), raise(3))
/// and atomics; everything they need is set up before the terminal is
/// taken.
#[cfg(unix)]
mod fault {
    use std::os::fd::IntoRawFd;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicI32, Ordering};

    /// What [`super::restore`] writes through crossterm, as bytes:
    /// bracketed paste off, the main screen, the cursor shown.
    pub const RESTORE: &[u8] = b"\x1b[?2004l\x1b[?1049l\x1b[?25h";

    /// The terminal, opened once and kept open (-1: none; stdout and
    /// stdin are used instead).
    static TTY: AtomicI32 = AtomicI32::new(-1);

    /// The line discipline as it was before the first raw mode.
    static COOKED: OnceLock<libc::termios> = OnceLock::new();

    fn tty() -> (i32, i32) {
        match TTY.load(Ordering::SeqCst) {
            fd if fd >= 0 => (fd, fd),
            _ => (libc::STDOUT_FILENO, libc::STDIN_FILENO),
        }
    }

    /// Keep the terminal's modes before raw mode is set (only the first
    /// time: after a suspend the terminal is already cooked again).
    pub fn save_modes() {
        if COOKED.get().is_some() {
            return;
        }
        let (_, fd) = tty();
        let mut t = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: tcgetattr fills the termios it is given on success.
        if unsafe { libc::tcgetattr(fd, t.as_mut_ptr()) } == 0 {
            // SAFETY: initialised by the successful call above.
            let _ = COOKED.set(unsafe { t.assume_init() });
        }
    }

    /// Open the terminal and catch the fault signals, except one the
    /// parent set to be ignored (which stays ignored).
    pub fn install() {
        if TTY.load(Ordering::SeqCst) < 0
            && let Ok(f) = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
        {
            TTY.store(f.into_raw_fd(), Ordering::SeqCst);
        }
        for &sig in super::FAULTS {
            // SAFETY: sigaction with a zeroed struct, an empty mask and a
            // handler that only makes async-signal-safe calls.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_fault as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(sig, &act, std::ptr::null_mut());
            }
        }
    }

    /// Put the terminal back, then let the signal do what it does by
    /// default (end the program, with a core dump where it has one): it
    /// is raised again with the default action, and arrives when the
    /// handler returns.
    extern "C" fn on_fault(sig: libc::c_int) {
        let (out, modes) = tty();
        // SAFETY: write(2), tcsetattr(3), signal(2) and raise(3) are
        // async-signal-safe; COOKED is only read (an atomic load).
        unsafe {
            libc::write(out, RESTORE.as_ptr().cast(), RESTORE.len());
            if let Some(t) = COOKED.get() {
                libc::tcsetattr(modes, libc::TCSANOW, t);
            }
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn the_restore_bytes_are_what_crossterm_writes_to_restore() {
            use ratatui::crossterm::Command;
            use ratatui::crossterm::cursor::Show;
            use ratatui::crossterm::event::DisableBracketedPaste;
            use ratatui::crossterm::terminal::LeaveAlternateScreen;
            let mut s = String::new();
            DisableBracketedPaste.write_ansi(&mut s).unwrap();
            LeaveAlternateScreen.write_ansi(&mut s).unwrap();
            Show.write_ansi(&mut s).unwrap();
            assert_eq!(s.as_bytes(), super::RESTORE);
        }
    }
}
