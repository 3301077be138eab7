//! Verification deferred to a reader's own first pass over the rows: [`Run::open_deferred`]
//! verifies at once only the small files a reader of the graph needs (the frame tables
//! and the terminals) and leaves the big bit files of the rows and edges to
//! [`Run::verify_rows`], which the reader calls on each range of rows before it reads
//! them, so that a store larger than the page cache is read from disk once for both
//! its checksums and the reader's pass (the analysis: `hsg analyze`). Every block is
//! verified once whatever the ranges (a bitset of verified blocks), and
//! [`Run::finish_verification`] verifies the blocks no range reached and makes the
//! checks that need every row. The state records are not verified: a reader that opens
//! a run this way reads the graph only.

use crate::deferred_files::{Deferred, DeferredFile};
use crate::error::{corrupt, StoreError};
use crate::reader::Run;
use std::ops::Range;

impl Run {
    /// Opens `dir` for a reader of the graph that verifies as it goes: headers,
    /// lengths and frame tables as [`Run::open_lazy`] does, every block checksum of
    /// the frame tables and the terminals and every terminal, at once; the rows' and
    /// edges' bit files are verified by [`Run::verify_rows`] and
    /// [`Run::finish_verification`], which the reader must call before it trusts a
    /// value read from them. The state records and the probabilities are not verified:
    /// only for a reader that never reads them (the analysis).
    pub fn open_deferred(dir: &std::path::Path) -> Result<Run, StoreError> {
        let mut run = Run::open_lazy(dir)?;
        let files = run.manifest().files.clone();
        let [rows_index, rows_bits] = run.row_files();
        let [edges_index, edges_bits] = run.edge_files();
        rows_index.verify(files.rows[0])?;
        edges_index.verify(files.edges[0])?;
        run.terminal_file().verify(files.terminals)?;
        crate::structure::check_terminal_entries(&run)?;
        let deferred = Deferred {
            rows: DeferredFile::new(rows_bits, files.rows[1])?,
            edges: DeferredFile::new(edges_bits, files.edges[1])?,
        };
        run.set_deferred(deferred);
        Ok(run)
    }

    /// For a run opened with [`Run::open_deferred`]: verifies the checksums of the
    /// blocks that hold the rows `rows` (and the row before them) and their edges, and
    /// checks those rows and edges (row ends in order, frames starting where the row
    /// before ended, every edge naming a stored state and a declared action). Nothing
    /// for a run opened otherwise, which was verified at open or is verified by its
    /// reader. Ranges may overlap and come from several threads at once.
    pub fn verify_rows(&self, rows: Range<u64>) -> Result<(), StoreError> {
        let Some(deferred) = self.deferred() else {
            return Ok(());
        };
        let out = self.edges();
        let rows = rows.start..rows.end.min(out.rows());
        if rows.is_empty() {
            return Ok(());
        }
        let [_, rows_bits] = self.row_files();
        let [_, edges_bits] = self.edge_files();
        let with_before = rows.start.saturating_sub(1)..rows.end;
        deferred
            .rows
            .verify_bytes(rows_bits, out.rows.bit_bytes(with_before))?;
        crate::structure::check_row_range(self, rows.clone())?;
        let edges = out.row(rows.start).start..out.row(rows.end - 1).end;
        deferred
            .edges
            .verify_bytes(edges_bits, out.edges.bit_bytes(edges.clone()))?;
        crate::structure::check_edge_range(self, edges)
    }

    /// For a run opened with [`Run::open_deferred`]: verifies every block that
    /// [`Run::verify_rows`] did not reach, and that the rows end at the last edge (so
    /// that the ranges checked cover every edge). After it, the run is as verified as
    /// [`Run::open`] leaves it, the state records and probabilities aside.
    pub fn finish_verification(&self) -> Result<(), StoreError> {
        let Some(deferred) = self.deferred() else {
            return Ok(());
        };
        let [_, rows_bits] = self.row_files();
        let [_, edges_bits] = self.edge_files();
        deferred.rows.finish(rows_bits)?;
        deferred.edges.finish(edges_bits)?;
        let out = self.edges();
        let rows = out.rows();
        crate::structure::check_row_range(self, rows.saturating_sub(1)..rows)?;
        let end = match rows {
            0 => 0,
            r => out.row(r - 1).end,
        };
        if end != self.transition_count() {
            return Err(corrupt(
                self.row_files()[0].path(),
                format!(
                    "rows end at {end}, the manifest counts {} transitions",
                    self.transition_count()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "deferred_tests.rs"]
mod tests;
