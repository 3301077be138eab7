//! The overflow list: entries a packed slot cannot say (a probe sequence
//! past its displacement field, an id past its id field), kept beside the
//! table so that the layout never limits what it holds. Robin Hood placement
//! keeps displacements short enough that no layout practically uses it with
//! keys the scrambling spreads (room5 put none there, against 8.7 M with
//! first-come placement); what it does hold is counted in the budget.
//!
//! The list is an open-addressing table of `[key + 1, id + 1]` word pairs,
//! linear probing, doubled past half load: 16 bytes a slot, at most 32 an
//! entry (a `std` hash map took about 45). It has a *share* of the budget,
//! the entries it may hold before the table must grow: [`Overflow::bytes`]
//! counts the list at that size (through its last doubling, when the old
//! and the new arrays are both alive) and its filter, and a table whose list
//! is past its share reports itself full, so that the search grows it or
//! moves on (to the compact layout, or to disk). A merge or a rebuild puts
//! at most their own entries past the share before that check.
//!
//! Lookups of new states would all ask the list under its lock once it has
//! an entry: a one-hash filter of the keys put there since it was last
//! emptied (a bit is never cleared before then, so a clear bit means
//! absent) answers most of them without it.

use super::format::{Entry, PROVISIONAL};
use super::Table;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The fewest entries a list's share holds: about 48 KiB with its filter.
pub(super) const LEAST_SHARE: usize = 1024;

/// Filter bits for each entry of the share: one lookup of a new state in
/// sixteen takes the lock when the list holds its whole share.
const FILTER_BITS_PER_ENTRY: usize = 16;

/// Fewest slots the list allocates at its first entry.
const LEAST_SLOTS: usize = 16;

/// Multiplier of the list's and the filter's hashes (keys are scrambled
/// already, but a key's top bits are the table's home, which the table's own
/// collisions share).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The list and its filter (see the module's docs).
pub(super) struct Overflow {
    list: Mutex<List>,
    /// Allocated at the first entry: most tables never need it.
    filter: OnceLock<Box<[AtomicU64]>>,
    /// Entries the list may hold before its table must grow.
    share: usize,
}

/// Open addressing over `[key + 1, id + 1]` pairs (0 marks an empty slot).
#[derive(Default)]
struct List {
    words: Vec<u64>,
    len: usize,
}

impl List {
    fn slots(&self) -> usize {
        self.words.len() / 2
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn find(&self, key: u64) -> Result<usize, usize> {
        let mask = self.slots() - 1;
        let log2 = self.slots().trailing_zeros();
        let mut i = (key.wrapping_mul(GOLDEN) >> (64 - log2)) as usize;
        loop {
            match self.words[2 * i] {
                0 => return Err(i),
                k if k == key + 1 => return Ok(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn get(&self, key: u64) -> Option<u64> {
        self.slot_of(key).map(|i| self.words[2 * i + 1])
    }

    /// The slot of `key`, when the list holds it.
    fn slot_of(&self, key: u64) -> Option<usize> {
        match self.len {
            0 => None,
            _ => self.find(key).ok(),
        }
    }

    /// Sets `key`'s `id1`, adding the entry when it is new.
    fn insert(&mut self, key: u64, id1: u64) {
        if let Some(i) = self.slot_of(key) {
            self.words[2 * i + 1] = id1;
            return;
        }
        if 2 * (self.len + 1) > self.slots() {
            self.resize((2 * self.slots()).max(LEAST_SLOTS));
        }
        let Err(i) = self.find(key) else {
            unreachable!("the key was looked for above");
        };
        self.len += 1;
        self.words[2 * i] = key + 1;
        self.words[2 * i + 1] = id1;
    }

    /// Moves every entry into a list of `slots` slots.
    fn resize(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.words, vec![0; 2 * slots]);
        for pair in old.chunks_exact(2).filter(|p| p[0] != 0) {
            let Err(i) = self.find(pair[0] - 1) else {
                unreachable!("a list's keys are distinct");
            };
            self.words[2 * i] = pair[0];
            self.words[2 * i + 1] = pair[1];
        }
    }

    /// Every entry, in key order, emptying the list and freeing its memory.
    fn take_sorted(&mut self) -> Vec<Entry> {
        let words = std::mem::take(&mut self.words);
        self.len = 0;
        let mut entries: Vec<Entry> = words
            .chunks_exact(2)
            .filter(|p| p[0] != 0)
            .map(|p| (p[0] - 1, p[1]))
            .collect();
        // In key order, so that where entries land never depends on where
        // they sat in the list.
        entries.sort_unstable();
        entries
    }
}

impl Overflow {
    /// An empty list allowed `share` entries (see the module's docs).
    pub(super) fn with_share(share: usize) -> Overflow {
        Overflow {
            list: Mutex::new(List::default()),
            filter: OnceLock::new(),
            share,
        }
    }

    /// The share of a table that takes `capacity` entries: a 4096th of
    /// them (a 2048th of the table's bytes), and a power of two, so that the
    /// list's last array is exactly twice the share.
    pub(super) fn share_for(capacity: usize) -> usize {
        (capacity / 4096).next_power_of_two().max(LEAST_SHARE)
    }

    /// Bytes a list of `share` entries and its filter take at most: 50 an
    /// entry for a power of two.
    pub(super) fn bytes(share: usize) -> u64 {
        if share == 0 {
            return 0;
        }
        // Doubled past half load: its last array has the slots below, and
        // while it is filled the one before is alive too.
        let slots = (2 * share).next_power_of_two().max(LEAST_SLOTS) as u64;
        slots * 16 + slots * 8 + Overflow::filter_bits(share) as u64 / 8
    }

    /// Bits of the filter of a list of `share` entries (at least a word).
    fn filter_bits(share: usize) -> usize {
        (share * FILTER_BITS_PER_ENTRY).next_power_of_two().max(64)
    }

    /// The entries the list may hold before its table must grow.
    pub(super) fn share(&self) -> usize {
        self.share
    }

    /// The filter's word and bit of `key`.
    fn bit(&self, key: u64) -> (usize, u64) {
        let log2 = Overflow::filter_bits(self.share).trailing_zeros();
        let h = key.wrapping_mul(GOLDEN).rotate_left(32) >> (64 - log2);
        ((h / 64) as usize, 1 << (h % 64))
    }

    /// False when `key` was certainly never put in the list.
    fn may_hold(&self, key: u64) -> bool {
        let (w, bit) = self.bit(key);
        self.filter
            .get()
            .and_then(|words| words.get(w))
            .is_some_and(|word| word.load(Ordering::Acquire) & bit != 0)
    }

    /// Marks `key` in the filter, before the entry goes in the list: a lookup
    /// that misses the entry meanwhile is a lookup beside the merge, which may
    /// miss (the merge settles the successor).
    fn note(&self, key: u64) {
        let words = self.filter.get_or_init(|| {
            (0..Overflow::filter_bits(self.share) / 64)
                .map(|_| AtomicU64::new(0))
                .collect()
        });
        let (w, bit) = self.bit(key);
        if let Some(word) = words.get(w) {
            word.fetch_or(bit, Ordering::Release);
        }
    }

    /// The list, whatever a panicking holder left (it leaves no entry half
    /// written: a pair is written after any resize).
    fn lock(&self) -> std::sync::MutexGuard<'_, List> {
        self.list.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Table {
    /// The id of `key` in the overflow list (none while only claimed).
    #[cold]
    pub(super) fn overflow_get(&self, key: u64) -> Option<u64> {
        if !self.overflow.0.may_hold(key) {
            return None;
        }
        let id1 = self.overflow.0.lock().get(key)?;
        (id1 != PROVISIONAL).then(|| id1 - 1)
    }

    /// For the one writer: the id of `key` in the overflow list, a claim
    /// there given `new_id` (`Err`), or `None` when the list lacks it.
    #[cold]
    pub(super) fn overflow_settle(&self, key: u64, new_id: u64) -> Option<Result<u64, u64>> {
        if !self.overflow.0.may_hold(key) {
            return None;
        }
        let mut list = self.overflow.0.lock();
        let i = list.slot_of(key)?;
        let id1 = &mut list.words[2 * i + 1];
        if *id1 == PROVISIONAL {
            *id1 = new_id + 1;
            return Some(Err(new_id));
        }
        Some(Ok(*id1 - 1))
    }

    /// Adds an entry to the overflow list (the one writer only, or a
    /// table no lookup reads).
    #[cold]
    pub(super) fn overflow_push(&self, entry: Entry) {
        self.overflow.0.note(entry.0);
        let mut list = self.overflow.0.lock();
        list.insert(entry.0, entry.1);
        self.overflowed.store(list.len, Ordering::Release);
    }

    /// Entries in the overflow list.
    pub fn overflow_len(&self) -> usize {
        self.overflowed.load(Ordering::Acquire)
    }

    /// True when the overflow list holds more than its share of the budget:
    /// the table must grow (or the search move on) before it takes more.
    pub(super) fn overflow_past_share(&self) -> bool {
        self.overflow_len() > self.overflow.0.share()
    }

    /// Empties the overflow list, returning its entries in key order.
    pub(super) fn take_overflow(&mut self) -> Vec<Entry> {
        *self.overflowed.get_mut() = 0;
        self.overflow.0.filter = OnceLock::new();
        self.overflow
            .0
            .list
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take_sorted()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn a_share_costs_50_bytes_an_entry_with_its_filter() {
        for capacity in [0, 1000, 1 << 22, 1_593_000_000] {
            let share = Overflow::share_for(capacity);
            assert!(share.is_power_of_two() && share >= LEAST_SHARE);
            assert!(share <= (capacity / 2048).max(LEAST_SHARE), "{capacity}");
            assert_eq!(Overflow::bytes(share), 50 * share as u64, "{share}");
        }
        assert_eq!(Overflow::bytes(0), 0);
    }

    #[test]
    fn the_list_stays_within_its_counted_slots_up_to_its_share() {
        let share = 5000usize;
        let mut list = List::default();
        for k in 0..share as u64 {
            list.insert(k * 7919, k + 1);
        }
        let counted = (2 * share).next_power_of_two();
        assert!(list.slots() <= counted, "{} slots", list.slots());
    }

    proptest! {
        /// The list against a hash map: the same ids for every key put, no
        /// key it was never given, and its entries back in key order.
        #[test]
        fn the_list_agrees_with_a_hash_map(
            ops in prop::collection::vec((prop_oneof![0u64..64, any::<u64>()], any::<u64>()), 0..3000),
            probes in prop::collection::vec(any::<u64>(), 0..200),
        ) {
            let mut list = List::default();
            let mut oracle = HashMap::new();
            for &(key, id1) in &ops {
                let key = key >> 1;
                list.insert(key, id1);
                oracle.insert(key, id1);
                prop_assert_eq!(list.len, oracle.len());
            }
            for (&key, &id1) in &oracle {
                prop_assert_eq!(list.get(key), Some(id1));
            }
            for key in probes {
                let key = key >> 1;
                prop_assert_eq!(list.get(key), oracle.get(&key).copied());
            }
            let mut want: Vec<Entry> = oracle.into_iter().collect();
            want.sort_unstable();
            prop_assert_eq!(list.take_sorted(), want);
            prop_assert_eq!(list.get(3), None);
        }
    }
}
