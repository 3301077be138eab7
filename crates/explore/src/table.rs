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
//! never deletes, so no tombstones are needed. A slot's home is the top bits
//! of its mixed tag, so doubling the table sends home `h` to `2h` or
//! `2h + 1`: the order of the entries is kept, and the table doubles in place
//! inside its reservation, moving bands of entries up on every thread (see
//! [`double`]), instead of a rehash into fresh memory.
//!
//! One thread inserts while others look up: the words are atomics, an insert
//! writes the tag before it publishes the id (release), and a lookup reads
//! the id before the tag (acquire). A lookup racing an insert may miss the
//! new entry, which only leaves that successor for the merge to resolve.

mod double;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use store::{AtomicWords, StoreError};

/// Largest share of slots in use before the table must grow.
const MAX_LOAD_NUM: usize = 7;
const MAX_LOAD_DEN: usize = 10;

/// Words in a 64-byte cache line.
const WORDS_PER_LINE: usize = 8;

/// Bytes taken by one slot.
pub const SLOT_BYTES: u64 = 16;

/// An open-addressing map from tags to state ids, in huge-page memory.
///
/// The fields every probe reads (`words`, `slots`, `shift`) sit on cache
/// lines no other data shares: the table is aligned to two lines (the
/// adjacent-line prefetch pairs them), and the counters that change, `len`
/// at every insert, are padded onto lines of their own. Otherwise each insert
/// by the merge would evict the line from the cores looking states up beside
/// it, costing them a transfer between cores at every probe.
#[repr(align(128))]
pub struct Table {
    words: AtomicWords,
    slots: usize,
    shift: u32,
    len: Padded<AtomicUsize>,
    /// Words of the reservation known to have memory (see [`Table::prefault`]).
    faulted: Padded<AtomicUsize>,
}

/// A value alone on its pair of cache lines.
#[repr(align(128))]
struct Padded<T>(T);

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

/// Slots (a power of two) for `states` entries below the load limit.
fn slots_for(states: usize) -> usize {
    (states.max(16) * MAX_LOAD_DEN)
        .div_ceil(MAX_LOAD_NUM)
        .next_power_of_two()
}

impl Table {
    /// A table with room for at least `states` entries below the load limit.
    pub fn with_capacity(states: usize) -> Result<Table, StoreError> {
        Table::with_room(states, states)
    }

    /// A table with room for `states` entries that can grow in place to
    /// `most` entries. Only the pages of the part in use get memory.
    pub fn with_room(states: usize, most: usize) -> Result<Table, StoreError> {
        let slots = slots_for(states);
        let reserved = slots_for(most).max(slots);
        Ok(Table {
            words: AtomicWords::reserve(2 * reserved)?,
            slots,
            shift: 64 - slots.trailing_zeros(),
            len: Padded(AtomicUsize::new(0)),
            faulted: Padded(AtomicUsize::new(0)),
        })
    }

    #[inline]
    fn atoms(&self) -> &[AtomicU64] {
        self.words.as_atomic()
    }

    /// Bytes a table sized for `states` entries uses.
    pub fn bytes_for(states: usize) -> u64 {
        slots_for(states) as u64 * SLOT_BYTES
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len.0.load(Ordering::Relaxed)
    }

    /// Entries the table can take before it must grow.
    pub fn capacity(&self) -> usize {
        self.slots * MAX_LOAD_NUM / MAX_LOAD_DEN
    }

    /// Entries the table can take once grown to its whole reservation.
    pub fn reserved_capacity(&self) -> usize {
        self.words.len() / 2 * MAX_LOAD_NUM / MAX_LOAD_DEN
    }

    /// Bytes in use (the reservation beyond them has no memory yet).
    pub fn bytes(&self) -> u64 {
        self.slots as u64 * SLOT_BYTES
    }

    /// Forgets every entry, keeping the allocation.
    pub fn clear(&mut self) {
        let used = 2 * self.slots;
        self.words.as_mut_slice()[..used].fill(0);
        *self.len.0.get_mut() = 0;
    }

    #[inline]
    fn home(&self, tag: u64) -> usize {
        (mix(tag) >> self.shift) as usize
    }

    /// Starts loading the home slot of `tag` and the cache line after it,
    /// so that a probe soon after finds its lines present. A probe reads on
    /// past its home until it meets the tag or an empty slot, and at the
    /// loads the table runs at, many probes cross into the next line: with
    /// only the home line prefetched, each of those waits for a whole miss
    /// (on room4's table, 32 ns a probe against 27 ns with both lines).
    #[inline]
    pub fn prefetch(&self, tag: u64) {
        let home = 2 * self.home(tag);
        store::prefetch(self.atoms(), home);
        store::prefetch(self.atoms(), home + WORDS_PER_LINE);
    }

    /// The id stored under `tag` for which `same(id)` holds. Safe to call
    /// while another thread inserts.
    #[inline]
    pub fn get(&self, tag: u64, mut same: impl FnMut(u64) -> bool) -> Option<u64> {
        let mask = self.slots - 1;
        let w = self.atoms();
        let mut i = self.home(tag);
        loop {
            let id1 = w[2 * i + 1].load(Ordering::Acquire);
            if id1 == 0 {
                return None;
            }
            if w[2 * i].load(Ordering::Relaxed) == tag && same(id1 - 1) {
                return Some(id1 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// The id under `tag` confirmed by `same`, or inserts `new_id` and returns
    /// `Err(new_id)`. The caller must keep the load below capacity, and only
    /// one thread may insert at a time (others may [`Table::get`]).
    #[inline]
    pub fn get_or_insert(
        &self,
        tag: u64,
        new_id: u64,
        mut same: impl FnMut(u64) -> bool,
    ) -> Result<u64, u64> {
        let mask = self.slots - 1;
        let w = self.atoms();
        let mut i = self.home(tag);
        loop {
            let id1 = w[2 * i + 1].load(Ordering::Relaxed);
            if id1 == 0 {
                w[2 * i].store(tag, Ordering::Relaxed);
                w[2 * i + 1].store(new_id + 1, Ordering::Release);
                // One writer at a time, so a plain increment is enough and
                // cheaper than a locked add.
                let len = self.len.0.load(Ordering::Relaxed);
                self.len.0.store(len + 1, Ordering::Relaxed);
                return Err(new_id);
            }
            if w[2 * i].load(Ordering::Relaxed) == tag && same(id1 - 1) {
                return Ok(id1 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts an entry known to be absent (rebuilding from the store, or
    /// a placeholder of the disk phase), with the same one-writer rule as
    /// [`Table::get_or_insert`].
    #[inline]
    pub fn insert_absent(&self, tag: u64, id: u64) {
        let _ = self.get_or_insert(tag, id, |_| false);
    }

    /// Grows to room for `states` entries on `threads` threads: in place
    /// while the reservation allows (see [`double`]), else into a larger
    /// reservation.
    pub fn grow_to(&mut self, states: usize, threads: usize) -> Result<(), StoreError> {
        self.grow_with(states, threads, double::MIN_BAND)
    }

    /// [`Table::grow_to`], spreading bands of at least `min_band` slots.
    fn grow_with(
        &mut self,
        states: usize,
        threads: usize,
        min_band: usize,
    ) -> Result<(), StoreError> {
        let wanted = slots_for(states.max(self.len()));
        if wanted <= self.slots {
            return Ok(());
        }
        if 2 * wanted > self.words.len() {
            let mut bigger = Table::with_capacity(states.max(self.len()))?;
            let used = 2 * self.slots;
            let (mask, shift) = (bigger.slots - 1, bigger.shift);
            let to = bigger.words.as_mut_slice();
            for pair in self.words.as_mut_slice()[..used].chunks_exact(2) {
                if pair[1] != 0 {
                    place(to, (mix(pair[0]) >> shift) as usize, mask, pair[0], pair[1]);
                }
            }
            *bigger.len.0.get_mut() = self.len();
            *self = bigger;
            return Ok(());
        }
        while self.slots < wanted {
            self.double_in_place(threads, min_band);
        }
        Ok(())
    }

    /// Words the table will use once grown to room for `states` entries
    /// (bounded by the reservation).
    pub fn words_for(&self, states: usize) -> usize {
        (2 * slots_for(states)).min(self.words.len())
    }

    /// Gives memory to the words `..end` of the reservation that the table
    /// does not use yet. The kernel's first touch of a page (zeroing it, and
    /// on a virtual machine often far more) costs as much as a doubling's own
    /// work, so it is worth spreading too. Any number of threads may call
    /// this at once: each claims a huge page's worth of words at a time, so
    /// they share the work. Only words no lookup reads are written, and with
    /// zeros, which is what they hold already.
    pub fn prefault(&self, end: usize) {
        const PAGE_WORDS: usize = 4096 / 8;
        const CLAIM_WORDS: usize = 512 * PAGE_WORDS;
        let w = self.atoms();
        let end = end.min(w.len());
        let mut seen = self.faulted.0.load(Ordering::Relaxed);
        loop {
            let at = seen.max(2 * self.slots);
            if at >= end {
                return;
            }
            let claim_end = (at + CLAIM_WORDS).min(end);
            if let Err(now) = self.faulted.0.compare_exchange_weak(
                seen,
                claim_end,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                seen = now;
                continue;
            }
            seen = claim_end;
            for page in (at..claim_end).step_by(PAGE_WORDS) {
                // A no-op for the data, but a write, so the page gets memory.
                let _ = w[page].compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
    }
}

/// Puts `[tag, id1]` in the first empty slot from `home` on.
#[inline]
fn place(w: &mut [u64], home: usize, mask: usize, tag: u64, id1: u64) {
    let mut i = home;
    while w[2 * i + 1] != 0 {
        i = (i + 1) & mask;
    }
    w[2 * i] = tag;
    w[2 * i + 1] = id1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_stored_and_grows() {
        let mut t = Table::with_room(4, 1 << 12).unwrap();
        for k in 0..1000u64 {
            if t.len() >= t.capacity() {
                t.grow_to(t.capacity() * 2, 1).unwrap();
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
    fn counters_never_share_a_cache_line_with_what_probes_read() {
        use std::mem::offset_of;
        // Pairs of lines, since the adjacent-line prefetch moves them together.
        let pair = |offset: usize| offset / 128;
        let read = [
            offset_of!(Table, words),
            offset_of!(Table, slots),
            offset_of!(Table, shift),
        ];
        for counter in [offset_of!(Table, len), offset_of!(Table, faulted)] {
            assert!(read.iter().all(|&r| pair(r) != pair(counter)));
        }
        assert!(crate::on_lines_of_its_own::<Table>());
    }

    #[test]
    fn confirmation_separates_equal_tags() {
        // Two different states with one fingerprint: the confirmation callback
        // decides, so both get their own entry.
        let t = Table::with_capacity(8).unwrap();
        assert_eq!(t.get_or_insert(42, 0, |id| id == 99), Err(0));
        assert_eq!(t.get_or_insert(42, 1, |id| id == 1), Err(1));
        assert_eq!(t.get(42, |id| id == 1), Some(1));
        assert_eq!(t.get(42, |id| id == 0), Some(0));
    }

    #[test]
    fn growing_past_the_reservation_moves_to_a_larger_one() {
        let mut t = Table::with_room(16, 32).unwrap();
        for k in 0..200u64 {
            t.grow_to(k as usize + 1, 2).unwrap();
            assert_eq!(t.get_or_insert(k, k, |_| true), Err(k));
        }
        assert!((0..200).all(|k| t.get(k, |_| true) == Some(k)));
        assert!(t.reserved_capacity() >= 200);
    }

    #[test]
    fn lookups_run_while_one_thread_inserts() {
        let t = Table::with_room(1 << 16, 1 << 16).unwrap();
        for k in 0..1000u64 {
            t.insert_absent(k, k);
        }
        let t = &t;
        std::thread::scope(|s| {
            s.spawn(move || {
                for k in 1000..40_000u64 {
                    assert_eq!(t.get_or_insert(k, k, |_| true), Err(k));
                }
            });
            for _ in 0..20 {
                for k in (0..40_000u64).step_by(7) {
                    // An entry is either not yet seen or seen whole.
                    if let Some(id) = t.get(k, |_| true) {
                        assert_eq!(id, k);
                    } else {
                        assert!(k >= 1000);
                    }
                }
            }
        });
    }

    #[test]
    fn threads_share_the_prefault_and_the_doubling_keeps_every_entry() {
        let mut t = Table::with_room(1 << 16, 1 << 20).unwrap();
        for k in 0..(t.capacity() as u64) {
            t.insert_absent(k, k);
        }
        let end = t.words_for(t.capacity() * 4);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| t.prefault(end));
            }
        });
        assert_eq!(t.faulted.0.load(Ordering::Relaxed), end);
        // A second call finds the work done and leaves the rest untouched.
        t.prefault(end);
        assert_eq!(t.faulted.0.load(Ordering::Relaxed), end);
        let len = t.len();
        t.grow_to(len * 4, 2).unwrap();
        assert!((0..len as u64).all(|k| t.get(k, |_| true) == Some(k)));
    }
}
