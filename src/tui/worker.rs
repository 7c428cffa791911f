//! A worker thread for figures too slow for a keystroke's path: the loop
//! asks for the figures of some inputs (a key) and goes on drawing; the
//! thread computes them and hands them back with their key, then wakes the
//! loop. The latest request wins: one asked for while the thread is busy
//! replaces any not started yet, so a burst of keys costs one computation
//! after the one under way. The caller decides which results are still
//! wanted (its key is the one asked for last) and drops the others.
//!
//! The thread computes only through the function it is given (a pure one
//! of the solver); it ends when the [`Latest`] is dropped, after the
//! computation under way.

use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// The request waiting for the thread, and whether its owner is gone.
struct Slot<K> {
    request: Option<K>,
    closed: bool,
}

struct Shared<K> {
    slot: Mutex<Slot<K>>,
    ready: Condvar,
}

/// What [`Latest::try_take`] found.
#[derive(Debug, PartialEq)]
pub enum Taken<K, V> {
    /// A result, with the key it was computed for.
    Landed(K, V),
    /// Nothing has landed.
    Nothing,
    /// The thread is gone (its function panicked): compute inline.
    Gone,
}

/// A worker thread computing `V` from `K`, the latest request first.
pub struct Latest<K, V> {
    shared: Arc<Shared<K>>,
    results: Receiver<(K, V)>,
}

impl<K: Send + 'static, V: Send + 'static> Latest<K, V> {
    /// Start the thread `name`: it computes `work` for each request it
    /// takes and calls `wake` after each result it hands back.
    pub fn spawn(
        name: &str,
        work: impl Fn(&K) -> V + Send + 'static,
        wake: impl Fn() + Send + 'static,
    ) -> io::Result<Latest<K, V>> {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot {
                request: None,
                closed: false,
            }),
            ready: Condvar::new(),
        });
        let (tx, results) = channel();
        let theirs = Arc::clone(&shared);
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                while let Some(key) = next_request(&theirs) {
                    // A panic ends the thread (the receiver sees it gone)
                    // rather than unwinding past the loop unseen.
                    let Ok(v) = catch_unwind(AssertUnwindSafe(|| work(&key))) else {
                        return;
                    };
                    if tx.send((key, v)).is_err() {
                        return;
                    }
                    wake();
                }
            })?;
        Ok(Latest { shared, results })
    }

    /// Ask for the figures of `key`; a request the thread has not started
    /// is replaced.
    pub fn request(&self, key: K) {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.request = Some(key);
        self.shared.ready.notify_one();
    }

    /// The oldest result not taken yet, if one has landed.
    pub fn try_take(&self) -> Taken<K, V> {
        match self.results.try_recv() {
            Ok((k, v)) => Taken::Landed(k, v),
            Err(TryRecvError::Empty) => Taken::Nothing,
            Err(TryRecvError::Disconnected) => Taken::Gone,
        }
    }

    /// The oldest result not taken yet, waiting at most `d` for one.
    pub fn take_timeout(&self, d: Duration) -> Taken<K, V> {
        match self.results.recv_timeout(d) {
            Ok((k, v)) => Taken::Landed(k, v),
            Err(RecvTimeoutError::Timeout) => Taken::Nothing,
            Err(RecvTimeoutError::Disconnected) => Taken::Gone,
        }
    }
}

/// Wait for a request and take it; None once the owner is gone.
fn next_request<K>(shared: &Shared<K>) -> Option<K> {
    let mut slot = shared.slot.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if slot.closed {
            return None;
        }
        if let Some(k) = slot.request.take() {
            return Some(k);
        }
        slot = shared
            .ready
            .wait(slot)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

impl<K, V> Drop for Latest<K, V> {
    /// The thread ends after the computation under way (its result is
    /// dropped with the channel).
    fn drop(&mut self) {
        let mut slot = self
            .shared
            .slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.closed = true;
        slot.request = None;
        self.shared.ready.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc::{Sender, sync_channel};

    const LONG: Duration = Duration::from_secs(10);

    /// A worker that doubles its key, but only once a gate lets it (one
    /// pass per computation), recording the keys it computed.
    #[allow(clippy::type_complexity)]
    fn gated() -> (
        Latest<u32, u32>,
        std::sync::mpsc::SyncSender<()>,
        Arc<Mutex<Vec<u32>>>,
        Arc<AtomicUsize>,
        Receiver<u32>,
    ) {
        let (gate_tx, gate_rx) = sync_channel::<()>(0);
        let (started_tx, started_rx) = channel::<u32>();
        let started_tx: Mutex<Sender<u32>> = Mutex::new(started_tx);
        let gate_rx = Mutex::new(gate_rx);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let wakes = Arc::new(AtomicUsize::new(0));
        let (s, w) = (Arc::clone(&seen), Arc::clone(&wakes));
        let latest = Latest::spawn(
            "test-worker",
            move |k: &u32| {
                s.lock().unwrap().push(*k);
                let _ = started_tx.lock().unwrap().send(*k);
                let _ = gate_rx.lock().unwrap().recv();
                k * 2
            },
            move || {
                w.fetch_add(1, Ordering::SeqCst);
            },
        )
        .unwrap();
        (latest, gate_tx, seen, wakes, started_rx)
    }

    #[test]
    fn a_newer_request_replaces_one_not_started_and_each_result_keeps_its_key() {
        let (latest, gate, seen, wakes, started) = gated();
        latest.request(1);
        // The thread is computing 1 (held at the gate) ...
        assert_eq!(started.recv_timeout(LONG), Ok(1));
        // ... while 2 and then 3 are asked for: 3 replaces 2.
        latest.request(2);
        latest.request(3);
        assert_eq!(latest.try_take(), Taken::Nothing, "nothing landed yet");
        gate.send(()).unwrap();
        // 1 lands with its key (the caller drops it: 3 is wanted).
        assert_eq!(latest.take_timeout(LONG), Taken::Landed(1, 2));
        assert_eq!(started.recv_timeout(LONG), Ok(3));
        gate.send(()).unwrap();
        assert_eq!(latest.take_timeout(LONG), Taken::Landed(3, 6));
        // 2 was never computed; the loop is woken once per result (just
        // after the result is handed over).
        assert_eq!(*seen.lock().unwrap(), vec![1, 3]);
        let start = std::time::Instant::now();
        while wakes.load(Ordering::SeqCst) < 2 && start.elapsed() < LONG {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(wakes.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_worker_whose_function_panics_is_seen_gone() {
        let latest: Latest<u32, u32> = Latest::spawn(
            "test-worker-panics",
            |k: &u32| {
                if *k == 0 {
                    panic!("a test panic in the worker");
                }
                *k
            },
            || {},
        )
        .unwrap();
        latest.request(0);
        assert_eq!(latest.take_timeout(LONG), Taken::Gone);
    }

    #[test]
    fn dropping_the_worker_ends_its_thread() {
        let (latest, gate, _, _, started) = gated();
        latest.request(5);
        assert_eq!(started.recv_timeout(LONG), Ok(5));
        drop(latest);
        // The computation under way finishes; the thread then ends, and
        // with it the gate's receiver.
        gate.send(()).unwrap();
        let gone = (0..1000).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            gate.try_send(())
                .is_err_and(|e| matches!(e, std::sync::mpsc::TrySendError::Disconnected(_)))
        });
        assert!(gone, "the thread ended");
    }
}
