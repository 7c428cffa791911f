//! `ridgeline probe`: what this machine is (CPU, caches, memory, GPUs),
//! each device matched to the catalog with the reasoning, and what `-H
//! local` resolves to.

use super::args::{Format, ProbeArgs};
use super::output::{Style, json_text, wrap};
use super::{CliError, Out, write_error};
use crate::catalog::Catalog;
use crate::probe::detect::{CacheLevel, CpuInfo};
use crate::probe::{GpuGroup, Machine, cpu_match, detect_machine, gpu_groups, resolve_local_in};
use serde_json::{Value, json};

pub fn probe(cat: &Catalog, a: &ProbeArgs, style: Style, out: Out) -> Result<(), CliError> {
    let machine = detect_machine();
    let text = report(&machine, cat, Format::from(a.format), style);
    out.write_all(text.as_bytes()).map_err(write_error)
}

/// The report of a detected machine, as text or JSON (pure: tests feed it
/// machines built from fixtures).
pub fn report(m: &Machine, cat: &Catalog, format: Format, style: Style) -> String {
    let groups = gpu_groups(&m.gpus, cat);
    let cpu_m = cpu_match(&m.cpu, cat);
    let local = resolve_local_in(m, cat);
    if format == Format::Json {
        let local = match &local {
            Ok(c) => json!({ "id": c.entry.hw.id, "name": c.entry.hw.name, "why": c.why }),
            Err(e) => json!({ "id": Value::Null, "error": e }),
        };
        let v = json!({
            "cpu": m.cpu,
            "cpu_match": cpu_m,
            "gpus": groups,
            "tools": m.tools,
            "local": local,
        });
        return json_text(&v) + "\n";
    }
    let mut s = String::new();
    let w = style.width;
    let cpu = &m.cpu;
    line(&mut s, w, "CPU", &format!("{} ({})", cpu.model, cpu.vendor));
    line(&mut s, w, "", &cpu_shape(cpu));
    if !cpu.caches.is_empty() {
        let caches: Vec<String> = cpu.caches.iter().map(cache_text).collect();
        line(&mut s, w, "Caches", &caches.join("; "));
    } else {
        line(&mut s, w, "Caches", "not reported by the OS");
    }
    line(
        &mut s,
        w,
        "Memory",
        &cpu.memory_bytes
            .map_or("not reported by the OS".into(), bytes_text),
    );
    line(&mut s, w, "Catalog", &cpu_m.reason);
    if groups.is_empty() {
        line(&mut s, w, "GPUs", "none found");
    }
    for g in &groups {
        line(&mut s, w, "GPU", &gpu_text(g));
        line(&mut s, w, "Catalog", &g.matched.reason);
    }
    let tools: Vec<String> = m
        .tools
        .iter()
        .map(|t| format!("{}: {}", t.tool, t.status))
        .collect();
    line(&mut s, w, "Looked", &tools.join("; "));
    match &local {
        Ok(c) => line(&mut s, w, "-H local", &c.why),
        Err(e) => line(&mut s, w, "-H local", &format!("no device: {e}")),
    }
    s
}

const LABEL: usize = 9;

/// One labelled line; text too wide for `width` continues under itself.
fn line(s: &mut String, width: usize, label: &str, text: &str) {
    let body = wrap(text, width.saturating_sub(LABEL + 1).max(20));
    for (i, l) in body.lines().enumerate() {
        let l = l.trim_start();
        let label = if i == 0 { label } else { "" };
        s.push_str(&format!("{label:<LABEL$} {l}\n"));
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn cpu_shape(cpu: &CpuInfo) -> String {
    let mut s = format!(
        "{}, {}, {}; {} ({}-bit)",
        plural(cpu.sockets, "socket", "sockets"),
        plural(cpu.cores, "core", "cores"),
        plural(cpu.threads, "thread", "threads"),
        cpu.simd.name(),
        cpu.simd.bits()
    );
    if let Some(mhz) = cpu.max_mhz {
        s.push_str(&format!("; up to {mhz:.0} MHz"));
    }
    s
}

/// "L1d 32 KiB x2", "L3 32 MiB x1 (shared by 2 threads)".
fn cache_text(c: &CacheLevel) -> String {
    let suffix = match c.kind.as_str() {
        "Data" => "d",
        "Instruction" => "i",
        _ => "",
    };
    let mut s = format!(
        "L{}{suffix} {} x{}",
        c.level,
        bytes_text(c.size_bytes),
        c.instances
    );
    if c.shared_by_threads > 1 {
        s.push_str(&format!(" (shared by {} threads)", c.shared_by_threads));
    }
    s
}

/// Binary sizes as the OS counts them: "32 KiB", "1 MiB", "23.5 GiB".
pub fn bytes_text(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if (v - v.round()).abs() < 0.05 {
        format!("{:.0} {}", v.round(), UNITS[i])
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

fn gpu_text(g: &GpuGroup) -> String {
    let count = if g.count > 1 {
        format!("{}x ", g.count)
    } else {
        String::new()
    };
    let mem = g
        .gpu
        .memory_bytes
        .map_or(String::new(), |b| format!(", {}", bytes_text(b)));
    format!("{count}{}{mem} (from {})", g.gpu.name, g.gpu.source)
}
