//! `ridgeline import PATH [--id ID] [--name NAME]`: derive a model from a
//! Hugging Face config.json and write it into the user catalog
//! (`<config>/catalog/models/imported.toml`, or `--catalog DIR`'s
//! `models/imported.toml`), atomically: an entry of the same id is
//! replaced (without `--id`, so is the entry imported before from the same
//! config, see [`load::same_config`]), every other byte kept as written; a
//! file that does not parse is left alone and the import refused. Also the
//! summary of a derivation that `--model PATH` prints.

use super::args::{Format, ImportArgs};
use super::{CliError, Out, write};
use crate::catalog::hf::load::{self, Imported};
use crate::catalog::hf::{Derivation, Identity};
use crate::catalog::{self, Catalog, fields::printable};
use crate::fsutil;
use crate::solver::units;
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The file imports are written to, in the user catalog's `models/`.
pub const FILE: &str = "imported.toml";

/// Run `ridgeline import`.
pub fn import(
    cli: &super::args::Cli,
    a: &ImportArgs,
    style: super::output::Style,
    out: Out,
    err: Out,
) -> Result<(), CliError> {
    let dir = super::catalog_dir(cli)?.ok_or_else(|| {
        CliError::Input(
            "import: there is no config directory to write to; set RIDGELINE_CONFIG_DIR or give --catalog DIR".into(),
        )
    })?;
    let cat = super::load_catalog(cli, &super::args::Command::Import(a.clone()), err)?;
    let imported = load::read(&a.path).map_err(|e| CliError::Input(format!("import: {e}")))?;
    let target = target(&dir);
    let (who, note) = identity(&cat, &imported, a, &target)?;
    let entry = imported.derivation.entry_toml(&who);
    imported
        .derivation
        .entry(&who)
        .map_err(|e| CliError::Input(format!("import: {e}")))?;
    let old = existing(&target)?;
    let (text, replaced) = splice(old.as_deref(), &who.id, &entry);
    check_kept(old.as_deref(), &text, &who.id, &target)?;
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            CliError::Output(format!(
                "import: cannot create {}: {e}",
                printable(&parent.display().to_string())
            ))
        })?;
    }
    let written = fsutil::write_atomic(&target, text.as_bytes()).map_err(|e| {
        CliError::Output(format!(
            "import: {}: {e}; nothing was written",
            printable(&target.display().to_string())
        ))
    })?;
    let action = if replaced { "replaced" } else { "added" };
    match Format::from(a.format) {
        Format::Json => {
            let mut rec = record(&imported, &who);
            rec.insert("file".into(), json!(written.file.display().to_string()));
            rec.insert("action".into(), json!(action));
            rec.insert("note".into(), json!(note));
            let s = super::output::json_text(&Value::Object(rec));
            write(out, &format!("{s}\n"))
        }
        _ => {
            let mut s = format!(
                "{action} model `{}` in {}\n",
                who.id,
                printable(&written.file.display().to_string())
            );
            if let Some(n) = note {
                s.push_str(&format!("note: {n}\n"));
            }
            s.push_str(&summary(&imported, &who.id).join("\n"));
            s.push('\n');
            s.push_str(&keys_used(&imported.derivation));
            write(out, &super::output::wrap(&s, style.width))
        }
    }
}

/// The id and name of the entry: `--id` as given (lower-case kebab case),
/// else the id of the entry of `target` imported before from the same
/// config ([`load::same_config`]), else the default id, with `-imported`
/// added when another catalog entry than one of `target` holds it. A given
/// id another user file holds is refused (the catalog would skip the
/// second one). The name is `--name`, else the replaced entry's, else the
/// one read off `--id` or the config.
fn identity(
    cat: &Catalog,
    imported: &Imported,
    a: &ImportArgs,
    target: &Path,
) -> Result<(Identity, Option<String>), CliError> {
    let id = a.id.as_deref();
    for (flag, given) in [("--id", id), ("--name", a.name.as_deref())] {
        let n = given.map_or(0, |g| g.trim().chars().count());
        if n > load::MAX_NAME_CHARS {
            return Err(CliError::Input(format!(
                "import: {flag} is {n} characters long; at most {} are accepted",
                load::MAX_NAME_CHARS
            )));
        }
    }
    let mut who = load::identity(imported, id);
    let given_name = match a.name.as_deref().map(str::trim) {
        Some("") => {
            return Err(CliError::Input(
                "import: --name is empty; give the name to show for the model, or leave out --name"
                    .into(),
            ));
        }
        Some(n) => {
            if let Some(c) = n.chars().find(|c| c.is_control()) {
                return Err(CliError::Input(format!(
                    "import: --name contains the control character U+{:04X}; give plain text (no tabs, line breaks or escape sequences)",
                    u32::from(c)
                )));
            }
            Some(n.to_string())
        }
        None => None,
    };
    if let Some(n) = &given_name {
        who.name.clone_from(n);
    }
    let ours = |origin: &str| Path::new(origin) == target;
    if id.is_none() {
        let fresh = imported
            .derivation
            .entry(&who)
            .map_err(|e| CliError::Input(format!("import: {e}")))?;
        let before = cat
            .models
            .iter()
            .find(|e| ours(&e.origin) && load::same_config(e, &who.source, &fresh));
        if let Some(e) = before {
            let note = (e.model.id != who.id).then(|| {
                format!(
                    "`{}` was imported before from this config; it is replaced (give --id to add another entry)",
                    e.model.id
                )
            });
            who.id.clone_from(&e.model.id);
            if given_name.is_none() {
                who.name.clone_from(&e.model.name);
            }
            return Ok((who, note));
        }
    }
    let existing = cat.model(&who.id).ok();
    let mut note = None;
    match (id, existing) {
        (_, None) => {}
        (_, Some(e)) if ours(&e.origin) && e.model.id == who.id => {
            // The same id from another config.json: replaced, as an id
            // decides, but said (a moved folder, a newer snapshot, or a
            // different model in a folder of the same name).
            if e.source != who.source {
                note = Some(format!(
                    "`{}` was imported from {}; this config replaces it (another --id keeps both)",
                    who.id,
                    printable(&e.source)
                ));
            }
        }
        (None, Some(_)) => {
            let free = free_id(cat, &who.id, target);
            note = Some(format!(
                "the catalog already has a model `{}`; this one is `{free}` (give --id to choose)",
                who.id
            ));
            who.id = free;
        }
        (Some(_), Some(e)) if !e.model.id.eq_ignore_ascii_case(&who.id) => {
            // The name is another model's alias: an entry of that id would
            // be skipped at every load.
            return Err(CliError::Input(format!(
                "import: --id {}: that is an alias of the model `{}` ({}), and an id cannot be another model's alias; give another --id",
                printable(&who.id),
                printable(&e.model.id),
                printable(&e.origin)
            )));
        }
        (Some(_), Some(e)) if Catalog::builtin().model(&who.id).is_ok() && !ours(&e.origin) => {
            note = Some(format!(
                "`{}` replaces the built-in model of that id for every command (remove it from {} to undo)",
                who.id,
                printable(&target.display().to_string())
            ));
        }
        (Some(_), Some(e)) => {
            return Err(CliError::Input(format!(
                "import: --id {}: the user catalog file {} already has a model by that name; give another --id",
                who.id,
                printable(&e.origin)
            )));
        }
    }
    Ok((who, note))
}

/// `id-imported`, `id-imported-2`, ... : the first name no entry holds but
/// one of `target` (which is replaced).
fn free_id(cat: &Catalog, id: &str, target: &Path) -> String {
    let taken = |n: &str| {
        cat.model(n)
            .is_ok_and(|e| Path::new(&e.origin) != target || e.model.id != n)
    };
    let base = format!("{id}-imported");
    let mut candidate = base.clone();
    let mut n = 2;
    while taken(&candidate) {
        candidate = format!("{base}-{n}");
        n += 1;
    }
    candidate
}

/// The text of the imports file, if there is one; one that cannot be read
/// or does not parse as TOML is refused, untouched.
fn existing(target: &Path) -> Result<Option<String>, CliError> {
    let text = match catalog::files::read_text(target) {
        Ok(t) => t,
        Err(catalog::files::ReadError::Missing) => return Ok(None),
        Err(e) => {
            return Err(CliError::Input(format!(
                "import: {}: {e}; nothing was written",
                printable(&target.display().to_string())
            )));
        }
    };
    if let Err(e) = text.parse::<toml::Table>() {
        return Err(CliError::Input(format!(
            "import: {} does not parse as TOML, so it was left as it is and nothing was written: {}; fix it (or move it away) and import again",
            printable(&target.display().to_string()),
            e.message()
        )));
    }
    Ok(Some(text))
}

const HEADER: &str = "# Models added by `ridgeline import` (catalog/SCHEMA.md). Each [[model]]\n# is replaced when the same id is imported again; edit freely.\n";

/// The imports file with `entry` in place of the `[[model]]` of the same
/// id, or added at the end; every other line kept. Whether it replaced one.
fn splice(old: Option<&str>, id: &str, entry: &str) -> (String, bool) {
    let Some(old) = old.filter(|o| !o.trim().is_empty()) else {
        return (format!("{HEADER}\n{entry}"), false);
    };
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| is_header(l))
        .map(|(i, _)| i)
        .collect();
    let mut out = String::new();
    let mut replaced = false;
    let preamble_end = starts.first().copied().unwrap_or(lines.len());
    out.extend(lines[..preamble_end].iter().copied());
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(lines.len());
        let block: String = lines[s..e].concat();
        if !replaced && block_id(&block).as_deref() == Some(id) {
            // Keep the blank lines that separated it from the next entry.
            let trailing: String = block
                .lines()
                .rev()
                .take_while(|l| l.trim().is_empty())
                .map(|_| "\n")
                .collect();
            out.push_str(entry);
            out.push_str(&trailing);
            replaced = true;
        } else {
            out.push_str(&block);
        }
    }
    if !replaced {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(entry);
    }
    (out, replaced)
}

/// A `[[model]]` header line (spaces and a comment allowed).
fn is_header(line: &str) -> bool {
    let t = line.trim();
    let t = t.split('#').next().unwrap_or("").trim();
    t.strip_prefix("[[")
        .and_then(|r| r.strip_suffix("]]"))
        .is_some_and(|k| k.trim() == "model")
}

/// The id of one `[[model]]` block, read on its own.
fn block_id(block: &str) -> Option<String> {
    let t: toml::Table = block.parse().ok()?;
    let first = t.get("model")?.as_array()?.first()?;
    first.get("id")?.as_str().map(str::to_string)
}

/// The ids of a models file as the catalog loader reads it.
fn ids(file: &Path, text: &str) -> Vec<String> {
    let mut c = Catalog::default();
    c.add_model_file(&file.display().to_string(), text);
    c.models.into_iter().map(|m| m.model.id).collect()
}

/// The new file keeps every entry the old one had, and has the new one:
/// else nothing is written.
fn check_kept(old: Option<&str>, new: &str, id: &str, target: &Path) -> Result<(), CliError> {
    let before = old.map_or_else(Vec::new, |o| ids(target, o));
    let after: HashSet<String> = ids(target, new).into_iter().collect();
    let lost: Vec<&String> = before.iter().filter(|i| !after.contains(*i)).collect();
    if !lost.is_empty() || !after.contains(id) {
        return Err(CliError::Output(format!(
            "import: writing {} would lose {lost:?} or not add `{id}`; nothing was written (please report this)",
            printable(&target.display().to_string())
        )));
    }
    Ok(())
}

/// What was derived, one line each, for `import` and `--model PATH`.
pub fn summary(imported: &Imported, id: &str) -> Vec<String> {
    let d = &imported.derivation;
    let m = &d.decoder;
    let p = |x: u128| units::format_params(x as f64);
    let mut v = vec![format!(
        "  from        {} ({} rules{})",
        printable(&imported.config.display().to_string()),
        d.family.name(),
        d.model_type
            .as_ref()
            .map_or(String::new(), |t| format!(", model_type {t:?}"))
    )];
    let active = d
        .active
        .map_or(String::new(), |a| format!(", {} active per token", p(a)));
    v.push(format!("  id          {id}"));
    v.push(format!("  parameters  {} total{active}", p(d.params)));
    v.push(format!(
        "  layers      {}, hidden {}, heads {}, KV heads {}, head dim {}",
        m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim
    ));
    v.push(format!(
        "  MLP         {} wide, {}; vocabulary {}{}; context {}",
        m.ffn,
        if m.gated_mlp { "gated" } else { "plain" },
        m.vocab,
        if m.tied_embeddings { " (tied)" } else { "" },
        m.max_context
    ));
    v.push(format!(
        "  KV cache    {} per token in bf16",
        units::format_bytes(d.kv_bytes_per_token(2.0))
    ));
    v.extend(architecture_lines(m));
    v.push(match &d.weights {
        Some(w) => format!("  weights     {} ({})", w.precision, w.from),
        None => "  weights     not stated (no torch_dtype): give --weights".into(),
    });
    if let Some(i) = &imported.index {
        v.push(format!("  checkpoint  {}", i.sentence()));
    }
    if let Some(p) = &imported.index_problem {
        v.push(format!("  checkpoint  not compared: {}", printable(p)));
    }
    for n in &d.notes {
        v.push(format!("  note        {n}"));
    }
    v
}

/// The experts, latent attention and window of a decoder, a line each.
fn architecture_lines(m: &crate::solver::Decoder) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(moe) = m.moe {
        let mut s = format!(
            "  experts     {} routed, top {}, {} wide",
            moe.experts, moe.top_k, m.ffn
        );
        if moe.shared_ffn > 0 {
            s.push_str(&format!("; shared {} wide", moe.shared_ffn));
        }
        if moe.dense_layers > 0 {
            s.push_str(&format!(
                "; {} dense layer(s) of {}",
                moe.dense_layers, moe.dense_ffn
            ));
        }
        v.push(s);
    }
    if let Some(mla) = m.mla {
        v.push(format!(
            "  MLA         KV latent {}, RoPE key {}, query latent {}",
            mla.kv_latent,
            mla.rope_dim,
            if mla.q_latent > 0 {
                mla.q_latent.to_string()
            } else {
                "none (direct)".into()
            }
        ));
    }
    if let Some(w) = m.window {
        v.push(format!(
            "  window      {} tokens on {} of {} layers",
            w.tokens, w.layers, m.layers
        ));
    }
    v
}

/// The keys the derivation read, defaults marked.
fn keys_used(d: &Derivation) -> String {
    let mut s = String::from("keys used:\n");
    for u in &d.used {
        let value = printable(&u.value);
        match &u.default {
            Some(why) => s.push_str(&format!(
                "  {} = {value}  (not in the file: {why})\n",
                u.key
            )),
            None => s.push_str(&format!("  {} = {value}\n", u.key)),
        }
    }
    s
}

/// The derivation as a JSON record.
pub fn record(imported: &Imported, who: &Identity) -> Map<String, Value> {
    let d = &imported.derivation;
    let m = &d.decoder;
    let mut r = Map::new();
    let mut put = |k: &str, v: Value| {
        r.insert(k.to_string(), v);
    };
    put("id", json!(who.id));
    put("name", json!(who.name));
    put("config", json!(imported.config.display().to_string()));
    put("architecture", json!(d.family.name()));
    put("model_type", json!(d.model_type));
    put("kind", json!(d.kind().name()));
    put("params", json!(d.params as f64));
    put("active_params", json!(d.active.map(|a| a as f64)));
    put("layers", json!(m.layers));
    put("hidden", json!(m.hidden));
    put("heads", json!(m.heads));
    put("kv_heads", json!(m.kv_heads));
    put("head_dim", json!(m.head_dim));
    put("ffn", json!(m.ffn));
    put("gated_mlp", json!(m.gated_mlp));
    put("vocab", json!(m.vocab));
    put("tied_embeddings", json!(m.tied_embeddings));
    put("max_context", json!(m.max_context));
    put("kv_bytes_per_token_bf16", json!(d.kv_bytes_per_token(2.0)));
    put("experts", json!(m.moe.map(|x| x.experts)));
    put("top_k", json!(m.moe.map(|x| x.top_k)));
    put("shared_ffn", json!(m.moe.map(|x| x.shared_ffn)));
    put("dense_layers", json!(m.moe.map(|x| x.dense_layers)));
    put("dense_ffn", json!(m.moe.map(|x| x.dense_ffn)));
    put("kv_latent", json!(m.mla.map(|x| x.kv_latent)));
    put("rope_dim", json!(m.mla.map(|x| x.rope_dim)));
    put("q_latent", json!(m.mla.map(|x| x.q_latent)));
    put("sliding_window", json!(m.window.map(|w| w.tokens)));
    put("window_layers", json!(m.window.map(|w| w.layers)));
    put(
        "weights",
        json!(d.weights.as_ref().map(|w| w.precision.name())),
    );
    put(
        "weights_from",
        json!(d.weights.as_ref().map(|w| w.from.clone())),
    );
    put(
        "safetensors_index",
        json!(imported.index.as_ref().map(|i| json!({
            "total_size_bytes": i.total_size,
            "bytes_per_weight": i.precision.bytes(),
            "derived_bytes": i.expected,
            "relative_difference": i.relative(),
        }))),
    );
    put(
        "keys_used",
        Value::Array(
            d.used
                .iter()
                .map(|u| json!({"key": u.key, "value": u.value, "default": u.default}))
                .collect(),
        ),
    );
    put("notes", json!(d.notes));
    r
}

/// Where `ridgeline import` writes in a catalog directory.
pub fn target(dir: &Path) -> PathBuf {
    dir.join("models").join(FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "[[model]]\nid = \"a\"\nname = \"A\"\n";
    const B: &str = "[[model]]\nid = \"b\"\nname = \"B\"\n";

    #[test]
    fn splice_adds_and_replaces_by_id_keeping_the_rest() {
        let (t, replaced) = splice(None, "a", A);
        assert!(!replaced);
        assert!(t.starts_with(HEADER) && t.ends_with(A));
        let (t2, replaced) = splice(Some(&t), "b", B);
        assert!(!replaced);
        assert!(t2.contains(A) && t2.ends_with(B));
        let a2 = "[[model]]\nid = \"a\"\nname = \"A2\"\n";
        let (t3, replaced) = splice(Some(&t2), "a", a2);
        assert!(replaced);
        assert_eq!(t3, t2.replace(A, a2));
        // A hand-written comment and a sub-table of another entry stay.
        let hand = "# mine\n[[model]] # x\nid = \"b\"\n[model.sources]\nparams = \"card\"\n";
        let (t4, _) = splice(Some(hand), "a", A);
        assert!(t4.starts_with(hand), "{t4}");
    }

    #[test]
    fn headers() {
        assert!(is_header("[[model]]\n"));
        assert!(is_header("  [[ model ]]  # c\n"));
        assert!(!is_header("# [[model]]\n"));
        assert!(!is_header("[model.sources]\n"));
        assert_eq!(block_id(A).as_deref(), Some("a"));
    }
}
