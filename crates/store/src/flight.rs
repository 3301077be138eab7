//! Writes of full buffers on a background thread, so that the thread filling
//! them (the explorer's merge, the one sequential step of a search) does not
//! wait for the kernel's copy into the page cache.
//!
//! An [`crate::append::AppendFile`] hands a full buffer over and goes on
//! filling a second one; at most one buffer per file is in flight, so the
//! writes of a file land in order and the data written never runs more than
//! a buffer ahead of the disk. The bytes in flight stay readable (they are
//! shared with the writing thread), and a write's failure is returned by the
//! file's next flush or commit, which poisons it as a synchronous failure
//! would.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;

struct Job {
    file: Arc<File>,
    data: Arc<Vec<u8>>,
    at: u64,
    done: SyncSender<io::Result<()>>,
}

/// The background writer a run's files share; cheap to clone.
#[derive(Clone)]
pub struct DataWriter {
    jobs: Sender<Job>,
}

impl DataWriter {
    /// Starts the writing thread. It ends once every clone is dropped and
    /// every file has landed its last write.
    pub fn start() -> io::Result<DataWriter> {
        let (jobs, inbox) = channel::<Job>();
        std::thread::Builder::new()
            .name("hsg-write".into())
            .spawn(move || {
                for job in inbox {
                    let written = job.file.write_all_at(&job.data, job.at);
                    // The buffer goes back to its file only once no one else
                    // holds it, so that the file can reuse it.
                    drop(job.data);
                    let _ = job.done.send(written);
                }
            })?;
        Ok(DataWriter { jobs })
    }

    /// Writes `data` at byte `at` of `file` in the background.
    pub(crate) fn submit(&self, file: Arc<File>, data: Vec<u8>, at: u64) -> InFlight {
        let (done, landed) = sync_channel(1);
        let data = Arc::new(data);
        let job = Job {
            file,
            data: data.clone(),
            at,
            done,
        };
        // A send fails only when the thread is gone; the write then reports
        // it when it lands.
        let _ = self.jobs.send(job);
        InFlight { data, landed }
    }
}

/// One buffer being written.
pub(crate) struct InFlight {
    /// The bytes, readable until the write is done.
    pub data: Arc<Vec<u8>>,
    landed: Receiver<io::Result<()>>,
}

impl InFlight {
    /// Waits for the write to be done and returns the buffer, emptied, for
    /// reuse.
    pub fn land(self) -> io::Result<Vec<u8>> {
        let written = self
            .landed
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the background write thread stopped")));
        written?;
        let mut buf = Arc::try_unwrap(self.data).unwrap_or_default();
        buf.clear();
        Ok(buf)
    }
}
