//! `ridgeline share`: the workbench over SSH. One command hosts it for a
//! room or a team; each connection gets its own workbench (its own state,
//! size, colours and charset), driven by the connection's bytes through
//! the same code as the local one (`tui::hosted`). Nobody gets a shell, a
//! file or another user's session: only an interactive session on a pty is
//! offered, and a session's saves go to the user's clipboard.
//!
//! This module owns the server, its keys ([`keys`]) and its limits
//! ([`limits`]); a connection is [`conn`], a session's workbench thread
//! [`session`].

mod conn;
pub mod keys;
pub mod limits;
mod room;
mod session;

use crate::tui::TuiOptions;
use conn::{Conn, Policy, Shared};
use limits::Slots;
use russh::MethodKind;
use russh::server::Config;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// The address listened on unless `--listen` says otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:2222";

/// Sessions at most unless `--max-sessions` says otherwise.
pub const DEFAULT_MAX_SESSIONS: usize = 64;

/// How long a client has to send its SSH version line.
const HELLO: Duration = Duration::from_secs(10);

/// How long a client has to log in once connected.
const LOGIN: Duration = Duration::from_secs(60);

/// Keepalives unanswered in a row that drop a session (`--keepalive`).
pub const KEEPALIVE_MAX: usize = 4;

/// Connections beyond the session limit that may be logging in at once
/// (the rest get a line and are closed before any SSH is spoken).
const SPARE_CONNECTIONS: usize = 16;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ShareOptions {
    pub listen: SocketAddr,
    pub authorized_keys: Option<PathBuf>,
    /// Anyone who reaches the address may connect, without a key.
    pub open: bool,
    pub max_sessions: usize,
    /// Close a session after this long without a key (None: never).
    pub idle: Option<Duration>,
    /// Send a keepalive after this long without a word from the client;
    /// [`KEEPALIVE_MAX`] unanswered drop the session (None: none sent).
    pub keepalive: Option<Duration>,
    /// The workbench of each session (catalog, theme, ascii, scenario).
    pub tui: TuiOptions,
    /// The host key file (default: the config directory's).
    pub host_key: Option<PathBuf>,
    /// The presenters' public keys (`--present-key FILE`): the first
    /// session logged in with one presents, the others follow.
    pub present_key: Option<PathBuf>,
    /// This terminal presents (`--present`); every session follows.
    pub present: bool,
}

/// A line on the server's log (stderr).
pub(crate) fn log(line: &str) {
    eprintln!("ridgeline share: {line}");
}

/// Who can connect, in words, for the startup lines.
fn who_can_connect(opts: &ShareOptions, keys: usize) -> String {
    let addr = opts.listen;
    match &opts.authorized_keys {
        Some(f) => format!(
            "who can connect: the holders of the {keys} key{} in {}",
            if keys == 1 { "" } else { "s" },
            keys::shown(f)
        ),
        None if opts.listen.ip().is_loopback() => {
            "who can connect: anyone on this machine (loopback); no key is asked".to_string()
        }
        None => format!("who can connect: ANYONE who can reach {addr} (--open); no key is asked"),
    }
}

/// Check the options, make or read the host key, listen, and serve until
/// the process is stopped. Startup lines go to `out`. A problem that stops
/// the start is the error, with its exit code (2 bad input, 1 cannot
/// serve).
pub fn run(opts: ShareOptions, out: &mut dyn Write) -> Result<(), (i32, String)> {
    let p = prepare(&opts)?;
    if opts.present {
        return present(opts, p);
    }
    serve(opts, p, out)
}

/// Everything checked before listening.
fn prepare(opts: &ShareOptions) -> Result<Prepared, (i32, String)> {
    if !opts.listen.ip().is_loopback() && opts.authorized_keys.is_none() && !opts.open {
        return Err((
            2,
            format!(
                "--listen {}: an address others can reach needs --authorized-keys FILE (who may connect), or --open to let anyone in",
                opts.listen
            ),
        ));
    }
    if opts.open && opts.authorized_keys.is_some() {
        return Err((
            2,
            "--open and --authorized-keys contradict each other: give one".into(),
        ));
    }
    if opts.present && opts.present_key.is_some() {
        return Err((
            2,
            "--present (this terminal presents) and --present-key (a key's session presents) contradict each other: give one".into(),
        ));
    }
    if opts.max_sessions == 0 {
        return Err((2, "--max-sessions must be 1 or more".into()));
    }
    let policy = match &opts.authorized_keys {
        Some(f) => Policy::Keys {
            keys: keys::read_authorized_keys(f).map_err(|e| (2, e))?,
            file: f.clone(),
        },
        None => Policy::Open,
    };
    let presenters = match &opts.present_key {
        Some(f) => Some(
            keys::read_keys(
                f,
                "--present-key",
                "so nobody could present; put the presenter's public key (~/.ssh/id_ed25519.pub) in it",
            )
            .map_err(|e| (2, e))?,
        ),
        None => None,
    };
    // A scenario that cannot be opened stops the start, not each session.
    crate::tui::app_from(&opts.tui, |_| None).map_err(|e| {
        (
            2,
            format!("--scenario: the file cannot be opened; nothing was started:\n{e}"),
        )
    })?;
    let path = match &opts.host_key {
        Some(p) => p.clone(),
        None => match opts
            .tui
            .config_dir
            .clone()
            .or_else(crate::catalog::config_dir)
        {
            Some(d) => keys::host_key_path(&d),
            None => {
                return Err((
                    1,
                    "no config directory for the host key; set RIDGELINE_CONFIG_DIR=DIR".into(),
                ));
            }
        },
    };
    let host = keys::load_or_create_host_key(&path).map_err(|e| (1, e))?;
    Ok(Prepared {
        policy,
        host,
        presenters,
    })
}

/// What [`prepare`] checked and read.
struct Prepared {
    policy: Policy,
    host: keys::HostKey,
    /// The presenters' keys (`--present-key`), if given.
    presenters: Option<Vec<russh::keys::PublicKey>>,
}

fn serve(opts: ShareOptions, p: Prepared, out: &mut dyn Write) -> Result<(), (i32, String)> {
    let server = start(&opts, p, out)?;
    server.rt.block_on(accept_loop(
        server.listener,
        server.config,
        server.shared,
        server.connections,
    ));
    Ok(())
}

/// A server listening, not yet accepting.
struct Started {
    rt: tokio::runtime::Runtime,
    listener: tokio::net::TcpListener,
    config: Arc<Config>,
    shared: Arc<Shared>,
    connections: Arc<Slots>,
}

/// `--present`: the server accepts on a thread of its own while this
/// terminal runs the presenter's workbench; quitting it stops the server.
/// The server's lines (startup and log) go to stderr, which must not be
/// this terminal (they would draw over the workbench).
fn present(opts: ShareOptions, p: Prepared) -> Result<(), (i32, String)> {
    use std::io::IsTerminal;
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err((
            2,
            "--present runs the presenter's workbench on this terminal, and there is none; use --present-key FILE to present from an ssh session".into(),
        ));
    }
    if std::io::stderr().is_terminal() {
        return Err((
            2,
            "--present draws the workbench on this terminal, where the server's log would draw over it; send the log to a file: ridgeline share --present 2>share.log".into(),
        ));
    }
    let server = start(&opts, p, &mut std::io::stderr())?;
    let Some(hall) = server.shared.hall.clone() else {
        return Err((1, "no room to present to (an internal error)".into()));
    };
    let Started {
        rt,
        listener,
        config,
        shared,
        connections,
    } = server;
    std::thread::Builder::new()
        .name("ridgeline-share-accept".into())
        .spawn(move || rt.block_on(accept_loop(listener, config, shared, connections)))
        .map_err(|e| (1, format!("cannot start the server: {e}")))?;
    let name = std::env::var("USER")
        .ok()
        .map(|u| crate::catalog::fields::printable(u.trim()).into_owned())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "the presenter".into());
    log(&format!("{name} presents from this terminal"));
    let mut role = hall.role(Some(name));
    let mut started = false;
    let mut tick = |app: &mut crate::tui::app::App| {
        if started {
            role.tick(app);
        } else {
            role.start(app);
            started = true;
        }
        role.poll(app)
    };
    match crate::tui::run_with(opts.tui.clone(), &mut tick) {
        Ok(crate::tui::Exit::Quit) => Ok(()),
        Ok(crate::tui::Exit::Signal(sig)) => Err((1, format!("stopped by signal {sig}"))),
        Ok(crate::tui::Exit::BadInput) => Err((2, "the workbench did not start".into())),
        Err(e) => Err((1, format!("the workbench stopped: {e}"))),
    }
}

/// Bind, say who can connect, make the server's shared state.
fn start(opts: &ShareOptions, p: Prepared, out: &mut dyn Write) -> Result<Started, (i32, String)> {
    let Prepared {
        policy,
        host,
        presenters,
    } = p;
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("ridgeline-share")
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Err((1, format!("cannot start the server: {e}"))),
    };
    let listener = match rt.block_on(tokio::net::TcpListener::bind(opts.listen)) {
        Ok(l) => l,
        Err(e) => {
            return Err((
                1,
                format!(
                    "--listen {}: cannot listen there: {e}; choose another port (--listen 127.0.0.1:2223)",
                    opts.listen
                ),
            ));
        }
    };
    let bound = listener.local_addr().unwrap_or(opts.listen);
    let nkeys = match &policy {
        Policy::Keys { keys, .. } => keys.len(),
        Policy::Open => 0,
    };
    let mut shown = opts.clone();
    shown.listen = bound;
    let fp = keys::fingerprint(host.key.public_key());
    let idle = match opts.idle {
        Some(d) => format!("idle sessions close after {}", words_duration(d)),
        None => "idle sessions stay open".into(),
    };
    let made = if host.created { " (made now)" } else { "" };
    let lines = [
        format!("ridgeline share: listening on {bound}"),
        format!("host key {fp}{made}"),
        format!("host key file: {}", keys::shown(&host.path)),
        who_can_connect(&shown, nkeys),
        connect_line(bound),
        format!(
            "at most {} sessions; {idle}; Ctrl-C stops the server",
            opts.max_sessions
        ),
    ];
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    if opts.present {
        let _ = writeln!(
            out,
            "presenter: the terminal that started the server; every session follows (q there stops the server)"
        );
    }
    if let (Some(f), Some(k)) = (&opts.present_key, &presenters) {
        let _ = writeln!(
            out,
            "presenter: the first to log in with {} in {}; every other session follows",
            if k.len() == 1 { "the key" } else { "a key" },
            keys::shown(f)
        );
    }
    let _ = out.flush();

    let mut methods = russh::MethodSet::empty();
    methods.push(MethodKind::PublicKey);
    if matches!(policy, Policy::Open) {
        methods.push(MethodKind::None);
    }
    let config = Arc::new(Config {
        server_id: russh::SshId::Standard(
            format!("SSH-2.0-ridgeline_{}", env!("CARGO_PKG_VERSION")).into(),
        ),
        methods,
        keys: vec![host.key],
        auth_rejection_time: Duration::from_millis(300),
        auth_rejection_time_initial: Some(Duration::ZERO),
        max_auth_attempts: 10,
        // A half-open connection is found by keepalives going unanswered.
        keepalive_interval: opts.keepalive,
        keepalive_max: KEEPALIVE_MAX,
        inactivity_timeout: opts.idle.map(|d| d + Duration::from_secs(60)),
        nodelay: true,
        ..Config::default()
    });
    let shared = Arc::new(Shared {
        policy,
        limiter: limits::AuthLimiter::default(),
        sessions: Arc::new(Slots::new(opts.max_sessions)),
        idle: opts.idle,
        tui: opts.tui.clone(),
        next: std::sync::atomic::AtomicU64::new(0),
        // --present: a room whose presenter is this terminal (no key).
        hall: match (presenters, opts.present) {
            (Some(k), _) => Some(Arc::new(room::Hall::new(k))),
            (None, true) => Some(Arc::new(room::Hall::new(Vec::new()))),
            (None, false) => None,
        },
    });
    let connections = Arc::new(Slots::new(opts.max_sessions + SPARE_CONNECTIONS));
    Ok(Started {
        rt,
        listener,
        config,
        shared,
        connections,
    })
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    config: Arc<Config>,
    shared: Arc<Shared>,
    connections: Arc<Slots>,
) {
    loop {
        let (mut socket, addr) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: wait, go on.
                log(&format!("accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if shared.limiter.blocked(addr.ip(), Instant::now()) {
            continue;
        }
        let Some(slot) = connections.take() else {
            log(&format!("{addr}: turned away: too many connections"));
            tokio::spawn(async move {
                let line = b"ridgeline share: too many connections; try again later\r\n";
                let _ = tokio::time::timeout(Duration::from_secs(1), socket.write_all(line)).await;
            });
            continue;
        };
        let keepalive = config.keepalive_interval;
        let handler = Conn::new(Arc::clone(&shared), addr);
        let authed = Arc::clone(&handler.authed);
        let config = Arc::clone(&config);
        tokio::spawn(async move {
            let _slot = slot;
            let _ = socket.set_nodelay(true);
            let running = match tokio::time::timeout(
                HELLO,
                russh::server::run_stream(config, socket, handler),
            )
            .await
            {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => {
                    log(&format!("{addr}: dropped before the handshake: {e}"));
                    return;
                }
                Err(_) => {
                    log(&format!(
                        "{addr}: dropped: no SSH hello within {} s",
                        HELLO.as_secs()
                    ));
                    return;
                }
            };
            let handle = running.handle();
            let login = async {
                tokio::time::sleep(LOGIN).await;
                if authed.load(Ordering::SeqCst) {
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                r = running => {
                    match (r, keepalive) {
                        (Err(russh::Error::KeepaliveTimeout), Some(every)) => log(&format!(
                            "{addr}: dropped: no answer to {KEEPALIVE_MAX} keepalives {} apart (the client is gone)",
                            words_duration(every)
                        )),
                        (Err(e), _) => log(&format!("{addr}: connection dropped: {e}")),
                        (Ok(()), _) => {}
                    }
                }
                () = login => {
                    log(&format!("{addr}: dropped: no login within {} s", LOGIN.as_secs()));
                    let _ = handle
                        .disconnect(russh::Disconnect::ByApplication, "no login in time".into(), "en".into())
                        .await;
                }
            }
        });
    }
}

/// How a user connects: the address, or for an address of every
/// interface, the machine's name or address.
fn connect_line(bound: SocketAddr) -> String {
    let host = if bound.ip().is_unspecified() {
        "HOST (this machine's name or address)".to_string()
    } else {
        bound.ip().to_string()
    };
    format!("connect with: ssh -p {} {host}", bound.port())
}

/// "30 min", "90 s", "2 h" for the startup lines.
fn words_duration(d: Duration) -> String {
    let s = d.as_secs();
    let whole = d.subsec_nanos() == 0;
    if whole && s >= 3600 && s.is_multiple_of(3600) {
        format!("{} h", s / 3600)
    } else if whole && s >= 60 && s.is_multiple_of(60) {
        format!("{} min", s / 60)
    } else {
        let t = format!("{:.3}", d.as_secs_f64());
        format!("{} s", t.trim_end_matches('0').trim_end_matches('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(listen: &str) -> ShareOptions {
        ShareOptions {
            listen: listen.parse().unwrap(),
            authorized_keys: None,
            open: false,
            max_sessions: 64,
            idle: None,
            keepalive: None,
            tui: TuiOptions::default(),
            host_key: Some(std::env::temp_dir().join("unused-host-key")),
            present_key: None,
            present: false,
        }
    }

    #[test]
    fn a_reachable_address_needs_keys_or_open_spelled_out() {
        let e = prepare(&opts("0.0.0.0:2222")).err().unwrap();
        assert_eq!(e.0, 2);
        assert!(
            e.1.contains("--authorized-keys") && e.1.contains("--open"),
            "{}",
            e.1
        );
        let mut o = opts("0.0.0.0:2222");
        o.open = true;
        o.authorized_keys = Some("k".into());
        assert!(prepare(&o).err().unwrap().1.contains("contradict"));
    }

    #[test]
    fn the_startup_line_says_who_can_connect() {
        // Every line within 80 columns (tests/share.rs checks the others).
        let local = who_can_connect(&opts("127.0.0.1:2222"), 0);
        assert!(local.contains("anyone on this machine"), "{local}");
        assert!(local.chars().count() <= 80, "{local}");
        let mut o = opts("0.0.0.0:2222");
        o.open = true;
        assert!(who_can_connect(&o, 0).contains("ANYONE"));
        o.authorized_keys = Some("team.keys".into());
        assert_eq!(
            who_can_connect(&o, 3),
            "who can connect: the holders of the 3 keys in team.keys"
        );
    }

    #[test]
    fn the_connect_line_names_a_host_to_reach() {
        let at = |a: &str| connect_line(a.parse().unwrap());
        assert_eq!(at("127.0.0.1:2222"), "connect with: ssh -p 2222 127.0.0.1");
        assert!(at("0.0.0.0:2200").starts_with("connect with: ssh -p 2200 HOST"));
        assert_eq!(at("[::1]:2222"), "connect with: ssh -p 2222 ::1");
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(words_duration(Duration::from_secs(1800)), "30 min");
        assert_eq!(words_duration(Duration::from_secs(7200)), "2 h");
        assert_eq!(words_duration(Duration::from_secs(90)), "90 s");
        assert_eq!(words_duration(Duration::from_millis(1500)), "1.5 s");
    }
}
