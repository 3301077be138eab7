//! The combinatorial number system on the 56 cells: a k-piece board's rank
//! is sum over its cells c_1 < ... < c_k of C(c_i, i), which numbers the
//! C(56, k) boards densely from 0 in colexicographic order. Enumerating
//! boards in rank order is then Gosper's next-combination step, so the
//! tables never rank the boards they compute, only their children.

use games::fling::CELLS;

/// The largest piece count ranked (C(56, k) fits easily in u64 for all k).
pub const MAX_PIECES: usize = CELLS;

/// `BINOMIAL[k][n]` = C(n, k) for n, k in 0..=56.
static BINOMIAL: [[u64; CELLS + 1]; CELLS + 1] = build_binomials();

const fn build_binomials() -> [[u64; CELLS + 1]; CELLS + 1] {
    let mut table = [[0u64; CELLS + 1]; CELLS + 1];
    let mut n = 0;
    while n <= CELLS {
        table[0][n] = 1;
        let mut k = 1;
        while k <= n {
            table[k][n] = table[k - 1][n - 1] + if k < n { table[k][n - 1] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
}

/// C(n, k); zero when k > n or either exceeds 56.
pub fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL
        .get(k)
        .and_then(|row| row.get(n))
        .copied()
        .unwrap_or(0)
}

/// How many boards hold exactly `pieces` pieces: C(56, pieces).
pub fn boards(pieces: usize) -> u64 {
    binomial(CELLS, pieces)
}

/// The rank of a board mask among the boards with as many pieces.
#[inline]
pub fn rank(mask: u64) -> u64 {
    let mut rest = mask;
    let mut rank = 0;
    let mut row = BINOMIAL[1..].iter();
    while rest != 0 {
        let cell = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if let Some(binomials) = row.next() {
            rank += binomials[cell];
        }
    }
    rank
}

/// The mask of the board of `pieces` pieces with rank `rank`, or `None` when
/// the rank is not below C(56, pieces).
pub fn unrank(rank: u64, pieces: usize) -> Option<u64> {
    if pieces > CELLS || rank >= boards(pieces) {
        return None;
    }
    let mut rest = rank;
    let mut mask = 0u64;
    let mut limit = CELLS;
    for i in (1..=pieces).rev() {
        // The largest cell c below the previous one with C(c, i) <= rest.
        let cell = (i - 1..limit).rev().find(|&c| BINOMIAL[i][c] <= rest)?;
        rest -= BINOMIAL[i][cell];
        mask |= 1 << cell;
        limit = cell;
    }
    Some(mask)
}

/// The next mask with as many bits in colexicographic order (rank + 1);
/// past the last board of a piece count it returns a mask beyond 56 cells.
#[inline]
pub fn next_combination(mask: u64) -> u64 {
    let lowest = mask & mask.wrapping_neg();
    let ripple = mask.wrapping_add(lowest);
    let ones = ((ripple ^ mask) >> 2) >> lowest.trailing_zeros();
    ripple | ones
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_match_the_seed() {
        assert_eq!(boards(8), 1_420_494_075);
        assert_eq!(boards(11), 148_902_215_280);
        assert_eq!(boards(0), 1);
        assert_eq!(boards(57), 0);
    }

    #[test]
    fn enumeration_in_rank_order_is_gosper() {
        let mut mask = unrank(0, 3).unwrap();
        assert_eq!(mask, 0b111);
        for r in 0..boards(3) {
            assert_eq!(rank(mask), r);
            assert_eq!(unrank(r, 3), Some(mask));
            mask = next_combination(mask);
        }
        assert_eq!(unrank(boards(3), 3), None);
    }

    proptest! {
        #[test]
        fn rank_and_unrank_are_inverse(mask in 0u64..(1 << 56)) {
            let pieces = mask.count_ones() as usize;
            let r = rank(mask);
            prop_assert!(r < boards(pieces));
            prop_assert_eq!(unrank(r, pieces), Some(mask));
            let next = next_combination(mask);
            if mask != 0 && next >> 56 == 0 {
                prop_assert_eq!(rank(next), r + 1);
            }
        }
    }
}
