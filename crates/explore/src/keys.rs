//! How a state's bytes become a table tag, and how a tag match is confirmed.
//!
//! States of at most eight bytes are their own tag (exact, no second look).
//! Wider states are tagged with their xxh3 fingerprint; their records are
//! kept in an arena so that a fingerprint match is confirmed by comparing
//! bytes. The arena covers the ids the table holds, so it lives exactly as
//! long as the table's entries do.

use xxhash_rust::xxh3::xxh3_64;

/// Tags states and confirms tag matches.
pub struct Keys {
    slot: usize,
    narrow: bool,
    arena: Vec<u8>,
    arena_base: u64,
}

impl Keys {
    /// Keys for records of `slot` bytes.
    pub fn new(slot: usize) -> Keys {
        Keys {
            slot,
            narrow: slot <= 8,
            arena: Vec::new(),
            arena_base: 0,
        }
    }

    /// True when a tag match is an exact match (states of at most 8 bytes).
    pub fn exact(&self) -> bool {
        self.narrow
    }

    /// Bytes the arena spends per state held in the table.
    pub fn arena_bytes_per_state(&self) -> u64 {
        if self.narrow {
            0
        } else {
            self.slot as u64
        }
    }

    /// The tag of a record (slot bytes).
    #[inline]
    pub fn tag(&self, record: &[u8]) -> u64 {
        if self.narrow {
            let mut word = [0u8; 8];
            word[..record.len()].copy_from_slice(record);
            u64::from_le_bytes(word)
        } else {
            xxh3_64(record)
        }
    }

    /// True when the state `id` held in the arena equals `record`. Narrow
    /// tags are exact, so they need no look.
    #[inline]
    pub fn same(&self, id: u64, record: &[u8]) -> bool {
        if self.narrow {
            return true;
        }
        let at = ((id - self.arena_base) as usize) * self.slot;
        self.arena.get(at..at + self.slot) == Some(record)
    }

    /// Remembers the record of the next id (wide keys only).
    #[inline]
    pub fn remember(&mut self, record: &[u8]) {
        if !self.narrow {
            self.arena.extend_from_slice(record);
        }
    }

    /// Forgets every record and restarts the arena at `base`.
    pub fn reset(&mut self, base: u64) {
        self.arena.clear();
        self.arena_base = base;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_tags_are_exact_and_wide_tags_are_confirmed() {
        let narrow = Keys::new(5);
        assert_ne!(narrow.tag(&[1, 2, 3, 4, 5]), narrow.tag(&[1, 2, 3, 4, 6]));
        assert!(narrow.same(7, &[0; 5]));

        let mut wide = Keys::new(10);
        wide.reset(100);
        wide.remember(&[1; 10]);
        wide.remember(&[2; 10]);
        assert!(wide.same(101, &[2; 10]));
        assert!(!wide.same(100, &[2; 10]));
        assert!(!wide.same(105, &[2; 10]));
    }
}
