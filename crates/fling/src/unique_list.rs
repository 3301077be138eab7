//! One list of uniquely solvable boards, as a file: its path and kind, and
//! reading it back with a check that it holds distinct boards of its piece
//! count in ascending order (built by `lists.rs`).

use crate::error::FlingError;
use std::path::{Path, PathBuf};
use store::BitTable;

/// The path of the list of `pieces`.
pub fn list_path(dir: &Path, pieces: usize) -> PathBuf {
    dir.join(format!("unique-{pieces}.list"))
}

pub(crate) fn list_kind(pieces: usize) -> String {
    format!("fling-unique-list-{pieces}")
}

/// The uniquely solvable boards of one piece count, as a sorted list of masks.
pub struct UniqueList {
    table: BitTable,
}

impl UniqueList {
    /// Opens the list of `pieces` in `dir`, verifying its checksum if asked,
    /// and checking that it holds distinct `pieces`-piece boards in order.
    pub fn open(dir: &Path, pieces: usize, verify: bool) -> Result<UniqueList, FlingError> {
        let path = list_path(dir, pieces);
        let table = BitTable::open(&path, &list_kind(pieces), verify)?;
        let list = UniqueList { table };
        let masks = list.boards();
        let misplaced = masks
            .iter()
            .position(|m| m.count_ones() as usize != pieces || m >> games::fling::CELLS != 0)
            .or_else(|| masks.windows(2).position(|w| w[0] >= w[1]));
        if !list.table.len_bits().is_multiple_of(64) || misplaced.is_some() {
            return Err(FlingError::Manifest {
                path,
                message: format!(
                    "not a sorted list of {pieces}-piece boards (word {})",
                    misplaced.unwrap_or(0)
                ),
            });
        }
        Ok(list)
    }

    /// The boards' masks in ascending order.
    pub fn boards(&self) -> &[u64] {
        self.table.words()
    }

    /// True when the board `mask` is in the list.
    pub fn contains(&self, mask: u64) -> bool {
        self.boards().binary_search(&mask).is_ok()
    }
}
