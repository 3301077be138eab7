//! The names of a run directory's files, its lock, and the check that a
//! directory holds nothing but a store before anything is deleted in it.

use crate::error::{io, StoreError};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Records per state segment file.
pub const SEGMENT_STATES: u64 = 1 << 24;

/// Path of state segment `n`.
pub fn segment(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("states-{n:05}.seg"))
}

/// Names (or name prefixes) of everything a store may hold.
const OWN: [&str; 12] = [
    "MANIFEST",
    "LOCK",
    "meta.sled",
    "states-",
    "trans.",
    "terminals",
    "in.",
    "fp.",
    "scratch",
    "hsg",
    "finish.",
    "MANIFEST.tmp",
];

/// True when `name` is one of the store's own files.
pub fn is_own(name: &str) -> bool {
    OWN.iter().any(|own| name.starts_with(own))
}

/// Names of entries in `dir` that no store would hold.
pub fn foreign_entries(dir: &Path) -> Result<Vec<String>, StoreError> {
    let mut foreign = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let name = entry
            .map_err(io(dir))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !is_own(&name) {
            foreign.push(name);
        }
    }
    foreign.sort();
    Ok(foreign)
}

/// Deletes the store's own files (never anything else).
pub fn wipe(dir: &Path) -> Result<(), StoreError> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_own(&name) || name == "LOCK" {
            continue;
        }
        let path = entry.path();
        let gone = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        gone.map_err(io(&path))?;
    }
    Ok(())
}

/// Takes the writer's lock on `dir`, held until the returned file is dropped.
pub fn lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join("LOCK");
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io(&path))?;
    if file.try_lock().is_err() {
        let pid = std::fs::read_to_string(&path).unwrap_or_default();
        let pid = if pid.trim().is_empty() {
            "?".to_string()
        } else {
            pid.trim().to_string()
        };
        return Err(StoreError::Locked { path, pid });
    }
    file.set_len(0).map_err(io(&path))?;
    file.write_all(std::process::id().to_string().as_bytes())
        .map_err(io(&path))?;
    Ok(file)
}
