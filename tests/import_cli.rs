//! `ridgeline import` and `--model PATH` from the command line: the text
//! and JSON reports, the user catalog file written atomically (added,
//! replaced by id, every other entry kept, a broken file refused and left
//! alone), and a config missing a key refused with exit 2 naming it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh config directory of this test's own.
fn config_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-import-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(args)
        .env("RIDGELINE_CONFIG_DIR", config)
        .env_remove("COLUMNS")
        .output()
        .expect("run ridgeline")
}

fn ok(config: &Path, args: &[&str]) -> (String, String) {
    let out = run(config, args);
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{args:?}: {e}");
    (o, e)
}

fn json(config: &Path, args: &[&str]) -> Value {
    let (o, _) = ok(config, args);
    serde_json::from_str(&o).unwrap_or_else(|e| panic!("{args:?}: {e}: {o}"))
}

fn fixture(name: &str) -> String {
    format!("tests/fixtures/hf/{name}")
}

fn imports_file(config: &Path) -> PathBuf {
    config.join("catalog/models/imported.toml")
}

/// The models of the catalog, by id.
fn zoo_ids(config: &Path) -> Vec<String> {
    let v = json(config, &["zoo", "models", "-f", "json"]);
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn import_prints_what_it_derived_and_the_keys_it_used() {
    let cfg = config_dir("text");
    let (out, _) = ok(&cfg, &["import", &fixture("deepseek-v3")]);
    // The report wraps at 80 columns: compare with the spacing evened.
    let even = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    // `deepseek-v3` is a built-in id: the import takes the next free one.
    assert!(
        out.starts_with("added model `deepseek-v3-imported`"),
        "{out}"
    );
    for want in [
        "671B total, 37.6B active per token",
        "layers      61, hidden 7168, heads 128, KV heads 128, head dim 128",
        // 61 layers x (512 + 64) x 2 bytes = 70,272 bytes.
        "KV cache    70.3 kB per token in bf16",
        "experts     256 routed, top 8, 2048 wide; shared 2048 wide; 3 dense layer(s) of 18432",
        "MLA         KV latent 512, RoPE key 64, query latent 1536",
        "weights     fp8 (quantization_config: fp8 (e4m3))",
        // 688,586,727,753 bytes at 1 byte each vs 671,026,419,200: +2.62%.
        "the checkpoint holds 2.62% more",
        "keys used:",
        "  kv_lora_rank = 512",
        "  first_k_dense_replace = 3",
        "  quantization_config.quant_method = \"fp8\"",
    ] {
        assert!(
            even(&out).contains(&even(want)),
            "missing {want:?} in\n{out}"
        );
    }
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    // With --wide nothing is wrapped.
    let (wide, _) = ok(
        &cfg,
        &[
            "import",
            &fixture("deepseek-v3"),
            "--id",
            "my-dsv3",
            "--wide",
        ],
    );
    assert!(
        wide.contains(
            "experts     256 routed, top 8, 2048 wide; shared 2048 wide; 3 dense layer(s) of 18432\n"
        ),
        "{wide}"
    );
    // A key the file leaves out is listed with where its value comes from.
    let (out, _) = ok(&cfg, &["import", &fixture("gemma-3-4b-it"), "--id", "g3"]);
    assert!(
        even(&out).contains(
            "text_config.num_attention_heads = 8 (not in the file: Gemma3TextConfig default)"
        ),
        "{out}"
    );
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    assert!(
        out.contains("window      1024 tokens on 29 of 34 layers"),
        "{out}"
    );
}

#[test]
fn import_json_record() {
    let cfg = config_dir("json");
    let v = json(&cfg, &["import", &fixture("llama-3.1-8b"), "-f", "json"]);
    // `llama-3.1-8b` is a built-in id: the import takes the next free one.
    assert_eq!(v["id"], "llama-3.1-8b-imported");
    assert_eq!(v["action"], "added");
    assert_eq!(v["params"], 8_030_261_248.0);
    assert_eq!(v["active_params"], Value::Null);
    assert_eq!(v["kv_heads"], 8);
    // 2 x 32 layers x 8 KV heads x 128 x 2 bytes.
    assert_eq!(v["kv_bytes_per_token_bf16"], 131_072.0);
    assert_eq!(v["weights"], "bf16");
    // The index's 16,060,522,496 bytes are exactly 8,030,261,248 x 2.
    assert_eq!(v["safetensors_index"]["relative_difference"], 0.0);
    assert!(v["note"].as_str().unwrap().contains("already has a model"));
    let keys: Vec<&str> = v["keys_used"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"num_hidden_layers") && keys.contains(&"num_key_value_heads"));
    assert_eq!(
        PathBuf::from(v["file"].as_str().unwrap()),
        imports_file(&cfg)
    );
}

#[test]
fn imports_are_added_and_replaced_by_id_keeping_every_other_entry() {
    let cfg = config_dir("replace");
    let file = imports_file(&cfg);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // An entry written by hand, with a comment, before any import.
    let mine = "# my own\n[[model]]\nid = \"mine\"\nname = \"Mine\"\nfamily = \"mine\"\nkind = \"dense-decoder\"\nyear = 2025\nsource = \"me\"\nparams = 1e9\nlayers = 16\nhidden = 2048\nheads = 16\nhead_dim = 128\nffn = 8192\nvocab = 32000\nmax_context = 4096\n";
    std::fs::write(&file, mine).unwrap();
    ok(&cfg, &["import", &fixture("qwen3-8b"), "--id", "q"]);
    ok(
        &cfg,
        &["import", &fixture("mixtral-8x7b-v0.1"), "--id", "mx"],
    );
    let v = json(
        &cfg,
        &["import", &fixture("qwen3-0.6b"), "--id", "q", "-f", "json"],
    );
    assert_eq!(v["action"], "replaced");
    // The replaced entry came from another config.json: said.
    assert!(
        v["note"].as_str().unwrap().contains("qwen3-8b"),
        "{}",
        v["note"]
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(mine), "{text}");
    assert_eq!(text.matches("[[model]]").count(), 3, "{text}");
    // The file loads back: the replaced entry is the 0.6B now.
    let ids = zoo_ids(&cfg);
    for id in ["mine", "q", "mx"] {
        assert!(ids.contains(&id.to_string()), "{id} in {ids:?}");
    }
    let (check, _) = ok(&cfg, &["catalog", "check"]);
    assert!(!check.contains("imported.toml:"), "{check}");
    let zoo = json(&cfg, &["zoo", "models", "-f", "json"]);
    let q = zoo
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "q")
        .unwrap();
    assert_eq!(q["params"], 596_049_920.0);
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

#[test]
fn a_file_that_does_not_parse_is_left_alone() {
    let cfg = config_dir("broken-file");
    let file = imports_file(&cfg);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let broken = "[[model]]\nid = \"half\nname = \n";
    std::fs::write(&file, broken).unwrap();
    let out = run(&cfg, &["import", &fixture("gpt2")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not parse as TOML"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}

#[test]
fn a_config_missing_a_key_is_exit_2_naming_it() {
    let cfg = config_dir("missing");
    for args in [
        vec!["import".to_string(), fixture("broken")],
        vec![
            "eval".into(),
            "--model".into(),
            format!("{}/config.json", fixture("broken")),
        ],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&cfg, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("`num_hidden_layers`"), "{err}");
        assert!(out.stdout.is_empty());
    }
    assert!(!imports_file(&cfg).exists());
    // A folder without a config.json, and no such path.
    let out = run(&cfg, &["eval", "--model", "tests/fixtures"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no config.json"));
    let out = run(&cfg, &["eval", "--model", "./no/such/model"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file or directory"));
}

#[test]
fn eval_takes_a_model_path_and_its_weight_precision() {
    let cfg = config_dir("eval");
    let awq = fixture("qwen2.5-7b-instruct-awq");
    let out = run(&cfg, &["eval", "--model", &awq, "-f", "json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"], "qwen2.5-7b-instruct-awq");
    // quantization_config awq 4 bits: int4 weights unless asked otherwise.
    assert_eq!(v["weights_precision"], "int4");
    assert_eq!(v["activations_precision"], "bf16");
    // 7,615,616,512 weights at half a byte.
    assert_eq!(v["weights_bytes"], 7_615_616_512.0 * 0.5);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("weights int4: the checkpoint's precision"),
        "{err}"
    );
    assert!(err.contains("7.62B total"), "{err}");
    // A precision given wins.
    let v: Value = serde_json::from_slice(
        &run(
            &cfg,
            &["eval", "--model", &awq, "--weights", "fp8", "-f", "json"],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(v["weights_precision"], "fp8");
    // The figures of the built-in entry of the same shape: Llama 3.1 8B's
    // config gives the built-in llama-3.1-8b's KV cache, and its latency to
    // within the built-in's rounding of the parameters (8.03e9 for
    // 8,030,261,248: 3.3e-5 relative).
    let path = fixture("llama-3.1-8b");
    let a = json(&cfg, &["eval", "--model", &path, "-f", "json"]);
    let b = json(&cfg, &["eval", "--model", "llama-3.1-8b", "-f", "json"]);
    assert_eq!(a["model"], "llama-3.1-8b-imported");
    assert_eq!(a["kv_bytes"], b["kv_bytes"]);
    let (la, lb) = (
        a["latency_s"].as_f64().unwrap(),
        b["latency_s"].as_f64().unwrap(),
    );
    assert!(((la - lb) / lb).abs() < 3.3e-5, "{la} {lb}");
}

#[test]
fn every_model_command_takes_a_path() {
    let cfg = config_dir("every");
    let p = fixture("qwen3-8b");
    for args in [
        vec!["sens", "--model", &p],
        vec!["synth", "--model", &p, "--target", "50ms"],
        vec!["compare", "--model", &p, "-H", "h100,a100"],
        vec!["sweep", "--model", &p, "--batch", "1..8"],
        vec!["serve", "--model", &p],
        vec![
            "fleet", "--model", &p, "--qps", "10", "--ttft", "1s", "--itl", "100ms",
        ],
        vec!["train", "--model", &p, "--devices", "8"],
    ] {
        let out = run(&cfg, &args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("qwen3-8b"),
            "{args:?}"
        );
    }
}

#[test]
fn a_path_imported_before_is_its_catalog_entry() {
    let cfg = config_dir("again");
    ok(&cfg, &["import", &fixture("gpt-neox-20b")]);
    let v = json(
        &cfg,
        &["eval", "--model", &fixture("gpt-neox-20b"), "-f", "json"],
    );
    assert_eq!(v["model"], "gpt-neox-20b");
}

/// The `name` of a catalog model, as `zoo models` lists it.
fn zoo_name(config: &Path, id: &str) -> String {
    let v = json(config, &["zoo", "models", "-f", "json"]);
    v.as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {v}"))["name"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The case: a folder called `qwen14` imported with `--id
/// qwen2.5-14b` used to keep the folder's name for people.
#[test]
fn an_id_given_names_the_model_unless_a_name_is_given() {
    let cfg = config_dir("named");
    let folder = cfg.join("downloads/qwen14");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture("qwen2.5-7b") + "/config.json",
        folder.join("config.json"),
    )
    .unwrap();
    let path = folder.display().to_string();
    // Without --id the folder names it.
    let v = json(&cfg, &["import", &path, "-f", "json"]);
    assert_eq!(
        (v["id"].as_str(), v["name"].as_str()),
        (Some("qwen14"), Some("qwen14"))
    );
    // With --id the name is read off the id: hyphens to spaces, capitals
    // at the start of each word and on the size's unit.
    let v = json(
        &cfg,
        &["import", &path, "--id", "qwen2.5-14b", "-f", "json"],
    );
    assert_eq!(v["name"], "Qwen2.5 14B");
    assert_eq!(zoo_name(&cfg, "qwen2.5-14b"), "Qwen2.5 14B");
    // --name wins over both, on a new entry and on a replaced one.
    let v = json(
        &cfg,
        &[
            "import",
            &path,
            "--id",
            "qwen2.5-14b",
            "--name",
            "Qwen 14 (mine)",
            "-f",
            "json",
        ],
    );
    assert_eq!(
        (v["action"].as_str(), v["name"].as_str()),
        (Some("replaced"), Some("Qwen 14 (mine)"))
    );
    assert_eq!(zoo_name(&cfg, "qwen2.5-14b"), "Qwen 14 (mine)");
    // An empty name is refused, with exit 2, and nothing is written.
    let before = std::fs::read_to_string(imports_file(&cfg)).unwrap();
    let out = run(&cfg, &["import", &path, "--id", "x", "--name", " "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--name is empty"));
    // So is one with a line break in it, naming the character.
    let out = run(&cfg, &["import", &path, "--id", "x", "--name", "a\nb"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("U+000A"));
    assert_eq!(std::fs::read_to_string(imports_file(&cfg)).unwrap(), before);
}

/// Importing the same config again without --id replaces the entry made
/// from it before (under the id and name it was given), leaving every other
/// byte of the file as it was; a different config is a second entry.
#[test]
fn the_same_config_twice_is_one_entry_a_different_one_two() {
    let cfg = config_dir("same");
    let file = imports_file(&cfg);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mine = "# my own\n[[model]]\nid = \"mine\"\nname = \"Mine\"\nfamily = \"mine\"\nkind = \"dense-decoder\"\nyear = 2025\nsource = \"me\"\nparams = 1e9\nlayers = 16\nhidden = 2048\nheads = 16\nhead_dim = 128\nffn = 8192\nvocab = 32000\nmax_context = 4096\n";
    std::fs::write(&file, mine).unwrap();
    let q8 = fixture("qwen3-8b");
    ok(&cfg, &["import", &q8, "--id", "q8"]);
    let once = std::fs::read_to_string(&file).unwrap();
    // The same config.json again, without --id: its entry is replaced,
    // keeping the id and name the first import gave it.
    let v = json(&cfg, &["import", &q8, "-f", "json"]);
    assert_eq!(v["action"], "replaced");
    assert_eq!(
        (v["id"].as_str(), v["name"].as_str()),
        (Some("q8"), Some("Q8"))
    );
    assert!(
        v["note"].as_str().unwrap().contains("imported before"),
        "{v}"
    );
    // The same figures for the same year: the file is byte for byte the
    // one the first import wrote, hand-written entry and comment included.
    let twice = std::fs::read_to_string(&file).unwrap();
    assert_eq!(twice, once);
    assert!(twice.starts_with(mine));
    assert_eq!(twice.matches("[[model]]").count(), 2, "{twice}");
    // Without --id on both imports: one entry too.
    ok(&cfg, &["import", &fixture("gpt2")]);
    let v = json(&cfg, &["import", &fixture("gpt2"), "-f", "json"]);
    assert_eq!(v["action"], "replaced");
    // A different config (Qwen3 0.6B beside Qwen3 8B) is an entry of its own.
    let v = json(&cfg, &["import", &fixture("qwen3-0.6b"), "-f", "json"]);
    assert_eq!(v["action"], "added");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("[[model]]").count(), 4, "{text}");
    let ids = zoo_ids(&cfg);
    for id in ["mine", "q8", "gpt2-imported", "qwen3-0.6b"] {
        assert!(ids.contains(&id.to_string()), "{id} in {ids:?}");
    }
    // --id still adds the same config under another id when asked to.
    let v = json(&cfg, &["import", &q8, "--id", "q8-copy", "-f", "json"]);
    assert_eq!(v["action"], "added");
}

/// Two folders of the same name hold different configs: the derived id is
/// the same, so the second replaces the first (an id decides), and says
/// which file the replaced entry came from and how to keep both.
#[test]
fn a_different_config_under_the_same_derived_id_says_what_it_replaces() {
    let cfg = config_dir("same-id");
    let (a, b) = (cfg.join("run1/ckpt"), cfg.join("run2/ckpt"));
    for (dir, from) in [(&a, "qwen3-8b"), (&b, "qwen3-0.6b")] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::copy(fixture(from) + "/config.json", dir.join("config.json")).unwrap();
    }
    let v = json(&cfg, &["import", &a.display().to_string(), "-f", "json"]);
    assert_eq!((v["id"].as_str(), v["note"].as_str()), (Some("ckpt"), None));
    let v = json(&cfg, &["import", &b.display().to_string(), "-f", "json"]);
    assert_eq!(
        (v["id"].as_str(), v["action"].as_str()),
        (Some("ckpt"), Some("replaced"))
    );
    let note = v["note"].as_str().unwrap();
    assert!(
        note.contains("run1") && note.contains("another --id keeps both"),
        "{note}"
    );
    // Kept both when asked: the 8B back under its own id.
    let v = json(
        &cfg,
        &[
            "import",
            &a.display().to_string(),
            "--id",
            "ckpt-8b",
            "-f",
            "json",
        ],
    );
    assert_eq!(v["action"], "added");
    let ids = zoo_ids(&cfg);
    assert!(
        ids.contains(&"ckpt".into()) && ids.contains(&"ckpt-8b".into()),
        "{ids:?}"
    );
}

#[test]
fn an_id_that_is_another_models_alias_is_refused_and_said_so() {
    let cfg = config_dir("alias-id");
    // `llama3.1-8b` is an alias of the built-in `llama-3.1-8b`
    // (catalog/models/llama-3.toml): an entry of that id would be skipped
    // at every load, so nothing is written.
    let out = run(
        &cfg,
        &["import", &fixture("gemma-7b"), "--id", "llama3.1-8b"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--id llama3.1-8b: that is an alias of the model `llama-3.1-8b`"),
        "{err}"
    );
    assert!(!err.contains("already has a model by that name"), "{err}");
    assert!(!imports_file(&cfg).exists());
}

#[test]
fn a_refusal_shows_the_imports_file_path_escaped() {
    // A config directory whose name carries a clear-screen and a
    // right-to-left override; its imports file does not parse.
    let cfg = config_dir("esc\u{1b}[2J\u{202e}dir");
    let file = imports_file(&cfg);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "[[model]]\nid = \"half\n").unwrap();
    let out = run(&cfg, &["import", &fixture("gpt2")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("esc\\u{1b}[2J\\u{202e}dir"), "{err}");
    assert!(!err.contains(['\u{1b}', '\u{202e}']), "{err:?}");
    std::fs::remove_dir_all(&cfg).ok();
}

#[test]
fn a_model_folder_named_with_format_characters_is_echoed_escaped() {
    let cfg = config_dir("bidi-json");
    // A model folder whose name reverses the text after it on a terminal:
    // its path would be the entry's `source`, which must be plain text.
    let folder = cfg.join("evil\u{202e}nosj.exe\u{200b}");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(fixture("gpt2") + "/config.json", folder.join("config.json")).unwrap();
    let path = folder.display().to_string();
    let out = run(&cfg, &["import", &path, "--id", "evil", "-f", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("U+202E"), "{err}");
    assert!(!err.contains(['\u{202e}', '\u{200b}']), "{err:?}");
    assert!(out.stdout.is_empty());
    assert!(!imports_file(&cfg).exists());
    std::fs::remove_dir_all(&cfg).ok();
}
