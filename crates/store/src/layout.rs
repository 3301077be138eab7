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

/// The run's manifest: what is committed (see `docs/store-format.md`).
pub const MANIFEST: &str = "MANIFEST";
/// The manifest being written, renamed over [`MANIFEST`] once synced.
pub const MANIFEST_TMP: &str = "MANIFEST.tmp";
/// The writer's lock: held (`flock`) by the one process writing the run, its pid inside.
pub const LOCK: &str = "LOCK";
/// The explorer's scratch folder (disk-based duplicate detection).
pub const SCRATCH: &str = "scratch";
/// The saved analysis (the `hsg` crate's `persist`).
pub const ANALYSIS: &str = "hsg";
/// A saved analysis being written, renamed to [`ANALYSIS`] once whole.
pub const ANALYSIS_TMP: &str = "hsg.tmp";
/// The previous saved analysis while a new one replaces it.
pub const ANALYSIS_OLD: &str = "hsg.old";
/// The analysis's scratch folder, when its per-state arrays exceed its memory budget.
pub const ANALYSIS_SCRATCH: &str = "hsg-scratch";
/// The summary of a saved analysis, inside [`ANALYSIS`].
pub const ANALYSIS_SUMMARY: &str = "summary.json";
/// The workbench's database of bookmarks and notes (sled), tied to a run identity.
pub const USER_DB: &str = "hsg-user.sled";
/// The parts of a distributed exploration of this run (`explore --local-processes`).
pub const CLUSTER: &str = "cluster";
/// The metadata database of earlier versions.
pub const OLD_META: &str = "meta.sled";
/// The bookmarks file of earlier versions.
pub const OLD_BOOKMARKS: &str = "hsg-bookmarks.json";

/// The end of each expanded state's row of edges (packed, with its index).
pub const ROWS_IDX: &str = "rows.idx";
/// The packed row ends.
pub const ROWS_BITS: &str = "rows.bits";
/// The index of the packed edges.
pub const EDGES_IDX: &str = "edges.idx";
/// The packed edges, `target << action_bits | action`.
pub const EDGES_BITS: &str = "edges.bits";
/// The transition probabilities of a game with chance.
pub const TRANS_PROB: &str = "trans.prob";
/// The terminal states and their outcomes.
pub const TERMINALS: &str = "terminals";

/// Exact names of everything a run directory may hold: the store's files,
/// the explorer's `scratch/`, and the analysis (`hsg/`, its temporary and
/// previous versions, its scratch folder) and the workbench's database that other
/// crates keep beside it ([`OLD_META`] and [`OLD_BOOKMARKS`] are left by earlier
/// versions), and [`CLUSTER`], the parts of a distributed exploration of this run.
const OWN: [&str; 12] = [
    MANIFEST,
    MANIFEST_TMP,
    LOCK,
    OLD_META,
    SCRATCH,
    ANALYSIS,
    ANALYSIS_TMP,
    ANALYSIS_OLD,
    ANALYSIS_SCRATCH,
    OLD_BOOKMARKS,
    USER_DB,
    CLUSTER,
];

/// Own entries that a fresh run keeps: the writer's lock, the user's bookmarks,
/// which are tied to a run identity and never lost (see the workbench), and the
/// parts of a distributed exploration, which `hsg gather` turns into this run.
const KEPT: [&str; 3] = [LOCK, USER_DB, CLUSTER];

/// Data files with a fixed name; each may have a `.sum` sidecar. The last
/// five are format 1's, still recognised so that `--force-new` can replace
/// an old store.
const DATA: [&str; 11] = [
    ROWS_IDX,
    ROWS_BITS,
    EDGES_IDX,
    EDGES_BITS,
    TRANS_PROB,
    TERMINALS,
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
            || name == OLD_META
            || numbered(bare, "states-", ".seg")
            || numbered(&name, "finish.fp.", "");
        if is_data {
            data.push(name);
        }
    }
    data.sort();
    Ok(data)
}

/// Deletes the store's own files but its [`MANIFEST`] (never anything else, nor the
/// [`KEPT`] ones), in whatever order the directory lists them.
///
/// The manifest stays: a fresh run first replaces it with its own, which names no data
/// (see `RunWriter::create`), so that a process killed in the middle of the deletions
/// leaves a run that committed nothing, which the next `explore` starts over. Deleted
/// among the others, the manifest could go first and leave the old run's files without
/// a manifest, which the next `explore` must refuse as damage (the resume test's
/// rare "a resumed run failed: exit 1").
pub fn wipe(dir: &Path) -> Result<(), StoreError> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_own(&name) || KEPT.contains(&name.as_str()) || name == MANIFEST {
            continue;
        }
        #[cfg(test)]
        killed_here::check()?;
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

/// A test's simulated `kill -9` in the middle of [`wipe`]: after a given number of
/// deletions on this thread, the next one fails instead, leaving the directory as a
/// process killed at that moment would.
#[cfg(test)]
pub(crate) mod killed_here {
    use crate::error::StoreError;
    use std::cell::Cell;

    thread_local! {
        static DELETIONS_LEFT: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// Lets [`super::wipe`] delete `deletions` entries, then stops it (`None`: never).
    pub(crate) fn after(deletions: Option<usize>) {
        DELETIONS_LEFT.with(|left| left.set(deletions));
    }

    pub(super) fn check() -> Result<(), StoreError> {
        DELETIONS_LEFT.with(|left| match left.get() {
            Some(0) => Err(StoreError::Misuse(
                "killed in the middle of the wipe".into(),
            )),
            Some(n) => {
                left.set(Some(n - 1));
                Ok(())
            }
            None => Ok(()),
        })
    }
}

/// Takes the writer's lock on `dir`, held until the returned file is dropped.
pub fn lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io(&path))?;
    if !try_lock_patiently(&file) {
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

/// Takes the exclusive lock of `file`, trying again for a moment when it is held: a
/// reader asking [`lock_holder`] holds a shared lock for an instant, which must not
/// refuse a writer starting just then.
fn try_lock_patiently(file: &File) -> bool {
    const TRIES: u32 = 20;
    for _ in 1..TRIES {
        if file.try_lock().is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    file.try_lock().is_ok()
}

/// The pid written in the lock file of `dir` when a process holds the writer's lock,
/// `None` when none does (it ended, was killed or crashed) or there is no lock file.
///
/// It asks for a shared lock and lets it go at once; a writer starting in that instant
/// tries again a moment later (see [`lock`]).
pub fn lock_holder(dir: &Path) -> Result<Option<String>, StoreError> {
    let path = dir.join(LOCK);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&path)(e)),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(None),
        Err(std::fs::TryLockError::WouldBlock) => {
            let pid = std::fs::read_to_string(&path).unwrap_or_default();
            Ok(Some(match pid.trim() {
                "" => "?".to_string(),
                pid => pid.to_string(),
            }))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io(&path)(e)),
    }
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
        assert!(
            dir.path().join("MANIFEST").exists(),
            "replaced, not deleted"
        );
        for gone in ["hsg-bookmarks.json", "meta.sled"] {
            assert!(!dir.path().join(gone).exists(), "{gone}");
        }
    }

    #[test]
    fn the_lock_holder_is_seen_while_the_lock_is_held() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lock_holder(dir.path()).unwrap(), None, "no lock file");
        let held = lock(dir.path()).unwrap();
        let pid = std::process::id().to_string();
        assert_eq!(lock_holder(dir.path()).unwrap(), Some(pid));
        drop(held);
        assert_eq!(lock_holder(dir.path()).unwrap(), None, "let go");
        drop(lock(dir.path()).unwrap());
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
