//! Benchmark of the retrograde tables: builds (or resumes) the tables up to
//! `FLING_BENCH_PIECES` pieces (default 8) in `FLING_BENCH_DIR` (default a
//! fresh temporary folder) with every core, and prints each count's figures
//! and rate. Run with `/usr/bin/time -v` for the peak memory:
//!
//! ```text
//! /usr/bin/time -v cargo bench -p fling --bench tables
//! FLING_BENCH_PIECES=10 FLING_BENCH_DIR=/work/tables cargo bench -p fling --bench tables
//! ```
//!
//! With `FLING_BENCH_SAMPLE=K` it instead times `FLING_BENCH_CHUNKS` (default
//! 200) evenly spaced ranges of 65,536 K-piece boards computed from the
//! finished K-1 tables in `FLING_BENCH_DIR`, and projects the full count;
//! `FLING_BENCH_STAND_IN=1` uses stand-in K-1 tables of the right size
//! instead (for K whose K-1 tables are not built: a lower bound on the rate).
//! `FLING_BENCH_SAMPLE=3-10` samples every K of the range in one run, and
//! each sample is timed twice, with the plain reference step and with the
//! fast step of the build, on the same ranges (before and after, one run).

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let pieces: usize = std::env::var("FLING_BENCH_PIECES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let scratch = std::env::temp_dir().join(format!("fling-bench-{}", std::process::id()));
    let dir = std::env::var("FLING_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| scratch.clone());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Ok(range) = std::env::var("FLING_BENCH_SAMPLE") {
        let (low, high) = range.split_once('-').unwrap_or((&range, &range));
        let (Ok(low), Ok(high)) = (low.parse::<usize>(), high.parse::<usize>()) else {
            return eprintln!("FLING_BENCH_SAMPLE: expected K or K-K, got {range:?}");
        };
        for pieces in low..=high {
            for step in [fling::Step::Reference, fling::Step::Fast] {
                sample_rate(&dir, pieces, threads, step);
            }
        }
        return;
    }
    let started = Instant::now();
    match fling::build(&dir, pieces, threads, &|_| {}) {
        Ok(built) => {
            println!("pieces  boards           with move        solvable         unique        seconds  boards/s");
            for b in built {
                let s = b.stats;
                let secs = s.millis as f64 / 1000.0;
                println!(
                    "{:>6}  {:>15}  {:>15}  {:>15}  {:>12}  {:>9.1}  {:>10.0}{}",
                    s.pieces,
                    s.boards,
                    s.with_move,
                    s.solvable,
                    s.unique,
                    secs,
                    s.boards as f64 / secs.max(1e-3),
                    if b.kept { "  (kept)" } else { "" }
                );
            }
            println!(
                "total {:.1} s on {threads} threads",
                started.elapsed().as_secs_f64()
            );
        }
        Err(err) => eprintln!("fling tables: {err}"),
    }
    if dir == scratch {
        let _ = std::fs::remove_dir_all(&scratch);
    }
}

/// Times a sample of one piece count and projects the whole count.
fn sample_rate(dir: &std::path::Path, pieces: usize, threads: usize, step: fling::Step) {
    let chunks: u64 = std::env::var("FLING_BENCH_CHUNKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let scratch = dir.join(format!("sample-scratch-{}", std::process::id()));
    let stand_in = std::env::var("FLING_BENCH_STAND_IN").is_ok_and(|v| v == "1");
    let source = (!stand_in).then_some(dir);
    match fling::sample_rate(source, &scratch, pieces, chunks, threads, step) {
        Ok(s) => {
            let rate = s.boards as f64 / s.seconds.max(1e-9);
            let cpu_rate = s.boards as f64 / s.cpu_seconds.max(1e-9);
            let total = fling::boards(pieces);
            let share = |n: u64| n as f64 / s.boards.max(1) as f64;
            let what = if stand_in {
                "stand-in tables (1 bit in 64 set)"
            } else {
                "real tables"
            };
            println!(
                "{pieces} pieces, {step:?} step, from {what}: sampled {} boards in {:.1} s wall, {:.1} s CPU on {threads} threads: {rate:.0} boards/s wall, {cpu_rate:.0} boards per CPU second",
                s.boards, s.seconds, s.cpu_seconds
            );
            println!(
                "projected for all {total} boards: {:.2} h at the wall rate, {:.2} h on {threads} idle cores at the CPU rate",
                total as f64 / rate / 3600.0,
                total as f64 / cpu_rate / threads as f64 / 3600.0
            );
            if !stand_in {
                println!(
                    "projected counts: ~{:.0} solvable, ~{:.0} uniquely solvable",
                    share(s.solvable) * total as f64,
                    share(s.unique) * total as f64
                );
            }
        }
        Err(err) => eprintln!("fling sample: {err}"),
    }
    let _ = std::fs::remove_dir(&scratch);
}
