//! A run of cell-local groups applied in one pass over the board's cells
//! (`compile::cell_runs` gives the runs and the argument): each cell taken
//! once, the run's rules applied there in order, instead of one search of
//! the board per rule. Games that redraw a layer every turn with rules of
//! one cell (`[ vine_n ] -> [ vine_n n ]` for each of fifteen shapes, then
//! `[ dir ] -> [ ]`) searched the whole board once per rule.

use super::apply::write_plain;
use super::matching::{cell_matches, matches_within_bound};
use super::{Board, Scratch};
use crate::compile::cell_runs::MAX_RUN_RULES;
use crate::compile::{Compiled, Rule};

/// Applies the rules of `groups` (a run of cell-local groups, each of which
/// settles in one pass: `RuleSet::cell_runs`) as their passes would, one
/// after the other: each cell in turn, every rule that matches it applied
/// there in order. True when the board changed; the rules that changed it
/// are noted as fired.
///
/// Only the rules that may match are tried: those whose objects the board
/// holds, or one of the run's writes may add. A cell is tried only on the
/// rules whose required object it holds (a rule's first required object
/// word, one bit of it, else its first property), and on those that
/// require nothing present: a rule matches no other cell. After a write,
/// the cell is tried again on the later rules its objects now name.
///
/// The records across the inputs (`super::NoMatch`) hold as they do for
/// the rules searched one by one. A rule recorded as changing nothing on
/// the prepared board is applied at the cells written since (and at those
/// its record kept) alone, as its search near the writes would be: at any
/// other cell it changes nothing. Since a rule reads its own cell alone,
/// "written since" is asked of the cell when the rule's turn comes there,
/// after the run's earlier rules. These cells are taken first, then the
/// others, on the rules not recorded; a write there makes the cell written,
/// and its later recorded rules are tried too. A rule not recorded that
/// changed nothing in the pass is recorded as its search would have been.
///
/// `None` when every rule that may match is recorded: their searches near
/// the writes, one by one (the caller runs the groups), cost less than
/// the pass's setup.
#[inline(never)]
pub(super) fn apply_cell_run(
    g: &Compiled,
    board: &mut Board,
    groups: &[Vec<Rule>],
    scratch: &mut Scratch,
) -> Option<bool> {
    let (so, sm) = (g.obj_words, g.mov_words);
    let first = groups.iter().flatten().next()?;
    let mut buf = std::mem::take(&mut scratch.buf);
    let mut active = [first; MAX_RUN_RULES];
    let n = active_rules(board, groups, so, &mut buf, &mut active);
    let active = &active[..n];
    // The rules recorded across the inputs, and how many written cells
    // their records kept.
    let records = scratch.no_match.enabled();
    let (mut recorded, mut before) = (0u64, 0);
    for (k, rule) in active.iter().enumerate() {
        if let (true, false, Some((_, kept))) = (
            records,
            rule.reads_movements,
            scratch.no_match.row(rule.index),
        ) {
            recorded |= 1 << k;
            before = before.max(kept);
        }
    }
    let every = u64::MAX.checked_shr(64 - n as u32).unwrap_or(0);
    let free = every & !recorded;
    if free == 0 {
        scratch.buf = buf;
        // No rule may match (nothing changes), or all are recorded.
        return if n == 0 { Some(false) } else { None };
    }
    // `buf`: the free rules' objects by word (`so` words), every rule's
    // (`so` words), then per object bit the rules whose cell requires it
    // (`so * 64` words), then a bit per cell taken first.
    let cells = board.cells();
    buf.clear();
    buf.resize(2 * so + so * 64 + cells.div_ceil(64), 0);
    let mut always = 0u64;
    for (k, rule) in active.iter().enumerate() {
        let Some(p) = rule.single_cell() else {
            continue;
        };
        let free = recorded & (1 << k) == 0;
        let mut key = |w: usize, bits: u64| {
            if let Some(slot) = buf.get_mut(w).filter(|_| free) {
                *slot |= bits;
            }
            if let Some(slot) = buf.get_mut(so + w) {
                *slot |= bits;
            }
            for b in crate::bits::ones(&[bits]) {
                if let Some(slot) = buf.get_mut(2 * so + w * 64 + b) {
                    *slot |= 1 << k;
                }
            }
        };
        if let Some((w, &bits)) = p.present.iter().enumerate().rfind(|(_, &b)| b != 0) {
            // One object it requires is enough (its last: a mark set on
            // few cells more often than the shape it marks).
            key(w, 1 << (63 - bits.leading_zeros()));
        } else if let Some(any) = p.any_words.first() {
            for &(w, bits) in any.iter() {
                key(w as usize, bits);
            }
        } else {
            always |= 1 << k;
        }
    }
    // The pass costs about as much a cell it tries as a search costs a
    // rule a few cells of the board: with many cells to try for few rules
    // (decoration cleared on hundreds of cells, walls), the searches one
    // by one cost less (the caller runs them).
    let tried = match always & free {
        0 => count_keyed(&board.objects[..], so, &buf[..so], cells),
        _ => cells,
    };
    if tried * PASS_COST > n * cells && !scratch.every_run {
        scratch.buf = buf;
        return None;
    }
    // The cells taken first: those written since the prepared board and
    // those the records kept.
    let mut first_cells = std::mem::take(&mut scratch.near);
    first_cells.clear();
    if recorded != 0 {
        first_cells.extend_from_slice(&board.touched);
        first_cells.extend_from_slice(scratch.no_match.written_before(before));
        first_cells.sort_unstable();
        first_cells.dedup();
    }
    let (keys, rest) = buf.split_at_mut(so);
    let (all_keys, rest) = rest.split_at_mut(so);
    let (table, taken) = rest.split_at_mut(so * 64);
    let run = Run {
        rules: active,
        keys: all_keys,
        table,
        always,
        so,
        sm,
    };
    let (mut changed, mut matched) = (0u64, 0u64);
    for &i in first_cells.iter().filter(|&&i| i < cells) {
        crate::bits::set(taken, i);
        let rules = run.named(board, i);
        run.cell(board, i, rules, &mut changed, &mut matched);
    }
    if free != 0 {
        let key0 = keys.first().copied().unwrap_or(0);
        let mut i = 0;
        while i < cells {
            // The next cell that holds an object some free rule requires.
            let skip = match (always & free, so) {
                (0, 1) => board
                    .objects
                    .get(i..cells)
                    .and_then(|c| c.iter().position(|&o| o & key0 != 0)),
                (0, _) => board.objects.get(i * so..cells * so).and_then(|c| {
                    c.chunks_exact(so)
                        .position(|c| c.iter().zip(keys.iter()).any(|(o, k)| o & k != 0))
                }),
                _ => Some(0),
            };
            let Some(skip) = skip else {
                break;
            };
            i += skip;
            if !crate::bits::get(taken, i) {
                let rules = run.named(board, i) & free;
                run.cell(board, i, rules, &mut changed, &mut matched);
            }
            i += 1;
        }
    }
    scratch.near = first_cells;
    scratch.buf = buf;
    for (k, rule) in active.iter().enumerate() {
        let bit = 1 << k;
        if changed & bit != 0 {
            scratch.note_fired(rule);
        } else if free & bit != 0 && records && !rule.reads_movements {
            // Searched in full, it changed nothing: recorded as `try_apply`
            // records a rule that found no match, or only unchanged ones.
            let (touched, log) = (&board.touched, board.log_epoch);
            let unchanged =
                matched & bit == 0 || (rule.records_unchanged && matches_within_bound(board, rule));
            if unchanged && scratch.no_match.may_record(touched, log) {
                scratch.no_match.record(rule.index, 0, touched, log);
            }
        }
    }
    Some(changed != 0)
}

/// What the pass costs a cell it tries, in cells of a rule's search: the
/// pass is taken when the cells it tries, times this, are at most the
/// rules times the board's cells. Taken for ecosystem generator's letters
/// (11 cells of 240 for 13 rules, and for 2) and Pocket Gopher's vines
/// (about 21 of 143 for 4 to 16 rules); not for Des Poseidons Dreizack's
/// decoration cleared on 232 cells of 345 by 13 rules (its searches one by
/// one cost 8% fewer instructions over the level), nor for a distant
/// sunset's rules of a wall and a part, whose key is the wall (52 of 117
/// for 2 rules, 7% fewer). Between 20 and 27 all of these go the same way.
const PASS_COST: usize = 24;

/// The cells among the first `cells` of `objects` (`so` words a cell) that
/// hold one of the bits of `keys` (`so` words).
fn count_keyed(objects: &[u64], so: usize, keys: &[u64], cells: usize) -> usize {
    let objects = objects.get(..cells * so).unwrap_or(objects);
    match keys {
        [key] => objects.iter().filter(|&&o| o & key != 0).count(),
        [k0, k1] => objects
            .chunks_exact(2)
            .filter(|c| (c[0] & k0) | (c[1] & k1) != 0)
            .count(),
        _ => objects
            .chunks_exact(so.max(1))
            .filter(|c| c.iter().zip(keys).any(|(o, k)| o & k != 0))
            .count(),
    }
}

/// Fills `active` with the rules of `groups` that may match: those whose
/// objects the board holds or one of the run's writes may add (`buf` is
/// scratch). Returns their number.
fn active_rules<'a>(
    board: &Board,
    groups: &'a [Vec<Rule>],
    so: usize,
    buf: &mut Vec<u64>,
    active: &mut [&'a Rule; MAX_RUN_RULES],
) -> usize {
    // What the run's writes may add to the board, per object word.
    buf.clear();
    buf.resize(so, 0);
    for w in groups
        .iter()
        .flatten()
        .flat_map(|r| r.writes.rows.iter().flatten())
    {
        if let Some(p) = w.plain {
            if let Some(slot) = buf.get_mut(p.object_word as usize) {
                *slot |= p.set;
            }
        }
    }
    let (objs, movs) = board.summary.map();
    let word = |w: usize| objs.get(w).copied().unwrap_or(0) | buf.get(w).copied().unwrap_or(0);
    let may_match = |rule: &Rule| {
        rule.rule_mask
            .iter()
            .enumerate()
            .all(|(w, &m)| word(w) & m == m)
            && crate::bits::contains(movs, &rule.rule_move_mask)
            && rule
                .rule_any
                .iter()
                .all(|any| any.iter().any(|&(w, b)| word(w as usize) & b != 0))
    };
    let mut n = 0;
    for rule in groups.iter().flatten().filter(|r| may_match(r)) {
        if let Some(slot) = active.get_mut(n) {
            *slot = rule;
            n += 1;
        }
    }
    n
}

/// A run's rules with their cells' tests, and per object bit the rules
/// that require it.
struct Run<'a, 'b> {
    rules: &'b [&'a Rule],
    /// Every object bit some rule requires, by word.
    keys: &'b [u64],
    table: &'b [u64],
    always: u64,
    so: usize,
    sm: usize,
}

impl Run<'_, '_> {
    /// The rules cell `i`'s objects name, with those that require nothing.
    #[inline(always)]
    fn named(&self, board: &Board, i: usize) -> u64 {
        let so = self.so;
        let mut rules = self.always;
        for w in 0..so {
            let key = self.keys.get(w).copied().unwrap_or(0);
            let mut bits = board.objects.get(i * so + w).copied().unwrap_or(0) & key;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                rules |= self.table.get(w * 64 + b).copied().unwrap_or(0);
            }
        }
        rules
    }

    /// Applies `rules` (a bit per rule) at cell `i` in order, and after a
    /// write the later rules the cell's objects now name, whatever their
    /// records (the cell is written now); notes which matched and changed.
    #[inline(always)]
    fn cell(
        &self,
        board: &mut Board,
        i: usize,
        mut rules: u64,
        changed: &mut u64,
        matched: &mut u64,
    ) {
        let (so, sm) = (self.so, self.sm);
        while rules != 0 {
            let k = rules.trailing_zeros() as usize;
            rules &= rules - 1;
            let Some(rule) = self.rules.get(k).filter(|r| cell_test(r, board, so, sm, i)) else {
                continue;
            };
            *matched |= 1 << k;
            let mut wrote = false;
            for w in rule.writes.rows.iter().flatten() {
                if let Some(plain) = w.plain {
                    wrote |= write_plain(board, so, sm, plain, i);
                }
            }
            if wrote {
                *changed |= 1 << k;
                let later = u64::MAX.checked_shl(k as u32 + 1).unwrap_or(0);
                rules = self.named(board, i) & later;
            }
        }
    }
}

/// True when cell `i` of `board` matches the cell of `rule` (a rule of one
/// cell): on boards of one object word, when the pattern's plain words are
/// all of it (at most one property, no movement word past the first),
/// those words tested inline; else the pattern.
#[inline(always)]
fn cell_test(rule: &Rule, board: &Board, so: usize, sm: usize, i: usize) -> bool {
    let Some(p) = rule.single_cell() else {
        return false;
    };
    if let (Some([op, om, mp, mm]), 1, true) = (p.narrow, so, p.any_present.len() <= 1) {
        if sm == 1 || mp | mm == 0 {
            let o = board.objects.get(i).copied().unwrap_or(0);
            let m = match sm {
                1 => board.movements.get(i).copied().unwrap_or(0),
                _ => 0,
            };
            let any = p
                .any_present
                .first()
                .map(|a| a.first().copied().unwrap_or(0));
            return o & op == op
                && o & om == 0
                && any.is_none_or(|any| o & any != 0)
                && m & mp == mp
                && m & mm == 0;
        }
    }
    cell_matches(p, board, so, sm, i)
}

#[cfg(test)]
mod tests {
    use crate::engine::rules::apply_rules;
    use crate::engine::{Board, FirstChoice, Scratch};
    use crate::test_rng::xorshift;

    /// Nine rules of one cell, each its own group: writes that later rules
    /// read (`[ A ] -> [ A B ]` then `[ B no C ] -> [ B D ]`), a property,
    /// a rule that requires nothing present (`[ no A ]`, else `[ C no A ]`:
    /// then only the cells that hold a rule's object are tried), clears. `fillers`
    /// objects of their own layer come before A to E, so that with seventy
    /// of them A to E lie in the second object word (a cell-local rule's
    /// writes are plain words: one word each).
    fn game(fillers: usize, every: bool) -> String {
        let names: Vec<String> = (0..fillers).map(|k| format!("Filler{k}")).collect();
        let objects: String = names.iter().map(|n| format!("{n}\ngrey\n")).collect();
        let layer = match names.is_empty() {
            true => String::new(),
            false => format!("{}\n", names.join(", ")),
        };
        let fourth = match every {
            true => "[ no A ] -> [ E ]",
            false => "[ C no A ] -> [ C E ]",
        };
        format!(
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\n{objects}A\nred\nB\nblue\nC\ngreen\n\
             D\nyellow\nE\npink\nLEGEND\n. = Background\nP = Player\nAB = A or B\nSOUNDS\n\
             COLLISIONLAYERS\nBackground\nPlayer\n{layer}A\nB\nC\nD\nE\nRULES\n\
             [ A ] -> [ A B ]\n[ B no C ] -> [ B D ]\n[ AB D ] -> [ AB E ]\n{fourth}\n\
             [ C E ] -> [ C ]\n[ D ] -> [ D A ]\n[ E no B ] -> [ E B ]\n[ B ] -> [ ]\n\
             [ A D ] -> [ A ]\nWINCONDITIONS\nLEVELS\n.P.\n"
        )
    }

    /// On many pseudo-random boards of one and of two object words, the
    /// run's pass over the cells leaves the board as its groups searched
    /// and applied one by one do.
    #[test]
    fn a_run_leaves_the_board_its_groups_leave() {
        for (fillers, words, every) in [(0, 1, true), (70, 2, true), (0, 1, false), (70, 2, false)]
        {
            let g = crate::compile("t", &game(fillers, every)).expect("compiles");
            assert_eq!(g.obj_words, words);
            assert_eq!(
                g.rules.cell_runs.first(),
                Some(&9),
                "one run of nine groups"
            );
            let mut one_by_one = g.rules.clone();
            one_by_one.cell_runs.fill(0);
            let ids: Vec<usize> = ["a", "b", "c", "d", "e", "player"]
                .iter()
                .filter_map(|n| g.names.objects.get(*n).map(|&(id, _)| id))
                .collect();
            assert_eq!(ids.len(), 6);
            let (w, h) = (6, 5);
            let mut board = Board::empty(&g, w, h);
            let mut next = xorshift(0xce11_5a55_0000_0001);
            let mut changed = 0;
            for _ in 0..400 {
                for c in 0..w * h {
                    let cell = &mut board.objects[c * words..(c + 1) * words];
                    cell.fill(0);
                    crate::bits::set(cell, g.names.background.0);
                    for &id in &ids {
                        if next().is_multiple_of(3) {
                            crate::bits::set(cell, id);
                        }
                    }
                }
                board.summarize(g.obj_words, g.mov_words);
                let mut expected = board.clone();
                let before = board.objects.clone();
                for (b, set) in [(&mut board, &g.rules), (&mut expected, &one_by_one)] {
                    let mut scratch = Scratch {
                        every_run: true,
                        ..Scratch::default()
                    };
                    apply_rules(&g, b, set, None, &mut scratch, &mut FirstChoice);
                }
                assert_eq!(board.objects, expected.objects, "{words} words");
                changed += usize::from(board.objects != before);
            }
            assert!(changed > 300, "{changed} boards changed");
        }
    }
}
