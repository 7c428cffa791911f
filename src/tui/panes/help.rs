//! The help screen: the keys, generated from the keymap so they cannot
//! drift from it, then the glossary and how to read the sensitivity table
//! (docs/workbench.md's glossary is [`glossary_markdown`], kept equal by a test).

use super::clamp_rect;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::ui::{MIN_HEIGHT, MIN_WIDTH};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

/// The words on screen, one line each.
pub const GLOSSARY: &[(&str, &str)] = &[
    (
        "arithmetic intensity",
        "FLOPs a step does per byte it moves (FLOP/B): the x axis of the roofline plot.",
    ),
    (
        "ridge point",
        "the intensity where the compute roof meets the memory roof, peak FLOP/s / bandwidth: left of it a step is memory-bound, right of it compute-bound.",
    ),
    (
        "elasticity",
        "d ln T / d ln x, the % change of the step time T for a 1% change of x: -1 means T falls in proportion, 0 means x does not matter here.",
    ),
    (
        "binding constraint",
        "the parameter with the largest |elasticity|: peak FLOP/s, memory bandwidth, link bandwidth, or overhead; the one worth paying for.",
    ),
    (
        "overhead",
        "the fixed time of every step, kernel launches and framework plus link latency; it binds tiny models on big devices, and no faster hardware shortens it.",
    ),
    (
        "headroom",
        "how far the next of compute and memory could fall before it binds: \"peak FLOP/s can fall 268x\" means a 268x slower device would lose nothing.",
    ),
    (
        "MFU",
        "model FLOP/s utilization: the FLOP/s a step achieves over the device's peak.",
    ),
    (
        "MBU",
        "memory bandwidth utilization: the bytes/s a step achieves over the device's peak bandwidth.",
    ),
    (
        "TTFT",
        "time to first token: the prefill of the prompt, before the first output token.",
    ),
    (
        "ITL",
        "inter-token latency: one decode step, the time between two output tokens.",
    ),
    (
        "profile",
        "a named set of assumptions (efficiencies, fixed times per step, kernel and collective, the band) fitted to a serving stack's published measurements: default, vllm, tensorrt-llm, ...; roofline and ideal are the plain model. The profile knob picks one; another assumption knob then marks it changed (default*).",
    ),
    (
        "band",
        "the error band after a time or rate, 7.78 ms (7.0-8.6): where the profile's calibration puts the figure, wider with more fixed costs, more devices or 8-bit formats; roofline and ideal have none.",
    ),
];

/// How to read the sensitivity table, a line each.
pub const READING_SENSITIVITY: &[&str] = &[
    "Each row is a parameter: \"elast.\" is its elasticity, \"+10%\" the change of step time when it grows 10% (a finite step).",
    "A bar left of the centre: more of it speeds the step up; right of it: more of it slows the step down.",
    "The marked row is the binding constraint; its elasticity is about the share of the step it controls.",
    "Peak FLOP/s and memory bandwidth sum to about -1, less the share of the fixed overhead; near 0, a parameter does not matter here.",
    "The precision row is a discrete step (weights and KV one format narrower), so it has a change and no elasticity.",
];

/// The glossary as docs/workbench.md shows it: a table of the terms, then how to
/// read the sensitivity table.
pub fn glossary_markdown() -> String {
    let mut out = String::from("| term | meaning |\n|---|---|\n");
    for (term, meaning) in GLOSSARY {
        out.push_str(&format!("| {term} | {} |\n", meaning.replace('|', "\\|")));
    }
    out.push_str("\nReading the sensitivity table:\n\n");
    for l in READING_SENSITIVITY {
        out.push_str(&format!("- {l}\n"));
    }
    out
}

/// Every line of the help at text width `width`: the keys, the glossary,
/// how to read the sensitivity table. Long lines wrap at word boundaries.
fn help_lines(app: &App, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let rows = app.keymap.help_rows();
    let kw = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(4).min(22);
    let mut lines = Vec::new();
    // `head` then `text`, wrapped; continuation lines indented by `hang`.
    let entry =
        |lines: &mut Vec<Line<'static>>, head: String, hang: usize, style: Style, text: &str| {
            let first = width.saturating_sub(head.chars().count());
            let parts =
                super::text::wrap_hanging(text, first, width.saturating_sub(hang), app.ascii);
            for (i, part) in parts.into_iter().enumerate() {
                let lead = if i == 0 {
                    Span::styled(head.clone(), style)
                } else {
                    Span::raw(" ".repeat(hang))
                };
                lines.push(Line::from(vec![
                    lead,
                    Span::styled(part, Style::new().fg(t.fg)),
                ]));
            }
        };
    for (k, d) in &rows {
        entry(&mut lines, format!(" {k:>kw$}  "), kw + 3, t.accent(), d);
    }
    lines.push(Line::from(Span::styled(
        " keys: [keys] in config.toml, e.g. mark = \"m\"",
        t.dim(),
    )));
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(" Glossary", t.title(true))));
    for (term, meaning) in GLOSSARY {
        entry(&mut lines, format!(" {term}: "), 3, t.accent(), meaning);
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        " Reading the sensitivity table",
        t.title(true),
    )));
    for l in READING_SENSITIVITY {
        entry(&mut lines, " - ".to_string(), 3, t.dim(), l);
    }
    lines
}

/// The widest the help's text gets (it wraps beyond).
const TEXT_WIDTH: u16 = 90;

/// The most lines the help scrolls by: on the smallest screen, its last line
/// at the bottom of the box. Larger screens need less; `render` stops there.
pub fn max_scroll(app: &App) -> usize {
    let (w, h) = (MIN_WIDTH, MIN_HEIGHT);
    let lines = help_lines(app, app.theme(), text_width(w) as usize).len();
    lines.saturating_sub(h as usize - 2)
}

/// The text width of the help on a screen `screen_width` wide.
fn text_width(screen_width: u16) -> u16 {
    TEXT_WIDTH.min(screen_width.saturating_sub(4))
}

pub fn render(app: &App, frame: &mut Frame, screen: Rect) {
    let t = app.theme();
    let width = text_width(screen.width);
    let mut lines = help_lines(app, t, width as usize);
    // A short screen scrolls the list (Up/Down while help is open).
    let room = screen.height.saturating_sub(2) as usize;
    let first = app.help_scroll.min(lines.len().saturating_sub(room.max(1)));
    let scrolled = lines.len() > room;
    lines.drain(..first);
    let box_w = (lines.iter().map(|l| l.width()).max().unwrap_or(40) as u16 + 3)
        .max(width + 3)
        .min(screen.width);
    let height = (lines.len() as u16 + 2).min(screen.height);
    let r = clamp_rect(
        Rect::new(
            screen.x + (screen.width.saturating_sub(box_w)) / 2,
            screen.y + (screen.height.saturating_sub(height)) / 2,
            box_w,
            height,
        ),
        screen,
    );
    frame.render_widget(Clear, r);
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .style(t.base())
        .title(Line::from(Span::styled(" Keys · Glossary ", t.title(true))))
        .title_bottom(Line::from(Span::styled(
            if scrolled {
                " up/down scroll · ? or Esc closes "
            } else {
                " ? or Esc closes "
            },
            t.dim(),
        )));
    frame.render_widget(Paragraph::new(lines).block(b), r);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_readme_glossary_is_the_programs() {
        let readme = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/workbench.md"),
        )
        .unwrap();
        let (_, rest) = readme
            .split_once("<!-- glossary:begin -->\n")
            .expect("docs/workbench.md has the glossary");
        let (table, _) = rest.split_once("<!-- glossary:end -->").unwrap();
        assert_eq!(
            table,
            glossary_markdown(),
            "regenerate docs/workbench.md's glossary from help::glossary_markdown()"
        );
    }

    #[test]
    fn the_glossary_names_every_term_the_screens_use() {
        let terms: Vec<&str> = GLOSSARY.iter().map(|g| g.0).collect();
        for t in [
            "elasticity",
            "binding constraint",
            "headroom",
            "ridge point",
            "arithmetic intensity",
            "MFU",
            "MBU",
            "TTFT",
            "ITL",
            "overhead",
        ] {
            assert!(terms.contains(&t), "{t}");
        }
    }

    /// `cargo test --lib print_glossary -- --ignored --nocapture` prints the
    /// glossary to paste into docs/workbench.md.
    #[test]
    #[ignore]
    fn print_glossary() {
        print!("{}", glossary_markdown());
    }
}
