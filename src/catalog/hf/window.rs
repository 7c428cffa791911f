//! Sliding-window (local) attention: which layers of a config attend to a
//! window of past tokens, and how wide it is. `layer_types` when the
//! config lists them; else each architecture's own rule, as transformers
//! applies it.

use super::HfError;
use super::config::Config;
use super::family::Family;
use crate::solver::Window;

/// The window of the local layers, None when every layer is global.
pub fn read(
    cfg: &mut Config,
    f: Family,
    layers: u32,
    max_context: u32,
    notes: &mut Vec<String>,
) -> Result<Option<Window>, HfError> {
    let local = match cfg.strings("layer_types")? {
        Some(types) => {
            if types.len() != layers as usize {
                return Err(HfError::Invalid {
                    key: "layer_types".into(),
                    value: format!("{} entries", types.len()),
                    expected: format!("one per layer ({layers})"),
                });
            }
            types.iter().filter(|t| t.contains("sliding")).count() as u32
        }
        None => match local_layers(cfg, f, layers)? {
            Some(n) => n,
            None => return Ok(None),
        },
    };
    if local == 0 {
        return Ok(None);
    }
    let fallback = match f {
        Family::Gemma3 => Some((4096, "Gemma3TextConfig default".to_string())),
        _ => None,
    };
    let tokens = cfg.need(
        &["sliding_window", "sliding_window_size"],
        "the sliding-window width of the local layers",
        fallback,
    )?;
    if tokens >= max_context {
        notes.push(format!(
            "the sliding window ({tokens} tokens) is no shorter than the context ({max_context}): every layer attends to the whole context"
        ));
        return Ok(None);
    }
    Ok(Some(Window {
        tokens,
        layers: local,
    }))
}

/// Local layers by each architecture's rule (no `layer_types`), None when
/// the architecture has no sliding window or the config turns it off.
fn local_layers(cfg: &mut Config, f: Family, layers: u32) -> Result<Option<u32>, HfError> {
    let has_window = |cfg: &mut Config| -> Result<bool, HfError> {
        Ok(cfg.count(&["sliding_window"])?.is_some_and(|w| w > 0))
    };
    Ok(match f {
        // Every layer local when a window is set (Mistral 7B v0.1 and
        // Phi-3 mini set one; later Mistrals write null).
        Family::Mistral | Family::Mixtral | Family::Phi3 => has_window(cfg)?.then_some(layers),
        // Qwen: only with use_sliding_window, and then the layers from
        // max_window_layers on.
        Family::Qwen2 | Family::Qwen2Moe | Family::Qwen3 | Family::Qwen3Moe => {
            if !cfg.flag("use_sliding_window", (false, "Qwen config default"))? {
                return Ok(None);
            }
            let from = cfg.count(&["max_window_layers"])?.unwrap_or(28).min(layers);
            Some(layers - from)
        }
        // Gemma 2 and gpt-oss: every other layer, from the first.
        Family::Gemma2 | Family::GptOss => Some(layers.div_ceil(2)),
        // Gemma 3: five local layers to one global (the pattern's last).
        Family::Gemma3 => {
            let p = cfg.need(
                &["sliding_window_pattern"],
                "local layers per global one",
                Some((6, "Gemma3TextConfig default".into())),
            )?;
            Some(layers - layers / p)
        }
        Family::Generic => {
            let on = cfg.opt_flag("use_sliding_window")?.unwrap_or(true);
            (on && has_window(cfg)?).then_some(layers)
        }
        _ => None,
    })
}
