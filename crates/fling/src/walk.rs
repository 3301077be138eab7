//! The canonical boards of a rank range, in rank order, without testing
//! every board: the canonical layout classifies a quarter of the boards, and
//! the other three quarters were enumerated only to be refused (each with a
//! canonical image where its top row did not refuse it at once).
//!
//! Boards in rank order are boards in mask order, so a board's upper rows
//! (1 to 7) change slowly and its bottom row (row 0) fastest: the boards
//! sharing their upper rows are a run of consecutive ranks, one per bottom
//! row of the remaining pieces. Whether a board is its class's smallest
//! mask is decided row pair by row pair from the top (the left-right image
//! row by row, the top-bottom and double images by the pairs of rows 7 and
//! 0, 6 and 1, ...), so the upper rows settle everything but a comparison of
//! the bottom row with the top row: a run is refused whole by its upper rows
//! (about half of them, where the left-right image is smaller), and within a
//! run each bottom row costs a few comparisons.

use crate::rank::{next_combination, rank, unrank};
use games::fling::{CELLS, WIDTH};
use std::cmp::Ordering;

/// Row masks (7 bits).
const ROWS: usize = 1 << WIDTH;
const ROW: u64 = (ROWS - 1) as u64;

/// Per row mask: its mirror image, its rank among the rows of as many
/// pieces (its place in its run) and its piece count.
struct RowFacts {
    reversed: [u8; ROWS],
    place: [u8; ROWS],
    pieces: [u8; ROWS],
}

const fn row_facts() -> RowFacts {
    let mut facts = RowFacts {
        reversed: [0; ROWS],
        place: [0; ROWS],
        pieces: [0; ROWS],
    };
    // Rows in increasing order: a row's place is how many smaller rows
    // have as many pieces.
    let mut seen = [0u8; WIDTH + 1];
    let mut m = 0;
    while m < ROWS {
        let pieces = (m as u32).count_ones() as usize;
        facts.reversed[m] = (m as u8).reverse_bits() >> 1;
        facts.place[m] = seen[pieces];
        facts.pieces[m] = pieces as u8;
        seen[pieces] += 1;
        m += 1;
    }
    facts
}

static FACTS: RowFacts = row_facts();

/// The last (largest) row of `pieces` pieces: the top bits of the row.
#[inline]
fn last_row(pieces: usize) -> u64 {
    ROW & !(ROW >> pieces.min(WIDTH))
}

/// What the upper rows of a run decide about its boards.
#[derive(Clone, Copy)]
struct Run {
    /// The upper rows (the mask without row 0).
    upper: u64,
    /// No board of the run is canonical, nor (when above 1) any board
    /// sharing its rows from this one up: they are all skipped at once.
    refused_from: usize,
    /// Row 7.
    top: u8,
    /// The left-right image is larger whatever the bottom row.
    left_right_larger: bool,
    /// When row 0 equals row 7 (or its mirror), the top-bottom (or double)
    /// image is no smaller: rows 6, 5, 4 against rows 1, 2, 3 (mirrored).
    top_bottom_tie: bool,
    double_tie: bool,
}

impl Run {
    /// The run of the boards whose upper rows are those of `mask`.
    fn of(mask: u64) -> Run {
        let row = |y: usize| (mask >> (WIDTH * y) & ROW) as u8;
        let rev = |m: u8| FACTS.reversed[m as usize];
        // The highest row that is not its own mirror decides the left-right
        // image's order, for every board sharing the rows from it up.
        let (decided, left_right) = (1..8)
            .rev()
            .map(|y| (y, row(y).cmp(&rev(row(y)))))
            .find(|(_, o)| o.is_ne())
            .unwrap_or((0, Ordering::Equal));
        let top = row(7);
        // Every board of the run has as many pieces in row 0 as this one.
        let bottom_pieces = FACTS.pieces[row(0) as usize] as usize;
        Run {
            upper: mask & !ROW,
            // The top-bottom image is smaller when row 0 must be below row 7.
            refused_from: if left_right.is_gt() {
                decided
            } else {
                usize::from(u64::from(top) > last_row(bottom_pieces))
            },
            top,
            left_right_larger: left_right.is_lt(),
            top_bottom_tie: (row(6), row(5), row(4)) <= (row(1), row(2), row(3)),
            double_tie: (row(6), row(5), row(4)) <= (rev(row(1)), rev(row(2)), rev(row(3))),
        }
    }

    /// True when the board of this run with bottom row `b` is canonical.
    #[inline]
    fn accepts(&self, b: u8) -> bool {
        let (t, rb) = (self.top, FACTS.reversed[b as usize]);
        (self.left_right_larger || b <= rb)
            && (t < b || (t == b && self.top_bottom_tie))
            && (t < rb || (t == rb && self.double_tie))
    }
}

/// The canonical boards among the ranks `start..end` of boards of one piece
/// count, with their index in the range (rank - start), in rank order.
pub(crate) struct CanonicalWalk {
    mask: u64,
    index: u64,
    len: u64,
    run: Run,
}

impl CanonicalWalk {
    /// The walk over ranks `start..end` of `pieces`-piece boards (empty when
    /// `start` is not a rank of that count, or the count has no piece: the
    /// next-combination step needs one).
    pub(crate) fn new(pieces: usize, start: u64, end: u64) -> CanonicalWalk {
        let (mask, len) = match unrank(start, pieces) {
            Some(mask) if pieces > 0 => (mask, end.saturating_sub(start)),
            _ => (0, 0),
        };
        CanonicalWalk {
            mask,
            index: 0,
            len,
            run: Run::of(mask),
        }
    }

    /// Skips every board sharing the current board's rows `y` and up: to
    /// the first board past the last of them, whose other pieces fill the
    /// highest cells below row `y` (ranked, since a jump spans many runs).
    fn skip_rows(&mut self, y: usize) {
        let below = (1u64 << (WIDTH * y)) - 1;
        let pieces = (self.mask & below).count_ones();
        let highest = below & !(below >> pieces);
        let next = next_combination(self.mask & !below | highest);
        // Past the last board of the count the walk ends (no rank there).
        let advance = if next >> CELLS == 0 {
            rank(next).saturating_sub(rank(self.mask))
        } else {
            self.len
        };
        self.step(next, advance);
    }

    /// Moves to the next board, and to its run's facts when it starts one.
    #[inline]
    fn step(&mut self, next: u64, advance: u64) {
        self.mask = next;
        self.index += advance;
        if next & !ROW != self.run.upper {
            self.run = Run::of(next);
        }
    }
}

impl Iterator for CanonicalWalk {
    type Item = (u32, u64);

    #[inline]
    fn next(&mut self) -> Option<(u32, u64)> {
        while self.index < self.len {
            let (mask, index) = (self.mask, self.index);
            let b = (mask & ROW) as usize;
            if self.run.refused_from > 1 {
                self.skip_rows(self.run.refused_from);
                continue;
            }
            if self.run.refused_from == 1 {
                // Past the run's last board: its remaining bottom rows skipped.
                let pieces = FACTS.pieces[b] as usize;
                let last = last_row(pieces);
                let left = 1 + u64::from(FACTS.place[last as usize] - FACTS.place[b]);
                self.step(next_combination(mask & !ROW | last), left);
                continue;
            }
            let accepted = self.run.accepts(b as u8);
            self.step(next_combination(mask), 1);
            if accepted {
                return Some((index as u32, mask));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::is_canonical;
    use crate::rank::boards;
    use proptest::prelude::*;

    /// Every board of the range tested one by one: the oracle.
    fn tested(pieces: usize, start: u64, end: u64) -> Vec<(u32, u64)> {
        let first = unrank(start, pieces).unwrap();
        std::iter::successors(Some(first), |&m| Some(next_combination(m)))
            .take((end - start) as usize)
            .enumerate()
            .filter(|&(_, m)| is_canonical(m))
            .map(|(i, m)| (i as u32, m))
            .collect()
    }

    #[test]
    fn every_board_of_few_pieces_is_walked_as_tested() {
        for pieces in 1..=5 {
            let all = boards(pieces);
            let walked: Vec<_> = CanonicalWalk::new(pieces, 0, all).collect();
            assert_eq!(walked, tested(pieces, 0, all), "{pieces} pieces");
        }
    }

    #[test]
    fn a_rank_beyond_the_count_walks_nothing() {
        assert_eq!(CanonicalWalk::new(3, boards(3), boards(3) + 5).count(), 0);
        assert_eq!(CanonicalWalk::new(0, 0, 1).count(), 0);
        assert_eq!(CanonicalWalk::new(57, 0, 1).count(), 0);
    }

    proptest! {
        #[test]
        fn ranges_starting_and_ending_anywhere_are_walked_as_tested(
            pieces in 2usize..=12,
            at in 0.0f64..1.0,
            len in 1u64..5000,
        ) {
            let all = boards(pieces);
            let start = ((all as f64 * at) as u64).min(all - 1);
            let end = (start + len).min(all);
            let walked: Vec<_> = CanonicalWalk::new(pieces, start, end).collect();
            prop_assert_eq!(walked, tested(pieces, start, end));
        }
    }
}
