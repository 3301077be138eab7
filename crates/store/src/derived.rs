//! What a reader derives from the stored run when it first needs it, instead
//! of the writer building it for every run: the in-edges (a parallel
//! counting sort of the out-edges) and the fingerprint index (state
//! fingerprints sorted, for finding a state by its bytes). Both live in the
//! reader's memory for as long as it is open.

use crate::out_edges::OutEdges;
use crate::{InEdge, StateId};
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::xxh3_64;

/// In-edges in memory: `ends[t]` is the end of target `t`'s row in
/// `sources`, whose words are packed [`InEdge`]s, sources ascending in a row.
pub struct InEdges {
    ends: Vec<u64>,
    sources: Vec<AtomicU64>,
}

/// Threads a derivation uses: the machine's, at most four.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

impl InEdges {
    /// Derives the in-edges of `states` states from `out`. Each thread counts
    /// the targets of a range of sources, then scatters that range into the
    /// rows: ranges are in source order and so is each range, so every row
    /// comes out sorted by source whatever the thread count.
    pub fn derive(out: &OutEdges, states: u64) -> InEdges {
        let n = usize::try_from(states).unwrap_or(0);
        let ranges = split(out.rows(), threads());
        let mut counts: Vec<Vec<u32>> = std::thread::scope(|scope| {
            let jobs: Vec<_> = ranges
                .iter()
                .map(|r| scope.spawn(move || count_targets(out, r.clone(), n)))
                .collect();
            jobs.into_iter()
                .map(|j| j.join().unwrap_or_default())
                .collect()
        });
        // Row ends, and each thread's cursor turned into its offset within
        // the row (a row holds fewer than 2^32 in-edges of one thread).
        let mut ends = Vec::with_capacity(n);
        let mut total = 0u64;
        for t in 0..n {
            let mut within = 0u32;
            for c in counts.iter_mut() {
                let here = c[t];
                c[t] = within;
                within += here;
            }
            total += u64::from(within);
            ends.push(total);
        }
        let sources: Vec<AtomicU64> = (0..total).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|scope| {
            for (range, cursor) in ranges.iter().zip(counts.iter_mut()) {
                let (ends, sources) = (&ends, &sources);
                scope.spawn(move || scatter(out, range.clone(), cursor, ends, sources));
            }
        });
        InEdges { ends, sources }
    }

    /// The in-edges of `id`.
    pub fn of(&self, id: StateId) -> impl ExactSizeIterator<Item = InEdge> + '_ {
        let i = usize::try_from(id).unwrap_or(usize::MAX);
        let end = self.ends.get(i).copied().unwrap_or(0) as usize;
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1).copied().unwrap_or(end as u64) as usize,
        };
        self.sources[start.min(end)..end]
            .iter()
            .map(|w| InEdge::unpack(w.load(Ordering::Relaxed)))
    }
}

/// `0..rows` cut into `parts` ranges of about as many rows.
fn split(rows: u64, parts: usize) -> Vec<std::ops::Range<u64>> {
    let parts = parts.max(1) as u64;
    (0..parts)
        .map(|k| rows * k / parts..rows * (k + 1) / parts)
        .collect()
}

fn count_targets(out: &OutEdges, sources: std::ops::Range<u64>, states: usize) -> Vec<u32> {
    let mut counts = vec![0u32; states];
    let edges = out.row(sources.start).start..out.row(sources.end.saturating_sub(1)).end;
    if sources.is_empty() {
        return counts;
    }
    out.for_each(edges, |_, e| {
        if let Some(c) = counts.get_mut(e.target as usize) {
            *c += 1;
        }
    });
    counts
}

fn scatter(
    out: &OutEdges,
    sources: std::ops::Range<u64>,
    cursor: &mut [u32],
    ends: &[u64],
    into: &[AtomicU64],
) {
    for source in sources {
        out.for_each(out.row(source), |_, e| {
            let t = e.target as usize;
            let (Some(c), Some(&end)) = (cursor.get_mut(t), ends.get(t)) else {
                return;
            };
            let start = if t == 0 { 0 } else { ends[t - 1] };
            let at = start + u64::from(*c);
            *c += 1;
            if at < end {
                if let Some(slot) = into.get(at as usize) {
                    let word = InEdge {
                        action: e.action,
                        source,
                    }
                    .pack();
                    slot.store(word, Ordering::Relaxed);
                }
            }
        });
    }
}

/// `(xxh3 of the slot, id)` for every state, sorted.
pub struct Fingerprints {
    pairs: Vec<(u64, u64)>,
}

impl Fingerprints {
    /// Fingerprints the `count` slots that `slot(id)` returns, on several
    /// threads, and sorts them.
    pub fn derive<'a>(count: u64, slot: &(dyn Fn(StateId) -> &'a [u8] + Sync)) -> Fingerprints {
        let ranges = split(count, threads());
        let mut pairs: Vec<(u64, u64)> = std::thread::scope(|scope| {
            let jobs: Vec<_> = ranges
                .iter()
                .map(|r| {
                    let r = r.clone();
                    scope.spawn(move || {
                        let mut part: Vec<(u64, u64)> =
                            r.map(|id| (xxh3_64(slot(id)), id)).collect();
                        part.sort_unstable();
                        part
                    })
                })
                .collect();
            jobs.into_iter()
                .flat_map(|j| j.join().unwrap_or_default())
                .collect()
        });
        pairs.sort_unstable();
        Fingerprints { pairs }
    }

    /// The ids whose slot has fingerprint `fp`.
    pub fn candidates(&self, fp: u64) -> impl Iterator<Item = StateId> + '_ {
        let first = self.pairs.partition_point(|&(f, _)| f < fp);
        self.pairs[first..]
            .iter()
            .take_while(move |&&(f, _)| f == fp)
            .map(|&(_, id)| id)
    }
}
