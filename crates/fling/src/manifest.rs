//! The tables directory's `manifest.json`: the figures of every finished
//! piece count, written atomically (temporary file, then rename) after each
//! one, so an interrupted build resumes at the first unfinished count.

use crate::error::{io, FlingError};
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
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    format: String,
    version: u32,
    levels: Vec<LevelStats>,
}

/// The finished piece counts of a directory, in ascending order.
pub fn read(dir: &Path) -> Result<Vec<LevelStats>, FlingError> {
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(&path)(e)),
    };
    let bad = |message: String| FlingError::Manifest {
        path: path.clone(),
        message,
    };
    let file: File =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a tables manifest: {e}")))?;
    if file.format != FORMAT || file.version != 1 {
        return Err(bad(format!(
            "format {:?} version {}, expected {FORMAT:?} version 1",
            file.format, file.version
        )));
    }
    let mut levels = file.levels;
    levels.sort_by_key(|l| l.pieces);
    Ok(levels)
}

/// Records `stats` (replacing an older record of the same piece count).
pub fn record(dir: &Path, stats: &LevelStats) -> Result<(), FlingError> {
    let mut levels = read(dir)?;
    levels.retain(|l| l.pieces != stats.pieces);
    levels.push(stats.clone());
    levels.sort_by_key(|l| l.pieces);
    let file = File {
        format: FORMAT.to_string(),
        version: 1,
        levels,
    };
    let path = dir.join(MANIFEST);
    let tmp: PathBuf = dir.join(format!("{MANIFEST}.tmp"));
    let text = serde_json::to_string_pretty(&file).map_err(|e| FlingError::Manifest {
        path: path.clone(),
        message: e.to_string(),
    })?;
    std::fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}
