//! Reading finished tables: one piece count's pair of bit tables, and every
//! finished count of a directory for looking boards up.

use crate::error::FlingError;
use crate::layout::Layout;
use crate::manifest;
use crate::rank::{boards, rank};
use crate::table_layout::{kind, table_path};
use crate::unique_list::UniqueList;
use games::fling::Board;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use store::BitTable;

/// The solvable and uniquely solvable tables of one piece count.
pub struct Level {
    /// Bit per rank: the board is solvable.
    pub solvable: BitTable,
    /// Bit per rank: the board is uniquely solvable.
    pub unique: BitTable,
    /// Where a board's bits are: at its rank, or its canonical image's.
    pub layout: Layout,
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
            layout: Layout::Full,
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

    /// The tables' index of `mask`: its rank, or in the canonical layout its
    /// canonical image's.
    pub fn index(&self, mask: u64) -> u64 {
        rank(self.layout.holder(mask))
    }
}

/// The finished tables of a directory, and the lists of uniquely solvable
/// boards above them, for looking boards up.
pub struct Tables {
    dir: PathBuf,
    levels: Vec<Option<Level>>,
    lists: Vec<Option<UniqueList>>,
}

impl Tables {
    /// Opens every finished piece count recorded in `dir`'s manifest.
    pub fn open(dir: &Path) -> Result<Tables, FlingError> {
        let recorded = manifest::read(dir)?;
        let max = recorded.iter().map(|l| l.pieces).max().unwrap_or(0);
        let mut levels: Vec<Option<Level>> = (0..=max).map(|_| None).collect();
        for stats in &recorded {
            if let Some(slot) = levels.get_mut(stats.pieces) {
                let mut level = Level::open(dir, stats.pieces, false)?;
                level.layout = stats.layout;
                *slot = Some(level);
            }
        }
        let listed = manifest::read_lists(dir)?;
        let top = listed.iter().map(|l| l.pieces).max().unwrap_or(0);
        let mut lists: Vec<Option<UniqueList>> = (0..=top).map(|_| None).collect();
        for stats in &listed {
            if let Some(slot) = lists.get_mut(stats.pieces) {
                *slot = Some(UniqueList::open(dir, stats.pieces, false)?);
            }
        }
        Ok(Tables {
            dir: dir.to_path_buf(),
            levels,
            lists,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The largest piece count with full tables.
    pub fn max_pieces(&self) -> usize {
        self.levels
            .iter()
            .rposition(Option::is_some)
            .unwrap_or(1)
            .max(1)
    }

    /// The list of uniquely solvable boards of `pieces`, when there is one.
    pub fn list(&self, pieces: usize) -> Option<&UniqueList> {
        self.lists.get(pieces).and_then(Option::as_ref)
    }

    /// The uniquely solvable boards of `pieces` (from its list or its table),
    /// or an error naming the directory.
    pub fn unique_boards(&self, pieces: usize) -> Result<UniqueBoards<'_>, FlingError> {
        // A list is preferred to a table of the canonical layout: both give
        // every class, and the list is a ten-thousandth of the size.
        let level = self.levels.get(pieces).and_then(Option::as_ref);
        match (level, self.list(pieces)) {
            (Some(level), _) if level.layout == Layout::Full => {
                Ok(UniqueBoards::Bits(level.unique.words()))
            }
            (_, Some(list)) => Ok(UniqueBoards::List(list.boards())),
            (Some(level), None) => Ok(UniqueBoards::CanonicalBits(level.unique.words())),
            (None, None) => Err(FlingError::MissingTables {
                dir: self.dir.clone(),
                pieces,
            }),
        }
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

    /// (solvable, uniquely solvable) of `board`, when its piece count is
    /// covered: by a table, or by a list (its solvability then searched down
    /// to the largest full table).
    pub fn status(&self, board: Board) -> Option<(bool, bool)> {
        match board.pieces() {
            0 => Some((false, false)),
            1 => Some((true, true)),
            k => {
                if let Some(level) = self.levels.get(k as usize).and_then(Option::as_ref) {
                    let r = level.index(board.mask());
                    return Some((level.solvable.get(r), level.unique.get(r)));
                }
                let unique = self.list(k as usize)?.contains(board.mask());
                Some((unique || self.solvable_above(board)?, unique))
            }
        }
    }

    /// Whether `board` is solvable: from its table, or for a board above the
    /// largest full table by a search down to it; `None` when neither applies.
    pub fn solvable(&self, board: Board) -> Option<bool> {
        let k = board.pieces() as usize;
        if k <= 1 {
            return Some(k == 1);
        }
        match self.levels.get(k).and_then(Option::as_ref) {
            Some(level) => Some(level.solvable.get(level.index(board.mask()))),
            None if k > self.max_pieces() => self.solvable_above(board),
            None => None,
        }
    }

    /// True when `board` (above the largest full table) reaches a solvable
    /// board of that table: a depth-first search that stops at the first one
    /// and never expands a board twice. `None` without any table.
    fn solvable_above(&self, board: Board) -> Option<bool> {
        let top = self.max_pieces();
        let table = self.levels.get(top)?.as_ref()?;
        let mut seen: HashSet<Board> = HashSet::new();
        let mut stack = vec![board];
        while let Some(next) = stack.pop() {
            if next.pieces() as usize <= top {
                if table.solvable.get(table.index(next.mask())) {
                    return Some(true);
                }
                continue;
            }
            next.for_each_move(|_, child| {
                if seen.insert(child) {
                    stack.push(child);
                }
            });
        }
        Some(false)
    }
}

/// The uniquely solvable boards of one piece count.
#[derive(Clone, Copy)]
pub enum UniqueBoards<'a> {
    /// A full table's words: bit r set for the board of rank r.
    Bits(&'a [u64]),
    /// A list's masks, in ascending order.
    List(&'a [u64]),
    /// A table of the canonical layout's words: bit r set for the canonical
    /// board of rank r, which stands for its whole class.
    CanonicalBits(&'a [u64]),
}
