//! The deriver on small hand-written configs: errors that name the key,
//! the generic reading, precisions, defaults. Each published architecture
//! has its own test against its published count in tests/import_archs.rs.

use super::*;
use crate::solver::Precision;

/// A small Llama: 2 layers, hidden 64, 4 heads of 16, 2 KV heads, MLP 128,
/// vocabulary 100, untied.
const SMALL: &str = r#"{
  "model_type": "llama",
  "hidden_size": 64,
  "intermediate_size": 128,
  "num_hidden_layers": 2,
  "num_attention_heads": 4,
  "num_key_value_heads": 2,
  "vocab_size": 100,
  "max_position_embeddings": 512,
  "torch_dtype": "bfloat16"
}"#;

fn without(key: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(SMALL).unwrap();
    v.as_object_mut().unwrap().remove(key);
    v.to_string()
}

fn with(key: &str, value: serde_json::Value) -> String {
    let mut v: serde_json::Value = serde_json::from_str(SMALL).unwrap();
    v.as_object_mut().unwrap().insert(key.into(), value);
    v.to_string()
}

#[test]
fn a_small_llama_counts_by_hand() {
    let d = derive(SMALL).unwrap();
    // Embedding and head: 2 x 100 x 64 = 12,800. Per layer: q 64x64 =
    // 4,096, k and v 64x32 = 2,048 each, o 4,096 -> 12,288; MLP 3 x 64 x
    // 128 = 24,576; two RMS norms 128 -> 36,992; x 2 = 73,984. Final norm
    // 64. Total 12,800 + 73,984 + 64 = 86,848.
    assert_eq!(d.params, 86_848);
    assert_eq!(d.family, Family::Llama);
    assert_eq!(d.decoder.head_dim, 16);
    assert_eq!(d.decoder.kv_heads, 2);
    assert!(!d.decoder.tied_embeddings);
    assert_eq!(d.weights.unwrap().precision, Precision::Bf16);
    // tie_word_embeddings is left out: LlamaConfig's default, marked.
    let tie = d
        .used
        .iter()
        .find(|u| u.key == "tie_word_embeddings")
        .unwrap();
    assert_eq!(tie.value, "false");
    assert!(tie.default.as_deref().unwrap().contains("LlamaConfig"));
}

#[test]
fn a_missing_key_is_an_error_naming_it() {
    for (key, named) in [
        ("num_hidden_layers", "num_hidden_layers"),
        ("hidden_size", "hidden_size"),
        ("num_attention_heads", "num_attention_heads"),
        ("vocab_size", "vocab_size"),
        ("intermediate_size", "intermediate_size"),
        ("max_position_embeddings", "max_position_embeddings"),
    ] {
        let e = derive(&without(key)).unwrap_err();
        assert!(
            matches!(&e, HfError::Missing { key: k, .. } if k == named),
            "{key}: {e:?}"
        );
        assert!(e.to_string().contains(&format!("`{named}`")), "{e}");
    }
}

#[test]
fn bad_values_are_errors_naming_the_key() {
    let e = derive(&with("num_hidden_layers", serde_json::json!(0))).unwrap_err();
    assert!(e.to_string().contains("num_hidden_layers"), "{e}");
    let e = derive(&with("hidden_size", serde_json::json!("big"))).unwrap_err();
    assert!(e.to_string().contains("`hidden_size` = \"big\""), "{e}");
    let e = derive(&with("num_key_value_heads", serde_json::json!(3))).unwrap_err();
    assert!(e.to_string().contains("num_key_value_heads"), "{e}");
    // A null counts as absent (configs write "head_dim": null).
    assert!(derive(&with("head_dim", serde_json::Value::Null)).is_ok());
    assert!(matches!(derive("[1, 2]"), Err(HfError::NotObject)));
    let e = derive("{ \"model_type\": ").unwrap_err();
    assert!(matches!(e, HfError::Json { line: 1, .. }), "{e:?}");
}

#[test]
fn encoders_are_refused() {
    let e = derive(&with("model_type", serde_json::json!("bert"))).unwrap_err();
    assert!(matches!(e, HfError::Unsupported(_)), "{e:?}");
    let e = derive(&with("is_encoder_decoder", serde_json::json!(true))).unwrap_err();
    assert!(e.to_string().contains("is_encoder_decoder"), "{e}");
}

#[test]
fn an_unknown_model_type_is_derived_generically_with_a_note() {
    let d = derive(&with("model_type", serde_json::json!("my_decoder"))).unwrap();
    assert_eq!(d.family, Family::Generic);
    // The same layer as a Llama: the same count.
    assert_eq!(d.params, 86_848);
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("\"my_decoder\"") && n.contains("generically")),
        "{:?}",
        d.notes
    );
    // With experts under a generic name it is an MoE: 4 experts of 128,
    // top 2. Per layer the MLP becomes 4 x 24,576 = 98,304 plus a router
    // 4 x 64 = 256: +73,984 per layer, total 86,848 + 2 x 73,984 = 234,816;
    // active drops 2 idle experts per layer: 234,816 - 2 x 2 x 24,576 =
    // 136,512.
    let mut v: serde_json::Value = serde_json::from_str(SMALL).unwrap();
    let o = v.as_object_mut().unwrap();
    o.insert("model_type".into(), "my_moe".into());
    o.insert("num_local_experts".into(), 4.into());
    o.insert("num_experts_per_tok".into(), 2.into());
    let d = derive(&v.to_string()).unwrap();
    assert_eq!(d.params, 234_816);
    assert_eq!(d.active, Some(136_512));
}

#[test]
fn weight_precisions_from_quantization_and_dtype() {
    let q = |cfg: serde_json::Value| {
        derive(&with("quantization_config", cfg))
            .unwrap()
            .weights
            .unwrap()
            .precision
    };
    use serde_json::json;
    assert_eq!(
        q(json!({"quant_method": "awq", "bits": 4})),
        Precision::Int4
    );
    assert_eq!(
        q(json!({"quant_method": "gptq", "bits": 4})),
        Precision::Int4
    );
    assert_eq!(
        q(json!({"quant_method": "gptq", "bits": 8})),
        Precision::Int8
    );
    assert_eq!(
        q(json!({"quant_method": "fp8", "fmt": "e4m3"})),
        Precision::Fp8
    );
    assert_eq!(q(json!({"quant_method": "mxfp4"})), Precision::Fp4);
    assert_eq!(
        q(json!({"quant_method": "bitsandbytes", "load_in_4bit": true})),
        Precision::Int4
    );
    assert_eq!(
        q(json!({"quant_method": "bitsandbytes", "load_in_8bit": true})),
        Precision::Int8
    );
    assert_eq!(
        q(
            json!({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}}}})
        ),
        Precision::Fp8
    );
    // An unknown method falls back to torch_dtype, with a note.
    let d = derive(&with(
        "quantization_config",
        json!({"quant_method": "magic"}),
    ))
    .unwrap();
    assert_eq!(d.weights.unwrap().precision, Precision::Bf16);
    assert!(d.notes.iter().any(|n| n.contains("\"magic\"")));
    let dtype = |t: &str| {
        derive(&with("torch_dtype", json!(t)))
            .unwrap()
            .weights
            .map(|w| w.precision)
    };
    assert_eq!(dtype("float16"), Some(Precision::Fp16));
    assert_eq!(dtype("float32"), Some(Precision::Fp32));
    assert_eq!(derive(&without("torch_dtype")).unwrap().weights, None);
}

#[test]
fn the_entry_loads_back_unchanged() {
    let d = derive(SMALL).unwrap();
    let who = Identity {
        id: "small-llama".into(),
        name: "Small \"Llama\"".into(),
        source: "/tmp/small/config.json".into(),
        year: 2026,
    };
    let e = d.entry(&who).unwrap();
    assert_eq!(e.model.id, "small-llama");
    assert_eq!(e.model.name, "Small \"Llama\"");
    assert_eq!(e.model.params, 86_848.0);
    assert_eq!(e.model.arch, crate::solver::Arch::Decoder(d.decoder));
    assert_eq!(e.weights, Some(Precision::Bf16));
    assert_eq!(e.family, "imported");
    // A bad id is the catalog's error, not a half-made entry.
    let bad = Identity {
        id: "Not Kebab".into(),
        ..who
    };
    assert!(matches!(d.entry(&bad), Err(HfError::Catalog(_))));
}

#[test]
fn a_layer_count_out_of_range_is_named_before_anything_is_derived() {
    // DeepSeek-style (leading dense layers, MoE every layer after) and
    // Qwen-MoE-style (sparse step, dense-layer list) configs with 10^6 and
    // 10^9 layers: past the catalog's 100,000 (catalog/SCHEMA.md), refused
    // naming num_hidden_layers, not the hidden size the count would blame.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf");
    for arch in ["deepseek-v3", "qwen1.5-moe-a2.7b"] {
        let text = std::fs::read_to_string(dir.join(arch).join("config.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for layers in [1_000_000u64, 1_000_000_000] {
            v["num_hidden_layers"] = serde_json::json!(layers);
            let e = derive(&v.to_string()).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("`num_hidden_layers` = {layers}")),
                "{arch}: {e}"
            );
            assert!(e.contains("from 1 to 100000"), "{arch}: {e}");
        }
    }
    let e = derive(&with("vocab_size", serde_json::json!(200_000_000))).unwrap_err();
    assert!(e.to_string().starts_with("`vocab_size` = 200000000"), "{e}");
}
