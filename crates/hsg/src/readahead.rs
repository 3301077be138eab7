//! Reading a stored graph's rows ahead of a pass: a pass over the states in order asks
//! the graph to start reading the rows a window ahead of where it is
//! ([`StateGraph::will_read`]), so that on a store larger than the page cache (room5:
//! 30 GB against 24 GiB of RAM) the disk reads in large requests while the pass
//! computes, instead of the pass waiting for one page fault after another. A hint
//! only: the results do not depend on it, and graphs in memory ignore it.

use crate::graph::StateGraph;

/// States a hint covers: about 3 MB of room5's edges, so that the hints are few and
/// the kernel reads in large requests, and a window ahead stays a small share of the
/// page cache.
const WINDOW: u64 = 1 << 18;

/// The reading ahead of one moving position of a pass (the states it reads rows of).
pub(crate) struct Ahead<'g, G: StateGraph + ?Sized> {
    g: &'g G,
    /// The hints cover `..advised` (from where the position first was).
    advised: u64,
    end: u64,
    edges: bool,
}

impl<'g, G: StateGraph + ?Sized> Ahead<'g, G> {
    /// Reading ahead of positions below `end`, the rows' edges too when `edges`.
    pub(crate) fn new(g: &'g G, end: u64, edges: bool) -> Self {
        Ahead {
            g,
            advised: 0,
            end: end.min(g.expanded_count()),
            edges,
        }
    }

    /// The pass is at `state`: when it comes within a window of the end of the hints,
    /// the next two windows from it are asked for.
    #[inline]
    pub(crate) fn at(&mut self, state: u64) {
        if state + WINDOW >= self.advised && self.advised < self.end {
            self.advance(state);
        }
    }

    #[cold]
    fn advance(&mut self, state: u64) {
        let from = self.advised.max(state);
        let to = (state + 2 * WINDOW).min(self.end);
        if from < to {
            self.g.will_read(from..to, self.edges);
        }
        self.advised = to.max(self.advised);
    }
}
