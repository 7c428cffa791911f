//! How each device on a plot is told apart without colour: a dash
//! pattern for its roof (Braille dots in the terminal, a stroke dash array
//! in an SVG figure), a glyph for its operating point, and an ASCII
//! character that draws its roof in ASCII mode. The legends and tables
//! show the same marks, and the labels use short device ids.

/// The marks of one device (or of the effective roof).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marks {
    /// On and off runs in dots along the line, repeating; empty is solid.
    pub dash: &'static [u8],
    /// The operating point's glyph (Unicode).
    pub glyph: char,
    /// The roof's character in ASCII mode.
    pub ascii: char,
    /// The operating point's character in ASCII mode (its place on the
    /// plot counted from 1: 1-9, then A, B, C).
    pub point: char,
}

/// One set per device, by its place on the plot. Every pattern repeats
/// within 6 dots, so a 3-cell sample shows it whole, and no two samples
/// are alike (a test checks it).
pub const DEVICE: [Marks; 12] = [
    Marks {
        dash: &[],
        glyph: '●',
        ascii: '*',
        point: '1',
    },
    Marks {
        dash: &[4, 2],
        glyph: '■',
        ascii: '+',
        point: '2',
    },
    Marks {
        dash: &[1, 1],
        glyph: '▲',
        ascii: '#',
        point: '3',
    },
    Marks {
        dash: &[3, 3],
        glyph: '◆',
        ascii: '%',
        point: '4',
    },
    Marks {
        dash: &[2, 2],
        glyph: '▼',
        ascii: '=',
        point: '5',
    },
    Marks {
        dash: &[5, 1],
        glyph: '◈',
        ascii: '~',
        point: '6',
    },
    Marks {
        dash: &[3, 1, 1, 1],
        glyph: '▣',
        ascii: '&',
        point: '7',
    },
    Marks {
        dash: &[2, 1],
        glyph: '◐',
        ascii: '$',
        point: '8',
    },
    Marks {
        dash: &[1, 2],
        glyph: '◇',
        ascii: '^',
        point: '9',
    },
    Marks {
        dash: &[1, 5],
        glyph: '□',
        ascii: '!',
        point: 'A',
    },
    Marks {
        dash: &[2, 1, 1, 2],
        glyph: '△',
        ascii: ';',
        point: 'B',
    },
    Marks {
        dash: &[1, 1, 1, 3],
        glyph: '▽',
        ascii: '"',
        point: 'C',
    },
];

/// The effective roof (efficiencies applied): sparse dots.
pub const EFFECTIVE: Marks = Marks {
    dash: &[1, 3],
    glyph: '·',
    ascii: '.',
    point: '.',
};

/// A cache level's roof on a hierarchical roofline (the selected device's
/// measured L1, L2, L3): short dashes in the device's colour, `'` in
/// ASCII.
pub const CACHE: Marks = Marks {
    dash: &[2, 3],
    glyph: '·',
    ascii: '\'',
    point: '\'',
};

/// The other phase's point in ASCII mode.
pub const ASCII_OTHER_POINT: char = 'O';
/// The other phase's point (Unicode).
pub const OTHER_POINT: char = '○';

/// The marks of the device at place `i` on the plot.
pub fn device(i: usize) -> Marks {
    DEVICE[i % DEVICE.len()]
}

/// Whether the dash pattern draws at `step` dots along the line.
pub fn on(dash: &[u8], step: usize) -> bool {
    let period: usize = dash.iter().map(|&d| d as usize).sum();
    if period == 0 {
        return true;
    }
    let mut s = step % period;
    for (k, &len) in dash.iter().enumerate() {
        if s < len as usize {
            return k % 2 == 0;
        }
        s -= len as usize;
    }
    true
}

/// A horizontal sample of a dash pattern, `cells` Braille cells long
/// (the second dot row of each cell).
pub fn sample(dash: &[u8], cells: usize) -> String {
    (0..cells)
        .map(|c| {
            let l = if on(dash, 2 * c) { 0x02 } else { 0 };
            let r = if on(dash, 2 * c + 1) { 0x10 } else { 0 };
            char::from_u32(0x2800 + l + r).unwrap_or(' ')
        })
        .collect()
}

/// What a device looks like in a legend or table row: its line sample and
/// point glyph ("⠒⠒⠀■"), or its ASCII roof character and point character
/// ("+++2").
pub fn legend_symbol(i: usize, ascii: bool) -> String {
    let m = device(i);
    if ascii {
        format!("{}{}", m.ascii.to_string().repeat(3), m.point)
    } else {
        format!("{}{}", sample(m.dash, 3), m.glyph)
    }
}

/// Short names for ids on a plot: the first part ("h100" for h100-sxm),
/// else the first and last parts ("a100-80gb" beside a100-sxm-40gb), else
/// the whole id, whichever first tells it from the others.
pub fn short_ids(ids: &[&str]) -> Vec<String> {
    let forms = |id: &str| -> [String; 3] {
        let parts: Vec<&str> = id.split('-').collect();
        let first = parts[0].to_string();
        let ends = if parts.len() > 2 {
            format!("{}-{}", parts[0], parts[parts.len() - 1])
        } else {
            id.to_string()
        };
        [first, ends, id.to_string()]
    };
    let all: Vec<[String; 3]> = ids.iter().map(|id| forms(id)).collect();
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            for k in 0..2 {
                let f = &all[i][k];
                let clash = all
                    .iter()
                    .enumerate()
                    .any(|(j, o)| j != i && ids[j] != *id && o.iter().any(|x| x == f));
                if !clash {
                    return f.clone();
                }
            }
            id.to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_device_has_its_own_sample_glyph_and_character() {
        let n = DEVICE.len();
        for i in 0..n {
            for j in (i + 1)..n {
                assert_ne!(legend_symbol(i, false), legend_symbol(j, false), "{i} {j}");
                assert_ne!(device(i).ascii, device(j).ascii, "{i} {j}");
                assert_ne!(device(i).glyph, device(j).glyph, "{i} {j}");
                assert_ne!(device(i).point, device(j).point, "{i} {j}");
                assert_ne!(legend_symbol(i, true), legend_symbol(j, true), "{i} {j}");
            }
            assert_ne!(sample(device(i).dash, 3), sample(EFFECTIVE.dash, 3));
            let a = device(i).ascii;
            assert!(a.is_ascii_graphic() && a != ASCII_OTHER_POINT);
            let p = device(i).point;
            // A point's character is none of the roofs' (it would vanish on
            // a roof) nor the other phase's.
            assert!(p.is_ascii_graphic() && p != ASCII_OTHER_POINT && p != EFFECTIVE.ascii);
            assert!(DEVICE.iter().all(|m| m.ascii != p), "{p}");
            assert_ne!(a, EFFECTIVE.ascii);
        }
    }

    #[test]
    fn dash_patterns_repeat() {
        // [4, 2]: four dots on, two off, again.
        let v: Vec<bool> = (0..8).map(|s| on(&[4, 2], s)).collect();
        assert_eq!(v, [true, true, true, true, false, false, true, true]);
        assert!((0..20).all(|s| on(&[], s)));
        // Solid: both dots of every cell on the second row (0x02 + 0x10).
        assert_eq!(sample(&[], 2), "⠒⠒");
        assert_eq!(sample(&[4, 2], 3), "⠒⠒⠀");
    }

    #[test]
    fn short_ids_stay_unique() {
        let ids = [
            "a100-sxm-40gb",
            "a100-sxm-80gb",
            "h100-sxm",
            "h200-sxm",
            "b200",
            "gb200",
        ];
        assert_eq!(
            short_ids(&ids),
            ["a100-40gb", "a100-80gb", "h100", "h200", "b200", "gb200"]
        );
        // h100-sxm beside h100-pcie: the first part clashes, the ends do not.
        assert_eq!(
            short_ids(&["h100-sxm", "h100-pcie"]),
            ["h100-sxm", "h100-pcie"]
        );
        // A short form that is another device's id is not used.
        assert_eq!(short_ids(&["b200", "b200-x"]), ["b200", "b200-x"]);
    }
}
