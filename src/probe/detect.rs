//! What the machine in hand is: its CPU (model, sockets, cores, threads,
//! SIMD width, caches, memory). Everything here is a pure parser over the
//! text the operating system hands out (`/proc/cpuinfo`, `/proc/meminfo`,
//! the sysfs cache directories, macOS `sysctl` output), so recorded
//! fixtures of other machines test it; [`detect_cpu`] is the only function
//! that reads the live system, and it never needs root and never panics.
//! GPUs are in [`super::detect_gpu`].

use std::collections::{BTreeMap, BTreeSet};

/// One cache level of the machine, as the OS describes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CacheLevel {
    /// 1, 2, 3 (or 4 for an L4 / system-level cache).
    pub level: u8,
    /// "Data", "Unified" or "Instruction" (sysfs spelling).
    pub kind: String,
    /// Size of ONE instance of this cache.
    pub size_bytes: u64,
    /// Hardware threads sharing one instance (1 for a private L1 without
    /// SMT, 2 for a private L1 with two-way SMT, all threads of a socket
    /// for a shared L3).
    pub shared_by_threads: u32,
    /// Instances of this cache on the whole machine (per machine, not per
    /// socket): the machine's total at this level is `size_bytes *
    /// instances`.
    pub instances: u32,
}

/// The widest SIMD the CPU offers, for sizing FLOP kernels. In JSON:
/// `{"name": "AVX-512", "bits": 512}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simd {
    Avx512,
    Avx2,
    Avx,
    Sse2,
    Neon,
    /// Arm SVE; `bits` is the vector length in use (128 when unknown, the
    /// architectural minimum).
    Sve {
        bits: u32,
    },
    Scalar,
}

impl Simd {
    /// Vector register width in bits (64 for scalar: one f64 lane).
    pub fn bits(&self) -> u32 {
        match self {
            Simd::Avx512 => 512,
            Simd::Avx2 | Simd::Avx => 256,
            Simd::Sse2 | Simd::Neon => 128,
            Simd::Sve { bits } => *bits,
            Simd::Scalar => 64,
        }
    }

    /// The name users know the extension by.
    pub fn name(&self) -> &str {
        match self {
            Simd::Avx512 => "AVX-512",
            Simd::Avx2 => "AVX2",
            Simd::Avx => "AVX",
            Simd::Sse2 => "SSE2",
            Simd::Neon => "NEON",
            Simd::Sve { .. } => "SVE",
            Simd::Scalar => "scalar",
        }
    }
}

impl serde::Serialize for Simd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Simd", 2)?;
        st.serialize_field("name", self.name())?;
        st.serialize_field("bits", &self.bits())?;
        st.end()
    }
}

/// The CPU side of the machine.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CpuInfo {
    /// "AMD EPYC 7763 64-Core Processor", "Cortex-A76", "Apple M2 Max".
    pub model: String,
    /// "AuthenticAMD", "GenuineIntel", "ARM", "Apple", or "unknown".
    pub vendor: String,
    pub sockets: u32,
    /// Physical cores on the whole machine.
    pub cores: u32,
    /// Hardware threads (logical CPUs) on the whole machine.
    pub threads: u32,
    pub simd: Simd,
    /// One entry per (level, kind), L1 first.
    pub caches: Vec<CacheLevel>,
    /// Installed memory the OS sees (MemTotal on Linux, hw.memsize on macOS).
    pub memory_bytes: Option<u64>,
    /// Highest clock the OS reports (cpufreq max, else the cpuinfo "cpu MHz"
    /// of the fastest CPU).
    pub max_mhz: Option<f64>,
}

impl CpuInfo {
    /// The last-level data (or unified) cache, the one a memory-bandwidth
    /// buffer must overflow.
    pub fn last_level_cache(&self) -> Option<&CacheLevel> {
        self.caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .max_by_key(|c| c.level)
    }
}

/// What `/proc/cpuinfo` says, before caches and memory are added.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuinfoFacts {
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub sockets: u32,
    pub cores: u32,
    pub threads: u32,
    pub simd: Simd,
    pub max_mhz: Option<f64>,
}

/// Common Arm core part numbers (the `CPU part` line of an Arm cpuinfo,
/// implementer 0x41 = Arm Ltd.), from Arm's Technical Reference Manuals
/// (MIDR_EL1.PartNum) as the Linux kernel's `arch/arm64/include/asm/cputype.h`
/// lists them.
const ARM_PARTS: &[(u32, &str)] = &[
    (0xd03, "Cortex-A53"),
    (0xd04, "Cortex-A35"),
    (0xd05, "Cortex-A55"),
    (0xd07, "Cortex-A57"),
    (0xd08, "Cortex-A72"),
    (0xd09, "Cortex-A73"),
    (0xd0a, "Cortex-A75"),
    (0xd0b, "Cortex-A76"),
    (0xd0c, "Neoverse-N1"),
    (0xd0d, "Cortex-A77"),
    (0xd40, "Neoverse-V1"),
    (0xd41, "Cortex-A78"),
    (0xd44, "Cortex-X1"),
    (0xd46, "Cortex-A510"),
    (0xd47, "Cortex-A710"),
    (0xd48, "Cortex-X2"),
    (0xd49, "Neoverse-N2"),
    (0xd4b, "Cortex-A78C"),
    (0xd4f, "Neoverse-V2"),
];

/// Arm implementer codes (`CPU implementer` line), same source.
const ARM_IMPLEMENTERS: &[(u32, &str)] = &[
    (0x41, "ARM"),
    (0x42, "Broadcom"),
    (0x4e, "NVIDIA"),
    (0x51, "Qualcomm"),
    (0x61, "Apple"),
    (0xc0, "Ampere"),
];

/// Name of an Arm core from its implementer and part numbers, if known.
pub fn arm_part_name(implementer: u32, part: u32) -> Option<&'static str> {
    if implementer != 0x41 {
        return None;
    }
    ARM_PARTS.iter().find(|(p, _)| *p == part).map(|(_, n)| *n)
}

fn parse_hex(s: &str) -> Option<u32> {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    u32::from_str_radix(s, 16).ok()
}

/// Parse `/proc/cpuinfo` (x86 or Arm layout). Unknown or missing fields
/// become `None` or the most modest honest value (one socket; cores equal
/// to threads when the file does not say).
pub fn parse_cpuinfo(text: &str) -> CpuinfoFacts {
    let mut threads = 0u32;
    let mut model = None;
    let mut hardware = None;
    let mut board: Option<String> = None;
    let mut vendor = None;
    let mut flags: Option<String> = None;
    let mut sockets = BTreeSet::new();
    // (physical id, core id) pairs: distinct physical cores.
    let mut cores = BTreeSet::new();
    let mut current_phys: Option<String> = None;
    let mut arm_impl = None;
    let mut arm_part = None;
    let mut max_mhz: Option<f64> = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        match key {
            "processor"
                // Arm's old 32-bit layout has a "Processor : ARMv7 ..." line
                // (capital P) that is a model name, not a CPU index.
                if value.parse::<u32>().is_ok() => {
                    threads += 1;
                    current_phys = None;
                }
            "Processor" if model.is_none() => model = Some(value.to_string()),
            "model name" if model.is_none() && !value.is_empty() => model = Some(value.to_string()),
            "Hardware" if hardware.is_none() => hardware = Some(value.to_string()),
            "Model" if board.is_none() => board = Some(value.to_string()),
            "vendor_id" if vendor.is_none() => vendor = Some(value.to_string()),
            "flags" | "Features" if flags.is_none() => flags = Some(value.to_string()),
            "physical id" => {
                sockets.insert(value.to_string());
                current_phys = Some(value.to_string());
            }
            "core id" => {
                cores.insert((current_phys.clone().unwrap_or_default(), value.to_string()));
            }
            "CPU implementer" if arm_impl.is_none() => arm_impl = parse_hex(value),
            "CPU part" if arm_part.is_none() => arm_part = parse_hex(value),
            "cpu MHz" => {
                if let Ok(mhz) = value.parse::<f64>()
                    && mhz.is_finite() && mhz > 0.0 {
                        max_mhz = Some(max_mhz.map_or(mhz, |m: f64| m.max(mhz)));
                    }
            }
            _ => {}
        }
    }
    if vendor.is_none()
        && let Some(code) = arm_impl
    {
        vendor = Some(
            ARM_IMPLEMENTERS
                .iter()
                .find(|(c, _)| *c == code)
                .map(|(_, n)| n.to_string())
                .unwrap_or_else(|| format!("Arm implementer {code:#04x}")),
        );
    }
    // 32-bit Arm kernels name every core "ARMv7 Processor rev 3 (v7l)":
    // the part number says more.
    if model.as_deref().is_some_and(|m| m.starts_with("ARMv"))
        && arm_impl
            .zip(arm_part)
            .is_some_and(|(i, p)| arm_part_name(i, p).is_some())
    {
        model = None;
    }
    if model.is_none()
        && let (Some(i), Some(p)) = (arm_impl, arm_part)
    {
        model = Some(match arm_part_name(i, p) {
            Some(name) => name.to_string(),
            None => format!("Arm core part {p:#05x}"),
        });
    }
    // A board name ("Raspberry Pi 5 Model B Rev 1.0") says more than a core
    // name alone; keep both (the board's "Model" line before the SoC's
    // "Hardware" line).
    if let (Some(m), Some(h)) = (&model, board.as_ref().or(hardware.as_ref()))
        && !m.contains(h.as_str())
        && arm_impl.is_some()
    {
        model = Some(format!("{m} ({h})"));
    }
    let threads = threads.max(1);
    let sockets_n = (sockets.len() as u32).max(1);
    let cores_n = if cores.is_empty() {
        threads
    } else {
        cores.len() as u32
    };
    CpuinfoFacts {
        model,
        vendor,
        sockets: sockets_n,
        cores: cores_n,
        threads,
        simd: simd_from_flags(flags.as_deref().unwrap_or(""), None),
        max_mhz,
    }
}

/// The widest SIMD named in a cpuinfo `flags` (x86) or `Features` (Arm)
/// line. `sve_bits` is the SVE vector length when known (Linux:
/// `/proc/sys/abi/sve_default_vector_length` is in bytes).
pub fn simd_from_flags(flags: &str, sve_bits: Option<u32>) -> Simd {
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    if has("avx512f") {
        Simd::Avx512
    } else if has("avx2") {
        Simd::Avx2
    } else if has("avx") {
        Simd::Avx
    } else if has("sse2") {
        Simd::Sse2
    } else if has("sve") {
        Simd::Sve {
            bits: sve_bits.unwrap_or(128),
        }
    } else if has("asimd") || has("neon") {
        Simd::Neon
    } else {
        Simd::Scalar
    }
}

/// Parse `/proc/meminfo`: MemTotal in bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("MemTotal:") {
            let mut parts = rest.split_whitespace();
            let n: u64 = parts.next()?.parse().ok()?;
            let unit = parts.next().unwrap_or("B");
            let mul = match unit {
                "kB" | "KB" | "kb" => 1024,
                "MB" | "mB" => 1024 * 1024,
                "GB" => 1024 * 1024 * 1024,
                _ => 1,
            };
            return n.checked_mul(mul);
        }
    }
    None
}

/// A size as sysfs writes it: "32K", "1024K", "32768K", "8M", "512".
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1024),
        'M' | 'm' => (&s[..s.len() - 1], 1024 * 1024),
        'G' | 'g' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mul)
}

/// Number of CPUs in a sysfs CPU list such as "0", "0-1", "0-3,64-67".
pub fn cpu_list_len(list: &str) -> u32 {
    let mut n = 0u32;
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>())
                    && b >= a
                {
                    n = n.saturating_add(b - a + 1);
                }
            }
            None => {
                if part.trim().parse::<u32>().is_ok() {
                    n = n.saturating_add(1);
                }
            }
        }
    }
    n
}

/// Parse the sysfs cache description of every CPU, given as the output of
///
/// ```text
/// grep . /sys/devices/system/cpu/cpu*/cache/index*/{level,type,size,shared_cpu_list}
/// ```
///
/// i.e. lines `/sys/devices/system/cpu/cpuN/cache/indexM/FILE:VALUE`
/// ([`read_sysfs_caches`] builds the same text from the live files). Each
/// distinct (level, type, shared_cpu_list) is one cache instance; instances
/// of the same (level, type) are counted per machine. Entries without a
/// level, type or size are skipped. A hybrid CPU whose clusters have
/// different sizes at one level (Intel P- and E-cores' L2) reports the
/// largest size and the widest sharing.
pub fn parse_sysfs_caches(text: &str) -> Vec<CacheLevel> {
    // (cpu, index) -> file -> value
    let mut entries: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((path, value)) = line.split_once(':') else {
            continue;
        };
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        // .../cpuN/cache/indexM/FILE
        let n = parts.len();
        if n < 4 || parts[n - 3] != "cache" {
            continue;
        }
        let key = (parts[n - 4].to_string(), parts[n - 2].to_string());
        entries
            .entry(key)
            .or_default()
            .insert(parts[n - 1].to_string(), value.trim().to_string());
    }
    // (level, kind) -> (size, set of shared lists)
    let mut levels: BTreeMap<(u8, String), (u64, BTreeSet<String>)> = BTreeMap::new();
    for files in entries.values() {
        let (Some(level), Some(kind), Some(size)) = (
            files.get("level").and_then(|l| l.parse::<u8>().ok()),
            files.get("type"),
            files.get("size").and_then(|s| parse_size(s)),
        ) else {
            continue;
        };
        if size == 0 {
            continue;
        }
        let shared = files
            .get("shared_cpu_list")
            .cloned()
            .unwrap_or_else(|| "?".into());
        let slot = levels
            .entry((level, kind.clone()))
            .or_insert((size, BTreeSet::new()));
        slot.0 = slot.0.max(size);
        slot.1.insert(shared);
    }
    let mut out: Vec<CacheLevel> = levels
        .into_iter()
        .map(|((level, kind), (size_bytes, shared))| {
            let shared_by_threads = shared
                .iter()
                .map(|l| cpu_list_len(l))
                .max()
                .unwrap_or(1)
                .max(1);
            CacheLevel {
                level,
                kind,
                size_bytes,
                shared_by_threads,
                instances: shared.len() as u32,
            }
        })
        .collect();
    out.sort_by_key(|c| (c.level, kind_order(&c.kind)));
    out
}

fn kind_order(kind: &str) -> u8 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        _ => 2,
    }
}

/// Read the live sysfs cache files into the text [`parse_sysfs_caches`]
/// takes. Missing directories give an empty string.
pub fn read_sysfs_caches(root: &std::path::Path) -> String {
    let mut out = String::new();
    let Ok(dir) = std::fs::read_dir(root) else {
        return out;
    };
    let mut cpus: Vec<_> = dir
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix("cpu")
                .is_some_and(|r| r.parse::<u32>().is_ok())
        })
        .collect();
    cpus.sort();
    for cpu in cpus {
        let cache = root.join(&cpu).join("cache");
        let Ok(idx) = std::fs::read_dir(&cache) else {
            continue;
        };
        let mut names: Vec<_> = idx
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("index"))
            .collect();
        names.sort();
        for index in names {
            for file in ["level", "type", "size", "shared_cpu_list"] {
                let path = cache.join(&index).join(file);
                if let Ok(v) = std::fs::read_to_string(&path) {
                    out.push_str(&format!("{}:{}\n", path.display(), v.trim()));
                }
            }
        }
    }
    out
}

/// `key: value` lines of macOS `sysctl` output (`sysctl hw machdep.cpu`).
fn sysctl_map(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':').or_else(|| l.split_once('='))?;
            Some((k.trim(), v.trim()))
        })
        .collect()
}

/// Parse macOS `sysctl` output (`machdep.cpu.brand_string`, `hw.*`) into the
/// CPU description. Apple silicon reports its performance cores' caches as
/// `hw.perflevel0.*` and the efficiency cores' as `hw.perflevel1.*`; the
/// plain `hw.l1dcachesize`/`hw.l2cachesize` keys are used when those are
/// absent (Intel Macs).
pub fn parse_sysctl(text: &str) -> CpuInfo {
    let m = sysctl_map(text);
    let num = |k: &str| m.get(k).and_then(|v| v.parse::<u64>().ok());
    let model = m
        .get("machdep.cpu.brand_string")
        .map(|s| s.to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let vendor = if model.starts_with("Apple") {
        "Apple".to_string()
    } else {
        m.get("machdep.cpu.vendor")
            .map(|s| s.to_string())
            .unwrap_or_else(|| "unknown".into())
    };
    let threads = num("hw.logicalcpu")
        .or_else(|| num("hw.ncpu"))
        .unwrap_or(1)
        .max(1) as u32;
    let cores = num("hw.physicalcpu").map(|c| c as u32).unwrap_or(threads);
    let sockets = num("hw.packages").unwrap_or(1).max(1) as u32;
    let flags = m
        .get("machdep.cpu.features")
        .map(|f| f.to_lowercase())
        .unwrap_or_default()
        + " "
        + &m.get("machdep.cpu.leaf7_features")
            .map(|f| f.to_lowercase())
            .unwrap_or_default();
    let simd = if num("hw.optional.avx512f") == Some(1) {
        Simd::Avx512
    } else if num("hw.optional.avx2_0") == Some(1) {
        Simd::Avx2
    } else if num("hw.optional.neon") == Some(1) || num("hw.optional.arm64") == Some(1) {
        Simd::Neon
    } else {
        simd_from_flags(&flags.replace('.', "_"), None)
    };
    let mut caches = Vec::new();
    let nlevels = num("hw.nperflevels").unwrap_or(0);
    if nlevels > 0 {
        // Performance cores first: the level a kernel runs on by default.
        for p in 0..nlevels {
            let pre = format!("hw.perflevel{p}");
            let ncores = num(&format!("{pre}.physicalcpu")).unwrap_or(0) as u32;
            let l1 = num(&format!("{pre}.l1dcachesize"));
            let l2 = num(&format!("{pre}.l2cachesize"));
            let per_l2 = num(&format!("{pre}.cpusperl2")).unwrap_or(ncores as u64) as u32;
            if let Some(s) = l1 {
                push_or_add(&mut caches, 1, "Data", s, 1, ncores);
            }
            if let Some(s) = l2 {
                let inst = if per_l2 > 0 {
                    ncores.div_ceil(per_l2)
                } else {
                    1
                };
                push_or_add(&mut caches, 2, "Unified", s, per_l2.max(1), inst.max(1));
            }
        }
    } else {
        let per_core_threads = (threads / cores.max(1)).max(1);
        if let Some(s) = num("hw.l1dcachesize") {
            caches.push(CacheLevel {
                level: 1,
                kind: "Data".into(),
                size_bytes: s,
                shared_by_threads: per_core_threads,
                instances: cores,
            });
        }
        if let Some(s) = num("hw.l2cachesize") {
            caches.push(CacheLevel {
                level: 2,
                kind: "Unified".into(),
                size_bytes: s,
                shared_by_threads: per_core_threads,
                instances: cores,
            });
        }
        if let Some(s) = num("hw.l3cachesize") {
            caches.push(CacheLevel {
                level: 3,
                kind: "Unified".into(),
                size_bytes: s,
                shared_by_threads: threads / sockets,
                instances: sockets,
            });
        }
    }
    let max_mhz = num("hw.cpufrequency_max").map(|hz| hz as f64 / 1e6);
    CpuInfo {
        model,
        vendor,
        sockets,
        cores,
        threads,
        simd,
        caches,
        memory_bytes: num("hw.memsize"),
        max_mhz,
    }
}

/// Add instances to an existing (level, kind, size) entry or push a new one
/// (Apple's two core clusters can have different cache sizes; each size is
/// its own entry).
fn push_or_add(
    caches: &mut Vec<CacheLevel>,
    level: u8,
    kind: &str,
    size: u64,
    shared: u32,
    instances: u32,
) {
    if instances == 0 {
        return;
    }
    if let Some(c) = caches
        .iter_mut()
        .find(|c| c.level == level && c.kind == kind && c.size_bytes == size)
    {
        c.instances += instances;
    } else {
        caches.push(CacheLevel {
            level,
            kind: kind.to_string(),
            size_bytes: size,
            shared_by_threads: shared,
            instances,
        });
    }
}

/// Combine the Linux sources into one description.
pub fn cpu_from_linux(
    cpuinfo: &str,
    sysfs_caches: &str,
    meminfo: &str,
    cpufreq_max_khz: Option<u64>,
    sve_bits: Option<u32>,
) -> CpuInfo {
    let f = parse_cpuinfo(cpuinfo);
    let simd = match (f.simd, sve_bits) {
        (Simd::Sve { .. }, Some(bits)) => Simd::Sve { bits },
        (s, _) => s,
    };
    let max_mhz = cpufreq_max_khz
        .filter(|k| *k > 0)
        .map(|k| k as f64 / 1000.0)
        .or(f.max_mhz);
    CpuInfo {
        model: f.model.unwrap_or_else(|| "unknown CPU".into()),
        vendor: f.vendor.unwrap_or_else(|| "unknown".into()),
        sockets: f.sockets,
        cores: f.cores,
        threads: f.threads,
        simd,
        caches: parse_sysfs_caches(sysfs_caches),
        memory_bytes: parse_meminfo(meminfo),
        max_mhz,
    }
}

/// Describe the CPU of this machine. Never panics and never needs root;
/// what cannot be read falls back to the modest values of the parsers
/// ("unknown CPU", one socket, no caches, no memory figure).
pub fn detect_cpu() -> CpuInfo {
    let mut cpu = detect_cpu_os();
    // The OS files may be hidden (containers, sandboxes): the thread count
    // the process may use is still known.
    if cpu.threads <= 1
        && let Ok(n) = std::thread::available_parallelism()
    {
        let n = n.get() as u32;
        if n > cpu.threads {
            cpu.threads = n;
            cpu.cores = n;
        }
    }
    cpu
}

#[cfg(target_os = "macos")]
fn detect_cpu_os() -> CpuInfo {
    detect_cpu_sysctl()
}

/// macOS: `sysctl hw machdep.cpu`, with the probe's deadline. Compiled on
/// every system so that it is checked everywhere.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn detect_cpu_sysctl() -> CpuInfo {
    let out = super::run::run_with_timeout(
        "sysctl",
        &["hw", "machdep.cpu"],
        std::time::Duration::from_secs(2),
    );
    parse_sysctl(out.stdout().unwrap_or(""))
}

#[cfg(not(target_os = "macos"))]
fn detect_cpu_os() -> CpuInfo {
    detect_cpu_linux()
}

/// Linux (and any system with its files): /proc and /sys.
#[cfg_attr(target_os = "macos", allow(dead_code))]
fn detect_cpu_linux() -> CpuInfo {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let meminfo = read("/proc/meminfo");
    let caches = read_sysfs_caches(std::path::Path::new("/sys/devices/system/cpu"));
    let khz = read("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
        .trim()
        .parse::<u64>()
        .ok();
    let sve = read("/proc/sys/abi/sve_default_vector_length")
        .trim()
        .parse::<u32>()
        .ok()
        .map(|bytes| bytes * 8);
    cpu_from_linux(&cpuinfo, &caches, &meminfo, khz, sve)
}
