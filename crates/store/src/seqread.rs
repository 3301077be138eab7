//! Sequential buffered reading of a data file's committed bytes, for the
//! passes of `finish` (which, like the rest of the writer, does not mmap).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::format::HEADER_LEN;

/// Reads `[HEADER_LEN, HEADER_LEN + len)` of a file front to back.
pub(crate) struct SeqReader {
    path: PathBuf,
    reader: BufReader<File>,
    remaining: u64,
}

impl SeqReader {
    pub fn open(path: &Path, data_len: u64, buf_bytes: usize) -> Result<SeqReader, StoreError> {
        let mut file = File::open(path).map_err(StoreError::io(path, "opening for reading"))?;
        file.seek(SeekFrom::Start(HEADER_LEN))
            .map_err(StoreError::io(path, "seeking"))?;
        Ok(SeqReader {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(buf_bytes.max(4096), file),
            remaining: data_len,
        })
    }

    /// Fills `out` exactly; an early end of file is reported as a truncation.
    pub fn read_exact(&mut self, out: &mut [u8]) -> Result<(), StoreError> {
        if out.len() as u64 > self.remaining {
            return Err(StoreError::Usage(format!(
                "{}: sequential read past the committed length",
                self.path.display()
            )));
        }
        self.reader
            .read_exact(out)
            .map_err(StoreError::io(&self.path, "reading sequentially"))?;
        self.remaining -= out.len() as u64;
        Ok(())
    }

    /// Reads the next little-endian word.
    #[inline]
    pub fn next_u64(&mut self) -> Result<u64, StoreError> {
        let mut word = [0u8; 8];
        self.read_exact(&mut word)?;
        Ok(u64::from_le_bytes(word))
    }
}
