//! [`OutEdges`]: the out-edges of a run read in place from their packed
//! frames, with constant-time access to a state's row and to any edge.

use crate::packed::{Packed, FRAME};
use crate::{Edge, StateId};
use std::ops::Range;

/// The out-edges of a run: rows by state, edges by their position (edges are
/// numbered in source order, so a state's row is a range of positions).
#[derive(Clone, Copy)]
pub struct OutEdges<'a> {
    pub(crate) rows: Packed<'a>,
    pub(crate) edges: Packed<'a>,
    pub(crate) action_bits: u32,
}

impl OutEdges<'_> {
    /// States with a row (the expanded ones).
    pub fn rows(&self) -> u64 {
        self.rows.len()
    }

    /// Number of edges.
    pub fn len(&self) -> u64 {
        self.edges.len()
    }

    /// True when there is no edge.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The positions of `state`'s edges; empty for a state never expanded.
    #[inline]
    pub fn row(&self, state: StateId) -> Range<u64> {
        if state >= self.rows.len() {
            return 0..0;
        }
        let frame = (state / FRAME as u64) as usize;
        let k = (state % FRAME as u64) as usize;
        let (start, end) = if frame < self.rows.frames() {
            // Row ends of one frame share its entry; the first row of a frame
            // starts at the frame's base, the end of the row before it.
            let entry = self.rows.entry(frame);
            let end = crate::packed::value(entry, self.rows.bits, k);
            let start = match k {
                0 => entry[0],
                _ => crate::packed::value(entry, self.rows.bits, k - 1),
            };
            (start, end)
        } else {
            let start = if state == 0 {
                0
            } else {
                self.rows.get(state - 1)
            };
            (start, self.rows.get(state))
        };
        if start <= end {
            start..end
        } else {
            0..0
        }
    }

    /// The edge at position `index`.
    #[inline]
    pub fn edge(&self, index: u64) -> Edge {
        let word = self.edges.get(index);
        Edge {
            action: (word & ((1u64 << self.action_bits) - 1)) as u16,
            target: word >> self.action_bits,
        }
    }

    /// Calls `f(position, edge)` for every edge of `range`, in order: faster
    /// than [`OutEdges::edge`] one by one, since it decodes frame by frame.
    pub fn for_each(&self, range: Range<u64>, mut f: impl FnMut(u64, Edge)) {
        let bits = self.action_bits;
        let mask = (1u64 << bits) - 1;
        self.edges.for_each(range, |i, word| {
            f(
                i,
                Edge {
                    action: (word & mask) as u16,
                    target: word >> bits,
                },
            )
        });
    }

    /// A hint that `state`'s row will be read soon.
    #[inline]
    pub fn prefetch_row(&self, state: StateId) {
        self.rows.prefetch(state);
    }

    /// A hint that the edge at position `index` will be read soon.
    #[inline]
    pub fn prefetch_edge(&self, index: u64) {
        self.edges.prefetch(index);
    }
}
