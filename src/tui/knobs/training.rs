//! The Training view's knobs: the device count and the layout (dp is what
//! the other degrees leave of the devices), ZeRO, recomputation, the batch,
//! the sequence and the tokens to train. Each is shown, stepped and read
//! from text here; `Knob` (knobs.rs) hands the training knobs to these, and
//! these hand the optimizer and the training assumptions to
//! knobs/train_assume.rs.

use super::{Knob, MAX_DEGREE, train_assume};
pub use crate::scenario::{
    AUTO_SEQ_MAX, MAX_GLOBAL_BATCH, MAX_MICRO_BATCH, MAX_TOKENS, TrainInputs,
};
use crate::solver::training::{Attention, Recompute, TokensToTrain};
use crate::solver::units::{self, Kind};
use crate::solver::{Arch, Model};

pub fn label(k: Knob) -> &'static str {
    match k {
        k if train_assume::covers(k) => train_assume::label(k),
        Knob::Devices => "devices",
        Knob::Dp => "DP",
        Knob::TrainTp => "TP",
        Knob::TrainPp => "PP",
        Knob::Interleave => "PP chunks v",
        Knob::Ep => "EP",
        Knob::Cp => "CP",
        Knob::Zero => "ZeRO",
        Knob::Recompute => "recompute",
        Knob::Attention => "attention",
        Knob::Offload => "offload",
        Knob::EdgeLayers => "edge layers",
        Knob::Contiguous => "PP group N",
        Knob::GlobalBatch => "global batch",
        Knob::MicroBatch => "micro-batch",
        Knob::Seq => "sequence",
        _ => "tokens",
    }
}

pub fn hint(k: Knob) -> &'static str {
    match k {
        k if train_assume::covers(k) => train_assume::hint(k),
        Knob::Devices => "all devices, e.g. 8, 1k; dp is what the degrees leave",
        Knob::Dp => "data-parallel ranks (sets the devices), e.g. 8",
        Knob::TrainTp | Knob::TrainPp | Knob::Ep | Knob::Cp => "devices, e.g. 2, 8",
        Knob::Interleave => "model chunks per stage (interleaved 1F1B), e.g. 1, 2",
        Knob::Zero => "0, 1 (optimizer), 2 (+ gradients), 3 (+ weights: FSDP)",
        Knob::Recompute => "none, selective, dots, dots-except-mlpwi, full; or modules",
        Knob::Attention => "flash (no score matrix kept) or eager",
        Knob::Offload => "on: kept activations in host memory (needs a host link)",
        Knob::EdgeLayers => "layers fewer on the first and last PP stages, e.g. 1",
        Knob::Contiguous => "micro-batches back to back per chunk (v > 1); pp = Megatron's",
        Knob::GlobalBatch => "tokens per step, e.g. 4M (M = 1024^2)",
        Knob::MicroBatch => "sequences per micro-batch, e.g. 1, 2",
        Knob::Seq => "tokens, e.g. 4k, 8k; auto = the model's context up to 8k",
        _ => "e.g. 15T, 300G; chinchilla = 20 per parameter",
    }
}

pub fn value(k: Knob, t: &TrainInputs) -> String {
    match k {
        k if train_assume::covers(k) => train_assume::value(k, t),
        Knob::Devices => t.devices.to_string(),
        Knob::Dp => t.dp().map_or("-".into(), |d| d.to_string()),
        Knob::TrainTp => t.tp.to_string(),
        Knob::TrainPp => t.pp.to_string(),
        Knob::Interleave => t.v.to_string(),
        Knob::Ep => t.ep.to_string(),
        Knob::Cp => t.cp.to_string(),
        Knob::Zero => t.zero.to_string(),
        Knob::Recompute => t.recompute.name(),
        Knob::Attention => t.attention.name().into(),
        Knob::Offload => if t.offload { "on" } else { "off" }.into(),
        Knob::EdgeLayers => t.edge_layers.to_string(),
        Knob::Contiguous => match t.contiguous {
            0 => "pp".into(),
            n => n.to_string(),
        },
        Knob::GlobalBatch => units::format_tokens(t.global_batch),
        Knob::MicroBatch => t.micro_batch.to_string(),
        Knob::Seq => t.seq.map_or("auto".into(), units::format_tokens),
        _ => match t.tokens {
            TokensToTrain::Chinchilla => "chinchilla".into(),
            TokensToTrain::Tokens(n) => units::format_count(n),
        },
    }
}

/// The next degree up or down from `cur` among those `ok` allows, up to
/// MAX_DEGREE; `cur` when there is none.
fn next_degree(cur: u32, up: bool, ok: impl Fn(u32) -> bool) -> u32 {
    let mut d = cur;
    loop {
        d = if up { d.saturating_mul(2) } else { d / 2 };
        if d == 0 || d > MAX_DEGREE || d == cur {
            return cur;
        }
        if ok(d) {
            return d;
        }
    }
}

/// Step a training knob: degrees double and halve (TP to degrees that
/// split the heads, EP the experts, PP and v at most the layers) within the
/// device count while they divide it, taking from dp, then growing the
/// devices with dp kept; ZeRO and recomputation move
/// one stage; batch, sequence and tokens double and halve.
pub fn step(k: Knob, t: &TrainInputs, up: bool, model: Option<&Model>) -> TrainInputs {
    if train_assume::covers(k) {
        return train_assume::step(k, t, up);
    }
    let mut n = *t;
    let dec = model.and_then(|m| match &m.arch {
        Arch::Decoder(d) => Some(d),
        Arch::SinglePass(_) => None,
    });
    let heads = dec.map_or(u32::MAX, |d| d.heads);
    let layers = dec.map_or(MAX_DEGREE, |d| d.layers);
    let experts = dec.and_then(|d| d.moe).map(|m| m.experts);
    let dp = t.dp();
    // A degree change keeps the devices when the new degrees divide them
    // (dp gives way, as the memory fixes and the layout search count); else
    // it keeps the data-parallel ranks and the devices follow.
    let keep_dp = |n: &mut TrainInputs| {
        if n.dp().is_some() {
            return;
        }
        if let Some(dp) = dp {
            let all = n.inner().saturating_mul(dp as u64);
            if all <= MAX_DEGREE as u64 {
                n.devices = all as u32;
            }
        }
    };
    let halve_or_double = |x: f64, max: f64| {
        if up {
            (x * 2.0).min(max)
        } else {
            (x / 2.0).floor().max(1.0)
        }
    };
    match k {
        Knob::Devices => {
            n.devices = next_degree(t.devices, up, |d| {
                (d as u64).is_multiple_of(t.inner().max(1))
            })
        }
        Knob::Dp => {
            let cur = dp.unwrap_or(1);
            let next = next_degree(cur, up, |d| {
                t.inner().saturating_mul(d as u64) <= MAX_DEGREE as u64
            });
            n.devices = (t.inner() * next as u64).min(MAX_DEGREE as u64) as u32;
        }
        Knob::TrainTp => {
            n.tp = next_degree(t.tp, up, |d| heads.is_multiple_of(d));
            keep_dp(&mut n);
        }
        Knob::TrainPp => {
            n.pp = next_degree(t.pp, up, |d| d.saturating_mul(t.v) <= layers);
            keep_dp(&mut n);
        }
        Knob::Interleave => {
            n.v = next_degree(t.v, up, |v| t.pp > 1 && v.saturating_mul(t.pp) <= layers)
        }
        Knob::Ep => {
            n.ep = next_degree(t.ep, up, |d| experts.is_some_and(|e| e.is_multiple_of(d)));
            keep_dp(&mut n);
        }
        Knob::Cp => {
            n.cp = next_degree(t.cp, up, |_| true);
            keep_dp(&mut n);
        }
        Knob::Zero => {
            n.zero = if up {
                (t.zero + 1).min(3)
            } else {
                t.zero.saturating_sub(1)
            }
        }
        Knob::Recompute => {
            // The next named level in recomputation's order (a module set
            // sits between selective and dots), stopping at the ends.
            let levels = Recompute::ALL.into_iter();
            n.recompute = if up {
                levels.filter(|r| *r > t.recompute).min()
            } else {
                levels.filter(|r| *r < t.recompute).max()
            }
            .unwrap_or(t.recompute);
        }
        Knob::Attention => {
            n.attention = if up {
                Attention::Eager
            } else {
                Attention::Flash
            }
        }
        Knob::Offload => n.offload = up,
        Knob::EdgeLayers => {
            n.edge_layers = if up {
                (t.edge_layers + 1).min(MAX_DEGREE)
            } else {
                t.edge_layers.saturating_sub(1)
            }
        }
        Knob::Contiguous => {
            // 0 stands for pp: stepping down from it starts at pp - 1.
            let now = if t.contiguous == 0 {
                t.pp
            } else {
                t.contiguous
            };
            // Without interleaving (v 1) there are no chunks to group: N
            // stays at pp rather than step into a refused layout.
            n.contiguous = if t.v <= 1 {
                0
            } else if up {
                if now + 1 >= t.pp { 0 } else { now + 1 }
            } else {
                now.saturating_sub(1).max(1)
            }
        }
        Knob::GlobalBatch => n.global_batch = halve_or_double(t.global_batch, MAX_GLOBAL_BATCH),
        Knob::MicroBatch => {
            n.micro_batch = if up {
                t.micro_batch.saturating_mul(2).min(MAX_MICRO_BATCH)
            } else {
                (t.micro_batch / 2).max(1)
            }
        }
        Knob::Seq => {
            let s = match model {
                Some(m) => t.seq_for(m),
                None => t.seq.unwrap_or(AUTO_SEQ_MAX),
            };
            n.seq = Some(halve_or_double(s, crate::solver::roofline::MAX_CONTEXT));
        }
        _ => {
            let now = match (t.tokens, model) {
                (TokensToTrain::Tokens(x), _) => x,
                (TokensToTrain::Chinchilla, Some(m)) => t.tokens.tokens(m.params),
                (TokensToTrain::Chinchilla, None) => return n,
            };
            n.tokens = TokensToTrain::Tokens(halve_or_double(now, MAX_TOKENS));
        }
    }
    n
}

/// Read typed text into the training inputs.
pub fn parse(k: Knob, text: &str, t: &TrainInputs) -> Result<TrainInputs, String> {
    if train_assume::covers(k) {
        return train_assume::parse(k, text, t);
    }
    let mut n = *t;
    let s = text.trim();
    let whole = |what: &str, max: f64, kind: Kind| -> Result<f64, String> {
        let v = units::parse(s, kind).map_err(|e| e.to_string())?;
        if v.fract() != 0.0 || !(1.0..=max).contains(&v) {
            return Err(format!(
                "{what} must be a whole number from 1 to {}",
                units::format_count(max)
            ));
        }
        Ok(v)
    };
    let degree = |what: &str| whole(what, MAX_DEGREE as f64, Kind::Count).map(|v| v as u32);
    match k {
        Knob::Devices => n.devices = degree("devices")?,
        Knob::Dp => {
            let dp = degree("DP")? as u64;
            let all = t.inner().saturating_mul(dp);
            if all > MAX_DEGREE as u64 {
                return Err(format!(
                    "DP {dp} x tp x pp x ep x cp ({}) is {all} devices; at most {MAX_DEGREE} are modelled",
                    t.inner()
                ));
            }
            n.devices = all as u32;
        }
        Knob::TrainTp => n.tp = degree("TP")?,
        Knob::TrainPp => n.pp = degree("PP")?,
        Knob::Interleave => n.v = degree("v")?,
        Knob::Ep => n.ep = degree("EP")?,
        Knob::Cp => n.cp = degree("CP")?,
        Knob::Zero => {
            n.zero = match s {
                "0" => 0,
                "1" => 1,
                "2" => 2,
                "3" => 3,
                _ => return Err(format!("ZeRO stage {s:?}? use 0, 1, 2 or 3")),
            }
        }
        Knob::Recompute => {
            n.recompute = Recompute::parse(s)
                .ok_or_else(|| format!("recompute {s:?}? use {}", Recompute::EXPECTED))?
        }
        Knob::Attention => {
            n.attention =
                Attention::parse(s).ok_or_else(|| format!("attention {s:?}? use flash or eager"))?
        }
        Knob::Offload => {
            n.offload = match s.trim().to_ascii_lowercase().as_str() {
                "on" | "yes" | "true" => true,
                "off" | "no" | "false" => false,
                _ => return Err(format!("offload {s:?}? use on or off")),
            }
        }
        Knob::EdgeLayers => {
            n.edge_layers = s
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|&x| x <= MAX_DEGREE)
                .ok_or_else(|| format!("edge layers {s:?}? use a whole number such as 0 or 1"))?
        }
        Knob::Contiguous => {
            let s = s.trim();
            n.contiguous = if s.eq_ignore_ascii_case("pp") {
                0
            } else {
                s.parse::<u32>()
                    .ok()
                    .filter(|&x| x <= MAX_DEGREE)
                    .ok_or_else(|| format!("PP group {s:?}? use a whole number such as 8, or pp"))?
            }
        }
        Knob::GlobalBatch => {
            n.global_batch = whole("the global batch", MAX_GLOBAL_BATCH, Kind::Tokens)?
        }
        Knob::MicroBatch => {
            n.micro_batch = whole("the micro-batch", MAX_MICRO_BATCH as f64, Kind::Count)? as u32
        }
        Knob::Seq => {
            n.seq = if s.eq_ignore_ascii_case("auto") {
                None
            } else {
                Some(whole(
                    "the sequence",
                    crate::solver::roofline::MAX_CONTEXT,
                    Kind::Tokens,
                )?)
            }
        }
        _ => {
            n.tokens = if s.eq_ignore_ascii_case("chinchilla") {
                TokensToTrain::Chinchilla
            } else {
                let v = units::parse(s, Kind::Count)
                    .map_err(|e| format!("{e}; or chinchilla for 20 per parameter"))?;
                if !(1.0..=MAX_TOKENS).contains(&v) {
                    return Err("tokens to train must be from 1 to 1e16, or chinchilla".into());
                }
                TokensToTrain::Tokens(v)
            }
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    fn llama_8b() -> Model {
        Catalog::builtin()
            .model("llama-3.1-8b")
            .unwrap()
            .model
            .clone()
    }

    #[test]
    fn dp_is_what_the_other_degrees_leave_of_the_devices() {
        let t = TrainInputs::default();
        // 8 devices / (1 x 1 x 1 x 1) = dp 8.
        assert_eq!(t.layout().unwrap().dp, 8);
        // 8 devices / (tp 2 x cp 2) = dp 2.
        let t2 = TrainInputs { tp: 2, cp: 2, ..t };
        assert_eq!(t2.dp(), Some(2));
        // 3 does not divide 8: the layout says why, with the product.
        let bad = TrainInputs { tp: 3, ..t };
        let e = bad.layout().unwrap_err();
        assert!(e.contains("not a multiple") && e.contains("= 3"), "{e}");
        assert_eq!(value(Knob::Dp, &bad), "-");
    }

    #[test]
    fn tp_steps_through_divisors_of_the_heads_and_keeps_dp() {
        let m = llama_8b();
        // Llama 3.1 8B has 32 attention heads: 1, 2, 4, 8, 16, 32, then no
        // further (64 does not divide 32).
        let mut t = TrainInputs::default();
        let mut seen = vec![t.tp];
        for _ in 0..7 {
            t = step(Knob::TrainTp, &t, true, Some(&m));
            seen.push(t.tp);
        }
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 32, 32]);
        // Within the 8 devices tp takes from dp (tp 2: dp 4, as the memory
        // fix "TP 2 (fewer DP)" says); past them dp 1 stays and the
        // devices grow: tp 32 x dp 1 = 32.
        let tp2 = step(Knob::TrainTp, &TrainInputs::default(), true, Some(&m));
        assert_eq!((tp2.tp, tp2.dp(), tp2.devices), (2, Some(4), 8));
        assert_eq!((t.dp(), t.devices), (Some(1), 32));
        // Down again: 16 divides the 32 devices, so dp grows to 2.
        let down = step(Knob::TrainTp, &t, false, Some(&m));
        assert_eq!((down.tp, down.dp(), down.devices), (16, Some(2), 32));
    }

    #[test]
    fn the_pp_group_steps_below_pp_only_with_interleaving() {
        // v 1: nothing to group, N stays at pp (0).
        let t = TrainInputs::default();
        assert_eq!(step(Knob::Contiguous, &t, false, None).contiguous, 0);
        // pp 16, v 8: down from pp is 15, ..., never below 1; up from 15
        // is pp again (0), shown as "pp"; typed values are taken as such.
        let l = TrainInputs {
            devices: 16,
            pp: 16,
            v: 8,
            ..t
        };
        let down = step(Knob::Contiguous, &l, false, None);
        assert_eq!(down.contiguous, 15);
        assert_eq!(step(Knob::Contiguous, &down, true, None).contiguous, 0);
        assert_eq!(value(Knob::Contiguous, &l), "pp");
        let one = TrainInputs { contiguous: 1, ..l };
        assert_eq!(step(Knob::Contiguous, &one, false, None).contiguous, 1);
        assert_eq!(parse(Knob::Contiguous, "8", &l).unwrap().contiguous, 8);
        assert_eq!(parse(Knob::Contiguous, "pp", &l).unwrap().contiguous, 0);
        assert!(parse(Knob::Contiguous, "many", &l).is_err());
    }

    #[test]
    fn ep_moves_only_for_a_mixture_of_experts() {
        let m = llama_8b();
        let t = step(Knob::Ep, &TrainInputs::default(), true, Some(&m));
        assert_eq!(t.ep, 1, "a dense model has no experts to split");
    }

    #[test]
    fn zero_and_recompute_stop_at_their_ends() {
        let t = TrainInputs::default();
        assert_eq!(step(Knob::Zero, &t, true, None).zero, 3);
        assert_eq!(step(Knob::Zero, &t, false, None).zero, 2);
        // From the default (none) up: selective, dots, selective-op,
        // dots-except-mlpwi, dots-except-mlp, full, and no further.
        let sel = step(Knob::Recompute, &t, true, None);
        assert_eq!(sel.recompute, Recompute::Selective);
        let dots = step(Knob::Recompute, &sel, true, None);
        assert_eq!(dots.recompute, Recompute::Dots);
        let op = step(Knob::Recompute, &dots, true, None);
        assert_eq!(op.recompute, Recompute::SelectiveOp);
        let wi = step(Knob::Recompute, &op, true, None);
        assert_eq!(wi.recompute, Recompute::DotsExceptMlpwi);
        let mlp = step(Knob::Recompute, &wi, true, None);
        assert_eq!(mlp.recompute, Recompute::DotsExceptMlp);
        let full = step(Knob::Recompute, &mlp, true, None);
        assert_eq!(full.recompute, Recompute::Full);
        // A module set steps to the named levels around it: selective
        // below, dots above.
        let mods = TrainInputs {
            recompute: Recompute::parse("mla_up_proj,moe_act").unwrap(),
            ..t
        };
        assert_eq!(
            step(Knob::Recompute, &mods, false, None).recompute,
            Recompute::Selective
        );
        assert_eq!(
            step(Knob::Recompute, &mods, true, None).recompute,
            Recompute::Dots
        );
        assert_eq!(
            step(Knob::Recompute, &full, true, None).recompute,
            Recompute::Full
        );
        assert_eq!(
            step(Knob::Recompute, &t, false, None).recompute,
            Recompute::None
        );
    }

    #[test]
    fn tokens_step_from_chinchilla_in_tokens() {
        let m = llama_8b();
        let t = step(Knob::Tokens, &TrainInputs::default(), true, Some(&m));
        // Chinchilla is 20 tokens per parameter; one step up doubles it.
        assert_eq!(t.tokens, TokensToTrain::Tokens(40.0 * m.params));
        let back = parse(Knob::Tokens, "chinchilla", &t).unwrap();
        assert_eq!(back.tokens, TokensToTrain::Chinchilla);
    }

    #[test]
    fn typed_values_read_as_the_command_line_reads_them() {
        let t = TrainInputs::default();
        // "4M" tokens: M = 1024^2, so 4 x 1,048,576.
        let g = parse(Knob::GlobalBatch, "2M", &t).unwrap();
        assert_eq!(g.global_batch, 2.0 * 1_048_576.0);
        assert_eq!(value(Knob::GlobalBatch, &g), "2M");
        assert_eq!(parse(Knob::Seq, "4k", &t).unwrap().seq, Some(4096.0));
        assert_eq!(parse(Knob::Seq, "auto", &t).unwrap().seq, None);
        // Megatron-Core's module names, as recompute_modules spells them.
        let mods = parse(Knob::Recompute, "mla_up_proj, moe_act", &t).unwrap();
        assert_eq!(value(Knob::Recompute, &mods), "moe_act,mla_up_proj");
        let err = parse(Knob::Recompute, "mla_up_proj,attn", &t).unwrap_err();
        assert!(err.contains("core_attn, moe_act"), "{err}");
        assert_eq!(
            parse(Knob::Tokens, "15T", &t).unwrap().tokens,
            TokensToTrain::Tokens(15e12)
        );
        // DP sets the devices: dp 16 x (tp 2) = 32.
        let tp2 = TrainInputs { tp: 2, ..t };
        assert_eq!(parse(Knob::Dp, "16", &tp2).unwrap().devices, 32);
        for (k, bad) in [
            (Knob::Zero, "4"),
            (Knob::Recompute, "some"),
            (Knob::Devices, "0"),
            (Knob::TrainTp, "1.5"),
            (Knob::GlobalBatch, "-1"),
            (Knob::MicroBatch, "nan"),
            (Knob::Tokens, "0"),
            (Knob::Dp, "65536"),
        ] {
            assert!(
                parse(k, bad, &TrainInputs { tp: 2, ..t }).is_err(),
                "{k:?} {bad}"
            );
        }
    }
}
