//! Successor evaluations per second: a breadth-first search of the benchmark
//! room written as PuzzleScript (checking its state and transition counts),
//! and the successors of the first states of every conformance game.
//!
//! `cargo bench -p puzzlescript --bench successors [-- ROOM.ps.txt [CASES.jsonl]]`

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use model::{Game, Successors};
use puzzlescript::PuzzleScriptGame;

fn shared(rel: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../../../shared", "../../../../shared"]
        .iter()
        .map(|up| dir.join(up).join(rel))
        .find(|p| p.exists())
}

/// Seconds this thread has run on a CPU (from /proc, Linux), else wall time
/// since `start`: on a busy machine, wall time overstates the cost.
fn cpu_seconds(start: Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(start.elapsed().as_secs_f64(), |ns| ns / 1e9)
}

/// Breadth-first search: (states, transitions, successor evaluations, CPU seconds).
fn bfs(game: &PuzzleScriptGame, limit: usize) -> (usize, usize, usize, f64) {
    bfs_capped(game, limit, f64::INFINITY)
}

/// [`bfs`] that also stops after `max_cpu` seconds on the CPU.
fn bfs_capped(game: &PuzzleScriptGame, limit: usize, max_cpu: f64) -> (usize, usize, usize, f64) {
    let start = Instant::now();
    let cpu0 = cpu_seconds(start);
    let mut ids: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut queue: Vec<Vec<u8>> = game.initial_states();
    for s in &queue {
        ids.insert(s.clone(), ids.len() as u32);
    }
    let mut out = Successors::new();
    let actions = game.action_labels().len();
    let (mut transitions, mut evaluations, mut head) = (0usize, 0usize, 0usize);
    let mut last_look = Instant::now();
    while head < queue.len() && ids.len() < limit {
        // Reading the CPU clock costs a file read: look every 64 states, or
        // sooner when states are slow.
        if (head % 64 == 63 || last_look.elapsed() > Duration::from_millis(20))
            && max_cpu.is_finite()
        {
            last_look = Instant::now();
            if cpu_seconds(start) - cpu0 > max_cpu {
                break;
            }
        }
        let state = queue[head].clone();
        head += 1;
        if game.terminal(&state).is_some() {
            continue;
        }
        out.clear();
        game.successors(&state, &mut out);
        evaluations += actions;
        for (_, next) in out.iter() {
            transitions += 1;
            if !ids.contains_key(next) {
                ids.insert(next.to_vec(), ids.len() as u32);
                queue.push(next.to_vec());
            }
        }
    }
    (
        ids.len(),
        transitions,
        evaluations,
        cpu_seconds(start) - cpu0,
    )
}

/// CPU seconds spent in `successors` alone over the first `limit` states of
/// a breadth-first order: (evaluations, seconds).
fn successor_time(game: &PuzzleScriptGame, limit: usize) -> (usize, f64) {
    let mut seen: HashMap<Vec<u8>, ()> = HashMap::new();
    let mut queue = game.initial_states();
    let mut head = 0;
    while head < queue.len() && queue.len() < limit {
        let state = queue[head].clone();
        head += 1;
        let mut out = Successors::new();
        game.successors(&state, &mut out);
        for (_, next) in out.iter() {
            if seen.insert(next.to_vec(), ()).is_none() {
                queue.push(next.to_vec());
            }
        }
    }
    let start = Instant::now();
    let cpu0 = cpu_seconds(start);
    let mut out = Successors::new();
    for state in &queue {
        out.clear();
        game.successors(state, &mut out);
    }
    let secs = cpu_seconds(start) - cpu0;
    (queue.len() * game.action_labels().len(), secs)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let room = args
        .first()
        .map(PathBuf::from)
        .or_else(|| shared("fixtures/bench/room3.ps.txt"));
    if let Some(room) = room {
        let text = std::fs::read_to_string(&room).unwrap_or_default();
        match puzzlescript::compile(&room.display().to_string(), &text)
            .and_then(|g| PuzzleScriptGame::new(g, 1))
        {
            Ok(game) => {
                let (states, transitions, evals, secs) = bfs(&game, usize::MAX);
                println!(
                    "{}: {states} states, {transitions} transitions in {secs:.2} s on the CPU: {:.0} states/s, {:.0} successor evaluations/s ({} bytes a state)",
                    room.display(),
                    states as f64 / secs,
                    evals as f64 / secs,
                    game.state_width().max_len()
                );
                let (evals, secs) = successor_time(&game, 500_000);
                println!(
                    "  successors alone: {:.0} evaluations/s, {:.0} ns a state",
                    evals as f64 / secs,
                    secs * 1e9 * game.action_labels().len() as f64 / evals as f64
                );
                if room.ends_with("room3.ps.txt") {
                    assert_eq!(
                        (states, transitions),
                        (2_231_030, 7_479_678),
                        "room3 counts"
                    );
                }
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    let cases = args
        .get(1)
        .map(PathBuf::from)
        .or_else(|| shared("fixtures/puzzlescript/testdata.jsonl"));
    if let Some(cases) = cases {
        conformance_rates(&cases);
    }
}

/// Successor evaluations per second over the first states of each
/// conformance game's level (median over games). A game whose search has
/// not ended after five seconds of wall time is interrupted and left out of
/// the median (one random rule looped over many cells has more outcomes per
/// turn than can be enumerated).
fn conformance_rates(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut rates = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut interrupted = 0;
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let source = v["source"].as_str().unwrap_or("");
        if !seen.insert(source.to_string()) {
            continue;
        }
        let Ok(game) = puzzlescript::compile("case", source) else {
            continue;
        };
        let Ok(level) = PuzzleScriptGame::new(game, 1) else {
            continue;
        };
        let stop = Arc::new(AtomicBool::new(false));
        level.interrupt_on(stop.clone());
        let (done, wait) = mpsc::channel::<()>();
        // A few hundred states, at most a tenth of a second on the CPU: some
        // gallery games take milliseconds a turn.
        let flag = stop.clone();
        let (_, _, evals, secs) = std::thread::scope(|scope| {
            scope.spawn(move || {
                if wait.recv_timeout(Duration::from_secs(5)).is_err() {
                    flag.store(true, Ordering::Relaxed);
                }
            });
            let result = bfs_capped(&level, 300, 0.1);
            let _ = done.send(());
            result
        });
        if stop.load(Ordering::Relaxed) {
            interrupted += 1;
        } else if evals > 0 && secs > 0.0 {
            rates.push(evals as f64 / secs);
        }
    }
    rates.sort_by(f64::total_cmp);
    if let Some(median) = rates.get(rates.len() / 2) {
        println!(
            "conformance games: {} games, median {median:.0} successor evaluations/s (min {:.0}, max {:.0}; {interrupted} left out: interrupted after 5 s)",
            rates.len(),
            rates[0],
            rates[rates.len() - 1]
        );
    }
}
