//! One step of the search: expand a chunk of parents, make room in the
//! index, merge. With several threads and the index in memory, the next
//! chunk is expanded while the current one merges.
//!
//! The merge is sequential (it gives ids in parent order), so without
//! overlap a second core would idle through it. Here the merge runs on the
//! calling thread while the other workers expand the next chunk of the same
//! layer and look its successors up in the index the merge is filling. When
//! the merge is done it raises a flag: the lookups stop, and the merging
//! thread expands the parts of the next chunk nobody has taken yet (see
//! [`crate::expand::Pieces`]). The work moves to whichever side has time,
//! and a successor left unresolved is resolved by the next merge. Ids do not
//! depend on any of it, since the merge alone decides them, in parent order.
//!
//! The overlap never crosses a layer (the next layer's parents are the states
//! the current layer's merge is still writing) and never runs on disk, where
//! the merge updates the index as a cache and the expansion would read it
//! unguarded.

use super::Bfs;
use crate::expand::{Chunk, PARTS_PER_THREAD};
use crate::options::ProgressSink;
use crate::ExploreError;
use std::sync::atomic::{AtomicBool, Ordering};

impl Bfs<'_> {
    /// Expands and merges the `count` parents from `next_parent`, in the
    /// layer ending at `layer_end`.
    pub(super) fn step(
        &mut self,
        count: usize,
        layer_end: u64,
        sink: &mut dyn ProgressSink,
    ) -> Result<(), ExploreError> {
        let first = self.next_parent;
        match self.chunks.ahead_at.take() {
            Some(at) if at == (first, count) => {
                std::mem::swap(&mut self.chunks.parts, &mut self.chunks.ahead);
                std::mem::swap(&mut self.chunks.parents, &mut self.chunks.ahead_parents);
            }
            _ => {
                self.writer
                    .read_states(first, count, &mut self.chunks.parents)?;
                self.expand_parallel(first)?;
            }
        }
        self.measure_chunk();
        if self.opts.stop.load(Ordering::Relaxed) {
            // The game may have cut evaluations short when the flag rose
            // (see `model::Game::interrupt_on`): nothing of this chunk is
            // merged, and the run stops before it, at the last checkpoint's
            // parent boundary or a later one.
            return Ok(());
        }
        self.make_room(sink)?;
        let next = first + count as u64;
        let next_count = (layer_end - next).min(self.chunk_len()) as usize;
        if self.threads < 2 || self.index.disk.is_some() || next_count == 0 {
            return self.merge_alone();
        }
        self.writer
            .read_states(next, next_count, &mut self.chunks.ahead_parents)?;
        if self.merge_overlapped(next)? {
            self.chunks.ahead_at = Some((next, next_count));
        }
        Ok(())
    }

    /// Merges the expanded chunk with nothing else running.
    fn merge_alone(&mut self) -> Result<(), ExploreError> {
        let width = self.slot().width();
        let parts = std::mem::take(&mut self.chunks.parts);
        let merged = self.merger().parts(parts.iter().map(|(p, _)| p), width);
        self.chunks.parts = parts;
        merged.map(|_| ())
    }

    /// Merges the expanded chunk while the other threads expand the next
    /// one, whose parents (from `next`) are in `ahead_parents`. Once its
    /// merge is done, this thread expands whatever parts of the next chunk
    /// the others have not taken. Returns false when a limit stopped the
    /// merge, which makes the next chunk useless.
    fn merge_overlapped(&mut self, next: u64) -> Result<bool, ExploreError> {
        let width = self.slot().width();
        self.chunks
            .ahead
            .resize_with(self.threads * PARTS_PER_THREAD, Default::default);
        let stop = AtomicBool::new(false);
        let threads = self.threads;
        // The lookups of the next chunk may claim the slots of the states
        // they miss, leaving room for every successor this merge may insert.
        let most = self.index.table.capacity().min(self.index_cap());
        self.index
            .table
            .allow_claims(most.saturating_sub(self.incoming()));
        let (mut merge, beside) = self.merger_beside();
        let chunk = Chunk {
            first: next,
            parents: beside.ahead_parents,
            table: Some(merge.table),
            stop: Some(&stop),
            hold: beside.hold,
        };
        let (expander, keys) = (beside.expander, merge.keys);
        let parts = beside.parts;
        let (merged, expanded) = expander.expand_chunk(keys, &chunk, beside.ahead, threads, || {
            let merged = merge.parts(parts.iter().map(|(p, _)| p), width);
            stop.store(true, Ordering::Relaxed);
            merged
        });
        self.index.table.stop_claims();
        let merged = merged?;
        expanded?;
        Ok(merged)
    }
}
