//! The layout at every size from 80x24 up: the plot keeps its minimum
//! height and nothing is drawn over it; the first screen holds the
//! headline at 80x24 whatever has the focus, and the plot, the
//! sensitivity table and the headline together from 100x28; `z` zooms;
//! chart labels never overlap.

use super::{layout, render};
use crate::catalog::Catalog;
use crate::solver::units;
use crate::tui::action::{Action, Command};
use crate::tui::app::{App, Pane, Settings};
use crate::tui::panes::{generations, plot};
use crate::tui::snapshot_tests::hw;
use crate::tui::update::update;
use crate::tui::views::View;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

fn app(ascii: bool) -> App {
    App::new(
        Catalog::builtin(),
        Settings {
            ascii,
            ..Settings::default()
        },
    )
}

fn cmd(a: &mut App, c: Command) {
    update(a, Action::Do(c));
}

fn mark(a: &mut App, ids: &[&str]) {
    let sel = a.hw;
    for id in ids {
        a.hw = hw(a, id);
        cmd(a, Command::Mark);
    }
    a.hw = sel;
    a.recompute();
}

fn screen(a: &App, w: u16, h: u16) -> (String, ratatui::buffer::Buffer) {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(a, f)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut s = String::new();
    for y in 0..h {
        for x in 0..w {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    (s, buf)
}

/// The states with a plot on screen: the roofline alone, with three and
/// with eight devices marked, the Generations view of a family of eight
/// and of the marked devices, and each zoomed.
fn plotted_states() -> Vec<(&'static str, App)> {
    let mut v = Vec::new();
    let mut a = app(false);
    a.focus = Pane::Plot;
    v.push(("roofline", a));
    let mut a = app(false);
    mark(&mut a, &["a100-sxm-80gb", "h200-sxm"]);
    a.focus = Pane::Plot;
    v.push(("roofline 3 marked", a));
    let mut a = app(true);
    mark(
        &mut a,
        &[
            "v100-sxm2-32gb",
            "a100-sxm-40gb",
            "a100-sxm-80gb",
            "h200-sxm",
            "b200",
            "gb200",
            "mi300x",
        ],
    );
    a.focus = Pane::Plot;
    v.push(("roofline 8 marked, ascii", a));
    let mut a = app(false);
    cmd(&mut a, Command::View5);
    v.push(("generations family", a));
    let mut a = app(true);
    mark(&mut a, &["a100-sxm-80gb", "h200-sxm"]);
    cmd(&mut a, Command::View5);
    cmd(&mut a, Command::NextFamily);
    while a.view_inputs.family != crate::tui::knobs::Family::Marked {
        cmd(&mut a, Command::NextFamily);
    }
    v.push(("generations marked, ascii", a));
    let zoomed: Vec<(&'static str, App)> = v
        .iter()
        .map(|(n, a)| {
            let mut z = app(a.ascii);
            z.marked = a.marked.clone();
            z.view_inputs = a.view_inputs.clone();
            z.set_view(a.view);
            z.focus = a.focus;
            z.zoom = true;
            z.recompute();
            (*n, z)
        })
        .collect();
    v.extend(zoomed);
    v
}

/// The chart's area on a screen of `area`, and every other pane's and
/// table's area there.
fn chart_and_others(a: &App, area: Rect) -> (Rect, Vec<Rect>) {
    let areas = layout(a, area);
    let mut others: Vec<Rect> = [
        Pane::Hardware,
        Pane::Models,
        Pane::Knobs,
        Pane::Sensitivity,
        Pane::Compare,
    ]
    .into_iter()
    .filter_map(|p| areas.get(p))
    .collect();
    others.push(areas.status);
    others.push(areas.bar);
    if a.view == View::Roofline {
        let pane = areas.plot.expect("the plot is on screen");
        let (an, _) = a.shown().unwrap();
        (plot::chart_area(a, an, pane), others)
    } else {
        let pane = areas.view.expect("the view is on screen");
        let (an, chart) = generations::chart_area(a, pane).unwrap();
        let inner = Rect::new(pane.x + 1, pane.y + 1, pane.width - 2, pane.height - 2);
        let because = crate::tui::panes::comparison::becauses(a, an);
        others.push(generations::table_area(inner, &because, a.ascii));
        (chart, others)
    }
}

#[test]
fn the_plot_keeps_its_minimum_height_and_nothing_covers_it() {
    for (name, a) in plotted_states() {
        // Every height; the widths where a layout changes, and some between.
        let widths = [
            80, 81, 90, 99, 100, 101, 110, 119, 120, 121, 129, 130, 131, 132, 140, 160, 200, 220,
        ];
        for w in widths {
            for h in 24..=64 {
                let area = Rect::new(0, 0, w, h);
                let (chart, others) = chart_and_others(&a, area);
                assert!(
                    chart.height >= plot::MIN_CHART_ROWS,
                    "{name} at {w}x{h}: the chart has {} rows",
                    chart.height
                );
                assert!(area.contains(chart.as_position()) && chart.bottom() <= h);
                for o in others {
                    assert!(
                        chart.intersection(o).is_empty(),
                        "{name} at {w}x{h}: {o:?} over the chart {chart:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn chart_labels_never_overlap_leave_the_plot_or_get_drawn_over() {
    for (name, a) in plotted_states() {
        for (w, h) in [
            (80, 24),
            (100, 30),
            (119, 36),
            (140, 30),
            (160, 48),
            (220, 60),
        ] {
            let (drawn, buf) = drawn(&a, w, h);
            let at = format!("{name} at {w}x{h}");
            assert!(drawn.labels.len() >= 3, "{at}: {:?}", drawn.labels);
            for (i, l) in drawn.labels.iter().enumerate() {
                let r = l.rect();
                assert!(
                    r.x >= drawn.graph.x
                        && r.right() <= drawn.graph.right()
                        && r.y >= drawn.graph.y
                        && r.bottom() <= drawn.graph.bottom(),
                    "{at}: {l:?} leaves {:?}",
                    drawn.graph
                );
                for o in &drawn.labels[i + 1..] {
                    assert!(r.intersection(o.rect()).is_empty(), "{at}: {l:?} {o:?}");
                }
                for p in &drawn.points {
                    assert!(!r.contains((*p).into()), "{at}: {l:?} covers a point");
                }
            }
            // Nothing drawn after the chart covers a label.
            for l in &drawn.labels {
                let got: String = (l.x..l.x + l.width())
                    .map(|x| buf[(x, l.y)].symbol().to_string())
                    .collect();
                assert_eq!(got, l.text, "{at}");
            }
        }
    }
}

/// Every pane of every view, focused in turn.
fn every_focus(mut f: impl FnMut(&App, String)) {
    for view in View::ALL {
        for &pane in Pane::of(view) {
            let mut a = app(false);
            a.set_view(view);
            a.focus = pane;
            a.recompute();
            f(&a, format!("{view:?} with {pane:?} focused"));
        }
    }
}

/// The headline's words: latency, bound, fit.
fn headline(a: &App) -> [String; 3] {
    let e = a.shown().unwrap().0.eval();
    let fit = if e.memory.fits { "fits" } else { "NO FIT" };
    [
        units::format_time(e.latency_s),
        format!("{}-bound", e.bottleneck.name()),
        fit.to_string(),
    ]
}

#[test]
fn the_headline_is_on_the_first_screen_at_80x24_whatever_has_the_focus() {
    every_focus(|a, at| {
        for zoom in [false, true] {
            let mut a2 = app(false);
            a2.set_view(a.view);
            a2.focus = a.focus;
            a2.zoom = zoom;
            a2.recompute();
            let (s, _) = screen(&a2, 80, 24);
            // The Fleet and Training views answer another question than
            // the selection's step: their own headline takes the place of
            // the selection's (a verdict of a configuration they do not
            // show would read as theirs).
            if matches!(a2.view, View::Fleet | View::Training) {
                let own = if a2.view == View::Fleet {
                    "devices"
                } else {
                    "training"
                };
                assert!(s.contains(own), "{at}, zoom {zoom}: no {own:?}\n{s}");
                assert!(!s.contains("NO FIT: needs"), "{at}, zoom {zoom}\n{s}");
                continue;
            }
            for word in headline(&a2) {
                assert!(s.contains(&word), "{at}, zoom {zoom}: no {word:?}\n{s}");
            }
        }
    });
}

#[test]
fn from_100x28_the_plot_the_sensitivity_and_the_headline_share_the_first_screen() {
    for (w, h) in [
        (100, 28),
        (100, 30),
        (119, 36),
        (140, 30),
        (120, 36),
        (160, 48),
    ] {
        for &pane in Pane::of(View::Roofline) {
            let mut a = app(false);
            a.focus = pane;
            let areas = layout(&a, Rect::new(0, 0, w, h));
            for p in Pane::ALL {
                assert!(areas.get(p).is_some(), "{w}x{h}: {p:?} is not on screen");
            }
            let (s, _) = screen(&a, w, h);
            let at = format!("{w}x{h}, {pane:?} focused");
            for word in headline(&a) {
                assert!(s.contains(&word), "{at}: no {word:?}\n{s}");
            }
            // The whole sensitivity table: its header and its last line.
            assert!(s.contains("elast."), "{at}\n{s}");
            assert!(s.contains("twice the batch needs"), "{at}\n{s}");
            assert!(s.contains("log-log") && s.contains("FLOP/s"), "{at}\n{s}");
        }
    }
}

#[test]
fn z_zooms_the_focused_pane_to_the_whole_screen_and_back() {
    let mut a = app(false);
    a.focus = Pane::Plot;
    let area = Rect::new(0, 0, 120, 36);
    let before = layout(&a, area);
    cmd(&mut a, Command::Zoom);
    let z = layout(&a, area);
    // Every row but the bar and the headline's.
    assert_eq!(z.plot, Some(Rect::new(0, 1, 120, 34)));
    assert_eq!(z.status, Rect::new(0, 35, 120, 1));
    for p in [Pane::Hardware, Pane::Models, Pane::Knobs, Pane::Sensitivity] {
        assert_eq!(z.get(p), None, "{p:?}");
    }
    // Another pane focused while zoomed is zoomed in turn.
    cmd(&mut a, Command::NextPane);
    assert_eq!(layout(&a, area).sensitivity, Some(Rect::new(0, 1, 120, 34)));
    cmd(&mut a, Command::PrevPane);
    cmd(&mut a, Command::Zoom);
    assert_eq!(layout(&a, area), before);
    // A view's headline takes two lines under a zoomed view.
    cmd(&mut a, Command::View5);
    cmd(&mut a, Command::Zoom);
    assert_eq!(layout(&a, area).view, Some(Rect::new(0, 1, 120, 33)));
    let (s, _) = screen(&a, 120, 36);
    assert!(s.contains("z unzoom"), "{s}");
    assert_eq!(a.keymap.first_key(Command::Zoom), "z");
}

#[test]
fn a_long_generations_table_scrolls_under_the_plot() {
    let mut a = app(false);
    let ids = [
        "v100-sxm2-32gb",
        "a100-sxm-40gb",
        "a100-sxm-80gb",
        "h100-sxm",
        "h200-sxm",
        "b200",
        "b300",
        "gb200",
        "mi300x",
        "gaudi-3",
        "tpu-v5p",
        "l40s",
    ];
    mark(&mut a, &ids);
    cmd(&mut a, Command::View5);
    while a.view_inputs.family != crate::tui::knobs::Family::Marked {
        cmd(&mut a, Command::NextFamily);
    }
    a.focus = Pane::View;
    // 80x24: the table has 9 lines: the binding line, the header, then 7
    // for 12 rows, so a line a row, the selected row's sentence whole under
    // them (two lines: the longest sentence wraps once at 77 columns) and a
    // line saying which rows show: 7 - 2 - 1 = 4 rows.
    let (s, _) = screen(&a, 80, 24);
    assert!(s.contains("1-4 of 12 devices"), "{s}");
    // The window follows the cursor and keeps it in the middle: on the
    // sixth row (index 5), four rows from index 5 - 4/2 = 3, rows 4-7.
    for _ in 0..5 {
        cmd(&mut a, Command::Down);
    }
    let (s, _) = screen(&a, 80, 24);
    assert!(
        s.contains("4-7 of 12 devices") && s.contains("h200-sxm"),
        "{s}"
    );
    // The last row: the window ends at it, rows 12 - 4 + 1 = 9 to 12.
    cmd(&mut a, Command::Bottom);
    let (s, _) = screen(&a, 80, 24);
    assert!(
        s.contains("9-12 of 12 devices") && s.contains("l40s"),
        "{s}"
    );
}

/// The chart drawn for `a` on a screen of `w` x `h`, and the screen.
fn drawn(a: &App, w: u16, h: u16) -> (plot::Drawn, ratatui::buffer::Buffer) {
    let area = Rect::new(0, 0, w, h);
    let (chart, _) = chart_and_others(a, area);
    let an = match a.view {
        View::Roofline => a.shown().unwrap().0,
        _ => {
            generations::chart_area(a, layout(a, area).view.unwrap())
                .unwrap()
                .0
        }
    };
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut d = plot::Drawn::default();
    t.draw(|f| d = plot::draw_chart(a, an, f, chart)).unwrap();
    (d, screen(a, w, h).1)
}

#[test]
fn the_ridge_is_the_selected_devices_and_the_others_get_a_tick() {
    // Generations of A100 80GB (ridge 312/2.04 = 153), H100 (989/3.35 =
    // 295) and H200 (989/4.8 = 206), in that order: the ridge drawn is the
    // one of the device selected in the Hardware list, not the first's.
    let mut a = app(true);
    mark(&mut a, &["a100-sxm-80gb", "h100-sxm", "h200-sxm"]);
    cmd(&mut a, Command::View5);
    while a.view_inputs.family != crate::tui::knobs::Family::Marked {
        cmd(&mut a, Command::NextFamily);
    }
    for (id, ridge, others) in [
        ("h100-sxm", "ridge 295", [0, 2]),
        ("h200-sxm", "ridge 206", [0, 1]),
        ("a100-sxm-80gb", "ridge 153", [1, 2]),
    ] {
        a.hw = hw(&a, id);
        a.recompute();
        let (d, buf) = drawn(&a, 160, 48);
        let texts: Vec<&str> = d.labels.iter().map(|l| l.text.as_str()).collect();
        assert!(texts.contains(&ridge), "{id}: {texts:?}");
        // One tick per other device, in its own character, on the
        // chart's two bottom rows (a label may cover one of them).
        let places: Vec<usize> = d.ticks.iter().map(|t| t.0).collect();
        assert_eq!(places, others, "{id}");
        for (place, x) in d.ticks {
            let c = plot::marks::device(place).ascii.to_string();
            let b = d.graph.bottom();
            let seen = [b - 1, b - 2].map(|y| buf[(x, y)].symbol().to_string());
            assert!(seen.contains(&c), "{id}: {seen:?} at column {x}, not {c}");
        }
    }
}
