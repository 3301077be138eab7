//! Connecting the processes of a cluster, each connection authenticated
//! before timely gets it. As timely arranges it, process `i` listens on its
//! own address for the processes above it and connects to each process
//! below it. On every connection:
//!
//! 1. the connector sends its greeting ([`Hello`]: index, count, a fresh
//!    nonce, digests of its host list and run), the listener answers with its own;
//! 2. the connector sends its proof, HMAC-SHA256 under the cluster key of
//!    both greetings; the listener checks it in constant time and answers
//!    with a refusal, or with its consent and its own proof, which the
//!    connector checks;
//! 3. the connector sends its verdict on the authenticated greetings (same
//!    process count and host list, the listener the process it dialled) and,
//!    when the run digests differ, both send their run identity so that each
//!    can name the differences;
//! 4. both seal the socket ([`Sealed`]) with per-direction keys derived
//!    from the key and both greetings.
//!
//! A listener refuses a connection that does not prove the key (a stranger,
//! or a process given another key), says so naming the address it came
//! from, and keeps waiting for the right process until the deadline. A
//! connector that is refused, or that reaches something that does not prove
//! the key, ends with an error: retrying could not help.

use crate::auth::{hosts_digest, BadHello, ClusterKey, Hello, Role, Transcript, HELLO, TAG};
use crate::sealed::Sealed;
use crate::{ClusterConfig, ClusterError};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::RunIdentity;

/// How long one side of a handshake waits for each message of the other.
const STEP: Duration = Duration::from_secs(10);

/// Handshakes a listener runs at once; connections beyond are closed at once.
const IN_FLIGHT: usize = 32;

/// The pause between two attempts to connect.
const RETRY: Duration = Duration::from_millis(250);

/// The largest run identity accepted from an authenticated peer.
const MAX_IDENTITY: usize = 64 << 20;

const REFUSED: u8 = 0;
const ACCEPTED: u8 = 1;
const MISMATCH: u8 = 2;

/// What this process knows and proves, shared with the listener's threads.
struct Side {
    addresses: Vec<String>,
    me: usize,
    key: ClusterKey,
    identity: RunIdentity,
    identity_json: Vec<u8>,
    hosts: [u8; 32],
    run: [u8; 32],
    notice: Arc<dyn Fn(&str) + Send + Sync>,
}

impl Side {
    fn hello(&self) -> Result<Hello, ClusterError> {
        Hello::new(self.me, self.addresses.len(), self.hosts, self.run)
            .map_err(ClusterError::Connect)
    }

    fn who(&self, process: usize) -> String {
        match self.addresses.get(process) {
            Some(a) => format!("process {process} ({a})"),
            None => format!("process {process}"),
        }
    }
}

/// How a handshake ended.
enum Outcome {
    /// An authenticated connection to this process.
    Done(usize, Box<Sealed>),
    /// Refused or failed before authentication: said, and the wait goes on.
    Refused(String),
    /// An authenticated peer that is not part of this run: the cluster cannot start.
    Fatal(ClusterError),
}

/// Connects to every other process of `config`, each connection
/// authenticated and sealed: entry `i` is the connection to process `i`,
/// `None` for this process.
pub fn connect_all(config: &ClusterConfig) -> Result<Vec<Option<Sealed>>, ClusterError> {
    let me = config.process;
    let n = config.addresses.len();
    let key = config.key.clone().ok_or_else(|| {
        ClusterError::Connect("no cluster key: every process of a cluster needs one".into())
    })?;
    let identity_json = serde_json::to_vec(&config.identity)
        .map_err(|e| ClusterError::Connect(format!("cannot encode the run identity: {e}")))?;
    let side = Arc::new(Side {
        addresses: config.addresses.clone(),
        me,
        key,
        identity: config.identity.clone(),
        run: crate::auth::digest(&identity_json),
        identity_json,
        hosts: hosts_digest(&config.addresses),
        notice: config.notice.clone(),
    });
    let listener =
        TcpListener::bind(&config.addresses[me]).map_err(|source| ClusterError::Listen {
            process: me,
            address: config.addresses[me].clone(),
            source,
        })?;
    let deadline = Instant::now() + config.connect_timeout;
    let stop = Arc::new(AtomicBool::new(false));
    let listening = {
        let (side, stop) = (side.clone(), stop.clone());
        std::thread::spawn(move || listen(&side, listener, deadline, &stop))
    };
    let mut sockets: Vec<Option<Sealed>> = (0..n).map(|_| None).collect();
    let mut failure = None;
    for (j, slot) in sockets.iter_mut().enumerate().take(me) {
        match dial(&side, j, deadline, &stop) {
            Ok(sealed) => *slot = Some(sealed),
            Err(e) => {
                failure = Some(e);
                stop.store(true, Ordering::SeqCst);
                break;
            }
        }
    }
    // The listener's error first: when it fails, it stops the dialling,
    // whose own error would then only say that it was stopped.
    let accepted = listening
        .join()
        .map_err(|_| ClusterError::Connect("the listening thread panicked".into()))??;
    if let Some(e) = failure {
        return Err(e);
    }
    for (j, sealed) in accepted {
        sockets[j] = Some(sealed);
    }
    let missing: Vec<String> = (me + 1..n)
        .filter(|&j| sockets[j].is_none())
        .map(|j| side.who(j))
        .collect();
    if !missing.is_empty() {
        return Err(ClusterError::Connect(format!(
            "not every process connected within {:.0} s: no authenticated connection from {}",
            config.connect_timeout.as_secs_f64(),
            missing.join(", ")
        )));
    }
    Ok(sockets)
}

/// Accepts the processes above this one until all are connected, the
/// deadline passes or `stop` is set; each handshake runs in a thread of
/// its own, so that a stranger who connects and says nothing delays no one.
fn listen(
    side: &Arc<Side>,
    listener: TcpListener,
    deadline: Instant,
    stop: &AtomicBool,
) -> Result<Vec<(usize, Sealed)>, ClusterError> {
    let n = side.addresses.len();
    let mut found: Vec<Option<Sealed>> = (0..n).map(|_| None).collect();
    let wanted = n - side.me - 1;
    let mut have = 0;
    listener
        .set_nonblocking(true)
        .map_err(|e| ClusterError::Connect(format!("cannot poll the listening socket: {e}")))?;
    let (tx, rx) = mpsc::channel::<Outcome>();
    let in_flight = Arc::new(AtomicUsize::new(0));
    while have < wanted && Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, from)) => {
                if in_flight.load(Ordering::SeqCst) >= IN_FLIGHT {
                    (side.notice)(&format!(
                        "closed a connection from {from}: {IN_FLIGHT} handshakes already under way"
                    ));
                    continue;
                }
                in_flight.fetch_add(1, Ordering::SeqCst);
                let (side, tx, in_flight) = (side.clone(), tx.clone(), in_flight.clone());
                std::thread::spawn(move || {
                    let outcome = accept(&side, stream, from);
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    let _ = tx.send(outcome);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => (side.notice)(&format!("a failed connection attempt: {e}")),
        }
        while let Ok(outcome) = rx.try_recv() {
            match outcome {
                Outcome::Done(j, sealed) => {
                    // A process that connects again (restarted) replaces its
                    // earlier connection, which is dead.
                    if found[j].replace(*sealed).is_none() {
                        have += 1;
                    }
                }
                Outcome::Refused(why) => (side.notice)(&why),
                Outcome::Fatal(e) => {
                    stop.store(true, Ordering::SeqCst);
                    return Err(e);
                }
            }
        }
    }
    Ok(found
        .into_iter()
        .enumerate()
        .filter_map(|(j, s)| s.map(|s| (j, s)))
        .collect())
}

/// Reads exactly `N` bytes.
fn read_array<const N: usize>(stream: &mut TcpStream) -> std::io::Result<[u8; N]> {
    let mut buf = [0u8; N];
    stream.read_exact(&mut buf)?;
    Ok(buf)
}

/// Socket settings for a handshake: no delay, and a bounded wait for each step.
fn prepare(stream: &TcpStream) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(STEP))?;
    stream.set_write_timeout(Some(STEP))
}

/// Socket settings once authenticated: timely blocks on its sockets, and a
/// peer may be silent for as long as a round takes.
fn settle(stream: &TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)
}

/// The listener's side of one handshake, with a connection from `from`.
fn accept(side: &Side, mut stream: TcpStream, from: SocketAddr) -> Outcome {
    let refused =
        |why: String| Outcome::Refused(format!("refused a connection from {from}: {why}"));
    if let Err(e) = prepare(&stream) {
        return refused(format!("cannot set up its socket ({e})"));
    }
    let theirs_bytes = match read_array::<HELLO>(&mut stream) {
        Ok(b) => b,
        Err(e) => return refused(format!("no greeting ({e})")),
    };
    let theirs = match Hello::decode(&theirs_bytes) {
        Ok(h) => h,
        Err(BadHello::Foreign) => return refused("it is not an hsg cluster process".into()),
        Err(BadHello::OtherVersion) => {
            return refused(
                "it speaks another version of hsg's cluster protocol (run the same hsg build on every machine)"
                    .into(),
            )
        }
    };
    let ours = match side.hello() {
        Ok(h) => h,
        Err(e) => return Outcome::Fatal(e),
    };
    let mine = ours.encode();
    let transcript = Transcript::new(&theirs_bytes, &mine);
    let proof = stream
        .write_all(&mine)
        .and_then(|()| read_array::<TAG>(&mut stream));
    let proof = match proof {
        Ok(p) => p,
        Err(e) => return refused(format!("no proof of the cluster key ({e})")),
    };
    if !transcript.check(&side.key, Role::Connector, &proof) {
        let _ = stream.write_all(&[REFUSED]);
        return refused(format!(
            "it says it is process {} but did not prove the cluster key \
             (it was given another key, or it is not a process of this cluster)",
            theirs.index
        ));
    }
    let mut reply = vec![ACCEPTED];
    reply.extend_from_slice(&transcript.proof(&side.key, Role::Listener));
    let verdict = stream
        .write_all(&reply)
        .and_then(|()| read_array::<1>(&mut stream));
    match verdict {
        Ok([ACCEPTED]) => {}
        Ok([MISMATCH]) => {
            let what = same_arrangement(&theirs, &ours).err().unwrap_or_else(|| {
                format!(
                    "process {} (connecting from {from}) holds the key but found this process \
                     at another index than it expected: every process needs the same host file",
                    theirs.index
                )
            });
            return Outcome::Fatal(ClusterError::Connect(what));
        }
        Ok(_) | Err(_) => {
            return refused(format!(
                "process {} did not accept this process's proof",
                theirs.index
            ))
        }
    }
    if let Err(what) = same_arrangement(&theirs, &ours) {
        return Outcome::Fatal(ClusterError::Connect(what));
    }
    if let Err(e) = compare_runs(side, &mut stream, &theirs, Role::Listener) {
        return Outcome::Fatal(e);
    }
    if let Err(e) = settle(&stream) {
        return refused(format!("cannot set up its socket ({e})"));
    }
    let j = theirs.index as usize;
    let send = transcript.stream_key(&side.key, Role::Listener);
    let recv = transcript.stream_key(&side.key, Role::Connector);
    Outcome::Done(j, Box::new(Sealed::new(stream, j, &send, &recv)))
}

/// What the two authenticated greetings of one connection must agree on:
/// the process count, the host list, and the connector above the listener.
fn same_arrangement(connector: &Hello, listener: &Hello) -> Result<(), String> {
    if connector.count != listener.count || connector.hosts != listener.hosts {
        return Err(format!(
            "process {} and process {} were given different host lists ({} and {} processes): \
             every process needs the same host file",
            connector.index, listener.index, connector.count, listener.count
        ));
    }
    if connector.index <= listener.index || connector.index >= connector.count {
        return Err(format!(
            "two processes run as process {} (or an index beyond the host list): \
             give each process its own --process",
            connector.index.min(listener.index)
        ));
    }
    Ok(())
}

/// When the two run digests differ, both sides send their run identity and
/// name the differences; an identical identity (a digest of fields the
/// comparison ignores) lets the connection go on.
fn compare_runs(
    side: &Side,
    stream: &mut TcpStream,
    theirs: &Hello,
    role: Role,
) -> Result<(), ClusterError> {
    if theirs.run == side.run {
        return Ok(());
    }
    let lost = |e: std::io::Error| {
        ClusterError::Connect(format!(
            "{} explores another run, and the connection broke while telling which ({e})",
            side.who(theirs.index as usize)
        ))
    };
    let send = |stream: &mut TcpStream| -> std::io::Result<()> {
        stream.write_all(&(side.identity_json.len() as u64).to_le_bytes())?;
        stream.write_all(&side.identity_json)
    };
    let receive = |stream: &mut TcpStream| -> std::io::Result<Vec<u8>> {
        let len = u64::from_le_bytes(read_array::<8>(stream)?) as usize;
        if len > MAX_IDENTITY {
            return Err(std::io::Error::other("a run identity too large"));
        }
        let mut json = vec![0u8; len];
        stream.read_exact(&mut json)?;
        Ok(json)
    };
    let json = match role {
        Role::Connector => send(stream).and_then(|()| receive(stream)),
        Role::Listener => receive(stream).and_then(|json| send(stream).map(|()| json)),
    }
    .map_err(lost)?;
    let identity: RunIdentity = serde_json::from_slice(&json).map_err(|e| {
        ClusterError::Connect(format!(
            "{} sent an unreadable run identity: {e}",
            side.who(theirs.index as usize)
        ))
    })?;
    match crate::agree::describe_other_run(
        theirs.index as usize,
        side.me,
        &identity,
        &side.identity,
    ) {
        Some(what) => Err(ClusterError::Mismatch(what)),
        None => Ok(()),
    }
}

/// Connects to process `j` (below this one) and authenticates, retrying
/// while nothing answers, until the deadline.
fn dial(
    side: &Side,
    j: usize,
    deadline: Instant,
    stop: &AtomicBool,
) -> Result<Sealed, ClusterError> {
    let address = &side.addresses[j];
    let mut last = String::from("no attempt");
    while Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
        let target = match address.to_socket_addrs().map(|mut a| a.next()) {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Err(ClusterError::Connect(format!(
                    "{}: the address names no host",
                    side.who(j)
                )))
            }
            Err(e) => {
                last = format!("cannot resolve it ({e})");
                std::thread::sleep(RETRY);
                continue;
            }
        };
        let left = deadline.saturating_duration_since(Instant::now());
        match TcpStream::connect_timeout(&target, left.clamp(Duration::from_millis(1), STEP)) {
            Ok(stream) => match handshake(side, j, stream) {
                Ok(sealed) => return Ok(sealed),
                Err(Retry::Again(why)) => last = why,
                Err(Retry::Never(e)) => return Err(e),
            },
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(RETRY);
    }
    Err(ClusterError::Connect(format!(
        "not every process connected: could not reach {} in time (last attempt: {last})",
        side.who(j)
    )))
}

/// Why a connector's handshake failed.
enum Retry {
    /// Worth another try (the connection broke before anything was proved).
    Again(String),
    /// Not worth another: the peer refused the key, or did not prove it.
    Never(ClusterError),
}

/// The connector's side of one handshake with process `j`.
fn handshake(side: &Side, j: usize, mut stream: TcpStream) -> Result<Sealed, Retry> {
    let who = side.who(j);
    let never = |what: String| Retry::Never(ClusterError::Connect(what));
    let again = |e: std::io::Error| Retry::Again(format!("the handshake broke off ({e})"));
    prepare(&stream).map_err(again)?;
    let ours = side.hello().map_err(Retry::Never)?;
    let mine = ours.encode();
    stream.write_all(&mine).map_err(again)?;
    let theirs_bytes = read_array::<HELLO>(&mut stream).map_err(again)?;
    let theirs = match Hello::decode(&theirs_bytes) {
        Ok(h) => h,
        Err(BadHello::Foreign) => {
            return Err(never(format!(
                "{who} did not answer as an hsg cluster process: something else listens there"
            )))
        }
        Err(BadHello::OtherVersion) => {
            return Err(never(format!(
                "{who} speaks another version of hsg's cluster protocol: run the same hsg build on every machine"
            )))
        }
    };
    let transcript = Transcript::new(&mine, &theirs_bytes);
    stream
        .write_all(&transcript.proof(&side.key, Role::Connector))
        .map_err(again)?;
    match read_array::<1>(&mut stream).map_err(again)? {
        [ACCEPTED] => {}
        [REFUSED] => {
            return Err(never(format!(
                "{who} refused this process's proof of the cluster key: the two were given \
                 different keys (every process needs the same key)"
            )))
        }
        _ => return Err(never(format!("{who} answered the handshake out of turn"))),
    }
    let proof = read_array::<TAG>(&mut stream).map_err(again)?;
    if !transcript.check(&side.key, Role::Listener, &proof) {
        return Err(never(format!(
            "the process that answers at {who} did not prove the cluster key: it is not a \
             process of this cluster"
        )));
    }
    let verdict = same_arrangement(&ours, &theirs).and_then(|()| match theirs.index as usize {
        k if k == j => Ok(()),
        k => Err(format!(
            "the process at the address of process {j} runs as process {k}: every process \
             needs the same host file and its own --process"
        )),
    });
    let code = if verdict.is_ok() { ACCEPTED } else { MISMATCH };
    stream.write_all(&[code]).map_err(again)?;
    verdict.map_err(never)?;
    compare_runs(side, &mut stream, &theirs, Role::Connector).map_err(Retry::Never)?;
    settle(&stream).map_err(again)?;
    let send = transcript.stream_key(&side.key, Role::Connector);
    let recv = transcript.stream_key(&side.key, Role::Listener);
    Ok(Sealed::new(stream, j, &send, &recv))
}
