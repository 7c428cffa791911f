//! The scaling plot's curve, off the keystroke's path. A curve is twelve
//! layout searches (tens of milliseconds), so:
//!
//! - it is kept with the [`ScaleKey`] it was computed for, and a change
//!   that leaves the key alone (a layout knob, ZeRO, recomputation,
//!   micro-batch, devices, tokens, region) keeps it: the same curve, not
//!   an approximation of it;
//! - when the key changes and a worker is attached (the terminal's loop
//!   and each shared session attach one), the curve is asked of the
//!   worker and the plot draws the curve it has, marked as updating,
//!   until the new one lands and the loop takes it (woken, or looking
//!   every few milliseconds in a shared session). Without a worker (tests,
//!   most benches) it is computed inline: the same figures, and every
//!   frame deterministic.

use super::{ScaleKey, scale_key, scaling_of};
use crate::solver::training::scale::Scaling;
use crate::tui::app::App;
use crate::tui::worker::{Latest, Taken};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A curve computed for its key.
type Computed = Result<Scaling, String>;

/// The curve the plot draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The curve, or why there is none; None while the first is computed.
    pub result: Option<Arc<Computed>>,
    /// The curve of the current inputs is being computed: `result` is of
    /// the inputs before.
    pub updating: bool,
}

/// The last curve and what it was computed for, the key wanted now, and
/// the worker when one is attached.
#[derive(Default)]
pub struct Curves {
    /// The key of the inputs shown, or why they have none.
    wanted: Option<Result<ScaleKey, String>>,
    /// The last curve that landed, with its key.
    last: Option<(ScaleKey, Arc<Computed>)>,
    worker: Option<Latest<ScaleKey, Computed>>,
    /// The key last asked of the worker, until its curve lands: asked
    /// again meanwhile (the keys went away and back), it is not sent twice.
    asked: Option<ScaleKey>,
    /// Curves computed inline (tests count them).
    pub computed: u64,
}

impl Curves {
    /// Compute on a worker thread from now on; `wake` is called when a
    /// curve lands (the loop then calls [`Curves::land`]).
    pub fn attach(&mut self, wake: impl Fn() + Send + 'static) -> std::io::Result<()> {
        let w = Latest::spawn("ridgeline-scaling", scaling_of, wake)?;
        self.worker = Some(w);
        self.asked = None;
        // A key asked for before has no request on the new worker.
        if let Some(Ok(k)) = self.wanted.take() {
            self.want(Ok(k));
        }
        Ok(())
    }

    /// True when a worker computes the curves.
    pub fn attached(&self) -> bool {
        self.worker.is_some()
    }

    /// The curve of `key` is the one to show: kept if it is the last one,
    /// else asked of the worker (or computed now, without one).
    pub fn want(&mut self, key: Result<ScaleKey, String>) {
        if self.wanted.as_ref() == Some(&key) {
            return;
        }
        if let Ok(k) = &key
            && !self.is_last(k)
        {
            match &self.worker {
                Some(_) if self.asked.as_ref() == Some(k) => {}
                Some(w) => {
                    w.request(k.clone());
                    self.asked = Some(k.clone());
                }
                None => self.compute(k.clone()),
            }
        }
        self.wanted = Some(key);
    }

    fn is_last(&self, k: &ScaleKey) -> bool {
        self.last.as_ref().is_some_and(|(l, _)| l == k)
    }

    fn compute(&mut self, k: ScaleKey) {
        self.computed += 1;
        let c = scaling_of(&k);
        self.last = Some((k, Arc::new(c)));
    }

    /// Take the curves that landed: the wanted one is kept, older ones
    /// dropped. True when the curve shown changed. A worker that is gone
    /// (it panicked) is replaced by computing inline.
    pub fn land(&mut self) -> bool {
        let mut changed = false;
        while let Some(w) = &self.worker {
            match w.try_take() {
                Taken::Landed(k, c) => changed |= self.adopt(k, c),
                Taken::Nothing => break,
                Taken::Gone => changed |= self.detach(),
            }
        }
        changed
    }

    /// Wait until the wanted curve has landed, at most `limit` (for tests
    /// and benches of the worker; without one it is already there). True
    /// when it has.
    pub fn wait(&mut self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while self.pending() {
            let Some(w) = &self.worker else { break };
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match w.take_timeout(left) {
                Taken::Landed(k, c) => {
                    self.adopt(k, c);
                }
                Taken::Nothing => return false,
                Taken::Gone => {
                    self.detach();
                }
            }
        }
        !self.pending()
    }

    /// True while the wanted curve is being computed.
    pub fn pending(&self) -> bool {
        matches!(&self.wanted, Some(Ok(k)) if !self.is_last(k))
    }

    fn adopt(&mut self, k: ScaleKey, c: Computed) -> bool {
        if self.asked.as_ref() == Some(&k) {
            self.asked = None;
        }
        let wanted = matches!(&self.wanted, Some(Ok(w)) if *w == k);
        if wanted {
            self.last = Some((k, Arc::new(c)));
        }
        wanted
    }

    fn detach(&mut self) -> bool {
        self.worker = None;
        self.asked = None;
        match &self.wanted {
            Some(Ok(k)) if !self.is_last(k) => {
                self.compute(k.clone());
                true
            }
            _ => false,
        }
    }

    /// The curve to draw for the key wanted, None before one is wanted.
    pub fn shown(&self) -> Option<Curve> {
        Some(match self.wanted.as_ref()? {
            Err(e) => Curve {
                result: Some(Arc::new(Err(e.clone()))),
                updating: false,
            },
            Ok(k) => Curve {
                result: self.last.as_ref().map(|(_, c)| Arc::clone(c)),
                updating: !self.is_last(k),
            },
        })
    }
}

/// Ask for the curve of the app's inputs (when the Training view shows its
/// scaling plot; `recompute` calls this before the view's figures).
pub fn refresh_curve(app: &mut App) {
    let (Some(hw), Some(m)) = (
        app.catalog.hardware.get(app.hw),
        app.catalog.models.get(app.model),
    ) else {
        return;
    };
    let t = &app.view_inputs.train;
    let key = scale_key(&hw.hw, &m.model, t, app.workload.weights, &app.assumptions);
    app.train_curve.want(key);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::solver::{Assumptions, Precision};
    use crate::tui::knobs::TrainInputs;

    /// The key of these inputs for Llama 3.1 8B on H100s in bf16.
    fn key_of(t: &TrainInputs) -> ScaleKey {
        let cat = Catalog::builtin();
        let hw = &cat.hardware("h100-sxm").unwrap().hw;
        let m = &cat.model("llama-3.1-8b").unwrap().model;
        scale_key(hw, m, t, Precision::Bf16, &Assumptions::default()).unwrap()
    }

    /// The keys at 4M and at 8M tokens a step.
    fn keys() -> (ScaleKey, ScaleKey) {
        let t = TrainInputs::default();
        let t8 = TrainInputs {
            global_batch: 2.0 * t.global_batch,
            ..t
        };
        (key_of(&t), key_of(&t8))
    }

    #[test]
    fn a_curve_landing_for_a_key_no_longer_wanted_is_dropped() {
        let (old, new) = keys();
        assert_ne!(old, new);
        let mut c = Curves {
            wanted: Some(Ok(new.clone())),
            ..Curves::default()
        };
        // Stand-in curves (no points): only which one is kept matters.
        let empty = Scaling {
            points: Vec::new(),
            knee: None,
        };
        assert!(!c.adopt(old, Ok(empty.clone())), "the older key's dropped");
        assert!(c.last.is_none() && c.pending());
        let none_yet = Curve {
            result: None,
            updating: true,
        };
        assert_eq!(c.shown(), Some(none_yet));
        assert!(c.adopt(new, Ok(empty.clone())), "the wanted key's kept");
        assert!(!c.pending());
        let kept = Curve {
            result: Some(Arc::new(Ok(empty))),
            updating: false,
        };
        assert_eq!(c.shown(), Some(kept));
    }

    #[test]
    fn the_key_leaves_out_what_the_searches_choose() {
        let t = TrainInputs::default();
        let laid = TrainInputs {
            devices: 64,
            tp: 2,
            pp: 2,
            zero: 1,
            micro_batch: 4,
            recompute: crate::solver::training::Recompute::Full,
            ..t
        };
        assert_eq!(key_of(&t), key_of(&laid));
        // The sequence is the run's: a new one is a new curve.
        let longer = TrainInputs {
            seq: Some(16384.0),
            ..t
        };
        assert_ne!(key_of(&t), key_of(&longer));
    }
}
