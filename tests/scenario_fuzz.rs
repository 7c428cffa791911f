//! The scenario reader under abuse: random bytes, and random mutations of
//! the shipped scenarios (assets/scenarios/), never panic and never hang;
//! whatever it accepts saves to a file it accepts again, equal.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use ridgeline::catalog::Catalog;
use ridgeline::scenario::Scenario;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// A hang guard, not a speed test (speed is in the benches): reading any
/// of these inputs takes well under a millisecond, so a minute per batch of
/// cases means the reader is stuck.
const HANG: Duration = Duration::from_secs(60);

/// The shipped scenario texts.
fn shipped() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    v.sort();
    v
}

/// Read `text` as a user's file would be read; what is accepted must save
/// to text that reads back equal. Problems must be sorted and located.
fn read(text: &str, cat: &Catalog) -> Result<(), TestCaseError> {
    match Scenario::parse_with("f.toml", text, cat) {
        Ok(s) => {
            let again = Scenario::parse_with("again.toml", &s.to_toml(), cat);
            prop_assert_eq!(again.as_ref(), Ok(&s), "{}", s.to_toml());
        }
        Err(e) => {
            prop_assert!(!e.0.is_empty());
            let lines = text.split('\n').count();
            for p in &e.0 {
                prop_assert!(p.line >= 1 && p.line <= lines, "{} of {} lines", p, lines);
                prop_assert!(p.column >= 1 && !p.message.is_empty(), "{}", p);
                // One line each, and nothing from the file reaches a
                // terminal raw (no escape sequences, no line breaks).
                prop_assert!(!p.message.chars().any(char::is_control), "{:?}", p.message);
            }
            prop_assert!(
                e.0.windows(2)
                    .all(|w| (w[0].line, w[0].column) <= (w[1].line, w[1].column)),
                "{}",
                e
            );
        }
    }
    Ok(())
}

/// Run `cases` cases of `strategy` through `read` on another thread; fail
/// if it panics or does not finish within `HANG`.
fn fuzz<S>(cases: u32, strategy: S)
where
    S: Strategy<Value = String> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let cat = Catalog::builtin();
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        let r = runner
            .run(&strategy, |text| read(&text, &cat))
            .map_err(|e| e.to_string());
        let _ = tx.send(r);
    });
    match rx.recv_timeout(HANG) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{e}"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the reader did not finish within {HANG:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the reader panicked"),
    }
}

/// Text that looks like TOML, to reach past the syntax errors.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "=",
            "[",
            "]",
            "[[",
            "]]",
            "{",
            "}",
            ",",
            "\"",
            "'",
            "\"\"\"",
            "#",
            "\n",
            ".",
            "-",
            "+",
            "0",
            "-1",
            "1e309",
            "nan",
            "inf",
            "-inf",
            "1.5",
            "true",
            "1979-05-27",
            "0x10",
            "1_000",
            "\"\"",
            "\"soon\"",
            "\"50ms\"",
            "\"1..0\"",
            "\"fp7\"",
            "\"h999\"",
            "\"marked\"",
            "[]",
            "workload",
            "fleet",
            "batch",
            "qps",
            "view",
            "compare",
            "\\u0000",
            "\u{7f}",
            "é",
            "\t",
            "\r",
            "\"\\u001b[31m\"",
            "\u{1b}]0;x\u{7}",
            "\"\\u001b\" = 1",
        ])
        .prop_map(str::to_string),
        "[a-z_.]{1,12}",
        "[ -~]{0,8}",
    ]
}

#[test]
fn random_bytes_never_panic_or_hang() {
    fuzz(
        1024,
        prop::collection::vec(any::<u8>(), 0..2048)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    );
    fuzz(
        1024,
        prop::collection::vec(token(), 0..64).prop_map(|t| t.join(" ")),
    );
}

/// One edit of a text: delete a range, insert tokens, duplicate or drop a
/// line, or replace a value.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    DuplicateLine(usize),
    DropLine(usize),
    ReplaceValue(usize, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), prop::collection::vec(token(), 1..4))
            .prop_map(|(a, t)| Edit::Insert(a, t.concat())),
        any::<usize>().prop_map(Edit::DuplicateLine),
        any::<usize>().prop_map(Edit::DropLine),
        (any::<usize>(), token()).prop_map(|(a, t)| Edit::ReplaceValue(a, t)),
    ]
}

/// The nearest char boundary at or below `i % (len + 1)`.
fn boundary(s: &str, i: usize) -> usize {
    let mut i = i % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, e: &Edit) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match e {
        Edit::Delete(a, n) => {
            let a = boundary(text, *a);
            let b = boundary(text, a + n);
            let b = b.max(a);
            format!("{}{}", &text[..a], &text[b..])
        }
        Edit::Insert(a, t) => {
            let a = boundary(text, *a);
            format!("{}{t}{}", &text[..a], &text[a..])
        }
        Edit::DuplicateLine(i) if !lines.is_empty() => {
            let i = i % lines.len();
            lines.insert(i, lines[i].clone());
            lines.join("\n")
        }
        Edit::DropLine(i) if !lines.is_empty() => {
            lines.remove(i % lines.len());
            lines.join("\n")
        }
        Edit::ReplaceValue(i, t) if !lines.is_empty() => {
            let i = i % lines.len();
            if let Some((k, _)) = lines[i].split_once('=') {
                lines[i] = format!("{k}= {t}");
            }
            lines.join("\n")
        }
        _ => text.to_string(),
    }
}

#[test]
fn mutated_shipped_scenarios_never_panic_or_hang() {
    let files = shipped();
    assert!(files.len() >= 6);
    let strategy = (
        prop::sample::select(files),
        prop::collection::vec(edit(), 1..6),
    )
        .prop_map(|(text, edits)| edits.iter().fold(text, |t, e| apply(&t, e)));
    fuzz(2048, strategy);
}

#[test]
fn large_files_are_read_in_bounded_time_or_refused() {
    // 20,000 unknown keys, 20,000 problems: one pass, not one per key.
    let text: String = (0..20_000).map(|i| format!("k{i} = {i}\n")).collect();
    fuzz(1, Just(text));
    // Deep nesting is a syntax problem, not a stack overflow.
    fuzz(
        1,
        Just(format!("a = {}{}", "[".repeat(10_000), "]".repeat(10_000))),
    );
    fuzz(1, Just(format!("a = {}", "{ b = ".repeat(5_000))));
    // A file over the limit is refused before it is read.
    let dir = std::env::temp_dir().join(format!("ridgeline-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(ridgeline::scenario::MAX_SCENARIO_BYTES + 1)
        .unwrap();
    let e = Scenario::load(&big).unwrap_err();
    assert!(e.to_string().contains("over the limit"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
