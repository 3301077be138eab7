//! Specifications and instances of the Affordance Sandbox as plain data:
//! what a level file says, checked for consistency before it is played.

use super::rules::{Rules, TokenKind, ValueKind};

/// The largest board side: the simulator keeps a board in one `u128`.
pub const MAX_SIDE: u8 = 11;
/// The largest number a token carries (one digit on the board).
pub const MAX_VALUE: u8 = 9;

/// A token on a square; `value` is read as [`TokenKind::value_kind`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// The square, `row * side + column`, row 0 at the top.
    pub cell: u8,
    /// What the token does.
    pub kind: TokenKind,
    /// Its number (0 when it has none).
    pub value: u8,
}

/// A token that a green token reveals when picked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HiddenToken {
    /// The token as it appears once revealed.
    pub token: Token,
    /// The square of the green token that reveals it.
    pub green: u8,
}

/// One game: board size, move ration, rules and the exact placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The level's title.
    pub title: String,
    /// The board's side (odd, 3 to [`MAX_SIDE`]).
    pub side: u8,
    /// Moves the agent starts with (the seed: 3S for side 2S+1).
    pub moves: u16,
    /// The rule parameters.
    pub rules: Rules,
    /// The agent's first square (the seed: the centre).
    pub start: u8,
    /// Pre-filled squares that red tokens never clear.
    pub walls: Vec<u8>,
    /// The visible tokens.
    pub tokens: Vec<Token>,
    /// The tokens green tokens reveal.
    pub hidden: Vec<HiddenToken>,
}

/// A game specification: how many of each token, and how instances are drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The specification's title; instances are titled `TITLE #N`.
    pub title: String,
    /// The board's side.
    pub side: u8,
    /// Moves the agent starts with; `None` for the seed's 3S.
    pub moves: Option<u16>,
    /// The smallest and largest strength drawn for a token (the seed: 1 to 6).
    pub values: (u8, u8),
    /// Visible tokens of each kind, indexed by [`TokenKind::code`].
    pub counts: [u16; 12],
    /// Hidden tokens of each kind, dealt round-robin to the green tokens.
    pub hidden: [u16; 12],
    /// Walls placed at random.
    pub walls: u16,
    /// The seed of instance generation when the command line gives none.
    pub seed: u64,
    /// The rule parameters.
    pub rules: Rules,
}

/// The seed's starting ration: 3S moves on a board of side 2S+1.
pub fn default_moves(side: u8) -> u16 {
    3 * u16::from(side / 2)
}

impl Spec {
    /// A specification with no tokens on a board of `side`, the seed's
    /// value range and rules.
    pub fn empty(title: &str, side: u8) -> Spec {
        Spec {
            title: title.to_string(),
            side,
            moves: None,
            values: (1, 6),
            counts: [0; 12],
            hidden: [0; 12],
            walls: 0,
            seed: 0,
            rules: Rules::default(),
        }
    }

    /// Sets the count of visible tokens of `kind`.
    pub fn with(mut self, kind: TokenKind, count: u16) -> Spec {
        self.counts[usize::from(kind.code())] = count;
        self
    }

    /// The starting moves of its instances.
    pub fn start_moves(&self) -> u16 {
        self.moves.unwrap_or_else(|| default_moves(self.side))
    }

    /// The number of visible tokens of `kind`.
    pub fn count(&self, kind: TokenKind) -> u16 {
        self.counts[usize::from(kind.code())]
    }

    /// Checks that instances can be drawn; the error is a full sentence.
    pub fn check(&self) -> Result<(), String> {
        check_side(self.side)?;
        let (lo, hi) = self.values;
        if lo == 0 || lo > hi || hi > MAX_VALUE {
            return Err(format!(
                "the value range {lo} to {hi} must satisfy 1 <= low <= high <= {MAX_VALUE}"
            ));
        }
        let visible: u32 = self.counts.iter().map(|&c| u32::from(c)).sum();
        let hidden: u32 = self.hidden.iter().map(|&c| u32::from(c)).sum();
        let squares = u32::from(self.side) * u32::from(self.side) - 1;
        let wanted = visible + hidden + u32::from(self.walls);
        if wanted > squares {
            return Err(format!(
                "{wanted} tokens and walls do not fit on the {squares} squares outside the centre"
            ));
        }
        let brown =
            self.count(TokenKind::Brown) + self.hidden[usize::from(TokenKind::Brown.code())];
        if brown & 1 == 1 || brown > 2 * u16::from(MAX_VALUE) {
            return Err(format!(
                "brown tokens come in pairs, at most {MAX_VALUE} pairs: {brown} is not possible"
            ));
        }
        if self.hidden[usize::from(TokenKind::Brown.code())] > 0 {
            return Err("brown tokens cannot be hidden (a pair could be split)".to_string());
        }
        if hidden > 0 && self.count(TokenKind::Green) == 0 {
            return Err("hidden tokens need at least one green token to reveal them".to_string());
        }
        Ok(())
    }
}

/// Checks a board side.
pub fn check_side(side: u8) -> Result<(), String> {
    if side & 1 == 0 || !(3..=MAX_SIDE).contains(&side) {
        return Err(format!(
            "the side must be odd, from 3 to {MAX_SIDE}, not {side}"
        ));
    }
    Ok(())
}

impl Instance {
    /// The number of squares.
    pub fn cells(&self) -> usize {
        usize::from(self.side) * usize::from(self.side)
    }

    /// The centre square of a board of `side`.
    pub fn centre(side: u8) -> u8 {
        let s = u16::from(side);
        ((s / 2) * s + s / 2) as u8
    }

    /// Every token, visible then hidden.
    pub fn all_tokens(&self) -> impl Iterator<Item = &Token> {
        self.tokens
            .iter()
            .chain(self.hidden.iter().map(|h| &h.token))
    }

    /// Checks the placement; the error is a full sentence naming the square.
    pub fn check(&self) -> Result<(), String> {
        check_side(self.side)?;
        let cells = self.cells();
        let mut used = vec![None::<&str>; cells];
        let mut claim = |cell: u8, what: &'static str| -> Result<(), String> {
            let slot = used
                .get_mut(usize::from(cell))
                .ok_or_else(|| format!("square {cell} is off the board"))?;
            if let Some(other) = slot {
                return Err(format!(
                    "{what} at {} is on the same square as {other}",
                    self.square_name(cell)
                ));
            }
            *slot = Some(what);
            Ok(())
        };
        claim(self.start, "the start")?;
        for &w in &self.walls {
            claim(w, "a wall")?;
        }
        for t in self.all_tokens() {
            claim(t.cell, t.kind.name())?;
            self.check_value(t)?;
        }
        self.check_hidden()?;
        self.check_pairs()
    }

    /// `row R column C`, 1-based, for messages.
    pub fn square_name(&self, cell: u8) -> String {
        let side = self.side.max(1);
        format!("row {} column {}", cell / side + 1, cell % side + 1)
    }

    fn check_value(&self, t: &Token) -> Result<(), String> {
        let ok = match t.kind.value_kind() {
            ValueKind::None => t.value == 0,
            ValueKind::Strength | ValueKind::Pair => (1..=MAX_VALUE).contains(&t.value),
            ValueKind::Direction => t.value < 4,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "the {} token at {} has the impossible value {}",
                t.kind.name(),
                self.square_name(t.cell),
                t.value
            ))
        }
    }

    fn check_hidden(&self) -> Result<(), String> {
        for h in &self.hidden {
            let reveals = self
                .tokens
                .iter()
                .any(|t| t.cell == h.green && t.kind == TokenKind::Green);
            if !reveals {
                return Err(format!(
                    "the hidden {} token at {} names {} as its green token, which is not one",
                    h.token.kind.name(),
                    self.square_name(h.token.cell),
                    self.square_name(h.green)
                ));
            }
            if h.token.kind == TokenKind::Brown {
                return Err("brown tokens cannot be hidden".to_string());
            }
        }
        Ok(())
    }

    fn check_pairs(&self) -> Result<(), String> {
        let mut ends = [0u8; MAX_VALUE as usize + 1];
        for t in self.tokens.iter().filter(|t| t.kind == TokenKind::Brown) {
            if let Some(n) = ends.get_mut(usize::from(t.value)) {
                *n += 1;
            }
        }
        match ends.iter().position(|&n| n != 0 && n != 2) {
            Some(pair) => Err(format!(
                "brown teleporter {pair} has {} end(s); each number needs exactly two",
                ends[pair]
            )),
            None => Ok(()),
        }
    }
}
