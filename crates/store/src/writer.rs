//! [`RunWriter`]: appends a run (states, transitions, outcomes, layers),
//! checkpoints it, resumes it after a crash, and finishes it.

use crate::append::{AppendFile, Commit, SyncFile};
use crate::data_files::{DataFiles, EDGES, ROWS};
use crate::error::{io, StoreError};
use crate::flight::DataWriter;
use crate::header::header;
use crate::identity::RunIdentity;
use crate::layout::{foreign_entries, lock, run_data_entries, segment, wipe, SEGMENT_STATES};
use crate::manifest::{Files, Manifest, Progress, RunStatus, Tails, MANIFEST};
use crate::packed_file::{Base, PackedFile};
use crate::syncer::Syncer;
use crate::{action_bits, pack_prob, pack_terminal, Edge, StateId, MAX_STATE_ID};
use std::fs::File;
use std::path::{Path, PathBuf};

/// Refuses a directory with entries that are not a run's, unless it has a
/// MANIFEST (a run whose analysis or tools left files of their own).
fn refuse_foreign(dir: &Path) -> Result<(), StoreError> {
    let foreign = foreign_entries(dir)?;
    if dir.join(MANIFEST).exists() || foreign.is_empty() {
        return Ok(());
    }
    Err(StoreError::NotAStore {
        path: dir.to_path_buf(),
        why: format!(
            "it holds other files ({}); refusing to write there",
            foreign.join(", ")
        ),
    })
}

/// How [`RunWriter::open`] treats an existing run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Refuse if the directory already holds a run.
    CreateNew,
    /// Resume a run with the same identity, refuse another one.
    ResumeOrCreate,
    /// Delete whatever run the directory holds and start again.
    ForceNew,
}

/// What the explorer gets back when a run resumes.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The explorer's own data, as it gave it to [`RunWriter::checkpoint`].
    pub explorer: serde_json::Value,
    /// States stored.
    pub states: u64,
    /// States expanded.
    pub expanded: u64,
    /// Transitions stored.
    pub transitions: u64,
    /// Start id of each layer.
    pub layers: Vec<u64>,
}

/// Writes one run directory. One writer per directory, enforced by a lock.
pub struct RunWriter {
    pub(crate) dir: PathBuf,
    _lock: File,
    /// Makes checkpoints durable in the background (see [`crate::syncer`]).
    syncer: Syncer,
    /// Writes full buffers in the background, once asked to.
    data_writer: Option<DataWriter>,
    pub(crate) manifest: Manifest,
    pub(crate) files: DataFiles,
    pub(crate) states: u64,
    pub(crate) expanded: u64,
    pub(crate) transitions: u64,
    terminal_count: u64,
    last_terminal: Option<u64>,
    layers: Vec<u64>,
    pub(crate) slot: usize,
    /// Low bits of an edge word that hold its action.
    action_bits: u32,
    scratch: Vec<u8>,
    previous_status: RunStatus,
}

impl RunWriter {
    /// Opens `dir` for writing the run `identity` (see [`OpenMode`]).
    /// Returns the checkpoint to resume from, if any.
    pub fn open(
        dir: &Path,
        identity: RunIdentity,
        mode: OpenMode,
    ) -> Result<(RunWriter, Option<Checkpoint>), StoreError> {
        if dir.exists() && !dir.is_dir() {
            return Err(StoreError::NotAStore {
                path: dir.to_path_buf(),
                why: "it is a file, not a directory; name a directory for the store".into(),
            });
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        // Refuse a foreign directory before leaving a LOCK file in it.
        refuse_foreign(dir)?;
        let held = lock(dir)?;
        let existing = if dir.join(MANIFEST).exists() {
            match Manifest::read(dir) {
                Ok(m) => Some(m),
                Err(_) if mode == OpenMode::ForceNew => None,
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        let data = run_data_entries(dir)?;
        if existing.is_none() && mode != OpenMode::ForceNew && !data.is_empty() {
            // A run's files without its manifest: starting afresh would delete them.
            return Err(crate::error::corrupt(
                &dir.join(MANIFEST),
                format!(
                    "missing, but the directory holds a run's files ({}); the run is damaged: use --force-new to delete it and start again",
                    data.join(", ")
                ),
            ));
        }
        let foreign = foreign_entries(dir)?;
        if existing.is_none() && !foreign.is_empty() {
            return Err(StoreError::NotAStore {
                path: dir.to_path_buf(),
                why: format!(
                    "it holds other files ({}); refusing to write there",
                    foreign.join(", ")
                ),
            });
        }
        match existing {
            Some(m) if mode != OpenMode::ForceNew => {
                if mode == OpenMode::CreateNew {
                    return Err(StoreError::IdentityMismatch {
                        path: dir.to_path_buf(),
                        differences: "a run already exists".into(),
                    });
                }
                let diff = m.identity.differences(&identity);
                if !diff.is_empty() {
                    return Err(StoreError::IdentityMismatch {
                        path: dir.to_path_buf(),
                        differences: diff.join("; "),
                    });
                }
                if m.states > 0 {
                    return RunWriter::resume(dir, held, m);
                }
                RunWriter::create(dir, held, identity).map(|w| (w, None))
            }
            _ => RunWriter::create(dir, held, identity).map(|w| (w, None)),
        }
    }

    /// Starts a fresh run in `dir`, replacing whatever run it held.
    fn create(dir: &Path, held: File, identity: RunIdentity) -> Result<RunWriter, StoreError> {
        let slot = identity.state_slot;
        let manifest = Manifest {
            format_version: crate::FORMAT_VERSION,
            identity,
            status: RunStatus::Running,
            states: 0,
            expanded: 0,
            transitions: 0,
            terminals: 0,
            layers: vec![0],
            segment_states: SEGMENT_STATES,
            files: Files::default(),
            explorer: serde_json::Value::Null,
            checkpoint_seq: 0,
            progress: Progress::default(),
        };
        // The manifest (naming no data) is durable before any data file exists, so that
        // a power cut during creation never leaves a run's files without a manifest, which
        // a resume must refuse as damage (found by the power-loss test). It replaces the
        // previous run's manifest before that run's files are deleted, for the same
        // reason: a kill in the middle of the deletions leaves a run that committed
        // nothing, which the next `explore` starts over, never files without a manifest.
        manifest.write(dir)?;
        wipe(dir)?;
        let files = DataFiles {
            segments: Vec::new(),
            rows: PackedFile::create(dir, ROWS, Base::Previous)?,
            edges: PackedFile::create(
                dir,
                EDGES,
                Base::LeastAbove(action_bits(&manifest.identity)),
            )?,
            trans_prob: match manifest.identity.has_chance {
                true => Some(AppendFile::create(
                    &dir.join(crate::layout::TRANS_PROB),
                    header("transprb", 8),
                )?),
                false => None,
            },
            terminals: AppendFile::create(
                &dir.join(crate::layout::TERMINALS),
                header("terminal", 8),
            )?,
        };
        RunWriter::assemble(dir, held, manifest, files, slot as usize)
    }

    fn assemble(
        dir: &Path,
        held: File,
        manifest: Manifest,
        files: DataFiles,
        slot: usize,
    ) -> Result<RunWriter, StoreError> {
        let manifest_status = manifest.status;
        let action_bits = action_bits(&manifest.identity);
        Ok(RunWriter {
            dir: dir.to_path_buf(),
            _lock: held,
            syncer: Syncer::start(dir, manifest.clone())?,
            data_writer: None,
            states: manifest.states,
            expanded: manifest.expanded,
            transitions: manifest.transitions,
            terminal_count: manifest.terminals,
            last_terminal: None,
            layers: manifest.layers.clone(),
            manifest,
            files,
            slot,
            action_bits,
            scratch: Vec::new(),
            previous_status: manifest_status,
        })
    }

    fn resume(
        dir: &Path,
        held: File,
        m: Manifest,
    ) -> Result<(RunWriter, Option<Checkpoint>), StoreError> {
        // An unfinished run's explorer rebuilds its index from every stored state and
        // appends after the last frames, so all of it must be sound: every block
        // checksum and the structure, as a reader checks them (a damaged block would
        // otherwise turn into wrong ids, silently). A finished run is not read again
        // here; its caller decides how much to check (`hsg explore` checks it all).
        if !matches!(m.status, RunStatus::Complete | RunStatus::Partial) {
            crate::Run::open(dir)?;
        }
        let slot = m.identity.state_slot;
        let mut segments = Vec::new();
        for (n, commit) in m.files.states.iter().enumerate() {
            segments.push(AppendFile::resume(
                &segment(dir, n),
                header("states", slot),
                *commit,
            )?);
        }
        let prob = match (m.identity.has_chance, m.files.trans_prob) {
            (true, Some(c)) => Some(AppendFile::resume(
                &dir.join(crate::layout::TRANS_PROB),
                header("transprb", 8),
                c,
            )?),
            (true, None) => Some(AppendFile::create(
                &dir.join(crate::layout::TRANS_PROB),
                header("transprb", 8),
            )?),
            _ => None,
        };
        let files = DataFiles {
            segments,
            rows: PackedFile::resume(
                dir,
                ROWS,
                Base::Previous,
                m.files.rows,
                m.files.tails.rows.clone(),
            )?,
            edges: PackedFile::resume(
                dir,
                EDGES,
                Base::LeastAbove(action_bits(&m.identity)),
                m.files.edges,
                m.files.tails.edges.clone(),
            )?,
            trans_prob: prob,
            terminals: AppendFile::resume(
                &dir.join(crate::layout::TERMINALS),
                header("terminal", 8),
                m.files.terminals,
            )?,
        };
        let mut writer = RunWriter::assemble(dir, held, m, files, slot as usize)?;
        writer.check_resumed_counts()?;
        let checkpoint = Checkpoint {
            explorer: writer.manifest.explorer.clone(),
            states: writer.states,
            expanded: writer.expanded,
            transitions: writer.transitions,
            layers: writer.layers.clone(),
        };
        writer.manifest.status = RunStatus::Running;
        Ok((writer, Some(checkpoint)))
    }

    /// The manifest's counts must agree with the file lengths it commits.
    fn check_resumed_counts(&mut self) -> Result<(), StoreError> {
        let stored: u64 = self.files.segments.iter().map(|s| s.len()).sum();
        let (rows, edges) = (&self.files.rows, &self.files.edges);
        let checks = [
            (
                stored,
                self.states.saturating_mul(self.slot as u64),
                "state segments",
            ),
            (rows.len(), self.expanded, "rows.idx"),
            (edges.len(), self.transitions, "edges.idx"),
            (
                u64::from(rows.consistent() && edges.consistent()),
                1,
                "rows.bits and edges.bits",
            ),
            (
                self.files.terminals.len(),
                self.terminal_count.saturating_mul(8),
                "terminals",
            ),
        ];
        for (have, want, what) in checks {
            if have != want {
                return Err(crate::error::corrupt(
                    &self.dir.join(MANIFEST),
                    format!(
                        "{what}: the checkpoint commits {have} bytes but its counts need {want}"
                    ),
                ));
            }
        }
        if self.terminal_count > 0 {
            let mut last = Vec::new();
            self.files
                .terminals
                .read_at((self.terminal_count - 1) * 8, 8, &mut last)?;
            let word = u64::from_le_bytes(last.try_into().unwrap_or_default());
            self.last_terminal = Some(crate::unpack_terminal(word).0);
        }
        Ok(())
    }

    /// From now on, full buffers are written by a background thread while
    /// the caller fills the next ones (see [`crate::flight`]): for a caller
    /// with more threads than the one that appends, whose appends are its
    /// sequential step.
    pub fn write_in_background(&mut self) -> Result<(), StoreError> {
        let writer = DataWriter::start().map_err(io(&self.dir))?;
        for file in self.files.all() {
            file.write_in_background(writer.clone());
        }
        self.data_writer = Some(writer);
        Ok(())
    }

    /// The run's identity.
    pub fn identity(&self) -> &RunIdentity {
        &self.manifest.identity
    }

    /// The status recorded by the last checkpoint (`Complete` or `Partial`
    /// when the run had already finished before this writer opened it).
    pub fn status(&self) -> RunStatus {
        self.previous_status
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends a state record of exactly the identity's slot size; returns its id.
    #[inline]
    pub fn append_state(&mut self, record: &[u8]) -> Result<StateId, StoreError> {
        if record.len() != self.slot {
            return Err(StoreError::Misuse(format!(
                "a {}-byte record for {}-byte slots",
                record.len(),
                self.slot
            )));
        }
        let seg = (self.states / SEGMENT_STATES) as usize;
        if seg == self.files.segments.len() {
            if let Some(full) = self.files.segments.last_mut() {
                full.release_buffers()?;
            }
            let path = segment(&self.dir, seg);
            let mut file = AppendFile::create(&path, header("states", self.slot as u32))?;
            if let Some(writer) = &self.data_writer {
                file.write_in_background(writer.clone());
            }
            self.files.segments.push(file);
        }
        self.files.segments[seg].append(record)?;
        self.states += 1;
        Ok(self.states - 1)
    }

    /// Heap bytes of each state segment's buffers, for tests.
    #[cfg(test)]
    pub(crate) fn segment_buffer_bytes(&self) -> Vec<usize> {
        self.files
            .segments
            .iter()
            .map(|s| s.buffer_bytes())
            .collect()
    }

    /// States stored.
    pub fn state_count(&self) -> u64 {
        self.states
    }

    /// States expanded (those with an entry in `trans.idx`).
    pub fn expanded_count(&self) -> u64 {
        self.expanded
    }

    /// Transitions stored.
    pub fn transition_count(&self) -> u64 {
        self.transitions
    }

    /// Reads the slots of states `first..first + count` into `out` (replacing
    /// its content), including states not yet flushed.
    pub fn read_states(
        &mut self,
        first: StateId,
        count: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), StoreError> {
        if first + count as u64 > self.states {
            out.clear();
            return Err(StoreError::Misuse(format!(
                "read of states {first}..{} of {}",
                first + count as u64,
                self.states
            )));
        }
        self.files.read_states(self.slot, first, count, out)
    }

    /// Reads the rows of the expanded states `first..first + count`: for each, its
    /// id and the targets of its edges, appended to `rows` as (source, target) pairs,
    /// whether or not they are flushed yet. Lets an observer of the exploration (the
    /// live hyperstate analysis) read back what was stored.
    pub fn read_rows(
        &self,
        first: StateId,
        count: u64,
        rows: &mut Vec<(StateId, StateId)>,
    ) -> Result<(), StoreError> {
        if first + count > self.expanded {
            return Err(StoreError::Misuse(format!(
                "read of rows {first}..{} of {} expanded",
                first + count,
                self.expanded
            )));
        }
        if count == 0 {
            return Ok(());
        }
        let mut ends = Vec::with_capacity(count as usize + 1);
        if first > 0 {
            self.files.rows.read(first - 1, count + 1, &mut ends)?;
        } else {
            ends.push(0);
            self.files.rows.read(0, count, &mut ends)?;
        }
        let (start, end) = (ends[0], ends[ends.len() - 1]);
        let mut edges = Vec::with_capacity((end - start) as usize);
        self.files.edges.read(start, end - start, &mut edges)?;
        let mut at = start;
        for (k, &row_end) in ends[1..].iter().enumerate() {
            let source = first + k as u64;
            for &word in &edges[(at - start) as usize..(row_end - start) as usize] {
                rows.push((source, word >> self.action_bits));
            }
            at = row_end;
        }
        Ok(())
    }

    /// Appends the terminal records from the `from`-th on (0-based) to `out`.
    pub fn read_terminals(
        &self,
        from: u64,
        out: &mut Vec<(StateId, u16)>,
    ) -> Result<(), StoreError> {
        let count = self.terminal_count.saturating_sub(from);
        let mut bytes = Vec::new();
        self.files
            .terminals
            .read_at(from * 8, (count * 8) as usize, &mut bytes)?;
        out.extend(le_words(&bytes).map(crate::unpack_terminal));
        Ok(())
    }

    /// Terminal records stored.
    pub fn terminal_count(&self) -> u64 {
        self.terminal_count
    }

    /// Records the transitions of the next expanded state, `source`, which
    /// must equal [`RunWriter::expanded_count`]. A terminal state is recorded
    /// with no edges.
    pub fn append_edges(
        &mut self,
        source: StateId,
        edges: &[Edge],
        probs: Option<&[(u32, u32)]>,
    ) -> Result<(), StoreError> {
        if source != self.expanded || source >= self.states {
            return Err(StoreError::Misuse(format!(
                "edges of state {source}, expected state {} (of {})",
                self.expanded, self.states
            )));
        }
        for e in edges {
            if e.target >= self.states || e.target > MAX_STATE_ID {
                return Err(StoreError::Misuse(format!(
                    "edge to unknown state {}",
                    e.target
                )));
            }
            if u64::from(e.action) >> self.action_bits != 0 {
                return Err(StoreError::Misuse(format!(
                    "action {} is not declared",
                    e.action
                )));
            }
            self.files
                .edges
                .push(e.target << self.action_bits | u64::from(e.action))?;
        }
        if let Some(file) = self.files.trans_prob.as_mut() {
            let probs = probs.unwrap_or(&[]);
            if probs.len() != edges.len() {
                return Err(StoreError::Misuse(
                    "one probability per edge is needed".into(),
                ));
            }
            self.scratch.clear();
            for &(num, den) in probs {
                self.scratch
                    .extend_from_slice(&pack_prob(num, den).to_le_bytes());
            }
            file.append(&self.scratch)?;
        }
        self.transitions += edges.len() as u64;
        self.files.rows.push(self.transitions)?;
        self.expanded += 1;
        Ok(())
    }

    /// Records that state `id` is terminal with `outcome`; ids must increase.
    pub fn mark_terminal(&mut self, id: StateId, outcome: u16) -> Result<(), StoreError> {
        if id >= self.states || self.last_terminal.is_some_and(|last| id <= last) {
            return Err(StoreError::Misuse(format!("terminal {id} out of order")));
        }
        self.files
            .terminals
            .append_u64(pack_terminal(id, outcome))?;
        self.last_terminal = Some(id);
        self.terminal_count += 1;
        Ok(())
    }

    /// Sets the start id of every BFS layer.
    pub fn set_layers(&mut self, layers: &[u64]) {
        self.layers = layers.to_vec();
    }

    /// Bytes the run's files occupy.
    pub fn disk_bytes(&self) -> u64 {
        let f = &self.files;
        let data: u64 = f.segments.iter().map(|s| s.len()).sum::<u64>()
            + f.rows.bytes()
            + f.edges.bytes()
            + f.terminals.len()
            + f.trans_prob.as_ref().map_or(0, |p| p.len());
        data + data / (1 << 17)
    }

    /// Records a checkpoint: every buffer goes to the kernel now, and a
    /// background thread syncs the data files and then writes the manifest
    /// naming them (see [`crate::syncer`]). Until it is done the last
    /// checkpoint stays the one a crash resumes from. Waits for the previous
    /// checkpoint first, and returns the failure of any earlier one.
    pub fn checkpoint(
        &mut self,
        explorer: serde_json::Value,
        progress: Progress,
    ) -> Result<(), StoreError> {
        self.commit_files(false)?;
        self.manifest.explorer = explorer;
        self.manifest.progress = progress;
        self.manifest.checkpoint_seq += 1;
        let files: Vec<SyncFile> = self.files.all().flat_map(|f| f.sync_files()).collect();
        self.syncer.checkpoint(files, self.manifest.clone())
    }

    /// Waits until every checkpoint and progress update handed to the
    /// background thread is on disk, and returns its failure, if any.
    pub fn sync_manifest(&self) -> Result<(), StoreError> {
        self.syncer.wait_idle()
    }

    /// Flushes every data file (and syncs them when `sync`) and records their
    /// commits and the counts in the in-memory manifest, all or nothing:
    /// after a failure the manifest still describes the last checkpoint
    /// (progress updates rewrite it).
    pub(crate) fn commit_files(&mut self, sync: bool) -> Result<(), StoreError> {
        let commit = |file: &mut AppendFile| match sync {
            true => file.commit(),
            false => file.commit_unsynced(),
        };
        let f = &mut self.files;
        let states = f
            .segments
            .iter_mut()
            .map(commit)
            .collect::<Result<Vec<Commit>, _>>()?;
        let [rows_idx, rows_bits] = f.rows.files_mut();
        let rows = [commit(rows_idx)?, commit(rows_bits)?];
        let [edges_idx, edges_bits] = f.edges.files_mut();
        let edges = [commit(edges_idx)?, commit(edges_bits)?];
        let files = Files {
            states,
            rows,
            edges,
            trans_prob: f.trans_prob.as_mut().map(commit).transpose()?,
            terminals: commit(&mut f.terminals)?,
            tails: Tails {
                rows: f.rows.tail().to_vec(),
                edges: f.edges.tail().to_vec(),
            },
        };
        let m = &mut self.manifest;
        m.files = files;
        m.states = self.states;
        m.expanded = self.expanded;
        m.transitions = self.transitions;
        m.terminals = self.terminal_count;
        m.layers = self.layers.clone();
        Ok(())
    }

    pub(crate) fn write_manifest(&mut self) -> Result<(), StoreError> {
        self.manifest.write(&self.dir)
    }

    /// Publishes progress for readers without syncing data: the manifest
    /// still names only what the last durable checkpoint synced. Written by
    /// the background thread, after any checkpoint handed to it before.
    pub fn publish_progress(&mut self, progress: Progress) -> Result<(), StoreError> {
        self.manifest.progress = progress.clone();
        self.syncer.progress(progress, self.manifest.status)
    }

    /// Checkpoints and marks the run interrupted (resumable).
    pub fn interrupt(
        mut self,
        explorer: serde_json::Value,
        progress: Progress,
    ) -> Result<(), StoreError> {
        self.manifest.status = RunStatus::Interrupted;
        self.checkpoint(explorer, progress)?;
        self.syncer.wait_idle()
    }

    /// Ends the run: syncs every file and records the final status. Nothing
    /// is left to build: the packed edges are complete as written, and the
    /// in-edges and the fingerprint index are derived by readers that need
    /// them (see [`crate::Run::in_edges`], [`crate::Run::find_state`]).
    pub fn finish(mut self, status: RunStatus, progress: Progress) -> Result<(), StoreError> {
        self.syncer.wait_idle()?;
        self.commit_files(true)?;
        self.manifest.status = status;
        self.manifest.progress = progress;
        self.manifest.checkpoint_seq += 1;
        self.write_manifest()
    }

    /// The sequence number of the last durable checkpoint, read back from
    /// `MANIFEST` once every checkpoint handed over is durable.
    pub fn checkpoint_history(&self) -> Result<u64, StoreError> {
        self.syncer.wait_idle()?;
        Ok(Manifest::read(&self.dir)?.checkpoint_seq)
    }
}

/// The little-endian u64 words of `bytes` (whose length is a multiple of 8).
fn le_words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
}
