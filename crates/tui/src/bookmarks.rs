//! Bookmarks with notes, kept beside the run in `DIR/hsg-bookmarks.json`.
//!
//! Why there: the sled database is locked by a writing explorer and the explorer
//! rewrites its own files, while `DIR/hsg/` is replaced whole by every new analysis.
//! A file whose name starts with `hsg` counts as the store's own (a fresh run with
//! `--force-new` removes it with the rest, which is right: its ids would be
//! meaningless). Bookmarks name a *state*, whose id never changes as a run grows;
//! the hyperstate is looked up from it on every open, so they survive re-analysis.

use crate::error::TuiError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// File name of the bookmarks inside a run directory.
pub const FILE: &str = "hsg-bookmarks.json";

/// One bookmark.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bookmark {
    /// A member state of the bookmarked hyperstate (the first one).
    pub state: u64,
    /// The user's note.
    pub note: String,
}

#[derive(Serialize, Deserialize)]
struct BookmarkFile {
    version: u32,
    bookmarks: Vec<Bookmark>,
}

/// The bookmarks of a run, saved after every change when the run has a directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bookmarks {
    path: Option<PathBuf>,
    items: Vec<Bookmark>,
}

impl Bookmarks {
    /// Reads the bookmarks of the run in `run_dir` (none when there is no file yet);
    /// without a directory they live in memory only.
    pub fn open(run_dir: Option<&Path>) -> Result<Bookmarks, TuiError> {
        let Some(dir) = run_dir else {
            return Ok(Bookmarks::default());
        };
        let path = dir.join(FILE);
        let items = match std::fs::read(&path) {
            Ok(bytes) => {
                let file: BookmarkFile =
                    serde_json::from_slice(&bytes).map_err(|e| TuiError::Corrupt {
                        path: path.clone(),
                        what: format!("not a bookmark file: {e}"),
                    })?;
                file.bookmarks
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(TuiError::io(&path, e)),
        };
        Ok(Bookmarks {
            path: Some(path),
            items,
        })
    }

    /// The bookmarks, oldest first.
    pub fn items(&self) -> &[Bookmark] {
        &self.items
    }

    /// Where they are saved, if anywhere.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Adds (or, for a state already bookmarked, renames) a bookmark and saves.
    pub fn add(&mut self, state: u64, note: String) -> Result<(), TuiError> {
        match self.items.iter_mut().find(|b| b.state == state) {
            Some(b) => b.note = note,
            None => self.items.push(Bookmark { state, note }),
        }
        self.save()
    }

    /// Removes bookmark number `index` and saves.
    pub fn remove(&mut self, index: usize) -> Result<(), TuiError> {
        if index < self.items.len() {
            self.items.remove(index);
        }
        self.save()
    }

    /// Writes the file atomically (temporary file, then rename).
    fn save(&self) -> Result<(), TuiError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let file = BookmarkFile {
            version: 1,
            bookmarks: self.items.clone(),
        };
        let json = serde_json::to_vec_pretty(&file).map_err(|e| TuiError::Corrupt {
            path: path.clone(),
            what: e.to_string(),
        })?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json).map_err(|e| TuiError::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| TuiError::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bookmarks_survive_reopening_and_renaming_keeps_one_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = Bookmarks::open(Some(dir.path())).unwrap();
        assert!(b.items().is_empty());
        b.add(7, "first".into()).unwrap();
        b.add(9, "second".into()).unwrap();
        b.add(7, "renamed".into()).unwrap();
        let again = Bookmarks::open(Some(dir.path())).unwrap();
        assert_eq!(again.items().len(), 2);
        assert_eq!(again.items()[0].note, "renamed");
        let mut again = again;
        again.remove(0).unwrap();
        assert_eq!(
            Bookmarks::open(Some(dir.path())).unwrap().items()[0].state,
            9
        );
    }

    #[test]
    fn a_damaged_file_is_reported_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), b"{nope").unwrap();
        let err = Bookmarks::open(Some(dir.path())).unwrap_err().to_string();
        assert!(err.contains(FILE), "{err}");
    }
}
