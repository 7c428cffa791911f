//! The catalog entry a measurement becomes: device `local-cpu`, written
//! into the user catalog's hardware file with the catalog's own writer
//! (`catalog::write::save_device`: the file's other entries and comments
//! kept, an older `local-cpu` replaced, the result loaded back before it is
//! written, the write atomic).
//!
//! What the entry holds: the measured f32 peak as `fp32` (the solver's
//! FLOP rate for fp32 math); no `bf16`, `fp16` or narrower peak, as the
//! catalog leaves out a precision a device does not run at its own rate
//! (the solver falls back to fp32 and says so; a CPU's bf16 dot-product
//! instructions, where it has them, were not measured); the f64 peak,
//! which the schema has no key for, in the notes; main memory's triad
//! bandwidth as `memory_bandwidth`; the detected memory size as `memory`;
//! each cache level's triad bandwidth as a `[[device.cache]]`; the runs
//! and spread of every figure in the notes.

use super::detect::CpuInfo;
use super::measure::{Figure, Measured};
use crate::catalog::write::{self, Mode, Saved};
use crate::catalog::{CacheCeiling, HardwareEntry};
use crate::solver::units::{format_bandwidth, format_flops};
use crate::solver::{Hardware, Peaks, Precision, Tier};
use std::collections::BTreeMap;
use std::path::Path;

/// A day counted from 1970-01-01 as (year, month, day), by the proleptic
/// Gregorian calendar (H. Hinnant, "chrono-Compatible Low-Level Date
/// Algorithms", civil_from_days).
pub fn civil_date(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m as u8, d)
}

/// Today's date (UTC) as "YYYY-MM-DD", and its year.
pub fn today() -> (String, u16) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_date((secs / 86_400) as i64);
    (format!("{y:04}-{m:02}-{d:02}"), y.clamp(1940, 2100) as u16)
}

/// A figure rounded to 4 significant digits, so the entry reads "114.7
/// GFLOPS" rather than every digit of one run.
pub fn round4(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    // Whole powers of ten are exact, so divide by one rather than multiply
    // by its (inexact) inverse.
    let p = 3 - x.log10().floor() as i32;
    if p >= 0 {
        (x * 10f64.powi(p)).round() / 10f64.powi(p)
    } else {
        (x / 10f64.powi(-p)).round() * 10f64.powi(-p)
    }
}

/// "best 114.7 GFLOPS of 5 runs, 114.3..114.7 (spread 0.4%)".
pub fn describe(f: &Figure, format: fn(f64) -> String) -> String {
    format!(
        "best {} of {} runs, {}..{} (spread {:.1}%)",
        format(f.best),
        f.runs,
        format(f.min),
        format(f.max),
        f.spread() * 100.0
    )
}

/// The `local-cpu` entry of a measurement on `cpu`, dated `date`
/// ("2026-12-04", year `year`). Err says why no entry can be made (a
/// figure that did not measure, a memory size that was not detected).
pub fn local_cpu(
    m: &Measured,
    cpu: &CpuInfo,
    date: &str,
    year: u16,
) -> Result<HardwareEntry, String> {
    let bad = |what: &str| {
        format!(
            "the {what} did not measure (no run gave a positive, finite rate); run `ridgeline probe --measure` again on a quieter machine"
        )
    };
    let ok = |f: &Figure| f.runs > 0 && f.best.is_finite() && f.best > 0.0;
    if !ok(&m.f32_flops) {
        return Err(bad("f32 peak"));
    }
    if !ok(m.dram()) {
        return Err(bad("main memory bandwidth"));
    }
    let memory = cpu.memory_bytes.filter(|&b| b > 0).ok_or_else(|| {
        "the memory size of this machine was not detected (no /proc/meminfo or hw.memsize), and a device entry needs it; nothing was written".to_string()
    })?;
    let mut peaks = Peaks::default();
    peaks.set(Precision::Fp32, Some(round4(m.f32_flops.best)));
    let mut notes = vec![format!(
        "{} threads, {} kernel ({} f32 lanes, FMA = 2 FLOPs); {} effort",
        m.threads,
        m.kernel,
        m.f32_lanes,
        m.effort.name()
    )];
    notes.push(format!("fp32 {}", describe(&m.f32_flops, format_flops)));
    if ok(&m.f64_flops) {
        notes.push(format!("fp64 {}", describe(&m.f64_flops, format_flops)));
    }
    notes.push(
        "bandwidth: triad a = b + s*c, 24 bytes per element (2 reads, 1 write; write-allocate not counted)"
            .into(),
    );
    for l in &m.levels {
        if ok(&l.bandwidth) {
            notes.push(format!(
                "{} {}",
                l.name,
                describe(&l.bandwidth, format_bandwidth)
            ));
        }
    }
    notes.push("no bf16/fp16 peak: not measured; the solver uses fp32".into());
    let caches = m
        .caches()
        .iter()
        .filter(|l| ok(&l.bandwidth))
        .map(|l| CacheCeiling {
            level: l.name.clone(),
            bandwidth: round4(l.bandwidth.best),
        })
        .collect();
    let model = if cpu.model.trim().is_empty() {
        "this CPU".to_string()
    } else {
        cpu.model.trim().to_string()
    };
    Ok(HardwareEntry {
        hw: Hardware {
            id: super::LOCAL_CPU_ID.into(),
            name: format!("{model} (measured)"),
            tier: Tier::Workstation,
            year,
            peaks,
            matmul: Peaks::default(),
            memory_bytes: memory as f64,
            memory_bandwidth: round4(m.dram().best),
            link_bandwidth: None,
            devices_per_node: 1,
            scaleout_bandwidth: None,
            host_bandwidth: None,
            torus: None,
            tdp_w: None,
            price_per_hour_usd: None,
        },
        aliases: Vec::new(),
        vendor: if cpu.vendor.trim().is_empty() {
            "unknown".into()
        } else {
            cpu.vendor.trim().to_string()
        },
        family: None,
        memory_type: None,
        source: format!("measured by ridgeline probe on {date}"),
        sources: BTreeMap::new(),
        notes: Some(notes.join("; ")),
        price: None,
        caches,
        origin: String::new(),
    })
}

/// Write `entry` into the user catalog `dir` (its `hardware/user.toml`),
/// replacing an older entry of the same id and keeping every other one.
pub fn save(dir: &Path, entry: &HardwareEntry) -> Result<Saved, String> {
    let path = write::hardware_file(dir);
    write::save_device(&path, entry, Mode::Replace, &|_| false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_date_counts_days_from_1970() {
        // Day 0 is 1970-01-01; 2024-02-29 is day 19782 (54 years of 365
        // days = 19710, plus 13 leap days 1972..2020 = 19723 for 2024-01-01,
        // plus 31 + 28 = 59 days).
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        assert_eq!(civil_date(19_783), (2024, 3, 1));
    }

    #[test]
    fn round4_keeps_four_significant_digits() {
        assert_eq!(round4(114_724_231_114.779), 114.7e9);
        assert_eq!(round4(23_114_820_675.0), 23.11e9);
        assert_eq!(round4(0.0), 0.0);
    }
}
