//! A part's manifest, `PART`: which run and which process the part belongs
//! to, the global layer table, and one commit point per finished layer.
//! Checksummed and replaced atomically, like the store's `MANIFEST`.

use crate::error::{corrupt, io};
use crate::ClusterError;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use store::{Commit, RunIdentity};
use xxhash_rust::xxh3::xxh3_64;

/// The manifest's file name in a part directory.
pub const PART: &str = "PART";
const MAGIC: &[u8; 8] = b"HSGPART1";
/// The version of the part format this build writes and reads.
pub const PART_VERSION: u32 = 1;
/// Larger manifests are refused before they are read.
const MAX_BYTES: u64 = 256 << 20;

/// How far a commit point took the exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PointStatus {
    /// More layers to expand.
    Running,
    /// Every reachable state was expanded.
    Complete,
    /// The depth limit stopped the search.
    Partial,
}

/// The three files' commits at one point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartCommits {
    /// `states`: (id, slot) records of the owned states.
    pub states: Commit,
    /// `rows`: the rows of the owned expanded states.
    pub rows: Commit,
    /// `terminals`: packed (id, outcome) of owned terminal states.
    pub terminals: Commit,
}

/// What the part holds after one finished layer (or the seeding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// How many entries of the layer table are valid at this point.
    pub layer_count: usize,
    /// Parents expanded by the whole cluster (`layers[d]` for the next layer `d`).
    pub expanded: u64,
    /// Transitions stored by the whole cluster.
    pub transitions: u64,
    /// Transitions in this part's rows.
    pub local_transitions: u64,
    /// Whether the search goes on.
    pub status: PointStatus,
    /// The files' commits.
    pub files: PartCommits,
}

/// The content of `PART`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartManifest {
    /// [`PART_VERSION`].
    pub version: u32,
    /// The run the part belongs to (level, options), as a single-machine store names it.
    pub identity: RunIdentity,
    /// This part's process index.
    pub process: usize,
    /// How many processes share the run.
    pub processes: usize,
    /// The global layer table: `layers[d]` is the first id of depth `d`.
    pub layers: Vec<u64>,
    /// One point per commit, in order; empty before the seeding is committed.
    pub history: Vec<Point>,
}

impl PartManifest {
    /// Reads `DIR/PART`, checking its checksum and version.
    pub fn read(dir: &Path) -> Result<PartManifest, ClusterError> {
        let path = dir.join(PART);
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
            .map_err(io(&path))?;
        if bytes.len() < 24 || &bytes[..8] != MAGIC {
            return Err(corrupt(
                &path,
                "not a part manifest (bad magic or truncated)",
            ));
        }
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let body = &bytes[24..];
        if body.len() as u64 != word(8) || xxh3_64(body) != word(16) {
            return Err(corrupt(&path, "checksum or length mismatch"));
        }
        let m: PartManifest = serde_json::from_slice(body)
            .map_err(|e| corrupt(&path, format!("unreadable body: {e}")))?;
        if m.version != PART_VERSION {
            return Err(corrupt(
                &path,
                format!("part format {}, this build reads {PART_VERSION}", m.version),
            ));
        }
        let lengths_ok = m.history.iter().all(|p| p.layer_count <= m.layers.len());
        if !lengths_ok || m.processes == 0 || m.process >= m.processes {
            return Err(corrupt(&path, "inconsistent process or layer counts"));
        }
        Ok(m)
    }

    /// Replaces `DIR/PART` atomically: temporary file, sync, directory sync, rename,
    /// directory sync. The first directory sync makes the names of files created
    /// since the last commit durable before a `PART` naming them can be (as the
    /// store's manifest does).
    pub fn write(&self, dir: &Path) -> Result<(), ClusterError> {
        let body = serde_json::to_vec(self).map_err(|e| ClusterError::Io {
            path: dir.join(PART),
            source: std::io::Error::other(e),
        })?;
        let mut bytes = Vec::with_capacity(body.len() + 24);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&xxh3_64(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        let tmp = dir.join("PART.tmp");
        let path = dir.join(PART);
        let mut file = File::create(&tmp).map_err(io(&tmp))?;
        file.write_all(&bytes).map_err(io(&tmp))?;
        file.sync_data().map_err(io(&tmp))?;
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io(dir))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
    }

    /// The last commit point, if any.
    pub fn last(&self) -> Option<&Point> {
        self.history.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn identity() -> RunIdentity {
        RunIdentity::new(
            "test".into(),
            "t".into(),
            "level".into(),
            Default::default(),
            4,
            false,
            vec!["a".into()],
            vec!["win".into()],
            1,
            false,
        )
    }

    #[test]
    fn round_trips_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let m = PartManifest {
            version: PART_VERSION,
            identity: identity(),
            process: 1,
            processes: 2,
            layers: vec![0, 1],
            history: vec![Point {
                layer_count: 2,
                expanded: 0,
                transitions: 0,
                local_transitions: 0,
                status: PointStatus::Running,
                files: PartCommits::default(),
            }],
        };
        m.write(dir.path()).unwrap();
        assert_eq!(PartManifest::read(dir.path()).unwrap(), m);
        let path = dir.path().join(PART);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 2;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let err = PartManifest::read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
    }
}
