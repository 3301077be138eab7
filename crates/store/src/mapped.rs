//! A data file mapped read-only up to its committed length, with the checks
//! that make handing out slices of it safe: header, length, alignment, and
//! (in `verify`) every block checksum against its `.sum` sidecar.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapOptions};
use xxhash_rust::xxh3::xxh3_64;

use crate::append::{check_header_and_len, sums_header};
use crate::error::StoreError;
use crate::format::{sums_name, Header, HEADER_LEN};
use crate::manifest::FileCommit;

/// One committed data file, mapped.
pub(crate) struct MappedFile {
    path: PathBuf,
    header: Header,
    commit: FileCommit,
    map: Mmap,
}

impl MappedFile {
    /// Opens `dir/name`, checks its header against `expected` and its length
    /// against the checkpoint, and maps header plus committed data.
    pub fn open(
        dir: &Path,
        name: &str,
        expected: Header,
        commit: FileCommit,
    ) -> Result<MappedFile, StoreError> {
        let path = dir.join(name);
        let file = File::open(&path).map_err(StoreError::io(&path, "opening"))?;
        let mapped_len = HEADER_LEN + commit.len;
        check_header_and_len(&file, &path, &expected, mapped_len)?;
        let len = usize::try_from(mapped_len).map_err(|_| StoreError::Corrupt {
            path: path.clone(),
            what: format!("{mapped_len} bytes do not fit this machine's address space"),
        })?;
        // SAFETY: the mapping is read-only and covers only the committed
        // prefix, which no writer modifies: a writer only appends past it, and
        // truncates a file only when resuming (documented: do not resume a run
        // while another process reads it, or that reader may get SIGBUS).
        // The length was checked against the file's size just above.
        let map = unsafe { MmapOptions::new().len(len).map(&file) }
            .map_err(StoreError::io(&path, "mapping"))?;
        let mapped = MappedFile {
            path,
            header: expected,
            commit,
            map,
        };
        if expected.record_width % 8 == 0 && mapped.words_checked().is_none() {
            return Err(StoreError::Corrupt {
                path: mapped.path,
                what: "data is not a whole number of aligned 64-bit words".into(),
            });
        }
        Ok(mapped)
    }

    /// The file's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The committed data bytes (after the header).
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        self.map.get(HEADER_LEN as usize..).unwrap_or_default()
    }

    /// The committed data as little-endian words (empty for a byte file
    /// whose length is not a multiple of 8, which `open` rejects for word files).
    #[inline]
    pub fn words(&self) -> &[u64] {
        self.words_checked().unwrap_or_default()
    }

    fn words_checked(&self) -> Option<&[u64]> {
        // SAFETY: every bit pattern is a valid u64, and `align_to` only
        // reinterprets the part of the slice that is correctly aligned.
        let (head, words, tail) = unsafe { self.bytes().align_to::<u64>() };
        (head.is_empty() && tail.is_empty()).then_some(words)
    }

    /// Checks every full block against the `.sum` sidecar (itself checked
    /// against the checkpoint) and the tail block against the checkpoint.
    pub fn verify(&self, dir: &Path) -> Result<(), StoreError> {
        let data = self.bytes();
        let block = u64::from(self.header.block_bytes.max(1));
        let full_blocks = self.commit.len / block;
        let sums = self.read_sums(dir, full_blocks)?;
        let mismatch = |k: u64, end: u64| StoreError::ChecksumMismatch {
            path: self.path.clone(),
            block: k,
            offset: HEADER_LEN + k * block,
            end: HEADER_LEN + end,
        };
        for (k, expected) in sums.chunks_exact(8).enumerate() {
            let k = k as u64;
            let range = (k * block) as usize..((k + 1) * block) as usize;
            let bytes = data
                .get(range)
                .ok_or_else(|| mismatch(k, (k + 1) * block))?;
            if xxh3_64(bytes).to_le_bytes() != expected {
                return Err(mismatch(k, (k + 1) * block));
            }
        }
        let tail = data
            .get((full_blocks * block) as usize..)
            .unwrap_or_default();
        if xxh3_64(tail) != self.commit.tail_xxh3 {
            return Err(mismatch(full_blocks, self.commit.len));
        }
        Ok(())
    }

    fn read_sums(&self, dir: &Path, full_blocks: u64) -> Result<Vec<u8>, StoreError> {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = dir.join(sums_name(&name));
        let file = File::open(&path).map_err(StoreError::io(&path, "opening"))?;
        check_header_and_len(
            &file,
            &path,
            &sums_header(self.header),
            HEADER_LEN + full_blocks * 8,
        )?;
        let mut sums = vec![0u8; (full_blocks * 8) as usize];
        file.read_exact_at(&mut sums, HEADER_LEN)
            .map_err(StoreError::io(&path, "reading block checksums"))?;
        if xxh3_64(&sums) != self.commit.sums_xxh3 {
            return Err(StoreError::Corrupt {
                path,
                what: "block checksums differ from the ones the checkpoint recorded (checksum file damaged)".into(),
            });
        }
        Ok(sums)
    }
}
