//! Your own device, end to end in a real terminal: `n` in the Hardware list
//! opens the form, the fields are typed, Ctrl-S saves it into
//! `<config>/catalog/hardware/user.toml` (the config directory is the
//! test's own, RIDGELINE_CONFIG_DIR), and the picker lists it, marked as
//! the user's own. The harness is in tests/tmux/.

mod tmux;

use tmux::*;

#[test]
fn a_device_typed_in_the_workbench_is_saved_and_listed() {
    need_tmux!();
    let t = Tmux::start(100, 30, "");
    t.wait("the first frame", |s| {
        s.contains("h100-sxm") && s.contains("tok/s")
    });
    t.keys(&["n"]);
    t.wait_for("New device");
    // name, tier, then peaks fp32, tf32, bf16.
    t.text("Edge Box 16GB");
    t.keys(&["Tab"]);
    t.text("edge");
    t.keys(&["Tab", "Tab", "Tab"]);
    t.text("40 TFLOPS");
    // A mistake first: a size where a bandwidth goes.
    t.keys(&["Tab", "Tab", "Tab", "Tab", "Tab", "Tab"]);
    t.text("200 GB");
    t.wait_for("that is a size, not a bandwidth");
    t.text("/s");
    t.keys(&["Tab"]);
    t.text("16 GB");
    // The headline already follows the device being typed.
    t.wait_for("llama-3.1-8b · edge-box-16gb");
    t.keys(&["C-s"]);
    let s = t.wait_for("saved device edge-box-16gb");
    assert!(
        s.contains("edge-box-16gb *"),
        "the picker marks it as yours:\n{s}"
    );
    let file = t.dir.join("config/catalog/hardware/user.toml");
    let text = std::fs::read_to_string(&file).expect("user.toml written");
    for line in [
        "id = \"edge-box-16gb\"",
        "name = \"Edge Box 16GB\"",
        "tier = \"edge\"",
        "memory = \"16 GB\"",
        "memory_bandwidth = \"200 GB/s\"",
        "bf16 = \"40 TFLOPS\"",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    // Esc after a save has nothing to undo; q quits and the terminal is back.
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}
