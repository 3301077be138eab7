//! The disk phase's work split into ranges that run side by side, one a
//! thread: the sort of a round's candidates and their lookups. The ranges and
//! what each returns depend only on the input and the count of ranges, never
//! on which thread ran a range, so ids stay the same whatever the threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs `task(i)` for every `i` in `0..tasks` on up to `tasks` threads (the
/// calling thread among them) and returns the results in order. Threads take
/// the next task left, so a thread the system refuses only leaves more to the
/// others; a panic in a task is raised again when the scope ends (a bug, not
/// an error).
pub fn run_tasks<R: Send>(tasks: usize, task: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = (0..tasks).map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= tasks {
            return;
        }
        let result = task(i);
        if let Ok(mut slot) = results[i].lock() {
            *slot = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..tasks {
            // Refused: the tasks go to the threads that did start.
            let _ = std::thread::Builder::new().spawn_scoped(scope, work);
        }
        work();
    });
    results
        .into_iter()
        .filter_map(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// Sorts `items` with `sort` in `parts` pieces side by side (as
/// [`run_tasks`]); returns the pieces' bounds (one more offset than pieces),
/// each piece sorted.
pub fn sort_pieces<T: Send>(
    items: &mut [T],
    parts: usize,
    sort: impl Fn(&mut [T]) + Sync,
) -> Vec<usize> {
    let parts = parts.clamp(1, items.len().max(1));
    let len = items.len().div_ceil(parts).max(1);
    let mut bounds: Vec<usize> = (0..parts).map(|i| (i * len).min(items.len())).collect();
    bounds.push(items.len());
    let pieces = Mutex::new(items.chunks_mut(len).collect::<Vec<_>>());
    let work = || {
        while let Some(piece) = pieces.lock().ok().and_then(|mut p| p.pop()) {
            sort(piece);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..parts {
            let _ = std::thread::Builder::new().spawn_scoped(scope, work);
        }
        work();
    });
    bounds
}

/// The order in which a k-way merge of the sorted pieces `bounds` of a
/// sequence visits its items, given `less`: calls `emit` with each item's
/// index. Ties go to the earlier piece.
pub fn merge_pieces(
    bounds: &[usize],
    less: impl Fn(usize, usize) -> bool,
    mut emit: impl FnMut(usize),
) {
    let mut heads: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    loop {
        let mut best: Option<usize> = None;
        for (p, &(at, end)) in heads.iter().enumerate() {
            if at < end && best.is_none_or(|b| less(at, heads[b].0)) {
                best = Some(p);
            }
        }
        let Some(p) = best else { return };
        emit(heads[p].0);
        heads[p].0 += 1;
    }
}

/// Writes the sorted pieces `bounds` of `words` merged, in order, into
/// `out`, one `entry`-byte slot a word (`emit` writes a word into its slot),
/// on up to `parts` threads: the output is cut at `parts - 1` words of the
/// largest piece, and each range of it merges the part of every piece that
/// falls between its cuts. Ties go to the earlier piece, as in
/// [`merge_pieces`]. (Merged on one thread, the sorted pieces of a round's
/// candidates left the other core idle through a fifth of the sort.)
pub fn merge_words_into(
    words: &[u64],
    bounds: &[usize],
    parts: usize,
    out: &mut [u8],
    entry: usize,
    emit: impl Fn(u64, &mut [u8]) + Sync,
) {
    let pieces: Vec<&[u64]> = bounds.windows(2).map(|w| &words[w[0]..w[1]]).collect();
    let Some(largest) = pieces.iter().max_by_key(|p| p.len()) else {
        return;
    };
    let parts = parts.clamp(1, largest.len().max(1));
    // Cut `c` of piece `i`: its words before the `c`-th splitter.
    let splitters: Vec<u64> = (1..parts)
        .map(|c| largest[c * largest.len() / parts])
        .collect();
    let cuts: Vec<Vec<usize>> = pieces
        .iter()
        .map(|piece| {
            let inner = splitters.iter().map(|&v| piece.partition_point(|&w| w < v));
            std::iter::once(0)
                .chain(inner)
                .chain(std::iter::once(piece.len()))
                .collect()
        })
        .collect();
    let mut slots = Vec::with_capacity(parts);
    let mut rest = out;
    for c in 0..parts {
        let len: usize = cuts.iter().map(|cut| cut[c + 1] - cut[c]).sum();
        let (slot, tail) = rest.split_at_mut((len * entry).min(rest.len()));
        slots.push(Some(slot));
        rest = tail;
    }
    let slots = Mutex::new(slots);
    run_tasks(parts, |c| {
        let Some(slot) = slots.lock().ok().and_then(|mut s| s[c].take()) else {
            return;
        };
        let mut heads: Vec<&[u64]> = pieces
            .iter()
            .zip(&cuts)
            .map(|(piece, cut)| &piece[cut[c]..cut[c + 1]])
            .collect();
        for place in slot.chunks_exact_mut(entry) {
            let mut best: Option<usize> = None;
            for (p, head) in heads.iter().enumerate() {
                if let Some(&w) = head.first() {
                    if best.is_none_or(|b| w < heads[b][0]) {
                        best = Some(p);
                    }
                }
            }
            let Some(p) = best else { return };
            emit(heads[p][0], place);
            heads[p] = &heads[p][1..];
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Sorting in pieces and merging them gives the plain sort, for any
        /// count of pieces, more pieces than items included.
        #[test]
        fn pieces_merged_give_the_plain_sort(
            mut items in proptest::collection::vec(0u32..50, 0..300),
            parts in 1usize..9,
        ) {
            let mut expected = items.clone();
            expected.sort_unstable();
            let bounds = sort_pieces(&mut items, parts, |p| p.sort_unstable());
            prop_assert_eq!(bounds.len(), parts.clamp(1, items.len().max(1)) + 1);
            let mut merged = Vec::new();
            merge_pieces(&bounds, |a, b| items[a] < items[b], |i| merged.push(items[i]));
            prop_assert_eq!(merged, expected);
        }
    }

    proptest! {
        /// Words sorted in pieces and merged on several threads give the
        /// plain sort, whatever the counts of pieces and threads.
        #[test]
        fn words_merged_on_threads_give_the_plain_sort(
            mut words in proptest::collection::vec(0u64..60, 0..400),
            pieces in 1usize..5,
            threads in 1usize..5,
        ) {
            let mut expected = words.clone();
            expected.sort_unstable();
            let bounds = sort_pieces(&mut words, pieces, |p| p.sort_unstable());
            let mut out = vec![0u8; words.len() * 8];
            merge_words_into(&words, &bounds, threads, &mut out, 8, |w, slot| {
                slot.copy_from_slice(&w.to_be_bytes());
            });
            let got: Vec<u64> = out
                .chunks_exact(8)
                .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
                .collect();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn tasks_return_their_results_in_order() {
        assert_eq!(run_tasks(5, |i| i * 10), vec![0, 10, 20, 30, 40]);
        assert_eq!(run_tasks(1, |i| i + 1), vec![1]);
    }
}
