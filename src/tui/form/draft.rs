//! The entry a form makes: a blank one to start from, the value of each
//! field in an entry, and the entry built from the fields (the last valid
//! value of each), with the sources and price of a copy kept where its
//! figures did not change.

use super::{Base, Form, Purpose, Value, What};
use crate::catalog::{HardwareEntry, Price, Region};
use crate::solver::{Hardware, Peaks, Precision, Tier};
use std::collections::BTreeMap;

/// The year and month now, from the system clock (UTC).
pub(super) fn today() -> (u16, u8) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil((secs / 86_400) as i64)
}

/// The (year, month) of a day counted from 1970-01-01.
pub(super) fn civil(days: i64) -> (u16, u8) {
    let (y, m, _) = crate::probe::entry::civil_date(days);
    (y.clamp(1940, 2100) as u16, m)
}

/// The source of an entry typed in the workbench.
pub const USER_SOURCE: &str = "user entry (typed in the ridgeline workbench)";

pub(super) fn blank_device(year: u16) -> HardwareEntry {
    HardwareEntry {
        hw: Hardware {
            id: String::new(),
            name: String::new(),
            tier: Tier::Cloud,
            year,
            peaks: Peaks::default(),
            memory_bytes: 0.0,
            memory_bandwidth: 0.0,
            link_bandwidth: None,
            devices_per_node: 1,
            scaleout_bandwidth: None,
            host_bandwidth: None,
            torus: None,
            tdp_w: None,
            price_per_hour_usd: None,
            matmul: Peaks::default(),
        },
        aliases: Vec::new(),
        vendor: "user".into(),
        family: None,
        memory_type: None,
        source: USER_SOURCE.into(),
        sources: BTreeMap::new(),
        notes: None,
        price: None,
        caches: Vec::new(),
        origin: String::new(),
    }
}

pub(super) fn blank_region(year: u16) -> Region {
    Region {
        id: String::new(),
        name: String::new(),
        grid_gco2_per_kwh: 0.0,
        pue: 0.0,
        electricity_usd_per_kwh: 0.0,
        year,
        source: USER_SOURCE.into(),
        notes: None,
        sources: BTreeMap::new(),
        origin: String::new(),
    }
}

/// The value a field has in an entry.
pub(super) fn value_of(base: &Base, what: What) -> Value {
    let num = |x: Option<f64>| x.filter(|v| *v > 0.0).map_or(Value::Blank, Value::Number);
    match (base, what) {
        (Base::Device(e), What::Name) => Value::Text(e.hw.name.clone()),
        (Base::Region(r), What::Name) => Value::Text(r.name.clone()),
        (Base::Device(e), What::Tier) => Value::Tier(e.hw.tier),
        (Base::Device(e), What::Peak(p)) => num(e.hw.peaks.get(p)),
        (Base::Device(e), What::Bandwidth) => num(Some(e.hw.memory_bandwidth)),
        (Base::Device(e), What::Memory) => num(Some(e.hw.memory_bytes)),
        (Base::Device(e), What::ScaleUp) => num(e.hw.link_bandwidth),
        (Base::Device(e), What::PerNode) => Value::Whole(e.hw.devices_per_node),
        (Base::Device(e), What::Tdp) => num(e.hw.tdp_w),
        (Base::Device(e), What::Price) => num(e.hw.price_per_hour_usd),
        (Base::Region(r), What::Grid) => Value::Number(r.grid_gco2_per_kwh),
        (Base::Region(r), What::Pue) => Value::Number(r.pue),
        (Base::Region(r), What::Electricity) => Value::Number(r.electricity_usd_per_kwh),
        _ => Value::Blank,
    }
}

impl Form {
    /// The entry as the fields have it (the last valid value of each).
    pub fn draft(&self) -> Base {
        match &self.base {
            Base::Device(b) => Base::Device(Box::new(self.device(b))),
            Base::Region(b) => Base::Region(self.region(b)),
        }
    }

    fn number(&self, what: What) -> Option<f64> {
        self.value(what).and_then(Value::number)
    }

    fn device(&self, b: &HardwareEntry) -> HardwareEntry {
        let mut e = b.clone();
        let hw = &mut e.hw;
        hw.id = self.id.clone();
        if let Some(Value::Text(n)) = self.value(What::Name) {
            hw.name = n.clone();
        }
        if let Some(Value::Tier(t)) = self.value(What::Tier) {
            hw.tier = *t;
        }
        for p in Precision::ALL {
            hw.peaks.set(p, self.number(What::Peak(p)));
            // A measured matmul ceiling belongs to the peak it was measured
            // against: a changed peak drops it.
            if hw.peaks.get(p) != b.hw.peaks.get(p) {
                hw.matmul.set(p, None);
            }
        }
        // So does the FP16-accumulate rate its fp16 peak: a copy of an RTX
        // 4090 given another fp16 figure would otherwise be saved with a
        // rate the catalog refuses (below fp16, or with no fp16).
        if hw.peaks.fp16 != b.hw.peaks.fp16 {
            hw.peaks.fp16_acc16 = None;
        }
        hw.memory_bandwidth = self.number(What::Bandwidth).unwrap_or(0.0);
        hw.memory_bytes = self.number(What::Memory).unwrap_or(0.0);
        hw.link_bandwidth = self.number(What::ScaleUp);
        hw.devices_per_node = match self.value(What::PerNode) {
            Some(Value::Whole(n)) => *n,
            _ => 1,
        };
        hw.tdp_w = self.number(What::Tdp);
        hw.price_per_hour_usd = self.number(What::Price);
        e.price = self.price(b);
        if let Purpose::Copy(of) = &self.purpose {
            e.aliases.clear();
            e.notes = None;
            e.origin = String::new();
            e.sources = kept_sources(b, &e);
            e.source = format!("user entry (typed in the ridgeline workbench), edited from {of}");
        }
        e
    }

    /// The price table: the base's while the price per hour is unchanged,
    /// else the new figure "as of" this month (a purchase price stays, with
    /// its source named).
    fn price(&self, b: &HardwareEntry) -> Option<Price> {
        let hour = self.number(What::Price);
        if hour == b.hw.price_per_hour_usd {
            return b.price.clone();
        }
        let purchase = b
            .price
            .as_ref()
            .and_then(|p| p.purchase_usd.map(|x| (x, &p.source)));
        if hour.is_none() && purchase.is_none() {
            return None;
        }
        Some(Price {
            per_hour_usd: hour,
            purchase_usd: purchase.map(|(x, _)| x),
            as_of: self.month.clone(),
            source: match purchase {
                Some((_, s)) => format!("{USER_SOURCE}; purchase price: {s}"),
                None => USER_SOURCE.into(),
            },
        })
    }

    fn region(&self, b: &Region) -> Region {
        let mut r = b.clone();
        r.id = self.id.clone();
        if let Some(Value::Text(n)) = self.value(What::Name) {
            r.name = n.clone();
        }
        r.grid_gco2_per_kwh = self.number(What::Grid).unwrap_or(b.grid_gco2_per_kwh);
        r.pue = self.number(What::Pue).unwrap_or(b.pue);
        r.electricity_usd_per_kwh = self
            .number(What::Electricity)
            .unwrap_or(b.electricity_usd_per_kwh);
        if let Purpose::Copy(of) = &self.purpose {
            r.notes = None;
            r.origin = String::new();
            let mut s = BTreeMap::new();
            for (k, old, new) in [
                (
                    "grid_gco2_per_kwh",
                    b.grid_gco2_per_kwh,
                    r.grid_gco2_per_kwh,
                ),
                ("pue", b.pue, r.pue),
                (
                    "electricity_usd_per_kwh",
                    b.electricity_usd_per_kwh,
                    r.electricity_usd_per_kwh,
                ),
            ] {
                if old == new {
                    s.insert(k.to_string(), b.sources.get(k).unwrap_or(&b.source).clone());
                }
            }
            r.sources = s;
            r.source = format!("user entry (typed in the ridgeline workbench), edited from {of}");
        }
        r
    }
}

/// The sources of a copy: each figure left as it was keeps the source it
/// had; a changed one has none but the entry's (the user's).
fn kept_sources(b: &HardwareEntry, e: &HardwareEntry) -> BTreeMap<String, String> {
    let (o, n) = (&b.hw, &e.hw);
    let same = [
        ("peak", o.peaks == n.peaks),
        ("memory_bandwidth", o.memory_bandwidth == n.memory_bandwidth),
        ("memory", o.memory_bytes == n.memory_bytes),
        (
            "interconnect",
            o.link_bandwidth == n.link_bandwidth && o.devices_per_node == n.devices_per_node,
        ),
        ("tdp", o.tdp_w == n.tdp_w),
    ];
    same.iter()
        .filter(|(_, s)| *s)
        .map(|(k, _)| (k.to_string(), b.source_of(k).to_string()))
        .collect()
}
