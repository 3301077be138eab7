//! The end-of-layer (or end-of-round) pass of disk-based duplicate detection:
//! resolve the candidates against the visited runs, number the new states, write
//! the layer's run and stream its pending edges to the store.

use super::files::Merge;
use super::lookup::Batch;
use super::probe::{RunProbe, Summary};
use super::{
    io_err, DiskDedup, Frontier, VisitedRun, FRESH, IO_BUF, PLACEHOLDER, REFILL_SLICE, TERMINAL_ROW,
};
use crate::keys::Keys;
use crate::table::Table;
use crate::ExploreError;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::PathBuf;
use store::{Edge, RunWriter};

/// The new states of a layer, in record order.
struct Fresh {
    records: Vec<u8>,
    first_seq: Vec<u64>,
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
        if !rank.is_empty() {
            self.finders.note(base, first);
        }
        stream_pending(&pending_path, first, &resolved, chance, writer)?;
        self.garbage.push(pending_path);
        self.garbage.extend(self.spills.drain(..).map(|(p, _)| p));
        self.seq = 0;
        self.cands.clear();
        match at {
            Some(at) if keys.exact() => {
                drop(fresh);
                self.refill_around(writer, (table, keys), writer.state_count(), at)?;
            }
            Some(_) => self.refresh_table(&fresh, &rank, base, writer, table, keys)?,
            None => {}
        }
        self.compact()?;
        Ok(())
    }

    /// Sorts the candidates, looks each distinct record up in the runs and
    /// fills `resolved[seq]` with an old id or `FRESH | index`.
    fn resolve(&mut self, resolved: &mut [u64]) -> Result<Fresh, ExploreError> {
        let width = self.width;
        let entry = width + 8;
        super::files::sort_entries(&mut self.cands, entry, entry);
        let mut probes = self
            .runs
            .iter()
            .map(|r| RunProbe::open(&r.path, &r.summary))
            .collect::<Result<Vec<_>, _>>()?;
        let mut merge = Merge::new(&self.spills, &self.cands, entry)?;
        // Room for every candidate being new, so that the vectors never grow by
        // doubling: the pages past what is used are never touched, so they
        // cost address space, not memory.
        let mut fresh = Fresh {
            records: Vec::with_capacity(self.seq as usize * width),
            first_seq: Vec::with_capacity(self.seq as usize),
        };
        let mut batch = Batch::new(width);
        let mut settle = |record: &[u8], seq: u64, found: Option<u64>| {
            resolved[seq as usize] = match found {
                Some(id) => id,
                // Occurrences come in record order, the first one first: a
                // new state's later ones follow its first.
                None if fresh.records.ends_with(record) => {
                    FRESH | (fresh.first_seq.len() as u64 - 1)
                }
                None => {
                    fresh.records.extend_from_slice(record);
                    fresh.first_seq.push(seq);
                    FRESH | (fresh.first_seq.len() as u64 - 1)
                }
            };
        };
        while let Some(e) = merge.next_entry()? {
            let (record, seq) = e.split_at(width);
            let seq = u64::from_be_bytes(seq.try_into().unwrap_or([0; 8]));
            if !batch.add(record, seq) {
                batch.look_up(&mut probes, &mut settle)?;
                batch.add(record, seq);
            }
        }
        batch.look_up(&mut probes, &mut settle)?;
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
        let entries = rank.len() as u64;
        let mut summary = Summary::new(self.width, entries, self.filter_bits(entries, &[]));
        let path = self.new_path("run");
        let file = File::create(&path).map_err(io_err(&path))?;
        let mut out = std::io::BufWriter::with_capacity(IO_BUF, file);
        for (i, rec) in fresh.records.chunks_exact(self.width).enumerate() {
            let id = (base + u64::from(rank[i])).to_le_bytes();
            summary.push(rec);
            std::io::Write::write_all(&mut out, rec).map_err(io_err(&path))?;
            std::io::Write::write_all(&mut out, &id).map_err(io_err(&path))?;
        }
        std::io::Write::flush(&mut out).map_err(io_err(&path))?;
        self.runs.push(VisitedRun {
            path,
            entries,
            summary: summary.finish(),
            synced: false,
        });
        Ok(())
    }

    /// Keeps the index a cache of the newest states across rounds, with
    /// fingerprints (exact keys are refilled by [`DiskDedup::refill_around`]):
    /// the new states join the index while the key arena stays contiguous.
    /// When the index is too full to take the next round's candidates, it is
    /// rebuilt from the store with the newest states, the layer being built
    /// and the end of the parents' (the arena holds one range of ids).
    fn refresh_table(
        &mut self,
        fresh: &Fresh,
        rank: &[u32],
        base: u64,
        writer: &mut RunWriter,
        table: &mut Table,
        keys: &mut Keys,
    ) -> Result<(), ExploreError> {
        let n = rank.len();
        let end = base + n as u64;
        let mut complete = true;
        if self.table_end == base && table.len() + n <= table.capacity() {
            let mut by_id = vec![0u32; n];
            for (i, &r) in rank.iter().enumerate() {
                by_id[r as usize] = i as u32;
            }
            for (k, &i) in by_id.iter().enumerate() {
                let rec = &fresh.records[i as usize * self.width..(i as usize + 1) * self.width];
                let id = base + k as u64;
                // A record the arena cannot take leaves its state out of the
                // cache: it becomes a candidate and the runs resolve it.
                if !keys.put(id, rec) {
                    complete = false;
                    break;
                }
                table.insert_absent(keys.tag(rec), id);
                self.table_end = id + 1;
            }
        } else {
            complete = false;
        }
        if !complete || table.len() > table.capacity() / 4 * 3 {
            self.refill_newest(writer, table, keys, end)?;
        }
        Ok(())
    }

    /// Empties the index and fills it with the newest stored states, up to
    /// half its capacity, leaving the other half to the next round's
    /// placeholders and new states. Read from the store a slice at a time.
    fn refill_newest(
        &mut self,
        writer: &mut RunWriter,
        table: &mut Table,
        keys: &mut Keys,
        end: u64,
    ) -> Result<(), ExploreError> {
        table.clear();
        let keep = (table.capacity() / 2).min(keys.capacity()) as u64;
        let first = end.saturating_sub(keep);
        keys.reset(first);
        let mut records = Vec::new();
        let mut id = first;
        'slices: while id < end {
            let count = (end - id).min(REFILL_SLICE);
            writer.read_states(id, count as usize, &mut records)?;
            for rec in records.chunks_exact(self.width) {
                if !keys.put(id, rec) {
                    break 'slices;
                }
                table.insert_absent(keys.tag(rec), id);
                id += 1;
            }
        }
        self.table_end = id;
        Ok(())
    }

    /// Keeps the runs' count logarithmic in the visited states: while the
    /// newest run is at least as large as the one before it, the two become
    /// one (a binary counter of run sizes, as in a log-structured merge
    /// tree). Sizes then at least double from the newest run to the oldest,
    /// so a candidate meets O(log) runs and a state is rewritten O(log)
    /// times. The merged run is synced before it replaces the two; they go
    /// only once a checkpoint no longer names them.
    fn compact(&mut self) -> Result<(), ExploreError> {
        while self.runs.len() >= 2 {
            let n = self.runs.len();
            if self.runs[n - 2].entries > self.runs[n - 1].entries {
                break;
            }
            let inputs: Vec<(PathBuf, u64)> = self.runs[n - 2..]
                .iter()
                .map(|r| (r.path.clone(), r.entries))
                .collect();
            let merged = self.merge_into_run(&inputs)?;
            for old in self.runs.drain(n - 2..) {
                self.garbage.push(old.path);
            }
            self.runs.push(merged);
        }
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
