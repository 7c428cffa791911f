//! The tmux harness of the end-to-end tests: the binary in a private tmux
//! server, keys typed with send-keys, the screen read with capture-pane,
//! and the terminal's modes read back (alternate screen and cursor from
//! tmux, raw or cooked from stty, bracketed paste from the bytes the
//! program wrote).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const DEADLINE: Duration = Duration::from_secs(10);

pub fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A tmux server of our own, killed on drop.
pub struct Tmux {
    sock: String,
    pub dir: PathBuf,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Tmux {
    /// Start the binary at `w`x`h`; after it exits the pane shows
    /// `EXIT=<code>` and the terminal modes are saved to `stty.txt`.
    pub fn start(w: u16, h: u16, args: &str) -> Tmux {
        Tmux::run(w, h, |dir| {
            let bin = env!("CARGO_BIN_EXE_ridgeline");
            let stty = dir.join("stty.txt");
            // The program waits for `go`, so that everything it writes to the
            // terminal is also copied to `out.raw` (pipe-pane, set up in `run`).
            let go = dir.join("go");
            format!(
                "while [ ! -e {go} ]; do sleep 0.02; done; {bin} {args}; echo EXIT=$?; stty -a > {}; sleep 30",
                stty.display(),
                go = go.display(),
            )
        })
    }

    /// An interactive shell with job control (bash without line editing,
    /// so that it waits for a command in cooked mode), prompt `shell$ `.
    pub fn shell(w: u16, h: u16) -> Tmux {
        let t = Tmux::run(w, h, |_| {
            "env PS1='shell$ ' bash --norc --noprofile --noediting -i".to_string()
        });
        t.wait_for("shell$");
        t
    }

    /// Run `script(dir)` in a new tmux server, its output copied to `out.raw`.
    pub fn run(w: u16, h: u16, script: impl FnOnce(&std::path::Path) -> String) -> Tmux {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let sock = format!("ridgeline-e2e-{}-{n}", std::process::id());
        let dir = std::env::temp_dir().join(&sock);
        std::fs::create_dir_all(dir.join("config")).unwrap();
        let go = dir.join("go");
        let script = script(&dir);
        let status = Command::new("tmux")
            .args([
                "-L",
                &sock,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
            ])
            .args(["-x", &w.to_string(), "-y", &h.to_string()])
            // Run in the private directory: relative paths land there.
            .args(["-c", &dir.display().to_string()])
            .args([
                "-e",
                "LANG=C.UTF-8",
                "-e",
                "LC_ALL=C.UTF-8",
                "-e",
                "NO_COLOR=",
            ])
            .args([
                "-e",
                &format!("RIDGELINE_CONFIG_DIR={}", dir.join("config").display()),
            ])
            .arg(script)
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        let t = Tmux { sock, dir };
        let raw = t.dir.join("out.raw");
        t.tmux(&[
            "pipe-pane",
            "-o",
            "-t",
            "t",
            &format!("cat >> {}", raw.display()),
        ]);
        std::fs::write(&go, "").unwrap();
        t
    }

    /// Everything the program wrote to the terminal so far.
    pub fn raw(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(self.dir.join("out.raw")).unwrap_or_default())
            .into_owned()
    }

    /// Paste text the way a terminal does: with `bracketed`, wrapped in
    /// ESC[200~ ... ESC[201~ when the program asked for it (tmux
    /// paste-buffer -p); without, as typed characters (a terminal without
    /// bracketed paste).
    pub fn paste(&self, text: &str, bracketed: bool) {
        let file = self.dir.join("paste.txt");
        std::fs::write(&file, text).unwrap();
        let f = file.display().to_string();
        self.tmux(&["load-buffer", "-b", "p", &f]);
        let mut args = vec!["paste-buffer", "-b", "p", "-t", "t"];
        if bracketed {
            args.push("-p");
        }
        self.tmux(&args);
    }

    /// The pane's tty device (/dev/pts/N).
    pub fn tty(&self) -> String {
        self.tmux(&["display", "-p", "-t", "t", "#{pane_tty}"])
            .trim()
            .to_string()
    }

    /// The terminal modes as the terminal sees them now.
    pub fn modes(&self) -> Modes {
        let flags = self.tmux(&["display", "-p", "-t", "t", "#{alternate_on} #{cursor_flag}"]);
        let mut f = flags.split_whitespace();
        let alternate = f.next() == Some("1");
        let cursor_shown = f.next() == Some("1");
        let stty = Command::new("stty")
            .args(["-a", "-F", &self.tty()])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        let words: Vec<&str> = stty.split_whitespace().collect();
        let cooked = words.contains(&"icanon") && words.contains(&"echo");
        // tmux has no format for bracketed paste: the last switch the
        // program wrote decides.
        let raw = self.raw();
        let paste = match (raw.rfind("\x1b[?2004h"), raw.rfind("\x1b[?2004l")) {
            (Some(on), Some(off)) => on > off,
            (Some(_), None) => true,
            _ => false,
        };
        Modes {
            alternate,
            cursor_shown,
            cooked,
            paste,
        }
    }

    /// Wait until the terminal modes are `want`.
    pub fn wait_modes(&self, what: &str, want: Modes) {
        let start = Instant::now();
        loop {
            let m = self.modes();
            if m == want {
                return;
            }
            if start.elapsed() > DEADLINE {
                panic!("{what}: terminal modes {m:?}, want {want:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.sock])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "t", k]);
        }
    }

    pub fn text(&self, s: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", s]);
    }

    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// Poll the screen until `pred` holds; panic with the screen if it never does.
    pub fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > DEADLINE {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for(&self, text: &str) -> String {
        self.wait(text, |s| s.contains(text))
    }

    /// The pid of the program (the child of the pane's shell).
    pub fn program_pid(&self) -> u32 {
        let shell = self.tmux(&["display", "-p", "-t", "t", "#{pane_pid}"]);
        let shell = shell.trim();
        let path = format!("/proc/{shell}/task/{shell}/children");
        let start = Instant::now();
        loop {
            let children = std::fs::read_to_string(&path).unwrap_or_default();
            if let Some(pid) = children.split_whitespace().next() {
                return pid.parse().unwrap();
            }
            // Kernels without /proc/.../children: look for the parent in /proc/*/stat.
            if let Some(pid) = child_by_stat(shell) {
                return pid;
            }
            assert!(start.elapsed() < DEADLINE, "no child of the pane shell");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// After the program exits: its exit line, and whether canonical mode
    /// (cooked terminal) is back on.
    pub fn exit_and_restored(&self) -> (String, bool) {
        let s = self.wait("the program to exit", |s| s.contains("EXIT="));
        let line = s
            .lines()
            .find(|l| l.contains("EXIT="))
            .unwrap_or("")
            .trim()
            .to_string();
        let stty = self.dir.join("stty.txt");
        let start = Instant::now();
        let modes = loop {
            let m = std::fs::read_to_string(&stty).unwrap_or_default();
            if !m.is_empty() || start.elapsed() > DEADLINE {
                break m;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let restored = modes.split_whitespace().any(|w| w == "icanon")
            && modes.split_whitespace().any(|w| w == "echo");
        (line, restored)
    }
}

/// What a terminal program changes: the alternate screen, the cursor, the
/// line discipline (raw or cooked) and bracketed paste.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    pub alternate: bool,
    pub cursor_shown: bool,
    pub cooked: bool,
    pub paste: bool,
}

/// The workbench running: raw mode, alternate screen, cursor hidden,
/// bracketed paste on.
pub const RUNNING: Modes = Modes {
    alternate: true,
    cursor_shown: false,
    cooked: false,
    paste: true,
};

/// The terminal as the shell had it.
pub const RESTORED: Modes = Modes {
    alternate: false,
    cursor_shown: true,
    cooked: true,
    paste: false,
};

/// The state letter of a process (R, S, T for stopped, Z), from /proc.
pub fn process_state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')')
        .and_then(|(_, r)| r.trim_start().chars().next())
        .unwrap_or('?')
}

pub fn wait_state(pid: u32, want: char) {
    let start = Instant::now();
    while process_state(pid) != want {
        assert!(
            start.elapsed() < DEADLINE,
            "pid {pid} is in state {}, want {want}",
            process_state(pid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn kill(sig: &str, target: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), "--", target])
        .status()
        .unwrap();
    assert!(ok.success(), "kill -{sig} {target}");
}

/// The first process whose parent is `parent`, from /proc/*/stat.
fn child_by_stat(parent: &str) -> Option<u32> {
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1));
        if ppid == Some(parent) {
            return Some(pid);
        }
    }
    None
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.sock, "kill-server"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[macro_export]
macro_rules! need_tmux {
    () => {
        if !$crate::tmux::have_tmux() {
            eprintln!("SKIPPED: tmux is not installed; the end-to-end TUI tests need it");
            return;
        }
    };
}
