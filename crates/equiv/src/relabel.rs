//! Player and outcome correspondences between two trees (Definitions 7 and 10):
//! candidates narrowed by invariants of the canonical DAGs, and the translation
//! of one tree's DAG into the other's labels under a candidate.

use crate::canon::{Dag, Mode, Shape};
use crate::matrix::{Matrix, ABSENT};
use crate::EquivError;
use std::collections::BTreeMap;

/// The most correspondences a comparison tries.
pub(crate) const CORRESPONDENCE_LIMIT: u128 = 100_000;

/// A correspondence from B's labels to A's: `players[b] = a`, `outcomes[b] = a`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mapping {
    pub players: Vec<u8>,
    pub outcomes: BTreeMap<u16, u16>,
}

/// The children of a shape as edges of its tree: every cell in a plain tree,
/// every distinct cell in a reduced one (merged edges carry several tuples).
pub(crate) fn shape_children(shape: &Shape, mode: Mode) -> Vec<u32> {
    match shape {
        Shape::Terminal(_) | Shape::Cut => Vec::new(),
        Shape::Chance(pairs) => pairs.iter().map(|p| p.0).collect(),
        Shape::Choice { cells, .. } => {
            let mut c: Vec<u32> = cells.iter().copied().filter(|&x| x != ABSENT).collect();
            if mode == Mode::Agency {
                c.sort_unstable();
                c.dedup();
            }
            c
        }
    }
}

/// How many times each DAG id occurs in the tree grown from `roots`
/// (wrapping arithmetic: the counts serve as invariants and for sizes that fit).
pub(crate) fn multiplicities(dag: &Dag, roots: &[u32], mode: Mode) -> Vec<u64> {
    let mut mult = vec![0u64; dag.len()];
    for &r in roots {
        mult[r as usize] = mult[r as usize].wrapping_add(1);
    }
    // Children always have smaller ids than their parents (interned first).
    for id in (0..dag.len()).rev() {
        let m = mult[id];
        if m == 0 {
            continue;
        }
        for c in shape_children(dag.shape(id as u32), mode) {
            mult[c as usize] = mult[c as usize].wrapping_add(m);
        }
    }
    mult
}

/// Invariants of each player (decisions alone, decisions shared, choices
/// offered) and of each outcome (terminal occurrences), weighted by occurrence.
pub(crate) struct Invariants {
    pub players: Vec<[u64; 3]>,
    pub outcomes: BTreeMap<u16, u64>,
}

pub(crate) fn invariants(dag: &Dag, mult: &[u64], players: u8) -> Invariants {
    let mut inv = Invariants {
        players: vec![[0; 3]; usize::from(players)],
        outcomes: BTreeMap::new(),
    };
    for (id, &m) in mult.iter().enumerate() {
        if m == 0 {
            continue;
        }
        match dag.shape(id as u32) {
            Shape::Terminal(o) => {
                let e = inv.outcomes.entry(*o).or_insert(0);
                *e = e.wrapping_add(m);
            }
            Shape::Choice {
                players: ps, dims, ..
            } => {
                for (k, &p) in ps.iter().enumerate() {
                    if let Some(v) = inv.players.get_mut(usize::from(p)) {
                        let slot = usize::from(ps.len() > 1);
                        v[slot] = v[slot].wrapping_add(m);
                        v[2] = v[2].wrapping_add(m.wrapping_mul(u64::from(dims[k])));
                    }
                }
            }
            Shape::Chance(_) | Shape::Cut => {}
        }
    }
    inv
}

/// Every correspondence that respects the invariants, or an error when there
/// are too many to try. Empty when the invariants rule every one out.
pub(crate) fn candidates(a: &Invariants, b: &Invariants) -> Result<Vec<Mapping>, EquivError> {
    if a.players.len() != b.players.len() || a.outcomes.len() != b.outcomes.len() {
        return Ok(Vec::new());
    }
    let a_players: Vec<(u64, [u64; 3])> = a
        .players
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, *v))
        .collect();
    let b_players: Vec<(u64, [u64; 3])> = b
        .players
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, *v))
        .collect();
    let a_outcomes: Vec<(u64, u64)> = a
        .outcomes
        .iter()
        .map(|(&o, &c)| (u64::from(o), c))
        .collect();
    let b_outcomes: Vec<(u64, u64)> = b
        .outcomes
        .iter()
        .map(|(&o, &c)| (u64::from(o), c))
        .collect();
    let (Some(player_maps), Some(outcome_maps)) = (
        bijections(&b_players, &a_players)?,
        bijections(&b_outcomes, &a_outcomes)?,
    ) else {
        return Ok(Vec::new());
    };
    let count = player_maps.len() as u128 * outcome_maps.len() as u128;
    if count > CORRESPONDENCE_LIMIT {
        return Err(EquivError::TooManyCorrespondences {
            count,
            limit: CORRESPONDENCE_LIMIT,
        });
    }
    let mut out = Vec::new();
    for pm in &player_maps {
        for om in &outcome_maps {
            out.push(Mapping {
                players: pm.iter().map(|&(_, a)| a as u8).collect(),
                outcomes: om.iter().map(|&(b, a)| (b as u16, a as u16)).collect(),
            });
        }
    }
    Ok(out)
}

/// Bijections, each a list of (from item, to item) pairs.
type Bijections = Vec<Vec<(u64, u64)>>;

/// Every bijection from `from` to `to` pairing only items with equal keys, as
/// (from item, to item) lists in `from` order; `None` when the key classes
/// differ in size.
fn bijections<K: Ord + Copy>(
    from: &[(u64, K)],
    to: &[(u64, K)],
) -> Result<Option<Bijections>, EquivError> {
    let mut classes: BTreeMap<K, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
    for &(x, k) in from {
        classes.entry(k).or_default().0.push(x);
    }
    for &(y, k) in to {
        classes.entry(k).or_default().1.push(y);
    }
    let mut total: u128 = 1;
    for (xs, ys) in classes.values() {
        if xs.len() != ys.len() {
            return Ok(None);
        }
        total = total.saturating_mul((1..=xs.len() as u128).product());
    }
    if total > CORRESPONDENCE_LIMIT {
        return Err(EquivError::TooManyCorrespondences {
            count: total,
            limit: CORRESPONDENCE_LIMIT,
        });
    }
    let mut result: Bijections = vec![Vec::new()];
    for (xs, ys) in classes.values() {
        let mut next = Vec::new();
        for perm in permutations(ys) {
            for partial in &result {
                let mut m = partial.clone();
                m.extend(xs.iter().copied().zip(perm.iter().copied()));
                next.push(m);
            }
        }
        result = next;
    }
    for m in &mut result {
        m.sort_unstable();
    }
    Ok(Some(result))
}

/// All orderings of `items` (Heap's algorithm, iterative).
fn permutations(items: &[u64]) -> Vec<Vec<u64>> {
    let mut a = items.to_vec();
    let mut out = vec![a.clone()];
    let mut c = vec![0usize; a.len()];
    let mut i = 0;
    while i < a.len() {
        if c[i] < i {
            let j = if i % 2 == 0 { 0 } else { c[i] };
            a.swap(j, i);
            out.push(a.clone());
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
}

/// Interns every shape of `from` into `into` with labels translated by `map`;
/// returns the new id of each of `from`'s ids.
pub(crate) fn translate(from: &Dag, into: &mut Dag, map: &Mapping) -> Result<Vec<u32>, EquivError> {
    let mut ids: Vec<u32> = Vec::with_capacity(from.len());
    let id_of = |ids: &[u32], c: u32| if c == ABSENT { ABSENT } else { ids[c as usize] };
    for k in 0..from.len() {
        let shape = match from.shape(k as u32) {
            Shape::Terminal(o) => {
                Shape::Terminal(map.outcomes.get(o).copied().unwrap_or(u16::MAX - 1))
            }
            Shape::Cut => Shape::Cut,
            Shape::Chance(pairs) => {
                let mut p: Vec<_> = pairs.iter().map(|&(c, r)| (id_of(&ids, c), r)).collect();
                p.sort_unstable();
                Shape::Chance(p)
            }
            Shape::Choice {
                players,
                dims,
                cells,
            } => {
                let m = Matrix {
                    players: players
                        .iter()
                        .map(|&p| map.players.get(usize::from(p)).copied().unwrap_or(p))
                        .collect(),
                    dims: dims.clone(),
                    cells: cells.iter().map(|&c| id_of(&ids, c)).collect(),
                }
                .canonical()?;
                Shape::Choice {
                    players: m.players,
                    dims: m.dims,
                    cells: m.cells,
                }
            }
        };
        ids.push(into.intern(shape));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_distinct() {
        let mut p = permutations(&[1, 2, 3, 4]);
        assert_eq!(p.len(), 24);
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 24);
    }

    #[test]
    fn bijections_respect_key_classes() {
        let from = [(0, 'a'), (1, 'b'), (2, 'b')];
        let to = [(5, 'b'), (6, 'a'), (7, 'b')];
        let all = bijections(&from, &to).unwrap().unwrap();
        assert_eq!(all.len(), 2);
        assert!(all.iter().all(|m| m.contains(&(0, 6))));
        assert_eq!(
            bijections(&from, &[(5, 'a'), (6, 'a'), (7, 'b')]).unwrap(),
            None
        );
    }
}
