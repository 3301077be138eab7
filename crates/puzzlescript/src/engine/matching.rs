//! Matching rule patterns against a board, in the order the reference scans
//! cells and rows: a cell's test, a row's matches from its starts, the probe
//! cell of a scan, and the searches near a turn's writes.

use super::row_starts::{
    anchor_start, anchored_starts, delta, narrow_anchored_matches, place, start_bounds, Starts,
};
use super::{Board, RowMatch, Scratch};
use crate::bits;
use crate::compile::row_tests::{AnchorTest, CellWord, RowTests};
use crate::compile::{CellPattern, Compiled, PatternCell, Rule, WordBits, WordTest};

/// True when the cell at `i` satisfies `p`.
#[inline(always)]
pub fn cell_matches(p: &CellPattern, board: &Board, so: usize, sm: usize, i: usize) -> bool {
    if let (Some([op, om, mp, mm]), 1) = (p.narrow, so) {
        // One word of objects, and one of movements or none tested: the
        // common case.
        let m = match sm {
            1 => board.movements.get(i).copied().unwrap_or(0),
            _ if mp | mm == 0 => 0,
            _ => return cell_matches_wide(p, board, so, sm, i),
        };
        let o = board.objects.get(i).copied().unwrap_or(0);
        return o & op == op
            && o & om == 0
            && m & mp == mp
            && m & mm == 0
            && p.any_present
                .iter()
                .all(|any| any.first().is_some_and(|a| o & a != 0));
    }
    cell_matches_wide(p, board, so, sm, i)
}

/// True when a pattern's plain words test no movement: on boards whose
/// objects take one word it is tested on its objects' word alone, whatever
/// the movements take.
#[inline(always)]
fn mp_free(p: &CellPattern) -> bool {
    p.narrow.is_some_and(|[_, _, mp, mm]| mp | mm == 0)
}

/// [`cell_matches`] on boards of several words: only the words the pattern
/// tests are read.
#[inline(never)]
fn cell_matches_wide(p: &CellPattern, board: &Board, so: usize, sm: usize, i: usize) -> bool {
    for t in p.tests.iter() {
        if !word_test(board, so, sm, i, t) {
            return false;
        }
    }
    // Each property on its non-zero words alone.
    let base = i * so;
    p.any_words.iter().all(|words| {
        words.iter().any(|&(w, m)| {
            let w = w as usize;
            w < so && board.objects.get(base + w).is_some_and(|o| o & m != 0)
        })
    })
}

/// One word test of a pattern against cell `i`.
#[inline(always)]
fn word_test(board: &Board, so: usize, sm: usize, i: usize, t: &WordTest) -> bool {
    let at = t.word as usize;
    let v = if t.moves {
        board.movements.get(i * sm + at)
    } else {
        board.objects.get(i * so + at)
    }
    .copied()
    .unwrap_or(0);
    v & t.present == t.present && v & t.missing == 0
}

pub(super) fn at(i: usize, d: isize, steps: usize) -> usize {
    (i as isize + d * steps as isize) as usize
}

fn cell(row: &[PatternCell], c: usize) -> Option<&CellPattern> {
    match row.get(c) {
        Some(PatternCell::Cell(p)) => Some(p),
        _ => None,
    }
}

/// Checks cells `from..to` of `row` placed at `i + d * (c + offset - shift)`.
fn cells_match(
    row: &[PatternCell],
    range: std::ops::Range<usize>,
    base: usize,
    d: isize,
    shift: usize,
    board: &Board,
    g: &Compiled,
) -> bool {
    range.into_iter().all(|c| {
        cell(row, c).is_none_or(|p| {
            cell_matches(p, board, g.obj_words, g.mov_words, at(base, d, c - shift))
        })
    })
}

/// Appends to `out` the matches of a row starting at cell `i`, with ellipsis
/// gaps in the given ranges (`kmax` bounds the sum of the gaps).
#[allow(clippy::too_many_arguments)]
pub fn row_matches_at(
    g: &Compiled,
    board: &Board,
    row: &[PatternCell],
    ellipses: u8,
    i: usize,
    d: isize,
    k: (usize, usize),
    k1: (usize, usize),
    k2: (usize, usize),
    out: &mut Vec<RowMatch>,
) {
    let gaps = (k, k1, k2);
    each_row_match_at(g, board, row, None, ellipses, i, d, gaps, |m| {
        out.push(m);
        true
    });
}

/// True when a stretch whose first cell is `first` (each next `d` further,
/// on cells of `so` object words) passes `t`, its first object word test
/// (`None`: none), read as the stretch's own test reads it: the gap loops
/// try it inline before the whole stretch, since most gaps fail there.
#[inline(always)]
fn passes_first(objects: &[u64], so: usize, t: Option<CellWord>, first: usize, d: isize) -> bool {
    t.is_none_or(|t| {
        let c = at(first, d, t.step as usize);
        let v = objects
            .get(c.wrapping_mul(so).wrapping_add(t.word as usize))
            .copied()
            .unwrap_or(0);
        v & t.present == t.present && v & t.missing == 0
    })
}

/// Calls `found` with each match of a row starting at cell `i` (gap ranges
/// as in [`row_matches_at`]) while it returns true; false when it stopped
/// the search. Nothing is allocated, so that a re-check costs no buffer.
/// `tests` is the row's tests as flat lists (`Rule::row_tests`): each
/// stretch between ellipses is then matched by walking them; without them
/// the patterns are interpreted cell by cell (the definition they keep to).
#[allow(clippy::too_many_arguments)]
pub(super) fn each_row_match_at(
    g: &Compiled,
    board: &Board,
    row: &[PatternCell],
    tests: Option<&RowTests>,
    ellipses: u8,
    i: usize,
    d: isize,
    (k, k1, k2): ((usize, usize), (usize, usize), (usize, usize)),
    mut found: impl FnMut(RowMatch) -> bool,
) -> bool {
    let n = row.len();
    // Cells `range` of the row (ellipses counted), `shift` ellipses after
    // its start, placed from `base`: cell `c` at `base + d * (c - shift)`.
    // They are the stretch after the `shift`-th ellipsis, whose first cell
    // lies at `base + d * (range.start - shift)`.
    let cells_match = |range: std::ops::Range<usize>, base: usize, shift: usize| match tests {
        Some(tests) => tests.stretches.get(shift).is_some_and(|s| {
            let first = at(base, d, range.start - shift);
            let sizes = (g.obj_words, g.mov_words);
            s.matches(&board.objects, &board.movements, sizes, first, d)
        }),
        None => cells_match(row, range, base, d, shift, board, g),
    };
    // The first object word of the stretch after ellipsis `shift`, tested
    // inline at each gap before the whole stretch (its first test too): a
    // gap loop tries every cell to the board's edge, and most fail there.
    let quick = |shift: usize| {
        tests
            .and_then(|t| t.stretches.get(shift))
            .and_then(|s| s.objects.first().copied())
    };
    let so = g.obj_words;
    let passes = |t: Option<CellWord>, first: usize| passes_first(&board.objects, so, t, first, d);
    match ellipses {
        0 => {
            if cells_match(0..n, i, 0) {
                return found([i, 0, 0]);
            }
        }
        1 => {
            let e = row
                .iter()
                .position(|c| matches!(c, PatternCell::Ellipsis))
                .unwrap_or(n);
            if !cells_match(0..e, i, 0) {
                return true;
            }
            let q = quick(1);
            for kk in k.0..k.1 {
                if passes(q, at(i, d, kk + e))
                    && cells_match(e + 1..n, at(i, d, kk), 1)
                    && !found([i, kk, 0])
                {
                    return false;
                }
            }
        }
        _ => {
            let mut es = row
                .iter()
                .enumerate()
                .filter(|(_, c)| matches!(c, PatternCell::Ellipsis))
                .map(|(x, _)| x);
            let e1 = es.next().unwrap_or(n);
            let e2 = es.next().unwrap_or(n);
            if !cells_match(0..e1, i, 0) {
                return true;
            }
            let (q1, q2) = (quick(1), quick(2));
            for a in k1.0..k1.1 {
                if !passes(q1, at(i, d, a + e1)) || !cells_match(e1 + 1..e2, at(i, d, a), 1) {
                    continue;
                }
                let mut b = k2.0;
                while a + b < k.1 && b < k2.1 {
                    if passes(q2, at(i, d, a + b + e2 - 1))
                        && cells_match(e2 + 1..n, at(i, d, a + b), 2)
                        && !found([i, a, b])
                    {
                        return false;
                    }
                    b += 1;
                }
            }
        }
    }
    true
}

/// What trying one start of a row needs (a function of its own, so that
/// each of the scan's loops inlines it).
struct Start<'a> {
    g: &'a Compiled,
    board: &'a Board,
    row: &'a [PatternCell],
    first: Option<&'a CellPattern>,
    /// The row's tests as flat lists (`Rule::row_tests`).
    tests: &'a RowTests,
    ellipses: u8,
    d: isize,
    direction: u8,
    /// The row's cells, ellipses left out.
    len: usize,
}

impl<'a> Start<'a> {
    /// What trying a start of row `r` of `rule` on `board` needs.
    fn of(g: &'a Compiled, board: &'a Board, rule: &'a Rule, r: usize) -> Start<'a> {
        let row = &rule.rows[r];
        let ellipses = rule.ellipses[r];
        Start {
            g,
            board,
            row,
            first: cell(row, 0),
            tests: &rule.row_tests[r],
            ellipses,
            d: delta(rule.direction, board.height),
            direction: rule.direction,
            len: row.len() - usize::from(ellipses),
        }
    }

    /// Appends the matches of the row starting at column `x`, row `y`.
    #[inline(always)]
    fn visit(&self, x: usize, y: usize, out: &mut Vec<RowMatch>) {
        let (g, board, row) = (self.g, self.board, self.row);
        let (w, h, len) = (board.width, board.height, self.len);
        let i = x * h + y;
        if self.ellipses == 0 {
            // The words the row tests, its first cell's first (most starts
            // fail there), and nothing of the cells that test nothing.
            let whole = self.tests.stretches.first().is_some_and(|s| {
                s.matches(
                    &board.objects,
                    &board.movements,
                    (g.obj_words, g.mov_words),
                    i,
                    self.d,
                )
            });
            if whole {
                out.push([i, 0, 0]);
            }
            return;
        }
        let kmax = match self.direction {
            1 => (y + 2).saturating_sub(len),
            2 => (h + 1).saturating_sub(y + len),
            4 => (x + 2).saturating_sub(len),
            _ => (w + 1).saturating_sub(x + len),
        };
        if let (1, [before, after]) = (self.ellipses, &self.tests.stretches[..]) {
            // One ellipsis (most rows that have one): the stretch before it
            // at the start, then the one after it at each gap, its first
            // object word tested inline, as `each_row_match_at` does.
            let (objs, movs) = (&board.objects[..], &board.movements[..]);
            let (sizes, d) = ((g.obj_words, g.mov_words), self.d);
            if !before.matches(objs, movs, sizes, i, d) {
                return;
            }
            let quick = after.objects.first().copied();
            let mut first = at(i, d, before.cells as usize);
            for kk in 0..kmax {
                if passes_first(objs, sizes.0, quick, first, d)
                    && after.matches(objs, movs, sizes, first, d)
                {
                    out.push([i, kk, 0]);
                }
                first = at(first, d, 1);
            }
            return;
        }
        let gaps = ((0, kmax), (0, kmax), (0, kmax));
        each_row_match_at(
            g,
            board,
            row,
            Some(self.tests),
            self.ellipses,
            i,
            self.d,
            gaps,
            |m| {
                out.push(m);
                true
            },
        );
    }
}

/// Collects every match of one row, scanning as the reference does.
/// With `lines`, only the lines (board rows for horizontal rules, columns
/// for vertical ones) whose bit is set are scanned.
pub(super) fn row_matches(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    out: &mut Vec<RowMatch>,
    starts: &mut Starts,
    lines: Option<&[u64]>,
) {
    out.clear();
    debug_assert!(
        board.summary.is_full(),
        "rows read from a board-only summary"
    );
    let (so, sm) = (g.obj_words, g.mov_words);
    let (need, need_mov) = (&rule.row_masks[r], &rule.row_move_masks[r]);
    let need_any = &rule.row_any[r];
    let sum = &board.summary;
    let (map_objs, map_movs) = sum.map();
    if !bits::contains(map_objs, need)
        || !bits::contains(map_movs, need_mov)
        || !holds_properties(map_objs, need_any)
    {
        return;
    }
    let row = &rule.rows[r];
    let ellipses = rule.ellipses[r];
    let len = row.len() - usize::from(ellipses);
    let (w, h) = (board.width, board.height);
    let bounds = start_bounds(rule.direction, len, w, h);
    let anchor = rule.anchors.get(r).copied().flatten();
    if let (1, 1, 0, Some(Some(cells)), Some(anchor)) =
        (so, sm, ellipses, rule.narrow_rows.get(r), anchor)
    {
        // The common row of a game like Sokoban: plain words, no ellipsis,
        // starts given by the moving cells. Matched without the scan's setup.
        if board.moving.len() * 4 <= w * h {
            narrow_anchored_matches(board, rule.direction, anchor, cells, bounds, out, starts);
            return;
        }
    }
    let start = Start::of(g, board, rule, r);
    let (first, start_d) = (start.first, start.d);
    let horizontal = rule.direction > 2;
    let visit = |x: usize, y: usize, out: &mut Vec<RowMatch>| start.visit(x, y, out);
    if let Some(anchor) = anchor {
        // Few cells move: their positions give the only possible starts.
        if board.moving.len() * 4 <= w * h {
            // Only the moving cells that may hold what the anchor cell needs.
            let test = rule.anchor_tests.get(r).copied().unwrap_or_default();
            let keep = |i: usize| test.admits(&board.objects, &board.movements, (so, sm), i);
            anchored_starts(board, rule.direction, anchor, bounds, starts, keep);
            // With `lines`, the starts on those lines alone.
            let line = |x: usize, y: usize| if horizontal { y } else { x };
            for &(_, x, y) in starts.iter() {
                if lines.is_none_or(|l| bits::get(l, line(x, y))) {
                    visit(x, y, out);
                }
            }
            return;
        }
    }
    let (xmin, xmax, ymin, ymax) = bounds;
    // Most cells of a scanned line fail the first cell's test: on one-word
    // boards it runs inline here, and only the cells that pass are visited.
    let plain = |p: &CellPattern| sm == 1 || mp_free(p);
    // The cell tested first is the first one that needs something present
    // (`[ | marker | ... ]` visits only the cells after a marker, not every
    // cell), `step` cells from the start: one before any ellipsis, so that
    // it lies on the line at a fixed distance.
    let (first, probe_step) = match rule.row_tests[r].probe {
        Some(c) => (cell(row, c as usize), c as usize),
        None => (first, 0),
    };
    let probe_at = |start: usize| (start as isize + probe_step as isize * start_d) as usize;
    let quick = match (first.filter(|p| plain(p)).and_then(|p| p.narrow), so) {
        // With the first of its properties (zero: none).
        (Some(masks), 1) => Quick::Narrow(
            masks,
            first
                .and_then(|p| p.any_present.first())
                .and_then(|any| any.first().copied())
                .unwrap_or(0),
        ),
        // On wider boards, the first word the first cell tests, else the
        // first of its properties when it lies in one word.
        _ => match first.map(|p| (p.tests.first(), p.any_words.first().map(|a| &a[..]))) {
            Some((Some(&t), _)) => Quick::Word(t),
            Some((None, Some(&[(w, m)]))) => Quick::Any(w as usize, m),
            _ => Quick::None,
        },
    };
    // A row of one cell whose quick test is all of its test (its plain
    // masks and at most one property): a cell that passes is a match,
    // without visiting it (a layer cleared over the whole board, `[ wall ]
    // -> [ ]`, passes at hundreds of cells).
    let exact = match quick {
        Quick::Narrow(_, any) => {
            row.len() == 1
                && first.is_some_and(|p| match &p.any_present[..] {
                    [] => true,
                    [_] => any != 0,
                    _ => false,
                })
        }
        _ => false,
    };
    // The cells of a line: `count` cells from `from`, `stride` apart, each
    // with its column and row.
    let scan =
        |from: (usize, usize), step: (usize, usize), count: usize, out: &mut Vec<RowMatch>| {
            let stride = step.0 * h + step.1;
            let start = from.0 * h + from.1;
            let at = |k: usize| (from.0 + k * step.0, from.1 + k * step.1);
            let start = probe_at(start);
            match quick {
                Quick::Narrow([op, om, mp, mm], any) => {
                    // The words read through slices held in registers.
                    let (objs, movs) = (&board.objects[..], &board.movements[..]);
                    let mut idx = start;
                    for k in 0..count {
                        let o = objs.get(idx).copied().unwrap_or(0);
                        if o & op == op
                            && o & om == 0
                            && (any == 0 || o & any != 0)
                            && (mp | mm == 0 || {
                                let m = movs.get(idx).copied().unwrap_or(0);
                                m & mp == mp && m & mm == 0
                            })
                        {
                            if exact {
                                out.push([idx, 0, 0]);
                            } else {
                                let (x, y) = at(k);
                                visit(x, y, out);
                            }
                        }
                        idx += stride;
                    }
                }
                Quick::Word(t) => {
                    let (words, per) = if t.moves {
                        (&board.movements[..], sm)
                    } else {
                        (&board.objects[..], so)
                    };
                    let mut idx = start * per + t.word as usize;
                    for k in 0..count {
                        let v = words.get(idx).copied().unwrap_or(0);
                        if v & t.present == t.present && v & t.missing == 0 {
                            let (x, y) = at(k);
                            visit(x, y, out);
                        }
                        idx += stride * per;
                    }
                }
                Quick::Any(w, m) => {
                    let objs = &board.objects[..];
                    let mut idx = start * so + w;
                    for k in 0..count {
                        if objs.get(idx).is_some_and(|&o| o & m != 0) {
                            let (x, y) = at(k);
                            visit(x, y, out);
                        }
                        idx += stride * so;
                    }
                }
                Quick::None => {
                    for k in 0..count {
                        let (x, y) = at(k);
                        visit(x, y, out);
                    }
                }
            }
        };
    // A line (a board row for horizontal rules, a column for vertical
    // ones) is scanned when it is wanted and its summary holds what the
    // row needs.
    let wanted = |line: usize| lines.is_none_or(|l| bits::get(l, line));
    let scan_line = |line: usize, out: &mut Vec<RowMatch>| {
        if horizontal {
            scan((xmin, line), (1, 0), xmax.saturating_sub(xmin), out);
        } else {
            scan((line, ymin), (0, 1), ymax.saturating_sub(ymin), out);
        }
    };
    // The lines a scan may cross: board rows for horizontal rules, columns
    // for vertical ones, and where their summaries start among the lines'.
    let (range, first_unit) = if horizontal {
        (ymin..ymax, 0)
    } else {
        (xmin..xmax, h)
    };
    if so == 1 && (sm == 1 || bits::is_zero(need_mov)) {
        // Where objects take one word, and movements too or the row needs
        // none, each line's summary is tested on its words as such: a rule
        // of a wide board tests every line of it, and through slices the
        // test cost more than the scan of a line it rejects. (A property
        // of one-word objects is one word.)
        let (need, need_mov, plain) = (word(need), word(need_mov), need_any.is_empty());
        let admits = |o: u64, m: u64| {
            o & need == need
                && m & need_mov == need_mov
                && (plain || need_any.iter().all(|p| p.iter().any(|&(_, b)| o & b != 0)))
        };
        let skip = first_unit + range.start;
        if sm == 1 {
            for (line, unit) in range.zip(sum.lines().chunks_exact(2).skip(skip)) {
                if admits(unit[0], unit[1]) && wanted(line) {
                    scan_line(line, out);
                }
            }
        } else {
            for (line, unit) in range.zip(sum.lines().chunks_exact(1 + sm).skip(skip)) {
                if admits(unit[0], 0) && wanted(line) {
                    scan_line(line, out);
                }
            }
        }
        return;
    }
    let admits = |(objs, movs): (&[u64], &[u64])| {
        bits::contains(objs, need)
            && bits::contains(movs, need_mov)
            && holds_properties(objs, need_any)
    };
    for line in range.filter(|&line| wanted(line) && admits(sum.line(first_unit + line))) {
        scan_line(line, out);
    }
}

/// The first word of `words`, zero when there is none.
#[inline(always)]
fn word(words: &[u64]) -> u64 {
    words.first().copied().unwrap_or(0)
}

/// True when `objs` (a summary's objects) hold some object of each of the
/// properties `props`: else no cell under that summary satisfies them all.
#[inline(always)]
fn holds_properties(objs: &[u64], props: &[WordBits]) -> bool {
    props.iter().all(|p| {
        p.iter()
            .any(|&(w, m)| objs.get(w as usize).is_some_and(|o| o & m != 0))
    })
}

/// The test a scan runs inline on each cell of a line before visiting it:
/// a necessary condition of the row's first cell.
#[derive(Clone, Copy)]
enum Quick {
    /// The narrow masks of the first cell (objects present and missing,
    /// movements present and missing) and the first of the cell's
    /// properties, of which some object must be present (zero: none), on
    /// one-word boards.
    Narrow([u64; 4], u64),
    /// One word test of the first cell (wider boards).
    Word(WordTest),
    /// The word and bits of the first cell's first property, when the cell
    /// tests nothing else and the property lies in one word (wider boards).
    Any(usize, u64),
    /// No test (the first cell tests nothing but properties).
    None,
}

/// False when the board lacks an object or movement the rule needs
/// (kept small so that callers test it before the search itself).
#[inline(always)]
pub(super) fn may_match(board: &Board, rule: &Rule) -> bool {
    let (map_objs, map_movs) = board.summary.map();
    bits::contains(map_objs, &rule.rule_mask)
        && bits::contains(map_movs, &rule.rule_move_mask)
        && holds_properties(map_objs, &rule.rule_any)
}

/// False when `rule`'s anchored row (`Rule::anchored_row`, a row without
/// ellipsis whose cell `anchor` needs a movement) has no match on `board`:
/// then neither has the rule, and trying it would change nothing. True when
/// the row matches somewhere, and when the rule has no such row or many
/// cells move (the search then scans lines, and so would this).
///
/// Only a cell that holds a movement can match the anchor, and the board
/// lists every such cell in `moving`: each is tested against the anchor's
/// quick test, placed at its start, kept inside the board, and the whole
/// row tested there, as the anchored search (`row_matches`) does, in any
/// order and without the sorted starts, since one match is all it asks.
/// A group of hundreds of expanded rules (a crate's parts times the
/// obstacles it may meet, `[ > crate | stationary obs ]`) tries each at
/// every pass of its fixpoint, and most find no match: this answers for
/// them at the cost of a few loads a moving cell.
#[inline]
pub(super) fn anchored_row_matches(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    memo: &mut AnchorMemo,
) -> bool {
    let Some(r) = rule.anchored_row else {
        return true;
    };
    let (Some(&Some(anchor)), Some(test), Some(whole)) = (
        rule.anchors.get(r),
        rule.anchor_tests.get(r),
        rule.row_tests.get(r).and_then(|t| t.stretches.first()),
    ) else {
        return true;
    };
    let (w, h) = (board.width, board.height);
    if board.moving.len() * 4 > w * h {
        return true;
    }
    let len = rule.rows[r].len();
    let (xmin, xmax, ymin, ymax) = start_bounds(rule.direction, len, w, h);
    let d = delta(rule.direction, h);
    let sizes = (g.obj_words, g.mov_words);
    let (objects, movements) = (&board.objects[..], &board.movements[..]);
    memo.cells(board, sizes, rule.anchor_class, test)
        .iter()
        .any(|&i| {
            let (x, y) = place(rule.direction, anchor, board.xy(i));
            (xmin..xmax).contains(&x)
                && (ymin..ymax).contains(&y)
                && whole.matches(objects, movements, sizes, x * h + y, d)
        })
}

/// The moving cells that pass each anchor test (`Rule::anchor_class`),
/// kept while the board stays as it was: a group's loop tries hundreds of
/// expanded rules between two changes of the board, and the rules of one
/// anchor (a crate's part moving one way, against each obstacle it may
/// meet) found the same cells each time. The owner says when the board
/// may have changed ([`AnchorMemo::forget`]); an entry is used only for the
/// test it was made for, so that a class shared by mistake costs a search,
/// never a wrong answer.
#[derive(Clone, Debug, Default)]
pub struct AnchorMemo {
    /// The board's number: bumped by every possible change.
    version: u64,
    /// Per class: the version and test of the entry, and its cells.
    entries: Vec<(u64, AnchorTest, Vec<usize>)>,
}

impl AnchorMemo {
    /// Forgets every entry: the board may have changed.
    #[inline(always)]
    pub fn forget(&mut self) {
        self.version += 1;
    }

    /// The moving cells of `board` that pass `test` (in the moving list's
    /// order), from the entry of `class` when it was made for this test on
    /// this board.
    #[inline]
    fn cells(
        &mut self,
        board: &Board,
        sizes: (usize, usize),
        class: u32,
        test: &AnchorTest,
    ) -> &[usize] {
        let class = class as usize;
        if self.entries.len() <= class {
            self.entries
                .resize_with(class + 1, || (0, AnchorTest::default(), Vec::new()));
        }
        // Entries are stamped one past the board's number, so that a new
        // entry (stamped zero) never reads as current.
        let version = self.version + 1;
        let entry = &mut self.entries[class];
        if entry.0 != version || entry.1 != *test {
            let (objects, movements) = (&board.objects[..], &board.movements[..]);
            entry.2.clear();
            entry.2.extend(
                board
                    .moving
                    .iter()
                    .copied()
                    .filter(|&i| test.admits(objects, movements, sizes, i)),
            );
            (entry.0, entry.1) = (version, *test);
        }
        &entry.2
    }
}

/// Fills `rows` with the matches of every row; false when a row has none.
pub fn find_matches(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    rows: &mut Vec<Vec<RowMatch>>,
    starts: &mut Starts,
) -> bool {
    if !may_match(board, rule) {
        return false;
    }
    if rows.len() < rule.rows.len() {
        rows.resize_with(rule.rows.len(), Vec::new);
    }
    for r in 0..rule.rows.len() {
        row_matches(g, board, rule, r, &mut rows[r], starts, None);
        if rows[r].is_empty() {
            return false;
        }
    }
    true
}

/// [`find_matches`] with the matches of row `known` already in `rows` (all
/// of them: a row recorded as matching nowhere, searched near the writes
/// since, `super::NoMatch`): the other rows alone are searched.
pub(super) fn find_matches_but(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    rows: &mut Vec<Vec<RowMatch>>,
    starts: &mut Starts,
    known: usize,
) -> bool {
    if rows.len() < rule.rows.len() {
        rows.resize_with(rule.rows.len(), Vec::new);
    }
    for r in (0..rule.rows.len()).filter(|&r| r != known) {
        let out = &mut rows[r];
        row_matches(g, board, rule, r, out, starts, None);
        if out.is_empty() {
            return false;
        }
    }
    true
}

/// True when a full search of `rule` on `board` can find no more matches
/// than [`super::MAX_COMBINATIONS`] (one row: one match a start, or one a
/// gap of each ellipsis), so that leaving out the matches that change
/// nothing cannot hide an overrun the full search would report.
pub(super) fn matches_within_bound(board: &Board, rule: &Rule) -> bool {
    let side = board.width.max(board.height).max(1);
    let gaps = rule.ellipses.first().copied().unwrap_or(0);
    (0..gaps)
        .try_fold(board.cells(), |n, _| n.checked_mul(side))
        .is_some_and(|n| n <= super::MAX_COMBINATIONS)
}

/// True when row `r` of `rule`, recorded as matching nowhere on an earlier
/// board, matches on a line through one of `cells`, the cells written since
/// (the only lines where the board changed, see [`super::NoMatch`]); a row
/// anchored on fewer moving cells than that is searched whole.
pub(super) fn matches_near_writes(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    cells: &[usize],
    scratch: &mut Scratch,
) -> bool {
    if cells.is_empty() {
        return false;
    }
    if scratch.rows.len() <= r {
        scratch.rows.resize_with(r + 1, Vec::new);
    }
    let anchored = rule.anchors.get(r).copied().flatten().is_some()
        && board.moving.len() * 4 <= board.cells()
        && cells.len() * rule.rows[r].len() > board.moving.len();
    if anchored {
        // A row anchored on the moving cells places each of them, fewer
        // than the cells written since: its whole search costs less than
        // finding the lines through those cells. Away from those lines, a
        // row recorded as matching nowhere still matches nowhere, and one
        // recorded with its matches applied finds only matches that change
        // nothing (see `NoMatch`), so the answer and the writes are the same.
        let out = &mut scratch.rows[r];
        row_matches(g, board, rule, r, out, &mut scratch.starts, None);
        return !out.is_empty();
    }
    if rule.ellipses[r] == 0 && cells.len() * rule.rows[r].len() <= FEW_STARTS {
        // Few cells written, a short row: the starts that cover them,
        // tested one by one, cost less than marking their lines and the
        // scan's setup (a flood's rules searched after each pass's few
        // writes).
        let out = &mut scratch.rows[r];
        row_matches_covering_few(g, board, rule, r, cells, out);
        return !out.is_empty();
    }
    let horizontal = rule.direction > 2;
    let count = if horizontal {
        board.height
    } else {
        board.width
    };
    let lines = &mut scratch.no_match.lines;
    lines.clear();
    lines.resize(count.div_ceil(64), 0);
    let mut crossed = 0;
    for &i in cells {
        let (x, y) = board.xy(i);
        let line = if horizontal { y } else { x };
        if line < count && !bits::get(lines, line) {
            bits::set(lines, line);
            crossed += 1;
        }
    }
    let out = &mut scratch.rows[r];
    let len = rule.rows[r].len();
    let line_cells = if horizontal {
        board.width
    } else {
        board.height
    };
    // A match that covers none of the cells finds the cells it found before
    // (see `NoMatch`): without ellipsis, the starts that put some cell of
    // the row on a written cell are the only ones to try, cheaper than the
    // lines through them when few cells were written. (The cost of a start
    // tried, its sort included, is taken as five cells of a line scanned:
    // of 1, 2, 3, 5 and 8, three and five gave the fewest instructions over
    // the floods of the slow games of the reference bench, and three cost
    // Atlas Shrank 6%, whose line scans are cheap.)
    if rule.ellipses[r] == 0 && cells.len() * len * 5 <= crossed * line_cells {
        // The lines are decided; their words now mark the starts.
        row_matches_covering(g, board, rule, r, cells, out, lines);
    } else {
        row_matches(
            g,
            board,
            rule,
            r,
            out,
            &mut scratch.starts,
            Some(lines.as_slice()),
        );
    }
    !out.is_empty()
}

/// The most starts (written cells times the row's cells) for which
/// [`matches_near_writes`] tests each start that covers a written cell on
/// its own ([`row_matches_covering_few`]).
const FEW_STARTS: usize = 16;

/// [`row_matches_covering`] for at most [`FEW_STARTS`] starts (`cells`
/// times the row's cells): the starts kept on the stack with their keys in
/// scan order, sorted, and each tried once by the row's flat tests, without
/// the scan's setup nor a bit per start of the board. The same matches in
/// the same order (starts past the limit would be left out: callers keep
/// to it).
pub(super) fn row_matches_covering_few(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    cells: &[usize],
    out: &mut Vec<RowMatch>,
) {
    out.clear();
    debug_assert!(
        cells.len() * rule.rows[r].len() <= FEW_STARTS,
        "more starts than the stack holds: some would be left out"
    );
    let Some(whole) = rule.row_tests.get(r).and_then(|t| t.stretches.first()) else {
        return;
    };
    let (w, h) = (board.width, board.height);
    let len = rule.rows[r].len();
    let (xmin, xmax, ymin, ymax) = start_bounds(rule.direction, len, w, h);
    let horizontal = rule.direction > 2;
    // Each start as its key in scan order (row by row for horizontal rules,
    // column by column for vertical ones) and its cell.
    let mut starts = [(0usize, 0usize); FEW_STARTS];
    let mut n = 0;
    for &i in cells {
        let xy = board.xy(i);
        for k in 0..len {
            let (x, y) = place(rule.direction, k, xy);
            if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
                let key = if horizontal { y * w + x } else { x * h + y };
                if let Some(slot) = starts.get_mut(n) {
                    *slot = (key, x * h + y);
                    n += 1;
                }
            }
        }
    }
    let starts = &mut starts[..n];
    starts.sort_unstable();
    let d = delta(rule.direction, h);
    let sizes = (g.obj_words, g.mov_words);
    let mut last = None;
    for &(key, i) in starts.iter() {
        if last == Some(key) {
            continue;
        }
        last = Some(key);
        if whole.matches(&board.objects, &board.movements, sizes, i, d) {
            out.push([i, 0, 0]);
        }
    }
}

/// Collects the matches of row `r` of `rule` (a row without ellipsis) that
/// cover one of `cells`, in the reference's scan order: each cell of the
/// row placed on each of `cells` gives a start, and the starts, without
/// repeats, are tried as a scan would try them. `seen` is scratch for a bit
/// per start, keyed in scan order (row by row for horizontal rules, column
/// by column for vertical ones), so that walking its set bits visits the
/// starts sorted: cheaper than sorting them when many cells were written.
pub(super) fn row_matches_covering(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    cells: &[usize],
    out: &mut Vec<RowMatch>,
    seen: &mut Vec<u64>,
) {
    out.clear();
    let (map_objs, map_movs) = board.summary.map();
    if !bits::contains(map_objs, &rule.row_masks[r])
        || !bits::contains(map_movs, &rule.row_move_masks[r])
        || !holds_properties(map_objs, &rule.row_any[r])
    {
        return;
    }
    let start = Start::of(g, board, rule, r);
    let (w, h) = (board.width, board.height);
    let (xmin, xmax, ymin, ymax) = start_bounds(rule.direction, start.len, w, h);
    let horizontal = rule.direction > 2;
    seen.clear();
    seen.resize((w * h).div_ceil(64), 0);
    for &i in cells {
        for k in 0..start.len {
            let (x, y) = anchor_start(board, rule.direction, k, i);
            if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
                bits::set(seen, if horizontal { y * w + x } else { x * h + y });
            }
        }
    }
    for (n, &word) in seen.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            let key = n * 64 + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (x, y) = if horizontal {
                (key % w, key / w)
            } else {
                (key / h, key % h)
            };
            start.visit(x, y, out);
        }
    }
}
