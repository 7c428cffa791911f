//! Whole-screen snapshots with TestBackend at 80x24 and 160x48 (and 120x36
//! for the README capture). The .snap files live in src/tui/snapshots/.

use super::action::{Action, Command};
use super::app::{App, Settings};
use super::render;
use super::update::update;
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

/// The app in a view, as the number key opens it.
fn in_view(n: usize) -> App {
    let mut a = app();
    let c = [
        Command::View1,
        Command::View2,
        Command::View3,
        Command::View4,
        Command::View5,
        Command::View6,
        Command::View7,
    ][n - 1];
    cmd(&mut a, c);
    a
}

fn scenario(name: &str) -> App {
    let mut a = app();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios")
        .join(name);
    a.open_scenario(&path).unwrap();
    a
}

#[test]
fn serving_view() {
    snap("view_serving", &in_view(2));
}

#[test]
fn synthesis_view() {
    snap("view_synthesis", &in_view(3));
    // The target typed in the entry: invalid text says why in place and
    // the last valid ranking stays, marked.
    let mut a = in_view(3);
    cmd(&mut a, Command::Edit);
    typed(&mut a, "fast please");
    snap("view_synthesis_invalid", &a);
    // An infeasible target says why.
    let mut a = in_view(3);
    cmd(&mut a, Command::Edit);
    typed(&mut a, "5us itl");
    cmd(&mut a, Command::Edit);
    snap("view_synthesis_infeasible", &a);
}

#[test]
fn sweep_view() {
    snap("view_sweep", &scenario("batch-sweep-8b-h100.toml"));
    let mut a = in_view(4);
    // The sweep-over knob is the first of the view: step it to context.
    a.focus = super::app::Pane::Knobs;
    cmd(&mut a, Command::Right);
    a.focus = super::app::Pane::View;
    snap("view_sweep_context", &a);
}

#[test]
fn generations_view() {
    snap("view_generations", &in_view(5));
    snap("view_generations_marked", &scenario("a100-h100-h200.toml"));
}

#[test]
fn fleet_view() {
    let a = scenario("capstone-fleet.toml");
    snap("view_fleet_capstone", &a);
    insta::assert_snapshot!("view_fleet_capstone_120x36", screen(&a, 120, 36));
}

#[test]
fn fleet_view_in_ascii_says_the_budget_plainly() {
    let mut a = App::new(
        Catalog::builtin(),
        Settings {
            ascii: true,
            ..Settings::default()
        },
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios/capstone-fleet.toml");
    a.open_scenario(&path).unwrap();
    let s = screen(&a, 80, 24);
    assert!(s.is_ascii(), "{s}");
    // The cheapest fleet is over the $5M budget: the view says by how much,
    // and shows the front below it.
    assert!(s.contains("OVER BUDGET: nothing within $5M/yr"), "{s}");
    assert!(s.contains("front of cost vs TTFT"), "{s}");
    insta::assert_snapshot!("view_fleet_capstone_ascii_80x24", s);
}

#[test]
fn save_entry() {
    let mut a = in_view(6);
    cmd(&mut a, Command::Save);
    snap("save_entry", &a);
}

#[test]
fn every_view_in_ascii_is_ascii() {
    for n in 1..=7 {
        let mut a = in_view(n);
        a.ascii = true;
        for (w, h) in [(80, 24), (160, 48)] {
            let s = screen(&a, w, h);
            assert!(s.is_ascii(), "view {n} at {w}x{h}:\n{s}");
        }
    }
}

/// The three ways a screen is drawn: in colour (the dark theme), under
/// NO_COLOR (the mono theme) and in ASCII.
const LOOKS: [&str; 3] = ["colour", "mono", "ascii"];

fn looking(look: &str) -> App {
    App::new(
        Catalog::builtin(),
        Settings {
            ascii: look == "ascii",
            no_color: look == "mono",
            ..Settings::default()
        },
    )
}

/// The catalog index of a device.
pub(crate) fn hw(a: &App, id: &str) -> usize {
    a.catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == id)
        .unwrap()
}

/// H100 selected with the A100 80GB and the H200 marked, as a user does it
/// (space on each row of the Hardware list), the plot focused.
fn three_marked(look: &str) -> App {
    let mut a = looking(look);
    for id in ["h100-sxm", "a100-sxm-80gb", "h200-sxm"] {
        a.hw = hw(&a, id);
        cmd(&mut a, Command::Mark);
    }
    a.hw = hw(&a, "h100-sxm");
    a.focus = super::app::Pane::Plot;
    a.recompute();
    a
}

/// The Generations view on the A100 -> H100 -> H200 scenario's devices.
fn generations(look: &str) -> App {
    let mut a = looking(look);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios/a100-h100-h200.toml");
    a.open_scenario(&path).unwrap();
    cmd(&mut a, Command::View5);
    a
}

/// Each colour used in `area` as a letter, and the grid of letters: what a
/// text snapshot cannot show of a colour screen.
fn colours(a: &App, w: u16, h: u16, area: ratatui::layout::Rect) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(a, f)).unwrap();
    let buf = t.backend().buffer();
    let mut seen: Vec<ratatui::style::Color> = Vec::new();
    let mut grid = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let c = &buf[(x, y)];
            if c.symbol() == " " {
                grid.push(' ');
                continue;
            }
            let i = seen.iter().position(|s| *s == c.fg).unwrap_or_else(|| {
                seen.push(c.fg);
                seen.len() - 1
            });
            grid.push((b'a' + i as u8) as char);
        }
        grid.push('\n');
    }
    let key: Vec<String> = seen
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}={c}", (b'a' + i as u8) as char))
        .collect();
    format!("{}\n{grid}", key.join(" "))
}

/// Snapshots of one state at the three sizes, in the three looks; the
/// colour one also maps the colours of the pane that holds the plot.
fn snap_looks(name: &str, make: fn(&str) -> App, pane: super::app::Pane) {
    for look in LOOKS {
        let a = make(look);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let mut s = screen(&a, w, h);
            if look == "colour" {
                let area = super::ui::layout(&a, ratatui::layout::Rect::new(0, 0, w, h))
                    .get(pane)
                    .unwrap();
                s.push_str(&colours(&a, w, h, area));
            }
            insta::assert_snapshot!(format!("{name}_{look}_{w}x{h}"), s);
        }
    }
}

#[test]
fn roofline_with_three_marked_devices() {
    snap_looks("roofline_marked", three_marked, super::app::Pane::Plot);
}

#[test]
fn generations_of_a100_h100_h200() {
    snap_looks("generations_looks", generations, super::app::Pane::View);
}

/// The Training view (Llama 3.1 8B on eight H100s) with the layout search
/// run: the cursor on the fastest layout.
fn training_searched(look: &str) -> App {
    let mut a = looking(look);
    cmd(&mut a, Command::View7);
    cmd(&mut a, Command::SearchLayouts);
    a
}

/// The Training view at ZeRO 1, which does not fit: the memory bar, the
/// verdict and the fixes, no step time.
fn training_no_fit(look: &str) -> App {
    let mut a = looking(look);
    cmd(&mut a, Command::View7);
    a.view_inputs.train.zero = 1;
    a.recompute();
    a
}

/// The Training view's scaling plot (Llama 3.1 8B, 4M tokens a step, 8
/// to 16384 H100s, each count's fastest layout): the ideal line, the
/// points marked by their binding term, the layout in use and the knee.
fn training_scaling(look: &str) -> App {
    let mut a = looking(look);
    cmd(&mut a, Command::View7);
    cmd(&mut a, Command::ScalingPlot);
    a
}

/// The scaling plot just after the global batch doubled (4M -> 8M tokens
/// a step) with the worker computing the new curve: the 4M curve drawn,
/// its head saying UPDATING. (The curve drawn changes only when the app
/// takes a landed one, so this frame does not depend on the worker's
/// timing.)
fn training_scaling_updating(look: &str) -> App {
    let mut a = training_scaling(look);
    a.train_curve.attach(|| {}).unwrap();
    a.view_inputs.train.global_batch *= 2.0;
    a.recompute();
    a
}

/// The capstone's Fleet view: over budget, what would fit, the regions and
/// the front.
fn fleet_capstone(look: &str) -> App {
    let mut a = looking(look);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios/capstone-fleet.toml");
    a.open_scenario(&path).unwrap();
    a
}

/// The Serving view at batch 8: one prompt's TTFT and the whole static
/// batch's.
fn serving_batch8(look: &str) -> App {
    let mut a = looking(look);
    cmd(&mut a, Command::View2);
    a.workload.batch = 8.0;
    a.recompute();
    a
}

/// The Explore view on its defaults: the scatter, the front and its table.
fn explore_default(look: &str) -> App {
    let mut a = looking(look);
    cmd(&mut a, Command::View9);
    a
}

#[test]
fn fleet_serving_and_explore_views_in_every_look_and_size() {
    snap_looks("fleet_looks", fleet_capstone, super::app::Pane::View);
    snap_looks("serving_looks", serving_batch8, super::app::Pane::View);
    snap_looks("explore_looks", explore_default, super::app::Pane::View);
}

#[test]
fn training_view_in_every_look_and_size() {
    snap_looks("training", training_searched, super::app::Pane::View);
    snap_looks("training_no_fit", training_no_fit, super::app::Pane::View);
    snap_looks("training_scaling", training_scaling, super::app::Pane::View);
    snap_looks(
        "training_scaling_updating",
        training_scaling_updating,
        super::app::Pane::View,
    );
}

#[test]
fn the_scaling_plot_on_a_tpu_marks_one_pod() {
    // TPU v5p: one ICI slice holds 6144 chips; past it the dotted column.
    for look in ["mono", "ascii"] {
        let mut a = training_scaling(look);
        a.hw = a
            .catalog
            .hardware
            .iter()
            .position(|e| e.hw.id == "tpu-v5p")
            .unwrap();
        a.recompute();
        let s = screen(&a, 80, 24);
        assert!(s.contains("one pod"), "{s}");
        insta::assert_snapshot!(format!("training_scaling_tpu_{look}_80x24"), s);
    }
}

/// Without colour (NO_COLOR) and without Unicode (ASCII) each device keeps
/// its own symbol beside its id in the legend or table, each operating
/// point is labelled with its device and phase where the plot has room
/// (the selected device's alone on a small one), and in ASCII each roof is
/// drawn with its own character.
#[test]
fn devices_are_told_apart_by_characters_alone() {
    use super::panes::{generations, plot};
    use ratatui::layout::Rect;
    for look in ["mono", "ascii"] {
        for make in [three_marked, generations] {
            let a = make(look);
            for (w, h) in [(80, 24), (100, 30), (160, 48)] {
                let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
                t.draw(|f| render(&a, f)).unwrap();
                let buf = t.backend().buffer().clone();
                let s = screen(&a, w, h);
                let at = format!("{look} {:?} at {w}x{h}", a.view);
                if look == "mono" {
                    assert!(
                        buf.content
                            .iter()
                            .all(|c| c.fg == ratatui::style::Color::Reset
                                && c.bg == ratatui::style::Color::Reset),
                        "{at}: a colour under NO_COLOR"
                    );
                }
                let areas = super::ui::layout(&a, Rect::new(0, 0, w, h));
                let (an, chart) = match a.view {
                    super::views::View::Roofline => {
                        let an = a.shown().unwrap().0;
                        (an, plot::chart_area(&a, an, areas.plot.unwrap()))
                    }
                    _ => generations::chart_area(&a, areas.view.unwrap()).unwrap(),
                };
                let mut scratch = Terminal::new(TestBackend::new(w, h)).unwrap();
                let mut graph = Rect::default();
                scratch
                    .draw(|f| graph = plot::draw_chart(&a, an, f, chart).graph)
                    .unwrap();
                let ids: Vec<&str> = an
                    .compare
                    .iter()
                    .map(|c| a.catalog.hardware[c.hw].hw.id.as_str())
                    .collect();
                let short = plot::marks::short_ids(&ids);
                let mut symbols = Vec::new();
                for (i, id) in ids.iter().enumerate() {
                    let sym = plot::marks::legend_symbol(i, look == "ascii");
                    assert!(
                        s.contains(&format!("{sym} {id}"))
                            || s.contains(&format!("{sym} {}", short[i])),
                        "{at}: no {sym} beside {id}\n{s}"
                    );
                    assert!(!symbols.contains(&sym), "{at}: {sym} twice");
                    symbols.push(sym);
                    // A point on screen is labelled, but a small plot labels
                    // the selected device's point alone (the others would
                    // pile up; the legend names them), and a point drawn over
                    // by another has no label.
                    let m = plot::marks::device(i);
                    let glyph = if look == "ascii" { m.point } else { m.glyph }.to_string();
                    let on_screen = (graph.top()..graph.bottom()).any(|y| {
                        (graph.left()..graph.right()).any(|x| buf[(x, y)].symbol() == glyph)
                    });
                    let label = format!("{} decode", short[i]);
                    let selected = an.compare[i].hw == a.hw;
                    if on_screen && (!plot::crowded(graph, ids.len()) || selected) {
                        assert!(s.contains(&label), "{at}: no {label:?}\n{s}");
                    }
                    if selected {
                        assert!(
                            on_screen,
                            "{at}: the selected point {glyph} is not drawn\n{s}"
                        );
                    }
                    if look == "ascii" {
                        let c = plot::marks::device(i).ascii.to_string();
                        let drawn = (graph.top()..graph.bottom()).any(|y| {
                            (graph.left()..graph.right()).any(|x| buf[(x, y)].symbol() == c)
                        });
                        assert!(drawn, "{at}: no {c} in the chart for {id}\n{s}");
                    }
                }
            }
        }
    }
}

/// The knobs lesson on step 1 with its answer revealed, after the audience
/// asked for 8 sequences (figures marked `*`).
fn lesson_step(look: &str) -> App {
    let mut a = looking(look);
    let l = crate::lesson::Lesson::open("knobs", &a.catalog).unwrap();
    super::lesson::start(&mut a, l);
    cmd(&mut a, Command::Reveal);
    a.workload.batch = 8.0;
    a.recompute();
    a
}

/// The caption strip at the three sizes, in the three looks; the colour
/// one also maps the colours of the strip.
#[test]
fn lesson_caption_strip() {
    for look in LOOKS {
        let a = lesson_step(look);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let mut s = screen(&a, w, h);
            if look == "ascii" {
                assert!(s.is_ascii(), "{w}x{h}:\n{s}");
            }
            assert!(s.contains("step 1/7"), "{w}x{h}:\n{s}");
            assert!(s.contains("* changed from the script"), "{w}x{h}:\n{s}");
            if look == "colour" {
                let full = ratatui::layout::Rect::new(0, 0, w, h);
                let (_, strip) = super::panes::caption::split(&a, full);
                s.push_str(&colours(&a, w, h, strip.unwrap()));
            }
            insta::assert_snapshot!(format!("lesson_strip_{look}_{w}x{h}"), s);
        }
    }
}

/// The lesson picker over the workbench.
#[test]
fn lesson_picker() {
    for look in LOOKS {
        let mut a = looking(look);
        cmd(&mut a, Command::Lessons);
        cmd(&mut a, Command::Down);
        insta::assert_snapshot!(format!("lesson_picker_{look}_80x24"), screen(&a, 80, 24));
    }
}

/// A shared room's tags: a follower on a lesson (its caption's own hint
/// line), one gone its own way, and the presenter's counts, at the three
/// sizes in the three looks. The tag reads without colour: brackets.
#[test]
fn shared_room_tags() {
    use super::follow::Room;
    let rooms = [
        ("following", Room::Following("bob".into())),
        ("own", Room::OnOwn("bob".into())),
        (
            "presenting",
            Room::Presenting {
                following: 12,
                branched: 3,
            },
        ),
    ];
    for look in LOOKS {
        for (name, room) in &rooms {
            let mut a = lesson_step(look);
            a.room = Some(room.clone());
            for (w, h) in [(80, 24), (100, 30), (160, 48)] {
                let s = screen(&a, w, h);
                if look == "ascii" {
                    assert!(s.is_ascii(), "{w}x{h}:\n{s}");
                }
                let tag = super::panes::room::tag(&a).unwrap();
                assert!(s.contains(&tag), "{tag} at {w}x{h}:\n{s}");
                if *name == "following" {
                    assert!(s.contains("F follows again"), "{w}x{h}:\n{s}");
                }
                insta::assert_snapshot!(format!("room_{name}_{look}_{w}x{h}"), s);
            }
        }
    }
}

/// A made-up CPU with measured cache ceilings (test figures, internally
/// consistent: 2 TFLOP/s fp32; L1 4 TB/s > L2 2 TB/s > L3 1 TB/s > DRAM
/// 200 GB/s; ridges 0.5, 1, 2 and 10 FLOP/byte).
const CACHED_CPU: &str = r#"[[device]]
id = "test-cpu"
name = "Test CPU (measured)"
vendor = "test"
tier = "workstation"
year = 2026
source = "made up for a test"
memory = "256 GB"
memory_bandwidth = "200 GB/s"

[device.peak]
fp32 = "2 TFLOPS"

[[device.cache]]
level = "L1"
bandwidth = "4 TB/s"

[[device.cache]]
level = "L2"
bandwidth = "2 TB/s"

[[device.cache]]
level = "L3"
bandwidth = "1 TB/s"
"#;

/// The test CPU selected, the plot focused: its hierarchical roofline.
fn cached_cpu(look: &str) -> App {
    let mut cat = Catalog::builtin();
    cat.add_hardware_file("test.toml", CACHED_CPU);
    assert!(cat.diagnostics.is_empty(), "{:?}", cat.diagnostics);
    let mut a = App::new(
        cat,
        Settings {
            ascii: look == "ascii",
            no_color: look == "mono",
            ..Settings::default()
        },
    );
    a.hw = hw(&a, "test-cpu");
    a.focus = super::app::Pane::Plot;
    a.recompute();
    a
}

#[test]
fn hierarchical_roofline_of_a_cpu_with_cache_ceilings() {
    snap_looks("roofline_cache_levels", cached_cpu, super::app::Pane::Plot);
    // Every level is named on the plot at every size and look.
    for look in LOOKS {
        let a = cached_cpu(look);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let s = screen(&a, w, h);
            for level in ["L1", "L2", "L3", "DRAM"] {
                assert!(s.contains(level), "{look} {w}x{h}: no {level}\n{s}");
            }
        }
    }
}
