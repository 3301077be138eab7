//! [`SandboxGame`]: an instance as a [`model::Game`] for exhaustive or
//! depth-limited exploration, with its state encoding and projections.

use model::{Game, Move, OutcomeId, StateWidth, Successors};

use super::board::{bit, Board};
use super::play::Play;
use super::rules::{DIR_NAMES, NO_DIR};
use super::text::instance_text;

/// Feature names, indexed as [`Game::features`] lists them.
const FEATURES: [&str; 9] = [
    "score",
    "moves",
    "position",
    "filled",
    "tokens",
    "turn reward",
    "black pool",
    "fill order",
    "charges",
];

/// Bytes of the fixed header: position, moves, score, pool, turn flags,
/// white charges, forced direction, forced moves.
const HEADER: usize = 1 + 2 + 2 + 2 + 1 + 1 + 1 + 1;

/// An Affordance Sandbox instance as a one-player game.
///
/// # State encoding
///
/// A fixed header (position, moves left, score, black pool, turn flags,
/// white charges, forced move), then the filled squares as a bit set, the
/// live tokens as a bit set over the instance's tokens, the standing walls
/// when a bomb may clear them, and last, while a red token can still act,
/// the filled squares in fill order (the order red tokens clear them). The
/// last direction is kept only while the turn reward is on: before that it
/// never matters, so states that differ only there are one state.
///
/// Actions 0 to 3 are up, down, left, right, offered when admissible (as the
/// adaptive representation plays). A state is terminal when no move is
/// admissible or the ration is spent; its outcome `score N` has id N.
#[derive(Clone, Debug)]
pub struct SandboxGame {
    board: Board,
    /// Squares of every token, in ascending order: bit i of the token set.
    token_cells: Vec<u8>,
    filled_bytes: usize,
    token_bytes: usize,
}

impl SandboxGame {
    /// The game on a compiled board.
    pub fn new(board: Board) -> SandboxGame {
        let token_cells: Vec<u8> = (0..board.cells as u8)
            .filter(|&c| board.token_squares & bit(c) != 0)
            .collect();
        SandboxGame {
            filled_bytes: board.cells.div_ceil(8),
            token_bytes: token_cells.len().div_ceil(8),
            token_cells,
            board,
        }
    }

    /// The compiled board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The canonical text of the instance.
    pub fn canonical_text(&self) -> String {
        instance_text(&self.board.instance)
    }

    fn fixed_len(&self) -> usize {
        HEADER + self.filled_bytes * (1 + usize::from(self.board.walls_change)) + self.token_bytes
    }

    /// True while some red token may still act, so the fill order matters.
    fn red_may_act(&self, p: &Play) -> bool {
        self.board.reds & p.active != 0 || self.board.greens_hiding_red & p.active != 0
    }

    /// Appends the encoding of `p`; `ignored` features take fixed values.
    fn encode(&self, p: &Play, ignored: &[usize], out: &mut Vec<u8>) {
        let keep = |f: usize| !ignored.contains(&f);
        let turn = if p.gold { 8 | p.last_dir } else { NO_DIR };
        out.push(if keep(2) { p.pos } else { 0 });
        out.extend_from_slice(&(if keep(1) { p.moves_left } else { 0 }).to_le_bytes());
        out.extend_from_slice(&(if keep(0) { p.score } else { 0 }).to_le_bytes());
        out.extend_from_slice(&(if keep(6) { p.pool } else { 0 }).to_le_bytes());
        out.push(if keep(5) { turn } else { 0 });
        let charges = if keep(8) {
            [p.white, p.forced_dir, p.forced_left]
        } else {
            [0; 3]
        };
        out.extend_from_slice(&charges);
        let filled = if keep(3) { p.filled } else { 0 };
        out.extend_from_slice(&filled.to_le_bytes()[..self.filled_bytes]);
        let mut tokens = vec![0u8; self.token_bytes];
        for (i, &c) in self.token_cells.iter().enumerate() {
            if keep(4) && p.active & bit(c) != 0 {
                tokens[i / 8] |= 1 << (i % 8);
            }
        }
        out.extend_from_slice(&tokens);
        if self.board.walls_change {
            out.extend_from_slice(&p.walls.to_le_bytes()[..self.filled_bytes]);
        }
        if keep(7) && keep(3) && self.red_may_act(p) {
            out.extend(p.fill_order());
        }
    }

    /// The game in progress that `state` encodes, or `None` for bytes that
    /// are not a state of this level.
    pub fn decode(&self, state: &[u8]) -> Option<Play> {
        let fixed = self.fixed_len();
        let (head, rest) = (state.get(..fixed)?, state.get(fixed..)?);
        let word = |i: usize| u16::from_le_bytes([head[i], head[i + 1]]);
        let mut p = self.board.start();
        p.pos = head[0];
        p.moves_left = word(1);
        p.score = word(3);
        p.pool = word(5);
        p.gold = head[7] & 8 != 0;
        p.last_dir = if p.gold { head[7] & 7 } else { NO_DIR };
        (p.white, p.forced_dir, p.forced_left) = (head[8], head[9], head[10]);
        let mut at = HEADER;
        p.filled = read_bits(&head[at..at + self.filled_bytes]);
        at += self.filled_bytes;
        let tokens = &head[at..at + self.token_bytes];
        at += self.token_bytes;
        p.active = 0;
        for (i, &c) in self.token_cells.iter().enumerate() {
            if tokens[i / 8] >> (i % 8) & 1 != 0 {
                p.active |= bit(c);
            }
        }
        if self.board.walls_change {
            p.walls = read_bits(&head[at..at + self.filled_bytes]);
        }
        let filled_count = p.filled.count_ones() as usize;
        if rest.len() == filled_count && rest.iter().all(|&c| p.filled & bit(c) != 0) {
            p.set_fill_order(rest.iter().copied());
        } else if rest.is_empty() {
            let filled = p.filled;
            p.set_fill_order((0..128u8).filter(|&c| filled & bit(c) != 0));
        } else {
            return None;
        }
        let directions_valid =
            p.last_dir <= NO_DIR && (p.forced_left == 0 || p.forced_dir < NO_DIR);
        (usize::from(p.pos) < self.board.cells && directions_valid).then_some(p)
    }
}

fn read_bits(bytes: &[u8]) -> u128 {
    let mut full = [0u8; 16];
    full[..bytes.len()].copy_from_slice(bytes);
    u128::from_le_bytes(full)
}

impl Game for SandboxGame {
    fn kind(&self) -> &'static str {
        "sandbox"
    }

    fn state_width(&self) -> StateWidth {
        if self.board.reds == 0 {
            StateWidth::Fixed(self.fixed_len())
        } else {
            StateWidth::Variable {
                max: self.fixed_len() + self.board.cells,
            }
        }
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        self.encode(&self.board.start(), &[], &mut out);
        vec![out]
    }

    fn action_labels(&self) -> Vec<String> {
        DIR_NAMES.iter().map(|d| d.to_string()).collect()
    }

    fn outcome_names(&self) -> Vec<String> {
        (0..=self.board.max_score)
            .map(|n| format!("{}{n}", model::SCORE_PREFIX))
            .collect()
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        let p = self.decode(state)?;
        self.board.is_over(&p).then_some(p.score)
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        let Some(p) = self.decode(state) else { return };
        let mask = self.board.admissible(&p);
        for dir in 0..4u8 {
            if mask & (1 << dir) != 0 {
                let mut next = p;
                self.board.step_admissible(&mut next, dir);
                out.push_with(Move::solo(u16::from(dir)), |buf| {
                    self.encode(&next, &[], buf)
                });
            }
        }
    }

    fn render(&self, state: &[u8]) -> String {
        match self.decode(state) {
            Some(p) => super::draw::draw_play(&self.board, &p),
            None => format!("<not a state of this level: {} bytes>\n", state.len()),
        }
    }

    fn features(&self) -> Vec<String> {
        FEATURES.iter().map(|f| f.to_string()).collect()
    }

    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        match self.decode(state) {
            Some(p) => self.encode(&p, ignored, out),
            None => out.extend_from_slice(state),
        }
    }
}

/// The kinds of the tokens picked up in `p`, counted by kind code.
pub fn collected_counts(board: &Board, p: &Play) -> [u16; 12] {
    let mut counts = [0u16; 12];
    let mut left = p.collected;
    while left != 0 {
        let c = left.trailing_zeros() as u8;
        left &= left - 1;
        if let Some(kind) = board.kind(c) {
            counts[usize::from(kind.code())] += 1;
        }
    }
    counts
}
