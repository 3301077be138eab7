//! The byte layout shared by every store file: the 64-byte header, the file
//! kinds and the file names of a run directory.

use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

use crate::error::StoreError;

/// Magic bytes at offset 0 of every store file.
pub const MAGIC: [u8; 8] = *b"HSGSTORE";
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Length of every file header; data starts right after it, 8-byte aligned in a mapping.
pub const HEADER_LEN: u64 = 64;

/// File names of a run directory.
pub const MANIFEST: &str = "MANIFEST";
pub const MANIFEST_TMP: &str = "MANIFEST.tmp";
pub const LOCK: &str = "LOCK";
pub const META_SLED: &str = "meta.sled";
pub const TRANS_IDX: &str = "trans.idx";
pub const TRANS_LOG: &str = "trans.log";
pub const TRANS_PROB: &str = "trans.prob";
pub const TERMINALS: &str = "terminals";
pub const IN_IDX: &str = "in.idx";
pub const IN_LOG: &str = "in.log";
pub const FP_IDX: &str = "fp.idx";

/// The name of state segment `index`.
pub fn segment_name(index: u64) -> String {
    format!("states-{index:05}.seg")
}

/// The name of the block-checksum sidecar of a data file.
pub fn sums_name(data_name: &str) -> String {
    format!("{data_name}.sum")
}

/// True for every name the store may create in a run directory.
pub fn is_store_entry(name: &str) -> bool {
    let data = name.strip_suffix(".sum").unwrap_or(name);
    let fixed = [
        TRANS_IDX, TRANS_LOG, TRANS_PROB, TERMINALS, IN_IDX, IN_LOG, FP_IDX,
    ];
    if name != data {
        return fixed.contains(&data) || is_segment_name(data);
    }
    [MANIFEST, MANIFEST_TMP, LOCK, META_SLED].contains(&name)
        || fixed.contains(&name)
        || is_segment_name(name)
}

fn is_segment_name(name: &str) -> bool {
    name.strip_prefix("states-")
        .and_then(|rest| rest.strip_suffix(".seg"))
        .is_some_and(|digits| digits.len() >= 5 && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// What a file holds; stored as a 4-byte ASCII tag at header offset 12.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Manifest,
    States,
    TransIdx,
    TransLog,
    TransProb,
    Terminals,
    InIdx,
    InLog,
    FpIdx,
    Sums,
}

impl FileKind {
    const ALL: [FileKind; 10] = [
        FileKind::Manifest,
        FileKind::States,
        FileKind::TransIdx,
        FileKind::TransLog,
        FileKind::TransProb,
        FileKind::Terminals,
        FileKind::InIdx,
        FileKind::InLog,
        FileKind::FpIdx,
        FileKind::Sums,
    ];

    /// The on-disk tag.
    pub fn tag(self) -> [u8; 4] {
        match self {
            FileKind::Manifest => *b"MANI",
            FileKind::States => *b"STAT",
            FileKind::TransIdx => *b"TIDX",
            FileKind::TransLog => *b"TLOG",
            FileKind::TransProb => *b"TPRB",
            FileKind::Terminals => *b"TERM",
            FileKind::InIdx => *b"IIDX",
            FileKind::InLog => *b"ILOG",
            FileKind::FpIdx => *b"FPIX",
            FileKind::Sums => *b"SUMS",
        }
    }

    fn from_tag(tag: [u8; 4]) -> Option<FileKind> {
        FileKind::ALL.into_iter().find(|kind| kind.tag() == tag)
    }

    /// The tag as a number, used where a header refers to another kind.
    pub fn tag_u64(self) -> u64 {
        u64::from(u32::from_le_bytes(self.tag()))
    }
}

/// A decoded 64-byte header (all integers little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `HSGSTORE` |
/// | 8 | 4 | format version |
/// | 12 | 4 | file kind tag |
/// | 16 | 4 | record width in bytes |
/// | 20 | 4 | checksum block size in bytes |
/// | 24 | 8 | identity hash of the run |
/// | 32 | 8 | `a`: kind-specific (first state id, parent kind, body length) |
/// | 40 | 8 | `b`: kind-specific (body xxh3 for the manifest) |
/// | 48 | 8 | reserved, zero |
/// | 56 | 8 | xxh3-64 of bytes 0..56 |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: FileKind,
    pub record_width: u32,
    pub block_bytes: u32,
    pub identity_hash: u64,
    pub a: u64,
    pub b: u64,
}

impl Header {
    /// The header's bytes, checksum included.
    pub fn encode(&self) -> [u8; 64] {
        let mut bytes = [0u8; 64];
        bytes[0..8].copy_from_slice(&MAGIC);
        bytes[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes[12..16].copy_from_slice(&self.kind.tag());
        bytes[16..20].copy_from_slice(&self.record_width.to_le_bytes());
        bytes[20..24].copy_from_slice(&self.block_bytes.to_le_bytes());
        bytes[24..32].copy_from_slice(&self.identity_hash.to_le_bytes());
        bytes[32..40].copy_from_slice(&self.a.to_le_bytes());
        bytes[40..48].copy_from_slice(&self.b.to_le_bytes());
        let sum = xxh3_64(&bytes[0..56]);
        bytes[56..64].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    /// Decodes and checks magic, checksum and version, in that order, so
    /// that a flipped version byte reads as damage rather than as a version.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<Header, StoreError> {
        let Some(bytes) = bytes.get(..64) else {
            return Err(StoreError::Truncated {
                path: path.to_path_buf(),
                actual: bytes.len() as u64,
                expected: HEADER_LEN,
            });
        };
        if bytes[0..8] != MAGIC {
            return Err(StoreError::BadMagic {
                path: path.to_path_buf(),
            });
        }
        if xxh3_64(&bytes[0..56]) != le_u64(&bytes[56..64]) {
            return Err(StoreError::BadHeader {
                path: path.to_path_buf(),
                what: "header checksum mismatch".into(),
            });
        }
        let version = le_u32(&bytes[8..12]);
        if version != FORMAT_VERSION {
            return Err(StoreError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        let tag = [bytes[12], bytes[13], bytes[14], bytes[15]];
        let kind = FileKind::from_tag(tag).ok_or_else(|| StoreError::ForeignFile {
            path: path.to_path_buf(),
            what: format!("unknown file kind {:?}", String::from_utf8_lossy(&tag)),
        })?;
        Ok(Header {
            kind,
            record_width: le_u32(&bytes[16..20]),
            block_bytes: le_u32(&bytes[20..24]),
            identity_hash: le_u64(&bytes[24..32]),
            a: le_u64(&bytes[32..40]),
            b: le_u64(&bytes[40..48]),
        })
    }

    /// Checks that a decoded header is the one this file must have.
    pub fn expect(&self, path: &Path, expected: &Header) -> Result<(), StoreError> {
        let foreign = |what: String| {
            Err(StoreError::ForeignFile {
                path: path.to_path_buf(),
                what,
            })
        };
        if self.kind != expected.kind {
            return foreign(format!(
                "it is a {:?} file, expected {:?}",
                self.kind, expected.kind
            ));
        }
        if self.identity_hash != expected.identity_hash {
            return foreign(format!(
                "it belongs to another run (identity hash {:016x}, this run is {:016x})",
                self.identity_hash, expected.identity_hash
            ));
        }
        if self.record_width != expected.record_width || self.block_bytes != expected.block_bytes {
            return foreign(format!(
                "record width {} and block size {}, expected {} and {}",
                self.record_width, self.block_bytes, expected.record_width, expected.block_bytes
            ));
        }
        if self.a != expected.a || self.b != expected.b {
            return foreign(format!(
                "header fields ({}, {}), expected ({}, {})",
                self.a, self.b, expected.a, expected.b
            ));
        }
        Ok(())
    }
}

/// Reads a little-endian u64 from exactly 8 bytes (shorter input reads as zero-padded).
pub fn le_u64(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    for (dst, src) in word.iter_mut().zip(bytes) {
        *dst = *src;
    }
    u64::from_le_bytes(word)
}

fn le_u32(bytes: &[u8]) -> u32 {
    let mut word = [0u8; 4];
    for (dst, src) in word.iter_mut().zip(bytes) {
        *dst = *src;
    }
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Header {
        Header {
            kind: FileKind::TransLog,
            record_width: 8,
            block_bytes: 1 << 20,
            identity_hash: 0xdead_beef,
            a: 3,
            b: 4,
        }
    }

    #[test]
    fn header_round_trips() {
        let path = Path::new("trans.log");
        let decoded = Header::decode(path, &sample().encode()).unwrap();
        assert_eq!(decoded, sample());
        decoded.expect(path, &sample()).unwrap();
    }

    #[test]
    fn header_damage_is_named() {
        let path = Path::new("x/trans.log");
        let mut bytes = sample().encode();
        bytes[9] ^= 1;
        let err = Header::decode(path, &bytes).unwrap_err().to_string();
        assert!(err.contains("x/trans.log") && err.contains("header checksum"), "{err}");
        bytes[0] = b'X';
        let err = Header::decode(path, &bytes).unwrap_err().to_string();
        assert!(err.contains("bad magic"), "{err}");
        let err = Header::decode(path, &bytes[..10]).unwrap_err().to_string();
        assert!(err.contains("shorter"), "{err}");
    }

    #[test]
    fn store_entries_are_recognised() {
        for name in ["MANIFEST", "LOCK", "meta.sled", "states-00012.seg", "states-123456.seg.sum", "in.log.sum"] {
            assert!(is_store_entry(name), "{name}");
        }
        for name in ["notes.txt", "states-1.seg", "MANIFEST.sum", "src"] {
            assert!(!is_store_entry(name), "{name}");
        }
    }
}
