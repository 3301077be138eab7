//! Where a rule's row may start on a board, and the test of a narrow row's
//! cells: the scan steps that the general rules ([`super::rules`]) and the
//! narrow rules ([`super::narrow_rule`]) share, kept apart so that neither
//! leans on the other.

use super::{Board, RowMatch};
use crate::compile::NarrowCell;

/// The index step of one cell in a scan direction.
pub(super) fn delta(direction: u8, height: usize) -> isize {
    match direction {
        1 => -1,
        2 => 1,
        4 => -(height as isize),
        _ => height as isize,
    }
}

/// Where a row of `len` cells (ellipses left out) scanned in `direction`
/// may start on a `w` x `h` board: x from, x to, y from, y to (ends
/// excluded), so that the whole row lies on the board.
pub(super) fn start_bounds(
    direction: u8,
    len: usize,
    w: usize,
    h: usize,
) -> (usize, usize, usize, usize) {
    let mut bounds = (0usize, w, 0usize, h);
    let reach = len.saturating_sub(1);
    match direction {
        1 => bounds.2 += reach,
        2 => bounds.3 = bounds.3.saturating_sub(reach),
        4 => bounds.0 += reach,
        _ => bounds.1 = bounds.1.saturating_sub(reach),
    }
    bounds
}

/// The matches of a narrow row without ellipsis whose cell `anchor` needs a
/// movement, on a one-word board: the starts the moving cells give (in the
/// reference's scan order, as [`anchored_starts`] sorts them), each tested
/// by the straight loop over the row's words. The same matches, in the same
/// order, as the general path's anchored visit (which tests the first cell
/// on its own first, then the rest).
pub(super) fn narrow_anchored_matches(
    board: &Board,
    direction: u8,
    anchor: usize,
    cells: &[NarrowCell],
    bounds: (usize, usize, usize, usize),
    out: &mut Vec<RowMatch>,
    starts: &mut Vec<(usize, usize, usize)>,
) {
    let h = board.height;
    let d = delta(direction, h);
    if let [only] = board.moving[..] {
        // One moving cell (a lone player): one start at most, nothing to sort.
        let (x, y) = anchor_start(board, direction, anchor, only);
        let (xmin, xmax, ymin, ymax) = bounds;
        if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
            let i = x * h + y;
            if narrow_cells_match(board, cells, i as isize, d) {
                out.push([i, 0, 0]);
            }
        }
        return;
    }
    anchored_starts(board, direction, anchor, bounds, starts);
    for &(_, x, y) in starts.iter() {
        let i = x * h + y;
        if narrow_cells_match(board, cells, i as isize, d) {
            out.push([i, 0, 0]);
        }
    }
}

/// The column and row where a row scanned in `direction` starts when its
/// cell `anchor` lies on cell `i` (wrapping below zero: out of bounds).
#[inline(always)]
pub(super) fn anchor_start(
    board: &Board,
    direction: u8,
    anchor: usize,
    i: usize,
) -> (usize, usize) {
    let (x, y) = board.xy(i);
    match direction {
        1 => (x, y + anchor),
        2 => (x, y.wrapping_sub(anchor)),
        4 => (x + anchor, y),
        _ => (x.wrapping_sub(anchor), y),
    }
}

/// The starts of a row whose cell `anchor` needs a movement: each moving
/// cell placed at that position, kept inside `bounds` (x from, x to, y from,
/// y to), as keys in the reference's scan order (row by row for horizontal
/// rules, `y * width + x`; column by column for vertical ones, `x * height + y`),
/// sorted and without repeats, each with its column and row.
pub(super) fn anchored_starts(
    board: &Board,
    direction: u8,
    anchor: usize,
    (xmin, xmax, ymin, ymax): (usize, usize, usize, usize),
    starts: &mut Vec<(usize, usize, usize)>,
) {
    let (w, h) = (board.width, board.height);
    starts.clear();
    for &i in &board.moving {
        let (x, y) = anchor_start(board, direction, anchor, i);
        if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
            let key = if direction > 2 { y * w + x } else { x * h + y };
            starts.push((key, x, y));
        }
    }
    starts.sort_unstable();
    starts.dedup();
}

/// True when the cells of a narrow row, the first at index `i` and each
/// next `d` further, match the board (a one-word board).
#[inline(always)]
pub(super) fn narrow_cells_match(board: &Board, cells: &[NarrowCell], i: isize, d: isize) -> bool {
    let (objs, movs) = (&board.objects[..], &board.movements[..]);
    let mut idx = i;
    for c in cells {
        let k = idx as usize;
        let (Some(&o), Some(&m)) = (objs.get(k), movs.get(k)) else {
            return false;
        };
        if !c.test(o, m) {
            return false;
        }
        idx += d;
    }
    true
}

/// [`narrow_cells_match`] of a row that tests no movement, on a board whose
/// objects take one word (its movements may take several): the objects
/// alone are read.
#[inline(always)]
pub(super) fn narrow_objects_match(
    board: &Board,
    cells: &[NarrowCell],
    i: isize,
    d: isize,
) -> bool {
    let objs = &board.objects[..];
    let mut idx = i;
    for c in cells {
        let Some(&o) = objs.get(idx as usize) else {
            return false;
        };
        if !c.test(o, 0) {
            return false;
        }
        idx += d;
    }
    true
}
