//! The narrow view of a state space graph that every algorithm of this crate reads:
//! compressed out-rows (CSR), an expanded prefix, and outcomes of terminal states.
//!
//! A state whose id is at least [`StateGraph::expanded_count`] was never expanded: it has
//! no out-edges, and unless it is terminal the analysis treats what lies beyond it as
//! unknown. [`validate`] checks the contract once, so the algorithms can trust every
//! range and target afterwards.

use crate::error::HsgError;
pub use crate::target_bounds::TargetBounds;
use std::ops::Range;

pub use model::{ActionId, OutcomeId, StateId};

/// Names of actions and outcomes, indexed by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// Action labels.
    pub actions: Vec<String>,
    /// Outcome names.
    pub outcomes: Vec<String>,
}

impl Labels {
    /// The label of `action`, or `#id` when the run does not name it.
    pub fn action(&self, action: ActionId) -> String {
        self.actions
            .get(usize::from(action))
            .cloned()
            .unwrap_or_else(|| format!("#{action}"))
    }
}

/// A directed, action-labelled state graph stored as compressed rows.
///
/// Contract (checked by [`validate`]): rows are consecutive (`edge_range(s).end ==
/// edge_range(s + 1).start` for expanded states), lie within `0..edge_count()`, states
/// at or past `expanded_count()` have empty rows, every target is below `state_count()`,
/// and terminals are reported in increasing id order.
///
/// Graphs are `Sync`: the analysis's passes over every transition run on every core.
pub trait StateGraph: Sync {
    /// Number of states; ids are `0..state_count()`.
    fn state_count(&self) -> u64;
    /// States with an id below this were expanded (terminal ones may have no edges).
    fn expanded_count(&self) -> u64;
    /// Number of transitions.
    fn edge_count(&self) -> u64;
    /// Indices of `state`'s out-edges; empty for states never expanded.
    fn edge_range(&self, state: StateId) -> Range<u64>;
    /// The action and the target of edge `index`.
    fn edge(&self, index: u64) -> (ActionId, StateId);
    /// The outcome of `state` if it is terminal.
    fn outcome(&self, state: StateId) -> Option<OutcomeId>;
    /// Calls `f` for every terminal state and its outcome, in increasing id order.
    fn for_each_terminal(&self, f: &mut dyn FnMut(StateId, OutcomeId));

    /// A hint that `state`'s row will be read soon (a traversal calls it for the
    /// targets of the row it starts, so that their cache misses overlap). Doing
    /// nothing is correct; stored graphs prefetch their row index.
    #[inline]
    fn prefetch_row(&self, _state: StateId) {}

    /// A hint that the edge at `index` will be read soon. Doing nothing is correct;
    /// stored graphs prefetch the word of their edge bits that holds it.
    #[inline]
    fn prefetch_edge(&self, _index: u64) {}

    /// The first id of each breadth-first layer when ids are numbered breadth-first
    /// (as the explorer numbers them), else None. [`validate`] checks that no edge
    /// skips a layer forward, so passes may rely on it: two states more than one layer
    /// apart cannot have edges both ways, and a pass looking for a way back need not
    /// read the far state's row.
    fn layer_starts(&self) -> Option<&[u64]> {
        None
    }

    /// Calls `f` for every state the explorer held back instead of expanding it (an
    /// HSG depth limit), in increasing id order. Such a state lies below
    /// `expanded_count()` with an empty row, is not terminal, and its future is unknown.
    fn for_each_cut(&self, _f: &mut dyn FnMut(StateId)) {}

    /// True when the explorer held `state` back (see [`StateGraph::for_each_cut`]).
    fn is_cut(&self, _state: StateId) -> bool {
        false
    }

    /// A hint that a pass will soon read the rows of `states` and, with `edges`, their
    /// edges (see [`crate::readahead`]). Doing nothing is correct; stored graphs ask
    /// the kernel to start reading those bytes.
    fn will_read(&self, _states: Range<u64>, _edges: bool) {}

    /// Verifies the stored bytes of the rows of `states` and of their edges, for a graph
    /// that defers this to the first pass over them (a store opened with
    /// `store::Run::open_deferred`: its checksums are read with the rows, which are then
    /// in the page cache for the pass); [`validate`] calls it on every range before
    /// reading it. Nothing to do for the others.
    fn verify_rows(&self, _states: Range<u64>) -> Result<(), HsgError> {
        Ok(())
    }

    /// Verifies what [`StateGraph::verify_rows`] did not reach; [`validate`] calls it
    /// after its pass.
    fn finish_verification(&self) -> Result<(), HsgError> {
        Ok(())
    }

    /// True when `state` was never expanded and is not terminal: its future is unknown.
    fn is_open(&self, state: StateId) -> bool {
        (state >= self.expanded_count() && self.outcome(state).is_none()) || self.is_cut(state)
    }
}

/// Every graph is read ahead through its hint (see [`crate::readahead`]).
impl<G: StateGraph + ?Sized> crate::readahead::Hinted for G {
    fn rows(&self) -> u64 {
        self.expanded_count()
    }
    fn hint(&self, states: Range<u64>, edges: bool) {
        self.will_read(states, edges);
    }
}

/// The row of `state` in compressed rows whose ends are `row_end` (`row_end[s]` is where
/// row `s` ends; row 0 starts at 0); empty past the last row. Shared by the in-memory
/// graphs.
#[inline]
pub fn row_range(row_end: &[u64], state: StateId) -> Range<u64> {
    let Ok(s) = usize::try_from(state) else {
        return 0..0;
    };
    let Some(&end) = row_end.get(s) else {
        return 0..0;
    };
    let start = if s == 0 { 0 } else { row_end[s - 1] };
    start..end
}

/// Checks the [`StateGraph`] contract in one sequential pass over rows and edges.
pub fn validate<G: StateGraph + ?Sized>(g: &G) -> Result<(), HsgError> {
    validate_bounding(g).map(|_| ())
}

/// [`validate`], which also gives the largest target of each block of rows it read.
pub fn validate_bounding<G: StateGraph + ?Sized>(g: &G) -> Result<TargetBounds, HsgError> {
    let n = g.state_count();
    let expanded = g.expanded_count();
    if expanded > n {
        return Err(malformed(format!(
            "{expanded} states expanded but only {n} states exist"
        )));
    }
    let bounds = check_rows(g, n, expanded)?;
    check_terminals(g, n)?;
    Ok(bounds)
}

fn malformed(message: String) -> HsgError {
    HsgError::MalformedGraph(message)
}

/// The layer of `state` along a pass in increasing state order: `layer` is moved
/// forward while the next layer starts at or before `state`.
#[inline]
pub(crate) fn advance_layer(layers: &[u64], layer: &mut usize, state: StateId) {
    while *layer + 1 < layers.len() && layers[*layer + 1] <= state {
        *layer += 1;
    }
}

/// The first id past the layer after `layer`: an edge from `layer` must target below it.
#[inline]
fn bound_after_next(layers: &[u64], layer: usize) -> u64 {
    layers.get(layer + 2).copied().unwrap_or(u64::MAX)
}

/// Checks every row, on every core: each thread checks a range of states, and the
/// error reported is the first in state order, as a single pass would find it.
fn check_rows<G: StateGraph + ?Sized>(
    g: &G,
    n: u64,
    expanded: u64,
) -> Result<TargetBounds, HsgError> {
    let threads = crate::parallel::threads_for(g.edge_count());
    check_rows_on(g, n, expanded, threads)
}

/// [`check_rows`] on `threads` threads.
pub(crate) fn check_rows_on<G: StateGraph + ?Sized>(
    g: &G,
    n: u64,
    expanded: u64,
    threads: usize,
) -> Result<TargetBounds, HsgError> {
    let results =
        crate::parallel::map_ranges(n, threads, |states| check_row_range(g, n, expanded, states));
    let mut bounds = TargetBounds::default();
    for range in results {
        bounds.extend(range?);
    }
    g.finish_verification()?;
    // Every earlier row was checked to start where the one before it ended.
    let covered = match expanded {
        0 => 0,
        e => g.edge_range(e - 1).end,
    };
    if covered != g.edge_count() {
        return Err(malformed(format!(
            "rows cover {covered} edges but the graph has {}",
            g.edge_count()
        )));
    }
    Ok(bounds)
}

/// States whose rows [`check_row_range`] verifies and checks at a time: few enough that
/// the bytes the verification read are still in the page cache when the checks read
/// them again.
const VERIFIED_AT_ONCE: u64 = 1 << 16;

/// The checks of the rows of `states`, each piece of [`VERIFIED_AT_ONCE`] states first
/// verified by the graph ([`StateGraph::verify_rows`]); a row must start where the
/// expanded row before it ends (that row is checked by the range it lies in, which
/// reports first). Each piece's largest target is noted on the way.
fn check_row_range<G: StateGraph + ?Sized>(
    g: &G,
    n: u64,
    expanded: u64,
    states: std::ops::Range<u64>,
) -> Result<TargetBounds, HsgError> {
    let mut bounds = TargetBounds::default();
    let layers = g.layer_starts().unwrap_or(&[]);
    let mut layer = 0usize;
    let mut start = states.start;
    let mut next_start = None;
    let mut ahead = crate::readahead::Ahead::new(g, states.end, true);
    while start < states.end {
        let end = states.end.min(start + VERIFIED_AT_ONCE);
        ahead.at(start);
        g.verify_rows(start.min(expanded)..end.min(expanded))?;
        let next = next_start.get_or_insert_with(|| match start.min(expanded) {
            0 => 0,
            s => g.edge_range(s - 1).end,
        });
        let mut above = 0;
        for state in start..end {
            check_row(g, expanded, state, next)?;
            if state < expanded {
                advance_layer(layers, &mut layer, state);
                above = above.max(check_targets(g, n, (state, layer), layers)?);
            }
        }
        bounds.push(end, above);
        start = end;
    }
    Ok(bounds)
}

/// The checks of `state`'s row itself: empty past the expanded states, else starting at
/// `next_start` (then moved to its end) and within the edges.
fn check_row<G: StateGraph + ?Sized>(
    g: &G,
    expanded: u64,
    state: u64,
    next_start: &mut u64,
) -> Result<(), HsgError> {
    let row = g.edge_range(state);
    if state >= expanded {
        if !row.is_empty() {
            return Err(malformed(format!(
                "state {state} was never expanded (expanded count {expanded}) but has edges"
            )));
        }
        return Ok(());
    }
    if row.start != *next_start || row.end < row.start || row.end > g.edge_count() {
        return Err(malformed(format!(
            "out-row of state {state} is {}..{}, expected to start at {next_start} and end by {}",
            row.start,
            row.end,
            g.edge_count()
        )));
    }
    if row.end - row.start > u64::from(u32::MAX) {
        return Err(malformed(format!(
            "state {state} has {} out-edges, more than 2^32 - 1",
            row.end - row.start
        )));
    }
    *next_start = row.end;
    Ok(())
}

/// Every edge of `state` (in `layer`) targets a state, at most one layer deeper; gives
/// one more than the largest target (0 for an empty row).
fn check_targets<G: StateGraph + ?Sized>(
    g: &G,
    n: u64,
    (state, layer): (u64, usize),
    layers: &[u64],
) -> Result<u64, HsgError> {
    let bound = bound_after_next(layers, layer);
    let mut above = 0;
    for index in g.edge_range(state) {
        let (_, target) = g.edge(index);
        if target >= n {
            return Err(malformed(format!(
                "edge {index} from state {state} targets state {target}, but only {n} states exist"
            )));
        }
        if target >= bound {
            return Err(malformed(format!(
                "edge {index} from state {state} (depth {layer}) targets state {target}, \
                 beyond depth {}: the layers are not breadth-first",
                layer + 1
            )));
        }
        above = above.max(target + 1);
    }
    Ok(above)
}

fn check_terminals<G: StateGraph + ?Sized>(g: &G, n: u64) -> Result<(), HsgError> {
    let mut problem = None;
    let mut previous: Option<StateId> = None;
    g.for_each_terminal(&mut |state, _| {
        if problem.is_some() {
            return;
        }
        if state >= n {
            problem = Some(format!(
                "terminal state {state} is past the {n} states of the graph"
            ));
        } else if previous.is_some_and(|p| p >= state) {
            problem = Some(format!(
                "terminal states are not in increasing order at {state}"
            ));
        }
        previous = Some(state);
    });
    problem.map_or(Ok(()), |m| Err(malformed(m)))
}

/// Out-degree of `state`.
#[inline]
pub fn out_degree<G: StateGraph + ?Sized>(g: &G, state: StateId) -> u64 {
    let row = g.edge_range(state);
    row.end - row.start
}
