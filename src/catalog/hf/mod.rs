//! Models from a Hugging Face `config.json`: the text of a config to a
//! catalog model entry (pure: [`derive`], [`Derivation::entry_toml`]), and
//! the files around it (`load`: a config file or a snapshot directory, its
//! `model.safetensors.index.json`, a model added to a catalog).
//!
//! The derivation reads the architecture's figures under whichever names
//! its config uses, takes the documented defaults of its transformers
//! configuration class for keys published configs leave out (each one
//! listed as a default), and counts the parameters from the shape
//! (`count`). A key it needs and cannot default is an error naming the key.

mod config;
mod count;
mod entry;
mod family;
pub mod load;
mod precision;
mod shape;
mod window;

pub use config::Used;
pub use count::Count;
pub use entry::Identity;
pub use family::Family;
pub use precision::Weights;

use crate::solver::{Decoder, Mla, ModelKind, Moe};
use std::fmt;

/// Why a config cannot be derived: each names the key and what to do.
#[derive(Debug, Clone, PartialEq)]
pub enum HfError {
    /// The text is not JSON.
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON is not an object of keys.
    NotObject,
    /// A key the derivation needs is absent (or null).
    Missing { key: String, what: String },
    /// A key holds a value that cannot be used.
    Invalid {
        key: String,
        value: String,
        expected: String,
    },
    /// Not a decoder-only language model.
    Unsupported(String),
    /// The derived entry does not pass the catalog's checks.
    Catalog(String),
}

impl fmt::Display for HfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HfError::Json {
                line,
                column,
                message,
            } => write!(f, "not JSON at line {line}, column {column}: {message}"),
            HfError::NotObject => f.write_str("the file is JSON but not an object of keys; a config.json is { \"model_type\": ..., \"hidden_size\": ..., ... }"),
            HfError::Missing { key, what } => write!(
                f,
                "the config has no `{key}` ({what}); add it to the config.json, or import a config that gives it"
            ),
            HfError::Invalid {
                key,
                value,
                expected,
            } => write!(f, "`{key}` = {value}: expected {expected}"),
            HfError::Unsupported(why) => f.write_str(why),
            HfError::Catalog(why) => write!(f, "the derived entry is not a valid catalog model: {why}"),
        }
    }
}

impl std::error::Error for HfError {}

/// What a config.json says about its model, derived.
#[derive(Debug, Clone, PartialEq)]
pub struct Derivation {
    pub family: Family,
    /// `model_type` as written (in `text_config` first), if any.
    pub model_type: Option<String>,
    /// The decoder's shape as the solver sees it.
    pub decoder: Decoder,
    pub count: Count,
    /// Total and (for MoE) active parameters; active includes the input
    /// embedding, as the catalog's `active_params`.
    pub params: u128,
    pub active: Option<u128>,
    /// The checkpoint's weight precision, if the config says.
    pub weights: Option<Weights>,
    /// Every key read, in the order read, defaults marked.
    pub used: Vec<Used>,
    /// What the reader should know (a generic derivation, parts not counted).
    pub notes: Vec<String>,
    /// The last part of `_name_or_path`, if any ("Llama-3.1-8B").
    pub name_hint: Option<String>,
}

impl Derivation {
    pub fn kind(&self) -> ModelKind {
        if self.decoder.moe.is_some() {
            ModelKind::MoeDecoder
        } else {
            ModelKind::DenseDecoder
        }
    }

    /// KV cache bytes per token at `bytes` per element (the solver's rule,
    /// windows not applied).
    pub fn kv_bytes_per_token(&self, bytes: f64) -> f64 {
        self.decoder.kv_bytes_per_token(bytes)
    }
}

/// The largest parameter count a catalog entry takes (catalog/SCHEMA.md).
const MAX_PARAMS: u128 = 1_000_000_000_000_000;

/// Derive a model from the text of a config.json. Pure: no files, no clock.
pub fn derive(text: &str) -> Result<Derivation, HfError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| HfError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let root = value.as_object().ok_or(HfError::NotObject)?;
    let mut cfg = config::Config::new(root);
    let model_type = cfg.text(&["model_type"]);
    if let Some(t) = &model_type
        && Family::not_a_decoder(t)
    {
        return Err(HfError::Unsupported(format!(
            "model_type {t:?} is not a decoder-only language model; ridgeline imports decoders (Llama, Qwen, Gemma, DeepSeek, GPT-2, ...)"
        )));
    }
    if cfg.opt_flag("is_encoder_decoder")? == Some(true) {
        return Err(HfError::Unsupported(
            "is_encoder_decoder is true: ridgeline imports decoder-only language models".into(),
        ));
    }
    let family = Family::of(
        model_type.as_deref(),
        cfg.first_of_list("architectures").as_deref(),
    );
    let mut s = shape::read(&mut cfg, family)?;
    let count = count::count(&s);
    let params = count.total();
    if params > MAX_PARAMS {
        return Err(HfError::Invalid {
            key: "hidden_size".into(),
            value: format!("a model of {params} parameters"),
            expected: "at most 1e15 parameters (catalog/SCHEMA.md)".into(),
        });
    }
    let mut notes = std::mem::take(&mut s.notes);
    notes.extend(context_notes(&mut cfg, family, model_type.as_deref())?);
    let weights = precision::read(&mut cfg, &mut notes);
    let active = s.moe.map(|_| count.active(&s));
    let decoder = decoder_of(&s, active);
    let name_hint = cfg
        .peek_text("_name_or_path")
        .and_then(|p| {
            p.trim_end_matches('/')
                .rsplit('/')
                .next()
                .map(str::to_string)
        })
        .filter(|n| !n.trim().is_empty());
    Ok(Derivation {
        family,
        model_type,
        decoder,
        count,
        params,
        active,
        weights,
        used: cfg.used,
        notes,
        name_hint,
    })
}

/// Notes on what the count leaves out or assumes.
fn context_notes(
    cfg: &mut config::Config,
    family: Family,
    model_type: Option<&str>,
) -> Result<Vec<String>, HfError> {
    let mut notes = Vec::new();
    if family == Family::Generic {
        notes.push(format!(
            "model_type {} is not one ridgeline knows: derived generically as a Llama-like decoder (gated MLP, RMS norms, biases only where attention_bias/mlp_bias say); check the counts against the model card",
            model_type.map_or("(none)".to_string(), |t| format!("{t:?}"))
        ));
    }
    if cfg.nested() {
        notes.push(
            "the text model of text_config; a vision tower (vision_config) is not counted".into(),
        );
    }
    if family.mla()
        && let Some(n) = cfg.count(&["num_nextn_predict_layers"])?.filter(|n| *n > 0)
    {
        notes.push(format!(
            "the {n} multi-token-prediction layer(s) (num_nextn_predict_layers) shipped with the checkpoint are not counted: they are not used to decode"
        ));
    }
    Ok(notes)
}

/// The solver's decoder for a shape.
fn decoder_of(s: &shape::Shape, active: Option<u128>) -> Decoder {
    let moe = s.moe.map(|m| {
        let dense_layers = s.layers - m.moe_layers;
        Moe {
            experts: m.experts,
            top_k: m.top_k,
            active_params: active.unwrap_or(0) as f64,
            shared_ffn: m.shared_ffn,
            dense_layers,
            dense_ffn: if dense_layers > 0 { s.ffn } else { 0 },
        }
    });
    Decoder {
        layers: s.layers,
        hidden: s.hidden,
        heads: s.heads,
        kv_heads: s.kv_heads,
        head_dim: s.head_dim,
        ffn: s.moe.map_or(s.ffn, |m| m.expert_ffn),
        vocab: s.vocab,
        tied_embeddings: s.tied,
        max_context: s.max_context,
        moe,
        mla: s.mla.map(|m| Mla {
            kv_latent: m.kv_lora,
            rope_dim: m.rope,
            q_latent: m.q_lora.unwrap_or(0),
        }),
        gated_mlp: s.gated,
        window: s.window,
    }
}

#[cfg(test)]
mod tests;
