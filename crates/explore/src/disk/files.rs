//! Scratch-file helpers for disk-based duplicate detection: sorting fixed-size
//! entries, writing and reading them sequentially, merging sorted files.

use crate::ExploreError;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::{self, File};
use std::io::{BufReader, Read, Write};
use std::path::Path;

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

/// Writes `bytes` to a new file and syncs it, so a checkpoint may name it.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ExploreError> {
    let mut file = File::create(path).map_err(io_err(path))?;
    file.write_all(bytes).map_err(io_err(path))?;
    file.sync_data().map_err(io_err(path))
}

/// Sorts the `entry`-byte entries of `buf` by their first `key` bytes,
/// compared as unsigned byte strings.
pub fn sort_entries(buf: &mut Vec<u8>, entry: usize, key: usize) {
    let n = buf.len() / entry;
    let mut order: Vec<(u128, u32)> = Vec::new();
    let mut idx: Vec<u32> = Vec::new();
    if key <= 16 {
        order = (0..n)
            .map(|i| {
                let mut word = [0u8; 16];
                word[..key].copy_from_slice(&buf[i * entry..i * entry + key]);
                (u128::from_be_bytes(word), i as u32)
            })
            .collect();
        order.sort_unstable();
    } else {
        idx = (0..n as u32).collect();
        idx.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize * entry, b as usize * entry);
            buf[a..a + key].cmp(&buf[b..b + key])
        });
    }
    let perm = order.iter().map(|&(_, i)| i).chain(idx);
    let mut sorted = Vec::with_capacity(buf.len());
    for i in perm {
        let at = i as usize * entry;
        sorted.extend_from_slice(&buf[at..at + entry]);
    }
    *buf = sorted;
}

/// Reads fixed-size entries from a file, one at a time.
pub struct EntryReader {
    reader: BufReader<File>,
    left: u64,
    /// The current entry; valid while [`EntryReader::next`] returned true.
    pub entry: Vec<u8>,
}

impl EntryReader {
    /// Opens a file of `entries` entries of `size` bytes.
    pub fn open(path: &Path, entries: u64, size: usize) -> Result<EntryReader, ExploreError> {
        let file = File::open(path).map_err(io_err(path))?;
        Ok(EntryReader {
            reader: BufReader::with_capacity(IO_BUF, file),
            left: entries,
            entry: vec![0; size],
        })
    }

    /// Moves to the next entry; false at the end.
    pub fn next(&mut self, path: &Path) -> Result<bool, ExploreError> {
        if self.left == 0 {
            return Ok(false);
        }
        self.left -= 1;
        self.reader
            .read_exact(&mut self.entry)
            .map_err(io_err(path))?;
        Ok(true)
    }
}

struct Head {
    entry: Vec<u8>,
    source: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Head {}
impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head {
    /// Reversed, so that the max-heap yields the smallest entry first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .entry
            .cmp(&self.entry)
            .then(other.source.cmp(&self.source))
    }
}

/// A k-way merge of sorted entry files and one sorted in-memory buffer.
pub struct Merge<'a> {
    files: Vec<(&'a Path, EntryReader)>,
    memory: &'a [u8],
    size: usize,
    heap: BinaryHeap<Head>,
}

impl<'a> Merge<'a> {
    /// Merges `files` (path, entry count) and `memory`, all sorted.
    pub fn new(
        files: &'a [(std::path::PathBuf, u64)],
        memory: &'a [u8],
        size: usize,
    ) -> Result<Merge<'a>, ExploreError> {
        let mut merge = Merge {
            files: Vec::new(),
            memory,
            size,
            heap: BinaryHeap::new(),
        };
        for (path, n) in files {
            merge
                .files
                .push((path.as_path(), EntryReader::open(path, *n, size)?));
        }
        for source in 0..=merge.files.len() {
            merge.refill(source)?;
        }
        Ok(merge)
    }

    fn refill(&mut self, source: usize) -> Result<(), ExploreError> {
        if source == self.files.len() {
            if self.memory.len() >= self.size {
                let (head, rest) = self.memory.split_at(self.size);
                self.memory = rest;
                self.heap.push(Head {
                    entry: head.to_vec(),
                    source,
                });
            }
            return Ok(());
        }
        let (path, reader) = &mut self.files[source];
        if reader.next(path)? {
            let entry = reader.entry.clone();
            self.heap.push(Head { entry, source });
        }
        Ok(())
    }

    /// The next smallest entry, or `None` when every input is drained.
    pub fn next_entry(&mut self) -> Result<Option<Vec<u8>>, ExploreError> {
        let Some(head) = self.heap.pop() else {
            return Ok(None);
        };
        self.refill(head.source)?;
        Ok(Some(head.entry))
    }
}
