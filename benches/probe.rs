//! `ridgeline probe --measure --quick` end to end (detection, every
//! kernel, the entry written to a scratch catalog), three times: each run
//! must finish in under 10 s (issue 21's budget; `--quick` aims at about
//! 3 s). Not a criterion benchmark: criterion's least sample count (10)
//! would take half a minute for one figure this coarse; the wall time of
//! each run and the worst are printed, and the benchmark fails past 10 s.
//! Run it in release (`cargo bench --bench probe`): a debug build's
//! kernels are many times slower.

use clap::Parser;
use ridgeline::cli::{self, args::Cli};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(10);

fn main() {
    let dir = std::env::temp_dir().join(format!("ridgeline-bench-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch catalog");
    let args = [
        "ridgeline",
        "--catalog",
        dir.to_str().expect("a UTF-8 temp dir"),
        "probe",
        "--measure",
        "--quick",
    ];
    let cli = Cli::try_parse_from(args).expect("the command line parses");
    let command = cli.command.as_ref().expect("a subcommand");
    let mut worst = Duration::ZERO;
    for run in 1..=3 {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let t = Instant::now();
        let code = cli::run(&cli, command, &mut out, &mut err);
        let dt = t.elapsed();
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
        println!(
            "probe --measure --quick, run {run}: {:.2} s",
            dt.as_secs_f64()
        );
        worst = worst.max(dt);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "worst {:.2} s (limit {} s)",
        worst.as_secs_f64(),
        LIMIT.as_secs()
    );
    if worst > LIMIT {
        eprintln!("probe --measure --quick took over {} s", LIMIT.as_secs());
        std::process::exit(1);
    }
}
