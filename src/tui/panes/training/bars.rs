//! The Training view's bars: the step's terms and the memory per device,
//! each segment drawn with its own character and named in a legend, so
//! that they read without colour and in ASCII.

use crate::tui::app::App;
use crate::tui::views::training::TrainingData;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// One segment of a bar: its name, size, character and style.
pub struct Segment {
    pub name: &'static str,
    pub value: f64,
    pub ch: char,
    pub style: Style,
}

/// The segments of the step bar, in the order of the step. The character
/// of each is distinct in Unicode and in ASCII (█ # · ▓ % · D T P E C ·
/// S · ░ . · H · o · +). Each collective shows the part that cannot hide;
/// the compute slowed beside the hidden parts is one segment of its own,
/// "overlap slowdown" (the `overlap slowdown` knob's cost).
pub fn step_segments(app: &App, d: &TrainingData) -> Vec<Segment> {
    let t = app.theme();
    let s = &d.training.step;
    let c = |i: usize| Style::new().fg(t.roof(i));
    let seg = |name, value, ch, style| Segment {
        name,
        value,
        ch,
        style,
    };
    vec![
        seg("compute", s.compute_s - s.recompute_s, '█', c(0)),
        seg("recompute", s.recompute_s, '▓', c(1)),
        seg("element-wise", s.elementwise_s, 'M', c(3)),
        seg("MoE routing", s.moe_routing_s, 'R', c(4)),
        seg("DP comm", unhidden(s.comm.dp), 'D', c(2)),
        seg("TP comm", unhidden(s.comm.tp), 'T', c(3)),
        seg("PP comm", unhidden(s.comm.pp), 'P', c(4)),
        seg("EP comm", unhidden(s.comm.ep), 'E', c(5)),
        seg("CP comm", unhidden(s.comm.cp), 'C', c(2)),
        seg("overlap slowdown", s.comm.slowed(), 'S', c(1)),
        seg("bubble", s.bubble_s, '░', t.dim()),
        seg("host copies", s.offload_s, 'H', c(5)),
        seg("optimizer", s.optimizer_s, 'o', c(1)),
        seg("overhead", s.overhead_s, '+', t.dim()),
    ]
}

/// The seconds of a collective that could not hide behind compute (its
/// exposed time less the slowdown beside its hidden part).
fn unhidden(c: crate::solver::training::step::CommTerm) -> f64 {
    c.exposed_s - c.slowed_s
}

/// The segments of the memory bar: weights, gradients, optimizer state,
/// activations, the last stage's logits, ZeRO 3's gathered layers and what
/// is free of the usable memory.
pub fn memory_segments(app: &App, d: &TrainingData) -> Vec<Segment> {
    let t = app.theme();
    let m = &d.training.memory;
    let c = |i: usize| Style::new().fg(t.roof(i));
    let mut segs = vec![
        Segment {
            name: "weights",
            value: m.weights,
            ch: '█',
            style: c(0),
        },
        Segment {
            name: "gradients",
            value: m.gradients,
            ch: '▓',
            style: c(1),
        },
        Segment {
            name: "optimizer",
            value: m.optimizer,
            ch: '▒',
            style: c(2),
        },
        Segment {
            name: "activations",
            value: m.activations,
            ch: '=',
            style: c(3),
        },
    ];
    // The last stage's logits and ZeRO 3's gathered layers only where a
    // run has them (the four states always show, zero or not).
    for (name, value, ch, style) in [
        // Under full recomputation the logits are freed before backward
        // rebuilds a layer (counted in the activations): only what they
        // add beyond it shows.
        ("logits", m.logits - m.reused, '~', c(4)),
        ("gathered layers", m.gathered, '@', c(5)),
    ] {
        if value > 0.0 {
            segs.push(Segment {
                name,
                value,
                ch,
                style,
            });
        }
    }
    segs.push(Segment {
        name: "free",
        value: (m.usable_bytes - m.total()).max(0.0),
        ch: '░',
        style: t.dim(),
    });
    segs
}

/// Cells of a bar `width` wide for each segment: proportional to its share
/// of the whole, rounded, never more than the width in all.
pub fn bar_cells(values: &[f64], width: usize) -> Vec<usize> {
    let total: f64 = values.iter().filter(|v| v.is_finite()).sum();
    let mut used = 0;
    values
        .iter()
        .map(|v| {
            let n = if total > 0.0 && v.is_finite() {
                (v / total * width as f64).round() as usize
            } else {
                0
            };
            let n = n.min(width - used);
            used += n;
            n
        })
        .collect()
}

pub(super) fn bar(segs: &[Segment], width: usize) -> Line<'static> {
    let cells = bar_cells(&segs.iter().map(|s| s.value).collect::<Vec<_>>(), width);
    let mut spans = vec![Span::raw(" ")];
    for (s, n) in segs.iter().zip(cells) {
        spans.push(Span::styled(s.ch.to_string().repeat(n), s.style));
    }
    Line::from(spans)
}

/// Items packed into lines of `width`, each line starting with `indent`.
pub(super) fn pack(
    items: Vec<Vec<Span<'static>>>,
    width: usize,
    indent: &str,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut cur: Vec<Span> = vec![Span::raw(indent.to_string())];
    let mut w = indent.len();
    for item in items {
        let iw: usize = item.iter().map(|s| s.width()).sum::<usize>() + 2;
        if w + iw > width && cur.len() > 1 {
            out.push(Line::from(std::mem::take(&mut cur)));
            cur.push(Span::raw(indent.to_string()));
            w = indent.len();
        }
        cur.extend(item);
        cur.push(Span::raw("  "));
        w += iw;
    }
    if cur.len() > 1 {
        out.push(Line::from(cur));
    }
    out
}

/// A legend: each segment's character and name, with its figure.
pub(super) fn legend(
    segs: &[Segment],
    figure: impl Fn(f64) -> String,
    keep_zero: bool,
    width: usize,
) -> Vec<Line<'static>> {
    let fg = Style::new();
    let items = segs
        .iter()
        .filter(|s| keep_zero || s.value > 0.0)
        .map(|s| {
            vec![
                Span::styled(s.ch.to_string(), s.style),
                Span::styled(format!(" {} {}", s.name, figure(s.value)), fg),
            ]
        })
        .collect();
    pack(items, width, "  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_cells_are_proportional_and_never_overflow() {
        // 3 : 1 of 8 cells = 6 and 2.
        assert_eq!(bar_cells(&[3.0, 1.0], 8), [6, 2]);
        // Thirds of 10 round to 3, 3, 3: one cell is left blank, none is
        // drawn twice.
        assert_eq!(bar_cells(&[1.0, 1.0, 1.0], 10), [3, 3, 3]);
        // Halves of 3 round up to 2 each: the second gets what is left.
        assert_eq!(bar_cells(&[1.0, 1.0], 3), [2, 1]);
        assert_eq!(bar_cells(&[0.0, 0.0], 5), [0, 0]);
        assert_eq!(bar_cells(&[f64::NAN, 1.0], 4), [0, 4]);
    }
}
