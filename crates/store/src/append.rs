//! Buffered, checksummed append-only files: how the writer puts data on disk.
//!
//! Data goes through a large in-memory buffer and is written with plain
//! `write` calls, never through a memory map: mapped pages would count
//! against the explorer's memory budget. Every full block of `BLOCK` data
//! bytes gets an xxh3 checksum in a sidecar file `<name>.sum`; the checksum
//! of the partial last block travels in the checkpoint ([`Commit`]). A commit
//! flushes and syncs both files, so that a manifest written afterwards never
//! names data that is not on disk.

use crate::error::{corrupt, io, StoreError};
use crate::flight::{DataWriter, InFlight};
use crate::header::{kind, Header, BLOCK, HEADER_LEN};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// A file a checkpoint must sync, with its path for error messages (the
/// syncer's thread syncs it while appends go on).
pub(crate) type SyncFile = (Arc<File>, PathBuf);

/// Bytes buffered per file before a `write`. A run keeps several files open
/// (segments, transition index and log, terminals), and under a small
/// `--mem` their buffers count: 1 MiB keeps them small while a write still
/// moves enough to cost nothing per byte.
const BUFFER: usize = 1 << 20;

/// Bytes appended between two updates of the block checksum. The buffer is
/// checksummed as it fills, while its last bytes are still in the cache,
/// rather than all at once at the write: by then a search's random probes
/// have evicted it, and the checksum read it back from memory (3% of a
/// one-thread search of room4).
const HASH_STEP: usize = 16 << 10;

/// What a checkpoint records of one file: its data length and the checksum
/// of its partial last block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// Data bytes (after the header) that the checkpoint covers.
    pub len: u64,
    /// xxh3-64 of the data bytes after the last full block.
    pub tail: u64,
}

/// The sidecar path holding a file's block checksums.
pub fn sum_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".sum");
    PathBuf::from(name)
}

/// The header of a sidecar checksum file.
pub fn sum_header() -> Header {
    Header {
        kind: kind("blocksum"),
        width: 8,
    }
}

/// An append-only data file with block checksums.
pub struct AppendFile {
    path: PathBuf,
    sum_path: PathBuf,
    file: Arc<File>,
    sums: Arc<File>,
    flushed: u64,
    buf: Vec<u8>,
    /// Bytes at the start of `buf` already in `hasher` (or in `sum_buf`).
    hashed: usize,
    /// The length of `buf` at which an append brings the checksum up to
    /// date (or writes the buffer out, at [`BUFFER`]).
    hash_at: usize,
    hasher: Xxh3,
    block_fill: u64,
    /// Checksums of the blocks filled since the last write, which the next
    /// write puts in the sidecar.
    sum_buf: Vec<u8>,
    /// Writes full buffers in the background, when set.
    writer: Option<DataWriter>,
    /// The buffer being written in the background, just before `buf`.
    flight: Option<InFlight>,
    /// An empty buffer back from the background, for the next swap.
    spare: Vec<u8>,
    /// A write or sync failed: what is on disk past the last commit is
    /// unknown, so the file refuses every further write and commit, and the
    /// last checkpoint stays the one to resume from.
    failed: bool,
    /// Tests simulate a full disk once this many data bytes are written.
    #[cfg(test)]
    pub(crate) fail_after: Option<u64>,
}

fn open_rw(path: &Path, truncate: bool) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(truncate)
        .open(path)
        .map_err(io(path))
}

impl AppendFile {
    /// Creates (or empties) the file and its sidecar.
    pub fn create(path: &Path, header: Header) -> Result<AppendFile, StoreError> {
        let sum_path = sum_path(path);
        let mut file = open_rw(path, true)?;
        let mut sums = open_rw(&sum_path, true)?;
        file.write_all(&header.encode()).map_err(io(path))?;
        sums.write_all(&sum_header().encode())
            .map_err(io(&sum_path))?;
        Ok(AppendFile::with(path, sum_path, file, sums, 0))
    }

    fn with(path: &Path, sum_path: PathBuf, file: File, sums: File, len: u64) -> AppendFile {
        AppendFile {
            path: path.to_path_buf(),
            sum_path,
            file: Arc::new(file),
            sums: Arc::new(sums),
            flushed: len,
            buf: Vec::with_capacity(BUFFER),
            hashed: 0,
            hash_at: HASH_STEP,
            hasher: Xxh3::new(),
            block_fill: 0,
            sum_buf: Vec::new(),
            writer: None,
            flight: None,
            spare: Vec::new(),
            failed: false,
            #[cfg(test)]
            fail_after: None,
        }
    }

    /// Reopens the file at a checkpoint: checks the header, cuts everything
    /// written after the checkpoint, and verifies the partial last block.
    pub fn resume(path: &Path, header: Header, commit: Commit) -> Result<AppendFile, StoreError> {
        let sum_path = sum_path(path);
        let file = open_rw(path, false)?;
        let sums = open_rw(&sum_path, false)?;
        check_header(&file, path, header)?;
        check_header(&sums, &sum_path, sum_header())?;
        let have = file.metadata().map_err(io(path))?.len();
        let want = HEADER_LEN as u64 + commit.len;
        if have < want {
            return Err(corrupt(
                path,
                format!("{have} bytes, shorter than the {want} bytes of the last checkpoint"),
            ));
        }
        file.set_len(want).map_err(io(path))?;
        let full = commit.len / BLOCK;
        let sums_want = HEADER_LEN as u64 + full * 8;
        let sums_have = sums.metadata().map_err(io(&sum_path))?.len();
        if sums_have < sums_want {
            return Err(corrupt(
                &sum_path,
                format!("{sums_have} bytes, the checkpoint needs {sums_want}"),
            ));
        }
        sums.set_len(sums_want).map_err(io(&sum_path))?;
        let mut f = AppendFile::with(path, sum_path, file, sums, commit.len);
        let tail_len = (commit.len - full * BLOCK) as usize;
        let mut tail = vec![0u8; tail_len];
        f.file
            .read_exact_at(&mut tail, HEADER_LEN as u64 + full * BLOCK)
            .map_err(io(path))?;
        if xxh3_64(&tail) != commit.tail {
            return Err(corrupt(
                path,
                format!(
                    "checksum mismatch in the last block (data offset {})",
                    full * BLOCK
                ),
            ));
        }
        f.hasher.update(&tail);
        f.block_fill = tail_len as u64;
        Ok(f)
    }

    /// Data bytes written so far (flushed or not).
    #[inline]
    pub fn len(&self) -> u64 {
        self.flushed + self.buf.len() as u64
    }

    /// True when no data byte has been written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends bytes.
    #[inline]
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        // A narrow game's state record, at every new state, is a few bytes.
        crate::word::append_short(&mut self.buf, bytes);
        if self.buf.len() >= self.hash_at {
            self.catch_up()?;
        }
        Ok(())
    }

    /// Brings the checksum up to date with the buffer, and writes the buffer
    /// out once full.
    #[cold]
    #[inline(never)]
    fn catch_up(&mut self) -> Result<(), StoreError> {
        self.hash_buffered();
        if self.buf.len() >= BUFFER {
            self.flush()?;
        }
        self.hash_at = (self.buf.len() + HASH_STEP).min(BUFFER);
        Ok(())
    }

    /// Appends one little-endian word.
    #[inline]
    pub fn append_u64(&mut self, word: u64) -> Result<(), StoreError> {
        self.append(&word.to_le_bytes())
    }

    /// Checksums the buffer block by block and writes it out (or hands it to
    /// the background writer). A failure, now or when a background write
    /// lands, poisons the file, so no commit ever covers checksums of data
    /// that did not reach the file.
    pub fn flush(&mut self) -> Result<(), StoreError> {
        if self.failed {
            return Err(StoreError::Poisoned {
                path: self.path.clone(),
            });
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        let written = self.write_buffer();
        self.failed = written.is_err();
        written
    }

    /// Writes the buffer out and gives back its memory and the spare's, for a
    /// file that takes no more appends for now (a full state segment): its
    /// buffers would otherwise stay resident for the rest of the run, two
    /// megabytes a segment, 184 MiB over room5's 92 segments and past
    /// `--mem`. A later append allocates again.
    pub fn release_buffers(&mut self) -> Result<(), StoreError> {
        self.flush()?;
        self.settle()?;
        self.buf = Vec::new();
        self.spare = Vec::new();
        self.sum_buf = Vec::new();
        Ok(())
    }

    /// Heap bytes the file's buffers hold (capacity, not length), for tests.
    #[cfg(test)]
    pub(crate) fn buffer_bytes(&self) -> usize {
        let flight = self.flight.as_ref().map_or(0, |f| f.data.capacity());
        self.buf.capacity() + self.spare.capacity() + self.sum_buf.capacity() + flight
    }

    /// Hands full buffers to `writer` from now on (see [`crate::flight`]).
    pub fn write_in_background(&mut self, writer: DataWriter) {
        self.writer = Some(writer);
    }

    fn write_buffer(&mut self) -> Result<(), StoreError> {
        self.simulated_full_disk()?;
        // At most one buffer in flight: the previous one must land first.
        self.land()?;
        let at = HEADER_LEN as u64 + self.flushed;
        let len = self.buf.len() as u64;
        self.hash_buffered();
        let summed = self.write_sums();
        let buf = std::mem::take(&mut self.buf);
        self.hashed = 0;
        self.hash_at = HASH_STEP;
        let written = match &self.writer {
            Some(writer) => {
                self.flight = Some(writer.submit(self.file.clone(), buf, at));
                self.buf = std::mem::take(&mut self.spare);
                self.buf.reserve(BUFFER);
                Ok(())
            }
            None => {
                let written = self.file.write_all_at(&buf, at).map_err(io(&self.path));
                self.buf = buf;
                self.buf.clear();
                written
            }
        };
        written?;
        summed?;
        self.flushed += len;
        Ok(())
    }

    /// Waits for the buffer in flight, if any, and keeps it as the spare.
    fn land(&mut self) -> Result<(), StoreError> {
        if let Some(flight) = self.flight.take() {
            self.spare = flight.land().map_err(io(&self.path))?;
        }
        Ok(())
    }

    /// Lands the buffer in flight, poisoning the file if its write failed.
    fn settle(&mut self) -> Result<(), StoreError> {
        if self.failed {
            return Err(StoreError::Poisoned {
                path: self.path.clone(),
            });
        }
        let landed = self.land();
        self.failed = landed.is_err();
        landed
    }

    /// Adds the buffered bytes not yet checksummed to the block checksums,
    /// keeping those of the blocks they fill for the next write.
    fn hash_buffered(&mut self) {
        let mut rest = &self.buf[self.hashed..];
        self.hashed = self.buf.len();
        while !rest.is_empty() {
            let room = (BLOCK - self.block_fill) as usize;
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.hasher.update(now);
            self.block_fill += now.len() as u64;
            if self.block_fill == BLOCK {
                self.sum_buf
                    .extend_from_slice(&self.hasher.digest().to_le_bytes());
                self.hasher = Xxh3::new();
                self.block_fill = 0;
            }
            rest = later;
        }
    }

    /// Writes the checksums of the blocks filled since the last write.
    fn write_sums(&mut self) -> Result<(), StoreError> {
        if !self.sum_buf.is_empty() {
            let at = self.sums.metadata().map_err(io(&self.sum_path))?.len();
            self.sums
                .write_all_at(&self.sum_buf, at)
                .map_err(io(&self.sum_path))?;
            self.sum_buf.clear();
        }
        Ok(())
    }

    #[cfg(test)]
    fn simulated_full_disk(&self) -> Result<(), StoreError> {
        match self.fail_after {
            Some(limit) if self.flushed + self.buf.len() as u64 > limit => {
                Err(io(&self.path)(std::io::Error::from_raw_os_error(28)))
            }
            _ => Ok(()),
        }
    }

    #[cfg(not(test))]
    #[inline]
    fn simulated_full_disk(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Flushes and returns what a checkpoint records, without syncing: the
    /// caller syncs [`AppendFile::sync_files`] before naming the commit
    /// anywhere durable.
    pub fn commit_unsynced(&mut self) -> Result<Commit, StoreError> {
        self.flush()?;
        self.settle()?;
        Ok(Commit {
            len: self.flushed,
            tail: self.hasher.digest(),
        })
    }

    /// The data file and its checksums, for a sync on another thread.
    pub fn sync_files(&self) -> [SyncFile; 2] {
        [
            (self.file.clone(), self.path.clone()),
            (self.sums.clone(), self.sum_path.clone()),
        ]
    }

    /// Flushes, syncs data and checksums, and returns what a checkpoint records.
    pub fn commit(&mut self) -> Result<Commit, StoreError> {
        self.flush()?;
        self.settle()?;
        // After a failed fsync the kernel may have dropped the dirty pages:
        // poison the file rather than ever committing what may be lost.
        let synced = crate::durability::sync_data(&self.file, &self.path)
            .and_then(|()| crate::durability::sync_data(&self.sums, &self.sum_path));
        self.failed = synced.is_err();
        synced?;
        Ok(Commit {
            len: self.flushed,
            tail: self.hasher.digest(),
        })
    }

    /// Reads `len` data bytes at `offset` into `out` (appending), whether
    /// they are on disk or still buffered.
    pub fn read_at(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> Result<(), StoreError> {
        let end = offset + len as u64;
        if end > self.len() {
            return Err(StoreError::Misuse(format!(
                "{}: read of bytes {offset}..{end} past the end {}",
                self.path.display(),
                self.len()
            )));
        }
        // The bytes before `landed` are in the file; then come the buffer
        // in flight, if any, and the one being filled.
        let in_flight = self.flight.as_ref().map_or(&[][..], |f| &f.data[..]);
        let landed = self.flushed - in_flight.len() as u64;
        let on_disk = end.min(landed).saturating_sub(offset) as usize;
        if on_disk > 0 {
            let at = out.len();
            out.resize(at + on_disk, 0);
            self.file
                .read_exact_at(&mut out[at..], HEADER_LEN as u64 + offset)
                .map_err(io(&self.path))?;
        }
        for (start, bytes) in [(landed, in_flight), (self.flushed, &self.buf[..])] {
            let from = offset.clamp(start, start + bytes.len() as u64) - start;
            let to = end.clamp(start, start + bytes.len() as u64) - start;
            out.extend_from_slice(&bytes[from as usize..to as usize]);
        }
        Ok(())
    }
}

impl Drop for AppendFile {
    fn drop(&mut self) {
        // The last write lands before the file closes, so that whoever opens
        // it next reads it; a failure here is that of a run already ending
        // without a commit, whose last checkpoint stands.
        let _ = self.land();
    }
}

fn check_header(file: &File, path: &Path, header: Header) -> Result<(), StoreError> {
    let mut bytes = [0u8; HEADER_LEN];
    let have = file.metadata().map_err(io(path))?.len();
    if have < HEADER_LEN as u64 {
        return Err(corrupt(path, format!("truncated header ({have} bytes)")));
    }
    file.read_exact_at(&mut bytes, 0).map_err(io(path))?;
    header.check(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            kind: kind("test"),
            width: 1,
        }
    }

    /// Regression: a full state segment kept its 1 MiB buffer and its
    /// spare for the rest of the run (room5 went 62 MiB past `--mem`).
    /// Releasing them keeps the file's bytes, checksums and commit.
    #[test]
    fn released_buffers_give_back_their_memory_and_keep_the_data() {
        let data: Vec<u8> = (0..3 * BUFFER + 12_345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let (plain, plain_sums, plain_commits) = written_in_pieces(&data, 4096, usize::MAX);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let writer = crate::flight::DataWriter::start().unwrap();
        let mut f = AppendFile::create(&path, header()).unwrap();
        f.write_in_background(writer);
        for chunk in data.chunks(4096) {
            f.append(chunk).unwrap();
        }
        assert!(f.buffer_bytes() >= BUFFER, "{}", f.buffer_bytes());
        f.release_buffers().unwrap();
        assert_eq!(f.buffer_bytes(), 0);
        let mut back = Vec::new();
        f.read_at(0, data.len(), &mut back).unwrap();
        assert_eq!(back, data);
        assert_eq!(f.commit().unwrap(), *plain_commits.last().unwrap());
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), plain);
        assert_eq!(std::fs::read(sum_path(&path)).unwrap(), plain_sums);
    }

    /// The bytes of a file written by appending `data` in pieces of `piece`
    /// bytes with a commit after `commit_at`, its sidecar, and the commits.
    fn written_in_pieces(
        data: &[u8],
        piece: usize,
        commit_at: usize,
    ) -> (Vec<u8>, Vec<u8>, Vec<Commit>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut f = AppendFile::create(&path, header()).unwrap();
        let mut commits = Vec::new();
        for (k, chunk) in data.chunks(piece).enumerate() {
            f.append(chunk).unwrap();
            if k * piece <= commit_at && commit_at < (k + 1) * piece {
                commits.push(f.commit().unwrap());
            }
        }
        commits.push(f.commit().unwrap());
        drop(f);
        let sums = std::fs::read(sum_path(&path)).unwrap();
        (std::fs::read(&path).unwrap(), sums, commits)
    }

    #[test]
    fn checksums_do_not_depend_on_how_the_appends_cut_the_data() {
        // Appends of every size reach the checksum in steps of their own
        // (HASH_STEP, the buffer's end, a commit): none of that may show.
        let data: Vec<u8> = (0..2_600_000u32).map(|i| (i * 7 % 253) as u8).collect();
        let whole = written_in_pieces(&data, data.len(), 1_300_000);
        for piece in [
            1,
            5,
            8,
            4093,
            HASH_STEP,
            HASH_STEP + 3,
            BUFFER - 1,
            BUFFER + 17,
        ] {
            let cut = written_in_pieces(&data, piece, 1_300_000);
            assert!(cut.0 == whole.0, "data, pieces of {piece}");
            assert!(cut.1 == whole.1, "checksums, pieces of {piece}");
            assert_eq!(cut.2.last(), whole.2.last(), "pieces of {piece}");
        }
        // The sidecar holds one checksum per full block, that of the block.
        let sums = &whole.1[HEADER_LEN..];
        assert_eq!(sums.len() as u64, 8 * (data.len() as u64 / BLOCK));
        assert_eq!(sums[..8], xxh3_64(&data[..BLOCK as usize]).to_le_bytes());
    }

    #[test]
    fn reads_span_disk_and_buffer_and_resume_cuts_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut f = AppendFile::create(&path, header()).unwrap();
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        f.append(&data[..2_000_000]).unwrap();
        let commit = f.commit().unwrap();
        f.append(&data[2_000_000..]).unwrap();
        let mut out = Vec::new();
        f.read_at(1_999_990, 20, &mut out).unwrap();
        assert_eq!(out, &data[1_999_990..2_000_010]);
        f.flush().unwrap();
        drop(f);
        let mut g = AppendFile::resume(&path, header(), commit).unwrap();
        assert_eq!(g.len(), 2_000_000);
        g.append(&data[2_000_000..]).unwrap();
        let c2 = g.commit().unwrap();
        let mut again = AppendFile::create(&dir.path().join("g"), header()).unwrap();
        again.append(&data).unwrap();
        assert_eq!(again.commit().unwrap(), c2);
        assert!(g.read_at(2_999_999, 2, &mut out).is_err());
    }

    #[test]
    fn background_writes_read_back_and_commit_like_synchronous_ones() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..5_000_000u32).map(|i| (i % 253) as u8).collect();
        let mut sync = AppendFile::create(&dir.path().join("s"), header()).unwrap();
        let mut back = AppendFile::create(&dir.path().join("b"), header()).unwrap();
        back.write_in_background(DataWriter::start().unwrap());
        let mut out = Vec::new();
        for piece in data.chunks(700_001) {
            sync.append(piece).unwrap();
            back.append(piece).unwrap();
            // Reads that span the file, the buffer in flight and the one
            // being filled.
            let len = back.len();
            let wide = len.saturating_sub(BUFFER as u64 + 5);
            for (from, to) in [(0, 10), (wide, len), (len - 3, len)] {
                out.clear();
                back.read_at(from, (to - from) as usize, &mut out).unwrap();
                assert_eq!(out, &data[from as usize..to as usize]);
            }
        }
        assert_eq!(sync.commit().unwrap(), back.commit().unwrap());
        drop((sync, back));
        for name in ["s", "b", "s.sum", "b.sum"] {
            assert!(std::fs::metadata(dir.path().join(name)).unwrap().len() > 0);
        }
        let read = |n: &str| std::fs::read(dir.path().join(n)).unwrap();
        assert_eq!(read("s"), read("b"));
        assert_eq!(read("s.sum"), read("b.sum"));
    }

    #[test]
    fn a_failed_background_write_poisons_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut f = AppendFile::create(&path, header()).unwrap();
        f.write_in_background(DataWriter::start().unwrap());
        // A read-only handle makes the background write fail.
        f.file = Arc::new(File::open(&path).unwrap());
        f.append(&vec![1u8; BUFFER + 10]).unwrap();
        let e = f.commit_unsynced().unwrap_err().to_string();
        assert!(e.contains(&path.display().to_string()), "{e}");
        let e = f.commit().unwrap_err().to_string();
        assert!(e.contains("earlier write failed"), "{e}");
    }

    #[test]
    fn resume_refuses_a_short_or_damaged_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut f = AppendFile::create(&path, header()).unwrap();
        f.append(&[7u8; 100]).unwrap();
        let commit = f.commit().unwrap();
        drop(f);
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&[8], 70).unwrap();
        let e = AppendFile::resume(&path, header(), commit)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("checksum"), "{e}");
        file.set_len(90).unwrap();
        let e = AppendFile::resume(&path, header(), commit)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("shorter"), "{e}");
    }
}
