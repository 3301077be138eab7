//! How a weak-equivalence HSG differs from the exact one: its size, the tags of the
//! states, the root's winnability and the outcomes reached, summed up as an impact and
//! a score that ranks features (`docs/metrics.md`, "Weak equivalence").

use super::Quotient;
use crate::analysis::Analysis;
use crate::graph::{Labels, StateGraph};
use crate::paths::UNREACHED;
use crate::tags::Tag;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// States whose tag went from `exact` to `weak`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagChange {
    /// Tag of the state's hyperstate in the exact HSG.
    pub exact: Tag,
    /// Tag of its class's hyperstate in the weak HSG.
    pub weak: Tag,
    /// Number of states.
    pub states: u64,
}

/// The weak HSG against the exact one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeakComparison {
    /// States of the exact SSG.
    pub states: u64,
    /// Vertices of the quotient (classes of states equal after projection).
    pub quotient_states: u64,
    /// `1 - quotient_states / states`.
    pub state_reduction: f64,
    /// Hyperstates of the exact HSG.
    pub exact_hyperstates: u64,
    /// Hyperstates of the weak HSG (not counting the unexplored vertex of a partial run).
    pub hyperstates: u64,
    /// `1 - hyperstates / exact_hyperstates`: how much ignoring the features shrinks
    /// the HSG (never negative: every exact hyperstate maps into one weak hyperstate).
    pub hsg_reduction: f64,
    /// Classes whose members disagree on their outcome.
    pub conflicting_classes: u64,
    /// Classes mixing expanded and open members (partial runs only).
    pub mixed_open_classes: u64,
    /// States whose tag differs between the exact and the weak HSG.
    pub tag_changed_states: u64,
    /// `tag_changed_states / states`.
    pub tag_changed_share: f64,
    /// The non-zero off-diagonal entries of the exact-by-weak tag table.
    pub tag_changes: Vec<TagChange>,
    /// Tag of the root in the exact HSG.
    pub exact_root_tag: Tag,
    /// Tag of the root in the weak HSG.
    pub root_tag: Tag,
    /// Outcomes of the terminal states the exact root reaches, by name.
    pub exact_outcomes_reached: Vec<String>,
    /// Outcomes of the terminal states whose class the weak root reaches.
    pub outcomes_reached: Vec<String>,
    /// How much the projection changes the game, in `[0, 1]`: the largest of the tag
    /// changed share, 1 when the root's winnability changed, and the share of outcomes
    /// reached by one HSG but not the other.
    pub impact: f64,
    /// `hsg_reduction * (1 - impact)`: the share of the HSG removed, discounted by the
    /// share of the game changed; features are ranked by it.
    pub score: f64,
}

/// Compares the weak analysis `weak` of quotient `q` with the exact analysis of `g`.
pub fn compare<G: StateGraph + ?Sized>(
    g: &G,
    exact: &Analysis,
    q: &Quotient,
    weak: &Analysis,
    labels: &Labels,
) -> WeakComparison {
    let states = g.state_count();
    let exact_h = exact.condensation.hyperstate_count();
    // The unexplored vertex of a partial run is a hyperstate of its own, not a state's.
    let weak_h = weak.condensation.hyperstate_count() - u64::from(q.unexplored.is_some());
    let weak_hyperstate = |s: u64| weak.condensation.hyperstate_of(q.class_of.at(s));
    let mut table = [[0u64; 5]; 5];
    for s in 0..states {
        let e = exact.tagging.tag(exact.condensation.hyperstate_of(s));
        let w = weak.tagging.tag(weak_hyperstate(s));
        table[e as usize][w as usize] += 1;
    }
    let tag_changes = off_diagonal(&table);
    let tag_changed_states: u64 = tag_changes.iter().map(|c| c.states).sum();
    let exact_root_tag = exact.tagging.tag(exact.root);
    let root_tag = weak.tagging.tag(weak.root);
    let mut exact_reached = BTreeSet::new();
    let mut weak_reached = BTreeSet::new();
    g.for_each_terminal(&mut |s, o| {
        if exact.depth[exact.condensation.hyperstate_of(s) as usize] != UNREACHED {
            exact_reached.insert(o);
        }
        if weak.depth[weak_hyperstate(s) as usize] != UNREACHED {
            weak_reached.insert(o);
        }
    });
    let names = |set: &BTreeSet<u16>| {
        set.iter()
            .map(|&o| {
                labels
                    .outcomes
                    .get(usize::from(o))
                    .cloned()
                    .unwrap_or_else(|| format!("#{o}"))
            })
            .collect::<Vec<_>>()
    };
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    let hsg_reduction = 1.0 - share(weak_h, exact_h);
    let tag_changed_share = share(tag_changed_states, states);
    let union = exact_reached.union(&weak_reached).count() as u64;
    let differ = exact_reached.symmetric_difference(&weak_reached).count() as u64;
    let root_changed = exact_root_tag.is_winnable() != root_tag.is_winnable();
    let impact = tag_changed_share
        .max(if root_changed { 1.0 } else { 0.0 })
        .max(share(differ, union));
    WeakComparison {
        states,
        quotient_states: q.classes,
        state_reduction: 1.0 - share(q.classes, states),
        exact_hyperstates: exact_h,
        hyperstates: weak_h,
        hsg_reduction,
        conflicting_classes: q.conflicting_classes,
        mixed_open_classes: q.mixed_open_classes,
        tag_changed_states,
        tag_changed_share,
        tag_changes,
        exact_root_tag,
        root_tag,
        exact_outcomes_reached: names(&exact_reached),
        outcomes_reached: names(&weak_reached),
        impact,
        score: hsg_reduction * (1.0 - impact),
    }
}

fn off_diagonal(table: &[[u64; 5]; 5]) -> Vec<TagChange> {
    let mut changes = Vec::new();
    for exact in Tag::ALL {
        for weak in Tag::ALL {
            let states = table[exact as usize][weak as usize];
            if exact != weak && states > 0 {
                changes.push(TagChange {
                    exact,
                    weak,
                    states,
                });
            }
        }
    }
    changes
}

/// One feature's line in the ranking of `hsg features`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureRank {
    /// The feature's name (from `Game::features`).
    pub feature: String,
    /// Its weak HSG against the exact one.
    pub comparison: WeakComparison,
}

/// Orders features so that large compression with small impact comes first: by score
/// (descending), then impact (ascending), then name.
pub fn rank_features(features: &mut [FeatureRank]) {
    features.sort_by(|a, b| {
        let (x, y) = (&a.comparison, &b.comparison);
        y.score
            .total_cmp(&x.score)
            .then(x.impact.total_cmp(&y.impact))
            .then_with(|| a.feature.cmp(&b.feature))
    });
}
