//! The two-cycle pass by layers: the same classes, counts and one-way transitions as
//! [`crate::two_cycles`]'s pass, found by reading every row once, in state order, with
//! no read of a target's row out of order.
//!
//! # Why
//! The pass by sources checks a pair `s -> t` (`t > s`) by reading `t`'s row when it
//! reaches `s`: a random read into the next breadth-first layer. On a store larger than
//! the page cache (room5: 20 GB of rows and edges beside 10 GB of analysis arrays) each
//! of those is a page fault, and they were most of the analysis's time. Here the pair is
//! checked from its larger end instead: the forward edge `s -> t` waits in a buffer,
//! bucketed by `t`'s chunk of states, until the pass reads `t`'s row in order, and is
//! met there with `t`'s edges back to smaller states.
//!
//! # Algorithm
//! Each thread takes a range of states `A..B` and walks it by chunks of 2^[`CHUNK_BITS`]
//! states (aligned, so that a target's bucket is its id's high bits). For a chunk it
//! (1) reads the chunk's rows, counting every transition, putting each edge to a larger
//! state `t < B` into `t`'s bucket and keeping each edge to a smaller state; (2) sorts
//! the chunk's own bucket by target with a counting sort; (3) meets, for every `t` of
//! the chunk, the forward edges into `t` with `t`'s edges back: a pair with edges both
//! ways is immediately reversible both ways and its states are merged, and the edges of
//! a pair without are one-way. A thread that does not start at state 0 first reads the
//! rows of the states before `A` whose forward edges can reach `A..B`: with breadth-first
//! layers ([`StateGraph::layer_starts`], checked by [`crate::graph::validate`]: no edge
//! goes more than one layer forward), the layer before `A`'s and `A`'s own; without, all
//! of them. Edges to states never expanded have no edge back and are one-way at once.
//! The merges go to the shared union-find of [`crate::two_cycles`], whose classes do not
//! depend on the order of the merges, so the result is the same whatever the threads.
//!
//! # Complexity
//! Time `O(E + n)` beyond the union-find's finds (each edge is read once, bucketed once
//! and met once; a target with many edges both ways sorts them, `O(d log d)`), plus the
//! warm-up of each thread but the first (up to two layers' rows). Memory: the buffered
//! forward edges, 8 bytes each with 32-bit ids (16 otherwise), at most those of two
//! consecutive layers a thread, and one chunk's edges; all of it is taken from a room
//! in the budget, and the pass gives up (its caller runs the pass by sources instead)
//! when the room runs out.

use crate::graph::{ActionId, StateGraph};
use crate::ids::{AtomicWord, Word};
use crate::one_way::{Part, Room};
use crate::pair_union::{slot, union, PairCounts};
use std::collections::VecDeque;
use std::ops::Range;

/// A chunk holds `1 << CHUNK_BITS` states: a target's place in its chunk fits 16 bits.
/// (Tests use smaller chunks, so that small graphs span many.)
pub(crate) const CHUNK_BITS: u32 = 16;

/// A forward edge waiting in its target's bucket: its source and action, and the
/// target's place in its chunk.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Waiting<W: Word> {
    source: W,
    offset: u16,
    action: ActionId,
}

/// A transition kept for the meeting: the other state and the action.
type Edge<W> = (W, ActionId);

/// The pass gave up: its buffers outgrew their room in the budget (or a chunk had more
/// edges than its 32-bit places can index).
#[derive(Debug)]
pub(crate) struct OutOfRoom;

/// Bytes of `v`'s allocation.
fn bytes_of<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// The buckets of forward edges waiting for their targets' chunks, from the chunk the
/// pass is at onwards, with the bytes they hold taken from `room`.
struct Buckets<'r, W: Word> {
    buckets: VecDeque<Vec<Waiting<W>>>,
    /// The chunk of `buckets[0]`.
    first_chunk: u64,
    /// A chunk is `1 << bits` states.
    bits: u32,
    room: &'r Room,
    /// Bytes taken from the room; false in `fits` once a take failed.
    held: u64,
    fits: bool,
}

impl<'r, W: Word> Buckets<'r, W> {
    fn new(first_state: u64, bits: u32, room: &'r Room) -> Self {
        Buckets {
            buckets: VecDeque::new(),
            first_chunk: first_state >> bits,
            bits,
            room,
            held: 0,
            fits: true,
        }
    }

    /// Puts `source -> target` (by `action`) in `target`'s bucket.
    #[inline]
    fn push(&mut self, target: u64, source: u64, action: ActionId) {
        let k = ((target >> self.bits) - self.first_chunk) as usize;
        if self.buckets.len() <= k {
            self.buckets.resize_with(k + 1, Vec::new);
        }
        let bucket = &mut self.buckets[k];
        if bucket.len() == bucket.capacity() {
            let before = bytes_of(bucket);
            bucket.reserve(bucket.capacity().max(16));
            let grown = bytes_of(bucket) - before;
            self.take(grown);
        }
        self.buckets[k].push(Waiting {
            source: W::from_u64(source),
            offset: (target & ((1 << self.bits) - 1)) as u16,
            action,
        });
    }

    /// Takes `bytes` from the room; when it refuses, the pass gives up at the end of
    /// its chunk (and the bytes, never taken, are not given back).
    fn take(&mut self, bytes: u64) -> bool {
        let taken = bytes == 0 || self.room.take(bytes);
        match taken {
            true => self.held += bytes,
            false => self.fits = false,
        }
        taken
    }

    /// The bucket of the chunk the pass is at, removed; the pass moves to the next chunk.
    fn pop_front(&mut self) -> Vec<Waiting<W>> {
        self.first_chunk += 1;
        self.buckets.pop_front().unwrap_or_default()
    }

    /// Gives back the bytes of a bucket the pass is done with.
    fn release(&mut self, bucket: Vec<Waiting<W>>) {
        let bytes = bytes_of(&bucket).min(self.held);
        self.held -= bytes;
        self.room.give_back(bytes);
    }
}

impl<W: Word> Drop for Buckets<'_, W> {
    fn drop(&mut self) {
        // Whatever is still held (buckets dropped unmet, a refused take) goes back.
        self.room.give_back(self.held);
    }
}

/// One chunk's working arrays, reused from chunk to chunk.
struct ChunkArrays<W: Word> {
    /// The chunk's edges to smaller states, row after row.
    back: Vec<Edge<W>>,
    /// `back_end[k]` is where the `k`-th state's edges in `back` end.
    back_end: Vec<u32>,
    /// The chunk's bucket sorted by target: `starts[k]..starts[k + 1]` are the forward
    /// edges into the chunk's `k`-th state.
    forward: Vec<Edge<W>>,
    starts: Vec<u32>,
    /// The pairs found to go both ways, (smaller, larger), merged at the chunk's end.
    joins: Vec<(W, W)>,
    /// Bytes taken from the room for these arrays (held by the buckets' account).
    counted: u64,
}

impl<W: Word> ChunkArrays<W> {
    fn new() -> Self {
        ChunkArrays {
            back: Vec::new(),
            back_end: Vec::new(),
            forward: Vec::new(),
            starts: Vec::new(),
            joins: Vec::new(),
            counted: 0,
        }
    }

    fn bytes(&self) -> u64 {
        bytes_of(&self.back)
            + bytes_of(&self.back_end)
            + bytes_of(&self.forward)
            + bytes_of(&self.starts)
            + bytes_of(&self.joins)
    }
}

/// What one thread of the pass walks: its states `range`, from which state its warm-up
/// reads (`warm_from`), the expanded states' end, and where its one-way transitions go.
pub(crate) struct Walk<'r, W: Word> {
    pub(crate) range: Range<u64>,
    pub(crate) warm_from: u64,
    pub(crate) expanded: u64,
    /// Chunks of `1 << chunk_bits` states ([`CHUNK_BITS`] but in tests).
    pub(crate) chunk_bits: u32,
    pub(crate) recording: Option<Part<'r, W>>,
}

/// The first state whose forward edges can reach `start` or later: with breadth-first
/// `layers`, the first of the layer before `start`'s; without, 0.
pub(crate) fn warm_from(layers: Option<&[u64]>, start: u64) -> u64 {
    let Some(layers) = layers else { return 0 };
    let layer = layers.partition_point(|&first| first <= start);
    match layer {
        0..=1 => 0,
        l => layers[l - 2],
    }
}

/// The layered pass over one thread's states: merges their two-cycles into `up`, counts,
/// and records the one-way transitions when asked; gives up when its buffers outgrow
/// `room` (or another thread's did).
pub(crate) fn scan_layered<'r, G: StateGraph + ?Sized, A: AtomicWord, W: Word>(
    g: &G,
    up: &[A],
    mut walk: Walk<'r, W>,
    room: &Room,
) -> Result<(PairCounts, Option<Part<'r, W>>), OutOfRoom> {
    let mut counts = PairCounts::default();
    let Range { start, end } = walk.range.clone();
    let bits = walk.chunk_bits;
    let mut buckets = Buckets::<W>::new(start, bits, room);
    warm_up(g, &mut buckets, walk.warm_from..start, start..end);
    let mut arrays = ChunkArrays::<W>::new();
    let mut own_rows = crate::readahead::Ahead::new(g, end, true);
    let mut c0 = start;
    while c0 < end {
        let c1 = end.min(((c0 >> bits) + 1) << bits);
        read_chunk(
            g,
            (c0..c1, &mut own_rows),
            &mut walk,
            &mut buckets,
            &mut arrays,
            &mut counts,
        );
        // The bucket's places count from the chunk's aligned start, where the thread's
        // first chunk may not begin.
        let base = (c0 >> bits) << bits;
        let bucket = buckets.pop_front();
        // The chunk's arrays index its edges with 32-bit places: a chunk with more
        // edges (rows of tens of thousands of edges) is left to the pass by sources.
        if !fits_places(bucket.len()) || !fits_places(arrays.back.len()) {
            return Err(OutOfRoom);
        }
        sort_by_target(&bucket, c1 - base, &mut arrays);
        buckets.release(bucket);
        meet_chunk(
            (c0..c1, c0 - base),
            &mut arrays,
            &mut walk.recording,
            &mut counts,
        );
        merge_joins(up, &mut arrays.joins);
        let now = arrays.bytes();
        if now > arrays.counted && buckets.take(now - arrays.counted) {
            arrays.counted = now;
        }
        // Whatever the buckets hold goes back to the room when they are dropped.
        if !buckets.fits || room.is_exhausted() {
            return Err(OutOfRoom);
        }
        c0 = c1;
    }
    Ok((counts, walk.recording))
}

/// True when `len` edges can be placed by the chunk's 32-bit indices.
fn fits_places(len: usize) -> bool {
    u32::try_from(len).is_ok()
}

/// Reads the rows of `sources` (states before the thread's range) and buckets their
/// forward edges into `targets`, the thread's range, counting nothing.
fn warm_up<G: StateGraph + ?Sized, W: Word>(
    g: &G,
    buckets: &mut Buckets<'_, W>,
    sources: Range<u64>,
    targets: Range<u64>,
) {
    let mut ahead = crate::readahead::Ahead::new(g, sources.end, true);
    for s in sources {
        ahead.at(s);
        for position in g.edge_range(s) {
            let (a, t) = g.edge(position);
            if targets.contains(&t) {
                buckets.push(t, s, a);
            }
        }
    }
}

/// Reads the rows of the chunk `chunk`: counts every transition and the self-loops,
/// buckets the forward edges within the thread's range, records those to states never
/// expanded as one-way, and keeps the edges to smaller states in `arrays.back`.
fn read_chunk<G: StateGraph + ?Sized, W: Word>(
    g: &G,
    (chunk, ahead): (Range<u64>, &mut crate::readahead::Ahead<'_, G>),
    walk: &mut Walk<'_, W>,
    buckets: &mut Buckets<'_, W>,
    arrays: &mut ChunkArrays<W>,
    counts: &mut PairCounts,
) {
    arrays.back.clear();
    arrays.back_end.clear();
    let end = walk.range.end;
    for s in chunk {
        ahead.at(s);
        for position in g.edge_range(s) {
            let (a, t) = g.edge(position);
            *slot(&mut counts.total, usize::from(a)) += 1;
            if t < s {
                arrays.back.push((W::from_u64(t), a));
            } else if t == s {
                counts.self_loops += 1;
                *slot(&mut counts.immediate, usize::from(a)) += 1;
            } else if t < end {
                buckets.push(t, s, a);
            } else if t >= walk.expanded {
                // A state never expanded has no edge back.
                if let Some(part) = walk.recording.as_mut() {
                    part.push(s, t, a);
                }
            }
            // Else `t` is in a later thread's range, which meets the pair.
        }
        arrays.back_end.push(arrays.back.len() as u32);
    }
}

/// Sorts the chunk's `bucket` by target into `arrays.forward`, with `arrays.starts`
/// the start of each of the chunk's `len` states (a counting sort: two passes).
fn sort_by_target<W: Word>(bucket: &[Waiting<W>], len: u64, arrays: &mut ChunkArrays<W>) {
    let len = len as usize;
    arrays.starts.clear();
    arrays.starts.resize(len + 1, 0);
    for w in bucket {
        arrays.starts[usize::from(w.offset) + 1] += 1;
    }
    for k in 0..len {
        arrays.starts[k + 1] += arrays.starts[k];
    }
    arrays.forward.clear();
    arrays.forward.resize(bucket.len(), (W::from_u64(0), 0));
    // `starts[k]` serves as state k's cursor, then is moved back by one state's count.
    for w in bucket {
        let cursor = &mut arrays.starts[usize::from(w.offset)];
        arrays.forward[*cursor as usize] = (w.source, w.action);
        *cursor += 1;
    }
    for k in (1..=len).rev() {
        arrays.starts[k] = arrays.starts[k - 1];
    }
    arrays.starts[0] = 0;
}

/// Meets, for every state `t` of the chunk (`skip` states past its aligned start), its
/// forward edges in with its edges back.
fn meet_chunk<W: Word>(
    (chunk, skip): (Range<u64>, u64),
    arrays: &mut ChunkArrays<W>,
    recording: &mut Option<Part<'_, W>>,
    counts: &mut PairCounts,
) {
    let ChunkArrays {
        back,
        back_end,
        forward,
        starts,
        joins,
        ..
    } = arrays;
    joins.clear();
    let mut back_start = 0usize;
    for (k, t) in chunk.enumerate() {
        let back_row = &mut back[back_start..back_end[k] as usize];
        back_start = back_end[k] as usize;
        let place = k + skip as usize;
        let into = &mut forward[starts[place] as usize..starts[place + 1] as usize];
        if into.is_empty() && back_row.is_empty() {
            continue;
        }
        let mut met = Met {
            t,
            counts: &mut *counts,
            recording: recording.as_mut(),
            joins: &mut *joins,
        };
        if into.len().saturating_mul(back_row.len()) <= SMALL_MEETING {
            met.small(into, back_row);
        } else {
            met.sorted(into, back_row);
        }
    }
}

/// Meetings of at most this many comparisons compare every pair; larger ones sort.
const SMALL_MEETING: usize = 64;

/// What the meeting at one state `t` adds to.
struct Met<'a, 'r, W: Word> {
    t: u64,
    counts: &'a mut PairCounts,
    recording: Option<&'a mut Part<'r, W>>,
    joins: &'a mut Vec<(W, W)>,
}

impl<W: Word> Met<'_, '_, W> {
    /// The edge `s -> t` by `a` (`into`), or `t -> s` by `a` (`back`), with or without
    /// an edge the other way.
    #[inline]
    fn edge(&mut self, (s, a): Edge<W>, into: bool, both_ways: bool) {
        if both_ways {
            *slot(&mut self.counts.immediate, usize::from(a)) += 1;
        } else if let Some(part) = self.recording.as_mut() {
            match into {
                true => part.push(s.to_u64(), self.t, a),
                false => part.push(self.t, s.to_u64(), a),
            }
        }
    }

    /// Compares every forward edge with every edge back.
    fn small(&mut self, into: &[Edge<W>], back: &[Edge<W>]) {
        for &(x, b) in back {
            let both = into.iter().any(|e| e.0 == x);
            self.edge((x, b), false, both);
            if both {
                self.joins.push((x, W::from_u64(self.t)));
            }
        }
        for &(s, a) in into {
            let both = back.iter().any(|e| e.0 == s);
            self.edge((s, a), true, both);
        }
    }

    /// Sorts both sides by the other state and walks them together.
    fn sorted(&mut self, into: &mut [Edge<W>], back: &mut [Edge<W>]) {
        into.sort_unstable_by_key(|e| e.0);
        back.sort_unstable_by_key(|e| e.0);
        let (mut i, mut j) = (0, 0);
        while i < into.len() || j < back.len() {
            let x = match (into.get(i), back.get(j)) {
                (Some(f), Some(b)) => f.0.min(b.0),
                (Some(f), None) => f.0,
                (None, Some(b)) => b.0,
                (None, None) => break,
            };
            let i_end = i + into[i..].iter().take_while(|e| e.0 == x).count();
            let j_end = j + back[j..].iter().take_while(|e| e.0 == x).count();
            let both = i_end > i && j_end > j;
            for &e in &into[i..i_end] {
                self.edge(e, true, both);
            }
            for &e in &back[j..j_end] {
                self.edge(e, false, both);
            }
            if both {
                self.joins.push((x, W::from_u64(self.t)));
            }
            (i, j) = (i_end, j_end);
        }
    }
}

/// Pairs merged this many ahead of their union have their smaller state's word fetched.
const JOIN_AHEAD: usize = 16;

/// Merges the pairs of `joins` in the union-find, fetching the union-find words of the
/// pairs [`JOIN_AHEAD`] ahead (their smaller states lie far back, anywhere in the layer
/// before), so that their cache misses overlap.
fn merge_joins<A: AtomicWord, W: Word>(up: &[A], joins: &mut Vec<(W, W)>) {
    for k in 0..joins.len() {
        if let Some(&(x, _)) = joins.get(k + JOIN_AHEAD) {
            store::prefetch(up, x.to_u64() as usize);
        }
        let (x, t) = joins[k];
        union(up, x.to_u64(), t.to_u64());
    }
    joins.clear();
}

#[cfg(test)]
#[path = "two_cycles_layered_tests.rs"]
mod tests;
