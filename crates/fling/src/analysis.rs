//! Analysis of one board: solvability and uniqueness, the moves that lead
//! to a solution, the plain and commutation-pruned search sizes and their
//! ratio, the canonical form, and the single-cell edits that keep it
//! solvable. Tables answer when they cover a piece count; otherwise a
//! direct search does.

use crate::lookup::Tables;
use crate::search::{pruned_size, solvable, Space};
use games::fling::{Board, CELLS};
use std::collections::HashMap;

/// A single-cell change of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The cell changed.
    pub cell: usize,
    /// True when a piece is added there, false when one is removed.
    pub add: bool,
}

/// Everything `hsg fling board` reports about a board.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The board analysed.
    pub board: Board,
    /// True when some sequence of moves leaves one piece.
    pub solvable: bool,
    /// True when it is uniquely solvable (see the spec).
    pub unique: bool,
    /// Legal moves, by action id.
    pub moves: Vec<u16>,
    /// The legal moves that lead to a solvable board.
    pub solving_moves: Vec<u16>,
    /// Boards a plain breadth-first search visits.
    pub plain_size: usize,
    /// Boards the search pruned by move commutation visits.
    pub pruned_size: usize,
    /// The board's canonical form under the mirror symmetries.
    pub canonical: Board,
    /// The single-cell edits after which the board is still solvable.
    pub solvable_edits: Vec<Edit>,
}

impl Analysis {
    /// Plain search size over pruned search size (the seed's expert-versus-novice measure).
    pub fn ratio(&self) -> f64 {
        self.plain_size as f64 / self.pruned_size.max(1) as f64
    }
}

/// (solvable, uniquely solvable) of `board`, from the tables when they cover its piece count.
pub fn status(board: Board, tables: Option<&Tables>) -> (bool, bool) {
    tables.and_then(|t| t.status(board)).unwrap_or_else(|| {
        Space::explore(board)
            .solve()
            .get(&board)
            .copied()
            .unwrap_or_default()
    })
}

/// True when `board` is solvable, from the tables when they cover its piece count.
pub fn is_solvable(board: Board, tables: Option<&Tables>) -> bool {
    match tables.and_then(|t| t.solvable(board)) {
        Some(s) => s,
        None => solvable(board),
    }
}

/// Analyses `board`, using `tables` where they cover a piece count.
pub fn analyze(board: Board, tables: Option<&Tables>) -> Analysis {
    let space = Space::explore(board);
    let solved: HashMap<Board, (bool, bool)> = space.solve();
    let lookup = |b: Board| {
        tables
            .and_then(|t| t.status(b))
            .or_else(|| solved.get(&b).copied())
            .unwrap_or_default()
    };
    let (solvable, unique) = lookup(board);
    let (mut moves, mut solving_moves) = (Vec::new(), Vec::new());
    board.for_each_move(|action, child| {
        moves.push(action);
        if lookup(child).0 {
            solving_moves.push(action);
        }
    });
    let solvable_edits = (0..CELLS)
        .map(|cell| (cell, board.toggled(cell)))
        .filter(|(_, edited)| edited.pieces() > 0 && is_solvable(*edited, tables))
        .map(|(cell, _)| Edit {
            cell,
            add: !board.occupied(cell),
        })
        .collect();
    Analysis {
        board,
        solvable,
        unique,
        moves,
        solving_moves,
        plain_size: space.size(),
        pruned_size: pruned_size(board),
        canonical: board.canonical(),
        solvable_edits,
    }
}
