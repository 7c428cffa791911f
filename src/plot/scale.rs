//! Log-log scales: whole-decade bounds around what is plotted, the roof as
//! a polyline, and the decades of a range. Pure: the terminal's chart maps
//! them to cells (`tui::panes::plot::scale::Mapper`), the SVG figures to
//! points (`plot::svg`).

/// A roof: peak FLOP/s and memory bandwidth (byte/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roof {
    pub peak: f64,
    pub bandwidth: f64,
}

/// Log10 bounds of the plot: whole decades.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub x: [f64; 2],
    pub y: [f64; 2],
}

/// Whole-decade bounds around the given intensities (x, FLOP/byte) and
/// rates (y, FLOP/s), with some room on each side.
pub fn bounds(xs: &[f64], ys: &[f64], peaks: &[f64]) -> Bounds {
    let logs = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .map(f64::log10)
            .collect()
    };
    let lx = logs(xs);
    let ly = logs(ys);
    let lp = logs(peaks);
    let min = |v: &[f64], d: f64| v.iter().copied().fold(f64::INFINITY, f64::min).min(d);
    let max = |v: &[f64], d: f64| v.iter().copied().fold(f64::NEG_INFINITY, f64::max).max(d);
    let (xmin, xmax) = if lx.is_empty() {
        (0.0, 2.0)
    } else {
        (min(&lx, f64::INFINITY), max(&lx, f64::NEG_INFINITY))
    };
    let mut x0 = (xmin - 0.3).floor();
    let mut x1 = (xmax + 0.3).ceil();
    while x1 - x0 < 3.0 {
        x0 -= 1.0;
        if x1 - x0 < 3.0 {
            x1 += 1.0;
        }
    }
    let ptop = if lp.is_empty() {
        max(&ly, 12.0)
    } else {
        max(&lp, f64::NEG_INFINITY)
    };
    let y1 = (ptop + 1e-3).ceil();
    let ylow = min(&ly, ptop - 2.0).min(min(&lp, f64::INFINITY) - 2.0);
    let mut y0 = (ylow - 0.3).floor().max(y1 - 9.0);
    if y1 - y0 < 3.0 {
        y0 = y1 - 3.0;
    }
    Bounds {
        x: [x0.max(-6.0), x1.min(9.0)],
        y: [y0, y1],
    }
}

/// The roof as log10 points clipped to the bounds: the memory slope up to
/// the ridge, then the compute ceiling.
pub fn roof_points(r: Roof, b: Bounds) -> Vec<(f64, f64)> {
    let (lp, lb) = (r.peak.log10(), r.bandwidth.log10());
    let ridge = lp - lb;
    let mut pts = Vec::new();
    // Slope: y = lb + x, from where it enters the box.
    let x_start = b.x[0].max(b.y[0] - lb);
    if x_start < ridge.min(b.x[1]) {
        pts.push((x_start, lb + x_start));
    }
    if ridge <= b.x[1] {
        pts.push((ridge.max(b.x[0]), lp.min(lb + ridge.max(b.x[0]))));
        pts.push((b.x[1], lp));
    } else {
        pts.push((b.x[1], lb + b.x[1]));
    }
    pts.retain(|(_, y)| *y >= b.y[0] - 1e-9 && *y <= b.y[1] + 1e-9);
    pts
}

/// The decades of a log10 range, as exponents.
pub fn decades(r: [f64; 2]) -> impl Iterator<Item = i32> {
    (r[0].round() as i32)..=(r[1].round() as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_hold_points_and_ridge_in_whole_decades() {
        // H100-like: 989 TFLOP/s, 3.35 TB/s, ridge 295; decode at 1 FLOP/B.
        let b = bounds(&[1.0, 295.0], &[2e12], &[989e12]);
        assert_eq!(b.x, [-1.0, 3.0]);
        assert_eq!(b.y[1], 15.0);
        assert!(b.y[0] <= 12.0_f64.floor());
        assert!(b.y[1] - b.y[0] <= 9.0);
    }

    #[test]
    fn roof_has_slope_ridge_and_ceiling() {
        let b = Bounds {
            x: [-1.0, 3.0],
            y: [10.0, 15.0],
        };
        let r = Roof {
            peak: 1e15,
            bandwidth: 1e13,
        };
        let p = roof_points(r, b);
        assert_eq!(p.len(), 3);
        assert!((p[0].0 - (-1.0)).abs() < 1e-12 && (p[0].1 - 12.0).abs() < 1e-12);
        assert!((p[1].0 - 2.0).abs() < 1e-12 && (p[1].1 - 15.0).abs() < 1e-12);
        assert_eq!(p[2], (3.0, 15.0));
    }

    #[test]
    fn roof_is_clipped_at_the_floor() {
        let b = Bounds {
            x: [-1.0, 3.0],
            y: [13.0, 15.0],
        };
        let r = Roof {
            peak: 1e15,
            bandwidth: 1e13,
        };
        let p = roof_points(r, b);
        assert!(
            (p[0].0 - 0.0).abs() < 1e-12 && (p[0].1 - 13.0).abs() < 1e-12,
            "{p:?}"
        );
    }
}
