//! Whole-screen snapshots with TestBackend at 80x24 and 160x48 (and 120x36
//! for the README capture). The .snap files live in src/tui/snapshots/.

use super::action::{Action, Command};
use super::app::{App, Settings, update};
use super::render;
use crate::catalog::Catalog;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui_textarea::{Input, Key};

fn app() -> App {
    App::new(Catalog::builtin(), Settings::default())
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(app, f)).unwrap();
    t.backend().to_string()
}

fn cmd(app: &mut App, c: Command) {
    update(app, Action::Do(c));
}

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        update(
            app,
            Action::Input(Input {
                key: Key::Char(c),
                ..Input::default()
            }),
        );
    }
}

/// Both sizes of one state.
fn snap(name: &str, app: &App) {
    insta::assert_snapshot!(format!("{name}_80x24"), screen(app, 80, 24));
    insta::assert_snapshot!(format!("{name}_160x48"), screen(app, 160, 48));
}

#[test]
fn default_screen() {
    let a = app();
    snap("default", &a);
    insta::assert_snapshot!("default_120x36", screen(&a, 120, 36));
}

#[test]
fn filtered_model_list() {
    let mut a = app();
    cmd(&mut a, Command::NextPane);
    cmd(&mut a, Command::Filter);
    typed(&mut a, "70b");
    snap("filtered", &a);
}

#[test]
fn comparison_of_three_devices() {
    let mut a = app();
    for id in ["a100-sxm-80gb", "h200-sxm"] {
        let i = a
            .catalog
            .hardware
            .iter()
            .position(|e| e.hw.id == id)
            .unwrap();
        a.hw = i;
        cmd(&mut a, Command::Mark);
    }
    let h100 = a
        .catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == "h100-sxm")
        .unwrap();
    a.hw = h100;
    cmd(&mut a, Command::Mark);
    // Show the comparison pane on the compact screen.
    let mut compact = clone_focus(&a, super::app::Pane::Compare);
    insta::assert_snapshot!("compare_80x24", screen(&compact, 80, 24));
    compact.focus = super::app::Pane::Plot;
    insta::assert_snapshot!("compare_plot_80x24", screen(&compact, 80, 24));
    insta::assert_snapshot!("compare_160x48", screen(&a, 160, 48));
}

fn clone_focus(a: &App, pane: super::app::Pane) -> App {
    let mut b = app();
    b.hw = a.hw;
    b.marked = a.marked.clone();
    b.focus = pane;
    b.recompute();
    b
}

#[test]
fn invalid_knob_text() {
    let mut a = app();
    cmd(&mut a, Command::NextPane);
    cmd(&mut a, Command::NextPane);
    cmd(&mut a, Command::Down);
    cmd(&mut a, Command::Down);
    cmd(&mut a, Command::Edit);
    typed(&mut a, "8kk");
    cmd(&mut a, Command::Edit);
    snap("knob_error", &a);
}

#[test]
fn help_screen() {
    let mut a = app();
    cmd(&mut a, Command::Help);
    snap("help", &a);
}

#[test]
fn too_small() {
    let a = app();
    insta::assert_snapshot!("too_small_79x24", screen(&a, 79, 24));
    insta::assert_snapshot!("too_small_60x10", screen(&a, 60, 10));
}

#[test]
fn ascii_mode_draws_no_unicode() {
    let mut a = App::new(
        Catalog::builtin(),
        Settings {
            ascii: true,
            ..Settings::default()
        },
    );
    let s = screen(&a, 160, 48);
    assert!(s.is_ascii(), "{s}");
    cmd(&mut a, Command::NextPane);
    cmd(&mut a, Command::NextPane);
    cmd(&mut a, Command::NextPane);
    let s = screen(&a, 80, 24);
    assert!(s.is_ascii(), "{s}");
    insta::assert_snapshot!("ascii_plot_80x24", s);
}
