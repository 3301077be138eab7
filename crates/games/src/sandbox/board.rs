//! An instance compiled for fast play: neighbour tables, token tables and
//! bit masks, so that a move is a handful of lookups and no allocation.

use super::level::{Instance, MAX_SIDE};
use super::rules::{Rules, TokenKind};

/// A neighbour-table entry for "off the board".
pub const OFF: u8 = u8::MAX;
/// A token-table entry for "no token here".
pub const NO_TOKEN: u8 = u8::MAX;
/// A bit beyond every square (boards have at most 121), never free.
pub const SENTINEL: u8 = 127;
/// Room for every square of the largest board.
pub const SQUARES: usize = 128;

/// An instance ready to play; built once, shared by every game played on it.
#[derive(Clone, Debug)]
pub struct Board {
    /// The instance it was built from.
    pub instance: Instance,
    /// The board's side.
    pub side: u8,
    /// `side * side`.
    pub cells: usize,
    /// The rules.
    pub rules: Rules,
    /// For each square and direction, the square reached, or [`OFF`].
    pub neighbours: [[u8; 4]; SQUARES],
    /// The same with [`SENTINEL`] for "off the board", so that the free
    /// squares can be probed without a branch.
    pub probe: [[u8; 4]; SQUARES],
    /// Every square of the board (never the sentinel).
    pub on_board: u128,
    /// For each square, the kind code of its token (visible or hidden), or [`NO_TOKEN`].
    pub kind_at: [u8; SQUARES],
    /// For each square, its token's number.
    pub value_at: [u8; SQUARES],
    /// For each green token's square, the squares of the tokens it reveals.
    pub reveals: Vec<u128>,
    /// For each square, the squares a bomb there clears (empty without bombs).
    pub blast: Vec<u128>,
    /// For each brown token's square, the square of its other end.
    pub partner: [u8; SQUARES],
    /// Squares of the visible tokens at the start.
    pub visible: u128,
    /// Squares of every token, visible or hidden.
    pub token_squares: u128,
    /// Squares of arrow tokens.
    pub arrows: u128,
    /// Squares of dark-green tokens.
    pub swamps: u128,
    /// Squares of red tokens, visible or hidden.
    pub reds: u128,
    /// Squares of green tokens that hide at least one red token.
    pub greens_hiding_red: u128,
    /// Squares of the walls at the start.
    pub walls: u128,
    /// True when some bomb can clear walls, so walls are part of the state.
    pub walls_change: bool,
    /// A bound on any reachable score (see [`Board::max_score`]).
    pub max_score: u16,
}

impl Board {
    /// Compiles a checked instance; the error is a full sentence.
    pub fn new(instance: &Instance) -> Result<Board, String> {
        instance.check()?;
        let side = instance.side;
        let cells = instance.cells();
        let mut board = Board {
            instance: instance.clone(),
            side,
            cells,
            rules: instance.rules,
            neighbours: neighbour_table(side, instance.rules.toroidal),
            probe: neighbour_table(side, instance.rules.toroidal)
                .map(|row| row.map(|to| if to == OFF { SENTINEL } else { to })),
            on_board: (0..cells as u8).fold(0, |m, c| m | bit(c)),
            kind_at: [NO_TOKEN; SQUARES],
            value_at: [0; SQUARES],
            reveals: vec![0; SQUARES],
            blast: Vec::new(),
            partner: [OFF; SQUARES],
            visible: 0,
            token_squares: 0,
            arrows: 0,
            swamps: 0,
            reds: 0,
            greens_hiding_red: 0,
            walls: instance.walls.iter().fold(0, |m, &w| m | bit(w)),
            walls_change: false,
            max_score: 0,
        };
        board.place_tokens();
        board.max_score = score_bound(instance)?;
        Ok(board)
    }

    fn place_tokens(&mut self) {
        let instance = self.instance.clone();
        for t in instance.all_tokens() {
            let c = usize::from(t.cell);
            self.kind_at[c] = t.kind.code();
            self.value_at[c] = t.value;
            self.token_squares |= bit(t.cell);
            match t.kind {
                TokenKind::Arrow => self.arrows |= bit(t.cell),
                TokenKind::DarkGreen => self.swamps |= bit(t.cell),
                TokenKind::Red => self.reds |= bit(t.cell),
                _ => {}
            }
        }
        for t in &instance.tokens {
            self.visible |= bit(t.cell);
        }
        for h in &instance.hidden {
            self.reveals[usize::from(h.green)] |= bit(h.token.cell);
            if h.token.kind == TokenKind::Red {
                self.greens_hiding_red |= bit(h.green);
            }
        }
        self.pair_teleporters();
        let has_bomb = instance.all_tokens().any(|t| t.kind == TokenKind::Bomb);
        if has_bomb {
            self.blast = (0..SQUARES as u8).map(|c| self.blast_area(c)).collect();
            self.walls_change = self.rules.bomb_clears_walls && self.walls != 0;
        }
    }

    fn pair_teleporters(&mut self) {
        let browns: Vec<_> = self
            .instance
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Brown)
            .copied()
            .collect();
        for a in &browns {
            if let Some(b) = browns
                .iter()
                .find(|b| b.value == a.value && b.cell != a.cell)
            {
                self.partner[usize::from(a.cell)] = b.cell;
            }
        }
    }

    /// The squares within the bomb radius of `cell` (wrapping on a torus).
    fn blast_area(&self, cell: u8) -> u128 {
        if usize::from(cell) >= self.cells {
            return 0;
        }
        let side = i32::from(self.side);
        let radius = i32::from(self.rules.bomb_radius).min(side);
        let (row, col) = (i32::from(cell) / side, i32::from(cell) % side);
        let mut area = 0u128;
        for dr in -radius..=radius {
            for dc in -radius..=radius {
                let (mut r, mut c) = (row + dr, col + dc);
                if self.rules.toroidal {
                    r = r.rem_euclid(side);
                    c = c.rem_euclid(side);
                }
                if (0..side).contains(&r) && (0..side).contains(&c) {
                    area |= 1u128 << (r * side + c);
                }
            }
        }
        area
    }

    /// The kind of the token on `cell`, if any.
    pub fn kind(&self, cell: u8) -> Option<TokenKind> {
        self.kind_at
            .get(usize::from(cell))
            .and_then(|&k| TokenKind::from_code(k))
    }
}

/// The bit of square `cell`.
#[inline]
pub fn bit(cell: u8) -> u128 {
    1u128 << (cell & 127)
}

/// For each square and direction, the square reached; off-board moves give
/// [`OFF`] unless the board is a torus.
fn neighbour_table(side: u8, toroidal: bool) -> [[u8; 4]; SQUARES] {
    let mut table = [[OFF; 4]; SQUARES];
    let s = side.min(MAX_SIDE);
    for r in 0..s {
        for c in 0..s {
            let wrap = |v: u8, delta: i8| -> Option<u8> {
                let n = i16::from(v) + i16::from(delta);
                if (0..i16::from(s)).contains(&n) {
                    Some(n as u8)
                } else if toroidal {
                    Some(n.rem_euclid(i16::from(s)) as u8)
                } else {
                    None
                }
            };
            let at = |rr: Option<u8>, cc: Option<u8>| match (rr, cc) {
                (Some(rr), Some(cc)) => rr * s + cc,
                _ => OFF,
            };
            table[usize::from(r * s + c)] = [
                at(wrap(r, -1), Some(c)),
                at(wrap(r, 1), Some(c)),
                at(Some(r), wrap(c, -1)),
                at(Some(r), wrap(c, 1)),
            ];
        }
    }
    table
}

/// A bound on any reachable score: every move made scores at most one new
/// square and, with a gold token, one turn; black tokens add at most their
/// values, purple tokens theirs, and each teleport one square without a move.
/// Moves made are at most the ration plus every blue value.
fn score_bound(instance: &Instance) -> Result<u16, String> {
    let sum = |kind: TokenKind| -> u64 {
        instance
            .all_tokens()
            .filter(|t| t.kind == kind)
            .map(|t| u64::from(t.value))
            .sum()
    };
    let moves = u64::from(instance.moves) + sum(TokenKind::Blue);
    let has_gold = instance.all_tokens().any(|t| t.kind == TokenKind::Gold);
    let per_move = if has_gold { 2 } else { 1 };
    let teleports = instance
        .all_tokens()
        .filter(|t| t.kind == TokenKind::Brown)
        .count() as u64;
    let start = u64::from(!instance.rules.start_filled);
    let bound =
        moves * per_move + sum(TokenKind::Black) + sum(TokenKind::Purple) + teleports + start;
    u16::try_from(bound)
        .ok()
        .filter(|b| *b < u16::MAX)
        .ok_or_else(|| format!("the reachable score (up to {bound}) does not fit in 16 bits"))
}
