//! Work bounded by what the machine has, not by what is typed (issue 19,
//! part 1): counts taken from flags are capped with the largest value
//! named, `explore --all` streams its rows in constant memory, and a list
//! flag's repeats are merged with a note. Each test asserts the refusal,
//! the merge or the bound, never a time.

mod common;
use common::cli::{empty_dir, json, ridgeline};
use std::process::{Command, Stdio};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_top_over_a_thousand_is_refused_with_the_largest_accepted() {
    // 300,000,000 rows once aborted the process allocating 26 GB for them.
    for cmd in [
        &["train", "--search", "--top", "300000000"][..],
        &["synth", "--target", "50ms", "--top", "1001"][..],
    ] {
        let o = ridgeline(cmd);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("the most rows --top lists; give 1 to 1000"),
            "{e}"
        );
    }
}

#[test]
fn a_space_over_ten_million_configurations_is_refused_before_any_work() {
    // 43 built-in devices x 3 precisions x TP 1..65536 (17 powers of two)
    // x batch, prompt and output 1..1e9 (30 powers of two each, 1e9 last)
    // is about 59 billion: far over 10,000,000.
    let over = [
        "explore", "-H", "all", "--tp", "1..65536", "--batch", "1..1e9", "--prompt", "1..1e9",
        "--output", "1..1e9",
    ];
    // In every format, streamed or not: nothing is written.
    for extra in [&[][..], &["--all", "-f", "json"], &["--all", "-f", "csv"]] {
        let mut args = over.to_vec();
        args.extend_from_slice(extra);
        let o = ridgeline(&args);
        assert_eq!(o.status.code(), Some(2));
        let e = stderr(&o);
        assert!(
            e.contains("more than 10000000, the most one exploration evaluates"),
            "{e}"
        );
        assert!(o.stdout.is_empty(), "{extra:?}");
    }
}

/// The peak resident memory of `ridgeline ARGS`, in KB, with its output
/// thrown away: read from wait4(2) for that child alone.
#[cfg(target_os = "linux")]
#[allow(clippy::zombie_processes)] // reaped by wait4 below, not by Child::wait
fn peak_kb(args: &[&str]) -> i64 {
    let child = Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(args)
        .env("RIDGELINE_CONFIG_DIR", empty_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run ridgeline");
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for this child only,
    // which is reaped here (the Child handle is never waited on again).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    usage.ru_maxrss
}

#[cfg(target_os = "linux")]
#[test]
fn explore_all_streams_its_rows_in_the_memory_of_one() {
    // One configuration, then 9,828: H100 x bf16 x TP 16..65536 (13 powers
    // of two, each wider than the node, so judged at once as invalid) x
    // batch 1..256 (9) x prompt 1..2^20 (21) x output 1..8 (4). Held whole,
    // as before, the rows took about 4 KB each (40 MB here); streamed, the
    // peak does not grow with them.
    let small = peak_kb(&[
        "explore", "-H", "h100", "-p", "bf16", "--tp", "16", "--batch", "1", "-f", "json", "--all",
    ]);
    let big = peak_kb(&[
        "explore",
        "-H",
        "h100",
        "-p",
        "bf16",
        "--tp",
        "16..65536",
        "--batch",
        "1..256",
        "--prompt",
        "1..1048576",
        "--output",
        "1..8",
        "-f",
        "json",
        "--all",
    ]);
    assert!(
        big < small + 8 * 1024,
        "{small} KB for one row, {big} KB for 9,828"
    );
}

#[test]
fn streamed_json_and_csv_carry_every_row_and_the_front() {
    // H100 x bf16 x TP 1, 2 x batch 1, 2: 4 configurations.
    let args = [
        "explore", "-H", "h100", "-p", "bf16", "--tp", "1,2", "--batch", "1,2",
    ];
    let mut j = args.to_vec();
    j.extend(["--all", "-f", "json"]);
    let x = json(&j);
    // Written row by row, it is laid out as the whole document printed at
    // once: the same lines, indents and keys (values compared as parsed;
    // a float read back may differ in its last digit).
    let text = String::from_utf8(ridgeline(&j).stdout).unwrap();
    let whole = serde_json::to_string_pretty(&x).unwrap() + "\n";
    let layout = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(layout(&text), layout(&whole));
    assert!(text.ends_with("  ]\n}\n"));
    let all = x["all"].as_array().unwrap();
    assert_eq!((all.len(), x["evaluated"].as_u64()), (4, Some(4)));
    let keys: Vec<&str> = x.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "model",
            "objectives",
            "all",
            "evaluated",
            "feasible",
            "front"
        ]
    );
    // Each front point is one of the rows, as written there.
    for f in x["front"].as_array().unwrap() {
        assert!(all.contains(f), "{f}");
    }
    let mut c = args.to_vec();
    c.extend(["--all", "-f", "csv"]);
    let o = ridgeline(&c);
    let text = String::from_utf8(o.stdout).unwrap();
    // A header and a row per configuration.
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.starts_with("hardware,"));
}

#[test]
fn twenty_thousand_copies_of_a_device_are_one_device_with_a_note() {
    // Spelled three ways: the id, an alias and another case.
    let mut list = vec!["h100"; 20_000].join(",");
    list.push_str(",H100-SXM,h100-sxm,a100");
    let o = ridgeline(&["sweep", "-H", &list, "-b", "1..4", "-f", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("note: --hardware: h100-sxm named 20002 times; each is evaluated once"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let devices: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["hardware"].as_str().unwrap())
        .collect();
    // Batches 1, 2, 4 on each of the two devices.
    assert_eq!(devices.len(), 6, "{devices:?}");
    assert_eq!(devices.iter().filter(|d| **d == "h100-sxm").count(), 3);
}

#[test]
fn repeated_precisions_and_regions_merge_and_their_shares_add_up() {
    let precisions = vec!["fp8"; 20_000].join(",");
    let o = ridgeline(&[
        "fleet",
        "-m",
        "llama-3-70b",
        "--qps",
        "10",
        "--prompt",
        "2k",
        "--output",
        "256",
        "--ttft",
        "1s",
        "--itl",
        "100ms",
        "-H",
        "h100",
        "--precisions",
        &precisions,
        "--region",
        "us-east,eu-west,US-EAST",
        "--share",
        "0.25,0.5,0.25",
        "-f",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("note: --precisions: fp8 named 20000 times"),
        "{e}"
    );
    assert!(e.contains("note: --region: us-east named 2 times"), "{e}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let regions: Vec<(String, f64)> = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["region"].as_str().unwrap().into(),
                r["share"].as_f64().unwrap(),
            )
        })
        .collect();
    // us-east's two shares, 0.25 + 0.25, are one of 0.5.
    assert_eq!(regions, [("us-east".into(), 0.5), ("eu-west".into(), 0.5)]);
}

#[test]
fn a_list_of_more_than_256_different_items_is_refused() {
    let list: Vec<String> = (0..257).map(|i| format!("dev{i}")).collect();
    let o = ridgeline(&["compare", "-H", &list.join(",")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--hardware: 257 different devices; at most 256 are accepted"),
        "{}",
        stderr(&o)
    );
}

/// A config directory of this test's own whose imports file holds `n`
/// copies of Falcon-7B's entry, as ids m0 .. m(n-1).
fn imports_of(name: &str, n: usize) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-bounds-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ridgeline"))
            .args(args)
            .env("RIDGELINE_CONFIG_DIR", &d)
            .output()
            .unwrap()
    };
    assert!(
        run(&["import", "tests/fixtures/hf/falcon-7b", "--id", "m"])
            .status
            .success()
    );
    let file = d.join("catalog/models/imported.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.find("\n[[model]]\n").unwrap() + 1;
    let (head, entry) = text.split_at(at);
    let mut all = head.to_string();
    for i in 0..n {
        all.push('\n');
        all.push_str(&entry.replacen("id = \"m\"", &format!("id = \"m{i}\""), 1));
    }
    std::fs::write(&file, all).unwrap();
    d
}

fn import_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["import", "tests/fixtures/hf/falcon-7b"];
    all.extend_from_slice(args);
    Command::new(env!("CARGO_BIN_EXE_ridgeline"))
        .args(all)
        .env("RIDGELINE_CONFIG_DIR", dir)
        .output()
        .unwrap()
}

#[test]
fn import_refuses_an_id_or_name_over_128_characters_and_keeps_every_entry() {
    let d = imports_of("import", 500);
    // A 100,000-character id once took 8 s against a file of 3,955
    // entries (each compared with it, letter by letter).
    let long = "x".repeat(100_000);
    let o = import_in(&d, &["--id", &long]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--id is 100000 characters long; at most 128 are accepted"),
        "{}",
        stderr(&o)
    );
    let name = "N".repeat(129);
    let o = import_in(&d, &["--id", "fine", "--name", &name]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--name is 129 characters long"),
        "{}",
        stderr(&o)
    );
    // 128 characters are accepted, and the 500 entries are all kept.
    let id = "a".repeat(128);
    let o = import_in(&d, &["--id", &id]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("catalog/models/imported.toml")).unwrap();
    let _ = std::fs::remove_dir_all(&d);
    // The 500 copies (`m` itself was left out of the file) and the new one.
    assert_eq!(text.matches("\n[[model]]\n").count(), 501);
    assert!(text.contains(&format!("id = \"{id}\"")));
    assert!(text.contains("id = \"m499\""));
}

#[test]
fn a_scenario_repeating_a_region_and_a_device_opens_with_each_once_and_a_note() {
    // us-east 50,000 times (each a share of 0.00001, together 0.5) and
    // eu-west once (0.5); h100 marked three ways.
    let mut regions = vec!["\"us-east\""; 50_000];
    regions.push("\"EU-WEST\"");
    let mut shares = vec!["0.00001"; 50_000];
    shares.push("0.5");
    let text = format!(
        "view = \"fleet\"\ncompare = [\"h100\", \"H100-SXM\", \"h100-sxm\", \"a100\"]\n[fleet]\nregions = [{}]\nshares = [{}]\n",
        regions.join(","),
        shares.join(",")
    );
    let path = std::env::temp_dir().join(format!("ridgeline-bounds-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let mut app = common::app();
    let opened = app.open_scenario(&path);
    let _ = std::fs::remove_file(&path);
    opened.unwrap();
    let v = &app.view_inputs;
    assert_eq!(v.regions, ["us-east", "eu-west"]);
    assert_eq!(v.shares.len(), 2);
    assert!(
        (v.shares[0] - 0.5).abs() < 1e-9 && v.shares[1] == 0.5,
        "{:?}",
        v.shares
    );
    assert_eq!(app.marked.len(), 2);
    let (_, said) = app.message.clone().unwrap();
    assert!(
        said.contains("compare: 4 names, 2 different devices (repeats merged)")
            && said.contains("fleet.regions: 50001 names, 2 different regions"),
        "{said}"
    );
}

/// Run a command line in-process: its exit code, stdout and stderr.
fn in_process(args: &[String]) -> (i32, String, String) {
    use clap::Parser;
    use ridgeline::cli::{self, args::Cli};
    let full = std::iter::once("ridgeline".to_string()).chain(args.iter().cloned());
    let cli = Cli::try_parse_from(full).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(&cli, cli.command.as_ref().unwrap(), &mut out, &mut err);
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (code, text(out), text(err))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    #[test]
    fn a_device_list_of_repeats_and_spellings_compares_each_device_once(
        picks in proptest::collection::vec((0usize..6, proptest::bool::ANY), 1..400),
    ) {
        // Three devices by id and alias, a name no device has, and an
        // empty item; each in either case.
        const NAMES: [&str; 6] = ["h100", "h100-sxm", "a100", "b200", "no-such-gpu", ""];
        let items: Vec<String> = picks
            .iter()
            .map(|&(i, upper)| {
                let n = NAMES[i];
                if upper { n.to_uppercase() } else { n.to_string() }
            })
            .collect();
        let list = items.join(",");
        let args: Vec<String> = ["compare", "-H", list.as_str(), "-f", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (code, out, err) = in_process(&args);
        let unknown = picks.iter().any(|&(i, _)| i == 4);
        let named: Vec<usize> = picks.iter().map(|&(i, _)| i).filter(|&i| i < 4).collect();
        if unknown || named.is_empty() {
            // Exit 2, naming what is wrong.
            proptest::prop_assert_eq!(code, 2, "{}", err);
        } else {
            proptest::prop_assert_eq!(code, 0, "{}", err);
            let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
            let ids: Vec<&str> = rows
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["hardware"].as_str().unwrap())
                .collect();
            // h100 and h100-sxm are one device: each shown once.
            let mut different: Vec<&str> = ids.clone();
            different.sort_unstable();
            different.dedup();
            proptest::prop_assert_eq!(different.len(), ids.len());
            let devices = |i: usize| if i < 2 { 0 } else { i - 1 };
            let mut want: Vec<usize> = named.iter().map(|&i| devices(i)).collect();
            want.sort_unstable();
            want.dedup();
            proptest::prop_assert_eq!(ids.len(), want.len());
            // The note says so exactly when a device was named twice.
            proptest::prop_assert_eq!(err.contains("note: --hardware:"), named.len() > want.len());
        }
    }
}
