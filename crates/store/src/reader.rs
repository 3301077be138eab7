//! `Run`: a run opened read-only. It reads only MANIFEST (never sled), maps
//! each data file up to its checkpointed length, and by default verifies
//! every checksum and structural invariant before handing out slices, so
//! that accessors never read past what was committed.

use std::ops::Range;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::error::StoreError;
use crate::finish::record_payload;
use crate::format::{
    FileKind, FP_IDX, IN_IDX, IN_LOG, MANIFEST, TERMINALS, TRANS_IDX, TRANS_LOG, TRANS_PROB,
};
use crate::identity::RunIdentity;
use crate::layout;
use crate::manifest::{Manifest, RunStatus};
use crate::mapped::MappedFile;
use crate::{unpack_prob, unpack_terminal, Edge, InEdge, StateId, ID_MASK};

/// A run opened for reading (also while a writer is still appending to it).
pub struct Run {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
    pub(crate) segments: Vec<MappedFile>,
    pub(crate) trans_idx: MappedFile,
    pub(crate) trans_log: MappedFile,
    pub(crate) trans_prob: Option<MappedFile>,
    pub(crate) terminals: MappedFile,
    pub(crate) in_idx: Option<MappedFile>,
    pub(crate) in_log: Option<MappedFile>,
    pub(crate) fp_idx: Option<MappedFile>,
    pub(crate) slot: usize,
    pub(crate) segment_shift: u32,
}

impl Run {
    /// Opens the run at its last checkpoint and verifies it fully (every
    /// block checksum, every index and edge target): a damaged run is an
    /// error naming the file and the damage, never a panic later.
    pub fn open(dir: &Path) -> Result<Run, StoreError> {
        let run = Run::open_unverified(dir)?;
        run.verify()?;
        Ok(run)
    }

    /// Opens the run checking only the manifest, headers and lengths: fast on
    /// huge runs. Accessors still never read outside the mapped files, but
    /// damaged data reads as garbage values (e.g. an edge target past the
    /// state count, which [`Run::state`] would then refuse with a panic).
    pub fn open_unverified(dir: &Path) -> Result<Run, StoreError> {
        let manifest = Manifest::read(dir)?;
        layout::validate(&manifest, &dir.join(MANIFEST))?;
        let mut segments = Vec::new();
        let mut named = std::collections::BTreeMap::new();
        for expected in layout::expected_files(&manifest) {
            let commit = manifest
                .checkpoint
                .files
                .get(&expected.name)
                .copied()
                .ok_or_else(|| StoreError::Manifest {
                    path: dir.join(MANIFEST),
                    what: format!("{} is missing from the checkpoint", expected.name),
                })?;
            let file = MappedFile::open(dir, &expected.name, expected.header, commit)?;
            if expected.header.kind == FileKind::States {
                segments.push(file);
            } else {
                named.insert(expected.name, file);
            }
        }
        let mut take = |name: &str| named.remove(name);
        let missing = |name: &str| StoreError::Manifest {
            path: dir.join(MANIFEST),
            what: format!("{name} is missing from the checkpoint"),
        };
        Ok(Run {
            dir: dir.to_path_buf(),
            trans_idx: take(TRANS_IDX).ok_or_else(|| missing(TRANS_IDX))?,
            trans_log: take(TRANS_LOG).ok_or_else(|| missing(TRANS_LOG))?,
            terminals: take(TERMINALS).ok_or_else(|| missing(TERMINALS))?,
            trans_prob: take(TRANS_PROB),
            in_idx: take(IN_IDX),
            in_log: take(IN_LOG),
            fp_idx: take(FP_IDX),
            segments,
            slot: manifest.identity.state_slot as usize,
            segment_shift: manifest.segment_records.trailing_zeros(),
            manifest,
        })
    }

    /// Identity, status, counts, layers, progress and the checkpoint.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn identity(&self) -> &RunIdentity {
        &self.manifest.identity
    }

    pub fn status(&self) -> RunStatus {
        self.manifest.status
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Number of states at the checkpoint.
    pub fn state_count(&self) -> u64 {
        self.manifest.checkpoint.states
    }

    /// States with id below this were expanded (terminal ones have no edges).
    pub fn expanded_count(&self) -> u64 {
        self.manifest.checkpoint.expanded
    }

    pub fn transition_count(&self) -> u64 {
        self.manifest.checkpoint.transitions
    }

    /// The record of state `id`, without length prefix or padding.
    ///
    /// # Panics
    /// If `id >= state_count()`, like slice indexing; see [`Run::try_state`].
    pub fn state(&self, id: StateId) -> &[u8] {
        match self.try_state(id) {
            Some(record) => record,
            None => panic!(
                "state id {id} out of range: the run has {} states",
                self.state_count()
            ),
        }
    }

    /// The record of state `id`, or `None` past the state count.
    #[inline]
    pub fn try_state(&self, id: StateId) -> Option<&[u8]> {
        if id >= self.state_count() {
            return None;
        }
        let segment = self.segments.get((id >> self.segment_shift) as usize)?;
        let within = (id & ((1u64 << self.segment_shift) - 1)) as usize;
        let slot = segment
            .bytes()
            .get(within * self.slot..(within + 1) * self.slot)?;
        Some(record_payload(slot, self.manifest.identity.variable_width))
    }

    /// The BFS depth of `id`: the index of the last layer starting at or
    /// before it (states are stored in BFS order).
    pub fn depth(&self, id: StateId) -> u32 {
        let layers = &self.manifest.checkpoint.layers;
        layers
            .partition_point(|&start| start <= id)
            .saturating_sub(1) as u32
    }

    /// Start id of each BFS depth.
    pub fn layers(&self) -> &[u64] {
        &self.manifest.checkpoint.layers
    }

    /// Indices (into `raw_out_log`, `prob`) of the out-edges of `id`;
    /// empty for an unexpanded state.
    #[inline]
    pub fn out_edge_range(&self, id: StateId) -> Range<u64> {
        csr_range(self.trans_idx.words(), id)
    }

    /// The transitions leaving `id`, in the order they were appended.
    pub fn out_edges(&self, id: StateId) -> impl ExactSizeIterator<Item = Edge> + '_ {
        let range = self.out_edge_range(id);
        slice_of(self.trans_log.words(), range)
            .iter()
            .map(|&w| Edge::unpack(w))
    }

    pub fn out_degree(&self, id: StateId) -> u64 {
        let range = self.out_edge_range(id);
        range.end - range.start
    }

    /// True when `finish` built the in-edge CSR (and the fingerprint index).
    pub fn has_in_edges(&self) -> bool {
        self.in_idx.is_some()
    }

    /// The transitions entering `id`, by increasing source; empty if the
    /// in-edge CSR is not built (see [`Run::has_in_edges`]).
    pub fn in_edges(&self, id: StateId) -> impl ExactSizeIterator<Item = InEdge> + '_ {
        let words = match (&self.in_idx, &self.in_log) {
            (Some(idx), Some(log)) => slice_of(log.words(), csr_range(idx.words(), id)),
            _ => &[],
        };
        words.iter().map(|&w| InEdge::unpack(w))
    }

    pub fn in_degree(&self, id: StateId) -> u64 {
        self.in_edges(id).len() as u64
    }

    /// The outcome of `id` if it is terminal.
    pub fn outcome(&self, id: StateId) -> Option<u16> {
        let words = self.terminals.words();
        let at = words.partition_point(|&w| w & ID_MASK < id);
        let (found, outcome) = unpack_terminal(*words.get(at)?);
        (found == id).then_some(outcome)
    }

    /// Terminal states and their outcomes, by increasing id.
    pub fn terminals(&self) -> impl ExactSizeIterator<Item = (StateId, u16)> + '_ {
        self.terminals.words().iter().map(|&w| unpack_terminal(w))
    }

    /// The id of the state whose record is `record`. Uses the fingerprint
    /// index when built and confirms every candidate by comparing records,
    /// so a fingerprint collision never merges distinct states; scans all
    /// states on a run that is not finished yet.
    pub fn find_state(&self, record: &[u8]) -> Option<StateId> {
        let Some(fp_idx) = &self.fp_idx else {
            return (0..self.state_count()).find(|&id| self.try_state(id) == Some(record));
        };
        let pairs = fp_idx.words();
        let fp = xxh3_64(record);
        let count = pairs.len() / 2;
        let first = partition_pairs(count, |i| pairs.get(2 * i).is_some_and(|&f| f < fp));
        (first..count)
            .map_while(|i| match (pairs.get(2 * i), pairs.get(2 * i + 1)) {
                (Some(&f), Some(&id)) if f == fp => Some(id),
                _ => None,
            })
            .find(|&id| self.try_state(id) == Some(record))
    }

    /// The probability (num, den) of transition `edge_index`, if the run has chance.
    pub fn prob(&self, edge_index: u64) -> Option<(u32, u32)> {
        let words = self.trans_prob.as_ref()?.words();
        words
            .get(usize::try_from(edge_index).ok()?)
            .map(|&w| unpack_prob(w))
    }

    /// `trans.idx`: end offset (in edges) of each expanded state's out-edges.
    pub fn raw_out_index(&self) -> &[u64] {
        self.trans_idx.words()
    }

    /// `trans.log`: packed out-edges in source order (see [`Edge::unpack`]).
    pub fn raw_out_log(&self) -> &[u64] {
        self.trans_log.words()
    }

    /// `in.idx` (end offset per state) if built.
    pub fn raw_in_index(&self) -> Option<&[u64]> {
        self.in_idx.as_ref().map(MappedFile::words)
    }

    /// `in.log` (packed in-edges in target order, see [`InEdge::unpack`]) if built.
    pub fn raw_in_log(&self) -> Option<&[u64]> {
        self.in_log.as_ref().map(MappedFile::words)
    }
}

/// Entries `[idx[id-1], idx[id])` of a CSR whose index holds end offsets;
/// empty when `id` is past the index or the offsets are out of order.
#[inline]
fn csr_range(ends: &[u64], id: StateId) -> Range<u64> {
    let Ok(i) = usize::try_from(id) else {
        return 0..0;
    };
    let end = match ends.get(i) {
        Some(&end) => end,
        None => return 0..0,
    };
    let start = if i == 0 {
        0
    } else {
        ends.get(i - 1).copied().unwrap_or(0)
    };
    if start <= end {
        start..end
    } else {
        0..0
    }
}

#[inline]
fn slice_of(words: &[u64], range: Range<u64>) -> &[u64] {
    words
        .get(range.start as usize..range.end as usize)
        .unwrap_or_default()
}

/// First index in `0..count` for which `below` is false (`below` monotone).
fn partition_pairs(count: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
