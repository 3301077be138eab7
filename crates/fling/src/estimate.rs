//! An estimate of how many boards of a piece count above the full tables are
//! solvable (the lists count only the uniquely solvable ones): boards drawn
//! uniformly at random by rank from a fixed seed, each decided by a search
//! down to the largest full table, with a 95% interval from the normal
//! approximation of the binomial. Sample i's board depends only on the seed
//! and i, so the estimate does not depend on the thread count.

use crate::error::FlingError;
use crate::lookup::Tables;
use crate::rank::{boards, unrank};
use crate::tables::run_workers;
use games::fling::Board;
use std::sync::atomic::{AtomicU64, Ordering};

/// Samples handed to a worker at a time.
const BATCH: u64 = 4096;

/// What [`estimate`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// The piece count.
    pub pieces: usize,
    /// Boards of that count, C(56, pieces).
    pub boards: u64,
    /// Boards drawn.
    pub samples: u64,
    /// Drawn boards found solvable.
    pub solvable: u64,
    /// Drawn boards in the count's list of uniquely solvable boards (0 without a list).
    pub unique: u64,
}

impl Estimate {
    /// The estimated number of solvable boards.
    pub fn solvable_boards(&self) -> f64 {
        self.boards as f64 * self.solvable as f64 / self.samples.max(1) as f64
    }

    /// Half the width of the 95% interval of [`Self::solvable_boards`], in boards.
    pub fn margin(&self) -> f64 {
        let n = self.samples.max(1) as f64;
        let p = self.solvable as f64 / n;
        1.96 * (p * (1.0 - p) / n).sqrt() * self.boards as f64
    }
}

/// SplitMix64: a fixed, well-mixed sequence from a seed (no dependency needed).
fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The board of sample `i`: a rank drawn uniformly (up to a bias below 2^-40).
pub(crate) fn sample_board(seed: u64, i: u64, pieces: usize) -> Option<Board> {
    let draw = splitmix(seed ^ splitmix(i));
    let rank = ((u128::from(draw) * u128::from(boards(pieces))) >> 64) as u64;
    unrank(rank, pieces).and_then(Board::from_mask)
}

/// Draws `samples` boards of `pieces` pieces (above the largest full table)
/// and decides each, with `threads` threads.
pub fn estimate(
    tables: &Tables,
    pieces: usize,
    (samples, seed): (u64, u64),
    threads: usize,
) -> Result<Estimate, FlingError> {
    if pieces <= tables.max_pieces() {
        return Err(FlingError::Pieces {
            pieces,
            why: format!(
                "{pieces} pieces have a full table in {}: count it instead",
                tables.dir().display()
            ),
        });
    }
    let list = tables.list(pieces);
    let next = AtomicU64::new(0);
    let counts: Vec<(u64, u64, u64)> = std::thread::scope(|scope| {
        let workers = run_workers(scope, threads, || {
            let (mut drawn, mut solvable, mut unique) = (0, 0, 0);
            loop {
                let first = next.fetch_add(BATCH, Ordering::Relaxed);
                if first >= samples {
                    break;
                }
                for i in first..(first + BATCH).min(samples) {
                    let Some(board) = sample_board(seed, i, pieces) else {
                        continue;
                    };
                    drawn += 1;
                    solvable += u64::from(tables.solvable(board) == Some(true));
                    unique += u64::from(list.is_some_and(|l| l.contains(board.mask())));
                }
            }
            (drawn, solvable, unique)
        });
        workers.into_iter().collect::<Result<Vec<_>, _>>()
    })
    .map_err(|_| FlingError::Pieces {
        pieces,
        why: "a worker thread panicked".into(),
    })?;
    let sum = |f: fn(&(u64, u64, u64)) -> u64| counts.iter().map(f).sum::<u64>();
    Ok(Estimate {
        pieces,
        boards: boards(pieces),
        samples: sum(|c| c.0),
        solvable: sum(|c| c.1),
        unique: sum(|c| c.2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::build;

    #[test]
    fn the_estimate_brackets_the_true_count_and_ignores_the_thread_count() {
        // Tables of 5 give the true count; a directory with only those of 4 estimates it.
        let full = tempfile::tempdir().unwrap();
        let stats = build(full.path(), 5, 2, &|_| {}).unwrap();
        let truth = stats[3].stats.solvable as f64;
        let partial = tempfile::tempdir().unwrap();
        build(partial.path(), 4, 2, &|_| {}).unwrap();
        let tables = Tables::open(partial.path()).unwrap();
        let one = estimate(&tables, 5, (20_000, 7), 1).unwrap();
        assert_eq!(one, estimate(&tables, 5, (20_000, 7), 3).unwrap());
        assert_eq!(one.samples, 20_000);
        let (low, high) = (
            one.solvable_boards() - 1.5 * one.margin(),
            one.solvable_boards() + 1.5 * one.margin(),
        );
        assert!(
            low < truth && truth < high,
            "{low} .. {high} misses {truth}"
        );
        assert!(estimate(&tables, 4, (10, 7), 1).is_err());
    }
}
