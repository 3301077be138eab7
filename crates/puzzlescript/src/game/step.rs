//! Expanding one (state, input) pair: the turn, the `again` chain after it,
//! and every outcome of its random choices. Each thread keeps a worker with
//! its buffers, so expansion does not allocate once they have grown.

use std::cell::RefCell;
use std::sync::atomic::Ordering;

use model::{Move, Successors};

use super::chance::{add, Enumerator};
use super::packed;
use super::positions::Entry;
use super::{chance_move, PuzzleScriptGame};
use crate::engine::movement::is_player;
use crate::engine::turn::{input_bits, run};
use crate::engine::{direct, Board, Chooser, Scratch};

/// How one turn ended.
enum Turn {
    /// Cancelled, blocked, or nothing changed.
    Unchanged,
    /// A `restart` command.
    Restart,
    /// The win conditions hold (or `win` ran).
    Won,
    /// The grid changed; true when the turn asked for `again`.
    Changed(bool),
}

/// Where a chain of turns led.
enum End {
    /// No transition.
    Nothing,
    /// The grid now on the board, won or not.
    Board(bool),
    /// The grid now on the board, not won, and known to differ from the
    /// prepared state's (its one turn found it changed).
    Changed,
    /// The level's initial state.
    Initial,
    /// An `again` chain that revisits a grid.
    Endless,
}

/// A thread's buffers for one game.
pub struct Worker {
    key: u64,
    /// Words of a cell's object set.
    so: usize,
    board: Board,
    scratch: Scratch,
    chooser: Enumerator,
    start: Vec<u64>,
    before: Vec<u64>,
    /// The grid an `again` chain is compared with to find a revisit
    /// ([`Worker::chain`]).
    mark: Vec<u64>,
    encoded: Vec<u8>,
    /// The cells of the prepared state that hold a changing object.
    cells: Vec<usize>,
    outcomes: Vec<(Vec<u8>, (u64, u64))>,
    /// The position of each outcome in `outcomes` (merging is a lookup).
    outcome_at: std::collections::HashMap<Vec<u8>, usize>,
    /// True when the prepared state satisfies the win conditions.
    start_won: bool,
    /// The prepared state's player cells, for direct turns.
    players: Vec<usize>,
    /// The objects of the prepared board ORed together, for direct turns.
    objects_seen: u64,
    /// The prepared state as one word, for a game whose states are one
    /// word of position lists (`PuzzleScriptGame::word_state`).
    state_word: u64,
    /// The prepared state's lone player, when its turns may be walks
    /// ([`direct::walk`]), and its position entry when a step rewrites
    /// that entry alone ([`super::layout::Layout::step_state`]).
    walker: Option<(direct::Walker, Option<Entry>)>,
}

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's worker for `game`.
pub fn with_worker(game: &PuzzleScriptGame, f: impl FnOnce(&mut Worker)) {
    let key = game.id;
    WORKER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|w| w.key != key) {
            *slot = Some(Worker {
                key,
                so: game.game.obj_words.max(1),
                board: {
                    // Writes are logged for the rules that records can skip:
                    // those that read no movement, and within a turn those
                    // of the general path (a game of narrow rules reading
                    // movements, like room4's, logs nothing).
                    let mut board = game.board.clone();
                    let g = &game.game;
                    let all = g.rules.groups.iter().chain(&g.late_rules.groups);
                    board.logging = game.rule_records
                        && all
                            .flatten()
                            .any(|r| !r.reads_movements || r.narrow.is_none());
                    board
                },
                scratch: {
                    // `prepare` starts each board's records, and every
                    // write of a turn goes to `touched` (see `NoMatch`).
                    let mut scratch = Scratch::default();
                    if game.rule_records {
                        scratch.no_match.enable();
                    }
                    scratch.general_rules = !game.narrow_rules;
                    scratch
                },
                chooser: Enumerator::default(),
                start: Vec::new(),
                before: Vec::new(),
                mark: Vec::new(),
                encoded: Vec::new(),
                cells: Vec::new(),
                outcomes: Vec::new(),
                outcome_at: std::collections::HashMap::new(),
                start_won: false,
                players: Vec::new(),
                objects_seen: 0,
                state_word: 0,
                walker: None,
            });
        }
        if let Some(w) = slot.as_mut() {
            f(w);
        }
    });
}

impl Worker {
    /// Decodes `state` and computes what every input's turn shares. Only
    /// the cells that hold a changing object differ from the level's
    /// template: the previous state's are put back to it, the new state's
    /// written, and the players and summaries found from them.
    pub fn prepare(&mut self, game: &PuzzleScriptGame, state: &[u8]) {
        if let Some(plan) = game.direct_plan() {
            return self.prepare_direct(game, plan, state);
        }
        let g = &*game.game;
        let so = g.obj_words;
        let template = &game.layout.template;
        if self.start.len() == template.len() {
            self.put_back();
            for &i in &self.cells {
                if so == 1 {
                    // One word: no copy call.
                    self.start[i] = template[i];
                    self.board.objects[i] = template[i];
                } else {
                    let cell = i * so..i * so + so;
                    self.start[cell.clone()].copy_from_slice(&template[cell.clone()]);
                    self.board.objects[cell.clone()].copy_from_slice(&template[cell]);
                }
            }
        } else {
            self.start.clone_from(template);
            self.board.objects.clone_from(template);
        }
        game.layout
            .decode_fields(state, &mut self.start, &mut self.cells);
        self.board.moving.clear();
        self.board.clear_touched();
        // From here on, `touched` lists every cell written since this board.
        self.scratch.no_match.new_board();
        self.scratch.memo.new_board();
        let (mut players, mut summary) = self.scratch.prepared.take().unwrap_or_default();
        players.clear();
        if game.map_summary {
            // Turns of plain-word rules read the board's summary alone.
            summary.reset_map(so, g.mov_words, self.board.height);
            summary.add_objects(0, 0, game.template_summary.map().0);
        } else {
            summary.clone_from(&game.template_summary);
        }
        for &i in &self.cells {
            let cell = i * so..i * so + so;
            if so == 1 {
                self.board.objects[i] = self.start[i];
            } else {
                self.board.objects[cell.clone()].copy_from_slice(&self.start[cell.clone()]);
            }
            let objs = &self.start[cell];
            let (x, y) = self.board.xy(i);
            summary.add_objects(x, y, objs);
            if is_player(g, objs) {
                players.push(i);
            }
        }
        self.scratch.prepared = Some((players, summary));
        // A turn whose grid satisfies the win conditions leads to a won
        // (terminal) state, so the only unwon state that can satisfy them
        // is the level's initial one (the reference does not check at load).
        self.start_won = game.initial_wins && state == game.initial.as_slice();
    }

    /// An input known to change nothing: a transition only when the
    /// unchanged grid already wins (a level's start can).
    pub fn idle_turn(
        &mut self,
        game: &PuzzleScriptGame,
        state: &[u8],
        action: u16,
        out: &mut Successors,
    ) {
        if self.start_won {
            self.encoded.clear();
            self.encoded.extend_from_slice(state);
            if let Some(b) = self.encoded.first_mut() {
                *b = 1;
            }
            let _ = game;
            out.push(Move::solo(action), &self.encoded);
        }
    }

    /// Records what expanding `state` does besides its successors: the
    /// rules that fire (one bit per rule line, into `fired`, which is
    /// cleared first) and the actions whose `again` chain never ends (into
    /// `endless`). `out` is scratch for the successors.
    pub fn probe(
        &mut self,
        game: &PuzzleScriptGame,
        state: &[u8],
        fired: &mut Vec<u64>,
        endless: &mut Vec<u16>,
        out: &mut Successors,
    ) {
        fired.clear();
        fired.resize(game.game.rule_sources.len().div_ceil(64), 0);
        self.scratch.fired = Some(std::mem::take(fired));
        self.prepare(game, state);
        for (action, &(input, _)) in game.inputs.iter().enumerate() {
            // An idle turn of such a game matches no rule: nothing fires.
            let idle = !matches!(input, Some(0..=3));
            if idle && game.idle_turns_inert {
                continue;
            }
            out.clear();
            if self.expand(game, state, action as u16, input, out) {
                endless.push(action as u16);
            }
        }
        *fired = self.scratch.fired.take().unwrap_or_default();
    }

    /// Appends the successors of the prepared state under one input; true
    /// when an `again` chain of it never ends (on some random path).
    pub fn expand(
        &mut self,
        game: &PuzzleScriptGame,
        state: &[u8],
        action: u16,
        input: Option<u8>,
        out: &mut Successors,
    ) -> bool {
        if let Some(plan) = game.direct_plan() {
            self.expand_direct(game, plan, state, action, input, out);
            return false;
        }
        if !game.chance {
            return self.expand_certain(game, state, action, input, out);
        }
        self.chooser.reset();
        self.outcomes.clear();
        self.outcome_at.clear();
        let mut paths: u64 = 0;
        // The line of the first path whose probability 32 bits cannot hold.
        let mut too_fine: Option<usize> = None;
        let mut endless = false;
        loop {
            self.chooser.rewind();
            let end = self.chain(game, input);
            let prob = self.chooser.probability();
            let random = self.chooser.chose();
            self.encoded.clear();
            if matches!(end, End::Endless) {
                if !endless {
                    game.again_loops.fetch_add(1, Ordering::Relaxed);
                }
                endless = true;
            }
            self.encode_end(game, state, end);
            if !random {
                if !self.encoded.is_empty() {
                    out.push(Move::solo(action), &self.encoded);
                }
                return endless;
            }
            // A random outcome that changes nothing stays as a self-loop, so
            // that the outcomes of the action still sum to one.
            if self.encoded.is_empty() {
                self.encoded.extend_from_slice(state);
            }
            // A probability is stored exactly as two 32-bit numbers: one that does not
            // fit is an error, never an outcome silently given probability zero. It is
            // said once every path has run, so that a turn with too many outcomes (whose
            // paths are that fine) is told about the bound it passes instead.
            match prob {
                None => {
                    too_fine.get_or_insert(self.chooser.busiest_line());
                }
                Some(p) => match self.outcome_at.get(&self.encoded) {
                    Some(&at) => self.outcomes[at].1 = add(self.outcomes[at].1, p),
                    None => {
                        self.outcome_at
                            .insert(self.encoded.clone(), self.outcomes.len());
                        self.outcomes.push((self.encoded.clone(), p));
                    }
                },
            }
            paths += 1;
            if paths >= game.max_outcomes {
                // Named before `advance` rewinds the path.
                let line = self.chooser.busiest_line();
                if self.chooser.advance() {
                    game.fail(format!(
                        "the random choices of the rule on line {line} make more than {} \
                         outcomes for one (state, input): raise the bound with --max-outcomes N, \
                         or make the random objects inert (docs/puzzlescript.md)",
                        game.max_outcomes
                    ));
                    return endless;
                }
                break;
            }
            if !self.chooser.advance() || game.stopped() {
                break;
            }
        }
        if let Some(line) = too_fine {
            game.fail(format!(
                "the random choices of the rule on line {line} give an outcome a probability \
                 whose denominator exceeds 2^32 (stores keep probabilities exactly, as 32-bit \
                 fractions): make fewer random choices a turn, or make the random objects inert \
                 (docs/puzzlescript.md)"
            ));
            return endless;
        }
        let all_loops = self.outcomes.iter().all(|(s, _)| s.as_slice() == state);
        if !all_loops {
            if self.outcomes.iter().any(|(_, p)| p.1 > u64::from(u32::MAX)) {
                let line = self.chooser.busiest_line();
                game.fail(format!(
                    "the random outcomes of the rule on line {line} sum to a probability whose \
                     denominator exceeds 2^32 (stores keep probabilities exactly, as 32-bit \
                     fractions): make fewer random choices a turn"
                ));
                return endless;
            }
            for (s, p) in &self.outcomes {
                out.push(chance_move(action, *p), s);
            }
        }
        endless
    }

    /// [`Worker::expand`] for a game without random choices: one path, no
    /// enumeration and no outcomes to merge.
    fn expand_certain(
        &mut self,
        game: &PuzzleScriptGame,
        state: &[u8],
        action: u16,
        input: Option<u8>,
        out: &mut Successors,
    ) -> bool {
        self.encoded.clear();
        let end = self.chain(game, input);
        if matches!(end, End::Endless) {
            game.again_loops.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        self.encode_end(game, state, end);
        if !self.encoded.is_empty() {
            out.push(Move::solo(action), &self.encoded);
        }
        false
    }

    /// Sets `encoded` to the successor a chain's `end` makes (left empty for
    /// no transition, which the caller handles for an endless chain).
    fn encode_end(&mut self, game: &PuzzleScriptGame, state: &[u8], end: End) {
        match end {
            End::Nothing | End::Endless => {}
            End::Initial => {
                if game.initial.as_slice() != state {
                    self.encoded.extend_from_slice(&game.initial);
                }
            }
            // A chain that comes back to the grid it started from is no
            // transition (the reference compares grids after the chain).
            End::Board(false) if self.same_as_start() => {}
            End::Board(won) => self.encode(game, state, won),
            End::Changed => self.encode(game, state, false),
        }
    }

    /// Sets `encoded` to the board's grid (`won` or not): only the cells
    /// written since `prepare` differ from `state`.
    fn encode(&mut self, game: &PuzzleScriptGame, state: &[u8], won: bool) {
        self.encoded.extend_from_slice(state);
        if let Some((outcome, fields)) = self.encoded.split_first_mut() {
            *outcome = u8::from(won);
            let objects = &self.board.objects;
            if !game
                .layout
                .reencode_cells(&self.start, objects, &self.board.touched, fields)
            {
                game.overfull.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// One input's turn and the `again` turns after it.
    fn chain(&mut self, game: &PuzzleScriptGame, input: Option<u8>) -> End {
        // Every object write since `prepare` is in `touched`.
        self.put_back();
        self.scratch.use_prepared = true;
        match self.turn(game, input, true) {
            Turn::Unchanged => return End::Nothing,
            Turn::Restart => return End::Initial,
            Turn::Won => return End::Board(true),
            // The turn compared the grid with the prepared state's already.
            Turn::Changed(false) => return End::Changed,
            Turn::Changed(true) => {}
        }
        // Brent's cycle detection: the grid is compared with one marked grid,
        // moved to the current one whenever the steps since it reach a power
        // of two. A chain that revisits a grid (turns are functions of the
        // grid) comes back to the mark within twice its length plus its loop,
        // so every endless chain is found, exactly, in memory for two grids,
        // and a chain that ends is followed to its end however long it is.
        self.mark.clone_from(&self.board.objects);
        let (mut power, mut since) = (1u64, 0u64);
        loop {
            if game.stopped() {
                return End::Nothing;
            }
            match self.turn(game, None, false) {
                Turn::Unchanged | Turn::Changed(false) => return End::Board(false),
                Turn::Restart => return End::Initial,
                Turn::Won => return End::Board(true),
                Turn::Changed(true) => {}
            }
            since += 1;
            if self.board.objects == self.mark {
                return End::Endless;
            }
            if since == power {
                self.mark.clone_from(&self.board.objects);
                power = power.saturating_mul(2);
                since = 0;
            }
        }
    }

    /// One turn on the board; an unchanged turn leaves the board as it was.
    /// The first turn of a chain starts from the prepared state, which is
    /// its own copy of the board before.
    fn turn(&mut self, game: &PuzzleScriptGame, input: Option<u8>, first: bool) -> Turn {
        let g = &*game.game;
        if !first {
            self.before.clone_from(&self.board.objects);
        }
        // The first turn of each input on a prepared board records or
        // replays its rule groups (`turn_memo`), when writes are logged and
        // no rigid rule may replay the turn.
        let usable = game.turn_memo
            && self.board.logging
            && self.scratch.no_match.enabled()
            && g.rigid_groups.is_empty()
            && self.scratch.fired.is_none();
        self.scratch.memo.begin_turn(first, usable);
        let chooser: &mut dyn Chooser = &mut self.chooser;
        let kept = run(
            g,
            &mut self.board,
            input.map(input_bits),
            &mut self.scratch,
            chooser,
        );
        if let Some(overrun) = self.scratch.fault.take() {
            game.fail(overrun.to_string());
        }
        if !kept || self.board.queued("cancel") {
            if first {
                self.put_back();
            } else {
                self.board.objects.clone_from(&self.before);
            }
            return Turn::Unchanged;
        }
        if self.board.queued("restart") {
            return Turn::Restart;
        }
        let unchanged = if first {
            self.same_as_start()
        } else {
            self.board.objects == self.before
        };
        // An unchanged grid wins only if it already did (the level's start can).
        let won = self.board.queued("win")
            || if unchanged {
                first && self.start_won
            } else {
                game.win_plan.satisfied(g, &self.board.objects)
            };
        if won {
            return Turn::Won;
        }
        if unchanged {
            return Turn::Unchanged;
        }
        Turn::Changed(self.board.queued("again"))
    }
}

/// Direct turns (`engine::direct`): what the general path's `prepare`,
/// `chain`, `turn` and `encode_end` do for a game whose turns cannot
/// cancel, restart, win by command, ask for `again` or choose at random,
/// on one word of objects, without the summaries those turns do not read.
impl Worker {
    /// [`Worker::prepare`] for direct turns: the players and the objects
    /// ORed over the board are all a direct turn needs besides the board.
    fn prepare_direct(&mut self, game: &PuzzleScriptGame, plan: &direct::Plan, state: &[u8]) {
        // A record of another board's turn must never be replayed.
        self.scratch.memo.new_board();
        let template = &game.layout.template;
        if self.start.len() == template.len() {
            self.put_back();
            // The slices taken once: the loop then keeps their pointers in
            // registers instead of reloading them through `self` each cell.
            let (start, objects) = (&mut self.start[..], &mut self.board.objects[..]);
            for &i in &self.cells {
                if let (Some(s), Some(o), Some(&t)) =
                    (start.get_mut(i), objects.get_mut(i), template.get(i))
                {
                    (*s, *o) = (t, t);
                }
            }
        } else {
            self.start.clone_from(template);
            self.board.objects.clone_from(template);
        }
        // No sort: a direct turn needs no order of the players (its moving
        // cells are sorted where order matters), and a cell listed twice is
        // skipped below.
        game.layout
            .decode_fields_unsorted(state, &mut self.start, &mut self.cells);
        self.board.moving.clear();
        self.board.clear_touched();
        let mut seen = game.template_objects;
        self.players.clear();
        for &i in &self.cells {
            let (Some(&o), Some(slot)) = (self.start.get(i), self.board.objects.get_mut(i)) else {
                continue;
            };
            // A listed cell holds a changing object, which the template
            // never does: a cell whose board already equals its state was
            // listed before.
            if *slot == o {
                continue;
            }
            *slot = o;
            seen |= o;
            if plan.is_player(o) {
                self.players.push(i);
            }
        }
        self.objects_seen = seen;
        if game.word_state {
            self.state_word = packed::load(state);
        }
        self.start_won = game.initial_wins && state == game.initial.as_slice();
        self.walker = match self.players[..] {
            [player] if game.walks && game.word_state => {
                direct::Walker::new(plan, &self.board, player).map(|w| {
                    let entry = game.layout.lone_entry(w.objects(), player, self.state_word);
                    (w, entry)
                })
            }
            _ => None,
        };
    }

    /// [`Worker::expand`] for direct turns: one turn, no chain.
    fn expand_direct(
        &mut self,
        game: &PuzzleScriptGame,
        plan: &direct::Plan,
        state: &[u8],
        action: u16,
        input: Option<u8>,
        out: &mut Successors,
    ) {
        self.put_back();
        let g = &*game.game;
        if self.walk(game, plan, state, action, input, out) {
            return;
        }
        let kept = direct::run(
            g,
            plan,
            &mut self.board,
            input.map(input_bits),
            &self.players,
            self.objects_seen,
            &mut self.scratch,
        );
        if let Some(overrun) = self.scratch.fault.take() {
            game.fail(overrun.to_string());
        }
        if !kept {
            self.put_back();
            return;
        }
        // An unchanged grid wins only if it already did (the level's start
        // can), and so does a grid where no object a win condition names was
        // added or removed: the prepared state's own result holds for it.
        let diff = self.written_difference();
        let won = if diff & game.win_plan.objects == 0 {
            if diff == 0 && !self.start_won {
                return;
            }
            self.start_won
        } else {
            game.win_plan.satisfied(g, &self.board.objects)
        };
        if game.word_state {
            // The successor made in a register, stored whole (one eight-byte
            // store, not a copy of a run-time length) and cut to length.
            let shifts = &self.scratch.shifts;
            let (word, ok) = game.layout.shift_state(self.state_word, won, shifts);
            out.push_with(Move::solo(action), |bytes| {
                let end = bytes.len() + state.len();
                bytes.extend_from_slice(&word.to_le_bytes());
                bytes.truncate(end);
            });
            if !ok {
                game.overfull.fetch_add(1, Ordering::Relaxed);
            }
            return;
        }
        // Written straight into the successors: no copy through `encoded`.
        let (start, touched) = (&self.start, &self.board.touched);
        let objects = &self.board.objects;
        let shifts = &self.scratch.shifts;
        let by_shifts = game.shift_lists;
        let mut overfull = false;
        out.push_with(Move::solo(action), |bytes| {
            let at = bytes.len();
            if state.len() <= 8 {
                // A short state by one reserve and a byte loop: no copy
                // call, no capacity check a byte.
                bytes.extend(state.iter().copied());
            } else {
                bytes.extend_from_slice(state);
            }
            if let Some((outcome, fields)) = bytes.get_mut(at..).and_then(|s| s.split_first_mut()) {
                *outcome = u8::from(won);
                overfull = !if by_shifts {
                    game.layout
                        .reencode_shifts(start, objects, touched, shifts, fields)
                } else {
                    game.layout.reencode_cells(start, objects, touched, fields)
                };
            }
        });
        if overfull {
            game.overfull.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Worker {
    /// A direct turn of a lone player that no rule matches
    /// ([`direct::walk`]), on a state of one word: its successor, if any,
    /// is pushed (none when the player is blocked, as the turn leaves the
    /// grid as it was). True when the turn is done; false when it must run
    /// (a rule matches, the player's step adds or removes an object a win
    /// condition names, or an unchanged grid would be a won successor).
    fn walk(
        &mut self,
        game: &PuzzleScriptGame,
        plan: &direct::Plan,
        state: &[u8],
        action: u16,
        input: Option<u8>,
        out: &mut Successors,
    ) -> bool {
        let (Some(input), Some((walker, entry))) = (input, self.walker) else {
            return false;
        };
        let dir = input_bits(input);
        match direct::walk(plan, &mut self.board, &walker, dir, self.objects_seen) {
            direct::Walk::Turn => false,
            // Cancelled, or a grid unchanged: a transition only when the
            // prepared state already wins.
            direct::Walk::Blocked => !self.start_won,
            direct::Walk::Moved(shift) => {
                if shift.objects & game.win_plan.objects != 0 {
                    return false;
                }
                let (won, layout) = (self.start_won, &game.layout);
                let (word, ok) = match &entry {
                    Some(e) => layout.step_state(e, self.state_word, won, shift.to as usize),
                    None => layout.shift_state(self.state_word, won, &[shift]),
                };
                out.push_with(Move::solo(action), |bytes| {
                    let end = bytes.len() + state.len();
                    bytes.extend_from_slice(&word.to_le_bytes());
                    bytes.truncate(end);
                });
                if !ok {
                    game.overfull.fetch_add(1, Ordering::Relaxed);
                }
                true
            }
        }
    }

    /// Puts the cells written since the prepared state back as they were.
    fn put_back(&mut self) {
        let so = self.so;
        if so == 1 {
            self.board.restore_touched(&self.start);
            return;
        }
        for &i in &self.board.touched {
            let cell = i * so..i * so + so;
            self.board.objects[cell.clone()].copy_from_slice(&self.start[cell]);
        }
        self.board.clear_touched();
    }

    /// The objects added or removed at some cell written since the prepared
    /// state, ORed together (one word of objects: direct turns): zero when
    /// the grid is the prepared state's.
    fn written_difference(&self) -> u64 {
        let (now, start) = (&self.board.objects, &self.start);
        self.board.touched.iter().fold(0, |diff, &i| {
            diff | now.get(i).copied().unwrap_or(0) ^ start.get(i).copied().unwrap_or(0)
        })
    }

    /// True when every cell written since the prepared state is as it was.
    fn same_as_start(&self) -> bool {
        let so = self.so;
        if so == 1 {
            let (now, start) = (&self.board.objects, &self.start);
            return self
                .board
                .touched
                .iter()
                .all(|&i| now.get(i) == start.get(i));
        }
        self.board.touched.iter().all(|&i| {
            let cell = i * so..i * so + so;
            self.board.objects[cell.clone()] == self.start[cell]
        })
    }
}

/// The objects of level `number` of `g` (whose board is `board`) after its
/// start rules (and their `again` turns), and whether those won the level
/// (a cut-scene): the level is then one won state, as in the reference.
/// Fails when the start's `again` chain never ends.
pub(super) fn start_objects(
    g: &crate::compile::Compiled,
    number: usize,
    board: &Board,
) -> Result<(Vec<u64>, bool), crate::Error> {
    if !g.flags.run_rules_on_level_start {
        return Ok((board.objects.clone(), false));
    }
    let index = crate::list_levels(g)
        .into_iter()
        .find(|l| l.number == number)
        .map_or(0, |l| l.index);
    let s = crate::Session::until_win(g, index)?;
    if let Some(overrun) = s.fault() {
        return Err(crate::Error::Level {
            file: g.file.clone(),
            message: format!("level {number}, start rules: {overrun}"),
        });
    }
    if s.endless_again() {
        return Err(crate::Error::Level {
            file: g.file.clone(),
            message: format!(
                "level {number}: the again chain of its start rules never ends (it revisits a grid)"
            ),
        });
    }
    Ok((s.board().objects.clone(), s.won()))
}
