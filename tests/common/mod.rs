//! Helpers the workbench tests share: a fresh app, commands and typed keys.
#![allow(dead_code)]

pub mod cli;

use ratatui_textarea::{Input, Key};
use ridgeline::catalog::Catalog;
use ridgeline::tui::{Action, App, Command, Settings, update};

/// The workbench on the built-in catalog with default settings.
pub fn app() -> App {
    App::new(Catalog::builtin(), Settings::default())
}

/// The workbench in a look: "mono" (NO_COLOR), "ascii", else colour.
pub fn looking(look: &str) -> App {
    App::new(
        Catalog::builtin(),
        Settings {
            ascii: look == "ascii",
            no_color: look == "mono",
            ..Settings::default()
        },
    )
}

/// Focus the knobs on `k`, which the view must show.
pub fn select_knob(a: &mut App, k: ridgeline::tui::knobs::Knob) {
    a.focus = ridgeline::tui::Pane::Knobs;
    a.knob = a
        .knobs()
        .iter()
        .position(|x| *x == k)
        .expect("knob in view");
}

/// Run commands as their keys would.
pub fn go(a: &mut App, cmds: &[Command]) {
    for c in cmds {
        update(a, Action::Do(*c));
    }
}

/// One key into the open text entry.
pub fn key(a: &mut App, key: Key) {
    update(
        a,
        Action::Input(Input {
            key,
            ..Input::default()
        }),
    );
}

/// Type text into the open text entry.
pub fn typed(a: &mut App, s: &str) {
    for c in s.chars() {
        key(a, Key::Char(c));
    }
}

/// The catalog index of a device by id.
pub fn hw(a: &App, id: &str) -> usize {
    a.catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == id)
        .unwrap_or_else(|| panic!("no device {id}"))
}

/// The catalog index of a model by id.
pub fn model(a: &App, id: &str) -> usize {
    a.catalog
        .models
        .iter()
        .position(|e| e.model.id == id)
        .unwrap_or_else(|| panic!("no model {id}"))
}

/// The screen drawn at `w`x`h`, a line of text per row.
pub fn screen(a: &App, w: u16, h: u16) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| ridgeline::tui::render(a, f)).unwrap();
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

/// README.md, then every page under docs/ (sorted): the pages the docs
/// tests read.
pub fn doc_pages() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut dirs = vec![root.join("docs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                found.push(p);
            }
        }
    }
    found.sort();
    found.insert(0, root.join("README.md"));
    found
}

/// Assert that `s`, the workbench's scaling curve of Llama 3.1 8B on
/// H100s, is what `ridgeline scale` gives over 8 to 16384 devices with
/// `batch` (`--global-batch`, None: its default): each point's tokens/s
/// and the knee.
pub fn assert_curve_is_the_clis(
    s: &ridgeline::solver::training::scale::Scaling,
    batch: Option<&str>,
) {
    let mut args = vec![
        "scale",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100-sxm",
        "--devices",
        "8..16384",
        "-f",
        "json",
    ];
    if let Some(b) = batch {
        args.extend(["--global-batch", b]);
    }
    let v = cli::json(&args);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), s.points.len());
    for (p, q) in s.points.iter().zip(points) {
        let f = p.figures().unwrap();
        // Equal to the last digit JSON keeps (its parser may round the
        // last bit).
        let cli = q["tokens_per_s"].as_f64().unwrap();
        assert!(
            (cli / f.step.tokens_per_s - 1.0).abs() < 1e-12,
            "{}",
            p.devices
        );
    }
    assert_eq!(
        v["knee"]["devices"].as_u64(),
        s.knee.as_ref().map(|k| k.devices as u64)
    );
}
