//! The breakdown: hand-derived operators (derivation beside each), the
//! picture it exists for (batch 1 decode all on the memory slope; a
//! batch-256 prefill's MLP under the compute roof, its attention not), and
//! the reconciliation with the aggregate step as properties.

use super::*;
use crate::solver::cost::step_cost;
use crate::solver::refined_tests::deepseek_v3;
use crate::solver::roofline::time_step;
use crate::solver::tests::{a100, decoder, h100_80 as h100, llama8, mixtral, rel, resnet};
use crate::solver::types::*;
use proptest::prelude::*;

/// Gemma 2 9B config.json: 42 layers, d 3584, 16 heads / 8 KV heads of
/// 256, ffn 14336, V 256000 tied, sliding window 4096 on every other layer;
/// 9.24B parameters (model card).
fn gemma2_9b() -> Model {
    let mut d = decoder(42, 3584, 16, 8, 14336, 256000);
    d.head_dim = 256;
    d.tied_embeddings = true;
    d.window = Some(Window {
        tokens: 4096,
        layers: 21,
    });
    Model {
        id: "gemma-2-9b".into(),
        name: "Gemma 2 9B".into(),
        kind: ModelKind::DenseDecoder,
        params: 9.24e9,
        arch: Arch::Decoder(d),
        layers: Vec::new(),
    }
}

/// GPT-2 config.json: 12 layers, d 768, 12 heads of 64, plain GELU MLP of
/// 3072, V 50257 tied; 124,439,808 parameters (the checkpoint).
fn gpt2() -> Model {
    let mut d = decoder(12, 768, 12, 12, 3072, 50257);
    d.head_dim = 64;
    d.tied_embeddings = true;
    d.gated_mlp = false;
    Model {
        id: "gpt-2".into(),
        name: "GPT-2".into(),
        kind: ModelKind::DenseDecoder,
        params: 124_439_808.0,
        arch: Arch::Decoder(d),
        layers: Vec::new(),
    }
}

/// A two-layer network with its list: a convolution and a residual add.
fn listed_cnn() -> Model {
    let layer = |name: &str, op: &str, flops: f64, params: f64, inputs: f64, outputs: f64| Layer {
        name: name.into(),
        op: op.into(),
        flops,
        params,
        inputs,
        outputs,
    };
    Model {
        id: "tiny-cnn".into(),
        name: "tiny".into(),
        kind: ModelKind::Cnn,
        params: 1000.0,
        arch: Arch::SinglePass(SinglePass {
            flops_per_sample: 2.0e6,
            activation_elements_per_sample: 3.0e4,
        }),
        layers: vec![
            layer("conv1", "conv", 1.8e6, 900.0, 1.0e4, 1.0e4),
            layer("add", "add", 1.0e4, 0.0, 2.0e4, 1.0e4),
        ],
    }
}

fn find(b: &Breakdown, kind: OpKind) -> &Op {
    b.ops
        .iter()
        .find(|o| o.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} in {:?}", b.ops))
}

fn ai(op: &Op) -> f64 {
    op.arithmetic_intensity().unwrap()
}

#[test]
fn batch_one_decode_puts_every_operator_on_the_memory_slope() {
    // Llama 3.1 8B, decode, B = 1, S = 4096, bf16, on an H100 at the plain
    // roofline's 70%/70%: the effective ridge is 989e12 / 3.35e12 = 295
    // FLOP/B. Each token multiplies each weight once (2 FLOPs) and reads
    // it once (2 bytes): the matrices sit at 1 FLOP/B. QKV: 32 layers *
    // 4096 * (32 + 2 * 8) * 128 = 805,306,368 params: 1,610,612,736 FLOPs
    // over 1,610,612,736 weight bytes + its quarter of the attention side's
    // 8 d activations, 32 * 2 * 4096 * 2 = 524,288 B: 0.99967 FLOP/B.
    // Attention reads the cache: 4 L h d_h S = 4 * 32 * 32 * 128 * 4096 =
    // 2,147,483,648 FLOPs over 2 * 32 * 8 * 128 * 2 * 4096 = 536,870,912 KV
    // bytes + 524,288 activation bytes: 3.9961 FLOP/B (h / h_kv = 4 query
    // heads per cached head, less the activations).
    let b = breakdown(
        &h100(),
        &llama8(),
        &Workload::default(),
        &Assumptions::default(),
    )
    .unwrap();
    let qkv = find(&b, OpKind::Qkv);
    assert_eq!(qkv.flops, 1_610_612_736.0);
    assert_eq!(qkv.bytes(), 1_611_137_024.0);
    let att = find(&b, OpKind::Attention);
    assert!(rel(att.flops, 2_147_483_648.0) < 1e-12);
    assert!(rel(att.bytes(), 537_395_200.0) < 1e-12);
    assert!(rel(ai(att), 2_147_483_648.0 / 537_395_200.0) < 1e-12);
    for op in b.ops.iter().filter(|o| o.flops > 0.0) {
        assert_eq!(op.bound, Bound::Memory, "{op:?}");
        assert!(ai(op) < 4.0, "{op:?}");
        // On the slope: its FLOP/s is its intensity times the effective bandwidth.
        let slope = ai(op) * 3.35e12 * 0.7;
        assert!(rel(op.achieved_flops(), slope) < 1e-9, "{op:?}");
    }
}

#[test]
fn batch_256_prefill_puts_the_mlp_under_the_compute_roof_and_not_attention() {
    // Llama 3.1 8B, prefill of B = 256 prompts of S = 256 (65,536 tokens),
    // bf16, H100 at 70%/70%: effective ridge 295 FLOP/B.
    // MLP gate+up: 32 * 2 * 4096 * 14336 = 3,758,096,384 params, 2 FLOPs
    // each per token: 492,581,209,243,648 FLOPs; bytes: the weights once
    // (7,516,192,768) plus its half of the MLP's 2 ffn activations per
    // token and layer, 65,536 * 32 * 14336 * 2 B = 60,129,542,144: 7,281.8
    // FLOP/B, far right of the ridge. Attention: per token and layer
    // 2 h d_h S = 2 * 32 * 128 * 256 = 2,097,152 FLOPs (causal: S/2 pairs of
    // 4 d_h FLOPs per head) over its KV write 2 * 8 * 128 * 2 = 4,096 B and
    // q in / o out 2 * 4096 * 2 = 16,384 B: 102.4 FLOP/B (0.4 S), left of
    // it. (Attention's intensity grows with the prompt: past S = 738 it is
    // compute-bound on this roof too.)
    let wl = Workload {
        phase: Phase::Prefill,
        batch: 256.0,
        context: 256.0,
        ..Workload::default()
    };
    let b = breakdown(&h100(), &llama8(), &wl, &Assumptions::default()).unwrap();
    assert!(rel(b.effective_ridge_point(), 989e12 / 3.35e12) < 1e-12);
    let up = find(&b, OpKind::GateUp);
    assert_eq!(up.flops, 492_581_209_243_648.0);
    let want = 492_581_209_243_648.0 / (7_516_192_768.0 + 60_129_542_144.0);
    assert!(rel(ai(up), want) < 1e-12, "{} vs {want}", ai(up));
    assert_eq!(up.bound, Bound::Compute);
    assert_eq!(find(&b, OpKind::Down).bound, Bound::Compute);
    let att = find(&b, OpKind::Attention);
    assert!(rel(ai(att), 102.4) < 1e-12, "{}", ai(att));
    assert_eq!(att.bound, Bound::Memory);
    // At S = 1024 its 409.6 FLOP/B are past the ridge: compute-bound too.
    let long = Workload {
        context: 1024.0,
        ..wl
    };
    let b = breakdown(&h100(), &llama8(), &long, &Assumptions::default()).unwrap();
    assert!(rel(ai(find(&b, OpKind::Attention)), 409.6) < 1e-12);
    assert_eq!(find(&b, OpKind::Attention).bound, Bound::Compute);
}

#[test]
fn deepseek_groups_its_dense_and_moe_layers_and_counts_each_matrix() {
    // Decode, B = 1, bf16. The MoE layers are 3-60 (58 of them): the router
    // 58 * 7168 * 256 = 106,430,464 params; the shared expert 58 * 3 *
    // 7168 * 2048 = 2,554,331,136 params (2 FLOPs and 2 bytes each). One
    // token touches its 8 routed experts: 8 * x with x = (671e9 - 37e9) /
    // (256 - 8) = 2,556,451,612.9 params per expert over the 58 layers.
    let b = breakdown(
        &h100(),
        &deepseek_v3(),
        &Workload::default(),
        &Assumptions::default(),
    )
    .unwrap();
    let kinds: Vec<(OpKind, String)> = b
        .ops
        .iter()
        .map(|o| (o.kind, o.layers.to_string()))
        .collect();
    let want = [
        (OpKind::Norms, "0-60"),
        (OpKind::QDown, "0-60"),
        (OpKind::QUp, "0-60"),
        (OpKind::KvDown, "0-60"),
        (OpKind::KvUp, "0-60"),
        (OpKind::Attention, "0-60"),
        (OpKind::OutProj, "0-60"),
        (OpKind::GateUp, "0-2"),
        (OpKind::Down, "0-2"),
        (OpKind::Router, "3-60"),
        (OpKind::SharedExperts, "3-60"),
        (OpKind::RoutedExperts, "3-60"),
        (OpKind::LmHead, "step"),
        (OpKind::OtherWeights, "all"),
    ];
    let want: Vec<(OpKind, String)> = want.iter().map(|(k, l)| (*k, l.to_string())).collect();
    assert_eq!(kinds, want);
    assert_eq!(find(&b, OpKind::Router).weight_bytes, 2.0 * 106_430_464.0);
    assert_eq!(find(&b, OpKind::SharedExperts).flops, 2.0 * 2_554_331_136.0);
    let x = (671e9 - 37e9) / 248.0;
    let routed = find(&b, OpKind::RoutedExperts);
    assert!(rel(routed.weight_bytes, 2.0 * 8.0 * x) < 1e-12);
    assert!(rel(routed.flops, 2.0 * 8.0 * x) < 1e-12);
    // Other weights: the dense part 671e9 - 256 x = 16,548,387,096.8 less
    // the gathered embedding 129280 * 7168 = 926,679,040 leaves
    // 15,621,708,056.8 streamed; the shape's dense matrices and norms
    // (attention 61 * 187,105,280, norms 61 * 16,384 + 7168, dense MLP 3 *
    // 3 * 7168 * 18432, router, shared expert, LM head 926,679,040) hold
    // 16,190,954,496: the published 37B active (rounded) leaves -569.2M.
    let other = find(&b, OpKind::OtherWeights);
    assert!(
        rel(other.weight_bytes, 2.0 * -569_246_439.2) < 1e-9,
        "{other:?}"
    );
    assert!(other.time_s < 0.0 && other.share < 0.0);
}

#[test]
fn gpt2s_other_weights_are_its_position_table_and_biases() {
    // 124,439,808 published - the shape's 123,551,232 (norm weights 12 * 2
    // * 768 + 768 = 19,200; QKV 12 * 768 * 36 * 64 = 21,233,664; out 12 *
    // 768^2 = 7,077,888; up and down 2 * 12 * 768 * 3072 = 56,623,104; the
    // tied head 50257 * 768 = 38,597,376) = 888,576: the position table
    // 1024 * 768 = 786,432, the biases 12 * (2304 + 768 + 3072 + 768) =
    // 82,944 and the norm biases 19,200.
    let b = breakdown(
        &h100(),
        &gpt2(),
        &Workload::default(),
        &Assumptions::default(),
    )
    .unwrap();
    assert_eq!(find(&b, OpKind::OtherWeights).weight_bytes, 2.0 * 888_576.0);
    assert_eq!(find(&b, OpKind::Up).flops, 2.0 * 12.0 * 768.0 * 3072.0);
    assert!(b.ops.iter().all(|o| o.kind != OpKind::GateUp));
}

#[test]
fn sliding_window_layers_attend_to_their_window() {
    // Gemma 2 9B decoding at S = 8192: the 21 local layers attend to and
    // read 4096 positions, the 21 global ones 8192: a third of the
    // attention FLOPs and KV bytes are the local layers'. At S = 2048 both
    // read the whole context: half each.
    let at = |context: f64| {
        let wl = Workload {
            context,
            ..Workload::default()
        };
        let b = breakdown(&h100(), &gemma2_9b(), &wl, &Assumptions::default()).unwrap();
        let att: Vec<Op> = b
            .ops
            .iter()
            .filter(|o| o.kind == OpKind::Attention)
            .copied()
            .collect();
        assert_eq!(att[0].layers.to_string(), "21 local");
        assert_eq!(att[1].layers.to_string(), "21 global");
        (att[0], att[1])
    };
    let (local, global) = at(8192.0);
    // 2 h (d_qk + d_v) B * positions: 2 * 16 * 512 * 21 * 4096 =
    // 1,409,286,144 FLOPs local, twice that global; KV 2 * 8 * 256 * 2 B a
    // position and layer: 8,192 * 21 * 4096 = 704,643,072 B local.
    assert!(rel(local.flops, 1_409_286_144.0) < 1e-12);
    assert!(rel(global.flops, 2_818_572_288.0) < 1e-12);
    assert!(rel(local.kv_bytes, 704_643_072.0) < 1e-12);
    assert!(rel(local.kv_bytes / global.kv_bytes, 0.5) < 1e-12);
    // A prefill of 8192: a local layer's pairs 4096 * 8192 - 4096^2 / 2 =
    // 25,165,824, a global one's 8192^2 / 2 = 33,554,432.
    let wl = Workload {
        phase: Phase::Prefill,
        context: 8192.0,
        ..Workload::default()
    };
    let b = breakdown(&h100(), &gemma2_9b(), &wl, &Assumptions::default()).unwrap();
    let att: Vec<&Op> = b
        .ops
        .iter()
        .filter(|o| o.kind == OpKind::Attention)
        .collect();
    assert!(rel(att[0].flops / att[1].flops, 25_165_824.0 / 33_554_432.0) < 1e-12);
    let (local, global) = at(2048.0);
    assert!(rel(local.flops, global.flops) < 1e-12);
}

#[test]
fn tensor_parallel_all_reduces_are_their_own_operators() {
    // Llama 3.1 70B on 8 A100s, decode, B = 1, ring, 80% link, 1 us hops:
    // each of 2 * 80 all-reduces carries M = 1 * 8192 * 2 = 16,384 B;
    // each link 2 * 7/8 * M = 28,672 B at 240 GB/s = 119.47 ns, plus 14
    // hops of 1 us. After attention: 80 of them, 80 * 14.119 us = 1.1296 ms;
    // the same after the MLP; together the aggregate's communication.
    let wl = Workload {
        tp: 8,
        ..Workload::default()
    };
    let a = Assumptions::default();
    let m = crate::solver::tests::llama70();
    let b = breakdown(&a100(), &m, &wl, &a).unwrap();
    let each = 80.0 * (28_672.0 / 240e9 + 14e-6);
    for kind in [OpKind::AllReduceAttention, OpKind::AllReduceMlp] {
        let op = find(&b, kind);
        assert_eq!(op.bound, Bound::Link);
        assert!(rel(op.time_s, each) < 1e-12, "{op:?}");
        assert_eq!(op.comm_bytes, 80.0 * 16_384.0);
        assert_eq!(op.arithmetic_intensity(), None);
    }
    let agg = time_step(&a100(), &m, &wl, &a).unwrap();
    assert!(rel(2.0 * each, agg.comm_s) < 1e-12);
    // Pipeline stages hand off between them: 3 hand-offs between 4 stages.
    let wl = Workload { pp: 4, ..wl };
    let b = breakdown(&a100(), &m, &wl, &a).unwrap();
    assert_eq!(find(&b, OpKind::Handoff).layers.to_string(), "4 stages");
    assert_eq!(find(&b, OpKind::Handoff).comm_bytes, 3.0 * 16_384.0);
}

#[test]
fn a_single_pass_network_is_its_layers_or_one_forward_pass() {
    let wl = Workload {
        batch: 8.0,
        ..Workload::default()
    };
    let a = Assumptions::default();
    let b = breakdown(&a100(), &resnet(), &wl, &a).unwrap();
    let c = step_cost(&resnet(), &wl);
    assert_eq!(b.ops.len(), 1);
    assert_eq!(b.ops[0].kind, OpKind::Forward);
    assert_eq!((b.ops[0].flops, b.ops[0].bytes()), (c.flops, c.bytes()));
    // A listed network, as step_cost sums a list: conv1 8 * 1.8e6 FLOPs,
    // 900 weights of 2 bytes, 8 * (1e4 + 1e4) activations of 2 bytes; the
    // add 8 * 1e4 FLOPs, no weights, 8 * (2e4 + 1e4) activations.
    let m = listed_cnn();
    let b = breakdown(&a100(), &m, &wl, &a).unwrap();
    let names: Vec<&str> = b.ops.iter().map(|o| o.name(&m)).collect();
    assert_eq!(names, ["conv1", "add"]);
    assert_eq!(b.ops[0].flops, 14.4e6);
    assert_eq!(b.ops[0].weight_bytes, 1800.0);
    assert_eq!(b.ops[0].activation_bytes, 320_000.0);
    assert_eq!(b.ops[1].flops, 80_000.0);
    assert_eq!(b.ops[1].bytes(), 480_000.0);
    assert_eq!(b.ops[1].layers.to_string(), "1");
}

fn arb_decoder() -> impl Strategy<Value = Model> {
    prop_oneof![
        Just(llama8()),
        Just(crate::solver::tests::llama70()),
        Just(mixtral()),
        Just(deepseek_v3()),
        Just(gemma2_9b()),
        Just(gpt2()),
        Just(resnet()),
    ]
}

fn arb_workload() -> impl Strategy<Value = Workload> {
    (
        0u32..10,
        0u32..17,
        prop::sample::select(vec![1u32, 2, 4, 8]),
        1u32..4,
        any::<bool>(),
        prop::sample::select(Precision::ALL.to_vec()),
        prop::sample::select(Precision::ALL.to_vec()),
    )
        .prop_map(|(b, s, tp, pp, pre, w, kv)| Workload {
            phase: if pre { Phase::Prefill } else { Phase::Decode },
            batch: (1u32 << b) as f64,
            context: if pre {
                (1u32 << s.min(14)) as f64
            } else {
                ((1u32 << s) - 1) as f64
            },
            weights: w,
            kv,
            tp,
            pp,
            ..Workload::default()
        })
}

fn arb_assumptions() -> impl Strategy<Value = Assumptions> {
    (
        0.2f64..1.0,
        0.2f64..1.0,
        0.0f64..1.0,
        0.0f64..64.0,
        0.3f64..1.0,
        0.0f64..1e-5,
        any::<bool>(),
    )
        .prop_map(|(c, m, w, rows, att, kernel, auto)| Assumptions {
            compute_efficiency: c,
            memory_efficiency: m,
            overlap: w,
            gemm_half_rows: rows,
            attention_efficiency: att,
            kernel_s: kernel,
            dequant_4bit: 0.56,
            low_precision_efficiency: 0.58,
            collective: if auto {
                Collective::Auto
            } else {
                Collective::Ring
            },
            ..Assumptions::default()
        })
}

proptest! {
    /// Before they are reconciled, the shape's KV and activation bytes are
    /// already the step's: the per-operator counts are cost.rs's.
    #[test]
    fn the_shapes_counts_are_the_steps(m in arb_decoder(), wl in arb_workload()) {
        let Arch::Decoder(d) = &m.arch else { return Ok(()) };
        let c = step_cost(&m, &wl);
        let ops = decoder::shaped(d, m.params, &wl, &c);
        let kv: f64 = ops.iter().map(|o| o.kv_bytes).sum();
        let act: f64 = ops.iter().map(|o| o.activation_bytes).sum();
        prop_assert!(kv == c.kv_bytes || rel(kv, c.kv_bytes) < 1e-9, "{} {kv} vs {}", m.id, c.kv_bytes);
        prop_assert!(rel(act, c.activation_bytes) < 1e-9, "{} {act} vs {}", m.id, c.activation_bytes);
    }

    #[test]
    fn operators_add_up_to_the_aggregate_step(m in arb_decoder(), wl in arb_workload(), a in arb_assumptions()) {
        let hw = h100();
        let Ok(b) = breakdown(&hw, &m, &wl, &a) else {
            // Only a layout the model cannot take (TP over too few heads).
            prop_assert!(crate::solver::roofline::validate_layout(&m, &wl).is_err());
            return Ok(());
        };
        let c = step_cost(&m, &wl);
        let t = b.totals;
        for (sum, agg) in [
            (t.flops, c.flops),
            (t.weight_bytes, c.weight_bytes),
            (t.kv_bytes, c.kv_bytes),
            (t.activation_bytes, c.activation_bytes),
            (t.comm_bytes, c.allreduces * c.allreduce_bytes + c.handoffs * c.handoff_bytes),
        ] {
            prop_assert!(sum == agg || rel(sum, agg) < 1e-9, "{sum} vs {agg}");
        }
        // Each operator's compute and memory time add up to the aggregate's,
        // its collectives to the aggregate's communication (none hidden).
        let agg = time_step(&hw, &m, &wl, &a).unwrap();
        let (compute, memory, link) = b.ops.iter().fold((0.0, 0.0, 0.0), |s, o| {
            (s.0 + o.compute_s, s.1 + o.memory_s, s.2 + o.link_s)
        });
        prop_assert!(rel(compute, agg.compute_s) < 1e-9);
        prop_assert!(rel(memory, agg.memory_s) < 1e-9);
        prop_assert!(link == agg.comm_s || rel(link, agg.comm_s) < 1e-9);
        prop_assert!(rel(t.aggregate_s, agg.latency_s) < 1e-12);
        // No operator overlaps another: the per-operator step is never
        // shorter than the aggregate (but for a negative "other weights",
        // which subtracts its own time).
        let other = b.ops.iter().find(|o| o.kind == OpKind::OtherWeights).map_or(0.0, |o| o.time_s.min(0.0));
        prop_assert!(t.per_operator_s >= (t.aggregate_s + 2.0 * other) * (1.0 - 1e-12));
        let shares: f64 = b.ops.iter().map(|o| o.share).sum::<f64>() + t.fixed_s / t.per_operator_s;
        prop_assert!((shares - 1.0).abs() < 1e-9);
        for o in &b.ops {
            prop_assert!(o.time_s.is_finite() && o.flops.is_finite() && o.bytes().is_finite());
            if o.kind != OpKind::OtherWeights {
                prop_assert!(o.flops >= 0.0 && o.bytes() >= 0.0 && o.time_s >= 0.0, "{o:?}");
            }
        }
    }
}
