//! `ridgeline plot`: SVG figures from the command line (issue 20, section 4).

mod common;
use common::cli::ridgeline;

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn parse(svg: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"))
}

fn class_count(doc: &roxmltree::Document, c: &str) -> usize {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some(c))
        .count()
}

#[test]
fn roofline_to_stdout_draws_each_device_its_point_and_the_other_phase() {
    let out = ridgeline(&["plot", "roofline", "-H", "a100,h100,h200", "-o", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    let doc = parse(&svg);
    // Three roofs; three decode points (8B fits each) and a100's prefill.
    assert_eq!(class_count(&doc, "roof"), 3);
    assert_eq!(class_count(&doc, "point"), 4);
    assert_eq!(class_count(&doc, "effective"), 1);
    for id in ["a100-sxm-80gb", "h100-sxm", "h200-sxm"] {
        assert!(svg.contains(&format!("\n{id}\n")), "{id} missing");
    }
}

#[test]
fn a_file_is_kept_unless_force_and_replaced_with_it() {
    let dir = std::env::temp_dir().join(format!("ridgeline-plot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("sweep.svg");
    std::fs::write(&f, "mine").unwrap();
    let p = f.to_str().unwrap();
    let out = ridgeline(&["plot", "sweep", "-H", "h100", "--batch", "1..64", "-o", p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "mine");
    let out = ridgeline(&[
        "plot", "sweep", "-H", "h100", "--batch", "1..64", "-o", p, "--force",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&f).unwrap();
    let doc = parse(&svg);
    // 1, 2, 4, ..., 64: seven batches, all fit 8B on an H100, a marker each.
    let series: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("series"))
        .collect();
    assert_eq!(series.len(), 1);
    let markers = series[0]
        .children()
        .filter(|c| c.attribute("class") == Some("marker"))
        .count();
    assert_eq!(markers, 7);
    // Nothing but the figure in the directory (no temporary file).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_draws_the_steps_parts_and_refuses_a_step_that_does_not_fit() {
    let out = ridgeline(&[
        "plot",
        "train",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "--devices",
        "64",
        "--tp",
        "8",
        "--pp",
        "2",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    let doc = parse(&svg);
    assert_eq!(class_count(&doc, "bar"), 1);
    // Pipeline parallel over 2 stages: a bubble and pp communication.
    for part in ["compute", "bubble", "pp-comm", "tp-comm", "dp-comm"] {
        assert!(svg.contains(&format!("\n{part}\n")), "{part} missing");
    }
    // GPT-3 on 8 A100s: even sharded over the 8 data-parallel ranks
    // (ZeRO 3, train's default), Adam's fp32 states alone are 175e9 x 12 B
    // / 8 = 262 GB a device, over the 80 GB it has.
    let out = ridgeline(&[
        "plot",
        "train",
        "-m",
        "gpt-3",
        "-H",
        "a100",
        "--devices",
        "8",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("does not fit in memory"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_format_flag_is_refused_with_the_reason() {
    let out = ridgeline(&["plot", "roofline", "--format", "json", "-o", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a plot is an SVG file"));
}

#[test]
fn operators_draw_each_operator_that_does_math_under_one_roof() {
    let out = ridgeline(&[
        "plot",
        "operators",
        "-m",
        "llama-3.1-8b",
        "-H",
        "h100",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    let doc = parse(&svg);
    assert_eq!(class_count(&doc, "roof"), 1);
    // A dense decoder's step: norms, QKV, attention, the output
    // projection, the MLP's two products and the LM head (the collectives
    // move no memory and are not drawn).
    assert_eq!(class_count(&doc, "point"), 7, "{svg}");
    for op in ["attention", "LM head"] {
        assert!(svg.contains(op), "{op} missing");
    }
}

#[test]
fn explore_draws_the_feasible_dots_and_the_front() {
    // 8B on h100 and b200, bf16 and fp8, TP 1 and 2, batch 1, 2, 4, 8:
    // 2 x 2 x 2 x 4 = 32 configurations.
    let out = ridgeline(&[
        "plot",
        "explore",
        "-H",
        "h100,b200",
        "-p",
        "bf16,fp8",
        "--tp",
        "1..2",
        "--batch",
        "1..8",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = text(&out.stdout);
    let doc = parse(&svg);
    assert!(svg.contains("\n32 configurations, "), "{svg}");
    // Every configuration of 8B fits an 80 GB device or more, and there
    // is no limit: all 32 are feasible dots.
    assert_eq!(class_count(&doc, "cloud-point"), 32);
    assert_eq!(class_count(&doc, "series"), 1);
    // The axes read in the objectives' units: ITL in time, cost in $.
    assert!(svg.contains("\n10 ms\n"), "{svg}");
    assert!(svg.contains("\n$1\n"), "{svg}");
}

#[test]
fn explore_refuses_what_a_plot_cannot_draw() {
    for (args, says) in [
        (vec!["--objectives", "itl,cost,energy"], "two axes, not 3"),
        (vec!["--all"], "--all"),
        // The 44 built-in devices x 3 formats x TP 1, 2, 4, 8 x PP 1 to
        // 32768 (16) x batch 1 to 65536 (17) = 143616 > 100000.
        (
            vec!["-H", "all", "--pp", "1..32768", "--batch", "1..65536"],
            "143616 configurations: a plot draws up to 100000",
        ),
    ] {
        let mut a = vec!["plot", "explore", "-o", "-"];
        a.extend(args);
        let out = ridgeline(&a);
        assert_eq!(out.status.code(), Some(2), "{a:?}");
        let err = text(&out.stderr);
        assert!(err.contains(says), "{a:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}
