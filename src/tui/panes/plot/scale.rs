//! The map from log10 values to the dots and cells of the graph area. The
//! scales themselves (whole-decade bounds, the roof as a polyline) are
//! `crate::plot::scale`, shared with the SVG figures.

pub use crate::plot::scale::{Bounds, Roof, bounds, decades, roof_points};
use ratatui::layout::Rect;

/// Where log10 values land in the graph area: dots (Braille has 2x4 per
/// cell, ASCII one) and the cells holding them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mapper {
    pub area: Rect,
    pub b: Bounds,
    /// Dots per cell, across and down.
    pub dpc: (u16, u16),
}

impl Mapper {
    /// Dots across and down.
    pub fn dots(&self) -> (u16, u16) {
        (self.area.width * self.dpc.0, self.area.height * self.dpc.1)
    }

    /// The dot of a value, unclipped (a line is clipped by the raster).
    pub fn dot(&self, x: f64, y: f64) -> (f64, f64) {
        let [x0, x1] = self.b.x;
        let [y0, y1] = self.b.y;
        let (w, h) = self.dots();
        (
            (x - x0) * (w as f64 - 1.0) / (x1 - x0),
            (y1 - y) * (h as f64 - 1.0) / (y1 - y0),
        )
    }

    /// The screen cell of a value inside the bounds.
    pub fn cell(&self, x: f64, y: f64) -> Option<(u16, u16)> {
        let eps = 1e-9;
        if !(self.b.x[0] - eps..=self.b.x[1] + eps).contains(&x)
            || !(self.b.y[0] - eps..=self.b.y[1] + eps).contains(&y)
        {
            return None;
        }
        let (dx, dy) = self.dot(x, y);
        let (w, h) = self.dots();
        let dx = dx.round().clamp(0.0, w as f64 - 1.0) as u16;
        let dy = dy.round().clamp(0.0, h as f64 - 1.0) as u16;
        Some((self.area.x + dx / self.dpc.0, self.area.y + dy / self.dpc.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_map_to_corner_cells() {
        // 10 cells x 5 rows of Braille: 20 x 20 dots. The bottom-left value
        // is dot (0, 19), cell (0, 4); the top-right is dot (19, 0), cell (9, 0).
        let m = Mapper {
            area: Rect::new(3, 2, 10, 5),
            b: Bounds {
                x: [0.0, 4.0],
                y: [10.0, 15.0],
            },
            dpc: (2, 4),
        };
        assert_eq!(m.cell(0.0, 10.0), Some((3, 6)));
        assert_eq!(m.cell(4.0, 15.0), Some((12, 2)));
        assert_eq!(m.cell(4.1, 15.0), None);
    }
}
