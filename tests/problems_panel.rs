//! The start-up problems panel: every problem on its own line (not joined
//! onto the status line and cut at the screen's edge), readable at 80x24,
//! with NO_COLOR and in ASCII, gone after Esc, and never a raw escape
//! sequence from a file on screen.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ridgeline::catalog::Catalog;
use ridgeline::tui::keymap::Keymap;
use ridgeline::tui::theme::ThemeSet;
use ridgeline::tui::{Action, App, Command, Settings, render, update};

/// The screen as rows of text.
fn rows(a: &App, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(a, f)).unwrap();
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect()
}

/// A workbench that met a broken catalog file, a broken theme and a broken
/// key binding on the way up.
fn troubled(no_color: bool, ascii: bool) -> App {
    let mut catalog = Catalog::builtin();
    catalog.add_hardware_file(
        "/home/someone/.config/ridgeline/catalog/hardware/mine.toml",
        "[[device]]\nid = \"x\"\nname = \n",
    );
    let (keymap, problems) = Keymap::from_config(
        "/home/someone/.config/ridgeline/config.toml",
        "[keys]\nfly = \"f\"\n",
    );
    let themes = ThemeSet::load(
        ridgeline::catalog::builtin_themes(),
        &[(
            "/home/someone/.config/ridgeline/themes/x.toml".to_string(),
            include_str!("../themes/dark.toml").replace("fg = \"gray\"", "fg = \"#zzzzzz\""),
        )],
    );
    App::new(
        catalog,
        Settings {
            themes,
            keymap,
            notices: problems,
            no_color,
            ascii,
            ..Settings::default()
        },
    )
}

/// The row where a problem starts: "* " then its text, inside the border.
fn starts_row(screen: &[String], text: &str) -> Option<usize> {
    screen.iter().position(|r| {
        r.chars()
            .skip(1)
            .collect::<String>()
            .starts_with(&format!("* {text}"))
    })
}

#[test]
fn each_problem_starts_its_own_line_in_a_panel_at_80x24() {
    let a = troubled(false, false);
    assert_eq!(a.notices.len(), 4, "{:#?}", a.notices);
    let s = rows(&a, 80, 24);
    let all = s.join("\n");
    assert!(all.contains("4 start-up problems"), "{all}");
    assert!(all.contains("esc dismisses"), "{all}");
    let mut at = Vec::new();
    for start in [
        "1 catalog problem: run `ridgeline catalog check`",
        "/home/someone/.config/ridgeline/catalog/hardware/mine.toml:3:8: not valid",
        "theme /home/someone/.config/ridgeline/themes/x.toml:4:6: fg = \"#zzzzzz\"",
        "/home/someone/.config/ridgeline/config.toml:2:1: [keys] unknown command",
    ] {
        let r = starts_row(&s, &start[..start.len().min(70)]);
        assert!(r.is_some(), "{start}\n{all}");
        at.push(r.unwrap());
    }
    // In order, one after another, above the three status rows.
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}\n{all}");
    assert!(*at.last().unwrap() < 21, "{all}");
    // The bad colour's whole message is on screen, wrapped, not cut.
    assert!(all.contains("\"#rrggbb\""), "{all}");
}

#[test]
fn esc_dismisses_the_panel() {
    let mut a = troubled(false, false);
    update(&mut a, Action::Do(Command::Cancel));
    assert!(a.notices.is_empty());
    let all = rows(&a, 80, 24).join("\n");
    assert!(!all.contains("start-up problem"), "{all}");
    assert!(!all.contains("mine.toml"), "{all}");
}

#[test]
fn the_panel_reads_in_ascii_with_no_color() {
    let a = troubled(true, true);
    assert_eq!(a.theme().name, "mono");
    let s = rows(&a, 80, 24);
    let all = s.join("\n");
    assert!(all.is_ascii(), "{all}");
    assert!(
        s.iter().any(|r| r.starts_with("+ 4 start-up problems ")),
        "{all}"
    );
    assert!(starts_row(&s, "1 catalog problem").is_some(), "{all}");
}

#[test]
fn text_from_a_file_reaches_the_screen_escaped() {
    let a = App::new(
        Catalog::builtin(),
        Settings {
            notices: vec!["bad\u{1b}]0;owned\u{7}name.toml: \u{9b}2J".to_string()],
            ..Settings::default()
        },
    );
    let all = rows(&a, 100, 30).join("");
    assert!(!all.contains(['\u{1b}', '\u{7}', '\u{9b}']), "{all:?}");
    assert!(
        all.contains("bad\\u{1b}]0;owned\\u{7}name.toml: \\u{9b}2J"),
        "{all}"
    );
}
