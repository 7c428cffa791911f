//! A derivation as a catalog `[[model]]` entry: the TOML text the catalog
//! loader reads (catalog/SCHEMA.md), and that entry loaded back.

use super::{Derivation, HfError};
use crate::catalog::{Catalog, ModelEntry};
use crate::solver::units;
use std::fmt::Write;

/// The family every imported entry is listed under (the workbench's model
/// picker groups by family, so imported models sit together, marked).
pub const FAMILY: &str = "imported";

/// What the config does not say: the entry's id, name, source and year.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub id: String,
    pub name: String,
    /// Where the config came from (its path).
    pub source: String,
    /// The year of the import (config.json carries no release date).
    pub year: u16,
}

/// A TOML string literal.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Lower-case kebab case, as catalog ids are: "Llama-3.1-8B" ->
/// "llama-3.1-8b"; None if nothing of it is left.
pub fn kebab(s: &str) -> Option<String> {
    let mut out = String::new();
    for c in s.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches(|c| c == '-' || c == '.').to_string();
    (!out.is_empty()).then_some(out)
}

impl Derivation {
    /// Notes for the entry: how it was derived and what it leaves out.
    fn entry_notes(&self) -> String {
        let c = &self.count;
        let p = |x: u128| units::format_params(x as f64);
        let mut parts = vec![format!(
            "Derived from config.json by ridgeline ({} rules{}): embedding {}{}, attention {}, MLP {}",
            self.family.name(),
            self.model_type
                .as_ref()
                .map_or(String::new(), |t| format!(", model_type {t:?}")),
            p(c.embedding),
            if c.head > 0 {
                format!(" + output head {}", p(c.head))
            } else {
                " (tied to the output head)".into()
            },
            p(c.attention),
            p(c.mlp + c.experts + c.shared),
        )];
        if let Some(w) = &self.weights {
            parts.push(format!("weights {} from {}", w.precision, w.from));
        }
        parts.extend(self.notes.iter().cloned());
        parts.join("; ")
    }

    /// The catalog entry as TOML, one `[[model]]` table.
    pub fn entry_toml(&self, who: &Identity) -> String {
        let d = &self.decoder;
        let mut t = String::from("[[model]]\n");
        let mut kv = |k: &str, v: String| {
            let _ = writeln!(t, "{k} = {v}");
        };
        kv("id", quoted(&who.id));
        kv("name", quoted(&who.name));
        kv("family", quoted(FAMILY));
        kv("kind", quoted(self.kind().name()));
        kv("year", who.year.to_string());
        kv("source", quoted(&who.source));
        kv("notes", quoted(&self.entry_notes()));
        kv("params", self.params.to_string());
        kv("layers", d.layers.to_string());
        kv("hidden", d.hidden.to_string());
        kv("heads", d.heads.to_string());
        kv("kv_heads", d.kv_heads.to_string());
        kv("head_dim", d.head_dim.to_string());
        kv("ffn", d.ffn.to_string());
        kv("vocab", d.vocab.to_string());
        kv("tied_embeddings", d.tied_embeddings.to_string());
        kv("max_context", d.max_context.to_string());
        kv("gated_mlp", d.gated_mlp.to_string());
        if let (Some(m), Some(active)) = (d.moe, self.active) {
            kv("experts", m.experts.to_string());
            kv("top_k", m.top_k.to_string());
            kv("active_params", active.to_string());
            if m.shared_ffn > 0 {
                kv("shared_ffn", m.shared_ffn.to_string());
            }
            if m.dense_layers > 0 {
                kv("dense_layers", m.dense_layers.to_string());
                kv("dense_ffn", m.dense_ffn.to_string());
            }
        }
        if let Some(m) = d.mla {
            kv("kv_latent", m.kv_latent.to_string());
            kv("rope_dim", m.rope_dim.to_string());
            if m.q_latent > 0 {
                kv("q_latent", m.q_latent.to_string());
            }
        }
        if let Some(w) = d.window {
            kv("sliding_window", w.tokens.to_string());
            kv("window_layers", w.layers.to_string());
        }
        if let Some(w) = &self.weights {
            kv("weights", quoted(w.precision.name()));
        }
        t
    }

    /// The entry loaded by the catalog loader from [`Self::entry_toml`]:
    /// what a catalog holds after an import. A problem the loader finds
    /// (an id that is not kebab case, a figure out of range) is an error.
    pub fn entry(&self, who: &Identity) -> Result<ModelEntry, HfError> {
        let text = self.entry_toml(who);
        let mut c = Catalog::default();
        c.add_model_file(&who.source, &text);
        if let Some(d) = c.diagnostics.first() {
            return Err(HfError::Catalog(d.message.clone()));
        }
        c.models
            .pop()
            .ok_or_else(|| HfError::Catalog("the loader read no entry".into()))
    }
}
