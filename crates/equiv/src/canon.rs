//! Canonical forms of subtrees, computed bottom-up over the arena and interned
//! in a hash-consing table keyed by xxh3 (AHU-style tree canonization).
//!
//! Two subtrees get the same id exactly when they are equivalent up to
//! relabeling of decisions (Definitions 4 to 11) with identical players and
//! outcomes: the table compares whole shapes on a hash hit, so a hash
//! collision can never make two different subtrees equal. In agency mode the
//! four reductions of Definitions 12 to 15 are applied while the ids are
//! formed, so the ids are those of the reduced tree.

use crate::matrix::{Matrix, ABSENT};
use crate::tree::{GameTree, NodeKind};
use crate::{EquivError, Ratio};
use serde::Serialize;
use std::collections::HashMap;
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

/// Which equivalence a comparison decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Game tree equivalence up to relabeling (Definition 11).
    Tree,
    /// Agency equivalence (Definition 3): the same after the four reductions.
    Agency,
}

/// The canonical shape of a subtree, its children named by their ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    /// A terminal node and its outcome.
    Terminal(u16),
    /// A leaf cut by a depth limit.
    Cut,
    /// A chance node: (child, probability) pairs, sorted.
    Chance(Vec<(u32, Ratio)>),
    /// A state node's decision matrix in canonical form (players with a single
    /// choice left out; no player at all for a single edge).
    Choice {
        players: Vec<u8>,
        dims: Vec<u32>,
        cells: Vec<u32>,
    },
}

/// The interning table: every distinct canonical shape once, children before parents.
#[derive(Default)]
pub(crate) struct Dag {
    shapes: Vec<Shape>,
    index: HashMap<Shape, u32, Xxh3DefaultBuilder>,
}

impl Dag {
    /// The id of `shape`, added if new.
    pub fn intern(&mut self, shape: Shape) -> u32 {
        if let Some(&id) = self.index.get(&shape) {
            return id;
        }
        let id = self.shapes.len() as u32;
        self.shapes.push(shape.clone());
        self.index.insert(shape, id);
        id
    }

    /// The shape of `id`.
    pub fn shape(&self, id: u32) -> &Shape {
        &self.shapes[id as usize]
    }

    /// Number of distinct shapes.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }
}

/// A tree's canonical ids: one per arena node, the sorted root ids, and one
/// arena node showing each id (for messages).
pub(crate) struct Canon {
    pub ids: Vec<u32>,
    pub roots: Vec<u32>,
    pub example: Vec<u32>,
}

/// Computes the canonical id of every node of `tree`, bottom-up.
pub(crate) fn canonicalize(
    tree: &GameTree,
    dag: &mut Dag,
    mode: Mode,
) -> Result<Canon, EquivError> {
    let n = tree.len();
    let mut ids = vec![0u32; n];
    let mut example = Vec::new();
    for node in (0..n as u32).rev() {
        let id = match (tree.kind(node), mode) {
            (NodeKind::Terminal, _) => dag.intern(Shape::Terminal(tree.outcome[node as usize])),
            (NodeKind::Cut, _) => dag.intern(Shape::Cut),
            (NodeKind::Chance, Mode::Tree) => chance_tree(tree, node, &ids, dag),
            (NodeKind::Chance, Mode::Agency) => chance_reduced(tree, node, &ids, dag)?,
            (NodeKind::State, Mode::Tree) => {
                let m = state_matrix(tree, node, &ids)?.canonical()?;
                dag.intern(choice(m))
            }
            (NodeKind::State, Mode::Agency) => state_reduced(tree, node, &ids, dag)?,
        };
        ids[node as usize] = id;
        if example.len() <= id as usize {
            example.resize(id as usize + 1, u32::MAX);
        }
        if example[id as usize] == u32::MAX {
            example[id as usize] = node;
        }
    }
    let mut roots: Vec<u32> = tree.roots().map(|r| ids[r as usize]).collect();
    roots.sort_unstable();
    Ok(Canon {
        ids,
        roots,
        example,
    })
}

fn choice(m: Matrix) -> Shape {
    Shape::Choice {
        players: m.players,
        dims: m.dims,
        cells: m.cells,
    }
}

fn chance_tree(tree: &GameTree, node: u32, ids: &[u32], dag: &mut Dag) -> u32 {
    let mut pairs: Vec<(u32, Ratio)> = tree
        .children(node)
        .map(|c| (ids[c as usize], tree.incoming_prob(c)))
        .collect();
    pairs.sort_unstable();
    dag.intern(Shape::Chance(pairs))
}

/// A chance node after bookkeeping (chained draws multiply out) and symmetry
/// (equal outcomes add up) reductions; a certain draw disappears.
fn chance_reduced(
    tree: &GameTree,
    node: u32,
    ids: &[u32],
    dag: &mut Dag,
) -> Result<u32, EquivError> {
    let mut pairs: Vec<(u32, Ratio)> = Vec::new();
    for c in tree.children(node) {
        let (id, p) = (ids[c as usize], tree.incoming_prob(c));
        match dag.shape(id) {
            Shape::Chance(inner) => {
                for &(g, q) in inner {
                    pairs.push((g, p.checked_mul(q)?));
                }
            }
            _ => pairs.push((id, p)),
        }
    }
    let merged = merge_probabilities(pairs)?;
    if let [(only, _)] = merged.as_slice() {
        return Ok(*only);
    }
    Ok(dag.intern(Shape::Chance(merged)))
}

/// Sorts (child, probability) pairs by child and adds up the probabilities of equal children.
pub(crate) fn merge_probabilities(
    mut pairs: Vec<(u32, Ratio)>,
) -> Result<Vec<(u32, Ratio)>, EquivError> {
    pairs.sort_unstable();
    let mut merged: Vec<(u32, Ratio)> = Vec::with_capacity(pairs.len());
    for (id, p) in pairs {
        match merged.last_mut() {
            Some(last) if last.0 == id => last.1 = last.1.checked_add(p)?,
            _ => merged.push((id, p)),
        }
    }
    Ok(merged)
}

/// A state node after the reductions: redundant choices removed, a single
/// remaining edge collapsed into its child (bookkeeping), and a single player's
/// deterministic chain of choices flattened into one choice.
fn state_reduced(
    tree: &GameTree,
    node: u32,
    ids: &[u32],
    dag: &mut Dag,
) -> Result<u32, EquivError> {
    let mut m = state_matrix(tree, node, ids)?;
    m.drop_redundant();
    match m.players.as_slice() {
        [] => Ok(m.cells.first().copied().unwrap_or(ABSENT)),
        [p] => {
            let p = *p;
            let mut leaves = Vec::with_capacity(m.cells.len());
            for &c in &m.cells {
                match dag.shape(c) {
                    Shape::Choice { players, cells, .. } if players.as_slice() == [p] => {
                        leaves.extend_from_slice(cells);
                    }
                    _ => leaves.push(c),
                }
            }
            leaves.sort_unstable();
            leaves.dedup();
            if let [only] = leaves.as_slice() {
                return Ok(*only);
            }
            let dims = vec![leaves.len() as u32];
            Ok(dag.intern(Shape::Choice {
                players: vec![p],
                dims,
                cells: leaves,
            }))
        }
        _ => Ok(dag.intern(choice(m.canonical()?))),
    }
}

/// The decision matrix of a state node over the players with two or more
/// choices, cells holding the children's ids.
fn state_matrix(tree: &GameTree, node: u32, ids: &[u32]) -> Result<Matrix, EquivError> {
    let labels = tree.labels();
    let children = tree.children(node);
    let mut players = Vec::new();
    let mut choices: Vec<Vec<u64>> = Vec::new();
    let mut index: Vec<Vec<u32>> = Vec::new();
    for p in 0..labels.players {
        let mut distinct: Vec<u64> = Vec::new();
        let mut of_child = Vec::with_capacity(children.len());
        for c in children.clone() {
            let key = labels.choice(tree.action[c as usize], tree.player[c as usize], p);
            let at = distinct.iter().position(|&k| k == key).unwrap_or_else(|| {
                distinct.push(key);
                distinct.len() - 1
            });
            of_child.push(at as u32);
        }
        if distinct.len() >= 2 {
            players.push(p);
            choices.push(distinct);
            index.push(of_child);
        }
    }
    let dims: Vec<u32> = choices.iter().map(|c| c.len() as u32).collect();
    let size: usize = dims.iter().map(|&d| d as usize).product();
    let mut cells = vec![ABSENT; size];
    let mut filled_by = vec![u32::MAX; size];
    for (k, c) in children.enumerate() {
        let flat = index.iter().zip(&dims).fold(0usize, |acc, (of_child, &d)| {
            acc * d as usize + of_child[k] as usize
        });
        if filled_by[flat] != u32::MAX {
            return Err(duplicate(tree, node, filled_by[flat], c));
        }
        filled_by[flat] = c;
        cells[flat] = ids[c as usize];
    }
    Ok(Matrix {
        players,
        dims,
        cells,
    })
}

fn duplicate(tree: &GameTree, node: u32, first: u32, second: u32) -> EquivError {
    let labels = tree.labels();
    EquivError::DuplicateDecision {
        game: labels.title.clone(),
        first: labels.action(tree.action[first as usize]),
        second: labels.action(tree.action[second as usize]),
        state: format!("{:?} (path {:?})", tree.state(node), tree.path_to(node)),
    }
}
