//! Filling a compact table with entries known to be absent (the switch from
//! the word layout, a resume) on every thread, with the same table whatever
//! the timing of the threads.
//!
//! The buckets are cut into one range a thread. Every thread reads the
//! whole batch of keys, and places those whose home lies in its range, in
//! the batch's order, Robin Hood's way (see [`super::compact`]), writing
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

use super::compact::{place_in, Lines, Shape, LINE_WORDS};
use super::format::Entry;
use super::Table;
use std::sync::Mutex;

/// How many of its keys ahead a thread fetches the lines of.
const AHEAD: usize = 16;

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
    /// in this range; returns those left over.
    fn fill(&mut self, shape: Shape, keys: &[u64], first_id: u64) -> Vec<Entry> {
        let end = self.first + self.words.len() / LINE_WORDS;
        let bounds = self.first..end;
        let mine = || {
            keys.iter()
                .enumerate()
                .filter(|&(_, &key)| bounds.contains(&shape.home(key)))
        };
        let mut ahead = mine().skip(AHEAD);
        let mut left = Vec::new();
        for (i, &key) in mine() {
            if let Some((_, &later)) = ahead.next() {
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
    /// reads, on `threads` threads (see the module's docs). The caller keeps
    /// the load below capacity.
    pub(super) fn fill_compact(
        &mut self,
        key_bits: u32,
        keys: &[u64],
        first_id: u64,
        threads: usize,
    ) {
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
            let left = range.fill(shape, keys, first_id);
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
        for batch in batches {
            let keys: Vec<u64> = batch.iter().map(|&tag| t.key(tag)).collect();
            t.fill_absent(&keys, id, threads);
            id += keys.len() as u64;
        }
        let words = t.words.as_mut_slice().to_vec();
        (t, words)
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
