//! The rule groups of a turn replayed across the inputs of one prepared
//! board: what the first input's turn wrote, written again.
//!
//! The explorer tries every input on one prepared board. The input only
//! sets movements, and a rule group that neither tests nor writes a
//! movement (`RuleSet::replayable`) does on the same objects what it did
//! before. So the first turn of the first input records, group run by
//! group run, the cells each run wrote (with their objects afterwards) and
//! the commands it queued; the first turn of every later input, while its
//! objects are still those of the recorded turn, writes those cells and
//! queues those commands instead of searching the group's rules. A run of
//! a group that may read movements is searched as usual, and if it changed
//! the board in either turn, the two turns may differ from there on: the
//! rest of the turn is searched as usual too.
//!
//! Why the objects stay the same: both turns start from the prepared
//! board's objects (only movements differ), a replayed run leaves them as
//! the recorded run did, and a searched run that changed nothing in either
//! turn leaves them as they were. The summaries and the records of
//! `NoMatch` only speed searches up, never change their answers, so a turn
//! whose summaries hold more or fewer objects than the recorded one's
//! finds the same matches.

use super::Board;
use crate::compile::Command;

/// Boards in a row whose records replayed nothing, after which boards
/// record only now and then.
const IDLE_BOARDS: u32 = 16;

/// While records replay nothing, one board in this many records.
const PROBE_EVERY: u32 = 32;

/// What a turn does with the record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mode {
    /// Nothing: no record is made or read in this turn.
    #[default]
    Off,
    /// The first turn on a prepared board: its group runs are recorded.
    Recording,
    /// A later first turn: recorded runs are replayed while it can.
    Replaying,
}

/// One recorded run of a group.
#[derive(Clone, Copy, Debug)]
struct Run {
    /// The group's index in the rule set.
    group: u32,
    /// True when the run changed the board.
    changed: bool,
    /// Its writes: the range of `TurnMemo::cells`.
    cells: (u32, u32),
    /// Its commands: the range of `TurnMemo::commands`.
    commands: (u32, u32),
}

/// The record of a turn's group runs on one prepared board (see the
/// module's documentation), and where a replaying turn is in it.
#[derive(Clone, Debug, Default)]
pub struct TurnMemo {
    mode: Mode,
    /// True when the record holds a whole turn of the current board.
    recorded: bool,
    /// True when the recording failed (its log was cut): no replay.
    spoiled: bool,
    /// True when this board's first turn records (see `idle_boards`).
    wanted: bool,
    /// Runs replayed on this board.
    replayed: u32,
    /// Boards in a row whose record replayed no run: a game whose first
    /// group reads the input (a push) never replays, and recording costs.
    idle_boards: u32,
    /// Boards seen, to record one in [`PROBE_EVERY`] while idle.
    boards: u32,
    /// The next recorded run a replaying turn meets.
    cursor: usize,
    /// True once the replaying turn's objects may differ from the record's.
    diverged: bool,
    runs: Vec<Run>,
    /// Each written cell (repeats kept, in order of writing).
    cells: Vec<usize>,
    /// The objects of each of `cells` after its run (`so` words each).
    objects: Vec<u64>,
    commands: Vec<Command>,
}

/// Where a group run's writes start: the board's log and command queue.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    log_epoch: u64,
    log_len: usize,
    queue_len: usize,
}

impl TurnMemo {
    /// Forgets the record: the board is a new prepared one. After
    /// [`IDLE_BOARDS`] boards in a row whose records replayed nothing, one
    /// board in [`PROBE_EVERY`] records, to find out whether replays pay
    /// again.
    pub fn new_board(&mut self) {
        if self.recorded {
            self.idle_boards = if self.replayed == 0 {
                self.idle_boards.saturating_add(1)
            } else {
                0
            };
        }
        self.boards = self.boards.wrapping_add(1);
        self.wanted = self.idle_boards < IDLE_BOARDS || self.boards.is_multiple_of(PROBE_EVERY);
        self.recorded = false;
        self.spoiled = false;
        self.replayed = 0;
        self.mode = Mode::Off;
    }

    /// Starts a turn: the first turn of an input (`first`) on a board
    /// that logs its writes (`usable`) records or replays, any other turn
    /// does neither.
    pub fn begin_turn(&mut self, first: bool, usable: bool) {
        self.mode = match (first && usable && self.wanted, self.recorded, self.spoiled) {
            (false, ..) | (true, _, true) => Mode::Off,
            (true, false, false) => {
                self.runs.clear();
                self.cells.clear();
                self.objects.clear();
                self.commands.clear();
                Mode::Recording
            }
            (true, true, false) => Mode::Replaying,
        };
        self.cursor = 0;
        self.diverged = false;
    }

    /// Ends the rule phase of a turn (movements and late rules follow):
    /// a recording is whole from here, unless a rule went past a bound of
    /// the engine (`faulted`).
    pub fn end_rules(&mut self, faulted: bool) {
        if self.mode == Mode::Recording {
            self.spoiled |= faulted;
            self.recorded = !self.spoiled;
        }
        self.mode = Mode::Off;
    }

    /// True when the turn records its group runs.
    #[inline]
    pub fn recording(&self) -> bool {
        self.mode == Mode::Recording
    }

    /// The recorded run of `group` to write instead of searching it, when
    /// this turn replays and may (`replayable`: the group reads and writes
    /// no movement); `None` when the group must be searched. Either way
    /// the turn moves past the run.
    #[inline]
    pub fn replay_next(&mut self, group: usize, replayable: bool) -> Option<usize> {
        if self.mode != Mode::Replaying || self.diverged {
            return None;
        }
        let k = self.cursor;
        self.cursor += 1;
        match self.runs.get(k) {
            Some(run) if run.group as usize == group => {
                self.replayed += u32::from(replayable);
                replayable.then_some(k)
            }
            _ => {
                self.diverged = true;
                None
            }
        }
    }

    /// After a replaying turn searched run `k` of a group (one that may
    /// read movements), `changed` telling whether it changed the board:
    /// the turns may differ from here on when either run changed it.
    #[inline]
    pub fn searched(&mut self, changed: bool) {
        if self.mode != Mode::Replaying || self.diverged {
            return;
        }
        let recorded = self
            .cursor
            .checked_sub(1)
            .and_then(|k| self.runs.get(k))
            .is_some_and(|run| run.changed);
        self.diverged = changed || recorded;
    }

    /// The board's log and queue before a group's run, for [`TurnMemo::record`].
    #[inline]
    pub fn mark(board: &Board) -> Mark {
        Mark {
            log_epoch: board.log_epoch,
            log_len: board.log.len(),
            queue_len: board.queue.len(),
        }
    }

    /// Records a run of `group` that began at `mark` and changed the
    /// board or not (`changed`), on a board of `so` object words a cell.
    pub fn record(&mut self, group: usize, changed: bool, mark: Mark, board: &Board, so: usize) {
        if board.log_epoch != mark.log_epoch {
            // The log was emptied past its cap: the writes are unknown.
            self.spoiled = true;
            self.mode = Mode::Off;
            return;
        }
        let start = (self.cells.len() as u32, self.commands.len() as u32);
        for &i in board.log.get(mark.log_len..).unwrap_or(&[]) {
            self.cells.push(i);
            let cell = board.objects.get(i * so..i * so + so).unwrap_or(&[]);
            self.objects.extend_from_slice(cell);
        }
        let commands = board.queue.get(mark.queue_len..).unwrap_or(&[]);
        self.commands.extend_from_slice(commands);
        self.runs.push(Run {
            group: group as u32,
            changed,
            cells: (start.0, self.cells.len() as u32),
            commands: (start.1, self.commands.len() as u32),
        });
    }

    /// Writes recorded run `k` onto `board` (`so` object words and `sm`
    /// movement words a cell) with the bookkeeping of a rule's write, and
    /// queues its commands; true when the recorded run changed the board.
    pub fn replay(&self, k: usize, board: &mut Board, so: usize, sm: usize) -> bool {
        let Some(run) = self.runs.get(k) else {
            return false;
        };
        for n in run.cells.0 as usize..run.cells.1 as usize {
            let (Some(&i), Some(objects)) =
                (self.cells.get(n), self.objects.get(n * so..n * so + so))
            else {
                continue;
            };
            if let Some(cell) = board.objects.get_mut(i * so..i * so + so) {
                cell.copy_from_slice(objects);
            }
            board.note_cell(i, so, sm);
            board.touch(i);
        }
        let commands = self
            .commands
            .get(run.commands.0 as usize..run.commands.1 as usize)
            .unwrap_or(&[]);
        board.queue_commands(commands);
        run.changed
    }
}

#[cfg(test)]
mod tests {
    use super::{Mode, TurnMemo, IDLE_BOARDS, PROBE_EVERY};
    use crate::engine::Board;

    /// A turn records on a new board, the next first turns replay, other
    /// turns do neither, and a new board records again.
    #[test]
    fn first_turns_record_then_replay_until_a_new_board() {
        let mut m = TurnMemo::default();
        m.new_board();
        m.begin_turn(true, true);
        assert_eq!(m.mode, Mode::Recording);
        m.end_rules(false);
        m.begin_turn(false, true);
        assert_eq!(m.mode, Mode::Off, "an again turn");
        m.begin_turn(true, false);
        assert_eq!(m.mode, Mode::Off, "a board that logs nothing");
        m.begin_turn(true, true);
        assert_eq!(m.mode, Mode::Replaying);
        m.new_board();
        m.begin_turn(true, true);
        assert_eq!(m.mode, Mode::Recording);
        m.end_rules(true);
        m.begin_turn(true, true);
        assert_eq!(
            m.mode,
            Mode::Off,
            "a recording cut by a fault is never replayed"
        );
        // Boards whose records replay nothing stop recording but now and then.
        let mut recorded = 0;
        for _ in 0..(IDLE_BOARDS + 4 * PROBE_EVERY) {
            m.new_board();
            m.begin_turn(true, true);
            recorded += usize::from(m.mode == Mode::Recording);
            m.end_rules(false);
        }
        assert!(
            (4..=IDLE_BOARDS as usize + 5).contains(&recorded),
            "{recorded}"
        );
    }

    /// Runs are replayed in order while the groups are those recorded and
    /// replayable; a searched run that changed the board in either turn,
    /// or another group, ends the replay for the rest of the turn.
    #[test]
    fn replays_stop_where_the_turns_may_differ() {
        let g = crate::compile(
            "t",
            "OBJECTS\nBackground\nblack\nPlayer\nwhite\nMark\ngreen\nLEGEND\n. = Background\n\
             P = Player\nSOUNDS\nCOLLISIONLAYERS\nBackground\nMark\nPlayer\nRULES\n\
             [ Player ] -> [ Player Mark ] again\nWINCONDITIONS\nLEVELS\n.P.\n",
        )
        .expect("compiles");
        let mut board = Board::empty(&g, 3, 1);
        board.logging = true;
        let mut m = TurnMemo::default();
        m.new_board();
        m.begin_turn(true, true);
        for (group, changed) in [(0, true), (1, false), (2, true), (3, false)] {
            let mark = TurnMemo::mark(&board);
            if changed {
                board.objects[group % 3] |= 4;
                board.touch(group % 3);
                board.queue_commands(&g.rules.groups[0][0].commands);
            }
            m.record(group, changed, mark, &board, 1);
        }
        m.end_rules(false);
        let mut other = Board::empty(&g, 3, 1);
        m.begin_turn(true, true);
        let k = m.replay_next(0, true).expect("replayed");
        assert!(m.replay(k, &mut other, 1, g.mov_words));
        assert_eq!((other.objects[0], other.queue.len()), (4, 1));
        assert_eq!(m.replay_next(1, false), None, "searched");
        m.searched(false);
        assert!(m.replay_next(2, true).is_some(), "neither run of 1 changed");
        assert_eq!(m.replay_next(3, false), None);
        m.searched(true);
        assert_eq!(m.replay_next(4, true), None, "the turns differ from here");
        m.begin_turn(true, true);
        assert_eq!(m.replay_next(1, true), None, "another group than recorded");
        assert_eq!(m.replay_next(1, true), None);
    }
}
