//! The SVG figures: they parse as XML, hold every roof, label and point,
//! follow the terminal's dash patterns, and stay stable (a snapshot).

use super::scale::Roof;
use super::svg::{dash_array, nice_step};
use super::{Bar, Bars, Effective, Lines, OpPoint, RoofDevice, Roofline, Series};

/// Two round devices: "fast" at 1 PFLOP/s and 10 TB/s (ridge 100), "slow"
/// at 300 TFLOP/s and 2 TB/s (ridge 150); fast's decode point on its
/// slope at 1 FLOP/B (10 TB/s x 1 = 10 TFLOP/s) and its prefill at
/// 1000 FLOP/B, 500 TFLOP/s.
fn two_roofs() -> Roofline {
    Roofline {
        title: "Roofline: test".into(),
        subtitle: "two devices".into(),
        devices: vec![
            RoofDevice {
                place: 0,
                id: "fast".into(),
                roof: Roof {
                    peak: 1e15,
                    bandwidth: 1e13,
                },
                caches: Vec::new(),
            },
            RoofDevice {
                place: 1,
                id: "slow".into(),
                roof: Roof {
                    peak: 3e14,
                    bandwidth: 2e12,
                },
                caches: Vec::new(),
            },
        ],
        effective: Some(Effective {
            device: 0,
            compute: 0.5,
            memory: 0.8,
        }),
        points: vec![
            OpPoint {
                place: 0,
                label: "decode".into(),
                intensity: 1.0,
                flops: 1e13,
                other: false,
            },
            OpPoint {
                place: 0,
                label: "prefill".into(),
                intensity: 1000.0,
                flops: 5e14,
                other: true,
            },
        ],
    }
}

fn class<'a>(doc: &'a roxmltree::Document, c: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some(c))
        .collect()
}

/// The text of an element, as a reader sees it (the writer puts its
/// content on a line of its own).
fn text<'a>(n: &roxmltree::Node<'a, 'a>) -> &'a str {
    n.text().unwrap_or("").trim()
}

#[test]
fn a_roofline_parses_and_holds_every_roof_label_and_point() {
    let svg = super::svg::roofline(&two_roofs());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let roofs = class(&doc, "roof");
    assert_eq!(roofs.len(), 2);
    // Each roof: a polyline, its dash pattern the terminal's (fast is
    // place 0, solid; slow is place 1, [4, 2] dots = 12 6 px) and its label.
    let line = |r: &roxmltree::Node| {
        r.children()
            .find(|c| c.has_tag_name("polyline"))
            .unwrap()
            .attribute("stroke-dasharray")
            .map(String::from)
    };
    assert_eq!(line(&roofs[0]), None);
    assert_eq!(line(&roofs[1]).as_deref(), Some("12 6"));
    let labels: Vec<&str> = roofs
        .iter()
        .map(|r| text(&r.children().find(|c| c.has_tag_name("text")).unwrap()))
        .collect();
    assert_eq!(labels, ["fast", "slow"]);
    // Two points: the decode marker and the prefill ring.
    let points = class(&doc, "point");
    assert_eq!(points.len(), 2);
    // The bounds (scale::bounds): intensities 1, 1000 and the ridges 100
    // and 150 give x from 10^-1 to 10^4 (0 - 0.3 floored, 3 + 0.3 ceiled);
    // the peak 10^15 gives y up to 10^16, and the lowest of 10^13 (the
    // decode point) and 10^(log10 3e14 - 2) = 10^12.48, less 0.3, floored,
    // gives 10^12. So the decode point (10^0, 10^13) is 1/5 across the
    // graph (112 + 528 / 5 = 217.6 px) and 1/4 up (470 - 400 / 4 = 370 px):
    // its circle's path starts a radius (5) to the left.
    let d = points[0]
        .descendants()
        .find(|n| n.has_tag_name("path"))
        .unwrap()
        .attribute("d")
        .unwrap();
    assert!(d.starts_with("M212.6 370a5 5"), "{d}");
    // Ticks: 6 decades across (0.1 to 10k), 5 up (100 GFLOP/s to 10 PFLOP/s).
    let ticks: Vec<&str> = class(&doc, "tick").iter().map(text).collect();
    assert_eq!(
        ticks,
        [
            "0.1",
            "1",
            "10",
            "100",
            "1000",
            "10000",
            "1 TFLOP/s",
            "10 TFLOP/s",
            "100 TFLOP/s",
            "1 PFLOP/s",
            "10 PFLOP/s"
        ]
    );
    // The selected device's ridge and effective roof.
    assert_eq!(text(&class(&doc, "ridge")[0]), "ridge 100");
    assert_eq!(class(&doc, "effective").len(), 1);
    let legend: Vec<&str> = class(&doc, "legend-device").iter().map(text).collect();
    assert_eq!(legend, ["fast", "slow"]);
    let pts: Vec<&str> = class(&doc, "legend-point").iter().map(text).collect();
    assert_eq!(
        pts,
        [
            "decode: 1 FLOP/B, 10 TFLOP/s",
            "prefill: 1000 FLOP/B, 500 TFLOP/s"
        ]
    );
}

#[test]
fn the_roofline_svg_is_stable() {
    insta::assert_snapshot!("roofline_two_devices", super::svg::roofline(&two_roofs()));
}

#[test]
fn dash_arrays_are_the_terminal_patterns_in_pixels() {
    assert_eq!(dash_array(&[]), None);
    // 3 px a dot: [4, 2] -> 12 6, [3, 1, 1, 1] -> 9 3 3 3.
    assert_eq!(dash_array(&[4, 2]).as_deref(), Some("12 6"));
    assert_eq!(dash_array(&[3, 1, 1, 1]).as_deref(), Some("9 3 3 3"));
    let all: Vec<Option<String>> = super::marks::DEVICE
        .iter()
        .map(|m| dash_array(m.dash))
        .collect();
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            assert_ne!(all[i], all[j], "devices {i} and {j} look alike");
        }
    }
}

#[test]
fn catalog_text_is_escaped_and_control_characters_shown() {
    let mut r = two_roofs();
    r.devices[0].id = "a<b&c\"d\u{1b}[31m".into();
    let svg = super::svg::roofline(&r);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let legend: Vec<&str> = class(&doc, "legend-device").iter().map(text).collect();
    assert_eq!(legend[0], "a<b&c\"d\\u{1b}[31m");
    assert!(!svg.contains('\u{1b}'));
}

#[test]
fn lines_draw_each_series_and_mark() {
    let l = Lines {
        title: "sweep".into(),
        subtitle: String::new(),
        x_title: "batch".into(),
        y_title: "tokens/s".into(),
        series: vec![Series {
            place: 2,
            label: "dev".into(),
            points: vec![(1.0, 100.0), (10.0, 900.0), (100.0, 5000.0)],
        }],
        marks: vec![(2, 20.0, "crossover 20".into())],
        units: [super::Unit::Number; 2],
        cloud: None,
    };
    let svg = super::svg::lines(&l);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let series = class(&doc, "series");
    assert_eq!(series.len(), 1);
    // A marker at each of the three points.
    assert_eq!(
        series[0]
            .children()
            .filter(|c| c.attribute("class") == Some("marker"))
            .count(),
        3
    );
    // Place 2's pattern, [1, 1] dots: 3 3 px.
    let pl = series[0]
        .children()
        .find(|c| c.has_tag_name("polyline"))
        .unwrap();
    assert_eq!(pl.attribute("stroke-dasharray"), Some("3 3"));
    let mark = class(&doc, "mark");
    assert_eq!(mark.len(), 1);
    assert!(svg.contains("crossover 20"));
    // x over 10^0..10^2 and y over 10^2..10^4 (100 to 5000 ceiled).
    let ticks: Vec<&str> = class(&doc, "tick").iter().map(text).collect();
    assert_eq!(ticks, ["1", "10", "100", "100", "1000", "10000"]);
}

#[test]
fn bars_stack_their_parts_and_write_the_total() {
    let b = Bars {
        title: "step".into(),
        subtitle: String::new(),
        unit: "ms".into(),
        bars: vec![Bar {
            label: "gpt".into(),
            parts: vec![("compute".into(), 30.0), ("comm".into(), 12.0)],
        }],
    };
    let svg = super::svg::bars(&b);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let bar = &class(&doc, "bar")[0];
    assert_eq!(bar.children().filter(|c| c.has_tag_name("rect")).count(), 2);
    // 30 + 12 = 42 ms.
    assert!(bar.children().any(|c| text(&c) == "42 ms"), "{svg}");
    // Ticks every 10 ms (nice_step(42) = 10) up to 50: 0, 10, ..., 50.
    assert_eq!(class(&doc, "tick").len(), 6);
}

#[test]
fn nice_steps_are_one_two_or_five_times_a_power_of_ten() {
    // 42 / 5 = 8.4 -> 10; 23 / 5 = 4.6 -> 5; 100 / 5 = 20 -> 20; 0.7 / 5 =
    // 0.14 -> 0.2.
    assert_eq!(nice_step(42.0), 10.0);
    assert_eq!(nice_step(23.0), 5.0);
    assert_eq!(nice_step(100.0), 20.0);
    assert!((nice_step(0.7) - 0.2).abs() < 1e-12);
    assert_eq!(nice_step(0.0), 1.0);
}

#[test]
fn units_read_ticks_in_their_unit() {
    use super::Unit;
    assert_eq!(Unit::Time.label(0.01), "10 ms");
    assert_eq!(Unit::Usd.label(0.1), "$0.1");
    assert_eq!(Unit::Joules.label(10.0), "10 J");
    assert_eq!(Unit::Number.label(0.1), "0.1");
}

#[test]
fn cache_levels_are_extra_roofs_each_labelled() {
    // "fast" with made-up cache ceilings above its 10 TB/s: L1 80 TB/s,
    // L2 40 TB/s: two more dashed slopes, labelled with "DRAM" for its own.
    let mut r = two_roofs();
    r.devices[0].caches = vec![("L1".into(), 8e13), ("L2".into(), 4e13)];
    let svg = super::svg::roofline(&r);
    roxmltree::Document::parse(&svg).unwrap();
    let labels: Vec<&str> = svg
        .split("class=\"cache-level\"")
        .skip(1)
        .filter_map(|s| Some(s.split('>').nth(1)?.split('<').next()?.trim()))
        .collect();
    assert_eq!(labels, ["L1", "L2", "DRAM"]);
    assert_eq!(svg.matches("class=\"cache-roofs\"").count(), 1);
    // The device without caches has no level labels.
    assert!(!super::svg::roofline(&two_roofs()).contains("cache-level"));
}
