//! Output formats: records as JSON objects (the contract), rendered as JSON,
//! CSV (raw SI values), or aligned text and Markdown tables (human units).
//! Text tables fit the terminal (80 columns when it is not known): the
//! columns ranked optional are dropped, last-ranked first, and a line says
//! which (`--wide` keeps them all). Markdown and CSV keep every column.

use super::args::Format;
use crate::solver::units;
use serde_json::{Map, Value};

/// How text output is drawn: ASCII only or not, and the width to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Plain ASCII marks ("x needs 2" rather than "✗ needs 2").
    pub ascii: bool,
    /// Columns a text table may take; `usize::MAX` with `--wide`.
    pub width: usize,
}

impl Style {
    /// The width when neither `COLUMNS` nor the terminal says.
    pub const DEFAULT_WIDTH: usize = 80;

    /// ASCII at 80 columns: what tests and pipes without a locale get.
    pub fn plain() -> Style {
        Style {
            ascii: true,
            width: Style::DEFAULT_WIDTH,
        }
    }
}

/// How a column's raw value reads to a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    Time,
    Bytes,
    Bandwidth,
    Flops,
    /// Three significant digits.
    Num,
    /// A whole number ("1.07G" from 100k on).
    Int,
    /// A parameter count as model cards write it ("8.03B", "671B").
    Params,
    /// A number of tokens, `k` = 1024 ("4096", "128k").
    Tokens,
    /// US dollars.
    Usd,
    /// A percentage of a fraction.
    Pct,
    Text,
    /// The error band of the time under the column's key: reads
    /// `{key}_low` and `{key}_high` ("5.9-7.4 ms").
    TimeBand,
    /// The error band of a rate under the column's key ("90.1-110").
    NumBand,
}

/// One column: header, JSON key, format, whether a narrow text table
/// may drop it (0: always kept; otherwise the higher, the sooner dropped)
/// and whether it may break its cells over several lines.
#[derive(Debug, Clone, Copy)]
pub struct Col {
    pub header: &'static str,
    pub key: &'static str,
    pub fmt: Fmt,
    pub optional: u8,
    /// A long text (an id): when the table is still too wide once the
    /// optional columns are gone, its cells break after a `-` (or, with
    /// none, anywhere) onto lines of their own, indented two spaces.
    pub breaks: bool,
}

pub const fn col(header: &'static str, key: &'static str, fmt: Fmt) -> Col {
    Col {
        header,
        key,
        fmt,
        optional: 0,
        breaks: false,
    }
}

impl Col {
    /// This column may be dropped from a narrow text table; `rank` orders
    /// the dropping (the highest goes first).
    pub const fn opt(self, rank: u8) -> Col {
        Col {
            optional: rank,
            ..self
        }
    }

    /// A narrow text table may break this column's cells over lines.
    pub const fn breaks(self) -> Col {
        Col {
            breaks: true,
            ..self
        }
    }
}

/// A raw value for a human.
pub fn human(v: &Value, fmt: Fmt) -> String {
    match v {
        Value::Null => "-".into(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::String(s) => escape(s),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            match fmt {
                Fmt::Time | Fmt::TimeBand => units::format_time(x),
                Fmt::Bytes => units::format_bytes(x),
                Fmt::Bandwidth => units::format_bandwidth(x),
                Fmt::Flops => units::format_flops(x),
                Fmt::Num | Fmt::Text | Fmt::NumBand => units::format_number(x),
                Fmt::Int if x.abs() < 1e5 => format!("{}", x.round() as i64),
                Fmt::Int => units::format_count(x.round()),
                Fmt::Params => units::format_params(x),
                Fmt::Tokens => units::format_tokens(x),
                Fmt::Usd => units::format_usd(x),
                Fmt::Pct => format!("{:.1}%", x * 100.0),
            }
        }
        other => escape(&other.to_string()),
    }
}

/// Control and format characters (Unicode Cc and Cf) shown as escapes, so
/// no text reaches the terminal as a command: "\u{1b}[31m" prints as
/// written. The same function as [`crate::catalog::fields::printable`].
pub fn escape(s: &str) -> String {
    crate::catalog::fields::printable(s).into_owned()
}

/// A JSON document as pretty text, with every format character (Unicode
/// Cf: a bidirectional override, a zero-width space) written as a `\uXXXX`
/// escape: the same value to a JSON reader, and nothing in it that
/// reorders or hides text on a terminal (serde_json already escapes the
/// control characters). Outside strings JSON text is ASCII, so the escapes
/// can only land inside strings. (DEL and C1 controls, which serde_json
/// leaves raw, are escaped the same way; a raw line break is the layout's,
/// as serde_json writes one in a string as `\n`.)
pub fn json_text(v: &Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    let raw = |c: char| c != '\n' && crate::catalog::fields::is_unprintable(c);
    if !text.chars().any(raw) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{:04x}", u));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A value the user typed, echoed in a message: escaped, and cut to 80
/// characters with the length of the rest said.
pub fn echo(s: &str) -> String {
    const MAX: usize = 80;
    let e = escape(s);
    let n = e.chars().count();
    if n <= MAX {
        format!("\"{e}\"")
    } else {
        let head: String = e.chars().take(MAX).collect();
        format!("\"{head}\"... ({} more characters)", n - MAX)
    }
}

/// Wrap prose at word boundaries to `width` columns; a continued line is
/// indented two spaces more than the line it continues. The spacing inside
/// a line (aligned columns) is kept; short lines are left alone.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start_matches(' ').len();
        let cont = " ".repeat(indent + 2);
        // Tokens: a run of spaces and the word after it.
        let mut tokens: Vec<(&str, &str)> = Vec::new();
        let mut rest = &body[indent..];
        while !rest.is_empty() {
            let w0 = rest.len() - rest.trim_start_matches(' ').len();
            let after = &rest[w0..];
            let w1 = after.find(' ').unwrap_or(after.len());
            tokens.push((&rest[..w0], &after[..w1]));
            rest = &after[w1..];
        }
        let mut cur = body[..indent].to_string();
        let mut fresh = true;
        for (space, word) in tokens {
            let len = cur.chars().count();
            if fresh {
                cur.push_str(word);
                fresh = false;
            } else if len + space.chars().count() + word.chars().count() <= width {
                cur.push_str(space);
                cur.push_str(word);
            } else {
                out.push_str(&cur);
                out.push('\n');
                cur = format!("{cont}{word}");
            }
        }
        out.push_str(&cur);
        out.push_str(nl);
    }
    out
}

/// One CSV cell. Text is escaped as on the terminal, and text that a
/// spreadsheet would read as a formula (it begins with `=`, `+`, `-`, `@`,
/// a tab or a carriage return) gets a leading `'`, as spreadsheet-safe CSV
/// writers do (OWASP, "CSV Injection"); numbers are written as numbers.
pub fn csv_cell(v: &Value) -> String {
    let s = match v {
        Value::Null => String::new(),
        Value::String(s) => neutral(escape(s)),
        other => other.to_string(),
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Text that cannot start a spreadsheet formula: `'` before a first
/// character of `=`, `+`, `-`, `@`, tab or carriage return.
fn neutral(s: String) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s
    }
}

/// One cell of a text table: the value under the column's key, or for a
/// band the low and high values of that key, "5.9-7.4 ms" (the unit once
/// when both ends share it).
pub fn cell(record: &Map<String, Value>, c: &Col) -> String {
    let get = |k: &str| record.get(k).unwrap_or(&Value::Null);
    match c.fmt {
        Fmt::TimeBand | Fmt::NumBand => {
            let (lo, hi) = (
                get(&format!("{}_low", c.key)),
                get(&format!("{}_high", c.key)),
            );
            let (l, h) = (human(lo, c.fmt), human(hi, c.fmt));
            if l == "-" || h == "-" {
                return "-".into();
            }
            if l == h {
                return "none (the profile has no band)".into();
            }
            match (l.rsplit_once(' '), h.rsplit_once(' ')) {
                (Some((a, u1)), Some((b, u2))) if u1 == u2 => format!("{a}-{b} {u1}"),
                _ => format!("{l}-{h}"),
            }
        }
        _ => human(get(c.key), c.fmt),
    }
}

/// The CSV keys of a column: a band is its low and high keys.
fn csv_keys(c: &Col) -> Vec<String> {
    match c.fmt {
        Fmt::TimeBand | Fmt::NumBand => vec![format!("{}_low", c.key), format!("{}_high", c.key)],
        _ => vec![c.key.to_string()],
    }
}

/// Render a list of records. JSON prints every key; the other formats print
/// `cols`, a text table only those that fit `style.width`.
pub fn render_list(
    records: &[Map<String, Value>],
    cols: &[Col],
    format: Format,
    style: Style,
) -> String {
    match format {
        Format::Json => {
            let arr = Value::Array(records.iter().cloned().map(Value::Object).collect());
            json_text(&arr) + "\n"
        }
        Format::Csv => {
            let keys: Vec<String> = cols.iter().flat_map(csv_keys).collect();
            let mut out = keys.join(",");
            out.push('\n');
            for r in records {
                let cells: Vec<String> = keys
                    .iter()
                    .map(|k| csv_cell(r.get(k).unwrap_or(&Value::Null)))
                    .collect();
                out.push_str(&cells.join(","));
                out.push('\n');
            }
            out
        }
        Format::Table | Format::Markdown => {
            let rows: Vec<Vec<String>> = records
                .iter()
                .map(|r| cols.iter().map(|c| cell(r, c)).collect())
                .collect();
            let headers: Vec<String> = cols.iter().map(|c| c.header.to_string()).collect();
            let right: Vec<bool> = cols.iter().map(|c| c.fmt != Fmt::Text).collect();
            if format == Format::Markdown {
                markdown(&headers, &rows, &right)
            } else {
                let keep = fitting_columns(cols, &headers, &rows, style.width);
                let pick =
                    |v: &[String]| -> Vec<String> { keep.iter().map(|&i| v[i].clone()).collect() };
                let rows: Vec<Vec<String>> = rows.iter().map(|r| pick(r)).collect();
                let right: Vec<bool> = keep.iter().map(|&i| right[i]).collect();
                let breaks: Vec<bool> = keep.iter().map(|&i| cols[i].breaks).collect();
                let headers = pick(&headers);
                let rows = broken_rows(&headers, rows, &breaks, style.width);
                let mut t = text_table(&headers, &rows, &right);
                let dropped: Vec<&str> = (0..cols.len())
                    .filter(|i| !keep.contains(i))
                    .map(|i| cols[i].header)
                    .collect();
                if !dropped.is_empty() {
                    t.push_str(&wrap(
                        &format!(
                            "(not shown at {} columns: {}; --wide shows every column)\n",
                            style.width,
                            dropped.join(", ")
                        ),
                        style.width,
                    ));
                }
                t
            }
        }
    }
}

/// The columns of a text table that fit `width`: optional columns are
/// dropped, the highest rank first, until the table fits (the columns
/// ranked 0 are always kept).
fn fitting_columns(
    cols: &[Col],
    headers: &[String],
    rows: &[Vec<String>],
    width: usize,
) -> Vec<usize> {
    let w = widths(headers, rows);
    let mut keep: Vec<usize> = (0..cols.len()).collect();
    let total = |k: &[usize]| -> usize {
        k.iter().map(|&i| w[i]).sum::<usize>() + 2 * k.len().saturating_sub(1)
    };
    while total(&keep) > width {
        let Some(pos) = keep
            .iter()
            .enumerate()
            .filter(|(_, i)| cols[**i].optional > 0)
            .max_by_key(|(p, i)| (cols[**i].optional, *p))
            .map(|(p, _)| p)
        else {
            break;
        };
        keep.remove(pos);
    }
    keep
}

/// The narrowest a broken column gets: below this a cell reads as
/// fragments, and the table is left wider than asked instead.
const MIN_BROKEN: usize = 16;

/// The rows of a text table still wider than `width` with its optional
/// columns gone: the cells of the breakable columns that do not fit the
/// room left by the others are broken after a `-` (anywhere when there is
/// none in reach), the first piece in the row, each further piece on a
/// line of its own under it, indented two spaces, the other cells blank.
fn broken_rows(
    headers: &[String],
    rows: Vec<Vec<String>>,
    breaks: &[bool],
    width: usize,
) -> Vec<Vec<String>> {
    let w = widths(headers, &rows);
    let total = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    let over = total.saturating_sub(width);
    let n_break = breaks.iter().filter(|b| **b).count();
    if over == 0 || n_break == 0 {
        return rows;
    }
    // Share the excess between the breakable columns, widest first.
    let mut room: Vec<usize> = w.clone();
    let mut left = over;
    while left > 0 {
        let Some(i) = (0..room.len())
            .filter(|&i| breaks[i] && room[i] > MIN_BROKEN.max(headers[i].chars().count()))
            .max_by_key(|&i| (room[i], std::cmp::Reverse(i)))
        else {
            break;
        };
        room[i] -= 1;
        left -= 1;
    }
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let pieces: Vec<Vec<String>> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if breaks[i] {
                    break_cell(c, room[i])
                } else {
                    vec![c.clone()]
                }
            })
            .collect();
        let lines = pieces.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..lines {
            out.push(
                pieces
                    .iter()
                    .map(|p| p.get(k).cloned().unwrap_or_default())
                    .collect(),
            );
        }
    }
    out
}

/// A cell cut into pieces of at most `room` characters (the second and
/// later indented two spaces, counted), each ending after a `-` when one
/// is in reach.
fn break_cell(text: &str, room: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= room {
        return vec![text.to_string()];
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let indent = if pieces.is_empty() { 0 } else { 2 };
        let fit = room.saturating_sub(indent).max(1);
        let end = if chars.len() - start <= fit {
            chars.len()
        } else {
            // The last `-` within reach, else a hard cut.
            (start + 1..=start + fit)
                .rev()
                .find(|&e| chars[e - 1] == '-')
                .unwrap_or(start + fit)
        };
        let piece: String = chars[start..end].iter().collect();
        pieces.push(format!("{}{piece}", " ".repeat(indent)));
        start = end;
    }
    pieces
}

/// Render one record as key/value rows.
pub fn render_record(record: &Map<String, Value>, cols: &[Col], format: Format) -> String {
    match format {
        Format::Json => json_text(&Value::Object(record.clone())) + "\n",
        Format::Csv => render_list(std::slice::from_ref(record), cols, format, Style::plain()),
        Format::Table | Format::Markdown => {
            let rows: Vec<Vec<String>> = cols
                .iter()
                .map(|c| vec![c.header.to_string(), cell(record, c)])
                .collect();
            let headers = vec!["".to_string(), "".to_string()];
            if format == Format::Markdown {
                markdown(&["field".into(), "value".into()], &rows, &[false, true])
            } else {
                text_table(&headers, &rows, &[false, false])
                    .lines()
                    .skip(2)
                    .map(|l| l.to_string() + "\n")
                    .collect()
            }
        }
    }
}

fn widths(headers: &[String], rows: &[Vec<String>]) -> Vec<usize> {
    let mut w: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    w
}

fn pad(s: &str, w: usize, right: bool) -> String {
    let n = s.chars().count();
    let fill = " ".repeat(w.saturating_sub(n));
    if right {
        fill + s
    } else {
        s.to_string() + &fill
    }
}

/// Aligned columns with a rule under the header.
pub fn text_table(headers: &[String], rows: &[Vec<String>], right: &[bool]) -> String {
    let w = widths(headers, rows);
    let line = |cells: &[String]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| pad(c, w[i], right[i]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
            + "\n"
    };
    let mut out = line(headers);
    out.push_str(
        &(w.iter()
            .map(|n| "-".repeat(*n))
            .collect::<Vec<_>>()
            .join("  ")
            + "\n"),
    );
    for r in rows {
        out.push_str(&line(r));
    }
    out
}

pub(crate) fn markdown(headers: &[String], rows: &[Vec<String>], right: &[bool]) -> String {
    let mut out = format!("| {} |\n", headers.join(" | "));
    out.push_str(&format!(
        "|{}|\n",
        right
            .iter()
            .map(|r| if *r { "---:" } else { "---" })
            .collect::<Vec<_>>()
            .join("|")
    ));
    for r in rows {
        out.push_str(&format!(
            "| {} |\n",
            r.iter()
                .map(|c| c.replace('|', "\\|"))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_by_column_kind() {
        assert_eq!(human(&json!(0.0342), Fmt::Time), "34.2 ms");
        assert_eq!(human(&json!(3.35e12), Fmt::Bandwidth), "3.35 TB/s");
        assert_eq!(human(&json!(null), Fmt::Time), "-");
        assert_eq!(human(&json!(true), Fmt::Text), "yes");
        assert_eq!(human(&json!(0.25), Fmt::Pct), "25.0%");
    }

    #[test]
    fn csv_quotes_cells_with_commas_and_table_aligns() {
        let mut r = Map::new();
        r.insert("a".into(), json!("x, y"));
        r.insert("b".into(), json!(2.5));
        let cols = [col("A", "a", Fmt::Text), col("B", "b", Fmt::Num)];
        assert_eq!(
            render_list(std::slice::from_ref(&r), &cols, Format::Csv, Style::plain()),
            "a,b\n\"x, y\",2.5\n"
        );
        let t = render_list(&[r], &cols, Format::Table, Style::plain());
        assert_eq!(t, "A       B\n----  ---\nx, y  2.5\n");
    }

    #[test]
    fn csv_text_never_starts_a_formula_and_numbers_stay_numbers() {
        assert_eq!(csv_cell(&json!("=1+1")), "'=1+1");
        assert_eq!(csv_cell(&json!("@SUM(A1:A2)")), "'@SUM(A1:A2)");
        assert_eq!(csv_cell(&json!("+x")), "'+x");
        assert_eq!(csv_cell(&json!("-x")), "'-x");
        // A formula with a comma is neutralised, then quoted.
        assert_eq!(
            csv_cell(&json!("=HYPERLINK(\"u\",\"x\")")),
            "\"'=HYPERLINK(\"\"u\"\",\"\"x\"\")\""
        );
        // A tab or CR is escaped as on the terminal, so no cell starts with it.
        assert_eq!(csv_cell(&json!("\t=1")), "\\t=1");
        assert_eq!(csv_cell(&json!(-2.5)), "-2.5");
        assert_eq!(csv_cell(&json!("h100")), "h100");
    }

    #[test]
    fn json_text_escapes_format_characters_and_reads_back_the_same() {
        let v = json!({"name": "a\u{202e}b\u{200b}\u{e0041}\u{85}", "n": 1});
        let t = json_text(&v);
        assert!(t.is_ascii(), "{t}");
        assert!(t.contains("a\\u202eb\\u200b\\udb40\\udc41\\u0085"), "{t}");
        let back: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn a_narrow_table_drops_optional_columns_highest_rank_first() {
        let mut r = Map::new();
        r.insert("a".into(), json!("aaaaaaaaaa"));
        r.insert("b".into(), json!("bbbbbbbbbb"));
        r.insert("c".into(), json!("cccccccccc"));
        let cols = [
            col("A", "a", Fmt::Text),
            col("B", "b", Fmt::Text).opt(1),
            col("C", "c", Fmt::Text).opt(2),
        ];
        // Three columns of 10 with two gaps of 2 = 34; at 30 wide C (rank 2)
        // goes, leaving 10 + 2 + 10 = 22.
        let style = Style {
            ascii: true,
            width: 30,
        };
        let t = render_list(std::slice::from_ref(&r), &cols, Format::Table, style);
        assert!(t.starts_with("A           B\n"), "{t}");
        assert!(t.contains("not shown at 30 columns: C"), "{t}");
        let wide = Style {
            width: usize::MAX,
            ..style
        };
        let t = render_list(std::slice::from_ref(&r), &cols, Format::Table, wide);
        assert!(t.contains("cccccccccc") && !t.contains("not shown"), "{t}");
        // Markdown keeps every column.
        let t = render_list(&[r], &cols, Format::Markdown, style);
        assert!(t.starts_with("| A | B | C |"), "{t}");
    }

    #[test]
    fn a_long_id_breaks_after_a_dash_or_anywhere_when_there_is_none() {
        // "aaaa-bbbb-" is the longest start of at most 10 ending in '-';
        // the rest, "cccc", fits 10 - 2 of indent.
        assert_eq!(break_cell("aaaa-bbbb-cccc", 10), ["aaaa-bbbb-", "  cccc"]);
        // No dash: cut at 5, then 3 a line after the indent of 2.
        assert_eq!(
            break_cell("abcdefghijkl", 5),
            ["abcde", "  fgh", "  ijk", "  l"]
        );
        assert_eq!(break_cell("short", 10), ["short"]);
    }

    #[test]
    fn a_table_too_wide_without_its_optional_columns_breaks_its_ids() {
        let mut r = Map::new();
        r.insert("id".into(), json!("first-second-third-fourth-fifth"));
        r.insert("v".into(), json!("1234567890"));
        let cols = [
            col("id", "id", Fmt::Text).breaks(),
            col("value", "v", Fmt::Text),
        ];
        // 31 + 2 + 10 = 43 columns; at 30 the id gets 30 - 12 = 18:
        // "first-second-" (13, the last '-' within 18), then "  third-fourth-"
        // (15 of 18), then "  fifth"; the column is as wide as its widest
        // piece, 15, so the value starts at 15 + 2.
        let style = Style {
            ascii: true,
            width: 30,
        };
        let t = render_list(std::slice::from_ref(&r), &cols, Format::Table, style);
        assert!(t.lines().all(|l| l.chars().count() <= 30), "{t}");
        assert!(
            t.ends_with("first-second-    1234567890\n  third-fourth-\n  fifth\n"),
            "{t}"
        );
        let wide = Style {
            width: usize::MAX,
            ..style
        };
        let t = render_list(&[r], &cols, Format::Table, wide);
        assert!(
            t.contains("first-second-third-fourth-fifth  1234567890"),
            "{t}"
        );
    }

    #[test]
    fn text_is_escaped_wrapped_and_echoed_short() {
        assert_eq!(escape("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        let long = "x".repeat(500);
        let e = echo(&long);
        assert!(e.len() < 120 && e.contains("420 more characters"), "{e}");
        let w = wrap("one two three four five six\n", 10);
        assert!(w.lines().all(|l| l.chars().count() <= 10), "{w}");
        assert_eq!(w, "one two\n  three\n  four\n  five six\n");
    }
}
