use super::*;

const CAPSTONE: &str = r#"
title = "capstone"
view = "fleet"
model = "llama-3-70b"
[workload]
precision = "bf16"
[serving]
prompt = 2048
output = 256
[fleet]
qps = 1000
ttft = "100ms"
itl = "50ms"
regions = ["us-east", "eu-west"]
budget = "5M"
"#;

#[test]
fn parses_and_resolves() {
    let s = Scenario::parse("c.toml", CAPSTONE).unwrap();
    let f = s.fleet_inputs().unwrap();
    assert_eq!(f.qps, 1000.0);
    assert_eq!(f.ttft_s, 0.1);
    assert_eq!(f.itl_s, 0.05);
    assert_eq!(f.budget_usd_per_year, Some(5e6));
    assert_eq!(f.regions, ["us-east", "eu-west"]);
    let r = s.request().unwrap();
    assert_eq!((r.prompt, r.output), (2048.0, 256.0));
    assert_eq!(s.view.as_deref(), Some("fleet"));
}

#[test]
fn batch_ranges_as_users_type_them() {
    // Synthesis targets are tested with their parser (solver/target.rs).
    assert_eq!(parse_batches("1..512"), Ok((1, 512)));
    assert!(parse_batches("8..2").is_err());
}

#[test]
fn round_trips_through_toml() {
    let s = Scenario::parse("c.toml", CAPSTONE).unwrap();
    let again = Scenario::parse("again.toml", &s.to_toml()).unwrap();
    assert_eq!(s, again);
}

/// The one problem of a file that has one.
fn one(text: &str) -> ScenarioError {
    let mut e = Scenario::parse("c.toml", text).unwrap_err().0;
    assert_eq!(e.len(), 1, "{e:?}");
    e.remove(0)
}

#[test]
fn bad_values_are_reported_with_their_line() {
    let bad = CAPSTONE.replace("\"100ms\"", "\"soon\"");
    let e = one(&bad);
    let line = bad.lines().position(|l| l.contains("soon")).unwrap() + 1;
    assert_eq!(e.line, line, "{e}");
    assert!(e.to_string().contains("ttft"), "{e}");
    let e = one("model = \n");
    assert_eq!((e.line, e.column), (1, 9), "{e}");
    let e = one("colour = \"red\"\n");
    assert!(e.message.contains("unknown key `colour`"), "{e}");
    let e = one("view = \"lobby\"\n");
    assert!(e.message.contains("roofline"), "{e}");
    let e = one("[workload]\nbatch = 0\n");
    assert!(e.message.contains("batch"), "{e}");
}

#[test]
fn semantic_problems_are_at_their_key_not_at_1_1() {
    // The first version reported every value problem of [workload],
    // [assumptions] and [serving] at 1:1 (it looked for `workload =`).
    let e = one("title = \"x\"\n[workload]\nbatch = 0\n");
    assert_eq!((e.line, e.column), (3, 1), "{e}");
    assert!(e.message.starts_with("batch "), "{e}");
    let e = one("[assumptions]\n  memory_efficiency = 1.5\n");
    assert_eq!((e.line, e.column), (2, 3), "{e}");
    let e = one("[serving]\nprompt = 0\n");
    assert_eq!((e.line, e.column), (2, 1), "{e}");
    // A zero-token prompt is a problem of a prefill: at the context key.
    let e = one("[workload]\nphase = \"prefill\"\ncontext = 0\n");
    assert_eq!(e.line, 3, "{e}");
    // Dotted keys and inline tables too.
    let e = one("workload.tp = 0\n");
    assert_eq!((e.line, e.column), (1, 10), "{e}");
    let e = one("workload = { pp = 70000 }\n");
    assert_eq!((e.line, e.column), (1, 14), "{e}");
}

#[test]
fn every_problem_of_a_file_is_reported_sorted_by_line() {
    let text = "\
view = \"lobby\"
colour = \"red\"
[workload]
batch = \"many\"
tp = 0
precision = \"fp7\"
[fleet]
qps = -3
ttft = \"soon\"
[sweep]
batches = \"8..2\"
";
    let e = Scenario::parse("c.toml", text).unwrap_err();
    let at: Vec<(usize, usize)> = e.0.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(
        at,
        [
            (1, 1),
            (2, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (8, 1),
            (9, 1),
            (11, 1)
        ],
        "{e}"
    );
    let text = e.to_string();
    assert_eq!(text.lines().count(), 8, "one problem per line:\n{text}");
    for word in [
        "lobby", "colour", "batch", "tp", "fp7", "qps", "soon", "8..2",
    ] {
        assert!(text.contains(word), "{word}:\n{text}");
    }
    // Every syntax error, not only the first.
    let e = Scenario::parse("c.toml", "title = \n[workload\nbatch = = 1\n").unwrap_err();
    assert!(e.0.len() >= 2, "{e}");
    assert!(e.0.windows(2).all(|w| w[0].line <= w[1].line), "{e}");
}

#[test]
fn names_the_catalog_lacks_are_at_their_key() {
    let cat = crate::catalog::Catalog::builtin();
    let text = "\
hardware = \"h999\"
compare = [\"h100\", \"a999\"]
model = \"llama-9\"
[serving]
region = \"mars\"
[generations]
family = \"nope\"
[fleet]
regions = [\"us-east\", \"moon\"]
";
    assert!(
        Scenario::parse("c.toml", text).is_ok(),
        "names are checked with a catalog"
    );
    let e = Scenario::parse_with("c.toml", text, &cat).unwrap_err();
    let at: Vec<(usize, usize)> = e.0.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(
        at,
        [(1, 1), (2, 20), (3, 1), (5, 1), (7, 1), (9, 23)],
        "{e}"
    );
    for word in [
        "h999",
        "compare[1]",
        "a999",
        "llama-9",
        "mars",
        "nope",
        "regions[1]",
        "moon",
    ] {
        assert!(e.to_string().contains(word), "{word}: {e}");
    }
}

#[test]
fn numbers_read_whole_or_not_and_are_written_whole_when_whole() {
    let s = Scenario::parse("c.toml", "[workload]\nbatch = 1.5\ncontext = 4096\n").unwrap();
    assert_eq!(
        (s.workload.batch, s.workload.context),
        (Some(1.5), Some(4096.0))
    );
    let t = s.to_toml();
    assert!(
        t.contains("batch = 1.5\n") && t.contains("context = 4096\n"),
        "{t}"
    );
    let e = one("[workload]\nbatch = \"8\"\n");
    assert_eq!(e.line, 2, "{e}");
}

#[test]
fn saves_atomically_and_leaves_no_temporary_file() {
    let dir = std::env::temp_dir().join(format!("ridgeline-scn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(&path, "old").unwrap();
    let s = Scenario::parse("c.toml", CAPSTONE).unwrap();
    let w = s.save(&path).unwrap();
    assert!(w.replaced && !w.via_symlink);
    assert_eq!(Scenario::load(&path).unwrap(), s);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // A save into a directory that does not exist fails and leaves the old file alone.
    assert!(s.save(&dir.join("missing/s.toml")).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn nothing_from_the_file_reaches_a_terminal_raw() {
    // A quoted key holding an escape sequence: named, escaped.
    let e = one("\"\\u001b[31mred\" = 1\n");
    assert!(e.message.contains("\\u{1b}[31mred"), "{e}");
    assert!(!e.message.chars().any(char::is_control), "{:?}", e.message);
    let e = one("view = \"\\u001b]0;owned\\u0007\"\n");
    assert!(!e.message.chars().any(char::is_control), "{:?}", e.message);
}

#[test]
fn assumptions_take_a_profile_and_every_key_each_problem_at_its_key() {
    let cat = crate::catalog::Catalog::builtin();
    let text = "\
[assumptions]
profile = \"vlm\"
kernel_time = 5
  collective = \"star\"
overhead = true
compute_efficiency = 1.5
dequant_4bit = \"0.5\"
band_base = \"wide\"
";
    let e = Scenario::parse_with("c.toml", text, &cat).unwrap_err();
    let at: Vec<(usize, usize)> = e.0.iter().map(|e| (e.line, e.column)).collect();
    // dequant_4bit = "0.5" is read as the number it holds: no problem.
    assert_eq!(at, [(2, 1), (3, 1), (4, 3), (5, 1), (6, 1), (8, 1)], "{e}");
    let lines: Vec<String> = e.0.iter().map(|e| e.message.clone()).collect();
    // The closest ids of the catalog, as for devices and models.
    assert!(lines[0].contains("vlm") && lines[0].contains("vllm"), "{e}");
    assert!(lines[1].starts_with("kernel_time takes a time"), "{e}");
    assert!(lines[2].contains("ring"), "{e}");
    assert!(lines[3].starts_with("overhead"), "{e}");
    assert!(lines[4].contains("out of range"), "{e}");
    assert!(lines[5].starts_with("band_base"), "{e}");
    // Without a catalog the profile is not looked up.
    let e = Scenario::parse("c.toml", text).unwrap_err();
    assert_eq!(e.0.len(), 5, "{e}");
    // Unknown keys name the keys there are.
    let e = one("[assumptions]\nkernel_tme = \"1us\"\n");
    assert!(
        e.message.contains("kernel_tme") && e.message.contains("kernel_time"),
        "{e}"
    );
}

#[test]
fn assumptions_start_from_their_profile() {
    let cat = crate::catalog::Catalog::builtin();
    let s = Scenario::parse_with(
        "c.toml",
        "[assumptions]\nprofile = \"VLLM\"\nkernel_time = \"4us\"\n",
        &cat,
    )
    .unwrap();
    let (id, base) = s.profile(&cat).unwrap();
    assert_eq!(id, "vllm");
    let a = s.assumptions(&base).unwrap();
    let vllm = cat.profile("vllm").unwrap().assumptions;
    assert_eq!(a.kernel_s, 4e-6);
    assert_eq!(
        crate::solver::Assumptions {
            kernel_s: vllm.kernel_s,
            ..a
        },
        vllm
    );
    // No profile: the command line's, "default".
    let s = Scenario::parse_with("c.toml", "[assumptions]\n", &cat).unwrap();
    assert_eq!(s.profile(&cat).unwrap().0, "default");
    // Written back: the profile, then the keys.
    let t = s.to_toml();
    let again = Scenario::parse_with("again.toml", &t, &cat).unwrap();
    assert_eq!(again, s);
}

#[test]
fn training_values_read_and_each_problem_is_at_its_key() {
    let s = Scenario::parse(
        "t.toml",
        "view = \"training\"\n[training]\ndevices = 64\ntp = 4\nzero = 1\nrecompute = \"full\"\nglobal_batch = \"2M\"\nseq = \"4k\"\ntokens = \"15T\"\n",
    )
    .unwrap();
    let t = s.training_inputs().unwrap();
    // "2M" tokens = 2 x 1024^2; "4k" = 4096; "15T" = 15e12.
    assert_eq!((t.devices, t.tp, t.dp()), (64, 4, Some(16)));
    assert_eq!(t.global_batch, 2.0 * 1_048_576.0);
    assert_eq!(t.seq, Some(4096.0));
    assert_eq!(
        t.tokens,
        crate::solver::training::TokensToTrain::Tokens(15e12)
    );
    assert_eq!(t.recompute, crate::solver::training::Recompute::Full);
    // Absent keys keep the view's defaults (the sequence: the model's).
    let d = Scenario::parse("d.toml", "[training]\ndevices = 16\n").unwrap();
    assert_eq!(d.training_inputs().unwrap().seq, None);
    for (text, key) in [
        ("[training]\nzero = 4\n", "zero"),
        ("[training]\nrecompute = \"most\"\n", "recompute"),
        ("[training]\ntp = 0\n", "tp"),
        ("[training]\nglobal_batch = 1.5\n", "global_batch"),
        ("[training]\ntokens = \"lots\"\n", "tokens"),
    ] {
        let e = one(text);
        assert_eq!(e.line, 2, "{key}: {e}");
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
    let e = one("[training]\nheads = 2\n");
    assert!(e.message.contains("unknown key `heads`"), "{e}");
}

#[test]
fn training_assumptions_read_with_their_units_and_each_problem_is_at_its_key() {
    use crate::solver::training::{Optimizer, TrainingAssumptions};
    let s = Scenario::parse(
        "a.toml",
        "[training]\noptimizer = \"adam-8bit\"\ndp_overlap = 0.5\ntp_overlap = 1\nmtbf = \"2000h\"\ncheckpoint_bandwidth = \"2GB/s\"\nrestart = \"0\"\n",
    )
    .unwrap();
    let t = s.training_inputs().unwrap();
    let d = TrainingAssumptions::default();
    assert_eq!(t.optimizer, Optimizer::Adam8bit);
    // 2000 h = 7.2e6 s; 2 GB/s = 2e9 B/s; the absent overlaps keep theirs.
    assert_eq!(
        t.assumptions,
        TrainingAssumptions {
            dp_overlap: 0.5,
            tp_overlap: 1.0,
            device_mtbf_s: 7.2e6,
            checkpoint_bandwidth: 2e9,
            restart_s: 0.0,
            ..d
        }
    );
    for (text, key, says) in [
        (
            "[training]\noptimizer = \"sgd\"\n",
            "optimizer",
            "adam-8bit",
        ),
        (
            "[training]\ndp_overlap = 1.5\n",
            "dp_overlap",
            "from 0 to 1",
        ),
        (
            "[training]\ncp_overlap = nan\n",
            "cp_overlap",
            "from 0 to 1",
        ),
        (
            "[training]\nep_overlap = -0.1\n",
            "ep_overlap",
            "from 0 to 1",
        ),
        ("[training]\nmtbf = \"0h\"\n", "mtbf", "greater than zero"),
        ("[training]\nmtbf = \"50000\"\n", "mtbf", "unit"),
        (
            "[training]\ncheckpoint_bandwidth = \"1GB\"\n",
            "checkpoint_bandwidth",
            "unit",
        ),
        ("[training]\nrestart = \"-1s\"\n", "restart", "zero or more"),
        (
            "[training]\nmatmul_ceiling = \"high\"\n",
            "matmul_ceiling",
            "measured or flat",
        ),
        (
            "[training]\ncross_entropy = \"lazy\"\n",
            "cross_entropy",
            "fused or eager",
        ),
        (
            "[training]\nlow_precision_storage = \"fp16\"\n",
            "low_precision_storage",
            "narrow or bf16",
        ),
        (
            "[training]\ngrad_precision = \"fp16\"\n",
            "grad_precision",
            "param or fp32",
        ),
        (
            "[training]\nallocator_overhead = 1.5\n",
            "allocator_overhead",
            "from 0 to 1",
        ),
    ] {
        let e = one(text);
        assert_eq!(e.line, 2, "{key}: {e}");
        assert!(e.to_string().contains(key), "{key}: {e}");
        assert!(e.message.contains(says), "{key}: {e}");
    }
}

#[test]
fn explore_values_read_and_each_problem_is_at_its_key() {
    use crate::solver::explore::Objective;
    use crate::solver::{Precision, Precisions, Tier};
    let s = Scenario::parse(
        "e.toml",
        "view = \"explore\"\n[explore]\nx = \"ttft\"\ny = \"throughput\"\nhardware = \"workstation\"\nprecisions = \"fp8,int4/fp8/fp8\"\ntp = 4\nbatch = 64\nitl = \"50ms\"\ninfeasible = false\n",
    )
    .unwrap();
    let e = s.explore_inputs().unwrap();
    assert_eq!((e.x, e.y), (Objective::Ttft, Objective::TokensPerDevice));
    assert_eq!(e.hardware, ExploreHardware::Tier(Tier::Workstation));
    assert_eq!(
        e.precisions,
        [
            Precisions::named(Precision::Fp8),
            Precisions {
                weights: Precision::Int4,
                activations: Precision::Fp8,
                kv: Precision::Fp8
            }
        ]
    );
    // Absent keys keep the defaults: PP 1, no TTFT limit.
    assert_eq!((e.tp, e.pp, e.batch), (4, 1, 64));
    assert_eq!((e.ttft_s, e.itl_s), (None, Some(0.05)));
    assert!(!e.infeasible);
    for (text, key) in [
        ("[explore]\nx = \"speed\"\n", "x"),
        ("[explore]\ny = \"itl\"\n", "y"),
        ("[explore]\nhardware = \"moon\"\n", "hardware"),
        ("[explore]\nprecisions = \"fp9\"\n", "precisions"),
        ("[explore]\ntp = 0\n", "tp"),
        ("[explore]\nbatch = 2.5\n", "batch"),
        ("[explore]\nttft = \"-1ms\"\n", "ttft"),
    ] {
        let e = one(text);
        assert_eq!(e.line, 2, "{key}: {e}");
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
}

/// CAPSTONE with `regions` as its regions (shares left out).
fn with_regions(regions: &[String]) -> String {
    let quoted: Vec<String> = regions.iter().map(|r| format!("{r:?}")).collect();
    CAPSTONE.replace(
        r#"regions = ["us-east", "eu-west"]"#,
        &format!("regions = [{}]", quoted.join(", ")),
    )
}

#[test]
fn fifty_thousand_copies_of_a_region_are_one_region_but_257_different_are_refused() {
    let cat = crate::catalog::Catalog::builtin();
    // 50,000 copies of us-east and one eu-west: two different names, each
    // looked up once.
    let mut many = vec!["us-east".to_string(); 50_000];
    many.push("eu-west".into());
    let s = Scenario::parse_with("r.toml", &with_regions(&many), &cat).unwrap();
    assert_eq!(s.fleet.regions.len(), 50_001);
    // 257 different names: one problem at the key, at its line and column,
    // and no lookup of each.
    let different: Vec<String> = (0..257).map(|i| format!("r{i}")).collect();
    let text = with_regions(&different);
    let e = Scenario::parse_with("r.toml", &text, &cat).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    let line = text.lines().position(|l| l.starts_with("regions")).unwrap() + 1;
    assert_eq!((e.0[0].line, e.0[0].column), (line, 1), "{e}");
    assert!(
        e.0[0]
            .message
            .contains("257 different names; a list holds at most 256"),
        "{e}"
    );
}
