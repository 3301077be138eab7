//! The HSG's labelled edges ([`HsgEdges`]), gathered in one pass over the rows in state order.
//!
//! Every transition whose ends lie in different hyperstates is a critical action; the
//! HSG keeps one labelled edge per distinct `(source, target, action)` with the number
//! of transitions it stands for. The rows are read in state order, front to back,
//! because a store larger than the page cache can only be read that way: visiting
//! each hyperstate's members in turn (as this module once did) jumps across the whole
//! edge file for every large hyperstate, and on room5 (20 GB of edges, 24 GB of RAM)
//! it read 1.1 TB from disk without finishing.
//!
//! The critical actions go to an accumulator that sorts and merges its duplicates
//! whenever it fills, and doubles its room only when merging frees less than half of
//! it: its memory follows the number of distinct labelled edges (which the result
//! holds anyway), not the number of critical actions. Time `O(E + C log B)` with `C`
//! the critical actions and `B` the accumulator's room.

use crate::graph::{ActionId, StateGraph};
use crate::ids::{IdVec, Word};
use crate::one_way::{for_each_fetched, OneWay, OneWayList, OneWays};
use crate::scc::Components;
use std::ops::Range;

/// Labelled HSG edges in CSR form: row `h` lists `(target, action, multiplicity)` for
/// every distinct critical action label from `h` to another hyperstate, sorted by
/// target then action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HsgEdges {
    /// `offsets[h]..offsets[h + 1]` is row `h`; `count + 1` entries.
    pub offsets: Vec<u64>,
    /// Target hyperstate of each labelled edge.
    pub targets: IdVec,
    /// Action label of each labelled edge.
    pub actions: Vec<ActionId>,
    /// Number of SSG transitions (critical actions) the labelled edge stands for.
    pub multiplicity: Vec<u64>,
    /// Number of distinct `(source, target)` hyperstate pairs.
    pub pair_count: u64,
}

impl HsgEdges {
    /// The labelled edges of hyperstate `h`.
    #[inline]
    pub fn row(&self, h: u64) -> Range<u64> {
        let h = h as usize;
        match (self.offsets.get(h), self.offsets.get(h + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }

    /// Number of labelled edges.
    pub fn len(&self) -> u64 {
        self.actions.len() as u64
    }

    /// True when the HSG has no edge.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// True when `h` has no outgoing critical action (a leaf hyperstate).
    #[inline]
    pub fn is_leaf(&self, h: u64) -> bool {
        self.row(h).is_empty()
    }

    /// Calls `f` once for every distinct successor of `h`, in increasing order.
    #[inline]
    pub fn for_each_successor(&self, h: u64, mut f: impl FnMut(u64)) {
        let mut previous = None;
        for i in self.row(h) {
            let t = self.targets.at(i);
            if previous != Some(t) {
                f(t);
                previous = Some(t);
            }
        }
    }

    /// Number of distinct successors of `h`.
    pub fn successor_count(&self, h: u64) -> u64 {
        let mut n = 0;
        self.for_each_successor(h, |_| n += 1);
        n
    }
}

/// Room of a fresh accumulator, in labelled edges (32 MiB).
const FIRST_ROOM: usize = 1 << 20;

/// One labelled edge being counted: source, target, action, multiplicity.
pub(crate) type Counted = (u64, u64, ActionId, u64);

/// Critical actions, kept sorted-and-merged in bulk.
struct Accumulator {
    edges: Vec<Counted>,
    room: usize,
}

impl Accumulator {
    fn new() -> Accumulator {
        Accumulator {
            edges: Vec::with_capacity(FIRST_ROOM),
            room: FIRST_ROOM,
        }
    }

    #[inline]
    fn push(&mut self, source: u64, target: u64, action: ActionId) {
        if self.edges.len() == self.room {
            self.merge();
            if self.edges.len() > self.room / 2 {
                self.room *= 2;
            }
        }
        self.edges.push((source, target, action, 1));
    }

    /// Sorts by `(source, target, action)` and folds equal edges into one, adding
    /// their multiplicities.
    fn merge(&mut self) {
        self.edges.sort_unstable_by_key(|&(s, t, a, _)| (s, t, a));
        let mut kept = 0;
        for i in 0..self.edges.len() {
            let e = self.edges[i];
            if kept > 0 {
                let last = &mut self.edges[kept - 1];
                if (last.0, last.1, last.2) == (e.0, e.1, e.2) {
                    last.3 += e.3;
                    continue;
                }
            }
            self.edges[kept] = e;
            kept += 1;
        }
        self.edges.truncate(kept);
    }

    fn finish(mut self) -> Vec<Counted> {
        self.merge();
        self.edges
    }
}

/// The labelled HSG edges of `g` under the components `c`, and the number of critical
/// actions (transitions between hyperstates), on every core.
pub(crate) fn hsg_edges<G: StateGraph + ?Sized>(g: &G, c: &Components) -> (HsgEdges, u64) {
    hsg_edges_on(g, c, crate::parallel::threads_for(g.edge_count()))
}

/// [`hsg_edges`] on `threads` threads: each gathers a range of sources into its own
/// accumulator, and the accumulators are merged once more at the end. The merged edges
/// are sorted and their duplicates folded, so they are the same whatever the ranges.
pub(crate) fn hsg_edges_on<G: StateGraph + ?Sized>(
    g: &G,
    c: &Components,
    threads: usize,
) -> (HsgEdges, u64) {
    let parts = crate::parallel::map_ranges(g.state_count(), threads, |sources| {
        let mut acc = Accumulator::new();
        let critical = gather(g, c, sources, &mut acc);
        (acc.finish(), critical)
    });
    merge_parts(parts, c.count)
}

/// The same edges as [`hsg_edges`], from the one-way transitions the two-cycle pass
/// recorded (every critical action is one, see [`crate::one_way`]): one thread a part
/// of the list, without reading the rows.
pub(crate) fn hsg_edges_from_list(list: &OneWays, c: &Components) -> (HsgEdges, u64) {
    match list {
        OneWays::Narrow(list) => from_list(list, c),
        OneWays::Wide(list) => from_list(list, c),
    }
}

fn from_list<W: Word>(list: &OneWayList<W>, c: &Components) -> (HsgEdges, u64) {
    let parts = list.map_parts(|edges| {
        let mut acc = Accumulator::new();
        let mut critical = 0u64;
        let fetch = |e: &OneWay<W>| {
            c.of_state.prefetch(e.source.to_u64());
            c.of_state.prefetch(e.target.to_u64());
        };
        for_each_fetched(edges, fetch, |e| {
            let (h, th) = (
                c.of_state.at(e.source.to_u64()),
                c.of_state.at(e.target.to_u64()),
            );
            if h != th {
                critical += 1;
                acc.push(h, th, e.action);
            }
        });
        (acc.finish(), critical)
    });
    merge_parts(parts, c.count)
}

/// The edges of every part's accumulator, merged once more (sorted, duplicates folded:
/// the same whatever the parts), in CSR form over `count` hyperstates, and the critical
/// actions counted.
fn merge_parts(parts: Vec<(Vec<Counted>, u64)>, count: u64) -> (HsgEdges, u64) {
    let mut critical = 0u64;
    let mut all = Accumulator {
        edges: Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum()),
        room: usize::MAX,
    };
    for (edges, k) in parts {
        all.edges.extend(edges);
        critical += k;
    }
    (csr(all.finish(), count), critical)
}

/// Pushes the critical actions of `sources` into `acc` and returns how many there were.
fn gather<G: StateGraph + ?Sized>(
    g: &G,
    c: &Components,
    sources: Range<u64>,
    acc: &mut Accumulator,
) -> u64 {
    let mut critical = 0u64;
    let mut ahead = crate::readahead::Ahead::new(g, sources.end, true);
    for state in sources {
        ahead.at(state);
        let row = g.edge_range(state);
        if row.is_empty() {
            continue;
        }
        let h = c.of_state.at(state);
        for e in row {
            let (action, target) = g.edge(e);
            let th = c.of_state.at(target);
            if th != h {
                critical += 1;
                acc.push(h, th, action);
            }
        }
    }
    critical
}

/// The sorted, merged edges as rows of `count` hyperstates.
pub(crate) fn csr(counted: Vec<Counted>, count: u64) -> HsgEdges {
    let mut offsets = Vec::with_capacity(count as usize + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(counted.len());
    let mut actions = Vec::with_capacity(counted.len());
    let mut multiplicity = Vec::with_capacity(counted.len());
    let mut pair_count = 0;
    let mut previous_pair = None;
    for &(s, t, a, m) in &counted {
        // Rows of hyperstates without edges are empty: close every row up to `s`.
        while (offsets.len() as u64) <= s {
            offsets.push(targets.len() as u64);
        }
        if previous_pair != Some((s, t)) {
            pair_count += 1;
            previous_pair = Some((s, t));
        }
        targets.push(t);
        actions.push(a);
        multiplicity.push(m);
    }
    while (offsets.len() as u64) <= count {
        offsets.push(targets.len() as u64);
    }
    let targets = if count <= u64::from(u32::MAX) {
        IdVec::U32(targets.iter().map(|&t| t as u32).collect())
    } else {
        IdVec::U64(targets.into())
    };
    HsgEdges {
        offsets,
        targets,
        actions,
        multiplicity,
        pair_count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_adds_multiplicities_and_keeps_the_order() {
        let mut acc = Accumulator::new();
        for (s, t, a) in [
            (2, 1, 0),
            (1, 0, 3),
            (2, 1, 0),
            (2, 0, 1),
            (1, 0, 3),
            (2, 1, 0),
        ] {
            acc.push(s, t, a);
        }
        assert_eq!(acc.finish(), vec![(1, 0, 3, 2), (2, 0, 1, 1), (2, 1, 0, 3)]);
    }

    #[test]
    fn a_full_accumulator_merges_then_grows_only_when_merging_frees_little() {
        let mut acc = Accumulator::new();
        // Repeats of one edge merge into one entry: the room never grows.
        for _ in 0..3 * FIRST_ROOM {
            acc.push(7, 3, 1);
        }
        assert_eq!(acc.room, FIRST_ROOM);
        // Distinct edges cannot merge: the room doubles.
        for s in 0..FIRST_ROOM as u64 {
            acc.push(s, 0, 0);
        }
        assert!(acc.room > FIRST_ROOM);
        let edges = acc.finish();
        assert_eq!(edges.len(), FIRST_ROOM + 1);
        assert_eq!(
            edges.iter().map(|e| e.3).sum::<u64>(),
            4 * FIRST_ROOM as u64
        );
    }

    /// A graph that records which rows are read, in order.
    struct Recording {
        inner: crate::mem::MemGraph,
        rows_read: std::sync::Mutex<Vec<u64>>,
    }

    impl StateGraph for Recording {
        fn state_count(&self) -> u64 {
            self.inner.state_count()
        }
        fn expanded_count(&self) -> u64 {
            self.inner.expanded_count()
        }
        fn edge_count(&self) -> u64 {
            self.inner.edge_count()
        }
        fn edge_range(&self, state: u64) -> std::ops::Range<u64> {
            self.rows_read.lock().unwrap().push(state);
            self.inner.edge_range(state)
        }
        fn edge(&self, index: u64) -> (ActionId, u64) {
            self.inner.edge(index)
        }
        fn outcome(&self, state: u64) -> Option<crate::graph::OutcomeId> {
            self.inner.outcome(state)
        }
        fn for_each_terminal(&self, f: &mut dyn FnMut(u64, crate::graph::OutcomeId)) {
            self.inner.for_each_terminal(f)
        }
    }

    #[test]
    fn rows_are_read_once_each_in_state_order() {
        // Regression: the edges were gathered hyperstate by hyperstate, reading the
        // members' rows out of order; on a store beyond the page cache (room5) every
        // large hyperstate swept the whole edge file again.
        // Two interleaved rings {0, 2, 4} and {1, 3, 5}, and 4 -> 1 between them.
        let edges = [
            (0, 0, 2),
            (2, 0, 4),
            (4, 0, 0),
            (1, 0, 3),
            (3, 0, 5),
            (5, 0, 1),
            (4, 1, 1),
        ];
        let g = Recording {
            inner: crate::mem::MemGraph::new(6, &edges, &[]).unwrap(),
            rows_read: Default::default(),
        };
        let c = crate::scc::strongly_connected_components(&g.inner);
        let (hsg, critical) = hsg_edges_on(&g, &c, 1);
        assert_eq!(*g.rows_read.lock().unwrap(), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(critical, 1);
        assert_eq!(hsg.multiplicity, vec![1]);
    }

    #[test]
    fn rows_are_closed_for_hyperstates_without_edges() {
        let edges = csr(vec![(1, 0, 2, 5), (3, 0, 1, 1), (3, 2, 1, 1)], 5);
        assert_eq!(edges.offsets, vec![0, 0, 1, 1, 3, 3]);
        assert_eq!(edges.pair_count, 3);
        assert_eq!(edges.multiplicity, vec![5, 1, 1]);
    }
}
