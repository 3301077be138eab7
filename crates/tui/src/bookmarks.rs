//! Bookmarks with notes: the user's own data, kept in the workbench's sled database
//! `DIR/hsg-user.sled/` beside the run.
//!
//! Why there: the explorer rewrites its own files and `DIR/hsg/` is replaced whole by
//! every new analysis, while a note written by hand must never be lost. The database
//! belongs to the workbench alone (sled locks its files, so no other process opens
//! it), and `hsg explore --force-new` keeps it.
//!
//! Bookmarks name a *state*, whose id never changes as a run grows, and ids depend only
//! on the level and the options that change the result (never on threads, memory or
//! interruptions). So the bookmarks of a run live in a tree of their own, named after
//! that identity ([`RunKey`]): a fresh exploration of the same level with the same
//! options finds them again, and one of another level or other options sees none of
//! them (they are counted as hidden, and come back when that run does). Records are
//! keyed by the state id (big-endian, so the tree is in id order) and encoded with
//! bincode 2. A `hsg-bookmarks.json` left by an earlier version is imported once into
//! the tree of the run it lies beside, then removed.

use crate::error::TuiError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// File name of the bookmarks an earlier version kept inside a run directory.
pub const FILE: &str = store::layout::OLD_BOOKMARKS;
/// Directory name of the workbench's database inside a run directory.
pub const DATABASE: &str = store::layout::USER_DB;

/// Prefix of the trees that hold bookmarks, one per run identity.
const TREE_PREFIX: &str = "bookmarks/";

/// What a run's state ids depend on: the game, the level and the options that change
/// the result. Bookmarks are tied to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunKey {
    /// The game family.
    pub game: String,
    /// The level's hash (xxh3-64 of its canonical text, 16 hex digits).
    pub level_hash: String,
    /// The exploration options that change the result.
    pub options: BTreeMap<String, String>,
}

impl RunKey {
    /// The key of a stored run.
    pub fn of(identity: &store::RunIdentity) -> RunKey {
        RunKey {
            game: identity.game.clone(),
            level_hash: identity.level_hash.clone(),
            options: identity.options.clone(),
        }
    }

    /// The name of the tree holding this run's bookmarks.
    fn tree_name(&self) -> String {
        let mut text = format!("{}\n{}\n", self.game, self.level_hash);
        for (name, value) in &self.options {
            text.push_str(&format!("{name}={value}\n"));
        }
        format!("{TREE_PREFIX}{:016x}", xxh3_64(text.as_bytes()))
    }
}

/// One bookmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bookmark {
    /// A member state of the bookmarked hyperstate (the first one).
    pub state: u64,
    /// The user's note.
    pub note: String,
    /// When it was added, as an increasing number: the list shows the oldest first.
    added: u64,
}

/// A bookmark as the database stores it (the state id is the key).
#[derive(Serialize, Deserialize)]
struct Record {
    added: u64,
    note: String,
}

/// A bookmark as the JSON file of an earlier version holds it.
#[derive(Deserialize)]
struct LegacyBookmark {
    state: u64,
    note: String,
}

#[derive(Deserialize)]
struct LegacyFile {
    bookmarks: Vec<LegacyBookmark>,
}

/// The open database and this run's tree in it.
#[derive(Clone)]
struct Saved {
    path: PathBuf,
    db: sled::Db,
    tree: sled::Tree,
}

/// The bookmarks of a run, saved after every change when the run has a directory.
#[derive(Clone, Default)]
pub struct Bookmarks {
    saved: Option<Saved>,
    items: Vec<Bookmark>,
    hidden: usize,
    next: u64,
}

impl std::fmt::Debug for Bookmarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bookmarks")
            .field("path", &self.path())
            .field("items", &self.items)
            .field("hidden", &self.hidden)
            .finish()
    }
}

impl Bookmarks {
    /// Opens the bookmarks of the run `key` in the run directory `dir` (creating the
    /// database, and importing an earlier version's JSON file, as needed); without a
    /// place they live in memory only.
    pub fn open(place: Option<(&Path, &RunKey)>) -> Result<Bookmarks, TuiError> {
        let Some((dir, key)) = place else {
            return Ok(Bookmarks::default());
        };
        let legacy = read_legacy(&dir.join(FILE))?;
        let path = dir.join(DATABASE);
        let db = sled::Config::new()
            .path(&path)
            // Every change is flushed at once; no background flusher is needed.
            .flush_every_ms(None)
            .open()
            .map_err(database(&path))?;
        let tree = db.open_tree(key.tree_name()).map_err(database(&path))?;
        let mut bookmarks = Bookmarks {
            saved: Some(Saved { path, db, tree }),
            ..Bookmarks::default()
        };
        bookmarks.load(&key.tree_name())?;
        if let Some(legacy) = legacy {
            bookmarks.import(legacy)?;
            let file = dir.join(FILE);
            std::fs::remove_file(&file).map_err(|e| TuiError::io(&file, e))?;
        }
        Ok(bookmarks)
    }

    /// The bookmarks, oldest first.
    pub fn items(&self) -> &[Bookmark] {
        &self.items
    }

    /// Bookmarks of other run identities in the same database (another level or other
    /// options explored in this directory), which this run does not show.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Where they are saved, if anywhere.
    pub fn path(&self) -> Option<&Path> {
        self.saved.as_ref().map(|s| s.path.as_path())
    }

    /// Adds (or, for a state already bookmarked, renames) a bookmark and saves.
    pub fn add(&mut self, state: u64, note: String) -> Result<(), TuiError> {
        let index = match self.items.iter().position(|b| b.state == state) {
            Some(i) => {
                self.items[i].note = note;
                i
            }
            None => {
                self.items.push(Bookmark {
                    state,
                    note,
                    added: self.next,
                });
                self.next += 1;
                self.items.len() - 1
            }
        };
        self.save(&self.items[index])
    }

    /// Removes bookmark number `index` and saves.
    pub fn remove(&mut self, index: usize) -> Result<(), TuiError> {
        if index >= self.items.len() {
            return Ok(());
        }
        let gone = self.items.remove(index);
        let Some(s) = &self.saved else {
            return Ok(());
        };
        s.tree
            .remove(gone.state.to_be_bytes())
            .map_err(database(&s.path))?;
        s.db.flush().map(|_| ()).map_err(database(&s.path))
    }

    /// Reads this run's tree and counts the bookmarks of the others.
    fn load(&mut self, own: &str) -> Result<(), TuiError> {
        let Some(s) = &self.saved else {
            return Ok(());
        };
        for entry in s.tree.iter() {
            let (key, value) = entry.map_err(database(&s.path))?;
            self.items.push(decode(&s.path, &key, &value)?);
        }
        self.items.sort_by_key(|b| b.added);
        self.next = self.items.last().map_or(0, |b| b.added + 1);
        for name in s.db.tree_names() {
            if name.starts_with(TREE_PREFIX.as_bytes()) && name != own.as_bytes() {
                let other = s.db.open_tree(&name).map_err(database(&s.path))?;
                self.hidden += other.len();
            }
        }
        Ok(())
    }

    /// Adds the bookmarks of an earlier version's file, keeping any note already saved
    /// for the same state.
    fn import(&mut self, legacy: Vec<LegacyBookmark>) -> Result<(), TuiError> {
        for b in legacy {
            if !self.items.iter().any(|i| i.state == b.state) {
                self.add(b.state, b.note)?;
            }
        }
        Ok(())
    }

    /// Writes one bookmark and flushes the database.
    fn save(&self, b: &Bookmark) -> Result<(), TuiError> {
        let Some(s) = &self.saved else {
            return Ok(());
        };
        let record = Record {
            added: b.added,
            note: b.note.clone(),
        };
        let bytes =
            bincode::serde::encode_to_vec(&record, bincode::config::standard()).map_err(|e| {
                TuiError::Database {
                    path: s.path.clone(),
                    what: format!("bookmark of state {}: {e}", b.state),
                }
            })?;
        s.tree
            .insert(b.state.to_be_bytes(), bytes)
            .map_err(database(&s.path))?;
        s.db.flush().map(|_| ()).map_err(database(&s.path))
    }
}

/// Decodes one stored bookmark; a damaged key or record is an error naming the state.
fn decode(path: &Path, key: &[u8], value: &[u8]) -> Result<Bookmark, TuiError> {
    let damaged = |what: String| TuiError::Database {
        path: path.to_path_buf(),
        what,
    };
    let state = <[u8; 8]>::try_from(key)
        .map(u64::from_be_bytes)
        .map_err(|_| damaged(format!("a bookmark key of {} bytes, not 8", key.len())))?;
    let (record, _): (Record, usize) =
        bincode::serde::decode_from_slice(value, bincode::config::standard())
            .map_err(|e| damaged(format!("the bookmark of state {state} is unreadable: {e}")))?;
    Ok(Bookmark {
        state,
        note: record.note,
        added: record.added,
    })
}

/// The bookmarks of an earlier version's JSON file, if there is one.
fn read_legacy(path: &Path) -> Result<Option<Vec<LegacyBookmark>>, TuiError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let file: LegacyFile =
                serde_json::from_slice(&bytes).map_err(|e| TuiError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("not a bookmark file: {e}"),
                })?;
            Ok(Some(file.bookmarks))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(TuiError::io(path, e)),
    }
}

/// Wraps a sled error with the database it concerns.
fn database(path: &Path) -> impl Fn(sled::Error) -> TuiError + '_ {
    move |e| TuiError::Database {
        path: path.to_path_buf(),
        what: e.to_string(),
    }
}

#[cfg(test)]
#[path = "bookmarks_tests.rs"]
mod tests;
