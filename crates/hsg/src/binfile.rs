//! The container of every binary file of a saved analysis: a 64-byte header followed by
//! fixed-width little-endian records, with an xxh3-64 checksum of the data in the header.
//!
//! Header layout (all little endian): magic `b"HSGANLYS"` (8 bytes), file kind (8 ASCII
//! bytes, space padded), format version `u32`, record width in bytes `u32`, record count
//! `u64`, xxh3-64 of the data `u64`, then zeros up to byte 64.

use crate::error::HsgError;
use crate::summary::FORMAT_VERSION;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Magic bytes opening every binary analysis file.
pub const MAGIC: &[u8; 8] = b"HSGANLYS";
/// Size of the header.
pub const HEADER_LEN: usize = 64;

/// Writes `count` records of `width` bytes produced by `fill` (which appends exactly
/// `width` bytes for record `i`), then fsyncs the file.
pub fn write_records(
    path: &Path,
    kind: &[u8; 8],
    width: u32,
    count: u64,
    mut fill: impl FnMut(u64, &mut Vec<u8>),
) -> Result<(), HsgError> {
    write_record_chunks(path, kind, width, count, |records, out| {
        for i in records {
            fill(i, out);
        }
    })
}

/// Records a chunk of a file holds while it is encoded: 64 Ki of them.
const CHUNK_RECORDS: u64 = 1 << 16;

/// As [`write_records`], with `fill` appending a range of records at a time (so that
/// the files of one id a state are encoded slice by slice, not record by record).
pub fn write_record_chunks(
    path: &Path,
    kind: &[u8; 8],
    width: u32,
    count: u64,
    mut fill: impl FnMut(std::ops::Range<u64>, &mut Vec<u8>),
) -> Result<(), HsgError> {
    let io = |e| HsgError::io(path, e);
    let file = File::create(path).map_err(io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(&[0u8; HEADER_LEN]).map_err(io)?;
    let mut hasher = Xxh3::new();
    let mut chunk = Vec::with_capacity((CHUNK_RECORDS * u64::from(width)) as usize);
    let mut at = 0u64;
    while at < count {
        let end = count.min(at + CHUNK_RECORDS);
        fill(at..end, &mut chunk);
        hasher.update(&chunk);
        out.write_all(&chunk).map_err(io)?;
        chunk.clear();
        at = end;
    }
    let header = header(kind, width, count, hasher.digest());
    let mut file = out
        .into_inner()
        .map_err(|e| HsgError::io(path, e.into_error()))?;
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.write_all(&header).map_err(io)?;
    sync_file(&file, path).map_err(io)
}

/// Syncs `file`, announcing the sync to the store's durability observer (the power-loss
/// tests; nothing without the store's feature `sync-observer`).
pub fn sync_file(file: &File, path: &Path) -> std::io::Result<()> {
    use store::durability::{note, SyncEvent};
    note(SyncEvent::Syncing(path));
    file.sync_all()?;
    note(SyncEvent::Synced(path));
    Ok(())
}

/// Syncs the directory `dir` (its entries: creations, renames, removals), announced
/// like [`sync_file`].
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()?;
    store::durability::note(store::durability::SyncEvent::DirSynced(dir));
    Ok(())
}

fn header(kind: &[u8; 8], width: u32, count: u64, checksum: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..16].copy_from_slice(kind);
    h[16..20].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[20..24].copy_from_slice(&width.to_le_bytes());
    h[24..32].copy_from_slice(&count.to_le_bytes());
    h[32..40].copy_from_slice(&checksum.to_le_bytes());
    h
}

/// A verified file: its record width and the data bytes.
pub struct Records {
    /// Bytes per record.
    pub width: usize,
    /// `count * width` bytes of records.
    pub data: Vec<u8>,
}

impl Records {
    /// Number of records.
    pub fn count(&self) -> usize {
        self.data.len().checked_div(self.width).unwrap_or(0)
    }

    /// The bytes of record `i`.
    pub fn record(&self, i: usize) -> &[u8] {
        &self.data[i * self.width..(i + 1) * self.width]
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

/// Reads a little-endian `u64` at byte `at` of `b` (the caller checks the length).
pub fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// Reads and verifies a file of kind `kind` whose width is one of `widths`.
pub fn read_records(path: &Path, kind: &[u8; 8], widths: &[u32]) -> Result<Records, HsgError> {
    let stream = RecordStream::open(path, kind, widths)?;
    let width = stream.width;
    // The header's count matched the file's length, so this is bounded by the file.
    let mut data = Vec::with_capacity(stream.data_len() as usize);
    stream.for_each_chunk(|chunk| data.extend_from_slice(chunk))?;
    Ok(Records { width, data })
}

/// What the header of a record file says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// Bytes per record.
    pub width: usize,
    /// Number of records.
    pub count: u64,
    /// xxh3-64 of the data after the header.
    pub checksum: u64,
}

/// Checks the header `bytes` (the file's first 64 bytes; ignored when the file is
/// shorter) of `path`, a file of `len` bytes: magic, kind, version, a width among
/// `widths`, and a record count that matches the length.
pub fn check_header(
    path: &Path,
    bytes: &[u8; HEADER_LEN],
    len: u64,
    kind: &[u8; 8],
    widths: &[u32],
) -> Result<RecordHeader, HsgError> {
    let bad = |what: String| HsgError::corrupt(path, what);
    if len < HEADER_LEN as u64 {
        return Err(bad(format!("{len} bytes, shorter than the 64-byte header")));
    }
    if &bytes[0..8] != MAGIC || &bytes[8..16] != kind {
        return Err(bad(format!(
            "bytes 0..16 should read {:?}{:?}",
            String::from_utf8_lossy(MAGIC),
            String::from_utf8_lossy(kind)
        )));
    }
    let version = u32_at(bytes, 16);
    if version != FORMAT_VERSION {
        return Err(bad(format!(
            "format version {version}, expected {FORMAT_VERSION}"
        )));
    }
    let width = u32_at(bytes, 20);
    if !widths.contains(&width) {
        return Err(bad(format!(
            "record width {width} at byte 20, expected one of {widths:?}"
        )));
    }
    let count = u64_at(bytes, 24);
    let expected = count
        .checked_mul(u64::from(width))
        .and_then(|d| d.checked_add(HEADER_LEN as u64));
    if expected != Some(len) {
        return Err(bad(format!(
            "{len} bytes, but the header announces {count} records of {width} bytes"
        )));
    }
    Ok(RecordHeader {
        width: width as usize,
        count,
        checksum: u64_at(bytes, 32),
    })
}

/// A file of records read in chunks, so that a large file (a run's component numbers
/// take 4 bytes a state: 6 GB for 1.5 G states) is decoded straight into its final
/// array, never held whole in memory beside it.
pub struct RecordStream {
    file: File,
    path: std::path::PathBuf,
    /// Bytes per record.
    pub width: usize,
    /// Number of records.
    pub count: u64,
    checksum: u64,
}

impl RecordStream {
    /// Opens `path` and checks its header: magic, kind, version, a width among
    /// `widths`, and a record count that matches the file's length.
    pub fn open(path: &Path, kind: &[u8; 8], widths: &[u32]) -> Result<RecordStream, HsgError> {
        let mut file = File::open(path).map_err(|e| HsgError::io(path, e))?;
        let len = file.metadata().map_err(|e| HsgError::io(path, e))?.len();
        let mut bytes = [0u8; HEADER_LEN];
        if len >= HEADER_LEN as u64 {
            file.read_exact(&mut bytes)
                .map_err(|e| HsgError::io(path, e))?;
        }
        let h = check_header(path, &bytes, len, kind, widths)?;
        Ok(RecordStream {
            file,
            path: path.to_path_buf(),
            width: h.width,
            count: h.count,
            checksum: h.checksum,
        })
    }

    /// Bytes of records after the header.
    pub fn data_len(&self) -> u64 {
        self.count * self.width as u64
    }

    /// Calls `f` with the data in chunks of whole records, in order, then checks the
    /// checksum of all of it (a damaged file is an error after the calls: the caller
    /// drops what it built).
    pub fn for_each_chunk(mut self, mut f: impl FnMut(&[u8])) -> Result<(), HsgError> {
        const CHUNK_RECORDS: usize = 1 << 16;
        let mut left = self.data_len();
        let mut chunk = vec![0u8; CHUNK_RECORDS * self.width];
        let mut hasher = Xxh3::new();
        while left > 0 {
            let take = left.min(chunk.len() as u64) as usize;
            self.file
                .read_exact(&mut chunk[..take])
                .map_err(|e| HsgError::io(&self.path, e))?;
            hasher.update(&chunk[..take]);
            f(&chunk[..take]);
            left -= take as u64;
        }
        if hasher.digest() != self.checksum {
            return Err(HsgError::corrupt(
                &self.path,
                String::from("checksum mismatch: the data after byte 64 is damaged"),
            ));
        }
        Ok(())
    }
}
