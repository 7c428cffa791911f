//! The Serving view's batching knobs: static or continuous batching, the
//! token budget of a step, the prefix-cache hit rate, and speculative
//! decoding (the draft model, the tokens it proposes, their acceptance),
//! as `ridgeline serve --batching --token-budget --prefix-hit --draft
//! --proposed --acceptance` set them. knobs.rs hands these knobs on.

use super::Knob;
use crate::scenario::ServeModes;
use crate::solver::units::{self, Kind};
use crate::solver::{Arch, Model};

/// These knobs, in the order the Serving view shows them.
pub const KNOBS: [Knob; 6] = [
    Knob::Batching,
    Knob::TokenBudget,
    Knob::PrefixHit,
    Knob::Draft,
    Knob::Proposed,
    Knob::Acceptance,
];

/// What "no draft" is shown and typed as.
const NONE: &str = "none";

/// A decoder of the catalog a draft may be: its id, family and size.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftChoice {
    pub id: String,
    pub family: String,
    pub params: f64,
}

/// The catalog's decoders, as draft choices.
pub fn draft_choices(models: &[crate::catalog::ModelEntry]) -> Vec<DraftChoice> {
    models
        .iter()
        .filter(|e| matches!(e.model.arch, Arch::Decoder(_)))
        .map(|e| DraftChoice {
            id: e.model.id.clone(),
            family: e.family.clone(),
            params: e.model.params,
        })
        .collect()
}

pub fn covers(k: Knob) -> bool {
    KNOBS.contains(&k)
}

pub fn label(k: Knob) -> &'static str {
    match k {
        Knob::Batching => "batching",
        Knob::TokenBudget => "token budget",
        Knob::PrefixHit => "prefix hit",
        Knob::Draft => "draft model",
        Knob::Proposed => "proposed",
        _ => "acceptance",
    }
}

pub fn hint(k: Knob) -> &'static str {
    match k {
        Knob::Batching => "static (prefill alone) or continuous (chunks ride along)",
        Knob::TokenBudget => "tokens a step, decode and prefill, e.g. 2048, 8k",
        Knob::PrefixHit => "share of each prompt cached, e.g. 0.5, 50%",
        Knob::Draft => "speculative draft: a decoder id, or none",
        Knob::Proposed => "tokens the draft proposes a step, 1 to 64",
        _ => "chance each proposed token is accepted, e.g. 0.7, 70%",
    }
}

pub fn value(k: Knob, m: &ServeModes) -> String {
    let pct = |x: f64| format!("{}%", units::format_number(x * 100.0));
    match k {
        Knob::Batching => if m.continuous { "continuous" } else { "static" }.into(),
        Knob::TokenBudget => format!("{}", m.token_budget),
        Knob::PrefixHit => pct(m.prefix_hit),
        Knob::Draft => m.draft.clone().unwrap_or_else(|| NONE.into()),
        Knob::Proposed => m.proposed.to_string(),
        _ => pct(m.acceptance),
    }
}

/// The drafts the arrows step through: none, then the decoders of the
/// target's family smaller than it (the usual pairing), smallest first;
/// any decoder smaller than it when its family has none. Typing takes
/// any decoder.
fn draft_ladder(drafts: &[DraftChoice], target: Option<&Model>) -> Vec<String> {
    let (params, family) = match target {
        Some(m) => (
            m.params,
            drafts
                .iter()
                .find(|d| d.id == m.id)
                .map(|d| d.family.clone()),
        ),
        None => (f64::INFINITY, None),
    };
    let smaller = |d: &&DraftChoice| d.params < params;
    let mut same: Vec<&DraftChoice> = drafts
        .iter()
        .filter(smaller)
        .filter(|d| Some(&d.family) == family.as_ref())
        .collect();
    if same.is_empty() {
        same = drafts.iter().filter(smaller).collect();
    }
    same.sort_by(|a, b| a.params.total_cmp(&b.params));
    std::iter::once(NONE.to_string())
        .chain(same.into_iter().map(|d| d.id.clone()))
        .collect()
}

pub fn step(
    k: Knob,
    m: &ServeModes,
    up: bool,
    drafts: &[DraftChoice],
    model: Option<&Model>,
) -> ServeModes {
    let mut m = m.clone();
    match k {
        Knob::Batching => m.continuous = !m.continuous,
        Knob::TokenBudget => {
            m.token_budget = if up {
                (m.token_budget * 2.0).min(1e9)
            } else {
                (m.token_budget / 2.0).floor().max(1.0)
            }
        }
        Knob::PrefixHit => {
            let x = ((m.prefix_hit * 10.0).round() + if up { 1.0 } else { -1.0 }) / 10.0;
            m.prefix_hit = x.clamp(0.0, 0.9);
        }
        Knob::Draft => {
            let ladder = draft_ladder(drafts, model);
            let cur = m.draft.clone().unwrap_or_else(|| NONE.into());
            let n = ladder.len();
            let j = match (ladder.iter().position(|x| *x == cur), up) {
                (None, _) => 0,
                (Some(i), true) => (i + 1) % n,
                (Some(i), false) => (i + n - 1) % n,
            };
            m.draft = Some(ladder[j].clone()).filter(|d| d != NONE);
        }
        Knob::Proposed => {
            m.proposed = if up {
                (m.proposed + 1).min(64)
            } else {
                m.proposed.saturating_sub(1).max(1)
            }
        }
        _ => {
            let x = ((m.acceptance * 20.0).round() + if up { 1.0 } else { -1.0 }) / 20.0;
            m.acceptance = x.clamp(0.0, 1.0);
        }
    }
    m
}

pub fn parse(
    k: Knob,
    t: &str,
    m: &ServeModes,
    drafts: &[DraftChoice],
) -> Result<ServeModes, String> {
    let mut next = m.clone();
    let fraction = |t: &str| units::parse(t, Kind::Fraction).map_err(|e| e.to_string());
    match k {
        Knob::Batching => {
            next.continuous = match t.to_ascii_lowercase().as_str() {
                "static" | "s" => false,
                "continuous" | "c" => true,
                _ => return Err(format!("batching {t:?}? use static or continuous")),
            }
        }
        Knob::TokenBudget => {
            next.token_budget = units::parse(t, Kind::Tokens)
                .map_err(|e| e.to_string())?
                .round()
        }
        Knob::PrefixHit => next.prefix_hit = fraction(t)?,
        Knob::Draft => {
            let l = t.trim().to_ascii_lowercase();
            next.draft = if l == NONE || l.is_empty() {
                None
            } else if let Some(d) = drafts.iter().find(|d| d.id == l) {
                Some(d.id.clone())
            } else {
                return Err(format!(
                    "no decoder {t:?} to draft with; none, or an id like {}",
                    drafts
                        .iter()
                        .min_by(|a, b| a.params.total_cmp(&b.params))
                        .map_or("llama-3.2-1b", |d| d.id.as_str())
                ));
            }
        }
        Knob::Proposed => {
            let v = units::parse(t, Kind::Count).map_err(|e| e.to_string())?;
            if v.fract() != 0.0 || !(1.0..=64.0).contains(&v) {
                return Err("proposed must be a whole number of tokens from 1 to 64".into());
            }
            next.proposed = v as u32;
        }
        _ => next.acceptance = fraction(t)?,
    }
    next.check()
        .map_err(|(key, e)| format!("{}: {e}", key.replace('_', " ")))?;
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(id: &str, family: &str, params: f64) -> DraftChoice {
        DraftChoice {
            id: id.into(),
            family: family.into(),
            params,
        }
    }

    #[test]
    fn the_draft_steps_through_smaller_decoders_of_the_family() {
        let drafts = [
            d("big", "llama", 70e9),
            d("mid", "llama", 8e9),
            d("tiny", "llama", 1e9),
            d("other", "qwen", 0.5e9),
        ];
        let cat = crate::catalog::Catalog::builtin();
        let target = Model {
            id: "big".into(),
            params: 70e9,
            ..cat.model("llama-3.1-8b").unwrap().model.clone()
        };
        let m = ServeModes::default();
        // none -> tiny -> mid -> none: the family's smaller ones, smallest first.
        let a = step(Knob::Draft, &m, true, &drafts, Some(&target));
        assert_eq!(a.draft.as_deref(), Some("tiny"));
        let b = step(Knob::Draft, &a, true, &drafts, Some(&target));
        assert_eq!(b.draft.as_deref(), Some("mid"));
        assert_eq!(
            step(Knob::Draft, &b, true, &drafts, Some(&target)).draft,
            None
        );
        // Typed: any decoder; an unknown one is refused.
        let t = parse(Knob::Draft, "other", &m, &drafts).unwrap();
        assert_eq!(t.draft.as_deref(), Some("other"));
        assert!(parse(Knob::Draft, "nope", &m, &drafts).is_err());
    }

    #[test]
    fn values_out_of_range_are_refused_and_steps_stay_in_range() {
        let m = ServeModes::default();
        assert!(parse(Knob::PrefixHit, "100%", &m, &[]).is_err());
        assert!(parse(Knob::Acceptance, "1.5", &m, &[]).is_err());
        assert!(parse(Knob::Proposed, "65", &m, &[]).is_err());
        assert!(parse(Knob::TokenBudget, "0", &m, &[]).is_err());
        let mut x = m.clone();
        for _ in 0..20 {
            x = step(Knob::PrefixHit, &x, true, &[], None);
        }
        assert_eq!(x.prefix_hit, 0.9);
        assert!(x.check().is_ok());
    }
}
