//! Two-cycle contraction before the component search: states joined by edges both ways
//! always lie in one component, so they are merged first and the search runs over the
//! much smaller graph of their classes.
//!
//! # Why
//! In most games the bulk of the transitions are immediately reversible moves (a
//! Sokoban player walking without pushing, a token slid back). Pearce's search over
//! the state graph itself reads every row in DFS order, which on a graph far larger than
//! the page cache costs a disk read per state (room5: 1.5 G states, 20 GB of edges). The
//! contraction reads the rows in state order only: the two-cycles of a state lie in its
//! own or the next BFS layer, so its passes stay within a window of a few layers. The
//! search then walks the classes' graph, a fraction of the size, in RAM.
//!
//! # Algorithm
//! 1. Union-find over every pair `s -> t`, `t -> s` (`t > s`, found by scanning `t`'s
//!    row, or on breadth-first graphs by meeting `s`'s forward edge with `t`'s row when
//!    the pass reaches it: [`crate::two_cycles_layered`]), with the smaller root kept as the root: parents always point to smaller ids,
//!    so no rank is needed for determinism, and path halving keeps finds short. A parent
//!    is stored as its distance below the state (0 for a root), so the zeroed array needs
//!    no initialising pass.
//! 2. Classes numbered in the order of their smallest member, in place, in one pass.
//! 3. The classes' graph as compressed rows (a counting sort over the edges that join
//!    two classes, each row sorted and without duplicates).
//! 4. Pearce's search ([`crate::scc`]) over the classes, whose component numbers are
//!    then written back over every state's class.
//!
//! The result is the same partition as the search over the state graph itself, with
//! components numbered in the completion order of the search over the classes (starting
//! at the class of state 0, then at each unvisited class in increasing order): still a
//! reverse topological order, and a function of the graph alone.
//!
//! # Complexity
//! Time `O(E * d + E log d)` for out-degrees `d` (each two-cycle check scans one row),
//! plus the search over the classes. Memory: one word per state (the classes, which
//! become the components), the classes' rows (8 bytes a class and one word per edge
//! between classes), and Pearce's 12.125 bytes per class.

use crate::error::HsgError;
use crate::graph::StateGraph;
use crate::ids::{AtomicWord, IdVec, Word};
use crate::one_way::{for_each_fetched, OneWay, OneWayFate, OneWayList, OneWays};
use crate::parallel::{map_ranges, threads_for};
use crate::progress::StepTimes;
use crate::scc_rows::Rows;
use crate::scc_search::{components_over, Components};
use crate::state_arrays::{Backing, Words};
#[cfg(test)]
pub(crate) use crate::two_cycles::two_cycle_classes;
pub(crate) use crate::two_cycles::{two_cycle_classes_recording, Classes, PairCounts, Rooms};
use std::ops::Range;

/// States per class below which the contraction is not worth its passes: a graph whose
/// classes are more than half its states is searched directly.
pub(crate) const WORTHWHILE_RATIO: u64 = 2;

/// The graph of the classes: compressed rows, each sorted and without duplicates.
pub(crate) struct ClassRows<W: Word> {
    /// `offsets[c]..offsets[c + 1]` are class `c`'s places in `targets`.
    offsets: Words<u64>,
    targets: Words<W>,
}

impl<W: Word> ClassRows<W> {
    /// The rows of the classes of `g`: one pass counts each class's edges to other
    /// classes, a second places them, then each row is sorted and deduplicated in place.
    /// Both passes run on `threads` threads over ranges of sources, counting and placing
    /// through atomic cursors; the places within a row then depend on the threads'
    /// timing, but the sorted, deduplicated rows do not.
    pub(crate) fn build<G: StateGraph + ?Sized, C: Word>(
        g: &G,
        classes: &Classes<C>,
        backing: &Backing,
        threads: usize,
    ) -> Result<ClassRows<W>, HsgError> {
        let class = |s: u64| classes.of_state[s as usize].to_u64();
        ClassRows::build_from(classes.count, backing, |f| {
            map_ranges(g.expanded_count(), threads, |r| {
                for_each_crossing(g, r, &class, f)
            });
        })
    }

    /// The same rows as [`ClassRows::build`], from the one-way transitions the two-cycle
    /// pass recorded (every edge between two classes is one), without reading the rows.
    pub(crate) fn from_list<C: Word>(
        list: &OneWayList<C>,
        classes: &Classes<C>,
        backing: &Backing,
    ) -> Result<ClassRows<W>, HsgError> {
        let class = |s: C| classes.of_state[s.to_u64() as usize].to_u64();
        let fetch = |e: &OneWay<C>| {
            store::prefetch(&classes.of_state[..], e.source.to_u64() as usize);
            store::prefetch(&classes.of_state[..], e.target.to_u64() as usize);
        };
        ClassRows::build_from(classes.count, backing, |f| {
            list.map_parts(|edges| {
                for_each_fetched(edges, fetch, |e| {
                    let (from, to) = (class(e.source), class(e.target));
                    if from != to {
                        f(from, to);
                    }
                });
            });
        })
    }

    /// The rows of `count` classes whose edges `visit` gives, calling its argument (from
    /// any thread) with each edge between two classes: one visit counts each class's
    /// edges, a second places them through atomic cursors, then each row is sorted and
    /// deduplicated in place. The places within a row depend on the threads' timing, but
    /// the sorted, deduplicated rows do not.
    fn build_from(
        count: u64,
        backing: &Backing,
        visit: impl Fn(&(dyn Fn(u64, u64) + Sync)),
    ) -> Result<ClassRows<W>, HsgError> {
        let mut offsets: Words<u64> = backing.zeroed(count as usize + 1)?;
        {
            let counters = u64::atomic(&mut offsets);
            visit(&|from, _| {
                counters[from as usize + 1].add(1);
            });
        }
        for c in 0..count as usize {
            offsets[c + 1] += offsets[c];
        }
        let total = offsets[count as usize];
        let mut targets: Words<W> = backing.zeroed(total as usize)?;
        {
            // `offsets[c]` serves as class c's cursor and ends at the start of class c + 1.
            let cursors = u64::atomic(&mut offsets);
            let places = W::atomic(&mut targets);
            visit(&|from, to| {
                places[cursors[from as usize].add(1) as usize].put(to);
            });
        }
        let mut rows = ClassRows { offsets, targets };
        rows.sort_and_deduplicate(count as usize);
        Ok(rows)
    }

    /// Sorts each row and drops repeated targets, compacting the rows towards the front.
    /// On entry `offsets[c]` is the end of row `c` (the fill's cursors); on exit the
    /// offsets are the usual starts.
    fn sort_and_deduplicate(&mut self, count: usize) {
        let mut start = 0usize;
        let mut write = 0usize;
        for c in 0..count {
            let end = self.offsets[c] as usize;
            let row = &mut self.targets[start..end];
            row.sort_unstable();
            let row_start = write;
            for k in start..end {
                let t = self.targets[k];
                if write == row_start || self.targets[write - 1] != t {
                    self.targets[write] = t;
                    write += 1;
                }
            }
            self.offsets[c] = row_start as u64;
            start = end;
        }
        self.offsets[count] = write as u64;
    }
}

/// Calls `f(class of s, class of t)` for every edge `s -> t` between two classes whose
/// source is in `sources`, in state order.
fn for_each_crossing<G: StateGraph + ?Sized>(
    g: &G,
    sources: Range<u64>,
    class: &impl Fn(u64) -> u64,
    f: &(dyn Fn(u64, u64) + Sync),
) {
    let mut ahead = crate::readahead::Ahead::new(g, sources.end, true);
    for s in sources {
        ahead.at(s);
        let from = class(s);
        for position in g.edge_range(s) {
            let to = class(g.edge(position).1);
            if to != from {
                f(from, to);
            }
        }
    }
}

impl<W: Word> Rows for ClassRows<W> {
    #[inline]
    fn row(&self, v: u64) -> Range<u64> {
        self.offsets[v as usize]..self.offsets[v as usize + 1]
    }
    #[inline]
    fn target(&self, position: u64) -> u64 {
        self.targets[position as usize].to_u64()
    }
    #[inline]
    fn prefetch_row(&self, v: u64) {
        store::prefetch(&self.offsets, v as usize);
    }
}

/// What the contraction gives: the components (None when they were not worth it), the
/// two-cycle pass's counts, the one-way transitions when they were recorded, and what
/// became of them.
pub(crate) type Contracted = (Option<Components>, PairCounts, Option<OneWays>, PassReport);

/// What the contraction tells of itself: the fate of the one-way list, and how long
/// its steps took.
pub(crate) struct PassReport {
    pub(crate) fate: OneWayFate,
    pub(crate) times: StepTimes,
}

/// The components of `g` through its two-cycle classes, or None when
/// `only_if_worthwhile` and the classes are too many for the contraction to pay (see
/// [`WORTHWHILE_RATIO`]); with the counts of the two-cycle pass either way. With a
/// `list_room` (bytes), the pass records the one-way transitions within it, the classes'
/// rows are built from them, and they are returned for the HSG's edges; the list is
/// dropped (and the rows read instead) when it outgrows the room, or leaves too little of
/// it for the search over the classes, or when the contraction is not used.
pub(crate) fn components_and_counts<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    only_if_worthwhile: bool,
    list_room: Option<u64>,
) -> Result<Contracted, HsgError> {
    let threads = threads_for(g.edge_count());
    if g.state_count() < u64::from(u32::MAX) {
        contract_with::<G, u32>(g, backing, (only_if_worthwhile, list_room), threads)
    } else {
        contract_with::<G, u64>(g, backing, (only_if_worthwhile, list_room), threads)
    }
}

/// [`components_and_counts`] without the counts.
#[cfg(test)]
pub(crate) fn components_by_contraction<G: StateGraph + ?Sized>(
    g: &G,
    backing: &Backing,
    only_if_worthwhile: bool,
) -> Result<Option<Components>, HsgError> {
    Ok(components_and_counts(g, backing, only_if_worthwhile, None)?.0)
}

/// True when the search over `classes` classes still fits `room` beside `list`: the
/// classes' rows (an offset a class, a word an edge between classes, at most one a
/// one-way transition) and the search's own arrays.
fn list_leaves_room<W: Word>(list: &OneWayList<W>, classes: u64, room: u64) -> bool {
    let word = std::mem::size_of::<W>() as f64;
    let search = crate::scc_search::bytes_per_state(classes) + 8.0;
    let needed = list.bytes() as f64 + search * classes as f64 + word * list.len() as f64;
    needed <= room as f64
}

fn contract_with<G: StateGraph + ?Sized, W: Word>(
    g: &G,
    backing: &Backing,
    (only_if_worthwhile, list_room): (bool, Option<u64>),
    threads: usize,
) -> Result<Contracted, HsgError>
where
    IdVec: From<Words<W>>,
    OneWays: From<OneWayList<W>>,
{
    let n = g.state_count();
    // The pass by layers may take half the list's room for its buffers while it runs.
    let rooms = Rooms {
        list: list_room,
        buffers: list_room.map(|bytes| bytes / 2),
    };
    let mut times = StepTimes::start();
    let (mut classes, counts, list) =
        two_cycle_classes_recording::<G, W>(g, backing, threads, rooms, &mut times)?;
    if only_if_worthwhile && classes.count.saturating_mul(WORTHWHILE_RATIO) > n {
        let fate = OneWayFate::NotContracted;
        return Ok((None, counts, None, PassReport { fate, times }));
    }
    let fate = match (&list, list_room) {
        (_, None) => OneWayFate::NoRoom,
        (None, Some(room)) => OneWayFate::Outgrew { room },
        (Some(l), Some(room)) if !list_leaves_room(l, classes.count, room) => {
            OneWayFate::LeftTooLittle {
                bytes: l.bytes(),
                classes: classes.count,
            }
        }
        (Some(l), Some(_)) => OneWayFate::Kept {
            transitions: l.len(),
            bytes: l.bytes(),
        },
    };
    let list = list.filter(|_| matches!(fate, OneWayFate::Kept { .. }));
    let of_class = {
        let rows = match &list {
            Some(list) => ClassRows::<W>::from_list(list, &classes, backing)?,
            None => ClassRows::<W>::build(g, &classes, backing, threads)?,
        };
        times.done("classes' rows");
        components_over(&rows, classes.count, backing)?
    };
    times.done("search over the classes");
    crate::parallel::for_each_slice(&mut classes.of_state, threads, |slice| {
        for c in slice {
            *c = W::from_u64(of_class.of_state.at(c.to_u64()));
        }
    });
    times.done("components written back");
    let components = Components {
        of_state: IdVec::from(classes.of_state),
        count: of_class.count,
    };
    let report = PassReport { fate, times };
    Ok((Some(components), counts, list.map(OneWays::from), report))
}

#[cfg(test)]
#[path = "scc_contract_tests.rs"]
mod tests;
