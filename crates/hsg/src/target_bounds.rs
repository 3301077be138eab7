//! The largest target of the rows of each block of states, gathered by the validation's
//! pass over every row ([`crate::graph::validate_bounding`]): a search for the first
//! row with an edge to a given state skips, without reading them, the blocks whose
//! targets all lie below it ([`crate::layered_walk`]). 16 bytes a block of 65,536
//! states (room5: 23,509 blocks, 376 KB).

/// The blocks of states (consecutive, from state 0) and one more than the largest
/// target of each block's rows (0 for a block without an edge).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetBounds {
    /// `ends[k]` is where block `k` ends; block 0 starts at state 0.
    ends: Vec<u64>,
    /// One more than the largest target of block `k`'s rows, 0 when they have none.
    above: Vec<u64>,
}

impl TargetBounds {
    /// Appends a block ending at `end` (after the last one) whose rows' largest target
    /// is `above - 1` (`above` 0: no edge).
    pub(crate) fn push(&mut self, end: u64, above: u64) {
        self.ends.push(end);
        self.above.push(above);
    }

    /// Appends the blocks of `later`, which start where these end.
    pub(crate) fn extend(&mut self, later: TargetBounds) {
        self.ends.extend(later.ends);
        self.above.extend(later.above);
    }

    /// Every block's end and bound, in order.
    #[cfg(test)]
    pub(crate) fn blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ends.iter().copied().zip(self.above.iter().copied())
    }

    /// The first state at or after `from` (and below `end`) whose block may hold an
    /// edge to `to`: the blocks whose targets all lie below `to` are passed over.
    /// `end` when none is left.
    pub(crate) fn skip_below(&self, from: u64, end: u64, to: u64) -> u64 {
        let mut at = from;
        let mut k = self.ends.partition_point(|&e| e <= at);
        while at < end && k < self.ends.len() && self.above[k] <= to {
            at = self.ends[k];
            k += 1;
        }
        at.min(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_below_the_state_are_passed_over() {
        let mut b = TargetBounds::default();
        b.push(4, 3); // targets up to 2
        b.push(8, 0); // no edge
        b.push(12, 10); // targets up to 9
        b.push(16, 5);
        assert_eq!(b.skip_below(0, 16, 5), 8);
        assert_eq!(b.skip_below(2, 16, 9), 8);
        assert_eq!(b.skip_below(0, 16, 2), 0);
        assert_eq!(b.skip_below(9, 16, 9), 9);
        assert_eq!(b.skip_below(12, 16, 9), 16);
        assert_eq!(b.skip_below(0, 6, 9), 6);
        // Past the known blocks nothing is skipped.
        assert_eq!(b.skip_below(16, 20, 0), 16);
    }
}
