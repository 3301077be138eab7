//! The uniquely solvable boards of the piece counts above the full tables,
//! found from the level below instead of by classifying every board.
//!
//! A board of k >= 3 pieces is uniquely solvable when exactly one of its
//! moves leads to a solvable board and that board is uniquely solvable. So
//! every uniquely solvable k-piece board has a move into the uniquely
//! solvable boards of k - 1 pieces, and it suffices to undo one move of each
//! of those in every way ("unfling"), then keep the boards none of whose other
//! moves leads to a solvable board. A move changes one row or one column, and
//! what it does there depends only on that line, so the ways to undo it are
//! read from a table of line preimages built from the rules. The candidates
//! are a few dozen per board below, against C(56, k) boards for a full table:
//! 148.9 billion at k = 11. What it does not give is the solvable count.
//!
//! Solvability of the children is read from the full tables of T pieces: a
//! child of T pieces is one bit; a child of T + 1 pieces is solvable when one
//! of its own children is. The lists therefore reach two piece counts above
//! the tables at most (a third would need a search per child).
//!
//! Only canonical candidates (the smallest mask of their mirror class) are
//! checked, since the rules and so the answer are the same for the images;
//! an accepted board adds its whole class. Accepted boards are sorted, so the
//! list depends neither on the thread count nor on the scheduling.
//!
//! Cost: O(U * L * M * C) table reads for U uniquely solvable boards below, L
//! preimages of a board, M moves of a candidate and C children of a child
//! (C = 1 when the children are in the table), mostly cut short by the first
//! solvable child; memory O(U) words.

use crate::children::{column_board, column_of, tables, ChildTables};
use crate::error::FlingError;
use crate::layout::canonical;
use crate::step::MAX_MOVES;
use crate::tables::run_workers;
use games::fling::{Board, Direction, HEIGHT, WIDTH};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Boards below handed to a worker at a time.
const BATCH: usize = 1 << 12;

/// The parent line patterns of every child line pattern: the lines from
/// which one move along the line gives the child line.
pub(crate) struct Preimages {
    /// By child row mask (7 bits): the distinct parent row masks.
    rows: Vec<Vec<u8>>,
    /// By child column mask (8 bits, bit y = row y): the distinct parent columns.
    columns: Vec<Vec<u8>>,
}

impl Preimages {
    /// Builds both tables from [`Board::apply`] on one-line boards.
    pub(crate) fn build() -> Preimages {
        let rows = invert(
            WIDTH,
            |m| m as u64,
            |b| b as usize,
            [Direction::Left, Direction::Right],
        );
        let columns = invert(
            HEIGHT,
            column_board,
            column_of,
            [Direction::Up, Direction::Down],
        );
        Preimages { rows, columns }
    }

    /// Calls `visit(parent)` for every board from which one move gives `mask`.
    #[inline]
    pub(crate) fn for_each_parent(
        &self,
        mask: u64,
        children: &ChildTables,
        mut visit: impl FnMut(u64),
    ) {
        for y in 0..HEIGHT {
            let shift = y * WIDTH;
            let row = (mask >> shift) as usize & 0x7f;
            let cleared = mask & !(0x7f << shift);
            for &parent in &self.rows[row] {
                visit(cleared | u64::from(parent) << shift);
            }
        }
        let columns = children.columns(mask);
        for x in 0..WIDTH {
            let column = (columns >> (8 * x)) as usize & 0xff;
            for &parent in &self.columns[column] {
                visit(children.with_column(mask, x, usize::from(parent)));
            }
        }
    }
}

/// The distinct parents of every line pattern of `cells` cells under the
/// moves in `dirs`, by child pattern.
fn invert(
    cells: usize,
    board_of: impl Fn(usize) -> u64,
    back: impl Fn(u64) -> usize,
    dirs: [Direction; 2],
) -> Vec<Vec<u8>> {
    let mut parents: Vec<Vec<u8>> = vec![Vec::new(); 1 << cells];
    for line in 0..1usize << cells {
        let board = Board::from_mask(board_of(line)).unwrap_or_default();
        for cell in (0..cells).filter(|c| line >> c & 1 == 1) {
            let at = board_of(1 << cell).trailing_zeros() as usize;
            for dir in dirs {
                if let Some(child) = board.apply(at, dir) {
                    let list = &mut parents[back(child.mask())];
                    if !list.contains(&(line as u8)) {
                        list.push(line as u8);
                    }
                }
            }
        }
    }
    parents
}

/// What decides solvability below the boards being listed.
#[derive(Clone, Copy)]
pub(crate) struct Below<'a> {
    /// The solvable bits of the full table of `table_pieces` pieces.
    pub(crate) solvable: &'a [u64],
    /// The piece count of that table.
    pub(crate) table_pieces: usize,
}

impl Below<'_> {
    #[inline]
    fn bit(&self, rank: u64) -> bool {
        self.solvable
            .get((rank / 64) as usize)
            .is_some_and(|w| w >> (rank % 64) & 1 == 1)
    }

    /// True when the board `mask` of `table_pieces + 1` pieces has a solvable child.
    #[inline]
    fn one_above_solvable(&self, mask: u64, children: &ChildTables) -> bool {
        let mut ranks = [0u64; MAX_MOVES];
        let n = children.child_ranks(mask, &mut ranks);
        for &r in &ranks[..n] {
            store::prefetch(self.solvable, (r / 64) as usize);
        }
        ranks[..n].iter().any(|&r| self.bit(r))
    }
}

/// True when `board` (of `pieces` pieces, with a move to the uniquely
/// solvable `below`) is uniquely solvable: no other move leads to a solvable
/// board, and no second move to `below`.
#[inline]
fn only_way(board: u64, below: u64, pieces: usize, oracle: &Below, children: &ChildTables) -> bool {
    if pieces == oracle.table_pieces + 1 {
        let mut ranks = [0u64; MAX_MOVES];
        let n = children.child_ranks(board, &mut ranks);
        for &r in &ranks[..n] {
            store::prefetch(oracle.solvable, (r / 64) as usize);
        }
        return ranks[..n]
            .iter()
            .filter(|&&r| oracle.bit(r))
            .take(2)
            .count()
            == 1;
    }
    let mut masks = [0u64; MAX_MOVES];
    let n = children.child_masks(board, &mut masks);
    let mut solving = 0;
    for &child in &masks[..n] {
        if child == below || oracle.one_above_solvable(child, children) {
            solving += 1;
            if solving > 1 {
                return false;
            }
        }
    }
    solving == 1
}

/// Pushes `mask` and its distinct mirror images.
fn push_class(mask: u64, out: &mut Vec<u64>) {
    let Some(board) = Board::from_mask(mask) else {
        return;
    };
    let images = board.symmetries();
    for (i, image) in images.iter().enumerate() {
        if !images[..i].contains(image) {
            out.push(image.mask());
        }
    }
}

/// What [`lift`] found.
pub(crate) struct Lifted {
    /// The uniquely solvable boards, sorted.
    pub(crate) boards: Vec<u64>,
    /// Canonical candidates checked.
    pub(crate) candidates: u64,
}

/// The uniquely solvable boards of `pieces` pieces, from `below` (every
/// uniquely solvable board of `pieces - 1` pieces) and the full table of
/// `oracle`, with `threads` threads; `progress` gets the boards of `below`
/// done. `pieces` must be `oracle.table_pieces + 1` or `+ 2`.
pub(crate) fn lift(
    below: &[u64],
    pieces: usize,
    oracle: &Below,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Lifted, FlingError> {
    let depth = pieces.saturating_sub(oracle.table_pieces);
    if !(1..=2).contains(&depth) || pieces < 3 {
        return Err(FlingError::Pieces {
            pieces,
            why: format!(
                "lists of uniquely solvable boards reach 1 or 2 piece counts above the full \
                 tables ({} pieces)",
                oracle.table_pieces
            ),
        });
    }
    let preimages = Preimages::build();
    let children = tables();
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let candidates = AtomicU64::new(0);
    let found: Vec<Vec<u64>> = std::thread::scope(|scope| {
        let workers = run_workers(scope, threads, || {
            let mut accepted = Vec::new();
            let mut checked = 0u64;
            loop {
                let first = next.fetch_add(BATCH, Ordering::Relaxed);
                let Some(batch) = below.get(first..(first + BATCH).min(below.len())) else {
                    break;
                };
                for &under in batch {
                    preimages.for_each_parent(under, children, |board| {
                        if canonical(board) != board {
                            return;
                        }
                        checked += 1;
                        if only_way(board, under, pieces, oracle, children) {
                            push_class(board, &mut accepted);
                        }
                    });
                }
                progress(
                    done.fetch_add(batch.len() as u64, Ordering::Relaxed) + batch.len() as u64,
                );
            }
            candidates.fetch_add(checked, Ordering::Relaxed);
            accepted
        });
        workers.into_iter().collect::<Result<Vec<_>, _>>()
    })
    .map_err(|_| FlingError::Pieces {
        pieces,
        why: "a worker thread panicked".into(),
    })?;
    let mut all: Vec<u64> = found.into_iter().flatten().collect();
    all.sort_unstable();
    // A board is accepted from its one solving move only, so a duplicate would
    // mean a wrong preimage table: refuse rather than count it twice.
    if all.windows(2).any(|w| w[0] == w[1]) {
        return Err(FlingError::Pieces {
            pieces,
            why: "a uniquely solvable board was found twice (an internal error)".into(),
        });
    }
    Ok(Lifted {
        boards: all,
        candidates: candidates.into_inner(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup::Level;
    use crate::rank::unrank;
    use crate::tables::build;
    use std::sync::OnceLock;

    /// Full tables up to 5 pieces, built once for the tests of this module.
    fn full() -> &'static tempfile::TempDir {
        static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
        DIR.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            build(dir.path(), 5, 2, &|_| {}).unwrap();
            dir
        })
    }

    fn unique_boards(pieces: usize) -> Vec<u64> {
        let level = Level::open(full().path(), pieces, true).unwrap();
        let mut masks: Vec<u64> = (0..level.unique.len_bits())
            .filter(|&r| level.unique.get(r))
            .filter_map(|r| unrank(r, pieces))
            .collect();
        masks.sort_unstable();
        masks
    }

    fn lifted(pieces: usize, table_pieces: usize, threads: usize) -> Vec<u64> {
        let level = Level::open(full().path(), table_pieces, true).unwrap();
        let oracle = Below {
            solvable: level.solvable.words(),
            table_pieces,
        };
        lift(
            &unique_boards(pieces - 1),
            pieces,
            &oracle,
            threads,
            &|_| {},
        )
        .unwrap()
        .boards
    }

    #[test]
    fn preimages_undo_exactly_the_moves_of_the_rules() {
        let preimages = Preimages::build();
        for mask in [0b1001u64, 1 << 3 | 1 << 17 | 1 << 40, 0x55 << 14 | 1 << 50] {
            let mut parents = Vec::new();
            preimages.for_each_parent(mask, tables(), |p| parents.push(p));
            assert!(!parents.is_empty());
            for parent in parents {
                let mut hits = 0;
                Board::from_mask(parent)
                    .unwrap()
                    .for_each_move(|_, child| hits += usize::from(child.mask() == mask));
                assert!(hits >= 1, "{parent:#x} has no move to {mask:#x}");
            }
        }
    }

    #[test]
    fn lists_one_and_two_counts_above_the_tables_equal_the_full_tables() {
        // One count above: children read from the table; two: from their children.
        assert_eq!(lifted(4, 3, 1), unique_boards(4));
        assert_eq!(lifted(5, 4, 2), unique_boards(5));
        assert_eq!(lifted(5, 3, 3), unique_boards(5));
        assert_eq!(lifted(3, 2, 1), unique_boards(3));
    }

    #[test]
    fn lists_refuse_three_counts_above_the_tables() {
        let level = Level::open(full().path(), 2, true).unwrap();
        let oracle = Below {
            solvable: level.solvable.words(),
            table_pieces: 2,
        };
        assert!(lift(&[], 5, &oracle, 1, &|_| {}).is_err());
    }
}
