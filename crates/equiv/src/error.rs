//! The one error type of the equivalence crate.

use thiserror::Error;

/// Everything that can stop a tree from being built, compared or written.
#[derive(Debug, Error)]
pub enum EquivError {
    /// The tree would exceed the node budget (an infinite or very large game).
    #[error("{game}: the game tree exceeds {limit} nodes (is the game finite? raise the limit or compare partial trees by sampling)")]
    TreeTooLarge {
        /// The game's title.
        game: String,
        /// The node budget.
        limit: usize,
    },
    /// A play returns to a state it passed through: the game tree is infinite.
    #[error("{game}: the play {path:?} returns to a state it passed through, so the game tree is infinite (compare partial trees by sampling instead)")]
    Cycle {
        /// The game's title.
        game: String,
        /// Action labels from the root to the repeated state.
        path: Vec<String>,
    },
    /// The outcomes of one decision do not have probabilities summing to one.
    #[error("{game}: the outcomes of action `{action}` have probabilities summing to {sum}, not 1, at state\n{state}")]
    BadProbabilities {
        /// The game's title.
        game: String,
        /// The action's label.
        action: String,
        /// The sum found, as a fraction.
        sum: String,
        /// The state, rendered.
        state: String,
    },
    /// Two edges of one node carry the same decision tuple.
    #[error(
        "{game}: actions `{first}` and `{second}` carry the same decision tuple at state\n{state}"
    )]
    DuplicateDecision {
        /// The game's title.
        game: String,
        /// The first action's label.
        first: String,
        /// The second action's label.
        second: String,
        /// The state, rendered.
        state: String,
    },
    /// A decision tuple does not have one entry per player.
    #[error(
        "{game}: the decision tuple of action `{action}` has {len} entries for {players} players"
    )]
    BadTuple {
        /// The game's title.
        game: String,
        /// The action's label.
        action: String,
        /// Entries in the tuple.
        len: usize,
        /// Players of the game.
        players: u8,
    },
    /// A simultaneous decision matrix too large to put in canonical form exactly.
    #[error("a decision matrix of dimensions {dims:?} is too large to put in canonical form exactly (more than {limit} relabelings to try)")]
    MatrixTooLarge {
        /// The matrix's dimensions, one per active player.
        dims: Vec<u32>,
        /// The relabeling budget.
        limit: u64,
    },
    /// Too many player and outcome correspondences survive the invariants.
    #[error("{count} player and outcome correspondences survive the invariants, more than the {limit} this comparison tries")]
    TooManyCorrespondences {
        /// Correspondences left.
        count: u128,
        /// The budget.
        limit: u128,
    },
    /// Probabilities multiplied along a chance chain no longer fit 64 bits.
    #[error("probability arithmetic overflowed: {0}")]
    ProbabilityOverflow(String),
    /// A state-mapping file could not be read.
    #[error("{file}, line {line}: {message}")]
    MapSyntax {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Sampling could not proceed (no state to sample, a state that does not map).
    #[error("similarity: {0}")]
    Sampling(String),
    /// A state does not fit the record size the game declares.
    #[error("a {len}-byte state does not fit the game's declared {slot}-byte records")]
    BadRecord {
        /// The state's length.
        len: usize,
        /// The record size.
        slot: usize,
    },
    /// Writing the tree as a store failed.
    #[error(transparent)]
    Store(#[from] store::StoreError),
}
