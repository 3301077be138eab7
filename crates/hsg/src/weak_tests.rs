//! Tests of weak-equivalence HSGs: hand-made quotients, outcome conflicts, collisions,
//! the feature ranking, and a property test against a brute-force quotient condensed
//! by petgraph.

use super::*;
use crate::analysis::tests::labels;
use crate::mem::MemGraph;
use crate::tags::Tag;
use petgraph::graph::DiGraph;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// A projection that maps state `s` to the byte `label[s]`.
fn by_label(label: &[u8]) -> impl FnMut(StateId, &mut Vec<u8>) + '_ {
    move |s, out| out.push(label[s as usize])
}

fn exact(g: &MemGraph) -> Analysis {
    analyze_graph(g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap()
}

fn weak(g: &MemGraph, label: &[u8]) -> WeakAnalysis {
    let opts = AnalyzeOptions::default();
    analyze_weak(
        g,
        &exact(g),
        &labels(),
        &opts,
        Source::default(),
        by_label(label),
    )
    .unwrap()
}

fn edges_of(q: &QuotientGraph) -> BTreeSet<(u64, u16, u64)> {
    (0..q.state_count())
        .flat_map(|c| q.edge_range(c).map(move |e| (c, e)))
        .map(|(c, e)| {
            let (a, t) = q.edge(e);
            (c, a, t)
        })
        .collect()
}

#[test]
fn merging_two_states_of_a_chain_closes_a_cycle() {
    // 0 -> 1 -> 2 -> 3 (win); projecting 0 and 2 alike gives {0,2} <-> {1}.
    let g = MemGraph::new(4, &[(0, 0, 1), (1, 1, 2), (2, 2, 3)], &[(3, 0)]).unwrap();
    let w = weak(&g, &[7, 8, 7, 9]);
    let q = &w.quotient;
    assert_eq!(q.class_of.iter().collect::<Vec<_>>(), vec![0, 1, 0, 2]);
    assert_eq!(
        edges_of(&q.graph),
        BTreeSet::from([(0, 0, 1), (0, 2, 2), (1, 1, 0)])
    );
    let c = &w.comparison;
    assert_eq!(
        (c.quotient_states, c.exact_hyperstates, c.hyperstates),
        (3, 4, 2)
    );
    assert!((c.hsg_reduction - 0.5).abs() < 1e-12);
    assert!((c.state_reduction - 0.25).abs() < 1e-12);
    assert_eq!((c.tag_changed_states, c.impact, c.score), (0, 0.0, 0.5));
    assert_eq!(w.analysis.summary.hyperstates, 2);
    assert_eq!(w.analysis.summary.root_tag, Tag::EventuallyWinnable);
}

#[test]
fn a_merge_can_rescue_a_lost_state() {
    // 0 -> 1 (win), 0 -> 2 -> 3 (dead end). Projecting 2 like 0 lets 2 win through 0.
    let g = MemGraph::new(4, &[(0, 0, 1), (0, 1, 2), (2, 0, 3)], &[(1, 0)]).unwrap();
    let w = weak(&g, &[5, 6, 5, 7]);
    let c = &w.comparison;
    assert_eq!(
        c.tag_changes,
        vec![TagChange {
            exact: Tag::ImplicitlyFailed,
            weak: Tag::EventuallyWinnable,
            states: 1
        }]
    );
    assert!((c.tag_changed_share - 0.25).abs() < 1e-12);
    assert!((c.impact - 0.25).abs() < 1e-12);
    assert_eq!(
        (c.exact_root_tag, c.root_tag),
        (Tag::EventuallyWinnable, Tag::EventuallyWinnable)
    );
}

#[test]
fn a_class_with_a_winning_member_wins_and_conflicts_are_counted() {
    // 0 -> 1 (win), 0 -> 2 (fail): merging the two terminals keeps a win.
    let g = MemGraph::new(3, &[(0, 0, 1), (0, 1, 2)], &[(1, 0), (2, 1)]).unwrap();
    let w = weak(&g, &[0, 1, 1]);
    assert_eq!(w.quotient.graph.outcome(1), Some(0));
    assert_eq!(w.quotient.conflicting_classes, 1);
    // Merging a terminal with a live state is a conflict too.
    let w = weak(&g, &[1, 1, 2]);
    assert_eq!(w.quotient.conflicting_classes, 1);
    assert_eq!(w.quotient.graph.outcome(0), Some(0));
    // Two non-target outcomes: the smaller id is kept.
    let g = MemGraph::new(3, &[(0, 0, 1), (0, 1, 2)], &[(1, 2), (2, 1)]).unwrap();
    let q = quotient(&g, 0, 9, by_label(&[0, 1, 1])).unwrap();
    assert_eq!(q.graph.outcome(1), Some(1));
}

#[test]
fn outcomes_reached_through_a_merge_raise_the_impact() {
    // 0 -> 1 -> 4 (win); 2 -> 3 (fail) unreachable. Merging 1 and 2 reaches the fail.
    let edges = [(0, 0, 1), (1, 0, 4), (2, 0, 3)];
    let g = MemGraph::new(5, &edges, &[(3, 1), (4, 0)]).unwrap();
    let w = weak(&g, &[0, 1, 1, 3, 4]);
    let c = &w.comparison;
    assert_eq!(c.exact_outcomes_reached, vec!["win"]);
    assert_eq!(c.outcomes_reached, vec!["win", "fail"]);
    assert!((c.impact - 0.5).abs() < 1e-12);
}

#[test]
fn hash_collisions_never_merge_different_projections() {
    let g = MemGraph::new(4, &[(0, 0, 1), (1, 0, 2), (2, 0, 3)], &[]).unwrap();
    let label = [3, 1, 3, 2];
    let honest = quotient(&g, 0, 9, by_label(&label)).unwrap();
    let colliding = quotient_with_hash(&g, 0, 9, by_label(&label), |_| 42).unwrap();
    assert_eq!(honest, colliding);
    assert_eq!(colliding.graph.state_count(), 3);
}

#[test]
fn open_members_lead_to_the_unexplored_vertex() {
    // States 0 and 1 expanded, 2 and 3 open; 3 projects like 0.
    let g = MemGraph::partial(4, 2, &[(0, 0, 1), (1, 0, 2), (1, 1, 3)], &[]).unwrap();
    let q = quotient(&g, 0, 9, by_label(&[0, 1, 2, 0])).unwrap();
    assert_eq!(q.mixed_open_classes, 1);
    assert_eq!((q.classes, q.unexplored), (3, Some(3)));
    assert_eq!((q.graph.state_count(), q.graph.expanded_count()), (4, 3));
    assert!(q.graph.is_open(3));
    assert_eq!(
        edges_of(&q.graph),
        BTreeSet::from([(0, 0, 1), (0, 9, 3), (1, 0, 2), (1, 1, 0), (2, 9, 3)])
    );
}

#[test]
fn a_class_with_an_open_member_is_never_lost() {
    // 0 -> 1, 1 open. Merged, {0, 1} only loops on itself, yet its future is unknown.
    let g = MemGraph::partial(2, 1, &[(0, 0, 1)], &[]).unwrap();
    let w = weak(&g, &[4, 4]);
    assert_eq!(w.analysis.tagging.tag(w.analysis.root), Tag::Unknown);
    let c = &w.comparison;
    assert_eq!(
        (c.quotient_states, c.hyperstates, c.exact_hyperstates),
        (1, 1, 2)
    );
    assert_eq!(c.tag_changed_states, 0);
    assert_eq!(
        w.analysis
            .summary
            .reversibility_by_action
            .last()
            .map(|a| a.action.as_str()),
        Some(UNEXPLORED_LABEL)
    );
}

/// Classes of unexpanded terminal states come after those with rows.
#[test]
fn terminal_only_classes_follow_the_classes_with_rows() {
    // 0 expanded; 1 terminal (win), 2 open, both unexpanded; 3 terminal.
    let g = MemGraph::partial(4, 1, &[(0, 0, 1), (0, 1, 2), (0, 2, 3)], &[(1, 0), (3, 0)]).unwrap();
    let q = quotient(&g, 0, 9, by_label(&[0, 1, 2, 3])).unwrap();
    assert_eq!(q.class_of.iter().collect::<Vec<_>>(), vec![0, 2, 1, 3]);
    assert_eq!(q.graph.expanded_count(), 2);
    assert_eq!(q.graph.outcome(2), Some(0));
    assert!(q.graph.is_open(4));
}

#[test]
fn features_rank_by_score_then_impact_then_name() {
    let g = MemGraph::new(4, &[(0, 0, 1), (1, 1, 2), (2, 2, 3)], &[(3, 0)]).unwrap();
    let base = weak(&g, &[7, 8, 7, 9]).comparison;
    let with = |feature: &str, score: f64, impact: f64| FeatureRank {
        feature: feature.to_string(),
        comparison: WeakComparison {
            score,
            impact,
            ..base.clone()
        },
    };
    let mut ranks = vec![
        with("b", 0.2, 0.0),
        with("c", 0.5, 0.1),
        with("a", 0.2, 0.0),
        with("d", 0.2, 0.3),
    ];
    rank_features(&mut ranks);
    let order: Vec<_> = ranks.iter().map(|r| r.feature.as_str()).collect();
    assert_eq!(order, vec!["c", "a", "b", "d"]);
}

fn arbitrary_graph() -> impl Strategy<Value = (MemGraph, Vec<u8>)> {
    (2u64..12).prop_flat_map(|n| {
        (
            Just(n),
            1..=n,
            proptest::collection::vec((0..n, 0u16..3, 0..n), 0..(3 * n as usize)),
            proptest::collection::vec((0..n, 0u16..2), 0..4),
            proptest::collection::vec(0u8..4, n as usize),
        )
            .prop_map(|(n, expanded, edges, terminals, label)| {
                let terminal: BTreeSet<u64> = terminals.iter().map(|t| t.0).collect();
                let edges: Vec<_> = edges
                    .into_iter()
                    .filter(|e| e.0 < expanded && !terminal.contains(&e.0))
                    .collect();
                (
                    MemGraph::partial(n, expanded, &edges, &terminals).unwrap(),
                    label,
                )
            })
    })
}

/// Edges between first states of classes, `None` standing for the unexplored vertex.
type FirstEdges = BTreeSet<(usize, u16, Option<usize>)>;

/// The quotient by brute force: the first state of every state's class, and the
/// edges between first states.
fn brute_force(g: &MemGraph, label: &[u8]) -> (Vec<usize>, FirstEdges) {
    let n = label.len();
    let first: Vec<usize> = (0..n)
        .map(|s| (0..n).find(|&x| label[x] == label[s]).unwrap_or(s))
        .collect();
    let mut edges = BTreeSet::new();
    for s in 0..n {
        for e in g.edge_range(s as u64) {
            let (a, t) = g.edge(e);
            edges.insert((first[s], a, Some(first[t as usize])));
        }
        if g.is_open(s as u64) {
            edges.insert((first[s], UNEXPLORED_ACTION, None));
        }
    }
    (first, edges)
}

/// The unexplored action of [`weak`]: the first id past the test labels.
const UNEXPLORED_ACTION: u16 = 4;

proptest! {
    #[test]
    fn quotient_and_its_hyperstates_match_brute_force((g, label) in arbitrary_graph()) {
        let w = weak(&g, &label);
        let q = &w.quotient;
        let (first, edges) = brute_force(&g, &label);
        let class = |s: usize| q.class_of.at(s as u64);
        let firsts: BTreeSet<usize> = first.iter().copied().collect();
        prop_assert_eq!(q.classes, firsts.len() as u64);
        for (s, &f) in first.iter().enumerate() {
            prop_assert_eq!(class(s), class(f));
        }
        let numbers: BTreeSet<u64> = firsts.iter().map(|&f| class(f)).collect();
        prop_assert_eq!(numbers.len(), firsts.len());
        let unexplored = q.unexplored;
        prop_assert_eq!(unexplored.is_some(), (0..g.state_count()).any(|s| g.is_open(s)));
        let expected: BTreeSet<(u64, u16, u64)> = edges
            .iter()
            .map(|&(s, a, t)| (class(s), a, t.map_or(q.classes, class)))
            .collect();
        prop_assert_eq!(edges_of(&q.graph), expected.clone());
        let edges = expected;
        // Hyperstates of the quotient: the same partition as petgraph's SCCs.
        let classes = w.quotient.graph.state_count() as usize;
        let mut pg = DiGraph::<(), ()>::new();
        let nodes: Vec<_> = (0..classes).map(|_| pg.add_node(())).collect();
        for &(s, _, t) in &edges {
            pg.add_edge(nodes[s as usize], nodes[t as usize], ());
        }
        let mut scc_of = vec![0usize; classes];
        let sccs = petgraph::algo::kosaraju_scc(&pg);
        for (i, scc) in sccs.iter().enumerate() {
            for node in scc {
                scc_of[node.index()] = i;
            }
        }
        let c = &w.analysis.condensation;
        prop_assert_eq!(c.hyperstate_count(), sccs.len() as u64);
        for a in 0..classes {
            for b in 0..classes {
                let same = c.hyperstate_of(a as u64) == c.hyperstate_of(b as u64);
                prop_assert_eq!(same, scc_of[a] == scc_of[b]);
            }
        }
        // Merging never adds hyperstates, and forcing collisions changes nothing.
        prop_assert!(w.comparison.hyperstates <= w.comparison.exact_hyperstates);
        prop_assert!(w.comparison.hsg_reduction >= 0.0);
        let colliding = quotient_with_hash(&g, 0, UNEXPLORED_ACTION, by_label(&label), |b| u64::from(b[0] % 2)).unwrap();
        prop_assert_eq!(&colliding, &w.quotient);
    }

    #[test]
    fn the_identity_projection_changes_nothing((g, _) in arbitrary_graph()) {
        let exact = exact(&g);
        let opts = AnalyzeOptions::default();
        let id = |s: StateId, out: &mut Vec<u8>| out.extend_from_slice(&s.to_le_bytes());
        let w = analyze_weak(&g, &exact, &labels(), &opts, Source::default(), id).unwrap();
        prop_assert_eq!(w.comparison.hyperstates, exact.condensation.hyperstate_count());
        prop_assert_eq!(w.comparison.tag_changed_states, 0);
        prop_assert_eq!(w.comparison.impact, 0.0);
        prop_assert_eq!(w.comparison.conflicting_classes, 0);
        let distinct: BTreeSet<u64> = w.quotient.class_of.iter().collect();
        prop_assert_eq!(distinct.len() as u64, g.state_count());
    }
}
