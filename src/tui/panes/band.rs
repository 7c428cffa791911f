//! Error bands as the screen writes them: "6.64 ms (6.0-7.3)", the low and
//! high ends in the unit of the figure, to two significant digits (the
//! band is a ~10% estimate: more digits would claim more than it knows).
//! A band of 0 (the `roofline` and `ideal` profiles) writes nothing.

use crate::solver::roofline;
use crate::solver::units;

/// The unit suffixes `units::format_time` and `units::format_count` end
/// with, and the factor from the value to the number written before them.
const SCALES: [(&str, f64); 10] = [
    (" min", 1.0 / 60.0),
    (" ms", 1e3),
    (" us", 1e6),
    (" ns", 1e9),
    (" s", 1.0),
    ("k", 1e-3),
    ("M", 1e-6),
    ("G", 1e-9),
    ("T", 1e-12),
    ("P", 1e-15),
];

/// A number to two significant digits, whole digits never rounded away:
/// 5.98 -> "6.0", 41.2 -> "41", 137.4 -> "137", 0.594 -> "0.59".
fn two_digits(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return units::format_number(x);
    }
    let decimals = (1 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// "(6.0-7.3)": the band `(lo, hi)` of a figure written `shown` (as `fmt`
/// writes it), in the figure's unit; the ends written whole by `fmt` when
/// the figure's unit is not one of `SCALES`'s or they reach 1000 in it.
/// None when the band is empty.
pub fn ends(shown: &str, (lo, hi): (f64, f64), fmt: fn(f64) -> String) -> Option<String> {
    if !lo.is_finite() || !hi.is_finite() || hi <= lo {
        return None;
    }
    // The scale of the unit the figure is written in; a plain number
    // (a count below 1000) has none.
    let number_end = shown
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(shown.len());
    let suffix = &shown[number_end..];
    let scale = if suffix.is_empty() {
        Some(1.0)
    } else {
        SCALES.iter().find(|(s, _)| *s == suffix).map(|(_, f)| *f)
    };
    Some(match scale {
        // Past 1000 in the unit (a count written whole, "9930"), the ends
        // take a prefix of their own ("8.99k").
        Some(f) if hi * f < 999.5 => format!("({}-{})", two_digits(lo * f), two_digits(hi * f)),
        _ => format!("({}-{})", fmt(lo), fmt(hi)),
    })
}

/// `x` written by `fmt`, then its band of natural-log half-width `band`:
/// "6.64 ms (6.0-7.3)"; `x` alone when the band is 0.
pub fn with_band(x: f64, band: f64, fmt: fn(f64) -> String) -> String {
    with_range(x, roofline::range(x, band), fmt)
}

/// `x` written by `fmt`, then the range `(lo, hi)` around it.
pub fn with_range(x: f64, range: (f64, f64), fmt: fn(f64) -> String) -> String {
    let shown = fmt(x);
    match ends(&shown, range, fmt) {
        Some(b) => format!("{shown} {b}"),
        None => shown,
    }
}

/// A time and its band: "6.64 ms (6.0-7.3)".
pub fn time(x: f64, band: f64) -> String {
    with_band(x, band, units::format_time)
}

/// A count (tokens/s) and its band: "151 (137-167)", "9.93k (9.0-11)".
pub fn count(x: f64, band: f64) -> String {
    with_band(x, band, units::format_count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_written_in_the_unit_of_their_figure() {
        // 6.64 ms at a half-width of 0.1: 6.64 e^-0.1 = 6.008, 6.64 e^0.1 = 7.338.
        assert_eq!(time(6.64e-3, 0.1), "6.64 ms (6.0-7.3)");
        // 151 tok/s: 151 e^-0.1 = 136.6, 151 e^0.1 = 166.9: whole digits kept.
        assert_eq!(count(151.0, 0.1), "151 (137-167)");
        // 12000 is written "12k"; 12000 e^-0.1 = 10858, e^0.1 = 13262: 11 and 13 k.
        assert_eq!(count(12000.0, 0.1), "12k (11-13)");
        // 9930 is written whole; 9930 e^-0.1 = 8985.02, e^0.1 = 10974.4:
        // past 1000, each end takes its prefix.
        assert_eq!(count(9930.0, 0.1), "9930 (8.99k-11k)");
        // 46 ms at 0.2: 37.66 and 56.18 ms.
        assert_eq!(time(0.046, 0.2), "46 ms (38-56)");
        // 1.71 s at 0.1: 1.547 and 1.890 s.
        assert_eq!(time(1.71, 0.1), "1.71 s (1.5-1.9)");
        // Below 1 in the unit: 0.594 -> "0.59".
        assert_eq!(two_digits(0.594), "0.59");
    }

    #[test]
    fn no_band_writes_the_figure_alone() {
        assert_eq!(time(6.64e-3, 0.0), "6.64 ms");
        assert_eq!(count(151.0, 0.0), "151");
        assert_eq!(with_range(1.0, (f64::NAN, 2.0), units::format_time), "1 s");
    }
}
