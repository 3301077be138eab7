//! The compact layout: exact keys of at most six bytes in entries narrower
//! than a word, packed into cache-line buckets, so that the index takes at
//! most eight bytes a state when full, the id included.
//!
//! A bucket is one 64-byte line: a version byte and `per_line` entries of
//! `W` bits each (9 of 56 bits for 48-bit keys, 10 of 50 for 40-bit keys).
//! An entry is, from its high bits down,
//!
//! ```text
//! | remainder: R | displacement in buckets: D | id + 1: I |
//! ```
//!
//! A key (the state scrambled by the bijection [`mix_bits`]) has its home
//! bucket `floor(key * buckets / 2^K)`, which works for any bucket count, not
//! only powers of two, so a budget is used whole. Keys with one home form an
//! interval of at most `2^R` keys for `R = K - floor(log2 buckets)`, so the key
//! is its home and its low `R` bits: only they are stored. An entry goes to the
//! first bucket from its home on that has room, and the lookup stops at the
//! first bucket that is not full: entries fill a bucket in order and are never
//! removed. Entries past the displacement field (practically never) go to the
//! overflow map.
//!
//! The table doubles in place, as the word layouts do: a home `h` becomes
//! `2h` or `2h + 1`, the remainder loses its top bit and the id field gains
//! one, so the widths stay those of the whole reservation.
//!
//! Concurrency: the merge is the only writer while lookups run. An entry may
//! span two words, so a line is a sequence lock: the merge makes the version
//! odd, writes, and makes it even again (release); a lookup reads the version
//! (acquire), the line, and the version again, and takes the line only when
//! both reads are the same even version. A lookup that sees a write in
//! progress reports the state as missing, which leaves the successor for the
//! merge, as any lookup racing an insert may. Lookups never claim slots here.
//!
//! [`mix_bits`]: super::format::mix_bits

use super::format::low_mask;
use super::Table;
use std::sync::atomic::{fence, AtomicU64, Ordering};

/// Words in a bucket (one cache line).
pub(super) const LINE_WORDS: usize = 8;

/// Bits of a line the entries share (the rest is the version byte).
const ENTRY_BITS_PER_LINE: u32 = 512 - VERSION_BITS;

/// Bits of the sequence lock's version, the low bits of the line's first word.
const VERSION_BITS: u32 = 8;

/// Fewest bits of displacement a compact layout keeps.
const LEAST_DISP_BITS: u32 = 3;

/// The largest load of the last size, in tenths: nine entries in ten slots.
pub(super) const LAST_LOAD_TENTHS: usize = 9;

/// The load at which a table that can still double in place does so.
pub(super) const GROW_LOAD_TENTHS: usize = 6;

/// The entry geometry of a compact table: entries per line and bits of
/// displacement for keys of `key_bits` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Entries in a bucket.
    pub per_line: usize,
    /// Bits of the displacement field.
    pub disp_bits: u32,
}

impl Geometry {
    /// The most entries a line holds with at least [`LEAST_DISP_BITS`] of
    /// displacement. `R + I` is at most `key_bits + 5` at every size for up
    /// to 15 entries a line (`I = bits(per_line * buckets)`).
    pub fn for_key_bits(key_bits: u32) -> Geometry {
        let mut per_line = 15usize;
        loop {
            let width = ENTRY_BITS_PER_LINE / per_line as u32;
            if width >= key_bits + 5 + LEAST_DISP_BITS || per_line == 1 {
                let disp_bits = width.saturating_sub(key_bits + 5).min(16);
                return Geometry {
                    per_line,
                    disp_bits,
                };
            }
            per_line -= 1;
        }
    }
}

/// Where a compact probe ended.
pub(super) enum CompactProbe {
    /// The key's entry.
    Found(u64),
    /// The first free entry on the key's path: bucket, index, displacement.
    Vacant(usize, usize, u64),
    /// Past the longest displacement the field records.
    Beyond,
    /// A line changed while it was read (lookups beside the merge only).
    Busy,
}

/// The widths of a compact table of `buckets` buckets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Widths {
    pub rem: u32,
    pub disp: u32,
    pub id: u32,
}

impl Widths {
    pub fn of(key_bits: u32, geometry: Geometry, buckets: usize) -> Widths {
        Widths {
            rem: key_bits - floor_log2(buckets),
            disp: geometry.disp_bits,
            id: bits_of((geometry.per_line * buckets) as u64),
        }
    }

    /// Bits of an entry.
    #[inline]
    pub fn entry(self) -> u32 {
        self.rem + self.disp + self.id
    }
}

/// `floor(log2(n))` for `n >= 1`.
#[inline]
pub(super) fn floor_log2(n: usize) -> u32 {
    usize::BITS - 1 - n.leading_zeros()
}

/// Bits needed to write `n`.
#[inline]
fn bits_of(n: u64) -> u32 {
    u64::BITS - n.leading_zeros()
}

/// The home bucket of a `key_bits`-bit key among `buckets`.
#[inline]
pub(super) fn home_of(key: u64, key_bits: u32, buckets: usize) -> usize {
    (((key << (64 - key_bits)) as u128 * buckets as u128) >> 64) as usize
}

/// The smallest key whose home is `home` among `buckets`: the keys of one
/// home are `lo(home)..lo(home + 1)`.
#[inline]
pub(super) fn lowest_key(home: usize, key_bits: u32, buckets: usize) -> u64 {
    ((home as u128) << key_bits).div_ceil(buckets as u128) as u64
}

/// The key with home `home` and low bits `rem` (`rem_bits` of them).
#[inline]
pub(super) fn key_of(home: usize, rem: u64, rem_bits: u32, key_bits: u32, buckets: usize) -> u64 {
    let lo = lowest_key(home, key_bits, buckets);
    lo + (rem.wrapping_sub(lo) & low_mask(rem_bits))
}

/// Entry `j` of a line of words (`width` bits an entry).
#[inline]
pub(super) fn entry_at(line: &[u64; LINE_WORDS], j: usize, width: u32) -> u64 {
    let start = VERSION_BITS as usize + j * width as usize;
    let (w, off) = (start / 64, start % 64);
    let mut v = line[w] >> off;
    if off + width as usize > 64 {
        v |= line[w + 1] << (64 - off);
    }
    v & low_mask(width)
}

/// Writes entry `j` of a line of words.
#[inline]
pub(super) fn set_entry(line: &mut [u64; LINE_WORDS], j: usize, width: u32, value: u64) {
    let start = VERSION_BITS as usize + j * width as usize;
    let (w, off) = (start / 64, start % 64);
    let mask = low_mask(width);
    line[w] = (line[w] & !(mask << off)) | (value << off);
    if off + width as usize > 64 {
        let high = 64 - off;
        line[w + 1] = (line[w + 1] & !(mask >> high)) | (value >> high);
    }
}

impl Table {
    /// The widths of this compact table at its present size.
    #[inline]
    pub(super) fn widths(&self, key_bits: u32) -> Widths {
        Widths::of(key_bits, self.geometry, self.slots)
    }

    /// Reads bucket `b`'s line. With `sync`, as a lookup beside the merge:
    /// `None` when the merge is writing it.
    #[inline]
    fn read_line<const SYNC: bool>(&self, b: usize) -> Option<[u64; LINE_WORDS]> {
        let w: &[AtomicU64] = &self.atoms()[b * LINE_WORDS..(b + 1) * LINE_WORDS];
        let mut line = [0u64; LINE_WORDS];
        if !SYNC {
            for (v, a) in line.iter_mut().zip(w) {
                *v = a.load(Ordering::Relaxed);
            }
            return Some(line);
        }
        let first = w[0].load(Ordering::Acquire);
        if first & 1 != 0 {
            return None;
        }
        line[0] = first;
        for (v, a) in line.iter_mut().zip(w).skip(1) {
            *v = a.load(Ordering::Relaxed);
        }
        fence(Ordering::Acquire);
        (w[0].load(Ordering::Relaxed) == first).then_some(line)
    }

    /// Walks `key`'s buckets from its home on. `SYNC` for lookups beside
    /// the merge (see the module's docs).
    #[inline]
    pub(super) fn probe_compact<const SYNC: bool>(&self, key_bits: u32, key: u64) -> CompactProbe {
        let widths = self.widths(key_bits);
        let buckets = self.slots;
        let per_line = self.geometry.per_line;
        let width = widths.entry();
        let mut b = home_of(key, key_bits, buckets);
        let rem = key & low_mask(widths.rem);
        for d in 0..=low_mask(widths.disp) {
            let want = (rem << widths.disp) | d;
            let Some(line) = self.read_line::<SYNC>(b) else {
                return CompactProbe::Busy;
            };
            for j in 0..per_line {
                let entry = entry_at(&line, j, width);
                if entry == 0 {
                    return CompactProbe::Vacant(b, j, d);
                }
                if entry >> widths.id == want {
                    return CompactProbe::Found(entry);
                }
            }
            b += 1;
            if b == buckets {
                b = 0;
            }
        }
        CompactProbe::Beyond
    }

    /// The id of `key` in a compact table, for a lookup beside the merge.
    #[inline]
    pub(super) fn get_compact<const SYNC: bool>(&self, key_bits: u32, key: u64) -> Option<u64> {
        match self.probe_compact::<SYNC>(key_bits, key) {
            CompactProbe::Found(entry) => Some((entry & low_mask(self.widths(key_bits).id)) - 1),
            CompactProbe::Busy => None,
            CompactProbe::Vacant(..) if self.overflowed.load(Ordering::Acquire) == 0 => None,
            _ => self.overflow_get(key),
        }
    }

    /// For the merge (the one writer): the id of `key`, or `new_id` given
    /// to it (`Err`).
    #[inline]
    pub(super) fn get_or_insert_compact(
        &self,
        key_bits: u32,
        key: u64,
        new_id: u64,
    ) -> Result<u64, u64> {
        let probe = self.probe_compact::<false>(key_bits, key);
        if let CompactProbe::Found(entry) = probe {
            return Ok((entry & low_mask(self.widths(key_bits).id)) - 1);
        }
        if self.overflowed.load(Ordering::Relaxed) != 0 {
            if let Some(found) = self.overflow_settle(key, new_id) {
                return found;
            }
        }
        let widths = self.widths(key_bits);
        let id1 = new_id + 1;
        match probe {
            CompactProbe::Vacant(b, j, d) if id1 <= low_mask(widths.id) => {
                let rem = key & low_mask(widths.rem);
                let entry = (((rem << widths.disp) | d) << widths.id) | id1;
                self.publish_entry(b, j, widths.entry(), entry);
            }
            _ => self.overflow_push((key, id1)),
        }
        self.count_insert();
        Err(new_id)
    }

    /// Writes entry `j` of bucket `b` under the line's sequence lock (the
    /// one writer only).
    #[inline]
    fn publish_entry(&self, b: usize, j: usize, width: u32, entry: u64) {
        let w = &self.atoms()[b * LINE_WORDS..(b + 1) * LINE_WORDS];
        let mut line = [0u64; LINE_WORDS];
        for (v, a) in line.iter_mut().zip(w) {
            *v = a.load(Ordering::Relaxed);
        }
        let version = line[0] & low_mask(VERSION_BITS);
        let odd = (line[0] & !low_mask(VERSION_BITS)) | ((version + 1) & low_mask(VERSION_BITS));
        w[0].store(odd, Ordering::Relaxed);
        fence(Ordering::Release);
        let before = line;
        set_entry(&mut line, j, width, entry);
        for k in 1..LINE_WORDS {
            if line[k] != before[k] {
                w[k].store(line[k], Ordering::Relaxed);
            }
        }
        let even = (line[0] & !low_mask(VERSION_BITS)) | ((version + 2) & low_mask(VERSION_BITS));
        w[0].store(even, Ordering::Release);
    }

    /// Starts loading `key`'s home bucket and the one after it.
    #[inline]
    pub(super) fn prefetch_compact(&self, key_bits: u32, key: u64) {
        let b = home_of(key, key_bits, self.slots);
        store::prefetch(self.atoms(), b * LINE_WORDS);
        store::prefetch(self.atoms(), (b + 1) * LINE_WORDS);
    }

    /// Every entry of a compact table as `(key, id + 1)`, bucket by bucket
    /// (no concurrent writer).
    pub(super) fn compact_entries(&mut self, key_bits: u32) -> Vec<(u64, u64)> {
        let widths = self.widths(key_bits);
        let (buckets, per_line) = (self.slots, self.geometry.per_line);
        let words = self.words.as_mut_slice();
        let mut out = Vec::new();
        for b in 0..buckets {
            let line: &[u64; LINE_WORDS] = words[b * LINE_WORDS..(b + 1) * LINE_WORDS]
                .try_into()
                .expect("a line is eight words");
            for j in 0..per_line {
                let entry = entry_at(line, j, widths.entry());
                if entry == 0 {
                    break;
                }
                out.push(decode(entry, b, widths, key_bits, buckets));
            }
        }
        out
    }

    /// Puts `(key, id1)` in the first bucket with room from its home on, or
    /// in the overflow map (no concurrent readers).
    pub(super) fn place_compact(&mut self, key_bits: u32, (key, id1): (u64, u64)) {
        let widths = self.widths(key_bits);
        let (buckets, per_line) = (self.slots, self.geometry.per_line);
        let home = home_of(key, key_bits, buckets);
        let words = self.words.as_mut_slice();
        let placed = place_in(
            words,
            home,
            buckets,
            per_line,
            widths,
            (key, id1),
            0..buckets,
        );
        if !placed {
            self.overflow_push((key, id1));
        }
    }
}

/// The `(key, id + 1)` of `entry` found in bucket `b`.
#[inline]
pub(super) fn decode(
    entry: u64,
    b: usize,
    widths: Widths,
    key_bits: u32,
    buckets: usize,
) -> (u64, u64) {
    let id1 = entry & low_mask(widths.id);
    let upper = entry >> widths.id;
    let d = (upper & low_mask(widths.disp)) as usize;
    let rem = upper >> widths.disp;
    let home = (b + buckets - d) % buckets;
    (key_of(home, rem, widths.rem, key_bits, buckets), id1)
}

/// Writes `(key, id1)` (home `home`) into the first bucket with room from
/// its home on, wrapping around the table only if `allowed` covers it;
/// false when no bucket inside `allowed` and the displacement field takes
/// it. Plain writes: the table has no readers.
pub(super) fn place_in(
    words: &mut [u64],
    home: usize,
    buckets: usize,
    per_line: usize,
    widths: Widths,
    (key, id1): (u64, u64),
    allowed: std::ops::Range<usize>,
) -> bool {
    if id1 > low_mask(widths.id) {
        return false;
    }
    let width = widths.entry();
    let rem = key & low_mask(widths.rem);
    let mut b = home;
    for d in 0..=low_mask(widths.disp) {
        if !allowed.contains(&b) {
            return false;
        }
        let line: &mut [u64; LINE_WORDS] = (&mut words[b * LINE_WORDS..(b + 1) * LINE_WORDS])
            .try_into()
            .expect("a line is eight words");
        if let Some(j) = (0..per_line).find(|&j| entry_at(line, j, width) == 0) {
            let entry = (((rem << widths.disp) | d) << widths.id) | id1;
            set_entry(line, j, width, entry);
            return true;
        }
        b += 1;
        if b == buckets {
            b = 0;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_geometries_of_six_and_five_byte_keys() {
        assert_eq!(
            Geometry::for_key_bits(48),
            Geometry {
                per_line: 9,
                disp_bits: 3
            }
        );
        assert_eq!(
            Geometry::for_key_bits(40),
            Geometry {
                per_line: 10,
                disp_bits: 5
            }
        );
    }

    #[test]
    fn an_entry_fits_its_line_at_every_size() {
        for key_bits in [40u32, 44, 48] {
            let g = Geometry::for_key_bits(key_bits);
            for buckets in (6..30).map(|s| (1usize << s) + 12345 % (1 << s)) {
                let w = Widths::of(key_bits, g, buckets);
                assert!(w.entry() as usize * g.per_line <= ENTRY_BITS_PER_LINE as usize);
                assert!(w.disp >= LEAST_DISP_BITS);
            }
        }
    }

    proptest! {
        #[test]
        fn a_key_is_its_home_and_low_bits(key in any::<u64>(), buckets in 64usize..1 << 30) {
            let key_bits = 48;
            let key = key & low_mask(key_bits);
            let home = home_of(key, key_bits, buckets);
            let rem_bits = key_bits - floor_log2(buckets);
            prop_assert!(lowest_key(home, key_bits, buckets) <= key);
            prop_assert!(key < lowest_key(home + 1, key_bits, buckets));
            prop_assert_eq!(key_of(home, key & low_mask(rem_bits), rem_bits, key_bits, buckets), key);
            // Doubling: the home becomes 2h or 2h + 1.
            let twice = home_of(key, key_bits, 2 * buckets);
            prop_assert!(twice == 2 * home || twice == 2 * home + 1);
        }

        #[test]
        fn entries_read_back_as_written(values in prop::collection::vec(any::<u64>(), 9), width in 40u32..57) {
            let per_line = (ENTRY_BITS_PER_LINE / width) as usize;
            let mut line = [0u64; LINE_WORDS];
            line[0] = 0xab;
            for (j, v) in values.iter().enumerate().take(per_line) {
                set_entry(&mut line, j, width, v & low_mask(width));
            }
            for (j, v) in values.iter().enumerate().take(per_line) {
                prop_assert_eq!(entry_at(&line, j, width), v & low_mask(width));
            }
            prop_assert_eq!(line[0] & 0xff, 0xab);
        }
    }
}
