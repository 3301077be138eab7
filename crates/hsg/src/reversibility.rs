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

use crate::condense::Condensation;
use crate::graph::{ActionId, StateGraph, StateId};
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

/// Classifies every transition and counts the classes, in total and per action.
pub fn count_reversibility<G: StateGraph + ?Sized>(g: &G, c: &Condensation) -> ReversibilityCounts {
    let mut counts = ReversibilityCounts::default();
    for source in 0..g.expanded_count() {
        for i in g.edge_range(source) {
            let (action, target) = g.edge(i);
            let class = classify(g, c, source, i);
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
}
