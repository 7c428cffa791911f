//! Output formats: records as JSON objects (the contract), rendered as JSON,
//! CSV (raw SI values), or aligned text and Markdown tables (human units).

use super::args::Format;
use crate::solver::units;
use serde_json::{Map, Value};

/// How a column's raw value reads to a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    Time,
    Bytes,
    Bandwidth,
    Flops,
    /// Three significant digits.
    Num,
    /// A whole number.
    Int,
    /// US dollars.
    Usd,
    /// A percentage of a fraction.
    Pct,
    Text,
}

/// One column: header, JSON key, format.
pub struct Col {
    pub header: &'static str,
    pub key: &'static str,
    pub fmt: Fmt,
}

pub const fn col(header: &'static str, key: &'static str, fmt: Fmt) -> Col {
    Col { header, key, fmt }
}

/// A raw value for a human.
pub fn human(v: &Value, fmt: Fmt) -> String {
    match v {
        Value::Null => "-".into(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            match fmt {
                Fmt::Time => units::format_time(x),
                Fmt::Bytes => units::format_bytes(x),
                Fmt::Bandwidth => units::format_bandwidth(x),
                Fmt::Flops => units::format_flops(x),
                Fmt::Num | Fmt::Text => units::format_number(x),
                Fmt::Int => format!("{}", x.round() as i64),
                Fmt::Usd => format!("${x:.2}"),
                Fmt::Pct => format!("{:.1}%", x * 100.0),
            }
        }
        other => other.to_string(),
    }
}

fn csv_cell(v: &Value) -> String {
    let s = match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Render a list of records. JSON prints every key; the other formats print `cols`.
pub fn render_list(records: &[Map<String, Value>], cols: &[Col], format: Format) -> String {
    match format {
        Format::Json => {
            let arr = Value::Array(records.iter().cloned().map(Value::Object).collect());
            serde_json::to_string_pretty(&arr).unwrap_or_default() + "\n"
        }
        Format::Csv => {
            let mut out = cols.iter().map(|c| c.key).collect::<Vec<_>>().join(",");
            out.push('\n');
            for r in records {
                let cells: Vec<String> = cols
                    .iter()
                    .map(|c| csv_cell(r.get(c.key).unwrap_or(&Value::Null)))
                    .collect();
                out.push_str(&cells.join(","));
                out.push('\n');
            }
            out
        }
        Format::Table | Format::Markdown => {
            let rows: Vec<Vec<String>> = records
                .iter()
                .map(|r| {
                    cols.iter()
                        .map(|c| human(r.get(c.key).unwrap_or(&Value::Null), c.fmt))
                        .collect()
                })
                .collect();
            let headers: Vec<String> = cols.iter().map(|c| c.header.to_string()).collect();
            let right: Vec<bool> = cols.iter().map(|c| c.fmt != Fmt::Text).collect();
            if format == Format::Markdown {
                markdown(&headers, &rows, &right)
            } else {
                text_table(&headers, &rows, &right)
            }
        }
    }
}

/// Render one record as key/value rows.
pub fn render_record(record: &Map<String, Value>, cols: &[Col], format: Format) -> String {
    match format {
        Format::Json => {
            serde_json::to_string_pretty(&Value::Object(record.clone())).unwrap_or_default() + "\n"
        }
        Format::Csv => render_list(std::slice::from_ref(record), cols, format),
        Format::Table | Format::Markdown => {
            let rows: Vec<Vec<String>> = cols
                .iter()
                .map(|c| {
                    vec![
                        c.header.to_string(),
                        human(record.get(c.key).unwrap_or(&Value::Null), c.fmt),
                    ]
                })
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

fn markdown(headers: &[String], rows: &[Vec<String>], right: &[bool]) -> String {
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
            render_list(std::slice::from_ref(&r), &cols, Format::Csv),
            "a,b\n\"x, y\",2.5\n"
        );
        let t = render_list(&[r], &cols, Format::Table);
        assert_eq!(t, "A       B\n----  ---\nx, y  2.5\n");
    }
}
