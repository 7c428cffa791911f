//! Matching a detected device to a catalog entry, table-driven, with the
//! reasoning shown ("matched h100-sxm: name 'H100' + 'HBM3' + 79.6 GiB").
//!
//! A rule names the phrases a device name must contain (whole words, in
//! order, case-insensitive: "RTX 4090" matches "NVIDIA GeForce RTX 4090"
//! but "A10" does not match "A100"), the words it must not contain, and
//! the memory range that tells variants apart (the H100 SXM, PCIe, NVL and
//! 96 GB parts; the A100 40 GB and 80 GB). Memory ranges are in GiB and
//! bracket what the tools report: nvidia-smi gives 81559 MiB (79.6 GiB) for
//! an H100 80GB HBM3 and 81920 MiB (80.0 GiB) for an A100 80 GB.

use crate::catalog::Catalog;

/// One way to recognise a catalog entry.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The catalog id this rule leads to.
    pub id: &'static str,
    /// Every one of these phrases must appear in the name.
    pub phrases: &'static [&'static str],
    /// None of these words may appear.
    pub not: &'static [&'static str],
    /// Memory the device reports, GiB, inclusive.
    pub memory_gib: Option<(f64, f64)>,
    /// Physical CPU cores (Apple chips come in several core counts).
    pub cores: Option<u32>,
}

const fn rule(
    id: &'static str,
    phrases: &'static [&'static str],
    not: &'static [&'static str],
    memory_gib: Option<(f64, f64)>,
) -> Rule {
    Rule {
        id,
        phrases,
        not,
        memory_gib,
        cores: None,
    }
}

const fn apple(
    id: &'static str,
    chip: &'static [&'static str],
    cores: u32,
    gib: (f64, f64),
) -> Rule {
    Rule {
        id,
        phrases: chip,
        not: &[],
        memory_gib: Some(gib),
        cores: Some(cores),
    }
}

/// The rules, most specific first within a family. Catalog names and
/// memory: catalog/hardware/*.toml; the names tools report: nvidia-smi's
/// `name` query field ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB",
/// "NVIDIA GeForce RTX 4090", "Tesla T4"), rocm-smi's "Card Series".
pub const RULES: &[Rule] = &[
    // NVIDIA data centre. H100: SXM reports "H100 80GB HBM3"; the PCIe and
    // NVL parts say so in their names; the 96 GB part is told by memory.
    rule(
        "h100-sxm",
        &["H100", "HBM3"],
        &["PCIe", "NVL"],
        Some((70.0, 88.0)),
    ),
    rule(
        "h100-sxm-96gb",
        &["H100"],
        &["PCIe", "NVL"],
        Some((88.0, 100.0)),
    ),
    rule("h100-pcie", &["H100", "PCIe"], &[], Some((70.0, 88.0))),
    rule("h100-nvl", &["H100", "NVL"], &[], Some((88.0, 100.0))),
    rule("h200-sxm", &["H200"], &["NVL"], Some((130.0, 150.0))),
    rule("a100-sxm-80gb", &["A100 SXM4"], &[], Some((70.0, 88.0))),
    rule("a100-sxm-40gb", &["A100 SXM4"], &[], Some((35.0, 45.0))),
    rule("a100-pcie-80gb", &["A100", "PCIe"], &[], Some((70.0, 88.0))),
    rule("v100-sxm2-32gb", &["V100 SXM2"], &[], Some((28.0, 36.0))),
    rule("b200", &["B200"], &[], Some((170.0, 190.0))),
    rule("t4", &["T4"], &[], Some((14.0, 17.0))),
    rule("a10", &["A10"], &[], Some((20.0, 25.0))),
    rule("l4", &["L4"], &[], Some((20.0, 25.0))),
    rule("l40s", &["L40S"], &[], Some((40.0, 50.0))),
    // NVIDIA workstation.
    rule(
        "rtx-4090",
        &["RTX 4090"],
        &["D", "Laptop"],
        Some((20.0, 25.0)),
    ),
    rule(
        "rtx-5090",
        &["RTX 5090"],
        &["D", "Laptop"],
        Some((28.0, 33.0)),
    ),
    rule("rtx-6000-ada", &["RTX 6000 Ada"], &[], Some((44.0, 50.0))),
    // AMD Instinct: older rocm-smi names the MI300X "MI300 (MCM)"; its
    // 192 GB (rocm-smi: 205822885888 B, 191.7 GiB) tells it from the
    // 128 GB MI300A. The catalog's MI250X is both GCDs (128 GB); rocm-smi
    // lists each GCD (64 GB) as a card, which is not that entry.
    rule("mi300x", &["MI300X"], &[], Some((180.0, 200.0))),
    rule("mi300x", &["MI300"], &["MI300A"], Some((180.0, 200.0))),
    rule("mi325x", &["MI325X"], &[], Some((240.0, 260.0))),
    rule("mi250x", &["MI250X"], &[], Some((120.0, 136.0))),
    // Apple silicon: the catalog entries are one core count and memory
    // size each (catalog/hardware/apple.toml names them).
    apple("m2-ultra", &["Apple M2 Ultra"], 24, (180.0, 192.0)),
    apple("m3-max", &["Apple M3 Max"], 16, (120.0, 128.0)),
    apple("m4-max", &["Apple M4 Max"], 16, (120.0, 128.0)),
    // Boards whose CPU is the device (catalog/hardware/edge.toml).
    rule(
        "raspberry-pi-5-8gb",
        &["Raspberry Pi 5"],
        &[],
        Some((7.0, 8.0)),
    ),
];

/// A detected device as the matcher sees it.
#[derive(Debug, Clone, Copy)]
pub struct Detected<'a> {
    pub name: &'a str,
    pub memory_bytes: Option<u64>,
    pub cores: Option<u32>,
}

/// The outcome: the catalog id (None: unmatched) and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Match {
    pub id: Option<String>,
    pub reason: String,
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether the words of `phrase` appear consecutively in `name_words`.
fn has_phrase(name_words: &[String], phrase: &str) -> bool {
    let p = words(phrase);
    !p.is_empty() && name_words.windows(p.len()).any(|w| w == p.as_slice())
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / GIB)
}

/// Match a device to the catalog. Rules whose id the catalog lacks are
/// skipped; when no rule fits, an entry whose display name equals the
/// detected name (a user's own entry) matches.
pub fn match_device(d: Detected<'_>, cat: &Catalog) -> Match {
    let name_words = words(d.name);
    let mut near: Option<String> = None;
    for r in RULES {
        if cat.hardware(r.id).is_err() {
            continue;
        }
        if !r.phrases.iter().all(|p| has_phrase(&name_words, p)) {
            continue;
        }
        if r.not.iter().any(|w| has_phrase(&name_words, w)) {
            continue;
        }
        let mut why: Vec<String> = r.phrases.iter().map(|p| format!("'{p}'")).collect();
        if let Some((lo, hi)) = r.memory_gib {
            match d.memory_bytes {
                Some(b) if (lo..=hi).contains(&(b as f64 / GIB)) => why.push(gib(b)),
                Some(b) => {
                    near.get_or_insert(format!(
                        "name fits {} but its {} is outside {lo}-{hi} GiB",
                        r.id,
                        gib(b)
                    ));
                    continue;
                }
                None => {
                    near.get_or_insert(format!(
                        "name fits {} but the memory size, which tells its variants apart, is unknown",
                        r.id
                    ));
                    continue;
                }
            }
        }
        if let Some(cores) = r.cores {
            match d.cores {
                Some(c) if c == cores => why.push(format!("{c} CPU cores")),
                Some(c) => {
                    near.get_or_insert(format!(
                        "name fits {} ({cores} CPU cores) but this chip has {c}",
                        r.id
                    ));
                    continue;
                }
                None => continue,
            }
        }
        return Match {
            id: Some(r.id.to_string()),
            reason: format!("matched {}: name {}", r.id, why.join(" + ")),
        };
    }
    if let Some(e) = cat
        .hardware
        .iter()
        .find(|e| e.hw.name.eq_ignore_ascii_case(d.name.trim()))
    {
        return Match {
            id: Some(e.hw.id.clone()),
            reason: format!("matched {}: the catalog entry has this exact name", e.hw.id),
        };
    }
    Match {
        id: None,
        reason: match near {
            Some(n) => format!("unmatched: {n}"),
            None => format!("unmatched: no catalog entry for '{}'", d.name.trim()),
        },
    }
}
