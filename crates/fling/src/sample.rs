//! Timing a sample of one piece count, to project counts too large to build.

use crate::error::FlingError;
use crate::lookup::Level;
use crate::rank::boards;
use crate::step::{copy_to_memory, previous_words};
use crate::tables::{compute_range, table_path, Counts, CHUNK, COPY_BUDGET};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use store::BitTableWriter;

/// What [`sample_rate`] measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Boards computed.
    pub boards: u64,
    /// Of which solvable.
    pub solvable: u64,
    /// Of which uniquely solvable.
    pub unique: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Measures the rate of computing `pieces` from the finished tables of
/// `pieces - 1` in `dir`: `chunks` evenly spaced rank ranges of 65,536
/// boards, with `threads` threads, into throw-away tables in `scratch`
/// (sparse files, deleted afterwards). For projecting counts too large to build here.
pub fn sample_rate(
    dir: &Path,
    scratch: &Path,
    pieces: usize,
    chunks: u64,
    threads: usize,
) -> Result<Sample, FlingError> {
    let level = if pieces > 2 {
        Some(Level::open(dir, pieces - 1, false)?)
    } else {
        None
    };
    let copies = match &level {
        Some(level) => copy_to_memory(level, COPY_BUDGET)?,
        None => None,
    };
    let previous = previous_words(level.as_ref(), copies.as_ref());
    std::fs::create_dir_all(scratch).map_err(crate::error::io(scratch))?;
    let total = boards(pieces);
    let paths = [
        table_path(scratch, "sample-solvable", pieces),
        table_path(scratch, "sample-unique", pieces),
    ];
    let solvable = BitTableWriter::create(&paths[0], "sample", total)?;
    let unique = BitTableWriter::create(&paths[1], "sample", total)?;
    let stride = (total / CHUNK / chunks.max(1)).max(1);
    let next = AtomicU64::new(0);
    let started = Instant::now();
    let sums: Vec<Result<Counts, FlingError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = Counts::default();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let start = i * stride * CHUNK;
                        if i >= chunks || start >= total {
                            return Ok::<Counts, FlingError>(sum);
                        }
                        let end = (start + CHUNK).min(total);
                        let c = compute_range(pieces, start, end, &previous, (&solvable, &unique))?;
                        sum.with_move += end - start;
                        sum.solvable += c.solvable;
                        sum.unique += c.unique;
                    }
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
    let seconds = started.elapsed().as_secs_f64();
    drop((solvable, unique));
    for path in &paths {
        let _ = std::fs::remove_file(path);
    }
    let mut sample = Sample {
        boards: 0,
        solvable: 0,
        unique: 0,
        seconds,
    };
    for sum in sums {
        let sum = sum?;
        sample.boards += sum.with_move;
        sample.solvable += sum.solvable;
        sample.unique += sum.unique;
    }
    Ok(sample)
}
