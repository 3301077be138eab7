//! The run directory as a whole: recognising a store (and refusing a foreign
//! directory), the writer's LOCK, and deleting only the run's own files.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::Path;

use crate::error::StoreError;
use crate::format::{is_store_entry, LOCK, MANIFEST, META_SLED};

/// What a directory holds, as far as the writer is concerned.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DirState {
    /// Missing or empty.
    Empty,
    /// Only store files, but no MANIFEST: a creation that never completed.
    Leftovers,
    /// A store with a MANIFEST.
    Store,
}

/// Classifies `dir`, refusing a directory with any entry the store did not write.
pub(crate) fn classify(dir: &Path) -> Result<DirState, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(DirState::Empty),
        Err(err) => return Err(StoreError::io(dir, "listing")(err)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(StoreError::io(dir, "listing"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_store_entry(&name) {
            return Err(StoreError::NotAStore {
                dir: dir.to_path_buf(),
                entry: name,
            });
        }
        names.push(name);
    }
    Ok(if names.is_empty() {
        DirState::Empty
    } else if names.iter().any(|n| n == MANIFEST) {
        DirState::Store
    } else {
        DirState::Leftovers
    })
}

/// Takes the writer lock: an exclusive `flock` on `DIR/LOCK`, which then
/// holds the writer's pid. The lock dies with the process, so a crashed
/// writer never leaves a stale lock behind.
pub(crate) fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(StoreError::io(&path, "opening the lock file"))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            // The pid is informative only; an unreadable LOCK still refuses.
            let _ = file.read_to_string(&mut holder);
            return Err(StoreError::Locked {
                dir: dir.to_path_buf(),
                holder: format!("LOCK says pid {}", holder.trim()),
            });
        }
        Err(TryLockError::Error(err)) => return Err(StoreError::io(&path, "locking")(err)),
    }
    file.set_len(0)
        .and_then(|()| file.write_all(format!("{}\n", std::process::id()).as_bytes()))
        .map_err(StoreError::io(&path, "writing the pid"))?;
    Ok(file)
}

/// Deletes every store file of `dir` except LOCK and those in `keep`.
/// Only names the store itself creates are touched.
pub(crate) fn remove_store_files(dir: &Path, keep: &BTreeSet<String>) -> Result<(), StoreError> {
    let entries = fs::read_dir(dir).map_err(StoreError::io(dir, "listing"))?;
    for entry in entries {
        let entry = entry.map_err(StoreError::io(dir, "listing"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == LOCK || !is_store_entry(&name) || keep.contains(&name) {
            continue;
        }
        let path = entry.path();
        let removed = if name == META_SLED {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.map_err(StoreError::io(&path, "removing"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(classify(&dir.path().join("missing")).unwrap(), DirState::Empty);
        assert_eq!(classify(dir.path()).unwrap(), DirState::Empty);
        fs::write(dir.path().join("LOCK"), "1").unwrap();
        assert_eq!(classify(dir.path()).unwrap(), DirState::Leftovers);
        fs::write(dir.path().join("thesis.tex"), "x").unwrap();
        let err = classify(dir.path()).unwrap_err().to_string();
        assert!(err.contains("thesis.tex") && err.contains("not a hyperstate run"), "{err}");
    }

    #[test]
    fn a_second_lock_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let _held = take_lock(dir.path()).unwrap();
        let err = take_lock(dir.path()).unwrap_err().to_string();
        assert!(err.contains("locked by another writer"), "{err}");
        assert!(err.contains(&std::process::id().to_string()), "{err}");
    }
}
