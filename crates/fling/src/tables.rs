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
use crate::lookup::Level;
use crate::manifest::{self, LevelStats};
use crate::rank::{boards, next_combination, unrank};
use crate::step::{classify, copy_to_memory, previous_words, Previous};
use crate::table_layout::{kind, table_path, MAX_TABLE_PIECES};
use games::fling::Board;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use store::BitTableWriter;

/// Ranks per unit of work handed to a thread (a multiple of 64).
pub(crate) const CHUNK: u64 = 1 << 16;

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

/// Counts of one rank range.
#[derive(Clone, Copy, Default)]
pub(crate) struct Counts {
    pub(crate) with_move: u64,
    pub(crate) solvable: u64,
    pub(crate) unique: u64,
}

/// Computes the ranks `start..end` (start a multiple of 64) into the tables.
pub(crate) fn compute_range(
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
        let workers = run_workers(scope, threads, || {
            let mut sum = Counts::default();
            while failed.load(Ordering::Relaxed) == 0 {
                let start = next_chunk.fetch_add(1, Ordering::Relaxed) * CHUNK;
                if start >= total {
                    break;
                }
                let end = (start + CHUNK).min(total);
                let counts = compute_range(pieces, start, end, previous, (&solvable, &unique))
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
        });
        join_workers(workers, pieces)
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

/// Memory for in-memory copies of the previous level's tables (beyond it
/// they are read through the file mapping): 12 GiB, enough for k = 10.
pub const COPY_BUDGET: u64 = 12 << 30;

/// Builds (or resumes) the tables of 2..=`max_pieces` pieces in `dir`: a
/// piece count recorded in the manifest whose tables open is kept, the
/// others are computed in order with `threads` threads.
pub fn build(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<Built>, FlingError> {
    build_with_budget(dir, max_pieces, threads, COPY_BUDGET, progress)
}

/// [`build`] with an explicit budget for in-memory copies of the previous
/// level's tables (0: always read them through the mapping).
pub fn build_with_budget(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    memory_budget: u64,
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
        let copies = match &previous {
            Some(level) => copy_to_memory(level, memory_budget)?,
            None => None,
        };
        let prev = previous_words(previous.as_ref(), copies.as_ref());
        let stats = compute_level(dir, pieces, &prev, threads, progress)?;
        drop(copies);
        manifest::record(dir, &stats)?;
        built.push(Built { stats, kept: false });
        previous = Some(Level::open(dir, pieces, false)?);
    }
    Ok(built)
}

/// Joins the scoped workers of a `pieces`-piece pass, in order; a worker that
/// panicked becomes an error naming the pass rather than a second panic.
pub(crate) fn join_workers<T>(
    workers: Vec<std::thread::Result<Result<T, FlingError>>>,
    pieces: usize,
) -> Vec<Result<T, FlingError>> {
    workers
        .into_iter()
        .map(|w| {
            w.unwrap_or_else(|_| {
                Err(FlingError::Pieces {
                    pieces,
                    why: "a worker thread panicked".into(),
                })
            })
        })
        .collect()
}

/// Runs `work` on up to `threads` threads and returns what each returned (or its panic).
/// The workers share their work through a counter, so a thread the system refuses only
/// ends the spawning, and with none started the calling thread does the work: a thread
/// limit never fails a build (it used to panic).
pub(crate) fn run_workers<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    threads: usize,
    work: impl Fn() -> T + Send + Copy + 'scope,
) -> Vec<std::thread::Result<T>> {
    let workers: Vec<_> = (0..threads.max(1))
        .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
        .collect();
    if workers.is_empty() {
        return vec![Ok(work())];
    }
    workers.into_iter().map(|w| w.join()).collect()
}

#[cfg(test)]
#[path = "tables_tests.rs"]
mod tests;
