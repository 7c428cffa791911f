//! The workbench without a terminal (input or output redirected, as in a
//! script or a CI job): a clear message and status 2, and not one escape
//! code written to where the output goes.

use std::process::{Command, Stdio};

#[test]
fn without_a_terminal_the_workbench_says_so_and_writes_nothing() {
    for args in [&[][..], &["--ascii"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: wrote {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the workbench needs a terminal; use a subcommand for scripts"),
            "{err}"
        );
        assert!(!err.contains('\x1b'), "escape codes on stderr: {err:?}");
    }
}

#[test]
fn subcommands_still_run_without_a_terminal() {
    let out = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(["zoo", "hardware"])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty());
}
