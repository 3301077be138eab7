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

use crate::{GamesError, Level, LevelSelector};
use counted::Counted;

/// The first line of a canonical level text, before the level's number.
const HEADER: &str = "(hyperstate: level ";

/// True when `text` looks like a PuzzleScript game: it has an `OBJECTS`
/// section header and a `LEGEND` or `COLLISIONLAYERS` one (headers stand
/// alone on their line, in any case).
pub fn looks_like(text: &str) -> bool {
    let has = |name: &str| {
        text.lines()
            .any(|line| line.trim().eq_ignore_ascii_case(name))
    };
    has("objects") && (has("collisionlayers") || has("legend"))
}

/// Loads the selected playable level of a PuzzleScript game.
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    // The header of a canonical text is a comment: compiling the text with it
    // keeps the line numbers of errors those of the text as given.
    let source = normalise(text);
    let compiled = compile(file_name, &source)?;
    let titles = titles(&compiled);
    let borrowed: Vec<&str> = titles.iter().map(String::as_str).collect();
    let number = crate::select(file_name, &borrowed, selector)?;
    let game =
        puzzlescript::PuzzleScriptGame::new(compiled, number).map_err(|e| convert(e, &source))?;
    Ok(Level {
        game: Box::new(Counted::new(game)),
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

/// Rebuilds a level from its canonical text (see the module documentation).
pub fn reload(file_name: &str, text: &str) -> Result<Level, GamesError> {
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
    load(file_name, text, &LevelSelector::Index(number))
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
/// names a line and a column (the compiler's `line N: ...` messages get the
/// column of the name they quote, else column 1) and quotes the line.
fn convert(error: puzzlescript::Error, source: &str) -> GamesError {
    use puzzlescript::Error as E;
    let (file, line, column, message) = match error {
        E::Syntax {
            file,
            line,
            column,
            message,
        } => (file, line, column, message),
        E::Compile { file, message } => {
            let (line, column, message) = locate(&message, source);
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

/// Splits a compiler message `line N[, column C]: text` into its position
/// and text; without a column, the first quoted name's place on that line.
fn locate(message: &str, source: &str) -> (usize, usize, String) {
    let Some(rest) = message.strip_prefix("line ") else {
        return (1, 1, message.to_string());
    };
    let Some((position, text)) = rest.split_once(": ") else {
        return (1, 1, message.to_string());
    };
    let mut parts = position.split(", column ");
    let line = parts.next().and_then(|n| n.trim().parse::<usize>().ok());
    let column = parts.next().and_then(|n| n.trim().parse::<usize>().ok());
    let Some(line) = line else {
        return (1, 1, message.to_string());
    };
    let column = column.unwrap_or_else(|| quoted_column(text, source, line));
    (line, column, text.to_string())
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
