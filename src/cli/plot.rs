//! `ridgeline plot KIND ... -o FILE.svg`: the workbench's plots as SVG
//! figures for papers and slides (src/plot). Each kind takes the flags of
//! the command whose figures it draws (`roofline` and `generations`:
//! `compare`'s; `sweep`: `sweep`'s), so a table and its plot come from one
//! command line.

use super::args::{CompareArgs, Format, OpsArgs, SweepArgs, TrainArgs};
use super::output::Style;
use super::records::workload_line;
use super::sweep::batch_sweep;
use super::{CliError, Out, assumptions, devices, single_batch, workload, write};
use crate::catalog::Catalog;
use crate::plot::{self, Figure, build};
use crate::solver::explore::{self, Objective};
use crate::solver::{self, Phase, Workload, compare, sweep, units};
use crate::words::Words;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct PlotArgs {
    #[command(subcommand)]
    pub kind: PlotKind,
}

#[derive(Debug, Clone, Subcommand)]
pub enum PlotKind {
    /// The log-log roofline of one workload on devices side by side
    /// (`compare`'s flags): each roof in its own dash pattern, the
    /// operating points, the first device's effective roof and ridge.
    Roofline(PlotCompare),
    /// The same roofline over a family of devices, titled as the
    /// Generations view (`compare`'s flags; list the family in --hardware).
    Generations(PlotCompare),
    /// Tokens/s against the batch (or, with --contexts, the context) on
    /// each device, the crossover batch marked (`sweep`'s flags).
    Sweep(PlotSweep),
    /// A training step's time as a bar of its parts: compute, element-wise
    /// kernels, each parallelism's exposed communication, the pipeline
    /// bubble, the optimizer and the overhead (`train`'s flags).
    Train(Box<PlotTrain>),
    /// Every operator of a step as its own point under the device's roof
    /// (`ops`' flags), at the fewest devices that hold it when it does not
    /// fit as asked.
    Operators(PlotOps),
    /// The serving configurations of `explore`'s space on its two
    /// objectives (`explore`'s flags, two --objectives): every feasible
    /// one as a faint dot, the Pareto front as a line over them.
    Explore(Box<PlotExplore>),
}

#[derive(Debug, Clone, Args)]
pub struct PlotExplore {
    #[command(flatten)]
    pub explore: super::explore::ExploreArgs,
    #[command(flatten)]
    pub to: PlotOut,
}

#[derive(Debug, Clone, Args)]
pub struct PlotOps {
    #[command(flatten)]
    pub ops: OpsArgs,
    #[command(flatten)]
    pub to: PlotOut,
}

/// Where the figure goes.
#[derive(Debug, Clone, Args)]
pub struct PlotOut {
    /// The SVG file to write ("-": standard output).
    #[arg(long, short = 'o', value_name = "FILE.svg")]
    pub out: PathBuf,
    /// Replace FILE when it exists (without it, an existing file is kept
    /// and the command fails).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Clone, Args)]
pub struct PlotCompare {
    #[command(flatten)]
    pub compare: CompareArgs,
    #[command(flatten)]
    pub to: PlotOut,
}

#[derive(Debug, Clone, Args)]
pub struct PlotSweep {
    #[command(flatten)]
    pub sweep: SweepArgs,
    #[command(flatten)]
    pub to: PlotOut,
}

#[derive(Debug, Clone, Args)]
pub struct PlotTrain {
    #[command(flatten)]
    pub train: TrainArgs,
    #[command(flatten)]
    pub to: PlotOut,
}

impl PlotKind {
    pub fn to(&self) -> &PlotOut {
        match self {
            PlotKind::Roofline(a) | PlotKind::Generations(a) => &a.to,
            PlotKind::Sweep(a) => &a.to,
            PlotKind::Train(a) => &a.to,
            PlotKind::Operators(a) => &a.to,
            PlotKind::Explore(a) => &a.to,
        }
    }
    /// The format flag of the command it shares flags with (refused: a
    /// plot is SVG).
    fn format(&self) -> Format {
        match self {
            PlotKind::Roofline(a) | PlotKind::Generations(a) => a.compare.workload.format,
            PlotKind::Sweep(a) => a.sweep.workload.format,
            PlotKind::Train(a) => a.train.profile.format,
            PlotKind::Operators(a) => a.ops.workload.format,
            PlotKind::Explore(a) => a.explore.format,
        }
    }
}

pub(super) fn plot(cat: &Catalog, a: &PlotArgs, style: Style, out: Out) -> Result<(), CliError> {
    if a.kind.format() != Format::Table {
        return Err(CliError::Input(
            "--format: a plot is an SVG file; leave out --format (the table's command takes it)"
                .into(),
        ));
    }
    let svg = figure(cat, &a.kind)?.svg();
    let to = a.kind.to();
    if to.out.as_os_str() == "-" {
        return write(out, &svg);
    }
    let shown = crate::catalog::fields::printable(&to.out.display().to_string()).into_owned();
    if !to.force && std::fs::symlink_metadata(&to.out).is_ok() {
        return Err(CliError::Input(format!(
            "-o {shown}: it exists; give --force to replace it, or another name"
        )));
    }
    crate::fsutil::write_atomic(&to.out, svg.as_bytes())
        .map_err(|e| CliError::Output(format!("{shown}: not written: {e}")))?;
    write(
        out,
        &super::output::wrap(&format!("wrote {shown}\n"), style.width),
    )
}

/// The figure of a plot command.
pub fn figure(cat: &Catalog, kind: &PlotKind) -> Result<Figure, CliError> {
    match kind {
        PlotKind::Roofline(a) => roofline(cat, &a.compare, "Roofline"),
        PlotKind::Generations(a) => roofline(cat, &a.compare, "Generations"),
        PlotKind::Sweep(a) => sweep_figure(cat, &a.sweep),
        PlotKind::Train(a) => train_figure(cat, &a.train),
        PlotKind::Operators(a) => operators_figure(cat, &a.ops),
        PlotKind::Explore(a) => explore_figure(cat, &a.explore),
    }
}

/// The figure of a `ridgeline plot ...` command line (its arguments from
/// "ridgeline" on), drawn against `cat` (a lesson's handout draws each
/// step's plot this way, with the catalog it was checked against).
pub fn figure_of(cat: &Catalog, args: &[String]) -> Result<Figure, CliError> {
    use clap::Parser;
    let cli = super::args::Cli::try_parse_from(args).map_err(|e| CliError::Input(e.to_string()))?;
    match &cli.command {
        Some(super::args::Command::Plot(p)) => figure(cat, &p.kind),
        _ => Err(CliError::Input("not a plot command line".into())),
    }
}

/// The roofline of `compare`'s devices; the first that evaluates is the
/// one whose effective roof, ridge and other phase are drawn.
fn roofline(cat: &Catalog, a: &CompareArgs, name: &str) -> Result<Figure, CliError> {
    let w = &a.workload;
    let model = cat.model(&w.model)?;
    let wl = workload(w, single_batch(w)?);
    let entries = devices(cat, &a.hardware)?;
    // Each device with its own values of the profile (its class's).
    let asms = entries
        .iter()
        .map(|e| assumptions(cat, w, &[*e]))
        .collect::<Result<Vec<_>, _>>()?;
    let hws: Vec<solver::Hardware> = entries.iter().map(|e| e.hw.clone()).collect();
    let cmp = compare::compare_each(&hws, &model.model, &wl, &asms, None);
    let judged: Vec<build::Judged> = cmp
        .rows
        .iter()
        .zip(&entries)
        .enumerate()
        .map(|(place, (r, e))| build::Judged {
            place,
            id: &e.hw.id,
            bandwidth: e.hw.memory_bandwidth,
            caches: &e.caches,
            judged: r.as_ref().ok(),
        })
        .collect();
    let Some(sel) = judged.iter().position(|j| j.judged.is_some()) else {
        let why: Vec<String> = cmp
            .rows
            .iter()
            .zip(&entries)
            .filter_map(|(r, e)| r.as_ref().err().map(|x| format!("{}: {x}", e.hw.id)))
            .collect();
        return Err(CliError::Input(why.join("; ")));
    };
    // The Generations view draws no other phase (it compares one step).
    let other = (model.model.kind.is_decoder() && name != "Generations").then(|| {
        let o = Workload {
            phase: match wl.phase {
                Phase::Decode => Phase::Prefill,
                Phase::Prefill => Phase::Decode,
            },
            ..wl
        };
        solver::evaluate(&entries[sel].hw, &model.model, &o, &asms[sel]).ok()
    });
    let subtitle = workload_line(
        model,
        &wl,
        &format!(
            "{}, TP {} x PP {}, profile {}",
            wl.weights, wl.tp, wl.pp, w.profile
        ),
    );
    Ok(Figure::Roofline(build::roofline(
        format!("{name}: {}", model.model.name),
        subtitle.trim_end().to_string(),
        &judged,
        Some(sel),
        &asms[sel],
        other.flatten().as_ref(),
        Words::for_model(model),
    )))
}

/// Tokens/s over the batch (or context) sweep of each device.
fn sweep_figure(cat: &Catalog, a: &SweepArgs) -> Result<Figure, CliError> {
    let w = &a.workload;
    let model = cat.model(&w.model)?;
    let words = Words::for_model(model);
    let entries = devices(cat, &a.hardware)?;
    let mut runs: Vec<(Vec<u64>, Vec<solver::Evaluation>, Option<f64>)> = Vec::new();
    let (base, title, x_title) = match a.contexts {
        None => {
            let base = workload(w, 1);
            for hw in &entries {
                let asm = assumptions(cat, w, &[*hw])?;
                let (batches, s) = batch_sweep(hw, model, &base, &asm, w.batch)?;
                runs.push((batches, s.points, s.crossover_batch));
            }
            (base, "batch sweep", "batch (sequences)")
        }
        Some(c) => {
            let base = workload(w, single_batch(w)?);
            let (lo, hi) = match c {
                super::args::BatchSpec::One(c) => (c, c),
                super::args::BatchSpec::Range(lo, hi) => (lo, hi),
            };
            let points = sweep::powers_of_two(lo, hi);
            for hw in &entries {
                let asm = assumptions(cat, w, &[*hw])?;
                let evals = sweep::context_sweep(&hw.hw, &model.model, &base, &asm, &points)?;
                runs.push((points.clone(), evals, None));
            }
            (base, "context sweep", "context (tokens)")
        }
    };
    let swept: Vec<build::Swept> = runs
        .iter()
        .zip(&entries)
        .enumerate()
        .map(|(place, ((xs, evals, crossover), e))| build::Swept {
            place,
            id: &e.hw.id,
            points: xs.iter().map(|x| *x as f64).zip(evals.iter()).collect(),
            crossover: *crossover,
        })
        .collect();
    // What stays fixed: the context of a batch sweep, the batch of a
    // context sweep.
    let fixed = match a.contexts {
        None if words.single_pass() => String::new(),
        None => format!(", context {}", units::format_tokens(base.context)),
        Some(_) => format!(", batch {}", units::format_count(base.batch)),
    };
    let subtitle = format!(
        "{}: {}{fixed}, {}, TP {} x PP {}, profile {}",
        model.model.name,
        words.step(base.phase),
        base.weights,
        base.tp,
        base.pp,
        w.profile
    );
    Ok(Figure::Lines(build::sweep(
        format!("{}: {title}", model.model.name),
        subtitle,
        x_title,
        &swept,
        words,
    )))
}

/// The step of `train`'s configuration as one bar of its parts (those that
/// take any time). A step that does not fit in memory does not run, so it
/// has no bar: the error says so.
fn train_figure(cat: &Catalog, a: &TrainArgs) -> Result<Figure, CliError> {
    let e = super::train::evaluated(cat, a)?;
    let (tr, st) = (&e.tr, &e.tr.step);
    if !tr.memory.fits {
        return Err(CliError::Input(format!(
            "the step does not fit in memory ({} per device of {} usable), so it has no time to draw; `ridgeline train` with the same flags lists what would fit",
            units::format_bytes(tr.memory.total()),
            units::format_bytes(tr.memory.usable_bytes),
        )));
    }
    let parts: Vec<(String, f64)> = st
        .terms()
        .iter()
        .filter(|(_, s)| *s > 0.0)
        .map(|(t, s)| (t.name().to_string(), *s))
        .collect();
    let label = format!("{} x {}", tr.devices(), e.hw.id);
    let subtitle = format!(
        "{}, step {}, {} tokens/s, MFU {}",
        e.run.layout,
        units::format_time(st.step_time_s),
        units::format_number(st.tokens_per_s),
        units::format_percent(st.mfu)
    );
    Ok(Figure::Bars(build::step_bars(
        format!("Training step: {}", e.model.name),
        subtitle,
        vec![(label, parts)],
    )))
}

/// The operators of `ops`' step on the device's roofline: each that does
/// math and moves memory (`ops::plotted`) as a point of its own, labelled.
fn operators_figure(cat: &Catalog, a: &OpsArgs) -> Result<Figure, CliError> {
    let w = &a.workload;
    let hw = cat.hardware(&a.hardware)?;
    let model = cat.model(&w.model)?;
    let wl = workload(w, single_batch(w)?);
    let asm = assumptions(cat, w, &[hw])?;
    let Some((verdict, layout, b)) = solver::ops::running(&hw.hw, &model.model, &wl, &asm)? else {
        return Err(CliError::Input(format!(
            "{} does not fit on any layout of {}: nothing runs to break down",
            model.model.id, hw.hw.id
        )));
    };
    let points = b
        .ops
        .iter()
        .filter(|o| solver::ops::plotted(o))
        .enumerate()
        .map(|(i, o)| plot::OpPoint {
            // Each operator its own marker, after the device's.
            place: i + 1,
            label: o.name(&model.model).to_string(),
            intensity: o.arithmetic_intensity().unwrap_or(0.0),
            flops: o.achieved_flops(),
            other: false,
        })
        .collect();
    let on = if verdict.fits() {
        String::new()
    } else {
        format!(" (on {}: it does not fit as asked)", layout.devices())
    };
    let subtitle = workload_line(
        model,
        &Workload {
            tp: layout.tp,
            pp: layout.pp,
            ..wl
        },
        &format!(
            "{}, TP {} x PP {}, profile {}{on}",
            wl.weights, layout.tp, layout.pp, w.profile
        ),
    );
    Ok(Figure::Roofline(plot::Roofline {
        title: format!("Operators: {} on {}", model.model.name, hw.hw.id),
        subtitle: subtitle.trim_end().to_string(),
        devices: vec![plot::RoofDevice {
            place: 0,
            id: hw.hw.id.clone(),
            roof: crate::plot::scale::Roof {
                peak: b.peak_flops,
                bandwidth: b.bandwidth,
            },
            caches: Vec::new(),
        }],
        effective: Some(plot::Effective {
            device: 0,
            compute: b.compute_efficiency,
            memory: b.memory_efficiency,
        }),
        points,
    }))
}

/// The most configurations `plot explore` draws: each feasible one is a
/// dot of the SVG (10^5 dots are some megabytes); more is for `explore
/// --all`.
pub const MAX_PLOT_CONFIGS: usize = 100_000;

/// How an objective's axis ticks read.
fn objective_unit(o: Objective) -> plot::Unit {
    match o {
        Objective::Itl | Objective::Ttft => plot::Unit::Time,
        Objective::Cost => plot::Unit::Usd,
        Objective::Energy => plot::Unit::Joules,
        Objective::TokensPerDevice | Objective::Devices => plot::Unit::Number,
    }
}

/// `explore`'s space on its two objectives: every feasible configuration
/// a faint dot, the front a line through its points in the first
/// objective's order.
fn explore_figure(cat: &Catalog, a: &super::explore::ExploreArgs) -> Result<Figure, CliError> {
    if a.all {
        return Err(CliError::Input(
            "--all: a plot draws every feasible configuration already; leave it out".into(),
        ));
    }
    let sp = super::explore::space(cat, a)?;
    let [x, y] = sp.objectives[..] else {
        return Err(CliError::Input(format!(
            "--objectives: a plot has two axes, not {}; give two, like --objectives itl,cost",
            sp.objectives.len()
        )));
    };
    let size = sp.axes.size();
    if size > MAX_PLOT_CONFIGS {
        return Err(CliError::Input(format!(
            "{size} configurations: a plot draws up to {MAX_PLOT_CONFIGS}; narrow an axis (--hardware, --precision, --tp, --pp, --batch, --prompt, --output), or use `ridgeline explore --all --format csv` for every one"
        )));
    }
    let e = explore::explore(
        sp.model,
        &sp.axes,
        &sp.limits,
        &sp.objectives,
        &sp.asm,
        sp.idle,
    )?;
    let xy = |p: &explore::Point| {
        let f = p.figures.as_ref()?;
        Some((x.value(f)?, y.value(f)?))
    };
    let cloud: Vec<(f64, f64)> = e
        .points
        .iter()
        .filter(|p| p.verdict == explore::Verdict::Feasible)
        .filter_map(xy)
        .collect();
    let mut front: Vec<(f64, f64)> = e.front.iter().filter_map(|&i| xy(&e.points[i])).collect();
    front.sort_by(|p, q| p.0.total_cmp(&q.0));
    let one = |v: &[f64]| match v {
        [only] => units::format_tokens(*only),
        _ => format!("{} lengths", v.len()),
    };
    let subtitle = format!(
        "{} configurations, {} feasible, {} on the front; prompt {}, output {}, profile {}",
        e.evaluated,
        e.feasible,
        front.len(),
        one(&sp.axes.prompt),
        one(&sp.axes.output),
        a.profile
    );
    Ok(Figure::Lines(plot::Lines {
        title: format!("Explore: {}", sp.model.name),
        subtitle,
        x_title: x.axis_title().to_string(),
        y_title: y.axis_title().to_string(),
        series: vec![plot::Series {
            place: 0,
            label: format!("Pareto front ({})", front.len()),
            points: front,
        }],
        marks: Vec::new(),
        units: [objective_unit(x), objective_unit(y)],
        cloud: Some(plot::Cloud {
            label: format!("feasible ({})", cloud.len()),
            points: cloud,
        }),
    }))
}
