//! The in-memory visited index: an open-addressing hash table from a state's
//! key to its id.
//!
//! Each slot is two words, `[tag, id + 1]`, with `id + 1 == 0` marking an
//! empty slot. For states of at most eight bytes the tag *is* the state, so a
//! tag match is an exact match. For wider states the tag is the state's xxh3
//! fingerprint and a match is confirmed by comparing the records (see
//! [`crate::keys`]), so distinct states are never merged on a collision.
//!
//! Linear probing keeps a probe within one or two cache lines; the table
//! never deletes, so no tombstones are needed.

/// Largest share of slots in use before the table must grow.
const MAX_LOAD_NUM: usize = 7;
const MAX_LOAD_DEN: usize = 10;

use store::{StoreError, Words};

/// Bytes taken by one slot.
pub const SLOT_BYTES: u64 = 16;

/// An open-addressing map from tags to state ids, in huge-page memory.
pub struct Table {
    words: Words,
    slots: usize,
    shift: u32,
    len: usize,
}

/// Scrambles a tag into a well-spread hash (the murmur3 finaliser): narrow
/// tags are raw state bytes, whose low bits alone hash badly.
#[inline]
pub fn mix(tag: u64) -> u64 {
    let mut h = tag;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl Table {
    /// A table with room for at least `states` entries below the load limit.
    pub fn with_capacity(states: usize) -> Result<Table, StoreError> {
        let wanted = (states.max(16) * MAX_LOAD_DEN).div_ceil(MAX_LOAD_NUM);
        let slots = wanted.next_power_of_two();
        Ok(Table {
            words: Words::zeroed(2 * slots)?,
            slots,
            shift: 64 - slots.trailing_zeros(),
            len: 0,
        })
    }

    #[inline]
    fn slot(&self, i: usize) -> (u64, u64) {
        let w = self.words.as_slice();
        (w[2 * i], w[2 * i + 1])
    }

    #[inline]
    fn set(&mut self, i: usize, tag: u64, id1: u64) {
        let w = self.words.as_mut_slice();
        w[2 * i] = tag;
        w[2 * i + 1] = id1;
    }

    /// Bytes a table sized for `states` entries allocates.
    pub fn bytes_for(states: usize) -> u64 {
        let wanted = (states.max(16) * MAX_LOAD_DEN).div_ceil(MAX_LOAD_NUM);
        wanted.next_power_of_two() as u64 * SLOT_BYTES
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Entries the table can take before it must grow.
    pub fn capacity(&self) -> usize {
        self.slots * MAX_LOAD_NUM / MAX_LOAD_DEN
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> u64 {
        self.slots as u64 * SLOT_BYTES
    }

    /// Forgets every entry, keeping the allocation.
    pub fn clear(&mut self) {
        self.words.as_mut_slice().fill(0);
        self.len = 0;
    }

    #[inline]
    fn home(&self, tag: u64) -> usize {
        (mix(tag) >> self.shift) as usize
    }

    /// Starts loading the home slot of `tag`, so that a probe soon after
    /// finds its cache line present.
    #[inline]
    pub fn prefetch(&self, tag: u64) {
        self.words.prefetch(2 * self.home(tag));
    }

    /// The id stored under `tag` for which `same(id)` holds.
    #[inline]
    pub fn get(&self, tag: u64, mut same: impl FnMut(u64) -> bool) -> Option<u64> {
        let mask = self.slots - 1;
        let mut i = self.home(tag);
        loop {
            let (t, id1) = self.slot(i);
            if id1 == 0 {
                return None;
            }
            if t == tag && same(id1 - 1) {
                return Some(id1 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id under `tag` confirmed by `same`, or inserts `new_id` and returns
    /// `Err(new_id)`. The caller must keep the load below capacity.
    #[inline]
    pub fn get_or_insert(
        &mut self,
        tag: u64,
        new_id: u64,
        mut same: impl FnMut(u64) -> bool,
    ) -> Result<u64, u64> {
        let mask = self.slots - 1;
        let mut i = self.home(tag);
        loop {
            let (t, id1) = self.slot(i);
            if id1 == 0 {
                self.set(i, tag, new_id + 1);
                self.len += 1;
                return Err(new_id);
            }
            if t == tag && same(id1 - 1) {
                return Ok(id1 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts an entry known to be absent (rebuilding from the store).
    #[inline]
    pub fn insert_absent(&mut self, tag: u64, id: u64) {
        let mask = self.slots - 1;
        let mut i = self.home(tag);
        while self.slot(i).1 != 0 {
            i = (i + 1) & mask;
        }
        self.set(i, tag, id + 1);
        self.len += 1;
    }

    /// A table with room for `states` entries holding the same entries.
    pub fn grown_to(&self, states: usize) -> Result<Table, StoreError> {
        let mut bigger = Table::with_capacity(states.max(self.len))?;
        for pair in self.words.as_slice().chunks_exact(2) {
            if pair[1] != 0 {
                bigger.insert_absent(pair[0], pair[1] - 1);
            }
        }
        Ok(bigger)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_stored_and_grows() {
        let mut t = Table::with_capacity(4).unwrap();
        for k in 0..1000u64 {
            if t.len() >= t.capacity() {
                t = t.grown_to(t.capacity() * 2).unwrap();
            }
            assert_eq!(t.get_or_insert(k * 7, k, |_| true), Err(k));
        }
        for k in 0..1000u64 {
            assert_eq!(t.get(k * 7, |_| true), Some(k));
            assert_eq!(t.get_or_insert(k * 7, 5000, |_| true), Ok(k));
        }
        assert_eq!(t.get(3, |_| true), None);
        assert_eq!(t.len(), 1000);
    }

    #[test]
    fn confirmation_separates_equal_tags() {
        // Two different states with one fingerprint: the confirmation callback
        // decides, so both get their own entry.
        let mut t = Table::with_capacity(8).unwrap();
        assert_eq!(t.get_or_insert(42, 0, |id| id == 99), Err(0));
        assert_eq!(t.get_or_insert(42, 1, |id| id == 1), Err(1));
        assert_eq!(t.get(42, |id| id == 1), Some(1));
        assert_eq!(t.get(42, |id| id == 0), Some(0));
    }
}
