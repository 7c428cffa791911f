//! Calibration profiles and error bands in the workbench: it starts on the
//! command line's profile, the profile knob sets every assumption live, and
//! the headline and the Serving view write each figure's band, read back
//! from the screen within the rounding of its two digits.

use ridgeline::solver::units;
use ridgeline::tui::knobs::Knob;
use ridgeline::tui::views::{View, ViewData};
use ridgeline::tui::{App, Command, Pane};

mod common;
use common::{app, go, screen};

fn select_knob(a: &mut App, k: Knob) {
    a.focus = Pane::Knobs;
    a.knob = a.knobs().iter().position(|x| *x == k).expect("knob");
}

/// The band written after `figure` on the screen: "(lo-hi)", as numbers.
fn band_after(screen: &str, figure: &str) -> Option<(f64, f64)> {
    let at = screen.find(&format!("{figure} ("))? + figure.len() + 2;
    let inner = &screen[at..at + screen[at..].find(')')?];
    let (lo, hi) = inner.split_once('-')?;
    Some((lo.parse().ok()?, hi.parse().ok()?))
}

/// Two significant digits (whole digits kept): the ends are within half a
/// unit of their last digit of the solver's.
fn close(shown: f64, exact: f64) -> bool {
    let decimals = (1 - exact.log10().floor() as i32).max(0);
    (shown - exact).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9
}

#[test]
fn the_workbench_starts_on_the_default_profile_as_the_command_line() {
    let a = app();
    let default = a.catalog.profile("default").unwrap();
    assert_eq!(a.profile.id, "default");
    assert_eq!(a.assumptions, default.assumptions);
    assert_eq!(Knob::Profile.value(&a.inputs()), "default");
}

#[test]
fn a_profile_with_device_classes_follows_the_selected_device() {
    use ridgeline::catalog::device_class::DeviceClass;
    let mut a = app();
    let at = |a: &App, id: &str| {
        a.catalog
            .hardware
            .iter()
            .position(|e| e.hw.id == id)
            .unwrap()
    };
    let p = a.catalog.profile("llama.cpp").unwrap().clone();
    let class = |k| p.class(k).unwrap().assumptions;
    a.hw = at(&a, "a100-sxm-80gb");
    select_knob(&mut a, Knob::Profile);
    // Step to llama.cpp: on an A100, its HBM class values.
    while a.profile.id != "llama.cpp" {
        go(&mut a, &[Command::Right]);
    }
    assert_eq!(a.assumptions, class(DeviceClass::Hbm));
    assert_eq!(Knob::Profile.value(&a.inputs()), "llama.cpp (hbm)");
    let s = screen(&a, 100, 30);
    assert!(s.contains("llama.cpp (hbm)"), "{s}");
    // A changed kernel time stays when the device moves to an M2 Ultra;
    // the rest becomes the Apple values.
    select_knob(&mut a, Knob::KernelTime);
    go(&mut a, &[Command::Right]);
    let kernel = a.assumptions.kernel_s;
    // The knob steps the HBM class's own time per kernel.
    assert_eq!(kernel, 2.0 * class(DeviceClass::Hbm).kernel_s);
    a.hw = at(&a, "m2-ultra");
    a.recompute();
    let apple = class(DeviceClass::Apple);
    assert_eq!(
        a.assumptions,
        ridgeline::solver::Assumptions {
            kernel_s: kernel,
            ..apple
        }
    );
    assert_eq!(Knob::Profile.value(&a.inputs()), "llama.cpp (apple)*");
    // A TPU is in no class: the base values (and the changed kernel time).
    a.hw = at(&a, "tpu-v5e");
    a.recompute();
    assert_eq!(
        a.assumptions.compute_efficiency,
        p.assumptions.compute_efficiency
    );
    assert_eq!(a.assumptions.kernel_s, kernel);
    assert_eq!(Knob::Profile.value(&a.inputs()), "llama.cpp*");
}

#[test]
fn the_headline_writes_the_step_time_and_its_band() {
    let a = app();
    let (an, _) = a.shown().unwrap();
    let e = an.eval();
    assert!(e.band > 0.0, "the default profile has a band");
    let latency = units::format_time(e.latency_s);
    let s = screen(&a, 80, 24);
    let (lo, hi) = band_after(&s, &latency).unwrap_or_else(|| panic!("no band:\n{s}"));
    // The step time is in ms: its band is written in ms too.
    let (elo, ehi) = e.latency_range();
    assert!(latency.ends_with(" ms"), "{latency}");
    assert!(
        close(lo, elo * 1e3) && close(hi, ehi * 1e3),
        "{lo}-{hi} vs {elo}-{ehi}"
    );
    // At 160 columns the throughput's band shows too.
    let wide = screen(&a, 160, 48);
    let tokens = units::format_count(e.tokens_per_s);
    let (tlo, thi) = band_after(&wide, &format!("{tokens} tok/s")).expect("tokens band");
    let (etlo, ethi) = e.tokens_per_s_range();
    assert!(close(tlo, etlo) && close(thi, ethi), "{tlo}-{thi}");
}

#[test]
fn the_serving_view_writes_ttft_itl_and_end_to_end_bands() {
    let mut a = app();
    go(&mut a, &[Command::View2]);
    let Ok(ViewData::Serving(d)) = &a.view_data else {
        panic!("serving figures")
    };
    let s = &d.serving;
    let (ttft, itl, e2e) = (
        units::format_time(s.ttft_s),
        units::format_time(s.itl_s),
        units::format_time(s.e2e_s),
    );
    let screen = screen(&a, 100, 30);
    let scale = |x: &str| if x.ends_with(" ms") { 1e3 } else { 1.0 };
    for (shown, (lo, hi)) in [
        (&ttft, s.prefill.latency_range()),
        (&itl, s.decode.latency_range()),
    ] {
        let (l, h) = band_after(&screen, shown).unwrap_or_else(|| panic!("{shown}:\n{screen}"));
        let k = scale(shown);
        assert!(close(l, lo * k) && close(h, hi * k), "{shown}: {l}-{h}");
    }
    // End to end: TTFT + (output - 1) ITL, both at their low ends and both
    // at their high ends.
    let out = s.request.output - 1.0;
    let (tl, th) = s.prefill.latency_range();
    let (il, ih) = s.decode.latency_range();
    let (l, h) = band_after(&screen, &e2e).unwrap_or_else(|| panic!("{e2e}:\n{screen}"));
    let k = scale(&e2e);
    assert!(
        close(l, (tl + out * il) * k) && close(h, (th + out * ih) * k),
        "{e2e}: {l}-{h}"
    );
}

#[test]
fn the_profile_knob_steps_through_the_catalog_and_redraws_live() {
    let mut a = app();
    let ids: Vec<String> = a.catalog.profiles.iter().map(|p| p.id.clone()).collect();
    select_knob(&mut a, Knob::Profile);
    let start = ids.iter().position(|i| i == "default").unwrap();
    for step in 1..=ids.len() {
        go(&mut a, &[Command::Right]);
        let id = &ids[(start + step) % ids.len()];
        // The profile's values on the selected device (an H100: the
        // HBM class values of a profile that has them).
        let p = a.catalog.profile(id).unwrap().on(&a.catalog.hardware[a.hw]);
        assert_eq!(&a.profile.id, id);
        assert_eq!(a.assumptions, p.assumptions, "{id}");
        // The screen is the new profile's: its step time, its band or none.
        let (an, _) = a.shown().unwrap();
        assert_eq!(an.assumptions, p.assumptions);
        let latency = units::format_time(an.eval().latency_s);
        let s = screen(&a, 100, 30);
        // The selected knob, its arrows closed up around a long id.
        assert!(
            s.lines()
                .any(|l| l.contains("profile") && l.contains('◀') && l.contains(id.as_str())),
            "{id}:\n{s}"
        );
        assert_eq!(
            band_after(&s, &latency).is_some(),
            an.eval().band > 0.0,
            "{id}: {latency}\n{s}"
        );
    }
    assert_eq!(a.profile.id, "default", "all the way round");
    // Another assumption knob changes one value: the profile reads modified.
    select_knob(&mut a, Knob::KernelTime);
    go(&mut a, &[Command::Right]);
    let default = a.catalog.profile("default").unwrap().assumptions;
    assert_eq!(a.assumptions.kernel_s, 2.0 * default.kernel_s);
    assert_eq!(Knob::Profile.value(&a.inputs()), "default*");
    let s = screen(&a, 100, 30);
    assert!(s.contains("default*"), "{s}");
    // Every view shows the two knobs; Training shows the profile only (its
    // step has a fixed overhead, not a time per kernel: the knob would do
    // nothing there).
    for v in View::ALL {
        let knobs = Knob::for_view(v.index());
        assert!(knobs.contains(&Knob::Profile), "{v:?}");
        assert_eq!(
            knobs.contains(&Knob::KernelTime),
            v != View::Training,
            "{v:?}"
        );
    }
}

#[test]
fn a_scenario_saved_on_a_changed_profile_opens_equal() {
    let dir = std::env::temp_dir().join(format!("ridgeline-bands-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.toml");
    let mut a = app();
    select_knob(&mut a, Knob::Profile);
    go(&mut a, &[Command::Right]);
    select_knob(&mut a, Knob::KernelTime);
    go(&mut a, &[Command::Right]);
    let base = a.profile.base;
    assert_ne!(a.assumptions.kernel_s, base.kernel_s);
    a.to_scenario().save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    // The profile and the one key that differs from it, nothing else.
    let section = text.split("[assumptions]\n").nth(1).unwrap_or("");
    let keys: Vec<&str> = section
        .lines()
        .take_while(|l| !l.starts_with('['))
        .filter(|l| l.contains(" = "))
        .map(|l| l.split(" = ").next().unwrap())
        .collect();
    assert_eq!(keys, ["profile", "kernel_time"], "{text}");
    let mut b = app();
    b.open_scenario(&path).unwrap();
    assert_eq!(b.profile, a.profile);
    assert_eq!(b.assumptions, a.assumptions);
    assert_eq!(
        Knob::Profile.value(&b.inputs()),
        Knob::Profile.value(&a.inputs())
    );
    std::fs::remove_dir_all(&dir).ok();
}
