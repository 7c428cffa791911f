//! The probe of the local machine (`ridgeline probe`, `-H local`).
//!
//! - [`detect`]: the CPU, from pure parsers over OS text (fixtures test them).
//! - [`detect_gpu`]: GPUs from `nvidia-smi` / `rocm-smi` output and Apple
//!   chip names.
//! - [`matching`]: detected devices to catalog entries, with the reasoning.
//! - [`run`]: external commands with a deadline.
//! - [`measure`]: the CPU's measured ceilings; [`kernel`]: a real matrix
//!   kernel timed on it; [`entry`]: the catalog entry a measurement becomes.
//!
//! This module also resolves the device id `local` ([`resolve_local`]): the
//! first matched GPU, or the CPU when the machine has none.

pub mod detect;
pub mod detect_gpu;
pub mod entry;
pub mod kernel;
pub mod matching;
pub mod measure;
pub mod run;

use crate::catalog::{Catalog, HardwareEntry};
use detect::CpuInfo;
use detect_gpu::{GpuInfo, ToolNote};
use matching::{Detected, Match, match_device};

/// The id of the measured CPU entry `ridgeline probe --measure` writes to
/// the user catalog; `-H local` prefers it for the CPU.
pub const LOCAL_CPU_ID: &str = "local-cpu";

/// Everything detection found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Machine {
    pub cpu: CpuInfo,
    pub gpus: Vec<GpuInfo>,
    /// What each GPU tool said ("not present", "8 GPUs").
    pub tools: Vec<ToolNote>,
}

/// Detect this machine: CPU from the OS, GPUs from their tools (each with
/// a 2 s deadline). Never panics, never needs root.
pub fn detect_machine() -> Machine {
    let cpu = detect::detect_cpu();
    let (gpus, tools) = detect_gpu::detect_gpus(&cpu);
    Machine { cpu, gpus, tools }
}

/// Identical GPUs (same name and memory) as one device with a count.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GpuGroup {
    pub gpu: GpuInfo,
    pub count: u32,
    #[serde(rename = "match")]
    pub matched: Match,
}

/// Group the GPUs and match each group to the catalog, in detection order.
pub fn gpu_groups(gpus: &[GpuInfo], cat: &Catalog) -> Vec<GpuGroup> {
    let mut out: Vec<GpuGroup> = Vec::new();
    for g in gpus {
        if let Some(existing) = out
            .iter_mut()
            .find(|e| e.gpu.name == g.name && e.gpu.memory_bytes == g.memory_bytes)
        {
            existing.count += 1;
            continue;
        }
        let matched = match_device(
            Detected {
                name: &g.name,
                memory_bytes: g.memory_bytes,
                cores: None,
            },
            cat,
        );
        let mut first = g.clone();
        first.bus_id = None;
        out.push(GpuGroup {
            gpu: first,
            count: 1,
            matched,
        });
    }
    out
}

/// The CPU matched to the catalog (a board like the Raspberry Pi 5, or an
/// Apple chip; most server CPUs have no entry).
pub fn cpu_match(cpu: &CpuInfo, cat: &Catalog) -> Match {
    match_device(
        Detected {
            name: &cpu.model,
            memory_bytes: cpu.memory_bytes,
            cores: Some(cpu.cores),
        },
        cat,
    )
}

/// What `local` resolved to, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalChoice {
    /// The catalog entry, its display name marked "(local)" and, for
    /// several identical GPUs, their count.
    pub entry: HardwareEntry,
    /// "8x NVIDIA H100 80GB HBM3 -> h100-sxm (matched h100-sxm: ...)".
    pub why: String,
}

/// Resolve `local` on a detected machine: the first GPU group that matches
/// a catalog entry; with no matched GPU, the CPU (the measured `local-cpu`
/// entry if the catalog has one, else a matched entry). An error says what
/// was found and how to get figures for it.
pub fn resolve_local_in(m: &Machine, cat: &Catalog) -> Result<LocalChoice, String> {
    let groups = gpu_groups(&m.gpus, cat);
    // Apple silicon's "GPU" is the chip itself: it counts as the CPU's
    // device, so a measured local-cpu entry still comes first there.
    let accelerators: Vec<&GpuGroup> = groups.iter().filter(|g| g.gpu.vendor != "Apple").collect();
    if let Some(g) = accelerators.iter().find(|g| g.matched.id.is_some()) {
        let id = g.matched.id.as_deref().unwrap_or_default();
        let mut entry = cat.hardware(id).map_err(|e| e.to_string())?.clone();
        let count = if g.count > 1 {
            format!("{}x ", g.count)
        } else {
            String::new()
        };
        entry.hw.name = if g.count > 1 {
            format!("{} (local, {} present)", entry.hw.name, g.count)
        } else {
            format!("{} (local)", entry.hw.name)
        };
        return Ok(LocalChoice {
            entry,
            why: format!("{count}{} -> {id} ({})", g.gpu.name, g.matched.reason),
        });
    }
    // GPUs that match nothing (an integrated GPU, a card the catalog lacks)
    // leave the CPU to stand for the machine; they are named in the
    // reasons.
    let unmatched: Vec<String> = accelerators
        .iter()
        .map(|g| format!("GPU '{}': {}", g.gpu.name, g.matched.reason))
        .collect();
    let because = if unmatched.is_empty() {
        String::new()
    } else {
        format!("; no GPU matched ({})", unmatched.join("; "))
    };
    if let Ok(e) = cat.hardware(LOCAL_CPU_ID) {
        return Ok(LocalChoice {
            entry: e.clone(),
            why: format!(
                "{} -> {LOCAL_CPU_ID} (measured entry in the catalog)",
                m.cpu.model
            ),
        });
    }
    let cm = cpu_match(&m.cpu, cat);
    if let Some(id) = &cm.id {
        let mut entry = cat.hardware(id).map_err(|e| e.to_string())?.clone();
        entry.hw.name = format!("{} (local)", entry.hw.name);
        return Ok(LocalChoice {
            entry,
            why: format!("{} -> {id} ({}{because})", m.cpu.model, cm.reason),
        });
    }
    let gpus = if unmatched.is_empty() {
        "this machine has no GPU".to_string()
    } else {
        format!(
            "no GPU of this machine is in the catalog ({}; add one to your catalog, docs/catalog.md)",
            unmatched.join("; ")
        )
    };
    Err(format!(
        "{gpus}, and its CPU '{}' ({} cores) has no figures in the catalog ({}); run `ridgeline probe --measure` to measure them (it writes the entry {LOCAL_CPU_ID} to your catalog), or name a device with -H (`ridgeline zoo hardware` lists them)",
        m.cpu.model, m.cpu.cores, cm.reason
    ))
}

/// Detect this machine and resolve `local` (the resolver the command line
/// and the workbench install in their catalog).
pub fn resolve_local(cat: &Catalog) -> Result<HardwareEntry, String> {
    resolve_local_in(&detect_machine(), cat).map(|c| c.entry)
}
