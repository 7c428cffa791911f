//! A load benchmark of `ridgeline share`: N sessions at once on loopback
//! (default 64), each typing a key at a typing pace and timing how long the
//! next frame takes to arrive (keystroke to frame), then the percentiles
//! per session and overall, and the server's resident memory (peak and
//! at the end). Build the release binary first:
//!
//!     cargo build --release
//!     cargo run --release --example share_load -- [SESSIONS] [KEYS] [BINARY]
//!
//! The server runs with a private config directory (a fresh host key) on
//! a free loopback port, so no key is asked (loopback, no
//! --authorized-keys).

use russh::ChannelMsg;
use russh::client::{self, Handle};
use russh::keys::PublicKeyOrCertificate;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Trusting;

impl client::Handler for Trusting {
    type Error = russh::Error;
    async fn check_server_key(&mut self, _: &PublicKeyOrCertificate) -> Result<bool, Self::Error> {
        // A server this benchmark started itself, on loopback.
        Ok(true)
    }
}

/// One session: connect, a pty of 80x24, the first frame, then `keys`
/// keys (Down and Up in turn) 50-150 ms apart; the keystroke-to-frame
/// times.
async fn session(port: u16, keys: usize, seed: u64) -> Result<Vec<Duration>, String> {
    let config = Arc::new(client::Config {
        nodelay: true,
        ..client::Config::default()
    });
    let mut h: Handle<Trusting> = client::connect(config, ("127.0.0.1", port), Trusting)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let auth = h
        .authenticate_none("bench")
        .await
        .map_err(|e| format!("auth: {e}"))?;
    if !auth.success() {
        return Err("login refused".into());
    }
    let mut ch = h
        .channel_open_session()
        .await
        .map_err(|e| format!("session: {e}"))?;
    ch.request_pty(false, "xterm-256color", 80, 24, 0, 0, &[])
        .await
        .map_err(|e| format!("pty: {e}"))?;
    ch.request_shell(false)
        .await
        .map_err(|e| format!("shell: {e}"))?;
    // The first frame.
    wait_data(&mut ch).await?;
    let mut times = Vec::with_capacity(keys);
    let mut rng = seed | 1;
    for i in 0..keys {
        // xorshift: a typing pace of 50 to 150 ms between keys.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        tokio::time::sleep(Duration::from_millis(50 + rng % 101)).await;
        let key: &[u8] = if i % 2 == 0 { b"\x1b[B" } else { b"\x1b[A" };
        let t0 = Instant::now();
        ch.data_bytes(key.to_vec())
            .await
            .map_err(|e| format!("send: {e}"))?;
        wait_data(&mut ch).await?;
        times.push(t0.elapsed());
    }
    let _ = ch.data_bytes(b"q".to_vec()).await;
    Ok(times)
}

/// Wait for the next output of the session (a frame).
async fn wait_data(ch: &mut russh::Channel<client::Msg>) -> Result<(), String> {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), ch.wait()).await {
            Ok(Some(ChannelMsg::Data { .. })) => return Ok(()),
            Ok(Some(ChannelMsg::Eof | ChannelMsg::Close)) | Ok(None) => {
                return Err("the session closed".into());
            }
            Ok(Some(_)) => {}
            Err(_) => return Err("no frame within 30 s".into()),
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The server's resident memory from /proc: (peak, now) in MB.
fn rss(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sessions: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(64);
    let keys: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    let bin = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "target/release/ridgeline".into());
    let cfg = std::env::temp_dir().join(format!("ridgeline-share-load-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&cfg);
    let mut server = Command::new(&bin)
        .args(["share", "--listen", "127.0.0.1:0", "--max-sessions"])
        .arg(sessions.to_string())
        .env("RIDGELINE_CONFIG_DIR", &cfg)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e} (build it: cargo build --release)"));
    let mut first = String::new();
    let mut out = BufReader::new(server.stdout.take().expect("piped"));
    out.read_line(&mut first).expect("the startup line");
    let port: u16 = first
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {first:?}"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let started = Instant::now();
    let results = rt.block_on(async {
        let tasks: Vec<_> = (0..sessions)
            .map(|i| tokio::spawn(session(port, keys, 0x9e37_79b9_7f4a_7c15 ^ i as u64)))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await.unwrap_or_else(|e| Err(format!("task: {e}"))));
        }
        all
    });
    let (peak, now) = rss(server.id());
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&cfg);
    let mut every = Vec::new();
    let mut p99s = Vec::new();
    let mut failed = 0;
    for (i, r) in results.iter().enumerate() {
        match r {
            Ok(t) => {
                let mut t = t.clone();
                t.sort();
                p99s.push(percentile(&t, 99.0));
                every.extend(t);
            }
            Err(e) => {
                failed += 1;
                eprintln!("session {i}: {e}");
            }
        }
    }
    every.sort();
    p99s.sort();
    println!(
        "{sessions} sessions x {keys} keys in {:.1} s ({failed} failed)",
        started.elapsed().as_secs_f64()
    );
    println!(
        "keystroke to frame, all keys: p50 {}, p99 {}, max {}",
        ms(percentile(&every, 50.0)),
        ms(percentile(&every, 99.0)),
        ms(percentile(&every, 100.0))
    );
    println!(
        "per-session p99: median {}, worst {}",
        ms(percentile(&p99s, 50.0)),
        ms(percentile(&p99s, 100.0))
    );
    println!("server resident memory: peak {peak:.0} MB, at the end {now:.0} MB");
}
