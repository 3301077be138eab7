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

use crate::bookmarks_check::{
    digest, move_aside, read_recorded, write_recorded, Copy, Digest, Recorded,
};
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
    /// Why changes are refused, if they are (a read-only run directory, a database
    /// that could not be opened): they are never kept in memory only as if saved.
    refusal: Option<String>,
    /// What the user must be told about the database (moved aside, read-only).
    notice: Option<String>,
    /// What the checksum file records as the database's contents now.
    digest: Option<Digest>,
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
    /// place they live in memory only. The database is checked first through a copy
    /// (see [`crate::bookmarks_check`]): a damaged one is moved aside, never written,
    /// and a new one started with the bookmarks that could still be read, which
    /// [`Bookmarks::notice`] tells. In a read-only run directory the bookmarks are read
    /// from the copy and every change is refused ([`Bookmarks::refusal`]).
    pub fn open(place: Option<(&Path, &RunKey)>) -> Result<Bookmarks, TuiError> {
        let Some((dir, key)) = place else {
            return Ok(Bookmarks::default());
        };
        let path = dir.join(DATABASE);
        let own = key.tree_name();
        let inspection = match path.exists() {
            true => Some(inspect(&path, &own)?),
            false => None,
        };
        if is_read_only(dir) {
            return Ok(read_only(dir, &path, inspection));
        }
        let legacy = read_legacy(&dir.join(FILE))?;
        let mut notice = None;
        let mut salvaged = Vec::new();
        if let Some(Inspection {
            damage: Some(why),
            items,
            ..
        }) = inspection
        {
            let aside = move_aside(&path)?;
            notice = Some(format!(
                "The bookmarks database {} is damaged ({why}). It was moved to {} unchanged, \
                 and a new database holds the {} bookmarks of this run that could still be \
                 read.",
                path.display(),
                aside.display(),
                items.len()
            ));
            salvaged = items;
        }
        let db = match sled::Config::new()
            .path(&path)
            // Every change is flushed at once; no background flusher is needed.
            .flush_every_ms(None)
            .open()
        {
            Ok(db) => db,
            Err(e) if denied(&e) => return Ok(read_only(dir, &path, None)),
            Err(e) => return Err(database(&path)(e)),
        };
        let tree = db.open_tree(&own).map_err(database(&path))?;
        let mut bookmarks = Bookmarks {
            saved: Some(Saved { path, db, tree }),
            notice,
            ..Bookmarks::default()
        };
        bookmarks.load(&own)?;
        bookmarks.record()?;
        for b in salvaged {
            bookmarks.add(b.state, b.note)?;
        }
        if let Some(legacy) = legacy {
            bookmarks.import(legacy)?;
            let file = dir.join(FILE);
            std::fs::remove_file(&file).map_err(|e| TuiError::io(&file, e))?;
        }
        Ok(bookmarks)
    }

    /// Bookmarks that refuse every change, with `reason` (the database could not be
    /// opened): nothing is ever reported saved that was not.
    pub fn unavailable(reason: String) -> Bookmarks {
        Bookmarks {
            refusal: Some(reason),
            ..Bookmarks::default()
        }
    }

    /// Why changes are refused, if they are.
    pub fn refusal(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    /// What the user must be told about the database, if anything.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
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
        self.refuse()?;
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
        let b = self.items[index].clone();
        self.save(&b)
    }

    /// Removes bookmark number `index` and saves.
    pub fn remove(&mut self, index: usize) -> Result<(), TuiError> {
        self.refuse()?;
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
        self.record()
    }

    fn refuse(&self) -> Result<(), TuiError> {
        match &self.refusal {
            Some(why) => Err(TuiError::Database {
                path: self.path().map(Path::to_path_buf).unwrap_or_default(),
                what: why.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Records the database's contents in its checksum file, then flushes it: the
    /// file always names the contents before or after a change.
    fn record(&mut self) -> Result<(), TuiError> {
        let Some(s) = &self.saved else {
            return Ok(());
        };
        let now = digest(&s.db).map_err(database(&s.path))?;
        let recorded = Recorded {
            previous: self.digest.unwrap_or(now),
            current: now,
        };
        if self.digest != Some(now) {
            write_recorded(&s.path, recorded)?;
        }
        s.db.flush().map_err(database(&s.path))?;
        self.digest = Some(now);
        Ok(())
    }

    /// Reads this run's tree and counts the bookmarks of the others.
    fn load(&mut self, own: &str) -> Result<(), TuiError> {
        let Some(s) = &self.saved else {
            return Ok(());
        };
        let (items, hidden) = read_all(&s.db, &s.path, own)?;
        let recorded = read_recorded(&s.path)?;
        self.set_items(items, hidden);
        if let Some(Recorded { current, .. }) = recorded {
            self.digest = Some(current);
        }
        Ok(())
    }

    fn set_items(&mut self, mut items: Vec<Bookmark>, hidden: usize) {
        items.sort_by_key(|b| b.added);
        self.next = items.last().map_or(0, |b| b.added + 1);
        self.items = items;
        self.hidden = hidden;
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
    fn save(&mut self, b: &Bookmark) -> Result<(), TuiError> {
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
        self.record()
    }
}

/// The bookmarks of the tree `own` in `db` (at `path`, for errors), and how many the
/// other trees hold.
fn read_all(db: &sled::Db, path: &Path, own: &str) -> Result<(Vec<Bookmark>, usize), TuiError> {
    let tree = db.open_tree(own).map_err(database(path))?;
    let mut items = Vec::new();
    for entry in tree.iter() {
        let (key, value) = entry.map_err(database(path))?;
        items.push(decode(path, &key, &value)?);
    }
    let mut hidden = 0;
    for name in db.tree_names() {
        if name.starts_with(TREE_PREFIX.as_bytes()) && name != own.as_bytes() {
            hidden += db.open_tree(&name).map_err(database(path))?.len();
        }
    }
    Ok((items, hidden))
}

/// What a database holds, read from a copy of it.
struct Inspection {
    /// This run's bookmarks that could be read.
    items: Vec<Bookmark>,
    /// Bookmarks of other runs.
    hidden: usize,
    /// Why the database is damaged, if it is.
    damage: Option<String>,
}

/// Reads the database folder `path` through a copy, checking it against its
/// checksum file; the original is not touched.
fn inspect(path: &Path, own: &str) -> Result<Inspection, TuiError> {
    let copy = Copy::of(path)?;
    let damaged = |why: String| Inspection {
        items: Vec::new(),
        hidden: 0,
        damage: Some(why),
    };
    let recorded = match read_recorded(copy.path()) {
        Ok(r) => r,
        Err(e) => return Ok(damaged(format!("its checksum file is unreadable: {e}"))),
    };
    let db = match sled::Config::new().path(copy.path()).open() {
        Ok(db) => db,
        Err(e) => return Ok(damaged(format!("sled cannot open it: {e}"))),
    };
    let now = digest(&db).map_err(database(path))?;
    let mut damage = match recorded {
        Some(r) if !r.accepts(now) && now.records != r.current.records => Some(format!(
            "it holds {} bookmarks where its checksum file records {}",
            now.records, r.current.records
        )),
        Some(r) if !r.accepts(now) => {
            Some("its contents do not match the checksum recorded with them".to_string())
        }
        _ => None,
    };
    let (items, hidden) = match read_all(&db, path, own) {
        Ok(read) => read,
        Err(e) => {
            damage.get_or_insert_with(|| e.to_string());
            (readable(&db, path, own), 0)
        }
    };
    Ok(Inspection {
        items,
        hidden,
        damage,
    })
}

/// The bookmarks of the tree `own` that decode, skipping those that do not.
fn readable(db: &sled::Db, path: &Path, own: &str) -> Vec<Bookmark> {
    let Ok(tree) = db.open_tree(own) else {
        return Vec::new();
    };
    tree.iter()
        .flatten()
        .filter_map(|(k, v)| decode(path, &k, &v).ok())
        .collect()
}

/// The bookmarks of a read-only run directory `dir`: what the database holds (read
/// from a copy), every change refused.
fn read_only(dir: &Path, path: &Path, inspection: Option<Inspection>) -> Bookmarks {
    let refusal = format!(
        "the run directory {} is read-only: bookmarks cannot be saved there",
        dir.display()
    );
    let mut b = Bookmarks::unavailable(refusal);
    let Some(found) = inspection else {
        return b;
    };
    b.notice = Some(match &found.damage {
        Some(why) => format!(
            "The bookmarks database {} is damaged ({why}); the run directory is read-only, so \
             it stays where it is. The {} bookmarks that could be read are shown read-only.",
            path.display(),
            found.items.len()
        ),
        None => "The run directory is read-only: bookmarks are shown read-only.".to_string(),
    });
    b.set_items(found.items, found.hidden);
    b
}

/// True when the run directory's permissions allow no writing (whoever the user is:
/// the owner's intent counts, even for root).
fn is_read_only(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| m.permissions().readonly())
}

/// True when sled failed for want of permission or on a read-only file system.
fn denied(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io) if matches!(
        io.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    ))
}

/// What `hsg verify` says of the bookmarks database of the run directory `dir`: `None`
/// when there is none, else a line on what it holds. A damaged database is an error
/// naming it; nothing is written (the check reads a copy).
pub fn verify(dir: &Path) -> Result<Option<String>, TuiError> {
    let path = dir.join(DATABASE);
    if !path.exists() {
        return Ok(None);
    }
    let inspection = inspect(&path, "")?;
    if let Some(why) = inspection.damage {
        return Err(TuiError::Database {
            path,
            what: format!(
                "damaged ({why}); the workbench moves it aside (unchanged) when it next opens \
                 the run"
            ),
        });
    }
    let checked = match read_recorded(&path)? {
        Some(_) => "its checksum verified",
        None => "written before checksums were kept: nothing to verify it against",
    };
    Ok(Some(format!(
        "{}: ok ({} bookmarks, {checked})",
        path.display(),
        inspection.hidden
    )))
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
