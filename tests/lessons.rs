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

/// The training figures of the "Scaling a model" lesson are those
/// `ridgeline train` prints for the same layout (to the last digit: the
/// same solver calls), for the data-parallel step and the frontier run.
#[test]
fn training_figures_are_what_train_prints() {
    let cat = Catalog::builtin();
    let l = Lesson::open("scaling", &cat).unwrap();
    let cases: [(usize, &[&str]); 2] = [
        (
            2,
            &[
                "-H",
                "h100-sxm",
                "-m",
                "llama-3.1-8b",
                "--devices",
                "64",
                "--seq",
                "2048",
                "--global-batch",
                "131072",
            ],
        ),
        (
            8,
            &[
                "-H",
                "h100-sxm",
                "-m",
                "llama-3.1-405b",
                "--devices",
                "16384",
                "--tp",
                "8",
                "--pp",
                "16",
                "--interleave",
                "8",
                "--zero",
                "2",
                "--edge-layers",
                "1",
                "--contiguous",
                "8",
                "--seq",
                "8192",
                "--global-batch",
                "16M",
                "--tokens",
                "15.6T",
            ],
        ),
    ];
    for (step, args) in cases {
        let mut a = vec!["train"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["-f", "json"]);
        let t = common::cli::json(&a);
        let f = l.show(step, &cat).unwrap().figures;
        let n = |name: &str| number(&f, name);
        let close = |got: f64, want: f64, what: &str| {
            close_to(got, want, &format!("step {}: {what} (train)", step + 1))
        };
        let num = |k: &str| t[k].as_f64().unwrap();
        close(n("train.step"), num("step_time_s"), "step time");
        close(n("train.mfu"), num("mfu") * 100.0, "MFU %");
        close(n("train.tokens_per_s"), num("tokens_per_s"), "tokens/s");
        close(
            n("train.memory"),
            t["memory_per_device_bytes"]["total"].as_f64().unwrap() / 1e9,
            "memory GB",
        );
        close(n("train.days"), num("time_to_train_s") / 86_400.0, "days");
        close(n("train.goodput"), num("goodput") * 100.0, "goodput %");
        close(
            n("train.bubble"),
            num("bubble_fraction") * 100.0,
            "bubble %",
        );
        close(
            n("train.critical_tokens"),
            num("critical_batch_tokens_per_device"),
            "critical tokens",
        );
        let dp = t["comm"]["dp"]["exposed_s"].as_f64().unwrap();
        close(n("train.dp_comm"), dp / num("step_time_s") * 100.0, "DP %");
        assert_eq!(
            f.get("train.binding").unwrap().value,
            figures::Value::Text(t["binding"].as_str().unwrap().into())
        );
    }
}

/// The serving figures of the "Serving for real" lesson are those
/// `ridgeline serve` prints with the same flags: the static batch's
/// (everyone waits for the batch's prefill), then continuous batching's.
#[test]
fn serving_figures_are_what_serve_prints() {
    let cat = Catalog::builtin();
    let l = Lesson::open("serving", &cat).unwrap();
    let base = [
        "serve",
        "-H",
        "h100-sxm",
        "-m",
        "llama-3.1-8b",
        "--prompt",
        "2048",
        "--output",
        "256",
    ];
    // (step from 0, its flags, the TTFT and e2e keys of its mode)
    let cases: [(usize, &[&str], &str, &str); 3] = [
        (0, &["-b", "32"], "ttft_batch_s", "e2e_batch_s"),
        (
            2,
            &[
                "-b",
                "32",
                "--batching",
                "continuous",
                "--prefix-hit",
                "0.5",
            ],
            "ttft_s",
            "e2e_s",
        ),
        (
            4,
            &[
                "-b",
                "1",
                "--batching",
                "continuous",
                "--draft",
                "llama-3.2-1b",
            ],
            "ttft_s",
            "e2e_s",
        ),
    ];
    for (step, flags, ttft, e2e) in cases {
        let mut a = base.to_vec();
        a.extend_from_slice(flags);
        a.extend_from_slice(&["-f", "json"]);
        let s = common::cli::json(&a);
        let f = l.show(step, &cat).unwrap().figures;
        let n = |name: &str| number(&f, name);
        let close = |got: f64, want: f64, what: &str| {
            close_to(got, want, &format!("step {}: {what} (serve)", step + 1))
        };
        let num = |k: &str| s[k].as_f64().unwrap();
        close(n("serve.ttft"), num(ttft) * 1e3, "TTFT ms");
        close(n("serve.itl"), num("itl_s") * 1e3, "ITL ms");
        close(n("serve.e2e"), num(e2e), "e2e s");
        close(n("serve.tokens_per_s"), num("tokens_per_s"), "tokens/s");
        close(
            n("serve.cost_per_mtok"),
            num("cost_per_million_tokens_usd"),
            "$/M tokens",
        );
        if step > 0 {
            close(
                n("serve.tokens_per_step"),
                num("tokens_per_target_step"),
                "tokens per step",
            );
        }
    }
}

/// A number figure's value.
fn number(f: &figures::Figures, name: &str) -> f64 {
    match &f.get(name).unwrap().value {
        figures::Value::Number(x) => *x,
        v => panic!("{name}: {v:?}"),
    }
}

/// `got` equals `want` but for rounding (the same solver calls).
fn close_to(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: lesson {got}, command {want}"
    )
}

/// `ridgeline lesson NAME` gives the lesson in the workbench: a name that
/// is no lesson is an error before the terminal is touched, and `lesson`
/// alone says what to name.
#[test]
fn a_lesson_to_give_that_cannot_be_read_is_said_before_the_terminal() {
    let out = ridgeline(&["lesson", "no-such-lesson"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("lesson: it cannot be read; nothing was started"),
        "{err}"
    );
    assert!(err.contains("no-such-lesson:1:1: no such file"), "{err}");
    assert!(out.stdout.is_empty(), "nothing drawn");
    let out = ridgeline(&["lesson"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("name a lesson to give it in the workbench"),
        "{err}"
    );
    assert!(
        err.contains("knobs, design-space, scaling, serving"),
        "{err}"
    );
    // A readable lesson without a terminal: the workbench says it needs one.
    let out = ridgeline(&["lesson", "knobs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the workbench needs a terminal"));
}

/// A replica that does not fit as asked: the lesson's serving figures are
/// those `ridgeline serve` prints on the fewest devices that hold it
/// (Llama 3.1 405B on H100s: 812 GB of bf16 weights need 11 stages of
/// 76.5 GB usable), and under continuous batching, which `serve` shows no
/// figures for, none.
#[test]
fn a_replica_that_does_not_fit_serves_on_the_fewest_devices_as_serve_prints() {
    let cat = Catalog::builtin();
    let lesson = |batching: &str| {
        let p = file(
            &format!("405b-{batching}.toml"),
            &format!(
                "title = \"t\"\nreproduces = \"r\"\n[[step]]\ncaption = \"{{serve.ttft}}\"\n\
                 hardware = \"h100-sxm\"\nmodel = \"llama-3.1-405b\"\n[step.serving]\n\
                 prompt = 2048\noutput = 256\nbatching = \"{batching}\"\n"
            ),
        );
        Lesson::open(p.to_str().unwrap(), &cat).unwrap()
    };
    let s = common::cli::json(&[
        "serve",
        "-H",
        "h100-sxm",
        "-m",
        "llama-3.1-405b",
        "--prompt",
        "2048",
        "--output",
        "256",
        "-f",
        "json",
    ]);
    let at = &s["at_min_devices_to_fit"];
    assert_eq!(at["devices"], 11, "{at}");
    let f = lesson("static").show(0, &cat).unwrap().figures;
    let num = |k: &str| at[k].as_f64().unwrap();
    close_to(
        number(&f, "serve.ttft"),
        num("ttft_batch_s") * 1e3,
        "TTFT ms",
    );
    close_to(number(&f, "serve.itl"), num("itl_s") * 1e3, "ITL ms");
    close_to(
        number(&f, "serve.tokens_per_s"),
        num("tokens_per_s"),
        "tokens/s",
    );
    close_to(
        number(&f, "serve.cost_per_mtok"),
        num("cost_per_million_tokens_usd"),
        "$/M tokens",
    );
    let f = lesson("continuous").show(0, &cat).unwrap().figures;
    assert_eq!(f.get("serve.ttft").unwrap().value, figures::Value::None);
}
