//! Applying a rule's matches to a board: the re-check that a match still
//! holds, the replacements written (plain words or the patterns' slices),
//! rigid marks, and the combinations of row matches in the reference's order.

use super::matching::{
    at, find_matches, find_matches_but, matches_near_writes, matches_within_bound, may_match,
};
use super::row_starts::delta;
use super::{Board, Chooser, RowMatch, Scratch};
use crate::bits;
use crate::compile::writes::{CellWrite, PlainWrite};
use crate::compile::{CellPattern, Compiled, PatternCell, Replacement, Rule};

/// Re-checks that one row match still holds: each stretch of the row (its
/// cells between ellipses) tested where the match put it, the second past
/// the first's cells and gap `m[1]`, the third past the second's and gap
/// `m[2]`. These are the cells the reference checks again (the gaps of the
/// match alone; with two ellipses its first range bounds their sum, which
/// the match's own gaps meet).
pub(super) fn still_matches(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    m: RowMatch,
) -> bool {
    let d = delta(rule.direction, board.height);
    let sizes = (g.obj_words, g.mov_words);
    let (objects, movements) = (&board.objects[..], &board.movements[..]);
    let stretches = &rule.row_tests[r].stretches;
    let mut first = m[0];
    for (k, s) in stretches.iter().enumerate() {
        // Past the previous stretch's cells and this stretch's gap.
        if let (Some(before), Some(&gap)) =
            (k.checked_sub(1).and_then(|p| stretches.get(p)), m.get(k))
        {
            first = at(first, d, before.cells as usize + gap);
        }
        if !s.matches(objects, movements, sizes, first, d) {
            return false;
        }
    }
    true
}

/// Applies a rule at one combination of row matches; true when the board changed.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn apply_at(
    g: &Compiled,
    board: &mut Board,
    rule: &Rule,
    group: usize,
    tuple: &[RowMatch],
    check: bool,
    buf: &mut Vec<u64>,
    chooser: &mut dyn Chooser,
) -> bool {
    if check && !still_match(g, board, rule, tuple) {
        return false;
    }
    let d = delta(rule.direction, board.height);
    if rule.writes.plain {
        // Plain words alone: a short loop without the patterns.
        let (so, sm) = (g.obj_words, g.mov_words);
        let mut changed = false;
        for (writes, &m) in rule.writes.rows.iter().zip(tuple) {
            for w in writes.iter() {
                if let Some(plain) = w.plain {
                    changed |= write_plain(board, so, sm, plain, write_at(w, m, d));
                }
            }
        }
        return changed;
    }
    apply_patterns(g, board, rule, group, tuple, buf, chooser)
}

/// True when every row match of `tuple` still holds (the reference's
/// re-check before applying a match once an earlier one changed the board).
#[inline(never)]
fn still_match(g: &Compiled, board: &Board, rule: &Rule, tuple: &[RowMatch]) -> bool {
    tuple
        .iter()
        .enumerate()
        .all(|(r, &m)| still_matches(g, board, rule, r, m))
}

/// The cell a write lands on in match `m` (gaps added as its ellipses say).
#[inline(always)]
fn write_at(w: &CellWrite, m: RowMatch, d: isize) -> usize {
    let gaps = match w.gaps {
        0 => 0,
        1 => m[1],
        _ => m[1] + m[2],
    };
    at(m[0], d, w.step as usize + gaps)
}

/// [`apply_at`]'s writes through the patterns' replacements (several object
/// words, random choices, rigid marks), each cell of `Rule::writes` in the
/// row's order, those of plain words as such.
#[inline(never)]
fn apply_patterns(
    g: &Compiled,
    board: &mut Board,
    rule: &Rule,
    group: usize,
    tuple: &[RowMatch],
    buf: &mut Vec<u64>,
    chooser: &mut dyn Chooser,
) -> bool {
    let d = delta(rule.direction, board.height);
    let mut changed = false;
    for (r, &m) in tuple.iter().enumerate() {
        let (Some(writes), Some(row)) = (rule.writes.rows.get(r), rule.rows.get(r)) else {
            continue;
        };
        for w in writes.iter() {
            let i = write_at(w, m, d);
            // A replacement of plain words is written as such (a rigid rule
            // also marks its writes).
            if let (Some(plain), false) = (w.plain, rule.rigid) {
                changed |= write_plain(board, g.obj_words, g.mov_words, plain, i);
            } else if let Some(PatternCell::Cell(p)) = row.get(w.cell as usize) {
                changed |= replace(g, board, rule, group, p, i, buf, chooser);
            }
        }
    }
    changed
}

/// Writes a replacement of plain words into cell `i` of a board of `so`
/// object and `sm` movement words a cell, with the bookkeeping of
/// [`replace`]; true when the cell changed.
#[inline(always)]
pub(super) fn write_plain(
    board: &mut Board,
    so: usize,
    sm: usize,
    w: PlainWrite,
    i: usize,
) -> bool {
    let (at_o, at_m) = (i * so + w.object_word as usize, i * sm + w.word as usize);
    let (Some(&o), Some(&m)) = (board.objects.get(at_o), board.movements.get(at_m)) else {
        return false;
    };
    let (new_o, new_m) = ((o & !w.clear) | w.set, (m & !w.moves_clear) | w.moves_set);
    if new_o == o && new_m == m {
        return false;
    }
    board.objects[at_o] = new_o;
    board.movements[at_m] = new_m;
    if so == 1 && sm == 1 {
        board.note_narrow(i, new_o, new_m);
    } else {
        // Only the words written can hold something new (the cell's other
        // words are in the summaries already).
        board.note_plain(i, w.object_word as usize, new_o, w.word as usize, new_m);
    }
    // Only cells that hold a movement are listed (as `replace` does: a
    // movement in another word means the cell is listed already), and a
    // cell whose word held one is listed already too: a rule that sets the
    // movement of each layer of a cell in turn (a crate drawn as five
    // objects, `[ slideup ] [ crate ] -> [ slideup ] [ up crate ]`) listed
    // it five times, and every anchored search compared and merged them.
    if new_m != 0 && m == 0 {
        board.moving.push(i);
    }
    board.touch(i);
    true
}

/// Rewrites one cell as a pattern's replacement says; true when it changed.
#[allow(clippy::too_many_arguments)]
fn replace(
    g: &Compiled,
    board: &mut Board,
    rule: &Rule,
    group: usize,
    p: &CellPattern,
    i: usize,
    buf: &mut Vec<u64>,
    chooser: &mut dyn Chooser,
) -> bool {
    let Some(rep) = &p.replacement else {
        return false;
    };
    let Some(mut changed) = rewrite_masks(g, board, rule, rep, i, buf, chooser) else {
        return false;
    };
    if rule.rigid {
        changed |= mark_rigid(g, board, group, &rep.moves_layers, i);
    }
    if changed {
        let (so, sm) = (g.obj_words, g.mov_words);
        let moves = if rep.fixed && (so > 1 || sm > 1) {
            // Only the words written can hold something new (the summaries
            // hold the rest already), and a movement in another word means
            // the cell is listed in `moving` already.
            board.note_words(i, so, sm, &rep.object_words, &rep.move_words)
        } else {
            board.note_cell(i, so, sm);
            !bits::is_zero(board.movements.get(i * sm..i * sm + sm).unwrap_or(&[]))
        };
        // `moving` must list every cell that holds a movement or a rigid
        // mark; a rule that rewrites many cells without moving them (a
        // decoration redrawn every turn) would otherwise make movement
        // resolution and the anchored searches visit all of them.
        if rule.rigid || moves {
            board.moving.push(i);
        }
        board.touch(i);
    }
    changed
}

/// Writes a replacement's objects and movements into cell `i`: whether the
/// cell changed, or `None` when `i` is past the board (nothing written).
/// Rigid marks and the board's bookkeeping are the caller's.
#[inline(always)]
fn rewrite_masks(
    g: &Compiled,
    board: &mut Board,
    rule: &Rule,
    rep: &Replacement,
    i: usize,
    buf: &mut Vec<u64>,
    chooser: &mut dyn Chooser,
) -> Option<bool> {
    let (so, sm) = (g.obj_words, g.mov_words);
    let fixed = rep.fixed;
    if let (true, [set], [clear], [mset], [mclear], [layers]) = (
        fixed,
        &rep.set[..],
        &rep.clear[..],
        &rep.moves_set[..],
        &rep.moves_clear[..],
        &rep.moves_layers[..],
    ) {
        // One word each and no random choice: the common case, without copies.
        let (o, m) = (*board.objects.get(i)?, *board.movements.get(i)?);
        let (new_o, new_m) = ((o & !clear) | set, (m & !(mclear | layers)) | mset);
        board.objects[i] = new_o;
        board.movements[i] = new_m;
        return Some(new_o != o || new_m != m);
    }
    let (at_o, at_m) = (i * so, i * sm);
    if at_o + so > board.objects.len() || at_m + sm > board.movements.len() {
        return None;
    }
    if fixed {
        // No random choice on a board of several words: the words are
        // rewritten in place, without copying the masks.
        // Most words of a wide replacement write nothing: only those that
        // do are visited (`Replacement::index_words`).
        let mut changed = false;
        for &w in rep.object_words.iter() {
            let w = w as usize;
            let (Some(&clear), Some(&set)) = (rep.clear.get(w), rep.set.get(w)) else {
                continue;
            };
            if let Some(slot) = board.objects.get_mut(at_o + w).filter(|_| w < so) {
                let new = (*slot & !clear) | set;
                changed |= new != *slot;
                *slot = new;
            }
        }
        for &w in rep.move_words.iter() {
            let w = w as usize;
            let masks = (rep.moves_clear.get(w), rep.moves_layers.get(w));
            let (Some(&clear), Some(&layers), Some(&set)) =
                (masks.0, masks.1, rep.moves_set.get(w))
            else {
                continue;
            };
            if let Some(slot) = board.movements.get_mut(at_m + w).filter(|_| w < sm) {
                let new = (*slot & !(clear | layers)) | set;
                changed |= new != *slot;
                *slot = new;
            }
        }
        return Some(changed);
    }
    buf.clear();
    buf.extend_from_slice(&rep.set);
    buf.extend_from_slice(&rep.clear);
    buf.extend_from_slice(&rep.moves_set);
    buf.extend_from_slice(&rep.moves_clear);
    let (set, rest) = buf.split_at_mut(so);
    let (clear, rest) = rest.split_at_mut(so);
    let (mset, mclear) = rest.split_at_mut(sm);
    bits::or_into(mclear, &rep.moves_layers);
    if !bits::is_zero(&rep.random_objects) {
        let count = bits::ones(&rep.random_objects).count();
        let pick = chooser.choose_for(count, rule.line);
        if let Some(id) = bits::ones(&rep.random_objects).nth(pick) {
            bits::set(set, id);
            let layer = g.names.id_layer.get(id).copied().unwrap_or(0);
            bits::or_into(clear, &g.names.layer_masks[layer]);
            if let Some(slot) = g.names.move_slots.slot(layer) {
                bits::mov_or(mclear, slot, 0x1f);
            }
        }
    }
    if !bits::is_zero(&rep.random_dirs) {
        // In layer order, as the reference draws them (slots keep it).
        for slot in g.names.move_slots.movable() {
            if bits::mov_get(&rep.random_dirs, slot) & 1 != 0 {
                let dir = chooser.choose_for(4, rule.line);
                bits::mov_or(mset, slot, 1 << dir);
            }
        }
    }
    let mut changed = false;
    for w in 0..so {
        let old = board.objects[at_o + w];
        let new = (old & !clear[w]) | set[w];
        changed |= new != old;
        board.objects[at_o + w] = new;
    }
    for w in 0..sm {
        let old = board.movements[at_m + w];
        let new = (old & !mclear[w]) | mset[w];
        changed |= new != old;
        board.movements[at_m + w] = new;
    }
    Some(changed)
}

/// Records that a rigid rule set movements on some layers of cell `i`
/// (without allocating: it runs at each of a rigid rule's rewrites).
fn mark_rigid(g: &Compiled, board: &mut Board, group: usize, layers: &[u64], i: usize) -> bool {
    let sm = g.mov_words;
    let Some(Some(index)) = g.rigid_index.get(group) else {
        return false;
    };
    // Word `w` of the group's mark: its index plus one in each layer's five
    // bits, kept to the layers whose movement the rule set.
    let value = (*index as u64 + 1) & 0x1f;
    let mark = |w: usize| {
        let mut m = 0u64;
        for slot in g.names.move_slots.movable() {
            let (lw, shift) = bits::mov_pos(slot);
            if lw == w {
                m |= value << shift;
            }
        }
        m & layers.get(w).copied().unwrap_or(0)
    };
    let at = i * sm;
    let (Some(group_cell), Some(applied_cell)) = (
        board.rigid_group.get(at..at + sm),
        board.rigid_applied.get(at..at + sm),
    ) else {
        return false;
    };
    let marked = (0..sm).all(|w| group_cell[w] & mark(w) == mark(w));
    if marked || bits::contains(applied_cell, layers) {
        return false;
    }
    for w in 0..sm {
        let m = mark(w);
        board.rigid_group[at + w] |= m;
        board.rigid_applied[at + w] |= layers.get(w).copied().unwrap_or(0);
    }
    true
}

/// The number of combinations of the row matches `rows` of `rule`, or
/// `None` (with the fault recorded) past [`super::MAX_COMBINATIONS`].
pub(super) fn combinations(
    rule: &Rule,
    rows: &[Vec<RowMatch>],
    fault: &mut Option<super::Overrun>,
) -> Option<usize> {
    let total = rows
        .iter()
        .try_fold(1usize, |acc, row| acc.checked_mul(row.len()));
    match total {
        Some(t) if t <= super::MAX_COMBINATIONS => Some(t),
        _ => {
            fault.get_or_insert(super::Overrun {
                line: rule.line,
                combinations: total.unwrap_or(usize::MAX),
            });
            None
        }
    }
}

/// Tries a rule everywhere; true when the board changed. Inlined into the
/// group loop, its one caller, which the loop's own work (cell runs, the
/// large groups' look) would otherwise keep it out of: pipe puffer and
/// Sexual Intercourse lost 1 to 2% of their instructions to the call.
#[inline(always)]
pub(super) fn try_apply(
    g: &Compiled,
    board: &mut Board,
    rule: &Rule,
    group: usize,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    if let (Some(plan), false) = (&rule.narrow, scratch.general_rules) {
        if let Some(changed) = super::narrow_rule::try_apply(board, rule, plan, scratch) {
            return changed;
        }
    }
    if rule.fires_everywhere {
        // A rule of commands alone that matches every cell (`[ ] -> again`,
        // an animation's tick) fires on any board with a cell, without
        // listing them all.
        if board.cells() > 0 {
            board.queue_commands(&rule.commands);
            scratch.note_fired(rule);
        }
        return false;
    }
    // The general path reads rows and columns.
    board.ensure_summary(g.obj_words, g.mov_words);
    if !may_match(board, rule) {
        return false;
    }
    // Records across the inputs hold for rules that read no movement (the
    // inputs' movements are not among the written cells); records within a
    // turn hold for every rule while the board logs its writes (a narrow
    // rule reading movements falls back here when many cells move, in a
    // game that may log nothing).
    let recorded = scratch.no_match.enabled() && (board.logging || !rule.reads_movements);
    let across = recorded && !rule.reads_movements;
    let known = if across {
        scratch.no_match.row(rule.index)
    } else {
        None
    };
    // The log's number and length before this search and its writes.
    let (epoch, now) = (board.log_epoch, board.log.len());
    // True when the search near the writes found every match that can
    // change the board, so that no full search follows.
    let mut near_enough = false;
    // The row whose matches the search near the writes found, all of them
    // (a record of no match): a full search leaves it out.
    let mut found_row = None;
    if recorded {
        // A record made in this turn names fewer cells written since than
        // the prepared board's (see `NoMatch::turn_row`).
        let since = match scratch.no_match.turn_row(rule.index, epoch, now) {
            Some((r, at)) => Some((r, board.log.get(at..).unwrap_or(&[]), 0)),
            None => known.map(|(r, before)| (r, &board.touched[..], before)),
        };
        if let Some((r, cells, before)) = since {
            if !near_writes(g, board, rule, r, (cells, before), scratch) {
                scratch.no_match.record_turn(rule.index, r, epoch, now);
                return false;
            }
            // A rule of one row has no other row to search, and its
            // matches away from the writes change nothing (`NoMatch`).
            near_enough = rule.rows.len() == 1;
            found_row = Some(r);
        }
    }
    let found = near_enough
        || match found_row {
            Some(r) => find_matches_but(g, board, rule, &mut scratch.rows, &mut scratch.starts, r),
            None => find_matches(g, board, rule, &mut scratch.rows, &mut scratch.starts),
        };
    if !found {
        if recorded {
            // The search stopped at the first row without a match.
            let rows = &scratch.rows[..rule.rows.len()];
            if let Some(r) = rows.iter().position(Vec::is_empty) {
                let log = board.log_epoch;
                if across && known.is_none() && scratch.no_match.may_record(&board.touched, log) {
                    scratch.no_match.record(rule.index, r, &board.touched, log);
                }
                scratch.no_match.record_turn(rule.index, r, epoch, now);
            }
        }
        return false;
    }
    let kept = recorded && rule.records_matches() && matches_within_bound(board, rule);
    if kept {
        // Applied below, these matches leave every other line of the board
        // as it is: a later search in this turn need only look at the lines
        // written from now on (`NoMatch`, matches kept).
        scratch.no_match.record_turn(rule.index, 0, epoch, now);
    }
    let changed = rule.has_replacements && apply_matches(g, board, rule, group, scratch, chooser);
    if changed && kept && rule.settles && rule.single_cell().is_some() {
        // Nor can its own writes give it a match that changes anything
        // (`Rule::settles`): a later search need only look at the lines
        // written after them (by the other rules of its group, say). Kept
        // to rules of one cell: for the wider rules that settle, searching
        // near fewer cells chose costlier searches (Lightdown +1.7%
        // instructions, Des Poseidons Dreizack +0.2%, the exit -0.7%).
        let (epoch, now) = (board.log_epoch, board.log.len());
        scratch.no_match.record_turn(rule.index, 0, epoch, now);
    }
    let unchanged_prepared = across && known.is_none() && !changed;
    if unchanged_prepared
        && rule.records_unchanged
        && scratch.no_match.may_record(&board.touched, board.log_epoch)
        && matches_within_bound(board, rule)
    {
        // Searched in full on the prepared board (nothing written yet), every
        // match changed nothing: the other inputs search near their writes
        // alone (`Rule::records_unchanged_matches`).
        let log = board.log_epoch;
        scratch.no_match.record(rule.index, 0, &board.touched, log);
    }
    board.queue_commands(&rule.commands);
    if changed || !rule.commands.is_empty() {
        scratch.note_fired(rule);
    }
    changed
}

/// [`matches_near_writes`] near `cells` and, for a record made on a board
/// already written (`before` cells of its turn, `NoMatch::written_before`),
/// near those cells too.
fn near_writes(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    (cells, before): (&[usize], usize),
    scratch: &mut Scratch,
) -> bool {
    if before == 0 {
        return matches_near_writes(g, board, rule, r, cells, scratch);
    }
    let mut both = std::mem::take(&mut scratch.near);
    both.clear();
    both.extend_from_slice(scratch.no_match.written_before(before));
    both.extend_from_slice(cells);
    let found = matches_near_writes(g, board, rule, r, &both, scratch);
    scratch.near = both;
    found
}

/// Writes the matches of a rule of one cell whose writes are plain, in
/// order: each match is its own cell, which nothing else writes
/// (`Rule::single_cell`), so no match is re-checked, and each write lands on
/// the match's start. True when the board changed.
#[inline(always)]
fn write_cell_matches(
    g: &Compiled,
    board: &mut Board,
    row: &[RowMatch],
    writes: &[CellWrite],
) -> bool {
    let (so, sm) = (g.obj_words, g.mov_words);
    let mut changed = false;
    for &m in row.iter() {
        for w in writes.iter() {
            if let Some(plain) = w.plain {
                changed |= write_plain(board, so, sm, plain, m[0]);
            }
        }
    }
    changed
}

/// Applies `rule` at every combination of its row matches (`scratch.rows`),
/// in the reference's order; true when the board changed.
fn apply_matches(
    g: &Compiled,
    board: &mut Board,
    rule: &Rule,
    group: usize,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    let n = rule.rows.len();
    let Some(total) = combinations(rule, &scratch.rows[..n], &mut scratch.fault) else {
        return false;
    };
    let mut changed = false;
    // A match is re-checked only once an earlier one changed the board
    // (until then the board is the one the matches were found on), and
    // only if the rule's writes can undo its own matches.
    let recheck = !rule.keeps_own_matches;
    if let ([row], [writes], true) = (&scratch.rows[..n], &rule.writes.rows[..], rule.writes.plain)
    {
        if rule.single_cell().is_some() {
            return write_cell_matches(g, board, row, writes);
        }
    }
    if let [row] = &scratch.rows[..n] {
        // One row: its matches in order, without the combinations' division.
        for &m in row.iter() {
            let check = changed && recheck;
            changed |= apply_at(
                g,
                board,
                rule,
                group,
                &[m],
                check,
                &mut scratch.buf,
                chooser,
            );
        }
        return changed;
    }
    let rows = std::mem::take(&mut scratch.rows);
    let mut tuple = std::mem::take(&mut scratch.tuple);
    tuple.resize(n, [0; 3]);
    for t in 0..total {
        let mut rest = t;
        for (slot, row) in tuple.iter_mut().zip(&rows[..n]) {
            *slot = row[rest % row.len()];
            rest /= row.len();
        }
        let check = t > 0 && changed && recheck;
        changed |= apply_at(
            g,
            board,
            rule,
            group,
            &tuple[..n],
            check,
            &mut scratch.buf,
            chooser,
        );
    }
    scratch.rows = rows;
    scratch.tuple = tuple;
    changed
}

#[cfg(test)]
mod tests {
    use super::{apply_at, try_apply};
    use crate::engine::matching::find_matches;
    use crate::engine::rules::apply_rules;
    use crate::engine::{Board, FirstChoice, Scratch};
    use crate::test_rng::xorshift;

    /// Rules of one cell applied through `try_apply` (plain writes in one
    /// loop, without re-checks) leave the board as applying each match
    /// with its re-check does, on many pseudo-random boards.
    #[test]
    fn one_cell_rules_write_as_their_matches_one_by_one() {
        let source = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
            Target\ngreen\nLEGEND\n. = Background\nP = Player\nSOUNDS\nCOLLISIONLAYERS\n\
            Background\nTarget\nPlayer, Wall, Crate\nRULES\n\
            [ Crate Target ] -> [ Target ]\n[ no Wall ] -> [ Target ]\n\
            [ Target no Crate ] -> [ Target Wall ]\n[ > Player ] -> [ Player ]\n\
            [ stationary Crate ] -> [ right Crate ]\nWINCONDITIONS\nLEVELS\n.P.\n";
        let g = crate::compile("t", source).expect("compiles");
        let rules: Vec<_> = g.rules.groups.iter().flatten().collect();
        assert!(
            rules.iter().all(|r| r.writes.plain),
            "every rule has plain writes"
        );
        let (w, h) = (6, 5);
        let mut board = Board::empty(&g, w, h);
        let mut next = xorshift(0x0ce1_1a7a_71ce_0001);
        let (mut rows, mut starts, mut buf, mut scratch) = (
            Vec::new(),
            crate::engine::row_starts::Starts::default(),
            Vec::new(),
            Scratch::default(),
        );
        let mut changed = 0;
        for _ in 0..300 {
            for rule in &rules {
                board.fill_random(&mut next);
                board.summarize(1, 1);
                let mut one_by_one = board.clone();
                if find_matches(&g, &one_by_one, rule, &mut rows, &mut starts) {
                    for &m in rows[0].clone().iter() {
                        apply_at(
                            &g,
                            &mut one_by_one,
                            rule,
                            0,
                            &[m],
                            true,
                            &mut buf,
                            &mut FirstChoice,
                        );
                    }
                }
                changed += usize::from(try_apply(
                    &g,
                    &mut board,
                    rule,
                    0,
                    &mut scratch,
                    &mut FirstChoice,
                ));
                assert_eq!(board.objects, one_by_one.objects, "line {}", rule.line);
                assert_eq!(board.movements, one_by_one.movements, "line {}", rule.line);
            }
        }
        assert!(changed > 500, "{changed} passes changed the board");
    }

    /// A rule of commands alone whose one cell tests nothing (`[ ] ->
    /// again`) is said to match every cell, and fires as the search that
    /// lists its matches says: it queues its command and is noted as fired
    /// on boards of any size; a rule that tests something is not taken for
    /// one.
    #[test]
    fn a_rule_matching_every_cell_fires_as_its_matches_say() {
        let source = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nLEGEND\n. = Background\n\
            P = Player\nSOUNDS\nCOLLISIONLAYERS\nBackground\nPlayer\nRULES\n[ ] -> again\n\
            [ Player ] -> again\nWINCONDITIONS\nLEVELS\n.P\n";
        let g = crate::compile("t", source).expect("compiles");
        let rules: Vec<_> = g.rules.groups.iter().flatten().collect();
        assert!(rules[0].fires_everywhere && rules[0].matches_every_cell());
        assert!(!rules[1].fires_everywhere && !rules[1].matches_every_cell());
        let (mut rows, mut starts) = (Vec::new(), crate::engine::row_starts::Starts::default());
        for (w, h) in [(1, 1), (2, 1), (5, 3)] {
            let mut board = Board::empty(&g, w, h);
            board.summarize(1, 1);
            let found = find_matches(&g, &board, rules[0], &mut rows, &mut starts);
            assert_eq!(rows[0].len(), w * h, "every cell matches");
            let mut scratch = Scratch {
                fired: Some(Vec::new()),
                ..Scratch::default()
            };
            let changed = try_apply(&g, &mut board, rules[0], 0, &mut scratch, &mut FirstChoice);
            assert!(!changed && found);
            assert!(board.queued("again"), "{w}x{h}: again queued");
            let fired = scratch.fired.unwrap_or_default();
            assert!(crate::bits::get(&fired, rules[0].source), "noted as fired");
        }
    }

    /// A rule that sets the movement of each layer of a cell in turn (a
    /// crate drawn as three objects of three layers) lists the cell among
    /// the moving ones once, and every cell that holds a movement is listed:
    /// the first write of a movement lists its cell, later ones find it
    /// listed.
    #[test]
    fn a_cell_moved_layer_by_layer_is_listed_once() {
        let g = crate::compile(
            "t",
            "OBJECTS\nBackground\nblack\nPlayer\nyellow\nMark\nwhite\nPartA\nred\nPartB\nblue\nPartC\ngreen\n\
             LEGEND\n. = Background\nP = Player\nM = Mark\nX = PartA and PartB and PartC\n\
             Part = PartA or PartB or PartC\nSOUNDS\nCOLLISIONLAYERS\nBackground\nPlayer, Mark\n\
             PartA\nPartB\nPartC\nRULES\n[ Mark ] [ Part ] -> [ Mark ] [ up Part ]\n\
             WINCONDITIONS\nLEVELS\nMX.XP\n",
        )
        .expect("compiles");
        let Some(crate::compile::Level::Grid(grid)) = g.levels.first() else {
            panic!("a level");
        };
        let mut board = Board::new(&g, grid);
        board.summarize(g.obj_words, g.mov_words);
        let mut scratch = Scratch::default();
        apply_rules(
            &g,
            &mut board,
            &g.rules,
            None,
            &mut scratch,
            &mut FirstChoice,
        );
        let sm = g.mov_words;
        let held: Vec<usize> = (0..board.cells())
            .filter(|&i| {
                board.movements[i * sm..(i + 1) * sm]
                    .iter()
                    .any(|&m| m != 0)
            })
            .collect();
        let mut listed = board.moving.clone();
        listed.sort_unstable();
        assert_eq!(held.len(), 2, "both parts' cells move");
        assert_eq!(listed, held, "each moving cell listed once");
    }
}
