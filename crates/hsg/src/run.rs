//! The analysis of a stored run: [`StateGraph`] over `store::Run`'s memory-mapped rows,
//! and [`analyze`], which analyses a run and saves the result into its directory.

use crate::analysis::{analyze_graph, Analysis, AnalyzeOptions};
use crate::currency::{currency, Currency};
use crate::error::HsgError;
use crate::graph::{ActionId, Labels, OutcomeId, StateGraph, StateId};
use crate::persist::save;
use crate::summary::{HsgSummary, Source};
use std::ops::Range;

/// A stored run seen as a [`StateGraph`]: rows and edges come straight from the
/// store's packed out-edges ([`store::OutEdges`]), read in place.
pub struct RunGraph<'a> {
    run: &'a store::Run,
    edges: store::OutEdges<'a>,
}

impl<'a> RunGraph<'a> {
    /// Wraps `run` (whose structure `store::Run::open` has checked).
    pub fn new(run: &'a store::Run) -> Result<RunGraph<'a>, HsgError> {
        Ok(RunGraph {
            run,
            edges: run.edges(),
        })
    }
}

impl StateGraph for RunGraph<'_> {
    fn state_count(&self) -> u64 {
        self.run.state_count()
    }

    fn expanded_count(&self) -> u64 {
        self.edges.rows()
    }

    fn edge_count(&self) -> u64 {
        self.edges.len()
    }

    #[inline]
    fn edge_range(&self, state: StateId) -> Range<u64> {
        self.edges.row(state)
    }

    #[inline]
    fn edge(&self, index: u64) -> (ActionId, StateId) {
        let edge = self.edges.edge(index);
        (edge.action, edge.target)
    }

    #[inline]
    fn prefetch_row(&self, state: StateId) {
        self.edges.prefetch_row(state);
    }

    #[inline]
    fn prefetch_edge(&self, index: u64) {
        self.edges.prefetch_edge(index);
    }

    fn layer_starts(&self) -> Option<&[u64]> {
        Some(self.run.layers())
    }

    fn will_read(&self, states: Range<u64>, edges: bool) {
        self.run.will_read_rows(states, edges);
    }

    fn verify_rows(&self, states: Range<u64>) -> Result<(), HsgError> {
        self.run
            .verify_rows(states)
            .map_err(|e| HsgError::Store(e.to_string()))
    }

    fn finish_verification(&self) -> Result<(), HsgError> {
        self.run
            .finish_verification()
            .map_err(|e| HsgError::Store(e.to_string()))
    }

    fn outcome(&self, state: StateId) -> Option<OutcomeId> {
        self.run.outcome(state).filter(|&o| o != store::CUT_OUTCOME)
    }

    fn for_each_terminal(&self, f: &mut dyn FnMut(StateId, OutcomeId)) {
        for (state, outcome) in self.run.terminals() {
            if outcome != store::CUT_OUTCOME {
                f(state, outcome);
            }
        }
    }

    fn for_each_cut(&self, f: &mut dyn FnMut(StateId)) {
        for (state, outcome) in self.run.terminals() {
            if outcome == store::CUT_OUTCOME {
                f(state);
            }
        }
    }

    fn is_cut(&self, state: StateId) -> bool {
        self.run.outcome(state) == Some(store::CUT_OUTCOME)
    }
}

/// Action labels and outcome names of a run.
pub fn labels_of(run: &store::Run) -> Labels {
    let identity = run.identity();
    Labels {
        actions: identity.action_labels.clone(),
        outcomes: identity.outcome_names.clone(),
    }
}

/// What a summary must record to match `run`.
pub fn source_of(run: &store::Run) -> Source {
    source_of_manifest(run.manifest())
}

/// What a summary must record to match the run the manifest `m` describes (read
/// without opening the run: the workbench's preview, a live run's latest checkpoint).
pub fn source_of_manifest(m: &store::Manifest) -> Source {
    Source {
        level_hash: m.identity.level_hash.clone(),
        states: m.states,
        expanded: m.expanded,
        transitions: m.transitions,
    }
}

/// How `summary` relates to `run` as it is now (see [`crate::currency`]).
pub fn currency_of(summary: &HsgSummary, run: &store::Run) -> Currency {
    currency(&summary.source, &source_of(run))
}

/// True when `summary` was computed from `run` as it is now.
pub fn is_current(summary: &HsgSummary, run: &store::Run) -> bool {
    currency_of(summary, run).is_current()
}

/// True when an analysis of `run` may be saved into its directory: not while another
/// process is still writing it, whose next checkpoint would make the saved analysis
/// one of an earlier checkpoint at once (the CLI and the workbench both ask this).
pub fn may_save(run: &store::Run) -> bool {
    run.status() != store::RunStatus::Running
}

/// Analyses `run` without saving anything (for a store another process is still
/// writing, whose analysis would be stale at once).
///
/// Per-state arrays that do not fit the budget go to scratch files in the run's
/// directory unless `opts` names another place (see [`crate::state_arrays`]).
pub fn analyze_unsaved(run: &store::Run, opts: &AnalyzeOptions) -> Result<Analysis, HsgError> {
    let graph = RunGraph::new(run)?;
    let mut opts = opts.clone();
    let scratch = opts
        .scratch_dir
        .get_or_insert_with(|| run.dir().join(SCRATCH_FOLDER))
        .clone();
    let analysis = analyze_graph(&graph, &labels_of(run), &opts, source_of(run));
    // The files in it were unlinked when made; the folder goes too once empty (an
    // error only means another analysis is using it or it was never made).
    let _ = std::fs::remove_dir(&scratch);
    analysis
}

/// The folder of a run where an analysis short of memory keeps its scratch files (they
/// are unlinked as soon as they are made, so it stays empty).
pub const SCRATCH_FOLDER: &str = store::layout::ANALYSIS_SCRATCH;

/// Analyses `run` and saves the result into `run.dir()/hsg/` (replacing any earlier
/// analysis; re-running gives the same files).
pub fn analyze(run: &store::Run, opts: &AnalyzeOptions) -> Result<Analysis, HsgError> {
    let opts = AnalyzeOptions {
        saving: true,
        ..opts.clone()
    };
    let analysis = analyze_unsaved(run, &opts)?;
    opts.progress
        .enter(crate::progress::Phase::Saving, opts.headroom, true);
    save(&analysis, run.dir())?;
    Ok(analysis)
}
