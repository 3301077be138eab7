//! The overflow list: entries a packed slot cannot say (a probe sequence
//! past its displacement field, an id past its id field), kept beside the
//! table so that the layout never limits what it holds. Practically never
//! used: it is there so that no input can make the table wrong.

use super::format::{Entry, PROVISIONAL};
use super::Table;
use std::sync::atomic::Ordering;

impl Table {
    /// The id of `key` in the overflow list (none while only claimed).
    #[cold]
    pub(super) fn overflow_get(&self, key: u64) -> Option<u64> {
        let list = self.overflow.0.lock().unwrap_or_else(|p| p.into_inner());
        let &id1 = list.get(&key)?;
        (id1 != PROVISIONAL).then(|| id1 - 1)
    }

    /// For the one writer: the id of `key` in the overflow list, a claim
    /// there given `new_id` (`Err`), or `None` when the list lacks it.
    #[cold]
    pub(super) fn overflow_settle(&self, key: u64, new_id: u64) -> Option<Result<u64, u64>> {
        let mut list = self.overflow.0.lock().unwrap_or_else(|p| p.into_inner());
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
        let mut list = self.overflow.0.lock().unwrap_or_else(|p| p.into_inner());
        list.insert(entry.0, entry.1);
        self.overflowed.store(list.len(), Ordering::Release);
    }

    /// Empties the overflow list, returning its entries.
    pub(super) fn take_overflow(&mut self) -> Vec<Entry> {
        *self.overflowed.get_mut() = 0;
        let list = self.overflow.0.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut entries: Vec<Entry> = std::mem::take(list).into_iter().collect();
        // In key order, so that where entries land never depends on the
        // map's iteration order.
        entries.sort_unstable();
        entries
    }
}
