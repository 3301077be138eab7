//! Fling! level files: HOG2 blocks (`Hash:` line and 8 rows, separated by
//! `----` lines) and plain 8-row boards, read into [`Board`]s and written back.

use super::board::{Board, CELLS, HEIGHT, WIDTH};
use crate::GamesError;

/// One board of a file, with where it starts (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawBoard {
    /// The board.
    pub board: Board,
    /// The 1-based line of the block's first row or `Hash:` line.
    pub line: usize,
}

/// True for a line that is a board row: 7 characters of `o` and `.`.
fn is_row(line: &str) -> bool {
    line.len() == WIDTH && line.chars().all(|c| c == 'o' || c == '.')
}

/// True when `text` is meant to be Fling! boards: it has a `Hash:` line or a `----`
/// separator (a HOG2 file), or a board row and no `#` (the walls every Sokoban board
/// has). A damaged row then gets Fling!'s error and position rather than Sokoban's.
pub fn looks_like(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim);
    let hog2 = lines.clone().any(|l| l == "----" || l.starts_with("Hash:"));
    hog2 || (lines.any(is_row) && !text.contains('#'))
}

fn syntax(file: &str, line: usize, column: usize, message: String, source: &str) -> GamesError {
    GamesError::Syntax {
        file: file.to_string(),
        line,
        column,
        message,
        excerpt: format!("\n{source}\n{}^", " ".repeat(column.saturating_sub(1))),
    }
}

/// A block being read: its optional hash and the rows seen so far.
#[derive(Default)]
struct Block {
    start: usize,
    hash: Option<(u64, usize, String)>,
    rows: Vec<(usize, String)>,
}

/// Reads every board of a file, checking each row and each `Hash:` line.
pub fn parse(file: &str, text: &str) -> Result<Vec<RawBoard>, GamesError> {
    let mut boards = Vec::new();
    let mut block = Block::default();
    for (number, raw) in text.lines().enumerate() {
        let (number, line) = (number + 1, raw.trim_end());
        if line.trim() == "----" {
            finish_block(file, std::mem::take(&mut block), &mut boards)?;
        } else if let Some(value) = line.strip_prefix("Hash:") {
            if block.hash.is_some() || !block.rows.is_empty() {
                let msg = "a `Hash:` line must start a block (separate boards with `----`)";
                return Err(syntax(file, number, 1, msg.into(), line));
            }
            let hash = value.trim().parse::<u64>().map_err(|_| {
                let msg = format!(
                    "`Hash:` needs a decimal 56-bit board mask, found {:?}",
                    value.trim()
                );
                syntax(file, number, 7, msg, line)
            })?;
            block.start = number;
            block.hash = Some((hash, number, line.to_string()));
        } else if !line.trim().is_empty() {
            check_row(file, number, line)?;
            if block.hash.is_none() && block.rows.is_empty() {
                block.start = number;
            }
            block.rows.push((number, line.to_string()));
        }
    }
    finish_block(file, block, &mut boards)?;
    Ok(boards)
}

fn check_row(file: &str, number: usize, line: &str) -> Result<(), GamesError> {
    if let Some((i, c)) = line
        .chars()
        .enumerate()
        .find(|(_, c)| *c != 'o' && *c != '.')
    {
        let msg =
            format!("unexpected character {c:?} in a board row (allowed: `o` piece, `.` empty)");
        return Err(syntax(file, number, i + 1, msg, line));
    }
    if line.chars().count() != WIDTH {
        let msg = format!(
            "a board row has {WIDTH} cells, this one has {}",
            line.chars().count()
        );
        return Err(syntax(file, number, 1, msg, line));
    }
    Ok(())
}

/// Turns a complete block into a board; an empty block (a trailing `----`) is skipped.
fn finish_block(file: &str, block: Block, boards: &mut Vec<RawBoard>) -> Result<(), GamesError> {
    if block.rows.is_empty() {
        return match block.hash {
            None => Ok(()),
            Some((_, line, text)) => Err(syntax(
                file,
                line,
                1,
                "a `Hash:` line without the 8 board rows".into(),
                &text,
            )),
        };
    }
    if block.rows.len() != HEIGHT {
        let (line, text) = block.rows.last().cloned().unwrap_or_default();
        let msg = format!(
            "a board has {HEIGHT} rows, this one has {}",
            block.rows.len()
        );
        return Err(syntax(file, line, 1, msg, &text));
    }
    let mut mask = 0u64;
    for (y, (_, row)) in block.rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c == 'o' {
                mask |= 1 << (y * WIDTH + x);
            }
        }
    }
    if let Some((hash, line, text)) = block.hash {
        if hash != mask {
            let msg = format!("`Hash: {hash}` does not match the rows below it, which give {mask}");
            return Err(syntax(file, line, 7, msg, &text));
        }
    }
    if mask == 0 {
        let (line, text) = block.rows.first().cloned().unwrap_or_default();
        return Err(syntax(
            file,
            line,
            1,
            "a board needs at least one piece".into(),
            &text,
        ));
    }
    let board = Board::from_mask(mask).unwrap_or_default();
    debug_assert!(board.mask() & !((1u64 << CELLS) - 1) == 0);
    boards.push(RawBoard {
        board,
        line: block.start,
    });
    Ok(())
}

/// One HOG2 block for `board`: the `Hash:` line, 8 rows and a blank line.
pub fn hog2_block(board: Board) -> String {
    format!("Hash: {}\n{}\n", board.mask(), board.rows())
}

/// A HOG2 level file holding `boards`, blocks separated by `----` as HOG2 writes them.
pub fn hog2_file(boards: &[Board]) -> String {
    boards
        .iter()
        .map(|b| format!("{}\n----\n\n", hog2_block(*b)))
        .collect()
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
