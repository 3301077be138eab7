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

#[cfg(test)]
mod chunk_tests;
mod ending;
mod pipeline;
#[cfg(test)]
mod rebuild_stop_tests;
mod room;
mod start;
#[cfg(test)]
mod stop_tests;
mod ticks;

use crate::disk::{DiskBudget, DiskDedup, Frontier};
use crate::expand::{Chunk, Expander, Part, PARTS_PER_THREAD};
use crate::keys::Keys;
use crate::merge::Merge;
use crate::options::{Ending, ExploreOptions, ProgressSink, Summary};
use crate::slot::Slot;
use crate::table::Table;
use crate::watch::{Hold, Watcher, Watching};
use crate::ExploreError;
use model::{Game, Successors};
use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;
use std::time::Instant;
use store::{Checkpoint, Edge, RunWriter};

/// Memory kept aside from the visited index for buffers of every kind.
const RESERVE_BYTES: u64 = 48 << 20;

/// Bytes the successors of one chunk may take in its parts; the chunk expanded
/// ahead takes as much again, within [`RESERVE_BYTES`].
const CHUNK_BYTES: usize = 8 << 20;

/// Bytes a successor takes in a part beside its record: tag, id, action and
/// probability.
const EXPANDED_BYTES_PER_SUCCESSOR: usize = 8 + 8 + 2 + 8;

/// The most successors one parent of `part` has.
fn widest_parent(part: &Part) -> usize {
    let mut start = 0u32;
    let mut widest = 0u32;
    for info in &part.infos {
        if let crate::expand::ParentInfo::Expanded(end) = *info {
            widest = widest.max(end - start);
            start = end;
        }
    }
    widest as usize
}

/// The smallest `--mem` an exploration can run with: a minimal index and the
/// buffers. The CLI checks it before it creates a store, so that a budget
/// refused here leaves nothing behind.
pub fn least_budget() -> u64 {
    crate::table::Table::bytes_for(1 << 16, crate::table::Format::Wide) + RESERVE_BYTES
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
    // A game whose evaluations can run long (a `.game` file's loops) ends
    // them when the stop flag rises; `step` then discards the chunk.
    game.interrupt_on(opts.stop.clone());
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

/// The search: the game's expander, the store, the visited index, the
/// layer table and the chunks in flight.
struct Bfs<'g> {
    expander: Expander<'g>,
    writer: RunWriter,
    opts: &'g ExploreOptions,
    index: Index,
    /// Start id of each layer, the last one open.
    layers: Vec<u64>,
    /// The next parent the merge will record.
    next_parent: u64,
    /// Worker threads.
    threads: usize,
    chunks: Chunks,
    row: Row,
    clock: Clock,
    watching: Option<Watching<'g>>,
    /// Scratch runs left by a disk phase that a resume with a larger budget
    /// brought back into memory: the checkpoint resumed from still names
    /// them, so they go only once a newer checkpoint is durable.
    stale_scratch: bool,
}

/// The visited index: the table, the key arena, and, once the table has
/// outgrown the budget, the disk-based duplicate detection it caches for.
struct Index {
    keys: Keys,
    table: Table,
    /// Bytes the table and the arena may use.
    table_limit: u64,
    disk: Option<DiskDedup>,
    /// The in-memory table's largest size so far (see [`IndexFigures`]).
    largest: crate::options::IndexFigures,
    /// True once the index uses the compact layout: the faster word layout
    /// would have outgrown the budget (see [`room`]).
    compact: bool,
}

/// The chunks of parents in flight.
#[derive(Default)]
struct Chunks {
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
    /// The most bytes one parent's successors have taken in the parts so far
    /// (see [`Bfs::chunk_len`]).
    widest_parent: usize,
    /// Layers whose first chunk was expanded beside the last merge of the
    /// layer before (see [`pipeline`]); a test checks the overlap crosses.
    layers_entered_ahead: u64,
}

/// Scratch for the row of one parent being merged.
#[derive(Default)]
struct Row {
    edges: Vec<Edge>,
    probs: Vec<(u32, u32)>,
}

/// When the search started, last checkpointed and last reported.
struct Clock {
    started: Instant,
    last_checkpoint: Instant,
    last_progress: Instant,
    /// States stored when this invocation started (a resume's count).
    states_at_start: u64,
}

impl Clock {
    fn new() -> Clock {
        let now = Instant::now();
        Clock {
            started: now,
            last_checkpoint: now,
            last_progress: now,
            states_at_start: 0,
        }
    }
}

impl<'g> Bfs<'g> {
    fn slot(&self) -> Slot {
        self.expander.slot
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
                let frontier = self.frontier();
                if let Some(disk) = self.index.disk.as_mut() {
                    disk.finish_layer(
                        &mut self.writer,
                        (&mut self.index.table, &mut self.index.keys),
                        chance,
                        Some(frontier),
                    )?;
                    self.forget_placeholders_ahead();
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
                // On disk a checkpoint can only be taken at a layer's end:
                // the first one after its time has come. (One at every
                // layer's end synced every run then alive, most of them
                // merged away a few rounds later: 6 s of room4's 90 under
                // `--mem 128M`, and gigabytes written.)
                if self.index.disk.is_some() && self.checkpoint_due() {
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
        let frontier = self.frontier();
        let Some(disk) = self.index.disk.as_mut() else {
            return Ok(());
        };
        if disk.round_full() {
            disk.finish_layer(
                &mut self.writer,
                (&mut self.index.table, &mut self.index.keys),
                chance,
                Some(frontier),
            )?;
            self.forget_placeholders_ahead();
        }
        Ok(())
    }

    /// Where the search stands, for the disk phase's cache: the layer of the
    /// next parent and the one before it. At a layer's end (every parent of
    /// the last layer expanded) the next parents are the states that layer
    /// found, which end at the stored count once its last round is resolved.
    fn frontier(&self) -> Frontier {
        let n = self.layers.len();
        let layer_end = self.layers[n - 1];
        if self.next_parent >= layer_end {
            return Frontier {
                grand_start: self.layers[n - 2],
                parents_start: layer_end,
                parents_end: None,
                next_parent: layer_end,
            };
        }
        Frontier {
            grand_start: n.checked_sub(3).map_or(0, |i| self.layers[i]),
            parents_start: self.layers[n - 2],
            parents_end: Some(layer_end),
            next_parent: self.next_parent,
        }
    }

    /// Parents in the next chunk: the configured count, fewer when the widest
    /// parent met so far would let a chunk's successors outgrow
    /// [`CHUNK_BYTES`]. A game with tens of thousands of successors a state
    /// once held a whole layer's in memory, far past `--mem`.
    fn chunk_len(&self) -> u64 {
        let by_count = self.opts.parents_per_part.max(1) * self.threads;
        let by_bytes = CHUNK_BYTES / self.chunks.widest_parent.max(1);
        by_count.min(by_bytes.max(1)) as u64
    }

    /// Notes the widest parent of the chunk just expanded.
    fn measure_chunk(&mut self) {
        let per_successor = self.slot().width() + EXPANDED_BYTES_PER_SUCCESSOR;
        for (part, _) in &self.chunks.parts {
            let widest = widest_parent(part) * per_successor;
            self.chunks.widest_parent = self.chunks.widest_parent.max(widest);
        }
    }

    fn limit_reached(&self) -> bool {
        self.opts
            .max_states
            .is_some_and(|max| self.writer.state_count() >= max)
    }

    /// Expands the parents in `self.chunks.parents` over every thread. With one
    /// thread, lookups are left to the merge, which probes anyway.
    fn expand_parallel(&mut self, first: u64) -> Result<(), ExploreError> {
        self.chunks
            .parts
            .resize_with(self.threads * PARTS_PER_THREAD, Default::default);
        let chunk = Chunk {
            first,
            parents: &self.chunks.parents,
            table: (self.threads > 1).then_some(&self.index.table),
            stop: None,
            hold: self
                .watching
                .as_ref()
                .map_or(Hold::default(), Watching::hold),
        };
        self.expander
            .expand_chunk(
                &self.index.keys,
                &chunk,
                &mut self.chunks.parts,
                self.threads,
                || (),
            )
            .1
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
            table: &self.index.table,
            keys: &self.index.keys,
            writer: &mut self.writer,
            disk: &mut self.index.disk,
            next_parent: &mut self.next_parent,
            edges: &mut self.row.edges,
            probs: &mut self.row.probs,
            chance: self.expander.chance,
            max_states: self.opts.max_states,
            keys_ahead: Default::default(),
        };
        let beside = Beside {
            expander: &self.expander,
            parts: &self.chunks.parts,
            ahead: &mut self.chunks.ahead,
            ahead_parents: &self.chunks.ahead_parents,
            hold: self
                .watching
                .as_ref()
                .map_or(Hold::default(), Watching::hold),
        };
        (merge, beside)
    }
}

/// Removes the scratch directory of a disk phase, if there is one.
fn remove_scratch(dir: &std::path::Path) -> Result<(), ExploreError> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(ExploreError::Scratch {
            path: dir.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// The part of the options the disk phase reads.
fn disk_budget(opts: &ExploreOptions) -> DiskBudget<'_> {
    DiskBudget {
        scratch_dir: &opts.scratch_dir,
        mem_budget: opts.mem_budget,
        round_limit: opts.round_limit,
        threads: opts.threads,
    }
}
