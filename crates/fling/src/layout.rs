//! Mirror symmetry of Fling! boards and the tables' layouts: a board's mirror
//! images (left-right, top-bottom, both) by shifts, its canonical image (the
//! smallest mask), the size of its class, and where a layout holds a board's bits.
//! A leaf of the crate: the steps, the lookups and the manifest all use it.

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
    let (lr, tb, both) = images(mask);
    mask.min(lr).min(tb).min(both)
}

/// True when `mask` is its class's canonical board (the oracle of the walk
/// over canonical boards, which builds no longer test board by board). Most boards are refused
/// by their top row alone: an image whose top row (the most significant
/// bits) is smaller than the board's is a smaller mask.
#[cfg(test)]
pub(crate) fn is_canonical(mask: u64) -> bool {
    let top = (mask >> ((HEIGHT - 1) * WIDTH)) as usize & 0x7f;
    let bottom = mask as usize & 0x7f;
    if bottom < top || (REVERSED[top] as usize) < top || (REVERSED[bottom] as usize) < top {
        return false;
    }
    canonical(mask) == mask
}

/// Bit x of every row (cells x, 7 + x, ..., 49 + x).
const fn column_bits(x: u32) -> u64 {
    let mut bits = 0u64;
    let mut y = 0;
    while y < HEIGHT {
        bits |= 1 << (y * WIDTH + x as usize);
        y += 1;
    }
    bits
}

/// Rows whose index has bit `b` clear (the lower half of each run of 2^(b+1) rows).
const fn row_runs(b: u32) -> u64 {
    let mut bits = 0u64;
    let mut y = 0;
    while y < HEIGHT {
        if y >> b & 1 == 0 {
            bits |= 0x7f << (y * WIDTH);
        }
        y += 1;
    }
    bits
}

/// `mask` mirrored left-right: bit x of every row swapped with bit 6 - x, by
/// shifts of whole columns (a few operations, no table).
#[inline]
fn mirror_left_right(m: u64) -> u64 {
    let c = column_bits;
    (m & c(3))
        | (m & c(0)) << 6
        | (m & c(6)) >> 6
        | (m & c(1)) << 4
        | (m & c(5)) >> 4
        | (m & c(2)) << 2
        | (m & c(4)) >> 2
}

/// `mask` mirrored top-bottom: the eight rows in reverse order, by swapping
/// neighbouring rows, then pairs, then halves.
#[inline]
fn mirror_top_bottom(m: u64) -> u64 {
    let w = WIDTH as u32;
    let m = (m & row_runs(0)) << w | (m >> w) & row_runs(0);
    let m = (m & row_runs(1)) << (2 * w) | (m >> (2 * w)) & row_runs(1);
    (m & row_runs(2)) << (4 * w) | m >> (4 * w)
}

/// The left-right, top-bottom and double mirror images of `mask`.
#[inline]
fn images(mask: u64) -> (u64, u64, u64) {
    let lr = mirror_left_right(mask);
    (lr, mirror_top_bottom(mask), mirror_top_bottom(lr))
}

/// How a count's tables hold their bits (recorded in the manifest; absent
/// in manifests written before the canonical layout, which hold full tables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Every board's bits at its rank.
    #[default]
    Full,
    /// Only the canonical board of each mirror class holds its class's bits
    /// (the others are zero): a lookup ranks the board's canonical image. A
    /// count no later count is computed from needs no other board's bits,
    /// and this layout computes a quarter of the boards and copies none.
    Canonical,
}

impl Layout {
    /// The mask whose rank holds the bits of `mask` in this layout.
    #[inline]
    pub fn holder(self, mask: u64) -> u64 {
        match self {
            Layout::Full => mask,
            Layout::Canonical => canonical(mask),
        }
    }
}

/// The number of distinct boards among `mask` and its mirror images: four
/// divided by how many of the four mirrorings (the identity included) leave
/// the board as it is, since those form a subgroup (of 1, 2 or 4 elements).
#[inline]
pub(crate) fn class_size(mask: u64) -> u64 {
    let (lr, tb, both) = images(mask);
    let fixed = 1 + u64::from(lr == mask) + u64::from(tb == mask) + u64::from(both == mask);
    // 4 / fixed by a shift: a division costs tens of cycles on every board.
    4 >> (fixed >> 1)
}

/// The mirror images of a board, kept while its children are read: a child
/// differs from its board in one row or one column, so each of its images
/// differs from the board's in one line too, and its canonical image is
/// found from them in a few operations instead of three mirrorings.
#[derive(Clone, Copy)]
pub(crate) struct Mirrors {
    lr: u64,
    tb: u64,
    both: u64,
}

/// Row 0 of a board.
const ROW: u64 = (1 << WIDTH) - 1;

impl Mirrors {
    /// No board's images (a placeholder).
    pub(crate) const NONE: Mirrors = Mirrors {
        lr: 0,
        tb: 0,
        both: 0,
    };

    /// The images of `mask`.
    #[inline]
    pub(crate) fn of(mask: u64) -> Mirrors {
        let (lr, tb, both) = images(mask);
        Mirrors { lr, tb, both }
    }

    /// The canonical image of `child`, a board that differs from this one
    /// in row `y` only (a horizontal move's child).
    #[inline(always)]
    pub(crate) fn row_child(&self, child: u64, y: usize) -> u64 {
        let (at, opposite) = (WIDTH * (y % HEIGHT), WIDTH * (HEIGHT - 1 - y % HEIGHT));
        let row = child >> at & ROW;
        let reversed = u64::from(REVERSED[row as usize]);
        let lr = self.lr & !(ROW << at) | reversed << at;
        let tb = self.tb & !(ROW << opposite) | row << opposite;
        let both = self.both & !(ROW << opposite) | reversed << opposite;
        child.min(lr).min(tb).min(both)
    }

    /// The canonical image of `child`, a board that differs from this one
    /// in column `x` only (a vertical move's child).
    #[inline(always)]
    pub(crate) fn column_child(&self, child: u64, x: usize) -> u64 {
        let x = x % WIDTH;
        let (own, other) = (column_bits(0) << x, column_bits(0) << (WIDTH - 1 - x));
        let cells = child & own;
        let flipped = mirror_top_bottom(cells);
        // Column x moved to column 6 - x, without a branch (which would be
        // mispredicted half the time): cell 55 + 6 still fits the word.
        let across = |c: u64| (c << (WIDTH - 1)) >> (2 * x);
        let lr = self.lr & !other | across(cells);
        let tb = self.tb & !own | flipped;
        let both = self.both & !other | across(flipped);
        child.min(lr).min(tb).min(both)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use games::fling::Board;
    use proptest::prelude::*;

    /// A mirror image cell by cell: the oracle of the shifts.
    fn mirrored(mask: u64, flip_x: bool, flip_y: bool) -> u64 {
        let mut image = 0;
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                if mask >> (y * WIDTH + x) & 1 == 1 {
                    let tx = if flip_x { WIDTH - 1 - x } else { x };
                    let ty = if flip_y { HEIGHT - 1 - y } else { y };
                    image |= 1 << (ty * WIDTH + tx);
                }
            }
        }
        image
    }

    proptest! {
        #[test]
        fn mirrors_canonical_images_and_classes_are_the_boards(mask in 0u64..(1 << 56)) {
            let board = Board::from_mask(mask).unwrap();
            prop_assert_eq!(canonical(mask), board.canonical().mask());
            prop_assert_eq!(is_canonical(mask), board.canonical() == board);
            let all = [
                mask,
                mirrored(mask, true, false),
                mirrored(mask, false, true),
                mirrored(mask, true, true),
            ];
            prop_assert_eq!(images(mask), (all[1], all[2], all[3]));
            let distinct: std::collections::HashSet<u64> = all.into_iter().collect();
            prop_assert_eq!(class_size(mask), distinct.len() as u64);
        }

        #[test]
        fn a_childs_canonical_image_follows_from_its_boards_mirrors(
            mask in 0u64..(1 << 56),
            thin in 0u64..(1 << 56),
        ) {
            let mask = mask & (thin | thin >> 9);
            let tables = crate::children::tables();
            let mirrors = Mirrors::of(mask);
            let mut children = [0u64; 4 * 56];
            let rows = tables.row_child_masks(mask, &mut children);
            let columns = tables.column_child_masks(mask, &mut children[rows..]);
            for (i, &child) in children[..rows + columns].iter().enumerate() {
                let changed = (mask ^ child).trailing_zeros() as usize;
                let found = if i < rows {
                    mirrors.row_child(child, changed / WIDTH)
                } else {
                    mirrors.column_child(child, changed % WIDTH)
                };
                prop_assert_eq!(found, canonical(child));
            }
        }

        #[test]
        fn symmetric_boards_have_smaller_classes(half in 0u64..(1 << 28)) {
            // A board equal to its top-bottom image: rows 4..7 mirror rows 0..3.
            let mask = half | mirrored(half, false, true);
            prop_assert!(class_size(mask) <= 2);
        }
    }
}
