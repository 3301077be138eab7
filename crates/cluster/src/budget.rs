//! How `--mem` is shared, in one process, between its index of owned states
//! and the buffers of a round, and the measure of what they occupy.
//!
//! A fixed share is set aside for what the process costs whatever its level.
//! Of the rest, the index may take three quarters, counting the transient
//! of its next doubling (the old table beside the new one); past that it
//! moves to disk ([`crate::spill`]), where it costs the run readers' buffers
//! only. A round takes what the index leaves: each process expands its
//! parents until its share of the round would outgrow that room, at the
//! model's cost per parent and per successor below, which covers the
//! successor on both sides of the exchange (its row, the message as sent,
//! in transit and as received, its candidate at the owner, its answer). The
//! measure counts the explorer's own buffers, not the transport's copies,
//! so it stays below the budget by about those. Ownership by
//! hash spreads every round's successors evenly, so a process receives
//! about what it sends.
//!
//! A round's room never falls below [`LEAST_ROUND_ROOM`], whatever the index
//! takes: a round costs four exchange steps and, once the index is on disk,
//! a pass over every run of it, so rounds of a few successors made a layer
//! thousands of rounds and a run quadratic in its states (room3 to depth 19
//! under `--mem 64K`: 32,900 rounds, a parent a round, 72 s on one process
//! and minutes on two). A budget too small to hold that floor beside the
//! index is exceeded by it, and the measure reported says by how much.

/// A round's bytes per expanded parent: its id, the end of its row and its
/// outcome.
pub const PER_PARENT: u64 = 8 + 8 + 4;

/// What a process costs whatever its level, set aside from the budget (a
/// quarter of a budget below four times as much): the binary, timely's
/// threads and connections, the part's file buffers, the frontier's block
/// (a process exploring the eight-puzzle in a 3 MiB budget peaks at 15 MiB
/// of RSS).
const FIXED: u64 = 16 << 20;

/// The least room a round's buffers get (about a thousand successors of a
/// small slot), even where the index leaves less of the budget.
pub const LEAST_ROUND_ROOM: u64 = 256 << 10;

/// What a process may occupy, and the sizes derived from it.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// `--mem`: bytes of index and round buffers; `None` for no bound.
    limit: Option<u64>,
    /// The model's bytes per successor of a round.
    per_successor: u64,
}

impl Budget {
    /// The budget of a process whose states are `width`-byte slots.
    pub fn new(limit: Option<u64>, width: usize, chance: bool) -> Budget {
        let w = width as u64;
        // The row's action and target (and probability), the successor as
        // sent and as received (slot, parent, index, place), its candidate
        // at the owner (slot, key, fingerprint, order and the sort's tuple),
        // its answer built and copied into the message, and 48 bytes for
        // what each new state adds (its group, its key at the ranker, its
        // rank, its place among the fresh). Then two more copies of the
        // successor's message for the transport: timely holds a step's
        // pieces serialized in its buffers and deserialized at the receiver
        // (without them, room4's processes peaked 100 MiB over the buffers
        // counted here).
        let message = w + 16;
        let per_successor = 10 + if chance { 8 } else { 0 } + 4 * message + (w + 60) + 24 + 48;
        Budget {
            limit: limit.map(|b| b - (b / 4).min(FIXED)),
            per_successor,
        }
    }

    /// The bytes the index and a round may share (the budget but its fixed
    /// share), if any.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// The most the index may reserve before it moves to disk.
    pub fn index_limit(&self) -> u64 {
        self.limit.map_or(u64::MAX, |b| b / 4 * 3)
    }

    /// The bytes a round's buffers may take beside `reserved` bytes of
    /// index: what the budget leaves, but never less than
    /// [`LEAST_ROUND_ROOM`].
    pub fn round_room(&self, reserved: u64) -> u64 {
        self.limit.map_or(u64::MAX, |b| {
            b.saturating_sub(reserved).max(LEAST_ROUND_ROOM)
        })
    }

    /// The successors a round may hold beside `reserved` bytes of index.
    pub fn round_successors(&self, reserved: u64) -> u64 {
        self.round_room(reserved) / self.per_successor
    }

    /// The model's cost of a round's window of parents and successors.
    pub fn window_cost(&self, parents: usize, successors: usize) -> u64 {
        parents as u64 * PER_PARENT + successors as u64 * self.per_successor
    }

    /// The buffer of each reader and writer of the index's runs on disk: a
    /// fortieth of the shared budget, between 4 KiB and 1 MiB, so that the
    /// readers of a lookup take at most a quarter of it above 160 KiB.
    pub fn spill_buffer(&self) -> usize {
        self.limit
            .map_or(1 << 20, |b| (b / 40).clamp(4 << 10, 1 << 20) as usize)
    }
}

/// Bytes a slice's elements occupy.
pub fn bytes<T>(v: &[T]) -> u64 {
    std::mem::size_of_val(v) as u64
}

/// Bytes of a set of buffers, one per process.
pub fn nested<T>(v: &[Vec<T>]) -> u64 {
    v.iter().map(|b| bytes(b)).sum::<u64>() + bytes(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_leaves_a_quarter_to_the_rounds() {
        let b = Budget::new(Some(80 << 20), 4, false);
        assert_eq!(b.limit(), Some(64 << 20), "16 MiB set aside");
        assert_eq!(b.index_limit(), 48 << 20);
        assert!(b.round_room(b.index_limit()) >= 16 << 20);
        assert_eq!(b.spill_buffer(), 1 << 20);
        let small = Budget::new(Some(64 << 10), 4, false);
        assert_eq!(small.limit(), Some(48 << 10), "a quarter set aside");
        assert_eq!(Budget::new(Some(1), 4, false).spill_buffer(), 4 << 10);
        let none = Budget::new(None, 4, false);
        assert_eq!(none.round_room(1 << 40), u64::MAX);
    }
}
