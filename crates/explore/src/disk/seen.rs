//! One Bloom filter over every state the visited runs hold, checked before
//! any run's own filter: most of a round's candidates are new states, and a
//! new state had to pass the filter of every run (about seven on room4
//! under `--mem 128M`), each check a gallop through the run's fences and a
//! line of a filter of megabytes, before it was known to be new. One check
//! here rules most of them out; only the candidates it lets through (the old
//! states and its false positives) go on to the runs' filters and blocks.
//!
//! It is placed by the hash alone, not in the runs' order: it answers for
//! every run at once, and a round's candidates check it at random. Its
//! lines are checked a batch at a time after prefetching them all, so that
//! their misses overlap (under `--mem 128M` it is 16 MiB, within the
//! processor's last-level cache). States are only ever added (a visited
//! state stays visited), so it never needs rebuilding as runs merge.

use super::probe::record_hash;
use super::{io_err, IO_BUF};
use crate::ExploreError;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use store::Words;

/// Bits a key sets in its line.
const PROBES: u32 = 3;
/// Words in a 512-bit line: a key's bits lie in one cache line.
const LINE_WORDS: usize = 8;
/// Keys whose lines are prefetched before the first of them is set.
const INSERT_BATCH: usize = 32;

/// A blocked Bloom filter of the visited states' [`record_hash`]es, in
/// memory with huge pages requested (checked at random, a filter of
/// megabytes in 4 KiB pages missed the TLB on most checks: the prefetch of
/// its line was a tenth of the lookups' time on room4 under `--mem 128M`).
/// With no lines it holds nothing back (every record may have been seen).
#[derive(Default)]
pub struct Seen {
    words: Option<Words>,
    lines: usize,
}

impl Seen {
    /// A filter of about `bytes` bytes (a whole count of 64-byte lines).
    /// Memory the system refuses leaves it empty: it then rules nothing
    /// out, and the lookups stay right, only slower.
    pub fn new(bytes: u64) -> Seen {
        let lines = (bytes / 64) as usize;
        match Words::zeroed(lines * LINE_WORDS) {
            Ok(words) => Seen {
                words: Some(words),
                lines,
            },
            Err(_) => Seen::default(),
        }
    }

    /// The words of the lines.
    #[inline]
    fn words(&self) -> &[u64] {
        self.words.as_ref().map_or(&[], Words::as_slice)
    }

    /// The first word of the line of a key whose record hash is `hash` and
    /// the bits it sets there (nine bits a probe). The hash is mixed again
    /// first, so that its place here is independent of its place in the
    /// runs' filters, which take its top bits and another mix of it.
    #[inline]
    fn at(&self, hash: u64) -> (usize, u64) {
        let mixed = (hash ^ (hash >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let line = (u128::from(mixed) * self.lines as u128) >> 64;
        (line as usize * LINE_WORDS, mixed)
    }

    /// Adds the key whose record hash is `hash`.
    #[inline]
    fn insert(&mut self, hash: u64) {
        let (first, mut bits) = self.at(hash);
        let Some(words) = self.words.as_mut() else {
            return;
        };
        let Some(line) = words.as_mut_slice().get_mut(first..first + LINE_WORDS) else {
            return;
        };
        for _ in 0..PROBES {
            let bit = (bits & 511) as usize;
            line[bit / 64] |= 1 << (bit % 64);
            bits >>= 9;
        }
    }

    /// Adds `records`, a batch at a time: every line of a batch is
    /// prefetched before any is set, so that their misses overlap (one
    /// after the other, each insert waited for its line).
    pub fn insert_records<'r>(&mut self, records: impl Iterator<Item = &'r [u8]>) {
        if self.lines == 0 {
            return;
        }
        let mut batch = [0u64; INSERT_BATCH];
        let mut n = 0;
        for record in records {
            let hash = record_hash(record);
            self.prefetch(hash);
            batch[n] = hash;
            n += 1;
            if n == INSERT_BATCH {
                batch.iter().for_each(|&h| self.insert(h));
                n = 0;
            }
        }
        batch[..n].iter().for_each(|&h| self.insert(h));
    }

    /// Adds the records of the entry files `files` (each a path and its
    /// count of entries: a `width`-byte record, then an 8-byte id), read a
    /// slice at a time.
    pub fn insert_entry_files(
        &mut self,
        files: &[(PathBuf, u64)],
        width: usize,
    ) -> Result<(), ExploreError> {
        let entry = width + 8;
        let mut buf = vec![0u8; IO_BUF / entry * entry];
        for (path, entries) in files {
            let mut file = File::open(path).map_err(io_err(path))?;
            let mut left = entries * entry as u64;
            while left > 0 {
                let n = left.min(buf.len() as u64) as usize;
                let slice = &mut buf[..n];
                file.read_exact(slice).map_err(io_err(path))?;
                self.insert_records(slice.chunks_exact(entry).map(|e| &e[..width]));
                left -= slice.len() as u64;
            }
        }
        Ok(())
    }

    /// Starts loading the line of `hash`, so that a batch's misses overlap.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if self.lines > 0 {
            store::prefetch(self.words(), self.at(hash).0);
        }
    }

    /// False when no state added had the hash `hash`; true when one may have.
    #[inline]
    pub fn may_contain(&self, hash: u64) -> bool {
        if self.lines == 0 {
            return true;
        }
        let (first, mut bits) = self.at(hash);
        let Some(line) = self.words().get(first..first + LINE_WORDS) else {
            return true;
        };
        let mut all = true;
        // Every probe is tested, without an early exit: the three loads
        // hit one cache line, and a branch a probe mispredicts more often
        // than the extra tests cost.
        for _ in 0..PROBES {
            let bit = (bits & 511) as usize;
            all &= line[bit / 64] & (1 << (bit % 64)) != 0;
            bits >>= 9;
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key added is found; keys never added are mostly ruled out at
    /// ten bits a key, and an empty filter rules nothing out.
    #[test]
    fn holds_every_key_added_and_rules_most_others_out() {
        let keys = 20_000u64;
        let mut seen = Seen::new(keys * 10 / 8);
        let records: Vec<[u8; 8]> = (0..keys).map(u64::to_le_bytes).collect();
        seen.insert_records(records.iter().map(|r| &r[..]));
        assert!((0..keys).all(|k| seen.may_contain(record_hash(&k.to_le_bytes()))));
        let others = (keys..keys * 2)
            .filter(|k| seen.may_contain(record_hash(&k.to_le_bytes())))
            .count();
        // About 1.7% for three probes at ten bits a key in 512-bit lines.
        assert!(others < keys as usize / 25, "{others} false positives");
        let empty = Seen::new(0);
        assert!(empty.may_contain(record_hash(b"any")));
    }

    /// The records of entry files are added, and only they: the ids beside
    /// them are not taken for records.
    #[test]
    fn entry_files_add_their_records() {
        let dir = tempfile::tempdir().expect("temp dir");
        let width = 5;
        let record = |k: u64| k.to_be_bytes()[3..].to_vec();
        let mut files = Vec::new();
        for f in 0..3u64 {
            let keys: Vec<u64> = (0..50_000).map(|i| i * 7 + f).collect();
            let mut bytes = Vec::new();
            for &k in &keys {
                bytes.extend_from_slice(&record(k));
                bytes.extend_from_slice(&(k + (1 << 40)).to_le_bytes());
            }
            let path = dir.path().join(format!("chunk-{f}"));
            std::fs::write(&path, bytes).expect("write");
            files.push((path, keys.len() as u64));
        }
        let mut seen = Seen::new(150_000 * 10 / 8);
        seen.insert_entry_files(&files, width).expect("insert");
        let held = |k: u64| seen.may_contain(record_hash(&record(k)));
        assert!((0..50_000u64).all(|i| (0..3).all(|f| held(i * 7 + f))));
        let others = (0..50_000u64).filter(|&i| held(i * 7 + 5)).count();
        assert!(others < 2_000, "{others} false positives");
    }
}
