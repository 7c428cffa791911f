//! Text fitted to a width, the one way: wrapped at word boundaries, and
//! where the room runs out, abbreviated with an ellipsis after a whole word.
//! A word is never cut in the middle; one longer than the whole width is
//! shortened with the ellipsis (the only way it can be shown at all).
//!
//! Every pane that fits prose to a width (the status line's explanation and
//! notes, the comparison's "because" lines, the summaries of the views)
//! goes through here, and a status line built of parts drops or shortens
//! the least important parts first ([`fit_parts`]) so that the part that
//! must stay (a fit verdict) is never cut.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The ellipsis: "…", or "..." for ASCII terminals.
pub fn ellipsis(ascii: bool) -> &'static str {
    if ascii { "..." } else { "…" }
}

/// Display columns of `s`.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// A single word shortened to `room` columns, ending in the ellipsis.
fn shorten_word(w: &str, room: usize, ascii: bool) -> String {
    let e = ellipsis(ascii);
    if width(w) <= room {
        return w.to_string();
    }
    if room < width(e) {
        // Narrower than the ellipsis itself: as much of it as fits.
        return e.chars().take(room).collect();
    }
    let keep = room - width(e);
    let mut out = String::new();
    for c in w.chars() {
        if width(&out) + width(c.encode_utf8(&mut [0; 4])) > keep {
            break;
        }
        out.push(c);
    }
    out.push_str(e);
    out
}

/// The words of `text` in lines of at most `width` columns, at word
/// boundaries. A word longer than a whole line is shortened with the
/// ellipsis.
pub fn wrap(text: &str, width_cols: usize, ascii: bool) -> Vec<String> {
    wrap_hanging(text, width_cols, width_cols, ascii)
}

/// [`wrap`] with a first line of `first` columns and the others of `rest`
/// (a hanging indent, a label before the first line).
pub fn wrap_hanging(text: &str, first: usize, rest: usize, ascii: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        let room = if out.is_empty() { first } else { rest };
        if !cur.is_empty() && width(&cur) + 1 + width(w) > room {
            out.push(std::mem::take(&mut cur));
        }
        let room = if out.is_empty() { first } else { rest };
        if room == 0 {
            return out;
        }
        let w = shorten_word(w, room, ascii);
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&w);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `text` in at most `lines` lines of `width` columns: wrapped at word
/// boundaries, and when it is longer, the last line ends after a whole word
/// with the ellipsis.
pub fn fit(text: &str, width_cols: usize, lines: usize, ascii: bool) -> Vec<String> {
    let mut out = wrap(text, width_cols, ascii);
    if out.len() <= lines {
        return out;
    }
    out.truncate(lines);
    if let Some(last) = out.last_mut() {
        let e = ellipsis(ascii);
        // Drop whole words until the ellipsis fits after a space.
        while !last.is_empty() && width(last) + 1 + width(e) > width_cols {
            match last.rfind(' ') {
                Some(i) => last.truncate(i),
                None => last.clear(),
            }
        }
        if last.is_empty() {
            *last = e.to_string();
        } else {
            last.push(' ');
            last.push_str(e);
        }
    }
    out
}

/// One line of `text` within `width` columns (see [`fit`]).
pub fn clip(text: &str, width_cols: usize, ascii: bool) -> String {
    fit(text, width_cols, 1, ascii).pop().unwrap_or_default()
}

/// A part of a one-line headline.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// As written when there is room.
    pub full: Vec<Span<'a>>,
    /// A shorter form, used before anything else is dropped.
    pub short: Option<Vec<Span<'a>>>,
    /// Never dropped (a fit verdict).
    pub keep: bool,
    /// Lower goes first when room is short.
    pub rank: u8,
    /// The rank at which it takes its shorter form, when not `rank` (an
    /// error band gives way before the figure it belongs to).
    pub short_rank: Option<u8>,
}

impl<'a> Part<'a> {
    pub fn new(full: Vec<Span<'a>>, rank: u8) -> Part<'a> {
        Part {
            full,
            short: None,
            keep: false,
            rank,
            short_rank: None,
        }
    }
    pub fn short(mut self, s: Vec<Span<'a>>) -> Part<'a> {
        self.short = Some(s);
        self
    }
    /// A shorter form taken at rank `rank`.
    pub fn short_at(mut self, s: Vec<Span<'a>>, rank: u8) -> Part<'a> {
        self.short = Some(s);
        self.short_rank = Some(rank);
        self
    }
    pub fn keep(mut self) -> Part<'a> {
        self.keep = true;
        self
    }
}

fn spans_width(s: &[Span]) -> usize {
    s.iter().map(|x| x.width()).sum()
}

/// Parts joined by `sep` within `width` columns. While they are too wide,
/// the part of lowest rank that can still give way does: to its shorter
/// form if it has one, else it is dropped. Parts marked `keep` are
/// shortened but never dropped, so a verdict stays whole; only when the
/// kept parts alone are wider than the screen is the line abbreviated
/// (after a whole word, [`clip_line`]).
pub fn fit_parts<'a>(
    parts: Vec<Part<'a>>,
    sep: Span<'a>,
    width_cols: usize,
    ascii: bool,
) -> Line<'a> {
    // Each part: shortened, shown.
    let mut state: Vec<(Part<'a>, bool, bool)> =
        parts.into_iter().map(|p| (p, false, true)).collect();
    let part_width = |(p, short, _): &(Part<'a>, bool, bool)| {
        spans_width(match (short, &p.short) {
            (true, Some(s)) => s,
            _ => &p.full,
        })
    };
    loop {
        let shown: Vec<usize> = state.iter().filter(|x| x.2).map(part_width).collect();
        let total = shown.iter().sum::<usize>() + sep.width() * shown.len().saturating_sub(1);
        if total <= width_cols {
            break;
        }
        let shortens = |p: &Part, short: bool| !short && p.short.is_some();
        let give = state
            .iter()
            .enumerate()
            .filter(|(_, (p, short, on))| *on && (shortens(p, *short) || !p.keep))
            .min_by_key(|(_, (p, short, _))| match p.short_rank {
                Some(r) if shortens(p, *short) => r,
                _ => p.rank,
            })
            .map(|(i, _)| i);
        let Some(i) = give else { break };
        if !state[i].1 && state[i].0.short.is_some() {
            state[i].1 = true;
        } else {
            state[i].2 = false;
        }
    }
    let mut spans = Vec::new();
    for (p, short, on) in state {
        if !on {
            continue;
        }
        if !spans.is_empty() {
            spans.push(sep.clone());
        }
        match (short, p.short) {
            (true, Some(s)) => spans.extend(s),
            _ => spans.extend(p.full),
        }
    }
    clip_line(Line::from(spans), width_cols, ascii)
}

/// A styled line within `width` columns: unchanged when it fits, else cut
/// after the last whole word that leaves room for the ellipsis.
pub fn clip_line<'a>(line: Line<'a>, width_cols: usize, ascii: bool) -> Line<'a> {
    if line.width() <= width_cols {
        return line;
    }
    let e = ellipsis(ascii);
    let room = width_cols.saturating_sub(width(e));
    // The end (in columns) of the last whole word that fits in `room`.
    let mut cols = 0;
    let mut cut = 0;
    let mut prev_space = true;
    'outer: for span in &line.spans {
        for c in span.content.chars() {
            let w = width(c.encode_utf8(&mut [0; 4]));
            if c == ' ' && !prev_space {
                cut = cols;
            }
            prev_space = c == ' ';
            if cols + w > room {
                break 'outer;
            }
            cols += w;
        }
    }
    let mut out: Vec<Span<'a>> = Vec::new();
    let mut left = cut;
    let mut last_style = line.style;
    for span in line.spans {
        if left == 0 {
            break;
        }
        let mut text = String::new();
        for c in span.content.chars() {
            let w = width(c.encode_utf8(&mut [0; 4]));
            if w > left {
                left = 0;
                break;
            }
            left -= w;
            text.push(c);
        }
        last_style = span.style;
        out.push(Span::styled(text, span.style));
    }
    if cut > 0 {
        out.push(Span::styled(format!(" {e}"), last_style));
    } else {
        out.push(Span::styled(e.to_string(), last_style));
    }
    Line::from(out).style(line.style)
}

/// Lines written top-down into `area`, each fitted to its width at a word
/// boundary ([`clip_line`]): what `panes::lines` draws, never cutting a word.
pub fn draw_lines(buf: &mut Buffer, area: Rect, lines: &[Line], ascii: bool) {
    for (i, l) in lines.iter().enumerate().take(area.height as usize) {
        let l = clip_line(l.clone(), area.width as usize, ascii);
        buf.set_line(area.x, area.y + i as u16, &l, area.width);
    }
}

/// One line at row `y` of `area`, fitted at a word boundary.
pub fn draw_line(buf: &mut Buffer, area: Rect, y: u16, line: &Line, ascii: bool) {
    if y >= area.y && y < area.bottom() {
        let l = clip_line(line.clone(), area.width as usize, ascii);
        buf.set_line(area.x, y, &l, area.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn wraps_at_word_boundaries() {
        assert_eq!(
            wrap("each step moves 15.6 GB in 6.63 ms", 16, false),
            vec!["each step moves", "15.6 GB in 6.63", "ms"]
        );
        assert_eq!(wrap("", 10, false), Vec::<String>::new());
        assert_eq!(wrap("a b", 0, false), Vec::<String>::new());
    }

    #[test]
    fn a_hanging_first_line_has_its_own_width() {
        // 10 columns first ("each step" is 9), then 16.
        assert_eq!(
            wrap_hanging("each step moves 15.6 GB in 6.63 ms", 10, 16, false),
            vec!["each step", "moves 15.6 GB in", "6.63 ms"]
        );
    }

    #[test]
    fn a_word_longer_than_the_line_is_abbreviated_not_split() {
        // 10 columns: 9 letters and the ellipsis; in ASCII 7 and "...".
        assert_eq!(wrap("supercalifragilistic", 10, false), vec!["supercali…"]);
        assert_eq!(wrap("supercalifragilistic", 10, true), vec!["superca..."]);
    }

    #[test]
    fn text_longer_than_its_lines_ends_after_a_whole_word() {
        let t = "needs 142 GB per device but 72 GB is usable: does not fit";
        // 20 columns, 2 lines: "needs 142 GB per" / "device but 72 GB is" does
        // not leave room for " …" (19 + 2 > 20), so "is" goes.
        assert_eq!(
            fit(t, 20, 2, false),
            vec!["needs 142 GB per", "device but 72 GB …"]
        );
        // 13 columns in ASCII: "needs 142" and " ...".
        assert_eq!(clip(t, 13, true), "needs 142 ...");
        assert_eq!(clip("short", 12, false), "short");
    }

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.to_string()).collect()
    }

    #[test]
    fn the_kept_part_stays_whole_while_others_shorten_then_go() {
        let parts = || {
            vec![
                Part::new(vec![Span::raw("llama-3.1-70b · a100-sxm-80gb")], 3)
                    .short(vec![Span::raw("a100-sxm-80gb")]),
                Part::new(
                    vec![Span::raw(
                        "NO FIT: needs 2 x a100-sxm-80gb (142 GB > 72 GB)",
                    )],
                    2,
                )
                .short(vec![Span::raw("NO FIT: needs 2 x a100-sxm-80gb")])
                .keep(),
                Part::new(vec![Span::raw("on 2: 61.2 ms")], 4),
                Part::new(vec![Span::raw("memory-bound")], 1),
            ]
        };
        let fit = |w| text(&fit_parts(parts(), Span::raw(" | "), w, false));
        // All of it: 29 + 48 + 13 + 12 + 3 separators of 3 = 111 columns.
        assert_eq!(
            fit(111),
            "llama-3.1-70b · a100-sxm-80gb | NO FIT: needs 2 x a100-sxm-80gb (142 GB > 72 GB) | on 2: 61.2 ms | memory-bound"
        );
        // Rank 1 goes first: the bound (111 - 15 = 96).
        assert_eq!(
            fit(110),
            "llama-3.1-70b · a100-sxm-80gb | NO FIT: needs 2 x a100-sxm-80gb (142 GB > 72 GB) | on 2: 61.2 ms"
        );
        // Rank 2: the verdict's short form (96 - 17 = 79).
        assert_eq!(
            fit(95),
            "llama-3.1-70b · a100-sxm-80gb | NO FIT: needs 2 x a100-sxm-80gb | on 2: 61.2 ms"
        );
        // Rank 3: the device alone (79 - 16 = 63), then it goes (63 - 16 = 47),
        // then the latency: the verdict is left whole.
        assert_eq!(
            fit(78),
            "a100-sxm-80gb | NO FIT: needs 2 x a100-sxm-80gb | on 2: 61.2 ms"
        );
        assert_eq!(fit(62), "NO FIT: needs 2 x a100-sxm-80gb | on 2: 61.2 ms");
        assert_eq!(fit(46), "NO FIT: needs 2 x a100-sxm-80gb");
        assert_eq!(fit(31), "NO FIT: needs 2 x a100-sxm-80gb");
        // Narrower than the verdict itself: abbreviated after a whole word.
        assert_eq!(fit(20), "NO FIT: needs 2 x …");
    }

    #[test]
    fn a_styled_line_is_cut_after_a_whole_word() {
        let l = Line::from(vec![
            Span::raw(" error: "),
            Span::raw("batch must be positive"),
        ]);
        assert_eq!(
            text(&clip_line(l.clone(), 30, false)),
            l.spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        );
        // 20 columns: " error: batch must" is 18, + " …" = 20.
        assert_eq!(
            text(&clip_line(l.clone(), 20, false)),
            " error: batch must …"
        );
        assert_eq!(text(&clip_line(l, 20, true)), " error: batch ...");
    }

    proptest! {
        /// With a hanging first line, no line is wider than its own width.
        #[test]
        fn hanging_lines_keep_their_widths(
            words in proptest::collection::vec("[a-z0-9]{1,20}", 0..30),
            first in 3usize..40,
            rest in 3usize..40,
        ) {
            let out = wrap_hanging(&words.join(" "), first, rest, true);
            for (i, l) in out.iter().enumerate() {
                let room = if i == 0 { first } else { rest };
                prop_assert!(width(l) <= room, "{l:?} wider than {room}");
            }
        }

        /// Every word of the output is a whole word of the input (or one
        /// abbreviated because it is wider than a line, or the ellipsis), in
        /// order, and no line is wider than asked.
        #[test]
        fn never_cuts_a_word(
            words in proptest::collection::vec("[a-z0-9:/%]{1,14}", 0..30),
            w in 3usize..60,
            n in 1usize..4,
            ascii in any::<bool>(),
        ) {
            let text = words.join(" ");
            let out = fit(&text, w, n, ascii);
            prop_assert!(out.len() <= n);
            let e = ellipsis(ascii);
            let mut src = words.iter();
            let tokens: Vec<&str> = out.iter().flat_map(|l| l.split(' ')).collect();
            for l in &out {
                prop_assert!(width(l) <= w, "{l:?} wider than {w}");
            }
            for (k, got) in tokens.iter().copied().enumerate() {
                if got == e && k + 1 == tokens.len() {
                    // The ellipsis of a text cut short (or a last word
                    // wider than the line, shortened to nothing but it).
                    continue;
                }
                let orig = src.next().unwrap();
                match got.strip_suffix(e) {
                    // Abbreviated: only a word wider than the line.
                    Some(stem) => prop_assert!(
                        orig.starts_with(stem) && width(orig) > w,
                        "{got:?} from {orig:?}"
                    ),
                    None => prop_assert_eq!(got, orig.as_str()),
                }
            }
        }
    }
}
