//! The Fleet view: for a request rate, prompt and output lengths and TTFT
//! and inter-token SLAs, the cheapest design the search finds (device,
//! precision, serving mode and layout; a disaggregated one's prefill and
//! decode pools), the whole fleet's replicas, devices and cost against the
//! budget, each region's own part (its share of the load), the Pareto front
//! of cost against TTFT, then every design's cheapest fleet.

use super::grid::{self, fill, left, right};
use super::serving::{num, usd};
use super::view_frame;
use crate::solver::fleet::FleetOption;
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::knobs::fleet_precisions;
use crate::tui::views::{FleetData, ViewData};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// "$5M", "$120k".
pub fn big_usd(x: f64) -> String {
    if x.is_finite() {
        format!("${}", units::format_count(x).replace(' ', ""))
    } else {
        "-".into()
    }
}

/// What a budget says of the cheapest fleet: within it, or plainly that
/// nothing is and by how much the cheapest is over.
pub fn budget_verdict(o: &FleetOption, budget: Option<f64>) -> Option<String> {
    let b = budget?;
    let year = o.cost_per_year_usd();
    Some(if year <= b {
        format!("within the {}/yr budget", big_usd(b))
    } else {
        format!(
            "nothing within {}/yr; the cheapest is {}/yr, {} over",
            big_usd(b),
            big_usd(year),
            big_usd(year - b)
        )
    })
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let Some((ViewData::Fleet(d), inner)) = view_frame(app, frame, area, |_| Vec::new()) else {
        return;
    };
    let out = summary(app, d);
    let buf = frame.buffer_mut();
    super::text::draw_lines(buf, inner, &out, app.ascii);
    let mut y = inner.y + out.len() as u16;
    if d.plan.best.is_some() {
        y = regions(app, d, buf, inner, y);
        // Where the front leaves too little room for the designs table,
        // scrolling shows the designs in its place.
        let room = inner.bottom().saturating_sub(y);
        let designs_fit = room >= d.front.len() as u16 + 2 + 5;
        if designs_fit || app.view_scroll == 0 {
            y = front(app, d, buf, inner, y, !designs_fit);
        }
    }
    designs(app, d, buf, inner, y);
}

/// The inputs, the cheapest design and its whole fleet's figures.
fn summary<'a>(app: &App, d: &FleetData) -> Vec<Line<'a>> {
    let t = app.theme();
    let s = &d.spec;
    let fg = Style::new().fg(t.fg);
    let mut out = vec![Line::from(Span::styled(
        format!(
            " {} req/s · {} in / {} out · TTFT ≤ {} · ITL ≤ {} · budget {}",
            units::format_count(s.qps),
            units::format_count(s.request.prompt),
            units::format_count(s.request.output),
            units::format_time(s.ttft_sla_s),
            units::format_time(s.itl_sla_s),
            s.budget_usd_per_year
                .map_or("none".into(), |b| format!("{}/yr", big_usd(b))),
        ),
        t.dim(),
    ))];
    out.push(Line::from(Span::styled(
        format!(
            " searched {} · mode {} · load {}",
            fleet_precisions(&d.search.precisions),
            d.search.mode.name(),
            if d.search.shares.windows(2).all(|w| w[0] == w[1]) {
                "split equally".to_string()
            } else {
                format!(
                    "shares {}",
                    d.search
                        .shares
                        .iter()
                        .map(|x| units::format_number(*x))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ),
        t.dim(),
    )));
    let Some(o) = &d.plan.best else {
        out.push(Line::from(Span::styled(
            format!(
                " no fleet meets the SLAs: {}",
                d.plan.reason.as_deref().unwrap_or("no priced device")
            ),
            t.error(),
        )));
        return out;
    };
    out.push(Line::from(vec![
        Span::styled(" cheapest ", t.header()),
        Span::styled(
            // A disaggregated design is its pools (below), never replicas
            // of one layout.
            match &o.pools {
                Some(_) => format!(
                    "{} {} {} → {} devices (all regions)",
                    o.hardware_id,
                    o.precision.label(),
                    o.mode.name(),
                    o.devices
                ),
                None => format!(
                    "{} {} {} → {} replicas, {} devices (all regions)",
                    o.hardware_id,
                    o.precision.label(),
                    o.mode.name(),
                    o.replicas,
                    o.devices
                ),
            },
            t.accent(),
        ),
    ]));
    let pools = match &o.pools {
        Some(p) => vec![
            format!(
                "   prefill pool {} x TP {} x PP {} = {} devices ({:.2} per decode device)",
                p.prefill.replicas,
                p.prefill.layout.tp,
                p.prefill.layout.pp,
                p.prefill.devices,
                p.prefill.devices as f64 / p.decode.devices.max(1) as f64
            ),
            format!(
                "   decode pool {} x TP {} x PP {} = {} devices, batch {}",
                p.decode.replicas,
                p.decode.layout.tp,
                p.decode.layout.pp,
                p.decode.devices,
                o.batch
            ),
        ],
        // The batch the load produces on each replica (Little's law), not
        // the most that fit.
        None => vec![format!(
            "   each replica TP {} x PP {}: {} in flight, batch {}, room for {}",
            o.layout.tp,
            o.layout.pp,
            units::format_number(o.in_flight),
            o.batch,
            units::format_count(o.max_batch as f64)
        )],
    };
    out.extend(pools.into_iter().map(|l| Line::from(Span::styled(l, fg))));
    out.push(Line::from(Span::styled(
        format!(
            "   TTFT {} · ITL {} · e2e {} · utilization {} (worst region)",
            units::format_time(o.ttft_s),
            units::format_time(o.itl_s),
            units::format_time(o.e2e_s),
            units::format_percent(o.utilization)
        ),
        fg,
    )));
    match (o.within_budget, budget_verdict(o, s.budget_usd_per_year)) {
        (Some(true), Some(v)) => out.push(Line::from(Span::styled(format!("   {v}"), t.ok()))),
        (Some(false), Some(v)) => {
            out.push(Line::from(Span::styled(
                format!("   OVER BUDGET: {v}"),
                t.error(),
            )));
            // What would fit, one requirement at a time (the command
            // line's "within the budget, one change at a time").
            if let Some(r) = &app.fleet_relaxed {
                for x in &r.relaxed {
                    out.push(Line::from(Span::styled(
                        format!("   fits with {}", relaxation(x)),
                        t.ok(),
                    )));
                }
            }
        }
        _ => {}
    }
    out.push(Line::from(Span::styled(
        format!(
            "   {}{}/hour · {}/year · {} per M tokens · {} J/token",
            if s.budget_usd_per_year.is_none() {
                "no budget · "
            } else {
                ""
            },
            usd(Some(o.cost_per_hour_usd)),
            big_usd(o.cost_per_year_usd()),
            usd(Some(o.cost_per_million_tokens_usd)),
            num(o.energy_per_token_j)
        ),
        fg,
    )));
    out
}

/// "616 req/s: mi300x fp8 disaggregated, 304 devices, $4.93M/yr": a
/// relaxation, short (the command line gives the design's pools).
fn relaxation(r: &crate::solver::fleet::Relaxation) -> String {
    use crate::solver::fleet::Relax;
    let what = match r.change {
        Relax::Qps => format!("{} req/s", units::format_number(r.value)),
        Relax::Prompt => format!("{}-token prompts", units::format_count(r.value)),
        Relax::Ttft => format!("TTFT {}", units::format_time(r.value)),
        Relax::Itl => format!("ITL {}", units::format_time(r.value)),
        Relax::OneRegion => "one region".to_string(),
    };
    format!(
        "{what}: {} {} {}, {} devices, {}/yr",
        r.design.hardware_id,
        r.design.precision.label(),
        r.design.mode.name(),
        units::format_count(r.design.devices as f64),
        big_usd(r.design.cost_per_year_usd())
    )
}

/// Each region's own fleet (sized for its share), then the total.
fn regions(app: &App, d: &FleetData, buf: &mut Buffer, inner: Rect, mut y: u16) -> u16 {
    let t = app.theme();
    let Some(sp) = &d.regional else { return y };
    let cols = [
        left(9),
        right(6),
        right(8),
        right(7),
        right(8),
        right(8),
        right(7),
        right(7),
        fill(),
    ];
    let inner = Rect {
        width: inner.width.min(110),
        ..inner
    };
    let w = grid::widths(&cols, inner.width);
    let head: Vec<Line> = [
        "  region", "req/s", "replicas", "devices", "$/hour", "kWh/day", "kgCO2/d", "gCO2/Mt", "",
    ]
    .into_iter()
    .map(Line::from)
    .collect();
    grid::row(buf, inner, y, &cols, &w, &head, Some(t.dim()));
    y += 1;
    for ((id, name), r) in d.names.iter().zip(&sp.regions) {
        let cells: Vec<Line> = vec![
            format!("  {id}").into(),
            units::format_number(r.qps).into(),
            r.replicas.to_string().into(),
            r.devices.to_string().into(),
            usd(Some(r.cost_per_hour_usd)).into(),
            num(r.daily.map(|x| x.kwh)).into(),
            num(r.daily.map(|x| x.kg_co2)).into(),
            num(r.co2_per_mtok_g).into(),
            Line::from(Span::styled(
                super::text::clip(name, w[8] as usize, app.ascii),
                t.dim(),
            )),
        ];
        grid::row(buf, inner, y, &cols, &w, &cells, None);
        y += 1;
    }
    if sp.regions.len() > 1
        && let Some(o) = &d.plan.best
    {
        let cells: Vec<Line> = vec![
            Line::from(Span::styled("  total", t.header())),
            units::format_number(o.qps).into(),
            o.replicas.to_string().into(),
            o.devices.to_string().into(),
            usd(Some(o.cost_per_hour_usd)).into(),
            num(sp.total.map(|x| x.kwh)).into(),
            num(sp.total.map(|x| x.kg_co2)).into(),
            num(sp.co2_per_mtok_g).into(),
            Line::from(Span::styled(
                super::text::clip(
                    "rows are per region; this the sum",
                    w[8] as usize,
                    app.ascii,
                ),
                t.dim(),
            )),
        ];
        grid::row(buf, inner, y, &cols, &w, &cells, None);
        y += 1;
    }
    y
}

/// Columns of the front and designs tables.
const COLS: [grid::Col; 8] = [
    fill(),
    left(5),
    left(5),
    right(5),
    right(8),
    right(6),
    right(8),
    right(6),
];

fn option_cells<'a>(app: &App, o: &FleetOption) -> Vec<Line<'a>> {
    let t = app.theme();
    let budget = match o.within_budget {
        Some(true) => Span::styled("ok", t.ok()),
        Some(false) => Span::styled("over", t.error()),
        None => Span::styled("-", t.dim()),
    };
    vec![
        format!("  {}", o.hardware_id).into(),
        o.precision.label().into(),
        match o.pools {
            Some(_) => "disag",
            None => "agg",
        }
        .into(),
        o.layout.tp.to_string().into(),
        units::format_time(o.ttft_s).into(),
        o.devices.to_string().into(),
        usd(Some(o.cost_per_hour_usd)).into(),
        Line::from(budget),
    ]
}

/// A titled table of options from `skip` on, the first option (the
/// cheapest) accented; returns the line after it.
fn table(
    app: &App,
    buf: &mut Buffer,
    inner: Rect,
    mut y: u16,
    title: String,
    options: &[FleetOption],
    skip: usize,
) -> u16 {
    let t = app.theme();
    super::text::draw_line(
        buf,
        inner,
        y,
        &Line::from(Span::styled(title, t.header())),
        app.ascii,
    );
    y += 1;
    // Tables read better narrow than stretched over a wide screen.
    let inner = Rect {
        width: inner.width.min(80),
        ..inner
    };
    let w = grid::widths(&COLS, inner.width);
    let head: Vec<Line> = [
        "  device", "prec", "mode", "TP", "TTFT", "devs", "$/hour", "budget",
    ]
    .into_iter()
    .map(Line::from)
    .collect();
    grid::row(buf, inner, y, &COLS, &w, &head, Some(t.dim()));
    y += 1;
    for (i, o) in options.iter().enumerate().skip(skip) {
        if y >= inner.bottom() {
            break;
        }
        let cells = option_cells(app, o);
        let style = (i == 0).then(|| t.accent());
        grid::row(buf, inner, y, &COLS, &w, &cells, style);
        y += 1;
    }
    y
}

/// The Pareto front of cost against TTFT: cheapest first, each faster than
/// the one before.
fn front(
    app: &App,
    d: &FleetData,
    buf: &mut Buffer,
    inner: Rect,
    y: u16,
    scroll_hint: bool,
) -> u16 {
    if d.front.is_empty() || y + 2 >= inner.bottom() {
        return y;
    }
    let title = format!(
        " front of cost vs TTFT ({} designs; none cheaper and faster){}:",
        d.front.len(),
        if scroll_hint { "; scroll for all" } else { "" }
    );
    table(app, buf, inner, y, title, &d.front, 0)
}

/// Every design's cheapest fleet, cheapest first; it scrolls.
fn designs(app: &App, d: &FleetData, buf: &mut Buffer, inner: Rect, y: u16) {
    if y + 2 >= inner.bottom() {
        return;
    }
    let title = format!(
        " every design ({} of device, precision and mode meet the SLAs):",
        d.plan.per_design.len()
    );
    let skip = app
        .view_scroll
        .min(d.plan.per_design.len().saturating_sub(1));
    table(app, buf, inner, y, title, &d.plan.per_design, skip);
}
