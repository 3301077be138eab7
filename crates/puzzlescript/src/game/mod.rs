//! One level of a PuzzleScript game as a [`model::Game`].
//!
//! A state is the level's object grid once any `again` chain has finished,
//! plus whether it is won ([`layout`] encodes it). Actions are the inputs
//! up, left, down, right, action (unless `noaction`) and tick (for
//! `realtime_interval` games). An input whose turn leaves the grid unchanged
//! is no transition unless it wins; a `restart` command leads to the level's
//! initial state; random rules branch into every outcome with its
//! probability; an `again` chain that revisits a grid is no transition and
//! is counted ([`PuzzleScriptGame::again_loops`]).

mod chance;
mod layout;
#[cfg(test)]
mod layout_tests;
mod packed;
mod palette;
mod palettes;
mod positions;
#[cfg(test)]
mod positions_tests;
mod render;
mod step;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use model::{Game, Move, OutcomeId, Prob, Rgb, StateWidth, Successors, FAIL, WIN};

use crate::compile::{Compiled, Level, PatternCell};
use crate::engine::{Board, Summary};
use crate::Error;
use layout::Layout;

/// A grid drawn with legend characters (see [`Game::render`]).
pub(crate) fn board_text(g: &Compiled, width: usize, height: usize, objects: &[u64]) -> String {
    render::grid(g, width, height, objects)
}

/// The outcome id of a won state.
const WIN_OUTCOME: OutcomeId = 0;

/// A level of a compiled game, ready to explore.
pub struct PuzzleScriptGame {
    /// A number no other game of this process has (keys the per-thread buffers).
    id: u64,
    game: Arc<Compiled>,
    number: usize,
    board: Board,
    layout: Layout,
    /// The summaries of the level's template (the unchanging objects).
    template_summary: Summary,
    /// The objects of the level's template ORed together (its first word).
    template_objects: u64,
    /// True when every rule is compiled to plain words and there are no
    /// late rules: a turn then reads only the board's summary, and the
    /// prepared state keeps that alone (see [`Summary::reset_map`]).
    map_summary: bool,
    win_plan: crate::engine::win::WinPlan,
    initial: Vec<u8>,
    /// True when the initial state satisfies the win conditions.
    initial_wins: bool,
    inputs: Vec<(Option<u8>, &'static str)>,
    chance: bool,
    /// True when a turn without a directional movement can match no rule
    /// (so `action` and `tick` change nothing).
    idle_turns_inert: bool,
    again_loops: AtomicU64,
    overfull: AtomicU64,
    /// Raised to end evaluations in progress (see [`Game::interrupt_on`]).
    stop: OnceLock<Arc<AtomicBool>>,
    /// Why an expansion went past a bound, once one did ([`Game::failure`]).
    failure: OnceLock<String>,
    /// The most random outcomes one (state, input) may have.
    max_outcomes: u64,
    /// True when an expansion carries the rules that found no match across
    /// its inputs (`engine::NoMatch`); off only to check that they change nothing.
    rule_records: bool,
    /// True when the first turn of each input replays the rule groups that
    /// read no movement from the first input's (`engine::turn_memo`); off
    /// only to check that it changes nothing.
    pub(crate) turn_memo: bool,
    /// True when rules compiled to plain words take their own path
    /// (`compile::NarrowRule`); off only to check that it changes nothing.
    narrow_rules: bool,
    /// True when every turn can run as a direct turn (`engine::direct`):
    /// the whole turn of narrow rules in one function.
    direct: Option<crate::engine::direct::Plan>,
    /// True when a direct turn's successor moves the position lists by its
    /// moves ([`Layout::reencode_shifts`]).
    shift_lists: bool,
    /// True when, besides, a state is one word of position lists: a direct
    /// turn's successor is made in a register ([`Layout::shift_state`]).
    word_state: bool,
    /// True when a direct turn of a lone player that no rule matches is
    /// found without running it (`engine::direct::walk`); off only to check
    /// that it changes nothing.
    walks: bool,
}

/// The default of [`PuzzleScriptGame::set_max_outcomes`]: a turn replayed this
/// many times stays around a second on small levels.
pub const DEFAULT_MAX_OUTCOMES: u64 = 20_000;

impl PuzzleScriptGame {
    /// Level `number` (from 1, message levels skipped) of `game`.
    pub fn new(game: impl Into<Arc<Compiled>>, number: usize) -> Result<PuzzleScriptGame, Error> {
        let game: Arc<Compiled> = game.into();
        let Some(info) = crate::list_levels(&game)
            .into_iter()
            .find(|l| l.number == number)
        else {
            return Err(Error::Level {
                file: game.file.clone(),
                message: format!(
                    "no playable level {number} (the game has {})",
                    crate::list_levels(&game).len()
                ),
            });
        };
        let Some(Level::Grid(grid)) = game.levels.get(info.index) else {
            return Err(Error::Level {
                file: game.file.clone(),
                message: format!("level {number} is not playable"),
            });
        };
        let mut inputs = vec![
            (Some(0), "up"),
            (Some(1), "left"),
            (Some(2), "down"),
            (Some(3), "right"),
        ];
        if !game.flags.noaction {
            inputs.push((Some(4), "action"));
        }
        if game.flags.realtime_interval.is_some() {
            inputs.push((None, "tick"));
        }
        let chance = has_chance(&game);
        let direct = crate::engine::direct::Plan::new(&game, grid.width, grid.height);
        let map_summary = map_summary(&game);
        let idle_turns_inert = idle_turns_inert(&game);
        let board = Board::new(&game, grid);
        let (initial_objects, start_won) = step::start_objects(&game, number, &board)?;
        let layout = choose_layout(&game, grid, &initial_objects);
        let win_plan = crate::engine::win::WinPlan::new(&game, &grid.cells, &layout.mutable);
        let mut template_board = board.clone();
        template_board.objects.clone_from(&layout.template);
        template_board.summarize_objects(game.obj_words, game.mov_words);
        let mut initial = Vec::new();
        layout.encode(&initial_objects, start_won, &mut initial);
        let initial_wins = !start_won && win_plan.satisfied(&game, &initial_objects);
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Ok(PuzzleScriptGame {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            game,
            number,
            board,
            template_objects: template_board.summary.map_words().0,
            template_summary: template_board.summary,
            map_summary,
            win_plan,
            initial,
            initial_wins,
            inputs,
            chance,
            idle_turns_inert,
            again_loops: AtomicU64::new(0),
            overfull: AtomicU64::new(0),
            stop: OnceLock::new(),
            failure: OnceLock::new(),
            max_outcomes: DEFAULT_MAX_OUTCOMES,
            rule_records: true,
            turn_memo: true,
            narrow_rules: true,
            direct,
            shift_lists: layout.shifts_apply(),
            word_state: layout.word_state(),
            walks: true,
            layout,
        })
    }

    /// Turns off (or on again) the records of rules that found no match on
    /// the state being expanded, which spare the searches of later inputs
    /// (on by default; the successors are the same either way, which the
    /// tests check by turning them off).
    pub fn set_rule_records(&mut self, on: bool) {
        self.rule_records = on;
    }

    /// Turns off (or on again) the replay of rule groups across the inputs
    /// of one state (`engine::turn_memo`: the groups that neither test nor
    /// write a movement write, on every input's first turn, what they wrote
    /// on the first input's), on by default; the successors are the same
    /// either way, which the tests check by turning it off.
    pub fn set_turn_memo(&mut self, on: bool) {
        self.turn_memo = on;
    }

    /// Turns off (or on again) the end of a group's fixpoint after one
    /// pass that changed the board, for the rules and groups that settle in
    /// one pass (`compile::settle`: `Rule::settles`, `RuleSet::settles`),
    /// whose fixpoints then run to a pass that changes nothing (on by
    /// default; the successors are the same either way, which the tests
    /// check by turning it off).
    pub fn set_settling(&mut self, on: bool) {
        let g = Arc::make_mut(&mut self.game);
        if on {
            crate::compile::one_per_layer::index_writes(g);
            return;
        }
        for set in [&mut g.rules, &mut g.late_rules] {
            set.settles.fill(false);
            set.cell_runs.fill(0);
            set.groups
                .iter_mut()
                .flatten()
                .for_each(|rule| rule.settles = false);
        }
    }

    /// Turns off (or on again) the runs of cell-local groups applied in one
    /// pass over the cells (`compile::cell_runs`, `RuleSet::cell_runs`),
    /// whose rules then search the board one by one (on by default; the
    /// successors are the same either way, which the tests check by
    /// turning them off). Settling off turns them off too: a run needs
    /// groups that settle.
    pub fn set_cell_runs(&mut self, on: bool) {
        let g = Arc::make_mut(&mut self.game);
        let words = g.obj_words;
        for set in [&mut g.rules, &mut g.late_rules] {
            set.cell_runs = match on {
                true => crate::compile::cell_runs::runs(set, words),
                false => vec![0; set.groups.len()],
            };
        }
    }

    /// Turns off (or on again) the path of rules compiled to plain words
    /// (`compile::NarrowRule`), which then go through the general matcher
    /// (on by default; the successors are the same either way, which the
    /// tests check by turning it off).
    pub fn set_narrow_rules(&mut self, on: bool) {
        self.narrow_rules = on;
    }

    /// Turns off (or on again) direct turns (`engine::direct`: the whole
    /// turn of a game of narrow rules in one function), which then run
    /// through the general turn (on by default where they apply; the
    /// successors are the same either way, which the tests check by turning
    /// them off).
    pub fn set_direct_turns(&mut self, on: bool) {
        self.direct = if on {
            crate::engine::direct::Plan::new(&self.game, self.board.width, self.board.height)
        } else {
            None
        };
    }

    /// Turns off (or on again) the lone player's steps found without
    /// running the turn (`engine::direct::walk`; on by default, and the
    /// successors are the same either way, which the tests check by turning
    /// them off).
    pub fn set_walks(&mut self, on: bool) {
        self.walks = on;
    }

    /// True when a lone player's steps may be found without running the
    /// turn (see [`PuzzleScriptGame::set_walks`]): direct turns on states
    /// of one word.
    pub fn walks(&self) -> bool {
        self.walks && self.word_state && self.direct_turns()
    }

    /// True when turns run as direct turns (see
    /// [`PuzzleScriptGame::set_direct_turns`]); off with the narrow rules.
    pub fn direct_turns(&self) -> bool {
        self.direct.is_some() && self.narrow_rules
    }

    /// The plan of direct turns, when they run.
    fn direct_plan(&self) -> Option<&crate::engine::direct::Plan> {
        self.direct.as_ref().filter(|_| self.narrow_rules)
    }

    /// Bounds the random outcomes of one (state, input): past `n`, the
    /// expansion stops and the game fails ([`Game::failure`]) naming the rule
    /// that made the most choices.
    pub fn set_max_outcomes(&mut self, n: u64) {
        self.max_outcomes = n.max(1);
    }

    /// The compiled game.
    pub fn compiled(&self) -> &Compiled {
        &self.game
    }

    /// The objects of every cell of `state` (the words of a cell's object
    /// set, cell after cell, column by column) and whether it is won.
    pub fn objects(&self, state: &[u8]) -> (Vec<u64>, bool) {
        let mut objects = Vec::new();
        let won = self.layout.decode(state, &mut objects);
        (objects, won)
    }

    /// The level's number (from 1).
    pub fn number(&self) -> usize {
        self.number
    }

    /// How many (state, input) pairs started an `again` chain that never settles.
    pub fn again_loops(&self) -> u64 {
        self.again_loops.load(Ordering::Relaxed)
    }

    /// Expands `state` as [`Game::successors`] does, recording into `probe`
    /// the rules that fired and the inputs whose `again` chain never ends
    /// (see [`crate::coverage`]); a won or malformed state records nothing.
    pub fn probe(&self, state: &[u8], probe: &mut crate::coverage::Probe) {
        probe.endless.clear();
        if state.len() != self.layout.bytes || state.first() == Some(&1) {
            probe.fired.clear();
            return;
        }
        step::with_worker(self, |w| {
            w.probe(
                self,
                state,
                &mut probe.fired,
                &mut probe.endless,
                &mut probe.successors,
            );
        });
    }

    /// True once the flag given to [`Game::interrupt_on`] is raised, or an
    /// expansion failed.
    pub(crate) fn stopped(&self) -> bool {
        self.failure.get().is_some() || self.stop.get().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Records why an expansion went past a bound (the first reason wins)
    /// and raises the stop flag, so that the explorer ends the run; the
    /// caller reports the reason ([`Game::failure`]).
    fn fail(&self, why: String) {
        let _ = self.failure.set(format!("{}: {why}", self.game.file));
        if let Some(stop) = self.stop.get() {
            stop.store(true, Ordering::SeqCst);
        }
    }

    /// How many states had two changing objects on one layer of a cell
    /// (which the encoding cannot hold; zero in well-formed games).
    pub fn overfull_states(&self) -> u64 {
        self.overfull.load(Ordering::Relaxed)
    }
}

/// The layout of a level: with position lists where they are narrower,
/// unless the level's start breaks them (two objects of one layer in a
/// cell), in which case every changing layer keeps its fields.
fn choose_layout(g: &Compiled, grid: &crate::compile::Grid, start: &[u64]) -> Layout {
    let layout = Layout::with_positions(g, grid, start);
    if layout.encode(start, false, &mut Vec::new()) {
        layout
    } else {
        Layout::new(g, grid)
    }
}

/// True when there are no late rules and every rule needs an object moving
/// up, down, left or right: a turn that starts with no such movement (an
/// `action` or `tick` turn) then matches nothing, so it changes nothing.
fn idle_turns_inert(g: &Compiled) -> bool {
    // Every slot, the dead one included: a test of a layer that never
    // moves still names a direction (`MoveSlots`).
    let slots = g.names.move_slots.count();
    let directional = |m: &[u64]| (0..slots).any(|s| crate::bits::mov_get(m, s) & 0xf != 0);
    g.late_rules.groups.is_empty()
        && g.rules.groups.iter().flatten().all(|r| {
            r.rows.iter().flatten().any(|c| match c {
                PatternCell::Cell(p) => directional(&p.moves_present),
                PatternCell::Ellipsis => false,
            })
        })
}

/// True when every rule is compiled to plain words
/// ([`crate::compile::NarrowRule`]) on one-word boards and no late rule
/// runs after movement: such turns read no row or column summary.
fn map_summary(g: &Compiled) -> bool {
    g.obj_words == 1
        && g.mov_words == 1
        && g.late_rules.groups.is_empty()
        && g.rules.groups.iter().flatten().all(|r| r.narrow.is_some())
}

/// True when some rule group is random or some rule spawns or moves at random.
fn has_chance(g: &Compiled) -> bool {
    [&g.rules, &g.late_rules].iter().any(|set| {
        set.groups.iter().any(|group| {
            group[0].random
                || group
                    .iter()
                    .flat_map(|r| r.rows.iter().flatten())
                    .any(|c| match c {
                        PatternCell::Cell(p) => p.replacement.as_ref().is_some_and(|r| {
                            !crate::bits::is_zero(&r.random_objects)
                                || !crate::bits::is_zero(&r.random_dirs)
                        }),
                        PatternCell::Ellipsis => false,
                    })
        })
    })
}

impl Game for PuzzleScriptGame {
    fn kind(&self) -> &'static str {
        "puzzlescript"
    }

    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(self.layout.bytes)
    }

    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![self.initial.clone()]
    }

    fn action_labels(&self) -> Vec<String> {
        self.inputs.iter().map(|(_, l)| l.to_string()).collect()
    }

    fn outcome_names(&self) -> Vec<String> {
        vec![WIN.to_string(), FAIL.to_string()]
    }

    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        (state.first() == Some(&1)).then_some(WIN_OUTCOME)
    }

    fn successors(&self, state: &[u8], out: &mut Successors) {
        if state.len() != self.layout.bytes || state.first() == Some(&1) {
            return;
        }
        step::with_worker(self, |w| {
            w.prepare(self, state);
            for (action, &(input, _)) in self.inputs.iter().enumerate() {
                let idle = !matches!(input, Some(0..=3));
                if idle && self.idle_turns_inert {
                    w.idle_turn(self, state, action as u16, out);
                } else {
                    let _endless = w.expand(self, state, action as u16, input, out);
                }
            }
        });
    }

    fn render(&self, state: &[u8]) -> String {
        let mut objects = Vec::new();
        let won = self.layout.decode(state, &mut objects);
        let mut text = render::grid(&self.game, self.board.width, self.board.height, &objects);
        if won {
            text.push_str("(won)\n");
        }
        text
    }

    fn render_colors(&self, state: &[u8]) -> Option<Vec<Vec<Option<Rgb>>>> {
        let mut objects = Vec::new();
        let won = self.layout.decode(state, &mut objects);
        let (w, h) = (self.board.width, self.board.height);
        let mut colors = render::colors(&self.game, w, h, &objects);
        if won {
            colors.push(vec![None; "(won)".len()]);
        }
        Some(colors)
    }

    fn render_legend(&self, state: &[u8]) -> Vec<(char, String)> {
        let mut objects = Vec::new();
        self.layout.decode(state, &mut objects);
        render::legend(&self.game, self.board.width, self.board.height, &objects)
    }

    fn has_chance(&self) -> bool {
        self.chance
    }

    /// A turn's random choices can have more outcomes than can be
    /// enumerated in a lifetime (a looped random spawn over many cells):
    /// the enumeration looks at the flag before each outcome.
    fn interrupt_on(&self, stop: Arc<AtomicBool>) {
        let _ = self.stop.set(stop);
    }

    fn failure(&self) -> Option<String> {
        self.failure.get().cloned()
    }

    /// Each object, by name, then each collision layer (`layer N: a, b`).
    fn features(&self) -> Vec<String> {
        let names = &self.game.names;
        let mut out = names.id_dict.clone();
        for (i, layer) in names.layer_masks.iter().enumerate() {
            let members: Vec<&str> = crate::bits::ones(layer)
                .filter_map(|id| names.id_dict.get(id).map(String::as_str))
                .collect();
            out.push(format!("layer {}: {}", i + 1, members.join(", ")));
        }
        out
    }

    /// The outcome byte, then every cell's objects with the ignored objects
    /// (and the objects of the ignored layers) removed, word by word. The
    /// state's own encoding cannot be reused: position lists need the
    /// level's counts, which a projection changes.
    fn project(&self, state: &[u8], ignored: &[usize], out: &mut Vec<u8>) {
        let names = &self.game.names;
        let so = self.game.obj_words.max(1);
        let mut mask = vec![0u64; so];
        for &f in ignored {
            match f.checked_sub(names.id_dict.len()) {
                None => crate::bits::set(&mut mask, f),
                Some(layer) => {
                    if let Some(m) = names.layer_masks.get(layer) {
                        crate::bits::or_into(&mut mask, m);
                    }
                }
            }
        }
        let (objects, won) = self.objects(state);
        out.push(u8::from(won));
        for (i, w) in objects.iter().enumerate() {
            out.extend_from_slice(&(w & !mask[i % so]).to_le_bytes());
        }
    }
}

/// A successor's move for `action` with probability `num/den`.
fn chance_move(action: u16, prob: (u64, u64)) -> Move {
    let p = Prob::new(prob.0 as u32, prob.1 as u32).unwrap_or(Prob::ONE);
    Move {
        action,
        player: 0,
        prob: p,
    }
}
