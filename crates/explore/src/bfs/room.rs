//! Room in the visited index for the next merge: the table doubles in place
//! while its reservation allows, and past the budget the search moves to
//! disk-based duplicate detection.

use super::{disk_budget, Bfs};
use crate::disk::DiskDedup;
use crate::expand::UNRESOLVED;
use crate::keys::Keys;
use crate::options::{IndexFigures, ProgressSink};
use crate::table::{claimed_slot, Table};
use crate::ExploreError;

impl<'g> Bfs<'g> {
    /// Grows the index for the coming merge, or moves to disk-based
    /// duplicate detection when growing would break the budget.
    pub(super) fn make_room(&mut self, sink: &mut dyn ProgressSink) -> Result<(), ExploreError> {
        let incoming = self.incoming();
        // The table holds no more states than the key arena has records for:
        // past them a new state's record could not be kept for confirmation.
        let cap = self.index_cap();
        let needed = self.index.table.len() + incoming;
        // A table whose overflow list is past its share of the budget must
        // double (its entries then mostly find slots) or be replaced.
        let crowded = self.index.table.crowded();
        let fits = needed <= self.index.table.capacity().min(cap);
        if self.index.disk.is_some() || (fits && !crowded) {
            return Ok(());
        }
        // The table is about to move its entries or be replaced: the slots
        // the lookups claimed are no longer where they were.
        self.forget_claims();
        // The table doubles in place inside a reservation sized for the
        // budget, so growing never holds an old and a new table at once.
        let can_grow = !crowded || self.index.table.can_double();
        if can_grow && needed <= self.index.table.reserved_capacity().min(cap) {
            let mut wanted = self.index.table.capacity() * 2;
            while wanted < needed {
                wanted *= 2;
            }
            let wanted = wanted.min(self.index.table.reserved_capacity());
            self.prefault_on_every_thread(wanted);
            self.index.table.grow_to(wanted, self.threads)?;
            return Ok(());
        }
        if self.switch_to_compact(needed, sink)? {
            return Ok(());
        }
        self.index.largest = self.largest_index();
        sink.note(&format!(
            "the visited index reached the memory budget at {} states: continuing with disk-based duplicate detection in {}",
            self.writer.state_count(),
            self.opts.scratch_dir.display()
        ));
        // On disk the index is only a cache of the newest states and the
        // round's candidates: at most a quarter of the budget, leaving the
        // rest to the round's candidate buffer and its resolution. Every
        // state stored so far goes into the disk runs, so the cache may
        // start empty.
        let frontier = self.frontier();
        let states = disk_cache_states(self.opts.mem_budget, &self.index.keys);
        self.index.table = Table::with_capacity(0)?;
        // The testing cap applies here too: clearing a table sized for the
        // whole default budget at every layer end would dwarf a small level.
        let states = states
            .min(self.index.table_limit as usize / 16)
            .min(cap.max(1 << 16));
        self.index.table = Table::with_capacity(states)?;
        // A reset would keep every page the arena has written resident, far
        // beyond the cache's share: a new arena sized for the cache gives
        // them back, and the resolution's buffers are counted on that
        // memory. (Reset only, `exp2.sandbox` switched at 178 M states
        // under `--mem 16G` and was killed at 24 GB.)
        let width = self.slot().width();
        self.index.keys = Keys::new(width, self.index.table.capacity())?;
        self.index.keys.reset(self.writer.state_count());
        let mut dedup = DiskDedup::start(
            &disk_budget(self.opts),
            self.slot().width(),
            &mut self.writer,
            self.index.table.bytes()
                + self.index.keys.arena_bytes_per_state() * self.index.table.capacity() as u64,
            self.index.table.capacity(),
        )?;
        let index = (&mut self.index.table, &self.index.keys);
        dedup.prime(&mut self.writer, index, frontier)?;
        self.index.disk = Some(dedup);
        Ok(())
    }

    /// Rebuilds the index in the compact layout from the stored states when
    /// the word layout cannot hold `needed` states within the budget but the
    /// compact one can: the word layout is faster, the compact one holds
    /// half as many states again (at most eight bytes a state when full).
    /// The word table is dropped first, so the budget holds throughout.
    fn switch_to_compact(
        &mut self,
        needed: usize,
        sink: &mut dyn ProgressSink,
    ) -> Result<bool, ExploreError> {
        let keys = &self.index.keys;
        if self.index.compact || !keys.takes_compact() {
            return Ok(false);
        }
        if needed > self.most_in_memory_as(true).min(self.index_cap()) {
            return Ok(false);
        }
        sink.note(&format!(
            "the visited index reached the memory budget at {} states in its word layout: rebuilding it in the compact layout",
            self.writer.state_count()
        ));
        self.index.largest = self.largest_index();
        self.index.compact = true;
        self.index.table = Table::with_capacity(0)?;
        let started = std::time::Instant::now();
        if !self.refill_table(0, needed, false)? {
            // Stopped: the caller sees the flag and merges nothing into
            // the incomplete index; a resume rebuilds it.
            return Ok(true);
        }
        sink.note(&format!(
            "the compact index holds the {} states stored so far, rebuilt in {:.1} s",
            self.writer.state_count(),
            started.elapsed().as_secs_f64()
        ));
        Ok(true)
    }

    /// The in-memory index's largest size: the present table's unless the
    /// search has moved to disk, where the table is only a cache.
    pub(super) fn largest_index(&self) -> IndexFigures {
        if self.index.disk.is_some() {
            return self.index.largest;
        }
        let table = &self.index.table;
        let full = table.capacity() as u64;
        IndexFigures {
            bytes: table.bytes() + self.index.keys.arena_bytes_per_state() * full,
            full_states: full,
            overflow: table.overflow_len() as u64,
        }
    }

    /// Successors of the pending chunk: at most the states its merge adds.
    pub(super) fn incoming(&self) -> usize {
        self.chunks.parts.iter().map(|(p, _)| p.len()).sum()
    }

    /// Most entries the in-memory index may hold: the testing cap, and the
    /// key arena's records (past them a new state's record could not be kept
    /// for confirmation).
    pub(super) fn index_cap(&self) -> usize {
        self.opts
            .index_limit
            .unwrap_or(usize::MAX)
            .min(self.index.keys.capacity())
    }

    /// Turns the pending chunk's claimed successors back into unresolved
    /// ones (see [`crate::table::Table::lookup_or_claim_key`]).
    fn forget_claims(&mut self) {
        for (part, _) in &mut self.chunks.parts {
            for id in &mut part.ids {
                if claimed_slot(*id).is_some() {
                    *id = UNRESOLVED;
                }
            }
        }
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

/// States the disk phase's cache holds under a budget of `budget` bytes: the
/// most that a table of a power of two of wide slots, at its last load, and
/// their records in the key arena hold in a quarter of the budget. (Sized by
/// states alone, the table rounded its slots up to the next power of two and
/// took up to half the budget: under `--mem 128M` it left nothing to the
/// candidates, whose buffer then sat at its floor of 65,536, and room4 took
/// about 350 rounds.)
fn disk_cache_states(budget: u64, keys: &Keys) -> usize {
    let (num, den) = (7, 10);
    let slot = Table::slot_bytes(crate::table::Format::Wide);
    let per_slot = slot + keys.arena_bytes_per_state() * num / den;
    let most = (budget / 4 / per_slot).max(16);
    let slots = 1u64 << most.ilog2();
    (slots * num / den) as usize
}

#[cfg(test)]
mod tests {
    use super::super::Bfs;
    use crate::options::{Ending, ProgressSink};
    use crate::tests_wide::{identity, options, Heap};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use store::{OpenMode, Progress, RunWriter};

    /// The cache's table and its records take at most a quarter of the
    /// budget, and more than an eighth: its slots are a power of two.
    #[test]
    fn the_disk_cache_takes_at_most_a_quarter_of_the_budget() {
        use crate::keys::Keys;
        use crate::table::Table;
        for width in [6, 12, 40] {
            let keys = Keys::new(width, 0).expect("keys");
            for budget in [50u64 << 20, 128 << 20, 200 << 20, 256 << 20, 16 << 30] {
                let states = super::disk_cache_states(budget, &keys);
                let table = Table::with_capacity(states).expect("table");
                let bytes = table.bytes() + keys.arena_bytes_per_state() * states as u64;
                assert!(bytes <= budget / 4, "{width}: {bytes} of {budget}");
                assert!(bytes > budget / 8, "{width}: {bytes} of {budget}");
                assert!(table.capacity() >= states);
            }
        }
    }

    /// Stops the search once it has moved to disk.
    struct StopOnDisk(Arc<AtomicBool>);

    impl ProgressSink for StopOnDisk {
        fn progress(&mut self, _progress: &Progress) {}
        fn note(&mut self, message: &str) {
            if message.contains("disk-based") {
                self.0.store(true, Ordering::SeqCst);
            }
        }
    }

    /// Regression: the switch to disk reset the key arena but kept its
    /// pages, so `exp2.sandbox` under `--mem 16G` reached 24 GB and was
    /// killed. The arena must shrink to the cache's share.
    #[test]
    fn the_disk_phase_keeps_no_arena_beyond_its_cache() {
        let dir = tempfile::tempdir().expect("temp dir");
        // 256 MB hold about 4 M wide states in memory; the cache takes a
        // quarter of the budget.
        let game = Heap::wide(6_000_000);
        let (writer, _) = RunWriter::open(
            &dir.path().join("run"),
            identity(&game),
            OpenMode::ResumeOrCreate,
        )
        .expect("open");
        let stop = Arc::new(AtomicBool::new(false));
        let mut opts = options(dir.path(), 256 << 20, stop.clone());
        // No checkpoint on the way: the syncs would be most of the time.
        opts.checkpoint_every = std::time::Duration::from_secs(3600);
        let mut bfs = Bfs::new(&game, writer, &opts).expect("new");
        bfs.seed().expect("seed");
        let in_memory = bfs.index.keys.capacity();
        let ending = bfs.run(&mut StopOnDisk(stop)).expect("run");
        assert_eq!(ending, Ending::Interrupted);
        assert!(bfs.index.disk.is_some(), "the search never went to disk");
        let cache = bfs.index.table.capacity();
        assert!(
            bfs.index.keys.capacity() <= cache && cache < in_memory,
            "arena of {} records for a cache of {cache} (in memory: {in_memory})",
            bfs.index.keys.capacity()
        );
    }
}
