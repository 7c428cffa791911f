//! End to end in a real terminal: the binary runs in a private tmux server,
//! keys are typed with send-keys, and the screen is read with capture-pane
//! until the expected text shows up (or a deadline passes). Skipped, with a
//! message, when tmux is not installed (.ci/run installs it).
//! The harness is in tests/tmux/.

mod tmux;

use std::process::Command;
use std::time::{Duration, Instant};
use tmux::*;

#[test]
fn a_user_at_80x24_with_arrow_keys() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait("the first frame", |s| {
        s.contains("h100-sxm") && s.contains("tok/s")
    });
    // A100 -> H100 -> H200: the status line follows the selection.
    t.keys(&["Up"]);
    t.wait_for("llama-3.1-8b · a100-sxm-80gb");
    t.keys(&["Down", "Down"]);
    let s = t.wait_for("llama-3.1-8b · h200-sxm");
    assert!(s.contains("memory-bound"), "{s}");
    // Right to the model list, filter for 70b.
    t.keys(&["Right"]);
    t.wait_for("Model 47");
    t.keys(&["/"]);
    t.text("70b");
    // The unfiltered list shows llama-3.1-70b too: wait until the 8B is gone.
    let s = t.wait("the 70b filter", |s| {
        s.contains("llama-3.1-70b") && !s.contains("llama-3.1-8b ")
    });
    assert!(s.contains("llama-3.3-70b"), "{s}");
    t.keys(&["Enter"]);
    // Right to the knobs, step the batch up twice.
    t.keys(&["Right", "Down"]);
    t.wait_for("Knobs");
    t.keys(&["Right", "Right"]);
    t.wait("batch 4", |s| {
        s.lines().any(|l| l.contains("batch") && l.contains(" 4 "))
    });
    // Type a bad value: the reason shows, the result is marked.
    t.keys(&["Down", "Enter"]);
    t.text("8kk");
    let s = t.wait_for("unknown unit");
    assert!(s.contains("LAST VALID"), "{s}");
    t.keys(&["Escape"]);
    t.wait("the entry to close", |s| !s.contains("unknown unit"));
    // Help, generated from the keymap.
    t.keys(&["?"]);
    let s = t.wait_for("Keys");
    assert!(s.contains("1 Roofline 2 Serving"), "{s}");
    // 80x24 is too short for every key: the list scrolls (to its end; a
    // Down past it stays there).
    t.keys(&["Down"; 30]);
    let s = t.wait_for("ctrl-c");
    assert!(s.contains("suspend to the shell"), "{s}");
    t.keys(&["Escape"]);
    t.wait("help to close", |s| !s.contains(" Keys "));
    // Up to the bar (one more Up reaches the views; Down comes back to
    // the panes) and across to the plot.
    for _ in 0..12 {
        t.keys(&["Up"]);
    }
    t.keys(&["Down", "Right", "Down"]);
    t.wait_for("FLOP/byte");
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored, "terminal left in raw mode");
}

#[test]
fn a_user_steps_through_the_views() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    // Number keys: each view with its own figures.
    t.keys(&["2"]);
    t.wait("the serving view", |s| {
        s.contains("[2 Serving]")
            && s.contains("time to first token")
            && s.contains("g CO2 per million tokens")
    });
    t.keys(&["3"]);
    t.wait("the ranking", |s| {
        s.contains("cheapest first") && s.contains("required compute")
    });
    // Type a target in place: a bad one says why, a good one re-ranks.
    t.keys(&["Enter"]);
    t.text("fast");
    t.wait_for("LAST VALID");
    t.keys(&["BSpace", "BSpace", "BSpace", "BSpace"]);
    t.text("100ms ttft");
    t.keys(&["Enter"]);
    t.wait_for("[100ms ttft]");
    t.keys(&["4"]);
    t.wait("the sweep", |s| {
        s.contains("Sweep against batch") && s.contains("bound")
    });
    t.keys(&["5"]);
    t.wait_for("speedup");
    t.keys(&["f"]);
    t.wait("the next family", |s| !s.contains("nvidia-datacenter ·"));
    // Arrow keys alone: Up to the bar, Up to the views, Right to Fleet.
    for _ in 0..3 {
        t.keys(&["Up"]);
    }
    t.keys(&["Right"]);
    t.wait("the fleet", |s| {
        s.contains("[6 Fleet]") && (s.contains("cheapest") || s.contains("no fleet"))
    });
    t.keys(&["Down", "Down"]);
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}

#[test]
fn the_capstone_scenario_opens_on_the_fleet() {
    need_tmux!();
    let dir = env!("CARGO_MANIFEST_DIR");
    let t = Tmux::start(
        120,
        36,
        &format!("--scenario {dir}/assets/scenarios/capstone-fleet.toml"),
    );
    t.wait("the capstone fleet", |s| {
        s.contains("[6 Fleet]")
            && s.contains("kgCO2/d")
            && s.contains("front of cost vs TTFT")
            && s.contains("us-east")
            && s.contains("eu-west")
            && s.contains("budget $5M/yr")
    });
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
    // A file that cannot be opened: the reason and status 2, no workbench.
    let t = Tmux::start(80, 24, "--scenario /no/such/scenario.toml");
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=2");
    assert!(restored);
    let s = t.screen();
    assert!(
        s.contains("/no/such/scenario.toml") && s.contains("cannot read"),
        "{s}"
    );
    assert!(!s.contains("[1 Roofline]"), "{s}");
}

#[test]
fn resizing_redraws_and_too_small_says_so() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    t.tmux(&["resize-window", "-t", "t", "-x", "160", "-y", "48"]);
    let s = t.wait_for("Sensitivity +10%");
    assert!(s.contains("Knobs") && s.contains("FLOP/byte"), "{s}");
    t.tmux(&["resize-window", "-t", "t", "-x", "70", "-y", "20"]);
    t.wait_for("terminal too small: need 80x24");
    t.tmux(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    t.wait_for("tok/s");
    t.keys(&["C-c"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}

#[test]
fn sigterm_and_sighup_restore_the_terminal() {
    need_tmux!();
    for (sig, code) in [("TERM", "EXIT=143"), ("HUP", "EXIT=129")] {
        let t = Tmux::start(80, 24, "");
        t.wait_for("tok/s");
        let pid = t.program_pid();
        let ok = Command::new("kill")
            .args([&format!("-{sig}"), &pid.to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        let (exit, restored) = t.exit_and_restored();
        assert_eq!(exit, code, "SIG{sig}: 128 + the signal number");
        assert!(restored, "SIG{sig} left the terminal in raw mode");
    }
}

#[test]
fn a_closed_terminal_ends_the_program() {
    need_tmux!();
    // crossterm's reader spins on a terminal that has hung up; the program
    // must still end (no orphan burning a core).
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    let pid = t.program_pid();
    t.tmux(&["kill-server"]);
    let start = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        // A zombie has no command line left: it has ended.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        {
            break;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "the program (pid {pid}) outlived its terminal"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ascii_mode_draws_ascii_only() {
    need_tmux!();
    let t = Tmux::start(80, 24, "--ascii");
    t.wait_for("tok/s");
    t.keys(&["Tab", "Tab", "Tab"]);
    let s = t.wait_for("FLOP/byte");
    assert!(s.is_ascii(), "{s}");
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
}

#[test]
fn saving_over_a_file_asks_first_in_ascii_at_80x24() {
    need_tmux!();
    let t = Tmux::start(80, 24, "--ascii");
    let file = t.dir.join("notes.toml");
    std::fs::write(&file, "my notes\n").unwrap();
    t.wait_for("tok/s");
    t.keys(&["s"]);
    t.wait_for("save scenario to");
    t.text(file.to_str().unwrap());
    t.keys(&["Enter"]);
    let s = t.wait_for("overwrite it? y/n");
    assert!(
        s.contains("y overwrite . n change the path . Esc cancel"),
        "{s}"
    );
    assert!(s.is_ascii(), "{s}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "my notes\n");
    t.keys(&["y"]);
    t.wait_for("scenario saved to");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("[workload]")
    );
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
}

#[test]
fn a_burst_of_keys_is_read_to_the_end() {
    need_tmux!();
    // 2000 `j` and a `q` in one write: more than the 1 KB the terminal
    // reader takes at a time. The q must quit without another key.
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    t.text(&format!("{}q", "j".repeat(2000)));
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}

#[test]
fn a_paste_is_one_edit_and_ctrl_c_after_it_quits() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    t.wait_modes("the workbench running", RUNNING);
    // Bracketed: the newline of a pasted line is text, not Enter, so the
    // filter stays open (Enter would say "filter kept").
    t.keys(&["/"]);
    t.wait_for("type to filter");
    t.paste("h200\n", true);
    // The entry shows as "/ TEXT_": no space where the newline was.
    let s = t.wait_for("/ h200_ ");
    assert!(
        s.contains("h200-sxm") && s.contains("type to filter"),
        "{s}"
    );
    // 100 KB at once: one edit, cut to the entry's limit, said so.
    t.paste(&"x".repeat(100_000), true);
    t.wait_for("at most 256 characters");
    // Another 100 KB and Ctrl-C right behind it: it quits at once.
    t.paste(&"z".repeat(100_000), true);
    t.keys(&["C-c"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
    t.wait_modes("after the exit", RESTORED);
}

#[test]
fn a_paste_without_brackets_is_coalesced() {
    need_tmux!();
    // A terminal without bracketed paste types the text: 100 KB of keys.
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    t.keys(&["/"]);
    t.wait_for("type to filter");
    t.paste(&"y".repeat(100_000), false);
    t.wait_for("at most 256 characters");
    // 100 000 keys more and Ctrl-C right behind them: it quits at once.
    t.paste(&"z".repeat(100_000), false);
    t.keys(&["C-c"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
}

#[test]
fn ctrl_l_redraws_the_whole_screen() {
    need_tmux!();
    let t = Tmux::start(80, 24, "");
    t.wait_for("tok/s");
    // Another program scribbles on the terminal behind the workbench's back.
    std::fs::write(t.tty(), "\x1b[5;5HSCRIBBLE-SCRIBBLE").unwrap();
    t.wait_for("SCRIBBLE-SCRIBBLE");
    t.keys(&["C-l"]);
    // Cleared, then drawn whole again (the capture may land between the two).
    let s = t.wait("the scribble to go and the screen to come back", |s| {
        !s.contains("SCRIBBLE") && s.contains("tok/s") && s.contains("Hardware")
    });
    assert!(!s.contains("SCRIBBLE"), "{s}");
    t.keys(&["q"]);
    assert_eq!(t.exit_and_restored().0, "EXIT=0");
}

#[test]
fn other_signals_restore_the_terminal() {
    need_tmux!();
    // 128 + the signal number (Linux numbering: INT 2, QUIT 3, USR1 10, ALRM 14).
    for (sig, code) in [
        ("INT", "EXIT=130"),
        ("QUIT", "EXIT=131"),
        ("USR1", "EXIT=138"),
        ("ALRM", "EXIT=142"),
    ] {
        let t = Tmux::start(80, 24, "");
        t.wait_for("tok/s");
        t.wait_modes("the workbench running", RUNNING);
        kill(sig, &t.program_pid().to_string());
        let (exit, restored) = t.exit_and_restored();
        assert_eq!(exit, code, "SIG{sig}");
        assert!(restored, "SIG{sig} left the terminal in raw mode");
        t.wait_modes(&format!("after SIG{sig}"), RESTORED);
    }
}

#[test]
fn fault_signals_restore_the_terminal_then_take_their_default_action() {
    need_tmux!();
    // The shell's status is 128 + the signal number, as for any program the
    // signal ends (Linux numbering: ILL 4, TRAP 5, ABRT 6, FPE 8, STKFLT 16,
    // XCPU 24, XFSZ 25, SYS 31). An allocation failure and a panic under
    // panic = "abort" end in SIGABRT.
    for (sig, code) in [
        ("ABRT", "EXIT=134"),
        ("FPE", "EXIT=136"),
        ("ILL", "EXIT=132"),
        ("TRAP", "EXIT=133"),
        ("XCPU", "EXIT=152"),
        ("XFSZ", "EXIT=153"),
        ("SYS", "EXIT=159"),
        ("STKFLT", "EXIT=144"),
    ] {
        let t = Tmux::start(80, 24, "");
        t.wait_for("tok/s");
        t.wait_modes("the workbench running", RUNNING);
        kill(sig, &t.program_pid().to_string());
        let (exit, restored) = t.exit_and_restored();
        assert_eq!(exit, code, "SIG{sig}: the default action");
        assert!(restored, "SIG{sig} left the terminal in raw mode");
        t.wait_modes(&format!("after SIG{sig}"), RESTORED);
    }
}

#[test]
fn suspend_restores_the_terminal_and_fg_redraws() {
    need_tmux!();
    if !Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIPPED: bash is not installed; the job-control test needs it");
        return;
    }
    // A user at a shell prompt, with job control: Ctrl-Z and fg.
    let t = Tmux::shell(80, 24);
    t.text(env!("CARGO_BIN_EXE_ridgeline"));
    t.keys(&["Enter"]);
    t.wait_for("tok/s");
    let pid = t.program_pid();
    // Ctrl-Z from the keyboard, then kill -TSTP from outside.
    for (round, how) in ["ctrl-z", "kill -TSTP"].into_iter().enumerate() {
        t.wait_modes("the workbench running", RUNNING);
        if how == "ctrl-z" {
            t.keys(&["C-z"]);
        } else {
            kill("TSTP", &pid.to_string());
        }
        wait_state(pid, 'T');
        t.wait_modes(&format!("stopped by {how}"), RESTORED);
        // The shell's screen is back, with the job reported stopped.
        let s = t.wait("the shell to report the job", |s| {
            s.matches("Stopped").count() == round + 1
        });
        assert!(!s.contains("tok/s"), "{how}:\n{s}");
        t.text("fg");
        t.keys(&["Enter"]);
        t.wait_modes(&format!("fg after {how}"), RUNNING);
        // Everything is drawn again, not only what changed.
        t.wait("the whole screen again", |s| {
            s.contains("tok/s") && s.contains("Hardware") && s.contains("? help")
        });
    }
    // Still working: keys move the selection, q quits.
    t.keys(&["Up"]);
    t.wait_for("a100-sxm-80gb");
    t.keys(&["q"]);
    t.wait_modes("after q", RESTORED);
    t.text("echo EXIT=$?");
    t.keys(&["Enter"]);
    t.wait_for("EXIT=0");
}

#[test]
fn without_a_terminal_for_output_it_says_so() {
    need_tmux!();
    // Standard input is the terminal, standard output a file.
    let t = Tmux::start(80, 24, "> out.txt");
    let s = t.wait_for("EXIT=");
    assert!(s.contains("EXIT=2"), "{s}");
    assert!(
        s.contains("the workbench needs a terminal; use a subcommand for scripts"),
        "{s}"
    );
    let out = std::fs::read(t.dir.join("out.txt")).unwrap_or_default();
    assert!(out.is_empty(), "wrote {} bytes into the file", out.len());
}

#[test]
fn the_band_and_the_profile_knob_without_colour_in_ascii() {
    need_tmux!();
    let t = Tmux::run(80, 24, |dir| {
        let bin = env!("CARGO_BIN_EXE_ridgeline");
        let go = dir.join("go");
        format!(
            "while [ ! -e {go} ]; do sleep 0.02; done; NO_COLOR=1 {bin} --ascii; echo EXIT=$?; sleep 30",
            go = go.display(),
        )
    });
    // The headline's step time with its band: "7.78 ms (7.0-8.6)".
    let has_band = |s: &str| {
        s.lines()
            .any(|l| l.contains("tok/s") && l.contains(" ms (") && l.contains(')'))
    };
    let s = t.wait("the band in the headline", has_band);
    assert!(s.is_ascii(), "{s}");
    // To the knobs, down to the profile (below PP), one step right: the next
    // profile of the catalog, and the headline redrawn with it.
    let cat = ridgeline::catalog::Catalog::builtin();
    let ids: Vec<&str> = cat.profiles.iter().map(|p| p.id.as_str()).collect();
    assert!(ids.contains(&"roofline"), "{ids:?}");
    let next = ids[(ids.iter().position(|i| *i == "default").unwrap() + 1) % ids.len()];
    t.keys(&["Tab", "Tab"]);
    t.wait_for("Knobs");
    for _ in 0..9 {
        t.keys(&["Down"]);
    }
    t.wait("the profile knob selected", |s| {
        s.lines()
            .any(|l| l.contains("profile") && l.contains("< default"))
    });
    t.keys(&["Right"]);
    t.wait_for(&format!("profile {next}"));
    // On, one profile at a time, to the plain roofline: no band.
    let mut at = ids.iter().position(|i| *i == next).unwrap();
    while ids[at] != "roofline" {
        at = (at + 1) % ids.len();
        t.keys(&["Right"]);
        t.wait_for(&format!("< {}", ids[at]));
    }
    let s = t.wait("the roofline profile, no band", |s| {
        s.contains("< roofline") && !has_band(s) && s.contains("tok/s")
    });
    assert!(s.is_ascii(), "{s}");
    t.keys(&["q"]);
    t.wait_for("EXIT=0");
}

#[test]
fn training_view_at_80x24_steps_a_knob_ranks_layouts_and_adopts_one() {
    need_tmux!();
    let t = Tmux::start(80, 24, "--ascii");
    t.wait_for("tok/s");
    t.keys(&["7"]);
    let s = t.wait("the training view", |s| {
        s.contains("[7 Training]") && s.contains("Step ") && s.contains("fits:")
    });
    assert!(s.is_ascii(), "{s}");
    // Shift-Tab to the knobs, down to ZeRO, one step down twice: ZeRO 1
    // does not fit, and the step time gives way to the verdict.
    t.keys(&["BTab"]);
    for _ in 0..7 {
        t.keys(&["Down"]);
    }
    t.keys(&["Left", "Left"]);
    t.wait("ZeRO 1", |s| {
        s.contains("ZeRO 1") && s.contains("DOES NOT FIT")
    });
    // r ranks the layouts; Enter adopts the fastest, which fits.
    t.keys(&["r"]);
    t.wait_for("Enter adopts a row");
    t.keys(&["Enter"]);
    let s = t.wait("the adopted layout", |s| {
        s.contains("adopted dp") && s.contains("step ")
    });
    assert!(!s.contains("DOES NOT FIT"), "{s}");
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored, "terminal left in raw mode");
}

/// Presenter mode in a real terminal: `ridgeline lesson knobs` opens on
/// step 1 with its caption; PageDown steps, `a` reveals the answer, Esc
/// leaves the script with the state kept, `]` returns, `L` opens the
/// picker, and the terminal is restored at the end.
#[test]
fn a_lesson_given_at_80x24() {
    need_tmux!();
    let t = Tmux::start(80, 24, "lesson knobs");
    let s = t.wait_for("step 1/7");
    assert!(s.contains("pagedown/] next"), "{s}");
    t.keys(&["a"]);
    t.wait_for("A: Bandwidth.");
    t.keys(&["PageDown"]);
    t.wait_for("step 2/7");
    t.keys(&["Escape"]);
    // Wait for what the frame after Esc says, not for the strip's header
    // to be gone: a screen read mid-frame can lack the header while the
    // strip's other lines are still there.
    t.wait("the strip gone and the status saying so", |s| {
        s.contains("left the lesson at step 2/7") && !s.contains("step 2/7 ·")
    });
    t.keys(&["]"]);
    t.wait_for("back to the script: step 2/7");
    t.keys(&["L"]);
    t.wait_for("serving: Serving for real");
    t.keys(&["Escape", "q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored, "terminal left in raw mode");
}
