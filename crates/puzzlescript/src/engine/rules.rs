//! Matching rule patterns against a board and applying their replacements,
//! in the order the reference scans cells and combines row matches.

use super::row_starts::{
    anchor_start, anchored_starts, delta, narrow_anchored_matches, narrow_cells_match,
    narrow_objects_match, start_bounds, Starts,
};
use super::{Board, Chooser, RowMatch, Scratch};
use crate::bits;
use crate::compile::writes::{CellWrite, PlainWrite};
use crate::compile::{
    CellPattern, Compiled, NarrowCell, PatternCell, Replacement, Rule, RuleSet, WordBits, WordTest,
};

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

/// The cells of a plain-word row (`Rule::narrow_rows`) against the board
/// from cell `i`, each next `d` further: on boards of several movement
/// words such a row tests no movement, and its objects alone are read.
#[inline(always)]
fn plain_cells_match(board: &Board, cells: &[NarrowCell], i: isize, d: isize, sm: usize) -> bool {
    match sm {
        1 => narrow_cells_match(board, cells, i, d),
        _ => narrow_objects_match(board, cells, i, d),
    }
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

fn at(i: usize, d: isize, steps: usize) -> usize {
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

/// Calls `found` with each match of a row starting at cell `i` (gap ranges
/// as in [`row_matches_at`]) while it returns true; false when it stopped
/// the search. Nothing is allocated, so that a re-check costs no buffer.
/// `narrow` is the row's cells as plain words (`Rule::narrow_rows`), given
/// on one-word boards only: each stretch between ellipses is then matched
/// by a straight loop.
#[allow(clippy::too_many_arguments)]
fn each_row_match_at(
    g: &Compiled,
    board: &Board,
    row: &[PatternCell],
    narrow: Option<&[NarrowCell]>,
    ellipses: u8,
    i: usize,
    d: isize,
    (k, k1, k2): ((usize, usize), (usize, usize), (usize, usize)),
    mut found: impl FnMut(RowMatch) -> bool,
) -> bool {
    let n = row.len();
    // Cells `range` of the row (ellipses counted), `shift` ellipses after
    // its start, placed from `base`: cell `c` at `base + d * (c - shift)`.
    let cells_match = |range: std::ops::Range<usize>, base: usize, shift: usize| match narrow {
        Some(cells) => {
            let (from, to) = (range.start - shift, range.end - shift);
            cells.get(from..to).is_some_and(|cs| {
                plain_cells_match(board, cs, base as isize + d * from as isize, d, g.mov_words)
            })
        }
        None => cells_match(row, range, base, d, shift, board, g),
    };
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
            for kk in k.0..k.1 {
                if cells_match(e + 1..n, at(i, d, kk), 1) && !found([i, kk, 0]) {
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
            for a in k1.0..k1.1 {
                if !cells_match(e1 + 1..e2, at(i, d, a), 1) {
                    continue;
                }
                let mut b = k2.0;
                while a + b < k.1 && b < k2.1 {
                    if cells_match(e2 + 1..n, at(i, d, a + b), 2) && !found([i, a, b]) {
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
    /// The first cell's plain words, when the board lets them decide
    /// (objects in one word, and movements in one or not tested).
    first_masks: Option<[u64; 4]>,
    /// The row as plain words, if it has that form (`Rule::narrow_rows`).
    narrow: Option<&'a [NarrowCell]>,
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
            first_masks: cell(row, 0).and_then(|p| {
                let plain = g.obj_words == 1 && (g.mov_words == 1 || mp_free(p));
                p.narrow.filter(|_| plain)
            }),
            // On boards of several movement words, a row has this form only
            // when it tests no movement (see `CellPattern::narrow`).
            narrow: match (rule.narrow_rows.get(r), g.obj_words) {
                (Some(Some(cells)), 1) => Some(cells),
                _ => None,
            },
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
        // Most candidates fail on their first cell: test it before anything
        // else, inline on one-word boards.
        if let Some(p) = self.first {
            let ok = match self.first_masks {
                Some(masks) => {
                    quick_first(board, masks, i)
                        && p.any_present.iter().all(|any| {
                            let o = board.objects.get(i).copied().unwrap_or(0);
                            any.first().is_some_and(|a| o & a != 0)
                        })
                }
                _ => cell_matches(p, board, g.obj_words, g.mov_words, i),
            };
            if !ok {
                return;
            }
        }
        if let (Some(cells), 0) = (self.narrow, self.ellipses) {
            if plain_cells_match(
                board,
                cells.get(1..).unwrap_or(&[]),
                i as isize + self.d,
                self.d,
                g.mov_words,
            ) {
                out.push([i, 0, 0]);
            }
            return;
        }
        if self.ellipses == 0 {
            if cells_match(row, 1..row.len(), i, self.d, 0, board, g) {
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
        let gaps = ((0, kmax), (0, kmax), (0, kmax));
        each_row_match_at(
            g,
            board,
            row,
            self.narrow,
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
fn row_matches(
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
            anchored_starts(board, rule.direction, anchor, bounds, starts);
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
    let (first, probe_step) = probe(row).unwrap_or((first, 0));
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
                            let (x, y) = at(k);
                            visit(x, y, out);
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
    if horizontal {
        let row_ok = |y: usize| {
            let (objs, movs) = sum.row(y);
            bits::contains(objs, need)
                && bits::contains(movs, need_mov)
                && holds_properties(objs, need_any)
        };
        let wanted = |y: usize| lines.is_none_or(|l| bits::get(l, y));
        for y in (ymin..ymax).filter(|&y| wanted(y) && row_ok(y)) {
            scan((xmin, y), (1, 0), xmax.saturating_sub(xmin), out);
        }
    } else {
        let col_ok = |x: usize| {
            let (objs, movs) = sum.col(x);
            bits::contains(objs, need)
                && bits::contains(movs, need_mov)
                && holds_properties(objs, need_any)
        };
        let wanted = |x: usize| lines.is_none_or(|l| bits::get(l, x));
        for x in (xmin..xmax).filter(|&x| wanted(x) && col_ok(x)) {
            scan((x, ymin), (0, 1), ymax.saturating_sub(ymin), out);
        }
    }
}

/// The first cell of `row` before any ellipsis that needs an object, a
/// property or a movement present, with its place in the row: most cells
/// of a board fail it, where a cell that only excludes things (or an empty
/// one) lets most pass. `None` when there is none.
fn probe(row: &[PatternCell]) -> Option<(Option<&CellPattern>, usize)> {
    let needs = |p: &CellPattern| {
        !bits::is_zero(&p.present) || !p.any_present.is_empty() || !bits::is_zero(&p.moves_present)
    };
    row.iter()
        .take_while(|c| matches!(c, PatternCell::Cell(_)))
        .enumerate()
        .find_map(|(c, cell)| match cell {
            PatternCell::Cell(p) if needs(p) => Some((Some(p), c)),
            _ => None,
        })
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
    /// The narrow masks of [`quick_first`] and the first of the cell's
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

/// The object and movement masks of a narrow first cell (present, missing,
/// moves present, moves missing) against cell `i` of a one-word board: a
/// necessary condition of [`cell_matches`], which still decides.
#[inline(always)]
fn quick_first(board: &Board, [op, om, mp, mm]: [u64; 4], i: usize) -> bool {
    let o = board.objects.get(i).copied().unwrap_or(0);
    if o & op != op || o & om != 0 {
        return false;
    }
    if mp | mm == 0 {
        return true;
    }
    let m = board.movements.get(i).copied().unwrap_or(0);
    m & mp == mp && m & mm == 0
}

/// False when the board lacks an object or movement the rule needs
/// (kept small so that callers test it before the search itself).
#[inline(always)]
fn may_match(board: &Board, rule: &Rule) -> bool {
    let (map_objs, map_movs) = board.summary.map();
    bits::contains(map_objs, &rule.rule_mask)
        && bits::contains(map_movs, &rule.rule_move_mask)
        && holds_properties(map_objs, &rule.rule_any)
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

/// Re-checks that one row match still holds.
fn still_matches(g: &Compiled, board: &Board, rule: &Rule, r: usize, m: RowMatch) -> bool {
    let d = delta(rule.direction, board.height);
    let narrow = match (rule.narrow_rows.get(r), g.obj_words) {
        (Some(Some(cells)), 1) => Some(&cells[..]),
        _ => None,
    };
    if let (Some(cells), 0) = (narrow, rule.ellipses[r]) {
        return plain_cells_match(board, cells, m[0] as isize, d, g.mov_words);
    }
    let (i, a, b) = (m[0], m[1], m[2]);
    // The reference checks exactly these gaps; with two ellipses the first
    // range bounds their sum.
    let k = if rule.ellipses[r] == 2 {
        (a + b, a + b + 1)
    } else {
        (a, a + 1)
    };
    // The first match found stops the search (false): the row still matches.
    !each_row_match_at(
        g,
        board,
        &rule.rows[r],
        narrow,
        rule.ellipses[r],
        i,
        d,
        (k, (a, a + 1), (b, b + 1)),
        |_| false,
    )
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
fn write_plain(board: &mut Board, so: usize, sm: usize, w: PlainWrite, i: usize) -> bool {
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
    // movement in another word means the cell is listed already).
    if new_m != 0 {
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
            bits::mov_or(mclear, layer, 0x1f);
        }
    }
    if !bits::is_zero(&rep.random_dirs) {
        for layer in 0..g.names.layer_count {
            if bits::mov_get(&rep.random_dirs, layer) & 1 != 0 {
                let dir = chooser.choose_for(4, rule.line);
                bits::mov_or(mset, layer, 1 << dir);
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
        for layer in 0..g.names.layer_count {
            let (lw, shift) = bits::mov_pos(layer);
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
fn combinations(
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

/// Tries a rule everywhere; true when the board changed.
fn try_apply(
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
    if recorded {
        // A record made in this turn names fewer cells written since than
        // the prepared board's (see `NoMatch::turn_row`).
        let since = match scratch.no_match.turn_row(rule.index, epoch, now) {
            Some((r, at)) => Some((r, board.log.get(at..).unwrap_or(&[]))),
            None => known.map(|r| (r, &board.touched[..])),
        };
        if let Some((r, cells)) = since {
            if !matches_near_writes(g, board, rule, r, cells, scratch) {
                scratch.no_match.record_turn(rule.index, r, epoch, now);
                return false;
            }
            // A rule of one row has no other row to search, and its
            // matches away from the writes change nothing (`NoMatch`).
            near_enough = rule.rows.len() == 1;
        }
    }
    if !near_enough && !find_matches(g, board, rule, &mut scratch.rows, &mut scratch.starts) {
        if recorded {
            // The search stopped at the first row without a match.
            let rows = &scratch.rows[..rule.rows.len()];
            if let Some(r) = rows.iter().position(Vec::is_empty) {
                if across && known.is_none() && scratch.no_match.may_record(&board.touched) {
                    scratch.no_match.record(rule.index, r);
                }
                scratch.no_match.record_turn(rule.index, r, epoch, now);
            }
        }
        return false;
    }
    if recorded && rule.records_matches() && matches_within_bound(board, rule) {
        // Applied below, these matches leave every other line of the board
        // as it is: a later search in this turn need only look at the lines
        // written from now on (`NoMatch`, matches kept).
        scratch.no_match.record_turn(rule.index, 0, epoch, now);
    }
    let changed = rule.has_replacements && apply_matches(g, board, rule, group, scratch, chooser);
    board.queue_commands(&rule.commands);
    if changed || !rule.commands.is_empty() {
        scratch.note_fired(rule);
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

/// True when a full search of `rule` on `board` can find no more matches
/// than [`super::MAX_COMBINATIONS`] (one row: one match a start, or one a
/// gap of each ellipsis), so that leaving out the matches that change
/// nothing cannot hide an overrun the full search would report.
fn matches_within_bound(board: &Board, rule: &Rule) -> bool {
    let side = board.width.max(board.height).max(1);
    let gaps = rule.ellipses.first().copied().unwrap_or(0);
    (0..gaps)
        .try_fold(board.cells(), |n, _| n.checked_mul(side))
        .is_some_and(|n| n <= super::MAX_COMBINATIONS)
}

/// True when row `r` of `rule`, recorded as matching nowhere on an earlier
/// board, matches on a line through one of `cells`, the cells written since
/// (the only lines where the board changed, see [`super::NoMatch`]).
fn matches_near_writes(
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
    if scratch.rows.len() <= r {
        scratch.rows.resize_with(r + 1, Vec::new);
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
        row_matches_covering(g, board, rule, r, cells, out, scratch.starts.list_mut());
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

/// Collects the matches of row `r` of `rule` (a row without ellipsis) that
/// cover one of `cells`, in the reference's scan order: each cell of the
/// row placed on each of `cells` gives a start, and the starts, sorted
/// without repeats, are tried as a scan would try them.
fn row_matches_covering(
    g: &Compiled,
    board: &Board,
    rule: &Rule,
    r: usize,
    cells: &[usize],
    out: &mut Vec<RowMatch>,
    starts: &mut Vec<(usize, usize, usize)>,
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
    starts.clear();
    for &i in cells {
        for k in 0..start.len {
            let (x, y) = anchor_start(board, rule.direction, k, i);
            if (xmin..xmax).contains(&x) && (ymin..ymax).contains(&y) {
                let key = if rule.direction > 2 {
                    y * w + x
                } else {
                    x * h + y
                };
                starts.push((key, x, y));
            }
        }
    }
    starts.sort_unstable();
    starts.dedup();
    for &(_, x, y) in starts.iter() {
        start.visit(x, y, out);
    }
}

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
fn apply_group(
    g: &Compiled,
    board: &mut Board,
    rules: &[Rule],
    group: usize,
    scratch: &mut Scratch,
    chooser: &mut dyn Chooser,
) -> bool {
    if rules[0].random {
        return apply_random_group(g, board, rules, group, scratch, chooser);
    }
    let mut state = (board, scratch, chooser);
    to_fixpoint(
        &mut state,
        rules.len(),
        |(_, scratch, _)| scratch.fault.is_some(),
        |(board, scratch, chooser), k| try_apply(g, board, &rules[k], group, scratch, *chooser),
    )
}

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
    while gi < set.groups.len() && scratch.fault.is_none() {
        let is_banned = banned.is_some_and(|b| b.get(gi).copied().unwrap_or(false));
        if !is_banned {
            // Only the main rules have rigid groups, so late groups pass an index
            // past the rigid table.
            let group_id = if banned.is_some() { gi } else { usize::MAX };
            propagated |= apply_group(g, board, &set.groups[gi], group_id, scratch, chooser);
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
    use super::{
        apply_at, cell_matches, delta, each_row_match_at, find_matches, narrow_cells_match,
        row_matches, row_matches_covering, start_bounds, still_matches,
    };
    use crate::compile::PatternCell;
    use crate::engine::Board;
    use crate::engine::RowMatch;

    const GAME: &str = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
        Target\ngreen\nLEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\nT = Target\n\
        Obstacle = Wall or Crate\nSOUNDS\nCOLLISIONLAYERS\nBackground\nTarget\nPlayer, Wall, Crate\n\
        RULES\n[ > Player | Crate | no Obstacle ] -> [ > Player | > Crate | ]\n\
        [ Target no Crate | stationary Player ] -> [ Target | Player ]\n\
        late [ Crate | Obstacle ] -> [ Crate | Obstacle ]\n\
        [ > Player | ... | Crate | no Wall ] -> [ > Player | ... | > Crate | ]\n\
        late [ Target | ... | Obstacle | ... | no Player ] -> [ Target | ... | Obstacle | ... | Wall ]\n\
        WINCONDITIONS\nLEVELS\n.P.\n";

    /// Every rule of `g`, early and late, in order.
    fn every_rule(g: &crate::compile::Compiled) -> Vec<&crate::compile::Rule> {
        g.rules
            .groups
            .iter()
            .chain(&g.late_rules.groups)
            .flatten()
            .collect()
    }

    /// A xorshift generator from `seed`: the random boards' cells.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
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
        GAME.replace("Target\ngreen\n", &format!("Target\ngreen\n{objects}"))
            .replace(
                "Obstacle = Wall or Crate\n",
                &format!(
                    "Obstacle = Wall or Crate\nFar = Crate or {}\n",
                    names.last().map_or("Wall", |n| n.as_str())
                ),
            )
            .replace(
                "Target\nPlayer,",
                &format!(
                    "Target\n{}\nPlayer,",
                    names.join(if layered { "\n" } else { ", " })
                ),
            )
            .replace(
                "WINCONDITIONS",
                // The last three are scanned by a later cell than their first
                // (`probe`): the first needs nothing present.
                "late [ Far | Obstacle ] -> [ Far | Target ]\n[ Obstacle no Player | Far ] -> [ Obstacle | Far ]\n\
                 late [ no Wall | | Crate ] -> [ | | Target ]\n\
                 late [ | Far | ... | Player ] -> [ | | ... | Player ]\n\
                 [ no Player | stationary Obstacle | no Target ] -> [ | Obstacle | Target ]\nWINCONDITIONS",
            )
    }

    /// A full scan (its filters by summaries and properties, its inline
    /// first-cell tests, its plain-word rows) finds exactly the matches
    /// of trying every start with the plain matcher, in the same order, on
    /// many pseudo-random boards of one word, of several object words and
    /// of several movement words.
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
            ];
            let ids: Vec<usize> = named
                .iter()
                .filter_map(|n| g.names.objects.get(*n).map(|&(id, _)| id))
                .collect();
            let mut next = xorshift(0x1405_7b7e_f767_814f);
            let (mut tried, mut matched) = (0, 0);
            let (mut found, mut starts) = (Vec::new(), super::Starts::default());
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
                    }
                }
            }
            assert!(
                tried > 2_000 && matched > 100,
                "{tried} rows, {matched} matches"
            );
        }
    }

    /// Always picks the first option (the test rules choose nothing).
    struct First;

    impl crate::engine::Chooser for First {
        fn choose(&mut self, _n: usize) -> usize {
            0
        }
    }

    /// A rule said to keep its own matches (`Rule::keeps_own_matches`)
    /// does: applied at every combination of its matches, one after the
    /// other without re-checks, each match still holds when its turn comes,
    /// on many pseudo-random boards; and the analysis says so of floods
    /// and not of rules that remove what they match.
    #[test]
    fn rules_that_keep_their_matches_need_no_recheck() {
        let extra = "late right [ Crate no Wall | ] -> [ Crate | Crate ]\n\
            late [ Target | no Player ] -> [ Target | Target ]\n\
            [ Crate | Obstacle ] -> [ Crate | Obstacle Target ]\n\
            [ Crate | Crate ] -> [ Crate | ]\n\
            [ Target ] [ Player ] -> [ Target Player ] [ Player ]\n";
        let source = GAME.replace("WINCONDITIONS", &format!("{extra}WINCONDITIONS"));
        let g = crate::compile("t", &source).expect("compiles");
        let rules = every_rule(&g);
        let keeps = |text: &str| {
            let line = source
                .lines()
                .position(|l| l.starts_with(text))
                .map(|l| l + 1);
            let of_line: Vec<_> = rules.iter().filter(|r| Some(r.line) == line).collect();
            assert!(!of_line.is_empty(), "{text}");
            of_line.iter().all(|r| r.keeps_own_matches)
        };
        assert!(keeps("late right [ Crate no Wall"));
        assert!(keeps("late [ Target | no Player ]"));
        assert!(!keeps("[ Crate | Crate ]"));
        assert!(!keeps("[ Crate | Obstacle ]"));
        let (w, h) = (6, 5);
        let mut board = Board::empty(&g, w, h);
        let mut next = xorshift(0x0bad_5eed_1234_5678);
        let (mut rows, mut starts, mut buf) = (Vec::new(), super::Starts::default(), Vec::new());
        let mut applied = 0;
        for _ in 0..400 {
            for rule in rules.iter().filter(|r| r.keeps_own_matches) {
                for c in 0..w * h {
                    board.objects[c] = next() & next() & 0x1f;
                    board.movements[c] = next() & next() & next() & 0x7fff;
                }
                board.moving = (0..w * h).collect();
                board.summarize(1, 1);
                if !find_matches(&g, &board, rule, &mut rows, &mut starts) {
                    continue;
                }
                let found = &rows[..rule.rows.len()];
                let total: usize = found.iter().map(Vec::len).product();
                for t in 0..total {
                    let mut rest = t;
                    let tuple: Vec<RowMatch> = found
                        .iter()
                        .map(|row| {
                            let m = row[rest % row.len()];
                            rest /= row.len();
                            m
                        })
                        .collect();
                    for (r, &m) in tuple.iter().enumerate() {
                        assert!(still_matches(&g, &board, rule, r, m), "line {}", rule.line);
                    }
                    apply_at(&g, &mut board, rule, 0, &tuple, false, &mut buf, &mut First);
                    applied += 1;
                }
            }
        }
        assert!(applied > 1_000, "{applied} matches applied");
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
        let (mut tried, mut matched) = (0, 0);
        let (mut all, mut near, mut starts) = (Vec::new(), Vec::new(), super::Starts::default());
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
                    row_matches_covering(&g, &board, rule, r, &cells, &mut near, starts.list_mut());
                    assert_eq!(near, all, "rule on line {}", rule.line);
                    tried += 1;
                    matched += all.len();
                }
            }
        }
        assert!(
            tried > 2_000 && matched > 100,
            "{tried} rows, {matched} matches"
        );
    }

    /// A row with ellipses matched stretch by stretch on plain words finds
    /// the same matches, gaps included, as its patterns.
    #[test]
    fn narrow_rows_with_ellipses_match_as_their_patterns() {
        let g = crate::compile("t", GAME).expect("compiles");
        let (w, h) = (6, 5);
        let mut board = Board::empty(&g, w, h);
        let mut rules = every_rule(&g);
        rules.retain(|r| r.ellipses.iter().any(|&e| e > 0));
        assert!(rules.iter().any(|r| r.ellipses.contains(&2)));
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let (mut tried, mut matched) = (0, 0);
        for _ in 0..300 {
            for c in 0..w * h {
                board.objects[c] = next() & next() & 0x1f;
                board.movements[c] = next() & next() & 0x7fff;
            }
            for rule in &rules {
                let d = delta(rule.direction, h);
                for (r, row) in rule.rows.iter().enumerate() {
                    let e = rule.ellipses[r];
                    let Some(cells) = rule.narrow_rows[r].as_deref() else {
                        continue;
                    };
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
                            each_row_match_at(&g, &board, row, narrow, e, start, d, gaps, |m| {
                                out.push(m);
                                true
                            });
                            out
                        };
                        let generic = found(None);
                        assert_eq!(found(Some(cells)), generic);
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
