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
//! At a layer's last chunk the overlap crosses into the next layer when the
//! first chunk of it is stored already: its parents are the first states the
//! layer's earlier merges added, not the ones this merge is still writing.
//! Without that, the other threads idled through every layer's last merge
//! and the merging thread waited on the next layer's first expansion. It
//! never crosses when a watcher follows the layers (it reads each one once
//! its merge is done) or when the next layer lies past the depth limit.
//!
//! On disk the overlap runs too (the merge, on one thread, was a quarter of
//! room4's wall under `--mem 128M`). The merge there inserts placeholders,
//! candidates' sequence numbers, into the index: a lookup beside it may take
//! one, which stays right while the round lasts. A round resolved between
//! the merge and the next chunk's makes them stale, so the next chunk's
//! placeholders are then forgotten (see [`Bfs::forget_placeholders_ahead`])
//! and its merge looks those successors up again. The lookups claim no slot
//! on disk: the index there is a cache the rounds refill.

use super::Bfs;
use crate::disk::is_placeholder;
use crate::expand::{Chunk, PARTS_PER_THREAD, UNRESOLVED};
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
        if self.opts.stop.load(Ordering::Relaxed) {
            // Making room may rebuild the index for minutes and stops
            // early when asked, leaving it incomplete: nothing is merged.
            return Ok(());
        }
        let next = first + count as u64;
        let next_count = self.ahead_count(next, layer_end);
        if self.threads < 2 || next_count == 0 {
            return self.merge_alone();
        }
        self.writer
            .read_states(next, next_count, &mut self.chunks.ahead_parents)?;
        if self.merge_overlapped(next)? {
            self.chunks.ahead_at = Some((next, next_count));
            self.chunks.layers_entered_ahead += u64::from(next == layer_end);
        }
        Ok(())
    }

    /// Parents of the chunk to expand beside the merge of the chunk ending at
    /// `next`: the rest of the layer up to a chunk's length, or past the
    /// layer's end the first chunk of the next layer when every one of its
    /// parents is stored already; 0 when nothing may be expanded beside it.
    fn ahead_count(&self, next: u64, layer_end: u64) -> usize {
        let len = self.chunk_len();
        if next < layer_end {
            return (layer_end - next).min(len) as usize;
        }
        // The layer's last merge: the next layer starts at `layer_end`, and
        // holds at least the states stored so far.
        let depth = (self.layers.len() - 2) as u32;
        let next_layer_allowed = self.opts.max_depth.is_none_or(|max| depth + 1 < max);
        let stored = self.writer.state_count();
        match self.watching.is_none() && next_layer_allowed && stored >= next + len {
            true => len as usize,
            false => 0,
        }
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
        // they miss, leaving room for every successor this merge may insert
        // (in memory only: a claim is settled by an id the merge gives).
        if self.index.disk.is_none() {
            let most = self.index.table.capacity().min(self.index_cap());
            self.index
                .table
                .allow_claims(most.saturating_sub(self.incoming()));
        }
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

    /// Forgets the placeholders the lookups of the chunk expanded ahead took
    /// from the index, once a round was resolved after they ran: they name
    /// sequence numbers of that round, and the next merge resolves those
    /// successors again. Ids of stored states stay: they never change.
    pub(super) fn forget_placeholders_ahead(&mut self) {
        if self.chunks.ahead_at.is_none() {
            return;
        }
        for (part, _) in &mut self.chunks.ahead {
            for id in part.ids.iter_mut().filter(|id| is_placeholder(**id)) {
                *id = UNRESOLVED;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Bfs;
    use crate::options::Ending;
    use crate::tests_wide::{identity, options, Heap};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use store::{OpenMode, RunWriter};

    /// Explores a heap of `n` states on `threads` threads in chunks of four
    /// parents a thread, to `max_depth`: the ending, every state in id order,
    /// and how many layers were entered beside a merge.
    fn run(n: u64, threads: usize, max_depth: Option<u32>) -> (Ending, Vec<u8>, u64) {
        let dir = tempfile::tempdir().expect("temp dir");
        let game = Heap::wide(n);
        let (writer, _) = RunWriter::open(
            &dir.path().join("run"),
            identity(&game),
            OpenMode::ResumeOrCreate,
        )
        .expect("open");
        let mut opts = options(dir.path(), 256 << 20, Arc::new(AtomicBool::new(false)));
        opts.threads = threads;
        opts.parents_per_part = 4;
        opts.max_depth = max_depth;
        opts.checkpoint_every = std::time::Duration::from_secs(3600);
        let mut bfs = Bfs::new(&game, writer, &opts).expect("new");
        bfs.seed().expect("seed");
        let ending = bfs.run(&mut crate::tests_wide::Quiet).expect("run");
        let mut states = Vec::new();
        let stored = bfs.writer.state_count() as usize;
        bfs.writer
            .read_states(0, stored, &mut states)
            .expect("read states");
        (ending, states, bfs.chunks.layers_entered_ahead)
    }

    /// A heap's layer `d` has `2^d` states. From layer 4 on (two chunks of
    /// eight parents), the layer's first merge stores a chunk of the next
    /// layer before its last one runs: the overlap crosses into layers 5 to
    /// 12 there, and gives the ids one thread gives. Under a depth limit of
    /// 6, layer 6 is stored but not expanded, so only layer 5 is entered
    /// ahead.
    #[test]
    fn the_overlap_crosses_into_a_layer_whose_first_chunk_is_stored() {
        for max_depth in [None, Some(6)] {
            let (ending, one, crossed) = run(5_000, 1, max_depth);
            assert_eq!(crossed, 0, "one thread expands nothing ahead");
            let (ending2, two, crossed2) = run(5_000, 2, max_depth);
            assert_eq!(ending, ending2);
            assert!(one == two, "the ids differ at depth limit {max_depth:?}");
            let expected = match max_depth {
                None => 8,
                Some(_) => 1,
            };
            assert_eq!(crossed2, expected, "depth limit {max_depth:?}");
        }
    }
}
