//! Collectives: what an all-reduce or a pipeline hand-off costs, as a fixed
//! part (a launch-and-barrier cost plus alpha per hop, which no bandwidth
//! buys down) and the bytes each link carries (over the effective link
//! bandwidth). NCCL's small-message regime is the fixed part; its
//! large-message regime is the bytes.
//!
//! Ring all-reduce of M bytes over t ranks (Patarasuk and Yuan, 2009):
//! 2 (t - 1) hops, each link carries 2 (t - 1)/t M. Tree all-reduce (a
//! reduction up a binary tree and a broadcast down it; Thakur, Rabenseifner
//! and Gropp, 2005): 2 ceil(log2 t) hops, each link carries 2 M. The ring is
//! bandwidth-optimal; the tree wins on small messages, which is why NCCL's
//! tuner picks it there ([`Collective::Auto`] takes the faster).

use super::types::{Assumptions, Collective};

pub mod torus;

/// What joins the devices of a node: a switch (every port reaches any
/// peer: NVLink/NVSwitch, Infinity Fabric) or a torus on which the
/// group's inside part sits ([`torus::place`]); the scale-up bandwidth
/// given to [`hierarchical`] is then one torus link's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inside {
    Switch,
    Torus(torus::Placement),
}

/// The cost of some collectives: fixed seconds and bytes per link.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CommCost {
    /// Launch, barrier and hop latencies, seconds.
    pub fixed_s: f64,
    /// Bytes each link carries.
    pub link_bytes: f64,
}

impl CommCost {
    /// Seconds on a link of `bandwidth` byte/s at efficiency `eta`.
    pub fn time(&self, bandwidth: f64, eta: f64) -> f64 {
        self.fixed_s + self.transfer(bandwidth, eta)
    }

    /// The bandwidth part alone.
    pub fn transfer(&self, bandwidth: f64, eta: f64) -> f64 {
        if self.link_bytes > 0.0 {
            self.link_bytes / (bandwidth * eta)
        } else {
            0.0
        }
    }

    /// `n` of these.
    pub fn times(self, n: f64) -> CommCost {
        CommCost {
            fixed_s: self.fixed_s * n,
            link_bytes: self.link_bytes * n,
        }
    }

    pub fn plus(self, o: CommCost) -> CommCost {
        CommCost {
            fixed_s: self.fixed_s + o.fixed_s,
            link_bytes: self.link_bytes + o.link_bytes,
        }
    }
}

/// One all-reduce of `bytes` over `ranks` with a fixed algorithm (Auto is
/// read as the ring here; [`allreduce_on`] resolves it on a link).
pub fn allreduce(bytes: f64, ranks: u32, algorithm: Collective, a: &Assumptions) -> CommCost {
    if ranks <= 1 {
        return CommCost::default();
    }
    let t = ranks as f64;
    let (hops, per_link) = match algorithm {
        Collective::Tree => (2.0 * t.log2().ceil(), 2.0 * bytes),
        Collective::Ring | Collective::Auto => (2.0 * (t - 1.0), 2.0 * (t - 1.0) / t * bytes),
    };
    CommCost {
        fixed_s: a.collective_s + hops * a.link_latency_s,
        link_bytes: per_link,
    }
}

/// One all-reduce on a link of `bandwidth` byte/s: the profile's algorithm,
/// or for Auto whichever of ring and tree is faster for this message.
pub fn allreduce_on(bytes: f64, ranks: u32, bandwidth: f64, a: &Assumptions) -> CommCost {
    match a.collective {
        Collective::Auto => {
            let ring = allreduce(bytes, ranks, Collective::Ring, a);
            let tree = allreduce(bytes, ranks, Collective::Tree, a);
            let eta = a.link_efficiency;
            if tree.time(bandwidth, eta) < ring.time(bandwidth, eta) {
                tree
            } else {
                ring
            }
        }
        algorithm => allreduce(bytes, ranks, algorithm, a),
    }
}

/// One point-to-point hand-off of `bytes` (a pipeline stage boundary):
/// one hop.
pub fn handoff(bytes: f64, a: &Assumptions) -> CommCost {
    CommCost {
        fixed_s: a.collective_s + a.link_latency_s,
        link_bytes: bytes,
    }
}

/// A collective operation. Each costs a fixed part (the launch and barrier,
/// plus alpha per hop) and bytes per link, for a buffer of `M` bytes over
/// `n` ranks. `M` is the whole buffer: the reduced vector of an
/// all-reduce, the gathered output of an all-gather, the input of a
/// reduce-scatter, each rank's send buffer of an all-to-all, the message
/// of a point-to-point send. The counts are the standard ones of Thakur,
/// Rabenseifner and Gropp, "Optimization of Collective Communication
/// Operations in MPICH" (IJHPCA 2005), and NCCL's `nccl-tests`
/// PERFORMANCE.md, whose bus-bandwidth factors ([`Op::bus_factor`]) are
/// the same ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Ring: 2 (n - 1) hops, 2 (n - 1)/n M per link. Tree: 2 ceil(log2 n)
    /// hops, 2 M per link.
    AllReduce,
    /// Ring: n - 1 hops, (n - 1)/n M per link. Tree (recursive doubling):
    /// ceil(log2 n) hops, the same (n - 1)/n M.
    AllGather,
    /// The mirror of the all-gather: ring n - 1 hops, recursive halving
    /// ceil(log2 n) hops, (n - 1)/n M per link either way.
    ReduceScatter,
    /// Pairwise exchange: n - 1 hops, each rank sends (n - 1)/n of its M
    /// (the share addressed to the others). No tree form is modelled.
    AllToAll,
    /// One send of M to one peer: one hop, M on the link.
    PointToPoint,
}

impl Op {
    pub const ALL: [Op; 5] = [
        Op::AllReduce,
        Op::AllGather,
        Op::ReduceScatter,
        Op::AllToAll,
        Op::PointToPoint,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::AllReduce => "all-reduce",
            Op::AllGather => "all-gather",
            Op::ReduceScatter => "reduce-scatter",
            Op::AllToAll => "all-to-all",
            Op::PointToPoint => "point-to-point",
        }
    }

    /// Read "all-reduce", "allreduce", "all_gather", "p2p"...
    pub fn parse(s: &str) -> Option<Op> {
        let s: String = s
            .trim()
            .to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        match s.as_str() {
            "p2p" | "sendrecv" => Some(Op::PointToPoint),
            _ => Op::ALL.into_iter().find(|o| o.name().replace('-', "") == s),
        }
    }

    /// Whether a tree form is modelled (all-reduce; recursive doubling and
    /// halving for all-gather and reduce-scatter).
    pub fn has_tree(self) -> bool {
        matches!(self, Op::AllReduce | Op::AllGather | Op::ReduceScatter)
    }

    /// nccl-tests' bus-bandwidth factor: bus bandwidth = M / time x factor,
    /// the bandwidth each link would need at that speed with the ring.
    /// All-reduce 2 (n - 1)/n; all-gather, reduce-scatter and all-to-all
    /// (n - 1)/n; point-to-point 1.
    pub fn bus_factor(self, ranks: u32) -> f64 {
        let n = ranks.max(1) as f64;
        match self {
            Op::AllReduce => 2.0 * (n - 1.0) / n,
            Op::AllGather | Op::ReduceScatter | Op::AllToAll => (n - 1.0) / n,
            Op::PointToPoint => 1.0,
        }
    }
}

/// One `op` of `bytes` over `ranks` on one link with a fixed algorithm
/// (Auto is read as the ring; [`flat_on`] resolves it). An op without a
/// tree form runs its one algorithm whatever is asked.
pub fn cost(op: Op, bytes: f64, ranks: u32, algorithm: Collective, a: &Assumptions) -> CommCost {
    if op == Op::PointToPoint {
        return handoff(bytes, a);
    }
    if ranks <= 1 {
        return CommCost::default();
    }
    if op == Op::AllReduce {
        return allreduce(bytes, ranks, algorithm, a);
    }
    let n = ranks as f64;
    let tree = algorithm == Collective::Tree && op.has_tree();
    let hops = if tree { n.log2().ceil() } else { n - 1.0 };
    CommCost {
        fixed_s: a.collective_s + hops * a.link_latency_s,
        link_bytes: (n - 1.0) / n * bytes,
    }
}

/// The algorithm `cost` runs for `op` when asked for `algorithm` on a link
/// of `bandwidth`: Auto takes the faster of ring and tree; an op without a
/// tree form is always a ring (pairwise exchange, or one send).
pub fn resolve(op: Op, bytes: f64, ranks: u32, bandwidth: f64, a: &Assumptions) -> Collective {
    match a.collective {
        _ if !op.has_tree() => Collective::Ring,
        Collective::Auto => {
            let eta = a.link_efficiency;
            let ring = cost(op, bytes, ranks, Collective::Ring, a).time(bandwidth, eta);
            let tree = cost(op, bytes, ranks, Collective::Tree, a).time(bandwidth, eta);
            if tree < ring {
                Collective::Tree
            } else {
                Collective::Ring
            }
        }
        algorithm => algorithm,
    }
}

/// One `op` on one link of `bandwidth` with the profile's algorithm.
pub fn flat_on(op: Op, bytes: f64, ranks: u32, bandwidth: f64, a: &Assumptions) -> CommCost {
    cost(op, bytes, ranks, resolve(op, bytes, ranks, bandwidth, a), a)
}

/// How a group of ranks sits on the machine: `inside` ranks share each
/// node (joined by the scale-up link) and the group spans `nodes` nodes
/// (joined by the scale-out network).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub inside: u32,
    pub nodes: u32,
}

impl Span {
    /// A group of `ranks` whose members are `stride` devices apart, on
    /// nodes of `per_node` devices: ranks `stride` apart share a node while
    /// stride < per_node, so min(ranks, per_node / stride) of them do.
    pub fn of(ranks: u32, stride: u32, per_node: u32) -> Span {
        let ranks = ranks.max(1);
        let per_node = per_node.max(1);
        let stride = stride.max(1);
        let inside = if stride >= per_node {
            1
        } else {
            ranks.min(per_node / stride).max(1)
        };
        Span {
            inside,
            nodes: ranks.div_ceil(inside),
        }
    }

    pub fn ranks(&self) -> u32 {
        self.inside.saturating_mul(self.nodes)
    }
}

/// The cost of a collective on each level: `up` on the scale-up link,
/// `out` on the scale-out network.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Levels {
    pub up: CommCost,
    pub out: CommCost,
}

impl Levels {
    /// Seconds with `up_bw` inside the node and `out_bw` across nodes.
    pub fn time(&self, up_bw: f64, out_bw: f64, eta: f64) -> f64 {
        let part = |c: &CommCost, bw: f64| {
            if c.fixed_s > 0.0 || c.link_bytes > 0.0 {
                c.time(bw, eta)
            } else {
                0.0
            }
        };
        part(&self.up, up_bw) + part(&self.out, out_bw)
    }

    /// `n` of these.
    pub fn times(self, n: f64) -> Levels {
        Levels {
            up: self.up.times(n),
            out: self.out.times(n),
        }
    }

    pub fn plus(self, o: Levels) -> Levels {
        Levels {
            up: self.up.plus(o.up),
            out: self.out.plus(o.out),
        }
    }
}

/// One `op` of `bytes` over a group laid out as `span`, hierarchically:
/// inside each node on the scale-up link, then across nodes on the
/// scale-out network, each level with the profile's algorithm on its own
/// bandwidth. With k ranks per node and g nodes:
///
/// - all-reduce = reduce-scatter of M over k inside, all-reduce of M/k
///   over g across (every rank of a node carries its own shard on its own
///   NIC), all-gather of M over k inside (the two-level scheme of NCCL's
///   CollNet and of Jia et al. 2018, "Highly Scalable Deep Learning
///   Training System with Mixed-Precision", section 4);
/// - reduce-scatter = reduce-scatter of M over k inside, then of M/k over
///   g across; all-gather the reverse (same bytes);
/// - all-to-all: of each rank's M, the (k - 1)/n addressed to its node
///   crosses the scale-up link in k - 1 hops, the (n - k)/n addressed to
///   other nodes the scale-out network in n - k hops;
/// - point-to-point: one hop on the scale-up link inside a node, else on
///   the scale-out network.
///
/// One level alone is the flat collective. On a torus (`inside`), the
/// inside level runs on the group's axes ([`torus::cost`]) and its bytes
/// are on one link: `up_bw` is then one link's bandwidth.
pub fn hierarchical(
    op: Op,
    bytes: f64,
    span: Span,
    inside: Inside,
    up_bw: f64,
    out_bw: f64,
    a: &Assumptions,
) -> Levels {
    let (k, g) = (span.inside, span.nodes);
    let kf = k.max(1) as f64;
    let up = |op: Op, bytes: f64| match &inside {
        Inside::Switch => flat_on(op, bytes, k, up_bw, a),
        Inside::Torus(p) => torus::cost(op, bytes, p, up_bw, a),
    };
    match op {
        Op::PointToPoint if g > 1 => Levels {
            out: handoff(bytes, a),
            ..Levels::default()
        },
        Op::PointToPoint => Levels {
            up: handoff(bytes, a),
            ..Levels::default()
        },
        _ if g <= 1 => Levels {
            up: up(op, bytes),
            ..Levels::default()
        },
        _ if k <= 1 => Levels {
            out: flat_on(op, bytes, g, out_bw, a),
            ..Levels::default()
        },
        Op::AllReduce => Levels {
            up: up(Op::ReduceScatter, bytes).plus(up(Op::AllGather, bytes)),
            out: flat_on(Op::AllReduce, bytes / kf, g, out_bw, a),
        },
        Op::AllGather | Op::ReduceScatter => Levels {
            up: up(op, bytes),
            out: flat_on(op, bytes / kf, g, out_bw, a),
        },
        Op::AllToAll if matches!(inside, Inside::Torus(_)) => {
            // Inside the slice a dimension-ordered all-to-all over the
            // group's axes of what stays there ((k - 1)/n of M, as a
            // k-member exchange of k/n M); across, the rest as below.
            let n = span.ranks() as f64;
            Levels {
                up: up(Op::AllToAll, bytes * kf / n),
                out: CommCost {
                    fixed_s: a.collective_s + (n - kf) * a.link_latency_s,
                    link_bytes: (n - kf) / n * bytes,
                },
            }
        }
        Op::AllToAll => {
            let n = span.ranks() as f64;
            let part = |peers: f64, share: f64| CommCost {
                fixed_s: a.collective_s + peers * a.link_latency_s,
                link_bytes: share * bytes,
            };
            Levels {
                up: part(kf - 1.0, (kf - 1.0) / n),
                out: part(n - kf, (n - kf) / n),
            }
        }
    }
}

/// What `algorithm` means for `op`, by name: an all-reduce's ring or
/// tree; an all-gather's ring or recursive "doubling", a reduce-scatter's
/// ring or recursive "halving"; an all-to-all is always "pairwise" and a
/// point-to-point send "direct".
pub fn algorithm_name(op: Op, algorithm: Collective) -> &'static str {
    match (op, algorithm) {
        (Op::AllToAll, _) => "pairwise",
        (Op::PointToPoint, _) => "direct",
        (Op::AllGather, Collective::Tree) => "doubling",
        (Op::ReduceScatter, Collective::Tree) => "halving",
        (_, Collective::Tree) => "tree",
        _ => "ring",
    }
}

/// What [`hierarchical`] runs on each level, as (op, bytes, ranks): inside
/// the node first, across nodes second; None for a level it does not use.
/// The all-reduce's inside level is named by its reduce-scatter (its
/// all-gather mirrors it).
pub fn level_ops(op: Op, bytes: f64, span: Span) -> [Option<(Op, f64, u32)>; 2] {
    let (k, g) = (span.inside, span.nodes);
    match op {
        Op::PointToPoint if g > 1 => [None, Some((op, bytes, 2))],
        Op::PointToPoint => [Some((op, bytes, 2)), None],
        _ if g <= 1 => [Some((op, bytes, k)), None],
        _ if k <= 1 => [None, Some((op, bytes, g))],
        Op::AllReduce => [
            Some((Op::ReduceScatter, bytes, k)),
            Some((Op::AllReduce, bytes / k as f64, g)),
        ],
        Op::AllGather | Op::ReduceScatter => {
            [Some((op, bytes, k)), Some((op, bytes / k as f64, g))]
        }
        Op::AllToAll => [Some((op, bytes, k)), Some((op, bytes, g))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a() -> Assumptions {
        Assumptions {
            link_latency_s: 1e-6,
            collective_s: 5e-6,
            link_efficiency: 1.0,
            ..Assumptions::ideal()
        }
    }

    #[test]
    fn a_ring_over_eight_ranks_takes_fourteen_hops_and_carries_seven_quarters() {
        // 2 (8 - 1) = 14 hops of 1 us plus the 5 us launch; 2 * 7/8 * 1 MB.
        let c = allreduce(1e6, 8, Collective::Ring, &a());
        assert!((c.fixed_s - 19e-6).abs() < 1e-15);
        assert!((c.link_bytes - 1.75e6).abs() < 1e-6);
    }

    #[test]
    fn a_tree_over_eight_ranks_takes_six_hops_and_carries_twice_the_message() {
        // 2 ceil(log2 8) = 6 hops; 2 * 1 MB per link.
        let c = allreduce(1e6, 8, Collective::Tree, &a());
        assert!((c.fixed_s - 11e-6).abs() < 1e-15);
        assert!((c.link_bytes - 2e6).abs() < 1e-6);
    }

    #[test]
    fn auto_takes_the_tree_for_small_messages_and_the_ring_for_large_ones() {
        let auto = Assumptions {
            collective: Collective::Auto,
            ..a()
        };
        // At 100 GB/s the ring costs 14 us + 1.75 M/1e11, the tree 6 us +
        // 2 M/1e11: the tree is faster while 0.25 M/1e11 < 8 us, M < 3.2 MB.
        let small = allreduce_on(16e3, 8, 1e11, &auto);
        assert_eq!(small, allreduce(16e3, 8, Collective::Tree, &auto));
        let large = allreduce_on(64e6, 8, 1e11, &auto);
        assert_eq!(large, allreduce(64e6, 8, Collective::Ring, &auto));
    }

    #[test]
    fn one_rank_communicates_nothing() {
        assert_eq!(
            allreduce(1e6, 1, Collective::Ring, &a()),
            CommCost::default()
        );
    }
    #[test]
    fn a_ring_all_reduce_of_one_gigabyte_over_eight_devices() {
        // Ideal links of 100 GB/s: each link carries 2 * 7/8 * 1 GB =
        // 1.75 GB, 1.75e9 / 1e11 = 17.5 ms; bus bandwidth = algorithm
        // bandwidth (1 GB / 17.5 ms) * 2 * 7/8 = the link's 100 GB/s.
        let ideal = Assumptions::ideal();
        let c = cost(Op::AllReduce, 1e9, 8, Collective::Ring, &ideal);
        let t = c.time(1e11, 1.0);
        assert!((t - 17.5e-3).abs() < 1e-12);
        assert!((1e9 / t * Op::AllReduce.bus_factor(8) - 1e11).abs() < 1e-3);
    }

    #[test]
    fn gather_and_scatter_carry_half_an_all_reduce() {
        // Ring over 8: 7 hops of 1 us + 5 us launch = 12 us; 7/8 of 1 MB.
        for op in [Op::AllGather, Op::ReduceScatter] {
            let c = cost(op, 1e6, 8, Collective::Ring, &a());
            assert!((c.fixed_s - 12e-6).abs() < 1e-15, "{op:?}");
            assert!((c.link_bytes - 0.875e6).abs() < 1e-6, "{op:?}");
            // Recursive doubling/halving: log2 8 = 3 hops, the same bytes.
            let t = cost(op, 1e6, 8, Collective::Tree, &a());
            assert!((t.fixed_s - 8e-6).abs() < 1e-15, "{op:?}");
            assert_eq!(t.link_bytes, c.link_bytes);
        }
    }

    #[test]
    fn all_to_all_and_point_to_point_by_hand() {
        // Pairwise all-to-all over 4: 3 hops (8 us), 3/4 of 1 MB leaves each rank.
        let c = cost(Op::AllToAll, 1e6, 4, Collective::Tree, &a());
        assert!((c.fixed_s - 8e-6).abs() < 1e-15);
        assert!((c.link_bytes - 0.75e6).abs() < 1e-6);
        // One send: one hop (6 us), the whole message.
        let p = cost(Op::PointToPoint, 1e6, 2, Collective::Ring, &a());
        assert!((p.fixed_s - 6e-6).abs() < 1e-15);
        assert_eq!(p.link_bytes, 1e6);
    }

    #[test]
    fn a_group_spans_nodes_by_its_stride() {
        // 64 ranks in a row on nodes of 8: 8 inside, 8 nodes.
        assert_eq!(
            Span::of(64, 1, 8),
            Span {
                inside: 8,
                nodes: 8
            }
        );
        // 16 ranks 4 apart (TP 4 inside them): 2 per node, 8 nodes.
        assert_eq!(
            Span::of(16, 4, 8),
            Span {
                inside: 2,
                nodes: 8
            }
        );
        // Ranks a node apart share none.
        assert_eq!(
            Span::of(4, 8, 8),
            Span {
                inside: 1,
                nodes: 4
            }
        );
        assert_eq!(
            Span::of(4, 1, 8),
            Span {
                inside: 4,
                nodes: 1
            }
        );
    }

    #[test]
    fn a_hierarchical_all_reduce_over_two_nodes_of_eight() {
        // 1 GB over 16 = 8 x 2, ideal: inside, a reduce-scatter and an
        // all-gather of 7/8 GB each = 1.75 GB on the scale-up link (at
        // 400 GB/s: 4.375 ms); across, an all-reduce of 1/8 GB over 2 =
        // 2 * 1/2 * 0.125 GB = 0.125 GB on the NIC (at 50 GB/s: 2.5 ms).
        let ideal = Assumptions::ideal();
        let l = hierarchical(
            Op::AllReduce,
            1e9,
            Span::of(16, 1, 8),
            Inside::Switch,
            4e11,
            5e10,
            &ideal,
        );
        assert!((l.up.link_bytes - 1.75e9).abs() < 1.0);
        assert!((l.out.link_bytes - 0.125e9).abs() < 1.0);
        assert!((l.time(4e11, 5e10, 1.0) - 6.875e-3).abs() < 1e-12);
        // Flat over the NIC it would be 2 * 15/16 GB / 50 GB/s = 37.5 ms.
        let flat = cost(Op::AllReduce, 1e9, 16, Collective::Ring, &ideal);
        assert!((flat.time(5e10, 1.0) - 37.5e-3).abs() < 1e-12);
    }

    #[test]
    fn a_hierarchical_all_to_all_sends_off_node_what_is_addressed_off_node() {
        // 16 ranks, 8 per node: of 1 MB, 7/16 stays in the node and 8/16
        // crosses the network.
        let l = hierarchical(
            Op::AllToAll,
            1e6,
            Span::of(16, 1, 8),
            Inside::Switch,
            1.0,
            1.0,
            &a(),
        );
        assert!((l.up.link_bytes - 7e6 / 16.0).abs() < 1e-6);
        assert!((l.out.link_bytes - 0.5e6).abs() < 1e-6);
    }

    #[test]
    fn op_names_round_trip() {
        for op in Op::ALL {
            assert_eq!(Op::parse(op.name()), Some(op));
        }
        assert_eq!(Op::parse("AllReduce"), Some(Op::AllReduce));
        assert_eq!(Op::parse("p2p"), Some(Op::PointToPoint));
        assert_eq!(Op::parse("broadcast"), None);
    }
}
