//! A reusable buffer of successor states, filled by [`crate::Game::successors`].
//!
//! Successors are written into one flat byte buffer rather than a vector of
//! vectors: the explorer expands millions of states per second and must not
//! allocate per successor.

use crate::{ActionId, PlayerId, Prob};

/// How a successor was reached: which action, decided by whom, how likely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The action taken.
    pub action: ActionId,
    /// The player who chose it.
    pub player: PlayerId,
    /// Probability of this outcome of the action; one for deterministic games.
    pub prob: Prob,
}

impl Move {
    /// A deterministic move by player 0, as in every one-player puzzle.
    pub fn solo(action: ActionId) -> Move {
        Move {
            action,
            player: 0,
            prob: Prob::ONE,
        }
    }
}

/// The successors of one state: moves and their encoded target states.
#[derive(Clone, Debug, Default)]
pub struct Successors {
    moves: Vec<Move>,
    ends: Vec<u32>,
    bytes: Vec<u8>,
}

impl Successors {
    /// An empty buffer.
    pub fn new() -> Successors {
        Successors::default()
    }

    /// Forgets every successor but keeps the allocations.
    pub fn clear(&mut self) {
        self.moves.clear();
        self.ends.clear();
        self.bytes.clear();
    }

    /// Adds a successor whose encoding is `state`.
    pub fn push(&mut self, mv: Move, state: &[u8]) {
        self.bytes.extend_from_slice(state);
        self.finish(mv);
    }

    /// Adds a successor whose encoding `write` appends to the given buffer;
    /// this avoids a temporary copy of the state.
    pub fn push_with(&mut self, mv: Move, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.bytes);
        self.finish(mv);
    }

    fn finish(&mut self, mv: Move) {
        self.moves.push(mv);
        self.ends.push(self.bytes.len() as u32);
    }

    /// Keeps the first `len` successors (all of them when there are fewer).
    pub fn truncate(&mut self, len: usize) {
        let end = len.checked_sub(1).and_then(|i| self.ends.get(i));
        let end = end.map_or(0, |&e| e as usize);
        if len < self.moves.len() {
            self.moves.truncate(len);
            self.ends.truncate(len);
            self.bytes.truncate(end);
        }
    }

    /// Number of successors.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// True when there is no successor.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The `i`-th successor, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<(Move, &[u8])> {
        let mv = *self.moves.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some((mv, &self.bytes[start..self.ends[i] as usize]))
    }

    /// Every successor in the order the game produced them.
    pub fn iter(&self) -> impl Iterator<Item = (Move, &[u8])> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_boundaries() {
        let mut s = Successors::new();
        s.push(Move::solo(2), &[1, 2, 3]);
        s.push_with(Move::solo(0), |b| b.extend_from_slice(&[9]));
        s.push(Move::solo(1), &[]);
        let all: Vec<_> = s.iter().map(|(m, b)| (m.action, b.to_vec())).collect();
        assert_eq!(all, vec![(2, vec![1, 2, 3]), (0, vec![9]), (1, vec![])]);
        s.clear();
        assert!(s.is_empty());
        assert_eq!(s.get(0), None);
    }

    #[test]
    fn truncate_keeps_the_first_successors_whole() {
        let mut s = Successors::new();
        s.push(Move::solo(2), &[1, 2, 3]);
        s.push(Move::solo(0), &[9]);
        s.truncate(5);
        assert_eq!(s.len(), 2);
        s.truncate(1);
        s.push(Move::solo(4), &[7, 7]);
        let all: Vec<_> = s.iter().map(|(m, b)| (m.action, b.to_vec())).collect();
        assert_eq!(all, vec![(2, vec![1, 2, 3]), (4, vec![7, 7])]);
        s.truncate(0);
        assert!(s.is_empty());
        assert_eq!(s.iter().count(), 0);
    }
}
