//! The `MANIFEST` file: the run's identity, status, counts, layer table, the
//! last checkpoint (a [`Commit`] per data file plus the explorer's blob) and
//! live progress. It is the only file a reader in another process needs to
//! find everything else, so it is checksummed and replaced atomically.
//!
//! Layout: magic `HSGMANIF` (8 bytes), format version (u32 LE), 4 zero
//! bytes, body length (u64 LE), xxh3-64 of the body (u64 LE), then the body,
//! UTF-8 JSON.

use crate::append::Commit;
use crate::durability::{note, SyncEvent};
use crate::error::{corrupt, io, StoreError};
use crate::header::FORMAT_VERSION;
use crate::identity::RunIdentity;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"HSGMANIF";
const PREFIX: usize = 32;
/// The largest manifest read: its level text is at most the 64 MiB of a level file, its
/// layer table a word per layer, its explorer data a few names per layer; a file beyond
/// this is not a manifest, and reading it whole could exhaust memory.
pub const MAX_MANIFEST_BYTES: u64 = 256 << 20;
pub use crate::layout::MANIFEST;

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunStatus {
    /// A writer is (or was, until it was killed) exploring.
    Running,
    /// Stopped on request after a checkpoint; resumable.
    Interrupted,
    /// Every reachable state was expanded.
    Complete,
    /// Finished under a limit: some states were not expanded.
    Partial,
}

/// Live progress published for readers in other processes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// States stored.
    pub states: u64,
    /// States expanded.
    pub expanded: u64,
    /// Transitions stored.
    pub transitions: u64,
    /// Current BFS depth.
    pub depth: u32,
    /// Average rate of this invocation.
    pub states_per_sec: f64,
    /// Seconds since this invocation started.
    pub elapsed_secs: f64,
    /// Wall-clock time of the update, milliseconds since the Unix epoch.
    pub updated_unix_ms: u64,
    /// The writer's process id.
    pub pid: u32,
    /// Bytes the run occupies on disk.
    pub disk_bytes: u64,
    /// What the writer is doing.
    pub phase: String,
    /// The live hyperstate analysis of an exploration that runs one (an opaque JSON
    /// object written by the analysis layer), absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_hsg: Option<serde_json::Value>,
}

/// The committed extent of every data file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Files {
    /// State segments, in order.
    pub states: Vec<Commit>,
    /// `rows.idx` and `rows.bits`: the out-edge row ends, packed.
    pub rows: [Commit; 2],
    /// `edges.idx` and `edges.bits`: the out-edges, packed.
    pub edges: [Commit; 2],
    /// `trans.prob`, for games with chance.
    pub trans_prob: Option<Commit>,
    /// `terminals`.
    pub terminals: Commit,
    /// The values after the last full frame of each packed sequence.
    pub tails: Tails,
}

/// The values of the packed sequences after their last full frame (fewer
/// than 64 each), which a checkpoint records here rather than in the files
/// (see `docs/store-format.md`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tails {
    /// Row ends after the last full frame of `rows.*`.
    pub rows: Vec<u64>,
    /// Edge words after the last full frame of `edges.*`.
    pub edges: Vec<u64>,
}

/// The content of `MANIFEST`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The store format version.
    pub format_version: u32,
    /// What was explored.
    pub identity: RunIdentity,
    /// Where the run stands.
    pub status: RunStatus,
    /// States stored at the checkpoint.
    pub states: u64,
    /// States expanded at the checkpoint (ids below it).
    pub expanded: u64,
    /// Transitions stored at the checkpoint.
    pub transitions: u64,
    /// Terminal states recorded at the checkpoint.
    pub terminals: u64,
    /// Start id of each BFS layer.
    pub layers: Vec<u64>,
    /// States per segment file.
    pub segment_states: u64,
    /// The committed extent of each file.
    pub files: Files,
    /// The explorer's own checkpoint data, opaque to the store.
    pub explorer: serde_json::Value,
    /// Number of checkpoints taken.
    pub checkpoint_seq: u64,
    /// Live progress.
    pub progress: Progress,
}

impl Manifest {
    /// True when the run has committed nothing yet: a writer created it and has not
    /// reached its first checkpoint (or was stopped before it). Its data files may hold
    /// bytes already, but no checkpoint names them, so readers have nothing to read.
    pub fn nothing_committed(&self) -> bool {
        self.status == RunStatus::Running && self.states == 0
    }

    /// The file's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, StoreError> {
        let body = serde_json::to_vec(self)
            .map_err(|e| StoreError::Misuse(format!("manifest does not serialise: {e}")))?;
        let mut bytes = Vec::with_capacity(PREFIX + body.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&xxh3_64(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        Ok(bytes)
    }

    /// Parses and checks the bytes of `path`.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<Manifest, StoreError> {
        if bytes.len() < PREFIX {
            return Err(corrupt(path, format!("truncated ({} bytes)", bytes.len())));
        }
        if &bytes[..8] != MAGIC {
            return Err(corrupt(path, "bad magic: not a hyperstate manifest"));
        }
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
        if version < FORMAT_VERSION {
            return Err(StoreError::OldFormat {
                path: path.to_path_buf(),
                version,
            });
        }
        if version != FORMAT_VERSION {
            return Err(corrupt(
                path,
                format!("format version {version}, this build reads {FORMAT_VERSION}"),
            ));
        }
        let len = word(16);
        let body = &bytes[PREFIX..];
        if body.len() as u64 != len {
            return Err(corrupt(
                path,
                format!("body is {} bytes, the header says {len}", body.len()),
            ));
        }
        if xxh3_64(body) != word(24) {
            return Err(corrupt(path, "checksum mismatch in the body"));
        }
        serde_json::from_slice(body).map_err(|e| corrupt(path, format!("unreadable body: {e}")))
    }

    /// Reads the manifest of a run directory, refusing one larger than
    /// [`MAX_MANIFEST_BYTES`] before reading it.
    pub fn read(dir: &Path) -> Result<Manifest, StoreError> {
        let path = dir.join(MANIFEST);
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|f| f.take(MAX_MANIFEST_BYTES + 1).read_to_end(&mut bytes))
            .map_err(io(&path))?;
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(corrupt(
                &path,
                format!(
                    "larger than {} MiB, more than any manifest holds",
                    MAX_MANIFEST_BYTES >> 20
                ),
            ));
        }
        Manifest::decode(&path, &bytes)
    }

    /// Replaces the manifest atomically: temporary file, sync, sync of the
    /// directory, rename, sync of the directory.
    ///
    /// The first directory sync makes the names of files created since the last
    /// checkpoint (a new segment) durable before the manifest that names them can
    /// be: without it, a power cut could keep the rename and lose the new file's
    /// name, and the store would name a segment that is not there (the power-loss
    /// harness found it).
    pub fn write(&self, dir: &Path) -> Result<(), StoreError> {
        let tmp = dir.join(crate::layout::MANIFEST_TMP);
        let path = dir.join(MANIFEST);
        let mut file = File::create(&tmp).map_err(io(&tmp))?;
        file.write_all(&self.encode()?).map_err(io(&tmp))?;
        crate::durability::sync_data(&file, &tmp)?;
        sync_dir(dir)?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        note(SyncEvent::Renamed {
            from: &tmp,
            to: &path,
        });
        sync_dir(dir)
    }
}

/// Syncs the directory `dir`'s entries, announced to the durability observer.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io(dir))?;
    note(SyncEvent::DirSynced(dir));
    Ok(())
}
