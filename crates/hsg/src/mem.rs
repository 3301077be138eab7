//! [`MemGraph`]: an in-memory CSR state graph for tests, examples and small games.

use crate::error::HsgError;
use crate::graph::{validate, ActionId, OutcomeId, StateGraph, StateId};
use std::ops::Range;

/// An in-memory state graph in compressed-row form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemGraph {
    state_count: u64,
    expanded_count: u64,
    /// `row_end[s]` is the end of state `s`'s row; the row starts where `s - 1`'s ends.
    row_end: Vec<u64>,
    actions: Vec<ActionId>,
    targets: Vec<StateId>,
    /// Terminal states and outcomes, sorted by id.
    terminals: Vec<(StateId, OutcomeId)>,
    /// The first id of each breadth-first layer, as a store records it (see
    /// [`StateGraph::layer_starts`]); none unless given.
    layers: Option<Vec<u64>>,
}

impl MemGraph {
    /// A fully expanded graph with `state_count` states and the given `(source, action,
    /// target)` edges, in any order (rows keep the order edges were given within a source).
    pub fn new(
        state_count: u64,
        edges: &[(StateId, ActionId, StateId)],
        terminals: &[(StateId, OutcomeId)],
    ) -> Result<MemGraph, HsgError> {
        MemGraph::partial(state_count, state_count, edges, terminals)
    }

    /// A graph whose states `expanded_count..state_count` were never expanded.
    pub fn partial(
        state_count: u64,
        expanded_count: u64,
        edges: &[(StateId, ActionId, StateId)],
        terminals: &[(StateId, OutcomeId)],
    ) -> Result<MemGraph, HsgError> {
        if let Some(&(source, _, _)) = edges.iter().find(|e| e.0 >= expanded_count) {
            return Err(HsgError::MalformedGraph(format!(
                "edge from state {source}, which is not below the expanded count {expanded_count}"
            )));
        }
        let mut sorted = edges.to_vec();
        // A stable sort keeps the given order of each source's edges.
        sorted.sort_by_key(|e| e.0);
        let mut row_end = vec![0u64; usize_of(expanded_count)?];
        for (i, &(source, _, _)) in sorted.iter().enumerate() {
            row_end[source as usize] = i as u64 + 1;
        }
        for s in 1..row_end.len() {
            row_end[s] = row_end[s].max(row_end[s - 1]);
        }
        let mut terminals = terminals.to_vec();
        terminals.sort_unstable();
        terminals.dedup_by_key(|t| t.0);
        let graph = MemGraph {
            state_count,
            expanded_count,
            row_end,
            actions: sorted.iter().map(|e| e.1).collect(),
            targets: sorted.iter().map(|e| e.2).collect(),
            terminals,
            layers: None,
        };
        validate(&graph)?;
        Ok(graph)
    }

    /// The graph with the layer table `layers` (or none), as a store numbered breadth-first
    /// records it. Not checked here: [`validate`] checks a table against the edges.
    pub fn with_layers(mut self, layers: Option<Vec<u64>>) -> MemGraph {
        self.layers = layers;
        self
    }

    /// Copies any [`StateGraph`] into memory (used to compare backends in tests).
    pub fn from_graph<G: StateGraph + ?Sized>(g: &G) -> Result<MemGraph, HsgError> {
        let mut edges = Vec::new();
        for s in 0..g.expanded_count() {
            for i in g.edge_range(s) {
                let (a, t) = g.edge(i);
                edges.push((s, a, t));
            }
        }
        let mut terminals = Vec::new();
        g.for_each_terminal(&mut |s, o| terminals.push((s, o)));
        MemGraph::partial(g.state_count(), g.expanded_count(), &edges, &terminals)
    }
}

fn usize_of(n: u64) -> Result<usize, HsgError> {
    usize::try_from(n)
        .map_err(|_| HsgError::MalformedGraph(format!("{n} states do not fit in memory")))
}

impl StateGraph for MemGraph {
    fn state_count(&self) -> u64 {
        self.state_count
    }

    fn expanded_count(&self) -> u64 {
        self.expanded_count
    }

    fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    #[inline]
    fn edge_range(&self, state: StateId) -> Range<u64> {
        crate::graph::row_range(&self.row_end, state)
    }

    #[inline]
    fn edge(&self, index: u64) -> (ActionId, StateId) {
        let i = index as usize;
        (self.actions[i], self.targets[i])
    }

    fn outcome(&self, state: StateId) -> Option<OutcomeId> {
        self.terminals
            .binary_search_by_key(&state, |t| t.0)
            .ok()
            .map(|i| self.terminals[i].1)
    }

    fn for_each_terminal(&self, f: &mut dyn FnMut(StateId, OutcomeId)) {
        for &(s, o) in &self.terminals {
            f(s, o);
        }
    }

    fn layer_starts(&self) -> Option<&[u64]> {
        self.layers.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_sources_and_keep_edge_order() {
        let g = MemGraph::new(3, &[(2, 0, 0), (0, 1, 1), (0, 0, 2)], &[(1, 0)]).unwrap();
        assert_eq!(g.edge_range(0), 0..2);
        assert_eq!(g.edge(0), (1, 1));
        assert_eq!(g.edge(1), (0, 2));
        assert_eq!(g.edge_range(1), 2..2);
        assert_eq!(g.edge_range(2), 2..3);
        assert_eq!(g.outcome(1), Some(0));
        assert_eq!(g.outcome(0), None);
    }

    #[test]
    fn rejects_targets_past_the_end_and_edges_from_unexpanded_states() {
        let err = MemGraph::new(2, &[(0, 0, 5)], &[]).unwrap_err();
        assert!(err.to_string().contains("targets state 5"), "{err}");
        let err = MemGraph::partial(3, 1, &[(1, 0, 0)], &[]).unwrap_err();
        assert!(err.to_string().contains("expanded count 1"), "{err}");
    }

    #[test]
    fn open_states_are_unexpanded_non_terminals() {
        let g = MemGraph::partial(3, 1, &[(0, 0, 1), (0, 0, 2)], &[(2, 0)]).unwrap();
        assert!(!g.is_open(0));
        assert!(g.is_open(1));
        assert!(!g.is_open(2));
    }
}
