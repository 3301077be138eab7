//! The overflow list: entries a packed slot cannot say (a probe sequence
//! past its displacement field, an id past its id field), kept beside the
//! table so that the layout never limits what it holds. The word layout
//! practically never uses it; a compact table near its last load does (room5
//! put entries there), and then every lookup of a new state would ask the
//! list under its lock: a filter of the keys ever put there answers most of
//! them without it.

use super::format::{Entry, PROVISIONAL};
use super::Table;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Bits of the filter: 2 MiB, so that a million entries in the list still
/// leave nine lookups in ten of the keys not in it lock-free.
const FILTER_BITS: u32 = 24;

/// The list and a one-hash filter of the keys put in it since it was last
/// emptied (a bit is never cleared before then, so a clear bit means absent).
pub(super) struct Overflow {
    map: Mutex<HashMap<u64, u64>>,
    /// Allocated at the first entry: most tables never need it.
    filter: OnceLock<Box<[AtomicU64]>>,
}

impl Default for Overflow {
    fn default() -> Self {
        Overflow {
            map: Mutex::new(HashMap::new()),
            filter: OnceLock::new(),
        }
    }
}

impl Overflow {
    /// The filter's word and bit of `key`.
    fn bit(key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - FILTER_BITS);
        ((h / 64) as usize, 1 << (h % 64))
    }

    /// False when `key` was certainly never put in the list.
    fn may_hold(&self, key: u64) -> bool {
        let (w, bit) = Self::bit(key);
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
            (0..1usize << (FILTER_BITS - 6))
                .map(|_| AtomicU64::new(0))
                .collect()
        });
        let (w, bit) = Self::bit(key);
        if let Some(word) = words.get(w) {
            word.fetch_or(bit, Ordering::Release);
        }
    }
}

impl Table {
    /// The id of `key` in the overflow list (none while only claimed).
    #[cold]
    pub(super) fn overflow_get(&self, key: u64) -> Option<u64> {
        if !self.overflow.0.may_hold(key) {
            return None;
        }
        let list = self
            .overflow
            .0
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let &id1 = list.get(&key)?;
        (id1 != PROVISIONAL).then(|| id1 - 1)
    }

    /// For the one writer: the id of `key` in the overflow list, a claim
    /// there given `new_id` (`Err`), or `None` when the list lacks it.
    #[cold]
    pub(super) fn overflow_settle(&self, key: u64, new_id: u64) -> Option<Result<u64, u64>> {
        if !self.overflow.0.may_hold(key) {
            return None;
        }
        let mut list = self
            .overflow
            .0
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let id1 = list.get_mut(&key)?;
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
        let mut list = self
            .overflow
            .0
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        list.insert(entry.0, entry.1);
        self.overflowed.store(list.len(), Ordering::Release);
    }

    /// Entries in the overflow list.
    pub fn overflow_len(&self) -> usize {
        self.overflowed.load(Ordering::Acquire)
    }

    /// Empties the overflow list, returning its entries.
    pub(super) fn take_overflow(&mut self) -> Vec<Entry> {
        *self.overflowed.get_mut() = 0;
        self.overflow.0.filter = OnceLock::new();
        let list = self
            .overflow
            .0
            .map
            .get_mut()
            .unwrap_or_else(|p| p.into_inner());
        let mut entries: Vec<Entry> = std::mem::take(list).into_iter().collect();
        // In key order, so that where entries land never depends on the
        // map's iteration order.
        entries.sort_unstable();
        entries
    }
}
