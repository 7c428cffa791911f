//! Recomputation by module (Megatron-Core's `recompute_modules`) and
//! MaxText's `save_dot_except_mlpwi`: the bytes each keeps, the FLOPs each
//! runs again and the collectives each repeats; and offloading what the
//! layers keep to host memory: the bytes and the copies. Derived by hand.

use super::flops::{Flops, mlp_input_products, mlp_products, module_products, op_sac_products};
use super::memory::layer_activations;
use super::*;
use crate::solver::types::{Decoder, Mla, Model, ModelKind, Moe};

/// Llama 3.1 8B's shape: h 4096, 32 heads of 128, 8 KV heads, SwiGLU of
/// 14336, 32 layers.
fn llama_8b() -> Decoder {
    Decoder {
        layers: 32,
        hidden: 4096,
        heads: 32,
        kv_heads: 8,
        head_dim: 128,
        ffn: 14336,
        vocab: 128_256,
        tied_embeddings: false,
        max_context: 8192,
        moe: None,
        mla: None,
        gated_mlp: true,
        window: None,
    }
}

/// A small DeepSeek-like layer: h 64, 4 heads of 16 with MLA (q_latent 48,
/// kv_latent 32, rope 8), 8 routed experts of width 32, top-2, one shared
/// expert of 32, SwiGLU, 2 layers, all routed.
fn tiny_mla_moe() -> Decoder {
    Decoder {
        layers: 2,
        hidden: 64,
        heads: 4,
        kv_heads: 4,
        head_dim: 16,
        ffn: 32,
        vocab: 1000,
        tied_embeddings: false,
        max_context: 4096,
        moe: Some(Moe {
            experts: 8,
            top_k: 2,
            active_params: 1e6,
            shared_ffn: 32,
            dense_layers: 0,
            dense_ffn: 0,
        }),
        mla: Some(Mla {
            kv_latent: 32,
            rope_dim: 8,
            q_latent: 48,
        }),
        gated_mlp: true,
        window: None,
    }
}

fn modules(s: &str) -> Recompute {
    Recompute::parse(s).unwrap()
}

/// Bytes per token of one layer of one micro-batch (tp 1, flash, no
/// dropout, 1024 tokens).
fn per_token(d: &Decoder, r: Recompute) -> f64 {
    let run = TrainingRun {
        seq: 1024.0,
        ..TrainingRun::default()
    };
    layer_activations(d, &run, &TrainingAssumptions::default(), r) / 1024.0
}

#[test]
fn names_parse_as_megatron_and_maxtext_spell_them() {
    let m = modules("mla_up_proj, moe_act");
    assert_eq!(
        m,
        Recompute::Modules(Modules::MLA_UP_PROJ.with(Modules::MOE_ACT))
    );
    // The name lists them in Megatron-Core's documented order, and reads
    // back as the same set.
    assert_eq!(m.name(), "moe_act,mla_up_proj");
    assert_eq!(Recompute::parse(&m.name()), Some(m));
    assert_eq!(modules("MLA-UP-PROJ"), modules("mla_up_proj"));
    assert_eq!(
        Recompute::parse("save_dot_except_mlpwi"),
        Some(Recompute::DotsExceptMlpwi)
    );
    assert_eq!(
        Recompute::parse("dots-except-mlpwi"),
        Some(Recompute::DotsExceptMlpwi)
    );
    // A name that is no module, and an empty list, are refused.
    assert_eq!(Recompute::parse("mla_up_proj,attn"), None);
    assert_eq!(Recompute::parse(""), None);
    assert_eq!(Modules::parse("core_attn,attn"), Err("attn".into()));
    // Every named level reads back from its name.
    for r in Recompute::ALL {
        assert_eq!(Recompute::parse(&r.name()), Some(r));
    }
}

#[test]
fn modules_of_a_dense_gqa_layer_by_hand() {
    // Llama 3.1 8B per token and layer at 16 bits, flash, no dropout (see
    // the flash test in tests.rs): 139392 bytes with nothing recomputed,
    // 128 of them the fp32 log-sum-exp 4a.
    let d = llama_8b();
    assert_eq!(per_token(&d, Recompute::None), 139_392.0);
    // core_attn is selective: 139392 - 128.
    assert_eq!(per_token(&d, modules("core_attn")), 139_264.0);
    assert_eq!(per_token(&d, Recompute::Selective), 139_264.0);
    // layernorm frees the two norms' outputs, 2h + 2h = 16384:
    // 139392 - 16384 = 123008.
    assert_eq!(per_token(&d, modules("layernorm")), 123_008.0);
    // mlp frees the gate, up and product, 3 x 2f = 86016:
    // 139392 - 86016 = 53376.
    assert_eq!(per_token(&d, modules("mlp")), 53_376.0);
    // A dense model without MLA has no up projection and no experts:
    // mla_up_proj and moe_act change nothing.
    assert_eq!(per_token(&d, modules("mla_up_proj,moe_act")), 139_392.0);
    // dots: layer input 2h, Q 2h, K and V 2 x 2 x 1024, out 2h, gate and
    // up 2 x 2f = 3 x 8192 + 4096 + 57344 = 86016. The down projection's
    // output feeds only the residual sum: no level keeps it.
    assert_eq!(per_token(&d, Recompute::Dots), 86_016.0);
    // dots-except-mlpwi: less gate and up, 86016 - 57344 = 28672; on a
    // dense model what dots-except-mlp keeps.
    assert_eq!(per_token(&d, Recompute::DotsExceptMlpwi), 28_672.0);
    assert_eq!(per_token(&d, Recompute::DotsExceptMlp), 28_672.0);
}

#[test]
fn modules_of_an_mla_moe_layer_by_hand() {
    // Widths (tp 1): h 64; Q 4 x (16 + 8) = 96; K and V at their mean
    // 4 x (16 + 8/2) = 80; the core's output 4 x 16 = 64; latents 48 + 32
    // + 8 = 88. Nothing recomputed, per token at 16 bits:
    // the norms' inputs 2 x 2h = 256 and their outputs (the QKV and MLP
    // inputs) 2 x 2h = 256; Q K V 2 x 96 + 4 x 80 = 512; latents 2 x 88 =
    // 176; the output 2 x 64 = 128; the log-sum-exp 4 x 4 = 16; the router
    // 4 E = 32; 2 routed copies of (2h in + 6 f) = 2 x 320 = 640 (the
    // expert's output is not kept: the routing weight is applied inside
    // the expert); the shared expert's 6 x 32 = 192.
    // 512 + 512 + 176 + 128 + 16 + 32 + 640 + 192 = 2208.
    let d = tiny_mla_moe();
    assert_eq!(per_token(&d, Recompute::None), 2208.0);
    // mla_up_proj frees Q, K and V (512): 1696.
    assert_eq!(per_token(&d, modules("mla_up_proj")), 1696.0);
    // moe_act frees each copy's activation output, 2 x 2f = 128: 2080.
    assert_eq!(per_token(&d, modules("moe_act")), 2080.0);
    // shared_experts frees the shared expert's 192: 2016.
    assert_eq!(per_token(&d, modules("shared_experts")), 2016.0);
    // moe frees the router, the copies and the shared expert, 864: 1344.
    assert_eq!(per_token(&d, modules("moe")), 1344.0);
    // Together (a B200 NVFP4 recipe's list): 2208 - 512 - 128 - 256
    // (layernorm's two outputs, 4h) = 1312.
    assert_eq!(
        per_token(&d, modules("mla_up_proj,layernorm,moe_act")),
        1312.0
    );
    // dots: layer input 2h, Q K V 512, latents 176, out output 2h = 944
    // (the layer's combined output is not a residual); router 32; 2
    // copies of (down output 2h, read by the routing weight's gradient,
    // + gate and up 4f) = 512; shared gate and up 4 x 32 = 128: 1616.
    assert_eq!(per_token(&d, Recompute::Dots), 1616.0);
    // dots-except-mlpwi: 944 + 32 + 2 copies of 2h = 256: 1232.
    assert_eq!(per_token(&d, Recompute::DotsExceptMlpwi), 1232.0);
    // dots-except-mlp: the layer input, Q K V, latents and the out
    // projection, 128 + 512 + 176 + 128 = 944; the MLP keeps nothing.
    assert_eq!(per_token(&d, Recompute::DotsExceptMlp), 944.0);
}

#[test]
fn recomputed_products_by_hand() {
    // The tiny MLA MoE, 2 layers, 2 FLOPs per parameter per token:
    // mla_up_proj: q_latent x a (d_h + rope) = 48 x 4 x 24 = 4608, plus
    // kv_latent x a x 2 d_h = 32 x 4 x 32 = 4096; 2 x 2 x 8704 = 34816.
    let d = tiny_mla_moe();
    let mla = Modules::MLA_UP_PROJ;
    assert_eq!(module_products(&d, mla), 34_816.0);
    // moe: router h E = 512, 2 experts of 3 h f = 6144 each, the shared
    // 6144: 2 x 2 layers x (512 + 12288 + 6144) = 75776.
    assert_eq!(module_products(&d, Modules::MOE), 75_776.0);
    // shared_experts alone: 2 x 2 x 6144 = 24576; within moe, not twice.
    assert_eq!(module_products(&d, Modules::SHARED_EXPERTS), 24_576.0);
    assert_eq!(
        module_products(&d, Modules::MOE.with(Modules::SHARED_EXPERTS)),
        75_776.0
    );
    // No dense layer: mlp rebuilds nothing; the element-wise modules no
    // product.
    assert_eq!(module_products(&d, Modules::MLP), 0.0);
    assert_eq!(
        module_products(&d, Modules::LAYERNORM.with(Modules::MOE_ACT)),
        0.0
    );
    // Llama 8B's mlp: 2 x 32 layers x 3 x 4096 x 14336; its gate and up
    // for dots-except-mlpwi: 32 x 2 x 2 x 4096 x 14336.
    let l8 = llama_8b();
    assert_eq!(
        module_products(&l8, Modules::MLP),
        2.0 * 32.0 * 3.0 * 4096.0 * 14336.0
    );
    assert_eq!(mlp_input_products(&l8), 32.0 * 2.0 * 2.0 * 4096.0 * 14336.0);
    // dots-except-mlp runs again the MLP products backward reads: Llama's
    // gate and up (its down output feeds only the residual sum), as
    // dots-except-mlpwi does; the tiny MoE's router h E = 512, each
    // copy's gate, up and down 3 h f = 6144 (the down output is read by
    // the routing weight's gradient) and the shared expert's gate and up
    // 2 h f = 4096: 2 x 2 layers x (512 + 12288 + 4096) = 67584.
    assert_eq!(mlp_products(&l8), mlp_input_products(&l8));
    assert_eq!(mlp_products(&d), 67_584.0);
}

fn model_of(d: Decoder) -> Model {
    Model {
        id: "m".into(),
        name: "M".into(),
        kind: ModelKind::DenseDecoder,
        params: 8.03e9,
        arch: crate::solver::types::Arch::Decoder(d),
        layers: Vec::new(),
    }
}

#[test]
fn the_step_counts_what_each_level_runs_again() {
    let m = model_of(llama_8b());
    let d = decoder(&m).unwrap();
    let p = Params::of(&m, d);
    let run = |r| TrainingRun {
        recompute: r,
        ..TrainingRun::default()
    };
    let f = |r| Flops::of(d, &p, &run(r));
    // 4 L H Q T: the attention core's forward again.
    let lhqt = 32.0 * 32.0 * 128.0 * 8192.0;
    let model = f(Recompute::None).model_per_token;
    // core_attn counts what selective counts.
    assert_eq!(f(modules("core_attn")), f(Recompute::Selective));
    // mlp without core_attn: only the MLP's products, no attention.
    let mlp = f(modules("mlp"));
    assert_eq!(
        mlp.hardware_per_token - model,
        module_products(d, Modules::MLP)
    );
    assert_eq!(mlp.attention_recompute_per_token, 0.0);
    // dots-except-mlpwi: the core and the gate and up products.
    let wi = f(Recompute::DotsExceptMlpwi);
    assert_eq!(
        wi.hardware_per_token - model,
        4.0 * lhqt + mlp_input_products(d)
    );
    // The four levels keep their counts: selective and dots the core,
    // full a forward pass.
    assert_eq!(f(Recompute::Dots).hardware_per_token, model + 4.0 * lhqt);
    assert_eq!(
        f(Recompute::Full).hardware_per_token,
        model + f(Recompute::None).forward_per_token
    );
}

#[test]
fn rebuilding_an_mlp_block_repeats_its_tensor_parallel_collective() {
    // Llama 8B at TP 2 on one A100 node, 4M tokens of 8k sequences over
    // dp 4: 128 micro-batches of one sequence. The TP collectives are 4
    // per layer and micro-batch; mlp rebuilds each dense layer's MLP
    // block, one more: 5 x 32 x 128 = 20480 (full: 6 x 32 x 128).
    let m = model_of(llama_8b());
    let run = |r| TrainingRun {
        layout: Layout {
            dp: 4,
            tp: 2,
            ..Layout::default()
        },
        recompute: r,
        ..TrainingRun::default()
    };
    let count = |r| {
        let t = evaluate(
            &crate::solver::tests::a100(),
            &m,
            &run(r),
            &crate::solver::types::Assumptions::ideal(),
            &TrainingAssumptions::default(),
        )
        .unwrap();
        t.step.comm.tp.count
    };
    assert_eq!(count(Recompute::None), 4.0 * 32.0 * 128.0);
    assert_eq!(count(modules("mlp")), 5.0 * 32.0 * 128.0);
    assert_eq!(count(modules("layernorm,core_attn")), 4.0 * 32.0 * 128.0);
    assert_eq!(count(Recompute::Full), 6.0 * 32.0 * 128.0);
}

#[test]
fn recomputing_the_attention_core_runs_its_context_parallel_ring_again() {
    // Llama 8B at CP 2 on one A100 node, 4M tokens of 8k sequences over
    // dp 4: 128 micro-batches. The ring sends cp - 1 = 1 KV block forward
    // and 2 backward per layer and micro-batch: 3 x 32 x 128 = 12288; a
    // recomputed attention core (selective, dots, core_attn, full) runs
    // the forward's again: 4 x 32 x 128 = 16384. A module set without
    // core_attn leaves it at 3.
    let m = model_of(llama_8b());
    let count = |r| {
        let run = TrainingRun {
            layout: Layout {
                dp: 4,
                cp: 2,
                ..Layout::default()
            },
            recompute: r,
            ..TrainingRun::default()
        };
        evaluate(
            &crate::solver::tests::a100(),
            &m,
            &run,
            &crate::solver::types::Assumptions::ideal(),
            &TrainingAssumptions::default(),
        )
        .unwrap()
        .step
        .comm
        .cp
        .count
    };
    assert_eq!(count(Recompute::None), 3.0 * 32.0 * 128.0);
    assert_eq!(count(modules("mlp")), 3.0 * 32.0 * 128.0);
    for r in [
        Recompute::Selective,
        Recompute::Dots,
        Recompute::DotsExceptMlp,
        modules("core_attn"),
        Recompute::Full,
    ] {
        assert_eq!(count(r), 4.0 * 32.0 * 128.0, "{}", r.name());
    }
}

/// An A100 (the tests' catalog figures) with a host link of `host`
/// bytes/s per direction.
fn a100_with_host(host: f64) -> crate::solver::types::Hardware {
    crate::solver::types::Hardware {
        host_bandwidth: Some(host),
        ..crate::solver::tests::a100()
    }
}

/// Llama 3.1 8B on one device, full recomputation, 8k sequences, 4M
/// tokens per step: 512 micro-batches of one sequence.
fn one_device(offload: bool) -> TrainingRun {
    TrainingRun {
        recompute: Recompute::Full,
        offload,
        ..TrainingRun::default()
    }
}

fn eval_with(hw: &crate::solver::types::Hardware, run: &TrainingRun) -> Training {
    evaluate(
        hw,
        &model_of(llama_8b()),
        run,
        &crate::solver::types::Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap()
}

#[test]
fn offloading_keeps_three_layers_on_the_device_and_the_rest_on_the_host() {
    // Full recomputation keeps each layer's input, 2h = 8192 bytes per
    // token: 8192 x 8192 tokens = 67108864 bytes a layer. Without a
    // pipeline one micro-batch is in flight: 32 layers, 2147483648 bytes.
    // Offloaded, the device holds 3 layers (201326592 bytes) and the host
    // the other 29 (1946157056); the layer rebuilt in backward stays.
    let layer = 8192.0 * 8192.0;
    let hw = a100_with_host(32e9);
    let kept = eval_with(&hw, &one_device(false)).memory;
    let off = eval_with(&hw, &one_device(true)).memory;
    let rebuilt = kept.activations - 32.0 * layer;
    assert!(rebuilt > 0.0);
    assert_eq!(off.activations, 3.0 * layer + rebuilt);
    assert_eq!(off.host, 29.0 * layer);
    assert_eq!(kept.host, 0.0);
    // The host's bytes are not in the device's total.
    assert_eq!(kept.total() - off.total(), 29.0 * layer);
}

#[test]
fn offloaded_copies_hide_behind_the_passes_until_the_link_is_too_slow() {
    // Every layer of every micro-batch goes out and comes back: 67108864
    // bytes x 32 layers x 512 micro-batches = 1.0995e12 bytes each way.
    let bytes = 8192.0 * 8192.0 * 32.0 * 512.0;
    let base = eval_with(&a100_with_host(32e9), &one_device(false)).step;
    // A link of 1 PB/s copies them in 1.1 ms, well inside either pass:
    // nothing shows and the step is the step without offloading.
    let fast = eval_with(&a100_with_host(1e15), &one_device(true)).step;
    assert_eq!(fast.offload_copy_s, bytes / 1e15);
    assert_eq!(fast.offload_s, 0.0);
    assert_eq!(fast.step_time_s, base.step_time_s);
    // At 0.1 GB/s (ideal links, eta_link = 1) each way takes 10995 s, more
    // than both passes together (4M tokens x about 64 GFLOP each on one
    // A100 is some 900 s): both show, 2 X - (forward + backward), and the
    // step grows by exactly that.
    let slow = eval_with(&a100_with_host(1e8), &one_device(true)).step;
    let x = bytes / 1e8;
    assert_eq!(slow.offload_copy_s, x);
    let work = base.compute_s + base.elementwise_s + base.moe_routing_s;
    assert!(x > work);
    assert!((slow.offload_s - (2.0 * x - work)).abs() < 1e-9 * x);
    assert!((slow.step_time_s - base.step_time_s - slow.offload_s).abs() < 1e-9 * x);
    assert_eq!(slow.binding, step::Term::Offload);
}

#[test]
fn offloading_on_a_device_without_a_host_link_says_what_to_add() {
    let err = evaluate(
        &crate::solver::tests::a100(),
        &model_of(llama_8b()),
        &one_device(true),
        &crate::solver::types::Assumptions::ideal(),
        &TrainingAssumptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("no host link"), "{err}");
    assert!(err.contains("host = \"64 GB/s\""), "{err}");
    assert!(err.contains("--offload"), "{err}");
}

#[test]
fn a_module_the_model_does_not_have_is_refused_not_ignored() {
    // Llama 3.1 8B has no MLA, no MoE and so no shared experts: each of
    // those modules would recompute nothing, so the run says which and
    // why instead of giving the figures of no recomputation.
    let dense = model_of(llama_8b());
    let run = |s: &str| TrainingRun {
        recompute: modules(s),
        ..TrainingRun::default()
    };
    for (s, why) in [
        ("mla_up_proj", "has no multi-head latent attention"),
        ("core_attn,moe_act", "is dense"),
        ("moe", "is dense"),
        ("shared_experts", "has no shared experts"),
    ] {
        let e = validate(&dense, &run(s)).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("drop it"), "{s}: {e}");
    }
    // The modules it has are taken; the tiny MLA MoE (one shared expert)
    // takes all seven.
    assert!(validate(&dense, &run("core_attn,layernorm,mlp")).is_ok());
    let all = "core_attn,moe_act,layernorm,mla_up_proj,mlp,moe,shared_experts";
    assert!(validate(&model_of(tiny_mla_moe()), &run(all)).is_ok());
}

#[test]
fn torchtitans_per_operator_checkpointing_by_hand() {
    // Llama 3.1 8B, one block's products in torchtitan's order: wq (out
    // 4096), wk (1024), wv (1024), wo (4096), w1 (14336), w3 (14336), w2
    // (4096). Its policy saves the odd ones, Q, V, gate and down: 2 x
    // (4096 + 1024 + 14336 + 4096) = 47104 bytes a token; with the block's
    // input 2h = 8192, the attention output 2 a d_h = 8192 and the fp32
    // log-sum-exp 4a = 128: 63616, under half of selective's 139264.
    let d = llama_8b();
    assert_eq!(per_token(&d, Recompute::SelectiveOp), 63_616.0);
    // Replayed in backward: wk, wo and w3, 2 FLOPs a parameter:
    // 2 x (4096 x 1024 + 4096 x 4096 + 4096 x 14336) = 159383552 a layer,
    // x 32 layers; not the attention core (its kernel's output is saved).
    assert_eq!(op_sac_products(&d), 32.0 * 159_383_552.0);
    // Under TP 8 (with sequence parallelism), per token of the sequence:
    // the block's input 2h/8 = 1024, the attention output 2 a d_h / 8 =
    // 1024 and log-sum-exp 4 x 4 = 16; Q 2 x 4096/8 = 1024, V one KV head
    // 2 x 128 = 256, the gate 2 x 14336/8 = 3584; the down projection is
    // row-parallel, its output the whole width of partial sums, 2 x 4096 =
    // 8192; and the reduce-scatters after the out and down projections
    // keep 2 x 2 x 4096/8 = 2048: 17168.
    let tp8 = TrainingRun {
        seq: 1024.0,
        layout: Layout {
            tp: 8,
            ..Layout::default()
        },
        ..TrainingRun::default()
    };
    let t = TrainingAssumptions::default();
    assert_eq!(
        layer_activations(&d, &tp8, &t, Recompute::SelectiveOp) / 1024.0,
        17_168.0
    );
    // The tiny MLA MoE (tp 1, top-2, dropless): q_a (out 48, 3072
    // parameters), q_b (96, 4608), kv_a (40, 2560), kv_b (128, 4096), wo
    // (64, 4096), router (8, 512), the grouped w1, w3, w2 of two copies
    // (64, 64, 128 out; 4096 parameters each), the shared expert's w1, w3,
    // w2 (32, 32, 64; 2048 each). Kept, the odd ones: 48 + 40 + 64 + 64 +
    // 128 + 32 = 376 elements, 752 bytes; with 2h = 128, the attention
    // output 2 x 64 = 128 and the log-sum-exp 16: 1024.
    let t = tiny_mla_moe();
    assert_eq!(per_token(&t, Recompute::SelectiveOp), 1024.0);
    // Replayed, the even ones: 4608 + 4096 + 512 + 4096 + 2048 + 2048 =
    // 17408 parameters, x 2 FLOPs x 2 layers = 69632.
    assert_eq!(op_sac_products(&t), 69_632.0);
    // Its names read back.
    assert_eq!(Recompute::parse("op"), Some(Recompute::SelectiveOp));
    assert_eq!(
        Recompute::parse("selective-op"),
        Some(Recompute::SelectiveOp)
    );
}
