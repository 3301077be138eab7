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
use crate::step::{classify_with, copy_to_memory, previous_words, Previous, Step, GROUP};
use crate::table_layout::{kind, table_path, MAX_TABLE_PIECES};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;
use store::BitTableWriter;

pub(crate) use crate::chunk::{decode, encode, tally, Counts, Out, CHUNK, RECORDS};
use crate::layout::Layout;

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

/// Computes the ranks `start..end` (start a multiple of 64, within one chunk)
/// into the tables with `step`.
pub(crate) fn compute_range(
    pieces: usize,
    start: u64,
    end: u64,
    previous: &Previous,
    step: Step,
    out: &Out,
) -> Result<Counts, FlingError> {
    // The canonical layout holds the canonical boards' bits only, which
    // only the symmetric step computes apart.
    if step == Step::Symmetric || out.layout == Layout::Canonical || previous.is_canonical() {
        return crate::symmetric::compute_range((pieces, out.layout), start, end, previous, out);
    }
    let mut counts = Counts::default();
    let mut mask = unrank(start, pieces).unwrap_or(0);
    let mut word_start = start;
    let mut masks = [0u64; 64];
    let mut classes = [(false, false, false); 64];
    while word_start < end {
        let n = (end - word_start).min(64) as usize;
        for slot in &mut masks[..n] {
            *slot = mask;
            mask = next_combination(mask);
        }
        for (group, class) in masks[..n].chunks(GROUP).zip(classes.chunks_mut(GROUP)) {
            classify_with(step, group, pieces, previous, class);
        }
        let (solvable, unique) = tally(&classes[..n], &mut counts);
        let word = (word_start / 64) as usize;
        out.solvable.store_word(word, solvable)?;
        out.unique.store_word(word, unique)?;
        word_start += 64;
    }
    Ok(counts)
}

/// One piece count's tables being written, with a record per chunk of ranks
/// (`chunks-k.bits`, one word per chunk: a done flag and the chunk's counts)
/// stored after the chunk's words, so that a build killed at any point
/// resumes with the chunks it finished and recomputes only the others.
struct Pass {
    solvable: BitTableWriter,
    unique: BitTableWriter,
    chunks: BitTableWriter,
    records: PathBuf,
}

impl Pass {
    /// Resumes the unfinished tables of `pieces` in `dir`, or starts them
    /// afresh when any of the three files is missing or cannot be resumed
    /// (then all three are recreated, so no chunk is believed done whose
    /// words were lost).
    fn open(dir: &Path, pieces: usize, chunks: u64) -> Result<Pass, FlingError> {
        let total = boards(pieces);
        let records = table_path(dir, "chunks", pieces);
        let paths = [
            (
                table_path(dir, "solvable", pieces),
                kind("solvable", pieces),
                total,
            ),
            (
                table_path(dir, "unique", pieces),
                kind("unique", pieces),
                total,
            ),
            (records.clone(), kind(RECORDS, pieces), 64 * chunks),
        ];
        let resumed: Vec<_> = if paths.iter().all(|(p, _, _)| p.exists()) {
            paths
                .iter()
                .map(|(p, k, bits)| BitTableWriter::resume(p, k, *bits))
                .filter_map(Result::ok)
                .filter(|(_, resumed)| *resumed)
                .map(|(writer, _)| writer)
                .collect()
        } else {
            Vec::new()
        };
        let mut writers = if resumed.len() == 3 {
            resumed
        } else {
            drop(resumed);
            // The chunk records go first, so that a kill between the three
            // leaves no old record beside a fresh table.
            let mut fresh = Vec::new();
            for (p, k, bits) in paths.iter().rev() {
                fresh.push(BitTableWriter::create(p, k, *bits)?);
            }
            fresh.reverse();
            fresh
        }
        .into_iter();
        let mut next = || {
            writers.next().ok_or_else(|| FlingError::Pieces {
                pieces,
                why: "a table writer is missing".into(),
            })
        };
        Ok(Pass {
            solvable: next()?,
            unique: next()?,
            chunks: next()?,
            records,
        })
    }
}

/// Computes every board of `pieces` pieces with `threads` threads (resuming the
/// chunks an interrupted build finished) and finishes both tables.
fn compute_level(
    dir: &Path,
    (pieces, layout): (usize, Layout),
    previous: &Previous,
    (threads, step): (usize, Step),
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<LevelStats, FlingError> {
    let started = Instant::now();
    let total = boards(pieces);
    let chunks = total.div_ceil(CHUNK);
    let pass = Pass::open(dir, pieces, chunks)?;
    let next_chunk = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let failed = AtomicUsize::new(0);
    let results: Vec<Result<(), FlingError>> = std::thread::scope(|scope| {
        let workers = run_workers(scope, threads, || {
            while failed.load(Ordering::Relaxed) == 0 {
                let chunk = next_chunk.fetch_add(1, Ordering::Relaxed);
                let start = chunk * CHUNK;
                if start >= total {
                    break;
                }
                let end = (start + CHUNK).min(total);
                if decode(pass.chunks.load_word(chunk as usize)).is_none() {
                    let out = Out {
                        solvable: &pass.solvable,
                        unique: &pass.unique,
                        records: Some(&pass.chunks),
                        layout,
                    };
                    let counts = compute_range(pieces, start, end, previous, step, &out)
                        .and_then(|counts| {
                            pass.chunks.store_word(chunk as usize, encode(counts))?;
                            Ok(counts)
                        })
                        .inspect_err(|_| {
                            failed.fetch_add(1, Ordering::Relaxed);
                        })?;
                    let _ = counts;
                }
                let done = done.fetch_add(end - start, Ordering::Relaxed) + end - start;
                progress(Progress {
                    pieces,
                    done,
                    total,
                });
            }
            Ok(())
        });
        join_workers(workers, pieces)
    });
    for result in results {
        result?;
    }
    let mut stats = LevelStats {
        pieces,
        boards: total,
        with_move: 0,
        solvable: 0,
        unique: 0,
        millis: 0,
        layout,
    };
    for chunk in 0..chunks as usize {
        let counts = decode(pass.chunks.load_word(chunk)).ok_or_else(|| FlingError::Pieces {
            pieces,
            why: format!(
                "chunk {chunk} of {} was not computed",
                pass.records.display()
            ),
        })?;
        stats.with_move += counts.with_move;
        stats.solvable += counts.solvable;
        stats.unique += counts.unique;
    }
    let Pass {
        solvable,
        unique,
        chunks,
        records,
    } = pass;
    solvable.finish()?;
    unique.finish()?;
    drop(chunks);
    stats.millis = started.elapsed().as_millis() as u64;
    manifest::record(dir, &stats)?;
    std::fs::remove_file(&records).map_err(crate::error::io(&records))?;
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
    build_with_step(
        dir,
        max_pieces,
        (threads, Step::Symmetric, Layout::Full),
        memory_budget,
        progress,
    )
}

/// [`build`] with every count's tables in `layout`: the canonical layout
/// computes a quarter of the boards and copies none (each count above ranks
/// its children's canonical images to read them).
pub fn build_with_layout(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    layout: Layout,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Vec<Built>, FlingError> {
    let step = (threads, Step::Symmetric, layout);
    build_with_step(dir, max_pieces, step, COPY_BUDGET, progress)
}

/// [`build_with_budget`] with the step that classifies the boards (the
/// tables are the same with every step; the benchmark compares them) and the
/// tables' layout. A count recorded in another layout is computed again.
pub fn build_with_step(
    dir: &Path,
    max_pieces: usize,
    (threads, step, layout): (usize, Step, Layout),
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
    // One build a directory: a second one would resume the same unfinished
    // count beside the first and race it to the end (`DIR/LOCK`, as a run's).
    let _lock = store::lock_dir(dir)?;
    let recorded = manifest::read(dir)?;
    let mut built = Vec::new();
    let mut previous: Option<Level> = None;
    for pieces in 2..=max_pieces {
        let known = recorded.iter().find(|l| l.pieces == pieces);
        if let Some(stats) = known
            .filter(|s| s.layout == layout)
            .filter(|_| Level::open(dir, pieces, false).is_ok())
        {
            built.push(Built {
                stats: stats.clone(),
                kept: true,
            });
            previous = None;
            continue;
        }
        if known.is_some() {
            manifest::forget(dir, pieces)?;
        }
        if previous.is_none() && pieces > 2 {
            let mut level = Level::open(dir, pieces - 1, true)?;
            level.layout = layout;
            previous = Some(level);
        }
        let copies = match &previous {
            Some(level) => copy_to_memory(level, memory_budget)?,
            None => None,
        };
        let prev = previous_words(previous.as_ref(), copies.as_ref());
        let stats = compute_level(dir, (pieces, layout), &prev, (threads, step), progress)?;
        drop(copies);
        built.push(Built { stats, kept: false });
        let mut level = Level::open(dir, pieces, false)?;
        level.layout = layout;
        previous = Some(level);
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
