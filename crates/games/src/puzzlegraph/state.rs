//! The compact, fixed-width state encoding of a PuzzleGraph puzzle.
//!
//! A state is the booleans of the dynamic elements, bit-packed (bit `i` of byte
//! `i / 8` is element `i`), then the node of every player in increasing order,
//! then the node of every ball in increasing order, each node index in one byte
//! (puzzles of up to 255 nodes, keeping 255 free for projections) or two
//! (little-endian). Players are interchangeable, and so are balls: sorting makes
//! two states that differ only by which player stands where encode to the same
//! bytes.

use super::puzzle::Puzzle;

/// The byte layout of the states of one puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of packed booleans.
    pub flag_bytes: usize,
    /// Bytes per node index (1 or 2).
    pub index_bytes: usize,
    /// Number of players.
    pub players: usize,
    /// Number of balls.
    pub balls: usize,
}

impl Layout {
    /// The layout for `puzzle`.
    pub fn of(puzzle: &Puzzle) -> Layout {
        Layout {
            flag_bytes: puzzle.dynamic.len().div_ceil(8),
            index_bytes: if puzzle.nodes.len() < 256 { 1 } else { 2 },
            players: puzzle.players.len(),
            balls: puzzle.balls.len(),
        }
    }

    /// Bytes the item part and flags take, before padding.
    fn content_width(self) -> usize {
        self.flag_bytes + (self.players + self.balls) * self.index_bytes
    }

    /// Bytes of every state; at least one so that no state is empty.
    pub fn width(self) -> usize {
        self.content_width().max(1)
    }

    /// Byte offset of the players' nodes.
    pub fn players_offset(self) -> usize {
        self.flag_bytes
    }

    /// Byte offset of the balls' nodes.
    pub fn balls_offset(self) -> usize {
        self.flag_bytes + self.players * self.index_bytes
    }
}

/// A decoded state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Packed booleans of the dynamic elements.
    pub flags: Vec<u8>,
    /// Node of every player, sorted.
    pub players: Vec<u16>,
    /// Node of every ball, sorted.
    pub balls: Vec<u16>,
}

impl State {
    /// The initial state of `puzzle`: every element at its initial value, items at
    /// their start nodes. Triggers are not updated before the first move, as in
    /// PuzzleGraph.
    pub fn initial(puzzle: &Puzzle) -> State {
        let mut state = State {
            flags: vec![0; Layout::of(puzzle).flag_bytes],
            players: puzzle.players.iter().map(|&n| n as u16).collect(),
            balls: puzzle.balls.iter().map(|&n| n as u16).collect(),
        };
        for (bit, d) in puzzle.dynamic.iter().enumerate() {
            state.set(bit, d.initial);
        }
        state.normalize();
        state
    }

    /// The value of dynamic element `bit` (false for an index out of range).
    pub fn get(&self, bit: usize) -> bool {
        self.flags
            .get(bit / 8)
            .is_some_and(|byte| byte & (1 << (bit % 8)) != 0)
    }

    /// Sets dynamic element `bit`.
    pub fn set(&mut self, bit: usize, value: bool) {
        if let Some(byte) = self.flags.get_mut(bit / 8) {
            let mask = 1u8 << (bit % 8);
            if value {
                *byte |= mask;
            } else {
                *byte &= !mask;
            }
        }
    }

    /// Flips dynamic element `bit`.
    pub fn flip(&mut self, bit: usize) {
        let value = self.get(bit);
        self.set(bit, !value);
    }

    /// True when a ball lies on node `n`.
    pub fn has_ball(&self, n: usize) -> bool {
        self.balls.binary_search(&(n as u16)).is_ok()
    }

    /// True when a player stands on node `n`.
    pub fn has_player(&self, n: usize) -> bool {
        self.players.binary_search(&(n as u16)).is_ok()
    }

    /// Restores the sorted order of the items after a move.
    pub fn normalize(&mut self) {
        self.players.sort_unstable();
        self.balls.sort_unstable();
    }

    /// Appends the encoding of this state to `out`.
    pub fn encode(&self, layout: Layout, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.flags);
        for &n in self.players.iter().chain(&self.balls) {
            out.extend_from_slice(&n.to_le_bytes()[..layout.index_bytes]);
        }
        if out.len() == start {
            out.push(0);
        }
    }

    /// The state encoded by `bytes`, or `None` when they do not fit `layout`
    /// or name a node that does not exist.
    pub fn decode(layout: Layout, nodes: usize, bytes: &[u8]) -> Option<State> {
        if bytes.len() != layout.width() {
            return None;
        }
        let flags = bytes.get(..layout.flag_bytes)?.to_vec();
        let read = |offset: usize, count: usize| -> Option<Vec<u16>> {
            (0..count)
                .map(|i| {
                    let at = offset + i * layout.index_bytes;
                    let lo = u16::from(*bytes.get(at)?);
                    let hi = if layout.index_bytes == 2 {
                        u16::from(*bytes.get(at + 1)?)
                    } else {
                        0
                    };
                    let n = lo | hi << 8;
                    (usize::from(n) < nodes).then_some(n)
                })
                .collect()
        };
        Some(State {
            flags,
            players: read(layout.players_offset(), layout.players)?,
            balls: read(layout.balls_offset(), layout.balls)?,
        })
    }
}
