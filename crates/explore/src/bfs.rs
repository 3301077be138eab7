//! The layered breadth-first search: seeding, chunked parallel expansion, the
//! sequential merge that assigns ids, checkpoints, limits and the ending.
//!
//! Invariants the rest of hyperstate relies on:
//! - states are stored in id order and expanded in id order, so the store's
//!   transition index doubles as an out-edge CSR;
//! - layer `d` is the id range `layers[d]..layers[d + 1]`, so the BFS depth of
//!   a state is never stored per state;
//! - a parent's successors are merged in the game's order, parents in id
//!   order, so the first meeting of a state (and hence its id) is the same
//!   whatever the thread count, the memory budget or the interruptions;
//! - a checkpoint is taken only at a parent boundary, where every expanded
//!   parent has all its transitions written and no later parent has any.

mod pipeline;

use crate::disk::DiskDedup;
use crate::expand::{Chunk, Expander, Part, PARTS_PER_THREAD};
use crate::keys::Keys;
use crate::merge::Merge;
use crate::slot::Slot;
use crate::table::Table;
use crate::watch::{Hold, Watcher, Watching};
use crate::ExploreError;
use model::{Game, Successors};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::{Checkpoint, Edge, Progress, RunStatus, RunWriter};

/// Parents expanded per thread between two merges, unless the options say.
pub const PARENTS_PER_PART: usize = 16 * 1024;
/// Memory kept aside from the visited index for buffers of every kind.
const RESERVE_BYTES: u64 = 48 << 20;

/// How to explore.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Bytes of RAM the explorer may use for its index and buffers.
    pub mem_budget: u64,
    /// Worker threads for expansion; at least one.
    pub threads: usize,
    /// Stop at the first parent boundary with at least this many states.
    pub max_states: Option<u64>,
    /// States at this BFS depth are stored but not expanded.
    pub max_depth: Option<u32>,
    /// Time between two checkpoints.
    pub checkpoint_every: Duration,
    /// Time between two progress reports.
    pub progress_every: Duration,
    /// Set (by a signal handler) to stop at the next parent boundary.
    pub stop: Arc<AtomicBool>,
    /// Where disk-based duplicate detection keeps its scratch files.
    pub scratch_dir: PathBuf,
    /// Most states the in-memory index may hold whatever the budget (for
    /// tests of the disk path on small levels); `None` for no such cap.
    pub index_limit: Option<usize>,
    /// Most candidates one disk-phase resolution takes (for tests of the
    /// mid-layer rounds on small levels); `None` to derive it from the budget.
    pub round_limit: Option<u64>,
    /// Parents each thread expands between two merges ([`PARENTS_PER_PART`]
    /// normally; tests make it small so that small levels have many chunks
    /// per layer and exercise the overlapped merge).
    pub parents_per_part: usize,
}

/// Receives progress while an exploration runs.
pub trait ProgressSink {
    /// Called every [`ExploreOptions::progress_every`] and at the end.
    fn progress(&mut self, progress: &Progress);
    /// A one-line message worth telling the user (switching to disk, ...).
    fn note(&mut self, message: &str);
}

/// How an exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every reachable state was expanded.
    Complete,
    /// A limit stopped the search; the store is marked partial.
    Partial,
    /// A stop request ended the run after a checkpoint; it can be resumed.
    Interrupted,
}

/// What an exploration did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// How it ended.
    pub ending: Ending,
    /// States stored.
    pub states: u64,
    /// States expanded.
    pub expanded: u64,
    /// Transitions stored.
    pub transitions: u64,
    /// Deepest BFS layer holding a state.
    pub max_depth: u32,
    /// Wall time of this invocation.
    pub elapsed: Duration,
    /// True when the run resumed from a checkpoint.
    pub resumed: bool,
    /// True when the index outgrew the budget and duplicates went to disk.
    pub used_disk: bool,
}

/// The explorer's part of a checkpoint, stored opaquely by the store.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Resume {
    version: u32,
    next_parent: u64,
    layers: Vec<u64>,
    disk: Option<crate::disk::DiskResume>,
}

const RESUME_VERSION: u32 = 1;

/// Explores `game` into `writer`, resuming from `checkpoint` when given.
pub fn explore(
    game: &dyn Game,
    writer: RunWriter,
    checkpoint: Option<Checkpoint>,
    opts: &ExploreOptions,
    sink: &mut dyn ProgressSink,
) -> Result<Summary, ExploreError> {
    explore_watched(game, writer, checkpoint, opts, sink, None)
}

/// [`explore`] with a [`Watcher`] that sees every complete layer and may hold
/// states of the next one back. A run whose watcher held states back ends
/// partial, since their futures are unknown.
pub fn explore_watched<'a>(
    game: &'a dyn Game,
    writer: RunWriter,
    checkpoint: Option<Checkpoint>,
    opts: &'a ExploreOptions,
    sink: &mut dyn ProgressSink,
    watcher: Option<&'a mut dyn Watcher>,
) -> Result<Summary, ExploreError> {
    let mut bfs = Bfs::new(game, writer, opts)?;
    bfs.watching = watcher.map(Watching::new);
    let resumed = checkpoint.is_some();
    match checkpoint {
        Some(cp) => bfs.resume(cp, sink)?,
        None => bfs.seed()?,
    }
    if let Some(w) = bfs.watching.as_mut() {
        w.start(&bfs.writer, &bfs.layers, bfs.next_parent)?;
    }
    let mut ending = bfs.run(sink)?;
    let cut = bfs.watching.as_ref().is_some_and(|w| w.cut_count > 0);
    if ending == Ending::Complete && cut {
        ending = Ending::Partial;
    }
    bfs.end(ending, resumed, sink)
}

/// What the overlapped expansion borrows while [`Merge`] holds the rest.
struct Beside<'a, 'g> {
    expander: &'a Expander<'g>,
    /// The chunk being merged.
    parts: &'a [(Part, Successors)],
    /// The next chunk, being expanded.
    ahead: &'a mut Vec<(Part, Successors)>,
    ahead_parents: &'a [u8],
    /// The states the live analysis holds back.
    hold: Hold<'a>,
}

struct Bfs<'g> {
    expander: Expander<'g>,
    writer: RunWriter,
    opts: &'g ExploreOptions,
    keys: Keys,
    table: Table,
    table_limit: u64,
    disk: Option<DiskDedup>,
    layers: Vec<u64>,
    next_parent: u64,
    /// Worker threads.
    threads: usize,
    /// The chunk being merged, expanded.
    parts: Vec<(Part, Successors)>,
    /// The parents of the chunk being merged.
    parents: Vec<u8>,
    /// The next chunk, expanded while the current one merges (see
    /// [`pipeline`]), its parents, and where it starts and how many parents
    /// it has once complete.
    ahead: Vec<(Part, Successors)>,
    ahead_parents: Vec<u8>,
    ahead_at: Option<(u64, usize)>,
    edges: Vec<Edge>,
    probs: Vec<(u32, u32)>,
    started: Instant,
    last_checkpoint: Instant,
    last_progress: Instant,
    states_at_start: u64,
    watching: Option<Watching<'g>>,
}

impl<'g> Bfs<'g> {
    fn new(
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
        let least = Table::bytes_for(1 << 16) + RESERVE_BYTES;
        if opts.mem_budget < least {
            return Err(ExploreError::BudgetTooSmall {
                budget: opts.mem_budget,
                needed: least,
            });
        }
        let threads = opts.threads.max(1);
        let now = Instant::now();
        let arena = Keys::bytes_per_state(slot.width());
        let most = most_in_memory(table_limit, arena, opts.index_limit);
        let keys = Keys::new(slot.width(), most)?;
        Ok(Bfs {
            expander: Expander {
                game,
                slot,
                chance: game.has_chance(),
            },
            writer,
            opts,
            keys,
            table: Table::with_room(opts.index_limit.unwrap_or(1 << 16).min(1 << 16), most)?,
            table_limit,
            disk: None,
            layers: vec![0],
            next_parent: 0,
            threads,
            parts: Vec::new(),
            ahead: Vec::new(),
            ahead_parents: Vec::new(),
            ahead_at: None,
            parents: Vec::new(),
            edges: Vec::new(),
            probs: Vec::new(),
            started: now,
            last_checkpoint: now,
            last_progress: now,
            states_at_start: 0,
            watching: None,
        })
    }

    fn slot(&self) -> Slot {
        self.expander.slot
    }

    /// Stores the initial states as layer 0.
    fn seed(&mut self) -> Result<(), ExploreError> {
        let mut record = Vec::new();
        for state in self.expander.game.initial_states() {
            record.clear();
            self.slot().encode(&state, &mut record)?;
            let tag = self.keys.tag(&record);
            let next = self.writer.state_count();
            let keys = &self.keys;
            if !keys.put(next, &record) {
                return Err(ExploreError::ArenaTooSmall(next));
            }
            if self
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
    fn resume(&mut self, cp: Checkpoint, sink: &mut dyn ProgressSink) -> Result<(), ExploreError> {
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
        self.states_at_start = self.writer.state_count();
        let layer_ok = self
            .layers
            .last()
            .is_some_and(|&l| l <= self.states_at_start);
        if self.next_parent != self.writer.expanded_count() || !layer_ok {
            return Err(ExploreError::BadCheckpoint(format!(
                "checkpoint says {} parents expanded, the store {}",
                self.next_parent,
                self.writer.expanded_count()
            )));
        }
        sink.note(&format!(
            "resuming at {} states, {} expanded, depth {}",
            self.states_at_start,
            self.next_parent,
            self.layers.len().saturating_sub(2)
        ));
        let count = self.writer.state_count();
        match resume.disk {
            Some(disk) => {
                let mut dedup = DiskDedup::resume(disk, self.opts, self.slot().width())?;
                let capacity = dedup.table_states();
                let layer = self.layers[self.layers.len().saturating_sub(2)];
                let from = layer.max(count.saturating_sub(capacity));
                self.refill_table(from, capacity as usize)?;
                dedup.set_table_end(count);
                self.disk = Some(dedup);
                Ok(())
            }
            None => self.refill_table(0, count as usize),
        }
    }

    /// Fills an index sized for `capacity` states with the stored states `from..`.
    fn refill_table(&mut self, from: u64, capacity: usize) -> Result<(), ExploreError> {
        let count = self.writer.state_count();
        let most = match self.disk {
            Some(_) => capacity,
            None => self.most_in_memory(),
        };
        self.table = Table::with_room(capacity.max(1 << 16), most.max(capacity))?;
        self.keys.reset(from);
        let width = self.slot().width();
        let mut id = from;
        while id < count {
            let n = (count - id).min(1 << 20) as usize;
            self.writer.read_states(id, n, &mut self.parents)?;
            for record in self.parents.chunks_exact(width) {
                if !self.keys.put(id, record) {
                    return Err(ExploreError::ArenaTooSmall(id));
                }
                self.table.insert_absent(self.keys.tag(record), id);
                id += 1;
            }
        }
        Ok(())
    }

    /// Expands layer after layer until the space is exhausted, a limit is
    /// reached or a stop is requested.
    fn run(&mut self, sink: &mut dyn ProgressSink) -> Result<Ending, ExploreError> {
        loop {
            if self.opts.stop.load(Ordering::Relaxed) {
                return Ok(Ending::Interrupted);
            }
            let depth = (self.layers.len() - 2) as u32;
            let layer_end = self.layers[self.layers.len() - 1];
            if self.next_parent == layer_end {
                let chance = self.expander.chance;
                if let Some(disk) = self.disk.as_mut() {
                    disk.finish_layer(&mut self.writer, &mut self.table, &mut self.keys, chance)?;
                }
                if let Some(w) = self.watching.as_mut() {
                    w.feed_upto(&self.writer, layer_end)?;
                }
                if self.writer.state_count() == layer_end {
                    return Ok(Ending::Complete);
                }
                self.layers.push(self.writer.state_count());
                self.writer.set_layers(&self.layers);
                if let Some(w) = self.watching.as_mut() {
                    w.plan(layer_end, self.writer.state_count())?;
                }
                if self.disk.is_some() {
                    self.checkpoint()?;
                }
                continue;
            }
            if self.opts.max_depth.is_some_and(|max| depth >= max) {
                return Ok(Ending::Partial);
            }
            if self.limit_reached() {
                return Ok(Ending::Partial);
            }
            let count = (layer_end - self.next_parent).min(self.chunk_len());
            self.step(count as usize, layer_end, sink)?;
            self.resolve_full_round()?;
            self.tick(sink)?;
        }
    }

    /// On disk, resolves the candidates met so far when a layer has more
    /// than one resolution can hold in the budget. New states keep the ids
    /// of a one-pass layer: those of an earlier round were all met first.
    fn resolve_full_round(&mut self) -> Result<(), ExploreError> {
        let chance = self.expander.chance;
        match self.disk.as_mut() {
            Some(disk) if disk.round_full() => {
                disk.finish_layer(&mut self.writer, &mut self.table, &mut self.keys, chance)
            }
            _ => Ok(()),
        }
    }

    fn most_in_memory(&self) -> usize {
        let arena = self.keys.arena_bytes_per_state();
        most_in_memory(self.table_limit, arena, self.opts.index_limit)
    }

    fn chunk_len(&self) -> u64 {
        (self.opts.parents_per_part.max(1) * self.threads) as u64
    }

    fn limit_reached(&self) -> bool {
        self.opts
            .max_states
            .is_some_and(|max| self.writer.state_count() >= max)
    }

    /// Expands the parents in `self.parents` over every thread. With one
    /// thread, lookups are left to the merge, which probes anyway.
    fn expand_parallel(&mut self, first: u64) -> Result<(), ExploreError> {
        self.parts
            .resize_with(self.threads * PARTS_PER_THREAD, Default::default);
        let chunk = Chunk {
            first,
            parents: &self.parents,
            table: (self.threads > 1).then_some(&self.table),
            stop: None,
            hold: self
                .watching
                .as_ref()
                .map_or(Hold::default(), Watching::hold),
        };
        self.expander
            .expand_chunk(&self.keys, &chunk, &mut self.parts, self.threads, || ())
            .1
    }

    /// Grows the index for the coming merge, or moves to disk-based
    /// duplicate detection when growing would break the budget.
    fn make_room(&mut self, sink: &mut dyn ProgressSink) -> Result<(), ExploreError> {
        let incoming: usize = self.parts.iter().map(|(p, _)| p.ids.len()).sum();
        let cap = self.opts.index_limit.unwrap_or(usize::MAX);
        let needed = self.table.len() + incoming;
        if self.disk.is_some() || needed <= self.table.capacity().min(cap) {
            return Ok(());
        }
        // The table doubles in place inside a reservation sized for the
        // budget, so growing never holds an old and a new table at once.
        if needed <= self.table.reserved_capacity().min(cap) {
            let mut wanted = self.table.capacity() * 2;
            while wanted < needed {
                wanted *= 2;
            }
            let wanted = wanted.min(self.table.reserved_capacity());
            self.prefault_on_every_thread(wanted);
            self.table.grow_to(wanted, self.threads)?;
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
        let per_state = crate::table::SLOT_BYTES * 10 / 7 + self.keys.arena_bytes_per_state();
        let states = (self.opts.mem_budget / 4 / per_state) as usize;
        self.table = Table::with_capacity(0)?;
        // The testing cap applies here too: clearing a table sized for the
        // whole default budget at every layer end would dwarf a small level.
        let states = states
            .min(self.table_limit as usize / 16)
            .min(cap.max(1 << 16));
        self.table = Table::with_capacity(states)?;
        self.keys.reset(self.writer.state_count());
        let dedup = DiskDedup::start(
            self.opts,
            self.slot().width(),
            &mut self.writer,
            self.table.bytes() + self.keys.arena_bytes_per_state() * self.table.capacity() as u64,
            self.table.capacity(),
        )?;
        self.disk = Some(dedup);
        Ok(())
    }

    /// Gives memory to the part of the index a growth to `states` entries
    /// will use, on every thread at once, before the growth moves its
    /// entries: the kernel's first touch of the fresh pages often costs more
    /// than the move itself (see [`Table::prefault`]).
    fn prefault_on_every_thread(&self, states: usize) {
        let end = self.table.words_for(states);
        let table = &self.table;
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

    /// The merge's view of the search: the index and arena shared, the store
    /// and scratch exclusive.
    fn merger(&mut self) -> Merge<'_> {
        self.merger_beside().0
    }

    /// The merge's view, and beside it the fields the overlapped expansion
    /// of the next chunk uses while the merge runs (borrowed apart, so both
    /// can run at once).
    fn merger_beside(&mut self) -> (Merge<'_>, Beside<'_, 'g>) {
        let merge = Merge {
            table: &self.table,
            keys: &self.keys,
            writer: &mut self.writer,
            disk: &mut self.disk,
            next_parent: &mut self.next_parent,
            edges: &mut self.edges,
            probs: &mut self.probs,
            chance: self.expander.chance,
            max_states: self.opts.max_states,
        };
        let beside = Beside {
            expander: &self.expander,
            parts: &self.parts,
            ahead: &mut self.ahead,
            ahead_parents: &self.ahead_parents,
            hold: self
                .watching
                .as_ref()
                .map_or(Hold::default(), Watching::hold),
        };
        (merge, beside)
    }

    /// Checkpoints and reports progress when their time has come.
    fn tick(&mut self, sink: &mut dyn ProgressSink) -> Result<(), ExploreError> {
        let now = Instant::now();
        if self.disk.is_none() && now - self.last_checkpoint >= self.opts.checkpoint_every {
            self.checkpoint()?;
        }
        if now - self.last_progress >= self.opts.progress_every {
            self.last_progress = now;
            let progress = self.progress("exploring");
            self.writer.publish_progress(progress.clone())?;
            sink.progress(&progress);
        }
        Ok(())
    }

    fn resume_blob(&self) -> serde_json::Value {
        // On disk the store holds only whole layers (or the switch point):
        // a resumed run redoes the layer from the last parent it recorded.
        let next_parent = match self.disk {
            Some(_) => self.writer.expanded_count(),
            None => self.next_parent,
        };
        let resume = Resume {
            version: RESUME_VERSION,
            next_parent,
            layers: self.layers.clone(),
            disk: self.disk.as_ref().map(DiskDedup::resume_point),
        };
        serde_json::to_value(resume).unwrap_or(serde_json::Value::Null)
    }

    fn checkpoint(&mut self) -> Result<(), ExploreError> {
        let blob = self.resume_blob();
        let progress = self.progress("exploring");
        self.writer.checkpoint(blob, progress)?;
        if let Some(disk) = self.disk.as_mut() {
            // The files the checkpoint leaves behind may only go once a
            // crash can no longer resume from the previous one, which
            // names them.
            self.writer.sync_manifest()?;
            disk.after_checkpoint();
        }
        self.last_checkpoint = Instant::now();
        Ok(())
    }

    fn progress(&self, phase: &str) -> Progress {
        let elapsed = self.started.elapsed().as_secs_f64();
        let new_states = self.writer.state_count() - self.states_at_start;
        Progress {
            states: self.writer.state_count(),
            expanded: self.next_parent,
            transitions: self.writer.transition_count(),
            depth: (self.layers.len() - 2) as u32,
            states_per_sec: if elapsed > 0.0 {
                new_states as f64 / elapsed
            } else {
                0.0
            },
            elapsed_secs: elapsed,
            updated_unix_ms: unix_ms(),
            pid: std::process::id(),
            disk_bytes: self.writer.disk_bytes(),
            phase: phase.to_string(),
            live_hsg: self.watching.as_ref().and_then(|w| w.live.clone()),
        }
    }

    /// Classifies the states left unexpanded and closes the store.
    fn end(
        mut self,
        ending: Ending,
        resumed: bool,
        sink: &mut dyn ProgressSink,
    ) -> Result<Summary, ExploreError> {
        if ending == Ending::Partial {
            let chance = self.expander.chance;
            if let Some(disk) = self.disk.as_mut() {
                disk.finish_layer(&mut self.writer, &mut self.table, &mut self.keys, chance)?;
            }
            self.mark_unexpanded_terminals()?;
        }
        let (states, transitions) = self.writer_states();
        let summary = Summary {
            ending,
            states,
            expanded: self.next_parent,
            transitions,
            max_depth: self.deepest_layer(),
            elapsed: self.started.elapsed(),
            resumed,
            used_disk: self.disk.is_some(),
        };
        if ending == Ending::Interrupted {
            let blob = self.resume_blob();
            let progress = self.progress("interrupted");
            sink.progress(&progress);
            self.writer.interrupt(blob, progress)?;
        } else {
            let progress = self.progress("finishing");
            sink.progress(&progress);
            let status = match ending {
                Ending::Complete => RunStatus::Complete,
                _ => RunStatus::Partial,
            };
            // The index and the disk buffers are no longer needed: give
            // their memory to `finish`.
            self.table = Table::with_capacity(0)?;
            self.keys.reset(0);
            self.parts.clear();
            let used_disk = self.disk.take().is_some();
            self.writer
                .set_mem_budget(self.opts.mem_budget.saturating_sub(RESERVE_BYTES));
            self.writer.finish(status, progress)?;
            if used_disk {
                let dir = &self.opts.scratch_dir;
                std::fs::remove_dir_all(dir).map_err(|source| ExploreError::Scratch {
                    path: dir.clone(),
                    source,
                })?;
            }
        }
        Ok(summary)
    }

    fn writer_states(&self) -> (u64, u64) {
        (self.writer.state_count(), self.writer.transition_count())
    }

    /// The deepest layer that holds a state.
    fn deepest_layer(&self) -> u32 {
        let count = self.writer.state_count();
        let starts = self.layers.iter().filter(|&&s| s < count).count();
        starts.saturating_sub(1) as u32
    }

    /// Terminal states among those never expanded still carry their outcome.
    fn mark_unexpanded_terminals(&mut self) -> Result<(), ExploreError> {
        let count = self.writer.state_count();
        let width = self.slot().width();
        let mut id = self.next_parent;
        while id < count {
            let n = (count - id).min(1 << 16) as usize;
            self.writer.read_states(id, n, &mut self.parents)?;
            for (k, record) in self.parents.chunks_exact(width).enumerate() {
                let state = self.expander.slot.decode(record);
                if let Some(outcome) = self.expander.game.terminal(state) {
                    self.writer.mark_terminal(id + k as u64, outcome)?;
                }
            }
            id += n as u64;
        }
        Ok(())
    }
}

/// The most states an in-memory index (table and key arena) may hold within
/// `limit` bytes: the capacity of the largest table that fits, since tables
/// come in powers of two.
fn most_in_memory(limit: u64, arena_per_state: u64, index_limit: Option<usize>) -> usize {
    let mut states = 1usize << 16;
    while states < MOST_IN_MEMORY {
        let next = states * 2;
        let bytes =
            Table::bytes_for(next).saturating_add(arena_per_state.saturating_mul(next as u64));
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

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_ends_whatever_the_budget() {
        // Regression: `--mem 16777216T` looped forever here, deaf to SIGINT and SIGTERM.
        for arena in [0, 8, 64] {
            assert_eq!(most_in_memory(u64::MAX, arena, None), MOST_IN_MEMORY);
        }
        assert_eq!(most_in_memory(u64::MAX, 8, Some(1 << 20)), 1 << 20);
        assert_eq!(most_in_memory(0, 8, None), 1 << 16);
    }
}
