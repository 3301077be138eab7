//! The 64-byte header every data file starts with, and the constants of the
//! format: magic, version, block size.
//!
//! Layout (little-endian): magic `HSGSTORE` (8 bytes), file kind (8 bytes,
//! ASCII, zero padded), format version (u32), record width in bytes (u32),
//! 32 reserved zero bytes, xxh3-64 of the first 56 bytes (u64).

use crate::error::{corrupt, StoreError};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Bytes before the data of every file.
pub const HEADER_LEN: usize = 64;
/// The store format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 2;
/// Data bytes covered by one block checksum.
pub const BLOCK: u64 = 1 << 20;
const MAGIC: &[u8; 8] = b"HSGSTORE";

/// The header of a data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// What the file holds, e.g. `states`.
    pub kind: [u8; 8],
    /// Bytes per record.
    pub width: u32,
}

/// A file kind as its 8-byte header field.
pub fn kind(name: &str) -> [u8; 8] {
    let mut k = [0u8; 8];
    let n = name.len().min(8);
    k[..n].copy_from_slice(&name.as_bytes()[..n]);
    k
}

/// The header of a file of `kind` with `width`-byte records.
pub fn header(kind_name: &str, width: u32) -> Header {
    Header {
        kind: kind(kind_name),
        width,
    }
}

fn kind_text(k: &[u8; 8]) -> String {
    String::from_utf8_lossy(k)
        .trim_end_matches('\0')
        .to_string()
}

impl Header {
    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..8].copy_from_slice(MAGIC);
        b[8..16].copy_from_slice(&self.kind);
        b[16..20].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[20..24].copy_from_slice(&self.width.to_le_bytes());
        let sum = xxh3_64(&b[..56]);
        b[56..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Checks `bytes` against the expected header of `path`.
    pub fn check(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        if bytes.len() < HEADER_LEN {
            return Err(corrupt(
                path,
                format!("truncated header ({} of {HEADER_LEN} bytes)", bytes.len()),
            ));
        }
        if &bytes[..8] != MAGIC {
            return Err(corrupt(path, "bad magic: not a hyperstate store file"));
        }
        let sum = u64::from_le_bytes(bytes[56..64].try_into().unwrap_or_default());
        if sum != xxh3_64(&bytes[..56]) {
            return Err(corrupt(path, "header checksum mismatch (bytes 0..64)"));
        }
        let version = u32::from_le_bytes(bytes[16..20].try_into().unwrap_or_default());
        if version != FORMAT_VERSION {
            return Err(corrupt(
                path,
                format!("format version {version}, this build reads {FORMAT_VERSION}"),
            ));
        }
        let found: [u8; 8] = bytes[8..16].try_into().unwrap_or_default();
        if found != self.kind {
            return Err(corrupt(
                path,
                format!(
                    "file kind `{}`, expected `{}`",
                    kind_text(&found),
                    kind_text(&self.kind)
                ),
            ));
        }
        let width = u32::from_le_bytes(bytes[20..24].try_into().unwrap_or_default());
        if width != self.width {
            return Err(corrupt(
                path,
                format!("record width {width}, expected {}", self.width),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_detects_damage() {
        let h = Header {
            kind: kind("states"),
            width: 5,
        };
        let mut b = h.encode();
        let p = Path::new("x");
        h.check(p, &b).unwrap();
        b[20] = 6;
        assert!(h.check(p, &b).unwrap_err().to_string().contains("checksum"));
        let other = Header {
            kind: kind("trans"),
            width: 5,
        };
        let e = other.check(p, &h.encode()).unwrap_err().to_string();
        assert!(e.contains("kind `states`"), "{e}");
        assert!(h.check(p, &b[..10]).is_err());
    }
}
