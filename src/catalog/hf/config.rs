//! A config.json as the deriver reads it: values by name, looked up in
//! `text_config` first when the config wraps a text model (Gemma 3,
//! multimodal checkpoints), every key read recorded with its value, and a
//! key left out either taking the architecture's documented default
//! (recorded as such) or being an error that names it.

use super::HfError;
use serde_json::{Map, Value};

/// One key the derivation read: where, its value as written, and whether it
/// was left out of the file and took a default (and whose).
#[derive(Debug, Clone, PartialEq)]
pub struct Used {
    /// "hidden_size", or "text_config.hidden_size".
    pub key: String,
    pub value: String,
    /// Set when the file leaves the key out: where the value comes from
    /// ("transformers' Gemma3TextConfig default", "= num_attention_heads").
    pub default: Option<String>,
}

/// The config's JSON object, and the keys read from it.
pub struct Config<'a> {
    root: &'a Map<String, Value>,
    text: Option<&'a Map<String, Value>>,
    pub used: Vec<Used>,
}

/// A default for a key the file leaves out: its value and where it comes from.
pub type Fallback<T> = Option<(T, String)>;

impl<'a> Config<'a> {
    pub fn new(root: &'a Map<String, Value>) -> Config<'a> {
        let text = root.get("text_config").and_then(Value::as_object);
        Config {
            root,
            text,
            used: Vec::new(),
        }
    }

    /// True when the model's keys sit in `text_config`.
    pub fn nested(&self) -> bool {
        self.text.is_some()
    }

    /// The value of the first of `keys` the file gives (null counts as not
    /// given), in `text_config` first, with the path it was found at.
    fn find(&self, keys: &[&str]) -> Option<(&'a Value, String)> {
        for k in keys {
            if let Some(t) = self.text
                && let Some(v) = t.get(*k).filter(|v| !v.is_null())
            {
                return Some((v, format!("text_config.{k}")));
            }
            if let Some(v) = self.root.get(*k).filter(|v| !v.is_null()) {
                return Some((v, (*k).to_string()));
            }
        }
        None
    }

    /// The path a key would be reported at.
    fn path(&self, key: &str) -> String {
        match self.text {
            Some(_) => format!("text_config.{key}"),
            None => key.to_string(),
        }
    }

    fn record(&mut self, key: String, value: String, default: Option<String>) {
        if !self.used.iter().any(|u| u.key == key) {
            self.used.push(Used {
                key,
                value,
                default,
            });
        }
    }

    /// A whole number of the first of `keys` given; absent: None.
    pub fn count(&mut self, keys: &[&str]) -> Result<Option<u32>, HfError> {
        let Some((v, path)) = self.find(keys) else {
            return Ok(None);
        };
        let n = whole(v).ok_or_else(|| HfError::Invalid {
            key: path.clone(),
            value: v.to_string(),
            expected: "a whole number".into(),
        })?;
        let n = u32::try_from(n).map_err(|_| HfError::Invalid {
            key: path.clone(),
            value: v.to_string(),
            expected: "a whole number below 2^32".into(),
        })?;
        self.record(path, n.to_string(), None);
        Ok(Some(n))
    }

    /// A whole number the derivation needs, at least 1: the first of `keys`
    /// given, else `fallback`, else an error naming `keys[0]` and `what`.
    pub fn need(
        &mut self,
        keys: &[&str],
        what: &str,
        fallback: Fallback<u32>,
    ) -> Result<u32, HfError> {
        let n = match self.count(keys)? {
            Some(n) => n,
            None => match fallback {
                Some((n, why)) => {
                    self.record(self.path(keys[0]), n.to_string(), Some(why));
                    n
                }
                None => {
                    return Err(HfError::Missing {
                        key: self.path(keys[0]),
                        what: what.to_string(),
                    });
                }
            },
        };
        if n == 0 {
            return Err(HfError::Invalid {
                key: self.path(keys[0]),
                value: "0".into(),
                expected: format!("at least 1 ({what})"),
            });
        }
        Ok(n)
    }

    /// As [`Config::need`], and within `range` (the catalog's limit of
    /// the field, catalog/SCHEMA.md), checked before anything is derived
    /// from it: a value out of range is an error naming its own key.
    pub fn need_in(
        &mut self,
        keys: &[&str],
        what: &str,
        fallback: Fallback<u32>,
        range: std::ops::RangeInclusive<u32>,
    ) -> Result<u32, HfError> {
        let n = self.need(keys, what, fallback)?;
        if !range.contains(&n) {
            let key = self
                .find(keys)
                .map_or_else(|| self.path(keys[0]), |(_, p)| p);
            return Err(HfError::Invalid {
                key,
                value: n.to_string(),
                expected: format!(
                    "from {} to {} ({what}; catalog/SCHEMA.md)",
                    range.start(),
                    range.end()
                ),
            });
        }
        Ok(n)
    }

    /// A boolean of `key`, else `fallback` (recorded as a default).
    pub fn flag(&mut self, key: &str, fallback: (bool, &str)) -> Result<bool, HfError> {
        match self.find(&[key]) {
            Some((v, path)) => {
                let b = v.as_bool().ok_or_else(|| HfError::Invalid {
                    key: path.clone(),
                    value: v.to_string(),
                    expected: "true or false".into(),
                })?;
                self.record(path, b.to_string(), None);
                Ok(b)
            }
            None => {
                let (b, why) = fallback;
                self.record(self.path(key), b.to_string(), Some(why.to_string()));
                Ok(b)
            }
        }
    }

    /// A boolean of `key` if the file gives one (not recorded when absent).
    pub fn opt_flag(&mut self, key: &str) -> Result<Option<bool>, HfError> {
        match self.find(&[key]) {
            Some(_) => self.flag(key, (false, "")).map(Some),
            None => Ok(None),
        }
    }

    /// A string of the first of `keys` given.
    pub fn text(&mut self, keys: &[&str]) -> Option<String> {
        let (v, path) = self.find(keys)?;
        let s = v.as_str()?.to_string();
        self.record(path, format!("{s:?}"), None);
        Some(s)
    }

    /// A string without recording it (names, not figures).
    pub fn peek_text(&self, key: &str) -> Option<String> {
        self.find(&[key])
            .and_then(|(v, _)| v.as_str().map(str::to_string))
    }

    /// The first string of a list (`architectures`), unrecorded.
    pub fn first_of_list(&self, key: &str) -> Option<String> {
        let (v, _) = self.find(&[key])?;
        v.as_array()?.first()?.as_str().map(str::to_string)
    }

    /// A list of strings (`layer_types`).
    pub fn strings(&mut self, key: &str) -> Result<Option<Vec<String>>, HfError> {
        self.list(
            key,
            "a list of strings",
            |x| x.as_str().map(str::to_string),
            summary,
        )
    }

    /// A list of whole numbers (`mlp_only_layers`).
    pub fn counts(&mut self, key: &str) -> Result<Option<Vec<u32>>, HfError> {
        self.list(
            key,
            "a list of whole numbers",
            |x| whole(x).and_then(|n| u32::try_from(n).ok()),
            |v| format!("{v:?}"),
        )
    }

    /// A list whose every item `item` reads, recorded as `show` writes it.
    fn list<T>(
        &mut self,
        key: &str,
        expected: &str,
        item: impl Fn(&Value) -> Option<T>,
        show: impl Fn(&[T]) -> String,
    ) -> Result<Option<Vec<T>>, HfError> {
        let Some((v, path)) = self.find(&[key]) else {
            return Ok(None);
        };
        let out: Option<Vec<T>> = v.as_array().and_then(|l| l.iter().map(&item).collect());
        let out = out.ok_or_else(|| HfError::Invalid {
            key: path.clone(),
            value: short(v),
            expected: expected.to_string(),
        })?;
        self.record(path, show(&out), None);
        Ok(Some(out))
    }

    /// The object of `key` (`quantization_config`), unrecorded, with its path.
    pub fn object(&self, key: &str) -> Option<(&'a Map<String, Value>, String)> {
        let (v, path) = self.find(&[key])?;
        v.as_object().map(|o| (o, path))
    }

    /// Record a key read by a reader with its own types.
    pub fn note_used(&mut self, key: String, value: String) {
        self.record(key, value, None);
    }
}

/// A JSON number that is a whole, non-negative number (1024 or 1024.0).
fn whole(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64).then_some(f as u64)
}

/// A value cut for a message.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// A list of strings in short: `12 x ["sliding_attention", "full_attention"]`
/// when it repeats a pattern, else the counts of each value.
fn summary(list: &[String]) -> String {
    for period in 1..=list.len().min(8) {
        if list.len().is_multiple_of(period)
            && list.len() > period
            && list.chunks(period).all(|c| c == &list[..period])
        {
            return format!("{} x {:?}", list.len() / period, &list[..period]);
        }
    }
    if list.len() <= 4 {
        return format!("{list:?}");
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in list {
        match counts.iter_mut().find(|(k, _)| *k == s.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!("[{}]", parts.join(", "))
}
