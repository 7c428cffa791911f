//! The `[assumptions]` of a scenario: a calibration profile of the catalog
//! (`profile = "vllm"`, "default" when absent) and any assumption key of
//! `catalog::profile::KEYS` over it, each read by `catalog::profile::set`,
//! the one reader of assumption keys (profile files and `--assume` use it
//! too), so that names, units and ranges have one definition.
//!
//! Saving writes the profile and every key whose value differs from the
//! profile's, each exactly (`exact`), so that the file reads back equal.

use super::exact;
use crate::catalog::profile::{self, Got, KEYS, Value};
use crate::solver::Assumptions;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// The profile a scenario's assumptions start from when it names none (as
/// the command line's `--profile`).
pub use crate::catalog::profile::DEFAULT_PROFILE;

/// The `[assumptions]` table as written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssumptionsSection {
    /// A profile id of the catalog; None: "default".
    pub profile: Option<String>,
    /// Assumption keys set over the profile's, as written.
    pub values: BTreeMap<String, Setting>,
}

/// One assumption's value as written: a TOML number or a TOML string.
#[derive(Debug, Clone, PartialEq)]
pub enum Setting {
    Number(f64),
    Text(String),
}

impl Setting {
    /// The value as `catalog::profile::set` reads it.
    pub fn value(&self) -> Value<'_> {
        match self {
            Setting::Number(x) => Value::Number(*x),
            Setting::Text(t) => Value::Text(t),
        }
    }
}

impl AssumptionsSection {
    /// The profile id the assumptions start from.
    pub fn profile_id(&self) -> &str {
        self.profile.as_deref().unwrap_or(DEFAULT_PROFILE)
    }

    /// `base` (the profile's assumptions) with every key of the section set
    /// over it; each problem at its dotted key ("assumptions.overhead").
    pub fn apply(&self, base: &Assumptions) -> (Assumptions, Vec<(String, String)>) {
        let mut a = *base;
        let mut problems = Vec::new();
        for (key, v) in &self.values {
            if let Err(e) = profile::set(&mut a, key, v.value()) {
                problems.push((format!("assumptions.{key}"), e));
            }
        }
        (a, problems)
    }

    /// The section that reads back as `a` over profile `id` whose
    /// assumptions are `base`: the profile and every key that differs.
    pub fn of(id: &str, base: &Assumptions, a: &Assumptions) -> AssumptionsSection {
        let values = KEYS
            .iter()
            .map(|k| (k.key, written(a, k.key)))
            .filter(|(k, v)| *v != written(base, k))
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        AssumptionsSection {
            profile: Some(id.to_string()),
            values,
        }
    }
}

/// The value of assumption `key` of `a`, written as `profile::set` reads
/// it back exactly: times with their unit, the algorithm by name, numbers
/// plain. (The inverse of `set`; a test keeps the two paired key by key.)
pub fn written(a: &Assumptions, key: &str) -> Setting {
    match profile::get(a, key) {
        Some(Got::Seconds(x)) => Setting::Text(exact::time(x)),
        Some(Got::Name(n)) => Setting::Text(n.to_string()),
        Some(Got::Number(x)) => Setting::Number(x),
        None => Setting::Number(f64::NAN),
    }
}

impl Serialize for AssumptionsSection {
    /// The profile, then the keys in the order of `KEYS` (any other key
    /// after them, so that nothing is lost and reading names it).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(p) = &self.profile {
            m.serialize_entry("profile", p)?;
        }
        let known = KEYS.iter().map(|k| k.key);
        let others = self
            .values
            .keys()
            .map(String::as_str)
            .filter(|k| !KEYS.iter().any(|x| x.key == *k));
        for key in known.chain(others) {
            match self.values.get(key) {
                Some(Setting::Number(x)) => m.serialize_entry(key, &Whole(*x))?,
                Some(Setting::Text(t)) => m.serialize_entry(key, t)?,
                None => {}
            }
        }
        m.end()
    }
}

/// A number written whole when it is (`attention_efficiency = 1`).
struct Whole(f64);

impl Serialize for Whole {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        super::number::serialize(&Some(self.0), s)
    }
}

impl<'de> Deserialize<'de> for AssumptionsSection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Section)
    }
}

struct Section;

impl<'de> Visitor<'de> for Section {
    type Value = AssumptionsSection;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table of assumptions")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<AssumptionsSection, M::Error> {
        let mut section = AssumptionsSection::default();
        while let Some(key) = m.next_key::<String>()? {
            if key == "profile" {
                section.profile = Some(m.next_value()?);
            } else if KEYS.iter().any(|k| k.key == key) {
                let v: Setting = m.next_value()?;
                section.values.insert(key, v);
            } else {
                return Err(de::Error::custom(format!("unknown assumption `{key}`")));
            }
        }
        Ok(section)
    }
}

impl<'de> Deserialize<'de> for Setting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SettingVisitor)
    }
}

struct SettingVisitor;

impl Visitor<'_> for SettingVisitor {
    type Value = Setting;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number or a quoted value, like 0.7 or \"10us\"")
    }
    fn visit_i64<E>(self, v: i64) -> Result<Setting, E> {
        Ok(Setting::Number(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Setting, E> {
        Ok(Setting::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Setting, E> {
        Ok(Setting::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Setting, E> {
        Ok(Setting::Text(v.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Accumulate, Collective};
    use proptest::prelude::*;

    /// Assumptions with every field drawn in its range.
    fn any_assumptions() -> impl Strategy<Value = Assumptions> {
        let frac = || 1e-6..=1.0f64;
        let unit = || 0.0..=1.0f64;
        let time = || prop_oneof![Just(0.0), 1e-9..1.0f64];
        (
            (
                frac(),
                frac(),
                frac(),
                frac(),
                frac(),
                frac(),
                frac(),
                frac(),
            ),
            (time(), time(), time(), time(), time(), time()),
            (unit(), unit(), unit(), unit(), unit(), unit()),
            (
                0.0..1e6f64,
                prop::sample::select(Collective::ALL.to_vec()),
                prop::sample::select(Accumulate::ALL.to_vec()),
            ),
        )
            .prop_map(
                |((c, m, l, lp, at, d8, d4, u), (o, k, r, moe, col, ll), u6, (rows, alg, acc))| {
                    let (pco, w, b0, bf, bd, bq) = u6;
                    Assumptions {
                        compute_efficiency: c,
                        memory_efficiency: m,
                        link_efficiency: l,
                        overhead_s: o,
                        link_latency_s: ll,
                        usable_memory: u,
                        overlap: w,
                        kernel_s: k,
                        request_s: r,
                        moe_layer_s: moe,
                        collective_s: col,
                        collective: alg,
                        accumulate: acc,
                        gemm_half_rows: rows,
                        low_precision_efficiency: lp,
                        attention_efficiency: at,
                        dequant_8bit: d8,
                        dequant_4bit: d4,
                        prefill_comm_overlap: pco,
                        band_base: b0,
                        band_fixed: bf,
                        band_devices: bd,
                        band_quantized: bq,
                    }
                },
            )
    }

    proptest! {
        /// `written` and `set` are paired key by key: every key of `b`
        /// written and set over `a` makes `a` equal to `b` (a key written
        /// from the wrong field would leave a field of `a` unequal).
        #[test]
        fn every_key_written_is_read_back_by_set(a in any_assumptions(), b in any_assumptions()) {
            let mut x = a;
            for k in KEYS {
                let w = written(&b, k.key);
                prop_assert!(profile::set(&mut x, k.key, w.value()).is_ok(), "{} {:?}", k.key, w);
            }
            prop_assert_eq!(x, b);
        }

        /// Only the keys that differ from the profile are written, and the
        /// section over the profile reads back equal.
        #[test]
        fn a_section_holds_what_differs_and_reads_back(base in any_assumptions(), a in any_assumptions()) {
            let s = AssumptionsSection::of("vllm", &base, &a);
            prop_assert_eq!(s.profile_id(), "vllm");
            let (back, problems) = s.apply(&base);
            prop_assert!(problems.is_empty(), "{:?}", problems);
            prop_assert_eq!(back, a);
            prop_assert!(AssumptionsSection::of("vllm", &base, &base).values.is_empty());
        }
    }

    #[test]
    fn one_key_changed_is_the_one_key_written() {
        let base = Assumptions::default();
        let a = Assumptions {
            kernel_s: 4e-6,
            ..base
        };
        let s = AssumptionsSection::of("roofline", &base, &a);
        assert_eq!(
            s.values.into_iter().collect::<Vec<_>>(),
            [("kernel_time".to_string(), Setting::Text("4us".into()))]
        );
    }
}
