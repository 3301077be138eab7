//! How the harnesses that damage a run directory write a file: in place (cheaply), and
//! behind valid checksums (a store's block sidecar and manifest commit, a saved
//! analysis's header), so that a mutant reaches the checks behind the checksums as a
//! store from someone else would. Shared by `store.rs`, `analysis.rs` and `loader.rs`,
//! each of which uses only part of it.

#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Bytes before the data of a store's data file, its sidecar and a saved analysis's file.
pub const HEADER: usize = 64;
/// Bytes before the JSON body of a store's `MANIFEST`.
pub const MANIFEST_PREFIX: usize = 32;
/// Bytes per checksummed block of a store's data file.
const BLOCK: usize = 1 << 20;

/// Where a store file's commit sits in the manifest's `files`: the key, and the index
/// when the value is a list (`states`, `rows`, `edges`).
pub type CommitAt = (&'static str, Option<usize>);

/// Replaces the content of `path` without truncating it to zero first: on ext4 a file
/// truncated to zero and rewritten is flushed at close, which made each input cost
/// milliseconds of disk writes.
pub fn write(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .expect("scratch file opened");
    file.write_all(bytes).expect("scratch file written");
    file.set_len(bytes.len() as u64).expect("scratch file cut");
}

/// A manifest with `body`, behind the original magic and version and a valid checksum.
pub fn manifest_bytes(original: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = original[..16].to_vec();
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxh3_64(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// A sidecar of block checksums for `data`, behind `header`.
pub fn block_sums(header: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = header.to_vec();
    for block in data.chunks_exact(BLOCK) {
        out.extend_from_slice(&xxh3_64(block).to_le_bytes());
    }
    out
}

/// The original manifest's body with the commit at `at` describing `data`.
pub fn recommit(original: &[u8], at: CommitAt, data: &[u8]) -> Vec<u8> {
    let mut body: Value = serde_json::from_slice(&original[MANIFEST_PREFIX..]).expect("body");
    let tail = &data[data.len() / BLOCK * BLOCK..];
    let commit = serde_json::json!({"len": data.len() as u64, "tail": xxh3_64(tail)});
    let files = &mut body["files"];
    match at {
        (key, Some(i)) => files[key][i] = commit,
        (key, None) => files[key] = commit,
    }
    serde_json::to_vec(&body).expect("serialises")
}

/// A saved analysis file's original header with the record count and checksum of `data`.
pub fn analysis_header(original: &[u8], width: u32, data: &[u8]) -> Vec<u8> {
    let mut header = original[..HEADER].to_vec();
    let count = data.len() as u64 / u64::from(width);
    header[24..32].copy_from_slice(&count.to_le_bytes());
    header[32..40].copy_from_slice(&xxh3_64(data).to_le_bytes());
    header
}

/// The content of a saved analysis's `summary.json.xxh3` for `summary`.
pub fn summary_sum(summary: &[u8]) -> Vec<u8> {
    format!("{:016x}\n", xxh3_64(summary)).into_bytes()
}
