//! Comparing two game trees: equivalence up to relabeling (Definition 11) or
//! agency equivalence (Definition 3), with a witness or the first difference.

use crate::canon::{Dag, Mode};
use crate::diff::{first_difference, Difference};
use crate::labels::Labels;
use crate::relabel::{candidates, invariants, shape_children, translate, Invariants, Mapping};
use crate::side::Side;
use crate::tree::GameTree;
use crate::EquivError;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The answer of a comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// True when the trees are equivalent in the requested sense.
    pub equivalent: bool,
    /// Which equivalence was decided.
    pub mode: Mode,
    /// The first game's tree.
    pub a: TreeSummary,
    /// The second game's tree.
    pub b: TreeSummary,
    /// The correspondence found, when equivalent.
    pub witness: Option<Witness>,
    /// The first difference found, when not.
    pub difference: Option<Difference>,
}

/// Sizes of one tree.
#[derive(Clone, Debug, Serialize)]
pub struct TreeSummary {
    /// The game's title.
    pub title: String,
    /// Nodes of the game tree (state, chance and terminal).
    pub nodes: u64,
    /// Terminal leaves (complete plays).
    pub terminals: u64,
    /// Nodes of the compared tree: the game tree itself, or the reduced tree in agency mode.
    pub compared_nodes: u64,
    /// Distinct subtrees up to relabeling (the size of the canonical DAG reachable from the roots).
    pub distinct_subtrees: u64,
}

/// A correspondence under which the trees are equivalent.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    /// Player correspondence (Definition 10).
    pub players: Vec<Pair>,
    /// Outcome correspondence (Definition 7).
    pub outcomes: Vec<Pair>,
    /// Corresponding nodes per depth of the compared trees (equal in both).
    pub nodes_per_depth: Vec<u64>,
}

/// One label of A and the label of B it corresponds to.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Pair {
    /// The label in the first game.
    pub a: String,
    /// The label in the second game.
    pub b: String,
}

/// The sizes of one side's tree.
fn summary(side: &Side) -> TreeSummary {
    TreeSummary {
        title: side.tree.labels().title.clone(),
        nodes: side.tree.len() as u64,
        terminals: side.tree.terminal_count(),
        compared_nodes: side.mult.iter().fold(0u64, |a, &m| a.saturating_add(m)),
        distinct_subtrees: side.mult.iter().filter(|&&m| m > 0).count() as u64,
    }
}

/// Decides whether `a` and `b` are equivalent in the sense of `mode`.
pub fn compare(a: &GameTree, b: &GameTree, mode: Mode) -> Result<Comparison, EquivError> {
    let mut side_a = Side::new(a, mode)?;
    let side_b = Side::new(b, mode)?;
    let inv_a = invariants(&side_a.dag, &side_a.mult, a.labels().players);
    let inv_b = invariants(&side_b.dag, &side_b.mult, b.labels().players);
    let options = candidates(&inv_a, &inv_b)?;
    for map in &options {
        let moved = translate(&side_b.dag, &mut side_a.dag, map)?;
        let mut roots_b: Vec<u32> = side_b
            .canon
            .roots
            .iter()
            .map(|&r| moved[r as usize])
            .collect();
        roots_b.sort_unstable();
        if roots_b == side_a.canon.roots {
            let witness = witness(&side_a, map, a.labels(), b.labels(), mode);
            return Ok(Comparison {
                equivalent: true,
                mode,
                a: summary(&side_a),
                b: summary(&side_b),
                witness: Some(witness),
                difference: None,
            });
        }
    }
    let map = options
        .first()
        .cloned()
        .unwrap_or_else(|| fallback(&inv_b, a.labels(), b.labels()));
    let moved = translate(&side_b.dag, &mut side_a.dag, &map)?;
    let mut difference = first_difference(&side_a, &side_b, &moved, &map, mode);
    if options.is_empty() {
        difference.reason = format!(
            "{}; {}",
            no_correspondence(&inv_a, &inv_b, a.labels(), b.labels()),
            difference.reason
        );
    }
    Ok(Comparison {
        equivalent: false,
        mode,
        a: summary(&side_a),
        b: summary(&side_b),
        witness: None,
        difference: Some(difference),
    })
}

fn witness(side_a: &Side, map: &Mapping, la: &Labels, lb: &Labels, mode: Mode) -> Witness {
    let mut players: Vec<Pair> = map
        .players
        .iter()
        .enumerate()
        .map(|(b, &a)| Pair {
            a: Labels::player(a),
            b: Labels::player(b as u8),
        })
        .collect();
    players.sort_by(|x, y| x.a.cmp(&y.a));
    let mut outcomes: Vec<Pair> = map
        .outcomes
        .iter()
        .map(|(&b, &a)| Pair {
            a: la.outcome(a),
            b: lb.outcome(b),
        })
        .collect();
    outcomes.sort_by(|x, y| x.a.cmp(&y.a));
    Witness {
        players,
        outcomes,
        nodes_per_depth: nodes_per_depth(&side_a.dag, &side_a.canon.roots, mode),
    }
}

/// Occurrences of compared-tree nodes per depth, level by level over the DAG.
fn nodes_per_depth(dag: &Dag, roots: &[u32], mode: Mode) -> Vec<u64> {
    let mut level: HashMap<u32, u64> = HashMap::new();
    for &r in roots {
        *level.entry(r).or_insert(0) += 1;
    }
    let mut counts = Vec::new();
    while !level.is_empty() {
        counts.push(level.values().fold(0u64, |a, &m| a.saturating_add(m)));
        let mut next: HashMap<u32, u64> = HashMap::new();
        for (&id, &m) in &level {
            for c in shape_children(dag.shape(id), mode) {
                let e = next.entry(c).or_insert(0);
                *e = e.saturating_add(m);
            }
        }
        level = next;
    }
    counts
}

/// A correspondence to walk the trees with when the invariants allow none:
/// players in order, outcomes by equal name, else in order of their ids.
fn fallback(inv_b: &Invariants, la: &Labels, lb: &Labels) -> Mapping {
    let players = (0..lb.players)
        .map(|p| p.min(la.players.saturating_sub(1)))
        .collect();
    let mut outcomes = BTreeMap::new();
    for (k, &o) in inv_b.outcomes.keys().enumerate() {
        let name = lb.outcome(o);
        let same = la
            .outcomes
            .iter()
            .position(|n| *n == name)
            .map(|i| i as u16);
        outcomes.insert(o, same.unwrap_or(k as u16));
    }
    Mapping { players, outcomes }
}

fn no_correspondence(a: &Invariants, b: &Invariants, la: &Labels, lb: &Labels) -> String {
    if a.players.len() != b.players.len() {
        return format!("{} players against {}", a.players.len(), b.players.len());
    }
    let counts = |inv: &Invariants, l: &Labels| {
        let parts: Vec<String> = inv
            .outcomes
            .iter()
            .map(|(&o, &n)| format!("{} {n}", l.outcome(o)))
            .collect();
        parts.join(", ")
    };
    let (ca, cb) = (counts(a, la), counts(b, lb));
    let sorted = |inv: &Invariants| {
        let mut v: Vec<u64> = inv.outcomes.values().copied().collect();
        v.sort_unstable();
        v
    };
    if sorted(a) != sorted(b) {
        return format!(
            "no outcome correspondence: terminal leaves per outcome are {ca} against {cb}"
        );
    }
    "no player correspondence preserves each player's number of decisions".to_string()
}
