//! Collectives on a torus of nearest-neighbour links (TPU ICI). A device
//! has two links per axis, one to each neighbour; a collective over a
//! group laid along some axes uses those axes' links only, never every
//! port ("How to Scale Your Model", part 3, "Sharded Matrices": an
//! AllGather over one axis takes V / W_bidi; over several axes the
//! bandwidth grows with the number of axes).
//!
//! Costs are in bytes on ONE link one way ([`CommCost::link_bytes`] over
//! the torus's per-link bandwidth gives the time). Per axis of c members:
//!
//! - with wraparound the ring runs both ways, half the data each way: the
//!   axis moves 2 links' worth per step; along a line (no wraparound) the
//!   far ends are c - 1 hops apart and the axis moves 1 link's worth (the
//!   scaling book: "it typically doubles the time of most communication");
//! - members d links apart (the group interleaves with d - 1 others on the
//!   same links) get 1/d of that.
//!
//! So an axis carries `links = (2 or 1) / d` links' worth. Then, for a
//! buffer of M bytes:
//!
//! - all-gather and reduce-scatter over axes c_1..c_a: the buffer is cut
//!   into a parts and part p runs axis by axis starting at axis p (so
//!   every axis works at once); an axis carries, over the parts, the
//!   bytes sum_p (c_x - 1)/c_x (M/a) / (product of the c after x in p's
//!   order), and the slowest axis sets the time. With one axis of c that
//!   is (c - 1)/c M / links; with equal axes it is (n - 1)/n M / (a links),
//!   the scaling book's V / (W_bidi n_axes). Hops: a ring of c with
//!   wraparound reaches everyone in ceil(c/2) hops each way, a line in
//!   c - 1; the axes run one after another for each part.
//! - all-reduce = reduce-scatter then all-gather: twice the bytes and hops.
//! - all-to-all, dimension-ordered: along axis x every row of c devices
//!   carries M floor(c^2/4)/c per link one way with wraparound (the
//!   average distance c/4 over 2c directed links; the scaling book's
//!   V / (4 W_bidi) for one ring), twice that along a line; the axes run at
//!   once and the slowest sets the time; hops are the longest route.
//! - point-to-point: one link, the whole message (one hop).
//!
//! A group whose members do not fall on whole axes of the slice (a stride
//! that is not a product of axis lengths) runs as a one-way ring over one
//! link per device ([`super::flat_on`] on the link): the slowest case.

use super::{CommCost, Op, flat_on, handoff};
use crate::solver::types::{Assumptions, Collective, Slice};

/// One axis of a group: `ranks` members `spacing` links apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    pub ranks: u32,
    pub spacing: u32,
    /// The members close a ring through the wraparound links.
    pub wrap: bool,
}

impl Axis {
    const NONE: Axis = Axis {
        ranks: 1,
        spacing: 1,
        wrap: false,
    };

    /// Links' worth of one-way bandwidth the axis moves per member.
    pub fn links(&self) -> f64 {
        (if self.wrap { 2.0 } else { 1.0 }) / self.spacing.max(1) as f64
    }

    /// Link hops from a member to the farthest one along the axis.
    pub fn hops(&self) -> f64 {
        let c = self.ranks as f64;
        let members = if self.wrap { (c / 2.0).ceil() } else { c - 1.0 };
        members * self.spacing.max(1) as f64
    }
}

/// Where a group sits on a slice: on whole axes, or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The axes x, y, z (ranks 1 where the group does not extend).
    Axes([Axis; 3]),
    /// Members that do not fall on whole axes.
    Irregular(u32),
}

impl Placement {
    /// The axes the group extends along.
    fn used(&self) -> impl Iterator<Item = Axis> + '_ {
        let axes = match self {
            Placement::Axes(a) => &a[..],
            Placement::Irregular(_) => &[][..],
        };
        axes.iter().copied().filter(|a| a.ranks > 1)
    }

    /// "4 ring x 4 ring x 4 ring", "16 ring x 2 line", "8 ring/2" (members
    /// 2 links apart), or "8 off-axis".
    pub fn describe(&self) -> String {
        match self {
            Placement::Irregular(n) => format!("{n} off-axis"),
            Placement::Axes(_) => {
                let parts: Vec<String> = self
                    .used()
                    .map(|a| {
                        let kind = if a.wrap { "ring" } else { "line" };
                        match a.spacing {
                            1 => format!("{} {kind}", a.ranks),
                            d => format!("{} {kind}/{d}", a.ranks),
                        }
                    })
                    .collect();
                if parts.is_empty() {
                    "1".into()
                } else {
                    parts.join(" x ")
                }
            }
        }
    }
}

/// Lay `ranks` members `stride` devices apart (device d at coordinates
/// x = d mod X, y = d / X mod Y, z = d / XY) on `slice`.
pub fn place(slice: &Slice, ranks: u32, stride: u32) -> Placement {
    let (r, s) = (ranks.max(1) as u64, stride.max(1) as u64);
    let irregular = Placement::Irregular(ranks.max(1));
    let mut axes = [Axis::NONE; 3];
    let mut unit = 1u64;
    let mut product = 1u64;
    for (i, axis) in axes.iter_mut().enumerate() {
        let k = slice.dims[i].max(1) as u64;
        let next = unit * k;
        let (c, d) = if s >= next {
            // The stride steps over this axis whole: every member sits at
            // the same coordinate if it is a multiple of the axis.
            if !s.is_multiple_of(next) {
                return irregular;
            }
            (1, 1)
        } else if s >= unit {
            if !s.is_multiple_of(unit) || !k.is_multiple_of(s / unit) {
                return irregular;
            }
            let d = s / unit;
            (r.min(k / d), d)
        } else {
            if !unit.is_multiple_of(s) {
                return irregular;
            }
            let per = unit / s;
            if r <= per {
                (1, 1)
            } else if !r.is_multiple_of(per) {
                return irregular;
            } else {
                ((r / per).min(k), 1)
            }
        };
        *axis = Axis {
            ranks: c as u32,
            spacing: d as u32,
            wrap: c > 1 && slice.wraps[i] && c * d == k,
        };
        product *= c;
        unit = next;
    }
    if product == r {
        Placement::Axes(axes)
    } else {
        irregular
    }
}

/// Bytes on the slowest axis's links and hops of an all-gather (or
/// reduce-scatter) of `bytes` over the used axes, parts rotated.
fn gather(bytes: f64, used: &[Axis]) -> (f64, f64) {
    let a = used.len();
    let part = bytes / a as f64;
    let mut slowest: f64 = 0.0;
    for (x, axis) in used.iter().enumerate() {
        let c = axis.ranks as f64;
        let mut load = 0.0;
        for p in 0..a {
            // Part p runs axes p, p+1, ...: those after x in its order
            // hold a gathered share of 1 / (their product).
            let pos = (x + a - p) % a;
            let after: f64 = (pos + 1..a)
                .map(|j| used[(p + j) % a].ranks as f64)
                .product();
            load += (c - 1.0) / c * part / after;
        }
        slowest = slowest.max(load / axis.links());
    }
    (slowest, used.iter().map(Axis::hops).sum())
}

/// One `op` of `bytes` over a group placed on a torus whose links carry
/// `link_bw` one way each. `link_bytes` is on one link.
pub fn cost(op: Op, bytes: f64, placement: &Placement, link_bw: f64, a: &Assumptions) -> CommCost {
    if op == Op::PointToPoint {
        return handoff(bytes, a);
    }
    if let Placement::Irregular(n) = placement {
        let ring = Assumptions {
            collective: Collective::Ring,
            ..*a
        };
        return flat_on(op, bytes, *n, link_bw, &ring);
    }
    let mut used = [Axis::NONE; 3];
    let mut n = 0;
    for axis in placement.used() {
        used[n] = axis;
        n += 1;
    }
    let used = &used[..n];
    if used.is_empty() {
        return CommCost::default();
    }
    let (link_bytes, hops) = match op {
        Op::AllGather | Op::ReduceScatter => gather(bytes, used),
        Op::AllReduce => {
            let (b, h) = gather(bytes, used);
            (2.0 * b, 2.0 * h)
        }
        Op::AllToAll => {
            let load = |x: &Axis| {
                let c = x.ranks as f64;
                bytes * (c * c / 4.0).floor() / c / x.links()
            };
            (
                used.iter().map(load).fold(0.0, f64::max),
                used.iter().map(Axis::hops).sum(),
            )
        }
        Op::PointToPoint => unreachable!("handled above"),
    };
    CommCost {
        fixed_s: a.collective_s + hops * a.link_latency_s,
        link_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::types::{Torus, Wrap};

    fn v5p() -> Torus {
        // The largest v5p slice, 16x16x24, wraparound on whole 4x4x4 cubes.
        Torus {
            dims: [16, 16, 24],
            link_bandwidth: 1e11,
            wrap: Wrap::Cubes(4),
        }
    }

    fn v5e() -> Torus {
        Torus {
            dims: [16, 16, 1],
            link_bandwidth: 5e10,
            wrap: Wrap::FullAxis,
        }
    }

    fn ring(ranks: u32) -> Axis {
        Axis {
            ranks,
            spacing: 1,
            wrap: true,
        }
    }

    #[test]
    fn slices_grow_as_cloud_tpu_shapes_do() {
        // Cloud TPU v5p topologies: 2x2x1 (4), 2x2x2 (8), 2x4x4 (32),
        // 4x4x4 (64), 4x4x8 (128), 8x8x8 (512), 16x16x24 (6144); only whole
        // cubes wrap.
        let t = v5p();
        assert_eq!(t.slice(4).dims, [1, 2, 2]);
        assert_eq!(t.slice(8).dims, [2, 2, 2]);
        assert_eq!(t.slice(64).dims, [4, 4, 4]);
        assert_eq!(t.slice(64).wraps, [true; 3]);
        assert_eq!(t.slice(128).dims, [4, 4, 8]);
        assert_eq!(t.slice(512).dims, [8, 8, 8]);
        assert_eq!(t.slice(6144).dims, [16, 16, 24]);
        assert_eq!(t.slice(6144).wraps, [true; 3]);
        // 32 chips: 2x4x4 is not whole cubes, so no wraparound at all.
        assert_eq!(t.slice(32).dims, [2, 4, 4]);
        assert_eq!(t.slice(32).wraps, [false; 3]);
        // v5e: an axis wraps when it spans the pod's 16.
        let e = v5e();
        assert_eq!(e.slice(128).dims, [8, 16, 1]);
        assert_eq!(e.slice(128).wraps, [false, true, false]);
        assert_eq!(e.slice(256).wraps, [true, true, false]);
        assert_eq!(e.slice(16).wraps, [false; 3]);
        // PaLM's pods: 3072 TPU v4 chips, 12x16x16, whole cubes of 4.
        let v4 = Torus {
            dims: [16, 16, 16],
            link_bandwidth: 45e9,
            wrap: Wrap::Cubes(4),
        };
        assert_eq!(v4.slice(3072).dims, [12, 16, 16]);
        assert_eq!(v4.slice(3072).wraps, [true; 3]);
    }

    #[test]
    fn groups_fall_on_the_axes_their_stride_reaches() {
        let s = v5p().slice(64); // 4x4x4, every axis wraps
        // 8 in a row: all of x, half of y (a line: it does not span y).
        assert_eq!(
            place(&s, 8, 1),
            Placement::Axes([
                ring(4),
                Axis {
                    ranks: 2,
                    spacing: 1,
                    wrap: false
                },
                Axis::NONE
            ])
        );
        // 8 members 8 apart (data parallel over TP 8): y at 0 and 2
        // (spacing 2, spanning y, so it wraps), all of z.
        assert_eq!(
            place(&s, 8, 8),
            Placement::Axes([
                Axis::NONE,
                Axis {
                    ranks: 2,
                    spacing: 2,
                    wrap: true
                },
                ring(4)
            ])
        );
        // The whole slice.
        assert_eq!(
            place(&s, 64, 1),
            Placement::Axes([ring(4), ring(4), ring(4)])
        );
        // A stride of 3 falls on no axis.
        assert_eq!(place(&s, 4, 3), Placement::Irregular(4));
    }

    fn ideal() -> Assumptions {
        Assumptions::ideal()
    }

    #[test]
    fn a_ring_along_one_axis_uses_that_axis_links_only() {
        // All-gather of 1 GB over one wrapped axis of 4 at 100 GB/s a
        // link: each way carries half of the 3/4 GB a member receives,
        // 0.375 GB -> 3.75 ms, the scaling book's V / W_bidi with
        // W_bidi = 200 GB/s (times (c - 1)/c). The device's six ports
        // (600 GB/s) would claim 1.25 ms.
        let p = Placement::Axes([ring(4), Axis::NONE, Axis::NONE]);
        let c = cost(Op::AllGather, 1e9, &p, 1e11, &ideal());
        assert!((c.link_bytes - 0.375e9).abs() < 1.0);
        assert!((c.time(1e11, 1.0) - 3.75e-3).abs() < 1e-12);
        // Along a line of 4 (no wraparound) it takes twice as long.
        let line = Placement::Axes([
            Axis {
                ranks: 4,
                spacing: 1,
                wrap: false,
            },
            Axis::NONE,
            Axis::NONE,
        ]);
        let l = cost(Op::AllGather, 1e9, &line, 1e11, &ideal());
        assert!((l.link_bytes - 0.75e9).abs() < 1.0);
    }

    #[test]
    fn several_axes_add_their_bandwidth() {
        // All-reduce of 1 GB over a 4x4x4 cube (64 chips), all wrapped.
        // Each third of the buffer (1/3 GB) runs the axes in its own order;
        // an axis carries 3/4 of the part at the first position of an
        // order (over the 16 the others later gather: 3/4 x 1/3 / 16), at
        // the second (over 4) and at the third (over 1):
        // 3/4 x 1/3 x (1/16 + 1/4 + 1) = 21/64 GB per axis, half each way
        // = 21/128 GB on a link for the reduce-scatter, twice that for the
        // all-reduce: 21/64 GB = 0.328125 GB -> 3.28125 ms at 100 GB/s.
        // That is (n - 1)/n M x 2 / (3 axes x 2 links): 63/64 / 3 = 21/64.
        let p = Placement::Axes([ring(4), ring(4), ring(4)]);
        let a = Assumptions {
            link_latency_s: 1e-6,
            collective_s: 5e-6,
            ..ideal()
        };
        let c = cost(Op::AllReduce, 1e9, &p, 1e11, &a);
        assert!((c.link_bytes - 21e9 / 64.0).abs() < 1.0);
        // Hops: ceil(4/2) = 2 per axis, 3 axes, twice: 12 us + 5 us launch.
        assert!((c.fixed_s - 17e-6).abs() < 1e-15);
    }

    #[test]
    fn all_to_all_on_a_ring_is_a_quarter_of_the_gather() {
        // One wrapped axis of 8, each member's buffer 1 MB: every link
        // one way carries M floor(64/4)/8 / 2 = 1 MB (the scaling book's
        // V / (4 W_bidi) with V = 8 MB, W_bidi = 2 links).
        let p = Placement::Axes([ring(8), Axis::NONE, Axis::NONE]);
        let c = cost(Op::AllToAll, 1e6, &p, 1e11, &ideal());
        assert!((c.link_bytes - 1e6).abs() < 1e-6);
    }

    #[test]
    fn an_irregular_group_runs_a_one_way_ring_on_one_link() {
        // 4 members: (n - 1)/n x 2 M = 1.5 MB on one link for an all-reduce.
        let c = cost(Op::AllReduce, 1e6, &Placement::Irregular(4), 1e11, &ideal());
        assert!((c.link_bytes - 1.5e6).abs() < 1e-6);
    }

    #[test]
    fn descriptions_name_rings_and_lines() {
        let s = v5p().slice(64);
        assert_eq!(place(&s, 64, 1).describe(), "4 ring x 4 ring x 4 ring");
        assert_eq!(place(&s, 8, 1).describe(), "4 ring x 2 line");
        assert_eq!(place(&s, 8, 8).describe(), "2 ring/2 x 4 ring");
    }
}
