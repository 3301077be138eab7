//! Pearce's search itself, iterative, over any [`Rows`]: the state graph's own rows (see
//! [`crate::scc`]) or the graph of two-cycle classes (see [`crate::scc_contract`]). The
//! algorithm, its numbering and its memory are described in [`crate::scc`].

use crate::error::HsgError;
use crate::ids::{IdVec, Word};
use crate::scc_rows::Rows;
use crate::state_arrays::{Backing, Words};
use std::ops::Range;

/// Bytes of RAM per state that [`crate::scc::strongly_connected_components`] needs at its
/// peak (here, beside the search, so that the classes' search in `scc_contract` can size
/// itself without importing `scc`, which calls it).
pub fn bytes_per_state(state_count: u64) -> f64 {
    if state_count < u64::from(u32::MAX) {
        12.125
    } else {
        20.125
    }
}

/// The strongly connected component of every state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// Component number of each state (see [`crate::scc`] for the numbering).
    pub of_state: IdVec,
    /// Number of components.
    pub count: u64,
}
/// The components of the `n` states whose rows `rows` gives.
pub(crate) fn components_over<R: Rows>(
    rows: &R,
    n: u64,
    backing: &Backing,
) -> Result<Components, HsgError> {
    // Values stored are DFS indices `1..=n` and component numbers `0..n`.
    Ok(if n < u64::from(u32::MAX) {
        let (rindex, count) = pearce::<u32, R>(rows, n, backing)?;
        Components {
            of_state: IdVec::U32(rindex),
            count,
        }
    } else {
        let (rindex, count) = pearce::<u64, R>(rows, n, backing)?;
        Components {
            of_state: IdVec::U64(rindex),
            count,
        }
    })
}

/// The DFS state of one run: Pearce's arrays plus the explicit call stack.
struct Search<W: Word> {
    rindex: Words<W>,
    /// Call stack in `arena[..calls]`, component stack in `arena[n - pending..]`.
    arena: Words<W>,
    offsets: Words<u32>,
    roots: Words<u64>,
    calls: usize,
    pending: usize,
    index: u64,
    next_component: u64,
}

impl<W: Word> Search<W> {
    fn new(n: usize, backing: &Backing) -> Result<Self, HsgError> {
        Ok(Search {
            rindex: backing.zeroed(n)?,
            arena: backing.zeroed(n)?,
            offsets: backing.zeroed(n)?,
            roots: backing.zeroed(n.div_ceil(64))?,
            calls: 0,
            pending: 0,
            index: 1,
            next_component: (n as u64).wrapping_sub(1),
        })
    }

    #[inline]
    fn rindex(&self, s: u64) -> u64 {
        self.rindex[s as usize].to_u64()
    }

    #[inline]
    fn set_root(&mut self, s: u64, root: bool) {
        let (word, bit) = ((s / 64) as usize, s % 64);
        if root {
            self.roots[word] |= 1 << bit;
        } else {
            self.roots[word] &= !(1 << bit);
        }
    }

    #[inline]
    fn is_root(&self, s: u64) -> bool {
        self.roots[(s / 64) as usize] >> (s % 64) & 1 == 1
    }

    /// Starts visiting `s`: gives it the next DFS index and pushes its frame.
    #[inline]
    fn enter(&mut self, s: u64) {
        self.rindex[s as usize] = W::from_u64(self.index);
        self.index += 1;
        self.set_root(s, true);
        self.arena[self.calls] = W::from_u64(s);
        self.offsets[self.calls] = 0;
        self.calls += 1;
    }

    /// Pearce's low-link update of `v` through an edge to (or a return from) `w`.
    #[inline]
    fn relax(&mut self, v: u64, w: u64) {
        let rw = self.rindex[w as usize];
        if rw < self.rindex[v as usize] {
            self.rindex[v as usize] = rw;
            self.set_root(v, false);
        }
    }

    /// Finishes `v` (already popped from the call stack): closes its component if it is
    /// a root, else parks it on the component stack.
    fn leave(&mut self, v: u64) {
        let n = self.arena.len();
        if !self.is_root(v) {
            self.pending += 1;
            self.arena[n - self.pending] = W::from_u64(v);
            return;
        }
        self.index -= 1;
        let rv = self.rindex(v);
        let component = W::from_u64(self.next_component);
        while self.pending > 0 {
            let w = self.arena[n - self.pending].to_u64();
            if rv > self.rindex(w) {
                break;
            }
            self.pending -= 1;
            self.rindex[w as usize] = component;
            self.index -= 1;
        }
        self.rindex[v as usize] = component;
        self.next_component = self.next_component.wrapping_sub(1);
    }

    /// Starts loading, for every target of a row about to be scanned, its `rindex`
    /// entry and its own row: on a graph of millions of states each is a cache miss,
    /// and issued together they overlap instead of following one another.
    #[inline]
    fn prefetch_targets<R: Rows>(&self, g: &R, row: Range<u64>) {
        for position in row {
            let w = g.target(position);
            store::prefetch(&self.rindex, w as usize);
            g.prefetch_row(w);
        }
    }

    fn visit_from<R: Rows>(&mut self, g: &R, start: u64) {
        self.enter(start);
        while self.calls > 0 {
            let top = self.calls - 1;
            let v = self.arena[top].to_u64();
            let row = g.row(v);
            let position = row.start + u64::from(self.offsets[top]);
            if position == row.start {
                self.prefetch_targets(g, row.clone());
            }
            if position < row.end {
                self.offsets[top] += 1;
                let w = g.target(position);
                // Zero means unvisited. The component number 0 is only ever given to the
                // very last component, and only when every component is a single state,
                // so no edge or start is examined after it is assigned.
                if self.rindex(w) == 0 {
                    self.enter(w);
                } else {
                    self.relax(v, w);
                }
                continue;
            }
            self.calls -= 1;
            self.leave(v);
            if self.calls > 0 {
                let parent = self.arena[self.calls - 1].to_u64();
                self.relax(parent, v);
            }
        }
    }
}

fn pearce<W: Word, R: Rows>(g: &R, n: u64, backing: &Backing) -> Result<(Words<W>, u64), HsgError> {
    let n = n as usize;
    if n == 0 {
        return Ok((Words::Heap(Vec::new()), 0));
    }
    let mut search = Search::<W>::new(n, backing)?;
    for start in 0..n as u64 {
        if search.rindex(start) == 0 {
            search.visit_from(g, start);
        }
    }
    // Components got numbers n-1, n-2, ... in completion order; renumber them 0, 1, ...
    let count = (n as u64)
        .wrapping_sub(1)
        .wrapping_sub(search.next_component);
    let mut rindex = search.rindex;
    let last = n as u64 - 1;
    for r in rindex.iter_mut() {
        *r = W::from_u64(last - r.to_u64());
    }
    Ok((rindex, count))
}
