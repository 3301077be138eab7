//! The sled database `meta.sled/`: a mirror of the manifest and a history of
//! checkpoints for the writer. It holds nothing that cannot be rebuilt from
//! the files, so a damaged database is simply recreated, and readers in other
//! processes never open it (sled locks its files).

use crate::error::{io, StoreError};
use crate::manifest::Manifest;
use std::path::Path;

/// The writer's metadata database.
#[derive(Clone)]
pub struct Meta {
    db: sled::Db,
}

fn open_db(path: &Path) -> Result<sled::Db, sled::Error> {
    sled::Config::new()
        .path(path)
        .cache_capacity(8 << 20)
        .flush_every_ms(Some(1000))
        .open()
}

impl Meta {
    /// Opens (or recreates when damaged) the database in `dir`.
    pub fn open(dir: &Path) -> Result<Meta, StoreError> {
        let path = dir.join("meta.sled");
        let db = match open_db(&path) {
            Ok(db) => db,
            Err(_) => {
                // Nothing in it is essential: start it again from the files.
                let _ = std::fs::remove_dir_all(&path);
                open_db(&path).map_err(|e| sled_err(&path, e))?
            }
        };
        Ok(Meta { db })
    }

    /// Mirrors a checkpoint's manifest and appends it to the history.
    pub fn record(&self, manifest: &Manifest, bytes: &[u8]) -> Result<(), StoreError> {
        let path = Path::new("meta.sled");
        self.db
            .insert("manifest", bytes)
            .map_err(|e| sled_err(path, e))?;
        let key = format!("checkpoint/{:016}", manifest.checkpoint_seq);
        let entry = serde_json::json!({
            "states": manifest.states,
            "expanded": manifest.expanded,
            "transitions": manifest.transitions,
            "status": manifest.status,
            "unix_ms": manifest.progress.updated_unix_ms,
        });
        self.db
            .insert(key, entry.to_string().as_bytes())
            .map_err(|e| sled_err(path, e))?;
        Ok(())
    }

    /// Number of checkpoints in the history.
    pub fn checkpoints(&self) -> usize {
        self.db.scan_prefix("checkpoint/").count()
    }

    /// Writes everything to disk.
    pub fn flush(&self) -> Result<(), StoreError> {
        self.db
            .flush()
            .map(|_| ())
            .map_err(|e| sled_err(Path::new("meta.sled"), e))
    }
}

fn sled_err(path: &Path, e: sled::Error) -> StoreError {
    io(path)(std::io::Error::other(e.to_string()))
}
