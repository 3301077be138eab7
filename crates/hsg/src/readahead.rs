//! Reading a stored graph's rows ahead of a pass: a pass over the states in order asks
//! the graph to start reading the rows a window ahead of where it is
//! ([`crate::graph::StateGraph::will_read`]), so that on a store larger than the page cache (room5:
//! 30 GB against 24 GiB of RAM) the disk reads in large requests while the pass
//! computes, instead of the pass waiting for one page fault after another. A hint
//! only: the results do not depend on it, and graphs in memory ignore it.

use std::ops::Range;

/// What a pass reads ahead of: the rows a graph has and the hint it takes (every
/// [`crate::graph::StateGraph`] is one, through its `will_read`).
pub(crate) trait Hinted {
    /// States with a row.
    fn rows(&self) -> u64;
    /// A hint that the rows of `states` (and, with `edges`, their edges) will be read soon.
    fn hint(&self, states: Range<u64>, edges: bool);
}

/// States a hint covers: about 3 MB of room5's edges, so that the hints are few and
/// the kernel reads in large requests, and a window ahead stays a small share of the
/// page cache.
const WINDOW: u64 = 1 << 18;

/// The reading ahead of one moving position of a pass (the states it reads rows of).
pub(crate) struct Ahead<'g, G: Hinted + ?Sized> {
    g: &'g G,
    /// The hints cover `..advised` (from where the position first was).
    advised: u64,
    end: u64,
    edges: bool,
}

impl<'g, G: Hinted + ?Sized> Ahead<'g, G> {
    /// Reading ahead of positions below `end`, the rows' edges too when `edges`.
    pub(crate) fn new(g: &'g G, end: u64, edges: bool) -> Self {
        Ahead {
            g,
            advised: 0,
            end: end.min(g.rows()),
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
            self.g.hint(from..to, self.edges);
        }
        self.advised = to.max(self.advised);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A graph of `n` states that records the hints it is given.
    struct Hints {
        n: u64,
        hints: Mutex<Vec<(Range<u64>, bool)>>,
    }

    impl Hinted for Hints {
        fn rows(&self) -> u64 {
            self.n
        }
        fn hint(&self, states: Range<u64>, edges: bool) {
            self.hints.lock().unwrap().push((states, edges));
        }
    }

    #[test]
    fn a_pass_in_order_is_hinted_once_ahead_of_every_state() {
        let n = 10 * WINDOW + 123;
        let g = Hints {
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
        let g = Hints {
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
