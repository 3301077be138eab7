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
use crate::rank::{next_combination, unrank};
use crate::step::{classify_group, Class, Previous, GROUP};
use games::fling::{HEIGHT, WIDTH};

/// A row of 7 bits reversed (x becomes 6 - x).
const fn reversed_rows() -> [u8; 128] {
    let mut table = [0u8; 128];
    let mut row = 0;
    while row < 128 {
        table[row] = (row as u8).reverse_bits() >> 1;
        row += 1;
    }
    table
}

static REVERSED: [u8; 128] = reversed_rows();

/// The canonical image of `mask`: the smallest of it and its three mirror
/// images (as `games::fling::Board::canonical`, without its checks).
#[inline]
pub(crate) fn canonical(mask: u64) -> u64 {
    let (mut lr, mut tb, mut both) = (0u64, 0u64, 0u64);
    for y in 0..HEIGHT {
        let row = (mask >> (y * WIDTH)) as usize & 0x7f;
        let flipped = u64::from(REVERSED[row]);
        let (here, there) = (y * WIDTH, (HEIGHT - 1 - y) * WIDTH);
        lr |= flipped << here;
        tb |= (row as u64) << there;
        both |= flipped << there;
    }
    mask.min(lr).min(tb).min(both)
}

/// Where a board's class comes from within a word of 64 boards.
#[derive(Clone, Copy)]
enum Source {
    /// Its own children (a canonical board, or one whose image is not known).
    Children,
    /// The canonical image at this rank: bits to read once prefetched.
    Image(u64),
}

/// The chunk being computed: its first rank and the words it has finished.
struct Chunk {
    start: u64,
    solvable: Vec<u64>,
    unique: Vec<u64>,
}

impl Chunk {
    /// The solvable and uniquely solvable bits of `rank` when they are known
    /// before the word starting at `word_start` is filled.
    fn known(&self, rank: u64, word_start: u64, out: &Out) -> Option<(bool, bool)> {
        let bits = |s: u64, u: u64| (s >> (rank % 64) & 1 == 1, u >> (rank % 64) & 1 == 1);
        if rank >= self.start {
            let word = ((rank - self.start) / 64) as usize;
            return (rank / 64 < word_start / 64)
                .then(|| bits(self.solvable[word], self.unique[word]));
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
    /// Classifies the `n` boards from `first` on (one word, starting at rank
    /// `word_start`) into `classes`, copying the bits of known canonical
    /// images and classifying the others from their children.
    fn classify_word(
        &self,
        first: u64,
        n: usize,
        chunk: &Chunk,
        word_start: u64,
        classes: &mut [Class; 64],
    ) {
        let mut sources = [Source::Children; 64];
        let mut mask = first;
        for source in &mut sources[..n] {
            let image = canonical(mask);
            if image != mask {
                let rank = self.tables.rank(image);
                // Both words, so that the reads below overlap rather than
                // wait for one cache miss after another.
                if rank < chunk.start && self.out.records.is_some() {
                    self.out.solvable.prefetch_word((rank / 64) as usize);
                    self.out.unique.prefetch_word((rank / 64) as usize);
                }
                *source = Source::Image(rank);
            }
            mask = next_combination(mask);
        }
        let (mut todo, mut slots) = ([0u64; 64], [0usize; 64]);
        let mut count = 0;
        mask = first;
        for (i, source) in sources[..n].iter().enumerate() {
            let known = match *source {
                Source::Image(rank) => chunk.known(rank, word_start, self.out),
                Source::Children => None,
            };
            match known {
                Some((solvable, unique)) => {
                    classes[i] = (solvable || self.tables.has_move(mask), solvable, unique);
                }
                None => {
                    (todo[count], slots[count]) = (mask, i);
                    count += 1;
                }
            }
            mask = next_combination(mask);
        }
        let mut found = [(false, false, false); GROUP];
        for (masks, slots) in todo[..count]
            .chunks(GROUP)
            .zip(slots[..count].chunks(GROUP))
        {
            classify_group(masks, self.pieces, self.previous, &mut found);
            for (&slot, &class) in slots.iter().zip(&found) {
                classes[slot] = class;
            }
        }
    }
}

/// Computes the ranks `start..end` (start a multiple of 64, within one chunk)
/// into `out` with the symmetry lever.
pub(crate) fn compute_range(
    pieces: usize,
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
    };
    let mut counts = Counts::default();
    let mut mask = unrank(start, pieces).unwrap_or(0);
    let mut word_start = start;
    let mut classes = [(false, false, false); 64];
    while word_start < end {
        let n = (end - word_start).min(64) as usize;
        range.classify_word(mask, n, &chunk, word_start, &mut classes);
        for _ in 0..n {
            mask = next_combination(mask);
        }
        let (solvable, unique) = crate::chunk::tally(&classes[..n], &mut counts);
        let local = ((word_start - start) / 64) as usize;
        (chunk.solvable[local], chunk.unique[local]) = (solvable, unique);
        let word = (word_start / 64) as usize;
        out.solvable.store_word(word, solvable)?;
        out.unique.store_word(word, unique)?;
        word_start += 64;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use games::fling::Board;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn canonical_is_the_boards(mask in 0u64..(1 << 56)) {
            prop_assert_eq!(canonical(mask), Board::from_mask(mask).unwrap().canonical().mask());
        }
    }
}
