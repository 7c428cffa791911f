//! One SSH connection of `ridgeline share`: who may log in, and the one
//! thing a login gets, an interactive workbench on a pty. Everything else
//! a client can ask for (a command, sftp or another subsystem, port
//! forwarding, the agent, X11, a second session on the connection) is
//! refused and logged.

use super::keys::{fingerprint, is_authorized};
use super::limits::{AuthLimiter, Failure, Slot, Slots};
use super::log;
use super::session::{self, In, Out, Spec};
use crate::tui::TuiOptions;
use russh::keys::PublicKey;
use russh::server::{Auth, ChannelOpenHandle, Handle, Handler, Msg, Session};
use russh::{Channel, ChannelId, ChannelOpenFailure, Pty};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

/// Input messages queued for a session's workbench before the connection
/// waits (and with it the client: its SSH window fills).
const INPUT_QUEUE: usize = 64;

/// Environment variables kept of a client at most, and their longest value.
const ENV_MAX: usize = 64;
const ENV_VALUE_MAX: usize = 1024;

/// Who may connect.
pub enum Policy {
    /// Anyone who reaches the address (loopback, or `--open`).
    Open,
    /// The keys of `--authorized-keys FILE`.
    Keys { keys: Vec<PublicKey>, file: PathBuf },
}

/// What every connection of the server shares.
pub struct Shared {
    pub policy: Policy,
    pub limiter: AuthLimiter,
    pub sessions: Arc<Slots>,
    pub idle: Option<Duration>,
    pub tui: TuiOptions,
    /// The next session's number (for the log).
    pub next: std::sync::atomic::AtomicU64,
    /// A presented room (`--present-key`): the presenter and followers.
    pub hall: Option<Arc<super::room::Hall>>,
}

/// The pty a client asked for.
struct PtyReq {
    term: String,
    width: u16,
    height: u16,
}

/// The handler of one connection.
pub struct Conn {
    shared: Arc<Shared>,
    addr: SocketAddr,
    /// Set once a login succeeded (the connection's auth deadline stops).
    pub authed: Arc<AtomicBool>,
    /// The key the user logged in with, for the log.
    key: Option<String>,
    /// The presenter's name, when the key is a presenter's.
    presenter: Option<String>,
    channel: Option<ChannelId>,
    pty: Option<PtyReq>,
    env: Vec<(String, String)>,
    input: Option<SyncSender<In>>,
    /// A session slot, held while the workbench runs.
    slot: Option<Slot>,
}

fn clamp16(n: u32) -> u16 {
    n.min(u32::from(u16::MAX)) as u16
}

impl Conn {
    pub fn new(shared: Arc<Shared>, addr: SocketAddr) -> Conn {
        Conn {
            shared,
            addr,
            authed: Arc::new(AtomicBool::new(false)),
            key: None,
            presenter: None,
            channel: None,
            pty: None,
            env: Vec::new(),
            input: None,
            slot: None,
        }
    }

    fn check_key(&mut self, user: &str, key: &PublicKey) -> Auth {
        let fp = fingerprint(key);
        let presenter = self
            .shared
            .hall
            .as_ref()
            .and_then(|h| h.presenter_name(key));
        match &self.shared.policy {
            Policy::Open => {
                self.key = Some(fp);
                self.presenter = presenter;
                Auth::Accept
            }
            Policy::Keys { .. } if presenter.is_some() => {
                self.key = Some(fp);
                self.presenter = presenter;
                Auth::Accept
            }
            Policy::Keys { keys, .. } if is_authorized(keys, key) => {
                self.key = Some(fp);
                Auth::Accept
            }
            // Turned away: no more tries counted or logged this window.
            Policy::Keys { .. } if self.shared.limiter.blocked(self.addr.ip(), Instant::now()) => {
                Auth::reject()
            }
            Policy::Keys { file, .. } => {
                let ip = self.addr.ip();
                let user = crate::catalog::fields::printable(user);
                log(&format!(
                    "auth refused: {} user {user:?} key {fp}: not in {}",
                    self.addr,
                    super::keys::shown(file)
                ));
                if self.shared.limiter.failed(ip, Instant::now()) == Failure::Blocked {
                    log(&format!(
                        "auth: {ip} turned away for {} s after {} refused keys",
                        super::limits::WINDOW.as_secs(),
                        super::limits::MAX_FAILURES
                    ));
                }
                Auth::reject()
            }
        }
    }

    fn who(&self) -> String {
        match &self.key {
            Some(k) => format!("{} ({k})", self.addr),
            None => self.addr.to_string(),
        }
    }

    /// Refuse a request on the session channel: nothing runs; with
    /// `reply`, the request is answered (so that the client shows the
    /// line) and the line goes to its stderr with exit status 1; without,
    /// it fails. Either way the channel closes.
    fn refuse(&self, channel: ChannelId, session: &mut Session, what: &str, why: &str) {
        self.refuse_as(channel, session, what, why, false)
    }

    fn refuse_as(
        &self,
        channel: ChannelId,
        session: &mut Session,
        what: &str,
        why: &str,
        reply: bool,
    ) {
        log(&format!("{}: refused {what}", self.who()));
        let line = format!("ridgeline share: {why}\r\n");
        if reply {
            let _ = session.channel_success(channel);
        } else {
            let _ = session.channel_failure(channel);
        }
        let _ = session.extended_data(channel, 1, line.into_bytes());
        let _ = session.exit_status_request(channel, 1);
        let _ = session.eof(channel);
        let _ = session.close(channel);
    }

    /// Refuse a channel the client asks to open, and log it.
    async fn refuse_channel(&self, reply: ChannelOpenHandle, what: &str) {
        log(&format!("{}: refused {what}", self.who()));
        reply
            .reject(ChannelOpenFailure::AdministrativelyProhibited)
            .await;
    }

    /// Hand a message to the workbench, waiting while its queue is full
    /// (the client waits with it). False when the workbench has ended.
    async fn send(&self, mut msg: In) -> bool {
        let Some(tx) = &self.input else { return false };
        loop {
            match tx.try_send(msg) {
                Ok(()) => return true,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(m)) => {
                    msg = m;
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            }
        }
    }

    /// Start the workbench on the session channel.
    fn start(&mut self, channel: ChannelId, session: &mut Session) -> Result<(), russh::Error> {
        let Some(pty) = &self.pty else {
            self.refuse(
                channel,
                session,
                "a session without a terminal",
                "the workbench needs a terminal: connect with `ssh -t`",
            );
            return Ok(());
        };
        let Some(slot) = self.shared.sessions.take() else {
            let max = self.shared.sessions.max();
            log(&format!(
                "{}: turned away: all {max} sessions are taken",
                self.who()
            ));
            let line =
                format!("ridgeline share: all {max} sessions are taken; try again later\r\n");
            session.data(channel, line.into_bytes())?;
            session.channel_success(channel)?;
            session.exit_status_request(channel, 1)?;
            session.eof(channel)?;
            session.close(channel)?;
            return Ok(());
        };
        let n = self.shared.next.fetch_add(1, Ordering::SeqCst) + 1;
        let label = format!("session {n} ({})", self.who());
        let mut env = self.env.clone();
        env.push(("TERM".into(), pty.term.clone()));
        let spec = Spec {
            tui: self.shared.tui.clone(),
            env,
            width: pty.width,
            height: pty.height,
            idle: self.shared.idle,
            label: label.clone(),
            role: match &self.shared.hall {
                Some(hall) => hall.role(self.presenter.clone()),
                None => super::room::Role::Alone,
            },
        };
        let part = match &spec.role {
            super::room::Role::Presenter(_) => " as the presenter",
            super::room::Role::Follower(_) => " following",
            super::room::Role::Alone => "",
        };
        let (tx, rx) = sync_channel(INPUT_QUEUE);
        // One frame in flight and the end: the thread never waits on it.
        let (otx, orx) = tokio::sync::mpsc::channel(2);
        let in_flight = Arc::new(AtomicBool::new(false));
        if let Err(e) = session::spawn(spec, rx, otx, Arc::clone(&in_flight)) {
            log(&format!("{label}: cannot start: {e}"));
            self.refuse(
                channel,
                session,
                "a session (no thread)",
                "the server cannot start a workbench now; try again later",
            );
            return Ok(());
        }
        log(&format!(
            "{label}: started{part} at {}x{} (TERM={})",
            pty.width, pty.height, pty.term
        ));
        tokio::spawn(pump(session.handle(), channel, orx, in_flight, label));
        self.input = Some(tx);
        self.slot = Some(slot);
        session.channel_success(channel)?;
        Ok(())
    }
}

/// Send the workbench's frames to the client, one at a time; clear the
/// flag each time one has gone out (the workbench looks at it). The last
/// message closes the channel.
async fn pump(
    handle: Handle,
    channel: ChannelId,
    mut frames: tokio::sync::mpsc::Receiver<Out>,
    in_flight: Arc<AtomicBool>,
    label: String,
) {
    while let Some(out) = frames.recv().await {
        match out {
            Out::Frame(bytes) => {
                if handle.data(channel, bytes).await.is_err() {
                    break;
                }
                in_flight.store(false, Ordering::SeqCst);
            }
            Out::End(bytes, status) => {
                if !bytes.is_empty() {
                    let _ = handle.data(channel, bytes).await;
                }
                let _ = handle.exit_status_request(channel, status).await;
                let _ = handle.eof(channel).await;
                let _ = handle.close(channel).await;
                break;
            }
        }
    }
    log(&format!("{label}: ended"));
}

impl Handler for Conn {
    type Error = russh::Error;

    async fn auth_none(&mut self, _user: &str) -> Result<Auth, Self::Error> {
        Ok(match self.shared.policy {
            // A presented room asks for a key first (any key, on an open
            // server): the presenter's is known by it.
            Policy::Open if self.shared.hall.is_some() => {
                let mut methods = russh::MethodSet::empty();
                methods.push(russh::MethodKind::PublicKey);
                Auth::Reject {
                    proceed_with_methods: Some(methods),
                    partial_success: false,
                }
            }
            Policy::Open => Auth::Accept,
            Policy::Keys { .. } => Auth::Reject {
                proceed_with_methods: None,
                partial_success: false,
            },
        })
    }

    async fn auth_publickey_offered(
        &mut self,
        user: &str,
        key: &PublicKey,
    ) -> Result<Auth, Self::Error> {
        Ok(self.check_key(user, key))
    }

    async fn auth_publickey(&mut self, user: &str, key: &PublicKey) -> Result<Auth, Self::Error> {
        Ok(self.check_key(user, key))
    }

    async fn auth_succeeded(&mut self, _session: &mut Session) -> Result<(), Self::Error> {
        self.authed.store(true, Ordering::SeqCst);
        log(&format!("{}: logged in", self.who()));
        Ok(())
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.channel.is_some() {
            self.refuse_channel(reply, "a second session").await;
        } else {
            self.channel = Some(channel.id());
            reply.accept().await;
        }
        Ok(())
    }

    async fn channel_open_x11(
        &mut self,
        _channel: Channel<Msg>,
        _addr: &str,
        _port: u32,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.refuse_channel(reply, "an X11 channel").await;
        Ok(())
    }

    async fn channel_open_direct_tcpip(
        &mut self,
        _channel: Channel<Msg>,
        host: &str,
        port: u32,
        _oa: &str,
        _op: u32,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        let host = crate::catalog::fields::printable(host);
        self.refuse_channel(reply, &format!("port forwarding to {host}:{port}"))
            .await;
        Ok(())
    }

    async fn channel_open_direct_streamlocal(
        &mut self,
        _channel: Channel<Msg>,
        _path: &str,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.refuse_channel(reply, "socket forwarding").await;
        Ok(())
    }

    async fn tcpip_forward(
        &mut self,
        _address: &str,
        _port: &mut u32,
        _session: &mut Session,
    ) -> Result<bool, Self::Error> {
        log(&format!("{}: refused remote port forwarding", self.who()));
        Ok(false)
    }

    async fn streamlocal_forward(
        &mut self,
        _path: &str,
        _session: &mut Session,
    ) -> Result<bool, Self::Error> {
        log(&format!("{}: refused remote socket forwarding", self.who()));
        Ok(false)
    }

    async fn agent_request(
        &mut self,
        _channel: ChannelId,
        _session: &mut Session,
    ) -> Result<bool, Self::Error> {
        log(&format!("{}: refused agent forwarding", self.who()));
        Ok(false)
    }

    async fn x11_request(
        &mut self,
        channel: ChannelId,
        _single: bool,
        _proto: &str,
        _cookie: &str,
        _screen: u32,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        log(&format!("{}: refused X11 forwarding", self.who()));
        session.channel_failure(channel)?;
        Ok(())
    }

    async fn pty_request(
        &mut self,
        channel: ChannelId,
        term: &str,
        width: u32,
        height: u32,
        _pw: u32,
        _ph: u32,
        _modes: &[(Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.input.is_some() {
            session.channel_failure(channel)?;
            return Ok(());
        }
        let term: String = term.chars().take(64).collect();
        self.pty = Some(PtyReq {
            term,
            width: clamp16(width),
            height: clamp16(height),
        });
        session.channel_success(channel)?;
        Ok(())
    }

    async fn env_request(
        &mut self,
        channel: ChannelId,
        name: &str,
        value: &str,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.env.len() < ENV_MAX && name.len() <= 64 && value.len() <= ENV_VALUE_MAX {
            self.env.push((name.to_string(), value.to_string()));
            session.channel_success(channel)?;
        } else {
            session.channel_failure(channel)?;
        }
        Ok(())
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.input.is_some() || self.slot.is_some() {
            session.channel_failure(channel)?;
            return Ok(());
        }
        self.start(channel, session)
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let cmd: String = String::from_utf8_lossy(data).chars().take(80).collect();
        let cmd = crate::catalog::fields::printable(&cmd);
        // Answered, so that the client shows why; nothing runs.
        self.refuse_as(
            channel,
            session,
            &format!("a command ({cmd:?})"),
            "commands are not run here; connect with no command for the workbench",
            true,
        );
        Ok(())
    }

    async fn subsystem_request(
        &mut self,
        channel: ChannelId,
        name: &str,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let name = crate::catalog::fields::printable(name);
        self.refuse(
            channel,
            session,
            &format!("the subsystem {name:?}"),
            "no subsystem (sftp or other) is offered; connect with no command for the workbench",
        );
        Ok(())
    }

    async fn window_change_request(
        &mut self,
        _channel: ChannelId,
        width: u32,
        height: u32,
        _pw: u32,
        _ph: u32,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        let (w, h) = (clamp16(width), clamp16(height));
        if let Some(p) = &mut self.pty {
            p.width = w;
            p.height = h;
        }
        self.send(In::Resize(w, h)).await;
        Ok(())
    }

    async fn data(
        &mut self,
        _channel: ChannelId,
        data: &[u8],
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.send(In::Bytes(data.to_vec())).await;
        Ok(())
    }

    async fn channel_eof(
        &mut self,
        _channel: ChannelId,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        // The workbench sees its input end.
        self.input = None;
        Ok(())
    }

    async fn channel_close(
        &mut self,
        _channel: ChannelId,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.input = None;
        self.slot = None;
        Ok(())
    }
}
