use super::*;
use crate::solver::{Arch, Precision, Tier};
use std::collections::HashSet;

#[test]
fn builtin_catalog_loads_without_a_single_diagnostic() {
    let c = Catalog::builtin();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    assert!(c.hardware.len() >= 30, "{} devices", c.hardware.len());
    assert!(c.models.len() >= 25, "{} models", c.models.len());
    assert!(c.regions.len() >= 8, "{} regions", c.regions.len());
    for tier in Tier::ALL {
        assert!(
            c.hardware.iter().any(|e| e.hw.tier == tier),
            "no {} device",
            tier.name()
        );
    }
}

#[test]
fn required_ids_and_aliases_resolve() {
    let c = Catalog::builtin();
    for id in [
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.3-70b",
        "llama-3.1-405b",
        "mixtral-8x7b",
        "deepseek-v3",
        "gpt-3",
        "resnet-50",
        "mobilenet-v2",
        "bert-base",
        "llama3-70b",
        "LLAMA-3.1-70B",
    ] {
        assert!(c.model(id).is_ok(), "model {id}");
    }
    for id in [
        "h100-sxm",
        "a100-sxm-80gb",
        "h100",
        "a100",
        "h200",
        "b200",
        "mi300x",
        "H100",
        "esp32-s3",
        "nrf52840",
    ] {
        assert!(c.hardware(id).is_ok(), "hardware {id}");
    }
    assert_eq!(c.hardware("a100").unwrap().hw.id, "a100-sxm-80gb");
    assert_eq!(c.hardware("h100").unwrap().hw.id, "h100-sxm");
}

#[test]
fn ids_and_aliases_are_unique_per_kind() {
    let c = Catalog::builtin();
    let mut seen = HashSet::new();
    for e in &c.hardware {
        for n in std::iter::once(&e.hw.id).chain(&e.aliases) {
            assert!(seen.insert(n.clone()), "hardware name {n} repeats");
        }
    }
    let mut seen = HashSet::new();
    for e in &c.models {
        for n in std::iter::once(&e.model.id).chain(&e.aliases) {
            assert!(seen.insert(n.clone()), "model name {n} repeats");
        }
    }
}

#[test]
fn every_figure_has_a_source_and_every_entry_a_year() {
    let c = Catalog::builtin();
    for e in &c.hardware {
        assert!(
            e.source.starts_with("http") || e.source.len() > 20,
            "{}: weak source {:?}",
            e.hw.id,
            e.source
        );
        assert!(
            (1990..=2030).contains(&e.hw.year),
            "{} year {}",
            e.hw.id,
            e.hw.year
        );
        if let Some(p) = &e.price {
            assert!(
                !p.source.is_empty() && !p.as_of.is_empty(),
                "{} price needs source and as_of",
                e.hw.id
            );
        }
    }
    for e in &c.models {
        assert!(!e.source.is_empty(), "{}", e.model.id);
        assert!(
            (1990..=2030).contains(&e.year),
            "{} year {}",
            e.model.id,
            e.year
        );
    }
    for r in &c.regions {
        assert!(!r.source.is_empty(), "{}", r.id);
    }
}

#[test]
fn ridge_points_are_plausible() {
    let c = Catalog::builtin();
    // shared/reference/hardware.md: H100 bf16 989e12 / 3.35e12 = 295 FLOP/B;
    // A100 312e12 / 2.039e12 = 153; B200 2.25e15 / 8e12 = 281; TPU v5e 197e12 / 819e9 = 240.
    for (id, ridge) in [
        ("h100-sxm", 295.0),
        ("a100-sxm-80gb", 153.0),
        ("b200", 281.0),
        ("tpu-v5e", 240.0),
    ] {
        let r = c
            .hardware(id)
            .unwrap()
            .hw
            .ridge_point(Precision::Bf16)
            .unwrap();
        assert!((r / ridge - 1.0).abs() < 0.02, "{id}: {r}");
    }
    // Every device: ridge between 0.001 (an RP2040 has no FPU) and 10,000 FLOP/B (an Edge TPU fed
    // over USB sits near the top) at bf16 or its fallback.
    for e in &c.hardware {
        let (_, peak) = e.hw.peaks.resolve(Precision::Bf16).unwrap();
        let r = peak / e.hw.memory_bandwidth;
        assert!((0.001..10_000.0).contains(&r), "{}: ridge {r}", e.hw.id);
    }
}

#[test]
fn published_model_shapes() {
    let c = Catalog::builtin();
    // shared/reference/models.md: Llama-3.1-70B bf16 KV = 327,680 B/token, 8B = 131,072.
    let kv = |id: &str| match &c.model(id).unwrap().model.arch {
        Arch::Decoder(d) => d.kv_bytes_per_token(2.0),
        _ => panic!("{id} is a decoder"),
    };
    assert_eq!(kv("llama-3.1-70b"), 327_680.0);
    assert_eq!(kv("llama-3.1-8b"), 131_072.0);
    // DeepSeek-V3 MLA: 61 * (512 + 64) * 2 = 70,272 B/token.
    assert_eq!(kv("deepseek-v3"), 70_272.0);
    assert_eq!(
        c.model("llama-3.1-70b").unwrap().model.params * 2.0,
        141.1e9
    );
}

#[test]
fn a_broken_user_file_is_reported_with_its_position_and_the_rest_loads() {
    let mut c = Catalog::builtin();
    let n = c.hardware.len();
    c.add_hardware_file(
        "user/hardware/broken.toml",
        "[[device]]\nid = \"x\"\nname = \n",
    );
    assert_eq!(c.diagnostics.len(), 1);
    let d = &c.diagnostics[0];
    assert_eq!((d.line, d.column), (3, 8), "{d}");
    assert!(
        d.to_string()
            .starts_with("user/hardware/broken.toml:3:8: not valid TOML"),
        "{d}"
    );
    assert_eq!(c.hardware.len(), n, "the built-in devices stay");
}

const GOOD: &str = r#"
[[device]]
id = "my-gpu"
aliases = ["mine"]
name = "My GPU"
vendor = "Me"
tier = "workstation"
year = 2025
source = "my own measurement, 2025-06"
memory = "24 GB"
memory_bandwidth = "1 TB/s"
[device.peak]
bf16 = "100 TFLOPS"
"#;

/// Entry `e` written as the catalog writes it and read back, with no
/// diagnostic.
fn reloaded(e: &HardwareEntry) -> HardwareEntry {
    let text = super::write::device_toml(e);
    let mut again = Catalog::default();
    again.add_hardware_file("again.toml", &text);
    assert!(
        again.diagnostics.is_empty(),
        "{text}\n{:?}",
        again.diagnostics
    );
    again.hardware[0].clone()
}

/// `text` as a hardware file: no device loads, and a message contains
/// `expect` (what to fix).
fn refused(text: &str, expect: &str) {
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", text);
    assert!(c.hardware.is_empty(), "{text}");
    assert!(
        c.diagnostics.iter().any(|d| d.message.contains(expect)),
        "{expect}: {:?}",
        c.diagnostics
    );
}

#[test]
fn a_bad_entry_is_skipped_with_its_line_and_its_neighbours_load() {
    let text = format!(
        "{GOOD}\n[[device]]\nid = \"bad-gpu\"\nname = \"Bad\"\nvendor = \"Me\"\ntier = \"workstation\"\nyear = 2025\nsource = \"x\"\nmemory = \"24 GB\"\nmemory_bandwidth = \"1 TBs\"\n[device.peak]\nbf16 = \"1 TFLOPS\"\n"
    );
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &text);
    assert_eq!(c.hardware.len(), 1);
    assert_eq!(c.hardware[0].hw.id, "my-gpu");
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
    let d = &c.diagnostics[0];
    // The bad line: `memory_bandwidth = "1 TBs"` is line 23 of the text.
    let line = text.lines().position(|l| l.contains("1 TBs")).unwrap() + 1;
    assert_eq!(d.line, line, "{d}");
    assert!(
        d.message.contains("memory_bandwidth") && d.message.contains("TB/s"),
        "{d}"
    );
}

#[test]
fn unknown_fields_zero_and_negative_values_are_reported() {
    for (bad, expect) in [
        (GOOD.replace("memory = ", "memroy = "), "unknown field"),
        (GOOD.replace("\"24 GB\"", "\"0 GB\""), "greater than zero"),
        (
            GOOD.replace("\"1 TB/s\"", "\"-1 TB/s\""),
            "greater than zero",
        ),
        (
            GOOD.replace("\"100 TFLOPS\"", "\"NaN TFLOPS\""),
            "no number",
        ),
        (GOOD.replace("workstation", "desk"), "unknown tier"),
        (GOOD.replace("my-gpu", "My GPU"), "kebab"),
    ] {
        refused(&bad, expect);
    }
}

#[test]
fn user_files_override_and_add_by_id() {
    let dir = std::env::temp_dir().join(format!("ridgeline-cat-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("hardware")).unwrap();
    std::fs::write(
        dir.join("hardware/mine.toml"),
        GOOD.to_string()
            + &GOOD
                .replace("my-gpu", "h100-sxm")
                .replace("mine", "h100-mine"),
    )
    .unwrap();
    let c = Catalog::load(Some(&dir));
    std::fs::remove_dir_all(&dir).ok();
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert_eq!(c.hardware("mine").unwrap().hw.id, "my-gpu");
    // The built-in h100-sxm is replaced, not duplicated.
    assert_eq!(
        c.hardware.iter().filter(|e| e.hw.id == "h100-sxm").count(),
        1
    );
    assert_eq!(c.hardware("h100-sxm").unwrap().hw.memory_bandwidth, 1e12);
}

#[test]
fn unknown_ids_name_the_closest() {
    let c = Catalog::builtin();
    let e = c.hardware("h10").unwrap_err();
    assert!(e.suggestions.iter().any(|s| s.starts_with("h100")), "{e}");
    let e = c.model("lama-3.1-70b").unwrap_err();
    assert_eq!(e.suggestions[0], "llama-3.1-70b", "{e}");
    assert!(e.to_string().contains("zoo models"));
}

#[test]
fn the_schema_lists_the_accepted_ranges_the_code_uses() {
    let schema = include_str!("../../catalog/SCHEMA.md");
    let mut table = String::from("| fields | accepted range |\n|---|---|\n");
    for (fields, range) in limits::schema_rows() {
        table.push_str(&format!("| {fields} | {range} |\n"));
    }
    let start = schema
        .find("<!-- ranges:start")
        .expect("ranges:start marker");
    let body = &schema[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let end = body.find("<!-- ranges:end -->").expect("ranges:end marker");
    assert_eq!(&body[..end], table, "catalog/SCHEMA.md's table");
}

#[test]
fn a_file_with_a_thousand_problems_keeps_two_hundred_and_counts_the_rest() {
    // One entry with 1,000 unknown fields: 1,001 problems with the missing
    // fields; 200 are kept (fields::MAX_PROBLEMS), 801 counted, at the end
    // of the file (1,001 lines and a last newline: line 1,002).
    let mut text = String::from("[[device]]\n");
    for i in 0..1000 {
        text.push_str(&format!("x{i} = 1\n"));
    }
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &text);
    assert_eq!(c.diagnostics.len(), fields::MAX_PROBLEMS + 1);
    let last = c.diagnostics.last().unwrap();
    assert_eq!(
        last.to_string(),
        "u.toml:1002:1: ... and 801 more problems in this file (the first 200 are listed)"
    );
}

/// A small MoE entry with every shape key a config.json can give.
const MOE: &str = r#"
[[model]]
id = "tiny-moe"
name = "Tiny MoE"
family = "test"
kind = "moe-decoder"
year = 2026
source = "test"
params = 5e9
layers = 10
hidden = 2048
heads = 16
head_dim = 128
ffn = 512
vocab = 32000
max_context = 8192
experts = 64
top_k = 4
active_params = 1e9
shared_ffn = 1024
dense_layers = 2
dense_ffn = 8192
kv_latent = 512
rope_dim = 64
q_latent = 1536
sliding_window = 4096
window_layers = 5
"#;

#[test]
fn the_shape_keys_of_a_config_are_read_and_checked() {
    let mut c = Catalog::default();
    c.add_model_file("m.toml", MOE);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let Arch::Decoder(d) = c.model("tiny-moe").unwrap().model.arch else {
        panic!("a decoder")
    };
    let moe = d.moe.unwrap();
    assert_eq!(
        (moe.shared_ffn, moe.dense_layers, moe.dense_ffn),
        (1024, 2, 8192)
    );
    assert_eq!(d.mla.unwrap().q_latent, 1536);
    assert_eq!(d.window.map(|w| (w.tokens, w.layers)), Some((4096, 5)));
    assert!(d.gated_mlp);
    for (bad, expect) in [
        (
            MOE.replace("dense_layers = 2", "dense_layers = 10"),
            "must be fewer than layers",
        ),
        (MOE.replace("dense_ffn = 8192\n", ""), "needs `dense_ffn`"),
        (
            MOE.replace("sliding_window = 4096\n", ""),
            "window_layers goes with sliding_window",
        ),
        (
            MOE.replace("window_layers = 5", "window_layers = 11"),
            "more than layers",
        ),
        (
            MOE.replace("kv_latent = 512\nrope_dim = 64\n", ""),
            "q_latent goes with kv_latent",
        ),
        (
            MOE.replace("moe-decoder", "dense-decoder")
                .replace("experts = 64\ntop_k = 4\nactive_params = 1e9\n", ""),
            "`shared_ffn` is only for kind = \"moe-decoder\"",
        ),
        (
            MOE.replace("window_layers = 5", "gated_mlp = 1"),
            "true or false",
        ),
    ] {
        let mut c = Catalog::default();
        c.add_model_file("m.toml", &bad);
        assert!(c.models.is_empty(), "{bad}");
        assert!(
            c.diagnostics.iter().any(|d| d.message.contains(expect)),
            "{expect}: {:?}",
            c.diagnostics
        );
    }
}

#[test]
fn an_empty_config_dir_variable_is_unset_and_the_user_catalog_is_absolute() {
    let unset = config_dir_from(None);
    assert_eq!(config_dir_from(Some("".into())), unset);
    let here = std::env::current_dir().unwrap();
    assert_eq!(
        config_dir_from(Some("conf".into())),
        Some(here.join("conf"))
    );
    if let Some(d) = &unset {
        assert!(d.is_absolute(), "{d:?}");
    }
    let user = user_catalog_dir(Some(Path::new("catalog"))).unwrap();
    assert_eq!(user, here.join("catalog"));
    // A built-in origin is a relative name: never inside an absolute dir.
    let nvidia = "catalog/hardware/nvidia-datacenter.toml";
    assert!(is_builtin_origin(nvidia));
    assert!(!Path::new(nvidia).starts_with(&user));
    assert!(!is_builtin_origin(
        &user.join("hardware/user.toml").display().to_string()
    ));
}

#[test]
fn a_user_directory_holding_the_shipped_files_adds_nothing_of_its_own() {
    // The repository's own catalog/ as the user catalog (a config directory
    // pointing at a checkout): its files are the built-in ones, byte for
    // byte, so no entry becomes the user's.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    let c = Catalog::load(Some(&shipped));
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let b = Catalog::builtin();
    assert_eq!(c.hardware.len(), b.hardware.len());
    assert!(c.hardware.iter().all(|e| is_builtin_origin(&e.origin)));
    assert!(c.regions.iter().all(|r| is_builtin_origin(&r.origin)));
    let text = std::fs::read_to_string(shipped.join("regions.toml")).unwrap();
    assert!(is_builtin_text(&text));
    assert!(!is_builtin_text(&format!("{text}\n")));
}

/// `GOOD` with `n` aliases "a0", "a1", ... and each of them written
/// `copies` times.
fn with_aliases(n: usize, copies: usize) -> String {
    let names: Vec<String> = (0..copies)
        .flat_map(|_| (0..n).map(|i| format!("\"a{i}\"")))
        .collect();
    GOOD.replace(
        "aliases = [\"mine\"]",
        &format!("aliases = [{}]", names.join(",")),
    )
}

#[test]
fn an_entry_with_more_than_64_aliases_is_a_problem_at_the_65th() {
    // 100,000 aliases once made every command take 12.5 s (each checked
    // against all those kept before it).
    let text = with_aliases(100_000, 1);
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &text);
    assert!(c.hardware.is_empty());
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
    let d = &c.diagnostics[0];
    assert!(
        d.message
            .contains("100000 different aliases, more than the 64 accepted"),
        "{d}"
    );
    // Placed at the 65th alias, "a64": its column is one past the comma
    // after "a63".
    let line = &text.lines().nth(d.line - 1).unwrap()[..d.column - 1];
    assert!(line.ends_with("\"a63\","), "{d}");
}

#[test]
fn sixty_four_aliases_load_and_repeats_of_them_merge() {
    // 64 aliases each written 1,000 times: 64,000 names, 64 different,
    // each kept once.
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &with_aliases(64, 1000));
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert_eq!(c.hardware[0].aliases.len(), 64);
    assert_eq!(c.hardware("a63").unwrap().hw.id, "my-gpu");
    // One more different one is over the cap.
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &with_aliases(65, 1));
    assert!(c.hardware.is_empty());
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
}

#[test]
fn a_name_longer_than_any_id_gets_no_suggestion_and_no_search() {
    // Closest names are edit distances, each the product of the two
    // lengths: a 100,000-character name is not a typo of any id.
    let c = Catalog::builtin();
    let e = c.hardware(&"h".repeat(100_000)).err().unwrap();
    assert!(e.suggestions.is_empty());
    // A short unknown name still gets its closest ids.
    assert!(!c.hardware("h10").err().unwrap().suggestions.is_empty());
}

#[test]
fn a_measured_matmul_ceiling_is_read_checked_against_its_peak_and_written_back() {
    // 80 of 100 TFLOP/s: a share of 0.8.
    let good = format!("{GOOD}[device.matmul]\nbf16 = \"80 TFLOPS\"\n");
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &good);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let hw = &c.hardware[0].hw;
    assert_eq!(hw.matmul.get(Precision::Bf16), Some(80e12));
    assert_eq!(hw.matmul_share(Precision::Bf16), Some(0.8));
    // Written back and read again, the same figure.
    assert_eq!(reloaded(&c.hardware[0]).hw.matmul, hw.matmul);
    // Above its peak, at a format with no peak, or in an unknown format:
    // the entry is refused with a message that says what to fix.
    for (bad, expect) in [
        ("bf16 = \"120 TFLOPS\"", "above the peak"),
        ("fp8 = \"50 TFLOPS\"", "has no [device.peak] fp8"),
        (
            "bf17 = \"50 TFLOPS\"",
            "unknown precision `bf17` in [device.matmul]",
        ),
        ("bf16 = \"-5 TFLOPS\"", "greater than zero"),
    ] {
        refused(&format!("{GOOD}[device.matmul]\n{bad}\n"), expect);
    }
    // Every built-in measurement is below its peak and cites its source.
    for e in &Catalog::builtin().hardware {
        for p in Precision::ALL {
            if let Some(s) = e.hw.matmul_share(p) {
                assert!(s > 0.3 && s < 1.0, "{} {p}: {s}", e.hw.id);
                assert!(e.sources.contains_key("matmul"), "{}", e.hw.id);
            }
        }
    }
}

#[test]
fn a_memory_type_and_an_fp16_accumulate_peak_are_read_checked_and_written_back() {
    // A GeForce-like card: 100 TFLOP/s fp16 with FP32 accumulate, 200 with
    // FP16 accumulate, GDDR6X memory.
    let good = GOOD
        .replace(
            "memory_bandwidth = \"1 TB/s\"\n",
            "memory_bandwidth = \"1 TB/s\"\nmemory_type = \"GDDR6X\"\n",
        )
        .replace(
            "bf16 = \"100 TFLOPS\"\n",
            "bf16 = \"100 TFLOPS\"\nfp16 = \"100 TFLOPS\"\nfp16_with_fp16_accumulate = \"200 TFLOPS\"\n",
        );
    let mut c = Catalog::default();
    c.add_hardware_file("u.toml", &good);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let e = &c.hardware[0];
    assert_eq!(e.memory_type.as_deref(), Some("GDDR6X"));
    assert_eq!(e.hw.peaks.fp16_acc16, Some(200e12));
    // Written back and read again, the same entry.
    let again = reloaded(e);
    assert_eq!(again.memory_type, e.memory_type);
    assert_eq!(again.hw.peaks, e.hw.peaks);
    // Each mistake refuses the entry with a message that says what to fix.
    for (from, to, expect) in [
        (
            "memory_type = \"GDDR6X\"",
            "memory_type = \"fast\"",
            "is not a DRAM technology; write one like",
        ),
        (
            "fp16_with_fp16_accumulate = \"200 TFLOPS\"",
            "fp16_with_fp16_accumulate = \"50 TFLOPS\"",
            "is below fp16",
        ),
        (
            "fp16 = \"100 TFLOPS\"\n",
            "",
            "needs the fp16 peak (FP32 accumulate) beside it",
        ),
        (
            "fp16_with_fp16_accumulate = \"200 TFLOPS\"",
            "fp16_acc = \"200 TFLOPS\"",
            "unknown precision `fp16_acc` in [device.peak]; use fp32 tf32 bf16 fp16 fp8 int8 fp4 int4 (or fp16_with_fp16_accumulate)",
        ),
    ] {
        let text = good.replace(from, to);
        assert_ne!(text, good, "{from}");
        refused(&text, expect);
    }
    // The measured-matmul table takes precisions only.
    refused(
        &format!("{GOOD}[device.matmul]\nfp16_with_fp16_accumulate = \"50 TFLOPS\"\n"),
        "unknown precision `fp16_with_fp16_accumulate` in [device.matmul]",
    );
    // The built-in GeForce cards carry their whitepapers' FP16-accumulate
    // rates, twice their FP32-accumulate ones (RTX 4090 330.3 against
    // 165.2, RTX 5090 419 against 209.5); no other device has one.
    let b = Catalog::builtin();
    for e in &b.hardware {
        match (e.hw.id.as_str(), e.hw.peaks.fp16_acc16) {
            ("rtx-4090", Some(x)) => assert_eq!(x, 330.3e12),
            ("rtx-5090", Some(x)) => assert_eq!(x, 419e12),
            (id, x) => assert_eq!(x, None, "{id}"),
        }
    }
}

#[test]
fn the_matmul_shares_docs_training_quotes_are_the_catalogs() {
    // docs/training.md, "The matmul ceiling": each device's measured
    // matmul FLOP/s over its catalog peak, to one decimal of a percent.
    let c = Catalog::builtin();
    let share = |id: &str, p: Precision| {
        let s = c.hardware(id).unwrap().hw.matmul_share(p).unwrap();
        format!("{:.1}%", s * 100.0)
    };
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md"))
        .unwrap()
        .replace('\n', " ");
    for (label, id, p) in [
        ("the A100 SXM", "a100-sxm-80gb", Precision::Bf16),
        ("the H100 SXM", "h100-sxm", Precision::Bf16),
        ("the B200", "b200", Precision::Bf16),
        ("the GB200", "gb200", Precision::Bf16),
        ("the MI325X", "mi325x", Precision::Bf16),
        ("the MI300X", "mi300x", Precision::Bf16),
        ("in fp8 the H100", "h100-sxm", Precision::Fp8),
        ("the H200", "h200-sxm", Precision::Fp8),
        ("the B200", "b200", Precision::Fp8),
    ] {
        let quoted = format!("{label} {}", share(id, p));
        assert!(docs.contains(&quoted), "{quoted}");
    }
    // The H200's bf16 ceiling is the H100's ("the H200 the same").
    assert_eq!(
        share("h200-sxm", Precision::Bf16),
        share("h100-sxm", Precision::Bf16)
    );
}
