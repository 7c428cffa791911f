//! Numbers told whole in a narrow cell. A figure that does not fit its
//! column is told shorter (fewer significant digits, then a decimal prefix
//! or an exponent: "-2.33e-5" -> "-2.3e-5" -> "-2e-5"), never cut: a cut
//! "-2.33e-" or "12" for "129" reads as another number. When not even one
//! digit fits, the cell holds [`NO_ROOM`].
//!
//! [`number`] is the one function that tells a plain number in at most N
//! columns; [`fit`] does the same for a formatted figure with its sign,
//! "$" and unit ("7.78 ms", "+2.72%", "$7.92", "1.87x"), and
//! [`fit_line`] is what `grid::row` does with every cell: a figure refit,
//! a text cut before a figure rather than through it.

use crate::solver::units;
use ratatui::text::{Line, Span};
use std::borrow::Cow;

/// What a cell holds when no digit of its number fits: the spreadsheet's
/// "column too narrow".
pub const NO_ROOM: &str = "#";

/// Widest a finite number needs at one significant digit: "-1e-300" (all
/// but the last doubles, from 1e308 on, which round past the largest).
pub const ALWAYS_FITS: usize = 7;

/// `x` in at most `n` columns: as `units::format_number` writes it when
/// that fits, else with fewer significant digits, in plain decimals, with a
/// decimal prefix (k, M, G, T, P, E) or with an exponent, whichever keeps
/// the most digits; [`NO_ROOM`] when none fits (only when `n` is below
/// [`ALWAYS_FITS`]).
pub fn number(x: f64, n: usize) -> String {
    let s = units::format_number(x);
    // (Near the largest double its three digits round past it: "180e306".)
    let reads = !x.is_finite() || parse(&s).is_some_and(|(v, _)| v.is_finite());
    if s.chars().count() <= n && reads {
        return s;
    }
    if x.is_finite() {
        for d in (1..=3).rev() {
            for c in [plain(x, d), prefixed(x, d), sci(x, d)]
                .into_iter()
                .flatten()
            {
                if c.chars().count() <= n {
                    return c;
                }
            }
        }
    }
    no_room(n)
}

fn no_room(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        NO_ROOM.to_string()
    }
}

/// `x` with `d` significant digits in plain decimals, trailing zeros after
/// the point dropped: 0.0123 (d = 2) -> "0.012".
fn plain(x: f64, d: usize) -> Option<String> {
    if x == 0.0 {
        return Some("0".into());
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = d as i32 - 1 - mag;
    // Beyond 1e17 or below 1e-20 plain decimals are no way to tell it.
    if mag > 17 || decimals > 20 {
        return None;
    }
    let decimals = decimals.max(0) as usize;
    Some(trim(format!("{x:.decimals$}")))
}

/// Trailing zeros after a decimal point dropped, and the point with them.
fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

const PREFIXES: [(&str, f64); 6] = [
    ("k", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
    ("P", 1e15),
    ("E", 1e18),
];

/// `x` with a decimal prefix and `d` significant digits: 12_345 (d = 2) ->
/// "12k". None below 1000 or beyond the largest prefix.
fn prefixed(x: f64, d: usize) -> Option<String> {
    let a = x.abs();
    for (i, (name, m)) in PREFIXES.iter().enumerate() {
        let next = PREFIXES.get(i + 1).map_or(f64::INFINITY, |p| p.1);
        if a >= *m && a < next {
            let s = plain(x / m, d)?;
            // Rounding carried into the next prefix: 999.7k -> "1000k".
            if s.trim_start_matches('-').parse::<f64>().ok()? >= 1000.0 {
                let (name, m) = PREFIXES.get(i + 1)?;
                return Some(format!("{}{name}", plain(x / m, d)?));
            }
            return Some(format!("{s}{name}"));
        }
    }
    None
}

/// `x` with an exponent and `d` significant digits: "-2.3e-5", "1e300".
fn sci(x: f64, d: usize) -> Option<String> {
    let s = format!("{:.*e}", d - 1, x);
    let (m, e) = s.split_once('e')?;
    let s = format!("{}e{e}", trim(m.to_string()));
    // Rounded past the largest double (1.8e308 to one digit): no.
    s.parse::<f64>().is_ok_and(f64::is_finite).then_some(s)
}

/// The value of a number as [`number`] and `units::format_number` write it
/// ("87.6", "-2.3e-5", "151k", "15e21", "NaN", "-inf"), and half a unit in
/// its last place: how far from the value it was told from it can be.
pub fn parse(s: &str) -> Option<(f64, f64)> {
    if let Ok(v) = s.parse::<f64>()
        && !v.is_finite()
    {
        return Some((v, 0.0));
    }
    let (body, m) = match PREFIXES.iter().find(|(p, _)| s.ends_with(p)) {
        Some((p, m)) => (&s[..s.len() - p.len()], *m),
        None => (s, 1.0),
    };
    if body.is_empty()
        || !body.chars().any(|c| c.is_ascii_digit())
        || body.chars().any(|c| !"0123456789.-+e".contains(c))
    {
        return None;
    }
    let v: f64 = body.parse().ok()?;
    let (mant, exp) = match body.split_once('e') {
        Some((a, b)) => (a, b.parse::<i32>().ok()?),
        None => (body, 0),
    };
    let decimals = mant.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    // Half of 1e(exp - decimals), read as a literal (powi underflows to
    // zero near the smallest doubles).
    let half_ulp: f64 = format!("5e{}", exp - decimals - 1).parse().ok()?;
    let half_ulp = half_ulp * m;
    Some((v * m, half_ulp))
}

/// A formatted figure split as (prefix, number, unit): "$7.92" ->
/// ("$", "7.92", ""), "7.78 ms" -> ("", "7.78", " ms"), "+2.72%" -> ("+",
/// "2.72", "%"), "-0.728" -> ("-", "0.728", ""). None when `s` is not one
/// figure: the unit is at most one space and then letters, '/' or '%'
/// ("7.78 ms (7.0-8.6)" is two).
pub fn split(s: &str) -> Option<(&str, &str, &str)> {
    let pre = s.len() - s.trim_start_matches(['$', '+', '-']).len();
    let rest = &s[pre..];
    let mut end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    if !rest[..end].chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    // An exponent: "e", a sign, digits.
    let tail = &rest[end..];
    if let Some(e) = tail.strip_prefix('e') {
        let signed = e.strip_prefix(['-', '+']).unwrap_or(e);
        let digits = signed.len()
            - signed
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if digits > 0 {
            end += 1 + (e.len() - signed.len()) + digits;
        }
    }
    let unit = &rest[end..];
    let word = unit.strip_prefix(' ').unwrap_or(unit);
    if !word
        .chars()
        .all(|c| c.is_alphabetic() || c == '/' || c == '%')
        || (unit.starts_with(' ') && word.is_empty())
    {
        return None;
    }
    Some((&s[..pre], &rest[..end], unit))
}

/// A formatted figure (see [`split`]) in at most `n` columns: unchanged
/// when it fits, else its number with fewer digits, its sign, "$" and unit
/// kept; a bare number (no unit, or a decimal prefix as its unit: "151k")
/// in any form [`number`] has. [`NO_ROOM`] when no digit fits; None when
/// `s` is not a figure.
pub fn fit(s: &str, n: usize) -> Option<String> {
    if s.chars().count() <= n {
        return Some(s.to_string());
    }
    let (pre, num, unit) = split(s)?;
    let negative = pre.contains('-');
    let value: f64 = num.parse().ok()?;
    if !value.is_finite() {
        // "180e306": three digits of the largest double, past it.
        return Some(no_room(n));
    }
    let signed = if negative { -value } else { value };
    let prefix = PREFIXES.iter().find(|(p, _)| *p == unit).map(|p| p.1);
    let keep = pre.replace('-', "");
    let room = n.saturating_sub(keep.chars().count());
    if unit.is_empty() || prefix.is_some() {
        let v = signed * prefix.unwrap_or(1.0);
        let told = number(v, room);
        return Some(if told == NO_ROOM || told.is_empty() {
            no_room(n)
        } else {
            format!("{keep}{told}")
        });
    }
    // A unit: fewer digits in plain decimals, the unit kept.
    let room = room.saturating_sub(unit.chars().count());
    for d in (1..=3).rev() {
        if let Some(c) = plain(signed, d)
            && c.chars().count() <= room
        {
            return Some(format!("{keep}{c}{unit}"));
        }
    }
    Some(no_room(n))
}

/// Whether a word of a cell's text is (the start of) a figure: a digit,
/// maybe after a sign, "$" or an opening bracket.
fn figure_word(w: &str) -> bool {
    w.trim_start_matches(['-', '+', '$', '(', '~'])
        .starts_with(|c: char| c.is_ascii_digit())
}

/// A cell's line in at most `n` columns: unchanged when it fits; a figure
/// told shorter ([`fit`]); a text cut at `n` unless the cut falls inside
/// a figure, which then goes whole (the cell ends before it).
pub fn fit_line<'l, 'a>(line: &'l Line<'a>, n: usize) -> Cow<'l, Line<'a>> {
    if line.width() <= n {
        return Cow::Borrowed(line);
    }
    Cow::Owned(refit_line(line, n))
}

/// [`fit_line`] of a line wider than `n`.
fn refit_line<'a>(line: &Line<'a>, n: usize) -> Line<'a> {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let style = line
        .spans
        .iter()
        .find(|s| !s.content.trim().is_empty())
        .map_or(line.style, |s| s.style);
    let lead = text.len() - text.trim_start().len();
    if let Some(s) = fit(text.trim(), n.saturating_sub(lead)) {
        return Line::from(Span::styled(format!("{}{s}", &text[..lead]), style)).style(line.style);
    }
    // A text: the columns kept, backed off to before a figure it would cut.
    let mut keep = cut_at(&text, n);
    let cut_inside =
        text[keep..].starts_with(|c: char| c != ' ') && text[..keep].ends_with(|c: char| c != ' ');
    if cut_inside {
        let start = text[..keep].rfind(' ').map_or(0, |i| i + 1);
        if figure_word(&text[start..]) {
            keep = start;
        }
    }
    let mut out = Vec::new();
    let mut at = 0;
    for s in &line.spans {
        let end = at + s.content.len();
        if at >= keep {
            break;
        }
        let take = keep.min(end) - at;
        out.push(Span::styled(s.content[..take].to_string(), s.style));
        at = end;
    }
    Line::from(out).style(line.style)
}

/// The byte offset after the characters of `s` that fill `n` columns.
fn cut_at(s: &str, n: usize) -> usize {
    let mut cols = 0;
    for (i, c) in s.char_indices() {
        let w = super::text::width(c.encode_utf8(&mut [0; 4]));
        if cols + w > n {
            return i;
        }
        cols += w;
    }
    s.len()
}

/// For tests of every table: `drawn` is `given` whole, or a figure told
/// shorter within the precision it kept, or [`NO_ROOM`], or a text whose
/// figures are all whole. Returns what is wrong, if anything.
pub fn check_whole(given: &str, drawn: &str) -> Result<(), String> {
    let (g, d) = (given.trim(), drawn.trim());
    if g == d || d == NO_ROOM || d.is_empty() {
        return Ok(());
    }
    if let (Some((gp, gn, gu)), Some((dp, dn, du))) = (split(g), split(d)) {
        let value = |p: &str, n: &str, u: &str| {
            let m = PREFIXES.iter().find(|(x, _)| *x == u).map_or(1.0, |x| x.1);
            let (v, half) = parse(n)?;
            let s = if p.contains('-') { -1.0 } else { 1.0 };
            Some((s * v * m, half * m))
        };
        let (Some((gv, _)), Some((dv, half))) = (value(gp, gn, gu), value(dp, dn, du)) else {
            return Err(format!("{drawn:?} for {given:?} does not read as a number"));
        };
        let gv_plain = PREFIXES.iter().any(|x| x.0 == gu) || gu.is_empty();
        let dv_plain = PREFIXES.iter().any(|x| x.0 == du) || du.is_empty();
        let same_unit = gu == du || (gv_plain && dv_plain);
        // Half a unit in the last place, and the rounding of the given
        // figure's own last place (a refit of a refit).
        let (_, ghalf) = parse(gn).unwrap_or((0.0, 0.0));
        let tol = half + ghalf + 1e-12 * gv.abs();
        if same_unit && (gv - dv).abs() <= tol {
            return Ok(());
        }
        return Err(format!("{drawn:?} for {given:?}: not the same figure"));
    }
    // A text: each word drawn is the word given; a figure only whole.
    let gw: Vec<&str> = g.split(' ').collect();
    for (i, w) in d.split(' ').enumerate() {
        let Some(orig) = gw.get(i) else {
            return Err(format!("{drawn:?} has more words than {given:?}"));
        };
        if w != *orig && (figure_word(w) || !orig.starts_with(w)) {
            return Err(format!("{drawn:?} cuts {orig:?} of {given:?}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_number_that_does_not_fit_keeps_fewer_digits() {
        // The Sensitivity pane's elasticity column is 7 wide: -2.33e-5
        // (8 characters) keeps two digits, -2.3e-5 (7).
        assert_eq!(number(-2.33e-5, 8), "-2.33e-5");
        assert_eq!(number(-2.33e-5, 7), "-2.3e-5");
        assert_eq!(number(-2.33e-5, 5), "-2e-5");
        // 0.0123 in 5: three digits need 6 ("0.0123"), two fit ("0.012").
        assert_eq!(number(0.0123, 5), "0.012");
        // 151_234 is "151k"; in 3 columns two digits with the prefix do not
        // fit ("150k" is 4), one with an exponent does: "2e5".
        assert_eq!(number(151_234.0, 4), "151k");
        assert_eq!(number(151_234.0, 3), "2e5");
        // 12_345 in 3: "12k".
        assert_eq!(number(12_345.0, 4), "12k");
        // 999_700 rounds to 1000k at three digits: 1M.
        assert_eq!(prefixed(999_700.0, 3).unwrap(), "1M");
        assert_eq!(number(-1e-300, 7), "-1e-300");
        assert_eq!(number(-1e-300, 6), NO_ROOM);
        assert_eq!(number(f64::NAN, 3), "NaN");
        assert_eq!(number(f64::NEG_INFINITY, 3), NO_ROOM);
        assert_eq!(number(0.0, 1), "0");
    }

    #[test]
    fn a_figure_keeps_its_sign_dollar_and_unit() {
        assert_eq!(fit("7.78 ms", 7).unwrap(), "7.78 ms");
        assert_eq!(fit("7.78 ms", 6).unwrap(), "7.8 ms");
        assert_eq!(fit("7.78 ms", 4).unwrap(), "8 ms");
        assert_eq!(fit("7.78 ms", 3).unwrap(), NO_ROOM);
        assert_eq!(fit("+0.253%", 6).unwrap(), "+0.25%");
        assert_eq!(fit("$7.92", 4).unwrap(), "$7.9");
        assert_eq!(fit("-2.33e-5", 7).unwrap(), "-2.3e-5");
        assert_eq!(fit("151k", 3).unwrap(), "2e5");
        assert_eq!(fit("1.87x", 4).unwrap(), "1.9x");
        assert_eq!(fit("a100-sxm-80gb", 4), None);
        assert_eq!(fit("7.78 ms (7.0-8.6)", 8), None);
        assert_eq!(fit("2 x TP 4", 4), None);
    }

    #[test]
    fn a_text_ends_before_a_figure_it_would_cut() {
        let cut = |s: &str, n| {
            let given = Line::from(s.to_string());
            let l = fit_line(&given, n);
            l.spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        // "15.7 TFLOP/s fp32" in 14: the unit word may be cut, not the number.
        assert_eq!(cut("15.7 TFLOP/s fp32", 14), "15.7 TFLOP/s f");
        assert_eq!(cut("fits 16.6 GB of 72 GB", 17), "fits 16.6 GB of ");
        assert_eq!(cut("a100-sxm-80gb", 10), "a100-sxm-8");
        assert_eq!(cut("  -0.728", 6), "  -0.7");
    }

    #[test]
    fn the_check_tells_a_cut_figure_from_a_shorter_one() {
        assert!(check_whole("-2.33e-5", "-2.3e-5").is_ok());
        assert!(check_whole("-2.33e-5", "-2.33e-").is_err());
        assert!(check_whole("129", "12").is_err());
        assert!(check_whole("7.78 ms", "8 ms").is_ok());
        assert!(check_whole("fits 16.6 GB of 72 GB", "fits 16.6 GB of 7").is_err());
        assert!(check_whole("fits 16.6 GB of 72 GB", "fits 16.6 GB of").is_ok());
        assert!(check_whole("151k", "2e5").is_ok());
        assert!(check_whole("151k", "3e5").is_err());
    }

    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => -1e6f64..1e6,
            3 => (-300i32..300, -9.99f64..9.99).prop_map(|(e, m)| m * 10f64.powi(e)),
            1 => prop::sample::select(vec![0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY,
                f64::MAX, f64::MIN_POSITIVE, -f64::MAX, 999.9996, 99_999.6, 9.9996e-4]),
        ]
    }

    proptest! {
        /// Every number told in `n` columns is at most `n` wide and reads
        /// back within half a unit of its last place; from 7 columns on it
        /// always fits, below that it is a number or the no-room mark.
        #[test]
        fn a_number_is_whole_in_any_width(x in value(), n in 0usize..12) {
            let s = number(x, n);
            prop_assert!(s.chars().count() <= n, "{s:?} wider than {n}");
            if s == NO_ROOM || s.is_empty() {
                prop_assert!(n < ALWAYS_FITS || !x.is_finite() || x.abs() >= 1e308,
                    "{x} had room in {n}");
                return Ok(());
            }
            let (v, half) = parse(&s).unwrap();
            if x.is_nan() {
                prop_assert!(v.is_nan());
            } else if x.is_infinite() {
                prop_assert_eq!(v, x);
            } else {
                // 1e-12 relative: the decimal digits of a binary double.
                prop_assert!((v - x).abs() <= half * (1.0 + 1e-9) + 1e-12 * x.abs(),
                    "{x} told {s:?} in {n} reads {v}");
            }
        }

        /// A formatted figure refit to `n` columns is the same figure.
        #[test]
        fn a_figure_refit_is_the_same_figure(x in value(), n in 0usize..12,
            unit in prop::sample::select(vec!["", " ms", "%", "x", " TB/s"]),
            dollar in any::<bool>()) {
            let s = format!("{}{}{unit}", if dollar { "$" } else { "" }, units::format_number(x));
            if let Some(f) = fit(&s, n) {
                prop_assert!(f.chars().count() <= n);
                prop_assert!(check_whole(&s, &f).is_ok(), "{s:?} -> {f:?}: {:?}", check_whole(&s, &f));
            }
        }
    }
}
