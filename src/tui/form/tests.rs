//! The forms: each field's reading and messages, the draft the workbench
//! evaluates, cancel, save (add, replace, refusal), regions, and snapshots
//! of the device form.

use super::draft::civil;
use super::fields::Context;
use super::*;
use crate::solver::Tier;
use crate::tui::action::{Action, Command};
use crate::tui::app::Settings;
use crate::tui::update::update;
use ratatui_textarea::{Input, Key};

fn read(what: What, text: &str) -> Result<Value, String> {
    what.parse(text, Context::default())
}

fn err(what: What, text: &str) -> String {
    read(what, text).expect_err(text)
}

const BW: What = What::Bandwidth;
const BF16: What = What::Peak(Precision::Bf16);

#[test]
fn quantities_read_with_the_solvers_units() {
    assert_eq!(read(BF16, "989 TFLOPS"), Ok(Value::Number(989e12)));
    // An integer OP counts as one FLOP: 1979 TOPS = 1979e12.
    assert_eq!(
        read(What::Peak(Precision::Int8), "1979 TOPS"),
        Ok(Value::Number(1979e12))
    );
    assert_eq!(read(BW, " 3.35 TB/s "), Ok(Value::Number(3.35e12)));
    // Bits: 400 Gb/s = 400e9 / 8 = 50e9 B/s.
    assert_eq!(read(What::ScaleUp, "400 Gb/s"), Ok(Value::Number(50e9)));
    assert_eq!(
        read(What::Memory, "80 GiB"),
        Ok(Value::Number(80.0 * 1_073_741_824.0))
    );
    assert_eq!(read(What::Tdp, "700 W"), Ok(Value::Number(700.0)));
}

#[test]
fn each_mistake_says_what_is_wrong_and_how_to_fix_it() {
    let cases: &[(What, &str, &str)] = &[
        (BF16, "0", "zero: leave it blank for none"),
        (BW, "0 TB/s", "zero: must be from 1 kB/s to 1 EB/s"),
        (BW, "-3 TB/s", "negative: must be from 1 kB/s"),
        (BW, "NaN", "not a number: e.g. 3.35 TB/s"),
        (BW, "nan TB/s", "not a number"),
        (BW, "1e999 TB/s", "out of range: 1 kB/s to 1 EB/s"),
        (BW, "3.35", "needs a unit: e.g. 3.35 TB/s"),
        (
            BW,
            "3.35 TB",
            "that is a size, not a bandwidth: e.g. 3.35 TB/s",
        ),
        (
            What::Memory,
            "80 GB/s",
            "that is a bandwidth, not a size: e.g. 80 GB",
        ),
        (BF16, "989 TB/s", "that is a bandwidth, not a FLOP rate"),
        (BF16, "989 T", "unknown unit \"T\": e.g. 989 TFLOPS"),
        // 1e22 FLOP/s is past the catalog's 1000 EFLOPS.
        (
            BF16,
            "10000 EFLOPS",
            "out of range: 1 kFLOPS to 1000 EFLOPS",
        ),
        (BW, "", "required, e.g. 3.35 TB/s"),
        (What::Name, "   ", "required"),
        (What::Name, "!!!", "needs an ASCII letter or digit"),
        (What::Name, "昇腾", "needs an ASCII letter or digit"),
        (What::Name, "a\u{1b}[31m", "control character U+001B"),
        (
            What::Tier,
            "cluod",
            "one of cloud, workstation, edge, mobile, tiny",
        ),
        (What::PerNode, "0", "at least 1"),
        (What::PerNode, "8.5", "a whole number"),
        (What::Price, "free", "not a number: e.g. 2.99"),
        (What::Price, "2.99 EUR", "a plain number, no unit"),
        (What::Price, "0", "zero: leave it blank for none"),
        (What::Pue, "0.9", "out of range: 1 to 10"),
        (What::Grid, "-5", "negative"),
        (What::Electricity, "inf", "out of range"),
    ];
    for (what, text, want) in cases {
        let got = err(*what, text);
        assert!(
            got.contains(want),
            "{what:?} {text:?}: {got:?}, want {want:?}"
        );
    }
}

#[test]
fn blanks_mean_not_supported_or_none_where_a_field_is_optional() {
    for w in [BF16, What::ScaleUp, What::PerNode, What::Tdp, What::Price] {
        assert_eq!(read(w, "  "), Ok(Value::Blank), "{w:?}");
    }
    assert_eq!(BF16.show(&Value::Blank), "not supported");
    assert!(read(What::Memory, "").is_err());
    assert!(read(What::Grid, "").is_err());
}

#[test]
fn prices_and_region_figures_take_their_usual_spellings() {
    for t in ["2.99", "$2.99", "2.99 $/h", "$2.99/hour", "2.99 USD/h"] {
        assert_eq!(read(What::Price, t), Ok(Value::Number(2.99)), "{t}");
    }
    for t in ["380", "380 gCO2/kWh", "380 g/kWh"] {
        assert_eq!(read(What::Grid, t), Ok(Value::Number(380.0)), "{t}");
    }
    // Zero is a valid grid intensity and price (the catalog's ranges start at 0).
    assert_eq!(read(What::Grid, "0"), Ok(Value::Number(0.0)));
    assert_eq!(
        read(What::Electricity, "$0.09/kWh"),
        Ok(Value::Number(0.09))
    );
    assert_eq!(read(What::Pue, "1.2"), Ok(Value::Number(1.2)));
    assert_eq!(read(What::Tier, "Edge"), Ok(Value::Tier(Tier::Edge)));
}

#[test]
fn a_torus_keeps_its_device_count() {
    // 16 x 16 x 24 = 6144 devices.
    let cx = Context {
        torus: Some([16, 16, 24]),
    };
    assert_eq!(What::PerNode.parse("6144", cx), Ok(Value::Whole(6144)));
    let e = What::PerNode.parse("8", cx).unwrap_err();
    assert_eq!(e, "its 16x16x24 torus holds 6144: keep 6144");
}

#[test]
fn ids_are_made_from_names() {
    assert_eq!(kebab("NVIDIA H100 (mine)"), "nvidia-h100-mine");
    assert_eq!(kebab("  My GPU 48GB  "), "my-gpu-48gb");
    assert_eq!(kebab("v2.1 --- test"), "v2.1-test");
    assert_eq!(kebab("!!!"), "");
    assert_eq!(kebab(&"x".repeat(60)).len(), 40);
}

#[test]
fn the_calendar_is_right_at_its_edges() {
    // Day 0 is 1970-01-01; day 19_782 is 2024-02-29 (54 years of 365 days
    // plus 13 leap days to 2024-01-01 = 19_723, then 59 days).
    assert_eq!(civil(0), (1970, 1));
    assert_eq!(civil(19_782), (2024, 2));
    assert_eq!(civil(19_783), (2024, 3));
    // 2000-12-31 is day 11_322 (30 years and 7 leap days to 2000-01-01 =
    // 10_957, then 365 days of a leap year less one).
    assert_eq!(civil(11_322), (2000, 12));
}

// ---- the form in the app ----

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-form-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn app_in(dir: Option<&Path>) -> App {
    let mut a = App::new(Catalog::load(dir), Settings::default());
    a.catalog_dir = dir.map(Path::to_path_buf);
    a
}

fn cmd(a: &mut App, c: Command) {
    update(a, Action::Do(c));
}

fn typed(a: &mut App, s: &str) {
    for c in s.chars() {
        update(
            a,
            Action::Input(Input {
                key: Key::Char(c),
                ..Input::default()
            }),
        );
    }
}

/// Move the form to a field and type over its text.
fn set(a: &mut App, what: What, text: &str) {
    let f = a.form.as_ref().expect("a form");
    let i = f.fields.iter().position(|x| x.what == what).unwrap();
    let n = f.fields.len();
    let steps = (i + n - f.focus) % n;
    for _ in 0..steps {
        cmd(a, Command::Down);
    }
    if text.is_empty() {
        update(
            a,
            Action::Input(Input {
                key: Key::Backspace,
                ..Input::default()
            }),
        );
    } else {
        typed(a, text);
    }
}

fn select(a: &mut App, id: &str) {
    a.hw = crate::tui::snapshot_tests::hw(a, id);
    a.recompute();
}

fn memory_s(a: &App) -> f64 {
    a.current.as_ref().unwrap().eval().memory_s
}

#[test]
fn the_workbench_evaluates_the_device_being_typed() {
    let mut a = app_in(None);
    select(&mut a, "h100-sxm");
    let before = memory_s(&a);
    let n = a.catalog.hardware.len();
    cmd(&mut a, Command::EditCopy);
    assert_eq!(a.mode, Mode::Form);
    let f = a.form.as_ref().unwrap();
    assert_eq!(f.purpose, Purpose::Copy("h100-sxm".into()));
    assert_eq!(f.id, "h100-sxm-custom");
    // Prefilled: the copy evaluates as the original does.
    assert_eq!(a.catalog.hardware[a.hw].hw.id, "h100-sxm-custom");
    assert_eq!(memory_s(&a), before);
    // Twice the bandwidth (6.7 TB/s = 2 x 3.35 TB/s): the memory time of
    // the step, bytes / (bandwidth x efficiency), halves.
    set(&mut a, What::Bandwidth, "6.7 TB/s");
    assert!((memory_s(&a) * 2.0 / before - 1.0).abs() < 1e-12);
    // While the text is wrong the last valid value stands.
    typed(&mut a, "x");
    let f = a.form.as_ref().unwrap();
    assert!(f.fields[f.focus].check.is_err());
    assert!((memory_s(&a) * 2.0 / before - 1.0).abs() < 1e-12);
    // Esc: nothing changed, nothing written.
    cmd(&mut a, Command::Cancel);
    assert_eq!(a.mode, Mode::Normal);
    assert!(a.form.is_none());
    assert_eq!(a.catalog.hardware.len(), n);
    assert_eq!(a.catalog.hardware[a.hw].hw.id, "h100-sxm");
    assert_eq!(memory_s(&a), before);
}

#[test]
fn a_blank_device_is_saved_only_when_every_field_reads() {
    let d = temp("blank");
    let mut a = app_in(Some(&d));
    cmd(&mut a, Command::NewEntry);
    assert_eq!(a.form.as_ref().unwrap().purpose, Purpose::New);
    set(&mut a, What::Name, "My GPU 48GB");
    assert_eq!(a.form.as_ref().unwrap().id, "my-gpu-48gb");
    // No peak yet, no bandwidth: Ctrl-S refuses and says why.
    cmd(&mut a, Command::Save);
    assert_eq!(a.mode, Mode::Form);
    let (_, msg) = a.message.clone().unwrap();
    assert!(msg.starts_with("not saved: bandwidth: required"), "{msg}");
    assert!(!write::hardware_file(&d).exists());
    set(&mut a, What::Bandwidth, "1 TB/s");
    set(&mut a, What::Memory, "48 GB");
    cmd(&mut a, Command::Save);
    let (_, msg) = a.message.clone().unwrap();
    assert!(msg.contains("give at least one peak FLOP/s"), "{msg}");
    let f = a.form.as_ref().unwrap();
    assert_eq!(
        f.fields[f.focus].what, BF16,
        "the cursor goes to the problem"
    );
    typed(&mut a, "300 TFLOPS");
    set(&mut a, What::Tier, "edge");
    set(&mut a, What::Price, "1.5");
    // Enter on the last field saves.
    cmd(&mut a, Command::Edit);
    assert_eq!(a.mode, Mode::Normal, "{:?}", a.message);
    let e = &a.catalog.hardware[a.hw];
    assert_eq!(e.hw.id, "my-gpu-48gb");
    assert!(is_user(&e.origin, Some(&d)));
    assert_eq!(
        (e.hw.memory_bandwidth, e.hw.memory_bytes, e.hw.peaks.bf16),
        (1e12, 48e9, Some(300e12))
    );
    assert_eq!(e.hw.tier, Tier::Edge);
    assert_eq!(e.price.as_ref().unwrap().per_hour_usd, Some(1.5));
    let text = std::fs::read_to_string(write::hardware_file(&d)).unwrap();
    assert!(text.contains("id = \"my-gpu-48gb\""), "{text}");
    assert!(text.contains("source = \"user entry"), "{text}");
    // The picker lists it, marked as the user's own.
    assert!(a.hw_visible.contains(&a.hw));
    let s = screen(&a, 160, 48);
    assert!(s.contains("my-gpu-48gb *"), "{s}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn editing_a_user_entry_replaces_it_and_keeps_the_rest_of_the_file() {
    let d = temp("replace");
    let file = write::hardware_file(&d);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let other = "# mine\n[[device]]\nid = \"other\"\nname = \"Other\"\nvendor = \"me\"\ntier = \"edge\"\nyear = 2024\nsource = \"bench\"\nmemory = \"8 GB\"\nmemory_bandwidth = \"100 GB/s\"\n[device.peak]\nfp16 = \"10 TFLOPS\"\n";
    std::fs::write(&file, other).unwrap();
    let mut a = app_in(Some(&d));
    select(&mut a, "l4");
    cmd(&mut a, Command::EditCopy);
    set(&mut a, What::Memory, "32 GB");
    cmd(&mut a, Command::Save);
    let id = a.catalog.hardware[a.hw].hw.id.clone();
    assert_eq!(id, "l4-custom");
    // A copy's figures that did not change keep the original's sources.
    let e = a.catalog.hardware[a.hw].clone();
    let l4 = a.catalog.hardware("l4").unwrap().clone();
    assert_eq!(
        e.source_of("memory_bandwidth"),
        l4.source_of("memory_bandwidth")
    );
    assert!(e.source_of("memory").starts_with("user entry"));
    // Now it is the user's: e edits it in place.
    cmd(&mut a, Command::EditCopy);
    assert_eq!(a.form.as_ref().unwrap().purpose, Purpose::Replace);
    set(&mut a, What::Memory, "40 GB");
    cmd(&mut a, Command::Save);
    assert_eq!(a.catalog.hardware[a.hw].hw.id, "l4-custom");
    assert_eq!(a.catalog.hardware[a.hw].hw.memory_bytes, 40e9);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(other), "{text}");
    assert_eq!(text.matches("id = \"l4-custom\"").count(), 1, "{text}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_broken_user_file_is_not_written_and_the_form_stays_open() {
    let d = temp("broken");
    let file = write::hardware_file(&d);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let broken = "[[device]]\nid = \"half\n";
    std::fs::write(&file, broken).unwrap();
    let mut a = app_in(Some(&d));
    select(&mut a, "l4");
    cmd(&mut a, Command::EditCopy);
    cmd(&mut a, Command::Save);
    assert_eq!(a.mode, Mode::Form);
    let (level, msg) = a.message.clone().unwrap();
    assert_eq!(level, Level::Error);
    assert!(
        msg.contains("not valid TOML") && msg.contains("left as it was"),
        "{msg}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn without_a_config_directory_a_form_can_be_tried_but_not_saved() {
    let mut a = app_in(None);
    cmd(&mut a, Command::EditCopy);
    cmd(&mut a, Command::Save);
    assert_eq!(a.mode, Mode::Form);
    let (_, msg) = a.message.clone().unwrap();
    assert!(msg.contains("no user catalog directory"), "{msg}");
}

#[test]
fn the_keys_open_forms_only_where_they_mean_something() {
    let mut a = app_in(None);
    a.focus = Pane::Plot;
    cmd(&mut a, Command::NewEntry);
    assert!(a.form.is_none());
    let (_, msg) = a.message.clone().unwrap();
    assert!(msg.contains("Hardware list"), "{msg}");
}

#[test]
fn a_region_is_added_from_a_region_knob_and_selected() {
    let d = temp("region");
    let mut a = app_in(Some(&d));
    cmd(&mut a, Command::View2);
    a.focus = Pane::Knobs;
    a.knob = a.knobs().iter().position(|k| *k == Knob::Region).unwrap();
    cmd(&mut a, Command::NewEntry);
    assert!(!a.form.as_ref().unwrap().is_device());
    set(&mut a, What::Name, "Basement DC");
    set(&mut a, What::Grid, "20");
    set(&mut a, What::Pue, "1.5");
    set(&mut a, What::Electricity, "0.2");
    // The view already uses it.
    assert_eq!(a.view_inputs.region, "basement-dc");
    cmd(&mut a, Command::Save);
    assert_eq!(a.mode, Mode::Normal, "{:?}", a.message);
    assert_eq!(a.view_inputs.region, "basement-dc");
    let r = a.catalog.region("basement-dc").unwrap();
    assert_eq!(
        (r.grid_gco2_per_kwh, r.pue, r.electricity_usd_per_kwh),
        (20.0, 1.5, 0.2)
    );
    assert!(a.choices.regions.contains(&"basement-dc".to_string()));
    let text = std::fs::read_to_string(write::regions_file(&d)).unwrap();
    assert!(
        text.starts_with("[[region]]\nid = \"basement-dc\""),
        "{text}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn in_a_form_tab_and_the_arrows_move_and_ctrl_s_saves() {
    use crate::tui::keymap::{Keymap, Keys, action_for};
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let km = Keymap::default();
    let ev = |c, m| KeyEvent::new(c, m);
    let none = KeyModifiers::NONE;
    let act = |e: KeyEvent| action_for(&km, Keys::Form, &e);
    assert_eq!(act(ev(KeyCode::Tab, none)), Some(Command::Down.into()));
    assert_eq!(
        act(ev(KeyCode::BackTab, KeyModifiers::SHIFT)),
        Some(Command::Up.into())
    );
    assert_eq!(act(ev(KeyCode::Up, none)), Some(Command::Up.into()));
    assert_eq!(
        act(ev(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        Some(Command::Save.into())
    );
    assert_eq!(act(ev(KeyCode::Esc, none)), Some(Command::Cancel.into()));
    assert_eq!(act(ev(KeyCode::Enter, none)), Some(Command::Edit.into()));
    // Letters are text, q included.
    assert!(matches!(
        act(ev(KeyCode::Char('q'), none)),
        Some(Action::Input(_))
    ));
}

// ---- snapshots ----

fn screen(a: &App, w: u16, h: u16) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| crate::tui::render(a, f)).unwrap();
    t.backend().to_string()
}

/// A copy of the H100 with its bandwidth mistyped ("3.35 TB", a size), as
/// it looks without colour or without Unicode.
fn mistyped(look: &str) -> App {
    let mut a = App::new(
        Catalog::builtin(),
        Settings {
            ascii: look == "ascii",
            no_color: look == "mono",
            ..Settings::default()
        },
    );
    // Where it would be saved (nothing is).
    a.catalog_dir = Some("/config/ridgeline/catalog".into());
    select(&mut a, "h100-sxm");
    cmd(&mut a, Command::EditCopy);
    set(&mut a, What::Bandwidth, "3.35 TB");
    a
}

#[test]
fn the_device_form_reads_without_colour_and_in_ascii() {
    for look in ["mono", "ascii"] {
        let a = mistyped(look);
        for (w, h) in [(80, 24), (100, 30), (160, 48)] {
            let s = screen(&a, w, h);
            insta::assert_snapshot!(format!("device_form_{look}_{w}x{h}"), s);
            // The error is in words, with a mark, on the field's row.
            let row = s
                .lines()
                .find(|l| l.contains("bandwidth    3.35 TB"))
                .unwrap();
            let mark = if look == "ascii" {
                "x that is a size"
            } else {
                "✗ that is a size"
            };
            assert!(row.contains(mark), "{look} {w}x{h}: {row}");
            if look == "ascii" {
                assert!(s.is_ascii(), "{s}");
            } else {
                let mut t =
                    ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
                t.draw(|f| crate::tui::render(&a, f)).unwrap();
                let reset = ratatui::style::Color::Reset;
                let cells = &t.backend().buffer().content;
                assert!(
                    cells.iter().all(|c| c.fg == reset && c.bg == reset),
                    "a colour under NO_COLOR at {w}x{h}"
                );
            }
        }
    }
}

#[test]
fn a_copy_with_another_fp16_peak_drops_the_fp16_accumulate_rate_and_reloads() {
    // The RTX 4090 lists fp16 165.2 TFLOPS and 330.3 with FP16
    // accumulate. A copy given fp16 400 TFLOPS keeps no 330.3 (below the
    // new fp16, which the catalog refuses), so what is saved loads again;
    // a copy that keeps fp16 keeps the rate.
    let d = temp("acc16");
    let mut a = app_in(Some(&d));
    select(&mut a, "rtx-4090");
    cmd(&mut a, Command::EditCopy);
    assert_eq!(a.catalog.hardware[a.hw].hw.peaks.fp16_acc16, Some(330.3e12));
    set(&mut a, What::Peak(Precision::Fp16), "400 TFLOPS");
    assert_eq!(a.catalog.hardware[a.hw].hw.peaks.fp16_acc16, None);
    cmd(&mut a, Command::Save);
    assert_eq!(a.mode, Mode::Normal, "{:?}", a.message);
    let again = Catalog::load(Some(&d));
    assert!(again.diagnostics.is_empty(), "{:?}", again.diagnostics);
    let e = again.hardware("rtx-4090-custom").unwrap();
    assert_eq!(e.hw.peaks.fp16, Some(400e12));
    assert_eq!(e.hw.peaks.fp16_acc16, None);
    // Its memory type comes with the copy: the same device class.
    assert_eq!(e.memory_type.as_deref(), Some("GDDR6X"));
    std::fs::remove_dir_all(&d).ok();
}
