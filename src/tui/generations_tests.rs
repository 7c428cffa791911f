//! Issue 18, section 5: the Generations view as it is shown on a projector.
//! Its default line-up, a device that cannot run the selection, labels that
//! do not pile up, a point character per device in ASCII, and the units of
//! a model that is not a decoder.

use super::action::{Action, Command};
use super::app::{App, Settings};
use super::knobs::Family;
use super::panes::{comparison, generations, plot};
use super::render;
use super::update::update;
use super::views::ViewData;
use crate::catalog::Catalog;
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

fn cmd(app: &mut App, c: Command) {
    update(app, Action::Do(c));
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(app, f)).unwrap();
    t.backend().to_string()
}

fn hw(a: &App, id: &str) -> usize {
    a.catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == id)
        .unwrap()
}

fn gen_data(a: &App) -> &super::views::GenData {
    match &a.view_data {
        Ok(ViewData::Generations(g)) => g,
        other => panic!("no Generations figures: {:?}", other.as_ref().err()),
    }
}

#[test]
fn generations_opens_on_a100_h100_h200_b200_over_the_a100() {
    let mut a = app(false);
    assert_eq!(a.view_inputs.family, Family::Flagship);
    cmd(&mut a, Command::View5);
    let g = gen_data(&a);
    let ids: Vec<&str> = g
        .analysis
        .compare
        .iter()
        .map(|c| a.catalog.hardware[c.hw].hw.id.as_str())
        .collect();
    assert_eq!(ids, ["a100-sxm-80gb", "h100-sxm", "h200-sxm", "b200"]);
    // The speedups are over the A100, the first row.
    assert_eq!(g.analysis.baseline, Some(0));
    // `f` goes on to the catalog's families and comes back round to it.
    cmd(&mut a, Command::NextFamily);
    assert!(matches!(a.view_inputs.family, Family::Named(_)));
    for _ in 0..a.choices.families.len() + 1 {
        cmd(&mut a, Command::NextFamily);
    }
    assert_eq!(a.view_inputs.family, Family::Flagship);
    // A scenario that names its own family keeps it (the A100 -> H100 ->
    // H200 scenario marks its devices: the marked family).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios/a100-h100-h200.toml");
    let mut b = app(false);
    b.open_scenario(&path).unwrap();
    assert_eq!(b.view_inputs.family, Family::Marked);
    // The default written to a scenario reads back as itself, through the
    // scenario's checks (the name is not a catalog family).
    let text = a.to_scenario().to_toml();
    assert!(
        text.contains(&format!(
            "family = \"{}\"",
            crate::scenario::FLAGSHIP_FAMILY
        )),
        "{text}"
    );
    let read = crate::scenario::Scenario::parse_with("x.toml", &text, &a.catalog)
        .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut c = app(false);
    c.view_inputs.family = Family::Marked;
    c.apply_scenario(&read).unwrap();
    assert_eq!(c.view_inputs.family, Family::Flagship);
}

/// A100 80GB, L4 (its catalog entry gives no link between devices) and
/// H100 marked, TP 2, the H100 selected.
fn with_a_device_without_link() -> App {
    let mut a = app(false);
    for id in ["a100-sxm-80gb", "l4", "h100-sxm"] {
        a.hw = hw(&a, id);
        cmd(&mut a, Command::Mark);
    }
    a.hw = hw(&a, "h100-sxm");
    a.workload.tp = 2;
    a.view_inputs.family = Family::Marked;
    cmd(&mut a, Command::View5);
    a.recompute();
    a
}

#[test]
fn a_device_that_cannot_run_says_so_and_the_family_still_computes() {
    let a = with_a_device_without_link();
    let g = gen_data(&a);
    let l4 = hw(&a, "l4");
    let rows = &g.analysis.compare;
    assert_eq!(rows.len(), 3);
    for (i, c) in rows.iter().enumerate() {
        let r = comparison::row_text(&a, &g.analysis, i);
        if c.hw == l4 {
            assert!(c.result.is_err(), "the l4 has no link, TP 2 cannot run");
            assert_eq!(r.fit, "cannot run: no link");
            assert_eq!(r.latency, "-");
        } else {
            // The A100 and the H100 hold Llama 3.1 8B at TP 2 and run.
            assert!(c.fits(), "{} does not fit", r.device);
            assert_ne!(r.latency, "-");
        }
    }
    for (w, h) in [(80, 24), (100, 30), (160, 48)] {
        let s = screen(&a, w, h);
        assert!(s.contains("cannot run: no link"), "{w}x{h}\n{s}");
        assert!(!s.contains("LAST VALID"), "{w}x{h}\n{s}");
    }
}

#[test]
fn the_reason_a_device_cannot_run_is_shortened_whole() {
    assert_eq!(
        comparison::cannot_run(
            "l4 has no link between devices, so tensor parallelism cannot be modelled: set it to 1"
        ),
        "cannot run: no link"
    );
    // Another reason: its first clause.
    assert_eq!(
        comparison::cannot_run("batch must be at least 1, got 0"),
        "cannot run: batch must be at least 1"
    );
}

/// The default Generations view (four devices) drawn at `w`x`h`: the
/// chart's labels and the screen.
fn drawn(ascii: bool, w: u16, h: u16) -> (App, plot::Drawn, String) {
    let mut a = app(ascii);
    cmd(&mut a, Command::View5);
    let areas = super::ui::layout(&a, Rect::new(0, 0, w, h));
    let (an, chart) = generations::chart_area(&a, areas.view.unwrap()).unwrap();
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut d = plot::Drawn::default();
    t.draw(|f| d = plot::draw_chart(&a, an, f, chart)).unwrap();
    let s = screen(&a, w, h);
    (a, d, s)
}

#[test]
fn labels_do_not_pile_up_on_a_small_plot() {
    for ascii in [false, true] {
        for (w, h) in [(80, 24), (100, 30)] {
            let (a, d, s) = drawn(ascii, w, h);
            let at = format!("ascii {ascii} at {w}x{h}");
            // Four devices on a graph under 16 rows: one point label, the
            // selected device's (h100-sxm, the workbench's first device).
            assert!(d.graph.height < 16, "{at}: {:?}", d.graph);
            let points: Vec<&str> = d
                .labels
                .iter()
                .map(|l| l.text.as_str())
                .filter(|t| t.ends_with(" decode"))
                .collect();
            assert_eq!(points, ["h100 decode"], "{at}\n{s}");
            // No roof label lists several devices.
            let roofs = d.labels.iter().filter(|l| !l.text.starts_with("FLOP/"));
            assert!(!roofs.clone().any(|l| l.text.contains('/')), "{at}\n{s}");
            // No two labels touch: on one row a blank cell at least apart.
            for (i, p) in d.labels.iter().enumerate() {
                for q in &d.labels[i + 1..] {
                    if p.y == q.y {
                        let apart = p.x + p.width() < q.x || q.x + q.width() < p.x;
                        assert!(apart, "{at}: {p:?} touches {q:?}\n{s}");
                    }
                }
            }
            // Each device's marks beside its id in the table say which is
            // which.
            let an = &gen_data(&a).analysis;
            for (i, c) in an.compare.iter().enumerate() {
                let id = &a.catalog.hardware[c.hw].hw.id;
                let sym = plot::marks::legend_symbol(i, ascii);
                assert!(s.contains(&format!("{sym} {id}")), "{at}: {sym} {id}\n{s}");
            }
        }
    }
}

#[test]
fn in_ascii_each_device_has_its_own_point_character() {
    let (a, d, s) = drawn(true, 160, 48);
    let an = &gen_data(&a).analysis;
    assert!(s.is_ascii());
    let chart: Vec<String> = s
        .lines()
        .skip(d.graph.y as usize)
        .take(d.graph.height as usize)
        .map(|l| {
            l.chars()
                .skip(d.graph.x as usize)
                .take(d.graph.width as usize)
                .collect()
        })
        .collect();
    let chart = chart.join("\n");
    // The old shared '@' is gone; each point drawn is its device's digit,
    // and the legend in the table pairs the digit with the id ("+++2
    // h100-sxm").
    assert!(!chart.contains('@'), "{chart}");
    let mut seen = Vec::new();
    for (i, c) in an.compare.iter().enumerate() {
        let p = plot::marks::device(i).point;
        assert!(!seen.contains(&p), "{p} twice");
        seen.push(p);
        let id = &a.catalog.hardware[c.hw].hw.id;
        assert!(
            s.contains(&format!(
                "{}{p} {id}",
                plot::marks::device(i).ascii.to_string().repeat(3)
            )),
            "{id}\n{s}"
        );
    }
    // The selected device's point is on the chart.
    let sel = an.compare.iter().position(|c| c.hw == a.hw).unwrap();
    assert!(chart.contains(plot::marks::device(sel).point), "{chart}");
}

#[test]
fn a_cnn_costs_per_million_images_and_has_no_kv_column() {
    let mut a = app(false);
    a.model = a
        .catalog
        .models
        .iter()
        .position(|m| m.model.id == "resnet-50")
        .unwrap();
    a.recompute();
    cmd(&mut a, Command::View5);
    gen_data(&a);
    for (w, h) in [(80, 24), (100, 30), (160, 48)] {
        let s = screen(&a, w, h);
        // The comparison table's head: its columns.
        let head = s
            .lines()
            .find(|l| l.contains("speedup") && l.contains("binding"))
            .unwrap_or_else(|| panic!("{w}x{h}: no table head\n{s}"));
        assert!(head.contains("images/s"), "{w}x{h}: {head}");
        assert!(head.contains("$/M images"), "{w}x{h}: {head}");
        assert!(!head.contains("tok"), "{w}x{h}: {head}");
        assert!(!head.contains("KV"), "{w}x{h}: {head}");
    }
}

/// Six devices marked (the selected H100 among them) on the Roofline.
fn six_marked() -> App {
    let mut a = app(false);
    for id in [
        "a100-sxm-80gb",
        "h100-sxm",
        "h200-sxm",
        "b200",
        "mi300x",
        "tpu-v5p",
    ] {
        a.hw = hw(&a, id);
        cmd(&mut a, Command::Mark);
    }
    a.hw = hw(&a, "h100-sxm");
    a.recompute();
    a
}

#[test]
fn the_compare_pane_shows_every_marked_device_or_says_how_to_see_them() {
    let mut a = six_marked();
    let ids = [
        "a100-sxm-80gb",
        "h100-sxm",
        "h200-sxm",
        "b200",
        "mi300x",
        "tpu-v5p",
    ];
    // 80x24 shows one pane at a time: focused, the Compare pane has room
    // for all six rows (a header and six rows in 18 lines).
    while a.focus != super::app::Pane::Compare {
        cmd(&mut a, Command::NextPane);
    }
    let s = screen(&a, 80, 24);
    for id in ids {
        assert!(s.contains(&format!(" {id} ")), "{id}\n{s}");
    }
    // 100x30: the pane under the plot has room for one row of six, not
    // focused; it says which rows it shows and the key that reaches it.
    a.focus = super::app::Pane::Hardware;
    let s = screen(&a, 100, 30);
    let tab = a.keymap.first_key(Command::NextPane);
    let up = a.keymap.first_key(Command::Up);
    let line = s
        .lines()
        .find(|l| l.contains(" of 6 devices: "))
        .unwrap_or_else(|| panic!("no line naming the rows shown\n{s}"));
    assert!(line.contains(&format!("{tab} here, then {up}/")), "{line}");
    // Focused, it says how to scroll.
    while a.focus != super::app::Pane::Compare {
        cmd(&mut a, Command::NextPane);
    }
    let s = screen(&a, 100, 30);
    let line = s.lines().find(|l| l.contains(" of 6 devices: ")).unwrap();
    assert!(!line.contains(" here, then "), "{line}");
    assert!(line.contains(&format!(": {up}/")), "{line}");
}

#[test]
fn a_catalog_without_one_of_the_four_opens_on_the_devices_family() {
    let mut c = Catalog::builtin();
    c.hardware.retain(|e| e.hw.id != "b200");
    let a = App::new(c, Settings::default());
    // The workbench opens on the H100, of the NVIDIA datacenter family.
    assert_eq!(a.catalog.hardware[a.hw].hw.id, "h100-sxm");
    assert_eq!(
        a.view_inputs.family,
        Family::Named("nvidia-datacenter".into())
    );
    // A scenario on another family's device that names no family opens on
    // that device's family, not on the four.
    let b = app(false);
    let mi = hw(&b, "mi300x");
    assert_eq!(
        super::app::default_family(&b.catalog, mi, &b.choices.families),
        Family::Named("amd-instinct".into())
    );
    let h200 = hw(&b, "h200-sxm");
    assert_eq!(
        super::app::default_family(&b.catalog, h200, &b.choices.families),
        Family::Flagship
    );
}

#[test]
fn a_family_none_of_which_can_run_it_says_so_whole() {
    let mut a = app(false);
    a.workload.tp = 2;
    a.view_inputs.family = Family::Named("nvidia-inference".into());
    cmd(&mut a, Command::View5);
    a.recompute();
    // The T4, A10, L4 and L40S: the catalog gives none a link between
    // devices, so TP 2 runs on none of them.
    let e = a.view_data.as_ref().expect_err("an error").clone();
    assert!(
        e.starts_with("no device of nvidia-inference can run this (4 devices): t4 has no link"),
        "{e}"
    );
    assert!(e.ends_with("press f for another family"), "{e}");
    let s = screen(&a, 80, 24);
    assert!(s.contains("another family"), "{s}");
}
