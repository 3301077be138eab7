//! Tests of the retrograde tables against a direct search, and of resuming.

use super::*;
use crate::search::Space;
use crate::{sample_rate, Tables};
use proptest::prelude::*;
use std::sync::OnceLock;

fn no_progress(_: Progress) {}

/// Tables up to 4 pieces, built once for all tests of this module.
fn shared() -> &'static (tempfile::TempDir, Vec<Built>) {
    static TABLES: OnceLock<(tempfile::TempDir, Vec<Built>)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let built = build(dir.path(), 4, 2, &no_progress).unwrap();
        (dir, built)
    })
}

#[test]
fn two_piece_counts_are_the_pairs_on_a_line_with_a_gap() {
    let stats = &shared().1[0].stats;
    // Rows: 8 x (C(7,2) - 6 adjacent pairs); columns: 7 x (C(8,2) - 7).
    let pairs = 8 * (21 - 6) + 7 * (28 - 7);
    assert_eq!((stats.pieces, stats.boards), (2, 1540));
    assert_eq!(
        (stats.with_move, stats.solvable, stats.unique),
        (pairs, pairs, pairs)
    );
    let three = &shared().1[1].stats;
    assert!(three.unique < three.solvable && three.solvable < three.with_move);
}

#[test]
fn results_do_not_depend_on_the_thread_count_and_resume_keeps_finished_counts() {
    let dir = tempfile::tempdir().unwrap();
    let first = build(dir.path(), 3, 1, &no_progress).unwrap();
    assert!(first.iter().all(|b| !b.kept));
    let again = build(dir.path(), 4, 3, &no_progress).unwrap();
    assert_eq!(
        again.iter().map(|b| b.kept).collect::<Vec<_>>(),
        vec![true, true, false]
    );
    for pieces in 2..=4 {
        for what in ["solvable", "unique"] {
            let ours = std::fs::read(table_path(dir.path(), what, pieces)).unwrap();
            let shared = std::fs::read(table_path(shared().0.path(), what, pieces)).unwrap();
            assert!(ours == shared, "{what}-{pieces} differs");
        }
    }
    let stats: Vec<_> = again
        .iter()
        .map(|b| (b.stats.pieces, b.stats.solvable, b.stats.unique))
        .collect();
    let expected: Vec<_> = shared()
        .1
        .iter()
        .map(|b| (b.stats.pieces, b.stats.solvable, b.stats.unique))
        .collect();
    assert_eq!(stats, expected);
}

#[test]
fn a_damaged_count_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, 2, &no_progress).unwrap();
    std::fs::write(table_path(dir.path(), "unique", 3), b"damaged").unwrap();
    let again = build(dir.path(), 3, 2, &no_progress).unwrap();
    assert_eq!(
        again.iter().map(|b| b.kept).collect::<Vec<_>>(),
        vec![true, false]
    );
    assert!(Tables::open(dir.path()).unwrap().level(3).is_ok());
}

#[test]
fn piece_counts_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(build(dir.path(), 1, 1, &no_progress).is_err());
    assert!(build(dir.path(), 40, 1, &no_progress).is_err());
    let tables = Tables::open(dir.path()).unwrap();
    let err = tables.level(5).err().unwrap().to_string();
    assert!(err.contains("no finished tables for 5 pieces"), "{err}");
}

proptest! {
    #[test]
    fn tables_agree_with_a_direct_search(cells in proptest::collection::btree_set(0usize..56, 1..=4)) {
        let mask = cells.iter().fold(0u64, |m, &c| m | 1 << c);
        let board = Board::from_mask(mask).unwrap();
        let tables = Tables::open(shared().0.path()).unwrap();
        let direct = Space::explore(board).solve()[&board];
        prop_assert_eq!(tables.status(board), Some(direct));
    }
}

#[test]
fn every_three_piece_board_and_a_sample_of_four_agree_with_a_direct_search() {
    let tables = Tables::open(shared().0.path()).unwrap();
    let mut solvable = 0;
    for (pieces, step) in [(3usize, 1u64), (4, 97)] {
        for r in (0..crate::rank::boards(pieces)).step_by(step as usize) {
            let board = Board::from_mask(crate::rank::unrank(r, pieces).unwrap()).unwrap();
            let direct = Space::explore(board).solve()[&board];
            assert_eq!(tables.status(board), Some(direct), "\n{}", board.rows());
            solvable += usize::from(direct.0);
        }
    }
    assert!(solvable > 1000);
}

#[test]
fn a_sample_of_every_chunk_counts_like_the_full_build() {
    let scratch = tempfile::tempdir().unwrap();
    let sample = sample_rate(Some(shared().0.path()), scratch.path(), 4, 1000, 2).unwrap();
    let stats = &shared().1[2].stats;
    assert_eq!(
        (sample.boards, sample.solvable, sample.unique),
        (stats.boards, stats.solvable, stats.unique)
    );
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    let stand_in = sample_rate(None, scratch.path(), 4, 2, 1).unwrap();
    assert_eq!(stand_in.boards, 2 * 65_536);
}

#[test]
fn the_depth_first_check_agrees_with_the_tables() {
    let tables = Tables::open(shared().0.path()).unwrap();
    for r in (0..crate::rank::boards(4)).step_by(31) {
        let board = Board::from_mask(crate::rank::unrank(r, 4).unwrap()).unwrap();
        assert_eq!(
            Some(crate::search::solvable(board)),
            tables.status(board).map(|s| s.0)
        );
    }
}
