//! The Affordance Sandbox's vocabulary: token kinds, directions and the rule
//! parameters that settle the questions the seed paper leaves open.

/// A direction of movement; its number is also the action id (up, down,
/// left, right), the order in which the seed enumerates admissible moves.
pub type Dir = u8;
/// Moving towards row 0.
pub const UP: Dir = 0;
/// Moving towards the last row.
pub const DOWN: Dir = 1;
/// Moving towards column 0.
pub const LEFT: Dir = 2;
/// Moving towards the last column.
pub const RIGHT: Dir = 3;
/// No direction yet (before the first move).
pub const NO_DIR: Dir = 4;
/// Direction names, by direction number.
pub const DIR_NAMES: [&str; 4] = ["up", "down", "left", "right"];
/// How an arrow token pointing in each direction is written.
pub const ARROW_GLYPHS: [char; 4] = ['^', 'v', '<', '>'];

/// The kinds of token: the seed's four affordances, then its eight proposed
/// extensions. Each is described in `docs/games.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenKind {
    /// Adds its value to the moves left.
    Blue,
    /// Clears its value in filled squares, oldest first.
    Red,
    /// Switches on the turn reward: one point per change of direction.
    Gold,
    /// Adds its value to the pool that matches new-square points.
    Black,
    /// Adds its value to the score and switches the turn reward off.
    Purple,
    /// Lets the agent enter filled squares for its value in moves.
    White,
    /// Reveals the hidden tokens bound to it.
    Green,
    /// Swamp: entering its square costs its value in moves (terrain, stays).
    DarkGreen,
    /// Forces its value in further moves in the direction it was entered.
    Silver,
    /// Allows leaving its square only in the arrow's direction (terrain, stays).
    Arrow,
    /// Clears the filled squares around it.
    Bomb,
    /// A single-use teleporter to the other brown token with the same number.
    Brown,
}

impl TokenKind {
    /// Every kind, in the order specifications list them.
    pub const ALL: [TokenKind; 12] = [
        TokenKind::Blue,
        TokenKind::Red,
        TokenKind::Gold,
        TokenKind::Black,
        TokenKind::Purple,
        TokenKind::White,
        TokenKind::Green,
        TokenKind::DarkGreen,
        TokenKind::Silver,
        TokenKind::Arrow,
        TokenKind::Bomb,
        TokenKind::Brown,
    ];

    /// The kind's number, its index in [`TokenKind::ALL`].
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind with this number.
    pub fn from_code(code: u8) -> Option<TokenKind> {
        TokenKind::ALL.get(usize::from(code)).copied()
    }

    /// The kind's name in specification files and reports.
    pub fn name(self) -> &'static str {
        match self {
            TokenKind::Blue => "blue",
            TokenKind::Red => "red",
            TokenKind::Gold => "gold",
            TokenKind::Black => "black",
            TokenKind::Purple => "purple",
            TokenKind::White => "white",
            TokenKind::Green => "green",
            TokenKind::DarkGreen => "dark-green",
            TokenKind::Silver => "silver",
            TokenKind::Arrow => "arrow",
            TokenKind::Bomb => "bomb",
            TokenKind::Brown => "brown",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<TokenKind> {
        TokenKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The letter that starts the kind's two-character board cell.
    pub fn letter(self) -> char {
        match self {
            TokenKind::Blue => 'B',
            TokenKind::Red => 'R',
            TokenKind::Gold => 'G',
            TokenKind::Black => 'K',
            TokenKind::Purple => 'P',
            TokenKind::White => 'W',
            TokenKind::Green => 'N',
            TokenKind::DarkGreen => 'D',
            TokenKind::Silver => 'S',
            TokenKind::Arrow => 'A',
            TokenKind::Bomb => 'X',
            TokenKind::Brown => 'T',
        }
    }

    /// The kind whose board letter is `letter`.
    pub fn from_letter(letter: char) -> Option<TokenKind> {
        TokenKind::ALL.into_iter().find(|k| k.letter() == letter)
    }

    /// How the token's number is chosen and read.
    pub fn value_kind(self) -> ValueKind {
        match self {
            TokenKind::Gold | TokenKind::Green | TokenKind::Bomb => ValueKind::None,
            TokenKind::Arrow => ValueKind::Direction,
            TokenKind::Brown => ValueKind::Pair,
            _ => ValueKind::Strength,
        }
    }

    /// True for terrain tokens, which act every time their square is
    /// entered or left and are never picked up.
    pub fn is_terrain(self) -> bool {
        matches!(self, TokenKind::DarkGreen | TokenKind::Arrow)
    }
}

/// What the number on a token means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// The token has no number (written `.`).
    None,
    /// A strength drawn from the specification's value range.
    Strength,
    /// A direction (written `^ v < >`).
    Direction,
    /// The number shared by the two ends of a teleporter.
    Pair,
}

/// The rule parameters: every choice the seed leaves open, made explicit.
///
/// The defaults are the reading of the seed used for its experiments; the
/// level files write every parameter, so a level states its rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The start square counts as entered (filled, never scored) when play
    /// begins. Default: yes (the agent stands on it).
    pub start_filled: bool,
    /// A red token may clear the square the agent stands on. Default: no
    /// (that square is skipped and keeps its place in the fill order).
    pub red_clears_agent: bool,
    /// The black pool also matches the gold turn reward. Default: no (the
    /// seed's black token matches "the score for entering new squares").
    pub black_matches_turns: bool,
    /// Moving off an edge re-enters at the opposite edge. Default: no.
    pub toroidal: bool,
    /// A white token's charges also let the agent enter walls. Default: no.
    pub white_crosses_walls: bool,
    /// A bomb clears every square within this Chebyshev distance. Default: 1
    /// (the 3x3 block around the bomb).
    pub bomb_radius: u8,
    /// A bomb also clears walls. Default: no.
    pub bomb_clears_walls: bool,
    /// A bomb also destroys the visible tokens in its area. Default: no.
    pub bomb_destroys_tokens: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            start_filled: true,
            red_clears_agent: false,
            black_matches_turns: false,
            toroidal: false,
            white_crosses_walls: false,
            bomb_radius: 1,
            bomb_clears_walls: false,
            bomb_destroys_tokens: false,
        }
    }
}

/// The names of the rule parameters, as written in level files.
pub const RULE_NAMES: [&str; 8] = [
    "start-filled",
    "red-clears-agent",
    "black-matches-turns",
    "toroidal",
    "white-crosses-walls",
    "bomb-radius",
    "bomb-clears-walls",
    "bomb-destroys-tokens",
];

impl Rules {
    /// Every parameter as `(name, value)` text, in [`RULE_NAMES`] order.
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        vec![
            (RULE_NAMES[0], yes_no(self.start_filled)),
            (RULE_NAMES[1], yes_no(self.red_clears_agent)),
            (RULE_NAMES[2], yes_no(self.black_matches_turns)),
            (RULE_NAMES[3], yes_no(self.toroidal)),
            (RULE_NAMES[4], yes_no(self.white_crosses_walls)),
            (RULE_NAMES[5], self.bomb_radius.to_string()),
            (RULE_NAMES[6], yes_no(self.bomb_clears_walls)),
            (RULE_NAMES[7], yes_no(self.bomb_destroys_tokens)),
        ]
    }

    /// Sets the parameter `name` from its text; the error says what is wrong.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        if name == "bomb-radius" {
            self.bomb_radius = match value.parse::<u8>() {
                Ok(r) if r <= 10 => r,
                _ => {
                    return Err(format!(
                        "bomb-radius must be a number from 0 to 10, not {value:?}"
                    ))
                }
            };
            return Ok(());
        }
        let flag = match value {
            "yes" | "true" => true,
            "no" | "false" => false,
            _ => return Err(format!("rule {name} takes yes or no, not {value:?}")),
        };
        let slot = match name {
            "start-filled" => &mut self.start_filled,
            "red-clears-agent" => &mut self.red_clears_agent,
            "black-matches-turns" => &mut self.black_matches_turns,
            "toroidal" => &mut self.toroidal,
            "white-crosses-walls" => &mut self.white_crosses_walls,
            "bomb-clears-walls" => &mut self.bomb_clears_walls,
            "bomb-destroys-tokens" => &mut self.bomb_destroys_tokens,
            _ => {
                return Err(format!(
                    "unknown rule {name:?} (known: {})",
                    RULE_NAMES.join(", ")
                ))
            }
        };
        *slot = flag;
        Ok(())
    }
}
