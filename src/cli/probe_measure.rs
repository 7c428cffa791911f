//! `ridgeline probe --measure` (this CPU's measured ceilings, written to
//! the user catalog as `local-cpu`) and `ridgeline probe --kernel` (a real
//! matrix kernel timed and placed beside the roofline's prediction).

use super::args::{Cli, Format, KernelOp, ProbeArgs};
use super::output::{Style, json_text, wrap};
use super::{CliError, Out, write_error};
use crate::catalog::fields::printable;
use crate::catalog::{Catalog, HardwareEntry};
use crate::plot::scale::Roof;
use crate::plot::{OpPoint, RoofDevice, Roofline};
use crate::probe::detect::{CpuInfo, detect_cpu};
use crate::probe::entry;
use crate::probe::kernel::{self, Counts, Op, Timed};
use crate::probe::measure::{self, Effort, Layout, Measured};
use crate::probe::{LOCAL_CPU_ID, cpu_match};
use crate::solver::units::{format_bandwidth, format_bytes, format_flops, format_number};
use serde_json::{Value, json};

/// Whether `probe` was asked to measure or time rather than report.
pub fn wanted(a: &ProbeArgs) -> bool {
    a.measure || a.kernel.is_some()
}

/// Run `probe --measure` or `probe --kernel`.
pub fn run(cli: &Cli, a: &ProbeArgs, style: Style, out: Out, err: Out) -> Result<(), CliError> {
    let cat = super::load_catalog(cli, &super::args::Command::Probe(a.clone()), err)?;
    let format = Format::from(a.format);
    let cpu = detect_cpu();
    if let Some(op) = a.kernel {
        return run_kernel(&cat, a, op, &cpu, format, style, out);
    }
    let dir = super::catalog_dir(cli)?.ok_or_else(|| {
        CliError::Input(
            "probe --measure: there is no config directory to write the measured entry to; set RIDGELINE_CONFIG_DIR or give --catalog DIR".into(),
        )
    })?;
    let effort = if a.quick {
        Effort::Quick
    } else if a.thorough {
        Effort::Thorough
    } else {
        Effort::Default
    };
    let m = measure::measure(&Layout::from_cpu(&cpu), effort);
    let (date, year) = entry::today();
    let e = entry::local_cpu(&m, &cpu, &date, year)
        .map_err(|e| CliError::Input(format!("probe --measure: {e}")))?;
    let saved =
        entry::save(&dir, &e).map_err(|e| CliError::Output(format!("probe --measure: {e}")))?;
    let file = printable(&saved.written.file.display().to_string()).into_owned();
    let datasheet = cpu_match(&cpu, &cat)
        .id
        .and_then(|id| cat.hardware(&id).ok().cloned())
        .filter(|d| d.hw.id != LOCAL_CPU_ID);
    let text = match format {
        Format::Json => {
            let mut v = measured_json(&m, &cpu);
            v["entry"] = json!({
                "id": saved.id,
                "file": saved.written.file.display().to_string(),
                "replaced": saved.written.replaced,
                "source": e.source,
            });
            v["datasheet"] = datasheet.as_ref().map_or(Value::Null, |d| {
                json!({
                    "id": d.hw.id,
                    "fp32_flops": d.hw.peaks.get(crate::solver::Precision::Fp32),
                    "memory_bandwidth": d.hw.memory_bandwidth,
                })
            });
            json_text(&v) + "\n"
        }
        _ => {
            let mut s = measured_text(&m, &cpu, style);
            let action = if saved.written.replaced {
                "updated"
            } else {
                "written"
            };
            s.push_str(&wrap(
                &format!("Entry `{}` {action} in {file} ({}).\n", saved.id, e.source),
                style.width,
            ));
            if let Some(d) = &datasheet {
                s.push_str(&wrap(
                    &format!(
                        "Datasheet `{}`: {} fp32, {} memory bandwidth.\n",
                        d.hw.id,
                        d.hw.peaks
                            .get(crate::solver::Precision::Fp32)
                            .map_or("no".into(), format_flops),
                        format_bandwidth(d.hw.memory_bandwidth)
                    ),
                    style.width,
                ));
            }
            s
        }
    };
    out.write_all(text.as_bytes()).map_err(write_error)
}

/// One figure's row: "L1   297.5 GB/s   best of 8 runs; ...".
fn row(s: &mut String, label: &str, value: String, f: &measure::Figure, fmt: fn(f64) -> String) {
    s.push_str(&format!(
        "{label:<10} {value:>13}   best of {} runs; {}..{}, spread {:.1}%\n",
        f.runs,
        fmt(f.min),
        fmt(f.max),
        f.spread() * 100.0
    ));
}

/// The text report of a measurement.
pub fn measured_text(m: &Measured, cpu: &CpuInfo, style: Style) -> String {
    let mut s = String::new();
    if m.debug_build {
        s.push_str(&wrap(
            "warning: this is a debug build: the figures below are far under what the machine does; build with `cargo build --release` and measure again.\n",
            style.width,
        ));
    }
    s.push_str(&wrap(
        &format!(
            "{}: {} threads, {} kernel, {} effort, {:.1} s.\n",
            cpu.model.trim(),
            m.threads,
            m.kernel,
            m.effort.name(),
            m.seconds
        ),
        style.width,
    ));
    row(
        &mut s,
        "Peak fp32",
        format_flops(m.f32_flops.best),
        &m.f32_flops,
        format_flops,
    );
    row(
        &mut s,
        "Peak fp64",
        format_flops(m.f64_flops.best),
        &m.f64_flops,
        format_flops,
    );
    for l in &m.levels {
        let label = if l.name == "DRAM" {
            "DRAM".to_string()
        } else {
            format!("{} ", l.name)
        };
        row(
            &mut s,
            label.trim_end(),
            format_bandwidth(l.bandwidth.best),
            &l.bandwidth,
            format_bandwidth,
        );
    }
    let dram = m.dram().best;
    if dram > 0.0 {
        s.push_str(&format!(
            "Ridge      {:>13}   FLOP/byte, fp32 over DRAM\n",
            format_number(m.f32_flops.best / dram)
        ));
    }
    s.push_str(&wrap(
        "Bandwidth: triad a = b + s*c on each thread's own arrays, 24 bytes an element (2 reads, 1 write; a write-allocate read is not counted). DRAM: arrays of 4x the last-level cache; each cache level: arrays in half of its share per thread.\n",
        style.width,
    ));
    s
}

fn figure_json(f: &measure::Figure) -> Value {
    json!({ "best": f.best, "min": f.min, "max": f.max, "runs": f.runs, "spread": f.spread() })
}

/// The JSON record of a measurement.
pub fn measured_json(m: &Measured, cpu: &CpuInfo) -> Value {
    let levels: Vec<Value> = m
        .levels
        .iter()
        .map(|l| {
            json!({
                "level": l.name,
                "array_bytes_per_thread": l.array_bytes,
                "bandwidth": figure_json(&l.bandwidth),
            })
        })
        .collect();
    json!({
        "cpu": cpu.model.trim(),
        "threads": m.threads,
        "kernel": m.kernel,
        "f32_lanes": m.f32_lanes,
        "effort": m.effort.name(),
        "seconds": m.seconds,
        "debug_build": m.debug_build,
        "fp32_flops": figure_json(&m.f32_flops),
        "fp64_flops": figure_json(&m.f64_flops),
        "levels": levels,
        "bytes_per_triad_element": measure::TRIAD_BYTES_PER_ELEMENT,
    })
}

/// The device a kernel's prediction is made for: the measured `local-cpu`
/// entry, else the catalog's entry matching this CPU, else a quick
/// measurement made now (not saved).
fn local_device(cat: &Catalog, cpu: &CpuInfo) -> Result<(HardwareEntry, String), CliError> {
    if let Ok(e) = cat.hardware(LOCAL_CPU_ID) {
        return Ok((e.clone(), format!("`{LOCAL_CPU_ID}` (measured)")));
    }
    if let Some(e) = cpu_match(cpu, cat).id.and_then(|id| cat.hardware(&id).ok()) {
        return Ok((e.clone(), format!("`{}` (datasheet)", e.hw.id)));
    }
    let m = measure::measure(&Layout::from_cpu(cpu), Effort::Quick);
    let (date, year) = entry::today();
    let e = entry::local_cpu(&m, cpu, &date, year)
        .map_err(|e| CliError::Input(format!("probe --kernel: no roof to predict with: {e}")))?;
    Ok((
        e,
        "this CPU, measured just now (quick; `ridgeline probe --measure` keeps it)".into(),
    ))
}

fn run_kernel(
    cat: &Catalog,
    a: &ProbeArgs,
    op: KernelOp,
    cpu: &CpuInfo,
    format: Format,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let op = match op {
        KernelOp::Gemv => Op::Gemv,
        KernelOp::Gemm => Op::Gemm,
    };
    let n = a.size.unwrap_or(op.default_size());
    if !(1..=op.max_size()).contains(&n) {
        return Err(CliError::Input(format!(
            "--size {n}: use 1 to {} for {} (N x N matrices)",
            op.max_size(),
            op.name()
        )));
    }
    if let Some(o) = &a.output
        && o.as_os_str() != "-"
        && std::fs::symlink_metadata(o).is_ok()
    {
        return Err(CliError::Input(format!(
            "-o {}: it exists; give another name (or remove it)",
            printable(&o.display().to_string())
        )));
    }
    let (dev, how) = local_device(cat, cpu)?;
    let runs = if op == Op::Gemm && n >= 4096 { 3 } else { 7 };
    let t = kernel::run(op, n, cpu.threads.max(1) as usize, runs);
    let predicted = kernel::predict(&t.counts, &dev.hw);
    let text = match format {
        Format::Json => json_text(&kernel_json(&t, &dev, &how, predicted)) + "\n",
        _ => kernel_text(&t, &dev, &how, predicted, style),
    };
    if let Some(o) = &a.output {
        let svg = crate::plot::svg::roofline(&kernel_roofline(&t, &dev, predicted));
        let shown = printable(&o.display().to_string()).into_owned();
        if o.as_os_str() == "-" {
            return out.write_all(svg.as_bytes()).map_err(write_error);
        }
        crate::fsutil::write_atomic(o, svg.as_bytes())
            .map_err(|e| CliError::Output(format!("{shown}: not written: {e}")))?;
        out.write_all(text.as_bytes()).map_err(write_error)?;
        return out
            .write_all(format!("wrote {shown}\n").as_bytes())
            .map_err(write_error);
    }
    out.write_all(text.as_bytes()).map_err(write_error)
}

/// "2 n^2" and the byte count in words, for the report.
fn counts_words(op: Op) -> (&'static str, &'static str) {
    match op {
        Op::Gemv => ("2 N^2", "4 (N^2 + 2N): A and x read, y written, once each"),
        Op::Gemm => ("2 N^3", "12 N^2: A and B read, C written, once each"),
    }
}

fn error_of(measured: f64, predicted: f64) -> f64 {
    measured / predicted - 1.0
}

pub fn kernel_text(
    t: &Timed,
    dev: &HardwareEntry,
    how: &str,
    predicted: Option<(f64, &'static str)>,
    style: Style,
) -> String {
    let Counts { flops, bytes } = t.counts;
    let (fw, bw) = counts_words(t.op);
    let mut s = String::new();
    if measure::debug_build() {
        s.push_str(&wrap(
            "warning: this is a debug build: the kernel runs far slower than it does in a release build (`cargo build --release`).\n",
            style.width,
        ));
    }
    let mut line = |k: &str, v: String| s.push_str(&wrap(&format!("{k:<11}{v}\n"), style.width));
    line(
        "Kernel",
        format!(
            "{} f32, N = {}, {} threads ({}), best of {} runs",
            t.op.name(),
            t.n,
            t.threads,
            t.op.library(),
            t.rate.runs
        ),
    );
    line("FLOPs", format!("{} ({fw})", format_number(flops)));
    line("Bytes", format!("{} ({bw})", format_bytes(bytes)));
    line(
        "Intensity",
        format!("{} FLOP/byte", format_number(t.counts.intensity())),
    );
    line(
        "Measured",
        format!(
            "{}, best of {} runs ({:.3} ms); {}..{}, spread {:.1}%",
            format_flops(t.rate.best),
            t.rate.runs,
            t.best_seconds * 1e3,
            format_flops(t.rate.min),
            format_flops(t.rate.max),
            t.rate.spread() * 100.0
        ),
    );
    match predicted {
        Some((p, roof)) => {
            line(
                "Predicted",
                format!(
                    "{} on {how}: {roof}-bound ({} fp32, {} memory)",
                    format_flops(p),
                    dev.hw
                        .peaks
                        .get(crate::solver::Precision::Fp32)
                        .map_or("no".into(), format_flops),
                    format_bandwidth(dev.hw.memory_bandwidth)
                ),
            );
            line(
                "Error",
                format!(
                    "{:+.1}% (measured over predicted, less 1)",
                    error_of(t.rate.best, p) * 100.0
                ),
            );
        }
        None => line("Predicted", format!("none: {how} has no fp32 peak")),
    }
    s
}

fn kernel_json(
    t: &Timed,
    dev: &HardwareEntry,
    how: &str,
    predicted: Option<(f64, &'static str)>,
) -> Value {
    let (fw, bw) = counts_words(t.op);
    json!({
        "kernel": t.op.name(),
        "n": t.n,
        "threads": t.threads,
        "library": t.op.library(),
        "flops": t.counts.flops,
        "flops_count": fw,
        "bytes": t.counts.bytes,
        "bytes_count": bw,
        "intensity": t.counts.intensity(),
        "measured_flops": figure_json(&t.rate),
        "best_seconds": t.best_seconds,
        "device": dev.hw.id,
        "device_from": how,
        "predicted_flops": predicted.map(|p| p.0),
        "bound": predicted.map(|p| p.1),
        "error": predicted.map(|p| error_of(t.rate.best, p.0)),
        "debug_build": measure::debug_build(),
    })
}

/// The roofline of the device with the measured point and the prediction
/// (hollow) on it.
pub fn kernel_roofline(
    t: &Timed,
    dev: &HardwareEntry,
    predicted: Option<(f64, &'static str)>,
) -> Roofline {
    let peak = dev
        .hw
        .peaks
        .get(crate::solver::Precision::Fp32)
        .unwrap_or(t.rate.best);
    let mut points = vec![OpPoint {
        place: 0,
        label: format!("{} N={} measured", t.op.name(), t.n),
        intensity: t.counts.intensity(),
        flops: t.rate.best,
        other: false,
    }];
    if let Some((p, _)) = predicted {
        points.push(OpPoint {
            place: 0,
            label: "predicted".into(),
            intensity: t.counts.intensity(),
            flops: p,
            other: true,
        });
    }
    Roofline {
        title: format!("Measured {} on {}", t.op.name(), dev.hw.name),
        subtitle: format!(
            "f32, N = {}, {} threads, {}; roof: {}",
            t.n,
            t.threads,
            t.op.library(),
            dev.source
        ),
        devices: vec![RoofDevice {
            place: 0,
            id: dev.hw.id.clone(),
            roof: Roof {
                peak,
                bandwidth: dev.hw.memory_bandwidth,
            },
            caches: dev
                .caches
                .iter()
                .map(|c| (c.level.clone(), c.bandwidth))
                .collect(),
        }],
        effective: None,
        points,
    }
}
