//! Leave one source out: each measurement of `ridgeline validate`
//! predicted with its profile's fitted values refitted without the file it
//! comes from (and a device class's fitted values refitted on that class's
//! other sources).

use super::validate::{Checked, DEFAULT_PROFILE};
use crate::catalog::device_class::DeviceClass;
use crate::catalog::profile::{self as prof, Takes};
use crate::catalog::{Catalog, Measurement};
use crate::solver::Assumptions;
use crate::solver::calibration::{self, Case, Param, Prediction, Summary};
use std::collections::BTreeMap;

/// Sets one assumption to a number.
type Setter = dyn Fn(&mut Assumptions, f64);

/// The interval a refit searches for a key that takes `takes`; None for
/// the collective algorithm (not a number).
fn refit_range(takes: Takes) -> Option<(f64, f64)> {
    match takes {
        Takes::Fraction => Some((0.05, 1.0)),
        Takes::UnitInterval => Some((0.0, 1.0)),
        Takes::Time => Some((0.0, 10e-3)),
        Takes::Rows => Some((0.0, 256.0)),
        Takes::Algorithm
        | Takes::Accumulate
        | Takes::Ceiling
        | Takes::CrossEntropy
        | Takes::Storage
        | Takes::Grads => None,
    }
}

/// Leave one source out: each measurement predicted with its profile's
/// fitted values refitted without the measurement's source (the file it
/// comes from: one publication or benchmark table per file, so a stack's
/// fit never sees the figures it is scored on). The refit starts from the
/// profile's values with its fitted keys put back to those of the profile
/// it was fitted from (`fitted_from`), and fits them on the other sources'
/// measurements of its stacks (`fitted_on`), or, when the held-out source
/// is all of them, on those of the `default` profile's stacks: a stack
/// predicted as a stack nobody fitted. A measurement predicted with a
/// device class's values then has the class's fitted keys refitted, from
/// the refitted base values, on the other sources' measurements of that
/// class; when no other source has one, the class keeps the refitted base
/// values (a class predicted as one nobody fitted). Keys in `fixed` (set by
/// `--assume`) are not refitted. A profile set by hand (`roofline`,
/// `ideal`) fits nothing, so its prediction stands. The refit is
/// [`calibration::refit`], bounded; examples/calibrate.rs, which made the
/// profiles, searches whole grids from several starts.
pub fn leave_one_source_out(
    cat: &Catalog,
    checked: &[Checked],
    fixed: &[&str],
) -> Vec<Option<Prediction>> {
    let resolve = |m: &Measurement| {
        let hw = &cat.hardware(&m.hardware).ok()?.hw;
        let model = &cat.model(&m.model).ok()?.model;
        Some((hw, model))
    };
    let resolved: Vec<_> = checked.iter().map(|c| resolve(c.measurement)).collect();
    type Group<'a> = (&'a str, Option<DeviceClass>, &'a str);
    let mut groups: BTreeMap<Group, Vec<usize>> = BTreeMap::new();
    for (i, c) in checked.iter().enumerate() {
        groups
            .entry((c.profile.as_str(), c.class, c.measurement.origin.as_str()))
            .or_default()
            .push(i);
    }
    let default_spec = cat
        .profile(DEFAULT_PROFILE)
        .ok()
        .and_then(|p| p.fit.clone());
    // The other sources' measurements of `stacks` (and of `class`, when
    // given) as cases to fit on.
    let cases_on = |origin: &str, stacks: &[String], class: Option<DeviceClass>| -> Vec<Case> {
        checked
            .iter()
            .zip(&resolved)
            .filter(|(c, _)| {
                c.measurement.origin != origin
                    && stacks.contains(&c.measurement.stack)
                    && (class.is_none() || c.class == class)
            })
            .filter_map(|(c, r)| {
                let (hw, model) = (*r)?;
                let m = c.measurement;
                Some(Case {
                    hw,
                    model,
                    run: &m.run,
                    metric: m.metric,
                    measured: m.value,
                })
            })
            .collect()
    };
    let mut bases: BTreeMap<(&str, &str), Option<Assumptions>> = BTreeMap::new();
    let mut out: Vec<Option<Prediction>> = vec![None; checked.len()];
    for ((pid, class, origin), idx) in groups {
        let entry = cat.profile(pid).ok().filter(|p| p.fit.is_some());
        let Some((p, spec)) = entry.and_then(|p| Some((p, p.fit.as_ref()?))) else {
            for i in idx {
                out[i] = checked[i].prediction.as_ref().ok().copied();
            }
            continue;
        };
        // The values the measurements were checked with, for the keys
        // `--assume` fixed.
        let given = checked[idx[0]].assumptions;
        let base = *bases.entry((pid, origin)).or_insert_with(|| {
            let mut cases = cases_on(origin, &spec.stacks, None);
            if let (true, Some(d)) = (cases.is_empty(), &default_spec) {
                cases = cases_on(origin, &d.stacks, None);
            }
            if cases.is_empty() {
                return None;
            }
            let mut start = p.assumptions;
            put_back(&mut start, &given, fixed.iter().copied());
            if let Ok(from) = cat.profile(&spec.from) {
                put_back(&mut start, &from.assumptions, refit_keys(&spec.keys, fixed));
            }
            Some(refit_on(&cases, &start, &spec.keys, fixed))
        });
        let Some(mut a) = base else {
            continue;
        };
        if let Some(cv) = class.and_then(|k| p.class(k)) {
            let hand = cv
                .keys
                .iter()
                .copied()
                .filter(|k| !fixed.contains(k) && !cv.fitted_keys.iter().any(|f| f == k));
            put_back(&mut a, &cv.assumptions, hand);
            let cases = cases_on(origin, &spec.stacks, class);
            if !cases.is_empty() {
                a = refit_on(&cases, &a, &cv.fitted_keys, fixed);
            }
        }
        for i in idx {
            let m = checked[i].measurement;
            out[i] = resolved[i]
                .and_then(|(hw, model)| calibration::predict(hw, model, &m.run, m.metric, &a).ok());
        }
    }
    out
}

/// The numeric keys of `keys` a refit moves: not fixed, not the
/// collective algorithm.
fn refit_keys<'k>(keys: &'k [String], fixed: &'k [&str]) -> impl Iterator<Item = &'k str> + 'k {
    keys.iter()
        .map(String::as_str)
        .filter(|k| !fixed.contains(k))
        .filter(|k| {
            prof::KEYS
                .iter()
                .any(|x| x.key == *k && refit_range(x.takes).is_some())
        })
}

/// Set `keys` of `a` to their values in `from`.
fn put_back<'k>(a: &mut Assumptions, from: &Assumptions, keys: impl Iterator<Item = &'k str>) {
    let mut from = *from;
    for k in keys {
        if let (Some(x), Some(slot)) = (
            prof::number_mut(&mut from, k).map(|x| *x),
            prof::number_mut(a, k),
        ) {
            *slot = x;
        }
    }
}

/// `keys` (but the fixed ones) of `start` refitted on `cases`.
fn refit_on(cases: &[Case], start: &Assumptions, keys: &[String], fixed: &[&str]) -> Assumptions {
    let keys: Vec<(&str, (f64, f64))> = refit_keys(keys, fixed)
        .filter_map(|k| {
            let key = prof::KEYS.iter().find(|x| x.key == k)?;
            Some((key.key, refit_range(key.takes)?))
        })
        .collect();
    let setters: Vec<Box<Setter>> = keys
        .iter()
        .map(|(k, _)| {
            let k = *k;
            Box::new(move |a: &mut Assumptions, x: f64| {
                if let Some(slot) = prof::number_mut(a, k) {
                    *slot = x;
                }
            }) as Box<Setter>
        })
        .collect();
    let params: Vec<Param> = keys
        .iter()
        .zip(&setters)
        .map(|((_, (lo, hi)), set)| Param {
            set: set.as_ref(),
            lo: *lo,
            hi: *hi,
        })
        .collect();
    calibration::refit(cases, start, &params)
}

/// The summary of the leave-one-source-out predictions `keep` selects.
pub fn loso_summary(
    checked: &[Checked],
    loso: &[Option<Prediction>],
    keep: impl Fn(&Checked) -> bool,
) -> Summary {
    let pairs: Vec<(Prediction, f64)> = checked
        .iter()
        .zip(loso)
        .filter(|(c, _)| keep(c))
        .filter_map(|(c, p)| p.map(|p| (p, c.measurement.value)))
        .collect();
    calibration::summarize(&pairs)
}
