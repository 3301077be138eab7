//! Strongly connected components by Pearce's space-efficient variant of Tarjan's
//! algorithm, made iterative with an explicit stack so that DFS depth is bounded by
//! memory, not by the thread stack.
//!
//! # Algorithm
//! D. J. Pearce, "A space-efficient algorithm for finding strongly connected
//! components", IPL 116(1), 2016 (`PEA_FIND_SCC2`, with the recursion replaced by a
//! stack of `(state, next edge offset)` frames and the `root` flags kept in a bitset).
//! One array `rindex` first holds DFS indices and, once a component completes, its
//! component number; Pearce shows the two ranges never collide.
//!
//! # Numbering
//! Components are numbered `0..count` in the order the DFS completes them. The DFS
//! starts at state 0, then at each unvisited state in increasing id order, and scans
//! out-edges in row order, so the numbering is deterministic. It is a reverse
//! topological order: every edge between two components goes from a higher number to a
//! lower one (component 0 is a sink).
//!
//! # Complexity
//! Time `O(V + E)`: every row is scanned once. Memory, with `w` = 4 bytes while
//! `V < 2^32` and 8 bytes otherwise: `rindex` (`w` per state), one shared arena of `w`
//! per state holding both the call stack (from the bottom) and Pearce's component stack
//! (from the top; a state is on at most one of them, so they never overlap), the
//! call-stack edge offsets (4 bytes per state) and the root bitset (1/8 byte per
//! state): 12.125 bytes per state for 32-bit ids and 20.125 for 64-bit ids, allocated
//! once (zeroed pages are only touched as the DFS reaches them). The output reuses
//! `rindex`. When the caller gives `spare` bytes beyond that and every row is short,
//! the rows are first copied densely (4 bytes per place, see [`crate::scc_rows`]),
//! which roughly halves the cache misses a state costs; the result is the same.

use crate::error::HsgError;
use crate::graph::StateGraph;
use crate::one_way::OneWays;
use crate::scc_contract::PassReport;
use crate::scc_rows::{Dense, InPlace};
use crate::scc_search::components_over;
pub use crate::scc_search::{bytes_per_state, Components};
use crate::state_arrays::Backing;
use crate::two_cycles::PairCounts;

/// Computes the strongly connected components of a validated graph, on the heap
/// (with a dense copy of the rows where they allow one).
pub fn strongly_connected_components<G: StateGraph + ?Sized>(g: &G) -> Components {
    crate::state_arrays::on_heap(strongly_connected_components_in(
        g,
        &Backing::Heap,
        u64::MAX,
    ))
}

/// Computes the strongly connected components of a validated graph, with the search's
/// arrays allocated as `backing` says (scratch files when the budget is short): through
/// its two-cycle classes when they are few enough ([`crate::scc_contract`]), else over
/// its own rows, with a dense copy of them when it takes at most `spare` bytes.
pub fn strongly_connected_components_in<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    spare: u64,
) -> Result<Components, HsgError> {
    Ok(components_with_counts(g, backing, spare, None)?.0)
}

/// [`strongly_connected_components_in`], with what the two-cycle pass counted on the way
/// (see [`crate::two_cycles`]) and, when `list_room` allows, the one-way transitions it
/// recorded (see [`crate::one_way`]).
pub(crate) fn components_with_counts<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    spare: u64,
    list_room: Option<u64>,
) -> Result<(Components, PairCounts, Option<OneWays>, PassReport), HsgError> {
    // Most games' moves come in reversible pairs: merging those first leaves a graph
    // of classes small enough to search in RAM (see `crate::scc_contract`).
    let (components, counts, list, mut report) =
        crate::scc_contract::components_and_counts(g, backing, true, list_room)?;
    match components {
        Some(components) => Ok((components, counts, list, report)),
        None => {
            let components = direct_components_in(g, backing, spare)?;
            report.times.done("search over the states");
            Ok((components, counts, None, report))
        }
    }
}

/// The search over the graph's own rows, without merging two-cycles first (what
/// [`strongly_connected_components_in`] falls back to when they are few; public for the
/// benchmarks' comparison). The partition is the same; the numbering is this search's.
pub fn direct_components_in<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    spare: u64,
) -> Result<Components, HsgError> {
    let width = Dense::width_for(g, spare);
    match width {
        Some(width) => components_over(&Dense::copy(g, width, backing)?, g.state_count(), backing),
        None => components_over(&InPlace(g), g.state_count(), backing),
    }
}

#[cfg(test)]
#[path = "scc_tests.rs"]
pub(crate) mod tests;
