//! [`Fling`]: one Fling! board bound to the rules, as a [`Game`].

use model::{Game, Move, OutcomeId, StateWidth, Successors, FAIL, WIN};

use super::board::{action_label, Board, ACTIONS, CELLS, WIDTH};

/// Bytes of a state: the 56-bit mask, little-endian.
const STATE_BYTES: usize = 7;
/// The outcome id of a board with one piece left.
const WIN_OUTCOME: OutcomeId = 0;
/// The outcome id of a board with several pieces and no legal move.
const FAIL_OUTCOME: OutcomeId = 1;

/// A Fling! level as a one-player game.
///
/// # State encoding
///
/// A state is the board's 56-bit mask (bit i = cell y * 7 + x) in 7 bytes,
/// little-endian. Action `cell * 4 + d` flings the piece on `cell` in
/// direction d (0 left, 1 up, 2 right, 3 down); the labels are fixed for
/// every level. A board with one piece is terminal with outcome `win`; a
/// board with several pieces and no legal move is terminal with `fail`.
/// Every move removes a piece, so the state graph is acyclic and each
/// hyperstate is a single state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fling {
    initial: Board,
}

/// The state bytes of `board`.
pub fn encode(board: Board) -> [u8; STATE_BYTES] {
    let bytes = board.mask().to_le_bytes();
    let mut out = [0u8; STATE_BYTES];
    out.copy_from_slice(&bytes[..STATE_BYTES]);
    out
}

/// The board a state encodes, or `None` for bytes that are no state.
pub fn decode(state: &[u8]) -> Option<Board> {
    if state.len() != STATE_BYTES {
        return None;
    }
    let mut bytes = [0u8; 8];
    bytes[..STATE_BYTES].copy_from_slice(state);
    Board::from_mask(u64::from_le_bytes(bytes))
}

impl Fling {
    /// The game starting from `initial`.
    pub fn new(initial: Board) -> Fling {
        Fling { initial }
    }

    /// The starting board.
    pub fn initial(&self) -> Board {
        self.initial
    }
}

impl Game for Fling {
    fn kind(&self) -> &'static str {
        "fling"
    }

    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(STATE_BYTES)
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![encode(self.initial).to_vec()]
    }

    fn action_labels(&self) -> Vec<String> {
        (0..ACTIONS as u16).map(action_label).collect()
    }

    fn outcome_names(&self) -> Vec<String> {
        vec![WIN.to_string(), FAIL.to_string()]
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        let board = decode(state)?;
        if board.pieces() <= 1 {
            Some(WIN_OUTCOME)
        } else if !board.has_move() {
            Some(FAIL_OUTCOME)
        } else {
            None
        }
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        if let Some(board) = decode(state) {
            board.for_each_move(|action, child| out.push(Move::solo(action), &encode(child)));
        }
    }

    fn render(&self, state: &[u8]) -> String {
        match decode(state) {
            Some(board) => board.rows(),
            None => format!("<not a Fling! board: {} bytes>\n", state.len()),
        }
    }

    /// Each cell, named `cell x,y`.
    fn features(&self) -> Vec<String> {
        (0..CELLS)
            .map(|c| format!("cell {},{}", c % WIDTH, c / WIDTH))
            .collect()
    }

    /// Empties the ignored cells.
    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        match decode(state) {
            Some(board) => {
                let cleared = ignored
                    .iter()
                    .filter(|&&c| c < CELLS)
                    .fold(board.mask(), |m, &c| m & !(1u64 << c));
                out.extend_from_slice(&encode(Board::from_mask(cleared).unwrap_or(board)));
            }
            None => out.extend_from_slice(state),
        }
    }
}
