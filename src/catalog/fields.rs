//! Reading TOML field by field, with the position of every value. The
//! catalog, the themes and the key bindings are read through [`Fields`], so
//! each of them reports every problem of an entry (a missing or unknown
//! field, a wrong type, a value out of range, a control character) at its
//! file:line:column, instead of stopping at the first.

use super::Diagnostic;
use std::borrow::Cow;
use std::ops::RangeInclusive;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A file's text with a line index, to turn byte offsets into positions in
/// O(log lines) however many problems the file has.
pub struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub fn new(file: &'a str, text: &'a str) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            file,
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line - 1];
        (line, self.text[start..offset].chars().count() + 1)
    }

    /// A problem at a byte offset of this file.
    pub fn diagnostic(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.position(offset);
        Diagnostic {
            file: self.file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    /// The problems, sorted by position, as diagnostics; those past
    /// [`MAX_PROBLEMS`] are counted in a last one.
    pub fn diagnostics(&self, problems: Problems) -> Vec<Diagnostic> {
        let Problems { mut list, more } = problems;
        list.sort_by_key(|p| p.at);
        let mut out: Vec<Diagnostic> = list
            .into_iter()
            .map(|p| self.diagnostic(p.at, p.message))
            .collect();
        if more > 0 {
            out.push(self.diagnostic(
                self.text.len(),
                format!("... and {more} more problems in this file (the first {MAX_PROBLEMS} are listed)"),
            ));
        }
        out
    }

    /// Parse the whole file, or say where it stops being TOML.
    pub fn parse(&self) -> Result<Spanned<DeTable<'a>>, Problem> {
        DeTable::parse(self.text).map_err(|e| Problem {
            at: e.span().map_or(0, |s| s.start),
            message: format!("not valid TOML: {}", short(e.message().trim())),
        })
    }
}

/// A problem at a byte offset of the file being read.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub at: usize,
    pub message: String,
}

/// The most problems kept for one file (or one entry): a hostile 16 MiB
/// file can hold millions, each a line of text; the rest are only counted.
pub const MAX_PROBLEMS: usize = 200;

/// Problems, at most [`MAX_PROBLEMS`] kept, the rest counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Problems {
    list: Vec<Problem>,
    more: usize,
}

impl Problems {
    pub fn push(&mut self, p: Problem) {
        if self.list.len() < MAX_PROBLEMS {
            self.list.push(p);
        } else {
            self.more += 1;
        }
    }

    /// Take in other problems (and their count of those left out).
    pub fn append(&mut self, other: Problems) {
        self.more += other.more;
        for p in other.list {
            self.push(p);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.more == 0
    }

    /// True when the next problem would only be counted (so its message
    /// need not be written).
    pub fn full(&self) -> bool {
        self.list.len() >= MAX_PROBLEMS
    }

    /// Count a problem that is not kept.
    pub fn count(&mut self) {
        self.more += 1;
    }
}

/// At most 200 characters of a message from a parser (a TOML error can
/// quote a whole line).
fn short(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// The first character that must not reach a terminal: see
/// [`is_unprintable`].
pub fn unprintable(s: &str) -> Option<char> {
    s.chars().find(|&c| is_unprintable(c))
}

/// A character that must not reach a terminal as itself: a control
/// character (Unicode category Cc: C0, DEL, C1; escape sequences start with
/// ESC or CSI) or a format character (category Cf: bidirectional overrides
/// and isolates, which reorder the text around them, zero-width spaces and
/// joiners, the byte order mark, invisible operators and tags).
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || is_format(c)
}

/// Unicode category Cf, every range of it (UnicodeData.txt, Unicode 15.1;
/// Python's `unicodedata` (Unicode 14) lists the same ranges but the last
/// seven hieroglyph controls U+13439-U+1343F, added in 15.0).
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// The one escaping function of every path and value the program echoes:
/// `s` with each [`is_unprintable`] character written as its Rust escape
/// (`\u{1b}`, `\u{202e}`, `\t`, `\n`), so that text from a file or the
/// command line (a path, a key, a name) is shown as written and never
/// obeyed.
pub fn printable(s: &str) -> Cow<'_, str> {
    if unprintable(s).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_printable(&mut out, c);
    }
    Cow::Owned(out)
}

/// Push `c` to `out`, escaped if it is [`is_unprintable`].
pub fn push_printable(out: &mut String, c: char) {
    if is_unprintable(c) {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// What a problem with text says: the character and how to fix it.
pub fn unprintable_message(what: &str, c: char) -> String {
    format!(
        "{what} contains the control character U+{:04X}; write plain text (no escape sequences, tabs or line breaks)",
        c as u32
    )
}

/// A value and the byte offset where it is written.
pub type At<T> = (T, usize);

/// One TOML table read key by key. Every read marks its key as known;
/// [`Fields::finish`] reports the keys nobody read. Problems carry the
/// offset of the value (or of the table, for a missing key).
pub struct Fields<'t, 'i> {
    table: &'t DeTable<'i>,
    at: usize,
    /// "device `h100-sxm`", the start of every message.
    what: String,
    known: &'static [&'static str],
    taken: Vec<&'static str>,
    /// Required keys that are not there, reported together.
    missing: Vec<&'static str>,
    problems: Problems,
}

impl<'t, 'i> Fields<'t, 'i> {
    /// Read `table` (written at `at`), whose keys are `known`.
    pub fn new(
        table: &'t DeTable<'i>,
        at: usize,
        what: impl Into<String>,
        known: &'static [&'static str],
    ) -> Self {
        Fields {
            table,
            at,
            what: what.into(),
            known,
            taken: Vec::new(),
            missing: Vec::new(),
            problems: Problems::default(),
        }
    }

    /// Name the entry in messages from here on ("device `h100-sxm`").
    pub fn rename(&mut self, what: impl Into<String>) {
        self.what = what.into();
    }

    /// Record a problem at `at`; the message is prefixed with the entry
    /// (when the reader has a name).
    pub fn problem(&mut self, at: usize, message: impl AsRef<str>) {
        if self.problems.full() {
            self.problems.count();
            return;
        }
        let message = if self.what.is_empty() {
            message.as_ref().to_string()
        } else {
            format!("{}: {}", self.what, message.as_ref())
        };
        self.problems.push(Problem { at, message });
    }

    /// The offset of the table itself.
    pub fn at(&self) -> usize {
        self.at
    }

    fn take(&mut self, key: &'static str) -> Option<&'t Spanned<DeValue<'i>>> {
        debug_assert!(self.known.contains(&key), "{key} not in the known list");
        self.taken.push(key);
        self.table.get(key)
    }

    /// Note a required key that is not there (one problem for all of them).
    pub fn missing(&mut self, key: &'static str) {
        self.missing.push(key);
    }

    fn wrong_type(&mut self, key: &str, v: &Spanned<DeValue<'_>>, want: &str) {
        let got = v.get_ref().type_str();
        self.problem(v.span().start, format!("`{key}` must be {want}, not {got}"));
    }

    /// Check that text from the file is printable; record a problem if not.
    pub fn check_text(&mut self, what: &str, s: &str, at: usize) -> bool {
        match unprintable(s) {
            Some(c) => {
                self.problem(at, unprintable_message(what, c));
                false
            }
            None => true,
        }
    }

    /// A string; None (and a problem unless `optional`) when missing or bad.
    fn string_at(&mut self, key: &'static str, optional: bool) -> Option<At<String>> {
        let Some(v) = self.take(key) else {
            if !optional {
                self.missing(key);
            }
            return None;
        };
        let Some(s) = v.get_ref().as_str() else {
            self.wrong_type(key, v, "a string");
            return None;
        };
        let at = v.span().start;
        self.check_text(&format!("`{key}`"), s, at)
            .then(|| (s.to_string(), at))
    }

    /// A required string and its offset.
    pub fn string(&mut self, key: &'static str) -> Option<At<String>> {
        self.string_at(key, false)
    }

    /// An optional string and its offset.
    pub fn opt_string(&mut self, key: &'static str) -> Option<At<String>> {
        self.string_at(key, true)
    }

    /// An optional list of strings (each with its offset).
    pub fn strings(&mut self, key: &'static str) -> Vec<At<String>> {
        let Some(v) = self.take(key) else {
            return Vec::new();
        };
        let Some(items) = v.get_ref().as_array() else {
            self.wrong_type(key, v, "a list of strings");
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            let at = item.span().start;
            match item.get_ref().as_str() {
                Some(s) => {
                    if self.check_text(&format!("`{key}`"), s, at) {
                        out.push((s.to_string(), at));
                    }
                }
                None => self.wrong_type(key, item, "a list of strings"),
            }
        }
        out
    }

    /// A number (TOML integer or float) within `range`; `range_text` says
    /// the range in the file's terms ("1 to 1e15").
    fn number_at(
        &mut self,
        key: &'static str,
        range: RangeInclusive<f64>,
        range_text: &str,
        optional: bool,
    ) -> Option<At<f64>> {
        let Some(v) = self.take(key) else {
            if !optional {
                self.missing(key);
            }
            return None;
        };
        let at = v.span().start;
        let x = match v.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|n| n as f64),
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            _ => {
                self.wrong_type(key, v, "a number");
                return None;
            }
        };
        match x {
            Some(x) if range.contains(&x) => Some((x, at)),
            Some(_) => {
                let text = number_text(v);
                self.problem(
                    at,
                    format!("{key} = {text} is out of range; use {range_text}"),
                );
                None
            }
            None => {
                self.problem(
                    at,
                    format!("`{key}` is not a number this program can read; use {range_text}"),
                );
                None
            }
        }
    }

    /// A required number within `range`.
    pub fn number(
        &mut self,
        key: &'static str,
        range: RangeInclusive<f64>,
        range_text: &str,
    ) -> Option<At<f64>> {
        self.number_at(key, range, range_text, false)
    }

    /// An optional number within `range`.
    pub fn opt_number(
        &mut self,
        key: &'static str,
        range: RangeInclusive<f64>,
        range_text: &str,
    ) -> Option<At<f64>> {
        self.number_at(key, range, range_text, true)
    }

    /// True when the table has no `key` (a problem already reported for a
    /// key that is there must not be followed by "missing").
    pub fn value_missing(&self, key: &str) -> bool {
        !self.table.contains_key(key)
    }

    /// A required whole number within `range`.
    pub fn whole(&mut self, key: &'static str, range: RangeInclusive<u32>) -> Option<At<u32>> {
        if self.value_missing(key) {
            self.taken.push(key);
            self.missing(key);
            return None;
        }
        self.opt_whole(key, range)
    }

    /// An optional whole number within `range`.
    pub fn opt_whole(&mut self, key: &'static str, range: RangeInclusive<u32>) -> Option<At<u32>> {
        let v = self.take(key)?;
        let at = v.span().start;
        let (lo, hi) = (*range.start(), *range.end());
        let n = match v.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix()).ok(),
            DeValue::Float(_) => None,
            _ => {
                self.wrong_type(key, v, "a whole number");
                return None;
            }
        };
        match n {
            Some(n) if n >= i64::from(lo) && n <= i64::from(hi) => Some((n as u32, at)),
            _ => {
                let text = number_text(v);
                self.problem(
                    at,
                    format!("{key} = {text} is out of range; use a whole number from {lo} to {hi}"),
                );
                None
            }
        }
    }

    /// An optional boolean.
    pub fn opt_bool(&mut self, key: &'static str) -> Option<bool> {
        let v = self.take(key)?;
        match v.get_ref().as_bool() {
            Some(b) => Some(b),
            None => {
                self.wrong_type(key, v, "true or false");
                None
            }
        }
    }

    /// A raw value, for readers with their own types (colours, keys).
    pub fn value(&mut self, key: &'static str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.take(key)
    }

    /// A sub-table (`[device.peak]` or `peak = { ... }`) with its keys.
    pub fn table(
        &mut self,
        key: &'static str,
        known: &'static [&'static str],
    ) -> Option<Fields<'t, 'i>> {
        let v = self.take(key)?;
        match v.get_ref().as_table() {
            Some(t) => Some(Fields::new(t, v.span().start, self.what.clone(), known)),
            None => {
                self.wrong_type(key, v, "a table");
                None
            }
        }
    }

    /// A reader of a table found inside this one's values (an item of a
    /// `[[device.cache]]` list), whose messages name the same entry.
    pub fn nested(
        &self,
        table: &'t DeTable<'i>,
        at: usize,
        known: &'static [&'static str],
    ) -> Fields<'t, 'i> {
        Fields::new(table, at, self.what.clone(), known)
    }

    /// A table of strings with free keys (`[device.sources]`), each key and
    /// value with its offset.
    pub fn string_map(&mut self, key: &'static str) -> Vec<(At<String>, At<String>)> {
        let Some(v) = self.take(key) else {
            return Vec::new();
        };
        let Some(t) = v.get_ref().as_table() else {
            self.wrong_type(key, v, "a table of strings");
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, val) in t.iter() {
            let kat = k.span().start;
            let name = format!("a key of [{key}]");
            if !self.check_text(&name, k.get_ref(), kat) {
                continue;
            }
            let at = val.span().start;
            match val.get_ref().as_str() {
                Some(s) => {
                    if self.check_text(&format!("`{key}.{}`", k.get_ref()), s, at) {
                        out.push(((k.get_ref().to_string(), kat), (s.to_string(), at)));
                    }
                }
                None => {
                    let got = val.get_ref().type_str();
                    self.problem(
                        at,
                        format!(
                            "`{key}.{}` must be a string, not {got}",
                            printable(k.get_ref())
                        ),
                    );
                }
            }
        }
        out
    }

    /// Fold a sub-table's problems into this one's.
    pub fn absorb(&mut self, sub: Fields<'_, '_>) {
        self.problems.append(sub.finish());
    }

    /// Every problem found, with a problem for each key nobody read.
    pub fn finish(mut self) -> Problems {
        if !self.missing.is_empty() {
            let list: Vec<String> = self.missing.iter().map(|k| format!("`{k}`")).collect();
            self.problem(self.at, format!("missing {}", list.join(", ")));
        }
        for (k, _) in self.table.iter() {
            let name = k.get_ref().as_ref();
            if !self.taken.contains(&name) {
                if self.problems.full() {
                    self.problems.count();
                    continue;
                }
                let hint = match closest(name, self.known) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => format!("known fields: {}", self.known.join(", ")),
                };
                let msg = format!("unknown field `{}`; {hint}", printable(name));
                self.problem(k.span().start, msg);
            }
        }
        self.problems
    }

    /// True when a problem has been found so far.
    pub fn has_problems(&self) -> bool {
        !self.problems.is_empty() || !self.missing.is_empty()
    }
}

/// A number as the file wrote it ("1e308", not 309 digits), for messages.
fn number_text(v: &Spanned<DeValue<'_>>) -> String {
    let s = match v.get_ref() {
        DeValue::Integer(i) => i.to_string(),
        DeValue::Float(f) => f.as_str().to_string(),
        other => other.type_str().to_string(),
    };
    short(&s)
}

/// The known name closest to a mistyped one, if it is close.
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    if name.len() > 64 {
        return None;
    }
    known
        .iter()
        .map(|k| (super::distance(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        // "é" is two bytes and one column.
        let s = Source::new("f", "ab\ncé=x\n\nz");
        assert_eq!(s.position(0), (1, 1));
        assert_eq!(s.position(2), (1, 3));
        assert_eq!(s.position(3), (2, 1));
        // Byte 6 is "=": after "c" (1 byte) and "é" (2 bytes), column 3.
        assert_eq!(s.position(6), (2, 3));
        assert_eq!(s.position(9), (3, 1));
        assert_eq!(s.position(10), (4, 1));
        assert_eq!(s.position(99), (4, 2), "clamped to the end");
    }

    #[test]
    fn printable_escapes_what_a_terminal_would_obey() {
        assert_eq!(printable("plain"), "plain");
        assert_eq!(printable("a\u{1b}]0;x\u{7}b"), "a\\u{1b}]0;x\\u{7}b");
        assert_eq!(printable("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(printable("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(unprintable("tab\there"), Some('\t'));
        assert_eq!(unprintable("Ünïcödé · ok"), None);
        // Format characters (Cf): isolates, zero-width space, BOM, a tag.
        assert_eq!(
            printable("\u{2066}x\u{2069}\u{200b}\u{feff}\u{e0041}"),
            "\\u{2066}x\\u{2069}\\u{200b}\\u{feff}\\u{e0041}"
        );
        assert_eq!(printable("tab\there"), "tab\\there");
        // Neighbours of Cf ranges that are printable stay as they are:
        // U+2010 (hyphen, Pd), U+2065 (unassigned, Cn), U+FFFC (So).
        assert_eq!(
            printable("\u{2010}\u{2065}\u{fffc}"),
            "\u{2010}\u{2065}\u{fffc}"
        );
    }
}
