//! How the Serving view batches, in a scenario's `[serving]` section:
//!
//! ```toml
//! [serving]
//! batching = "continuous"  # static | continuous
//! token_budget = 2048      # tokens a step, decode and prefill together
//! prefix_hit = 0.5         # share of each prompt in the prefix cache, below 1
//! draft = "llama-3.2-1b"   # speculative decoding's draft model (absent: none)
//! proposed = 4             # tokens the draft proposes a step, 1 to 64
//! acceptance = 0.7         # chance each is accepted, 0 to 1
//! ```

use super::values::{Problem, Problems};
use super::{Scenario, ServingSection};
use crate::solver::Model;
use crate::solver::batching::{
    Batching, DEFAULT_ACCEPTANCE, DEFAULT_PROPOSED, DEFAULT_TOKEN_BUDGET, Speculative,
};

/// The Serving view's batching: static, or continuous with its settings
/// (kept while static, so switching back and forth loses nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct ServeModes {
    pub continuous: bool,
    pub token_budget: f64,
    pub prefix_hit: f64,
    /// A catalog model id; None: no speculative decoding.
    pub draft: Option<String>,
    pub proposed: u32,
    pub acceptance: f64,
}

impl Default for ServeModes {
    fn default() -> Self {
        ServeModes {
            continuous: false,
            token_budget: DEFAULT_TOKEN_BUDGET,
            prefix_hit: 0.0,
            draft: None,
            proposed: DEFAULT_PROPOSED,
            acceptance: DEFAULT_ACCEPTANCE,
        }
    }
}

impl ServeModes {
    /// The solver's settings, with the draft model looked up by the caller.
    pub fn batching(&self, draft: Option<&Model>) -> Batching {
        Batching {
            token_budget: self.token_budget,
            prefix_hit: self.prefix_hit,
            speculative: draft.map(|d| Speculative {
                draft: d.clone(),
                proposed: self.proposed,
                acceptance: self.acceptance,
            }),
        }
    }

    /// A token budget, a hit rate, a proposal count and an acceptance the
    /// solver takes; the problem with the first that is not.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.token_budget.is_finite() && (1.0..=1e9).contains(&self.token_budget)) {
            return Err(("token_budget", "must be from 1 to 1e9 tokens".into()));
        }
        if !(0.0..1.0).contains(&self.prefix_hit) {
            return Err((
                "prefix_hit",
                "must be at least 0 and below 1 (the last token is always prefilled)".into(),
            ));
        }
        if !(1..=64).contains(&self.proposed) {
            return Err(("proposed", "must be from 1 to 64 tokens".into()));
        }
        if !(0.0..=1.0).contains(&self.acceptance) {
            return Err(("acceptance", "must be from 0 to 1".into()));
        }
        Ok(())
    }
}

impl Scenario {
    /// The Serving view's batching (default: static).
    pub fn serve_modes(&self) -> Result<ServeModes, Vec<Problem>> {
        let s = &self.serving;
        let d = ServeModes::default();
        let mut p = Problems::default();
        let continuous = match s.batching.as_deref().map(str::to_ascii_lowercase) {
            None => false,
            Some(b) if b == "static" => false,
            Some(b) if b == "continuous" => true,
            Some(b) => {
                p.push(
                    "serving.batching",
                    format!("unknown batching {b:?}; use static or continuous"),
                );
                false
            }
        };
        let m = ServeModes {
            continuous,
            token_budget: s.token_budget.unwrap_or(d.token_budget),
            prefix_hit: s.prefix_hit.unwrap_or(d.prefix_hit),
            draft: s.draft.clone(),
            proposed: s.proposed.unwrap_or(d.proposed),
            acceptance: s.acceptance.unwrap_or(d.acceptance),
        };
        if let Err((key, e)) = m.check() {
            p.push(&format!("serving.{key}"), e);
        }
        p.or(m)
    }
}

impl ServingSection {
    /// Write `m` so that it reads back equal.
    pub fn set_modes(&mut self, m: &ServeModes) {
        self.batching = Some(if m.continuous { "continuous" } else { "static" }.into());
        self.token_budget = Some(m.token_budget);
        self.prefix_hit = Some(m.prefix_hit);
        self.draft = m.draft.clone();
        self.proposed = Some(m.proposed);
        self.acceptance = Some(m.acceptance);
    }
}
