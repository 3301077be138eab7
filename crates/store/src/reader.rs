//! [`Run`]: read-only access to a run directory for the analysis, the TUI,
//! reports and tests, without loading it into RAM and without the sled
//! database, so that it works on a store another process is still writing.

use crate::append::Commit;
use crate::error::StoreError;
use crate::header::header;
use crate::identity::RunIdentity;
use crate::layout::segment;
use crate::manifest::{Manifest, RunStatus};
use crate::mapped::Mapped;
use crate::{unpack_prob, unpack_terminal, Edge, InEdge, StateId};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// A run directory opened for reading.
pub struct Run {
    dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Mapped>,
    trans_idx: Mapped,
    trans_log: Mapped,
    trans_prob: Option<Mapped>,
    terminals: Mapped,
    in_idx: Option<Mapped>,
    in_log: Option<Mapped>,
    fp_idx: Option<Mapped>,
    slot: usize,
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
        Run::open_with(dir, true)
    }

    /// Opens `dir` checking headers, lengths and structure but not the block
    /// checksums (for very large stores; see [`Run::verify`]).
    pub fn open_unverified(dir: &Path) -> Result<Run, StoreError> {
        Run::open_with(dir, false)
    }

    fn open_with(dir: &Path, verify: bool) -> Result<Run, StoreError> {
        if !dir.join(crate::manifest::MANIFEST).exists() {
            return Err(StoreError::NotAStore {
                path: dir.to_path_buf(),
                why: "no MANIFEST file".into(),
            });
        }
        let m = Manifest::read(dir)?;
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
            trans_idx: Mapped::open(
                &dir.join("trans.idx"),
                header("transidx", 8),
                f.trans_idx,
                verify,
            )?,
            trans_log: Mapped::open(
                &dir.join("trans.log"),
                header("translog", 8),
                f.trans_log,
                verify,
            )?,
            trans_prob: optional(dir, "trans.prob", "transprb", 8, f.trans_prob, verify)?,
            terminals: Mapped::open(
                &dir.join("terminals"),
                header("terminal", 8),
                f.terminals,
                verify,
            )?,
            in_idx: optional(dir, "in.idx", "inidx", 8, f.in_idx, verify)?,
            in_log: optional(dir, "in.log", "inlog", 8, f.in_log, verify)?,
            fp_idx: optional(dir, "fp.idx", "fpidx", 16, f.fp_idx, verify)?,
            segments,
            slot: slot as usize,
            dir: dir.to_path_buf(),
            manifest: m,
        };
        crate::structure::check(&run)?;
        Ok(run)
    }

    /// Verifies every block checksum.
    pub fn verify(&self) -> Result<(), StoreError> {
        let f = &self.manifest.files;
        for (s, c) in self.segments.iter().zip(&f.states) {
            s.verify(*c)?;
        }
        self.trans_idx.verify(f.trans_idx)?;
        self.trans_log.verify(f.trans_log)?;
        self.terminals.verify(f.terminals)?;
        let pairs = [
            (&self.trans_prob, f.trans_prob),
            (&self.in_idx, f.in_idx),
            (&self.in_log, f.in_log),
            (&self.fp_idx, f.fp_idx),
        ];
        for (m, c) in pairs {
            if let (Some(m), Some(c)) = (m, c) {
                m.verify(c)?;
            }
        }
        Ok(())
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

    /// The out-edge index: `raw_out_index()[s]` is the end of state `s`'s row.
    pub fn raw_out_index(&self) -> &[u64] {
        self.trans_idx.words()
    }

    /// Every out-edge, packed (see [`Edge::unpack`]).
    pub fn raw_out_log(&self) -> &[u64] {
        self.trans_log.words()
    }

    fn out_row(&self, id: StateId) -> std::ops::Range<usize> {
        if id >= self.manifest.expanded {
            return 0..0;
        }
        let idx = self.raw_out_index();
        let end = idx[id as usize] as usize;
        let start = if id == 0 {
            0
        } else {
            idx[id as usize - 1] as usize
        };
        start..end
    }

    /// Out-transitions of `id` (none for unexpanded states).
    pub fn out_edges(&self, id: StateId) -> impl ExactSizeIterator<Item = Edge> + '_ {
        self.raw_out_log()[self.out_row(id)]
            .iter()
            .map(|&w| Edge::unpack(w))
    }

    /// Index in the log of the first out-edge of `id`.
    pub fn out_edge_start(&self, id: StateId) -> u64 {
        self.out_row(id).start as u64
    }

    /// Number of out-transitions of `id`.
    pub fn out_degree(&self, id: StateId) -> u64 {
        self.out_row(id).len() as u64
    }

    /// True when the in-edge CSR was built (finished runs).
    pub fn has_in_edges(&self) -> bool {
        self.in_idx.is_some()
    }

    /// In-transitions of `id`; empty when the in-edge CSR is not built.
    pub fn in_edges(&self, id: StateId) -> impl ExactSizeIterator<Item = InEdge> + '_ {
        let (idx, log) = match (&self.in_idx, &self.in_log) {
            (Some(i), Some(l)) => (i.words(), l.words()),
            _ => (&[][..], &[][..]),
        };
        let row = if (id as usize) < idx.len() {
            let start = if id == 0 {
                0
            } else {
                idx[id as usize - 1] as usize
            };
            start..idx[id as usize] as usize
        } else {
            0..0
        };
        log[row].iter().map(|&w| InEdge::unpack(w))
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
    /// by comparing records.
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
        let words = self.fp_idx.as_ref()?.words();
        let pairs = words.len() / 2;
        let first = partition(pairs, |i| words[2 * i] < fp);
        (first..pairs)
            .take_while(|&i| words[2 * i] == fp)
            .map(|i| words[2 * i + 1])
            .find(|&id| id < self.state_count() && self.slot(id) == slot.as_slice())
    }

    /// The probability of transition number `edge` (games with chance).
    pub fn prob(&self, edge: u64) -> Option<(u32, u32)> {
        let words = self.trans_prob.as_ref()?.words();
        words.get(edge as usize).map(|&w| unpack_prob(w))
    }

    pub(crate) fn parts(&self) -> crate::structure::Parts<'_> {
        crate::structure::Parts {
            dir: &self.dir,
            manifest: &self.manifest,
            segments: &self.segments,
            slot: self.slot,
            out_idx: &self.trans_idx,
            out_log: &self.trans_log,
            prob: self.trans_prob.as_ref(),
            terminals: &self.terminals,
            in_idx: self.in_idx.as_ref(),
            in_log: self.in_log.as_ref(),
            fp_idx: self.fp_idx.as_ref(),
        }
    }
}

fn partition(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
