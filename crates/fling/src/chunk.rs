//! The unit of a table build: a chunk of ranks, its counts, the tables it is
//! computed into and its record (what the plain and the symmetric steps share,
//! kept apart from the build so that neither step depends on the other).

use crate::layout::Layout;
use crate::step::Class;
use store::BitTableWriter;

/// Ranks per unit of work handed to a thread (a multiple of 64).
pub(crate) const CHUNK: u64 = 1 << 16;

/// Counts of one rank range.
#[derive(Clone, Copy, Default)]
pub(crate) struct Counts {
    pub(crate) with_move: u64,
    pub(crate) solvable: u64,
    pub(crate) unique: u64,
}

/// The tables a range is computed into: the two bit tables and, in a build,
/// the chunk records (the symmetric step reads back the bits of earlier chunks
/// only once their record says they are done).
pub(crate) struct Out<'a> {
    pub(crate) solvable: &'a BitTableWriter,
    pub(crate) unique: &'a BitTableWriter,
    pub(crate) records: Option<&'a BitTableWriter>,
    /// How the tables hold their bits.
    pub(crate) layout: Layout,
}

/// Adds the classes of one word of boards to `counts` and returns the word's
/// solvable and uniquely solvable bits.
pub(crate) fn tally(classes: &[Class], counts: &mut Counts) -> (u64, u64) {
    let (mut solvable, mut unique) = (0u64, 0u64);
    for (bit, &(has_move, s, u)) in classes.iter().enumerate() {
        counts.with_move += u64::from(has_move);
        counts.solvable += u64::from(s);
        counts.unique += u64::from(u);
        solvable |= u64::from(s) << bit;
        unique |= u64::from(u) << bit;
    }
    (solvable, unique)
}

/// A chunk record: bit 63 set when the chunk is done, then its counts of
/// boards with a move, solvable and uniquely solvable in 21 bits each (a
/// chunk of the canonical layout counts each of its boards once per image,
/// up to four times its 65,536 ranks).
pub(crate) const DONE: u64 = 1 << 63;
const WIDTH: u32 = 21;
const FIELD: u64 = (1 << WIDTH) - 1;

/// The kind of the chunk records' file (renamed when the record changed, so
/// that an unfinished build of an older version starts its count afresh).
pub(crate) const RECORDS: &str = "chunk-records";

pub(crate) fn encode(counts: Counts) -> u64 {
    DONE | counts.with_move | counts.solvable << WIDTH | counts.unique << (2 * WIDTH)
}

pub(crate) fn decode(record: u64) -> Option<Counts> {
    (record & DONE != 0).then_some(Counts {
        with_move: record & FIELD,
        solvable: record >> WIDTH & FIELD,
        unique: record >> (2 * WIDTH) & FIELD,
    })
}
