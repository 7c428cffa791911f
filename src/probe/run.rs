//! Running an external command (`nvidia-smi`, `rocm-smi`, `sysctl`) so that
//! it can never hang detection: a deadline, the child killed on expiry, and
//! a missing program reported as "not present" rather than as an error.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What came of running a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// It ran and exited 0; its standard output.
    Ok(String),
    /// The program is not installed (not on PATH).
    NotPresent,
    /// It ran but failed (non-zero exit, or could not be started); a short
    /// reason.
    Failed(String),
    /// It did not finish within the deadline and was killed.
    TimedOut,
}

impl RunOutcome {
    pub fn stdout(&self) -> Option<&str> {
        match self {
            RunOutcome::Ok(s) => Some(s),
            _ => None,
        }
    }
}

/// Run `program args` with no stdin, capturing stdout, waiting at most
/// `timeout`; on expiry the child is killed and reaped.
pub fn run_with_timeout(program: &str, args: &[&str], timeout: Duration) -> RunOutcome {
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return RunOutcome::NotPresent,
        Err(e) => return RunOutcome::Failed(format!("could not start {program}: {e}")),
    };
    // Read stdout on a thread so a chatty child cannot block on a full pipe
    // while we wait for it.
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = out.take(16 * 1024 * 1024).read_to_end(&mut buf);
        }
        buf
    });
    let mut stderr = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(err) = stderr.as_mut() {
            let _ = err.take(64 * 1024).read_to_end(&mut buf);
        }
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let Some(status) = status else {
        // The pipes close with the killed child, so the readers end; a
        // grandchild holding them open is not waited for.
        return RunOutcome::TimedOut;
    };
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if status.success() {
        RunOutcome::Ok(String::from_utf8_lossy(&out).into_owned())
    } else {
        let msg = String::from_utf8_lossy(&err);
        let first = msg.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        RunOutcome::Failed(format!("{program} exited with {status}: {}", first.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_program_is_not_present() {
        let r = run_with_timeout("ridgeline-no-such-program-xyz", &[], Duration::from_secs(2));
        assert_eq!(r, RunOutcome::NotPresent);
    }

    #[cfg(unix)]
    #[test]
    fn slow_program_is_killed_at_the_deadline() {
        let start = Instant::now();
        let r = run_with_timeout("sleep", &["30"], Duration::from_millis(200));
        assert_eq!(r, RunOutcome::TimedOut);
        // Killed at 0.2 s, not after 30 s; 5 s leaves room for a loaded box.
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[cfg(unix)]
    #[test]
    fn output_and_failure_are_told_apart() {
        let ok = run_with_timeout("echo", &["hello"], Duration::from_secs(2));
        assert_eq!(ok.stdout(), Some("hello\n"));
        let bad = run_with_timeout("false", &[], Duration::from_secs(2));
        assert!(matches!(bad, RunOutcome::Failed(_)), "{bad:?}");
    }
}
