//! Scratch-file helpers for disk-based duplicate detection: sorting fixed-size
//! entries, writing and reading them sequentially, merging sorted files.

use crate::ExploreError;
use std::fs::{self, File};
use std::io::{BufReader, Read, Write};
use std::path::Path;

use super::parallel::{merge_pieces, merge_words_into, sort_pieces};
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

/// Sorts a round's candidate entries (a `width`-byte record, then its
/// sequence number, below `seq_end`, as 8 big-endian bytes) by record, then
/// sequence number, as [`sort_entries`] does. When a record and the
/// sequence numbers' significant bits fit one 64-bit word (room4: 5 bytes
/// and 20 bits), the entries are sorted as such words, half the bytes of
/// [`sort_entries`]'s, and merged back on every thread.
pub fn sort_candidates(buf: &mut [u8], width: usize, seq_end: u64, threads: usize) -> bool {
    let entry = width + 8;
    let seq_bits = u64::BITS - seq_end.saturating_sub(1).leading_zeros();
    if width == 0 || 8 * width as u32 + seq_bits > 64 {
        return false;
    }
    let mask = (1u64 << seq_bits) - 1;
    let word_at = |e: &[u8], at: usize| {
        e.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_be_bytes)
    };
    let record_shift = 8 * (8 - width as u32);
    let mut words: Vec<u64> = buf
        .chunks_exact(entry)
        .map(|e| ((word_at(e, 0) >> record_shift) << seq_bits) | word_at(e, width))
        .collect();
    let bounds = sort_pieces(&mut words, threads, |piece| piece.sort_unstable());
    merge_words_into(&words, &bounds, threads, buf, entry, |w, place| {
        // The record's bytes, then the sequence number over the zeros
        // after them: two stores of eight bytes.
        let record = (w >> seq_bits) << record_shift;
        if let Some(bytes) = place.get_mut(..8) {
            bytes.copy_from_slice(&record.to_be_bytes());
        }
        if let Some(bytes) = place.get_mut(width..width + 8) {
            bytes.copy_from_slice(&(w & mask).to_be_bytes());
        }
    });
    true
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
/// The few inputs (a handful of runs, a dozen chunks for the first run) are
/// compared directly at each step, by the first 16 bytes of their heads as
/// one number: compared as byte strings, every step called `memcmp` once an
/// input, which made the first run's merge of room4 under `--mem 128M` (13
/// chunks) a large part of the switch to disk.
pub struct Merge<'a> {
    files: Vec<(&'a Path, EntryReader, bool)>,
    memory: &'a [u8],
    at: usize,
    size: usize,
    /// Each input's [`head_key`], the memory's last; `None` once drained.
    keys: Vec<Option<u128>>,
    current: Option<usize>,
}

/// The first 16 bytes of an entry as a big-endian number, zeros past its
/// end: entries of one size compare as their keys do, but for a tie of
/// entries longer than 16 bytes. Loaded with fixed-size reads (a copy of a
/// variable length is a call).
#[inline]
fn head_key(entry: &[u8]) -> u128 {
    let len = entry.len();
    let word = |at: usize| {
        entry
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_be_bytes)
    };
    if len >= 16 {
        return (u128::from(word(0)) << 64) | u128::from(word(8));
    }
    if len > 8 {
        // The last eight bytes hold bytes 8..len as their low ones.
        let low = word(len - 8) << (8 * (16 - len));
        return (u128::from(word(0)) << 64) | u128::from(low);
    }
    let mut bytes = [0u8; 16];
    bytes[..len].copy_from_slice(entry);
    u128::from_be_bytes(bytes)
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
        let mut merge = Merge {
            keys: vec![None; readers.len() + 1],
            files: readers,
            memory,
            at: 0,
            size,
            current: None,
        };
        for source in 0..merge.keys.len() {
            merge.keys[source] = merge.head(source).map(head_key);
        }
        Ok(merge)
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
        self.keys[source] = self.head(source).map(head_key);
        Ok(())
    }

    /// True when the head of `a` (whose key is `key`) comes before that of
    /// `b` (`best`): by their keys, then, for a tie of long entries, by the
    /// rest of their bytes.
    fn before(&self, a: usize, key: u128, b: usize, best: u128) -> bool {
        if key != best || self.size <= 16 {
            return key < best;
        }
        match (self.head(a), self.head(b)) {
            (Some(x), Some(y)) => x[16..] < y[16..],
            _ => false,
        }
    }

    /// The next smallest entry, or `None` when every input is drained. Of
    /// equal entries, the earliest input's comes first.
    pub fn next_entry(&mut self) -> Result<Option<&[u8]>, ExploreError> {
        if let Some(source) = self.current.take() {
            self.advance(source)?;
        }
        let mut best: Option<(usize, u128)> = None;
        for (source, key) in self.keys.iter().enumerate() {
            let Some(key) = *key else { continue };
            if best.is_none_or(|(b, best)| self.before(source, key, b, best)) {
                best = Some((source, key));
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

    proptest::proptest! {
        /// Keys order entries of one size as their bytes do, ties only for
        /// equal entries or long ones equal in their first 16 bytes.
        #[test]
        fn head_keys_order_entries_as_their_bytes(
            size in 1usize..24,
            a in proptest::collection::vec(0u8..4, 24),
            b in proptest::collection::vec(0u8..4, 24),
        ) {
            let (a, b) = (&a[..size], &b[..size]);
            let (ka, kb) = (head_key(a), head_key(b));
            match ka.cmp(&kb) {
                std::cmp::Ordering::Equal => proptest::prop_assert!(size > 16 || a == b),
                order => proptest::prop_assert_eq!(order, a.cmp(b)),
            }
        }
    }

    /// Files merged give every entry in order, for entries short and long
    /// (past 16 bytes the tie-break on the rest decides).
    #[test]
    fn merged_files_give_their_entries_in_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        for size in [9usize, 13, 16, 20] {
            let mut all = Vec::new();
            let mut files = Vec::new();
            for f in 0..5u32 {
                let mut entries: Vec<Vec<u8>> = (0..300u32)
                    .map(|i| {
                        let v = (i * 7919 + f * 104_729) % 1_000;
                        // Long entries share their first 16 bytes often.
                        let mut e = vec![0u8; size];
                        e[size - 4..].copy_from_slice(&v.to_be_bytes());
                        e[0] = (v % 3) as u8;
                        e
                    })
                    .collect();
                entries.sort();
                let path = dir.path().join(format!("{size}-{f}"));
                std::fs::write(&path, entries.concat()).expect("write");
                files.push((path, entries.len() as u64));
                all.extend(entries);
            }
            all.sort();
            let mut merge = Merge::new(&files, &[], size).expect("merge");
            let mut got = Vec::new();
            while let Some(e) = merge.next_entry().expect("next") {
                got.push(e.to_vec());
            }
            assert_eq!(got, all, "entries of {size} bytes");
        }
    }

    proptest::proptest! {
        /// Candidates sorted as words come out as [`sort_entries`] sorts
        /// them, on any count of threads; too wide ones are left to it.
        #[test]
        fn candidates_sort_as_entries_do(
            width in 1usize..10,
            records in proptest::collection::vec(0u64..40, 0..500),
            threads in 1usize..4,
        ) {
            let entry = width + 8;
            let mut buf = Vec::new();
            for (seq, r) in records.iter().enumerate() {
                let bytes = (r << 3).to_be_bytes();
                let mut record = vec![0u8; width];
                let n = width.min(8);
                record[width - n..].copy_from_slice(&bytes[8 - n..]);
                buf.extend_from_slice(&record);
                buf.extend_from_slice(&(seq as u64).to_be_bytes());
            }
            let mut expected = buf.clone();
            sort_entries(&mut expected, entry, entry, 1);
            let seq_end = records.len() as u64;
            let packed = sort_candidates(&mut buf, width, seq_end, threads);
            let seq_bits = u64::BITS - seq_end.saturating_sub(1).leading_zeros();
            proptest::prop_assert_eq!(packed, 8 * width as u32 + seq_bits <= 64);
            if packed {
                proptest::prop_assert_eq!(buf, expected);
            }
        }
    }

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
