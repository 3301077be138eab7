//! Tests of the iterative SCC against petgraph and a naive reachability oracle.

use super::*;
use crate::mem::MemGraph;
use proptest::prelude::*;

/// Every number in `0..count` is used, and every edge goes from a higher number to a
/// lower or equal one (shared by the contraction's tests).
pub(crate) fn check_dense_and_reverse_topological(
    c: &Components,
    edges: &[(u64, u64)],
) -> Result<(), TestCaseError> {
    let mut seen = vec![false; c.count as usize];
    for comp in c.of_state.iter() {
        seen[comp as usize] = true;
    }
    prop_assert!(seen.iter().all(|&s| s));
    for &(s, t) in edges {
        prop_assert!(c.of_state.at(s) >= c.of_state.at(t));
    }
    Ok(())
}

fn graph(n: u64, edges: &[(u64, u64)]) -> MemGraph {
    let labelled: Vec<_> = edges.iter().map(|&(s, t)| (s, 0, t)).collect();
    MemGraph::new(n, &labelled, &[]).unwrap()
}

/// Canonical partition: for each state, the smallest member of its component.
fn canonical(of_state: impl Iterator<Item = u64>, n: usize) -> Vec<u64> {
    let comps: Vec<u64> = of_state.collect();
    let mut smallest = std::collections::HashMap::new();
    for (s, &c) in comps.iter().enumerate() {
        smallest.entry(c).or_insert(s as u64);
    }
    assert_eq!(comps.len(), n);
    comps.iter().map(|c| smallest[c]).collect()
}

fn petgraph_partition(n: u64, edges: &[(u64, u64)]) -> Vec<u64> {
    let mut pg = petgraph::Graph::<(), ()>::new();
    let nodes: Vec<_> = (0..n).map(|_| pg.add_node(())).collect();
    for &(s, t) in edges {
        pg.add_edge(nodes[s as usize], nodes[t as usize], ());
    }
    let mut of = vec![0u64; n as usize];
    for (c, comp) in petgraph::algo::kosaraju_scc(&pg).iter().enumerate() {
        for node in comp {
            of[node.index()] = c as u64;
        }
    }
    canonical(of.into_iter(), n as usize)
}

fn reachability(n: usize, edges: &[(u64, u64)]) -> Vec<Vec<bool>> {
    let mut reach = vec![vec![false; n]; n];
    for (s, row) in reach.iter_mut().enumerate() {
        let mut stack = vec![s];
        row[s] = true;
        while let Some(v) = stack.pop() {
            for &(a, b) in edges {
                if a as usize == v && !row[b as usize] {
                    row[b as usize] = true;
                    stack.push(b as usize);
                }
            }
        }
    }
    reach
}

fn arbitrary_graph() -> impl Strategy<Value = (u64, Vec<(u64, u64)>)> {
    (1u64..40).prop_flat_map(|n| {
        let edge = (0..n, 0..n);
        (
            Just(n),
            proptest::collection::vec(edge, 0..(3 * n as usize)),
        )
    })
}

proptest! {
    #[test]
    fn partition_matches_petgraph((n, edges) in arbitrary_graph()) {
        let c = strongly_connected_components(&graph(n, &edges));
        prop_assert_eq!(canonical(c.of_state.iter(), n as usize), petgraph_partition(n, &edges));
    }

    #[test]
    fn same_component_iff_mutually_reachable((n, edges) in arbitrary_graph()) {
        let c = strongly_connected_components(&graph(n, &edges));
        let reach = reachability(n as usize, &edges);
        for (a, row) in reach.iter().enumerate() {
            for (b, &forward) in row.iter().enumerate() {
                let same = c.of_state.at(a as u64) == c.of_state.at(b as u64);
                prop_assert_eq!(same, forward && reach[b][a]);
            }
        }
    }

    #[test]
    fn dense_rows_give_the_same_components_and_numbers((n, edges) in arbitrary_graph()) {
        let g = graph(n, &edges);
        let in_place = strongly_connected_components_in(&g, &Backing::Heap, 0).unwrap();
        let dense = strongly_connected_components_in(&g, &Backing::Heap, u64::MAX).unwrap();
        prop_assert_eq!(in_place, dense);
    }

    #[test]
    fn numbering_is_dense_and_reverse_topological((n, edges) in arbitrary_graph()) {
        let c = strongly_connected_components(&graph(n, &edges));
        check_dense_and_reverse_topological(&c, &edges)?;
    }
}

#[test]
fn empty_graph_has_no_components() {
    let c = strongly_connected_components(&graph(0, &[]));
    assert_eq!(c.count, 0);
    assert!(c.of_state.is_empty());
}

#[test]
fn self_loops_and_parallel_edges_do_not_merge_states() {
    let edges = [(0, 0), (0, 1), (0, 1), (1, 1), (1, 2), (2, 1), (2, 1)];
    let c = strongly_connected_components(&graph(3, &edges));
    assert_eq!(c.count, 2);
    assert_eq!(c.of_state.at(1), c.of_state.at(2));
    assert!(c.of_state.at(0) > c.of_state.at(1));
}

#[test]
fn million_node_chain_needs_no_recursion() {
    let n = 1_000_000u64;
    let edges: Vec<_> = (0..n - 1).map(|s| (s, s + 1)).collect();
    let c = strongly_connected_components(&graph(n, &edges));
    assert_eq!(c.count, n);
    // The deepest state completes first.
    assert_eq!(c.of_state.at(n - 1), 0);
    assert_eq!(c.of_state.at(0), n - 1);
}

#[test]
fn million_node_ring_is_one_component() {
    let n = 1_000_000u64;
    let edges: Vec<_> = (0..n).map(|s| (s, (s + 1) % n)).collect();
    let c = strongly_connected_components(&graph(n, &edges));
    assert_eq!(c.count, 1);
    assert!(c.of_state.iter().all(|x| x == 0));
}

#[test]
fn chain_of_rings_keeps_each_ring_together() {
    // Rings of three states, each ring linked to the next by one edge.
    let rings = 1000u64;
    let mut edges = Vec::new();
    for r in 0..rings {
        let b = 3 * r;
        edges.extend([(b, b + 1), (b + 1, b + 2), (b + 2, b)]);
        if r + 1 < rings {
            edges.push((b + 2, b + 3));
        }
    }
    let c = strongly_connected_components(&graph(3 * rings, &edges));
    assert_eq!(c.count, rings);
    for r in 0..rings {
        assert_eq!(c.of_state.at(3 * r), rings - 1 - r);
    }
}

#[test]
fn short_rows_get_a_dense_copy_and_long_ones_do_not() {
    use crate::scc_rows::{Dense, MAX_DENSE_DEGREE};
    let ring: Vec<(u64, u64)> = (0..10).map(|s| (s, (s + 1) % 10)).collect();
    assert_eq!(Dense::width_for(&graph(10, &ring), u64::MAX), Some(1));
    let star: Vec<(u64, u64)> = (1..=MAX_DENSE_DEGREE + 1).map(|t| (0, t)).collect();
    assert_eq!(
        Dense::width_for(&graph(MAX_DENSE_DEGREE + 2, &star), u64::MAX),
        None
    );
    let three: Vec<(u64, u64)> = (1..=3).map(|t| (0, t)).collect();
    assert_eq!(Dense::width_for(&graph(4, &three), u64::MAX), Some(4));
    // Rows of 4 places for 4 states take 64 bytes: a smaller budget rules the copy out.
    assert_eq!(Dense::width_for(&graph(4, &three), 64), Some(4));
    assert_eq!(Dense::width_for(&graph(4, &three), 63), None);
    assert_eq!(Dense::width_for(&graph(10, &ring), 0), None);
}
