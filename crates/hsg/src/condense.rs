//! Condensation of a state graph into its hyperstate space graph (paper section II-C):
//! member lists of every hyperstate and the critical actions between hyperstates.
//!
//! Hyperstate numbers are the SCC numbers of [`crate::scc`]: a reverse topological
//! order, so every HSG edge goes from a higher number to a lower one and a single pass
//! in increasing order sees every successor before its predecessors.
//!
//! Memory: member lists are a CSR (`8 (H + 1)` bytes of offsets plus one id word per
//! state), built by a counting sort. HSG edges come from one pass over the rows in
//! state order (see [`crate::hsg_edges`]). Time `O(V + E + C log C)` with `C` the
//! critical actions.

use crate::error::HsgError;
use crate::graph::StateGraph;
pub use crate::hsg_edges::HsgEdges;
use crate::ids::{AtomicWord, IdVec, Word};
use crate::parallel::{map_ranges, ranges, threads_for};
use crate::scc::{components_with_counts, Components};
use crate::scc_contract::PassReport;
use crate::state_arrays::Backing;
use crate::two_cycles::PairCounts;
use std::ops::Range;

/// A state graph condensed into hyperstates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condensation {
    /// Hyperstate of every state.
    pub components: Components,
    /// `member_offsets[h]..member_offsets[h + 1]` indexes `members` for hyperstate `h`.
    pub member_offsets: Vec<u64>,
    /// States of each hyperstate, sorted by id within a hyperstate.
    pub members: IdVec,
    /// Critical actions between hyperstates.
    pub edges: HsgEdges,
    /// SSG transitions whose source and target lie in different hyperstates.
    pub critical_actions: u64,
}

impl Condensation {
    /// Number of hyperstates.
    pub fn hyperstate_count(&self) -> u64 {
        self.components.count
    }

    /// Hyperstate of `state`.
    #[inline]
    pub fn hyperstate_of(&self, state: u64) -> u64 {
        self.components.of_state.at(state)
    }

    /// Index range of `h`'s members in [`Condensation::members`].
    #[inline]
    pub fn member_range(&self, h: u64) -> Range<u64> {
        let h = h as usize;
        match (self.member_offsets.get(h), self.member_offsets.get(h + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }

    /// Number of states in hyperstate `h`.
    #[inline]
    pub fn size(&self, h: u64) -> u64 {
        let r = self.member_range(h);
        r.end - r.start
    }

    /// The member states of `h`, in increasing id order.
    pub fn members_of(&self, h: u64) -> Vec<u64> {
        self.members.slice_u64(self.member_range(h))
    }
}

/// Computes hyperstates, member lists and HSG edges of a validated graph, on the heap.
pub fn condense<G: StateGraph + ?Sized>(g: &G) -> Condensation {
    let condensed = condense_counting(g, &Backing::Heap, u64::MAX, Some(u64::MAX));
    crate::state_arrays::on_heap(condensed.map(|c| c.0))
}

/// Computes hyperstates, member lists and HSG edges of a validated graph, with the
/// per-state arrays allocated as `backing` says, and `spare` bytes beyond them for
/// the SCC's dense copy of the rows (see [`crate::scc`]).
pub fn condense_in<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    spare: u64,
) -> Result<Condensation, HsgError> {
    Ok(condense_counting(g, backing, spare, None)?.0)
}

/// [`condense_in`], with what the two-cycle pass counted on the way (see
/// [`crate::two_cycles`]) and what became of the one-way list. With a `list_room` (bytes), the pass records the one-way
/// transitions within it and the HSG's edges come from them, without a pass over the
/// rows (see [`crate::one_way`]); the list is freed before the member lists are built.
pub(crate) fn condense_counting<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    spare: u64,
    list_room: Option<u64>,
) -> Result<(Condensation, PairCounts, PassReport), HsgError> {
    let (components, counts, list, mut report) =
        components_with_counts(g, backing, spare, list_room)?;
    let (edges, critical_actions) = match list {
        Some(list) => crate::hsg_edges::hsg_edges_from_list(&list, &components),
        None => crate::hsg_edges::hsg_edges(g, &components),
    };
    report.times.done("HSG edges");
    let (member_offsets, members) = member_lists(&components, backing)?;
    report.times.done("member lists");
    let condensation = Condensation {
        components,
        member_offsets,
        members,
        edges,
        critical_actions,
    };
    Ok((condensation, counts, report))
}

/// Counting sort of states by hyperstate; ids come out sorted within each hyperstate.
/// On every core while the hyperstates are few beside the states: each thread counts
/// the hyperstates of a range of states, and places its range's members after those of
/// the ranges before it, so the lists are the same whatever the thread count.
pub(crate) fn member_lists(
    c: &Components,
    backing: &Backing,
) -> Result<(Vec<u64>, IdVec), HsgError> {
    let n = c.of_state.len() as u64;
    // A histogram of every hyperstate a thread: worth it only while they are small.
    let threads = match c.count.saturating_mul(64) <= n {
        true => threads_for(n),
        false => 1,
    };
    member_lists_on(c, backing, threads)
}

/// [`member_lists`] on `threads` threads.
pub(crate) fn member_lists_on(
    c: &Components,
    backing: &Backing,
    threads: usize,
) -> Result<(Vec<u64>, IdVec), HsgError> {
    let n = c.of_state.len() as u64;
    let count = c.count as usize;
    let mut cursors = map_ranges(n, threads, |states| {
        let mut histogram = vec![0u64; count];
        for s in states {
            histogram[c.of_state.at(s) as usize] += 1;
        }
        histogram
    });
    // Each range's count becomes its cursor: where its first member of `h` goes.
    let mut offsets = vec![0u64; count + 1];
    let mut placed = 0u64;
    for h in 0..count {
        offsets[h] = placed;
        for cursor in cursors.iter_mut() {
            let k = cursor[h];
            cursor[h] = placed;
            placed += k;
        }
    }
    offsets[count] = placed;
    let mut members = IdVec::zeros_in(n as usize, n.saturating_sub(1), backing)?;
    match &mut members {
        IdVec::U32(words) => place_members(c, u32::atomic(words), &cursors),
        IdVec::U64(words) => place_members(c, u64::atomic(words), &cursors),
    }
    Ok((offsets, members))
}

/// Writes every state into `members` at its range's cursor for its hyperstate (one
/// range a cursor table, as [`member_lists`] cut them).
fn place_members<A: AtomicWord>(c: &Components, members: &[A], cursors: &[Vec<u64>]) {
    let n = c.of_state.len() as u64;
    let cut = ranges(n, cursors.len());
    map_ranges(n, cursors.len(), |states| {
        let Some(k) = cut.iter().position(|r| *r == states) else {
            return;
        };
        let mut cursor = cursors[k].clone();
        for s in states {
            let slot = &mut cursor[c.of_state.at(s) as usize];
            members[*slot as usize].put(s);
            *slot += 1;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemGraph;

    /// The SSG of the paper's Fig. 3a, 0-based (g1 = 0, ..., g11 = 10) as we read it.
    fn two_rings_and_a_chain() -> MemGraph {
        let edges = [
            (0, 0, 1),
            (1, 1, 0),
            (1, 2, 2),
            (1, 2, 2),
            (1, 3, 2),
            (2, 0, 3),
            (3, 0, 4),
            (4, 0, 3),
            (2, 1, 0),
        ];
        MemGraph::new(5, &edges, &[]).unwrap()
    }

    #[test]
    fn members_are_sorted_and_cover_every_state() {
        let c = condense(&two_rings_and_a_chain());
        assert_eq!(c.hyperstate_count(), 2);
        let top = c.hyperstate_of(0);
        assert_eq!(c.members_of(top), vec![0, 1, 2]);
        assert_eq!(c.members_of(c.hyperstate_of(3)), vec![3, 4]);
        assert_eq!(c.size(top), 3);
    }

    #[test]
    fn parallel_critical_actions_become_one_labelled_edge_with_multiplicity() {
        let edges = [(0, 2, 1), (0, 2, 1), (0, 3, 1), (0, 1, 2), (1, 0, 1)];
        let g = MemGraph::new(3, &edges, &[]).unwrap();
        let c = condense(&g);
        assert_eq!(c.hyperstate_count(), 3);
        assert_eq!(c.critical_actions, 4);
        let root = c.hyperstate_of(0);
        let row: Vec<_> = c
            .edges
            .row(root)
            .map(|i| {
                (
                    c.edges.targets.at(i),
                    c.edges.actions[i as usize],
                    c.edges.multiplicity[i as usize],
                )
            })
            .collect();
        let (h1, h2) = (c.hyperstate_of(1), c.hyperstate_of(2));
        let mut expected = vec![(h1, 2, 2), (h1, 3, 1), (h2, 1, 1)];
        expected.sort();
        assert_eq!(row, expected);
        assert_eq!(c.edges.pair_count, 2);
        assert_eq!(c.edges.successor_count(root), 2);
        assert!(c.edges.is_leaf(h1));
    }

    #[test]
    fn self_loops_and_internal_actions_are_not_critical() {
        let g = two_rings_and_a_chain();
        let c = condense(&g);
        assert_eq!(c.critical_actions, 1);
        assert_eq!(c.edges.len(), 1);
    }
}
