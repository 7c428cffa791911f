//! The list flags (`--hardware a,b`, fleet's `--region` and `--precisions`,
//! explore's `--precision`): an item named twice, however spelled (an id,
//! an alias, another case), is merged into its first place with a note on
//! stderr, and a list is at most [`MAX_ITEMS`] distinct items. Each command
//! then works on what is distinct, so its work grows with what is different,
//! not with what is typed.

use super::args::Command;
use super::{CliError, Out};
use crate::catalog::Catalog;
use crate::catalog::fields::printable;
use crate::solver::Tier;
use crate::solver::explore::Precisions;
use crate::solver::units::{self, Kind};
use std::collections::HashMap;

/// The most distinct items a list flag takes: more than the catalog's
/// devices or regions, and each is evaluated in full.
pub const MAX_ITEMS: usize = 256;

/// The items of `s` merged by `key`: each distinct key once, at its first
/// place, with how many times it was named. Items without a key are kept
/// as written (the command reports them).
struct Merged {
    /// (shown key, the item as first written, times named).
    kept: Vec<(String, String, usize)>,
    /// For each item of `s`, its place in `kept`.
    place: Vec<usize>,
}

fn merge(s: &str, key: impl Fn(&str) -> Option<String>) -> Merged {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut m = Merged {
        kept: Vec::new(),
        place: Vec::new(),
    };
    for item in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let k = key(item).unwrap_or_else(|| item.to_lowercase());
        let at = *seen.entry(k.clone()).or_insert_with(|| {
            m.kept.push((k, item.to_string(), 0));
            m.kept.len() - 1
        });
        m.kept[at].2 += 1;
        m.place.push(at);
    }
    m
}

impl Merged {
    /// The distinct items as a list flag again.
    fn text(&self) -> String {
        let items: Vec<&str> = self.kept.iter().map(|(_, w, _)| w.as_str()).collect();
        items.join(",")
    }

    /// Refuse more than [`MAX_ITEMS`] distinct items.
    fn capped(self, flag: &str, what: &str) -> Result<Merged, CliError> {
        if self.kept.len() > MAX_ITEMS {
            return Err(CliError::Input(format!(
                "--{flag}: {} different {what}; at most {MAX_ITEMS} are accepted in one list",
                self.kept.len()
            )));
        }
        Ok(self)
    }

    /// "note: --hardware: h100-sxm named 3 times, ...; each is evaluated
    /// once", or nothing when no item repeats.
    fn note(&self, flag: &str, err: Out) {
        const SHOWN: usize = 4;
        let repeats: Vec<String> = self
            .kept
            .iter()
            .filter(|(_, _, n)| *n > 1)
            .map(|(k, _, n)| format!("{} named {n} times", printable(k)))
            .collect();
        if repeats.is_empty() {
            return;
        }
        let more = match repeats.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more repeated"),
        };
        let shown = repeats[..repeats.len().min(SHOWN)].join(", ");
        let _ = writeln!(err, "note: --{flag}: {shown}{more}; each is evaluated once");
    }
}

/// Merge a list flag's repeats in place (a note on `err`) and refuse more
/// than [`MAX_ITEMS`] distinct items.
fn merge_flag(
    list: &mut String,
    flag: &str,
    what: &str,
    key: impl Fn(&str) -> Option<String>,
    err: Out,
) -> Result<Merged, CliError> {
    let m = merge(list, key).capped(flag, what)?;
    m.note(flag, err);
    *list = m.text();
    Ok(m)
}

/// `--hardware`: ids, aliases, or "all" (and for explore a tier).
fn hardware(cat: &Catalog, list: &mut String, err: Out) -> Result<(), CliError> {
    let whole = list.trim();
    if whole.eq_ignore_ascii_case("all") || Tier::parse(whole).is_some() {
        return Ok(());
    }
    let key = |n: &str| cat.hardware(n).ok().map(|e| e.hw.id.clone());
    merge_flag(list, "hardware", "devices", key, err).map(|_| ())
}

/// A precision list: each item as its label ("bf16", "int4/fp8/fp8").
fn precisions(list: &mut String, flag: &str, err: Out) -> Result<(), CliError> {
    let key = |p: &str| Precisions::parse(p).ok().map(|p| p.label());
    merge_flag(list, flag, "precisions", key, err).map(|_| ())
}

/// Merge the repeated items of every list flag of `command`, refuse a list
/// over [`MAX_ITEMS`] distinct items, and say on `err` what was merged.
pub fn merge_lists(cat: &Catalog, command: &Command, err: Out) -> Result<Command, CliError> {
    let mut command = command.clone();
    match &mut command {
        Command::Compare(a) => hardware(cat, &mut a.hardware, err)?,
        Command::Sweep(a) => hardware(cat, &mut a.hardware, err)?,
        Command::Plot(a) => match &mut a.kind {
            super::plot::PlotKind::Roofline(p) | super::plot::PlotKind::Generations(p) => {
                hardware(cat, &mut p.compare.hardware, err)?
            }
            super::plot::PlotKind::Sweep(p) => hardware(cat, &mut p.sweep.hardware, err)?,
            super::plot::PlotKind::Explore(p) => {
                hardware(cat, &mut p.explore.hardware, err)?;
                precisions(&mut p.explore.precision, "precision", err)?;
            }
            super::plot::PlotKind::Train(_) | super::plot::PlotKind::Operators(_) => {}
        },
        Command::Synth(a) => hardware(cat, &mut a.hardware, err)?,
        Command::Explore(a) => {
            hardware(cat, &mut a.hardware, err)?;
            precisions(&mut a.precision, "precision", err)?;
        }
        Command::Fleet(a) => {
            hardware(cat, &mut a.hardware, err)?;
            precisions(&mut a.precisions, "precisions", err)?;
            let key = |r: &str| cat.region(r).ok().map(|r| r.id.clone());
            let m = merge_flag(&mut a.region, "region", "regions", key, err)?;
            // A repeated region's shares add up, when there is one share
            // per region as written (else fleet says what is wrong).
            if let Some(s) = &mut a.share {
                let shares: Option<Vec<f64>> = s
                    .split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| units::parse(x, Kind::Fraction).ok())
                    .collect();
                if let Some(v) = shares.filter(|v| v.len() == m.place.len())
                    && m.kept.len() < m.place.len()
                {
                    let mut sum = vec![0.0; m.kept.len()];
                    for (x, &at) in v.iter().zip(&m.place) {
                        sum[at] += x;
                    }
                    let text: Vec<String> = sum.iter().map(|x| x.to_string()).collect();
                    *s = text.join(",");
                }
            }
        }
        _ => {}
    }
    Ok(command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_merged_list_holds_each_name_once_in_first_place(
            raw in prop::collection::vec((0usize..12, any::<bool>(), 0usize..3), 0..200),
        ) {
            // Names from a pool of 12, in either case, with 0 to 2 spaces
            // around: the key is the lower-case name.
            let items: Vec<String> = raw
                .iter()
                .map(|&(i, upper, pad)| {
                    let n = if upper { format!("DEV{i}") } else { format!("dev{i}") };
                    format!("{}{n}{}", " ".repeat(pad), " ".repeat(pad))
                })
                .collect();
            let m = merge(&items.join(","), |x| Some(x.to_lowercase()));
            let keys: Vec<String> = items.iter().map(|x| x.trim().to_lowercase()).collect();
            let mut firsts: Vec<&String> = Vec::new();
            for k in &keys {
                if !firsts.contains(&k) {
                    firsts.push(k);
                }
            }
            // Each different name once, in the order first named.
            let kept: Vec<&String> = m.kept.iter().map(|(k, _, _)| k).collect();
            prop_assert_eq!(kept, firsts);
            // Every item points at its own name, and the counts add up.
            prop_assert_eq!(m.place.len(), items.len());
            for (k, &at) in keys.iter().zip(&m.place) {
                prop_assert_eq!(&m.kept[at].0, k);
            }
            prop_assert_eq!(m.kept.iter().map(|x| x.2).sum::<usize>(), items.len());
            // Merged again, nothing repeats, and the note is said only
            // when something did.
            let again = merge(&m.text(), |x| Some(x.to_lowercase()));
            prop_assert!(again.kept.iter().all(|x| x.2 == 1));
            let mut err = Vec::new();
            m.note("hardware", &mut err);
            prop_assert_eq!(!err.is_empty(), m.kept.len() < items.len());
        }
    }

    #[test]
    fn repeats_merge_by_key_into_their_first_place() {
        let m = merge("h100, a100,H100 ,,b200,a100,h100", |x| {
            Some(x.to_lowercase())
        });
        let kept: Vec<(&str, usize)> = m.kept.iter().map(|(_, w, n)| (w.as_str(), *n)).collect();
        // h100 three times (one "H100 "), a100 twice, b200 once.
        assert_eq!(kept, vec![("h100", 3), ("a100", 2), ("b200", 1)]);
        assert_eq!(m.place, vec![0, 1, 0, 2, 1, 0]);
        assert_eq!(m.text(), "h100,a100,b200");
        let mut err = Vec::new();
        m.note("hardware", &mut err);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "note: --hardware: h100 named 3 times, a100 named 2 times; each is evaluated once\n"
        );
    }

    #[test]
    fn a_list_without_repeats_says_nothing_and_a_long_one_is_refused() {
        let m = merge("a,b,c", |x| Some(x.to_string()));
        let mut err = Vec::new();
        m.note("region", &mut err);
        assert!(err.is_empty());
        // 257 distinct items: one over the cap.
        let many: Vec<String> = (0..=MAX_ITEMS).map(|i| format!("d{i}")).collect();
        let e = merge(&many.join(","), |x| Some(x.to_string()))
            .capped("hardware", "devices")
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "--hardware: 257 different devices; at most 256 are accepted in one list"
        );
        // 20,000 copies of one item are one item.
        let copies = vec!["h100"; 20_000].join(",");
        let m = merge(&copies, |x| Some(x.to_string()))
            .capped("hardware", "devices")
            .ok()
            .unwrap();
        assert_eq!(
            (m.kept.len(), m.kept[0].2, m.place.len()),
            (1, 20_000, 20_000)
        );
    }
}
