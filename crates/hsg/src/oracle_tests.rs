//! Property tests of the whole analysis against naive definitions computed from plain
//! reachability on small random graphs (with partial expansion and outcomes).

use crate::analysis::tests::labels;
use crate::analysis::{analyze_graph, AnalyzeOptions};
use crate::graph::StateGraph;
use crate::mem::MemGraph;
use crate::paths::UNREACHED;
use crate::summary::Source;
use crate::tags::Tag;
use proptest::prelude::*;
use std::collections::BTreeSet;

struct Naive {
    n: usize,
    succ: Vec<Vec<usize>>,
    reach: Vec<Vec<bool>>,
}

impl Naive {
    fn new(g: &MemGraph) -> Naive {
        let n = g.state_count() as usize;
        let succ: Vec<Vec<usize>> = (0..n as u64)
            .map(|s| g.edge_range(s).map(|i| g.edge(i).1 as usize).collect())
            .collect();
        let reach = (0..n)
            .map(|s| {
                let mut seen = vec![false; n];
                let mut stack = vec![s];
                seen[s] = true;
                while let Some(v) = stack.pop() {
                    for &w in &succ[v] {
                        if !seen[w] {
                            seen[w] = true;
                            stack.push(w);
                        }
                    }
                }
                seen
            })
            .collect();
        Naive { n, succ, reach }
    }

    fn same(&self, a: usize, b: usize) -> bool {
        self.reach[a][b] && self.reach[b][a]
    }

    /// The hyperstate of `s` as its smallest member.
    fn class(&self, s: usize) -> usize {
        (0..self.n).find(|&x| self.same(s, x)).unwrap_or(s)
    }

    fn leaf(&self, s: usize) -> bool {
        (0..self.n)
            .filter(|&x| self.same(s, x))
            .all(|x| self.succ[x].iter().all(|&w| self.same(s, w)))
    }

    fn tag(&self, g: &MemGraph, s: usize) -> Tag {
        let target = |x: usize| g.outcome(x as u64) == Some(0);
        let class: Vec<usize> = (0..self.n).filter(|&x| self.same(s, x)).collect();
        let reachable: Vec<usize> = (0..self.n).filter(|&x| self.reach[s][x]).collect();
        if self.leaf(s) {
            if class.iter().any(|&x| target(x)) {
                return Tag::Win;
            }
            return if g.is_open(s as u64) {
                Tag::Unknown
            } else {
                Tag::Fail
            };
        }
        if reachable.iter().any(|&x| target(x)) {
            Tag::EventuallyWinnable
        } else if reachable.iter().any(|&x| g.is_open(x as u64)) {
            Tag::Unknown
        } else {
            Tag::ImplicitlyFailed
        }
    }
}

fn arbitrary_game() -> impl Strategy<Value = MemGraph> {
    (2u64..12).prop_flat_map(|n| {
        (
            Just(n),
            1..=n,
            proptest::collection::vec((0..n, 0u16..3, 0..n), 0..(3 * n as usize)),
            proptest::collection::vec((0..n, 0u16..2), 0..4),
        )
            .prop_map(|(n, expanded, edges, terminals)| {
                // Terminal states have no transitions; only expanded states have any.
                let terminal: BTreeSet<u64> = terminals.iter().map(|t| t.0).collect();
                let edges: Vec<_> = edges
                    .into_iter()
                    .filter(|e| e.0 < expanded && !terminal.contains(&e.0))
                    .collect();
                MemGraph::partial(n, expanded, &edges, &terminals).unwrap()
            })
    })
}

proptest! {
    #[test]
    fn tags_match_naive_reachability(g in arbitrary_game()) {
        let a = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
        let naive = Naive::new(&g);
        for s in 0..naive.n {
            let h = a.condensation.hyperstate_of(s as u64);
            prop_assert_eq!(a.tagging.tag(h), naive.tag(&g, s), "state {}", s);
            for t in 0..naive.n {
                let same = h == a.condensation.hyperstate_of(t as u64);
                prop_assert_eq!(same, naive.same(s, t));
            }
        }
    }

    #[test]
    fn headroom_matches_naive_reach_sets(g in arbitrary_game()) {
        let a = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
        let naive = Naive::new(&g);
        let hr = a.headroom.as_ref().unwrap();
        for s in 0..naive.n {
            let classes: BTreeSet<usize> =
                (0..naive.n).filter(|&x| naive.reach[s][x]).map(|x| naive.class(x)).collect();
            let winnable = classes.iter().filter(|&&x| naive.tag(&g, x).is_winnable()).count();
            let states = (0..naive.n).filter(|&x| naive.reach[s][x]).count();
            let winnable_states = (0..naive.n)
                .filter(|&x| naive.reach[s][x] && naive.tag(&g, x).is_winnable())
                .count();
            let h = a.condensation.hyperstate_of(s as u64) as usize;
            let expect = winnable as f32 / classes.len() as f32;
            prop_assert!((hr.hyperstates[h] - expect).abs() < 1e-6);
            let expect = winnable_states as f32 / states as f32;
            prop_assert!((hr.states[h] - expect).abs() < 1e-6);
        }
    }

    #[test]
    fn loss_distance_and_path_count_match_enumeration(g in arbitrary_game()) {
        let a = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
        let c = &a.condensation;
        // Enumerate HSG paths from the root depth-first (the HSG is a small DAG).
        let mut paths = 0u128;
        let mut stack = vec![a.root];
        while let Some(h) = stack.pop() {
            paths += u128::from(a.tagging.contains_target(h));
            c.edges.for_each_successor(h, |s| stack.push(s));
        }
        prop_assert_eq!(a.summary.winning_paths.count.exact, Some(paths));
        // Loss distance by breadth-first search over hyperstates from each one.
        for h in 0..c.hyperstate_count() {
            let mut frontier = vec![h];
            let mut seen = BTreeSet::from([h]);
            let mut d = 0;
            let mut found = UNREACHED;
            while !frontier.is_empty() && found == UNREACHED {
                if frontier.iter().any(|&x| a.tagging.tag(x).is_lost()) {
                    found = d;
                }
                let mut next = Vec::new();
                for &x in &frontier {
                    c.edges.for_each_successor(x, |s| if seen.insert(s) { next.push(s) });
                }
                frontier = next;
                d += 1;
            }
            prop_assert_eq!(a.spectrum.loss_distance[h as usize], found);
        }
    }

    #[test]
    fn reversibility_classes_partition_transitions(g in arbitrary_game()) {
        let a = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
        let naive = Naive::new(&g);
        let s = &a.summary;
        prop_assert_eq!(
            s.immediately_reversible_actions + s.eventually_reversible_actions + s.critical_actions,
            g.edge_count()
        );
        let mut immediate = 0;
        for u in 0..naive.n {
            for &v in &naive.succ[u] {
                immediate += u64::from(naive.same(u, v) && naive.succ[v].contains(&u));
            }
        }
        prop_assert_eq!(s.immediately_reversible_actions, immediate);
    }
}
