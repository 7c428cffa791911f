//! Figures and tables to take away: the workbench's `x` writes a view into
//! a new directory (its plot as SVG, its table as CSV and Markdown, and
//! `command.sh`, the command lines that print them again), and `y` copies
//! the view's command line to the clipboard (OSC 52).
//!
//! Everything comes from one place: the view's command lines
//! (`command::commands`, from the state as a scenario), run in-process
//! through the command line (`cli::run`). So the files are exactly what
//! `command.sh` prints, and the figures are the command line's, which are
//! the workbench's (the two faces share the solver and its defaults; a
//! test holds them to it).

pub mod command;

use crate::catalog::Catalog;
use crate::cli::args::Cli;
use crate::scenario::Scenario;
use clap::Parser;
use std::path::{Path, PathBuf};

pub use command::{Commands, commands, shell_line};

/// Run a command line in-process: what it prints, or its error message.
/// A failed verdict (exit 3: a fleet over its budget, a synthesis target
/// nothing meets) printed its answer, which is the view's: that is what
/// it prints.
pub fn run(args: &[String]) -> Result<String, String> {
    let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
    let Some(cmd) = &cli.command else {
        return Err("no subcommand".into());
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = crate::cli::run(&cli, cmd, &mut out, &mut err);
    if rc == 0 || rc == crate::cli::CliError::Verdict(String::new()).code() {
        Ok(String::from_utf8_lossy(&out).into_owned())
    } else {
        Err(String::from_utf8_lossy(&err).trim().to_string())
    }
}

/// `args` with `extra` added at the end.
fn plus(args: &[String], extra: &[&str]) -> Vec<String> {
    let mut v = args.to_vec();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The files of a view's export: (name, contents).
pub fn files(c: &Commands, view_title: &str) -> Result<Vec<(&'static str, String)>, String> {
    let mut files = Vec::new();
    let mut sh = format!(
        "#!/bin/sh\n# The {view_title} view's figures, as ridgeline {} printed them\n# (table.csv, table.md{}).\nset -e\n",
        env!("CARGO_PKG_VERSION"),
        if c.plot.is_some() { ", plot.svg" } else { "" }
    );
    sh.push_str(&shell_line(&c.table));
    sh.push('\n');
    if let Some(p) = &c.plot {
        files.push(("plot.svg", run(&plus(p, &["-o", "-"]))?));
        sh.push_str(&shell_line(&plus(p, &["-o", "plot.svg", "--force"])));
        sh.push('\n');
    }
    files.push(("table.csv", run(&plus(&c.table, &["--format", "csv"]))?));
    files.push(("table.md", run(&plus(&c.table, &["--format", "markdown"]))?));
    files.push(("command.sh", sh));
    Ok(files)
}

/// Most directories tried for one export.
const MAX_TRIES: u32 = 10_000;

/// Write a view's export into a new directory `ridgeline-export-<view>-<n>`
/// under `base` (the first n free, from 1): nothing is overwritten.
pub fn write(
    base: &Path,
    catalog: &Catalog,
    s: &Scenario,
    catalog_dir: Option<&Path>,
    view_title: &str,
) -> Result<PathBuf, String> {
    let c = commands(catalog, s, catalog_dir)?;
    let files = files(&c, view_title)?;
    let view = s.view.as_deref().unwrap_or("roofline");
    let bytes: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    for n in 1..=MAX_TRIES {
        let dir = base.join(format!("ridgeline-export-{view}-{n}"));
        match crate::fsutil::write_new_dir(&dir, &bytes) {
            Ok(()) => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let sh = dir.join("command.sh");
                    if let Ok(m) = std::fs::metadata(&sh) {
                        let mut p = m.permissions();
                        p.set_mode(p.mode() | ((p.mode() & 0o444) >> 2));
                        let _ = std::fs::set_permissions(&sh, p);
                    }
                }
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "{}: not written: {e}",
                    crate::catalog::fields::printable(&dir.display().to_string())
                ));
            }
        }
    }
    Err(format!(
        "{}: ridgeline-export-{view}-1 to -{MAX_TRIES} all exist; remove some",
        base.display()
    ))
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OSC 52 sequence that asks the terminal to put `text` on the
/// clipboard: ESC ] 52 ; c ; base64 BEL.
pub fn osc52(text: &str) -> Vec<u8> {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes())).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        // RFC 4648 section 10.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded, "{plain:?}");
        }
    }

    #[test]
    fn osc52_is_esc_bracket_52_clipboard_base64_bel() {
        // "ridgeline" in base64 is cmlkZ2VsaW5l (9 bytes: 3 whole groups).
        assert_eq!(osc52("ridgeline"), b"\x1b]52;c;cmlkZ2VsaW5l\x07".to_vec());
    }
}
