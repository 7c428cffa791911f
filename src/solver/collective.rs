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
}
