//! The one-way transitions, recorded by the two-cycle pass: every transition that is not
//! immediately reversible (no edge back, not a self-loop), with its source, target and
//! action, so that the passes that only need those read them from this list instead of
//! reading every row of the store again.
//!
//! # Why
//! An immediately reversible transition joins two states of one two-cycle class, hence
//! of one hyperstate. So the edges between classes (the graph the component search
//! walks) and the critical actions (the HSG's edges) are all one-way transitions. In
//! games whose moves are mostly reversible they are a few percent of the transitions
//! (room4: 5.6 M of 108 M; room5: 271 M of 5.2 G), and the two passes over every row
//! that found them (three reads of the rows, on room5 each a read of 20 GB of edges from
//! disk) become passes over this list.
//!
//! # Memory
//! One entry (two ids and an action: 12 bytes with 32-bit ids, 24 otherwise) per one-way
//! transition, in chunks, taken from a room in bytes shared by the threads. When the
//! room runs out (a game whose moves are mostly one way, where the list would be nearly
//! as long as the rows), recording stops, the list is dropped and the passes over the
//! rows run instead: the result is the same either way.

use crate::graph::ActionId;
use crate::ids::Word;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// One transition that is not immediately reversible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OneWay<W: Word> {
    pub(crate) source: W,
    pub(crate) target: W,
    pub(crate) action: ActionId,
}

/// Entries in the first chunk of a part; later chunks double up to [`LARGEST_CHUNK`].
const FIRST_CHUNK: usize = 1 << 10;

/// Entries in the largest chunk (12 MiB with 32-bit ids): what a part may hold beyond its
/// entries is below one chunk.
const LARGEST_CHUNK: usize = 1 << 20;

/// The room the parts of one list share, in bytes, and whether it ran out.
pub(crate) struct Room {
    bytes_left: AtomicU64,
    exhausted: AtomicBool,
}

impl Room {
    /// A room of `bytes`.
    pub(crate) fn new(bytes: u64) -> Room {
        Room {
            bytes_left: AtomicU64::new(bytes),
            exhausted: AtomicBool::new(false),
        }
    }

    /// Takes `bytes` from the room, or marks it exhausted and returns false.
    pub(crate) fn take(&self, bytes: u64) -> bool {
        let taken = self
            .bytes_left
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(bytes))
            .is_ok();
        if !taken {
            self.exhausted.store(true, Relaxed);
        }
        taken
    }

    /// Gives `bytes` taken earlier back to the room.
    pub(crate) fn give_back(&self, bytes: u64) {
        self.bytes_left.fetch_add(bytes, Relaxed);
    }

    /// True once some part could not grow: the list is incomplete.
    pub(crate) fn is_exhausted(&self) -> bool {
        self.exhausted.load(Relaxed)
    }
}

/// The one-way transitions of one range of sources, in chunks.
pub(crate) struct Part<'r, W: Word> {
    chunks: Vec<Vec<OneWay<W>>>,
    room: &'r Room,
    /// False once the room ran out: nothing more is recorded.
    recording: bool,
}

impl<'r, W: Word> Part<'r, W> {
    /// An empty part drawing on `room`.
    pub(crate) fn new(room: &'r Room) -> Part<'r, W> {
        Part {
            chunks: Vec::new(),
            room,
            recording: true,
        }
    }

    /// Records `source -> target` by `action`.
    #[inline]
    pub(crate) fn push(&mut self, source: u64, target: u64, action: ActionId) {
        if !self.recording {
            return;
        }
        let full = self.chunks.last().is_none_or(|c| c.len() == c.capacity());
        if full && !self.grow() {
            return;
        }
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.push(OneWay {
                source: W::from_u64(source),
                target: W::from_u64(target),
                action,
            });
        }
    }

    /// Adds a chunk twice the last one (up to [`LARGEST_CHUNK`]), or stops recording
    /// and frees the chunks when the room cannot give it (or another part found it out).
    #[cold]
    fn grow(&mut self) -> bool {
        let entries = self
            .chunks
            .last()
            .map_or(FIRST_CHUNK, |c| (2 * c.capacity()).min(LARGEST_CHUNK));
        let bytes = (entries * std::mem::size_of::<OneWay<W>>()) as u64;
        if self.room.is_exhausted() || !self.room.take(bytes) {
            self.recording = false;
            self.chunks = Vec::new();
            return false;
        }
        self.chunks.push(Vec::with_capacity(entries));
        true
    }
}

/// The one-way transitions of a graph, in parts of consecutive sources (in source order
/// from part to part; within a source, in no particular order).
pub(crate) struct OneWayList<W: Word> {
    parts: Vec<Vec<Vec<OneWay<W>>>>,
    len: u64,
}

impl<W: Word> OneWayList<W> {
    /// The list of `parts` (in range order), or None when the room ran out and some part
    /// is incomplete.
    pub(crate) fn gather(parts: Vec<Part<'_, W>>, room: &Room) -> Option<OneWayList<W>> {
        if room.is_exhausted() {
            return None;
        }
        let parts: Vec<Vec<Vec<OneWay<W>>>> = parts.into_iter().map(|p| p.chunks).collect();
        let len = parts.iter().flatten().map(|c| c.len() as u64).sum();
        Some(OneWayList { parts, len })
    }

    /// Number of one-way transitions.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Bytes the list holds (its chunks' capacity).
    pub(crate) fn bytes(&self) -> u64 {
        let entries: usize = self.parts.iter().flatten().map(Vec::capacity).sum();
        (entries * std::mem::size_of::<OneWay<W>>()) as u64
    }

    /// Runs `work` on every part at once, one thread a part, and returns the results in
    /// part order.
    pub(crate) fn map_parts<T: Send>(
        &self,
        work: impl Fn(&mut dyn Iterator<Item = &OneWay<W>>) -> T + Sync,
    ) -> Vec<T> {
        let run = |part: &Vec<Vec<OneWay<W>>>| work(&mut part.iter().flatten());
        match self.parts.len() {
            0 => Vec::new(),
            1 => vec![run(&self.parts[0])],
            _ => std::thread::scope(|scope| {
                let run = &run;
                let handles: Vec<_> = self.parts[1..]
                    .iter()
                    .map(|part| scope.spawn(move || run(part)))
                    .collect();
                let mut results = vec![run(&self.parts[0])];
                results.extend(
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
                );
                results
            }),
        }
    }
}

/// Entries fetched ahead of their use by [`for_each_fetched`].
const FETCH_AHEAD: usize = 16;

/// Calls `f` on every entry of `entries` in order, having called `fetch` on each
/// [`FETCH_AHEAD`] entries earlier: the passes over the list look up per-state arrays at
/// each entry's source and target, at random, and a prefetch issued that far ahead lets
/// those cache misses overlap rather than follow one another.
pub(crate) fn for_each_fetched<W: Word>(
    entries: &mut dyn Iterator<Item = &OneWay<W>>,
    fetch: impl Fn(&OneWay<W>),
    mut f: impl FnMut(&OneWay<W>),
) {
    let mut window = std::collections::VecDeque::with_capacity(FETCH_AHEAD + 1);
    for e in entries {
        fetch(e);
        window.push_back(*e);
        if window.len() > FETCH_AHEAD {
            if let Some(first) = window.pop_front() {
                f(&first);
            }
        }
    }
    for e in &window {
        f(e);
    }
}

/// What became of the one-way list: `hsg analyze` tells it, since it decides whether the
/// passes after the components read the list or every row of the store again (on a
/// store larger than the page cache, two reads of it from disk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OneWayFate {
    /// Not recorded: the per-state arrays are in scratch files, the budget leaves no room.
    NoRoom,
    /// Recorded and used: `transitions` entries in `bytes` of memory.
    Kept {
        /// One-way transitions in the list.
        transitions: u64,
        /// Bytes the list holds.
        bytes: u64,
    },
    /// Recording stopped when the list outgrew its room of `room` bytes.
    Outgrew {
        /// The room it had, in bytes.
        room: u64,
    },
    /// Recorded (`bytes`), then dropped to leave the search over `classes` two-cycle
    /// classes its room.
    LeftTooLittle {
        /// Bytes the list held.
        bytes: u64,
        /// The classes the search walks.
        classes: u64,
    },
    /// Not used: the two-cycle classes were too many for the contraction to pay, and
    /// the components were searched over the states.
    NotContracted,
}

impl std::fmt::Display for OneWayFate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use model::numbers::grouped;
        let mib = |bytes: &u64| grouped(bytes.div_ceil(1 << 20));
        let reread = "the classes' rows and the HSG's edges are read from the rows again";
        match self {
            OneWayFate::NoRoom => write!(f, "one-way list: not recorded (the per-state arrays are in scratch files); {reread}"),
            OneWayFate::Kept { transitions, bytes } => write!(
                f,
                "one-way list: {} transitions in {} MiB, within the budget; the classes' rows and the HSG's edges come from it",
                grouped(*transitions),
                mib(bytes)
            ),
            OneWayFate::Outgrew { room } => write!(
                f,
                "one-way list: dropped, it outgrew its room of {} MiB in the budget; {reread}",
                mib(room)
            ),
            OneWayFate::LeftTooLittle { bytes, classes } => write!(
                f,
                "one-way list: dropped ({} MiB), it left too little of the budget for the search over {} classes; {reread}",
                mib(bytes),
                grouped(*classes)
            ),
            OneWayFate::NotContracted => write!(f, "one-way list: not used (the components were searched over the states, the two-cycle classes being too many)"),
        }
    }
}

/// A list of one-way transitions with 32-bit or 64-bit ids (those of the graph's
/// per-state arrays).
pub(crate) enum OneWays {
    /// Ids below 2^32.
    Narrow(OneWayList<u32>),
    /// Wider ids.
    Wide(OneWayList<u64>),
}

impl From<OneWayList<u32>> for OneWays {
    fn from(list: OneWayList<u32>) -> OneWays {
        OneWays::Narrow(list)
    }
}

impl From<OneWayList<u64>> for OneWays {
    fn from(list: OneWayList<u64>) -> OneWays {
        OneWays::Wide(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_keeps_what_the_room_allows() {
        let room = Room::new(u64::MAX);
        let mut part = Part::<u32>::new(&room);
        for i in 0..5000u64 {
            part.push(i, i + 1, (i % 3) as u16);
        }
        let list = OneWayList::gather(vec![part], &room).expect("room enough");
        assert_eq!(list.len(), 5000);
        let sums = list.map_parts(|it| it.map(|e| u64::from(e.source)).sum::<u64>());
        assert_eq!(sums, vec![4999 * 5000 / 2]);
    }

    #[test]
    fn a_room_too_small_drops_the_list() {
        let room = Room::new(100);
        let mut part = Part::<u32>::new(&room);
        part.push(0, 1, 0);
        let other = Part::<u32>::new(&room);
        assert!(OneWayList::gather(vec![part, other], &room).is_none());
    }
}
