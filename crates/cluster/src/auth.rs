//! The cluster key and the proofs made with it: the greeting each side of a
//! connection sends (a fresh random nonce, its place in the cluster and
//! digests of the host list and the run), the HMAC-SHA256 proofs over both
//! greetings that each side checks in constant time, and the per-direction
//! keys that seal the stream afterwards ([`crate::sealed`]).
//!
//! The protocol itself (who sends what, in which order) is in
//! [`crate::connect`]; this module holds only the bytes and the arithmetic.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The MAC used everywhere: HMAC over SHA-256.
pub type HmacSha256 = Hmac<Sha256>;

/// Bytes of a proof (an HMAC-SHA256 tag).
pub const TAG: usize = 32;

/// The first bytes of every greeting: the protocol and its version.
pub const MAGIC: &[u8; 8] = b"HSGCLU01";

/// The protocol's name without its version, to tell "another version" from
/// "not hsg at all".
const FAMILY: &[u8; 6] = b"HSGCLU";

/// Bytes of a greeting: magic, index, count, nonce, hosts digest, run digest.
pub const HELLO: usize = 8 + 4 + 4 + 32 + 32 + 32;

/// The fewest bytes a cluster key may have.
pub const MIN_KEY: usize = 16;

/// A shared secret that every process of a cluster proves it holds. Its
/// `Debug` form never shows the bytes.
#[derive(Clone)]
pub struct ClusterKey(Vec<u8>);

impl std::fmt::Debug for ClusterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "ClusterKey({} bytes)", self.0.len())
    }
}

impl ClusterKey {
    /// The key made of `bytes` with trailing white space removed (so that a
    /// key file written by `echo` or an editor means the same as the string
    /// without its newline). Refuses keys shorter than [`MIN_KEY`] bytes.
    pub fn new(bytes: &[u8]) -> Result<ClusterKey, String> {
        let end = bytes
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        let key = &bytes[..end];
        if key.len() < MIN_KEY {
            return Err(format!(
                "a cluster key needs at least {MIN_KEY} bytes, this one has {} \
                 (make one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > cluster.key)",
                key.len()
            ));
        }
        Ok(ClusterKey(key.to_vec()))
    }

    /// A fresh random key, as 64 hexadecimal digits (for processes started
    /// by this one, which get it through their environment).
    pub fn fresh_hex() -> Result<String, String> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes)
            .map_err(|e| format!("the system gave no random bytes for a key: {e}"))?;
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// HMAC-SHA256 under this key of `label` followed by `parts`.
    fn mac(&self, label: &[u8], parts: &[&[u8]]) -> [u8; TAG] {
        let mut mac = keyed(&self.0);
        mac.update(label);
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }
}

/// An HMAC-SHA256 state keyed with `key` (HMAC takes keys of any length).
pub fn keyed(key: &[u8]) -> HmacSha256 {
    match HmacSha256::new_from_slice(key) {
        Ok(mac) => mac,
        // HMAC accepts every key length; this arm cannot be reached.
        Err(_) => unreachable!("HMAC takes keys of any length"),
    }
}

/// SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The digest of a host list, as every process must have been given it.
pub fn hosts_digest(addresses: &[String]) -> [u8; 32] {
    digest(addresses.join("\n").as_bytes())
}

/// What one side of a connection says about itself before any proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// The sender's process index.
    pub index: u32,
    /// The sender's process count.
    pub count: u32,
    /// Fresh random bytes: each proof covers both sides' nonces, so that no
    /// proof can be replayed on another connection.
    pub nonce: [u8; 32],
    /// SHA-256 of the sender's host list.
    pub hosts: [u8; 32],
    /// SHA-256 of the sender's run identity (its JSON).
    pub run: [u8; 32],
}

/// Why a greeting could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum BadHello {
    /// It does not start with hsg's magic at all.
    Foreign,
    /// It is hsg's cluster protocol in another version.
    OtherVersion,
}

impl Hello {
    /// A greeting with a fresh nonce.
    pub fn new(
        index: usize,
        count: usize,
        hosts: [u8; 32],
        run: [u8; 32],
    ) -> Result<Hello, String> {
        let mut nonce = [0u8; 32];
        getrandom::getrandom(&mut nonce)
            .map_err(|e| format!("the system gave no random bytes for a nonce: {e}"))?;
        Ok(Hello {
            index: index as u32,
            count: count as u32,
            nonce,
            hosts,
            run,
        })
    }

    /// The greeting's bytes, [`HELLO`] of them.
    pub fn encode(&self) -> [u8; HELLO] {
        let mut out = [0u8; HELLO];
        out[..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&self.index.to_le_bytes());
        out[12..16].copy_from_slice(&self.count.to_le_bytes());
        out[16..48].copy_from_slice(&self.nonce);
        out[48..80].copy_from_slice(&self.hosts);
        out[80..112].copy_from_slice(&self.run);
        out
    }

    /// Reads a greeting back.
    pub fn decode(bytes: &[u8; HELLO]) -> Result<Hello, BadHello> {
        if &bytes[..8] != MAGIC {
            return Err(match &bytes[..6] == FAMILY {
                true => BadHello::OtherVersion,
                false => BadHello::Foreign,
            });
        }
        let u32_at = |at: usize| u32::from_le_bytes([0, 1, 2, 3].map(|k| bytes[at + k]));
        let array_at = |at: usize| -> [u8; 32] { std::array::from_fn(|k| bytes[at + k]) };
        Ok(Hello {
            index: u32_at(8),
            count: u32_at(12),
            nonce: array_at(16),
            hosts: array_at(48),
            run: array_at(80),
        })
    }
}

/// Which end of a connection a process is: the connector is always the
/// process with the higher index (as timely arranges its connections).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The process that opened the connection.
    Connector,
    /// The process that accepted it.
    Listener,
}

impl Role {
    fn proof_label(self) -> &'static [u8] {
        match self {
            Role::Connector => b"hsg cluster v1: connector's proof\0",
            Role::Listener => b"hsg cluster v1: listener's proof\0",
        }
    }

    fn stream_label(self) -> &'static [u8] {
        match self {
            Role::Connector => b"hsg cluster v1: stream from the connector\0",
            Role::Listener => b"hsg cluster v1: stream from the listener\0",
        }
    }
}

/// Both greetings of one connection, the connector's first: everything a
/// proof covers.
pub struct Transcript {
    bytes: [u8; 2 * HELLO],
}

impl Transcript {
    /// The transcript of a connection whose greetings were `connector` and `listener`.
    pub fn new(connector: &[u8; HELLO], listener: &[u8; HELLO]) -> Transcript {
        let mut bytes = [0u8; 2 * HELLO];
        bytes[..HELLO].copy_from_slice(connector);
        bytes[HELLO..].copy_from_slice(listener);
        Transcript { bytes }
    }

    /// The proof that the side in `role` holds `key`.
    pub fn proof(&self, key: &ClusterKey, role: Role) -> [u8; TAG] {
        key.mac(role.proof_label(), &[&self.bytes])
    }

    /// Checks, in constant time, the proof the side in `role` sent.
    pub fn check(&self, key: &ClusterKey, role: Role, proof: &[u8; TAG]) -> bool {
        let mut mac = keyed(&key.0);
        mac.update(role.proof_label());
        mac.update(&self.bytes);
        mac.verify_slice(proof).is_ok()
    }

    /// The key that seals what the side in `role` sends on this connection.
    pub fn stream_key(&self, key: &ClusterKey, role: Role) -> [u8; TAG] {
        key.mac(role.stream_label(), &[&self.bytes])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> ClusterKey {
        ClusterKey::new(s.as_bytes()).unwrap()
    }

    #[test]
    fn keys_shorter_than_sixteen_bytes_are_refused_and_trailing_space_ignored() {
        assert!(ClusterKey::new(b"short")
            .unwrap_err()
            .contains("at least 16"));
        assert!(ClusterKey::new(b"0123456789abcde \n").is_err());
        let a = key("0123456789abcdef\n");
        let b = key("0123456789abcdef");
        assert_eq!(a.0, b.0);
        assert_eq!(format!("{a:?}"), "ClusterKey(16 bytes)");
        let fresh = ClusterKey::fresh_hex().unwrap();
        assert_eq!(fresh.len(), 64);
        assert_ne!(fresh, ClusterKey::fresh_hex().unwrap());
    }

    #[test]
    fn a_greeting_round_trips_and_foreign_bytes_are_told_apart() {
        let hello = Hello::new(3, 5, [1; 32], [2; 32]).unwrap();
        let bytes = hello.encode();
        assert_eq!(Hello::decode(&bytes).unwrap(), hello);
        let mut other = bytes;
        other[7] = b'2';
        assert_eq!(Hello::decode(&other), Err(BadHello::OtherVersion));
        let mut http = [b' '; HELLO];
        http[..4].copy_from_slice(b"GET ");
        assert_eq!(Hello::decode(&http), Err(BadHello::Foreign));
    }

    #[test]
    fn proofs_bind_the_key_the_role_and_both_greetings() {
        let c = Hello::new(1, 2, [0; 32], [0; 32]).unwrap().encode();
        let l = Hello::new(0, 2, [0; 32], [0; 32]).unwrap().encode();
        let t = Transcript::new(&c, &l);
        let k = key("the right key, long enough");
        let proof = t.proof(&k, Role::Connector);
        assert!(t.check(&k, Role::Connector, &proof));
        // Not the listener's proof: a proof cannot be reflected back.
        assert!(!t.check(&k, Role::Listener, &proof));
        assert!(!t.check(&key("another key, long enough"), Role::Connector, &proof));
        // Another connection (other nonces) needs another proof.
        let c2 = Hello::new(1, 2, [0; 32], [0; 32]).unwrap().encode();
        assert!(!Transcript::new(&c2, &l).check(&k, Role::Connector, &proof));
        let mut bent = proof;
        bent[31] ^= 1;
        assert!(!t.check(&k, Role::Connector, &bent));
        assert_ne!(
            t.stream_key(&k, Role::Connector),
            t.stream_key(&k, Role::Listener)
        );
    }
}
