//! Delayed duplicate detection on disk, for state spaces whose visited index
//! outgrows the memory budget.
//!
//! Once the in-memory index is full it becomes a cache of the most recent
//! layers. A successor it does not know becomes a *candidate*: its record and
//! a sequence number go to a buffer (spilled as sorted runs when full), and
//! its parent's edge gets a placeholder. At the end of the layer the
//! candidates are sorted by record and looked up, in increasing order, in the
//! sorted runs of every visited state (their count stays
//! logarithmic: a new run is merged into the one before while it is at least
//! as large). One Bloom filter of every visited state ([`seen`]) rules out
//! most new states before any run is asked. Each run keeps a summary in
//! memory ([`probe`]): a Bloom filter of its records, which rules out most
//! of the other candidates without a read, and the first record of every
//! 4 KiB block, so that the others read only the blocks that can hold them.
//! Candidates found there take the old id;
//! the others are new states, numbered in the order of their first
//! occurrence (their smallest sequence number), which is exactly the order
//! the in-memory search would have given them. Finally the layer's pending
//! edges are streamed to the store with their placeholders replaced.
//!
//! A layer with more candidates than one resolution may hold in the budget
//! (see [`round_limit`]) is resolved in rounds, at chunk boundaries: the
//! new states of a round were all met before any candidate of the next, so
//! numbering them at once gives the same ids, and the next round finds them
//! in the runs like any visited state.
//!
//! The index stays a cache across rounds. With exact keys it is filled after
//! every round with the states the next parents meet most, a window of the
//! layer before theirs and the newest states ([`cache`]); with fingerprints
//! a round's new states join it, and when it is more than three quarters
//! full it is refilled with the newest stored states, up to half its size.
//!
//! Cost: a round sorts its candidates, checks each against the filter of
//! every visited state and those it lets through against every run's filter
//! (a batch at a time, see [`lookup`]) and reads, of each run, the blocks its
//! filter lets through (dense candidates read a run sequentially, in large
//! reads, and find their entries by galloping from the last one), so it grows
//! with the candidates, not with the visited states; a state is rewritten
//! O(log) times by the merges of runs (in a round's tail, beside the stream
//! of its pending edges). The sort and the lookups run on every thread
//! ([`parallel`]): the sort in pieces merged after (on every thread when a
//! record and its sequence number fit a word), the lookups in
//! ranges of the sorted candidates cut where the record changes, each with
//! probes of its own; the new records come back in record order and the ids
//! do not depend on the count of threads. Runs are synced only
//! when a checkpoint (at layer ends) names them. Memory: the index (at most a
//! quarter of `--mem`), the candidate buffer, the round's resolution (8 bytes
//! a candidate and `width + 16` a new state), the runs' summaries (an eighth
//! of `--mem` for the filters, whose bits a state shrink as the runs grow)
//! and the filter of every visited state (an eighth, at most [`SEEN_MOST`]),
//! all sized from `--mem`.
//! Checkpoints happen at the first layer end after the checkpoint interval;
//! a killed run redoes the layers since the last one.

use crate::keys::Keys;
use crate::table::Table;
use crate::ExploreError;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use store::{Edge, RunWriter};

/// Marks an edge target that is a candidate's sequence number.
const PLACEHOLDER: u64 = 1 << 63;
/// True for an id that is a candidate's placeholder (see
/// [`DiskDedup::candidate`]), which names a sequence number of the current
/// round only.
pub fn is_placeholder(id: u64) -> bool {
    id >> 62 == PLACEHOLDER >> 62
}

/// Marks a resolved candidate that is a new state (its range and its index
/// among the range's new records, see `layer::fresh_value`).
const FRESH: u64 = 1 << 62;
/// Where a fresh value's range starts: a range holds fewer than 2^40 new
/// records, and there are fewer than 2^22 ranges (one a thread).
const FRESH_PART_SHIFT: u32 = 40;
/// The row marker of a terminal parent in the pending stream.
const TERMINAL_ROW: u32 = u32::MAX;
const IO_BUF: usize = 1 << 20;
/// States read from the store at a time when the index is refilled.
const REFILL_SLICE: u64 = 1 << 16;
/// What the process holds beside the buffers the budget counts (its code,
/// stacks, the allocator's slack): without it room4's peak RSS under
/// `--mem 128M` was 128.03 MiB.
const PROCESS_MARGIN: u64 = 4 << 20;
/// Steps at most this fraction of the candidate buffer end a round a step
/// early rather than let it spill (see [`DiskDedup::round_full`]).
const STEP_SHARE: u64 = 8;
/// The share of the budget (one part in this many) the runs' filters may use.
const FILTER_SHARE: u64 = 8;
/// The share of the budget the filter of every visited state takes, up to
/// [`SEEN_MOST`].
const SEEN_SHARE: u64 = 8;
/// The most the filter of every visited state takes. It is not counted
/// beside the candidates: it lives in what the reserve kept for the
/// expansion's buffers (48 MiB, see `DiskDedup::start`) leaves unused in the
/// disk phase, which room4 under `--mem 128M` showed to be more than this
/// (the disk phase peaked at 107.8 MiB with the reserve counted whole; with
/// the filter at 122.8 MiB, under the run's peak before the switch). Counted
/// beside them, it would have cut the candidates a round takes by half.
const SEEN_MOST: u64 = 16 << 20;

/// What a checkpoint must remember of the disk runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DiskResume {
    runs: Vec<(String, u64)>,
    next_file: u64,
    table_states: u64,
    cand_limit: u64,
}

/// One sorted run of visited `(record, id)` entries and its summary in memory.
struct VisitedRun {
    path: PathBuf,
    entries: u64,
    summary: Summary,
    /// True once its data is on disk (see [`DiskDedup::sync_runs`]).
    synced: bool,
}

/// The disk side of duplicate detection.
pub struct DiskDedup {
    dir: PathBuf,
    width: usize,
    /// Oldest first; each run at most as large as the one before it, but for
    /// the newest (see [`DiskDedup::add_run`]).
    runs: Vec<VisitedRun>,
    /// Bytes the runs' filters may hold together.
    filter_cap: u64,
    /// The filter of every state the runs hold, checked before theirs.
    seen: Seen,
    garbage: Vec<PathBuf>,
    next_file: u64,
    table_states: u64,
    cands: Vec<u8>,
    cand_limit: usize,
    /// Candidates after which the current round is resolved, even mid-layer.
    round_limit: u64,
    /// The candidates when the round was last asked whether it is full, and
    /// the most one step (between two such questions) has added: a round
    /// ends a step early rather than spill (see [`DiskDedup::round_full`]).
    seq_asked: u64,
    step_most: u64,
    /// Threads the resolution runs on.
    threads: usize,
    spills: Vec<(PathBuf, u64)>,
    seq: u64,
    pending: Option<Pending>,
    first_pending: Option<u64>,
    /// What the index holds between rounds (see [`cache`]).
    cache: Cache,
    /// The round's resolved values by sequence number, kept across rounds
    /// (see `DiskDedup::finish_layer`).
    resolved: Vec<u64>,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ExploreError + '_ {
    move |source| ExploreError::Scratch {
        path: path.to_path_buf(),
        source,
    }
}

/// What the disk phase reads of the explorer's options.
pub struct DiskBudget<'a> {
    /// Where its scratch files go.
    pub scratch_dir: &'a Path,
    /// Bytes of RAM the whole explorer may use.
    pub mem_budget: u64,
    /// Most candidates one resolution takes (a testing aid); `None` to derive
    /// it from the budget.
    pub round_limit: Option<u64>,
    /// Threads a round's sort and lookups run on; at least one.
    pub threads: usize,
}

impl DiskDedup {
    /// Switches to disk mode: writes every stored state as sorted runs.
    /// `index_bytes` is what the in-memory index keeps using.
    pub fn start(
        opts: &DiskBudget,
        width: usize,
        writer: &mut RunWriter,
        index_bytes: u64,
        table_capacity: usize,
    ) -> Result<DiskDedup, ExploreError> {
        let dir = opts.scratch_dir.to_path_buf();
        clear_dir(&dir)?;
        // Every round frees buffers of megabytes and allocates them again:
        // they must leave the process when freed, or the peak RSS grows past
        // what the budget counts (see `store::allocator`).
        store::allocator::return_large_blocks();
        let free = opts.mem_budget.saturating_sub(
            index_bytes + (48 << 20) + filter_cap(opts.mem_budget) + PROCESS_MARGIN,
        );
        let cand_limit = (free / resolution_bytes_per_candidate(width)).max(1 << 16) as usize;
        let mut dedup = DiskDedup::empty(dir, width, cand_limit, 0, opts);
        dedup.table_states = table_capacity as u64;
        dedup.cache.table_end = writer.state_count();
        dedup.write_base_runs(writer, opts.mem_budget)?;
        Ok(dedup)
    }

    /// The options' round limit overrides the rounds' size (a testing aid).
    fn empty(
        dir: PathBuf,
        width: usize,
        cand_limit: usize,
        next_file: u64,
        opts: &DiskBudget,
    ) -> DiskDedup {
        DiskDedup {
            dir,
            width,
            runs: Vec::new(),
            filter_cap: filter_cap(opts.mem_budget),
            seen: Seen::new(seen_bytes(opts.mem_budget)),
            garbage: Vec::new(),
            next_file,
            table_states: 0,
            cands: Vec::new(),
            cand_limit,
            round_limit: opts
                .round_limit
                .unwrap_or(self::round_limit(cand_limit))
                .max(1),
            seq_asked: 0,
            step_most: 0,
            threads: opts.threads.max(1),
            spills: Vec::new(),
            seq: 0,
            pending: None,
            first_pending: None,
            cache: Cache {
                width,
                ..Cache::default()
            },
            resolved: Vec::new(),
        }
    }

    /// Reopens the runs a checkpoint names and removes every other scratch file.
    pub fn resume(
        point: DiskResume,
        opts: &DiskBudget,
        width: usize,
    ) -> Result<DiskDedup, ExploreError> {
        let dir = opts.scratch_dir.to_path_buf();
        store::allocator::return_large_blocks();
        let mut dedup = DiskDedup::empty(
            dir.clone(),
            width,
            point.cand_limit as usize,
            point.next_file,
            opts,
        );
        dedup.table_states = point.table_states;
        for (name, entries) in &point.runs {
            let path = dir.join(name);
            let len = fs::metadata(&path).map_err(io_err(&path))?.len();
            if len != entries * (width as u64 + 8) {
                return Err(ExploreError::BadCheckpoint(format!(
                    "{}: {len} bytes, the checkpoint says {entries} entries",
                    path.display()
                )));
            }
            // The summaries are not saved: one sequential read rebuilds them.
            let summary = dedup.summarise(&path, *entries)?;
            dedup.runs.push(VisitedRun {
                path,
                entries: *entries,
                summary,
                synced: true,
            });
        }
        let keep: Vec<PathBuf> = dedup.runs.iter().map(|r| r.path.clone()).collect();
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let path = entry.map_err(io_err(&dir))?.path();
            if !keep.contains(&path) {
                fs::remove_file(&path).map_err(io_err(&path))?;
            }
        }
        Ok(dedup)
    }

    /// True when the candidates met since the last resolution would make the
    /// next one outgrow its share of the budget: the caller then resolves
    /// them at the next parent boundary, even in the middle of a layer. Asked
    /// after every step, it answers true a step early when a step as large as
    /// the largest so far would fill the candidate buffer, so that the buffer
    /// does not spill (a sorted file written, read back and sorted again,
    /// nearly every round on room4 under `--mem 128M`); only while steps are
    /// small beside the buffer, so that rounds stay nearly full.
    pub fn round_full(&mut self) -> bool {
        let step = self.seq.saturating_sub(self.seq_asked);
        self.step_most = self.step_most.max(step);
        self.seq_asked = self.seq;
        let buffer = self.cand_limit as u64;
        let early = self.step_most <= buffer / STEP_SHARE && self.seq + self.step_most >= buffer;
        self.seq >= self.round_limit || early
    }

    /// States the in-memory index holds in disk mode.
    pub fn table_states(&self) -> u64 {
        self.table_states
    }

    /// Records that the index (and the key arena) now ends before `id`.
    pub fn set_table_end(&mut self, id: u64) {
        self.cache.table_end = id;
    }

    /// Fills the index as after a round, for the search standing at `at`: at
    /// the switch to disk, so that the first round meets the states the
    /// later ones do. With fingerprints the cache starts empty.
    pub fn prime(
        &mut self,
        writer: &mut RunWriter,
        index: (&mut Table, &Keys),
        at: Frontier,
    ) -> Result<(), ExploreError> {
        self.cache.prime(writer, index, at)
    }

    /// What a checkpoint taken now must record.
    pub fn resume_point(&self) -> DiskResume {
        let name = |p: &PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned());
        DiskResume {
            runs: self
                .runs
                .iter()
                .filter_map(|r| Some((name(&r.path)?, r.entries)))
                .collect(),
            next_file: self.next_file,
            table_states: self.table_states,
            cand_limit: self.cand_limit as u64,
        }
    }

    /// Makes every run durable, its data and its name, before a checkpoint
    /// names it. Runs are not synced when they are written: most are merged
    /// away by [`DiskDedup::add_run`] before any checkpoint sees them, and a
    /// sync a round (hundreds of rounds a run under a small budget) cost more
    /// than the rounds' reads.
    pub fn sync_runs(&mut self) -> Result<(), ExploreError> {
        for run in self.runs.iter_mut().filter(|r| !r.synced) {
            let file = File::open(&run.path).map_err(io_err(&run.path))?;
            sync_new_file(&file, &run.path)?;
            run.synced = true;
        }
        Ok(())
    }

    /// Deletes files no checkpoint refers to any more.
    pub fn after_checkpoint(&mut self) {
        for path in self.garbage.drain(..) {
            let _ = fs::remove_file(path);
        }
    }

    fn new_path(&mut self, kind: &str) -> PathBuf {
        self.next_file += 1;
        self.dir.join(format!("{kind}-{:06}", self.next_file))
    }

    /// One sorted run of every state stored so far: sorted chunks that fit
    /// memory, merged in one pass (the chunks are scratch no checkpoint names,
    /// so they need no sync and go at once). A chunk takes a quarter of the
    /// budget, which the candidate buffers do not use yet: chunks of the
    /// buffer's size are so many under a small budget (177 for room4 under
    /// `--mem 128M`) that the merge's read buffers, up to 1 MiB each, would
    /// break the budget.
    fn write_base_runs(&mut self, writer: &mut RunWriter, budget: u64) -> Result<(), ExploreError> {
        let count = writer.state_count();
        // The records read, their entries and the sort's copy of the entries
        // (16 bytes an entry, or an index and a second copy for wide ones).
        let chunk = (budget / 4 / (3 * (self.width as u64 + 8))).max(self.cand_limit as u64);
        let mut id = 0;
        let mut records = Vec::new();
        let mut chunks = Vec::new();
        while id < count {
            let n = (count - id).min(chunk) as usize;
            writer.read_states(id, n, &mut records)?;
            let entries = self.sorted_base_chunk(&records, id);
            let path = self.new_path("base");
            let mut file = File::create(&path).map_err(io_err(&path))?;
            file.write_all(&entries).map_err(io_err(&path))?;
            chunks.push((path, n as u64));
            id += n as u64;
        }
        drop(records);
        if !chunks.is_empty() {
            let run = self.merge_chunks_beside_seen(&chunks)?;
            self.runs.push(run);
        }
        for (path, _) in chunks {
            fs::remove_file(&path).map_err(io_err(&path))?;
        }
        Ok(())
    }

    /// Merges the base run's sorted chunks into one run while another
    /// thread adds their records to the filter of every visited state, from
    /// the chunk files (which the merge, on one thread, left the other core
    /// idle through; added before each chunk's sort, serially, they were a
    /// seventh of the switch on room4 under `--mem 128M`). On one thread,
    /// one after the other.
    fn merge_chunks_beside_seen(
        &mut self,
        chunks: &[(PathBuf, u64)],
    ) -> Result<VisitedRun, ExploreError> {
        let width = self.width;
        if self.threads < 2 {
            self.seen.insert_entry_files(chunks, width)?;
            return self.merge_into_run(chunks);
        }
        let mut seen = std::mem::take(&mut self.seen);
        let merged = layer::beside(
            || seen.insert_entry_files(chunks, width),
            || self.merge_into_run(chunks),
        );
        self.seen = seen;
        merged
    }

    /// The entries (a record, then its id) of the stored states `records`,
    /// the first of which is `first`, sorted by record. Records are distinct,
    /// so a record and its index in the chunk sort as the candidates do: as
    /// one word when they fit it (room4: 5 bytes and 20 bits), on every
    /// thread, merged back on every thread. (As 16-byte numbers merged on
    /// one thread, the chunks' sort was a third of the switch to disk on
    /// room4 under `--mem 128M`.)
    fn sorted_base_chunk(&self, records: &[u8], first: u64) -> Vec<u8> {
        let width = self.width;
        let n = records.len() / width.max(1);
        let mut entries = Vec::with_capacity(n * (width + 8));
        for (k, rec) in records.chunks_exact(width).enumerate() {
            entries.extend_from_slice(rec);
            entries.extend_from_slice(&(k as u64).to_be_bytes());
        }
        let words = sort_candidates(&mut entries, width, n as u64, self.threads);
        // The index in the chunk becomes the id, little-endian as a run's.
        for e in entries.chunks_exact_mut(width + 8) {
            let (_, tail) = e.split_at_mut(width);
            let k = u64::from_be_bytes(tail.try_into().unwrap_or([0; 8]));
            tail.copy_from_slice(&(first + k).to_le_bytes());
        }
        if !words {
            sort_entries(&mut entries, width + 8, width, self.threads);
        }
        entries
    }

    /// Filter bits a new run of `entries` entries gets, when the runs
    /// `replaced` are about to go: every run's filter aims at the same bits a
    /// state, the filters' share of the budget over every state in the runs
    /// (at most [`MAX_FILTER_BITS`]), and the filters together stay within
    /// that share. Older filters with more bits a state than the aim are
    /// folded in half, fattest first, to make room. (First come, first
    /// served, room4's base run took 10 bits a state under `--mem 128M` and
    /// left the later runs none: every new state then searched them all.)
    fn filter_bits(&mut self, entries: u64, replaced: &[PathBuf]) -> u64 {
        let kept = |runs: &[VisitedRun]| -> u64 {
            runs.iter()
                .filter(|r| !replaced.contains(&r.path))
                .map(|r| r.summary.filter_bytes())
                .sum()
        };
        let states: u64 = entries
            + self
                .runs
                .iter()
                .filter(|r| !replaced.contains(&r.path))
                .map(|r| r.entries)
                .sum::<u64>();
        let aim = (self.filter_cap * 8 / states.max(1)).min(MAX_FILTER_BITS);
        let need = aim * entries / 8;
        while kept(&self.runs) + need > self.filter_cap {
            let bits_a_state = |r: &VisitedRun| r.summary.filter_bytes() * 8 / r.entries.max(1);
            let fattest = (0..self.runs.len())
                .filter(|&i| {
                    let r = &self.runs[i];
                    !replaced.contains(&r.path) && bits_a_state(r) > aim
                })
                .max_by_key(|&i| bits_a_state(&self.runs[i]));
            match fattest {
                Some(i) if self.runs[i].summary.fold_filter() => {}
                _ => break,
            }
        }
        let room = self.filter_cap.saturating_sub(kept(&self.runs)) * 8 / entries.max(1);
        room.min(aim)
    }

    /// Reads a run of the checkpoint back to summarise it.
    fn summarise(&mut self, path: &Path, entries: u64) -> Result<Summary, ExploreError> {
        let bits = self.filter_bits(entries, &[]);
        let mut summary = Summary::new(self.width, entries, bits);
        let mut reader = EntryReader::open(path, entries, self.width + 8)?;
        while reader.next(path)? {
            let record = &reader.entry()[..self.width];
            summary.push(record);
            self.seen.insert_records(std::iter::once(record));
        }
        Ok(summary.finish())
    }

    /// Merges the sorted entry files `inputs` into a new run and summarises
    /// it on the way.
    fn merge_into_run(&mut self, inputs: &[(PathBuf, u64)]) -> Result<VisitedRun, ExploreError> {
        let entries: u64 = inputs.iter().map(|(_, n)| n).sum();
        let replaced: Vec<PathBuf> = inputs.iter().map(|(p, _)| p.clone()).collect();
        let bits = self.filter_bits(entries, &replaced);
        let summary = Summary::new(self.width, entries, bits);
        let path = self.new_path("run");
        compaction::merge_runs(inputs, &[], path, summary, self.width)
    }

    /// The id (or placeholder) of a successor: from the index when it knows
    /// the state, else a new candidate. With exact tags a candidate's
    /// placeholder goes into the index too, so that the layer's later
    /// meetings of the same state share it: the layer then sorts each
    /// distinct candidate once, not once per meeting. `key` is the
    /// successor's [`Table::key`] (the merge computed it to prefetch its
    /// slot), `tag` gives its tag.
    pub fn lookup_or_candidate(
        &mut self,
        table: &Table,
        keys: &Keys,
        (key, tag): (u64, impl Fn() -> u64),
        record: &[u8],
    ) -> Result<u64, ExploreError> {
        if keys.exact() && table.len() < table.capacity() {
            // One probe finds the state or places the candidate's
            // placeholder where it missed. (A lookup then an insert probed
            // twice and mixed the tag twice: a sixth of the merge's time on
            // room4 under `--mem 128M`.)
            let placeholder = PLACEHOLDER | self.seq;
            return match table.get_or_insert_key(key, placeholder, |id| keys.same(id, record)) {
                Ok(id) => Ok(id),
                Err(_) => self.candidate(record),
            };
        }
        if let Some(id) = table.get(tag(), |id| keys.same(id, record)) {
            return Ok(id);
        }
        self.candidate(record)
    }

    /// Registers a successor the index did not know; returns its placeholder.
    pub fn candidate(&mut self, record: &[u8]) -> Result<u64, ExploreError> {
        let seq = self.seq;
        self.seq += 1;
        self.cands.extend_from_slice(record);
        self.cands.extend_from_slice(&seq.to_be_bytes());
        if self.cands.len() >= self.cand_limit * (self.width + 8) {
            self.spill()?;
        }
        Ok(PLACEHOLDER | seq)
    }

    fn spill(&mut self) -> Result<(), ExploreError> {
        let entry = self.width + 8;
        self.sort_candidates();
        let path = self.new_path("cand");
        write_file(&path, &self.cands)?;
        self.spills.push((path, (self.cands.len() / entry) as u64));
        self.cands.clear();
        Ok(())
    }

    /// Sorts the candidate buffer by record, then sequence number: as
    /// words when they fit one (see [`files::sort_candidates`]).
    fn sort_candidates(&mut self) {
        let entry = self.width + 8;
        if !sort_candidates(&mut self.cands, self.width, self.seq, self.threads) {
            sort_entries(&mut self.cands, entry, entry, self.threads);
        }
    }

    /// Queues a terminal parent's outcome; it is recorded (with an empty
    /// row of edges) when the layer ends. Its row marker replaces the degree.
    pub fn push_terminal(&mut self, parent: u64, outcome: u16) -> Result<(), ExploreError> {
        let out = self.pending_at(parent)?;
        let row = out.row();
        row.extend_from_slice(&TERMINAL_ROW.to_le_bytes());
        row.extend_from_slice(&outcome.to_le_bytes());
        out.row_done()
    }

    /// The layer's pending stream, opened at the layer's first queued
    /// parent, `parent`.
    fn pending_at(&mut self, parent: u64) -> Result<&mut Pending, ExploreError> {
        if self.pending.is_none() {
            let path = self.new_path("pending");
            self.pending = Some(Pending::create(path)?);
            self.first_pending = Some(parent);
        }
        match self.pending.as_mut() {
            Some(out) => Ok(out),
            None => unreachable!("the pending stream was just opened"),
        }
    }

    /// Queues a parent's edges until the layer's placeholders are resolved.
    pub fn push_parent(
        &mut self,
        parent: u64,
        edges: &[Edge],
        probs: Option<&[(u32, u32)]>,
    ) -> Result<(), ExploreError> {
        let out = self.pending_at(parent)?;
        let row = out.row();
        row.extend_from_slice(&(edges.len() as u32).to_le_bytes());
        for (i, e) in edges.iter().enumerate() {
            row.extend_from_slice(&e.action.to_le_bytes());
            row.extend_from_slice(&e.target.to_le_bytes());
            if let Some(p) = probs.and_then(|p| p.get(i)) {
                row.extend_from_slice(&p.0.to_le_bytes());
                row.extend_from_slice(&p.1.to_le_bytes());
            }
        }
        out.row_done()
    }
}

/// Bytes a candidate costs until its round is resolved, at the peak (the
/// resolution): its entry in the buffer (`width + 8`), its resolved id (8)
/// and, if it is a new state, its record, first occurrence, order and rank
/// (`width + 16`). The sort before it needs less: the entry and a 16-byte key.
/// Rounds hold as many candidates as the buffer, so the buffer never spills
/// but for a chunk that overshoots it.
fn resolution_bytes_per_candidate(width: usize) -> u64 {
    2 * width as u64 + 32
}

/// Bytes the runs' filters may hold under a budget of `mem_budget` bytes.
fn filter_cap(mem_budget: u64) -> u64 {
    mem_budget / FILTER_SHARE
}

/// Bytes the filter of every visited state ([`seen`]) takes under a budget
/// of `mem_budget` bytes.
fn seen_bytes(mem_budget: u64) -> u64 {
    (mem_budget / SEEN_SHARE).min(SEEN_MOST)
}

/// The most candidates one resolution may take: the candidate buffer's
/// length (ranks are 32-bit, so never more than 2^32 - 1).
fn round_limit(cand_limit: usize) -> u64 {
    (cand_limit as u64).min(u64::from(u32::MAX))
}

mod cache;
mod compaction;
mod files;
mod layer;
mod lookup;
mod parallel;
mod pending;
mod probe;
mod seen;

use cache::Cache;
pub use cache::Frontier;
use files::{clear_dir, sort_candidates, sort_entries, sync_new_file, write_file, EntryReader};
use pending::Pending;
use probe::{Summary, MAX_FILTER_BITS};
use seen::Seen;

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of `entries` entries with a filter of `bits` bits each.
    fn run(name: &str, entries: u64, bits: u64) -> VisitedRun {
        let mut summary = Summary::new(1, entries, bits);
        for i in 0..entries {
            summary.push(&[(i % 251) as u8]);
        }
        VisitedRun {
            path: PathBuf::from(name),
            entries,
            summary: summary.finish(),
            synced: false,
        }
    }

    /// A new run's filter aims at the bits a state the share gives every
    /// state in the runs; older, fatter filters are folded to make room,
    /// and the filters stay within their share.
    #[test]
    fn filters_share_their_budget_evenly_by_folding_the_fattest() {
        let dir = std::env::temp_dir();
        let opts = DiskBudget {
            scratch_dir: &dir,
            mem_budget: 4 << 20,
            round_limit: None,
            threads: 1,
        };
        let mut dedup = DiskDedup::empty(dir.clone(), 1, 1 << 16, 0, &opts);
        let cap = dedup.filter_cap;
        // The first run takes the most bits a state the share allows.
        let base = cap * 8 / MAX_FILTER_BITS;
        let bits = dedup.filter_bits(base, &[]);
        assert_eq!(bits, MAX_FILTER_BITS);
        dedup.runs.push(run("base", base, bits));
        // As many states again: the aim halves, the base run is folded.
        let bits = dedup.filter_bits(base, &[]);
        assert_eq!(bits, MAX_FILTER_BITS / 2);
        let held = dedup.runs[0].summary.filter_bytes();
        assert!(held * 8 / base <= MAX_FILTER_BITS / 2 + 1, "{held}");
        assert!(held + bits * base / 8 <= cap, "{held} + new over {cap}");
        // A run about to be replaced is neither counted nor folded.
        let before = dedup.runs[0].summary.filter_bytes();
        let bits = dedup.filter_bits(base * 3, &[PathBuf::from("base")]);
        assert_eq!(bits, cap * 8 / (base * 3));
        assert_eq!(dedup.runs[0].summary.filter_bytes(), before);
    }
}
