//! Applying a rule group to a board until nothing changes (the reference's
//! fixpoint of each group, random groups one match at a time), from the
//! matches of `matching.rs` and the writes of `apply.rs`.

use super::apply::{apply_at, combinations, try_apply};
use super::cell_runs::apply_cell_run;
use super::matching::{anchored_row_matches, find_matches};
use super::turn_memo::TurnMemo;
use super::{Board, Chooser, RowMatch, Scratch};
use crate::compile::{Compiled, Rule, RuleSet};

/// A random group: one application, picked among all matches of all its rules.
fn apply_random_group(
    g: &Compiled,
    board: &mut Board,
    rules: &[Rule],
    group: usize,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    board.ensure_summary(g.obj_words, g.mov_words);
    let mut options: Vec<(usize, Vec<RowMatch>)> = Vec::new();
    for (ri, rule) in rules.iter().enumerate() {
        if !find_matches(g, board, rule, &mut scratch.rows, &mut scratch.starts) {
            continue;
        }
        let rows = &scratch.rows[..rule.rows.len()];
        let Some(total) = combinations(rule, rows, &mut scratch.fault) else {
            return false;
        };
        if options.len() + total > super::MAX_COMBINATIONS {
            scratch.fault.get_or_insert(super::Overrun {
                line: rule.line,
                combinations: options.len().saturating_add(total),
            });
            return false;
        }
        for t in 0..total {
            let mut rest = t;
            let mut tuple = Vec::with_capacity(rows.len());
            for row in rows {
                tuple.push(row[rest % row.len()]);
                rest /= row.len();
            }
            options.push((ri, tuple));
        }
    }
    if options.is_empty() {
        return false;
    }
    let line = rules.first().map_or(0, |r| r.line);
    let pick = chooser
        .choose_for(options.len(), line)
        .min(options.len() - 1);
    let (ri, tuple) = &options[pick];
    let rule = &rules[*ri];
    let changed = apply_at(
        g,
        board,
        rule,
        group,
        tuple,
        false,
        &mut scratch.buf,
        chooser,
    );
    board.queue_commands(&rule.commands);
    if changed || !rule.commands.is_empty() {
        scratch.note_fired(rule);
    }
    changed
}

/// Runs one group: to a fixpoint (at most 200 passes) or one random application.
pub(super) fn apply_group(
    g: &Compiled,
    board: &mut Board,
    rules: &[Rule],
    settles: bool,
    group: usize,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    if rules[0].random {
        return apply_random_group(g, board, rules, group, scratch, chooser);
    }
    // A group that settles in one pass stops its fixpoint after a pass
    // that changed the board: the second pass would change nothing
    // (`RuleSet::settles`). One call of `try_apply` serves both, which
    // keeps it inlined.
    // A large group (hundreds of rules expanded from a few, `[ > crate |
    // stationary obs ]` over a crate's parts and the obstacles) looks for
    // one match of each rule's anchored row first: most find none, and the
    // look costs a fraction of `try_apply`. In a small group most rules
    // match (a robot's parts pushed by force), and the look is a cost.
    let large = rules.len() >= LARGE_GROUP;
    // The board may have changed since the last group.
    scratch.anchor_memo.forget();
    let mut state = (board, scratch, chooser, false);
    to_fixpoint(
        &mut state,
        rules.len(),
        |(_, scratch, _, settled)| *settled || scratch.fault.is_some(),
        |(board, scratch, chooser, settled), k| {
            let rule = &rules[k];
            // Most rules of a large group need an object or movement the
            // board lacks: rejected here by the first words of the board's
            // summary, without the call (`try_apply` rejects them the same
            // way, with no other effect).
            let (objs, movs) = board.summary.map_words();
            let first = |mask: &[u64]| mask.first().copied().unwrap_or(0);
            let (need, need_mov) = (first(&rule.rule_mask), first(&rule.rule_move_mask));
            if objs & need != need || movs & need_mov != need_mov {
                return false;
            }
            // Most of them also find no match from the moving cells.
            if large && !anchored_row_matches(g, board, rule, &mut scratch.anchor_memo) {
                return false;
            }
            let changed = try_apply(g, board, rule, group, scratch, *chooser);
            if changed {
                scratch.anchor_memo.forget();
            }
            *settled |= settles && changed;
            changed
        },
    )
}

/// The number of rules from which a group's loop looks for one match of a
/// rule's anchored row before trying it. SWIMMING TIME!'s groups of 52
/// rules, which mostly match, lost 16% of their instructions to the look;
/// paint everything everywhere!'s group of 1,776 rules needs it.
const LARGE_GROUP: usize = 64;

/// Runs a group of `count` rules to a fixpoint, as the reference does: a
/// pass tries every rule in order (`try_rule(state, k)`, true when rule `k`
/// changed the board) and ends early once as many rules in a row as the
/// group has changed nothing (they would change nothing again); passes go
/// on while one changed something, at most 200, and none starts once
/// `faulted` holds. True when some rule changed the board. The general
/// turn and the direct turns (`super::direct`) both run groups through it.
#[inline(always)]
pub(super) fn to_fixpoint<S>(
    state: &mut S,
    count: usize,
    faulted: impl Fn(&S) -> bool,
    mut try_rule: impl FnMut(&mut S, usize) -> bool,
) -> bool {
    let mut any = false;
    let mut idle = 0;
    for _ in 0..200 {
        if faulted(state) {
            break;
        }
        let mut propagated = false;
        for k in 0..count {
            if try_rule(state, k) {
                propagated = true;
                idle = 0;
            } else {
                idle += 1;
            }
            if idle == count {
                break;
            }
        }
        if !propagated {
            break;
        }
        any = true;
    }
    any
}

/// Runs group `gi` of `set`. For the main rules (`main`), the recorded
/// run is written again when the turn replays one, else the group is
/// searched (and recorded when the turn records). True when the board
/// changed. (The one caller of `apply_group`, so that it stays inlined.)
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run_group(
    g: &Compiled,
    board: &mut Board,
    set: &RuleSet,
    gi: usize,
    main: bool,
    group_id: usize,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    if main {
        let replayable = set.replayable.get(gi).copied().unwrap_or(false);
        if let Some(k) = scratch.memo.replay_next(gi, replayable) {
            return scratch.memo.replay(k, board, g.obj_words, g.mov_words);
        }
    }
    let settles = set.settles.get(gi).copied().unwrap_or(false);
    let mark = TurnMemo::mark(board);
    let rules = &set.groups[gi];
    let changed = apply_group(g, board, rules, settles, group_id, scratch, chooser);
    if !main {
        return changed;
    }
    if scratch.memo.recording() {
        scratch.memo.record(gi, changed, mark, board, g.obj_words);
    } else {
        scratch.memo.searched(changed);
    }
    changed
}

/// Runs a rule set, honouring loop points and banned (rigid) groups.
pub fn apply_rules(
    g: &Compiled,
    board: &mut Board,
    set: &RuleSet,
    banned: Option<&[bool]>,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) {
    let mut propagated = false;
    let mut loops = 0;
    let mut gi = 0;
    // The main rules' group runs are recorded and replayed across the
    // inputs (`turn_memo`); the late ones run after the movements.
    let main = std::ptr::eq(set, &g.rules);
    let mut one_by_one = 0;
    while gi < set.groups.len() && scratch.fault.is_none() {
        let is_banned = banned.is_some_and(|b| b.get(gi).copied().unwrap_or(false));
        // A run of cell-local groups, each settling in one pass: one pass
        // over the cells applies them all (`compile::cell_runs`), unless
        // their records make the searches one by one cheaper (then they
        // run as other groups, up to `one_by_one`). None ends a loop, so
        // the next group follows.
        let run = match gi >= one_by_one {
            true => set.cell_runs.get(gi).map_or(0, |&n| n as usize),
            false => 0,
        };
        let run_banned = |n: usize| {
            banned.is_some_and(|b| (gi..gi + n).any(|k| b.get(k).copied().unwrap_or(false)))
        };
        if run > 0 && !run_banned(run) {
            let groups = set.groups.get(gi..gi + run).unwrap_or(&[]);
            if let Some(changed) = apply_cell_run(g, board, groups, scratch) {
                propagated |= changed;
                gi += run;
                continue;
            }
            one_by_one = gi + run;
        }
        if !is_banned {
            // Only the main rules have rigid groups, so late groups pass an index
            // past the rigid table.
            let group_id = if banned.is_some() { gi } else { usize::MAX };
            propagated |= run_group(g, board, set, gi, main, group_id, scratch, chooser);
        }
        match set.loop_point.get(gi).copied().flatten() {
            Some(back) if propagated => {
                gi = back;
                propagated = false;
                loops += 1;
                if loops > 200 {
                    break;
                }
            }
            _ => gi += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::row_tests::AnchorTest;
    use crate::compile::PatternCell;
    use crate::engine::apply::{apply_at, still_matches};
    use crate::engine::matching::{
        anchored_row_matches, cell_matches, each_row_match_at, find_matches, find_matches_but,
        row_matches, row_matches_covering, row_matches_covering_few,
    };
    use crate::engine::row_starts::{delta, narrow_cells_match, start_bounds};
    use crate::engine::rules::apply_rules;
    use crate::engine::RowMatch;
    use crate::engine::{Board, FirstChoice};
    use crate::test_rng::xorshift;

    const GAME: &str = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
        Target\ngreen\nLEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\nT = Target\n\
        Obstacle = Wall or Crate\nSOUNDS\nCOLLISIONLAYERS\nBackground\nTarget\nPlayer, Wall, Crate\n\
        RULES\n[ > Player | Crate | no Obstacle ] -> [ > Player | > Crate | ]\n\
        [ Target no Crate | stationary Player ] -> [ Target | Player ]\n\
        late [ Crate | Obstacle ] -> [ Crate | Obstacle ]\n\
        [ > Player | ... | Crate | no Wall ] -> [ > Player | ... | > Crate | ]\n\
        late [ Target | ... | Obstacle | ... | no Player ] -> [ Target | ... | Obstacle | ... | Wall ]\n\
        WINCONDITIONS\nLEVELS\n.P.\n";

    /// The rules of `rules` expanded from the line of `source` that starts
    /// with `text` (there must be some).
    fn of_line<'a>(
        source: &str,
        rules: &[&'a crate::compile::Rule],
        text: &str,
    ) -> impl Iterator<Item = &'a crate::compile::Rule> {
        let line = source
            .lines()
            .position(|l| l.starts_with(text))
            .map(|l| l + 1);
        let found: Vec<_> = rules
            .iter()
            .copied()
            .filter(|r| Some(r.line) == line)
            .collect();
        assert!(!found.is_empty(), "{text}");
        found.into_iter()
    }

    /// Every rule of `g`, early and late, in order.
    /// Every combination of the row matches `rows`, in the reference's
    /// order (the first row's matches vary fastest).
    fn tuples(rows: &[Vec<RowMatch>]) -> Vec<Vec<RowMatch>> {
        let total: usize = rows.iter().map(Vec::len).product();
        (0..total)
            .map(|t| {
                let mut rest = t;
                rows.iter()
                    .map(|row| {
                        let m = row[rest % row.len()];
                        rest /= row.len();
                        m
                    })
                    .collect()
            })
            .collect()
    }

    fn every_rule(g: &crate::compile::Compiled) -> Vec<&crate::compile::Rule> {
        g.rules
            .groups
            .iter()
            .chain(&g.late_rules.groups)
            .flatten()
            .collect()
    }

    /// A row compiled to plain words (`Rule::narrow_rows`) matches exactly
    /// where its patterns do, at every start of many pseudo-random boards.
    #[test]
    fn narrow_rows_match_as_their_patterns() {
        let g = crate::compile("t", GAME).expect("compiles");
        let (w, h) = (5, 4);
        let mut board = Board::empty(&g, w, h);
        let rules = every_rule(&g);
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut tried, mut matched) = (0, 0);
        for _ in 0..300 {
            for c in 0..w * h {
                board.objects[c] = next() & 0x1f;
                board.movements[c] = next() & next() & 0x7fff;
            }
            for rule in &rules {
                let d = delta(rule.direction, h);
                let rows = rule.rows.iter().zip(&rule.narrow_rows);
                for ((row, narrow), _) in rows.zip(&rule.ellipses).filter(|(_, &e)| e == 0) {
                    let Some(cells) = narrow else { continue };
                    for start in 0..w * h {
                        let inside = (0..row.len() as isize).all(|k| {
                            let at = start as isize + d * k;
                            // Along a column the cells must stay in it too.
                            (0..(w * h) as isize).contains(&at)
                                && (d.abs() != 1 || at / h as isize == start as isize / h as isize)
                        });
                        if !inside {
                            continue;
                        }
                        let generic = row.iter().enumerate().all(|(k, c)| match c {
                            PatternCell::Cell(p) => cell_matches(
                                p,
                                &board,
                                1,
                                1,
                                (start as isize + d * k as isize) as usize,
                            ),
                            PatternCell::Ellipsis => true,
                        });
                        assert_eq!(
                            narrow_cells_match(&board, cells, start as isize, d),
                            generic
                        );
                        tried += 1;
                        matched += usize::from(generic);
                    }
                }
            }
        }
        assert!(
            tried > 10_000 && matched > 100,
            "{tried} starts, {matched} matches"
        );
    }

    /// Every match of `row` (row `r` of `rule`) on `board`, start by start in
    /// the reference's scan order, each start tried by the plain matcher:
    /// the definition the scans' filters and shortcuts must keep to.
    fn every_match(
        g: &crate::compile::Compiled,
        board: &Board,
        rule: &crate::compile::Rule,
        r: usize,
    ) -> Vec<RowMatch> {
        let (w, h) = (board.width, board.height);
        let row = &rule.rows[r];
        let e = rule.ellipses[r];
        let len = row.len() - usize::from(e);
        let (xmin, xmax, ymin, ymax) = start_bounds(rule.direction, len, w, h);
        let mut starts: Vec<(usize, usize)> = (xmin..xmax)
            .flat_map(|x| (ymin..ymax).map(move |y| (x, y)))
            .collect();
        if rule.direction > 2 {
            starts.sort_by_key(|&(x, y)| (y, x));
        }
        let mut out = Vec::new();
        for (x, y) in starts {
            let kmax = match rule.direction {
                1 => (y + 2).saturating_sub(len),
                2 => (h + 1).saturating_sub(y + len),
                4 => (x + 2).saturating_sub(len),
                _ => (w + 1).saturating_sub(x + len),
            };
            let gaps = ((0, kmax), (0, kmax), (0, kmax));
            let d = delta(rule.direction, h);
            each_row_match_at(g, board, row, None, e, x * h + y, d, gaps, |m| {
                out.push(m);
                true
            });
        }
        out
    }

    /// A game of `extra` more objects than `GAME`, in one layer of their
    /// own (boards of several object words, properties across words) or
    /// each in its own (`layered`: several movement words).
    fn wide_game(extra: usize, layered: bool) -> String {
        let names: Vec<String> = (0..extra).map(|k| format!("Filler{k}")).collect();
        let objects: String = names.iter().map(|n| format!("{n}\ngrey\n")).collect();
        GAME.replace(
            "Target\ngreen\n",
            &format!("Target\ngreen\nLamp\nyellow\nGlow\npink\n{objects}"),
        )
            .replace(
                "Obstacle = Wall or Crate\n",
                &format!(
                    "Obstacle = Wall or Crate\nFar = Crate or {}\nLit = Lamp or Glow\n",
                    names.last().map_or("Wall", |n| n.as_str())
                ),
            )
            .replace(
                "Target\nPlayer,",
                &format!(
                    "Target\nLamp, Glow\n{}\nPlayer,",
                    names.join(if layered { "\n" } else { ", " })
                ),
            )
            .replace(
                "RULES\n",
                // On separate layers, the fillers are pushed by the player,
                // so that their layers move and take movement words
                // (`MoveSlots`).
                &format!(
                    "RULES\n{}",
                    names
                        .iter()
                        .filter(|_| layered)
                        .map(|n| format!("[ > Player | {n} ] -> [ > Player | > {n} ]\n"))
                        .collect::<String>()
                ),
            )
            .replace(
                "WINCONDITIONS",
                // The next three are scanned by a later cell than their
                // first (`probe`): the first needs nothing present. The
                // last four are rows of one cell, whose scan's test is all
                // of their test when they name one property at most.
                "late [ Far | Obstacle ] -> [ Far | Target ]\n[ Obstacle no Player | Far ] -> [ Obstacle | Far ]\n\
                 late [ no Wall | | Crate ] -> [ | | Target ]\n\
                 late [ | Far | ... | Player ] -> [ | | ... | Player ]\n\
                 [ no Player | stationary Obstacle | no Target ] -> [ | Obstacle | Target ]\n\
                 late [ Obstacle ] -> [ ]\n[ Target no Crate ] -> [ Target ]\n\
                 [ stationary Player no Target ] -> [ Player ]\n\
                 [ Obstacle Lit ] -> [ Obstacle ]\nWINCONDITIONS",
            )
    }

    /// A full scan (its filters by summaries and properties, its inline
    /// first-cell tests, its plain-word rows) finds exactly the matches
    /// of trying every start with the plain matcher, in the same order, on
    /// many pseudo-random boards of one word, of several object words and
    /// of several movement words; and a scan of some lines alone (a search
    /// near written cells) finds those of them that start on those lines.
    #[test]
    fn scans_find_every_match_in_order() {
        let games = [
            (wide_game(0, false), 1, 1),
            (wide_game(70, false), 2, 1),
            (wide_game(14, true), 1, 2),
        ];
        for (source, obj_words, mov_words) in games {
            let g = crate::compile("t", &source).expect("compiles");
            assert_eq!((g.obj_words, g.mov_words), (obj_words, mov_words));
            let (w, h) = (6, 5);
            let mut board = Board::empty(&g, w, h);
            let rules = every_rule(&g);
            assert!(rules.iter().any(|r| !r.rule_any.is_empty()));
            // The objects the rules name (ids follow the layers, so that
            // the fillers come between them on the wide board).
            let named = [
                "background",
                "target",
                "player",
                "wall",
                "crate",
                "filler69",
                "filler13",
                "lamp",
                "glow",
            ];
            let ids: Vec<usize> = named
                .iter()
                .filter_map(|n| g.names.objects.get(*n).map(|&(id, _)| id))
                .collect();
            let mut next = xorshift(0x1405_7b7e_f767_814f);
            let (mut tried, mut matched) = (0, 0);
            let (mut found, mut starts) =
                (Vec::new(), crate::engine::row_starts::Starts::default());
            for _ in 0..300 {
                for c in 0..w * h {
                    let cell = &mut board.objects[c * g.obj_words..(c + 1) * g.obj_words];
                    cell.fill(0);
                    for &id in &ids {
                        if next().is_multiple_of(3) {
                            crate::bits::set(cell, id);
                        }
                    }
                    for k in 0..g.mov_words {
                        board.movements[c * g.mov_words + k] = next() & next() & next() & 0x7fff;
                    }
                }
                board.moving = (0..w * h).collect();
                board.summarize(g.obj_words, g.mov_words);
                for rule in &rules {
                    for r in 0..rule.rows.len() {
                        row_matches(&g, &board, rule, r, &mut found, &mut starts, None);
                        let expected = every_match(&g, &board, rule, r);
                        assert_eq!(found, expected, "rule on line {}", rule.line);
                        tried += 1;
                        matched += found.len();
                        // With some lines wanted (a search near written
                        // cells), the matches that start on those lines.
                        let wanted = next() & 0x3f;
                        let line = |i: usize| match rule.direction > 2 {
                            true => i % h,
                            false => i / h,
                        };
                        let on_lines: Vec<_> = expected
                            .iter()
                            .copied()
                            .filter(|m| wanted & (1 << line(m[0])) != 0)
                            .collect();
                        let lines = [wanted];
                        row_matches(&g, &board, rule, r, &mut found, &mut starts, Some(&lines));
                        assert_eq!(
                            found, on_lines,
                            "rule on line {}, lines {wanted:b}",
                            rule.line
                        );
                    }
                }
            }
            assert!(
                tried > 2_000 && matched > 100,
                "{tried} rows, {matched} matches"
            );
        }
    }

    /// Rows of one cell, whose scan takes a cell that passes the inline test
    /// as a match when that test is the whole pattern (plain words, at most
    /// one property), find exactly the matches of trying every start, in
    /// order, on many pseudo-random boards: among them a cell of two
    /// properties, which the inline test does not cover.
    #[test]
    fn one_cell_rows_find_every_match_in_order() {
        let source = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nA1\nred\nA2\nblue\nB1\ngreen\n\
            B2\nyellow\nLEGEND\n. = Background\nP = Player\nPropA = A1 or A2\nPropB = B1 or B2\n\
            SOUNDS\nCOLLISIONLAYERS\nBackground\nA1, A2\nB1, B2\nPlayer\nRULES\n\
            [ PropA PropB ] -> again\n[ PropA no Player ] -> again\n[ A1 no B2 ] -> again\n\
            [ no A2 ] -> again\n[ stationary Player B1 ] -> again\nWINCONDITIONS\nLEVELS\n.P.\n";
        let g = crate::compile("t", source).expect("compiles");
        let rules = every_rule(&g);
        assert!(
            rules
                .iter()
                .any(|r| matches!(r.single_cell(), Some(p) if p.any_present.len() == 2)),
            "a cell of two properties"
        );
        let (w, h) = (6, 5);
        let mut board = Board::empty(&g, w, h);
        let mut next = xorshift(0x0ce1_15ca_7000_0001);
        let (mut found, mut starts) = (Vec::new(), crate::engine::row_starts::Starts::default());
        let mut matched = 0;
        for _ in 0..300 {
            for c in 0..w * h {
                board.objects[c] = next() & 0x3f;
                board.movements[c] = next() & next() & 0x7fff;
            }
            board.moving = (0..w * h).collect();
            board.summarize(1, 1);
            for rule in &rules {
                row_matches(&g, &board, rule, 0, &mut found, &mut starts, None);
                assert_eq!(
                    found,
                    every_match(&g, &board, rule, 0),
                    "line {}",
                    rule.line
                );
                matched += found.len();
            }
        }
        assert!(matched > 5_000, "{matched} matches");
    }

    /// A search of a rule's other rows, the matches of one row already
    /// known, finds what the full search finds, even from a buffer of rows
    /// shorter than the rule's (the known row alone).
    #[test]
    fn the_other_rows_alone_are_found_as_by_the_full_search() {
        let source = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nLEGEND\n\
            . = Background\nP = Player\n* = Crate\nSOUNDS\nCOLLISIONLAYERS\nBackground\n\
            Player, Crate\nRULES\n[ Player ] [ Crate ] [ Crate ] -> [ Player ] [ ] [ ]\n\
            WINCONDITIONS\nLEVELS\nP.*\n";
        let g = crate::compile("t", source).expect("compiles");
        let rule = every_rule(&g)[0];
        let mut board = Board::empty(&g, 5, 4);
        let mut next = xorshift(0x07e5_0a1e_0000_0001);
        let mut starts = crate::engine::row_starts::Starts::default();
        let (mut full, mut found) = (0, 0);
        for _ in 0..200 {
            for c in 0..board.cells() {
                board.objects[c] = 1 | (next() % 4) << 1;
            }
            board.summarize(1, 1);
            let mut all = Vec::new();
            let expected = find_matches(&g, &board, rule, &mut all, &mut starts);
            if all.first().is_none_or(Vec::is_empty) {
                continue;
            }
            let mut rows = vec![all[0].clone()];
            let got = find_matches_but(&g, &board, rule, &mut rows, &mut starts, 0);
            assert_eq!(got, expected);
            if expected {
                assert_eq!(rows[..3], all[..3]);
                found += 1;
            }
            full += 1;
        }
        assert!(
            full > 50 && found > 20,
            "{full} searches, {found} with matches"
        );
    }

    /// The searches anchored on moving cells (few cells move: the narrow
    /// loop on one-word boards, the general visit on wider ones), which
    /// test each moving cell against the anchor's pattern before placing
    /// its start, find exactly the matches of trying every start, in the
    /// same order, on many pseudo-random boards whose moving lists hold
    /// every cell with a movement, cells without one, and repeats; one
    /// `Starts` is kept throughout, as a turn keeps it. The quick test of
    /// an anchor on wide boards (`AnchorTest`) admits every cell that its
    /// pattern matches.
    #[test]
    fn anchored_searches_find_every_match_in_order() {
        let anchored = "[ Crate | > Player ] -> [ Crate | Player ]\n\
            [ moving Crate | Obstacle ] -> [ Crate | Obstacle ]\n\
            [ no Wall | v Obstacle | Target ] -> [ | Obstacle | Target ]\n\
            [ > Far | ... | Player ] -> [ Far | ... | Player ]\nWINCONDITIONS";
        let games = [
            (wide_game(0, false), 1, 1),
            (wide_game(70, false), 2, 1),
            (wide_game(14, true), 1, 2),
        ];
        for (source, obj_words, mov_words) in games {
            let g =
                crate::compile("t", &source.replace("WINCONDITIONS", anchored)).expect("compiles");
            assert_eq!((g.obj_words, g.mov_words), (obj_words, mov_words));
            let (w, h) = (7, 6);
            let mut board = Board::empty(&g, w, h);
            let rules: Vec<_> = every_rule(&g)
                .into_iter()
                .filter(|r| r.anchors.iter().any(Option::is_some))
                .collect();
            assert!(rules.len() > 10);
            let named = ["target", "player", "wall", "crate", "filler69", "filler13"];
            let ids: Vec<usize> = named
                .iter()
                .filter_map(|n| g.names.objects.get(*n).map(|&(id, _)| id))
                .collect();
            let mut next = xorshift(0x7a3c_19e5_0d2b_4f61);
            let (mut tried, mut matched) = (0, 0);
            let (mut probes, mut probes_matched) = (0, 0);
            let mut memo = crate::engine::matching::AnchorMemo::default();
            let mut classes = std::collections::HashMap::new();
            let (mut found, mut starts) =
                (Vec::new(), crate::engine::row_starts::Starts::default());
            for round in 0..400 {
                board.objects.fill(0);
                board.movements.fill(0);
                for c in 0..w * h {
                    let cell = &mut board.objects[c * g.obj_words..(c + 1) * g.obj_words];
                    for &id in &ids {
                        if next().is_multiple_of(3) {
                            crate::bits::set(cell, id);
                        }
                    }
                }
                // A few cells move; the list also names a cell that does
                // not, and repeats one, and every fourth round it grows.
                if round % 4 != 3 {
                    board.moving.clear();
                    for _ in 0..next() % 7 {
                        board.moving.push(next() as usize % (w * h));
                    }
                    board.moving.push(next() as usize % (w * h));
                    if let Some(&first) = board.moving.first() {
                        board.moving.push(first);
                    }
                } else {
                    board.moving.push(next() as usize % (w * h));
                }
                // Each listed cell but the first moves some of its layers
                // one way each (up, down, left, right or action).
                for &c in board.moving.iter().skip(1) {
                    for slot in g.names.move_slots.movable() {
                        if next().is_multiple_of(2) {
                            let (word, shift) = crate::bits::mov_pos(slot);
                            board.movements[c * g.mov_words + word] |= (1 << (next() % 5)) << shift;
                        }
                    }
                }
                assert!(board.moving.len() * 4 <= w * h);
                board.summarize(g.obj_words, g.mov_words);
                // A new board: the cells found on the last one are stale.
                memo.forget();
                for rule in &rules {
                    for r in (0..rule.rows.len()).filter(|&r| rule.anchors[r].is_some()) {
                        // The anchor's quick test admits every cell its
                        // pattern matches.
                        let anchor = rule.anchors[r].unwrap_or(0);
                        if let Some(PatternCell::Cell(p)) = rule.rows[r].get(anchor) {
                            let test = AnchorTest::of(p);
                            for i in 0..w * h {
                                let (so, sm) = (g.obj_words, g.mov_words);
                                if cell_matches(p, &board, so, sm, i) {
                                    let (o, m) = (&board.objects, &board.movements);
                                    assert!(test.admits(o, m, (so, sm), i));
                                }
                            }
                        }
                        row_matches(&g, &board, rule, r, &mut found, &mut starts, None);
                        let expected = every_match(&g, &board, rule, r);
                        assert_eq!(found, expected, "rule on line {}", rule.line);
                        // The group loop's test of one match from the moving
                        // cells answers as the search does (rows without
                        // ellipsis; narrow rules too, which it leaves out).
                        if rule.ellipses[r] == 0 {
                            let mut probed = (*rule).clone();
                            probed.anchored_row = Some(r);
                            // Rules of one anchor test share its cells found
                            // on this board; every third row shares a class
                            // with other tests (the entry is then made again).
                            let test = rule.anchor_tests[r];
                            let next = classes.len() as u32;
                            probed.anchor_class = match probes % 3 {
                                0 => 0,
                                _ => *classes.entry(test).or_insert(next),
                            };
                            let some = anchored_row_matches(&g, &board, &probed, &mut memo);
                            assert_eq!(some, !expected.is_empty(), "line {}", rule.line);
                            probes += 1;
                            probes_matched += usize::from(some);
                        }
                        tried += 1;
                        matched += found.len();
                    }
                }
            }
            assert!(
                tried > 2_000 && matched > 100,
                "{tried} rows, {matched} matches"
            );
            assert!(
                probes > 1_000 && probes_matched > 100 && probes_matched < probes - 100,
                "{probes} rows probed, {probes_matched} with a match"
            );
        }
    }

    /// A rule said to keep its own matches (`Rule::keeps_own_matches`)
    /// does: applied at every combination of its matches, one after the
    /// other without re-checks, each match still holds when its turn comes,
    /// on many pseudo-random boards; and the analysis says so of floods
    /// and of rules of one cell, and not of rules that remove what they
    /// match over several cells.
    #[test]
    fn rules_that_keep_their_matches_need_no_recheck() {
        let extra = "late right [ Crate no Wall | ] -> [ Crate | Crate ]\n\
            late [ Target | no Player ] -> [ Target | Target ]\n\
            [ Crate | Obstacle ] -> [ Crate | Obstacle Target ]\n\
            [ Crate | Crate ] -> [ Crate | ]\n\
            [ Target ] [ Player ] -> [ Target Player ] [ Player ]\n\
            late [ Crate no Target ] -> [ ]\n";
        let source = GAME.replace("WINCONDITIONS", &format!("{extra}WINCONDITIONS"));
        let g = crate::compile("t", &source).expect("compiles");
        let rules = every_rule(&g);
        let keeps = |text: &str| of_line(&source, &rules, text).all(|r| r.keeps_own_matches);
        assert!(keeps("late right [ Crate no Wall"));
        assert!(keeps("late [ Target | no Player ]"));
        assert!(!keeps("[ Crate | Crate ]"));
        assert!(!keeps("[ Crate | Obstacle ]"));
        // One cell: its matches are distinct cells, each written alone.
        assert!(keeps("late [ Crate no Target ]"));
        let (w, h) = (6, 5);
        let mut board = Board::empty(&g, w, h);
        let mut next = xorshift(0x0bad_5eed_1234_5678);
        let (mut rows, mut starts, mut buf) = (
            Vec::new(),
            crate::engine::row_starts::Starts::default(),
            Vec::new(),
        );
        let mut applied = 0;
        for _ in 0..400 {
            for rule in rules.iter().filter(|r| r.keeps_own_matches) {
                board.fill_random(&mut next);
                board.summarize(1, 1);
                if !find_matches(&g, &board, rule, &mut rows, &mut starts) {
                    continue;
                }
                for tuple in tuples(&rows[..rule.rows.len()]) {
                    for (r, &m) in tuple.iter().enumerate() {
                        assert!(still_matches(&g, &board, rule, r, m), "line {}", rule.line);
                    }
                    apply_at(
                        &g,
                        &mut board,
                        rule,
                        0,
                        &tuple,
                        false,
                        &mut buf,
                        &mut FirstChoice,
                    );
                    applied += 1;
                }
            }
        }
        assert!(applied > 1_000, "{applied} matches applied");
    }

    /// A game for the settling analysis: one object a layer in every level
    /// and rule, marks in a layer of their own, and rules and groups of
    /// each kind that settles in one pass and of kinds that do not.
    const SETTLE_GAME: &str = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\n\
        Wall\nblue\nTarget\ngreen\nMarkA\nyellow\nMarkB\norange\nGlow\npink\nRow\ngray\n\
        LEGEND\n. = Background\nP = Player\nSOUNDS\nCOLLISIONLAYERS\nBackground\nTarget\n\
        Player, Wall, Crate\nMarkA, MarkB\nGlow\nRow\nRULES\n\
        late [ Crate Target ] -> [ Target ]\n\
        [ Target no Player ] -> [ Target Crate ]\n\
        right [ Crate | Target ] [ Row ] -> [ Crate | Target ] [ Row Glow ]\n\
        right [ Wall | ... | Target ] -> [ Wall | ... | Target MarkA ]\n\
        [ Crate | Crate ] -> [ Crate | ]\n\
        [ > Player | Wall ] -> [ Player | Wall ]\n\
        [ Glow ] -> [ ]\n+ [ MarkA ] -> [ ]\n+ [ stationary Crate ] -> [ left Crate ]\n\
        [ Target ] -> [ Target Glow ]\n+ [ Wall ] -> [ Wall Row ]\n\
        right [ Crate | | ] -> [ Crate MarkA | MarkB | ]\n\
        right [ Crate | no Crate ] -> [ | ]\n\
        right [ Crate | no Crate ] -> [ Crate | Crate ]\n\
        [ Crate ] -> [ Crate MarkB ]\n+ [ Glow ] -> [ MarkA ]\n\
        [ Wall ] -> [ Wall MarkA ]\n+ [ MarkA | no MarkA no MarkB no Wall ] -> [ MarkA | MarkB ]\n\
        [ Glow | no MarkA no MarkB no Wall ] -> [ Glow | MarkB ]\n+ [ Target ] -> [ Target Glow ]\n\
        [ Target ] -> [ random Crate ]\n\
        [ Wall ] -> [ Crate ] again\n\
        WINCONDITIONS\nLEVELS\n.P.\n";

    /// Fills `board` with at most one object of each layer of `g` a cell
    /// (as every board of a game of one object a layer holds) and a few
    /// movements, listing the cells that move.
    fn fill_one_per_layer(
        g: &crate::compile::Compiled,
        board: &mut Board,
        next: &mut impl FnMut() -> u64,
    ) {
        let (so, sm) = (g.obj_words, g.mov_words);
        for c in 0..board.cells() {
            let (objects, movements) = (
                &mut board.objects[c * so..(c + 1) * so],
                &mut board.movements[c * sm..(c + 1) * sm],
            );
            objects.fill(0);
            movements.fill(0);
            for (layer, mask) in g.names.layer_masks.iter().enumerate() {
                let ids: Vec<usize> = crate::bits::ones(mask).collect();
                let pick = next() as usize % (ids.len() + 2);
                if let Some(&id) = ids.get(pick) {
                    crate::bits::set(objects, id);
                    let slot = g.names.move_slots.slot(layer);
                    if let Some(slot) = slot.filter(|_| next().is_multiple_of(4)) {
                        crate::bits::mov_or(movements, slot, 1 << (next() % 5));
                    }
                }
            }
        }
        board.moving = (0..board.cells())
            .filter(|&c| {
                board.movements[c * sm..(c + 1) * sm]
                    .iter()
                    .any(|&m| m != 0)
            })
            .collect();
        board.summarize(so, sm);
    }

    /// Applies every combination of `rule`'s matches on `board` in the
    /// reference's order, each re-checked first (one pass of the rule);
    /// true when the board changed.
    fn one_pass(
        g: &crate::compile::Compiled,
        board: &mut Board,
        rule: &crate::compile::Rule,
    ) -> bool {
        let (mut rows, mut starts) = (Vec::new(), crate::engine::row_starts::Starts::default());
        board.ensure_summary(g.obj_words, g.mov_words);
        if !find_matches(g, board, rule, &mut rows, &mut starts) {
            return false;
        }
        let rows = &rows[..rule.rows.len()];
        let total: usize = rows.iter().map(Vec::len).product();
        let mut changed = false;
        for t in 0..total {
            let mut rest = t;
            let tuple: Vec<RowMatch> = rows
                .iter()
                .map(|row| {
                    let m = row[rest % row.len()];
                    rest /= row.len();
                    m
                })
                .collect();
            let (mut buf, chooser) = (Vec::new(), &mut FirstChoice);
            changed |= apply_at(g, board, rule, 0, &tuple, true, &mut buf, chooser);
        }
        changed
    }

    /// A rule said to settle in one pass (`Rule::settles`) does: on many
    /// pseudo-random boards of one object a layer, after one pass of its
    /// matches each match found afresh, applied alone, changes nothing (so
    /// a second pass changes nothing either). The analysis says so of rules
    /// of one cell, of rules whose writes are alike and apart from what
    /// they read (two rows, an ellipsis), of rules that clear only what
    /// none of their patterns excludes and of a step of a spread; not of
    /// writes that overwrite one another, of clears that a pattern
    /// excludes, of floods, random rules or rules with commands. The
    /// property fails when the analysis admits writes that turn a test on
    /// or overwrite one another.
    #[test]
    fn rules_that_settle_leave_their_matches_nothing_to_change() {
        let g = crate::compile("t", SETTLE_GAME).expect("compiles");
        assert!(g.one_per_layer);
        let rules = every_rule(&g);
        let settles = |text: &str| of_line(SETTLE_GAME, &rules, text).all(|r| r.settles);
        for yes in [
            "late [ Crate Target ]",
            "[ Target no Player ]",
            "right [ Crate | Target ] [ Row ]",
            "right [ Wall | ... | Target ]",
            "[ Crate | Crate ]",
            "[ > Player | Wall ]",
            "+ [ MarkA | no MarkA no MarkB no Wall ]",
        ] {
            assert!(settles(yes), "{yes}");
        }
        for no in [
            "right [ Crate | | ]",
            "right [ Crate | no Crate ] -> [ | ]",
            "right [ Crate | no Crate ] -> [ Crate | Crate ]",
            "[ Target ] -> [ random Crate ]",
            "[ Wall ] -> [ Crate ] again",
        ] {
            assert!(!settles(no), "{no}");
        }
        let mut board = Board::empty(&g, 6, 5);
        let mut next = xorshift(0x5e77_1e5a_0ce0_0001);
        let (mut rows, mut starts, mut buf) = (
            Vec::new(),
            crate::engine::row_starts::Starts::default(),
            Vec::new(),
        );
        let (mut changed, mut checked) = (0, 0);
        for _ in 0..300 {
            for rule in rules.iter().filter(|r| r.settles) {
                fill_one_per_layer(&g, &mut board, &mut next);
                changed += usize::from(one_pass(&g, &mut board, rule));
                board.summarize(g.obj_words, g.mov_words);
                if !find_matches(&g, &board, rule, &mut rows, &mut starts) {
                    continue;
                }
                for tuple in tuples(&rows[..rule.rows.len()]) {
                    let mut alone = board.clone();
                    let wrote = apply_at(
                        &g,
                        &mut alone,
                        rule,
                        0,
                        &tuple,
                        false,
                        &mut buf,
                        &mut FirstChoice,
                    );
                    assert!(!wrote, "line {}: a match wrote after a pass", rule.line);
                    checked += 1;
                }
            }
        }
        assert!(changed > 500, "{changed} first passes changed the board");
        assert!(checked > 500, "{checked} matches checked after a pass");
    }

    /// Groups said to settle in one pass (`RuleSet::settles`) end where
    /// their fixpoint does: the rules of the game run with the analysis's
    /// answers leave every pseudo-random board of one object a layer as
    /// they leave it with no group settling. Groups of several rules that
    /// clear only, whose rules are apart, or that place marks from their
    /// sources and then spread them a step, settle; a group whose later
    /// rule overwrites what an earlier one wrote, or that spreads before
    /// it places, does not (with them settling the property fails: checked
    /// by making every group settle, which changes some boards).
    #[test]
    fn groups_that_settle_end_where_their_fixpoint_does() {
        let g = crate::compile("t", SETTLE_GAME).expect("compiles");
        let group_of = |text: &str| {
            let line = SETTLE_GAME
                .lines()
                .position(|l| l.starts_with(text))
                .map(|l| l + 1);
            let at = g
                .rules
                .groups
                .iter()
                .position(|grp| Some(grp[0].line) == line);
            at.map(|gi| g.rules.settles[gi]).expect("a group")
        };
        assert!(group_of("[ Glow ] -> [ ]"), "clears only");
        assert!(group_of("[ Target ] -> [ Target Glow ]"), "apart");
        assert!(group_of("[ > Player | Wall ]"), "clears only, four rules");
        assert!(
            group_of("[ Wall ] -> [ Wall MarkA ]"),
            "sources, then a step"
        );
        assert!(
            !group_of("[ Crate ] -> [ Crate MarkB ]"),
            "one layer written"
        );
        assert!(!group_of("[ Glow | no MarkA"), "a step, then its sources");
        assert!(!group_of("right [ Crate | | ]"));
        let unsettled = |settles: bool| {
            let mut g = g.clone();
            for set in [&mut g.rules, &mut g.late_rules] {
                set.settles = vec![settles; set.groups.len()];
            }
            g
        };
        let (never, always) = (unsettled(false), unsettled(true));
        let mut board = Board::empty(&g, 6, 5);
        let mut next = xorshift(0x5e77_1e5a_0ce0_0002);
        let (mut differ, mut changed) = (0, 0);
        for _ in 0..500 {
            fill_one_per_layer(&g, &mut board, &mut next);
            let outcome = |game: &crate::compile::Compiled| {
                let mut b = board.clone();
                let mut scratch = crate::engine::Scratch::default();
                for set in [&game.rules, &game.late_rules] {
                    apply_rules(game, &mut b, set, None, &mut scratch, &mut FirstChoice);
                }
                (b.objects, b.movements)
            };
            let (analysed, plain, forced) = (outcome(&g), outcome(&never), outcome(&always));
            assert_eq!(analysed, plain, "a group that settles ended elsewhere");
            differ += usize::from(forced != plain);
            changed += usize::from(plain.0 != board.objects);
        }
        assert!(changed > 400, "{changed} boards changed by the rules");
        assert!(differ > 20, "every group settling changed {differ} boards");
    }

    /// The matches found from the starts that cover some written cells are
    /// exactly the matches of a full scan that cover one of those cells,
    /// in the same order, on many pseudo-random boards and sets of cells.
    #[test]
    fn matches_covering_cells_are_the_scans_that_do() {
        let g = crate::compile("t", GAME).expect("compiles");
        let (w, h) = (7, 5);
        let mut board = Board::empty(&g, w, h);
        let mut rules = every_rule(&g);
        rules.retain(|r| r.ellipses.contains(&0));
        let mut next = xorshift(0x5851_f42d_4c95_7f2d);
        let (mut tried, mut matched, mut few) = (0, 0, 0);
        let (mut all, mut near, mut starts, mut seen) = (
            Vec::new(),
            Vec::new(),
            crate::engine::row_starts::Starts::default(),
            Vec::new(),
        );
        for _ in 0..500 {
            for c in 0..w * h {
                board.objects[c] = next() & next() & 0x1f;
                board.movements[c] = next() & next() & next() & 0x7fff;
            }
            board.moving = (0..w * h).filter(|&c| board.movements[c] != 0).collect();
            board.summarize(1, 1);
            let count = (next() % 4) as usize;
            let cells: Vec<usize> = (0..count).map(|_| next() as usize % (w * h)).collect();
            for rule in &rules {
                let d = delta(rule.direction, h);
                for r in (0..rule.rows.len()).filter(|&r| rule.ellipses[r] == 0) {
                    row_matches(&g, &board, rule, r, &mut all, &mut starts, None);
                    let len = rule.rows[r].len() as isize;
                    let covers = |m: &RowMatch| {
                        (0..len).any(|k| cells.contains(&((m[0] as isize + d * k) as usize)))
                    };
                    all.retain(covers);
                    row_matches_covering(&g, &board, rule, r, &cells, &mut near, &mut seen);
                    assert_eq!(near, all, "rule on line {}", rule.line);
                    // With few starts, each tried on its own: the same.
                    if cells.len() * rule.rows[r].len() <= 16 {
                        row_matches_covering_few(&g, &board, rule, r, &cells, &mut near);
                        assert_eq!(near, all, "few starts, rule on line {}", rule.line);
                        few += 1;
                    }
                    tried += 1;
                    matched += all.len();
                }
            }
        }
        assert!(
            tried > 2_000 && matched > 100 && few > 1_000,
            "{tried} rows, {matched} matches, {few} with few starts"
        );
    }

    /// A row with ellipses matched stretch by stretch from its flat tests
    /// (`Rule::row_tests`) finds the same matches, gaps included, as its
    /// patterns.
    #[test]
    fn row_tests_with_ellipses_match_as_their_patterns() {
        // One word; two object words; two movement words (the gap loops'
        // inline test of a stretch's first object word on each).
        let games = [GAME.to_string(), wide_game(70, false), wide_game(14, true)];
        for source in games {
            let g = crate::compile("t", &source).expect("compiles");
            let (so, sm) = (g.obj_words, g.mov_words);
            let (w, h) = (6, 5);
            let mut board = Board::empty(&g, w, h);
            let mut rules = every_rule(&g);
            rules.retain(|r| r.ellipses.iter().any(|&e| e > 0));
            assert!(rules.iter().any(|r| r.ellipses.contains(&2)));
            // The objects the rules name, each present in half the cells
            // (the fillers between them on the wide boards).
            let named = [
                "background",
                "target",
                "player",
                "wall",
                "crate",
                "filler69",
            ];
            let ids: Vec<usize> = named
                .iter()
                .filter_map(|n| g.names.objects.get(*n).map(|&(id, _)| id))
                .collect();
            let mut next = xorshift(0x2545_f491_4f6c_dd1d);
            let (mut tried, mut matched) = (0, 0);
            for _ in 0..300 {
                for c in 0..w * h {
                    let cell = &mut board.objects[c * so..(c + 1) * so];
                    cell.fill(0);
                    for &id in &ids {
                        if next().is_multiple_of(2) {
                            crate::bits::set(cell, id);
                        }
                    }
                    for k in 0..sm {
                        board.movements[c * sm + k] = next() & next() & 0x7fff;
                    }
                }
                for rule in &rules {
                    let d = delta(rule.direction, h);
                    for (r, row) in rule.rows.iter().enumerate() {
                        let e = rule.ellipses[r];
                        let tests = &rule.row_tests[r];
                        let len = row.len() - usize::from(e);
                        let reach = len - 1;
                        for start in 0..w * h {
                            let (x, y) = (start / h, start % h);
                            let (inside, kmax) = match rule.direction {
                                1 => (y >= reach, (y + 2).saturating_sub(len)),
                                2 => (y + reach < h, (h + 1).saturating_sub(y + len)),
                                4 => (x >= reach, (x + 2).saturating_sub(len)),
                                _ => (x + reach < w, (w + 1).saturating_sub(x + len)),
                            };
                            if !inside {
                                continue;
                            }
                            let gaps = ((0, kmax), (0, kmax), (0, kmax));
                            let found = |narrow| {
                                let mut out = Vec::new();
                                each_row_match_at(
                                    &g,
                                    &board,
                                    row,
                                    narrow,
                                    e,
                                    start,
                                    d,
                                    gaps,
                                    |m| {
                                        out.push(m);
                                        true
                                    },
                                );
                                out
                            };
                            let generic = found(None);
                            assert_eq!(found(Some(tests)), generic, "line {}", rule.line);
                            // A match's re-check holds exactly at the gaps
                            // the search finds from this start.
                            let second = if e == 2 { kmax } else { 1 };
                            for a in 0..kmax {
                                for b in (0..second).filter(|b| a + b < kmax) {
                                    let m = [start, a, b];
                                    let holds = still_matches(&g, &board, rule, r, m);
                                    assert_eq!(holds, generic.contains(&m), "line {}", rule.line);
                                }
                            }
                            tried += 1;
                            matched += generic.len();
                        }
                    }
                }
            }
            assert!(
                tried > 10_000 && matched > 100,
                "{tried} starts, {matched} matches"
            );
        }
    }
}
