//! `ridgeline probe` detection: parsers over recorded (or format-faithful)
//! fixtures in tests/fixtures/probe/, the catalog matcher, and the command.

mod common;

use common::cli::{json, ridgeline};
use ridgeline::catalog::Catalog;
use ridgeline::probe::detect::{
    CacheLevel, CpuInfo, Simd, cpu_from_linux, cpu_list_len, parse_cpuinfo, parse_meminfo,
    parse_size, parse_sysctl, parse_sysfs_caches,
};
use ridgeline::probe::detect_gpu::{
    GpuInfo, apple_gpu, parse_nvidia_proc, parse_nvidia_smi, parse_rocm_smi,
};
use ridgeline::probe::matching::{Detected, match_device};
use ridgeline::probe::{Machine, gpu_groups, resolve_local_in};

const X86_CPUINFO: &str = include_str!("fixtures/probe/x86-epyc-vm.cpuinfo");
const X86_MEMINFO: &str = include_str!("fixtures/probe/x86-epyc-vm.meminfo");
const X86_CACHES: &str = include_str!("fixtures/probe/x86-epyc-vm.sysfs-caches");
const RPI5_CPUINFO: &str = include_str!("fixtures/probe/rpi5.cpuinfo");
const RPI5_CACHES: &str = include_str!("fixtures/probe/rpi5.sysfs-caches");
const RPI5_MEMINFO: &str = include_str!("fixtures/probe/rpi5.meminfo");
const RPI4_CPUINFO: &str = include_str!("fixtures/probe/rpi4.cpuinfo");

fn cache(level: u8, kind: &str, size_bytes: u64, shared: u32, instances: u32) -> CacheLevel {
    CacheLevel {
        level,
        kind: kind.into(),
        size_bytes,
        shared_by_threads: shared,
        instances,
    }
}

#[test]
fn x86_server_cpuinfo() {
    let f = parse_cpuinfo(X86_CPUINFO);
    // "model name	: AMD EPYC", "vendor_id	: AuthenticAMD".
    assert_eq!(f.model.as_deref(), Some("AMD EPYC"));
    assert_eq!(f.vendor.as_deref(), Some("AuthenticAMD"));
    // Two "processor" blocks (0 and 1), both "physical id : 0", core ids 0
    // and 1: one socket, two cores, two threads (no SMT).
    assert_eq!((f.sockets, f.cores, f.threads), (1, 2, 2));
    // The flags line names avx512f.
    assert_eq!(f.simd, Simd::Avx512);
    assert_eq!(f.simd.bits(), 512);
    // "cpu MHz : 2596.140" on both blocks (the fixture's first block).
    let mhz = f.max_mhz.unwrap();
    assert!((2590.0..2600.0).contains(&mhz), "{mhz}");
}

#[test]
fn x86_server_caches_and_memory() {
    let c = parse_sysfs_caches(X86_CACHES);
    // index0 Data 32K, index1 Instruction 32K, index2 Unified 1024K, each
    // with shared_cpu_list "0" on cpu0 and "1" on cpu1: private, 2 instances.
    // index3 Unified 32768K, "0-1" on both CPUs: one instance of 2 threads.
    assert_eq!(
        c,
        vec![
            cache(1, "Data", 32 * 1024, 1, 2),
            cache(1, "Instruction", 32 * 1024, 1, 2),
            cache(2, "Unified", 1024 * 1024, 1, 2),
            cache(3, "Unified", 32 * 1024 * 1024, 2, 1),
        ]
    );
    // "MemTotal:       24683792 kB" -> 24683792 * 1024 bytes.
    assert_eq!(parse_meminfo(X86_MEMINFO), Some(24_683_792 * 1024));
    let cpu = cpu_from_linux(X86_CPUINFO, X86_CACHES, X86_MEMINFO, None, None);
    // The last-level data cache is the 32 MiB L3.
    assert_eq!(cpu.last_level_cache().unwrap().level, 3);
}

#[test]
fn raspberry_pi_5_cpuinfo_maps_the_part_number() {
    let f = parse_cpuinfo(RPI5_CPUINFO);
    // No "model name": "CPU implementer 0x41" (Arm) + "CPU part 0xd0b" is a
    // Cortex-A76; the board line "Model : Raspberry Pi 5 Model B Rev 1.0"
    // is kept beside it.
    assert_eq!(
        f.model.as_deref(),
        Some("Cortex-A76 (Raspberry Pi 5 Model B Rev 1.0)")
    );
    assert_eq!(f.vendor.as_deref(), Some("ARM"));
    // Four "processor" blocks, no "physical id"/"core id": one socket,
    // cores = threads = 4.
    assert_eq!((f.sockets, f.cores, f.threads), (1, 4, 4));
    // "Features" has asimd and no sve: NEON, 128 bits.
    assert_eq!(f.simd, Simd::Neon);
    assert_eq!(f.simd.bits(), 128);
    // Arm cpuinfo has no "cpu MHz" line.
    assert_eq!(f.max_mhz, None);
}

#[test]
fn raspberry_pi_5_caches_and_memory() {
    // Per core: L1d 64K, L1i 64K, L2 512K (4 instances); one L3 of 2048K
    // shared by CPUs 0-3.
    assert_eq!(
        parse_sysfs_caches(RPI5_CACHES),
        vec![
            cache(1, "Data", 64 * 1024, 1, 4),
            cache(1, "Instruction", 64 * 1024, 1, 4),
            cache(2, "Unified", 512 * 1024, 1, 4),
            cache(3, "Unified", 2048 * 1024, 4, 1),
        ]
    );
    // "MemTotal:        8245728 kB".
    assert_eq!(parse_meminfo(RPI5_MEMINFO), Some(8_245_728 * 1024));
    // cpufreq's cpuinfo_max_freq in kHz (2400000 on a Pi 5) wins over
    // the absent cpu MHz line: 2400000 / 1000 = 2400 MHz.
    let cpu = cpu_from_linux(
        RPI5_CPUINFO,
        RPI5_CACHES,
        RPI5_MEMINFO,
        Some(2_400_000),
        None,
    );
    assert_eq!(cpu.max_mhz, Some(2400.0));
}

#[test]
fn raspberry_pi_4_board_line_wins_over_soc_line() {
    let f = parse_cpuinfo(RPI4_CPUINFO);
    // "CPU part 0xd08" is a Cortex-A72; the "Model" line is preferred to
    // "Hardware : BCM2835" (which names the SoC family wrongly on a Pi 4).
    assert_eq!(
        f.model.as_deref(),
        Some("Cortex-A72 (Raspberry Pi 4 Model B Rev 1.4)")
    );
    // No cache directories on this board: no levels, not an error.
    assert!(parse_sysfs_caches("").is_empty());
}

#[test]
fn arm_32_bit_kernel_generic_name_gives_way_to_the_part() {
    // The layout of a 32-bit Raspberry Pi OS /proc/cpuinfo (arch/arm's
    // "model name : ARMv7 Processor rev 3 (v7l)" on every core).
    let text = "processor\t: 0\nmodel name\t: ARMv7 Processor rev 3 (v7l)\n\
        Features\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt\n\
        CPU implementer\t: 0x41\nCPU architecture: 7\nCPU part\t: 0xd08\n";
    let f = parse_cpuinfo(text);
    // 0x41 / 0xd08: Cortex-A72; "neon" in Features: NEON.
    assert_eq!(f.model.as_deref(), Some("Cortex-A72"));
    assert_eq!(f.simd, Simd::Neon);
}

#[test]
fn sve_and_unknown_inputs() {
    use ridgeline::probe::detect::simd_from_flags;
    // A Neoverse-V1 style Features line with sve; the vector length comes
    // from /proc/sys/abi/sve_default_vector_length (32 bytes = 256 bits).
    assert_eq!(
        simd_from_flags("fp asimd sve sve2", Some(256)),
        Simd::Sve { bits: 256 }
    );
    // Unknown length: the architectural minimum, 128.
    assert_eq!(simd_from_flags("fp asimd sve", None).bits(), 128);
    // Empty or garbage input never panics and gives modest values.
    let f = parse_cpuinfo("garbage\n::\nprocessor : x\n");
    assert_eq!((f.sockets, f.cores, f.threads), (1, 1, 1));
    assert_eq!(f.simd, Simd::Scalar);
    assert_eq!(parse_meminfo("MemTotal: lots kB"), None);
    assert!(parse_sysfs_caches("nonsense:1\n/a/b:2\n").is_empty());
    // Sizes and CPU lists as sysfs writes them.
    assert_eq!(parse_size("32K"), Some(32 * 1024));
    assert_eq!(parse_size("8M"), Some(8 * 1024 * 1024));
    assert_eq!(parse_size("K"), None);
    // "0-3,64-67": 4 + 4 = 8 CPUs.
    assert_eq!(cpu_list_len("0-3,64-67"), 8);
    assert_eq!(cpu_list_len("5"), 1);
    assert_eq!(cpu_list_len("3-1"), 0);
}

const NV_H100: &str = include_str!("fixtures/probe/nvidia-smi-8xh100.csv");
const NV_A100: &str = include_str!("fixtures/probe/nvidia-smi-a100.csv");
const NV_4090: &str = include_str!("fixtures/probe/nvidia-smi-rtx4090.csv");
const NV_PROC: &str = include_str!("fixtures/probe/nvidia-proc-h100.information");
const ROCM_MI300X: &str = include_str!("fixtures/probe/rocm-smi-mi300x.json");
const MAC_M2_MAX: &str = include_str!("fixtures/probe/macos-m2-max.sysctl");
const MAC_M3_MAX: &str = include_str!("fixtures/probe/macos-m3-max.sysctl");

const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;

#[test]
fn nvidia_smi_gpu_box() {
    let g = parse_nvidia_smi(NV_H100);
    // Eight data lines (indices 0-7), the two '#' lines skipped.
    assert_eq!(g.len(), 8);
    assert_eq!(g[0].name, "NVIDIA H100 80GB HBM3");
    // memory.total 81559 (MiB, nounits).
    assert_eq!(g[0].memory_bytes, Some(81_559 * MIB));
    assert_eq!(g[7].bus_id.as_deref(), Some("00000000:DB:00.0"));
    assert!(
        g.iter()
            .all(|x| x.vendor == "NVIDIA" && x.source == "nvidia-smi")
    );

    let a = parse_nvidia_smi(NV_A100);
    // Four lines of "NVIDIA A100-SXM4-80GB, 81920".
    assert_eq!(a.len(), 4);
    assert_eq!(a[3].name, "NVIDIA A100-SXM4-80GB");
    assert_eq!(a[3].memory_bytes, Some(81_920 * MIB));

    let r = parse_nvidia_smi(NV_4090);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].name, "NVIDIA GeForce RTX 4090");
    assert_eq!(r[0].memory_bytes, Some(24_564 * MIB));
}

#[test]
fn nvidia_smi_odd_output() {
    // An error message instead of CSV, a field "[N/A]", a short line.
    assert!(
        parse_nvidia_smi(
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        )
        .is_empty()
    );
    let g = parse_nvidia_smi("0, NVIDIA H100 80GB HBM3, [N/A], [N/A]\n1, x\n");
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].memory_bytes, None);
    assert_eq!(g[0].bus_id, None);
}

#[test]
fn nvidia_driver_proc_entry() {
    let g = parse_nvidia_proc(NV_PROC).unwrap();
    // "Model: NVIDIA H100 80GB HBM3", "Bus Location: 0000:18:00.0"; the file
    // has no memory size.
    assert_eq!(g.name, "NVIDIA H100 80GB HBM3");
    assert_eq!(g.bus_id.as_deref(), Some("0000:18:00.0"));
    assert_eq!(g.memory_bytes, None);
    assert_eq!(parse_nvidia_proc("IRQ: 5\n"), None);
}

#[test]
fn rocm_smi_mi300x_box() {
    let g = parse_rocm_smi(ROCM_MI300X);
    // card0..card7, in card order.
    assert_eq!(g.len(), 8);
    assert_eq!(g[0].name, "AMD Instinct MI300X OAM");
    // "VRAM Total Memory (B)": "205822885888".
    assert_eq!(g[0].memory_bytes, Some(205_822_885_888));
    assert!(g.iter().all(|x| x.vendor == "AMD"));
    // Newer rocm-smi spells it "Card series"; not JSON gives nothing.
    let lower = parse_rocm_smi(r#"{"card1": {"Card series": "AMD Instinct MI300X"}}"#);
    assert_eq!(lower[0].name, "AMD Instinct MI300X");
    assert!(parse_rocm_smi("ERROR: no GPUs").is_empty());
    assert!(parse_rocm_smi("{ not json").is_empty());
}

#[test]
fn macos_sysctl_m2_max() {
    let c = parse_sysctl(MAC_M2_MAX);
    assert_eq!(c.model, "Apple M2 Max");
    assert_eq!(c.vendor, "Apple");
    // hw.physicalcpu 12, hw.logicalcpu 12, hw.packages 1.
    assert_eq!((c.sockets, c.cores, c.threads), (1, 12, 12));
    // hw.optional.neon: 1.
    assert_eq!(c.simd, Simd::Neon);
    // hw.memsize 34359738368 = 32 GiB.
    assert_eq!(c.memory_bytes, Some(32 * GIB));
    // perflevel0: 8 cores, L1d 131072 each, L2 16777216 per 4 cores ->
    // 8/4 = 2 instances; perflevel1: 4 cores, L1d 65536, L2 4194304 per 4
    // cores -> 1 instance.
    assert_eq!(
        c.caches,
        vec![
            cache(1, "Data", 131_072, 1, 8),
            cache(2, "Unified", 16_777_216, 4, 2),
            cache(1, "Data", 65_536, 1, 4),
            cache(2, "Unified", 4_194_304, 4, 1),
        ]
    );
    // The GPU is the chip: same name, unified memory.
    let g = apple_gpu(&c).unwrap();
    assert_eq!(g.name, "Apple M2 Max");
    assert_eq!(g.memory_bytes, Some(32 * GIB));
}

fn detected(name: &str, memory_bytes: Option<u64>) -> Detected<'_> {
    Detected {
        name,
        memory_bytes,
        cores: None,
    }
}

fn matched(name: &str, memory_bytes: Option<u64>, cores: Option<u32>) -> Option<String> {
    match_device(
        Detected {
            name,
            memory_bytes,
            cores,
        },
        &Catalog::builtin(),
    )
    .id
}

#[test]
fn matcher_maps_each_fixture_device() {
    let cat = Catalog::builtin();
    let h100 = &parse_nvidia_smi(NV_H100)[0];
    let m = match_device(detected(&h100.name, h100.memory_bytes), &cat);
    // 81559 MiB / 1024 = 79.65 GiB, in the 70-88 GiB of the SXM part.
    assert_eq!(m.id.as_deref(), Some("h100-sxm"));
    assert_eq!(
        m.reason,
        "matched h100-sxm: name 'H100' + 'HBM3' + 79.6 GiB"
    );
    let a100 = &parse_nvidia_smi(NV_A100)[0];
    assert_eq!(
        match_device(detected(&a100.name, a100.memory_bytes), &cat)
            .id
            .as_deref(),
        Some("a100-sxm-80gb")
    );
    let rtx = &parse_nvidia_smi(NV_4090)[0];
    assert_eq!(
        match_device(detected(&rtx.name, rtx.memory_bytes), &cat)
            .id
            .as_deref(),
        Some("rtx-4090")
    );
    let mi = &parse_rocm_smi(ROCM_MI300X)[0];
    // 205822885888 B / 2^30 = 191.7 GiB, in 180-200.
    let m = match_device(detected(&mi.name, mi.memory_bytes), &cat);
    assert_eq!(m.id.as_deref(), Some("mi300x"));
    assert_eq!(m.reason, "matched mi300x: name 'MI300X' + 191.7 GiB");
    // No M2 Max entry in the catalog (apple.toml has the M2 Ultra, M3 Max,
    // M4 Max): unmatched, and not taken for the M2 Ultra.
    let m2 = parse_sysctl(MAC_M2_MAX);
    let m = match_device(
        Detected {
            name: &m2.model,
            memory_bytes: m2.memory_bytes,
            cores: Some(m2.cores),
        },
        &cat,
    );
    assert_eq!(m.id, None);
    assert_eq!(m.reason, "unmatched: no catalog entry for 'Apple M2 Max'");
    // The M3 Max with 16 cores and 128 GiB (hw.memsize 137438953472) is the
    // catalog's m3-max.
    let m3 = parse_sysctl(MAC_M3_MAX);
    assert_eq!(
        matched(&m3.model, m3.memory_bytes, Some(m3.cores)).as_deref(),
        Some("m3-max")
    );
    // A Raspberry Pi 5 8GB: MemTotal 8245728 kB = 7.86 GiB, in 7-8 GiB.
    let pi = cpu_from_linux(RPI5_CPUINFO, RPI5_CACHES, RPI5_MEMINFO, None, None);
    assert_eq!(
        matched(&pi.model, pi.memory_bytes, Some(pi.cores)).as_deref(),
        Some("raspberry-pi-5-8gb")
    );
    // The x86 VM ("AMD EPYC") and the Pi 4 have no entry.
    assert_eq!(matched("AMD EPYC", Some(24 * GIB), Some(2)), None);
    let pi4 = parse_cpuinfo(RPI4_CPUINFO).model.unwrap();
    assert_eq!(matched(&pi4, Some(4 * GIB), Some(4)), None);
}

#[test]
fn matcher_memory_tells_variants_apart() {
    // nvidia-smi memory.total figures (modal-labs/modal-client #2797 for
    // the A100s; H100 NVL 95830 MiB = 93.6 GiB as fastfetch#1658 reports
    // 99961274368 B / 2^20).
    let cases: &[(&str, u64, Option<&str>)] = &[
        ("NVIDIA H100 80GB HBM3", 81_559, Some("h100-sxm")),
        // A 96 GB H100 SXM: the catalog's 102225346560 B (h100-sxm-96gb's
        // memory) / 2^20 = 97489.7, about 97490 MiB = 95.2 GiB, beyond the 80 GB range.
        ("NVIDIA H100 96GB HBM3", 97_490, Some("h100-sxm-96gb")),
        ("NVIDIA H100 PCIe", 81_559, Some("h100-pcie")),
        ("NVIDIA H100 NVL", 95_830, Some("h100-nvl")),
        ("NVIDIA A100-SXM4-80GB", 81_920, Some("a100-sxm-80gb")),
        ("NVIDIA A100-SXM4-40GB", 40_960, Some("a100-sxm-40gb")),
        ("NVIDIA A100 80GB PCIe", 81_920, Some("a100-pcie-80gb")),
        ("NVIDIA A10", 23_028, Some("a10")),
        ("NVIDIA L4", 23_034, Some("l4")),
        ("NVIDIA L40S", 46_068, Some("l40s")),
        ("Tesla T4", 15_360, Some("t4")),
        ("NVIDIA GeForce RTX 4090", 24_564, Some("rtx-4090")),
        // Not in the catalog, or not this catalog entry.
        ("NVIDIA GeForce RTX 3060", 12_288, None),
        ("NVIDIA GeForce RTX 4090 Laptop GPU", 16_376, None),
    ];
    for (name, mib, want) in cases {
        assert_eq!(
            matched(name, Some(mib * MIB), None).as_deref(),
            *want,
            "{name} {mib} MiB"
        );
    }
    // An older rocm-smi names the MI300X "MI300 (MCM)": 192 GB tells it from
    // an MI300A (128 GB, excluded by name too).
    assert_eq!(
        matched(
            "AMD INSTINCT MI300 (MCM) OAM AC MBA",
            Some(205_822_885_888),
            None
        )
        .as_deref(),
        Some("mi300x")
    );
    // One GCD of an MI250X (64 GiB) is not the two-GCD catalog entry.
    let m = match_device(
        detected("AMD Instinct MI250X", Some(64 * GIB)),
        &Catalog::builtin(),
    );
    assert_eq!(m.id, None);
    assert_eq!(
        m.reason,
        "unmatched: name fits mi250x but its 64.0 GiB is outside 120-136 GiB"
    );
    // The driver's /proc entry has no memory: the H100 cannot be told
    // from its 96 GB sibling, and says so.
    let m = match_device(detected("NVIDIA H100 80GB HBM3", None), &Catalog::builtin());
    assert_eq!(m.id, None);
    assert!(m.reason.contains("memory size"), "{}", m.reason);
    // An M3 Max with 14 cores is not the 16-core entry.
    let m = match_device(
        Detected {
            name: "Apple M3 Max",
            memory_bytes: Some(128 * GIB),
            cores: Some(14),
        },
        &Catalog::builtin(),
    );
    assert_eq!(
        m.reason,
        "unmatched: name fits m3-max (16 CPU cores) but this chip has 14"
    );
}

fn machine(cpu: CpuInfo, gpus: Vec<GpuInfo>) -> Machine {
    Machine {
        cpu,
        gpus,
        tools: Vec::new(),
    }
}

fn x86() -> CpuInfo {
    cpu_from_linux(X86_CPUINFO, X86_CACHES, X86_MEMINFO, None, None)
}

#[test]
fn local_is_the_first_matched_gpu_with_its_count() {
    let cat = Catalog::builtin();
    let m = machine(x86(), parse_nvidia_smi(NV_H100));
    // Eight identical H100s: one group of 8.
    let groups = gpu_groups(&m.gpus, &cat);
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].count, 8);
    let c = resolve_local_in(&m, &cat).unwrap();
    assert_eq!(c.entry.hw.id, "h100-sxm");
    assert_eq!(c.entry.hw.name, "NVIDIA H100 SXM5 80GB (local, 8 present)");
    // The same figures as the catalog entry.
    let h = &cat.hardware("h100-sxm").unwrap().hw;
    assert_eq!(c.entry.hw.memory_bandwidth, h.memory_bandwidth);
    assert_eq!(c.entry.hw.peaks, h.peaks);
    assert!(
        c.why.starts_with("8x NVIDIA H100 80GB HBM3 -> h100-sxm"),
        "{}",
        c.why
    );
    // An unmatched GPU first, a matched one after: the matched one.
    let mut gpus = parse_nvidia_smi("0, NVIDIA GeForce RTX 3060, 12288, 00000000:01:00.0\n");
    gpus.extend(parse_nvidia_smi(NV_4090));
    let c = resolve_local_in(&machine(x86(), gpus), &cat).unwrap();
    assert_eq!(c.entry.hw.id, "rtx-4090");
    assert_eq!(c.entry.hw.name, "NVIDIA GeForce RTX 4090 24GB (local)");
}

#[test]
fn local_without_a_gpu_is_the_cpu() {
    let cat = Catalog::builtin();
    // A Pi 5 8GB: its board entry.
    let pi = cpu_from_linux(RPI5_CPUINFO, RPI5_CACHES, RPI5_MEMINFO, None, None);
    let c = resolve_local_in(&machine(pi, Vec::new()), &cat).unwrap();
    assert_eq!(c.entry.hw.id, "raspberry-pi-5-8gb");
    // The x86 VM: no figures, and the message says how to get them.
    let e = resolve_local_in(&machine(x86(), Vec::new()), &cat).unwrap_err();
    assert!(e.contains("'AMD EPYC'"), "{e}");
    assert!(e.contains("ridgeline probe --measure"), "{e}");
    // A GPU that matches nothing (an integrated GPU, a card the catalog
    // lacks) leaves the CPU to stand for the machine, and is named.
    let rtx3060 = || parse_nvidia_smi("0, NVIDIA GeForce RTX 3060, 12288, 00000000:01:00.0\n");
    let e = resolve_local_in(&machine(x86(), rtx3060()), &cat).unwrap_err();
    assert!(
        e.starts_with(
            "no GPU of this machine is in the catalog (GPU 'NVIDIA GeForce RTX 3060': unmatched"
        ),
        "{e}"
    );
    assert!(e.contains("ridgeline probe --measure"), "{e}");
    let pi = cpu_from_linux(RPI5_CPUINFO, RPI5_CACHES, RPI5_MEMINFO, None, None);
    let c = resolve_local_in(&machine(pi, rtx3060()), &cat).unwrap();
    assert_eq!(c.entry.hw.id, "raspberry-pi-5-8gb");
    assert!(
        c.why
            .contains("no GPU matched (GPU 'NVIDIA GeForce RTX 3060'"),
        "{}",
        c.why
    );
}

/// A user catalog with a measured `local-cpu` entry (test figures: an
/// entry's shape, not a measurement).
fn catalog_with_local_cpu() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ridgeline-probe-local-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("hardware")).unwrap();
    std::fs::write(
        dir.join("hardware/local.toml"),
        r#"[[device]]
id = "local-cpu"
name = "Local CPU (test entry)"
vendor = "test"
tier = "workstation"
year = 2026
source = "tests/probe.rs"
memory = "16 GB"
memory_bandwidth = "20 GB/s"

[device.peak]
fp32 = "100 GFLOPS"
"#,
    )
    .unwrap();
    dir
}

#[test]
fn local_cpu_entry_wins_for_the_cpu() {
    let dir = catalog_with_local_cpu();
    let cat = Catalog::load(Some(&dir));
    assert!(cat.diagnostics.is_empty(), "{:?}", cat.diagnostics);
    let c = resolve_local_in(&machine(x86(), Vec::new()), &cat).unwrap();
    assert_eq!(c.entry.hw.id, "local-cpu");
}

#[test]
fn probe_command_names_this_cpu() {
    let start = std::time::Instant::now();
    let out = ridgeline(&["probe"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The CPU line names the model cpuinfo gives on this machine.
    let here = parse_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
    if let Some(model) = here.model {
        assert!(text.contains(&model), "{text}");
    }
    assert!(text.starts_with("CPU "), "{text}");
    assert!(text.contains("-H local"), "{text}");
    // Fast: detection with absent tools takes milliseconds; 5 s leaves room
    // for a loaded test machine, well under the tools' 2 s deadlines x 2.
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    let v = json(&["probe", "-f", "json"]);
    assert!(v["cpu"]["threads"].as_u64().unwrap() >= 1);
    assert!(v["cpu"]["simd"]["bits"].as_u64().unwrap() >= 64);
}

#[test]
fn hardware_local_on_every_command() {
    let v = json(&["probe", "-f", "json"]);
    let has_gpu = !v["gpus"].as_array().unwrap().is_empty();
    let dir = catalog_with_local_cpu();
    let d = dir.to_str().unwrap();
    if !has_gpu {
        // With the measured entry, -H local is local-cpu on eval and on
        // serve (two commands, one resolver).
        let e = json(&["eval", "-H", "local", "--catalog", d, "-f", "json"]);
        assert_eq!(e["hardware"], "local-cpu", "{e}");
        let out = ridgeline(&["serve", "--hardware", "local", "--catalog", d]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if v["local"]["id"].is_null() {
        // No figures for this machine: a clear error, no panic.
        let out = ridgeline(&["eval", "-H", "local"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("hardware \"local\": "), "{err}");
        assert!(err.contains("ridgeline probe --measure"), "{err}");
    }
}

/// The `local` resolver of a machine built from fixtures: an x86 host
/// with eight H100s (nvidia-smi-8xh100.csv).
fn fixture_h100_box(cat: &Catalog) -> Result<ridgeline::catalog::HardwareEntry, String> {
    resolve_local_in(&machine(x86(), parse_nvidia_smi(NV_H100)), cat).map(|c| c.entry)
}

fn no_figures_box(cat: &Catalog) -> Result<ridgeline::catalog::HardwareEntry, String> {
    resolve_local_in(&machine(x86(), Vec::new()), cat).map(|c| c.entry)
}

#[test]
fn picker_heads_with_local() {
    use ridgeline::tui::{App, Settings};
    let mut cat = Catalog::builtin();
    cat.set_local_resolver(fixture_h100_box);
    cat.add_local_entry().unwrap();
    for ascii in [false, true] {
        let mut a = App::new(
            cat.clone(),
            Settings {
                ascii,
                ..Settings::default()
            },
        );
        // `local` is first in the picker's order; select it.
        let first = a.hw_order[0];
        assert_eq!(a.catalog.hardware[first].hw.id, "local");
        a.hw = first;
        a.recompute();
        // Same figures as the entry it resolved to.
        let h = &a.catalog.hardware("h100-sxm").unwrap().hw;
        assert_eq!(a.catalog.hardware[first].hw.peaks, h.peaks);
        let s = common::screen(&a, 80, 24);
        let arrow = if ascii {
            "local -> h100-sxm"
        } else {
            "local → h100-sxm"
        };
        assert!(s.contains(arrow), "{s}");
        assert!(s.contains("this machine (1)"), "{s}");
        if !ascii {
            insta::assert_snapshot!("picker_local_h100_box", s);
        }
    }
    // A machine without figures: no `local` row, and the reason.
    let mut cat = Catalog::builtin();
    cat.set_local_resolver(no_figures_box);
    let why = cat.add_local_entry().unwrap_err();
    assert!(why.contains("ridgeline probe --measure"), "{why}");
    assert!(cat.hardware.iter().all(|e| e.hw.id != "local"));
    // Through the catalog lookup every command uses: a clear error.
    let e = cat.hardware("local").unwrap_err().to_string();
    assert!(
        e.starts_with("hardware \"local\": this machine has no GPU"),
        "{e}"
    );
}
