//! The index of the states a process owns: slot bytes to global id, an
//! open-addressing hash table over an arena of the owned records.
//!
//! Owned states are only those whose fingerprint falls to this process
//! (`xxh3 mod peers`), so the table places a state by the fingerprint's high
//! 32 bits, which the owner does not depend on. A table entry holds those
//! bits beside the record's local number, so that a probe compares records
//! only when the fingerprints agree, and the table grows without rehashing.

use crate::ClusterError;
use xxhash_rust::xxh3::xxh3_64;

/// Marks an empty table slot.
const EMPTY: u64 = u64::MAX;
/// The low bits of an entry: a local record number (the all-ones value is
/// reserved, since it would make [`EMPTY`]).
const LOCAL: u64 = u32::MAX as u64;

/// Owned states by content, with their global ids.
pub struct OwnedIndex {
    slot: usize,
    /// The records, `slot` bytes each, in insertion (id) order.
    records: Vec<u8>,
    /// The global id of each record.
    ids: Vec<u64>,
    /// `fingerprint >> 32 << 32 | local record number`, or [`EMPTY`]; a
    /// power of two long.
    table: Vec<u64>,
}

/// The fingerprint that decides a state's owner and its place in the table.
#[inline]
pub fn fingerprint(record: &[u8]) -> u64 {
    xxh3_64(record)
}

impl OwnedIndex {
    /// An empty index of `slot`-byte records.
    pub fn new(slot: usize) -> OwnedIndex {
        OwnedIndex {
            slot,
            records: Vec::new(),
            ids: Vec::new(),
            table: vec![EMPTY; 1 << 10],
        }
    }

    /// Bytes of memory the index occupies.
    pub fn bytes(&self) -> u64 {
        (self.records.capacity() + 8 * self.ids.capacity() + 8 * self.table.len()) as u64
    }

    /// Bytes the index occupies at its next doubling, when the old table and
    /// the new one, twice as long, are both held.
    pub fn bytes_at_next_doubling(&self) -> u64 {
        self.bytes() + 16 * self.table.len() as u64
    }

    /// Bytes the index may occupy while `new` more states are inserted: their
    /// slots and ids, and the table as the last doubling they cause leaves
    /// it, beside the old one.
    pub fn bytes_after(&self, new: u64) -> u64 {
        let len = self.ids.len() as u64 + new;
        let now = self.table.len() as u64;
        let mut table = now;
        while len * 2 > table {
            table *= 2;
        }
        let table_bytes = if table > now { 12 * table } else { 8 * table };
        self.bytes() - 8 * now + table_bytes + new * (self.slot as u64 + 8)
    }

    #[inline]
    fn home(&self, high: u64) -> usize {
        ((u128::from(high) * self.table.len() as u128) >> 32) as usize
    }

    #[inline]
    fn record(&self, local: u64) -> &[u8] {
        let at = local as usize * self.slot;
        &self.records[at..at + self.slot]
    }

    /// States held.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when no state is held.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Empties the index into its states in the order of the runs on disk
    /// (fingerprint, then content). The table is sorted in place, so moving
    /// a large index to disk takes no memory beside it: its entries already
    /// hold the fingerprint's high bits, and only entries whose high bits
    /// tie compute the whole fingerprint again.
    pub fn into_run_order(self) -> RunOrder {
        let mut order = self.table;
        order.retain(|&e| e != EMPTY);
        let (slot, records) = (self.slot, &self.records);
        let rec = |e: u64| {
            let at = (e & LOCAL) as usize * slot;
            &records[at..at + slot]
        };
        order.sort_unstable_by(|&a, &b| {
            (a >> 32).cmp(&(b >> 32)).then_with(|| {
                let (ra, rb) = (rec(a), rec(b));
                fingerprint(ra)
                    .cmp(&fingerprint(rb))
                    .then_with(|| ra.cmp(rb))
            })
        });
        RunOrder {
            slot,
            records: self.records,
            ids: self.ids,
            order,
        }
    }

    /// Starts loading the table slot where a probe for `hash` begins, so that
    /// the cache misses of several probes overlap.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        store::prefetch(&self.table, self.home(hash >> 32));
    }

    /// The global id of `record` (whose fingerprint is `hash`), if held.
    #[inline]
    pub fn get(&self, record: &[u8], hash: u64) -> Option<u64> {
        let mask = self.table.len() - 1;
        let high = hash >> 32;
        let mut at = self.home(high);
        loop {
            let entry = self.table[at];
            if entry == EMPTY {
                return None;
            }
            let local = entry & LOCAL;
            if entry >> 32 == high && self.record(local) == record {
                return Some(self.ids[local as usize]);
            }
            at = (at + 1) & mask;
        }
    }

    /// Adds `record` with global id `id`; the caller knows it is absent.
    pub fn insert(&mut self, record: &[u8], hash: u64, id: u64) -> Result<(), ClusterError> {
        if self.ids.len() as u64 >= LOCAL {
            return Err(ClusterError::Unsupported(format!(
                "more than {LOCAL} states owned by one process: use more processes"
            )));
        }
        if (self.ids.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let local = self.ids.len() as u64;
        self.records.extend_from_slice(record);
        self.ids.push(id);
        self.place(hash >> 32 << 32 | local);
        Ok(())
    }

    fn place(&mut self, entry: u64) {
        let mask = self.table.len() - 1;
        let mut at = self.home(entry >> 32);
        while self.table[at] != EMPTY {
            at = (at + 1) & mask;
        }
        self.table[at] = entry;
    }

    fn grow(&mut self) {
        let doubled = vec![EMPTY; self.table.len() * 2];
        let old = std::mem::replace(&mut self.table, doubled);
        for entry in old.into_iter().filter(|&e| e != EMPTY) {
            self.place(entry);
        }
    }
}

/// An emptied index's states in run order (see [`OwnedIndex::into_run_order`]).
pub struct RunOrder {
    slot: usize,
    records: Vec<u8>,
    ids: Vec<u64>,
    /// Table entries (high bits and local number), sorted.
    order: Vec<u64>,
}

impl RunOrder {
    /// The states as `(fingerprint, slot, id)`, in run order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, &[u8], u64)> + '_ {
        self.order.iter().map(|&e| {
            let local = (e & LOCAL) as usize;
            let record = &self.records[local * self.slot..(local + 1) * self.slot];
            (fingerprint(record), record, self.ids[local])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let mut index = OwnedIndex::new(3);
        for i in 0..5000u32 {
            let rec = &i.to_le_bytes()[..3];
            assert_eq!(index.get(rec, fingerprint(rec)), None);
            index
                .insert(rec, fingerprint(rec), u64::from(i) * 7)
                .unwrap();
        }
        for i in 0..5000u32 {
            let rec = &i.to_le_bytes()[..3];
            assert_eq!(index.get(rec, fingerprint(rec)), Some(u64::from(i) * 7));
        }
        let absent = [0xff, 0xff, 0xff];
        assert_eq!(index.get(&absent, fingerprint(&absent)), None);
        let run = index.into_run_order();
        let entries: Vec<(u64, &[u8], u64)> = run.entries().collect();
        assert_eq!(entries.len(), 5000);
        assert!(entries.windows(2).all(|w| crate::spill::order(
            (w[0].0, w[0].1),
            (w[1].0, w[1].1)
        )
        .is_lt()));
        assert!(entries
            .iter()
            .all(|&(h, r, id)| h == fingerprint(r) && id % 7 == 0));
    }
}
