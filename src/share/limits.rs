//! The limits of `ridgeline share` that outlive one connection: how many
//! sessions run, and which addresses failed to authenticate too often.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Refused keys from one address within [`WINDOW`] before the address is
/// turned away for the rest of the window. An SSH client offers each key
/// it has, so a user with several keys (none listed) uses a few per try.
pub const MAX_FAILURES: u32 = 20;

/// The window failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(60);

/// Addresses remembered at most (the oldest windows are forgotten first),
/// so a flood from many addresses cannot grow memory without bound.
const MAX_ADDRESSES: usize = 4096;

/// Failures of one address in its current window.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: Instant,
    failures: u32,
}

/// Authentication failures per address.
#[derive(Debug, Default)]
pub struct AuthLimiter {
    windows: Mutex<HashMap<IpAddr, Window>>,
}

/// What a failure did to its address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Counted; the address may still try.
    Counted,
    /// This failure reached the limit: the address is turned away now.
    Blocked,
}

impl AuthLimiter {
    /// Count a refused key from `ip` at `now`.
    pub fn failed(&self, ip: IpAddr, now: Instant) -> Failure {
        let mut map = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_ADDRESSES && !map.contains_key(&ip) {
            map.retain(|_, w| now.duration_since(w.start) < WINDOW);
            if map.len() >= MAX_ADDRESSES
                && let Some(oldest) = map.iter().min_by_key(|(_, w)| w.start).map(|(k, _)| *k)
            {
                map.remove(&oldest);
            }
        }
        let w = map.entry(ip).or_insert(Window {
            start: now,
            failures: 0,
        });
        if now.duration_since(w.start) >= WINDOW {
            *w = Window {
                start: now,
                failures: 0,
            };
        }
        w.failures += 1;
        if w.failures == MAX_FAILURES {
            Failure::Blocked
        } else {
            Failure::Counted
        }
    }

    /// True when `ip` reached the limit within the window still running.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> bool {
        let map = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&ip)
            .is_some_and(|w| now.duration_since(w.start) < WINDOW && w.failures >= MAX_FAILURES)
    }
}

/// A count with a ceiling: sessions running, connections open.
#[derive(Debug)]
pub struct Slots {
    used: AtomicUsize,
    max: usize,
}

/// A slot taken; dropping it gives it back.
#[derive(Debug)]
pub struct Slot(Arc<Slots>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.used.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Slots {
    pub fn new(max: usize) -> Slots {
        Slots {
            used: AtomicUsize::new(0),
            max,
        }
    }

    /// Take a slot if one is free.
    pub fn take(self: &Arc<Slots>) -> Option<Slot> {
        let max = self.max;
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(self)))
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }

    pub fn max(&self) -> usize {
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_blocked_at_the_limit_and_free_after_the_window() {
        let l = AuthLimiter::default();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        for i in 1..MAX_FAILURES {
            assert_eq!(l.failed(a, t0), Failure::Counted, "failure {i}");
            assert!(!l.blocked(a, t0));
        }
        assert_eq!(l.failed(a, t0), Failure::Blocked);
        assert!(l.blocked(a, t0));
        // Another address is not touched.
        assert!(!l.blocked(b, t0));
        // One second before the window ends: still blocked; at its end, free.
        assert!(l.blocked(a, t0 + WINDOW - Duration::from_secs(1)));
        assert!(!l.blocked(a, t0 + WINDOW));
        // A new window counts from one again.
        assert_eq!(l.failed(a, t0 + WINDOW), Failure::Counted);
        assert!(!l.blocked(a, t0 + WINDOW));
    }

    #[test]
    fn memory_stays_bounded_under_many_addresses() {
        let l = AuthLimiter::default();
        let t0 = Instant::now();
        for i in 0..(MAX_ADDRESSES as u32 + 100) {
            l.failed(IpAddr::from(i.to_be_bytes()), t0);
        }
        assert!(l.windows.lock().unwrap().len() <= MAX_ADDRESSES);
    }

    #[test]
    fn slots_stop_at_the_ceiling_and_come_back_when_dropped() {
        let s = Arc::new(Slots::new(2));
        let a = s.take().unwrap();
        let _b = s.take().unwrap();
        assert!(s.take().is_none());
        assert_eq!(s.used(), 2);
        drop(a);
        assert!(s.take().is_some());
    }
}
