//! Helpers the command-line tests share: the binary with no user catalog
//! and no inherited terminal width, and its JSON.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

/// A config directory with nothing in it, so the machine's own catalog
/// never reaches a test.
pub fn empty_dir() -> PathBuf {
    let d = std::env::temp_dir().join("ridgeline-test-empty-config");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run the binary with `args`.
pub fn ridgeline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(args)
        .env("RIDGELINE_CONFIG_DIR", empty_dir())
        .env_remove("COLUMNS")
        .output()
        .expect("run ridgeline")
}

/// Run it and read its JSON; a failure shows what it printed.
pub fn json(args: &[&str]) -> Value {
    let out = ridgeline(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Run a command line in-process (`cli::run`, after `ridgeline`): its exit
/// code and standard output.
pub fn in_process(args: &[String]) -> (i32, String) {
    use clap::Parser;
    use ridgeline::cli::{self, args::Cli};
    let mut full = vec!["ridgeline".to_string()];
    full.extend(args.iter().cloned());
    let cli = Cli::try_parse_from(&full).unwrap_or_else(|e| panic!("{full:?}: {e}"));
    let command = cli.command.as_ref().unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(&cli, command, &mut out, &mut err);
    (code, String::from_utf8(out).unwrap())
}

/// The JSON a command prints, whatever its exit status (a verdict exits 3
/// with its figures).
pub fn json_any(args: &[&str]) -> Value {
    let out = ridgeline(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// The capstone's command (docs/scenarios.md, "The capstone worked
/// through"), with JSON output as its last argument.
pub const CAPSTONE: [&str; 18] = [
    "fleet",
    "-m",
    "llama-3-70b",
    "--qps",
    "1000",
    "--prompt",
    "2k",
    "--output",
    "256",
    "--ttft",
    "100ms",
    "--itl",
    "50ms",
    "--region",
    "us-east,eu-west",
    "--budget",
    "5M",
    "-fjson",
];
