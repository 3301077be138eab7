//! Where a directory of retrograde tables keeps its files: the path and the kind
//! (the name checked in each file's header) of one piece count's `solvable` and
//! `unique` bit tables, and the largest piece count a build accepts. The builder,
//! the reader and the step between piece counts all follow it.

use std::path::{Path, PathBuf};

/// The most pieces a table build accepts; beyond, the tables outgrow any disk.
pub const MAX_TABLE_PIECES: usize = 14;

/// The path of the `what` table (`solvable` or `unique`) for `pieces`.
pub fn table_path(dir: &Path, what: &str, pieces: usize) -> PathBuf {
    dir.join(format!("{what}-{pieces}.bits"))
}

/// The kind recorded in the header of the `what` table for `pieces`, so that a table
/// opened under another name or piece count is refused.
pub(crate) fn kind(what: &str, pieces: usize) -> String {
    format!("fling-{what}-{pieces}")
}
