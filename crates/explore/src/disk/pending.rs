//! The layer's pending stream: every queued parent's row of edges (their
//! targets possibly placeholders) or its terminal outcome, in parent order,
//! written to a scratch file until the round's candidates are resolved
//! (see `DiskDedup::finish_layer`, which reads it back).
//!
//! The merge encodes each row straight into the write buffer. (Built in a
//! row buffer, then copied into a `BufWriter` of 1 MiB, each row was a call
//! to `memmove`, and the buffer's lines had left the cache since its last
//! write call: a twentieth of the merging thread's time in the disk phase
//! on room4 under `--mem 128M`.) The buffer is small enough to stay in the
//! core's cache between its write calls.

use super::io_err;
use crate::ExploreError;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

/// Bytes the stream buffers before a write call.
const PENDING_BUF: usize = 256 << 10;

/// The open pending stream of a layer (or round).
pub struct Pending {
    path: PathBuf,
    file: File,
    buf: Vec<u8>,
}

impl Pending {
    /// Creates the stream's file at `path`.
    pub fn create(path: PathBuf) -> Result<Pending, ExploreError> {
        let file = File::create(&path).map_err(io_err(&path))?;
        Ok(Pending {
            path,
            file,
            // Room for a full buffer and the widest row past it.
            buf: Vec::with_capacity(2 * PENDING_BUF),
        })
    }

    /// The buffer, to append the next row to; [`Pending::row_done`] follows.
    pub fn row(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Writes the buffer out once it holds [`PENDING_BUF`] bytes.
    pub fn row_done(&mut self) -> Result<(), ExploreError> {
        if self.buf.len() >= PENDING_BUF {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExploreError> {
        self.file.write_all(&self.buf).map_err(io_err(&self.path))?;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is buffered and closes the file; returns its path.
    pub fn finish(mut self) -> Result<PathBuf, ExploreError> {
        self.flush()?;
        Ok(self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of every size, some past the buffer, come back in order.
    #[test]
    fn rows_are_written_in_order_whatever_their_size() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut out = Pending::create(dir.path().join("pending")).expect("create");
        let mut expected = Vec::new();
        for i in 0..3_000usize {
            let row: Vec<u8> = (0..(i * 37) % 1_000).map(|b| (b ^ i) as u8).collect();
            out.row().extend_from_slice(&row);
            out.row_done().expect("row");
            expected.extend_from_slice(&row);
        }
        let path = out.finish().expect("finish");
        assert_eq!(std::fs::read(path).expect("read"), expected);
    }
}
