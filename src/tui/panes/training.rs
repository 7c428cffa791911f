//! The Training view: one optimizer step as a stacked bar of its terms
//! (compute, recompute, each exposed collective, bubble, optimizer,
//! overhead), memory per device as a bar with the fit verdict and the
//! changes that make it fit, the run (MFU and HFU, days, device-hours,
//! cost, energy, CO2, goodput), the elasticities of the step time, and the
//! layout search's ranking. Every segment has its own character, so the
//! bars read without colour and in ASCII.
//!
//! The pane is five sections; the cursor (Up/Down) stops at each, then at
//! each ranked layout, and the pane scrolls to keep it in sight on a short
//! screen. Wide, the sections stand in two columns.

use super::fleet::big_usd;
use super::view_frame;
use crate::solver::compare::Verdict;
use crate::solver::training::TokensToTrain;
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::views::ViewData;
use crate::tui::views::training::{self, SECTIONS, TrainingData};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// A long time in the unit that reads: days, hours, else as `format_time`.
pub fn duration(s: f64) -> String {
    if s >= 2.0 * 86400.0 {
        format!("{} days", units::format_number(s / 86400.0))
    } else if s >= 2.0 * 3600.0 {
        format!("{} h", units::format_number(s / 3600.0))
    } else {
        units::format_time(s)
    }
}

/// Energy in kWh, or MWh and GWh when large.
pub fn energy(kwh: f64) -> String {
    if kwh >= 1e6 {
        format!("{} GWh", units::format_number(kwh / 1e6))
    } else if kwh >= 1e3 {
        format!("{} MWh", units::format_number(kwh / 1e3))
    } else {
        format!("{} kWh", units::format_number(kwh))
    }
}

/// The layout in short: dp, tp and pp, then v, ep and cp when above 1.
pub fn layout_text(l: &crate::solver::training::Layout) -> String {
    let mut s = format!("dp {} tp {} pp {}", l.dp, l.tp, l.pp);
    for (name, v) in [("v", l.v), ("ep", l.ep), ("cp", l.cp)] {
        if v > 1 {
            s.push_str(&format!(" {name} {v}"));
        }
    }
    s
}

mod bars;
pub mod scaling;
pub use bars::{Segment, bar_cells, memory_segments, step_segments};
use bars::{bar, legend, pack};

/// Inner width from which the sections stand in two columns.
pub const TWO_COLUMNS: u16 = 110;

/// The run's configuration and the step as a bar.
fn step_section(app: &App, d: &TrainingData, width: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let tr = &d.training;
    let r = &tr.run;
    let s = &tr.step;
    let model = &app.catalog.models[app.model].model.name;
    let hw = &app.catalog.hardware[app.hw].hw.id;
    let mut out = vec![
        Line::from(Span::styled(
            format!(
                " {model} on {} x {hw}: {} · ZeRO {} · recompute {}{} · {}",
                tr.devices(),
                layout_text(&r.layout),
                r.zero,
                r.recompute.name(),
                if r.offload { ", offloaded" } else { "" },
                s.compute_precision
            ),
            t.header(),
        )),
        Line::from(Span::styled(
            format!(
                " {} tokens/step = {} of {} x {} tokens on {} DP ranks",
                units::format_tokens(s.step_tokens),
                units::format_count_of(s.micro_batches, "micro-batch", "micro-batches"),
                r.micro_batch,
                units::format_tokens(r.seq),
                r.layout.data_ways()
            ),
            t.dim(),
        )),
    ];
    if !d.fits() {
        let x = Verdict::cross(app.ascii);
        out.push(Line::from(Span::styled(
            format!(" {x} no step time: the run does not fit in memory (below)"),
            t.error(),
        )));
        return out;
    }
    out.push(Line::from(vec![
        Span::styled(
            format!(" Step {}", units::format_time(s.step_time_s)),
            t.header(),
        ),
        Span::styled(
            format!(
                " · {} · bubble {} of the pipeline",
                s.binding.bound(),
                units::format_percent(s.bubble_fraction)
            ),
            t.dim(),
        ),
    ]));
    let segs = step_segments(app, d);
    out.extend(legend(&segs, units::format_time, false, width));
    out.push(bar(&segs, width.saturating_sub(2)));
    out
}

/// Memory per device as a bar, the verdict, and the fixes when it does not fit.
fn memory_section(app: &App, d: &TrainingData, width: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let m = &d.training.memory;
    let mut out = vec![Line::from(Span::styled(
        format!(
            " Memory per device: {} usable of {}",
            units::format_bytes(m.usable_bytes),
            units::format_bytes(m.capacity_bytes)
        ),
        t.header(),
    ))];
    let segs = memory_segments(app, d);
    out.extend(legend(&segs, units::format_bytes, true, width));
    out.push(bar(&segs, width.saturating_sub(2)));
    // Full recomputation: the logits and the rebuilt layer take turns
    // (the bar counts the larger, inside the activations when it is the
    // layer). Offloading: what the host holds.
    let notes = [
        (m.reused > 0.0).then(|| {
            format!(
                " logits {} freed before a layer is rebuilt: held in turn",
                units::format_bytes(m.logits)
            )
        }),
        (m.host > 0.0).then(|| {
            format!(
                " activations offloaded to host memory: {} per device",
                units::format_bytes(m.host)
            )
        }),
    ];
    for note in notes.into_iter().flatten() {
        out.push(Line::from(Span::styled(note, t.dim())));
    }
    // What a logger of the allocator's pool (torchtitan's, nvidia-smi)
    // would read, for a run that runs: the verdict stays on the tensors
    // alive.
    if m.fits && m.reserved > m.total() {
        out.push(Line::from(Span::styled(
            format!(
                " allocator's pool about {} (+{} over the tensors)",
                units::format_bytes(m.reserved),
                units::format_percent(m.reserved / m.total() - 1.0)
            ),
            t.dim(),
        )));
    }
    if m.fits {
        out.push(Line::from(Span::styled(
            format!(
                " fits: {} of {} usable ({})",
                units::format_bytes(m.total()),
                units::format_bytes(m.usable_bytes),
                units::format_percent(m.total() / m.usable_bytes)
            ),
            t.ok(),
        )));
        return out;
    }
    let x = Verdict::cross(app.ascii);
    out.push(Line::from(Span::styled(
        format!(
            " {x} DOES NOT FIT: {} per device, {} usable",
            units::format_bytes(m.total()),
            units::format_bytes(m.usable_bytes)
        ),
        t.error(),
    )));
    if d.fixes.is_empty() {
        out.push(Line::from(Span::styled(
            " no single change fits it: more devices (the devices knob)",
            t.warn(),
        )));
        return out;
    }
    out.push(Line::from(Span::styled(
        " to fit, change one of:",
        t.warn(),
    )));
    // The changes in a column as wide as the widest (a module set or
    // dots-except-mlpwi is longer than the others).
    let col = d
        .fixes
        .iter()
        .map(|(f, _, _)| super::text::width(&training::fix_text(f)))
        .max()
        .unwrap_or(0)
        .max(20);
    for (f, bytes, fits) in &d.fixes {
        out.push(Line::from(vec![
            Span::styled(format!("   {:<col$}", training::fix_text(f)), t.accent()),
            Span::styled(
                format!(
                    " {} per device, {}",
                    units::format_bytes(*bytes),
                    if *fits { "fits" } else { "still too much" }
                ),
                if *fits { t.ok() } else { t.dim() },
            ),
        ]));
    }
    out
}

/// The whole run: only when the step fits.
fn run_section(app: &App, d: &TrainingData) -> Vec<Line<'static>> {
    let t = app.theme();
    if !d.fits() {
        return vec![Line::from(Span::styled(
            " Run: left out, a run that does not fit does not run",
            t.dim(),
        ))];
    }
    let s = &d.training.step;
    let r = &d.run;
    let fg = Style::new();
    let how = match app.view_inputs.train.tokens {
        TokensToTrain::Chinchilla => " (chinchilla, 20 per parameter)",
        TokensToTrain::Tokens(_) => "",
    };
    let row = |text: String| Line::from(Span::styled(text, fg));
    let critical = match d.training.critical_batch_tokens_per_device {
        Some(c) => format!(
            "   critical batch {} tokens/device (this run: {})",
            units::format_count(c),
            units::format_count(s.tokens_per_device)
        ),
        None => "   critical batch: none (no data-parallel communication)".into(),
    };
    vec![
        Line::from(vec![
            Span::styled(" Run ", t.header()),
            Span::styled(
                format!(
                    "{} tokens{how}: {} steps",
                    units::format_count(r.tokens),
                    units::format_count(r.steps)
                ),
                fg,
            ),
        ]),
        Line::from(vec![
            Span::styled(
                format!(
                    "   MFU {} · HFU {}",
                    units::format_percent(s.mfu),
                    units::format_percent(s.hfu)
                ),
                t.accent(),
            ),
            Span::styled(
                format!(
                    " · {} tokens/s · GEMMs at {} of peak",
                    units::format_count(s.tokens_per_s),
                    units::format_percent(s.products_efficiency)
                ),
                fg,
            ),
        ]),
        Line::from(vec![
            Span::styled(
                format!(
                    "   {} days",
                    units::format_number(r.time_to_train_s / 86400.0)
                ),
                t.accent(),
            ),
            Span::styled(
                format!(
                    " · {} device-hours · {}",
                    units::format_count(r.device_hours),
                    r.cost_usd.map_or("no price".into(), big_usd)
                ),
                fg,
            ),
        ]),
        row(format!(
            "   energy {} · CO2 {} ({})",
            r.energy_kwh.map_or("-".into(), energy),
            r.co2_kg.map_or("-".into(), |k| format!(
                "{} t",
                units::format_number(k / 1000.0)
            )),
            d.region
        )),
        row(format!(
            "   goodput {} · checkpoint every {} · job MTBF {}",
            units::format_percent(r.goodput),
            duration(r.checkpoint_interval_s),
            duration(r.job_mtbf_s)
        )),
        row(critical),
    ]
}

/// The elasticities of the step time, the largest lit.
fn sensitivity_section(app: &App, d: &TrainingData, width: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    if !d.fits() {
        return vec![Line::from(Span::styled(
            " Step time elasticity: left out, the run does not fit",
            t.dim(),
        ))];
    }
    let mut out = vec![Line::from(vec![
        Span::styled(" Step time elasticity", t.header()),
        Span::styled(" d ln T / d ln x", t.dim()),
    ])];
    let top = d
        .elasticities
        .iter()
        .map(|(_, e)| e.abs())
        .fold(0.0, f64::max);
    let items = d
        .elasticities
        .iter()
        .map(|(k, e)| {
            // Two decimals: the central differences' last digits are noise.
            let v = format!("{:.2}", e + 0.0).replace("-0.00", "0.00");
            let style = if e.abs() == top && top > 0.0 {
                t.accent()
            } else {
                Style::new()
            };
            vec![Span::styled(
                format!("{:<18} {v:>6}", training::elastic_label(*k)),
                style,
            )]
        })
        .collect();
    out.extend(pack(items, width, "  "));
    out
}

/// The layout search's ranking, and the row under the cursor. Returns the
/// lines and the index among them of that row.
fn ranking_section(
    app: &App,
    d: &TrainingData,
    cursor: usize,
    width: usize,
) -> (Vec<Line<'static>>, Option<usize>) {
    let t = app.theme();
    let k = |c| app.keymap.first_key(c);
    use crate::tui::action::Command;
    let n = app.view_inputs.train.devices;
    let Some(s) = &d.search else {
        return (
            vec![Line::from(vec![
                Span::styled(" Layouts ", t.header()),
                Span::styled(
                    format!(
                        "{} ranks every layout of {n} devices that fits · {} plots scaling",
                        k(Command::SearchLayouts),
                        k(Command::ScalingPlot)
                    ),
                    t.dim(),
                ),
            ])],
            None,
        );
    };
    let mut out = vec![Line::from(vec![
        Span::styled(format!(" Layouts of {n} devices "), t.header()),
        Span::styled(
            format!(
                "{} tried: {} fit, {} too big, {} need a missing link",
                s.tried, s.fitting, s.too_big, s.no_link
            ),
            t.dim(),
        ),
    ])];
    let Some(best) = s.ranked.first() else {
        out.push(Line::from(Span::styled(
            " none fits: more devices, or a smaller micro-batch or sequence",
            t.error(),
        )));
        return (out, None);
    };
    let picked = training::picked(d, cursor);
    let current = &d.training.run;
    let mut at = None;
    let mut cells: Vec<Vec<String>> = vec![
        [
            "",
            "layout",
            "mb",
            "ZeRO",
            "recompute",
            "step",
            "MFU",
            "why slower",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for (i, c) in s.ranked.iter().enumerate() {
        let why = match training::loses_by(best.step_time_s, c.step_time_s) {
            None if i == 0 => "fastest".to_string(),
            None => "ties the fastest".to_string(),
            Some(x) => format!("+{} · {}", units::format_percent(x), c.binding),
        };
        let mark = match (picked == Some(i), c.run == *current) {
            (true, _) => ">",
            (false, true) => "*",
            _ => " ",
        };
        cells.push(vec![
            mark.to_string(),
            layout_text(&c.run.layout),
            c.run.micro_batch.to_string(),
            c.run.zero.to_string(),
            c.run.recompute.name().to_string(),
            units::format_time(c.step_time_s),
            units::format_percent(c.mfu),
            why,
        ]);
    }
    let mut rows = ranking_rows(&cells, width).into_iter();
    out.push(Line::from(Span::styled(
        rows.next().unwrap_or_default(),
        t.dim(),
    )));
    for (i, (text, c)) in rows.zip(&s.ranked).enumerate() {
        let here = c.run == *current;
        let style = if picked == Some(i) && app.focus == crate::tui::app::Pane::View {
            t.selected()
        } else if here {
            t.accent()
        } else {
            Style::new()
        };
        if picked == Some(i) {
            at = Some(out.len());
        }
        out.push(Line::from(Span::styled(text, style)));
    }
    out.push(Line::from(Span::styled(
        format!(
            "   {} adopts the row under the cursor; * marks the layout in use",
            k(Command::Edit)
        ),
        t.dim(),
    )));
    (out, at)
}

/// The ranking's columns (the mark, layout, micro-batch, ZeRO stage,
/// recompute, step, MFU, why slower) as lines of at most `width` columns
/// where they fit: each column as wide as its widest cell, the numbers and
/// their headers right-aligned, text left-aligned, and the room a wide pane
/// has spread between the columns (up to three spaces apart). The last
/// column, a sentence, takes what is left (`draw_lines` ends it after a
/// whole word).
pub fn ranking_rows(cells: &[Vec<String>], width: usize) -> Vec<String> {
    const RIGHT: [bool; 8] = [false, false, true, true, false, true, true, false];
    let n = RIGHT.len();
    let w: Vec<usize> = (0..n)
        .map(|k| {
            cells
                .iter()
                .map(|r| super::text::width(r.get(k).map_or("", |s| s)))
                .max()
                .unwrap_or(0)
        })
        .collect();
    // A space of indent and one after the mark; the other gaps widen with
    // the room.
    let fixed: usize = 2 + w.iter().sum::<usize>();
    let gap = (1..=3)
        .rev()
        .find(|g| fixed + g * (n - 2) <= width)
        .unwrap_or(1);
    cells
        .iter()
        .map(|r| {
            let mut line = String::from(" ");
            for (k, right) in RIGHT.iter().enumerate() {
                let c = r.get(k).map_or("", |s| s.as_str());
                let pad = w[k].saturating_sub(super::text::width(c));
                if k > 0 {
                    line.push_str(&" ".repeat(if k == 1 { 1 } else { gap }));
                }
                if k == n - 1 {
                    line.push_str(c);
                } else if *right {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.push_str(&" ".repeat(pad));
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// Sections drawn into one column: the first line shown keeps the cursor's
/// section (or ranked row) in sight; a marker on the border says there is
/// more below.
fn column(
    app: &App,
    buf: &mut Buffer,
    area: Rect,
    sections: Vec<(usize, Vec<Line<'static>>)>,
    row_at: Option<(usize, usize)>,
) -> bool {
    let cursor = app.view_scroll;
    let mut all = Vec::new();
    let mut target = 0;
    let mut row_line = None;
    for (ix, lines) in sections {
        if ix == cursor.min(SECTIONS) {
            target = all.len();
        }
        if let Some((sec, at)) = row_at
            && sec == ix
        {
            row_line = Some(all.len() + at);
        }
        all.extend(lines);
        if ix != SECTIONS {
            all.push(Line::raw(""));
        }
    }
    let h = area.height as usize;
    let mut offset = target;
    if let Some(r) = row_line {
        // The ranked row and the lines above it that fit.
        offset = offset.max((r + 2).saturating_sub(h)).min(r);
    }
    offset = offset.min(all.len().saturating_sub(h));
    let shown: Vec<Line> = all.into_iter().skip(offset).collect();
    super::text::draw_lines(buf, area, &shown, app.ascii);
    shown.len() > h
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some((ViewData::Training(d), inner)) = view_frame(app, frame, area, |_| Vec::new()) else {
        return;
    };
    if app.train_scaling
        && let Some(s) = &d.scaling
    {
        scaling::draw(app, d, s, frame.buffer_mut(), inner);
        return;
    }
    let cursor = app.view_scroll;
    let two = inner.width >= TWO_COLUMNS;
    let half = if two { inner.width / 2 } else { inner.width };
    let w = half as usize;
    let right_w = if two { inner.width - half } else { inner.width };
    let (rank, at) = ranking_section(app, d, cursor, right_w as usize);
    let sections = vec![
        (0, step_section(app, d, w)),
        (1, memory_section(app, d, w)),
        (2, run_section(app, d)),
        (
            3,
            sensitivity_section(app, d, if two { inner.width as usize - w } else { w }),
        ),
        (SECTIONS, rank),
    ];
    let buf = frame.buffer_mut();
    let row_at = at.map(|a| (SECTIONS, a));
    let more = if two {
        let mut it = sections.into_iter();
        let left: Vec<_> = it.by_ref().take(3).collect();
        let right: Vec<_> = it.collect();
        let l = Rect {
            width: half,
            ..inner
        };
        let r = Rect {
            x: inner.x + half,
            width: inner.width - half,
            ..inner
        };
        let a = column(app, buf, l, left, None);
        let b = column(app, buf, r, right, row_at);
        a || b
    } else {
        column(app, buf, inner, sections, row_at)
    };
    if more && area.height > 2 && area.width > 20 {
        let t = app.theme();
        let k = app.keymap.first_key(crate::tui::action::Command::Down);
        let text = format!(" more: {k} ");
        let x = area.right().saturating_sub(text.chars().count() as u16 + 2);
        buf.set_string(x, area.bottom() - 1, text, t.dim());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked() -> Vec<Vec<String>> {
        [
            [
                "",
                "layout",
                "mb",
                "ZeRO",
                "recompute",
                "step",
                "MFU",
                "why slower",
            ],
            [
                ">",
                "dp 8 tp 1 pp 1",
                "1",
                "2",
                "none",
                "43.9 s",
                "70%",
                "fastest",
            ],
            [
                " ",
                "dp 1 tp 2 pp 2 v 2 ep 2",
                "16",
                "3",
                "selective",
                "1.2 min",
                "9.87%",
                "+64% · memory",
            ],
        ]
        .iter()
        .map(|r| r.map(String::from).to_vec())
        .collect()
    }

    #[test]
    fn the_ranking_aligns_its_columns_and_spreads_into_the_room() {
        // Column widths: mark 1, layout 23 ("dp 1 tp 2 pp 2 v 2 ep 2"), mb 2,
        // ZeRO 4, recompute 9, step 7 ("1.2 min"), MFU 5, why 13 ("+64% ·
        // memory"): 64, and a space of indent and one after the mark: 66.
        // The six other gaps take one space each at 72 columns, two at 78,
        // three at 84.
        let at = |w| ranking_rows(&ranked(), w);
        let rows = at(72);
        assert_eq!(
            rows,
            vec![
                "   layout                  mb ZeRO recompute    step   MFU why slower",
                " > dp 8 tp 1 pp 1           1    2 none       43.9 s   70% fastest",
                "   dp 1 tp 2 pp 2 v 2 ep 2 16    3 selective 1.2 min 9.87% +64% · memory",
            ]
        );
        // Every number ends where its header ends.
        for head in ["mb", "ZeRO", "step", "MFU"] {
            let end = rows[0].find(head).unwrap() + head.len();
            for r in &rows[1..] {
                let c = r.as_bytes()[end - 1] as char;
                assert!(c.is_ascii_alphanumeric() || c == '%', "{head} in {r:?}");
                assert_eq!(
                    r.as_bytes().get(end).copied(),
                    Some(b' '),
                    "{head} in {r:?}"
                );
            }
        }
        // The widest row, the last, is 72 wide at one space apart.
        let widest = |w| at(w)[2].chars().count();
        assert_eq!(widest(72), 72);
        assert_eq!(widest(77), 72, "two spaces apart need 78");
        assert_eq!(widest(78), 72 + 6);
        assert_eq!(widest(84), 72 + 12);
        assert_eq!(widest(200), 72 + 12, "three spaces at most");
    }

    #[test]
    fn long_times_read_in_hours_and_days() {
        // 11 h = 39,600 s; 260 days = 22,464,000 s.
        assert_eq!(duration(39_600.0), "11 h");
        assert_eq!(duration(22_464_000.0), "260 days");
        assert_eq!(duration(90.0), "90 s");
        assert_eq!(energy(2_810.0), "2.81 MWh");
        assert_eq!(energy(512.0), "512 kWh");
    }
}
