//! The analysis's passes over every state on every core: the states are cut into
//! ranges, one thread a range, and the ranges' results come back in range order, so
//! that a result folded from them is the same whatever the thread count.

use std::ops::Range;

/// Items below which a pass runs on the calling thread alone: a thread costs more than
/// a pass over so few states.
const SERIAL_BELOW: u64 = 1 << 16;

/// Threads a pass over `items` states uses: every core the process may use, one for a
/// small graph.
pub(crate) fn threads_for(items: u64) -> usize {
    if items < SERIAL_BELOW {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |t| t.get())
}

/// `0..n` cut into `parts` consecutive ranges of about as many items (at least one).
pub(crate) fn ranges(n: u64, parts: usize) -> Vec<Range<u64>> {
    let parts = parts.max(1) as u64;
    (0..parts)
        .map(|k| n * k / parts..n * (k + 1) / parts)
        .collect()
}

/// Runs `work` on each range of `0..n` cut for `threads` threads (the first range on
/// the calling thread) and returns the results in range order. A panic in a thread
/// (a bug) is raised again here.
pub(crate) fn map_ranges<T: Send>(
    n: u64,
    threads: usize,
    work: impl Fn(Range<u64>) -> T + Sync,
) -> Vec<T> {
    let cut = ranges(n, threads);
    if cut.len() == 1 {
        return vec![work(cut[0].clone())];
    }
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = cut[1..]
            .iter()
            .map(|r| {
                let r = r.clone();
                scope.spawn(move || work(r))
            })
            .collect();
        let mut results = vec![work(cut[0].clone())];
        results.extend(
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        results
    })
}

/// Calls `work` on `words` cut into one slice a thread, at once.
pub(crate) fn for_each_slice<T: Send>(
    words: &mut [T],
    threads: usize,
    work: impl Fn(&mut [T]) + Sync,
) {
    let per = words.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let work = &work;
        let mut slices = words.chunks_mut(per);
        let first = slices.next();
        let handles: Vec<_> = slices.map(|s| scope.spawn(move || work(s))).collect();
        if let Some(first) = first {
            work(first);
        }
        for h in handles {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_everything_in_order() {
        for n in [0u64, 1, 7, 100] {
            for parts in [0usize, 1, 3, 8] {
                let r = ranges(n, parts);
                assert_eq!(r.len(), parts.max(1));
                assert_eq!(r[0].start, 0);
                assert_eq!(r.last().unwrap().end, n);
                assert!(r.windows(2).all(|w| w[0].end == w[1].start));
            }
        }
    }

    #[test]
    fn results_come_back_in_range_order() {
        let sums = map_ranges(1000, 4, |r| r.sum::<u64>());
        assert_eq!(sums.len(), 4);
        assert_eq!(sums.iter().sum::<u64>(), 999 * 1000 / 2);
        assert!(sums.windows(2).all(|w| w[0] < w[1]));
    }
}
