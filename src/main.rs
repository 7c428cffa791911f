//! ridgeline: with no subcommand, the interactive workbench (until it lands,
//! the evaluation of the default scenario); with one, the scriptable command
//! line. Both call the same pure solver.

use clap::Parser;
use ridgeline::cli::{self, args::Cli};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let default = Cli::parse_from(["ridgeline", "eval"]);
    let command = cli.command.as_ref().or(default.command.as_ref());
    let code = match command {
        Some(command) => cli::run(&cli, command, &mut stdout.lock(), &mut stderr.lock()),
        None => 2,
    };
    let _ = std::io::stdout().flush();
    ExitCode::from(code as u8)
}
