//! Splitting an XSB/SOK file into its levels and finding each level's title.
//!
//! A board line holds only board characters, run-length digits and `|`, and
//! at least one `#`; consecutive board lines form one board. Everything else
//! (blank lines, `;` comments, `Title:`-style metadata, free text) lies
//! between boards and may name them. Titles come, in order of preference,
//! from a `Title:` line, then from the text nearest the board on the side the
//! file uses for titles (before the board unless the first board has no text
//! before it but text right after it), then from the other side, and finally
//! fall back to `level N`.

use super::rows::{expand_line, is_cell_char, SourceCell};
use crate::GamesError;

/// One level as found in the file, before any rule checks.
#[derive(Clone, Debug)]
pub(crate) struct RawLevel {
    /// The level's title.
    pub title: String,
    /// 1-based line of the first board row.
    pub first_line: usize,
    /// The board rows, run lengths expanded.
    pub rows: Vec<Vec<SourceCell>>,
}

/// What a line of the file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineKind<'a> {
    Blank,
    Board,
    /// A `;` comment, with the text after the semicolon trimmed.
    Comment(&'a str),
    /// Any other text, trimmed.
    Text(&'a str),
}

/// Metadata keys of the SOK format that never name a level by themselves.
const METADATA_KEYS: &[&str] = &[
    "author",
    "comment",
    "comment-end",
    "collection",
    "set",
    "copyright",
    "email",
    "homepage",
    "url",
    "date",
    "date created",
    "date of last change",
    "difficulty",
    "source",
];

/// Splits `text` into its levels; fails on a malformed board row or when
/// the file holds no board.
pub(crate) fn split_levels(file: &str, text: &str) -> Result<Vec<RawLevel>, GamesError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let kinds = classify_lines(&lines);
    let boards = board_ranges(&kinds);
    if boards.is_empty() {
        return Err(GamesError::EmptyFile {
            file: file.to_string(),
        });
    }
    let titles = find_titles(&kinds, &boards);
    let mut levels = Vec::with_capacity(boards.len());
    for ((start, end), title) in boards.into_iter().zip(titles) {
        let mut rows = Vec::new();
        for (i, line) in lines.iter().enumerate().take(end).skip(start) {
            rows.extend(expand_line(file, i + 1, line)?);
        }
        levels.push(RawLevel {
            title,
            first_line: start + 1,
            rows,
        });
    }
    Ok(levels)
}

/// Classifies every line; text lines that sit inside or against a board
/// and look like a row are taken as board rows so that their foreign
/// characters are reported instead of silently cutting the board in two.
fn classify_lines<'a>(lines: &[&'a str]) -> Vec<LineKind<'a>> {
    let plain: Vec<LineKind<'a>> = lines.iter().map(|l| classify(l)).collect();
    let is_board = |i: Option<usize>| i.and_then(|i| plain.get(i)) == Some(&LineKind::Board);
    let mut kinds = plain.clone();
    for (i, kind) in kinds.iter_mut().enumerate() {
        let LineKind::Text(t) = *kind else { continue };
        let (above, below) = (is_board(i.checked_sub(1)), is_board(Some(i + 1)));
        let starts_like_row = t
            .chars()
            .next()
            .is_some_and(|c| is_cell_char(c) && c != ' ');
        if starts_like_row && ((above && below) || ((above || below) && mostly_board(t))) {
            *kind = LineKind::Board;
        }
    }
    kinds
}

/// The kind of one line on its own.
fn classify(line: &str) -> LineKind<'_> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        LineKind::Blank
    } else if let Some(comment) = trimmed.strip_prefix(';') {
        LineKind::Comment(comment.trim())
    } else if is_board_line(line) {
        LineKind::Board
    } else {
        LineKind::Text(trimmed)
    }
}

/// True when the line is made of board characters, digits and `|` only,
/// has a wall, and every digit run is followed by a board character.
fn is_board_line(line: &str) -> bool {
    let mut after_digit = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            after_digit = true;
        } else if c == '|' {
            if after_digit {
                return false;
            }
        } else if is_cell_char(c) {
            after_digit = false;
        } else {
            return false;
        }
    }
    !after_digit && line.contains('#')
}

/// True when more than half of the line's visible characters could belong
/// to a board.
fn mostly_board(text: &str) -> bool {
    let visible = text.chars().filter(|c| !c.is_whitespace());
    let (board, total) = visible.fold((0usize, 0usize), |(b, t), c| {
        let fits = is_cell_char(c) || c.is_ascii_digit() || c == '|';
        (b + usize::from(fits), t + 1)
    });
    2 * board > total
}

/// The `[start, end)` line ranges of consecutive board lines.
fn board_ranges(kinds: &[LineKind<'_>]) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut start = None;
    for (i, kind) in kinds.iter().enumerate() {
        match (kind == &LineKind::Board, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                ranges.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        ranges.push((s, kinds.len()));
    }
    ranges
}

/// The title of every board, in order.
fn find_titles(kinds: &[LineKind<'_>], boards: &[(usize, usize)]) -> Vec<String> {
    let titles_after = uses_titles_after(kinds, boards);
    let mut before_start = 0;
    let mut titles = Vec::with_capacity(boards.len());
    for (k, &(start, end)) in boards.iter().enumerate() {
        let next_start = boards.get(k + 1).map_or(kinds.len(), |b| b.0);
        let after_end = if k + 1 == boards.len() {
            kinds.len()
        } else {
            end + attached_run(&kinds[end..next_start], titles_after)
        };
        let before = &kinds[before_start..start];
        let after = &kinds[end..after_end];
        let (near, far) = if titles_after {
            (first_title_like(after), last_paragraph_title(before))
        } else {
            (last_paragraph_title(before), first_title_like(after))
        };
        let title = title_key(after.iter().chain(before.iter().rev()))
            .or(near)
            .or(far)
            .unwrap_or_else(|| format!("level {}", k + 1));
        titles.push(title);
        before_start = after_end;
    }
    titles
}

/// True when the file names its levels after the boards: nothing names the
/// first board before it, but a text line follows it directly.
fn uses_titles_after(kinds: &[LineKind<'_>], boards: &[(usize, usize)]) -> bool {
    let Some(&(start, end)) = boards.first() else {
        return false;
    };
    let before = &kinds[..start];
    let named_before = title_key(before.iter()).is_some() || last_paragraph_title(before).is_some();
    !named_before && matches!(kinds.get(end), Some(LineKind::Text(_)))
}

/// How many lines right after a board belong to it: in files titled after
/// the boards, the whole paragraph; otherwise only a run of metadata lines
/// such as `Title:` and `Author:`.
fn attached_run(gap: &[LineKind<'_>], titles_after: bool) -> usize {
    gap.iter()
        .take_while(|k| match k {
            LineKind::Text(t) => titles_after || metadata(t).is_some(),
            LineKind::Comment(_) => titles_after,
            _ => false,
        })
        .count()
}

/// The value of the first `Title:` line among `lines`.
fn title_key<'a, 'b: 'a>(lines: impl Iterator<Item = &'a LineKind<'b>>) -> Option<String> {
    lines
        .filter_map(|k| match k {
            LineKind::Text(t) => metadata(t),
            _ => None,
        })
        .find(|(key, value)| key == "title" && !value.is_empty())
        .map(|(_, value)| value.to_string())
}

/// Splits a `Key: value` line; the key is lower-cased.
fn metadata(text: &str) -> Option<(String, &str)> {
    let (key, value) = text.split_once(':')?;
    let key = key.trim().to_ascii_lowercase();
    (key == "title" || METADATA_KEYS.contains(&key.as_str())).then_some((key, value.trim()))
}

/// A line that can serve as a title: a non-empty comment or free text that
/// is not metadata.
fn title_like(kind: &LineKind<'_>) -> Option<String> {
    match kind {
        LineKind::Comment(c) if !c.is_empty() => Some(c.to_string()),
        LineKind::Text(t) if metadata(t).is_none() => Some(t.to_string()),
        _ => None,
    }
}

/// The first title-like line of `lines`.
fn first_title_like(lines: &[LineKind<'_>]) -> Option<String> {
    lines.iter().find_map(title_like)
}

/// The first title-like line of the last paragraph (blank-separated) of
/// `lines` that has one: the text nearest a board, read top-down.
fn last_paragraph_title(lines: &[LineKind<'_>]) -> Option<String> {
    lines
        .split(|k| *k == LineKind::Blank)
        .rev()
        .find_map(first_title_like)
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
