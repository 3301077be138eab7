//! The vocabulary every layer of hyperstate shares: the [`Game`] trait, state
//! encodings, actions, players, chance and outcomes.
//!
//! A game is seen only through this trait. The explorer, the store and the
//! analysis never know which game they handle: a state is an opaque byte
//! string produced by [`Game::initial_states`] and [`Game::successors`], an
//! action is a small integer with a label, and a terminal state carries an
//! outcome id. This crate does no I/O.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod numbers;
pub mod ratio;
mod successors;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use successors::{Move, Successors};

/// Dense id of a state: its position in discovery (breadth-first) order, from 0.
pub type StateId = u64;
/// Index of an action in [`Game::action_labels`].
pub type ActionId = u16;
/// Index of a player, `0..Game::players()`.
pub type PlayerId = u8;
/// Index of an outcome in [`Game::outcome_names`].
pub type OutcomeId = u16;
/// A colour: red, green and blue.
pub type Rgb = [u8; 3];

/// The conventional name of the winning outcome; analyses target it by default.
pub const WIN: &str = "win";
/// The conventional name of the losing outcome.
pub const FAIL: &str = "fail";
/// The prefix of a scoring game's outcomes, followed by the score in decimal
/// (`score 0`, `score 1`, ...).
pub const SCORE_PREFIX: &str = "score ";

/// An exact probability `num / den` of a chance outcome.
///
/// Probabilities are kept as rationals so that a sum over outcomes can be
/// checked exactly and written to a store without rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prob {
    /// Numerator.
    pub num: u32,
    /// Denominator, never zero.
    pub den: u32,
}

impl Prob {
    /// Certainty: the action has exactly one outcome.
    pub const ONE: Prob = Prob { num: 1, den: 1 };

    /// `num / den`; `None` when `den` is zero or the fraction exceeds one.
    pub fn new(num: u32, den: u32) -> Option<Prob> {
        (den != 0 && num <= den).then_some(Prob { num, den })
    }

    /// True when the outcome is certain (a deterministic action).
    pub fn is_one(self) -> bool {
        self.num == self.den
    }

    /// The probability as a float, for display and metrics.
    pub fn as_f64(self) -> f64 {
        f64::from(self.num) / f64::from(self.den)
    }
}

/// How many bytes a state of a level takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateWidth {
    /// Every state of the level encodes to exactly this many bytes.
    Fixed(usize),
    /// States vary in length, up to `max` bytes.
    Variable {
        /// The longest encoding the level can produce.
        max: usize,
    },
}

impl StateWidth {
    /// The longest encoding of a state.
    pub fn max_len(self) -> usize {
        match self {
            StateWidth::Fixed(n) | StateWidth::Variable { max: n } => n,
        }
    }

    /// The fixed width, if the level has one.
    pub fn fixed(self) -> Option<usize> {
        match self {
            StateWidth::Fixed(n) => Some(n),
            StateWidth::Variable { .. } => None,
        }
    }
}

/// A game on one level: the rules, bound to a concrete starting position.
///
/// Implementations must be deterministic: the same state always yields the
/// same successors in the same order. The explorer relies on this to give
/// the same state ids whatever the thread count or the interruptions.
pub trait Game: Send + Sync {
    /// The game family, e.g. `"sokoban"`; stored in a run's manifest.
    fn kind(&self) -> &'static str;

    /// How many players take decisions; one for puzzles.
    fn players(&self) -> u8 {
        1
    }

    /// How states of this level are encoded.
    fn state_width(&self) -> StateWidth;

    /// The initial state or states (several for games that start at random).
    fn initial_states(&self) -> Vec<Vec<u8>>;

    /// Labels of every action the level can use, indexed by [`ActionId`].
    fn action_labels(&self) -> Vec<String>;

    /// Names of every outcome, indexed by [`OutcomeId`]; `"win"` and `"fail"`
    /// by convention, others (a score, a player's victory) as the game needs.
    fn outcome_names(&self) -> Vec<String>;

    /// The outcome of `state` if it is terminal; terminal states are never
    /// expanded.
    fn terminal(&self, state: &[u8]) -> Option<OutcomeId>;

    /// Appends the successors of a non-terminal `state` to `out`, in a fixed
    /// order. Chance is a group of moves sharing one action label whose
    /// probabilities sum to one; the player of a move is who decided it.
    fn successors(&self, state: &[u8], out: &mut Successors);

    /// A human-readable picture of `state`, one or more lines of text.
    fn render(&self, state: &[u8]) -> String;

    /// The colour of each character [`Game::render`] draws for `state`, line
    /// by line (`None` for a character left in the terminal's own colour);
    /// `None` when the game has no colours, the default. A PuzzleScript level
    /// gives each cell the first colour of its top visible object.
    fn render_colors(&self, _state: &[u8]) -> Option<Vec<Vec<Option<Rgb>>>> {
        None
    }

    /// What the characters [`Game::render`] draws for `state` stand for, as
    /// `(character, description)` in order of first appearance; empty when
    /// the picture explains itself, the default. A PuzzleScript level names
    /// the objects of each legend character on the board.
    fn render_legend(&self, _state: &[u8]) -> Vec<(char, String)> {
        Vec::new()
    }

    /// True when some action has several outcomes with probabilities; the
    /// store then keeps a probability per transition.
    fn has_chance(&self) -> bool {
        false
    }

    /// The player to move in `state`, when one player decides alone.
    fn to_move(&self, _state: &[u8]) -> Option<PlayerId> {
        None
    }

    /// For an action that is a tuple of simultaneous decisions, each player's
    /// decision label (`None` for a null decision), indexed by player; `None`
    /// for an ordinary action decided by one player or by chance.
    fn decision_tuple(&self, _action: ActionId) -> Option<Vec<Option<String>>> {
        None
    }

    /// Names of the parts of a state that a weak-equivalence projection may
    /// ignore (Sokoban: the player's position; a `.game` file: each track).
    fn features(&self) -> Vec<String> {
        Vec::new()
    }

    /// Appends to `out` the encoding of `state` with the features whose
    /// indices (into [`Game::features`]) are in `ignored` set to a fixed
    /// value, so that two states equal but for those features project to
    /// equal bytes. The projection is only compared, never expanded.
    fn project(&self, state: &[u8], _ignored: &[usize], out: &mut Vec<u8>) {
        out.extend_from_slice(state);
    }

    /// Gives the game a flag that, once raised, asks any evaluation in
    /// progress to end at once (a `.game` file's loops look at it). What
    /// [`Game::terminal`] and [`Game::successors`] return after it is raised
    /// is meaningless: the explorer raises it only to stop, and discards the
    /// chunk it was expanding. Games whose evaluations are short ignore it.
    fn interrupt_on(&self, _stop: Arc<AtomicBool>) {}

    /// What the game counted while it was expanded that a run's summary should
    /// mention, as (what was counted, how many); empty when there is nothing to
    /// say. A PuzzleScript level counts the (state, input) pairs whose `again`
    /// chain never ends, which it leaves without a transition.
    fn exploration_counts(&self) -> Vec<(String, u64)> {
        Vec::new()
    }

    /// Why the game stopped the exploration itself, if it did: an expansion
    /// went past a bound of the game (a PuzzleScript turn with more random
    /// outcomes than `--max-outcomes`, a rule matching in too many ways).
    /// The game then raised the flag given to [`Game::interrupt_on`], so the
    /// run ends as an interrupted one, and the caller reports this message
    /// as an error. `None`, the default, for games that never stop a run.
    fn failure(&self) -> Option<String> {
        None
    }

    /// What the game found about the level when it was built that a user
    /// should be told, one line each (a PuzzleScript level: the inert objects
    /// it leaves out of the state). Empty by default.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prob_rejects_impossible_fractions() {
        assert_eq!(Prob::new(1, 0), None);
        assert_eq!(Prob::new(3, 2), None);
        assert!(Prob::new(2, 2).unwrap().is_one());
        assert!((Prob::new(1, 4).unwrap().as_f64() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn width_reports_longest_encoding() {
        assert_eq!(StateWidth::Fixed(5).max_len(), 5);
        assert_eq!(StateWidth::Variable { max: 9 }.max_len(), 9);
        assert_eq!(StateWidth::Variable { max: 9 }.fixed(), None);
    }
}
