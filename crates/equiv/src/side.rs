//! One side of a comparison: a game tree with the canonical ids of its subtrees in its
//! own DAG and how often each occurs, which both the equivalence test and the search
//! for the first difference read.

use crate::canon::{canonicalize, Canon, Dag, Mode};
use crate::relabel::multiplicities;
use crate::tree::GameTree;
use crate::EquivError;

/// One side of a comparison: the tree and its canonical ids in its own DAG.
pub(crate) struct Side<'t> {
    pub tree: &'t GameTree,
    pub canon: Canon,
    pub dag: Dag,
    pub mult: Vec<u64>,
}

impl<'t> Side<'t> {
    /// Canonicalizes `tree` in the sense of `mode`.
    pub fn new(tree: &'t GameTree, mode: Mode) -> Result<Side<'t>, EquivError> {
        let mut dag = Dag::default();
        let canon = canonicalize(tree, &mut dag, mode)?;
        let mult = multiplicities(&dag, &canon.roots, mode);
        Ok(Side {
            tree,
            canon,
            dag,
            mult,
        })
    }
}
