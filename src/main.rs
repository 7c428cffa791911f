//! ridgeline: with no subcommand, the interactive workbench; with one, the
//! scriptable command line. Both call the same pure solver.

use clap::Parser;
use ridgeline::cli::{self, args::Cli};
use ridgeline::tui::{self, TuiOptions};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = match &cli.command {
        Some(command) => cli::run(&cli, command, &mut stdout.lock(), &mut stderr.lock()),
        // The workbench draws on a terminal and reads keys from it: without
        // one (input or output redirected) say so, and write nothing else.
        None if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) => {
            let _ = writeln!(
                stderr.lock(),
                "error: the workbench needs a terminal; use a subcommand for scripts (ridgeline --help lists them)"
            );
            2
        }
        None => {
            let opts = TuiOptions {
                catalog_dir: cli.catalog.clone(),
                ascii: cli.ascii,
                theme: cli.theme.clone(),
                scenario: cli.scenario.clone(),
                ..TuiOptions::default()
            };
            match tui::run(opts) {
                Ok(exit) => exit.code() as i32,
                Err(e) => {
                    let _ = writeln!(stderr.lock(), "error: {e}");
                    1
                }
            }
        }
    };
    let _ = std::io::stdout().flush();
    ExitCode::from(code as u8)
}
