//! A TCP stream whose every byte is authenticated: what one side writes
//! travels in frames (`length u32 | payload | HMAC-SHA256 tag`), the tag
//! covering the frame's sequence number, its length and its payload under
//! the key of that direction, so that the receiver detects any byte changed,
//! any frame dropped, replayed, reordered or moved from another connection,
//! and a stream cut short. Nothing is encrypted: an eavesdropper reads the
//! states the processes exchange.
//!
//! Timely's communication layer takes streams through its `Stream` trait and
//! clones each one twice: one clone only writes (its send thread), the other
//! only reads (its receive thread). Each clone therefore keeps its own
//! sequence numbers, starting at zero; were two clones ever to write, the
//! receiver would see repeated sequence numbers and refuse the stream, so a
//! misuse fails loudly instead of weakening the check.

use crate::auth::{keyed, HmacSha256, TAG};
use hmac::Mac;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use timely::communication::allocator::zero_copy::stream::Stream;

/// The largest payload of one frame: large enough that the 36 bytes of
/// framing vanish, small enough that the buffers stay modest.
pub const MAX_FRAME: usize = 256 << 10;

/// One end of an authenticated connection to process `peer`.
pub struct Sealed {
    socket: TcpStream,
    peer: usize,
    /// Keyed HMAC states for what this side sends and what it receives,
    /// cloned for each frame (keying costs two compressions).
    send_key: HmacSha256,
    recv_key: HmacSha256,
    send_seq: u64,
    recv_seq: u64,
    /// The frame being written (header, payload, tag), reused.
    out: Vec<u8>,
    /// The payload of the last frame received and how much of it was read.
    frame: Vec<u8>,
    at: usize,
}

impl Sealed {
    /// Seals `socket`, a connection to process `peer`: this side's frames
    /// are tagged with `send_key`, the peer's checked with `recv_key`.
    pub fn new(socket: TcpStream, peer: usize, send_key: &[u8], recv_key: &[u8]) -> Sealed {
        Sealed {
            socket,
            peer,
            send_key: keyed(send_key),
            recv_key: keyed(recv_key),
            send_seq: 0,
            recv_seq: 0,
            out: Vec::new(),
            frame: Vec::new(),
            at: 0,
        }
    }

    fn tag(key: &HmacSha256, seq: u64, header: &[u8; 4], payload: &[u8]) -> HmacSha256 {
        let mut mac = key.clone();
        mac.update(&seq.to_le_bytes());
        mac.update(header);
        mac.update(payload);
        mac
    }

    fn tampered(&self, what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the stream from process {} failed its integrity check ({what}): \
                 the connection was tampered with or is not this cluster's",
                self.peer
            ),
        )
    }

    /// Reads the next frame into `self.frame`; false at a clean end of
    /// stream (between frames).
    fn next_frame(&mut self) -> io::Result<bool> {
        let mut header = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.socket.read(&mut header[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => return Err(self.tampered("a frame cut short")),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let len = u32::from_le_bytes(header) as usize;
        if len == 0 || len > MAX_FRAME {
            return Err(self.tampered(&format!("a frame of {len} bytes")));
        }
        self.frame.resize(len, 0);
        let mut tag = [0u8; TAG];
        let read = self
            .socket
            .read_exact(&mut self.frame)
            .and_then(|()| self.socket.read_exact(&mut tag));
        match read {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(self.tampered("a frame cut short"))
            }
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        let mac = Sealed::tag(&self.recv_key, self.recv_seq, &header, &self.frame);
        if mac.verify_slice(&tag).is_err() {
            return Err(self.tampered(&format!("frame {} has a wrong tag", self.recv_seq)));
        }
        self.recv_seq += 1;
        self.at = 0;
        Ok(true)
    }
}

impl Read for Sealed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.at == self.frame.len() && !self.next_frame()? {
            return Ok(0);
        }
        let n = buf.len().min(self.frame.len() - self.at);
        buf[..n].copy_from_slice(&self.frame[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Write for Sealed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(MAX_FRAME);
        if n == 0 {
            return Ok(0);
        }
        let header = (n as u32).to_le_bytes();
        let payload = &buf[..n];
        let tag = Sealed::tag(&self.send_key, self.send_seq, &header, payload).finalize();
        // One buffer, one write: the socket has no delay (Nagle) and three
        // writes would send three packets.
        self.out.clear();
        self.out.extend_from_slice(&header);
        self.out.extend_from_slice(payload);
        self.out.extend_from_slice(&tag.into_bytes());
        self.socket.write_all(&self.out)?;
        self.send_seq += 1;
        if self.out.capacity() > 2 * (MAX_FRAME + 4 + TAG) {
            self.out = Vec::new();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.socket.flush()
    }
}

impl Stream for Sealed {
    fn try_clone(&self) -> io::Result<Sealed> {
        Ok(Sealed {
            socket: self.socket.try_clone()?,
            peer: self.peer,
            send_key: self.send_key.clone(),
            recv_key: self.recv_key.clone(),
            send_seq: 0,
            recv_seq: 0,
            out: Vec::new(),
            frame: Vec::new(),
            at: 0,
        })
    }

    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        self.socket.set_nonblocking(nonblocking)
    }

    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.socket.shutdown(how)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// Two raw ends of a loopback connection.
    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (b, _) = listener.accept().unwrap();
        (a, b)
    }

    fn sealed_pair() -> (Sealed, Sealed) {
        let (a, b) = pair();
        (
            Sealed::new(a, 1, b"a to b", b"b to a"),
            Sealed::new(b, 0, b"b to a", b"a to b"),
        )
    }

    #[test]
    fn bytes_travel_whole_in_frames_of_any_size() {
        let (a, mut b) = sealed_pair();
        let data: Vec<u8> = (0..3 * MAX_FRAME + 17).map(|i| (i * 7) as u8).collect();
        let sent = data.clone();
        let writer = std::thread::spawn(move || {
            let mut w = a.try_clone().unwrap();
            w.write_all(&sent[..5]).unwrap();
            w.write_all(&sent[5..]).unwrap();
            w.shutdown(Shutdown::Write).unwrap();
        });
        let mut got = Vec::new();
        b.read_to_end(&mut got).unwrap();
        writer.join().unwrap();
        assert!(got == data);
    }

    /// Sends `frames` from a sealed writer, lets `bend` change the raw bytes
    /// on the wire, and returns what the sealed reader says.
    fn receive_bent(frames: &[&[u8]], bend: impl FnOnce(&mut Vec<u8>)) -> io::Result<Vec<u8>> {
        let (raw_a, raw_b) = pair();
        let (tap_in, tap_out) = pair();
        let mut w = Sealed::new(raw_a, 1, b"k1", b"k2");
        for f in frames {
            w.write_all(f).unwrap();
        }
        drop(w);
        let mut wire = Vec::new();
        let mut raw_b = raw_b;
        raw_b.read_to_end(&mut wire).unwrap();
        bend(&mut wire);
        let mut tap_in = tap_in;
        tap_in.write_all(&wire).unwrap();
        drop(tap_in);
        let mut r = Sealed::new(tap_out, 1, b"k2", b"k1");
        let mut got = Vec::new();
        r.read_to_end(&mut got).map(|_| got)
    }

    #[test]
    fn a_changed_dropped_replayed_or_cut_frame_is_refused() {
        let frames: [&[u8]; 3] = [b"first frame", b"second", b"third one"];
        assert_eq!(
            receive_bent(&frames, |_| {}).unwrap(),
            b"first framesecondthird one"
        );
        let frame = |i: usize| {
            let sizes = [11usize, 6, 9];
            let start: usize = sizes[..i].iter().map(|s| s + 4 + TAG).sum();
            start..start + sizes[i] + 4 + TAG
        };
        let refused = |bend: &dyn Fn(&mut Vec<u8>)| {
            let err = receive_bent(&frames, bend).unwrap_err();
            assert!(err.to_string().contains("integrity"), "{err}");
        };
        refused(&|w| w[6] ^= 0x20);
        refused(&|w| {
            let tag_end = frame(0).end - 1;
            w[tag_end] ^= 1;
        });
        refused(&|w| {
            w.drain(frame(1));
        });
        refused(&|w| {
            let copy = w[frame(0)].to_vec();
            w.splice(frame(1).start..frame(1).start, copy);
        });
        refused(&|w| {
            let second = w[frame(1)].to_vec();
            w.drain(frame(1));
            w.splice(0..0, second);
        });
        refused(&|w| w.truncate(w.len() - 3));
        refused(&|w| w[..4].copy_from_slice(&u32::MAX.to_le_bytes()));
    }

    #[test]
    fn another_keys_frames_are_refused() {
        let (a, b) = pair();
        let mut w = Sealed::new(a, 1, b"one key", b"x");
        let mut r = Sealed::new(b, 0, b"x", b"another key");
        w.write_all(b"hello").unwrap();
        let mut buf = [0u8; 5];
        let err = r.read(&mut buf).unwrap_err();
        assert!(err.to_string().contains("process 0"), "{err}");
    }
}
