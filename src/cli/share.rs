//! `ridgeline share`: host the workbench over SSH (src/share). Built with
//! the default feature `share`; a build without it says so.

use super::args::Cli;
use super::{CliError, Out};
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct ShareArgs {
    /// The address and port to listen on. An address others can reach
    /// needs --authorized-keys FILE, or --open.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:2222", value_parser = listen)]
    pub listen: SocketAddr,
    /// Only the holders of these keys may connect (an OpenSSH
    /// authorized_keys file: one public key a line).
    #[arg(long, value_name = "FILE")]
    pub authorized_keys: Option<PathBuf>,
    /// Let anyone who can reach the address connect, without a key.
    #[arg(long)]
    pub open: bool,
    /// Sessions at most; the next connection is told so and closed.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_sessions: u32,
    /// Close a session after this long without a key ("30min", "1h",
    /// "90s"); 0 never closes.
    #[arg(long, value_name = "DUR", default_value = "30min", value_parser = super::args::non_negative_time)]
    pub idle_timeout: f64,
    /// Send an SSH keepalive after this long without a word from a client
    /// ("15s", "1min"); a session with 4 unanswered in a row is dropped
    /// (a half-open connection); 0 sends none.
    #[arg(long, value_name = "DUR", default_value = "15s", value_parser = super::args::non_negative_time)]
    pub keepalive: f64,
    /// Open every session on this scenario file.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Open every session on this lesson (a built-in lesson's name, or a
    /// lesson file), on step 1 with its caption.
    #[arg(long, value_name = "NAME|FILE")]
    pub lesson: Option<String>,
    /// Present to a room: the first session logged in with a key in FILE
    /// (public keys, one a line) presents; every other session follows it
    /// (a key goes one's own way, F follows again).
    #[arg(long, value_name = "FILE")]
    pub present_key: Option<PathBuf>,
    /// Present from this terminal: it runs the workbench, every session
    /// follows it; the server's log goes to stderr (redirect it:
    /// 2>share.log); quitting stops the server.
    #[arg(long)]
    pub present: bool,
}

fn listen(s: &str) -> Result<SocketAddr, String> {
    s.trim().parse().map_err(|_| {
        format!(
            "{} is not an ADDR:PORT; write it as 127.0.0.1:2222 or 0.0.0.0:2222 ([::1]:2222 for IPv6)",
            super::output::echo(s)
        )
    })
}

/// Run the server until it is stopped.
#[cfg(feature = "share")]
pub fn share(cli: &Cli, a: &ShareArgs, out: Out) -> Result<(), CliError> {
    use crate::share::{ShareOptions, run};
    super::catalog_dir(cli)?;
    let opts = ShareOptions {
        listen: a.listen,
        authorized_keys: a.authorized_keys.clone(),
        open: a.open,
        max_sessions: a.max_sessions as usize,
        idle: seconds(a.idle_timeout),
        keepalive: seconds(a.keepalive),
        tui: crate::tui::TuiOptions {
            catalog_dir: cli.catalog.clone(),
            ascii: cli.ascii,
            theme: cli.theme.clone(),
            scenario: a.scenario.clone(),
            lesson: a.lesson.clone(),
            ..crate::tui::TuiOptions::default()
        },
        host_key: None,
        present_key: a.present_key.clone(),
        present: a.present,
    };
    run(opts, out).map_err(|(code, msg)| {
        if code == 2 {
            CliError::Input(msg)
        } else {
            CliError::Output(msg)
        }
    })
}

/// A duration flag in seconds: 0 is none (off, never).
#[cfg(feature = "share")]
fn seconds(s: f64) -> Option<std::time::Duration> {
    (s > 0.0).then(|| std::time::Duration::from_secs_f64(s.min(1e9)))
}

#[cfg(not(feature = "share"))]
pub fn share(_: &Cli, _: &ShareArgs, _: Out) -> Result<(), CliError> {
    Err(CliError::Input(
        "this ridgeline was built without `share` (the default feature); build it with `cargo build --release` (default features) to host the workbench over SSH".into(),
    ))
}
