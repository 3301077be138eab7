//! The one error type of the `games` crate: everything that can be wrong
//! with a level file, each case naming the file and a 1-based position.

use thiserror::Error;

/// A level file that cannot be turned into a game.
///
/// Every variant names the file; those about a place in the file also give
/// its 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GamesError {
    /// The file holds no board at all.
    #[error("{file}: no level found (a board needs at least one row with a `#` wall)")]
    EmptyFile {
        /// The file name as given by the caller.
        file: String,
    },

    /// A board row holds a character that is not part of the XSB alphabet.
    #[error(
        "{file}:{line}:{column}: unexpected character {found:?} in a board row \
         (allowed: `#@+$*.` space `-` `_`, run-length digits and `|`)"
    )]
    ForeignCharacter {
        /// The file name.
        file: String,
        /// Line of the character.
        line: usize,
        /// Column of the character.
        column: usize,
        /// The offending character.
        found: char,
    },

    /// A run-length count is not followed by a board character.
    #[error("{file}:{line}:{column}: run length {digits} is not followed by a board character")]
    DanglingRunLength {
        /// The file name.
        file: String,
        /// Line of the count's first digit.
        line: usize,
        /// Column of the count's first digit.
        column: usize,
        /// The digits as written.
        digits: String,
    },

    /// A run-length count is zero or unreasonably large.
    #[error("{file}:{line}:{column}: run length {digits} is out of range (1 to {max})")]
    RunLengthOutOfRange {
        /// The file name.
        file: String,
        /// Line of the count's first digit.
        line: usize,
        /// Column of the count's first digit.
        column: usize,
        /// The digits as written.
        digits: String,
        /// The largest count accepted.
        max: usize,
    },

    /// The level has no `@` or `+`.
    #[error("{file}:{line}:{column}: level {title:?} has no player (`@` or `+`)")]
    NoPlayer {
        /// The file name.
        file: String,
        /// First line of the board.
        line: usize,
        /// Column 1.
        column: usize,
        /// The level's title.
        title: String,
    },

    /// The level has a second player; the position is the second one.
    #[error(
        "{file}:{line}:{column}: level {title:?} has a second player \
         (the first is at line {first_line}, column {first_column})"
    )]
    TwoPlayers {
        /// The file name.
        file: String,
        /// Line of the second player.
        line: usize,
        /// Column of the second player.
        column: usize,
        /// Line of the first player.
        first_line: usize,
        /// Column of the first player.
        first_column: usize,
        /// The level's title.
        title: String,
    },

    /// The player can walk off the board: the walls do not enclose it.
    #[error(
        "{file}:{line}:{column}: level {title:?} is open: the player can walk off \
         the board from this cell (the walls must enclose the player's region)"
    )]
    OpenLevel {
        /// The file name.
        file: String,
        /// Line of a reachable cell next to the outside.
        line: usize,
        /// Column of that cell.
        column: usize,
        /// The level's title.
        title: String,
    },

    /// A box lies outside the region the player can walk, so it can never move.
    #[error(
        "{file}:{line}:{column}: level {title:?} has a box the player can never reach \
         (it lies outside the player's region)"
    )]
    UnreachableBox {
        /// The file name.
        file: String,
        /// Line of the box.
        line: usize,
        /// Column of the box.
        column: usize,
        /// The level's title.
        title: String,
    },

    /// The player's region has more cells than a state encoding can index.
    #[error(
        "{file}:{line}:{column}: level {title:?} is too large: the player's region has \
         {cells} cells, at most {max} are supported"
    )]
    LevelTooLarge {
        /// The file name.
        file: String,
        /// First line of the board.
        line: usize,
        /// Column 1.
        column: usize,
        /// The level's title.
        title: String,
        /// Cells in the player's region.
        cells: usize,
        /// The largest region supported.
        max: usize,
    },

    /// A level number outside `1..=count` was asked for.
    #[error("{file}: there is no level {index}: the file holds {count} level(s), numbered from 1")]
    NoSuchIndex {
        /// The file name.
        file: String,
        /// The number asked for.
        index: usize,
        /// How many levels the file holds.
        count: usize,
    },

    /// No level carries the title asked for.
    #[error("{file}: no level titled {title:?} among its {count} level(s) (titles: {known})")]
    NoSuchTitle {
        /// The file name.
        file: String,
        /// The title asked for.
        title: String,
        /// How many levels the file holds.
        count: usize,
        /// The first few titles of the file, for the reader's orientation.
        known: String,
    },

    /// A syntax or rule error at a place in a file of any of the newer
    /// formats (PuzzleGraph, Fling, sandbox, `.game`); `message` says what is
    /// wrong in a full sentence and `excerpt` may quote the line with a caret.
    #[error("{file}:{line}:{column}: {message}{excerpt}")]
    Syntax {
        /// The file name.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong.
        message: String,
        /// Empty, or a newline, the offending line and a caret line under the column.
        excerpt: String,
    },

    /// A token-flip wrapper (`--flip-tokens`) asked for more tokens than a state or
    /// an action id can hold.
    #[error(
        "--flip-tokens {tokens}: at most {max} tokens can be added to a game with {actions} actions"
    )]
    TooManyTokens {
        /// Tokens asked for.
        tokens: usize,
        /// The most this game accepts.
        max: usize,
        /// Actions of the wrapped game.
        actions: usize,
    },

    /// A stored run names a game kind that no parser of this build reads.
    #[error(
        "a stored run names the game kind {kind:?}, which this build cannot load (known: {known})"
    )]
    UnknownKind {
        /// The kind as stored.
        kind: String,
        /// The kinds this build reloads, comma-separated.
        known: String,
    },

    /// A stored run's option that changes the game has a value that cannot be read.
    #[error("a stored run's option {option} = {value:?} is not a number")]
    BadOption {
        /// The option's name.
        option: String,
        /// Its stored value.
        value: String,
    },

    /// A game or format that this build cannot load yet.
    #[error("{file}: {what} levels are not supported yet")]
    Unsupported {
        /// The file name.
        file: String,
        /// Which game or format.
        what: String,
    },
}
