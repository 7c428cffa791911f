//! Facts the README and docs/ state that the program can check: how many views the
//! workbench has (and their order), the catalog's counts, the published
//! measurements and training runs, every subcommand in the synopsis, and
//! the main screen at 120x36 as the workbench draws it. A count that
//! drifts fails here, with what the README should say.

use clap::CommandFactory;
use ridgeline::catalog::Catalog;
use ridgeline::tui::views::View;

mod common;

/// README.md and every docs/*.md, one after another (a fact may live on
/// any page).
fn readme() -> String {
    common::doc_pages()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A count in words, as the README writes small ones.
fn word(n: usize) -> &'static str {
    [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ]
    .get(n)
    .copied()
    .unwrap_or("many")
}

/// The number a word or figure stands for, if it is one.
fn number(w: &str) -> Option<usize> {
    let w = w.to_ascii_lowercase();
    w.parse().ok().or_else(|| (0..=12).find(|&n| word(n) == w))
}

#[test]
fn every_count_of_views_is_the_number_of_views() {
    let text = readme();
    let n = View::ALL.len();
    // "Nine views share ...", "through all six views": every number put
    // before "views" is the workbench's.
    let words: Vec<&str> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut seen = 0;
    for pair in words.windows(2) {
        if pair[1] == "views"
            && let Some(k) = number(pair[0])
        {
            assert_eq!(k, n, "README says \"{} views\"; there are {n}", pair[0]);
            seen += 1;
        }
    }
    assert!(seen > 0, "the README no longer counts the views");
    let cap = word(n);
    let cap = cap[..1].to_uppercase() + &cap[1..];
    assert!(
        text.contains(&format!("{cap} views share")),
        "README: {cap} views"
    );
}

#[test]
fn the_view_table_lists_every_view_in_key_order() {
    let text = readme();
    let rows: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| {
            // "| `1` | Roofline | ..."
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let key = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            key.parse::<usize>().ok()?;
            Some((key.to_string(), cells.get(2)?.to_string()))
        })
        .collect();
    let want: Vec<(String, String)> = View::ALL
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1).to_string(), v.title().to_string()))
        .collect();
    assert_eq!(rows, want);
}

#[test]
fn the_catalog_measurement_and_training_run_counts_are_the_catalogs() {
    let text = readme();
    let c = Catalog::builtin();
    let said = format!(
        "of {} devices, {} models and {} grid regions",
        c.hardware.len(),
        c.models.len(),
        c.regions.len()
    );
    assert!(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&said),
        "README should say {said:?}"
    );
    let mut m = Catalog::builtin();
    m.add_measurements(None);
    let n = m.measurements.len();
    for phrase in [
        format!("ships {n} published measurements"),
        format!("all {n} measurements"),
        format!("the {n} measurements are read only"),
    ] {
        assert!(text.contains(&phrase), "README should say {phrase:?}");
    }
    // The training runs, and the files (one a source) they come from.
    let runs = m.training_runs.len();
    let mut files: Vec<&str> = m.training_runs.iter().map(|r| r.source_key()).collect();
    files.sort_unstable();
    files.dedup();
    let sources = files.len();
    for phrase in [
        format!("ships {runs} published training runs from {sources} sources"),
        format!("training runs ({runs} from {sources} sources)"),
        format!("of the {runs} runs"),
    ] {
        assert!(text.contains(&phrase), "README should say {phrase:?}");
    }
    // No other count of the measurements.
    let words: Vec<&str> = text.split_whitespace().collect();
    for pair in words.windows(2) {
        if pair[1].trim_end_matches([',', '.', ';', ')']) == "measurements"
            && let Ok(k) = pair[0].parse::<usize>()
        {
            assert_eq!(k, n, "README says \"{} {}\"", pair[0], pair[1]);
        }
    }
}

#[test]
fn the_synopsis_names_every_subcommand() {
    let text = readme();
    let cmd = ridgeline::cli::args::Cli::command();
    let names: Vec<&str> = cmd
        .get_subcommands()
        .map(|s| s.get_name())
        .filter(|n| *n != "help")
        .collect();
    assert!(names.len() > 10, "{names:?}");
    for n in names {
        let line = format!("\nridgeline {n} ");
        assert!(
            text.contains(&line),
            "README's synopsis lacks `ridgeline {n}`"
        );
    }
}

/// The README's 120x36 main screen, between "The main screen at 120x36"
/// and the end of its code block.
fn readme_screen(text: &str) -> String {
    let (_, rest) = text
        .split_once("The main screen at 120x36 (`ridgeline`, no marks):\n\n```text\n")
        .expect("README has the 120x36 screen");
    rest.split_once("```\n").unwrap().0.to_string()
}

/// The workbench's first screen at 120x36, trailing blanks cut as the
/// README's lines are.
fn main_screen() -> String {
    common::screen(&common::app(), 120, 36)
        .lines()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect()
}

#[test]
fn the_main_screen_is_the_one_the_workbench_draws() {
    assert_eq!(
        readme_screen(&readme()),
        main_screen(),
        "paste `cargo test --test readme_facts print_main_screen -- --ignored --nocapture` into the README"
    );
}

/// Prints the screen to paste into the README.
#[test]
#[ignore]
fn print_main_screen() {
    print!("{}", main_screen());
}

// The `$ ridgeline ...` examples are run by tests/docs_examples.rs.

#[test]
fn the_memory_readings_docs_catalog_quotes_are_the_catalogs() {
    // docs/catalog.md: "the H100 SXM and the A100 SXM 80GB hold
    // 85,045,477,376 and 85,100,068,864 bytes ... the B200 its 180 GB".
    let cat = ridgeline::catalog::Catalog::builtin();
    let bytes = |id: &str| cat.hardware(id).unwrap().hw.memory_bytes;
    assert_eq!(bytes("h100-sxm"), 85_045_477_376.0);
    assert_eq!(bytes("a100-sxm-80gb"), 85_100_068_864.0);
    assert_eq!(bytes("b200"), 180e9);
    let docs = readme().replace('\n', " ");
    assert!(docs.contains("hold 85,045,477,376 and 85,100,068,864 bytes"));
}

#[test]
fn the_96_gb_h100_holds_what_its_derivation_says() {
    // catalog/hardware/nvidia-datacenter.toml, h100-sxm-96gb: 96 GiB of
    // HBM2e less what the driver keeps of the 80 GB part (80 GiB less the
    // 85,045,477,376 B CUDA reports for h100-sxm); its peak is the midpoint
    // of the SXM's and the NVL's bf16 figures.
    let cat = ridgeline::catalog::Catalog::builtin();
    let hw = |id: &str| cat.hardware(id).unwrap().hw.clone();
    let gib = 1024.0_f64.powi(3);
    let kept = 80.0 * gib - hw("h100-sxm").memory_bytes;
    assert_eq!(kept, 853_868_544.0);
    assert_eq!(hw("h100-sxm-96gb").memory_bytes, 96.0 * gib - kept);
    let bf16 = |id: &str| hw(id).peaks.bf16.unwrap();
    let mid = (bf16("h100-sxm") + bf16("h100-nvl")) / 2.0;
    assert!((bf16("h100-sxm-96gb") - mid).abs() < 0.1e12, "{mid}");
}
