//! The turn engine: a level's live state ([`Board`]), rule matching and
//! application, movement resolution, win conditions, and the [`session`]
//! that replays inputs with undo and restart as the reference's harness does.
//!
//! A turn never allocates once its scratch buffers have grown: matches are
//! collected into vectors kept in [`Scratch`].

mod apply;
mod cell_runs;
pub mod direct;
pub mod matching;
pub mod movement;
mod narrow_rule;
mod no_match;
mod row_starts;
pub mod rules;
pub mod session;
#[cfg(test)]
mod settle_tests;
mod summary;
pub mod turn;
mod turn_memo;
pub mod win;

use crate::compile::{Command, Compiled, Grid};
pub use no_match::NoMatch;
pub use summary::Summary;

/// Where random choices come from: the seeded generator when replaying, an
/// enumeration of every outcome when exploring.
pub trait Chooser {
    /// Picks one of `n` equally likely options.
    fn choose(&mut self, n: usize) -> usize;

    /// [`Chooser::choose`] for the rule on `line` (an enumeration names the
    /// rule whose choices it cannot enumerate).
    fn choose_for(&mut self, n: usize, line: usize) -> usize {
        let _ = line;
        self.choose(n)
    }
}

impl Chooser for crate::rng::Rng {
    fn choose(&mut self, n: usize) -> usize {
        crate::rng::Rng::choose(self, n)
    }
}

/// The live state of a level during a turn.
#[derive(Clone, Debug)]
pub struct Board {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Object words, cell after cell (column-major).
    pub objects: Vec<u64>,
    /// Movement words, cell after cell.
    pub movements: Vec<u64>,
    /// Per cell, the rigid group index (plus one) of each layer's movement.
    pub rigid_group: Vec<u64>,
    /// Per cell, the layers whose movement a rigid rule set.
    pub rigid_applied: Vec<u64>,
    /// Commands queued by the rules of the turn, each word once.
    pub queue: Vec<Command>,
    /// Summaries that let rules skip the board, rows and columns that cannot
    /// match (supersets of what is there, recomputed at each turn's start).
    pub summary: Summary,
    /// Cells whose movements or rigid marks may be set (unsorted, repeats
    /// allowed); every other cell has none, so movement resolution visits
    /// only these, in index order.
    pub moving: Vec<usize>,
    /// Cells whose objects were written since the owner last cleared it
    /// ([`Board::clear_touched`]), each once, so that a board can be compared
    /// with, or put back to, an earlier one cell by cell. Added through
    /// [`Board::touch`]: a rule that rewrites a cell back and forth many
    /// times in a turn must not make the list, and every pass over it, long.
    pub touched: Vec<usize>,
    /// One bit per cell: set when the cell is in `touched`.
    touched_bits: Vec<u64>,
    /// Every cell written in this turn, in order, repeats kept (see
    /// [`NoMatch`]): a rule that found no match is searched again only on
    /// the lines through the cells written since. Emptied by
    /// [`Board::clear_log`], and when it grows past [`LOG_CAP`].
    pub log: Vec<usize>,
    /// The log's number: it changes whenever the log is emptied, so that a
    /// record names the log it counted.
    pub log_epoch: u64,
    /// True when writes are logged (a game whose rules can be recorded,
    /// by an owner that keeps records): others pay nothing for the log.
    pub logging: bool,
    /// Per cell, its column and row, so that the hot paths look them up
    /// instead of dividing the cell's index by the height.
    pub coords: Vec<(usize, usize)>,
}

/// The column and row of every cell of a `width` x `height` board, in index order.
fn coords_of(width: usize, height: usize) -> Vec<(usize, usize)> {
    (0..width)
        .flat_map(|x| (0..height).map(move |y| (x, y)))
        .collect()
}

impl Board {
    /// A board showing `grid`, with no movement.
    pub fn new(game: &Compiled, grid: &Grid) -> Board {
        let n = grid.width * grid.height;
        Board {
            width: grid.width,
            height: grid.height,
            objects: grid.cells.clone(),
            movements: vec![0; n * game.mov_words],
            rigid_group: vec![0; n * game.mov_words],
            rigid_applied: vec![0; n * game.mov_words],
            queue: Vec::new(),
            summary: Summary::default(),
            moving: Vec::new(),
            touched: Vec::new(),
            touched_bits: vec![0; n.div_ceil(64)],
            log: Vec::new(),
            log_epoch: 0,
            logging: false,
            coords: coords_of(grid.width, grid.height),
        }
    }

    /// Empties the log of writes under a new number: records counted on
    /// the old one no longer hold.
    #[inline]
    pub fn clear_log(&mut self) {
        self.log.clear();
        self.log_epoch = self.log_epoch.wrapping_add(1);
    }

    /// The column and row of cell `i`.
    #[inline(always)]
    pub fn xy(&self, i: usize) -> (usize, usize) {
        match self.coords.get(i) {
            Some(&xy) => xy,
            None => (i / self.height.max(1), i % self.height.max(1)),
        }
    }

    /// Recomputes the summaries from the board.
    pub fn summarize(&mut self, so: usize, sm: usize) {
        self.summarize_objects(so, sm);
        self.summarize_movements(sm);
    }

    /// Recomputes the object summaries and clears the movement ones.
    pub fn summarize_objects(&mut self, so: usize, sm: usize) {
        let (w, h) = (self.width, self.height);
        self.summary.reset(so, sm, w, h);
        for x in 0..w {
            for y in 0..h {
                let i = x * h + y;
                if so == 1 {
                    // The common case (at most 64 objects): one word a cell.
                    let o = self.objects[i];
                    if o != 0 {
                        self.summary.add_narrow(x, y, o);
                    }
                } else {
                    self.summary
                        .add_objects(x, y, &self.objects[i * so..i * so + so]);
                }
            }
        }
    }

    /// Makes the summaries whole when they hold the board's alone
    /// ([`Summary::reset_map`]): recomputed from the board, which the
    /// summaries they replace only over-approximated.
    #[inline]
    pub fn ensure_summary(&mut self, so: usize, sm: usize) {
        if !self.summary.is_full() {
            self.summarize(so, sm);
        }
    }

    /// Adds the movements of the moving cells to the summaries.
    pub fn summarize_movements(&mut self, sm: usize) {
        if self.summary.narrow_map() {
            // The board's word alone: no row or column to find.
            let mut all = 0;
            for &i in &self.moving {
                all |= self.movements.get(i).copied().unwrap_or(0);
            }
            self.summary.add_map_movement(all);
            return;
        }
        for &i in &self.moving {
            let (x, y) = self.xy(i);
            self.summary
                .add_movements(x, y, &self.movements[i * sm..i * sm + sm]);
        }
    }

    /// Adds cell `i`'s objects and movements to the summaries.
    pub fn note_cell(&mut self, i: usize, so: usize, sm: usize) {
        if let (1, 1, Some(&o), Some(&m)) = (so, sm, self.objects.get(i), self.movements.get(i)) {
            self.note_narrow(i, o, m);
            return;
        }
        let (x, y) = self.xy(i);
        let objs = &self.objects[i * so..i * so + so];
        self.summary
            .add(x, y, objs, &self.movements[i * sm..i * sm + sm]);
    }

    /// [`Board::note_cell`] on a board of one word each, given the cell's
    /// objects `o` and movements `m`.
    #[inline(always)]
    pub fn note_narrow(&mut self, i: usize, o: u64, m: u64) {
        let (x, y) = self.xy(i);
        self.summary.add_narrow_cell(x, y, o, m);
    }

    /// [`Board::note_words`] of one object word (`ow`, holding `o`) and one
    /// movement word (`w`, holding `m`) of cell `i`.
    #[inline(always)]
    pub fn note_plain(&mut self, i: usize, ow: usize, o: u64, w: usize, m: u64) {
        let (x, y) = self.xy(i);
        self.summary.add_object_word(x, y, ow, o);
        self.summary.add_movement_word(x, y, w, m);
    }

    /// [`Board::note_cell`] of the given object and movement words of
    /// cell `i` alone (a replacement's written words: the others are in
    /// the summaries already); true when one of those movement words holds
    /// a movement.
    pub fn note_words(
        &mut self,
        i: usize,
        so: usize,
        sm: usize,
        object_words: &[u32],
        move_words: &[u32],
    ) -> bool {
        let (x, y) = self.xy(i);
        for &w in object_words {
            if let Some(&v) = self.objects.get(i * so + w as usize) {
                self.summary.add_object_word(x, y, w as usize, v);
            }
        }
        let mut moves = false;
        for &w in move_words {
            if let Some(&v) = self.movements.get(i * sm + w as usize) {
                self.summary.add_movement_word(x, y, w as usize, v);
                moves |= v != 0;
            }
        }
        moves
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Replaces the objects (and size) with `grid`, clearing movements and queue.
    pub fn restore(&mut self, grid: &Grid, mov_words: usize) {
        if grid.width != self.width || grid.height != self.height {
            let n = grid.width * grid.height * mov_words;
            self.width = grid.width;
            self.height = grid.height;
            self.movements = vec![0; n];
            self.rigid_group = vec![0; n];
            self.rigid_applied = vec![0; n];
            self.coords = coords_of(grid.width, grid.height);
            self.touched.clear();
            self.touched_bits = vec![0; (grid.width * grid.height).div_ceil(64)];
        } else {
            self.movements.fill(0);
            self.rigid_group.fill(0);
            self.rigid_applied.fill(0);
        }
        self.objects.clone_from(&grid.cells);
        self.queue.clear();
        self.moving.clear();
        self.clear_touched();
        self.clear_log();
    }

    /// Adds cell `i` to `touched` unless it is there already.
    #[inline]
    pub fn touch(&mut self, i: usize) {
        if self.logging {
            if self.log.len() >= LOG_CAP {
                // A turn that writes this much is searched in full again.
                self.clear_log();
            }
            self.log.push(i);
        }
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        match self.touched_bits.get_mut(word) {
            Some(w) if *w & bit != 0 => {}
            Some(w) => {
                *w |= bit;
                self.touched.push(i);
            }
            // A cell past the board (never written): listed as before.
            None => self.touched.push(i),
        }
    }

    /// Puts every cell in `touched` back to its objects in `start` (a grid
    /// of one word a cell) and empties `touched`, in one pass.
    #[inline]
    pub fn restore_touched(&mut self, start: &[u64]) {
        for &i in &self.touched {
            if let (Some(now), Some(&was)) = (self.objects.get_mut(i), start.get(i)) {
                *now = was;
            }
            if let Some(w) = self.touched_bits.get_mut(i / 64) {
                *w &= !(1u64 << (i % 64));
            }
        }
        self.touched.clear();
    }

    /// Empties `touched`.
    #[inline]
    pub fn clear_touched(&mut self) {
        for &i in &self.touched {
            if let Some(w) = self.touched_bits.get_mut(i / 64) {
                *w &= !(1u64 << (i % 64));
            }
        }
        self.touched.clear();
    }

    /// The objects as a grid.
    pub fn grid(&self) -> Grid {
        Grid {
            width: self.width,
            height: self.height,
            cells: self.objects.clone(),
        }
    }

    /// True when `word` is queued.
    pub fn queued(&self, word: &str) -> bool {
        self.queue.iter().any(|c| c.word() == word)
    }

    /// Queues a rule's commands with the reference's priorities: a queued
    /// `cancel` blocks everything, a queued `restart` everything but `cancel`.
    pub fn queue_commands(&mut self, commands: &[Command]) {
        if commands.is_empty() || self.queued("cancel") {
            return;
        }
        let cancel = commands.contains(&Command::Cancel);
        let restart = commands.contains(&Command::Restart);
        if self.queued("restart") && !cancel {
            return;
        }
        if cancel || restart {
            self.queue.clear();
        }
        for c in commands {
            if !self.queued(c.word()) {
                self.queue.push(c.clone());
            }
        }
    }
}

/// The longest log of writes a turn keeps ([`Board::log`]): past it the log
/// starts again, and the rules recorded against it are searched in full.
pub const LOG_CAP: usize = 1 << 16;

/// One match of a pattern row: its first cell and the gaps of its ellipses.
pub type RowMatch = [usize; 3];

/// Buffers reused from turn to turn.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    /// Matches of each row of the rule being applied.
    pub rows: Vec<Vec<RowMatch>>,
    /// Cells holding a player when the turn started.
    pub players: Vec<usize>,
    /// Rule groups switched off by a failed rigid movement.
    pub banned: Vec<bool>,
    /// The masks of the replacement being applied.
    pub buf: Vec<u64>,
    /// The row matches being applied.
    pub tuple: Vec<RowMatch>,
    /// Candidate starts of a row anchored on a moving cell, and the moving
    /// cells sorted for them.
    pub starts: row_starts::Starts,
    /// Players and object summaries computed ahead for the board the next
    /// turn starts from (several inputs tried on one state share them).
    pub prepared: Option<(Vec<usize>, Summary)>,
    /// True when the next turn starts from the prepared board.
    pub use_prepared: bool,
    /// A copy of the board taken at the start of a turn (for rigid rollback).
    pub start: Option<Board>,
    /// Set when a rule went past a bound of the engine in this turn (the
    /// turn's result is then meaningless: the caller reports it).
    pub fault: Option<Overrun>,
    /// When set, the rules that fired, one bit per rule line
    /// ([`crate::compile::Rule::source`]): a rule fires when one of its
    /// applications changes the board or it matches with commands. `None`
    /// while exploring, so that nobody pays for it unasked.
    pub fired: Option<Vec<u64>>,
    /// Rules known to find no match on the explorer's prepared board.
    pub no_match: NoMatch,
    /// The group runs of the first input's turn on the explorer's prepared
    /// board, replayed by the other inputs' ([`turn_memo`]).
    pub memo: turn_memo::TurnMemo,
    /// The cells a search near the writes looks at, when they come from two
    /// lists (`apply::near_writes`).
    pub near: Vec<usize>,
    /// True to try every rule by the general path, even those compiled to
    /// plain words (`compile::NarrowRule`): only tests set it, to compare.
    pub general_rules: bool,
    /// The moves of the last direct turn, in order ([`direct::Shift`]).
    pub shifts: Vec<direct::Shift>,
    /// The moving cells that passed each anchor test, while the board
    /// stays as it was ([`matching::AnchorMemo`]).
    pub anchor_memo: matching::AnchorMemo,
    /// True to take every run of cell-local groups in one pass over the
    /// cells, whatever its cost ([`cell_runs`]): only tests set it, to
    /// compare the pass with the groups one by one.
    pub every_run: bool,
}

impl Scratch {
    /// Notes that `rule` fired, when firings are being recorded.
    #[inline]
    pub fn note_fired(&mut self, rule: &crate::compile::Rule) {
        if let Some(fired) = self.fired.as_mut() {
            if fired.len() * 64 <= rule.source {
                fired.resize(rule.source / 64 + 1, 0);
            }
            crate::bits::set(fired, rule.source);
        }
    }
}

/// The most combinations of row matches one rule may apply in one pass (a
/// rule of many bracketed parts matches in the product of its parts' counts:
/// twenty parts of ten matches each would never finish).
pub const MAX_COMBINATIONS: usize = 1_000_000;

/// A rule that went past [`MAX_COMBINATIONS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overrun {
    /// The rule's line in the game text.
    pub line: usize,
    /// The number of combinations (saturated), for the message.
    pub combinations: usize,
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = if self.combinations == usize::MAX {
            "an uncountable number of".to_string()
        } else {
            self.combinations.to_string()
        };
        write!(
            f,
            "the rule on line {} matches in {count} combinations of its parts in one turn, \
             more than the engine's bound of {MAX_COMBINATIONS}",
            self.line
        )
    }
}

#[cfg(test)]
impl Board {
    /// A `width` x `height` board of `game` holding nothing, for tests.
    pub(crate) fn empty(game: &Compiled, width: usize, height: usize) -> Board {
        let grid = Grid {
            width,
            height,
            cells: vec![0; width * height * game.obj_words],
        };
        Board::new(game, &grid)
    }

    /// Fills every cell with pseudo-random objects (of the first five) and
    /// movements drawn from `next`, and lists every cell as moving: the
    /// boards of the rule engine's property tests.
    pub(crate) fn fill_random(&mut self, next: &mut impl FnMut() -> u64) {
        for c in 0..self.cells() {
            self.objects[c] = next() & next() & 0x1f;
            self.movements[c] = next() & next() & next() & 0x7fff;
        }
        self.moving = (0..self.cells()).collect();
    }
}

/// A chooser that always picks the first option (the tests' rules choose
/// nothing at random).
#[cfg(test)]
pub(crate) struct FirstChoice;

#[cfg(test)]
impl Chooser for FirstChoice {
    fn choose(&mut self, _n: usize) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::Board;

    /// An empty board of a game of a background and a player.
    pub(super) fn plain_board(width: usize, height: usize) -> Board {
        let game = crate::compile(
            "t",
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nLEGEND\n. = Background\nP = Player\nSOUNDS\n\
             COLLISIONLAYERS\nBackground\nPlayer\nRULES\nWINCONDITIONS\nLEVELS\n.P.\n",
        )
        .expect("compiles");
        Board::empty(&game, width, height)
    }

    fn board() -> Board {
        plain_board(70, 2)
    }

    /// A board-only summary made whole by `ensure_summary` is the summary
    /// computed from the board, rows and columns included, while a full
    /// one is left as it is.
    #[test]
    fn a_board_only_summary_is_made_whole_from_the_board() {
        let mut b = board();
        b.objects[3] = 2;
        b.objects[137] = 1;
        b.movements[137] = 4;
        b.moving.push(137);
        let mut whole = b.clone();
        whole.summarize(1, 1);
        b.summary.reset_map(1, 1, b.height);
        b.summary.add_objects(0, 0, &[3]);
        assert!(!b.summary.is_full());
        assert_eq!(b.summary.map_words(), (3, 0));
        b.ensure_summary(1, 1);
        assert!(b.summary.is_full());
        for y in 0..b.height {
            assert_eq!(b.summary.row(y), whole.summary.row(y));
        }
        for x in 0..b.width {
            assert_eq!(b.summary.col(x), whole.summary.col(x));
        }
        assert_eq!(b.summary.map(), whole.summary.map());
        b.summary.add_objects(5, 1, &[8]);
        b.ensure_summary(1, 1);
        assert_eq!(b.summary.map_words(), (11, 4));
    }

    /// A cell written many times is listed once, and a cleared list takes
    /// every cell again (cells past the first word of bits included).
    #[test]
    fn touched_cells_are_listed_once_until_cleared() {
        let mut b = board();
        for _ in 0..3 {
            for i in [5, 139, 5, 64, 139] {
                b.touch(i);
            }
        }
        assert_eq!(b.touched, vec![5, 139, 64]);
        b.clear_touched();
        assert!(b.touched.is_empty());
        b.touch(139);
        b.touch(139);
        assert_eq!(b.touched, vec![139]);
    }

    /// Restoring the touched cells puts back exactly those cells and
    /// empties the list, so that the next writes are listed again.
    #[test]
    fn restored_cells_take_their_start_and_leave_the_list() {
        let mut b = board();
        let start = b.objects.clone();
        for i in [5, 139, 64] {
            b.objects[i] = 99;
            b.touch(i);
        }
        b.objects[7] = 98; // written without a touch: left alone
        b.restore_touched(&start);
        assert!(b.touched.is_empty());
        for i in [5, 139, 64] {
            assert_eq!(b.objects[i], start[i], "cell {i}");
        }
        assert_eq!(b.objects[7], 98);
        b.touch(5);
        assert_eq!(b.touched, vec![5]);
    }
}
