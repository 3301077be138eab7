//! One step of the retrograde analysis: classifying a k-piece board from
//! the tables of k - 1 pieces, read as words (mapped, or copied into memory
//! with huge pages).

use crate::error::FlingError;
use crate::layout::Layout;
use crate::lookup::Level;
use crate::table_layout::MAX_TABLE_PIECES;
use store::{BitTable, Words};

/// The tables one piece count below the one being computed, as words.
pub(crate) enum Previous<'a> {
    /// One piece: every board is solved.
    Solved,
    /// The solvable and uniquely solvable bits, in their layout.
    Tables {
        solvable: &'a [u64],
        unique: &'a [u64],
        layout: Layout,
    },
}

#[inline]
fn bit(words: &[u64], index: u64) -> bool {
    words
        .get((index / 64) as usize)
        .is_some_and(|w| w >> (index % 64) & 1 == 1)
}

/// Most moves a board can have: four per piece.
pub(crate) const MAX_MOVES: usize = 4 * MAX_TABLE_PIECES;

/// Boards classified together: their children's table words are all
/// prefetched before the first is read, so that the cache misses of a large
/// table overlap (about 15 per board) instead of following one another.
pub(crate) const GROUP: usize = 16;

/// A board's classification: (has a legal move, solvable, uniquely solvable).
pub(crate) type Class = (bool, bool, bool);

/// Classifies the boards `masks` (at most [`GROUP`], all of `pieces` pieces)
/// into `out`, in order.
#[inline]
pub(crate) fn classify_group(masks: &[u64], pieces: usize, previous: &Previous, out: &mut [Class]) {
    let children = crate::children::tables();
    let mut ranks = [0u64; GROUP * MAX_MOVES];
    let mut counts = [0usize; GROUP];
    for (i, &mask) in masks.iter().enumerate().take(GROUP) {
        let slice = &mut ranks[i * MAX_MOVES..(i + 1) * MAX_MOVES];
        counts[i] = children.child_ranks(mask, slice);
        if let Previous::Tables { solvable, .. } = previous {
            for &r in &slice[..counts[i]] {
                store::prefetch(solvable, (r / 64) as usize);
            }
        }
    }
    // How many moves solve, and the rank of the first that does.
    let mut solving = [(0u32, 0u64); GROUP];
    for i in 0..masks.len().min(GROUP) {
        let slice = &ranks[i * MAX_MOVES..i * MAX_MOVES + counts[i]];
        solving[i] = match previous {
            Previous::Solved => (counts[i] as u32, slice.first().copied().unwrap_or(0)),
            Previous::Tables {
                solvable, unique, ..
            } => {
                let found = first_two_solving(slice, solvable);
                if found.0 == 1 && pieces > 2 {
                    store::prefetch(unique, (found.1 / 64) as usize);
                }
                found
            }
        };
    }
    for (i, slot) in out.iter_mut().enumerate().take(masks.len().min(GROUP)) {
        let (count, (solving, first)) = (counts[i], solving[i]);
        let unique = if pieces == 2 {
            count > 0
        } else {
            solving == 1
                && match previous {
                    Previous::Solved => true,
                    Previous::Tables { unique, .. } => bit(unique, first),
                }
        };
        *slot = (count > 0, solving > 0, unique);
    }
}

/// Which step computes a board: [`classify_group`], or the plain one-board
/// step it replaced (every move applied by the rules, every child ranked from
/// scratch), kept as the oracle of the tests and the baseline of the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Row and column move tables, incremental ranks, grouped prefetches.
    Fast,
    /// One board at a time by the rules.
    Reference,
    /// [`Step::Fast`] for one board of each mirror-symmetry class, the bits
    /// of the others copied from it (a build's default; see `symmetric.rs`).
    Symmetric,
}

/// Classifies `masks` with `step` into `out` (as [`classify_group`]).
#[inline]
pub(crate) fn classify_with(
    step: Step,
    masks: &[u64],
    pieces: usize,
    previous: &Previous,
    out: &mut [Class],
) {
    match step {
        // Classifying boards one by one, the symmetric step has no earlier
        // image to copy from: it is the fast step (see `symmetric.rs`).
        Step::Fast | Step::Symmetric => classify_group(masks, pieces, previous, out),
        Step::Reference => {
            for (&mask, slot) in masks.iter().zip(out.iter_mut()) {
                *slot = classify_reference(mask, pieces, previous);
            }
        }
    }
}

/// The plain step: every legal move applied by [`Board::for_each_move`],
/// its child ranked from scratch.
pub(crate) fn classify_reference(mask: u64, pieces: usize, previous: &Previous) -> Class {
    let mut ranks = [0u64; MAX_MOVES];
    let mut count = 0;
    games::fling::Board::from_mask(mask)
        .unwrap_or_default()
        .for_each_move(|_, child| {
            if let Some(slot) = ranks.get_mut(count) {
                *slot = crate::rank::rank(child.mask());
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
            first_two_solving(ranks, solvable)
        }
    };
    let unique = if pieces == 2 {
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

/// How many of `ranks` are solvable, counting to two at most (a second
/// solving move settles the board: solvable, not unique), and the first.
#[inline]
fn first_two_solving(ranks: &[u64], solvable: &[u64]) -> (u32, u64) {
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
    Ok(Some((
        copy_table(&level.solvable)?,
        copy_table(&level.unique)?,
    )))
}

/// A table's words copied into anonymous memory with huge pages.
pub(crate) fn copy_table(table: &BitTable) -> Result<Words, FlingError> {
    let mut words = Words::zeroed(table.words().len())?;
    words.as_mut_slice().copy_from_slice(table.words());
    Ok(words)
}

/// The words to read the previous level from: the in-memory copies when
/// there are some, else the mapped tables, else (one piece) none.
pub(crate) fn previous_words<'a>(
    level: Option<&'a Level>,
    copies: Option<&'a (Words, Words)>,
) -> Previous<'a> {
    match (copies, level) {
        (Some((solvable, unique)), level) => Previous::Tables {
            solvable: solvable.as_slice(),
            unique: unique.as_slice(),
            layout: level.map_or(Layout::Full, |l| l.layout),
        },
        (None, Some(level)) => Previous::Tables {
            solvable: level.solvable.words(),
            unique: level.unique.words(),
            layout: level.layout,
        },
        (None, None) => Previous::Solved,
    }
}

impl Previous<'_> {
    /// True when the tables below hold their bits in the canonical layout,
    /// which only the ring reads (it ranks each child's canonical image).
    pub(crate) fn is_canonical(&self) -> bool {
        matches!(
            self,
            Previous::Tables {
                layout: Layout::Canonical,
                ..
            }
        )
    }
}
