//! Fit a calibration profile on the fitted half of the shipped
//! measurements (the held-out half is only reported), as the profiles in
//! `catalog/profiles/` were fitted:
//!
//!     cargo run --release --example calibrate -- PROFILE STACK[,STACK...] PARAM[,PARAM...] [DEVICE,...]
//!     cargo run --release --example calibrate -- PROFILE STACK[,STACK...] PARAM[,PARAM...] --class CLASS
//!
//! starts from profile PROFILE, keeps the measurements of the named stacks
//! (`all` for every one), and fits the named assumption keys (the keys of
//! `--assume`) by coordinate descent on the mean |ln(predicted/measured)|
//! over the fitted half. Then it fits the error band: the narrowest band
//! (band_base + band_fixed * fixed share + band_devices * log2 devices +
//! band_quantized) that holds 90% of the fitted half, each term at least the
//! starting profile's. It prints the values
//! to write into the profile, and the error on both halves.
//!
//! `--assume KEY=VALUE` (repeatable) sets a key of the starting profile
//! first: what a stack's kernels do that no figure fits (llama.cpp's
//! `fp16_accumulate = fp16`).
//!
//! With `--class CLASS` (hbm, gddr, apple) it fits the named
//! keys for one device class instead: from the profile's base values, on
//! the fitted half of the measurements on that class's devices, and prints
//! a `[profile.class.CLASS]` table of the fitted keys (the band stays the
//! base's). A class with fewer than [`MIN_CLASS_FIGURES`] figures on its
//! fitted half is not fitted: it keeps the base values. A key fitted to the
//! end of its range (an efficiency of 1) is flagged: the figures do not
//! place it, so it is left out and the rest fitted again.

use ridgeline::catalog::Catalog;
use ridgeline::catalog::device_class::{DeviceClass, Resolved};
use ridgeline::catalog::profile::{self, Takes, Value};
use ridgeline::cli::validate::{self, Checked};
use ridgeline::solver::Assumptions;

/// Candidate values of one key.
fn grid(takes: Takes) -> Vec<f64> {
    match takes {
        Takes::Fraction => (10..=100).map(|i| i as f64 / 100.0).collect(),
        Takes::UnitInterval => (0..=20).map(|i| i as f64 / 20.0).collect(),
        // 0 to 10 ms: fine steps first, coarser beyond.
        Takes::Time => (0..=40)
            .map(|i| i as f64 * 0.5e-6)
            .chain((1..=99).map(|i| 20e-6 + i as f64 * 20e-6))
            .chain((1..=40).map(|i| 2e-3 + i as f64 * 0.2e-3))
            .collect(),
        Takes::Rows => (0..=64).map(|i| i as f64 * 4.0).collect(),
        Takes::Algorithm => vec![0.0, 1.0, 2.0],
        // A named choice of the stack's kernels, set with --assume.
        Takes::Accumulate => Vec::new(),
        // A training key: never a serving profile's fit.
        Takes::Ceiling | Takes::CrossEntropy | Takes::Storage | Takes::Grads => Vec::new(),
    }
}

fn set(a: &mut Assumptions, key: &str, takes: Takes, x: f64) {
    let text;
    let v = match takes {
        Takes::Time => {
            text = format!("{x} s");
            Value::Text(&text)
        }
        Takes::Algorithm => Value::Text(["ring", "tree", "auto"][x as usize]),
        _ => Value::Number(x),
    };
    profile::set(a, key, v).expect("grid values are valid");
}

fn score(checked: &[Checked]) -> f64 {
    let errs: Vec<f64> = checked
        .iter()
        .filter(|c| c.fit)
        .filter_map(|c| {
            c.prediction
                .as_ref()
                .ok()
                .map(|p| (p.value / c.measurement.value).ln().abs())
        })
        .collect();
    if errs.is_empty() {
        return f64::INFINITY;
    }
    errs.iter().sum::<f64>() / errs.len() as f64
}

/// The fewest fitted-half figures a device class is fitted on.
const MIN_CLASS_FIGURES: usize = 6;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let class = match args.iter().position(|a| a == "--class") {
        Some(i) => {
            let name = args.get(i + 1).cloned().unwrap_or_default();
            args.drain(i..(i + 2).min(args.len()));
            Some(DeviceClass::parse(&name).unwrap_or_else(|| {
                eprintln!("unknown device class {name:?}; use hbm, gddr or apple");
                std::process::exit(2)
            }))
        }
        None => None,
    };
    let mut assume = Vec::new();
    while let Some(i) = args.iter().position(|a| a == "--assume") {
        let kv = args.get(i + 1).cloned().unwrap_or_default();
        args.drain(i..(i + 2).min(args.len()));
        assume.push(kv);
    }
    if args.len() < 3 {
        eprintln!(
            "usage: calibrate PROFILE STACK[,STACK...]|all PARAM[,PARAM...] [DEVICE,...|--class CLASS] [--assume KEY=VALUE]..."
        );
        std::process::exit(2);
    }
    let mut cat = Catalog::builtin();
    cat.add_measurements(None);
    let mut a = cat
        .profile(&args[0])
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })
        .assumptions;
    for kv in &assume {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        profile::set(&mut a, k.trim(), Value::Text(v.trim())).unwrap_or_else(|e| {
            eprintln!("--assume {kv}: {e}");
            std::process::exit(2)
        });
    }
    let stacks: Vec<&str> = args[1].split(',').collect();
    let devices: Vec<&str> = args.get(3).map_or(Vec::new(), |d| d.split(',').collect());
    let class_of = |m: &ridgeline::catalog::Measurement| {
        cat.hardware(&m.hardware).ok().and_then(DeviceClass::of)
    };
    let keep = |m: &ridgeline::catalog::Measurement| {
        (stacks.contains(&"all") || stacks.contains(&m.stack.as_str()))
            && (devices.is_empty() || devices.contains(&m.hardware.as_str()))
            && (class.is_none() || class_of(m) == class)
    };
    let params: Vec<&profile::Key> = args[2]
        .split(',')
        .map(|k| {
            profile::KEYS
                .iter()
                .find(|x| x.key == k)
                .unwrap_or_else(|| {
                    eprintln!("unknown key {k}");
                    std::process::exit(2)
                })
        })
        .collect();
    let run = |a: &Assumptions| -> Vec<Checked> {
        validate::check(&cat, |_, _| (String::new(), Resolved::base(*a)))
            .into_iter()
            .filter(|c| keep(c.measurement))
            .collect()
    };
    // Coordinate descent from the profile's values, then from random
    // points of the grids (a fixed seed, so every run gives the same
    // answer); the best of the starts wins.
    let descend = |mut a: Assumptions| -> (f64, Assumptions) {
        let mut best = score(&run(&a));
        for _ in 0..8 {
            let before = best;
            for k in &params {
                for x in grid(k.takes) {
                    let mut t = a;
                    set(&mut t, k.key, k.takes, x);
                    let s = score(&run(&t));
                    if s < best - 1e-12 {
                        best = s;
                        a = t;
                    }
                }
            }
            if best >= before - 1e-9 {
                break;
            }
        }
        (best, a)
    };
    if let Some(k) = class {
        let n = run(&a).iter().filter(|c| c.fit).count();
        if n < MIN_CLASS_FIGURES {
            println!(
                "# class {}: {n} figures on the fitted half, fewer than {MIN_CLASS_FIGURES}: not fitted, it keeps the base values",
                k.name()
            );
            return;
        }
    }
    eprintln!("start: mean |ln error| {:.4}", score(&run(&a)));
    let (mut best, mut fitted) = descend(a);
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for start in 0..8 {
        let mut t = a;
        for k in &params {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let g = grid(k.takes);
            set(&mut t, k.key, k.takes, g[(seed % g.len() as u64) as usize]);
        }
        let (s, f) = descend(t);
        eprintln!("start {start}: mean |ln error| {s:.4}");
        if s < best {
            best = s;
            fitted = f;
        }
    }
    let mut a = fitted;
    eprintln!("best: mean |ln error| {best:.4}");
    if let Some(k) = class {
        let keys: Vec<&str> = params.iter().map(|p| p.key).collect();
        println!(
            "# fitted on the fitted half of {} on {} devices",
            args[1],
            k.name()
        );
        println!("[profile.class.{}]", k.name());
        println!("fitted_keys = \"{}\"", keys.join(","));
        for key in keys {
            println!("{key} = {}", shown(&a, key));
        }
        // A key fitted to the end of its grid is not placed by the
        // figures (they would take it further than it can go).
        for k in &params {
            let g = grid(k.takes);
            let x = profile::number_mut(&mut a, k.key).map(|x| *x);
            if x.is_some_and(|x| Some(&x) == g.first() || Some(&x) == g.last()) {
                println!(
                    "# {} landed on the end of its range: the figures do not place it; leave it out (the base value) and fit the rest",
                    k.key
                );
            }
        }
        report(&run(&a));
        return;
    }
    // The band: residuals and features of the fitted half.
    let checked = run(&a);
    let rows: Vec<(f64, f64, f64, f64)> = checked
        .iter()
        .filter(|c| c.fit)
        .filter_map(|c| {
            let p = c.prediction.as_ref().ok()?;
            let r = c.measurement.run;
            let quantized = r.weights.bytes() <= 1.0 || r.activations.bytes() <= 1.0;
            Some((
                (p.value / c.measurement.value).ln().abs(),
                p.fixed_share,
                ((r.tp * r.pp) as f64).log2(),
                if quantized { 1.0 } else { 0.0 },
            ))
        })
        .collect();
    let steps: Vec<f64> = (0..=25).map(|i| i as f64 * 0.02).collect();
    let mut band = (f64::INFINITY, 0.0, 0.0, 0.0, 0.0);
    for &bf in &steps {
        for &bd in &steps {
            for &bq in &steps {
                let mut need: Vec<f64> = rows
                    .iter()
                    .map(|(r, f, d, q)| r - (bf * f + bd * d + bq * q))
                    .collect();
                need.sort_by(f64::total_cmp);
                let b0 = need[((need.len() as f64 * 0.9).ceil() as usize).clamp(1, need.len()) - 1]
                    .max(0.0);
                let width = rows
                    .iter()
                    .map(|(_, f, d, q)| b0 + bf * f + bd * d + bq * q)
                    .sum::<f64>()
                    / rows.len().max(1) as f64;
                if width < band.0 {
                    band = (width, b0, bf, bd, bq);
                }
            }
        }
    }
    // A band fitted on a dozen points is too sure of itself: each term
    // keeps at least the starting profile's.
    a.band_base = ((band.1 * 1000.0).ceil() / 1000.0).max(a.band_base);
    a.band_fixed = band.2.max(a.band_fixed);
    a.band_devices = band.3.max(a.band_devices);
    a.band_quantized = band.4.max(a.band_quantized);
    println!("# fitted on the fitted half of {}", args[1]);
    for k in profile::KEYS {
        println!("{} = {}", k.key, shown(&a, k.key));
    }
    report(&run(&a));
}

/// A key's value as a profile file writes it.
fn shown(a: &Assumptions, key: &str) -> String {
    match profile::get(a, key) {
        Some(profile::Got::Seconds(x)) => format!("\"{:.1} us\"", x * 1e6),
        Some(profile::Got::Name(n)) => format!("\"{n}\""),
        Some(profile::Got::Number(x)) => format!("{x}"),
        None => String::new(),
    }
}

/// The error on both halves, and each figure more than 30% off.
fn report(checked: &[Checked]) {
    for (name, half) in [("fitted on", true), ("held out", false)] {
        let s = validate::summary(checked, |c| c.fit == half);
        println!(
            "# {name} ({}): median |error| {:.1}%, worst {:.1}%, inside the band {}/{}",
            s.count,
            s.median_abs_error * 100.0,
            s.worst_abs_error * 100.0,
            s.inside_band,
            s.count
        );
    }
    for c in checked {
        if let Ok(p) = &c.prediction {
            let e = p.value / c.measurement.value - 1.0;
            if e.abs() > 0.3 {
                println!(
                    "#   {} ({}): {:+.0}%",
                    c.measurement.id,
                    if c.fit { "fit" } else { "check" },
                    e * 100.0
                );
            }
        }
    }
}
