//! Output that cannot act on its reader (issue 19, section 3): the one
//! escaping function lets no character of Unicode category Cc or Cf
//! through, JSON text carries none raw, and no CSV text cell starts a
//! spreadsheet formula, for any input.

use proptest::prelude::*;
use ridgeline::catalog::fields::{is_unprintable, printable};
use ridgeline::cli::args::Format;
use ridgeline::cli::output::{Fmt, Style, col, csv_cell, echo, escape, json_text, render_list};
use ridgeline::cli::sanitize_message;
use serde_json::{Map, Value, json};

/// Unicode category Cf, every range, written out independently of the
/// escaper's table: `python3 -c "import unicodedata"` (Unicode 14.0) over
/// U+0000..U+10FFFF, plus U+13439..U+1343F, which Unicode 15.0 added
/// (UnicodeData.txt, Egyptian hieroglyph format controls).
const CF: &[(u32, u32)] = &[
    (0xAD, 0xAD),
    (0x600, 0x605),
    (0x61C, 0x61C),
    (0x6DD, 0x6DD),
    (0x70F, 0x70F),
    (0x890, 0x891),
    (0x8E2, 0x8E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

fn is_cf(c: char) -> bool {
    CF.iter().any(|&(a, b)| (a..=b).contains(&(c as u32)))
}

/// Cc (`char::is_control` is exactly category Cc) or Cf.
fn cc_or_cf(c: char) -> bool {
    c.is_control() || is_cf(c)
}

#[test]
fn the_escaper_knows_every_cc_and_cf_character_and_no_other() {
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        assert_eq!(is_unprintable(c), cc_or_cf(c), "U+{:04X}", c as u32);
    }
}

/// Text mixing plain characters, Cc, Cf, formula starters and CSV syntax.
fn nasty() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        any::<char>().prop_map(String::from),
        prop::sample::select(vec![
            "\u{1b}[2J",
            "\u{1b}]0;t\u{7}",
            "\u{9b}",
            "\u{202e}",
            "\u{2066}",
            "\u{2069}",
            "\u{200b}",
            "\u{200d}",
            "\u{feff}",
            "\u{ad}",
            "\u{e0041}",
            "\u{7f}",
            "\u{85}",
            "=",
            "+",
            "-",
            "@",
            "\t",
            "\r",
            "\n",
            ",",
            "\"",
            "'",
            "1",
            "a",
            "é",
            " ",
        ])
        .prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

/// The cells of one CSV line as written (a quoted cell unquoted).
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_cc_or_cf_character_passes_the_escaper(s in nasty()) {
        for out in [printable(&s).into_owned(), escape(&s), echo(&s)] {
            prop_assert!(!out.chars().any(cc_or_cf), "{out:?}");
        }
        // clap's error text keeps its line breaks, and nothing else raw.
        let m = sanitize_message(&format!("error: invalid value '{s}'\n"));
        prop_assert!(!m.chars().any(|c| c != '\n' && cc_or_cf(c)), "{m:?}");
    }

    #[test]
    fn json_text_has_no_raw_cc_or_cf_and_reads_back_the_same(s in nasty()) {
        let v = json!({ "name": s, "list": [s.clone(), 1.5] });
        let t = json_text(&v);
        prop_assert!(!t.chars().any(|c| c != '\n' && cc_or_cf(c)), "{t:?}");
        let back: Value = serde_json::from_str(&t).unwrap();
        prop_assert_eq!(back, v);
    }

    #[test]
    fn no_csv_text_cell_starts_a_formula_and_numbers_stay_numbers(
        names in prop::collection::vec(nasty(), 1..6),
        x in any::<f64>().prop_filter("JSON numbers are finite", |x| x.is_finite()),
    ) {
        let cols = [col("name", "name", Fmt::Text), col("x", "x", Fmt::Num)];
        let records: Vec<Map<String, Value>> = names
            .iter()
            .map(|n| {
                let mut r = Map::new();
                r.insert("name".into(), json!(n));
                r.insert("x".into(), json!(x));
                r
            })
            .collect();
        let csv = render_list(&records, &cols, Format::Csv, Style::plain());
        let lines: Vec<&str> = csv.lines().collect();
        // A header and one line per record: no text breaks a line.
        prop_assert_eq!(lines.len(), records.len() + 1, "{}", csv);
        prop_assert!(!csv.chars().any(|c| c != '\n' && cc_or_cf(c)), "{csv:?}");
        for line in &lines[1..] {
            let c = cells(line);
            prop_assert_eq!(c.len(), 2, "{}", line);
            prop_assert!(!c[0].starts_with(['=', '+', '-', '@', '\t', '\r']), "{line:?}");
            // The number is written as JSON writes it, sign and all.
            prop_assert_eq!(&c[1], &json!(x).to_string());
        }
        prop_assert_eq!(csv_cell(&json!(x)), json!(x).to_string());
    }
}

#[test]
fn a_region_named_as_a_formula_is_neutral_in_zoo_csv() {
    let dir = std::env::temp_dir().join(format!("ridgeline-csv-formula-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("catalog")).unwrap();
    std::fs::write(
        dir.join("catalog/regions.toml"),
        "[[region]]\nid = \"formula\"\nname = \"=HYPERLINK(\\\"http://x\\\",\\\"y\\\")\"\n\
         grid_gco2_per_kwh = 100\npue = 1.1\nelectricity_usd_per_kwh = 0.1\nyear = 2024\n\
         source = \"@SUM(A1:A2)\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(["zoo", "regions", "-f", "csv"])
        .env("RIDGELINE_CONFIG_DIR", &dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("formula,"))
        .unwrap_or_else(|| panic!("no formula row in\n{text}"));
    let c = cells(line);
    assert_eq!(c[1], "'=HYPERLINK(\"http://x\",\"y\")");
    // The figures after it stay numbers.
    assert_eq!(c[2], "100.0");
    std::fs::remove_dir_all(&dir).ok();
}

/// Every flag of every subcommand that takes a value, given one with an
/// escape sequence, a right-to-left override and a zero-width space: no
/// output carries any of them raw (clap's error text, the commands' own
/// messages through `echo()`, their tables, JSON and CSV).
#[test]
fn no_flag_echoes_a_control_or_format_character_raw() {
    use clap::CommandFactory;
    let value = "x\u{1b}[2J\u{202e}y\u{200b}";
    let root = ridgeline::cli::args::Cli::command();
    let mut runs = 0;
    for sub in root.get_subcommands() {
        let name = sub.get_name().to_string();
        for arg in sub.get_arguments() {
            let (Some(long), true) = (arg.get_long(), arg.get_action().takes_values()) else {
                continue;
            };
            let flag = format!("--{long}");
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ridgeline"))
                .args([name.as_str(), flag.as_str(), value])
                .env(
                    "RIDGELINE_CONFIG_DIR",
                    std::env::temp_dir().join("ridgeline-no-config"),
                )
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            // A value that is accepted runs the command: give it a while.
            let start = std::time::Instant::now();
            while child.try_wait().unwrap().is_none() {
                if start.elapsed() > std::time::Duration::from_secs(20) {
                    let _ = child.kill();
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            let out = child.wait_with_output().unwrap();
            for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
                let text = String::from_utf8_lossy(bytes);
                assert!(
                    !text.chars().any(|c| c != '\n' && cc_or_cf(c)),
                    "{name} {flag}: {what} {text:?}"
                );
            }
            runs += 1;
        }
    }
    // The subcommands' value flags (more than a hundred): the loop ran.
    assert!(runs > 100, "{runs}");
}
