//! A config.json to the shape of its decoder: the figures every config
//! gives (layers, widths, heads, vocabulary) under whichever names its
//! architecture uses, and what the architecture adds (biases, norms,
//! experts, latent attention, sliding windows).

use super::HfError;
use super::config::{Config, Fallback};
use super::family::{Biases, Family};
use crate::catalog::limits;
use crate::solver::Window;

/// Multi-head latent attention as a config writes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MlaShape {
    /// q_lora_rank; None = the query is projected directly.
    pub q_lora: Option<u32>,
    pub kv_lora: u32,
    pub nope: u32,
    pub rope: u32,
    pub v_head: u32,
}

/// The experts of an MoE decoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoeShape {
    pub experts: u32,
    pub top_k: u32,
    /// Intermediate width of one routed expert.
    pub expert_ffn: u32,
    /// Summed intermediate width of the shared experts (0 = none).
    pub shared_ffn: u32,
    /// A one-output gate on the shared expert (Qwen2-MoE).
    pub shared_gate: bool,
    /// Biases: on the router (gpt-oss), on the experts' projections
    /// (gpt-oss), a per-expert score correction (DeepSeek-V3).
    pub router_bias: bool,
    pub expert_bias: bool,
    pub score_bias: bool,
    /// Layers with routed experts; the rest have a dense MLP of `ffn`.
    pub moe_layers: u32,
}

/// Everything the parameter count and the catalog entry need.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub family: Family,
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub vocab: u32,
    pub max_context: u32,
    /// Width of a dense MLP (the dense layers of an MoE too).
    pub ffn: u32,
    pub tied: bool,
    /// Learned position embeddings (rows), 0 = none (rotary or ALiBi).
    pub positions: u32,
    pub biases: Biases,
    pub mlp_bias: bool,
    pub qk_norm: bool,
    /// One learned sink logit per head (gpt-oss).
    pub sinks: bool,
    /// Norms per layer, and whether each has a bias (LayerNorm).
    pub norms: u32,
    pub norm_bias: bool,
    pub gated: bool,
    pub mla: Option<MlaShape>,
    pub moe: Option<MoeShape>,
    pub window: Option<Window>,
    pub notes: Vec<String>,
}

/// A default from the architecture's configuration class.
fn class_default<T>(family: Family, v: T) -> Fallback<T> {
    Some((v, format!("{} default", family.config_class())))
}

/// Read the shape of the decoder a config describes.
pub fn read(cfg: &mut Config, family: Family) -> Result<Shape, HfError> {
    let f = family;
    let gemma3 = f == Family::Gemma3;
    let layers = cfg.need_in(
        &["num_hidden_layers", "n_layer", "num_layers"],
        "the number of layers",
        None,
        limits::LAYERS,
    )?;
    let hidden = cfg.need_in(
        &["hidden_size", "n_embd", "d_model"],
        "the hidden size",
        None,
        limits::HIDDEN,
    )?;
    let heads = cfg.need_in(
        &["num_attention_heads", "n_head", "num_heads"],
        "the number of attention heads",
        gemma3.then(|| class_default(f, 8)).flatten(),
        limits::HEADS,
    )?;
    let kv_heads = kv_heads(cfg, f, heads)?;
    let head_dim = head_dim(cfg, f, hidden, heads)?;
    let vocab = cfg.need_in(
        &["vocab_size", "padded_vocab_size"],
        "the vocabulary size",
        gemma3.then(|| class_default(f, 262_208)).flatten(),
        limits::VOCAB,
    )?;
    let max_context = max_context(cfg, f)?;
    let ffn = ffn(cfg, f, hidden)?;
    let tied = cfg.flag(
        "tie_word_embeddings",
        (
            f.tied_by_default(),
            &format!("{} default", f.config_class()),
        ),
    )?;
    let positions = if f == Family::Gpt2 { max_context } else { 0 };
    let mut shape = Shape {
        family: f,
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim,
        vocab,
        max_context,
        ffn,
        tied,
        positions,
        biases: Biases::default(),
        mlp_bias: false,
        qk_norm: f.qk_norm(),
        sinks: f == Family::GptOss,
        norms: f.norms_per_layer(),
        norm_bias: f.layer_norm(),
        gated: !f.plain_mlp(),
        mla: None,
        moe: None,
        window: None,
        notes: Vec::new(),
    };
    biases(cfg, &mut shape)?;
    if f.mla() {
        shape.mla = Some(mla(cfg)?);
        // The latent is expanded to every head: the catalog counts them all.
        shape.kv_heads = heads;
    }
    shape.moe = moe(cfg, f, layers)?;
    shape.window = super::window::read(cfg, f, layers, max_context, &mut shape.notes)?;
    Ok(shape)
}

/// KV heads: `num_key_value_heads` (GQA), Falcon's multi-query flags, else
/// every head (MHA), as transformers reads them.
fn kv_heads(cfg: &mut Config, f: Family, heads: u32) -> Result<u32, HfError> {
    let mha = Some((heads, "= num_attention_heads (no GQA key)".to_string()));
    if f == Family::Falcon {
        let new = cfg.flag("new_decoder_architecture", (false, "FalconConfig default"))?;
        if new {
            return cfg.need(&["num_kv_heads", "n_head_kv"], "KV heads", mha);
        }
        let multi = cfg.flag("multi_query", (true, "FalconConfig default"))?;
        return Ok(if multi { 1 } else { heads });
    }
    if matches!(f, Family::Gpt2 | Family::GptNeox) {
        return Ok(heads);
    }
    let fallback = match f {
        Family::Gemma3 => class_default(f, 4),
        _ => mha,
    };
    let kv = cfg.need(
        &["num_key_value_heads", "num_kv_heads", "n_head_kv"],
        "KV heads",
        fallback,
    )?;
    if kv > heads || !heads.is_multiple_of(kv) {
        return Err(HfError::Invalid {
            key: "num_key_value_heads".into(),
            value: kv.to_string(),
            expected: format!("a divisor of num_attention_heads = {heads}"),
        });
    }
    Ok(kv)
}

/// The per-head dimension: `head_dim` when given (Gemma, Qwen3 and gpt-oss
/// set it apart from hidden/heads), the no-RoPE part of an MLA head, else
/// hidden/heads.
fn head_dim(cfg: &mut Config, f: Family, hidden: u32, heads: u32) -> Result<u32, HfError> {
    if f.mla() {
        return cfg.need(
            &["qk_nope_head_dim"],
            "the per-head query/key dimension without RoPE",
            None,
        );
    }
    if let Some(d) = cfg.count(&["head_dim"])? {
        if d == 0 {
            return Err(HfError::Invalid {
                key: "head_dim".into(),
                value: "0".into(),
                expected: "at least 1".into(),
            });
        }
        return Ok(d);
    }
    if f == Family::Gemma3 {
        return cfg.need(&["head_dim"], "the head dimension", class_default(f, 256));
    }
    if !hidden.is_multiple_of(heads) {
        return Err(HfError::Missing {
            key: "head_dim".into(),
            what: format!(
                "the head dimension: hidden size {hidden} is not a multiple of {heads} heads"
            ),
        });
    }
    Ok(hidden / heads)
}

/// The longest context: `max_position_embeddings` under its names.
fn max_context(cfg: &mut Config, f: Family) -> Result<u32, HfError> {
    let fallback = match f {
        Family::Gemma3 => class_default(f, 131_072),
        Family::Falcon => class_default(f, 2048),
        _ => None,
    };
    cfg.need(
        &[
            "max_position_embeddings",
            "n_positions",
            "max_sequence_length",
            "seq_length",
            "n_ctx",
        ],
        "the maximum context (position embeddings)",
        fallback,
    )
}

/// The dense MLP width: `intermediate_size`, GPT-2's `n_inner` and
/// Falcon's `ffn_hidden_size` (both 4 x hidden when absent).
fn ffn(cfg: &mut Config, f: Family, hidden: u32) -> Result<u32, HfError> {
    let four = Some((
        hidden.saturating_mul(4),
        format!("4 x hidden ({} default)", f.config_class()),
    ));
    match f {
        Family::Gpt2 => cfg.need(&["n_inner"], "the MLP width", four),
        Family::Falcon => cfg.need(&["ffn_hidden_size"], "the MLP width", four),
        _ => cfg.need(
            &["intermediate_size", "ffn_dim", "n_inner"],
            "the MLP (intermediate) width",
            None,
        ),
    }
}

/// Biases and norm layout, as each architecture builds its layers.
fn biases(cfg: &mut Config, s: &mut Shape) -> Result<(), HfError> {
    let f = s.family;
    let both = |b: bool| Biases { qkv: b, out: b };
    match f {
        Family::Gpt2 => {
            s.biases = both(true);
            s.mlp_bias = true;
        }
        Family::GptNeox => {
            let b = cfg.flag("attention_bias", (true, "GPTNeoXConfig default"))?;
            s.biases = both(b);
            s.mlp_bias = true;
        }
        Family::Falcon => {
            let b = cfg.flag("bias", (false, "FalconConfig default"))?;
            s.biases = both(b);
            s.mlp_bias = b;
            s.norms = falcon_norms(cfg)?;
        }
        // q, k and v carry biases, the output projection none.
        Family::Qwen2 | Family::Qwen2Moe => {
            s.biases = Biases {
                qkv: true,
                out: false,
            }
        }
        Family::Phi3 => {}
        Family::GptOss => {
            let b = cfg.flag("attention_bias", (true, "GptOssConfig default"))?;
            s.biases = both(b);
        }
        _ => {
            let b = cfg.flag(
                "attention_bias",
                (false, &format!("{} default", f.config_class())),
            )?;
            s.biases = both(b);
            if matches!(f, Family::Llama | Family::Generic) {
                s.mlp_bias = cfg.opt_flag("mlp_bias")?.unwrap_or(false);
            }
        }
    }
    Ok(())
}

/// Falcon's norms per layer: two (attention and MLP) in the new decoder
/// layout and when attention and MLP run one after the other, one shared
/// input norm when they run in parallel (Falcon-7B).
fn falcon_norms(cfg: &mut Config) -> Result<u32, HfError> {
    let parallel = cfg.flag("parallel_attn", (true, "FalconConfig default"))?;
    if !parallel {
        return Ok(2);
    }
    let new = cfg.flag("new_decoder_architecture", (false, "FalconConfig default"))?;
    let given = cfg.count(&["num_ln_in_parallel_attn"])?;
    Ok(match (new, given) {
        (_, Some(n)) => n.clamp(1, 2),
        (true, None) => 2,
        (false, None) => 1,
    })
}

/// The ranks and head dimensions of multi-head latent attention.
fn mla(cfg: &mut Config) -> Result<MlaShape, HfError> {
    let q_lora = cfg.count(&["q_lora_rank"])?.filter(|&r| r > 0);
    if q_lora.is_none() {
        cfg.note_used(
            "q_lora_rank".into(),
            "null (queries projected directly)".into(),
        );
    }
    Ok(MlaShape {
        q_lora,
        kv_lora: cfg.need(&["kv_lora_rank"], "the KV latent rank", None)?,
        nope: cfg.need(&["qk_nope_head_dim"], "the query/key head dim", None)?,
        rope: cfg.need(&["qk_rope_head_dim"], "the RoPE head dim", None)?,
        v_head: cfg.need(&["v_head_dim"], "the value head dim", None)?,
    })
}

/// The routed and shared experts, and which layers have them.
fn moe(cfg: &mut Config, f: Family, layers: u32) -> Result<Option<MoeShape>, HfError> {
    let keys = f.expert_keys();
    if keys.is_empty() {
        return Ok(None);
    }
    let experts = match cfg.count(keys)? {
        Some(e) if e >= 2 => e,
        _ if f == Family::Generic => return Ok(None),
        Some(e) => {
            return Err(HfError::Invalid {
                key: keys[0].into(),
                value: e.to_string(),
                expected: "at least 2 routed experts".into(),
            });
        }
        None => {
            return Err(HfError::Missing {
                key: keys[0].into(),
                what: "the number of routed experts".into(),
            });
        }
    };
    let top_k = cfg.need(
        &["num_experts_per_tok", "experts_per_token", "moe_topk"],
        "the experts each token is routed to",
        None,
    )?;
    if top_k >= experts {
        return Err(HfError::Invalid {
            key: "num_experts_per_tok".into(),
            value: top_k.to_string(),
            expected: format!("fewer than the {experts} experts"),
        });
    }
    let expert_ffn = match f {
        Family::Mixtral | Family::GptOss => {
            cfg.need(&["intermediate_size"], "the expert width", None)?
        }
        _ => cfg.need(
            &["moe_intermediate_size", "intermediate_size"],
            "the expert width",
            None,
        )?,
    };
    let (shared_ffn, shared_gate) = shared(cfg, f, expert_ffn)?;
    let moe_layers = moe_layers(cfg, f, layers)?;
    Ok(Some(MoeShape {
        experts,
        top_k,
        expert_ffn,
        shared_ffn,
        shared_gate,
        router_bias: f == Family::GptOss,
        expert_bias: f == Family::GptOss,
        score_bias: f == Family::DeepseekV3,
        moe_layers,
    }))
}

/// Shared experts: DeepSeek's `n_shared_experts` of the expert width,
/// Qwen2-MoE's one of `shared_expert_intermediate_size` behind a gate.
fn shared(cfg: &mut Config, f: Family, expert_ffn: u32) -> Result<(u32, bool), HfError> {
    match f {
        Family::DeepseekV2 | Family::DeepseekV3 | Family::Generic => {
            let n = cfg.count(&["n_shared_experts"])?.unwrap_or(0);
            Ok((n.saturating_mul(expert_ffn), false))
        }
        Family::Qwen2Moe => {
            let w = cfg
                .count(&["shared_expert_intermediate_size"])?
                .unwrap_or(0);
            Ok((w, w > 0))
        }
        _ => Ok((0, false)),
    }
}

/// How many layers route to experts: DeepSeek's leading dense layers
/// (`first_k_dense_replace`) and `moe_layer_freq`; Qwen's
/// `decoder_sparse_step` and `mlp_only_layers`; every layer otherwise.
fn moe_layers(cfg: &mut Config, f: Family, layers: u32) -> Result<u32, HfError> {
    match f {
        Family::DeepseekV2 | Family::DeepseekV3 => {
            let first = cfg.count(&["first_k_dense_replace"])?.unwrap_or(0);
            let freq = cfg.count(&["moe_layer_freq"])?.unwrap_or(1).max(1);
            Ok((0..layers).filter(|i| *i >= first && i % freq == 0).count() as u32)
        }
        Family::Qwen2Moe | Family::Qwen3Moe => {
            let step = cfg.count(&["decoder_sparse_step"])?.unwrap_or(1).max(1);
            let dense: std::collections::HashSet<u32> = cfg
                .counts("mlp_only_layers")?
                .unwrap_or_default()
                .into_iter()
                .collect();
            Ok((0..layers)
                .filter(|i| !dense.contains(i) && (i + 1) % step == 0)
                .count() as u32)
        }
        _ => Ok(layers),
    }
}
