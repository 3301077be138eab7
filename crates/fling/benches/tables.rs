//! Benchmark of the retrograde tables: builds (or resumes) the tables up to
//! `FLING_BENCH_PIECES` pieces (default 8) in `FLING_BENCH_DIR` (default a
//! fresh temporary folder) with every core, and prints each count's figures
//! and rate. Run with `/usr/bin/time -v` for the peak memory:
//!
//! ```text
//! /usr/bin/time -v cargo bench -p fling --bench tables
//! FLING_BENCH_PIECES=10 FLING_BENCH_DIR=/work/tables cargo bench -p fling --bench tables
//! ```

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
