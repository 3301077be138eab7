//! The ranks of every child of a board, fast: the step of the retrograde
//! analysis needs them for billions of boards. A horizontal move changes one
//! row and a vertical move one column, and what it does there depends only on
//! that row's (7 bits) or column's (8 bits) pieces, so the moves are read from
//! tables built once from [`Board::apply`] (the rules stay in one place). The
//! rank is summed row by row from a table of each row's terms given how many
//! pieces lie in earlier rows; a horizontal child then differs from its parent
//! in one row's term and the index shift of the rows after it, so its rank
//! takes one table read beside two sums prepared once per board.

use crate::rank::binomial;
use games::fling::{Board, Direction, HEIGHT, WIDTH};
use std::sync::OnceLock;

/// Row masks (7 bits).
const ROW_MASKS: usize = 1 << WIDTH;
/// Column masks (8 bits).
const COL_MASKS: usize = 1 << HEIGHT;
/// Pieces before a row the rank table covers: 0 to 15 (the tables stop at
/// 14 pieces), a power of two so that the count is masked, not clamped.
const MAX_BEFORE: usize = 16;
/// Most moves along one line: two per piece.
const LINE_MOVES: usize = 2 * HEIGHT;

/// The rank terms of each row, by row, pieces before it and row mask: fixed
/// sizes, so that a rank's eight reads need no bounds checks (the rank is the
/// hottest part of a table build).
type RowTerms = [[[u64; ROW_MASKS]; MAX_BEFORE]; HEIGHT];

/// The results of the moves along one line: child line masks, in order.
#[derive(Clone, Copy)]
struct LineMoves {
    count: u8,
    children: [u8; LINE_MOVES],
}

/// The tables, built once (for boards of at most 14 pieces).
pub(crate) struct ChildTables {
    /// `row_terms[y][before][m]`: the rank terms of
    /// row y holding `m` after `before` pieces in rows 0..y.
    row_terms: Box<RowTerms>,
    /// Moves left and right of a row mask.
    row_moves: Vec<LineMoves>,
    /// Moves up and down of a column mask (bit y = row y).
    col_moves: Vec<LineMoves>,
    /// Row mask spread to one bit per byte (byte x = bit x), for transposing.
    spread: Vec<u64>,
    /// Column mask laid out as column 0 of a board (bit y at cell 7y).
    column_cells: Vec<u64>,
}

/// The pieces of each row mask: a table read instead of the bit-counting
/// arithmetic the baseline target compiles `count_ones` to (no `popcnt`).
static PIECES: [u8; ROW_MASKS] = row_pieces();

const fn row_pieces() -> [u8; ROW_MASKS] {
    let mut table = [0u8; ROW_MASKS];
    let mut m = 0;
    while m < ROW_MASKS {
        table[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    table
}

static TABLES: OnceLock<ChildTables> = OnceLock::new();

/// The shared tables.
pub(crate) fn tables() -> &'static ChildTables {
    TABLES.get_or_init(ChildTables::build)
}

fn line_moves(
    mask: usize,
    cells: usize,
    board_of: impl Fn(usize) -> u64,
    back: impl Fn(u64) -> usize,
    dirs: [Direction; 2],
) -> LineMoves {
    let mut moves = LineMoves {
        count: 0,
        children: [0; LINE_MOVES],
    };
    let board = Board::from_mask(board_of(mask)).unwrap_or_default();
    for cell in 0..cells {
        if mask >> cell & 1 == 0 {
            continue;
        }
        for dir in dirs {
            if let Some(child) = board.apply(board_of(1 << cell).trailing_zeros() as usize, dir) {
                moves.children[moves.count as usize] = back(child.mask()) as u8;
                moves.count += 1;
            }
        }
    }
    moves
}

/// Column 0 of the board holding column mask `c` (bit y at cell 7y).
pub(crate) fn column_board(c: usize) -> u64 {
    (0..HEIGHT)
        .filter(|y| c >> y & 1 == 1)
        .map(|y| 1u64 << (y * WIDTH))
        .sum()
}

/// The column mask (bit y = row y) of column 0 of `mask`.
pub(crate) fn column_of(mask: u64) -> usize {
    (0..HEIGHT)
        .filter(|y| mask >> (y * WIDTH) & 1 == 1)
        .map(|y| 1 << y)
        .sum()
}

impl ChildTables {
    fn build() -> ChildTables {
        let mut row_terms: Box<RowTerms> = Box::new([[[0; ROW_MASKS]; MAX_BEFORE]; HEIGHT]);
        for y in 0..HEIGHT {
            for before in 0..MAX_BEFORE {
                for m in 0..ROW_MASKS {
                    let mut term = 0;
                    let mut index = before;
                    for x in (0..WIDTH).filter(|x| m >> x & 1 == 1) {
                        index += 1;
                        term += binomial(y * WIDTH + x, index);
                    }
                    row_terms[y][before][m] = term;
                }
            }
        }
        let row_moves = (0..ROW_MASKS)
            .map(|m| {
                line_moves(
                    m,
                    WIDTH,
                    |m| m as u64,
                    |b| b as usize,
                    [Direction::Left, Direction::Right],
                )
            })
            .collect();
        let col_moves = (0..COL_MASKS)
            .map(|c| {
                line_moves(
                    c,
                    HEIGHT,
                    column_board,
                    column_of,
                    [Direction::Up, Direction::Down],
                )
            })
            .collect();
        let spread = (0..ROW_MASKS)
            .map(|m| {
                (0..WIDTH)
                    .filter(|x| m >> x & 1 == 1)
                    .map(|x| 1u64 << (8 * x))
                    .sum()
            })
            .collect();
        let column_cells = (0..COL_MASKS).map(column_board).collect();
        ChildTables {
            row_terms,
            row_moves,
            col_moves,
            spread,
            column_cells,
        }
    }

    #[inline]
    fn term(&self, y: usize, before: usize, m: usize) -> u64 {
        debug_assert!(before < MAX_BEFORE && m < ROW_MASKS);
        self.row_terms
            .get(y)
            .map_or(0, |t| t[before & (MAX_BEFORE - 1)][m & (ROW_MASKS - 1)])
    }

    /// The rank of a board given as its eight row masks.
    #[inline]
    fn rank_rows(&self, rows: &[usize; HEIGHT]) -> u64 {
        let mut before = 0;
        let mut rank = 0;
        for (y, &m) in rows.iter().enumerate() {
            rank += self.term(y, before, m);
            before += m.count_ones() as usize;
        }
        rank
    }

    /// True when some move of `mask` is legal: some row or column has one.
    #[inline]
    pub(crate) fn has_move(&self, mask: u64) -> bool {
        let mut columns = 0u64;
        for y in 0..HEIGHT {
            let row = (mask >> (y * WIDTH)) as usize & (ROW_MASKS - 1);
            if self.row_moves[row].count > 0 {
                return true;
            }
            columns |= self.spread[row] << y;
        }
        (0..WIDTH)
            .any(|x| self.col_moves[(columns >> (8 * x)) as usize & (COL_MASKS - 1)].count > 0)
    }

    /// The rank of `mask` from the row terms (eight table reads). The pieces
    /// before each row come from a table and the count is masked rather than
    /// clamped: this is the hottest code of a table build, and both cut its
    /// instructions (boards of more than 15 pieces are never ranked here).
    #[inline]
    pub(crate) fn rank(&self, mask: u64) -> u64 {
        let (mut rank, mut before, mut rest) = (0, 0usize, mask);
        for terms in self.row_terms.iter() {
            let m = rest as usize & (ROW_MASKS - 1);
            rest >>= WIDTH;
            rank += terms[before & (MAX_BEFORE - 1)][m];
            before += PIECES[m] as usize;
        }
        rank
    }

    /// Writes the rank of every child of `mask` (one per legal move, in no
    /// particular order) into `out` and returns how many there are.
    #[inline]
    pub(crate) fn child_ranks(&self, mask: u64, out: &mut [u64]) -> usize {
        let mut rows = [0usize; HEIGHT];
        for (y, row) in rows.iter_mut().enumerate() {
            *row = (mask >> (y * WIDTH)) as usize & (ROW_MASKS - 1);
        }
        // before[y]: pieces in rows 0..y; prefix[y]: the rank terms of rows
        // 0..y; suffix[y]: the terms of rows y+1.. with one piece fewer before them.
        let mut before = [0usize; HEIGHT];
        let mut prefix = [0u64; HEIGHT];
        let (mut count, mut sum) = (0, 0);
        for y in 0..HEIGHT {
            before[y] = count;
            prefix[y] = sum;
            sum += self.term(y, count, rows[y]);
            count += rows[y].count_ones() as usize;
        }
        let mut suffix = [0u64; HEIGHT];
        let mut tail = 0;
        for y in (0..HEIGHT).rev() {
            suffix[y] = tail;
            if rows[y] != 0 {
                tail += self.term(y, before[y].saturating_sub(1), rows[y]);
            }
        }
        let mut n = 0;
        let mut push = |rank: u64| {
            if let Some(slot) = out.get_mut(n) {
                *slot = rank;
                n += 1;
            }
        };
        for y in 0..HEIGHT {
            let moves = &self.row_moves[rows[y]];
            for &child in &moves.children[..moves.count as usize] {
                push(prefix[y] + self.term(y, before[y], child as usize) + suffix[y]);
            }
        }
        let mut columns = 0u64;
        for (y, &m) in rows.iter().enumerate() {
            columns |= self.spread[m] << y;
        }
        for x in 0..WIDTH {
            let column = (columns >> (8 * x)) as usize & (COL_MASKS - 1);
            let moves = &self.col_moves[column];
            for &child in &moves.children[..moves.count as usize] {
                let mut child_rows = rows;
                for (y, row) in child_rows.iter_mut().enumerate() {
                    *row = (*row & !(1 << x)) | (((child as usize) >> y) & 1) << x;
                }
                push(self.rank_rows(&child_rows));
            }
        }
        n
    }
}

impl ChildTables {
    /// The column masks of `mask`, one per byte (byte x = column x, bit y = row y).
    #[inline]
    pub(crate) fn columns(&self, mask: u64) -> u64 {
        let mut columns = 0u64;
        for y in 0..HEIGHT {
            let row = (mask >> (y * WIDTH)) as usize & (ROW_MASKS - 1);
            columns |= self.spread[row] << y;
        }
        columns
    }

    /// `mask` with column `x` replaced by the column mask `column`.
    #[inline]
    pub(crate) fn with_column(&self, mask: u64, x: usize, column: usize) -> u64 {
        let cells = self.column_cells[COL_MASKS - 1] << x;
        (mask & !cells) | self.column_cells[column & (COL_MASKS - 1)] << x
    }

    /// Writes the mask of every child of `mask` (one per legal move, in no
    /// particular order) into `out` and returns how many there are.
    #[inline]
    pub(crate) fn child_masks(&self, mask: u64, out: &mut [u64]) -> usize {
        let rows = self.row_child_masks(mask, out);
        rows + out
            .get_mut(rows..)
            .map_or(0, |rest| self.column_child_masks(mask, rest))
    }

    /// The children of `mask` by a horizontal move (as [`Self::child_masks`]).
    #[inline]
    pub(crate) fn row_child_masks(&self, mask: u64, out: &mut [u64]) -> usize {
        let mut n = 0;
        let mut push = |child: u64| {
            if let Some(slot) = out.get_mut(n) {
                *slot = child;
                n += 1;
            }
        };
        for y in 0..HEIGHT {
            let shift = y * WIDTH;
            let row = (mask >> shift) as usize & (ROW_MASKS - 1);
            let moves = &self.row_moves[row];
            let cleared = mask & !(((ROW_MASKS - 1) as u64) << shift);
            for &child in &moves.children[..moves.count as usize] {
                push(cleared | u64::from(child) << shift);
            }
        }
        n
    }

    /// The children of `mask` by a vertical move (as [`Self::child_masks`]).
    #[inline]
    pub(crate) fn column_child_masks(&self, mask: u64, out: &mut [u64]) -> usize {
        let mut n = 0;
        let mut push = |child: u64| {
            if let Some(slot) = out.get_mut(n) {
                *slot = child;
                n += 1;
            }
        };
        let columns = self.columns(mask);
        for x in 0..WIDTH {
            let column = (columns >> (8 * x)) as usize & (COL_MASKS - 1);
            let moves = &self.col_moves[column];
            for &child in &moves.children[..moves.count as usize] {
                push(self.with_column(mask, x, child as usize));
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::rank;
    use proptest::prelude::*;

    fn direct(mask: u64) -> Vec<u64> {
        let mut ranks = Vec::new();
        Board::from_mask(mask)
            .unwrap()
            .for_each_move(|_, child| ranks.push(rank(child.mask())));
        ranks.sort_unstable();
        ranks
    }

    fn direct_masks(mask: u64) -> Vec<u64> {
        let mut masks = Vec::new();
        Board::from_mask(mask)
            .unwrap()
            .for_each_move(|_, child| masks.push(child.mask()));
        masks.sort_unstable();
        masks
    }

    fn fast_masks(mask: u64) -> Vec<u64> {
        let mut out = [0u64; 4 * 56];
        let n = tables().child_masks(mask, &mut out);
        let mut masks = out[..n].to_vec();
        masks.sort_unstable();
        masks
    }

    fn fast(mask: u64) -> Vec<u64> {
        let mut out = [0u64; 4 * 56];
        let n = tables().child_ranks(mask, &mut out);
        let mut ranks = out[..n].to_vec();
        ranks.sort_unstable();
        ranks
    }

    #[test]
    fn full_rows_columns_and_corners_agree_with_the_rules() {
        for mask in [
            0b11u64,
            0b101,
            1 | 1 << 7,
            1 | 1 << 55,
            0x7f,
            0x7f << 49 | 1,
            1 << 3 | 1 << 52 | 1 << 24,
        ] {
            assert_eq!(fast(mask), direct(mask), "mask {mask:#x}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn has_move_and_rank_are_those_of_the_rules(mask in 0u64..(1 << 56), thin in 0u64..(1 << 56)) {
            let mask = mask & thin & (mask >> 3 | thin << 5);
            prop_assume!(mask.count_ones() <= 14);
            prop_assert_eq!(tables().has_move(mask), Board::from_mask(mask).unwrap().has_move());
            prop_assert_eq!(tables().rank(mask), rank(mask));
        }

        #[test]
        fn child_ranks_are_those_of_the_rules(mask in 0u64..(1 << 56), thin in 0u64..(1 << 56)) {
            // Thin the board out to the piece counts the tables use.
            let mask = mask & thin & (mask >> 3 | thin << 5);
            prop_assume!(mask.count_ones() <= 14);
            prop_assert_eq!(fast(mask), direct(mask));
        }

        #[test]
        fn child_masks_are_those_of_the_rules(mask in 0u64..(1 << 56), thin in 0u64..(1 << 56)) {
            let mask = mask & (thin | thin >> 9);
            prop_assert_eq!(fast_masks(mask), direct_masks(mask));
        }
    }
}
