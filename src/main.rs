//! ridgeline: with no subcommand, the interactive workbench; with one, the
//! scriptable command line. Both call the same pure solver.

use clap::Parser;
use ridgeline::cli::{self, args::Cli};
use ridgeline::tui::{self, TuiOptions};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A --catalog DIR that cannot be used is an error before anything runs
    // (the workbench has not touched the terminal yet).
    if let Err(e) = cli::catalog_dir(&cli) {
        let _ = writeln!(std::io::stderr(), "error: {e}");
        return ExitCode::from(e.code() as u8);
    }
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = match &cli.command {
        Some(command) => cli::run(&cli, command, &mut stdout.lock(), &mut stderr.lock()),
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
