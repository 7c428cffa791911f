//! Serving figures for one replica: time to first token, inter-token
//! latency, end-to-end request latency, KV cache, concurrency and memory.
//!
//! A request has a prompt of P tokens and produces O tokens. The first token
//! comes out of the prefill of its prompt (run alone, batch 1: no chunked
//! prefill); the other O - 1 come from decode steps shared with B - 1 other
//! sequences, at the mean context of the generation, P + O / 2.
//! e2e = TTFT + (O - 1) * ITL.

use super::cost::{self, Footprint};
use super::error::{self, Result, SolverError};
use super::fit;
use super::roofline::{self, Evaluation, Parallelism};
use super::types::{Arch, Assumptions, Hardware, Model, Phase, Workload};

/// Prompt and output lengths, tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    pub prompt: f64,
    pub output: f64,
}

impl Default for Request {
    /// A chat turn: 2k prompt tokens, 256 output tokens.
    fn default() -> Self {
        Request {
            prompt: 2048.0,
            output: 256.0,
        }
    }
}

/// What one replica serving B concurrent sequences looks like.
#[derive(Debug, Clone, PartialEq)]
pub struct Serving {
    pub request: Request,
    /// Prefill of one prompt (batch 1, context P).
    pub prefill: Evaluation,
    /// A decode step of B sequences at context P + O / 2.
    pub decode: Evaluation,
    /// Time to first token of one prompt prefilled alone (a server that
    /// admits each request as it comes: continuous batching).
    pub ttft_s: f64,
    /// Time to first token when the B prompts of a static batch are
    /// prefilled together in one step: every request of the batch waits
    /// for all of them.
    pub ttft_batch_s: f64,
    pub itl_s: f64,
    /// ttft_s + (O - 1) x itl_s.
    pub e2e_s: f64,
    /// ttft_batch_s + (O - 1) x itl_s.
    pub e2e_batch_s: f64,
    /// KV cache of one token over the whole model (all devices).
    pub kv_bytes_per_token: f64,
    /// KV cache of one full sequence, P + O tokens.
    pub kv_bytes_per_sequence: f64,
    /// Most sequences that fit at full context P + O with this layout.
    pub max_concurrent: u64,
    /// Per device at full context with B sequences.
    pub footprint: Footprint,
    pub usable_bytes: f64,
    pub capacity_bytes: f64,
    pub fits: bool,
    /// 1 / ITL.
    pub tokens_per_s_per_user: f64,
    /// B / ITL: output tokens per second of the replica.
    pub tokens_per_s: f64,
}

impl Serving {
    /// Usable memory left over at full context (negative: it does not fit).
    pub fn free_bytes(&self) -> f64 {
        self.usable_bytes - self.footprint.total()
    }

    /// The time to first token's error band, (low, high) seconds.
    pub fn ttft_range(&self) -> (f64, f64) {
        self.prefill.latency_range()
    }

    /// The inter-token latency's error band, (low, high) seconds.
    pub fn itl_range(&self) -> (f64, f64) {
        self.decode.latency_range()
    }

    /// The end-to-end latency's band: the fast ends of TTFT and ITL
    /// together, and the slow ends together.
    pub fn e2e_range(&self) -> (f64, f64) {
        let steps = (self.request.output - 1.0).max(0.0);
        let ((t0, t1), (i0, i1)) = (self.ttft_range(), self.itl_range());
        (t0 + steps * i0, t1 + steps * i1)
    }

    /// The replica's output tokens/s band (a slower step is the low end).
    pub fn tokens_per_s_range(&self) -> (f64, f64) {
        let (lo, hi) = self.itl_range();
        (
            self.tokens_per_s * self.itl_s / hi,
            self.tokens_per_s * self.itl_s / lo,
        )
    }
}

/// Check a request's lengths.
pub fn validate_request(r: &Request) -> Result<()> {
    error::bounded(
        "prompt length",
        r.prompt,
        roofline::MAX_CONTEXT,
        "between 1 and 1e9 tokens",
    )?;
    error::bounded(
        "output length",
        r.output,
        roofline::MAX_CONTEXT,
        "between 1 and 1e9 tokens",
    )?;
    Ok(())
}

/// Serving figures for `wl` (its batch = concurrent sequences, its layout
/// and precisions; its phase and context are replaced by the request's).
pub fn serve(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    req: &Request,
    a: &Assumptions,
) -> Result<Serving> {
    validate_request(req)?;
    let Arch::Decoder(d) = &model.arch else {
        return Err(SolverError::Unsupported(format!(
            "{} is a single-pass model: serving figures (TTFT, inter-token latency) are for decoders",
            model.id
        )));
    };
    let prefill_wl = Workload {
        phase: Phase::Prefill,
        batch: 1.0,
        context: req.prompt,
        ..*wl
    };
    let decode_wl = Workload {
        phase: Phase::Decode,
        context: req.prompt + req.output / 2.0,
        ..*wl
    };
    let full = Workload {
        phase: Phase::Decode,
        context: req.prompt + req.output,
        ..*wl
    };
    let prefill = roofline::evaluate(hw, model, &prefill_wl, a)?;
    let ttft_batch_s = if wl.batch > 1.0 {
        let batch = Workload {
            batch: wl.batch,
            ..prefill_wl
        };
        roofline::evaluate(hw, model, &batch, a)?.latency_s
    } else {
        prefill.latency_s
    };
    let decode = roofline::evaluate(hw, model, &decode_wl, a)?;
    let footprint = cost::footprint(model, &full);
    let usable_bytes = hw.memory_bytes * a.usable_memory;
    let kv_tok = d.kv_bytes_per_token(wl.kv.bytes());
    let ttft_s = prefill.latency_s;
    let itl_s = decode.latency_s;
    Ok(Serving {
        request: *req,
        ttft_s,
        ttft_batch_s,
        itl_s,
        e2e_s: ttft_s + (req.output - 1.0).max(0.0) * itl_s,
        e2e_batch_s: ttft_batch_s + (req.output - 1.0).max(0.0) * itl_s,
        kv_bytes_per_token: kv_tok,
        kv_bytes_per_sequence: d.kv_cache_bytes(req.prompt + req.output, wl.kv.bytes()),
        max_concurrent: fit::max_batch(hw, model, &full, a),
        fits: footprint.total() <= usable_bytes,
        footprint,
        usable_bytes,
        capacity_bytes: hw.memory_bytes,
        tokens_per_s_per_user: 1.0 / itl_s,
        tokens_per_s: wl.batch / itl_s,
        prefill,
        decode,
    })
}

/// Requests per second one replica completes when prefill and decode share
/// it: each request costs its prefill time plus its share of the decode
/// steps, (O - 1) * ITL / B. Little's law; queueing delay is not modelled.
pub fn replica_capacity(ttft_s: f64, itl_s: f64, batch: f64, output: f64) -> f64 {
    1.0 / (ttft_s + (output - 1.0).max(0.0) * itl_s / batch)
}

/// The fewest devices that hold `wl`'s batch of sequences at full context
/// (prompt + output) when `wl`'s own layout does not, with the serving
/// figures there: what a replica that runs looks like. None when nothing
/// holds it (see `fit::min_devices`).
pub fn at_fewest_devices(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    req: &Request,
    a: &Assumptions,
) -> Result<Option<(Parallelism, Serving)>> {
    let full = Workload {
        phase: Phase::Decode,
        context: req.prompt + req.output,
        ..*wl
    };
    let Some(p) = fit::min_devices(hw, model, &full, a) else {
        return Ok(None);
    };
    let s = serve(
        hw,
        model,
        &Workload {
            tp: p.tp,
            pp: p.pp,
            ..*wl
        },
        req,
        a,
    )?;
    Ok(s.fits.then_some((p, s)))
}
