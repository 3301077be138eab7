//! The index of the states a process owns: slot bytes to global id, an
//! open-addressing hash table over an arena of the owned records.
//!
//! Owned states are only those whose fingerprint falls to this process
//! (`xxh3 mod peers`), so the table mixes the fingerprint before using its
//! bits: its low bits are the same for every state here.

use xxhash_rust::xxh3::xxh3_64;

/// Marks an empty table slot.
const EMPTY: u64 = u64::MAX;

/// Owned states by content, with their global ids.
pub struct OwnedIndex {
    slot: usize,
    /// The records, `slot` bytes each, in insertion (id) order.
    records: Vec<u8>,
    /// The global id of each record.
    ids: Vec<u64>,
    /// Local record numbers, or [`EMPTY`]; a power of two long.
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

    #[inline]
    fn home(&self, hash: u64) -> usize {
        let bits = self.table.len().trailing_zeros();
        (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
    }

    #[inline]
    fn record(&self, local: u64) -> &[u8] {
        let at = local as usize * self.slot;
        &self.records[at..at + self.slot]
    }

    /// The global id of `record` (whose fingerprint is `hash`), if held.
    #[inline]
    pub fn get(&self, record: &[u8], hash: u64) -> Option<u64> {
        let mask = self.table.len() - 1;
        let mut at = self.home(hash);
        loop {
            let local = self.table[at];
            if local == EMPTY {
                return None;
            }
            if self.record(local) == record {
                return Some(self.ids[local as usize]);
            }
            at = (at + 1) & mask;
        }
    }

    /// Adds `record` with global id `id`; the caller knows it is absent.
    pub fn insert(&mut self, record: &[u8], hash: u64, id: u64) {
        if (self.ids.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let local = self.ids.len() as u64;
        self.records.extend_from_slice(record);
        self.ids.push(id);
        self.place(hash, local);
    }

    fn place(&mut self, hash: u64, local: u64) {
        let mask = self.table.len() - 1;
        let mut at = self.home(hash);
        while self.table[at] != EMPTY {
            at = (at + 1) & mask;
        }
        self.table[at] = local;
    }

    fn grow(&mut self) {
        self.table = vec![EMPTY; self.table.len() * 2];
        for local in 0..self.ids.len() as u64 {
            let hash = fingerprint(self.record(local));
            self.place(hash, local);
        }
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
            index.insert(rec, fingerprint(rec), u64::from(i) * 7);
        }
        for i in 0..5000u32 {
            let rec = &i.to_le_bytes()[..3];
            assert_eq!(index.get(rec, fingerprint(rec)), Some(u64::from(i) * 7));
        }
        let absent = [0xff, 0xff, 0xff];
        assert_eq!(index.get(&absent, fingerprint(&absent)), None);
    }
}
