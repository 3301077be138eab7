//! The Sokoban move rules on encoded states, in two versions: a fast one
//! for regions of at most 128 cells, which keeps the boxes in a `u128`
//! bitset, and a general one for larger regions, which searches the sorted
//! box list in place. Neither allocates: successors are written straight
//! into the caller's buffer.

use model::{Move, Successors};

use super::board::{Board, NO_CELL};

/// Regions up to this many cells use [`SmallRules`].
pub(crate) const SMALL_REGION: usize = 128;

/// States up to this many bytes take the fixed-size path of [`SmallRules`].
const SHORT_STATE: usize = 16;

/// Marks a missing neighbour in [`SmallRules`].
const NO_SMALL: u8 = u8::MAX;

/// The rules of one level, in the version that suits its size.
#[derive(Clone, Debug)]
pub(crate) enum Rules {
    Small(SmallRules),
    Wide(WideRules),
}

impl Rules {
    /// The rules for `board`, whose cells take `width` bytes (1 or 2).
    pub(crate) fn new(board: &Board, width: usize) -> Rules {
        match SmallRules::new(board) {
            Some(small) if width == 1 => Rules::Small(small),
            _ => Rules::Wide(WideRules::new(board, width)),
        }
    }

    /// Appends every successor of `state` to `out`, by action id.
    pub(crate) fn successors(&self, state: &[u8], out: &mut Successors) {
        match self {
            Rules::Small(rules) => rules.successors(state, out),
            Rules::Wide(rules) => rules.successors(state, out),
        }
    }

    /// True when every box of `state` stands on a goal.
    pub(crate) fn is_won(&self, state: &[u8]) -> bool {
        match self {
            Rules::Small(rules) => rules.is_won(state),
            Rules::Wide(rules) => rules.is_won(state),
        }
    }
}

/// Rules for regions of at most 128 cells, one byte per cell.
#[derive(Clone, Debug)]
pub(crate) struct SmallRules {
    /// Per cell and direction, the next cell or [`NO_SMALL`]; a full table
    /// so that a masked index never needs a bounds check.
    neighbours: Box<[[u8; 4]; SMALL_REGION]>,
    /// Bit `c` set when cell `c` is a goal.
    goals: u128,
}

impl SmallRules {
    /// The fast rules, or `None` when the region is too large for them.
    fn new(board: &Board) -> Option<SmallRules> {
        if board.cells.len() > SMALL_REGION {
            return None;
        }
        let mut neighbours = Box::new([[NO_SMALL; 4]; SMALL_REGION]);
        for (slot, links) in neighbours.iter_mut().zip(&board.neighbours) {
            *slot = links.map(|n| if n == NO_CELL { NO_SMALL } else { n as u8 });
        }
        let goals = board
            .goals
            .iter()
            .enumerate()
            .filter(|(_, &g)| g)
            .fold(0u128, |bits, (c, _)| bits | 1 << c);
        Some(SmallRules { neighbours, goals })
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        if state.len() <= SHORT_STATE {
            self.short_successors(state, out);
        } else {
            self.long_successors(state, out);
        }
    }

    /// The successors of a state of at most [`SHORT_STATE`] bytes, the
    /// common case. The sorted box list is held in one `u128` (byte `i` is
    /// box `i`) and each successor is computed in registers and stored
    /// whole, then cut to length. Building it byte by byte in memory and
    /// copying it out would stall on store forwarding, and a copy of a
    /// run-time length calls `memcpy`.
    #[inline]
    fn short_successors(&self, state: &[u8], out: &mut Successors) {
        let Some((&player, boxes)) = state.split_first() else {
            return;
        };
        let len = state.len();
        let mut occupied = 0u128;
        let mut packed = 0u128;
        for (i, &cell) in boxes.iter().enumerate() {
            occupied |= bit(cell);
            packed |= u128::from(cell) << (8 * i);
        }
        let links = &self.neighbours[usize::from(player & 127)];
        for (action, &next) in (0u16..).zip(links) {
            if next == NO_SMALL {
                continue;
            }
            let moved = if occupied & bit(next) == 0 {
                packed
            } else {
                let beyond = self.neighbours[usize::from(next & 127)][usize::from(action)];
                if beyond == NO_SMALL || occupied & bit(beyond) != 0 {
                    continue;
                }
                move_packed_box(packed, occupied, next, beyond)
            };
            let target = (moved << 8 | u128::from(next)).to_le_bytes();
            out.push_with(Move::solo(action), |buf| {
                let start = buf.len();
                buf.extend_from_slice(&target);
                buf.truncate(start + len);
            });
        }
    }

    /// The successors of a state with many boxes.
    fn long_successors(&self, state: &[u8], out: &mut Successors) {
        let Some((&player, boxes)) = state.split_first() else {
            return;
        };
        let occupied = boxes.iter().fold(0u128, |bits, &b| bits | bit(b));
        let links = &self.neighbours[usize::from(player & 127)];
        for (action, &next) in (0u16..).zip(links) {
            if next == NO_SMALL {
                continue;
            }
            if occupied & bit(next) == 0 {
                out.push_with(Move::solo(action), |buf| {
                    buf.push(next);
                    buf.extend_from_slice(boxes);
                });
                continue;
            }
            let beyond = self.neighbours[usize::from(next & 127)][usize::from(action)];
            if beyond == NO_SMALL || occupied & bit(beyond) != 0 {
                continue;
            }
            out.push_with(Move::solo(action), |buf| {
                buf.push(next);
                let start = buf.len();
                buf.extend_from_slice(boxes);
                move_box_u8(&mut buf[start..], next, beyond);
            });
        }
    }

    fn is_won(&self, state: &[u8]) -> bool {
        state.iter().skip(1).all(|&b| self.goals & bit(b) != 0)
    }
}

/// The bitset bit of a small-region cell; masked so that a corrupt byte
/// cannot overflow the shift.
#[inline]
fn bit(cell: u8) -> u128 {
    1u128 << (cell & 127)
}

/// Moves a box from `from` to `to` in a packed ascending box list (byte `i`
/// is box `i`, at most 15 boxes) whose cells are the bits of `occupied`:
/// the ranks of the two cells in the set give where to cut the list out
/// and where to splice the box back in, which keeps it sorted.
#[inline]
fn move_packed_box(packed: u128, occupied: u128, from: u8, to: u8) -> u128 {
    let below = |cell: u8, set: u128| (set & (bit(cell) - 1)).count_ones();
    let low_bytes = |n: u32| (1u128 << (8 * n)) - 1;
    let remaining = occupied & !bit(from);
    let cut = below(from, occupied);
    let removed = (packed & low_bytes(cut)) | ((packed >> (8 * (cut + 1))) << (8 * cut));
    let splice = below(to, remaining);
    let keep = removed & low_bytes(splice);
    keep | ((removed & !low_bytes(splice)) << 8) | (u128::from(to) << (8 * splice))
}

/// Replaces `from` by `to` in the ascending list `boxes` and restores the
/// order by one insertion step.
#[inline]
fn move_box_u8(boxes: &mut [u8], from: u8, to: u8) {
    let Some(mut i) = boxes.iter().position(|&b| b == from) else {
        return;
    };
    boxes[i] = to;
    while i > 0 && boxes[i - 1] > to {
        boxes.swap(i - 1, i);
        i -= 1;
    }
    while i + 1 < boxes.len() && boxes[i + 1] < to {
        boxes.swap(i, i + 1);
        i += 1;
    }
}

/// Rules for any region, cells of one or two bytes (little-endian).
#[derive(Clone, Debug)]
pub(crate) struct WideRules {
    neighbours: Vec<[u16; 4]>,
    goals: Vec<bool>,
    width: usize,
}

impl WideRules {
    pub(crate) fn new(board: &Board, width: usize) -> WideRules {
        WideRules {
            neighbours: board.neighbours.clone(),
            goals: board.goals.clone(),
            width,
        }
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        let w = self.width;
        if state.len() < w {
            return;
        }
        let (player, boxes) = state.split_at(w);
        let Some(links) = self.neighbours.get(usize::from(read_cell(player, w, 0))) else {
            return;
        };
        for (action, &next) in (0u16..).zip(links) {
            if next == NO_CELL {
                continue;
            }
            if find_cell(boxes, w, next).is_err() {
                out.push_with(Move::solo(action), |buf| {
                    write_cell(buf, w, next);
                    buf.extend_from_slice(boxes);
                });
                continue;
            }
            let beyond = self
                .neighbours
                .get(usize::from(next))
                .map_or(NO_CELL, |l| l[usize::from(action)]);
            if beyond == NO_CELL || find_cell(boxes, w, beyond).is_ok() {
                continue;
            }
            out.push_with(Move::solo(action), |buf| {
                write_cell(buf, w, next);
                let start = buf.len();
                buf.extend_from_slice(boxes);
                move_box_wide(&mut buf[start..], w, next, beyond);
            });
        }
    }

    fn is_won(&self, state: &[u8]) -> bool {
        let w = self.width;
        let boxes = state.get(w..).unwrap_or_default();
        (0..boxes.len() / w)
            .all(|i| self.goals.get(usize::from(read_cell(boxes, w, i))) == Some(&true))
    }
}

/// The `i`-th cell of an encoded cell list.
#[inline]
pub(crate) fn read_cell(cells: &[u8], width: usize, i: usize) -> u16 {
    if width == 1 {
        cells.get(i).map_or(NO_CELL, |&b| u16::from(b))
    } else {
        match cells.get(2 * i..2 * i + 2) {
            Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]),
            _ => NO_CELL,
        }
    }
}

/// Appends one encoded cell.
#[inline]
pub(crate) fn write_cell(buf: &mut Vec<u8>, width: usize, cell: u16) {
    if width == 1 {
        buf.push(cell as u8);
    } else {
        buf.extend_from_slice(&cell.to_le_bytes());
    }
}

/// Binary search of `cell` in an ascending encoded cell list.
fn find_cell(cells: &[u8], width: usize, cell: u16) -> Result<usize, usize> {
    let (mut lo, mut hi) = (0, cells.len() / width);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match read_cell(cells, width, mid).cmp(&cell) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(mid),
        }
    }
    Err(lo)
}

/// [`move_box_u8`] for encoded cells of any width.
fn move_box_wide(boxes: &mut [u8], width: usize, from: u16, to: u16) {
    let Ok(mut i) = find_cell(boxes, width, from) else {
        return;
    };
    let count = boxes.len() / width;
    let swap = |boxes: &mut [u8], a: usize| {
        let (left, right) = boxes.split_at_mut((a + 1) * width);
        left[a * width..].swap_with_slice(&mut right[..width]);
    };
    boxes[i * width..(i + 1) * width].copy_from_slice(&to.to_le_bytes()[..width]);
    while i > 0 && read_cell(boxes, width, i - 1) > to {
        swap(boxes, i - 1);
        i -= 1;
    }
    while i + 1 < count && read_cell(boxes, width, i + 1) < to {
        swap(boxes, i);
        i += 1;
    }
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
