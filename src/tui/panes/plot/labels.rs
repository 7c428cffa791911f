//! Label placement on a plot: each label has candidate spots in order of
//! preference (beside its point, then above, below, ...; its full text,
//! then shorter forms). The first spot that lies inside the plot, keeps a
//! blank cell between it and every point (the cells to keep clear) and
//! every label placed before it wins; a label with no such spot is left
//! out rather than drawn over another.

use ratatui::layout::Rect;

/// A candidate: the cell of its first character and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    pub x: i32,
    pub y: i32,
    pub text: String,
}

/// A placed label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub x: u16,
    pub y: u16,
    pub text: String,
}

impl Placed {
    pub fn width(&self) -> u16 {
        self.text.chars().count() as u16
    }
    pub fn rect(&self) -> Rect {
        Rect::new(self.x, self.y, self.width(), 1)
    }
}

fn width(text: &str) -> i32 {
    text.chars().count() as i32
}

/// The spots of a plot's axis names: the y axis's at the top left of
/// the graph (its first row, else its second), the x axis's at its bottom
/// right (one row above the axis, else two).
pub fn axis_names(graph: Rect, y: &str, x: &str) -> [Vec<Spot>; 2] {
    let spot = |sx: i32, sy: i32, text: &str| Spot {
        x: sx,
        y: sy,
        text: text.to_string(),
    };
    let gx = graph.x as i32;
    let gy = graph.y as i32;
    let xx = (graph.right() as i32 - width(x) - 1).max(0);
    let bottom = graph.bottom() as i32;
    [
        [0, 1].map(|dy| spot(gx + 1, gy + dy, y)).to_vec(),
        [1, 2].map(|dy| spot(xx, (bottom - dy).max(0), x)).to_vec(),
    ]
}

/// Whether a spot fits: inside `area`, clear of `keep` cells, a blank cell
/// away from every placed label on its row.
fn fits(s: &Spot, area: Rect, keep: &[(u16, u16)], placed: &[Placed]) -> bool {
    let w = width(&s.text);
    if w == 0
        || s.x < area.x as i32
        || s.y < area.y as i32
        || s.y >= area.bottom() as i32
        || s.x + w > area.right() as i32
    {
        return false;
    }
    // A point keeps a blank cell on each side too, so that no label seems
    // to name a point it only touches.
    let near = |x: i32, y: i32| y == s.y && x >= s.x - 1 && x <= s.x + w;
    if keep.iter().any(|&(x, y)| near(x as i32, y as i32)) {
        return false;
    }
    placed.iter().all(|p| {
        let (px, pw) = (p.x as i32, p.width() as i32);
        p.y as i32 != s.y || s.x > px + pw || s.x + w < px
    })
}

/// Place the labels in order (the first has the first pick). Returns, for
/// each request, where it went, or None when no spot was free.
pub fn place(area: Rect, keep: &[(u16, u16)], requests: &[Vec<Spot>]) -> Vec<Option<Placed>> {
    let mut placed: Vec<Placed> = Vec::new();
    let mut out = Vec::with_capacity(requests.len());
    for spots in requests {
        let got = spots
            .iter()
            .find(|s| fits(s, area, keep, &placed))
            .map(|s| Placed {
                x: s.x as u16,
                y: s.y as u16,
                text: s.text.clone(),
            });
        if let Some(p) = &got {
            placed.push(p.clone());
        }
        out.push(got);
    }
    out
}

/// Spots beside a point at (x, y): right, left, then the rows above and
/// below (starting at the point's column or ending at it), two rows away
/// last; each text in turn, the preferred first.
pub fn beside(x: u16, y: u16, texts: &[String]) -> Vec<Spot> {
    let (x, y) = (x as i32, y as i32);
    let mut v = Vec::new();
    for t in texts {
        let w = width(t);
        for (dx, dy) in [
            (2, 0),
            (-1 - w, 0),
            (1, -1),
            (1, 1),
            (1 - w, -1),
            (1 - w, 1),
            (2, -2),
            (2, 2),
            (1 - w, -2),
            (1 - w, 2),
        ] {
            v.push(Spot {
                x: x + dx,
                y: y + dy,
                text: t.clone(),
            });
        }
    }
    v
}

/// Spots ending at column `right` (exclusive) near row `y`: over the end of
/// the line that ends there (so the label reads as its end), then above it,
/// below it, and further away.
pub fn at_end(right: u16, y: u16, texts: &[String]) -> Vec<Spot> {
    let mut v = Vec::new();
    for t in texts {
        for dy in [0, -1, 1, -2, 2, -3, 3] {
            v.push(Spot {
                x: right as i32 - width(t),
                y: y as i32 + dy,
                text: t.clone(),
            });
        }
    }
    v
}

/// True when no two labels share a cell or touch on a row, none leaves
/// `area` and none covers a cell of `keep`.
#[cfg(test)]
pub fn valid(area: Rect, keep: &[(u16, u16)], labels: &[Placed]) -> bool {
    labels.iter().enumerate().all(|(i, l)| {
        let s = Spot {
            x: l.x as i32,
            y: l.y as i32,
            text: l.text.clone(),
        };
        fits(&s, area, keep, &labels[..i])
            && labels[i + 1..].iter().all(|o| {
                let r = l.rect().intersection(o.rect());
                r.is_empty()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_taken_spot_sends_the_next_label_elsewhere() {
        let area = Rect::new(0, 0, 40, 10);
        // Two points on one row. The first label takes the right of its
        // point (columns 7-17). The second point is at column 30 of 40: its
        // right runs out of the plot (32 + 11 > 40), its left (18-28) would
        // touch the first label, and above-right runs out too; above-left
        // (20-30 on row 4) is free.
        let reqs = vec![
            beside(5, 5, &texts(&["h100 decode"])),
            beside(30, 5, &texts(&["a100 decode"])),
        ];
        let keep = [(5, 5), (30, 5)];
        let p = place(area, &keep, &reqs);
        let a = p[0].clone().unwrap();
        let b = p[1].clone().unwrap();
        assert_eq!((a.x, a.y), (7, 5));
        assert_eq!((b.x, b.y), (20, 4));
        assert!(valid(area, &keep, &[a, b]));
    }

    #[test]
    fn a_shorter_text_is_used_when_the_long_one_does_not_fit() {
        let area = Rect::new(0, 0, 12, 3);
        let reqs = vec![at_end(12, 1, &texts(&["a100-sxm-80gb", "a100"]))];
        let p = place(area, &[], &reqs);
        assert_eq!(
            p[0],
            Some(Placed {
                x: 8,
                y: 1,
                text: "a100".into()
            })
        );
    }

    #[test]
    fn no_room_leaves_the_label_out() {
        let area = Rect::new(0, 0, 6, 1);
        let p = place(area, &[], &[beside(0, 0, &texts(&["far too long"]))]);
        assert_eq!(p, vec![None]);
    }

    proptest! {
        #[test]
        fn placed_labels_never_overlap_cover_points_or_leave_the_plot(
            w in 10u16..120,
            h in 3u16..40,
            pts in proptest::collection::vec((0u16..120, 0u16..40, 1usize..16), 1..12),
        ) {
            let area = Rect::new(3, 2, w, h);
            let keep: Vec<(u16, u16)> = pts
                .iter()
                .map(|(x, y, _)| (area.x + x % w, area.y + y % h))
                .collect();
            let reqs: Vec<Vec<Spot>> = pts
                .iter()
                .zip(&keep)
                .map(|((_, _, n), &(x, y))| {
                    let long = "x".repeat(*n);
                    let short = "y".repeat(n.div_ceil(2));
                    if n % 2 == 0 {
                        beside(x, y, &[long, short])
                    } else {
                        at_end(area.right(), y, &[long, short])
                    }
                })
                .collect();
            let placed: Vec<Placed> = place(area, &keep, &reqs).into_iter().flatten().collect();
            prop_assert!(valid(area, &keep, &placed), "{placed:?}");
            for (i, a) in placed.iter().enumerate() {
                prop_assert!(area.contains(a.rect().as_position()));
                prop_assert!(a.rect().right() <= area.right());
                for b in &placed[i + 1..] {
                    prop_assert!(a.rect().intersection(b.rect()).is_empty(), "{a:?} {b:?}");
                }
                for &(x, y) in &keep {
                    prop_assert!(!(y == a.y && x >= a.x && x < a.x + a.width()), "{a:?} covers {x},{y}");
                }
            }
        }
    }
}
