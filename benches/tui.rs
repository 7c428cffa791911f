//! Placeholder until the workbench lands: keystroke-to-frame benchmarks go here.
fn main() {}
