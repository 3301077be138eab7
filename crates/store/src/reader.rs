//! [`Run`]: read-only access to a run directory for the analysis, the TUI,
//! reports and tests, without loading it into RAM and without the sled
//! database, so that it works on a store another process is still writing.

use crate::append::Commit;
use crate::data_files::{EDGES, ROWS};
use crate::deferred_files::Deferred;
use crate::derived::{Fingerprints, InEdges};
use crate::error::StoreError;
use crate::header::header;
use crate::identity::RunIdentity;
use crate::layout::segment;
use crate::manifest::{Manifest, RunStatus};
use crate::mapped::Mapped;
use crate::out_edges::OutEdges;
use crate::packed::Packed;
use crate::packed_file::Names;
use crate::{action_bits, unpack_prob, unpack_terminal, Edge, InEdge, StateId};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;

/// A run directory opened for reading.
pub struct Run {
    dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Mapped>,
    /// `rows.idx` and `rows.bits`.
    rows: [Mapped; 2],
    /// `edges.idx` and `edges.bits`.
    edges: [Mapped; 2],
    trans_prob: Option<Mapped>,
    terminals: Mapped,
    slot: usize,
    action_bits: u32,
    /// Derived on first use (see [`crate::derived`]).
    in_edges: OnceLock<InEdges>,
    fingerprints: OnceLock<Fingerprints>,
    /// What [`Run::open_deferred`] left to the reader's pass (see [`crate::deferred`]).
    deferred: Option<Deferred>,
}

/// What opening a run checks before handing it out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Checks {
    /// Headers, lengths and frame tables.
    Shape,
    /// Those and every row, edge and terminal.
    Structure,
    /// Those and every block checksum.
    All,
}

/// Maps both files of a packed sequence.
fn packed(
    dir: &Path,
    names: Names,
    commits: [Commit; 2],
    verify: bool,
) -> Result<[Mapped; 2], StoreError> {
    Ok([
        Mapped::open(
            &dir.join(names.index),
            header(names.index_kind, 16),
            commits[0],
            verify,
        )?,
        Mapped::open(
            &dir.join(names.bits),
            header(names.bits_kind, 8),
            commits[1],
            verify,
        )?,
    ])
}

fn optional(
    dir: &Path,
    name: &str,
    kind: &str,
    width: u32,
    c: Option<Commit>,
    verify: bool,
) -> Result<Option<Mapped>, StoreError> {
    c.map(|c| Mapped::open(&dir.join(name), header(kind, width), c, verify))
        .transpose()
}

impl Run {
    /// Opens `dir`, verifying headers, lengths, every block checksum and the
    /// structure of the indexes.
    pub fn open(dir: &Path) -> Result<Run, StoreError> {
        Run::open_with(dir, Checks::All)
    }

    /// Opens `dir` checking headers, lengths and structure but not the block
    /// checksums (for very large stores; see [`Run::verify`]).
    pub fn open_unverified(dir: &Path) -> Result<Run, StoreError> {
        Run::open_with(dir, Checks::Structure)
    }

    /// Opens `dir` checking headers, lengths and the frame tables only: milliseconds
    /// whatever the size of the run, for a reader that shows the run at once and
    /// verifies it in the background with [`Run::verify_watched`]. Until that has
    /// passed, values read may be wrong (never out of bounds: every accessor of the
    /// packed files reads zero past their end), so such a reader must say that the
    /// run is not verified yet.
    pub fn open_lazy(dir: &Path) -> Result<Run, StoreError> {
        Run::open_with(dir, Checks::Shape)
    }

    fn open_with(dir: &Path, checks: Checks) -> Result<Run, StoreError> {
        let verify = checks == Checks::All;
        if !dir.join(crate::manifest::MANIFEST).exists() {
            return Err(StoreError::NotAStore {
                path: dir.to_path_buf(),
                why: "no MANIFEST file".into(),
            });
        }
        let m = Manifest::read(dir)?;
        if m.nothing_committed() {
            return Err(StoreError::NothingCommitted {
                path: dir.to_path_buf(),
            });
        }
        crate::bounds::check_manifest(dir, &m)?;
        let slot = m.identity.state_slot;
        let f = &m.files;
        let mut segments = Vec::new();
        for (n, c) in f.states.iter().enumerate() {
            segments.push(Mapped::open(
                &segment(dir, n),
                header("states", slot),
                *c,
                verify,
            )?);
        }
        let run = Run {
            rows: packed(dir, ROWS, f.rows, verify)?,
            edges: packed(dir, EDGES, f.edges, verify)?,
            trans_prob: optional(
                dir,
                crate::layout::TRANS_PROB,
                "transprb",
                8,
                f.trans_prob,
                verify,
            )?,
            terminals: Mapped::open(
                &dir.join(crate::layout::TERMINALS),
                header("terminal", 8),
                f.terminals,
                verify,
            )?,
            segments,
            slot: slot as usize,
            action_bits: action_bits(&m.identity),
            in_edges: OnceLock::new(),
            fingerprints: OnceLock::new(),
            deferred: None,
            dir: dir.to_path_buf(),
            manifest: m,
        };
        match checks {
            Checks::Shape => crate::structure::check_shape(&run)?,
            Checks::Structure | Checks::All => crate::structure::check(&run)?,
        }
        Ok(run)
    }

    /// Verifies every block checksum.
    pub fn verify(&self) -> Result<(), StoreError> {
        for (m, c) in self.data_files() {
            m.verify(c)?;
        }
        Ok(())
    }

    /// Every mapped data file with its committed length and tail checksum.
    pub(crate) fn data_files(&self) -> Vec<(&Mapped, Commit)> {
        let f = &self.manifest.files;
        let mut files: Vec<(&Mapped, Commit)> =
            self.segments.iter().zip(f.states.clone()).collect();
        files.extend(self.rows.iter().zip(f.rows));
        files.extend(self.edges.iter().zip(f.edges));
        files.push((&self.terminals, f.terminals));
        if let (Some(m), Some(c)) = (&self.trans_prob, f.trans_prob) {
            files.push((m, c));
        }
        files
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest as read at open.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// What was explored.
    pub fn identity(&self) -> &RunIdentity {
        &self.manifest.identity
    }

    /// Where the run stood when opened.
    pub fn status(&self) -> RunStatus {
        self.manifest.status
    }

    /// States stored.
    pub fn state_count(&self) -> u64 {
        self.manifest.states
    }

    /// States expanded: those with an id below this (terminal ones have no edges).
    pub fn expanded_count(&self) -> u64 {
        self.manifest.expanded
    }

    /// Transitions stored.
    pub fn transition_count(&self) -> u64 {
        self.manifest.transitions
    }

    /// Start id of each BFS layer.
    pub fn layers(&self) -> &[u64] {
        &self.manifest.layers
    }

    /// The slot of state `id` (for variable-width runs, with its length prefix).
    pub fn slot(&self, id: StateId) -> &[u8] {
        let per = self.manifest.segment_states;
        let seg = &self.segments[(id / per) as usize];
        let at = (id % per) as usize * self.slot;
        &seg.data()[at..at + self.slot]
    }

    /// The encoding of state `id`, without padding. Panics if `id` is not a state.
    pub fn state(&self, id: StateId) -> &[u8] {
        let slot = self.slot(id);
        if !self.manifest.identity.variable_width {
            return slot;
        }
        let len = u16::from_le_bytes([slot[0], slot[1]]) as usize;
        &slot[2..(2 + len).min(slot.len())]
    }

    /// BFS depth of `id`: the layer containing it.
    pub fn depth(&self, id: StateId) -> u32 {
        let layers = &self.manifest.layers;
        (layers.partition_point(|&start| start <= id).max(1) - 1) as u32
    }

    /// The out-edges, read in place from their packed frames (the fast way
    /// to walk many rows: hold the view rather than calling
    /// [`Run::out_edges`] per state).
    pub fn edges(&self) -> OutEdges<'_> {
        let tails = &self.manifest.files.tails;
        OutEdges {
            rows: Packed {
                entries: self.rows[0].words(),
                bits: self.rows[1].words(),
                tail: &tails.rows,
            },
            edges: Packed {
                entries: self.edges[0].words(),
                bits: self.edges[1].words(),
                tail: &tails.edges,
            },
            action_bits: self.action_bits,
        }
    }

    /// A hint that a pass will soon read the rows of `rows` and, with `edges`, their
    /// edges: the kernel starts reading those bytes of the bit files into the page
    /// cache (see `docs/metrics.md`: a store larger than the page cache is otherwise
    /// read one fault at a time while the pass waits). It reads the frame tables
    /// only, so that the hint itself never waits for the disk.
    pub fn will_read_rows(&self, rows: std::ops::Range<u64>, edges: bool) {
        let out = self.edges();
        let rows = rows.start..rows.end.min(out.rows());
        if rows.is_empty() {
            return;
        }
        self.rows[1].will_need(out.rows.bit_bytes(rows.clone()));
        let frame = |row: u64| (row / crate::packed::FRAME as u64) as usize;
        // The rows of the tail (fewer than a frame) are in the manifest, and their
        // edges few: no hint for them.
        if edges && frame(rows.start) < out.rows.frames() {
            // A frame's base is the end of the row before it: the edges of the frames
            // that hold `rows` start and end at their bases.
            let first = out.rows.entry(frame(rows.start))[0];
            let end = match frame(rows.end - 1) + 1 {
                f if f < out.rows.frames() => out.rows.entry(f)[0],
                _ => out.len(),
            };
            self.edges[1].will_need(out.edges.bit_bytes(first..end.max(first)));
        }
    }

    /// Out-transitions of `id` (none for unexpanded states).
    pub fn out_edges(&self, id: StateId) -> impl ExactSizeIterator<Item = Edge> + '_ {
        let edges = self.edges();
        let row = edges.row(id);
        (row.start as usize..row.end as usize).map(move |i| edges.edge(i as u64))
    }

    /// Position of the first out-edge of `id` among all edges (edges are
    /// numbered in source order; see [`Run::prob`]).
    pub fn out_edge_start(&self, id: StateId) -> u64 {
        self.edges().row(id).start
    }

    /// Number of out-transitions of `id`.
    pub fn out_degree(&self, id: StateId) -> u64 {
        let row = self.edges().row(id);
        row.end - row.start
    }

    /// In-transitions of `id`, sources ascending. The first call derives every
    /// state's in-edges from the out-edges, in parallel, into memory (about
    /// 8 bytes an edge and a state), which later calls share.
    pub fn in_edges(&self, id: StateId) -> impl ExactSizeIterator<Item = InEdge> + '_ {
        self.in_edges
            .get_or_init(|| InEdges::derive(&self.edges(), self.state_count()))
            .of(id)
    }

    fn terminal_words(&self) -> &[u64] {
        self.terminals.words()
    }

    /// The outcome of `id` if it is terminal.
    pub fn outcome(&self, id: StateId) -> Option<u16> {
        let t = self.terminal_words();
        let i = t.partition_point(|&w| unpack_terminal(w).0 < id);
        t.get(i)
            .map(|&w| unpack_terminal(w))
            .filter(|&(s, _)| s == id)
            .map(|(_, o)| o)
    }

    /// Every terminal state with its outcome, in id order.
    pub fn terminals(&self) -> impl Iterator<Item = (StateId, u16)> + '_ {
        self.terminal_words().iter().map(|&w| unpack_terminal(w))
    }

    /// The id of a state, found through the fingerprint index and confirmed
    /// by comparing records. The first call fingerprints every state, in
    /// parallel, into memory (16 bytes a state), which later calls share.
    pub fn find_state(&self, state: &[u8]) -> Option<StateId> {
        let mut slot = Vec::with_capacity(self.slot);
        if self.manifest.identity.variable_width {
            slot.extend_from_slice(&(state.len() as u16).to_le_bytes());
        }
        slot.extend_from_slice(state);
        if slot.len() > self.slot {
            return None;
        }
        slot.resize(self.slot, 0);
        let fp = xxh3_64(&slot);
        let index = self
            .fingerprints
            .get_or_init(|| Fingerprints::derive(self.state_count(), &|id| self.slot(id)));
        index
            .candidates(fp)
            .find(|&id| id < self.state_count() && self.slot(id) == slot.as_slice())
    }

    /// The probability of transition number `edge` (games with chance).
    pub fn prob(&self, edge: u64) -> Option<(u32, u32)> {
        let words = self.trans_prob.as_ref()?.words();
        words.get(edge as usize).map(|&w| unpack_prob(w))
    }

    /// `rows.idx` and `rows.bits`.
    pub(crate) fn row_files(&self) -> &[Mapped; 2] {
        &self.rows
    }

    /// `edges.idx` and `edges.bits`.
    pub(crate) fn edge_files(&self) -> &[Mapped; 2] {
        &self.edges
    }

    /// `terminals`.
    pub(crate) fn terminal_file(&self) -> &Mapped {
        &self.terminals
    }

    /// What is left to verify, for a run opened with [`Run::open_deferred`].
    pub(crate) fn deferred(&self) -> Option<&Deferred> {
        self.deferred.as_ref()
    }

    pub(crate) fn set_deferred(&mut self, deferred: Deferred) {
        self.deferred = Some(deferred);
    }

    pub(crate) fn parts(&self) -> crate::structure::Parts<'_> {
        crate::structure::Parts {
            dir: &self.dir,
            manifest: &self.manifest,
            segments: &self.segments,
            slot: self.slot,
            rows: &self.rows,
            edges: &self.edges,
            out: self.edges(),
            prob: self.trans_prob.as_ref(),
            terminals: &self.terminals,
        }
    }
}
