//! Rules compiled to plain words ([`NarrowRule`]) tried on a one-word
//! board: the matches found from the moving cells and the writes applied by
//! straight loops, without the general path's interpretation of patterns.
//! Every step mirrors [`super::rules`]'s (`try_apply`, `find_matches`,
//! `apply_at`, `replace`), in the same order, so the board, the fired record
//! and the queued commands come out the same (`tests/it/narrow_rules.rs`
//! compares both on the conformance games).

use super::matching::matches_within_bound;
use super::row_starts::{
    anchor_start, delta, narrow_anchored_matches, narrow_cells_match, start_bounds, Starts,
};
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
    // Records within a turn (`NoMatch`), on a board that logs every write,
    // movements included: a rule that found no match when the log was `at`
    // long can match now only where a write since then put one of its
    // cells, and one that was applied at all its matches then finds a match
    // that changes something only there. The anchored search places every
    // moving cell (dozens when a crowd of players moves), the search near
    // the writes a few cells times the row's length.
    let records = scratch.no_match.enabled() && board.logging;
    let (epoch, now) = (board.log_epoch, board.log.len());
    let since = match records {
        true => scratch.no_match.turn_row(rule.index, epoch, now),
        false => None,
    };
    let written = since.map(|(_, at)| board.log.get(at..).unwrap_or(&[]));
    match written {
        // No more starts near the writes than moving cells to place.
        Some(cells) if cells.len() * plan.cells.len() <= board.moving.len() => {
            matches_covering(board, rule, plan, cells, found, starts.list_mut());
        }
        _ => anchored_matches(board, rule, plan, found, starts),
    }
    if found.is_empty() {
        if records {
            scratch.no_match.record_turn(rule.index, 0, epoch, now);
        }
        return Some(false);
    }
    if records && rule.records_matches() && matches_within_bound(board, rule) {
        // Applied below, these matches leave the rest of the board as it
        // is: a later search in this turn need only look near the writes
        // logged from now on (`NoMatch`, matches kept).
        scratch.no_match.record_turn(rule.index, 0, epoch, now);
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

/// Sets `found` to the matches of `rule` (whose narrow form is `plan`) that
/// put one of its cells on one of `cells`, in the reference's order: each
/// cell of the row placed on each of `cells` gives a start, each start is
/// tried, and the matches (few: most searches near the writes find none)
/// are sorted by their place in the scan without repeats (`list` holds
/// them). Testing before sorting finds the same matches, since nothing is
/// written until all are found, and sorts a handful instead of every start.
/// A rule recorded as matching nowhere has no other matches, so these are
/// all of its matches.
pub(super) fn matches_covering(
    board: &Board,
    rule: &Rule,
    plan: &NarrowRule,
    cells: &[usize],
    found: &mut Vec<RowMatch>,
    list: &mut Vec<(usize, usize, usize)>,
) {
    found.clear();
    list.clear();
    let (w, h, len) = (board.width, board.height, plan.cells.len());
    let (xmin, xmax, ymin, ymax) = start_bounds(rule.direction, len, w, h);
    let horizontal = rule.direction > 2;
    let d = delta(rule.direction, h);
    for &c in cells {
        for k in 0..len {
            let (x, y) = anchor_start(board, rule.direction, k, c);
            if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
                let i = x * h + y;
                if narrow_cells_match(board, &plan.cells, i as isize, d) {
                    let key = if horizontal { y * w + x } else { i };
                    list.push((key, i, 0));
                }
            }
        }
    }
    list.sort_unstable();
    list.dedup();
    found.extend(list.iter().map(|&(_, i, _)| [i, 0, 0]));
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
                    // Only cells that hold a movement are listed (as
                    // `write_plain`: once, when the first arrives).
                    if new_m != 0 && m == 0 {
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

#[cfg(test)]
mod tests {
    use super::{anchored_matches, matches_covering};
    use crate::engine::row_starts::{delta, Starts};
    use crate::engine::Board;
    use crate::test_rng::xorshift;

    /// The matches of a narrow rule that cover some cells, found from the
    /// starts near those cells, are exactly the anchored search's matches
    /// that cover one of them, in the same order, on many pseudo-random
    /// boards and sets of cells (repeats included, as in a log of writes).
    #[test]
    fn matches_near_cells_are_the_anchored_matches_that_cover_them() {
        let g = crate::compile(
            "t",
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\norange\nWall\nblue\n\
             LEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\nSOUNDS\n\
             COLLISIONLAYERS\nBackground\nPlayer, Crate, Wall\nRULES\n\
             [ > Player | Crate | no Wall ] -> [ > Player | > Crate | ]\n\
             [ Crate | > Player ] -> [ Crate | Player ]\n\
             [ > Crate | Wall ] -> [ Crate | Wall ]\n\
             WINCONDITIONS\nLEVELS\n.P*#\n",
        )
        .expect("compiles");
        let (w, h) = (7, 6);
        let ids: Vec<u64> = ["player", "crate", "wall"]
            .iter()
            .map(|n| 1 << g.names.objects[*n].0)
            .collect();
        let layer = g.names.id_layer[g.names.objects["player"].0];
        let shift = g.names.move_slots.slot(layer).expect("the player moves") * 5;
        let mut next = xorshift(0x3c6e_f372_fe94_f82b);
        let (mut all, mut near, mut list) = (Vec::new(), Vec::new(), Vec::new());
        let mut starts = Starts::default();
        let (mut tried, mut matched) = (0, 0);
        for _ in 0..1000 {
            let mut board = Board::empty(&g, w, h);
            for o in board.objects.iter_mut() {
                *o = ids[(next() % 3) as usize] * u64::from(!next().is_multiple_of(4));
            }
            board.moving = (0..1 + next() % 9)
                .map(|_| next() as usize % (w * h))
                .collect();
            for &i in &board.moving {
                board.movements[i] = (1 << (next() % 4)) << shift;
            }
            let cells: Vec<usize> = (0..next() % 14)
                .map(|_| next() as usize % (w * h))
                .collect();
            for rule in g.rules.groups.iter().flatten() {
                let plan = rule.narrow.as_ref().expect("a narrow rule");
                let d = delta(rule.direction, h);
                anchored_matches(&board, rule, plan, &mut all, &mut starts);
                let len = plan.cells.len() as isize;
                all.retain(|m| {
                    (0..len).any(|k| cells.contains(&((m[0] as isize + d * k) as usize)))
                });
                matches_covering(&board, rule, plan, &cells, &mut near, &mut list);
                assert_eq!(near, all, "rule on line {}", rule.line);
                tried += 1;
                matched += all.len();
            }
        }
        assert!(
            tried > 2_000 && matched > 100,
            "{tried} rows, {matched} matches"
        );
    }
}
