//! The Training view's scaling plot: tokens/s against devices, log-log,
//! for each count's fastest layout at the step's global batch, the ideal
//! line from the first count that runs (dashed), each point marked by its
//! binding term (a letter, so the marks read without colour and in
//! ASCII), the layout in use highlighted, the knee with its reason, and on
//! a torus the count where the job leaves one pod's ICI.

use crate::solver::training::step::Term;
use crate::solver::units;
use crate::tui::app::App;
use crate::tui::panes::plot::raster::Raster;
use crate::tui::panes::plot::scale::Mapper;
use crate::tui::panes::plot::{Bounds, draw_axes, marks::Marks, paint, put};
use crate::tui::panes::text;
use crate::tui::views::training::{Curve, TrainingData};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

/// The mark of a binding term on the plot: a glyph for compute, a letter
/// for each other term (D for DP gradients, T for TP, P for PP sends, E,
/// C, B for the bubble, O for the optimizer, V for overhead, M for the
/// element-wise kernels, R for an MoE's routing).
pub fn term_mark(t: Term, ascii: bool) -> char {
    match t {
        Term::Compute if ascii => 'o',
        Term::Compute => '●',
        Term::Elementwise => 'M',
        Term::MoeRouting => 'R',
        Term::DpComm => 'D',
        Term::TpComm => 'T',
        Term::PpComm => 'P',
        Term::EpComm => 'E',
        Term::CpComm => 'C',
        Term::Bubble => 'B',
        Term::Offload => 'H',
        Term::Optimizer => 'O',
        Term::Overhead => 'V',
    }
}

/// The mark of the layout in use.
pub fn here_mark(ascii: bool) -> char {
    if ascii { '@' } else { '◆' }
}

const IDEAL: Marks = Marks {
    dash: &[2, 2],
    glyph: ' ',
    ascii: '.',
    point: ' ',
};
const CURVE: Marks = Marks {
    dash: &[],
    glyph: ' ',
    ascii: '-',
    point: ' ',
};

/// The word the plot's head starts with while the curve of the current
/// inputs is computed (and the curve drawn is of the inputs before).
pub const UPDATING: &str = "UPDATING";

/// Draw the plot of `c` into `area` (the view's inner area).
pub fn draw(app: &App, d: &TrainingData, c: &Curve, buf: &mut Buffer, area: Rect) {
    let t = app.theme();
    let w = area.width as usize;
    let step = &d.training.step;
    // The batch of the curve drawn: the inputs' own, or while updating the
    // one the last curve was computed at.
    let batch = c
        .result
        .as_deref()
        .and_then(|r| r.as_ref().ok())
        .filter(|_| c.updating)
        .and_then(|s| s.reference())
        .map_or(d.training.run.global_batch_tokens, |(_, f)| {
            f.run.global_batch_tokens
        });
    let what = format!(
        "tokens/s against devices, {} tokens a step, each count's fastest layout",
        units::format_tokens(batch)
    );
    let (head, head_style) = match (c.updating, c.result.is_some()) {
        (false, _) => (format!(" {what}"), t.header()),
        (true, true) => (
            format!(" {UPDATING} (the curve of the inputs before): {what}"),
            t.warn(),
        ),
        (true, false) => (format!(" {UPDATING}: computing {what}"), t.warn()),
    };
    let mut y = area.y;
    for line in text::fit(&head, w.saturating_sub(1), 2, app.ascii) {
        put(buf, area, area.x, y, &line, head_style);
        y += 1;
    }
    let Some(s) = c.result.as_deref() else {
        let n = crate::tui::views::training::scaling_devices();
        let note = format!(
            "the fastest layout at each of {} device counts, {} to {}: drawn when they are found",
            n.len(),
            n.first().copied().unwrap_or(0),
            n.last().copied().unwrap_or(0)
        );
        for line in text::fit(&note, w.saturating_sub(2), 2, app.ascii) {
            put(buf, area, area.x + 1, y, &line, t.dim());
            y += 1;
        }
        return;
    };
    let s = match s {
        Ok(s) => s,
        Err(e) => {
            for line in text::fit(e, w.saturating_sub(2), 3, app.ascii) {
                put(buf, area, area.x + 1, y, &line, t.error());
                y += 1;
            }
            return;
        }
    };
    let pts: Vec<(u32, f64, Term)> = s
        .points
        .iter()
        .filter_map(|p| {
            p.figures()
                .map(|f| (p.devices, f.step.tokens_per_s, f.step.binding))
        })
        .collect();
    let Some((n0, f0)) = s.reference() else {
        put(
            buf,
            area,
            area.x + 1,
            y,
            "no device count from 8 to 16384 runs this: no curve to plot",
            t.error(),
        );
        return;
    };
    let per = f0.tokens_per_s_per_device;
    // Under the chart: the knee, the marks, the layout in use.
    let mut notes: Vec<(String, Style)> = Vec::new();
    match &s.knee {
        Some(k) => notes.push((
            format!(" knee at {} devices: {}", k.devices, k.reason),
            t.warn(),
        )),
        None => notes.push((
            " no knee: every count keeps 80% of the ideal line".into(),
            t.dim(),
        )),
    }
    let mut seen: Vec<Term> = Vec::new();
    for (_, _, b) in &pts {
        if !seen.contains(b) {
            seen.push(*b);
        }
    }
    let legend: Vec<String> = seen
        .iter()
        .map(|b| format!("{} {}", term_mark(*b, app.ascii), b.name()))
        .collect();
    let ideal = if app.ascii { "...." } else { "┄┄" };
    let fits = d.fits();
    let here = if fits {
        format!(
            " · {} this layout ({} devices)",
            here_mark(app.ascii),
            d.training.devices()
        )
    } else {
        String::new()
    };
    notes.push((
        format!(
            " {} · {ideal} ideal ({} tokens/s per device, from {n0}){here}",
            legend.join(" "),
            units::format_number(per)
        ),
        t.dim(),
    ));
    let mut lines: Vec<(String, Style)> = Vec::new();
    for (n, style) in &notes {
        for l in text::fit(n, w.saturating_sub(1), 3, app.ascii) {
            lines.push((l, *style));
        }
    }
    let bottom = area.bottom();
    let room = bottom.saturating_sub(y);
    let note_rows = (lines.len() as u16).min(room.saturating_sub(6));
    let chart = Rect {
        x: area.x,
        y,
        width: area.width,
        height: room - note_rows,
    };
    for (i, (l, style)) in lines.iter().take(note_rows as usize).enumerate() {
        put(buf, area, area.x, chart.bottom() + i as u16, l, *style);
    }
    if chart.height < 5 || chart.width < 20 {
        return;
    }
    // Bounds: whole decades around the counts and every rate, the ideal
    // line's included.
    let lg = f64::log10;
    let first = s.points.first().map_or(8, |p| p.devices) as f64;
    let last = s.points.last().map_or(16384, |p| p.devices) as f64;
    let mut ys: Vec<f64> = pts.iter().map(|p| lg(p.1)).collect();
    ys.push(lg(per * last));
    ys.push(lg(per * first));
    if fits {
        ys.push(lg(step.tokens_per_s));
    }
    let ymin = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let ymax = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let b = Bounds {
        x: [lg(first) - 0.1, lg(last) + 0.1],
        y: [ymin.floor(), ymax.ceil().max(ymin.floor() + 1.0)],
    };
    let ylabels: Vec<String> = crate::tui::panes::plot::decades(b.y)
        .map(|d| units::format_count(10f64.powi(d)))
        .collect();
    let yw = ylabels.iter().map(|l| l.len()).max().unwrap_or(1) as u16 + 1;
    let graph = Rect {
        x: chart.x + yw + 1,
        y: chart.y,
        width: chart.width.saturating_sub(yw + 3),
        height: chart.height - 2,
    };
    let dpc = if app.ascii { (1, 1) } else { (2, 4) };
    let map = Mapper {
        area: graph,
        b,
        dpc,
    };
    let mut r = Raster::new(graph.width, graph.height, dpc);
    let ideal_line = [
        map.dot(lg(first), lg(per * first)),
        map.dot(lg(last), lg(per * last)),
    ];
    r.polyline(&ideal_line, IDEAL.dash, 0);
    let curve: Vec<(f64, f64)> = pts
        .iter()
        .map(|p| map.dot(lg(p.0 as f64), lg(p.1)))
        .collect();
    r.polyline(&curve, CURVE.dash, 1);
    paint(
        &r,
        &[(IDEAL, t.dim), (CURVE, t.roof(0))],
        app.ascii,
        graph,
        buf,
    );
    draw_axes(app, &map, chart, yw, &ylabels, buf);
    // On a torus, the count past which a job leaves one pod's ICI.
    let hw = &app.catalog.hardware[app.hw].hw;
    if hw.torus.is_some() {
        let pod = hw.devices_per_node as f64;
        if let (Some((cx, top)), Some((_, foot))) =
            (map.cell(lg(pod), b.y[1]), map.cell(lg(pod), b.y[0]))
        {
            let column = if app.ascii { ":" } else { "┊" };
            for yy in top..=foot {
                if buf[(cx, yy)].symbol() == " " {
                    put(buf, graph, cx, yy, column, Style::new().fg(t.ridge));
                }
            }
            put(buf, graph, cx + 1, top, "one pod", Style::new().fg(t.ridge));
        }
    }
    // The points, the knee's in the warning style, then the layout in use.
    let knee = s.knee.as_ref().map(|k| k.devices);
    for &(n, v, term) in &pts {
        if let Some((cx, cy)) = map.cell(lg(n as f64), lg(v)) {
            let style = if Some(n) == knee {
                t.warn()
            } else {
                t.accent()
            };
            put(
                buf,
                graph,
                cx,
                cy,
                &term_mark(term, app.ascii).to_string(),
                style,
            );
        }
    }
    if fits && let Some((cx, cy)) = map.cell(lg(d.training.devices() as f64), lg(step.tokens_per_s))
    {
        put(
            buf,
            graph,
            cx,
            cy,
            &here_mark(app.ascii).to_string(),
            t.selected(),
        );
    }
    if let Some(k) = knee
        && let Some(v) = pts.iter().find(|p| p.0 == k).map(|p| p.1)
        && let Some((cx, cy)) = map.cell(lg(k as f64), lg(v))
    {
        let label = "knee";
        let x = if cx + 2 + label.len() as u16 <= graph.right() {
            cx + 2
        } else {
            cx.saturating_sub(label.len() as u16 + 1)
        };
        let row = if cy + 1 < graph.bottom() {
            cy + 1
        } else {
            cy.saturating_sub(1)
        };
        put(buf, graph, x, row, label, t.warn());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_has_its_own_mark_in_both_modes() {
        const ALL: [Term; 12] = Term::ALL;
        for ascii in [false, true] {
            let mut marks: Vec<char> = ALL.iter().map(|t| term_mark(*t, ascii)).collect();
            marks.push(here_mark(ascii));
            marks.sort_unstable();
            marks.dedup();
            assert_eq!(marks.len(), ALL.len() + 1, "ascii {ascii}");
            assert!(!ascii || marks.iter().all(char::is_ascii));
        }
    }
}
