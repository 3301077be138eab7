//! Retrograde analysis of every k-piece board for k = 2..K: bit tables of
//! the solvable and the uniquely solvable boards, indexed by rank.
//!
//! Each move removes one piece, so the boards of k pieces depend only on
//! those of k - 1: a k-piece board is solvable when some move leads to a
//! solvable board, and uniquely solvable when exactly one move does and the
//! board it leads to is uniquely solvable (every 2-piece board with a move
//! is uniquely solvable). The tables of k - 1 are mapped read-only; the
//! tables of k are computed by all cores over word-aligned rank ranges,
//! each thread enumerating its range in rank order and storing whole words,
//! so the result does not depend on the thread count or the scheduling.

use crate::error::FlingError;
use crate::manifest::{self, LevelStats};
use crate::rank::{boards, next_combination, rank, unrank};
use games::fling::Board;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use store::{BitTable, BitTableWriter};

/// Ranks per unit of work handed to a thread (a multiple of 64).
const CHUNK: u64 = 1 << 16;
/// The most pieces a table build accepts; beyond, the tables outgrow any disk.
pub const MAX_TABLE_PIECES: usize = 14;

/// How far a build has come, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The piece count being computed.
    pub pieces: usize,
    /// Boards of that count done so far.
    pub done: u64,
    /// Boards of that count in all.
    pub total: u64,
}

/// What a build did with one piece count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The count's figures.
    pub stats: LevelStats,
    /// True when the count was already finished and kept.
    pub kept: bool,
}

/// The path of the `what` table (`solvable` or `unique`) for `pieces`.
pub fn table_path(dir: &Path, what: &str, pieces: usize) -> PathBuf {
    dir.join(format!("{what}-{pieces}.bits"))
}

fn kind(what: &str, pieces: usize) -> String {
    format!("fling-{what}-{pieces}")
}

/// The solvable and uniquely solvable tables of one piece count.
pub struct Level {
    /// Bit per rank: the board is solvable.
    pub solvable: BitTable,
    /// Bit per rank: the board is uniquely solvable.
    pub unique: BitTable,
}

impl Level {
    /// Opens the finished tables of `pieces` in `dir`, verifying their checksums if asked.
    pub fn open(dir: &Path, pieces: usize, verify: bool) -> Result<Level, FlingError> {
        let open = |what: &str| {
            BitTable::open(&table_path(dir, what, pieces), &kind(what, pieces), verify)
        };
        let level = Level {
            solvable: open("solvable")?,
            unique: open("unique")?,
        };
        if level.solvable.len_bits() != boards(pieces) || level.unique.len_bits() != boards(pieces)
        {
            return Err(FlingError::MissingTables {
                dir: dir.to_path_buf(),
                pieces,
            });
        }
        Ok(level)
    }
}

/// The tables one piece count below the one being computed.
enum Previous<'a> {
    /// One piece: every board is solved.
    Solved,
    /// The mapped tables.
    Tables(&'a Level),
}

impl Previous<'_> {
    #[inline]
    fn solvable(&self, rank: u64) -> bool {
        match self {
            Previous::Solved => true,
            Previous::Tables(t) => t.solvable.get(rank),
        }
    }

    #[inline]
    fn unique(&self, rank: u64) -> bool {
        match self {
            Previous::Solved => true,
            Previous::Tables(t) => t.unique.get(rank),
        }
    }
}

/// A board's classification: (has a legal move, solvable, uniquely solvable).
#[inline]
fn classify(board: Board, previous: &Previous) -> (bool, bool, bool) {
    let mut any_move = false;
    let mut solving = 0u32;
    let mut unique_child = false;
    let mut rest = board.mask();
    // Stop at the second solving move: the board is then solvable and not unique.
    'cells: while rest != 0 {
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        for dir in games::fling::DIRECTIONS {
            let Some(child) = board.apply(cell, dir) else {
                continue;
            };
            any_move = true;
            let r = rank(child.mask());
            if previous.solvable(r) {
                solving += 1;
                if solving > 1 {
                    break 'cells;
                }
                unique_child = previous.unique(r);
            }
        }
    }
    let unique = if board.pieces() == 2 {
        any_move
    } else {
        solving == 1 && unique_child
    };
    (any_move, solving > 0, unique)
}

/// Counts of one rank range.
#[derive(Clone, Copy, Default)]
struct Counts {
    with_move: u64,
    solvable: u64,
    unique: u64,
}

/// Computes the ranks `start..end` (start a multiple of 64) into the tables.
fn compute_range(
    pieces: usize,
    start: u64,
    end: u64,
    previous: &Previous,
    out: (&BitTableWriter, &BitTableWriter),
) -> Result<Counts, FlingError> {
    let mut counts = Counts::default();
    let mut mask = unrank(start, pieces).unwrap_or(0);
    let mut word_start = start;
    while word_start < end {
        let (mut solvable, mut unique) = (0u64, 0u64);
        for bit in 0..(end - word_start).min(64) {
            let board = Board::from_mask(mask).unwrap_or_default();
            let (has_move, s, u) = classify(board, previous);
            counts.with_move += u64::from(has_move);
            counts.solvable += u64::from(s);
            counts.unique += u64::from(u);
            solvable |= u64::from(s) << bit;
            unique |= u64::from(u) << bit;
            mask = next_combination(mask);
        }
        let word = (word_start / 64) as usize;
        out.0.store_word(word, solvable)?;
        out.1.store_word(word, unique)?;
        word_start += 64;
    }
    Ok(counts)
}

/// Computes every board of `pieces` pieces with `threads` threads and finishes both tables.
fn compute_level(
    dir: &Path,
    pieces: usize,
    previous: &Previous,
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<LevelStats, FlingError> {
    let started = Instant::now();
    let total = boards(pieces);
    let solvable = BitTableWriter::create(
        &table_path(dir, "solvable", pieces),
        &kind("solvable", pieces),
        total,
    )?;
    let unique = BitTableWriter::create(
        &table_path(dir, "unique", pieces),
        &kind("unique", pieces),
        total,
    )?;
    let next_chunk = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let failed = AtomicUsize::new(0);
    let results: Vec<Result<Counts, FlingError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = Counts::default();
                    while failed.load(Ordering::Relaxed) == 0 {
                        let start = next_chunk.fetch_add(1, Ordering::Relaxed) * CHUNK;
                        if start >= total {
                            break;
                        }
                        let end = (start + CHUNK).min(total);
                        let counts =
                            compute_range(pieces, start, end, previous, (&solvable, &unique))
                                .inspect_err(|_| {
                                    failed.fetch_add(1, Ordering::Relaxed);
                                })?;
                        sum.with_move += counts.with_move;
                        sum.solvable += counts.solvable;
                        sum.unique += counts.unique;
                        let done = done.fetch_add(end - start, Ordering::Relaxed) + end - start;
                        progress(Progress {
                            pieces,
                            done,
                            total,
                        });
                    }
                    Ok(sum)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(FlingError::Pieces {
                        pieces,
                        why: "a worker thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    let mut stats = LevelStats {
        pieces,
        boards: total,
        with_move: 0,
        solvable: 0,
        unique: 0,
        millis: 0,
    };
    for counts in results {
        let counts = counts?;
        stats.with_move += counts.with_move;
        stats.solvable += counts.solvable;
        stats.unique += counts.unique;
    }
    solvable.finish()?;
    unique.finish()?;
    stats.millis = started.elapsed().as_millis() as u64;
    Ok(stats)
}

/// Builds (or resumes) the tables of 2..=`max_pieces` pieces in `dir`: a
/// piece count recorded in the manifest whose tables open is kept, the
/// others are computed in order with `threads` threads.
pub fn build(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<Built>, FlingError> {
    if !(2..=MAX_TABLE_PIECES).contains(&max_pieces) {
        return Err(FlingError::Pieces {
            pieces: max_pieces,
            why: format!("tables are built for 2 to {MAX_TABLE_PIECES} pieces"),
        });
    }
    std::fs::create_dir_all(dir).map_err(crate::error::io(dir))?;
    let recorded = manifest::read(dir)?;
    let mut built = Vec::new();
    let mut previous: Option<Level> = None;
    for pieces in 2..=max_pieces {
        let known = recorded.iter().find(|l| l.pieces == pieces);
        if let Some(stats) = known.filter(|_| Level::open(dir, pieces, false).is_ok()) {
            built.push(Built {
                stats: stats.clone(),
                kept: true,
            });
            previous = None;
            continue;
        }
        if previous.is_none() && pieces > 2 {
            previous = Some(Level::open(dir, pieces - 1, true)?);
        }
        let prev = previous.as_ref().map_or(Previous::Solved, Previous::Tables);
        let stats = compute_level(dir, pieces, &prev, threads, progress)?;
        manifest::record(dir, &stats)?;
        built.push(Built { stats, kept: false });
        previous = Some(Level::open(dir, pieces, false)?);
    }
    Ok(built)
}

/// The finished tables of a directory, for looking boards up.
pub struct Tables {
    dir: PathBuf,
    levels: Vec<Option<Level>>,
}

impl Tables {
    /// Opens every finished piece count recorded in `dir`'s manifest.
    pub fn open(dir: &Path) -> Result<Tables, FlingError> {
        let recorded = manifest::read(dir)?;
        let max = recorded.iter().map(|l| l.pieces).max().unwrap_or(0);
        let mut levels: Vec<Option<Level>> = (0..=max).map(|_| None).collect();
        for stats in &recorded {
            if let Some(slot) = levels.get_mut(stats.pieces) {
                *slot = Some(Level::open(dir, stats.pieces, false)?);
            }
        }
        Ok(Tables {
            dir: dir.to_path_buf(),
            levels,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The largest piece count with tables.
    pub fn max_pieces(&self) -> usize {
        self.levels
            .iter()
            .rposition(Option::is_some)
            .unwrap_or(1)
            .max(1)
    }

    /// The tables of `pieces`, or an error naming the directory.
    pub fn level(&self, pieces: usize) -> Result<&Level, FlingError> {
        self.levels
            .get(pieces)
            .and_then(Option::as_ref)
            .ok_or_else(|| FlingError::MissingTables {
                dir: self.dir.clone(),
                pieces,
            })
    }

    /// (solvable, uniquely solvable) of `board`, when its piece count is covered.
    pub fn status(&self, board: Board) -> Option<(bool, bool)> {
        match board.pieces() {
            0 => Some((false, false)),
            1 => Some((true, true)),
            k => {
                let level = self.levels.get(k as usize)?.as_ref()?;
                let r = rank(board.mask());
                Some((level.solvable.get(r), level.unique.get(r)))
            }
        }
    }
}

#[cfg(test)]
#[path = "tables_tests.rs"]
mod tests;
