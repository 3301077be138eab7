//! Reading finished tables: one piece count's pair of bit tables, and every
//! finished count of a directory for looking boards up.

use crate::error::FlingError;
use crate::manifest;
use crate::rank::{boards, rank};
use crate::table_layout::{kind, table_path};
use games::fling::Board;
use std::path::{Path, PathBuf};
use store::BitTable;

/// The solvable and uniquely solvable tables of one piece count.
pub struct Level {
    /// Bit per rank: the board is solvable.
    pub solvable: BitTable,
    /// Bit per rank: the board is uniquely solvable.
    pub unique: BitTable,
}

impl Level {
    /// Opens the finished tables of `pieces` in `dir`, verifying their checksums if asked.
    pub fn open(dir: &Path, pieces: usize, verify: bool) -> Result<Level, FlingError> {
        let open = |what: &str| {
            BitTable::open(&table_path(dir, what, pieces), &kind(what, pieces), verify)
        };
        let level = Level {
            solvable: open("solvable")?,
            unique: open("unique")?,
        };
        if level.solvable.len_bits() != boards(pieces) || level.unique.len_bits() != boards(pieces)
        {
            return Err(FlingError::MissingTables {
                dir: dir.to_path_buf(),
                pieces,
            });
        }
        Ok(level)
    }
}

/// The finished tables of a directory, for looking boards up.
pub struct Tables {
    dir: PathBuf,
    levels: Vec<Option<Level>>,
}

impl Tables {
    /// Opens every finished piece count recorded in `dir`'s manifest.
    pub fn open(dir: &Path) -> Result<Tables, FlingError> {
        let recorded = manifest::read(dir)?;
        let max = recorded.iter().map(|l| l.pieces).max().unwrap_or(0);
        let mut levels: Vec<Option<Level>> = (0..=max).map(|_| None).collect();
        for stats in &recorded {
            if let Some(slot) = levels.get_mut(stats.pieces) {
                *slot = Some(Level::open(dir, stats.pieces, false)?);
            }
        }
        Ok(Tables {
            dir: dir.to_path_buf(),
            levels,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The largest piece count with tables.
    pub fn max_pieces(&self) -> usize {
        self.levels
            .iter()
            .rposition(Option::is_some)
            .unwrap_or(1)
            .max(1)
    }

    /// The tables of `pieces`, or an error naming the directory.
    pub fn level(&self, pieces: usize) -> Result<&Level, FlingError> {
        self.levels
            .get(pieces)
            .and_then(Option::as_ref)
            .ok_or_else(|| FlingError::MissingTables {
                dir: self.dir.clone(),
                pieces,
            })
    }

    /// (solvable, uniquely solvable) of `board`, when its piece count is covered.
    pub fn status(&self, board: Board) -> Option<(bool, bool)> {
        match board.pieces() {
            0 => Some((false, false)),
            1 => Some((true, true)),
            k => {
                let level = self.levels.get(k as usize)?.as_ref()?;
                let r = rank(board.mask());
                Some((level.solvable.get(r), level.unique.get(r)))
            }
        }
    }
}
