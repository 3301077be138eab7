//! The shortest walk from state 0 to the nearest goal state, rebuilt from the
//! breadth-first layers of a stored run instead of searched for: the walk that
//! `hsg path` prints and whose length the analysis's summary reports.
//!
//! Why no search is needed: the explorer numbers states in the order a breadth-first
//! search from the root discovers them (the parents of a layer expanded in id order,
//! each parent's successors in the order its row stores them, a state numbered when
//! first met; `docs/store-format.md`, and the same ids from the disk phase, a resume or a
//! cluster's gather). A breadth-first search from state 0 in stored edge order, the
//! search of `explain::shortest_walk` and `paths::shortest_walk_length`, therefore takes
//! the states off its queue in id order. So the first goal it meets is the goal state of
//! smallest id, at the distance of its layer; and the parent it records for a state (its
//! first discoverer) is the state of smallest id with an edge to it, which lies in the
//! layer before: states of earlier layers have no edge to it (it would lie in an earlier
//! layer), and states of its own layer or later come off the queue after the whole layer
//! before. The walk is rebuilt backwards, one layer at a time: the rows of the layer
//! before the current state are read in order until the first edge to it, whose action
//! is the one the search names (the first stored edge between the two states).
//!
//! Cost: the rows of the layers before the goal are read at most once, in order, on
//! every core (blocks of each layer, stopped at the block holding the parent), and the
//! goal is found among the terminals or by one pass over the ids; no array per state
//! (the search needs a visited bit and, for the walk, a parent id a state) and no
//! random reads. On room4 that is still 69% of the rows before the win's layer, since a
//! parent lies as far into its layer as its child into its own. The analysis passes its
//! validation's [`TargetBounds`] (the largest target of every block of 65,536 rows): a
//! block whose targets all lie below the state sought is passed over unread, and on a
//! run numbered breadth first that is every block of the layer before the parent's, so
//! a step reads about one block. On room5 the search read the rows of every layer
//! before the nearest win and looked up the hyperstate of every state it met (224.6 s
//! of the summary).
//!
//! Where the numbering is not so (a layer table that does not start with state 0
//! alone, or a state of some layer with no edge from the layer before), the caller
//! searches as before. On a graph whose layers are breadth-first (every state has an
//! edge from the layer before, and no edge skips a layer forward, which
//! [`crate::graph::validate`] checks) but numbered otherwise, the rebuilt walk is still a
//! shortest one, and both its users take the same.

use crate::graph::{ActionId, OutcomeId, StateGraph, StateId, TargetBounds};
use std::ops::Range;

/// Where a walk should end: the test a state must pass.
#[derive(Clone, Copy)]
pub enum Goal<'a> {
    /// A terminal state whose outcome passes the test (found among the terminals).
    Outcome(&'a (dyn Fn(OutcomeId) -> bool + Sync)),
    /// Any state that passes the test.
    State(&'a (dyn Fn(StateId) -> bool + Sync)),
}

impl Goal<'_> {
    /// True when `state` is a goal state of `g`.
    #[inline]
    pub fn holds<G: StateGraph + ?Sized>(&self, g: &G, state: StateId) -> bool {
        match self {
            Goal::Outcome(test) => g.outcome(state).is_some_and(test),
            Goal::State(test) => test(state),
        }
    }

    /// The goal state of smallest id: the first terminal with such an outcome (the
    /// terminals come in id order), or the first state passing the test.
    fn first<G: StateGraph + ?Sized>(&self, g: &G) -> Option<StateId> {
        match self {
            Goal::Outcome(test) => {
                let mut first = None;
                g.for_each_terminal(&mut |state, outcome| {
                    if first.is_none() && test(outcome) {
                        first = Some(state);
                    }
                });
                first
            }
            Goal::State(test) => (0..g.state_count()).find(|&s| test(s)),
        }
    }
}

/// One step of a walk: the state it is played in, its action and the state it leads to.
pub type Hop = (StateId, ActionId, StateId);

/// What the layers say about the nearest goal from the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nearest {
    /// The walk to it, its steps in playing order (none when the start is a goal).
    Walk(Vec<Hop>),
    /// No state is a goal.
    NoGoal,
    /// The layers do not give the walk: the caller must search.
    Search,
}

/// The shortest walk from `start` to a state where `goal` holds, rebuilt from `g`'s
/// breadth-first layers (see the module's documentation), or [`Nearest::Search`] when
/// they cannot give it: `start` is not state 0, `g` has no layer table, or the table
/// is not that of a breadth-first search from state 0 alone. With `bounds` (the
/// largest targets the validation's pass noted), the blocks of a layer whose targets
/// all lie below the state whose parent is sought are not read.
pub fn nearest_goal<G: StateGraph + ?Sized>(
    g: &G,
    start: StateId,
    goal: Goal,
    bounds: Option<&TargetBounds>,
) -> Nearest {
    let threads = crate::parallel::threads_for(g.edge_count());
    nearest_goal_on(g, start, goal, (threads, BLOCK, bounds))
}

/// How a layer is read: threads, states a thread reads in one block, and the bounds
/// that let blocks be passed over.
type Reading<'b> = (usize, u64, Option<&'b TargetBounds>);

/// [`nearest_goal`] reading each layer in blocks of `block` states a thread on
/// `threads` threads.
pub(crate) fn nearest_goal_on<G: StateGraph + ?Sized>(
    g: &G,
    start: StateId,
    goal: Goal,
    reading: Reading,
) -> Nearest {
    let Some(layers) = layers_from(g, start) else {
        return Nearest::Search;
    };
    let Some(end) = goal.first(g) else {
        return Nearest::NoGoal;
    };
    match walk_back(g, layers, end, reading) {
        Some(hops) => Nearest::Walk(hops),
        None => Nearest::Search,
    }
}

/// `g`'s layer table when walks from `start` can be rebuilt from it: `start` is state
/// 0, the table starts at 0 with state 0 alone in the first layer (one root), and no
/// layer is empty.
fn layers_from<G: StateGraph + ?Sized>(g: &G, start: StateId) -> Option<&[u64]> {
    let layers = g.layer_starts()?;
    let n = g.state_count();
    let rising = layers.windows(2).all(|w| w[0] < w[1]);
    let one_root = n <= 1 || layers.get(1) == Some(&1);
    let usable = start == 0
        && start < n
        && layers.first() == Some(&0)
        && rising
        && one_root
        && layers.last().is_some_and(|&l| l <= n);
    usable.then_some(layers)
}

/// The layer of `state`: the last layer starting at or before it (states past the
/// table's last entry belong to the layer being explored after it).
fn layer_of(layers: &[u64], state: StateId) -> usize {
    layers.partition_point(|&start| start <= state).max(1) - 1
}

/// The walk from state 0 to `end`, each step taken from the first state of the layer
/// before with an edge to the current state; `None` when some state has no such
/// parent (the layers are not breadth-first).
fn walk_back<G: StateGraph + ?Sized>(
    g: &G,
    layers: &[u64],
    end: StateId,
    reading: Reading,
) -> Option<Vec<Hop>> {
    let mut hops = Vec::new();
    let mut at = end;
    for layer in (1..=layer_of(layers, end)).rev() {
        let (from, action) = first_parent(g, layers[layer - 1]..layers[layer], at, reading)?;
        hops.push((from, action, at));
        at = from;
    }
    // Layer 0 is state 0 alone.
    if at != 0 {
        return None;
    }
    hops.reverse();
    Some(hops)
}

/// States a thread reads rows of in one block of [`first_parent`]: enough that
/// starting the threads costs little beside the rows, few enough that the rows read
/// past the parent stay a small share of a large layer.
const BLOCK: u64 = 1 << 16;

/// The first state of `parents` (in id order) with an edge to `to`, and that edge's
/// action (the first such edge of its row). The layer is read in blocks of `block`
/// states a thread, one piece a thread at once, up to the block that holds the parent;
/// a layer smaller than a block a thread is read on one thread. The states whose
/// `bounds` block has no target as large as `to` are passed over: on a run numbered
/// breadth first, every state of the layer before the parent (their targets in the
/// parent's layer were numbered before `to`, the others lie in earlier layers).
fn first_parent<G: StateGraph + ?Sized>(
    g: &G,
    parents: Range<u64>,
    to: StateId,
    (threads, block, bounds): Reading,
) -> Option<(StateId, ActionId)> {
    // Rows past the expanded states are empty.
    let parents = parents.start..parents.end.min(g.expanded_count());
    let len = parents.end.saturating_sub(parents.start);
    let threads = if len < block { 1 } else { threads.max(1) };
    let mut ahead = crate::readahead::Ahead::new(g, parents.end, true);
    let mut from = parents.start;
    loop {
        if let Some(bounds) = bounds {
            from = bounds.skip_below(from, parents.end, to);
        }
        if from >= parents.end {
            return None;
        }
        let size = (parents.end - from).min(block.max(1) * threads as u64);
        ahead.at(from);
        let found = crate::parallel::map_ranges(size, threads, |r| {
            first_edge_to(g, from + r.start..from + r.end, to)
        });
        if let Some(hit) = found.into_iter().flatten().next() {
            return Some(hit);
        }
        from += size;
    }
}

/// The first state of `states` with an edge to `to`, and that edge's action.
fn first_edge_to<G: StateGraph + ?Sized>(
    g: &G,
    states: Range<u64>,
    to: StateId,
) -> Option<(StateId, ActionId)> {
    states.into_iter().find_map(|s| {
        g.edge_range(s)
            .map(|i| g.edge(i))
            .find(|&(_, t)| t == to)
            .map(|(action, _)| (s, action))
    })
}

#[cfg(test)]
#[path = "layered_walk_tests.rs"]
mod tests;
