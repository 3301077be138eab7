//! The rows the SCC's search walks: read in place from the graph, or from a dense
//! copy in which a state's targets sit at a fixed place, so that one prefetch brings
//! them in.
//!
//! In a stored run, finding a state's edges takes two dependent cache misses: its
//! row index (the start of its row) and then the edge bits at that start. The search
//! enters a state right after it meets it, so the second miss cannot be started
//! early, and the two misses of every state follow one another: they are most of the
//! SCC's time on a large run. When no state has more than [`MAX_DENSE_DEGREE`]
//! edges (grid games have 4 to 6) and the memory allows it, the targets are copied
//! once, in one sequential pass, into rows of fixed width: the row of `v` starts at
//! `v * width`, known without a load, and the parent's prefetch of its targets
//! brings in each target's whole row with its `rindex` entry.
//!
//! The copy keeps the edges' order, so the search, its numbering included, is the
//! same over either source.

use crate::error::HsgError;
use crate::graph::{StateGraph, StateId};
use crate::state_arrays::{Backing, Words};
use std::ops::Range;

/// Largest out-degree the dense copy takes; wider rows make it cost more than it
/// saves.
pub const MAX_DENSE_DEGREE: u64 = 8;

/// Marks an unused place in a dense row.
const NO_EDGE: u32 = u32::MAX;

/// What the search reads: rows as position ranges and the target at a position.
pub(crate) trait Rows {
    /// The positions of `v`'s edges.
    fn row(&self, v: u64) -> Range<u64>;
    /// The target of the edge at `position`.
    fn target(&self, position: u64) -> u64;
    /// A hint that `v`'s row will be read soon.
    fn prefetch_row(&self, v: u64);
}

/// The graph's own rows, read in place.
pub(crate) struct InPlace<'g, G: ?Sized>(pub &'g G);

impl<G: StateGraph + ?Sized> Rows for InPlace<'_, G> {
    #[inline]
    fn row(&self, v: u64) -> Range<u64> {
        self.0.edge_range(v)
    }
    #[inline]
    fn target(&self, position: u64) -> u64 {
        self.0.edge(position).1
    }
    #[inline]
    fn prefetch_row(&self, v: StateId) {
        self.0.prefetch_row(v);
    }
}

/// Every state's targets in a row of `width` places (unused places hold [`NO_EDGE`]).
pub(crate) struct Dense {
    width: u64,
    targets: Words<u32>,
}

impl Dense {
    /// The row width of a dense copy of `g` (its widest row, rounded up to a power of
    /// two, so that a row never straddles more cache lines than it must), or None
    /// when it cannot have one: too many states for 32-bit targets, or a row wider
    /// than [`MAX_DENSE_DEGREE`], or a copy larger than `spare` bytes. Reads the
    /// rows' lengths until one rules the copy out, and none when even rows of one
    /// place would not fit (so a graph analysed on scratch files pays nothing).
    pub(crate) fn width_for<G: StateGraph + ?Sized>(g: &G, spare: u64) -> Option<u64> {
        let n = g.state_count();
        if n >= u64::from(NO_EDGE) {
            return None;
        }
        // The widest row the budget allows, whatever the degree cap.
        let affordable = spare / Dense::bytes(n, 1).max(1);
        let cap = MAX_DENSE_DEGREE.min(affordable);
        if cap == 0 {
            return None;
        }
        let mut widest = 0;
        for v in 0..n {
            let row = g.edge_range(v);
            widest = widest.max(row.end - row.start);
            if widest.max(1).next_power_of_two() > cap {
                return None;
            }
        }
        Some(widest.max(1).next_power_of_two())
    }

    /// Bytes of a dense copy of `states` states in rows of `width`.
    pub(crate) fn bytes(states: u64, width: u64) -> u64 {
        states.saturating_mul(width).saturating_mul(4)
    }

    /// The dense copy of `g`'s rows in rows of `width` (from [`Dense::width_for`]),
    /// allocated as `backing` says.
    pub(crate) fn copy<G: StateGraph + ?Sized>(
        g: &G,
        width: u64,
        backing: &Backing,
    ) -> Result<Dense, HsgError> {
        let n = g.state_count();
        let mut targets: Words<u32> = backing.zeroed((n * width) as usize)?;
        for v in 0..n {
            let row = g.edge_range(v);
            let places = &mut targets[(v * width) as usize..((v + 1) * width) as usize];
            let mut k = 0;
            for position in row {
                places[k] = g.edge(position).1 as u32;
                k += 1;
            }
            places[k..].fill(NO_EDGE);
        }
        Ok(Dense { width, targets })
    }
}

impl Rows for Dense {
    #[inline]
    fn row(&self, v: u64) -> Range<u64> {
        let start = v * self.width;
        let places = &self.targets[start as usize..(start + self.width) as usize];
        let len = places.iter().take_while(|&&t| t != NO_EDGE).count() as u64;
        start..start + len
    }
    #[inline]
    fn target(&self, position: u64) -> u64 {
        u64::from(self.targets[position as usize])
    }
    #[inline]
    fn prefetch_row(&self, v: u64) {
        store::prefetch(&self.targets, (v * self.width) as usize);
    }
}
