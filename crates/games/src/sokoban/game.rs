//! [`Sokoban`]: one checked level bound to the rules, as a [`Game`].

use model::{Game, OutcomeId, StateWidth, Successors, FAIL, WIN};

use super::board::{build_board, Board};
use super::rules::{read_cell, write_cell, Rules};
use super::text::RawLevel;
use crate::GamesError;

/// Action labels, by action id; the order matches the board's directions.
const ACTIONS: [&str; 4] = ["up", "down", "left", "right"];

/// Weak-equivalence features, by index (see [`Game::features`]).
const FEATURES: [&str; 2] = ["player", "boxes"];
/// Index of the player's position in [`FEATURES`].
const PLAYER_FEATURE: usize = 0;
/// Index of the box set in [`FEATURES`].
const BOXES_FEATURE: usize = 1;

/// The outcome id of a solved position.
const WIN_OUTCOME: OutcomeId = 0;

/// A Sokoban level as a one-player game.
///
/// # State encoding
///
/// The cells of the player's region (every non-wall cell reachable from the
/// player, boxes not blocking) are numbered from 0 in row-major order. A
/// state is the player's cell followed by the box cells in ascending order
/// (boxes are identical, so a state is the player plus the *set* of boxes).
/// Each cell takes one byte when the region has at most 256 cells, else two
/// bytes little-endian; every state of a level therefore has the same width,
/// `(1 + boxes) * cell bytes`.
///
/// Actions 0 to 3 are up, down, left and right. Walking into a wall, or
/// pushing a box into a wall or another box, is no action. A state whose
/// boxes all stand on goals is terminal with outcome `win`; `fail` is never
/// produced but kept for the shared convention. Unwinnable levels are
/// explored like any other: nothing is pruned.
#[derive(Clone, Debug)]
pub struct Sokoban {
    board: Board,
    rules: Rules,
    cell_bytes: usize,
    initial: Vec<u8>,
}

impl Sokoban {
    /// Checks `raw`, found in `file`, and binds it to the rules.
    pub(crate) fn from_raw(file: &str, raw: &RawLevel) -> Result<Sokoban, GamesError> {
        Ok(Sokoban::from_board(build_board(file, raw)?))
    }

    fn from_board(board: Board) -> Sokoban {
        let cell_bytes = if board.cells.len() <= 256 { 1 } else { 2 };
        let rules = Rules::new(&board, cell_bytes);
        let mut initial = Vec::with_capacity((1 + board.boxes.len()) * cell_bytes);
        write_cell(&mut initial, cell_bytes, board.player);
        for &b in &board.boxes {
            write_cell(&mut initial, cell_bytes, b);
        }
        Sokoban {
            board,
            rules,
            cell_bytes,
            initial,
        }
    }

    /// The number of cells in the player's region.
    pub fn region_cells(&self) -> usize {
        self.board.cells.len()
    }

    /// The number of boxes.
    pub fn box_count(&self) -> usize {
        self.board.boxes.len()
    }

    /// The level drawn in canonical XSB: floor as spaces, run lengths
    /// expanded, trailing floor trimmed, a newline after every row.
    pub fn canonical_text(&self) -> String {
        self.render(&self.initial)
    }

    /// Splits an encoded state into region cells, or `None` when it does
    /// not have this level's width.
    fn decode(&self, state: &[u8]) -> Option<(usize, Vec<usize>)> {
        if state.len() != self.initial.len() {
            return None;
        }
        let mut cells = (0..state.len() / self.cell_bytes)
            .map(|i| usize::from(read_cell(state, self.cell_bytes, i)));
        let player = cells.next()?;
        Some((player, cells.collect()))
    }

    /// The same level with the general rules, to test them against the
    /// fast ones.
    #[cfg(test)]
    pub(crate) fn with_wide_rules(mut self) -> Sokoban {
        self.rules = Rules::Wide(super::rules::WideRules::new(&self.board, self.cell_bytes));
        self
    }

    /// The checked board, for tests.
    #[cfg(test)]
    pub(crate) fn board(&self) -> &Board {
        &self.board
    }
}

impl Game for Sokoban {
    fn kind(&self) -> &'static str {
        "sokoban"
    }

    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(self.initial.len())
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![self.initial.clone()]
    }

    fn action_labels(&self) -> Vec<String> {
        ACTIONS.iter().map(|a| a.to_string()).collect()
    }

    fn outcome_names(&self) -> Vec<String> {
        vec![WIN.to_string(), FAIL.to_string()]
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        self.rules.is_won(state).then_some(WIN_OUTCOME)
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        if state.len() == self.initial.len() {
            self.rules.successors(state, out);
        }
    }

    /// `player`: the player's cell; `boxes`: the set of box cells.
    fn features(&self) -> Vec<String> {
        FEATURES.iter().map(|f| f.to_string()).collect()
    }

    /// Overwrites the ignored parts with `0xff` bytes. Any fixed value would
    /// do: projections under one ignored set are only compared with each
    /// other, and all of them carry the same bytes there.
    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(state);
        if state.len() != self.initial.len() {
            return;
        }
        let projected = &mut out[start..];
        let (player, boxes) = projected.split_at_mut(self.cell_bytes.min(projected.len()));
        if ignored.contains(&PLAYER_FEATURE) {
            player.fill(0xff);
        }
        if ignored.contains(&BOXES_FEATURE) {
            boxes.fill(0xff);
        }
    }

    fn render(&self, state: &[u8]) -> String {
        match self.decode(state) {
            Some((player, boxes)) => self.board.draw(player, &boxes),
            None => format!("<not a state of this level: {} bytes>\n", state.len()),
        }
    }
}

#[cfg(test)]
#[path = "game_tests.rs"]
mod tests;
