//! The Serving view: time to first token, inter-token and end-to-end
//! latency for the prompt and output lengths, the KV cache, the most
//! sequences that fit, a memory bar, throughput, cost, energy and carbon.

use super::{band, lines, view_frame};
use crate::solver::roofline::range;
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::views::ViewData;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// "$3.50", "-" when unknown.
pub fn usd(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("${}", units::format_number(v)),
        _ => "-".into(),
    }
}

/// A number or "-".
pub fn num(x: Option<f64>) -> String {
    x.filter(|v| v.is_finite())
        .map_or("-".into(), units::format_number)
}

/// A figure and its error band ("(6.0-7.3)"), the band shown when the
/// column has room for it.
pub struct Figure {
    pub value: String,
    pub band: Option<String>,
}

impl From<String> for Figure {
    fn from(value: String) -> Figure {
        Figure { value, band: None }
    }
}

/// A time and its band.
pub(super) fn time(x: f64, range: (f64, f64)) -> Figure {
    let value = units::format_time(x);
    let band = band::ends(&value, range, units::format_time);
    Figure { value, band }
}

/// A count and its band.
pub(super) fn count(x: f64, range: (f64, f64)) -> Figure {
    let value = units::format_count(x);
    let band = band::ends(&value, range, units::format_count);
    Figure { value, band }
}

/// A header line and label/value rows, as lines of `width`; a value's band
/// is left out where the label would touch it.
pub fn group(app: &App, title: &str, rows: &[(&str, Figure)], width: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let mut out = vec![Line::from(Span::styled(format!(" {title}"), t.header()))];
    for (label, f) in rows {
        // Two columns of indent, a space after the label, one before the next column.
        let room = width.saturating_sub(label.chars().count() + 4);
        let value = match &f.band {
            Some(b) if f.value.chars().count() + 1 + b.chars().count() <= room => {
                format!("{} {b}", f.value)
            }
            _ => f.value.clone(),
        };
        // The value whole (told shorter if it must be, never cut): the
        // label gives way, after a whole word.
        let given = value;
        let value = super::cell::fit(&given, width.saturating_sub(3)).unwrap_or(given.clone());
        #[cfg(test)]
        super::grid::seen::record(
            &Line::from(given.as_str()),
            &Line::from(value.as_str()),
            width.saturating_sub(3) as u16,
        );
        let lw = width.saturating_sub(value.chars().count() + 2).max(1);
        let room = lw.saturating_sub(2);
        let label = if super::text::width(label) > room {
            super::text::clip(label, room, app.ascii)
        } else {
            label.to_string()
        };
        out.push(Line::from(vec![
            Span::styled(
                format!("  {label:<lw$}", lw = lw.saturating_sub(1)),
                Style::new().fg(t.fg),
            ),
            Span::styled(value.clone(), t.accent()),
        ]));
    }
    out
}

/// Groups side by side in two columns when the area is wide, else stacked.
pub fn columns(
    buf: &mut ratatui::buffer::Buffer,
    area: Rect,
    groups: Vec<Vec<Line<'static>>>,
) -> u16 {
    let two = area.width >= 70;
    if !two {
        let all: Vec<Line> = groups.into_iter().flatten().collect();
        lines(buf, area, &all);
        return all.len() as u16;
    }
    let half = (area.width / 2).min(48);
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for (i, g) in groups.into_iter().enumerate() {
        if i % 2 == 0 {
            left.extend(g);
        } else {
            right.extend(g);
        }
    }
    lines(
        buf,
        Rect {
            width: half,
            ..area
        },
        &left,
    );
    lines(
        buf,
        Rect {
            x: area.x + half,
            width: (area.width - half).min(48),
            ..area
        },
        &right,
    );
    left.len().max(right.len()) as u16
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((ViewData::Serving(d), inner)) = view_frame(app, frame, area, |_| Vec::new()) else {
        return;
    };
    let two = inner.width >= 70;
    let w = if two {
        (inner.width / 2).min(48)
    } else {
        inner.width
    } as usize;
    if let Some(k) = &d.continuous {
        super::serving_continuous::render(app, frame.buffer_mut(), inner, d, k);
        return;
    }
    let asked = &d.serving;
    // The figures of the replica that runs: as asked, else on the fewest
    // devices that hold it (said so first); none when nothing does.
    let Some((s, devices, e, region)) = d.running() else {
        let x = crate::solver::compare::Verdict::cross(app.ascii);
        let why = crate::solver::compare::no_layout_reason(&app.catalog.hardware[app.hw].hw);
        let text = format!(" {x} does not fit at full context: {why}");
        let buf = frame.buffer_mut();
        let lines_ = super::text::fit(&text, inner.width as usize, 3, app.ascii);
        let shown: Vec<Line> = lines_
            .into_iter()
            .map(|l| Line::from(Span::styled(l, t.error())))
            .collect();
        super::text::draw_lines(buf, inner, &shown, app.ascii);
        let y = inner.y + shown.len() as u16 + 1;
        if y + 1 < inner.bottom() {
            memory_bar(app, d, buf, Rect::new(inner.x, y, inner.width, 2));
        }
        return;
    };
    let head = if asked.fits {
        Line::from(vec![
            Span::styled(
                format!(
                    " {} in / {} out · {} seq · {} device{}",
                    units::format_count(s.request.prompt),
                    units::format_count(s.request.output),
                    units::format_count(s.decode.batch),
                    devices,
                    if devices == 1 { "" } else { "s" },
                ),
                Style::new().fg(t.fg),
            ),
            Span::styled(
                format!(
                    " · prefill {}, decode {}-bound",
                    s.prefill.bottleneck.name(),
                    s.decode.bottleneck.name()
                ),
                t.dim(),
            ),
        ])
    } else {
        let x = crate::solver::compare::Verdict::cross(app.ascii);
        Line::from(Span::styled(
            format!(
                " {x} needs {devices} devices at full context: the figures below are on {devices} (TP {} x PP {})",
                d.at_fit.as_ref().map_or(1, |a| a.layout.tp),
                d.at_fit.as_ref().map_or(1, |a| a.layout.pp),
            ),
            t.error(),
        ))
    };
    // Static batching prefills the batch's prompts together: a request
    // waits for all of them (the command line's `ttft_batch_s`).
    let scaled = |(lo, hi): (f64, f64), r: f64| (lo * r, hi * r);
    let mut rows = vec![("time to first token", time(s.ttft_s, s.ttft_range()))];
    if s.decode.batch > 1.0 {
        let r = s.ttft_batch_s / s.ttft_s;
        rows.push((
            "  whole static batch",
            time(s.ttft_batch_s, scaled(s.ttft_range(), r)),
        ));
    }
    rows.push(("inter-token latency", time(s.itl_s, s.itl_range())));
    rows.push(("end-to-end request", time(s.e2e_s, s.e2e_range())));
    let latency = group(app, "Latency", &rows, w);
    let throughput = group(
        app,
        "Throughput",
        &[
            (
                "tokens/s per user",
                count(
                    s.tokens_per_s_per_user,
                    range(s.tokens_per_s_per_user, s.decode.band),
                ),
            ),
            (
                "tokens/s, all sequences",
                count(s.tokens_per_s, range(s.tokens_per_s, s.decode.band)),
            ),
            (
                "max concurrent sequences",
                s.max_concurrent.to_string().into(),
            ),
        ],
        w,
    );
    let kv = group(
        app,
        "KV cache",
        &[
            (
                "per token",
                units::format_bytes(s.kv_bytes_per_token).into(),
            ),
            (
                "per sequence",
                units::format_bytes(s.kv_bytes_per_sequence).into(),
            ),
        ],
        w,
    );
    let region_title = format!("Cost and carbon ({})", region.id);
    let cost = group(
        app,
        &region_title,
        &[
            ("$/hour", usd(e.cost_per_hour_usd).into()),
            (
                "$ per million tokens",
                usd(e.cost_per_million_tokens_usd).into(),
            ),
            (
                "energy per token",
                e.energy_per_token_j
                    .map_or("-".into(), |j| format!("{} J", units::format_number(j)))
                    .into(),
            ),
            (
                "g CO2 per million tokens",
                num(region.co2_per_mtok_g).into(),
            ),
        ],
        w,
    );
    let buf = frame.buffer_mut();
    super::text::draw_lines(buf, inner, &[head], app.ascii);
    let body = Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    };
    let used = columns(buf, body, vec![latency, throughput, kv, cost]);
    // The memory bar, under the figures.
    let y = body.y + used + 1;
    if y + 1 < inner.bottom() {
        memory_bar(app, d, buf, Rect::new(inner.x, y, inner.width, 2));
    }
}

fn memory_bar(
    app: &App,
    d: &crate::tui::views::ServingData,
    buf: &mut ratatui::buffer::Buffer,
    area: Rect,
) {
    let t = app.theme();
    let s = &d.serving;
    let f = &s.footprint;
    let total = s.usable_bytes.max(f.total());
    let parts = [
        ("weights", f.weights, '█', Style::new().fg(t.roof(0))),
        ("KV", f.kv, '▓', Style::new().fg(t.roof(1))),
        ("work", f.workspace, '▒', Style::new().fg(t.roof(2))),
        ("free", s.free_bytes().max(0.0), '░', t.dim()),
    ];
    // The verdict first, so that a narrow screen never cuts it.
    let mut legend = if s.fits {
        Vec::new()
    } else {
        vec![Span::styled(
            format!(
                " {} DOES NOT FIT on {} device{} as asked:",
                crate::solver::compare::Verdict::cross(app.ascii),
                d.devices,
                if d.devices == 1 { "" } else { "s" }
            ),
            t.error(),
        )]
    };
    legend.push(Span::styled(
        format!(" Memory {}: ", units::format_bytes(s.usable_bytes)),
        t.header(),
    ));
    for (i, (name, bytes, ch, style)) in parts.iter().enumerate() {
        if i > 0 {
            legend.push(Span::raw(" "));
        }
        legend.push(Span::styled(format!("{ch}"), *style));
        legend.push(Span::raw(format!(
            " {name} {}",
            units::format_bytes(*bytes)
        )));
    }
    let width = area.width.saturating_sub(2) as f64;
    let mut bar = vec![Span::raw(" ")];
    let mut used = 0usize;
    for (i, (_, bytes, ch, style)) in parts.iter().enumerate() {
        let n = if i == parts.len() - 1 {
            (width as usize).saturating_sub(used)
        } else if total > 0.0 {
            ((bytes / total) * width).round() as usize
        } else {
            0
        };
        let n = n.min((width as usize).saturating_sub(used));
        used += n;
        bar.push(Span::styled(ch.to_string().repeat(n), *style));
    }
    let legend = super::text::clip_line(Line::from(legend), area.width as usize, app.ascii);
    lines(buf, area, &[legend, Line::from(bar)]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::tui::app::Settings;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_value_stays_whole_and_the_label_gives_way() {
        let app = App::new(Catalog::builtin(), Settings::default());
        let rows = [
            ("tokens/s, all sequences", "1.23M".to_string().into()),
            ("$ per million tokens", "$-2.33e-5".to_string().into()),
        ];
        // 20 columns: two of indent, the label padded to 20 - 5 - 2 - 1 =
        // 12 and "1.23M" (5), the last column left free; the label keeps a
        // space before the value, so it is cut to 11 after a whole word:
        // "tokens/s, …".
        let lines = group(&app, "Throughput", &rows, 20);
        assert_eq!(text(&lines[1]), "  tokens/s, … 1.23M");
        // "$-2.33e-5" (9) fits 20 - 3 = 17; the label gets 20 - 9 - 4 = 7:
        // "$ per …".
        assert_eq!(text(&lines[2]), "  $ per … $-2.33e-5");
        // 10 columns: the value in 7 ("$-2e-5", six: fewer digits, never
        // cut), no room left for the label.
        let lines = group(&app, "Throughput", &rows, 10);
        assert_eq!(text(&lines[2]), "   $-2e-5");
        for l in &lines[1..] {
            assert!(l.width() <= 10, "{:?}", text(l));
        }
    }
}
