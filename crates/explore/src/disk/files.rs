//! Scratch-file helpers for disk-based duplicate detection: sorting fixed-size
//! entries, writing and reading them sequentially, merging sorted files.

use crate::ExploreError;
use std::fs::{self, File};
use std::io::{BufReader, Read, Write};
use std::path::Path;

use super::parallel::{merge_pieces, sort_pieces};
use super::{io_err, IO_BUF};

/// Creates `dir` if needed and removes every file in it.
pub fn clear_dir(dir: &Path) -> Result<(), ExploreError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    for entry in fs::read_dir(dir).map_err(io_err(dir))? {
        let path = entry.map_err(io_err(dir))?.path();
        fs::remove_file(&path).map_err(io_err(&path))?;
    }
    Ok(())
}

/// Writes `bytes` to a new scratch file that no checkpoint names (a round's
/// spilled candidates), so it needs no sync.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ExploreError> {
    let mut file = File::create(path).map_err(io_err(path))?;
    file.write_all(bytes).map_err(io_err(path))
}

/// Makes a new scratch file durable, its data and its name, so that a checkpoint
/// may name it: a power cut after that checkpoint must find it (announced to the
/// store's durability observer, for the power-loss tests).
pub fn sync_new_file(file: &File, path: &Path) -> Result<(), ExploreError> {
    use store::durability::{note, SyncEvent};
    note(SyncEvent::Syncing(path));
    file.sync_data().map_err(io_err(path))?;
    note(SyncEvent::Synced(path));
    // The file's name is durable only once its folder is synced: without this, a power
    // cut after a checkpoint could lose runs it names (473 of 900 power-loss images of a
    // disk-phase exploration could not resume).
    if let Some(dir) = path.parent() {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io_err(dir))?;
        note(SyncEvent::DirSynced(dir));
    }
    Ok(())
}

/// Sorts the `entry`-byte entries of `buf` by their first `key` bytes,
/// compared as unsigned byte strings, on `threads` threads: pieces sorted side
/// by side, then merged on the calling thread (a round's sort was a tenth of
/// the disk phase's time on room4 under `--mem 128M`, all on one core).
pub fn sort_entries(buf: &mut Vec<u8>, entry: usize, key: usize, threads: usize) {
    let n = buf.len() / entry;
    if entry <= 16 {
        // Whole entries fit a u128 compared as big-endian bytes: sort those,
        // with no index vector, and merge them back into the buffer.
        let mut words: Vec<u128> = buf
            .chunks_exact(entry)
            .map(|e| {
                let mut word = [0u8; 16];
                word[..entry].copy_from_slice(e);
                u128::from_be_bytes(word)
            })
            .collect();
        let shift = 8 * (16 - key) as u32;
        let bounds = sort_pieces(&mut words, threads, |piece| {
            piece.sort_unstable_by_key(|&w| w >> shift)
        });
        let mut out = buf.chunks_exact_mut(entry);
        merge_pieces(
            &bounds,
            |a, b| words[a] >> shift < words[b] >> shift,
            |i| {
                if let Some(slot) = out.next() {
                    slot.copy_from_slice(&words[i].to_be_bytes()[..entry]);
                }
            },
        );
        return;
    }
    let mut idx: Vec<u32> = (0..n as u32).collect();
    let key_of = |i: u32| &buf[i as usize * entry..i as usize * entry + key];
    let bounds = sort_pieces(&mut idx, threads, |piece| {
        piece.sort_unstable_by(|&a, &b| key_of(a).cmp(key_of(b)))
    });
    let mut sorted = Vec::with_capacity(buf.len());
    merge_pieces(
        &bounds,
        |a, b| key_of(idx[a]) < key_of(idx[b]),
        |i| {
            let at = idx[i] as usize * entry;
            sorted.extend_from_slice(&buf[at..at + entry]);
        },
    );
    *buf = sorted;
}

/// Reads fixed-size entries from a file sequentially, a large chunk at a
/// time, so that stepping to the next entry is an index increment.
pub struct EntryReader {
    reader: BufReader<File>,
    left: u64,
    size: usize,
    chunk: Vec<u8>,
    at: usize,
}

impl EntryReader {
    /// Opens a file of `entries` entries of `size` bytes.
    pub fn open(path: &Path, entries: u64, size: usize) -> Result<EntryReader, ExploreError> {
        let file = File::open(path).map_err(io_err(path))?;
        Ok(EntryReader {
            reader: BufReader::with_capacity(64 * 1024, file),
            left: entries,
            size,
            chunk: Vec::new(),
            at: 0,
        })
    }

    /// The current entry; valid after [`EntryReader::next`] returned true.
    #[inline]
    pub fn entry(&self) -> &[u8] {
        &self.chunk[self.at..self.at + self.size]
    }

    /// Moves to the next entry; false at the end.
    #[inline]
    pub fn next(&mut self, path: &Path) -> Result<bool, ExploreError> {
        self.at += self.size;
        if self.at < self.chunk.len() {
            return Ok(true);
        }
        if self.left == 0 {
            return Ok(false);
        }
        let n = self.left.min((IO_BUF / self.size) as u64);
        self.left -= n;
        self.chunk.resize(n as usize * self.size, 0);
        self.reader
            .read_exact(&mut self.chunk)
            .map_err(io_err(path))?;
        self.at = 0;
        Ok(true)
    }
}

/// A k-way merge of sorted entry files and one sorted in-memory buffer.
/// The few inputs (a handful of runs) are compared directly at each step,
/// which needs no allocation per entry.
pub struct Merge<'a> {
    files: Vec<(&'a Path, EntryReader, bool)>,
    memory: &'a [u8],
    at: usize,
    size: usize,
    current: Option<usize>,
}

impl<'a> Merge<'a> {
    /// Merges `files` (path, entry count) and `memory`, all sorted.
    pub fn new(
        files: &'a [(std::path::PathBuf, u64)],
        memory: &'a [u8],
        size: usize,
    ) -> Result<Merge<'a>, ExploreError> {
        let mut readers = Vec::new();
        for (path, n) in files {
            let mut reader = EntryReader::open(path, *n, size)?;
            let live = reader.next(path)?;
            readers.push((path.as_path(), reader, live));
        }
        Ok(Merge {
            files: readers,
            memory,
            at: 0,
            size,
            current: None,
        })
    }

    fn head(&self, source: usize) -> Option<&[u8]> {
        match self.files.get(source) {
            Some((_, reader, live)) => live.then(|| reader.entry()),
            None => self.memory.get(self.at..self.at + self.size),
        }
    }

    fn advance(&mut self, source: usize) -> Result<(), ExploreError> {
        match self.files.get_mut(source) {
            Some((path, reader, live)) => *live = reader.next(path)?,
            None => self.at += self.size,
        }
        Ok(())
    }

    /// The next smallest entry, or `None` when every input is drained.
    pub fn next_entry(&mut self) -> Result<Option<&[u8]>, ExploreError> {
        if let Some(source) = self.current.take() {
            self.advance(source)?;
        }
        let mut best: Option<(usize, &[u8])> = None;
        for source in 0..=self.files.len() {
            if let Some(head) = self.head(source) {
                if best.is_none_or(|(_, b)| head < b) {
                    best = Some((source, head));
                }
            }
        }
        let Some((source, _)) = best else {
            return Ok(None);
        };
        self.current = Some(source);
        Ok(self.head(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_sort_by_their_key_bytes() {
        for (entry, threads) in [3usize, 13, 20].into_iter().flat_map(|e| [(e, 1), (e, 3)]) {
            let key = entry - 2;
            let mut buf: Vec<u8> = (0..600u32)
                .flat_map(|i| (0..entry).map(move |j| ((i * 7919 + j as u32 * 31) % 251) as u8))
                .collect();
            let mut expected: Vec<Vec<u8>> = buf.chunks(entry).map(<[u8]>::to_vec).collect();
            expected.sort_by(|a, b| a[..key].cmp(&b[..key]));
            sort_entries(&mut buf, entry, key, threads);
            let got: Vec<Vec<u8>> = buf.chunks(entry).map(<[u8]>::to_vec).collect();
            let keys = |v: &[Vec<u8>]| v.iter().map(|e| e[..key].to_vec()).collect::<Vec<_>>();
            assert_eq!(keys(&got), keys(&expected), "entry {entry}");
            let mut all_got = got.clone();
            let mut all_expected = expected.clone();
            all_got.sort();
            all_expected.sort();
            assert_eq!(all_got, all_expected);
        }
    }
}
