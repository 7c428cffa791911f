//! Snapshots of the comparisons with devices that do not fit (issue 7):
//! Generations (Llama 3.1 70B across the NVIDIA data-centre family), the
//! Compare pane (70B on an A100 against an H200 and a B200) and the Sweep
//! (Llama 3.1 8B on an H100 up to batch 1024, of which 414 fits), at 80x24,
//! 100x30 and 160x48, in colour, with NO_COLOR (the mono theme) and in
//! ASCII. The colour snapshots list, below the screen, every run of cells
//! drawn in the theme's error colour: the verdicts must be among them. In
//! mono the words alone carry the verdict; in ASCII the screen is ASCII.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ridgeline::catalog::Catalog;
use ridgeline::tui::knobs::Family;
use ridgeline::tui::{App, Command, Pane, Settings, render, update};
use std::path::Path;

mod common;
use common::{hw, model};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Colour,
    Mono,
    Ascii,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Colour => "colour",
            Mode::Mono => "mono",
            Mode::Ascii => "ascii",
        }
    }
}

fn app(mode: Mode) -> App {
    App::new(
        Catalog::builtin(),
        Settings {
            ascii: mode == Mode::Ascii,
            no_color: mode == Mode::Mono,
            ..Settings::default()
        },
    )
}

fn go(a: &mut App, c: Command) {
    update(a, ridgeline::tui::Action::Do(c));
}

fn generations(mode: Mode) -> App {
    let mut a = app(mode);
    a.model = model(&a, "llama-3.1-70b");
    // The whole NVIDIA datacenter family (eight devices), not the default
    // four.
    a.view_inputs.family = Family::Named("nvidia-datacenter".into());
    go(&mut a, Command::View5);
    a
}

fn compare(mode: Mode) -> App {
    let mut a = app(mode);
    a.hw = hw(&a, "a100-sxm-80gb");
    a.model = model(&a, "llama-3.1-70b");
    a.marked = vec![hw(&a, "h200-sxm"), hw(&a, "b200")];
    go(&mut a, Command::View1);
    a.focus = Pane::Compare;
    a.recompute();
    a
}

fn sweep(mode: Mode) -> App {
    let mut a = app(mode);
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenarios/batch-sweep-8b-h100.toml");
    a.open_scenario(&p).unwrap();
    a
}

fn draw(a: &App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(a, f)).unwrap();
    t.backend().buffer().clone()
}

fn text(b: &Buffer) -> String {
    let a = b.area;
    (a.top()..a.bottom())
        .map(|y| {
            let l: String = (a.left()..a.right()).map(|x| b[(x, y)].symbol()).collect();
            format!("{l}\n")
        })
        .collect()
}

/// Runs of cells in the theme's error colour: "row 22, col 4: ✗ needs 2".
fn error_runs(a: &App, b: &Buffer) -> String {
    let error = a.theme().error;
    let mut out = String::new();
    for y in b.area.top()..b.area.bottom() {
        let mut x = b.area.left();
        while x < b.area.right() {
            if b[(x, y)].fg != error {
                x += 1;
                continue;
            }
            let start = x;
            let mut run = String::new();
            while x < b.area.right() && b[(x, y)].fg == error {
                run.push_str(b[(x, y)].symbol());
                x += 1;
            }
            if !run.trim().is_empty() {
                out.push_str(&format!("row {y}, col {start}: {}\n", run.trim_end()));
            }
        }
    }
    out
}

fn snap(name: &str, make: fn(Mode) -> App) {
    for mode in [Mode::Colour, Mode::Mono, Mode::Ascii] {
        let a = make(mode);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let b = draw(&a, w, h);
            let screen = text(&b);
            let id = format!("{name}_{}_{w}x{h}", mode.name());
            match mode {
                Mode::Colour => {
                    let runs = error_runs(&a, &b);
                    assert!(
                        runs.contains("✗ needs") || runs.contains("NO FIT"),
                        "{id}:\n{runs}"
                    );
                    insta::assert_snapshot!(id, format!("{screen}\nin the error colour:\n{runs}"));
                }
                Mode::Mono => {
                    // In a table row, or (when the table is paged at 100x30)
                    // in the status line.
                    assert!(
                        screen.contains("✗ needs") || screen.contains("NO FIT: needs"),
                        "{id}"
                    );
                    insta::assert_snapshot!(id, screen);
                }
                Mode::Ascii => {
                    assert!(screen.is_ascii(), "{id}:\n{screen}");
                    assert!(
                        screen.contains("x needs") || screen.contains("NO FIT: needs"),
                        "{id}"
                    );
                    insta::assert_snapshot!(id, screen);
                }
            }
        }
    }
}

#[test]
fn generations_with_devices_that_do_not_fit() {
    snap("generations_70b", generations);
}

#[test]
fn compare_with_devices_that_do_not_fit() {
    snap("compare_70b_a100", compare);
}

#[test]
fn sweep_past_the_largest_batch_that_fits() {
    snap("sweep_8b_h100", sweep);
}
