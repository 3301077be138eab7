//! One process of a distributed exploration: its part, its index, its
//! budget, and the layer loop (start or resume, each layer's rounds, the
//! index moved to disk between rounds when it outgrows its share, ending).

use crate::budget::Budget;
use crate::frontier::Frontier;
use crate::index::{fingerprint, OwnedIndex};
use crate::layer::LayerWork;
use crate::part::Part;
use crate::part_manifest::PointStatus;
use crate::spill::Spilled;
use crate::{ClusterError, Exchange};
use explore::Slot;
use model::Game;
use std::time::{Duration, Instant};
use store::RunIdentity;

/// What a distributed exploration is asked to do.
#[derive(Clone, Debug, Default)]
pub struct ClusterOptions {
    /// States at this BFS depth are stored but not expanded (partial run).
    pub max_depth: Option<u32>,
    /// Bytes this process's index and the buffers of a round may occupy
    /// (see [`crate::budget`]); `None` for no limit.
    pub mem_budget: Option<u64>,
    /// The most successors a process holds in a round, whatever the budget
    /// (a testing aid: many rounds with the index in memory); `None` to
    /// size rounds from the budget alone.
    pub round_limit: Option<u64>,
}

/// The cluster-wide figures after a layer, for progress and the summary.
#[derive(Clone, Debug, Default)]
pub struct ClusterProgress {
    /// States stored by the whole cluster.
    pub states: u64,
    /// Transitions stored by the whole cluster.
    pub transitions: u64,
    /// The depth of the layer to expand next (the deepest stored).
    pub depth: u32,
    /// Bytes the cluster's processes sent each other in this invocation.
    pub bytes_sent: u64,
    /// States added per second in this invocation.
    pub states_per_sec: f64,
    /// Wall time of this invocation.
    pub elapsed: Duration,
}

/// How a process's exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterEnding {
    /// Every reachable state was expanded.
    Complete,
    /// The depth limit stopped the search.
    Partial,
}

/// What a process reports at the end.
#[derive(Clone, Debug)]
pub struct ClusterSummary {
    /// How it ended.
    pub ending: ClusterEnding,
    /// The cluster's figures at the end.
    pub progress: ClusterProgress,
    /// The commit point the processes resumed from (0 for a fresh start).
    pub resumed_from: usize,
    /// The depth of the layer the search resumed at.
    pub resumed_depth: u32,
    /// True when the run had already ended before this invocation.
    pub already_done: bool,
    /// True when this process's index went to disk (it outgrew `--mem`).
    pub used_disk: bool,
    /// What this process's memory did in this invocation.
    pub memory: MemoryFigures,
}

/// Rounds run and the memory they took, in one process and one invocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryFigures {
    /// Layers expanded.
    pub layers: u64,
    /// Rounds run (at least one a layer).
    pub rounds: u64,
    /// The largest bytes the index and a round's buffers occupied at once,
    /// as measured at the round's heaviest points (what the budget bounds).
    pub peak_bytes: u64,
}

/// Receives the cluster's progress after every layer (on process 0).
pub trait ProgressSink {
    /// Called after every committed layer.
    fn layer(&mut self, progress: &ClusterProgress);
}

/// A sink that shows nothing.
pub struct Quiet;

impl ProgressSink for Quiet {
    fn layer(&mut self, _: &ClusterProgress) {}
}

/// One process's side of the search.
pub struct Node<'g, X: Exchange> {
    pub(crate) game: &'g dyn Game,
    pub(crate) slot: Slot,
    pub(crate) chance: bool,
    pub(crate) ex: X,
    pub(crate) part: Part,
    pub(crate) index: OwnedIndex,
    /// The index on disk, once the in-memory one outgrew the budget.
    pub(crate) spilled: Option<Spilled>,
    /// True once the index went to disk.
    used_disk: bool,
    /// How `--mem` is shared between the index and a round.
    pub(crate) budget: Budget,
    /// [`ClusterOptions::round_limit`].
    pub(crate) round_limit: u64,
    /// The global layer table; the last entry is the end of the layer to expand.
    pub(crate) layers: Vec<u64>,
    /// Bytes this process sent in this invocation.
    pub(crate) bytes_sent: u64,
    /// Rounds run in this invocation.
    pub(crate) rounds: u64,
    /// Layers expanded in this invocation.
    layers_run: u64,
    /// The largest measure of index and round buffers (see [`Node::measure`]).
    peak_bytes: u64,
    progress: ClusterProgress,
    started: Instant,
    states_at_start: u64,
}

/// Explores `game` as process `ex.index()` of `ex.peers()`, writing this
/// process's part to `part`; every process runs it with the same game,
/// identity and options.
pub fn explore_part<X: Exchange>(
    game: &dyn Game,
    identity: &RunIdentity,
    part: Part,
    ex: X,
    opts: &ClusterOptions,
    sink: &mut dyn ProgressSink,
) -> Result<ClusterSummary, ClusterError> {
    let slot = Slot::for_width(game.state_width());
    let mut node = Node {
        game,
        slot,
        chance: game.has_chance(),
        ex,
        part,
        index: OwnedIndex::new(slot.width()),
        spilled: None,
        used_disk: false,
        budget: Budget::new(opts.mem_budget, slot.width(), game.has_chance()),
        round_limit: opts.round_limit.unwrap_or(u64::MAX),
        layers: Vec::new(),
        bytes_sent: 0,
        rounds: 0,
        layers_run: 0,
        peak_bytes: 0,
        progress: ClusterProgress::default(),
        started: Instant::now(),
        states_at_start: 0,
    };
    let resumed_from = crate::agree::agree(&mut node.ex, &mut node.part, identity)?;
    let resumed_depth = node.part.manifest.layers.len().saturating_sub(2) as u32;
    if let Some(ending) = node.finished() {
        node.progress_from_part();
        return Ok(ClusterSummary {
            ending,
            progress: node.progress,
            resumed_from,
            resumed_depth,
            already_done: true,
            used_disk: false,
            memory: MemoryFigures::default(),
        });
    }
    match resumed_from {
        0 => node.seed()?,
        _ => node.reload()?,
    }
    node.progress_from_part();
    node.states_at_start = node.progress.states;
    let ending = node.run(opts, sink)?;
    let memory = MemoryFigures {
        layers: node.layers_run,
        rounds: node.rounds,
        peak_bytes: node.peak_bytes,
    };
    Ok(ClusterSummary {
        ending,
        progress: node.progress,
        resumed_from,
        resumed_depth,
        already_done: false,
        used_disk: node.used_disk,
        memory,
    })
}

impl<X: Exchange> Node<'_, X> {
    /// How the run ended, if its last commit point ends it.
    fn finished(&self) -> Option<ClusterEnding> {
        match self.part.manifest.last()?.status {
            PointStatus::Running => None,
            PointStatus::Complete => Some(ClusterEnding::Complete),
            PointStatus::Partial => Some(ClusterEnding::Partial),
        }
    }

    fn progress_from_part(&mut self) {
        let m = &self.part.manifest;
        self.layers = m.layers.clone();
        if let Some(p) = m.last() {
            self.progress.states = m.layers.last().copied().unwrap_or(0);
            self.progress.transitions = p.transitions;
            self.progress.depth = p.layer_count.saturating_sub(2) as u32;
        }
    }

    /// Stores the distinct initial states as layer 0 (every process computes
    /// them all and keeps those it owns).
    fn seed(&mut self) -> Result<(), ClusterError> {
        let peers = self.ex.peers() as u64;
        let me = self.ex.index() as u64;
        let mut seen = std::collections::HashSet::new();
        let mut record = Vec::new();
        for state in self.game.initial_states() {
            record.clear();
            self.slot.encode(&state, &mut record)?;
            if !seen.insert(record.clone()) {
                continue;
            }
            let id = seen.len() as u64 - 1;
            let hash = fingerprint(&record);
            if hash % peers == me {
                self.index.insert(&record, hash, id)?;
                self.part.append_state(id, &record)?;
            }
        }
        self.layers = vec![0, seen.len() as u64];
        self.part.commit(&self.layers, 0, 0, PointStatus::Running)
    }

    /// Rebuilds the index from the part's stored states (the frontier is
    /// read from there as the rounds need it).
    fn reload(&mut self) -> Result<(), ClusterError> {
        let width = self.slot.width();
        let Some(mut reader) = self.part.states_reader()? else {
            return Ok(());
        };
        let mut buf = Vec::new();
        let mut last = None;
        while !reader.at_end() {
            buf.clear();
            reader.take(8 + width, &mut buf)?;
            let mut id = [0u8; 8];
            id.copy_from_slice(&buf[..8]);
            let id = u64::from_le_bytes(id);
            if last.is_some_and(|l| l >= id) {
                return Err(crate::error::corrupt(
                    reader.path(),
                    "state ids do not increase",
                ));
            }
            last = Some(id);
            let record = &buf[8..];
            self.index.insert(record, fingerprint(record), id)?;
            if self.index.len().is_multiple_of(1 << 16) {
                self.spill_if_over()?;
            }
        }
        self.spill_if_over()?;
        if self.spilled.is_some() && !self.index.is_empty() {
            self.spill()?;
        }
        Ok(())
    }

    /// Expands layer after layer until none is left or the depth limit.
    fn run(
        &mut self,
        opts: &ClusterOptions,
        sink: &mut dyn ProgressSink,
    ) -> Result<ClusterEnding, ClusterError> {
        loop {
            let depth = (self.layers.len() - 2) as u32;
            let (start, end) = (self.layers[depth as usize], self.layers[depth as usize + 1]);
            let frontier = Frontier::open(&self.part, self.slot.width(), start, end)?;
            if opts.max_depth.is_some_and(|max| depth >= max) {
                self.mark_unexpanded_terminals(frontier)?;
                self.commit(PointStatus::Partial)?;
                self.drop_scratch()?;
                return Ok(ClusterEnding::Partial);
            }
            // Every layer has a parent, so at least one round runs; the
            // rounds end together, since every process computes the same
            // round ends from the same proposals.
            let mut work = LayerWork::new(frontier, start, end, self.ex.peers());
            while !work.done() {
                let result = self.round(&mut work)?;
                self.progress.transitions = result.transitions;
                self.progress.bytes_sent = result.bytes_sent;
                self.spill_if_over()?;
            }
            self.layers_run += 1;
            if work.found() == 0 {
                self.commit(PointStatus::Complete)?;
                self.drop_scratch()?;
                return Ok(ClusterEnding::Complete);
            }
            self.layers.push(end + work.found());
            self.commit(PointStatus::Running)?;
            self.report(sink);
        }
    }

    /// Moves the index to disk when it outgrew its share of the budget,
    /// counting its next doubling (see [`crate::budget`], [`crate::spill`]).
    fn spill_if_over(&mut self) -> Result<(), ClusterError> {
        if !self.index.is_empty() && self.index.bytes_at_next_doubling() > self.budget.index_limit()
        {
            self.spill()?;
        }
        Ok(())
    }

    /// What the index will occupy during the coming round, at most: on disk,
    /// its runs' buffers; in memory, its bytes once the most new states a
    /// round may find are in it (see [`OwnedIndex::bytes_after`]).
    pub(crate) fn index_reserve(&self) -> u64 {
        let now = self.index.bytes() + self.spilled.as_ref().map_or(0, Spilled::bytes);
        if self.spilled.is_some() || self.budget.limit().is_none() {
            return now;
        }
        let most = self.budget.round_successors(now);
        self.index.bytes_after(most) + (now - self.index.bytes())
    }

    /// Records what the index and the round's `buffers` occupy now, for the
    /// peak the summary reports.
    pub(crate) fn measure(&mut self, buffers: u64) {
        let index = self.index.bytes() + self.spilled.as_ref().map_or(0, Spilled::bytes);
        self.peak_bytes = self.peak_bytes.max(index + buffers);
    }

    /// Deletes the index on disk once the search has ended.
    fn drop_scratch(&mut self) -> Result<(), ClusterError> {
        match self.spilled.take() {
            Some(spilled) => spilled.remove(),
            None => Ok(()),
        }
    }

    /// Writes the in-memory index as a sorted run and empties it.
    fn spill(&mut self) -> Result<(), ClusterError> {
        self.used_disk = true;
        if self.spilled.is_none() {
            let dir = self.part.dir().join(crate::part::SCRATCH);
            let buffer = self.budget.spill_buffer();
            self.spilled = Some(Spilled::new(&dir, self.slot.width(), buffer)?);
        }
        let index = std::mem::replace(&mut self.index, OwnedIndex::new(self.slot.width()));
        if let Some(spilled) = self.spilled.as_mut() {
            spilled.add_run(index.into_run_order().entries())?;
        }
        Ok(())
    }

    /// Commits the layer just finished: the parents expanded are those
    /// before the last layer (a depth limit, or a layer that found more), or
    /// every state (the search is complete).
    fn commit(&mut self, status: PointStatus) -> Result<(), ClusterError> {
        let back = if status == PointStatus::Complete {
            1
        } else {
            2
        };
        let expanded = self.layers[self.layers.len() - back];
        self.update_progress();
        self.part
            .commit(&self.layers, expanded, self.progress.transitions, status)
    }

    fn update_progress(&mut self) {
        let elapsed = self.started.elapsed();
        let p = &mut self.progress;
        p.states = self.layers[self.layers.len() - 1];
        p.depth = (self.layers.len() - 2) as u32;
        p.elapsed = elapsed;
        let added = p.states.saturating_sub(self.states_at_start);
        p.states_per_sec = added as f64 / elapsed.as_secs_f64().max(1e-9);
    }

    fn report(&mut self, sink: &mut dyn ProgressSink) {
        if self.ex.index() == 0 {
            sink.layer(&self.progress);
        }
    }

    /// At a depth limit: the owned states of the last layer that are
    /// terminal still carry their outcome, as a single machine marks them.
    fn mark_unexpanded_terminals(&mut self, mut frontier: Frontier) -> Result<(), ClusterError> {
        while let Some(id) = frontier.peek() {
            if let Some(outcome) = self.game.terminal(self.slot.decode(frontier.record())) {
                self.part.append_terminal(id, outcome)?;
            }
            frontier.advance()?;
        }
        Ok(())
    }
}
