//! How a state's bytes become a table tag, and how a tag match is confirmed.
//!
//! States of at most eight bytes are their own tag (exact, no second look).
//! Wider states are tagged with their xxh3 fingerprint; their records are
//! kept in an arena so that a fingerprint match is confirmed by comparing
//! bytes. The arena covers the ids the table holds, so it lives exactly as
//! long as the table's entries do.
//!
//! The arena is a reservation of atomic words indexed by id, like the table:
//! the merge writes a new state's record *before* the table publishes its id,
//! so a lookup on another thread that finds the id also finds the record.

use crate::table::Format;
use std::sync::atomic::Ordering;
use store::{AtomicWords, StoreError};
use xxhash_rust::xxh3::xxh3_64;

/// Tags states and confirms tag matches.
///
/// Read at every successor by every thread, so aligned to a pair of cache
/// lines that no field the merge writes can share.
#[repr(align(128))]
pub struct Keys {
    slot: usize,
    narrow: bool,
    /// Words per record in the arena.
    words: usize,
    arena: AtomicWords,
    arena_base: u64,
}

impl Keys {
    /// Keys for records of `slot` bytes, with an arena for up to `states`
    /// records (address space only until written).
    pub fn new(slot: usize, states: usize) -> Result<Keys, StoreError> {
        let narrow = slot <= 8;
        let words = slot.div_ceil(8);
        let arena = match narrow {
            true => AtomicWords::reserve(0)?,
            false => AtomicWords::reserve(states * words)?,
        };
        Ok(Keys {
            slot,
            narrow,
            words,
            arena,
            arena_base: 0,
        })
    }

    /// Bytes the arena spends per state for records of `slot` bytes.
    pub fn bytes_per_state(slot: usize) -> u64 {
        if slot <= 8 {
            0
        } else {
            slot.div_ceil(8) as u64 * 8
        }
    }

    /// The visited table's slot layout while every state is in memory for
    /// records of `slot` bytes: packed when short enough (see
    /// [`Format::packed_for`]), which also makes the tag the whole state.
    pub fn table_format(slot: usize) -> Format {
        Format::packed_for(slot).unwrap_or(Format::Wide)
    }

    /// The layout for this run's records while every state is in memory:
    /// [`Keys::table_format`], or with `compact` the compact layout where
    /// the records take it (see [`Format::compact_for`]).
    pub fn memory_format(&self, compact: bool) -> Format {
        match compact {
            true => Format::compact_for(self.slot).unwrap_or(Format::Wide),
            false => Keys::table_format(self.slot),
        }
    }

    /// True when this run's records may use the compact layout.
    pub fn takes_compact(&self) -> bool {
        Format::compact_for(self.slot).is_some_and(|f| f != Keys::table_format(self.slot))
    }

    /// True when a tag match is an exact match (states of at most 8 bytes).
    pub fn exact(&self) -> bool {
        self.narrow
    }

    /// Bytes the arena spends per state held in the table.
    pub fn arena_bytes_per_state(&self) -> u64 {
        Keys::bytes_per_state(self.slot)
    }

    /// The tag of a record (slot bytes).
    #[inline]
    pub fn tag(&self, record: &[u8]) -> u64 {
        if self.narrow {
            store::le_word(record)
        } else {
            xxh3_64(record)
        }
    }

    /// The arena words of state `id`, when the arena covers it.
    #[inline]
    fn words_of(&self, id: u64) -> Option<&[std::sync::atomic::AtomicU64]> {
        let index = usize::try_from(id.checked_sub(self.arena_base)?).ok()?;
        let at = index.checked_mul(self.words)?;
        self.arena.as_atomic().get(at..at + self.words)
    }

    /// True when the state `id` held in the arena equals `record`. Narrow
    /// tags are exact, so they need no look.
    #[inline]
    pub fn same(&self, id: u64, record: &[u8]) -> bool {
        if self.narrow {
            return true;
        }
        let Some(words) = self.words_of(id) else {
            return false;
        };
        record
            .chunks(8)
            .zip(words)
            .all(|(bytes, w)| w.load(Ordering::Relaxed) == store::le_word(bytes))
    }

    /// Writes the record of state `id` (wide keys only). Call it before the
    /// table publishes `id`; only the thread that inserts may call it.
    /// Returns false when the arena does not reach `id`, which the caller must
    /// treat as an error: a state whose record is missing could never be
    /// confirmed, and would be stored twice.
    #[inline]
    pub fn put(&self, id: u64, record: &[u8]) -> bool {
        if self.narrow {
            return true;
        }
        let Some(words) = self.words_of(id) else {
            return false;
        };
        for (bytes, w) in record.chunks(8).zip(words) {
            w.store(store::le_word(bytes), Ordering::Relaxed);
        }
        true
    }

    /// States the arena holds from its base: [`Keys::put`] succeeds for ids
    /// `base..base + capacity` (any id for narrow keys).
    pub fn capacity(&self) -> usize {
        match self.narrow {
            true => usize::MAX,
            false => self.arena.as_atomic().len() / self.words,
        }
    }

    /// Forgets every record: the arena now starts at id `base`.
    pub fn reset(&mut self, base: u64) {
        self.arena_base = base;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_tags_are_exact_and_wide_tags_are_confirmed() {
        let narrow = Keys::new(5, 100).unwrap();
        assert_ne!(narrow.tag(&[1, 2, 3, 4, 5]), narrow.tag(&[1, 2, 3, 4, 6]));
        assert!(narrow.same(7, &[0; 5]));

        let mut wide = Keys::new(10, 4).unwrap();
        wide.reset(100);
        assert!(wide.put(100, &[1; 10]));
        assert!(wide.put(101, &[2; 10]));
        assert!(wide.same(101, &[2; 10]));
        assert!(!wide.same(100, &[2; 10]));
        assert!(!wide.same(105, &[2; 10]));
        assert!(!wide.same(99, &[2; 10]));
        assert!(!wide.put(104, &[3; 10]), "past the arena");
        assert!(wide.put(103, &[3; 10]));
    }
}
