//! The on-disk run of hyperstate: state records in memory-mapped segment
//! files, the transition log, BFS layers, terminal outcomes, the in-edge CSR
//! and a fingerprint index, described by a checksummed, atomically replaced
//! `MANIFEST` (and mirrored in a sled database that only the writer opens).
//!
//! The store knows bytes and ids only, never a game. [`RunWriter`] appends a
//! run with large buffered writes and cheap checkpoints, and resumes from the
//! last checkpoint after a crash; [`Run`] maps a (possibly still running)
//! run read-only after verifying every header, length and block checksum.
//! The byte-level format is documented in `docs/store-format.md`.

#![warn(missing_docs)]

// The reader hands out `&[u64]` views of little-endian files without
// converting them, which is only correct on little-endian machines.
#[cfg(not(target_endian = "little"))]
compile_error!("the store maps little-endian u64 files directly and needs a little-endian target");

pub mod allocator;
mod append;
mod bits;
mod bounds;
mod data_files;
mod deferred;
mod deferred_files;
mod derived;
pub mod durability;
mod error;
mod file_array;
mod file_map;
mod flight;
mod header;
mod huge_array;
mod huge_words;
mod identity;
pub mod layout;
mod manifest;
mod mapped;
mod out_edges;
mod packed;
mod packed_file;
#[cfg(feature = "sync-observer")]
pub mod power_loss;
mod reader;
mod structure;
mod syncer;
mod verify;
mod word;
mod writer;

#[cfg(test)]
mod tests_forged;
#[cfg(test)]
mod tests_open;
#[cfg(test)]
mod tests_run;

pub use append::{sum_path, AppendFile, Commit};
pub use bits::{BitTable, BitTableWriter};
pub use error::StoreError;
pub use file_array::{FileArray, PlainWord};
pub use file_map::FileMap;
pub use header::{header, Header, BLOCK, FORMAT_VERSION, HEADER_LEN};
pub use huge_array::HugeArray;
pub use huge_words::{atomic_u32, atomic_u64, prefetch, AtomicWords, Words};
pub use identity::RunIdentity;
pub use layout::lock as lock_dir;
pub use manifest::{Files, Manifest, Progress, RunStatus, Tails};
pub use out_edges::OutEdges;
pub use reader::Run;
pub use word::{append_short, le_word};
pub use writer::{Checkpoint, OpenMode, RunWriter};

pub use model::{ActionId, OutcomeId, StateId};

/// The largest state id a packed edge can hold (ids are 48-bit on disk).
pub const MAX_STATE_ID: StateId = (1 << 48) - 1;

const ID_MASK: u64 = MAX_STATE_ID;

/// The outcome recorded in `terminals` for a state the explorer chose not to expand
/// (an HSG depth limit held it back). Such a state is not terminal: its future is
/// unknown, like that of a state past a BFS depth limit.
pub const CUT_OUTCOME: OutcomeId = OutcomeId::MAX;

/// One stored transition. Packed on disk as u64: target (low 48 bits) | action << 48.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The action taken, an index into the identity's action labels.
    pub action: ActionId,
    /// The state reached.
    pub target: StateId,
}

impl Edge {
    /// The on-disk word of this edge; the target must not exceed [`MAX_STATE_ID`].
    #[inline]
    pub fn pack(self) -> u64 {
        (self.target & ID_MASK) | (u64::from(self.action) << 48)
    }

    /// Decodes an on-disk word.
    #[inline]
    pub fn unpack(word: u64) -> Edge {
        Edge {
            action: (word >> 48) as ActionId,
            target: word & ID_MASK,
        }
    }
}

/// In-transition: packed the same way as [`Edge`] with `source` in place of `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InEdge {
    /// The action taken in `source`.
    pub action: ActionId,
    /// The state the transition leaves.
    pub source: StateId,
}

impl InEdge {
    /// The on-disk word of this in-edge.
    #[inline]
    pub fn pack(self) -> u64 {
        (self.source & ID_MASK) | (u64::from(self.action) << 48)
    }

    /// Decodes an on-disk word.
    #[inline]
    pub fn unpack(word: u64) -> InEdge {
        InEdge {
            action: (word >> 48) as ActionId,
            source: word & ID_MASK,
        }
    }
}

/// Low bits of a stored edge word that hold its action: enough for every
/// action label of the run (none when it has at most one).
pub fn action_bits(identity: &RunIdentity) -> u32 {
    packed::bits_for(identity.action_labels.len().saturating_sub(1) as u64)
}

/// Packs a terminal entry: state id (low 48 bits) | outcome << 48.
#[inline]
fn pack_terminal(id: StateId, outcome: OutcomeId) -> u64 {
    (id & ID_MASK) | (u64::from(outcome) << 48)
}

/// Decodes a terminal entry into (state id, outcome).
#[inline]
fn unpack_terminal(word: u64) -> (StateId, OutcomeId) {
    (word & ID_MASK, (word >> 48) as OutcomeId)
}

/// Packs a probability as stored in `trans.prob`: num << 32 | den.
#[inline]
fn pack_prob(num: u32, den: u32) -> u64 {
    (u64::from(num) << 32) | u64::from(den)
}

/// Decodes a `trans.prob` word into (num, den).
#[inline]
fn unpack_prob(word: u64) -> (u32, u32) {
    ((word >> 32) as u32, word as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_pack_and_unpack() {
        let edge = Edge {
            action: 65535,
            target: MAX_STATE_ID,
        };
        assert_eq!(Edge::unpack(edge.pack()), edge);
        let in_edge = InEdge {
            action: 7,
            source: 12345,
        };
        assert_eq!(InEdge::unpack(in_edge.pack()), in_edge);
        assert_eq!(unpack_terminal(pack_terminal(99, 3)), (99, 3));
        assert_eq!(unpack_prob(pack_prob(1, 6)), (1, 6));
    }
}
