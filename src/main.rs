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
    // `ridgeline lesson NAME` gives the lesson in the workbench.
    let lesson = cli::presented_lesson(&cli).map(str::to_string);
    let code = match &cli.command {
        // The server logs on stderr from its threads: no lock held here.
        Some(command @ cli::args::Command::Share(_)) => cli::run(
            &cli,
            command,
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        ),
        Some(command) if lesson.is_none() => {
            cli::run(&cli, command, &mut stdout.lock(), &mut stderr.lock())
        }
        _ => {
            // A --catalog DIR that cannot be used is an error before the
            // terminal is touched (the subcommands check it in cli::run).
            if let Err(e) = cli::catalog_dir(&cli) {
                let _ = writeln!(stderr.lock(), "error: {e}");
                return ExitCode::from(e.code() as u8);
            }
            let opts = TuiOptions {
                catalog_dir: cli.catalog.clone(),
                ascii: cli.ascii,
                theme: cli.theme.clone(),
                scenario: cli.scenario.clone(),
                lesson,
                config_dir: None,
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
