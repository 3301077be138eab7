//! A synthetic workbench with 7-digit figures, for the tests that check every number
//! on screen fits or is abbreviated visibly: a root hyperstate of 1,396,152 states (a
//! cycle), a win state reached by 58,173 critical actions, a fail cycle of 1,048,577
//! states and, optionally, one state never expanded (a partial run). The states are
//! drawn as room3 (a 10-row Sokoban board) with the player moving about.

use super::analysis::{AnalysisBench, RunFacts, StateSource};
use super::RunState;
use crate::error::TuiError;
use hsg::{AnalyzeOptions, Labels, MemGraph, SavedAnalysis, StateGraph};
use std::collections::VecDeque;

/// States in the root hyperstate.
pub const ROOT_SIZE: u64 = 1_396_152;
/// States in the fail cycle.
pub const FAIL_SIZE: u64 = 1_048_577;
/// Every `WIN_EVERY`-th root state has a critical action to the win.
const WIN_EVERY: u64 = 24;
/// Every `FAIL_EVERY`-th root state has a critical action into the fail cycle.
const FAIL_EVERY: u64 = 1000;

const ROOM3: &str = "\
##########
#        #
#        #
#  $  $  #
#   ##   #
#        #
#  $     #
#      . #
#     .. #
##########";

/// The synthetic states: an in-memory graph and BFS depths.
pub struct BigStates {
    graph: MemGraph,
    depths: Vec<u32>,
}

impl StateSource for BigStates {
    fn render(&self, s: u64) -> Option<String> {
        if s >= self.graph.state_count() {
            return None;
        }
        // The player walks over the free cells of the top two rows.
        let cell = (s % 16) as usize;
        let (row, column) = (1 + cell / 8, 1 + cell % 8);
        let lines: Vec<String> = ROOM3
            .lines()
            .enumerate()
            .map(|(r, line)| {
                line.chars()
                    .enumerate()
                    .map(|(c, ch)| if (r, c) == (row, column) { '@' } else { ch })
                    .collect()
            })
            .collect();
        Some(lines.join("\n"))
    }

    fn moves(&self, s: u64) -> Vec<(u16, u64)> {
        self.graph
            .edge_range(s)
            .map(|i| self.graph.edge(i))
            .collect()
    }

    fn bfs_depth(&self, s: u64) -> u32 {
        self.depths.get(s as usize).copied().unwrap_or(0)
    }

    fn bfs_histogram(&self) -> Vec<u64> {
        let mut histogram = Vec::new();
        for &d in &self.depths {
            let d = d as usize;
            if histogram.len() <= d {
                histogram.resize(d + 1, 0);
            }
            histogram[d] += 1;
        }
        histogram
    }

    fn outcome(&self, s: u64) -> Option<u16> {
        self.graph.outcome(s)
    }
}

/// The synthetic workbench type.
pub type BigFixture = AnalysisBench<BigStates>;

/// Builds the synthetic workbench; with `partial`, one state reached from the root is
/// never expanded, so the run is provisional.
pub fn big(partial: bool) -> Result<BigFixture, TuiError> {
    let win = ROOT_SIZE;
    let fail_start = win + 1;
    let open = fail_start + FAIL_SIZE;
    let states = open + u64::from(partial);
    let mut edges = Vec::with_capacity((ROOT_SIZE + FAIL_SIZE + ROOT_SIZE / WIN_EVERY) as usize);
    for i in 0..ROOT_SIZE {
        edges.push((i, 0, (i + 1) % ROOT_SIZE));
        if i % WIN_EVERY == 0 {
            edges.push((i, 1, win));
        }
        if i % FAIL_EVERY == 7 {
            edges.push((i, 2, fail_start + i % FAIL_SIZE));
        }
    }
    for i in 0..FAIL_SIZE {
        edges.push((fail_start + i, 0, fail_start + (i + 1) % FAIL_SIZE));
    }
    if partial {
        edges.push((3, 3, open));
    }
    let graph = MemGraph::partial(states, open, &edges, &[(win, 0)])
        .map_err(|e| TuiError::Fixture(e.to_string()))?;
    drop(edges);
    let labels = Labels {
        actions: ["right", "up", "down", "push"].map(String::from).to_vec(),
        outcomes: vec!["win".to_string()],
    };
    let source = hsg::summary::Source {
        level_hash: "5eed0f7e".to_string(),
        states: graph.state_count(),
        expanded: graph.expanded_count(),
        transitions: graph.edge_count(),
    };
    let analysis = hsg::analyze_graph(&graph, &labels, &AnalyzeOptions::default(), source)
        .map_err(|e| TuiError::Fixture(e.to_string()))?;
    let saved = SavedAnalysis::from_analysis(&analysis);
    let facts = RunFacts {
        game: "sokoban".to_string(),
        level_title: "a synthetic room with a very long walk before the goals".to_string(),
        options: Vec::new(),
        run_state: if partial {
            RunState::Partial
        } else {
            RunState::Complete
        },
        stale_note: None,
        action_labels: labels.actions,
        outcome_names: labels.outcomes,
    };
    let depths = bfs_depths(&graph);
    Ok(AnalysisBench::new(
        saved,
        facts,
        BigStates { graph, depths },
    ))
}

/// BFS depths from state 0 (unreached states get 0).
fn bfs_depths(graph: &MemGraph) -> Vec<u32> {
    let n = graph.state_count() as usize;
    let mut depths = vec![u32::MAX; n];
    let mut queue = VecDeque::from([0u64]);
    depths[0] = 0;
    while let Some(s) = queue.pop_front() {
        let d = depths[s as usize];
        for i in graph.edge_range(s) {
            let (_, t) = graph.edge(i);
            if depths[t as usize] == u32::MAX {
                depths[t as usize] = d + 1;
                queue.push_back(t);
            }
        }
    }
    depths
        .into_iter()
        .map(|d| if d == u32::MAX { 0 } else { d })
        .collect()
}
