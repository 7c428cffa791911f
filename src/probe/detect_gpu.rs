//! GPUs of the machine: NVIDIA through `nvidia-smi` (or the driver's
//! `/proc/driver/nvidia/gpus/*/information` when the tool is missing), AMD
//! through `rocm-smi`, Apple silicon from its chip name. The parsers are
//! pure; [`detect_gpus`] runs the tools with a deadline.

use super::detect::CpuInfo;
use super::run::{RunOutcome, run_with_timeout};
use std::time::Duration;

/// The query `nvidia-smi` is run with; [`parse_nvidia_smi`] reads its
/// output (one GPU a line, fields in this order, memory in MiB).
pub const NVIDIA_SMI_ARGS: &[&str] = &[
    "--query-gpu=index,name,memory.total,pci.bus_id",
    "--format=csv,noheader,nounits",
];

/// The query `rocm-smi` is run with; [`parse_rocm_smi`] reads its JSON.
pub const ROCM_SMI_ARGS: &[&str] = &["--showproductname", "--showmeminfo", "vram", "--json"];

/// The deadline of every external command.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(2);

/// One GPU (or accelerator) the machine has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GpuInfo {
    /// "NVIDIA", "AMD" or "Apple".
    pub vendor: String,
    /// The name its tool reports: "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Device memory (unified memory for Apple silicon).
    pub memory_bytes: Option<u64>,
    /// PCI bus id, when the tool gives one.
    pub bus_id: Option<String>,
    /// Where it was found: "nvidia-smi", "rocm-smi", "/proc/driver/nvidia",
    /// "chip name".
    pub source: String,
}

fn clean(field: &str) -> Option<&str> {
    let f = field.trim();
    if f.is_empty() || f.starts_with('[') || f.eq_ignore_ascii_case("N/A") {
        None
    } else {
        Some(f)
    }
}

/// Parse `nvidia-smi --query-gpu=index,name,memory.total,pci.bus_id
/// --format=csv,noheader,nounits` output. Lines that do not have the four
/// fields (an error message, a `#` comment) are skipped.
pub fn parse_nvidia_smi(text: &str) -> Vec<GpuInfo> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() < 4 || fields[0].parse::<u32>().is_err() {
                return None;
            }
            let name = clean(fields[1])?.to_string();
            let memory_bytes = clean(fields[2])
                .and_then(|m| m.parse::<u64>().ok())
                .and_then(|mib| mib.checked_mul(1024 * 1024));
            Some(GpuInfo {
                vendor: "NVIDIA".into(),
                name,
                memory_bytes,
                bus_id: clean(fields[3]).map(str::to_string),
                source: "nvidia-smi".into(),
            })
        })
        .collect()
}

/// Parse one `/proc/driver/nvidia/gpus/<bus>/information` file of the
/// NVIDIA driver (`Model:` and `Bus Location:` lines; no memory size).
pub fn parse_nvidia_proc(text: &str) -> Option<GpuInfo> {
    let field = |k: &str| {
        text.lines().find_map(|l| {
            let (key, v) = l.split_once(':')?;
            (key.trim() == k).then(|| v.trim().to_string())
        })
    };
    let name = field("Model").filter(|n| !n.is_empty())?;
    Some(GpuInfo {
        vendor: "NVIDIA".into(),
        name,
        memory_bytes: None,
        bus_id: field("Bus Location"),
        source: "/proc/driver/nvidia".into(),
    })
}

/// Parse `rocm-smi --showproductname --showmeminfo vram --json` output: an
/// object of `cardN` objects with "Card Series" (or "Card series", or
/// "Device Name" in newer releases) and "VRAM Total Memory (B)". Anything
/// that is not such JSON gives no GPUs.
pub fn parse_rocm_smi(text: &str) -> Vec<GpuInfo> {
    // rocm-smi may print warnings before the JSON.
    let Some(start) = text.find('{') else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(cards)) =
        serde_json::from_str::<serde_json::Value>(&text[start..])
    else {
        return Vec::new();
    };
    let mut out: Vec<(u32, GpuInfo)> = cards
        .iter()
        .filter_map(|(card, v)| {
            let n = card.strip_prefix("card")?.parse::<u32>().ok()?;
            let obj = v.as_object()?;
            let get = |names: &[&str]| {
                obj.iter()
                    .find(|(k, _)| names.iter().any(|n| k.eq_ignore_ascii_case(n)))
                    .and_then(|(_, v)| v.as_str())
                    .and_then(clean)
                    .map(str::to_string)
            };
            let name = get(&["Card Series", "Device Name", "Card Model"])?;
            let memory_bytes = get(&["VRAM Total Memory (B)"]).and_then(|m| m.parse::<u64>().ok());
            Some((
                n,
                GpuInfo {
                    vendor: "AMD".into(),
                    name,
                    memory_bytes,
                    bus_id: get(&["PCI Bus"]),
                    source: "rocm-smi".into(),
                },
            ))
        })
        .collect();
    out.sort_by_key(|(n, _)| *n);
    out.into_iter().map(|(_, g)| g).collect()
}

/// Apple silicon: the GPU is part of the chip the CPU names ("Apple M2
/// Max"), with the unified memory.
pub fn apple_gpu(cpu: &CpuInfo) -> Option<GpuInfo> {
    let name = cpu.model.trim();
    let chip = name.strip_prefix("Apple ")?;
    if !chip.starts_with('M') {
        return None;
    }
    Some(GpuInfo {
        vendor: "Apple".into(),
        name: name.to_string(),
        memory_bytes: cpu.memory_bytes,
        bus_id: None,
        source: "chip name".into(),
    })
}

/// What looking for one kind of GPU found out, for the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolNote {
    pub tool: String,
    /// "not present", "no GPUs", "3 GPUs", "timed out after 2 s", or the
    /// failure.
    pub status: String,
}

fn note(tool: &str, outcome: &RunOutcome, found: usize) -> ToolNote {
    let status = match outcome {
        RunOutcome::Ok(_) if found == 0 => "ran, no GPUs listed".to_string(),
        RunOutcome::Ok(_) => format!("{found} GPU{}", if found == 1 { "" } else { "s" }),
        RunOutcome::NotPresent => "not present".into(),
        RunOutcome::TimedOut => format!("timed out after {} s", TOOL_TIMEOUT.as_secs()),
        RunOutcome::Failed(why) => why.clone(),
    };
    ToolNote {
        tool: tool.into(),
        status,
    }
}

/// Find the GPUs of this machine. The tools run side by side, each with
/// [`TOOL_TIMEOUT`]; a missing tool is "not present", not an error.
pub fn detect_gpus(cpu: &CpuInfo) -> (Vec<GpuInfo>, Vec<ToolNote>) {
    let nv = std::thread::spawn(|| run_with_timeout("nvidia-smi", NVIDIA_SMI_ARGS, TOOL_TIMEOUT));
    let amd = std::thread::spawn(|| run_with_timeout("rocm-smi", ROCM_SMI_ARGS, TOOL_TIMEOUT));
    let failed = |_| RunOutcome::Failed("the thread running it stopped".into());
    let nv = nv.join().unwrap_or_else(failed);
    let amd = amd.join().unwrap_or_else(failed);
    let mut gpus = Vec::new();
    let mut notes = Vec::new();

    let mut nvidia = nv.stdout().map(parse_nvidia_smi).unwrap_or_default();
    notes.push(note("nvidia-smi", &nv, nvidia.len()));
    if nvidia.is_empty() && !matches!(nv, RunOutcome::Ok(_)) {
        nvidia = read_nvidia_proc();
        if !nvidia.is_empty() {
            notes.push(ToolNote {
                tool: "/proc/driver/nvidia".into(),
                status: format!("{} GPUs (names only)", nvidia.len()),
            });
        }
    }
    gpus.extend(nvidia);

    let rocm = amd.stdout().map(parse_rocm_smi).unwrap_or_default();
    notes.push(note("rocm-smi", &amd, rocm.len()));
    gpus.extend(rocm);

    if let Some(apple) = apple_gpu(cpu) {
        gpus.push(apple);
    }
    (gpus, notes)
}

fn read_nvidia_proc() -> Vec<GpuInfo> {
    let Ok(dir) = std::fs::read_dir("/proc/driver/nvidia/gpus") else {
        return Vec::new();
    };
    let mut paths: Vec<_> = dir.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p.join("information")).ok())
        .filter_map(|t| parse_nvidia_proc(&t))
        .collect()
}
