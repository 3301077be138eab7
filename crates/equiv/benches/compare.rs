//! Benchmark: tic-tac-toe against 3-to-15 from the `.game` levels, then the
//! end-of-turn variant in agency mode: time to build each tree (Algorithm 2),
//! time to compare (canonical ids, correspondences, translation), and the
//! process's peak resident memory. Run with `cargo bench -p equiv`; pass
//! `agency` or `tree` to run one part alone (peak memory is per process).

use equiv::{compare, GameTree, Mode, TreeOptions};
use std::time::Instant;

fn load(name: &str) -> games::Level {
    let path = format!(
        "{}/../../levels/grammar/{name}.game",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    games::load(&path, &text, &games::LevelSelector::First).unwrap_or_else(|e| panic!("{e}"))
}

fn build(level: &games::Level) -> (GameTree, f64) {
    let start = Instant::now();
    let tree = GameTree::build(level.game.as_ref(), &level.title, TreeOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    (tree, start.elapsed().as_secs_f64())
}

/// Peak resident set size of this process, from /proc (Linux), in MiB.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn pair(a: &str, b: &str, mode: Mode) {
    let (la, lb) = (load(a), load(b));
    let (ta, secs_a) = build(&la);
    let (tb, secs_b) = build(&lb);
    let mut best = f64::INFINITY;
    let mut equivalent = false;
    for _ in 0..3 {
        let start = Instant::now();
        let c = compare(&ta, &tb, mode).unwrap_or_else(|e| panic!("{e}"));
        best = best.min(start.elapsed().as_secs_f64());
        equivalent = c.equivalent;
    }
    println!(
        "{a} ({} nodes, built in {secs_a:.3} s) vs {b} ({} nodes, built in {secs_b:.3} s), {mode:?}: equivalent = {equivalent}; compare {best:.3} s (best of 3); total {:.3} s; peak RSS {:.1} MiB",
        ta.len(),
        tb.len(),
        secs_a + secs_b + best,
        peak_rss_mib()
    );
}

fn main() {
    let which: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |part: &str| which.is_empty() || which.iter().any(|w| w == part);
    if wants("tree") {
        pair("tictactoe", "three-to-fifteen", Mode::Tree);
    }
    if wants("agency") {
        pair("tictactoe", "tictactoe-end-of-turn", Mode::Agency);
    }
}
