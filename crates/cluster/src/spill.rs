//! The owner's index on disk, once it outgrew `--mem`: the owned states as
//! runs sorted by (fingerprint, content), each entry `fingerprint u64, slot,
//! id u64`. A layer's candidates, sorted the same way, are looked up by one
//! merge pass over every run (delayed duplicate detection: sequential reads
//! only), and the layer's new states become one more run. The runs are
//! scratch: a resume rebuilds them from the part's `states` file.

use crate::error::io;
use crate::ClusterError;
use std::cmp::Ordering;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// More runs than this are merged into one before the next lookup.
const MOST_RUNS: usize = 8;

/// The sorted runs of the visited owned states.
pub struct Spilled {
    dir: PathBuf,
    slot: usize,
    runs: Vec<PathBuf>,
    made: usize,
    /// Bytes of the buffer of each run's reader or writer (from the budget).
    buffer: usize,
}

/// One entry of a run.
pub type Entry<'a> = (u64, &'a [u8], u64);

/// The order of runs and candidates: fingerprint, then content.
pub fn order(a: (u64, &[u8]), b: (u64, &[u8])) -> Ordering {
    a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1))
}

/// Reads one run in order.
struct Cursor {
    path: PathBuf,
    reader: BufReader<File>,
    entry: Vec<u8>,
    live: bool,
}

impl Cursor {
    fn open(path: &Path, slot: usize, buffer: usize) -> Result<Cursor, ClusterError> {
        let file = File::open(path).map_err(io(path))?;
        let mut c = Cursor {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(buffer, file),
            entry: vec![0; 16 + slot],
            live: true,
        };
        c.advance()?;
        Ok(c)
    }

    fn advance(&mut self) -> Result<(), ClusterError> {
        match self.reader.read_exact(&mut self.entry) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.live = false;
                Ok(())
            }
            Err(e) => Err(io(&self.path)(e)),
        }
    }

    fn hash(&self) -> u64 {
        word(&self.entry[..8])
    }

    fn record(&self) -> &[u8] {
        &self.entry[8..self.entry.len() - 8]
    }

    fn id(&self) -> u64 {
        word(&self.entry[self.entry.len() - 8..])
    }
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

impl Spilled {
    /// No run yet, in a fresh scratch folder `dir`; each run is read and
    /// written through a buffer of `buffer` bytes.
    pub fn new(dir: &Path, slot: usize, buffer: usize) -> Result<Spilled, ClusterError> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(io(dir))?;
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        Ok(Spilled {
            dir: dir.to_path_buf(),
            slot,
            runs: Vec::new(),
            made: 0,
            buffer,
        })
    }

    /// The most memory the runs' buffers take at once: a compaction's
    /// readers and writer, or a lookup's readers.
    pub fn bytes(&self) -> u64 {
        ((MOST_RUNS + 2) * self.buffer) as u64
    }

    /// Writes `entries`, already in [`order`], as a new run.
    pub fn add_run<'a>(
        &mut self,
        entries: impl IntoIterator<Item = Entry<'a>>,
    ) -> Result<(), ClusterError> {
        let path = self.dir.join(format!("run-{:06}", self.made));
        self.made += 1;
        let file = File::create(&path).map_err(io(&path))?;
        let mut w = BufWriter::with_capacity(self.buffer, file);
        for (hash, record, id) in entries {
            w.write_all(&hash.to_le_bytes())
                .and_then(|()| w.write_all(record))
                .and_then(|()| w.write_all(&id.to_le_bytes()))
                .map_err(io(&path))?;
        }
        w.flush().map_err(io(&path))?;
        self.runs.push(path);
        Ok(())
    }

    /// The ids of `wanted` (in [`order`], no two equal), `None` for states
    /// no run holds: one pass over every run.
    pub fn lookup(&mut self, wanted: &[(u64, &[u8])]) -> Result<Vec<Option<u64>>, ClusterError> {
        if self.runs.len() > MOST_RUNS {
            self.compact()?;
        }
        let mut cursors = self
            .runs
            .iter()
            .map(|p| Cursor::open(p, self.slot, self.buffer))
            .collect::<Result<Vec<_>, _>>()?;
        let mut found = Vec::with_capacity(wanted.len());
        for &(hash, record) in wanted {
            let mut id = None;
            for c in cursors.iter_mut() {
                while c.live && order((c.hash(), c.record()), (hash, record)) == Ordering::Less {
                    c.advance()?;
                }
                if c.live && c.hash() == hash && c.record() == record {
                    id = Some(c.id());
                }
            }
            found.push(id);
        }
        Ok(found)
    }

    /// Deletes the runs and their folder.
    pub fn remove(self) -> Result<(), ClusterError> {
        std::fs::remove_dir_all(&self.dir).map_err(io(&self.dir))
    }

    /// Merges every run into one.
    fn compact(&mut self) -> Result<(), ClusterError> {
        let mut cursors = self
            .runs
            .iter()
            .map(|p| Cursor::open(p, self.slot, self.buffer))
            .collect::<Result<Vec<_>, _>>()?;
        let path = self.dir.join(format!("run-{:06}", self.made));
        self.made += 1;
        let file = File::create(&path).map_err(io(&path))?;
        let mut w = BufWriter::with_capacity(self.buffer, file);
        loop {
            let next = (0..cursors.len())
                .filter(|&k| cursors[k].live)
                .min_by(|&a, &b| {
                    let (ca, cb) = (&cursors[a], &cursors[b]);
                    order((ca.hash(), ca.record()), (cb.hash(), cb.record()))
                });
            let Some(k) = next else { break };
            w.write_all(&cursors[k].entry).map_err(io(&path))?;
            cursors[k].advance()?;
        }
        w.flush().map_err(io(&path))?;
        for old in std::mem::take(&mut self.runs) {
            std::fs::remove_file(&old).map_err(io(&old))?;
        }
        self.runs.push(path);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{fingerprint, OwnedIndex};

    #[test]
    fn finds_states_across_runs_and_after_compaction() {
        let tmp = tempfile::tempdir().unwrap();
        let mut spilled = Spilled::new(&tmp.path().join("scratch"), 2, 4096).unwrap();
        let records: Vec<[u8; 2]> = (0..2000u16).map(|i| i.to_le_bytes()).collect();
        for chunk in 0..10 {
            let mut index = OwnedIndex::new(2);
            for (i, r) in records.iter().enumerate().skip(chunk * 100).take(100) {
                index.insert(r, fingerprint(r), i as u64 + 7).unwrap();
            }
            spilled.add_run(index.into_run_order().entries()).unwrap();
        }
        let mut wanted: Vec<(u64, &[u8])> =
            records.iter().map(|r| (fingerprint(r), &r[..])).collect();
        wanted.sort_by(|a, b| order(*a, *b));
        for _ in 0..2 {
            let found = spilled.lookup(&wanted).unwrap();
            for (&(_, r), id) in wanted.iter().zip(found) {
                let i = u16::from_le_bytes([r[0], r[1]]) as u64;
                assert_eq!(id, (i < 1000).then_some(i + 7), "state {i}");
            }
        }
        assert_eq!(spilled.runs.len(), 1, "ten runs were merged into one");
    }
}
