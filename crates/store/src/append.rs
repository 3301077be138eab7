//! A data file being appended by the writer: a large in-memory buffer in
//! front of positional writes, block checksums computed as the buffer is
//! written out, and a `.sum` sidecar holding the xxh3 of every full block.
//! The writer never maps what it writes, so written pages stay out of RSS.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3Default;

use crate::error::StoreError;
use crate::format::{sums_name, FileKind, Header, HEADER_LEN};
use crate::manifest::FileCommit;

/// One data file and its checksum sidecar, open for appending.
pub(crate) struct AppendFile {
    path: PathBuf,
    file: File,
    sums_path: PathBuf,
    sums_file: File,
    buf: Vec<u8>,
    buf_cap: usize,
    /// Data bytes already written to the file (after the header).
    flushed: u64,
    block_bytes: u64,
    /// Hash of the bytes of the current, partial block.
    block_hasher: Box<Xxh3Default>,
    block_fill: u64,
    /// Hash of all full-block sums written so far (the sidecar's data).
    sums_hasher: Box<Xxh3Default>,
    sums_count: u64,
    /// Bytes written since the last fdatasync.
    dirty: bool,
    /// A write failed: the file's content past the checkpoint is unknown.
    failed: bool,
    #[cfg(test)]
    pub(crate) fail_after_bytes: Option<u64>,
}

impl AppendFile {
    /// Creates (truncating) the file and its sidecar and writes their headers.
    pub fn create(
        dir: &Path,
        name: &str,
        header: Header,
        buf_cap: usize,
    ) -> Result<AppendFile, StoreError> {
        let mut file = AppendFile::open_files(dir, name, header, buf_cap, true)?;
        file.file
            .write_all_at(&header.encode(), 0)
            .map_err(StoreError::io(&file.path, "writing the header"))?;
        file.sums_file
            .write_all_at(&sums_header(header).encode(), 0)
            .map_err(StoreError::io(&file.sums_path, "writing the header"))?;
        file.dirty = true;
        Ok(file)
    }

    /// Reopens a file at its checkpoint: checks both headers, the committed
    /// lengths, the sidecar's hash and the tail block's hash, then truncates
    /// both files to the checkpoint so that appending continues from there.
    pub fn resume(
        dir: &Path,
        name: &str,
        header: Header,
        commit: &FileCommit,
        buf_cap: usize,
    ) -> Result<AppendFile, StoreError> {
        let mut file = AppendFile::open_files(dir, name, header, buf_cap, false)?;
        check_header_and_len(&file.file, &file.path, &header, HEADER_LEN + commit.len)?;
        let full_blocks = commit.len / file.block_bytes;
        let sums_len = HEADER_LEN + full_blocks * 8;
        check_header_and_len(
            &file.sums_file,
            &file.sums_path,
            &sums_header(header),
            sums_len,
        )?;

        let mut sums = vec![0u8; (full_blocks * 8) as usize];
        file.sums_file
            .read_exact_at(&mut sums, HEADER_LEN)
            .map_err(StoreError::io(&file.sums_path, "reading block checksums"))?;
        file.sums_hasher.update(&sums);
        if file.sums_hasher.digest() != commit.sums_xxh3 {
            return Err(StoreError::Corrupt {
                path: file.sums_path.clone(),
                what: "block checksums differ from the ones the checkpoint recorded".into(),
            });
        }
        file.sums_count = full_blocks;

        let tail_start = full_blocks * file.block_bytes;
        let mut tail = vec![0u8; (commit.len - tail_start) as usize];
        file.file
            .read_exact_at(&mut tail, HEADER_LEN + tail_start)
            .map_err(StoreError::io(&file.path, "reading the tail block"))?;
        file.block_hasher.update(&tail);
        if file.block_hasher.digest() != commit.tail_xxh3 {
            return Err(StoreError::ChecksumMismatch {
                path: file.path.clone(),
                block: full_blocks,
                offset: HEADER_LEN + tail_start,
                end: HEADER_LEN + commit.len,
            });
        }
        file.block_fill = tail.len() as u64;
        file.flushed = commit.len;

        file.file
            .set_len(HEADER_LEN + commit.len)
            .map_err(StoreError::io(&file.path, "truncating to the checkpoint"))?;
        file.sums_file.set_len(sums_len).map_err(StoreError::io(
            &file.sums_path,
            "truncating to the checkpoint",
        ))?;
        Ok(file)
    }

    fn open_files(
        dir: &Path,
        name: &str,
        header: Header,
        buf_cap: usize,
        create: bool,
    ) -> Result<AppendFile, StoreError> {
        let path = dir.join(name);
        let sums_path = dir.join(sums_name(name));
        let open = |path: &Path| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(create)
                .truncate(create)
                .open(path)
                .map_err(StoreError::io(
                    path,
                    if create {
                        "creating"
                    } else {
                        "opening for resume"
                    },
                ))
        };
        Ok(AppendFile {
            file: open(&path)?,
            sums_file: open(&sums_path)?,
            path,
            sums_path,
            buf: Vec::with_capacity(buf_cap),
            buf_cap,
            flushed: 0,
            block_bytes: u64::from(header.block_bytes.max(1)),
            block_hasher: Box::new(Xxh3Default::new()),
            block_fill: 0,
            sums_hasher: Box::new(Xxh3Default::new()),
            sums_count: 0,
            dirty: false,
            failed: false,
            #[cfg(test)]
            fail_after_bytes: None,
        })
    }

    /// The file's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends bytes; writes the buffer out first when they do not fit.
    #[inline]
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        if self.buf.len() + bytes.len() > self.buf_cap {
            self.flush()?;
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// Appends one little-endian word.
    #[inline]
    pub fn push_u64(&mut self, word: u64) -> Result<(), StoreError> {
        self.push(&word.to_le_bytes())
    }

    /// Data bytes appended so far, buffered ones included.
    pub fn len(&self) -> u64 {
        self.flushed + self.buf.len() as u64
    }

    /// Bytes the file and its sidecar take (or will take) on disk.
    pub fn disk_bytes(&self) -> u64 {
        2 * HEADER_LEN + self.len() + (self.len() / self.block_bytes) * 8
    }

    /// Writes the buffer to the file and the sums of completed blocks to the sidecar.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        if self.failed {
            return Err(StoreError::Poisoned {
                path: self.path.clone(),
            });
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        self.dirty = true;
        if let Err(err) = self.write_buffer() {
            self.failed = true;
            return Err(err);
        }
        self.buf.clear();
        Ok(())
    }

    fn write_buffer(&mut self) -> Result<(), StoreError> {
        self.check_injected_failure()?;
        self.file
            .write_all_at(&self.buf, HEADER_LEN + self.flushed)
            .map_err(StoreError::io(&self.path, "appending data"))?;
        let mut new_sums = Vec::new();
        let mut rest: &[u8] = &self.buf;
        while !rest.is_empty() {
            let room = (self.block_bytes - self.block_fill).min(rest.len() as u64) as usize;
            let (piece, tail) = rest.split_at(room);
            self.block_hasher.update(piece);
            self.block_fill += piece.len() as u64;
            if self.block_fill == self.block_bytes {
                new_sums.extend_from_slice(&self.block_hasher.digest().to_le_bytes());
                self.block_hasher.reset();
                self.block_fill = 0;
            }
            rest = tail;
        }
        if !new_sums.is_empty() {
            self.sums_file
                .write_all_at(&new_sums, HEADER_LEN + self.sums_count * 8)
                .map_err(StoreError::io(&self.sums_path, "appending block checksums"))?;
            self.sums_hasher.update(&new_sums);
            self.sums_count += new_sums.len() as u64 / 8;
        }
        self.flushed += self.buf.len() as u64;
        Ok(())
    }

    #[cfg(test)]
    fn check_injected_failure(&mut self) -> Result<(), StoreError> {
        match self.fail_after_bytes {
            Some(limit) if self.flushed + self.buf.len() as u64 > limit => Err(StoreError::Io {
                path: self.path.clone(),
                op: "appending data",
                source: std::io::Error::from_raw_os_error(28),
            }),
            _ => Ok(()),
        }
    }

    #[cfg(not(test))]
    #[inline]
    fn check_injected_failure(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Flushes and fdatasyncs the file and its sidecar if anything changed.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.flush()?;
        if self.dirty {
            self.file
                .sync_data()
                .map_err(StoreError::io(&self.path, "syncing"))?;
            self.sums_file
                .sync_data()
                .map_err(StoreError::io(&self.sums_path, "syncing"))?;
            self.dirty = false;
        }
        Ok(())
    }

    /// The file's state for a checkpoint; call after `sync`.
    pub fn commit(&self) -> FileCommit {
        FileCommit {
            len: self.flushed,
            tail_xxh3: self.block_hasher.digest(),
            sums_xxh3: self.sums_hasher.digest(),
        }
    }

    /// Copies data bytes `[offset, offset + out.len())`, whether already
    /// written or still buffered.
    pub fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), StoreError> {
        let end = offset + out.len() as u64;
        if end > self.len() {
            return Err(StoreError::Usage(format!(
                "{}: read of bytes {offset}..{end} past the {} bytes written",
                self.path.display(),
                self.len()
            )));
        }
        let on_disk = self.flushed.saturating_sub(offset).min(out.len() as u64) as usize;
        let (disk_part, buffered_part) = out.split_at_mut(on_disk);
        if !disk_part.is_empty() {
            self.file
                .read_exact_at(disk_part, HEADER_LEN + offset)
                .map_err(StoreError::io(&self.path, "reading back"))?;
        }
        if !buffered_part.is_empty() {
            let start = (offset + on_disk as u64 - self.flushed) as usize;
            let source = self
                .buf
                .get(start..start + buffered_part.len())
                .unwrap_or_default();
            buffered_part.copy_from_slice(source);
        }
        Ok(())
    }

    /// Frees the buffer of a file that will not be appended again.
    pub fn release_buffer(&mut self) {
        self.buf = Vec::new();
        self.buf_cap = 0;
    }
}

/// The header of a data file's `.sum` sidecar.
pub(crate) fn sums_header(data: Header) -> Header {
    Header {
        kind: FileKind::Sums,
        record_width: 8,
        block_bytes: data.block_bytes,
        identity_hash: data.identity_hash,
        a: data.kind.tag_u64(),
        b: 0,
    }
}

/// Reads a file's header, compares it with the expected one and checks the length.
pub(crate) fn check_header_and_len(
    file: &File,
    path: &Path,
    expected: &Header,
    min_len: u64,
) -> Result<(), StoreError> {
    let actual = file
        .metadata()
        .map_err(StoreError::io(path, "reading metadata"))?
        .len();
    let mut bytes = [0u8; HEADER_LEN as usize];
    let header_len = (actual.min(HEADER_LEN)) as usize;
    file.read_exact_at(&mut bytes[..header_len], 0)
        .map_err(StoreError::io(path, "reading the header"))?;
    Header::decode(path, &bytes[..header_len])?.expect(path, expected)?;
    if actual < min_len {
        return Err(StoreError::Truncated {
            path: path.to_path_buf(),
            actual,
            expected: min_len,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

    fn header() -> Header {
        Header {
            kind: FileKind::TransLog,
            record_width: 8,
            block_bytes: 16,
            identity_hash: 7,
            a: 0,
            b: 0,
        }
    }

    #[test]
    fn blocks_are_summed_and_resume_continues_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AppendFile::create(dir.path(), "trans.log", header(), 5).unwrap();
        let data: Vec<u8> = (0..40u8).collect();
        for chunk in data.chunks(3) {
            file.push(chunk).unwrap();
        }
        file.sync().unwrap();
        let commit = file.commit();
        assert_eq!(commit.len, 40);
        assert_eq!(commit.tail_xxh3, xxh3_64(&data[32..40]));
        let sums: Vec<u8> = [xxh3_64(&data[0..16]), xxh3_64(&data[16..32])]
            .iter()
            .flat_map(|s| s.to_le_bytes())
            .collect();
        assert_eq!(commit.sums_xxh3, xxh3_64(&sums));

        file.push(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).unwrap();
        file.flush().unwrap();
        drop(file);
        let mut resumed =
            AppendFile::resume(dir.path(), "trans.log", header(), &commit, 8).unwrap();
        assert_eq!(resumed.len(), 40);
        resumed.push(&[40, 41, 42, 43, 44, 45, 46, 47, 48]).unwrap();
        let mut back = vec![0u8; 14];
        resumed.read_at(35, &mut back).unwrap();
        assert_eq!(back, (35..49).collect::<Vec<u8>>());
        resumed.sync().unwrap();
        assert_eq!(
            resumed.commit().tail_xxh3,
            xxh3_64(&(48..49).collect::<Vec<u8>>())
        );
    }

    #[test]
    fn resume_refuses_a_shorter_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AppendFile::create(dir.path(), "trans.log", header(), 64).unwrap();
        file.push(&[9; 20]).unwrap();
        file.sync().unwrap();
        let commit = file.commit();
        drop(file);
        std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("trans.log"))
            .unwrap()
            .set_len(70)
            .unwrap();
        let err = AppendFile::resume(dir.path(), "trans.log", header(), &commit, 8)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("trans.log") && err.contains("shorter"),
            "{err}"
        );
    }

    #[test]
    fn a_failed_write_poisons_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = AppendFile::create(dir.path(), "trans.log", header(), 8).unwrap();
        file.fail_after_bytes = Some(8);
        file.push(&[1; 8]).unwrap();
        let err = file
            .push(&[1; 8])
            .and_then(|()| file.flush())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("trans.log") && err.contains("No space left"),
            "{err}"
        );
        let err = file.sync().unwrap_err().to_string();
        assert!(err.contains("earlier write"), "{err}");
    }
}
