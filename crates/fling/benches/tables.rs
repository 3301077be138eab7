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
//! each sample is timed with every step of `FLING_BENCH_SAMPLE_STEPS`
//! (default `reference,fast`: the plain one-board step the fast one replaced,
//! and the fast step) on the same ranges (before and after, one run). The
//! symmetric step cannot be sampled faithfully (a sample has no earlier
//! chunks to copy from), so its rate is measured by full builds:
//! `FLING_BENCH_STEP` (default `symmetric`, the build's) picks the step of a
//! full build. `benches/fling_tables.sh` runs the whole comparison.
//!
//! `FLING_BENCH_REGION=0.2-0.4` spreads the ranges over that fraction of the
//! ranks only (rates differ a lot between rank regions), and
//! `FLING_BENCH_BUDGET` (bytes) caps the in-memory copy of the tables below
//! (0: read them through the file mapping, for a machine whose memory is taken).
//!
//! `FLING_BENCH_THREADS` sets the thread count (default: every core).
//!
//! With `FLING_BENCH_CHECK=K` it solves `FLING_BENCH_CHECK_SAMPLES` (default
//! 1,000) boards of the list of K pieces in `FLING_BENCH_DIR`, and as many
//! candidates (boards one move above the uniquely solvable boards of K - 1),
//! by direct search, and counts disagreements with the list
//! (`benches/fling_headline.sh`). With `FLING_BENCH_ESTIMATE=K` it estimates
//! the solvable boards of K pieces (above the full tables) from
//! `FLING_BENCH_ESTIMATE_SAMPLES` (default 1,000,000) boards drawn at random.
//! With `FLING_BENCH_TABLE_CHECK=K` it solves `FLING_BENCH_CHECK_SAMPLES`
//! boards of K pieces drawn at random by direct search and compares them with
//! K's finished table, then looks every board of K's list (if any) up in it.

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let pieces: usize = env_number("FLING_BENCH_PIECES", 8);
    let scratch = std::env::temp_dir().join(format!("fling-bench-{}", std::process::id()));
    let dir = std::env::var("FLING_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| scratch.clone());
    let threads = std::env::var("FLING_BENCH_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if let Ok(pieces) = std::env::var("FLING_BENCH_CHECK") {
        return cross_check(&dir, &pieces);
    }
    if let Ok(pieces) = std::env::var("FLING_BENCH_TABLE_CHECK") {
        return table_check(&dir, &pieces, threads);
    }
    if let Ok(pieces) = std::env::var("FLING_BENCH_ESTIMATE") {
        return estimate(&dir, &pieces, threads);
    }
    if let Ok(range) = std::env::var("FLING_BENCH_SAMPLE") {
        let (low, high) = range.split_once('-').unwrap_or((&range, &range));
        let (Ok(low), Ok(high)) = (low.parse::<usize>(), high.parse::<usize>()) else {
            return eprintln!("FLING_BENCH_SAMPLE: expected K or K-K, got {range:?}");
        };
        let steps =
            std::env::var("FLING_BENCH_SAMPLE_STEPS").unwrap_or_else(|_| "reference,fast".into());
        let Some(steps) = steps.split(',').map(parse_step).collect::<Option<Vec<_>>>() else {
            return eprintln!(
                "FLING_BENCH_SAMPLE_STEPS: expected reference, fast or symmetric, got {steps:?}"
            );
        };
        for pieces in low..=high {
            for &step in &steps {
                sample_rate(&dir, pieces, threads, step);
            }
        }
        return;
    }
    let step = std::env::var("FLING_BENCH_STEP").unwrap_or_else(|_| "symmetric".into());
    let Some((step, top)) = parse_step(&step) else {
        return eprintln!("FLING_BENCH_STEP: expected reference, fast or symmetric, got {step:?}");
    };
    println!(
        "full build up to {pieces} pieces with the {step:?} step in {}",
        dir.display()
    );
    let started = Instant::now();
    // The process's processor times when each count starts (its first
    // progress report), to split user and system time by piece count.
    let marks = std::sync::Mutex::new(vec![(0usize, process_times())]);
    let mark = |p: fling::Progress| {
        if let Ok(mut marks) = marks.lock() {
            if marks.last().is_some_and(|&(k, _)| k != p.pieces) {
                marks.push((p.pieces, process_times()));
            }
        }
    };
    let result = fling::build_with_step(
        &dir,
        pieces,
        (threads, step, top),
        fling::COPY_BUDGET,
        &mark,
    );
    let mut marks = marks.into_inner().unwrap_or_default();
    marks.push((usize::MAX, process_times()));
    match result {
        Ok(built) => {
            println!("pieces  boards           with move        solvable         unique        seconds  boards/s    user s  system s  boards/CPU s");
            for b in built {
                let s = b.stats;
                let secs = s.millis as f64 / 1000.0;
                // From this count's first report to the next count's (or the end).
                let at = marks.iter().position(|&(k, _)| k == s.pieces);
                let (user, system) = at
                    .and_then(|i| Some((marks[i].1, marks.get(i + 1)?.1)))
                    .map_or((0.0, 0.0), |(a, b)| (b.0 - a.0, b.1 - a.1));
                println!(
                    "{:>6}  {:>15}  {:>15}  {:>15}  {:>12}  {:>9.1}  {:>10.0}  {:>8.1}  {:>8.1}  {:>12.0}{}",
                    s.pieces,
                    s.boards,
                    s.with_move,
                    s.solvable,
                    s.unique,
                    secs,
                    s.boards as f64 / secs.max(1e-3),
                    user,
                    system,
                    s.boards as f64 / (user + system).max(1e-3),
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

/// Solves `FLING_BENCH_CHECK_SAMPLES` (default 1,000) listed boards of `pieces` and as
/// many candidates directly, and prints how many agree with the list.
fn cross_check(dir: &std::path::Path, pieces: &str) {
    let samples = env_number("FLING_BENCH_CHECK_SAMPLES", 1000);
    let Ok(pieces) = pieces.parse::<usize>() else {
        return eprintln!("FLING_BENCH_CHECK: expected a piece count, got {pieces:?}");
    };
    let started = Instant::now();
    let check = fling::Tables::open(dir).and_then(|t| fling::cross_check(&t, pieces, samples));
    match check {
        Ok(c) => println!(
            "cross-check of the {pieces}-piece list by direct search: {} listed boards, {} \
             candidates ({} of them uniquely solvable), {} disagreements {:?}, {:.1} s",
            c.listed,
            c.candidates,
            c.candidates_unique,
            c.disagreements.len(),
            c.disagreements,
            started.elapsed().as_secs_f64()
        ),
        Err(err) => eprintln!("cross-check: {err}"),
    }
}

/// Solves `FLING_BENCH_CHECK_SAMPLES` (default 1,000) random boards of `pieces`
/// directly and compares them with the finished table, then checks the list.
fn table_check(dir: &std::path::Path, pieces: &str, threads: usize) {
    let samples = env_number("FLING_BENCH_CHECK_SAMPLES", 1000);
    let Ok(pieces) = pieces.parse::<usize>() else {
        return eprintln!("FLING_BENCH_TABLE_CHECK: expected a piece count, got {pieces:?}");
    };
    let started = Instant::now();
    let check = fling::Tables::open(dir)
        .and_then(|t| fling::table_check(&t, pieces, (samples, 1), threads));
    match check {
        Ok(c) => println!(
            "check of the {pieces}-piece table: {} random boards solved directly ({} solvable, \
             {} uniquely solvable), {} disagreements {:?}; {} listed boards looked up, {} not \
             uniquely solvable in the table; {:.1} s",
            c.samples,
            c.solvable,
            c.unique,
            c.disagreements.len(),
            c.disagreements,
            c.listed,
            c.listed_missing,
            started.elapsed().as_secs_f64()
        ),
        Err(err) => eprintln!("table check: {err}"),
    }
}

/// Estimates the solvable boards of `pieces` (above the full tables) from
/// `FLING_BENCH_ESTIMATE_SAMPLES` (default 1,000,000) boards drawn at random.
fn estimate(dir: &std::path::Path, pieces: &str, threads: usize) {
    let samples = env_number("FLING_BENCH_ESTIMATE_SAMPLES", 1_000_000);
    let Ok(pieces) = pieces.parse::<usize>() else {
        return eprintln!("FLING_BENCH_ESTIMATE: expected a piece count, got {pieces:?}");
    };
    let started = Instant::now();
    let found =
        fling::Tables::open(dir).and_then(|t| fling::estimate(&t, pieces, (samples, 1), threads));
    match found {
        Ok(e) => println!(
            "estimate of the solvable {pieces}-piece boards: {} of {} drawn boards solvable, \
             {:.4e} +- {:.2e} (95%) of {} boards; {} drawn boards in the list; {:.1} s",
            e.solvable,
            e.samples,
            e.solvable_boards(),
            e.margin(),
            e.boards,
            e.unique,
            started.elapsed().as_secs_f64()
        ),
        Err(err) => eprintln!("estimate: {err}"),
    }
}

/// The process's user and system processor seconds so far, from
/// `/proc/self/stat` (Linux; zeros elsewhere), at the usual 100 ticks a second.
fn process_times() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
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

/// The step named `name`.
fn parse_step(name: &str) -> Option<(fling::Step, fling::Layout)> {
    let full = fling::Layout::Full;
    match name.trim() {
        "reference" => Some((fling::Step::Reference, full)),
        "fast" => Some((fling::Step::Fast, full)),
        "symmetric" => Some((fling::Step::Symmetric, full)),
        "canonical" => Some((fling::Step::Symmetric, fling::Layout::Canonical)),
        _ => None,
    }
}

/// Times a sample of one piece count and projects the whole count.
fn sample_rate(
    dir: &std::path::Path,
    pieces: usize,
    threads: usize,
    (step, layout): (fling::Step, fling::Layout),
) {
    let chunks: u64 = env_number("FLING_BENCH_CHUNKS", 200);
    let mut sampling = fling::Sampling::new(chunks);
    if let Ok(region) = std::env::var("FLING_BENCH_REGION") {
        let parsed = region
            .split_once('-')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
        let Some(region) = parsed else {
            return eprintln!("FLING_BENCH_REGION: expected FROM-TO (fractions), got {region:?}");
        };
        sampling.region = region;
    }
    if let Some(budget) = std::env::var("FLING_BENCH_BUDGET")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        sampling.budget = budget;
    }
    let scratch = dir.join(format!("sample-scratch-{}", std::process::id()));
    let stand_in = std::env::var("FLING_BENCH_STAND_IN").is_ok_and(|v| v == "1");
    let source = (!stand_in).then_some(dir);
    match fling::sample_rate(source, &scratch, pieces, sampling, (threads, step, layout)) {
        Ok(s) => {
            let rate = s.boards as f64 / s.seconds.max(1e-9);
            let cpu_rate = s.boards as f64 / s.cpu_seconds.max(1e-9);
            let user_rate = s.boards as f64 / s.user_seconds.max(1e-9);
            let total = fling::boards(pieces);
            let share = |n: u64| n as f64 / s.boards.max(1) as f64;
            let what = if stand_in {
                "stand-in tables (1 bit in 64 set)"
            } else {
                "real tables"
            };
            println!(
                "{pieces} pieces, {step:?} step, {layout:?} layout, from {what}: sampled {} boards in {:.1} s wall, {:.1} s CPU ({:.2} s user) on {threads} threads: {rate:.0} boards/s wall, {cpu_rate:.0} boards per CPU second, {user_rate:.0} per user second",
                s.boards, s.seconds, s.cpu_seconds, s.user_seconds
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

/// The number in the environment variable `name`, or `default` when it is
/// unset or not a number of that type.
fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
