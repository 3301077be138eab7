//! Decision matrices (Definition 8) in canonical form up to relabeling each
//! player's choices (Definition 9), and the removal of redundant choices
//! (Definition 15).
//!
//! A matrix has one axis per active player, in increasing player order, and
//! its cells hold the canonical ids of the subtrees the choices lead to. Its
//! canonical form is the least row-major cell array over every permutation of
//! every axis: the permutations of all axes but the last are tried, and the
//! last axis is then sorted (its columns lexicographically), which gives the
//! least array for that prefix order exactly.

use crate::EquivError;

/// A cell no decision tuple reaches (a matrix that is not a full product).
pub(crate) const ABSENT: u32 = u32::MAX;

/// The most axis relabelings tried to put one matrix in canonical form.
pub(crate) const RELABEL_LIMIT: u64 = 200_000;

/// A decision matrix: the players of its axes, their numbers of choices, and
/// the cells in row-major order (last axis fastest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Matrix {
    pub players: Vec<u8>,
    pub dims: Vec<u32>,
    pub cells: Vec<u32>,
}

impl Matrix {
    /// Reorders the axes so that players increase.
    pub fn sort_axes(self) -> Matrix {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by_key(|&k| self.players[k]);
        if order.iter().enumerate().all(|(i, &k)| i == k) {
            return self;
        }
        let players = order.iter().map(|&k| self.players[k]).collect();
        let (dims, cells) = permute_axes(&self.dims, &self.cells, &order);
        Matrix {
            players,
            dims,
            cells,
        }
    }

    /// The canonical form: axes in player order, choices relabeled to the
    /// least cell array.
    pub fn canonical(self) -> Result<Matrix, EquivError> {
        let m = self.sort_axes();
        match m.dims.len() {
            0 => Ok(m),
            1 => {
                let mut cells = m.cells;
                cells.sort_unstable();
                Ok(Matrix { cells, ..m })
            }
            _ => canonical_multi(m),
        }
    }

    /// Deletes redundant choices (Definition 15, step 1) until none is left,
    /// then drops the axes of players left with a single choice.
    pub fn drop_redundant(&mut self) {
        loop {
            let mut changed = false;
            for axis in 0..self.dims.len() {
                changed |= self.dedup_axis(axis);
            }
            if !changed {
                break;
            }
        }
        let mut k = 0;
        while k < self.dims.len() {
            // Removing an axis of size one leaves the row-major order unchanged.
            if self.dims[k] == 1 {
                self.dims.remove(k);
                self.players.remove(k);
            } else {
                k += 1;
            }
        }
    }

    /// Removes the choices along `axis` whose slices repeat an earlier one.
    fn dedup_axis(&mut self, axis: usize) -> bool {
        let d = self.dims[axis] as usize;
        let outer: usize = self.dims[..axis].iter().map(|&x| x as usize).product();
        let inner: usize = self.dims[axis + 1..].iter().map(|&x| x as usize).product();
        let slice = |i: usize| -> Vec<u32> {
            let mut s = Vec::with_capacity(outer * inner);
            for o in 0..outer {
                let base = (o * d + i) * inner;
                s.extend_from_slice(&self.cells[base..base + inner]);
            }
            s
        };
        let mut seen: Vec<Vec<u32>> = Vec::new();
        let mut kept = Vec::new();
        for i in 0..d {
            let s = slice(i);
            if !seen.contains(&s) {
                seen.push(s);
                kept.push(i);
            }
        }
        if kept.len() == d {
            return false;
        }
        let mut cells = Vec::with_capacity(outer * kept.len() * inner);
        for o in 0..outer {
            for &i in &kept {
                let base = (o * d + i) * inner;
                cells.extend_from_slice(&self.cells[base..base + inner]);
            }
        }
        self.cells = cells;
        self.dims[axis] = kept.len() as u32;
        true
    }
}

/// The cells of a matrix whose axes are reordered: new axis `k` is old axis `order[k]`.
fn permute_axes(dims: &[u32], cells: &[u32], order: &[usize]) -> (Vec<u32>, Vec<u32>) {
    let strides = strides(dims);
    let new_dims: Vec<u32> = order.iter().map(|&k| dims[k]).collect();
    let new_strides: Vec<usize> = order.iter().map(|&k| strides[k]).collect();
    let mut out = Vec::with_capacity(cells.len());
    let mut index = vec![0u32; new_dims.len()];
    for _ in 0..cells.len() {
        let flat: usize = index
            .iter()
            .zip(&new_strides)
            .map(|(&i, &s)| i as usize * s)
            .sum();
        out.push(cells[flat]);
        odometer(&mut index, &new_dims);
    }
    (new_dims, out)
}

fn strides(dims: &[u32]) -> Vec<usize> {
    let mut strides = vec![1usize; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1] as usize;
    }
    strides
}

/// Advances a row-major index; returns false when it wraps to all zeros.
fn odometer(index: &mut [u32], dims: &[u32]) -> bool {
    for k in (0..index.len()).rev() {
        index[k] += 1;
        if index[k] < dims[k] {
            return true;
        }
        index[k] = 0;
    }
    false
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(p: &mut [u32]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        p.reverse();
        return false;
    };
    let pivot = i - 1;
    let Some(j) = (i..p.len()).rev().find(|&j| p[j] > p[pivot]) else {
        return false;
    };
    p.swap(pivot, j);
    p[i..].reverse();
    true
}

fn factorial_product(dims: &[u32]) -> u64 {
    dims.iter()
        .map(|&d| (1..=u64::from(d)).fold(1u64, |a, b| a.saturating_mul(b)))
        .fold(1u64, |a, b| a.saturating_mul(b))
}

fn canonical_multi(m: Matrix) -> Result<Matrix, EquivError> {
    let k = m.dims.len();
    let prefix_dims = &m.dims[..k - 1];
    if factorial_product(prefix_dims) > RELABEL_LIMIT {
        return Err(EquivError::MatrixTooLarge {
            dims: m.dims.clone(),
            limit: RELABEL_LIMIT,
        });
    }
    let last = m.dims[k - 1] as usize;
    let rows: usize = prefix_dims.iter().map(|&d| d as usize).product();
    let prefix_strides = strides(prefix_dims);
    let mut perms: Vec<Vec<u32>> = prefix_dims.iter().map(|&d| (0..d).collect()).collect();
    let mut best: Option<Vec<u32>> = None;
    loop {
        let candidate = sorted_columns(&m.cells, &perms, prefix_dims, &prefix_strides, rows, last);
        best = match best {
            Some(b) if b <= candidate => Some(b),
            _ => Some(candidate),
        };
        if !advance_perms(&mut perms) {
            break;
        }
    }
    Ok(Matrix {
        cells: best.unwrap_or_default(),
        ..m
    })
}

/// Steps an odometer of permutations, one per prefix axis.
fn advance_perms(perms: &mut [Vec<u32>]) -> bool {
    for p in perms.iter_mut().rev() {
        if next_permutation(p) {
            return true;
        }
    }
    false
}

/// The cells with the prefix axes permuted by `perms` and the last axis sorted.
fn sorted_columns(
    cells: &[u32],
    perms: &[Vec<u32>],
    dims: &[u32],
    strides: &[usize],
    rows: usize,
    last: usize,
) -> Vec<u32> {
    let mut row_of = Vec::with_capacity(rows);
    let mut index = vec![0u32; dims.len()];
    for _ in 0..rows {
        let old: usize = index
            .iter()
            .enumerate()
            .map(|(a, &i)| perms[a][i as usize] as usize * strides[a])
            .sum();
        row_of.push(old);
        odometer(&mut index, dims);
    }
    let mut columns: Vec<Vec<u32>> = (0..last)
        .map(|j| row_of.iter().map(|&r| cells[r * last + j]).collect())
        .collect();
    columns.sort_unstable();
    let mut out = Vec::with_capacity(rows * last);
    for r in 0..rows {
        out.extend(columns.iter().map(|c| c[r]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(players: &[u8], dims: &[u32], cells: &[u32]) -> Matrix {
        Matrix {
            players: players.to_vec(),
            dims: dims.to_vec(),
            cells: cells.to_vec(),
        }
    }

    #[test]
    fn relabeled_matrices_share_a_canonical_form() {
        // Rock-paper-scissors: 0 draw, 1 first wins, 2 second wins.
        let rps = m(&[0, 1], &[3, 3], &[0, 2, 1, 1, 0, 2, 2, 1, 0]);
        // The same with the first player's choices reordered and the axes swapped.
        let shuffled = m(&[1, 0], &[3, 3], &[0, 1, 2, 2, 0, 1, 1, 2, 0]);
        assert_eq!(rps.canonical().unwrap(), shuffled.canonical().unwrap());
        let other = m(&[0, 1], &[3, 3], &[0, 2, 1, 1, 0, 2, 2, 0, 1]);
        assert_ne!(
            m(&[0, 1], &[3, 3], &[0, 2, 1, 1, 0, 2, 2, 1, 0])
                .canonical()
                .unwrap(),
            other.canonical().unwrap()
        );
    }

    #[test]
    fn redundant_choices_and_idle_players_are_dropped() {
        // The second player's last two choices give the same column.
        let mut x = m(&[0, 2], &[2, 3], &[5, 6, 6, 7, 8, 8]);
        x.drop_redundant();
        assert_eq!(x, m(&[0, 2], &[2, 2], &[5, 6, 7, 8]));
        let mut y = m(&[0, 1], &[2, 2], &[4, 4, 4, 4]);
        y.drop_redundant();
        assert_eq!(y, m(&[], &[], &[4]));
    }

    /// The least row-major array over every permutation of every axis, by brute force.
    fn brute_force(m: &Matrix) -> Vec<u32> {
        let mut perms: Vec<Vec<u32>> = m.dims.iter().map(|&d| (0..d).collect()).collect();
        let strides = strides(&m.dims);
        let mut best: Option<Vec<u32>> = None;
        loop {
            let mut cells = Vec::with_capacity(m.cells.len());
            let mut index = vec![0u32; m.dims.len()];
            for _ in 0..m.cells.len() {
                let flat: usize = index
                    .iter()
                    .enumerate()
                    .map(|(a, &i)| perms[a][i as usize] as usize * strides[a])
                    .sum();
                cells.push(m.cells[flat]);
                odometer(&mut index, &m.dims);
            }
            best = match best {
                Some(b) if b <= cells => Some(b),
                _ => Some(cells),
            };
            if !advance_perms(&mut perms) {
                return best.unwrap_or_default();
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn canonical_form_is_the_brute_force_minimum(d0 in 1u32..4, d1 in 1u32..4, d2 in 1u32..3, seed in proptest::collection::vec(0u32..4, 36)) {
            let dims = vec![d0, d1, d2];
            let size = (d0 * d1 * d2) as usize;
            let m = Matrix { players: vec![0, 1, 2], dims, cells: seed[..size].to_vec() };
            proptest::prop_assert_eq!(m.clone().canonical().unwrap().cells, brute_force(&m));
        }
    }

    #[test]
    fn axes_permute_like_a_transpose() {
        let (dims, cells) = permute_axes(&[2, 3], &[1, 2, 3, 4, 5, 6], &[1, 0]);
        assert_eq!(dims, vec![3, 2]);
        assert_eq!(cells, vec![1, 4, 2, 5, 3, 6]);
    }
}
