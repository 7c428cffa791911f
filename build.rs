//! Embed every built-in catalog and theme file in the binary, so a fresh
//! install needs nothing on disk and a new file needs no code change.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

fn list(dir: &str) -> Vec<String> {
    println!("cargo:rerun-if-changed={dir}");
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".toml"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn emit(out: &mut String, name: &str, dir: &str) {
    let root = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    writeln!(out, "pub const {name}: &[(&str, &str)] = &[").unwrap();
    for f in list(dir) {
        let path = Path::new(&root).join(dir).join(&f);
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            format!("{dir}/{f}"),
            path.display().to_string()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
}

fn main() {
    let mut out = String::new();
    emit(&mut out, "HARDWARE", "catalog/hardware");
    emit(&mut out, "MODELS", "catalog/models");
    emit(&mut out, "PROFILES", "catalog/profiles");
    emit(&mut out, "MEASUREMENTS", "catalog/measurements");
    emit(&mut out, "TRAINING", "catalog/training");
    emit(&mut out, "THEMES", "themes");
    println!("cargo:rerun-if-changed=catalog/regions.toml");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("embedded.rs");
    fs::write(dest, out).expect("write embedded.rs");
}
