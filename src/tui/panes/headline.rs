//! The headlines of the status line: the selected configuration, and the
//! answer of the view on screen. A headline is built of parts that give way
//! by rank when the screen is narrow ([`text::fit_parts`]); the fit verdict
//! is kept whole.
//!
//! A headline answers with a configuration that runs: [`answer`] names it
//! (device and workload, layout included), so a test can check that it
//! fits; a configuration that does not fit is shown only as its verdict
//! ("NO FIT: needs 2 x a100-sxm-80gb"), with the figures at the fewest
//! devices that hold it, labelled with that count.

use super::band;
use super::comparison::times;
use super::serving::usd;
use super::text::Part;
use crate::solver::compare::{self, SortBy, Verdict};
use crate::solver::{Evaluation, Phase, Workload, units};
use crate::tui::app::{Analysis, App};
use crate::tui::knobs::SweepAxis;
use crate::tui::views::ViewData;
use crate::words::Words;
use ratatui::style::Style;
use ratatui::text::Span;

/// The configuration a headline's figures belong to.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Catalog index of the device.
    pub hw: usize,
    /// The workload, with the layout (TP, PP) that runs.
    pub workload: Workload,
}

/// The row of a comparison a headline names: the fastest that fits.
pub fn fastest_fitting(an: &Analysis) -> Option<usize> {
    let judged: Vec<_> = an.compare.iter().map(|c| c.judged.as_ref()).collect();
    let first = *compare::order(&judged, SortBy::Latency).first()?;
    an.compare[first].fits().then_some(first)
}

/// The workload `e` was evaluated at (its layout, batch, context, phase).
fn workload_of(base: &Workload, e: &Evaluation) -> Workload {
    Workload {
        phase: e.phase,
        batch: e.batch,
        context: e.context,
        tp: e.parallelism.tp,
        pp: e.parallelism.pp,
        ..*base
    }
}

/// The configuration whose figures the headline of the screen shows: for
/// the roofline, the selection (or the fewest devices that hold it); for
/// the other views, their answer. None when the headline shows no figures
/// (nothing fits, nothing meets the target).
pub fn answer(app: &App) -> Option<Answer> {
    let (d, _) = app.shown_view()?;
    match d {
        ViewData::Roofline => {
            let (an, _) = app.shown()?;
            let run = an.selected()?.running()?;
            Some(Answer {
                hw: an.hw,
                workload: workload_of(&an.workload, run),
            })
        }
        ViewData::Serving(s) => {
            // The replica that runs: as asked, else on the fewest devices.
            let (tp, pp) = if s.serving.fits {
                (app.workload.tp, app.workload.pp)
            } else {
                let p = s.at_fit.as_ref()?.layout;
                (p.tp, p.pp)
            };
            Some(Answer {
                hw: app.hw,
                workload: Workload {
                    phase: Phase::Decode,
                    context: s.serving.request.prompt + s.serving.request.output,
                    tp,
                    pp,
                    ..app.workload
                },
            })
        }
        ViewData::Synthesis(s) => s.matches.first().map(|m| Answer {
            hw: m.device,
            workload: Workload {
                tp: m.layout.tp,
                pp: m.layout.pp,
                ..s.workload
            },
        }),
        ViewData::Sweep(s) => {
            let (_, e) = &s.points[s.best?];
            Some(Answer {
                hw: app.hw,
                workload: workload_of(&app.workload, e),
            })
        }
        ViewData::Generations(g) => {
            let an = &g.analysis;
            let c = &an.compare[fastest_fitting(an)?];
            Some(Answer {
                hw: c.hw,
                workload: an.workload,
            })
        }
        ViewData::Fleet(f) => f.plan.best.as_ref().map(|o| Answer {
            hw: o.device,
            workload: Workload {
                phase: Phase::Decode,
                context: f.spec.request.prompt + f.spec.request.output,
                batch: o.batch as f64,
                tp: o.layout.tp,
                pp: o.layout.pp,
                ..o.precision.apply(&app.workload)
            },
        }),
        // A training step is not an inference workload: its headline shows
        // figures only when the run fits (tests/tui_training.rs checks it).
        ViewData::Training(_) => None,
        // The breakdown shown: as asked, or on the fewest devices that hold it.
        ViewData::Operators(d) => Some(Answer {
            hw: app.hw,
            workload: Workload {
                tp: d.layout.tp,
                pp: d.layout.pp,
                ..app.workload
            },
        }), // The point under the cursor on the front.
        ViewData::Explore(d) => {
            let p = d.front_point(super::explore::selected(app, d))?;
            let c = d.choice(p);
            Some(Answer {
                hw: c.hw,
                workload: crate::tui::views::explore::adopt(&app.workload, &c),
            })
        }
    }
}

/// The headline of the selected configuration: device and model, then its
/// latency, tokens/s and bound when it fits; when it does not, the verdict
/// and the figures at the fewest devices that hold it, labelled. `wide`:
/// "model on device", else "model · device".
pub fn selection<'a>(app: &App, an: &Analysis, stale: bool, wide: bool) -> Vec<Part<'a>> {
    let t = app.theme();
    let title = Style::new().fg(t.title);
    let e = an.eval();
    let hw = app.catalog.hardware[an.hw].hw.id.clone();
    let model = &app.catalog.models[an.model].model.id;
    let mut v = Vec::new();
    if stale {
        v.push(part(" LAST VALID ".into(), t.stale(), 20).keep());
    }
    let n = an.workload.tp * an.workload.pp;
    let times_n = if n > 1 {
        format!(" x{n}")
    } else {
        String::new()
    };
    let on = if wide { " on " } else { " · " };
    v.push(
        part(format!(" {model}{on}{hw}{times_n}"), title, 4)
            .short(vec![Span::styled(format!(" {hw}{times_n}"), title)]),
    );
    let verdict = an
        .selected()
        .and_then(|c| c.verdict())
        .unwrap_or(Verdict::of(e));
    let mem = &e.memory;
    let (need, usable) = (
        units::format_bytes(mem.footprint.total()),
        units::format_bytes(mem.usable_bytes),
    );
    let head = verdict.headline(&hw);
    match verdict {
        Verdict::Fits => {
            v.extend(figures(app, e, ""));
            let fits = part(format!("fits {need} of {usable}"), t.ok(), 2);
            v.push(fits.short(vec![Span::styled("fits", t.ok())]).keep());
        }
        Verdict::Needs(p) => {
            let full = format!(
                "{head} (TP {} x PP {}): {need} > {usable} usable",
                p.tp, p.pp
            );
            v.push(
                part(full, t.error(), 3)
                    .short(vec![Span::styled(head, t.error())])
                    .keep(),
            );
            if let Some(run) = an.selected().and_then(|c| c.running()) {
                v.extend(figures(app, run, &format!("on {}: ", run.devices())));
            }
        }
        Verdict::Never => {
            let full = format!("{head}: {need} > {usable} usable");
            v.push(
                part(full, t.error(), 3)
                    .short(vec![Span::styled(head, t.error())])
                    .keep(),
            );
        }
    }
    v
}

/// Latency (after `label`), tokens/s and bound of a configuration that runs;
/// the figures with their error bands while there is room.
fn figures<'a>(app: &App, e: &Evaluation, label: &str) -> Vec<Part<'a>> {
    let t = app.theme();
    let latency = units::format_time(e.latency_s);
    let tokens = units::format_count(e.tokens_per_s);
    let rate = Words::for_model(&app.catalog.models[app.model]).rate_short();
    vec![
        banded(
            format!("{label}{latency}"),
            band::ends(&latency, e.latency_range(), units::format_time),
            t.accent(),
            (6, 3),
        ),
        banded(
            format!("{tokens} {rate}"),
            band::ends(&tokens, e.tokens_per_s_range(), units::format_count),
            t.accent(),
            (5, 2),
        ),
        // Kept before the fit's detail: the headline answer is latency,
        // bound and fit.
        part(
            format!("{}-bound", e.bottleneck.name()),
            Style::new().fg(t.fg),
            3,
        ),
    ]
}

/// A part of one styled text.
fn part<'a>(text: String, style: Style, rank: u8) -> Part<'a> {
    Part::new(vec![Span::styled(text, style)], rank)
}

/// A figure and its band ("6.64 ms (6.0-7.3)"): the band gives way at
/// `ranks.1`, the figure at `ranks.0`.
fn banded<'a>(figure: String, band: Option<String>, style: Style, ranks: (u8, u8)) -> Part<'a> {
    match band {
        Some(b) => Part::new(vec![Span::styled(format!("{figure} {b}"), style)], ranks.0)
            .short_at(vec![Span::styled(figure, style)], ranks.1),
        None => part(figure, style, ranks.0),
    }
}

/// The headline of a view other than the roofline: its answer, chosen
/// among configurations that fit.
pub fn view<'a>(app: &App) -> Option<Vec<Part<'a>>> {
    let (d, stale) = app.shown_view()?;
    let mut v = Vec::new();
    if stale {
        v.push(part(" LAST VALID ".into(), app.theme().stale(), 20).keep());
    }
    v.extend(match d {
        ViewData::Roofline => return None,
        ViewData::Serving(s) => serving(app, s),
        ViewData::Synthesis(s) => synthesis(app, s),
        ViewData::Sweep(s) => sweep(app, s),
        ViewData::Generations(g) => generations(app, &g.label, &g.analysis),
        ViewData::Fleet(f) => fleet(app, f),
        ViewData::Training(d) => training(app, d),
        ViewData::Operators(d) => super::ops::headline(app, d),
        ViewData::Explore(d) => super::explore::headline(app, d),
    });
    Some(v)
}

/// Serving: TTFT, ITL and speed per user when it fits at full context;
/// else the verdict alone.
fn serving<'a>(app: &App, d: &crate::tui::views::ServingData) -> Vec<Part<'a>> {
    let t = app.theme();
    let mut v = vec![part(" serving".into(), Style::new().fg(t.title), 3)];
    let asked = &d.serving;
    let hw = &app.catalog.hardware[app.hw].hw.id;
    // Continuous batching: its own figures, labelled; none when it does
    // not fit.
    if let Some(k) = &d.continuous {
        v[0] = part(" serving, continuous".into(), Style::new().fg(t.title), 3);
        if !k.c.fits {
            let text = format!("does not fit on {} at full context", d.devices);
            v.push(part(text, t.error(), 9).keep());
            return v;
        }
        let x = |s: f64| units::format_time(s);
        v.push(part(format!("TTFT {}", x(k.c.ttft_s)), t.accent(), 6).keep());
        v.push(part(format!("ITL {}", x(k.c.itl_s)), t.accent(), 5).keep());
        let per_user = units::format_count(1.0 / k.c.itl_s);
        v.push(part(format!("{per_user} tok/s per user"), t.accent(), 1));
        return v;
    }
    let Some((sv, devices, _, _)) = d.running() else {
        let text = Verdict::Never.headline(hw);
        v.push(part(format!("{text} at full context"), t.error(), 9).keep());
        return v;
    };
    let time = |label: &str, e: &Evaluation, ranks| {
        let x = units::format_time(e.latency_s);
        let b = band::ends(&x, e.latency_range(), units::format_time);
        banded(format!("{label} {x}"), b, t.accent(), ranks)
    };
    if !asked.fits {
        // The verdict, then the figures of the replica that runs, labelled.
        let p = d.at_fit.as_ref().map(|a| a.layout);
        let head = p.map_or(Verdict::Never, Verdict::Needs).headline(hw);
        v.push(part(head, t.error(), 9).keep());
        v.push(time(&format!("on {devices}: TTFT"), &sv.prefill, (6, 4)));
        v.push(time("ITL", &sv.decode, (5, 4)));
        return v;
    }
    v.push(time("TTFT", &sv.prefill, (6, 4)));
    v.push(time("ITL", &sv.decode, (5, 4)));
    let per_user = units::format_count(sv.tokens_per_s_per_user);
    // 1 / ITL: the first to give way, the ITL and its band say it.
    v.push(part(format!("{per_user} tok/s per user"), t.accent(), 1));
    v.push(part(format!("up to {} sequences", sv.max_concurrent), t.ok(), 2).keep());
    v
}

/// Synthesis: how many layouts meet the target and fit, and the cheapest.
fn synthesis<'a>(app: &App, s: &crate::tui::views::SynthData) -> Vec<Part<'a>> {
    let t = app.theme();
    let mut v = vec![part(
        format!(" target {}", s.target),
        Style::new().fg(t.title),
        4,
    )];
    match (s.requirement.feasible, s.matches.first()) {
        (false, _) => v.push(part("infeasible".into(), t.error(), 9).keep()),
        (true, None) => v.push(part("no catalog device meets it".into(), t.warn(), 9).keep()),
        (true, Some(m)) => {
            let n = s.matches.len();
            v.push(part(format!("{n} layouts meet it and fit"), t.ok(), 2));
            let cheapest = format!(
                "cheapest {} x{} {}/h",
                m.hardware_id,
                m.devices(),
                usd(m.cost_per_hour_usd)
            );
            v.push(part(cheapest, t.accent(), 9).keep());
        }
    }
    v
}

/// Sweep: the most tokens/s among the points that fit, where fitting
/// stops, and the crossover.
fn sweep<'a>(app: &App, s: &crate::tui::views::SweepData) -> Vec<Part<'a>> {
    let t = app.theme();
    let mut v = vec![part(" sweep".into(), Style::new().fg(t.title), 1)];
    let x_name = match s.axis {
        SweepAxis::Batch => "batch",
        SweepAxis::Context => "context",
    };
    let answer = match (s.best.map(|i| &s.points[i]), s.points.first()) {
        (Some((x, e)), _) => part(
            format!(
                "most {} {} at {x_name} {}",
                units::format_count(e.tokens_per_s),
                Words::for_model(&app.catalog.models[app.model]).rate_short(),
                units::format_count(*x)
            ),
            t.accent(),
            9,
        ),
        (None, Some((x, e))) => {
            let hw = &app.catalog.hardware[app.hw].hw.id;
            let head = Verdict::of(e).headline(hw);
            let text = format!("{head} at {x_name} {}", units::format_count(*x));
            part(text, t.error(), 9)
        }
        (None, None) => part("nothing swept".into(), t.error(), 9),
    };
    v.push(answer.keep());
    if let Some(m) = s.max_fit
        && s.points.iter().any(|(_, e)| !e.memory.fits)
    {
        let text = format!("fits up to {x_name} {}", units::format_count(m));
        v.push(part(text, t.warn(), 8));
    }
    if s.axis == SweepAxis::Batch {
        let text = match s.crossover {
            Some(c) => format!("crossover at batch {}", units::format_number(c)),
            None => "no crossover".to_string(),
        };
        v.push(part(text, Style::new().fg(t.fg), 2));
    }
    v
}

/// Generations: the fastest device that fits (and its speedup over the
/// baseline), how many fit, and the binding constraint.
fn generations<'a>(app: &App, label: &str, an: &Analysis) -> Vec<Part<'a>> {
    let t = app.theme();
    let mut v = vec![part(format!(" {label}"), Style::new().fg(t.title), 3)];
    let n = an.compare.len();
    let Some(i) = fastest_fitting(an) else {
        v.push(part(format!("NO FIT on any of the {n} devices"), t.error(), 9).keep());
        return v;
    };
    let c = &an.compare[i];
    let id = &app.catalog.hardware[c.hw].hw.id;
    let lat = c.result.as_ref().map_or(f64::NAN, |s| s.base.latency_s);
    let short = format!("fastest {id} {}", units::format_time(lat));
    let mut full = short.clone();
    if let (Some(s), Some(b)) = (c.speedup, an.baseline)
        && b != i
    {
        let base = &app.catalog.hardware[an.compare[b].hw].hw.id;
        full.push_str(&format!(", {} {base}", times(s.factor)));
    }
    v.push(
        Part::new(vec![Span::styled(full, t.accent())], 7)
            .short(vec![Span::styled(short, t.accent())])
            .keep(),
    );
    let fit = an.compare.iter().filter(|c| c.fits()).count();
    v.push(if fit == n {
        part(format!("all {n} fit"), t.ok(), 8)
    } else {
        part(format!("{fit} of {n} fit"), t.warn(), 8)
    });
    let binding = super::generations::verdict(app, an).trim().to_string();
    v.push(part(binding, Style::new().fg(t.fg), 1));
    v
}

/// Fleet: the cheapest fleet that meets the SLAs, its cost and budget.
fn fleet<'a>(app: &App, f: &crate::tui::views::FleetData) -> Vec<Part<'a>> {
    let t = app.theme();
    let title = Style::new().fg(t.title);
    let Some(o) = &f.plan.best else {
        return vec![
            part(" fleet".into(), title, 1),
            part("no configuration meets the SLAs".into(), t.error(), 9).keep(),
        ];
    };
    let what = format!(
        " {} {} {}",
        o.hardware_id,
        o.precision.label(),
        crate::words::fleet_design(o)
    );
    vec![
        part(what, title, 9).keep(),
        part(
            format!("{}/h", usd(Some(o.cost_per_hour_usd))),
            t.accent(),
            7,
        ),
        // The budget verdict stays at any width, as a fit verdict does.
        match o.within_budget {
            Some(true) => part("within budget".into(), t.ok(), 6).keep(),
            Some(false) => part("OVER BUDGET".into(), t.error(), 6).keep(),
            None => part("no budget".into(), t.dim(), 2),
        },
    ]
}

/// Training: the devices, then the step time, MFU, days and cost when the
/// run fits; else the verdict alone (a run that does not fit does not run).
fn training<'a>(app: &App, d: &crate::tui::views::training::TrainingData) -> Vec<Part<'a>> {
    let t = app.theme();
    let tr = &d.training;
    let hw = &app.catalog.hardware[app.hw].hw.id;
    let mut v = vec![
        part(
            format!(" training {} x {hw}", tr.devices()),
            Style::new().fg(t.title),
            9,
        )
        .keep(),
    ];
    let m = &tr.memory;
    if !m.fits {
        let x = Verdict::cross(app.ascii);
        v.push(
            part(
                format!(
                    "{x} DOES NOT FIT: {} per device, {} usable",
                    units::format_bytes(m.total()),
                    units::format_bytes(m.usable_bytes)
                ),
                t.error(),
                9,
            )
            .keep(),
        );
        return v;
    }
    let s = &tr.step;
    v.push(part(
        format!("step {}", units::format_time(s.step_time_s)),
        t.accent(),
        8,
    ));
    v.push(part(
        format!("MFU {}", units::format_percent(s.mfu)),
        t.accent(),
        6,
    ));
    v.push(part(
        format!(
            "{} days",
            units::format_number(d.run.time_to_train_s / 86400.0)
        ),
        t.accent(),
        5,
    ));
    if let Some(c) = d.run.cost_usd {
        v.push(part(super::fleet::big_usd(c), t.accent(), 3));
    }
    // The words `ridgeline train` prints: "communication-bound (DP
    // gradients)", "host-link-bound (activation offload)".
    v.push(part(s.binding.bound(), t.dim(), 2));
    v
}
