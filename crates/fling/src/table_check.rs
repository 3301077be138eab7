//! An independent check of a finished table: boards drawn uniformly at random
//! by rank, each solved by the direct search of `search.rs` (the rules alone,
//! no table) and compared with the table's two bits; and, when the count also
//! has a list of its uniquely solvable boards (found by another method), every
//! listed board looked up in the table.

use crate::error::FlingError;
use crate::estimate::sample_board;
use crate::lookup::{Level, Tables};
use crate::search::Space;
use crate::tables::run_workers;
use games::fling::Board;
use std::sync::atomic::{AtomicU64, Ordering};

/// Samples handed to a worker at a time (direct searches are slow, so few).
const BATCH: u64 = 16;

/// What [`table_check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableCheck {
    /// Boards drawn and solved directly.
    pub samples: u64,
    /// Drawn boards the direct search found solvable.
    pub solvable: u64,
    /// Drawn boards the direct search found uniquely solvable.
    pub unique: u64,
    /// Listed boards looked up in the table (0 without a list).
    pub listed: u64,
    /// Listed boards whose table bit says they are not uniquely solvable.
    pub listed_missing: u64,
    /// Drawn boards (masks) on which the search and the table disagree, sorted.
    pub disagreements: Vec<u64>,
}

/// Draws `samples` boards of `pieces` (which must have a table) from `seed`,
/// solves each directly with `threads` threads, and compares with the table;
/// then looks every board of the count's list up in the table.
pub fn table_check(
    tables: &Tables,
    pieces: usize,
    (samples, seed): (u64, u64),
    threads: usize,
) -> Result<TableCheck, FlingError> {
    let level = tables.level(pieces)?;
    let next = AtomicU64::new(0);
    // Each worker sums its own batches; the totals are merged after the join,
    // so no batch can be lost to a shared lock.
    let joined = std::thread::scope(|scope| {
        run_workers(scope, threads, || {
            let mut part = TableCheck::default();
            loop {
                let first = next.fetch_add(BATCH, Ordering::Relaxed);
                if first >= samples {
                    return part;
                }
                for i in first..(first + BATCH).min(samples) {
                    if let Some(board) = sample_board(seed, i, pieces) {
                        part.compare(board, level);
                    }
                }
            }
        })
    });
    let mut check = TableCheck::default();
    for part in joined {
        check.merge(part.map_err(|_| FlingError::Pieces {
            pieces,
            why: "a worker thread of the table check panicked".into(),
        })?);
    }
    check.disagreements.sort_unstable();
    if let Some(list) = tables.list(pieces) {
        for &mask in list.boards() {
            check.listed += 1;
            check.listed_missing += u64::from(!level.unique.get(level.index(mask)));
        }
    }
    Ok(check)
}

impl TableCheck {
    /// Solves `board` directly and compares the answer with `level`'s bits.
    fn compare(&mut self, board: Board, level: &Level) {
        let direct = Space::explore(board)
            .solve()
            .get(&board)
            .copied()
            .unwrap_or_default();
        let r = level.index(board.mask());
        self.samples += 1;
        self.solvable += u64::from(direct.0);
        self.unique += u64::from(direct.1);
        if direct != (level.solvable.get(r), level.unique.get(r)) {
            self.disagreements.push(board.mask());
        }
    }

    /// Adds a worker's totals.
    fn merge(&mut self, part: TableCheck) {
        self.samples += part.samples;
        self.solvable += part.solvable;
        self.unique += part.unique;
        self.disagreements.extend(part.disagreements);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::build_lists;
    use crate::tables::build;

    #[test]
    fn true_tables_pass_and_a_flipped_bit_is_found() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 5, 2, &|_| {}).unwrap();
        let tables = Tables::open(dir.path()).unwrap();
        let one = table_check(&tables, 5, (3_000, 11), 1).unwrap();
        assert_eq!(one, table_check(&tables, 5, (3_000, 11), 3).unwrap());
        assert_eq!(one.samples, 3_000);
        assert!(one.solvable > 0 && one.unique > 0, "{one:?}");
        assert!(one.disagreements.is_empty(), "{one:?}");
        drop(tables);

        // Flip the solvable bit of the first drawn board (in its canonical
        // place, where the lookup reads it): the check must name that board.
        let board = sample_board(11, 0, 5).unwrap();
        let r = Tables::open(dir.path())
            .unwrap()
            .level(5)
            .unwrap()
            .index(board.mask());
        flip_bit(&crate::table_path(dir.path(), "solvable", 5), r);
        let tables = Tables::open(dir.path()).unwrap();
        let check = table_check(&tables, 5, (3_000, 11), 2).unwrap();
        assert!(check.disagreements.contains(&board.mask()), "{check:?}");
    }

    #[test]
    fn a_list_is_compared_with_the_table() {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 5, 2, &|_| {}).unwrap();
        build_lists(dir.path(), 4, 5, 2, &|_| {}).unwrap();
        let tables = Tables::open(dir.path()).unwrap();
        let check = table_check(&tables, 5, (10, 1), 2).unwrap();
        assert!(check.listed > 0);
        assert_eq!(check.listed_missing, 0);
    }

    /// Flips bit `r` of a bit table file in place, through the store's writer.
    fn flip_bit(path: &std::path::Path, r: u64) {
        let kind = "fling-solvable-5";
        let table = store::BitTable::open(path, kind, false).unwrap();
        let (words, bits) = (table.words().to_vec(), table.len_bits());
        drop(table);
        let writer = store::BitTableWriter::create(path, kind, bits).unwrap();
        for (i, &w) in words.iter().enumerate() {
            let flipped = if i as u64 == r / 64 {
                w ^ (1 << (r % 64))
            } else {
                w
            };
            writer.store_word(i, flipped).unwrap();
        }
        writer.finish().unwrap();
    }
}
