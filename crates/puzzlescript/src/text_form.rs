//! The reference's text dump of a level (its test suite's expected output):
//! cells in storage order (column-major), a line break after every `width`
//! cells, each cell the sorted lower-case names of its objects, written in
//! full the first time a combination appears (`names:N`) and as `N` after.

use std::collections::HashMap;
use std::fmt::Write;

use crate::bits;
use crate::compile::Compiled;
use crate::engine::Board;

/// The text form of a board.
pub fn text_form(game: &Compiled, board: &Board) -> String {
    let so = game.obj_words;
    let mut out = String::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, cell) in board.objects.chunks(so).enumerate() {
        let mut names: Vec<&str> = bits::ones(cell)
            .filter_map(|id| game.names.id_dict.get(id).map(String::as_str))
            .collect();
        // The reference sorts by UTF-16 code units; names are lower-case words.
        names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        let key = names.join(" ");
        let next = seen.len();
        let n = *seen.entry(key.clone()).or_insert_with(|| {
            out.push_str(&key);
            out.push(':');
            next
        });
        let _ = write!(out, "{n},");
        if board.width > 0 && (i + 1) % board.width == 0 {
            out.push('\n');
        }
    }
    out
}

/// The first cell (in text order) where two text forms differ, as
/// `(line, cell)` counted from 1, or `None` when they are equal.
pub fn first_difference(expected: &str, actual: &str) -> Option<(usize, usize)> {
    if expected == actual {
        return None;
    }
    for (li, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            let cell = e
                .split(',')
                .zip(a.split(','))
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            return Some((li + 1, cell + 1));
        }
    }
    let line = expected.lines().count().min(actual.lines().count()) + 1;
    Some((line, 1))
}
