//! ridgeline: with no subcommand, the interactive workbench; with one, the
//! scriptable command line. Both call the same pure solver.

use ridgeline::cli;
use ridgeline::tui::{self, TuiOptions};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::parse_args();
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
