//! Every architecture `ridgeline import` knows, on its published config.json
//! (tests/fixtures/hf/<model>/config.json, copied from the Hugging Face
//! repository named in tests/fixtures/hf/README.md), against the model's
//! published parameter count: total, and active for MoE, within 1%.
//!
//! Active counts: ridgeline's `active_params` counts every parameter a token
//! passes through, the input embedding row included (the solver leaves the
//! gathered embedding out itself). Mistral and Qwen publish the same count;
//! DeepSeek and OpenAI leave the input embedding out of "activated", so
//! their tests compare `active - vocab x hidden`.

use ridgeline::catalog::hf::{self, Derivation, Family, Identity};
use ridgeline::solver::{Precision, Window};

fn derived(name: &str) -> Derivation {
    let path = format!("tests/fixtures/hf/{name}/config.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    hf::derive(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `derived` is within `tolerance` (relative) of `published`.
#[track_caller]
fn agrees(what: &str, derived: f64, published: f64, tolerance: f64) {
    let r = (derived - published) / published;
    assert!(
        r.abs() <= tolerance,
        "{what}: derived {derived} vs published {published}: {:+.3}%",
        r * 100.0
    );
}

const ONE_PERCENT: f64 = 0.01;

/// The input embedding, which DeepSeek and OpenAI leave out of "activated".
fn embedding(d: &Derivation) -> f64 {
    d.decoder.vocab as f64 * d.decoder.hidden as f64
}

#[test]
fn llama_1_7b() {
    // LLaMA paper (arXiv:2302.13971), Table 2: 6.7B. Hand count: embedding
    // and head 2 x 32,000 x 4,096 = 262,144,000; per layer q, k, v, o 4 x
    // 4,096^2 = 67,108,864, MLP 3 x 4,096 x 11,008 = 135,266,304, norms
    // 8,192 -> 202,383,360 x 32 = 6,476,267,520; final norm 4,096.
    let d = derived("llama-7b");
    assert_eq!(d.family, Family::Llama);
    assert_eq!(d.params, 6_738_415_616);
    agrees("total", d.params as f64, 6.7e9, ONE_PERCENT);
    // No num_key_value_heads: every head has its own KV (MHA).
    assert_eq!(d.decoder.kv_heads, 32);
    assert_eq!(d.weights.unwrap().precision, Precision::Fp16);
}

#[test]
fn llama_3_2_1b_tied() {
    // Model card (huggingface.co/meta-llama/Llama-3.2-1B): 1.23B.
    // Tied: one 128,256 x 2,048 table = 262,668,288; per layer q 2,048^2,
    // k and v 2,048 x 512, o 2,048^2 -> 10,485,760, MLP 3 x 2,048 x 8,192 =
    // 50,331,648, norms 4,096 -> 60,821,504 x 16 = 973,144,064; final 2,048.
    let d = derived("llama-3.2-1b");
    assert!(d.decoder.tied_embeddings);
    assert_eq!(d.count.head, 0);
    assert_eq!(d.params, 1_235_814_400);
    agrees("total", d.params as f64, 1.23e9, ONE_PERCENT);
}

#[test]
fn llama_3_1_8b() {
    // The checkpoint's model.safetensors.index.json: total_size
    // 16,060,522,496 bytes of bf16 = 8,030,261,248 weights (also the
    // fixture's index); model card: 8B.
    let d = derived("llama-3.1-8b");
    agrees(
        "total",
        d.params as f64,
        16_060_522_496.0 / 2.0,
        ONE_PERCENT,
    );
    assert_eq!(d.params, 8_030_261_248);
    // KV bytes per token in bf16: 2 (K, V) x 32 layers x 8 KV heads x 128 x
    // 2 bytes = 131,072.
    assert_eq!(d.kv_bytes_per_token(2.0), 131_072.0);
    assert_eq!(d.decoder.max_context, 131_072);
    assert_eq!(d.decoder.window, None);
}

#[test]
fn mistral_7b_sliding_window() {
    // mistral.ai/news/announcing-mistral-7b: "a 7.3B parameter model".
    // The same layer as Llama 3.1 8B with a 32,000 vocabulary: 7,241,732,096.
    let d = derived("mistral-7b-v0.1");
    assert_eq!(d.family, Family::Mistral);
    agrees("total", d.params as f64, 7.3e9, ONE_PERCENT);
    // v0.1 attends to 4,096 past tokens on every layer.
    assert_eq!(
        d.decoder.window,
        Some(Window {
            tokens: 4096,
            layers: 32
        })
    );
}

#[test]
fn mixtral_8x7b() {
    // mistral.ai/news/mixtral-of-experts: "46.7B total parameters but only
    // uses 12.9B parameters per token". Per layer 8 experts of 3 x 4,096 x
    // 14,336 = 176,160,768 and a router 8 x 4,096; active keeps 2 of 8.
    let d = derived("mixtral-8x7b-v0.1");
    agrees("total", d.params as f64, 46.7e9, ONE_PERCENT);
    agrees("active", d.active.unwrap() as f64, 12.9e9, ONE_PERCENT);
    let m = d.decoder.moe.unwrap();
    assert_eq!(
        (m.experts, m.top_k, m.shared_ffn, m.dense_layers),
        (8, 2, 0, 0)
    );
    assert_eq!(d.decoder.ffn, 14_336);
    // "sliding_window": null: no window.
    assert_eq!(d.decoder.window, None);
}

#[test]
fn qwen2_7b() {
    // Model card (huggingface.co/Qwen/Qwen2.5-7B): 7.61B parameters, 6.53B
    // non-embedding. q, k and v carry biases (Qwen2), the output none.
    let d = derived("qwen2.5-7b");
    assert_eq!(d.family, Family::Qwen2);
    agrees("total", d.params as f64, 7.61e9, ONE_PERCENT);
    let non_embedding = d.params - d.count.embedding - d.count.head;
    agrees("non-embedding", non_embedding as f64, 6.53e9, ONE_PERCENT);
    // use_sliding_window false: the 131,072 window does not apply.
    assert_eq!(d.decoder.window, None);
}

#[test]
fn qwen2_awq_int4_weights() {
    // Qwen/Qwen2.5-7B-Instruct-AWQ: the same shape, quantization_config awq
    // 4 bits: the weights are int4 (the count is the unquantized model's).
    let d = derived("qwen2.5-7b-instruct-awq");
    assert_eq!(d.params, derived("qwen2.5-7b").params);
    let w = d.weights.unwrap();
    assert_eq!(w.precision, Precision::Int4);
    assert!(w.from.contains("awq"), "{}", w.from);
}

#[test]
fn qwen2_moe() {
    // Model card (huggingface.co/Qwen/Qwen1.5-MoE-A2.7B): "14.3B parameters
    // in total and 2.7B activated parameters during runtime". 60 experts
    // of 1,408, top 4, one shared expert of 5,632 behind a gate.
    let d = derived("qwen1.5-moe-a2.7b");
    assert_eq!(d.family, Family::Qwen2Moe);
    agrees("total", d.params as f64, 14.3e9, ONE_PERCENT);
    agrees("active", d.active.unwrap() as f64, 2.7e9, ONE_PERCENT);
    let m = d.decoder.moe.unwrap();
    assert_eq!((m.experts, m.top_k, m.shared_ffn), (60, 4, 5632));
    assert_eq!(d.decoder.ffn, 1408);
}

#[test]
fn qwen3_8b() {
    // Model card (huggingface.co/Qwen/Qwen3-8B): 8.2B, non-embedding 6.95B.
    let d = derived("qwen3-8b");
    assert_eq!(d.family, Family::Qwen3);
    agrees("total", d.params as f64, 8.2e9, ONE_PERCENT);
    let non_embedding = d.params - d.count.embedding - d.count.head;
    agrees("non-embedding", non_embedding as f64, 6.95e9, ONE_PERCENT);
}

#[test]
fn qwen3_head_dim_apart_from_hidden() {
    // Model card (huggingface.co/Qwen/Qwen3-0.6B): 0.6B, non-embedding
    // 0.44B. 16 heads of head_dim 128 on a hidden size of 1,024 (not
    // 1,024 / 16 = 64): q is 1,024 x 2,048. Tied embeddings.
    let d = derived("qwen3-0.6b");
    assert_eq!(d.decoder.head_dim, 128);
    assert!(d.decoder.tied_embeddings);
    agrees("total", d.params as f64, 0.6e9, ONE_PERCENT);
    let non_embedding = d.params - d.count.embedding;
    agrees("non-embedding", non_embedding as f64, 0.44e9, ONE_PERCENT);
}

#[test]
fn qwen3_moe() {
    // Model card (huggingface.co/Qwen/Qwen3-235B-A22B): "235B in total and
    // 22B activated"; 128 experts, 8 activated, no shared expert.
    let d = derived("qwen3-235b-a22b");
    assert_eq!(d.family, Family::Qwen3Moe);
    agrees("total", d.params as f64, 235e9, ONE_PERCENT);
    agrees("active", d.active.unwrap() as f64, 22e9, ONE_PERCENT);
    let m = d.decoder.moe.unwrap();
    assert_eq!(
        (m.experts, m.top_k, m.shared_ffn, m.dense_layers),
        (128, 8, 0, 0)
    );
}

#[test]
fn gemma_7b() {
    // Gemma paper (arXiv:2403.08295), Table 2: 786,825,216 embedding +
    // 7,751,248,896 non-embedding parameters. head_dim 256 with 16 heads on
    // a hidden size of 3,072; tied embeddings by GemmaConfig's default.
    let d = derived("gemma-7b");
    assert_eq!(d.decoder.head_dim, 256);
    assert!(d.decoder.tied_embeddings);
    agrees(
        "total",
        d.params as f64,
        786_825_216.0 + 7_751_248_896.0,
        ONE_PERCENT,
    );
    assert_eq!(d.params - d.count.embedding, 7_751_248_896);
}

#[test]
fn gemma_2_9b_alternating_window() {
    // Gemma 2 paper (arXiv:2408.00118), Table 2: 917,504,000 embedding +
    // 8,324,201,984 non-embedding. Four norms per layer; every other layer
    // local with a 4,096-token window (21 of 42).
    let d = derived("gemma-2-9b");
    assert_eq!(d.count.embedding, 917_504_000);
    assert_eq!(d.params - d.count.embedding, 8_324_201_984);
    agrees("total", d.params as f64, 9_241_705_984.0, ONE_PERCENT);
    assert_eq!(
        d.decoder.window,
        Some(Window {
            tokens: 4096,
            layers: 21
        })
    );
    // The checkpoint is float32.
    assert_eq!(d.weights.unwrap().precision, Precision::Fp32);
}

#[test]
fn gemma_3_text_config() {
    // Gemma 3 report (arXiv:2503.19786), Table 1, 4B: 675M embedding +
    // 3,209M non-embedding (+ a 417M vision encoder, not counted). The
    // config nests the text model in text_config and leaves heads, KV
    // heads, head_dim and the vocabulary to Gemma3TextConfig's defaults
    // (8, 4, 256, 262,208). Five local layers (1,024 tokens) to one global.
    let d = derived("gemma-3-4b-it");
    assert_eq!(d.family, Family::Gemma3);
    agrees("total", d.params as f64, 675e6 + 3_209e6, ONE_PERCENT);
    agrees(
        "non-embedding",
        (d.params - d.count.embedding) as f64,
        3_209e6,
        ONE_PERCENT,
    );
    assert_eq!((d.decoder.heads, d.decoder.kv_heads), (8, 4));
    let heads = d
        .used
        .iter()
        .find(|u| u.key == "text_config.num_attention_heads");
    assert!(heads.unwrap().default.is_some());
    assert!(d.used.iter().any(|u| u.key == "text_config.hidden_size"));
    // 34 layers, every sixth global: 34 - 5 = 29 local.
    assert_eq!(
        d.decoder.window,
        Some(Window {
            tokens: 1024,
            layers: 29
        })
    );
    assert!(d.notes.iter().any(|n| n.contains("vision")));
}

#[test]
fn phi_3_mini() {
    // Model card (huggingface.co/microsoft/Phi-3-mini-4k-instruct): 3.8B.
    // Fused qkv and gate-up projections count as q, k, v and gate, up.
    let d = derived("phi-3-mini-4k-instruct");
    assert_eq!(d.family, Family::Phi3);
    agrees("total", d.params as f64, 3.8e9, ONE_PERCENT);
    assert_eq!(d.params, 3_821_079_552);
    // sliding_window 2,047 on every layer, as transformers applies it.
    assert_eq!(
        d.decoder.window,
        Some(Window {
            tokens: 2047,
            layers: 32
        })
    );
}

#[test]
fn deepseek_v2_lite_direct_queries() {
    // Model card (huggingface.co/deepseek-ai/DeepSeek-V2-Lite): 15.7B total.
    // q_lora_rank null: queries projected directly (no query latent).
    let d = derived("deepseek-v2-lite");
    agrees("total", d.params as f64, 15.7e9, ONE_PERCENT);
    let mla = d.decoder.mla.unwrap();
    assert_eq!((mla.kv_latent, mla.rope_dim, mla.q_latent), (512, 64, 0));
    let m = d.decoder.moe.unwrap();
    // 2 shared experts of 1,408; the first layer dense (10,944).
    assert_eq!((m.experts, m.top_k, m.shared_ffn), (64, 6, 2816));
    assert_eq!((m.dense_layers, m.dense_ffn), (1, 10_944));
    // Active by hand: a MoE layer has attention 13,763,072 (q 2,048 x 3,072,
    // kv_a 2,048 x 576 + 512, kv_b 512 x 4,096, o 2,048 x 2,048), 6 routed
    // and 2 shared experts of 3 x 2,048 x 1,408 = 8,650,752, a router
    // 131,072 and norms 4,096: 83,104,256 x 26 = 2,160,710,656; the dense
    // layer 81,007,104; embedding and head 419,430,400; final norm 2,048.
    // (The card's "2.4B activated" leaves the input embedding out: 2.45B.)
    assert_eq!(d.active, Some(2_661_150_208));
}

#[test]
fn deepseek_v2() {
    // DeepSeek-V2 paper (arXiv:2405.04434): "236B total parameters, of which
    // 21B are activated for each token" (activated without the input
    // embedding, 102,400 x 5,120).
    let d = derived("deepseek-v2");
    assert_eq!(d.family, Family::DeepseekV2);
    agrees("total", d.params as f64, 236e9, ONE_PERCENT);
    agrees(
        "activated",
        d.active.unwrap() as f64 - embedding(&d),
        21e9,
        ONE_PERCENT,
    );
    assert_eq!(d.decoder.mla.unwrap().q_latent, 1536);
}

#[test]
fn deepseek_v3_mla_and_fp8() {
    // DeepSeek-V3 report (arXiv:2412.19437): "671B total parameters with
    // 37B activated for each token", the multi-token-prediction module
    // (num_nextn_predict_layers) apart.
    let d = derived("deepseek-v3");
    agrees("total", d.params as f64, 671e9, ONE_PERCENT);
    // Activated without the input embedding (129,280 x 7,168): 36.63B,
    // within the precision "37B" is given to (36.5B to 37.5B); 1.01% under.
    let activated = d.active.unwrap() as f64 - embedding(&d);
    assert!((36.5e9..37.5e9).contains(&activated), "{activated}");
    let mla = d.decoder.mla.unwrap();
    assert_eq!((mla.kv_latent, mla.rope_dim, mla.q_latent), (512, 64, 1536));
    // The cache holds the latent and the RoPE key: 61 x (512 + 64) x 2 bytes.
    assert_eq!(d.kv_bytes_per_token(2.0), 70_272.0);
    let m = d.decoder.moe.unwrap();
    assert_eq!((m.experts, m.top_k, m.shared_ffn), (256, 8, 2048));
    assert_eq!((m.dense_layers, m.dense_ffn), (3, 18_432));
    // quantization_config fp8 (e4m3): the weights are fp8.
    assert_eq!(d.weights.unwrap().precision, Precision::Fp8);
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("num_nextn_predict_layers"))
    );
}

#[test]
fn gpt2_learned_positions_and_biases() {
    // Model card (huggingface.co/openai-community/gpt2): 124M. Tied token
    // embedding 50,257 x 768 = 38,597,376, learned positions 1,024 x 768 =
    // 786,432; per layer 2 LayerNorms 3,072, qkv 768 x 2,304 + 2,304, out
    // 768^2 + 768, MLP 768 x 3,072 + 3,072 and 3,072 x 768 + 768 ->
    // 7,087,872 x 12 = 85,054,464; final LayerNorm 1,536.
    let d = derived("gpt2");
    assert_eq!(d.family, Family::Gpt2);
    assert_eq!(d.params, 124_439_808);
    agrees("total", d.params as f64, 124e6, ONE_PERCENT);
    assert_eq!(d.count.positions, 786_432);
    assert!(!d.decoder.gated_mlp);
    assert!(d.decoder.tied_embeddings);
    assert_eq!(d.decoder.max_context, 1024);
    // No torch_dtype: no weight precision claimed.
    assert_eq!(d.weights, None);
}

#[test]
fn gpt_neox_20b() {
    // Model card (huggingface.co/EleutherAI/gpt-neox-20b): 20,554,567,680
    // parameters. Untied in and out embeddings, biases and LayerNorms.
    let d = derived("gpt-neox-20b");
    assert_eq!(d.family, Family::GptNeox);
    assert_eq!(d.params, 20_554_567_680);
    agrees("total", d.params as f64, 20_554_567_680.0, ONE_PERCENT);
    assert!(!d.decoder.gated_mlp);
}

#[test]
fn falcon_7b_multi_query() {
    // Multi-query (one KV head of 64), one shared LayerNorm per parallel
    // layer, no biases, tied embeddings. By hand: embedding 65,024 x 4,544 =
    // 295,469,056; per layer qkv 4,544 x (4,544 + 2 x 64) = 21,229,568,
    // dense 4,544^2 = 20,647,936, MLP 2 x 4,544 x 18,176 = 165,183,488,
    // LayerNorm 9,088 -> 207,070,080 x 32 = 6,626,242,560; final 9,088.
    // (The card's "7B" is rounded.)
    let d = derived("falcon-7b");
    assert_eq!(d.family, Family::Falcon);
    assert_eq!(d.decoder.kv_heads, 1);
    assert_eq!(d.params, 6_921_720_704);
    // One KV head: 2 x 32 x 1 x 64 x 2 bytes = 8,192 per token.
    assert_eq!(d.kv_bytes_per_token(2.0), 8192.0);
}

#[test]
fn falcon_180b_new_decoder() {
    // Model card (huggingface.co/tiiuae/falcon-180B): "a 180B parameters
    // causal decoder-only model". New decoder layout: 8 KV heads, two
    // LayerNorms per layer; the MLP 4 x hidden (FalconConfig default).
    let d = derived("falcon-180b");
    assert_eq!(d.decoder.kv_heads, 8);
    assert_eq!(d.decoder.ffn, 4 * 14_848);
    agrees("total", d.params as f64, 180e9, ONE_PERCENT);
}

#[test]
fn gpt_oss_alternating_window_and_mxfp4() {
    // gpt-oss model card (arXiv:2508.10925), Table 1, gpt-oss-120b: 116.83B
    // total, 5.13B active (active without the input embedding, 201,088 x
    // 2,880). Biases on q, k, v, o, the router and the experts; a sink per
    // head.
    let d = derived("gpt-oss-120b");
    assert_eq!(d.family, Family::GptOss);
    agrees("total", d.params as f64, 116.83e9, ONE_PERCENT);
    agrees(
        "active",
        d.active.unwrap() as f64 - embedding(&d),
        5.13e9,
        ONE_PERCENT,
    );
    // layer_types: 18 x [sliding, full], a 128-token window.
    assert_eq!(
        d.decoder.window,
        Some(Window {
            tokens: 128,
            layers: 18
        })
    );
    assert_eq!(d.weights.unwrap().precision, Precision::Fp4);
}

/// Every fixture's entry, written and read back by the catalog loader, is
/// the derived model; written again, the same text.
#[test]
fn every_fixture_round_trips_through_the_catalog_loader() {
    let mut n = 0;
    for dir in std::fs::read_dir("tests/fixtures/hf").unwrap() {
        let dir = dir.unwrap().path();
        if !dir.join("config.json").is_file() || dir.ends_with("broken") {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let d = derived(&name);
        let who = Identity {
            id: name.clone(),
            name: name.clone(),
            source: format!("tests/fixtures/hf/{name}/config.json"),
            year: 2026,
        };
        let e = d.entry(&who).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(e.model.params, d.params as f64, "{name}");
        assert_eq!(
            e.model.arch,
            ridgeline::solver::Arch::Decoder(d.decoder),
            "{name}"
        );
        assert_eq!(e.weights, d.weights.as_ref().map(|w| w.precision), "{name}");
        assert_eq!(e.model.kind, d.kind(), "{name}");
        n += 1;
    }
    assert!(n >= 20, "{n} fixtures");
}
