//! Splitting a game's text into lines with comments removed. Comments nest
//! and may span lines; commented characters become spaces so that columns
//! still point into the original line.

/// One line of the game, comments blanked out.
#[derive(Clone, Debug)]
pub struct Line {
    /// One-based line number.
    pub number: usize,
    /// The line as written (only `\r` removed).
    pub original: String,
    /// The case-folded line with every commented character replaced by a space.
    pub code: String,
    /// The depth of comment nesting at the start of the line.
    pub depth_before: usize,
    /// Byte offset in `code` of the first comment opening on this line, if any.
    pub first_comment: Option<usize>,
}

/// Splits `text` into lines, tracking comment depth across lines.
///
/// A line whose first word is `message` (outside a comment) keeps its text as
/// written: messages may contain parentheses. Rule lines are cut at their
/// `message` command by the rule reader, which asks for [`Line::original`].
pub fn split(text: &str) -> Vec<Line> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let original = raw.strip_suffix('\r').unwrap_or(raw).to_string();
        let lower = original.to_lowercase();
        let depth_before = depth;
        let (code, first_comment) = if depth == 0 && is_message_line(&lower) {
            (lower, None)
        } else {
            blank_comments(&lower, &mut depth)
        };
        out.push(Line {
            number: i + 1,
            original,
            code,
            depth_before,
            first_comment,
        });
    }
    out
}

fn is_message_line(lower: &str) -> bool {
    let t = lower.trim_start();
    t.starts_with("message")
        && !t["message".len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Blanks out commented characters; a rule's `message` command keeps the
/// rest of its line (the reference reads it verbatim).
fn blank_comments(line: &str, depth: &mut usize) -> (String, Option<usize>) {
    let mut code = String::with_capacity(line.len());
    let mut first = None;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if *depth == 0 && starts_message_token(&code, rest) {
            code.push_str(rest);
            break;
        }
        match c {
            '(' => {
                if *depth == 0 && first.is_none() {
                    first = Some(code.len());
                }
                *depth += 1;
                code.push(' ');
            }
            ')' => {
                // A stray ')' is skipped with a warning by the reference.
                *depth = depth.saturating_sub(1);
                code.push(' ');
            }
            _ if *depth > 0 => code.push(' '),
            _ => code.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    (code, first)
}

/// True when `rest` begins the command word `message` inside a rule (after
/// an arrow), so that the rest of the line is message text.
fn starts_message_token(before: &str, rest: &str) -> bool {
    rest.starts_with("message")
        && before.contains("->")
        && before
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == ']')
        && !rest["message".len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The one-based column of `part` inside the line.
pub(crate) fn column_of(line: &Line, part: &str) -> usize {
    line.code
        .find(part)
        .map_or(1, |b| line.code[..b].chars().count() + 1)
}

/// The words of `text` split by `sep`, with their one-based columns.
pub(crate) fn words(text: &str, sep: impl Fn(char) -> bool) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (b, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if sep(c) {
            if let Some(s) = start.take() {
                out.push((text[..s].chars().count() + 1, &text[s..b]));
            }
        } else if start.is_none() {
            start = Some(b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_nest_and_span_lines() {
        let lines = split("a (b (c) d\n e) f\nmessage (hi)");
        assert_eq!(lines[0].code, format!("a{}", " ".repeat(9)));
        assert_eq!(lines[1].code, "    f");
        assert_eq!(lines[1].depth_before, 1);
        assert_eq!(lines[2].code, "message (hi)");
    }

    #[test]
    fn rule_messages_keep_parentheses() {
        let lines = split("[ a ] -> [ b ] message oh (no)\nnext");
        assert_eq!(lines[0].code, "[ a ] -> [ b ] message oh (no)");
        assert_eq!(lines[1].code, "next");
    }
}
