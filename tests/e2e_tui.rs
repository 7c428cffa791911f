//! End to end in a real terminal: the binary runs in a private tmux server,
//! keys are typed with send-keys, and the screen is read with capture-pane
//! until the expected text shows up (or a deadline passes). Skipped, with a
//! message, when tmux is not installed (.ci/run installs it).

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(10);

fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A tmux server of our own, killed on drop.
struct Tmux {
    sock: String,
    dir: PathBuf,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Tmux {
    /// Start the binary at `w`x`h`; after it exits the pane shows
    /// `EXIT=<code>` and the terminal modes are saved to `stty.txt`.
    fn start(w: u16, h: u16, args: &str) -> Tmux {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let sock = format!("ridgeline-e2e-{}-{n}", std::process::id());
        let dir = std::env::temp_dir().join(&sock);
        std::fs::create_dir_all(dir.join("config")).unwrap();
        let bin = env!("CARGO_BIN_EXE_ridgeline");
        let stty = dir.join("stty.txt");
        let script = format!(
            "{bin} {args}; echo EXIT=$?; stty -a > {}; sleep 30",
            stty.display()
        );
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
        Tmux { sock, dir }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.sock])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.tmux(&["send-keys", "-t", "t", k]);
        }
    }

    fn text(&self, s: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", s]);
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// Poll the screen until `pred` holds; panic with the screen if it never does.
    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
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

    fn wait_for(&self, text: &str) -> String {
        self.wait(text, |s| s.contains(text))
    }

    /// The pid of the program (the child of the pane's shell).
    fn program_pid(&self) -> u32 {
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
    fn exit_and_restored(&self) -> (String, bool) {
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

macro_rules! need_tmux {
    () => {
        if !have_tmux() {
            eprintln!("SKIPPED: tmux is not installed; the end-to-end TUI tests need it");
            return;
        }
    };
}

#[test]
fn a_user_at_80x24_with_arrow_keys() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait("the first frame", |s| {
        s.contains("h100-sxm") && s.contains("tok/s")
    });
    // A100 -> H100 -> H200: the status line follows the selection.
    t.keys(&["Up"]);
    t.wait_for("llama-3.1-8b · a100-sxm-80gb");
    t.keys(&["Down", "Down"]);
    let s = t.wait_for("llama-3.1-8b · h200-sxm");
    assert!(s.contains("memory-bound"), "{s}");
    // Right to the model list, filter for 70b.
    t.keys(&["Right"]);
    t.wait_for("Model 42");
    t.keys(&["/"]);
    t.text("70b");
    // The unfiltered list shows llama-3.1-70b too: wait until the 8B is gone.
    let s = t.wait("the 70b filter", |s| {
        s.contains("llama-3.1-70b") && !s.contains("llama-3.1-8b ")
    });
    assert!(s.contains("llama-3.3-70b"), "{s}");
    t.keys(&["Enter"]);
    // Right to the knobs, step the batch up twice.
    t.keys(&["Right", "Down"]);
    t.wait_for("Knobs");
    t.keys(&["Right", "Right"]);
    t.wait("batch 4", |s| {
        s.lines().any(|l| l.contains("batch") && l.contains(" 4 "))
    });
    // Type a bad value: the reason shows, the result is marked.
    t.keys(&["Down", "Enter"]);
    t.text("8kk");
    let s = t.wait_for("unknown unit");
    assert!(s.contains("LAST VALID"), "{s}");
    t.keys(&["Escape"]);
    t.wait("the entry to close", |s| !s.contains("unknown unit"));
    // Help, generated from the keymap.
    t.keys(&["?"]);
    let s = t.wait_for("Keys");
    assert!(s.contains("1 Roofline 2 Serving"), "{s}");
    // 80x24 is too short for every key: the list scrolls.
    t.keys(&["Down", "Down", "Down", "Down", "Down"]);
    let s = t.wait_for("ctrl-c");
    assert!(s.contains("save the workbench state"), "{s}");
    t.keys(&["Escape"]);
    t.wait("help to close", |s| !s.contains(" Keys "));
    // Up to the bar (one more Up reaches the views; Down comes back to
    // the panes) and across to the plot.
    for _ in 0..12 {
        t.keys(&["Up"]);
    }
    t.keys(&["Down", "Right", "Down"]);
    t.wait_for("FLOP/byte");
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored, "terminal left in raw mode");
}

#[test]
fn a_user_steps_through_the_views() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    // Number keys: each view with its own figures.
    t.keys(&["2"]);
    t.wait("the serving view", |s| {
        s.contains("[2 Serving]")
            && s.contains("time to first token")
            && s.contains("g CO2 per million tokens")
    });
    t.keys(&["3"]);
    t.wait("the ranking", |s| {
        s.contains("cheapest first") && s.contains("required compute")
    });
    // Type a target in place: a bad one says why, a good one re-ranks.
    t.keys(&["Enter"]);
    t.text("fast");
    t.wait_for("LAST VALID");
    t.keys(&["BSpace", "BSpace", "BSpace", "BSpace"]);
    t.text("100ms ttft");
    t.keys(&["Enter"]);
    t.wait_for("[100ms ttft]");
    t.keys(&["4"]);
    t.wait("the sweep", |s| {
        s.contains("Sweep against batch") && s.contains("bound")
    });
    t.keys(&["5"]);
    t.wait_for("speedup");
    t.keys(&["f"]);
    t.wait("the next family", |s| !s.contains("nvidia-datacenter ·"));
    // Arrow keys alone: Up to the bar, Up to the views, Right to Fleet.
    for _ in 0..3 {
        t.keys(&["Up"]);
    }
    t.keys(&["Right"]);
    t.wait("the fleet", |s| {
        s.contains("[6 Fleet]") && (s.contains("cheapest") || s.contains("no fleet"))
    });
    t.keys(&["Down", "Down"]);
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}

#[test]
fn the_capstone_scenario_opens_on_the_fleet() {
    need_tmux!();
    let dir = env!("CARGO_MANIFEST_DIR");
    let t = Tmux::start(
        120,
        36,
        &format!("--scenario {dir}/assets/scenarios/capstone-fleet.toml"),
    );
    t.wait("the capstone fleet", |s| {
        s.contains("[6 Fleet]")
            && s.contains("kg CO2/day")
            && s.contains("us-east")
            && s.contains("eu-west")
            && s.contains("budget $5M/yr")
    });
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
    // A bad file: the message, and the default screen.
    let t = Tmux::start(80, 24, "--scenario /no/such/scenario.toml");
    t.wait("the defaults and the message", |s| {
        s.contains("scenario not opened, defaults shown") && s.contains("[1 Roofline]")
    });
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
}

#[test]
fn resizing_redraws_and_too_small_says_so() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    t.tmux(&["resize-window", "-t", "t", "-x", "160", "-y", "48"]);
    let s = t.wait_for("Sensitivity +10%");
    assert!(s.contains("Knobs") && s.contains("FLOP/byte"), "{s}");
    t.tmux(&["resize-window", "-t", "t", "-x", "70", "-y", "20"]);
    t.wait_for("terminal too small: need 80x24");
    t.tmux(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    t.wait_for("tok/s");
    t.keys(&["C-c"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}

#[test]
fn sigterm_and_sighup_restore_the_terminal() {
    need_tmux!();
    for (sig, code) in [("TERM", "EXIT=143"), ("HUP", "EXIT=129")] {
        let t = Tmux::start(80, 24, "");
        t.wait_for("tok/s");
        let pid = t.program_pid();
        let ok = Command::new("kill")
            .args([&format!("-{sig}"), &pid.to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let (exit, restored) = t.exit_and_restored();
        assert_eq!(exit, code, "SIG{sig}: 128 + the signal number");
        assert!(restored, "SIG{sig} left the terminal in raw mode");
    }
}

#[test]
fn a_closed_terminal_ends_the_program() {
    need_tmux!();
    // crossterm's reader spins on a terminal that has hung up; the program
    // must still end (no orphan burning a core).
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    let pid = t.program_pid();
    t.tmux(&["kill-server"]);
    let start = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        // A zombie has no command line left: it has ended.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            break;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "the program (pid {pid}) outlived its terminal"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ascii_mode_draws_ascii_only() {
    need_tmux!();
    let t = Tmux::start(80, 24, "--ascii");
    t.wait_for("tok/s");
    t.keys(&["Tab", "Tab", "Tab"]);
    let s = t.wait_for("FLOP/byte");
    assert!(s.is_ascii(), "{s}");
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
}
