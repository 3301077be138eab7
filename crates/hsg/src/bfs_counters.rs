//! PuzzleGraph's own counters of a breadth-first exploration (Explored All, Found
//! States, Goal States, Goal Path, Longest Path and the "stuck" states that cannot reach
//! a goal), computed from any stored run and its analysis, so that users of PuzzleGraph
//! can compare its figures with ours. Nothing here knows a game: a goal state is a
//! terminal state with the target outcome.

use crate::graph::{OutcomeId, StateId};
use crate::persist::SavedAnalysis;
use serde::{Deserialize, Serialize};

/// The counters PuzzleGraph shows after its search.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BfsCounters {
    /// The run is complete and no state was left unexpanded (no depth or state cap cut it).
    pub explored_all: bool,
    /// States found, expanded or not.
    pub found_states: u64,
    /// States whose outcome is the target outcome.
    pub goal_states: u64,
    /// Shallowest BFS depth of a goal state; `None` when no goal was found.
    pub goal_path: Option<u32>,
    /// Deepest BFS depth of any found state.
    pub longest_path: u32,
    /// States that cannot reach a goal (members of `fail` and `implicitly_failed`
    /// hyperstates); `None` without an analysis or while the analysis is provisional.
    pub cannot_reach_goal: Option<u64>,
}

/// What the counters are computed from, independent of where it is stored.
pub struct BfsFacts<'a> {
    /// True when the run finished (status complete).
    pub complete: bool,
    /// States found.
    pub states: u64,
    /// States with id below this were expanded (terminal ones included).
    pub expanded: u64,
    /// First state id of each BFS depth.
    pub layers: &'a [u64],
    /// The outcomes that count as a goal (one for `win`, several for `score>=N`); empty
    /// when the run declares none of them.
    pub target: &'a [OutcomeId],
    /// States that cannot reach a goal, when known.
    pub lost: Option<u64>,
}

/// The BFS depth of `id` under `layers` (first id of each depth).
fn depth_of(layers: &[u64], id: StateId) -> u32 {
    (layers.partition_point(|&start| start <= id).max(1) - 1) as u32
}

/// Computes the counters from `facts` and the run's terminal states, in id order.
pub fn counters_from(
    facts: &BfsFacts,
    terminals: impl Iterator<Item = (StateId, OutcomeId)>,
) -> BfsCounters {
    let mut goal_states = 0;
    let mut goal_path: Option<u32> = None;
    let mut open = facts.states.saturating_sub(facts.expanded);
    for (id, outcome) in terminals {
        if id >= facts.expanded {
            // A terminal state needs no expansion.
            open = open.saturating_sub(1);
        }
        if facts.target.contains(&outcome) {
            goal_states += 1;
            let depth = depth_of(facts.layers, id);
            goal_path = Some(goal_path.map_or(depth, |d| d.min(depth)));
        }
    }
    let longest_path = match facts.states {
        0 => 0,
        n => depth_of(facts.layers, n - 1),
    };
    BfsCounters {
        explored_all: facts.complete && open == 0,
        found_states: facts.states,
        goal_states,
        goal_path,
        longest_path,
        cannot_reach_goal: facts.lost,
    }
}

/// States in `fail` and `implicitly_failed` hyperstates of a saved analysis; `None`
/// when the analysis is provisional (more exploration could still reach a goal).
pub fn lost_states(saved: &SavedAnalysis) -> Option<u64> {
    if saved.summary.provisional {
        return None;
    }
    let sizes = saved.member_offsets.windows(2).map(|w| w[1] - w[0]);
    Some(
        saved
            .hyperstates
            .iter()
            .zip(sizes)
            .filter(|(h, _)| h.tag.is_lost())
            .map(|(_, size)| size)
            .sum(),
    )
}

/// The counters of a stored run for the target named `target` (an outcome's name or
/// `score>=N`, as the analysis summary names it), with the stuck states taken from
/// `saved` when an analysis is at hand.
///
/// Regression: the target was looked up as one outcome name, so a scoring game's
/// `score>=N` target matched none and PuzzleGraph's counters said `goal states 0`
/// beside win hyperstates.
pub fn bfs_counters(run: &store::Run, target: &str, saved: Option<&SavedAnalysis>) -> BfsCounters {
    let names = &run.identity().outcome_names;
    let goals = crate::target::resolve(names, Some(target), None)
        .map(|t| t.outcomes)
        .unwrap_or_default();
    let facts = BfsFacts {
        complete: run.status() == store::RunStatus::Complete,
        states: run.state_count(),
        expanded: run.expanded_count(),
        layers: run.layers(),
        target: &goals,
        lost: saved.and_then(lost_states),
    };
    counters_from(&facts, run.terminals())
}

/// The counters as a Markdown section, PuzzleGraph's names first.
pub fn counters_markdown(c: &BfsCounters) -> String {
    let optional = |v: Option<String>, none: &str| v.unwrap_or_else(|| none.to_string());
    format!(
        "## PuzzleGraph counters\n\n| | |\n|---|---|\n| explored all | {} |\n\
         | found states | {} |\n| goal states | {} |\n| goal path | {} |\n\
         | longest path | {} |\n| states that cannot reach a goal | {} |\n",
        if c.explored_all { "yes" } else { "no" },
        c.found_states,
        c.goal_states,
        optional(c.goal_path.map(|d| d.to_string()), "no goal found"),
        c.longest_path,
        optional(c.cannot_reach_goal.map(|n| n.to_string()), "unknown"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::{labels, sample};
    use crate::analysis::{analyze_graph, AnalyzeOptions};
    use crate::summary::Source;

    fn facts(layers: &[u64], states: u64, expanded: u64, lost: Option<u64>) -> BfsFacts<'_> {
        BfsFacts {
            complete: true,
            states,
            expanded,
            layers,
            target: &[0],
            lost,
        }
    }

    #[test]
    fn counts_goals_depths_and_completeness() {
        // Depth 0: {0}, depth 1: {1, 2}, depth 2: {3, 4, 5}; goals 2 and 5, a loss at 4.
        let layers = [0, 1, 3];
        let terminals = [(2, 0), (4, 1), (5, 0)];
        let c = counters_from(&facts(&layers, 6, 6, Some(1)), terminals.into_iter());
        assert_eq!(
            c,
            BfsCounters {
                explored_all: true,
                found_states: 6,
                goal_states: 2,
                goal_path: Some(1),
                longest_path: 2,
                cannot_reach_goal: Some(1),
            }
        );
    }

    #[test]
    fn a_target_of_several_outcomes_counts_each_as_a_goal() {
        // `score>=2` over outcomes 0..3 = score 1, score 2, score 3: goals 4 and 5.
        let layers = [0, 1, 3];
        let terminals = [(2, 0), (4, 1), (5, 2)];
        let mut f = facts(&layers, 6, 6, None);
        f.target = &[1, 2];
        let c = counters_from(&f, terminals.into_iter());
        assert_eq!((c.goal_states, c.goal_path), (2, Some(2)));
    }

    #[test]
    fn unexpanded_non_terminal_states_mean_not_explored_all() {
        let layers = [0, 1, 3];
        // States 3 to 5 were never expanded; only 5 is terminal.
        let c = counters_from(&facts(&layers, 6, 3, None), [(5, 0)].into_iter());
        assert!(!c.explored_all);
        assert_eq!((c.goal_path, c.cannot_reach_goal), (Some(2), None));
        // When every unexpanded state is terminal, nothing was cut.
        let c = counters_from(&facts(&layers, 6, 5, None), [(5, 0)].into_iter());
        assert!(c.explored_all);
        let empty = counters_from(&facts(&[], 0, 0, None), std::iter::empty());
        assert_eq!((empty.longest_path, empty.goal_path), (0, None));
    }

    #[test]
    fn lost_states_sum_fail_and_implicitly_failed_members() {
        // The sample's lost states: the loss 5 and the sink cycle {6, 7}.
        let a = analyze_graph(
            &sample(),
            &labels(),
            &AnalyzeOptions::default(),
            Source::default(),
        )
        .expect("analysis");
        let saved = SavedAnalysis::from_analysis(&a);
        assert_eq!(lost_states(&saved), Some(3));
        let mut provisional = saved;
        provisional.summary.provisional = true;
        assert_eq!(lost_states(&provisional), None);
    }
}
