//! The profile knob (every assumption at once, from a calibration profile of
//! the catalog) and the stepping of the fixed-time knobs.

use super::{Inputs, Profile};
use crate::catalog::device_class::DeviceClass;
use crate::solver::Assumptions;

/// What the profile knob shows: the id, with the device class whose
/// values it uses ("llama.cpp (apple)"), and a `*` once another knob has
/// changed an assumption of it ("default*").
pub fn shown(p: &Profile, a: &Assumptions) -> String {
    let name = match p.class {
        Some(k) => format!("{} ({})", p.id, k.name()),
        None => p.id.clone(),
    };
    if *a == p.base {
        name
    } else {
        format!("{name}*")
    }
}

/// A profile's name as typed, without the class [`shown`] adds:
/// "llama.cpp (apple)" is "llama.cpp".
fn without_class(t: &str) -> &str {
    match t.trim().strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((id, class)) if DeviceClass::parse(class).is_some() => id.trim(),
        _ => t.trim(),
    }
}

/// The next (or previous) profile of the catalog after `id`, wrapping.
pub fn step<'a>(profiles: &'a [Profile], id: &str, up: bool) -> Option<&'a Profile> {
    let n = profiles.len();
    if n == 0 {
        return None;
    }
    let j = match (profiles.iter().position(|p| p.id == id), up) {
        (None, _) => 0,
        (Some(i), true) => (i + 1) % n,
        (Some(i), false) => (i + n - 1) % n,
    };
    profiles.get(j)
}

/// The profile typed: an id of the catalog (any case), or None for the
/// current one shown modified ("default*" read back keeps the changes).
pub fn parse<'a>(
    t: &str,
    i: &Inputs,
    profiles: &'a [Profile],
) -> Result<Option<&'a Profile>, String> {
    let t = t.trim();
    if let Some(id) = t.strip_suffix('*')
        && without_class(id).eq_ignore_ascii_case(&i.profile.id)
    {
        return Ok(None);
    }
    let t = without_class(t);
    profiles
        .iter()
        .find(|p| p.id.eq_ignore_ascii_case(t))
        .map(Some)
        .ok_or_else(|| {
            let ids: Vec<&str> = profiles.iter().map(|p| p.id.as_str()).collect();
            format!("no profile {t:?}; use one of {}", ids.join(", "))
        })
}

/// A fixed time stepped: doubled or halved, from 0 up to 1 us and below
/// 1 us down to 0, at most 1 s.
pub fn step_time(x: f64, up: bool) -> f64 {
    match (up, x) {
        (true, x) if x <= 0.0 => 1e-6,
        (true, x) => (x * 2.0).min(1.0),
        (false, x) if x <= 1e-6 => 0.0,
        (false, x) => x / 2.0,
    }
}
