//! How a search ends: states left unexpanded classified, then the store
//! interrupted (resumable) or finished.

use super::Bfs;
use crate::options::{Ending, ProgressSink, Summary};
use crate::table::Table;
use crate::ExploreError;
use std::sync::atomic::Ordering;
use store::RunStatus;

impl<'g> Bfs<'g> {
    /// Classifies the states left unexpanded and closes the store.
    pub(super) fn end(
        mut self,
        ending: Ending,
        resumed: bool,
        sink: &mut dyn ProgressSink,
    ) -> Result<Summary, ExploreError> {
        if ending == Ending::Partial {
            let chance = self.expander.chance;
            if let Some(disk) = self.index.disk.as_mut() {
                // Nothing reads the cache after this last round.
                disk.finish_layer(
                    &mut self.writer,
                    (&mut self.index.table, &mut self.index.keys),
                    chance,
                    None,
                )?;
            }
            self.mark_unexpanded_terminals()?;
        }
        // The last progress (kept in the manifest) pairs the final counts with the
        // live figures of the whole graph, not those of the last layer's start.
        if let Some(w) = self.watching.as_mut() {
            w.settle(&self.writer, self.next_parent)?;
        }
        let (states, transitions) = self.writer_states();
        let summary = Summary {
            ending,
            states,
            expanded: self.next_parent,
            transitions,
            max_depth: self.deepest_layer(),
            elapsed: self.clock.started.elapsed(),
            resumed,
            used_disk: self.index.disk.is_some(),
            index: self.largest_index(),
        };
        if ending == Ending::Interrupted {
            if let Some(disk) = self.index.disk.as_mut() {
                disk.sync_runs()?;
            }
            let blob = self.resume_blob();
            let progress = self.progress("interrupted");
            sink.progress(&progress);
            self.writer.interrupt(blob, progress)?;
            if self.stale_scratch {
                super::remove_scratch(&self.opts.scratch_dir)?;
            }
        } else {
            let progress = self.progress("finishing");
            sink.progress(&progress);
            let status = match ending {
                Ending::Complete => RunStatus::Complete,
                _ => RunStatus::Partial,
            };
            // The index and the disk buffers are no longer needed: free
            // their memory before the last sync.
            self.index.table = Table::with_capacity(0)?;
            self.index.keys.reset(0);
            self.chunks.parts.clear();
            let used_disk = self.index.disk.take().is_some();
            self.writer.finish(status, progress)?;
            if used_disk || self.stale_scratch {
                super::remove_scratch(&self.opts.scratch_dir)?;
            }
        }
        Ok(summary)
    }

    pub(super) fn writer_states(&self) -> (u64, u64) {
        (self.writer.state_count(), self.writer.transition_count())
    }

    /// The deepest layer that holds a state.
    pub(super) fn deepest_layer(&self) -> u32 {
        let count = self.writer.state_count();
        let starts = self.layers.iter().filter(|&&s| s < count).count();
        starts.saturating_sub(1) as u32
    }

    /// Terminal states among those never expanded still carry their outcome.
    pub(super) fn mark_unexpanded_terminals(&mut self) -> Result<(), ExploreError> {
        let count = self.writer.state_count();
        let width = self.slot().width();
        let mut id = self.next_parent;
        while id < count {
            let n = (count - id).min(1 << 16) as usize;
            self.writer.read_states(id, n, &mut self.chunks.parents)?;
            for (k, record) in self.chunks.parents.chunks_exact(width).enumerate() {
                let state = self.expander.slot.decode(record);
                let outcome = self.expander.game.terminal(state);
                if self.opts.stop.load(Ordering::Relaxed) {
                    // The game may have cut that answer short (see
                    // `model::Game::interrupt_on`): commit nothing more.
                    return Err(ExploreError::StoppedWhileFinishing);
                }
                if let Some(outcome) = outcome {
                    self.writer.mark_terminal(id + k as u64, outcome)?;
                }
            }
            id += n as u64;
        }
        Ok(())
    }
}
