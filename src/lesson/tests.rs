use super::*;

fn cat() -> Catalog {
    Catalog::builtin()
}

fn parse(text: &str) -> Result<Lesson, ScenarioErrors> {
    Lesson::parse("l.toml", text, &cat())
}

/// The problems of a lesson text, one "line:col: message" each.
fn problems(text: &str) -> Vec<String> {
    parse(text)
        .unwrap_err()
        .0
        .iter()
        .map(|e| format!("{}:{}: {}", e.line, e.column, e.message))
        .collect()
}

const HEAD: &str = "title = \"t\"\nreproduces = \"r\"\n";

#[test]
fn steps_are_laid_over_the_step_before() {
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"a\"\nhardware = \"h100-sxm\"\nmodel = \"llama-3.1-8b\"\n\
         [step.workload]\nweights = \"int4\"\nbatch = 4\n\
         [[step]]\ncaption = \"b\"\n[step.workload]\nprecision = \"fp8\"\n"
    );
    let l = parse(&text).unwrap();
    assert_eq!(l.steps.len(), 2);
    let s = &l.steps[1].state;
    // Kept from step 1.
    assert_eq!(s.hardware.as_deref(), Some("h100-sxm"));
    assert_eq!(s.model.as_deref(), Some("llama-3.1-8b"));
    assert_eq!(s.workload.batch, Some(4.0));
    // `precision` sets all three formats: step 1's int4 weights give way.
    assert_eq!(s.workload.precision.as_deref(), Some("fp8"));
    assert_eq!(s.workload.weights, None);
    // Step 2 starts on line 10 (two head lines, seven of step 1).
    assert_eq!((l.steps[1].line, l.steps[1].column), (10, 1));
}

#[test]
fn an_unknown_placeholder_is_reported_where_it_is_written() {
    // Line 4, `{latnecy}` after 9 characters of `caption = "` + "at ".
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"at {{latnecy}}\"\nhardware = \"h100-sxm\"\nmodel = \"llama-3.1-8b\"\n"
    );
    let p = problems(&text);
    assert_eq!(p.len(), 1, "{p:?}");
    // `caption = "` is 11 characters, "at " 3: the brace is column 15.
    assert!(
        p[0].starts_with("4:15: caption: unknown placeholder {latnecy}"),
        "{p:?}"
    );
    assert!(p[0].contains("latency"), "the message lists the figures");
}

#[test]
fn a_lone_brace_is_a_problem_and_doubled_braces_are_braces() {
    let p = problems(&format!("{HEAD}[[step]]\ncaption = \"a {{ b\"\n"));
    assert!(p.iter().any(|m| m.contains("a `{` with no `}`")), "{p:?}");
    let figures = Figures(vec![figures::Figure {
        name: "latency",
        value: Value::Number(12.0),
        shown: "12 ms".into(),
    }]);
    assert_eq!(fill("{{x}} {latency}, {{", &figures), "{x} 12 ms, {");
}

#[test]
fn a_figure_that_shows_otherwise_than_the_script_is_marked() {
    let fig = |name: &'static str, shown: &str| figures::Figure {
        name,
        value: Value::Text(shown.into()),
        shown: shown.into(),
    };
    let script = Figures(vec![fig("latency", "12 ms"), fig("binding", "memory")]);
    // The same state: nothing marked.
    let (s, changed) = fill_marked("{latency}, {binding}-bound", &script, &script);
    assert_eq!((s.as_str(), changed), ("12 ms, memory-bound", false));
    // The audience halved the latency: only that figure carries the mark.
    let live = Figures(vec![fig("latency", "6 ms"), fig("binding", "memory")]);
    let (s, changed) = fill_marked("{latency}, {binding}-bound {{x}}", &live, &script);
    assert_eq!((s.as_str(), changed), ("6 ms*, memory-bound {x}", true));
    // A figure the script lacks counts as changed.
    let (s, changed) = fill_marked("{binding}", &live, &Figures::default());
    assert_eq!((s.as_str(), changed), ("memory*", true));
}

#[test]
fn unknown_keys_of_the_lesson_a_step_and_its_expectations_are_placed() {
    let text = format!(
        "titel = \"t\"\n{HEAD}[[step]]\ncaption = \"c\"\ncolour = 1\nhardware = \"h100-sxm\"\nmodel = \"llama-3.1-8b\"\n\
         [step.expect]\nlatency = 3\n"
    );
    let p = problems(&text);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[0].starts_with("1:1: unknown key `titel`"), "{p:?}");
    assert!(
        p[1].starts_with("6:1: unknown key `colour` in step 1"),
        "{p:?}"
    );
    // The expectation of latency is `latency_ms` (its unit in the key).
    assert!(
        p[2].starts_with("10:1: unknown expectation `latency`"),
        "{p:?}"
    );
    assert!(p[2].contains("latency_ms"), "{p:?}");
}

#[test]
fn a_scenario_problem_in_a_step_is_at_its_key_in_the_lesson() {
    // The scenario checker's own messages, placed in the lesson file.
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"c\"\nhardware = \"no-such-gpu\"\n[step.workload]\nbatch = \"x\"\n"
    );
    let p = problems(&text);
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].starts_with("5:1: hardware:"), "{p:?}");
    assert!(p[1].starts_with("7:1: batch:"), "{p:?}");
}

#[test]
fn expectations_take_the_kind_of_their_figure() {
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"c\"\nhardware = \"h100-sxm\"\nmodel = \"llama-3.1-8b\"\n[step.expect]\nfits = \"yes\"\nlatency_ms = [13, 10]\n\
         binding = 3\nelasticity.peak_flops = [-0.1, 0.1]\ncrossover_batch = \"none\"\n"
    );
    let p = problems(&text);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[0].starts_with("8:1: fits: true or false"), "{p:?}");
    assert!(p[1].starts_with("9:1: latency_ms: [low, high] needs low <= high"));
    assert!(p[2].starts_with("10:1: binding: a string"), "{p:?}");
}

#[test]
fn a_lesson_needs_a_title_and_steps_with_captions() {
    let p = problems("reproduces = \"r\"\n");
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p.iter().any(|m| m.contains("title: missing")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("no steps")), "{p:?}");
    let p = problems(&format!(
        "{HEAD}[[step]]\nhardware = \"h100-sxm\"\nmodel = \"llama-3.1-8b\"\n"
    ));
    assert_eq!(p, vec!["3:1: step 1: no caption; add caption = \"...\""]);
    // The state a step runs needs a device and a model, from it or before.
    let p = problems(&format!("{HEAD}[[step]]\ncaption = \"c\"\n"));
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].contains("hardware: no device yet"), "{p:?}");
    assert!(p[1].contains("model: no model yet"), "{p:?}");
    // A model path is refused: a lesson names catalog ids.
    let p = problems(&format!(
        "{HEAD}[[step]]\ncaption = \"c\"\nhardware = \"h100-sxm\"\nmodel = \"./m/config.json\"\n"
    ));
    assert!(p.iter().any(|m| m.contains("is a path")), "{p:?}");
}

#[test]
fn check_lists_each_expectation_that_does_not_hold_at_its_line() {
    // Llama 3.1 8B decode at batch 1 on an H100: 16 GB of bf16 weights
    // read per token at 3.35 TB/s is about 5 ms, far from compute (an
    // intensity near 1 FLOP/B against a ridge near 300), so memory-bound;
    // it cannot be under 1 ms, and it fits (16 GB of 80).
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"{{latency}}\"\nhardware = \"h100-sxm\"\n\
         model = \"llama-3.1-8b\"\n[step.expect]\nbinding = \"memory\"\nfits = true\n\
         latency_ms = [0, 1]\n"
    );
    let l = parse(&text).unwrap();
    let (failures, checked) = l.check(&cat());
    assert_eq!(checked, 3);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!((failures[0].step, failures[0].line), (1, 10));
    assert!(
        failures[0].message.starts_with("latency_ms is "),
        "{failures:?}"
    );
    assert!(failures[0].message.ends_with("expected [0, 1]"));
}

#[test]
fn a_caption_shows_the_same_figures_the_check_reads() {
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"{{binding}}-bound at {{latency}}\"\n\
         hardware = \"h100-sxm\"\nmodel = \"llama-3.1-8b\"\n"
    );
    let l = parse(&text).unwrap();
    let s = l.show(0, &cat()).unwrap();
    let lat = s.figures.get("latency").unwrap();
    assert_eq!(s.caption, format!("memory-bound at {}", lat.shown));
    // The shown latency is the value the expectation reads, in ms.
    let Value::Number(ms) = lat.value else {
        panic!("{lat:?}")
    };
    assert_eq!(lat.shown, crate::solver::units::format_time(ms / 1e3));
}

#[test]
fn a_name_that_is_neither_a_file_nor_a_lesson_lists_the_lessons() {
    let e = Lesson::open("no-such-lesson", &cat()).unwrap_err();
    assert!(e.to_string().contains("knobs"), "{e}");
}

#[test]
fn every_built_in_lesson_reads_and_holds() {
    let cat = cat();
    for (name, _) in BUILT_IN {
        let l = Lesson::open(name, &cat).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (failures, checked) = l.check(&cat);
        assert!(failures.is_empty(), "{name}: {failures:?}");
        // Every step has expectations.
        for (i, s) in l.steps.iter().enumerate() {
            assert!(
                !s.expect.is_empty(),
                "{name}: step {} checks nothing",
                i + 1
            );
        }
        assert!(checked >= l.steps.len());
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;
    use std::sync::LazyLock;

    static CATALOG: LazyLock<Catalog> = LazyLock::new(Catalog::builtin);

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any text spliced into a built-in lesson reads, or is refused
        /// with problems at places inside the file; never a panic.
        #[test]
        fn an_edited_lesson_reads_or_says_where_it_is_wrong(
            which in 0usize..2,
            at in 0usize..8000,
            insert in "[ -~\n]{0,16}",
        ) {
            let base = BUILT_IN[which % BUILT_IN.len()].1;
            let mut at = at % (base.len() + 1);
            while !base.is_char_boundary(at) {
                at -= 1;
            }
            let text = format!("{}{insert}{}", &base[..at], &base[at..]);
            match Lesson::parse("f.toml", &text, &CATALOG) {
                Ok(l) => {
                    prop_assert!(!l.steps.is_empty());
                    let _ = l.show(0, &CATALOG);
                }
                Err(e) => {
                    let lines = text.lines().count().max(1) + 1;
                    for p in &e.0 {
                        prop_assert!(p.line >= 1 && p.line <= lines, "{p}");
                        prop_assert!(!p.message.is_empty());
                    }
                }
            }
        }
    }
}

#[test]
fn a_step_that_does_not_fit_shows_the_figures_on_the_fewest_devices_as_the_workbench() {
    // Llama 3.1 405B decode on one H100: 812 GB of bf16 weights against
    // 76.5 GB usable, so it does not fit; the fewest devices that hold it
    // are 11 (pipeline stages of 73.8 GB). The workbench's status line and
    // `ridgeline eval` give the step there; the lesson's {latency} is the
    // same figure, while its memory is the asked layout's.
    let text = format!(
        "{HEAD}[[step]]\ncaption = \"{{latency}} on {{devices_to_fit}}\"\n\
         hardware = \"h100-sxm\"\nmodel = \"llama-3.1-405b\"\n"
    );
    let l = parse(&text).unwrap();
    let s = l.show(0, &cat()).unwrap();
    let c = cat();
    let hw = &c.hardware("h100-sxm").unwrap().hw;
    let model = &c.model("llama-3.1-405b").unwrap().model;
    let (_, profile) = crate::scenario::Scenario::default().profile(&c).unwrap();
    let wl = crate::solver::Workload::default();
    let asked = crate::solver::evaluate(hw, model, &wl, &profile).unwrap();
    let judged = crate::solver::compare::assess(hw, model, &wl, &profile, asked.clone());
    let at = judged.at_fit.expect("11 devices hold it");
    assert_eq!(at.devices(), 11);
    let Value::Number(ms) = s.figures.get("latency").unwrap().value else {
        panic!()
    };
    assert_eq!(ms, at.latency_s * 1e3);
    assert_ne!(ms, asked.latency_s * 1e3);
    let Value::Number(gb) = s.figures.get("memory").unwrap().value else {
        panic!()
    };
    assert_eq!(gb, asked.memory.footprint.total() / 1e9);
    assert!(gb > 800.0, "{gb}");
}
