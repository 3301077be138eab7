//! The tables directory's `manifest.json`: the figures of every finished
//! piece count, written atomically (temporary file, then rename) after each
//! one, so an interrupted build resumes at the first unfinished count.

use crate::error::{io, FlingError};
use crate::layout::Layout;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The manifest's file name inside a tables directory.
pub const MANIFEST: &str = "manifest.json";
const FORMAT: &str = "hsg-fling-tables";

/// The figures of one finished piece count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelStats {
    /// Pieces on each board.
    pub pieces: usize,
    /// Boards with this many pieces, C(56, pieces).
    pub boards: u64,
    /// Boards with at least one legal move.
    pub with_move: u64,
    /// Solvable boards.
    pub solvable: u64,
    /// Uniquely solvable boards.
    pub unique: u64,
    /// Wall-clock milliseconds the count took.
    pub millis: u64,
    /// How the tables hold their bits (full unless recorded otherwise).
    #[serde(default, skip_serializing_if = "is_full")]
    pub layout: Layout,
}

fn is_full(layout: &Layout) -> bool {
    *layout == Layout::Full
}

/// The figures of one piece count whose uniquely solvable boards are listed
/// (above the full tables: see `above.rs`); its solvable boards are not counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListStats {
    /// Pieces on each board.
    pub pieces: usize,
    /// Boards with this many pieces, C(56, pieces).
    pub boards: u64,
    /// Uniquely solvable boards (the list's length).
    pub unique: u64,
    /// The full tables the list was checked against (their piece count).
    pub table_pieces: usize,
    /// Candidate boards checked (canonical boards with a move into the list below).
    pub candidates: u64,
    /// Wall-clock milliseconds the count took.
    pub millis: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    format: String,
    version: u32,
    levels: Vec<LevelStats>,
    /// Absent in manifests written before the lists existed.
    #[serde(default)]
    lists: Vec<ListStats>,
}

/// The finished piece counts of a directory, in ascending order.
pub fn read(dir: &Path) -> Result<Vec<LevelStats>, FlingError> {
    Ok(read_file(dir)?.levels)
}

/// The listed piece counts of a directory, in ascending order.
pub fn read_lists(dir: &Path) -> Result<Vec<ListStats>, FlingError> {
    Ok(read_file(dir)?.lists)
}

fn read_file(dir: &Path) -> Result<File, FlingError> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(File::default()),
        Err(e) => return Err(io(&path)(e)),
    };
    let bad = |message: String| FlingError::Manifest {
        path: path.clone(),
        message,
    };
    let mut file: File =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a tables manifest: {e}")))?;
    if file.format != FORMAT || file.version != 1 {
        return Err(bad(format!(
            "format {:?} version {}, expected {FORMAT:?} version 1",
            file.format, file.version
        )));
    }
    file.levels.sort_by_key(|l| l.pieces);
    file.lists.sort_by_key(|l| l.pieces);
    Ok(file)
}

/// Records `stats` (replacing an older record of the same piece count).
pub fn record(dir: &Path, stats: &LevelStats) -> Result<(), FlingError> {
    let mut file = read_file(dir)?;
    file.levels.retain(|l| l.pieces != stats.pieces);
    file.levels.push(stats.clone());
    write_file(dir, file)
}

/// Forgets the record of `pieces` (before its tables are computed again).
pub fn forget(dir: &Path, pieces: usize) -> Result<(), FlingError> {
    let mut file = read_file(dir)?;
    file.levels.retain(|l| l.pieces != pieces);
    write_file(dir, file)
}

/// Records the list of `stats.pieces` (replacing an older record of it).
pub fn record_list(dir: &Path, stats: &ListStats) -> Result<(), FlingError> {
    let mut file = read_file(dir)?;
    file.lists.retain(|l| l.pieces != stats.pieces);
    file.lists.push(stats.clone());
    write_file(dir, file)
}

fn write_file(dir: &Path, mut file: File) -> Result<(), FlingError> {
    file.levels.sort_by_key(|l| l.pieces);
    file.lists.sort_by_key(|l| l.pieces);
    file.format = FORMAT.to_string();
    file.version = 1;
    let path = dir.join(MANIFEST);
    let tmp: PathBuf = dir.join(format!("{MANIFEST}.tmp"));
    let text = serde_json::to_string_pretty(&file).map_err(|e| FlingError::Manifest {
        path: path.clone(),
        message: e.to_string(),
    })?;
    std::fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}
