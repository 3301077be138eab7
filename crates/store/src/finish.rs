//! `RunWriter::finish`: builds the in-edge CSR (`in.idx`, `in.log`) by a
//! counting pass and scatter passes over `trans.log`, and the fingerprint
//! index `fp.idx`, then writes the final checkpoint. Like the rest of the
//! writer it reads with buffered sequential I/O and never maps files.

use xxhash_rust::xxh3::xxh3_64;

use crate::append::AppendFile;
use crate::error::StoreError;
use crate::format::{segment_name, FileKind, FP_IDX, IN_IDX, IN_LOG, TRANS_IDX, TRANS_LOG};
use crate::layout;
use crate::manifest::{Progress, RunStatus};
use crate::seqread::SeqReader;
use crate::writer::RunWriter;
use crate::{Edge, InEdge, StateId};

impl RunWriter {
    /// Ends the run with status Complete or Partial: syncs everything,
    /// builds `in.idx`, `in.log` and `fp.idx`, and writes the final
    /// checkpoint. Memory: 8 bytes per state for the in-edge offsets, the
    /// scatter buffer (at most `finish_memory_bytes`, more passes otherwise)
    /// and 16 bytes per state for sorting the fingerprints.
    pub fn finish(mut self, status: RunStatus, progress: Progress) -> Result<(), StoreError> {
        if !status.is_finished() {
            return Err(StoreError::Usage(format!(
                "finish with status {status:?}: use Complete or Partial"
            )));
        }
        if let Some(problem) = layout::layers_problem(&self.layers, self.states) {
            return Err(StoreError::Usage(format!("cannot finish: {problem}")));
        }
        self.files.sync_all()?;
        let mut files = self.files.commits();
        let (mut in_idx, mut in_log) = self.build_in_csr()?;
        let mut fp_idx = self.build_fp_index()?;
        for (name, file) in [
            (IN_IDX, &mut in_idx),
            (IN_LOG, &mut in_log),
            (FP_IDX, &mut fp_idx),
        ] {
            file.sync()?;
            files.insert(name.to_string(), file.commit());
        }
        self.dir_dirty = true;
        self.write_checkpoint(status, files, serde_json::Value::Null, progress)
    }

    fn create_derived(&self, name: &str, kind: FileKind) -> Result<AppendFile, StoreError> {
        let header = layout::header(&self.manifest, kind, 0);
        AppendFile::create(&self.dir, name, header, self.options.buffer_bytes)
    }

    /// Counting pass (in-degrees, prefix sums, written as `in.idx` end
    /// offsets), then scatter passes: each pass owns the in-edges of a range
    /// of targets that fits the memory budget, fills them in source order
    /// and appends them, so `in.log` is written sequentially.
    fn build_in_csr(&self) -> Result<(AppendFile, AppendFile), StoreError> {
        let mut offsets = vec![0u64; self.states as usize];
        let in_log_path = self.dir.join(IN_LOG);
        self.for_each_edge(|_, edge| {
            let count = offsets
                .get_mut(edge.target as usize)
                .ok_or_else(|| bad_target(&in_log_path, edge))?;
            *count += 1;
            Ok(())
        })?;
        let mut in_idx = self.create_derived(IN_IDX, FileKind::InIdx)?;
        let mut running = 0u64;
        for count in offsets.iter_mut() {
            // Turn counts into start offsets while writing end offsets.
            let start = running;
            running += *count;
            in_idx.push_u64(running)?;
            *count = start;
        }
        let mut in_log = self.create_derived(IN_LOG, FileKind::InLog)?;
        let budget = (self.options.finish_memory_bytes / 8).max(1) as u64;
        let mut lo = 0usize;
        while lo < offsets.len() {
            let base = offsets[lo];
            let hi = range_end(&offsets, lo, base + budget, self.transitions);
            let end = offsets.get(hi).copied().unwrap_or(self.transitions);
            self.scatter_range(&mut offsets, lo..hi, base, end, &mut in_log)?;
            lo = hi;
        }
        Ok((in_idx, in_log))
    }

    fn scatter_range(
        &self,
        cursors: &mut [u64],
        targets: std::ops::Range<usize>,
        base: u64,
        end: u64,
        in_log: &mut AppendFile,
    ) -> Result<(), StoreError> {
        let mut buffer = vec![0u64; (end - base) as usize];
        let path = in_log.path().to_path_buf();
        self.for_each_edge(|source, edge| {
            let target = edge.target as usize;
            if !targets.contains(&target) {
                return Ok(());
            }
            let cursor = cursors
                .get_mut(target)
                .ok_or_else(|| bad_target(&path, edge))?;
            let slot = buffer
                .get_mut((*cursor - base) as usize)
                .ok_or_else(|| bad_target(&path, edge))?;
            *slot = InEdge {
                action: edge.action,
                source,
            }
            .pack();
            *cursor += 1;
            Ok(())
        })?;
        buffer.iter().try_for_each(|&word| in_log.push_u64(word))
    }

    /// Calls `visit(source, edge)` for every transition, in log order.
    fn for_each_edge(
        &self,
        mut visit: impl FnMut(StateId, Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let buf = self.options.buffer_bytes;
        let idx_path = self.dir.join(TRANS_IDX);
        let mut idx = SeqReader::open(&idx_path, self.expanded * 8, buf)?;
        let mut log = SeqReader::open(&self.dir.join(TRANS_LOG), self.transitions * 8, buf)?;
        let mut start = 0u64;
        for source in 0..self.expanded {
            let end = idx.next_u64()?;
            if end < start || end > self.transitions {
                return Err(StoreError::Corrupt {
                    path: idx_path,
                    what: format!(
                        "entry {source} = {end} is outside {start}..={}",
                        self.transitions
                    ),
                });
            }
            for _ in start..end {
                visit(source, Edge::unpack(log.next_u64()?))?;
            }
            start = end;
        }
        Ok(())
    }

    /// Sorted (xxh3-64 of the record, id) pairs. Sorted in memory (16 bytes
    /// per state); an external sort would bound this, see the format doc.
    fn build_fp_index(&self) -> Result<AppendFile, StoreError> {
        let slot = self.manifest.identity.state_slot as usize;
        let variable = self.manifest.identity.variable_width;
        let mut pairs = Vec::with_capacity(self.states as usize);
        let mut record = vec![0u8; slot];
        let per_segment = self.manifest.segment_records;
        for (index, _) in self.files.segments.iter().enumerate() {
            let first = index as u64 * per_segment;
            let count = self.states.saturating_sub(first).min(per_segment);
            let path = self.dir.join(segment_name(index as u64));
            let mut reader =
                SeqReader::open(&path, count * slot as u64, self.options.buffer_bytes)?;
            for id in first..first + count {
                reader.read_exact(&mut record)?;
                pairs.push((xxh3_64(record_payload(&record, variable)), id));
            }
        }
        pairs.sort_unstable();
        let mut fp_idx = self.create_derived(FP_IDX, FileKind::FpIdx)?;
        for (fp, id) in pairs {
            fp_idx.push_u64(fp)?;
            fp_idx.push_u64(id)?;
        }
        Ok(fp_idx)
    }
}

/// The record inside a slot: the whole slot, or the length-prefixed bytes
/// (a length past the slot is clamped; the reader's verification reports it).
pub(crate) fn record_payload(slot: &[u8], variable: bool) -> &[u8] {
    if !variable {
        return slot;
    }
    let len = match slot {
        [lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
        _ => 0,
    };
    let body = slot.get(2..).unwrap_or_default();
    body.get(..len).unwrap_or(body)
}

/// The end of the target range starting at `lo` whose in-edges end at or
/// before `limit` (at least one target, however many in-edges it has).
fn range_end(starts: &[u64], lo: usize, limit: u64, total: u64) -> usize {
    let past = lo
        + starts
            .get(lo..)
            .unwrap_or_default()
            .partition_point(|&start| start <= limit);
    let hi = if past == starts.len() && total <= limit {
        past
    } else {
        past - 1
    };
    hi.max(lo + 1)
}

fn bad_target(path: &std::path::Path, edge: Edge) -> StoreError {
    StoreError::Corrupt {
        path: path.to_path_buf(),
        what: format!(
            "edge target {} out of range while building in-edges",
            edge.target
        ),
    }
}
