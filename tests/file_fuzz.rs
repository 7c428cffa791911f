//! Every file reader this program has for user files (catalog hardware,
//! models and regions; themes; the key bindings of config.toml) fed random
//! bytes and random mutations of the built-in files: no panic, an answer in
//! bounded time, and whatever comes back is sound (every loaded entry is
//! found by its id, every problem has a position and prints without a
//! control character).

use proptest::prelude::*;
use ridgeline::catalog::Catalog;
use ridgeline::tui::keymap::Keymap;
use ridgeline::tui::theme::ThemeSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A hang guard, not a speed measurement: one of these inputs takes
/// microseconds to milliseconds in a release build, and a debug build on a
/// busy machine is many times slower; a reader that loops never answers.
const HANG: Duration = Duration::from_secs(30);

const SEEDS: &[&str] = &[
    include_str!("../catalog/hardware/nvidia-datacenter.toml"),
    include_str!("../catalog/hardware/tiny.toml"),
    include_str!("../catalog/models/llama-3.toml"),
    include_str!("../catalog/models/deepseek.toml"),
    include_str!("../catalog/models/vision.toml"),
    include_str!("../catalog/regions.toml"),
    include_str!("../themes/dark.toml"),
    include_str!("../themes/mono.toml"),
    "[keys]\nmark = \"m\"\nup = [\"up\", \"k\"]\nquit = \"ctrl-q\"\nhelp = \"f1\"\n",
];

/// Text a mutation may insert: TOML syntax, escapes, huge and tiny
/// numbers, control characters, multi-byte characters.
const PIECES: &[&str] = &[
    "[",
    "]",
    "[[",
    "]]",
    "\"",
    "'",
    "=",
    "\n",
    ",",
    "{",
    "}",
    ".",
    "#",
    "\\",
    "\\u001b",
    "\\u009b",
    "\\u202e",
    "\u{1b}",
    "\u{0}",
    "é",
    "·",
    "1e308",
    "-1",
    "0",
    "nan",
    "inf",
    "1e-300",
    "99999999999999999999",
    "[[device]]",
    "[[model]]",
    "[[region]]",
    "[device.peak]",
    "[keys]",
    "id = \"h100-sxm\"",
    "aliases = [\"h100\"]",
    "kind = \"moe-decoder\"",
    "kv_heads = 7",
    "\"\"\"",
    "'''",
    " TB/s",
    " TFLOPS",
    " GiB",
];

fn builtin() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(Catalog::builtin)
}

/// Feed one text to every reader and check what they return.
fn feed(text: &str) {
    let start = Instant::now();
    let mut c = builtin().clone();
    c.add_hardware_file("fuzz/hardware.toml", text);
    c.add_model_file("fuzz/models.toml", text);
    c.add_region_file("fuzz/regions.toml", text);
    let (km, key_problems) = Keymap::from_config("fuzz/config.toml", text);
    let themes = ThemeSet::load(
        ridgeline::catalog::builtin_themes(),
        &[("fuzz/theme.toml".to_string(), text.to_string())],
    );
    let took = start.elapsed();
    let head: String = text.chars().take(200).collect();
    assert!(
        took < HANG,
        "{took:?} for {} bytes: {head:?}...",
        text.len()
    );
    // Every loaded entry is found by its id, and is the one found.
    for e in &c.hardware {
        assert_eq!(c.hardware(&e.hw.id).unwrap().hw.id, e.hw.id);
    }
    for e in &c.models {
        assert_eq!(c.model(&e.model.id).unwrap().model.id, e.model.id);
    }
    for r in &c.regions {
        assert_eq!(c.region(&r.id).unwrap().id, r.id);
    }
    let printable = |s: &str| !s.chars().any(|c| c.is_control() && c != '\n');
    for d in c.diagnostics.iter().chain(&c.notes) {
        assert!(d.line >= 1 && d.column >= 1, "{d:?}");
        assert!(printable(&d.to_string()), "{d:?}");
    }
    for p in key_problems.iter().chain(&themes.problems) {
        assert!(printable(p), "{p:?}");
    }
    for t in &themes.themes {
        assert!(printable(&t.name) && !t.roof.is_empty(), "{t:?}");
    }
    let _ = km.help_rows();
}

/// A mutation: cut a range, insert a piece, or repeat a slice.
#[derive(Debug, Clone)]
enum Edit {
    Cut(usize, usize),
    Insert(usize, usize),
    Repeat(usize, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..64).prop_map(|(a, n)| Edit::Cut(a, n)),
        (any::<usize>(), 0..PIECES.len()).prop_map(|(a, p)| Edit::Insert(a, p)),
        (any::<usize>(), 0usize..200, 1usize..50).prop_map(|(a, n, k)| Edit::Repeat(a, n, k)),
    ]
}

/// The nearest character boundary at or before `at % (len + 1)`.
fn boundary(s: &str, at: usize) -> usize {
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(mut s: String, edits: &[Edit]) -> String {
    for e in edits {
        match *e {
            Edit::Cut(a, n) => {
                let a = boundary(&s, a);
                let b = boundary(&s, a + n.min(s.len() - a));
                s.replace_range(a..b.max(a), "");
            }
            Edit::Insert(a, p) => {
                let a = boundary(&s, a);
                s.insert_str(a, PIECES[p]);
            }
            Edit::Repeat(a, n, k) => {
                let a = boundary(&s, a);
                let b = boundary(&s, a + n.min(s.len() - a)).max(a);
                let slice = s[a..b].repeat(k);
                s.insert_str(b, &slice);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_are_handled(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        feed(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_toml_like_text_is_handled(parts in proptest::collection::vec(0..PIECES.len(), 0..200)) {
        let text: String = parts.iter().map(|&p| PIECES[p]).collect();
        feed(&text);
    }

    #[test]
    fn mutated_builtin_files_are_handled(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec(edit(), 1..12),
    ) {
        feed(&apply(SEEDS[seed].to_string(), &edits));
    }
}

#[test]
fn deep_nesting_and_long_lines_are_handled() {
    for text in [
        format!("a = {}", "[".repeat(20_000)),
        format!("a = {}", "{b = ".repeat(20_000)),
        format!("{}x = 1", "a.".repeat(20_000)),
        format!("[[device]]\nid = \"{}\"\n", "x".repeat(200_000)),
        "[[device]]\n".repeat(5_000),
        format!("[keys]\n{}", "up = \"k\"\n".repeat(1000)),
    ] {
        feed(&text);
    }
}
