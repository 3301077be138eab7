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
///
/// Each moving cell is tested against the anchor's pattern before its start
/// is placed: in a game where dozens of objects move at once, most rules'
/// anchors (a moving crate) reject most moving cells (the players), and a
/// rejected cell then costs two loads and a test.
pub(super) fn narrow_anchored_matches(
    board: &Board,
    direction: u8,
    anchor: usize,
    cells: &[NarrowCell],
    bounds: (usize, usize, usize, usize),
    out: &mut Vec<RowMatch>,
    starts: &mut Starts,
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
    let Some(&key_cell) = cells.get(anchor) else {
        return;
    };
    let (objs, movs) = (&board.objects[..], &board.movements[..]);
    let keep = |i: usize| match (objs.get(i), movs.get(i)) {
        (Some(&o), Some(&m)) => key_cell.test(o, m),
        _ => false,
    };
    each_anchored_start(board, direction, anchor, bounds, starts, keep, |x, y| {
        let i = x * h + y;
        if narrow_cells_match(board, cells, i as isize, d) {
            out.push([i, 0, 0]);
        }
    });
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
    place(direction, anchor, board.xy(i))
}

/// The column and row where a row scanned in `direction` starts when its
/// cell `anchor` lies at column and row `(x, y)` (wrapping below zero).
#[inline(always)]
pub(super) fn place(direction: u8, anchor: usize, (x, y): (usize, usize)) -> (usize, usize) {
    match direction {
        1 => (x, y + anchor),
        2 => (x, y.wrapping_sub(anchor)),
        4 => (x + anchor, y),
        _ => (x.wrapping_sub(anchor), y),
    }
}

/// The starts of a row whose cell `anchor` needs a movement: each moving
/// cell that `keep` accepts (a necessary test of the anchor's pattern on
/// it) placed at that position, kept inside `bounds` (x from, x to, y from,
/// y to), as keys in the reference's scan order (row by row for horizontal
/// rules, `y * width + x`; column by column for vertical ones, `x * height + y`),
/// sorted and without repeats, each with its column and row.
pub(super) fn anchored_starts(
    board: &Board,
    direction: u8,
    anchor: usize,
    bounds: (usize, usize, usize, usize),
    starts: &mut Starts,
    keep: impl Fn(usize) -> bool,
) {
    let (w, h) = (board.width, board.height);
    let horizontal = direction > 2;
    let mut list = std::mem::take(&mut starts.list);
    list.clear();
    each_anchored_start(board, direction, anchor, bounds, starts, keep, |x, y| {
        let key = if horizontal { y * w + x } else { x * h + y };
        list.push((key, x, y));
    });
    starts.list = list;
}

/// Calls `visit` with the column and row of each start of
/// [`anchored_starts`], in its order.
///
/// The moving cells come sorted from [`Starts`], each with its column and
/// row: placing every cell the same number of steps back along the scan
/// keeps their order (a start inside the bounds lies on its cell's line),
/// so the starts need no sort of their own, and distinct cells give
/// distinct starts, so leaving out the cells `keep` rejects leaves out
/// exactly the starts whose anchor cell cannot match.
#[inline(always)]
fn each_anchored_start(
    board: &Board,
    direction: u8,
    anchor: usize,
    (xmin, xmax, ymin, ymax): (usize, usize, usize, usize),
    starts: &mut Starts,
    keep: impl Fn(usize) -> bool,
    mut visit: impl FnMut(usize, usize),
) {
    let horizontal = direction > 2;
    starts.sort_moving(board, horizontal);
    let order = if horizontal {
        &starts.by_row
    } else {
        &starts.by_column
    };
    for &(i, x, y) in order.iter() {
        if !keep(i) {
            continue;
        }
        let (x, y) = place(direction, anchor, (x, y));
        if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
            visit(x, y);
        }
    }
}

/// A moving cell's index with its column and row.
type Placed = (usize, usize, usize);

/// A row's candidate starts (as scan-order key, column, row), and the board's
/// moving cells sorted in the two scan orders. The sorted cells are kept while
/// the board's moving list stays the same: a group's fixpoint searches its
/// anchored rows again on every pass, and stopping a moving object does not
/// change the list, so a game that moves dozens of objects at once (a slide)
/// sorted the same list for every rule of every pass, most of its time.
#[derive(Clone, Debug, Default)]
pub struct Starts {
    list: Vec<(usize, usize, usize)>,
    /// The moving list the orders below were sorted from.
    sorted_from: Vec<usize>,
    /// The moving cells without repeats, each with its column and row (so
    /// that placing a start reads no table), by `x * height + y`, when
    /// `sorted[0]`.
    by_column: Vec<Placed>,
    /// The same by `y * width + x`, when `sorted[1]`.
    by_row: Vec<Placed>,
    sorted: [bool; 2],
    /// A buffer for merging new cells into an order.
    merged: Vec<Placed>,
}

impl Starts {
    /// The list of starts as a buffer for other searches' starts (the next
    /// [`anchored_starts`] clears it; the sorted cells are not touched).
    pub(super) fn list_mut(&mut self) -> &mut Vec<(usize, usize, usize)> {
        &mut self.list
    }

    /// The starts found by the last [`anchored_starts`].
    pub fn iter(&self) -> std::slice::Iter<'_, (usize, usize, usize)> {
        self.list.iter()
    }

    /// Sorts the board's moving cells in one scan order, unless the list
    /// is the one they were last sorted from. A list that grew (movements
    /// spreading through a row of crates, a pass at a time) has its new
    /// cells merged into the orders already sorted.
    fn sort_moving(&mut self, board: &Board, horizontal: bool) {
        let old = self.sorted_from.len();
        let grown = board.moving.get(..old) == Some(&self.sorted_from[..]);
        if !grown {
            self.sorted_from.clone_from(&board.moving);
            self.sorted = [false; 2];
        } else if board.moving.len() > old {
            let tail = &board.moving[old..];
            for order in [false, true] {
                if self.sorted[usize::from(order)] {
                    let list = if order {
                        &mut self.by_row
                    } else {
                        &mut self.by_column
                    };
                    merge_in(board, order, list, tail, &mut self.merged);
                }
            }
            self.sorted_from.extend_from_slice(tail);
        }
        if self.sorted[usize::from(horizontal)] {
            return;
        }
        let order = if horizontal {
            &mut self.by_row
        } else {
            &mut self.by_column
        };
        order.clear();
        order.extend(self.sorted_from.iter().map(|&i| placed(board, i)));
        order.sort_unstable_by_key(|&p| scan_key(board, horizontal, p));
        order.dedup();
        self.sorted[usize::from(horizontal)] = true;
    }
}

/// Cell `i` with its column and row.
#[inline(always)]
fn placed(board: &Board, i: usize) -> Placed {
    let (x, y) = board.xy(i);
    (i, x, y)
}

/// Where a placed cell comes in a scan: row by row for horizontal rules,
/// column by column for vertical ones.
#[inline(always)]
fn scan_key(board: &Board, horizontal: bool, (_, x, y): Placed) -> usize {
    if horizontal {
        y * board.width + x
    } else {
        x * board.height + y
    }
}

/// The most new cells inserted one by one into a sorted order; past it,
/// they are sorted and merged in one pass.
const FEW_NEW: usize = 8;

/// Merges the cells of `tail` into the sorted, repeat-free `list` (by
/// [`scan_key`]), through the buffer `merged`. A group's fixpoint adds a
/// cell or two at a time (a pushed crate) to a list of dozens, so a few
/// cells are each put in place by a binary search, which moves the list's
/// tail but allocates nothing and compares a handful of keys.
fn merge_in(
    board: &Board,
    horizontal: bool,
    list: &mut Vec<Placed>,
    tail: &[usize],
    merged: &mut Vec<Placed>,
) {
    let key = |p: Placed| scan_key(board, horizontal, p);
    if tail.len() <= FEW_NEW {
        for &i in tail {
            let p = placed(board, i);
            let k = key(p);
            let at = list.partition_point(|&q| key(q) < k);
            if list.get(at) != Some(&p) {
                list.insert(at, p);
            }
        }
        return;
    }
    let mut new: Vec<Placed> = tail.iter().map(|&i| placed(board, i)).collect();
    new.sort_unstable_by_key(|&p| key(p));
    merged.clear();
    let (mut a, mut b) = (0, 0);
    while a < list.len() || b < new.len() {
        let take_list = b == new.len() || (a < list.len() && key(list[a]) <= key(new[b]));
        let next = if take_list {
            a += 1;
            list[a - 1]
        } else {
            b += 1;
            new[b - 1]
        };
        if merged.last() != Some(&next) {
            merged.push(next);
        }
    }
    std::mem::swap(list, merged);
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

#[cfg(test)]
mod tests {
    use super::{anchor_start, anchored_starts, start_bounds, Starts, FEW_NEW};
    use crate::engine::tests::plain_board as board;
    use crate::engine::Board;

    /// The starts as they were found before the sorted cells were kept: every
    /// moving cell placed, then sorted by key and repeats dropped.
    fn sorted_afresh(
        board: &Board,
        direction: u8,
        anchor: usize,
        len: usize,
    ) -> Vec<(usize, usize, usize)> {
        let (w, h) = (board.width, board.height);
        let (xmin, xmax, ymin, ymax) = start_bounds(direction, len, w, h);
        let mut out: Vec<_> = board
            .moving
            .iter()
            .map(|&i| anchor_start(board, direction, anchor, i))
            .filter(|&(x, y)| (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y))
            .map(|(x, y)| (if direction > 2 { y * w + x } else { x * h + y }, x, y))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// One `Starts` kept across changing moving lists (grown by one cell or
    /// by many, replaced by a list of the same length, repeated) gives, in
    /// every direction and for every anchor, the starts found afresh.
    #[test]
    fn kept_sorted_cells_give_the_starts_found_afresh() {
        let mut b = board(7, 5);
        let mut starts = Starts::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..300 {
            match round % 3 {
                0 => b.moving = (0..next(12)).map(|_| next(35)).collect(),
                1 => {
                    // One cell inserted, or more than `FEW_NEW` merged.
                    let grown = if next(2) == 0 {
                        1
                    } else {
                        FEW_NEW + 1 + next(6)
                    };
                    for _ in 0..grown {
                        b.moving.push(next(35));
                    }
                }
                _ => {
                    let len = b.moving.len();
                    b.moving = (0..len).map(|_| next(35)).collect();
                }
            }
            for direction in 1..=4u8 {
                for (anchor, len) in [(0, 1), (0, 3), (1, 3), (2, 3)] {
                    let bounds = start_bounds(direction, len, b.width, b.height);
                    anchored_starts(&b, direction, anchor, bounds, &mut starts, |_| true);
                    let kept: Vec<_> = starts.iter().copied().collect();
                    assert_eq!(
                        kept,
                        sorted_afresh(&b, direction, anchor, len),
                        "round {round}"
                    );
                }
            }
        }
    }
}
