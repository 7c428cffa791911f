//! The scriptable command line over the same solver the workbench uses.
//! Exit codes: 0 ok; 2 bad input (the message names the flag or file and the
//! fix); 3 a verdict the user asked for failed (--require-fit, an SLA).

pub mod args;
mod catalog_check;
mod collective;
mod compare;
mod eval;
mod explore;
mod fleet;
mod import;
mod lesson;
mod lists;
mod ops;
pub mod output;
pub mod plot;
pub mod probe;
pub mod probe_measure;
mod records;
mod scale;
mod scale_replica;
mod sens;
mod serve;
mod serve_modes;
mod share;
mod sweep;
mod synth;
mod train;
pub mod validate;
pub mod validate_train;
mod zoo;

pub use records::{eval_record, hardware_record, model_record};

use crate::catalog::{self, Catalog, HardwareEntry};
use crate::solver::{self, Assumptions, Workload};
use args::{BatchSpec, Cli, Command, WorkloadArgs};
use output::Style;
use std::io::Write;

/// What went wrong, and the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: exit 2.
    Input(String),
    /// A requested verdict failed: exit 3 (the output was printed).
    Verdict(String),
    /// The reader closed the pipe (`| head -1`): stop quietly, exit 0.
    Closed,
    /// Output could not be written for another reason: exit 1.
    Output(String),
    /// A check found claims that do not hold (`lesson check`): exit 1.
    Check(String),
}

impl CliError {
    pub fn code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Verdict(_) => 3,
            CliError::Closed => 0,
            CliError::Output(_) | CliError::Check(_) => 1,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Input(m)
            | CliError::Verdict(m)
            | CliError::Output(m)
            | CliError::Check(m) => f.write_str(m),
            CliError::Closed => f.write_str("the output was closed"),
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
            "profile" => "--profile",
            _ => "--region",
        };
        CliError::Input(sanitize_message(&format!("{flag}: {e}")))
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
pub fn load_catalog(cli: &Cli, command: &Command, err: Out) -> Result<Catalog, CliError> {
    let dir = catalog_dir(cli)?;
    let mut c = Catalog::load(dir.as_deref());
    c.set_local_resolver(crate::probe::resolve_local);
    if matches!(command, Command::Validate(_)) {
        c.add_measurements(dir.as_deref());
    }
    for d in &c.diagnostics {
        let _ = writeln!(
            err,
            "warning: {d} (skipped; the rest of the catalog is loaded)"
        );
    }
    Ok(c)
}

/// The lesson `ridgeline lesson NAME|FILE` (no subcommand word after it)
/// asks the workbench to give, if that is the command.
pub fn presented_lesson(cli: &Cli) -> Option<&str> {
    match &cli.command {
        Some(Command::Lesson(a)) => a.presented(),
        _ => None,
    }
}

/// Run a subcommand; returns the process exit code.
pub fn run(cli: &Cli, command: &Command, out: Out, err: Out) -> i32 {
    let style = style(cli, |k| std::env::var(k).ok(), terminal_width());
    let result = match command {
        Command::Catalog(args::CatalogArgs {
            action: args::CatalogAction::Check { dir },
        }) => catalog_check::catalog_check(cli, dir.as_deref(), out),
        Command::Import(a) => import::import(cli, a, style, out, err),
        Command::Share(a) => share::share(cli, a, out),
        Command::Probe(a) if probe_measure::wanted(a) => {
            probe_measure::run(cli, a, style, out, err)
        }
        other => load_catalog(cli, other, err).and_then(|mut cat| {
            let command = resolve_model(&mut cat, other, err)?;
            let command = lists::merge_lists(&cat, &command, err)?;
            dispatch(&cat, &command, style, out)
        }),
    };
    let result = result.and_then(|()| out.flush().map_err(write_error));
    match result {
        Ok(()) => 0,
        Err(CliError::Closed) => 0,
        Err(e) => {
            let prefix = match e {
                CliError::Verdict(_) => "verdict",
                CliError::Check(_) => "check",
                _ => "error",
            };
            let _ = writeln!(err, "{prefix}: {e}");
            e.code()
        }
    }
}

/// How tables are drawn: ASCII unless the locale is UTF-8 (as the
/// workbench decides) or with `--ascii`; as wide as `--wide`, `COLUMNS`,
/// the terminal, or else 80 columns.
pub fn style(cli: &Cli, env: impl Fn(&str) -> Option<String>, terminal: Option<usize>) -> Style {
    let ascii = cli.ascii || !crate::tui::ui::locale_is_utf8(&env);
    let columns = env("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    let width = if cli.wide {
        usize::MAX
    } else {
        columns.or(terminal).unwrap_or(Style::DEFAULT_WIDTH).max(40)
    };
    Style { ascii, width }
}

/// The width of the terminal standard output goes to, if it is one.
fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size()
        .ok()
        .map(|(w, _)| w as usize)
        .filter(|&w| w > 0)
}

/// Parse the command line. A bad argument is reported with its value
/// escaped and cut to 80 characters (clap echoes it whole and raw), and
/// exits with status 2; help and version print as usual.
pub fn parse_args() -> Cli {
    use clap::error::ErrorKind;
    use clap::{CommandFactory, FromArgMatches};
    use std::io::IsTerminal;
    let mut command = help_width(
        Cli::command(),
        std::io::stdout().is_terminal(),
        std::env::var("COLUMNS").ok(),
    );
    let parsed = command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|m| Cli::from_arg_matches(&m))
        .map_err(|e| e.format(&mut command));
    match parsed {
        Ok(c) => c,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
            _ => {
                // clap's own tip for such a flag points at an unrelated one.
                let text = match not_read_note(&e) {
                    Some((command, flag, why)) => format!(
                        "error: `{command}` does not take {flag}: {why}\n\nFor more information, try 'ridgeline {command} --help'.\n"
                    ),
                    None => sanitize_message(&e.render().to_string()),
                };
                let _ = std::io::stderr().write_all(text.as_bytes());
                std::process::exit(2)
            }
        },
    }
}

/// The command line with the width its help wraps at: on a terminal,
/// clap measures it (up to `max_term_width`); elsewhere `COLUMNS` when set,
/// else 80 columns, and no narrower than 40, as the tables.
pub fn help_width(
    command: clap::Command,
    terminal: bool,
    columns: Option<String>,
) -> clap::Command {
    if terminal {
        return command;
    }
    let width = columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .unwrap_or(args::HELP_WIDTH)
        .max(40);
    command.term_width(width)
}

/// For a flag a subcommand does not take but another does (`fleet --tp`),
/// why it does not and what it reads instead.
fn not_read_note(e: &clap::Error) -> Option<(String, String, &'static str)> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let flag = match e.get(ContextKind::InvalidArg)? {
        ContextValue::String(s) => s.split('=').next().unwrap_or(s).to_string(),
        _ => return None,
    };
    // The usage line names the subcommand: "Usage: ridgeline fleet ...".
    let usage = match e.get(ContextKind::Usage)? {
        ContextValue::StyledStr(s) => s.to_string(),
        _ => return None,
    };
    let command = usage
        .split_whitespace()
        .skip_while(|w| *w != "ridgeline")
        .nth(1)?;
    let why = args::flag_not_read(command, &flag)?;
    Some((command.to_string(), flag, why))
}

/// Escape control and format characters (as
/// [`catalog::fields::printable`]; newlines kept) and cut every quoted value
/// ('...' or "...") past 80 characters.
pub fn sanitize_message(text: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    let mut quoted: Option<(char, usize)> = None;
    for c in text.chars() {
        let mut shown = String::new();
        if c == '\n' {
            shown.push(c);
        } else {
            catalog::fields::push_printable(&mut shown, c);
        }
        match quoted {
            Some((q, n)) if c == q => {
                if n > MAX {
                    out.push_str(&format!("... ({} more characters)", n - MAX));
                }
                out.push(c);
                quoted = None;
            }
            Some((q, n)) => {
                if n < MAX {
                    out.push_str(&shown);
                }
                quoted = Some((q, n + 1));
            }
            None => {
                out.push_str(&shown);
                if c == '\'' || c == '"' {
                    quoted = Some((c, 0));
                }
            }
        }
    }
    if let Some((_, n)) = quoted
        && n > MAX
    {
        out.push_str(&format!("... ({} more characters)", n - MAX));
    }
    out
}

fn dispatch(cat: &Catalog, command: &Command, style: Style, out: Out) -> Result<(), CliError> {
    match command {
        Command::Eval(a) => eval::eval(cat, a, style, out),
        Command::Sens(a) => sens::sens(cat, a, style, out),
        Command::Synth(a) => synth::synth(cat, a, style, out),
        Command::Compare(a) => compare::compare(cat, a, style, out),
        Command::Sweep(a) => match a.contexts {
            Some(c) => sweep::context_sweep_cmd(cat, &a.workload, &a.hardware, c, style, out),
            None => sweep::sweep_cmd(cat, &a.workload, &a.hardware, style, out),
        },
        Command::Zoo(a) => zoo::zoo(cat, a.kind, a.format, style, out),
        Command::Serve(a) => serve::serve(cat, a, style, out),
        Command::Fleet(a) => fleet::fleet(cat, a, style, out),
        Command::Validate(a) => validate::validate(cat, a, style, out),
        Command::Train(a) => train::train(cat, a, style, out),
        Command::Scale(a) => scale::scale(cat, a, style, out),
        Command::Collective(a) => collective::collective(cat, a, style, out),
        Command::Ops(a) => ops::ops(cat, a, style, out),
        Command::Explore(a) => explore::explore(cat, a, style, out),
        Command::Lesson(a) => lesson::lesson(cat, a, style, out),
        Command::Plot(a) => plot::plot(cat, a, style, out),
        Command::Probe(a) => probe::probe(cat, a, style, out),
        Command::Catalog(_) | Command::Import(_) | Command::Share(_) => unreachable_catalog(),
    }
}

/// The one place a command's model argument is resolved: a catalog id
/// stays as it is; a config.json or a model folder is derived and added to
/// the catalog for this run (what was derived is said on stderr). A
/// workload that names no weight precision takes the model's checkpoint
/// precision (its `weights`), said on stderr too.
pub fn resolve_model(cat: &mut Catalog, command: &Command, err: Out) -> Result<Command, CliError> {
    let mut command = command.clone();
    let Some(arg) = command.model_arg() else {
        return Ok(command);
    };
    let name = match &arg {
        args::ModelArg::Workload { model, .. } => model.to_string(),
        args::ModelArg::Alone(m) => m.to_string(),
    };
    let r = catalog::hf::load::resolve(cat, &name, None)
        .map_err(|e| CliError::Input(sanitize_message(&format!("--model {e}"))))?;
    if let Some(imported) = &r.imported {
        let _ = writeln!(
            err,
            "note: --model {}: derived from its config.json for this run (`ridgeline import` adds it to the catalog):",
            catalog::fields::printable(&name)
        );
        for line in import::summary(imported, &r.id) {
            let _ = writeln!(err, "{line}");
        }
    }
    let entry = cat.model(&r.id)?;
    match arg {
        args::ModelArg::Workload { model, prec: w } => {
            if let Some(p) = entry.weights
                && w.weights.is_none()
                && w.precision.is_none()
            {
                w.weights = Some(p);
                let _ = writeln!(
                    err,
                    "note: weights {p}: the checkpoint's precision of `{}`; --weights or --precision sets another",
                    entry.model.id
                );
            }
            *model = r.id;
        }
        args::ModelArg::Alone(m) => *m = r.id,
    }
    // A speculative draft resolves the same way.
    if let Command::Serve(a) = &mut command
        && let Some(d) = a.batching.draft.clone()
    {
        let r = catalog::hf::load::resolve(cat, &d, None)
            .map_err(|e| CliError::Input(sanitize_message(&format!("--draft {e}"))))?;
        if r.imported.is_some() {
            let _ = writeln!(
                err,
                "note: --draft {}: derived from its config.json for this run",
                catalog::fields::printable(&d)
            );
        }
        a.batching.draft = Some(r.id);
    }
    Ok(command)
}

/// A failed write: a closed pipe ends quietly, anything else is reported.
pub(crate) fn write_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CliError::Closed
    } else {
        CliError::Output(format!("cannot write output: {e}"))
    }
}

fn unreachable_catalog() -> Result<(), CliError> {
    Err(CliError::Input(
        "catalog, import and share are handled before dispatch".into(),
    ))
}

pub(crate) fn write(out: Out, s: &str) -> Result<(), CliError> {
    out.write_all(s.as_bytes()).map_err(write_error)
}

/// The assumptions of `--profile`, with each `--assume KEY=VALUE` laid over
/// them in order.
pub fn profile_assumptions(
    cat: &Catalog,
    profile: &str,
    assume: &[(String, String)],
) -> Result<Assumptions, CliError> {
    let mut a = cat.profile(profile)?.assumptions;
    for (k, v) in assume {
        if crate::catalog::profile::is_training_key(k) {
            // `ridgeline train` reads these ([`profile_training`]).
            continue;
        }
        crate::catalog::profile::set(&mut a, k, crate::catalog::profile::Value::Text(v))
            .map_err(|e| CliError::Input(format!("--assume: {e}")))?;
    }
    Ok(a)
}

/// The profile's training assumptions with the training keys of
/// `--assume` laid over, from `base` (the flags' failures and checkpoints
/// kept).
pub fn profile_training(
    cat: &Catalog,
    profile: &str,
    assume: &[(String, String)],
    base: &crate::solver::training::TrainingAssumptions,
) -> Result<crate::solver::training::TrainingAssumptions, CliError> {
    let mut t = crate::catalog::profile::with_stack(base, &cat.profile(profile)?.training);
    for (k, v) in assume {
        if crate::catalog::profile::is_training_key(k) {
            crate::catalog::profile::set_training(
                &mut t,
                k,
                crate::catalog::profile::Value::Text(v),
            )
            .map_err(|e| CliError::Input(format!("--assume: {e}")))?;
        }
    }
    Ok(t)
}

/// A training key given to a command that trains nothing: an error that
/// says where it belongs.
pub fn no_training_keys(assume: &[(String, String)]) -> Result<(), CliError> {
    match assume
        .iter()
        .find(|(k, _)| crate::catalog::profile::is_training_key(k))
    {
        Some((k, _)) => Err(CliError::Input(format!(
            "--assume: `{k}` is a training assumption: `ridgeline train` takes it"
        ))),
        None => Ok(()),
    }
}

/// The assumptions from the flags: the profile, its `--assume` changes, then
/// the named flags (`--compute-eff`, `--overhead`, ...).
pub fn assumptions(cat: &Catalog, w: &WorkloadArgs) -> Result<Assumptions, CliError> {
    no_training_keys(&w.knobs.assume)?;
    let d = profile_assumptions(cat, &w.profile, &w.knobs.assume)?;
    let w = &w.knobs;
    Ok(Assumptions {
        compute_efficiency: w.compute_eff.unwrap_or(d.compute_efficiency),
        memory_efficiency: w.memory_eff.unwrap_or(d.memory_efficiency),
        link_efficiency: w.link_eff.unwrap_or(d.link_efficiency),
        overhead_s: w.overhead.unwrap_or(d.overhead_s),
        link_latency_s: w.link_latency.unwrap_or(d.link_latency_s),
        usable_memory: w.usable_memory.unwrap_or(d.usable_memory),
        overlap: w.overlap.unwrap_or(d.overlap),
        ..d
    })
}

/// The workload from the flags at batch `batch`.
pub fn workload(w: &WorkloadArgs, batch: u64) -> Workload {
    let p = &w.prec;
    let base = p.precision.unwrap_or(Workload::default().weights);
    Workload {
        phase: w.phase.into(),
        batch: batch as f64,
        context: w.context as f64,
        weights: p.weights.unwrap_or(base),
        activations: p.activations.unwrap_or(base),
        kv: p.kv.unwrap_or(base),
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
