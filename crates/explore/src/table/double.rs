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

use super::{mix, place, Table};
use std::sync::Mutex;

/// Smallest band worth spreading over threads; below it, the sweep.
pub(super) const MIN_BAND: usize = 1 << 15;

/// An entry waiting for its place: `(tag, id + 1)`.
type Entry = (u64, u64);

impl Table {
    /// Doubles the table inside its reservation on `threads` threads, bands
    /// down to `min_band` slots going in parallel (see the module's docs).
    pub(super) fn double_in_place(&mut self, threads: usize, min_band: usize) {
        let old = self.slots;
        let new = 2 * old;
        self.slots = new;
        self.shift -= 1;
        let shift = self.shift;
        let w = &mut self.words.as_mut_slice()[..2 * new];
        let mut aside = Vec::new();
        let mut low = old;
        while threads > 1 && low / 2 >= min_band.max(1) {
            low /= 2;
            aside.extend(move_band(w, low, threads, shift));
        }
        sweep(w, low, shift, &mut aside);
        for (tag, id1) in aside {
            place(w, (mix(tag) >> shift) as usize, new - 1, tag, id1);
        }
    }
}

/// Moves the entries of slots `a..2a` to `2a..4a` (empty) on `threads`
/// threads; returns the entries set aside.
fn move_band(w: &mut [u64], a: usize, threads: usize, shift: u32) -> Vec<Entry> {
    let (source, rest) = w[2 * a..].split_at_mut(2 * a);
    let target = &mut rest[..4 * a];
    let per = a.div_ceil(threads);
    let slices: Vec<Mutex<Option<Slice<'_>>>> = source
        .chunks_mut(2 * per)
        .zip(target.chunks_mut(4 * per))
        .enumerate()
        .map(|(k, (from, to))| Mutex::new(Some((2 * (a + k * per), from, to))))
        .collect();
    std::thread::scope(|scope| {
        let moves: Vec<_> = slices
            .iter()
            .map(|slice| {
                // The move is a copyable closure over its slice's cell, so a slice whose
                // thread the system refuses moves on this one: the doubling is half
                // done and must end whatever the thread count.
                let run = move || move_taken(slice, shift);
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

/// A band's slice to move: its first slot in the doubled table, its source and target.
type Slice<'w> = (usize, &'w mut [u64], &'w mut [u64]);

/// Moves the slice in `cell` (taken once, by whichever thread runs this).
fn move_taken(cell: &Mutex<Option<Slice<'_>>>, shift: u32) -> Vec<Entry> {
    let taken = cell.lock().map_or(None, |mut slice| slice.take());
    taken.map_or_else(Vec::new, |(first, from, to)| {
        move_slice(from, to, first, shift)
    })
}

/// Moves every entry of `from` into `to`, whose first slot is slot `first`
/// of the doubled table, from the top down; an entry whose place is not in
/// `to` goes aside.
fn move_slice(from: &mut [u64], to: &mut [u64], first: usize, shift: u32) -> Vec<Entry> {
    let slots = to.len() / 2;
    let mut aside = Vec::new();
    for pair in from.chunks_exact_mut(2).rev() {
        let (tag, id1) = (pair[0], pair[1]);
        if id1 == 0 {
            continue;
        }
        pair.fill(0);
        let home = (mix(tag) >> shift) as usize;
        let placed = home
            .checked_sub(first)
            .is_some_and(|p| p < slots && place_from(to, p, tag, id1));
        if !placed {
            aside.push((tag, id1));
        }
    }
    aside
}

/// Moves the entries of slots `..below` of the doubled table `w` to their
/// places with one backward sweep (the slots above are moved already).
fn sweep(w: &mut [u64], below: usize, shift: u32, aside: &mut Vec<Entry>) {
    for i in (0..below).rev() {
        let (tag, id1) = (w[2 * i], w[2 * i + 1]);
        if id1 == 0 {
            continue;
        }
        w[2 * i] = 0;
        w[2 * i + 1] = 0;
        let home = (mix(tag) >> shift) as usize;
        if home <= i || !place_from(w, home, tag, id1) {
            aside.push((tag, id1));
        }
    }
}

/// Puts `[tag, id1]` in the first empty slot of `w` from slot `p` on,
/// without wrapping; false when there is none.
fn place_from(w: &mut [u64], mut p: usize, tag: u64, id1: u64) -> bool {
    let slots = w.len() / 2;
    while p < slots && w[2 * p + 1] != 0 {
        p += 1;
    }
    if p == slots {
        return false;
    }
    w[2 * p] = tag;
    w[2 * p + 1] = id1;
    true
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

    proptest! {
        #[test]
        fn doubling_keeps_every_entry_on_any_number_of_threads(
            tags in crowded_tags(),
            start in 16usize..64,
            threads in 1usize..4,
            min_band in 1usize..40,
        ) {
            let mut t = Table::with_room(start, 4096).unwrap();
            let mut want = std::collections::HashMap::new();
            for tag in tags {
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
        }
    }
}
