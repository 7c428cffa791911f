//! The Fleet view: for a request rate, prompt and output lengths and TTFT
//! and inter-token SLAs, the cheapest configuration (device, TP, batch),
//! its replicas and devices, $/hour, $ per million tokens, kWh/day and kg
//! CO2/day per region, against the budget; then each device's cheapest.

use super::grid::{self, fill, left, right};
use super::serving::{num, usd};
use super::view_frame;
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::views::ViewData;
use ratatui::Frame;
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

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((ViewData::Fleet(d), inner)) = view_frame(app, frame, area, |_| Vec::new()) else {
        return;
    };
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
                .map_or("none".into(), |b| format!("{}/yr", big_usd(b)))
        ),
        t.dim(),
    ))];
    match &d.plan.best {
        None => {
            out.push(Line::from(Span::styled(
                format!(
                    " no fleet meets the SLAs: {}",
                    d.plan.reason.as_deref().unwrap_or("no priced device")
                ),
                t.error(),
            )));
        }
        Some(o) => {
            out.push(Line::from(vec![
                Span::styled(" cheapest ", t.header()),
                Span::styled(
                    format!(
                        "{} · TP {} x PP {} → {} replicas, {} devices",
                        o.hardware_id, o.layout.tp, o.layout.pp, o.replicas, o.devices
                    ),
                    t.accent(),
                ),
            ]));
            // The batch the load produces on each replica (Little's law), not
            // the most that fit.
            out.push(Line::from(Span::styled(
                format!(
                    "   each replica: {} in flight ({} req/s x e2e), batch {}, room for {}",
                    units::format_number(o.in_flight),
                    units::format_number(s.qps / o.replicas as f64),
                    o.batch,
                    units::format_count(o.max_batch as f64)
                ),
                fg,
            )));
            out.push(Line::from(Span::styled(
                format!(
                    "   TTFT {} · ITL {} · e2e {} · utilization {}",
                    units::format_time(o.ttft_s),
                    units::format_time(o.itl_s),
                    units::format_time(o.e2e_s),
                    units::format_percent(o.utilization)
                ),
                fg,
            )));
            let budget = match o.within_budget {
                Some(true) => Span::styled("   within budget", t.ok()),
                Some(false) => Span::styled("   OVER BUDGET", t.error()),
                None => Span::styled("   no budget", t.dim()),
            };
            out.push(Line::from(vec![
                budget,
                Span::styled(
                    format!(
                        " · {}/hour · {}/year · {} per M tokens · {} J/token",
                        usd(Some(o.cost_per_hour_usd)),
                        big_usd(o.cost_per_year_usd()),
                        usd(Some(o.cost_per_million_tokens_usd)),
                        num(o.energy_per_token_j)
                    ),
                    fg,
                ),
            ]));
        }
    }
    let buf = frame.buffer_mut();
    super::text::draw_lines(buf, inner, &out, app.ascii);
    let mut y = inner.y + out.len() as u16;
    // Per region: the fleet spread over the regions, each row its part,
    // then the whole fleet's total.
    let rcols = [left(14), right(8), right(10), right(11), right(12), fill()];
    let rw = grid::widths(&rcols, inner.width);
    if d.plan.best.is_some() {
        let head: Vec<Line> = [
            "  region",
            "replicas",
            "kWh/day",
            "kg CO2/day",
            "g CO2/M tok",
            "",
        ]
        .into_iter()
        .map(Line::from)
        .collect();
        grid::row(buf, inner, y, &rcols, &rw, &head, Some(t.dim()));
        y += 1;
        let mut rows: Vec<Vec<Line>> = d
            .regions
            .iter()
            .map(|r| {
                vec![
                    format!("  {}", r.id).into(),
                    r.replicas.map_or("-".into(), |n| n.to_string()).into(),
                    num(r.daily.map(|x| x.kwh)).into(),
                    num(r.daily.map(|x| x.kg_co2)).into(),
                    num(r.co2_per_mtok_g).into(),
                    Line::from(Span::styled(
                        super::text::clip(&r.name, rw[5] as usize, app.ascii),
                        t.dim(),
                    )),
                ]
            })
            .collect();
        if d.regions.len() > 1
            && let Some(o) = &d.plan.best
        {
            rows.push(vec![
                Line::from(Span::styled("  total", t.header())),
                o.replicas.to_string().into(),
                num(d.total.map(|x| x.kwh)).into(),
                num(d.total.map(|x| x.kg_co2)).into(),
                num(d.co2_per_mtok_g).into(),
                Line::from(Span::styled(
                    super::text::clip("the load split by replicas", rw[5] as usize, app.ascii),
                    t.dim(),
                )),
            ]);
        }
        for cells in rows {
            grid::row(buf, inner, y, &rcols, &rw, &cells, None);
            y += 1;
        }
    }
    if y + 2 >= inner.bottom() {
        return;
    }
    // Each device's cheapest fleet.
    super::text::draw_line(
        buf,
        inner,
        y,
        &Line::from(Span::styled(
            format!(
                " per device ({} meet the SLAs and fit):",
                d.plan.per_device.len()
            ),
            t.header(),
        )),
        app.ascii,
    );
    y += 1;
    let cols = [
        fill(),
        right(7),
        right(5),
        right(8),
        right(7),
        right(9),
        right(8),
        right(7),
    ];
    // Tables read better narrow than stretched over a wide screen.
    let inner = Rect {
        width: inner.width.min(100),
        ..inner
    };
    let w = grid::widths(&cols, inner.width);
    let head: Vec<Line> = [
        "  device", "TP x PP", "batch", "replicas", "devices", "$/hour", "$/M tok", "budget",
    ]
    .into_iter()
    .map(Line::from)
    .collect();
    grid::row(buf, inner, y, &cols, &w, &head, Some(t.dim()));
    y += 1;
    let skip = app
        .view_scroll
        .min(d.plan.per_device.len().saturating_sub(1));
    for (i, o) in d.plan.per_device.iter().enumerate().skip(skip) {
        if y >= inner.bottom() {
            break;
        }
        let budget = match o.within_budget {
            Some(true) => Span::styled("ok", t.ok()),
            Some(false) => Span::styled("over", t.error()),
            None => Span::styled("-", t.dim()),
        };
        let cells: Vec<Line> = vec![
            format!("  {}", o.hardware_id).into(),
            format!("{} x {}", o.layout.tp, o.layout.pp).into(),
            o.batch.to_string().into(),
            o.replicas.to_string().into(),
            o.devices.to_string().into(),
            usd(Some(o.cost_per_hour_usd)).into(),
            usd(Some(o.cost_per_million_tokens_usd)).into(),
            Line::from(budget),
        ];
        grid::row(
            buf,
            inner,
            y,
            &cols,
            &w,
            &cells,
            (i == 0).then(|| t.accent()),
        );
        y += 1;
    }
}
