//! How a search starts: the explorer's state built within the budget, the
//! initial states seeded, or a checkpoint resumed with the index rebuilt
//! from the stored states.

use super::{disk_budget, Bfs, Chunks, Clock, Index, Resume, Row, RESERVE_BYTES, RESUME_VERSION};
use crate::disk::DiskDedup;
use crate::expand::Expander;
use crate::keys::Keys;
use crate::options::{ExploreOptions, IndexFigures, ProgressSink};
use crate::slot::Slot;
use crate::table::{Format, Table};
use crate::ExploreError;
use model::Game;
use std::sync::atomic::Ordering;
use store::{Checkpoint, RunWriter};

/// How many records ahead [`Bfs::refill_table`] fetches the table lines of.
const REFILL_AHEAD: usize = 16;

/// States a compact refill reads and places at a time: their records, keys
/// and the fill's order take at most [`REFILL_BYTES_PER_STATE`] bytes each,
/// within the reserve beside the index (see the test
/// `the_reserve_holds_a_compact_refill_beside_the_chunks`).
const REFILL_BATCH: usize = 1 << 20;

/// Bytes a state of a compact refill's batch takes: its record (a compact
/// table's keys are the records, at most six bytes), its key and its place
/// in the fill's order.
const REFILL_BYTES_PER_STATE: usize =
    crate::table::MOST_PACKED_BITS as usize / 8 + 8 + crate::table::FILL_ORDER_BYTES;

// The refill's batch fits the reserve beside the chunks in flight, with room
// to spare (the test `the_reserve_holds_a_compact_refill_beside_the_chunks`
// says what else the reserve holds).
const _: () = assert!(
    2 * super::CHUNK_BYTES + REFILL_BATCH * REFILL_BYTES_PER_STATE + (8 << 20)
        <= RESERVE_BYTES as usize
);

impl<'g> Bfs<'g> {
    pub(super) fn new(
        game: &'g dyn Game,
        mut writer: RunWriter,
        opts: &'g ExploreOptions,
    ) -> Result<Bfs<'g>, ExploreError> {
        // With threads to spare, the merge's writes land in the background:
        // the merge is the sequential step the other threads wait for.
        if opts.threads > 1 {
            writer.write_in_background()?;
        }
        let slot = Slot::for_width(game.state_width());
        let table_limit = opts.mem_budget.saturating_sub(RESERVE_BYTES);
        let least = super::least_budget();
        if opts.mem_budget < least {
            return Err(ExploreError::BudgetTooSmall {
                budget: opts.mem_budget,
                needed: least,
            });
        }
        let arena = Keys::bytes_per_state(slot.width());
        let format = Keys::table_format(slot.width());
        let most = most_in_memory(table_limit, arena, format, opts.index_limit);
        let first = opts.index_limit.unwrap_or(1 << 16).min(1 << 16);
        let table = Table::new(format, first, most)?;
        let records = arena_records(table_limit, most, arena, format, table.reserved_capacity());
        let index = Index {
            keys: Keys::new(slot.width(), records)?,
            table,
            table_limit,
            disk: None,
            largest: IndexFigures::default(),
            compact: false,
        };
        Ok(Bfs {
            expander: Expander {
                game,
                slot,
                chance: game.has_chance(),
            },
            writer,
            opts,
            index,
            layers: vec![0],
            next_parent: 0,
            threads: opts.threads.max(1),
            chunks: Chunks::default(),
            row: Row::default(),
            clock: Clock::new(),
            watching: None,
            stale_scratch: false,
        })
    }

    /// Stores the initial states as layer 0.
    pub(super) fn seed(&mut self) -> Result<(), ExploreError> {
        let mut record = Vec::new();
        for state in self.expander.game.initial_states() {
            record.clear();
            self.slot().encode(&state, &mut record)?;
            let tag = self.index.keys.tag(&record);
            let next = self.writer.state_count();
            let keys = &self.index.keys;
            if !keys.put(next, &record) {
                return Err(ExploreError::ArenaTooSmall(next));
            }
            if self
                .index
                .table
                .get_or_insert(tag, next, |id| keys.same(id, &record))
                .is_err()
            {
                self.writer.append_state(&record)?;
            }
        }
        self.layers = vec![0, self.writer.state_count()];
        self.writer.set_layers(&self.layers);
        Ok(())
    }

    /// Restores the search from a checkpoint and rebuilds the index from the
    /// stored states, which is cheaper than keeping the index on disk.
    pub(super) fn resume(
        &mut self,
        cp: Checkpoint,
        sink: &mut dyn ProgressSink,
    ) -> Result<(), ExploreError> {
        let resume: Resume = serde_json::from_value(cp.explorer.clone())
            .map_err(|e| ExploreError::BadCheckpoint(e.to_string()))?;
        if resume.version != RESUME_VERSION {
            return Err(ExploreError::BadCheckpoint(format!(
                "explorer checkpoint version {} (this build reads {RESUME_VERSION})",
                resume.version
            )));
        }
        self.layers = resume.layers;
        self.next_parent = resume.next_parent;
        self.clock.states_at_start = self.writer.state_count();
        let layer_ok = self
            .layers
            .last()
            .is_some_and(|&l| l <= self.clock.states_at_start);
        if self.next_parent != self.writer.expanded_count() || !layer_ok {
            return Err(ExploreError::BadCheckpoint(format!(
                "checkpoint says {} parents expanded, the store {}",
                self.next_parent,
                self.writer.expanded_count()
            )));
        }
        sink.note(&format!(
            "resuming at {} states, {} expanded, depth {}",
            self.clock.states_at_start,
            self.next_parent,
            self.layers.len().saturating_sub(2)
        ));
        let count = self.writer.state_count();
        // A run resumed with more states than the word layout holds with
        // room to grow resumes in the compact layout, as it would have
        // switched to it before.
        self.index.compact = self.index.keys.takes_compact()
            && count.saturating_mul(2) > self.most_in_memory_as(false) as u64;
        match resume.disk {
            // A disk checkpoint lies at a layer boundary (or the switch
            // point), with every state met so far stored: when a larger
            // budget now holds them all, the index is rebuilt in memory.
            Some(_) if self.memory_holds(count) => {
                sink.note(&format!(
                    "the memory budget now holds all {count} states: duplicates are detected in memory again"
                ));
                self.stale_scratch = true;
                if !self.refill_table(0, count as usize, false)? {
                    // Stopped: the interrupted run's checkpoint lets them go.
                    return Ok(());
                }
                // A checkpoint now, which names no runs, lets them go at once. Kept
                // until the next timed one, they were deleted when the search moved
                // to disk again before it (starting a disk phase clears the folder),
                // and a kill then left a checkpoint naming runs that were gone (or
                // replaced by the new phase's runs of the same names).
                self.checkpoint()
            }
            Some(disk) => {
                let mut dedup =
                    DiskDedup::resume(disk, &disk_budget(self.opts), self.slot().width())?;
                // The cache holds the newest states up to half its size, as
                // it does after every round (see `DiskDedup::finish_layer`).
                let capacity = dedup.table_states();
                let from = count.saturating_sub(capacity / 2);
                // Stopped mid-rebuild, the cache is incomplete, but the
                // search loop sees the flag before any lookup uses it.
                self.refill_table(from, capacity as usize, true)?;
                dedup.set_table_end(count);
                self.index.disk = Some(dedup);
                Ok(())
            }
            None => {
                // No checkpoint names scratch runs any more (a run brought
                // back into memory may have stopped before removing them).
                super::remove_scratch(&self.opts.scratch_dir)?;
                self.refill_table(0, count as usize, false).map(|_| ())
            }
        }
    }

    /// Fills an index sized for `capacity` states with the stored states
    /// `from..`. Returns false when the stop flag cut the rebuild short (it
    /// takes minutes on a billion states, and Ctrl-C must not wait for it):
    /// the index is then incomplete and must not be used.
    pub(super) fn refill_table(
        &mut self,
        from: u64,
        capacity: usize,
        on_disk: bool,
    ) -> Result<bool, ExploreError> {
        let count = self.writer.state_count();
        // On disk the index is a cache of recent states, whose ids are past
        // what a packed slot numbers.
        let (most, format) = match on_disk {
            true => (capacity, Format::Wide),
            false => (self.most_in_memory(), self.memory_format()),
        };
        self.index.table = Table::new(format, capacity.max(1 << 16), most.max(capacity))?;
        self.index.keys.reset(from);
        if let Format::Compact { .. } = format {
            return self.refill_compact(from);
        }
        let width = self.slot().width();
        let mut id = from;
        // A buffer of its own: mid-run (the switch to the compact layout)
        // the chunk's buffers are in use.
        let mut records = Vec::new();
        while id < count {
            if self.opts.stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let n = (count - id).min(1 << 20) as usize;
            self.writer.read_states(id, n, &mut records)?;
            let keys = &self.index.keys;
            let table = &self.index.table;
            // Each insert into a table far larger than the caches waits for its line
            // (on room5, 90% of a 13-minute rebuild): the lines of the records
            // `REFILL_AHEAD` further on are fetched meanwhile. The order of the
            // inserts, and so the table, is unchanged.
            let mut ahead = records.chunks_exact(width).skip(REFILL_AHEAD);
            for record in records.chunks_exact(width) {
                if let Some(later) = ahead.next() {
                    table.prefetch_key(table.key(keys.tag(later)));
                }
                if !keys.put(id, record) {
                    return Err(ExploreError::ArenaTooSmall(id));
                }
                table.insert_absent(keys.tag(record), id);
                id += 1;
            }
        }
        Ok(true)
    }

    /// [`Bfs::refill_table`] for a compact table, whose exact keys need no
    /// arena: batches of keys placed on every thread. Returns false when
    /// stopped, as [`Bfs::refill_table`] does.
    fn refill_compact(&mut self, from: u64) -> Result<bool, ExploreError> {
        let count = self.writer.state_count();
        let width = self.slot().width();
        // Allocated once, the longest batch's size, and counted in the
        // reserve (`REFILL_BATCH`).
        let (mut records, mut keys, mut order) = (Vec::new(), Vec::new(), Vec::new());
        let longest = (count.saturating_sub(from)).min(REFILL_BATCH as u64) as usize;
        records.reserve_exact(longest * width);
        keys.reserve_exact(longest);
        let mut id = from;
        while id < count {
            if self.opts.stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let n = (count - id).min(REFILL_BATCH as u64) as usize;
            self.writer.read_states(id, n, &mut records)?;
            let table = &self.index.table;
            keys.clear();
            keys.extend(
                records
                    .chunks_exact(width)
                    .map(|record| table.key(self.index.keys.tag(record))),
            );
            self.index
                .table
                .fill_absent(&keys, id, self.threads, &mut order);
            id += n as u64;
        }
        Ok(true)
    }

    /// Whether the in-memory index may hold `states` states under this
    /// run's budget (and the testing cap), as [`Bfs::make_room`] decides,
    /// with room to grow to twice as many: a resume under the budget that
    /// started the disk phase must not leave it only to enter it again at
    /// once, rewriting every stored state into scratch runs.
    fn memory_holds(&self, states: u64) -> bool {
        let best = self.most_in_memory_as(self.index.keys.takes_compact());
        let cap = self
            .opts
            .index_limit
            .unwrap_or(usize::MAX)
            .min(self.index.keys.capacity())
            .min(best);
        states.saturating_mul(2) <= cap as u64
    }

    /// The most states the in-memory index may hold in its present layout.
    pub(super) fn most_in_memory(&self) -> usize {
        self.most_in_memory_as(self.index.compact)
    }

    /// The most states the in-memory index may hold in the word layout, or
    /// with `compact` in the compact one.
    pub(super) fn most_in_memory_as(&self, compact: bool) -> usize {
        let keys = &self.index.keys;
        let (arena, format) = (keys.arena_bytes_per_state(), keys.memory_format(compact));
        most_in_memory(self.index.table_limit, arena, format, self.opts.index_limit)
    }

    /// The in-memory index's layout now.
    pub(super) fn memory_format(&self) -> Format {
        self.index.keys.memory_format(self.index.compact)
    }
}

/// The most states an in-memory index (table and key arena) may hold within
/// `limit` bytes: the capacity of the largest table that fits, since tables
/// come in powers of two (compact tables in finer steps, so the budget is
/// searched for the most states whose table fits).
fn most_in_memory(
    limit: u64,
    arena_per_state: u64,
    format: Format,
    index_limit: Option<usize>,
) -> usize {
    if let Format::Compact { .. } = format {
        let fits = |states: usize| {
            Table::bytes_for(states, format)
                .saturating_add(arena_per_state.saturating_mul(states as u64))
                <= limit
        };
        let (mut low, mut high) = (1usize << 16, MOST_IN_MEMORY);
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            match fits(mid) {
                true => low = mid,
                false => high = mid - 1,
            }
        }
        return index_limit.map_or(low, |cap| low.min(cap.max(1 << 16)));
    }
    let mut states = 1usize << 16;
    while states < MOST_IN_MEMORY {
        let next = states * 2;
        let bytes = Table::bytes_for(next, format)
            .saturating_add(arena_per_state.saturating_mul(next as u64));
        if bytes > limit || index_limit.is_some_and(|cap| states >= cap) {
            break;
        }
        states = next;
    }
    index_limit.map_or(states, |cap| states.min(cap.max(1 << 16)))
}

/// The most states the in-memory index is ever sized for (a table of 32 TiB), so that
/// the sizing ends whatever the budget: a budget of 2^64 bytes made it double forever.
const MOST_IN_MEMORY: usize = 1 << 40;

/// Records the wide-key arena reserves: as many as the table can hold once
/// grown to its whole reservation, when the budget left beside the table
/// allows, and never fewer than `most`. (It once reserved `most` only, while
/// the table grew past it, so that a search died where the ids left the arena:
/// at 2^26 states for `exp2.sandbox` under the default budget.)
fn arena_records(
    limit: u64,
    most: usize,
    arena_per_state: u64,
    format: Format,
    table_room: usize,
) -> usize {
    if arena_per_state == 0 {
        return most;
    }
    let left = limit.saturating_sub(Table::bytes_for(most, format)) / arena_per_state;
    table_room
        .min(usize::try_from(left).unwrap_or(usize::MAX))
        .max(most)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_ends_whatever_the_budget() {
        // Regression: `--mem 16777216T` looped forever here, deaf to SIGINT and SIGTERM.
        for arena in [0, 8, 64] {
            for format in [Format::Wide, Format::Packed { key_bits: 40 }] {
                assert_eq!(
                    most_in_memory(u64::MAX, arena, format, None),
                    MOST_IN_MEMORY
                );
            }
        }
        let wide = Format::Wide;
        assert_eq!(most_in_memory(u64::MAX, 8, wide, Some(1 << 20)), 1 << 20);
        assert_eq!(most_in_memory(0, 8, wide, None), 1 << 16);
    }

    #[test]
    fn the_reserve_holds_a_compact_refill_beside_the_chunks() {
        // At the switch to the compact layout the chunk being merged and the
        // one expanded ahead hold their successors (`CHUNK_BYTES` each)
        // while the refill's batch holds its records, keys and order. The
        // rest of the reserve is for the store's buffers (1 MiB a file, and
        // one in flight), the threads' stacks and the allocator's slack.
        // (Regression: the fill's order by home once took 24 uncounted
        // bytes a state of the batch, and room5 under `--mem 3G` went
        // 10.75 MiB over its budget.)
        let chunks = 2 * super::super::CHUNK_BYTES as u64;
        let refill = (REFILL_BATCH * REFILL_BYTES_PER_STATE) as u64;
        let rest = 8 << 20;
        assert_eq!(REFILL_BYTES_PER_STATE, 6 + 8 + 8);
        assert!(
            chunks + refill + rest <= RESERVE_BYTES,
            "{chunks} + {refill} + {rest} > {RESERVE_BYTES}"
        );
    }

    #[test]
    fn room5_fits_the_compact_index_of_the_default_budget_with_its_overflow_share() {
        // Half of this machine's 24 GiB, the default `--mem`: room5's
        // 1,540,652,835 states and a chunk's successors must fit, the
        // overflow list's share counted.
        let limit = (12_052u64 << 20) - RESERVE_BYTES;
        let format = Format::Compact { key_bits: 48 };
        let most = most_in_memory(limit, 0, format, None);
        assert!(most >= 1_541_000_000, "{most}");
        assert!(Table::bytes_for(most, format) <= limit);
    }
}
