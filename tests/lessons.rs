//! `ridgeline lesson`: exit codes, problems at file:line:col, and the
//! figures of a lesson being those of `eval` and of the workbench.

mod common;

use common::cli::ridgeline;
use ridgeline::catalog::Catalog;
use ridgeline::lesson::{BUILT_IN, Lesson, figures};
use std::path::PathBuf;

fn file(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-lessons-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

const EIGHT_B: &str = "title = \"t\"\nreproduces = \"r\"\n[[step]]\n\
    caption = \"{latency}, {binding}-bound\"\nhardware = \"a100-sxm-80gb\"\n\
    model = \"llama-3.1-8b\"\n";

#[test]
fn check_passes_on_every_built_in_lesson() {
    for (name, _) in BUILT_IN {
        let out = ridgeline(&["lesson", "check", name]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stdout));
        assert!(text(&out.stdout).contains("all hold"), "{name}");
    }
    let list = text(&ridgeline(&["lesson", "list"]).stdout);
    for (name, _) in BUILT_IN {
        assert!(list.contains(&format!("{name}: ")), "{list}");
    }
}

#[test]
fn an_expectation_that_fails_exits_1_and_names_its_line() {
    // 8B decode at batch 1 on an A100 reads 16 GB of weights per token:
    // memory-bound, never compute-bound, and at least 16.06 GB / 2.039
    // TB/s = 7.9 ms, so both expectations below are false.
    let p = file(
        "fails.toml",
        &format!("{EIGHT_B}[step.expect]\nbinding = \"compute\"\nlatency_ms = [1, 2]\n"),
    );
    let out = ridgeline(&["lesson", "check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    // The lines wrap at 80 columns: compared with spaces evened out.
    let o = text(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let shown = p.display().to_string();
    assert!(
        o.contains(&format!(
            "{shown}:8:1: step 1: binding is \"memory\", expected \"compute\""
        )),
        "{o}"
    );
    assert!(
        o.contains(&format!("{shown}:9:1: step 1: latency_ms is ")),
        "{o}"
    );
    assert!(
        text(&out.stderr).contains("2 problems"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_bad_file_exits_2_with_every_problem_at_its_place() {
    let p = file(
        "bad.toml",
        &format!("{EIGHT_B}[step.workload]\nbatch = -1\n[step.expect]\nlatnecy_ms = 3\n"),
    );
    for cmd in ["check", "show"] {
        let out = ridgeline(&["lesson", cmd, p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let e = text(&out.stderr);
        let shown = p.display().to_string();
        assert!(e.contains(&format!("{shown}:8:1: batch")), "{e}");
        assert!(
            e.contains(&format!("{shown}:10:1: unknown expectation `latnecy_ms`")),
            "{e}"
        );
        assert!(out.stdout.is_empty(), "{cmd}");
    }
    let out = ridgeline(&["lesson", "show", "no-such-lesson"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("knobs"));
}

#[test]
fn a_caption_shows_what_eval_and_the_workbench_show() {
    let p = file("same.toml", EIGHT_B);
    let out = ridgeline(&["lesson", "show", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let eval = common::cli::json(&[
        "eval",
        "-H",
        "a100-sxm-80gb",
        "-m",
        "llama-3.1-8b",
        "-f",
        "json",
    ]);
    let lat = eval["latency_s"].as_f64().unwrap();
    let caption = format!(
        "1/1 {}, {}-bound",
        ridgeline::solver::units::format_time(lat),
        eval["bottleneck"].as_str().unwrap()
    );
    assert!(
        text(&out.stdout).contains(&caption),
        "{}",
        text(&out.stdout)
    );
    // The workbench, opened on the step's state, computes the same step.
    let cat = Catalog::builtin();
    let l = Lesson::parse("same.toml", EIGHT_B, &cat).unwrap();
    let mut app = common::app();
    app.apply_scenario(&l.steps[0].state).unwrap();
    app.recompute();
    let (a, _) = app.shown().unwrap();
    assert_eq!(a.eval().latency_s, lat);
    let shown = l.show(0, &cat).unwrap();
    let f = shown.figures.get("latency").unwrap();
    assert_eq!(f.value, figures::Value::Number(lat * 1e3));
}

#[test]
fn the_reference_lists_every_figure() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/commands/lesson.md"
    ))
    .unwrap();
    for d in figures::DEFS {
        let row = format!("| `{{{}}}` | `{}` |", d.name, d.expect);
        assert!(doc.contains(&row), "docs/commands/lesson.md lacks {row}");
    }
}

#[test]
fn export_writes_a_handout_into_a_new_directory_and_never_over_one() {
    let dir = std::env::temp_dir().join(format!("ridgeline-lessons-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let out = ridgeline(&["lesson", "export", "design-space", "-o", d]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = std::fs::read_to_string(dir.join("handout.md")).unwrap();
    // The handout and each step's plot (every step of design-space is on
    // a view with one: sweep, generations, roofline), no temporary file
    // left beside them; each plot parses and the handout links it.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want = vec!["handout.md".to_string()];
    want.extend((1..=7).map(|i| format!("step-{i}.svg")));
    assert_eq!(names, want);
    for i in 1..=7 {
        let svg = std::fs::read_to_string(dir.join(format!("step-{i}.svg"))).unwrap();
        roxmltree::Document::parse(&svg).unwrap();
        assert!(
            md.contains(&format!("](step-{i}.svg)")),
            "step {i} not linked"
        );
    }
    assert!(md.starts_with("# The design space\n"), "{md}");
    // Each step's caption as `show` fills it (show wraps at 80 columns).
    let cat = Catalog::builtin();
    let l = Lesson::open("design-space", &cat).unwrap();
    for i in 0..l.steps.len() {
        let s = l.show(i, &cat).unwrap();
        assert!(md.contains(&format!("\n{}\n", s.caption)), "step {}", i + 1);
        assert!(md.contains(&format!("## Step {} of {}", i + 1, l.steps.len())));
    }
    // Every expectation is in the tables, and holds.
    let expected: usize = l.steps.iter().map(|s| s.expect.len()).sum();
    assert_eq!(md.matches(": holds |").count(), expected, "{md}");
    assert!(!md.contains("DOES NOT HOLD"));
    // A second export to the same directory is refused, the handout kept.
    let again = ridgeline(&["lesson", "export", "knobs", "-o", d]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("it exists"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(std::fs::read_to_string(dir.join("handout.md")).unwrap(), md);
    std::fs::remove_dir_all(&dir).unwrap();
}
