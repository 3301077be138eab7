//! Tests of the two-cycle contraction against petgraph's components and against the
//! direct search.

use super::*;
use crate::mem::MemGraph;
use crate::scc::strongly_connected_components_in;
use proptest::prelude::*;

fn graph(n: u64, edges: &[(u64, u64)]) -> MemGraph {
    let labelled: Vec<_> = edges.iter().map(|&(s, t)| (s, 0, t)).collect();
    MemGraph::new(n, &labelled, &[]).unwrap()
}

/// For each state, the smallest member of its component.
fn canonical(c: &Components) -> Vec<u64> {
    let mut smallest = std::collections::HashMap::new();
    for (s, comp) in c.of_state.iter().enumerate() {
        smallest.entry(comp).or_insert(s as u64);
    }
    c.of_state.iter().map(|comp| smallest[&comp]).collect()
}

fn contracted(g: &MemGraph) -> Components {
    components_by_contraction(g, &Backing::Heap, false)
        .unwrap()
        .expect("forced contraction always answers")
}

/// A random graph in which about half the edges also go back: the two-cycles the
/// contraction merges, mixed with one-way edges between and inside their classes.
fn graph_with_two_cycles() -> impl Strategy<Value = (u64, Vec<(u64, u64)>)> {
    (1u64..40).prop_flat_map(|n| {
        let edge = (0..n, 0..n, any::<bool>());
        (
            Just(n),
            proptest::collection::vec(edge, 0..(3 * n as usize)),
        )
            .prop_map(|(n, edges)| {
                let mut all = Vec::new();
                for (s, t, both) in edges {
                    all.push((s, t));
                    if both {
                        all.push((t, s));
                    }
                }
                (n, all)
            })
    })
}

proptest! {
    #[test]
    fn the_partition_is_the_direct_searchs((n, edges) in graph_with_two_cycles()) {
        let g = graph(n, &edges);
        let direct = strongly_connected_components_in(&g, &Backing::Heap, 0).unwrap();
        let by_classes = contracted(&g);
        prop_assert_eq!(by_classes.count, direct.count);
        prop_assert_eq!(canonical(&by_classes), canonical(&direct));
    }

    #[test]
    fn the_numbering_is_dense_and_reverse_topological((n, edges) in graph_with_two_cycles()) {
        let c = contracted(&graph(n, &edges));
        crate::scc::tests::check_dense_and_reverse_topological(&c, &edges)?;
    }

    #[test]
    fn classes_are_exactly_the_two_cycles_closure((n, edges) in graph_with_two_cycles()) {
        let g = graph(n, &edges);
        let classes = two_cycle_classes::<_, u32>(&g, &Backing::Heap, 3).unwrap().0;
        // The oracle: a naive closure over pairs with edges both ways.
        let mut label: Vec<u64> = (0..n).collect();
        loop {
            let mut changed = false;
            for &(s, t) in &edges {
                if edges.contains(&(t, s)) {
                    let low = label[s as usize].min(label[t as usize]);
                    let high = label[s as usize].max(label[t as usize]);
                    for l in label.iter_mut() {
                        if *l == high && high != low {
                            *l = low;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut numbers = std::collections::HashMap::new();
        for &l in &label {
            let next = numbers.len() as u64;
            numbers.entry(l).or_insert(next);
        }
        let expected: Vec<u64> = label.iter().map(|l| numbers[l]).collect();
        let got: Vec<u64> = classes.of_state.iter().map(|&c| u64::from(c)).collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(classes.count, numbers.len() as u64);
    }
}

#[test]
fn a_ring_of_reversible_moves_is_one_class_and_one_component() {
    let mut edges = Vec::new();
    for s in 0..100u64 {
        edges.push((s, (s + 1) % 100));
        edges.push(((s + 1) % 100, s));
    }
    let g = graph(100, &edges);
    let classes = two_cycle_classes::<_, u32>(&g, &Backing::Heap, 3)
        .unwrap()
        .0;
    assert_eq!(classes.count, 1);
    let c = contracted(&g);
    assert_eq!(c.count, 1);
}

#[test]
fn one_way_edges_between_classes_keep_them_apart_in_reverse_topological_order() {
    // {0, 1} -> {2, 3} -> 4, each pair a two-cycle.
    let edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (3, 4)];
    let c = contracted(&graph(5, &edges));
    assert_eq!(c.count, 3);
    assert_eq!(c.of_state.at(0), c.of_state.at(1));
    assert_eq!(c.of_state.at(2), c.of_state.at(3));
    assert!(c.of_state.at(0) > c.of_state.at(2));
    assert!(c.of_state.at(2) > c.of_state.at(4));
}

#[test]
fn a_graph_with_few_two_cycles_is_left_to_the_direct_search() {
    let edges = [(0, 1), (1, 2), (2, 0), (2, 3)];
    let g = graph(4, &edges);
    assert!(components_by_contraction(&g, &Backing::Heap, true)
        .unwrap()
        .is_none());
}

#[test]
fn classes_in_scratch_files_give_the_heaps_components() {
    let dir = tempfile::tempdir().unwrap();
    let mut edges = Vec::new();
    for s in 0..500u64 {
        edges.push((s, (s * 7 + 3) % 500));
        edges.push(((s * 7 + 3) % 500, s));
        edges.push((s, (s * 13 + 1) % 500));
    }
    let g = graph(500, &edges);
    let files = Backing::Files(dir.path().join("scratch"));
    let on_files = components_by_contraction(&g, &files, false)
        .unwrap()
        .unwrap();
    assert!(on_files.of_state.is_file());
    assert_eq!(on_files, contracted(&g));
}
