//! Filling a compact table with entries known to be absent (the switch from
//! the word layout, a resume) on every thread, with the same table whatever
//! the timing of the threads.
//!
//! The buckets are cut into one range a thread. Every thread reads the
//! whole batch of keys, and places those whose home lies in its range, in
//! the order of their homes (below), Robin Hood's way (see [`super::compact`]),
//! writing only inside its range; an entry that would walk out of it (the
//! last buckets of a range, or past the displacement field) is left over.
//! The leftovers are placed after the batch, on one thread, in range order.
//! So each thread's writes depend only on the batch and its range, and the
//! table on the batches and the thread count: a run's ids never depend on
//! the table's layout, only on what it holds.
//!
//! Each insert into a table far larger than the caches waits for its line:
//! a thread fetches the lines of the key [`AHEAD`] of its own further on
//! (the single-threaded rebuild of room5 spent 90% of its time waiting, and
//! one core can only have so many misses in flight, hence the threads).
//! A thread also places its keys in the order of their homes rather than in
//! the batch's: in this VM a random read of a 4 GiB table cost about 150 to
//! 300 ns and one in ascending order about 55 ns (the translations of
//! neighbouring homes stay in the TLB, the page walks of random ones cannot
//! overlap much). The keys go into bins of consecutive homes by a counting
//! sort, each bin sorted. A key travels beside its index in the batch (an
//! index alone costs two random reads of the batch a key, more than the
//! ordered table reads save), in one word: its offset from its bin's lowest
//! key above its index, the word's place in the order saying which bin. The
//! order lives in a buffer the caller owns, [`FILL_ORDER_BYTES`] a key of
//! the batch, which the refill counts in the explorer's reserve (its room5
//! run 10.75 MiB over a 3 GiB budget came from an uncounted order of 24
//! bytes a key). The placement's order changes only where ties of Robin
//! Hood's order put entries, never what the table holds.

use super::compact::{lowest_key, place_in, Lines, Shape, LINE_WORDS};
use super::format::{low_mask, Entry};
use super::Table;
use std::sync::Mutex;

/// Bytes of the order a fill keeps for each key of its batch, in the
/// buffer its caller passes (one word a key, and no more: see
/// [`Table::fill_absent`]).
pub const FILL_ORDER_BYTES: usize = 8;

/// How many of its keys ahead a thread fetches the lines of.
const AHEAD: usize = 16;

/// Bins of homes a thread orders its keys by (see [`Bins`]): a room5 range's
/// bin spans about 23,000 lines (1.5 MB), within one huge page.
const BINS: usize = 1 << 12;

/// The buckets `first..first + words.len() / LINE_WORDS` of a table, which
/// one thread alone writes.
struct Range<'w> {
    first: usize,
    words: &'w mut [u64],
}

impl Lines for Range<'_> {
    #[inline]
    fn line(&self, b: usize) -> [u64; LINE_WORDS] {
        let at = (b - self.first) * LINE_WORDS;
        self.words[at..at + LINE_WORDS]
            .try_into()
            .expect("a line is eight words")
    }

    #[inline]
    fn write(&mut self, b: usize, j: usize, width: u32, entry: u64) {
        let mut words = &mut self.words[(b - self.first) * LINE_WORDS..];
        Lines::write(&mut words, 0, j, width, entry);
    }
}

/// The shift that cuts a range of `buckets` buckets into at most [`BINS`]
/// bins of `1 << shift` consecutive homes.
fn bin_shift(buckets: usize) -> u32 {
    let bits = usize::BITS - (buckets.max(1) - 1).leading_zeros();
    bits.saturating_sub(BINS.trailing_zeros())
}

/// Bits a key's offset from its bin's lowest key takes at most, in a table
/// of `shape` cut into ranges of at most `per` buckets.
fn offset_bits(shape: Shape, per: usize) -> u32 {
    let homes = 1u128 << bin_shift(per);
    let span = (homes << shape.key_bits).div_ceil(shape.buckets as u128) + 1;
    u128::BITS - span.leading_zeros()
}

/// A range's bins: bin `b` holds the homes `first + (b << shift)..`, whose
/// keys are `lows[b]..lows[b + 1]`.
struct Bins {
    first: usize,
    end: usize,
    shift: u32,
    lows: Vec<u64>,
}

impl Bins {
    fn of(range: &Range, shape: Shape) -> Bins {
        let (first, buckets) = (range.first, range.words.len() / LINE_WORDS);
        let end = first + buckets;
        let shift = bin_shift(buckets);
        let count = buckets.saturating_sub(1) >> shift;
        let lows = (0..=count)
            .map(|b| first + (b << shift))
            .chain([end])
            .map(|home| lowest_key(home, shape.key_bits, shape.buckets))
            .collect();
        Bins {
            first,
            end,
            shift,
            lows,
        }
    }

    /// The bin of `home`, if it lies in the range.
    #[inline]
    fn of_home(&self, home: usize) -> Option<usize> {
        (self.first..self.end)
            .contains(&home)
            .then(|| (home - self.first) >> self.shift)
    }

    /// Writes the keys of `keys` homed in the range into `order` (exactly
    /// as long), bin by bin, each bin sorted, a key as its offset in its bin
    /// above its index (`index_bits` of them). Returns where each bin ends.
    fn sort(&self, shape: Shape, keys: &[u64], order: &mut [u64], index_bits: u32) -> Vec<usize> {
        let mask = low_mask(shape.key_bits);
        let mut at = vec![0usize; self.lows.len()];
        for &key in keys {
            if let Some(b) = self.of_home(shape.home(key)) {
                at[b + 1] += 1;
            }
        }
        for b in 1..at.len() {
            at[b] += at[b - 1];
        }
        debug_assert_eq!(
            at.last(),
            Some(&order.len()),
            "the range's share of the order"
        );
        for (i, &key) in keys.iter().enumerate() {
            if let Some(b) = self.of_home(shape.home(key)) {
                let offset = (key & mask) - self.lows[b];
                order[at[b]] = (offset << index_bits) | i as u64;
                at[b] += 1;
            }
        }
        // Each `at[b]` now ends bin `b`. Within a bin, ascending keys
        // (homes) too: consecutive inserts then share their memory pages
        // rather than jump around inside the bin.
        let mut start = 0;
        for &end in &at[..at.len() - 1] {
            order[start..end].sort_unstable();
            start = end;
        }
        at.pop();
        at
    }
}

/// The keys of a sorted order with their indices, in its order.
struct Walk<'a> {
    order: &'a [u64],
    ends: &'a [usize],
    lows: &'a [u64],
    index_bits: u32,
    at: usize,
    bin: usize,
}

impl Iterator for Walk<'_> {
    type Item = (u64, usize);

    #[inline]
    fn next(&mut self) -> Option<(u64, usize)> {
        let &word = self.order.get(self.at)?;
        while self.ends[self.bin] <= self.at {
            self.bin += 1;
        }
        self.at += 1;
        let key = self.lows[self.bin] + (word >> self.index_bits);
        Some((key, (word & low_mask(self.index_bits)) as usize))
    }
}

impl Range<'_> {
    /// Places the keys of `keys` (ids from `first_id` on) whose home lies
    /// in this range, ordered in `order` (exactly as many words as those
    /// keys) by home; returns those left over.
    fn fill(
        &mut self,
        shape: Shape,
        keys: &[u64],
        first_id: u64,
        order: &mut [u64],
        index_bits: u32,
    ) -> Vec<Entry> {
        let bins = Bins::of(self, shape);
        let ends = bins.sort(shape, keys, order, index_bits);
        let order: &[u64] = order;
        let walk = || Walk {
            order,
            ends: &ends,
            lows: &bins.lows,
            index_bits,
            at: 0,
            bin: 0,
        };
        let bounds = bins.first..bins.end;
        let mut ahead = walk().skip(AHEAD);
        let mut left = Vec::new();
        for (key, i) in walk() {
            if let Some((later, _)) = ahead.next() {
                let at = (shape.home(later) - self.first) * LINE_WORDS;
                store::prefetch(self.words, at);
                store::prefetch(self.words, at + LINE_WORDS);
            }
            let entry = (key, first_id + i as u64 + 1);
            left.extend(place_in(self, shape, entry, &bounds));
        }
        left
    }
}

impl Table {
    /// Inserts `keys` (scrambled, as [`Table::key`] gives them), known to be
    /// absent, with ids from `first_id` on, in a compact table no lookup
    /// reads, on `threads` threads (see the module's docs), ordering them in
    /// `order` (left [`FILL_ORDER_BYTES`] a key long). The caller keeps the
    /// load below capacity.
    pub(super) fn fill_compact(
        &mut self,
        key_bits: u32,
        keys: &[u64],
        first_id: u64,
        threads: usize,
        order: &mut Vec<u64>,
    ) {
        let (shape, _, per) = self.ranges(key_bits, threads);
        // A key's offset in its bin and its index share a word: a batch
        // too long for that is filled in parts (no batch of the explorer
        // is: at most 38 bits of offset leave 26 for the index).
        let index_room = 64u32.saturating_sub(offset_bits(shape, per)).min(40);
        self.fill_in_parts(key_bits, keys, first_id, threads, order, 1 << index_room);
    }

    /// The table's shape for `key_bits`, the threads the fill uses (each
    /// range at least 64 buckets) and the buckets of each thread's range.
    fn ranges(&self, key_bits: u32, threads: usize) -> (Shape, usize, usize) {
        let shape = self.shape(key_bits);
        let threads = threads.clamp(1, shape.buckets / 64);
        (shape, threads, shape.buckets.div_ceil(threads))
    }

    /// [`Table::fill_compact`] in parts of at most `most` keys.
    fn fill_in_parts(
        &mut self,
        key_bits: u32,
        keys: &[u64],
        first_id: u64,
        threads: usize,
        order: &mut Vec<u64>,
        most: usize,
    ) {
        for (k, part) in keys.chunks(most.max(1)).enumerate() {
            let first = first_id + (k * most) as u64;
            self.fill_part(key_bits, part, first, threads, order);
        }
    }

    /// [`Table::fill_compact`] for a batch whose indices fit beside the
    /// offsets of its keys.
    fn fill_part(
        &mut self,
        key_bits: u32,
        keys: &[u64],
        first_id: u64,
        threads: usize,
        order: &mut Vec<u64>,
    ) {
        let (shape, threads, per) = self.ranges(key_bits, threads);
        let index_bits = u64::BITS - (keys.len().saturating_sub(1) as u64).leading_zeros();
        // How many keys each range takes, by the lowest keys of the ranges
        // after the first (keys order as their homes do).
        let starts: Vec<u64> = (per..shape.buckets)
            .step_by(per)
            .map(|home| lowest_key(home, key_bits, shape.buckets))
            .collect();
        let mut mine = vec![0usize; starts.len() + 1];
        let mask = low_mask(key_bits);
        for &key in keys {
            mine[starts.partition_point(|&start| start <= key & mask)] += 1;
        }
        order.clear();
        order.reserve_exact(keys.len());
        order.resize(keys.len(), 0);
        let mut rest = &mut self.words.as_mut_slice()[..shape.buckets * LINE_WORDS];
        let mut orders = order.as_mut_slice();
        let mut ranges = Vec::with_capacity(mine.len());
        let mut first = 0;
        for &n in &mine {
            let take = per.min(rest.len() / LINE_WORDS);
            let (words, after) = std::mem::take(&mut rest).split_at_mut(take * LINE_WORDS);
            let (part, later) = std::mem::take(&mut orders).split_at_mut(n);
            ranges.push((Range { first, words }, part));
            (first, rest, orders) = (first + take, after, later);
        }
        let count = ranges.len();
        let queue = Mutex::new(ranges.into_iter().enumerate().collect::<Vec<_>>());
        let lefts = Mutex::new(vec![Vec::new(); count]);
        // Threads take ranges as they go, so a thread the system refuses
        // only leaves its range to the others.
        let work = || loop {
            let Some((i, (mut range, part))) = lock(&queue).pop() else {
                return;
            };
            let left = range.fill(shape, keys, first_id, part, index_bits);
            lock(&lefts)[i] = left;
        };
        std::thread::scope(|scope| {
            for _ in 1..threads {
                if std::thread::Builder::new()
                    .spawn_scoped(scope, work)
                    .is_err()
                {
                    break;
                }
            }
            work();
        });
        let lefts = lefts.into_inner().unwrap_or_else(|p| p.into_inner());
        for entry in lefts.into_iter().flatten() {
            self.place_compact(key_bits, entry);
        }
        let len = self.len.0.get_mut();
        *len += keys.len();
    }
}

/// The value behind `mutex`, whatever a panicking holder left.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::FILL_ORDER_BYTES;
    use crate::table::compact::tests::assert_robin_hood_order;
    use crate::table::format::low_mask;
    use crate::table::{Format, Table};
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// A compact table of six-byte keys filled with `batches` of distinct
    /// keys on `threads` threads, and its words.
    fn filled(batches: &[Vec<u64>], threads: usize, most: usize) -> (Table, Vec<u64>) {
        let format = Format::Compact { key_bits: 48 };
        let mut t = Table::new(format, most, most).unwrap();
        let mut id = 0;
        let mut order = Vec::new();
        for batch in batches {
            let keys: Vec<u64> = batch.iter().map(|&tag| t.key(tag)).collect();
            t.fill_absent(&keys, id, threads, &mut order);
            id += keys.len() as u64;
        }
        // The order a fill leaves is what its callers count: a word a key
        // of the longest batch, no more.
        let longest = batches.iter().map(Vec::len).max().unwrap_or(0);
        assert_eq!(order.capacity() * 8, longest * FILL_ORDER_BYTES);
        let words = t.words.as_mut_slice().to_vec();
        (t, words)
    }

    #[test]
    fn a_fill_in_short_parts_holds_the_same_entries() {
        // The parts a batch too long for its words is cut into keep their
        // ids (no explorer's batch is that long, so a short part stands in).
        let tags: Vec<u64> = (0..5000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & low_mask(48))
            .collect();
        let format = Format::Compact { key_bits: 48 };
        let mut whole = Table::new(format, 6000, 6000).unwrap();
        let mut parts = Table::new(format, 6000, 6000).unwrap();
        let keys: Vec<u64> = tags.iter().map(|&tag| whole.key(tag)).collect();
        let mut order = Vec::new();
        whole.fill_absent(&keys, 10, 2, &mut order);
        parts.fill_in_parts(48, &keys, 10, 2, &mut order, 7);
        assert_eq!(parts.len(), tags.len());
        for (id, &tag) in (10..).zip(&tags) {
            assert_eq!(whole.get(tag, |_| true), Some(id));
            assert_eq!(parts.get(tag, |_| true), Some(id));
        }
        assert_robin_hood_order(&mut parts, 48);
    }

    proptest! {
        /// Filled on any number of threads, the table holds every key with
        /// its id (a hash map as the oracle), no other key, in Robin Hood's
        /// order, and is the same table every time for one thread count.
        #[test]
        fn a_fill_on_threads_holds_what_a_map_holds(
            tags in prop::collection::hash_set(prop_oneof![0u64..4096, any::<u64>()], 1..6000),
            cuts in prop::collection::vec(0usize..6000, 0..4),
            threads in 1usize..5,
            absent in prop::collection::vec(any::<u64>(), 0..300),
        ) {
            let tags: Vec<u64> = tags.into_iter().map(|t| t & low_mask(48)).collect::<std::collections::HashSet<_>>().into_iter().collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (tags.len() + 1)).collect();
            cuts.push(0);
            cuts.push(tags.len());
            cuts.sort_unstable();
            let batches: Vec<Vec<u64>> = cuts.windows(2).map(|w| tags[w[0]..w[1]].to_vec()).collect();
            let oracle: HashMap<u64, u64> = tags.iter().enumerate().map(|(id, &t)| (t, id as u64)).collect();
            // Room for them at the last load, so that buckets crowd.
            let most = tags.len() + tags.len() / 16;
            let (mut t, words) = filled(&batches, threads, most);
            prop_assert_eq!(t.len(), tags.len());
            for (&tag, &id) in &oracle {
                prop_assert_eq!(t.get(tag, |_| true), Some(id));
            }
            for tag in absent {
                let tag = tag & low_mask(48);
                prop_assert_eq!(t.get(tag, |_| true), oracle.get(&tag).copied());
            }
            assert_robin_hood_order(&mut t, 48);
            let (_, again) = filled(&batches, threads, most);
            prop_assert!(words == again, "two fills on {} threads differ", threads);
        }
    }
}
