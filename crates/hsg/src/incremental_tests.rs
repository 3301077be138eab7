//! Tests of the incremental components against the batch analysis of the whole graph.

use super::*;
use crate::mem::MemGraph;
use crate::scc::strongly_connected_components;
use proptest::prelude::*;

/// Feeds `rows` (row i belongs to state i) in batches of `batch` rows, growing the
/// known states to what the rows reach, and settles after each batch.
fn feed(n: u64, rows: &[Vec<u64>], batch: usize) -> Incremental {
    let mut inc = Incremental::new();
    inc.grow_to(1).unwrap();
    for (chunk_no, chunk) in rows.chunks(batch.max(1)).enumerate() {
        let first = (chunk_no * batch.max(1)) as u64;
        let reach = chunk.iter().flatten().copied().max().unwrap_or(0) + 1;
        inc.grow_to(reach.max(first + chunk.len() as u64).min(n))
            .unwrap();
        for (k, row) in chunk.iter().enumerate() {
            inc.add_row(first + k as u64, row);
        }
        inc.set_expanded(first + chunk.len() as u64);
        inc.settle();
    }
    inc.grow_to(n).unwrap();
    inc
}

/// The smallest member of each state's component, from the batch algorithm.
fn batch_min_member(n: u64, rows: &[Vec<u64>]) -> Vec<u64> {
    let edges: Vec<(u64, u16, u64)> = rows
        .iter()
        .enumerate()
        .flat_map(|(s, row)| row.iter().map(move |&t| (s as u64, 0u16, t)))
        .collect();
    let g = MemGraph::partial(n, rows.len() as u64, &edges, &[]).unwrap();
    let comps = strongly_connected_components(&g);
    let mut min_of = vec![u64::MAX; comps.count as usize];
    for s in 0..n {
        let c = comps.of_state.get(s).unwrap() as usize;
        min_of[c] = min_of[c].min(s);
    }
    (0..n)
        .map(|s| min_of[comps.of_state.get(s).unwrap() as usize])
        .collect()
}

fn graph() -> impl Strategy<Value = (u64, Vec<Vec<u64>>, usize)> {
    (2u64..40).prop_flat_map(|n| {
        let row = proptest::collection::vec(0..n, 0..4);
        (
            Just(n),
            proptest::collection::vec(row, 1..=n as usize),
            1usize..8,
        )
    })
}

proptest! {
    #[test]
    fn components_match_the_batch_algorithm((n, rows, batch) in graph()) {
        let mut inc = feed(n, &rows, batch);
        let expected = batch_min_member(n, &rows);
        for s in 0..n {
            prop_assert_eq!(inc.component_of(s), expected[s as usize], "state {}", s);
        }
        let distinct: std::collections::BTreeSet<u64> = expected.iter().copied().collect();
        prop_assert_eq!(inc.component_count(), distinct.len() as u64);
    }

    #[test]
    fn batching_does_not_change_depths((n, rows, batch) in graph()) {
        let mut one = feed(n, &rows, rows.len());
        let mut many = feed(n, &rows, batch);
        one.compute_depths();
        many.compute_depths();
        for s in 0..n {
            prop_assert_eq!(one.depth_of(s), many.depth_of(s));
        }
        prop_assert_eq!(one.live(), many.live());
    }
}

#[test]
fn a_two_cycle_merges_and_its_exit_is_one_level_deeper() {
    // 0 <-> 1 -> 2 (2 unexpanded).
    let mut inc = feed(3, &[vec![1], vec![0, 2]], 1);
    assert_eq!(inc.component_of(1), 0);
    assert_eq!(inc.component_count(), 2);
    inc.compute_depths();
    assert_eq!(inc.depth_of(1), 0);
    assert_eq!(inc.depth_of(2), 1);
}

#[test]
fn dead_states_are_those_that_reach_neither_a_target_nor_the_unknown() {
    // 0 -> 1 (terminal, not a target), 0 -> 2 <-> 3 (closed cycle), 0 -> 4 (unexpanded),
    // 0 -> 5 (target).
    let mut inc = Incremental::new();
    inc.grow_to(6).unwrap();
    inc.add_row(0, &[1, 2, 4, 5]);
    inc.add_row(2, &[3]);
    inc.add_row(3, &[2]);
    inc.set_expanded(4);
    inc.add_target(5);
    inc.settle();
    inc.compute_depths();
    let live = inc.live();
    assert_eq!(live.dead_states, 3, "1, 2 and 3 are dead");
    assert_eq!(live.dead_hyperstates, 2);
    assert_eq!(live.winning, 1);
    assert_eq!(live.hyperstates, 5);
    assert_eq!(live.depth, 1);
}

#[test]
fn a_cut_state_is_open_and_keeps_its_ancestors_alive() {
    // 0 -> 1 -> 2 (2 cut); without the cut everything would be dead.
    let mut inc = Incremental::new();
    inc.grow_to(3).unwrap();
    inc.add_row(0, &[1]);
    inc.add_row(1, &[2]);
    inc.set_expanded(3);
    inc.add_cut(2);
    inc.settle();
    inc.compute_depths();
    assert_eq!(inc.live().dead_states, 0);
    let mut closed = Incremental::new();
    closed.grow_to(3).unwrap();
    closed.add_row(0, &[1]);
    closed.add_row(1, &[2]);
    closed.set_expanded(3);
    closed.settle();
    assert_eq!(closed.live().dead_states, 3);
}

#[test]
fn a_long_cycle_closed_late_merges_without_recursion() {
    // A chain 0 -> 1 -> ... -> n-1 fed row by row, closed by n-1 -> 0 at the end.
    let n = 200_000u64;
    let mut rows: Vec<Vec<u64>> = (0..n - 1).map(|s| vec![s + 1]).collect();
    rows.push(vec![0]);
    let inc = &mut feed(n, &rows, 4096);
    assert_eq!(inc.component_count(), 1);
    assert_eq!(inc.component_of(n - 1), 0);
}
