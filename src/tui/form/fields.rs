//! The fields of the device and region forms: what each one takes, how its
//! text is read (the solver's units for quantities, the catalog's accepted
//! ranges), and what is said when it cannot be: what is wrong and how to fix
//! it, short enough for one row. Pure: no app, no terminal.

use crate::catalog::fields::unprintable;
use crate::catalog::limits::{self, Limit};
use crate::solver::units::{self, Kind};
use crate::solver::{Precision, Tier};

/// One field of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Name,
    Tier,
    Peak(Precision),
    Bandwidth,
    Memory,
    ScaleUp,
    PerNode,
    Tdp,
    Price,
    Grid,
    Pue,
    Electricity,
}

/// The device form's fields, in order.
pub const DEVICE: [What; 16] = [
    What::Name,
    What::Tier,
    What::Peak(Precision::Fp32),
    What::Peak(Precision::Tf32),
    What::Peak(Precision::Bf16),
    What::Peak(Precision::Fp16),
    What::Peak(Precision::Fp8),
    What::Peak(Precision::Int8),
    What::Peak(Precision::Fp4),
    What::Peak(Precision::Int4),
    What::Bandwidth,
    What::Memory,
    What::ScaleUp,
    What::PerNode,
    What::Tdp,
    What::Price,
];

/// The region form's fields, in order.
pub const REGION: [What; 4] = [What::Name, What::Grid, What::Pue, What::Electricity];

/// A field's value once read.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Tier(Tier),
    /// A figure in SI units (FLOP/s, byte/s, bytes, W) or a plain number
    /// (USD/hour, gCO2/kWh, PUE, USD/kWh).
    Number(f64),
    Whole(u32),
    /// Left blank: the field is optional (not supported, none, unknown).
    Blank,
}

impl Value {
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Number(x) => Some(*x),
            _ => None,
        }
    }
}

/// What a field needs to know of the entry beyond its own text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Context {
    /// The shape of the entry's torus, if it has one: devices per node
    /// must stay the devices it holds.
    pub torus: Option<[u32; 3]>,
}

/// The longest name, in characters.
pub const NAME_MAX: usize = 80;

impl What {
    pub fn label(self) -> String {
        match self {
            What::Name => "name".into(),
            What::Tier => "tier".into(),
            What::Peak(p) => format!("peak {}", p.name()),
            What::Bandwidth => "bandwidth".into(),
            What::Memory => "memory".into(),
            What::ScaleUp => "scale-up/dir".into(),
            What::PerNode => "devices/node".into(),
            What::Tdp => "TDP".into(),
            What::Price => "price $/hour".into(),
            What::Grid => "gCO2/kWh".into(),
            What::Pue => "PUE".into(),
            What::Electricity => "price $/kWh".into(),
        }
    }

    /// An example of what it takes.
    pub fn example(self) -> &'static str {
        match self {
            What::Name => "My GPU 48GB",
            What::Tier => "cloud",
            What::Peak(_) => "989 TFLOPS",
            What::Bandwidth => "3.35 TB/s",
            What::Memory => "80 GB",
            What::ScaleUp => "450 GB/s",
            What::PerNode => "8",
            What::Tdp => "700 W",
            What::Price => "2.99",
            What::Grid => "380",
            What::Pue => "1.2",
            What::Electricity => "0.09",
        }
    }

    /// What the field is for, for the line under the form.
    pub fn about(self) -> String {
        match self {
            What::Name => format!("the device's name; a new entry's id is made from it (at most {NAME_MAX} characters)"),
            What::Tier => "cloud, workstation, edge, mobile or tiny: the group it is listed under".into(),
            What::Peak(p) => format!(
                "dense peak at {} (not the 2:4 sparse figure), e.g. 989 TFLOPS or 1979 TOPS; blank: not supported (falls back to a wider format)",
                p.name()
            ),
            What::Bandwidth => "peak memory bandwidth, e.g. 3.35 TB/s, 900 GB/s or 400 Gb/s (bits)".into(),
            What::Memory => "memory capacity, e.g. 80 GB (1e9) or 80 GiB (2^30)".into(),
            What::ScaleUp => "scale-up link per device, PER DIRECTION (half the \"total\" figure), e.g. 450 GB/s; blank: none".into(),
            What::PerNode => "devices the scale-up link joins, 1 to 65536; blank: 1".into(),
            What::Tdp => "thermal design power, e.g. 700 W; blank: unknown (no energy figures)".into(),
            What::Price => "on-demand price of one device in USD per hour, e.g. 2.99; blank: no price".into(),
            What::Grid => "grid carbon intensity in gCO2/kWh, 0 to 5000".into(),
            What::Pue => "data-centre power usage effectiveness, 1 to 10".into(),
            What::Electricity => "electricity price in USD per kWh, 0 to 100".into(),
        }
    }

    /// Whether a blank is accepted.
    pub fn optional(self) -> bool {
        matches!(
            self,
            What::Peak(_) | What::ScaleUp | What::PerNode | What::Tdp | What::Price
        )
    }

    /// What a blank means, shown beside an optional field left blank.
    pub fn blank_means(self) -> &'static str {
        match self {
            What::Peak(_) => "not supported",
            What::ScaleUp => "no scale-up link",
            What::PerNode => "1",
            What::Tdp => "unknown",
            What::Price => "no price",
            _ => "",
        }
    }

    /// Read the field's text. The error says what is wrong and how to fix
    /// it, in a few words.
    pub fn parse(self, text: &str, cx: Context) -> Result<Value, String> {
        let t = text.trim();
        if let Some(c) = unprintable(t) {
            return Err(format!(
                "control character U+{:04X}: type plain text",
                c as u32
            ));
        }
        if t.is_empty() {
            return if self.optional() {
                Ok(Value::Blank)
            } else {
                Err(format!("required, e.g. {}", self.example()))
            };
        }
        match self {
            What::Name => name(t),
            What::Tier => Tier::parse(&t.to_lowercase())
                .map(Value::Tier)
                .ok_or_else(|| "one of cloud, workstation, edge, mobile, tiny".to_string()),
            What::Peak(_) => quantity(self, t, Kind::FlopRate, &limits::FLOP_RATE),
            What::Bandwidth | What::ScaleUp => {
                quantity(self, t, Kind::Bandwidth, &limits::BANDWIDTH)
            }
            What::Memory => quantity(self, t, Kind::Bytes, &limits::MEMORY),
            What::Tdp => quantity(self, t, Kind::Power, &limits::POWER),
            What::PerNode => per_node(t, cx),
            What::Price => number(
                self,
                t,
                &["$/hour", "$/h", "usd/hour", "usd/h", "/hour", "/h"],
                &limits::PER_HOUR_USD,
            ),
            What::Grid => number(self, t, &["gco2e/kwh", "gco2/kwh", "g/kwh"], &limits::GRID),
            What::Pue => number(self, t, &[], &limits::PUE),
            What::Electricity => {
                number(self, t, &["$/kwh", "usd/kwh", "/kwh"], &limits::ELECTRICITY)
            }
        }
    }

    /// A value as the form shows it beside the text.
    pub fn show(self, v: &Value) -> String {
        match (self, v) {
            (_, Value::Blank) => self.blank_means().to_string(),
            (_, Value::Text(s)) => s.clone(),
            (_, Value::Tier(t)) => t.name().to_string(),
            (_, Value::Whole(n)) => n.to_string(),
            (What::Peak(_), Value::Number(x)) => units::format_flops(*x),
            (What::Bandwidth | What::ScaleUp, Value::Number(x)) => units::format_bandwidth(*x),
            (What::Memory, Value::Number(x)) => units::format_bytes(*x),
            (What::Tdp, Value::Number(x)) => units::format_power(*x),
            (What::Price, Value::Number(x)) => format!("{} per hour", units::format_usd(*x)),
            (What::Grid, Value::Number(x)) => format!("{} gCO2/kWh", units::format_number(*x)),
            (What::Electricity, Value::Number(x)) => format!("{}/kWh", usd(*x)),
            (_, Value::Number(x)) => units::format_number(*x),
        }
    }

    /// The text a field opens with for a known value: figures with a unit
    /// that reads back exactly (catalog::write::quantity).
    pub fn text_of(self, v: &Value) -> String {
        use crate::catalog::write::quantity;
        match (self, v) {
            (_, Value::Blank) => String::new(),
            (_, Value::Text(s)) => s.clone(),
            (_, Value::Tier(t)) => t.name().to_string(),
            (_, Value::Whole(n)) => n.to_string(),
            (What::Peak(_), Value::Number(x)) => quantity(*x, Kind::FlopRate),
            (What::Bandwidth | What::ScaleUp, Value::Number(x)) => quantity(*x, Kind::Bandwidth),
            (What::Memory, Value::Number(x)) => quantity(*x, Kind::Bytes),
            (What::Tdp, Value::Number(x)) => quantity(*x, Kind::Power),
            (_, Value::Number(x)) => x.to_string(),
        }
    }
}

/// USD with the digits a price per kWh needs ($0.0912, not $0.09).
fn usd(x: f64) -> String {
    if x >= 1.0 || x == 0.0 {
        units::format_usd(x)
    } else {
        format!("${}", units::format_number(x))
    }
}

/// A name: printable (checked before), not too long, with a letter or
/// digit to make an id from.
fn name(t: &str) -> Result<Value, String> {
    let n = t.chars().count();
    if n > NAME_MAX {
        return Err(format!("{n} characters: at most {NAME_MAX}"));
    }
    if kebab(t).is_empty() {
        return Err("needs an ASCII letter or digit (the id is made from it)".into());
    }
    Ok(Value::Text(t.to_string()))
}

/// The id a name makes: lower-case letters, digits and dots, the rest
/// runs of one hyphen ("NVIDIA H100 (mine)" -> "nvidia-h100-mine"), at most
/// 40 characters.
pub fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out: String = out.chars().take(40).collect();
    while out.ends_with('-') || out.ends_with('.') {
        out.pop();
    }
    out
}

/// The names of the kinds of quantity, to say which one was typed.
fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::FlopRate => "a FLOP rate",
        Kind::Bandwidth => "a bandwidth",
        Kind::Bytes => "a size",
        Kind::Power => "a power",
        Kind::Time => "a time",
        _ => "a number",
    }
}

/// A quantity of `kind` above zero and within `limit`.
fn quantity(what: What, t: &str, kind: Kind, limit: &Limit) -> Result<Value, String> {
    let ex = what.example();
    let v = match units::parse(t, kind) {
        Ok(v) => v,
        Err(e) => {
            // Typed as another kind of quantity ("80 GB" for a bandwidth)?
            let other = [
                Kind::FlopRate,
                Kind::Bandwidth,
                Kind::Bytes,
                Kind::Power,
                Kind::Time,
            ]
            .into_iter()
            .find(|k| *k != kind && units::parse(t, *k).is_ok_and(|x| x != 0.0));
            return Err(match other {
                Some(k) => format!(
                    "that is {}, not {}: e.g. {ex}",
                    kind_name(k),
                    kind_name(kind)
                ),
                None if e.reason == "no number found" => format!("not a number: e.g. {ex}"),
                None if e.reason == "a unit is needed" => format!("needs a unit: e.g. {ex}"),
                None if e.reason.contains("finite") || e.reason.contains("too large") => {
                    format!("out of range: {}", limit.text.replace('"', ""))
                }
                None => format!("{}: e.g. {ex}", e.reason),
            });
        }
    };
    checked(what, v, limit)
}

/// Above zero (zero only where the range starts at it) and within range.
fn checked(what: What, v: f64, limit: &Limit) -> Result<Value, String> {
    let zero_ok = *limit.range.start() == 0.0;
    if v < 0.0 {
        return Err(format!("negative: must be {}", above(limit)));
    }
    if v == 0.0 && !zero_ok {
        return Err(if what.optional() {
            "zero: leave it blank for none".to_string()
        } else {
            format!("zero: must be {}", above(limit))
        });
    }
    if !limit.range.contains(&v) {
        return Err(format!("out of range: {}", limit.text.replace('"', "")));
    }
    Ok(Value::Number(v))
}

fn above(limit: &Limit) -> String {
    format!("from {}", limit.text.replace('"', ""))
}

/// A plain number, with an optional leading `$` and one of `suffixes`
/// (compared without case or spaces).
fn number(what: What, t: &str, suffixes: &[&str], limit: &Limit) -> Result<Value, String> {
    let ex = what.example();
    let squeezed: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let lower = squeezed.to_lowercase();
    let mut body = lower.as_str();
    if let Some(s) = suffixes.iter().find(|s| body.ends_with(*s)) {
        body = &body[..body.len() - s.len()];
    }
    if !suffixes.is_empty() {
        body = body.strip_prefix('$').unwrap_or(body);
    }
    if body.is_empty() {
        return Err(format!("not a number: e.g. {ex}"));
    }
    let v: f64 = match body.parse() {
        Ok(v) => v,
        Err(_) if body.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '-') => {
            return Err(format!("a plain number, no unit: e.g. {ex}"));
        }
        Err(_) => return Err(format!("not a number: e.g. {ex}")),
    };
    if v.is_nan() {
        return Err(format!("not a number: e.g. {ex}"));
    }
    if v.is_infinite() {
        return Err(format!("out of range: {}", limit.text));
    }
    checked(what, v, limit)
}

/// Devices per node: a whole number in range, the torus's count if the
/// device has one.
fn per_node(t: &str, cx: Context) -> Result<Value, String> {
    let (lo, hi) = (
        *limits::DEVICES_PER_NODE.start(),
        *limits::DEVICES_PER_NODE.end(),
    );
    let n: u32 = match t.parse::<i64>() {
        Ok(n) if n < lo as i64 => return Err(format!("at least {lo}")),
        Ok(n) if n > hi as i64 => return Err(format!("at most {hi}")),
        Ok(n) => n as u32,
        Err(_) => return Err("a whole number, e.g. 8".to_string()),
    };
    match cx.torus {
        Some(dims) => {
            let chips: u64 = dims.iter().map(|&d| d as u64).product();
            if n as u64 == chips {
                Ok(Value::Whole(n))
            } else {
                let shape = crate::solver::Torus::shape_of(&dims);
                Err(format!("its {shape} torus holds {chips}: keep {chips}"))
            }
        }
        None => Ok(Value::Whole(n)),
    }
}
