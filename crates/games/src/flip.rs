//! The token-flip wrapper of section IV-C of the paper: any game plus K two-sided tokens
//! that the player to move may flip as an action.
//!
//! Lantz et al. argue that state-space size cannot measure depth, because a rule that
//! lets a player flip a token doubles the state space without changing the game. The
//! paper answers that flipping is trivially reversible, so every state and its flipped
//! twin fall into one hyperstate and the HSG keeps its size. [`FlipTokens`] makes that
//! argument testable on any level.
//!
//! # State encoding
//!
//! A state is the inner game's state followed by `ceil(K / 8)` bytes holding token `i`
//! in bit `i % 8` of byte `i / 8`. A terminal state keeps no token: when an inner move
//! reaches a terminal state, the tokens are cleared. The game is over, nothing can flip
//! a token any more, and keeping them would turn every final position into `2^K`
//! distinct leaves that differ only by a decoration no rule reads. Non-terminal states
//! therefore multiply by exactly `2^K`, terminal states do not.
//!
//! # Actions
//!
//! The inner game's actions keep their ids; `flip token i` (1-based in the label) is
//! action `inner actions + i - 1`, chosen by the player to move (player 0 when the
//! inner game does not say), with probability one.
//!
//! # Reloading
//!
//! The wrapped game keeps the inner game's kind, so that a store's manifest still names
//! a loadable level; the number of tokens is recorded in the run identity's options
//! under [`OPTION`], and whoever reloads the level calls [`wrap`] again.

use model::{ActionId, Game, Move, OutcomeId, PlayerId, Prob, StateWidth, Successors};

use crate::{GamesError, Level};

/// The run-identity option that records the number of tokens.
pub const OPTION: &str = "flip_tokens";

/// The most tokens a wrapper accepts; `2^32` copies of every state is already far
/// beyond what an exhaustive exploration can store.
pub const MAX_TOKENS: usize = 32;

/// The name of the feature that covers every token (see [`Game::features`]).
pub const TOKENS_FEATURE: &str = "tokens";

thread_local! {
    /// The inner game's successors, kept per thread so that expanding a state does not
    /// allocate (the explorer expands millions of states a second on every thread).
    static INNER_MOVES: std::cell::RefCell<Successors> = std::cell::RefCell::new(Successors::new());
}

/// A game with `tokens` extra two-sided tokens; see the module documentation.
pub struct FlipTokens {
    inner: Box<dyn Game>,
    tokens: usize,
    token_bytes: usize,
    inner_actions: usize,
    inner_features: usize,
}

impl FlipTokens {
    /// Wraps `inner` with `tokens` tokens; refuses more than [`MAX_TOKENS`] or more
    /// actions than an action id can number.
    pub fn new(inner: Box<dyn Game>, tokens: usize) -> Result<FlipTokens, GamesError> {
        let inner_actions = inner.action_labels().len();
        let max = MAX_TOKENS.min((usize::from(ActionId::MAX) + 1).saturating_sub(inner_actions));
        if tokens > max {
            return Err(GamesError::TooManyTokens {
                tokens,
                max,
                actions: inner_actions,
            });
        }
        Ok(FlipTokens {
            inner_features: inner.features().len(),
            token_bytes: tokens.div_ceil(8),
            inner,
            tokens,
            inner_actions,
        })
    }

    /// The number of tokens.
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// Splits a state into the inner state and the token bytes (a state shorter than
    /// the token bytes is all inner state: it cannot come from this wrapper).
    fn split<'s>(&self, state: &'s [u8]) -> (&'s [u8], &'s [u8]) {
        state.split_at(state.len().saturating_sub(self.token_bytes))
    }

    /// The action id of flipping token `i`.
    fn flip_action(&self, i: usize) -> ActionId {
        // `new` checked that every flip action fits an action id.
        ActionId::try_from(self.inner_actions + i).unwrap_or(ActionId::MAX)
    }

    /// Expands `inner` into `scratch` and appends its moves, tokens attached, to `out`.
    fn push_inner_moves(
        &self,
        inner: &[u8],
        tokens: &[u8],
        scratch: &mut Successors,
        out: &mut Successors,
    ) {
        scratch.clear();
        self.inner.successors(inner, scratch);
        for (mv, next) in scratch.iter() {
            self.push_inner_move(mv, next, tokens, out);
        }
    }

    /// The bytes of `inner` followed by the tokens, cleared when `inner` is terminal.
    fn push_inner_move(&self, mv: Move, inner: &[u8], tokens: &[u8], out: &mut Successors) {
        let ended = self.inner.terminal(inner).is_some();
        out.push_with(mv, |bytes| {
            bytes.extend_from_slice(inner);
            if ended {
                bytes.extend(std::iter::repeat_n(0, self.token_bytes));
            } else {
                bytes.extend_from_slice(tokens);
            }
        });
    }
}

/// Wraps the game of `level` with `tokens` tokens (title and canonical text unchanged:
/// the identity's options carry the count, under [`OPTION`]). Zero tokens leaves the
/// level as it is.
pub fn wrap(level: Level, tokens: usize) -> Result<Level, GamesError> {
    if tokens == 0 {
        return Ok(level);
    }
    let game = FlipTokens::new(level.game, tokens)?;
    Ok(Level {
        game: Box::new(game),
        ..level
    })
}

impl Game for FlipTokens {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn interrupt_on(&self, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.inner.interrupt_on(stop);
    }

    fn exploration_counts(&self) -> Vec<(String, u64)> {
        self.inner.exploration_counts()
    }

    fn failure(&self) -> Option<String> {
        self.inner.failure()
    }

    fn notes(&self) -> Vec<String> {
        self.inner.notes()
    }

    fn players(&self) -> u8 {
        self.inner.players()
    }

    fn state_width(&self) -> StateWidth {
        match self.inner.state_width() {
            StateWidth::Fixed(n) => StateWidth::Fixed(n + self.token_bytes),
            StateWidth::Variable { max } => StateWidth::Variable {
                max: max + self.token_bytes,
            },
        }
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        let mut states = self.inner.initial_states();
        for s in &mut states {
            s.extend(std::iter::repeat_n(0, self.token_bytes));
        }
        states
    }

    fn action_labels(&self) -> Vec<String> {
        let mut labels = self.inner.action_labels();
        labels.extend((1..=self.tokens).map(|i| format!("flip token {i}")));
        labels
    }

    fn outcome_names(&self) -> Vec<String> {
        self.inner.outcome_names()
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        self.inner.terminal(self.split(state).0)
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        let (inner, tokens) = self.split(state);
        INNER_MOVES.with(|cell| match cell.try_borrow_mut() {
            Ok(mut inner_moves) => self.push_inner_moves(inner, tokens, &mut inner_moves, out),
            // A wrapper inside a wrapper finds the buffer taken by the outer one.
            Err(_) => self.push_inner_moves(inner, tokens, &mut Successors::new(), out),
        });
        let player: PlayerId = self.inner.to_move(inner).unwrap_or(0);
        for i in 0..self.tokens {
            let mv = Move {
                action: self.flip_action(i),
                player,
                prob: Prob::ONE,
            };
            out.push_with(mv, |bytes| {
                bytes.extend_from_slice(inner);
                let start = bytes.len();
                bytes.extend_from_slice(tokens);
                if let Some(byte) = bytes.get_mut(start + i / 8) {
                    *byte ^= 1 << (i % 8);
                }
            });
        }
    }

    fn render(&self, state: &[u8]) -> String {
        let (inner, tokens) = self.split(state);
        let sides: String = (0..self.tokens)
            .map(|i| {
                let up = tokens.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1);
                if up {
                    'B'
                } else {
                    'A'
                }
            })
            .collect();
        format!("{}tokens: {sides}\n", self.inner.render(inner))
    }

    fn has_chance(&self) -> bool {
        self.inner.has_chance()
    }

    fn to_move(&self, state: &[u8]) -> Option<PlayerId> {
        self.inner.to_move(self.split(state).0)
    }

    fn decision_tuple(&self, action: ActionId) -> Option<Vec<Option<String>>> {
        // A flip is an ordinary action of one player, even in a simultaneous game.
        (usize::from(action) < self.inner_actions)
            .then(|| self.inner.decision_tuple(action))
            .flatten()
    }

    /// The inner game's features, then [`TOKENS_FEATURE`] for every token at once.
    fn features(&self) -> Vec<String> {
        let mut features = self.inner.features();
        features.push(TOKENS_FEATURE.to_string());
        features
    }

    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        let (inner, tokens) = self.split(state);
        let inner_ignored: Vec<usize> = ignored
            .iter()
            .copied()
            .filter(|&f| f < self.inner_features)
            .collect();
        self.inner.project(inner, &inner_ignored, out);
        if ignored.contains(&self.inner_features) {
            out.extend(std::iter::repeat_n(0, tokens.len()));
        } else {
            out.extend_from_slice(tokens);
        }
    }
}

#[cfg(test)]
#[path = "flip_tests.rs"]
mod tests;
