//! Recomputation by module (Megatron-Core's `recompute_modules`) and
//! MaxText's `save_dot_except_mlpwi`: the bytes each keeps, the FLOPs each
//! runs again and the collectives each repeats, derived by hand.

use super::flops::{Flops, mlp_input_products, module_products};
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
    // dots-except-mlpwi: dots' 94208 less gate and up, 2 x 2f = 57344:
    // layer input, Q, K, V, out and down outputs, 36864.
    assert_eq!(per_token(&d, Recompute::Dots), 94_208.0);
    assert_eq!(per_token(&d, Recompute::DotsExceptMlpwi), 36_864.0);
}

#[test]
fn modules_of_an_mla_moe_layer_by_hand() {
    // Widths (tp 1): h 64; Q 4 x (16 + 8) = 96; K and V at their mean
    // 4 x (16 + 8/2) = 80; the core's output 4 x 16 = 64; latents 48 + 32
    // + 8 = 88. Nothing recomputed, per token at 16 bits:
    // the norms' inputs 2 x 2h = 256 and their outputs (the QKV and MLP
    // inputs) 2 x 2h = 256; Q K V 2 x 96 + 4 x 80 = 512; latents 2 x 88 =
    // 176; the output 2 x 64 = 128; the log-sum-exp 4 x 4 = 16; the router
    // 4 E = 32; 2 routed copies of (2h in + 2h out + 6 f) = 2 x 448 = 896;
    // the shared expert's 6 x 32 = 192.
    // 512 + 512 + 176 + 128 + 16 + 32 + 896 + 192 = 2464.
    let d = tiny_mla_moe();
    assert_eq!(per_token(&d, Recompute::None), 2464.0);
    // mla_up_proj frees Q, K and V (512): 1952.
    assert_eq!(per_token(&d, modules("mla_up_proj")), 1952.0);
    // moe_act frees each copy's activation output, 2 x 2f = 128: 2336.
    assert_eq!(per_token(&d, modules("moe_act")), 2336.0);
    // shared_experts frees the shared expert's 192: 2272.
    assert_eq!(per_token(&d, modules("shared_experts")), 2272.0);
    // moe frees the router, the copies and the shared expert, 1120: 1344.
    assert_eq!(per_token(&d, modules("moe")), 1344.0);
    // Together (a B200 NVFP4 recipe's list): 2464 - 512 - 128 - 256
    // (layernorm's two outputs, 4h) = 1568.
    assert_eq!(
        per_token(&d, modules("mla_up_proj,layernorm,moe_act")),
        1568.0
    );
    // dots: layer input 2h, Q K V 512, latents 176, out and down outputs
    // 2 x 2h = 1072; router 32; 2 copies of (down output 2h + gate and up
    // 4f) = 512; shared gate and up 4 x 32 = 128: 1744.
    assert_eq!(per_token(&d, Recompute::Dots), 1744.0);
    // dots-except-mlpwi: 1072 + 32 + 2 copies of 2h = 256: 1360.
    assert_eq!(per_token(&d, Recompute::DotsExceptMlpwi), 1360.0);
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
