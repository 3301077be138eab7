//! Power-cut images of a directory tree, for the power-loss tests of the store and of
//! the saved analysis (feature `sync-observer`; no other build has this module).
//!
//! A [`Recorder`] observes every durability point ([`crate::durability`]) under a root
//! directory and keeps, at each one, a [`CrashPoint`]: the tree as it is (every byte the
//! processes wrote) and what a power cut there would keep for certain. The model:
//!
//! - a file's content is durable as of its last sync (as it was when the sync started);
//!   a file never synced may come back empty;
//! - a name (a creation, a rename) is durable once its directory was synced after it;
//!   a name created since may be missing, a rename not yet synced may be undone;
//! - anything else may or may not have reached the disk, page by page.
//!
//! [`CrashPoint::image`] writes one such outcome: only what is durable, everything
//! landed, or a random mix of the two with pages torn. Removals are taken as done
//! (a removed file that comes back is a leftover that readers ignore: `hsg.old/`,
//! `MANIFEST.tmp`), which makes images no worse than a real disk could leave them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::durability::{set_observer, SyncEvent};

/// Contents of files by path relative to the root.
type Files = BTreeMap<PathBuf, Arc<Vec<u8>>>;

/// A rename not yet made durable by a sync of its directory.
#[derive(Clone, Debug)]
struct PendingRename {
    from: PathBuf,
    to: PathBuf,
}

/// What a power cut at one durability point may leave.
#[derive(Clone, Debug)]
pub struct CrashPoint {
    /// The event after which the cut happens, for reports.
    pub event: String,
    /// Every file as written so far.
    current: Files,
    /// Each file's content as of its last sync, under its current name.
    synced: Files,
    /// Names known to be durable in their directory.
    durable_names: BTreeSet<PathBuf>,
    /// Renames whose directory was not synced since, oldest first.
    pending: Vec<PendingRename>,
    /// What `to` named before each pending rename (durable content), by `to`.
    replaced: Files,
}

/// How a power cut treats what is not known to be durable.
#[derive(Clone, Copy, Debug)]
pub enum Cut {
    /// Everything not durable is lost: unsynced bytes, names and renames.
    Durable,
    /// Everything written landed.
    Landed,
    /// Each file and each pending rename independently, pages torn (from this seed).
    Mixed(u64),
}

#[derive(Default)]
struct Model {
    synced: Files,
    syncing: Files,
    durable_names: BTreeSet<PathBuf>,
    pending: Vec<PendingRename>,
    replaced: Files,
    points: Vec<CrashPoint>,
}

/// Records crash points under a root until stopped.
pub struct Recorder {
    model: Arc<Mutex<Model>>,
    /// The sync observer is one for the whole process: a second recorder started
    /// beside this one (another test of the same binary) would replace it, and this
    /// one would see only the events before. Recorders therefore take turns.
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// Held by the recorder that owns the process's sync observer.
static RECORDING: Mutex<()> = Mutex::new(());

fn relative(root: &Path, path: &Path) -> Option<PathBuf> {
    path.strip_prefix(root).ok().map(Path::to_path_buf)
}

/// Every regular file under `root`, by relative path.
fn snapshot(root: &Path) -> Files {
    let mut files = Files::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let (Ok(bytes), Some(rel)) = (std::fs::read(&path), relative(root, &path)) {
                files.insert(rel, Arc::new(bytes));
            }
        }
    }
    files
}

/// `path` (under `from`) renamed to be under `to`; `to` itself for `from` (a trailing
/// `join("")` would make a file name end in a slash).
fn moved(path: &Path, from: &Path, to: &Path) -> Option<PathBuf> {
    let rest = path.strip_prefix(from).ok()?;
    Some(match rest.as_os_str().is_empty() {
        true => to.to_path_buf(),
        false => to.join(rest),
    })
}

/// Moves the entries under `from` (a file or a folder) to `to`.
fn rekey(files: &mut Files, from: &Path, to: &Path) {
    let keys: Vec<PathBuf> = files
        .keys()
        .filter(|k| k.starts_with(from))
        .cloned()
        .collect();
    for key in keys {
        if let (Some(new), Some(content)) = (moved(&key, from, to), files.remove(&key)) {
            files.insert(new, content);
        }
    }
}

impl Model {
    fn observe(&mut self, root: &Path, event: SyncEvent<'_>) {
        let rel = |p: &Path| relative(root, p);
        match event {
            SyncEvent::Syncing(p) => {
                if let (Some(r), Ok(bytes)) = (rel(p), std::fs::read(p)) {
                    self.syncing.insert(r, Arc::new(bytes));
                }
            }
            SyncEvent::Synced(p) => {
                if let Some(content) = rel(p).and_then(|r| self.syncing.remove_entry(&r)) {
                    self.synced.insert(content.0, content.1);
                }
            }
            SyncEvent::Renamed { from, to } => {
                let (Some(from), Some(to)) = (rel(from), rel(to)) else {
                    return;
                };
                // The old content of `to` stays durable until the rename is.
                let old: Vec<(PathBuf, Arc<Vec<u8>>)> = self
                    .synced
                    .iter()
                    .filter(|(k, _)| k.starts_with(&to))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                for (k, v) in old {
                    self.replaced.entry(k).or_insert(v);
                }
                rekey(&mut self.synced, &from, &to);
                // Names inside a renamed folder stay durable in it; the folder's own
                // new name is pending until its directory is synced.
                let names_moved: Vec<PathBuf> = self
                    .durable_names
                    .iter()
                    .filter(|k| k.starts_with(&from))
                    .cloned()
                    .collect();
                for name in names_moved {
                    if let Some(new) = moved(&name, &from, &to) {
                        self.durable_names.insert(new);
                    }
                }
                self.pending.push(PendingRename { from, to });
            }
            SyncEvent::DirSynced(d) => {
                let Some(dir) = rel(d) else { return };
                self.pending
                    .retain(|r| r.to.parent() != Some(&dir) && r.from.parent() != Some(&dir));
                if self.pending.is_empty() {
                    self.replaced.clear();
                }
                for name in snapshot(root).keys() {
                    if name.parent() == Some(&dir) {
                        self.durable_names.insert(name.clone());
                    }
                }
                // Files inside a renamed folder keep their durable names.
                let names: Vec<PathBuf> = self.durable_names.iter().cloned().collect();
                for name in names {
                    if !root.join(&name).exists() {
                        self.durable_names.remove(&name);
                    }
                }
            }
        }
        self.points.push(CrashPoint {
            event: format!("{event:?}"),
            current: snapshot(root),
            synced: self.synced.clone(),
            durable_names: self.durable_names.clone(),
            pending: self.pending.clone(),
            replaced: self.replaced.clone(),
        });
    }
}

impl Recorder {
    /// Starts recording the durability points under `root` (the names already there
    /// count as durable). Events elsewhere (other tests' directories) are ignored.
    pub fn start(root: &Path) -> Recorder {
        let turn = RECORDING.lock().unwrap_or_else(|e| e.into_inner());
        let model = Arc::new(Mutex::new(Model {
            durable_names: snapshot(root).into_keys().collect(),
            ..Model::default()
        }));
        let (shared, root) = (model.clone(), root.to_path_buf());
        set_observer(Some(Box::new(move |event| {
            let path = match event {
                SyncEvent::Syncing(p) | SyncEvent::Synced(p) | SyncEvent::DirSynced(p) => p,
                SyncEvent::Renamed { to, .. } => to,
            };
            if path.starts_with(&root) {
                let mut model = shared.lock().unwrap_or_else(|e| e.into_inner());
                model.observe(&root, event);
            }
        })));
        Recorder { model, _turn: turn }
    }

    /// Stops recording and returns the crash points, in order.
    pub fn stop(self) -> Vec<CrashPoint> {
        set_observer(None);
        let mut model = self.model.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut model.points)
        // The turn passes to the next recorder as `self` drops, after the observer is gone.
    }
}

/// A xorshift generator for the mixed cuts.
struct Rng(u64);

impl Rng {
    fn coin(&mut self) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 & 1 == 1
    }
}

const PAGE: usize = 4096;

/// Pages of `durable` and `landed` mixed at random, as long as one of them.
fn torn(durable: &[u8], landed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let len = if rng.coin() {
        durable.len()
    } else {
        landed.len()
    };
    let mut out = vec![0u8; len];
    for (i, page) in out.chunks_mut(PAGE).enumerate() {
        let from = if rng.coin() { durable } else { landed };
        let at = i * PAGE;
        if let Some(bytes) = from.get(at..) {
            let have = bytes.len().min(page.len());
            page[..have].copy_from_slice(&bytes[..have]);
        }
    }
    out
}

impl CrashPoint {
    /// The files a cut of kind `cut` leaves, by relative path.
    fn files(&self, cut: Cut) -> Files {
        let mut rng = Rng(match cut {
            Cut::Mixed(seed) => seed | 1,
            _ => 1,
        });
        if let Cut::Landed = cut {
            return self.current.clone();
        }
        let empty = Arc::new(Vec::new());
        let mut out = Files::new();
        for (path, landed) in &self.current {
            let durable = self.synced.get(path).unwrap_or(&empty);
            let named = self.durable_names.contains(path);
            let content = match cut {
                Cut::Durable if named => durable.clone(),
                Cut::Durable => continue,
                _ if !named && rng.coin() => continue,
                _ => match (rng.coin(), rng.coin()) {
                    (true, _) => durable.clone(),
                    (false, true) => landed.clone(),
                    (false, false) => Arc::new(torn(durable, landed, &mut rng)),
                },
            };
            out.insert(path.clone(), content);
        }
        // Undo the renames not yet durable, newest first (each independently in a mix).
        for rename in self.pending.iter().rev() {
            if matches!(cut, Cut::Mixed(_)) && rng.coin() {
                continue;
            }
            rekey(&mut out, &rename.to, &rename.from);
            for (path, content) in &self.replaced {
                if path.starts_with(&rename.to) {
                    out.insert(path.clone(), content.clone());
                }
            }
        }
        out
    }

    /// Writes the directory `cut` leaves into `dir` (which must not exist yet).
    pub fn image(&self, cut: Cut, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for (path, content) in self.files(cut) {
            let path = dir.join(path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, &*content)?;
        }
        Ok(())
    }
}
