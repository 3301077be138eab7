//! Tests of the retrograde tables against a direct search, and of resuming.

use super::*;
use crate::chunk::DONE;
use crate::search::Space;
use crate::step::{classify_with, previous_words, Step, GROUP};
use crate::{sample_rate, Sampling, Tables};
use games::fling::Board;
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
    let sample = sample_rate(
        Some(shared().0.path()),
        scratch.path(),
        4,
        Sampling::new(1000),
        (2, Step::Fast, Layout::Full),
    )
    .unwrap();
    let stats = &shared().1[2].stats;
    assert_eq!(
        (sample.boards, sample.solvable, sample.unique),
        (stats.boards, stats.solvable, stats.unique)
    );
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    let stand_in = sample_rate(
        None,
        scratch.path(),
        4,
        Sampling::new(2),
        (1, Step::Reference, Layout::Full),
    )
    .unwrap();
    assert_eq!(stand_in.boards, 2 * 65_536);
    // The upper half of the chunks only: every board from the third chunk on.
    let upper = Sampling {
        region: (0.5, 1.0),
        ..Sampling::new(1000)
    };
    let half = sample_rate(
        Some(shared().0.path()),
        scratch.path(),
        4,
        upper,
        (1, Step::Fast, Layout::Full),
    )
    .unwrap();
    assert_eq!(half.boards, stats.boards - 2 * 65_536);
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

/// The words of one table file after its header.
fn table_bytes(dir: &Path, what: &str, pieces: usize) -> Vec<u8> {
    std::fs::read(table_path(dir, what, pieces)).unwrap()
}

#[test]
fn the_fast_step_classifies_every_board_as_the_reference_step() {
    let tables = Tables::open(shared().0.path()).unwrap();
    for pieces in 2..=5usize {
        let level = (pieces > 2).then(|| tables.level(pieces - 1).unwrap());
        let previous = previous_words(level, None);
        let total = crate::rank::boards(pieces);
        let mut mask = crate::rank::unrank(0, pieces).unwrap();
        let (mut fast, mut reference) = (
            [(false, false, false); GROUP],
            [(false, false, false); GROUP],
        );
        let mut masks = Vec::with_capacity(GROUP);
        for r in 0..total {
            masks.push(mask);
            mask = next_combination(mask);
            if masks.len() == GROUP || r + 1 == total {
                classify_with(Step::Fast, &masks, pieces, &previous, &mut fast);
                classify_with(Step::Reference, &masks, pieces, &previous, &mut reference);
                assert_eq!(
                    fast[..masks.len()],
                    reference[..masks.len()],
                    "{pieces} pieces near rank {r}"
                );
                masks.clear();
            }
        }
    }
}

/// A killed pass of 5 pieces over the tables of 4 in `dir`: the chunks
/// `done` and the last one computed with `step` and recorded, the others not.
fn cut_pass(dir: &Path, (layout, step): (Layout, Step), done: &[u64]) -> Pass {
    let (pieces, total) = (5, crate::rank::boards(5));
    let chunks = total.div_ceil(CHUNK);
    let pass = Pass::open(dir, pieces, chunks).unwrap();
    let mut level = Level::open(dir, pieces - 1, false).unwrap();
    level.layout = layout;
    let previous = previous_words(Some(&level), None);
    for &chunk in done.iter().chain([chunks - 1].iter()) {
        let (start, end) = (chunk * CHUNK, ((chunk + 1) * CHUNK).min(total));
        let out = Out {
            solvable: &pass.solvable,
            unique: &pass.unique,
            records: Some(&pass.chunks),
            layout,
        };
        let counts = compute_range(pieces, start, end, &previous, step, &out).unwrap();
        pass.chunks
            .store_word(chunk as usize, encode(counts))
            .unwrap();
    }
    pass
}

#[test]
fn an_interrupted_pass_resumes_to_the_same_bytes() {
    let whole = tempfile::tempdir().unwrap();
    build(whole.path(), 5, 2, &no_progress).unwrap();
    let cut = tempfile::tempdir().unwrap();
    build(cut.path(), 4, 1, &no_progress).unwrap();
    // A killed pass of 5 pieces: some chunks done and recorded, one half
    // written with garbage and not recorded.
    let pieces = 5;
    let pass = cut_pass(cut.path(), (Layout::Full, Step::Fast), &[0, 3]);
    for word in (5 * CHUNK / 64) as usize..(5 * CHUNK / 64) as usize + 100 {
        pass.solvable.store_word(word, 0x5555_5555).unwrap();
    }
    drop(pass);
    let resumed = build(cut.path(), 5, 2, &no_progress).unwrap();
    assert!(resumed[..3].iter().all(|b| b.kept) && !resumed[3].kept);
    for what in ["solvable", "unique"] {
        assert!(
            table_bytes(whole.path(), what, pieces) == table_bytes(cut.path(), what, pieces),
            "{what}"
        );
    }
    let counts = |dir: &Path| {
        let stats = crate::manifest::read(dir).unwrap();
        stats
            .iter()
            .map(|s| (s.pieces, s.with_move, s.solvable, s.unique))
            .collect::<Vec<_>>()
    };
    assert_eq!(counts(whole.path()), counts(cut.path()));
    assert!(!table_path(cut.path(), "chunks", pieces).exists());
}

#[test]
fn the_symmetric_step_writes_the_same_tables_as_the_fast_step() {
    // Both steps in one directory each, with one and three threads: the
    // symmetric step copies the bits of boards whose canonical image lies in
    // an earlier chunk, so 5 pieces (59 chunks) exercises that path.
    let fast = tempfile::tempdir().unwrap();
    let symmetric = tempfile::tempdir().unwrap();
    let fast_built = build_with_step(
        fast.path(),
        5,
        (1, Step::Fast, Layout::Full),
        0,
        &no_progress,
    )
    .unwrap();
    let symmetric_built = build_with_step(
        symmetric.path(),
        5,
        (3, Step::Symmetric, Layout::Full),
        0,
        &no_progress,
    )
    .unwrap();
    let counts = |built: &[Built]| {
        built
            .iter()
            .map(|b| (b.stats.with_move, b.stats.solvable, b.stats.unique))
            .collect::<Vec<_>>()
    };
    assert_eq!(counts(&fast_built), counts(&symmetric_built));
    for pieces in 2..=5 {
        for what in ["solvable", "unique"] {
            assert!(
                table_bytes(fast.path(), what, pieces)
                    == table_bytes(symmetric.path(), what, pieces),
                "{what}-{pieces} differs"
            );
        }
    }
}

#[test]
fn a_pass_whose_records_are_missing_starts_afresh() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 3, 1, &no_progress).unwrap();
    let chunks = crate::rank::boards(4).div_ceil(CHUNK);
    let pass = Pass::open(dir.path(), 4, chunks).unwrap();
    pass.solvable.store_word(0, u64::MAX).unwrap();
    pass.chunks.store_word(0, DONE).unwrap();
    drop(pass);
    // Without its chunk records, a half-written table is not trusted.
    std::fs::remove_file(table_path(dir.path(), "chunks", 4)).unwrap();
    build(dir.path(), 4, 1, &no_progress).unwrap();
    assert_eq!(
        table_bytes(dir.path(), "solvable", 4),
        table_bytes(shared().0.path(), "solvable", 4)
    );
}

/// Full tables of 2..5 pieces with two threads, built once for the layout tests.
fn full_five() -> &'static tempfile::TempDir {
    static TABLES: OnceLock<tempfile::TempDir> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), 5, 2, &no_progress).unwrap();
        dir
    })
}

fn recorded(dir: &Path) -> Vec<(usize, u64, u64, u64, Layout)> {
    crate::manifest::read(dir)
        .unwrap()
        .iter()
        .map(|s| (s.pieces, s.with_move, s.solvable, s.unique, s.layout))
        .collect()
}

#[test]
fn the_canonical_layout_holds_each_class_at_its_canonical_board() {
    let ours = tempfile::tempdir().unwrap();
    let built = build_with_layout(ours.path(), 5, 3, Layout::Canonical, &no_progress).unwrap();
    assert!(built.iter().all(|b| b.stats.layout == Layout::Canonical));
    // The counts count every board, as the full tables' do.
    let strip = |r: Vec<(usize, u64, u64, u64, Layout)>| {
        r.into_iter()
            .map(|(p, m, s, u, _)| (p, m, s, u))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        strip(recorded(ours.path())),
        strip(recorded(full_five().path()))
    );
    for pieces in 2..=5 {
        let full = Level::open(full_five().path(), pieces, true).unwrap();
        let canonical = Level::open(ours.path(), pieces, true).unwrap();
        for r in 0..crate::rank::boards(pieces) {
            let mask = crate::rank::unrank(r, pieces).unwrap();
            let held = crate::layout::is_canonical(mask);
            for (ours, theirs) in [
                (&canonical.solvable, &full.solvable),
                (&canonical.unique, &full.unique),
            ] {
                assert_eq!(
                    ours.get(r),
                    held && theirs.get(r),
                    "{pieces} pieces, rank {r}"
                );
            }
        }
    }
    // Lookups canonicalize: every board answers as in the full tables.
    let (ours, theirs) = (
        Tables::open(ours.path()).unwrap(),
        Tables::open(full_five().path()).unwrap(),
    );
    for r in (0..crate::rank::boards(5)).step_by(97) {
        let board = Board::from_mask(crate::rank::unrank(r, 5).unwrap()).unwrap();
        assert_eq!(ours.status(board), theirs.status(board), "rank {r}");
    }
}

#[test]
fn counts_of_another_layout_are_computed_again() {
    let dir = tempfile::tempdir().unwrap();
    build_with_layout(dir.path(), 4, 1, Layout::Canonical, &no_progress).unwrap();
    let built = build(dir.path(), 5, 2, &no_progress).unwrap();
    assert!(built.iter().all(|b| !b.kept));
    assert_eq!(recorded(dir.path()), recorded(full_five().path()));
    for pieces in 2..=5 {
        for what in ["solvable", "unique"] {
            assert!(
                table_bytes(dir.path(), what, pieces)
                    == table_bytes(full_five().path(), what, pieces)
            );
        }
    }
}

#[test]
fn an_interrupted_canonical_pass_resumes_to_the_same_bytes() {
    let whole = tempfile::tempdir().unwrap();
    build_with_layout(whole.path(), 5, 2, Layout::Canonical, &no_progress).unwrap();
    let cut = tempfile::tempdir().unwrap();
    build_with_layout(cut.path(), 4, 1, Layout::Canonical, &no_progress).unwrap();
    let pieces = 5;
    let pass = cut_pass(cut.path(), (Layout::Canonical, Step::Symmetric), &[1, 7]);
    pass.unique.store_word(3, u64::MAX).unwrap();
    drop(pass);
    let resumed = build_with_layout(cut.path(), 5, 2, Layout::Canonical, &no_progress).unwrap();
    assert!(!resumed[3].kept);
    for what in ["solvable", "unique"] {
        assert!(table_bytes(whole.path(), what, pieces) == table_bytes(cut.path(), what, pieces));
    }
    assert_eq!(recorded(whole.path()), recorded(cut.path()));
}

#[test]
fn a_directory_another_build_holds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let held = store::lock_dir(dir.path()).unwrap();
    let refused = build(dir.path(), 3, 1, &no_progress);
    assert!(
        matches!(
            refused,
            Err(FlingError::Store(store::StoreError::Locked { .. }))
        ),
        "{:?}",
        refused.map(|b| b.len())
    );
    drop(held);
    assert_eq!(build(dir.path(), 3, 1, &no_progress).unwrap().len(), 2);
}

#[test]
fn lists_refuse_canonical_tables_below_them() {
    let dir = tempfile::tempdir().unwrap();
    build_with_layout(dir.path(), 4, 1, Layout::Canonical, &no_progress).unwrap();
    let refused = crate::build_lists(dir.path(), 4, 5, 1, &no_progress);
    assert!(
        matches!(&refused, Err(FlingError::Pieces { pieces: 4, .. })),
        "{:?}",
        refused.map(|b| b.len())
    );
}
