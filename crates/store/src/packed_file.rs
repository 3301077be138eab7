//! A packed sequence being written: full frames appended to a frame index
//! and a bit file (see [`crate::packed`]), the values after the last full
//! frame kept in memory and handed to each checkpoint as its tail.

use crate::append::{AppendFile, Commit};
use crate::error::StoreError;
use crate::header::header;
use crate::packed::{frame_words, pack_frame, value, ENTRY_WORDS, FRAME};
use std::path::Path;

/// How a frame's base is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    /// The last value before the frame (0 for the first): for row ends, so
    /// that the first row of a frame starts at its base.
    Previous,
    /// The smallest value of the frame with its low `n` bits cleared: for
    /// edge words whose low bits are the action.
    LeastAbove(u32),
}

/// The names and kinds of a packed sequence's two files.
#[derive(Clone, Copy)]
pub(crate) struct Names {
    pub index: &'static str,
    pub index_kind: &'static str,
    pub bits: &'static str,
    pub bits_kind: &'static str,
}

/// A packed sequence being appended to.
pub(crate) struct PackedFile {
    index: AppendFile,
    bits: AppendFile,
    base: Base,
    /// Values after the last full frame.
    tail: Vec<u64>,
    /// The last value of the last full frame (0 before the first).
    previous: u64,
    /// Bit words written.
    words: u64,
    packed: Vec<u64>,
    bytes: Vec<u8>,
}

impl PackedFile {
    /// Creates both files, empty.
    pub fn create(dir: &Path, names: Names, base: Base) -> Result<PackedFile, StoreError> {
        let index = AppendFile::create(&dir.join(names.index), header(names.index_kind, 16))?;
        let bits = AppendFile::create(&dir.join(names.bits), header(names.bits_kind, 8))?;
        Ok(PackedFile::assemble(index, bits, base, Vec::new()))
    }

    fn assemble(index: AppendFile, bits: AppendFile, base: Base, tail: Vec<u64>) -> PackedFile {
        let words = bits.len() / 8;
        PackedFile {
            index,
            bits,
            base,
            tail,
            previous: 0,
            words,
            packed: Vec::new(),
            bytes: Vec::new(),
        }
    }

    /// Reopens both files at a checkpoint's commits, with its tail.
    pub fn resume(
        dir: &Path,
        names: Names,
        base: Base,
        commits: [Commit; 2],
        tail: Vec<u64>,
    ) -> Result<PackedFile, StoreError> {
        let index = AppendFile::resume(
            &dir.join(names.index),
            header(names.index_kind, 16),
            commits[0],
        )?;
        let bits = AppendFile::resume(
            &dir.join(names.bits),
            header(names.bits_kind, 8),
            commits[1],
        )?;
        let mut file = PackedFile::assemble(index, bits, base, tail);
        let full = file.frames() * FRAME as u64;
        if full > 0 {
            let mut last = Vec::new();
            file.read_full(full - 1, 1, &mut last)?;
            file.previous = last.first().copied().unwrap_or(0);
        }
        Ok(file)
    }

    /// Full frames written.
    pub fn frames(&self) -> u64 {
        self.index.len() / (ENTRY_WORDS as u64 * 8)
    }

    /// Values appended.
    pub fn len(&self) -> u64 {
        self.frames() * FRAME as u64 + self.tail.len() as u64
    }

    /// The values after the last full frame.
    pub fn tail(&self) -> &[u64] {
        &self.tail
    }

    /// True when the bit file holds the words the frame index names.
    pub fn consistent(&self) -> bool {
        self.words * 8 == self.bits.len()
    }

    /// Appends a value.
    #[inline]
    pub fn push(&mut self, v: u64) -> Result<(), StoreError> {
        self.tail.push(v);
        if self.tail.len() == FRAME {
            self.write_frame()?;
        }
        Ok(())
    }

    /// Out of line, so that [`PackedFile::push`] stays small enough to be
    /// inlined into the loops that push every edge (with the frame inside
    /// it, a push was a call with a long prologue, a third of its cost).
    #[cold]
    #[inline(never)]
    fn write_frame(&mut self) -> Result<(), StoreError> {
        let base = match self.base {
            Base::Previous => self.previous,
            Base::LeastAbove(low) => {
                let least = self.tail.iter().copied().min().unwrap_or(0);
                least >> low << low
            }
        };
        self.packed.clear();
        let entry = pack_frame(&self.tail, base, self.words, &mut self.packed);
        self.words += self.packed.len() as u64;
        self.bytes.clear();
        for w in &self.packed {
            self.bytes.extend_from_slice(&w.to_le_bytes());
        }
        self.bits.append(&self.bytes)?;
        self.index.append_u64(entry[0])?;
        self.index.append_u64(entry[1])?;
        self.previous = self.tail[FRAME - 1];
        self.tail.clear();
        Ok(())
    }

    /// Appends the values `first..first + count` to `out`, whether they are
    /// in full frames (flushed or not) or in the tail. The caller has
    /// checked that they exist.
    pub fn read(&self, first: u64, count: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        let full = self.frames() * FRAME as u64;
        let in_frames = full.saturating_sub(first).min(count);
        if in_frames > 0 {
            self.read_full(first, in_frames, out)?;
        }
        let from = first.max(full) - full;
        let to = (first + count).saturating_sub(full);
        if to > from {
            let slice = self.tail.get(from as usize..to as usize).ok_or_else(|| {
                StoreError::Misuse(format!("read of packed values past {}", self.len()))
            })?;
            out.extend_from_slice(slice);
        }
        Ok(())
    }

    /// Appends values of full frames `first..first + count` to `out`.
    fn read_full(&self, first: u64, count: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        let frame_len = FRAME as u64;
        let (f0, f1) = (first / frame_len, (first + count).div_ceil(frame_len));
        let mut bytes = Vec::new();
        let entry_bytes = ENTRY_WORDS as u64 * 8;
        self.index.read_at(
            f0 * entry_bytes,
            ((f1 - f0) * entry_bytes) as usize,
            &mut bytes,
        )?;
        let entries: Vec<u64> = words(&bytes).collect();
        let (Some(&first_entry), Some(&last_entry)) = (entries.get(1), entries.last()) else {
            return Err(StoreError::Misuse(format!("read of frames {f0}..{f1}")));
        };
        let start = first_entry >> 8;
        let last = [0, last_entry];
        let end = (last[1] >> 8) + frame_words((last[1] & 0xff) as u32);
        bytes.clear();
        self.bits
            .read_at(start * 8, ((end - start) * 8) as usize, &mut bytes)?;
        let bits: Vec<u64> = words(&bytes).collect();
        for i in first..first + count {
            let f = (i / frame_len - f0) as usize;
            let e = [entries[2 * f], entries[2 * f + 1]];
            let rebased = [e[0], ((e[1] >> 8) - start) << 8 | (e[1] & 0xff)];
            out.push(value(rebased, &bits, (i % frame_len) as usize));
        }
        Ok(())
    }

    /// Both files, for commits, syncs and background writes.
    pub fn files_mut(&mut self) -> [&mut AppendFile; 2] {
        [&mut self.index, &mut self.bits]
    }

    /// Bytes of data in both files.
    pub fn bytes(&self) -> u64 {
        self.index.len() + self.bits.len()
    }
}

/// The little-endian u64 words of `bytes` (whose length is a multiple of 8).
fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
}
