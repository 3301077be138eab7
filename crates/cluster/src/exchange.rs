//! The one communication primitive the distributed explorer uses: a
//! bulk-synchronous all-to-all step. Implemented over timely dataflow
//! ([`crate::timely_exchange`]) and, for tests, in memory between threads
//! ([`MemoryExchange`]).

use crate::ClusterError;
use std::sync::{Arc, Barrier, Mutex};

/// One all-to-all step at a time between `peers` processes.
pub trait Exchange {
    /// This process's index, `0..peers`.
    fn index(&self) -> usize;

    /// How many processes take part.
    fn peers(&self) -> usize;

    /// Sends `outgoing[k]` to process `k` (one buffer per process, this one
    /// included) and returns, indexed by sender, what every process sent to
    /// this one in the same step, once every process has sent everything of
    /// the step. Every process calls it the same number of times.
    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, ClusterError>;
}

/// The mailboxes of a [`MemoryExchange`] group: `boxes[to][from]`.
struct Shared {
    boxes: Mutex<Vec<Vec<Vec<u8>>>>,
    barrier: Barrier,
}

/// An [`Exchange`] between threads of one process, for tests of the protocol.
pub struct MemoryExchange {
    index: usize,
    peers: usize,
    shared: Arc<Shared>,
}

impl MemoryExchange {
    /// A group of `peers` connected exchanges, one for each thread.
    pub fn group(peers: usize) -> Vec<MemoryExchange> {
        let shared = Arc::new(Shared {
            boxes: Mutex::new(vec![vec![Vec::new(); peers]; peers]),
            barrier: Barrier::new(peers),
        });
        (0..peers)
            .map(|index| MemoryExchange {
                index,
                peers,
                shared: shared.clone(),
            })
            .collect()
    }

    fn boxes(&self) -> Result<std::sync::MutexGuard<'_, Vec<Vec<Vec<u8>>>>, ClusterError> {
        self.shared
            .boxes
            .lock()
            .map_err(|_| ClusterError::Network("a peer thread panicked".into()))
    }
}

impl Exchange for MemoryExchange {
    fn index(&self) -> usize {
        self.index
    }

    fn peers(&self) -> usize {
        self.peers
    }

    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, ClusterError> {
        if outgoing.len() != self.peers {
            return Err(ClusterError::Network(format!(
                "{} buffers for {} peers",
                outgoing.len(),
                self.peers
            )));
        }
        {
            let mut boxes = self.boxes()?;
            for (to, bytes) in outgoing.into_iter().enumerate() {
                boxes[to][self.index] = bytes;
            }
        }
        // Everyone has posted; then everyone takes their mail before anyone
        // may post the next step's into the same boxes.
        self.shared.barrier.wait();
        let mine = std::mem::take(&mut self.boxes()?[self.index]);
        self.boxes()?[self.index] = vec![Vec::new(); self.peers];
        self.shared.barrier.wait();
        Ok(mine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_peer_receives_what_each_sent_it() {
        let group = MemoryExchange::group(3);
        let got: Vec<Vec<Vec<u8>>> = std::thread::scope(|s| {
            let handles: Vec<_> = group
                .into_iter()
                .map(|mut ex| {
                    s.spawn(move || {
                        let me = ex.index() as u8;
                        let mut last = Vec::new();
                        for step in 0..3u8 {
                            let out = (0..3u8).map(|to| vec![me, to, step]).collect();
                            last = ex.exchange(out).unwrap();
                        }
                        last
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (to, mail) in got.iter().enumerate() {
            for (from, bytes) in mail.iter().enumerate() {
                assert_eq!(bytes, &vec![from as u8, to as u8, 2]);
            }
        }
    }
}
