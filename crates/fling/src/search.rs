//! Direct, table-free search from one board: every board reachable from it,
//! layer by layer (each move removes a piece, so layer i holds the boards
//! with i pieces fewer), solved backwards from the last layer; and the size
//! of the search pruned by move commutation. Iterative throughout.

use games::fling::{action_parts, Board};
use std::collections::{HashMap, HashSet};

/// Every board reachable from a start board, by layer.
#[derive(Clone, Debug)]
pub struct Space {
    /// `layers[i]`: the distinct boards reached after i moves, sorted.
    pub layers: Vec<Vec<Board>>,
}

impl Space {
    /// Explores every board reachable from `start`.
    pub fn explore(start: Board) -> Space {
        let mut layers = vec![vec![start]];
        loop {
            let mut next = Vec::new();
            for board in layers.last().into_iter().flatten() {
                board.for_each_move(|_, child| next.push(child));
            }
            if next.is_empty() {
                return Space { layers };
            }
            next.sort_unstable();
            next.dedup();
            layers.push(next);
        }
    }

    /// How many distinct boards a plain breadth-first search from the start visits.
    pub fn size(&self) -> usize {
        self.layers.iter().map(Vec::len).sum()
    }

    /// (solvable, uniquely solvable) of every board of the space.
    pub fn solve(&self) -> HashMap<Board, (bool, bool)> {
        let mut status: HashMap<Board, (bool, bool)> = HashMap::with_capacity(self.size());
        for layer in self.layers.iter().rev() {
            for &board in layer {
                let value = classify_with(board, |child| {
                    status.get(&child).copied().unwrap_or_default()
                });
                status.insert(board, value);
            }
        }
        status
    }
}

/// True when some sequence of moves from `start` leaves one piece: a
/// depth-first search that stops at the first solution and never expands
/// a board twice (much cheaper than [`Space::solve`] for solvable boards).
pub fn solvable(start: Board) -> bool {
    let mut seen: HashSet<Board> = HashSet::new();
    let mut stack = vec![start];
    while let Some(board) = stack.pop() {
        if board.pieces() == 1 {
            return true;
        }
        board.for_each_move(|_, child| {
            if seen.insert(child) {
                stack.push(child);
            }
        });
    }
    false
}

/// (solvable, uniquely solvable) of `board` given the status of its children.
pub fn classify_with(board: Board, child_status: impl Fn(Board) -> (bool, bool)) -> (bool, bool) {
    if board.pieces() <= 1 {
        return (board.pieces() == 1, board.pieces() == 1);
    }
    let (mut any_move, mut solving, mut unique_child) = (false, 0u32, false);
    board.for_each_move(|_, child| {
        any_move = true;
        let (s, u) = child_status(child);
        if s {
            solving += 1;
            unique_child = u;
        }
    });
    let unique = if board.pieces() == 2 {
        any_move
    } else {
        solving == 1 && unique_child
    };
    (solving > 0, unique)
}

/// True when flinging `other` in `parent` and then `last` gives the same board
/// as `last` then `other` (`child` = `parent` after `last`): the two moves commute.
fn commutes(parent: Board, last: u16, child: Board, other: u16) -> bool {
    let (Some((lc, ld)), Some((oc, od))) = (action_parts(last), action_parts(other)) else {
        return false;
    };
    let first_other = parent.apply(oc, od).and_then(|b| b.apply(lc, ld));
    first_other.is_some() && first_other == child.apply(oc, od)
}

/// The number of distinct boards the search pruned by move commutation
/// visits from `start`: expanding a board reached by move m from its parent,
/// a move also legal in the parent is skipped when it commutes with m. A
/// board reached along several kept moves is expanded with each of them, so
/// a move is kept when some way of reaching the board keeps it.
pub fn pruned_size(start: Board) -> usize {
    // Each board of the current layer with the (parent, move) pairs that reached it.
    let mut layer: Vec<(Board, Vec<(Board, u16)>)> = vec![(start, Vec::new())];
    let mut size = 0;
    while !layer.is_empty() {
        size += layer.len();
        let mut next: HashMap<Board, Vec<(Board, u16)>> = HashMap::new();
        for (board, reached) in &layer {
            board.for_each_move(|action, child| {
                let kept = reached.is_empty()
                    || reached
                        .iter()
                        .any(|&(parent, last)| !commutes(parent, last, *board, action));
                if kept {
                    next.entry(child).or_default().push((*board, action));
                }
            });
        }
        let mut sorted: Vec<(Board, Vec<(Board, u16)>)> = next.into_iter().collect();
        sorted.sort_unstable_by_key(|(b, _)| *b);
        layer = sorted;
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;
    use games::fling::Direction;

    fn board(cells: &[usize]) -> Board {
        Board::from_mask(cells.iter().fold(0, |m, &c| m | 1 << c)).unwrap()
    }

    #[test]
    fn two_pieces_with_a_move_are_unique_and_a_dead_end_is_not_solvable() {
        let pair = board(&[0, 2]);
        assert_eq!(Space::explore(pair).solve()[&pair], (true, true));
        // Every move of this board leaves two pieces on no common line.
        let dead = board(&[0, 2, 16]);
        let space = Space::explore(dead);
        assert_eq!(space.solve()[&dead], (false, false));
        assert_eq!(space.layers.len(), 2);
        assert!(solvable(pair) && !solvable(dead));
    }

    #[test]
    fn independent_moves_are_pruned() {
        // Two independent pairs: each pair's move commutes with the other's.
        let start = board(&[0, 3, 49, 52]);
        let plain = Space::explore(start).size();
        let pruned = pruned_size(start);
        assert!(pruned < plain, "{pruned} vs {plain}");
        let (a, b) = (
            start.apply(0, Direction::Right).unwrap(),
            start.apply(49, Direction::Right).unwrap(),
        );
        assert!(commutes(
            start,
            games::fling::action_id(0, Direction::Right),
            a,
            games::fling::action_id(49, Direction::Right)
        ));
        assert_ne!(a, b);
    }
}
