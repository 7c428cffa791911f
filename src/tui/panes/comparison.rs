//! The comparison table shared by the Compare pane and the Generations view:
//! one row per device, in the chosen order (fitting rows first), with the
//! speedup over the baseline and the ratio behind it.
//!
//! A device that does not fit shows the solver's verdict ("✗ needs 2", the
//! same words as everywhere) where its latency and tokens/s would be, no
//! speedup, and the cost at the fewest devices that hold it, labelled with
//! that count ("$53 on 2"). Every word comes from `solver::compare`.

use super::grid::{self, Col, fill, left, right};
use super::serving::usd;
use super::{band, plot, text};
use crate::solver::compare::{Verdict, no_layout_reason};
use crate::solver::{Param, units};
use crate::tui::action::Command;
use crate::tui::app::{Analysis, App, Compared};
use crate::words::Words;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// A short name for a binding constraint, for narrow columns.
pub fn short(p: Param) -> &'static str {
    match p {
        Param::PeakFlops => "FLOP/s",
        Param::MemoryBandwidth => "mem BW",
        Param::LinkBandwidth => "link BW",
        _ => p.label(),
    }
}

/// What one row shows, as text: the cells a pane draws, computed from the
/// view data alone (so a test can read them without a terminal).
#[derive(Debug, Clone, PartialEq)]
pub struct RowText {
    pub device: String,
    pub verdict: Option<Verdict>,
    /// "fits", "✗ needs 2", "✗ never fits", or the error.
    pub fit: String,
    /// Latency and tokens/s as asked: only when it fits ("-" otherwise).
    pub latency: String,
    /// The latency's error band, "(7.0-8.6)" (None: no band, or no figure).
    pub latency_band: Option<String>,
    pub tokens: String,
    /// "2.3x", "base", or "-" (no speedup for what does not run).
    pub speedup: String,
    pub binding: String,
    pub e_peak: String,
    pub e_bw: String,
    /// "$5.88" when it fits; "$53 on 2" at the fewest devices that hold it.
    pub cost: String,
    /// Why: the ratio behind the speedup, or why it does not fit.
    pub because: String,
}

/// The cell of a device the solver cannot evaluate the selection on:
/// "cannot run: " and the gist of the solver's reason (the whole reason is
/// the row's because sentence).
pub fn cannot_run(reason: &str) -> String {
    let gist = if reason.contains("no link between devices") {
        "no link".to_string()
    } else {
        // The reason's first clause, without the device's id it opens with.
        let first = reason
            .split([',', ';', ':'])
            .next()
            .unwrap_or(reason)
            .trim();
        first.to_string()
    };
    format!("cannot run: {gist}")
}

/// The cost column's head: dollars per million of what the model
/// processes ("$/M tok", "$/M images", "$/M samples").
pub fn per_million(w: Words) -> &'static str {
    match w.unit {
        crate::words::Unit::Token => "$/M tok",
        crate::words::Unit::Image => "$/M images",
        crate::words::Unit::Sample => "$/M samples",
    }
}

/// "2.3x".
pub fn times(x: f64) -> String {
    format!("{}x", units::format_number(x))
}

/// The text of row `i` of `an.compare`.
pub fn row_text(app: &App, an: &Analysis, i: usize) -> RowText {
    let c = &an.compare[i];
    let id = app.catalog.hardware[c.hw].hw.id.clone();
    let dash = || "-".to_string();
    let base_id = an
        .baseline
        .map(|b| app.catalog.hardware[an.compare[b].hw].hw.id.clone());
    let (s, judged) = match (&c.result, &c.judged) {
        (Ok(s), Some(j)) => (s, j),
        (Err(_), _) | (Ok(_), None) => {
            let e = c.result.as_ref().err().cloned().unwrap_or_default();
            let because = format!("{id} cannot run it: {e}");
            return RowText::without_figures(id, None, cannot_run(&e), dash(), because);
        }
    };
    let v = judged.verdict;
    let ascii = app.ascii;
    let el = |p: Param| {
        s.row(p)
            .map_or_else(dash, |r| units::format_number(r.elasticity))
    };
    let e = &s.base;
    let mem = &e.memory;
    if v.fits() {
        let is_base = an.baseline == Some(i);
        let speedup = if is_base {
            "base".to_string()
        } else {
            c.speedup.map_or_else(dash, |x| times(x.factor))
        };
        let because = match (&c.speedup, &base_id) {
            _ if is_base => format!("{id}: the baseline; the speedups are over it"),
            (Some(x), Some(b)) => format!("{id} vs {b}: {}", x.because.text()),
            _ => dash(),
        };
        RowText {
            device: id,
            verdict: Some(v),
            fit: v.cell(ascii),
            latency: units::format_time(e.latency_s),
            latency_band: band::ends(
                &units::format_time(e.latency_s),
                e.latency_range(),
                units::format_time,
            ),
            tokens: units::format_count(e.tokens_per_s),
            speedup,
            binding: s.binding.map_or("-", short).to_string(),
            e_peak: el(Param::PeakFlops),
            e_bw: el(Param::MemoryBandwidth),
            cost: usd(c.cost_per_mtok()),
            because,
        }
    } else {
        let need = format!(
            "{id}: needs {}, {} usable",
            units::format_bytes(mem.footprint.total()),
            units::format_bytes(mem.usable_bytes)
        );
        let layout = |p: crate::solver::Parallelism| {
            if p.pp > 1 {
                format!("TP {} x PP {}", p.tp, p.pp)
            } else {
                format!("TP {}", p.tp)
            }
        };
        let (cost, because) = match (v, c.running()) {
            (Verdict::Needs(p), Some(run)) => (
                c.cost_per_mtok()
                    .map_or_else(dash, |x| format!("{} on {}", usd(Some(x)), run.devices())),
                format!("{need}; fits on {} ({})", p.devices(), layout(p)),
            ),
            (Verdict::Needs(p), None) => (
                dash(),
                format!("{need}; needs {} devices ({})", p.devices(), layout(p)),
            ),
            _ => (
                dash(),
                format!(
                    "{need}; {}",
                    no_layout_reason(&app.catalog.hardware[c.hw].hw)
                ),
            ),
        };
        RowText::without_figures(id, Some(v), v.cell(ascii), cost, because)
    }
}

impl RowText {
    /// A row that shows no figure as if it ran: a device that does not fit
    /// (or an error), with its verdict, the cost at the count that holds
    /// it, and why.
    fn without_figures(
        device: String,
        verdict: Option<Verdict>,
        fit: String,
        cost: String,
        because: String,
    ) -> RowText {
        let dash = || "-".to_string();
        RowText {
            device,
            verdict,
            fit,
            latency: dash(),
            latency_band: None,
            tokens: dash(),
            speedup: dash(),
            binding: dash(),
            e_peak: dash(),
            e_bw: dash(),
            cost,
            because,
        }
    }
}

/// The title spans: how the rows are sorted and the keys that change it.
pub fn title_spans(app: &App, an: &Analysis) -> Vec<Span<'static>> {
    let k = |c| app.keymap.first_key(c);
    vec![Span::styled(
        format!(
            "· {} sort: {} · {} baseline ",
            k(Command::SortCompare),
            an.sort.name(),
            k(Command::Baseline)
        ),
        app.theme().dim(),
    )]
}

/// Which columns fit a width.
struct Layout {
    cols: Vec<Col>,
    widths: Vec<u16>,
    elasticities: bool,
    because_column: bool,
    /// The latency column is wide enough for its band.
    bands: bool,
}

/// The device column when a because column sits beside it: the cursor (2),
/// the marks (4) and a space, then 16 of the id.
const DEVICE_MIN: u16 = 23;
const BECAUSE_MIN: u16 = 40;
/// The latency column with its band: "7.78 ms (7.0-8.6)".
const BANDED_LATENCY: u16 = 17;

/// The columns at `width`; the because column only when `because` allows.
fn layout(width: u16, because: bool) -> Layout {
    // device, latency, tokens/s (9: "samples/s"), speedup, binding (8:
    // "overhead"), [e peak, e BW], $/M tok, [because]
    let base = [right(8), right(9), right(7), left(8)];
    let el = [right(6), right(6)];
    let cost = right(13);
    let fixed = |cs: &[Col]| cs.iter().map(|c| c.width + 1).sum::<u16>();
    let narrow = fixed(&base) + cost.width + 1;
    let with_el = narrow + fixed(&el);
    let elasticities = width >= with_el + DEVICE_MIN;
    let because_column = because && width > with_el + DEVICE_MIN + BECAUSE_MIN;
    // What the because column can spare widens the latency for its band.
    let bands = width > with_el + DEVICE_MIN + BECAUSE_MIN + BANDED_LATENCY - 8;
    let mut cols = vec![if because_column {
        left(DEVICE_MIN)
    } else {
        fill()
    }];
    cols.extend(base);
    if bands {
        cols[1] = right(BANDED_LATENCY);
    }
    if elasticities {
        cols.extend(el);
    }
    cols.push(cost);
    if because_column {
        cols.push(fill());
    }
    let widths = grid::widths(&cols, width);
    Layout {
        cols,
        widths,
        elasticities,
        because_column,
        bands,
    }
}

/// The x of column `i`.
fn col_x(area: Rect, widths: &[u16], i: usize) -> u16 {
    area.x + widths.iter().take(i).map(|w| w + 1).sum::<u16>()
}

/// How the rows and their because sentences share the lines. A sentence
/// is never cut: it wraps at word boundaries onto as many lines as it
/// takes, and where there is no room for every row's, only the selected
/// row's is shown, whole.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// Each row with its sentence: beside it in the because column
    /// (`beside`), or under it indented; the lines each row takes.
    Blocks { beside: bool, heights: Vec<usize> },
    /// A line a row, and under the table the selected row's sentence in
    /// up to `below` lines (the most any row's takes, so the table does not
    /// jump as the cursor moves).
    Rows { below: usize },
}

/// The indent of a sentence under its row.
const UNDER: &str = "    ";

/// The columns and how the lines are shared at `width` with `room` lines
/// for the rows: a because column when it is wide enough and every row's
/// sentence fits beside it, else the sentences under the rows.
fn shape(width: u16, room: usize, because: &[String], ascii: bool) -> (Layout, Shape) {
    let lines = |b: &String, w: usize| text::wrap(b, w, ascii).len();
    let l = layout(width, true);
    if l.because_column {
        let w = l.widths.last().copied().unwrap_or(0) as usize;
        let heights: Vec<usize> = because.iter().map(|b| lines(b, w).max(1)).collect();
        if heights.iter().sum::<usize>() <= room {
            let beside = Shape::Blocks {
                beside: true,
                heights,
            };
            return (l, beside);
        }
    }
    let l = layout(width, false);
    (l, shape_under(width, room, because, ascii))
}

/// [`Shape`] without a because column.
fn shape_under(width: u16, room: usize, because: &[String], ascii: bool) -> Shape {
    let lines = |b: &String, w: usize| text::wrap(b, w, ascii).len();
    let under = (width as usize).saturating_sub(UNDER.len());
    let heights: Vec<usize> = because.iter().map(|b| 1 + lines(b, under)).collect();
    if heights.iter().sum::<usize>() <= room {
        return Shape::Blocks {
            beside: false,
            heights,
        };
    }
    let w = (width as usize).saturating_sub(1);
    Shape::Rows {
        below: because.iter().map(|b| lines(b, w)).max().unwrap_or(0),
    }
}

/// Lines a table of rows with these because sentences wants at `width`,
/// within `most`: the header and each row with its sentence when all fit,
/// else a line a row and the longest sentence once (what `draw` does).
pub fn wanted_lines(because: &[String], width: u16, most: u16, ascii: bool) -> u16 {
    let room = most.saturating_sub(1) as usize;
    let lines = match shape(width, room, because, ascii).1 {
        Shape::Blocks { heights, .. } => heights.iter().sum::<usize>(),
        Shape::Rows { below } => because.len() + below,
    };
    1 + lines as u16
}

/// The because sentences of `an`'s rows, in display order.
pub fn becauses(app: &App, an: &Analysis) -> Vec<String> {
    an.order
        .iter()
        .map(|&i| row_text(app, an, i).because)
        .collect()
}

/// Lines the table of `an` wants at `width`, within `most` (see
/// [`wanted_lines`]).
pub fn wanted_height(app: &App, an: &Analysis, width: u16, most: u16) -> u16 {
    wanted_lines(&becauses(app, an), width, most, app.ascii)
}

/// Draw the table into `area`; `selected` is the cursor's display row when
/// the pane has the focus. Returns the lines used.
pub fn draw(
    app: &App,
    an: &Analysis,
    buf: &mut Buffer,
    area: Rect,
    selected: Option<usize>,
) -> u16 {
    let t = app.theme();
    let n = an.order.len();
    let rows: Vec<RowText> = an.order.iter().map(|&i| row_text(app, an, i)).collect();
    let because: Vec<String> = rows.iter().map(|r| r.because.clone()).collect();
    let room = area.height.saturating_sub(1) as usize;
    let (l, shape) = shape(area.width, room, &because, app.ascii);
    // The device cell: the cursor, the device's marks on the plot, its id.
    let words = Words::for_model(&app.catalog.models[an.model]);
    let rate = words.rate();
    let pad = 2 + plot::marks::legend_symbol(0, app.ascii).chars().count() + 1;
    let device = format!("{:pad$}device", "");
    let mut head = vec![device.as_str(), "latency", rate, "speedup", "binding"];
    if l.elasticities {
        head.extend(["e peak", "e BW"]);
    }
    head.push(per_million(words));
    if l.because_column {
        head.push("because");
    }
    let head: Vec<Line> = head.into_iter().map(Line::from).collect();
    grid::row(buf, area, area.y, &l.cols, &l.widths, &head, Some(t.dim()));
    let sel = selected.unwrap_or(0).min(n.saturating_sub(1));
    let (heights, beside, below) = match shape {
        Shape::Blocks { beside, heights } => (heights, beside, 0),
        Shape::Rows { below } => (vec![1; n], false, below),
    };
    // The rows that fit with the lines under the table; more rows than
    // lines: a window that keeps the cursor in view, and a line saying which
    // rows it shows. The sentence under the table goes when it would leave
    // fewer than three rows.
    let fits = |first: usize, last: usize, avail: usize| {
        heights[first..=last].iter().sum::<usize>() <= avail
    };
    let all = n == 0 || fits(0, n - 1, room.saturating_sub(below));
    let below = if all || room >= below + 1 + 3 {
        below
    } else {
        0
    };
    let avail = if all {
        room - below
    } else {
        room.saturating_sub(below + 1)
    };
    // The cursor's row in the middle of the window where it can be: up to
    // half the lines above it, and no room left empty below the last row.
    let mut first = sel;
    while first > 0 && heights[first - 1..sel].iter().sum::<usize>() <= avail / 2 {
        first -= 1;
    }
    while first > 0 && fits(first - 1, n - 1, avail) {
        first -= 1;
    }
    let mut y = area.y + 1;
    let mut last = first;
    for pos in first..n {
        if pos > first && !fits(first, pos, avail) {
            break;
        }
        let r = &rows[pos];
        let i = an.order[pos];
        let c = &an.compare[i];
        let is_sel = selected == Some(pos);
        draw_row(app, an, c, i, r, buf, area, y, &l, is_sel);
        if heights[pos] > 1 || beside {
            if beside {
                let w = l.widths.last().copied().unwrap_or(0);
                let x = col_x(area, &l.widths, l.widths.len() - 1);
                let col = Rect::new(
                    x,
                    area.y,
                    w.min(area.right().saturating_sub(x)),
                    area.height,
                );
                for (k, line) in text::wrap(&r.because, w as usize, app.ascii)
                    .into_iter()
                    .enumerate()
                {
                    let line = Line::from(Span::styled(line, t.dim()));
                    text::draw_line(buf, col, y + k as u16, &line, app.ascii);
                }
            } else {
                let w = (area.width as usize).saturating_sub(UNDER.len());
                for (k, line) in text::wrap(&r.because, w, app.ascii).into_iter().enumerate() {
                    let line = Line::from(Span::styled(format!("{UNDER}{line}"), t.dim()));
                    text::draw_line(buf, area, y + 1 + k as u16, &line, app.ascii);
                }
            }
        }
        y += heights[pos] as u16;
        last = pos;
    }
    if !all && y < area.bottom() {
        let k = |c| app.keymap.first_key(c);
        // Scrolling and zooming act on the focused pane: when this one is
        // not, say how to reach it first.
        let reach = match selected {
            Some(_) => String::new(),
            None => format!("{} here, then ", k(Command::NextPane)),
        };
        let more = format!(
            " {}-{} of {n} devices: {reach}{}/{} scroll, {} zooms",
            first + 1,
            last + 1,
            k(Command::Up),
            k(Command::Down),
            k(Command::Zoom)
        );
        text::draw_line(
            buf,
            area,
            y,
            &Line::from(Span::styled(more, t.dim())),
            app.ascii,
        );
        y += 1;
    }
    if below > 0 && n > 0 {
        let w = area.width.saturating_sub(1) as usize;
        for line in text::wrap(&rows[sel].because, w, app.ascii) {
            if y >= area.bottom() {
                break;
            }
            let line = Line::from(Span::styled(format!(" {line}"), t.dim()));
            text::draw_line(buf, area, y, &line, app.ascii);
            y += 1;
        }
    }
    y - area.y
}

#[allow(clippy::too_many_arguments)]
fn draw_row(
    app: &App,
    an: &Analysis,
    c: &Compared,
    i: usize,
    r: &RowText,
    buf: &mut Buffer,
    area: Rect,
    y: u16,
    l: &Layout,
    selected: bool,
) {
    let t = app.theme();
    let cursor = match (selected, app.ascii) {
        (false, _) => "  ",
        (true, false) => "▶ ",
        (true, true) => "> ",
    };
    let roof = an.compare.iter().position(|x| x.hw == c.hw).unwrap_or(i);
    let mut device = plot::device_cell(app, roof, &r.device);
    device.spans.insert(0, Span::raw(cursor));
    let fits = r.verdict.is_some_and(Verdict::fits);
    let mut cells: Vec<Line> = vec![device];
    if fits {
        cells.push(match (&r.latency_band, l.bands) {
            (Some(b), true) => format!("{} {b}", r.latency).into(),
            _ => r.latency.clone().into(),
        });
        cells.push(r.tokens.clone().into());
    } else {
        // The verdict spans the latency and tokens/s columns.
        cells.push(Line::default());
        cells.push(Line::default());
    }
    let speed_style = if an.baseline == Some(i) {
        t.dim()
    } else {
        t.accent()
    };
    // A device that cannot run the selection at all: its reason spans the
    // speedup and binding columns too (they have nothing to say).
    let cannot = r.verdict.is_none();
    if cannot {
        cells.extend([Line::default(), Line::default()]);
    } else {
        cells.push(Line::from(Span::styled(r.speedup.clone(), speed_style)));
        cells.push(Line::from(Span::styled(r.binding.clone(), t.binding())));
    }
    if l.elasticities {
        cells.push(r.e_peak.clone().into());
        cells.push(r.e_bw.clone().into());
    }
    cells.push(r.cost.clone().into());
    let style = selected.then(|| t.selected());
    grid::row(buf, area, y, &l.cols, &l.widths, &cells, style);
    if !fits {
        let x = col_x(area, &l.widths, 1);
        let spans = if cannot { 4 } else { 2 };
        let w = l.widths[1..=spans].iter().sum::<u16>() + spans as u16 - 1;
        let w = w.min(area.right().saturating_sub(x));
        let text = text::clip(&r.fit, w as usize, app.ascii);
        buf.set_line(x, y, &Line::from(Span::styled(text, t.error())), w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three rows with the A100 -> H100 sentence: 113 characters.
    fn three() -> Vec<String> {
        let s = "h100-sxm vs a100-sxm-80gb: 1.64x memory bandwidth, memory-bound both; \
                 fixed costs, 18% of the step, do not shrink";
        vec![s.to_string(); 3]
    }

    #[test]
    fn sentences_wrap_whole_where_there_is_room_for_them() {
        let b = three();
        // 158 columns (the Compare pane at 160): the because column is what
        // 23 + 17 + 9 + 7 + 8 + 6 + 6 + 13 columns and 8 gaps leave, 61;
        // the sentence takes three lines there: "... bandwidth," (51, with
        // "memory-bound" 64), "memory-bound ... do not" (55), "shrink".
        let (l, s) = shape(158, 9, &b, false);
        assert!(l.because_column);
        assert_eq!(*l.widths.last().unwrap(), 61);
        assert_eq!(
            s,
            Shape::Blocks {
                beside: true,
                heights: vec![3, 3, 3]
            }
        );
        // 8 lines: 9 do not fit beside; under its row in 154 columns a
        // sentence takes one line, so two lines a row.
        let (l, s) = shape(158, 8, &b, false);
        assert!(!l.because_column);
        assert_eq!(
            s,
            Shape::Blocks {
                beside: false,
                heights: vec![2, 2, 2]
            }
        );
        // 5 lines: not beside; under its row a sentence takes one line of
        // 154 (2 x 3 = 6 > 5), so a line a row and the selected row's
        // sentence under them, in one line.
        let (l, s) = shape(158, 5, &b, false);
        assert!(!l.because_column);
        assert_eq!(s, Shape::Rows { below: 1 });
        // 78 columns (80x24): under each row in 74 columns, two lines (69 up
        // to "both;", then 43): 3 lines a row, 9 in all.
        let (_, s) = shape(78, 9, &b, false);
        assert_eq!(
            s,
            Shape::Blocks {
                beside: false,
                heights: vec![3, 3, 3]
            }
        );
        assert_eq!(shape(78, 8, &b, false).1, Shape::Rows { below: 2 });
        // What the table asks for: the header and the 9 lines, or the
        // header, three rows and the two lines of the selected one.
        assert_eq!(wanted_lines(&b, 78, 10, false), 10);
        assert_eq!(wanted_lines(&b, 78, 9, false), 6);
    }
}
