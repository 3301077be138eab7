//! The rules in motion: a game in progress ([`Play`]) and the moves that
//! change it, without allocation, shared by the explorer and the solver.

use super::board::{bit, Board, NO_TOKEN, OFF, SQUARES};
use super::rules::{Dir, TokenKind, NO_DIR};

/// A game in progress. Plain data: copying it forks the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Play {
    /// Squares entered and not cleared since (walls excluded).
    pub filled: u128,
    /// Squares holding a token that still acts (visible, not picked up).
    pub active: u128,
    /// Squares of the tokens picked up so far (for reports, not state).
    pub collected: u128,
    /// Walls still standing.
    pub walls: u128,
    /// The agent's square.
    pub pos: u8,
    /// Moves left in the ration.
    pub moves_left: u16,
    /// Points so far.
    pub score: u16,
    /// Black pool: new-square points still to be matched.
    pub pool: u16,
    /// Direction of the last move made, [`NO_DIR`] before the first.
    pub last_dir: Dir,
    /// The turn reward (gold) is on.
    pub gold: bool,
    /// Moves left in which filled squares may be entered (white).
    pub white: u8,
    /// Direction of forced moves (silver).
    pub forced_dir: Dir,
    /// Forced moves still to make (silver).
    pub forced_left: u8,
    queue: [u8; SQUARES],
    head: u8,
    len: u8,
}

impl Play {
    /// The filled squares, oldest first (the order red tokens clear them).
    pub fn fill_order(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.len).map(move |i| self.queue[usize::from(self.head.wrapping_add(i) & 127)])
    }

    fn push_back(&mut self, cell: u8) {
        self.queue[usize::from(self.head.wrapping_add(self.len) & 127)] = cell;
        self.len += 1;
    }

    fn push_front(&mut self, cell: u8) {
        self.head = self.head.wrapping_sub(1) & 127;
        self.queue[usize::from(self.head)] = cell;
        self.len += 1;
    }

    fn pop_front(&mut self) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let cell = self.queue[usize::from(self.head)];
        self.head = self.head.wrapping_add(1) & 127;
        self.len -= 1;
        Some(cell)
    }

    /// Replaces the fill order (used when decoding a state).
    pub fn set_fill_order(&mut self, cells: impl Iterator<Item = u8>) {
        self.head = 0;
        self.len = 0;
        for c in cells {
            self.push_back(c);
        }
    }

    /// Drops from the fill order every square no longer filled.
    fn compact_queue(&mut self) {
        let mut kept = [0u8; SQUARES];
        let mut n = 0usize;
        for c in self.fill_order() {
            if self.filled & bit(c) != 0 {
                kept[n] = c;
                n += 1;
            }
        }
        self.set_fill_order(kept.into_iter().take(n));
    }
}

impl Board {
    /// The position before the first move.
    pub fn start(&self) -> Play {
        let start = self.instance.start;
        let mut play = Play {
            filled: 0,
            active: self.visible,
            collected: 0,
            walls: self.walls,
            pos: start,
            moves_left: self.instance.moves,
            score: 0,
            pool: 0,
            last_dir: NO_DIR,
            gold: false,
            white: 0,
            forced_dir: NO_DIR,
            forced_left: 0,
            queue: [0; SQUARES],
            head: 0,
            len: 0,
        };
        if self.rules.start_filled {
            play.filled = bit(start);
            play.push_back(start);
        }
        play
    }

    /// The directions the agent may take, as a bit set over up, down, left,
    /// right (bit 0 is up); empty when the game is over. A forced move
    /// (silver) is always offered, even when it will be wasted.
    #[inline]
    pub fn admissible(&self, p: &Play) -> u8 {
        if p.moves_left == 0 {
            return 0;
        }
        if p.forced_left > 0 {
            return 1 << p.forced_dir;
        }
        let free = !self.blocked(p) & self.on_board;
        let nb = &self.probe[usize::from(p.pos & 127)];
        let probe = |d: usize| ((free >> (nb[d] & 127)) & 1) as u8;
        let mut mask = probe(0) | probe(1) << 1 | probe(2) << 2 | probe(3) << 3;
        if self.arrows != 0 && self.arrows & p.active & bit(p.pos) != 0 {
            mask &= 1 << self.value_at[usize::from(p.pos & 127)];
        }
        mask
    }

    /// The squares the agent may not enter now.
    #[inline]
    fn blocked(&self, p: &Play) -> u128 {
        if p.white == 0 {
            p.filled | p.walls
        } else if self.rules.white_crosses_walls {
            0
        } else {
            p.walls
        }
    }

    /// True when no move remains: the ration is spent or nothing is admissible.
    pub fn is_over(&self, p: &Play) -> bool {
        self.admissible(p) == 0
    }

    /// Makes the move `dir`, which must be admissible (an inadmissible
    /// direction is ignored). A forced move into a blocked square is wasted:
    /// it costs a move and the agent stays.
    #[inline]
    pub fn step(&self, p: &mut Play, dir: Dir) {
        if self.admissible(p) & (1 << (dir & 3)) != 0 {
            self.step_admissible(p, dir);
        }
    }

    /// Makes the move `dir`, which the caller has taken from
    /// [`Board::admissible`]: the solver's hot path, without a second check.
    #[inline]
    pub fn step_admissible(&self, p: &mut Play, dir: Dir) {
        let to = self.neighbours[usize::from(p.pos & 127)][usize::from(dir & 3)];
        if p.forced_left > 0 {
            p.forced_left -= 1;
            if to == OFF || self.blocked(p) & bit(to) != 0 {
                p.moves_left -= 1;
                return;
            }
        }
        self.advance(p, dir, to);
    }

    /// Moves the agent one square: pays the move, scores the turn, enters.
    #[inline]
    fn advance(&self, p: &mut Play, dir: Dir, to: u8) {
        let cost = if self.swamps != 0 && self.swamps & p.active & bit(to) != 0 {
            u16::from(self.value_at[usize::from(to & 127)])
        } else {
            1
        };
        p.moves_left = p.moves_left.saturating_sub(cost);
        if p.gold && p.last_dir != NO_DIR && p.last_dir != dir {
            p.score = p.score.saturating_add(1);
            if self.rules.black_matches_turns {
                match_point(p);
            }
        }
        p.last_dir = dir;
        if p.white > 0 {
            p.white -= 1;
        }
        self.enter(p, to, dir);
    }

    /// The agent arrives on `to`: a new square scores and fills; a token there acts.
    #[inline]
    fn enter(&self, p: &mut Play, to: u8, dir: Dir) {
        p.pos = to;
        let b = bit(to);
        if (p.filled | p.walls) & b == 0 {
            p.filled |= b;
            p.push_back(to);
            p.score = p.score.saturating_add(1);
            match_point(p);
        }
        if p.active & b != 0 {
            self.collect(p, to, dir);
        }
    }

    /// Applies the token on `cell`; terrain tokens act elsewhere and stay.
    fn collect(&self, p: &mut Play, cell: u8, dir: Dir) {
        let c = usize::from(cell & 127);
        let Some(kind) = TokenKind::from_code(self.kind_at[c]) else {
            return;
        };
        if kind.is_terrain() {
            return;
        }
        let value = self.value_at[c];
        p.active &= !bit(cell);
        p.collected |= bit(cell);
        match kind {
            TokenKind::Blue => p.moves_left = p.moves_left.saturating_add(u16::from(value)),
            TokenKind::Red => self.clear_oldest(p, value),
            TokenKind::Gold => p.gold = true,
            TokenKind::Black => p.pool = p.pool.saturating_add(u16::from(value)),
            TokenKind::Purple => {
                p.score = p.score.saturating_add(u16::from(value));
                p.gold = false;
            }
            TokenKind::White => p.white = p.white.saturating_add(value),
            TokenKind::Green => p.active |= self.reveals[c] & !p.collected,
            TokenKind::Silver => {
                p.forced_dir = dir;
                p.forced_left = value;
            }
            TokenKind::Bomb => self.explode(p, cell),
            TokenKind::Brown => self.teleport(p, cell, dir),
            TokenKind::DarkGreen | TokenKind::Arrow => {}
        }
    }

    /// Red: clears up to `count` filled squares, oldest first, skipping the
    /// agent's own square unless the rules allow clearing it.
    fn clear_oldest(&self, p: &mut Play, count: u8) {
        let mut cleared = 0;
        let mut kept_agent = false;
        while cleared < count {
            let Some(cell) = p.pop_front() else { break };
            if cell == p.pos && !self.rules.red_clears_agent {
                kept_agent = true;
                continue;
            }
            p.filled &= !bit(cell);
            cleared += 1;
        }
        if kept_agent {
            p.push_front(p.pos);
        }
    }

    /// Bomb: clears the filled squares around `cell` except the agent's, and
    /// walls or tokens there when the rules say so.
    fn explode(&self, p: &mut Play, cell: u8) {
        let Some(&area) = self.blast.get(usize::from(cell)) else {
            return;
        };
        let area = area & !bit(p.pos);
        p.filled &= !area;
        if self.rules.bomb_clears_walls {
            p.walls &= !area;
        }
        if self.rules.bomb_destroys_tokens {
            p.active &= !area;
        }
        p.compact_queue();
    }

    /// Brown: both ends vanish and the agent lands on the other end, entering it.
    fn teleport(&self, p: &mut Play, cell: u8, dir: Dir) {
        let other = self.partner[usize::from(cell & 127)];
        if other == OFF || p.active & bit(other) == 0 {
            return;
        }
        p.active &= !bit(other);
        p.collected |= bit(other);
        self.enter(p, other, dir);
    }

    /// The token kind on `cell`, when a token is there at all.
    pub fn token_code(&self, cell: u8) -> u8 {
        self.kind_at
            .get(usize::from(cell))
            .copied()
            .unwrap_or(NO_TOKEN)
    }
}

/// Black: one matching point from the pool, while it lasts.
#[inline]
fn match_point(p: &mut Play) {
    if p.pool > 0 {
        p.pool -= 1;
        p.score = p.score.saturating_add(1);
    }
}
