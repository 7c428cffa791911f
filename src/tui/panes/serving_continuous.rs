//! The Serving view under continuous batching: the steady state of a
//! replica whose steps carry prefill chunks beside the decodes (TTFT split
//! into the wait for room and the chunked prefill, ITL with the chunks
//! riding along, the prefill room in use, tokens per target step), with
//! the prefix cache and speculative decoding when set.

use super::serving::{columns, count, group, num, time, usd};
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::views::{ContinuousAt, ServingData};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The label that says which model is in use, and its settings.
fn mode_line(app: &App) -> String {
    let m = &app.view_inputs.serve;
    let pct = |x: f64| format!("{}%", units::format_number(x * 100.0));
    let spec = match &m.draft {
        Some(d) => format!(
            "draft {d}, {} proposed at {}",
            m.proposed,
            pct(m.acceptance)
        ),
        None => "no draft".into(),
    };
    format!(
        " CONTINUOUS batching · budget {} tok/step · prefix hit {} · {spec}",
        units::format_count(m.token_budget),
        pct(m.prefix_hit)
    )
}

pub fn render(app: &App, buf: &mut Buffer, inner: Rect, d: &ServingData, k: &ContinuousAt) {
    let t = app.theme();
    let (s, c) = (&d.serving, &k.c);
    let head = vec![
        Line::from(Span::styled(mode_line(app), t.header())),
        Line::from(Span::styled(
            format!(
                " {} in / {} out · {} seq · {} device{}",
                units::format_count(s.request.prompt),
                units::format_count(s.request.output),
                units::format_count(s.decode.batch),
                d.devices,
                if d.devices == 1 { "" } else { "s" },
            ),
            Style::new().fg(t.fg),
        )),
    ];
    super::text::draw_lines(buf, inner, &head, app.ascii);
    let head = head.len() as u16;
    let body = Rect {
        y: inner.y + head,
        height: inner.height.saturating_sub(head),
        ..inner
    };
    // A replica that does not fit has no figures.
    if !c.fits {
        let x = crate::solver::compare::Verdict::cross(app.ascii);
        let text = format!(
            " {x} DOES NOT FIT at full context: {} per device{}, {} usable; add devices (TP, PP) or lower the batch",
            units::format_bytes(c.footprint_bytes),
            if app.view_inputs.serve.draft.is_some() {
                " with the draft"
            } else {
                ""
            },
            units::format_bytes(s.usable_bytes),
        );
        let shown: Vec<Line> = super::text::fit(&text, body.width as usize, 4, app.ascii)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, t.error())))
            .collect();
        super::text::draw_lines(buf, body, &shown, app.ascii);
        return;
    }
    let w = if body.width >= 70 {
        (body.width / 2).min(48)
    } else {
        body.width
    } as usize;
    // The calibration band is a share of the figure: the same share here.
    let share = |x: f64, (lo, hi): (f64, f64), of: f64| (x * lo / of, x * hi / of);
    let ttft = share(c.ttft_s, s.ttft_range(), s.ttft_s);
    let itl = share(c.itl_s, s.itl_range(), s.itl_s);
    let steps = (s.request.output - 1.0).max(0.0);
    let batch = s.decode.batch;
    let latency = group(
        app,
        "Latency (continuous)",
        &[
            ("time to first token", time(c.ttft_s, ttft)),
            ("  waiting for room", units::format_time(c.wait_s).into()),
            ("  prefill, chunked", units::format_time(c.prefill_s).into()),
            ("inter-token, chunks in", time(c.itl_s, itl)),
            (
                "end-to-end request",
                time(c.e2e_s, (ttft.0 + steps * itl.0, ttft.1 + steps * itl.1)),
            ),
        ],
        w,
    );
    let throughput = group(
        app,
        "Throughput",
        &[
            (
                "tokens/s per user",
                count(1.0 / c.itl_s, (1.0 / itl.1, 1.0 / itl.0)),
            ),
            (
                "tokens/s, all sequences",
                count(c.tokens_per_s, (batch / itl.1, batch / itl.0)),
            ),
            ("requests/s", num(Some(c.requests_per_s)).into()),
            (
                "tokens per target step",
                units::format_number(c.tokens_per_step).into(),
            ),
        ],
        w,
    );
    let step = group(
        app,
        "A step",
        &[
            (
                "prefill tokens/step",
                units::format_number(c.prefill_per_step).into(),
            ),
            ("prefill room", units::format_count(c.prefill_room).into()),
            (
                "room in use",
                format!("{}%", units::format_number(c.utilization * 100.0)).into(),
            ),
            (
                "memory/device",
                units::format_bytes(c.footprint_bytes).into(),
            ),
        ],
        w,
    );
    let e = &k.economics;
    let title = format!("Cost and carbon ({})", k.region.id);
    let cost = group(
        app,
        &title,
        &[
            ("$/hour", usd(e.cost_per_hour_usd).into()),
            (
                "$ per million tokens",
                usd(e.cost_per_million_tokens_usd).into(),
            ),
            (
                "g CO2 per million tokens",
                num(k.region.co2_per_mtok_g).into(),
            ),
        ],
        w,
    );
    columns(buf, body, vec![latency, throughput, step, cost]);
}
