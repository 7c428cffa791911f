//! A model from a config.json in the workbench: `i` opens a path entry,
//! Enter imports the model, lists it under `imported` in the model picker,
//! selects it and puts its checkpoint precision on the weights knob; a
//! path that cannot be read keeps the entry open with the reason. A
//! scenario may name its model by path, relative to the scenario file.

mod common;

use common::{app, go, key, model, screen, typed};
use ratatui_textarea::Key;
use ridgeline::solver::Precision;
use ridgeline::tui::{Command, Mode, Pane};

const AWQ: &str = "tests/fixtures/hf/qwen2.5-7b-instruct-awq";

#[test]
fn the_path_entry_imports_and_selects_the_model() {
    let mut a = app();
    let models = a.catalog.models.len();
    go(&mut a, &[Command::ImportModel]);
    assert_eq!(a.mode, Mode::Import);
    typed(&mut a, AWQ);
    for (w, h) in [(80, 24), (160, 48)] {
        let s = screen(&a, w, h);
        assert!(s.contains("import a model"), "{w}x{h}:\n{s}");
        assert!(s.contains("qwen2.5-7b-instruct-awq"), "{w}x{h}:\n{s}");
        assert!(s.contains("Enter import"), "{w}x{h}:\n{s}");
    }
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.catalog.models.len(), models + 1);
    let i = model(&a, "qwen2.5-7b-instruct-awq");
    assert_eq!(a.model, i);
    assert_eq!(a.focus, Pane::Models);
    assert_eq!(a.catalog.models[i].family, "imported");
    // quantization_config awq, 4 bits: the weights knob reads int4.
    assert_eq!(a.workload.weights, Precision::Int4);
    let msg = &a.message.as_ref().unwrap().1;
    assert!(msg.contains("imported `qwen2.5-7b-instruct-awq`"), "{msg}");
    assert!(msg.contains("int4 weights"), "{msg}");
    // Listed last, under an `imported` header, selected; figures computed.
    assert_eq!(*a.model_order.last().unwrap(), i);
    assert!(a.current.is_ok(), "{:?}", a.current);
    for (w, h) in [(80, 24), (160, 48)] {
        let s = screen(&a, w, h);
        assert!(s.contains("imported"), "{w}x{h}:\n{s}");
        assert!(s.contains("▶ qwen2.5-7b-instruct-awq"), "{w}x{h}:\n{s}");
    }
}

#[test]
fn a_config_that_cannot_be_read_keeps_the_entry_open() {
    let mut a = app();
    let models = a.catalog.models.len();
    go(&mut a, &[Command::ImportModel]);
    typed(&mut a, "tests/fixtures/hf/broken");
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Import);
    assert_eq!(a.catalog.models.len(), models);
    let msg = &a.message.as_ref().unwrap().1;
    assert!(msg.contains("`num_hidden_layers`"), "{msg}");
    let s = screen(&a, 80, 24);
    assert!(s.contains("not imported"), "{s}");
    // Fix the path: the entry takes it.
    for _ in 0.."broken".len() {
        key(&mut a, Key::Backspace);
    }
    typed(&mut a, "gpt2");
    go(&mut a, &[Command::Edit]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.model, model(&a, "gpt2-imported"));
    // Esc closes an entry and imports nothing.
    go(&mut a, &[Command::ImportModel]);
    typed(&mut a, AWQ);
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.catalog.models.len(), models + 1);
}

#[test]
fn a_scenario_names_its_model_by_path() {
    let dir =
        std::env::temp_dir().join(format!("ridgeline-import-scenario-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let here = std::env::current_dir().unwrap();
    let file = dir.join("s.toml");
    // An absolute path, and one relative to the scenario's own folder
    // (named after its folder: the config has no _name_or_path).
    let rel = dir.join("m");
    std::fs::create_dir_all(&rel).unwrap();
    std::fs::copy(
        here.join("tests/fixtures/hf/qwen3-8b/config.json"),
        rel.join("config.json"),
    )
    .unwrap();
    for (m, id) in [
        (
            here.join(AWQ).display().to_string(),
            "qwen2.5-7b-instruct-awq",
        ),
        ("./m".to_string(), "m"),
    ] {
        let text = format!("model = {m:?}\nhardware = \"h100\"\n[workload]\nbatch = 4\n");
        std::fs::write(&file, text).unwrap();
        let mut a = app();
        a.open_scenario(&file).unwrap();
        assert_eq!(a.model, model(&a, id));
        assert_eq!(a.workload.batch, 4.0);
        // Saved again, the scenario names the config, not a session's id.
        let saved = a.to_scenario().model.unwrap();
        assert!(saved.ends_with("config.json"), "{saved}");
        assert!(std::path::Path::new(&saved).is_absolute(), "{saved}");
    }
    // A path that is not there: the scenario does not open, nothing changes.
    std::fs::write(&file, "model = \"./nowhere\"\n").unwrap();
    let mut a = app();
    let before = a.model;
    let e = a.open_scenario(&file).unwrap_err();
    assert!(e.contains("model") && e.contains("no such file"), "{e}");
    assert_eq!(a.model, before);
}
