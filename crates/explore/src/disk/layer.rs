//! The end-of-layer (or end-of-round) pass of disk-based duplicate detection:
//! resolve the candidates against the visited runs, number the new states, write
//! the layer's run and stream its pending edges to the store.

use super::lookup::{cut_ranges, resolve_range};
use super::parallel::run_tasks;
use super::probe::{Summary, MAX_SPAN};
use super::{
    io_err, DiskDedup, Frontier, FRESH, FRESH_PART_SHIFT, IO_BUF, PLACEHOLDER, TERMINAL_ROW,
};
use crate::keys::Keys;
use crate::table::Table;
use crate::ExploreError;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use store::{Edge, RunWriter};

/// The new states of a round, in record order: the new records of each range
/// the round was resolved in (see [`resolve_range`]), ranges in order.
pub(super) struct Fresh {
    width: usize,
    parts: Vec<Vec<u8>>,
    /// The index of each part's first record among all the round's.
    offsets: Vec<u64>,
}

impl Fresh {
    fn new(parts: Vec<Vec<u8>>, width: usize) -> Fresh {
        let mut offsets = Vec::with_capacity(parts.len());
        let mut total = 0u64;
        for part in &parts {
            offsets.push(total);
            total += (part.len() / width.max(1)) as u64;
        }
        Fresh {
            width,
            parts,
            offsets,
        }
    }

    fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len() / self.width.max(1)).sum()
    }

    /// The index among all the round's new records of a resolved value
    /// `FRESH | part << FRESH_PART_SHIFT | i`.
    fn index(&self, value: u64) -> usize {
        let part = ((value & !FRESH) >> FRESH_PART_SHIFT) as usize;
        let local = value & ((1 << FRESH_PART_SHIFT) - 1);
        (self.offsets.get(part).copied().unwrap_or(0) + local) as usize
    }

    /// The part holding the `i`-th new record in record order, and the
    /// record's offset in it.
    fn place(&self, i: usize) -> (usize, usize) {
        let part = self.offsets.partition_point(|&o| o <= i as u64) - 1;
        (part, (i - self.offsets[part] as usize) * self.width)
    }

    /// The `i`-th new record in record order.
    pub(super) fn record(&self, i: usize) -> &[u8] {
        let (part, at) = self.place(i);
        &self.parts[part][at..at + self.width]
    }

    /// Starts loading the `i`-th new record in record order.
    fn prefetch(&self, i: usize) {
        let (part, at) = self.place(i);
        store::prefetch(&self.parts[part], at);
    }

    /// Every new record, in record order.
    fn records(&self) -> impl Iterator<Item = &[u8]> {
        self.parts.iter().flat_map(|p| p.chunks_exact(self.width))
    }
}

/// The value a range's `local`-th new record resolves to, before ids are
/// given: its part beside its index, so that ranges resolved side by side
/// need not know how many new records the ranges before them found.
fn fresh_value(part: usize, local: u64) -> u64 {
    FRESH | (part as u64) << FRESH_PART_SHIFT | local
}

impl DiskDedup {
    /// Resolves the candidates of the layer (or of the round, when the layer
    /// is resolved in several), appends its new states to the store and
    /// streams its pending edges, then refreshes the in-memory index for the
    /// search standing at `at` (`None` when it ends: nothing will read it).
    pub fn finish_layer(
        &mut self,
        writer: &mut RunWriter,
        (table, keys): (&mut Table, &mut Keys),
        chance: bool,
        at: Option<Frontier>,
    ) -> Result<(), ExploreError> {
        let Some(out) = self.pending.take() else {
            return Ok(());
        };
        let pending_path = out.finish()?;
        // The buffer of the rounds before, kept: allocated anew, its
        // megabytes were page faults and the kernel's zeroing every round (with
        // the other buffers a round allocates, a twentieth of the merging
        // thread's time in the disk phase on room4 under `--mem 128M`). The
        // resolution's peak counts it already.
        let mut resolved = std::mem::take(&mut self.resolved);
        resolved.clear();
        resolved.resize(self.seq as usize, 0);
        let fresh = self.resolve(store::atomic_u64(&mut resolved))?;
        let base = writer.state_count();
        let (rank, order) = number_fresh(&fresh, &mut resolved, base);
        let first = self.first_pending.take().unwrap_or(0);
        if !rank.is_empty() {
            self.cache.finders.note(base, first);
        }
        // The layer's run, then the merge of the newest runs it may set off,
        // touch only the runs; the new states, the edges and the refill of
        // the index go to and come from the store: the two sides run side by
        // side. (One after the other, the run's write and the stream each
        // took about a twentieth of the disk phase's main thread on room4
        // under `--mem 128M`, and the merges after them, alone, another 1.2 s
        // of its 16. With the stream alone beside them, the store's side
        // waited a second of its 13 for the runs', and the states' appends
        // and the refill then ran with the other core idle.)
        let mut cache = std::mem::take(&mut self.cache);
        let alone = self.threads < 2;
        let store_side = || {
            append_fresh(&fresh, order, writer)?;
            stream_pending(&pending_path, first, &resolved, chance, writer)?;
            match at {
                Some(at) if keys.exact() => {
                    let end = writer.state_count();
                    cache.refill_around(writer, (table, keys), end, at)
                }
                Some(_) => cache.refresh_table((&fresh, &rank, base), writer, table, keys),
                None => Ok(()),
            }
        };
        let mut runs = || self.write_layer_run(&fresh, &rank, base);
        let done = match alone {
            true => runs().and_then(|()| store_side()),
            false => beside(runs, store_side),
        };
        self.cache = cache;
        self.resolved = resolved;
        done?;
        // No checkpoint names a round's pending edges or spilled candidates.
        remove_scratch_file(&pending_path)?;
        for (path, _) in std::mem::take(&mut self.spills) {
            remove_scratch_file(&path)?;
        }
        self.seq = 0;
        self.seq_asked = 0;
        self.cands.clear();
        Ok(())
    }

    /// Sorts the candidates, looks each distinct record up in the runs and
    /// fills `resolved[seq]` with an old id or a [`fresh_value`]. Both run on
    /// every thread: the sort in pieces merged after, the lookups in ranges
    /// of the sorted candidates cut where the record changes, each range with
    /// probes of its own. The new records come back in record order whatever
    /// the count of ranges.
    fn resolve(&mut self, resolved: &[AtomicU64]) -> Result<Fresh, ExploreError> {
        let width = self.width;
        let entry = width + 8;
        self.gather_spills()?;
        self.sort_candidates();
        let runs: Vec<(&Path, &Summary)> = self
            .runs
            .iter()
            .map(|r| (r.path.as_path(), &r.summary))
            .collect();
        let (cands, seen) = (&self.cands, &self.seen);
        let bounds = cut_ranges(cands, entry, width, self.threads);
        let max_span = MAX_SPAN / self.threads.max(1) as u64;
        let parts = run_tasks(bounds.len() - 1, |p| {
            let range = &cands[bounds[p] * entry..bounds[p + 1] * entry];
            let fresh = |local| fresh_value(p, local);
            resolve_range((&runs, seen), range, width, max_span, fresh, resolved)
        });
        let parts = parts.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(Fresh::new(parts, width))
    }

    /// Brings the round's spilled candidates (sorted runs of a buffer that
    /// filled within a step) back into the buffer, to be sorted with the rest.
    /// A round ends a step before its buffer would fill (see
    /// [`DiskDedup::round_full`]), so this is rare: a step far larger than
    /// the ones before it.
    fn gather_spills(&mut self) -> Result<(), ExploreError> {
        let entry = (self.width + 8) as u64;
        let bytes: u64 = self.spills.iter().map(|(_, n)| n * entry).sum();
        self.cands.reserve_exact(bytes as usize);
        for (path, n) in &self.spills {
            let file = File::open(path).map_err(io_err(path))?;
            let read = file
                .take(n * entry)
                .read_to_end(&mut self.cands)
                .map_err(io_err(path))?;
            if read as u64 != n * entry {
                return Err(io_err(path)(std::io::ErrorKind::UnexpectedEof.into()));
            }
        }
        Ok(())
    }

    /// The layer's new states as a sorted run (they are in record order),
    /// merged at once with the newest runs when their sizes call for it (see
    /// [`DiskDedup::add_run`]). The entries are laid out in the candidate
    /// buffer, which the round no longer reads and which holds at least as
    /// many entries: a whole copy of tens of millions of new states in
    /// memory of its own would break `--mem`.
    fn write_layer_run(
        &mut self,
        fresh: &Fresh,
        rank: &[u32],
        base: u64,
    ) -> Result<(), ExploreError> {
        let mut entries = std::mem::take(&mut self.cands);
        entries.clear();
        for (i, rec) in fresh.records().enumerate() {
            entries.extend_from_slice(rec);
            entries.extend_from_slice(&(base + u64::from(rank[i])).to_le_bytes());
        }
        self.seen.insert_records(fresh.records());
        let added = self.add_run(&entries);
        entries.clear();
        self.cands = entries;
        added
    }
}

/// Numbers the round's new states in order of first occurrence, which is the
/// order in which `resolved` (indexed by sequence number) first names each:
/// replaces every fresh value in `resolved` by the id (`base` and the rank).
/// Returns each new record's rank, indexed in record order, and the new
/// records' indices in id order (see [`append_fresh`]).
fn number_fresh(fresh: &Fresh, resolved: &mut [u64], base: u64) -> (Vec<u32>, Vec<u32>) {
    const UNRANKED: u32 = u32::MAX;
    let mut rank = vec![UNRANKED; fresh.len()];
    let mut order = Vec::with_capacity(fresh.len());
    for r in resolved.iter_mut().filter(|r| **r & FRESH != 0) {
        let i = fresh.index(*r);
        if rank[i] == UNRANKED {
            rank[i] = order.len() as u32;
            order.push(i as u32);
        }
        *r = base + u64::from(rank[i]);
    }
    (rank, order)
}

/// Appends the round's new states to the store in id order: `order` holds
/// their indices in record order, as [`number_fresh`] returned them. The
/// records are read in id order, at random among the round's megabytes of
/// them: each is prefetched [`APPEND_AHEAD`] states ahead (each read missed
/// the cache, a quarter of the store's side of the tail on the merging
/// thread on room4 under `--mem 128M`).
fn append_fresh(
    fresh: &Fresh,
    order: Vec<u32>,
    writer: &mut RunWriter,
) -> Result<(), ExploreError> {
    for (k, &i) in order.iter().enumerate() {
        if let Some(&later) = order.get(k + APPEND_AHEAD) {
            fresh.prefetch(later as usize);
        }
        writer.append_state(fresh.record(i as usize))?;
    }
    Ok(())
}

/// New states an append prefetches ahead (see [`append_fresh`]).
const APPEND_AHEAD: usize = 16;

/// Runs `other` on a thread of its own while `this` runs on the calling
/// one; returns what `this` returned once both are done. A thread the
/// system refuses is an error, after `this` has run: the search stops at
/// its last checkpoint, as when the expansion's are refused.
pub(super) fn beside<T>(
    other: impl FnOnce() -> Result<(), ExploreError> + Send,
    this: impl FnOnce() -> Result<T, ExploreError>,
) -> Result<T, ExploreError> {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .spawn_scoped(scope, other)
            .map_err(|source| ExploreError::Threads { threads: 2, source });
        let here = this();
        let there = match spawned {
            // A panic there is a bug, raised again here.
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(refused) => Err(refused),
        };
        here.and_then(|value| there.map(|()| value))
    })
}

/// Removes a scratch file no checkpoint names.
fn remove_scratch_file(path: &Path) -> Result<(), ExploreError> {
    std::fs::remove_file(path).map_err(io_err(path))
}

/// Reads a file of small records forward a large slice at a time, so that a
/// field is a fixed-size load from memory: read field by field through a
/// `BufReader`, every field was a copy call (the pending stream was a
/// twentieth of the disk phase's CPU on room4 under `--mem 128M`).
struct Slices {
    file: File,
    buf: Vec<u8>,
    at: usize,
}

impl Slices {
    fn new(file: File) -> Slices {
        Slices {
            file,
            buf: Vec::with_capacity(IO_BUF),
            at: 0,
        }
    }

    /// Makes `need` bytes available from the cursor; false when the file
    /// ends before them (it then holds at most a partial record).
    fn fill(&mut self, need: usize) -> std::io::Result<bool> {
        if self.buf.len() - self.at >= need {
            return Ok(true);
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let want = need.max(IO_BUF);
        while self.buf.len() < need {
            let have = self.buf.len();
            self.buf.resize(want, 0);
            let read = self.file.read(&mut self.buf[have..])?;
            self.buf.truncate(have + read);
            if read == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The next `N` bytes; [`Slices::fill`] made them available.
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let bytes = self
            .buf
            .get(self.at..self.at + N)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; N]);
        self.at += N;
        bytes
    }
}

/// Streams the layer's queued edges to the store with placeholders replaced.
fn stream_pending(
    path: &PathBuf,
    first: u64,
    resolved: &[u64],
    chance: bool,
    writer: &mut RunWriter,
) -> Result<(), ExploreError> {
    let file = File::open(path).map_err(io_err(path))?;
    let mut input = Slices::new(file);
    let truncated = || io_err(path)(std::io::ErrorKind::UnexpectedEof.into());
    let edge_bytes = if chance { 18 } else { 10 };
    let mut edges = Vec::new();
    let mut probs = Vec::new();
    let mut parent = first;
    loop {
        if !input.fill(4).map_err(io_err(path))? {
            // The stream ends at a row's start, or it was cut short.
            return match input.buf.len() == input.at {
                true => Ok(()),
                false => Err(truncated()),
            };
        }
        let degree = u32::from_le_bytes(input.take());
        edges.clear();
        probs.clear();
        if degree == TERMINAL_ROW {
            if !input.fill(2).map_err(io_err(path))? {
                return Err(truncated());
            }
            writer.mark_terminal(parent, u16::from_le_bytes(input.take()))?;
            writer.append_edges(parent, &[], chance.then_some(&[][..]))?;
            parent += 1;
            continue;
        }
        if !input
            .fill(degree as usize * edge_bytes)
            .map_err(io_err(path))?
        {
            return Err(truncated());
        }
        for _ in 0..degree {
            let action = u16::from_le_bytes(input.take());
            let mut target = u64::from_le_bytes(input.take());
            if target & PLACEHOLDER != 0 {
                target = resolved[(target & !PLACEHOLDER) as usize];
            }
            edges.push(Edge { action, target });
            if chance {
                let num = u32::from_le_bytes(input.take());
                let den = u32::from_le_bytes(input.take());
                probs.push((num, den));
            }
        }
        writer.append_edges(parent, &edges, chance.then_some(&probs[..]))?;
        parent += 1;
    }
}
