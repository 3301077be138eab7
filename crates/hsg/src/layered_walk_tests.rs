//! Tests of the walks rebuilt from breadth-first layers: on random graphs numbered as
//! the explorer numbers them, exactly the walks and lengths of the searches, and the
//! search wherever the layers cannot give the walk.

use super::*;
use crate::explain::shortest_walk;
use crate::graph::TargetBounds;
use crate::ids::IdVec;
use crate::mem::MemGraph;
use crate::paths::{shortest_walk_length, shortest_walk_length_on, WalkLength};
use proptest::prelude::*;

/// A game's rules as the explorer meets them: the moves of every raw state (in the
/// order the game lists them) and the raw terminal states with their outcomes.
#[derive(Debug)]
struct Rules {
    moves: Vec<Vec<(ActionId, u64)>>,
    terminal: Vec<Option<OutcomeId>>,
}

/// Explores `rules` from raw state 0 as the explorer does (`explore::bfs`, `merge.rs`):
/// layer after layer, parents in id order, a successor numbered when first met, a
/// terminal state not expanded, the layer table growing by each complete layer's end;
/// with `max_parents`, it stops after that many parents (a partial run).
fn explore(rules: &Rules, max_parents: Option<u64>) -> MemGraph {
    let n = rules.moves.len();
    let mut id = vec![u64::MAX; n];
    let mut raw = vec![0usize];
    id[0] = 0;
    let mut layers = vec![0u64, 1];
    let (mut edges, mut terminals) = (Vec::new(), Vec::new());
    let mut next_parent = 0u64;
    loop {
        let layer_end = *layers.last().unwrap();
        if next_parent == layer_end {
            if raw.len() as u64 == layer_end {
                break;
            }
            layers.push(raw.len() as u64);
            continue;
        }
        if max_parents.is_some_and(|m| next_parent >= m) {
            break;
        }
        let parent = raw[next_parent as usize];
        match rules.terminal[parent] {
            Some(outcome) => terminals.push((next_parent, outcome)),
            None => {
                for &(action, t) in &rules.moves[parent] {
                    if id[t as usize] == u64::MAX {
                        id[t as usize] = raw.len() as u64;
                        raw.push(t as usize);
                    }
                    edges.push((next_parent, action, id[t as usize]));
                }
            }
        }
        next_parent += 1;
    }
    // Terminals past the expanded states are known too (the explorer marks them when
    // it reaches them as parents; a test may ask about any).
    let states = raw.len() as u64;
    MemGraph::partial(states, next_parent, &edges, &terminals)
        .unwrap()
        .with_layers(Some(layers))
}

fn rules() -> impl Strategy<Value = Rules> {
    (1usize..60).prop_flat_map(|n| {
        (
            proptest::collection::vec(proptest::collection::vec((0u16..3, 0..n as u64), 0..5), n),
            proptest::collection::vec(proptest::option::weighted(0.12, 0u16..2), n),
        )
            .prop_map(|(moves, mut terminal)| {
                // The root is never terminal here, so that walks have steps.
                terminal[0] = None;
                Rules { moves, terminal }
            })
    })
}

/// Every state's hyperstate drawn from a few, so that walks have critical steps.
fn parts(n: u64, seed: u64) -> Vec<u64> {
    (0..n).map(|s| (s * 7 + seed) % 4).collect()
}

/// The graph without its layer table: the searches' graph.
fn plain(g: &MemGraph) -> MemGraph {
    g.clone().with_layers(None)
}

proptest! {
    #[test]
    fn the_layers_give_the_searches_walks(
        rules in rules(),
        limit in proptest::option::of(0u64..40),
        seed in 0u64..4,
        goal_state in 0u64..60,
        threads in 1usize..4,
        block in 1u64..4,
        bounds_block in 1u64..6,
    ) {
        let g = explore(&rules, limit);
        let n = g.state_count();
        let parts = parts(n, seed);
        let component = IdVec::from(parts.clone());
        let hyperstate = |s: StateId| parts[s as usize];
        let won = |o: OutcomeId| o == 0;
        let reached = |s: StateId| s == goal_state;
        let odd = |s: StateId| parts[s as usize] == 3 && s > 0;
        for goal in [Goal::Outcome(&won), Goal::State(&reached), Goal::State(&odd)] {
            // The walk `hsg path` prints, rebuilt and searched for.
            let rebuilt = shortest_walk(&g, &component, 0, goal);
            let searched = shortest_walk(&plain(&g), &component, 0, goal);
            prop_assert_eq!(&rebuilt, &searched);
            // Its length, as the summary measures it, rebuilt and searched for (on one
            // thread and on several).
            let bounds = crate::graph::validate_bounding(&g).unwrap();
            let length = shortest_walk_length(&g, 0, hyperstate, (goal, Some(&bounds)));
            let is_goal = |s: StateId| goal.holds(&g, s);
            for search_threads in [1, 3] {
                let search = shortest_walk_length_on(
                    &plain(&g), 0, (&hyperstate, &is_goal), search_threads, 2,
                );
                prop_assert_eq!(length, search);
            }
            prop_assert_eq!(
                length,
                searched.map(|w| WalkLength {
                    actions: w.steps.len() as u64,
                    critical: w.critical_count() as u32,
                })
            );
            // A stored run always gives the walk: the search is never needed. The same
            // on several threads and in blocks of any size.
            // With the validation's bounds, whose blocks are cut as small as a test
            // needs, the same.
            let walk = nearest_goal(&g, 0, goal, None);
            prop_assert!(!matches!(walk, Nearest::Search));
            prop_assert_eq!(&nearest_goal_on(&g, 0, goal, (threads, block, None)), &walk);
            let fine = bounds_in_blocks(&g, bounds_block);
            prop_assert_eq!(&nearest_goal_on(&g, 0, goal, (threads, block, Some(&fine))), &walk);
        }
    }

    #[test]
    fn without_layers_or_from_elsewhere_the_search_runs(rules in rules(), from in 0u64..60) {
        let g = explore(&rules, None);
        let any = |_: StateId| true;
        prop_assert_eq!(nearest_goal(&plain(&g), 0, Goal::State(&any), None), Nearest::Search);
        if from > 0 {
            prop_assert_eq!(nearest_goal(&g, from, Goal::State(&any), None), Nearest::Search);
        }
    }
}

/// One more than the largest target of the rows of every `block` states: the bounds
/// the validation notes for blocks of 65,536 states, cut small.
fn bounds_in_blocks(g: &MemGraph, block: u64) -> TargetBounds {
    let mut bounds = TargetBounds::default();
    let n = g.state_count();
    let mut start = 0;
    while start < n {
        let end = (start + block).min(n);
        bounds.push(end, above_of(g, start..end));
        start = end;
    }
    bounds
}

/// One more than the largest target of the rows of `states` (0 for none).
fn above_of(g: &MemGraph, states: Range<u64>) -> u64 {
    states
        .flat_map(|s| g.edge_range(s))
        .map(|i| g.edge(i).1 + 1)
        .max()
        .unwrap_or(0)
}

proptest! {
    #[test]
    fn the_validation_bounds_each_block_by_its_largest_target(
        rules in rules(),
        threads in 1usize..4,
    ) {
        let g = explore(&rules, None);
        let n = g.state_count();
        let bounds = crate::graph::check_rows_on(&g, n, g.expanded_count(), threads).unwrap();
        let mut start = 0;
        for (end, above) in bounds.blocks() {
            prop_assert!(start < end);
            prop_assert_eq!(above, above_of(&g, start..end));
            start = end;
        }
        prop_assert_eq!(start, n);
    }
}

/// 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 0: layers [0], [1, 2], [3].
fn diamond(layers: Vec<u64>) -> MemGraph {
    let edges = [(0, 0, 1), (0, 1, 2), (1, 0, 3), (2, 1, 3), (3, 0, 0)];
    MemGraph::new(4, &edges, &[])
        .unwrap()
        .with_layers(Some(layers))
}

#[test]
fn the_walk_takes_the_first_parent_and_its_first_edge() {
    let g = diamond(vec![0, 1, 3, 4]);
    let three = |s: StateId| s == 3;
    assert_eq!(
        nearest_goal(&g, 0, Goal::State(&three), None),
        Nearest::Walk(vec![(0, 0, 1), (1, 0, 3)])
    );
    let root = |s: StateId| s == 0;
    assert_eq!(
        nearest_goal(&g, 0, Goal::State(&root), None),
        Nearest::Walk(vec![])
    );
    let none = |_: StateId| false;
    assert_eq!(
        nearest_goal(&g, 0, Goal::State(&none), None),
        Nearest::NoGoal
    );
}

#[test]
fn layers_of_another_search_leave_it_to_the_search() {
    let three = |s: StateId| s == 3;
    let goal = Goal::State(&three);
    // Two roots in the first layer.
    assert_eq!(
        nearest_goal(&diamond(vec![0, 2, 4]), 0, goal, None),
        Nearest::Search
    );
    // An empty layer.
    assert_eq!(
        nearest_goal(&diamond(vec![0, 1, 1, 3]), 0, goal, None),
        Nearest::Search
    );
    // State 2 alone in layer 2: no edge from state 1, the layer before, reaches it.
    assert_eq!(
        nearest_goal(&diamond(vec![0, 1, 2, 3]), 0, goal, None),
        Nearest::Search
    );
}

#[test]
fn layers_numbered_in_another_order_still_give_a_shortest_walk() {
    // The search meets 2 before 1 (0's first edge), so it reaches 3 from 2; the layers
    // number 1 first, and the rebuilt walk goes through 1: as short, and the one both
    // `hsg path` and the summary take.
    let edges = [(0, 0, 2), (0, 1, 1), (1, 0, 3), (2, 1, 3)];
    let g = MemGraph::new(4, &edges, &[])
        .unwrap()
        .with_layers(Some(vec![0, 1, 3, 4]));
    let three = |s: StateId| s == 3;
    assert_eq!(
        nearest_goal(&g, 0, Goal::State(&three), None),
        Nearest::Walk(vec![(0, 1, 1), (1, 0, 3)])
    );
    let searched = shortest_walk(
        &plain(&g),
        &IdVec::from(vec![0u32; 4]),
        0,
        Goal::State(&three),
    );
    assert_eq!(searched.map(|w| w.states()), Some(vec![0, 2, 3]));
}
