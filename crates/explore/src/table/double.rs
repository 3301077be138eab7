//! The table's in-place doubling, spread over threads.
//!
//! Home `h` becomes `2h` or `2h + 1` when the table doubles, so an entry
//! found at slot `i` nearly always belongs above `i` afterwards. That makes
//! two kinds of move possible without a second table:
//!
//! - **Bands, in parallel.** The entries of slots `a..2a` belong in
//!   `2a..4a`, and once everything above `2a` has moved up, `2a..4a` is
//!   empty. So the doubling moves `old/2..old` to `old..2old`, then
//!   `old/4..old/2` to `old/2..old`, and so on, each band cut into one
//!   slice a thread: sources and destinations of a band never overlap, and
//!   each thread writes only inside its own destination slice.
//! - **A sweep, sequential.** What is left below the last band moves with a
//!   backward sweep: each entry goes to its new place above the sweep,
//!   where every slot is either new or already swept.
//!
//! An entry whose new place is not where its move may write (its cluster
//! crosses a slice's edge, or wraps around the end of the table) waits
//! aside and is inserted when everything else has moved. Every step only
//! adds entries to the new table, so linear probing's invariant (no gap
//! between an entry and its home) holds throughout. Reads and writes run
//! backwards through memory, a page after another.
//!
//! Cost: one read and one write of each entry, `O(slots)`; the bands take
//! all but the smallest `min_band` slots, split evenly over the threads.

use super::format::{Entry, Fields, Format};
use super::Table;
use std::sync::Mutex;

/// Smallest band worth spreading over threads; below it, the sweep.
pub(super) const MIN_BAND: usize = 1 << 15;

/// One doubling's layout: entries are read as in the table of `2^from`
/// slots and written as in the table of `2^to`.
#[derive(Clone, Copy)]
struct Moves {
    format: Format,
    from: u32,
    to: u32,
}

impl Table {
    /// Doubles the table inside its reservation on `threads` threads, bands
    /// down to `min_band` slots going in parallel (see the module's docs).
    pub(super) fn double_in_place(&mut self, threads: usize, min_band: usize) {
        let old = self.slots;
        let moves = Moves {
            format: self.format,
            from: self.log2,
            to: self.log2 + 1,
        };
        self.slots = 2 * old;
        self.log2 += 1;
        let w = &mut self.words.as_mut_slice()[..moves.format.words() * 2 * old];
        let mut aside = Vec::new();
        let mut low = old;
        while threads > 1 && low / 2 >= min_band.max(1) {
            low /= 2;
            aside.extend(moves.band(w, low, threads));
        }
        moves.sweep(w, low, &mut aside);
        aside.extend(self.take_overflow());
        for entry in aside {
            self.place(entry);
        }
    }
}

/// A band's slice to move: the first slot of its source and of its target
/// in the table, and their words.
type Slice<'w> = (usize, usize, &'w mut [u64], &'w mut [u64]);

impl Moves {
    /// Moves the entries of slots `a..2a` to `2a..4a` (empty) on `threads`
    /// threads; returns the entries set aside.
    fn band(self, w: &mut [u64], a: usize, threads: usize) -> Vec<Entry> {
        let n = self.format.words();
        let (source, rest) = w[n * a..].split_at_mut(n * a);
        let target = &mut rest[..2 * n * a];
        let per = a.div_ceil(threads);
        let slices: Vec<Mutex<Option<Slice<'_>>>> = source
            .chunks_mut(n * per)
            .zip(target.chunks_mut(2 * n * per))
            .enumerate()
            .map(|(k, (from, to))| Mutex::new(Some((a + k * per, 2 * (a + k * per), from, to))))
            .collect();
        std::thread::scope(|scope| {
            let moves: Vec<_> = slices
                .iter()
                .map(|slice| {
                    // The move is a copyable closure over its slice's cell, so a slice whose
                    // thread the system refuses moves on this one: the doubling is half
                    // done and must end whatever the thread count.
                    let run = move || self.move_taken(slice);
                    std::thread::Builder::new()
                        .spawn_scoped(scope, run)
                        .map_err(|_| run)
                })
                .collect();
            moves
                .into_iter()
                .flat_map(|m| match m {
                    Ok(handle) => handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    Err(run) => run(),
                })
                .collect()
        })
    }

    /// Moves the slice in `cell` (taken once, by whichever thread runs this).
    fn move_taken(self, cell: &Mutex<Option<Slice<'_>>>) -> Vec<Entry> {
        let taken = cell.lock().map_or(None, |mut slice| slice.take());
        taken.map_or_else(Vec::new, |(from_first, to_first, from, to)| {
            self.move_slice(from, from_first, to, to_first)
        })
    }

    /// Moves every entry of `from` (whose first slot is `from_first`) into
    /// `to` (whose first slot is `to_first`), from the top down; an entry
    /// whose place is not in `to` goes aside.
    fn move_slice(
        self,
        from: &mut [u64],
        from_first: usize,
        to: &mut [u64],
        to_first: usize,
    ) -> Vec<Entry> {
        let n = self.format.words();
        let slots = to.len() / n;
        let mut aside = Vec::new();
        if let Format::Packed { key_bits } = self.format {
            for k in (0..from.len()).rev() {
                let word = std::mem::take(&mut from[k]);
                if word == 0 {
                    continue;
                }
                let lifted = self.lift(key_bits, word, from_first + k);
                let placed = lifted.home.checked_sub(to_first).is_some_and(|p| {
                    p < slots && self.place_packed(key_bits, to, to_first, p, lifted)
                });
                if !placed {
                    aside.extend(self.format.read(&[word], from_first + k, self.from));
                }
            }
            return aside;
        }
        for (k, slot) in from.chunks_exact_mut(n).enumerate().rev() {
            let Some(entry) = self.format.read(slot, from_first + k, self.from) else {
                continue;
            };
            slot.fill(0);
            let home = self.format.home(entry.0, self.to);
            let placed = home
                .checked_sub(to_first)
                .is_some_and(|p| p < slots && self.place_from(to, to_first, p, entry));
            if !placed {
                aside.push(entry);
            }
        }
        aside
    }

    /// Moves the entries of slots `..below` of the doubled table `w` to their
    /// places with one backward sweep (the slots above are moved already).
    fn sweep(self, w: &mut [u64], below: usize, aside: &mut Vec<Entry>) {
        if let Format::Packed { key_bits } = self.format {
            for i in (0..below).rev() {
                let word = std::mem::take(&mut w[i]);
                if word == 0 {
                    continue;
                }
                let lifted = self.lift(key_bits, word, i);
                if lifted.home <= i || !self.place_packed(key_bits, w, 0, lifted.home, lifted) {
                    aside.extend(self.format.read(&[word], i, self.from));
                }
            }
            return;
        }
        let n = self.format.words();
        for i in (0..below).rev() {
            let slot = &mut w[n * i..n * i + n];
            let Some(entry) = self.format.read(slot, i, self.from) else {
                continue;
            };
            slot.fill(0);
            let home = self.format.home(entry.0, self.to);
            if home <= i || !self.place_from(w, 0, home, entry) {
                aside.push(entry);
            }
        }
    }

    /// The packed `word` read at slot `at` of the old table, as the doubled
    /// table will hold it: what [`Format::read`] then [`Format::write`] give,
    /// without rebuilding the key.
    #[inline]
    fn lift(self, key_bits: u32, word: u64, at: usize) -> Fields {
        Fields::of(key_bits, word, at, self.from).doubled(key_bits, self.from)
    }

    /// Writes `lifted` into the first empty slot of `w` (whose first slot is
    /// `first`) from its slot `p` on, without wrapping; false when there is
    /// none, or when its fields cannot say the distance from home.
    #[inline]
    fn place_packed(
        self,
        key_bits: u32,
        w: &mut [u64],
        first: usize,
        mut p: usize,
        lifted: Fields,
    ) -> bool {
        while p < w.len() && w[p] != 0 {
            p += 1;
        }
        let word = (p < w.len())
            .then(|| lifted.word(key_bits, (first + p - lifted.home) as u64, self.to))
            .flatten();
        if let Some(word) = word {
            w[p] = word;
        }
        word.is_some()
    }

    /// Puts `entry` in the first empty slot of `w` (whose first slot is
    /// `first`) from its slot `p` on, without wrapping; false when there is
    /// none, or when that slot's layout cannot say the entry.
    fn place_from(self, w: &mut [u64], first: usize, mut p: usize, entry: Entry) -> bool {
        let n = self.format.words();
        let slots = w.len() / n;
        while p < slots && !self.format.is_empty(&w[n * p..n * p + n]) {
            p += 1;
        }
        p < slots
            && self
                .format
                .write(&mut w[n * p..n * p + n], first + p, self.to, entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Tags that crowd a small table: many share a home, and some clusters
    /// wrap around the end, the cases the doubling sets aside.
    fn crowded_tags() -> impl Strategy<Value = Vec<u64>> {
        prop::collection::vec(prop_oneof![0u64..64, any::<u64>()], 1..600)
    }

    /// Every layout: wide, packed, and packed with a two-bit displacement
    /// field, whose long probe sequences go to the overflow list.
    fn formats() -> impl Strategy<Value = Format> {
        prop_oneof![
            Just(Format::Wide),
            Just(Format::Packed { key_bits: 40 }),
            Just(Format::Packed { key_bits: 62 }),
        ]
    }

    proptest! {
        #[test]
        fn doubling_keeps_every_entry_on_any_number_of_threads(
            tags in crowded_tags(),
            format in formats(),
            start in 16usize..64,
            threads in 1usize..4,
            min_band in 1usize..40,
        ) {
            let mut t = Table::new(format, start, 4096).unwrap();
            let mut want = std::collections::HashMap::new();
            for tag in tags {
                // A packed table takes keys of its width only.
                let tag = match format {
                    Format::Packed { key_bits } | Format::Compact { key_bits } => {
                        tag & super::super::format::low_mask(key_bits)
                    }
                    Format::Wide => tag,
                };
                if t.len() >= t.capacity() {
                    let cap = t.capacity();
                    t.grow_with(cap + 1, threads, min_band).unwrap();
                }
                let next = want.len() as u64;
                let got = t.get_or_insert(tag, next, |_| true);
                let id = *want.entry(tag).or_insert(next);
                prop_assert_eq!(got.unwrap_or_else(|e| e), id);
            }
            let len = t.len();
            t.grow_with(len * 4, threads, min_band).unwrap();
            prop_assert_eq!(t.len(), want.len());
            for (&tag, &id) in &want {
                prop_assert_eq!(t.get(tag, |_| true), Some(id));
            }
            // Past the reservation, into a new one.
            t.grow_with(8192, threads, min_band).unwrap();
            for (&tag, &id) in &want {
                prop_assert_eq!(t.get(tag, |_| true), Some(id));
            }
        }
    }
}
