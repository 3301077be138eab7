//! Benchmark of the `.game` interpreter: successor evaluations per second
//! over every reachable state of tic-tac-toe (and a few other levels),
//! the median of several repeats. Run with
//! `cargo bench -p gamelang --bench grammar [-- LEVEL...]`.
//!
//! Each pass is timed twice: by the wall clock and by the CPU time of the
//! measuring thread (`/proc/thread-self/schedstat`), since the machine is
//! shared and a busy neighbour slows the wall clock without slowing the
//! interpreter. The median of each is reported.

use std::collections::HashSet;
use std::time::Instant;

use model::{Game, Successors};

const REPEATS: usize = 9;

fn main() {
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for name in [
        "tictactoe.game",
        "three-to-fifteen.game",
        "pig.game",
        "eight-puzzle.game",
    ] {
        if wanted.is_empty() || wanted.iter().any(|w| name.contains(w.as_str())) {
            measure(name);
        }
    }
}

/// Nanoseconds this thread has run on a CPU, when the kernel tells.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn measure(name: &str) {
    let path = format!("{}/../../levels/grammar/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let compiled = gamelang::compile(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    let game: &dyn Game = &compiled.game;
    let states = reachable(game);
    let mut out = Successors::new();
    let mut rates = Vec::new();
    let mut cpu_rates = Vec::new();
    let mut produced = 0;
    for _ in 0..REPEATS {
        // Each sample runs whole passes for at least 0.2 s so that the
        // kernel's CPU-time accounting has ticked often enough.
        let started = Instant::now();
        let cpu_start = thread_cpu_ns();
        let mut total = 0;
        while started.elapsed().as_secs_f64() < 0.2 {
            produced = pass(game, &states, &mut out);
            total += produced;
        }
        rates.push(total as f64 / started.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (cpu_start, thread_cpu_ns()) {
            cpu_rates.push(total as f64 / ((b - a).max(1) as f64 / 1e9));
        }
    }
    rates.sort_by(f64::total_cmp);
    cpu_rates.sort_by(f64::total_cmp);
    let cpu = cpu_rates
        .get(cpu_rates.len() / 2)
        .map_or("n/a".to_string(), |r| format!("{:.2}", r / 1e6));
    println!(
        "{name:24} {:>7} states {produced:>8} successors/pass  median {:>6.2} M successors/s wall, {cpu} M/s CPU (terminal check + successors of every state)",
        states.len(),
        rates[REPEATS / 2] / 1e6,
    );
}

/// Expands every non-terminal state once; returns the successors produced.
fn pass(game: &dyn Game, states: &[Vec<u8>], out: &mut Successors) -> usize {
    let mut produced = 0;
    for s in states {
        if game.terminal(s).is_some() {
            continue;
        }
        out.clear();
        game.successors(s, out);
        produced += out.len();
    }
    produced
}

fn reachable(game: &dyn Game) -> Vec<Vec<u8>> {
    let mut seen: HashSet<Vec<u8>> = game.initial_states().into_iter().collect();
    let mut order: Vec<Vec<u8>> = seen.iter().cloned().collect();
    let mut next = 0;
    let mut out = Successors::new();
    while let Some(s) = order.get(next).cloned() {
        next += 1;
        if game.terminal(&s).is_some() {
            continue;
        }
        out.clear();
        game.successors(&s, &mut out);
        for (_, t) in out.iter() {
            if seen.insert(t.to_vec()) {
                order.push(t.to_vec());
            }
        }
    }
    order
}
