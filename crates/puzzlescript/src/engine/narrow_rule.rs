//! Rules compiled to plain words ([`NarrowRule`]) tried on a one-word
//! board: the matches found from the moving cells and the writes applied by
//! straight loops, without the general path's interpretation of patterns.
//! Every step mirrors [`super::rules`]'s (`try_apply`, `find_matches`,
//! `apply_at`, `replace`), in the same order, so the board, the fired record
//! and the queued commands come out the same (`tests/it/narrow_rules.rs`
//! compares both on the conformance games).

use super::row_starts::{delta, narrow_anchored_matches, narrow_cells_match, start_bounds, Starts};
use super::{Board, Overrun, RowMatch, Scratch, MAX_COMBINATIONS};
use crate::compile::{NarrowRule, Rule};

/// Tries `rule` (whose narrow form is `plan`) everywhere on a one-word board:
/// whether the board changed, or `None` when many cells move (the general
/// path then scans lines instead of visiting the moving cells).
pub(super) fn try_apply(
    board: &mut Board,
    rule: &Rule,
    plan: &NarrowRule,
    scratch: &mut Scratch,
) -> Option<bool> {
    let (w, h) = (board.width, board.height);
    if board.moving.len() * 4 > w * h {
        return None;
    }
    let (o, m) = board.summary.map_words();
    if o & plan.objects != plan.objects || m & plan.movements != plan.movements {
        return Some(false);
    }
    if scratch.rows.is_empty() {
        scratch.rows.push(Vec::new());
    }
    let (rows, starts) = (&mut scratch.rows, &mut scratch.starts);
    let Some(found) = rows.first_mut() else {
        return Some(false);
    };
    anchored_matches(board, rule, plan, found, starts);
    if found.is_empty() {
        return Some(false);
    }
    let mut changed = false;
    if rule.has_replacements {
        if found.len() > MAX_COMBINATIONS {
            scratch.fault.get_or_insert(Overrun {
                line: rule.line,
                combinations: found.len(),
            });
            return Some(false);
        }
        changed = write_matches(board, rule, plan, found, |board, k, _, _| {
            board.note_cell(k, 1, 1)
        });
    }
    board.queue_commands(&rule.commands);
    if changed || !rule.commands.is_empty() {
        scratch.note_fired(rule);
    }
    Some(changed)
}

/// Sets `found` to the matches of `rule` (whose narrow form is `plan`):
/// the starts its anchor's moving cells give, in the reference's order.
#[inline]
pub(super) fn anchored_matches(
    board: &Board,
    rule: &Rule,
    plan: &NarrowRule,
    found: &mut Vec<RowMatch>,
    starts: &mut Starts,
) {
    found.clear();
    let bounds = start_bounds(rule.direction, plan.cells.len(), board.width, board.height);
    narrow_anchored_matches(
        board,
        rule.direction,
        plan.anchor,
        &plan.cells,
        bounds,
        found,
        starts,
    );
}

/// Writes the replacements of every match in `found`, in order; true when
/// a cell changed. A match is re-checked only once an earlier one changed
/// the board, as in the general path. `note` is told of each changed cell
/// with its new objects and movements (the caller's summaries).
#[inline]
pub(super) fn write_matches(
    board: &mut Board,
    rule: &Rule,
    plan: &NarrowRule,
    found: &[RowMatch],
    mut note: impl FnMut(&mut Board, usize, u64, u64),
) -> bool {
    let d = delta(rule.direction, board.height);
    let mut changed = false;
    for (t, &[start, _, _]) in found.iter().enumerate() {
        if t > 0 && changed && !narrow_cells_match(board, &plan.cells, start as isize, d) {
            continue;
        }
        changed |= write_row(board, plan, start as isize, d, &mut note);
    }
    changed
}

/// Writes the replacements of a match starting at cell `start`, each next
/// cell `d` further; true when a cell changed.
#[inline(always)]
fn write_row(
    board: &mut Board,
    plan: &NarrowRule,
    start: isize,
    d: isize,
    note: &mut impl FnMut(&mut Board, usize, u64, u64),
) -> bool {
    let mut changed = false;
    let mut i = start;
    for write in plan.writes.iter() {
        if let Some([clear, set, mclear, mset]) = *write {
            let k = i as usize;
            if let (Some(&o), Some(&m)) = (board.objects.get(k), board.movements.get(k)) {
                let (new_o, new_m) = ((o & !clear) | set, (m & !mclear) | mset);
                board.objects[k] = new_o;
                board.movements[k] = new_m;
                if new_o != o || new_m != m {
                    note(board, k, new_o, new_m);
                    // Only cells that hold a movement are listed (as `replace`).
                    if new_m != 0 {
                        board.moving.push(k);
                    }
                    board.touch(k);
                    changed = true;
                }
            }
        }
        i += d;
    }
    changed
}
