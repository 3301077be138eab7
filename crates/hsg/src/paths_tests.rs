//! Tests of HSG distances, path counts and SSG shortest wins.

use super::*;
use crate::condense::condense;
use crate::mem::MemGraph;
use crate::tags::tag_hyperstates;

const WIN: u16 = 0;

/// A ladder of `k` diamonds: 2^k winning paths of length 2k from state 0.
fn diamonds(k: u64) -> MemGraph {
    let mut edges = Vec::new();
    for level in 0..k {
        let a = 3 * level;
        edges.extend([
            (a, 0, a + 1),
            (a, 1, a + 2),
            (a + 1, 0, a + 3),
            (a + 2, 0, a + 3),
        ]);
    }
    MemGraph::new(3 * k + 1, &edges, &[(3 * k, WIN)]).unwrap()
}

fn analyse(g: &MemGraph) -> (crate::condense::Condensation, crate::tags::Tagging, u64) {
    let c = condense(g);
    let t = tag_hyperstates(g, &c, WIN);
    let root = c.hyperstate_of(0);
    (c, t, root)
}

#[test]
fn diamond_ladder_counts_and_lengths() {
    let g = diamonds(5);
    let (c, t, root) = analyse(&g);
    let count = count_winning_paths(&c, &t, root);
    assert_eq!(count.exact, Some(32));
    assert!((count.log2.unwrap() - 5.0).abs() < 1e-9);
    let hist = winning_path_lengths(&c, &t, root, 1 << 20).unwrap();
    assert_eq!((hist.min, hist.max), (10, 10));
    assert_eq!(hist.counts, vec![32.0]);
    assert!((hist.mean - 10.0).abs() < 1e-12);
}

#[test]
fn path_count_falls_back_to_a_logarithm_past_128_bits() {
    let (c, t, root) = analyse(&diamonds(130));
    let count = count_winning_paths(&c, &t, root);
    assert_eq!(count.exact, None);
    assert!((count.log2.unwrap() - 130.0).abs() < 1e-6, "{count:?}");
}

#[test]
fn lengths_spread_over_a_histogram() {
    // 0 -> 3 (win) directly, or 0 -> 1 -> 3, or 0 -> 1 -> 2 -> 3.
    let edges = [(0, 0, 3), (0, 1, 1), (1, 0, 3), (1, 1, 2), (2, 0, 3)];
    let g = MemGraph::new(4, &edges, &[(3, WIN)]).unwrap();
    let (c, t, root) = analyse(&g);
    let hist = winning_path_lengths(&c, &t, root, 100).unwrap();
    assert_eq!((hist.min, hist.max), (1, 3));
    assert_eq!(hist.counts, vec![1.0, 1.0, 1.0]);
    assert!((hist.mean - 2.0).abs() < 1e-12);
    assert!(winning_path_lengths(&c, &t, root, 2)
        .unwrap_err()
        .contains("budget"));
    assert_eq!(count_winning_paths(&c, &t, root).exact, Some(3));
}

#[test]
fn depths_and_distances_count_critical_actions() {
    // 0 <-> 1 one hyperstate, 1 -> 2 -> 3 win, 0 -> 3.
    let edges = [(0, 0, 1), (1, 0, 0), (1, 1, 2), (2, 0, 3), (0, 1, 3)];
    let g = MemGraph::new(4, &edges, &[(3, WIN)]).unwrap();
    let (c, t, root) = analyse(&g);
    let depth = depths_from(&c, root);
    assert_eq!(depth[c.hyperstate_of(2) as usize], 1);
    assert_eq!(depth[c.hyperstate_of(3) as usize], 1);
    let win = distance_to(&c, |h| t.contains_target(h));
    assert_eq!(win[root as usize], 1);
    let longest = longest_to(&c, |h| t.contains_target(h));
    assert_eq!(longest[root as usize], 2);
    assert_eq!(
        shortest_walk_length(&g, 0, |s| s, (Goal::State(&|s| s == 3), None)).map(|w| w.actions),
        Some(1)
    );
    assert_eq!(
        shortest_walk_length(&g, 2, |s| s, (Goal::State(&|s| s == 0), None)),
        None
    );
}

#[test]
fn no_win_means_no_paths() {
    let g = MemGraph::new(2, &[(0, 0, 1)], &[]).unwrap();
    let (c, t, root) = analyse(&g);
    assert_eq!(
        count_winning_paths(&c, &t, root),
        PathCount {
            exact: Some(0),
            log2: None
        }
    );
    assert!(winning_path_lengths(&c, &t, root, 10).is_err());
    let depth = depths_from(&c, c.hyperstate_of(1));
    assert_eq!(depth[root as usize], UNREACHED);
}

/// The shortest-walk search on one thread, as it was before it ran on every core: the
/// oracle of the parallel one.
fn serial_walk_length(
    g: &MemGraph,
    start: StateId,
    hyperstate_of: impl Fn(StateId) -> u64,
    is_target: impl Fn(StateId) -> bool,
) -> Option<WalkLength> {
    let n = g.state_count();
    if start >= n {
        return None;
    }
    let mut visited = vec![false; n as usize];
    visited[start as usize] = true;
    let mut frontier: Vec<(StateId, u32)> = vec![(start, 0)];
    let mut actions = 0;
    while !frontier.is_empty() {
        if let Some(&(_, critical)) = frontier.iter().find(|&&(s, _)| is_target(s)) {
            return Some(WalkLength { actions, critical });
        }
        let mut next = Vec::new();
        for &(s, critical) in &frontier {
            for i in g.edge_range(s) {
                let t = g.edge(i).1;
                if !visited[t as usize] {
                    visited[t as usize] = true;
                    next.push((
                        t,
                        critical + u32::from(hyperstate_of(t) != hyperstate_of(s)),
                    ));
                }
            }
        }
        frontier = next;
        actions += 1;
    }
    None
}

/// A random graph with a few targets, and a random partition of its states standing
/// for hyperstates (the walk's critical actions only need some partition).
fn walk_case() -> impl proptest::strategy::Strategy<Value = (MemGraph, Vec<u64>, Vec<bool>)> {
    use proptest::prelude::*;
    (1u64..80).prop_flat_map(|n| {
        (
            proptest::collection::vec((0..n, 0u16..3, 0..n), 0..(4 * n as usize)),
            proptest::collection::vec(0u64..6, n as usize),
            proptest::collection::vec(proptest::bool::weighted(0.05), n as usize),
        )
            .prop_map(move |(mut edges, parts, targets)| {
                edges.sort_by_key(|e| e.0);
                (MemGraph::new(n, &edges, &[]).unwrap(), parts, targets)
            })
    })
}

proptest::proptest! {
    #[test]
    fn the_walk_on_several_threads_is_the_serial_one(
        (g, parts, targets) in walk_case(),
        threads in 1usize..4,
        block in 1usize..6,
    ) {
        let h = |s: StateId| parts[s as usize];
        let target = |s: StateId| targets[s as usize];
        let expected = serial_walk_length(&g, 0, h, target);
        let got = shortest_walk_length_on(&g, 0, (&h, &target), threads, block);
        proptest::prop_assert_eq!(got, expected);
    }
}
