//! Lines drawn into a grid of cells: Braille dots (2x4 per cell) with a
//! dash pattern per line, or one character per cell in ASCII mode. Each
//! line is a layer; a cell shows the dots of every layer that passes
//! through it, in the colour (or ASCII character) of the last one drawn.

use super::marks;

/// The bit of a Braille dot at (column, row) inside its cell.
const BRAILLE: [[u8; 2]; 4] = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];

pub struct Raster {
    width: u16,
    height: u16,
    /// Dots per cell: (2, 4) for Braille, (1, 1) for ASCII.
    dpc: (u16, u16),
    bits: Vec<u8>,
    /// The last layer drawn into each cell.
    layer: Vec<Option<usize>>,
}

impl Raster {
    pub fn new(width: u16, height: u16, dpc: (u16, u16)) -> Raster {
        let n = width as usize * height as usize;
        Raster {
            width,
            height,
            dpc,
            bits: vec![0; n],
            layer: vec![None; n],
        }
    }

    fn set(&mut self, dx: i64, dy: i64, layer: usize) {
        let (w, h) = (
            self.width as i64 * self.dpc.0 as i64,
            self.height as i64 * self.dpc.1 as i64,
        );
        if dx < 0 || dy < 0 || dx >= w || dy >= h {
            return;
        }
        let (cx, cy) = (dx / self.dpc.0 as i64, dy / self.dpc.1 as i64);
        let i = cy as usize * self.width as usize + cx as usize;
        let bit = if self.dpc == (2, 4) {
            BRAILLE[(dy % 4) as usize][(dx % 2) as usize]
        } else {
            1
        };
        self.bits[i] |= bit;
        self.layer[i] = Some(layer);
    }

    /// A polyline through dot coordinates, dashed: the pattern runs on
    /// from one segment to the next.
    pub fn polyline(&mut self, points: &[(f64, f64)], dash: &[u8], layer: usize) {
        let mut step = 0usize;
        let mut last: Option<(i64, i64)> = None;
        for w in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            let n = (x1 - x0).abs().max((y1 - y0).abs()).ceil().max(1.0) as usize;
            for k in 0..=n {
                let t = k as f64 / n as f64;
                let p = (
                    (x0 + t * (x1 - x0)).round() as i64,
                    (y0 + t * (y1 - y0)).round() as i64,
                );
                if last == Some(p) {
                    continue;
                }
                last = Some(p);
                if marks::on(dash, step) {
                    self.set(p.0, p.1, layer);
                }
                step += 1;
            }
        }
    }

    /// Every drawn cell: (column, row, Braille dots, layer).
    pub fn cells(&self) -> impl Iterator<Item = (u16, u16, u8, usize)> + '_ {
        let w = self.width as usize;
        self.layer
            .iter()
            .enumerate()
            .filter_map(move |(i, l)| l.map(|l| ((i % w) as u16, (i / w) as u16, self.bits[i], l)))
    }
}

/// The Braille character of a cell's dots.
pub fn braille(bits: u8) -> char {
    char::from_u32(0x2800 + bits as u32).unwrap_or(' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solid_line_fills_its_dots_and_a_dashed_one_skips() {
        // One row of 4 Braille cells: 8 dots across. A line along dot row 1
        // sets bits 0x02 (left) and 0x10 (right) of every cell.
        let mut r = Raster::new(4, 1, (2, 4));
        r.polyline(&[(0.0, 1.0), (7.0, 1.0)], &[], 0);
        let c: Vec<char> = r.cells().map(|(_, _, b, _)| braille(b)).collect();
        assert_eq!(c.iter().collect::<String>(), "⠒⠒⠒⠒");
        // Dashed 4 on, 2 off: dots 0-3 and 6-7 on, 4-5 off: the third cell
        // is left blank.
        let mut r = Raster::new(4, 1, (2, 4));
        r.polyline(&[(0.0, 1.0), (7.0, 1.0)], &[4, 2], 0);
        let cols: Vec<u16> = r.cells().map(|(x, _, _, _)| x).collect();
        assert_eq!(cols, [0, 1, 3]);
    }

    #[test]
    fn the_last_layer_owns_a_shared_cell() {
        let mut r = Raster::new(3, 3, (1, 1));
        r.polyline(&[(0.0, 0.0), (2.0, 2.0)], &[], 0);
        r.polyline(&[(0.0, 2.0), (2.0, 0.0)], &[], 1);
        let centre = r.cells().find(|(x, y, _, _)| (*x, *y) == (1, 1)).unwrap();
        assert_eq!(centre.3, 1);
        assert_eq!(r.cells().count(), 5);
    }

    #[test]
    fn dots_outside_are_dropped() {
        let mut r = Raster::new(2, 2, (2, 4));
        r.polyline(&[(-5.0, -5.0), (10.0, 10.0)], &[], 0);
        assert!(r.cells().all(|(x, y, _, _)| x < 2 && y < 2));
    }
}
