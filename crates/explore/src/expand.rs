//! Expansion of a run of parent states into their successors, the part of
//! the search that runs on every core.
//!
//! A [`Part`] is a contiguous range of parents. Expanding it calls the game,
//! puts each successor into its slot, computes its tag, and looks it up in
//! the visited table, which is only read here. Successors the table does not
//! know stay unresolved; the sequential merge in [`crate::bfs`] gives them ids
//! in parent order, which keeps ids independent of the thread count.

use crate::keys::Keys;
use crate::slot::Slot;
use crate::table::{Lookup, Table, CLAIMED};
use crate::watch::Hold;
use crate::ExploreError;
use model::{Game, Successors};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// How many successors ahead a lookup prefetches the index.
pub const LOOKAHEAD: usize = 24;

/// Parts a chunk is cut into for each thread (see [`Pieces`]).
pub const PARTS_PER_THREAD: usize = 4;

/// Length of the ring of keys a lookup keeps for the successors it has
/// prefetched: a power of two past [`LOOKAHEAD`].
const KEYS_AHEAD: usize = LOOKAHEAD.next_power_of_two();

// A key must outlive the lookahead, between its prefetch and its probe.
const _: () = assert!(KEYS_AHEAD > LOOKAHEAD);

/// Successors looked up between two looks at the stop flag.
const STOP_CHECK: usize = 1024;

/// Resolves the successors the table knows, and claims the slots of those
/// it misses when the table allows it (see
/// [`crate::table::Table::lookup_or_claim_key`]), prefetching ahead so that the
/// cache misses of many probes overlap. Stops early once `stop` is set: the
/// rest stay unresolved, which is always allowed.
fn lookup(part: &mut Part, table: &Table, keys: &Keys, width: usize, stop: Option<&AtomicBool>) {
    let len = part.len();
    part.ids.resize(len, UNRESOLVED);
    // The keys of the successors prefetched ahead, by index modulo the
    // ring's length: a key is computed once, for its prefetch, and not again
    // for its probe. Unlike the merge's `KeysAhead`, the ring needs no check
    // that an entry is the successor's: a lookup prefetches every successor,
    // where the merge skips those the lookups resolved.
    let mut ahead = [0u64; KEYS_AHEAD];
    let key_of = |part: &Part, s: usize| table.key(part.tag(s, keys, width));
    for (s, key) in ahead.iter_mut().enumerate().take(LOOKAHEAD.min(len)) {
        *key = key_of(part, s);
        table.prefetch_key(*key);
    }
    for s in 0..len {
        if s % STOP_CHECK == 0 && stop.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return;
        }
        let key = ahead[s % KEYS_AHEAD];
        if s + LOOKAHEAD < len {
            let next = key_of(part, s + LOOKAHEAD);
            ahead[(s + LOOKAHEAD) % KEYS_AHEAD] = next;
            table.prefetch_key(next);
        }
        let record = &part.records[s * width..(s + 1) * width];
        match table.lookup_or_claim_key(key, |id| keys.same(id, record)) {
            Lookup::Id(id) => part.ids[s] = id,
            Lookup::Claimed(slot) => part.ids[s] = CLAIMED | slot as u64,
            Lookup::Missing => {}
        }
    }
}

/// Marks a successor whose id the read-only lookup did not find.
pub const UNRESOLVED: u64 = u64::MAX;

/// What became of one parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParentInfo {
    /// A terminal state with this outcome; it has no successors.
    Terminal(u16),
    /// An expanded state whose successors end at this index of the part.
    Expanded(u32),
}

/// The expanded successors of a contiguous range of parents.
///
/// Aligned to a pair of cache lines, so that the parts (and the scratch
/// buffers beside them) that threads fill side by side never share a line:
/// every push writes a vector's length, and a shared line would move between
/// the cores at every successor.
#[derive(Default)]
#[repr(align(128))]
pub struct Part {
    /// Id of the first parent.
    pub first: u64,
    /// Per parent.
    pub infos: Vec<ParentInfo>,
    /// Per successor: its tag in the visited table, when computing it is
    /// worth keeping (see [`Part::tag`]); empty for exact keys, whose tag is
    /// the record itself.
    pub tags: Vec<u64>,
    /// Per successor: its id, [`CLAIMED`] with the slot its lookup claimed,
    /// or [`UNRESOLVED`]; empty until lookups run (see [`Part::id`]).
    pub ids: Vec<u64>,
    /// Per successor: the action that reaches it.
    pub actions: Vec<u16>,
    /// Per successor: its probability, for games with chance.
    pub probs: Vec<(u32, u32)>,
    /// Per successor: its slot, `slot` bytes each.
    pub records: Vec<u8>,
}

impl Part {
    /// Number of successors.
    #[inline]
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// The tag of successor `s`. A state of at most eight bytes is its own
    /// tag, read again from its `width`-byte record (a load or two), where keeping
    /// it would write and read eight bytes more a successor.
    #[inline(always)]
    pub fn tag(&self, s: usize, keys: &Keys, width: usize) -> u64 {
        match self.tags.get(s) {
            Some(&tag) => tag,
            None => keys.tag(&self.records[s * width..(s + 1) * width]),
        }
    }

    /// The id of successor `s` as far as lookups found it: [`UNRESOLVED`]
    /// when none ran.
    #[inline]
    pub fn id(&self, s: usize) -> u64 {
        self.ids.get(s).copied().unwrap_or(UNRESOLVED)
    }

    fn clear(&mut self, first: u64) {
        self.first = first;
        self.infos.clear();
        self.tags.clear();
        self.ids.clear();
        self.actions.clear();
        self.probs.clear();
        self.records.clear();
    }
}

/// Expands parents for one run.
///
/// Read at every parent by the threads expanding beside the merge, so it
/// keeps its cache lines to itself (see [`Part`]) rather than share one with
/// fields the merge writes.
#[repr(align(128))]
pub struct Expander<'g> {
    /// The game.
    pub game: &'g dyn Game,
    /// The slot layout.
    pub slot: Slot,
    /// Whether to keep probabilities.
    pub chance: bool,
}

impl Expander<'_> {
    /// Expands the parents whose slots are concatenated in `parents`, the
    /// first having id `first`, leaving every successor unresolved.
    /// Parents that `hold` holds back are recorded with [`store::CUT_OUTCOME`].
    pub fn expand(
        &self,
        first: u64,
        parents: &[u8],
        keys: &Keys,
        hold: Hold<'_>,
        part: &mut Part,
        scratch: &mut Successors,
    ) -> Result<(), ExploreError> {
        part.clear(first);
        let width = self.slot.width();
        for (k, parent) in parents.chunks_exact(width).enumerate() {
            let state = self.slot.decode(parent);
            if let Some(outcome) = self.game.terminal(state) {
                part.infos.push(ParentInfo::Terminal(outcome));
                continue;
            }
            if hold.is_held(first + k as u64) {
                part.infos.push(ParentInfo::Terminal(store::CUT_OUTCOME));
                continue;
            }
            scratch.clear();
            self.game.successors(state, scratch);
            for (mv, next) in scratch.iter() {
                let at = part.records.len();
                self.slot.encode(next, &mut part.records)?;
                part.actions.push(mv.action);
                if self.chance {
                    part.probs.push((mv.prob.num, mv.prob.den));
                }
                if !keys.exact() {
                    // A fixed-width record is the state itself: its tag is
                    // read from the game's buffer, written long before,
                    // rather than from the record stored just now, a load
                    // that would wait for that store.
                    let record = match self.slot.is_variable() {
                        true => &part.records[at..],
                        false => next,
                    };
                    part.tags.push(keys.tag(record));
                }
            }
            part.infos
                .push(ParentInfo::Expanded(part.actions.len() as u32));
        }
        Ok(())
    }
}

/// One chunk of parents to expand: which, with what, and where to.
pub struct Chunk<'a> {
    /// Id of the first parent.
    pub first: u64,
    /// The parents' slots, concatenated.
    pub parents: &'a [u8],
    /// The visited index to look successors up in, if any.
    pub table: Option<&'a Table>,
    /// Set when the lookups should stop: the merge running meanwhile is
    /// done, and the thread that ran it now expands what is left.
    pub stop: Option<&'a AtomicBool>,
    /// Which parents the watcher holds back.
    pub hold: Hold<'a>,
}

/// A chunk's parts, each a contiguous run of its parents, handed out in
/// order to whichever thread asks next.
///
/// A chunk is cut into more parts than there are threads so that no thread
/// waits long for another at the chunk's end: beside a merge, the merging
/// thread expands whatever parts are left when its merge is done, instead
/// of waiting for the other threads to expand them.
pub struct Pieces<'p> {
    queue: Mutex<std::iter::Enumerate<std::slice::IterMut<'p, (Part, Successors)>>>,
    per: usize,
    count: usize,
}

impl<'p> Pieces<'p> {
    /// Cuts `count` parents into `parts.len()` parts of equal length.
    pub fn new(parts: &'p mut [(Part, Successors)], count: usize) -> Pieces<'p> {
        let per = count.div_ceil(parts.len().max(1)).max(1);
        Pieces {
            queue: Mutex::new(parts.iter_mut().enumerate()),
            per,
            count,
        }
    }

    /// The next part nobody has taken, with the range of parents it covers.
    fn take(&self) -> Option<(std::ops::Range<usize>, &'p mut (Part, Successors))> {
        // A poisoned queue means a thread panicked while taking a part, and
        // that panic is re-raised when the threads are joined.
        let (i, part) = self.queue.lock().ok()?.next()?;
        let lo = (i * self.per).min(self.count);
        Some((lo..((i + 1) * self.per).min(self.count), part))
    }
}

impl Expander<'_> {
    /// Expands parts of `chunk` taken from `pieces` until none is left,
    /// then, with a table, looks up the successors of the parts this thread
    /// expanded, until `stop` is set. Every part is expanded whatever the
    /// flag; the lookups are optional, since the merge resolves whatever
    /// they leave.
    pub fn expand_taken(
        &self,
        keys: &Keys,
        chunk: &Chunk<'_>,
        pieces: &Pieces<'_>,
    ) -> Result<(), ExploreError> {
        let width = self.slot.width();
        let mut mine = Vec::new();
        while let Some((range, (part, succ))) = pieces.take() {
            let slice = &chunk.parents[range.start * width..range.end * width];
            let at = chunk.first + range.start as u64;
            self.expand(at, slice, keys, chunk.hold, part, succ)?;
            mine.push(part);
        }
        if let Some(table) = chunk.table {
            for part in mine {
                if chunk.stop.is_some_and(|f| f.load(Ordering::Relaxed)) {
                    break;
                }
                lookup(part, table, keys, width, chunk.stop);
            }
        }
        Ok(())
    }

    /// Expands a chunk into `parts` on `threads` threads. The calling thread
    /// first runs `beside` (the merge of the chunk before, when this one is
    /// expanded beside it), then takes parts like the others; returns what
    /// `beside` returned and how the expansion went.
    pub fn expand_chunk<R>(
        &self,
        keys: &Keys,
        chunk: &Chunk<'_>,
        parts: &mut [(Part, Successors)],
        threads: usize,
        beside: impl FnOnce() -> R,
    ) -> (R, Result<(), ExploreError>) {
        let count = chunk.parents.len() / self.slot.width();
        let pieces = Pieces::new(parts, count);
        std::thread::scope(|scope| {
            // A thread the system refuses ends the spawning: the parts are handed out to
            // whoever asks, so the threads started (and this one) still expand the whole
            // chunk, and the error then stops the search at a checkpoint.
            let mut spawned = Ok(());
            let workers: Vec<_> = (1..threads)
                .map_while(|_| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, || self.expand_taken(keys, chunk, &pieces))
                        .map_err(|source| spawned = Err(ExploreError::Threads { threads, source }))
                        .ok()
                })
                .collect();
            let done = beside();
            let mut expanded = spawned.and(self.expand_taken(keys, chunk, &pieces));
            // A panic in a worker is a bug; it is re-raised here rather than
            // turned into an error that would hide it.
            for worker in workers {
                let theirs = worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                expanded = expanded.and(theirs);
            }
            (done, expanded)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::on_lines_of_its_own as alone;

    #[test]
    fn what_threads_fill_or_read_side_by_side_keeps_its_cache_lines() {
        assert!(alone::<Part>());
        assert!(alone::<(Part, Successors)>());
        assert!(alone::<Expander<'static>>());
        assert!(alone::<Keys>());
    }

    #[test]
    fn pieces_hand_out_every_parent_once_in_order() {
        for parts in 1..6 {
            for count in 0..20 {
                let mut buffers: Vec<(Part, Successors)> = Vec::new();
                buffers.resize_with(parts, Default::default);
                let pieces = Pieces::new(&mut buffers, count);
                let mut covered = Vec::new();
                while let Some((range, _)) = pieces.take() {
                    covered.extend(range);
                }
                assert_eq!(covered, (0..count).collect::<Vec<_>>(), "{parts} parts");
            }
        }
    }
}
