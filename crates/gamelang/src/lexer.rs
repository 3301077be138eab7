//! Splits the text of a `.game` file into tokens, each with its 1-based line
//! and column, so that every later error can point at the exact place.

use super::diag::{Diag, Pos};

/// One token of the language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A name or a keyword (keywords are told apart by the parser).
    Ident(String),
    /// A non-negative integer literal.
    Int(i64),
    /// A double-quoted string (titles, outcome names).
    Str(String),
    /// Punctuation or an operator, e.g. `:=`, `..`, `(`.
    Sym(&'static str),
    /// The end of the file.
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(n) => format!("`{n}`"),
            Tok::Str(s) => format!("{s:?}"),
            Tok::Sym(s) => format!("`{s}`"),
            Tok::Eof => "the end of the file".to_string(),
        }
    }
}

/// Symbols, longest first so that `:=` wins over `:`.
const SYMBOLS: &[&str] = &[
    ":=", "==", "!=", "<=", ">=", "..", "(", ")", "[", "]", "{", "}", ",", ":", ";", "=", "<", ">",
    "+", "-", "*", "/", "%", "?",
];

/// Tokenises `text`; the result always ends with [`Tok::Eof`].
pub fn lex(text: &str) -> Result<Vec<(Pos, Tok)>, Diag> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while let Some(&c) = chars.get(i) {
        let pos = Pos { line, col };
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '#' {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
            continue;
        }
        let (tok, len) = token_at(&chars[i..], pos)?;
        out.push((pos, tok));
        i += len;
        col += len as u32;
    }
    out.push((Pos { line, col }, Tok::Eof));
    Ok(out)
}

/// The token starting at `rest[0]` and how many characters it spans.
fn token_at(rest: &[char], pos: Pos) -> Result<(Tok, usize), Diag> {
    let c = rest[0];
    if c.is_ascii_alphabetic() || c == '_' {
        let len = rest
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
            .count();
        return Ok((Tok::Ident(rest[..len].iter().collect()), len));
    }
    if c.is_ascii_digit() {
        let len = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let digits: String = rest[..len].iter().collect();
        // Integers are 64-bit: every literal up to `i64::MAX` is accepted.
        let value = digits.parse::<i64>().map_err(|_| {
            Diag::new(
                pos,
                format!(
                    "the integer {digits} is too large (integers are 64-bit, at most {})",
                    i64::MAX
                ),
            )
        })?;
        return Ok((Tok::Int(value), len));
    }
    if c == '"' {
        return string_at(rest, pos);
    }
    for sym in SYMBOLS {
        let n = sym.chars().count();
        if rest.len() >= n && rest[..n].iter().copied().eq(sym.chars()) {
            return Ok((Tok::Sym(sym), n));
        }
    }
    Err(Diag::new(pos, format!("unexpected character {c:?}")))
}

/// A string literal: no escapes, no line breaks.
fn string_at(rest: &[char], pos: Pos) -> Result<(Tok, usize), Diag> {
    let body: String = rest[1..]
        .iter()
        .take_while(|&&c| c != '"' && c != '\n')
        .collect();
    let len = body.chars().count() + 1;
    if rest.get(len) != Some(&'"') {
        return Err(Diag::new(
            pos,
            "this string is not closed on its line".to_string(),
        ));
    }
    Ok((Tok::Str(body), len + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_symbols() {
        let toks = lex("a := b[1..9] # note\n  \"x wins\"").unwrap();
        let got: Vec<_> = toks
            .iter()
            .map(|(p, t)| (p.line, p.col, t.clone()))
            .collect();
        assert_eq!(got[0], (1, 1, Tok::Ident("a".into())));
        assert_eq!(got[1], (1, 3, Tok::Sym(":=")));
        assert_eq!(got[4], (1, 8, Tok::Int(1)));
        assert_eq!(got[5], (1, 9, Tok::Sym("..")));
        assert_eq!(got[8], (2, 3, Tok::Str("x wins".into())));
        assert_eq!(got[9].2, Tok::Eof);
    }

    #[test]
    fn bad_character_and_open_string() {
        let err = lex("a\n  $").unwrap_err();
        assert_eq!((err.pos.line, err.pos.col), (2, 3));
        let err = lex("game \"oops").unwrap_err();
        assert_eq!((err.pos.line, err.pos.col), (1, 6));
    }
}
