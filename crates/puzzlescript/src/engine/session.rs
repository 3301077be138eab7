//! A player session that replays inputs exactly as the reference's test
//! harness does: turns with the command queue (`cancel`, `restart`, `win`,
//! `checkpoint`, `again` with its dry run), undo and restart stacks, and the
//! move to the next level after a win (a message level leaves the finished
//! level on show, and later inputs keep acting on it without win checks).

use super::turn::{input_bits, run};
use super::{win, Board, Scratch};
use crate::compile::{Compiled, Grid, Level};
use crate::rng::Rng;
use crate::Error;

/// The seed used when a case gives none (the reference then seeds from the clock).
pub const DEFAULT_SEED: &str = "hyperstate";

/// One input of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Up (0).
    Up,
    /// Left (1).
    Left,
    /// Down (2).
    Down,
    /// Right (3).
    Right,
    /// Action (4).
    Action,
    /// Undo the last turn.
    Undo,
    /// Restart the level.
    Restart,
    /// A turn without input.
    Tick,
}

impl Input {
    /// The reference's number for a direction or action input.
    pub fn code(self) -> Option<u8> {
        match self {
            Input::Up => Some(0),
            Input::Left => Some(1),
            Input::Down => Some(2),
            Input::Right => Some(3),
            Input::Action => Some(4),
            _ => None,
        }
    }

    /// Reads `0`..`4`, `undo`, `restart` or `tick`.
    pub fn parse(word: &str) -> Option<Input> {
        Some(match word.trim() {
            "0" | "up" => Input::Up,
            "1" | "left" => Input::Left,
            "2" | "down" => Input::Down,
            "3" | "right" => Input::Right,
            "4" | "action" => Input::Action,
            "undo" => Input::Undo,
            "restart" => Input::Restart,
            "tick" => Input::Tick,
            _ => return None,
        })
    }
}

/// A level being played.
pub struct Session<'a> {
    game: &'a Compiled,
    seed: String,
    level_index: usize,
    board: Board,
    backups: Vec<Grid>,
    restart_target: Grid,
    againing: bool,
    text_mode: bool,
    restarting: bool,
    rng: Rng,
    scratch: Scratch,
    /// True when a win leaves the level on show instead of loading the next
    /// one (the explorer's view of a level: see [`Session::until_win`]).
    freeze_on_win: bool,
    /// True once a win happened under `freeze_on_win`.
    won: bool,
    /// True when the last `again` chain revisited a grid and was cut there.
    endless_again: bool,
    /// The first rule that went past a bound of the engine, if one did.
    fault: Option<super::Overrun>,
}

impl<'a> Session<'a> {
    /// Loads the entry `level_index` of LEVELS (messages counted) with a seed.
    pub fn new(
        game: &'a Compiled,
        level_index: usize,
        seed: Option<&str>,
    ) -> Result<Session<'a>, Error> {
        let Some(Level::Grid(grid)) = game.levels.get(level_index) else {
            return Err(Error::Level {
                file: game.file.clone(),
                message: format!("LEVELS entry {level_index} is not a playable level"),
            });
        };
        let seed = seed.unwrap_or(DEFAULT_SEED).to_string();
        let mut s = Session {
            game,
            rng: Rng::new(&seed),
            seed,
            level_index,
            board: Board::new(game, grid),
            backups: Vec::new(),
            restart_target: grid.clone(),
            againing: false,
            text_mode: false,
            restarting: false,
            scratch: Scratch::default(),
            freeze_on_win: false,
            won: false,
            endless_again: false,
            fault: None,
        };
        s.load(level_index);
        s.settle();
        Ok(s)
    }

    /// Loads the entry `level_index` as [`Session::new`] does with the default
    /// seed, but a win (by the start rules' `again` turns) stops the level
    /// where it won instead of loading the next one, as the reference's
    /// breadth-first driver does: see [`Session::won`].
    pub fn until_win(game: &'a Compiled, level_index: usize) -> Result<Session<'a>, Error> {
        Session::frozen(game, level_index, None)
    }

    /// [`Session::until_win`], recording which rules fired while the level
    /// loaded (its start rules and their `again` turns: see
    /// [`Session::fired_rules`]).
    pub fn until_win_recording(
        game: &'a Compiled,
        level_index: usize,
    ) -> Result<Session<'a>, Error> {
        Session::frozen(game, level_index, Some(Vec::new()))
    }

    /// The rules that fired so far, one bit per rule line, when the session
    /// records them ([`Session::until_win_recording`]).
    pub fn fired_rules(&self) -> Option<&[u64]> {
        self.scratch.fired.as_deref()
    }

    fn frozen(
        game: &'a Compiled,
        level_index: usize,
        fired: Option<Vec<u64>>,
    ) -> Result<Session<'a>, Error> {
        let Some(Level::Grid(grid)) = game.levels.get(level_index) else {
            return Err(Error::Level {
                file: game.file.clone(),
                message: format!("LEVELS entry {level_index} is not a playable level"),
            });
        };
        let seed = DEFAULT_SEED.to_string();
        let mut s = Session {
            game,
            rng: Rng::new(&seed),
            seed,
            level_index,
            board: Board::new(game, grid),
            backups: Vec::new(),
            restart_target: grid.clone(),
            againing: false,
            text_mode: false,
            restarting: false,
            scratch: Scratch {
                fired,
                ..Scratch::default()
            },
            freeze_on_win: true,
            won: false,
            endless_again: false,
            fault: None,
        };
        s.load(level_index);
        s.settle();
        Ok(s)
    }

    /// True when the level was won under [`Session::until_win`].
    pub fn won(&self) -> bool {
        self.won
    }

    /// The first rule that matched in more combinations than the engine
    /// allows ([`super::MAX_COMBINATIONS`]); the board is meaningless after it.
    pub fn fault(&self) -> Option<&super::Overrun> {
        self.fault.as_ref()
    }

    /// True when the last `again` chain revisited a grid, so that it would
    /// never end: it was stopped at the revisit.
    pub fn endless_again(&self) -> bool {
        self.endless_again
    }

    /// The board as it stands.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The index of the current LEVELS entry.
    pub fn level_index(&self) -> usize {
        self.level_index
    }

    /// The level drawn with legend characters, as the explorer renders a
    /// state (the character standing for exactly a cell's objects, else its
    /// topmost object's).
    pub fn board_text(&self) -> String {
        let b = &self.board;
        crate::game::board_text(self.game, b.width, b.height, &b.objects)
    }

    /// The level in the reference's text form.
    pub fn text_form(&self) -> String {
        crate::text_form(self.game, &self.board)
    }

    /// Plays one input, then every `again` turn it asks for.
    pub fn input(&mut self, input: Input) {
        match input {
            Input::Undo => self.undo_turn(false, true),
            Input::Restart => self.do_restart(false),
            Input::Tick => {
                self.process_input(None, false, false);
            }
            _ => {
                self.process_input(input.code(), false, false);
            }
        }
        self.settle();
    }

    /// Undoes the last turn.
    pub fn undo(&mut self) {
        self.input(Input::Undo);
    }

    /// Restarts the level.
    pub fn restart(&mut self) {
        self.input(Input::Restart);
    }

    /// A turn without input.
    pub fn tick(&mut self) {
        self.input(Input::Tick);
    }

    /// Plays the `again` turns queued, until one asks for no more or the
    /// chain revisits a grid (found by Brent's method: one marked grid,
    /// moved on at powers of two, so memory stays two grids however long
    /// the chain).
    fn settle(&mut self) {
        self.endless_again = false;
        let mut mark = self.board.objects.clone();
        let (mut power, mut since) = (1u64, 0u64);
        while self.againing && !self.won && self.fault.is_none() {
            self.againing = false;
            self.process_input(None, false, false);
            since += 1;
            if self.againing && self.board.objects == mark {
                self.endless_again = true;
                self.againing = false;
                return;
            }
            if since == power {
                mark.clone_from(&self.board.objects);
                power = power.saturating_mul(2);
                since = 0;
            }
        }
    }

    fn load(&mut self, index: usize) {
        self.rng = Rng::new(&self.seed);
        self.againing = false;
        match self.game.levels.get(index) {
            Some(Level::Grid(grid)) => {
                self.text_mode = false;
                self.board = Board::new(self.game, grid);
                self.backups.clear();
                self.restart_target = grid.clone();
                if self.game.flags.run_rules_on_level_start {
                    self.process_input(None, true, false);
                }
            }
            _ => self.text_mode = true,
        }
    }

    fn restore(&mut self, grid: &Grid) {
        self.board.restore(grid, self.game.mov_words);
        self.againing = false;
    }

    fn undo_turn(&mut self, force: bool, ignore_duplicates: bool) {
        if self.game.flags.noundo && !force {
            return;
        }
        if ignore_duplicates {
            while self
                .backups
                .last()
                .is_some_and(|b| b.cells == self.board.objects)
            {
                self.backups.pop();
            }
        }
        if let Some(b) = self.backups.pop() {
            self.restore(&b);
        }
    }

    fn do_restart(&mut self, force: bool) {
        if self.restarting || (!force && self.game.flags.norestart) {
            return;
        }
        if self.againing {
            self.undo_turn(force, true);
        }
        self.restarting = true;
        if !force {
            self.backups.push(self.board.grid());
        }
        let target = self.restart_target.clone();
        self.restore(&target);
        if self.game.flags.run_rules_on_level_start {
            self.process_input(None, true, false);
        }
        self.board.queue.clear();
        self.restarting = false;
    }

    /// One turn, as the reference's `processInput`; true when it changed the level.
    fn process_input(&mut self, input: Option<u8>, dont_do_win: bool, dont_modify: bool) -> bool {
        self.againing = false;
        self.board.clear_touched();
        let bak = self.board.grid();
        let dir = input.map(input_bits);
        let kept = run(
            self.game,
            &mut self.board,
            dir,
            &mut self.scratch,
            &mut self.rng,
        );
        if let Some(overrun) = self.scratch.fault.take() {
            self.fault.get_or_insert(overrun);
            self.againing = false;
        }
        if !kept {
            self.restore(&bak);
            return false;
        }
        self.process_queue(bak, input.is_none(), dont_do_win, dont_modify)
    }

    fn process_queue(
        &mut self,
        bak: Grid,
        no_input: bool,
        dont_do_win: bool,
        dont_modify: bool,
    ) -> bool {
        if self.board.queued("cancel") {
            let left = self.board.queue.len() > 1;
            self.restore(&bak);
            return left;
        }
        if self.board.queued("restart") {
            self.backups.push(bak.clone());
            if !dont_modify {
                self.do_restart(true);
            }
        }
        let modified = self.board.objects != bak.cells;
        if modified {
            if dont_modify {
                self.backups.push(bak.clone());
                self.restore(&bak);
                self.backups.pop();
                return true;
            }
            if !no_input {
                self.backups.push(bak);
            }
        }
        if dont_modify && (self.board.queued("win") || self.board.queued("restart")) {
            return true;
        }
        if !self.text_mode {
            self.check_win(dont_do_win);
            if self.won {
                // A frozen win ends the turn, as the reference's `winning`.
                self.board.queue.clear();
                return modified;
            }
        }
        if self.board.queued("checkpoint") {
            self.restart_target = self.board.grid();
        }
        if self.board.queued("again") && modified && self.process_input(None, true, true) {
            self.againing = true;
        }
        self.board.queue.clear();
        modified
    }

    fn check_win(&mut self, dont_do_win: bool) {
        let won = self.board.queued("win") || win::satisfied(self.game, &self.board.objects);
        if won && !dont_do_win {
            self.againing = false;
            if self.freeze_on_win {
                self.won = true;
            } else {
                self.next_level();
            }
        }
    }

    fn next_level(&mut self) {
        self.againing = false;
        if self.level_index + 1 < self.game.levels.len() {
            self.level_index += 1;
            self.load(self.level_index);
        } else {
            self.level_index = 0;
            self.text_mode = true;
        }
    }
}
