//! The data files of a run being written, and the reads of states that
//! both the writer and `finish` make from them (buffered data included).

use crate::append::AppendFile;
use crate::error::StoreError;
use crate::layout::SEGMENT_STATES;
use crate::packed_file::{Names, PackedFile};
use crate::StateId;

/// The files of the packed row ends.
pub(crate) const ROWS: Names = Names {
    index: crate::layout::ROWS_IDX,
    index_kind: "rowsidx",
    bits: crate::layout::ROWS_BITS,
    bits_kind: "rowsbits",
};

/// The files of the packed edges.
pub(crate) const EDGES: Names = Names {
    index: crate::layout::EDGES_IDX,
    index_kind: "edgesidx",
    bits: crate::layout::EDGES_BITS,
    bits_kind: "edgebits",
};

/// The data files of a run being written.
pub(crate) struct DataFiles {
    pub segments: Vec<AppendFile>,
    /// The end of each expanded state's row of edges.
    pub rows: PackedFile,
    /// The edges, `target << action_bits | action`.
    pub edges: PackedFile,
    pub trans_prob: Option<AppendFile>,
    pub terminals: AppendFile,
}

impl DataFiles {
    /// Every data file: segments, then the packed rows and edges, the
    /// terminals and the probabilities.
    pub fn all(&mut self) -> impl Iterator<Item = &mut AppendFile> {
        self.segments
            .iter_mut()
            .chain(self.rows.files_mut())
            .chain(self.edges.files_mut())
            .chain([&mut self.terminals])
            .chain(self.trans_prob.as_mut())
    }

    /// Reads the `slot`-byte records of states `first..first + count` into
    /// `out` (replacing its content), including records not yet flushed. The
    /// caller has checked that they are stored.
    pub fn read_states(
        &self,
        slot: usize,
        first: StateId,
        count: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), StoreError> {
        out.clear();
        let mut id = first;
        let end = first + count as u64;
        while id < end {
            let seg = (id / SEGMENT_STATES) as usize;
            let within = id % SEGMENT_STATES;
            let n = (end - id).min(SEGMENT_STATES - within);
            let slot = slot as u64;
            let Some(file) = self.segments.get(seg) else {
                return Err(StoreError::Misuse(format!("no segment {seg} to read")));
            };
            file.read_at(within * slot, (n * slot) as usize, out)?;
            id += n;
        }
        Ok(())
    }
}
