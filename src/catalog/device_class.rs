//! Device classes: values a profile carries for one kind of device
//! (`[profile.class.NAME]`), so a stack whose kernels reach very different
//! shares of the catalog's figures on GPUs with HBM, GPUs with GDDR and
//! Apple silicon is not one average of them. The class of a device is
//! derived from its catalog entry (vendor, memory type, tier); the class values
//! are resolved here, where a device and a profile meet, and the solver
//! only ever sees one set of assumptions.

use super::HardwareEntry;
use super::fields::Fields;
use super::profile::{self, ProfileEntry};
use crate::solver::{Assumptions, Tier};

/// A kind of device a profile may carry its own values for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeviceClass {
    /// NVIDIA and AMD GPUs with HBM (`memory_type` HBM2, HBM2e, HBM3,
    /// HBM3e): A100, H100, H200, B200, MI300X.
    Hbm,
    /// NVIDIA and AMD GPUs with GDDR (`memory_type` GDDR6, GDDR6X, GDDR7):
    /// GeForce and Radeon cards, professional workstation cards, and the
    /// inference cards (L4, L40S). Wide, shallow memory that small kernels
    /// saturate more easily than HBM, and one Ada die in the GeForce and the
    /// professional cards alike.
    Gddr,
    /// Apple silicon (vendor Apple): unified memory, Metal kernels.
    Apple,
}

impl DeviceClass {
    pub const ALL: [DeviceClass; 3] = [DeviceClass::Hbm, DeviceClass::Gddr, DeviceClass::Apple];

    pub fn name(self) -> &'static str {
        match self {
            DeviceClass::Hbm => "hbm",
            DeviceClass::Gddr => "gddr",
            DeviceClass::Apple => "apple",
        }
    }

    /// Which devices are in the class, in words (for `zoo profiles` and
    /// the schema).
    pub fn help(self) -> &'static str {
        match self {
            DeviceClass::Hbm => "NVIDIA and AMD GPUs with HBM (memory_type HBM...)",
            DeviceClass::Gddr => "NVIDIA and AMD GPUs with GDDR (memory_type GDDR...)",
            DeviceClass::Apple => "Apple silicon (vendor Apple)",
        }
    }

    pub fn parse(s: &str) -> Option<DeviceClass> {
        DeviceClass::ALL.into_iter().find(|c| c.name() == s.trim())
    }

    /// The class of a device from its entry; None for a device in no
    /// class (a TPU, an accelerator, a CPU, an edge or mobile GPU, a GPU
    /// whose entry gives no `memory_type`), which gets a profile's base
    /// values.
    pub fn of(e: &HardwareEntry) -> Option<DeviceClass> {
        let vendor = e.vendor.trim();
        if vendor.eq_ignore_ascii_case("apple") {
            return Some(DeviceClass::Apple);
        }
        let gpu_vendor =
            vendor.eq_ignore_ascii_case("nvidia") || vendor.eq_ignore_ascii_case("amd");
        if !gpu_vendor || !matches!(e.hw.tier, Tier::Cloud | Tier::Workstation) {
            return None;
        }
        let memory = e.memory_type.as_deref()?.trim().to_ascii_uppercase();
        if memory.starts_with("HBM") {
            Some(DeviceClass::Hbm)
        } else if memory.starts_with("GDDR") {
            Some(DeviceClass::Gddr)
        } else {
            None
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

impl Resolved {
    /// Assumptions used as they are, for no device class.
    pub fn base(assumptions: Assumptions) -> Resolved {
        Resolved {
            assumptions,
            class: None,
        }
    }
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
    if a.accumulate != old.accumulate {
        out.accumulate = a.accumulate;
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

#[cfg(test)]
mod tests {
    use super::super::{Catalog, List};
    use super::*;

    const HEAD: &str = "[[profile]]\nid = \"mine\"\nname = \"Mine\"\nyear = 2026\nsource = \"me\"\ncompute_efficiency = 0.7\nmemory_efficiency = 0.8\n";

    /// A catalog of the built-in entries plus one profile file.
    fn with(text: &str) -> Catalog {
        let mut c = Catalog::builtin();
        c.add_file("mine.toml", text, List::Profiles);
        c
    }

    fn said(c: &Catalog) -> String {
        let d: Vec<String> = c.diagnostics.iter().map(|d| d.to_string()).collect();
        d.join("\n")
    }

    #[test]
    fn a_class_table_lays_its_keys_over_the_base_values() {
        let c = with(&format!(
            "{HEAD}[profile.class.hbm]\nfitted_keys = \"compute_efficiency\"\ncompute_efficiency = 0.3\n[profile.class.apple]\nkernel_time = \"20 us\"\n"
        ));
        assert!(c.diagnostics.is_empty(), "{}", said(&c));
        let p = c.profile("mine").unwrap();
        assert_eq!(p.assumptions.compute_efficiency, 0.7);
        let dc = p.class(DeviceClass::Hbm).unwrap();
        assert_eq!(dc.keys, ["compute_efficiency"]);
        assert_eq!(dc.fitted_keys, ["compute_efficiency"]);
        // Only the key it sets differs from the base.
        let want = Assumptions {
            compute_efficiency: 0.3,
            ..p.assumptions
        };
        assert_eq!(dc.assumptions, want);
        let apple = p.class(DeviceClass::Apple).unwrap();
        assert_eq!(apple.assumptions.kernel_s, 20e-6);
        assert_eq!(apple.assumptions.memory_efficiency, 0.8);
        assert!(apple.fitted_keys.is_empty());
        assert!(p.class(DeviceClass::Gddr).is_none());
        // On devices: an A100 the HBM values, an M2 Ultra Apple's, an RTX
        // 4090 (GDDR, not named) and a TPU (no class) the base.
        let on = |id: &str| p.on(c.hardware(id).unwrap());
        assert_eq!(on("a100").assumptions, dc.assumptions);
        assert_eq!(on("a100").class, Some(DeviceClass::Hbm));
        assert_eq!(on("m2-ultra").assumptions, apple.assumptions);
        assert_eq!(on("rtx-4090").class, None);
        assert_eq!(on("rtx-4090").assumptions, p.assumptions);
        assert_eq!(on("tpu-v5e").assumptions, p.assumptions);
    }

    #[test]
    fn each_bad_class_table_is_reported_at_its_place() {
        let cases = [
            (
                "[profile.class.tpu]\ncompute_efficiency = 0.3\n",
                "unknown device class `tpu`; use one of hbm, gddr, apple",
            ),
            (
                "[profile.class.apple]\ncompute_eficiency = 0.3\n",
                "unknown field `compute_eficiency`; did you mean `compute_efficiency`?",
            ),
            (
                "[profile.class.apple]\ncompute_efficiency = 1.5\n",
                "compute_efficiency = 1.5 is out of range",
            ),
            (
                "[profile.class.apple]\nkernel_time = 5\n",
                "kernel_time takes a time with its unit",
            ),
            ("[profile.class.apple]\n", "sets no assumption"),
            ("class = 3\n", "`class` must hold tables"),
            (
                "[profile.class]\napple = 3\n",
                "`class.apple` must be a table",
            ),
            (
                "[profile.class.apple]\nfitted_keys = \"memory_efficiency\"\ncompute_efficiency = 0.3\n",
                "fitted_keys names memory_efficiency, which the class does not set",
            ),
            (
                "[profile.class.apple]\nfitted_keys = \"eta\"\ncompute_efficiency = 0.3\n",
                "fitted_keys: eta is not an assumption key",
            ),
        ];
        for (table, want) in cases {
            let text = format!("{HEAD}{table}");
            let c = with(&text);
            let s = said(&c);
            assert!(s.contains(want), "{table}: {s}");
            // The message names the file and a line of the profile.
            assert!(s.starts_with("mine.toml:"), "{s}");
            // A bad profile is not loaded.
            assert!(c.profile("mine").is_err(), "{table}");
        }
    }

    #[test]
    fn devices_fall_in_classes_by_vendor_memory_and_tier() {
        let c = Catalog::builtin();
        let class = |id: &str| DeviceClass::of(c.hardware(id).unwrap());
        for id in [
            "v100-sxm2-32gb",
            "a100-sxm-80gb",
            "a100-pcie-80gb",
            "h100-pcie",
            "h200-sxm",
            "b200",
            "mi300x",
        ] {
            assert_eq!(class(id), Some(DeviceClass::Hbm), "{id}");
        }
        // GDDR whatever the market: inference, workstation and GeForce
        // cards alike.
        for id in ["t4", "l4", "l40s", "rtx-6000-ada", "rtx-4090", "rtx-5090"] {
            assert_eq!(class(id), Some(DeviceClass::Gddr), "{id}");
        }
        assert_eq!(class("m2-ultra"), Some(DeviceClass::Apple));
        assert_eq!(class("m3-max"), Some(DeviceClass::Apple));
        // HBM but no NVIDIA or AMD GPU, or a GPU on the edge: no class.
        for id in [
            "tpu-v5e",
            "gaudi-3",
            "trainium2",
            "raspberry-pi-5-8gb",
            "jetson-agx-orin-64gb",
        ] {
            assert_eq!(class(id), None, "{id}");
        }
        // Every NVIDIA and AMD GPU of the built-in catalog says its memory,
        // so none falls out of the classes by omission.
        for e in &c.hardware {
            let gpu = ["nvidia", "amd"].contains(&e.vendor.to_ascii_lowercase().as_str())
                && matches!(e.hw.tier, Tier::Cloud | Tier::Workstation);
            if gpu {
                assert!(e.memory_type.is_some(), "{}", e.hw.id);
                assert!(DeviceClass::of(e).is_some(), "{}", e.hw.id);
            }
        }
        // A GPU whose entry gives no memory type is in no class.
        let mut e = c.hardware("a100-sxm-80gb").unwrap().clone();
        e.memory_type = None;
        assert_eq!(DeviceClass::of(&e), None);
        for k in DeviceClass::ALL {
            assert_eq!(DeviceClass::parse(k.name()), Some(k));
        }
    }

    #[test]
    fn a_profile_without_classes_gives_every_device_its_base_values() {
        let c = Catalog::builtin();
        let p = c.profile("default").unwrap();
        assert!(p.classes.is_empty());
        for e in &c.hardware {
            assert_eq!(p.on(e).assumptions, p.assumptions, "{}", e.hw.id);
            assert_eq!(p.on(e).class, None);
        }
    }

    #[test]
    fn a_rebase_keeps_what_the_user_changed_and_moves_the_rest() {
        let old = Assumptions {
            compute_efficiency: 0.7,
            memory_efficiency: 0.8,
            ..Assumptions::default()
        };
        let new = Assumptions {
            compute_efficiency: 0.3,
            memory_efficiency: 0.9,
            ..old
        };
        // The user set memory efficiency to 0.5; compute was the profile's.
        let a = Assumptions {
            memory_efficiency: 0.5,
            ..old
        };
        let r = rebase(&a, &old, &new);
        assert_eq!(r.compute_efficiency, 0.3);
        assert_eq!(r.memory_efficiency, 0.5);
        assert_eq!(rebase(&old, &old, &new), new);
    }
}
