//! The in-memory visited index: an open-addressing hash table from a state's
//! key to its id.
//!
//! A slot is empty or holds one entry, in one of two layouts (see
//! [`format`](mod@format)): two words `[tag, id + 1]`, or, for exact keys of at most six
//! bytes, one word by quotienting, which halves the memory a run must first
//! touch and the cache lines a probe reads. For states of at most eight
//! bytes the tag *is* the state, so a tag match is an exact match. For wider
//! states the tag is the state's xxh3 fingerprint and a match is confirmed
//! by comparing the records (see [`crate::keys`]), so distinct states are
//! never merged on a collision.
//!
//! Linear probing keeps a probe within one or two cache lines; the table
//! never deletes, so no tombstones are needed. A slot's home is the top bits
//! of its mixed key, so doubling the table sends home `h` to `2h` or
//! `2h + 1`: the order of the entries is kept, and the table doubles in place
//! inside its reservation, moving bands of entries up on every thread (see
//! [`double`]), instead of a rehash into fresh memory.
//!
//! One thread inserts while others look up: the words are atomics, an insert
//! writes the tag before it publishes the id (release), and a lookup reads
//! the id before the tag (acquire); a packed slot is published by one
//! store. A lookup racing an insert may miss the new entry, which only
//! leaves that successor for the merge to resolve.

mod claim;
mod compact;
mod compact_fill;
mod compact_grow;
mod double;
mod format;
mod overflow;

pub use claim::{claimed_slot, Lookup, CLAIMED};
pub use compact_fill::FILL_ORDER_BYTES;
use format::{low_mask, Entry};
pub use format::{Format, MOST_PACKED_BITS};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use store::{AtomicWords, StoreError};

/// Largest share of slots in use before the table must grow, once it has
/// grown to its whole reservation (the budget's last size).
const MAX_LOAD_NUM: usize = 7;
const MAX_LOAD_DEN: usize = 10;

/// The share of slots in use at which a table that can still double in place
/// does so. Probes are shorter at lower loads: on room4 a search that doubles
/// at half load took 9.4 s against 10.3 s at seven tenths, in the same
/// memory, since its last table has the same size either way. Only the last
/// size a budget allows fills up to [`MAX_LOAD_NUM`]`/`[`MAX_LOAD_DEN`], so
/// the budget holds as many states in memory as before.
const GROW_LOAD_NUM: usize = 1;
const GROW_LOAD_DEN: usize = 2;

/// Words in a 64-byte cache line.
const WORDS_PER_LINE: usize = 8;

/// An open-addressing map from tags to state ids, in huge-page memory.
///
/// The fields every probe reads (`words`, `slots`, `log2`, `format`,
/// `overflowed`) sit on cache lines no other data shares: the table is
/// aligned to two lines (the adjacent-line prefetch pairs them), and the
/// counters that change, `len` at every insert, are padded onto lines of
/// their own. Otherwise each insert by the merge would evict the line from
/// the cores looking states up beside it, costing them a transfer between
/// cores at every probe.
#[repr(align(128))]
pub struct Table {
    words: AtomicWords,
    slots: usize,
    log2: u32,
    format: Format,
    /// Entries in `overflow`; written only when an entry goes there, which
    /// the packed layout's fields make practically never (see [`format`](mod@format)).
    overflowed: AtomicUsize,
    len: Padded<AtomicUsize>,
    /// Words of the reservation known to have memory (see [`Table::prefault`]).
    faulted: Padded<AtomicUsize>,
    /// Entries a packed slot could not hold.
    overflow: Padded<overflow::Overflow>,
    /// Claims the lookups may still make, and claims made (see [`claim`]):
    /// written by the expanding threads only, so on lines of their own.
    claims: Padded<claim::Claims>,
    /// A compact table's entries a bucket and displacement bits (see
    /// [`compact`]); unused by the word layouts.
    geometry: compact::Geometry,
}

/// A value alone on its pair of cache lines.
#[repr(align(128))]
struct Padded<T>(T);

/// Where a packed probe ended.
enum Probe {
    /// The key's entry: its slot and word.
    Found(usize, u64),
    /// An empty slot, and the upper bits (remainder and distance) of the
    /// word that would fill it.
    Vacant(usize, u64),
    /// Past the longest distance a packed slot records.
    Beyond,
}

/// Slots (a power of two) for `states` entries below the largest load.
fn slots_for(states: usize) -> usize {
    (states.max(16) * MAX_LOAD_DEN)
        .div_ceil(MAX_LOAD_NUM)
        .next_power_of_two()
}

/// Entries a table of `slots` slots inside a reservation of `reserved` slots
/// takes before it must grow: up to the growing load while it can double in
/// place, up to the largest load once it cannot.
fn capacity_of(slots: usize, reserved: usize) -> usize {
    match slots.saturating_mul(2) <= reserved {
        true => slots * GROW_LOAD_NUM / GROW_LOAD_DEN,
        false => slots * MAX_LOAD_NUM / MAX_LOAD_DEN,
    }
}

/// Slots for `states` entries in a reservation of `reserved` slots: the
/// fewest whose [`capacity_of`] holds them. Twice [`slots_for`] at most, and
/// never more than the reservation when [`slots_for`] fits in it.
fn slots_within(states: usize, reserved: usize) -> usize {
    let tight = slots_for(states);
    match tight < reserved && capacity_of(tight, reserved) < states {
        true => tight * 2,
        false => tight,
    }
}

impl Table {
    /// A table with room for at least `states` entries below the load limit.
    pub fn with_capacity(states: usize) -> Result<Table, StoreError> {
        Table::with_room(states, states)
    }

    /// A table with room for `states` entries that can grow in place to
    /// `most` entries. Only the pages of the part in use get memory.
    pub fn with_room(states: usize, most: usize) -> Result<Table, StoreError> {
        Table::new(Format::Wide, states, most)
    }

    /// [`Table::with_room`] in the given slot layout.
    pub fn new(format: Format, states: usize, most: usize) -> Result<Table, StoreError> {
        if let Format::Compact { key_bits } = format {
            return Table::new_compact(key_bits, states, most);
        }
        let tight = slots_for(states);
        if tight > format.most_slots() {
            return Err(StoreError::Misuse(format!(
                "a visited index of {tight} slots is past what its layout numbers"
            )));
        }
        // A budget may allow more than the layout numbers (2^40 slots): the
        // reservation stops there, far beyond any memory.
        let reserved = slots_for(most).clamp(tight, format.most_slots());
        let slots = slots_within(states, reserved);
        // The word layouts practically never overflow (a probe past 2^16
        // slots): their list's least share is in the reserve beside the
        // index, so that budgets of a power of two keep their sizes.
        let share = match format {
            Format::Wide => 0,
            _ => overflow::LEAST_SHARE,
        };
        let words = AtomicWords::reserve(format.words() * reserved)?;
        let mut table = Table::empty(format, words, share);
        table.slots = slots;
        table.log2 = slots.trailing_zeros();
        Ok(table)
    }

    /// A table of no slots over the reservation `words`, with an overflow
    /// list of `share` entries, for the constructors to size.
    fn empty(format: Format, words: AtomicWords, share: usize) -> Table {
        Table {
            words,
            slots: 0,
            log2: 0,
            format,
            overflowed: AtomicUsize::new(0),
            len: Padded(AtomicUsize::new(0)),
            faulted: Padded(AtomicUsize::new(0)),
            overflow: Padded(overflow::Overflow::with_share(share)),
            claims: Padded(claim::Claims::default()),
            geometry: compact::Geometry {
                per_line: 1,
                disp_bits: 0,
            },
        }
    }

    #[inline]
    fn atoms(&self) -> &[AtomicU64] {
        self.words.as_atomic()
    }

    /// Bytes a table of `format` sized for `states` entries uses, its
    /// overflow list's share included (see [`overflow`]).
    pub fn bytes_for(states: usize, format: Format) -> u64 {
        if let Format::Compact { key_bits } = format {
            let per_line = compact::Geometry::for_key_bits(key_bits).per_line;
            let buckets = compact_grow::reserved_buckets(states, per_line);
            let share = compact_grow::overflow_share(buckets, per_line);
            return buckets as u64 * Table::slot_bytes(format) + overflow::Overflow::bytes(share);
        }
        slots_for(states) as u64 * Table::slot_bytes(format)
    }

    /// Bytes one slot of `format` takes.
    pub fn slot_bytes(format: Format) -> u64 {
        format.words() as u64 * 8
    }

    /// Number of entries, claimed ones included.
    pub fn len(&self) -> usize {
        self.len.0.load(Ordering::Relaxed) + self.claims.0.made.load(Ordering::Relaxed)
    }

    /// Entries the table can take before it must grow.
    pub fn capacity(&self) -> usize {
        if let Format::Compact { .. } = self.format {
            let (reserved, per_line) = (self.reserved_slots(), self.geometry.per_line);
            return compact_grow::compact_capacity(self.slots, reserved, per_line);
        }
        capacity_of(self.slots, self.reserved_slots())
    }

    /// Slots the reservation has room for.
    fn reserved_slots(&self) -> usize {
        self.words.len() / self.format.words()
    }

    /// True when the table has room to double inside its reservation.
    pub fn can_double(&self) -> bool {
        self.slots.saturating_mul(2) <= self.reserved_slots()
    }

    /// True when the overflow list holds more than its share of the
    /// budget: the table must double, or the search move on, before it
    /// takes more entries (see [`overflow`]).
    pub fn crowded(&self) -> bool {
        self.overflow_past_share()
    }

    /// Entries the table can take once grown to its whole reservation.
    pub fn reserved_capacity(&self) -> usize {
        if let Format::Compact { .. } = self.format {
            let (reserved, per_line) = (self.reserved_slots(), self.geometry.per_line);
            return compact_grow::compact_capacity(reserved, reserved, per_line);
        }
        self.reserved_slots() * MAX_LOAD_NUM / MAX_LOAD_DEN
    }

    /// Bytes in use (the reservation beyond them has no memory yet), the
    /// compact layout's overflow share included (the word layouts' share is
    /// in the reserve beside the index).
    pub fn bytes(&self) -> u64 {
        let share = match self.format {
            Format::Compact { .. } => overflow::Overflow::bytes(self.overflow.0.share()),
            _ => 0,
        };
        self.slots as u64 * Table::slot_bytes(self.format) + share
    }

    /// Forgets every entry, keeping the allocation.
    pub fn clear(&mut self) {
        let used = self.format.words() * self.slots;
        self.words.as_mut_slice()[..used].fill(0);
        *self.len.0.get_mut() = 0;
        self.claims.0 = claim::Claims::default();
        self.take_overflow();
    }

    /// The key the table files `tag` under (see [`format`](mod@format)): a caller that
    /// both prefetches and probes a tag computes it once.
    #[inline]
    pub fn key(&self, tag: u64) -> u64 {
        self.format.key(tag)
    }

    /// Starts loading the home slot of `key` (a tag's [`Table::key`]) and the
    /// cache line after it, so that a probe soon after finds its lines
    /// present. A probe reads on past its home until it meets the key or an
    /// empty slot, and at the loads the table runs at, many probes cross into
    /// the next line: with only the home line prefetched, each of those waits
    /// for a whole miss (on room4's wide table, 32 ns a probe against 27 ns
    /// with both lines).
    #[inline]
    pub fn prefetch_key(&self, key: u64) {
        if let Format::Compact { key_bits } = self.format {
            return self.prefetch_compact(key_bits, key);
        }
        let n = self.format.words();
        let home = n * self.format.home(key, self.log2);
        store::prefetch(self.atoms(), home);
        store::prefetch(self.atoms(), home + WORDS_PER_LINE);
    }

    /// The id stored under `tag` for which `same(id)` holds. Safe to call
    /// while another thread inserts.
    #[inline]
    pub fn get(&self, tag: u64, same: impl FnMut(u64) -> bool) -> Option<u64> {
        let key_bits = match self.format {
            Format::Packed { key_bits } => key_bits,
            Format::Compact { key_bits } => {
                return self.get_compact::<true>(key_bits, format::mix_bits(tag, key_bits))
            }
            Format::Wide => return self.get_wide(tag, same),
        };
        let key = format::mix_bits(tag, key_bits);
        match self.probe_packed(key_bits, key) {
            // A claimed entry has no id yet: its successor stays for the merge.
            Probe::Found(_, word) => self.final_id(word),
            Probe::Vacant(..) if self.overflowed.load(Ordering::Acquire) == 0 => None,
            _ => self.overflow_get(key),
        }
    }

    #[inline]
    fn get_wide(&self, tag: u64, mut same: impl FnMut(u64) -> bool) -> Option<u64> {
        let mask = self.slots - 1;
        let w = self.atoms();
        let mut i = self.format.home(tag, self.log2);
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

    /// Walks a packed key's probe sequence. The upper bits of the word an
    /// entry at distance `d` from its home would have are `remainder << D
    /// | d`, so one comparison a slot checks both key and distance.
    #[inline]
    fn probe_packed(&self, key_bits: u32, key: u64) -> Probe {
        let log2 = self.log2;
        let mask = self.slots - 1;
        let disp_bits = Format::displacement_bits(key_bits);
        let w = self.atoms();
        let mut i = (key >> (key_bits - log2)) as usize;
        let mut want = (key & low_mask(key_bits - log2)) << disp_bits;
        let last = want | low_mask(disp_bits);
        loop {
            let word = w[i].load(Ordering::Acquire);
            if word == 0 {
                return Probe::Vacant(i, want);
            }
            if word >> log2 == want {
                return Probe::Found(i, word);
            }
            if want == last {
                return Probe::Beyond;
            }
            want += 1;
            i = (i + 1) & mask;
        }
    }

    /// The id in a packed word, unless the entry is only claimed.
    #[inline]
    fn final_id(&self, word: u64) -> Option<u64> {
        let field = word & low_mask(self.log2);
        (field != low_mask(self.log2)).then(|| field - 1)
    }

    /// Counts one more entry (one writer at a time, so a plain increment
    /// is enough and cheaper than a locked add).
    #[inline]
    fn count_insert(&self) {
        let len = self.len.0.load(Ordering::Relaxed);
        self.len.0.store(len + 1, Ordering::Relaxed);
    }

    /// The id under `tag` confirmed by `same`, or inserts `new_id` and returns
    /// `Err(new_id)`. The caller must keep the load below capacity, and only
    /// one thread may insert at a time (others may [`Table::get`]).
    #[inline]
    pub fn get_or_insert(
        &self,
        tag: u64,
        new_id: u64,
        same: impl FnMut(u64) -> bool,
    ) -> Result<u64, u64> {
        self.get_or_insert_key(self.key(tag), new_id, same)
    }

    /// [`Table::get_or_insert`] for a tag's [`Table::key`].
    #[inline]
    pub fn get_or_insert_key(
        &self,
        key: u64,
        new_id: u64,
        same: impl FnMut(u64) -> bool,
    ) -> Result<u64, u64> {
        let key_bits = match self.format {
            Format::Packed { key_bits } => key_bits,
            Format::Compact { key_bits } => {
                return self.get_or_insert_compact(key_bits, key, new_id)
            }
            // A wide key is the tag itself.
            Format::Wide => return self.get_or_insert_wide(key, new_id, same),
        };
        let id1 = new_id + 1;
        let probe = self.probe_packed(key_bits, key);
        if let Probe::Found(i, word) = probe {
            return self.settle_word(i, word, new_id);
        }
        if self.overflowed.load(Ordering::Relaxed) != 0 {
            if let Some(found) = self.overflow_settle(key, new_id) {
                return found;
            }
        }
        match probe {
            Probe::Vacant(i, upper) if id1 < low_mask(self.log2) => {
                // A plain store, not a compare-and-swap (a locked instruction
                // at every new state): a lookup claiming this slot at the
                // same moment for another state loses its claim, which is
                // safe, since the merge checks a claimed slot's key before
                // trusting it ([`Table::settle`]) and then finds the state
                // missing.
                let word = (upper << self.log2) | id1;
                self.atoms()[i].store(word, Ordering::Release);
            }
            _ => self.overflow_push((key, id1)),
        }
        self.count_insert();
        Err(new_id)
    }

    #[inline]
    fn get_or_insert_wide(
        &self,
        tag: u64,
        new_id: u64,
        mut same: impl FnMut(u64) -> bool,
    ) -> Result<u64, u64> {
        let mask = self.slots - 1;
        let w = self.atoms();
        let mut i = self.format.home(tag, self.log2);
        loop {
            let id1 = w[2 * i + 1].load(Ordering::Relaxed);
            if id1 == 0 {
                w[2 * i].store(tag, Ordering::Relaxed);
                w[2 * i + 1].store(new_id + 1, Ordering::Release);
                self.count_insert();
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

    /// Inserts entries known to be absent, with the keys `keys` (as
    /// [`Table::key`] gives them) and the ids from `first_id` on, into a
    /// table no lookup reads: a compact table's on `threads` threads, with
    /// the same table whatever their timing (see [`compact_fill`]), the word
    /// layouts' on this one. The caller keeps the load below capacity. A
    /// compact table orders the keys in `order`, which it leaves
    /// [`FILL_ORDER_BYTES`] a key of the longest batch so far long: the
    /// caller counts it in its memory.
    pub fn fill_absent(
        &mut self,
        keys: &[u64],
        first_id: u64,
        threads: usize,
        order: &mut Vec<u64>,
    ) {
        if let Format::Compact { key_bits } = self.format {
            return self.fill_compact(key_bits, keys, first_id, threads, order);
        }
        for (id, &key) in (first_id..).zip(keys) {
            let _ = self.get_or_insert_key(key, id, |_| false);
        }
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
        if let Format::Compact { key_bits } = self.format {
            return self.grow_compact(key_bits, states);
        }
        let wanted = slots_within(states.max(self.len()), self.reserved_slots());
        if wanted <= self.slots {
            return Ok(());
        }
        let n = self.format.words();
        if n * wanted > self.words.len() {
            let states = states.max(self.len());
            let mut bigger = Table::new(self.format, states, states)?;
            for i in 0..self.slots {
                let slot = &self.words.as_mut_slice()[n * i..n * i + n];
                if let Some(entry) = self.format.read(slot, i, self.log2) {
                    bigger.place(entry);
                }
            }
            self.take_overflow()
                .into_iter()
                .for_each(|e| bigger.place(e));
            *bigger.len.0.get_mut() = self.len();
            *self = bigger;
            return Ok(());
        }
        while self.slots < wanted {
            self.double_in_place(threads, min_band);
        }
        Ok(())
    }

    /// Puts an entry in the first empty slot from its home on, or in the
    /// overflow list when its slot cannot hold it (no concurrent readers).
    fn place(&mut self, entry: Entry) {
        if let Format::Compact { key_bits } = self.format {
            return self.place_compact(key_bits, entry);
        }
        let (format, log2, mask) = (self.format, self.log2, self.slots - 1);
        let n = format.words();
        let w = self.words.as_mut_slice();
        let mut i = format.home(entry.0, log2);
        while !format.is_empty(&w[n * i..n * i + n]) {
            i = (i + 1) & mask;
        }
        if !format.write(&mut w[n * i..n * i + n], i, log2, entry) {
            self.overflow_push(entry);
        }
    }

    /// Words the table will use once grown to room for `states` entries
    /// (bounded by the reservation).
    pub fn words_for(&self, states: usize) -> usize {
        if let Format::Compact { .. } = self.format {
            let (reserved, per_line) = (self.reserved_slots(), self.geometry.per_line);
            let buckets = compact_grow::buckets_within(states, reserved, per_line);
            return self.format.words() * buckets;
        }
        (self.format.words() * slots_within(states, self.reserved_slots())).min(self.words.len())
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
            let at = seen.max(self.format.words() * self.slots);
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

#[cfg(test)]
mod tests;
