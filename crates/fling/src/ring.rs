//! The staged step: boards classified from the tables of k - 1 pieces with
//! early exits, their table reads overlapped across a ring of boards in
//! flight. A board is settled by its first two solvable children (solvable,
//! not unique), so most boards need two or three of their fifteen or so
//! children; reading every child (as [`crate::step::classify_group`] does, to
//! prefetch them all at once) costs several times the memory traffic. Here
//! each board in the ring reads one child per turn, and the read of its next
//! child is prefetched a whole turn of the ring ahead, so the cache misses of
//! all the boards in flight overlap while each board stops as early as it can.
//!
//! Per board the work is that of the plain step; the boards finish out of
//! order, so each result goes to the caller with the board's index.

use crate::children::ChildTables;
use crate::layout::{Layout, Mirrors};
use crate::step::{Class, MAX_MOVES};
use games::fling::WIDTH;

/// Boards in flight: enough for their misses to overlap (a core keeps a
/// couple of dozen in flight), few enough for the ring to stay in L1.
const SLOTS: usize = 24;

/// Where a board in the ring stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// No board.
    Empty,
    /// Reading its children's solvable bits, one a turn.
    Children,
    /// One child solves it: reading that child's uniquely solvable bit.
    Unique,
}

/// One board in flight.
#[derive(Clone, Copy)]
struct Slot {
    stage: Stage,
    /// The caller's index of the board, and the board.
    index: u32,
    mask: u64,
    /// Children, the next to read, solvable children so far, the first.
    /// The children of horizontal moves come first; those of vertical
    /// moves (a transposition away) only when these do not settle the board.
    columns_listed: bool,
    /// How many of the children are those of horizontal moves.
    rows: u8,
    count: u8,
    next: u8,
    solving: u8,
    first: u64,
    /// The rank of the child being read (prefetched when it was ranked).
    rank: u64,
    /// The board's mirror images, from which its children's canonical
    /// images follow (the canonical layout only).
    mirrors: Mirrors,
    /// The children's masks: ranked one at a time, as the board reads them,
    /// since most boards are settled by their first few.
    children: [u64; MAX_MOVES],
}

const EMPTY: Slot = Slot {
    stage: Stage::Empty,
    index: 0,
    mask: 0,
    columns_listed: false,
    rows: 0,
    count: 0,
    next: 0,
    solving: 0,
    first: 0,
    rank: 0,
    mirrors: Mirrors::NONE,
    children: [0; MAX_MOVES],
};

impl Slot {
    /// The mask whose rank holds the bits of child `i` in `layout`: in the
    /// canonical layout its canonical image, from the board's mirror images
    /// and the line the move changed (the lowest cell that differs).
    #[inline(always)]
    fn holder(&self, i: usize, layout: Layout) -> u64 {
        let child = self.children.get(i).copied().unwrap_or(0);
        if layout == Layout::Full {
            return child;
        }
        let changed = (self.mask ^ child).trailing_zeros() as usize;
        if i < self.rows as usize {
            self.mirrors.row_child(child, changed / WIDTH)
        } else {
            self.mirrors.column_child(child, changed % WIDTH)
        }
    }
}

/// The tables of k - 1 pieces as words (at least 3 pieces a board: 2-piece
/// boards need no table).
pub(crate) struct Below<'a> {
    pub(crate) solvable: &'a [u64],
    pub(crate) unique: &'a [u64],
    /// Where a child's bits are: at its rank or its canonical image's.
    pub(crate) layout: Layout,
}

#[inline]
fn bit(words: &[u64], index: u64) -> bool {
    words
        .get((index / 64) as usize)
        .is_some_and(|w| w >> (index % 64) & 1 == 1)
}

/// The ring of boards in flight.
pub(crate) struct Ring {
    slots: Box<[Slot; SLOTS]>,
}

impl Ring {
    pub(crate) fn new() -> Ring {
        Ring {
            slots: Box::new([EMPTY; SLOTS]),
        }
    }

    /// Classifies every board `boards` yields (its index and mask) and hands
    /// each class to `done` with the board's index and mask, in no particular order.
    pub(crate) fn classify(
        &mut self,
        tables: &ChildTables,
        below: &Below,
        mut boards: impl Iterator<Item = (u32, u64)>,
        mut done: impl FnMut(u32, u64, Class),
    ) {
        let mut live = 0;
        for slot in self.slots.iter_mut() {
            if Self::load(slot, tables, below, &mut boards, &mut done) {
                live += 1;
            }
        }
        while live > 0 {
            for slot in self.slots.iter_mut() {
                if slot.stage == Stage::Empty {
                    continue;
                }
                if let Some(class) = Self::turn(slot, tables, below) {
                    done(slot.index, slot.mask, class);
                    if !Self::load(slot, tables, below, &mut boards, &mut done) {
                        live -= 1;
                    }
                }
            }
        }
    }

    /// Puts the next board with a move into `slot` and prefetches its first
    /// child (boards without one are settled at once); false when none is left.
    #[inline(always)]
    fn load(
        slot: &mut Slot,
        tables: &ChildTables,
        below: &Below,
        boards: &mut impl Iterator<Item = (u32, u64)>,
        done: &mut impl FnMut(u32, u64, Class),
    ) -> bool {
        for (index, mask) in boards.by_ref() {
            let mut count = tables.row_child_masks(mask, &mut slot.children);
            slot.rows = count as u8;
            slot.columns_listed = count == 0;
            if count == 0 {
                count = tables.column_child_masks(mask, &mut slot.children);
            }
            if count == 0 {
                done(index, mask, (false, false, false));
                continue;
            }
            (slot.stage, slot.index, slot.mask) = (Stage::Children, index, mask);
            if below.layout == Layout::Canonical {
                slot.mirrors = Mirrors::of(mask);
            }
            slot.rank = tables.rank(slot.holder(0, below.layout));
            store::prefetch(below.solvable, (slot.rank / 64) as usize);
            slot.count = count as u8;
            (slot.next, slot.solving, slot.first) = (0, 0, 0);
            return true;
        }
        slot.stage = Stage::Empty;
        false
    }

    /// One read for the board in `slot`: its class when that settles it.
    #[inline(always)]
    fn turn(slot: &mut Slot, tables: &ChildTables, below: &Below) -> Option<Class> {
        if slot.stage == Stage::Unique {
            return Some((true, true, bit(below.unique, slot.first)));
        }
        let rank = slot.rank;
        slot.next += 1;
        if bit(below.solvable, rank) {
            slot.solving += 1;
            if slot.solving == 2 {
                return Some((true, true, false));
            }
            slot.first = rank;
        }
        if slot.next == slot.count && !slot.columns_listed {
            slot.columns_listed = true;
            let rest = &mut slot.children[slot.count as usize..];
            slot.count += tables.column_child_masks(slot.mask, rest) as u8;
        }
        if slot.next < slot.count {
            slot.rank = tables.rank(slot.holder(slot.next as usize, below.layout));
            store::prefetch(below.solvable, (slot.rank / 64) as usize);
            return None;
        }
        if slot.solving == 0 {
            return Some((true, false, false));
        }
        store::prefetch(below.unique, (slot.first / 64) as usize);
        slot.stage = Stage::Unique;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::{classify_reference, Previous};
    use proptest::prelude::*;

    /// Tables of k - 1 pieces with bits drawn from `seed` (not real tables: the
    /// ring must agree with the plain step whatever the bits say).
    fn random_words(len: usize, seed: u64, density: u32) -> Vec<u64> {
        let mut state = seed | 1;
        (0..len)
            .map(|_| {
                let mut word = 0;
                for _ in 0..density {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    word |= state;
                }
                word
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_ring_classifies_as_the_plain_step(
            seed in any::<u64>(),
            density in 1u32..3,
            first in 0u64..crate::rank::boards(4) - 300,
        ) {
            let pieces = 4;
            let words = (crate::rank::boards(pieces - 1) as usize).div_ceil(64);
            let solvable = random_words(words, seed, density);
            let unique = random_words(words, seed.rotate_left(17), 1);
            let previous = Previous::Tables { solvable: &solvable, unique: &unique, layout: Layout::Full };
            let below = Below { solvable: &solvable, unique: &unique, layout: Layout::Full };
            let mut mask = crate::rank::unrank(first, pieces).unwrap();
            let mut masks = Vec::new();
            for _ in 0..300 {
                masks.push(mask);
                mask = crate::rank::next_combination(mask);
            }
            let mut found = vec![None; masks.len()];
            Ring::new().classify(
                crate::children::tables(),
                &below,
                masks.iter().enumerate().map(|(i, &m)| (i as u32, m)),
                |i, _, class| found[i as usize] = Some(class),
            );
            for (i, &m) in masks.iter().enumerate() {
                prop_assert_eq!(found[i], Some(classify_reference(m, pieces, &previous)));
            }
        }
    }
}
