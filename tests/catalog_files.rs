//! Catalog, theme and key files as a careless or hostile user writes them:
//! special files, huge files, duplicate names, escape sequences, absurd
//! figures, inconsistent models, a `--catalog` that is not there. Through
//! the binary where the user meets it, through the library where the
//! workbench reads its files.

use ridgeline::catalog::Catalog;
use ridgeline::tui::keymap::Keymap;
use ridgeline::tui::theme::{self, ThemeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A hang guard, not a speed measurement: every command here takes well
/// under a second; one that blocks (a FIFO opened for reading) never ends.
const HANG: Duration = Duration::from_secs(30);

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("hardware")).unwrap();
    std::fs::create_dir_all(d.join("models")).unwrap();
    d
}

fn empty_config() -> PathBuf {
    let d = std::env::temp_dir().join("ridgeline-test-empty-config");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run the binary with a hang guard; None if it had to be killed.
fn run(args: &[&str]) -> Option<Output> {
    let child = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(args)
        .env("RIDGELINE_CONFIG_DIR", empty_config())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ridgeline");
    let pid = child.id().to_string();
    // Read the output on a thread (a full pipe must not stall the child).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => Some(out.expect("output")),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            None
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn check(d: &Path) -> (i32, String) {
    let out = run(&["catalog", "check", d.to_str().unwrap()]).expect("catalog check ends");
    (out.status.code().unwrap_or(-1), text(&out.stdout))
}

/// A device entry; `extra` lines go before the peak table.
fn device(id: &str, extra: &str) -> String {
    format!(
        "[[device]]\nid = \"{id}\"\nname = \"{id}\"\nvendor = \"Me\"\ntier = \"workstation\"\nyear = 2025\nsource = \"my measurement\"\nmemory = \"24 GB\"\nmemory_bandwidth = \"1 TB/s\"\n{extra}[device.peak]\nbf16 = \"100 TFLOPS\"\n\n"
    )
}

fn mkfifo(p: &Path) -> bool {
    Command::new("mkfifo")
        .arg(p)
        .status()
        .is_ok_and(|s| s.success())
}

/// "line:column" (1-based) of a byte offset (ASCII text), counted in the
/// text itself rather than by hand.
fn pos_at(text: &str, at: usize) -> String {
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{col}")
}

/// "line:column" of the first occurrence of `needle`.
fn pos(text: &str, needle: &str) -> String {
    pos_at(text, text.find(needle).expect(needle))
}

/// "line:column" of the value of the first `key = value` line given.
fn value_pos(text: &str, assignment: &str) -> String {
    let at = text.find(assignment).expect(assignment) + assignment.find("= ").unwrap() + 2;
    pos_at(text, at)
}

#[cfg(unix)]
#[test]
fn a_fifo_a_device_and_a_huge_file_are_reported_not_read() {
    let d = dir("special");
    assert!(mkfifo(&d.join("hardware/pipe.toml")), "mkfifo");
    std::os::unix::fs::symlink("/dev/zero", d.join("hardware/zero.toml")).unwrap();
    // 16 MiB + 1 byte, sparse: one byte over the limit.
    let big = std::fs::File::create(d.join("models/big.toml")).unwrap();
    big.set_len(16 * 1024 * 1024 + 1).unwrap();
    std::fs::create_dir(d.join("models/folder.toml")).unwrap();
    std::fs::write(d.join("hardware/ok.toml"), device("my-gpu", "")).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    let p = d.display();
    for want in [
        format!(
            "{p}/hardware/pipe.toml:1:1: not read: it is a FIFO (named pipe), not a regular file"
        ),
        format!(
            "{p}/hardware/zero.toml:1:1: not read: it is a character device, not a regular file"
        ),
        format!(
            "{p}/models/big.toml:1:1: not read: 16777217 bytes is over the limit of 16777216 bytes"
        ),
        format!("{p}/models/folder.toml:1:1: not read: it is a directory"),
    ] {
        assert!(out.contains(&want), "{want}\n{out}");
    }
    // The good file next to them loads.
    assert!(out.contains("45 devices"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

#[cfg(unix)]
#[test]
fn the_workbench_reads_no_special_file_among_its_themes_and_config() {
    let d = dir("tui-special");
    std::fs::create_dir_all(d.join("themes")).unwrap();
    std::fs::create_dir_all(d.join("catalog/hardware")).unwrap();
    assert!(mkfifo(&d.join("themes/pipe.toml")));
    assert!(mkfifo(&d.join("config.toml")));
    assert!(mkfifo(&d.join("catalog/hardware/pipe.toml")));
    std::os::unix::fs::symlink("/dev/zero", d.join("themes/zero.toml")).unwrap();
    // What `tui::app_from_env` reads at start-up, on a thread: a blocking
    // open would hang the test, not fail it.
    let (tx, rx) = std::sync::mpsc::channel();
    let config = d.clone();
    std::thread::spawn(move || {
        let mut notices = Vec::new();
        theme::read_user_themes(&config.join("themes"), &mut notices);
        notices.extend(Keymap::from_file(&config.join("config.toml")).1);
        let catalog = Catalog::load(Some(&config.join("catalog")));
        notices.extend(catalog.diagnostics.iter().map(|d| d.to_string()));
        let _ = tx.send(notices.join("\n"));
    });
    let notices = rx.recv_timeout(HANG).expect("start-up does not block");
    for want in [
        "themes/pipe.toml: not read: it is a FIFO",
        "themes/zero.toml: not read: it is a character device",
        "config.toml: not read: it is a FIFO",
        "catalog/hardware/pipe.toml:1:1: not read: it is a FIFO",
    ] {
        assert!(notices.contains(want), "{want}\n{notices}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn duplicate_ids_and_taken_aliases_are_problems() {
    let d = dir("dups");
    let a = device("my-gpu", "") + &device("other-gpu", "aliases = [\"mine\", \"h100\"]\n");
    let b = device("my-gpu", "") + &device("third-gpu", "aliases = [\"other-gpu\", \"Mine\"]\n");
    std::fs::write(d.join("hardware/a.toml"), &a).unwrap();
    std::fs::write(d.join("hardware/b.toml"), &b).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    let p = d.display();
    // Each problem is at the name that is taken (the value's first quote).
    let (my_a, my_b) = (pos(&a, "\"my-gpu\""), pos(&b, "\"my-gpu\""));
    let other = pos(&a, "\"other-gpu\"");
    for want in [
        format!(
            "{p}/hardware/a.toml:{}: device `other-gpu`: the alias `h100` is already an alias of device `h100-sxm` (catalog/hardware/nvidia-datacenter.toml:",
            pos(&a, "\"h100\"")
        ),
        format!(
            "{p}/hardware/b.toml:{my_b}: device `my-gpu`: the id is already defined at {p}/hardware/a.toml:{my_a}; this entry is skipped"
        ),
        format!(
            "{p}/hardware/b.toml:{}: device `third-gpu`: the alias `other-gpu` is already the id of device `other-gpu` ({p}/hardware/a.toml:{other}); this alias is dropped",
            pos(&b, "\"other-gpu\"")
        ),
        format!(
            "{p}/hardware/b.toml:{}: device `third-gpu`: the alias `mine` is already an alias of device `other-gpu`",
            pos(&b, "\"Mine\"")
        ),
    ] {
        assert!(out.contains(&want), "{want}\n{out}");
    }
    // The first keeps the name: `-H mine` is other-gpu, `-H h100` the H100.
    let cat = d.to_str().unwrap();
    for (name, id) in [
        ("mine", "other-gpu"),
        ("h100", "h100-sxm"),
        ("third-gpu", "third-gpu"),
    ] {
        let out = run(&["--catalog", cat, "eval", "-H", name, "-f", "json"]).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect(name);
        assert_eq!(v["hardware"], id, "{name}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_user_entry_replacing_a_builtin_one_is_a_note_not_a_problem() {
    let d = dir("replace");
    let text = device("h100-sxm", "aliases = [\"my-h100\"]\n");
    std::fs::write(d.join("hardware/mine.toml"), &text).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "note: {}/hardware/mine.toml:{}: device `h100-sxm` replaces the built-in one from catalog/hardware/nvidia-datacenter.toml",
            d.display(),
            pos(&text, "\"h100-sxm\"")
        )),
        "{out}"
    );
    // The built-in aliases still reach the replacement, and so does its own.
    let cat = d.to_str().unwrap();
    for name in ["h100", "my-h100"] {
        let out = run(&["--catalog", cat, "eval", "-H", name, "-f", "json"]).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect(name);
        assert_eq!(v["hardware"], "h100-sxm", "{name}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_catalog_dir_that_cannot_be_used_is_an_error_everywhere() {
    let d = dir("bad-dir");
    let file = d.join("a-file");
    std::fs::write(&file, "").unwrap();
    let missing = d.join("nope");
    let commands: [&[&str]; 9] = [
        &["eval"],
        &["sens"],
        &["synth", "--target", "50ms"],
        &["compare", "-H", "h100,a100"],
        &["sweep"],
        &["zoo", "hardware"],
        &["serve"],
        &["fleet", "--qps", "10", "--ttft", "1s", "--itl", "100ms"],
        &["catalog", "check"],
    ];
    for (path, why) in [
        (&missing, "the directory does not exist"),
        (&file, "the directory is a file, not a directory"),
    ] {
        for args in commands {
            let mut all = vec!["--catalog", path.to_str().unwrap()];
            all.extend_from_slice(args);
            let out = run(&all).unwrap();
            let e = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{all:?}: {e}");
            assert!(
                e.contains(&format!("error: --catalog {}: {why}", path.display()))
                    && e.contains("give a folder holding hardware/*.toml"),
                "{all:?}: {e}"
            );
            assert!(out.stdout.is_empty(), "{all:?}");
        }
        // The workbench: the same error, and not a byte to the terminal.
        let out = run(&["--catalog", path.to_str().unwrap()]).unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(why));
        assert!(out.stdout.is_empty(), "{:?}", text(&out.stdout));
    }
    std::fs::remove_dir_all(&d).ok();
}

#[cfg(unix)]
#[test]
fn an_unreadable_catalog_dir_is_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let d = dir("unreadable");
    let locked = d.join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read_dir(&locked).is_ok() {
        // Running as root: permissions do not apply; nothing to test.
        std::fs::remove_dir_all(&d).ok();
        return;
    }
    let out = run(&["--catalog", locked.to_str().unwrap(), "zoo", "hardware"]).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&d).ok();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the directory cannot be read"));
}

/// A device whose every text field carries an escape sequence.
const HOSTILE: &str = r#"[[device]]
id = "evil-gpu"
aliases = ["evil", "e\u001b[2Jvil"]
name = "Evil \u001b]0;pwned\u0007\u001b[31mRED"
vendor = "Me\u0007"
family = "x\u009b31m"
tier = "workstation"
year = 2025
source = "https://example.com/\u001b[8m"
notes = "a note \u202e reversed"
memory = "24 GB"
memory_bandwidth = "1 TB/s"
"\u001b[31mkey" = 1
[device.peak]
bf16 = "100 TFLOPS"
[device.sources]
peak = "tab\there"

[[device]]
id = "evil\u001b[2J"
name = "n"
vendor = "v"
tier = "edge"
year = 2025
source = "s"
memory = "1 GB"
memory_bandwidth = "1 GB/s"
[device.peak]
fp32 = "1 GFLOPS"

[[device]]
id = "nice-gpu"
name = "Nice GPU"
vendor = "Me"
tier = "workstation"
year = 2025
source = "s"
memory = "24 GB"
memory_bandwidth = "1 TB/s"
[device.peak]
bf16 = "100 TFLOPS"
"#;

/// Bytes that start or carry an escape sequence (ESC, BEL, C1 CSI in
/// UTF-8) or reorder text (RLO in UTF-8).
fn has_escape(b: &[u8]) -> bool {
    b.contains(&0x1b)
        || b.contains(&0x07)
        || b.windows(2).any(|w| w == [0xc2, 0x9b])
        || b.windows(3).any(|w| w == [0xe2, 0x80, 0xae])
}

#[test]
fn control_characters_in_catalog_text_are_rejected_and_never_printed() {
    let d = dir("hostile");
    std::fs::write(d.join("hardware/evil.toml"), HOSTILE).unwrap();
    std::fs::write(
        d.join("models/evil.toml"),
        "[[model]]\nid = \"m\"\nname = \"M\\u001b[1m\"\nfamily = \"f\"\nkind = \"cnn\"\nyear = 2020\nsource = \"s\"\nparams = 1e6\nflops_per_sample = 1e9\ninput = \"x\\u0000y\"\n",
    )
    .unwrap();
    // A file name with an escape sequence in it.
    std::fs::write(d.join("hardware/\u{1b}[31mred.toml"), "not toml").unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    assert!(!has_escape(out.as_bytes()), "{out:?}");
    let f = format!("{}/hardware/evil.toml", d.display());
    // Every field of the first device, at the value with the escape.
    for (needle, what) in [
        (
            "\"e\\u001b",
            "`aliases` contains the control character U+001B",
        ),
        ("\"Evil", "`name` contains the control character U+001B"),
        (
            "\"Me\\u0007",
            "`vendor` contains the control character U+0007",
        ),
        (
            "\"x\\u009b",
            "`family` contains the control character U+009B",
        ),
        ("\"https", "`source` contains the control character U+001B"),
        ("\"a note", "`notes` contains the control character U+202E"),
        ("\"\\u001b[31mkey", "unknown field `\\u{1b}[31mkey`"),
        (
            "\"tab",
            "`sources.peak` contains the control character U+0009",
        ),
    ] {
        let want = format!("{f}:{}: device `evil-gpu`: {what}", pos(HOSTILE, needle));
        assert!(out.contains(&want), "{want}\n{out}");
    }
    let id = pos(HOSTILE, "\"evil\\u001b[2J");
    assert!(
        out.contains(&format!(
            "{f}:{id}: device: `id` contains the control character U+001B"
        )),
        "{out}"
    );
    // The model file: `name` on line 3 and `input` on line 10, each value
    // after `name = ` (column 8) and `input = ` (column 9).
    assert!(
        out.contains(
            "models/evil.toml:3:8: model `m`: `name` contains the control character U+001B"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "models/evil.toml:10:9: model `m`: `input` contains the control character U+0000"
        ),
        "{out}"
    );
    assert!(
        out.contains("/hardware/\\u{1b}[31mred.toml:1:5: not valid TOML"),
        "{out}"
    );
    // What loads prints clean in every format; the warnings are escaped.
    let cat = d.to_str().unwrap();
    for fmt in ["table", "markdown", "json", "csv"] {
        for args in [
            vec!["--catalog", cat, "eval", "-H", "nice-gpu", "-f", fmt],
            vec!["--catalog", cat, "zoo", "hardware", "-f", fmt],
            vec!["--catalog", cat, "compare", "-H", "all", "-f", fmt],
        ] {
            let out = run(&args).unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                text(&out.stderr)
            );
            assert!(
                !has_escape(&out.stdout),
                "{args:?}: {:?}",
                text(&out.stdout)
            );
            assert!(
                !has_escape(&out.stderr),
                "{args:?}: {:?}",
                text(&out.stderr)
            );
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn figures_that_would_break_every_command_are_rejected_with_the_range() {
    let d = dir("ranges");
    let hw = device("slow-gpu", "").replace("\"1 TB/s\"", "\"1e-300 TB/s\"")
        + &device("fast-gpu", "").replace("\"100 TFLOPS\"", "\"1e30 TFLOPS\"")
        + &device("tiny-gpu", "").replace("\"24 GB\"", "\"1 B\"");
    std::fs::write(d.join("hardware/x.toml"), &hw).unwrap();
    let model = "[[model]]\nid = \"huge\"\nname = \"Huge\"\nfamily = \"x\"\nkind = \"cnn\"\nyear = 2024\nsource = \"s\"\nparams = 1e308\nflops_per_sample = 1e-300\n";
    std::fs::write(d.join("models/x.toml"), model).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    let p = d.display();
    for want in [
        format!(
            "{p}/hardware/x.toml:{}: device `slow-gpu`: memory_bandwidth = \"1e-300 TB/s\" is out of range; use \"1 kB/s\" to \"1 EB/s\"",
            pos(&hw, "\"1e-300")
        ),
        format!(
            "{p}/hardware/x.toml:{}: device `fast-gpu`: bf16 = \"1e30 TFLOPS\" is out of range; use \"1 kFLOPS\" to \"1000 EFLOPS\"",
            pos(&hw, "\"1e30")
        ),
        format!(
            "{p}/hardware/x.toml:{}: device `tiny-gpu`: memory = \"1 B\" is out of range; use \"1 kB\" to \"1 EB\"",
            pos(&hw, "\"1 B\"")
        ),
        format!(
            "{p}/models/x.toml:{}: model `huge`: params = 1e308 is out of range; use 1 to 1e15",
            pos(model, "1e308")
        ),
        format!(
            "{p}/models/x.toml:{}: model `huge`: flops_per_sample = 1e-300 is out of range; use 1 to 1e18",
            pos(model, "1e-300")
        ),
    ] {
        assert!(out.contains(&want), "{want}\n{out}");
    }
    // The rest of the catalog keeps working.
    let out = run(&["--catalog", d.to_str().unwrap(), "eval", "-f", "json"]).unwrap();
    assert_eq!(out.status.code(), Some(0));
    std::fs::remove_dir_all(&d).ok();
}

/// Devices and models at the edges of every accepted range
/// (catalog/SCHEMA.md): each figure at its least or its most.
const EDGE_DEVICES: &str = r#"[[device]]
id = "min-dev"
name = "min"
vendor = "x"
tier = "tiny"
year = 1940
source = "s"
memory = "1 kB"
memory_bandwidth = "1 kB/s"
tdp = "0.001 mW"
[device.peak]
fp32 = "1 kFLOPS"
[device.interconnect]
scale_up = "1 kB/s"
scale_out = "1 kB/s"
devices_per_node = 65536
[device.price]
per_hour_usd = 0.000001
as_of = "x"
source = "s"

[[device]]
id = "max-dev"
name = "max"
vendor = "x"
tier = "cloud"
year = 2100
source = "s"
memory = "1 EB"
memory_bandwidth = "1 EB/s"
tdp = "10 MW"
[device.peak]
fp4 = "1000 EFLOPS"
[device.interconnect]
scale_up = "1 EB/s"
scale_out = "1 EB/s"
devices_per_node = 65536
[device.price]
per_hour_usd = 1e6
as_of = "x"
source = "s"
"#;
const EDGE_MODELS: &str = r#"[[model]]
id = "max-model"
name = "max"
family = "x"
kind = "moe-decoder"
year = 2100
source = "s"
params = 1e15
active_params = 3e14
experts = 8
top_k = 2
layers = 100000
hidden = 1048576
heads = 65536
kv_heads = 65536
head_dim = 65536
ffn = 16777216
vocab = 1000
max_context = 1000000000

[[model]]
id = "max-cnn"
name = "maxcnn"
family = "x"
kind = "cnn"
year = 2100
source = "s"
params = 1e15
flops_per_sample = 1e18
activation_elements_per_sample = 1e15
"#;

#[test]
fn figures_at_the_edges_of_the_ranges_keep_every_command_working() {
    let d = dir("edges");
    std::fs::write(d.join("hardware/edges.toml"), EDGE_DEVICES).unwrap();
    std::fs::write(d.join("models/edges.toml"), EDGE_MODELS).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 0, "{out}");
    let cat = d.to_str().unwrap();
    for m in ["max-model", "max-cnn", "llama-3.1-8b"] {
        for h in ["min-dev", "max-dev"] {
            for args in [
                vec!["eval", "--phase", "decode"],
                vec!["eval", "--phase", "prefill"],
                vec!["sens"],
                vec!["serve"],
                vec!["sweep"],
            ] {
                // Serving figures are for decoders (a CNN is refused, rightly).
                if m == "max-cnn" && args[0] == "serve" {
                    continue;
                }
                let mut all = vec!["--catalog", cat];
                all.extend(args);
                all.extend(["-m", m, "-H", h, "-f", "json"]);
                let out = run(&all).expect("ends");
                assert_eq!(out.status.code(), Some(0), "{all:?}: {}", text(&out.stderr));
            }
        }
        // Over the whole catalog, edges included: an answer or a verdict.
        for args in [
            vec!["compare", "-H", "all"],
            vec!["synth", "--target", "50ms"],
            vec!["fleet", "--qps", "1000", "--ttft", "1s", "--itl", "100ms"],
        ] {
            if m == "max-cnn" && args[0] == "fleet" {
                continue;
            }
            let mut all = vec!["--catalog", cat];
            all.extend(args);
            all.extend(["-m", m, "-f", "json"]);
            let out = run(&all).expect("ends");
            let code = out.status.code();
            assert!(
                code == Some(0) || code == Some(3),
                "{all:?}: {}",
                text(&out.stderr)
            );
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A decoder entry with `extra` lines at the end.
fn model(id: &str, kind: &str, extra: &str) -> String {
    format!(
        "[[model]]\nid = \"{id}\"\nname = \"{id}\"\nfamily = \"x\"\nkind = \"{kind}\"\nyear = 2024\nsource = \"s\"\nparams = 7e9\nlayers = 32\nhidden = 4096\nheads = 32\nhead_dim = 128\nffn = 11008\nvocab = 32000\nmax_context = 4096\n{extra}\n"
    )
}

#[test]
fn model_shapes_must_be_consistent() {
    let d = dir("consistency");
    let text = model("odd-kv", "dense-decoder", "kv_heads = 5\n")
        + &model("dense-experts", "dense-decoder", "experts = 8\ntop_k = 2\n")
        + &model(
            "moe-big-active",
            "moe-decoder",
            "experts = 8\ntop_k = 2\nactive_params = 8e9\n",
        )
        + &model("good", "dense-decoder", "kv_heads = 8\n");
    std::fs::write(d.join("models/m.toml"), &text).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    let f = format!("{}/models/m.toml", d.display());
    // Each at the value that breaks the rule.
    for want in [
        format!(
            "{f}:{}: model `odd-kv`: kv_heads = 5 must divide heads = 32",
            value_pos(&text, "kv_heads = 5")
        ),
        format!(
            "{f}:{}: model `dense-experts`: `experts` is only for kind = \"moe-decoder\"",
            value_pos(&text, "experts = 8")
        ),
        format!(
            "{f}:{}: model `dense-experts`: `top_k` is only for kind = \"moe-decoder\"",
            value_pos(&text, "top_k = 2")
        ),
        format!(
            "{f}:{}: model `moe-big-active`: active_params = 8000000000 is more than params = 7000000000",
            value_pos(&text, "active_params = 8e9")
        ),
    ] {
        assert!(out.contains(&want), "{want}\n{out}");
    }
    assert!(
        out.contains("44 devices, 48 models"),
        "only `good` loads: {out}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn every_problem_of_an_entry_is_reported_in_line_order() {
    let d = dir("every");
    let text = "[[device]]\nid = \"many-problems\"\nnmae = \"typo\"\nvendor = \"Me\"\ntier = \"desk\"\nyear = 2025\nsource = \"s\"\nmemory = \"0 GB\"\nmemory_bandwidth = \"1 TBs\"\n[device.peak]\nbf17 = \"1 TFLOPS\"\n";
    std::fs::write(d.join("hardware/x.toml"), text).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    let f = format!("{}/hardware/x.toml", d.display());
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&f)).collect();
    let want = [
        "1:1: device `many-problems`: missing `name`",
        "3:1: device `many-problems`: unknown field `nmae`; did you mean `name`?",
        "5:8: device `many-problems`: unknown tier \"desk\"",
        "8:10: device `many-problems`: memory must be greater than zero",
        "9:20: device `many-problems`: memory_bandwidth: cannot read \"1 TBs\"",
        "11:1: device `many-problems`: unknown precision `bf17` in [device.peak]",
    ];
    assert_eq!(lines.len(), want.len(), "{out}");
    for (l, w) in lines.iter().zip(want) {
        assert!(l.starts_with(&format!("{f}:{w}")), "{w}\n{out}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn key_binding_problems_carry_their_position() {
    let text =
        "[keys]\nfly = \"f\"\nup = \"hyper-up\"\nmark = \"t\"\nhelp = [\"\\u001b\"]\n[key]\n";
    let (_, problems) = Keymap::from_config("config.toml", text);
    let want = [
        "config.toml:2:1: [keys] unknown command `fly`",
        "config.toml:3:6: [keys] up: unknown key \"hyper-up\"",
        "config.toml:4:8: key conflict: t is bound to both mark and next_theme; mark keeps it",
        "config.toml:5:9: [keys] help: \"\\u{1b}\" is a control character, not a key",
        "config.toml:6:2: unknown table `key`; config.toml holds [keys]",
    ];
    assert_eq!(problems.len(), want.len(), "{problems:#?}");
    for (p, w) in problems.iter().zip(want) {
        assert!(p.starts_with(w), "{w}\n{problems:#?}");
    }
    // A command name with an escape sequence is shown escaped.
    let (_, problems) = Keymap::from_config("c.toml", "[keys]\n\"\\u001b[2Jx\" = \"q\"\n");
    assert!(
        problems[0].starts_with("c.toml:2:1: [keys] unknown command `\\u{1b}[2Jx`"),
        "{problems:?}"
    );
    assert!(!has_escape(problems[0].as_bytes()));
}

#[test]
fn a_theme_problem_names_the_bad_value_and_a_theme_name_must_be_plain() {
    let dark = include_str!("../themes/dark.toml");
    let user = vec![
        (
            "mine/zz.toml".to_string(),
            dark.replace("\"dark\"", "\"zz\"")
                .replace("fg = \"gray\"", "fg = \"#zzzzzz\""),
        ),
        (
            "mine/esc.toml".to_string(),
            dark.replace("\"dark\"", "\"\\u001b]0;x\\u0007\""),
        ),
    ];
    let set = ThemeSet::load(ridgeline::catalog::builtin_themes(), &user);
    let fg = dark.lines().position(|l| l.starts_with("fg =")).unwrap() + 1;
    let want = [
        format!("theme mine/zz.toml:{fg}:6: fg = \"#zzzzzz\" is not a colour"),
        "theme mine/esc.toml:3:8: `name` contains the control character U+001B".to_string(),
    ];
    for w in &want {
        assert!(
            set.problems.iter().any(|p| p.starts_with(w.as_str())),
            "{w}\n{:#?}",
            set.problems
        );
    }
    assert!(set.index_of("zz").is_none());
    assert!(set.themes.iter().all(|t| !has_escape(t.name.as_bytes())));
}

#[test]
fn a_user_profile_is_used_by_name_and_a_broken_one_is_reported_where_it_breaks() {
    let d = dir("profiles");
    std::fs::create_dir_all(d.join("profiles")).unwrap();
    std::fs::create_dir_all(d.join("measurements")).unwrap();
    // A profile with 50 us per kernel, and one whose kernel time has no unit.
    let good = "[[profile]]\nid = \"slow-kernels\"\nname = \"slow\"\nyear = 2026\nsource = \"mine\"\nkernel_time = \"50 us\"\n";
    let bad = "[[profile]]\nid = \"broken\"\nname = \"b\"\nyear = 2026\nsource = \"mine\"\nkernel_time = 5\n";
    let text_all = format!("{good}\n{bad}");
    std::fs::write(d.join("profiles/mine.toml"), &text_all).unwrap();
    let m = "[[measurement]]\nid = \"mine\"\nmodel = \"llama-3.1-8b\"\nhardware = \"h100\"\nstack = \"me\"\nstack_version = \"1\"\nyear = 2026\nsource = \"https://example.org\"\nquote = \"100\"\nmetric = \"tokens_per_sec\"\nvalue = 100\nbatch = 1\nprompt = 1\noutput = 2\nweights = \"bf16\"\nactivations = \"bf16\"\nkv = \"bf16\"\ntp = 1\npp = 1\n";
    std::fs::write(d.join("measurements/mine.toml"), m).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    let at = value_pos(&text_all, "kernel_time = 5");
    assert!(
        out.contains(&format!("mine.toml:{at}")) && out.contains("kernel_time takes a time"),
        "{out}"
    );
    assert!(out.contains("unknown metric \"tokens_per_sec\""), "{out}");
    // The good profile is there by name, and slower than the default.
    let lat = |profile: &str| -> f64 {
        let o = run(&[
            "eval",
            "--catalog",
            d.to_str().unwrap(),
            "-m",
            "llama-3.1-8b",
            "-H",
            "h100",
            "--profile",
            profile,
            "-f",
            "json",
        ])
        .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["latency_s"].as_f64().unwrap()
    };
    // 324 kernels x 50 us = 16.2 ms of fixed time alone.
    assert!(lat("slow-kernels") > 16.2e-3);
    assert!(lat("slow-kernels") > lat("default"));
}

#[test]
fn a_torus_is_read_whole_or_reported() {
    let d = dir("torus");
    let ic = |keys: &str| format!("[device.interconnect]\nscale_up = \"600 GB/s\"\n{keys}\n");
    let hw = device("cube", "")
        + &ic(
            "devices_per_node = 64\ntorus = \"4x4x4\"\ntorus_link = \"100 GB/s\"\ntorus_wrap = \"cubes of 4\"",
        )
        + &device("bad-shape", "")
        + &ic(
            "devices_per_node = 64\ntorus = \"4x4x4x4\"\ntorus_link = \"100 GB/s\"\ntorus_wrap = \"cubes of 4\"",
        )
        + &device("half", "")
        + &ic("devices_per_node = 64\ntorus = \"4x4x4\"")
        + &device("wrong-count", "")
        + &ic(
            "devices_per_node = 8\ntorus = \"4x4x4\"\ntorus_link = \"100 GB/s\"\ntorus_wrap = \"sometimes\"",
        );
    std::fs::write(d.join("hardware/x.toml"), &hw).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    for want in [
        "device `bad-shape`: torus = \"4x4x4x4\" is not a shape; write \"16x16x24\" or \"16x16\", each axis 1 to 4096",
        "device `half`: a torus needs all of torus, torus_link and torus_wrap (or none of them)",
        "device `wrong-count`: torus_wrap = \"sometimes\"; use \"full axis\"",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }
    assert!(!out.contains("device `cube`:"), "{out}");
    // A torus whose count disagrees with devices_per_node.
    let e = dir("torus-count");
    let hw = device("eight", "")
        + &ic(
            "devices_per_node = 8\ntorus = \"4x4x4\"\ntorus_link = \"100 GB/s\"\ntorus_wrap = \"cubes of 4\"",
        );
    std::fs::write(e.join("hardware/x.toml"), &hw).unwrap();
    let (code, out) = check(&e);
    assert_eq!(code, 2, "{out}");
    let want = "torus 4x4x4 holds 64 devices; set devices_per_node = 64";
    assert!(out.contains(want), "{out}");
    // The good one runs a collective on its axes: an all-gather of 1 GB
    // over the whole cube is 63/64 GB over 3 axes x 2 links of 100 GB/s,
    // ideal links: 63/64 / 6 GB = 0.1640625 GB -> 1.640625 ms plus hops.
    let out = run(&[
        "--catalog",
        d.to_str().unwrap(),
        "collective",
        "--op",
        "all-gather",
        "--bytes",
        "1GB",
        "--devices",
        "64",
        "--hardware",
        "cube",
        "--link-eff",
        "1",
        "-f",
        "json",
    ])
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["torus_slice"], "4x4x4");
    let level = &v["levels"][0];
    assert_eq!(level["torus_axes"], "4 ring x 4 ring x 4 ring");
    let bytes = level["bytes_per_link"].as_f64().unwrap();
    assert!((bytes - 63e9 / 64.0 / 6.0).abs() < 1.0, "{bytes}");
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&e).ok();
}

#[test]
fn a_profile_says_what_it_was_fitted_on_whole_or_is_reported() {
    let d = dir("fitted");
    std::fs::create_dir_all(d.join("profiles")).unwrap();
    let head = |id: &str| {
        format!("[[profile]]\nid = \"{id}\"\nname = \"n\"\nyear = 2026\nsource = \"mine\"\n")
    };
    // All three keys: read. Only two, or a key that is no assumption: each
    // reported where it is.
    let good = head("fitted")
        + "fitted_from = \"default\"\nfitted_on = \"vllm,sglang\"\nfitted_keys = \"kernel_time,moe_layer_time\"\n";
    let half = head("half") + "fitted_on = \"vllm\"\nfitted_keys = \"kernel_time\"\n";
    let typo = head("typo")
        + "fitted_from = \"default\"\nfitted_on = \"vllm\"\nfitted_keys = \"kernel_tim\"\n";
    std::fs::write(
        d.join("profiles/mine.toml"),
        format!("{good}\n{half}\n{typo}"),
    )
    .unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("give all three or none"), "{out}");
    assert!(out.contains("kernel_tim is not an assumption key"), "{out}");
    assert!(!out.contains("fitted_keys: kernel_time "), "{out}");
}

#[test]
fn a_host_link_is_read_checked_and_used_by_offloading() {
    let d = dir("host-link");
    let ic = |keys: &str| format!("[device.interconnect]\ndevices_per_node = 8\n{keys}\n");
    let hw = device("hosted", "")
        + &ic("host = \"64 GB/s\"")
        + &device("bad-host", "")
        + &ic("host = \"fast\"")
        + &device("no-host", "");
    std::fs::write(d.join("hardware/x.toml"), &hw).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("device `bad-host`"), "{out}");
    assert!(out.contains("host"), "{out}");
    assert!(!out.contains("device `hosted`:"), "{out}");
    // Offloading on the device with a host link: the JSON says so and
    // puts bytes on the host (a 1B model's full-recompute layer inputs).
    let train = |hw: &str| {
        run(&[
            "--catalog",
            d.to_str().unwrap(),
            "train",
            "-m",
            "llama-3.2-1b",
            "-H",
            hw,
            "--devices",
            "1",
            "--recompute",
            "full",
            "--offload",
            "-f",
            "json",
        ])
        .expect("train ends")
    };
    let o = train("hosted");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["offload"], true, "{v}");
    assert!(v["memory_host_bytes"].as_f64().unwrap() > 0.0, "{v}");
    // The device without one is refused with what to add.
    let o = train("no-host");
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("no-host no host link"), "{err}");
    assert!(err.contains("host = \"64 GB/s\""), "{err}");
}

/// Llama 3.1 70B at TP 8 on 64 H100s: TP all-reduces to hide, so the
/// training keys that overlap them move the step.
const TRAIN_70B_TP8: &[&str] = &[
    "train",
    "-m",
    "llama-3.1-70b",
    "-H",
    "h100",
    "--tp",
    "8",
    "--devices",
    "64",
];

#[test]
fn a_profile_sets_training_keys_and_train_takes_them_as_its_flags_do() {
    // A user profile with TP overlap 0.5 and a flat matmul ceiling: `train
    // --profile` gives what `--tp-overlap 0.5 --matmul-ceiling flat` gives
    // on the default's serving keys, `--assume` sets one over it, a flag
    // wins over both; a broken training key is reported where it is.
    let d = dir("train-profile");
    std::fs::create_dir_all(d.join("profiles")).unwrap();
    let default = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/catalog/profiles/default.toml"
    ))
    .unwrap();
    // The default's keys under another id, with two training keys.
    let body = &default[default.find("compute_efficiency =").unwrap()..];
    let good = format!(
        "[[profile]]\nid = \"overlapped\"\nname = \"o\"\nyear = 2026\nsource = \"mine\"\ntp_overlap = 0.5\nmatmul_ceiling = \"flat\"\n{body}"
    );
    std::fs::write(d.join("profiles/mine.toml"), &good).unwrap();
    let cat = d.to_str().unwrap();
    // Llama 3.1 70B at TP 8 on 64 H100s: TP all-reduces to hide.
    let train = |extra: &[&str]| -> serde_json::Value {
        let mut args = TRAIN_70B_TP8.to_vec();
        args.extend_from_slice(&["--catalog", cat, "-f", "json"]);
        args.extend_from_slice(extra);
        let o = run(&args).unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let step = |v: &serde_json::Value| v["step_time_s"].as_f64().unwrap();
    let by_profile = train(&["--profile", "overlapped"]);
    let by_flags = train(&["--tp-overlap", "0.5", "--matmul-ceiling", "flat"]);
    assert_eq!(step(&by_profile), step(&by_flags));
    assert_ne!(step(&by_profile), step(&train(&[])));
    let assumed = train(&["--profile", "overlapped", "--assume", "tp_overlap=1"]);
    let flagged = train(&["--tp-overlap", "1", "--matmul-ceiling", "flat"]);
    assert_eq!(step(&assumed), step(&flagged));
    let flag_wins = train(&[
        "--profile",
        "overlapped",
        "--assume",
        "tp_overlap=1",
        "--tp-overlap",
        "0.5",
    ]);
    assert_eq!(step(&flag_wins), step(&by_flags));
    // A training key out of range, and a ceiling that is no ceiling.
    let bad = good
        .replace("tp_overlap = 0.5", "tp_overlap = 2")
        .replace("id = \"overlapped\"", "id = \"bad\"")
        .replace("matmul_ceiling = \"flat\"", "matmul_ceiling = \"tall\"");
    std::fs::write(d.join("profiles/mine.toml"), format!("{good}\n{bad}")).unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("tp_overlap = 2 is out of range; use a number from 0 to 1"),
        "{out}"
    );
    assert!(
        out.contains("matmul_ceiling takes \"measured\" or \"flat\""),
        "{out}"
    );
    // A training key on a command that trains nothing says where it goes.
    let o = run(&["eval", "--assume", "tp_overlap=0.5"]).unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("`tp_overlap` is a training assumption"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_profile_extends_another_and_sets_only_what_differs() {
    // A user profile extending the built-in `vllm` with one serving key
    // and one training key: `eval` with it equals `eval --profile vllm
    // --assume kernel_time=9us`, and `train` with it equals `train
    // --profile vllm --tp-overlap 0.5`; the key it sets wins over the
    // parent's. A parent that is not loaded is an error at its line, and
    // that profile is not loaded.
    let d = dir("extends");
    std::fs::create_dir_all(d.join("profiles")).unwrap();
    let mine = "[[profile]]\nid = \"my-vllm\"\nname = \"vLLM, slower kernels\"\nyear = 2026\nsource = \"mine\"\nextends = \"vllm\"\nkernel_time = \"9 us\"\ntp_overlap = 0.5\n";
    std::fs::write(d.join("profiles/mine.toml"), mine).unwrap();
    let cat = d.to_str().unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["--catalog", cat, "-f", "json"];
        all.splice(0..0, args.iter().copied());
        let o = run(&all).unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let latency = |v: &serde_json::Value| v["latency_s"].as_f64().unwrap();
    let eval = |extra: &[&str]| {
        let mut a = vec!["eval", "-m", "llama-3.1-8b", "-H", "h100"];
        a.extend_from_slice(extra);
        latency(&json(&a))
    };
    let mine_eval = eval(&["--profile", "my-vllm"]);
    assert_eq!(
        mine_eval,
        eval(&["--profile", "vllm", "--assume", "kernel_time=9us"])
    );
    // The key it sets matters: vLLM's own kernel time gives another figure.
    assert_ne!(mine_eval, eval(&["--profile", "vllm"]));
    let step = |v: &serde_json::Value| v["step_time_s"].as_f64().unwrap();
    let train = |extra: &[&str]| {
        let mut a = TRAIN_70B_TP8.to_vec();
        a.extend_from_slice(extra);
        step(&json(&a))
    };
    assert_eq!(
        train(&["--profile", "my-vllm"]),
        train(&["--profile", "vllm", "--tp-overlap", "0.5"])
    );
    // `zoo profiles` says what it extends.
    let zoo = json(&["zoo", "profiles"]);
    let listed = zoo
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "my-vllm")
        .unwrap();
    assert_eq!(listed["extends"], "vllm");
    // An unknown parent: reported at its line, the profile left out.
    std::fs::write(
        d.join("profiles/mine.toml"),
        mine.replace("extends = \"vllm\"", "extends = \"vllm-next\""),
    )
    .unwrap();
    let (code, out) = check(&d);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("mine.toml:6:"), "{out}");
    assert!(
        out.contains("extends `vllm-next`: no profile of that id is loaded before this one"),
        "{out}"
    );
    let o = run(&["eval", "--catalog", cat, "--profile", "my-vllm"]).unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}
