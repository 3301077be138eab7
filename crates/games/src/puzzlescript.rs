//! PuzzleScript games as one more level format: a thin adapter over the
//! `puzzlescript` crate, which holds the language and its engine
//! (`docs/puzzlescript.md`). It recognises a game by its section headers,
//! numbers its playable levels from 1 (message levels skipped), turns the
//! engine's errors into this crate's, and gives every level a canonical text
//! from which a stored run rebuilds it.
//!
//! The canonical text of level N is the line `(hyperstate: level N)` followed
//! by the game's source with `\r\n` line ends made `\n` and trailing blanks
//! removed. Parentheses open a comment in PuzzleScript, so the canonical text
//! is itself a valid game file.

mod counted;

use std::collections::BTreeMap;

use crate::{GamesError, Level, LevelSelector};
use counted::Counted;
pub use puzzlescript::coverage;
pub use puzzlescript::PuzzleScriptGame;

/// The first line of a canonical level text, before the level's number.
const HEADER: &str = "(hyperstate: level ";

/// The section headers of a PuzzleScript game.
const SECTIONS: [&str; 7] = [
    "objects",
    "legend",
    "sounds",
    "collisionlayers",
    "rules",
    "winconditions",
    "levels",
];

/// True when `text` looks like a PuzzleScript game: at least two of its
/// section headers (`OBJECTS`, `LEGEND`, `SOUNDS`, `COLLISIONLAYERS`,
/// `RULES`, `WINCONDITIONS`, `LEVELS`) stand alone on their lines, in any
/// case. A game with one header misspelled or missing is still recognised,
/// so that the PuzzleScript parser, not another format's, says what is wrong.
pub fn looks_like(text: &str) -> bool {
    let mut seen = [false; SECTIONS.len()];
    for line in text.lines() {
        let word = line.trim();
        if let Some(i) = SECTIONS.iter().position(|s| word.eq_ignore_ascii_case(s)) {
            seen[i] = true;
        }
    }
    seen.iter().filter(|&&s| s).count() >= 2
}

/// The run option that keeps a PuzzleScript game's inert objects in its
/// states (`hsg explore --keep-inert`); [`crate::reload`] reads it.
pub const KEEP_INERT: &str = "keep_inert";

/// Loads the selected playable level of a PuzzleScript game, its inert
/// objects left out (see `puzzlescript::compile::inert`).
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    load_with(file_name, text, selector, false, None)
}

/// [`load`], keeping the inert objects when `keep_inert` is true.
pub fn load_with(
    file_name: &str,
    text: &str,
    selector: &LevelSelector,
    keep_inert: bool,
    max_outcomes: Option<u64>,
) -> Result<Level, GamesError> {
    // The header of a canonical text is a comment: compiling the text with it
    // keeps the line numbers of errors those of the text as given.
    let source = normalise(text);
    let compiled = compile(file_name, &source)?;
    let titles = titles(&compiled);
    let borrowed: Vec<&str> = titles.iter().map(String::as_str).collect();
    let number = crate::select(file_name, &borrowed, selector)?;
    let (compiled, inert) = if keep_inert {
        let inert = compiled.inert_names();
        (compiled, inert)
    } else {
        compiled.without_inert()
    };
    let notes = match (inert.is_empty(), keep_inert) {
        (true, _) => Vec::new(),
        (false, false) => vec![format!(
            "inert objects (no rule, win condition or movement depends on them; left out of the \
             state, --keep-inert keeps them): {}",
            inert.join(", ")
        )],
        (false, true) => vec![format!(
            "inert objects (kept in the state by --keep-inert): {}",
            inert.join(", ")
        )],
    };
    let mut game = PuzzleScriptGame::new(compiled, number).map_err(|e| convert(e, &source))?;
    if let Some(n) = max_outcomes {
        game.set_max_outcomes(n);
    }
    Ok(Level {
        game: Box::new(Counted::new(game, notes)),
        title: borrowed
            .get(number - 1)
            .map_or_else(String::new, |t| t.to_string()),
        text: format!("{HEADER}{number})\n{}", strip_header(&source)),
        index: number,
        count: titles.len(),
    })
}

/// Lists the playable levels of a game as (number, title).
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    let compiled = compile(file_name, &normalise(text))?;
    Ok(titles(&compiled)
        .into_iter()
        .enumerate()
        .map(|(i, t)| (i + 1, t))
        .collect())
}

/// For each playable level, the message shown just before it (the last one since the
/// previous level), if any: what a player reads as the level's introduction.
pub fn level_messages(file_name: &str, text: &str) -> Result<Vec<Option<String>>, GamesError> {
    let compiled = compile(file_name, &normalise(text))?;
    let mut messages = Vec::new();
    let mut last = None;
    for entry in &compiled.levels {
        match entry {
            puzzlescript::compile::Level::Message(m) => last = Some(m.trim().to_string()),
            puzzlescript::compile::Level::Grid(_) => messages.push(last.take()),
        }
    }
    Ok(messages)
}

/// Rebuilds a level from its canonical text (see the module documentation),
/// keeping its inert objects when the run did.
pub fn reload(file_name: &str, text: &str, keep_inert: bool) -> Result<Level, GamesError> {
    reload_with(file_name, text, keep_inert, None)
}

/// [`reload`] with a bound on the random outcomes of one (state, input)
/// (`hsg explore --max-outcomes`; the engine's default without it).
pub fn reload_with(
    file_name: &str,
    text: &str,
    keep_inert: bool,
    max_outcomes: Option<u64>,
) -> Result<Level, GamesError> {
    let number = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix(HEADER))
        .and_then(|rest| rest.strip_suffix(')'))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .ok_or_else(|| GamesError::Syntax {
            file: file_name.to_string(),
            line: 1,
            column: 1,
            message: format!("a stored PuzzleScript level starts with `{HEADER}N)`"),
            excerpt: String::new(),
        })?;
    load_with(
        file_name,
        text,
        &LevelSelector::Index(number),
        keep_inert,
        max_outcomes,
    )
}

/// The engine's own game of a stored PuzzleScript run (kind, canonical level
/// text and options as [`crate::reload`] takes them), for what only the engine
/// can tell ([`coverage`]): `None` for a run of another kind, or one whose
/// states carry flip tokens (their encoding is not the engine's).
pub fn stored_engine(
    kind: &str,
    level_text: &str,
    options: &BTreeMap<String, String>,
) -> Result<Option<PuzzleScriptGame>, GamesError> {
    let tokens = options.get(crate::flip::OPTION).map(String::as_str);
    if kind != "puzzlescript" || tokens.is_some_and(|t| t != "0") {
        return Ok(None);
    }
    let file = "stored puzzlescript level";
    let number = level_number(level_text).ok_or_else(|| GamesError::Syntax {
        file: file.to_string(),
        line: 1,
        column: 1,
        message: format!("a stored PuzzleScript level starts with `{HEADER}N)`"),
        excerpt: String::new(),
    })?;
    // Without its header, so that rule lines are those of the game file as written.
    let source = normalise(strip_header(level_text));
    let compiled = compile(file, &source)?;
    let compiled = if options.contains_key(KEEP_INERT) {
        compiled
    } else {
        compiled.without_inert().0
    };
    PuzzleScriptGame::new(compiled, number)
        .map(Some)
        .map_err(|e| convert(e, &source))
}

/// The playable level number a canonical level text names in its header.
pub fn level_number(text: &str) -> Option<usize> {
    text.lines()
        .next()
        .and_then(|line| line.strip_prefix(HEADER))
        .and_then(|rest| rest.strip_suffix(')'))
        .and_then(|n| n.trim().parse::<usize>().ok())
}

/// The titles of the playable levels: `level N: WxH`, then the game's title.
fn titles(compiled: &puzzlescript::Compiled) -> Vec<String> {
    let game = compiled
        .title
        .as_deref()
        .map(|t| format!(", {}", t.trim()))
        .unwrap_or_default();
    puzzlescript::list_levels(compiled)
        .into_iter()
        .map(|l| format!("level {}: {}x{}{game}", l.number, l.width, l.height))
        .collect()
}

/// The text without a leading canonical header, so that loading a canonical
/// text gives the same canonical text again.
fn strip_header(text: &str) -> &str {
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with(HEADER) => rest,
        _ => text,
    }
}

/// The source with `\n` line ends, no trailing blanks and one final newline.
fn normalise(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len() + 1);
    for line in text.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn compile(file_name: &str, source: &str) -> Result<puzzlescript::Compiled, GamesError> {
    puzzlescript::compile(file_name, source).map_err(|e| convert(e, source))
}

/// The engine's error as this crate's: every error about the game's text
/// names a line and a column (a compiler error that gives its line but no
/// column gets the column of the name it quotes, else column 1) and quotes
/// the line.
fn convert(error: puzzlescript::Error, source: &str) -> GamesError {
    use puzzlescript::Error as E;
    let (file, line, column, message) = match error {
        E::Syntax {
            file,
            line,
            column,
            message,
        } => (file, line, column, message),
        E::Compile {
            file,
            line,
            column,
            message,
        } => {
            let line = line.unwrap_or(1);
            let column = column.unwrap_or_else(|| quoted_column(&message, source, line));
            (file, line, column, message)
        }
        E::Level { file, message } => (file, 1, 1, message),
        other => (String::new(), 1, 1, other.to_string()),
    };
    let excerpt = source
        .lines()
        .nth(line.saturating_sub(1))
        .map(|text| format!("\n{text}\n{}^", " ".repeat(column.saturating_sub(1))))
        .unwrap_or_default();
    GamesError::Syntax {
        file,
        line,
        column,
        message,
        excerpt,
    }
}

/// The 1-based column on `line` of the first name quoted in `text`, else 1.
fn quoted_column(text: &str, source: &str, line: usize) -> usize {
    let name = text.split('"').nth(1).filter(|n| !n.is_empty());
    let row = source.lines().nth(line.saturating_sub(1));
    match (name, row) {
        (Some(name), Some(row)) => {
            let row = row.to_lowercase();
            row.find(&name.to_lowercase())
                .map_or(1, |byte| row[..byte].chars().count() + 1)
        }
        _ => 1,
    }
}

#[cfg(test)]
mod tests;
