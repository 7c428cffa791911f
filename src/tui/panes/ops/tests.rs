//! Snapshots of the Operators view (insta, as src/tui/snapshot_tests.rs):
//! batch 1 decode and a batch-256 prefill of 256-token prompts, at 80x24
//! and 160x48, and at 100x30 without colour and in ASCII; and where the
//! plot and the table go.

use super::split;
use crate::catalog::Catalog;
use crate::solver::{Phase, Workload};
use crate::tui::action::{Action, Command};
use crate::tui::app::{App, Settings};
use crate::tui::render;
use crate::tui::update::update;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(app, f)).unwrap();
    t.backend().to_string()
}

/// The Operators view of Llama 3.1 8B on an H100 (the workbench's start),
/// in a look ("colour", "mono" for NO_COLOR, "ascii").
fn operators(look: &str, prefill: bool) -> App {
    let mut a = App::new(
        Catalog::builtin(),
        Settings {
            ascii: look == "ascii",
            no_color: look == "mono",
            ..Settings::default()
        },
    );
    if prefill {
        a.workload = Workload {
            phase: Phase::Prefill,
            batch: 256.0,
            context: 256.0,
            ..a.workload
        };
    }
    update(&mut a, Action::Do(Command::View8));
    // The cursor on attention: its point has the selected glyph.
    update(&mut a, Action::Do(Command::Down));
    update(&mut a, Action::Do(Command::Down));
    a
}

#[test]
fn operators_view_snapshots() {
    for (name, prefill) in [("decode_b1", false), ("prefill_b256_s256", true)] {
        let a = operators("colour", prefill);
        for (w, h) in [(80, 24), (160, 48)] {
            insta::assert_snapshot!(format!("operators_{name}_{w}x{h}"), screen(&a, w, h));
        }
        for look in ["mono", "ascii"] {
            let a = operators(look, prefill);
            insta::assert_snapshot!(
                format!("operators_{name}_{look}_100x30"),
                screen(&a, 100, 30)
            );
        }
    }
}

#[test]
fn the_plot_keeps_its_rows_and_the_table_goes_beside_it_when_wide() {
    // 80x24: the view's inner area is 78x18. Eight operators want a header,
    // a row each and the totals: 10 lines; the plot keeps its 9, so the
    // table gets 9 (it scrolls).
    let inner = Rect::new(1, 2, 78, 18);
    let (plot, table) = split(inner, 8);
    assert_eq!(plot, Rect::new(1, 2, 78, 9));
    assert_eq!(table, Rect::new(1, 11, 78, 9));
    // Five operators (a single-pass network's list): 7 lines, the plot the
    // other 11.
    let (plot, table) = split(inner, 5);
    assert_eq!((plot.height, table.height), (11, 7));
    // 160x48: the view's pane is 158 wide inside; the table's 78 columns
    // go to the right of the plot's 79, the full height each.
    let inner = Rect::new(1, 18, 158, 25);
    let (plot, table) = split(inner, 8);
    assert_eq!(plot, Rect::new(1, 18, 79, 25));
    assert_eq!(table, Rect::new(81, 18, 78, 25));
}
