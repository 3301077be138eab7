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
        let data = self.data();
        let sums_path = sum_path(&self.path);
        let sums_map = map_file(&sums_path)?;
        let sums: &[u8] = sums_map.as_deref().unwrap_or(&[]);
        sum_header().check(&sums_path, sums)?;
        let full = data.len() / BLOCK as usize;
        if sums.len() < HEADER_LEN + full * 8 {
            return Err(corrupt(
                &sums_path,
                format!(
                    "truncated: {} bytes, {full} block checksums are needed",
                    sums.len()
                ),
            ));
        }
        for (b, block) in data.chunks(BLOCK as usize).enumerate() {
            let expected = if b < full {
                let at = HEADER_LEN + b * 8;
                u64::from_le_bytes(sums[at..at + 8].try_into().unwrap_or_default())
            } else {
                commit.tail
            };
            if xxh3_64(block) != expected {
                let recorded_in = if b < full {
                    format!("{}", sums_path.display())
                } else {
                    "the manifest's checkpoint".to_string()
                };
                return Err(corrupt(
                    &self.path,
                    format!(
                        "checksum mismatch in block {b} (data bytes {}..{}, file offset {}): \
                         the block or its checksum in {recorded_in} is damaged",
                        b * BLOCK as usize,
                        b * BLOCK as usize + block.len(),
                        HEADER_LEN + b * BLOCK as usize
                    ),
                ));
            }
            if !tick(block.len() as u64) {
                return Ok(false);
            }
        }
        if data.len().is_multiple_of(BLOCK as usize) && commit.tail != xxh3_64(&[]) {
            return Err(corrupt(
                &self.path,
                format!(
                    "checksum mismatch in the last block (the empty block after data byte {}, \
                     file offset {}): the manifest's checkpoint records a checksum for data \
                     the file does not hold",
                    data.len(),
                    HEADER_LEN + data.len()
                ),
            ));
        }
        Ok(true)
    }
}
