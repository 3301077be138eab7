//! The `MANIFEST`: a 64-byte header followed by a JSON body, checksummed and
//! replaced atomically. It is the one file a reader in another process needs
//! to find the committed length of every data file, and the live progress.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::StoreError;
use crate::format::{FileKind, Header, FORMAT_VERSION, HEADER_LEN, MANIFEST, MANIFEST_TMP};
use crate::identity::RunIdentity;

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunStatus {
    /// A writer is (or was, if it crashed) exploring.
    Running,
    /// Stopped on request after a final checkpoint; resumable.
    Interrupted,
    /// Every reachable state was explored; in-edges and fingerprints are built.
    Complete,
    /// Stopped by a limit (depth, states); in-edges and fingerprints are built.
    Partial,
}

impl RunStatus {
    /// True for Complete and Partial: `finish` ran and built the derived files.
    pub fn is_finished(self) -> bool {
        matches!(self, RunStatus::Complete | RunStatus::Partial)
    }
}

/// Live progress published in MANIFEST for readers in other processes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub states: u64,
    pub expanded: u64,
    pub transitions: u64,
    pub depth: u32,
    pub states_per_sec: f64,
    pub elapsed_secs: f64,
    pub updated_unix_ms: u64,
    pub pid: u32,
    pub disk_bytes: u64,
    pub phase: String,
}

/// The committed state of one data file at a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCommit {
    /// Committed data bytes, after the 64-byte header.
    pub len: u64,
    /// xxh3-64 of the last, partial checksum block (of zero bytes if none).
    #[serde(with = "hex64")]
    pub tail_xxh3: u64,
    /// xxh3-64 of the committed part of the `.sum` sidecar's data.
    #[serde(with = "hex64")]
    pub sums_xxh3: u64,
}

/// A checkpoint: counts, layer table and the committed length of every file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointRecord {
    /// 0 for the empty checkpoint written at creation, then 1, 2, ...
    pub seq: u64,
    pub unix_ms: u64,
    pub states: u64,
    pub expanded: u64,
    pub transitions: u64,
    pub terminals: u64,
    /// Start id of each BFS depth.
    pub layers: Vec<u64>,
    /// Every data file of the run by name, with its committed length and checksums.
    pub files: BTreeMap<String, FileCommit>,
    /// Opaque state of the explorer, handed back on resume.
    pub explorer: serde_json::Value,
}

/// The body of `MANIFEST`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub identity: RunIdentity,
    #[serde(with = "hex64")]
    pub identity_hash: u64,
    pub status: RunStatus,
    /// States per segment file (a power of two).
    pub segment_records: u64,
    /// Bytes per checksum block.
    pub block_bytes: u32,
    pub created_unix_ms: u64,
    pub checkpoint: CheckpointRecord,
    pub progress: Progress,
}

impl Manifest {
    /// Reads and checks `DIR/MANIFEST`; this is all a progress display needs.
    pub fn read(dir: &Path) -> Result<Manifest, StoreError> {
        let path = dir.join(MANIFEST);
        let bytes = fs::read(&path).map_err(|source| StoreError::Manifest {
            what: format!(
                "cannot read the manifest ({source}); is this a hyperstate run directory?"
            ),
            path: path.clone(),
        })?;
        Manifest::decode(&path, &bytes)
    }

    /// True when `finish` built the in-edge CSR and the fingerprint index.
    pub fn has_derived_files(&self) -> bool {
        self.checkpoint.files.contains_key(crate::format::IN_IDX)
    }

    /// Checks header, length, checksum and JSON of a manifest file's bytes.
    pub(crate) fn decode(path: &Path, bytes: &[u8]) -> Result<Manifest, StoreError> {
        let header = Header::decode(path, bytes)?;
        if header.kind != FileKind::Manifest {
            return Err(StoreError::ForeignFile {
                path: path.to_path_buf(),
                what: format!("it is a {:?} file, expected the manifest", header.kind),
            });
        }
        let body = bytes.get(HEADER_LEN as usize..).unwrap_or_default();
        let bad = |what: String| StoreError::Manifest {
            path: path.to_path_buf(),
            what,
        };
        if body.len() as u64 != header.a {
            return Err(bad(format!(
                "manifest body is {} bytes, its header says {} (torn write)",
                body.len(),
                header.a
            )));
        }
        if xxh3_64(body) != header.b {
            return Err(bad(
                "manifest checksum bad (body xxh3 differs from the header)".into(),
            ));
        }
        let manifest: Manifest =
            serde_json::from_slice(body).map_err(|e| bad(format!("unparseable manifest: {e}")))?;
        if manifest.format_version != FORMAT_VERSION {
            return Err(StoreError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: manifest.format_version,
                expected: FORMAT_VERSION,
            });
        }
        if manifest.identity_hash != header.identity_hash
            || manifest.identity_hash != manifest.identity.fingerprint()
        {
            return Err(bad("identity hash does not match the identity".into()));
        }
        Ok(manifest)
    }

    /// The manifest file's bytes: header (body length, body xxh3) then JSON.
    pub(crate) fn encode(&self) -> Vec<u8> {
        // Serialising this struct (strings, integers, maps, a JSON value) cannot fail.
        let body = serde_json::to_vec_pretty(self).unwrap_or_default();
        let header = Header {
            kind: FileKind::Manifest,
            record_width: 1,
            block_bytes: 0,
            identity_hash: self.identity_hash,
            a: body.len() as u64,
            b: xxh3_64(&body),
        };
        let mut bytes = header.encode().to_vec();
        bytes.extend_from_slice(&body);
        bytes
    }

    /// Replaces `DIR/MANIFEST` atomically: write `MANIFEST.tmp`, fsync it,
    /// rename it over `MANIFEST`, fsync the directory. A crash at any point
    /// leaves either the old or the new manifest in place, both whole.
    pub(crate) fn write_atomic(&self, dir: &Path) -> Result<(), StoreError> {
        let tmp = dir.join(MANIFEST_TMP);
        let result = write_synced(&tmp, &self.encode());
        if result.is_err() {
            // Best effort: a partial temporary file is harmless but untidy.
            let _ = fs::remove_file(&tmp);
        }
        result?;
        let path = dir.join(MANIFEST);
        fs::rename(&tmp, &path)
            .map_err(StoreError::io(&path, "renaming MANIFEST.tmp over MANIFEST"))?;
        sync_dir(dir)
    }
}

fn write_synced(path: &PathBuf, bytes: &[u8]) -> Result<(), StoreError> {
    let mut file = File::create(path).map_err(StoreError::io(path, "creating"))?;
    file.write_all(bytes)
        .map_err(StoreError::io(path, "writing"))?;
    file.sync_all().map_err(StoreError::io(path, "syncing"))
}

/// Makes a directory's entries (creations, renames) durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(StoreError::io(dir, "syncing the directory"))
}

/// Serialises u64 hashes as 16 hex digits, readable and exact in any JSON tool.
mod hex64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format!("{value:016x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        let text = String::deserialize(deserializer)?;
        u64::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Manifest {
        let mut identity = RunIdentity::new("g", "t", "x");
        identity.state_slot = 4;
        Manifest {
            format_version: FORMAT_VERSION,
            identity_hash: identity.fingerprint(),
            identity,
            status: RunStatus::Running,
            segment_records: 1 << 24,
            block_bytes: 1 << 20,
            created_unix_ms: 1,
            checkpoint: CheckpointRecord {
                seq: 0,
                unix_ms: 1,
                states: 0,
                expanded: 0,
                transitions: 0,
                terminals: 0,
                layers: vec![0],
                files: BTreeMap::new(),
                explorer: serde_json::Value::Null,
            },
            progress: Progress::default(),
        }
    }

    #[test]
    fn manifest_round_trips_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = sample();
        manifest.write_atomic(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), manifest);
        assert!(!dir.path().join(MANIFEST_TMP).exists());
    }

    #[test]
    fn damaged_manifests_are_refused() {
        let bytes = sample().encode();
        let path = Path::new("run/MANIFEST");
        let mut flipped = bytes.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0x20;
        let err = Manifest::decode(path, &flipped).unwrap_err().to_string();
        assert!(
            err.contains("run/MANIFEST") && err.contains("checksum bad"),
            "{err}"
        );
        let err = Manifest::decode(path, &bytes[..bytes.len() - 1])
            .unwrap_err()
            .to_string();
        assert!(err.contains("torn"), "{err}");
    }
}
