//! The Explore view end to end in a real terminal (tests/tmux/): 9 opens
//! it, the title says how many configurations were evaluated and are
//! feasible, Down moves the selected point along the front (its own glyph
//! in ASCII, `@`, and the table's cursor `>`), Enter makes it the
//! workbench's selection and the status line says so.

mod tmux;

use tmux::*;

/// The table row under the cursor: the line holding ">@".
fn cursor_row(s: &str) -> String {
    s.lines()
        .find(|l| l.contains(">@"))
        .unwrap_or_else(|| panic!("no cursor row in\n{s}"))
        .to_string()
}

#[test]
fn nine_opens_explore_down_moves_along_the_front_and_enter_adopts() {
    need_tmux!();
    let t = Tmux::start(100, 30, "--ascii");
    t.wait_for("tok/s");
    t.keys(&["9"]);
    let s = t.wait("the explore view", |s| {
        s.contains("[9 Explore]") && s.contains("evaluated") && s.contains(">@")
    });
    assert!(s.contains("feasible"), "{s}");
    assert!(s.contains("on the front"), "{s}");
    let first = cursor_row(&s);
    t.keys(&["Down"]);
    let s = t.wait("the cursor on the second point", |s| {
        s.contains(">@") && cursor_row(s) != first
    });
    let second = cursor_row(&s);
    // The row's device id: after the cursor and the glyph.
    let id = second
        .split(">@")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .to_string();
    t.keys(&["Enter"]);
    let s = t.wait_for(&format!("selected {id}"));
    assert!(s.contains("TP "), "{s}");
    t.keys(&["q"]);
    let (exit, restored) = t.exit_and_restored();
    assert_eq!(exit, "EXIT=0");
    assert!(restored);
}
