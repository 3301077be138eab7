//! The mirror-symmetry lever of the table build: a board and its mirror
//! images (left-right, top-bottom, both) are solvable and uniquely solvable
//! alike, because the rules are, so only the canonical board of each class
//! (the smallest mask, hence the smallest rank) is classified by its
//! children; every other board copies the bits of its canonical image, which
//! lies at a smaller rank and so was computed earlier: in the same chunk (kept
//! in the chunk's own words) or in an earlier chunk whose record says it is
//! done (read back from the table being written). When the canonical image is
//! not known yet (its chunk is still being computed by another thread, or it
//! lies in the word being filled) the board is classified by its children, as
//! without the lever, so the bits never depend on the scheduling. The tables'
//! words are still written in order, once, by the chunk's thread, so the
//! files, the chunk records and resuming are as without the lever.

use crate::children::ChildTables;
use crate::chunk::{decode, Counts, Out, CHUNK};
use crate::error::FlingError;
use crate::layout::{canonical, class_size, Layout};
use crate::rank::{next_combination, unrank};
use crate::ring::{Below, Ring};
use crate::step::{classify_reference, Class, Previous};
use crate::walk::CanonicalWalk;

/// A board of the chunk whose bits are copied from its canonical image.
#[derive(Clone, Copy)]
struct Copy {
    index: u32,
    mask: u64,
    image: u64,
}

/// The chunk being computed: its first rank, its words, its counts.
struct Chunk {
    start: u64,
    solvable: Vec<u64>,
    unique: Vec<u64>,
    counts: Counts,
}

impl Chunk {
    /// Records the class of the board at `index`, counted `weight` times.
    #[inline]
    fn set(&mut self, index: u32, (has_move, solvable, unique): Class, weight: u64) {
        let (word, bit) = ((index / 64) as usize, index % 64);
        self.solvable[word] |= u64::from(solvable) << bit;
        self.unique[word] |= u64::from(unique) << bit;
        self.counts.with_move += weight * u64::from(has_move);
        self.counts.solvable += weight * u64::from(solvable);
        self.counts.unique += weight * u64::from(unique);
    }

    /// The bits of the board at `rank`, from this chunk's words or an
    /// earlier chunk's (once its record says it is done).
    fn known(&self, rank: u64, out: &Out) -> Option<(bool, bool)> {
        let bits = |s: u64, u: u64| (s >> (rank % 64) & 1 == 1, u >> (rank % 64) & 1 == 1);
        if rank >= self.start {
            let word = ((rank - self.start) / 64) as usize;
            return Some(bits(self.solvable[word], self.unique[word]));
        }
        let records = out.records?;
        decode(records.load_word((rank / CHUNK) as usize))?;
        let word = (rank / 64) as usize;
        Some(bits(
            out.solvable.load_word(word),
            out.unique.load_word(word),
        ))
    }
}

/// What classifying a range needs besides its boards.
struct Range<'a> {
    tables: &'a ChildTables,
    pieces: usize,
    previous: &'a Previous<'a>,
    out: &'a Out<'a>,
}

impl Range<'_> {
    /// Classifies `boards` (index and mask) into `chunk`: in the ring, or
    /// (two pieces, no table below) by the plain step.
    fn classify(
        &self,
        ring: &mut Ring,
        chunk: &mut Chunk,
        boards: impl Iterator<Item = (u32, u64)>,
        weight: impl Fn(u64) -> u64,
    ) {
        match self.previous {
            Previous::Tables {
                solvable,
                unique,
                layout,
            } => {
                let below = Below {
                    solvable,
                    unique,
                    layout: *layout,
                };
                ring.classify(self.tables, &below, boards, |i, mask, class| {
                    chunk.set(i, class, weight(mask));
                });
            }
            Previous::Solved => {
                for (i, mask) in boards {
                    let class = classify_reference(mask, self.pieces, self.previous);
                    chunk.set(i, class, weight(mask));
                }
            }
        }
    }

    /// Copies the bits of boards whose canonical image is known (this
    /// chunk's, or an earlier finished chunk's, read with prefetches a few
    /// boards ahead) and returns those whose image is not known yet.
    fn copy(&self, chunk: &mut Chunk, copies: &[Copy]) -> Vec<(u32, u64)> {
        const AHEAD: usize = 16;
        let start = chunk.start;
        let prefetch = |c: &Copy| {
            if c.image < start && self.out.records.is_some() {
                self.out.solvable.prefetch_word((c.image / 64) as usize);
                self.out.unique.prefetch_word((c.image / 64) as usize);
            }
        };
        copies.iter().take(AHEAD).for_each(prefetch);
        let mut late = Vec::new();
        for (i, c) in copies.iter().enumerate() {
            if let Some(ahead) = copies.get(i + AHEAD) {
                prefetch(ahead);
            }
            match chunk.known(c.image, self.out) {
                Some((solvable, unique)) => {
                    let has_move = solvable || self.tables.has_move(c.mask);
                    chunk.set(c.index, (has_move, solvable, unique), 1);
                }
                None => late.push((c.index, c.mask)),
            }
        }
        late
    }
}

/// Computes the ranks `start..end` (start a multiple of 64, within one chunk)
/// into `out` with the symmetry lever: canonical boards classified in the
/// ring, the others (in the full layout) copied from their canonical images
/// once those are known, or classified too when they are not.
pub(crate) fn compute_range(
    (pieces, layout): (usize, Layout),
    start: u64,
    end: u64,
    previous: &Previous,
    out: &Out,
) -> Result<Counts, FlingError> {
    let range = Range {
        tables: crate::children::tables(),
        pieces,
        previous,
        out,
    };
    let words = (end - start).div_ceil(64) as usize;
    let mut chunk = Chunk {
        start,
        solvable: vec![0; words],
        unique: vec![0; words],
        counts: Counts::default(),
    };
    let weight = |mask: u64| match layout {
        Layout::Full => 1,
        Layout::Canonical => class_size(mask),
    };
    let mut ring = Ring::new();
    if layout == Layout::Canonical {
        // Only the canonical boards, found without testing the others.
        let boards = CanonicalWalk::new(pieces, start, end);
        range.classify(&mut ring, &mut chunk, boards, weight);
        return store_chunk(&chunk, out);
    }
    let first = unrank(start, pieces).unwrap_or(0);
    let masks = std::iter::successors(Some(first), |&m| Some(next_combination(m)))
        .take((end - start) as usize)
        .enumerate()
        .map(|(i, m)| (i as u32, m));
    let mut copies = Vec::new();
    let canonical_boards = masks.filter(|&(index, mask)| {
        let image = canonical(mask);
        if image == mask {
            return true;
        }
        let image = range.tables.rank(image);
        copies.push(Copy { index, mask, image });
        false
    });
    range.classify(&mut ring, &mut chunk, canonical_boards, weight);
    let late = range.copy(&mut chunk, &copies);
    range.classify(&mut ring, &mut chunk, late.into_iter(), |_| 1);
    store_chunk(&chunk, out)
}

/// Stores the chunk's words into the tables, in order, and returns its counts.
fn store_chunk(chunk: &Chunk, out: &Out) -> Result<Counts, FlingError> {
    for (i, (&solvable, &unique)) in chunk.solvable.iter().zip(&chunk.unique).enumerate() {
        let word = (chunk.start / 64) as usize + i;
        out.solvable.store_word(word, solvable)?;
        out.unique.store_word(word, unique)?;
    }
    Ok(chunk.counts)
}
