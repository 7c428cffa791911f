//! `ridgeline probe` detection: parsers over recorded (or format-faithful)
//! fixtures in tests/fixtures/probe/, the catalog matcher, and the command.

use ridgeline::probe::detect::{
    CacheLevel, Simd, cpu_from_linux, cpu_list_len, parse_cpuinfo, parse_meminfo, parse_size,
    parse_sysfs_caches,
};

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
