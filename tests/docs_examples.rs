//! Every example the README and docs/ show with its output is run here and
//! compared (issue 18, 7): a fenced block whose first line is
//! `$ ridgeline ARGS` is run (at the default 80 columns, no user catalog)
//! and its standard output must equal the rest of the block; a last line
//! `...` shortens it, so the block must be the output's first lines. A
//! screen marked `<!-- screen: NAME -->` must equal the snapshot test's
//! `src/tui/snapshots/ridgeline__tui__snapshot_tests__NAME.snap`.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// The binary as the docs show it: no user catalog, 80 columns, a UTF-8
/// locale (the same in CI whatever its environment).
fn ridgeline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(args)
        .env("RIDGELINE_CONFIG_DIR", common::cli::empty_dir())
        .env_remove("COLUMNS")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env("LANG", "C.UTF-8")
        .env_remove("NO_COLOR")
        .output()
        .expect("run ridgeline")
}

/// README.md and every page under docs/, with their names.
fn pages() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::doc_pages()
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The fenced blocks of a page: (the line before the fence, the block's lines).
fn blocks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let mut before = String::new();
    while let Some(l) = lines.next() {
        if l.starts_with("```") {
            let mut body = Vec::new();
            for b in lines.by_ref() {
                if b.starts_with("```") {
                    break;
                }
                body.push(b.to_string());
            }
            out.push((before.clone(), body));
        }
        before = l.to_string();
    }
    out
}

#[test]
fn every_example_shown_with_its_output_prints_that_output() {
    let mut checked = 0;
    for (page, text) in pages() {
        for (_, body) in blocks(&text) {
            let Some(cmd) = body.first().and_then(|l| l.strip_prefix("$ ridgeline ")) else {
                continue;
            };
            let args: Vec<&str> = cmd.split_whitespace().collect();
            let out = ridgeline(&args);
            let printed = String::from_utf8_lossy(&out.stdout);
            let printed: Vec<&str> = printed.trim_end_matches('\n').lines().collect();
            let mut shown: Vec<&str> = body[1..].iter().map(String::as_str).collect();
            let prefix = shown.last() == Some(&"...");
            if prefix {
                shown.pop();
                assert!(
                    printed.len() > shown.len(),
                    "{page}: `ridgeline {cmd}` prints {} lines, the shortened block shows {}",
                    printed.len(),
                    shown.len()
                );
                assert_eq!(
                    printed[..shown.len()],
                    shown[..],
                    "{page}: `ridgeline {cmd}`"
                );
            } else {
                assert_eq!(printed, shown, "{page}: `ridgeline {cmd}`");
            }
            checked += 1;
        }
    }
    // The README's five jobs at least.
    assert!(checked >= 5, "{checked} examples found");
}

#[test]
fn every_screen_shown_is_a_snapshot_tests_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for (page, text) in pages() {
        for (before, body) in blocks(&text) {
            let Some(name) = before
                .strip_prefix("<!-- screen: ")
                .and_then(|s| s.strip_suffix(" -->"))
            else {
                continue;
            };
            // A bare name is a snapshot of src/tui/snapshot_tests.rs; a path
            // names any snapshot file.
            let snap = if name.contains('/') {
                root.join(name)
            } else {
                root.join(format!(
                    "src/tui/snapshots/ridgeline__tui__snapshot_tests__{name}.snap"
                ))
            };
            let snap =
                std::fs::read_to_string(&snap).unwrap_or_else(|e| panic!("{page}: {name}: {e}"));
            // The snapshot: a header, then each row quoted.
            let rows: Vec<String> = snap
                .split("---\n")
                .nth(2)
                .unwrap()
                .lines()
                .map(|l| l.trim_start_matches('"').trim_end_matches('"').to_string())
                .collect();
            assert_eq!(body, rows, "{page}: screen {name}");
            checked += 1;
        }
    }
    assert!(checked >= 1);
}

#[test]
fn the_readme_is_a_front_door_under_300_lines_linking_every_page() {
    let pages = pages();
    let readme = &pages[0].1;
    assert!(readme.lines().count() < 300, "{}", readme.lines().count());
    assert!(readme.starts_with("# ridgeline\n\n```sh\ncargo run --release"));
    let page = |name: &str| &pages.iter().find(|(n, _)| n == name).unwrap().1;
    // The README links every topic page; the command line's page every
    // command's, the workbench's every view's (sources are notes).
    for (name, _) in &pages[1..] {
        let (linker, link) = if let Some(rest) = name.strip_prefix("docs/commands/") {
            (page("docs/command-line.md"), format!("](commands/{rest})"))
        } else if let Some(rest) = name.strip_prefix("docs/views/") {
            (page("docs/workbench.md"), format!("](views/{rest})"))
        } else if name.starts_with("docs/sources/") {
            continue;
        } else {
            (readme, format!("]({name})"))
        };
        assert!(linker.contains(&link), "no link to {name}");
    }
    // One page per subcommand that prints figures, one per view.
    for cmd in [
        "eval",
        "sens",
        "synth",
        "compare",
        "sweep",
        "serve",
        "fleet",
        "train",
        "scale",
        "ops",
        "explore",
        "validate",
        "collective",
    ] {
        assert!(
            pages
                .iter()
                .any(|(n, _)| *n == format!("docs/commands/{cmd}.md")),
            "{cmd}"
        );
    }
    let views = pages
        .iter()
        .filter(|(n, _)| n.starts_with("docs/views/"))
        .count();
    assert_eq!(views, ridgeline::tui::views::View::ALL.len());
}

#[test]
fn every_relative_link_of_the_docs_names_a_file_that_exists() {
    // A link `[text](path)` (an anchor after `#` left aside) that is not a
    // URL resolves against the page's own folder: docs/commands/train.md's
    // link to training.md must be written ../training.md.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    for (page, text) in pages() {
        let dir = root.join(&page);
        let dir = dir.parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or("");
            if target.is_empty()
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.contains(char::is_whitespace)
            {
                continue;
            }
            if !dir.join(target).exists() {
                broken.push(format!("{page}: {target}"));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}
