//! The round's pending stream (each parent's row of edges, placeholders
//! unresolved) written to its scratch file by a thread of its own.
//!
//! The merge queues every parent's row here, and a write call a megabyte
//! copies it into the page cache: on room4 under `--mem 128M` those copies
//! were a tenth of the merge, which is the one sequential step of the search
//! (the next chunk's expansion beside it finishes first and waits). Full
//! buffers go to a writer thread, which hands them back empty; three buffers
//! circulate, so the stream holds at most three megabytes whatever its
//! length. With one thread the merge writes them itself.

use super::{io_err, IO_BUF};
use crate::ExploreError;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Buffers the stream and its writer share.
const BUFFERS: usize = 3;

/// Where full buffers go.
enum Sink {
    /// Written by the merging thread.
    Inline(File),
    /// Written by a thread of its own, which sends each buffer back empty.
    Thread {
        full: SyncSender<Vec<u8>>,
        empty: Receiver<Vec<u8>>,
        /// Taken when joined.
        writer: Option<JoinHandle<std::io::Result<()>>>,
    },
}

/// A pending stream being written.
pub struct PendingOut {
    path: PathBuf,
    buf: Vec<u8>,
    sink: Sink,
}

impl PendingOut {
    /// Creates the stream's file at `path`; its full buffers are written on
    /// a thread of their own when `threaded` (and the system gives one).
    pub fn create(path: PathBuf, threaded: bool) -> Result<PendingOut, ExploreError> {
        let file = File::create(&path).map_err(io_err(&path))?;
        let sink = match threaded {
            true => spawn_writer(file)?,
            false => Sink::Inline(file),
        };
        Ok(PendingOut {
            path,
            buf: Vec::with_capacity(IO_BUF),
            sink,
        })
    }

    /// Appends `bytes` to the stream.
    #[inline]
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), ExploreError> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= IO_BUF {
            self.pass_on()?;
        }
        Ok(())
    }

    /// Hands the buffer to the sink and takes an empty one.
    fn pass_on(&mut self) -> Result<(), ExploreError> {
        match &mut self.sink {
            Sink::Inline(file) => {
                file.write_all(&self.buf).map_err(io_err(&self.path))?;
                self.buf.clear();
                Ok(())
            }
            Sink::Thread {
                full,
                empty,
                writer,
            } => {
                // Either fails only when the writer stopped, on an error.
                let next = empty.recv();
                let sent = next.map(|next| std::mem::replace(&mut self.buf, next));
                if let Ok(Ok(())) = sent.map(|buf| full.send(buf)) {
                    return Ok(());
                }
                join_writer(writer.take(), &self.path)?;
                Err(stopped(&self.path))
            }
        }
    }

    /// Writes what is left and waits for the writer: the whole stream is in
    /// its file when this returns. Returns the file's path.
    pub fn finish(mut self) -> Result<PathBuf, ExploreError> {
        match self.sink {
            Sink::Inline(mut file) => {
                file.write_all(&self.buf).map_err(io_err(&self.path))?;
            }
            Sink::Thread { full, writer, .. } => {
                let last = std::mem::take(&mut self.buf);
                // A refused send means the writer stopped: joined below.
                let _ = full.send(last);
                drop(full);
                join_writer(writer, &self.path)?;
            }
        }
        Ok(self.path)
    }
}

/// Starts the writer thread of a stream whose file is `file`.
fn spawn_writer(mut file: File) -> Result<Sink, ExploreError> {
    let (full, to_write) = sync_channel::<Vec<u8>>(BUFFERS - 1);
    let (give_back, empty) = channel();
    for _ in 1..BUFFERS {
        // The receiver is alive: a send cannot fail here.
        let _ = give_back.send(Vec::with_capacity(IO_BUF));
    }
    let writer = std::thread::Builder::new()
        .name("pending".into())
        .spawn(move || {
            for mut buf in to_write {
                file.write_all(&buf)?;
                buf.clear();
                // The stream may have finished and gone: nothing to give back to.
                let _ = give_back.send(buf);
            }
            Ok(())
        })
        .map_err(|source| ExploreError::Threads { threads: 2, source })?;
    Ok(Sink::Thread {
        full,
        empty,
        writer: Some(writer),
    })
}

/// The error of a stream whose writer stopped taking buffers.
fn stopped(path: &Path) -> ExploreError {
    io_err(path)(std::io::Error::other("the pending stream's writer stopped"))
}

/// Waits for a writer thread and returns its error (or that it was joined
/// already: it stopped taking buffers).
fn join_writer(
    writer: Option<JoinHandle<std::io::Result<()>>>,
    path: &Path,
) -> Result<(), ExploreError> {
    let Some(writer) = writer else {
        return Err(stopped(path));
    };
    writer
        .join()
        // A panic there is a bug, raised again here.
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        .map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of every size, across many buffers, reach the file whole and in
    /// order, written by the thread or by the caller.
    #[test]
    fn the_stream_reaches_its_file_in_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        for threaded in [true, false] {
            let path = dir.path().join(format!("pending-{threaded}"));
            let mut out = PendingOut::create(path.clone(), threaded).expect("create");
            let mut expected = Vec::new();
            for i in 0..40_000u32 {
                let row: Vec<u8> = (0..i % 301).map(|k| (i ^ k) as u8).collect();
                out.write(&row).expect("write");
                expected.extend_from_slice(&row);
            }
            assert!(expected.len() > BUFFERS * IO_BUF);
            assert_eq!(out.finish().expect("finish"), path);
            assert!(std::fs::read(&path).expect("read") == expected);
        }
    }
}
