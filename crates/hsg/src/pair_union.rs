//! What both two-cycle passes share ([`crate::two_cycles`] by sources and
//! [`crate::two_cycles_layered`] by layers): the counts by action of the transitions
//! they see, and the union-find in atomic words that merges the pairs.
//!
//! A root is linked below the smaller root by a compare-and-swap from "root", so parents
//! point to smaller ids and no cycle can form; a find halves its path by storing a
//! grandparent, which is always an ancestor whatever other threads do.

use crate::ids::AtomicWord;

/// Counts by action of the transitions the two-cycle pass sees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PairCounts {
    /// Immediately reversible transitions (self-loops included) of each action.
    pub(crate) immediate: Vec<u64>,
    /// Transitions of each action; as long as the largest action seen, plus one.
    pub(crate) total: Vec<u64>,
    /// Self-loop transitions.
    pub(crate) self_loops: u64,
}

impl PairCounts {
    /// Adds `other`'s counts to these.
    pub(crate) fn merge(&mut self, other: PairCounts) {
        for (a, &k) in other.immediate.iter().enumerate() {
            *slot(&mut self.immediate, a) += k;
        }
        for (a, &k) in other.total.iter().enumerate() {
            *slot(&mut self.total, a) += k;
        }
        self.self_loops += other.self_loops;
    }
}

/// The counter of action `a`, the table grown to hold it.
#[inline]
pub(crate) fn slot(table: &mut Vec<u64>, a: usize) -> &mut u64 {
    if table.len() <= a {
        table.resize(a + 1, 0);
    }
    &mut table[a]
}

/// The root of `x`, halving the path on the way (each parent is stored as its distance
/// below its child, 0 at a root).
#[inline]
fn find<A: AtomicWord>(up: &[A], mut x: u64) -> u64 {
    loop {
        let d = up[x as usize].get();
        if d == 0 {
            return x;
        }
        let parent = x - d;
        let d2 = up[parent as usize].get();
        if d2 == 0 {
            return parent;
        }
        let grandparent = parent - d2;
        up[x as usize].put(x - grandparent);
        x = grandparent;
    }
}

/// Merges the classes of `a` and `b`; the smaller root stays the root.
#[inline]
pub(crate) fn union<A: AtomicWord>(up: &[A], a: u64, b: u64) {
    loop {
        let (ra, rb) = (find(up, a), find(up, b));
        if ra == rb {
            return;
        }
        let (low, high) = (ra.min(rb), ra.max(rb));
        // Another thread may have linked `high` since it was found a root: then find again.
        if up[high as usize].replace(0, high - low) {
            return;
        }
    }
}
