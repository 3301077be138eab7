//! The files whose verification [`crate::Run::open_deferred`] left to the reader's pass
//! (see `deferred.rs`): each with its block checksums and a bitset of the blocks
//! verified so far.

use crate::append::Commit;
use crate::error::StoreError;
use crate::header::BLOCK;
use crate::mapped::{Mapped, Sums};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// A big data file whose blocks are verified as they are first read.
pub(crate) struct DeferredFile {
    sums: Sums,
    commit: Commit,
    /// Bit `b` is set once block `b` has been verified.
    verified: Vec<AtomicU64>,
}

impl DeferredFile {
    pub(crate) fn new(file: &Mapped, commit: Commit) -> Result<DeferredFile, StoreError> {
        Ok(DeferredFile {
            sums: file.sums(commit)?,
            commit,
            verified: (0..file.blocks().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        })
    }

    /// Verifies every block of `file` that holds a byte of `bytes` and was not
    /// verified before.
    pub(crate) fn verify_bytes(&self, file: &Mapped, bytes: Range<u64>) -> Result<(), StoreError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let last = (bytes.end - 1) / BLOCK;
        for b in bytes.start / BLOCK..=last.min(file.blocks() as u64 - 1) {
            self.verify_block(file, b as usize)?;
        }
        Ok(())
    }

    fn verify_block(&self, file: &Mapped, b: usize) -> Result<(), StoreError> {
        let (word, bit) = (&self.verified[b / 64], 1u64 << (b % 64));
        if word.load(Ordering::Acquire) & bit != 0 {
            return Ok(());
        }
        file.verify_block(&self.sums, b)?;
        word.fetch_or(bit, Ordering::Release);
        Ok(())
    }

    /// Verifies the blocks not verified yet, and the end of the file.
    pub(crate) fn finish(&self, file: &Mapped) -> Result<(), StoreError> {
        for b in 0..file.blocks() {
            self.verify_block(file, b)?;
        }
        file.verify_end(self.commit)
    }
}

/// What [`Run::open_deferred`] left to verify: the bit files of the rows and edges.
pub(crate) struct Deferred {
    pub(crate) rows: DeferredFile,
    pub(crate) edges: DeferredFile,
}
