//! Layers in rounds: small budgets cut the layers into many rounds, and the
//! gathered store is still the single machine's byte for byte, after a
//! restart from parts cut back mid-run too; the measured peak of the index
//! and a round's buffers stays within the budget, where one round a layer
//! outgrows it.

use crate::tests_memory::{content, distributed_runs, distributed_with, forget, level, single};
use crate::{gather, ClusterOptions};

/// Process 0's layers and rounds, every process's peak, and whether any
/// index went to disk.
struct Figures {
    layers: u64,
    rounds: u64,
    peaks: Vec<u64>,
    disk: bool,
}

/// Explores `name` with 1 to 4 processes under `budget` and checks the
/// gathered store against the single machine's; returns the figures per
/// process count.
fn rounds_of(name: &str, budget: Option<u64>) -> Vec<Figures> {
    let level = level(name);
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("single");
    single(&level, &reference, None);
    let want = content(&reference);
    let mut figures = Vec::new();
    for peers in 1..=4 {
        let root = tmp.path().join(format!("n{peers}"));
        let (parts, summaries) = distributed_runs(&level, &root, peers, None, budget);
        let out = root.join("gathered");
        gather(&parts, &out, false).unwrap();
        assert!(content(&out) == want, "{name}, {peers} processes");
        let m = summaries[0].memory;
        assert!(
            summaries.iter().all(|s| s.memory.rounds == m.rounds),
            "every process runs the same rounds"
        );
        figures.push(Figures {
            layers: m.layers,
            rounds: m.rounds,
            peaks: summaries.iter().map(|s| s.memory.peak_bytes).collect(),
            disk: summaries.iter().any(|s| s.used_disk),
        });
    }
    figures
}

#[test]
fn small_budgets_cut_layers_into_rounds_and_keep_the_ids() {
    // Every level keeps its ids; only those whose layers outgrow a round's
    // least room (see `budget::LEAST_ROUND_ROOM`) are cut into rounds.
    for (name, cut) in [
        ("sokoban/twoboxes.xsb", false),
        ("grammar/pig.game", false),
        ("grammar/tictactoe-random-start.game", true),
    ] {
        for (peers, f) in (1..).zip(rounds_of(name, Some(64 << 10))) {
            let said = format!(
                "{name}, {peers} processes: {} rounds in {} layers",
                f.rounds, f.layers
            );
            assert!(!cut || f.rounds > f.layers, "{said}");
        }
    }
}

#[test]
fn without_a_budget_a_layer_is_one_round() {
    for f in rounds_of("sokoban/twoboxes.xsb", None) {
        assert_eq!(f.rounds, f.layers);
    }
}

#[test]
fn the_measured_peak_stays_within_the_budget() {
    let budget = 1 << 20;
    let name = "grammar/eight-puzzle.game";
    let unbounded = rounds_of(name, None);
    let bounded = rounds_of(name, Some(budget));
    for (peers, (free, small)) in (1..).zip(unbounded.iter().zip(&bounded)) {
        let said = format!(
            "{name}, {peers} processes: unbounded, peaks {:?}; within {budget}: {} rounds in {} layers, peaks {:?}, index on disk: {}",
            free.peaks, small.rounds, small.layers, small.peaks, small.disk
        );
        eprintln!("{said}");
        assert!(
            free.peaks.iter().all(|&p| p > budget),
            "the level outgrows the budget in one round a layer: {said}"
        );
        assert!(small.rounds > small.layers, "{said}");
        assert!(small.peaks.iter().all(|&p| p <= budget), "{said}");
    }
}

#[test]
fn a_restart_mid_run_under_a_small_budget_gives_the_same_store() {
    let level = level("grammar/tictactoe-random-start.game");
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("single");
    single(&level, &reference, None);
    let budget = Some(96 << 10);
    for peers in [2, 3] {
        let root = tmp.path().join(format!("n{peers}"));
        let (parts, first) = distributed_runs(&level, &root, peers, None, budget);
        assert!(first[0].memory.rounds > first[0].memory.layers);
        forget(&parts[0], 5);
        forget(&parts[1], 2);
        let (again, summaries) = distributed_runs(&level, &root, peers, None, budget);
        assert!(summaries[0].resumed_from > 0, "resumed");
        let out = root.join("gathered");
        gather(&again, &out, false).unwrap();
        assert!(content(&out) == content(&reference), "{peers} processes");
    }
}

#[test]
fn rounds_with_the_index_in_memory_keep_the_ids_too() {
    // No budget, so the index stays in memory; the testing aid cuts every
    // layer into rounds of at most 40 successors a process.
    let opts = ClusterOptions {
        max_depth: None,
        mem_budget: None,
        round_limit: Some(40),
    };
    for name in ["sokoban/twoboxes.xsb", "grammar/pig.game"] {
        let level = level(name);
        let tmp = tempfile::tempdir().unwrap();
        let reference = tmp.path().join("single");
        single(&level, &reference, None);
        for peers in 1..=3 {
            let root = tmp.path().join(format!("n{peers}"));
            let (parts, summaries) = distributed_with(&level, &root, peers, &opts);
            let m = summaries[0].memory;
            assert!(m.rounds > 2 * m.layers, "{name}: {m:?}");
            assert!(summaries.iter().all(|s| !s.used_disk));
            forget(&parts[0], 3);
            let (again, _) = distributed_with(&level, &root, peers, &opts);
            let out = root.join("gathered");
            gather(&again, &out, false).unwrap();
            assert!(
                content(&out) == content(&reference),
                "{name}, {peers} processes"
            );
        }
    }
}

#[test]
fn a_tiny_budget_still_fills_its_rounds() {
    // Regression: under 64 KiB the runs' buffers and the index's table took
    // the whole budget once the index was on disk, so every round expanded
    // one parent (room3 to depth 19: 32,900 rounds on one process, a pass
    // over every run each). Rounds now get at least their least room: a
    // round holds hundreds of successors, not two.
    let level = level("sokoban/room3.xsb");
    let tmp = tempfile::tempdir().unwrap();
    let depth = Some(12);
    let reference = tmp.path().join("single");
    single(&level, &reference, depth);
    let transitions = store::Run::open(&reference).unwrap().transition_count();
    for peers in [1, 3] {
        let root = tmp.path().join(format!("n{peers}"));
        let (parts, summaries) = distributed_runs(&level, &root, peers, depth, Some(64 << 10));
        assert!(
            summaries.iter().all(|s| s.used_disk),
            "the index went to disk"
        );
        let m = summaries[0].memory;
        let said = format!(
            "{peers} processes: {} rounds in {} layers for {transitions} transitions",
            m.rounds, m.layers
        );
        assert!(m.rounds <= m.layers + transitions / 200, "{said}");
        let out = root.join("gathered");
        gather(&parts, &out, false).unwrap();
        assert!(content(&out) == content(&reference), "{said}");
    }
}
