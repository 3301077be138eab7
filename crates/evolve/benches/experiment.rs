//! Benchmark of one full experiment of the seed's design: 100 instances x
//! 30 runs (63 million games) of a preset, on every core.
//!
//! `cargo bench -p evolve --bench experiment -- [PRESET] [INSTANCES] [RUNS] [THREADS]`
//! (defaults: exp3 100 30, every core). Prints the wall time, the games per
//! second and the spread of the best scores; run it under `/usr/bin/time -v`
//! for the peak resident memory.

use std::time::Instant;

use evolve::{run, Design, Params};
use games::sandbox::preset;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let name = args.first().map_or("exp3", String::as_str);
    let number =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let Some(spec) = preset(name) else {
        eprintln!("unknown preset {name:?}");
        std::process::exit(2);
    };
    let design = Design {
        spec,
        instances: number(1, 100),
        runs: number(2, 30),
        seed: 1,
        params: Params::default(),
        threads: number(3, 0),
    };
    let started = Instant::now();
    let results = match run(&design, &|_| {}) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("experiment failed: {e}");
            std::process::exit(1);
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let stats = evolve::stats::analyse(&results);
    println!(
        "{name}: {} instances x {} runs, {} games in {seconds:.2} s ({:.2} M games/s); top scores {}..{} (median {}), mean best {:.1}..{:.1}, {} instances without variation, hardness {:.2}, interest {:.2}",
        design.instances,
        design.runs,
        results.games(),
        results.games() as f64 / seconds / 1e6,
        stats.top_scores.min,
        stats.top_scores.max,
        stats.top_scores.median,
        stats.mean_scores.min,
        stats.mean_scores.max,
        stats.without_variation,
        stats.hardness,
        stats.interest
    );
}
