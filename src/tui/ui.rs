//! `render`: a pure function of the app state. Layout, the pane bar, and the
//! ASCII pass; each pane draws itself in panes/.

use super::app::{App, Mode, Pane};
use super::panes;
use super::views::View;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

/// Smallest screen drawn at all.
pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;
/// From this size the panes share the screen, the pickers and knobs
/// collapsed to a strip of a few rows (a projector's 100x30, 119x36,
/// 140x30); below it the focused pane fills the body.
pub const SHARED_WIDTH: u16 = 100;
pub const SHARED_HEIGHT: u16 = 28;
/// From this size the pickers get their full height.
pub const FULL_WIDTH: u16 = 120;
pub const FULL_HEIGHT: u16 = 36;
/// Rows of the collapsed strip of pickers and knobs (a header and two
/// rows of a list).
pub const STRIP_ROWS: u16 = 5;

/// Where each pane goes; None when it is not on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    pub bar: Rect,
    pub status: Rect,
    pub hardware: Option<Rect>,
    pub models: Option<Rect>,
    pub knobs: Option<Rect>,
    pub plot: Option<Rect>,
    pub sensitivity: Option<Rect>,
    pub compare: Option<Rect>,
    pub view: Option<Rect>,
    /// A device or region form, while one is open.
    pub form: Option<Rect>,
}

impl Areas {
    pub fn get(&self, p: Pane) -> Option<Rect> {
        match p {
            Pane::Hardware => self.hardware,
            Pane::Models => self.models,
            Pane::Knobs => self.knobs,
            Pane::Plot => self.plot,
            Pane::Sensitivity => self.sensitivity,
            Pane::Compare => self.compare,
            Pane::View => self.view,
        }
    }
    fn set(&mut self, p: Pane, r: Rect) {
        let slot = match p {
            Pane::Hardware => &mut self.hardware,
            Pane::Models => &mut self.models,
            Pane::Knobs => &mut self.knobs,
            Pane::Plot => &mut self.plot,
            Pane::Sensitivity => &mut self.sensitivity,
            Pane::Compare => &mut self.compare,
            Pane::View => &mut self.view,
        };
        *slot = Some(r);
    }
}

/// True when every pane is on screen at full height.
pub fn is_full(area: Rect) -> bool {
    area.width >= FULL_WIDTH && area.height >= FULL_HEIGHT
}

/// True when the panes share the screen (else the focused one fills it).
pub fn is_shared(area: Rect) -> bool {
    area.width >= SHARED_WIDTH && area.height >= SHARED_HEIGHT
}

/// The widths of the hardware list, the model list and the knobs. Below
/// 120 columns the three do not all fit at ease: the focused list gets the
/// width it needs to show whole ids, the other shares what is left.
fn top_row(app: &App, area: Rect, knobs_w: u16) -> [Constraint; 3] {
    /// Widths at which the lists show whole ids.
    const HARDWARE_W: u16 = 48;
    const MODELS_W: u16 = 38;
    let knobs = Constraint::Length(knobs_w);
    if area.width >= FULL_WIDTH {
        return [Constraint::Fill(5), Constraint::Fill(4), knobs];
    }
    let rest = area.width.saturating_sub(knobs_w);
    match app.focus {
        Pane::Hardware => [
            Constraint::Length(HARDWARE_W.min(rest * 2 / 3)),
            Constraint::Fill(1),
            knobs,
        ],
        Pane::Models => [
            Constraint::Fill(1),
            Constraint::Length(MODELS_W.min(rest * 2 / 3)),
            knobs,
        ],
        _ => [Constraint::Fill(5), Constraint::Fill(4), knobs],
    }
}

/// The layout for a screen of `area`.
pub fn layout(app: &App, area: Rect) -> Areas {
    // The status lines under a zoomed pane: the headline only.
    let status_h = match (app.zoom, app.view) {
        (false, _) => 3,
        (true, View::Roofline) => 1,
        (true, _) => 2,
    };
    let [bar, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(status_h),
    ])
    .areas(area);
    let mut a = Areas {
        bar,
        status,
        ..Areas::default()
    };
    if app.form.is_some() {
        // A form, beside the plot or the view's pane it changes when there
        // is room (form/render.rs).
        let s = super::form::split(app, area, body);
        a.form = Some(s.form);
        let roofline = app.view == View::Roofline;
        if let Some(r) = s.main {
            a.set(if roofline { Pane::Plot } else { Pane::View }, r);
        }
        if let Some(r) = s.below.filter(|_| roofline) {
            a.set(Pane::Sensitivity, r);
        }
        return a;
    }
    if app.zoom || !is_shared(area) {
        // Zoomed, or compact: the focused pane fills the body; the bar
        // switches panes.
        a.set(app.focus, body);
        return a;
    }
    if app.view != View::Roofline {
        // The pickers and knobs on top, the view's own pane below.
        let top_h = if is_full(area) {
            (body.height * 2 / 5).max(13)
        } else {
            STRIP_ROWS
        };
        let [top, rest] =
            Layout::vertical([Constraint::Length(top_h), Constraint::Fill(1)]).areas(body);
        let knobs_w = if area.width >= FULL_WIDTH { 36 } else { 30 };
        let [hw, models, knobs] = Layout::horizontal(top_row(app, area, knobs_w)).areas(top);
        a.set(Pane::Hardware, hw);
        a.set(Pane::Models, models);
        a.set(Pane::Knobs, knobs);
        a.set(Pane::View, rest);
        return a;
    }
    roofline_layout(app, area, body, &mut a);
    a
}

/// The roofline view on a shared screen: the pickers and knobs on top, the
/// plot beside the sensitivity table, the comparison below. The plot and
/// the table keep what they need (and most of the screen); the pickers
/// give way first, then the comparison.
fn roofline_layout(app: &App, area: Rect, body: Rect, a: &mut Areas) {
    // The comparison's rows with their because sentences, wrapped whole.
    let rows = match app.shown() {
        Some((an, _)) if !app.marked.is_empty() => {
            panes::comparison::wanted_height(app, an, area.width.saturating_sub(2), body.height / 4)
        }
        _ => 1,
    };
    let middle_min = panes::sensitivity::rows_needed(app)
        .max(panes::plot::MIN_PANE_ROWS)
        .max(body.height * 3 / 5);
    let mut cmp_h = (rows + 2).min(body.height / 4).max(3);
    let full_top = (body.height * 2 / 5).max(13);
    let top_h = full_top
        .min(body.height.saturating_sub(cmp_h + middle_min))
        .max(STRIP_ROWS);
    cmp_h = cmp_h
        .min(body.height.saturating_sub(top_h + middle_min))
        .max(3);
    let [top, middle, bottom] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Fill(1),
        Constraint::Length(cmp_h),
    ])
    .areas(body);
    let [hw, models, knobs] = Layout::horizontal(top_row(app, area, 28)).areas(top);
    let [plot, sens] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(54)]).areas(middle);
    a.set(Pane::Hardware, hw);
    a.set(Pane::Models, models);
    a.set(Pane::Knobs, knobs);
    a.set(Pane::Plot, plot);
    a.set(Pane::Sensitivity, sens);
    a.set(Pane::Compare, bottom);
}

/// Draw the whole screen.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let theme = app.theme();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        frame.render_widget(Block::new().style(theme.base()), area);
        let msg = format!(
            "terminal too small: need {MIN_WIDTH}x{MIN_HEIGHT}, have {}x{}",
            area.width, area.height
        );
        let y = area.y + area.height / 2;
        let p = Paragraph::new(Line::from(msg))
            .style(theme.warn())
            .wrap(Wrap { trim: true })
            .centered();
        frame.render_widget(
            p,
            Rect::new(area.x, y.saturating_sub(1), area.width, 3.min(area.height)),
        );
        finish(app, frame.buffer_mut());
        return;
    }
    // A lesson's caption strip takes the bottom (at most a third); the
    // workbench lays itself out above it.
    let (area, strip) = panes::caption::split(app, area);
    let areas = layout(app, area);
    // The panes tile the body and fill their own background; only the bar
    // and the status line need it here (one pass over the screen, not two).
    frame.render_widget(Block::new().style(theme.base()), areas.bar);
    frame.render_widget(Block::new().style(theme.base()), areas.status);
    render_bar(app, frame, areas.bar);
    for &pane in Pane::of(app.view) {
        if let Some(r) = areas.get(pane) {
            match pane {
                Pane::Hardware => panes::hardware::render(app, frame, r),
                Pane::Models => panes::models::render(app, frame, r),
                Pane::Knobs => panes::knobs::render(app, frame, r),
                Pane::Plot => panes::plot::render(app, frame, r),
                Pane::Sensitivity => panes::sensitivity::render(app, frame, r),
                Pane::Compare => panes::compare::render(app, frame, r),
                Pane::View => match app.view {
                    View::Serving => panes::serving::render(app, frame, r),
                    View::Synthesis => panes::synthesis::render(app, frame, r),
                    View::Sweep => panes::sweep::render(app, frame, r),
                    View::Generations => panes::generations::render(app, frame, r),
                    View::Fleet => panes::fleet::render(app, frame, r),
                    View::Training => panes::training::render(app, frame, r),
                    View::Operators => panes::ops::render(app, frame, r),
                    View::Explore => panes::explore::render(app, frame, r),
                    View::Roofline => {}
                },
            }
        }
    }
    if let Some(r) = areas.form {
        super::form::render(app, frame, r);
    }
    panes::status::render(app, frame, areas.status);
    panes::room::render(app, frame, areas.status);
    if app.mode == Mode::Normal {
        panes::problems::render(app, frame, area);
    }
    if let Some(r) = areas.knobs
        && app.mode == Mode::Edit
    {
        panes::knobs::render_entry(app, frame, r, area);
    }
    if app.mode == Mode::Save {
        panes::status::render_save(app, frame, area);
    }
    if app.mode == Mode::Import {
        super::import::render(app, frame, area);
    }
    if let Some(r) = strip {
        panes::caption::render(app, frame, r);
    }
    if app.mode == Mode::Help {
        panes::help::render(app, frame, frame.area());
    }
    if app.mode == Mode::Normal {
        panes::caption::render_picker(app, frame, frame.area());
    }
    finish(app, frame.buffer_mut());
}

fn finish(app: &App, buf: &mut Buffer) {
    if app.ascii {
        asciify(buf);
    }
}

/// The bar: the views (number keys; the current one in brackets), the
/// panes with the focused one lit, the theme and the help key.
fn render_bar(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let full = is_full(frame.area());
    let mut spans = Vec::new();
    if full {
        spans.push(Span::styled(" ridgeline ", t.accent()));
    }
    // Other views by name when there is room, else by number alone.
    let pane_w: usize = Pane::of(app.view)
        .iter()
        .map(|p| app.pane_title(*p).len() + 1)
        .sum();
    let names_w: usize = View::ALL.iter().map(|v| v.title().len() + 3).sum::<usize>() + 2;
    let named = names_w + pane_w + 25 <= area.width as usize;
    // By number: "2 3 4 5 6 7", or "2-7" when even that leaves no room for
    // the help key.
    let cur = app.view.index();
    let current_w = app.view.title().len() + 4;
    let numbers_w = 2 * View::ALL.len() + current_w;
    let ranged = !named && numbers_w + pane_w + 12 > area.width as usize;
    for (i, v) in View::ALL.iter().enumerate() {
        if ranged && *v != app.view {
            // One span for each run of numbers beside the current view.
            let (lo, hi) = if i < cur {
                (0, cur - 1)
            } else {
                (cur + 1, View::ALL.len() - 1)
            };
            if i != lo {
                continue;
            }
            if i > 0 {
                spans.push(Span::raw(" "));
            }
            let text = if lo == hi {
                format!("{}", lo + 1)
            } else {
                format!("{}-{}", lo + 1, hi + 1)
            };
            spans.push(Span::styled(text, t.dim()));
            continue;
        }
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        if *v == app.view {
            let style = if app.bar_view {
                t.selected()
            } else {
                t.header()
            };
            spans.push(Span::styled(
                format!("[{} {}]", v.number(), v.title()),
                style,
            ));
        } else if named {
            spans.push(Span::styled(
                format!("{} {}", v.number(), v.title()),
                t.dim(),
            ));
        } else {
            spans.push(Span::styled(v.number().to_string(), t.dim()));
        }
    }
    spans.push(Span::styled(" │ ", t.dim()));
    for (i, p) in Pane::of(app.view).iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        let style = if *p == app.focus {
            if app.in_bar && !app.bar_view {
                t.selected()
            } else {
                t.title(true).add_modifier(Modifier::UNDERLINED)
            }
        } else {
            t.dim()
        };
        spans.push(Span::styled(app.pane_title(*p), style));
    }
    let help = format!(
        " │ {} help",
        app.keymap.first_key(super::action::Command::Help)
    );
    let used: usize = spans.iter().map(|s| s.width()).sum::<usize>() + help.len();
    spans.push(Span::styled(help, t.dim()));
    if full {
        let theme = format!("  theme {}", t.name);
        if used + theme.len() < area.width as usize {
            spans.push(Span::styled(theme, t.dim()));
        }
    }
    panes::lines(frame.buffer_mut(), area, &[Line::from(spans)]);
}

/// Replace every non-ASCII symbol with an ASCII look-alike, for terminals
/// without Unicode (`--ascii`, or a locale that is not UTF-8).
pub fn asciify(buf: &mut Buffer) {
    for cell in buf.content.iter_mut() {
        let s = cell.symbol();
        if s.is_ascii() {
            continue;
        }
        let c = s.chars().next().unwrap_or(' ');
        let r = ascii_for(c);
        cell.set_char(r);
    }
}

/// The ASCII stand-in of a drawing character.
pub fn ascii_for(c: char) -> char {
    match c {
        '─' | '━' | '═' | '┄' | '┅' | '╌' | '╍' | '‐' | '–' | '—' => '-',
        '│' | '┃' | '║' | '┆' | '┇' | '┊' | '┋' | '╎' | '╏' => '|',
        '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' | '╭' | '╮' | '╯' | '╰' | '╔' | '╗'
        | '╚' | '╝' | '┏' | '┓' | '┗' | '┛' => '+',
        '•' | '●' | '◆' | '■' | '★' => '*',
        '○' | '◇' | '□' => 'o',
        '█' | '▉' | '▊' | '▋' | '▌' | '▍' | '▎' | '▏' | '▇' | '▆' | '▅' | '▄' | '▃' | '▂' | '▁'
        | '▀' => '#',
        '·' | '…' | '░' => '.',
        '▒' => ':',
        '▓' => '%',
        '≤' => '<',
        '≥' => '>',
        '×' => 'x',
        '◀' | '‹' | '←' => '<',
        '▶' | '›' | '→' => '>',
        '▲' | '↑' => '^',
        '▼' | '↓' => 'v',
        // Braille dots and anything else that draws: a dot.
        '\u{2800}' => ' ',
        c if ('\u{2801}'..='\u{28FF}').contains(&c) => '.',
        _ => '?',
    }
}

/// True when the locale says the terminal speaks UTF-8 (LC_ALL, then
/// LC_CTYPE, then LANG: the first one set decides).
pub fn locale_is_utf8(get: impl Fn(&str) -> Option<String>) -> bool {
    for var in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let Some(v) = get(var).filter(|v| !v.is_empty()) {
            let v = v.to_ascii_lowercase();
            return v.contains("utf-8") || v.contains("utf8");
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_decides_ascii() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(locale_is_utf8(env(&[("LANG", "en_US.UTF-8")])));
        assert!(locale_is_utf8(env(&[("LC_ALL", "C.utf8"), ("LANG", "C")])));
        assert!(!locale_is_utf8(env(&[
            ("LC_ALL", "C"),
            ("LANG", "en_US.UTF-8")
        ])));
        assert!(!locale_is_utf8(env(&[("LC_CTYPE", "POSIX")])));
        assert!(!locale_is_utf8(env(&[])));
        assert!(locale_is_utf8(env(&[
            ("LC_ALL", ""),
            ("LANG", "de_DE.UTF-8")
        ])));
    }

    #[test]
    fn ascii_stand_ins_are_ascii() {
        for c in ['─', '│', '┌', '•', '█', '⣿', '·', '▶', '€'] {
            assert!(ascii_for(c).is_ascii(), "{c}");
        }
    }
}

#[cfg(test)]
mod layout_tests;
