//! The scriptable command line over the same solver the workbench uses.
//! Exit codes: 0 ok; 2 bad input (the message names the flag or file and the
//! fix); 3 a verdict the user asked for failed (--require-fit, an SLA).

pub mod args;
mod catalog_check;
mod compare;
mod eval;
mod fleet;
pub mod output;
mod records;
mod sens;
mod serve;
mod sweep;
mod synth;
mod zoo;

pub use records::{eval_record, hardware_record, model_record};

use crate::catalog::{self, Catalog, HardwareEntry};
use crate::solver::{self, Assumptions, Workload};
use args::{BatchSpec, Cli, Command, WorkloadArgs};
use std::io::Write;

/// What went wrong, and the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit 2.
    Input(String),
    /// A requested verdict failed: exit 3 (the output was printed).
    Verdict(String),
}

impl CliError {
    pub fn code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Verdict(_) => 3,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(m) | CliError::Verdict(m) => f.write_str(m),
        }
    }
}

impl From<solver::SolverError> for CliError {
    fn from(e: solver::SolverError) -> Self {
        CliError::Input(e.to_string())
    }
}

impl From<catalog::LookupError> for CliError {
    fn from(e: catalog::LookupError) -> Self {
        let flag = match e.what {
            "hardware" => "--hardware",
            "model" => "--model",
            _ => "--region",
        };
        CliError::Input(format!("{flag}: {e}"))
    }
}

pub(crate) type Out<'a> = &'a mut dyn Write;

/// The user catalog directory of a command: `--catalog DIR` when given (it
/// must exist, be a directory and be readable), else the config
/// directory's `catalog/` (which need not exist).
pub fn catalog_dir(cli: &Cli) -> Result<Option<std::path::PathBuf>, CliError> {
    if let Some(d) = &cli.catalog {
        catalog::check_user_dir(d).map_err(|why| {
            CliError::Input(format!(
                "--catalog {}: the directory {why}; give a folder holding hardware/*.toml, models/*.toml or regions.toml, or leave out --catalog to use the config directory's catalog/",
                catalog::fields::printable(&d.display().to_string())
            ))
        })?;
    }
    Ok(catalog::user_catalog_dir(cli.catalog.as_deref()))
}

/// Load the catalog for a command: built-in, then the user's files; report
/// problems on stderr and keep going with what is valid. A `--catalog DIR`
/// that cannot be used is an error.
pub fn load_catalog(cli: &Cli, err: Out) -> Result<Catalog, CliError> {
    let dir = catalog_dir(cli)?;
    let c = Catalog::load(dir.as_deref());
    for d in &c.diagnostics {
        let _ = writeln!(
            err,
            "warning: {d} (skipped; the rest of the catalog is loaded)"
        );
    }
    Ok(c)
}

/// Run a subcommand; returns the process exit code.
pub fn run(cli: &Cli, command: &Command, out: Out, err: Out) -> i32 {
    let result = match command {
        Command::Catalog(args::CatalogArgs {
            action: args::CatalogAction::Check { dir },
        }) => catalog_check::catalog_check(cli, dir.as_deref(), out),
        other => load_catalog(cli, err).and_then(|cat| dispatch(&cat, other, out)),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            let prefix = match e {
                CliError::Input(_) => "error",
                CliError::Verdict(_) => "verdict",
            };
            let _ = writeln!(err, "{prefix}: {e}");
            e.code()
        }
    }
}

fn dispatch(cat: &Catalog, command: &Command, out: Out) -> Result<(), CliError> {
    match command {
        Command::Eval(a) => eval::eval(cat, a, out),
        Command::Sens(a) => sens::sens(cat, a, out),
        Command::Synth(a) => synth::synth(cat, a, out),
        Command::Compare(a) => compare::compare(cat, &a.workload, &a.hardware, out),
        Command::Sweep(a) => match a.contexts {
            Some(c) => sweep::context_sweep_cmd(cat, &a.workload, &a.hardware, c, out),
            None => sweep::sweep_cmd(cat, &a.workload, &a.hardware, out),
        },
        Command::Zoo(a) => zoo::zoo(cat, a.kind, a.format, out),
        Command::Serve(a) => serve::serve(cat, a, out),
        Command::Fleet(a) => fleet::fleet(cat, a, out),
        Command::Catalog(_) => unreachable_catalog(),
    }
}

fn unreachable_catalog() -> Result<(), CliError> {
    Err(CliError::Input("catalog is handled before dispatch".into()))
}

pub(crate) fn write(out: Out, s: &str) -> Result<(), CliError> {
    out.write_all(s.as_bytes())
        .map_err(|e| CliError::Input(format!("cannot write output: {e}")))
}

/// The assumptions from the flags, defaults where a flag is absent.
pub fn assumptions(w: &WorkloadArgs) -> Assumptions {
    let d = Assumptions::default();
    Assumptions {
        compute_efficiency: w.compute_eff.unwrap_or(d.compute_efficiency),
        memory_efficiency: w.memory_eff.unwrap_or(d.memory_efficiency),
        link_efficiency: w.link_eff.unwrap_or(d.link_efficiency),
        overhead_s: w.overhead.unwrap_or(d.overhead_s),
        link_latency_s: w.link_latency.unwrap_or(d.link_latency_s),
        usable_memory: w.usable_memory.unwrap_or(d.usable_memory),
        overlap: w.overlap.unwrap_or(d.overlap),
    }
}

/// The workload from the flags at batch `batch`.
pub fn workload(w: &WorkloadArgs, batch: u64) -> Workload {
    let base = w.precision.unwrap_or(Workload::default().weights);
    Workload {
        phase: w.phase.into(),
        batch: batch as f64,
        context: w.context as f64,
        weights: w.weights.unwrap_or(base),
        activations: w.activations.unwrap_or(base),
        kv: w.kv.unwrap_or(base),
        tp: w.tp,
        pp: w.pp,
    }
}

/// The single batch of a non-sweep command.
pub(crate) fn single_batch(w: &WorkloadArgs) -> Result<u64, CliError> {
    match w.batch {
        None => Ok(1),
        Some(BatchSpec::One(b)) => Ok(b),
        Some(BatchSpec::Range(..)) => Err(CliError::Input(
            "--batch takes one number here; a range like 1..512 is for `ridgeline sweep`".into(),
        )),
    }
}

/// Devices named by a comma-separated list, or every device for "all".
pub(crate) fn devices<'c>(
    cat: &'c Catalog,
    list: &str,
) -> Result<Vec<&'c HardwareEntry>, CliError> {
    if list.trim().eq_ignore_ascii_case("all") {
        return Ok(cat.hardware.iter().collect());
    }
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        return Err(CliError::Input(
            "--hardware: name at least one device, or \"all\"".into(),
        ));
    }
    names.into_iter().map(|n| Ok(cat.hardware(n)?)).collect()
}
