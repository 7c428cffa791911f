//! Values written to a scenario file exactly: the text reads back to an
//! equal `f64` (bit for bit, but for -0 which reads back as 0), with the shortest mantissa that does (so a
//! typed "12.345us" is written "12.345us", not the screen's three digits
//! "12.3 us"). The screen's formatting (solver::units) stays short; this is
//! only for files.

use super::SynthTarget;
use crate::solver::units::{self, Kind};

/// The shortest decimal text of `x` with at most `digits` significant
/// digits: plain ("12.345") when short, else with an exponent ("1e-300").
fn with_digits(x: f64, digits: usize) -> String {
    let rounded: f64 = format!("{:.*e}", digits.saturating_sub(1), x)
        .parse()
        .unwrap_or(x);
    let plain = format!("{rounded}");
    let sci = format!("{rounded:e}");
    if plain.len() <= sci.len() + 4 {
        plain
    } else {
        sci
    }
}

/// The first text `make(mantissa text)` that `read` turns back into `x`
/// exactly, trying 1 to 17 significant digits (17 always suffices for a
/// plain number, Rust's `{}` being the shortest round trip).
fn shortest(
    x: f64,
    mantissa: f64,
    make: impl Fn(&str) -> String,
    read: impl Fn(&str) -> Option<f64>,
) -> Option<String> {
    shortest_upto(17, x, mantissa, make, read)
}

/// As [`shortest`], with at most `digits` significant digits.
fn shortest_upto(
    digits: usize,
    x: f64,
    mantissa: f64,
    make: impl Fn(&str) -> String,
    read: impl Fn(&str) -> Option<f64>,
) -> Option<String> {
    (1..=digits)
        .map(|d| make(&with_digits(mantissa, d)))
        .find(|t| read(t) == Some(x))
}

/// A plain number that reads back to `x` (`x` finite).
pub fn number(x: f64) -> String {
    shortest(x, x, str::to_string, |t| t.parse().ok()).unwrap_or_else(|| format!("{x}"))
}

/// A time in its natural unit ("12.345us", "123.45ms", "999999s") that
/// `units::parse` reads back to `x` exactly; seconds when no unit does.
pub fn time(x: f64) -> String {
    let read = |t: &str| units::parse(t, Kind::Time).ok();
    let a = x.abs();
    let natural: &[(&str, f64)] = if a == 0.0 || a >= 1.0 {
        &[("s", 1.0)]
    } else if a >= 1e-3 {
        &[("ms", 1e3), ("s", 1.0)]
    } else if a >= 1e-6 {
        &[("us", 1e6), ("s", 1.0)]
    } else {
        &[("ns", 1e9), ("s", 1.0)]
    };
    natural
        .iter()
        .find_map(|&(unit, per_s)| shortest(x, x * per_s, |m| format!("{m}{unit}"), read))
        .unwrap_or_else(|| format!("{}s", number(x)))
}

/// A long time (an MTBF, a restart) in hours or minutes where a mantissa
/// of six digits or fewer reads back exactly ("50000h", "10min"), else as
/// [`time`] writes it.
pub fn long_time(x: f64) -> String {
    let read = |t: &str| units::parse(t, Kind::Time).ok();
    let a = x.abs();
    let coarse: &[(&str, f64)] = if a >= 3600.0 {
        &[("h", 3600.0), ("min", 60.0)]
    } else if a >= 60.0 {
        &[("min", 60.0)]
    } else {
        &[]
    };
    coarse
        .iter()
        .find_map(|&(unit, per)| {
            // A short mantissa only: 90.5 s is "90.5s", not "1.5083333333333333min".
            shortest_upto(6, x, x / per, |m| format!("{m}{unit}"), read)
        })
        .unwrap_or_else(|| time(x))
}

/// A bandwidth in bytes per second with a decimal prefix where one reads
/// back exactly ("0.4GB/s", "25MB/s"); plain "B/s" otherwise.
pub fn bandwidth(x: f64) -> String {
    let read = |t: &str| units::parse(t, Kind::Bandwidth).ok();
    let a = x.abs();
    let scale = [("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)]
        .into_iter()
        .find(|&(_, m)| a >= m);
    scale
        .and_then(|(p, m)| shortest(x, x / m, |t| format!("{t}{p}B/s"), read))
        .unwrap_or_else(|| format!("{}B/s", number(x)))
}

/// A count with a decimal suffix where one reads well ("5M", "2.5k") that
/// `units::parse` reads back to `x` exactly; plain digits otherwise.
pub fn count(x: f64) -> String {
    let read = |t: &str| units::parse(t, Kind::Count).ok();
    let a = x.abs();
    let scales: &[(&str, f64)] = if a >= 1e12 {
        &[("T", 1e12), ("", 1.0)]
    } else if a >= 1e9 {
        &[("G", 1e9), ("", 1.0)]
    } else if a >= 1e6 {
        &[("M", 1e6), ("", 1.0)]
    } else if a >= 1e3 {
        &[("k", 1e3), ("", 1.0)]
    } else {
        &[("", 1.0)]
    };
    scales
        .iter()
        .find_map(|&(unit, scale)| shortest(x, x / scale, |m| format!("{m}{unit}"), read))
        .unwrap_or_else(|| number(x))
}

/// A synthesis target that `SynthTarget::parse` reads back exactly.
pub fn target(t: &SynthTarget) -> String {
    match *t {
        SynthTarget::Itl(s) => format!("{} itl", time(s)),
        SynthTarget::Ttft(s) => format!("{} ttft", time(s)),
        // The target's text is read lower-cased: no "M" suffix here.
        SynthTarget::PerUser(r) => format!("{} tok/s per user", number(r)),
        SynthTarget::Aggregate(r) => format!("{} tok/s", number(r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_values_the_first_version_rounded_read_back_exactly() {
        // Three significant digits turned these into 12.3us, 123ms, 16667min.
        for (typed, want) in [
            ("12.345us", "12.345us"),
            ("123.45ms", "123.45ms"),
            ("999999s", "999999s"),
            ("10us", "10us"),
            ("0", "0s"),
        ] {
            let x = units::parse(typed, Kind::Time).unwrap();
            assert_eq!(time(x), want, "{typed}");
            assert_eq!(units::parse(&time(x), Kind::Time).unwrap(), x);
        }
        assert_eq!(count(5e6), "5M");
        assert_eq!(count(1_234_567.0), "1.234567M");
        assert_eq!(count(999.5), "999.5");
        // The training defaults: 50,000 h, 10 min, 0.4 GB/s.
        assert_eq!(long_time(50_000.0 * 3600.0), "50000h");
        assert_eq!(long_time(600.0), "10min");
        assert_eq!(long_time(90.5), "90.5s");
        assert_eq!(bandwidth(0.4e9), "400MB/s");
        assert_eq!(
            target(&SynthTarget::parse("12.345ms itl").unwrap()),
            "12.345ms itl"
        );
        assert_eq!(
            target(&SynthTarget::PerUser(33.3333)),
            "33.3333 tok/s per user"
        );
    }

    proptest! {
        #[test]
        fn every_finite_value_reads_back_equal(
            x in prop_oneof![
                0.0..1e-6f64, 1e-6..1e-3f64, 1e-3..1.0f64, 1.0..1e7f64,
                any::<f64>().prop_filter("finite", |x| x.is_finite()),
            ]
        ) {
            let t = time(x);
            // `==` on finite numbers is bit equality, but for 0 == -0.
            prop_assert_eq!(units::parse(&t, Kind::Time).unwrap(), x, "{}", t);
            let c = count(x);
            prop_assert_eq!(units::parse(&c, Kind::Count).unwrap(), x, "{}", c);
            let n = number(x);
            prop_assert_eq!(n.parse::<f64>().unwrap(), x, "{}", n);
            let l = long_time(x);
            prop_assert_eq!(units::parse(&l, Kind::Time).unwrap(), x, "{}", l);
            let b = bandwidth(x);
            prop_assert_eq!(units::parse(&b, Kind::Bandwidth).unwrap(), x, "{}", b);
        }

        #[test]
        fn targets_read_back(x in 1e-9..1e9f64, kind in 0..4u8) {
            let t = match kind {
                0 => SynthTarget::Itl(x),
                1 => SynthTarget::Ttft(x),
                2 => SynthTarget::PerUser(x),
                _ => SynthTarget::Aggregate(x),
            };
            prop_assert_eq!(SynthTarget::parse(&target(&t)), Ok(t));
        }
    }
}
