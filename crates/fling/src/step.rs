//! One step of the retrograde analysis: classifying a k-piece board from
//! the tables of k - 1 pieces, read as words (mapped, or copied into memory
//! with huge pages).

use crate::error::FlingError;
use crate::lookup::Level;
use crate::rank::rank;
use crate::table_layout::MAX_TABLE_PIECES;
use games::fling::Board;
use store::{BitTable, Words};

/// The tables one piece count below the one being computed, as words.
pub(crate) enum Previous<'a> {
    /// One piece: every board is solved.
    Solved,
    /// The solvable and uniquely solvable bits.
    Tables {
        solvable: &'a [u64],
        unique: &'a [u64],
    },
}

#[inline]
fn bit(words: &[u64], index: u64) -> bool {
    words
        .get((index / 64) as usize)
        .is_some_and(|w| w >> (index % 64) & 1 == 1)
}

/// Most moves a board can have: four per piece.
const MAX_MOVES: usize = 4 * MAX_TABLE_PIECES;

/// A board's classification: (has a legal move, solvable, uniquely solvable).
///
/// The ranks of every child are computed first and their table words
/// prefetched, so that the cache misses of a large table overlap instead of
/// following one another.
#[inline]
pub(crate) fn classify(board: Board, previous: &Previous) -> (bool, bool, bool) {
    let mut ranks = [0u64; MAX_MOVES];
    let mut count = 0;
    board.for_each_move(|_, child| {
        if let Some(slot) = ranks.get_mut(count) {
            *slot = rank(child.mask());
            count += 1;
        }
    });
    let ranks = &ranks[..count];
    let (solving, first) = match previous {
        Previous::Solved => (count as u32, ranks.first().copied().unwrap_or(0)),
        Previous::Tables { solvable, .. } => {
            for &r in ranks {
                store::prefetch(solvable, (r / 64) as usize);
            }
            // A second solving move settles the board: solvable, not unique.
            let (mut solving, mut first) = (0u32, 0u64);
            for &r in ranks {
                if bit(solvable, r) {
                    solving += 1;
                    if solving > 1 {
                        break;
                    }
                    first = r;
                }
            }
            (solving, first)
        }
    };
    let unique = if board.pieces() == 2 {
        count > 0
    } else {
        solving == 1
            && match previous {
                Previous::Solved => true,
                Previous::Tables { unique, .. } => bit(unique, first),
            }
    };
    (count > 0, solving > 0, unique)
}

/// The previous level's words in anonymous memory with huge pages when they
/// fit `budget` bytes (random reads of a table of gigabytes then miss the
/// TLB far less often than through the file's 4 KiB pages), else `None`.
pub(crate) fn copy_to_memory(
    level: &Level,
    budget: u64,
) -> Result<Option<(Words, Words)>, FlingError> {
    let bytes = 8 * (level.solvable.words().len() + level.unique.words().len()) as u64;
    if bytes > budget {
        return Ok(None);
    }
    let copy = |table: &BitTable| -> Result<Words, FlingError> {
        let mut words = Words::zeroed(table.words().len())?;
        words.as_mut_slice().copy_from_slice(table.words());
        Ok(words)
    };
    Ok(Some((copy(&level.solvable)?, copy(&level.unique)?)))
}

/// The words to read the previous level from: the in-memory copies when
/// there are some, else the mapped tables, else (one piece) none.
pub(crate) fn previous_words<'a>(
    level: Option<&'a Level>,
    copies: Option<&'a (Words, Words)>,
) -> Previous<'a> {
    match (copies, level) {
        (Some((solvable, unique)), _) => Previous::Tables {
            solvable: solvable.as_slice(),
            unique: unique.as_slice(),
        },
        (None, Some(level)) => Previous::Tables {
            solvable: level.solvable.words(),
            unique: level.unique.words(),
        },
        (None, None) => Previous::Solved,
    }
}
