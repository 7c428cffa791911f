//! The Synthesis view: a target typed into the entry ("50ms itl", "100ms
//! ttft", "30 tok/s per user") gives the FLOP/s, bandwidth, memory and link
//! a device needs, and the catalog devices and counts that meet it,
//! cheapest first. An infeasible target says why.

use super::block;
use super::grid::{self, fill, right};
use super::serving::usd;
use crate::solver::units;
use crate::tui::action::Command;
use crate::tui::app::{App, Mode, Pane};
use crate::tui::knobs::Knob;
use crate::tui::views::ViewData;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let shown = app.shown_view();
    let mut extra = Vec::new();
    if let Some((_, true)) = shown {
        extra.push(Span::styled(" LAST VALID ", t.stale()));
        extra.push(Span::raw(" "));
    }
    let b = block(app, Pane::View, extra);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let buf = frame.buffer_mut();
    // The target line: the entry's text while typing (error colour when it
    // does not read), else the target in use.
    let editing =
        app.mode == Mode::Edit && app.edit.as_ref().is_some_and(|e| e.knob == Knob::Target);
    let mut target = vec![Span::styled(" target ", t.header())];
    if editing && let Some(e) = &app.edit {
        let text = e.text.lines().first().cloned().unwrap_or_default();
        let style = if e.error.is_some() {
            t.error()
        } else {
            t.accent()
        };
        target.push(Span::styled(format!("[{text}_]"), style));
        if let Some(err) = &e.error {
            target.push(Span::styled(format!("  {err}"), t.error()));
        }
    } else {
        target.push(Span::styled(
            format!("[{}]", app.view_inputs.target),
            t.accent(),
        ));
        target.push(Span::styled(
            format!(
                "  {}: \"50ms itl\", \"100ms ttft\", \"30 tok/s per user\"",
                app.keymap.first_key(Command::Edit)
            ),
            t.dim(),
        ));
    }
    let mut out = vec![Line::from(target)];
    let Some((ViewData::Synthesis(d), _)) = shown else {
        if let Err(e) = &app.view_data {
            out.push(Line::from(Span::styled(format!(" {e}"), t.error())));
        }
        super::text::draw_lines(buf, inner, &out, app.ascii);
        return;
    };
    let r = &d.requirement;
    out.push(Line::from(Span::styled(
        format!(
            " {} at batch {}, context {}, TP {} x PP {}, {}",
            d.phase.name(),
            units::format_count(d.workload.batch),
            units::format_count(d.workload.context),
            d.workload.tp,
            d.workload.pp,
            r.compute_precision.name()
        ),
        t.dim(),
    )));
    let fmt = |x: f64, f: fn(f64) -> String| {
        if x.is_finite() { f(x) } else { "-".into() }
    };
    // "bandwidth" shortens to "BW" where the whole line would not fit.
    let bw_label = if inner.width < 84 {
        " · BW "
    } else {
        " · bandwidth "
    };
    out.push(Line::from(vec![
        Span::styled(" required ", t.header()),
        Span::styled("compute ", Style::new().fg(t.fg)),
        Span::styled(fmt(r.required_flops_per_s, units::format_flops), t.accent()),
        Span::styled(bw_label, Style::new().fg(t.fg)),
        Span::styled(
            fmt(r.required_memory_bandwidth, units::format_bandwidth),
            t.accent(),
        ),
        Span::styled(" · memory ", Style::new().fg(t.fg)),
        Span::styled(units::format_bytes(r.required_memory_bytes), t.accent()),
        Span::styled(" · link ", Style::new().fg(t.fg)),
        Span::styled(
            r.required_link_bandwidth
                .map_or("none".into(), units::format_bandwidth),
            t.accent(),
        ),
    ]));
    if let Some(why) = &r.reason {
        for l in super::text::wrap(
            &format!("INFEASIBLE: {why}"),
            (inner.width as usize).saturating_sub(2),
            app.ascii,
        ) {
            out.push(Line::from(Span::styled(format!(" {l}"), t.error())));
        }
    }
    let n = d.matches.len();
    out.push(Line::from(Span::styled(
        if n == 0 {
            " no catalog device or layout meets this target and holds the model".to_string()
        } else {
            format!(" {n} device layouts meet it and fit, cheapest first (up/down scroll):")
        },
        if n == 0 { t.warn() } else { t.ok() },
    )));
    super::text::draw_lines(buf, inner, &out, app.ascii);
    if n == 0 {
        return;
    }
    let table = Rect {
        width: inner.width.min(90),
        y: inner.y + out.len() as u16,
        height: inner.height.saturating_sub(out.len() as u16),
        ..inner
    };
    let cols = [fill(), right(8), right(7), right(9), right(9), right(9)];
    let widths = grid::widths(&cols, table.width);
    let head: Vec<Line> = [
        "  device", "TP x PP", "devices", "latency", "tokens/s", "$/hour",
    ]
    .into_iter()
    .map(Line::from)
    .collect();
    grid::row(buf, table, table.y, &cols, &widths, &head, Some(t.dim()));
    let skip = app.view_scroll.min(n.saturating_sub(1));
    for (i, m) in d.matches.iter().enumerate().skip(skip) {
        let y = table.y + 1 + (i - skip) as u16;
        if y >= table.bottom() {
            break;
        }
        let cells: Vec<Line> = vec![
            format!("  {}", m.hardware_id).into(),
            format!("{} x {}", m.layout.tp, m.layout.pp).into(),
            m.devices().to_string().into(),
            units::format_time(m.latency_s).into(),
            units::format_count(m.tokens_per_s).into(),
            usd(m.cost_per_hour_usd).into(),
        ];
        let style = (i == 0).then(|| t.accent());
        grid::row(buf, table, y, &cols, &widths, &cells, style);
    }
}
