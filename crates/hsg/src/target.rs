//! Which terminal outcomes an analysis aims for: a named outcome, every score from a
//! threshold up (`score>=N`), or the default the run's outcomes suggest.
//!
//! Games name their outcomes: puzzles have `win`, two-player games outcomes such as
//! `x wins`, scoring games (the Affordance Sandbox) `score 0`, `score 1`, .... A target
//! is a set of outcome ids; the analysis tags hyperstates against that set.
//!
//! Resolving needs the outcome names only, and for a scoring game's default target the
//! best score reached, which [`best_score`] reads off a graph's terminals.

use crate::error::HsgError;
use crate::graph::{OutcomeId, StateGraph};
use model::{SCORE_PREFIX, WIN};

/// How a threshold target is written: `score>=N`.
const THRESHOLD_PREFIX: &str = "score>=";

/// A resolved target: the outcomes that count as reaching it, and how to name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The target as written in summaries (`win`, `x wins`, `score>=37`).
    pub name: String,
    /// Outcome ids that count, in increasing order; never empty.
    pub outcomes: Vec<OutcomeId>,
}

impl Target {
    /// True when `outcome` counts as reaching the target.
    #[inline]
    pub fn contains(&self, outcome: OutcomeId) -> bool {
        self.outcomes.binary_search(&outcome).is_ok()
    }

    /// The outcome that stands for the whole set (its smallest id).
    pub fn representative(&self) -> OutcomeId {
        self.outcomes[0]
    }
}

/// The score of an outcome named `score N`.
pub fn score_of(name: &str) -> Option<u32> {
    name.strip_prefix(SCORE_PREFIX)?.trim().parse().ok()
}

/// The target spec selecting every score of at least `min` (`score>=N`).
pub fn threshold_spec(min: u32) -> String {
    format!("{THRESHOLD_PREFIX}{min}")
}

/// The highest score any terminal state of `g` reached, when the run's `outcomes` name
/// scores; `None` when they do not, or when no scoring state was reached.
pub fn best_score<G: StateGraph + ?Sized>(outcomes: &[String], g: &G) -> Option<u32> {
    if !outcomes.iter().any(|o| score_of(o).is_some()) {
        return None;
    }
    let mut best = None;
    g.for_each_terminal(&mut |_, o| {
        let score = outcomes.get(usize::from(o)).and_then(|n| score_of(n));
        best = best.max(score);
    });
    best
}

/// Resolves `spec` against the run's outcome names. `None` means: `win` when the run
/// has it, else `score>=best_score` when a scoring state was reached (see
/// [`best_score`]), else the first outcome the game names. `score>=N` selects every
/// score outcome of at least N; any other text must be an outcome's exact name.
pub fn resolve(
    outcomes: &[String],
    spec: Option<&str>,
    best_score: Option<u32>,
) -> Result<Target, HsgError> {
    match spec {
        Some(text) => resolve_named(outcomes, text),
        None => default_target(outcomes, best_score),
    }
}

/// The id standing for the target `spec` names among `outcomes` (see [`resolve`];
/// without a best score reached, a scoring game's default is its first outcome).
pub fn resolve_target(outcomes: &[String], spec: Option<&str>) -> Result<OutcomeId, HsgError> {
    resolve(outcomes, spec, None).map(|t| t.representative())
}

fn resolve_named(outcomes: &[String], text: &str) -> Result<Target, HsgError> {
    if let Some(threshold) = text.strip_prefix(THRESHOLD_PREFIX) {
        let min: u32 = threshold
            .trim()
            .parse()
            .map_err(|_| unknown(outcomes, text))?;
        let ids = score_outcomes(outcomes, |s| s >= min);
        if ids.is_empty() {
            return Err(unknown(outcomes, text));
        }
        return Ok(Target {
            name: threshold_spec(min),
            outcomes: ids,
        });
    }
    let id = position(outcomes, text).ok_or_else(|| unknown(outcomes, text))?;
    Ok(Target {
        name: text.to_string(),
        outcomes: vec![id],
    })
}

fn default_target(outcomes: &[String], best_score: Option<u32>) -> Result<Target, HsgError> {
    if position(outcomes, WIN).is_some() {
        return resolve_named(outcomes, WIN);
    }
    if let Some(best) = best_score {
        if outcomes.iter().any(|o| score_of(o).is_some()) {
            return resolve_named(outcomes, &threshold_spec(best));
        }
    }
    match outcomes.first() {
        Some(first) => resolve_named(outcomes, first),
        None => Err(unknown(outcomes, WIN)),
    }
}

fn score_outcomes(outcomes: &[String], keep: impl Fn(u32) -> bool) -> Vec<OutcomeId> {
    outcomes
        .iter()
        .enumerate()
        .filter(|(_, name)| score_of(name).is_some_and(&keep))
        .filter_map(|(i, _)| OutcomeId::try_from(i).ok())
        .collect()
}

fn position(outcomes: &[String], name: &str) -> Option<OutcomeId> {
    outcomes
        .iter()
        .position(|o| o == name)
        .and_then(|i| OutcomeId::try_from(i).ok())
}

fn unknown(outcomes: &[String], name: &str) -> HsgError {
    HsgError::UnknownOutcome {
        name: name.to_string(),
        available: outcomes.to_vec(),
    }
}

/// A graph whose target outcomes all read as the target's representative, so that
/// the analysis, which compares outcomes with one id, sees a set of outcomes as one.
pub struct TargetView<'g, G: ?Sized> {
    /// The graph seen through the view.
    pub inner: &'g G,
    /// The target whose outcomes are merged.
    pub target: &'g Target,
}

impl<G: StateGraph + ?Sized> StateGraph for TargetView<'_, G> {
    fn state_count(&self) -> u64 {
        self.inner.state_count()
    }
    fn expanded_count(&self) -> u64 {
        self.inner.expanded_count()
    }
    fn edge_count(&self) -> u64 {
        self.inner.edge_count()
    }
    fn edge_range(&self, state: u64) -> std::ops::Range<u64> {
        self.inner.edge_range(state)
    }
    fn edge(&self, index: u64) -> (crate::graph::ActionId, u64) {
        self.inner.edge(index)
    }
    fn outcome(&self, state: u64) -> Option<OutcomeId> {
        self.inner.outcome(state).map(|o| self.merge(o))
    }
    fn for_each_terminal(&self, f: &mut dyn FnMut(u64, OutcomeId)) {
        self.inner
            .for_each_terminal(&mut |s, o| f(s, self.merge(o)));
    }
    fn prefetch_row(&self, state: u64) {
        self.inner.prefetch_row(state);
    }
    fn prefetch_edge(&self, index: u64) {
        self.inner.prefetch_edge(index);
    }
    fn layer_starts(&self) -> Option<&[u64]> {
        self.inner.layer_starts()
    }
    fn for_each_cut(&self, f: &mut dyn FnMut(u64)) {
        self.inner.for_each_cut(f);
    }
    fn is_cut(&self, state: u64) -> bool {
        self.inner.is_cut(state)
    }
    fn will_read(&self, states: std::ops::Range<u64>, edges: bool) {
        self.inner.will_read(states, edges);
    }
    fn verify_rows(&self, states: std::ops::Range<u64>) -> Result<(), crate::error::HsgError> {
        self.inner.verify_rows(states)
    }
    fn finish_verification(&self) -> Result<(), crate::error::HsgError> {
        self.inner.finish_verification()
    }
}

impl<G: ?Sized> TargetView<'_, G> {
    #[inline]
    fn merge(&self, o: OutcomeId) -> OutcomeId {
        if self.target.contains(o) {
            self.target.representative()
        } else {
            o
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemGraph;

    fn names(outcomes: &[&str]) -> Vec<String> {
        outcomes.iter().map(|s| s.to_string()).collect()
    }

    /// Resolves as the analysis does, with the best score `g` reached.
    fn resolve_on(
        outcomes: &[String],
        spec: Option<&str>,
        g: &MemGraph,
    ) -> Result<Target, HsgError> {
        resolve(outcomes, spec, best_score(outcomes, g))
    }

    #[test]
    fn the_default_is_win_then_the_best_score_reached_then_the_first_outcome() {
        let g = MemGraph::new(3, &[(0, 0, 1), (0, 0, 2)], &[(1, 1), (2, 3)]).unwrap();
        let win = names(&["fail", "win"]);
        assert_eq!(resolve_on(&win, None, &g).unwrap().outcomes, vec![1]);
        let scores = names(&["score 0", "score 1", "score 2", "score 3", "score 4"]);
        let t = resolve_on(&scores, None, &g).unwrap();
        assert_eq!(
            (t.name.as_str(), t.outcomes.clone()),
            ("score>=3", vec![3, 4])
        );
        let duel = names(&["x wins", "o wins", "draw", "rule error"]);
        assert_eq!(resolve_on(&duel, None, &g).unwrap().name, "x wins");
    }

    #[test]
    fn thresholds_and_names_resolve_or_name_the_outcomes() {
        let g = MemGraph::new(1, &[], &[]).unwrap();
        let scores = names(&["score 0", "score 1", "score 2"]);
        assert_eq!(
            resolve_on(&scores, Some("score>=1"), &g).unwrap().outcomes,
            vec![1, 2]
        );
        assert!(resolve_on(&scores, Some("score>=9"), &g).is_err());
        assert!(resolve_on(&scores, Some("win"), &g).is_err());
        assert_eq!(
            resolve_on(&scores, Some("score 2"), &g).unwrap().outcomes,
            vec![2]
        );
    }

    #[test]
    fn names_alone_resolve_a_target_without_a_graph() {
        let scores = names(&["score 0", "score 1", "score 2"]);
        assert_eq!(resolve_target(&scores, Some("score>=1")).unwrap(), 1);
        assert_eq!(resolve_target(&scores, None).unwrap(), 0);
        assert_eq!(resolve(&scores, None, Some(2)).unwrap().name, "score>=2");
        assert_eq!(resolve_target(&names(&["fail", "win"]), None).unwrap(), 1);
        assert!(resolve_target(&[], None).is_err());
    }
}
