//! Quantities with units: parse "3.35 TB/s", "989 TFLOPS", "80 GiB", "50ms",
//! "8k", "70%" into SI base units (`f64`), and format them back.
//!
//! Decimal prefixes (k, M, G, T, P) are powers of 1000; binary prefixes (Ki,
//! Mi, Gi, Ti) powers of 1024. A lower-case `b` means bits, an upper-case `B`
//! bytes ("400 Gb/s" is 50 GB/s). Token counts are the exception: as model
//! cards and serving benchmarks write them, `k` is 1024 ("8k" context =
//! 8192, "128k" = 131072) and `M` is 1024^2 ([`Kind::Tokens`]). Formatting
//! keeps three significant digits, so `parse(format(x))` returns `x` to
//! within 0.5 %; beyond the largest prefix a value prints in engineering
//! notation ("1e300 B"), never as a 300-digit number.

use std::fmt;

/// What a quantity measures; each kind has its own unit names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// FLOP/s (an integer OP counts as one).
    FlopRate,
    /// byte/s.
    Bandwidth,
    /// bytes.
    Bytes,
    /// seconds.
    Time,
    /// watts.
    Power,
    /// a plain count with an optional k/M/G suffix ("8k" = 8000).
    Count,
    /// a number of tokens: `k` is 1024 and `M` 1024^2 ("8k" = 8192).
    Tokens,
    /// a fraction in [0, 1], written "0.7" or "70%".
    Fraction,
}

impl Kind {
    fn example(self) -> &'static str {
        match self {
            Kind::FlopRate => "\"989 TFLOPS\"",
            Kind::Bandwidth => "\"3.35 TB/s\" or \"400 Gb/s\"",
            Kind::Bytes => "\"80 GB\" or \"80 GiB\"",
            Kind::Time => "\"50ms\", \"10us\" or \"1.5 s\"",
            Kind::Power => "\"700 W\"",
            Kind::Count => "\"8k\" or \"4096\"",
            Kind::Tokens => "\"8k\" (8192 tokens) or \"4096\"",
            Kind::Fraction => "\"0.7\" or \"70%\"",
        }
    }
}

/// Why a string could not be read as a quantity.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError {
    pub input: String,
    pub kind: Kind,
    pub reason: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read {:?}: {}; write it like {}",
            self.input,
            self.reason,
            self.kind.example()
        )
    }
}

impl std::error::Error for UnitError {}

fn err(input: &str, kind: Kind, reason: impl Into<String>) -> UnitError {
    UnitError {
        input: input.to_string(),
        kind,
        reason: reason.into(),
    }
}

/// Split "3.35 TB/s" into (3.35, "TB/s"). The number may use an exponent.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let bytes = s.as_bytes();
    let mut end = 0;
    let mut seen_digit = false;
    while end < bytes.len() {
        let c = bytes[end] as char;
        let ok = c.is_ascii_digit()
            || c == '.'
            || c == '_'
            || ((c == '+' || c == '-') && (end == 0 || matches!(bytes[end - 1], b'e' | b'E')))
            || ((c == 'e' || c == 'E')
                && seen_digit
                && bytes
                    .get(end + 1)
                    .is_some_and(|n| n.is_ascii_digit() || *n == b'-' || *n == b'+'));
        if !ok {
            break;
        }
        seen_digit |= c.is_ascii_digit();
        end += 1;
    }
    if !seen_digit {
        return None;
    }
    let num: String = s[..end].chars().filter(|c| *c != '_').collect();
    let value = num.parse::<f64>().ok()?;
    Some((value, s[end..].trim()))
}

/// The multiplier of a decimal or binary prefix at the start of `unit`, and the rest.
fn prefix(unit: &str) -> (f64, &str) {
    const BINARY: [(&str, f64); 5] = [
        ("Ki", 1024.0),
        ("Mi", 1048576.0),
        ("Gi", 1073741824.0),
        ("Ti", 1099511627776.0),
        ("Pi", 1125899906842624.0),
    ];
    for (p, m) in BINARY {
        if let Some(rest) = unit.strip_prefix(p) {
            return (m, rest);
        }
    }
    const DECIMAL: [(char, f64); 7] = [
        ('k', 1e3),
        ('K', 1e3),
        ('M', 1e6),
        ('G', 1e9),
        ('T', 1e12),
        ('P', 1e15),
        ('E', 1e18),
    ];
    let mut chars = unit.chars();
    if let Some(first) = chars.next() {
        for (p, m) in DECIMAL {
            if first == p && !chars.as_str().is_empty() {
                return (m, chars.as_str());
            }
        }
    }
    (1.0, unit)
}

/// Parse `input` as a quantity of `kind`, returning SI base units.
/// Rejects NaN and infinities; a sign is allowed (callers decide whether a
/// negative value makes sense).
pub fn parse(input: &str, kind: Kind) -> Result<f64, UnitError> {
    let Some((number, unit)) = split_number(input) else {
        return Err(err(input, kind, "no number found"));
    };
    if !number.is_finite() {
        return Err(err(input, kind, "the number is not finite"));
    }
    // Zero needs no unit ("--overhead 0").
    if number == 0.0 && unit.is_empty() {
        return Ok(0.0);
    }
    let scale = unit_scale(unit, kind).ok_or_else(|| {
        err(
            input,
            kind,
            if unit.is_empty() {
                "a unit is needed".to_string()
            } else {
                format!("unknown unit {unit:?}")
            },
        )
    })?;
    // Divide by the reciprocal of sub-unit scales: 10 / 1e6 is exactly 1e-5,
    // 10 * 1e-6 is not.
    let value = if scale < 1.0 {
        number / (1.0 / scale).round()
    } else {
        number * scale
    };
    if !value.is_finite() {
        return Err(err(input, kind, "the value is too large"));
    }
    Ok(value)
}

fn unit_scale(unit: &str, kind: Kind) -> Option<f64> {
    match kind {
        Kind::Count => match unit {
            "" => Some(1.0),
            "k" | "K" => Some(1e3),
            "M" => Some(1e6),
            "G" | "B" => Some(1e9),
            "T" => Some(1e12),
            "P" => Some(1e15),
            "Ki" => Some(1024.0),
            "Mi" => Some(1048576.0),
            _ => None,
        },
        Kind::Tokens => match unit {
            "" => Some(1.0),
            "k" | "K" | "Ki" => Some(1024.0),
            "M" | "Mi" => Some(1048576.0),
            "G" | "Gi" => Some(1073741824.0),
            _ => None,
        },
        Kind::Fraction => match unit {
            "" => Some(1.0),
            "%" => Some(0.01),
            _ => None,
        },
        Kind::Time => match unit {
            "s" | "sec" => Some(1.0),
            "ms" => Some(1e-3),
            "us" | "µs" | "μs" => Some(1e-6),
            "ns" => Some(1e-9),
            "min" => Some(60.0),
            "h" => Some(3600.0),
            _ => None,
        },
        Kind::FlopRate => {
            let (m, rest) = prefix(unit);
            match rest {
                "FLOPS" | "FLOP/s" | "flops" | "FLOPs/s" | "OPS" | "OP/s" | "ops" => Some(m),
                _ => None,
            }
        }
        Kind::Bandwidth => {
            let (m, rest) = prefix(unit);
            match rest {
                "B/s" | "Bps" => Some(m),
                "b/s" | "bps" | "bit/s" => Some(m / 8.0),
                _ => None,
            }
        }
        Kind::Bytes => {
            let (m, rest) = prefix(unit);
            match rest {
                "B" | "byte" | "bytes" => Some(m),
                "b" | "bit" | "bits" => Some(m / 8.0),
                _ => None,
            }
        }
        Kind::Power => {
            let (m, rest) = prefix(unit);
            match (unit, rest) {
                ("mW", _) => Some(1e-3),
                (_, "W") => Some(m),
                _ => None,
            }
        }
    }
}

/// Three significant digits, trailing zeros dropped: 3.35, 989, 0.0123.
fn sig3(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    if !x.is_finite() {
        return format!("{x}");
    }
    if x.abs() < 1e-3 {
        return format!("{x:.2e}");
    }
    if x.abs() >= 999_999.5 {
        return engineering(x);
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 9) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Engineering notation with three significant digits, the exponent a
/// multiple of three: 1.5e22 -> "15e21", 1e300 -> "1e300".
fn engineering(x: f64) -> String {
    let mut exp = (x.abs().log10().floor() as i32).div_euclid(3) * 3;
    let mut m = x / 10f64.powi(exp);
    // Rounding to three digits can carry into the next group: 999.9e21 -> 1e24.
    if m.abs() >= 999.5 {
        exp += 3;
        m /= 1000.0;
    }
    format!("{}e{exp}", sig3(m))
}

/// Format with a decimal prefix (k, M, G, T, P, E) chosen so the mantissa is in [1, 1000).
fn with_prefix(x: f64, unit: &str) -> String {
    const P: [(&str, f64); 7] = [
        ("E", 1e18),
        ("P", 1e15),
        ("T", 1e12),
        ("G", 1e9),
        ("M", 1e6),
        ("k", 1e3),
        ("", 1.0),
    ];
    if !x.is_finite() {
        return format!("{x} {unit}");
    }
    let a = x.abs();
    if a >= 999.5e18 {
        // Beyond the largest prefix: engineering notation, no prefix.
        return format!("{} {unit}", engineering(x));
    }
    for (name, m) in P {
        // Round first, so 999.7e9 prints as "1 T", not "1000 G".
        if a >= m * 0.9995 {
            return format!("{} {name}{unit}", sig3(x / m));
        }
    }
    format!("{} {unit}", sig3(x))
}

/// "989 TFLOP/s".
pub fn format_flops(x: f64) -> String {
    with_prefix(x, "FLOP/s")
}

/// "3.35 TB/s".
pub fn format_bandwidth(x: f64) -> String {
    with_prefix(x, "B/s")
}

/// "141 GB" (decimal prefixes, as datasheets write them).
pub fn format_bytes(x: f64) -> String {
    with_prefix(x, "B")
}

/// "989 GFLOP" (an amount of work, not a rate).
pub fn format_flop(x: f64) -> String {
    with_prefix(x, "FLOP")
}

/// "700 W".
pub fn format_power(x: f64) -> String {
    with_prefix(x, "W")
}

/// "8k", "1.5M", "512", "4096" (a whole number below 100k that is not a
/// round thousand prints in full).
pub fn format_count(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e5 && x % 1000.0 != 0.0 {
        return format!("{x:.0}");
    }
    with_prefix(x, "").trim_end().replace(' ', "")
}

/// A count with its noun, singular for exactly one: "1 micro-batch",
/// "16 micro-batches", "2k micro-batches" ([`format_count`]).
pub fn format_count_of(x: f64, one: &str, many: &str) -> String {
    format!("{} {}", format_count(x), if x == 1.0 { one } else { many })
}

/// A number of tokens as model cards write it, exactly: "4096", "8192",
/// "128k" (131072), "1M" (1048576); `k` is 1024. Below 100k, or when not a
/// whole multiple of 1024, the whole number prints (so it reads back equal).
pub fn format_tokens(x: f64) -> String {
    if x.fract() != 0.0 || !x.is_finite() {
        return sig3(x);
    }
    if x.abs() >= 1e5 && x % 1048576.0 == 0.0 {
        format!("{}M", sig_exact(x / 1048576.0))
    } else if x.abs() >= 1e5 && x % 1024.0 == 0.0 {
        format!("{}k", sig_exact(x / 1024.0))
    } else if x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        sig3(x)
    }
}

/// A whole number in full, or three significant digits beyond 1e15.
fn sig_exact(x: f64) -> String {
    if x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        sig3(x)
    }
}

/// US dollars: "$12.35" below $100k, then "$151k", "$4.5M", "$1.2B", "$3T",
/// and engineering notation beyond ("$15e18").
pub fn format_usd(x: f64) -> String {
    if !x.is_finite() {
        return format!("${x}");
    }
    if x.abs() < 1e5 {
        return format!("${x:.2}");
    }
    const P: [(&str, f64); 4] = [("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)];
    let a = x.abs();
    if a >= 999.5e12 {
        return format!("${}", engineering(x));
    }
    for (name, m) in P {
        if a >= m * 0.9995 {
            return format!("${}{name}", sig3(x / m));
        }
    }
    format!("${x:.2}")
}

/// Parameter counts as model cards write them: "8.03B", "405B", "124M", "23.8k".
pub fn format_params(x: f64) -> String {
    with_prefix(x, "")
        .trim_end()
        .replace(' ', "")
        .replace('G', "B")
}

/// A fraction as a percentage with three significant digits: "-9.09%", "70%".
pub fn format_percent(x: f64) -> String {
    format!("{}%", sig3(x * 100.0))
}

/// "34.2 ms", "450 us", "1.2 s", "2.5 min".
pub fn format_time(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x} s");
    }
    let a = x.abs();
    if a >= 120.0 {
        format!("{} min", sig3(x / 60.0))
    } else if a >= 0.9995 || a == 0.0 {
        format!("{} s", sig3(x))
    } else if a >= 0.9995e-3 {
        format!("{} ms", sig3(x * 1e3))
    } else if a >= 0.9995e-6 {
        format!("{} us", sig3(x * 1e6))
    } else {
        format!("{} ns", sig3(x * 1e9))
    }
}

/// Format in the natural unit of `kind`.
pub fn format(x: f64, kind: Kind) -> String {
    match kind {
        Kind::FlopRate => format_flops(x),
        Kind::Bandwidth => format_bandwidth(x),
        Kind::Bytes => format_bytes(x),
        Kind::Time => format_time(x),
        Kind::Power => format_power(x),
        Kind::Count => format_count(x),
        Kind::Tokens => format_tokens(x),
        Kind::Fraction => sig3(x),
    }
}

/// Three significant digits, for plain numbers (elasticities, ratios,
/// rates): from 100k on with a decimal prefix ("151k", "2.5M"), beyond the
/// largest prefix in engineering notation.
pub fn format_number(x: f64) -> String {
    if x.is_finite() && x.abs() >= 99_999.5 {
        return with_prefix(x, "").trim_end().replace(' ', "");
    }
    sig3(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_count_of_one_takes_the_singular() {
        let mb = |x| format_count_of(x, "micro-batch", "micro-batches");
        assert_eq!(mb(1.0), "1 micro-batch");
        assert_eq!(mb(16.0), "16 micro-batches");
        assert_eq!(mb(0.0), "0 micro-batches");
    }

    #[test]
    fn parses_datasheet_figures() {
        // H100 SXM bandwidth and bf16 peak, as NVIDIA writes them.
        assert_eq!(parse("3.35 TB/s", Kind::Bandwidth).unwrap(), 3.35e12);
        assert_eq!(parse("989 TFLOPS", Kind::FlopRate).unwrap(), 989e12);
        assert_eq!(parse("1979 TOPS", Kind::FlopRate).unwrap(), 1979e12);
        // 80 GiB = 80 * 2^30 = 85_899_345_920 bytes.
        assert_eq!(parse("80 GiB", Kind::Bytes).unwrap(), 85_899_345_920.0);
        assert_eq!(parse("80GB", Kind::Bytes).unwrap(), 80e9);
        // 400 Gb/s NIC = 400e9 / 8 = 50e9 bytes/s.
        assert_eq!(parse("400 Gb/s", Kind::Bandwidth).unwrap(), 50e9);
        assert_eq!(parse("50ms", Kind::Time).unwrap(), 0.05);
        assert_eq!(parse("10us", Kind::Time).unwrap(), 10e-6);
        assert_eq!(parse("8k", Kind::Count).unwrap(), 8000.0);
        assert_eq!(parse("4096", Kind::Count).unwrap(), 4096.0);
        assert_eq!(parse("70%", Kind::Fraction).unwrap(), 0.7);
        assert_eq!(parse("0.7", Kind::Fraction).unwrap(), 0.7);
        assert_eq!(parse("15 mW", Kind::Power).unwrap(), 0.015);
        assert_eq!(parse("1.5e3 W", Kind::Power).unwrap(), 1500.0);
        assert_eq!(parse("512 KiB", Kind::Bytes).unwrap(), 524_288.0);
    }

    #[test]
    fn rejects_what_is_not_a_quantity() {
        assert!(parse("", Kind::Time).is_err());
        assert!(parse("fast", Kind::Time).is_err());
        assert!(parse("50", Kind::Time).is_err(), "a time needs a unit");
        assert_eq!(parse("0", Kind::Time).unwrap(), 0.0, "zero does not");
        assert!(parse("3 furlongs", Kind::Bandwidth).is_err());
        assert!(parse("NaN", Kind::Count).is_err());
        assert!(parse("inf", Kind::Count).is_err());
        assert!(parse("1e400", Kind::Count).is_err());
        let e = parse("3 TB", Kind::Bandwidth).unwrap_err();
        assert!(
            e.to_string().contains("TB/s"),
            "the message shows a valid form: {e}"
        );
    }

    #[test]
    fn formats_with_three_significant_digits() {
        assert_eq!(format_bandwidth(3.35e12), "3.35 TB/s");
        assert_eq!(format_flops(989.4e12), "989 TFLOP/s");
        assert_eq!(format_bytes(141.1e9), "141 GB");
        assert_eq!(format_time(0.0342), "34.2 ms");
        assert_eq!(format_time(10e-6), "10 us");
        assert_eq!(format_count(8000.0), "8k");
        assert_eq!(format_count(512.0), "512");
        assert_eq!(format_count(4096.0), "4096");
        assert_eq!(format_params(8.03e9), "8.03B");
        assert_eq!(format_params(124e6), "124M");
        assert_eq!(format_params(23.8e3), "23.8k");
        assert_eq!(format_percent(-0.0909), "-9.09%");
        assert_eq!(format_percent(0.7), "70%");
        assert_eq!(format_count(131072.0), "131k");
        // 999.96 GB rounds up to the next prefix rather than printing "1000 GB".
        assert_eq!(format_bytes(999.96e9), "1 TB");
    }

    #[test]
    fn token_counts_read_k_as_1024() {
        // Model cards: an "8k" context is 8 * 1024 = 8192 tokens, "128k" is
        // 128 * 1024 = 131072, "1M" is 1024^2 = 1048576.
        assert_eq!(parse("8k", Kind::Tokens).unwrap(), 8192.0);
        assert_eq!(parse("128k", Kind::Tokens).unwrap(), 131072.0);
        assert_eq!(parse("2K", Kind::Tokens).unwrap(), 2048.0);
        assert_eq!(parse("1M", Kind::Tokens).unwrap(), 1048576.0);
        assert_eq!(parse("4096", Kind::Tokens).unwrap(), 4096.0);
        // Bytes and FLOP/s keep SI prefixes.
        assert_eq!(parse("8 kB", Kind::Bytes).unwrap(), 8000.0);
        assert_eq!(parse("8k", Kind::Count).unwrap(), 8000.0);
        assert!(parse("8 kB", Kind::Tokens).is_err());
        assert_eq!(format_tokens(131072.0), "128k");
        assert_eq!(format_tokens(1048576.0), "1M");
        assert_eq!(format_tokens(4096.0), "4096");
        assert_eq!(format_tokens(200000.0), "200000");
        for x in [
            1.0,
            4096.0,
            8192.0,
            131072.0,
            200000.0,
            1048576.0,
            3.0 * 1048576.0,
        ] {
            let s = format_tokens(x);
            assert_eq!(parse(&s, Kind::Tokens).unwrap(), x, "{x} -> {s}");
        }
    }

    #[test]
    fn huge_values_print_in_engineering_notation() {
        // 1e300 bytes is 1e282 EB: beyond the prefixes, a mantissa and an
        // exponent that is a multiple of three.
        assert_eq!(format_bytes(1e300), "1e300 B");
        assert_eq!(format_flops(1.5e22), "15e21 FLOP/s");
        assert_eq!(format_number(1.8446744073709552e19), "18.4E");
        assert_eq!(format_number(671e9), "671G");
        assert_eq!(format_number(151_234.0), "151k");
        assert_eq!(format_number(99_999.0), "99999");
        assert_eq!(format_number(1e300), "1e300");
        assert_eq!(format_usd(12.345), "$12.35");
        assert_eq!(format_usd(1.586e19), "$15.9e18");
        assert_eq!(format_usd(4.5e6), "$4.5M");
        assert_eq!(format_usd(1.2e9), "$1.2B");
        for s in [
            format_bytes(1e300),
            format_number(-1e300),
            format_time(1e300),
        ] {
            assert!(s.len() < 16, "{s}");
        }
        // Engineering notation reads back.
        assert_eq!(parse("1e300 B", Kind::Bytes).unwrap(), 1e300);
    }

    proptest! {
        #[test]
        fn format_then_parse_round_trips(mantissa in 1.0f64..10.0, exp in -9i32..300) {
            let x = mantissa * 10f64.powi(exp);
            for kind in [Kind::FlopRate, Kind::Bandwidth, Kind::Bytes, Kind::Power] {
                let s = format(x, kind);
                let back = parse(&s, kind).unwrap();
                // Three significant digits: relative error at most 0.5 / 100.
                prop_assert!(((back - x) / x).abs() <= 5e-3, "{x} -> {s} -> {back}");
            }
            if (1e-9..1e4).contains(&x) {
                let s = format(x, Kind::Time);
                let back = parse(&s, Kind::Time).unwrap();
                prop_assert!(((back - x) / x).abs() <= 5e-3, "{x} -> {s} -> {back}");
            }
            if x >= 1e21 {
                for kind in [Kind::Bytes, Kind::FlopRate] {
                    let s = format(x, kind);
                    prop_assert!(s.len() <= 16, "{x} -> {s}");
                    let back = parse(&s, kind).unwrap();
                    prop_assert!(((back - x) / x).abs() <= 5e-3, "{x} -> {s} -> {back}");
                }
            }
            if (1.0..1e15).contains(&x) {
                let s = format(x, Kind::Count);
                let back = parse(&s, Kind::Count).unwrap();
                prop_assert!(((back - x) / x).abs() <= 5e-3, "{x} -> {s} -> {back}");
            }
        }

        #[test]
        fn parse_never_panics(s in ".{0,24}") {
            for kind in [Kind::FlopRate, Kind::Bandwidth, Kind::Bytes, Kind::Time, Kind::Power, Kind::Count, Kind::Tokens, Kind::Fraction] {
                if let Ok(v) = parse(&s, kind) {
                    prop_assert!(v.is_finite());
                }
            }
        }
    }
}
