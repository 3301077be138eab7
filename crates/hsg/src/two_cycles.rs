//! The two-cycle pass: one pass over the rows in state order, on every core, that
//! merges the states joined by edges both ways (see [`crate::scc_contract`]) and counts,
//! on the way, the transitions that are immediately reversible, the transitions of each
//! action and the self-loops: all that [`crate::reversibility`] needs beyond the
//! critical actions, which the HSG's edges count.
//!
//! # Why one pass does both
//! A transition `s -> t` is immediately reversible when `t == s` or `t` has an edge back
//! to `s`, and then `s` and `t` are one two-cycle class, hence one hyperstate. Finding
//! the classes already reads `t`'s row for every pair; reading it for every pair, not
//! only those not yet merged, gives both classifications at once, and the later pass
//! that read every target's row again (the largest part of the analysis's time on room4)
//! is gone.
//!
//! # Algorithm
//! Each thread takes a range of sources. For a source `s`, its edges to larger states
//! are grouped by target; for each such `t`, `t`'s row is read once: its edges back to
//! `s` are immediately reversible, and when there is one, so are `s`'s edges to `t`, and
//! `s` and `t` are merged. A pair is thus seen once, from its smaller end. The merges go
//! to one union-find shared by the threads, in atomic words: a root is linked below the
//! smaller root by a compare-and-swap from "root" (so parents point to smaller ids and
//! no cycle can form), and a find halves its path by storing a grandparent, which is
//! always an ancestor whatever other threads do. The classes are the connected
//! components of the pairs, whatever order the merges came in, so they (and their
//! numbering by smallest member) are the same whatever the thread count.
//!
//! # The one-way transitions
//! When asked, the pass also records every transition that is not immediately
//! reversible (see [`crate::one_way`]). A transition to a larger state is known at its
//! pair's check. One to a smaller state `t` was seen from `t`, the pair's smaller end:
//! when `t` is in the thread's own range, that check marked it in a bitset over the
//! range's edge positions if it goes back (the thread reached `t` first); when `t` is in
//! an earlier range (in most games only near the ranges' boundary, as moves lead to
//! neighbouring BFS layers), `t`'s row is read again. The list and the counts are the
//! same whatever the thread count.

use crate::error::HsgError;
use crate::graph::{ActionId, StateGraph};
use crate::ids::{AtomicWord, Word};
use crate::one_way::{OneWayList, Part, Room};
use crate::parallel::map_ranges;
use crate::state_arrays::{Backing, Words};
use std::ops::Range;

pub(crate) use crate::pair_union::PairCounts;
use crate::pair_union::{slot, union};

/// What a thread of the pass records beyond the union-find: the one-way transitions of
/// its sources (see [`crate::one_way`]), with a bitset over the positions of its own
/// rows that marks the transitions found to have an edge back.
struct Recording<'r, W: Word> {
    part: Part<'r, W>,
    /// Bit `p - first` is set when the edge at position `p` goes back to a smaller state
    /// that has an edge to its source.
    reversed: Vec<u64>,
    first: u64,
}

impl<'r, W: Word> Recording<'r, W> {
    fn new<G: StateGraph + ?Sized>(g: &G, sources: &Range<u64>, room: &'r Room) -> Self {
        let (first, end) = match sources.is_empty() {
            true => (0, 0),
            false => (
                g.edge_range(sources.start).start,
                g.edge_range(sources.end - 1).end,
            ),
        };
        Recording {
            part: Part::new(room),
            reversed: vec![0; (end.saturating_sub(first)).div_ceil(64) as usize],
            first,
        }
    }

    /// Marks the edge at `position` (in a row of this range) as going back.
    #[inline]
    fn mark(&mut self, position: u64) {
        let bit = position - self.first;
        self.reversed[(bit / 64) as usize] |= 1 << (bit % 64);
    }

    #[inline]
    fn is_marked(&self, position: u64) -> bool {
        let bit = position - self.first;
        self.reversed[(bit / 64) as usize] >> (bit % 64) & 1 == 1
    }

    /// Records the edge `s -> t` (`t < s`) at `position` when it has no edge back. When
    /// `t` is in this range, its pair was seen from `t` (the smaller end) earlier on this
    /// thread, which marked the edge if it goes back; otherwise `t`'s row is read.
    #[inline]
    fn backward<G: StateGraph + ?Sized>(
        &mut self,
        g: &G,
        (s, action, t): (u64, ActionId, u64),
        position: u64,
        start: u64,
    ) {
        let back = match t >= start {
            true => self.is_marked(position),
            false => g.edge_range(t).any(|p| g.edge(p).1 == s),
        };
        if !back {
            self.part.push(s, t, action);
        }
    }
}

/// Starts loading what the pairs' checks of one source will read: each larger target's
/// row index and union-find word, then (once the indices are in) the first word of its
/// edges, so that the cache misses of the targets overlap instead of following one
/// another (a source has a few targets, one BFS layer away, far from it in memory).
/// Leaves each target's row in `rows` (one a target of `ahead`), which the checks read
/// then rather than decoding it again.
#[inline]
fn prefetch_pairs<G: StateGraph + ?Sized, A: AtomicWord>(
    g: &G,
    up: &[A],
    ahead: &[(u64, ActionId)],
    rows: &mut Vec<Range<u64>>,
) {
    for &(t, _) in ahead {
        g.prefetch_row(t);
        store::prefetch(up, t as usize);
    }
    rows.clear();
    for &(t, _) in ahead {
        let row = g.edge_range(t);
        g.prefetch_edge(row.start);
        rows.push(row);
    }
}

/// The pass over the sources `sources`: merges their two-cycles into `up` and counts,
/// and records the one-way transitions when `recording` is given.
fn scan<'r, G: StateGraph + ?Sized, A: AtomicWord, W: Word>(
    g: &G,
    up: &[A],
    sources: Range<u64>,
    mut recording: Option<Recording<'r, W>>,
) -> (PairCounts, Option<Part<'r, W>>) {
    let mut counts = PairCounts::default();
    let mut ahead: Vec<(u64, ActionId)> = Vec::new();
    let mut rows: Vec<Range<u64>> = Vec::new();
    let start = sources.start;
    let end = sources.end;
    // The pass reads its sources' rows, and ahead of them the rows of their larger
    // targets (the next BFS layer): both are read ahead (see `crate::readahead`).
    let mut own_rows = crate::readahead::Ahead::new(g, end, true);
    let mut target_rows = crate::readahead::Ahead::new(g, u64::MAX, true);
    for s in sources {
        own_rows.at(s);
        ahead.clear();
        for position in g.edge_range(s) {
            let (a, t) = g.edge(position);
            *slot(&mut counts.total, usize::from(a)) += 1;
            if t == s {
                counts.self_loops += 1;
                *slot(&mut counts.immediate, usize::from(a)) += 1;
            } else if t > s {
                ahead.push((t, a));
            } else if let Some(r) = recording.as_mut() {
                r.backward(g, (s, a, t), position, start);
            }
        }
        if ahead.len() > 1 {
            ahead.sort_unstable();
        }
        if let Some(&(last, _)) = ahead.last() {
            target_rows.at(last);
        }
        prefetch_pairs(g, up, &ahead, &mut rows);
        let mut i = 0;
        while i < ahead.len() {
            let t = ahead[i].0;
            let group = ahead[i..].iter().take_while(|e| e.0 == t).count();
            let mut back = false;
            for position in rows[i].clone() {
                let (b, x) = g.edge(position);
                if x == s {
                    back = true;
                    *slot(&mut counts.immediate, usize::from(b)) += 1;
                    // Only this thread reads the marks of its own rows.
                    if let Some(r) = recording.as_mut().filter(|_| t < end) {
                        r.mark(position);
                    }
                }
            }
            if back {
                for &(_, a) in &ahead[i..i + group] {
                    *slot(&mut counts.immediate, usize::from(a)) += 1;
                }
                union(up, s, t);
            } else if let Some(r) = recording.as_mut() {
                for &(t, a) in &ahead[i..i + group] {
                    r.part.push(s, t, a);
                }
            }
            i += group;
        }
    }
    (counts, recording.map(|r| r.part))
}

/// The two-cycle classes of a validated graph: every state's class, numbered in the
/// order of their smallest member.
pub(crate) struct Classes<W: Word> {
    pub(crate) of_state: Words<W>,
    pub(crate) count: u64,
}

/// The two-cycle classes of a validated graph (their array allocated as `backing`
/// says) and the counts of [`PairCounts`], on `threads` threads.
#[cfg(test)]
pub(crate) fn two_cycle_classes<G: StateGraph + ?Sized, W: Word>(
    g: &G,
    backing: &Backing,
    threads: usize,
) -> Result<(Classes<W>, PairCounts), HsgError> {
    let mut times = crate::progress::StepTimes::start();
    let rooms = Rooms {
        list: None,
        buffers: None,
    };
    let (classes, counts, _) =
        two_cycle_classes_recording::<G, W>(g, backing, threads, rooms, &mut times)?;
    Ok((classes, counts))
}

/// What the two-cycle pass gives: the classes, the counts and, when recorded, the
/// one-way transitions.
pub(crate) type Pass<W> = (Classes<W>, PairCounts, Option<OneWayList<W>>);

/// The rooms in the budget, in bytes, that the two-cycle pass may draw on beyond the
/// union-find: for the one-way list (None: not recorded) and for the buffers of the pass
/// by layers (None: the pass by sources runs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rooms {
    pub(crate) list: Option<u64>,
    pub(crate) buffers: Option<u64>,
}

/// The parts of the pass (the counts and one-way transitions of each thread's range,
/// in range order) and whether the list's room ran out.
type Parts<'r, W> = Vec<(PairCounts, Option<Part<'r, W>>)>;

/// [`two_cycle_classes`], which also records the one-way transitions in a list within
/// `rooms.list` when asked (see [`crate::one_way`]; the list is None when the room ran
/// out). With breadth-first layers and a room for its buffers, the pass runs by layers
/// ([`crate::two_cycles_layered`]: every row read once, in order); without, or when its
/// buffers outgrow their room, by sources. Both give the same result.
pub(crate) fn two_cycle_classes_recording<G: StateGraph + ?Sized, W: Word>(
    g: &G,
    backing: &Backing,
    threads: usize,
    rooms: Rooms,
    times: &mut crate::progress::StepTimes,
) -> Result<Pass<W>, HsgError> {
    let n = g.state_count();
    let mut up: Words<W> = backing.zeroed(n as usize)?;
    let layers = breadth_first_layers(g);
    let mut done = None;
    if let (Some(buffers), Some(layers)) = (rooms.buffers, layers) {
        // The buffers' room is taken from the list's while the pass runs.
        let list = rooms
            .list
            .map(|bytes| Room::new(bytes.saturating_sub(buffers)));
        let buffer_room = Room::new(buffers);
        let shared = W::atomic(&mut up);
        let cut = (threads, Some(layers), crate::two_cycles_layered::CHUNK_BITS);
        let parts = by_layers(g, shared, cut, list.as_ref(), &buffer_room);
        match parts {
            Some(parts) => {
                done = Some(gather(parts, list.as_ref()));
                times.done("two-cycle pass by layers");
            }
            None => times.done("two-cycle pass by layers (out of room, abandoned)"),
        }
    }
    let (counts, list) = match done {
        Some(done) => done,
        None => {
            // Merges made by an abandoned pass by layers are pairs of the graph: they
            // stay, as the classes are the components of all the pairs.
            let list = rooms.list.map(Room::new);
            let shared = W::atomic(&mut up);
            let parts = map_ranges(g.expanded_count(), threads, |r| {
                let recording = list.as_ref().map(|room| Recording::new(g, &r, room));
                scan(g, shared, r, recording)
            });
            let done = gather(parts, list.as_ref());
            times.done("two-cycle pass");
            done
        }
    };
    number_classes(up, counts, list, times)
}

/// The layer starts of `g` when it is numbered breadth-first and they are in order
/// (a damaged table gives the pass by sources, which does not need them).
fn breadth_first_layers<G: StateGraph + ?Sized>(g: &G) -> Option<&[u64]> {
    let layers = g.layer_starts()?;
    let sorted = layers.windows(2).all(|w| w[0] <= w[1]);
    (sorted && !layers.is_empty()).then_some(layers)
}

/// The pass by layers on `threads` threads (each range's warm-up from the layer before
/// it, or from state 0 without `layers`) by chunks of `1 << chunk_bits` states, or None
/// when its buffers outgrew `buffers`.
pub(crate) fn by_layers<'r, G: StateGraph + ?Sized, A: AtomicWord, W: Word>(
    g: &G,
    up: &[A],
    (threads, layers, chunk_bits): (usize, Option<&[u64]>, u32),
    list: Option<&'r Room>,
    buffers: &Room,
) -> Option<Parts<'r, W>> {
    let expanded = g.expanded_count();
    let parts = map_ranges(expanded, threads, |range| {
        let walk = crate::two_cycles_layered::Walk {
            warm_from: crate::two_cycles_layered::warm_from(layers, range.start),
            range,
            expanded,
            chunk_bits,
            recording: list.map(Part::new),
        };
        crate::two_cycles_layered::scan_layered(g, up, walk, buffers)
    });
    parts.into_iter().collect::<Result<Vec<_>, _>>().ok()
}

/// The parts' counts summed and their one-way transitions gathered into a list (None
/// when not recorded or when the room ran out).
pub(crate) fn gather<W: Word>(
    parts: Parts<'_, W>,
    room: Option<&Room>,
) -> (PairCounts, Option<OneWayList<W>>) {
    let mut counts = PairCounts::default();
    let mut recorded = Vec::new();
    for (part, one_way) in parts {
        counts.merge(part);
        recorded.extend(one_way);
    }
    let list = room.and_then(|room| OneWayList::gather(recorded, room));
    (counts, list)
}

/// States ahead of the numbering whose parents are fetched.
const NUMBER_AHEAD: usize = 16;

/// The classes numbered from the union-find `up` (in the order of their smallest
/// member), with the pass's counts completed.
pub(crate) fn number_classes<W: Word>(
    mut up: Words<W>,
    mut counts: PairCounts,
    list: Option<OneWayList<W>>,
    times: &mut crate::progress::StepTimes,
) -> Result<Pass<W>, HsgError> {
    let n = up.len() as u64;
    let width = counts.total.len();
    counts
        .immediate
        .resize(width.max(counts.immediate.len()), 0);
    // Parents point to smaller ids, so when `s` is reached its parent already holds its
    // class number: the renumbering is one pass in place.
    // The parents lie anywhere before: the parent of the state NUMBER_AHEAD on is
    // fetched, so that the cache misses overlap.
    let mut count = 0u64;
    for s in 0..n as usize {
        if let Some(d) = up.get(s + NUMBER_AHEAD).map(|w| w.to_u64()) {
            store::prefetch(&up[..], s + NUMBER_AHEAD - d as usize);
        }
        let d = up[s].to_u64();
        up[s] = if d == 0 {
            count += 1;
            W::from_u64(count - 1)
        } else {
            up[s - d as usize]
        };
    }
    times.done("classes numbered");
    Ok((
        Classes {
            of_state: up,
            count,
        },
        counts,
        list,
    ))
}
