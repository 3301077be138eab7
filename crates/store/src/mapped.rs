//! Read-only memory maps of a run's data files, verified against their
//! headers, the checkpoint's lengths and the block checksums before use.

use crate::append::{sum_header, sum_path, Commit};
use crate::error::{corrupt, io, StoreError};
use crate::header::{Header, BLOCK, HEADER_LEN};
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// One mapped data file, exposing exactly the committed data bytes.
pub struct Mapped {
    path: PathBuf,
    map: Option<Mmap>,
    len: usize,
}

fn map_file(path: &Path) -> Result<Option<Mmap>, StoreError> {
    let file = File::open(path).map_err(io(path))?;
    let size = file.metadata().map_err(io(path))?.len();
    if size == 0 {
        return Ok(None);
    }
    // SAFETY: the map is read-only and the store's files are only ever
    // appended to while a reader may map them; the one exception, truncation
    // when a writer resumes after a crash, cuts bytes beyond the last
    // checkpoint, which readers never touch (they map up to the committed
    // length recorded in the manifest they read).
    let map = unsafe { Mmap::map(&file) }.map_err(io(path))?;
    Ok(Some(map))
}

impl Mapped {
    /// Maps `path`, checks its header and that it holds the committed bytes,
    /// and verifies every block checksum when `verify` is set.
    pub fn open(
        path: &Path,
        header: Header,
        commit: Commit,
        verify: bool,
    ) -> Result<Mapped, StoreError> {
        let map = map_file(path)?;
        let bytes: &[u8] = map.as_deref().unwrap_or(&[]);
        header.check(path, bytes)?;
        // A forged commit may be any u64: compared without overflowing.
        let want = commit.len.saturating_add(HEADER_LEN as u64);
        if (bytes.len() as u64) < want {
            return Err(corrupt(
                path,
                format!(
                    "truncated: {} bytes, the manifest commits {want}",
                    bytes.len()
                ),
            ));
        }
        let mapped = Mapped {
            path: path.to_path_buf(),
            map,
            len: commit.len as usize,
        };
        if verify {
            mapped.verify(commit)?;
        }
        Ok(mapped)
    }

    /// The committed data bytes.
    #[inline]
    pub fn data(&self) -> &[u8] {
        match &self.map {
            Some(m) => &m[HEADER_LEN..HEADER_LEN + self.len],
            None => &[],
        }
    }

    /// The data as little-endian words (the format keeps them 8-aligned:
    /// the map starts on a page and the header is 64 bytes).
    pub fn words(&self) -> &[u64] {
        let data = self.data();
        let (head, words, _) = {
            // SAFETY: every bit pattern is a valid u64, and `align_to` only
            // yields the correctly aligned middle part of the slice.
            unsafe { data.align_to::<u64>() }
        };
        if head.is_empty() {
            words
        } else {
            &[]
        }
    }

    /// Asks the kernel to start reading the data bytes `bytes` into the page cache
    /// (`MADV_WILLNEED`), so that a pass reaching them later does not wait for the
    /// disk. Only a hint: nothing happens when it cannot be given.
    pub(crate) fn will_need(&self, bytes: std::ops::Range<u64>) {
        let Some(map) = &self.map else { return };
        let end = (bytes.end as usize).min(self.len);
        let start = (bytes.start as usize).min(end);
        if start < end {
            let _ = map.advise_range(memmap2::Advice::WillNeed, HEADER_LEN + start, end - start);
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks every block checksum of the committed data.
    pub fn verify(&self, commit: Commit) -> Result<(), StoreError> {
        self.verify_watched(commit, &mut |_| true).map(|_| ())
    }

    /// As [`Mapped::verify`], calling `tick` with the bytes of each block checked;
    /// `tick` returning false stops before the next block (`Ok(false)`: not all of
    /// the file was checked).
    pub fn verify_watched(
        &self,
        commit: Commit,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<bool, StoreError> {
        let sums = self.sums(commit)?;
        for b in 0..self.blocks() {
            self.verify_block(&sums, b)?;
            if !tick(self.block_range(b).len() as u64) {
                return Ok(false);
            }
        }
        self.verify_end(commit)?;
        Ok(true)
    }

    /// Blocks of the committed data (the last may be partial).
    pub(crate) fn blocks(&self) -> usize {
        self.len.div_ceil(BLOCK as usize)
    }

    /// The data bytes of block `b`.
    fn block_range(&self, b: usize) -> std::ops::Range<usize> {
        b * BLOCK as usize..self.len.min((b + 1) * BLOCK as usize)
    }

    /// The block checksums of this file, mapped and checked to cover its full blocks.
    pub(crate) fn sums(&self, commit: Commit) -> Result<Sums, StoreError> {
        let path = sum_path(&self.path);
        let map = map_file(&path)?;
        let bytes: &[u8] = map.as_deref().unwrap_or(&[]);
        sum_header().check(&path, bytes)?;
        let full = self.len / BLOCK as usize;
        if bytes.len() < HEADER_LEN + full * 8 {
            return Err(corrupt(
                &path,
                format!(
                    "truncated: {} bytes, {full} block checksums are needed",
                    bytes.len()
                ),
            ));
        }
        Ok(Sums {
            path,
            map,
            tail: commit.tail,
            full,
        })
    }

    /// Checks the checksum of block `b` against `sums` (this file's, from
    /// [`Mapped::sums`]); the error names the block and its byte offsets.
    pub(crate) fn verify_block(&self, sums: &Sums, b: usize) -> Result<(), StoreError> {
        let range = self.block_range(b);
        let expected = if b < sums.full {
            let at = HEADER_LEN + b * 8;
            let bytes = sums.map.as_deref().unwrap_or(&[]);
            u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
        } else {
            sums.tail
        };
        if xxh3_64(&self.data()[range.clone()]) == expected {
            return Ok(());
        }
        let recorded_in = if b < sums.full {
            format!("{}", sums.path.display())
        } else {
            "the manifest's checkpoint".to_string()
        };
        Err(corrupt(
            &self.path,
            format!(
                "checksum mismatch in block {b} (data bytes {}..{}, file offset {}): \
                 the block or its checksum in {recorded_in} is damaged",
                range.start,
                range.end,
                HEADER_LEN + range.start
            ),
        ))
    }

    /// The check after the last block: a file ending on a block boundary has an empty
    /// last block, whose checksum the checkpoint must record.
    pub(crate) fn verify_end(&self, commit: Commit) -> Result<(), StoreError> {
        let len = self.len;
        if len.is_multiple_of(BLOCK as usize) && commit.tail != xxh3_64(&[]) {
            return Err(corrupt(
                &self.path,
                format!(
                    "checksum mismatch in the last block (the empty block after data byte {len}, \
                     file offset {}): the manifest's checkpoint records a checksum for data \
                     the file does not hold",
                    HEADER_LEN + len
                ),
            ));
        }
        Ok(())
    }
}

/// The block checksums of one data file (its `.sum` sidecar, mapped), and the
/// checkpoint's checksum of its last, partial block.
pub(crate) struct Sums {
    path: PathBuf,
    map: Option<Mmap>,
    tail: u64,
    /// Blocks whose checksum is in the sidecar.
    full: usize,
}
