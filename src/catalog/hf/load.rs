//! The files around a derivation: a `config.json` (or a snapshot directory
//! holding one) read from disk, the `model.safetensors.index.json` beside
//! it compared with the derived count, and the one resolver every model
//! argument goes through (command line, scenario files, the workbench):
//! a catalog id stays an id, a path is imported into the catalog.

use super::{Derivation, Identity, entry::kebab};
use crate::catalog::Catalog;
use crate::fsutil;
use crate::solver::{Precision, units};
use std::fmt;
use std::path::{Path, PathBuf};

/// The largest config.json read (published ones are a few kB).
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;
/// The largest safetensors index read (DeepSeek-V3's is about 9 MB).
pub const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// Why a path did not give a model: the path and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}",
            crate::catalog::fields::printable(&self.path),
            self.message
        )
    }
}

impl std::error::Error for LoadError {}

fn error(path: &Path, message: impl Into<String>) -> LoadError {
    LoadError {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// A model argument that names a file rather than a catalog entry: it has
/// a path separator, starts with `~` or `.`, or ends in `.json`.
pub fn looks_like_path(name: &str) -> bool {
    let n = name.trim();
    n.contains('/')
        || n.contains('\\')
        || n.starts_with('~')
        || n.starts_with('.')
        || n.to_ascii_lowercase().ends_with(".json")
}

/// Why the `config.json` of a model folder cannot be read, in words (None
/// when it is a regular file, or a link to one): not there, a directory, a
/// FIFO or device, a link that loops or leads nowhere.
fn in_folder(f: &Path) -> Option<String> {
    let link = std::fs::symlink_metadata(f)
        .ok()
        .filter(|m| m.file_type().is_symlink());
    let to = |what: &str| match &link {
        Some(_) => format!("its config.json is a symbolic link to {what}"),
        None => format!("its config.json is {what}"),
    };
    match std::fs::metadata(f) {
        Ok(m) if m.is_file() => None,
        Ok(m) => {
            let kind = crate::fsutil::kind_of(&m.file_type());
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            Some(format!(
                "{}, not a regular file",
                to(&format!("{article} {kind}"))
            ))
        }
        Err(e) if is_loop(&e) => {
            Some("its config.json is a symbolic link that loops (it leads back to itself)".into())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(match link {
            Some(_) => "its config.json is a symbolic link to a file that does not exist".into(),
            None => "the directory has no config.json".into(),
        }),
        Err(e) => Some(format!("its config.json cannot be read: {e}")),
    }
}

/// A "too many levels of symbolic links" error (ELOOP).
fn is_loop(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The config.json of a path: the file itself, or `config.json` in a
/// directory.
pub fn config_file(path: &Path) -> Result<PathBuf, LoadError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            let f = path.join("config.json");
            match in_folder(&f) {
                None => Ok(f),
                Some(why) => Err(error(
                    path,
                    format!(
                        "{why}; give the folder of a downloaded model (the one holding config.json) or the file itself"
                    ),
                )),
            }
        }
        Ok(_) => Ok(path.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(error(
            path,
            "no such file or directory; give a config.json or the folder of a downloaded model",
        )),
        Err(e) => Err(error(path, format!("cannot be read: {e}"))),
    }
}

/// How the checkpoint's size (the safetensors index) compares with the
/// derived parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexCheck {
    /// `metadata.total_size`, bytes.
    pub total_size: f64,
    /// The precision the bytes per weight come from.
    pub precision: Precision,
    /// Derived parameters x bytes per weight.
    pub expected: f64,
}

impl IndexCheck {
    /// (total_size - expected) / expected.
    pub fn relative(&self) -> f64 {
        (self.total_size - self.expected) / self.expected
    }

    /// The weights the index holds at the bytes per weight.
    pub fn weights(&self) -> f64 {
        self.total_size / self.precision.bytes()
    }

    /// One sentence for a person.
    pub fn sentence(&self) -> String {
        format!(
            "model.safetensors.index.json: total_size {} = {} weights at {} ({}); derived {} weights ({}): {}",
            units::format_bytes(self.total_size),
            units::format_params(self.weights()),
            match self.precision.bytes() {
                1.0 => "1 byte each".to_string(),
                b => format!("{b} bytes each"),
            },
            self.precision,
            units::format_params(self.expected / self.precision.bytes()),
            units::format_bytes(self.expected),
            apart(self.relative())
        )
    }
}

/// "0.00% apart", "+2.6% more in the checkpoint".
fn apart(r: f64) -> String {
    if r.abs() < 5e-5 {
        "they agree".to_string()
    } else if r > 0.0 {
        format!(
            "the checkpoint holds {} more (buffers, scales, layers not counted)",
            units::format_percent(r)
        )
    } else {
        format!("the checkpoint holds {} less", units::format_percent(-r))
    }
}

/// A config read from disk and derived.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The config.json read.
    pub config: PathBuf,
    pub derivation: Derivation,
    /// The safetensors index beside it, compared (when there is one).
    pub index: Option<IndexCheck>,
    /// Why the index beside it could not be read, when it could not.
    pub index_problem: Option<String>,
}

/// Read and derive the config at `path` (a file or a directory).
pub fn read(path: &Path) -> Result<Imported, LoadError> {
    let config = config_file(path)?;
    let text =
        fsutil::read_text(&config, MAX_CONFIG_BYTES).map_err(|e| error(&config, e.to_string()))?;
    let derivation = super::derive(&text).map_err(|e| error(&config, e.to_string()))?;
    let mut index = None;
    let mut index_problem = None;
    let index_path = config.with_file_name("model.safetensors.index.json");
    if index_path.is_file() {
        match total_size(&index_path) {
            Ok(total) => {
                let precision = derivation
                    .weights
                    .as_ref()
                    .map_or(Precision::Bf16, |w| w.precision);
                index = Some(IndexCheck {
                    total_size: total,
                    precision,
                    expected: derivation.params as f64 * precision.bytes(),
                });
            }
            Err(e) => index_problem = Some(format!("{}: {e}", index_path.display())),
        }
    }
    Ok(Imported {
        config,
        derivation,
        index,
        index_problem,
    })
}

/// `metadata.total_size` of a safetensors index.
fn total_size(path: &Path) -> Result<f64, String> {
    let text = fsutil::read_text(path, MAX_INDEX_BYTES).map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    v.get("metadata")
        .and_then(|m| m.get("total_size"))
        .and_then(|t| {
            t.as_f64()
                .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
        })
        .filter(|t| *t > 0.0)
        .ok_or_else(|| "no metadata.total_size".to_string())
}

/// An id for an imported model: `_name_or_path`'s last part, else the
/// model's folder (the repository of a Hugging Face cache snapshot,
/// `models--org--name/snapshots/<hash>`), else its model_type.
pub fn default_id(imported: &Imported) -> String {
    let d = &imported.derivation;
    let folder = folder_name(&imported.config);
    let id = d
        .name_hint
        .as_deref()
        .and_then(kebab)
        .or_else(|| folder.as_deref().and_then(kebab))
        .or_else(|| d.model_type.as_deref().and_then(kebab))
        .unwrap_or_else(|| "imported-model".to_string());
    // Kebab case is ASCII: a cut at MAX_NAME_CHARS is a cut at a character.
    let id = &id[..id.len().min(MAX_NAME_CHARS)];
    id.trim_end_matches(['-', '.']).to_string()
}

/// The longest id or name an import writes: a config's `_name_or_path` or
/// folder longer than this is cut, a longer `--id` or `--name` refused.
pub const MAX_NAME_CHARS: usize = 128;

/// The name of the model's folder, seen through a Hugging Face cache.
fn folder_name(config: &Path) -> Option<String> {
    let dir = config.parent()?;
    let parts: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.len() >= 3 && parts[parts.len() - 2] == "snapshots" {
        let repo = &parts[parts.len() - 3];
        if let Some(rest) = repo.strip_prefix("models--") {
            return rest.rsplit("--").next().map(str::to_string);
        }
    }
    parts.last().cloned().filter(|p| p != "." && !p.is_empty())
}

/// A name for people: `_name_or_path`'s last part, else the id.
pub fn default_name(imported: &Imported, id: &str) -> String {
    let name = imported
        .derivation
        .name_hint
        .clone()
        .or_else(|| folder_name(&imported.config))
        .unwrap_or_else(|| id.to_string());
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// The year now (UTC), for the entry's `year`.
pub fn this_year() -> u16 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    year_of_day((secs / 86_400) as i64)
}

/// The civil year of a day count since 1970-01-01 (Howard Hinnant's
/// days-to-civil algorithm).
fn year_of_day(days: i64) -> u16 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    year.clamp(1970, 2100) as u16
}

/// A name for people read off a catalog id, for an id the user chose: the
/// id's hyphens become spaces, each word starts with a capital letter, and
/// a size (a number ending in b, m, k or t: `14b`, `0.6b`, `8x7b`, `a22b`)
/// has its unit in capitals. `qwen2.5-14b` -> "Qwen2.5 14B".
pub fn name_from_id(id: &str) -> String {
    let words: Vec<String> = id
        .split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars: Vec<char> = w.chars().collect();
            let n = chars.len();
            let unit = matches!(chars[n - 1], 'b' | 'm' | 'k' | 't');
            let before = &chars[..n - 1];
            // A size: digits (with a dot or an `x` between them) before the
            // unit, after at most one leading letter (`a22b`, active).
            let digits = before
                .iter()
                .skip(usize::from(
                    before.first().is_some_and(char::is_ascii_alphabetic),
                ))
                .collect::<Vec<_>>();
            let is_size = unit
                && digits.first().is_some_and(|c| c.is_ascii_digit())
                && digits
                    .iter()
                    .all(|c| c.is_ascii_digit() || **c == '.' || **c == 'x');
            if is_size {
                chars[n - 1] = chars[n - 1].to_ascii_uppercase();
            }
            chars[0] = chars[0].to_ascii_uppercase();
            chars.into_iter().collect()
        })
        .collect();
    if words.is_empty() {
        id.to_string()
    } else {
        words.join(" ")
    }
}

/// The identity of an imported model: `id` if given (its name read off it,
/// [`name_from_id`]), else the default id and name; the path it came from
/// as its source.
pub fn identity(imported: &Imported, id: Option<&str>) -> Identity {
    let (id, name) = match id {
        Some(id) => (id.to_string(), name_from_id(id)),
        None => {
            let id = default_id(imported);
            let name = default_name(imported, &id);
            (id, name)
        }
    };
    let source = std::fs::canonicalize(&imported.config)
        .unwrap_or_else(|_| imported.config.clone())
        .display()
        .to_string();
    Identity {
        name,
        id,
        source,
        year: this_year(),
    }
}

/// Whether a catalog entry is the same config as `fresh`, just derived from
/// the config.json at `source`: an imported entry from that same file
/// (canonical path) with the same parameter count and shape. Its id and
/// name may differ (the user chose them).
pub fn same_config(
    e: &crate::catalog::ModelEntry,
    source: &str,
    fresh: &crate::catalog::ModelEntry,
) -> bool {
    is_imported(e)
        && e.source == source
        && e.model.params == fresh.model.params
        && e.model.arch == fresh.model.arch
}

/// What a model argument resolved to.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The catalog id to use.
    pub id: String,
    /// Set when the argument was a path: what was read.
    pub imported: Option<Imported>,
}

/// Resolve a model argument: a name the catalog knows (id or alias) is used
/// as is; a path (see [`looks_like_path`]: `./gpt2` for a folder named like
/// a catalog model), or a name the catalog does not know that is an
/// existing file or folder, is read, derived and added to `catalog`
/// under a free id (its default id, `-imported` added when that is taken).
/// `base` is the folder relative paths start from (a scenario's).
pub fn resolve(
    catalog: &mut Catalog,
    name: &str,
    base: Option<&Path>,
) -> Result<Resolved, LoadError> {
    let as_path = expand(name, base);
    if catalog.model(name).is_ok() || (!looks_like_path(name) && !as_path.exists()) {
        return Ok(Resolved {
            id: name.to_string(),
            imported: None,
        });
    }
    let imported = read(&as_path)?;
    let mut who = identity(&imported, None);
    let entry = imported
        .derivation
        .entry(&who)
        .map_err(|e| error(&imported.config, e.to_string()))?;
    // The same config imported before (by `ridgeline import`): its entry.
    let same = catalog
        .models
        .iter()
        .find(|e| same_config(e, &who.source, &entry));
    if let Some(e) = same {
        return Ok(Resolved {
            id: e.model.id.clone(),
            imported: Some(imported),
        });
    }
    who.id = free_id(catalog, &who.id);
    catalog.add_model_file(&who.source, &imported.derivation.entry_toml(&who));
    if catalog.model(&who.id).is_err() {
        return Err(error(
            &imported.config,
            format!(
                "the derived entry `{}` could not be added to the catalog",
                entry.model.id
            ),
        ));
    }
    Ok(Resolved {
        id: who.id,
        imported: Some(imported),
    })
}

/// A path as typed: `~` is the home directory; a relative path starts at
/// `base` when given.
fn expand(name: &str, base: Option<&Path>) -> PathBuf {
    let p = fsutil::expand_tilde(name.trim(), fsutil::home_dir().as_deref());
    match base {
        Some(b) if p.is_relative() => b.join(p),
        _ => p,
    }
}

/// `id` if no entry of the catalog has that name, else `id-imported`,
/// `id-imported-2`, ...
pub fn free_id(catalog: &Catalog, id: &str) -> String {
    if catalog.model(id).is_err() {
        return id.to_string();
    }
    let base = format!("{id}-imported");
    let mut candidate = base.clone();
    let mut n = 2;
    while catalog.model(&candidate).is_ok() {
        candidate = format!("{base}-{n}");
        n += 1;
    }
    candidate
}

/// True for an entry derived from a config.json: added for this run from a
/// path, or written by `ridgeline import` (both are listed under the
/// `imported` family).
pub fn is_imported(entry: &crate::catalog::ModelEntry) -> bool {
    entry.family == super::entry::FAMILY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_to_years() {
        // 0 = 1970-01-01; 19_723 = 2024-01-01 (54 years, 13 of them leap:
        // 54 * 365 + 13 = 19_723); the day before is 2023-12-31.
        assert_eq!(year_of_day(0), 1970);
        assert_eq!(year_of_day(19_723), 2024);
        assert_eq!(year_of_day(19_722), 2023);
    }

    #[test]
    fn paths_and_ids() {
        assert!(looks_like_path("./m"));
        assert!(looks_like_path("models/llama"));
        assert!(looks_like_path("config.json"));
        assert!(looks_like_path("~/m"));
        assert!(!looks_like_path("llama-3.1-8b"));
        let cache = Path::new(
            "/home/u/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B/snapshots/0e9e39f/config.json",
        );
        assert_eq!(folder_name(cache).as_deref(), Some("Llama-3.1-8B"));
        assert_eq!(
            folder_name(Path::new("/m/Qwen2.5-7B/config.json")).as_deref(),
            Some("Qwen2.5-7B")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_config_json_that_is_not_a_file_says_what_it_is() {
        use std::os::unix::fs::symlink;
        let root = std::env::temp_dir().join(format!("ridgeline-hf-kinds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let folder = |name: &str| {
            let d = root.join(name);
            std::fs::create_dir_all(&d).unwrap();
            d
        };
        let said = |d: &Path| config_file(d).unwrap_err().message;
        let d = folder("empty");
        assert!(said(&d).starts_with("the directory has no config.json"));
        let d = folder("dir");
        std::fs::create_dir(d.join("config.json")).unwrap();
        assert!(
            said(&d).starts_with("its config.json is a directory"),
            "{}",
            said(&d)
        );
        let d = folder("fifo");
        let fifo = std::ffi::CString::new(d.join("config.json").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(
            said(&d).starts_with("its config.json is a FIFO (named pipe)"),
            "{}",
            said(&d)
        );
        let d = folder("zero");
        symlink("/dev/zero", d.join("config.json")).unwrap();
        assert!(
            said(&d).starts_with("its config.json is a symbolic link to a character device"),
            "{}",
            said(&d)
        );
        let d = folder("loop");
        symlink(d.join("config.json"), d.join("config.json")).unwrap();
        assert!(
            said(&d).contains("a symbolic link that loops"),
            "{}",
            said(&d)
        );
        let d = folder("dangling");
        symlink(d.join("gone.json"), d.join("config.json")).unwrap();
        assert!(
            said(&d).contains("a symbolic link to a file that does not exist"),
            "{}",
            said(&d)
        );
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn names_read_off_ids() {
        // The example, and the built-in catalog's own spellings of
        // these models ("Llama 3.1 8B", "Mixtral 8x7B", catalog/models/).
        assert_eq!(name_from_id("qwen2.5-14b"), "Qwen2.5 14B");
        assert_eq!(name_from_id("llama-3.1-8b"), "Llama 3.1 8B");
        assert_eq!(name_from_id("mixtral-8x7b"), "Mixtral 8x7B");
        // An active-parameter size and a fraction of a billion.
        assert_eq!(name_from_id("qwen3-235b-a22b"), "Qwen3 235B A22B");
        assert_eq!(name_from_id("qwen3-0.6b"), "Qwen3 0.6B");
        // Words that only end in a unit letter are not sizes.
        assert_eq!(name_from_id("my-bert-base"), "My Bert Base");
        assert_eq!(name_from_id("v2-lite"), "V2 Lite");
        // Doubled hyphens leave no empty word.
        assert_eq!(name_from_id("a--b"), "A B");
    }
}
