//! Direct turns: the whole turn of a game whose rules are all narrow
//! (`compile::NarrowRule`: one row anchored on a movement, plain-word
//! masks) on a one-word board, without rigid or late rules, random
//! choices, loop points or commands, run as one function.
//!
//! Such a turn is the input's movement, each group's rules to a fixpoint,
//! and movement resolution; nothing else can happen (no command can cancel,
//! restart, win or ask for `again`). The general turn ([`super::turn::run`])
//! copies the prepared summaries into the board, summarises the movements,
//! dispatches every rule through the group loop of [`super::rules`] and its
//! summary prefilter, and keeps the summaries up to date at each write. Here
//! the prefilter is two words carried in registers: the objects of the
//! prepared board ORed with every object written since, and the movements
//! written since (supersets of what the board holds, which is all a
//! prefilter needs). The matches and writes are [`super::narrow_rule`]'s, in
//! the same order, so the board, the written cells and the fired record come
//! out as the general path's (`tests/it/direct_turns.rs` compares the
//! successors of both on the conformance games).
//!
//! Most turns of a block-pushing game move a lone player without pushing:
//! [`walk`] tests the rules at the player's row first and, when none
//! matches, answers the turn as the player's step or block without writing
//! the board ([`run`] then does not run).

use super::narrow_rule::{anchored_matches, write_matches};
use super::row_starts::narrow_cells_match;
use super::rules::to_fixpoint;
use super::{Board, Overrun, Scratch, MAX_COMBINATIONS};
use crate::bits;
use crate::compile::{Compiled, Rule};

/// True when every turn of `g` can run as a direct turn (see the module's
/// documentation): one word of objects and of movements, no rigid or late
/// rules, no loop points, and every rule narrow, not random and without
/// commands.
pub fn applies(g: &Compiled) -> bool {
    g.obj_words == 1
        && g.mov_words == 1
        && g.rigid_groups.is_empty()
        && g.late_rules.groups.is_empty()
        && g.rules.loop_point.iter().all(Option::is_none)
        && g.rules.groups.iter().flatten().all(|r| {
            r.narrow.is_some() && !r.random && r.commands.is_empty() && !has_random_writes(r)
        })
}

/// One move of movement resolution: the objects of one layer that left
/// cell `from` for cell `to`. A direct turn lists its moves in order
/// ([`Scratch::shifts`]), so that the encoder can move a position list's
/// entries instead of comparing the written cells with the prepared state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shift {
    /// The cell the objects left.
    pub from: u32,
    /// The cell they reached.
    pub to: u32,
    /// The objects that moved.
    pub objects: u64,
}

/// What a direct turn reads of the game besides its rules, in flat tables.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Per object id, the shift of its layer's movement in a cell's word
    /// (zero for a layer that never moves, which no direction reaches).
    shift: Vec<u32>,
    /// Per movement slot (`MoveSlots`), the objects of its layer.
    layer_mask: Vec<u64>,
    /// The player objects.
    pub player_mask: u64,
    /// True when a player is all of `player_mask` (an aggregate), not any.
    pub aggregate: bool,
    /// Per group, per rule, where its row lies around a lone moving cell.
    lone: Vec<Vec<Lone>>,
    /// Per cell, the cell one step up, down, left and right (`u32::MAX`
    /// off the board): a movement's target is one load, not a branch per
    /// direction or a table built on the stack.
    next: Vec<[u32; 4]>,
    /// The tests of [`walk`]: every rule with replacements, in one flat
    /// table (the rules themselves are large, their fields far apart).
    walk_tests: Vec<WalkTest>,
}

/// What [`walk`] tests of one rule with replacements: its prefilter, the
/// placement of its row around a lone moving cell, and the row's cells.
#[derive(Clone, Debug)]
struct WalkTest {
    /// The objects the rule needs somewhere.
    objects: u64,
    /// The movements it needs somewhere.
    movements: u64,
    /// Where its row lies around the moving cell.
    lone: Lone,
    /// The row's cells.
    cells: Box<[crate::compile::NarrowCell]>,
}

/// Where a narrow rule's row lies when its anchor is on a given cell, on a
/// board of known size: the search of a turn with one moving cell (a lone
/// player) is then a bounds test on one coordinate and the test of the
/// row's cells, the same start `row_starts::narrow_anchored_matches` finds.
#[derive(Clone, Debug, Default)]
struct Lone {
    /// True when the row runs along a column (up or down).
    vertical: bool,
    /// Cells of the row before the anchor's coordinate, along the row's
    /// axis, in increasing coordinates.
    back: usize,
    /// Cells of the row after it.
    ahead: usize,
    /// The index step of one cell of the row.
    step: isize,
    /// The anchor's index minus the row's first cell's.
    offset: isize,
}

impl Lone {
    /// The placement of `rule`'s row (narrow form `plan`) on a board of
    /// `height` rows, as `row_starts::start_bounds` and `anchor_start` place it.
    fn new(rule: &Rule, plan: &super::super::compile::NarrowRule, height: usize) -> Lone {
        let reach = plan.cells.len().saturating_sub(1);
        let anchor = plan.anchor.min(reach);
        let step = super::row_starts::delta(rule.direction, height);
        // Up and left run towards lower coordinates.
        let (back, ahead) = match rule.direction {
            1 | 4 => (reach - anchor, anchor),
            _ => (anchor, reach - anchor),
        };
        Lone {
            vertical: matches!(rule.direction, 1 | 2),
            back,
            ahead,
            step,
            offset: anchor as isize * step,
        }
    }
}

impl Plan {
    /// The plan of `g` on a board of `width` columns and `height` rows,
    /// when its turns can run as direct turns ([`applies`]).
    pub fn new(g: &Compiled, width: usize, height: usize) -> Option<Plan> {
        if !applies(g) || u32::try_from(width * height).is_err() {
            return None;
        }
        let cell = |ok: bool, i: usize| if ok { i as u32 } else { u32::MAX };
        let next = (0..width)
            .flat_map(|x| (0..height).map(move |y| (x, y)))
            .map(|(x, y)| {
                let i = x * height + y;
                [
                    cell(y > 0, i.wrapping_sub(1)),
                    cell(y + 1 < height, i + 1),
                    cell(x > 0, i.wrapping_sub(height)),
                    cell(x + 1 < width, i + height),
                ]
            })
            .collect();
        let names = &g.names;
        Some(Plan {
            // One word of movements: every field is in it (at most
            // `bits::LAYERS_PER_WORD` layers that move).
            shift: names
                .id_layer
                .iter()
                .map(|&l| names.move_slots.slot(l).map_or(0, |s| s as u32 * 5))
                .collect(),
            layer_mask: names
                .move_slots
                .movable()
                .map(|s| {
                    names
                        .move_slots
                        .layer(s)
                        .and_then(|l| names.layer_masks.get(l))
                })
                .map(|m| m.and_then(|m| m.first()).copied().unwrap_or(0))
                .collect(),
            player_mask: names.player_mask.first().copied().unwrap_or(0),
            aggregate: names.player_aggregate,
            lone: g
                .rules
                .groups
                .iter()
                .map(|group| {
                    group
                        .iter()
                        .map(|r| match &r.narrow {
                            Some(plan) => Lone::new(r, plan, height),
                            None => Lone::default(),
                        })
                        .collect()
                })
                .collect(),
            next,
            walk_tests: walk_tests(g, height),
        })
    }

    /// True when a cell of objects `o` holds a player.
    #[inline(always)]
    pub fn is_player(&self, o: u64) -> bool {
        let hit = o & self.player_mask;
        hit != 0 && (!self.aggregate || hit == self.player_mask)
    }
}

/// The tests of [`walk`] for the rules of `g` on a board of `height` rows:
/// the narrow rules with replacements (the others write nothing), in order.
fn walk_tests(g: &Compiled, height: usize) -> Vec<WalkTest> {
    let rules = g.rules.groups.iter().flatten();
    rules
        .filter(|r| r.has_replacements)
        .filter_map(|r| {
            let plan = r.narrow.as_ref()?;
            Some(WalkTest {
                objects: plan.objects,
                movements: plan.movements,
                lone: Lone::new(r, plan, height),
                cells: plan.cells.clone(),
            })
        })
        .collect()
}

/// True when a replacement of `rule` draws a random object or direction.
fn has_random_writes(rule: &Rule) -> bool {
    rule.rows.iter().flatten().any(|c| match c {
        crate::compile::PatternCell::Cell(p) => p
            .replacement
            .as_ref()
            .is_some_and(|r| !bits::is_zero(&r.random_objects) || !bits::is_zero(&r.random_dirs)),
        crate::compile::PatternCell::Ellipsis => false,
    })
}

/// Runs one direct turn on `board`, which holds a prepared state (no
/// movement anywhere, `moving` empty) whose players are `players` and whose
/// objects, ORed over the board, are `objects`. `dir` is the input's
/// movement bit. Returns false when `require_player_movement` cancels the
/// turn (the caller restores the board), as [`super::turn::run`] does.
pub fn run(
    g: &Compiled,
    plan: &Plan,
    board: &mut Board,
    dir: Option<u64>,
    players: &[usize],
    objects: u64,
    scratch: &mut Scratch,
) -> bool {
    scratch.shifts.clear();
    let mut movements = 0u64;
    if let Some(dir) = dir {
        movements = move_players(plan, board, dir & 0x1f, players);
    }
    let mut seen = (objects, movements);
    for (group, lone) in g.rules.groups.iter().zip(&plan.lone) {
        if scratch.fault.is_some() {
            break;
        }
        run_group(board, group, lone, &mut seen, scratch);
    }
    resolve(plan, board, &mut scratch.shifts);
    if dir.is_some() && g.flags.require_player_movement && !players.is_empty() {
        let mask = plan.player_mask;
        return players
            .iter()
            .any(|&p| board.objects.get(p).is_some_and(|&o| o & mask == 0));
    }
    true
}

/// What a lone player's move comes to when no rule can match it ([`walk`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// A rule may match (or the move is not a plain step of one layer):
    /// the turn must run ([`run`]).
    Turn,
    /// No rule matches and the player's layer cannot go: nothing moves.
    Blocked,
    /// No rule matches and the player's layer goes one step: this move.
    Moved(Shift),
}

/// What the walks from one prepared state share: its lone player's cell,
/// and the layer that a step of the player moves ([`walk`]).
#[derive(Clone, Copy, Debug)]
pub struct Walker {
    /// The player's cell.
    player: usize,
    /// Its column and row.
    xy: (usize, usize),
    /// The objects on the player's cell.
    here: u64,
    /// The shift of the player's layer in a movement word.
    shift: u32,
    /// The objects of the player's layer.
    mask: u64,
}

impl Walker {
    /// The walker of the prepared `board` whose only player stands on cell
    /// `player`; `None` when the player's objects lie on several layers
    /// (their turns then run).
    pub fn new(plan: &Plan, board: &Board, player: usize) -> Option<Walker> {
        let here = board.objects.get(player).copied()?;
        let hit = here & plan.player_mask;
        let shift = *plan.shift.get(hit.trailing_zeros() as usize)?;
        let mask = plan.layer_mask.get(shift as usize / 5).copied()?;
        (hit != 0 && hit & !mask == 0).then_some(Walker {
            player,
            xy: board.xy(player),
            here,
            shift,
            mask,
        })
    }

    /// The player's cell.
    pub fn player(&self) -> usize {
        self.player
    }

    /// The objects a step of the player moves: its layer's on its cell.
    pub fn objects(&self) -> u64 {
        self.here & self.mask
    }
}

/// The turn of input `dir` on a prepared board (no movement anywhere) whose
/// only player is `walker`'s, when no rule matches it: then the turn is the
/// player's step alone, found here without writing the board (most turns of
/// a block-pushing game push nothing). With one moving cell, a narrow rule
/// can match only at the row its anchor places on that cell
/// (`write_rule`'s lone case): every rule with replacements (the plan's
/// flat table of them; a rule without writes nothing) is tested there, with
/// the prefilter of [`run`] (`objects` ORed over the board), against the
/// board with the player's movement set (and taken off again). When none
/// matches, no rule writes, and movement resolution moves the player's
/// layer one step unless the board's edge or an object of that layer is in
/// the way, as `resolve` does. [`Walk::Turn`] when a rule matches or `dir`
/// is no direction.
#[inline]
pub fn walk(plan: &Plan, board: &mut Board, walker: &Walker, dir: u64, objects: u64) -> Walk {
    let k = match dir {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        _ => return Walk::Turn,
    };
    let player = walker.player;
    let moving = dir << walker.shift;
    let Some(slot) = board.movements.get_mut(player) else {
        return Walk::Turn;
    };
    let was = std::mem::replace(slot, moving);
    let matched = lone_rules_match(plan, board, walker, (objects, moving));
    if let Some(slot) = board.movements.get_mut(player) {
        *slot = was;
    }
    if matched {
        return Walk::Turn;
    }
    let t = plan.next.get(player).map_or(u32::MAX, |n| n[k]);
    match board.objects.get(t as usize) {
        Some(&there) if there & walker.mask == 0 => Walk::Moved(Shift {
            from: player as u32,
            to: t,
            objects: walker.objects(),
        }),
        _ => Walk::Blocked,
    }
}

/// True when some rule with replacements, passing the prefilter of
/// `(o, m)`, matches the row its anchor places on the walker's cell.
#[inline]
fn lone_rules_match(plan: &Plan, board: &Board, walker: &Walker, (o, m): (u64, u64)) -> bool {
    let (only, (x, y)) = (walker.player, walker.xy);
    plan.walk_tests.iter().any(|t| {
        let lone = &t.lone;
        let (c, n) = match lone.vertical {
            true => (y, board.height),
            false => (x, board.width),
        };
        o & t.objects == t.objects
            && m & t.movements == t.movements
            && c >= lone.back
            && c + lone.ahead < n
            && narrow_cells_match(board, &t.cells, only as isize - lone.offset, lone.step)
    })
}

/// Sets the input's movement `dir` on the player objects of the given
/// cells (as `movement::move_players`); returns the movements set.
#[inline]
fn move_players(plan: &Plan, board: &mut Board, dir: u64, players: &[usize]) -> u64 {
    let mut all = 0;
    for &i in players {
        board.moving.push(i);
        let Some(slot) = board.movements.get_mut(i) else {
            continue;
        };
        let mut hit = board.objects.get(i).map_or(0, |o| o & plan.player_mask);
        while hit != 0 {
            let id = hit.trailing_zeros() as usize;
            hit &= hit - 1;
            *slot |= dir << plan.shift.get(id).copied().unwrap_or(0);
        }
        all |= *slot;
    }
    all
}

/// A group's rules to a fixpoint, as the general turn runs them
/// ([`to_fixpoint`]).
fn run_group(
    board: &mut Board,
    rules: &[Rule],
    lone: &[Lone],
    seen: &mut (u64, u64),
    scratch: &mut Scratch,
) {
    let mut state = (board, seen, scratch);
    to_fixpoint(
        &mut state,
        rules.len(),
        |(_, _, scratch)| scratch.fault.is_some(),
        |(board, seen, scratch), k| try_rule(board, &rules[k], &lone[k], seen, scratch),
    );
}

/// Tries one rule everywhere (`narrow_rule::try_apply` with the prefilter
/// of `seen`, the objects and movements the board may hold); true when the
/// board changed, and then the rule is noted as fired.
#[inline]
fn try_rule(
    board: &mut Board,
    rule: &Rule,
    lone: &Lone,
    seen: &mut (u64, u64),
    scratch: &mut Scratch,
) -> bool {
    let changed = write_rule(board, rule, lone, seen, scratch);
    if changed {
        scratch.note_fired(rule);
    }
    changed
}

/// Writes every match of one rule ([`try_rule`] without the firing record).
#[inline]
fn write_rule(
    board: &mut Board,
    rule: &Rule,
    lone: &Lone,
    seen: &mut (u64, u64),
    scratch: &mut Scratch,
) -> bool {
    let Some(plan) = &rule.narrow else {
        return false;
    };
    let (o, m) = *seen;
    if o & plan.objects != plan.objects || m & plan.movements != plan.movements {
        return false;
    }
    // Without replacements a match changes nothing, and records nothing
    // (direct rules have no commands).
    if !rule.has_replacements {
        return false;
    }
    if let [only] = board.moving[..] {
        // One moving cell: its row, if it lies on the board, is the only match.
        let (x, y) = board.xy(only);
        let (c, n) = match lone.vertical {
            true => (y, board.height),
            false => (x, board.width),
        };
        if c < lone.back || c + lone.ahead >= n {
            return false;
        }
        let start = only as isize - lone.offset;
        if !narrow_cells_match(board, &plan.cells, start, lone.step) {
            return false;
        }
        return write_matches(board, rule, plan, &[[start as usize, 0, 0]], widen(seen));
    }
    if board.moving.len() <= FEW {
        // A few moving cells (a push): each one's row, if it lies on the
        // board, is the only match it can anchor.
        let mut found = [[0usize; 3]; FEW];
        let n = lone_matches(board, plan, lone, &mut found);
        let Some(found) = found.get(..n).filter(|f| !f.is_empty()) else {
            return false;
        };
        return write_matches(board, rule, plan, found, widen(seen));
    }
    if scratch.rows.is_empty() {
        scratch.rows.push(Vec::new());
    }
    let (rows, starts) = (&mut scratch.rows, &mut scratch.starts);
    let Some(found) = rows.first_mut() else {
        return false;
    };
    anchored_matches(board, rule, plan, found, starts);
    if found.is_empty() || !rule.has_replacements {
        return false;
    }
    if found.len() > MAX_COMBINATIONS {
        scratch.fault.get_or_insert(Overrun {
            line: rule.line,
            combinations: found.len(),
        });
        return false;
    }
    write_matches(board, rule, plan, found, widen(seen))
}

/// What a write adds to `seen`: the objects and movements it wrote.
#[inline]
fn widen(seen: &mut (u64, u64)) -> impl FnMut(&mut Board, usize, u64, u64) + '_ {
    |_, _, o, m| {
        seen.0 |= o;
        seen.1 |= m;
    }
}

/// The most moving cells whose rows [`lone_matches`] places one by one;
/// past it, the sorted starts of `row_starts` cost less.
const FEW: usize = 4;

/// Sets `found` to the matches of a narrow rule (`plan`, placed by `lone`)
/// anchored on the board's moving cells (at most [`FEW`]): each cell's row
/// placed by a bounds test on one coordinate and tested, the matches in the
/// reference's scan order without repeats, as `row_starts::anchored_starts`
/// sorts them (rows of vertical rules by index, of horizontal ones row by
/// row); returns how many. Testing before sorting finds the same matches:
/// nothing is written until all are found.
#[inline]
fn lone_matches(
    board: &Board,
    plan: &crate::compile::NarrowRule,
    lone: &Lone,
    found: &mut [[usize; 3]; FEW],
) -> usize {
    let mut keys = [0usize; FEW];
    let mut n = 0;
    for &cell in board.moving.iter().take(FEW) {
        let (x, y) = board.xy(cell);
        let (c, len) = match lone.vertical {
            true => (y, board.height),
            false => (x, board.width),
        };
        if c < lone.back || c + lone.ahead >= len {
            continue;
        }
        let start = cell as isize - lone.offset;
        if !narrow_cells_match(board, &plan.cells, start, lone.step) {
            continue;
        }
        let start = start as usize;
        let key = match lone.vertical {
            true => start,
            false => {
                let (x, y) = board.xy(start);
                y * board.width + x
            }
        };
        // Insertion into the sorted keys, a repeat dropped.
        let mut k = n;
        while k > 0 && keys[k - 1] > key {
            k -= 1;
        }
        if k > 0 && keys[k - 1] == key {
            continue;
        }
        keys.copy_within(k..n, k + 1);
        found.copy_within(k..n, k + 1);
        keys[k] = key;
        found[k] = [start, 0, 0];
        n += 1;
    }
    n
}

/// Movement resolution (`movement::resolve_movements` without rigid marks,
/// on one word): passes over the moving cells in index order, each moving
/// every layer whose movement is free to go, until a pass moves nothing or
/// leaves no movement; then every movement is cleared. Each move is listed
/// in `shifts`, in order.
fn resolve(plan: &Plan, board: &mut Board, shifts: &mut Vec<Shift>) {
    let mut cells = std::mem::take(&mut board.moving);
    if cells.len() > 1 {
        cells.sort_unstable();
        cells.dedup();
    }
    let masks = &plan.layer_mask;
    let mut pending;
    loop {
        let mut moved = false;
        pending = false;
        for &i in &cells {
            let word = board.movements.get(i).copied().unwrap_or(0);
            if word == 0 {
                continue;
            }
            let (mut rest, mut left) = (word, word);
            while rest != 0 {
                let shift = rest.trailing_zeros() / 5 * 5;
                rest &= !(0x1f << shift);
                let dir = (word >> shift) & 0x1f;
                let mask = masks.get(shift as usize / 5).copied().unwrap_or(0);
                if move_layer(plan, board, i, mask, dir, shifts) {
                    left &= !(0x1f << shift);
                    moved = true;
                }
            }
            if let Some(m) = board.movements.get_mut(i) {
                *m = left;
            }
            pending |= left != 0;
        }
        // A pass after which no cell holds a movement would move nothing.
        if !(moved && pending) {
            break;
        }
    }
    // Movements left (blocked ones) are cleared; when none is left, every
    // cell's word is zero already.
    if pending {
        for &i in &cells {
            if let Some(m) = board.movements.get_mut(i) {
                *m = 0;
            }
        }
    }
    cells.clear();
    board.moving = cells;
}

/// Moves the objects of layer `mask` of cell `i` one step in `dir` (as
/// `movement::move_layer`: off the board or onto a cell holding that layer
/// is blocked; `action`, or any value that is not one direction, stays in
/// place, and is no move for `shifts`); false when blocked.
#[inline(always)]
fn move_layer(
    plan: &Plan,
    board: &mut Board,
    i: usize,
    mask: u64,
    dir: u64,
    shifts: &mut Vec<Shift>,
) -> bool {
    let t = match dir {
        1 | 2 | 4 | 8 => {
            // Up, down, left, right: 0, 1, 2, 3.
            let k = dir.trailing_zeros() as usize;
            match plan.next.get(i).and_then(|n| n.get(k)) {
                Some(&t) if t != u32::MAX => t as usize,
                _ => return false,
            }
        }
        _ => i,
    };
    let (Some(&there), Some(&here)) = (board.objects.get(t), board.objects.get(i)) else {
        return false;
    };
    if dir != 16 && there & mask != 0 {
        return false;
    }
    let moving = here & mask;
    board.objects[i] = here & !mask;
    board.objects[t] |= moving;
    board.touch(i);
    board.touch(t);
    if t != i {
        shifts.push(Shift {
            from: i as u32,
            to: t as u32,
            objects: moving,
        });
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{lone_matches, run, walk, Plan, Walk, Walker, FEW};
    use crate::engine::narrow_rule::anchored_matches;
    use crate::engine::row_starts::Starts;
    use crate::engine::{Board, Scratch};

    /// On boards of walls, crates, targets and one player, for each input,
    /// a walk found without the turn is the turn's outcome: a step is the
    /// turn's only move and the board it leaves, a blocked player leaves
    /// the board as it was. Pushes (the turn moves a crate) are never taken
    /// for walks; every kind of outcome occurs.
    #[test]
    fn walks_are_the_turns_they_skip() {
        let g = crate::compile(
            "t",
            "OBJECTS\nBackground\nblack\nTarget\nyellow\nWall\nbrown\nPlayer\nwhite\n\
             Crate\norange\nLEGEND\n. = Background\n# = Wall\nP = Player\n* = Crate\n\
             O = Target\nSOUNDS\nCOLLISIONLAYERS\nBackground\nTarget\nPlayer, Wall, Crate\n\
             RULES\n[ > Player | Crate ] -> [ > Player | > Crate ]\n\
             [ > Crate | Target ] -> [ > Crate | Target ]\nWINCONDITIONS\n\
             All Target on Crate\nLEVELS\n.P*O#\n",
        )
        .expect("compiles");
        let (w, h) = (6, 5);
        let plan = Plan::new(&g, w, h).expect("the rules are narrow");
        let id = |name: &str| 1u64 << g.names.objects[name].0;
        let (player, crate_, wall, target) = (id("player"), id("crate"), id("wall"), id("target"));
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut seen = [0usize; 3];
        let mut scratch = Scratch::default();
        for round in 0..500 {
            let mut board = Board::empty(&g, w, h);
            for o in board.objects.iter_mut() {
                let top = [0, 0, crate_, crate_, wall][next(5) as usize];
                *o = top | if next(3) == 0 { target } else { 0 };
            }
            let p = next((w * h) as u64) as usize;
            board.objects[p] = player | board.objects[p] & target;
            let objects = board.objects.iter().fold(0, |a, o| a | o);
            for dir in [1u64, 2, 4, 8] {
                let before = board.objects.clone();
                let walker = Walker::new(&plan, &board, p).expect("one layer");
                let found = walk(&plan, &mut board, &walker, dir, objects);
                assert_eq!(board.objects, before, "a walk writes no object");
                assert!(board.movements.iter().all(|&m| m == 0), "nor movement");
                let mut turned = board.clone();
                let kept = run(
                    &g,
                    &plan,
                    &mut turned,
                    Some(dir),
                    &[p],
                    objects,
                    &mut scratch,
                );
                assert!(kept, "no cancel in this game");
                let context = format!("round {round}, dir {dir}, {found:?}");
                match found {
                    Walk::Turn => {
                        // Only the push rule can match at a lone player.
                        seen[0] += 1;
                        let k = dir.trailing_zeros() as usize;
                        let ahead = plan.next[p][k] as usize;
                        assert!(before[ahead] & crate_ != 0, "{context}: a push runs");
                    }
                    Walk::Blocked => {
                        seen[1] += 1;
                        assert_eq!(turned.objects, before, "{context}");
                    }
                    Walk::Moved(step) => {
                        seen[2] += 1;
                        assert_eq!(scratch.shifts, [step], "{context}");
                        let mut stepped = before.clone();
                        stepped[step.from as usize] &= !step.objects;
                        stepped[step.to as usize] |= step.objects;
                        assert_eq!(turned.objects, stepped, "{context}");
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 100), "outcomes {seen:?}");
    }

    /// On boards of players and crates with two to four moving players,
    /// the rows placed one by one give the matches of the sorted starts, in
    /// the same order, for each direction of a push rule.
    #[test]
    fn rows_placed_one_by_one_match_the_sorted_starts() {
        let g = crate::compile(
            "t",
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\norange\nLEGEND\n. = Background\n\
             P = Player\n* = Crate\nSOUNDS\nCOLLISIONLAYERS\nBackground\nPlayer, Crate\nRULES\n\
             [ > Player | Crate | Crate ] -> [ > Player | > Crate | > Crate ]\n\
             WINCONDITIONS\nLEVELS\n.P*\n",
        )
        .expect("compiles");
        let (w, h) = (7, 5);
        let plan = Plan::new(&g, w, h).expect("the rule is narrow");
        let (player, crate_) = (g.names.objects["player"].0, g.names.objects["crate"].0);
        let slot = g.names.move_slots.slot(g.names.id_layer[player]);
        let shift = slot.expect("the player's layer moves") * 5;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut starts, mut found) = (Starts::default(), Vec::new());
        let mut compared = 0;
        for round in 0..400 {
            let mut board = Board::empty(&g, w, h);
            for o in board.objects.iter_mut() {
                *o = match next(4) {
                    0 => 1 << player,
                    3 => 0,
                    _ => 1 << crate_,
                };
            }
            for (k, rule) in g.rules.groups[0].iter().enumerate() {
                board.movements.iter_mut().for_each(|m| *m = 0);
                board.moving = (0..2 + next(FEW - 1)).map(|_| next(w * h)).collect();
                for &i in &board.moving {
                    // A moving player, whose row then often holds crates.
                    board.objects[i] = 1 << player;
                    board.movements[i] = u64::from(rule.direction) << shift;
                }
                let narrow = rule.narrow.as_ref().expect("narrow");
                let mut placed = [[0usize; 3]; FEW];
                let n = lone_matches(&board, narrow, &plan.lone[0][k], &mut placed);
                anchored_matches(&board, rule, narrow, &mut found, &mut starts);
                assert_eq!(&placed[..n], &found[..], "round {round}, rule {k}");
                compared += n;
            }
        }
        assert!(compared > 100, "only {compared} matches compared");
    }
}
