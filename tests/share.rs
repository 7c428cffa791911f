//! `ridgeline share` end to end: the server runs on a free loopback port
//! with a host key in a private config directory and an authorized_keys
//! file of a key pair made here with ssh-keygen; the real OpenSSH client
//! connects (in a private tmux for the workbench), types keys and reads
//! the screen. Then every refusal: a command, sftp, port forwarding, a key
//! not in the list, a world-readable host key, one session too many,
//! garbage bytes, a silent connection, a stalled client and one gone
//! half-open after its login. Then a room:
//! a presenter (a key's session, or the local terminal with `--present`)
//! and followers, and `--lesson`. Skipped, with a message, when
//! `ssh`, `ssh-keygen` or tmux is missing (.ci/run installs them).
#![cfg(feature = "share")]

mod tmux;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tmux::*;

fn have(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

macro_rules! need_ssh {
    () => {
        if !have("ssh", "-V") || !have("ssh-keygen", "-?") {
            eprintln!(
                "SKIPPED: the OpenSSH client (ssh, ssh-keygen) is not installed; the share tests need it"
            );
            return;
        }
    };
}

/// A private directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("ridgeline-share-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("config")).unwrap();
        Dir(d)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Make an Ed25519 key pair `dir/name`, `dir/name.pub`.
fn keygen(dir: &Dir, name: &str) -> PathBuf {
    let key = dir.path(name);
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(ok.success());
    key
}

/// The SHA256 fingerprint of a public key file, as ssh-keygen prints it.
fn fingerprint(pubkey: &Path) -> String {
    let out = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(pubkey)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split_whitespace().nth(1).unwrap().to_string()
}

/// A running `ridgeline share`, killed on drop.
struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
    /// The startup lines.
    banner: String,
}

impl Server {
    fn start(dir: &Dir, args: &[&str]) -> Server {
        let log = dir.path("server.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
            .args(["share", "--listen", "127.0.0.1:0"])
            .args(args)
            .env("RIDGELINE_CONFIG_DIR", dir.path("config"))
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut banner = String::new();
        // Five startup lines; the first names the port.
        for _ in 0..5 {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap() == 0 {
                let _ = child.kill();
                panic!(
                    "the server ended at start: {banner}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            banner.push_str(&line);
        }
        let port = banner
            .lines()
            .next()
            .and_then(|l| l.rsplit(':').next())
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no port in {banner}"));
        Server {
            child,
            port,
            log,
            banner,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Wait until the log holds `text`.
    fn wait_log(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let l = self.log();
            if l.contains(text) {
                return l;
            }
            assert!(start.elapsed() < DEADLINE, "no {text:?} in the log:\n{l}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The ssh command line for this server with `key`.
    fn ssh(&self, key: &Path) -> Vec<String> {
        ssh_argv(self.port, key)
    }

    /// Run ssh to completion with extra arguments (before the host) and a
    /// command after it; (status, stdout, stderr).
    fn ssh_run(&self, key: &Path, before: &[&str], after: &[&str]) -> (i32, String, String) {
        let argv = self.ssh(key);
        let out = Command::new(&argv[0])
            .args(&argv[1..])
            .args(before)
            .arg("127.0.0.1")
            .args(after)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// The ssh command line for a server on loopback `port` with `key`.
fn ssh_argv(port: u16, key: &Path) -> Vec<String> {
    let mut v: Vec<String> = [
        "ssh",
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "BatchMode=yes",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "LogLevel=ERROR",
        "-o",
        "ConnectTimeout=10",
        "-p",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(port.to_string());
    v.push("-i".into());
    v.push(key.display().to_string());
    v
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server for `alice` alone, and the directory with the keys.
fn alice_server(tag: &str, args: &[&str]) -> (Dir, Server, PathBuf) {
    let dir = Dir::new(tag);
    let alice = keygen(&dir, "alice");
    let keys = dir.path("alice.pub");
    let mut all = vec!["--authorized-keys", keys.to_str().unwrap()];
    all.extend_from_slice(args);
    let server = Server::start(&dir, &all);
    (dir, server, alice)
}

/// ssh into `server` with `key` in a private tmux of `w`x`h`.
fn client(server: &Server, key: &Path, w: u16, h: u16) -> Tmux {
    client_with(server, key, w, h, &[])
}

/// [`client`] with more ssh options (before the host).
fn client_with(server: &Server, key: &Path, w: u16, h: u16, extra: &[&str]) -> Tmux {
    client_at(server.port, key, w, h, extra)
}

/// ssh into a server on loopback `port` with `key` in a private tmux.
fn client_at(port: u16, key: &Path, w: u16, h: u16, extra: &[&str]) -> Tmux {
    let mut argv = ssh_argv(port, key);
    argv.extend(extra.iter().map(|s| s.to_string()));
    let cmd = argv
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    Tmux::run(w, h, |_| {
        format!("{cmd} -t 127.0.0.1; echo EXIT=$?; sleep 30")
    })
}

#[test]
fn a_user_connects_with_ssh_types_keys_and_quits() {
    need_ssh!();
    need_tmux!();
    let (_dir, server, alice) = alice_server("e2e", &[]);
    assert!(
        server
            .banner
            .contains("who can connect: the holders of the 1 key in"),
        "{}",
        server.banner
    );
    assert!(
        server.banner.contains("host key SHA256:"),
        "{}",
        server.banner
    );
    let t = client(&server, &alice, 80, 24);
    // The workbench opens on the default device and model, as locally
    // (tests/e2e_tui.rs: the first frame shows h100-sxm and tok/s).
    t.wait("the first frame", |s| {
        s.contains("h100-sxm") && s.contains("tok/s")
    });
    // Down from h100-sxm selects the next device, h200-sxm (as in
    // tests/e2e_tui.rs), and the status line follows.
    t.keys(&["Down"]);
    t.wait_for("llama-3.1-8b · h200-sxm");
    // The client's window grows: the pane bar at 100 columns lists every
    // view number ("2 3 4 5 6 7 8 9"), which 80 columns abbreviate to "2-9".
    t.tmux(&["resize-window", "-t", "t", "-x", "100", "-y", "30"]);
    t.wait_for("2 3 4 5 6 7 8 9");
    // Random bytes typed into the session (after the handshake): the
    // session goes on and still answers a key.
    let garbage = ["ff", "1b", "5b", "39", "39", "78", "c3", "00", "80", "fe"];
    let mut args = vec!["send-keys", "-t", "t", "-H"];
    args.extend(garbage);
    t.tmux(&args);
    t.keys(&["Escape", "Up"]);
    t.wait_for("llama-3.1-8b · h100-sxm");
    // s: the scenario goes to the client's clipboard (OSC 52), never to
    // the server's disk.
    t.keys(&["s"]);
    t.wait_for("copied to your clipboard");
    t.keys(&["q"]);
    t.wait_for("EXIT=0");
    let log = server.wait_log("ended");
    assert!(log.contains("logged in"), "{log}");
    assert!(
        !Path::new("ridgeline-scenario.toml").exists(),
        "nothing saved in the server's directory"
    );
}

#[test]
fn commands_sftp_and_forwarding_are_refused() {
    need_ssh!();
    let (_dir, server, alice) = alice_server("refuse", &[]);
    let (code, out, err) = server.ssh_run(&alice, &[], &["echo", "pwned"]);
    assert_ne!(code, 0);
    assert!(!out.contains("pwned"), "{out}");
    assert!(err.contains("commands are not run here"), "{err}");
    let (code, _, _) = server.ssh_run(&alice, &["-s"], &["sftp"]);
    assert_ne!(code, 0, "sftp refused");
    // A remote forward the server must open: refused, and with
    // ExitOnForwardFailure the client gives up.
    let (code, _, err) = server.ssh_run(
        &alice,
        &[
            "-N",
            "-o",
            "ExitOnForwardFailure=yes",
            "-R",
            "0:127.0.0.1:9",
        ],
        &[],
    );
    assert_ne!(code, 0, "{err}");
    // A local forward: the channel the client opens is refused.
    let (code, _, _) = server.ssh_run(&alice, &["-W", "127.0.0.1:9"], &[]);
    assert_ne!(code, 0);
    let log = server.wait_log("refused the subsystem");
    assert!(log.contains("refused a command"), "{log}");
    assert!(log.contains("refused remote port forwarding"), "{log}");
    assert!(
        log.contains("refused port forwarding to 127.0.0.1:9"),
        "{log}"
    );
}

#[test]
fn a_key_not_in_the_list_is_refused_and_logged_with_its_fingerprint() {
    need_ssh!();
    let (dir, server, _alice) = alice_server("badkey", &[]);
    let mallory = keygen(&dir, "mallory");
    let (code, _, err) = server.ssh_run(&mallory, &[], &[]);
    assert_eq!(code, 255, "{err}");
    assert!(err.contains("Permission denied"), "{err}");
    let fp = fingerprint(&dir.path("mallory.pub"));
    let log = server.wait_log(&fp);
    assert!(log.contains("auth refused: 127.0.0.1:"), "{log}");
    assert!(!log.contains("PRIVATE"), "no secret in the log");
}

#[test]
fn a_host_key_others_can_read_stops_the_start() {
    need_ssh!();
    use std::os::unix::fs::PermissionsExt;
    let dir = Dir::new("hostkey");
    let key = dir.path("config/share_host_ed25519_key");
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(["share", "--listen", "127.0.0.1:0"])
        .env("RIDGELINE_CONFIG_DIR", dir.path("config"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mode 0644") && err.contains("chmod 600"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing was served");
}

#[test]
fn one_session_too_many_gets_a_line_and_a_clean_close() {
    need_ssh!();
    need_tmux!();
    let (_dir, server, alice) = alice_server("full", &["--max-sessions", "1"]);
    let first = client(&server, &alice, 80, 24);
    first.wait_for("tok/s");
    // -tt: a pty although the test has no terminal.
    let (code, out, err) = server.ssh_run(&alice, &["-tt"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("all 1 sessions are taken"), "{out}{err}");
    // The first session is untouched.
    first.keys(&["Down"]);
    first.wait_for("llama-3.1-8b · h200-sxm");
}

#[test]
fn garbage_and_silent_connections_are_dropped_without_touching_others() {
    need_ssh!();
    let (_dir, server, alice) = alice_server("garbage", &[]);
    // A connection that never speaks (half-open as far as SSH goes).
    let _silent = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    // One that sends garbage instead of an SSH hello.
    let mut junk = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    junk.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let _ = junk.write_all(&bytes);
    let mut rest = Vec::new();
    // The server closes it (read returns: EOF, or a reset).
    let _ = junk.read_to_end(&mut rest);
    // The server still serves: a command is refused as usual.
    let (code, _, err) = server.ssh_run(&alice, &[], &["true"]);
    assert_ne!(code, 0);
    assert!(err.contains("commands are not run here"), "{err}");
    let log = server.log();
    assert!(log.contains("dropped"), "{log}");
}

#[test]
fn each_client_draws_with_its_own_charset_and_colours() {
    need_ssh!();
    need_tmux!();
    let (_dir, server, alice) = alice_server("charset", &[]);
    // A client whose locale is not UTF-8 (sent with SetEnv) gets ASCII
    // borders; one that sends no locale gets box drawing, side by side.
    let plain = client_with(&server, &alice, 80, 24, &["-o", "SetEnv=LANG=C NO_COLOR=1"]);
    let fancy = client(&server, &alice, 80, 24);
    plain.wait_for("+ Hardware ");
    fancy.wait_for("┌ Hardware ");
    // NO_COLOR: the pane title is drawn without a colour (the mono theme
    // sets none: no 38;5 or 38;2 foreground in the first row).
    let colours = |t: &Tmux| t.tmux(&["capture-pane", "-p", "-e", "-t", "t"]);
    let first = |s: String| s.lines().next().unwrap_or_default().to_string();
    let plain_row = first(colours(&plain));
    let fancy_row = first(colours(&fancy));
    assert!(!plain_row.contains("\x1b[38;"), "{plain_row:?}");
    assert!(fancy_row.contains("\x1b[38;"), "{fancy_row:?}");
}

/// A server for `alice`, with `bob` the presenter (`--present-key`).
fn presented_server(tag: &str, args: &[&str]) -> (Dir, Server, PathBuf, PathBuf) {
    let dir = Dir::new(tag);
    let alice = keygen(&dir, "alice");
    let bob = keygen(&dir, "bob");
    let keys = dir.path("alice.pub");
    let present = dir.path("bob.pub");
    let mut all = vec![
        "--authorized-keys",
        keys.to_str().unwrap(),
        "--present-key",
        present.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let server = Server::start(&dir, &all);
    (dir, server, alice, bob)
}

#[test]
fn followers_show_the_presenters_state_branch_on_a_key_and_follow_again() {
    need_ssh!();
    need_tmux!();
    let (_dir, server, alice, bob) = presented_server("present", &[]);
    // bob's key is the presenter's (its comment, "bob", names him).
    let presenter = client(&server, &bob, 100, 30);
    presenter.wait_for("[presenting: 0 follow, 0 on their own]");
    // alice follows, at her own size.
    let follower = client(&server, &alice, 80, 24);
    follower.wait_for("[following bob]");
    presenter.wait_for("[presenting: 1 follow, 0 on their own]");
    // The presenter moves from h100-sxm to h200-sxm (Down, as in the
    // first test): the follower shows it without a key of its own.
    presenter.keys(&["Down"]);
    presenter.wait_for("llama-3.1-8b · h200-sxm");
    follower.wait_for("llama-3.1-8b · h200-sxm");
    // The presenter's view (2: Serving): the follower's too.
    presenter.keys(&["2"]);
    presenter.wait_for("[2 Serving]");
    follower.wait_for("[2 Serving]");
    // A key of the follower's (1: Roofline) goes its own way and takes
    // effect; the presenter's tag counts it.
    follower.keys(&["1"]);
    follower.wait("on its own, on the Roofline view", |s| {
        s.contains("[on your own · F follows bob]") && s.contains("[1 Roofline]")
    });
    presenter.wait_for("[presenting: 0 follow, 1 on their own]");
    // The presenter moves on (4: Sweep); the follower stays where it is.
    presenter.keys(&["4"]);
    presenter.wait_for("[4 Sweep]");
    std::thread::sleep(Duration::from_millis(300));
    let s = follower.screen();
    assert!(s.contains("[1 Roofline]"), "{s}");
    // F: following again, on the presenter's latest state.
    follower.keys(&["F"]);
    follower.wait("the presenter's state again", |s| {
        s.contains("[following bob]")
            && s.contains("[4 Sweep]")
            && s.contains("llama-3.1-8b · h200-sxm")
    });
    presenter.wait_for("[presenting: 1 follow, 0 on their own]");
    let log = server.wait_log("as the presenter");
    assert!(log.contains("following"), "{log}");
}

#[test]
fn a_lesson_opens_every_session_and_its_step_is_the_presenters() {
    need_ssh!();
    need_tmux!();
    let (_dir, server, alice, bob) = presented_server("lesson", &["--lesson", "knobs"]);
    // Every session opens on the lesson's first step, with its caption
    // (the knobs lesson's first step is on the a100-sxm-80gb, decoding).
    let presenter = client(&server, &bob, 100, 30);
    let follower = client(&server, &alice, 80, 24);
    for t in [&presenter, &follower] {
        t.wait("step 1 and its caption", |s| {
            s.contains("step 1/") && s.contains("decoding one sequence")
        });
    }
    // The presenter steps (]): the follower's strip shows step 2.
    presenter.keys(&["]"]);
    presenter.wait_for("step 2/");
    follower.wait_for("step 2/");
    // Without a presenter too, a session opens on the lesson.
    let (_dir2, alone, carol) = alice_server("lesson-alone", &["--lesson", "knobs"]);
    let t = client(&alone, &carol, 80, 24);
    t.wait_for("step 1/");
}

/// The server's resident memory (VmRSS) in kB.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap()
}

#[test]
fn a_stalled_client_grows_no_memory_and_slows_no_other_session() {
    need_ssh!();
    need_tmux!();
    if !Path::new("/proc/self/status").exists() {
        eprintln!("SKIPPED: no /proc to read the server's memory from");
        return;
    }
    let (_dir, server, alice, bob) = presented_server("stall", &[]);
    let presenter = client(&server, &bob, 100, 30);
    presenter.wait_for("[presenting: 0 follow");
    let watcher = client(&server, &alice, 80, 24);
    watcher.wait_for("[following bob]");
    // A follower at 300x100 whose ssh is then stopped (SIGSTOP): it reads
    // nothing more from the server, so its SSH window fills and stays full.
    let stalled = client(&server, &alice, 300, 100);
    stalled.wait_for("[following bob]");
    presenter.wait_for("[presenting: 2 follow");
    let ssh_pid = stalled.program_pid().to_string();
    let signal = |sig: &str| {
        let ok = Command::new("kill").args([sig, &ssh_pid]).status().unwrap();
        assert!(ok.success(), "kill {sig} {ssh_pid}");
    };
    signal("-STOP");
    let pid = server.child.id();
    let before = rss_kb(pid);
    // The presenter changes state 500 times, 20 ms apart (about as often
    // as a follower looks), between views 4 (Sweep) and 1 (Roofline): each
    // change redraws most of a follower's screen, about 29 kB at 300x100
    // (measured with `tui::hosted` drawing the two views in turn).
    for i in 0..500 {
        presenter.keys(&[if i % 2 == 0 { "4" } else { "1" }]);
        std::thread::sleep(Duration::from_millis(20));
    }
    presenter.keys(&["1"]);
    presenter.wait_for("[1 Roofline]");
    // The watching session still keeps up: the last change reaches it in
    // well under the tmux deadline (10 s); the screen is polled every
    // 20 ms by the server and read by the test as fast as tmux answers.
    let start = Instant::now();
    watcher.wait_for("[1 Roofline]");
    let lag = start.elapsed();
    assert!(lag < Duration::from_secs(3), "the watcher lagged {lag:?}");
    // And it answers its own key (2: Serving, on its own).
    watcher.keys(&["2"]);
    watcher.wait("its own view", |s| {
        s.contains("[2 Serving]") && s.contains("[on your own")
    });
    // The server's memory: a stalled session holds at most the frame in
    // flight, not one per change. Queued, the changes the stalled session
    // sees (most of the 500, at 29 kB each: up to 14 MB) would pass what
    // the SSH window (2 MB for OpenSSH) and the loopback socket buffers
    // (a few MB) can hold by several MB; the bound, 4 MB over the start,
    // leaves room for the allocator (the growth seen is well under 1 MB).
    let after = rss_kb(pid);
    eprintln!("server VmRSS: {before} kB before, {after} kB after");
    assert!(
        after < before + 4 * 1024,
        "VmRSS grew from {before} kB to {after} kB"
    );
    // Woken, the stalled client gets the latest screen, not a backlog.
    signal("-CONT");
    stalled.wait_for("[1 Roofline]");
}

#[test]
fn a_silent_open_connection_is_dropped_at_the_hello_deadline() {
    need_ssh!();
    let (_dir, server, _alice) = alice_server("halfopen", &[]);
    // A TCP connection that sends nothing and never closes (its peer gone
    // silent): dropped at the SSH hello deadline (10 s), logged.
    let _silent = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let start = Instant::now();
    loop {
        let log = server.log();
        if log.contains("no SSH hello within 10 s") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "not dropped after 30 s:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The address (`127.0.0.1:PORT`) session `n` connected from, read from
/// its "started" line in the server's log.
fn session_addr(server: &Server, n: u32) -> String {
    let tag = format!("session {n} (");
    let log = server.wait_log(&tag);
    let line = log.lines().find(|l| l.contains(&tag)).unwrap();
    let rest = &line[line.find(&tag).unwrap() + tag.len()..];
    rest.split_whitespace().next().unwrap().to_string()
}

/// A stopped process, continued and killed on drop (also when the test
/// fails, so that no stopped ssh outlives it).
struct Stopped(String);

impl Stopped {
    fn stop(pid: u32) -> Stopped {
        let pid = pid.to_string();
        let ok = Command::new("kill").args(["-STOP", &pid]).status().unwrap();
        assert!(ok.success(), "kill -STOP {pid}");
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        for sig in ["-CONT", "-KILL"] {
            // The ssh may be gone by -KILL (continued, it finds its
            // connection closed): say nothing of it.
            let _ = Command::new("kill")
                .args([sig, &self.0])
                .stderr(Stdio::null())
                .status();
        }
    }
}

#[test]
fn a_client_gone_half_open_after_login_is_dropped_by_keepalives_and_frees_its_slot() {
    need_ssh!();
    need_tmux!();
    let (_dir, server, alice) =
        alice_server("keepalive", &["--keepalive", "1s", "--max-sessions", "2"]);
    let staying = client(&server, &alice, 80, 24);
    staying.wait_for("tok/s");
    let staying_addr = session_addr(&server, 1);
    let frozen = client(&server, &alice, 80, 24);
    frozen.wait_for("tok/s");
    let frozen_addr = session_addr(&server, 2);
    // Both slots taken: a third login is turned away, as in
    // one_session_too_many_gets_a_line_and_a_clean_close.
    let (code, out, err) = server.ssh_run(&alice, &["-tt"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("all 2 sessions are taken"), "{out}{err}");
    // The second client's ssh is stopped (SIGSTOP): its TCP connection
    // stays open (the kernel still acknowledges every segment), but
    // nothing above it answers: half-open as far as SSH goes, as when the
    // peer's machine vanishes without closing.
    let stopped = Stopped::stop(frozen.program_pid());
    let start = Instant::now();
    let drop_line = format!("{frozen_addr}: dropped: no answer to 4 keepalives 1 s apart");
    // When it is dropped: russh sends a keepalive after each 1 s without a
    // word from the client and drops the connection when the timer fires
    // with 4 sent and unanswered, that is 5 x 1 s after the client's last
    // word. That word (its answer to a keepalive, or a key) came at most
    // 1 s before the stop, and no sooner than the stop itself: the drop
    // falls between 4 s and 5 s after the stop. Bounds: 3 s below, and
    // 5 s + 3 s of slack (a busy 2-core machine) = 8 s above.
    loop {
        let log = server.log();
        if log.contains(&drop_line) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "not dropped within 8 s:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = start.elapsed();
    eprintln!("dropped {took:?} after the stop");
    assert!(took >= Duration::from_secs(3), "dropped too soon: {took:?}");
    // Its workbench ended and its slot is free: a new login, which the two
    // sessions allowed refused above, now gets a workbench.
    let log = server.wait_log(&format!("session 2 ({frozen_addr} "));
    assert!(
        log.lines().any(
            |l| l.starts_with(&format!("ridgeline share: session 2 ({frozen_addr} "))
                && l.ends_with(": ended")
        ),
        "{log}"
    );
    let newcomer = client(&server, &alice, 80, 24);
    newcomer.wait_for("tok/s");
    // The other session was not dropped and still answers a key (Down
    // from h100-sxm selects h200-sxm, as in the first test).
    staying.keys(&["Down"]);
    staying.wait_for("llama-3.1-8b · h200-sxm");
    let log = server.log();
    assert!(!log.contains(&format!("{staying_addr}: dropped")), "{log}");
    drop(stopped);
}

#[test]
fn a_bad_keepalive_is_refused_saying_how_to_write_it_and_0_turns_it_off() {
    let dir = Dir::new("keepalive-flag");
    let run = |value: &str| {
        Command::new(env!("CARGO_BIN_EXE_ridgeline"))
            .args(["share", "--listen", "127.0.0.1:0"])
            .arg(format!("--keepalive={value}"))
            .env("RIDGELINE_CONFIG_DIR", dir.path("config"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for (bad, says) in [
        ("5kg", "unknown unit \"kg\""),
        ("soon", "no number found"),
        ("-1s", "must be zero or more"),
    ] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--keepalive") && err.contains(says), "{err}");
        assert!(out.stdout.is_empty(), "nothing was served for {bad}");
    }
    // 0 (no keepalives) is a value, not a mistake: the server starts.
    let server = Server::start(&dir, &["--keepalive", "0"]);
    assert!(server.banner.contains("listening on"), "{}", server.banner);
}

#[test]
fn the_local_terminal_presents_with_present() {
    need_ssh!();
    need_tmux!();
    let dir = Dir::new("local");
    let alice = keygen(&dir, "alice");
    // A free port: taken from the system, let go, given to the server.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = dir.path("share.log");
    let bin = env!("CARGO_BIN_EXE_ridgeline");
    let config = dir.path("config");
    let keys = dir.path("alice.pub");
    // The presenter's terminal: the server's log goes to a file (on the
    // terminal it would draw over the workbench).
    let presenter = Tmux::run(100, 30, |_| {
        format!(
            "USER=carol RIDGELINE_CONFIG_DIR='{}' '{bin}' share --listen 127.0.0.1:{port} --authorized-keys '{}' --present 2>'{}'; echo EXIT=$?; sleep 30",
            config.display(),
            keys.display(),
            log.display()
        )
    });
    presenter.wait_for("[presenting: 0 follow, 0 on their own]");
    // Its log left on the terminal: refused, saying how to send it away.
    let bare = Tmux::run(100, 10, |_| {
        format!(
            "RIDGELINE_CONFIG_DIR='{}' '{bin}' share --listen 127.0.0.1:0 --present; echo EXIT=$?; sleep 30",
            config.display()
        )
    });
    bare.wait("the refusal", |s| {
        s.contains("2>share.log") && s.contains("EXIT=2")
    });
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        logged.contains("carol presents from this terminal"),
        "{logged}"
    );
    let follower = client_at(port, &alice, 80, 24, &[]);
    follower.wait_for("[following carol]");
    presenter.wait_for("[presenting: 1 follow, 0 on their own]");
    presenter.keys(&["Down"]);
    presenter.wait_for("llama-3.1-8b · h200-sxm");
    follower.wait_for("llama-3.1-8b · h200-sxm");
    // q on the presenter's terminal stops the server; the follower's
    // connection ends.
    presenter.keys(&["q"]);
    presenter.wait_for("EXIT=0");
    follower.wait_for("EXIT=");
}

#[test]
fn present_refuses_no_terminal_a_second_presenter_and_an_empty_key_file() {
    // No terminal here at all: --present says it needs one.
    let dir = Dir::new("present-refused");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ridgeline"))
            .args(["share", "--listen", "127.0.0.1:0"])
            .args(args)
            .env("RIDGELINE_CONFIG_DIR", dir.path("config"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["--present"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--present-key FILE"), "{err}");
    std::fs::write(dir.path("k.pub"), "").unwrap();
    let out = run(&[
        "--present",
        "--present-key",
        dir.path("k.pub").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("contradict"), "{err}");
    // A presenter key file with no key in it.
    let out = run(&["--present-key", dir.path("k.pub").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--present-key") && err.contains("holds no key"),
        "{err}"
    );
}
