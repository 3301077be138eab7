//! Tests of the path search and the explanation of lost states, on a hand-made game and
//! against the analysis's own shortest-win BFS on random graphs.

use super::*;
use crate::analysis::{analyze_graph, AnalyzeOptions};
use crate::graph::Labels;
use crate::mem::MemGraph;
use crate::summary::Source;
use proptest::prelude::*;

fn labels() -> Labels {
    Labels {
        actions: ["a", "b", "c"].map(String::from).to_vec(),
        outcomes: ["win", "fail"].map(String::from).to_vec(),
    }
}

fn win_target() -> Target {
    Target {
        name: "win".into(),
        outcomes: vec![0],
    }
}

/// 0 <-> 1, 1 -> 2 -> 3 (win); 0 -> 4 <-> 5 -> 6 (a loss): {4, 5} is implicitly failed.
fn game() -> MemGraph {
    let edges = [
        (0, 0, 1),
        (1, 1, 0),
        (1, 2, 2),
        (2, 0, 3),
        (0, 1, 4),
        (4, 0, 5),
        (5, 1, 4),
        (5, 2, 6),
    ];
    MemGraph::new(7, &edges, &[(3, 0), (6, 1)]).unwrap()
}

fn saved(g: &MemGraph) -> SavedAnalysis {
    let a = analyze_graph(g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
    SavedAnalysis::from_analysis(&a)
}

#[test]
fn paths_reach_the_nearest_win_fail_and_dead_state() {
    let g = game();
    let s = saved(&g);
    let t = win_target();
    let win = path_to(&g, &s, &t, 0, Destination::Win).unwrap();
    assert_eq!(win.states(), vec![0, 1, 2, 3]);
    assert_eq!(
        win.steps.iter().map(|s| s.action).collect::<Vec<_>>(),
        [0, 2, 0]
    );
    // 0 -> 1 stays in the root's hyperstate; the other two leave theirs.
    assert_eq!(win.critical_count(), 2);
    let dead = path_to(&g, &s, &t, 0, Destination::Dead).unwrap();
    assert_eq!(dead.states(), vec![0, 4]);
    let fail = path_to(&g, &s, &t, 0, Destination::Fail).unwrap();
    assert_eq!(fail.end(), 6);
    assert_eq!(fail.steps.len(), 3);
    let to_five = path_to(&g, &s, &t, 1, Destination::State(5)).unwrap();
    assert_eq!(to_five.states(), vec![1, 0, 4, 5]);
    assert!(path_to(&g, &s, &t, 6, Destination::Win).is_none());
    assert!(path_to(&g, &s, &t, 99, Destination::Win).is_none());
}

#[test]
fn a_lost_state_is_explained_by_the_action_that_lost_it() {
    let g = game();
    let s = saved(&g);
    let Why::Lost(e) = explain_loss(&g, &s, 6) else {
        panic!("state 6 is lost");
    };
    assert_eq!(e.tag, Tag::Fail);
    assert_eq!(e.walk.states(), vec![0, 4, 5, 6]);
    assert_eq!(e.fatal, Some(0));
    assert!(e.walk.steps[0].critical);
    let Why::Lost(e) = explain_loss(&g, &s, 5) else {
        panic!("state 5 is lost");
    };
    assert_eq!(e.tag, Tag::ImplicitlyFailed);
    assert_eq!(e.fatal, Some(0));
}

#[test]
fn a_state_that_can_still_win_is_refused() {
    let g = game();
    let s = saved(&g);
    assert_eq!(
        explain_loss(&g, &s, 2),
        Why::NotLost(Tag::EventuallyWinnable)
    );
    assert_eq!(explain_loss(&g, &s, 3), Why::NotLost(Tag::Win));
    assert_eq!(explain_loss(&g, &s, 70), Why::NoSuchState);
}

#[test]
fn a_root_that_cannot_win_has_no_fatal_action() {
    let g = MemGraph::new(2, &[(0, 0, 1)], &[(1, 1)]).unwrap();
    let s = saved(&g);
    let Why::Lost(e) = explain_loss(&g, &s, 1) else {
        panic!("state 1 is lost");
    };
    assert_eq!(e.fatal, None);
}

#[test]
fn a_lost_state_the_root_does_not_reach_is_unreachable() {
    // State 2 is a loss nothing leads to (a second initial state).
    let g = MemGraph::new(4, &[(0, 0, 1)], &[(1, 0), (2, 1)]).unwrap();
    let s = saved(&g);
    assert_eq!(explain_loss(&g, &s, 2), Why::Unreachable);
}

fn arbitrary_game() -> impl Strategy<Value = MemGraph> {
    (2u64..14).prop_flat_map(|n| {
        (
            Just(n),
            proptest::collection::vec((0..n, 0u16..3, 0..n), 0..(3 * n as usize)),
            proptest::collection::vec((0..n, 0u16..2), 0..4),
        )
            .prop_map(|(n, edges, terminals)| {
                let terminal: Vec<u64> = terminals.iter().map(|t| t.0).collect();
                let mut terminals = terminals;
                terminals.sort();
                terminals.dedup_by_key(|t| t.0);
                let edges: Vec<_> = edges
                    .into_iter()
                    .filter(|e| !terminal.contains(&e.0))
                    .collect();
                MemGraph::new(n, &edges, &terminals).unwrap()
            })
    })
}

proptest! {
    #[test]
    fn walks_are_real_and_as_short_as_the_analysis_bfs(g in arbitrary_game()) {
        let s = saved(&g);
        let t = win_target();
        // The analysis measures the very walk `hsg path` prints: its actions and its
        // critical actions (issue 37).
        let hyperstate = |x| s.component.get(x).unwrap_or(u64::MAX);
        let won = |o| o == 0;
        let expected = crate::paths::shortest_walk_length(&g, 0, hyperstate, (Goal::Outcome(&won), None));
        let walk = path_to(&g, &s, &t, 0, Destination::Win);
        prop_assert_eq!(
            walk.as_ref().map(|w| (w.steps.len() as u64, w.critical_count() as u32)),
            expected.map(|e| (e.actions, e.critical))
        );
        if let Some(w) = walk {
            let mut at = 0;
            for step in &w.steps {
                prop_assert_eq!(step.from, at);
                let real = g.edge_range(at).map(|i| g.edge(i)).any(|e| e == (step.action, step.to));
                prop_assert!(real);
                at = step.to;
            }
            prop_assert_eq!(g.outcome(at), Some(0));
        }
    }

    #[test]
    fn the_fatal_action_leaves_a_winnable_state_for_a_lost_one(g in arbitrary_game()) {
        let s = saved(&g);
        for state in 0..g.state_count() {
            if let Why::Lost(e) = explain_loss(&g, &s, state) {
                prop_assert_eq!(e.walk.end(), state);
                if let Some(i) = e.fatal {
                    let step = e.walk.steps[i];
                    prop_assert!(step.critical);
                    prop_assert!(!tag_of_state(&s, step.from).unwrap().is_lost());
                    prop_assert!(tag_of_state(&s, step.to).unwrap().is_lost());
                    for later in &e.walk.steps[i..] {
                        prop_assert!(tag_of_state(&s, later.to).unwrap().is_lost());
                    }
                }
            }
        }
    }
}
