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

/// Exact names of everything a run directory may hold: the store's files,
/// the explorer's `scratch/`, and the analysis (`hsg/`, its temporary and
/// previous versions) and the workbench's database that other crates keep
/// beside it (`meta.sled` and `hsg-bookmarks.json` are left by earlier versions),
/// and `cluster/`, the parts of a distributed exploration of this run.
const OWN: [&str; 11] = [
    "MANIFEST",
    "MANIFEST.tmp",
    "LOCK",
    "meta.sled",
    "scratch",
    "hsg",
    "hsg.tmp",
    "hsg.old",
    "hsg-bookmarks.json",
    "hsg-user.sled",
    "cluster",
];

/// Own entries that a fresh run keeps: the writer's lock, the user's bookmarks,
/// which are tied to a run identity and never lost (see the workbench), and the
/// parts of a distributed exploration, which `hsg gather` turns into this run.
const KEPT: [&str; 3] = ["LOCK", "hsg-user.sled", "cluster"];

/// Data files with a fixed name; each may have a `.sum` sidecar. The last
/// five are format 1's, still recognised so that `--force-new` can replace
/// an old store.
const DATA: [&str; 11] = [
    "rows.idx",
    "rows.bits",
    "edges.idx",
    "edges.bits",
    "trans.prob",
    "terminals",
    "trans.idx",
    "trans.log",
    "in.idx",
    "in.log",
    "fp.idx",
];

/// True when `name` is one of the run directory's own entries. Names are
/// matched exactly (or as a numbered segment / spill file), so that
/// `--force-new` never deletes a file that merely starts like one of ours.
pub fn is_own(name: &str) -> bool {
    let data = name.strip_suffix(".sum").unwrap_or(name);
    OWN.contains(&name)
        || DATA.contains(&data)
        || numbered(data, "states-", ".seg")
        || numbered(name, "finish.fp.", "")
}

fn numbered(name: &str, prefix: &str, suffix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(suffix))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
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

/// Names of the entries in `dir` that hold a run's data (state segments, transitions,
/// terminals, the finished indexes, the metadata database): what only a run leaves.
pub fn run_data_entries(dir: &Path) -> Result<Vec<String>, StoreError> {
    let mut data = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let name = entry
            .map_err(io(dir))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        let bare = name.strip_suffix(".sum").unwrap_or(&name);
        let is_data = DATA.contains(&bare)
            || name == "meta.sled"
            || numbered(bare, "states-", ".seg")
            || numbered(&name, "finish.fp.", "");
        if is_data {
            data.push(name);
        }
    }
    data.sort();
    Ok(data)
}

/// Deletes the store's own files (never anything else, nor the [`KEPT`] ones).
pub fn wipe(dir: &Path) -> Result<(), StoreError> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_own(&name) || KEPT.contains(&name.as_str()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_run_keeps_the_lock_and_the_users_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hsg-user.sled");
        std::fs::create_dir(&db).unwrap();
        std::fs::write(db.join("db"), b"notes").unwrap();
        for name in ["MANIFEST", "LOCK", "hsg-bookmarks.json"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        std::fs::create_dir(dir.path().join("meta.sled")).unwrap();
        wipe(dir.path()).unwrap();
        assert!(db.join("db").exists() && dir.path().join("LOCK").exists());
        for gone in ["MANIFEST", "hsg-bookmarks.json", "meta.sled"] {
            assert!(!dir.path().join(gone).exists(), "{gone}");
        }
    }

    #[test]
    fn own_names_match_exactly() {
        for name in [
            "MANIFEST",
            "states-00012.seg",
            "states-123456.seg.sum",
            "in.log.sum",
            "finish.fp.3",
            "hsg",
            "scratch",
        ] {
            assert!(is_own(name), "{name}");
        }
        for name in [
            "trans.csv",
            "in.txt",
            "states-1.txt",
            "MANIFEST.sum",
            "hsgx",
            "finish.fp.",
        ] {
            assert!(!is_own(name), "{name}");
        }
    }
}
