//! Which terminal outcomes an analysis aims for: a named outcome, every score from a
//! threshold up (`score>=N`), or the default the run's outcomes suggest.
//!
//! Games name their outcomes: puzzles have `win`, two-player games outcomes such as
//! `x wins`, scoring games (the Affordance Sandbox) `score 0`, `score 1`, .... A target
//! is a set of outcome ids; the analysis tags hyperstates against that set.

use crate::analysis::Labels;
use crate::error::HsgError;
use crate::graph::{OutcomeId, StateGraph};

/// The prefix of score outcomes, followed by the score in decimal.
pub const SCORE_PREFIX: &str = "score ";

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

/// Resolves `spec` against the run's outcomes. `None` means: `win` when the run has
/// it, else the highest score any terminal state of `g` reached (`score>=BEST`), else
/// the first outcome the game names. `score>=N` selects every score outcome of at
/// least N; any other text must be an outcome's exact name.
pub fn resolve<G: StateGraph + ?Sized>(
    labels: &Labels,
    spec: Option<&str>,
    g: &G,
) -> Result<Target, HsgError> {
    match spec {
        Some(text) => resolve_named(labels, text),
        None => default_target(labels, g),
    }
}

fn resolve_named(labels: &Labels, text: &str) -> Result<Target, HsgError> {
    if let Some(threshold) = text.strip_prefix("score>=") {
        let min: u32 = threshold
            .trim()
            .parse()
            .map_err(|_| unknown(labels, text))?;
        let outcomes = score_outcomes(labels, |s| s >= min);
        if outcomes.is_empty() {
            return Err(unknown(labels, text));
        }
        return Ok(Target {
            name: format!("score>={min}"),
            outcomes,
        });
    }
    let id = position(labels, text).ok_or_else(|| unknown(labels, text))?;
    Ok(Target {
        name: text.to_string(),
        outcomes: vec![id],
    })
}

fn default_target<G: StateGraph + ?Sized>(labels: &Labels, g: &G) -> Result<Target, HsgError> {
    if position(labels, model_win()).is_some() {
        return resolve_named(labels, model_win());
    }
    if labels.outcomes.iter().any(|o| score_of(o).is_some()) {
        let mut best = None;
        g.for_each_terminal(&mut |_, o| {
            let score = labels
                .outcomes
                .get(usize::from(o))
                .and_then(|n| score_of(n));
            best = best.max(score);
        });
        if let Some(best) = best {
            return resolve_named(labels, &format!("score>={best}"));
        }
    }
    match labels.outcomes.first() {
        Some(first) => resolve_named(labels, first),
        None => Err(unknown(labels, model_win())),
    }
}

/// The conventional winning outcome's name.
fn model_win() -> &'static str {
    "win"
}

fn score_outcomes(labels: &Labels, keep: impl Fn(u32) -> bool) -> Vec<OutcomeId> {
    labels
        .outcomes
        .iter()
        .enumerate()
        .filter(|(_, name)| score_of(name).is_some_and(&keep))
        .filter_map(|(i, _)| OutcomeId::try_from(i).ok())
        .collect()
}

fn position(labels: &Labels, name: &str) -> Option<OutcomeId> {
    labels
        .outcomes
        .iter()
        .position(|o| o == name)
        .and_then(|i| OutcomeId::try_from(i).ok())
}

fn unknown(labels: &Labels, name: &str) -> HsgError {
    HsgError::UnknownOutcome {
        name: name.to_string(),
        available: labels.outcomes.clone(),
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
    fn for_each_cut(&self, f: &mut dyn FnMut(u64)) {
        self.inner.for_each_cut(f);
    }
    fn is_cut(&self, state: u64) -> bool {
        self.inner.is_cut(state)
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

    fn labels(outcomes: &[&str]) -> Labels {
        Labels {
            actions: vec!["a".into()],
            outcomes: outcomes.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_default_is_win_then_the_best_score_reached_then_the_first_outcome() {
        let g = MemGraph::new(3, &[(0, 0, 1), (0, 0, 2)], &[(1, 1), (2, 3)]).unwrap();
        let win = labels(&["fail", "win"]);
        assert_eq!(resolve(&win, None, &g).unwrap().outcomes, vec![1]);
        let scores = labels(&["score 0", "score 1", "score 2", "score 3", "score 4"]);
        let t = resolve(&scores, None, &g).unwrap();
        assert_eq!(
            (t.name.as_str(), t.outcomes.clone()),
            ("score>=3", vec![3, 4])
        );
        let duel = labels(&["x wins", "o wins", "draw", "rule error"]);
        assert_eq!(resolve(&duel, None, &g).unwrap().name, "x wins");
    }

    #[test]
    fn thresholds_and_names_resolve_or_name_the_outcomes() {
        let g = MemGraph::new(1, &[], &[]).unwrap();
        let scores = labels(&["score 0", "score 1", "score 2"]);
        assert_eq!(
            resolve(&scores, Some("score>=1"), &g).unwrap().outcomes,
            vec![1, 2]
        );
        assert!(resolve(&scores, Some("score>=9"), &g).is_err());
        assert!(resolve(&scores, Some("win"), &g).is_err());
        assert_eq!(
            resolve(&scores, Some("score 2"), &g).unwrap().outcomes,
            vec![2]
        );
    }
}
