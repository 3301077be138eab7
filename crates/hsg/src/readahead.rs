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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{ActionId, OutcomeId, StateId};
    use std::ops::Range;
    use std::sync::Mutex;

    /// A graph of `n` states without edges that records the hints it is given.
    struct Hinted {
        n: u64,
        hints: Mutex<Vec<(Range<u64>, bool)>>,
    }

    impl StateGraph for Hinted {
        fn state_count(&self) -> u64 {
            self.n
        }
        fn expanded_count(&self) -> u64 {
            self.n
        }
        fn edge_count(&self) -> u64 {
            0
        }
        fn edge_range(&self, _: StateId) -> Range<u64> {
            0..0
        }
        fn edge(&self, _: u64) -> (ActionId, StateId) {
            (0, 0)
        }
        fn outcome(&self, _: StateId) -> Option<OutcomeId> {
            None
        }
        fn for_each_terminal(&self, _: &mut dyn FnMut(StateId, OutcomeId)) {}
        fn will_read(&self, states: Range<u64>, edges: bool) {
            self.hints.lock().unwrap().push((states, edges));
        }
    }

    #[test]
    fn a_pass_in_order_is_hinted_once_ahead_of_every_state() {
        let n = 10 * WINDOW + 123;
        let g = Hinted {
            n,
            hints: Mutex::new(Vec::new()),
        };
        let mut ahead = Ahead::new(&g, n, false);
        for s in 0..n {
            ahead.at(s);
            // Every state is hinted before the pass reads it, a window ahead but never
            // more than two.
            let hints = g.hints.lock().unwrap();
            let end = hints.last().map_or(0, |h| h.0.end);
            assert!(end > s && (end >= (s + WINDOW).min(n)) && end <= s + 2 * WINDOW);
        }
        let hints = g.hints.into_inner().unwrap();
        assert!(hints.windows(2).all(|w| w[0].0.end == w[1].0.start));
        assert_eq!(hints.first().map(|h| h.0.start), Some(0));
        assert!(hints.iter().all(|h| !h.1));
        assert!(hints.len() <= 12, "{}", hints.len());
    }

    #[test]
    fn a_position_that_jumps_is_hinted_from_where_it_lands() {
        let g = Hinted {
            n: 100 * WINDOW,
            hints: Mutex::new(Vec::new()),
        };
        let mut ahead = Ahead::new(&g, u64::MAX, true);
        ahead.at(5);
        ahead.at(50 * WINDOW);
        ahead.at(50 * WINDOW + 1);
        let hints = g.hints.into_inner().unwrap();
        assert_eq!(
            hints,
            vec![(5..5 + 2 * WINDOW, true), (50 * WINDOW..52 * WINDOW, true)]
        );
    }
}
