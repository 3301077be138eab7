//! The seed's level-selection pipeline: every uniquely solvable board of a
//! piece count, one per symmetry class, ranked by the ratio of the plain to
//! the commutation-pruned search size and then by the plain size.

use crate::error::FlingError;
use crate::lookup::{Tables, UniqueBoards};
use crate::rank::unrank;
use crate::search::{pruned_size, Space};
use crate::tables::run_workers;
use games::fling::Board;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};

/// Table words handed to a thread at a time.
const WORDS_PER_CHUNK: usize = 1 << 12;

/// A uniquely solvable board with its two search sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The board, in canonical form.
    pub board: Board,
    /// Boards a plain breadth-first search visits.
    pub plain: usize,
    /// Boards the commutation-pruned search visits.
    pub pruned: usize,
}

impl Candidate {
    /// Plain size over pruned size.
    pub fn ratio(&self) -> f64 {
        self.plain as f64 / self.pruned.max(1) as f64
    }

    /// The selection order: higher ratio first (compared exactly), then
    /// larger plain search, then smaller mask.
    pub fn rank_order(&self, other: &Candidate) -> Ordering {
        let mine = self.plain as u128 * other.pruned.max(1) as u128;
        let theirs = other.plain as u128 * self.pruned.max(1) as u128;
        theirs
            .cmp(&mine)
            .then(other.plain.cmp(&self.plain))
            .then(self.board.cmp(&other.board))
    }
}

/// What a selection found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Uniquely solvable boards of the piece count.
    pub unique_boards: u64,
    /// Their symmetry classes.
    pub classes: u64,
    /// The best boards, best first.
    pub top: Vec<Candidate>,
}

fn keep_best(candidates: &mut Vec<Candidate>, top: usize) {
    candidates.sort_unstable_by(Candidate::rank_order);
    candidates.truncate(top);
}

/// Ranks every uniquely solvable `pieces`-piece board (one per symmetry
/// class, from its table or its list) with `threads` threads and keeps the
/// best `top`; `progress` gets (boards or ranks scanned, in all).
pub fn select(
    tables: &Tables,
    pieces: usize,
    top: usize,
    threads: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Selection, FlingError> {
    // A table is scanned a word of 64 ranks at a time, a list a board at a time.
    let (items, per_item, per_chunk, whole_classes) = match tables.unique_boards(pieces)? {
        UniqueBoards::Bits(words) => (words, 64, WORDS_PER_CHUNK, false),
        UniqueBoards::List(masks) => (masks, 1, 64 * WORDS_PER_CHUNK, false),
        UniqueBoards::CanonicalBits(words) => (words, 64, WORDS_PER_CHUNK, true),
    };
    let total = items.len() as u64 * per_item;
    let next_chunk = AtomicUsize::new(0);
    let (unique_boards, classes) = (AtomicU64::new(0), AtomicU64::new(0));
    let scanned = AtomicU64::new(0);
    let lists: Vec<Vec<Candidate>> = std::thread::scope(|scope| {
        let workers = run_workers(scope, threads, || {
            let mut best = Vec::new();
            loop {
                let first = next_chunk.fetch_add(1, AtomicOrdering::Relaxed) * per_chunk;
                let Some(chunk) = items.get(first..(first + per_chunk).min(items.len())) else {
                    break;
                };
                for (offset, &item) in chunk.iter().enumerate() {
                    let counts = Counts {
                        boards: &unique_boards,
                        classes: &classes,
                        whole_classes,
                    };
                    if per_item == 64 {
                        let first_rank = (first + offset) as u64 * 64;
                        scan_word(item, first_rank, pieces, &mut best, counts);
                    } else {
                        consider(Board::from_mask(item), &mut best, counts);
                    }
                }
                if best.len() > 4 * top + 4096 {
                    keep_best(&mut best, top);
                }
                let size = chunk.len() as u64 * per_item;
                let done = scanned.fetch_add(size, AtomicOrdering::Relaxed) + size;
                progress(done.min(total), total);
            }
            keep_best(&mut best, top);
            best
        });
        workers.into_iter().collect::<Result<Vec<_>, _>>()
    })
    .map_err(|_| FlingError::Pieces {
        pieces,
        why: "a worker thread panicked".into(),
    })?;
    let mut all: Vec<Candidate> = lists.into_iter().flatten().collect();
    keep_best(&mut all, top);
    Ok(Selection {
        unique_boards: unique_boards.into_inner(),
        classes: classes.into_inner(),
        top: all,
    })
}

/// Adds the canonical boards among the set bits of one table word.
fn scan_word(word: u64, first_rank: u64, pieces: usize, best: &mut Vec<Candidate>, counts: Counts) {
    let mut rest = word;
    while rest != 0 {
        let r = first_rank + u64::from(rest.trailing_zeros());
        rest &= rest - 1;
        consider(unrank(r, pieces).and_then(Board::from_mask), best, counts);
    }
}

/// Where the boards and classes scanned are counted.
#[derive(Clone, Copy)]
struct Counts<'a> {
    boards: &'a AtomicU64,
    classes: &'a AtomicU64,
    /// Each board scanned stands for its whole class (a table of the
    /// canonical layout holds the canonical boards only).
    whole_classes: bool,
}

/// Counts a uniquely solvable board and, when it is canonical, ranks it.
fn consider(board: Option<Board>, best: &mut Vec<Candidate>, counts: Counts) {
    let images = match board {
        Some(b) if counts.whole_classes => crate::layout::class_size(b.mask()),
        _ => 1,
    };
    counts.boards.fetch_add(images, AtomicOrdering::Relaxed);
    let Some(board) = board.filter(|b| b.canonical() == *b) else {
        return;
    };
    counts.classes.fetch_add(1, AtomicOrdering::Relaxed);
    best.push(Candidate {
        board,
        plain: Space::explore(board).size(),
        pruned: pruned_size(board),
    });
}
