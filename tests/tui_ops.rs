//! The Operators view driven by keys: 8 opens it, Up and Down move through
//! its table and the selected operator's point (its own glyph, readable
//! without colour and in ASCII); the picture it exists for: at batch 1
//! decode every operator left of the ridge, at a batch-256 prefill of
//! short prompts the MLP right of it while attention stays left.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ridgeline::solver::ops::OpKind;
use ridgeline::solver::{Phase, Workload};
use ridgeline::tui::panes::ops::{self, chart};
use ridgeline::tui::views::ops::OpsData;
use ridgeline::tui::views::{View, ViewData};
use ridgeline::tui::{App, Command, Pane};

mod common;
use common::{app, go, screen};

fn data(a: &App) -> &OpsData {
    match a.view_data.as_ref().expect("operator figures") {
        ViewData::Operators(d) => d,
        other => panic!("not the operators view: {other:?}"),
    }
}

fn buffer(a: &App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ridgeline::tui::render(a, f)).unwrap();
    t.backend().buffer().clone()
}

/// Every cell showing `glyph`.
fn cells(buf: &Buffer, glyph: &str) -> Vec<(u16, u16)> {
    let a = buf.area;
    (a.top()..a.bottom())
        .flat_map(|y| (a.left()..a.right()).map(move |x| (x, y)))
        .filter(|&(x, y)| buf[(x, y)].symbol() == glyph)
        .collect()
}

/// The chart as the view draws it at `w`x`h`: where each point went.
fn drawn(a: &App, w: u16, h: u16) -> chart::Drawn {
    let areas = ridgeline::tui::ui::layout(a, Rect::new(0, 0, w, h));
    let (d, plot, _) = ops::areas(a, areas.view.unwrap()).unwrap();
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    chart::draw(a, d, ops::selected(a, d), &mut buf, plot)
}

/// The cell of the point of the operator of `kind`.
fn point_of(a: &App, dr: &chart::Drawn, kind: OpKind) -> (u16, u16) {
    let d = data(a);
    let i = d.breakdown.ops.iter().position(|o| o.kind == kind).unwrap();
    dr.points
        .iter()
        .find(|(_, g)| g.contains(&i))
        .unwrap_or_else(|| panic!("no point for {kind:?}"))
        .0
}

#[test]
fn eight_opens_operators_and_up_down_move_the_selected_point() {
    let mut a = app();
    go(&mut a, &[Command::View8]);
    assert_eq!(a.view, View::Operators);
    assert_eq!(a.focus, Pane::View);
    // Llama 3.1 8B decode at batch 1: the norms (0.5 FLOP/B), then the
    // QKV projection (1 FLOP/B), then attention (4 FLOP/B): each Down moves
    // the one selected point right.
    let mut xs = Vec::new();
    for (want, kind) in [
        ("norms + residual", OpKind::Norms),
        ("QKV proj", OpKind::Qkv),
        ("attention", OpKind::Attention),
    ] {
        let buf = buffer(&a, 160, 48);
        let sel = cells(&buf, &chart::SELECTED.0.to_string());
        // One point drawn with the selected glyph, and the table's row.
        assert_eq!(sel.len(), 2, "{want}: {sel:?}\n{}", screen(&a, 160, 48));
        let dr = drawn(&a, 160, 48);
        let p = point_of(&a, &dr, kind);
        assert!(sel.contains(&p), "{want}: {sel:?} vs {p:?}");
        let s = screen(&a, 160, 48);
        let row = s.lines().find(|l| l.contains("▶◆")).unwrap();
        assert!(row.contains(want), "{row}");
        xs.push(p.0);
        go(&mut a, &[Command::Down]);
    }
    assert!(xs[0] < xs[1] && xs[1] < xs[2], "{xs:?}");
    // The cursor stops at the last operator.
    for _ in 0..20 {
        go(&mut a, &[Command::Down]);
    }
    assert_eq!(a.view_scroll, data(&a).breakdown.ops.len() - 1);
}

#[test]
fn the_selected_point_reads_without_colour_and_in_ascii() {
    for (look, glyph, other) in [("mono", '◆', '●'), ("ascii", '@', 'o')] {
        let mut a = common::looking(look);
        go(&mut a, &[Command::View8, Command::Down, Command::Down]);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let buf = buffer(&a, w, h);
            let s = screen(&a, w, h);
            let dr = drawn(&a, w, h);
            let p = point_of(&a, &dr, OpKind::Attention);
            assert_eq!(buf[p].symbol(), glyph.to_string(), "{look} {w}x{h}\n{s}");
            assert!(s.contains(other), "{look} {w}x{h}\n{s}");
            assert!(s.contains("attn"), "{look} {w}x{h}: the point's label\n{s}");
            if look == "mono" {
                assert!(
                    buf.content
                        .iter()
                        .all(|c| c.fg == ratatui::style::Color::Reset),
                    "{look}: a colour under NO_COLOR"
                );
            } else {
                assert!(s.is_ascii(), "{s}");
            }
        }
    }
}

#[test]
fn batch_one_decode_is_all_left_of_the_ridge_and_a_big_prefill_moves_the_mlp_right() {
    let mut a = app();
    go(&mut a, &[Command::View8]);
    let dr = drawn(&a, 160, 48);
    let ridge = dr.ridge_x.unwrap();
    assert!(!dr.points.is_empty());
    for (cell, ops) in &dr.points {
        assert!(cell.0 < ridge, "{ops:?} at {cell:?}, ridge at {ridge}");
    }
    // 256 prompts of 256 tokens: the MLP at 7,282 and 3,787 FLOP/B (right
    // of the effective ridge, 252), attention at 102.4 (left of it).
    a.workload = Workload {
        phase: Phase::Prefill,
        batch: 256.0,
        context: 256.0,
        ..a.workload
    };
    a.recompute();
    let dr = drawn(&a, 160, 48);
    let ridge = dr.ridge_x.unwrap();
    assert!(point_of(&a, &dr, OpKind::GateUp).0 > ridge);
    assert!(point_of(&a, &dr, OpKind::Down).0 > ridge);
    assert!(
        point_of(&a, &dr, OpKind::Attention).0 < ridge,
        "{:?} {ridge}\n{}",
        point_of(&a, &dr, OpKind::Attention),
        screen(&a, 160, 48)
    );
    let s = screen(&a, 160, 48);
    let row = |name: &str| s.lines().find(|l| l.contains(name)).unwrap().to_string();
    assert!(row("MLP gate+up").contains("compute"), "{s}");
    assert!(row("attention").contains("memory"), "{s}");
}

#[test]
fn a_workload_that_does_not_fit_is_broken_down_where_it_fits() {
    let mut a = app();
    a.model = common::model(&a, "llama-3.1-70b");
    go(&mut a, &[Command::View8]);
    // 141 GB of weights on one 80 GB H100: the breakdown is of the 2
    // devices that hold it, with its all-reduces, and says so.
    let d = data(&a);
    assert_eq!(d.layout.tp * d.layout.pp, 2);
    let s = screen(&a, 100, 30);
    assert!(s.contains("does not fit as asked"), "{s}");
    assert!(s.contains("needs 2"), "{s}");
}

#[test]
fn a_scenario_opens_on_the_operators_view() {
    let dir = std::env::temp_dir().join(format!("ridgeline-ops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ops.toml");
    std::fs::write(
        &path,
        "view = \"operators\"\n[workload]\nphase = \"prefill\"\nbatch = 256\ncontext = 256\n",
    )
    .unwrap();
    let mut a = app();
    a.open_scenario(&path).unwrap();
    assert_eq!(a.view, View::Operators);
    assert_eq!(data(&a).step, "prefill");
    std::fs::remove_dir_all(&dir).ok();
}
