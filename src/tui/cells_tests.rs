//! Every table of the workbench, drawn from random states (tiny, huge and
//! odd devices, models, batches, contexts and efficiencies, every view, at
//! narrow and wide sizes, zoomed or not): no cell cuts a number. Each cell
//! `grid::row` draws is recorded as given and as drawn, and the drawn one
//! is the given one whole, the same figure told shorter, or the no-room
//! mark (`panes::cell::check_whole`); the serving groups' values too.
//! And sentences are whole: the comparison's "because" lines and the
//! Compare pane's hint, at 80x24, 100x30 and 160x48, zoomed or not.

use super::action::{Action, Command};
use super::app::{App, Settings};
use super::panes::cell::{self, check_whole};
use super::panes::grid::{self, Col, seen};
use super::render;
use super::update::update;
use crate::catalog::Catalog;
use crate::solver::{Phase, units};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

const VIEWS: [Command; 9] = [
    Command::View1,
    Command::View2,
    Command::View3,
    Command::View4,
    Command::View5,
    Command::View6,
    Command::View7,
    Command::View8,
    Command::View9,
];

#[derive(Debug, Clone)]
struct State {
    hw: usize,
    model: usize,
    marked: Vec<usize>,
    prefill: bool,
    batch: f64,
    context: f64,
    eff: f64,
    overhead: f64,
    view: usize,
    zoom: bool,
    ascii: bool,
    size: (u16, u16),
}

fn state() -> impl Strategy<Value = State> {
    let n_hw = Catalog::builtin().hardware.len();
    let n_model = Catalog::builtin().models.len();
    (
        (0..n_hw, 0..n_model, prop::collection::vec(0..n_hw, 0..4)),
        (
            any::<bool>(),
            prop::sample::select(vec![1.0, 3.0, 64.0, 4096.0, 1e6]),
            prop::sample::select(vec![1.0, 128.0, 4096.0, 131_072.0, 1e7]),
            prop::sample::select(vec![1e-6, 0.013, 0.7, 1.0]),
            prop::sample::select(vec![0.0, 1e-9, 10e-6, 2.0]),
        ),
        (0..9usize, any::<bool>(), any::<bool>()),
        prop::sample::select(vec![(80, 24), (84, 26), (100, 30), (120, 36), (160, 48)]),
    )
        .prop_map(
            |(
                (hw, model, marked),
                (prefill, batch, context, eff, overhead),
                (view, zoom, ascii),
                size,
            )| {
                State {
                    hw,
                    model,
                    marked,
                    prefill,
                    batch,
                    context,
                    eff,
                    overhead,
                    view,
                    zoom,
                    ascii,
                    size,
                }
            },
        )
}

fn build(s: &State) -> App {
    let mut a = App::new(
        Catalog::builtin(),
        Settings {
            ascii: s.ascii,
            ..Settings::default()
        },
    );
    a.hw = s.hw;
    a.model = s.model;
    for &m in &s.marked {
        if !a.marked.contains(&m) {
            a.marked.push(m);
        }
    }
    a.workload.phase = if s.prefill {
        Phase::Prefill
    } else {
        Phase::Decode
    };
    a.workload.batch = s.batch;
    a.workload.context = s.context;
    a.assumptions.compute_efficiency = s.eff;
    a.assumptions.memory_efficiency = s.eff;
    a.assumptions.overhead_s = s.overhead;
    a.recompute();
    update(&mut a, Action::Do(VIEWS[s.view]));
    if s.zoom {
        update(&mut a, Action::Do(Command::Zoom));
    }
    a
}

fn drawn_cells(a: &App, (w, h): (u16, u16)) -> Vec<(String, String)> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    seen::cells(|| {
        t.draw(|f| render(a, f)).unwrap();
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every view's tables, from random states: every cell whole.
    #[test]
    fn no_table_cuts_a_number(s in state()) {
        let mut a = build(&s);
        // Each pane in turn has the focus (a zoomed screen shows only it).
        let panes = super::app::Pane::of(a.view).to_vec();
        let mut seen_any = false;
        for p in panes {
            a.focus = p;
            let cells = drawn_cells(&a, s.size);
            seen_any |= !cells.is_empty();
            for (given, drawn) in cells {
                prop_assert!(check_whole(&given, &drawn).is_ok(),
                    "{p:?} in {s:?}: {}", check_whole(&given, &drawn).unwrap_err());
            }
        }
        prop_assert!(seen_any, "no table drawn in {s:?}");
    }

    /// The table renderer itself, with any figure the formatters write
    /// (NaN, infinities, tiny, huge, negative) in any column width.
    #[test]
    fn a_table_row_draws_figures_whole(
        xs in prop::collection::vec(prop_oneof![
            3 => (-300i32..300, -9.99f64..9.99).prop_map(|(e, m)| m * 10f64.powi(e)),
            1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]),
        ], 1..8),
        kinds in prop::collection::vec(0usize..6, 8),
        widths in prop::collection::vec(1u16..12, 8),
        right in any::<bool>(),
    ) {
        let cells: Vec<String> = xs.iter().zip(&kinds).map(|(x, k)| match k {
            0 => units::format_number(*x),
            1 => units::format_time(*x),
            2 => units::format_bytes(*x),
            3 => super::panes::percent(*x),
            4 => super::panes::serving::usd(Some(*x)),
            _ => super::panes::comparison::times(*x),
        }).collect();
        let cols: Vec<Col> = widths[..cells.len()].iter()
            .map(|w| if right { grid::right(*w) } else { grid::left(*w) }).collect();
        let total: u16 = cols.iter().map(|c| c.width + 1).sum();
        let area = Rect::new(0, 0, total, 1);
        let mut buf = Buffer::empty(area);
        let w = grid::widths(&cols, total);
        let lines: Vec<Line> = cells.iter().map(|c| Line::from(c.clone())).collect();
        let got = seen::cells(|| grid::row(&mut buf, area, 0, &cols, &w, &lines, None));
        prop_assert_eq!(got.len(), cells.len());
        for ((given, drawn), col) in got.iter().zip(&cols) {
            prop_assert!(drawn.chars().count() <= col.width as usize);
            prop_assert!(check_whole(given, drawn).is_ok(), "{}", check_whole(given, drawn).unwrap_err());
            // From seven columns on a plain number always has its digits.
            if col.width as usize >= cell::ALWAYS_FITS && cell::split(given)
                .is_some_and(|(p, _, u)| u.is_empty() && p.trim_start_matches('-').is_empty()) {
                prop_assert!(drawn != cell::NO_ROOM, "{given:?} in {}", col.width);
            }
        }
    }
}

/// The text of `r` on a drawn buffer, line by line joined with spaces,
/// runs of spaces as one.
fn text_in(buf: &Buffer, r: Rect) -> String {
    let mut out = String::new();
    for y in r.top()..r.bottom() {
        for x in r.left()..r.right() {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push(' ');
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The A100 -> H100 -> H200 scenario in the Generations view, at 80x24,
/// 100x30 and 160x48, zoomed or not, with the cursor on each row in turn:
/// the selected row's "because" sentence is on screen whole (every word,
/// in order, wrapped at word boundaries), and no sentence in the table is
/// cut short with an ellipsis.
#[test]
fn because_sentences_are_whole_at_every_size_zoomed_or_not() {
    use super::app::Pane;
    use super::panes::{comparison, generations};
    for (w, h) in [(80, 24), (100, 30), (160, 48)] {
        for zoom in [false, true] {
            for ascii in [false, true] {
                let mut a = App::new(
                    Catalog::builtin(),
                    Settings {
                        ascii,
                        ..Settings::default()
                    },
                );
                let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("assets/scenarios/a100-h100-h200.toml");
                a.open_scenario(&path).unwrap();
                update(&mut a, Action::Do(Command::View5));
                a.focus = Pane::View;
                if zoom {
                    update(&mut a, Action::Do(Command::Zoom));
                }
                for row in 0..3 {
                    a.view_scroll = row;
                    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
                    t.draw(|f| render(&a, f)).unwrap();
                    let buf = t.backend().buffer().clone();
                    let pane = super::ui::layout(&a, Rect::new(0, 0, w, h)).view.unwrap();
                    let inner = Rect::new(pane.x + 1, pane.y + 1, pane.width - 2, pane.height - 2);
                    let (an, _) = generations::chart_area(&a, pane).unwrap();
                    let because = comparison::becauses(&a, an);
                    let table = generations::table_area(inner, &because, ascii);
                    let shown = text_in(&buf, table);
                    let at = format!("{w}x{h} zoom {zoom} ascii {ascii} row {row}");
                    let sentence = because[row]
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    assert!(
                        shown.contains(&sentence),
                        "{at}: {sentence:?} not whole in {shown:?}"
                    );
                    let e = super::panes::text::ellipsis(ascii);
                    assert!(!shown.contains(e), "{at}: a sentence cut in {shown:?}");
                }
            }
        }
    }
}

/// The Compare pane's hint with no device marked, at 80x24 where the pane
/// fills the screen: the sentence (92 columns, the pane 78) wraps whole onto a second
/// line rather than ending at "and th".
#[test]
fn the_compare_hint_wraps_whole_at_80_columns() {
    use super::app::Pane;
    let mut a = App::new(Catalog::builtin(), Settings::default());
    a.focus = Pane::Compare;
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| render(&a, f)).unwrap();
    let pane = super::ui::layout(&a, Rect::new(0, 0, 80, 24))
        .compare
        .unwrap();
    let inner = Rect::new(pane.x + 1, pane.y + 1, pane.width - 2, pane.height - 2);
    let shown = text_in(t.backend().buffer(), inner);
    assert!(
        shown.contains(
            "space marks devices in the Hardware list: their roofs overlay the plot and they line up here"
        ),
        "{shown}"
    );
}
