//! Sequential reading of a part's append-only file up to a commit, every
//! block checked against its checksum (the store's block checksums: a
//! sidecar of full-block sums, the last partial block's in the commit).

use crate::error::{corrupt, io};
use crate::ClusterError;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use store::{Commit, Header, BLOCK, HEADER_LEN};
use xxhash_rust::xxh3::xxh3_64;

/// Reads the committed data of one file, block by block, verified.
pub struct CheckedReader {
    path: PathBuf,
    file: File,
    sums: Vec<u64>,
    commit: Commit,
    /// Data offset of the next block to read.
    next: u64,
    /// The current block and how much of it was taken.
    block: Vec<u8>,
    taken: usize,
}

impl CheckedReader {
    /// Opens `path`, checking its header and its sidecar's, for the data
    /// `commit` covers.
    pub fn open(
        path: &Path,
        header: Header,
        commit: Commit,
    ) -> Result<CheckedReader, ClusterError> {
        let mut file = File::open(path).map_err(io(path))?;
        let mut head = [0u8; HEADER_LEN];
        file.read_exact(&mut head).map_err(io(path))?;
        header.check(path, &head)?;
        let have = file.metadata().map_err(io(path))?.len();
        if have < HEADER_LEN as u64 + commit.len {
            return Err(corrupt(
                path,
                format!("{have} bytes, shorter than the {} committed", commit.len),
            ));
        }
        let sum_path = store::sum_path(path);
        let bytes = std::fs::read(&sum_path).map_err(io(&sum_path))?;
        let sum_header = Header {
            kind: store::header("blocksum", 8).kind,
            width: 8,
        };
        sum_header.check(&sum_path, &bytes)?;
        let full = (commit.len / BLOCK) as usize;
        let sums: Vec<u64> = bytes[HEADER_LEN..]
            .chunks_exact(8)
            .take(full)
            .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect();
        if sums.len() < full {
            return Err(corrupt(
                &sum_path,
                format!("{} block checksums, the commit needs {full}", sums.len()),
            ));
        }
        Ok(CheckedReader {
            path: path.to_path_buf(),
            file,
            sums,
            commit,
            next: 0,
            block: Vec::new(),
            taken: 0,
        })
    }

    /// Moves to data offset `offset` (at most the committed length), so that
    /// a layer's records are read without reading every earlier layer's.
    /// The block holding `offset` is read whole and verified, as always.
    pub fn seek_to(&mut self, offset: u64) -> Result<(), ClusterError> {
        if offset > self.commit.len {
            return Err(corrupt(
                &self.path,
                format!(
                    "offset {offset} beyond the {} committed bytes",
                    self.commit.len
                ),
            ));
        }
        let block = offset / BLOCK * BLOCK;
        self.file
            .seek(SeekFrom::Start(HEADER_LEN as u64 + block))
            .map_err(io(&self.path))?;
        self.next = block;
        self.block.clear();
        self.taken = 0;
        if offset > block {
            self.fill()?;
            self.taken = (offset - block) as usize;
        }
        Ok(())
    }

    /// True when every committed byte has been taken.
    pub fn at_end(&self) -> bool {
        self.taken == self.block.len() && self.next == self.commit.len
    }

    /// Reads and verifies the next block; false at the end of the commit.
    fn fill(&mut self) -> Result<bool, ClusterError> {
        if self.next == self.commit.len {
            return Ok(false);
        }
        let len = (self.commit.len - self.next).min(BLOCK) as usize;
        self.block.resize(len, 0);
        self.file
            .read_exact(&mut self.block)
            .map_err(io(&self.path))?;
        let number = (self.next / BLOCK) as usize;
        let want = match self.sums.get(number) {
            Some(&sum) if len as u64 == BLOCK => sum,
            _ => self.commit.tail,
        };
        if xxh3_64(&self.block) != want {
            return Err(corrupt(
                &self.path,
                format!(
                    "checksum mismatch in block {number} (data bytes {}..{})",
                    self.next,
                    self.next + len as u64
                ),
            ));
        }
        self.next += len as u64;
        self.taken = 0;
        Ok(true)
    }

    /// Appends the next `n` bytes to `out`; an error if the commit ends first.
    pub fn take(&mut self, n: usize, out: &mut Vec<u8>) -> Result<(), ClusterError> {
        let mut left = n;
        while left > 0 {
            if self.taken == self.block.len() && !self.fill()? {
                return Err(corrupt(
                    &self.path,
                    format!("ends inside a record (data length {})", self.commit.len),
                ));
            }
            let k = left.min(self.block.len() - self.taken);
            out.extend_from_slice(&self.block[self.taken..self.taken + k]);
            self.taken += k;
            left -= k;
        }
        Ok(())
    }

    /// The next little-endian u64.
    pub fn u64(&mut self, scratch: &mut Vec<u8>) -> Result<u64, ClusterError> {
        scratch.clear();
        self.take(8, scratch)?;
        let b = &scratch[..8];
        Ok(u64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }

    /// The file, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::AppendFile;

    #[test]
    fn reads_back_across_blocks_and_notices_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let head = store::header("cstates", 8);
        let mut file = AppendFile::create(&path, head).unwrap();
        let words: Vec<u64> = (0..300_000u64).map(|i| i * 3).collect();
        for w in &words {
            file.append_u64(*w).unwrap();
        }
        let commit = file.commit().unwrap();
        drop(file);
        let mut reader = CheckedReader::open(&path, head, commit).unwrap();
        let mut scratch = Vec::new();
        for w in &words {
            assert_eq!(reader.u64(&mut scratch).unwrap(), *w);
        }
        assert!(reader.at_end());
        // A layer's records are read from where they start, in any block.
        for k in [0usize, 5, 131_072, 200_001, 299_999] {
            reader.seek_to(8 * k as u64).unwrap();
            assert_eq!(reader.u64(&mut scratch).unwrap(), words[k]);
        }
        reader.seek_to(commit.len).unwrap();
        assert!(reader.at_end());
        assert!(reader.seek_to(commit.len + 1).is_err());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_LEN + 5] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        let mut reader = CheckedReader::open(&path, head, commit).unwrap();
        let err = reader.u64(&mut scratch).unwrap_err().to_string();
        assert!(err.contains("checksum mismatch in block 0"), "{err}");
    }
}
