//! The first difference between two trees that are not equivalent: a walk
//! from the roots that follows, at each node, a child subtree of A that has no
//! equivalent among B's children, down to a node whose own shape differs.

use crate::canon::{Dag, Mode, Shape};
use crate::labels::Labels;
use crate::relabel::{shape_children, Mapping};
use crate::side::Side;
use crate::Ratio;
use serde::Serialize;
use std::collections::HashMap;

/// Where the trees first differ.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// What differs.
    pub reason: String,
    /// Action labels from A's root to the differing node.
    pub path_a: Vec<String>,
    /// Action labels from B's root to the corresponding node.
    pub path_b: Vec<String>,
}

/// What a node is, without its children: kind, outcome, probabilities, matrix size.
#[derive(PartialEq, Eq)]
enum Local {
    Terminal(u16),
    Cut,
    Chance(Vec<Ratio>),
    Choice(Vec<u8>, Vec<u32>),
}

fn local(shape: &Shape) -> Local {
    match shape {
        Shape::Terminal(o) => Local::Terminal(*o),
        Shape::Cut => Local::Cut,
        Shape::Chance(pairs) => {
            let mut p: Vec<Ratio> = pairs.iter().map(|x| x.1).collect();
            p.sort_unstable();
            Local::Chance(p)
        }
        Shape::Choice { players, dims, .. } => {
            let mut d = dims.clone();
            d.sort_unstable();
            Local::Choice(players.clone(), d)
        }
    }
}

/// Names players and outcomes of A-space shapes in one side's own labels.
struct Namer<'l> {
    labels: &'l Labels,
    players: HashMap<u8, u8>,
    outcomes: HashMap<u16, u16>,
}

impl Namer<'_> {
    fn describe(&self, shape: &Shape) -> String {
        let player = |p: u8| Labels::player(self.players.get(&p).copied().unwrap_or(p));
        match shape {
            Shape::Terminal(o) => format!(
                "terminal, outcome `{}`",
                self.labels
                    .outcome(self.outcomes.get(o).copied().unwrap_or(*o))
            ),
            Shape::Cut => "a leaf cut by the depth limit".to_string(),
            Shape::Chance(pairs) => {
                let probs: Vec<String> = pairs.iter().map(|p| p.1.to_string()).collect();
                format!(
                    "a chance node with {} outcomes ({})",
                    pairs.len(),
                    probs.join(", ")
                )
            }
            Shape::Choice { players, dims, .. } => match players.as_slice() {
                [] => "a single forced move".to_string(),
                [p] => format!(
                    "{} chooses among {}",
                    player(*p),
                    dims.first().copied().unwrap_or(0)
                ),
                ps => {
                    let who: Vec<String> = ps.iter().map(|&p| player(p)).collect();
                    let size: Vec<String> = dims.iter().map(u32::to_string).collect();
                    format!(
                        "{} decide simultaneously ({} matrix)",
                        who.join(" and "),
                        size.join("x")
                    )
                }
            },
        }
    }
}

/// Where the walk stopped: the pair of nodes and why.
struct Stop {
    reason: String,
    a: Option<u32>,
    b: Option<u32>,
}

/// Walks A and B (B's ids already moved into A's DAG) to the first difference.
pub(crate) fn first_difference(
    a: &Side,
    b: &Side,
    moved: &[u32],
    map: &Mapping,
    mode: Mode,
) -> Difference {
    let namer_a = Namer {
        labels: a.tree.labels(),
        players: HashMap::new(),
        outcomes: HashMap::new(),
    };
    let namer_b = Namer {
        labels: b.tree.labels(),
        players: map
            .players
            .iter()
            .enumerate()
            .map(|(b, &a)| (a, b as u8))
            .collect(),
        outcomes: map.outcomes.iter().map(|(&b, &a)| (a, b)).collect(),
    };
    let stop = match mode {
        Mode::Tree => walk_trees(a, b, moved, &namer_a, &namer_b),
        Mode::Agency => walk_reduced(a, b, moved, &namer_a, &namer_b),
    };
    Difference {
        reason: stop.reason,
        path_a: stop.a.map(|n| a.tree.path_to(n)).unwrap_or_default(),
        path_b: stop.b.map(|n| b.tree.path_to(n)).unwrap_or_default(),
    }
}

/// Pairs the items of `xs` and `ys` with equal ids; returns the first item of
/// `xs` left without a partner and every item of `ys` left over, in order.
fn first_unmatched<T: Copy>(xs: &[(u32, T)], ys: &[(u32, T)]) -> (Option<T>, Vec<T>) {
    let count = |items: &[(u32, T)]| {
        let mut n: HashMap<u32, usize> = HashMap::new();
        for (id, _) in items {
            *n.entry(*id).or_insert(0) += 1;
        }
        n
    };
    let leftover = |items: &[(u32, T)], mut other: HashMap<u32, usize>| {
        let mut out = Vec::new();
        for &(id, item) in items {
            match other.get_mut(&id) {
                Some(n) if *n > 0 => *n -= 1,
                _ => out.push(item),
            }
        }
        out
    };
    let first = leftover(xs, count(ys)).first().copied();
    (first, leftover(ys, count(xs)))
}

fn walk_trees(a: &Side, b: &Side, moved: &[u32], na: &Namer, nb: &Namer) -> Stop {
    let id_a = |n: u32| a.canon.ids[n as usize];
    let id_b = |n: u32| moved[b.canon.ids[n as usize] as usize];
    let roots_a: Vec<(u32, u32)> = a.tree.roots().map(|r| (id_a(r), r)).collect();
    let roots_b: Vec<(u32, u32)> = b.tree.roots().map(|r| (id_b(r), r)).collect();
    let (Some(mut x), rest_b) = first_unmatched(&roots_a, &roots_b) else {
        return Stop {
            reason: "no structural difference under the correspondence tried".to_string(),
            a: None,
            b: None,
        };
    };
    let Some(mut y) = rest_b.first().copied() else {
        return Stop {
            reason: format!("{} initial states against {}", roots_a.len(), roots_b.len()),
            a: None,
            b: None,
        };
    };
    let dag: &Dag = &a.dag;
    loop {
        let (sa, sb) = (dag.shape(id_a(x)), dag.shape(id_b(y)));
        if local(sa) != local(sb) {
            let reason = format!("A: {}; B: {}", na.describe(sa), nb.describe(sb));
            return Stop {
                reason,
                a: Some(x),
                b: Some(y),
            };
        }
        let kids_a: Vec<(u32, u32)> = a.tree.children(x).map(|c| (id_a(c), c)).collect();
        let kids_b: Vec<(u32, u32)> = b.tree.children(y).map(|c| (id_b(c), c)).collect();
        let (next_a, rest_b) = first_unmatched(&kids_a, &kids_b);
        let Some(next_a) = next_a else {
            let reason = format!(
                "same subtrees below, arranged in different decision matrices ({})",
                na.describe(sa)
            );
            return Stop {
                reason,
                a: Some(x),
                b: Some(y),
            };
        };
        let label = a.tree.edge_label(next_a);
        let partner = rest_b
            .iter()
            .copied()
            .find(|&c| b.tree.edge_label(c) == label)
            .or_else(|| rest_b.first().copied());
        let Some(next_b) = partner else {
            return Stop {
                reason: "B lacks a subtree that A has".to_string(),
                a: Some(next_a),
                b: Some(y),
            };
        };
        (x, y) = (next_a, next_b);
    }
}

fn walk_reduced(a: &Side, b: &Side, moved: &[u32], na: &Namer, nb: &Namer) -> Stop {
    let back: HashMap<u32, u32> = moved
        .iter()
        .enumerate()
        .map(|(k, &v)| (v, k as u32))
        .collect();
    let example_a = |u: u32| {
        a.canon
            .example
            .get(u as usize)
            .copied()
            .filter(|&n| n != u32::MAX)
    };
    let example_b = |v: u32| {
        back.get(&v)
            .and_then(|&k| b.canon.example.get(k as usize).copied())
            .filter(|&n| n != u32::MAX)
    };
    let roots_a: Vec<(u32, u32)> = a.canon.roots.iter().map(|&r| (r, r)).collect();
    let roots_b: Vec<(u32, u32)> = b
        .canon
        .roots
        .iter()
        .map(|&r| (moved[r as usize], moved[r as usize]))
        .collect();
    let (Some(mut u), rest) = first_unmatched(&roots_a, &roots_b) else {
        return Stop {
            reason: "no difference in the reduced trees under the correspondence tried".to_string(),
            a: None,
            b: None,
        };
    };
    let Some(mut v) = rest.first().copied() else {
        return Stop {
            reason: format!("{} initial states against {}", roots_a.len(), roots_b.len()),
            a: None,
            b: None,
        };
    };
    let dag = &a.dag;
    let mut depth = 0;
    loop {
        let (su, sv) = (dag.shape(u), dag.shape(v));
        let stop = |reason: String| {
            Stop {
            reason: format!("{reason} (reduced trees, depth {depth}; paths lead to nodes with these reduced subtrees)"),
            a: example_a(u),
            b: example_b(v),
        }
        };
        if local(su) != local(sv) {
            return stop(format!("A: {}; B: {}", na.describe(su), nb.describe(sv)));
        }
        let kids_a: Vec<(u32, u32)> = shape_children(su, Mode::Agency)
            .into_iter()
            .map(|c| (c, c))
            .collect();
        let kids_b: Vec<(u32, u32)> = shape_children(sv, Mode::Agency)
            .into_iter()
            .map(|c| (c, c))
            .collect();
        let (next, rest) = first_unmatched(&kids_a, &kids_b);
        match (next, rest.first()) {
            (Some(n), Some(&m)) => (u, v, depth) = (n, m, depth + 1),
            _ => {
                return stop(format!(
                    "same reduced subtrees below, arranged differently ({})",
                    na.describe(su)
                ))
            }
        }
    }
}
