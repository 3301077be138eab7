//! The writer's sled database (`meta.sled/`): a copy of the manifest, the
//! checkpoint history and small metadata. It holds nothing that cannot be
//! rebuilt from MANIFEST, so a damaged database is simply recreated; readers
//! never open it (sled locks its files).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::format::META_SLED;
use crate::manifest::{Manifest, RunStatus};

const MANIFEST_KEY: &[u8] = b"manifest";
const HISTORY_PREFIX: &[u8] = b"checkpoint/";

/// One entry of the checkpoint history kept in sled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointSummary {
    pub seq: u64,
    pub unix_ms: u64,
    pub status: RunStatus,
    pub states: u64,
    pub expanded: u64,
    pub transitions: u64,
}

/// The open sled database of a run.
pub(crate) struct MetaDb {
    path: PathBuf,
    db: sled::Db,
}

impl MetaDb {
    /// Opens `DIR/meta.sled`; if sled cannot open it, deletes and recreates
    /// it. Then makes sure it holds the current manifest.
    pub fn open_or_rebuild(dir: &Path, manifest: &Manifest) -> Result<MetaDb, StoreError> {
        let path = dir.join(META_SLED);
        let db = match open_db(&path) {
            Ok(db) => db,
            Err(_) => {
                if path.exists() {
                    fs::remove_dir_all(&path)
                        .map_err(StoreError::io(&path, "removing a damaged database"))?;
                }
                open_db(&path).map_err(|source| StoreError::Sled {
                    path: path.clone(),
                    source,
                })?
            }
        };
        let meta = MetaDb { path, db };
        meta.record(manifest)?;
        Ok(meta)
    }

    /// The manifest copy of a database, used when MANIFEST itself is damaged.
    /// Opening it briefly is fine: the caller holds the run's LOCK.
    pub fn stored_manifest(dir: &Path) -> Option<Manifest> {
        let path = dir.join(META_SLED);
        if !path.exists() {
            return None;
        }
        let db = open_db(&path).ok()?;
        let bytes = db.get(MANIFEST_KEY).ok()??;
        Manifest::decode(&path, &bytes).ok()
    }

    /// Stores the manifest and appends its checkpoint to the history, durably.
    pub fn record(&self, manifest: &Manifest) -> Result<(), StoreError> {
        let checkpoint = &manifest.checkpoint;
        let summary = CheckpointSummary {
            seq: checkpoint.seq,
            unix_ms: checkpoint.unix_ms,
            status: manifest.status,
            states: checkpoint.states,
            expanded: checkpoint.expanded,
            transitions: checkpoint.transitions,
        };
        let mut key = HISTORY_PREFIX.to_vec();
        key.extend_from_slice(&checkpoint.seq.to_be_bytes());
        // A summary of integers and an enum always serialises.
        let summary = serde_json::to_vec(&summary).unwrap_or_default();
        let sled_err = |source| StoreError::Sled {
            path: self.path.clone(),
            source,
        };
        self.db
            .insert(MANIFEST_KEY, manifest.encode())
            .map_err(sled_err)?;
        self.db.insert(key, summary).map_err(sled_err)?;
        self.db.flush().map_err(sled_err)?;
        Ok(())
    }

    /// The recorded checkpoints, oldest first (one entry per sequence number).
    pub fn history(&self) -> Result<Vec<CheckpointSummary>, StoreError> {
        let mut out = Vec::new();
        for item in self.db.scan_prefix(HISTORY_PREFIX) {
            let (_, value) = item.map_err(|source| StoreError::Sled {
                path: self.path.clone(),
                source,
            })?;
            if let Ok(summary) = serde_json::from_slice(&value) {
                out.push(summary);
            }
        }
        Ok(out)
    }
}

fn open_db(path: &Path) -> sled::Result<sled::Db> {
    // A small cache and no background flusher: the store flushes at checkpoints
    // and must not spend the explorer's memory budget on metadata.
    sled::Config::new()
        .path(path)
        .cache_capacity(4 << 20)
        .flush_every_ms(None)
        .open()
}
