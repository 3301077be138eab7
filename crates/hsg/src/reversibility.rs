//! Per-action reversibility (paper section II-B): every SSG transition is immediately
//! reversible, eventually reversible or critical.
//!
//! - *Immediately reversible*: some action from the target leads straight back to the
//!   source. A self-loop counts as immediately reversible (it is its own reversal); self
//!   loops are also counted apart, since they change nothing.
//! - *Eventually reversible*: source and target lie in one hyperstate, but no single
//!   action leads back.
//! - *Critical*: source and target lie in different hyperstates.
//!
//! Time `O(E + sum over non-critical edges of the target's out-degree)`: the reversal
//! is looked up by scanning the target's row, which is short in games (a handful of
//! moves); no extra memory beyond the per-label counters.

use crate::condense::{Condensation, HsgEdges};
use crate::graph::{ActionId, StateGraph, StateId};
use crate::two_cycles::PairCounts;
use serde::{Deserialize, Serialize};

/// The reversibility class of one transition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reversibility {
    /// Some action from the target leads straight back to the source.
    Immediate,
    /// Source and target are mutually reachable, but not in one action.
    Eventual,
    /// Source and target lie in different hyperstates.
    Critical,
}

impl Reversibility {
    /// The snake-case name used in JSON and exports.
    pub fn name(self) -> &'static str {
        match self {
            Reversibility::Immediate => "immediate",
            Reversibility::Eventual => "eventual",
            Reversibility::Critical => "critical",
        }
    }
}

/// Transition counts of each class, in total and for one action label.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCounts {
    /// Immediately reversible transitions (self-loops included).
    pub immediate: u64,
    /// Eventually (but not immediately) reversible transitions.
    pub eventual: u64,
    /// Critical transitions.
    pub critical: u64,
}

impl ClassCounts {
    fn merge(&mut self, other: ClassCounts) {
        self.immediate += other.immediate;
        self.eventual += other.eventual;
        self.critical += other.critical;
    }

    fn add(&mut self, class: Reversibility) {
        match class {
            Reversibility::Immediate => self.immediate += 1,
            Reversibility::Eventual => self.eventual += 1,
            Reversibility::Critical => self.critical += 1,
        }
    }
}

/// Reversibility counts of a whole graph.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReversibilityCounts {
    /// Counts over every transition.
    pub total: ClassCounts,
    /// Self-loop transitions (a subset of `total.immediate`).
    pub self_loops: u64,
    /// Counts per action label, indexed by action id, up to the largest id seen.
    pub per_action: Vec<ClassCounts>,
}

/// The class of the transition `edge_index`, which leaves `source`.
#[inline]
pub fn classify<G: StateGraph + ?Sized>(
    g: &G,
    c: &Condensation,
    source: StateId,
    edge_index: u64,
) -> Reversibility {
    let (_, target) = g.edge(edge_index);
    if c.hyperstate_of(source) != c.hyperstate_of(target) {
        Reversibility::Critical
    } else if target == source || leads_back(g, target, source) {
        Reversibility::Immediate
    } else {
        Reversibility::Eventual
    }
}

/// True when some out-edge of `from` targets `to`.
#[inline]
fn leads_back<G: StateGraph + ?Sized>(g: &G, from: StateId, to: StateId) -> bool {
    g.edge_range(from).any(|i| g.edge(i).1 == to)
}

/// The counts of [`count_reversibility`] from what the analysis has already counted:
/// the two-cycle pass's immediately reversible transitions, transitions per action and
/// self-loops, and the critical actions per action, which are the multiplicities of
/// the HSG's labelled edges. Every other transition is eventually reversible. Reads no
/// row (see [`crate::two_cycles`] for why the immediate ones are counted there).
pub(crate) fn from_counts(pass: &PairCounts, edges: &HsgEdges) -> ReversibilityCounts {
    let mut counts = ReversibilityCounts {
        self_loops: pass.self_loops,
        per_action: vec![ClassCounts::default(); pass.total.len()],
        ..ReversibilityCounts::default()
    };
    for (&action, &m) in edges.actions.iter().zip(&edges.multiplicity) {
        per_action(&mut counts.per_action, action).critical += m;
    }
    for (a, k) in counts.per_action.iter_mut().enumerate() {
        k.immediate = pass.immediate.get(a).copied().unwrap_or(0);
        k.eventual = pass.total[a] - k.immediate - k.critical;
        counts.total.merge(*k);
    }
    counts
}

/// Classifies every transition and counts the classes, in total and per action, on
/// every core: each thread takes a range of sources and the counts are summed.
///
/// With breadth-first layers ([`StateGraph::layer_starts`]), a target more than one
/// layer before its source cannot lead back (its edges reach at most one layer
/// deeper), so its row is not read: on a run larger than the page cache, those rows
/// lie far behind the pass and would each cost a disk read.
pub fn count_reversibility<G: StateGraph + ?Sized>(g: &G, c: &Condensation) -> ReversibilityCounts {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()) as u64;
    // Small graphs are counted on this thread: a thread costs more than they do.
    let threads = if g.expanded_count() < 1 << 20 {
        1
    } else {
        threads
    };
    count_on(g, c, threads)
}

/// [`count_reversibility`] on `threads` threads (at least one).
fn count_on<G: StateGraph + ?Sized>(g: &G, c: &Condensation, threads: u64) -> ReversibilityCounts {
    let n = g.expanded_count();
    let threads = threads.max(1);
    let ranges: Vec<_> = (0..threads)
        .map(|i| n * i / threads..n * (i + 1) / threads)
        .collect();
    let parts: Vec<ReversibilityCounts> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges[1..]
            .iter()
            .map(|r| scope.spawn(|| count_range(g, c, r.clone())))
            .collect();
        let mut parts = vec![count_range(g, c, ranges[0].clone())];
        // A counting thread cannot panic but on a bug; the bug is then raised here.
        parts.extend(
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        parts
    });
    let mut counts = ReversibilityCounts::default();
    for part in parts {
        counts.self_loops += part.self_loops;
        counts.total.merge(part.total);
        for (action, k) in part.per_action.iter().enumerate() {
            per_action(&mut counts.per_action, action as ActionId).merge(*k);
        }
    }
    counts
}

/// The counts of the transitions of `sources`.
fn count_range<G: StateGraph + ?Sized>(
    g: &G,
    c: &Condensation,
    sources: std::ops::Range<u64>,
) -> ReversibilityCounts {
    let mut counts = ReversibilityCounts::default();
    let layers = g.layer_starts().unwrap_or(&[]);
    let mut layer = 0usize;
    for source in sources {
        crate::graph::advance_layer(layers, &mut layer, source);
        // Targets below this id lie two or more layers before the source.
        let near = match layer {
            0 => 0,
            _ => layers[layer - 1],
        };
        for i in g.edge_range(source) {
            let (action, target) = g.edge(i);
            let class = if target < near && c.hyperstate_of(source) == c.hyperstate_of(target) {
                Reversibility::Eventual
            } else {
                classify(g, c, source, i)
            };
            counts.self_loops += u64::from(target == source);
            counts.total.add(class);
            per_action(&mut counts.per_action, action).add(class);
        }
    }
    counts
}

fn per_action(table: &mut Vec<ClassCounts>, action: ActionId) -> &mut ClassCounts {
    let a = usize::from(action);
    if table.len() <= a {
        table.resize(a + 1, ClassCounts::default());
    }
    &mut table[a]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::condense::condense;
    use crate::mem::MemGraph;

    #[test]
    fn every_class_and_self_loops() {
        // 0 <-> 1 immediate; 1 -> 2 -> 3 -> 1 eventual ring; 0 -> 0 self-loop;
        // 3 -> 4 critical. Edge indices follow sources: 0:{0,1} 1:{2,3} 2:{4} 3:{5,6}.
        let edges = [
            (0, 0, 1),
            (1, 1, 0),
            (1, 2, 2),
            (2, 2, 3),
            (3, 3, 1),
            (0, 3, 0),
            (3, 0, 4),
        ];
        let g = MemGraph::new(5, &edges, &[]).unwrap();
        let c = condense(&g);
        let counts = count_reversibility(&g, &c);
        assert_eq!(counts.total.immediate, 3, "0->1, 1->0 and the self-loop");
        assert_eq!(counts.total.eventual, 3, "1->2, 2->3, 3->1");
        assert_eq!(counts.total.critical, 1);
        assert_eq!(counts.self_loops, 1);
        assert_eq!(
            counts.per_action[3],
            ClassCounts {
                immediate: 1,
                eventual: 1,
                critical: 0
            }
        );
        assert_eq!(counts.total.critical, c.critical_actions);
        assert_eq!(classify(&g, &c, 3, 6), Reversibility::Critical);
        assert_eq!(classify(&g, &c, 0, 0), Reversibility::Immediate);
        assert_eq!(classify(&g, &c, 3, 5), Reversibility::Eventual);
    }

    #[test]
    fn a_back_edge_across_hyperstates_cannot_exist_but_one_way_pairs_are_critical() {
        let g = MemGraph::new(2, &[(0, 0, 1)], &[]).unwrap();
        let c = condense(&g);
        let counts = count_reversibility(&g, &c);
        assert_eq!(
            counts.total,
            ClassCounts {
                immediate: 0,
                eventual: 0,
                critical: 1
            }
        );
    }

    /// Renumbers the states reachable from 0 breadth-first (edges in the given order)
    /// and returns the graph with its layers.
    fn breadth_first(n: u64, edges: &[(u64, u64)]) -> MemGraph {
        let mut id = vec![u64::MAX; n as usize];
        let mut order = vec![0u64];
        id[0] = 0;
        let mut layers = vec![0u64];
        let mut start = 0;
        while start < order.len() {
            let end = order.len();
            for k in start..end {
                let source = order[k];
                for &(_, t) in edges.iter().filter(|e| e.0 == source) {
                    if id[t as usize] == u64::MAX {
                        id[t as usize] = order.len() as u64;
                        order.push(t);
                    }
                }
            }
            if order.len() > end {
                layers.push(end as u64);
            }
            start = end;
        }
        let renamed: Vec<_> = edges
            .iter()
            .filter(|e| id[e.0 as usize] != u64::MAX)
            .map(|&(s, t)| (id[s as usize], 0, id[t as usize]))
            .collect();
        MemGraph::new(order.len() as u64, &renamed, &[])
            .unwrap()
            .with_layers(Some(layers))
    }

    fn arbitrary_graph() -> impl proptest::strategy::Strategy<Value = (u64, Vec<(u64, u64)>)> {
        use proptest::prelude::*;
        (1u64..30).prop_flat_map(|n| {
            (
                Just(n),
                proptest::collection::vec((0..n, 0..n), 0..(4 * n as usize)),
            )
        })
    }

    proptest::proptest! {
        #[test]
        fn layers_change_no_count((n, edges) in arbitrary_graph()) {
            use proptest::prelude::*;
            let layered = breadth_first(n, &edges);
            crate::graph::validate(&layered).unwrap();
            let c = condense(&layered);
            let with = count_reversibility(&layered, &c);
            let without = count_reversibility(&layered.clone().with_layers(None), &c);
            prop_assert_eq!(&with, &without);
            prop_assert_eq!(count_on(&layered, &c, 3), with);
        }
    }

    #[test]
    fn an_edge_skipping_a_layer_is_refused_by_validation() {
        let g = MemGraph::new(3, &[(0, 0, 1), (1, 0, 2), (0, 0, 2)], &[])
            .unwrap()
            .with_layers(Some(vec![0, 1, 2]));
        let err = crate::graph::validate(&g).unwrap_err().to_string();
        assert!(err.contains("not breadth-first"), "{err}");
    }
}
