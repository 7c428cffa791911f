//! 80 columns everywhere: every subcommand's text output and every help
//! page fit 80 columns when standard output is not a terminal and COLUMNS
//! is not set; `--wide` still prints validate's whole table; a help page
//! lists the command's own options before the global ones and says only
//! the formats the command takes.

mod common;

use clap::CommandFactory;
use ridgeline::cli::args::Cli;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const WIDTH: usize = 80;

/// A fresh, empty config directory of this test's own (no user catalog;
/// `import` writes here).
fn config_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-columns-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run the binary with its output to a pipe (not a terminal) and no
/// COLUMNS, as a script would.
fn run(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(args)
        .env("RIDGELINE_CONFIG_DIR", config)
        .env_remove("COLUMNS")
        .output()
        .expect("run ridgeline")
}

fn stdout(config: &Path, args: &[&str]) -> String {
    let out = run(config, args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // 0 ok; 3 a verdict that failed (its output is printed all the same).
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{args:?} exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.is_empty(), "{args:?} printed nothing");
    text
}

/// The lines of `text` longer than `width` characters.
fn too_wide(text: &str, width: usize) -> Vec<&str> {
    text.lines().filter(|l| l.chars().count() > width).collect()
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/hf/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Typical command lines of every subcommand, in the default (table)
/// format: the defaults, a configuration that does not fit, the README's
/// examples.
fn typical() -> Vec<Vec<String>> {
    let qwen = fixture("qwen2.5-7b-instruct-awq");
    let (dsv3, gemma) = (fixture("deepseek-v3"), fixture("gemma-3-4b-it"));
    // A plot says where it wrote (the figure itself is SVG, not a table).
    let svg = std::env::temp_dir()
        .join("ridgeline-columns-plot.svg")
        .display()
        .to_string();
    let lines: Vec<Vec<&str>> = vec![
        vec!["eval"],
        vec!["eval", "-m", "llama-3.1-70b", "-H", "a100"],
        vec!["eval", "-m", "llama-3.1-405b", "-H", "h100", "--tp", "2"],
        vec!["eval", "-m", &qwen, "-H", "rtx-4090"],
        vec!["sens"],
        vec!["sens", "-m", "llama-3.1-70b", "-H", "a100"],
        vec!["ops"],
        vec!["ops", "-m", "llama-3.1-70b", "-H", "a100"],
        vec![
            "ops",
            "--phase",
            "prefill",
            "--batch",
            "256",
            "--context",
            "256",
        ],
        vec!["serve"],
        vec!["serve", "-m", "llama-3.1-70b", "-H", "a100"],
        vec![
            "serve", "--batch", "16", "--prompt", "2k", "--output", "256", "--region", "us-east",
        ],
        vec!["compare"],
        vec![
            "compare",
            "-m",
            "llama-3.1-70b",
            "-p",
            "fp8",
            "-H",
            "a100-sxm-40gb,h100,b200",
        ],
        vec!["sweep"],
        vec!["sweep", "--batch", "1..512", "--hardware", "all"],
        vec!["sweep", "--contexts", "1k..128k"],
        vec!["synth", "--target", "20ms itl"],
        vec!["synth", "-m", "llama-3.1-70b", "--target", "1ms itl"],
        vec![
            "synth",
            "-m",
            "llama-3.1-70b",
            "--target",
            "50ms itl",
            "--hardware",
            "all",
        ],
        vec!["fleet", "--qps", "10", "--ttft", "200ms", "--itl", "50ms"],
        // The capstone, in text (its last argument asks for JSON).
        common::cli::CAPSTONE[..common::cli::CAPSTONE.len() - 1].to_vec(),
        vec![
            "fleet",
            "-m",
            "llama-3-70b",
            "--qps",
            "1000",
            "--ttft",
            "100ms",
            "--itl",
            "50ms",
            "--mode",
            "disaggregated",
        ],
        vec!["explore"],
        vec![
            "explore",
            "-m",
            "llama-3.1-70b",
            "--hardware",
            "all",
            "--all",
        ],
        vec!["train"],
        vec![
            "train",
            "--model",
            "gpt-3",
            "--hardware",
            "a100",
            "--devices",
            "1024",
            "--tp",
            "8",
            "--pp",
            "8",
        ],
        vec!["train", "--search"],
        vec!["scale"],
        vec![
            "scale",
            "-m",
            "llama-3.1-8b",
            "-H",
            "h100",
            "--devices",
            "8..16384",
        ],
        vec![
            "scale",
            "-m",
            "llama-3.1-70b",
            "--devices",
            "64..8192",
            "--tp",
            "8",
            "--zero",
            "1",
            "--global-batch",
            "16M",
        ],
        vec!["scale", "--devices", "8,16", "--zero", "0"],
        vec![
            "scale",
            "--phase",
            "decode",
            "-m",
            "llama-3.1-70b",
            "--devices",
            "1..64",
        ],
        vec![
            "scale",
            "--phase",
            "prefill",
            "--batch",
            "8",
            "--context",
            "8k",
        ],
        vec!["validate"],
        vec!["validate", "--profile", "default", "--split", "check"],
        vec!["validate", "--kind", "train"],
        vec!["zoo", "hardware"],
        vec!["zoo", "models"],
        vec!["zoo", "regions"],
        vec!["zoo", "profiles"],
        vec![
            "collective",
            "--op",
            "all-reduce",
            "--bytes",
            "1GB",
            "--devices",
            "64",
        ],
        vec!["catalog", "check"],
        vec!["lesson", "list"],
        vec!["lesson", "show", "knobs"],
        vec!["lesson", "show", "design-space"],
        vec!["lesson", "check", "knobs"],
        vec!["plot", "roofline", "-o", &svg, "--force"],
        vec!["import", &qwen],
        vec!["import", &qwen, "--id", "qwen-2"],
        // Its longest report: an MoE with MLA, a built-in id taken.
        vec!["import", &dsv3],
        vec!["import", &gemma],
        // This machine: whatever it is, the report wraps at 80.
        vec!["probe"],
    ];
    lines
        .into_iter()
        .map(|l| l.into_iter().map(String::from).collect())
        .collect()
}

#[test]
fn every_subcommand_fits_80_columns_by_default() {
    let cfg = config_dir("text");
    let lines = typical();
    // Every subcommand is run at least once: a new one must be added here.
    for sub in Cli::command().get_subcommands() {
        let name = sub.get_name();
        if name == "share" {
            // It serves until stopped: tests/share.rs checks its lines.
            continue;
        }
        assert!(
            lines.iter().any(|l| l[0] == name),
            "no typical command line for `{name}`"
        );
    }
    for args in &lines {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let text = stdout(&cfg, &args);
        let wide = too_wide(&text, WIDTH);
        assert!(
            wide.is_empty(),
            "{args:?}: {} lines over {WIDTH} columns, e.g.\n{}",
            wide.len(),
            wide.iter().take(3).copied().collect::<Vec<_>>().join("\n")
        );
    }
}

#[test]
fn every_help_page_fits_80_columns_off_a_terminal() {
    let cfg = config_dir("help");
    let mut pages: Vec<Vec<String>> = vec![vec!["--help".into()], vec!["-h".into()]];
    for sub in Cli::command().get_subcommands() {
        let name = sub.get_name().to_string();
        pages.push(vec![name.clone(), "--help".into()]);
        pages.push(vec![name.clone(), "-h".into()]);
        for inner in sub.get_subcommands() {
            pages.push(vec![name.clone(), inner.get_name().into(), "--help".into()]);
        }
    }
    for args in &pages {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let text = stdout(&cfg, &args);
        let wide = too_wide(&text, WIDTH);
        assert!(
            wide.is_empty(),
            "{args:?}: over {WIDTH} columns:\n{wide:#?}"
        );
    }
    // COLUMNS, when set, is the width (as for the tables): at 60 the
    // top-level page, whose command list runs past 60 at 80, still fits.
    let out = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .arg("--help")
        .env("COLUMNS", "60")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Commands:"), "{text}");
    assert!(too_wide(&text, 60).is_empty(), "{text}");
}

/// The flags of a help page's option lines, in order: "--model" from
/// "  -m, --model <MODEL>  ...".
fn option_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            if !(l.starts_with("  ") && t.starts_with('-')) {
                return None;
            }
            // "-m, --model <M>" or "--model <M>": the long name.
            let long = t.split_whitespace().find(|w| w.starts_with("--"))?;
            Some(long.trim_end_matches(',').to_string())
        })
        .collect()
}

#[test]
fn each_help_lists_its_own_options_before_the_global_ones() {
    const GLOBAL: [&str; 3] = ["--catalog", "--ascii", "--wide"];
    const CLAP: [&str; 2] = ["--help", "--version"];
    let cfg = config_dir("order");
    let mut checked = 0;
    for sub in Cli::command().get_subcommands() {
        let name = sub.get_name();
        let flags = option_flags(&stdout(&cfg, &[name, "--help"]));
        let first_global = flags
            .iter()
            .position(|f| GLOBAL.contains(&f.as_str()))
            .unwrap_or_else(|| panic!("`{name} --help` lists no global option: {flags:?}"));
        // After the first global option, only global ones and clap's own.
        for f in &flags[first_global..] {
            assert!(
                GLOBAL.contains(&f.as_str()) || CLAP.contains(&f.as_str()),
                "`{name} --help` lists {f} after the global options: {flags:?}"
            );
        }
        if first_global > 0 {
            checked += 1;
        }
    }
    // eval, sens, ... have options of their own, listed first.
    assert!(checked >= 10, "only {checked} commands with options first");
}

#[test]
fn import_help_names_only_the_formats_import_takes() {
    let cfg = config_dir("import-help");
    let help = stdout(&cfg, &["import", "--help"]);
    let evened = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(evened.contains("[possible values: table, json]"), "{help}");
    assert!(
        !evened.contains("csv") && !evened.contains("markdown"),
        "{help}"
    );
    // And what the help leaves out is refused, with exit 2.
    for f in ["csv", "markdown"] {
        let out = run(
            &cfg,
            &["import", &fixture("qwen2.5-7b-instruct-awq"), "-f", f],
        );
        assert_eq!(out.status.code(), Some(2), "-f {f}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("possible values: table, json"), "{err}");
    }
    // The two it names work.
    assert!(
        stdout(
            &cfg,
            &["import", &fixture("qwen2.5-7b-instruct-awq"), "-f", "json"]
        )
        .starts_with('{')
    );
}

#[test]
fn validate_fits_80_columns_and_wide_shows_the_whole_table() {
    let cfg = config_dir("validate");
    let narrow = stdout(&cfg, &["validate"]);
    assert!(too_wide(&narrow, WIDTH).is_empty(), "{narrow}");
    // The optional columns are said to be left out, not silently lost.
    assert!(
        narrow.contains(
            "(not shown at 80 columns: by source, band, half; --wide shows every column)"
        ),
        "{narrow}"
    );
    // The longest id (61 characters) breaks after a dash: its first piece
    // ends with '-', the rest follows on an indented line of its own.
    let long = "llama-cpp-llama-2-7b-chat-rtx-4090-q4-0-decode-llm-perf-bench";
    assert!(!narrow.contains(long), "{narrow}");
    let evened: String = narrow
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect::<Vec<_>>()
        .concat();
    assert!(evened.contains(long), "{narrow}");

    let wide = stdout(&cfg, &["validate", "--wide"]);
    let header = wide.lines().nth(1).unwrap_or("");
    for h in [
        "measurement",
        "measured",
        "predicted",
        "error",
        "band",
        "half",
    ] {
        assert!(header.contains(h), "--wide header lacks {h}: {header}");
    }
    assert!(!wide.contains("not shown at"), "{wide}");
    // The whole id on one line, with its figures.
    let row = wide
        .lines()
        .find(|l| l.starts_with(long))
        .unwrap_or_else(|| panic!("no row for {long} in\n{wide}"));
    assert!(row.contains("tok/s"), "{row}");
    // As many rows as measurements: one per line at --wide.
    let rows = wide.lines().skip(3).take_while(|l| !l.is_empty()).count();
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&cfg, &["validate", "-f", "json"])).unwrap();
    let n = json["measurements"].as_array().map_or(0, Vec::len);
    assert_eq!(rows, n, "{wide}");
    assert!(n > 100, "{n} measurements");
}

#[test]
fn eval_prose_wraps_and_wide_keeps_it_on_one_line() {
    let cfg = config_dir("eval");
    let args = ["eval", "-m", "llama-3.1-70b", "-H", "a100"];
    let narrow = stdout(&cfg, &args);
    // The headline continues on an indented line.
    assert!(
        narrow.starts_with(
            "Llama 3.1 70B on NVIDIA A100 SXM4 80GB: decode, batch 1, context 4096, weights\n  bf16"
        ),
        "{narrow}"
    );
    let mut wide_args = args.to_vec();
    wide_args.push("--wide");
    let wide = stdout(&cfg, &wide_args);
    let first = wide.lines().next().unwrap_or("");
    assert!(
        first.ends_with("TP 1 x PP 1") && first.chars().count() > WIDTH,
        "{first}"
    );
    // The same words either way.
    let even = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(even(&narrow), even(&wide));
}
