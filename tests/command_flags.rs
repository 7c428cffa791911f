//! Each subcommand takes only the flags it reads: `serve` and `fleet`
//! refuse the workload flags they would otherwise ignore, say why and what
//! to use instead, and their `--help` does not list them.

mod common;

use common::cli::{json, ridgeline};

const FLEET: [&str; 7] = ["fleet", "--qps", "10", "--ttft", "1s", "--itl", "50ms"];

/// Run `base` with `extra` appended: it must exit 2 with a message that
/// names the command, the flag and each of `says`.
fn refused(base: &[&str], extra: &[&str], flag: &str, says: &[&str]) {
    let args: Vec<&str> = base.iter().chain(extra).copied().collect();
    let out = ridgeline(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} printed figures");
    let head = format!("`{}` does not take {flag}", base[0]);
    assert!(err.contains(&head), "{args:?}: {err}");
    for s in says {
        assert!(err.contains(s), "{args:?}: {s:?} missing from {err}");
    }
    // clap's own tip would point at an unrelated flag ("--output" for --tp).
    assert!(!err.contains("similar argument"), "{args:?}: {err}");
}

#[test]
fn fleet_refuses_a_layout_a_batch_a_phase_and_a_context() {
    for tp in [&["--tp", "2"][..], &["--tp=2"]] {
        refused(&FLEET, tp, "--tp", &["ridgeline serve --tp N"]);
    }
    refused(&FLEET, &["--pp", "2"], "--pp", &["pipeline-parallel"]);
    refused(
        &FLEET,
        &["--batch", "64"],
        "--batch",
        &["--qps", "serve --batch"],
    );
    refused(&FLEET, &["-b", "64"], "-b", &["--qps"]);
    refused(
        &FLEET,
        &["--phase", "prefill"],
        "--phase",
        &["--prompt", "--output"],
    );
    refused(
        &FLEET,
        &["--context", "32k"],
        "--context",
        &["--prompt", "--output"],
    );
    refused(&FLEET, &["-s", "32k"], "-s", &["--prompt"]);
}

#[test]
fn serve_refuses_a_phase_and_a_context() {
    refused(
        &["serve"],
        &["--phase", "prefill"],
        "--phase",
        &["--prompt", "--output"],
    );
    refused(
        &["serve"],
        &["--context", "32k"],
        "--context",
        &["--prompt", "--output"],
    );
    refused(&["serve"], &["-s", "32k"], "-s", &["--prompt"]);
}

#[test]
fn serve_still_reads_its_layout_and_batch() {
    // The flags serve keeps reach the answer: TP 2 is two devices, and a
    // batch of 16 shows as 16 sequences.
    let v = json(&["serve", "--tp", "2", "--batch", "16", "-f", "json"]);
    assert_eq!(v["devices"], 2, "{v}");
    assert_eq!(v["batch"], 16.0, "{v}");
}

#[test]
fn an_unknown_flag_keeps_clap_s_message() {
    let out = ridgeline(&["serve", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unexpected argument '--bogus'"), "{err}");
}

/// The long flags a `--help` lists.
fn listed(command: &str) -> Vec<String> {
    let out = ridgeline(&[command, "--help"]);
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix('-')
                .map(|r| r.split_once(", ").map_or(l, |x| x.1))?;
            l.split_whitespace()
                .next()
                .filter(|f| f.starts_with("--"))
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn help_lists_only_what_each_command_reads() {
    let fleet = listed("fleet");
    let serve = listed("serve");
    let eval = listed("eval");
    for f in ["--phase", "--context", "--tp", "--pp", "--batch"] {
        assert!(
            !fleet.iter().any(|x| x == f),
            "fleet --help lists {f}: {fleet:?}"
        );
        assert!(
            eval.iter().any(|x| x == f),
            "eval --help lacks {f}: {eval:?}"
        );
    }
    for f in ["--phase", "--context"] {
        assert!(
            !serve.iter().any(|x| x == f),
            "serve --help lists {f}: {serve:?}"
        );
    }
    // What they do read is listed, with the same defaults as eval's.
    for f in [
        "--model",
        "--precision",
        "--profile",
        "--assume",
        "--memory-eff",
        "--format",
    ] {
        for (name, l) in [("fleet", &fleet), ("serve", &serve)] {
            assert!(l.iter().any(|x| x == f), "{name} --help lacks {f}: {l:?}");
        }
    }
    for f in ["--tp", "--pp", "--batch", "--prompt", "--output"] {
        assert!(
            serve.iter().any(|x| x == f),
            "serve --help lacks {f}: {serve:?}"
        );
    }
}

#[test]
fn serve_and_fleet_default_to_eval_s_model() {
    let model = |args: &[&str]| json(args)["model"].clone();
    let eval = model(&["eval", "-f", "json"]);
    assert_eq!(model(&["serve", "-f", "json"]), eval);
    let mut fleet = FLEET.to_vec();
    fleet.extend(["-f", "json"]);
    assert_eq!(model(&fleet), eval);
}
