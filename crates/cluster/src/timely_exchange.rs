//! [`Exchange`] over timely dataflow: one dataflow with an input, an
//! exchange by destination and a collecting operator, followed by a probe.
//! A step sends its buffers at timestamp `t` (cut into pieces of at most
//! [`PIECE`] bytes, numbered so that the receiver can put them back in
//! order), advances the input past `t`, and steps the worker until the probe
//! says that no record of `t` can still arrive anywhere.

use crate::{ClusterError, ClusterKey, Exchange};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::RunIdentity;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange as ByKey, Pipeline};
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// Bytes per record sent through timely: large enough that the per-record
/// cost vanishes, small enough that buffers stay modest.
pub const PIECE: usize = 1 << 20;

/// How long a worker steps without pause at the end of a step before it
/// parks between looks.
const SPIN: Duration = Duration::from_millis(2);

/// The longest a parked worker sleeps before it looks again (arriving data
/// wakes it sooner).
const PARK: Duration = Duration::from_millis(1);

/// One piece: destination, sender, piece number, bytes.
type Piece = (u64, u32, u32, Bytes);

/// A piece's bytes, serialized as one byte string (a length and a copy)
/// rather than as a sequence of numbers, which timely's bincode encoding
/// would write and read back one byte at a time.
#[derive(Clone, Debug, Default)]
pub struct Bytes(pub Vec<u8>);

impl serde::Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        d.deserialize_byte_buf(BytesVisitor)
    }
}

struct BytesVisitor;

impl<'de> serde::de::Visitor<'de> for BytesVisitor {
    type Value = Bytes;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
        Ok(Bytes(v.to_vec()))
    }

    fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
        Ok(Bytes(v))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(PIECE));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(Bytes(out))
    }
}

/// Where a cluster's processes listen, which one this is, and what it
/// proves to the others.
#[derive(Clone)]
pub struct ClusterConfig {
    /// `host:port` of every process, in process order: process `i` listens
    /// on `addresses[i]`.
    pub addresses: Vec<String>,
    /// This process's index into `addresses`.
    pub process: usize,
    /// The shared secret every connection proves (required with more than
    /// one address).
    pub key: Option<ClusterKey>,
    /// The run this process explores: bound into every handshake, and
    /// compared field by field with a peer's when the two differ.
    pub identity: RunIdentity,
    /// How long to wait for every other process to connect and authenticate.
    pub connect_timeout: Duration,
    /// Where to say what happens while waiting (a refused connection).
    pub notice: Arc<dyn Fn(&str) + Send + Sync>,
}

/// An [`Exchange`] between the processes of a timely computation (one
/// worker per process).
pub struct TimelyExchange<'w> {
    worker: &'w mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Piece>>>,
    probe: ProbeHandle<u64>,
    /// Pieces received, with their timestamp (a faster peer's pieces of the
    /// next step may arrive before this step is over).
    received: Rc<RefCell<Vec<(u64, Piece)>>>,
    step: u64,
}

impl<'w> TimelyExchange<'w> {
    /// Builds the exchange's dataflow on `worker`.
    pub fn new(worker: &'w mut Worker) -> TimelyExchange<'w> {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let received = Rc::new(RefCell::new(Vec::new()));
        let sink = received.clone();
        worker.dataflow(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Piece>>()
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    ByKey::new(|p: &Piece| p.0),
                    "Collect",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|cap, data| {
                                let time = cap.least().copied().unwrap_or_default();
                                let mut sink = sink.borrow_mut();
                                sink.extend(data.drain(..).map(|p| (time, p)));
                            });
                        }
                    },
                )
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(Pipeline, "Done", |_, _| {
                    |input, _output| input.for_each(|_, _| ())
                })
                .probe_with(&probe);
        });
        TimelyExchange {
            worker,
            input,
            probe,
            received,
            step: 0,
        }
    }
}

impl Exchange for TimelyExchange<'_> {
    fn index(&self) -> usize {
        self.worker.index()
    }

    fn peers(&self) -> usize {
        self.worker.peers()
    }

    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, ClusterError> {
        let me = self.index() as u32;
        for (to, mut bytes) in outgoing.into_iter().enumerate() {
            // Pieces are cut off the end, the buffer shrinking as they go,
            // so that a large buffer and its copy in pieces are never both
            // held whole; the first piece travels as it is, without a copy.
            let mut pieces = Vec::new();
            for seq in (1..bytes.len().div_ceil(PIECE)).rev() {
                pieces.push((seq, bytes.split_off(seq * PIECE)));
                bytes.shrink_to_fit();
            }
            pieces.push((0, bytes));
            for (seq, piece) in pieces.into_iter().rev() {
                self.input.send((to as u64, me, seq as u32, Bytes(piece)));
            }
        }
        let step = self.step;
        self.step += 1;
        self.input.advance_to(self.step);
        // Spin briefly (the step's own progress needs a few steps of this
        // worker, which nothing would wake a parked worker for), then park
        // between looks, so that a process waiting for its peers leaves the
        // cores to them.
        let spin_until = Instant::now() + SPIN;
        let mut spinning = true;
        let mut steps = 0u32;
        while self.probe.less_than(self.input.time()) {
            if spinning {
                self.worker.step();
                steps += 1;
                spinning = !steps.is_multiple_of(64) || Instant::now() < spin_until;
            } else {
                self.worker.step_or_park(Some(PARK));
            }
        }
        let mut mine: Vec<(u32, u32, Vec<u8>)> = Vec::new();
        self.received.borrow_mut().retain_mut(|(time, p)| {
            if *time != step {
                return true;
            }
            mine.push((p.1, p.2, std::mem::take(&mut p.3 .0)));
            false
        });
        mine.sort_unstable_by_key(|p| (p.0, p.1));
        let mut inbox = vec![Vec::new(); self.peers()];
        let mut sizes = vec![0usize; self.peers()];
        for (from, _, bytes) in &mine {
            if let Some(size) = sizes.get_mut(*from as usize) {
                *size += bytes.len();
            }
        }
        // Each piece is freed once copied into its sender's buffer, which is
        // sized at once rather than grown by doubling.
        for (from, _, bytes) in mine {
            match inbox.get_mut(from as usize) {
                Some(b) if b.is_empty() && bytes.len() == sizes[from as usize] => *b = bytes,
                Some(b) if b.is_empty() => {
                    b.reserve_exact(sizes[from as usize]);
                    b.extend_from_slice(&bytes);
                }
                Some(b) => b.extend_from_slice(&bytes),
                None => {
                    return Err(ClusterError::Malformed {
                        from: from as usize,
                        what: "a sender index beyond the cluster".into(),
                    })
                }
            }
        }
        Ok(inbox)
    }
}

/// Runs `work` as this process's one timely worker, connected to the other
/// processes of `config` (or alone, for a single address), and returns what
/// it returned. Connecting retries until every process is up and has proved
/// the cluster key, or until `config.connect_timeout` has passed; a peer
/// lost later makes timely's communication threads panic (the caller turns
/// that into an error instead of a hang).
pub fn run_cluster<T, F>(config: ClusterConfig, work: F) -> Result<T, ClusterError>
where
    T: Send + 'static,
    F: Fn(TimelyExchange<'_>) -> T + Send + Sync + 'static,
{
    let (builders, others) = allocators(&config)?;
    let guards = timely::execute::execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |worker| work(TimelyExchange::new(worker)),
    )
    .map_err(ClusterError::Network)?;
    guards
        .join()
        .into_iter()
        .next()
        .ok_or_else(|| ClusterError::Network("no worker ran".into()))?
        .map_err(ClusterError::Network)
}

/// Timely's allocator for this process's one worker: alone, or over the
/// authenticated connections to every other process ([`crate::connect`]),
/// with the guard that keeps the communication threads.
fn allocators(
    config: &ClusterConfig,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), ClusterError> {
    if config.addresses.len() <= 1 {
        return timely::CommunicationConfig::Thread
            .try_build()
            .map_err(ClusterError::Network);
    }
    let sockets = crate::connect::connect_all(config)?;
    let hooks = Hooks::default();
    let local = ProcessBuilder::new_typed_vector(1, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, config.process, 1, hooks)
            .map_err(|e| ClusterError::Network(format!("cannot start the connections: {e}")))?;
    Ok((
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_memory::content;
    use std::sync::Arc;

    #[test]
    fn bytes_round_trip_as_a_byte_string_or_a_sequence() {
        let bytes = Bytes(vec![0, 7, 255, 3]);
        let json = serde_json::to_string(&bytes).unwrap();
        let back: Bytes = serde_json::from_str(&json).unwrap();
        assert_eq!(back.0, bytes.0);
    }

    #[test]
    fn timely_workers_explore_as_the_memory_exchange_does() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../levels/sokoban/twoboxes.xsb");
        let text = std::fs::read_to_string(&path).unwrap();
        let level = Arc::new(games::load("twoboxes", &text, &games::LevelSelector::First).unwrap());
        let tmp = tempfile::tempdir().unwrap();
        let reference =
            crate::tests_memory::distributed(&level, &tmp.path().join("memory"), 1, None);
        let want_dir = tmp.path().join("want");
        crate::gather(&reference, &want_dir, false).unwrap();
        let root = Arc::new(tmp.path().join("timely"));
        let (lv, rt) = (level.clone(), root.clone());
        let config = timely::Config::process(3);
        let guards = timely::execute(config, move |worker| {
            let ex = TimelyExchange::new(worker);
            let id = crate::tests_memory::identity(&lv, None);
            let k = ex.index();
            let part = crate::Part::open(&rt.join(format!("part-{k}")), &id, k, 3).unwrap();
            let opts = crate::ClusterOptions::default();
            crate::explore_part(lv.game.as_ref(), &id, part, ex, &opts, &mut crate::Quiet)
                .map(|_| ())
        })
        .unwrap();
        for result in guards.join() {
            result.unwrap().unwrap();
        }
        let parts: Vec<_> = (0..3).map(|k| root.join(format!("part-{k}"))).collect();
        let got_dir = tmp.path().join("got");
        crate::gather(&parts, &got_dir, false).unwrap();
        assert!(content(&got_dir) == content(&want_dir));
    }
}
