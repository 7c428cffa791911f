//! `ridgeline serve --batching continuous`: the flags of continuous
//! batching, prefix caching and speculative decoding, their checks, and the
//! figures of a replica that batches that way.

use super::CliError;
use super::args::{parse_count, parse_unit_interval};
use super::output::{Col, Fmt, col};
use crate::catalog::Catalog;
use crate::solver::batching::{
    Batching, Continuous, DEFAULT_ACCEPTANCE, DEFAULT_PROPOSED, DEFAULT_TOKEN_BUDGET, Speculative,
};
use crate::solver::serving::Serving;
use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};

/// How a replica batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchingMode {
    /// A prompt prefilled alone, then decode steps of the batch.
    Static,
    /// Prefill chunks ride along in the decode steps, up to a token budget.
    Continuous,
}

#[derive(Debug, Clone, Args)]
pub struct BatchingArgs {
    /// How the replica batches: static (each prompt prefilled alone) or
    /// continuous (chunked prefill sharing the decode steps).
    #[arg(long, value_enum, default_value = "static")]
    pub batching: BatchingMode,
    /// Tokens a step holds, decode and prefill chunks together (continuous
    /// only) [default 2048, vLLM's max_num_batched_tokens].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub token_budget: Option<u64>,
    /// Share of each prompt found in the prefix cache, "0.5" or "50%",
    /// below 1 (continuous only) [default 0].
    #[arg(long, value_parser = parse_prefix_hit, allow_hyphen_values = true)]
    pub prefix_hit: Option<f64>,
    /// Draft model for speculative decoding: a catalog id or a
    /// config.json, like --model (continuous only).
    #[arg(long, value_name = "MODEL")]
    pub draft: Option<String>,
    /// Tokens the draft proposes a step, 1 to 64 [default 4].
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    pub proposed: Option<u64>,
    /// Probability each proposed token is accepted, 0 to 1 or 0% to 100%
    /// [default 0.7].
    #[arg(long, value_parser = parse_unit_interval, allow_hyphen_values = true)]
    pub acceptance: Option<f64>,
}

/// A prefix-cache hit rate: 0 up to, not including, 1 (a prompt entirely
/// cached still has its last token to prefill).
fn parse_prefix_hit(s: &str) -> Result<f64, String> {
    let v = parse_unit_interval(s)?;
    if v < 1.0 {
        Ok(v)
    } else {
        Err(format!(
            "{s:?} must be below 1 (100%): the last token of a prompt is always prefilled"
        ))
    }
}

/// The batching the flags ask for: None under static batching (which
/// refuses the continuous-only flags), else the solver's settings with the
/// draft looked up.
pub fn batching(cat: &Catalog, a: &BatchingArgs) -> Result<Option<Batching>, CliError> {
    let only_continuous = [
        ("--token-budget", a.token_budget.is_some()),
        ("--prefix-hit", a.prefix_hit.is_some()),
        ("--draft", a.draft.is_some()),
        ("--proposed", a.proposed.is_some()),
        ("--acceptance", a.acceptance.is_some()),
    ];
    if a.batching == BatchingMode::Static {
        if let Some((flag, _)) = only_continuous.iter().find(|(_, set)| *set) {
            return Err(CliError::Input(format!(
                "{flag} applies to continuous batching only; add --batching continuous"
            )));
        }
        return Ok(None);
    }
    let speculative = match &a.draft {
        None => {
            if a.proposed.is_some() || a.acceptance.is_some() {
                return Err(CliError::Input(
                    "--proposed and --acceptance describe speculative decoding; add --draft MODEL"
                        .into(),
                ));
            }
            None
        }
        Some(d) => {
            let proposed = a.proposed.unwrap_or(DEFAULT_PROPOSED as u64);
            if proposed > 64 {
                return Err(CliError::Input(format!(
                    "--proposed {proposed}: a draft proposes 1 to 64 tokens a step"
                )));
            }
            let draft = cat
                .model(d)
                .map_err(|e| CliError::Input(format!("--draft {e}")))?;
            Some(Speculative {
                draft: draft.model.clone(),
                proposed: proposed as u32,
                acceptance: a.acceptance.unwrap_or(DEFAULT_ACCEPTANCE),
            })
        }
    };
    Ok(Some(Batching {
        token_budget: a.token_budget.map_or(DEFAULT_TOKEN_BUDGET, |b| b as f64),
        prefix_hit: a.prefix_hit.unwrap_or(0.0),
        speculative,
    }))
}

/// Put the figures of continuous batching over the static ones of `r`
/// (the same keys, so a script reads `ttft_s` whichever model is in use),
/// with the error bands of the static figures carried over as the same
/// share, and the keys only continuous batching has.
pub fn put_continuous(r: &mut Map<String, Value>, s: &Serving, c: &Continuous, b: &Batching) {
    let mut put = |k: &str, v: Value| {
        r.insert(k.to_string(), v);
    };
    put("batching", json!("continuous"));
    put("ttft_s", json!(c.ttft_s));
    put("wait_s", json!(c.wait_s));
    put("prefill_s", json!(c.prefill_s));
    put("itl_s", json!(c.itl_s));
    put("e2e_s", json!(c.e2e_s));
    put("tokens_per_s", json!(c.tokens_per_s));
    put("tokens_per_s_per_user", json!(1.0 / c.itl_s));
    put("requests_per_s", json!(c.requests_per_s));
    put("prefill_tokens_per_step", json!(c.prefill_per_step));
    put("prefill_room_tokens", json!(c.prefill_room));
    put("prefill_room_utilization", json!(c.utilization));
    put("prefill_steps", json!(c.prefill_steps));
    put("tokens_per_target_step", json!(c.tokens_per_step));
    put("token_budget", json!(b.token_budget));
    put("prefix_hit", json!(b.prefix_hit));
    put(
        "speculative",
        json!(b.speculative.as_ref().map(|sp| json!({
            "draft": sp.draft.id,
            "proposed": sp.proposed,
            "acceptance": sp.acceptance,
        }))),
    );
    put("footprint_bytes", json!(c.footprint_bytes));
    put("fits", json!(c.fits));
    // The calibration band is a share of the figure: the same share here.
    let share = |x: f64, (lo, hi): (f64, f64), of: f64| (x * lo / of, x * hi / of);
    let ttft = share(c.ttft_s, s.ttft_range(), s.ttft_s);
    let itl = share(c.itl_s, s.itl_range(), s.itl_s);
    let steps = (s.request.output - 1.0).max(0.0);
    let batch = s.decode.batch;
    for (key, (lo, hi)) in [
        ("ttft_s", ttft),
        ("itl_s", itl),
        ("e2e_s", (ttft.0 + steps * itl.0, ttft.1 + steps * itl.1)),
        ("tokens_per_s", (batch / itl.1, batch / itl.0)),
    ] {
        put(&format!("{key}_low"), json!(lo));
        put(&format!("{key}_high"), json!(hi));
    }
}

/// The lines the text output adds under continuous batching: which model,
/// and the figures a static replica has not.
pub fn text_head(c: &Continuous, b: &Batching) -> String {
    let mut h = format!(
        "continuous batching: {} tokens a step, {} of prompt tokens cached; ",
        crate::solver::units::format_count(b.token_budget),
        pct(b.prefix_hit)
    );
    match &b.speculative {
        Some(sp) => h.push_str(&format!(
            "speculative decoding with {} proposing {} tokens at {} acceptance: {:.2} tokens a target step\n",
            sp.draft.id,
            sp.proposed,
            pct(sp.acceptance),
            c.tokens_per_step
        )),
        None => h.push_str("no speculative decoding\n"),
    }
    h.push_str(&format!(
        "each step prefills {:.0} prompt tokens of the {:.0} of room beside the decodes ({} in use); a prompt takes {:.0} step(s); TTFT = {} waiting for room (M/D/1) + {} prefill\n",
        c.prefill_per_step,
        c.prefill_room,
        pct(c.utilization),
        c.prefill_steps,
        crate::solver::units::format_time(c.wait_s),
        crate::solver::units::format_time(c.prefill_s),
    ));
    h
}

/// The rows continuous batching adds under the time to first token.
pub const TTFT_PARTS: &[Col] = &[
    col("  waiting for room", "wait_s", Fmt::Time),
    col("  prefill (chunked)", "prefill_s", Fmt::Time),
];

/// Its step's figures, in place of the static memory breakdown.
pub const STEP_COLS: &[Col] = &[
    col("requests/s", "requests_per_s", Fmt::Num),
    col(
        "prefill tokens per step",
        "prefill_tokens_per_step",
        Fmt::Num,
    ),
    col("prefill room in use", "prefill_room_utilization", Fmt::Pct),
    col("tokens per target step", "tokens_per_target_step", Fmt::Num),
    col("memory per device", "footprint_bytes", Fmt::Bytes),
    col("memory: usable", "memory_usable_bytes", Fmt::Bytes),
];

/// The rows of the text output under continuous batching: the static
/// rows `cols` (TTFT and band, then ITL to tokens/s, then `costs` rows of
/// money and carbon at the end) with the continuous ones between.
pub fn continuous_cols(cols: &[Col], costs: usize) -> Vec<Col> {
    let mut v = cols[..2].to_vec();
    v.extend_from_slice(TTFT_PARTS);
    v.extend_from_slice(&cols[2..8]);
    v.extend_from_slice(STEP_COLS);
    v.extend_from_slice(&cols[cols.len() - costs..]);
    v
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}
