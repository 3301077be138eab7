//! The end-of-layer (or end-of-round) pass of disk-based duplicate detection:
//! resolve the candidates against the visited runs, number the new states, write
//! the layer's run and stream its pending edges to the store.

use super::files::{sync_new_file, EntryReader, Merge};
use super::{io_err, DiskDedup, FRESH, IO_BUF, MAX_RUNS, PLACEHOLDER, TERMINAL_ROW};
use crate::keys::Keys;
use crate::table::Table;
use crate::ExploreError;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use store::{Edge, RunWriter};

/// The new states of a layer, in record order.
struct Fresh {
    records: Vec<u8>,
    first_seq: Vec<u64>,
}

/// A cursor over one sorted run of (record, id) entries.
struct RunCursor<'a> {
    path: &'a Path,
    reader: EntryReader,
    live: bool,
}

impl<'a> RunCursor<'a> {
    fn open(path: &'a Path, entries: u64, width: usize) -> Result<RunCursor<'a>, ExploreError> {
        let mut reader = EntryReader::open(path, entries, width + 8)?;
        let live = reader.next(path)?;
        Ok(RunCursor { path, reader, live })
    }

    /// The id stored for `record`; records must be asked in increasing order.
    fn find(&mut self, record: &[u8]) -> Result<Option<u64>, ExploreError> {
        let width = record.len();
        while self.live && self.reader.entry()[..width] < *record {
            self.live = self.reader.next(self.path)?;
        }
        if self.live && self.reader.entry()[..width] == *record {
            let mut id = [0u8; 8];
            id.copy_from_slice(&self.reader.entry()[width..]);
            return Ok(Some(u64::from_le_bytes(id)));
        }
        Ok(None)
    }
}

impl DiskDedup {
    /// Resolves the candidates of the layer (or of the round, when the layer
    /// is resolved in several), appends its new states to the store and
    /// streams its pending edges, then refreshes the in-memory index.
    pub fn finish_layer(
        &mut self,
        writer: &mut RunWriter,
        table: &mut Table,
        keys: &mut Keys,
        chance: bool,
    ) -> Result<(), ExploreError> {
        let Some((pending_path, mut out)) = self.pending.take() else {
            return Ok(());
        };
        std::io::Write::flush(&mut out).map_err(io_err(&pending_path))?;
        drop(out);
        let mut resolved = vec![0u64; self.seq as usize];
        let mut fresh = self.resolve(&mut resolved)?;
        let base = writer.state_count();
        let rank = append_fresh(&mut fresh, self.width, writer)?;
        for r in resolved.iter_mut() {
            if *r & FRESH != 0 {
                *r = base + u64::from(rank[(*r & !FRESH) as usize]);
            }
        }
        self.write_layer_run(&fresh, &rank, base)?;
        let first = self.first_pending.take().unwrap_or(0);
        stream_pending(&pending_path, first, &resolved, chance, writer)?;
        self.garbage.push(pending_path);
        self.garbage.extend(self.spills.drain(..).map(|(p, _)| p));
        self.seq = 0;
        self.cands.clear();
        self.refresh_table(&fresh, &rank, base, table, keys);
        if self.runs.len() > MAX_RUNS {
            self.compact()?;
        }
        Ok(())
    }

    /// Sorts the candidates, looks each distinct record up in the runs and
    /// fills `resolved[seq]` with an old id or `FRESH | index`.
    fn resolve(&mut self, resolved: &mut [u64]) -> Result<Fresh, ExploreError> {
        let width = self.width;
        let entry = width + 8;
        super::files::sort_entries(&mut self.cands, entry, entry);
        let mut cursors = self
            .runs
            .iter()
            .map(|(p, n)| RunCursor::open(p, *n, width))
            .collect::<Result<Vec<_>, _>>()?;
        let mut merge = Merge::new(&self.spills, &self.cands, entry)?;
        // Room for every candidate being new, so that the vectors never grow by
        // doubling: the pages past what is used are never touched, so they
        // cost address space, not memory.
        let mut fresh = Fresh {
            records: Vec::with_capacity(self.seq as usize * width),
            first_seq: Vec::with_capacity(self.seq as usize),
        };
        let mut group: Option<(Vec<u8>, u64)> = None;
        while let Some(e) = merge.next_entry()? {
            let (record, seq) = e.split_at(width);
            let seq = u64::from_be_bytes(seq.try_into().unwrap_or([0; 8]));
            if let Some((rec, value)) = &group {
                if rec.as_slice() == record {
                    resolved[seq as usize] = *value;
                    continue;
                }
            }
            let mut value = None;
            for c in cursors.iter_mut() {
                if let Some(id) = c.find(record)? {
                    value = Some(id);
                }
            }
            let value = value.unwrap_or_else(|| {
                fresh.records.extend_from_slice(record);
                fresh.first_seq.push(seq);
                FRESH | (fresh.first_seq.len() as u64 - 1)
            });
            resolved[seq as usize] = value;
            match group.as_mut() {
                Some((rec, v)) => {
                    rec.clear();
                    rec.extend_from_slice(record);
                    *v = value;
                }
                None => group = Some((record.to_vec(), value)),
            }
        }
        Ok(fresh)
    }

    /// The layer's new states as a sorted run: they are in record order.
    fn write_layer_run(
        &mut self,
        fresh: &Fresh,
        rank: &[u32],
        base: u64,
    ) -> Result<(), ExploreError> {
        if rank.is_empty() {
            return Ok(());
        }
        // Streamed through a small buffer: a layer can hold tens of millions
        // of new states, and a whole copy of them would break `--mem`.
        let path = self.new_path("run");
        let file = File::create(&path).map_err(io_err(&path))?;
        let mut out = std::io::BufWriter::with_capacity(IO_BUF, file);
        for (i, rec) in fresh.records.chunks_exact(self.width).enumerate() {
            let id = (base + u64::from(rank[i])).to_le_bytes();
            std::io::Write::write_all(&mut out, rec).map_err(io_err(&path))?;
            std::io::Write::write_all(&mut out, &id).map_err(io_err(&path))?;
        }
        let file = out
            .into_inner()
            .map_err(|e| io_err(&path)(e.into_error()))?;
        sync_new_file(&file, &path)?;
        self.runs.push((path, rank.len() as u64));
        Ok(())
    }

    /// Keeps the newest layer in the index; clears it when it would overflow
    /// or when the wide-key arena would no longer be contiguous.
    fn refresh_table(
        &mut self,
        fresh: &Fresh,
        rank: &[u32],
        base: u64,
        table: &mut Table,
        keys: &mut Keys,
    ) {
        let n = rank.len();
        // Placeholders of this layer's candidates must go, and so must
        // everything when the new layer would not fit or the arena would
        // not stay contiguous.
        if self.provisional || table.len() + n > table.capacity() || self.table_end != base {
            table.clear();
            keys.reset(base);
            self.provisional = false;
        }
        let mut by_id = vec![0u32; n];
        for (i, &r) in rank.iter().enumerate() {
            by_id[r as usize] = i as u32;
        }
        let room = table.capacity() - table.len();
        for (k, &i) in by_id.iter().take(room).enumerate() {
            let rec = &fresh.records[i as usize * self.width..(i as usize + 1) * self.width];
            // The index is only a cache here: a record the arena cannot take
            // leaves its state unconfirmed, so it becomes a candidate and the
            // disk runs resolve it.
            keys.put(base + k as u64, rec);
            table.insert_absent(keys.tag(rec), base + k as u64);
        }
        self.table_end = base + n.min(room) as u64;
    }

    /// Merges the smaller half of the runs into one. Leaving the large runs
    /// alone keeps the cost of a compaction proportional to what recent
    /// layers added, not to everything visited (tiered merging).
    fn compact(&mut self) -> Result<(), ExploreError> {
        let entry = self.width + 8;
        self.runs.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let old = self.runs.split_off(MAX_RUNS / 2);
        let total: u64 = old.iter().map(|(_, n)| n).sum();
        let path = self.new_path("run");
        let file = File::create(&path).map_err(io_err(&path))?;
        let mut out = std::io::BufWriter::with_capacity(IO_BUF, file);
        let mut merge = Merge::new(&old, &[], entry)?;
        while let Some(e) = merge.next_entry()? {
            std::io::Write::write_all(&mut out, e).map_err(io_err(&path))?;
        }
        let file = out
            .into_inner()
            .map_err(|e| io_err(&path)(e.into_error()))?;
        sync_new_file(&file, &path)?;
        self.runs.push((path, total));
        self.garbage.extend(old.into_iter().map(|(p, _)| p));
        Ok(())
    }
}

/// Appends the fresh states in order of first occurrence; returns each one's
/// rank (its id minus the first new id), indexed in record order.
fn append_fresh(
    fresh: &mut Fresh,
    width: usize,
    writer: &mut RunWriter,
) -> Result<Vec<u32>, ExploreError> {
    let mut order: Vec<u32> = (0..fresh.first_seq.len() as u32).collect();
    order.sort_unstable_by_key(|&i| fresh.first_seq[i as usize]);
    // First occurrences are needed only for this order: free them now.
    fresh.first_seq = Vec::new();
    let mut rank = vec![0u32; order.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
        let at = i as usize * width;
        writer.append_state(&fresh.records[at..at + width])?;
    }
    Ok(rank)
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
    let mut input = BufReader::with_capacity(IO_BUF, file);
    let mut edges = Vec::new();
    let mut probs = Vec::new();
    let mut parent = first;
    let mut word = [0u8; 4];
    loop {
        match input.read_exact(&mut word) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(io_err(path)(e)),
        }
        let degree = u32::from_le_bytes(word);
        edges.clear();
        probs.clear();
        if degree == TERMINAL_ROW {
            let mut outcome = [0u8; 2];
            input.read_exact(&mut outcome).map_err(io_err(path))?;
            writer.mark_terminal(parent, u16::from_le_bytes(outcome))?;
            writer.append_edges(parent, &[], chance.then_some(&[][..]))?;
            parent += 1;
            continue;
        }
        for _ in 0..degree {
            let mut e = [0u8; 10];
            input.read_exact(&mut e).map_err(io_err(path))?;
            let action = u16::from_le_bytes([e[0], e[1]]);
            let mut target = u64::from_le_bytes(e[2..10].try_into().unwrap_or([0; 8]));
            if target & PLACEHOLDER != 0 {
                target = resolved[(target & !PLACEHOLDER) as usize];
            }
            edges.push(Edge { action, target });
            if chance {
                let mut p = [0u8; 8];
                input.read_exact(&mut p).map_err(io_err(path))?;
                let num = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                let den = u32::from_le_bytes([p[4], p[5], p[6], p[7]]);
                probs.push((num, den));
            }
        }
        writer.append_edges(parent, &edges, chance.then_some(&probs[..]))?;
        parent += 1;
    }
}
