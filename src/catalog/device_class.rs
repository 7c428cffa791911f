//! Device classes: values a profile carries for one kind of device
//! (`[profile.class.NAME]`), so a stack whose kernels reach very different
//! shares of the catalog's peaks on datacenter GPUs, consumer GPUs and
//! Apple silicon is not one average of them. The class of a device is
//! derived from its catalog entry (vendor, family, tier); the class values
//! are resolved here, where a device and a profile meet, and the solver
//! only ever sees one set of assumptions.

use super::HardwareEntry;
use super::fields::Fields;
use super::profile::{self, ProfileEntry};
use crate::solver::{Assumptions, Tier};

/// A kind of device a profile may carry its own values for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeviceClass {
    /// NVIDIA and AMD GPUs of tier `cloud`, and professional workstation
    /// cards (not GeForce or Radeon): their catalog tensor peaks are the
    /// full-rate FP32-accumulate figures.
    Datacenter,
    /// GeForce and Radeon cards (family `nvidia-geforce`, `amd-radeon`):
    /// their catalog tensor peaks are the halved FP32-accumulate figures.
    Consumer,
    /// Apple silicon (vendor Apple): unified memory, Metal kernels.
    Apple,
}

impl DeviceClass {
    pub const ALL: [DeviceClass; 3] = [
        DeviceClass::Datacenter,
        DeviceClass::Consumer,
        DeviceClass::Apple,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DeviceClass::Datacenter => "datacenter",
            DeviceClass::Consumer => "consumer",
            DeviceClass::Apple => "apple",
        }
    }

    /// Which devices are in the class, in words (for `zoo profiles` and
    /// the schema).
    pub fn help(self) -> &'static str {
        match self {
            DeviceClass::Datacenter => {
                "NVIDIA and AMD GPUs of tier cloud, and professional workstation cards"
            }
            DeviceClass::Consumer => "GeForce and Radeon cards (family nvidia-geforce, amd-radeon)",
            DeviceClass::Apple => "Apple silicon (vendor Apple)",
        }
    }

    pub fn parse(s: &str) -> Option<DeviceClass> {
        DeviceClass::ALL.into_iter().find(|c| c.name() == s.trim())
    }

    /// The class of a device from its entry; None for a device in no
    /// class (a TPU, an accelerator, a CPU, an edge or mobile GPU), which
    /// gets a profile's base values.
    pub fn of(e: &HardwareEntry) -> Option<DeviceClass> {
        let vendor = e.vendor.trim();
        let family = e.family.as_deref().unwrap_or("");
        if vendor.eq_ignore_ascii_case("apple") {
            return Some(DeviceClass::Apple);
        }
        let gpu_vendor = vendor.eq_ignore_ascii_case("nvidia") || vendor.eq_ignore_ascii_case("amd");
        if !gpu_vendor {
            return None;
        }
        if family.starts_with("nvidia-geforce") || family.starts_with("amd-radeon") {
            return Some(DeviceClass::Consumer);
        }
        match e.hw.tier {
            Tier::Cloud | Tier::Workstation => Some(DeviceClass::Datacenter),
            Tier::Edge | Tier::Mobile | Tier::Tiny => None,
        }
    }
}

/// A profile's values for one device class: its base values with the
/// class table's keys laid over them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassValues {
    pub class: DeviceClass,
    pub assumptions: Assumptions,
    /// The keys the class table sets, in [`profile::KEYS`] order.
    pub keys: Vec<&'static str>,
    /// The keys examples/calibrate.rs fitted for the class (`fitted_keys`
    /// of the class table), which `ridgeline validate` refits without each
    /// source; empty for values set by hand.
    pub fitted_keys: Vec<String>,
}

/// A profile's assumptions for one device: the class's values when the
/// profile names the device's class, else its base values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resolved {
    pub assumptions: Assumptions,
    /// The class whose values were used; None for the base values.
    pub class: Option<DeviceClass>,
}

impl ProfileEntry {
    /// The values of class `class`, if the profile names it.
    pub fn class(&self, class: DeviceClass) -> Option<&ClassValues> {
        self.classes.iter().find(|c| c.class == class)
    }

    /// The assumptions this profile gives device `e`.
    pub fn on(&self, e: &HardwareEntry) -> Resolved {
        match DeviceClass::of(e).and_then(|c| self.class(c)) {
            Some(c) => Resolved {
                assumptions: c.assumptions,
                class: Some(c.class),
            },
            None => Resolved {
                assumptions: self.assumptions,
                class: None,
            },
        }
    }
}

/// Keys a `[profile.class.NAME]` table may hold.
fn class_keys() -> &'static [&'static str] {
    static ALL: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        std::iter::once("fitted_keys")
            .chain(profile::KEYS.iter().map(|k| k.key))
            .collect()
    });
    &ALL
}

/// `[profile.class.NAME]` tables: each a known class, each setting at
/// least one assumption key over `base`.
pub(super) fn classes(f: &mut Fields, base: &Assumptions) -> Vec<ClassValues> {
    let Some(v) = f.value("class") else {
        return Vec::new();
    };
    let names = || {
        DeviceClass::ALL
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(t) = v.get_ref().as_table() else {
        f.problem(
            v.span().start,
            format!(
                "`class` must hold tables: [profile.class.NAME] with NAME one of {}",
                names()
            ),
        );
        return Vec::new();
    };
    let mut out: Vec<ClassValues> = Vec::new();
    for (k, val) in t.iter() {
        let at = k.span().start;
        let Some(class) = DeviceClass::parse(k.get_ref()) else {
            f.problem(
                at,
                format!(
                    "unknown device class `{}`; use one of {}",
                    super::fields::printable(k.get_ref()),
                    names()
                ),
            );
            continue;
        };
        let Some(table) = val.get_ref().as_table() else {
            f.problem(
                val.span().start,
                format!(
                    "`class.{}` must be a table: [profile.class.{}]",
                    class.name(),
                    class.name()
                ),
            );
            continue;
        };
        let mut sub = f.nested(table, val.span().start, class_keys());
        sub.rename(format!("[profile.class.{}]", class.name()));
        let mut a = *base;
        let keys = profile::read_keys(&mut sub, &mut a);
        let fitted = sub
            .opt_string("fitted_keys")
            .map(|(s, at)| profile::key_list(&mut sub, &s, at))
            .unwrap_or_default();
        if keys.is_empty() {
            sub.problem(
                val.span().start,
                "sets no assumption; give at least one key (see `ridgeline zoo profiles`) or remove the table",
            );
        }
        for k in &fitted {
            if !keys.contains(&k.as_str()) {
                sub.problem(
                    val.span().start,
                    format!("fitted_keys names {k}, which the class does not set"),
                );
            }
        }
        let ok = !sub.has_problems();
        f.absorb(sub);
        if ok {
            out.push(ClassValues {
                class,
                assumptions: a,
                keys,
                fitted_keys: fitted,
            });
        }
    }
    out.sort_by_key(|c| c.class);
    out
}

/// Values kept where `a` departs from `old`, the rest from `new`: a
/// profile's values moved to another device class while the values a
/// user changed stay as they set them.
pub fn rebase(a: &Assumptions, old: &Assumptions, new: &Assumptions) -> Assumptions {
    let mut out = *new;
    if a.collective != old.collective {
        out.collective = a.collective;
    }
    for k in profile::KEYS {
        let (mut a, mut old) = (*a, *old);
        let (Some(x), Some(o)) = (
            profile::number_mut(&mut a, k.key).map(|x| *x),
            profile::number_mut(&mut old, k.key).map(|x| *x),
        ) else {
            continue;
        };
        if x != o
            && let Some(slot) = profile::number_mut(&mut out, k.key)
        {
            *slot = x;
        }
    }
    out
}
