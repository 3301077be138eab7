//! Memory-mapped bit tables: one file holding a bit per index (e.g. per
//! ranked board of a retrograde analysis), written by many threads at once
//! and read back at random. Tables larger than RAM work because the kernel
//! pages them in and out.
//!
//! Layout: a 64-byte header (magic `HSGBITS\0`, version, a finished flag,
//! the length in bits, the xxh3-64 of the data bytes, and a kind string of
//! at most 32 bytes) followed by the bits as little-endian u64 words, bit i
//! in word i / 64 at position i % 64. The checksum and the finished flag are
//! written by [`BitTableWriter::finish`]; [`BitTable::open`] refuses a table
//! that was never finished, of another kind or length, or whose checksum fails.

use crate::error::{corrupt, io, StoreError};
use memmap2::{Mmap, MmapMut};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"HSGBITS\0";
const VERSION: u32 = 1;
const HEADER: usize = 64;
const KIND_LEN: usize = 32;

fn word_count(bits: u64) -> usize {
    bits.div_ceil(64) as usize
}

/// The header of a table file.
struct Header {
    finished: bool,
    bits: u64,
    checksum: u64,
    kind: String,
}

impl Header {
    fn encode(&self) -> [u8; HEADER] {
        let mut out = [0u8; HEADER];
        out[..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&VERSION.to_le_bytes());
        out[12..16].copy_from_slice(&u32::from(self.finished).to_le_bytes());
        out[16..24].copy_from_slice(&self.bits.to_le_bytes());
        out[24..32].copy_from_slice(&self.checksum.to_le_bytes());
        out[32..32 + self.kind.len()].copy_from_slice(self.kind.as_bytes());
        out
    }

    fn decode(path: &Path, bytes: &[u8]) -> Result<Header, StoreError> {
        let field = |at: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(word)
        };
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(corrupt(
                path,
                "not a bit table (bad magic or shorter than its header)",
            ));
        }
        let version = field(8) as u32;
        if version != VERSION {
            return Err(corrupt(
                path,
                format!("bit table version {version}, expected {VERSION}"),
            ));
        }
        let kind_bytes = &bytes[32..HEADER];
        let end = kind_bytes.iter().position(|&b| b == 0).unwrap_or(KIND_LEN);
        let kind = std::str::from_utf8(&kind_bytes[..end])
            .map_err(|_| corrupt(path, "the bit table's kind is not UTF-8"))?;
        Ok(Header {
            finished: field(8) >> 32 == 1,
            bits: field(16),
            checksum: field(24),
            kind: kind.to_string(),
        })
    }
}

/// A bit table being written; shared by reference between writer threads.
pub struct BitTableWriter {
    path: PathBuf,
    kind: String,
    bits: u64,
    map: MmapMut,
    words: *const AtomicU64,
    len: usize,
}

// SAFETY: the only shared access to the mapped words goes through `AtomicU64`
// (the raw pointer is never turned into a plain `&[u64]` while shared), and
// the map itself is owned by the writer, so moving or sharing it between
// threads is as safe as sharing a `[AtomicU64]`.
unsafe impl Send for BitTableWriter {}
// SAFETY: see `Send`: every access through `&self` is atomic.
unsafe impl Sync for BitTableWriter {}

impl BitTableWriter {
    /// Creates (or truncates) `path` as an all-zero table of `bits` bits of
    /// the given `kind` (at most 32 bytes, e.g. `fling-solvable-8`).
    pub fn create(path: &Path, kind: &str, bits: u64) -> Result<BitTableWriter, StoreError> {
        if kind.len() > KIND_LEN || kind.contains('\0') {
            return Err(StoreError::Misuse(format!(
                "bit table kind {kind:?} is longer than {KIND_LEN} bytes"
            )));
        }
        let len = word_count(bits);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(io(path))?;
        file.set_len((HEADER + len * 8) as u64).map_err(io(path))?;
        // SAFETY: the file was just created (truncated) by us and is sized
        // before mapping; nothing else writes it while the writer lives (the
        // table's owner keeps one writer per file).
        let mut map = unsafe { MmapMut::map_mut(&file) }.map_err(io(path))?;
        let header = Header {
            finished: false,
            bits,
            checksum: 0,
            kind: kind.to_string(),
        };
        map[..HEADER].copy_from_slice(&header.encode());
        // The data starts 64 bytes into a page-aligned map, so it is 8-aligned.
        let words = map[HEADER..].as_mut_ptr() as *const AtomicU64;
        Ok(BitTableWriter {
            path: path.to_path_buf(),
            kind: kind.to_string(),
            bits,
            map,
            words,
            len,
        })
    }

    /// Reopens the unfinished table `path` of this `kind` and length, keeping
    /// the words already stored (a build interrupted even by kill -9 leaves
    /// them in the file: a shared mapping's pages outlive the process), or
    /// creates it as [`create`](Self::create) does when the file is missing.
    /// Returns the writer and whether an earlier table was resumed. A file of
    /// another kind or length, a finished one or one that is no bit table is
    /// refused rather than overwritten.
    pub fn resume(
        path: &Path,
        kind: &str,
        bits: u64,
    ) -> Result<(BitTableWriter, bool), StoreError> {
        let file = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((BitTableWriter::create(path, kind, bits)?, false));
            }
            Err(e) => return Err(io(path)(e)),
        };
        let len = word_count(bits);
        let size = file.metadata().map_err(io(path))?.len();
        let mut head = [0u8; HEADER];
        if size >= HEADER as u64 {
            use std::io::Read as _;
            (&file).read_exact(&mut head).map_err(io(path))?;
        }
        let header = Header::decode(path, &head)?;
        if header.finished || header.kind != kind || header.bits != bits {
            return Err(corrupt(
                path,
                format!(
                    "cannot resume: a {} bit table of kind {:?} and {} bits, expected an unfinished {kind:?} of {bits}",
                    if header.finished { "finished" } else { "unfinished" },
                    header.kind,
                    header.bits
                ),
            ));
        }
        if size != (HEADER + len * 8) as u64 {
            return Err(corrupt(
                path,
                format!(
                    "cannot resume: {size} bytes, a table of {bits} bits takes {}",
                    HEADER + len * 8
                ),
            ));
        }
        // SAFETY: the file is an unfinished table of this kind and size; its
        // owner keeps one writer per file and maps it nowhere else meanwhile.
        let mut map = unsafe { MmapMut::map_mut(&file) }.map_err(io(path))?;
        let words = map[HEADER..].as_mut_ptr() as *const AtomicU64;
        Ok((
            BitTableWriter {
                path: path.to_path_buf(),
                kind: kind.to_string(),
                bits,
                map,
                words,
                len,
            },
            true,
        ))
    }

    /// Reads word `word` (zero beyond the table). The load acquires: a word
    /// that another thread stored after others (see [`Self::store_word`]) is
    /// seen only with them, so a record word can vouch for the words before it.
    pub fn load_word(&self, word: usize) -> u64 {
        self.atomic(word).map_or(0, |w| w.load(Ordering::Acquire))
    }

    /// Asks the processor to start loading word `word` (nothing beyond the
    /// table), for readers that probe words at random.
    pub fn prefetch_word(&self, word: usize) {
        if let Some(w) = self.atomic(word) {
            crate::prefetch(std::slice::from_ref(w), 0);
        }
    }

    /// The table's length in bits.
    pub fn len_bits(&self) -> u64 {
        self.bits
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn atomic(&self, word: usize) -> Option<&AtomicU64> {
        // SAFETY: `words` points at `len` 8-aligned words inside the live map
        // (see `create`), and `word < len` is checked here.
        (word < self.len).then(|| unsafe { &*self.words.add(word) })
    }

    fn out_of_range(&self, what: &str, index: u64) -> StoreError {
        StoreError::Misuse(format!(
            "{}: {what} {index} is beyond the table's {} bits",
            self.path.display(),
            self.bits
        ))
    }

    /// Sets bit `index`; safe to call from many threads at once.
    pub fn set_atomic(&self, index: u64) -> Result<(), StoreError> {
        if index >= self.bits {
            return Err(self.out_of_range("bit", index));
        }
        let word = self
            .atomic((index / 64) as usize)
            .ok_or_else(|| self.out_of_range("bit", index))?;
        word.fetch_or(1 << (index % 64), Ordering::Relaxed);
        Ok(())
    }

    /// Reads bit `index` (false beyond the table).
    pub fn get(&self, index: u64) -> bool {
        index < self.bits
            && self
                .atomic((index / 64) as usize)
                .is_some_and(|w| w.load(Ordering::Relaxed) >> (index % 64) & 1 == 1)
    }

    /// Stores a whole word (bits `64 * word ..`), for writers that own
    /// disjoint word ranges; bits past the table's end must be zero.
    pub fn store_word(&self, word: usize, value: u64) -> Result<(), StoreError> {
        let last = word == self.len.saturating_sub(1) && self.bits & 63 != 0;
        if last && value >> (self.bits % 64) != 0 {
            return Err(self.out_of_range("a bit of word", word as u64));
        }
        let slot = self
            .atomic(word)
            .ok_or_else(|| self.out_of_range("word", word as u64))?;
        // Release: a thread that loads this word also sees the words this
        // thread stored before it (free on x86, where every store is so).
        slot.store(value, Ordering::Release);
        Ok(())
    }

    /// Writes the checksum and the finished flag, flushes the file and reopens it read-only.
    pub fn finish(mut self) -> Result<BitTable, StoreError> {
        let checksum = xxh3_64(&self.map[HEADER..]);
        let header = Header {
            finished: true,
            bits: self.bits,
            checksum,
            kind: self.kind.clone(),
        };
        self.map.flush().map_err(io(&self.path))?;
        self.map[..HEADER].copy_from_slice(&header.encode());
        self.map.flush_range(0, HEADER).map_err(io(&self.path))?;
        let path = self.path.clone();
        drop(self);
        BitTable::open(&path, &header.kind, false)
    }
}

/// A finished bit table, mapped read-only.
pub struct BitTable {
    path: PathBuf,
    bits: u64,
    map: Mmap,
}

impl std::fmt::Debug for BitTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitTable")
            .field("path", &self.path)
            .field("bits", &self.bits)
            .finish()
    }
}

impl BitTable {
    /// Maps `path`, checking its header (magic, version, finished, `kind`)
    /// and, when `verify` is set, the checksum of every data byte.
    pub fn open(path: &Path, kind: &str, verify: bool) -> Result<BitTable, StoreError> {
        let file = File::open(path).map_err(io(path))?;
        // SAFETY: a finished table is never written again (writers create a
        // new file with `create`, truncating only tables being rebuilt, which
        // their owner does not map at the same time).
        let map = unsafe { Mmap::map(&file) }.map_err(io(path))?;
        let header = Header::decode(path, &map)?;
        if !header.finished {
            return Err(corrupt(
                path,
                "the bit table was never finished (interrupted while written)",
            ));
        }
        if header.kind != kind {
            return Err(corrupt(
                path,
                format!("a bit table of kind {:?}, expected {kind:?}", header.kind),
            ));
        }
        let want = HEADER + word_count(header.bits) * 8;
        if map.len() != want {
            return Err(corrupt(
                path,
                format!(
                    "{} bytes, a table of {} bits takes {want}",
                    map.len(),
                    header.bits
                ),
            ));
        }
        if verify && xxh3_64(&map[HEADER..]) != header.checksum {
            return Err(corrupt(path, "checksum mismatch: the bit table is damaged"));
        }
        Ok(BitTable {
            path: path.to_path_buf(),
            bits: header.bits,
            map,
        })
    }

    /// The table's length in bits.
    pub fn len_bits(&self) -> u64 {
        self.bits
    }

    /// The mapped file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bits as words.
    #[inline]
    pub fn words(&self) -> &[u64] {
        // SAFETY: the data starts 64 bytes into a page-aligned map (so it is
        // 8-aligned), its length is a multiple of 8 (checked in `open`), and
        // every bit pattern is a valid u64.
        unsafe { self.map[HEADER..].align_to::<u64>().1 }
    }

    /// Bit `index` (false beyond the table).
    #[inline]
    pub fn get(&self, index: u64) -> bool {
        self.words()
            .get((index / 64) as usize)
            .is_some_and(|w| w >> (index % 64) & 1 == 1)
    }

    /// How many bits are set.
    pub fn count_ones(&self) -> u64 {
        self.words().iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

#[cfg(test)]
#[path = "bits_tests.rs"]
mod tests;
