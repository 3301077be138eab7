//! Guarding the bookmarks database against silent loss. sled reads a damaged log up to
//! the damage and treats the rest as never written (then writes over it): the user's
//! notes would vanish without a word. So every change also records a checksum of the
//! whole database's contents in `hsg-checksum` inside its folder, and a database is
//! read first from a copy (opening it with sled could already write over the damage):
//! when what the copy holds does not match the checksum, the database is damaged. The
//! workbench then moves it aside, never writing to it or deleting it ([`move_aside`]);
//! `hsg verify` reports it ([`crate::bookmarks::verify`]).

use crate::error::TuiError;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::Xxh3;

/// The checksum file inside the database folder.
pub const CHECK_FILE: &str = "hsg-checksum";
/// The first line of the checksum file.
const CHECK_HEADER: &str = "hsg-user.sled contents checksum v1";

/// What a database holds, in brief: its records and a checksum of all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest {
    /// Records (bookmarks) in every tree.
    pub records: u64,
    /// xxh3-64 of every tree's name, keys and values, in order.
    pub sum: u64,
}

/// The digest of everything `db` holds.
pub fn digest(db: &sled::Db) -> Result<Digest, sled::Error> {
    let mut names = db.tree_names();
    names.sort();
    let mut hasher = Xxh3::new();
    let mut records = 0;
    let mut put = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    for name in names {
        let tree = db.open_tree(&name)?;
        put(&name);
        for entry in tree.iter() {
            let (key, value) = entry?;
            put(&key);
            put(&value);
            records += 1;
        }
    }
    Ok(Digest {
        records,
        sum: hasher.digest(),
    })
}

/// What the checksum file records: the contents before the last change and after it
/// (a crash between the file and the database leaves either).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// Before the last change.
    pub previous: Digest,
    /// After it.
    pub current: Digest,
}

impl Recorded {
    /// True when `d` is what the file records.
    pub fn accepts(&self, d: Digest) -> bool {
        d == self.current || d == self.previous
    }
}

/// Reads the checksum file of the database folder `db_dir`: `None` when there is
/// none (a database written before this check existed).
pub fn read_recorded(db_dir: &Path) -> Result<Option<Recorded>, TuiError> {
    let path = db_dir.join(CHECK_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(TuiError::io(&path, e)),
    };
    let bad = || TuiError::Corrupt {
        path: path.clone(),
        what: "not a checksum file of the bookmarks database".into(),
    };
    let mut lines = text.lines();
    if lines.next() != Some(CHECK_HEADER) {
        return Err(bad());
    }
    let mut digest = |label: &str| -> Option<Digest> {
        let mut words = lines.next()?.split(' ');
        if words.next() != Some(label) {
            return None;
        }
        let records = words.next()?.parse().ok()?;
        let sum = u64::from_str_radix(words.next()?, 16).ok()?;
        Some(Digest { records, sum })
    };
    let previous = digest("previous").ok_or_else(bad)?;
    let current = digest("current").ok_or_else(bad)?;
    Ok(Some(Recorded { previous, current }))
}

/// Replaces the checksum file of `db_dir` (written whole under another name, synced,
/// then renamed over the old one).
pub fn write_recorded(db_dir: &Path, r: Recorded) -> Result<(), TuiError> {
    let path = db_dir.join(CHECK_FILE);
    let tmp = db_dir.join(format!("{CHECK_FILE}.tmp"));
    let text = format!(
        "{CHECK_HEADER}\nprevious {} {:016x}\ncurrent {} {:016x}\n",
        r.previous.records, r.previous.sum, r.current.records, r.current.sum
    );
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, &path)
    };
    write().map_err(|e| TuiError::io(&path, e))
}

/// A copy of a database folder in the system's temporary directory, removed when
/// dropped: opened with sled instead of the original, which stays untouched.
pub struct Copy {
    dir: PathBuf,
}

impl Copy {
    /// Copies the folder `db_dir` (its files and the folders in it, one level deep:
    /// all that sled keeps).
    pub fn of(db_dir: &Path) -> Result<Copy, TuiError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("hsg-bookmarks-{}-{n}", std::process::id()));
        let copy = Copy { dir };
        copy_folder(db_dir, &copy.dir, 2)?;
        Ok(copy)
    }

    /// Where the copy is.
    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn copy_folder(from: &Path, to: &Path, depth: u32) -> Result<(), TuiError> {
    fs::create_dir_all(to).map_err(|e| TuiError::io(to, e))?;
    let entries = fs::read_dir(from).map_err(|e| TuiError::io(from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| TuiError::io(from, e))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(|e| TuiError::io(&source, e))?;
        if kind.is_dir() && depth > 0 {
            copy_folder(&source, &target, depth - 1)?;
        } else if kind.is_file() {
            fs::copy(&source, &target).map_err(|e| TuiError::io(&source, e))?;
        }
    }
    Ok(())
}

/// Moves the damaged database folder `db_dir` aside, to the first free name
/// `hsg-user.sled.damaged-N` beside it (never over anything), and returns that path.
pub fn move_aside(db_dir: &Path) -> Result<PathBuf, TuiError> {
    let name = db_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for n in 1..10_000 {
        let aside = db_dir.with_file_name(format!("{name}.damaged-{n}"));
        if aside.symlink_metadata().is_ok() {
            continue;
        }
        fs::rename(db_dir, &aside).map_err(|e| TuiError::io(db_dir, e))?;
        return Ok(aside);
    }
    Err(TuiError::Database {
        path: db_dir.to_path_buf(),
        what: "damaged, and there is no free name to move it aside to".into(),
    })
}
