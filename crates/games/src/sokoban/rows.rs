//! Expansion of one XSB board line into cells: run-length counts (`3#`),
//! row breaks inside a line (`|`) and the floor synonyms `-` and `_`.

use crate::GamesError;

/// The longest run a count may ask for; larger counts are typing errors
/// and would otherwise let a few bytes of input allocate gigabytes.
pub(crate) const MAX_RUN: usize = 4096;

/// One board cell as written, with the place in the file it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SourceCell {
    /// The cell, normalised: one of `#@+$*.` or a space for floor.
    pub ch: char,
    /// 1-based line in the file.
    pub line: usize,
    /// 1-based column (in characters) of the character that produced it.
    pub column: usize,
}

/// True for the characters that draw a cell, floor synonyms included.
pub(crate) fn is_cell_char(c: char) -> bool {
    matches!(c, '#' | '@' | '+' | '$' | '*' | '.' | ' ' | '-' | '_')
}

/// A pending run-length count: its digits and where they started.
struct PendingCount {
    digits: String,
    column: usize,
}

/// Splits `text` (line `line` of `file`) into board rows, expanding run
/// lengths; fails on the first character that does not belong to a board.
pub(crate) fn expand_line(
    file: &str,
    line: usize,
    text: &str,
) -> Result<Vec<Vec<SourceCell>>, GamesError> {
    let mut rows = vec![Vec::new()];
    let mut pending: Option<PendingCount> = None;
    for (index, c) in text.chars().enumerate() {
        let column = index + 1;
        if c.is_ascii_digit() {
            pending
                .get_or_insert_with(|| PendingCount {
                    digits: String::new(),
                    column,
                })
                .digits
                .push(c);
        } else if c == '|' {
            check_no_pending(file, line, pending.take())?;
            rows.push(Vec::new());
        } else if is_cell_char(c) {
            let count = run_length(file, line, pending.take())?;
            let ch = if c == '-' || c == '_' { ' ' } else { c };
            if let Some(row) = rows.last_mut() {
                row.resize(row.len() + count, SourceCell { ch, line, column });
            }
        } else {
            return Err(GamesError::ForeignCharacter {
                file: file.to_string(),
                line,
                column,
                found: c,
            });
        }
    }
    check_no_pending(file, line, pending)?;
    Ok(rows)
}

/// Fails when a count is left without a character to repeat.
fn check_no_pending(
    file: &str,
    line: usize,
    pending: Option<PendingCount>,
) -> Result<(), GamesError> {
    match pending {
        None => Ok(()),
        Some(p) => Err(GamesError::DanglingRunLength {
            file: file.to_string(),
            line,
            column: p.column,
            digits: p.digits,
        }),
    }
}

/// The repeat count of the next character: one without digits, else the
/// digits' value when it lies in `1..=MAX_RUN`.
fn run_length(file: &str, line: usize, pending: Option<PendingCount>) -> Result<usize, GamesError> {
    let Some(p) = pending else {
        return Ok(1);
    };
    match p.digits.parse::<usize>() {
        Ok(n) if (1..=MAX_RUN).contains(&n) => Ok(n),
        _ => Err(GamesError::RunLengthOutOfRange {
            file: file.to_string(),
            line,
            column: p.column,
            digits: p.digits,
            max: MAX_RUN,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(rows: &[Vec<SourceCell>]) -> Vec<String> {
        rows.iter()
            .map(|r| r.iter().map(|c| c.ch).collect())
            .collect()
    }

    #[test]
    fn expands_runs_and_row_breaks() {
        let rows = expand_line("f", 3, "4#|#@-$.#|#_12-#|4#").unwrap();
        assert_eq!(
            chars(&rows),
            vec!["####", "#@ $.#", "#             #", "####"]
        );
        // Every cell of a run points at the character, not at its digits.
        assert_eq!(
            rows[2][3],
            SourceCell {
                ch: ' ',
                line: 3,
                column: 15
            }
        );
        assert_eq!(
            rows[1][1],
            SourceCell {
                ch: '@',
                line: 3,
                column: 5
            }
        );
    }

    #[test]
    fn rejects_foreign_character_at_its_column() {
        let err = expand_line("a.xsb", 7, "#@ x#").unwrap_err();
        assert_eq!(
            err,
            GamesError::ForeignCharacter {
                file: "a.xsb".into(),
                line: 7,
                column: 4,
                found: 'x'
            }
        );
        assert!(err
            .to_string()
            .starts_with("a.xsb:7:4: unexpected character 'x'"));
    }

    #[test]
    fn rejects_dangling_and_out_of_range_counts() {
        let err = expand_line("f", 2, "##12|#").unwrap_err();
        assert!(matches!(
            err,
            GamesError::DanglingRunLength {
                line: 2,
                column: 3,
                ..
            }
        ));
        let err = expand_line("f", 2, "###3").unwrap_err();
        assert!(matches!(
            err,
            GamesError::DanglingRunLength { column: 4, .. }
        ));
        let err = expand_line("f", 1, "#0#").unwrap_err();
        assert!(matches!(
            err,
            GamesError::RunLengthOutOfRange { column: 2, .. }
        ));
        let err = expand_line("f", 1, "99999999999999999999999#").unwrap_err();
        assert!(matches!(
            err,
            GamesError::RunLengthOutOfRange { column: 1, .. }
        ));
    }
}
