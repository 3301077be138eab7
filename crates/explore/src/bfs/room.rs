//! Room in the visited index for the next merge: the table doubles in place
//! while its reservation allows, and past the budget the search moves to
//! disk-based duplicate detection.

use super::{disk_budget, Bfs};
use crate::disk::DiskDedup;
use crate::options::ProgressSink;
use crate::table::Table;
use crate::ExploreError;

impl<'g> Bfs<'g> {
    /// Grows the index for the coming merge, or moves to disk-based
    /// duplicate detection when growing would break the budget.
    pub(super) fn make_room(&mut self, sink: &mut dyn ProgressSink) -> Result<(), ExploreError> {
        let incoming: usize = self.chunks.parts.iter().map(|(p, _)| p.ids.len()).sum();
        // The table holds no more states than the key arena has records for:
        // past them a new state's record could not be kept for confirmation.
        let cap = self
            .opts
            .index_limit
            .unwrap_or(usize::MAX)
            .min(self.index.keys.capacity());
        let needed = self.index.table.len() + incoming;
        if self.index.disk.is_some() || needed <= self.index.table.capacity().min(cap) {
            return Ok(());
        }
        // The table doubles in place inside a reservation sized for the
        // budget, so growing never holds an old and a new table at once.
        if needed <= self.index.table.reserved_capacity().min(cap) {
            let mut wanted = self.index.table.capacity() * 2;
            while wanted < needed {
                wanted *= 2;
            }
            let wanted = wanted.min(self.index.table.reserved_capacity());
            self.prefault_on_every_thread(wanted);
            self.index.table.grow_to(wanted, self.threads)?;
            return Ok(());
        }
        sink.note(&format!(
            "the visited index reached the memory budget at {} states: continuing with disk-based duplicate detection in {}",
            self.writer.state_count(),
            self.opts.scratch_dir.display()
        ));
        // On disk the index is only a cache of the latest layer and its
        // candidates: a quarter of the budget, leaving the rest to the
        // layer's candidate buffer and its resolution. Every state stored so
        // far goes into the disk runs, so the cache may start empty.
        let per_state = crate::table::SLOT_BYTES * 10 / 7 + self.index.keys.arena_bytes_per_state();
        let states = (self.opts.mem_budget / 4 / per_state) as usize;
        self.index.table = Table::with_capacity(0)?;
        // The testing cap applies here too: clearing a table sized for the
        // whole default budget at every layer end would dwarf a small level.
        let states = states
            .min(self.index.table_limit as usize / 16)
            .min(cap.max(1 << 16));
        self.index.table = Table::with_capacity(states)?;
        self.index.keys.reset(self.writer.state_count());
        let dedup = DiskDedup::start(
            &disk_budget(self.opts),
            self.slot().width(),
            &mut self.writer,
            self.index.table.bytes()
                + self.index.keys.arena_bytes_per_state() * self.index.table.capacity() as u64,
            self.index.table.capacity(),
        )?;
        self.index.disk = Some(dedup);
        Ok(())
    }

    /// Gives memory to the part of the index a growth to `states` entries
    /// will use, on every thread at once, before the growth moves its
    /// entries: the kernel's first touch of the fresh pages often costs more
    /// than the move itself (see [`Table::prefault`]).
    pub(super) fn prefault_on_every_thread(&self, states: usize) {
        let end = self.index.table.words_for(states);
        let table = &self.index.table;
        std::thread::scope(|scope| {
            // Threads claim pages as they go, so a thread the system refuses only
            // leaves its pages to the others.
            for _ in 1..self.threads {
                let spawned =
                    std::thread::Builder::new().spawn_scoped(scope, || table.prefault(end));
                if spawned.is_err() {
                    break;
                }
            }
            table.prefault(end);
        });
    }
}
