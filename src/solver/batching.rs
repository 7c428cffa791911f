//! Serving as servers really batch: continuous batching with chunked
//! prefill, prefix caching, speculative decoding, and prefill and decode
//! on separate pools (disaggregated serving).
//!
//! [`super::serving::serve`] runs a prompt alone at batch 1 and the decode
//! steps without it. A continuous-batching server (vLLM, SGLang,
//! TensorRT-LLM's in-flight batching) instead fills every step up to a
//! token budget: the B running sequences' decode tokens first, then chunks
//! of waiting prompts. In the steady state of B concurrent sequences that
//! each produce O tokens, B / O requests finish per step, so B P / O prompt
//! tokens must be prefilled per step on average: they ride along in every
//! step and lengthen it (the ITL), and a new prompt waits for room in the
//! budget (the TTFT). The queue for that room is taken as M/D/1 (Poisson
//! arrivals, a fixed prefill time): the wait is rho / (2 (1 - rho)) times
//! the prefill's own time, rho the share of the budget's prefill room in
//! use.

use super::cost::{self, Group, StepCost};
use super::error::{Result, SolverError};
use super::roofline::{StepTime, time_cost};
use super::serving::{Request, validate_request};
use super::types::{Arch, Assumptions, Hardware, Model, Phase, Workload};
use super::validation::{
    validate_assumptions, validate_hardware, validate_layout, validate_model, validate_workload,
};

/// Tokens one step of a continuous-batching server may hold, decode and
/// prefill together (vLLM's `max_num_batched_tokens`). vLLM's chunked
/// prefill shipped with 512, tuned for ITL on an A100, and its guide
/// recommends more than 2048 for throughput (docs.vllm.ai v0.4.2,
/// "Performance and Tuning"); 2048 is the named default.
pub const DEFAULT_TOKEN_BUDGET: f64 = 2048.0;

/// Tokens a draft proposes a step when the user names none: 4, the middle
/// of the 3 to 7 that Leviathan, Kalman and Matias find best for their
/// pairs (ICML 2023, Table 3 and Figure 3).
pub const DEFAULT_PROPOSED: u32 = 4;

/// Acceptance rate of a draft's tokens when the user names none: 0.7, inside
/// the 0.5 to 0.9 Leviathan, Kalman and Matias measure for drafts of the
/// same family (ICML 2023, Table 3). It depends on the pair and the text;
/// measure it for yours.
pub const DEFAULT_ACCEPTANCE: f64 = 0.7;

/// How a replica batches and what it saves.
#[derive(Debug, Clone, PartialEq)]
pub struct Batching {
    /// Tokens per step, decode and prefill chunks together.
    pub token_budget: f64,
    /// Share of each prompt's tokens found in the prefix cache (a shared
    /// system prompt, earlier turns): their prefill is skipped, their
    /// cache is read. 0 = no reuse.
    pub prefix_hit: f64,
    /// Speculative decoding, when a draft proposes tokens.
    pub speculative: Option<Speculative>,
}

impl Default for Batching {
    fn default() -> Self {
        Batching {
            token_budget: DEFAULT_TOKEN_BUDGET,
            prefix_hit: 0.0,
            speculative: None,
        }
    }
}

/// A draft model proposes `proposed` tokens a step; each is accepted with
/// probability `acceptance` (independently, as Leviathan, Kalman and
/// Matias, "Fast Inference from Transformers via Speculative Decoding",
/// ICML 2023, model it), and the target verifies them all in one step.
#[derive(Debug, Clone, PartialEq)]
pub struct Speculative {
    pub draft: Model,
    pub proposed: u32,
    pub acceptance: f64,
}

impl Speculative {
    /// Tokens a target step yields on average: (1 - a^(k+1)) / (1 - a),
    /// k + 1 when every proposal is accepted, 1 when none is.
    pub fn tokens_per_step(&self) -> f64 {
        let (a, k) = (self.acceptance, self.proposed as f64);
        if a >= 1.0 {
            k + 1.0
        } else {
            (1.0 - a.powf(k + 1.0)) / (1.0 - a)
        }
    }
}

/// The steady state of one continuous-batching replica.
#[derive(Debug, Clone, PartialEq)]
pub struct Continuous {
    /// Prompt tokens a step prefills on average, B (1 - hit) P / O.
    pub prefill_per_step: f64,
    /// Room a step leaves for prefill: the budget less the decode tokens.
    pub prefill_room: f64,
    /// Share of that room in use.
    pub utilization: f64,
    /// Target step with the average prefill riding along.
    pub step: StepTime,
    /// A step whose room is full of one prompt's chunks.
    pub full_step: StepTime,
    /// Steps to prefill one prompt, and the time they take.
    pub prefill_steps: f64,
    pub prefill_s: f64,
    /// Waiting for room in the budget (M/D/1).
    pub wait_s: f64,
    pub ttft_s: f64,
    /// Time between output tokens: the step, or with speculative decoding
    /// the draft and verification time over the tokens a step yields.
    pub itl_s: f64,
    pub e2e_s: f64,
    /// Output tokens per second of the replica, and requests per second.
    pub tokens_per_s: f64,
    pub requests_per_s: f64,
    /// Tokens a target step yields (1 without speculation).
    pub tokens_per_step: f64,
    /// Per device at full context with B sequences, the draft's weights
    /// and cache included; whether it fits in usable memory.
    pub footprint_bytes: f64,
    pub fits: bool,
}

fn check(b: &Batching, req: &Request) -> Result<()> {
    validate_request(req)?;
    if !(b.token_budget.is_finite() && b.token_budget >= 1.0) {
        return Err(SolverError::Unsupported(format!(
            "a token budget of {} per step: it must be at least 1",
            b.token_budget
        )));
    }
    if !(0.0..1.0).contains(&b.prefix_hit) {
        return Err(SolverError::Unsupported(format!(
            "a prefix-cache hit rate of {}: it must be at least 0 and below 1",
            b.prefix_hit
        )));
    }
    if let Some(s) = &b.speculative {
        if !(0.0..=1.0).contains(&s.acceptance) || s.proposed == 0 || s.proposed > 64 {
            return Err(SolverError::Unsupported(format!(
                "speculative decoding needs 1 to 64 proposed tokens and an acceptance from 0 to 1, got {} and {}",
                s.proposed, s.acceptance
            )));
        }
        validate_model(&s.draft)?;
        if !matches!(s.draft.arch, Arch::Decoder(_)) {
            return Err(SolverError::Unsupported(format!(
                "the draft {} is not a decoder",
                s.draft.id
            )));
        }
    }
    Ok(())
}

/// The steady state of a replica running `wl.batch` sequences under
/// continuous batching: each step holds the decode tokens and on average
/// B (1 - hit) P / O prompt tokens (mean offset: halfway through the part
/// not cached), and a prompt is prefilled in chunks of the room left.
pub fn continuous(
    hw: &Hardware,
    model: &Model,
    wl: &Workload,
    req: &Request,
    b: &Batching,
    a: &Assumptions,
) -> Result<Continuous> {
    validate_hardware(hw)?;
    validate_model(model)?;
    validate_workload(wl)?;
    validate_layout(model, wl)?;
    validate_assumptions(a)?;
    check(b, req)?;
    let Arch::Decoder(_) = &model.arch else {
        return Err(SolverError::Unsupported(format!(
            "{} is a single-pass model: continuous batching is for decoders",
            model.id
        )));
    };
    let batch = wl.batch;
    let (p, o) = (req.prompt, req.output);
    let cached = b.prefix_hit * p;
    let fresh = p - cached;
    let decode_ctx = p + o / 2.0;
    let spec = b.speculative.as_ref();
    // Tokens each sequence adds to a target step: 1, or the proposals and
    // the bonus token under speculation.
    let per_seq = spec.map_or(1.0, |s| s.proposed as f64 + 1.0);
    let tokens_per_step = spec.map_or(1.0, Speculative::tokens_per_step);
    let room = b.token_budget - batch * per_seq;
    if room < 1.0 {
        return Err(SolverError::Unsupported(format!(
            "a budget of {} tokens a step leaves no room for prefill beside {} sequences of {} tokens each; raise the budget or lower the batch",
            b.token_budget, batch, per_seq
        )));
    }
    // Steps a sequence stays: its O tokens at tokens_per_step a step.
    let steps_per_request = (o / tokens_per_step).max(1.0);
    let prefill_per_step = batch * fresh / steps_per_request;
    let utilization = prefill_per_step / room;
    if utilization >= 1.0 {
        return Err(SolverError::Unsupported(format!(
            "{batch} sequences need {prefill_per_step:.0} prompt tokens a step, more than the {room:.0} the budget leaves; raise the budget, lower the batch, or shorten the prompts"
        )));
    }
    let mean_offset = cached + fresh / 2.0;
    let decode = Group {
        sequences: batch,
        new: per_seq,
        cached: decode_ctx,
    };
    let step_wl = Workload {
        phase: Phase::Decode,
        ..*wl
    };
    let mixed = |chunk: f64| -> StepCost {
        cost::mixed_step(
            model,
            &step_wl,
            &[
                decode,
                Group {
                    sequences: 1.0,
                    new: chunk,
                    cached: mean_offset,
                },
            ],
        )
    };
    let step = time_cost(hw, model, &step_wl, mixed(prefill_per_step), a)?;
    let full_step = time_cost(hw, model, &step_wl, mixed(room.min(fresh)), a)?;
    let draft_s = match spec {
        Some(s) => {
            // The draft runs k decode steps of the batch at the same context.
            let dw = Workload {
                phase: Phase::Decode,
                context: decode_ctx,
                ..*wl
            };
            s.proposed as f64 * super::roofline::time_step(hw, &s.draft, &dw, a)?.latency_s
        }
        None => 0.0,
    };
    let prefill_steps = (fresh / room).ceil().max(1.0);
    let prefill_s = prefill_steps * (full_step.latency_s + draft_s) + a.request_s;
    let wait_s = utilization / (2.0 * (1.0 - utilization)) * prefill_s;
    let ttft_s = wait_s + prefill_s;
    let itl_s = (step.latency_s + draft_s) / tokens_per_step;
    let tokens_per_s = batch / itl_s;
    let full = Workload {
        phase: Phase::Decode,
        context: p + o,
        ..*wl
    };
    let footprint_bytes = cost::footprint(model, &full).total()
        + spec.map_or(0.0, |s| cost::footprint(&s.draft, &full).total());
    Ok(Continuous {
        prefill_per_step,
        prefill_room: room,
        utilization,
        step,
        full_step,
        prefill_steps,
        prefill_s,
        wait_s,
        ttft_s,
        itl_s,
        e2e_s: ttft_s + (o - 1.0).max(0.0) * itl_s,
        tokens_per_s,
        requests_per_s: tokens_per_s / o,
        tokens_per_step,
        footprint_bytes,
        fits: footprint_bytes <= hw.memory_bytes * a.usable_memory,
    })
}

/// Time to send a prompt's KV cache of `bytes` from a prefill to a decode
/// replica over a network of `network` byte/s: the bytes at the link
/// efficiency, plus one collective's launch and one hop.
pub fn kv_transfer_s(bytes: f64, network: f64, a: &Assumptions) -> f64 {
    bytes / (network * a.link_efficiency) + a.collective_s + a.link_latency_s
}

/// Prefill and decode on separate pools: prompts on prefill replicas at
/// batch 1 (their own layout), the KV cache sent to a decode replica over
/// the scale-out network, decode steps of B sequences there. Each pool is
/// sized on its own to carry `qps`.
#[derive(Debug, Clone, PartialEq)]
pub struct Disaggregated {
    pub prefill_s: f64,
    /// KV cache of one prompt sent from the prefill to the decode pool.
    pub transfer_bytes: f64,
    pub transfer_s: f64,
    pub ttft_s: f64,
    pub itl_s: f64,
    /// Requests per second one replica of each pool carries.
    pub prefill_capacity: f64,
    pub decode_capacity: f64,
    /// Replicas each pool needs for `qps` (fractional, before rounding up),
    /// and the devices of each.
    pub prefill_replicas: f64,
    pub decode_replicas: f64,
    pub prefill_devices: u32,
    pub decode_devices: u32,
}

impl Disaggregated {
    /// Prefill devices per decode device, the pools rounded up to whole
    /// replicas.
    pub fn ratio(&self) -> f64 {
        (self.prefill_replicas.ceil() * self.prefill_devices as f64)
            / (self.decode_replicas.ceil() * self.decode_devices as f64)
    }
}

/// Size the two pools of a disaggregated deployment for `qps`: `prefill`
/// and `decode` give each pool's device, layout and precisions
/// (`decode.batch` its concurrency). The prompt's KV cache crosses the
/// prefill device's scale-out network at the link efficiency, unless
/// `transfer` is false (the pools merged on one device: no transfer).
#[allow(clippy::too_many_arguments)]
pub fn disaggregated(
    prefill_hw: &Hardware,
    prefill: &Workload,
    decode_hw: &Hardware,
    decode: &Workload,
    model: &Model,
    req: &Request,
    qps: f64,
    transfer: bool,
    a: &Assumptions,
) -> Result<Disaggregated> {
    validate_request(req)?;
    if !(qps.is_finite() && qps > 0.0) {
        return Err(SolverError::Unsupported(format!(
            "a request rate of {qps}: it must be greater than zero"
        )));
    }
    let Arch::Decoder(d) = &model.arch else {
        return Err(SolverError::Unsupported(format!(
            "{} is a single-pass model: disaggregated serving is for decoders",
            model.id
        )));
    };
    let pw = Workload {
        phase: Phase::Prefill,
        batch: 1.0,
        context: req.prompt,
        ..*prefill
    };
    let dw = Workload {
        phase: Phase::Decode,
        context: req.prompt + req.output / 2.0,
        ..*decode
    };
    let p = super::roofline::evaluate(prefill_hw, model, &pw, a)?;
    let dstep = super::roofline::evaluate(decode_hw, model, &dw, a)?;
    let transfer_bytes = d.kv_cache_bytes(req.prompt, prefill.kv.bytes());
    let transfer_s = if transfer {
        let link = prefill_hw.scaleout_bandwidth.ok_or_else(|| {
            SolverError::Unsupported(format!(
                "{} has no scale-out network in the catalog, so the KV cache cannot be sent to a decode pool",
                prefill_hw.id
            ))
        })?;
        kv_transfer_s(transfer_bytes, link, a)
    } else {
        0.0
    };
    // Device-time per request: the prefill, and the O - 1 later tokens'
    // share of the decode steps (the first comes from the prefill).
    let prefill_capacity = 1.0 / p.latency_s;
    let decode_capacity = dw.batch / ((req.output - 1.0).max(1.0) * dstep.latency_s);
    Ok(Disaggregated {
        prefill_s: p.latency_s,
        transfer_bytes,
        transfer_s,
        ttft_s: p.latency_s + transfer_s,
        itl_s: dstep.latency_s,
        prefill_capacity,
        decode_capacity,
        prefill_replicas: qps / prefill_capacity,
        decode_replicas: qps / decode_capacity,
        prefill_devices: pw.tp * pw.pp,
        decode_devices: dw.tp * dw.pp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::serving::{replica_capacity, serve};
    use crate::solver::tests::{a100, llama8, llama70, rel};
    use proptest::prelude::*;

    fn req() -> Request {
        Request {
            prompt: 2048.0,
            output: 256.0,
        }
    }

    #[test]
    fn accepted_tokens_follow_the_geometric_series() {
        // k = 4, a = 0.8: (1 - 0.8^5) / 0.2 = (1 - 0.32768) / 0.2 = 3.3616.
        let s = Speculative {
            draft: llama8(),
            proposed: 4,
            acceptance: 0.8,
        };
        assert!(rel(s.tokens_per_step(), 3.3616) < 1e-12);
        let none = Speculative {
            acceptance: 0.0,
            ..s.clone()
        };
        assert_eq!(none.tokens_per_step(), 1.0);
        let all = Speculative {
            acceptance: 1.0,
            ..s
        };
        assert_eq!(all.tokens_per_step(), 5.0);
    }

    #[test]
    fn prefill_chunks_ride_along_and_lengthen_the_step() {
        // 32 sequences of 2048 + 256: 32 x 2048 / 256 = 256 prompt tokens a
        // step, of the 2048 - 32 = 2016 of room: 12.7% in use.
        let wl = Workload {
            batch: 32.0,
            ..Workload::default()
        };
        let a = Assumptions::default();
        let c = continuous(&a100(), &llama8(), &wl, &req(), &Batching::default(), &a).unwrap();
        assert_eq!(c.prefill_per_step, 256.0);
        assert_eq!(c.prefill_room, 2016.0);
        assert!(rel(c.utilization, 256.0 / 2016.0) < 1e-12);
        // A prompt of 2048 needs ceil(2048 / 2016) = 2 steps.
        assert_eq!(c.prefill_steps, 2.0);
        // The step is longer than the plain decode step it contains.
        let plain = serve(&a100(), &llama8(), &wl, &req(), &a).unwrap();
        assert!(c.itl_s > plain.itl_s);
        // TTFT = wait + prefill: the wait is rho / (2 (1 - rho)) of it.
        let rho = c.utilization;
        assert!(rel(c.wait_s, rho / (2.0 * (1.0 - rho)) * c.prefill_s) < 1e-12);
        assert!(rel(c.ttft_s, c.wait_s + c.prefill_s) < 1e-12);
        assert!(rel(c.requests_per_s, 32.0 / c.itl_s / 256.0) < 1e-12);
        // 16 GB of weights and 32 x 2304 tokens x 128 KiB = 9.7 GB of cache
        // hold in 72 GB.
        assert!(c.fits);
        assert_eq!(c.footprint_bytes, plain.footprint.total());
    }

    #[test]
    fn a_prefix_cache_removes_prefill_work() {
        let wl = Workload {
            batch: 32.0,
            ..Workload::default()
        };
        let a = Assumptions::default();
        let cold = continuous(&a100(), &llama8(), &wl, &req(), &Batching::default(), &a).unwrap();
        let warm = Batching {
            prefix_hit: 0.75,
            ..Batching::default()
        };
        let hot = continuous(&a100(), &llama8(), &wl, &req(), &warm, &a).unwrap();
        // A quarter of the prompt left: 64 tokens a step, one step each.
        assert_eq!(hot.prefill_per_step, 64.0);
        assert_eq!(hot.prefill_steps, 1.0);
        assert!(hot.ttft_s < cold.ttft_s && hot.itl_s < cold.itl_s);
    }

    #[test]
    fn a_zero_or_nan_batch_is_refused_not_served() {
        for batch in [0.0, f64::NAN, -4.0] {
            let wl = Workload {
                batch,
                ..Workload::default()
            };
            let r = continuous(
                &a100(),
                &llama8(),
                &wl,
                &req(),
                &Batching::default(),
                &Assumptions::default(),
            );
            assert!(r.is_err(), "batch {batch}");
        }
    }

    #[test]
    fn a_budget_without_room_is_refused_with_the_fix() {
        let wl = Workload {
            batch: 4096.0,
            ..Workload::default()
        };
        let e = continuous(
            &a100(),
            &llama8(),
            &wl,
            &req(),
            &Batching::default(),
            &Assumptions::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("raise the budget"), "{e}");
    }

    proptest! {
        #[test]
        fn speculation_with_nothing_accepted_is_never_faster(
            batch in 1u32..64,
            k in 1u32..8,
            prompt in 16u32..4096,
        ) {
            let wl = Workload { batch: batch as f64, ..Workload::default() };
            let r = Request { prompt: prompt as f64, output: 128.0 };
            let a = Assumptions::default();
            let big = Batching { token_budget: 65536.0, ..Batching::default() };
            let plain = continuous(&a100(), &llama70(), &wl, &r, &big, &a);
            let spec = Batching {
                speculative: Some(Speculative { draft: llama8(), proposed: k, acceptance: 0.0 }),
                ..big.clone()
            };
            let s = continuous(&a100(), &llama70(), &wl, &r, &spec, &a);
            if let (Ok(p), Ok(s)) = (plain, s) {
                prop_assert!(s.itl_s >= p.itl_s, "{} < {}", s.itl_s, p.itl_s);
            }
        }

        #[test]
        fn merged_pools_without_transfer_cost_what_an_aggregated_replica_does(
            batch in 1u32..128,
            prompt in 16u32..8192,
            output in 2u32..2048,
            qps in 0.1f64..1000.0,
        ) {
            // The same device and layout for both pools, no transfer: the
            // device-time per request is the prefill plus (O - 1) ITL / B,
            // what an aggregated replica spends, so the pools' replicas add
            // up to the aggregated replicas for the same rate.
            let wl = Workload { batch: batch as f64, tp: 2, ..Workload::default() };
            let r = Request { prompt: prompt as f64, output: output as f64 };
            let a = Assumptions::default();
            let d = disaggregated(&a100(), &wl, &a100(), &wl, &llama8(), &r, qps, false, &a)
                .unwrap();
            let s = serve(&a100(), &llama8(), &wl, &r, &a).unwrap();
            let aggregated = qps / replica_capacity(s.ttft_s, s.itl_s, wl.batch, r.output);
            prop_assert!(rel(d.prefill_replicas + d.decode_replicas, aggregated) < 1e-9);
            prop_assert_eq!(d.ttft_s, s.ttft_s);
            prop_assert_eq!(d.itl_s, s.itl_s);
        }
    }

    #[test]
    fn the_kv_cache_crosses_the_network_to_the_decode_pool() {
        // Llama-3.1-8B bf16: 32 layers x 2 x 8 x 128 x 2 B = 131,072 B a
        // token; 2048 tokens = 268,435,456 B over the A100's 25 GB/s NIC at
        // 0.8 = 13.42 ms, plus the 1 us hop.
        let wl = Workload {
            batch: 64.0,
            ..Workload::default()
        };
        let a = Assumptions::default();
        let d = disaggregated(
            &a100(),
            &wl,
            &a100(),
            &wl,
            &llama8(),
            &req(),
            10.0,
            true,
            &a,
        )
        .unwrap();
        assert_eq!(d.transfer_bytes, 268_435_456.0);
        assert!(rel(d.transfer_s, 268_435_456.0 / 20e9 + 1e-6) < 1e-12);
        assert!(rel(d.ttft_s, d.prefill_s + d.transfer_s) < 1e-12);
        // 10 qps over each pool's capacity; the ratio of devices rounds up.
        assert!(rel(d.prefill_replicas, 10.0 * d.prefill_s) < 1e-12);
        let expect = d.prefill_replicas.ceil() / d.decode_replicas.ceil();
        assert!(rel(d.ratio(), expect) < 1e-12);
    }
}
