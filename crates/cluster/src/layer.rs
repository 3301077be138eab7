//! A layer being expanded in rounds: the window of a process's rows whose
//! successors are away, the successors it received for later rounds, and
//! where the next round starts (see [`crate::round`]).

use crate::budget::{bytes, nested};
use crate::frontier::Frontier;
use crate::wire::Reader;
use crate::ClusterError;

/// What a process keeps of the parents it expanded while their successors
/// are away: a window of its rows of the layer.
#[derive(Default)]
pub struct Rows {
    /// The place of `actions[0]` among this process's successors of the layer.
    pub base: u64,
    /// Per parent: its id.
    pub parents: Vec<u64>,
    /// Per parent: the place after its last successor.
    pub ends: Vec<u64>,
    /// Per parent: its outcome if terminal.
    pub terminal: Vec<Option<u16>>,
    pub actions: Vec<u16>,
    pub probs: Vec<(u32, u32)>,
    /// Filled in by the answers; `u64::MAX` until then.
    pub targets: Vec<u64>,
}

impl Rows {
    /// The place the next successor takes.
    pub fn next_place(&self) -> u64 {
        self.base + self.actions.len() as u64
    }

    /// Bytes the window occupies.
    pub fn bytes(&self) -> u64 {
        bytes(&self.parents)
            + bytes(&self.ends)
            + bytes(&self.terminal)
            + bytes(&self.actions)
            + bytes(&self.probs)
            + bytes(&self.targets)
    }

    /// How many of the window's parents come before `boundary`.
    pub fn before(&self, boundary: u64) -> usize {
        self.parents.partition_point(|&p| p < boundary)
    }

    /// The place after the first `k` parents' successors.
    pub fn end_of(&self, k: usize) -> u64 {
        k.checked_sub(1).map_or(self.base, |last| self.ends[last])
    }

    /// Records that the successor at `place` is state `id`.
    pub fn fill(&mut self, place: u32, id: u64, r: &Reader) -> Result<(), ClusterError> {
        let at = u64::from(place).checked_sub(self.base);
        match at.and_then(|at| self.targets.get_mut(at as usize)) {
            Some(target) => {
                *target = id;
                Ok(())
            }
            None => Err(r.malformed(format!(
                "an answer for successor {place}, outside this round's"
            ))),
        }
    }

    /// Forgets the first `k` parents, written out.
    pub fn drain(&mut self, k: usize) {
        let cut = (self.end_of(k) - self.base) as usize;
        self.parents.drain(..k);
        self.ends.drain(..k);
        self.terminal.drain(..k);
        self.actions.drain(..cut);
        self.targets.drain(..cut);
        if !self.probs.is_empty() {
            self.probs.drain(..cut);
        }
        self.base += cut as u64;
    }
}

/// A layer being expanded, and what one round leaves to the next.
pub struct LayerWork {
    /// One past the layer's last parent.
    pub end: u64,
    /// The first parent of the next round: every parent before it is done.
    pub from: u64,
    /// New states found by the layer's rounds so far.
    pub found: u64,
    pub frontier: Frontier,
    /// The rows of the parents expanded and not yet written.
    pub rows: Rows,
    /// Per sender: successors received whose round has not come.
    pub held: Vec<Vec<u8>>,
}

impl LayerWork {
    /// The layer of parents `start..end`, this process's read from `frontier`.
    pub fn new(frontier: Frontier, start: u64, end: u64, peers: usize) -> LayerWork {
        LayerWork {
            end,
            from: start,
            found: 0,
            frontier,
            rows: Rows::default(),
            held: vec![Vec::new(); peers],
        }
    }

    /// True once every parent of the layer is done.
    pub fn done(&self) -> bool {
        self.from == self.end
    }

    /// New states the layer found.
    pub fn found(&self) -> u64 {
        self.found
    }

    /// Bytes the round's carried buffers occupy: rows and held successors.
    pub fn resident(&self) -> u64 {
        self.rows.bytes() + nested(&self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_drains_its_first_parents() {
        let mut rows = Rows::default();
        for (id, n) in [(4u64, 2usize), (6, 0), (9, 3)] {
            for _ in 0..n {
                rows.actions.push(id as u16);
                rows.targets.push(u64::MAX);
            }
            rows.parents.push(id);
            rows.terminal.push(None);
            rows.ends.push(rows.next_place());
        }
        assert_eq!(rows.before(9), 2);
        assert_eq!(rows.end_of(2), 2);
        rows.drain(2);
        assert_eq!((rows.base, rows.parents.clone()), (2, vec![9]));
        assert_eq!(rows.actions, vec![9, 9, 9]);
        let r = Reader::new(&[], 0);
        assert!(rows.fill(1, 7, &r).is_err(), "a place already written");
        rows.fill(4, 7, &r).unwrap();
        assert_eq!(rows.targets, vec![u64::MAX, u64::MAX, 7]);
    }
}
