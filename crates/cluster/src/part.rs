//! A process's part of a distributed run: the states it owns with their
//! global ids, the rows of the parents it owns, its terminal states, in
//! checksummed append-only files committed once per finished layer.
//!
//! A commit syncs the three files and then rewrites `PART` naming their new
//! lengths, so `PART` never names data that is not on disk; rewinding to an
//! earlier point truncates the files back to that point's lengths.

use crate::checked::CheckedReader;
use crate::part_manifest::{PartCommits, PartManifest, Point, PointStatus, PART, PART_VERSION};
use crate::ClusterError;
use std::fs::File;
use std::path::{Path, PathBuf};
use store::{AppendFile, Edge, Header, RunIdentity, StateId, MAX_STATE_ID};

/// The file of the owned states: `(id, slot)` records.
pub const STATES: &str = "states";
/// The file of the owned rows: `parent, count, count edge words[, count probabilities]`.
pub const ROWS: &str = "rows";
/// The file of the owned terminal states: `id | outcome << 48` words.
pub const TERMINALS: &str = "terminals";

/// The folder of the owner's index on disk (scratch, rebuilt on resume).
pub const SCRATCH: &str = store::layout::SCRATCH;

/// The header of each of a part's files.
pub fn headers(slot: usize) -> [(&'static str, Header); 3] {
    [
        (STATES, store::header("cstates", 8 + slot as u32)),
        (ROWS, store::header("crows", 0)),
        (TERMINALS, store::header("cterms", 8)),
    ]
}

/// The open files of a part.
struct Files {
    states: AppendFile,
    rows: AppendFile,
    terminals: AppendFile,
}

/// One process's part, open for writing.
pub struct Part {
    dir: PathBuf,
    _lock: File,
    /// What `PART` says (or will say at the next commit).
    pub manifest: PartManifest,
    files: Option<Files>,
    slot: usize,
    scratch: Vec<u8>,
    local_transitions: u64,
}

impl Part {
    /// Opens (or creates) the part in `dir` for process `process` of
    /// `processes` exploring `identity`; refuses a part of another run or
    /// another arrangement, naming what differs.
    pub fn open(
        dir: &Path,
        identity: &RunIdentity,
        process: usize,
        processes: usize,
    ) -> Result<Part, ClusterError> {
        std::fs::create_dir_all(dir).map_err(crate::error::io(dir))?;
        let lock = store::lock_dir(dir)?;
        let manifest = if dir.join(PART).exists() {
            let m = PartManifest::read(dir)?;
            check_same_run(dir, &m, identity, process, processes)?;
            m
        } else {
            let m = PartManifest {
                version: PART_VERSION,
                identity: identity.clone(),
                process,
                processes,
                layers: Vec::new(),
                history: Vec::new(),
            };
            m.write(dir)?;
            m
        };
        Ok(Part {
            dir: dir.to_path_buf(),
            _lock: lock,
            manifest,
            files: None,
            slot: identity.state_slot as usize,
            scratch: Vec::new(),
            local_transitions: 0,
        })
    }

    /// The part directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Commit points stored.
    pub fn points(&self) -> usize {
        self.manifest.history.len()
    }

    /// Goes back to the first `points` commit points (all processes agree on
    /// it first): `PART` forgets the later ones, then the files are cut back.
    pub fn rewind(&mut self, points: usize) -> Result<(), ClusterError> {
        let m = &mut self.manifest;
        m.history.truncate(points);
        let last = m.history.last().copied();
        m.layers.truncate(last.map_or(0, |p| p.layer_count));
        m.write(&self.dir)?;
        let [states, rows, terminals] = headers(self.slot).map(|(name, header)| {
            let path = self.dir.join(name);
            move |commit: Option<store::Commit>| match commit {
                Some(c) => AppendFile::resume(&path, header, c),
                None => AppendFile::create(&path, header),
            }
        });
        let files = last.map(|p| p.files);
        self.files = Some(Files {
            states: states(files.map(|f| f.states))?,
            rows: rows(files.map(|f| f.rows))?,
            terminals: terminals(files.map(|f| f.terminals))?,
        });
        self.local_transitions = last.map_or(0, |p| p.local_transitions);
        Ok(())
    }

    fn files(&mut self) -> Result<&mut Files, ClusterError> {
        self.files
            .as_mut()
            .ok_or_else(|| ClusterError::Unsupported("a part written before it was rewound".into()))
    }

    /// Appends an owned state; ids must increase.
    pub fn append_state(&mut self, id: StateId, record: &[u8]) -> Result<(), ClusterError> {
        self.scratch.clear();
        self.scratch.extend_from_slice(&id.to_le_bytes());
        self.scratch.extend_from_slice(record);
        let bytes = std::mem::take(&mut self.scratch);
        let done = self.files()?.states.append(&bytes);
        self.scratch = bytes;
        Ok(done?)
    }

    /// Appends the row of an owned parent: its edges and, for games with
    /// chance, their probabilities.
    pub fn append_row(
        &mut self,
        parent: StateId,
        edges: &[Edge],
        probs: Option<&[(u32, u32)]>,
    ) -> Result<(), ClusterError> {
        let mut bytes = std::mem::take(&mut self.scratch);
        bytes.clear();
        bytes.extend_from_slice(&parent.to_le_bytes());
        bytes.extend_from_slice(&(edges.len() as u32).to_le_bytes());
        for e in edges {
            if e.target > MAX_STATE_ID {
                return Err(ClusterError::Unsupported(format!(
                    "state id {} exceeds the store's 48-bit ids",
                    e.target
                )));
            }
            bytes.extend_from_slice(&e.pack().to_le_bytes());
        }
        for &(num, den) in probs.unwrap_or(&[]) {
            bytes.extend_from_slice(&(u64::from(num) << 32 | u64::from(den)).to_le_bytes());
        }
        self.local_transitions += edges.len() as u64;
        let done = self.files()?.rows.append(&bytes);
        self.scratch = bytes;
        Ok(done?)
    }

    /// Appends an owned terminal state; ids must increase.
    pub fn append_terminal(&mut self, id: StateId, outcome: u16) -> Result<(), ClusterError> {
        let word = (id & MAX_STATE_ID) | u64::from(outcome) << 48;
        Ok(self.files()?.terminals.append_u64(word)?)
    }

    /// Transitions in this part's rows so far.
    pub fn local_transitions(&self) -> u64 {
        self.local_transitions
    }

    /// Makes everything appended durable and records it as the next commit
    /// point, with the global layer table and counts.
    pub fn commit(
        &mut self,
        layers: &[u64],
        expanded: u64,
        transitions: u64,
        status: PointStatus,
    ) -> Result<(), ClusterError> {
        let local_transitions = self.local_transitions;
        let files = self.files()?;
        let commits = PartCommits {
            states: files.states.commit()?,
            rows: files.rows.commit()?,
            terminals: files.terminals.commit()?,
        };
        let m = &mut self.manifest;
        m.layers = layers.to_vec();
        m.history.push(Point {
            layer_count: layers.len(),
            expanded,
            transitions,
            local_transitions,
            status,
            files: commits,
        });
        m.write(&self.dir)
    }

    /// A verified reader of the owned states as of the last commit point.
    pub fn states_reader(&self) -> Result<Option<CheckedReader>, ClusterError> {
        reader(&self.dir, &self.manifest, 0)
    }

    /// A verified reader of the owned states of the deepest layer: those the
    /// last commit point added after the point before it (the seeding's
    /// states, for the first layer), without reading the earlier ones.
    pub fn layer_reader(&self) -> Result<Option<CheckedReader>, ClusterError> {
        let m = &self.manifest;
        let Some(mut reader) = self.states_reader()? else {
            return Ok(None);
        };
        let from = m
            .history
            .iter()
            .rev()
            .find(|p| p.layer_count < m.layers.len())
            .map_or(0, |p| p.files.states.len);
        reader.seek_to(from)?;
        Ok(Some(reader))
    }
}

/// A verified reader of file `which` (0 states, 1 rows, 2 terminals) of the
/// part in `dir` at its last commit point; `None` before any commit.
pub fn reader(
    dir: &Path,
    m: &PartManifest,
    which: usize,
) -> Result<Option<CheckedReader>, ClusterError> {
    let Some(point) = m.last() else {
        return Ok(None);
    };
    let (name, header) = headers(m.identity.state_slot as usize)[which];
    let commit = [point.files.states, point.files.rows, point.files.terminals][which];
    CheckedReader::open(&dir.join(name), header, commit).map(Some)
}

/// Refuses a stored part that another run or another arrangement wrote.
fn check_same_run(
    dir: &Path,
    m: &PartManifest,
    identity: &RunIdentity,
    process: usize,
    processes: usize,
) -> Result<(), ClusterError> {
    let diff = m.identity.differences(identity);
    if !diff.is_empty() {
        return Err(ClusterError::Mismatch(format!(
            "{} holds a part of another run: {}; use another directory or --force-new",
            dir.display(),
            diff.join("; ")
        )));
    }
    if m.processes != processes || m.process != process {
        return Err(ClusterError::Mismatch(format!(
            "{} holds the part of process {} of {}, but this is process {process} of {processes}; \
             run with the same process count and index (or another directory)",
            dir.display(),
            m.process,
            m.processes
        )));
    }
    Ok(())
}

/// Deletes the part in `dir` (its manifest and files, nothing else), so that
/// the next exploration there starts afresh.
pub fn remove_part(dir: &Path) -> Result<(), ClusterError> {
    let mut names = vec![PART.to_string(), "PART.tmp".to_string()];
    for name in [STATES, ROWS, TERMINALS] {
        names.push(name.to_string());
        names.push(format!("{name}.sum"));
    }
    let scratch = dir.join(SCRATCH);
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).map_err(crate::error::io(&scratch))?;
    }
    for name in names {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(crate::error::io(&path)(e))
            }
            _ => {}
        }
    }
    Ok(())
}
