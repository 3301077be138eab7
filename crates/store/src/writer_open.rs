//! Opening a run for writing: creating a new one, resuming one from its
//! last checkpoint (truncating every file to its committed length), or
//! replacing one — always under the run's LOCK, never in a foreign directory.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::append::AppendFile;
use crate::dir::{classify, remove_store_files, take_lock, DirState};
use crate::error::StoreError;
use crate::format::{segment_name, sums_name, FileKind, FORMAT_VERSION, MANIFEST, META_SLED, TERMINALS, TRANS_IDX, TRANS_LOG, TRANS_PROB};
use crate::identity::RunIdentity;
use crate::layout;
use crate::manifest::{sync_dir, CheckpointRecord, Manifest, Progress, RunStatus};
use crate::meta::MetaDb;
use crate::writer::{unix_ms, Checkpoint, DataFiles, OpenMode, RunWriter, WriterOptions};
use crate::{unpack_terminal, StateId};

impl RunWriter {
    /// Opens `dir` for writing. CreateNew and ResumeOrCreate refuse a run of
    /// another identity (`IdentityMismatch`, mentioning --force-new); ForceNew
    /// deletes the run's files first. Every mode refuses a non-empty
    /// directory that is not a store, and a run locked by another writer.
    /// Resuming truncates every data file to the last checkpoint and returns
    /// it (`None` when the run had no checkpoint yet, i.e. starts afresh).
    pub fn open_with(
        dir: &Path,
        identity: RunIdentity,
        mode: OpenMode,
        options: WriterOptions,
    ) -> Result<(RunWriter, Option<Checkpoint>), StoreError> {
        identity.validate()?;
        if !options.segment_records.is_power_of_two() || options.block_bytes == 0 {
            return Err(StoreError::Usage(format!(
                "segment_records {} must be a power of two and block_bytes {} positive",
                options.segment_records, options.block_bytes
            )));
        }
        // Refuse a foreign directory before dropping a LOCK file into it.
        classify(dir)?;
        fs::create_dir_all(dir).map_err(StoreError::io(dir, "creating the run directory"))?;
        let lock = take_lock(dir)?;
        let state = classify(dir)?;
        match (mode, state) {
            (OpenMode::ForceNew, _) | (_, DirState::Empty | DirState::Leftovers) => {
                create(dir, identity, options, lock).map(|writer| (writer, None))
            }
            (OpenMode::CreateNew, DirState::Store) => {
                let stored = read_manifest(dir)?;
                let differences = stored.identity.differences(&identity);
                if differences.is_empty() {
                    Err(StoreError::AlreadyExists { dir: dir.to_path_buf() })
                } else {
                    Err(StoreError::IdentityMismatch { dir: dir.to_path_buf(), differences })
                }
            }
            (OpenMode::ResumeOrCreate, DirState::Store) => resume(dir, identity, options, lock),
        }
    }
}

/// MANIFEST, or if it is damaged the copy in sled (an equally valid,
/// possibly older checkpoint: data is always synced before either is written).
fn read_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    match Manifest::read(dir) {
        Ok(manifest) => Ok(manifest),
        Err(err) => MetaDb::stored_manifest(dir).ok_or(err),
    }
}

fn create(dir: &Path, identity: RunIdentity, options: WriterOptions, lock: fs::File) -> Result<RunWriter, StoreError> {
    remove_store_files(dir, &BTreeSet::new())?;
    let now = unix_ms();
    let mut manifest = Manifest {
        format_version: FORMAT_VERSION,
        identity_hash: identity.fingerprint(),
        identity,
        status: RunStatus::Running,
        segment_records: options.segment_records,
        block_bytes: options.block_bytes,
        created_unix_ms: now,
        checkpoint: CheckpointRecord {
            seq: 0,
            unix_ms: now,
            states: 0,
            expanded: 0,
            transitions: 0,
            terminals: 0,
            layers: Vec::new(),
            files: BTreeMap::new(),
            explorer: serde_json::Value::Null,
        },
        progress: Progress::default(),
    };
    let buf = options.buffer_bytes;
    let mut files = DataFiles {
        segments: vec![AppendFile::create(dir, &segment_name(0), layout::header(&manifest, FileKind::States, 0), buf)?],
        trans_idx: AppendFile::create(dir, TRANS_IDX, layout::header(&manifest, FileKind::TransIdx, 0), buf)?,
        trans_log: AppendFile::create(dir, TRANS_LOG, layout::header(&manifest, FileKind::TransLog, 0), buf)?,
        trans_prob: match manifest.identity.has_chance {
            true => Some(AppendFile::create(dir, TRANS_PROB, layout::header(&manifest, FileKind::TransProb, 0), buf)?),
            false => None,
        },
        terminals: AppendFile::create(dir, TERMINALS, layout::header(&manifest, FileKind::Terminals, 0), buf)?,
    };
    files.sync_all()?;
    sync_dir(dir)?;
    manifest.checkpoint.files = files.commits();
    manifest.write_atomic(dir)?;
    let meta = MetaDb::open_or_rebuild(dir, &manifest)?;
    Ok(assemble(dir, manifest, options, lock, meta, files, None))
}

fn resume(
    dir: &Path,
    identity: RunIdentity,
    options: WriterOptions,
    lock: fs::File,
) -> Result<(RunWriter, Option<Checkpoint>), StoreError> {
    let mut manifest = read_manifest(dir)?;
    let differences = manifest.identity.differences(&identity);
    if !differences.is_empty() {
        return Err(StoreError::IdentityMismatch { dir: dir.to_path_buf(), differences });
    }
    if manifest.status.is_finished() {
        return Err(StoreError::AlreadyFinished { dir: dir.to_path_buf(), status: manifest.status });
    }
    layout::validate(&manifest, &dir.join(MANIFEST))?;
    let mut reopened = BTreeMap::new();
    let mut keep: BTreeSet<String> = [MANIFEST.to_string(), META_SLED.to_string()].into();
    for expected in layout::expected_files(&manifest) {
        let Some(commit) = manifest.checkpoint.files.get(&expected.name) else {
            continue; // `validate` has checked that every expected file is listed.
        };
        let file = AppendFile::resume(dir, &expected.name, expected.header, commit, options.buffer_bytes)?;
        keep.insert(sums_name(&expected.name));
        keep.insert(expected.name.clone());
        reopened.insert(expected.name, file);
    }
    // Segments past the checkpoint, derived files of a crashed finish, a torn MANIFEST.tmp.
    remove_store_files(dir, &keep)?;
    let mut take = |name: &str| {
        reopened.remove(name).ok_or_else(|| StoreError::Manifest {
            path: dir.join(MANIFEST),
            what: format!("{name} is missing from the checkpoint"),
        })
    };
    let segments = (0..layout::segment_count(manifest.checkpoint.states, manifest.segment_records))
        .map(|index| take(&segment_name(index)))
        .collect::<Result<Vec<_>, _>>()?;
    let files = DataFiles {
        segments,
        trans_idx: take(TRANS_IDX)?,
        trans_log: take(TRANS_LOG)?,
        trans_prob: if manifest.identity.has_chance { Some(take(TRANS_PROB)?) } else { None },
        terminals: take(TERMINALS)?,
    };
    let last_terminal = last_terminal(&files.terminals)?;
    let checkpoint = (manifest.checkpoint.seq > 0).then(|| Checkpoint {
        explorer: manifest.checkpoint.explorer.clone(),
        states: manifest.checkpoint.states,
        expanded: manifest.checkpoint.expanded,
        transitions: manifest.checkpoint.transitions,
        layers: manifest.checkpoint.layers.clone(),
    });
    manifest.status = RunStatus::Running;
    manifest.write_atomic(dir)?;
    let meta = MetaDb::open_or_rebuild(dir, &manifest)?;
    Ok((assemble(dir, manifest, options, lock, meta, files, last_terminal), checkpoint))
}

fn last_terminal(terminals: &AppendFile) -> Result<Option<StateId>, StoreError> {
    let len = terminals.len();
    if len < 8 {
        return Ok(None);
    }
    let mut word = [0u8; 8];
    terminals.read_at(len - 8, &mut word)?;
    Ok(Some(unpack_terminal(u64::from_le_bytes(word)).0))
}

fn assemble(
    dir: &Path,
    manifest: Manifest,
    options: WriterOptions,
    lock: fs::File,
    meta: MetaDb,
    files: DataFiles,
    last_terminal: Option<StateId>,
) -> RunWriter {
    let cp = &manifest.checkpoint;
    RunWriter {
        dir: dir.to_path_buf(),
        states: cp.states,
        expanded: cp.expanded,
        transitions: cp.transitions,
        terminals: cp.terminals,
        layers: cp.layers.clone(),
        zeros: vec![0; manifest.identity.max_record_len()],
        manifest,
        options,
        _lock: lock,
        meta,
        files,
        last_terminal,
        dir_dirty: false,
    }
}
