//! The Generations view: one workload across a hardware family (A100 ->
//! H100 -> H200 -> B200, MI250X -> MI300X -> MI325X, TPU v4 -> v5p -> v6e)
//! or the marked devices: their roofs overlaid, and the comparison table
//! (`comparison`): latency, tokens/s, the speedup over the baseline and the
//! ratio behind it, binding constraint, elasticities and cost, with the fit
//! verdict for every device that does not fit, so a shift of the binding
//! constraint shows.

use super::comparison::{self, short};
use super::text;
use super::{plot, view_frame};
use crate::tui::action::Command;
use crate::tui::app::{App, Pane};
use crate::tui::views::ViewData;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The binding constraint along the devices that fit: one for all, or
/// where it shifts (a device that does not fit binds nothing: it does not
/// run).
pub fn verdict(app: &App, an: &crate::tui::app::Analysis) -> String {
    let mut shift: Vec<(String, &'static str)> = Vec::new();
    for c in an.compare.iter().filter(|c| c.fits()) {
        if let Ok(s) = &c.result {
            let b = s.binding.map_or("-", short);
            if shift.last().is_none_or(|(_, x)| *x != b) {
                shift.push((app.catalog.hardware[c.hw].hw.id.clone(), b));
            }
        }
    }
    let every = if an.compare.iter().all(|c| c.fits()) {
        "on every device"
    } else {
        "on every device that fits"
    };
    if shift.is_empty() {
        " no device fits: nothing runs to bind".to_string()
    } else if shift.len() == 1 {
        format!(" binding constraint: {} {every}", shift[0].1)
    } else {
        let path: Vec<String> = shift.iter().map(|(d, b)| format!("{b} ({d})")).collect();
        format!(" binding constraint shifts: {}", path.join(" → "))
    }
}

/// Side by side from this width; the table under the plot below it.
const SIDE_WIDTH: u16 = 130;

/// The table's width in a pane of `inner`.
fn table_width(inner: Rect) -> u16 {
    if inner.width >= SIDE_WIDTH {
        84.min(inner.width / 2 + 10)
    } else {
        inner.width
    }
}

/// Lines the table and the binding line under it want for rows with
/// these because sentences.
fn wanted(inner: Rect, because: &[String], ascii: bool) -> u16 {
    // What `split` can give it: the table decides between a sentence under
    // every row and the selected row's alone by the room it will have.
    let most = if inner.width >= SIDE_WIDTH {
        inner.height
    } else {
        (inner.height / 2 + 1).min(inner.height.saturating_sub(plot::MIN_CHART_ROWS))
    };
    comparison::wanted_lines(because, table_width(inner), most.saturating_sub(1), ascii) + 1
}

/// Where the plot and the table go inside the pane: side by side from 130
/// columns; else the table (`wanted` lines) under the plot, taking at most
/// half the rows and never the plot's minimum (a longer table scrolls).
pub fn split(inner: Rect, wanted: u16) -> (Rect, Rect) {
    if inner.width >= SIDE_WIDTH {
        return super::side_by_side(inner, table_width(inner));
    }
    let th = wanted
        .min(inner.height / 2 + 1)
        .min(inner.height.saturating_sub(plot::MIN_CHART_ROWS));
    super::stacked(inner, th)
}

/// The table's area in a pane of `inner` for rows with these because
/// sentences.
pub fn table_area(inner: Rect, because: &[String], ascii: bool) -> Rect {
    split(inner, wanted(inner, because, ascii)).1
}

/// The chart's area in the view's pane drawn at `pane`, with the
/// analysis it plots.
pub fn chart_area(app: &App, pane: Rect) -> Option<(&crate::tui::app::Analysis, Rect)> {
    let (ViewData::Generations(g), _) = app.shown_view()? else {
        return None;
    };
    let inner = super::block(app, crate::tui::app::Pane::View, vec![]).inner(pane);
    let because = comparison::becauses(app, &g.analysis);
    Some((
        &g.analysis,
        split(inner, wanted(inner, &because, app.ascii)).0,
    ))
}

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let Some((ViewData::Generations(g), inner)) = view_frame(app, frame, area, |d| match d {
        ViewData::Generations(g) => {
            let mut v = vec![Span::styled(
                format!(
                    "{} · {} family ",
                    g.label,
                    app.keymap.first_key(Command::NextFamily)
                ),
                app.theme().dim(),
            )];
            v.extend(comparison::title_spans(app, &g.analysis));
            v
        }
        _ => Vec::new(),
    }) else {
        return;
    };
    let an = &g.analysis;
    let verdict = verdict(app, an);
    let because = comparison::becauses(app, an);
    let (plot_area, table_area) = split(inner, wanted(inner, &because, app.ascii));
    if plot_area.height >= plot::MIN_CHART_ROWS && plot_area.width >= 20 {
        plot::draw_chart(app, an, frame, plot_area);
    }
    let selected = (app.focus == Pane::View && !app.in_bar).then_some(app.view_scroll);
    let buf = frame.buffer_mut();
    // The binding line keeps its line under the table.
    let rows_area = Rect {
        height: table_area.height.saturating_sub(1),
        ..table_area
    };
    let used = comparison::draw(app, an, buf, rows_area, selected);
    let vy = table_area.y + used;
    if vy < table_area.bottom() {
        text::draw_line(
            buf,
            table_area,
            vy,
            &Line::from(Span::styled(verdict, t.accent())),
            app.ascii,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plot_keeps_its_rows_and_the_table_takes_what_it_wants() {
        // The sentence of the A100 -> H100 comparison: 113 characters, two
        // lines at 78 - 1 = 77 columns (75 up to "fixed", then 37).
        let s = "h100-sxm vs a100-sxm-80gb: 1.64x memory bandwidth, memory-bound both; \
                 fixed costs, 18% of the step, do not shrink";
        assert_eq!(text::wrap(s, 77, false).len(), 2);
        // 80x24: the view's inner area is 78x18. Eight devices want a
        // header, a row each and two lines for the selected row's sentence,
        // and the binding line: 1 + 8 + 2 + 1 = 12 lines; half the pane is
        // 10 and the plot keeps 9, so the table gets 9 (it scrolls).
        let inner = Rect::new(1, 2, 78, 18);
        let eight = vec![s.to_string(); 8];
        assert_eq!(wanted(inner, &eight, false), 12);
        let (chart, table) = split(inner, wanted(inner, &eight, false));
        assert_eq!(chart, Rect::new(1, 2, 78, 9));
        assert_eq!(table, Rect::new(1, 11, 78, 9));
        // Three devices: a row and its two lines of sentence each is 1 + 9
        // lines, more than the 9 - 1 the table may take, so a line a row
        // and the selected row's sentence: 1 + 3 + 2 + 1 = 7; the chart
        // gets the other 11.
        let three = vec![s.to_string(); 3];
        let (chart, table) = split(inner, wanted(inner, &three, false));
        assert_eq!((chart.height, table.height), (11, 7));
        // A short sentence (one line under its row): 1 + 2 x 3 + 1 = 8.
        let short = vec!["b200: the baseline".to_string(); 3];
        let (chart, table) = split(inner, wanted(inner, &short, false));
        assert_eq!((chart.height, table.height), (10, 8));
    }
}
