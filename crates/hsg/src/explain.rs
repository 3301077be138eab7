//! Solutions and dead ends out of an analysed graph: the shortest action sequence to a
//! win, a loss or a given state, and, for a lost state, the first critical action on the
//! shortest path from the root after which no win is reachable.
//!
//! Every search is a breadth-first search over the stored out-edges (iterative, one
//! parent id per state), so the sequences are shortest in actions (SSG transitions);
//! from the root of a stored run the search's walk is rebuilt from the run's
//! breadth-first layers instead ([`crate::layered_walk`]).

use crate::graph::{ActionId, OutcomeId, StateGraph, StateId};
use crate::ids::IdVec;
use crate::layered_walk::{nearest_goal, Goal, Nearest};
use crate::persist::SavedAnalysis;
use crate::tags::Tag;
use crate::target::Target;

/// Marks a state the search has not reached in the parent array.
const UNSEEN: u64 = u64::MAX;

/// One action of a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The state the action is played in.
    pub from: StateId,
    /// The action's label id.
    pub action: ActionId,
    /// The state it leads to.
    pub to: StateId,
    /// True when `from` and `to` lie in different hyperstates (a critical action).
    pub critical: bool,
}

/// A sequence of actions from `start`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The first state.
    pub start: StateId,
    /// The actions in the order they are played.
    pub steps: Vec<Step>,
}

impl Walk {
    /// The last state (the start when there is no step).
    pub fn end(&self) -> StateId {
        self.steps.last().map_or(self.start, |s| s.to)
    }

    /// Every state visited, the start first.
    pub fn states(&self) -> Vec<StateId> {
        std::iter::once(self.start)
            .chain(self.steps.iter().map(|s| s.to))
            .collect()
    }

    /// How many of the steps are critical actions.
    pub fn critical_count(&self) -> usize {
        self.steps.iter().filter(|s| s.critical).count()
    }
}

/// Where a path should lead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The nearest state whose outcome is in the analysis's target.
    Win,
    /// The nearest state of a `fail` hyperstate (a leaf that is lost: stuck, a loss,
    /// a sink cycle).
    Fail,
    /// The nearest state from which no win is reachable any more: a `fail` or an
    /// `implicitly_failed` hyperstate.
    Dead,
    /// One given state.
    State(StateId),
}

/// The shortest sequence of actions from `start` to a state where `goal` holds, or
/// `None` when none is reachable (or `start` is not a state of `g`). Steps are marked
/// critical by `component`, the hyperstate of every state (states past its end count
/// as hyperstates of their own).
///
/// From state 0 of a run numbered breadth first (every stored run), the walk is
/// rebuilt from the layers ([`crate::layered_walk`]): the walk the search below finds,
/// without its array. The analysis's summary measures the same walk
/// ([`crate::paths::shortest_walk_length`]).
///
/// Memory of the search: one `u64` per state of `g` and the BFS queue.
pub fn shortest_walk<G: StateGraph + ?Sized>(
    g: &G,
    component: &IdVec,
    start: StateId,
    goal: Goal,
) -> Option<Walk> {
    match nearest_goal(g, start, goal, None) {
        Nearest::Walk(hops) => {
            let steps = hops
                .into_iter()
                .map(|(from, action, to)| Step {
                    from,
                    action,
                    to,
                    critical: is_critical(component, from, to),
                })
                .collect();
            return Some(Walk { start, steps });
        }
        Nearest::NoGoal => return None,
        Nearest::Search => {}
    }
    let n = g.state_count();
    if start >= n {
        return None;
    }
    let mut parent = vec![UNSEEN; usize::try_from(n).ok()?];
    parent[start as usize] = start;
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(s) = queue.pop_front() {
        if goal.holds(g, s) {
            return Some(walk_back(g, component, &parent, start, s));
        }
        for index in g.edge_range(s) {
            let (_, t) = g.edge(index);
            if let Some(slot) = parent.get_mut(t as usize) {
                if *slot == UNSEEN {
                    *slot = s;
                    queue.push_back(t);
                }
            }
        }
    }
    None
}

/// True when `from` and `to` lie in different hyperstates of `component` (a state
/// past its end is a hyperstate of its own).
fn is_critical(component: &IdVec, from: StateId, to: StateId) -> bool {
    match (component.get(from), component.get(to)) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// Follows the parents back from `end` to `start` and names each step's action (the
/// first stored edge between the two states, as the search took it).
fn walk_back<G: StateGraph + ?Sized>(
    g: &G,
    component: &IdVec,
    parent: &[u64],
    start: StateId,
    end: StateId,
) -> Walk {
    let mut steps = Vec::new();
    let mut at = end;
    while at != start {
        let from = parent[at as usize];
        let action = g
            .edge_range(from)
            .map(|i| g.edge(i))
            .find(|&(_, t)| t == at)
            .map_or(0, |(a, _)| a);
        steps.push(Step {
            from,
            action,
            to: at,
            critical: is_critical(component, from, at),
        });
        at = from;
    }
    steps.reverse();
    Walk { start, steps }
}

/// The tag of `state`'s hyperstate in `saved`, if the analysis covers the state.
pub fn tag_of_state(saved: &SavedAnalysis, state: StateId) -> Option<Tag> {
    let h = saved.component.get(state)?;
    saved.hyperstates.get(h as usize).map(|info| info.tag)
}

/// The actions of a shortest path from the root (state 0) to `state` in a stored run,
/// without its analysis: the run is breadth-first, so a parent one layer up, found
/// among the in-edges (the smallest such id), is on a shortest path. Empty for the
/// root, or for a state no such parent leads to (a damaged run).
pub fn actions_from_root(run: &store::Run, state: StateId) -> Vec<ActionId> {
    let mut actions = Vec::new();
    let mut at = state;
    while at != 0 && at < run.state_count() {
        let depth = run.depth(at);
        let Some(step) = run
            .in_edges(at)
            .filter(|e| e.source < at && run.depth(e.source) + 1 == depth)
            .min_by_key(|e| e.source)
        else {
            return Vec::new();
        };
        actions.push(step.action);
        at = step.source;
    }
    actions.reverse();
    actions
}

/// The shortest sequence of actions from `from` to `to` in `g`, with the tags of
/// `saved` (its analysis of `g`) and `target` (the outcomes that count as a win).
pub fn path_to<G: StateGraph + ?Sized>(
    g: &G,
    saved: &SavedAnalysis,
    target: &Target,
    from: StateId,
    to: Destination,
) -> Option<Walk> {
    let component = &saved.component;
    match to {
        Destination::Win => {
            let won = |o: OutcomeId| target.contains(o);
            shortest_walk(g, component, from, Goal::Outcome(&won))
        }
        Destination::Fail => {
            let failed = |s: StateId| tag_of_state(saved, s) == Some(Tag::Fail);
            shortest_walk(g, component, from, Goal::State(&failed))
        }
        Destination::Dead => {
            let lost = |s: StateId| tag_of_state(saved, s).is_some_and(Tag::is_lost);
            shortest_walk(g, component, from, Goal::State(&lost))
        }
        Destination::State(goal) => {
            let reached = |s: StateId| s == goal;
            shortest_walk(g, component, from, Goal::State(&reached))
        }
    }
}

/// Why a state is lost: the shortest path from the root (state 0) to it, and the step
/// after which no win was reachable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The shortest path from state 0 to the state.
    pub walk: Walk,
    /// Index in `walk.steps` of the fatal action: the first one whose target lies in a
    /// lost hyperstate (it is always critical, since its source can still win).
    /// `None` when the root itself cannot win.
    pub fatal: Option<usize>,
    /// The tag of the explained state (`fail` or `implicitly_failed`).
    pub tag: Tag,
}

/// The answer of [`explain_loss`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// The state is lost, and this is why.
    Lost(Explanation),
    /// The state is not lost: its hyperstate has this tag (winnable, or unknown on a
    /// partial run).
    NotLost(Tag),
    /// The state is not one the analysis covers.
    NoSuchState,
    /// The root does not reach the state.
    Unreachable,
}

/// Explains why `state` is lost (its hyperstate is `fail` or `implicitly_failed`): the
/// shortest path from the root to it and the first action on that path into a lost
/// hyperstate. Every state after that action is lost too (it is reachable from a lost
/// state), so the action is where the game was decided.
pub fn explain_loss<G: StateGraph + ?Sized>(g: &G, saved: &SavedAnalysis, state: StateId) -> Why {
    let Some(tag) = tag_of_state(saved, state) else {
        return Why::NoSuchState;
    };
    if !tag.is_lost() {
        return Why::NotLost(tag);
    }
    let reached = |s: StateId| s == state;
    let Some(walk) = shortest_walk(g, &saved.component, 0, Goal::State(&reached)) else {
        return Why::Unreachable;
    };
    let root_lost = tag_of_state(saved, 0).is_some_and(Tag::is_lost);
    let fatal = (!root_lost)
        .then(|| {
            walk.steps
                .iter()
                .position(|s| tag_of_state(saved, s.to).is_some_and(Tag::is_lost))
        })
        .flatten();
    Why::Lost(Explanation { walk, fatal, tag })
}

#[cfg(test)]
#[path = "explain_tests.rs"]
mod tests;
