//! Timing a sample of one piece count, to project counts too large to build.

use crate::error::FlingError;
use crate::layout::Layout;
use crate::lookup::Level;
use crate::rank::boards;
use crate::step::{copy_to_memory, previous_words, Step};
use crate::table_layout::table_path;
use crate::tables::{compute_range, join_workers, run_workers, Counts, Out, CHUNK, COPY_BUDGET};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use store::{BitTableWriter, Words};

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
    /// Processor seconds of the worker threads (Linux; 0 elsewhere), the
    /// figure to trust on a machine shared with other work.
    pub cpu_seconds: f64,
    /// Of which user time: the computation itself (the system time is mostly
    /// the page faults of the copied tables and the sparse scratch tables).
    pub user_seconds: f64,
}

/// Which ranges a sample times: `chunks` evenly spaced ranges of 65,536
/// boards within the fraction `region` of the ranks (the rate differs a lot
/// between low and high ranks), with the tables below copied into memory
/// when they fit `budget` bytes (else read through their mapping).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    /// Ranges of 65,536 boards to time.
    pub chunks: u64,
    /// The fractions of the ranks the ranges are spread over (0 to 1 for all).
    pub region: (f64, f64),
    /// Bytes for in-memory copies of the tables below.
    pub budget: u64,
}

impl Sampling {
    /// `chunks` ranges spread over every rank, the build's memory budget.
    pub fn new(chunks: u64) -> Sampling {
        Sampling {
            chunks,
            region: (0.0, 1.0),
            budget: COPY_BUDGET,
        }
    }

    /// The first chunk and the stride between chunks, among `total` chunks.
    fn spread(&self, total: u64) -> (u64, u64) {
        let at = |f: f64| ((f.clamp(0.0, 1.0) * total as f64) as u64).min(total);
        let (first, last) = (at(self.region.0), at(self.region.1).max(at(self.region.0)));
        (first, ((last - first) / self.chunks.max(1)).max(1))
    }
}

/// User and system processor seconds.
type Seconds = (f64, f64);

/// User and system processor seconds used so far by the calling thread, from
/// `/proc/thread-self/stat` (ticks at the usual 100 per second).
fn thread_cpu_seconds() -> Seconds {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return (0.0, 0.0);
    };
    // Fields after the command name (which ends with the last ')'): utime and stime are 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) / 100.0, ticks(12) / 100.0)
}

/// A stand-in table of `words` words with the top bit of each set: every
/// page is written, so reads miss the caches as a real table's do (an
/// untouched anonymous page would be the kernel's shared zero page), and
/// one child in 64 counts as solvable.
fn stand_in(words: usize) -> Result<Words, FlingError> {
    let mut table = Words::zeroed(words)?;
    table.as_mut_slice().fill(1 << 63);
    Ok(table)
}

/// Measures the rate of computing `pieces` from the finished tables of
/// `pieces - 1` in `dir`: the rank ranges of `sampling`, with `threads` threads, into throw-away tables in `scratch`
/// (sparse files, deleted afterwards). For projecting counts too large to build here.
///
/// Without `dir`, the previous tables are stand-ins of the right size in
/// huge-page memory (see [`stand_in`]): the memory traffic is that of the
/// real computation, but few children are solvable, so nearly every child is
/// probed (few early exits) and the rate is a lower bound; the counts are
/// then meaningless.
pub fn sample_rate(
    dir: Option<&Path>,
    scratch: &Path,
    pieces: usize,
    sampling: Sampling,
    (threads, step, layout): (usize, Step, Layout),
) -> Result<Sample, FlingError> {
    let level = match dir {
        Some(dir) if pieces > 2 => {
            let mut level = Level::open(dir, pieces - 1, false)?;
            // The tables below are read in the layout they were recorded in.
            let recorded = crate::manifest::read(dir)?;
            if let Some(stats) = recorded.iter().find(|s| s.pieces == pieces - 1) {
                level.layout = stats.layout;
            }
            Some(level)
        }
        _ => None,
    };
    let copies = match (&level, dir) {
        (Some(level), _) => copy_to_memory(level, sampling.budget)?,
        (None, None) if pieces > 2 => {
            let words = boards(pieces - 1).div_ceil(64) as usize;
            Some((stand_in(words)?, stand_in(words)?))
        }
        _ => None,
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
    let (first, stride) = sampling.spread(total / CHUNK);
    let chunks = sampling.chunks;
    let next = AtomicU64::new(0);
    let started = Instant::now();
    let sums: Vec<Result<(Counts, Seconds), FlingError>> = std::thread::scope(|scope| {
        let workers = run_workers(scope, threads, || {
            let mut sum = Counts::default();
            let cpu = thread_cpu_seconds();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let start = (first + i * stride) * CHUNK;
                if i >= chunks || start >= total {
                    let now = thread_cpu_seconds();
                    return Ok::<_, FlingError>((sum, (now.0 - cpu.0, now.1 - cpu.1)));
                }
                let end = (start + CHUNK).min(total);
                let out = Out {
                    solvable: &solvable,
                    unique: &unique,
                    records: None,
                    layout,
                };
                let c = compute_range(pieces, start, end, &previous, step, &out)?;
                sum.with_move += end - start;
                sum.solvable += c.solvable;
                sum.unique += c.unique;
            }
        });
        join_workers(workers, pieces)
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
        cpu_seconds: 0.0,
        user_seconds: 0.0,
    };
    for sum in sums {
        let (sum, cpu) = sum?;
        sample.cpu_seconds += cpu.0 + cpu.1;
        sample.user_seconds += cpu.0;
        sample.boards += sum.with_move;
        sample.solvable += sum.solvable;
        sample.unique += sum.unique;
    }
    Ok(sample)
}
