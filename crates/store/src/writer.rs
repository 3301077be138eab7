//! The writer of a run: appends states, transitions and terminals through
//! large buffers, and checkpoints (flush, fdatasync, then atomic MANIFEST)
//! so that a crash at any moment resumes from the last checkpoint.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::append::AppendFile;
use crate::error::StoreError;
use crate::format::{segment_name, FileKind, TERMINALS, TRANS_IDX, TRANS_LOG, TRANS_PROB};
use crate::identity::RunIdentity;
use crate::layout;
use crate::manifest::{sync_dir, CheckpointRecord, FileCommit, Manifest, Progress, RunStatus};
use crate::meta::{CheckpointSummary, MetaDb};
use crate::{pack_prob, pack_terminal, Edge, StateId, MAX_STATE_ID};

/// How `RunWriter::open` treats an existing run directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Create a run; refuse if the directory already holds one.
    CreateNew,
    /// Resume the run in the directory from its last checkpoint, or create one.
    ResumeOrCreate,
    /// Delete the run's files (never anything else) and create a new run.
    ForceNew,
}

/// Tuning of a writer. `segment_records` and `block_bytes` are fixed when
/// a run is created (a resumed run keeps its own); the others apply per process.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// States per segment file; a power of two.
    pub segment_records: u64,
    /// Bytes per checksum block.
    pub block_bytes: u32,
    /// Write buffer per appended file.
    pub buffer_bytes: usize,
    /// Memory `finish` may use for the in-edge scatter buffer (more means fewer passes).
    pub finish_memory_bytes: usize,
}

impl Default for WriterOptions {
    fn default() -> WriterOptions {
        WriterOptions {
            segment_records: 1 << 24,
            block_bytes: 1 << 20,
            buffer_bytes: 4 << 20,
            finish_memory_bytes: 512 << 20,
        }
    }
}

/// What a resumed writer hands back: where the last checkpoint left off.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub explorer: serde_json::Value,
    pub states: u64,
    pub expanded: u64,
    pub transitions: u64,
    pub layers: Vec<u64>,
}

/// The files a writer appends to.
pub(crate) struct DataFiles {
    /// Every segment so far; only the last one is appended to.
    pub segments: Vec<AppendFile>,
    pub trans_idx: AppendFile,
    pub trans_log: AppendFile,
    pub trans_prob: Option<AppendFile>,
    pub terminals: AppendFile,
}

impl DataFiles {
    fn all_mut(&mut self) -> impl Iterator<Item = &mut AppendFile> {
        self.segments
            .iter_mut()
            .chain([
                &mut self.trans_idx,
                &mut self.trans_log,
                &mut self.terminals,
            ])
            .chain(self.trans_prob.as_mut())
    }

    /// Flushes and fdatasyncs every file with unsynced data.
    pub fn sync_all(&mut self) -> Result<(), StoreError> {
        self.all_mut().try_for_each(AppendFile::sync)
    }

    /// The committed state of every file, by name.
    pub fn commits(&self) -> BTreeMap<String, FileCommit> {
        let mut out: BTreeMap<String, FileCommit> = self
            .segments
            .iter()
            .enumerate()
            .map(|(i, seg)| (segment_name(i as u64), seg.commit()))
            .collect();
        out.insert(TRANS_IDX.into(), self.trans_idx.commit());
        out.insert(TRANS_LOG.into(), self.trans_log.commit());
        out.insert(TERMINALS.into(), self.terminals.commit());
        if let Some(prob) = &self.trans_prob {
            out.insert(TRANS_PROB.into(), prob.commit());
        }
        out
    }

    fn disk_bytes(&self) -> u64 {
        let fixed = [&self.trans_idx, &self.trans_log, &self.terminals];
        self.segments
            .iter()
            .chain(fixed)
            .chain(self.trans_prob.as_ref())
            .map(AppendFile::disk_bytes)
            .sum()
    }
}

/// The single writer of a run (see the crate docs and `docs/store-format.md`).
pub struct RunWriter {
    pub(crate) dir: PathBuf,
    /// The manifest as last written.
    pub(crate) manifest: Manifest,
    pub(crate) options: WriterOptions,
    pub(crate) _lock: File,
    pub(crate) meta: MetaDb,
    pub(crate) files: DataFiles,
    pub(crate) states: u64,
    pub(crate) expanded: u64,
    pub(crate) transitions: u64,
    pub(crate) terminals: u64,
    pub(crate) last_terminal: Option<StateId>,
    pub(crate) layers: Vec<u64>,
    /// A segment was created since the directory was last synced.
    pub(crate) dir_dirty: bool,
    /// Zero bytes to pad variable-width records to their slot.
    pub(crate) zeros: Vec<u8>,
}

impl RunWriter {
    /// Opens `dir` with default options; see [`RunWriter::open_with`].
    pub fn open(
        dir: &Path,
        identity: RunIdentity,
        mode: OpenMode,
    ) -> Result<(RunWriter, Option<Checkpoint>), StoreError> {
        RunWriter::open_with(dir, identity, mode, WriterOptions::default())
    }

    /// The identity of the run being written.
    pub fn identity(&self) -> &RunIdentity {
        &self.manifest.identity
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn slot(&self) -> usize {
        self.manifest.identity.state_slot as usize
    }

    fn segment_shift(&self) -> u32 {
        self.manifest.segment_records.trailing_zeros()
    }

    /// Appends a state record and returns its id. Fixed-width records must
    /// fill the slot exactly; variable-width ones get a 2-byte length and padding.
    pub fn append_state(&mut self, record: &[u8]) -> Result<StateId, StoreError> {
        let id = self.states;
        if id > MAX_STATE_ID {
            return Err(StoreError::Usage(format!(
                "more than {MAX_STATE_ID} states"
            )));
        }
        let segment = (id >> self.segment_shift()) as usize;
        if segment >= self.files.segments.len() {
            self.open_segment(segment as u64)?;
        }
        let identity = &self.manifest.identity;
        let max_len = identity.max_record_len();
        let variable = identity.variable_width;
        let Some(file) = self.files.segments.get_mut(segment) else {
            return Err(StoreError::Usage(format!(
                "segment {segment} of state {id} is not open"
            )));
        };
        if variable {
            if record.len() > max_len {
                return Err(StoreError::Usage(format!(
                    "state record of {} bytes exceeds the slot's {max_len}",
                    record.len()
                )));
            }
            file.push(&(record.len() as u16).to_le_bytes())?;
            file.push(record)?;
            file.push(self.zeros.get(..max_len - record.len()).unwrap_or_default())?;
        } else {
            if record.len() != max_len {
                return Err(StoreError::Usage(format!(
                    "state record of {} bytes in a fixed slot of {max_len}",
                    record.len()
                )));
            }
            file.push(record)?;
        }
        self.states += 1;
        Ok(id)
    }

    fn open_segment(&mut self, index: u64) -> Result<(), StoreError> {
        if let Some(previous) = self.files.segments.last_mut() {
            previous.flush()?;
            previous.release_buffer();
        }
        let first = index * self.manifest.segment_records;
        let header = layout::header(&self.manifest, FileKind::States, first);
        let file = AppendFile::create(
            &self.dir,
            &segment_name(index),
            header,
            self.options.buffer_bytes,
        )?;
        self.files.segments.push(file);
        self.dir_dirty = true;
        Ok(())
    }

    /// Number of states appended.
    pub fn state_count(&self) -> u64 {
        self.states
    }

    /// Replaces `out` with the slots of states `[first, first + count)`
    /// (slot bytes each, length prefix and padding included), whether
    /// already written or still buffered.
    pub fn read_states(
        &self,
        first: StateId,
        count: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), StoreError> {
        let end = first.saturating_add(count as u64);
        if end > self.states {
            return Err(StoreError::Usage(format!(
                "read_states({first}, {count}) past the {} states written",
                self.states
            )));
        }
        let slot = self.slot();
        out.clear();
        out.resize(count * slot, 0);
        let per_segment = self.manifest.segment_records;
        let (mut id, mut pos) = (first, 0usize);
        while id < end {
            let within = id & (per_segment - 1);
            let n = (end - id).min(per_segment - within) as usize;
            let segment = (id >> self.segment_shift()) as usize;
            let (Some(file), Some(dest)) = (
                self.files.segments.get(segment),
                out.get_mut(pos..pos + n * slot),
            ) else {
                return Err(StoreError::Usage(format!(
                    "segment {segment} of state {id} is not open"
                )));
            };
            file.read_at(within * slot as u64, dest)?;
            id += n as u64;
            pos += n * slot;
        }
        Ok(())
    }

    /// Records the transitions of state `source`, which must be the next one
    /// to expand (ids in increasing order from 0; a state without moves gets
    /// an empty slice). Targets must already be appended. `probs` is given
    /// exactly when the identity has chance, one (num, den) per edge.
    pub fn append_edges(
        &mut self,
        source: StateId,
        edges: &[Edge],
        probs: Option<&[(u32, u32)]>,
    ) -> Result<(), StoreError> {
        self.check_edges(source, edges, probs)?;
        for edge in edges {
            self.files.trans_log.push_u64(edge.pack())?;
        }
        if let (Some(file), Some(probs)) = (self.files.trans_prob.as_mut(), probs) {
            for &(num, den) in probs {
                file.push_u64(pack_prob(num, den))?;
            }
        }
        self.transitions += edges.len() as u64;
        self.files.trans_idx.push_u64(self.transitions)?;
        self.expanded += 1;
        Ok(())
    }

    /// Validates a whole call before writing anything, so a refused call leaves no trace.
    fn check_edges(
        &self,
        source: StateId,
        edges: &[Edge],
        probs: Option<&[(u32, u32)]>,
    ) -> Result<(), StoreError> {
        if source != self.expanded || source >= self.states {
            return Err(StoreError::Usage(format!(
                "append_edges for state {source}, but state {} is next (of {} states): states are expanded in id order",
                self.expanded, self.states
            )));
        }
        if let Some(bad) = edges.iter().find(|e| e.target >= self.states) {
            return Err(StoreError::Usage(format!(
                "edge from {source} to state {} which is not appended yet ({} states)",
                bad.target, self.states
            )));
        }
        match (self.manifest.identity.has_chance, probs) {
            (true, Some(probs)) if probs.len() == edges.len() => {
                if let Some((num, den)) = probs.iter().find(|(num, den)| *den == 0 || num > den) {
                    return Err(StoreError::Usage(format!(
                        "probability {num}/{den} of an edge from {source}"
                    )));
                }
                Ok(())
            }
            (true, _) => Err(StoreError::Usage(format!(
                "the run has chance: state {source} needs one probability per edge"
            ))),
            (false, None) => Ok(()),
            (false, Some(_)) => Err(StoreError::Usage(
                "probabilities given for a run without chance".into(),
            )),
        }
    }

    /// Number of states expanded (with an entry in `trans.idx`).
    pub fn expanded_count(&self) -> u64 {
        self.expanded
    }

    /// Number of transitions appended.
    pub fn transition_count(&self) -> u64 {
        self.transitions
    }

    /// Records that state `id` is terminal with `outcome`; ids strictly increasing.
    pub fn mark_terminal(&mut self, id: StateId, outcome: u16) -> Result<(), StoreError> {
        if id >= self.states || self.last_terminal.is_some_and(|last| id <= last) {
            return Err(StoreError::Usage(format!(
                "mark_terminal({id}) after terminal {:?} with {} states: ids must be appended and increasing",
                self.last_terminal, self.states
            )));
        }
        self.files.terminals.push_u64(pack_terminal(id, outcome))?;
        self.last_terminal = Some(id);
        self.terminals += 1;
        Ok(())
    }

    /// Sets the start id of each BFS depth (first entry 0, non-decreasing);
    /// a state's depth is the last layer starting at or before its id.
    /// Checked at the next checkpoint.
    pub fn set_layers(&mut self, layer_starts: &[u64]) {
        self.layers.clear();
        self.layers.extend_from_slice(layer_starts);
    }

    /// The layer table as last set.
    pub fn layers(&self) -> &[u64] {
        &self.layers
    }

    /// Flushes, fdatasyncs data files, then records their lengths and
    /// checksums and the `explorer` blob in MANIFEST (atomically) and sled.
    pub fn checkpoint(
        &mut self,
        explorer: serde_json::Value,
        progress: Progress,
    ) -> Result<(), StoreError> {
        self.commit_checkpoint(RunStatus::Running, explorer, progress)
    }

    pub(crate) fn commit_checkpoint(
        &mut self,
        status: RunStatus,
        explorer: serde_json::Value,
        progress: Progress,
    ) -> Result<(), StoreError> {
        if let Some(problem) = layout::layers_problem(&self.layers, self.states) {
            return Err(StoreError::Usage(format!("cannot checkpoint: {problem}")));
        }
        self.files.sync_all()?;
        let files = self.files.commits();
        self.write_checkpoint(status, files, explorer, progress)
    }

    /// Writes a manifest for data that is already synced: the directory
    /// first (new files), then MANIFEST, then the sled copy.
    pub(crate) fn write_checkpoint(
        &mut self,
        status: RunStatus,
        files: BTreeMap<String, FileCommit>,
        explorer: serde_json::Value,
        progress: Progress,
    ) -> Result<(), StoreError> {
        if self.dir_dirty {
            sync_dir(&self.dir)?;
            self.dir_dirty = false;
        }
        let mut manifest = self.manifest.clone();
        manifest.status = status;
        manifest.progress = progress;
        manifest.checkpoint = CheckpointRecord {
            seq: self.manifest.checkpoint.seq + 1,
            unix_ms: unix_ms(),
            states: self.states,
            expanded: self.expanded,
            transitions: self.transitions,
            terminals: self.terminals,
            layers: self.layers.clone(),
            files,
            explorer,
        };
        manifest.write_atomic(&self.dir)?;
        self.manifest = manifest;
        self.meta.record(&self.manifest)
    }

    /// Publishes progress in MANIFEST for other processes; the checkpoint it
    /// describes is unchanged and data files are not synced.
    pub fn publish_progress(&mut self, progress: Progress) -> Result<(), StoreError> {
        self.manifest.progress = progress;
        self.manifest.write_atomic(&self.dir)
    }

    /// Marks the run interrupted after a final checkpoint (SIGINT path).
    pub fn interrupt(
        mut self,
        explorer: serde_json::Value,
        progress: Progress,
    ) -> Result<(), StoreError> {
        self.commit_checkpoint(RunStatus::Interrupted, explorer, progress)
    }

    /// Bytes the run's data files and checksum sidecars take, buffers included.
    pub fn disk_bytes(&self) -> u64 {
        self.files.disk_bytes()
    }

    /// The checkpoints recorded in sled, oldest first.
    pub fn checkpoint_history(&self) -> Result<Vec<CheckpointSummary>, StoreError> {
        self.meta.history()
    }

    /// The manifest as last written.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub(crate) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
