//! Filling a compact table with entries known to be absent (the switch from
//! the word layout, a resume) on every thread, with the same table whatever
//! the timing of the threads.
//!
//! The buckets are cut into one range a thread. Every thread reads the
//! whole batch of keys, and places those whose home lies in its range, in
//! the order of their homes (below), Robin Hood's way (see [`super::compact`]), writing
//! only inside its range; an entry that would walk out of it (the last
//! buckets of a range, or past the displacement field) is left over. The
//! leftovers are placed after the batch, on one thread, in range order. So
//! each thread's writes depend only on the batch and its range, and the
//! table on the batches and the thread count: a run's ids never depend on
//! the table's layout, only on what it holds.
//!
//! Each insert into a table far larger than the caches waits for its line:
//! a thread fetches the lines of the key [`AHEAD`] of its own further on
//! (the single-threaded rebuild of room5 spent 90% of its time waiting, and
//! one core can only have so many misses in flight, hence the threads).
//! A thread also places its keys in the order of their homes (binned by a
//! stable counting sort, each bin sorted) rather than in the batch's: in
//! this VM a random read of a 4 GiB table cost about 150 to 300 ns and one
//! in ascending order about 55 ns (the translations of neighbouring homes
//! stay in the TLB, the page walks of random ones cannot overlap much). The
//! order carries each key beside its index: indices alone cost two random
//! reads of the batch a key, more than the ordered table reads saved. The
//! placement's order changes only where ties of Robin Hood's order put
//! entries, never what the table holds.

use super::compact::{place_in, Lines, Shape, LINE_WORDS};
use super::format::Entry;
use super::Table;
use std::sync::Mutex;

/// How many of its keys ahead a thread fetches the lines of.
const AHEAD: usize = 16;

/// Bins of homes a thread orders its keys by (see [`Range::by_home`]): a
/// room5 range's bin spans about 23,000 lines (1.5 MB), within one huge page.
const BINS: usize = 1 << 12;

// A bin's number fits the counting sort's u16.
const _: () = assert!(BINS <= 1 << 16);

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

impl Range<'_> {
    /// Places the keys of `keys` (ids from `first_id` on) whose home lies
    /// in this range, by home or in the batch's order; returns those left
    /// over.
    fn fill(&mut self, shape: Shape, keys: &[u64], first_id: u64, by_home: bool) -> Vec<Entry> {
        let end = self.first + self.words.len() / LINE_WORDS;
        let bounds = self.first..end;
        let order = match by_home {
            true => self.by_home(shape, keys),
            false => self.in_batch_order(shape, keys),
        };
        let mut left = Vec::new();
        for (n, &(key, i)) in order.iter().enumerate() {
            if let Some(&(later, _)) = order.get(n + AHEAD) {
                let at = (shape.home(later) - self.first) * LINE_WORDS;
                store::prefetch(self.words, at);
                store::prefetch(self.words, at + LINE_WORDS);
            }
            let entry = (key, first_id + u64::from(i) + 1);
            left.extend(place_in(self, shape, entry, &bounds));
        }
        left
    }

    /// The keys of `keys` whose home lies in this range, each with its index,
    /// in the batch's order (the order before [`Range::by_home`], kept for the
    /// benchmark that compares the two).
    fn in_batch_order(&self, shape: Shape, keys: &[u64]) -> Vec<(u64, u32)> {
        let bounds = self.first..self.first + self.words.len() / LINE_WORDS;
        let mine = keys.iter().enumerate();
        mine.filter(|&(_, &key)| bounds.contains(&shape.home(key)))
            .map(|(i, &key)| (key, i as u32))
            .collect()
    }

    /// The keys of `keys` whose home lies in this range, each with its index,
    /// in ascending order: a stable counting sort into bins of consecutive
    /// homes (at most [`BINS`]), then each bin sorted, so that the order (and
    /// the table) depends on the batch alone.
    fn by_home(&self, shape: Shape, keys: &[u64]) -> Vec<(u64, u32)> {
        let buckets = self.words.len() / LINE_WORDS;
        // Homes `first + (b << shift)..` fall in bin `b`, for at most `BINS` bins.
        let shift = usize::BITS - (buckets.max(1) - 1).leading_zeros();
        let shift = shift.saturating_sub(BINS.trailing_zeros());
        let mut counts = vec![0u32; BINS + 1];
        let mut mine = Vec::new();
        for (i, &key) in keys.iter().enumerate() {
            let home = shape.home(key);
            if (self.first..self.first + buckets).contains(&home) {
                let bin = (home - self.first) >> shift;
                counts[bin + 1] += 1;
                mine.push((i as u32, bin as u16));
            }
        }
        for b in 1..=BINS {
            counts[b] += counts[b - 1];
        }
        let mut order = vec![(0u64, 0u32); mine.len()];
        for (i, bin) in mine {
            let at = &mut counts[usize::from(bin)];
            order[*at as usize] = (keys[i as usize], i);
            *at += 1;
        }
        // Within a bin, ascending keys (homes) too: consecutive inserts then
        // share their memory pages rather than jump around inside the bin.
        let mut start = 0;
        for &end in &counts[..BINS] {
            order[start..end as usize].sort_unstable();
            start = end as usize;
        }
        order
    }
}

impl Table {
    /// Inserts `keys` (scrambled, as [`Table::key`] gives them), known to be
    /// absent, with ids from `first_id` on, in a compact table no lookup
    /// reads, on `threads` threads (see the module's docs). The caller keeps
    /// the load below capacity.
    pub(super) fn fill_compact(
        &mut self,
        key_bits: u32,
        keys: &[u64],
        first_id: u64,
        threads: usize,
    ) {
        self.fill_compact_ordered(key_bits, keys, first_id, threads, true);
    }

    /// [`Table::fill_compact`], each thread placing its keys by home or in
    /// the batch's order.
    fn fill_compact_ordered(
        &mut self,
        key_bits: u32,
        keys: &[u64],
        first_id: u64,
        threads: usize,
        by_home: bool,
    ) {
        // A thread numbers its keys with u32s (see `Range::by_home`).
        const MOST: usize = 1 << 31;
        if keys.len() > MOST {
            for (k, part) in keys.chunks(MOST).enumerate() {
                let first = first_id + (k * MOST) as u64;
                self.fill_compact_ordered(key_bits, part, first, threads, by_home);
            }
            return;
        }
        let shape = self.shape(key_bits);
        let threads = threads.clamp(1, shape.buckets / 64);
        let per = shape.buckets.div_ceil(threads);
        let mut rest = &mut self.words.as_mut_slice()[..shape.buckets * LINE_WORDS];
        let mut ranges = Vec::with_capacity(threads);
        let mut first = 0;
        while !rest.is_empty() {
            let take = per.min(rest.len() / LINE_WORDS);
            let (words, after) = std::mem::take(&mut rest).split_at_mut(take * LINE_WORDS);
            ranges.push(Range { first, words });
            (first, rest) = (first + take, after);
        }
        let count = ranges.len();
        let queue = Mutex::new(ranges.into_iter().enumerate().collect::<Vec<_>>());
        let lefts = Mutex::new(vec![Vec::new(); count]);
        // Threads take ranges as they go, so a thread the system refuses
        // only leaves its range to the others.
        let work = || loop {
            let Some((i, mut range)) = lock(&queue).pop() else {
                return;
            };
            let left = range.fill(shape, keys, first_id, by_home);
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
    use crate::table::compact::tests::{assert_robin_hood_order, spread};
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
        for batch in batches {
            let keys: Vec<u64> = batch.iter().map(|&tag| t.key(tag)).collect();
            t.fill_absent(&keys, id, threads);
            id += keys.len() as u64;
        }
        let words = t.words.as_mut_slice().to_vec();
        (t, words)
    }

    /// Times the fill of a large compact table (`HSG_FILL_BENCH` keys, default
    /// 150 M, in batches of 2^20 as the switch's rebuild fills it) on two
    /// threads, with each thread's keys placed by home and in the batch's
    /// order, interleaved, three rounds. Run it in release:
    /// `cargo test --release -p explore --lib fill_order_bench -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn fill_order_bench() {
        let n: usize = std::env::var("HSG_FILL_BENCH")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(150_000_000);
        let format = Format::Compact { key_bits: 48 };
        for round in 1..=3 {
            for by_home in [false, true] {
                let mut t = Table::new(format, n, n).unwrap();
                let started = std::time::Instant::now();
                let mut batch = Vec::with_capacity(1 << 20);
                let mut id = 0u64;
                while (id as usize) < n {
                    let len = (n - id as usize).min(1 << 20);
                    batch.clear();
                    // The splitmix64 sequence from `id` on, as `spread` gives it.
                    let tags = spread(id.wrapping_mul(0x9E37_79B9_7F4A_7C15), len, 48);
                    batch.extend(tags.map(|tag| t.key(tag)));
                    t.fill_compact_ordered(48, &batch, id, 2, by_home);
                    id += len as u64;
                }
                let secs = started.elapsed().as_secs_f64();
                println!(
                    "round {round} by_home {by_home}: {n} keys in {secs:.2} s ({:.1} ns a key), {} MiB",
                    secs * 1e9 / n as f64,
                    t.bytes() >> 20
                );
            }
        }
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
